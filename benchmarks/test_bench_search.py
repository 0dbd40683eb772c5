"""Search primitives driven from Python: what a bot written in Python pays
per node (pytest-benchmark; per call).

    python -m pytest benchmarks/test_bench_search.py --benchmark-only
"""
import pytest

from ddzfast import Game


def midgame(rules: str = "classic") -> Game:
    """A deal a few tricks in, with a trick open: a typical search node."""
    game = Game(rules, seed=42, bidding=False)
    for _ in range(7):
        game.play(game.policy_move("greedy"))
    assert not game.done
    return game


@pytest.mark.parametrize("rules", ["classic", "biegang"])
def test_play_undo(benchmark, rules):
    game = midgame(rules)
    moves = list(game.legal_moves())

    def nodes():
        for move in moves:
            game.play(move)
            game.undo()
        return len(moves)

    benchmark.extra_info["moves per round"] = len(moves)
    assert benchmark(nodes) == len(moves)


def test_copy(benchmark):
    game = midgame()
    benchmark(game.copy)


def test_legal_moves_play_undo_node(benchmark):
    """One node of a Python alpha-beta: generate, play the first, undo."""
    game = midgame()

    def node():
        move = game.legal_moves()[0]
        game.play(move)
        game.undo()

    benchmark(node)


def test_position_key(benchmark):
    game = midgame()
    benchmark(game.position_key)


def test_rollout_greedy(benchmark):
    game = midgame()
    benchmark(game.rollout, "greedy", 1)


@pytest.mark.parametrize("rules", ["classic", "tiandi"])
def test_rollout_random(benchmark, rules):
    """A Monte Carlo playout from a mid-game node, every seat random."""
    game = midgame(rules)
    benchmark(game.rollout, "random", 1)


def test_observation_sample(benchmark):
    obs = midgame().observation(1)
    benchmark(obs.sample, 1)


@pytest.mark.parametrize("rules", ["classic", "laizi", "tiandi"])
def test_new_deal(benchmark, rules):
    """A new dealt game in its play phase: what a determinizing search pays
    per world (a wild rule set plays by the rule set with its drawn ranks)."""
    game = benchmark(Game, rules, 7, False)
    assert game.phase == "play"
