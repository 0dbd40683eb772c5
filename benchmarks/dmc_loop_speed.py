#!/usr/bin/env python
"""Decisions per second of a Deep Monte Carlo loop: DouZero's own actor loop
against examples/train_dmc.py, with the same network, in one run.

    python benchmarks/dmc_loop_speed.py [--seconds S] [--envs N] [--rounds R]

Needs torch and the douzero package (``douzero.dmc`` imports gitpython for
its logs' metadata; without it an empty stand-in module is put in its
place). Every part runs on the CPU with
``torch.set_num_threads(1)`` and DouZero's network size (an LSTM of 128 over
``z``, five layers of 512), one after the other for about S seconds each (R rounds of them,
interleaved):

* ``douzero act, douzero Env``: DouZero's actor loop itself,
  ``douzero.dmc.utils.act`` (one deal, the model's forward pass on one
  decision's candidates, then ``Environment.step``, its buffers filled
  every ``unroll_length`` = 100 steps), on a thread, with a stand-in for the
  learner that hands the filled buffers straight back; decisions are
  counted at the model's forward pass (one a decision), the time in the
  environment around its ``reset`` and ``step``;
* ``douzero act, compat.douzero.Env``: the same loop with ddzfast's
  ``compat.douzero.Env`` in place of DouZero's (``create_env`` patched);
* ``train_dmc, actors only``: ``examples/train_dmc.py --lstm 128 --layers 5
  --hidden 512 --envs N --learner off``: the actors batched over N deals of
  ``compat.douzero.VecEnv``;
* ``train_dmc, learner inline (1 thread)``: the same learning, one Adam
  step per position for every 1,024 new targets of it, each target used
  once (``--batch 1024``, as DouZero's learner uses each sample once), the
  steps made between actor steps on the same thread;
* ``train_dmc, learner thread (2 threads)``: the same with the learner on
  a thread of its own, concurrent with the actors (``--learner thread``, as
  DouZero's learner runs beside its actors), ``torch.set_num_threads(1)``
  in each.

DouZero's actor loop is timed without its learner (which runs in other
threads or processes there); train_dmc's last two figures include it,
timed from the learner's first step (before it no deal has ended and the
actors run alone) to when it has made the steps queued.
Printed: decisions/s, the share in the environment (ddzfast's
``VecEnv.step`` for train_dmc), the share train_dmc's actors waited for the
learner, and the ratio to DouZero's actor loop (the issue's goal: 5 for
the whole loop).
"""
from __future__ import annotations

import argparse
import os
import pathlib
import queue
import re
import statistics
import subprocess
import sys
import threading
import time
import types
from _args import at_least, positive_seconds  # noqa: E402

SCRIPT = pathlib.Path(__file__).resolve().parent.parent / "examples" / "train_dmc.py"


def _import_dmc():
    # douzero.dmc imports gitpython for its log's metadata only (file_writer);
    # without it installed, an empty stand-in lets the actor code load
    try:
        import git  # noqa: F401
    except ImportError:
        sys.modules["git"] = types.ModuleType("git")
    from douzero.dmc import models, utils
    return models, utils


class _Stop(KeyboardInterrupt):
    """Raised inside the actor to end it (act returns on KeyboardInterrupt)."""


def time_douzero_act(seconds: float, env_factory) -> tuple[float, float]:
    """(decisions/s, share of the time in the environment) of DouZero's act."""
    models, utils = _import_dmc()

    flags = types.SimpleNamespace(unroll_length=100, num_buffers=8, objective="adp",
                                  exp_epsilon=0.01)
    buffers = utils.create_buffers(flags, ["cpu"])["cpu"]
    positions = ("landlord", "landlord_up", "landlord_down")
    free = {p: queue.Queue() for p in positions}
    full = {p: queue.Queue() for p in positions}
    for p in positions:
        for k in range(flags.num_buffers):
            free[p].put(k)
    model = models.Model(device="cpu")
    model.eval()
    stop = threading.Event()
    count = {"decisions": 0, "env": 0.0}
    forward = model.forward

    def counted_forward(*args, **kw):
        if stop.is_set():
            raise _Stop()
        count["decisions"] += 1
        return forward(*args, **kw)
    model.forward = counted_forward

    class TimedEnv:
        def __init__(self, env):
            self.env = env

        def reset(self):
            t = time.perf_counter()
            try:
                return self.env.reset()
            finally:
                count["env"] += time.perf_counter() - t

        def step(self, action):
            t = time.perf_counter()
            try:
                return self.env.step(action)
            finally:
                count["env"] += time.perf_counter() - t

    saved = utils.create_env
    utils.create_env = lambda flags: TimedEnv(env_factory(flags.objective))

    def recycle():
        while not stop.is_set():
            for p in positions:
                try:
                    free[p].put(full[p].get(timeout=0.01))
                except queue.Empty:
                    pass

    try:
        actor = threading.Thread(target=utils.act,
                                 args=(0, "cpu", free, full, model, buffers, flags))
        helper = threading.Thread(target=recycle)
        helper.start()
        actor.start()
        time.sleep(min(2.0, seconds / 10))              # past the start
        d0, e0, t0 = count["decisions"], count["env"], time.perf_counter()
        time.sleep(seconds)
        d1, e1, t1 = count["decisions"], count["env"], time.perf_counter()
        stop.set()
        actor.join()
        helper.join()
    finally:
        utils.create_env = saved
    return (d1 - d0) / (t1 - t0), (e1 - e0) / (t1 - t0)


def time_train_dmc(seconds: float, envs: int, learner: str) -> tuple[float, float, float]:
    """(decisions/s, share in VecEnv.step, share waiting for the learner) of
    train_dmc's loop with ``--learner learner``."""
    cmd = [sys.executable, str(SCRIPT), "--seconds", str(seconds), "--envs", str(envs),
           "--lstm", "128", "--layers", "5", "--hidden", "512", "--eval-deals", "4",
           "--greedy-deals", "0", "--eval-every", str(10 ** 9), "--batch", "1024",
           "--learner", learner, "--threads", "1"]
    done = subprocess.run(cmd, capture_output=True, text=True, check=True)
    line = done.stdout.strip().splitlines()[-1]
    found = re.search(r"([0-9]+) decisions/s, ([0-9.]+)% in VecEnv.step, .*?"
                      r"([0-9.]+)% waiting for the learner, (?:([0-9]+) decisions/s after)?",
                      line)
    if not found:
        raise SystemExit(f"no rate in train_dmc's output: {line}")
    # with a learner: the rate after its first step (before it, no deal had
    # ended and the actors ran alone)
    rate = float(found.group(4) if found.group(4) else found.group(1))
    return rate, float(found.group(2)) / 100, float(found.group(3)) / 100


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=positive_seconds, default=60.0)
    p.add_argument("--envs", type=at_least(1), default=256)
    p.add_argument("--rounds", type=at_least(1), default=1,
                   help="rounds of every part, interleaved (medians printed)")
    args = p.parse_args(argv)
    try:
        import torch
        from douzero.env import Env as DouZeroEnv
    except ImportError as e:
        raise SystemExit(f"dmc_loop_speed needs torch and DouZero (pip install "
                         f"torch==2.13.0; pip install --no-deps douzero): {e}")

    from ddzfast.compat.douzero import Env as CompatEnv
    torch.set_num_threads(1)
    print(f"{args.seconds:.0f} s each, envs={args.envs}; load average "
          f"{os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs; torch {torch.__version__}, "
          f"1 thread", flush=True)
    parts = [
        ("douzero act, douzero Env",
         lambda: time_douzero_act(args.seconds, DouZeroEnv) + (float("nan"),)),
        ("douzero act, compat.douzero.Env",
         lambda: time_douzero_act(args.seconds, CompatEnv) + (float("nan"),)),
        ("train_dmc, actors only", lambda: time_train_dmc(args.seconds, args.envs, "off")),
        ("train_dmc, learner inline (1 thread)",
         lambda: time_train_dmc(args.seconds, args.envs, "inline")),
        ("train_dmc, learner thread (2 threads)",
         lambda: time_train_dmc(args.seconds, args.envs, "thread"))]
    # rounds interleaved, each ratio taken to DouZero's loop of the same
    # round, so that a load that drifts hits every part alike
    results = [[] for _ in parts]
    for r in range(args.rounds):
        for k, (label, run) in enumerate(parts):
            results[k].append(run())
            rate, env, _wait = results[k][-1]
            print(f"  round {r + 1}, {label}: {rate:,.0f} decisions/s, {100 * env:.1f}% in "
                  f"the environment (load average {os.getloadavg()[0]:.2f})", flush=True)
    base = [res[0] for res in results[0]]
    print(f"medians of {args.rounds} round(s); the ratio is the median of the rounds' ratios")
    print(f"{'loop':38} {'decisions/s':>12} {'env %':>7} {'wait %':>7} {'x douzero act':>14}")
    for (label, _), res in zip(parts, results):
        rate, env, wait = (statistics.median(x[j] for x in res) for j in range(3))
        ratio = statistics.median(x[0] / b for x, b in zip(res, base))
        print(f"{label:38} {rate:12,.0f} {100 * env:7.1f} {100 * wait:7.1f} {ratio:14.1f}")
    print(f"load average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
