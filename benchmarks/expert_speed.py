"""Decisions per second of the built-in policies on one core (issue 18's
goal for "expert": at least 20,000):

    python benchmarks/expert_speed.py [--deals 2000] [--rules classic]

``simulate`` plays the deals in C (no bidding, one thread); the decisions
(moves and passes) of the same deals are counted by replaying them move by
move with ``Game.policy_move``, which makes the same choices. Prints the
median of 5 runs.
"""
import argparse
import statistics
import time

from ddzfast import Game, deal_seed, simulate
from _args import at_least  # noqa: E402


def decisions(rules, policy, deals, seed):
    total = 0
    for i in range(deals):
        game = Game(rules, deal_seed(seed, i), bidding=False, first_bidder=i % 3)
        while not game.done:
            game.play(game.policy_move(policy))
            total += 1
    return total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=at_least(1), default=2000)
    ap.add_argument("--rules", default="classic")
    a = ap.parse_args()
    for policy in ("random", "greedy", "expert"):
        n = decisions(a.rules, policy, a.deals, 1)
        runs = []
        for _ in range(5):
            t = time.perf_counter()
            simulate(a.deals, a.rules, policies=policy, seed=1, bidding=False)
            runs.append(time.perf_counter() - t)
        sec = statistics.median(runs)
        print(f"{a.rules:8} {policy:7} {n / a.deals:6.1f} decisions/deal "
              f"{n / sec:12,.0f} decisions/s  ({a.deals / sec:,.0f} deals/s)")


if __name__ == "__main__":
    main()
