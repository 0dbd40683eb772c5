"""pytest-benchmark suite for whole deals.

    python -m pytest benchmarks/test_bench_game.py --benchmark-json=deals.json

Groups: ``simulate-<rules>`` (native simulate of DEALS deals with random
policies, 1 and 2 threads, and with greedy policies), ``simulate-platform-
<rules>`` (random policies without options, with the ``+happy`` preset and
with no-shuffle sessions of 10: RULES.md 10), ``simulate-progress-<deals>``
(2 threads, with and without a ``progress`` callback, shuffled deals and
two sessions of half the run each) and ``python-driven`` (a deal
driven from Python through Game.legal_moves()/Game.play() with a random
choice, and a happy deal with its decisions through Game.choose()).
``extra_info["deals"]`` is the number of deals per round;
benchmarks/platform_speed.py prints the platform ratios in one run.
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


@pytest.mark.parametrize("rules", ["classic", "biegang", "super", "laizi"])
@pytest.mark.parametrize("variant", ["plain", "happy", "no_shuffle"])
def test_simulate_platform(benchmark, rules, variant):
    benchmark.group = f"simulate-platform-{rules}"
    r = (rules if variant == "plain" else f"{rules}+happy" if variant == "happy"
         else ddzfast.get_rules(rules).with_options(deal="no_shuffle", session=10))
    rows = benchmark(ddzfast.simulate, DEALS, r, ("random",) * 3, seed=1)
    assert len(rows) == DEALS
    benchmark.extra_info["deals"] = DEALS


@pytest.mark.parametrize("deals", ["shuffled", "sessions"])
@pytest.mark.parametrize("progress", [False, True], ids=["plain", "progress"])
def test_simulate_progress(benchmark, deals, progress):
    benchmark.group = f"simulate-progress-{deals}"
    r = ("classic" if deals == "shuffled" else
         ddzfast.get_rules("classic").with_options(deal="no_shuffle", session=DEALS // 2))
    seen = []
    rows = benchmark(ddzfast.simulate, DEALS, r, ("random",) * 3, seed=1, threads=2,
                     progress=seen.append if progress else None)
    assert len(rows) == DEALS and (not progress or seen[-1] == DEALS)
    benchmark.extra_info["deals"] = DEALS


@pytest.mark.parametrize("rules, bidding", [("classic", False), ("classic+happy", True)])
def test_python_driven_deals(benchmark, rules, bidding):
    benchmark.group = "python-driven"
    n = 200

    def run():
        rng = random.Random(1)
        for i in range(n):
            game = ddzfast.Game(rules, i, bidding=bidding)
            while not game.done:
                if game.phase != "play":            # the platform decisions
                    game.choose(rng.choice(game.legal_choices()))
                    continue
                legal = game.legal_moves()
                game.play(legal[rng.randrange(len(legal))])

    benchmark(run)
    benchmark.extra_info["deals"] = n
