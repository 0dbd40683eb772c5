"""ddzfast: fast, exact legal-move generation for Dou Dizhu.

See README.md for the quick start and the docs site for the rest;
docs/RULES.md is the normative description of the rule sets.
"""
from ddzfast.movekind import MoveKind
from ddzfast.rulesets import RULE_SETS
from ddzfast.constants import CARD_LIMITS, MAX_HAND, MAX_THREADS, WILD_KICKER, WILD_NONE
from ddzfast.errors import IllegalMoveError, InvalidCardsError
from ddzfast._core import (CARD_CHARS, MOVE_BUFFER, MOVE_DTYPE, RULES, Hand, Move, MoveList,
                           Rules, beats, classify, get_rules, legal_action_indices,
                           legal_action_indices_batch, legal_action_indices_into,
                           legal_action_mask_batch, legal_action_mask_into, legal_moves,
                           legal_moves_batch, legal_moves_into, play)
from ddzfast._engine import (
    DEAL_DTYPE,
    HISTORY_MOVES,
    OBSERVATION_DTYPE,
    OBSERVATION_HIGH,
    OBSERVATION_LAYOUT,
    OBSERVATION_SIZE,
    Game,
    GameResult,
    Observation,
    ObservationBlock,
    deal_seed,
    observation_tensors,
)
from ddzfast._split import Split, min_plays, min_plays_batch, plays_left
from ddzfast.simulate import simulate
from ddzfast.solve import Solution, solve
from ddzfast.features import (
    HAND_FEATURES,
    MOVE_FEATURES,
    action_count,
    action_index,
    action_moves,
    decode_hands,
    encode_hands,
    encode_moves,
    legal_action_mask,
)

__version__ = "0.1.0"

__all__ = [
    "CARD_LIMITS", "MAX_HAND", "MOVE_BUFFER", "MAX_THREADS", "WILD_KICKER", "WILD_NONE",
    "IllegalMoveError", "InvalidCardsError", "CARD_CHARS", "MOVE_DTYPE", "RULES", "RULE_SETS", "Hand", "Move", "MoveKind",
    "MoveList", "Rules", "beats", "classify", "get_rules", "legal_moves",
    "legal_moves_into", "play", "legal_moves_batch", "HAND_FEATURES",
    "MOVE_FEATURES", "action_count", "action_index", "action_moves",
    "decode_hands", "encode_hands", "encode_moves", "legal_action_mask",
    "DEAL_DTYPE", "Game", "GameResult", "Observation", "deal_seed", "simulate",
    "Solution", "solve", "legal_action_indices", "legal_action_indices_into",
    "legal_action_mask_into", "legal_action_indices_batch", "legal_action_mask_batch",
    "HISTORY_MOVES", "OBSERVATION_DTYPE", "OBSERVATION_HIGH", "OBSERVATION_LAYOUT", "OBSERVATION_SIZE",
    "ObservationBlock", "observation_tensors", "Split", "min_plays", "min_plays_batch",
    "plays_left",
]
