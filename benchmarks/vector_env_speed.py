#!/usr/bin/env python
"""Steps per second of ddzfast.env.VectorEnv against doudizhu_v0's raw_env,
in one run.

    python benchmarks/vector_env_speed.py [--envs N] [--rounds R] [--seconds S]
                                          [--rules RULES]

Each configuration is timed for R rounds of about S seconds each, the
rounds of all configurations interleaved (round 1 of each, then round 2,
...), and the median round is reported; the ratio to raw_env is the median
of the rounds' ratios, each against raw_env's round of the same pass. A VectorEnv step is one ``step(actions)`` call
over N deals and counts N steps; the actions are random legal actions
chosen from ``legal_indices`` in NumPy (one uniform draw per row over its
CSR range), the cost of choosing them included. Configurations:

* ``self-play float32``: ``seat=None``, float32 observations, no mask, on
  1 and 2 threads;
* ``mask=bits``: the same with the bit-packed mask, 1 thread;
* ``opponents greedy``: ``seat=0``, ``opponents=("greedy", "greedy")``, 1
  thread (a step is one learner decision, the opponents' moves inside);
* the peer, ``raw_env``: doudizhu_v0's AEC loop, one deal at a time from
  Python, the action drawn from ``legal_actions()`` (its fastest use), on
  one core; every ``step`` call counts, as PettingZoo counts them.

Printed: the median steps/s of each and its ratio to raw_env's. The issue's
goals (1,000,000 steps/s on 2 threads, 8 times raw_env per core; bits
400,000 per thread; greedy opponents 250,000 per thread) are printed next
to them. Threads share the machine with whatever else runs on it: read
the 2-thread figure with the load in mind (``os.getloadavg()`` is printed).
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import time

import numpy as np

from ddzfast.env import VectorEnv, doudizhu_v0
from _args import at_least, positive_seconds  # noqa: E402


def vector_runner(args, threads=1, mask=None, seat=None):
    """A function timing one round of the configuration: steps/s."""
    opponents = ("greedy", "greedy") if seat is not None else None
    env = VectorEnv(args.envs, args.rules, seat=seat, opponents=opponents, seed=1,
                    threads=threads, mask=mask)
    env.reset()
    rng = np.random.default_rng(0)
    n = env.num_envs

    def one_round():
        steps = 0
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < args.seconds:
            off = env.legal_offsets
            pick = off[:-1] + (rng.random(n) * np.diff(off)).astype(np.int64)
            env.step(env.legal_indices[pick].astype(np.int32))
            steps += n
        return steps / (time.perf_counter() - t0)
    return one_round


def raw_env_runner(args):
    """A function timing one round of raw_env: steps/s."""
    env = doudizhu_v0.raw_env(args.rules)
    rng = random.Random(1)
    env.reset(seed=1)

    def one_round():
        steps = 0
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < args.seconds:
            for _agent in env.agent_iter():
                _obs, _r, term, trunc, _info = env.last()
                if term or trunc:
                    action = None
                else:
                    legal = env.legal_actions()
                    action = int(legal[rng.randrange(len(legal))])
                env.step(action)
                steps += 1
            env.reset()
        return steps / (time.perf_counter() - t0)
    return one_round


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--envs", type=at_least(1), default=1024)
    p.add_argument("--rounds", type=at_least(1), default=5)
    p.add_argument("--seconds", type=positive_seconds, default=1.0)
    p.add_argument("--rules", default="classic")
    args = p.parse_args(argv)
    print(f"rules={args.rules} envs={args.envs} rounds={args.rounds} x {args.seconds} s; "
          f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    configs = [("raw_env (peer, 1 core)", raw_env_runner(args), 1, None)]
    for label, kw, per, goal in [
            ("self-play float32, 1 thread", {}, 1, None),
            ("self-play float32, 2 threads", {"threads": 2}, 2, 1_000_000),
            ("mask=bits, 1 thread", {"mask": "bits"}, 1, 400_000),
            ("opponents greedy, 1 thread", {"seat": 0}, 1, 250_000)]:
        configs.append((label, vector_runner(args, **kw), per, goal))
    # rounds interleaved, so that each ratio compares rates measured a few
    # seconds apart on a machine whose load drifts
    rates = [[] for _ in configs]
    for _ in range(args.rounds):
        for k, (_label, one_round, _per, _goal) in enumerate(configs):
            rates[k].append(one_round())
    raw = rates[0]
    print(f"{'configuration':32} {'steps/s':>12} {'per thread':>12} {'x raw_env/core':>15}"
          f" {'goal':>10}")
    for (label, _run, per, goal), rs in zip(configs, rates):
        rate = statistics.median(rs)
        ratio = statistics.median(r / per / w for r, w in zip(rs, raw))
        print(f"{label:32} {rate:12,.0f} {rate / per:12,.0f} {ratio:15.1f}"
              f" {'' if goal is None else f'{goal:,}':>10}")


if __name__ == "__main__":
    main()
