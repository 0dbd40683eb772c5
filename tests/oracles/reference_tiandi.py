"""Slow, obvious, pure-Python reference of RULES.md section 9 (``tiandi``).

Independent of the fast core: nothing here imports ``ddzfast``. It shares the
conventions of :mod:`reference` and :mod:`reference_laizi`:

* card indices 0..14 are ``3 4 5 6 7 8 9 T J Q K A 2 X D`` (15, ``W``, is never
  held: the deck is the 54 cards of ``classic``); a hand or any multiset of
  cards is a tuple of 16 counts;
* a move identity is ``(kind, r, n, counts)`` as in RULES.md section 3, with
  ``counts`` the physical cards leaving the hand (laizi under their own rank);
* the two wild ranks are the sky rank ``T`` and the ground rank ``G``, each a
  card index 0..12 or a card character ``"3".."2"``, ``T != G``; every card of
  either rank is a laizi, and the two ranks have the same powers (only a
  LAIZI_BOMB's ``r`` and purity look at which wild ranks its cards have).

What the laizi of a move stand for (the *substitutes*) is, as in
:mod:`reference_laizi`, a 13-tuple of counts over ranks ``3..2``: for every
main rank, the laizi that complete it (laizi completing a main rank that is a
wild rank stand for that rank and are counted there); a SOFT_BOMB's laizi all
stand for its rank; a move made only of laizi (face value, LAIZI_BOMBs
included) counts each laizi at its own rank; laizi kickers are not counted.
The counts follow from the identity; which physical laizi (of ``T`` or of
``G``) fill a rank does not, and is not part of them.

How it works
------------
``readings(cards, T, G)`` classifies exactly these cards, straight from
section 9:

* a move made only of laizi is read at face value: the cards' readings as
  natural cards under section 3 (the classic kinds, no wild card), except that
  four or more laizi are never a BOMB but one LAIZI_BOMB (sizes 4 to 8; ``r``
  the higher wild rank among its cards);
* otherwise (at least one natural card), as section 8 with "laizi" meaning a
  card of rank ``T`` or ``G``: for every kind with a main part of ``n``
  consecutive ranks of ``k`` cards each that plays this many cards, and every
  lowest rank ``r``: every natural card of a main rank must be in the main
  part (at most ``k`` of each), laizi fill the missing cards, and what is left
  must make the kickers (single kickers: any cards; pair kickers: pairs of
  distinct ranks ``3..2`` that are not main ranks, made of two natural cards,
  a natural card and a laizi, or two laizi standing for a free rank);
* the bombs are read by their cards: BOMB (four natural cards of a rank, no
  laizi), SOFT_BOMB (one to four natural cards of one rank and one or more
  laizi, 4 to 12 cards), ROCKET (X + D).

``legal_moves`` classifies every sub-multiset of a hand and filters with
``beats``, which follows the tier list of section 9 as written (the list
:data:`TIER_ORDER`). The second formulation, in
:mod:`reference_tiandi_assign`, reads the same cards through every assignment
of the laizi and the classic classifier, and writes the tiers as arithmetic.

How section 9 is read where it leaves room (the most literal reading each
time; every count of tests/perft/tiandi.txt and every move list of
tiandi-moves.json agree with it, so the perft files never had to decide)
-------------------------------------------------------------------------
* "What the laizi stand for follows from the identity" holds for the ranks
  they stand for (the 13 counts above), not for which physical laizi does:
  in ``337J`` (``T = 7, G = J``) read as TRIPLE_SINGLE r=3, either the 7 or
  the J completes the 3s and the other is the kicker. The substitutes here
  are therefore counts over ranks, not over the two wild ranks.
* A pure LAIZI_BOMB holds the four cards of one wild rank, so every
  LAIZI_BOMB of 5 to 8 cards is mixed, and by "mixed LAIZI_BOMBs of one size
  never beat each other" no LAIZI_BOMB of 5 or more cards beats another of
  its size.
* "Its readings are those of the same cards as natural cards under section
  3" is read as the classic kinds with no wildcard, kicker kinds included
  (``777J`` TRIPLE_SINGLE, ``777JJ`` TRIPLE_PAIR, ``7777JJ`` FOUR_SINGLES,
  ``777888`` a PLANE when the wild ranks are neighbours).
* A laizi in a main part may stand for any rank ``3..2``, the wild ranks
  included (``3777`` is a TRIPLE_SINGLE of every rank, ``r = J`` too).
* "Higher wild rank" is in card order (``2`` highest): with ``T = 2, G = 3``
  the LAIZI_BOMB ``3322`` has ``r = 2``.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Set, Tuple

from .reference import (  # shared conventions
    D, EMPTY, LAST_CHAIN_RANK, NUM_CARDS, PASS, TWO, W, X,
    cards_text, parse_cards,
)
# Section 9 builds on section 8: its main parts, kicker rules, identities
# and text forms are reference_laizi's. The second formulation
# (reference_tiandi_assign) shares none of them.
from .reference_laizi import (
    KINDS, NO_SUBST, RANKS, Identity, Subst, _kickers_ok, _kinds_of_size, move_text, parse_last, sub_multisets,
    subst_text, wild_index,
)

MAX_SOFT_BOMB = 12                # four natural cards + eight laizi
MAX_LAIZI_BOMB = 8                # the eight laizi of two wild ranks

BOMB_KINDS = ("SOFT_BOMB", "BOMB", "LAIZI_BOMB", "ROCKET")

# RULES.md section 9, "Tiers, low to high", as written: (kind, size, purity)
# with purity "pure"/"mixed" for the LAIZI_BOMBs of 4 cards, None otherwise.
# Plain moves are below the first entry.
TIER_ORDER = (
    ("SOFT_BOMB", 4, None), ("BOMB", 4, None),
    ("LAIZI_BOMB", 4, "mixed"), ("LAIZI_BOMB", 4, "pure"),
    ("SOFT_BOMB", 5, None), ("LAIZI_BOMB", 5, None),
    ("SOFT_BOMB", 6, None), ("LAIZI_BOMB", 6, None),
    ("SOFT_BOMB", 7, None), ("LAIZI_BOMB", 7, None),
    ("SOFT_BOMB", 8, None), ("LAIZI_BOMB", 8, None),
    ("SOFT_BOMB", 9, None), ("SOFT_BOMB", 10, None),
    ("SOFT_BOMB", 11, None), ("SOFT_BOMB", 12, None),
    ("ROCKET", 2, None),
)


def wild_pair(T, G) -> Tuple[int, int]:
    """(T, G) as card indices; both are needed and they must differ."""
    if T is None or G is None:
        raise ValueError("tiandi needs both wild ranks (sky and ground)")
    t, g = wild_index(T), wild_index(G)
    if t == g:
        raise ValueError("the sky and ground ranks must differ")
    return t, g


def _main_part_readings(nat, l):
    """(kind, r, n, need) of every main-part reading of the natural cards
    ``nat`` (15 counts) with ``l`` laizi: ``need`` is [(rank, laizi filling
    it)] over the main ranks."""
    total = sum(nat) + l
    present = [q for q in range(W) if nat[q]]
    out = []
    for kind, k, style, per, n in _kinds_of_size(total):
        top = TWO if n == 1 else LAST_CHAIN_RANK
        first, last = 0, top - n + 1
        if style is None and present:
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
                out.append((kind, r, n, list(zip(main, need))))
    return out


def _subst_at(pairs) -> Subst:
    s = [0] * RANKS
    for q, c in pairs:
        s[q] += c
    return tuple(s)


def laizi_bomb_rank(cards) -> int:
    """A LAIZI_BOMB's ``r``: the higher wild rank among its cards (the
    cards are all laizi, so every rank they hold is a wild rank)."""
    return max(q for q in range(RANKS) if cards[q])


def readings(cards, T, G) -> List[Tuple[Identity, Subst]]:
    """Every reading of exactly ``cards`` (16 counts) as one move under the
    wild ranks ``T`` and ``G``: a list of ``(identity, substitutes)``."""
    t, g = wild_pair(T, G)
    cards = tuple(cards)
    assert len(cards) == NUM_CARDS
    if cards[W]:
        raise ValueError("tiandi has no W card")
    total = sum(cards)
    if total == 0:
        return []   # PASS is added by legal_moves
    l = cards[t] + cards[g]            # the laizi
    nat = list(cards[:W])
    nat[t] = nat[g] = 0                # the natural (non-wild) cards
    natural_total = total - l
    out: List[Tuple[Identity, Subst]] = []

    if natural_total == 0:
        # Only laizi: face value, the cards' section 3 readings as natural
        # cards (no laizi), except that four or more are one LAIZI_BOMB.
        self_subst = tuple(cards[:RANKS])
        face = list(cards[:W])
        if total == 1:
            out.append((("SINGLE", face.index(1), 1, cards), self_subst))
        for kind, r, n, _ in _main_part_readings(face, 0):
            out.append(((kind, r, n, cards), self_subst))
        if 4 <= total <= MAX_LAIZI_BOMB:
            out.append((("LAIZI_BOMB", laizi_bomb_rank(cards), 1, cards), self_subst))
        return out

    if total == 1:
        out.append((("SINGLE", nat.index(1), 1, cards), NO_SUBST))
    if total == 2 and nat[X] and nat[D]:
        out.append((("ROCKET", X, 1, cards), NO_SUBST))
    ranks = [q for q in range(W) if nat[q]]
    if len(ranks) == 1 and ranks[0] < RANKS:
        q = ranks[0]
        if l == 0 and total == 4:
            out.append((("BOMB", q, 1, cards), NO_SUBST))
        if l >= 1 and 4 <= total <= MAX_SOFT_BOMB:
            out.append((("SOFT_BOMB", q, 1, cards), _subst_at([(q, l)])))
    for kind, r, n, need in _main_part_readings(nat, l):
        out.append(((kind, r, n, cards), _subst_at(need)))
    return out


def classify(cards, T, G) -> Set[Identity]:
    """Every move identity that plays exactly ``cards`` under ``T``, ``G``."""
    rd = readings(cards, T, G)
    ids = [m for m, _ in rd]
    assert len(set(ids)) == len(ids), f"identity read twice: {rd}"
    return set(ids)


def substitutes(identity: Identity, T, G) -> Subst:
    """What the laizi of a move stand for (13 counts over ranks 3..2; see the
    module docstring)."""
    kind, r, n, counts = identity
    if kind == "PASS":
        return NO_SUBST
    found = [s for m, s in readings(counts, T, G) if m == (kind, r, n, tuple(counts))]
    assert len(found) == 1, f"{identity} is not a move under T={T} G={G}"
    return found[0]


# ---------------------------------------------------------------------------
# Bomb sizes, purity, tiers; beating and legal moves
# ---------------------------------------------------------------------------

def size(m: Identity) -> int:
    """A move's number of cards (a bomb's size)."""
    return sum(m[3])


def is_pure(m: Identity) -> bool:
    """A LAIZI_BOMB is pure when all its cards are of one wild rank."""
    assert m[0] == "LAIZI_BOMB"
    return sum(1 for c in m[3] if c) == 1


def tier_key(m: Identity):
    """The entry of :data:`TIER_ORDER` of a bomb-tier move, None for a plain
    move (or PASS)."""
    kind = m[0]
    if kind not in BOMB_KINDS:
        return None
    purity = None
    if kind == "LAIZI_BOMB" and size(m) == 4:
        purity = "pure" if is_pure(m) else "mixed"
    return (kind, size(m), purity)


def tier(m: Identity) -> int:
    """0 for plain moves; 1 + the position in :data:`TIER_ORDER` for bombs."""
    key = tier_key(m)
    return 0 if key is None else 1 + TIER_ORDER.index(key)


def beats(m: Identity, p: Identity) -> bool:
    """Does ``m`` beat the last non-pass move ``p`` (section 9 tiers)?
    Within a tier, SOFT_BOMBs, BOMBs and pure LAIZI_BOMBs compare by ``r``;
    mixed LAIZI_BOMBs (every LAIZI_BOMB of 5 or more cards is mixed) and
    ROCKETs never beat each other; plain moves need the same kind and ``n``
    and a higher ``r``."""
    if m[0] == "PASS":
        return False
    tm, tp = tier(m), tier(p)
    if tm != tp:
        return tm > tp
    if tm > 0:
        if m[0] in ("SOFT_BOMB", "BOMB"):
            return m[1] > p[1]
        if m[0] == "LAIZI_BOMB" and is_pure(m) and is_pure(p):
            return m[1] > p[1]
        return False
    return m[0] == p[0] and m[2] == p[2] and m[1] > p[1]


def all_moves_subst(counts, T, G, sizes=None) -> Dict[Identity, Subst]:
    """Every non-pass move of the hand ``counts`` under ``T``, ``G`` (only
    moves of ``sizes`` cards, if given), with its substitutes."""
    wild_pair(T, G)
    out: Dict[Identity, Subst] = {}
    for sub in sub_multisets(counts):
        if sizes is None or sum(sub) in sizes:
            rd = readings(sub, T, G)
            assert len({m for m, _ in rd}) == len(rd), f"identity read twice: {rd}"
            out.update(rd)
    return out


def all_moves(counts, T, G) -> Set[Identity]:
    """Every non-pass move of the hand ``counts`` under ``T``, ``G``."""
    return set(all_moves_subst(counts, T, G))


def legal_moves_subst(counts, last: Optional[Identity], T, G) -> Dict[Identity, Subst]:
    """:func:`legal_moves` with each move's substitutes."""
    if last is None:
        return all_moves_subst(tuple(counts), T, G)
    # (speed-up only) a move that beats ``last`` has its kind and length, so
    # its card count, or is a bomb (4 to 12 cards) or the rocket (2)
    sizes = {size(last), 2} | set(range(4, MAX_SOFT_BOMB + 1))
    moves = all_moves_subst(tuple(counts), T, G, sizes)
    out = {m: s for m, s in moves.items() if beats(m, last)}
    out[PASS] = NO_SUBST
    return out


def legal_moves(counts, last: Optional[Identity], T, G) -> Set[Identity]:
    """Legal moves: leading (``last`` None) every move; following, PASS plus
    every move that beats ``last``."""
    return set(legal_moves_subst(counts, last, T, G))


__all__ = [
    "EMPTY", "KINDS", "PASS", "TIER_ORDER", "all_moves", "all_moves_subst",
    "beats", "cards_text", "classify", "is_pure", "laizi_bomb_rank",
    "legal_moves", "legal_moves_subst", "move_text", "parse_cards",
    "parse_last", "readings", "size", "subst_text", "substitutes", "tier",
    "tier_key", "wild_index", "wild_pair",
]
