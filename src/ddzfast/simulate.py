"""Monte Carlo simulation of whole deals: on one core, on all cores, or on a
Ray cluster.

``simulate(games, rules="classic", policies=("random", "random", "random"),
seed=0, threads=1, bidding=True, backend="local")`` returns a numpy array of
``DEAL_DTYPE``, one row per deal:

* ``seed``: the deal's own seed (``Game(rules, seed, bidding, first_bidder)``
  replays it with the built-in policies);
* ``landlord``, ``base``, ``first_bidder``: the bidding's outcome;
* ``winner``: 0 when the landlord's side won, 1 when the farmers did;
* ``multiplier`` (spring and the rule set's cap included), ``spring``,
  ``anti_spring``, ``scores`` (the three seats', RULES.md 6);
* ``moves`` (non-pass moves played) and ``bombs`` (bomb-tier moves played).

Deal ``i`` of a run seeded ``seed`` depends only on ``(seed, i)``, so the rows
are the same whatever the thread count, backend or split.

Policies: ``"random"`` (uniform over the legal bids and moves) and
``"greedy"`` (bid by a hand-strength score: 2 per 2, 2 for X, 3 for D, 3 for W,
1 per A, 4 per four of a kind, bidding 1/2/3 from 6/9/12 points; take a move
that empties the hand; lead the move that sheds the most cards, lowest rank
first and natural cards before W, bombs last; follow with the cheapest beating
non-bomb, pass a partner's move, bomb only when the last player holds at
most 4 cards) run in C without the GIL. A Python callable is also accepted:
``policy(game, legal)`` gets the ``Game`` and, while bidding, the list of
legal bids (return one), while playing the ``MoveList`` of legal moves
(return a Move, a row or an index). Deals with a callable run one by one in
Python (slower), with the same rows format.
"""
from __future__ import annotations

import numbers
from typing import Callable, Sequence, Union

import numpy as np

from ddzfast._core import (DEAL_DTYPE, POLICIES, Game, _score_row,
                           _simulate_native, deal_seed, get_rules)

Policy = Union[str, Callable]

__all__ = ["simulate", "DEAL_DTYPE", "deal_seed", "play_deal"]


def _check_policies(policies) -> tuple:
    if isinstance(policies, str):
        policies = tuple(p.strip() for p in policies.split(","))
    policies = tuple(policies)
    if len(policies) == 1:
        policies = policies * 3
    if len(policies) != 3:
        raise ValueError(f"give one policy or three (one per seat), not {len(policies)}")
    for p in policies:
        if not callable(p) and p not in POLICIES:
            raise ValueError(f"unknown policy {p!r}: use {', '.join(POLICIES)} "
                             f"or a callable")
    return policies


def play_deal(rules, policies: Sequence[Policy], seed: int, first_bidder: int = 0,
              bidding: bool = True):
    """Play one deal in Python with these policies; returns its DEAL_DTYPE row."""
    game = Game(rules, seed, bidding, first_bidder)
    while not game.done:
        seat = game.to_move
        assert seat is not None
        policy = policies[seat]
        if game.phase == "bidding":
            if callable(policy):
                game.bid(policy(game, game.legal_bids()))
            else:
                game.bid(game.policy_bid(policy))
        elif callable(policy):
            legal = game.legal_moves()
            choice = policy(game, legal)
            if isinstance(choice, numbers.Integral):
                choice = legal[int(choice)]
            game.play(choice)
        else:
            game.play(game.policy_move(policy))
    return _score_row(game)


def simulate(games: int, rules="classic", policies=("random", "random", "random"),
             seed: int = 0, threads: int = 1, bidding: bool = True,
             backend: str = "local", address: str | None = None,
             start: int = 0, tasks: int | None = None,
             progress: Callable[[int], None] | None = None) -> np.ndarray:
    """Play ``games`` deals (deal indices ``start .. start + games - 1``) and
    return their DEAL_DTYPE rows; see the module docstring.

    ``backend="ray"`` splits the deals into ``tasks`` seed ranges (default: 4
    per CPU of the cluster) run as Ray tasks on the cluster that
    ``ray.init(address=address)`` connects to (a local Ray when None; an
    already initialised Ray is used as it is). ``progress``, when given, is
    called with the number of deals finished so far.
    """
    if not isinstance(games, numbers.Integral) or games < 0:
        raise ValueError(f"games must be a non-negative int, not {games!r}")
    if not isinstance(seed, numbers.Integral) or not 0 <= seed < (1 << 64):
        raise ValueError(f"seed must be an int in 0 .. 2**64 - 1, not {seed!r}")
    if not isinstance(threads, numbers.Integral) or threads < 1:
        raise ValueError(f"threads must be a positive int, not {threads!r}")
    rules = get_rules(rules)
    policies = _check_policies(policies)
    if backend == "ray":
        return _simulate_ray(games, rules, policies, seed, threads, bidding, address,
                             start, tasks, progress)
    if backend != "local":
        raise ValueError(f"backend is 'local' or 'ray', not {backend!r}")
    return _simulate_local(games, rules, policies, seed, threads, bidding, start, progress)


def _simulate_local(games, rules, policies, seed, threads, bidding, start, progress):
    native = not any(callable(p) for p in policies)
    if native and progress is None:
        return _simulate_native(rules, policies, seed, start, start + games, bidding, threads)
    rows = np.zeros(games, dtype=DEAL_DTYPE)
    step = max(1, min(10000, games // 100 or 1)) if native else 1
    done = 0
    while done < games:
        n = min(step, games - done)
        first = start + done
        if native:
            rows[done:done + n] = _simulate_native(rules, policies, seed, first,
                                                   first + n, bidding, threads)
        else:
            rows[done] = play_deal(rules, policies, deal_seed(seed, first), first % 3,
                                   bidding)
        done += n
        if progress is not None:
            progress(done)
    return rows


def _ray_range(rules_name, description, policies, seed, start, stop, bidding):
    from ddzfast._core import Rules
    rules = Rules(rules_name, **description)
    return _simulate_local(stop - start, rules, policies, seed, 1, bidding, start, None)


def _simulate_ray(games, rules, policies, seed, threads, bidding, address, start,
                  tasks, progress):
    try:
        import ray
    except ImportError as e:
        raise ImportError("backend='ray' needs ray: pip install 'ddzfast[ray]'") from e
    if not ray.is_initialized():
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
    if tasks is None:
        cpus = int(ray.cluster_resources().get("CPU", 1))
        tasks = max(1, 4 * cpus)
    tasks = max(1, min(tasks, games or 1))
    remote = ray.remote(num_cpus=1)(_ray_range)
    bounds = [start + games * t // tasks for t in range(tasks + 1)]
    refs = [remote.remote(rules.name, dict(rules.description), policies, seed,
                          bounds[t], bounds[t + 1], bidding) for t in range(tasks)]
    parts = [None] * tasks
    pending = {ref: t for t, ref in enumerate(refs)}
    done = 0
    while pending:
        ready, _ = ray.wait(list(pending), num_returns=1)
        for ref in ready:
            t = pending.pop(ref)
            parts[t] = ray.get(ref)
            done += len(parts[t])
            if progress is not None:
                progress(done)
    return np.concatenate(parts) if parts else np.zeros(0, dtype=DEAL_DTYPE)
