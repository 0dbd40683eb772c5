"""Slow, obvious, pure-Python reference of RULES.md section 8 (``laizi``).

Independent of the fast core: nothing here imports ``ddzfast``. It shares the
conventions of :mod:`reference` (the classic/biegang/super reference):

* card indices 0..14 are ``3 4 5 6 7 8 9 T J Q K A 2 X D`` (15, ``W``, is never
  held in ``laizi``: its deck is the 54 cards of ``classic``); a hand or any
  multiset of cards is a tuple of 16 counts;
* a move identity is ``(kind, r, n, counts)`` as in RULES.md section 3, with
  ``counts`` the physical cards leaving the hand (laizi under their own rank);
* the wild rank ``L`` is a card index 0..12 (or a card character ``"3".."2"``).

What the laizi of a move stand for in its main part (the *substitutes*) is a
13-tuple of counts over ranks ``3..2``: for every main rank, the laizi that
complete it. Laizi completing a main rank equal to ``L`` stand for ``L``
itself and are counted there; a move made only of laizi (face value) counts
them all at ``L``; laizi kickers are not counted (they stand for nothing in
the main part). :func:`substitutes_excluding_self` gives the other reading
(only laizi standing for a rank other than ``L``).

How it works
------------
``readings(cards, L)`` classifies exactly these cards, straight from section
8: a move made only of laizi is its face value; otherwise, for every kind with
a main part of ``n`` consecutive ranks of ``k`` cards each that plays this many
cards, and every possible lowest rank ``r``: every natural card of a main rank
must be in the main part (at most ``k`` of each), laizi fill the missing
cards, and what is left must make the kickers (single kickers: any cards;
pair kickers: pairs of distinct ranks ``3..2`` that are not main ranks, made of
two natural cards, a natural card and a laizi, or two laizi). The bombs are
read separately. ``legal_moves`` classifies every sub-multiset of a hand and
filters with ``beats``.
"""

from __future__ import annotations

import functools
import itertools
from typing import Dict, Iterator, List, Optional, Set, Tuple

from .reference import (  # shared conventions
    CARD_CHARS, D, EMPTY, LAST_CHAIN_RANK, NUM_CARDS, PASS, TWO, W, X,
    cards_text, parse_cards,
)

Counts = Tuple[int, ...]          # 16 counts
Subst = Tuple[int, ...]           # 13 counts, ranks 3..2
Identity = Tuple[str, int, int, Counts]

RANKS = TWO + 1                   # 13 ranks 3..2 a laizi may stand for
NO_SUBST: Subst = (0,) * RANKS

KINDS = (
    "PASS", "SINGLE", "PAIR", "TRIPLE", "TRIPLE_SINGLE", "TRIPLE_PAIR",
    "STRAIGHT", "PAIR_STRAIGHT", "PLANE", "PLANE_SINGLES", "PLANE_PAIRS",
    "FOUR_SINGLES", "FOUR_PAIRS", "BOMB", "ROCKET", "SOFT_BOMB", "LAIZI_BOMB",
)

# RULES.md section 8 tiers: ROCKET > LAIZI_BOMB > BOMB > SOFT_BOMB > plain.
TIERS = {"ROCKET": 4, "LAIZI_BOMB": 3, "BOMB": 2, "SOFT_BOMB": 1}
RANKED_BOMB_KINDS = ("BOMB", "SOFT_BOMB")   # compared by rank in their tier

# Kinds with a main part and no special reading:
# (kind, k cards per main rank, kicker style, kickers per main rank).
# BOMB/SOFT_BOMB/LAIZI_BOMB are read apart (they depend on which cards are
# laizi, not only on counts).
_MAIN_KINDS = (
    ("PAIR", 2, None, 0),
    ("TRIPLE", 3, None, 0),
    ("TRIPLE_SINGLE", 3, "single", 1),
    ("TRIPLE_PAIR", 3, "pair", 1),
    ("FOUR_SINGLES", 4, "single", 2),
    ("FOUR_PAIRS", 4, "pair", 2),
    ("STRAIGHT", 1, None, 0),
    ("PAIR_STRAIGHT", 2, None, 0),
    ("PLANE", 3, None, 0),
    ("PLANE_SINGLES", 3, "single", 1),
    ("PLANE_PAIRS", 3, "pair", 1),
)
_CHAIN_MIN = {"STRAIGHT": 5, "PAIR_STRAIGHT": 3, "PLANE": 2,
              "PLANE_SINGLES": 2, "PLANE_PAIRS": 2}


def wild_index(L) -> int:
    """The wild rank as a card index 0..12 (accepts a card character)."""
    if isinstance(L, str):
        s = L.upper().replace("10", "T")
        if len(s) != 1 or s not in CARD_CHARS[:RANKS]:
            raise ValueError(f"bad wild rank {L!r}")
        return CARD_CHARS.index(s)
    if not (isinstance(L, int) and 0 <= L < RANKS):
        raise ValueError(f"bad wild rank {L!r}")
    return L


@functools.lru_cache(maxsize=None)
def _kinds_of_size(total):
    """(kind, k, kicker style, kickers per rank, n) playing ``total`` cards."""
    out = []
    for kind, k, style, per in _MAIN_KINDS:
        per_rank_cards = k + (2 * per if style == "pair" else per)
        if kind in _CHAIN_MIN:
            if total % per_rank_cards:
                continue
            n = total // per_rank_cards
            if n < _CHAIN_MIN[kind] or n > LAST_CHAIN_RANK + 1:
                continue
        else:
            if total != per_rank_cards:
                continue
            n = 1
        out.append((kind, k, style, per, n))
    return tuple(out)


def _kickers_ok(style, m, n, rest, rest_l):
    """Do the natural cards ``rest`` (15 counts, none of a main rank) and
    ``rest_l`` laizi make exactly ``m`` kickers of ``style``?"""
    if style is None:
        return sum(rest) == 0 and rest_l == 0
    if style == "single":
        return sum(rest) + rest_l == m
    # pairs of distinct ranks 3..2, none a main rank
    if rest[X] or rest[D]:
        return False
    if any(c > 2 for c in rest):
        return False
    natural_pairs = sum(1 for c in rest if c == 2)
    halves = sum(1 for c in rest if c == 1)   # each needs one laizi
    if rest_l < halves or (rest_l - halves) % 2:
        return False
    laizi_pairs = (rest_l - halves) // 2
    free_ranks = RANKS - n - natural_pairs - halves
    if laizi_pairs > free_ranks:
        return False
    return natural_pairs + halves + laizi_pairs == m


def readings(cards, L) -> List[Tuple[Identity, Subst]]:
    """Every reading of exactly ``cards`` (16 counts) as one move under wild
    rank ``L``: a list of ``(identity, substitutes)``."""
    L = wild_index(L)
    cards = tuple(cards)
    assert len(cards) == NUM_CARDS
    if cards[W]:
        raise ValueError("laizi has no W card")
    total = sum(cards)
    if total == 0:
        return []   # PASS is added by legal_moves
    l = cards[L]                       # the laizi
    nat = list(cards[:W])
    nat[L] = 0                         # natural (non-wild) cards
    natural_total = total - l
    out: List[Tuple[Identity, Subst]] = []

    def subst_at(pairs):
        s = [0] * RANKS
        for q, c in pairs:
            s[q] += c
        return tuple(s)

    # Only laizi: face value (section 8).
    if natural_total == 0:
        kind = {1: "SINGLE", 2: "PAIR", 3: "TRIPLE", 4: "LAIZI_BOMB"}[l]
        return [((kind, L, 1, cards), subst_at([(L, l)]))]

    if total == 1:
        out.append((("SINGLE", nat.index(1), 1, cards), NO_SUBST))
    if total == 2 and nat[X] and nat[D]:
        out.append((("ROCKET", X, 1, cards), NO_SUBST))
    if total == 4:
        ranks = [q for q in range(RANKS) if nat[q]]
        if len(ranks) == 1 and nat[ranks[0]] == natural_total:
            q = ranks[0]
            if l == 0:
                out.append((("BOMB", q, 1, cards), NO_SUBST))
            else:
                out.append((("SOFT_BOMB", q, 1, cards), subst_at([(q, l)])))

    present = [q for q in range(W) if nat[q]]
    for kind, k, style, per, n in _kinds_of_size(total):
        top = TWO if n == 1 else LAST_CHAIN_RANK
        first, last = 0, top - n + 1
        if style is None:
            # (speed-up only) without kickers every natural card is in the
            # main part, so the main ranks cover every natural rank
            first = max(first, present[-1] - n + 1)
            last = min(last, present[0])
        for r in range(first, last + 1):
            main = range(r, r + n)
            if any(nat[q] > k for q in main):
                continue   # a natural card of a main rank would stay out
            need = [k - nat[q] for q in main]   # laizi filling each rank
            if sum(need) > l:
                continue
            rest = list(nat)
            for q in main:
                rest[q] = 0
            if _kickers_ok(style, per * n, n, rest, l - sum(need)):
                out.append(((kind, r, n, cards), subst_at(zip(main, need))))
    return out


def classify(cards, L) -> Set[Identity]:
    """Every move identity that plays exactly ``cards`` under wild rank L."""
    rd = readings(cards, L)
    ids = [m for m, _ in rd]
    assert len(set(ids)) == len(ids), f"identity read twice: {rd}"
    return set(ids)


def substitutes(identity: Identity, L) -> Subst:
    """What the laizi of a move stand for in its main part (13 counts over
    ranks 3..2, laizi standing for ``L`` itself counted at ``L``)."""
    kind, r, n, counts = identity
    if kind == "PASS":
        return NO_SUBST
    found = [s for m, s in readings(counts, L) if m == (kind, r, n, tuple(counts))]
    assert len(found) == 1, f"{identity} is not a move under L={L}"
    return found[0]


def substitutes_excluding_self(identity: Identity, L) -> Subst:
    """:func:`substitutes` without the laizi that stand for ``L`` itself."""
    s = list(substitutes(identity, L))
    s[wild_index(L)] = 0
    return tuple(s)


# ---------------------------------------------------------------------------
# Beating and legal moves
# ---------------------------------------------------------------------------

def tier(m: Identity) -> int:
    return TIERS.get(m[0], 0)


def beats(m: Identity, p: Identity) -> bool:
    """Does ``m`` beat the last non-pass move ``p`` (section 8 tiers)?"""
    if m[0] == "PASS":
        return False
    tm, tp = tier(m), tier(p)
    if tm != tp:
        return tm > tp
    if tm > 0:
        return m[0] in RANKED_BOMB_KINDS and m[0] == p[0] and m[1] > p[1]
    return m[0] == p[0] and m[2] == p[2] and m[1] > p[1]


def sub_multisets(counts) -> Iterator[Counts]:
    return itertools.product(*[range(c + 1) for c in counts])


def all_moves_subst(counts, L, sizes=None) -> Dict[Identity, Subst]:
    """Every non-pass move of the hand ``counts`` under wild rank L (only
    moves of ``sizes`` cards, if given), with its substitutes."""
    out: Dict[Identity, Subst] = {}
    for sub in sub_multisets(counts):
        if sizes is None or sum(sub) in sizes:
            rd = readings(sub, L)
            assert len({m for m, _ in rd}) == len(rd), f"identity read twice: {rd}"
            out.update(rd)
    return out


def all_moves(counts, L) -> Set[Identity]:
    """Every non-pass move of the hand ``counts`` under wild rank L."""
    return set(all_moves_subst(counts, L))


def legal_moves_subst(counts, last: Optional[Identity], L) -> Dict[Identity, Subst]:
    """:func:`legal_moves` with each move's substitutes."""
    if last is None:
        return all_moves_subst(tuple(counts), L)
    # (speed-up only) a move that beats ``last`` has its kind and length, so
    # its card count, or is a bomb (4 cards) or the rocket (2)
    sizes = {sum(last[3]), 4, 2}
    moves = all_moves_subst(tuple(counts), L, sizes)
    out = {m: s for m, s in moves.items() if beats(m, last)}
    out[PASS] = NO_SUBST
    return out


def legal_moves(counts, last: Optional[Identity], L) -> Set[Identity]:
    """Legal moves: leading (``last`` None) every move; following, PASS plus
    every move that beats ``last``."""
    return set(legal_moves_subst(counts, last, L))


# ---------------------------------------------------------------------------
# Text
# ---------------------------------------------------------------------------

def parse_last(text: str) -> Optional[Identity]:
    """Perft last-move field ``-`` or ``KIND/r/n/cards`` (r a card char)."""
    text = text.strip()
    if text == "-":
        return None
    kind, r, n, cards = text.split("/")
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}")
    r_idx = CARD_CHARS.find(r.upper().replace("10", "T"))
    if r_idx < 0 or r_idx >= W:
        raise ValueError(f"bad rank {r!r}")
    return (kind, r_idx, int(n), parse_cards(cards))


def move_text(m: Identity) -> str:
    kind, r, n, counts = m
    return f"{kind}/{CARD_CHARS[r]}/{n}/{cards_text(counts)}"


def subst_text(s: Subst) -> str:
    return "".join(CARD_CHARS[q] * c for q, c in enumerate(s))


__all__ = [
    "EMPTY", "KINDS", "PASS", "TIERS", "all_moves", "all_moves_subst", "beats",
    "classify", "legal_moves", "legal_moves_subst", "move_text", "parse_cards", "parse_last", "readings",
    "subst_text", "substitutes", "substitutes_excluding_self", "tier",
    "wild_index", "cards_text",
]
