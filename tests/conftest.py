"""Shared helpers: convert between the core's moves and the reference's
identities (kind name, r, n, 16 counts)."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

import ddzfast  # noqa: E402

RULE_NAMES = ("classic", "biegang", "super")
DECKS = {
    "classic": "3456789TJQKA2" * 4 + "XD",
    "biegang": "3456789TJQKA2" * 4 + "XDW",
    "super": "3456789TJQKA2" * 4 + "XDW",
}


def identity(move) -> tuple:
    """A core Move as the reference's identity."""
    return (move.kind.name, move.rank, move.length, move.cards.counts)


def core_move(ident) -> "ddzfast.Move":
    """A reference identity as a core Move."""
    kind, r, n, counts = ident
    packed = sum(c << (4 * i) for i, c in enumerate(counts))
    return ddzfast.Move(kind, r, n, packed)
