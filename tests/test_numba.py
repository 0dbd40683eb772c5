"""ddzfast.numba: the core's C functions called from Numba-jitted code give
the same answers as the Python API."""
import os
import random

import numpy as np
import pytest

numba = pytest.importorskip("numba")

import ddzfast  # noqa: E402
from ddzfast import MOVE_DTYPE  # noqa: E402
from ddzfast import numba as dn  # noqa: E402
from helpers import DECKS, RULE_SETS  # noqa: E402

ROOT = os.path.join(os.path.dirname(__file__), os.pardir)


@numba.njit
def _moves(rules, hand, last, out):
    return dn.legal_moves_into(rules, hand, last, out)


@numba.njit
def _classify(rules, cards, out):
    return dn.classify_into(rules, cards, out)


@numba.njit
def _beats(rules, move, last):
    return dn.beats(rules, move, last)


@numba.njit
def _play(hand, cards):
    return dn.play(hand, cards)


def _random_hand(rng, rules):
    size = rng.choice([1, 5, 12, 17, 20, 21])
    return ddzfast.Hand("".join(rng.sample(DECKS[rules], size)))


@pytest.mark.parametrize("rules", RULE_SETS)
def test_numba_equals_python_api(rules):
    rng = random.Random(f"numba-{rules}")
    handle = dn.rules_handle(rules)
    # a laizi hand of 20 cards can have over 10,000 moves
    out = np.empty(1 << 16 if ddzfast.get_rules(rules).laizi else 4096, MOVE_DTYPE)
    readings = np.empty(285, MOVE_DTYPE)
    for _ in range(1500):
        hand = _random_hand(rng, rules)
        expected = ddzfast.legal_moves(hand, None, rules).array
        n = _moves(handle, int(hand), dn.no_last(), out)
        assert np.array_equal(out[:n], expected), str(hand)
        other = ddzfast.legal_moves(_random_hand(rng, rules), None, rules).array
        other = other[other["kind"] != 0]
        if len(other) == 0:
            continue
        j = rng.randrange(len(other))
        last = other[j:j + 1]
        expected = ddzfast.legal_moves(hand, last[0], rules).array
        n = _moves(handle, int(hand), last, out)
        assert np.array_equal(out[:n], expected), f"{hand} after {last[0]}"
        for k in range(min(n, 3)):
            assert _beats(handle, out[k:k + 1], last) == ddzfast.beats(out[k], last[0], rules)
            cards = int(out[k]["cards"])
            m = _classify(handle, cards, readings)
            assert np.array_equal(readings[:m], ddzfast.classify(cards, rules).array)
            assert _play(int(hand), cards) == int(ddzfast.play(hand, out[k], rules))


def test_numba_errors():
    handle = dn.rules_handle("classic")
    out = np.empty(4, MOVE_DTYPE)
    with pytest.raises(ValueError, match="deck"):
        _moves(handle, int(ddzfast.Hand("3W", rules="super")), dn.no_last(), out)
    with pytest.raises(ValueError, match="too small"):
        _moves(handle, int(ddzfast.Hand("3333XD")), dn.no_last(), out)
    bad = np.zeros(1, MOVE_DTYPE)
    bad["kind"], bad["length"], bad["cards"] = 2, 1, int(ddzfast.Hand("34"))
    with pytest.raises(ValueError, match="not a legal move"):
        _moves(handle, int(ddzfast.Hand("44")), bad, np.empty(8, MOVE_DTYPE))
    pass_row = ddzfast.legal_moves("44", ddzfast.Move.parse("PAIR/3/1/33")).array[:1]
    with pytest.raises(ValueError, match="non-pass"):
        _moves(handle, int(ddzfast.Hand("44")), pass_row, np.empty(8, MOVE_DTYPE))
    with pytest.raises(ValueError, match="not all in the hand"):
        _play(int(ddzfast.Hand("33")), int(ddzfast.Hand("4")))


def test_monte_carlo_example_runs(run_python):
    result = run_python(os.path.join(ROOT, "examples", "numba_monte_carlo.py"),
                        "--rules", "super", "--deals", "300", timeout=300)
    assert result.returncode == 0, result.stderr
    assert "super: 300 random deals, landlord won" in result.stdout
