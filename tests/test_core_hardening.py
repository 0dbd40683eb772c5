"""Regression tests for the C core's hardening: deterministic bytes in every
move and deal row, a multiplier that saturates instead of wrapping, a
simulation that floors its deal index modulo 3, and one source (the
generator) for generating, checking and classifying moves."""
from __future__ import annotations

import ctypes
import itertools
import math
import random

import numpy as np
import pytest

import ddzfast
from ddzfast import MOVE_DTYPE, Hand, Move
from ddzfast import _core, _engine

INT64_MAX = (1 << 63) - 1
DECK = "3456789TJQKA2" * 4 + "XD"
RULE_NAMES = ("classic", "biegang", "super")


# ---- the C functions of __pyx_capi__, called through ctypes ------------------

def _capi(name: str, restype, *argtypes, module=_core):
    """A C function of a compiled module (declared in its .pxd: _core.pxd by
    default) as a ctypes function. Its arguments are passed as they are:
    callers keep the memory they point into alive."""
    capsule = module.__pyx_capi__[name]
    get_name = ctypes.pythonapi.PyCapsule_GetName
    get_name.restype = ctypes.c_char_p
    get_name.argtypes = [ctypes.py_object]
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype = ctypes.c_void_p
    get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    address = get_pointer(capsule, get_name(capsule))
    return ctypes.CFUNCTYPE(restype, *argtypes)(address)


_PTR = ctypes.c_void_p
c_check = _capi("ddz_check", ctypes.c_int, _PTR, ctypes.c_int, ctypes.c_int,
                ctypes.c_int, ctypes.c_uint64)


def check(rules, kind: int, rank: int, length: int, cards: int) -> int:
    """ddz_check: the move's wild, or -1 when it is not a legal move."""
    return c_check(ddzfast.get_rules(rules).address, kind, rank, length, cards)


# ---- every byte of a move ----------------------------------------------------

def _row_bytes(arr: np.ndarray) -> np.ndarray:
    return arr.view(np.uint8).reshape(-1, MOVE_DTYPE.itemsize)


def test_move_layout_has_no_unnamed_bytes():
    # 8 bytes of cards, 4 byte fields, then the 4 reserved (always zero) bytes
    assert MOVE_DTYPE.itemsize == 16
    assert [MOVE_DTYPE.fields[f][1] for f in ("cards", "kind", "rank", "length", "wild")] \
        == [0, 8, 9, 10, 11]


def _dirty_the_stack():
    # deep C frames with pointers in them, so that stale stack bytes under a
    # later call's buffer are not zero by luck
    for rules in RULE_NAMES:
        ddzfast.legal_moves(DECK[:20], None, rules)
        list(ddzfast.legal_moves("3456789TJQKA2", None, rules))
        ddzfast.Game(rules, 7).observation()


@pytest.mark.parametrize("rules", RULE_NAMES)
def test_classify_rows_are_deterministic_and_zero_padded(rules):
    rng = random.Random(5)
    deck = DECK + ("W" if rules != "classic" else "")
    samples = ["333W", "3W", "XDW", "3333W", "33344458", "34567W", "XD", "",
               "33334444", "333444555666"]
    samples += ["".join(rng.sample(deck, rng.randint(1, 8))) for _ in range(60)]
    for text in samples:
        try:
            cards = Hand.parse(text, rules)
        except ValueError:
            continue
        first = ddzfast.classify(cards, rules).array.tobytes()
        _dirty_the_stack()
        again = ddzfast.classify(cards, rules).array.tobytes()
        assert first == again, text
        rows = _row_bytes(ddzfast.classify(cards, rules).array)
        assert not rows[:, 12:].any(), f"padding bytes of classify({text!r})"


@pytest.mark.parametrize("rules", RULE_NAMES)
def test_legal_move_rows_are_zero_padded(rules):
    rng = random.Random(11)
    deck = DECK + ("W" if rules != "classic" else "")
    for _ in range(20):
        hand = Hand.parse("".join(rng.sample(deck, 17)), rules)
        moves = ddzfast.legal_moves(hand, None, rules)
        assert not _row_bytes(moves.array)[:, 12:].any()
        assert moves.array.tobytes() == ddzfast.legal_moves(hand, None, rules).array.tobytes()
        last = moves[rng.randrange(len(moves))]
        follow = ddzfast.legal_moves(hand, last, rules)
        assert not _row_bytes(follow.array)[:, 12:].any()


def _padding_mask(dtype: np.dtype) -> np.ndarray:
    """True for the bytes of a record of `dtype` that no field covers."""
    covered = np.zeros(dtype.itemsize, bool)
    for field_dtype, offset in (v[:2] for v in dtype.fields.values()):
        covered[offset:offset + field_dtype.itemsize] = True
    return ~covered


def test_deal_rows_are_zero_padded():
    # _score_row copies the C row of a finished Game into DEAL_DTYPE; its
    # trailing padding used to be whatever was on the stack
    dtype = ddzfast.DEAL_DTYPE
    pad = _padding_mask(dtype)
    assert pad.any()
    for seed in range(8):
        game = ddzfast.Game("super", seed, bidding=False)
        while not game.done:
            game.play(game.policy_move("greedy"))
        _dirty_the_stack()
        row = _engine._score_row(game)
        raw = np.frombuffer(row.tobytes(), np.uint8)
        assert not raw[pad].any()
        _dirty_the_stack()
        assert _engine._score_row(game).tobytes() == row.tobytes()


# ---- the multiplier saturates ------------------------------------------------

# The landlord holds twelve natural bombs (3..A) and the rocket; each farmer a
# pair of 2s, so the farmers pass every trick and the landlord wins a spring.
BOMBS_HANDS = ("".join(c * 4 for c in "3456789TJQKA") + "XD", "22", "22")


def _play_all_bombs(rules):
    game = ddzfast.Game.from_position(BOMBS_HANDS, rules, landlord=0)
    seen = []
    for card in "3456789TJQKA":
        game.play(Move.parse(f"BOMB/{card}/1/{card * 4}"))
        seen.append(game.multiplier)
        game.play(Move.parse("PASS"))
        game.play(Move.parse("PASS"))
    game.play(Move.parse("ROCKET/X/1/XD"))
    seen.append(game.multiplier)
    assert game.done
    return game, seen


def test_multiplier_saturates_instead_of_wrapping():
    rules = ddzfast.get_rules("classic").with_options(
        multipliers={"BOMB": 255, "ROCKET": 255})
    game, seen = _play_all_bombs(rules)
    # 255**13 is far beyond int64: the product stops at INT64_MAX, never wraps
    assert all(m > 0 for m in seen)
    assert seen == sorted(seen)
    assert seen[-1] == INT64_MAX
    result = game.result
    assert result.winner == "landlord" and result.spring
    assert result.multiplier == INT64_MAX      # spring's doubling saturates too
    scores = result.scores
    assert all(math.isfinite(s) for s in scores)
    assert scores[0] > 0 and scores[1] < 0 and scores[2] < 0
    assert scores[0] + scores[1] + scores[2] == 0
    assert scores[1] == scores[2] == -float(INT64_MAX)


def test_multiplier_cap_applies_to_the_saturated_product():
    rules = ddzfast.get_rules("classic").with_options(
        multipliers={"BOMB": 255, "ROCKET": 255}, mult_cap=1000)
    game, seen = _play_all_bombs(rules)
    assert all(m > 0 for m in seen)
    result = game.result
    assert result.multiplier == 1000
    assert result.scores == (2000.0, -1000.0, -1000.0)


def test_moderate_factors_are_exact():
    # below the limit nothing changes: 2**12 bombs * 2 rocket * 2 spring
    game, seen = _play_all_bombs("classic")
    assert seen[-1] == 2 ** 13
    assert game.result.multiplier == 2 ** 14


# ---- the simulation's deal index -----------------------------------------------

def _simulate_c(rules, start, stop, seed=3):
    """ddz_simulate with random policies, called directly: (status, rows)."""
    c_simulate = _capi("ddz_simulate", ctypes.c_int, _PTR, _PTR, ctypes.c_uint64,
                       ctypes.c_int64, ctypes.c_int64, ctypes.c_int, _PTR, module=_engine)
    codes = np.array([_engine.POLICIES["random"]] * 3, dtype=np.intc)
    rows = np.zeros(stop - start, dtype=ddzfast.DEAL_DTYPE)
    status = c_simulate(ddzfast.get_rules(rules).address, codes.ctypes.data, seed,
                        start, stop, 1, rows.ctypes.data)
    return status, rows


@pytest.mark.parametrize("rules", RULE_NAMES)
def test_simulate_negative_start_in_c(rules):
    # deal i's first bidder is i modulo 3, floored (Python's %): 0..2 for a
    # negative i too; it used to be -1 or -2 and index policies[-1]
    status, rows = _simulate_c(rules, -7, 2)
    assert status == 0
    assert list(rows["first_bidder"]) == [i % 3 for i in range(-7, 2)]
    assert set(rows["landlord"]) <= {0, 1, 2}
    assert np.allclose(rows["scores"].sum(axis=1), 0.0)
    status2, rows2 = _simulate_c(rules, -7, 2)
    assert rows2.tobytes() == rows.tobytes()
    # a deal does not depend on the run it is part of
    _, tail = _simulate_c(rules, -2, 2)
    assert tail.tobytes() == rows[5:].tobytes()


def test_simulate_negative_start_through_the_wrapper():
    try:
        rows = _engine._simulate_native("classic", ("random",) * 3, 3, -6, 0, True, 1)
    except ValueError:
        return      # the wrapper refuses negative starts: nothing reaches the C
    assert list(rows["first_bidder"]) == [i % 3 for i in range(-6, 0)]
    assert set(rows["landlord"]) <= {0, 1, 2}
    assert np.allclose(rows["scores"].sum(axis=1), 0.0)


# ---- one source for generating, checking and classifying ---------------------

def _submultisets(hand: int):
    counts = [(hand >> (4 * i)) & 15 for i in range(16)]
    for pick in itertools.product(*(range(c + 1) for c in counts)):
        yield sum(c << (4 * i) for i, c in enumerate(pick))


def _readings(moves) -> dict:
    """cards -> {(kind, rank, length): wild} of a MOVE_DTYPE array."""
    out: dict = {}
    for row in moves:
        out.setdefault(int(row["cards"]), {})[
            (int(row["kind"]), int(row["rank"]), int(row["length"]))] = int(row["wild"])
    return out


CUSTOM = {
    "stands": ("super", dict(wild_joker_stands=False)),
    "low-wild": ("biegang", dict(wild_max_rank=5)),
}


def _rules(name):
    if name in CUSTOM:
        base, changes = CUSTOM[name]
        return ddzfast.get_rules(base).with_options(**changes)
    return ddzfast.get_rules(name)


@pytest.mark.parametrize("name", RULE_NAMES + tuple(CUSTOM))
def test_classify_of_every_submultiset_is_the_generator(name):
    # classify(C) is exactly the moves with cards C that the generator makes
    # from any hand holding C, and ddz_check accepts exactly those
    rules = _rules(name)
    rng = random.Random(hash(name) & 0xFFFF)
    deck = DECK + ("W" if rules.wildcard else "")
    for _ in range(6):
        hand = int(Hand.parse("".join(rng.sample(deck, 9)), rules))
        generated = _readings(ddzfast.legal_moves(hand, None, rules).array)
        for cards in _submultisets(hand):
            if cards == 0:
                continue
            classified = _readings(ddzfast.classify(cards, rules).array).get(cards, {})
            assert classified == generated.get(cards, {}), hex(cards)
            for (kind, rank, length), wild in classified.items():
                assert check(rules, kind, rank, length, cards) == wild
                # a neighbouring identity is legal only when generated
                for k, r, n in ((kind, rank + 1, length), (kind, rank, length + 1),
                                (kind + 1, rank, length), (kind - 1, rank, length)):
                    got = check(rules, k, r, n, cards)
                    assert got == classified.get((k, r, n), -1), (k, r, n, hex(cards))


@pytest.mark.parametrize("name", RULE_NAMES + tuple(CUSTOM))
def test_every_generated_move_checks(name):
    rules = _rules(name)
    rng = random.Random(7)
    deck = DECK + ("W" if rules.wildcard else "")
    for size in (5, 12, 17, 21):
        for _ in range(5):
            hand = Hand.parse("".join(rng.sample(deck, min(size, len(deck)))), rules)
            moves = ddzfast.legal_moves(hand, None, rules).array
            for row in moves:
                assert check(rules, int(row["kind"]), int(row["rank"]),
                             int(row["length"]), int(row["cards"])) == row["wild"]


def test_check_grid_matches_classify():
    # every (kind, rank, length) for a few card sets, out-of-range values too
    rules = ddzfast.get_rules("biegang")
    for text in ("333W", "33W", "XW", "XDW", "3333W", "34567W", "33344458", "3W44",
                 "3344556W", "333444W5", "33334455"):
        cards = int(Hand.parse(text, rules))
        classified = _readings(ddzfast.classify(cards, rules).array).get(cards, {})
        for kind in range(-1, 21):
            for rank in range(-1, 17):
                for length in range(-1, 14):
                    assert check(rules, kind, rank, length, cards) \
                        == classified.get((kind, rank, length), -1)


def test_wild_max_rank_past_the_deck_is_consistent():
    # wild_max_rank of 32 or more used to shift past an int: classify called
    # PAIR KW legal while legal_moves omitted it
    try:
        rules = ddzfast.get_rules("biegang").with_options(wild_max_rank=40)
    except ValueError:
        return      # refused by the rule-set validation: nothing to compare
    hand = Hand.parse("KW", rules)
    generated = _readings(ddzfast.legal_moves(hand, None, rules).array)
    classified = _readings(ddzfast.classify(hand, rules).array)
    assert classified.get(int(hand), {}) == generated.get(int(hand), {})
    assert (int(ddzfast.MoveKind.PAIR), 10, 1) in generated[int(hand)]
