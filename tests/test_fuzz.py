"""Random text, integers and buffers thrown at the public functions: every
outcome is a result or a ValueError/TypeError, never a crash."""
import numpy as np
from hypothesis import given, settings, strategies as st

import ddzfast
from ddzfast import MOVE_DTYPE, Hand, Move
from helpers import RULE_SETS

RULES = st.sampled_from(RULE_SETS)
CARD_TEXT = st.text(alphabet="3456789TJQKA2XDWtjqkaxdw10 Z!", max_size=30)
PACKED = st.one_of(st.integers(min_value=-5, max_value=(1 << 64) + 5),
                   st.integers(min_value=0, max_value=(1 << 64) - 1))


@settings(max_examples=400, deadline=None)
@given(CARD_TEXT, RULES)
def test_text_hands(text, rules):
    try:
        hand = Hand.parse(text, rules)
    except ValueError:
        return
    moves = ddzfast.legal_moves(hand, None, rules)
    for m in moves:
        assert m.cards in hand
        assert ddzfast.play(hand, m) == hand - m.cards


@settings(max_examples=400, deadline=None)
@given(PACKED, RULES)
def test_packed_hands(value, rules):
    out = np.empty(8192, MOVE_DTYPE)
    try:
        n = ddzfast.legal_moves_into(value, None, rules, out)
    except ValueError:
        return
    assert n == len(ddzfast.legal_moves(value, None, rules))


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(list(ddzfast.MoveKind)), st.integers(-3, 20),
       st.integers(-3, 20), PACKED, RULES)
def test_arbitrary_moves(kind, rank, length, cards, rules):
    try:
        move = Move(kind, rank, length, cards)
    except (ValueError, TypeError):
        return
    assert move in ddzfast.classify(move.cards, "classic") or \
        move in ddzfast.classify(move.cards, "biegang") or \
        move in ddzfast.classify(move.cards, "super")
    try:
        ddzfast.legal_moves("3456789TJQKA2XD", move, rules)
    except ValueError as e:
        assert "not a legal move" in str(e) or "non-pass" in str(e)


@settings(max_examples=200, deadline=None)
@given(st.binary(min_size=0, max_size=64), RULES)
def test_rows_from_random_bytes(raw, rules):
    raw = (raw + bytes(16))[:16]
    row = np.frombuffer(raw, MOVE_DTYPE)[0]
    try:
        ddzfast.legal_moves("3344556677", row, rules)
    except ValueError as e:
        assert "not a legal move" in str(e) or "non-pass" in str(e)
