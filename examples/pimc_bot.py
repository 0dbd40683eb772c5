"""A determinized Monte Carlo (PIMC) bot on ddzfast, against the built-in
greedy policy.

At each of its turns the bot samples worlds consistent with what its seat
sees (``Observation.sample``), and in each world plays every candidate move
and then the rest of the deal with the greedy policy in C (``Game.rollout``,
a few microseconds), undoing the candidate afterwards (``Game.undo``). It
plays the candidate with the best mean score for its seat.

    python examples/pimc_bot.py --deals 2000 --worlds 12 --seed 1

With ``--rollout expert`` the playouts use the built-in expert policy
instead of greedy; with ``--arena AGENT`` the bot plays under DouZero's
evaluation protocol (``ddzfast.arena``) against AGENT (a built-in policy or
``rlcard-rule``) instead:

    python examples/pimc_bot.py --arena expert --rollout expert --deals 200

Each deal is dealt without bidding (seat 0 is the landlord) and played twice
from the same seed: once with the bot in the measured seat, once with the
greedy policy there (the other seats greedy both times), so the two win
rates are paired on identical cards. The bot plays the landlord in even
deals and the first farmer (seat 1) in odd ones.
"""
from __future__ import annotations

import argparse
import math
import time

import numpy as np

from ddzfast import Game, MoveKind


def candidates(game: Game, limit: int, rng: np.random.Generator) -> list:
    """The moves worth sampling: all of them when few; else PASS, the greedy
    choice and moves that shed the most cards, then a random rest."""
    legal = list(game.legal_moves())
    if len(legal) <= limit:
        return legal
    keep = [m for m in legal if m.kind == MoveKind.PASS]
    greedy = game.copy().policy_move("greedy")
    if greedy not in keep:      # (greedy passes as often as not)
        keep.append(greedy)
    rest = [m for m in legal if m not in keep]
    rest.sort(key=lambda m: -len(m.cards))
    keep += rest[: limit // 2]
    others = rest[limit // 2:]
    # (PASS and the greedy move are kept even past a limit of 1 or 2)
    picks = rng.choice(len(others), size=max(0, min(len(others), limit - len(keep))),
                       replace=False) if others else []
    keep += [others[i] for i in picks]
    return keep


def pimc_move(game: Game, worlds: int, limit: int, rng: np.random.Generator,
              rollout: str = "greedy"):
    seat = game.to_move
    moves = candidates(game, limit, rng)
    if len(moves) == 1:
        return moves[0]
    observation = game.observation(seat)
    totals = np.zeros(len(moves))
    for _ in range(worlds):
        world = observation.sample(rng)
        for i, move in enumerate(moves):
            world.play(move)
            totals[i] += world.rollout(rollout, seed=int(rng.integers(1 << 62))).scores[seat]
            world.undo()
    return moves[int(np.argmax(totals))]


def pimc_policy(worlds: int, limit: int, rollout: str, seed: int):
    """The bot as a policy(game, legal) for ddzfast.arena and simulate."""
    rng = np.random.default_rng(seed)

    def pimc(game, legal):
        return pimc_move(game, worlds, limit, rng, rollout)

    pimc.__qualname__ = f"pimc({rollout} rollouts, {worlds} worlds)"
    return pimc


def play_deal(seed: int, bot_seat: int | None, worlds: int, limit: int,
              rng: np.random.Generator) -> tuple[float, float, float]:
    """The three seats' scores of one deal, the bot in ``bot_seat`` (None:
    greedy everywhere) and greedy in the others."""
    game = Game("classic", seed=seed, bidding=False)
    while not game.done:
        if game.to_move == bot_seat:
            game.play(pimc_move(game, worlds, limit, rng, ROLLOUT))
        else:
            game.play(game.policy_move("greedy"))
    return game.result.scores


ROLLOUT = "greedy"      # --rollout, for play_deal


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=2000)
    ap.add_argument("--worlds", type=int, default=12, help="worlds sampled per decision")
    ap.add_argument("--candidates", type=int, default=12,
                    help="moves tried per decision, at most (PASS and the greedy "
                         "move are tried whatever the limit)")
    ap.add_argument("--seed", type=int, default=1, help="0..2**32-1")
    ap.add_argument("--rollout", default="greedy", choices=["greedy", "expert", "random"],
                    help="the built-in policy of the playouts")
    ap.add_argument("--arena", default=None, metavar="AGENT",
                    help="play DouZero's protocol (ddzfast.arena) against AGENT instead")
    args = ap.parse_args()
    for name in ("deals", "worlds", "candidates"):
        if getattr(args, name) < 1:
            ap.error(f"--{name} must be at least 1")
    if not 0 <= args.seed < 2 ** 32:
        ap.error(f"--seed must be in 0..2**32-1, not {args.seed}")
    if args.arena:
        from ddzfast.arena import arena, resolve_agent
        try:
            resolve_agent(args.arena)
        except (ImportError, ValueError) as e:
            ap.error(f"--arena: {e}")
        start = time.perf_counter()
        result = arena(pimc_policy(args.worlds, args.candidates, args.rollout, args.seed),
                       args.arena, deals=args.deals, seed=args.seed)
        print(result.table())
        print(f"{time.perf_counter() - start:.0f} s")
        return
    global ROLLOUT
    ROLLOUT = args.rollout
    rng = np.random.default_rng(args.seed)
    results = {"landlord": [0, 0, 0], "farmer": [0, 0, 0]}   # bot wins, greedy wins, deals
    start = time.perf_counter()
    for i in range(args.deals):
        seat = 0 if i % 2 == 0 else 1
        role = "landlord" if seat == 0 else "farmer"
        seed = args.seed * 1_000_003 + i
        bot = play_deal(seed, seat, args.worlds, args.candidates, rng)[seat]
        base = play_deal(seed, None, args.worlds, args.candidates, rng)[seat]
        results[role][0] += bot > 0
        results[role][1] += base > 0
        results[role][2] += 1
    seconds = time.perf_counter() - start
    print(f"{args.deals} deals, {args.worlds} worlds x up to {args.candidates} "
          f"candidates per decision, {seconds:.0f} s")
    for role, (bot, base, n) in results.items():
        if n == 0:
            continue        # (one deal: the bot was the landlord only)
        lo, hi = wilson(bot, n)
        blo, bhi = wilson(base, n)
        print(f"as {role:8s}: PIMC wins {bot / n:.3f} (95% CI {lo:.3f}..{hi:.3f}), "
              f"greedy in the same seat {base / n:.3f} ({blo:.3f}..{bhi:.3f}) over {n} deals")


if __name__ == "__main__":
    main()
