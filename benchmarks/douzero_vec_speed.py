#!/usr/bin/env python
"""Decisions per second of ddzfast.compat.douzero.VecEnv against
ddzfast.compat.douzero.Env, in one run.

    python benchmarks/douzero_vec_speed.py [--envs N] [--rounds R] [--seconds S]

A decision is one action of one deal with the observation of the next
position built (for ``Env``: ``step`` returning DouZero's observation dict,
``x_batch`` and ``z_batch`` included; for ``VecEnv``: every deal's
``x_batch``/``z_batch``/``x_no_action``/``z`` written into its buffers by
one ``step`` over N deals, which counts N decisions). Actions are uniform
random legal ones (``Env``: drawn from ``legal_actions`` with
``random.Random``; ``VecEnv``: one NumPy draw per row over its count).
Median of R rounds of about S seconds, the three timed in turn round by
round; printed with the ratio (the median of the rounds' ratios; the
issue's goal is 10), and the same for ``VecEnv(z_batch=False)``, which writes
``x_batch`` without DouZero's repeated ``z_batch``.
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import time

import numpy as np

from ddzfast.compat.douzero import Env, VecEnv


def env_runner(args):
    """A function timing one round of Env: decisions/s."""
    env = Env("adp")
    rng = random.Random(1)
    np.random.seed(1)
    state = {"obs": env.reset()}

    def one_round():
        n = 0
        obs = state["obs"]
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < args.seconds:
            obs, _reward, done, _ = env.step(rng.choice(obs["legal_actions"]))
            n += 1
            if done:
                obs = env.reset()
        state["obs"] = obs
        return n / (time.perf_counter() - t0)
    return one_round


def vec_runner(args, z_batch=True):
    """A function timing one round of VecEnv: decisions/s."""
    vec = VecEnv(args.envs, "adp", seed=1, z_batch=z_batch)
    vec.reset()
    rng = np.random.default_rng(1)

    def one_round():
        n = 0
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < args.seconds:
            vec.step((rng.random(args.envs) * vec.counts).astype(np.int64))
            n += args.envs
        return n / (time.perf_counter() - t0)
    return one_round


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--envs", type=int, default=256)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--seconds", type=float, default=1.0)
    args = p.parse_args(argv)
    print(f"envs={args.envs} rounds={args.rounds} x {args.seconds} s; load average "
          f"{os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    runners = [env_runner(args), vec_runner(args), vec_runner(args, z_batch=False)]
    # rounds interleaved, so that each ratio compares rates measured a few
    # seconds apart on a machine whose load drifts
    rates = [[] for _ in runners]
    for _ in range(args.rounds):
        for k, one_round in enumerate(runners):
            rates[k].append(one_round())
    env, vec, bare = (statistics.median(r) for r in rates)
    ratio = [statistics.median(v / e for v, e in zip(rates[k], rates[0])) for k in (1, 2)]
    print(f"compat.douzero.Env                 {env:12,.0f} decisions/s")
    print(f"compat.douzero.VecEnv              {vec:12,.0f} decisions/s  "
          f"({ratio[0]:.1f} x Env; goal 10)")
    print(f"compat.douzero.VecEnv(z_batch=False) {bare:10,.0f} decisions/s  "
          f"({ratio[1]:.1f} x Env)")


if __name__ == "__main__":
    main()
