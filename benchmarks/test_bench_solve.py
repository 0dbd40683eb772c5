"""pytest-benchmark suite for the endgame solver.

    python -m pytest benchmarks/test_bench_solve.py --benchmark-json=solve.json

Group ``solve-puzzles``: the published two-player puzzles of issue 8 (and the
last without 3+2); group ``solve-harder``: our own larger and three-player
positions; group ``solve-large``: one node of a hand larger than a deal.
``extra_info`` holds the positions searched and the memory of the
search; benchmarks/solve_puzzles.py prints the same as a table. The winners
are checked in tests/test_solve.py; here only that a result came out.
"""
import pytest

from solve_puzzles import HARDER, PUZZLES, solve_position


def _run(benchmark, position, group):
    benchmark.group = group
    sol = benchmark(solve_position, position)
    assert sol.win is not None
    if position[4] is not None:
        assert sol.win == (position[4] == "first")
    benchmark.extra_info["nodes"] = sol.nodes
    benchmark.extra_info["memory"] = sol.memory


@pytest.mark.parametrize("position", PUZZLES, ids=[p[0] for p in PUZZLES])
def test_puzzle(benchmark, position):
    _run(benchmark, position, "solve-puzzles")


@pytest.mark.parametrize("position", HARDER, ids=[p[0] for p in HARDER])
def test_harder(benchmark, position):
    _run(benchmark, position, "solve-harder")


def test_whole_deck_one_node(benchmark):
    """Group ``solve-large``: one node of the whole deck but one card in
    tiandi:7J (millions of leads to order)."""
    import ddzfast
    from ddzfast.constants import deck_text
    deck = deck_text(False)
    benchmark.group = "solve-large"
    sol = benchmark.pedantic(ddzfast.solve, args=([deck[:-1], deck[-1:]], "tiandi:7J"),
                             kwargs={"max_nodes": 1}, rounds=3, iterations=1)
    assert sol.nodes == 1
