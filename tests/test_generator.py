"""The move generator as the one source of the rules: classify and the
core's check (ddz_check, called through ctypes) accept exactly the moves
legal_moves generates, on every sub-multiset of random hands of every rule
set and of custom ones. (Before the hardening review each had rules of its
own; each regression names the defect it guards.)"""
from __future__ import annotations

import ctypes
import itertools
import random

import pytest

import ddzfast
from ddzfast import Hand
from helpers import RULE_SETS, capi

DECK = "3456789TJQKA2" * 4 + "XD"

_PTR = ctypes.c_void_p
c_check = capi("ddz_check", ctypes.c_int, _PTR, ctypes.c_int, ctypes.c_int,
               ctypes.c_int, ctypes.c_uint64)


def check(rules, kind: int, rank: int, length: int, cards: int) -> int:
    """ddz_check: the move's wild, or -1 when it is not a legal move."""
    return c_check(ddzfast.get_rules(rules).address, kind, rank, length, cards)


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


@pytest.mark.parametrize("name", RULE_SETS + tuple(CUSTOM))
def test_classify_of_every_submultiset_is_the_generator(name):
    # classify(C) is exactly the moves with cards C that the generator makes
    # from any hand holding C, and ddz_check accepts exactly those
    """classify and ddz_check had rules of their own beside the generator's: on every
    sub-multiset they accept exactly what it generates."""
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


@pytest.mark.parametrize("name", RULE_SETS + tuple(CUSTOM))
def test_every_generated_move_checks(name):
    """ddz_check refused moves the generator makes, or gave them another wild: every
    generated move checks, with its wild."""
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
    """ddz_check accepted identities the generator never makes (any kind, rank and
    length, out-of-range values too): only classify's readings."""
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
    """A wild_max_rank of 32 or more shifted past an int: classify called PAIR KW legal
    while legal_moves omitted it."""
    try:
        rules = ddzfast.get_rules("biegang").with_options(wild_max_rank=40)
    except ValueError:
        return      # refused by the rule-set validation: nothing to compare
    hand = Hand.parse("KW", rules)
    generated = _readings(ddzfast.legal_moves(hand, None, rules).array)
    classified = _readings(ddzfast.classify(hand, rules).array)
    assert classified.get(int(hand), {}) == generated.get(int(hand), {})
    assert (int(ddzfast.MoveKind.PAIR), 10, 1) in generated[int(hand)]
