#!/usr/bin/env python
"""Deep Monte Carlo (DouZero's algorithm) with PyTorch on the CPU, over
ddzfast.compat.douzero.VecEnv: actors batched across deals.

    pip install torch          # a CPU or CUDA build; this script uses the CPU
    python examples/train_dmc.py [--seconds S] [--envs N] [--hidden H] [--lstm L]
                                 [--layers K] [--lr LR] [--epsilon E] [--batch B]
                                 [--learn-every K] [--learner thread|inline|off]
                                 [--eval-every S] [--eval-deals D] [--greedy-deals G]
                                 [--checkpoint PATH] [--checkpoint-every S] [--seed S]
                                 [--threads T]

What it does, as DouZero's ``dmc`` does it, in one process:

* Three models, one per position (landlord, landlord_down, landlord_up),
  DouZero's shape at a chosen size: an LSTM over ``z`` (5 x 162, DouZero's
  15 recent moves), its last output concatenated with ``x`` (the
  position's features and one candidate action), then an MLP of
  ``--layers`` hidden layers of ``--hidden`` to one value (``--lstm 128
  --layers 5 --hidden 512`` is DouZero's own size).
* Actors: ``--envs`` deals step together, under ``torch.inference_mode``.
  At each step, for each position, every candidate action of every deal at
  that position goes through that position's model in one forward pass,
  read from ``VecEnv(..., z_batch=False, x_batch=False, dtype="int8")``:
  the LSTM runs once per deal on its ``z`` (DouZero's ``z_batch`` repeats
  ``z`` for every candidate, and its model runs the LSTM on each copy), the
  first layer's weights for the LSTM output and ``x_no_action`` are applied
  once per deal and those for the action once per candidate
  (``x_action``; the same sum as over DouZero's ``x_batch`` row), and a
  deal with one legal action plays it without a forward pass; each deal
  takes the candidate with the highest value (``np.maximum.reduceat`` over
  its rows), or a uniform random one with probability ``--epsilon``.
* Monte Carlo targets: when a deal ends, every decision of it gets the
  deal's final reward (``adp``: +-2**bombs for the landlord, the negative
  for the farmers), as DouZero's buffers hold them.
* Learner: one Adam step (mean squared error) per position for every
  ``--batch`` new targets of that position, each target used once, as
  DouZero's learner uses each sample once. ``--learner inline`` (the
  default) makes the steps between actor steps; ``thread`` makes them on a
  thread of its own, concurrently with the actors (torch releases the GIL
  in its operations; DouZero's learner runs beside its actors too), the
  actors reading a copy of each model published after each step (it needs
  a free core to gain); ``off`` does not learn. ``--learn-every K`` (K > 0) is the earlier
  schedule instead: a step per position every K actor steps on its latest
  ``--batch`` targets, inline.
* Evaluation every ``--eval-every`` seconds: win probability (WP) over
  ``--eval-deals`` fixed deals (``--greedy-deals`` against greedy), the agent as the landlord and, on the same
  deals, as both farmers (seats swapped), against a uniform random player
  (batched over ``VecEnv``, DouZero's legal actions) and against ddzfast's
  ``greedy`` bot (``ddzfast.arena``, DouZero's evaluation protocol and
  deals: the game is ddzfast's classic one, the agent reads DouZero's
  observation of it and its choice, among its candidates the arena's game
  allows, is played as the legal move of the same cards; a move of the
  bot's that DouZero's rules lack cannot be replayed into that
  observation, and the agent then plays a random legal move, counted and
  printed, as when no candidate of DouZero's is legal in the arena's game).
* A checkpoint (``torch.save`` of the three models) every
  ``--checkpoint-every`` seconds when ``--checkpoint`` is given.

Printed as it trains: wall time, decisions, decisions/s of the whole loop
(evaluations excluded), the fraction of it spent in ddzfast
(``VecEnv.step``), the losses and the last WPs; at the end also the
learner's steps, the share of the time the actors waited for it, and the
rate after its first step (before it no deal has ended and the actors run
alone). Ctrl-C stops the run, writes the checkpoint when one is asked for
and exits with status 130. ``--seconds 3 --envs 8 --hidden 16 --lstm 16
--eval-deals 6 --greedy-deals 4 --eval-every 1 --batch 64`` is the smoke
run the tests make (a few seconds; the default ``--batch`` would take no
learner step in that time).
"""
from __future__ import annotations

import argparse
import copy
import math
import os
import queue
import sys
import threading
import time

import numpy as np

from ddzfast.constants import broken_import

try:
    import torch
    from torch import nn
    from torch.nn import functional as F
except ImportError as e:   # pragma: no cover - exercised without torch
    _broken = broken_import(e, "torch")
    raise SystemExit(f"train_dmc.py needs PyTorch, {_broken}" if _broken else
                     f"train_dmc.py needs PyTorch ({e.name or e} is missing): "
                     f"pip install torch") from e

from ddzfast.arena import arena
from ddzfast._douzero import DouZeroGame
from ddzfast.compat.douzero import (ACTION_WIDTH, MAX_ENVS, POSITIONS, X_NO_ACTION_WIDTH,
                                    VecEnv, to_douzero)

# x_batch's width per position (x_no_action, then the action)
X_WIDTH = tuple(w + ACTION_WIDTH for w in X_NO_ACTION_WIDTH)


class Model(nn.Module):
    """DouZero's model shape: LSTM(z) ++ x -> MLP -> value."""

    def __init__(self, x_width: int, lstm: int, hidden: int, layers: int = 2):
        super().__init__()
        self.lstm = nn.LSTM(162, lstm, batch_first=True)
        parts = [nn.Linear(x_width + lstm, hidden), nn.ReLU()]
        for _ in range(layers - 1):
            parts += [nn.Linear(hidden, hidden), nn.ReLU()]
        self.mlp = nn.Sequential(*parts, nn.Linear(hidden, 1))

    def forward(self, z, x):
        """Values of rows (z, x), z one per row (DouZero's z_batch). The
        first layer's product with the LSTM's output and with x are summed
        (its weights split by columns: the same sum as over their
        concatenation), so that a backward pass computes no gradient for x."""
        out, _ = self.lstm(z)
        first = self.mlp[0]
        k = out.shape[-1]
        h = F.linear(out[:, -1, :], first.weight[:, :k], first.bias) \
            + F.linear(x, first.weight[:, k:])
        return self.mlp[1:](h).squeeze(-1)

    def values(self, z, x_state, owner, x_action):
        """forward(z[owner], cat(x_state[owner], x_action)) computed once
        per deal where it can be: z and x_state (x_no_action) one per deal,
        x_action (the candidate's 54 columns) one per row, owner[j] the
        deal of row j. The LSTM runs once per deal, and the first layer's
        weights split by columns: its product with (LSTM output, x_state)
        once per deal, with x_action per row (the same sum)."""
        out, _ = self.lstm(z)
        first = self.mlp[0]
        k = out.shape[-1] + x_state.shape[-1]
        per_deal = F.linear(torch.cat([out[:, -1, :], x_state], dim=-1),
                            first.weight[:, :k], first.bias)
        h = per_deal[owner] + F.linear(x_action, first.weight[:, k:])
        return self.mlp[1:](h).squeeze(-1)


class Learner:
    """Adam on each position's model, one step (mean squared error) per
    batch handed to ``submit``. ``threaded``: the steps run on a thread of
    their own, concurrently with the actors (torch releases the GIL in its
    operations), at most two batches queued (``submit`` waits beyond,
    as DouZero's actors wait for a free buffer), and the actors read a copy
    of each model published after each of its steps (``actor_models``);
    else ``submit`` steps at once and the actors read the trained models."""

    def __init__(self, models, lr, threaded):
        self.models = models
        self.optims = [torch.optim.Adam(m.parameters(), lr=lr) for m in models]
        self.actor_models = [copy.deepcopy(m) for m in models] if threaded else list(models)
        self.losses = [float("nan")] * 3
        self.steps = 0
        self.wait = 0.0               # seconds submit waited for the learner's thread
        self.error = None
        self.queue = queue.Queue(maxsize=2) if threaded else None
        self.thread = None
        if threaded:
            # a thread waiting for the GIL after a torch operation gets it
            # within 0.2 ms instead of Python's default 5 ms (each of the
            # two threads would otherwise wait out the other's Python code
            # after its every operation)
            sys.setswitchinterval(2e-4)
            self.thread = threading.Thread(target=self._run, name="learner", daemon=True)
            self.thread.start()

    def submit(self, q, x, z, y):
        """One step of position q's model on rows x (float32-convertible
        arrays), z and targets y."""
        if self.queue is None:
            self._step(q, x, z, y)
            return
        t = time.perf_counter()
        while True:
            if self.error is not None:
                raise RuntimeError("the learner's thread failed") from self.error
            try:
                self.queue.put((q, x, z, y), timeout=0.5)
                break
            except queue.Full:
                continue
        self.wait += time.perf_counter() - t

    def close(self, drop_queued=False):
        """Wait for the queued steps (the thread's) to be made, or with
        ``drop_queued`` for the one in progress alone; RuntimeError when the
        thread failed."""
        if self.thread is not None:
            if drop_queued:
                try:
                    while True:
                        self.queue.get_nowait()
                except queue.Empty:
                    pass
            # a thread that failed takes nothing more from a full queue
            while self.thread.is_alive():
                try:
                    self.queue.put(None, timeout=0.5)
                    break
                except queue.Full:
                    continue
            self.thread.join()
            self.thread = None
        if self.error is not None:
            raise RuntimeError("the learner's thread failed") from self.error

    def _run(self):
        try:
            while True:
                item = self.queue.get()
                if item is None:
                    return
                self._step(*item)
        except BaseException as e:      # reported to the actors by submit/close
            self.error = e

    def _step(self, q, x, z, y):
        model = self.models[q]
        pred = model(torch.from_numpy(z).float(), torch.from_numpy(x).float())
        loss = ((pred - torch.from_numpy(y)) ** 2).mean()
        self.optims[q].zero_grad(set_to_none=True)
        loss.backward()
        self.optims[q].step()
        self.optims[q].zero_grad(set_to_none=True)
        self.losses[q] = loss.item()
        self.steps += 1
        if self.thread is not None:
            published = copy.deepcopy(model)
            self.actor_models[q] = published      # one reference swapped: atomic


def choose(models, vec, rng, epsilon):
    """Each deal's action index (its candidate of highest value, or a random
    one with probability epsilon); vec is a VecEnv(..., z_batch=False,
    x_batch=False)."""
    n = vec.num_envs
    actions = np.zeros(n, dtype=np.int64)
    counts = vec.counts
    with torch.inference_mode():
        for p in range(3):
            at = vec.position == p
            # a deal with one legal action plays it: its value is not needed
            # (the Monte Carlo targets do not use the actors' values)
            rows = np.flatnonzero(at & (counts > 1))
            if rows.size == 0:
                continue
            x_action = vec.x_action[p]
            if rows.size < np.count_nonzero(at):
                x_action = x_action[np.repeat(counts[at] > 1, counts[at])]
            seg = np.repeat(np.arange(rows.size), counts[rows])     # each row's deal
            width = X_NO_ACTION_WIDTH[p]
            values = models[p].values(
                torch.from_numpy(vec.z[rows]).float(),
                torch.from_numpy(vec.x_no_action[rows, :width]).float(),
                torch.from_numpy(seg), torch.from_numpy(x_action).float()).numpy()
            if np.isnan(values).any():
                # (no value equals a NaN maximum: no candidate would be picked)
                raise FloatingPointError(f"the {POSITIONS[p]} model's values are NaN: "
                                         f"the training diverged (a lower --lr?)")
            starts = np.cumsum(counts[rows]) - counts[rows]
            best = np.maximum.reduceat(values, starts)
            # the first row of each deal's segment holding its maximum
            index = np.arange(values.size)
            first = np.minimum.reduceat(np.where(values == best[seg], index, values.size),
                                        starts)
            actions[rows] = first - starts
    explore = rng.random(n) < epsilon
    actions[explore] = (rng.random(int(explore.sum())) * vec.counts[explore]).astype(np.int64)
    return actions


def lean_vec(num_envs, objective, seed):
    """The VecEnv form the actors read: the candidates' action columns
    alone, int8 (choose)."""
    return VecEnv(num_envs, objective, seed=seed, z_batch=False, x_batch=False, dtype="int8")


def evaluate(models, deals, seed):
    """WP of the agent against a uniform random player: as the landlord, then
    as the farmers, over the same fixed deals."""
    wins = []
    rng = np.random.default_rng(seed)
    for agent_landlord in (True, False):
        vec = lean_vec(deals, "wp", seed)
        vec.reset()
        won = np.zeros(deals, dtype=bool)
        over = np.zeros(deals, dtype=bool)
        while not over.all():
            greedy = choose(models, vec, rng, 0.0)
            random_ = (rng.random(deals) * vec.counts).astype(np.int64)
            agent = (vec.position == 0) == agent_landlord
            rewards, done = vec.step(np.where(agent, greedy, random_))
            fresh = done & ~over
            won[fresh] = (rewards[fresh] > 0) == agent_landlord
            over |= done
        wins.append(float(won.mean()))
    return wins


class ArenaAgent:
    """The models as an ``ddzfast.arena`` policy ``(game, legal) -> index``:
    DouZero's observation of the arena's game (a DouZeroGame dealt the
    deal's hands and replayed its plays), the candidate of highest value,
    played as the legal move holding the same cards."""

    def __init__(self, models, seed):
        self.models = models
        self.rng = np.random.default_rng(seed)
        self.game = None            # the arena game mirrored, and its plays replayed
        self.mirror = None
        self.replayed = 0
        self.unreplayable = 0       # decisions after a move DouZero's rules lack
        self.decisions = 0

    def _sync(self, game):
        history = game.history
        if self.game is not game or self.replayed > len(history):
            hands = [int(game.hands[s]) for s in range(3)]
            for seat, move in history:
                hands[seat] += int(move.cards)
            self.mirror = DouZeroGame()
            # DouZero's positions: seat 0 the landlord, 1 landlord_down, 2 landlord_up
            self.mirror.deal(to_douzero(hands[0]), to_douzero(hands[2]), to_douzero(hands[1]))
            self.game, self.replayed = game, 0
        for _seat, move in history[self.replayed:]:
            self.mirror.play(to_douzero(int(move.cards)))
            self.replayed += 1

    def __call__(self, game, legal):
        self.decisions += 1
        try:
            self._sync(game)
        except ValueError:
            self.game = None
            self.unreplayable += 1
            return int(self.rng.integers(len(legal)))
        obs = self.mirror.observe()
        p = POSITIONS.index(obs["position"])
        with torch.inference_mode():
            values = self.models[p](torch.from_numpy(obs["z_batch"]),
                                    torch.from_numpy(obs["x_batch"])).numpy()
        # DouZero's candidates the arena's game allows: DouZero ranks a
        # plane of single kickers by its highest triple, kickers included,
        # so it may list a follow that ddzfast's rules refuse
        index = {int(move.cards): i for i, move in enumerate(legal)}
        allowed = [(float(v), index[int(c)]) for v, c in zip(values, self.mirror.legal_packed)
                   if int(c) in index]
        if not allowed:
            self.unreplayable += 1
            return int(self.rng.integers(len(legal)))
        return max(allowed, key=lambda pair: pair[0])[1]


def evaluate_greedy(models, deals, seed):
    """WP against ddzfast's greedy bot under DouZero's evaluation protocol
    (ddzfast.arena): as the landlord, as the farmers; and the decisions the
    agent played at random (after a move DouZero's rules lack)."""
    agent = ArenaAgent(models, seed)
    result = arena(agent, "greedy", deals=deals, seed=seed)
    return [result.wp_landlord[0], result.wp_farmers[0]], agent.unreplayable


def check_args(parser, args):
    """parser.error (exit 2, a usage line) for an option out of its range or
    a checkpoint that could not be written, before any evaluation or
    training: the first save would come only after --checkpoint-every."""
    at_least = {"envs": 1, "hidden": 1, "lstm": 1, "layers": 1, "batch": 1,
                "learn_every": 0, "eval_deals": 1, "greedy_deals": 0, "seed": 0,
                "threads": 1}
    for name, low in at_least.items():
        if getattr(args, name) < low:
            parser.error(f"--{name.replace('_', '-')} is at least {low}, not "
                         f"{getattr(args, name)}")
    # (VecEnv's deals at once; the seeds NumPy and torch take)
    at_most = {"envs": MAX_ENVS, "eval_deals": MAX_ENVS, "seed": 2**64 - 1}
    for name, high in at_most.items():
        if getattr(args, name) > high:
            parser.error(f"--{name.replace('_', '-')} is at most {high}, not "
                         f"{getattr(args, name)}")
    # (inf: evaluations, or a checkpoint, only at the start and the end)
    for name in ("eval_every", "checkpoint_every"):
        value = getattr(args, name)
        if not value > 0:
            parser.error(f"--{name.replace('_', '-')} is a number above 0, not {value}")
    for name in ("seconds", "lr"):
        value = getattr(args, name)
        if not (math.isfinite(value) and value > 0):
            parser.error(f"--{name} is a finite number above 0, not {value}")
    if not 0 <= args.epsilon <= 1:
        parser.error(f"--epsilon is in 0..1, not {args.epsilon}")
    if args.checkpoint is not None:
        folder = os.path.dirname(os.path.abspath(args.checkpoint))
        # (abspath drops a final separator: "missing/" would read as the
        # file "missing" in a folder that exists)
        names_a_folder = args.checkpoint.endswith(tuple(filter(None, (os.sep, os.altsep))))
        if not args.checkpoint or names_a_folder or os.path.isdir(args.checkpoint) \
                or not os.path.isdir(folder) or not os.access(folder, os.W_OK):
            parser.error(f"--checkpoint {args.checkpoint!r}: no file can be written "
                         f"there (its folder must exist and be writable)")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=1800.0)
    p.add_argument("--envs", type=int, default=256)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--lstm", type=int, default=128)
    p.add_argument("--layers", type=int, default=2, help="hidden layers of the MLP")
    p.add_argument("--lr", type=float, default=1e-4)
    p.add_argument("--epsilon", type=float, default=0.01)
    p.add_argument("--batch", type=int, default=2048)
    p.add_argument("--learn-every", type=int, default=0,
                   help="0: one Adam step per --batch new targets of a position, each "
                        "target used once; K > 0: one step per position every K actor "
                        "steps on its latest --batch targets (the earlier schedule; the "
                        "learner then runs inline)")
    p.add_argument("--learner", choices=("thread", "inline", "off"), default="inline",
                   help="inline: the learner's steps between actor steps; thread: "
                        "concurrently with the actors, on a thread of its own; off: no "
                        "learning")
    p.add_argument("--eval-every", type=float, default=120.0)
    p.add_argument("--eval-deals", type=int, default=500)
    p.add_argument("--greedy-deals", type=int, default=100,
                   help="deals of the evaluation against greedy (0: none)")
    p.add_argument("--checkpoint", default=None)
    p.add_argument("--checkpoint-every", type=float, default=600.0)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=1,
                   help="torch's CPU threads per operation (torch.set_num_threads)")
    args = p.parse_args(argv)
    check_args(p, args)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(args.seed)
    trained = [Model(X_WIDTH[p], args.lstm, args.hidden, args.layers) for p in range(3)]
    window = args.learn_every > 0 and args.learner != "off"
    learner = Learner(trained, args.lr, args.learner == "thread" and not window)
    models = learner.actor_models      # what the actors read (updated by the learner)
    # z_batch (z repeated for every candidate) and x_batch (x_no_action
    # repeated for every candidate) are not written: the actors run the
    # LSTM and the deal's part of the first layer once per deal
    vec = lean_vec(args.envs, "adp", (args.seed + 1) % 2**64)
    vec.reset()
    # the decisions of each deal in progress: lists of (position,
    # x_no_action, the action's columns, z), int8
    episodes = [[] for _ in range(args.envs)]
    # each position's Monte Carlo targets not yet trained on: (x, z, y)
    pending = [[] for _ in range(3)]
    # --learn-every K: the latest targets per position (a ring of args.batch)
    if window:
        ring_x = [np.zeros((args.batch, X_WIDTH[p]), np.int8) for p in range(3)]
        ring_z = [np.zeros((args.batch, 5, 162), np.int8) for p in range(3)]
        ring_y = [np.zeros(args.batch, np.float32) for p in range(3)]
        filled = [0, 0, 0]
    decisions = steps = 0
    env_time = eval_time = 0.0
    unreplayable = 0

    def evaluations():
        nonlocal unreplayable
        wp = evaluate(models, args.eval_deals, 12345)
        if args.greedy_deals:
            wg, u = evaluate_greedy(models, args.greedy_deals, 12345)
            unreplayable += u
        else:
            wg = [float("nan")] * 2
        return wp + wg

    def save():
        # written apart, then renamed over the last one: a save cut short
        # leaves the last checkpoint whole
        part = args.checkpoint + ".part"
        torch.save({"models": [m.state_dict() for m in models], "decisions": decisions},
                   part)
        os.replace(part, args.checkpoint)

    interrupted = False
    # Ctrl-C stops the run where it is: the learner's thread is joined
    # (a daemon thread inside a torch operation at the interpreter's exit
    # aborts the process) and the checkpoint is written
    try:
        wp = evaluations()
        t0 = time.perf_counter()
        last_eval = last_ckpt = t0
        print(f"{'seconds':>8} {'decisions':>10} {'dec/s':>8} {'env %':>6} "
              f"{'loss L/D/U':>22} {'WP random (landlord, farmers)':>30} "
              f"{'WP greedy (landlord, farmers)':>30}", flush=True)
        print(f"{0.0:8.1f} {0:10d} {0:8.0f} {0:6.1f} {'':>22} {wp[0]:14.3f} {wp[1]:15.3f} "
              f"{wp[2]:14.3f} {wp[3]:15.3f}", flush=True)
        losses = learner.losses
        first_step = None             # (time, decisions, eval_time) at the learner's first step
        while True:
            now = time.perf_counter()
            if now - t0 >= args.seconds:
                break
            actions = choose(models, vec, rng, args.epsilon)
            if args.learner != "off":
                # the chosen rows, before step rewrites the buffers
                position = vec.position.copy()
                x_state, z = vec.x_no_action.copy(), vec.z.copy()
                x_action = np.empty((args.envs, ACTION_WIDTH), np.int8)
                for q in range(3):
                    rows = position == q
                    x_action[rows] = vec.x_action[q][vec.offsets[rows] + actions[rows]]
                for i in range(args.envs):
                    episodes[i].append((position[i], x_state[i], x_action[i], z[i]))
            ts = time.perf_counter()
            rewards, done = vec.step(actions)
            env_time += time.perf_counter() - ts
            decisions += args.envs
            steps += 1
            for i in np.flatnonzero(done) if args.learner != "off" else ():
                r = float(rewards[i])
                for q, xs, xa, zq in episodes[i]:
                    y = r if q == 0 else -r
                    if window:
                        k = filled[q] % args.batch
                        ring_x[q][k, :-ACTION_WIDTH] = xs[:X_NO_ACTION_WIDTH[q]]
                        ring_x[q][k, -ACTION_WIDTH:] = xa
                        ring_z[q][k], ring_y[q][k] = zq, y
                        filled[q] += 1
                    else:
                        pending[q].append((xs, xa, zq, y))
                episodes[i] = []
            if window:
                for q in range(3 if steps % args.learn_every == 0 else 0):
                    n = min(filled[q], args.batch)
                    if n:
                        learner.submit(q, ring_x[q][:n], ring_z[q][:n], ring_y[q][:n])
            else:
                for q in range(3):
                    while len(pending[q]) >= args.batch:
                        batch, pending[q] = pending[q][:args.batch], pending[q][args.batch:]
                        width = X_NO_ACTION_WIDTH[q]
                        x = np.concatenate([np.stack([b[0][:width] for b in batch]),
                                            np.stack([b[1] for b in batch])], axis=1)
                        learner.submit(q, x, np.stack([b[2] for b in batch]),
                                       np.array([b[3] for b in batch], np.float32))
            now = time.perf_counter()
            if first_step is None and learner.steps:
                first_step = (now, decisions, eval_time)
            if now - last_eval >= args.eval_every:
                wp = evaluations()
                last_eval = time.perf_counter()
                eval_time += last_eval - now
                spent = last_eval - t0
                train = spent - eval_time
                print(f"{spent:8.1f} {decisions:10d} {decisions / train:8.0f} "
                      f"{100 * env_time / train:6.1f} "
                      f"{losses[0]:7.3f}/{losses[1]:6.3f}/{losses[2]:6.3f} "
                      f"{wp[0]:14.3f} {wp[1]:15.3f} {wp[2]:14.3f} {wp[3]:15.3f}", flush=True)
            if args.checkpoint and now - last_ckpt >= args.checkpoint_every:
                save()
                last_ckpt = now
    except KeyboardInterrupt:
        interrupted = True
    except BaseException:
        try:
            learner.close(drop_queued=True)
        except RuntimeError:
            pass        # (the error that stopped the run is the one to see)
        raise
    # the queued learner steps are part of the loop's time (an interrupted
    # run drops them)
    learner.close(drop_queued=interrupted)
    if interrupted:
        if args.checkpoint:
            save()
        saved = f"; checkpoint written to {args.checkpoint}" if args.checkpoint else ""
        print(f"interrupted: {decisions} decisions, {learner.steps} learner steps{saved}",
              file=sys.stderr, flush=True)
        raise SystemExit(130)
    end = time.perf_counter()
    spent = end - t0
    train = spent - eval_time
    if first_step is not None and end > first_step[0]:
        # past the start, when no deal had ended yet and the actors ran alone
        steady = (f"{(decisions - first_step[1]) / (end - first_step[0] - eval_time + first_step[2]):.0f} "
                  f"decisions/s after the learner's first step")
    else:
        steady = "no learner step"
    wp = evaluations()
    print(f"done: {decisions} decisions in {spent:.1f} s ({train:.1f} s training, the "
          f"evaluations excluded), {decisions / train:.0f} decisions/s, "
          f"{100 * env_time / train:.1f}% in VecEnv.step, {learner.steps} learner steps "
          f"({'inline, --learn-every' if window else args.learner}), "
          f"{100 * learner.wait / train:.1f}% waiting for the learner, {steady}; "
          f"WP against random: {wp[0]:.3f} as the landlord, {wp[1]:.3f} as the farmers; "
          f"against greedy: {wp[2]:.3f} as the landlord, {wp[3]:.3f} as the farmers "
          f"({unreplayable} agent decisions at random: a move DouZero's rules lack, or "
          f"no candidate of DouZero's legal in the arena's game)",
          flush=True)
    if args.checkpoint:
        save()

if __name__ == "__main__":
    main()
