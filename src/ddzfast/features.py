"""Fixed-width numeric encodings for learning agents, and a fixed action index
per rule set.

Encodings (vectorised over any number of hands or moves):

* ``encode_hands(hands) -> uint8 array (N, 61)``: for each packed hand, a 4x15
  count plane flattened row by row (``plane[j, i] = 1`` when the hand holds more
  than ``j`` cards of index ``i``). The jokers use row 0 only, so 54 of the 60
  cells carry information: the same features as DouZero's 54-dimension
  encoding, in another order. Then one wildcard channel (the number of W, 0
  or 1).
* ``encode_moves(moves) -> uint8 array (N, 77)``: the same 61 features of a
  move's physical cards, then a one-hot of 16 for what W stands for (columns
  61 + 0..14: the card index W completes; 61 + 15: W is a kicker or plays as
  itself; all zero when no W is played).
* ``decode_hands(features)`` turns either encoding's first 61 columns back into
  packed hands.

The action index gives every move identity that a hand of the rule set can
make (PASS included, at most 20 cards in ``classic`` and 21 in the wildcard
sets) one integer, stable for a given ddzfast version: ``action_moves(rules)``
lists them in index order (PASS is 0), ``action_index(moves, rules)`` maps
moves to indices and ``legal_action_mask(moves, rules)`` marks them in a
boolean vector of ``action_count(rules)``.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from ddzfast._core import MOVE_DTYPE, Hand, get_rules, legal_moves

HAND_FEATURES = 61
MOVE_FEATURES = 77
MAX_HAND = {False: 20, True: 21}   # cards in a landlord's hand, by wildcard deck

_SHIFTS = np.arange(16, dtype=np.uint64) * np.uint64(4)
_ROWS = np.arange(4, dtype=np.uint8)


def _counts(packed: np.ndarray) -> np.ndarray:
    return ((packed[:, None] >> _SHIFTS) & np.uint64(15)).astype(np.uint8)


def _as_packed(hands) -> np.ndarray:
    if isinstance(hands, (Hand, int, np.integer)):
        hands = [hands]
    arr = np.asarray([int(h) for h in hands] if not isinstance(hands, np.ndarray)
                     else hands)
    if arr.dtype.kind not in "iu" and arr.size:
        raise TypeError(f"hands must be packed integers or Hands, not {arr.dtype}")
    if arr.ndim != 1:
        raise ValueError(f"hands must be 1-d, not of shape {arr.shape}")
    if arr.dtype.kind == "i" and arr.size and arr.min() < 0:
        raise ValueError("a packed hand is never negative")
    return arr.astype(np.uint64, copy=False)


def _encode_cards(packed: np.ndarray) -> np.ndarray:
    counts = _counts(packed)
    if counts.size and (counts[:, :13].max() > 4 or counts[:, 13:].max() > 1):
        raise ValueError("a hand holds more copies of a card than a deck has")
    planes = (counts[:, None, :15] > _ROWS[None, :, None]).astype(np.uint8)
    out = np.empty((len(packed), HAND_FEATURES), dtype=np.uint8)
    out[:, :60] = planes.reshape(len(packed), 60)
    out[:, 60] = counts[:, 15]
    return out


def encode_hands(hands) -> np.ndarray:
    """(N, 61) uint8 features of packed hands (an int array, ints or Hands)."""
    return _encode_cards(_as_packed(hands))


def encode_moves(moves) -> np.ndarray:
    """(N, 77) uint8 features of a MOVE_DTYPE array (or a MoveList)."""
    arr = _as_moves(moves)
    out = np.zeros((len(arr), MOVE_FEATURES), dtype=np.uint8)
    out[:, :HAND_FEATURES] = _encode_cards(arr["cards"])
    wild = arr["wild"].astype(np.int64)
    has = wild < 16
    out[np.nonzero(has)[0], HAND_FEATURES + wild[has]] = 1
    return out


def decode_hands(features) -> np.ndarray:
    """Packed hands (uint64) from ``encode_hands``/``encode_moves`` rows."""
    f = np.asarray(features)
    if f.ndim != 2 or f.shape[1] < HAND_FEATURES:
        raise ValueError(f"features must be (N, >= {HAND_FEATURES}), not {f.shape}")
    counts = f[:, :60].reshape(len(f), 4, 15).sum(axis=1).astype(np.uint64)
    packed = (counts << _SHIFTS[:15]).sum(axis=1, dtype=np.uint64)
    return packed + (f[:, 60].astype(np.uint64) << np.uint64(60))


def _as_moves(moves) -> np.ndarray:
    arr = moves.array if hasattr(moves, "array") else np.asarray(moves)
    if arr.dtype != MOVE_DTYPE:
        raise TypeError(f"moves must be MOVE_DTYPE, not {arr.dtype}")
    return arr.reshape(-1)


def _keys(arr: np.ndarray) -> np.ndarray:
    """One uint64 per move identity: 3 bits per rank count, 1 per X, D, W,
    then kind, rank and length (55 bits in all)."""
    counts = _counts(arr["cards"]).astype(np.uint64)
    if counts.size and (counts[:, :13].max() > 4 or counts[:, 13:].max() > 1):
        raise ValueError("a move holds more copies of a card than a deck has")
    shifts = np.concatenate([np.arange(13) * 3, [39, 40, 41]]).astype(np.uint64)
    key = (counts << shifts).sum(axis=1, dtype=np.uint64)
    key |= arr["kind"].astype(np.uint64) << np.uint64(42)
    key |= arr["rank"].astype(np.uint64) << np.uint64(47)
    key |= arr["length"].astype(np.uint64) << np.uint64(51)
    return key


@lru_cache(maxsize=None)
def _action_table(rules):
    deck = "3456789TJQKA2" * 4 + "XD" + ("W" if rules.wildcard else "")
    every = legal_moves(deck, None, rules).array
    sizes = _counts(every["cards"]).sum(axis=1)
    playable = every[sizes <= MAX_HAND[rules.wildcard]]
    pass_row = np.zeros(1, dtype=MOVE_DTYPE)
    pass_row["wild"] = 255
    moves = np.concatenate([pass_row, playable])
    keys = _keys(moves)
    order = np.argsort(keys, kind="stable")
    moves = moves[order]
    keys = keys[order]
    # PASS's key is 0, the smallest: it lands at index 0.
    moves.flags.writeable = False
    keys.flags.writeable = False
    return moves, keys


def action_moves(rules="classic") -> np.ndarray:
    """Every action of the rule set as a read-only MOVE_DTYPE array, in index
    order (index 0 is PASS). Built once per rule set (about a second for the
    wildcard sets)."""
    return _action_table(get_rules(rules))[0]


def action_count(rules="classic") -> int:
    """How many actions the rule set has."""
    return len(_action_table(get_rules(rules))[1])


def action_index(moves, rules="classic") -> np.ndarray:
    """The action index (int64) of each move; ValueError for a move that is no
    action of the rule set."""
    arr = _as_moves(moves)
    keys = _action_table(get_rules(rules))[1]
    k = _keys(arr)
    idx = np.searchsorted(keys, k)
    idx_c = np.minimum(idx, len(keys) - 1)
    bad = keys[idx_c] != k
    if bad.any():
        i = int(np.nonzero(bad)[0][0])
        raise ValueError(f"moves[{i}] {arr[i]} is not an action of {get_rules(rules).name!r}")
    return idx.astype(np.int64)


def legal_action_mask(moves, rules="classic") -> np.ndarray:
    """A boolean vector of ``action_count(rules)``, True at the actions of
    ``moves`` (for example a MoveList from ``legal_moves``)."""
    mask = np.zeros(action_count(rules), dtype=bool)
    mask[action_index(moves, rules)] = True
    return mask
