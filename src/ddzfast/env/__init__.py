"""Reinforcement-learning environments over ddzfast's Game (optional extra).

* ``ddzfast.env.doudizhu_v0``: a PettingZoo AEC environment for all three
  seats (``doudizhu_v0.env(rules="classic", bidding=False, render_mode=None)``
  and its unwrapped ``raw_env``).
* ``ddzfast.env.gym_env(rules="classic", seat=0, opponents=("greedy",
  "greedy"))``: a Gymnasium environment for one seat, the other two played
  by built-in policies or callables; ``action_masks()`` for sb3-contrib's
  MaskablePPO. Registered with Gymnasium as ``GYM_ID``
  (``"ddzfast/Doudizhu-v0"``): ``gymnasium.make(GYM_ID, rules=...)``,
  ``gymnasium.make("ddzfast.env:ddzfast/Doudizhu-v0")`` without importing
  this module first, and ``gymnasium.make_vec(GYM_ID, num_envs, ...)``,
  which makes a ``GymVectorEnv``.
* ``ddzfast.env.VectorEnv(num_envs, ...)``: many deals stepped together in
  C, without the GIL, writing observations, legal actions, rewards and masks
  into buffers it owns (see its docstring and docs/learning.md);
  ``GymVectorEnv`` is it as a Gymnasium vector environment, and
  ``ddzfast.env.sb3.SB3VecEnv`` as a Stable-Baselines3 VecEnv (that module
  alone imports stable-baselines3).

Both need ``pip install "ddzfast[env]"`` (pettingzoo and gymnasium); the rest
of ddzfast never imports them.
"""
from __future__ import annotations

from ddzfast.constants import broken_import

try:
    import gymnasium  # noqa: F401
    import pettingzoo  # noqa: F401
except ImportError as e:   # pragma: no cover - exercised without the extra
    raise ImportError(
        f"ddzfast.env needs pettingzoo and gymnasium, one of which is installed but "
        f"failed to import: {e}" if broken_import(e, "gymnasium", "pettingzoo") else
        f"ddzfast.env needs pettingzoo and gymnasium ({e.name or e} is missing): "
        f'pip install "ddzfast[env]"') from e
try:
    # GymVectorEnv steps with same-step autoreset, which Gymnasium names from 1.1 on
    from gymnasium.vector import AutoresetMode  # noqa: F401
except ImportError as e:   # pragma: no cover - exercised with an older gymnasium
    raise ImportError(
        f"ddzfast.env needs gymnasium 1.1 or later (this is "
        f"{getattr(gymnasium, '__version__', 'an older one')}, without "
        f'gymnasium.vector.AutoresetMode): pip install -U "ddzfast[env]"') from e

from ddzfast._vector import VectorEnv
from ddzfast.env import doudizhu_v0
from ddzfast.env._gym import GYM_ID, DoudizhuGymEnv, gym_env
from ddzfast.constants import BID_ACTIONS, CHOICE_ACTIONS
from ddzfast.env._table import PLAYERS
from ddzfast.env._vector_gym import GymVectorEnv

__all__ = ["doudizhu_v0", "gym_env", "DoudizhuGymEnv", "VectorEnv", "GymVectorEnv", "GYM_ID",
           "BID_ACTIONS", "CHOICE_ACTIONS", "PLAYERS"]

# (once: a module imported again must not re-register, which Gymnasium
# warns of)
if GYM_ID not in gymnasium.registry:
    gymnasium.register(GYM_ID, entry_point="ddzfast.env._gym:DoudizhuGymEnv",
                       vector_entry_point="ddzfast.env._vector_gym:GymVectorEnv")
