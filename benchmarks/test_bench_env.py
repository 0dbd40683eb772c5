"""pytest-benchmark suite for the learning environments (issue 9).

    python -m pytest benchmarks/test_bench_env.py --benchmark-only \
        --benchmark-group-by=group --benchmark-columns=median,mean,rounds

Steps per second are ``extra_info["steps"] / median``. One round plays
whole deals from ``reset(seed=1)`` until at least STEPS environment steps
(every ``step`` call counts, the three closing ``step(None)`` of a deal
included, as PettingZoo's own performance benchmark counts them), the same
deals every round. Every seat picks a uniformly random legal action with
``random.Random`` (seeded).

Group ``aec-<rules>``, the PettingZoo AEC environment ``doudizhu_v0``
(``env.last()`` builds the observation and the mask at every step):

* ``raw``: ``raw_env``, the action drawn from ``legal_actions()`` (the legal
  indices, computed in C);
* ``wrapped``: ``env()``, the same behind PettingZoo's
  OrderEnforcingWrapper;
* ``mask``: ``raw_env``, the action drawn from ``np.flatnonzero`` of the
  observation's ``action_mask``, what an agent that reads only the mask
  does (the scan of the 30,384-entry mask is the agent's cost, not the
  environment's, and dominates);
* ``game``: the floor without PettingZoo: the same deals through the Game
  API alone (``observation_tensor``, ``legal_action_mask``,
  ``legal_action_indices`` and ``play_action`` per move).

Group ``gym-<rules>``: ``gym_env`` with two greedy opponents, the learner
drawing from ``legal_actions()``; a step is one learner step (the
opponents' moves inside it).
"""
import random

import numpy as np
import pytest

pytest.importorskip("pettingzoo", reason='needs the env extra: pip install "ddzfast[env]"')
pytest.importorskip("gymnasium", reason='needs the env extra: pip install "ddzfast[env]"')

import ddzfast  # noqa: E402
from ddzfast import Game, action_count, deal_seed  # noqa: E402
from ddzfast.env import doudizhu_v0, gym_env  # noqa: E402

STEPS = 5000
RULES = ("classic", "super")


def _aec_steps(env, steps, use_mask):
    rng = random.Random(1)
    n = 0
    env.reset(seed=1)
    raw = env.unwrapped
    while True:
        for _agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            if term or trunc:
                action = None
            elif use_mask:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.randrange(len(legal))])
            else:
                legal = raw.legal_actions()
                action = int(legal[rng.randrange(len(legal))])
            env.step(action)
            n += 1
        if n >= steps:
            return n
        env.reset()


def _game_steps(rules, steps):
    # the environment's work per move, through the Game API alone
    r = ddzfast.get_rules(rules)
    mask = np.empty(action_count(r), dtype=np.int8)
    rng = random.Random(1)
    n = i = 0
    while True:
        game = Game(r, deal_seed(1, i), False, i % 3)
        i += 1
        while not game.done:
            game.observation_tensor(game.to_move)
            game.legal_action_mask(mask)
            legal = game.legal_action_indices()
            game.play_action(int(legal[rng.randrange(len(legal))]))
            n += 1
        if n >= steps:
            return n


@pytest.mark.parametrize("rules", RULES)
@pytest.mark.parametrize("variant", ["raw", "wrapped", "mask", "game"])
def test_aec_random_steps(benchmark, rules, variant):
    benchmark.group = f"aec-{rules}"
    if variant == "game":
        action_count(rules)         # build the action table outside the timing
        n = benchmark(_game_steps, rules, STEPS)
    else:
        make = doudizhu_v0.env if variant == "wrapped" else doudizhu_v0.raw_env
        env = make(rules)
        # the mask scan is slow: fewer steps keep the round short
        n = benchmark(_aec_steps, env, STEPS // 10 if variant == "mask" else STEPS,
                      variant == "mask")
    benchmark.extra_info["steps"] = n


def _gym_steps(env, steps):
    rng = random.Random(1)
    n = 0
    env.reset(seed=1)
    while True:
        done = False
        while not done:
            legal = env.legal_actions()
            _, _, done, _, _ = env.step(int(legal[rng.randrange(len(legal))]))
            n += 1
        if n >= steps:
            return n
        env.reset()


@pytest.mark.parametrize("rules", RULES)
def test_gym_steps(benchmark, rules):
    benchmark.group = f"gym-{rules}"
    env = gym_env(rules, 0, ("greedy", "greedy"))
    n = benchmark(_gym_steps, env, STEPS // 5)
    benchmark.extra_info["steps"] = n
