"""``GymVectorEnv``: ``VectorEnv`` as a Gymnasium vector environment
(``gymnasium.vector.VectorEnv``), over the same buffers.

One learner seat (``seat=0..2``, the other seats played in C by built-in
``opponents``): Gymnasium's vector API is that of one agent. Same-step
autoreset (``metadata["autoreset_mode"]`` is ``AutoresetMode.SAME_STEP``):
the step that ends a deal returns its reward and ``terminated``, and that
row's observation is already the next deal's first; the ended deal's last
observation is not kept (``info`` holds no ``final_obs``: Dou Dizhu has no
truncation, so nothing bootstraps from it). Observations, rewards and
``terminated`` are the environment's own arrays (the reward a view of the
learner's column of ``rewards``), overwritten by the next step: copy what
must outlive it. An illegal action raises ValueError naming the row and
changes nothing (Gymnasium lets an agent send any action of the space;
sample legal ones with ``action_masks()`` or the CSR lists).
"""
from __future__ import annotations

import numbers

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector import VectorEnv as _GymVectorEnv
from gymnasium.vector.utils import batch_space

from ddzfast._engine import OBSERVATION_HIGH, OBSERVATION_SIZE
from ddzfast._vector import VectorEnv

__all__ = ["GymVectorEnv", "observation_space", "learner_seat"]


def learner_seat(seat) -> int:
    """The adapters' learner seat: an int 0..2 (self-play, None, has no
    single agent to reward)."""
    if seat is None:
        raise ValueError("the Gymnasium and Stable-Baselines3 adapters train one seat: "
                         "pass seat=0..2 (seat=None is VectorEnv's self-play)")
    return seat


def observation_space(venv: VectorEnv) -> spaces.Box:
    """One row's observation space: 0 .. OBSERVATION_HIGH, of the env's dtype
    (uint8: the bounds clipped to 255)."""
    if venv.obs_dtype == "uint8":
        high = np.minimum(OBSERVATION_HIGH, 255).astype(np.uint8)
        return spaces.Box(np.zeros(OBSERVATION_SIZE, np.uint8), high, dtype=np.uint8)
    return spaces.Box(np.zeros(OBSERVATION_SIZE, np.float32), OBSERVATION_HIGH.copy(),
                      dtype=np.float32)


def action_masks(venv: VectorEnv) -> np.ndarray:
    """The (num_envs, action_count) bool mask of every row's legal actions:
    a view of the env's dense mask (``mask="dense"``), else built from the
    CSR lists in one NumPy call."""
    dense = venv.mask
    if venv.mask_kind == "dense" and dense is not None:
        return dense.view(np.bool_)
    out = np.zeros((venv.num_envs, venv.action_count), dtype=np.bool_)
    counts = np.diff(venv.legal_offsets)
    out[np.repeat(np.arange(venv.num_envs), counts), venv.legal_indices] = True
    return out


class GymVectorEnv(_GymVectorEnv):
    """``VectorEnv`` as a ``gymnasium.vector.VectorEnv`` for one learner seat;
    the arguments are VectorEnv's (``seat`` required). See the module
    docstring. ``venv`` is the underlying VectorEnv."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, num_envs, rules="classic", bidding=False, seat=0, opponents=None,
                 seed=None, threads=1, obs_dtype="float32", mask=None):
        self.venv = VectorEnv(num_envs, rules, bidding=bidding, seat=learner_seat(seat),
                              opponents=opponents, seed=seed, threads=threads,
                              obs_dtype=obs_dtype, mask=mask)
        self.num_envs = self.venv.num_envs
        self.seat = self.venv.seat
        self.single_observation_space = observation_space(self.venv)
        self.single_action_space = spaces.Discrete(self.venv.action_count)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._truncated = np.zeros(self.num_envs, dtype=np.bool_)
        self._truncated.flags.writeable = False

    def reset(self, *, seed=None, options=None):
        """Deal num_envs new deals (``seed``: an int starts that run at deal 0,
        as VectorEnv.reset). Returns (obs, {})."""
        if seed is not None and not isinstance(seed, numbers.Integral):
            raise TypeError(f"seed must be None or an int (one run for every row), not "
                            f"{type(seed).__name__}")
        if options:
            raise ValueError(f"reset takes no options, not {options!r}")
        self.venv.reset(seed=seed)
        return self.venv.obs, {}

    def step(self, actions):
        """One action per row; returns (obs, reward, terminated, truncated,
        info): the learner's rewards, ``truncated`` always False."""
        obs, rewards, terminated = self.venv.step(actions)
        return obs, rewards[:, self.seat], terminated, self._truncated, {}

    def action_masks(self) -> np.ndarray:
        """(num_envs, action_count) bool: every row's legal actions."""
        return action_masks(self.venv)

    def close_extras(self, **kwargs):
        pass
