"""The same legal-move loop three ways, measured in one run:

* a Numba-jitted loop calling ddzfast.numba.legal_moves_into per position;
* the loop in the C core: legal_moves_batch(..., threads=1) into a buffer
  passed as ``out`` each round, as the Numba loop reuses its own;
* a Python loop calling ddzfast.legal_moves;

plus legal_moves_batch over 100,000 hands with 1 and 2 threads (moves per
second per core), each into a new array and into a buffer passed as ``out``
again and again. Prints medians and ratios.

    python benchmarks/numba_vs_core.py [--positions 20000] [--repeat 7]
"""
import argparse
import random
import statistics
import time

import numba
import numpy as np

import ddzfast
from ddzfast import MOVE_DTYPE, legal_moves, legal_moves_batch
from ddzfast import numba as dn
from ddzfast.constants import deck_text
from _args import at_least  # noqa: E402


@numba.njit(nogil=True)
def numba_loop(rules, hands, lasts, out):
    total = 0
    for i in range(hands.shape[0]):
        if lasts[i].kind == 0:
            total += dn.legal_moves_into(rules, hands[i], lasts[i:i], out)
        else:
            total += dn.legal_moves_into(rules, hands[i], lasts[i:i + 1], out)
    return total


def positions(n, seed, rules="classic", follow_share=0.5):
    rng = random.Random(seed)
    deck = deck_text(ddzfast.get_rules(rules).wildcard)
    hands = np.empty(n, np.uint64)
    lasts = np.zeros(n, MOVE_DTYPE)
    for i in range(n):
        hands[i] = int(ddzfast.Hand("".join(rng.sample(deck, 20))))
        if rng.random() < follow_share:
            other = legal_moves("".join(rng.sample(deck, 17)), None, rules).array
            lasts[i] = other[rng.randrange(len(other))]
    return hands, lasts


def median_time(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--positions", type=at_least(1), default=20000)
    ap.add_argument("--batch", type=at_least(1), default=100000)
    ap.add_argument("--repeat", type=at_least(1), default=7)
    args = ap.parse_args(argv)

    hands, lasts = positions(args.positions, 1)
    rules = dn.rules_handle("classic")
    out = np.empty(ddzfast.MOVE_BUFFER, MOVE_DTYPE)
    total = numba_loop(rules, hands, lasts, out)        # compiles
    assert total == len(legal_moves_batch(hands, lasts, "classic")[1])

    t_numba = median_time(lambda: numba_loop(rules, hands, lasts, out), args.repeat)
    # the same work as the Numba loop's: a buffer written again each round,
    # not a new array (whose first touch would be timed too)
    core_out = np.empty(total, MOVE_DTYPE)
    t_core = median_time(lambda: legal_moves_batch(hands, lasts, "classic", out=core_out),
                         args.repeat)
    pairs = [(int(h), None if l["kind"] == 0 else l) for h, l in zip(hands, lasts)]
    t_python = median_time(lambda: [legal_moves(h, l, "classic") for h, l in pairs],
                           max(3, args.repeat // 2))
    n = len(hands)
    print(f"{n} classic 20-card positions (half leads, half follows), {total} moves")
    print(f"  numba loop (ddzfast.numba)             {t_numba / n * 1e9:8.0f} ns/position")
    print(f"  C core loop (batch into out, 1 thread) {t_core / n * 1e9:8.0f} ns/position")
    print(f"  Python loop (legal_moves)              {t_python / n * 1e9:8.0f} ns/position")
    print(f"  numba / C core: {t_numba / t_core:.2f}x   "
          f"Python loop / numba: {t_python / t_numba:.1f}x")

    for rules_name in ("classic", "biegang"):
        big, _ = positions(args.batch, 2, rules_name, follow_share=0.0)
        moves = len(legal_moves_batch(big, None, rules_name)[1])
        buf = np.empty(moves, MOVE_DTYPE)
        for threads in (1, 2):
            t = median_time(lambda: legal_moves_batch(big, None, rules_name, threads=threads),
                            max(3, args.repeat // 2))
            t_out = median_time(lambda: legal_moves_batch(big, None, rules_name,
                                                          threads=threads, out=buf),
                                max(3, args.repeat // 2))
            print(f"legal_moves_batch {rules_name} {args.batch} 20-card leads, "
                  f"{threads} thread(s): {moves / t / 1e6:6.1f} M moves/s "
                  f"({moves / t / threads / 1e6:.1f} per thread); into out: "
                  f"{moves / t_out / 1e6:6.1f} M moves/s ({t / t_out:.2f}x)")


if __name__ == "__main__":
    main()
