"""Action indices and masks in C (issue 9, part 1): on random positions of
every rule set, leading and following, legal_action_indices, the _into forms,
the batches and the Numba forms equal the action index computed in Python
from the action table's sorted keys (features._keys + searchsorted, which
does not use the core's hash); bad buffers raise. laizi: the same on random
positions with one to four laizi of several wild ranks (a table per wild
rank); a laizi set without its wild rank is a ValueError everywhere."""
import random

import numpy as np
import pytest

import ddzfast
from ddzfast import (MOVE_DTYPE, Hand, IllegalMoveError, InvalidCardsError,
                     action_count, action_index, action_moves, legal_action_indices,
                     legal_action_indices_batch, legal_action_indices_into,
                     legal_action_mask, legal_action_mask_batch,
                     legal_action_mask_into, legal_moves)
from ddzfast.features import _action_table, _keys
from helpers import DECKS, RULE_SETS, wild_char

# laizi with a fixed wild rank: the low and high ends and one between
LAIZI_NAMES = ("laizi:3", "laizi:7", "laizi:2")
ACTION_RULES = RULE_SETS + tuple(n for n in LAIZI_NAMES if n not in RULE_SETS)


def reference_indices(moves, rules) -> np.ndarray:
    keys = _action_table(rules)[1]
    k = _keys(moves.array)
    idx = np.searchsorted(keys, k)
    assert np.array_equal(keys[idx], k)
    return idx


def positions(rules, n, seed):
    """(hand, last) pairs: hands of 1..21 cards (20 in classic and laizi),
    last None (leading) or a non-pass move of another hand of the same deck.
    laizi: every hand holds one to four laizi (cards of the wild rank);
    tiandi one to eight (of its two)."""
    rng = random.Random(seed)
    r = ddzfast.get_rules(rules)
    top = 21 if r.wildcard else 20
    out = []
    if r.laizi:
        wild = list(wild_char(rules))
        rest = [c for c in DECKS["classic"].replace(" ", "") if c not in wild]
        laizi = wild * 4
    else:
        deck = list(DECKS[rules].replace(" ", ""))
    for i in range(n):
        if r.laizi:
            k = 1 + i % len(laizi)
            rng.shuffle(rest)
            rng.shuffle(laizi)
            deck = laizi[:k] + rest
            size = max(k, rng.choice([1, 2, 5, 10, 14, 17, top, top]))
            others = laizi[k:] + rest[size - k:]
            rng.shuffle(others)
            hand = Hand("".join(deck[:size]))
            other_cards = others[:17]
        else:
            rng.shuffle(deck)
            size = rng.choice([1, 2, 5, 10, 17, top, top])
            hand = Hand("".join(deck[:size]))
            other_cards = deck[size:size + 17]
        last = None
        if i % 2:
            other = legal_moves(Hand("".join(other_cards)), None, rules)
            last = other[rng.randrange(len(other))]
        out.append((hand, last))
    return out


def last_rows(pos):
    rows = np.zeros(len(pos), dtype=MOVE_DTYPE)
    for i, (_, last) in enumerate(pos):
        if last is not None:
            rows[i] = last.array[0]
    return rows


@pytest.mark.parametrize("rules", ACTION_RULES)
def test_indices_and_masks_equal_python_reference(rules):
    count = action_count(rules)
    assert count == len(action_moves(rules))
    mask = np.zeros(count, dtype=bool)
    buf = np.full(count, -1, dtype=np.int32)
    for hand, last in positions(rules, 400, ACTION_RULES.index(rules)):
        ml = legal_moves(hand, last, rules)
        want = reference_indices(ml, rules)
        got = legal_action_indices(hand, last, rules)
        assert got.dtype == np.int32 and np.array_equal(got, want), (hand, last)
        assert np.array_equal(action_index(ml, rules), want)
        assert np.array_equal(action_index(ml.array, rules), want)
        if last is not None:
            assert want[0] == 0                       # PASS
        assert legal_action_indices_into(int(hand), last, rules, buf) == len(ml)
        assert np.array_equal(buf[:len(ml)], want)
        mask[:] = True                               # stale contents are cleared
        assert legal_action_mask_into(hand, last, rules, mask) == len(ml)
        assert np.array_equal(np.flatnonzero(mask), np.unique(want))
        assert np.array_equal(legal_action_mask(ml, rules), mask)
        for dtype in (np.uint8, np.int8):
            other = np.full(count, 7, dtype=dtype)
            legal_action_mask_into(str(hand), last, rules, other)
            assert np.array_equal(other, mask.astype(dtype))


@pytest.mark.parametrize("rules", ACTION_RULES)
@pytest.mark.parametrize("threads", [1, 2])
def test_batches_agree(rules, threads):
    # a mask row of tiandi is millions of entries: fewer positions there
    n = 24 if ddzfast.get_rules(rules).wild_count == 2 else 120
    pos = positions(rules, n, 100 + ACTION_RULES.index(rules))
    hands = np.array([int(h) for h, _ in pos], dtype=np.uint64)
    lasts = last_rows(pos)
    offsets, indices = legal_action_indices_batch(hands, lasts, rules, threads=threads)
    masks = legal_action_mask_batch(hands, lasts, rules, threads=threads)
    assert masks.shape == (len(pos), action_count(rules)) and masks.dtype == bool
    for i, (hand, last) in enumerate(pos):
        want = reference_indices(legal_moves(hand, last, rules), rules)
        assert np.array_equal(indices[offsets[i]:offsets[i + 1]], want)
        assert np.array_equal(np.flatnonzero(masks[i]), np.unique(want))
    out = np.ones((len(pos), action_count(rules)), dtype=np.uint8)
    assert legal_action_mask_batch(hands, lasts, rules, out=out, threads=threads) is out
    assert np.array_equal(out, masks.astype(np.uint8))
    # leading everywhere
    offsets, indices = legal_action_indices_batch(hands, None, rules)
    assert np.array_equal(indices[offsets[3]:offsets[4]],
                          legal_action_indices(int(hands[3]), None, rules))


def test_numba_forms_agree():
    pytest.importorskip("numba")
    from ddzfast import numba as dn
    for rules in ACTION_RULES:
        r, a = dn.rules_handle(rules), dn.actions_handle(rules)
        assert dn.check_actions_handle(a) == a
        mask = np.zeros(action_count(rules), dtype=np.bool_)
        buf = np.zeros(action_count(rules), dtype=np.int32)
        for hand, last in positions(rules, 40, 200):
            lrow = dn.no_last() if last is None else last_rows([(hand, last)])
            want = legal_action_indices(hand, last, rules)
            n = dn.legal_action_indices_into(r, a, int(hand), lrow, buf)
            assert np.array_equal(buf[:n], want)
            assert dn.legal_action_mask_into(r, a, int(hand), lrow, mask) == len(want)
            assert np.array_equal(np.flatnonzero(mask), np.unique(want))
    with pytest.raises(ValueError):
        dn.check_actions_handle(12345)
    r, a = dn.rules_handle("classic"), dn.actions_handle("classic")
    with pytest.raises(ValueError, match="action_count"):
        dn.legal_action_mask_into(r, a, int(Hand("33")), dn.no_last(),
                                  np.zeros(10, np.bool_))
    with pytest.raises(ValueError, match="out holds 2 entries but this position has 13 "):
        dn.legal_action_indices_into(r, a, int(Hand("3456789")), dn.no_last(),
                                     np.zeros(2, np.int32))
    with pytest.raises(ValueError, match="contiguous"):
        dn.legal_action_indices_into(r, a, int(Hand("33")), dn.no_last(),
                                     np.zeros(20, np.int32)[::2])
    from numba.core.errors import TypingError
    with pytest.raises(TypingError):
        dn.legal_action_indices_into(r, a, int(Hand("33")), dn.no_last(),
                                     np.zeros(20, np.int64))
    # the lookup of another rule set: an error, not a crash
    with pytest.raises(ValueError, match="action lookup of Rules\\('classic'\\)"):
        dn.legal_action_indices_into(dn.rules_handle("super"), a, int(Hand("33W")),
                                     dn.no_last(), np.zeros(100, np.int32))


def test_bad_buffers_raise():
    n = action_count("classic")
    hand = Hand("334455")
    with pytest.raises(TypeError):
        legal_action_mask_into(hand, None, "classic", np.zeros(n, np.int32))
    with pytest.raises(TypeError):
        legal_action_mask_into(hand, None, "classic", [0] * n)
    with pytest.raises(ValueError, match="action_count"):
        legal_action_mask_into(hand, None, "classic", np.zeros(n - 1, bool))
    with pytest.raises(ValueError):
        legal_action_mask_into(hand, None, "classic", np.zeros((1, n), bool))
    with pytest.raises(ValueError):
        legal_action_mask_into(hand, None, "classic", np.zeros(2 * n, bool)[::2])
    ro = np.zeros(n, bool)
    ro.flags.writeable = False
    with pytest.raises(ValueError):
        legal_action_mask_into(hand, None, "classic", ro)
    with pytest.raises(TypeError):
        legal_action_indices_into(hand, None, "classic", np.zeros(n, np.int64))
    with pytest.raises(ValueError, match="needed|legal moves"):
        legal_action_indices_into(hand, None, "classic", np.zeros(3, np.int32))
    with pytest.raises(TypeError):
        legal_action_mask_batch([int(hand)], None, "classic", out=np.zeros((1, n), np.int16))
    with pytest.raises(ValueError):
        legal_action_mask_batch([int(hand)], None, "classic", out=np.zeros((2, n), bool))


def test_bad_positions_raise():
    with pytest.raises(InvalidCardsError):
        legal_action_indices("33W", None, "classic")
    with pytest.raises(IllegalMoveError):
        legal_action_indices("33", Move_pass(), "classic")
    # a whole deck has legal moves no hand of a deal can make
    with pytest.raises(InvalidCardsError, match="no action"):
        legal_action_indices(DECKS["classic"], None, "classic")
    with pytest.raises(InvalidCardsError, match=r"hands\[1\]"):
        legal_action_indices_batch([int(Hand("33")), int(Hand(DECKS["classic"]))])


def test_errors_leave_the_outputs_as_they_were():
    """A hand with moves that are no action, or an index buffer too small:
    the _into forms and the mask batch raise and write nothing. Before the
    fix the mask was zeroed and half filled, the indices partly written."""
    n = action_count("classic")
    big = "333444555666777888999"       # 21 cards: a plane of seven triples
    small = Hand("334455")
    for bad in (big, DECKS["classic"]):
        mask = np.full(n, 7, np.uint8)
        with pytest.raises(InvalidCardsError, match="no action"):
            legal_action_mask_into(bad, None, "classic", mask)
        assert (mask == 7).all()
        idx = np.full(n, -5, np.int32)
        with pytest.raises(InvalidCardsError, match="no action"):
            legal_action_indices_into(bad, None, "classic", idx)
        assert (idx == -5).all()
        rows = np.full((3, n), 7, np.uint8)
        with pytest.raises(InvalidCardsError, match=r"hands\[2\]"):
            legal_action_mask_batch([int(small), int(small), int(Hand(bad))], None,
                                    "classic", out=rows, threads=2)
        assert (rows == 7).all()
    idx = np.full(3, -5, np.int32)
    with pytest.raises(ValueError, match="legal moves"):
        legal_action_indices_into(small, None, "classic", idx)
    assert (idx == -5).all()


def test_a_mask_batch_out_must_not_overlap_its_positions():
    """legal_moves_batch refused an out sharing memory with its hands; the
    mask batch overwrote them and gave wrong masks."""
    n = action_count("classic")
    out = np.zeros((2, n), np.uint8)
    hands = out[0, 8:24].view(np.uint64)
    hands[:] = [int(Hand("3344")), int(Hand("XD"))]
    with pytest.raises(ValueError, match="shares memory"):
        legal_action_mask_batch(hands, None, "classic", out=out)
    assert hands.tolist() == [int(Hand("3344")), int(Hand("XD"))]


def Move_pass():
    return ddzfast.Move("PASS", 0, 0, 0)


@pytest.mark.parametrize("rules", RULE_SETS + ("laizi",))
def test_game_action_methods(rules):
    """Game.legal_action_mask / legal_action_indices equal the reference on
    every position of random deals; play_action(i) plays action_moves[i]
    exactly as play does. "laizi" draws a wild rank per deal: the Game's
    actions are those of its ranked rule set (game.rules)."""
    rng = random.Random(300 + len(rules))
    for k in range(8):
        game = ddzfast.Game(rules, seed=k, bidding=True)
        twin = ddzfast.Game(rules, seed=k, bidding=True)
        if rules.startswith("laizi"):
            assert game.rules.wild_rank is not None
            assert rules == "laizi" or game.rules.wild_rank == 4
        rules_k = game.rules
        moves = action_moves(rules_k)
        out = np.zeros(action_count(rules_k), dtype=np.uint8)
        assert not game.legal_action_mask().any()          # bidding
        assert len(game.legal_action_indices()) == 0
        while game.phase == "bidding":
            b = rng.choice(game.legal_bids())
            game.bid(b)
            twin.bid(b)
        while not game.done:
            want = reference_indices(game.legal_moves(), rules_k)
            assert np.array_equal(game.legal_action_indices(), want)
            assert game.legal_action_mask(out) is out
            assert np.array_equal(np.flatnonzero(out), np.unique(want))
            a = int(rng.choice(want))
            game.play_action(a)
            twin.play(moves[a])
            assert game.history == twin.history
            assert game.history[-1][1].substitutes == twin.history[-1][1].substitutes
        assert game.result == twin.result
        game.undo()
        assert game.history == twin.history[:-1]


def test_play_action_errors():
    game = ddzfast.Game("classic", seed=3, bidding=False)
    with pytest.raises(IndexError):
        game.play_action(action_count("classic"))
    with pytest.raises(IndexError):
        game.play_action(-1)
    with pytest.raises(TypeError):
        game.play_action(1.0)
    with pytest.raises(IllegalMoveError):
        game.play_action(0)                                  # PASS on a lead
    held = set(legal_action_indices(game.hands[0], None, "classic").tolist())
    missing = next(i for i in range(1, 500) if i not in held)
    with pytest.raises(IllegalMoveError):
        game.play_action(missing)
    assert game.history == [] and not game.can_undo
    with pytest.raises(IllegalMoveError):
        game.play_action(next(iter(held)), seat=1)
    with pytest.raises(ValueError):
        game.legal_action_mask(np.zeros(10, bool))


def test_laizi_without_wild_rank_raises():
    """Every action function names the fix for a laizi set without its rank."""
    lz = ddzfast.get_rules("laizi")
    hand = Hand("3777")
    calls = [
        lambda: action_count("laizi"),
        lambda: action_moves(lz),
        lambda: action_index(legal_moves(hand, None, "laizi:7"), "laizi"),
        lambda: legal_action_indices(hand, None, "laizi"),
        lambda: legal_action_indices_into(hand, None, "laizi", np.zeros(100, np.int32)),
        lambda: legal_action_mask_into(hand, None, "laizi", np.zeros(100, bool)),
        lambda: legal_action_indices_batch([int(hand)], None, "laizi"),
        lambda: legal_action_mask_batch([int(hand)], None, lz),
    ]
    for call in calls:
        with pytest.raises(ValueError, match="wild rank"):
            call()


def test_laizi_tables_differ_per_wild_rank():
    """Each wild rank has its own table (1.05 million actions for 7..T, up
    to 2.07 million for 2); a move of one rank's readings is no action of
    another's."""
    counts = {name: action_count(name) for name in LAIZI_NAMES}
    assert counts["laizi:7"] == 1_053_252 and counts["laizi:2"] == 2_068_438, counts
    assert 1_000_000 <= counts["laizi:3"] <= 2_068_438
    assert action_count("laizi:7") == action_count(
        ddzfast.get_rules("laizi").with_options(wild_rank="7"))
    moves = legal_moves(Hand("3777"), None, "laizi:7")
    sub = moves.array[[int(m.substitutes) != 0 for m in moves]]
    assert len(sub)
    with pytest.raises(IllegalMoveError):
        action_index(sub, "laizi:3")
    assert (action_index(sub, "laizi:7") > 0).all()


def test_out_in_the_other_byte_order_is_refused():
    """An int32 out of the other byte order (its type number is int32's) was
    written as the machine's: the indices came out byte-swapped."""
    out = np.zeros(10, ">i4")
    with pytest.raises(TypeError, match="byte order"):
        ddzfast.legal_action_indices_into("3344", None, "classic", out)
    assert not out.any()
