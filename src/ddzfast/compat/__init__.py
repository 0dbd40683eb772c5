"""Adapters between ddzfast and other Dou Dizhu projects' conventions.

* ``ddzfast.compat.douzero``: DouZero's training environment as a drop-in
  (its ``Env``, legal actions and card lists); it imports nothing of DouZero.
* ``ddzfast.compat.rlcard``: RLCard's action ids to moves and back; it reads
  the id list from the installed ``rlcard`` (the ``ddzfast[rlcard]`` extra).

``import ddzfast`` imports neither.

Both are classic-only: laizi moves (a laizi kind, or a move whose
``substitutes`` are not empty: laizi of its main part standing for another
rank, and in ``tiandi`` also a move of laizi alone, which records each at its
own rank) and move lists of laizi rule sets are a ValueError there, since the
other project would read their cards as another move or none. RLCard's
ids are classic moves, so ``compat.rlcard`` takes a MoveList only of a rule
set that makes classic's moves (``classic+happy`` does).
"""
import numpy as np

from ddzfast._core import Move, MoveList
from ddzfast.features import _moves_key
from ddzfast.movekind import MoveKind


def _check_classic_list(moves: MoveList, target: str) -> None:
    """ValueError unless the MoveList ``moves`` is of a rule set that makes
    the classic moves (``classic`` or it with other scoring or platform
    options, e.g. ``classic+happy``); ``target`` names the project."""
    if _moves_key(moves.rules) != _moves_key("classic"):
        raise ValueError(f"{target} plays the classic rules; these are moves of "
                         f"{moves.rules!r}, which makes other moves")


def _reject_laizi(moves, target: str) -> None:
    """ValueError when ``moves`` (a Move, MoveList or MOVE_DTYPE rows) holds
    a laizi move or is a MoveList of a laizi rule set; ``target`` names the
    project in the message."""
    laizi_kinds = (int(MoveKind.SOFT_BOMB), int(MoveKind.LAIZI_BOMB))
    if isinstance(moves, MoveList) and moves.rules.laizi:
        raise ValueError(f"{target} plays the classic rules; these are moves of "
                         f"{moves.rules!r} (laizi moves have no {target} form)")
    if isinstance(moves, Move):
        if int(moves.kind) in laizi_kinds or int(moves.substitutes):
            raise ValueError(f"{moves} is a laizi move: {target} plays the classic "
                             f"rules")
        return
    if isinstance(moves, np.void):     # one row of a MOVE_DTYPE array
        moves = np.asarray(moves)
    if isinstance(moves, np.ndarray) and moves.dtype.names is not None \
            and "substitutes" in moves.dtype.names:
        rows = moves.reshape(-1)
        bad = (rows["substitutes"] != 0) | np.isin(rows["kind"], laizi_kinds)
        if bad.any():
            i = int(np.argmax(bad))
            raise ValueError(f"moves[{i}] (kind {int(rows[i]['kind'])}, cards "
                             f"{hex(int(rows[i]['cards']))}) is a laizi move: {target} "
                             f"plays the classic rules")
