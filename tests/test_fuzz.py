"""Random text, integers and buffers thrown at the public functions: every
outcome is a result or a ValueError/TypeError, never a crash."""
import numpy as np
from hypothesis import given, settings, strategies as st

import ddzfast
from ddzfast import MOVE_DTYPE, Hand, Move
from helpers import DECKS, RULE_SETS

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


@st.composite
def altered_moves(draw):
    """(kind, rank, length, cards, rules): a legal move of a random hand of
    a rule set, one of its fields then perhaps changed (to another value, or
    out of range), so that most draws are moves or near misses, not
    integers no move has."""
    rules = draw(RULES)
    deck = DECKS[rules]
    hand = "".join(draw(st.permutations(deck))[:draw(st.integers(1, 20))])
    moves = ddzfast.legal_moves(hand, None, rules)
    move = moves[draw(st.integers(0, len(moves) - 1))]
    fields = [move.kind, move.rank, move.length, move.cards.bits]
    which = draw(st.integers(0, 4))      # 4: none changed
    if which == 0:
        fields[0] = draw(st.sampled_from(list(ddzfast.MoveKind)))
    elif which in (1, 2):
        fields[which] = draw(st.integers(-3, 20))
    elif which == 3:
        fields[3] = draw(st.one_of(PACKED, st.integers(0, 63).map(
            lambda bit: move.cards.bits ^ (1 << bit))))
    return (*fields, rules)


@settings(max_examples=400, deadline=None)
@given(altered_moves())
def test_arbitrary_moves(drawn):
    kind, rank, length, cards, rules = drawn
    try:
        move = Move(kind, rank, length, cards, rules=rules)
    except (ValueError, TypeError):
        return
    # a move the rule set takes is one of its cards' readings
    assert move in ddzfast.classify(move.cards, rules)
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
