"""``SB3VecEnv``: ``VectorEnv`` as a Stable-Baselines3 ``VecEnv`` for one
learner seat, over the same buffers.

``pip install 'ddzfast[sb3]'`` (stable-baselines3, and sb3-contrib for
``MaskablePPO``);
ddzfast never imports them but here. ``action_masks()`` returns one
(num_envs, action_count) bool array in one call, and
``env_method("action_masks")`` (what sb3-contrib's ``MaskablePPO`` calls)
returns that same array, so masks are gathered without a call per
sub-environment. Rewards are the learner's scores (float32), ``dones`` the
rows whose deal ended; the ended deal's last observation is not kept
(``infos[i]`` holds no ``terminal_observation``: Dou Dizhu has no
truncation, so nothing bootstraps from it). Observations, rewards and
``dones`` are new arrays at every call, as SB3 expects of a VecEnv (its
algorithms keep the last observation across a step): VectorEnv's own
buffers are overwritten in place. An illegal action raises ValueError
naming the row and changes nothing.
"""
from __future__ import annotations

from ddzfast.constants import broken_import

try:
    from stable_baselines3.common.vec_env import VecEnv as _VecEnv
except ImportError as e:   # pragma: no cover - exercised without the package
    _broken = broken_import(e, "stable_baselines3")
    raise ImportError(
        f"ddzfast.env.sb3 needs stable-baselines3, {_broken}" if _broken else
        f"ddzfast.env.sb3 needs stable-baselines3 ({e.name or e} is "
        f"missing): pip install 'ddzfast[sb3]' (with sb3-contrib, for "
        f"MaskablePPO)") from e

import numpy as np
from gymnasium import spaces

from ddzfast._vector import VectorEnv
from ddzfast.env._table import check_no_options
from ddzfast.env._vector_gym import (action_masks, learner_seat, observation_space,
                                     refuse_copy)

__all__ = ["SB3VecEnv"]


class SB3VecEnv(_VecEnv):
    """``VectorEnv`` as an SB3 ``VecEnv``; the arguments are VectorEnv's
    (``seat`` the learner's, 0 by default, never None). ``venv`` is the
    underlying VectorEnv. See the module docstring."""

    def __init__(self, num_envs, rules="classic", bidding=False, seat=0, opponents=None,
                 seed=None, threads=1, obs_dtype="float32", mask=None):
        self.venv = VectorEnv(num_envs, rules, bidding=bidding, seat=learner_seat(seat),
                              opponents=opponents, seed=seed, threads=threads,
                              obs_dtype=obs_dtype, mask=mask)
        self.seat = self.venv.seat
        self.render_mode = None
        super().__init__(self.venv.num_envs, observation_space(self.venv),
                         spaces.Discrete(self.venv.action_count))
        self._actions = None

    def __reduce__(self):
        return refuse_copy(self)

    def reset(self):
        """New deals for every row (the seed of ``seed()``, when one was set,
        starts that run at deal 0); the observations."""
        check_no_options([o for o in self._options if o])
        seed = self._seeds[0] if self._seeds else None
        self.venv.reset(seed=seed)
        self._reset_seeds()
        self._reset_options()
        return self.venv.obs.copy()

    def step_async(self, actions):
        self._actions = np.asarray(actions)

    def step_wait(self):
        if self._actions is None:
            raise ValueError("step_wait without step_async")
        actions, self._actions = self._actions, None
        obs, rewards, terminated = self.venv.step(actions)
        return (obs.copy(), rewards[:, self.seat].astype(np.float32), terminated.copy(),
                [{} for _ in range(self.num_envs)])

    def action_masks(self) -> np.ndarray:
        """(num_envs, action_count) bool: every row's legal actions."""
        return action_masks(self.venv)

    def close(self):
        pass

    def _indices(self, indices):
        rows = list(range(self.num_envs)) if indices is None else \
            ([indices] if isinstance(indices, (int, np.integer)) else list(indices))
        for i in rows:
            if isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer)) \
                    or not 0 <= i < self.num_envs:
                raise ValueError(f"indices are rows 0..{self.num_envs - 1}, not {i!r}")
        return rows

    def get_attr(self, attr_name, indices=None):
        value = getattr(self, attr_name)
        return [value] * len(self._indices(indices))

    def set_attr(self, attr_name, value, indices=None):
        raise AttributeError(f"the rows of an SB3VecEnv share their attributes; "
                             f"{attr_name!r} cannot be set per row")

    def env_method(self, method_name, *method_args, indices=None, **method_kwargs):
        if method_name == "action_masks":
            masks = self.action_masks()
            if indices is None:
                return masks     # one array: np.stack keeps its rows
            return [masks[i] for i in self._indices(indices)]
        value = getattr(self, method_name)(*method_args, **method_kwargs)
        return [value] * len(self._indices(indices))

    def env_is_wrapped(self, wrapper_class, indices=None):
        return [False] * len(self._indices(indices))
