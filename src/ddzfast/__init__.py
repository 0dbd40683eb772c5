"""ddzfast: fast, exact legal-move generation for Dou Dizhu.

See README.md for the quick start; RULES.md (shipped with the project) is the
normative description of the three rule sets "classic", "biegang" and "super".
"""
from ddzfast.movekind import MoveKind
from ddzfast.rulesets import RULE_SETS
from ddzfast._core import (
    CARD_CHARS,
    MOVE_DTYPE,
    RULES,
    Hand,
    Move,
    MoveList,
    Rules,
    beats,
    classify,
    get_rules,
    legal_moves,
    legal_moves_into,
    play,
)

__version__ = "0.1.0"

__all__ = [
    "CARD_CHARS", "MOVE_DTYPE", "RULES", "RULE_SETS", "Hand", "Move", "MoveKind",
    "MoveList", "Rules", "beats", "classify", "get_rules", "legal_moves",
    "legal_moves_into", "play",
]
