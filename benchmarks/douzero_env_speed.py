#!/usr/bin/env python
"""Time ddzfast.compat.douzero.Env against DouZero's own Env, side by side.

    python benchmarks/douzero_env_speed.py [--deals N] [--rounds R] [--seed S]
                                           [--policy random|first]

Both environments play the same deals (``np.random.seed(seed + i)`` before
each ``reset()``: both shuffle DouZero's deck from NumPy's global state) with
the same actions. The actions are recorded first, untimed, by playing
DouZero's environment with ``--policy`` (a seeded uniform choice among its
legal actions, or the first legal action); then each round times, for each
environment, ``reset()`` and every ``step(action)`` of every deal, replaying
those actions. A step includes its observation (DouZero's get_obs: x_batch,
z_batch, legal_actions, x_no_action, z), as in training.

DouZero is installed with ``pip install --no-deps douzero``: its environment
needs only numpy (torch is needed only by its training code).

Reported: median time per deal and per step over the rounds, deals and steps
per second, and the ratio DouZero time / ddzfast time (the goal is 10).
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import time

import numpy as np
from _args import at_least  # noqa: E402


def record(dz_env_cls, seeds, policy, objective):
    """Each deal's actions, chosen on DouZero's environment."""
    deals = []
    for seed in seeds:
        rng = random.Random(seed)
        np.random.seed(seed)
        env = dz_env_cls(objective)
        obs = env.reset()
        actions = []
        done = False
        while not done:
            legal = obs["legal_actions"]
            action = legal[0] if policy == "first" else rng.choice(legal)
            actions.append(action)
            obs, _, done, _ = env.step(action)
        deals.append(actions)
    return deals


def replay(env_cls, seeds, deals, objective):
    """Seconds to reset and play every deal; the landlord's rewards."""
    env = env_cls(objective)
    rewards = []
    t0 = time.perf_counter()
    for seed, actions in zip(seeds, deals):
        np.random.seed(seed)
        env.reset()
        for action in actions:
            _, reward, done, _ = env.step(list(action))
        rewards.append(reward)
    return time.perf_counter() - t0, rewards


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=at_least(1), default=100)
    ap.add_argument("--rounds", type=at_least(1), default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--policy", choices=("random", "first"), default="random")
    ap.add_argument("--objective", choices=("wp", "adp", "logadp"), default="adp")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args(argv)
    try:
        from douzero.env.env import Env as DouZeroEnv
    except ImportError as e:
        print(f"DouZero is not installed (pip install --no-deps douzero): {e}")
        return 1
    from ddzfast.compat.douzero import Env as DdzEnv

    seeds = [args.seed + i for i in range(args.deals)]
    deals = record(DouZeroEnv, seeds, args.policy, args.objective)
    steps = sum(len(d) for d in deals)
    times = {"douzero": [], "ddzfast": []}
    for _ in range(args.rounds):
        # alternate within a round so that both see the same machine state
        t_dz, r_dz = replay(DouZeroEnv, seeds, deals, args.objective)
        t_ddz, r_ddz = replay(DdzEnv, seeds, deals, args.objective)
        if r_dz != r_ddz:
            print("the two environments disagree on the rewards", file=sys.stderr)
            return 2
        times["douzero"].append(t_dz)
        times["ddzfast"].append(t_ddz)
    med = {k: statistics.median(v) for k, v in times.items()}
    ratio = med["douzero"] / med["ddzfast"]
    figures = {
        "deals": args.deals, "steps": steps, "rounds": args.rounds,
        "policy": args.policy, "objective": args.objective,
        "python": platform.python_version(),
        "median_s": med,
        "us_per_step": {k: 1e6 * v / steps for k, v in med.items()},
        "deals_per_s": {k: args.deals / v for k, v in med.items()},
        "steps_per_s": {k: steps / v for k, v in med.items()},
        "ratio": ratio,
    }
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    print(f"{args.deals} deals, {steps} steps ({steps / args.deals:.1f} per deal), "
          f"policy {args.policy}, objective {args.objective}, median of {args.rounds} rounds")
    print(f"{'env':<10} {'µs/step':>10} {'steps/s':>10} {'deals/s':>10}")
    for k in ("douzero", "ddzfast"):
        print(f"{k:<10} {figures['us_per_step'][k]:>10.1f} "
              f"{figures['steps_per_s'][k]:>10.0f} {figures['deals_per_s'][k]:>10.1f}")
    print(f"ratio DouZero / ddzfast: {ratio:.1f}x (goal: at least 10x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
