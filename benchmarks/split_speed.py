"""Speed of the exact hand decomposition (issue 18), printed as medians and
99th percentiles of single calls from Python:

    python benchmarks/split_speed.py [--hands 2000] [--seed 0]

* ``min_plays`` of random 20-card hands of each rule set (goal for classic:
  median at most 10 us, p99 at most 1 ms; the wildcard sets within 5 times
  classic);
* ``plays_left`` for every legal move of a random 20-card lead (goal: at
  most 100 us for classic);
* ``min_plays_batch`` (one thread) per hand.
"""
import argparse
import random
import time

import numpy as np

import ddzfast
from ddzfast import Hand, legal_moves, min_plays, min_plays_batch, plays_left
from ddzfast.constants import deck_text
from _args import at_least  # noqa: E402

RULES = ("classic", "biegang", "super", "laizi:7")


def hands_of(rules, count, size, seed):
    rng = random.Random(f"{seed}-{rules}")
    deck = deck_text(ddzfast.get_rules(rules).wildcard)
    return [Hand("".join(rng.sample(deck, size)), rules).bits for _ in range(count)]


def timings(fn, items):
    out = []
    for item in items:
        t = time.perf_counter()
        fn(item)
        out.append(time.perf_counter() - t)
    return np.array(out) * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=at_least(4), default=2000,
                    help="hands a rule set (at least 4: plays_left is timed on a quarter)")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    print(f"{'rule set':10} {'call':28} {'median us':>10} {'p99 us':>10} {'max us':>10}")
    medians = {}
    for rules in RULES:
        hands = hands_of(rules, a.hands, 20, a.seed)
        t = timings(lambda h: min_plays(h, rules), hands)
        medians[rules] = np.median(t)
        print(f"{rules:10} {'min_plays (20 cards)':28} {np.median(t):10.1f} "
              f"{np.percentile(t, 99):10.1f} {t.max():10.1f}")
        leads = [(h, legal_moves(h, rules=rules)) for h in hands[: a.hands // 4]]
        t = timings(lambda p: plays_left(p[0], p[1], rules), leads)
        n = np.mean([len(p[1]) for p in leads])
        print(f"{rules:10} {f'plays_left (lead, {n:.0f} moves)':28} {np.median(t):10.1f} "
              f"{np.percentile(t, 99):10.1f} {t.max():10.1f}")
        arr = np.array(hands, dtype=np.uint64)
        t0 = time.perf_counter()
        min_plays_batch(arr, rules)
        per = (time.perf_counter() - t0) / len(arr) * 1e6
        print(f"{rules:10} {'min_plays_batch, per hand':28} {per:10.1f}")
    for rules in RULES[1:]:
        print(f"median {rules} / classic: {medians[rules] / medians['classic']:.1f}x")


if __name__ == "__main__":
    main()
