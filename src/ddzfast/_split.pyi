"""Type stubs of ddzfast._split (exact hand decomposition)."""
from typing import ClassVar, Iterable

import numpy as np
import numpy.typing as npt

from ddzfast._core import CardsLike, MoveLike, MoveList, RulesLike

class Split:
    count: int | None
    moves: MoveList
    def __init__(self, count: int | None, moves: MoveList) -> None: ...
    def __eq__(self, other: object, /) -> bool: ...
    __hash__: ClassVar[None]  # type: ignore[assignment]

def min_plays(hand: CardsLike, rules: RulesLike = "classic") -> Split: ...
def min_plays_batch(hands: npt.ArrayLike, rules: RulesLike = "classic",
                    threads: int = 1) -> np.ndarray: ...
def plays_left(hand: CardsLike, moves: MoveList | np.ndarray | Iterable[MoveLike],
               rules: RulesLike = "classic") -> np.ndarray: ...
def _set_max_work(work: int) -> int: ...
