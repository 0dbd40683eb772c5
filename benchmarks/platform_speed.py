"""Platform play (RULES.md 10) against plain deals, measured in one run.

    python benchmarks/platform_speed.py [--deals 20000] [--rounds 5]

Prints, per rule set, the deals per second of ``simulate`` with random
policies without options, with the ``+happy`` preset (rob bidding, showing,
doubling, cap 64) and with no-shuffle sessions of 10 deals, each as the
median of ``rounds`` interleaved rounds and as a ratio to the plain run;
then the bombs per deal of shuffled and no-shuffle deals for random and
greedy seats; then the cost of a ``Game.choose`` call beside a
``Game.play`` call driven from Python (medians of per-call times).
"""
from __future__ import annotations

import argparse
import random
import statistics
import time

import ddzfast
from ddzfast import Game, get_rules, simulate
from _args import at_least  # noqa: E402

RULES = ("classic", "biegang", "super", "laizi")


def no_shuffle(name: str):
    return get_rules(name).with_options(deal="no_shuffle", session=10)


def deals_per_second(rules, deals: int, policies=("random",) * 3) -> float:
    begin = time.perf_counter()
    simulate(deals, rules, policies, seed=7)
    return deals / (time.perf_counter() - begin)


def call_costs(rounds: int) -> tuple[float, float]:
    """Seconds per Game.choose call and per Game.play call from Python: each
    made on a copy of positions met along random happy deals (decision
    phases, and play), the time of the copy alone subtracted; the median of
    ``rounds`` rounds."""
    rng = random.Random(1)
    choices, plays = [], []
    for seed in range(200):
        g = Game("classic+happy", seed)
        while not g.done:
            if g.phase != "play":
                c = rng.choice(g.legal_choices())
                choices.append((g.copy(), c))
                g.choose(c)
            else:
                moves = g.legal_moves()
                m = moves[rng.randrange(len(moves))]
                plays.append((g.copy(), m))
                g.play(m)

    def per_call(items, act) -> float:
        begin = time.perf_counter()
        for game, x in items:
            act(game.copy(), x)
        with_call = time.perf_counter() - begin
        begin = time.perf_counter()
        for game, x in items:
            game.copy()
        return (with_call - (time.perf_counter() - begin)) / len(items)

    choose_t, play_t = [], []
    for _ in range(rounds):
        choose_t.append(per_call(choices, Game.choose))
        play_t.append(per_call(plays, Game.play))
    return statistics.median(choose_t), statistics.median(play_t)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=at_least(1), default=20000)
    ap.add_argument("--rounds", type=at_least(1), default=5)
    args = ap.parse_args()
    print(f"ddzfast {ddzfast.__version__}: {args.deals} deals per round, "
          f"median of {args.rounds} interleaved rounds, random policies")
    print(f"{'rules':10s} {'plain/s':>10s} {'+happy/s':>10s} {'ratio':>6s} "
          f"{'no-shuffle/s':>13s} {'ratio':>6s}")
    for name in RULES:
        variants = {"plain": name, "happy": f"{name}+happy", "session": no_shuffle(name)}
        times: dict[str, list[float]] = {k: [] for k in variants}
        for _ in range(args.rounds):
            for key, rules in variants.items():
                times[key].append(deals_per_second(rules, args.deals))
        med = {k: statistics.median(v) for k, v in times.items()}
        print(f"{name:10s} {med['plain']:10,.0f} {med['happy']:10,.0f} "
              f"{med['happy'] / med['plain']:6.2f} {med['session']:13,.0f} "
              f"{med['session'] / med['plain']:6.2f}")
    print("\nbombs per deal (bomb-tier moves played), shuffled vs no-shuffle sessions of 10")
    for name in RULES:
        for policy in ("random", "greedy"):
            shuffled = simulate(args.deals, name, (policy,) * 3, seed=3)["bombs"].mean()
            sessions = simulate(args.deals, no_shuffle(name), (policy,) * 3,
                                seed=3)["bombs"].mean()
            print(f"{name:10s} {policy:7s} shuffled {shuffled:.3f}  no-shuffle "
                  f"{sessions:.3f}  ({sessions / shuffled:.2f}x)")
    choose, play = call_costs(args.rounds)
    print(f"\nGame.choose {choose * 1e9:,.0f} ns per call, Game.play {play * 1e9:,.0f} ns "
          f"per call (choose / play = {choose / play:.2f})")


if __name__ == "__main__":
    main()
