"""pytest-benchmark suite for ddzfast's legal-move generation.

    python -m pytest benchmarks/test_bench_moves.py --benchmark-only
    python -m pytest benchmarks/test_bench_moves.py --benchmark-group-by=group

One benchmark round runs one call on each of POSITIONS fixed, seeded
positions, so the reported time is for POSITIONS calls; ``extra_info`` records
the positions, the mean moves per call and the time per call.

Groups ``<rules>-<cards>-<lead|follow>``:

* classic: 17- and 20-card hands from the 54-card deck;
* biegang, super: 17- and 21-card hands from the 55-card deck, every one
  holding the wildcard W.

Group ``tiandi-past-the-buffer``: lists longer than ``MOVE_BUFFER``, which
``legal_moves`` counts before it makes them in a buffer of their size: 16
seeded 20-card tiandi leads holding four laizi of each wild rank (tens of
thousands of moves each); and counts without a buffer (what
``legal_moves_into`` reports for a buffer too small): the whole deck's
moves in ``tiandi:32`` (71.6 million), and 16 seeded 20-card leads holding
two laizi, one of each wild rank.

A lead position is the hand with ``last=None``. A follow position is the hand
answering a move of another hand of the same deal (a 21/20-card landlord for
a 17-card hand, a 17-card farmer for a landlord hand); the move is drawn from
``ddzfast.legal_moves(other_hand)``, a kind first and then a move of that
kind, never PASS. Each position is benchmarked through ``legal_moves`` (a
MoveList) and ``legal_moves_into`` (a preallocated MOVE_DTYPE buffer); a
follow also through ``legal_moves_into`` with the move to beat given as a
MOVE_DTYPE row (``legal_moves_into-row``), as a loop over a buffer of moves
passes it.
"""

import random

import numpy as np
import pytest

import ddzfast
from ddzfast.constants import CARD_CHARS, deck_text

POSITIONS = 64
DECK54 = deck_text(False)
DECK55 = deck_text(True)

CASES = [("classic", 17), ("classic", 20),
         ("biegang", 17), ("biegang", 21),
         ("super", 17), ("super", 21)]


def canonical(cards) -> str:
    return "".join(sorted(cards, key=CARD_CHARS.index))


def deal_position(rng: random.Random, rules: str, size: int):
    """(hand text, other hand text): `hand` has `size` cards (with W in the
    wildcard rule sets); `other` comes from the rest of the same deck, 17
    cards when `hand` is a landlord's, else a landlord's 20 or 21."""
    wild = rules != "classic"
    deck = list(DECK55 if wild else DECK54)
    if wild:
        deck.remove("W")
    rng.shuffle(deck)
    if wild:
        hand = ["W"] + deck[:size - 1]
        rest = deck[size - 1:]
    else:
        hand = deck[:size]
        rest = deck[size:]
    landlord_size = 21 if wild else 20
    other_size = 17 if size == landlord_size else landlord_size
    return canonical(hand), canonical(rest[:other_size])


def pick_last(rng: random.Random, other_text: str, rules: str):
    """A non-pass Move of `other`: a kind drawn first, then a move of it."""
    ml = ddzfast.legal_moves(ddzfast.Hand.parse(other_text), None, rules)
    moves = list(ml)
    kinds = [int(k) for k in ml.array["kind"]]
    assert len(moves) == len(kinds)
    pool = [(m, k) for m, k in zip(moves, kinds) if int(m.cards) != 0]
    kind = rng.choice(sorted({k for _, k in pool}))
    return rng.choice([m for m, k in pool if k == kind])


def build(rules: str, size: int, mode: str):
    seed = {"classic": 1, "biegang": 2, "super": 3}[rules] * 1000 + size * 10 \
        + (mode == "follow")
    rng = random.Random(seed)
    out = []
    while len(out) < POSITIONS:
        hand_text, other_text = deal_position(rng, rules, size)
        last = pick_last(rng, other_text, rules) if mode == "follow" else None
        hand = ddzfast.Hand.parse(hand_text)
        out.append((hand, int(hand), last))
    return out


_CACHE = {}


def positions(rules, size, mode):
    key = (rules, size, mode)
    if key not in _CACHE:
        _CACHE[key] = build(rules, size, mode)
    return _CACHE[key]


PARAMS = [pytest.param(rules, size, mode, api,
                       id=f"{rules}-{size}-{mode}-{api}")
          for rules, size in CASES
          for mode in ("lead", "follow")
          for api in ("legal_moves", "legal_moves_into")
          + (("legal_moves_into-row",) if mode == "follow" else ())]


@pytest.mark.parametrize("rules,size,mode,api", PARAMS)
def test_bench(benchmark, rules, size, mode, api):
    pos = positions(rules, size, mode)
    benchmark.group = f"{rules}-{size}-{mode}"
    if api == "legal_moves":
        lm = ddzfast.legal_moves

        def run():
            n = 0
            for hand, _, last in pos:
                n += len(lm(hand, last, rules).array)
            return n
    else:
        lmi = ddzfast.legal_moves_into
        buf = np.empty(ddzfast.MOVE_BUFFER, ddzfast.MOVE_DTYPE)
        if api == "legal_moves_into-row":
            pos = [(hand, hand_int, last.array[0]) for hand, hand_int, last in pos]

        def run():
            n = 0
            for _, hand_int, last in pos:
                n += lmi(hand_int, last, rules, buf)
            return n

    total = benchmark(run)
    assert total > 0
    benchmark.extra_info["positions"] = len(pos)
    benchmark.extra_info["moves_per_call"] = total / len(pos)
    stats = getattr(benchmark, "stats", None)
    if stats is not None:  # absent under --benchmark-disable
        mean = stats.stats.mean
        benchmark.extra_info["us_per_call"] = mean / len(pos) * 1e6
        benchmark.extra_info["moves_per_s"] = total / mean if mean else None


def both_rank_leads(each: int, count: int = 16) -> list:
    """(Rules, hand) of 20 cards: `each` laizi of each of two wild ranks
    drawn per hand, the rest natural cards of the other ranks."""
    rng = random.Random(16 + each)
    ranks = DECK54[:13]
    out = []
    for _ in range(count):
        sky, ground = rng.sample(ranks, 2)
        others = [c for c in DECK54 if c not in (sky, ground)]
        natural = "".join(rng.sample(others, 20 - 2 * each))
        out.append((ddzfast.get_rules(f"tiandi:{sky}{ground}"),
                    ddzfast.Hand(sky * each + ground * each + natural)))
    return out


@pytest.mark.parametrize("what", ["legal_moves-20-cards-8-laizi", "count-whole-deck",
                                  "count-20-cards-2-laizi"])
def test_bench_past_the_buffer(benchmark, what):
    from ddzfast import _core
    benchmark.group = "tiandi-past-the-buffer"
    if what == "count-whole-deck":
        deck = ddzfast.Hand(DECK54)
        rules = ddzfast.get_rules("tiandi:32")
        total = benchmark(_core._legal_move_count, deck, None, rules)
        assert total == 71_634_255      # docs/moves.md
        return
    if what == "count-20-cards-2-laizi":
        leads = both_rank_leads(1)

        def run():
            return sum(_core._legal_move_count(hand, None, rules) for rules, hand in leads)
    else:
        leads = both_rank_leads(4)

        def run():
            return sum(len(ddzfast.legal_moves(hand, None, rules)) for rules, hand in leads)

    total = benchmark(run)
    assert total > (ddzfast.MOVE_BUFFER if what.startswith("legal_moves") else 100) * len(leads)
    benchmark.extra_info["moves_per_call"] = total / len(leads)
