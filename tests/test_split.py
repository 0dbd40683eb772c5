"""min_plays, plays_left, min_plays_batch and the Numba binding (issue 18):
the exact fewest plays of a hand, against the independent brute force of
tests/oracles/split_reference.py, in every rule set (W, laizi and tiandi included)."""
import random

import numpy as np
import pytest

import ddzfast
from oracles import reference as R
from oracles import reference_tiandi as RT
from oracles import split_reference as SR
from ddzfast import (Hand, IllegalMoveError, Move, MoveKind, legal_moves, min_plays,
                     min_plays_batch, plays_left)
from ddzfast.constants import deck_text
from helpers import DECKS, RULE_SETS, reference_for, survives_a_writer, wild_char

# every rule set, with laizi and tiandi over more wild ranks (the ranks
# change which readings exist)
ALL_RULES = RULE_SETS + ("laizi:3", "laizi:2", "laizi:K", "tiandi:34", "tiandi:A2")


def _deck(rules):
    return deck_text(ddzfast.get_rules(rules).wildcard)


def _random_hand(rng, rules, size):
    deck = list(_deck(rules))
    hand = rng.sample(deck, size)
    # half the hands of the wildcard sets hold their wild card(s)
    if rules in ("biegang", "super") and "W" not in hand and rng.random() < 0.5:
        hand[0] = "W"
    wild = wild_char(rules)
    if wild is not None and rng.random() < 0.5:
        # at least two laizi (of either wild rank, at most four of each)
        k = sum(1 for c in hand if c in wild)
        for i in range(len(hand)):
            if k >= 2:
                break
            if hand[i] not in wild:
                c = rng.choice(wild)
                if hand.count(c) < 4:
                    hand[i] = c
                    k += 1
    return "".join(hand)


def _reference_identity_ok(move, rules):
    counts = move.cards.counts
    return (move.kind.name, move.rank, move.length, counts) in reference_for(rules).classify(counts)


def _check_split(hand, rules, split):
    """The split's moves are moves of the rule set (by the reference) whose
    cards add up to the hand exactly."""
    h = Hand(hand).bits
    assert len(split.moves) == (split.count or 0)
    total = 0
    for m in split.moves:
        assert m.kind != MoveKind.PASS
        assert _reference_identity_ok(m, rules), (hand, str(m))
        total += m.cards.bits
    if split.count is not None:
        assert total == h, (hand, split)


# ---- against the reference -------------------------------------------------------

@pytest.mark.parametrize("rules", ALL_RULES)
def test_min_plays_equals_the_reference(rules):
    rng = random.Random(f"split-{rules}")
    hands = 1200 if wild_char(rules) is None else 400
    seen_none = 0
    for _ in range(hands):
        hand = _random_hand(rng, rules, rng.randint(1, 12))
        want = SR.min_plays(R.parse_cards(hand), rules)
        got = min_plays(hand, rules)
        assert got.count == want, f"{rules} {hand}: core {got}, reference {want}"
        _check_split(hand, rules, got)
        seen_none += want is None
    if rules in ("biegang", "super"):
        assert seen_none > 0        # some hands cannot be emptied (a lone W left)


@pytest.mark.parametrize("rules", ALL_RULES)
def test_deal_sized_hands_split_into_legal_partitions(rules):
    rng = random.Random(f"split-big-{rules}")
    for _ in range(60):
        hand = _random_hand(rng, rules, rng.choice((17, 20, 21 if rules in ("biegang", "super") else 20)))
        split = min_plays(hand, rules)
        assert split.count is not None and 1 <= split.count <= len(hand)
        _check_split(hand, rules, split)


# ---- hand-worked cases -----------------------------------------------------------

@pytest.mark.parametrize("rules, hand, count", [
    ("classic", "", 0),
    ("classic", "3", 1),
    ("classic", "XD", 1),               # the rocket
    ("classic", "333XD", 2),            # 333+X and D, never one move (two kickers on a triple)
    ("classic", "3333XD", 1),           # four with two: the jokers as its two single kickers
    ("classic", "33334455", 1),         # four with two pairs
    ("classic", "33335555", 2),         # not four with two pairs (one rank twice): two bombs
    ("classic", "3333445", 2),          # 3333+44 (four with two singles) and 5
    ("classic", "33344455", 1),         # a plane with singles (two 5s as its kickers)
    ("classic", "3334445566", 1),       # a plane with two pairs
    ("classic", "333444555666", 1),     # a plane of four triples
    ("classic", "3334449", 2),          # 333444 plane + 9, or 3334 + 449: 2
    ("classic", "345678", 1),           # a straight
    ("classic", "3456789TJQKA2", 2),    # the straight to A and the 2
    ("classic", "33445566", 1),         # a pair straight of four
    ("classic", "3344", 2),             # two pairs, no pair straight of two
    ("classic", "2XD", 2),
    ("classic", "333444555666777888999TTTJJJQQQKKKAAA", 1),
    ("biegang", "W", None),             # a lone W is never a move
    ("biegang", "3W", 1),               # W completes the pair
    ("biegang", "XDW", 1),              # the heaven rocket
    ("biegang", "XW", 1),               # the wild rocket
    ("biegang", "3333W", 1),            # the heaven bomb
    ("biegang", "33W", 1),              # a triple of 3s
    ("super", "XDW", 2),                # no heaven rocket in super: a rocket and one card
    ("super", "XW", 1),                 # X + W is a rocket in super
    ("super", "33344455", 1),
    ("super", "3334455", 2),            # no 3+2 in super
    ("laizi:7", "7777", 1),             # the laizi bomb
    ("laizi:7", "34567", 1),
    ("laizi:7", "33337777", 1),         # four with two pairs (the laizi as two pairs)
    ("laizi:7", "XD7", 2),
])
def test_hand_worked_cases(rules, hand, count):
    got = min_plays(hand, rules)
    assert got.count == count, (rules, hand, got)
    _check_split(hand, rules, got)


def test_hand_worked_cases_that_need_care():
    # 3 + XD: the rocket and the 3 (two plays); X, D cannot both kick a lone 3
    assert min_plays("3XD").count == 2
    # laizi 7: 377 + 5 is a triple of 3s with a kicker: one play
    assert min_plays("3577", "laizi:7").count == 1
    # 3457 with L = 7: no straight of four, no triple with kicker: 3, 4, 57 as a pair of 5s
    assert min_plays("3457", "laizi:7").count == 3
    # the split reads laizi: 33377 with L = 7 is one TRIPLE_PAIR
    s = min_plays("33377", "laizi:7")
    assert s.count == 1 and s.moves[0].kind == MoveKind.TRIPLE_PAIR


def test_repr_and_equality():
    s = min_plays("33344455")
    assert s == min_plays("33344455") and s != min_plays("3")
    assert "PLANE_SINGLES" in repr(s)
    assert min_plays("W", "biegang").count is None and len(min_plays("W", "biegang").moves) == 0


@pytest.mark.parametrize("rules", ALL_RULES)
def test_whole_deck_is_a_result_or_a_clear_error(rules):
    deck = _deck(rules)
    try:
        split = min_plays(deck, rules)
    except ValueError as e:
        assert "too large" in str(e)
    else:
        _check_split(deck, rules, split)


def test_a_root_of_millions_of_move_sets_keeps_its_partition():
    """Regression: the table packed a sub-hand's best set + 1 into 23 bits
    (value << 24 | exact << 23 | best + 1), but a large tiandi hand has more
    distinct move card sets than that (this one 9,006,531; a whole deck of
    tiandi:7J 8,524,998, of tiandi:34 35,736,519): a set index from 2**23 on
    lost its top bit (from 2**24 on it ran into the value), so min_plays
    followed a wrong set and raised RuntimeError ("lost its partition")
    while min_plays_batch, reading values only, answered. About 2 s."""
    rules, hand = "tiandi:34", "3456789TJQKA2" * 3 + "XD"
    split = min_plays(hand, rules)
    assert split.count == 2, split
    assert sum(m.cards.bits for m in split.moves) == Hand(hand).bits
    for m in split.moves:
        counts = tuple(m.cards.counts)
        assert (m.kind.name, m.rank, m.length, counts) in RT.classify(counts, "3", "4"), str(m)


def test_work_limit_raises_and_changes_nothing():
    old = ddzfast._split._set_max_work(50)
    try:
        # (the message named the default limit whatever the limit was)
        with pytest.raises(ValueError, match=r"too large.*\(50 move tests\)"):
            min_plays("3456789TJQKA2XD3456789TJQ")
    finally:
        ddzfast._split._set_max_work(old)
    # the table kept only finished values: the next call is exact
    assert min_plays("3456789TJQKA2XD3456789TJQ").count == 4


def test_the_work_limit_is_per_query():
    """The search's work counter grew over every query of the same root
    (reset only when the root changed), so after enough queries of its
    sub-hands one that splits on its own raised 'too large', and the expert
    bot, which falls back to greedy then, moved by the calls before. Each
    query now has the whole limit: with the least limit under which each
    sub-hand splits right after the root, all of them split one after the
    other."""
    rules, root, other = "laizi:7", "33445567777899TTJJQK", "D"   # other: not in root

    def splits(hands, limit):
        old = ddzfast._split._set_max_work(limit)
        try:
            min_plays(other, rules)     # another root: the next is prepared anew
            for hand in hands:
                min_plays(hand, rules)
            return True
        except ValueError:
            return False
        finally:
            ddzfast._split._set_max_work(old)

    def least_limit(hands):
        lo, hi = 1, 1 << 26
        while lo < hi:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if splits(hands, mid) else (mid + 1, hi)
        return lo

    rng = random.Random(3)
    subs = ["".join(rng.sample(root, rng.randint(14, 19))) for _ in range(20)]
    limit = max(least_limit([root, sub]) for sub in subs)
    assert splits([root] + subs, limit)


def _fresh_root(hand):
    """A hand whose query makes the next query of `hand` prepare a root of its
    own: one card that `hand` is not within."""
    return "4" if "3" in hand else "3"


def _partition(split):
    return [(m.kind, m.rank, m.length, m.cards.bits, m.substitutes) for m in split.moves]


@pytest.mark.parametrize("rules", RULE_SETS)
def test_a_partition_does_not_depend_on_the_root(rules):
    """min_plays serves a hand from the root of an earlier query that holds
    it. The root's sets were searched in the order its moves were generated,
    which in tiandi differs from root to root, and each card set kept its
    first reading, so the partition of a hand (never its count) depended on
    the queries before it. Each hand's partition is the same from a root of
    its own and from a larger root."""
    rng = random.Random(f"root-{rules}")
    deck = list(DECKS[rules])
    cases = [("678TJJQQA2D", "6778TJJQQA2D")] if rules.startswith("tiandi") else []
    for _ in range(300 if rules.startswith(("laizi", "tiandi")) else 100):
        cards = rng.sample(deck, rng.randint(9, 20))
        cut = rng.randint(6, len(cards) - 1)
        cases.append(("".join(cards[:cut]), "".join(cards)))
    for hand, root in cases:
        min_plays(_fresh_root(hand), rules)
        alone = min_plays(hand, rules)
        min_plays(root, rules)
        under_root = min_plays(hand, rules)
        assert under_root.count == alone.count
        assert _partition(under_root) == _partition(alone), (hand, root, alone, under_root)


# ---- plays_left ------------------------------------------------------------------

@pytest.mark.parametrize("rules", ALL_RULES)
def test_plays_left_equals_min_plays_of_each_remainder(rules):
    rng = random.Random(f"plays-left-{rules}")
    for _ in range(25):
        hand = _random_hand(rng, rules, rng.choice((8, 13, 17, 20)))
        lead = legal_moves(hand, rules=rules)
        left = plays_left(hand, lead, rules)
        assert left.dtype == np.int16 and left.shape == (len(lead),)
        for m, v in zip(lead, left):
            rest = Hand(Hand(hand).bits - m.cards.bits)
            c = min_plays(rest, rules).count
            assert v == (-1 if c is None else c), (hand, str(m))
        # a follow: PASS keeps the whole hand
        follow = legal_moves(hand, lead[0], rules=rules)
        got = plays_left(hand, follow, rules)
        assert got[0] == min_plays(hand, rules).count
        # Moves and an array give the same
        assert (plays_left(hand, list(lead)[:5], rules) == left[:5]).all()
        assert (plays_left(hand, lead.array, rules) == left).all()


def test_plays_left_hand_worked():
    hand = "33344455XD"
    moves = [Move.parse("ROCKET/X/1/XD"), Move.parse("PLANE_SINGLES/3/2/33344455"),
             Move.parse("PASS"), Move.parse("SINGLE/3/1/3")]
    assert list(plays_left(hand, moves)) == [1, 1, 2, 3]
    assert list(plays_left("3W", [Move.parse("SINGLE/3/1/3")], "biegang")) == [-1]
    assert list(plays_left("3", [Move.parse("SINGLE/3/1/3")])) == [0]
    assert plays_left("3", []).shape == (0,)


def test_plays_left_bad_input():
    with pytest.raises(ValueError, match="does not hold"):
        plays_left("34", [Move.parse("SINGLE/5/1/5")])
    with pytest.raises(TypeError):
        plays_left("34", Move.parse("SINGLE/3/1/3"))
    with pytest.raises(TypeError):
        plays_left("34", 5)
    with pytest.raises((TypeError, ValueError)):
        plays_left("34", ["not a move"])
    with pytest.raises(ValueError):
        plays_left("3W", [Move.parse("SINGLE/3/1/3")], "classic")


def test_plays_left_checks_another_rule_sets_move_list():
    """A MoveList of another rule set skipped the legality check: laizi:7's
    SOFT_BOMB 3377 was scored as a classic play (0 plays left)."""
    laizi_moves = legal_moves("3377", None, "laizi:7")
    with pytest.raises(IllegalMoveError):
        plays_left("3377", laizi_moves, "classic")
    with pytest.raises(IllegalMoveError):
        plays_left("3377", list(laizi_moves), "classic")
    classic_moves = legal_moves("3377", None, "classic")
    assert list(plays_left("3377", classic_moves, "classic")) == \
        list(plays_left("3377", list(classic_moves), "classic"))


def test_plays_left_gives_each_remainder_the_limit_of_a_query():
    """All the remainders of one plays_left call shared one work limit: a
    20-card tiandi hand's 61,096 leads were 'too large to split exactly'
    on a fresh thread, while min_plays of each remainder answered (the user
    review of 2026-12-05)."""
    import threading
    hand, rules = "3333444456789TJQKA22", "tiandi:34"
    got = {}

    def fresh():        # a thread of its own: its split tables start empty
        try:
            got["left"] = plays_left(hand, legal_moves(hand, None, rules), rules)
        except ValueError as e:
            got["error"] = e

    worker = threading.Thread(target=fresh)
    worker.start()
    worker.join()
    assert "error" not in got, got.get("error")
    moves = legal_moves(hand, None, rules)
    assert len(got["left"]) == len(moves) == 61096
    for i in range(0, len(moves), 997):
        rest = Hand(hand) - moves[i].cards
        assert got["left"][i] == min_plays(rest, rules).count


def test_a_split_pickles_with_every_protocol():
    """Protocols 0 and 1 refused a Split ('a class that defines __slots__
    without defining __getstate__')."""
    import pickle
    split = min_plays("3334445", "laizi:7")
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        again = pickle.loads(pickle.dumps(split, protocol))
        assert again == split and again.moves.rules == split.moves.rules


# ---- batches and Numba -----------------------------------------------------------

@pytest.mark.parametrize("rules", ALL_RULES)
def test_batch_equals_single_calls(rules):
    rng = random.Random(f"batch-{rules}")
    hands = [Hand(_random_hand(rng, rules, rng.randint(1, 20))).bits for _ in range(200)]
    if rules in ("biegang", "super"):
        hands.append(Hand("W").bits)
    want = [min_plays(h, rules).count for h in hands]
    want = [-1 if c is None else c for c in want]
    for threads in (1, 2):
        got = min_plays_batch(np.array(hands, dtype=np.uint64), rules, threads=threads)
        assert got.dtype == np.int16 and list(got) == want
    assert min_plays_batch([], rules).shape == (0,)


def test_batch_bad_input():
    with pytest.raises(TypeError):
        min_plays_batch("3344")
    with pytest.raises(ValueError):
        min_plays_batch(np.zeros((2, 2), dtype=np.uint64))
    with pytest.raises(ValueError):
        min_plays_batch([-1])
    with pytest.raises(TypeError):
        min_plays_batch([1.5])
    with pytest.raises(ValueError):
        min_plays_batch([Hand("3W", "biegang").bits], "classic")
    with pytest.raises(ValueError):
        min_plays_batch([1], threads=0)
    with pytest.raises(TypeError):
        min_plays_batch([1], threads="2")
    with pytest.raises(TypeError, match="array-like"):
        min_plays_batch(5)
    # one Hand was read as its card characters ("not str")
    with pytest.raises(TypeError, match="not one Hand"):
        min_plays_batch(Hand("33"))
    with pytest.raises(TypeError, match="not one Hand"):
        ddzfast.legal_moves_batch(Hand("33"))
    assert list(min_plays_batch([Hand("33")])) == [1]


def test_batch_takes_hands():
    """A list of Hands was read as a 2-d array of their card characters
    ("hands must be 1-d, not 2-d"), where the core's batches take Hands."""
    hands = [Hand("33"), Hand("3456789"), Hand("3344"), int(Hand("34"))]
    assert min_plays_batch(hands).tolist() == [min_plays(h).count for h in hands] == [1, 1, 2, 2]


def test_numba_equals_single_calls():
    numba = pytest.importorskip("numba")
    from ddzfast import numba as dn

    @numba.njit
    def count_all(rules, hands, out):
        for i in range(hands.shape[0]):
            out[i] = dn.min_plays(rules, hands[i])

    rng = random.Random("split-numba")
    for rules in RULE_SETS:
        hands = np.array([Hand(_random_hand(rng, rules, rng.randint(1, 20))).bits
                          for _ in range(100)], dtype=np.uint64)
        out = np.zeros(len(hands), dtype=np.int64)
        count_all(dn.rules_handle(rules), hands, out)
        assert list(out) == list(min_plays_batch(hands, rules))
    with pytest.raises(ValueError):
        count_all(dn.rules_handle("classic"), np.array([Hand("3W", "biegang").bits],
                                                        dtype=np.uint64), out)


# ---- errors ----------------------------------------------------------------------

@pytest.mark.parametrize("hand, rules, error", [
    ("3W", "classic", ValueError),
    ("33333", "classic", ValueError),
    ("3Z", "classic", ValueError),
    (None, "classic", TypeError),
    (1.5, "classic", TypeError),
    ("34", "nonsense", ValueError),
    ("34", "laizi", ValueError),        # laizi needs its wild rank
    ("34", 5, TypeError),
])
def test_min_plays_bad_input(hand, rules, error):
    with pytest.raises(error):
        min_plays(hand, rules)


@pytest.mark.parametrize("rules", ["classic", "laizi:7", "tiandi:7J"])
def test_a_whole_deck_does_not_root_the_queries_after_it(rules):
    """min_plays of a whole deck left the deck as this thread's root for every
    later hand of the rule set (each inside it): their searches scanned the
    deck's sets, so that laizi and tiandi stopped at the work limit on an
    ordinary 20-card hand, and the table grew with every distinct hand. Each
    thread has its own root, so each run starts in a thread of its own."""
    import threading
    from ddzfast.features import deck_text
    hand = "456689999TJJJQKKAAXD" if rules.startswith("tiandi") else "3334445556789TJQKA22"
    moves = legal_moves(hand, None, rules)

    def answers(deck_first):
        got = {}

        def run():
            try:
                if deck_first:
                    got["deck"] = min_plays(deck_text(ddzfast.get_rules(rules).wildcard),
                                            rules).count
                got["left"] = plays_left(hand, moves, rules).tolist()
                got["min"] = min_plays(hand, rules).count
            except Exception as e:      # (reported below, from this thread)
                got["error"] = e
        t = threading.Thread(target=run)
        t.start()
        t.join()
        assert "error" not in got, got["error"]
        return got

    after = answers(True)
    alone = answers(False)
    assert after["left"] == alone["left"] and after["min"] == alone["min"]


def test_a_root_of_too_many_moves_is_refused_before_its_buffers_grow():
    """Regression (a user's review): min_plays of a whole deck in
    tiandi:A2 (71.6 million leading moves) listed them all, 5.5 GB and half
    a minute, before answering; it is a ValueError once they are counted."""
    deck = int(ddzfast.Hand("3333444455556666777788889999TTTTJJJJQQQQKKKKAAAA2222XD"))
    with pytest.raises(ValueError, match="more than 16,777,216 leading moves"):
        ddzfast.min_plays(deck, "tiandi:A2")
    with pytest.raises(ValueError, match="more than 16,777,216 leading moves"):
        ddzfast.min_plays_batch(np.array([deck], dtype=np.uint64), "tiandi:A2")


@pytest.mark.parametrize("threads", [1, 2])
def test_a_batch_names_the_hand_too_large_to_split(threads):
    """Regression (review of the batches, 2026-12-07): min_plays_batch said
    which hand was too large to split but not its row, where the other
    batches name a bad hand's row; the first such row is named."""
    deck = int(ddzfast.Hand("3333444455556666777788889999TTTTJJJJQQQQKKKKAAAA2222XD"))
    hands = np.array([int(Hand("33")), deck, deck], dtype=np.uint64)
    with pytest.raises(ValueError, match=r"^hands\[1\]: hand '3333.*more than "
                                         r"16,777,216 leading moves"):
        ddzfast.min_plays_batch(hands, "tiandi:A2", threads=threads)


def test_a_split_is_immutable_and_checked():
    """Regression (a user's review): Split("x", 5) was taken (its repr then
    raised), and count and moves could be assigned, unlike every other
    value of the library."""
    import copy
    from ddzfast._split import Split
    split = min_plays("3334445", "classic")
    with pytest.raises(AttributeError, match="immutable"):
        split.count = 1
    with pytest.raises(AttributeError, match="immutable"):
        del split.moves
    for count, moves, error in (("x", split.moves, TypeError), (True, split.moves, TypeError),
                                (2, 5, TypeError), (-5, split.moves, ValueError),
                                (3, split.moves, ValueError), (None, split.moves, ValueError)):
        with pytest.raises(error):
            Split(count, moves)
    assert Split(split.count, split.moves) == split == copy.deepcopy(split)
    assert Split(None, min_plays("W", "super").moves).count is None
    # (an input review) a PASS was taken as one of the plays
    with pytest.raises(ValueError, match="a PASS is none"):
        Split(1, ddzfast.classify(""))


def test_another_thread_writing_the_arguments_cannot_crash_a_split(run_python):
    """Regression (a user's review): min_plays_batch checked the caller's
    hands and then read them again without the GIL (fifteen cards of a
    rank reached the tiandi generator: a stack overflow), and plays_left
    read each move again after checking it (a hand minus cards it lacks:
    "failed with status -4 (a bug)" or a wrong count). Both read copies."""
    survives_a_writer(run_python, """
        import numpy as np
        import ddzfast as d
        good = int(d.Hand("7777JJJJ3"))
        hands = np.full(64, good, np.uint64)
        hand = d.Hand("3344556677889TTJQKA")
        single3 = d.legal_moves("3", None, "classic")[0].array
        single2 = d.legal_moves("2", None, "classic")[0].array
        rows = np.repeat(np.array([single3]), 64)
        want = d.plays_left(hand, rows.copy(), "classic")
    """, """
        hands[:] = good | (0xF << 16) | (0xF << 32)
        hands[:] = good
        rows[:] = single2
        rows[:] = single3
    """, """
        try:
            d.min_plays_batch(hands, "tiandi:7J")
        except ValueError:
            pass
        try:
            got = d.plays_left(hand, rows, "classic")
            assert np.array_equal(got, want), got
        except ValueError:          # a row copied while it held a 2
            pass
    """, rounds=8000)
