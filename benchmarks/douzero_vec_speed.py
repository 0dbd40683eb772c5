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
Median of R rounds of about S seconds, the configurations timed in turn
round by round; printed with the ratio to ``Env`` (the median of the
rounds' ratios; the issue's goal is 10) for each ``VecEnv`` form: the
default (float32 ``x_batch`` and ``z_batch``, equal row for row to
``Env``'s), ``z_batch=False`` (no repeated ``z``), ``x_batch=False`` (only
each candidate's 54 action columns, the rest per deal in ``x_no_action``
and ``z``), each in float32 and in ``dtype="int8"``.
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import time

import numpy as np

from ddzfast.compat.douzero import Env, VecEnv
from _args import at_least, positive_seconds  # noqa: E402


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


FORMS = [("VecEnv", {}),
         ("VecEnv(z_batch=False)", dict(z_batch=False)),
         ("VecEnv(z_batch=False, x_batch=False)", dict(z_batch=False, x_batch=False)),
         ("VecEnv(dtype=int8)", dict(dtype="int8")),
         ("VecEnv(z_batch=False, dtype=int8)", dict(z_batch=False, dtype="int8")),
         ("VecEnv(z_batch=False, x_batch=False, dtype=int8)",
          dict(z_batch=False, x_batch=False, dtype="int8"))]


def vec_runner(args, form):
    """A function timing one round of VecEnv(**form): decisions/s."""
    vec = VecEnv(args.envs, "adp", seed=1, **form)
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
    p.add_argument("--envs", type=at_least(1), default=256)
    p.add_argument("--rounds", type=at_least(1), default=5)
    p.add_argument("--seconds", type=positive_seconds, default=1.0)
    args = p.parse_args(argv)
    print(f"envs={args.envs} rounds={args.rounds} x {args.seconds} s; load average "
          f"{os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    runners = [env_runner(args)] + [vec_runner(args, form) for _, form in FORMS]
    # rounds interleaved, so that each ratio compares rates measured a few
    # seconds apart on a machine whose load drifts
    rates = [[] for _ in runners]
    for _ in range(args.rounds):
        for k, one_round in enumerate(runners):
            rates[k].append(one_round())
    print(f"{'compat.douzero.Env':50} {statistics.median(rates[0]):12,.0f} decisions/s")
    for k, (label, _) in enumerate(FORMS, 1):
        ratio = statistics.median(v / e for v, e in zip(rates[k], rates[0]))
        print(f"{'compat.douzero.' + label:50} {statistics.median(rates[k]):12,.0f} "
              f"decisions/s  ({ratio:.1f} x Env; goal 10)")
    print(f"load average at the end {os.getloadavg()[0]:.2f}")

if __name__ == "__main__":
    main()
