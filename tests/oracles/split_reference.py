"""Slow, obvious reference of the fewest plays of a hand (最少手数), for
``ddzfast.min_plays``: independent of the fast core (nothing here imports
``ddzfast``).

The moves of a hand are those of the brute-force references of RULES.md
(``reference.py``; ``reference_laizi.py`` for ``laizi``,
``reference_tiandi.py`` for ``tiandi``): every sub-multiset
of the hand, classified straight from the rules. A leading move's legality
depends on its cards alone, so the moves of any part of the hand are the
hand's moves that fit in it. ``min_plays`` is then a plain memoised search:
the fewest plays of a hand is 1 + the least over every move holding the
hand's lowest card of the fewest plays of what is left (the lowest card must
leave in some move, so nothing is missed); a hand nothing empties has None.
"""
from __future__ import annotations

import functools
from typing import Optional, Tuple

from oracles import reference as R
from oracles import reference_laizi as RL
from oracles import reference_tiandi as RT

Counts = Tuple[int, ...]


@functools.lru_cache(maxsize=None)
def _is_move(cards: Counts, rules: str) -> bool:
    """Whether exactly these cards are one move of the rule set (cached: the
    same small card sets come back in every hand)."""
    if rules.startswith("laizi:"):
        return bool(RL.classify(cards, RL.wild_index(rules.split(":", 1)[1])))
    if rules.startswith("tiandi:"):
        sky, ground = rules.split(":", 1)[1]
        return bool(RT.classify(cards, sky, ground))
    return bool(R.classify(cards, rules))


def move_sets(counts: Counts, rules: str):
    """The distinct card sets of the moves of the hand ``counts``."""
    return [sub for sub in R.sub_multisets(counts) if any(sub) and _is_move(sub, rules)]


def min_plays(counts, rules: str) -> Optional[int]:
    """The fewest moves of ``rules`` ("classic", "biegang", "super",
    "laizi:<rank>" or "tiandi:<sky rank><ground rank>") whose cards are exactly ``counts`` (16 counts), or None."""
    counts = tuple(counts)
    sets = move_sets(counts, rules)

    @functools.lru_cache(maxsize=None)
    def f(h: Counts) -> Optional[int]:
        if not any(h):
            return 0
        low = next(i for i, c in enumerate(h) if c)
        best = None
        for s in sets:
            if s[low] and all(a <= b for a, b in zip(s, h)):
                rest = f(tuple(b - a for a, b in zip(s, h)))
                if rest is not None and (best is None or rest + 1 < best):
                    best = rest + 1
        return best

    return f(counts)
