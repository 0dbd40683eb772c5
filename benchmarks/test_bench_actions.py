"""pytest-benchmark suite for the action indices and masks (issue 9).

    python -m pytest benchmarks/test_bench_actions.py --benchmark-only \
        --benchmark-group-by=group --benchmark-columns=median,mean,rounds

The positions are those of test_bench_moves.py (64 seeded positions per
group, the same seeds), so each group here compares directly with the same
group there. One round runs one call on each position: divide the median by
``extra_info["positions"]`` (64) for the time per call.

* ``mask_into``: ``legal_action_mask_into(hand, last, rules, out)`` into one
  preallocated bool buffer of ``action_count(rules)``;
* ``indices_into``: ``legal_action_indices_into`` into an int32 buffer;
* ``indices``: ``legal_action_indices`` (a new array per call);
* ``moves_into``: ``legal_moves_into`` (generation alone, the floor);
* ``old_mask``: ``legal_action_mask(legal_moves(...), rules)``, the way
  through Move lists that was the only one before issue 9;
* ``batch``: ``legal_action_mask_batch`` and ``legal_action_indices_batch``
  over the 64 positions in one call.

``test_bench_lead_mask`` is the figure of the issue: the mask of one classic
20-card lead (the first classic-20-lead position) from Python, one call per
round.
"""
import numpy as np
import pytest

import ddzfast
from ddzfast import (MOVE_DTYPE, action_count, legal_action_indices,
                     legal_action_indices_batch, legal_action_indices_into,
                     legal_action_mask, legal_action_mask_batch,
                     legal_action_mask_into, legal_moves, legal_moves_into)
from test_bench_moves import CASES, positions

APIS = ("mask_into", "indices_into", "indices", "moves_into", "old_mask",
        "mask_batch", "indices_batch")

PARAMS = [pytest.param(rules, size, mode, api, id=f"{rules}-{size}-{mode}-{api}")
          for rules, size in CASES
          for mode in ("lead", "follow")
          for api in APIS]


@pytest.mark.parametrize("rules,size,mode,api", PARAMS)
def test_bench(benchmark, rules, size, mode, api):
    pos = positions(rules, size, mode)
    benchmark.group = f"actions-{rules}-{size}-{mode}"
    count = action_count(rules)
    if api == "mask_into":
        out = np.zeros(count, dtype=bool)

        def run():
            return sum(legal_action_mask_into(h, last, rules, out) for _, h, last in pos)
    elif api == "indices_into":
        out = np.zeros(count, dtype=np.int32)

        def run():
            return sum(legal_action_indices_into(h, last, rules, out) for _, h, last in pos)
    elif api == "indices":
        def run():
            return sum(len(legal_action_indices(h, last, rules)) for _, h, last in pos)
    elif api == "moves_into":
        out = np.zeros(ddzfast.MOVE_BUFFER, dtype=MOVE_DTYPE)

        def run():
            return sum(legal_moves_into(h, last, rules, out) for _, h, last in pos)
    elif api == "old_mask":
        def run():
            return sum(int(legal_action_mask(legal_moves(h, last, rules), rules).sum())
                       for _, h, last in pos)
    else:
        hands = np.array([h for _, h, _ in pos], dtype=np.uint64)
        lasts = None
        if mode == "follow":
            lasts = np.concatenate([last.array for _, _, last in pos])
        if api == "mask_batch":
            out = np.zeros((len(pos), count), dtype=bool)

            def run():
                return int(legal_action_mask_batch(hands, lasts, rules, out=out).sum())
        else:
            def run():
                return len(legal_action_indices_batch(hands, lasts, rules)[1])
    total = run()
    benchmark.extra_info["positions"] = len(pos)
    benchmark.extra_info["moves_per_call"] = total / len(pos)
    benchmark(run)


def test_bench_lead_mask(benchmark):
    """One classic 20-card lead's mask, one call per round (the issue's figure)."""
    _, hand, _ = positions("classic", 20, "lead")[0]
    out = np.zeros(action_count("classic"), dtype=bool)
    benchmark.group = "lead-mask-classic-20"
    benchmark.extra_info["moves"] = legal_action_mask_into(hand, None, "classic", out)
    benchmark.pedantic(legal_action_mask_into, args=(hand, None, "classic", out),
                       rounds=20000, iterations=10, warmup_rounds=100)


def test_bench_lead_moves(benchmark):
    """The same lead's moves into a buffer: the generation floor."""
    _, hand, _ = positions("classic", 20, "lead")[0]
    out = np.zeros(ddzfast.MOVE_BUFFER, dtype=MOVE_DTYPE)
    benchmark.group = "lead-mask-classic-20"
    benchmark.extra_info["moves"] = legal_moves_into(hand, None, "classic", out)
    benchmark.pedantic(legal_moves_into, args=(hand, None, "classic", out),
                       rounds=20000, iterations=10, warmup_rounds=100)


def test_bench_lead_old_mask(benchmark):
    """The same lead's mask the old way: legal_action_mask(legal_moves(...))."""
    _, hand, _ = positions("classic", 20, "lead")[0]
    benchmark.group = "lead-mask-classic-20"
    benchmark.pedantic(lambda: legal_action_mask(legal_moves(hand, None, "classic"), "classic"),
                       rounds=2000, iterations=10, warmup_rounds=10)


def _mid_game(rules):
    """A classic-style deal played 12 plies in, by the greedy policy."""
    game = ddzfast.Game(rules, seed=5, bidding=False)
    for _ in range(12):
        game.play(game.policy_move("greedy"))
    return game


@pytest.mark.parametrize("rules", ["classic", "biegang", "super"])
def test_bench_observation_tensor(benchmark, rules):
    """Game.observation_tensor of the seat to move, into a reused buffer."""
    game = _mid_game(rules)
    out = np.zeros(ddzfast.OBSERVATION_SIZE, np.float32)
    benchmark.group = "observation"
    benchmark.pedantic(game.observation_tensor, args=(None, out), rounds=20000,
                       iterations=10, warmup_rounds=100)


def test_bench_observation_batch(benchmark):
    """observation_tensors of 64 games (one call), per round."""
    games = [_mid_game("classic") for _ in range(64)]
    out = np.zeros((64, ddzfast.OBSERVATION_SIZE), np.float32)
    benchmark.group = "observation"
    benchmark.extra_info["positions"] = 64
    benchmark.pedantic(ddzfast.observation_tensors, args=(games, None, out),
                       rounds=2000, iterations=1, warmup_rounds=10)


def _classic_leads(rules) -> np.ndarray:
    """The leads in ``rules`` of the 64 classic 20-card lead hands, as one
    MOVE_DTYPE array."""
    return np.concatenate([legal_moves(hand, None, rules).array
                           for _, hand, _ in positions("classic", 20, "lead")])


@pytest.mark.parametrize("rules", ["classic", "tiandi:7J"])
def test_bench_encode_moves(benchmark, rules):
    """features.encode_moves of the leads of the 64 classic 20-card lead hands
    (in tiandi:7J their 7s and Js are laizi) in one call, each row checked
    legal and encoded, per round."""
    moves = _classic_leads(rules)
    benchmark.group = "encode"
    benchmark.extra_info["moves"] = len(moves)
    benchmark(ddzfast.encode_moves, moves, rules)


def test_bench_encode_hands(benchmark):
    """features.encode_hands of the 64 classic 20-card lead hands, per round."""
    hands = np.array([hand for _, hand, _ in positions("classic", 20, "lead")], np.uint64)
    benchmark.group = "encode"
    benchmark.extra_info["hands"] = len(hands)
    benchmark(ddzfast.encode_hands, hands)


def test_bench_decode_moves(benchmark):
    """features.decode_hands of the encoded leads of the 64 classic 20-card
    lead hands (each row checked an encoding), per round."""
    moves = _classic_leads("classic")
    encoded = ddzfast.encode_moves(moves, "classic")
    benchmark.group = "encode"
    benchmark.extra_info["moves"] = len(moves)
    assert np.array_equal(benchmark(ddzfast.decode_hands, encoded), moves["cards"])
