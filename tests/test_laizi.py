"""The ``laizi`` rule set in the core (RULES.md section 8): the rule set as
data, every worked reading of section 8, substitutes and text, the largest
hands, and everything above the generator (classify, beats, batch, Game,
simulate, scoring, features, CLI). The perft counts are in test_perft.py; the
core against the brute-force reference in test_laizi_vs_reference.py."""
import pickle

import numpy as np
import pytest

import ddzfast
from ddzfast import Game, Hand, Move, MoveKind, classify, get_rules, legal_moves
from ddzfast.constants import CARD_CHARS

L7 = "laizi:7"


def moves_of(hand, rules=L7, last=None):
    return {(m.kind.name, CARD_CHARS[m.rank], m.length, str(m.cards))
            for m in legal_moves(hand, last, rules)}


def readings(cards, rules=L7):
    """Every reading of exactly these cards: (kind, rank char)."""
    return sorted((m.kind.name, CARD_CHARS[m.rank]) for m in classify(cards, rules))


# ---- the rule set ------------------------------------------------------------------

def test_the_wild_rank_is_a_value_of_the_rule_set():
    base = get_rules("laizi")
    assert base.laizi and base.wild_rank is None and not base.wildcard
    seven = base.with_options(wild_rank="7")
    assert seven.wild_rank == 4 and seven.laizi
    assert get_rules(L7).wild_rank == 4
    assert get_rules("laizi:T").wild_rank == get_rules("laizi:10").wild_rank == 7
    assert base.with_options(wild_rank=12).wild_rank == 12
    # equal rule sets: the same core behaviour
    assert get_rules(L7).rules_id == seven.rules_id
    assert repr(seven) == "Rules('laizi', wild_rank='7')"
    assert pickle.loads(pickle.dumps(seven)).wild_rank == 4
    assert get_rules("classic").wild_rank is None and not get_rules("classic").laizi


@pytest.mark.parametrize("call", [
    lambda r: legal_moves("3777", None, r),
    lambda r: classify("3777", r),
    lambda r: ddzfast.beats(Move("PAIR", 0, 1, "33", rules=L7),
                            Move("SINGLE", 0, 1, "3", rules=L7), r),
    lambda r: ddzfast.legal_moves_into(int(Hand("3777")), None, r,
                                       np.empty(64, ddzfast.MOVE_DTYPE)),
    lambda r: ddzfast.legal_moves_batch([int(Hand("3777"))], None, r),
    lambda r: Move("PAIR", 0, 1, "37", rules=r),
    lambda r: Game.from_position(["3", "4", "5"], r),
])
def test_no_wild_rank_is_a_value_error(call):
    with pytest.raises(ValueError, match="wild rank"):
        call("laizi")


@pytest.mark.parametrize("value, error", [
    ("X", ValueError), ("W", ValueError), (13, ValueError), (-1, ValueError),
    ("77", ValueError), (1.0, TypeError), (True, TypeError)])
def test_bad_wild_ranks(value, error):
    with pytest.raises(error):
        get_rules("laizi").with_options(wild_rank=value)


def test_wild_rank_and_laizi_kinds_only_in_laizi_rule_sets():
    with pytest.raises(ValueError, match="laizi"):
        get_rules("classic").with_options(wild_rank="7")
    with pytest.raises(ValueError, match="laizi"):
        get_rules("classic").with_options(
            kinds=tuple(k.name for k in get_rules("classic").kinds if k) + ("SOFT_BOMB",))
    with pytest.raises(ValueError, match="no W"):
        get_rules("laizi").with_options(wildcard=True, kitty=4)
    with pytest.raises(ValueError, match="not a laizi rule set"):
        get_rules("classic:7")
    with pytest.raises(ValueError):
        get_rules("laizi:X")


def test_kinds_are_appended_and_tiers_are_data():
    assert MoveKind.SOFT_BOMB == 19 and MoveKind.LAIZI_BOMB == 20
    assert MoveKind.SUPER_BOMB == 18      # existing numbers unchanged
    r = get_rules(L7)
    tiers = [r.tier(k) for k in ("SOFT_BOMB", "BOMB", "LAIZI_BOMB", "ROCKET")]
    assert tiers == sorted(tiers) and len(set(tiers)) == 4 and r.tier("PAIR") == 0
    assert ddzfast.MOVE_DTYPE.itemsize == 16


# ---- the worked readings of section 8 (L = 7) -------------------------------------

def test_5577():
    assert readings("5577") == [("SOFT_BOMB", "5"), ("TRIPLE_SINGLE", "5")]


def test_3777():
    got = readings("3777")
    assert ("SOFT_BOMB", "3") in got
    ts = [r for k, r in got if k == "TRIPLE_SINGLE"]
    assert sorted(ts) == sorted(CARD_CHARS[:13]) and len(got) == 14


def test_777X():
    got = readings("777X")
    assert len(got) == 13 and {k for k, _ in got} == {"TRIPLE_SINGLE"}


def test_7777_is_only_a_laizi_bomb():
    assert readings("7777") == [("LAIZI_BOMB", "7")]


def test_345677_is_only_one_straight():
    (m,) = classify("345677", L7)
    assert (m.kind.name, m.rank, m.length) == ("STRAIGHT", 0, 6)
    assert str(m.substitutes) == "8" and str(m) == "STRAIGHT 345677 (7 as 8)"


def test_33377_is_only_a_triple_pair():
    assert readings("33377") == [("TRIPLE_PAIR", "3")]


def test_33337777_is_only_four_pairs():
    (m,) = classify("33337777", L7)
    assert (m.kind.name, m.rank) == ("FOUR_PAIRS", 0)


def test_3457_is_not_a_move():
    assert readings("3457") == []


def test_laizi_alone_are_read_at_face_value():
    assert readings("7") == [("SINGLE", "7")]
    assert readings("77") == [("PAIR", "7")]
    assert readings("777") == [("TRIPLE", "7")]


def test_4477_answers_a_pair_of_aces_only_as_a_soft_bomb():
    aa = Move("PAIR", 11, 1, "AA", rules=L7)
    got = moves_of("4477", last=aa)
    assert got == {("PASS", "3", 0, ""), ("SOFT_BOMB", "4", 1, "4477")}


def test_a_soft_bomb_never_beats_a_bomb():
    soft5 = Move("SOFT_BOMB", 2, 1, "5577", rules=L7)
    bomb3 = Move("BOMB", 0, 1, "3333", rules=L7)
    assert not ddzfast.beats(soft5, bomb3, L7) and ddzfast.beats(bomb3, soft5, L7)
    assert ("SOFT_BOMB", "5", 1, "5557") not in moves_of("5557", last=bomb3)
    lz = Move("LAIZI_BOMB", 4, 1, "7777", rules=L7)
    rocket = Move("ROCKET", 13, 1, "XD", rules=L7)
    assert ddzfast.beats(lz, bomb3, L7) and ddzfast.beats(rocket, lz, L7)
    assert not ddzfast.beats(lz, rocket, L7)
    soft6 = Move("SOFT_BOMB", 3, 1, "6777", rules=L7)
    assert ddzfast.beats(soft6, soft5, L7) and not ddzfast.beats(soft5, soft6, L7)


def test_a_laizi_kicker_may_sit_beside_a_main_rank_of_L():
    assert ("PLANE_SINGLES", "6") in readings("3666777" + "7")


def test_no_natural_kicker_of_a_main_rank():
    # 3337: the 3s are all in the main part; 7 can only be the kicker or a 3
    assert readings("3337") == [("SOFT_BOMB", "3"), ("TRIPLE_SINGLE", "3")]
    # 33334: never a triple of 3s with a 3 kicker
    assert ("TRIPLE_PAIR", "3") not in readings("33334")


def test_pair_kickers_of_distinct_ranks_none_a_main_rank():
    # 333+77: the laizi as a pair of any free rank
    assert readings("33377") == [("TRIPLE_PAIR", "3")]
    # 333+4+7: a natural 4 completed by a laizi
    assert ("TRIPLE_PAIR", "3") in readings("33347")
    # four pairs need two distinct ranks: 3333+44+47 is not FOUR_PAIRS
    assert ("FOUR_PAIRS", "3") not in readings("33334447")


def test_four_singles_and_four_pairs_hold_laizi():
    assert ("FOUR_SINGLES", "3") in readings("33375" + "8")
    assert ("FOUR_PAIRS", "3") in readings("3337" + "5588")


def test_bombs():
    assert moves_of("3333") >= {("BOMB", "3", 1, "3333")}
    assert ("SOFT_BOMB", "3", 1, "3333") not in moves_of("3333")
    assert {m for m in moves_of("3777") if m[0] == "SOFT_BOMB"} == {
        ("SOFT_BOMB", "3", 1, "3777")}
    # laizi 7s are never a BOMB or a SOFT_BOMB of 7s
    assert {m[0] for m in moves_of("7777") if "BOMB" in m[0]} == {"LAIZI_BOMB"}


def test_substitutes_and_text():
    by = {str(m): m for m in legal_moves("3777", None, L7)}
    assert "TRIPLE_SINGLE 3777 (77 as 33)" in by
    assert "TRIPLE_SINGLE 3777 (777 as AAA)" in by
    assert "TRIPLE_SINGLE 3777" in by          # 777 as themselves, 3 kicker
    assert str(by["TRIPLE_SINGLE 3777 (77 as 33)"].substitutes) == "33"
    assert by["TRIPLE_SINGLE 3777 (777 as AAA)"].wild_text == "777 as AAA"
    # four laizi standing for one rank
    (m,) = [m for m in legal_moves("357777", None, L7)
            if m.kind.name == "FOUR_SINGLES" and m.rank == 11]
    assert str(m.substitutes) == "AAAA" and str(m) == "FOUR_SINGLES 357777 (7777 as AAAA)"
    # the array holds them too; Move() and a row re-derive them
    arr = legal_moves("357777", None, L7).array
    row = arr[[i for i in range(len(arr)) if arr[i]["kind"] == 11
               and arr[i]["rank"] == 11][0]]
    # 2 bits per rank 3..2; four laizi for one rank: that rank + 1 in bits 26..29
    assert int(row["substitutes"]) == (11 + 1) << 26
    assert int(legal_moves("3777", None, L7).array[6]["substitutes"]) == 2 << 0
    made = Move("FOUR_SINGLES", 11, 1, "357777", rules=L7)
    assert made.substitutes == m.substitutes
    assert pickle.loads(pickle.dumps(made)).substitutes == m.substitutes
    assert ddzfast.play("3577779", row, L7) == Hand("9")


def test_classic_rule_sets_have_no_substitutes():
    for rules in ("classic", "biegang", "super"):
        hand = "33345678" + ("W" if get_rules(rules).wildcard else "")
        arr = legal_moves(hand, None, rules).array
        assert not arr["substitutes"].any()


# ---- without laizi: the classic moves -----------------------------------------

def test_a_hand_without_laizi_has_the_classic_moves():
    rng = np.random.default_rng(10)
    deck = "".join(c * 4 for c in CARD_CHARS[:13]) + "XD"
    for i in range(400):
        L = CARD_CHARS[i % 13]
        pool = [c for c in deck if c != L]
        hand = "".join(rng.choice(pool, rng.integers(1, 21), replace=False))
        want = {m.identity for m in legal_moves(hand, None, "classic")}
        got = legal_moves(hand, None, f"laizi:{L}")
        assert {m.identity for m in got} == want, (hand, L)
        assert len(got) == len(want)


# ---- the largest hands ------------------------------------------------------------

BIG = "3456777789TTTJJJQQKA"       # 20 cards, four laizi: 10,796 leads


def test_the_largest_hands_fit_every_buffer():
    moves = legal_moves(BIG, None, L7)
    assert len(moves) == 10796 > 4096
    assert len({m.identity for m in moves}) == len(moves)
    buf = np.empty(len(moves), ddzfast.MOVE_DTYPE)
    assert ddzfast.legal_moves_into(int(Hand(BIG)), None, L7, buf) == len(moves)
    with pytest.raises(ValueError, match="10796 legal moves"):
        ddzfast.legal_moves_into(int(Hand(BIG)), None, L7, buf[:4096])
    offsets, rows = ddzfast.legal_moves_batch([int(Hand(BIG))] * 3, None, L7)
    assert list(np.diff(offsets)) == [len(moves)] * 3
    assert np.array_equal(rows[:len(moves)], moves.array)


def test_the_whole_deck():
    deck = "".join(c * 4 for c in CARD_CHARS[:13]) + "XD"
    buf = np.empty(3_000_000, ddzfast.MOVE_DTYPE)
    n = ddzfast.legal_moves_into(int(Hand(deck)), None, L7, buf)
    assert n == len(legal_moves(deck, None, L7)) > 2_000_000


# ---- deals ------------------------------------------------------------------------

def test_game_draws_the_wild_rank_from_the_seed():
    seen = set()
    for seed in range(60):
        g = Game("laizi", seed=seed)
        assert g.phase == "bidding" and g.wild_rank is not None
        assert g.rules.wild_rank == g.wild_rank
        assert Game("laizi", seed=seed).wild_rank == g.wild_rank
        assert g.observation(0).wild_rank == g.wild_rank
        seen.add(g.wild_rank)
    assert seen == set(range(13))
    # a rule set naming its rank keeps it
    assert Game(L7, seed=5).wild_rank == 4
    # classic deals are those of before: nothing is drawn
    assert Game("classic", seed=3).wild_rank is None


def test_game_plays_laizi_deals_to_the_end():
    for seed in range(30):
        g = Game("laizi", seed=seed)
        while not g.done:
            g.play(g.policy_move("random")) if g.phase == "play" else g.bid(
                g.policy_bid("random"))
        r = g.result
        assert sum(r.scores) == 0
    g = Game("laizi", seed=1)
    res = g.rollout("greedy", seed=2)
    assert res.winner in ("landlord", "farmers")
    pickle.loads(pickle.dumps(g)).wild_rank == g.wild_rank


def test_simulate_laizi_rows():
    rows = ddzfast.simulate(300, "laizi", seed=4)
    assert set(np.unique(rows["wild_rank"])) <= set(range(13))
    assert len(set(rows["wild_rank"])) > 5
    for i in (0, 7, 123):
        assert Game("laizi", seed=int(rows["seed"][i])).wild_rank == rows["wild_rank"][i]
    assert (ddzfast.simulate(20, "classic")["wild_rank"] == -1).all()
    # the same rows on one thread or two
    assert np.array_equal(rows, ddzfast.simulate(300, "laizi", seed=4, threads=2))
    assert (rows["scores"].sum(axis=1) == 0).all()


def test_scoring_doubles_for_every_bomb():
    # bombs and rockets of every laizi kind double the multiplier
    r = get_rules(L7)
    for kind in ("SOFT_BOMB", "BOMB", "LAIZI_BOMB", "ROCKET"):
        assert r.description["multipliers"][kind] == 2
    g = Game.from_position(["5557", "XD", "3"], L7, landlord=0)
    g.play(Move("SOFT_BOMB", 2, 1, "5557", rules=L7))
    assert g.done and g.result.multiplier == 2 * 2      # the bomb, then spring


# ---- features, numba, CLI --------------------------------------------------------

def test_action_index_per_wild_rank():
    from ddzfast import features as F
    moves = legal_moves(BIG, None, L7)
    idx = F.action_index(moves, L7)
    assert len(set(idx.tolist())) == len(moves)
    assert F.legal_action_mask(moves, L7).sum() == len(moves)
    table = F.action_moves(L7)
    assert np.array_equal(table[idx]["cards"], moves.array["cards"])
    assert F.action_count(L7) > 1_000_000
    with pytest.raises(ValueError, match="wild rank"):
        F.action_count("laizi")


def test_numba_laizi():
    dn = pytest.importorskip("ddzfast.numba")
    import numba

    @numba.njit
    def gen(rules, hand, last, out):
        return dn.legal_moves_into(rules, hand, last, out)

    out = np.empty(12000, ddzfast.MOVE_DTYPE)
    n = gen(dn.rules_handle(L7), np.uint64(int(Hand(BIG))), dn.no_last(), out)
    assert np.array_equal(out[:n], legal_moves(BIG, None, L7).array)
    with pytest.raises(ValueError, match="wild rank"):
        dn.rules_handle("laizi")


def test_cli_moves_with_a_wild_rank(capsys):
    from ddzfast.cli import main
    assert main(["moves", "3777", "--rules", "laizi", "--wild", "7"]) == 0
    out = capsys.readouterr().out
    assert "20 legal moves" in out and "77 as 33" in out and "SOFT_BOMB" in out
    assert main(["moves", "3777", "--rules", "laizi"]) == 2
    assert "--wild" in capsys.readouterr().err
    assert main(["moves", "3777", "--rules", "classic", "--wild", "7"]) == 2


def test_cli_play_laizi(monkeypatch, capsys):
    from ddzfast import cli
    answers = iter(["0", "q"])
    monkeypatch.setattr(cli, "_ask", lambda prompt, out: next(answers))
    assert cli.main(["play", "--rules", "laizi", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "laizi (wild) rank: " + CARD_CHARS[Game("laizi", seed=3).wild_rank] in out


def test_solver_laizi_against_plain_minimax():
    from functools import lru_cache

    from ddzfast.solve import solve

    def naive(rules):
        @lru_cache(maxsize=None)
        def wins(me, other, last):
            # seat to move holds `me`; last: the move to beat (None: lead)
            lm = None if last is None else Move.parse(last, rules)
            for m in legal_moves(me, lm, rules):
                if m.kind.name == "PASS":
                    if not wins(other, me, None):
                        return True
                    continue
                left = ddzfast.play(me, m)
                if not left or not wins(other, str(left), m.text):
                    return True
            return False
        return wins

    rng = np.random.default_rng(8)
    deck = "".join(c * 4 for c in CARD_CHARS[:13]) + "XD"
    for i in range(60):
        L = CARD_CHARS[i % 13]
        rules = f"laizi:{L}"
        cards = list(rng.choice([c for c in deck if c != L], 7, replace=False))
        cards += [L] * int(rng.integers(1, 4))
        rng.shuffle(cards)
        a, b = "".join(cards[:5]), "".join(cards[5:])
        a, b = str(Hand(a)), str(Hand(b))
        assert solve([a, b], rules).win == naive(rules)(a, b, None), (a, b, L)


def test_game_last_move_keeps_its_substitutes():
    g = Game.from_position(["3777", "5", "6"], L7, landlord=0)
    move = Move("TRIPLE_SINGLE", 11, 1, "3777", rules=L7)
    g.play(move)
    assert str(g.last_move) == "TRIPLE_SINGLE 3777 (777 as AAA)"
