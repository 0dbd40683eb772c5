"""Encodings for learning (shapes, round trips) and the action index (a
bijection on every move identity of each rule set)."""
import random

import numpy as np
import pytest

import ddzfast
from ddzfast import (HAND_FEATURES, MOVE_DTYPE, MOVE_FEATURES, action_count,
                     action_index, action_moves, decode_hands, encode_hands,
                     encode_moves, legal_action_mask, legal_moves)
from helpers import DECKS, RULE_SETS


def test_encode_hands_shapes_and_round_trip():
    hands = [ddzfast.Hand("3"), ddzfast.Hand("33334444XDW"), ddzfast.Hand("")]
    f = encode_hands(hands)
    assert f.shape == (3, HAND_FEATURES) == (3, 61) and f.dtype == np.uint8
    plane = f[1, :60].reshape(4, 15)
    assert plane[:, 0].tolist() == [1, 1, 1, 1] and plane[:, 13].tolist() == [1, 0, 0, 0]
    assert f[1, 60] == 1 and f[0, 60] == 0 and f[2].sum() == 0
    assert decode_hands(f).tolist() == [int(h) for h in hands]
    assert encode_hands(int(hands[0])).shape == (1, 61)
    rng = random.Random(3)
    packed = np.array([int(ddzfast.Hand("".join(rng.sample(DECKS["super"], 21))))
                       for _ in range(500)], dtype=np.uint64)
    assert np.array_equal(decode_hands(encode_hands(packed)), packed)
    with pytest.raises(ValueError, match="more copies"):
        encode_hands(np.array([5], np.uint64))


def test_encode_moves():
    moves = legal_moves("3333W", None, "biegang")
    f = encode_moves(moves)
    assert f.shape == (len(moves), MOVE_FEATURES) == (len(moves), 77)
    assert np.array_equal(decode_hands(f), moves.array["cards"])
    for row, m in zip(f, moves):
        wild = row[61:]
        if m.wild == 255:
            assert wild.sum() == 0
        else:
            assert wild.sum() == 1 and wild[m.wild] == 1
    with pytest.raises(TypeError):
        encode_moves(np.zeros(2, np.int64))


@pytest.mark.parametrize("rules", RULE_SETS)
def test_action_index_is_a_bijection(rules):
    actions = action_moves(rules)
    n = action_count(rules)
    assert len(actions) == n and actions.dtype == MOVE_DTYPE
    assert actions[0]["kind"] == 0
    assert np.array_equal(action_index(actions, rules), np.arange(n))
    ids = set(zip(actions["kind"].tolist(), actions["rank"].tolist(),
                  actions["length"].tolist(), actions["cards"].tolist()))
    assert len(ids) == n
    # every action is a move of the rule set that fits in a hand
    limit = 21 if ddzfast.get_rules(rules).wildcard else 20
    rng = random.Random(rules)
    for i in rng.sample(range(1, n), 2000):
        m = ddzfast.Move(int(actions[i]["kind"]), int(actions[i]["rank"]),
                         int(actions[i]["length"]), int(actions[i]["cards"]), rules=rules)
        assert len(m.cards) <= limit
        assert m in ddzfast.classify(m.cards, rules)
    # and every move of a real hand is an action
    for _ in range(300):
        size = limit if rng.random() < 0.5 else 17
        hand = "".join(rng.sample(DECKS[rules], size))
        ml = legal_moves(hand, None, rules)
        idx = action_index(ml, rules)
        assert len(set(idx.tolist())) == len(ml)
        assert np.array_equal(actions[idx], ml.array)
        mask = legal_action_mask(ml, rules)
        assert mask.shape == (n,) and mask.sum() == len(ml)


def test_action_index_rejects_foreign_moves():
    wild = legal_moves("333W", None, "super").array
    with pytest.raises(ValueError, match="not an action of 'classic'"):
        action_index(wild, "classic")


def test_encode_moves_laizi_substitutes():
    """laizi moves play no W: the 16 wildcard columns hold how many laizi
    stand for each rank 3..2 (Move.substitutes), computed here from the
    Moves; decode_hands gives back the physical cards."""
    from ddzfast.features import MOVE_FEATURES, decode_hands, encode_moves
    for name, hand in (("laizi:7", "3777"), ("laizi:7", "345677789TJ"),
                       ("laizi:3", "3333456"), ("laizi:2", "22223344KK")):
        moves = ddzfast.legal_moves(ddzfast.Hand(hand), None, name)
        enc = encode_moves(moves)
        assert enc.shape == (len(moves), MOVE_FEATURES)
        for m, row in zip(moves, enc):
            want = np.zeros(16, np.uint8)
            want[:13] = m.substitutes.counts[:13]
            assert np.array_equal(row[61:], want), (m, row[61:])
        assert any(row[61:].max() > 1 for row in enc) or hand == "3333456"
        assert np.array_equal(decode_hands(enc), moves.array["cards"])
        assert np.array_equal(encode_moves(moves.array, name), enc)
    moves = ddzfast.legal_moves(ddzfast.Hand("3777"), None, "laizi:7")
    with pytest.raises(ddzfast.IllegalMoveError, match="laizi:<wild rank>"):
        encode_moves(moves.array)                       # no rule set to read them
    bad = moves.array.copy()
    i = int(np.flatnonzero(bad["substitutes"])[0])
    bad["substitutes"][i] = 0
    with pytest.raises(ddzfast.IllegalMoveError, match="substitutes"):
        encode_moves(bad, "laizi:7")
    enc = encode_moves(moves)
    broken = enc.copy()
    broken[i, 61 + 13] = 1                              # a joker substitute: impossible
    with pytest.raises(ValueError, match=rf"features\[{i}\]"):
        decode_hands(broken)
    broken = enc.copy()
    broken[i, 61] = 5                                   # more laizi than a rank takes
    with pytest.raises(ValueError, match=rf"features\[{i}\]"):
        decode_hands(broken)
