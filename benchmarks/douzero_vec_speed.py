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
Median of R rounds of about S seconds; printed with the ratio (the issue's
goal is 10), and the same for ``VecEnv(z_batch=False)``, which writes
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


def time_env(args):
    env = Env("adp")
    rng = random.Random(1)
    np.random.seed(1)
    obs = env.reset()
    rates = []
    for _ in range(args.rounds):
        n = 0
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < args.seconds:
            obs, _reward, done, _ = env.step(rng.choice(obs["legal_actions"]))
            n += 1
            if done:
                obs = env.reset()
        rates.append(n / (time.perf_counter() - t0))
    return statistics.median(rates)


def time_vec(args, z_batch=True):
    vec = VecEnv(args.envs, "adp", seed=1, z_batch=z_batch)
    vec.reset()
    rng = np.random.default_rng(1)
    rates = []
    for _ in range(args.rounds):
        n = 0
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < args.seconds:
            vec.step((rng.random(args.envs) * vec.counts).astype(np.int64))
            n += args.envs
        rates.append(n / (time.perf_counter() - t0))
    return statistics.median(rates)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--envs", type=int, default=256)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--seconds", type=float, default=1.0)
    args = p.parse_args(argv)
    print(f"envs={args.envs} rounds={args.rounds} x {args.seconds} s; load average "
          f"{os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    env = time_env(args)
    vec = time_vec(args)
    bare = time_vec(args, z_batch=False)
    print(f"compat.douzero.Env                 {env:12,.0f} decisions/s")
    print(f"compat.douzero.VecEnv              {vec:12,.0f} decisions/s  "
          f"({vec / env:.1f} x Env; goal 10)")
    print(f"compat.douzero.VecEnv(z_batch=False) {bare:10,.0f} decisions/s  "
          f"({bare / env:.1f} x Env)")


if __name__ == "__main__":
    main()
