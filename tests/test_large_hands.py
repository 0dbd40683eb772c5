"""The largest hands: 20-21-card hands rich in planes, bombs and both jokers,
and whole decks (tens of thousands to hundreds of thousands of moves): no
overflow, no truncation, every move valid; laizi's largest leads known
(13,886 moves from 20 cards) through every buffer form."""
import random

import numpy as np
import pytest

import ddzfast
from ddzfast import MOVE_DTYPE, Hand, legal_moves
from ddzfast.constants import CARD_CHARS
from helpers import DECKS, L7, LAIZI_BIG, RULE_SETS, WILDCARD_RULE_SETS, identities_repeat


@pytest.mark.parametrize("rules", RULE_SETS)
def test_whole_deck(rules):
    hand = ddzfast.Hand(DECKS[rules])
    moves = ddzfast.legal_moves(hand, None, rules)
    n = len(moves)
    assert n > 50000
    small = np.empty(100, MOVE_DTYPE)
    with pytest.raises(ValueError, match=f"has {n} legal moves"):
        ddzfast.legal_moves_into(hand, None, rules, small)
    out = np.empty(n, MOVE_DTYPE)
    assert ddzfast.legal_moves_into(hand, None, rules, out) == n
    arr = moves.array
    assert np.array_equal(out, arr)
    assert not identities_repeat(arr)
    rng = random.Random(rules)
    for i in rng.sample(range(n), 3000):
        assert moves[i] in ddzfast.classify(moves[i].cards, rules)


@pytest.mark.parametrize("rules, hand, count", [
    ("biegang", "3456789TTTJJJQQQKKKAW", 2525),     # RULES.md
    ("biegang", "33344455566677788W", 875),
    ("super", "33344455566677788W", 597),
])
def test_extreme_counts(rules, hand, count):
    assert len(ddzfast.legal_moves(hand, None, rules)) == count


def test_dense_21_card_hands_fit_move_buffer():
    """MOVE_BUFFER holds the moves of the densest 21-card hands with W."""
    assert ddzfast.MOVE_BUFFER == 4096
    rng = random.Random(7)
    most = 0
    for rules in WILDCARD_RULE_SETS:
        for _ in range(300):
            ranks = rng.sample("3456789TJQKA2", 5)
            text = "".join(r * 4 for r in ranks) + "W"
            moves = ddzfast.legal_moves(text, None, rules)
            most = max(most, len(moves))
            out = np.empty(ddzfast.MOVE_BUFFER, MOVE_DTYPE)
            assert ddzfast.legal_moves_into(text, None, rules, out) == len(moves)
    assert most > 500


# ---- laizi: the largest hands -------------------------------------------------

@pytest.mark.parametrize("text, rules, count", [
    (LAIZI_BIG, L7, 10796),
    # the most a 90-second hill-climbing search found (docs/moves.md, Buffers)
    ("3456788999TTJQKA2222", "laizi:2", 13886),
])
def test_the_largest_hands_fit_every_buffer(text, rules, count):
    moves = legal_moves(text, None, rules)
    assert len(moves) == count > 4096
    assert len({m.identity for m in moves}) == len(moves)
    buf = np.empty(len(moves), ddzfast.MOVE_DTYPE)
    assert ddzfast.legal_moves_into(int(Hand(text)), None, rules, buf) == len(moves)
    with pytest.raises(ValueError, match=f"{count} legal moves"):
        ddzfast.legal_moves_into(int(Hand(text)), None, rules, buf[:4096])
    offsets, rows = ddzfast.legal_moves_batch([int(Hand(text))] * 3, None, rules)
    assert list(np.diff(offsets)) == [len(moves)] * 3
    assert np.array_equal(rows[:len(moves)], moves.array)


def test_the_whole_deck_with_laizi():
    deck = "".join(c * 4 for c in CARD_CHARS[:13]) + "XD"
    buf = np.empty(3_000_000, ddzfast.MOVE_DTYPE)
    n = ddzfast.legal_moves_into(int(Hand(deck)), None, L7, buf)
    assert n == len(legal_moves(deck, None, L7)) > 2_000_000
