"""pytest-benchmark suite of the exact hand decomposition (issue 18):

    python -m pytest benchmarks/test_bench_split.py --benchmark-json=split.json

Each round splits the same 200 random 20-card hands of a rule set (so the
mean per round / 200 is the mean per hand), or computes ``plays_left`` for
every legal move of 50 random 20-card leads. benchmarks/split_speed.py
prints medians and 99th percentiles of single calls.
"""
import pytest

from ddzfast import legal_moves, min_plays, plays_left
from split_speed import RULES, hands_of


@pytest.mark.parametrize("rules", RULES)
def test_min_plays_20_cards(benchmark, rules):
    hands = hands_of(rules, 200, 20, 0)
    benchmark.group = "min_plays"

    def run():
        for h in hands:
            min_plays(h, rules)

    benchmark(run)


@pytest.mark.parametrize("rules", RULES)
def test_plays_left_lead(benchmark, rules):
    leads = [(h, legal_moves(h, rules=rules)) for h in hands_of(rules, 50, 20, 1)]
    benchmark.group = "plays_left"

    def run():
        for h, moves in leads:
            plays_left(h, moves, rules)

    benchmark(run)
