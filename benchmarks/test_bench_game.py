"""pytest-benchmark suite for whole deals.

    python -m pytest benchmarks/test_bench_game.py --benchmark-json=deals.json

Groups: ``simulate-<rules>`` (native simulate of DEALS deals with random
policies, 1 and 2 threads, and with greedy policies) and ``python-driven``
(a deal driven from Python through Game.legal_moves()/Game.play() with a
random choice). ``extra_info["deals"]`` is the number of deals per round.
"""
import random

import pytest

import ddzfast

DEALS = 20000


@pytest.mark.parametrize("rules", ["classic", "biegang", "super", "laizi"])
@pytest.mark.parametrize("policy, threads", [("random", 1), ("random", 2), ("greedy", 1)])
def test_simulate(benchmark, rules, policy, threads):
    benchmark.group = f"simulate-{rules}"
    rows = benchmark(ddzfast.simulate, DEALS, rules, (policy,) * 3, seed=1, threads=threads)
    assert len(rows) == DEALS
    benchmark.extra_info["deals"] = DEALS


def test_python_driven_deals(benchmark):
    benchmark.group = "python-driven"
    n = 200

    def run():
        rng = random.Random(1)
        for i in range(n):
            game = ddzfast.Game("classic", i, bidding=False)
            while not game.done:
                legal = game.legal_moves()
                game.play(legal[rng.randrange(len(legal))])

    benchmark(run)
    benchmark.extra_info["deals"] = n
