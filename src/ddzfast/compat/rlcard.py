"""RLCard's Dou Dizhu action ids to ddzfast moves and back (classic rules).

RLCard (``rlcard.envs.doudizhu``) numbers its actions by the card string
each plays: id ``i`` is line ``i`` of its ``action_space.txt`` (27,472
entries in RLCard 1.2: ``'3'`` .. ``'BR'``, then ``'pass'``; B and R are
ddzfast's X and D). This module reads that list from the installed
``rlcard`` package when first needed, so the ids are always those of the
RLCard you run; install it with ``pip install "ddzfast[rlcard]"``.

* ``to_rlcard(moves)``: the RLCard id of a Move or MOVE_DTYPE row (an int),
  or of every row of a MOVE_DTYPE array or MoveList (an int64 array).
* ``from_rlcard(action_id, legal=None)``: the Move an id plays. With
  ``legal`` (the MoveList of the position, e.g. ``Game.legal_moves()``) the
  move among them; IllegalMoveError when none plays those cards.
* ``rlcard_moves(action_id)``: every classic move with the id's cards.
* ``action_to_rlcard()``: a lookup table over ddzfast's classic action index
  (``ddzfast.action_moves("classic")``): the RLCard id of each action, -1
  where RLCard has none; ``rlcard_to_actions(action_id)``: the other way,
  the action indices of an id's moves. ``unmappable_moves()`` lists the
  actions without an id.

What does not map. RLCard restricts kickers more than the classic rules
(RULES.md) do, so 2,894 of the 30,384 classic actions have no RLCard id and
``to_rlcard`` rejects them with a ValueError naming the move and the reason
(``unmappable_moves()`` lists them all):

* both jokers (X and D) as kickers of one move: the 13 four-with-two-singles
  ``nnnnXD`` (``3333XD`` .. ``2222XD``) and 1,476 planes with single kickers
  (``333444XD``, ``3334445556XD`` ...);
* four cards of one rank (a bomb) among a plane's single kickers: 657
  (``3334445556667777``);
* three cards of the rank just below or above a plane's chain among its
  single kickers (they would lengthen the plane): 748
  (``3334445556667778``), except the 18 whose cards are exactly a four-trio
  plane, which RLCard has under that plane's id.

Every RLCard id maps to at least one classic move.

Ids and moves are not one to one the other way: an RLCard id is a set of
cards, and nine card sets read as three moves each
(``333444555666`` .. ``JJJQQQKKKAAA``: a four-trio plane, or a three-trio
plane with the fourth trio's cards as its three kickers, either end).
Where several readings are legal (all three when leading; both three-trio
readings after a three-trio plane) ``from_rlcard`` returns the first in
``legal``'s order, and ``rlcard_moves`` gives them all. The other ids are
one move each.

The round trip: for every classic move RLCard has an id for,
``to_rlcard(m)`` is that id and ``m in rlcard_moves(to_rlcard(m))``; for
every id, ``to_rlcard`` of each of ``rlcard_moves(id)`` is ``id``.
"""
from __future__ import annotations

import importlib.util
import numbers
import os
import zipfile

from typing import Any, Optional, Union

import numpy as np
import numpy.typing as npt

from ddzfast._core import MOVE_DTYPE, Hand, Move, MoveList
from ddzfast._locks import ForkSafeLock
from ddzfast._readonly import read_only
from ddzfast.compat import _check_classic_list, _reject_laizi
from ddzfast.constants import IDX_D, IDX_X, folder_not_package
from ddzfast.errors import IllegalMoveError
from ddzfast.features import action_index, action_moves

__all__ = ["to_rlcard", "from_rlcard", "rlcard_moves", "rlcard_actions",
           "action_to_rlcard", "rlcard_to_actions", "unmappable_moves", "RULES"]

#: RLCard's Dou Dizhu plays the classic rules.
RULES = "classic"

# RLCard's card letters that ddzfast spells otherwise
_JOKERS = str.maketrans({"B": "X", "R": "D"})

_lock = ForkSafeLock()
_tables: dict[str, object] = {}


def _read_action_list() -> tuple[str, ...]:
    """RLCard's action strings in id order, from the installed package,
    without importing it (its import unpacks data files into site-packages)."""
    spec = importlib.util.find_spec("rlcard")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError('ddzfast.compat.rlcard reads the action ids from RLCard: '
                          'pip install "ddzfast[rlcard]"')
    if spec.origin is None:
        # a folder named rlcard on the path (a clone never installed)
        raise ImportError(folder_not_package("rlcard", "rlcard", "ddzfast.compat.rlcard",
                                             spec.submodule_search_locations))
    folder = os.path.join(list(spec.submodule_search_locations)[0], "games", "doudizhu")
    unpacked = os.path.join(folder, "jsondata", "action_space.txt")
    if os.path.isfile(unpacked):
        with open(unpacked, encoding="utf-8") as f:
            text = f.readline()
    else:
        with zipfile.ZipFile(os.path.join(folder, "jsondata.zip")) as z:
            text = z.read("jsondata/action_space.txt").decode("utf-8").split("\n", 1)[0]
    actions = tuple(text.split())
    if "pass" not in actions or len(set(actions)) != len(actions):
        raise RuntimeError(f"RLCard's action list in {folder} is not one this module "
                           f"knows (no 'pass', or repeated entries)")
    return actions


def _build() -> dict[str, object]:
    actions = _read_action_list()
    pass_id = actions.index("pass")
    by_cards: dict[int, int] = {}
    for i, text in enumerate(actions):
        if i != pass_id:
            by_cards[int(Hand(text.translate(_JOKERS), RULES))] = i
    table = action_moves(RULES)
    to_rl = np.fromiter((by_cards.get(int(c), -1) for c in table["cards"]),
                        dtype=np.int64, count=len(table))
    to_rl[0] = pass_id                      # action 0 is PASS (its cards are none)
    # every id's classic readings, as action indices in ascending order
    order = np.argsort(to_rl, kind="stable")
    ids_sorted = to_rl[order]
    starts = np.searchsorted(ids_sorted, np.arange(len(actions)), side="left")
    stops = np.searchsorted(ids_sorted, np.arange(len(actions)), side="right")
    empty = np.flatnonzero(stops == starts)
    if len(empty):
        raise RuntimeError(f"RLCard action {int(empty[0])} "
                           f"({actions[int(empty[0])]!r}) is no classic move of ddzfast")
    to_rl = read_only(to_rl)
    return {"actions": actions, "to_rl": to_rl, "order": order,
            "starts": starts, "stops": stops}


def _data() -> dict[str, object]:
    with _lock:
        if not _tables:
            _tables.update(_build())
        return _tables


def rlcard_actions() -> tuple[str, ...]:
    """RLCard's action strings in id order (RLCard's own card letters)."""
    return _data()["actions"]          # type: ignore[return-value]


def action_to_rlcard() -> np.ndarray:
    """The RLCard id of each classic action index (read-only int64 array of
    ``action_count("classic")``), -1 where RLCard has none."""
    return _data()["to_rl"]            # type: ignore[return-value]


def unmappable_moves() -> np.ndarray:
    """The classic actions RLCard has no id for (MOVE_DTYPE rows)."""
    return action_moves(RULES)[action_to_rlcard() < 0]


def _rows(moves: Any) -> tuple[np.ndarray, bool]:
    """MOVE_DTYPE rows of ``moves`` and whether one move was given."""
    if isinstance(moves, Move):
        return moves.array, True
    if isinstance(moves, MoveList):
        return moves.array, False
    arr = np.asarray(moves)
    if arr.dtype != MOVE_DTYPE:
        raise TypeError(f"moves must be a Move, a MoveList or MOVE_DTYPE rows, "
                        f"not {type(moves).__name__}")
    if arr.ndim > 1:
        # (as action_index: the ids would come back flattened)
        raise ValueError(f"moves must be 1-d (or one row), not of shape {arr.shape}")
    return arr.reshape(-1), arr.ndim == 0


def to_rlcard(moves: Union[Move, MoveList, np.void, npt.NDArray[np.void]]
              ) -> Union[int, npt.NDArray[np.int64]]:
    """The RLCard action id of a Move or MOVE_DTYPE row (an int), or of each
    move of a MoveList or MOVE_DTYPE array (int64 array). IllegalMoveError
    for a row that is no classic move; ValueError for a classic move RLCard
    has no id for (both jokers as kickers) and for laizi moves (RLCard plays
    the classic rules), and for a MoveList of a rule set that makes other
    moves than ``classic`` (its platform and scoring options aside)."""
    if isinstance(moves, MoveList):
        _check_classic_list(moves, "RLCard")
    _reject_laizi(moves, "RLCard")
    rows, one = _rows(moves)
    ids = action_to_rlcard()[action_index(rows, RULES)]
    bad = np.flatnonzero(ids < 0)
    if len(bad):
        row = rows[int(bad[0])]
        move = Move(int(row["kind"]), int(row["rank"]), int(row["length"]),
                    int(row["cards"]), rules=RULES)
        raise ValueError(f"RLCard has no action id for {move}: RLCard forbids "
                         f"{_why_unmappable(row)} (ddzfast.compat.rlcard."
                         f"unmappable_moves() lists the moves it has no id for)")
    return int(ids[0]) if one else ids


def _why_unmappable(row: np.void) -> str:
    """Which of RLCard's kicker restrictions a classic move breaks."""
    counts = [(int(row["cards"]) >> (4 * i)) & 15 for i in range(16)]
    if counts[IDX_X] and counts[IDX_D]:
        return "both jokers (X and D) as kickers of one move"
    rank, length = int(row["rank"]), int(row["length"])
    for i in range(rank, rank + length):
        counts[i] -= 3                 # the plane's trios; the rest are kickers
    if max(counts) == 4:
        return "four cards of one rank (a bomb) among a plane's kickers"
    return ("three cards of the rank next to a plane's chain among its kickers "
            "(they would lengthen the plane)")


def _check_id(action_id: Any) -> int:
    if isinstance(action_id, (bool, np.bool_)) or not isinstance(action_id, numbers.Integral):
        raise TypeError(f"an RLCard action id is an int, not "
                        f"{type(action_id).__name__} {action_id!r}")
    n = len(rlcard_actions())
    if not 0 <= int(action_id) < n:
        raise IndexError(f"RLCard action id {int(action_id)} is out of range 0..{n - 1}")
    return int(action_id)


def rlcard_to_actions(action_id: int) -> npt.NDArray[np.int64]:
    """The classic action indices (int64, ascending) of the moves that play
    RLCard action ``action_id``'s cards: one, or three for the nine
    four-trio card sets; ``[0]`` (PASS) for 'pass'."""
    data = _data()
    i = _check_id(action_id)
    start, stop = int(data["starts"][i]), int(data["stops"][i])    # type: ignore[index]
    return np.sort(data["order"][start:stop])                      # type: ignore[index]


def rlcard_moves(action_id: int) -> list[Move]:
    """Every classic move that plays RLCard action ``action_id``'s cards
    (one, or three for the nine four-trio card sets; ``[PASS]`` for 'pass'),
    in action-index order."""
    rows = action_moves(RULES)[rlcard_to_actions(action_id)]
    return [Move(int(r["kind"]), int(r["rank"]), int(r["length"]), int(r["cards"]), rules=RULES)
            for r in rows]


def from_rlcard(action_id: int, legal: Optional[MoveList] = None) -> Move:
    """The classic Move RLCard action ``action_id`` plays.

    Without ``legal``: the id's only reading; ValueError for the nine card
    sets with three readings (pass ``legal`` or use ``rlcard_moves``). With
    ``legal`` (a MoveList, e.g. ``Game.legal_moves()``): the first of its
    moves that plays those cards; IllegalMoveError when none does, and
    ValueError when ``legal`` is of a rule set that makes other moves than
    ``classic`` (its platform and scoring options aside, as ``to_rlcard``)."""
    readings = rlcard_moves(action_id)
    if legal is None:
        if len(readings) > 1:
            raise ValueError(f"RLCard action {action_id} ({rlcard_actions()[action_id]!r}) "
                             f"reads as {len(readings)} moves "
                             f"({', '.join(map(str, readings))}): pass the legal moves "
                             f"of the position to choose")
        return readings[0]
    if not isinstance(legal, MoveList):
        raise TypeError(f"legal must be a MoveList (Game.legal_moves()), not "
                        f"{type(legal).__name__}")
    _check_classic_list(legal, "RLCard")
    wanted = set(readings)
    for move in legal:
        if move in wanted:
            return move
    raise IllegalMoveError(f"RLCard action {action_id} ({rlcard_actions()[action_id]!r}) "
                           f"is not legal here: none of the {len(legal)} legal moves "
                           f"plays those cards")
