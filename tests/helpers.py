"""Helpers shared by the tests: the rule-set names and decks, and conversion
between the core's moves and the reference's identities (kind name, r, n,
16 counts)."""
import ddzfast
from ddzfast.constants import deck_text

RULE_NAMES = ("classic", "biegang", "super")
DECKS = {name: deck_text(ddzfast.get_rules(name).wildcard) for name in RULE_NAMES}


def identity(move) -> tuple:
    """A core Move as the reference's identity."""
    return (move.kind.name, move.rank, move.length, move.cards.counts)


def core_move(ident) -> "ddzfast.Move":
    """A reference identity as a core Move."""
    kind, r, n, counts = ident
    packed = sum(c << (4 * i) for i, c in enumerate(counts))
    return ddzfast.Move(kind, r, n, packed)
