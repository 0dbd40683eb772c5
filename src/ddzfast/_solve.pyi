"""Type stubs of ddzfast._solve (the endgame solver)."""
from typing import Sequence

import numpy as np

from ddzfast._core import CardsLike, Move, MoveLike, RulesLike

def _solve(hands: Sequence[CardsLike], rules: RulesLike, to_move: int,
           last: MoveLike | None, last_seat: int | None, landlord: int | None,
           all_moves: bool, max_nodes: int | None, seconds: float | None,
           table_bits: int = 21) -> tuple[bool | None, Move | None,
                                          tuple[Move, ...] | None, tuple[Move, ...],
                                          int, float, int]: ...
def _solve_pext(use: bool | None = None) -> bool: ...
def _solve_scratch_epochs(epoch: int, gen_epoch: int) -> None: ...
def _sorted_desc(keys: object) -> np.ndarray: ...
