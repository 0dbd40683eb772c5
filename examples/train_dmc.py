#!/usr/bin/env python
"""Deep Monte Carlo (DouZero's algorithm) with PyTorch on the CPU, over
ddzfast.compat.douzero.VecEnv: actors batched across deals.

    pip install torch          # a CPU or CUDA build; this script uses the CPU
    python examples/train_dmc.py [--seconds S] [--envs N] [--hidden H] [--lstm L]
                                 [--layers K] [--lr LR] [--epsilon E] [--batch B]
                                 [--learn-every K] [--eval-every S] [--eval-deals D]
                                 [--greedy-deals G]
                                 [--checkpoint PATH] [--checkpoint-every S] [--seed S]

What it does, as DouZero's ``dmc`` does it, in one process:

* Three models, one per position (landlord, landlord_down, landlord_up),
  DouZero's shape at a chosen size: an LSTM over ``z`` (5 x 162, DouZero's
  15 recent moves), its last output concatenated with ``x`` (the
  position's features and one candidate action), then an MLP of
  ``--layers`` hidden layers of ``--hidden`` to one value (``--lstm 128
  --layers 5 --hidden 512`` is DouZero's own size).
* Actors: ``--envs`` deals step together. At each step, for each position,
  the rows of ``x_batch[p]`` (every candidate action of every deal at that
  position, one buffer) go through that position's model in one forward
  pass, the LSTM run once per deal on its ``z`` (``VecEnv(...,
  z_batch=False)``: DouZero's ``z_batch`` repeats ``z`` for every
  candidate, and its model runs the LSTM on each copy); each deal takes the candidate with the highest value
  (``np.maximum.reduceat`` over its rows), or a uniform random one with
  probability ``--epsilon``.
* Monte Carlo targets: when a deal ends, every decision of it gets the
  deal's final reward (``adp``: +-2**bombs for the landlord, the negative
  for the farmers), as DouZero's buffers hold them.
* Learner: after every ``--learn-every`` actor steps, one Adam step per
  position on the latest ``--batch`` targets of that position (mean squared
  error).
* Evaluation every ``--eval-every`` seconds: win probability (WP) over
  ``--eval-deals`` fixed deals (``--greedy-deals`` against greedy), the agent as the landlord and, on the same
  deals, as both farmers (seats swapped), against a uniform random player
  (batched over ``VecEnv``, DouZero's legal actions) and against ddzfast's
  ``greedy`` bot (``ddzfast.arena``, DouZero's evaluation protocol and
  deals: the game is ddzfast's classic one, the agent reads DouZero's
  observation of it and its choice is played as the legal move of the same
  cards; a move of the bot's that DouZero's rules lack cannot be replayed
  into that observation, and the agent then plays a random legal move,
  counted and printed).
* A checkpoint (``torch.save`` of the three models) every
  ``--checkpoint-every`` seconds when ``--checkpoint`` is given.

Printed as it trains: wall time, decisions, decisions/s of the whole loop
(evaluations excluded), the fraction of it spent in ddzfast
(``VecEnv.step``), the losses and the last WPs. ``--seconds 3 --envs 8 --hidden 16 --lstm 16`` is the smoke run
the tests make.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

try:
    import torch
    from torch import nn
except ImportError as e:   # pragma: no cover - exercised without torch
    raise SystemExit(f"train_dmc.py needs PyTorch ({e.name or e} is missing): "
                     f"pip install torch") from e

from ddzfast.arena import arena
from ddzfast._douzero import DouZeroGame
from ddzfast.compat.douzero import POSITIONS, VecEnv, to_douzero

X_WIDTH = (373, 484, 484)      # x_batch's width per position (x_no_action + action)


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
        """Values of rows (z, x), z one per row (DouZero's z_batch)."""
        out, _ = self.lstm(z)
        return self.mlp(torch.cat([out[:, -1, :], x], dim=-1)).squeeze(-1)

    def values(self, z, owner, x):
        """forward(z[owner], x), the LSTM run once per deal: z one per deal,
        owner[j] the deal of row j."""
        out, _ = self.lstm(z)
        return self.mlp(torch.cat([out[:, -1, :][owner], x], dim=-1)).squeeze(-1)


def choose(models, vec, rng, epsilon):
    """Each deal's action index (its candidate of highest value, or a random
    one with probability epsilon), and the chosen rows' (p, x, z)."""
    n = vec.num_envs
    actions = np.zeros(n, dtype=np.int64)
    with torch.no_grad():
        for p in range(3):
            rows = np.flatnonzero(vec.position == p)
            if rows.size == 0:
                continue
            seg = np.repeat(np.arange(rows.size), vec.counts[rows])     # each row's deal
            z = torch.from_numpy(vec.z[rows].astype(np.float32))
            values = models[p].values(z, torch.from_numpy(seg),
                                      torch.from_numpy(vec.x_batch[p])).numpy()
            starts = vec.offsets[rows]
            best = np.maximum.reduceat(values, starts)
            # the first row of each deal's segment holding its maximum
            index = np.arange(values.size)
            first = np.minimum.reduceat(np.where(values == best[seg], index, values.size),
                                        starts)
            actions[rows] = first - starts
    explore = rng.random(n) < epsilon
    actions[explore] = (rng.random(int(explore.sum())) * vec.counts[explore]).astype(np.int64)
    return actions


def evaluate(models, deals, seed):
    """WP of the agent against a uniform random player: as the landlord, then
    as the farmers, over the same fixed deals."""
    wins = []
    rng = np.random.default_rng(seed)
    for agent_landlord in (True, False):
        vec = VecEnv(deals, "wp", seed=seed, z_batch=False)
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
        with torch.no_grad():
            values = self.models[p](torch.from_numpy(obs["z_batch"]),
                                    torch.from_numpy(obs["x_batch"])).numpy()
        packed = int(self.mirror.legal_packed[int(np.argmax(values))])
        for i, move in enumerate(legal):
            if int(move.cards) == packed:
                return i
        raise RuntimeError("the agent's choice is no legal move of the arena's game")


def evaluate_greedy(models, deals, seed):
    """WP against ddzfast's greedy bot under DouZero's evaluation protocol
    (ddzfast.arena): as the landlord, as the farmers; and the decisions the
    agent played at random (after a move DouZero's rules lack)."""
    agent = ArenaAgent(models, seed)
    result = arena(agent, "greedy", deals=deals, seed=seed)
    return [result.wp_landlord[0], result.wp_farmers[0]], agent.unreplayable


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
    p.add_argument("--learn-every", type=int, default=4)
    p.add_argument("--eval-every", type=float, default=120.0)
    p.add_argument("--eval-deals", type=int, default=500)
    p.add_argument("--greedy-deals", type=int, default=100,
                   help="deals of the evaluation against greedy (0: none)")
    p.add_argument("--checkpoint", default=None)
    p.add_argument("--checkpoint-every", type=float, default=600.0)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    args = p.parse_args(argv)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(args.seed)
    models = [Model(X_WIDTH[p], args.lstm, args.hidden, args.layers) for p in range(3)]
    optims = [torch.optim.Adam(m.parameters(), lr=args.lr) for m in models]
    # z_batch (z repeated for every candidate) is not written: the actors
    # run the LSTM once per deal on z
    vec = VecEnv(args.envs, "adp", seed=args.seed + 1, z_batch=False)
    vec.reset()
    # the decisions of each deal in progress: lists of (position, x, z)
    episodes = [[] for _ in range(args.envs)]
    # the latest Monte Carlo targets per position (a ring of args.batch)
    ring_x = [np.zeros((args.batch, X_WIDTH[p]), np.float32) for p in range(3)]
    ring_z = [np.zeros((args.batch, 5, 162), np.float32) for p in range(3)]
    ring_y = [np.zeros(args.batch, np.float32) for p in range(3)]
    filled = [0, 0, 0]
    decisions = steps = 0
    env_time = eval_time = 0.0
    losses = [float("nan")] * 3
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

    wp = evaluations()
    t0 = time.perf_counter()
    last_eval = last_ckpt = t0
    print(f"{'seconds':>8} {'decisions':>10} {'dec/s':>8} {'env %':>6} "
          f"{'loss L/D/U':>22} {'WP random (landlord, farmers)':>30} "
          f"{'WP greedy (landlord, farmers)':>30}", flush=True)
    print(f"{0.0:8.1f} {0:10d} {0:8.0f} {0:6.1f} {'':>22} {wp[0]:14.3f} {wp[1]:15.3f} "
          f"{wp[2]:14.3f} {wp[3]:15.3f}", flush=True)
    while True:
        now = time.perf_counter()
        if now - t0 >= args.seconds:
            break
        actions = choose(models, vec, rng, args.epsilon)
        for i in range(args.envs):
            q = int(vec.position[i])
            row = int(vec.offsets[i] + actions[i])
            episodes[i].append((q, vec.x_batch[q][row].copy(), vec.z[i].astype(np.float32)))
        ts = time.perf_counter()
        rewards, done = vec.step(actions)
        env_time += time.perf_counter() - ts
        decisions += args.envs
        for i in np.flatnonzero(done):
            r = float(rewards[i])
            for q, x, z in episodes[i]:
                k = filled[q] % args.batch
                ring_x[q][k], ring_z[q][k] = x, z
                ring_y[q][k] = r if q == 0 else -r
                filled[q] += 1
            episodes[i] = []
        steps += 1
        for q in range(3 if steps % args.learn_every == 0 else 0):
            n = min(filled[q], args.batch)
            if n == 0:
                continue
            pred = models[q](torch.from_numpy(ring_z[q][:n]), torch.from_numpy(ring_x[q][:n]))
            loss = ((pred - torch.from_numpy(ring_y[q][:n])) ** 2).mean()
            optims[q].zero_grad()
            loss.backward()
            optims[q].step()
            losses[q] = loss.item()
        now = time.perf_counter()
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
            torch.save({"models": [m.state_dict() for m in models], "decisions": decisions},
                       args.checkpoint)
            last_ckpt = now
    spent = time.perf_counter() - t0
    train = spent - eval_time
    wp = evaluations()
    print(f"done: {decisions} decisions in {spent:.1f} s ({train:.1f} s training, the "
          f"evaluations excluded), {decisions / train:.0f} decisions/s, "
          f"{100 * env_time / train:.1f}% in VecEnv.step; "
          f"WP against random: {wp[0]:.3f} as the landlord, {wp[1]:.3f} as the farmers; "
          f"against greedy: {wp[2]:.3f} as the landlord, {wp[3]:.3f} as the farmers "
          f"({unreplayable} agent decisions at random after a move DouZero's rules lack)",
          flush=True)
    if args.checkpoint:
        torch.save({"models": [m.state_dict() for m in models], "decisions": decisions},
                   args.checkpoint)


if __name__ == "__main__":
    main()
