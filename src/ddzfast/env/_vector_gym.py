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

Seeds: the rows share one run of deals (VectorEnv's design: deal ``d`` of
the run seeded ``s`` is ``Game(rules, deal_seed(s, d), ...)``), so
``reset(seed=...)`` seeds the run, not each row apart. An int ``s`` is the
run ``s``. A list of one seed per row, as Gymnasium's vector API passes
them: ``[s, s + 1, ..., s + num_envs - 1]``, which Gymnasium reads as the
int ``s``, is the run ``s``; any other list of ints seeds a run mixed from
all of them (``numpy.random.SeedSequence``), so every row's deals depend on
the whole list; a list of Nones is no seed. A list of another length, or
one that seeds some rows and not others (ints and Nones), is a ValueError.
"""
from __future__ import annotations

import numbers

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector import VectorEnv as _GymVectorEnv
from gymnasium.vector.utils import batch_space

from ddzfast._engine import OBSERVATION_HIGH, OBSERVATION_SIZE
from ddzfast._readonly import read_only
from ddzfast._vector import VectorEnv
from ddzfast.env._table import check_no_options
from ddzfast.simulate import check_seed

__all__ = ["GymVectorEnv", "observation_space", "learner_seat"]


def learner_seat(seat) -> int:
    """The adapters' learner seat: an int 0..2 (self-play, None, has no
    single agent to reward)."""
    if seat is None:
        raise ValueError("the Gymnasium and Stable-Baselines3 adapters train one seat: "
                         "pass seat=0..2 (seat=None is VectorEnv's self-play)")
    return seat


def run_seed(seed, num_envs: int):
    """The run seed (an int, or None) of a Gymnasium ``reset(seed=...)``: None,
    an int, or a list of one int (or None) per row; see the module
    docstring."""
    if seed is None or (isinstance(seed, numbers.Integral) and not isinstance(seed, bool)):
        return seed
    if isinstance(seed, np.ndarray):
        seed = seed.tolist()
    if not isinstance(seed, (list, tuple)):
        raise TypeError(f"seed must be None, an int or a list of one int per row, not "
                        f"{type(seed).__name__}")
    if len(seed) != num_envs:
        raise ValueError(f"a list of seeds has one per row: {num_envs}, not {len(seed)}")
    for i, s in enumerate(seed):
        if s is not None and (isinstance(s, bool) or not isinstance(s, numbers.Integral)):
            raise TypeError(f"seed[{i}] must be an int or None, not {type(s).__name__}")
    if all(s is None for s in seed):
        return None
    if any(s is None for s in seed):
        raise ValueError("seed holds ints and Nones: the rows share one run of deals, "
                         "so they are seeded all together or not at all")
    seeds = [check_seed(s) for s in seed]
    if seeds == list(range(seeds[0], seeds[0] + num_envs)):
        return seeds[0]      # Gymnasium's own expansion of the int seeds[0]
    return int(np.random.SeedSequence(seeds).generate_state(1, np.uint64)[0])


def refuse_copy(adapter):
    """An adapter's ``__reduce__``: its VectorEnv's refusal (a TypeError), for
    pickle, copy and deepcopy alike (a shallow copy would share its rows)."""
    return adapter.venv.__reduce__()


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
    the arguments are VectorEnv's (``seat`` the learner's, 0 by default, never
    None: there is one learner). See the module
    docstring. ``venv`` is the underlying VectorEnv.

    ``render_mode`` and ``illegal_reward``, which ``gymnasium.make_vec``
    passes on from the one-seat environment's arguments, are taken only as
    None: these rows do not render, and an illegal action is a ValueError,
    not a reward (both come with ``vectorization_mode="sync"``)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, num_envs, rules="classic", bidding=False, seat=0, opponents=None,
                 seed=None, threads=1, obs_dtype="float32", mask=None, render_mode=None,
                 illegal_reward=None):
        if render_mode is not None:
            raise ValueError(f"GymVectorEnv does not render (render_mode {render_mode!r}): "
                             f"gymnasium.make_vec(..., vectorization_mode='sync') steps "
                             f"one-seat environments that do")
        if illegal_reward is not None:
            raise ValueError(f"GymVectorEnv has no illegal_reward ({illegal_reward!r}): an "
                             f"illegal action is a ValueError naming its row (choose from "
                             f"action_masks()); gymnasium.make_vec(..., "
                             f"vectorization_mode='sync') steps one-seat environments "
                             f"that end the deal with illegal_reward")
        self.venv = VectorEnv(num_envs, rules, bidding=bidding, seat=learner_seat(seat),
                              opponents=opponents, seed=seed, threads=threads,
                              obs_dtype=obs_dtype, mask=mask)
        self.num_envs = self.venv.num_envs
        self.seat = self.venv.seat
        self.single_observation_space = observation_space(self.venv)
        self.single_action_space = spaces.Discrete(self.venv.action_count)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._truncated = read_only(np.zeros(self.num_envs, dtype=np.bool_))

    def __reduce__(self):
        return refuse_copy(self)

    def reset(self, *, seed=None, options=None):
        """Deal num_envs new deals (``seed``: an int starts that run at deal 0,
        as VectorEnv.reset; a list of one int per row, as Gymnasium passes
        them, seeds one run for all rows: see the module docstring).
        Returns (obs, {})."""
        seed = run_seed(seed, self.num_envs)
        check_no_options(options)
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
