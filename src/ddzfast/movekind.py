"""The kinds of move of RULES.md sections 3, 8 and 9, with the core's numbering.

This is the one place the kinds are named and numbered: setup.py writes the
core's C enum (K_PASS = 0, ...) from MoveKind when the core is built.
Imports nothing of ddzfast, so setup.py can run it before the core exists."""
from enum import IntEnum


class MoveKind(IntEnum):
    """A move's kind. Values are the core's kind codes (the ``kind`` field of
    ``MOVE_DTYPE``); names are exactly those of RULES.md sections 3 and 8
    (SOFT_BOMB and LAIZI_BOMB: the ``laizi`` and ``tiandi`` rule sets)."""

    PASS = 0
    SINGLE = 1
    PAIR = 2
    TRIPLE = 3
    TRIPLE_SINGLE = 4
    TRIPLE_PAIR = 5
    STRAIGHT = 6
    PAIR_STRAIGHT = 7
    PLANE = 8
    PLANE_SINGLES = 9
    PLANE_PAIRS = 10
    FOUR_SINGLES = 11
    FOUR_PAIRS = 12
    BOMB = 13
    ROCKET = 14
    WILD_ROCKET = 15
    HEAVEN_ROCKET = 16
    HEAVEN_BOMB = 17
    SUPER_BOMB = 18
    SOFT_BOMB = 19      # laizi (RULES.md section 8): one to three natural + laizi;
                        # tiandi (section 9): one to four natural + laizi, 4-12 cards
    LAIZI_BOMB = 20     # laizi: the four laizi; tiandi: 4-8 laizi alone
