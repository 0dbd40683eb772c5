"""The ``tiandi`` rule set (RULES.md section 9, two wild ranks) in the core:
every count of perft/tiandi.txt and every move list of tiandi-moves.json;
the core against tests/oracles/reference_tiandi.py move for move (and
substitute for substitute) on random hands of one to eight laizi, leading
and following; classify and beats against the reference on the worked
readings and on every pair of bomb tiers and sizes, both ways; the rule
set's values and what it refuses."""
import json
import os
import random

import pytest

import ddzfast
from ddzfast import MoveKind
from oracles import reference_tiandi as RT
from helpers import core_move, identity

PERFT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "perft")
RANKS = "3456789TJQKA2"
HANDS_LEADING = 1500
HANDS_FOLLOWING = 1500


def _rules(T, G):
    return ddzfast.get_rules(f"tiandi:{T}{G}")


def _subs(move):
    return tuple(move.substitutes.counts[:13])


def _core_moves(hand, last, T, G):
    """{identity: substitutes} of the core's legal moves (asserting no
    identity comes twice)."""
    r = _rules(T, G)
    last_move = None if last is None else core_move(last, r)
    moves = ddzfast.legal_moves(ddzfast.Hand(sum(c << (4 * i) for i, c in enumerate(hand))),
                                last_move, r)
    out = {identity(m): _subs(m) for m in moves}
    assert len(out) == len(moves), "an identity listed twice"
    return out


# ---- the perft files -----------------------------------------------------------

def _perft_rows():
    rows = []
    with open(os.path.join(PERFT_DIR, "tiandi.txt")) as f:
        for line in f:
            words = line.split()
            if words and words[0] != "total":
                idx, _, T, G, hand, last, count = words
                rows.append((int(idx), T, G, hand, last, int(count)))
    return rows


def test_perft_counts():
    failures = []
    for idx, T, G, hand, last, count in _perft_rows():
        r = _rules(T, G)
        last_move = None if last == "-" else ddzfast.Move.parse(last, r)
        moves = ddzfast.legal_moves(hand, last_move, r)
        ids = {identity(m) for m in moves}
        if len(moves) != count or len(ids) != count:
            failures.append(f"#{idx} {T}{G} {hand} {last}: {len(moves)} != {count}")
    assert len(_perft_rows()) == 300
    assert not failures, "\n".join(failures[:10])


with open(os.path.join(PERFT_DIR, "tiandi-moves.json")) as _f:
    _JSON = json.load(_f)["positions"]


@pytest.mark.parametrize("i", range(len(_JSON)))
def test_perft_move_lists(i):
    pos = _JSON[i]
    T, G = pos["sky_rank"], pos["ground_rank"]
    r = _rules(T, G)
    last = None if pos["last"] == "-" else ddzfast.Move.parse(pos["last"], r)
    got = {identity(m) for m in ddzfast.legal_moves(pos["hand"], last, r)}
    expected = set()
    for kind, rank, n, cards in pos["moves"]:
        if kind == "PASS":
            expected.add(("PASS", 0, 0, (0,) * 16))
        else:
            expected.add((kind, rank, n, RT.parse_cards(cards)))
    assert got == expected, (f"missing {sorted(expected - got)[:5]} "
                             f"extra {sorted(got - expected)[:5]}")


# ---- the core against the reference, random hands ------------------------------

def _random_hand(rng, T, G, laizi):
    """A random hand of 1..13 cards holding `laizi` laizi of the ranks T, G."""
    t, g = RANKS.index(T), RANKS.index(G)
    counts = [0] * 16
    a = rng.randint(max(0, laizi - 4), min(4, laizi))
    counts[t], counts[g] = a, laizi - a
    others = [i for i in range(15) if i not in (t, g)]
    target = rng.randint(0, 13 - laizi) if laizi < 13 else 0
    if rng.random() < 0.4:
        # dense: a few ranks with pairs, triples, fours
        for i in rng.sample(others[:13 - 2], rng.randint(1, 3)):
            counts[i] = rng.randint(2, 4)
    while sum(counts) - laizi < target:
        i = rng.choice(others)
        if counts[i] < (4 if i < 13 else 1):
            counts[i] += 1
    return tuple(counts)


def _pair(rng):
    T, G = rng.sample(RANKS, 2)
    return T, G


def test_leading_equals_reference_with_one_to_eight_laizi():
    rng = random.Random("tiandi-leading")
    for k in range(HANDS_LEADING):
        T, G = _pair(rng)
        hand = _random_hand(rng, T, G, 1 + k % 8)
        expected = RT.legal_moves_subst(hand, None, T, G)
        got = _core_moves(hand, None, T, G)
        assert set(got) == set(expected), (
            f"{T}{G} {RT.cards_text(hand)}: missing "
            f"{sorted(RT.move_text(m) for m in set(expected) - set(got))[:5]}, extra "
            f"{sorted(RT.move_text(m) for m in set(got) - set(expected))[:5]}")
        for m, s in expected.items():
            assert got[m] == s, f"{T}{G} {RT.move_text(m)}: substitutes {got[m]} != {s}"


def test_following_equals_reference_with_one_to_eight_laizi():
    rng = random.Random("tiandi-following")
    followed = 0
    for k in range(HANDS_FOLLOWING):
        T, G = _pair(rng)
        hand = _random_hand(rng, T, G, 1 + k % 8)
        # the last move: a move of another random hand (bombs often)
        other = _random_hand(rng, T, G, rng.randint(0, 6))
        moves = sorted(RT.all_moves(other, T, G))
        if not moves:
            continue
        bombs = [m for m in moves if m[0] in RT.BOMB_KINDS]
        last = rng.choice(bombs if bombs and rng.random() < 0.5 else moves)
        expected = RT.legal_moves_subst(hand, last, T, G)
        got = _core_moves(hand, last, T, G)
        assert set(got) == set(expected), (
            f"{T}{G} {RT.cards_text(hand)} after {RT.move_text(last)}: missing "
            f"{sorted(RT.move_text(m) for m in set(expected) - set(got))[:5]}, extra "
            f"{sorted(RT.move_text(m) for m in set(got) - set(expected))[:5]}")
        for m, s in expected.items():
            assert got[m] == s, f"{RT.move_text(m)}: substitutes {got[m]} != {s}"
        followed += len(expected) > 1
    assert followed > HANDS_FOLLOWING // 4


# ---- classify and beats ----------------------------------------------------------

WORKED = ["7J", "7J3", "777J", "7777", "33337", "777JJ", "3333777JJ", "7777JJJJ",
          "7777JJ", "33377", "3777", "777X", "5577", "4477", "33337777JJJJ",
          "7JJJJ", "77JJ", "3333", "XD", "7", "J"]


@pytest.mark.parametrize("cards", WORKED)
def test_classify_equals_reference_on_worked_readings(cards):
    got = {identity(m): _subs(m) for m in ddzfast.classify(cards, "tiandi:7J")}
    expected = dict(RT.readings(RT.parse_cards(cards), "7", "J"))
    assert got == expected


def test_classify_neighbouring_wild_ranks():
    got = {identity(m) for m in ddzfast.classify("777888", "tiandi:78")}
    assert got == RT.classify(RT.parse_cards("777888"), "7", "8")
    assert {k for k, *_ in got} == {"PLANE", "LAIZI_BOMB"}


def _bombs(T, G):
    """One or more moves of every bomb tier of RULES.md 9, several ranks each."""
    t, g = RANKS.index(T), RANKS.index(G)
    out = []
    naturals = [i for i in range(13) if i not in (t, g)]
    for r in (naturals[0], naturals[5], naturals[-1]):
        for a in range(1, 5):
            for lt in range(5):
                for lg in range(5):
                    if lt + lg and 4 <= a + lt + lg <= 12:
                        c = [0] * 16
                        c[r], c[t], c[g] = a, lt, lg
                        out.append(("SOFT_BOMB", r, 1, tuple(c)))
        c = [0] * 16
        c[r] = 4
        out.append(("BOMB", r, 1, tuple(c)))
    for lt in range(5):
        for lg in range(5):
            if 4 <= lt + lg:
                c = [0] * 16
                c[t], c[g] = lt, lg
                out.append(("LAIZI_BOMB", RT.laizi_bomb_rank(c), 1, tuple(c)))
    c = [0] * 16
    c[13] = c[14] = 1
    out.append(("ROCKET", 13, 1, tuple(c)))
    return out


@pytest.mark.parametrize("T,G", [("7", "J"), ("J", "7"), ("2", "3"), ("3", "4")])
def test_every_pair_of_bomb_kinds_and_sizes_both_ways(T, G):
    r = _rules(T, G)
    bombs = _bombs(T, G)
    moves = [core_move(b, r) for b in bombs]
    assert {(b[0], RT.size(b)) for b in bombs} >= {(k, s) for k, s, _ in RT.TIER_ORDER}
    plain = core_move(("PAIR", 11, 1, RT.parse_cards("AA")), r)
    for b, m in zip(bombs, moves):
        assert ddzfast.beats(m, plain, r) and not ddzfast.beats(plain, m, r)
        for b2, m2 in zip(bombs, moves):
            assert ddzfast.beats(m, m2, r) == RT.beats(b, b2), \
                f"{RT.move_text(b)} vs {RT.move_text(b2)}"


def test_tiers_of_the_rule_set_are_section_9s_order():
    r = _rules("7", "J")
    bombs = _bombs("7", "J")
    tiers = {}
    for b in bombs:
        tiers.setdefault(RT.tier(b), set()).add(ddzfast.Move(b[0], b[1], 1, sum(
            c << (4 * i) for i, c in enumerate(b[3])), rules=r))
    # the core agrees on which bombs share a tier: none beats another of its
    # tier unless both are ranked (SOFT_BOMB, BOMB, pure LAIZI_BOMB) by r
    for same in tiers.values():
        for m in same:
            for m2 in same:
                if ddzfast.beats(m, m2, r):
                    assert m.rank > m2.rank and m.kind == m2.kind


# ---- the rule set's values -------------------------------------------------------

def test_wild_ranks_are_rule_values():
    r = ddzfast.get_rules("tiandi").with_options(wild_ranks=("7", "J"))
    assert r.wild_ranks == (4, 8)
    assert r.ready and r.wild_count == 2 and r.laizi and r.wild_rank is None
    assert ddzfast.get_rules("tiandi:7J").rules_id == r.rules_id
    # the sky rank is kept: (J, 7) is another rule set with the same moves
    r2 = ddzfast.get_rules("tiandi:J7")
    assert r2.wild_ranks == (8, 4)
    assert {identity(m) for m in ddzfast.legal_moves("3377JJ", None, r)} == \
        {identity(m) for m in ddzfast.legal_moves("3377JJ", None, r2)}
    assert repr(r) == "Rules('tiandi', wild_ranks=('7', 'J'))"
    assert ddzfast.get_rules("tiandi:10J").wild_ranks == (7, 8)


@pytest.mark.parametrize("rules", [
    "tiandi", ddzfast.get_rules("tiandi").with_options(wild_ranks=("7",))])
def test_without_both_ranks_nothing_is_generated(rules):
    for call in (lambda: ddzfast.legal_moves("3377", None, rules),
                 lambda: ddzfast.classify("3377", rules),
                 lambda: ddzfast.beats("PAIR/7/1/77", "PAIR/3/1/33", rules)):
        with pytest.raises(ValueError, match="both wild ranks"):
            call()


@pytest.mark.parametrize("bad, error", [
    ("tiandi:77", ValueError), ("tiandi:7", ValueError), ("tiandi:7JQ", ValueError),
    ("tiandi:7X", ValueError)])
def test_bad_rank_pairs_are_refused(bad, error):
    with pytest.raises(error):
        ddzfast.get_rules(bad)


def test_bad_options_are_refused():
    base = ddzfast.get_rules("tiandi")
    with pytest.raises(ValueError, match="wild_ranks"):
        base.with_options(wild_rank="7")
    with pytest.raises(ValueError, match="differ"):
        base.with_options(wild_ranks=("7", "7"))
    with pytest.raises(ValueError, match="wild_ranks"):
        ddzfast.get_rules("laizi").with_options(wild_ranks=("7", "J"))
    with pytest.raises(ValueError, match="two wild ranks"):
        ddzfast.get_rules("laizi").with_options(
            size_tiers={"SOFT_BOMB": {4: 1, 5: 2}})


def test_substitutes_of_eight_laizi():
    r = _rules("7", "J")
    (sb,) = [m for m in ddzfast.classify("33337777JJJJ", r)]
    assert sb.kind == MoveKind.SOFT_BOMB and str(sb.substitutes) == "3" * 8
    (lb,) = ddzfast.classify("7777JJJJ", r)
    assert str(lb.substitutes) == "7777JJJJ"
    assert str(lb) == "LAIZI_BOMB 7777JJJJ (7777JJJJ as 7777JJJJ)"
    # the row stays 16 bytes
    assert ddzfast.MOVE_DTYPE.itemsize == 16


def test_a_hand_without_laizi_plays_as_classic():
    rng = random.Random("tiandi-classic")
    deck = [c for c in RANKS * 4 + "XD" if c not in "7J"]
    for _ in range(200):
        hand = "".join(rng.sample(deck, rng.randint(1, 17)))
        got = {identity(m) for m in ddzfast.legal_moves(hand, None, "tiandi:7J")}
        assert got == {identity(m) for m in ddzfast.legal_moves(hand, None, "classic")}


def test_largest_hands():
    """20 cards with eight laizi: the list grows past the stack buffer and
    every move is distinct (its count is in docs/moves.md)."""
    r = _rules("7", "J")
    hand = "34567777899JJJJQQKKA"
    moves = ddzfast.legal_moves(hand, None, r)
    ids = {identity(m) for m in moves}
    assert len(ids) == len(moves) > ddzfast.MOVE_BUFFER
    # every move is one of the hand's readings
    for m in list(moves)[::97]:
        assert identity(m) in {identity(x) for x in ddzfast.classify(m.cards, r)}
