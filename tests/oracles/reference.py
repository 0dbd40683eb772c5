"""Slow, obvious, pure-Python reference of RULES.md (legal moves of Dou Dizhu).

Independent of the fast core: nothing here imports ``ddzfast``.

Conventions
-----------
* Card indices 0..14 are ``3 4 5 6 7 8 9 T J Q K A 2 X D``; 15 is ``W`` (the
  wildcard). A hand, or any multiset of cards, is a tuple of 16 counts.
* A move identity is ``(kind, r, n, counts)`` exactly as RULES.md "Identity of
  a move": ``kind`` is a name of RULES.md section 3, ``r`` the main rank as a
  card index (lowest rank of a chain; 13 for the rockets; 0 for PASS), ``n`` the
  chain length (1 when not a chain, 0 for PASS) and ``counts`` the 16 counts of
  the physical cards that leave the hand (W counted as W).
* Rule sets are named ``"classic"``, ``"biegang"`` and ``"super"``.

How it works
------------
``classify(cards, rules)`` lists every reading of exactly these cards as one
move, kind by kind, straight from the definitions of RULES.md: a main part
(n consecutive ranks with k cards each, W possibly completing one of them)
plus kickers (single kickers: any remaining cards; pair kickers: pairs of
distinct ranks 3..2, a W pair being one natural card + W), none of a main-part
rank. ``legal_moves`` enumerates every sub-multiset of the hand and classifies
it, then filters with ``beats``.
"""

from __future__ import annotations

import functools
import itertools
from typing import Dict, Iterator, List, NamedTuple, Optional, Set, Tuple

Counts = Tuple[int, ...]  # 16 counts
Identity = Tuple[str, int, int, Counts]  # (kind, r, n, counts)

CARD_CHARS = "3456789TJQKA2XDW"
NUM_CARDS = 16
TWO, X, D, W = 12, 13, 14, 15
LAST_CHAIN_RANK = 11  # A: chains use ranks 3..A only
MAX_COPIES = (4,) * 13 + (1, 1, 1)
NO_WILD = 255  # wild_of() when no W is played

EMPTY: Counts = (0,) * NUM_CARDS
PASS: Identity = ("PASS", 0, 0, EMPTY)

KINDS = (
    "PASS", "SINGLE", "PAIR", "TRIPLE", "TRIPLE_SINGLE", "TRIPLE_PAIR",
    "STRAIGHT", "PAIR_STRAIGHT", "PLANE", "PLANE_SINGLES", "PLANE_PAIRS",
    "FOUR_SINGLES", "FOUR_PAIRS", "BOMB", "ROCKET", "WILD_ROCKET",
    "HEAVEN_ROCKET", "HEAVEN_BOMB", "SUPER_BOMB",
)


class RuleSet(NamedTuple):
    name: str
    wildcard: bool          # the deck has W
    pair_kickers: bool      # TRIPLE_PAIR, PLANE_PAIRS, FOUR_PAIRS exist
    tiers: Dict[str, int]   # bomb-tier kinds -> tier (plain moves are tier 0)


RULE_SETS: Dict[str, RuleSet] = {
    "classic": RuleSet("classic", False, True, {"ROCKET": 2, "BOMB": 1}),
    "biegang": RuleSet("biegang", True, True, {
        "HEAVEN_ROCKET": 3, "HEAVEN_BOMB": 3, "WILD_ROCKET": 3,
        "ROCKET": 2, "BOMB": 1}),
    "super": RuleSet("super", True, False, {
        "SUPER_BOMB": 3, "ROCKET": 2, "BOMB": 1}),
}

# Bomb tiers whose moves are ordered by rank (RULES.md 4.2).
RANKED_BOMB_KINDS = ("BOMB", "SUPER_BOMB")


def _rule_set(rules) -> RuleSet:
    if isinstance(rules, RuleSet):
        return rules
    try:
        return RULE_SETS[rules]
    except KeyError:
        raise ValueError(f"unknown rule set {rules!r}") from None


# ---------------------------------------------------------------------------
# Text
# ---------------------------------------------------------------------------

def parse_cards(text: str) -> Counts:
    """Card text -> 16 counts. Accepts ``10`` for ``T``, lower case, and
    ignores spaces and ``+`` (so ``"333444+8W"`` works)."""
    counts = [0] * NUM_CARDS
    s = text.upper().replace("10", "T")
    for ch in s:
        if ch in " +":
            continue
        i = CARD_CHARS.find(ch)
        if i < 0:
            raise ValueError(f"bad card {ch!r} in {text!r}")
        counts[i] += 1
    for i, c in enumerate(counts):
        if c > MAX_COPIES[i]:
            raise ValueError(f"too many {CARD_CHARS[i]} in {text!r}")
    return tuple(counts)


def cards_text(counts) -> str:
    """16 counts -> canonical text, low to high, W last."""
    return "".join(CARD_CHARS[i] * c for i, c in enumerate(counts))


def parse_last(text: str) -> Optional[Identity]:
    """Perft last-move field: ``-`` (leading) or ``KIND/r/n/cards`` with ``r``
    a card character (``3``..``2``, ``X``)."""
    text = text.strip()
    if text == "-":
        return None
    kind, r, n, cards = text.split("/")
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}")
    r_idx = CARD_CHARS.find(r.upper().replace("10", "T"))
    if r_idx < 0 or len(r.replace("10", "T")) != 1:
        raise ValueError(f"bad rank {r!r}")
    return (kind, r_idx, int(n), parse_cards(cards))


def move_text(m: Identity) -> str:
    """Identity -> ``KIND/r/n/cards`` (r as a card character)."""
    kind, r, n, counts = m
    return f"{kind}/{CARD_CHARS[r]}/{n}/{cards_text(counts)}"


# ---------------------------------------------------------------------------
# Classification of one multiset of cards
# ---------------------------------------------------------------------------

def _main_parts(nat, w, k, n, has_kickers):
    """Every way to take a main part of ``n`` consecutive ranks with ``k``
    cards each out of the natural cards ``nat`` (15 counts) and ``w`` W's.

    n == 1: one rank of ``3..2``; n > 1: a chain in ``3..A``. W may complete
    exactly one missing card of one rank (W never stands for a joker outside
    rockets, in any rule set). Yields ``(r, wild, rest, rest_w)``: ``wild`` is
    the rank W completes (None if W is not in the main part), ``rest`` the
    natural cards left over (15 counts), ``rest_w`` the W's left over.
    """
    top = TWO if n == 1 else LAST_CHAIN_RANK
    for r in _starts(nat, k, n, has_kickers):
        if r + n - 1 > top:
            continue
        ranks = range(r, r + n)
        if any(nat[q] < k - 1 for q in ranks):
            continue  # even W cannot complete this rank
        short = [q for q in ranks if nat[q] < k]
        rest = list(nat)
        for q in ranks:
            rest[q] -= min(k, nat[q])
        if not short:
            yield r, None, rest, w
        elif len(short) == 1 and w == 1:
            yield r, short[0], rest, 0


def _starts(nat, k, n, has_kickers):
    """Candidate lowest ranks r of a main part (a speed-up only: every r
    that _main_parts could accept is among them)."""
    if not has_kickers:
        # The main part is all the natural cards: r is the lowest natural
        # rank, or one below it when W completes rank r.
        lo = next((q for q in range(TWO + 1) if nat[q]), None)
        if lo is None:
            return ()
        return (lo - 1, lo) if lo > 0 else (lo,)
    # Kicker kinds have k >= 3: the lowest main rank holds >= k - 1 cards.
    return [q for q in range(TWO + 1) if nat[q] >= k - 1]


def _single_kickers_ok(rest, rest_w, r, n, m):
    """``m`` single kickers: any cards, none of a main-part rank."""
    if any(rest[q] for q in range(r, r + n)):
        return False
    return sum(rest) + rest_w == m


def _pair_kickers_ok(rest, rest_w, r, n, m):
    """``m`` pair kickers of different ranks ``3..2``, none of a main-part
    rank; W completes one natural card into a pair."""
    if any(rest[q] for q in range(r, r + n)):
        return False
    if rest[X] or rest[D]:
        return False  # jokers never pair (not even with W)
    pairs = sum(1 for q in range(TWO + 1) if rest[q] == 2)
    halves = sum(1 for q in range(TWO + 1) if rest[q] == 1)
    others = sum(1 for q in range(TWO + 1) if rest[q] not in (0, 1, 2))
    if others or halves != rest_w:
        return False
    return pairs + halves == m


# (kind, k cards per rank, kicker style, kickers per chain rank)
_MAIN_KINDS = (
    ("PAIR", 2, None, 0),
    ("TRIPLE", 3, None, 0),
    ("BOMB", 4, None, 0),
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
_CHAIN_KINDS = {"STRAIGHT": 5, "PAIR_STRAIGHT": 3, "PLANE": 2,
                "PLANE_SINGLES": 2, "PLANE_PAIRS": 2}  # minimum n


def _chain_length(kind, k, kick_style, per_rank, total):
    """The n for which this kind has ``total`` cards, or None."""
    if kick_style == "pair":
        per_rank_cards = k + 2 * per_rank
    else:
        per_rank_cards = k + per_rank
    if kind in _CHAIN_KINDS:
        if total % per_rank_cards:
            return None
        n = total // per_rank_cards
        if n < _CHAIN_KINDS[kind] or (kind == "STRAIGHT" and n > 12):
            return None
        return n
    return 1 if total == per_rank_cards else None


@functools.lru_cache(maxsize=None)
def _main_kinds_of_size(total, pair_kickers):
    """The main-part kinds (with their n) that play ``total`` cards."""
    out = []
    for kind, k, kick_style, per_rank in _MAIN_KINDS:
        if kick_style == "pair" and not pair_kickers:
            continue
        n = _chain_length(kind, k, kick_style, per_rank, total)
        if n is not None:
            out.append((kind, k, kick_style, per_rank, n))
    return tuple(out)


def readings(cards, rules) -> List[Tuple[Identity, int]]:
    """Every reading of exactly ``cards`` as one move: a list of
    ``(identity, wild)`` with ``wild`` as in :func:`wild_of`."""
    rs = _rule_set(rules)
    cards = tuple(cards)
    assert len(cards) == NUM_CARDS
    nat, w = cards[:W], cards[W]
    if w and not rs.wildcard:
        raise ValueError(f"{rs.name} has no wildcard")
    total = sum(cards)
    out: List[Tuple[Identity, int]] = []

    def add(kind, r, n, wild):
        out.append(((kind, r, n, cards), NO_WILD if wild is None else wild))

    if total == 0:
        return out  # PASS is not a reading of cards; it is added by legal_moves

    # SINGLE: one natural card 3..D (never W alone).
    if total == 1 and not w:
        add("SINGLE", nat.index(1), 1, None)

    # Rockets and the wildcard bombs.
    jokers = nat[X] + nat[D]
    others = total - jokers - w
    if others == 0:
        if total == 2 and jokers == 2:
            add("ROCKET", X, 1, None)
        if total == 2 and jokers == 1 and w == 1:
            if rs.name == "super":  # W as the other joker
                add("ROCKET", X, 1, D if nat[X] else X)
            elif rs.name == "biegang":
                add("WILD_ROCKET", X, 1, W)
        if total == 3 and jokers == 2 and w == 1 and rs.name == "biegang":
            add("HEAVEN_ROCKET", X, 1, W)
    if total == 5 and w == 1 and 4 in nat[:TWO + 1]:
        if rs.name == "biegang":
            add("HEAVEN_BOMB", nat.index(4), 1, W)
        elif rs.name == "super":
            add("SUPER_BOMB", nat.index(4), 1, W)

    # Everything with a main part (+ kickers).
    for kind, k, kick_style, per_rank, n in _main_kinds_of_size(
            total, rs.pair_kickers):
        for r, wild, rest, rest_w in _main_parts(nat, w, k, n,
                                                 kick_style is not None):
            if kick_style is None:
                ok = sum(rest) == 0 and rest_w == 0
            elif kick_style == "single":
                ok = _single_kickers_ok(rest, rest_w, r, n, per_rank * n)
            else:
                ok = _pair_kickers_ok(rest, rest_w, r, n, per_rank * n)
            if ok:
                if wild is None and w:
                    wild = W  # W is played as a kicker
                add(kind, r, n, wild)
    return out


def classify(cards, rules) -> Set[Identity]:
    """Every move identity that plays exactly ``cards`` (16 counts)."""
    rd = readings(cards, rules)
    ids = [m for m, _ in rd]
    # RULES.md: each identity has exactly one reading.
    assert len(set(ids)) == len(ids), f"ambiguous readings {rd}"
    return set(ids)


def wild_of(identity: Identity, rules) -> int:
    """The card index W stands for in this move: the main-part rank it
    completes (0..12); 15 when W is a kicker or plays as itself (WILD_ROCKET,
    HEAVEN_ROCKET, HEAVEN_BOMB, SUPER_BOMB); in super's ROCKET the other
    joker (X+W: 14, D+W: 13); 255 when no W is played."""
    kind, r, n, counts = identity
    identity = (kind, r, n, tuple(counts))
    if kind == "PASS":
        return NO_WILD
    found = [wild for m, wild in readings(identity[3], rules) if m == identity]
    assert len(found) == 1, f"{identity} has {len(found)} readings"
    return found[0]


# ---------------------------------------------------------------------------
# Beating and legal moves
# ---------------------------------------------------------------------------

def tier(m: Identity, rules) -> int:
    return _rule_set(rules).tiers.get(m[0], 0)


def beats(m: Identity, p: Identity, rules) -> bool:
    """RULES.md section 4: does ``m`` beat the last non-pass move ``p``?"""
    if m[0] == "PASS":
        return False
    tm, tp = tier(m, rules), tier(p, rules)
    if tm != tp:
        return tm > tp
    if tm > 0:  # same bomb tier
        return m[0] in RANKED_BOMB_KINDS and p[0] in RANKED_BOMB_KINDS \
            and m[1] > p[1]
    return m[0] == p[0] and m[2] == p[2] and m[1] > p[1]


def sub_multisets(counts) -> Iterator[Counts]:
    """Every sub-multiset of ``counts`` (the empty one included)."""
    return itertools.product(*[range(c + 1) for c in counts])


def all_moves(counts, rules) -> Set[Identity]:
    """Every non-pass move playable from the hand ``counts``."""
    out: Set[Identity] = set()
    for sub in sub_multisets(counts):
        out |= classify(sub, rules)
    return out


def legal_moves(counts, last: Optional[Identity], rules) -> Set[Identity]:
    """Legal moves of a hand. ``last`` is None when leading, else the last
    non-pass move to beat. Leading: every move but PASS (a hand of only W:
    just PASS). Following: PASS plus every move that beats ``last``."""
    counts = tuple(counts)
    _rule_set(rules)
    moves = all_moves(counts, rules)
    if last is None:
        return moves if moves else {PASS}
    return {PASS} | {m for m in moves if beats(m, last, rules)}
