"""A second formulation of RULES.md section 9 (``tiandi``), written apart from
:mod:`reference_tiandi` to check it: nothing here imports ``ddzfast`` or
:mod:`reference_tiandi`'s classifier; the conventions (16 counts, identities
``(kind, r, n, counts)``, wild ranks as card indices or characters) are those
of :mod:`reference`.

Where :mod:`reference_tiandi` reads the laizi rules of section 9 directly
(main parts filled by laizi, laizi kickers, pair kickers of free ranks), this
module never writes a laizi rule for the plain kinds: a set of cards holding
natural cards is read through **every assignment** of what its laizi stand
for (each laizi one card of a rank ``3..2``, itself included, never a joker),
the substituted cards are classified by the plain classic classifier of
:mod:`reference` (``reference.classify(..., "classic")``, which knows no
laizi), and the readings are collapsed to identities (the physical cards).
On top of that, section 9's own rules:

* a classic BOMB of substituted cards is a BOMB only when no laizi is in it;
  a SOFT_BOMB is a set of cards that some assignment makes all one rank ``r``
  (so ``r`` holds natural cards and is not wild), 4 to 12 cards, laizi in it;
* a set made only of laizi is read at face value: the classic classifier's
  readings of the same cards taken as natural cards, its BOMB dropped, and
  4 to 8 laizi one LAIZI_BOMB (``r`` the higher wild rank among them);
* the tiers as arithmetic (:func:`tier_number`) instead of section 9's list.

Every assignment, two ways
--------------------------
:func:`readings_literal` walks every assignment (every multiset of ``l``
ranks: which physical laizi stands for which rank does not change the
substituted cards), C(l + 12, 12) of them, 125,970 for eight laizi: too slow
for whole hands. :func:`readings` walks the same assignments from the other
side: an assignment contributes only when its substituted cards are a classic
move, so it walks the classic moves ``M`` of the right number of cards (a
table of every classic move of up to 14 cards, each read by the classic
classifier) whose cards contain the natural cards, each of which is exactly
one assignment ``M - naturals``. The tests check the two ways agree.

Each identity comes with the set of assignments that give it (13 counts over
ranks ``3..2``), so that :mod:`reference_tiandi`'s substitutes can be checked
against them.
"""

from __future__ import annotations

import functools
import itertools
from typing import Dict, FrozenSet, Iterator, Optional, Set, Tuple

import numpy as np

from . import reference
from .reference import D, NUM_CARDS, PASS, TWO, W, X

Counts = Tuple[int, ...]
Assignment = Tuple[int, ...]      # 13 counts: how many laizi stand for each rank
Identity = Tuple[str, int, int, Counts]

RANKS = TWO + 1
TABLE_MAX_CARDS = 14
_TYPES = 15                       # 3..2, X, D


def wild_pair(T, G) -> Tuple[int, int]:
    def one(q):
        if isinstance(q, str):
            s = q.upper().replace("10", "T")
            if len(s) != 1 or s not in reference.CARD_CHARS[:RANKS]:
                raise ValueError(f"bad wild rank {q!r}")
            return reference.CARD_CHARS.index(s)
        if not (isinstance(q, int) and 0 <= q < RANKS):
            raise ValueError(f"bad wild rank {q!r}")
        return q
    if T is None or G is None:
        raise ValueError("tiandi needs both wild ranks (sky and ground)")
    t, g = one(T), one(G)
    if t == g:
        raise ValueError("the sky and ground ranks must differ")
    return t, g


# ---------------------------------------------------------------------------
# The classic classifier on substituted cards
# ---------------------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def classic_readings(m15: Tuple[int, ...]) -> Tuple[Tuple[str, int, int], ...]:
    """(kind, r, n) of every classic reading of the 15 counts ``m15``; none
    when a rank holds more than four cards (no classic hand holds five)."""
    if any(c > 4 for c in m15[:RANKS]) or m15[X] > 1 or m15[D] > 1:
        return ()
    return tuple(sorted((k, r, n) for k, r, n, _ in
                        reference.classify(tuple(m15) + (0,), "classic")))


def _multisets(m, caps) -> Iterator[Tuple[int, ...]]:
    """Every multiset of ``m`` cards under the per-type ``caps``."""
    def rec(i, left):
        if i == len(caps):
            if left == 0:
                yield ()
            return
        for c in range(min(left, caps[i]) + 1):
            for tail in rec(i + 1, left - c):
                yield (c,) + tail
    return rec(0, m)


@functools.lru_cache(maxsize=None)
def classic_table():
    """{number of cards: (array of the 15 counts of every classic move of
    that many cards, their classic readings)}, up to TABLE_MAX_CARDS cards.

    Candidates are built from section 3's shapes (a main part of ``n``
    consecutive ranks of ``k`` cards, plus any ``m`` further cards, or ``m``
    pairs of distinct ranks), a superset of the classic moves; the classic
    classifier then says which candidates are moves and what they read as."""
    cands = set()
    full = (4,) * RANKS + (1, 1)
    for q in range(_TYPES):                       # SINGLE
        cands.add(tuple(1 if i == q else 0 for i in range(_TYPES)))
    cands.add((0,) * RANKS + (1, 1))              # ROCKET
    # (k, minimum n, chain?, single kickers per rank, pair kickers per rank)
    shapes = [(2, 1, False, 0, 0), (3, 1, False, 0, 0), (4, 1, False, 0, 0),
              (3, 1, False, 1, 0), (3, 1, False, 0, 1), (4, 1, False, 2, 0),
              (4, 1, False, 0, 2), (1, 5, True, 0, 0), (2, 3, True, 0, 0),
              (3, 2, True, 0, 0), (3, 2, True, 1, 0), (3, 2, True, 0, 1)]
    for k, nmin, chain, singles, pairs in shapes:
        for n in (range(nmin, 13) if chain else (1,)):
            cards = n * (k + singles + 2 * pairs)
            if cards > TABLE_MAX_CARDS:
                continue
            top = TWO if not chain else reference.LAST_CHAIN_RANK
            for r in range(0, top - n + 2):
                main = [0] * _TYPES
                for q in range(r, r + n):
                    main[q] = k
                if singles:
                    caps = [f - c for f, c in zip(full, main)]
                    for kick in _multisets(singles * n, caps):
                        cands.add(tuple(a + b for a, b in zip(main, kick)))
                elif pairs:
                    free = [q for q in range(RANKS) if main[q] == 0]
                    for qs in itertools.combinations(free, pairs * n):
                        m = list(main)
                        for q in qs:
                            m[q] = 2
                        cands.add(tuple(m))
                else:
                    cands.add(tuple(main))
    by_size: Dict[int, list] = {}
    for m in cands:
        rd = classic_readings(m)
        if rd:
            by_size.setdefault(sum(m), []).append((m, rd))
    return {s: (np.array([m for m, _ in rows], dtype=np.int8), [rd for _, rd in rows])
            for s, rows in by_size.items()}


# ---------------------------------------------------------------------------
# Readings
# ---------------------------------------------------------------------------

def _split(cards, t, g):
    cards = tuple(cards)
    assert len(cards) == NUM_CARDS
    if cards[W]:
        raise ValueError("tiandi has no W card")
    l = cards[t] + cards[g]
    nat = list(cards[:_TYPES])
    nat[t] = nat[g] = 0
    return cards, tuple(nat), l


def _face_value(cards, t, g) -> Dict[Identity, Set[Assignment]]:
    out: Dict[Identity, Set[Assignment]] = {}
    self_assignment = tuple(cards[:RANKS])      # each laizi stands for itself
    for kind, r, n in classic_readings(tuple(cards[:_TYPES])):
        if kind != "BOMB":                      # four laizi are never a BOMB
            out.setdefault((kind, r, n, cards), set()).add(self_assignment)
    if 4 <= sum(cards) <= 8:
        r = max(q for q in (t, g) if cards[q])
        out.setdefault(("LAIZI_BOMB", r, 1, cards), set()).add(self_assignment)
    return out


def _with_bombs(cards, nat, l, plain) -> Dict[Identity, Set[Assignment]]:
    """Collapse the classic readings ``plain`` ({(kind, r, n): assignments})
    of a set with natural cards into identities, with section 9's bombs."""
    out: Dict[Identity, Set[Assignment]] = {}
    for (kind, r, n), assignments in plain.items():
        if kind == "BOMB" and l:
            continue        # a four completed by laizi: SOFT_BOMB, below
        out[(kind, r, n, cards)] = set(assignments)
    total = sum(cards)
    if l and 4 <= total <= 12:
        # an assignment making every card one rank q: the laizi all stand
        # for q, and the natural cards are all of rank q
        for q in range(RANKS):
            if nat[q] + l == total:
                a = tuple(l if i == q else 0 for i in range(RANKS))
                out[("SOFT_BOMB", q, 1, cards)] = {a}
    return out


@functools.lru_cache(maxsize=None)
def _plain_by_table(nat: Tuple[int, ...], l: int):
    """{(kind, r, n): assignments} over every classic move containing the
    natural cards ``nat`` with ``l`` more cards of ranks 3..2."""
    total = sum(nat) + l
    table = classic_table()
    if total not in table:
        return {}
    arr, rds = table[total]
    natv = np.array(nat, dtype=np.int8)
    ok = np.all(arr[:, :RANKS] >= natv[:RANKS], axis=1) \
        & (arr[:, X] == natv[X]) & (arr[:, D] == natv[D])
    out: Dict[Tuple[str, int, int], Set[Assignment]] = {}
    for i in np.nonzero(ok)[0]:
        a = tuple(int(x) for x in arr[i, :RANKS] - natv[:RANKS])
        for key in rds[i]:
            out.setdefault(key, set()).add(a)
    return out


def _assignments(l) -> Iterator[Assignment]:
    """Every multiset of ``l`` ranks 3..2 (what ``l`` laizi stand for)."""
    for combo in itertools.combinations_with_replacement(range(RANKS), l):
        a = [0] * RANKS
        for q in combo:
            a[q] += 1
        yield tuple(a)


def readings_literal(cards, T, G) -> Dict[Identity, FrozenSet[Assignment]]:
    """Every assignment of the laizi, one by one, then the classic classifier
    of the substituted cards (slow: C(l + 12, 12) assignments)."""
    t, g = wild_pair(T, G)
    cards, nat, l = _split(cards, t, g)
    if sum(cards) == 0:
        return {}
    if sum(nat) == 0:
        return {m: frozenset(a) for m, a in _face_value(cards, t, g).items()}
    plain: Dict[Tuple[str, int, int], Set[Assignment]] = {}
    for a in _assignments(l):
        m = tuple(nat[i] + (a[i] if i < RANKS else 0) for i in range(_TYPES))
        for key in classic_readings(m):
            plain.setdefault(key, set()).add(a)
    return {m: frozenset(a) for m, a in _with_bombs(cards, nat, l, plain).items()}


def readings(cards, T, G) -> Dict[Identity, FrozenSet[Assignment]]:
    """Every identity of exactly ``cards``, with the assignments giving it
    (the assignments walked through the classic-move table)."""
    t, g = wild_pair(T, G)
    cards, nat, l = _split(cards, t, g)
    if sum(cards) == 0:
        return {}
    if sum(nat) == 0:
        return {m: frozenset(a) for m, a in _face_value(cards, t, g).items()}
    if sum(cards) > TABLE_MAX_CARDS:
        raise ValueError(f"more than {TABLE_MAX_CARDS} cards: use readings_literal")
    plain = _plain_by_table(nat, l)
    return {m: frozenset(a) for m, a in _with_bombs(cards, nat, l, plain).items()}


def classify(cards, T, G) -> Set[Identity]:
    return set(readings(cards, T, G))


# ---------------------------------------------------------------------------
# Tiers as arithmetic; beating; legal moves
# ---------------------------------------------------------------------------

def tier_number(m: Identity) -> int:
    """0 for plain moves. Bombs: a SOFT_BOMB of s cards sits just below the
    LAIZI_BOMB of s cards for s = 5..8; the SOFT_BOMB of 4 below the BOMB
    (2), the mixed (3) and pure (4) LAIZI_BOMBs of 4; SOFT_BOMBs of 9..12
    above every LAIZI_BOMB; the ROCKET on top (17)."""
    kind, s = m[0], sum(m[3])
    if kind == "ROCKET":
        return 17
    if kind == "BOMB":
        return 2
    if kind == "SOFT_BOMB":
        return 1 if s == 4 else 2 * s - 5 if s <= 8 else s + 4
    if kind == "LAIZI_BOMB":
        if s == 4:
            return 4 if sum(1 for c in m[3] if c) == 1 else 3
        return 2 * s - 4
    return 0


def beats(m: Identity, p: Identity) -> bool:
    if m[0] == "PASS":
        return False
    tm, tp = tier_number(m), tier_number(p)
    if tm != tp:
        return tm > tp
    if tm == 0:
        return m[0] == p[0] and m[2] == p[2] and m[1] > p[1]
    ranked = tm in (1, 2, 4) or m[0] == "SOFT_BOMB"   # by r: soft, hard, pure 4
    return ranked and m[1] > p[1]


def all_moves(counts, T, G) -> Set[Identity]:
    out: Set[Identity] = set()
    for sub in itertools.product(*[range(c + 1) for c in counts]):
        out |= set(readings(sub, T, G))
    return out


def legal_moves(counts, last: Optional[Identity], T, G) -> Set[Identity]:
    moves = all_moves(tuple(counts), T, G)
    if last is None:
        return moves
    return {PASS} | {m for m in moves if beats(m, last)}


__all__ = ["all_moves", "beats", "classic_readings", "classic_table",
           "classify", "legal_moves", "readings", "readings_literal",
           "tier_number", "wild_pair"]
