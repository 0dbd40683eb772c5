"""Type stubs of ddzfast._vector (many deals stepped in C; public face:
ddzfast.env.VectorEnv)."""
from typing import Sequence

import numpy as np
import numpy.typing as npt

from ddzfast._core import Rules, RulesLike
from ddzfast.constants import BID_ACTIONS as BID_ACTIONS, CHOICE_ACTIONS as CHOICE_ACTIONS

MAX_ENVS: int
OBS_DTYPES: tuple[str, ...]
MASK_KINDS: tuple[str | None, ...]

def choice_actions(rules: Rules, bidding: bool) -> int: ...
def choice_action(choice: int, move_count: int, doubling: bool) -> int: ...
def action_choice(action: int, move_count: int, choice_count: int, doubling: bool) -> int: ...

class VectorEnv:
    num_envs: int
    rules: Rules
    bidding: bool
    seat: int | None
    opponents: tuple[str, ...]
    threads: int
    obs_dtype: str
    action_count: int
    next_deal: int
    def __init__(self, num_envs: int, rules: RulesLike = "classic", bidding: bool = False,
                 seat: int | None = None, opponents: str | Sequence[str] | None = None,
                 seed: int | None = None, threads: int = 1,
                 obs_dtype: npt.DTypeLike = "float32",
                 mask: str | None = None) -> None: ...
    @property
    def obs(self) -> npt.NDArray[np.float32] | npt.NDArray[np.uint8]: ...
    @property
    def to_move(self) -> npt.NDArray[np.int32]: ...
    @property
    def rewards(self) -> npt.NDArray[np.float64]: ...
    @property
    def terminated(self) -> npt.NDArray[np.bool_]: ...
    @property
    def legal_offsets(self) -> npt.NDArray[np.int64]: ...
    @property
    def legal_indices(self) -> npt.NDArray[np.int32]: ...
    @property
    def mask(self) -> npt.NDArray[np.int8] | npt.NDArray[np.uint8] | None: ...
    @property
    def mask_kind(self) -> str | None: ...
    @property
    def deals(self) -> npt.NDArray[np.int64]: ...
    @property
    def seed(self) -> int | None: ...
    def reset(self, seed: int | None = None
              ) -> npt.NDArray[np.float32] | npt.NDArray[np.uint8]: ...
    def step(self, actions: npt.ArrayLike
             ) -> tuple[npt.NDArray[np.float32] | npt.NDArray[np.uint8],
                        npt.NDArray[np.float64], npt.NDArray[np.bool_]]: ...
