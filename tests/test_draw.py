"""The random policy's draw in a laizi hand, and the counting it rests on.

A laizi lead can have thousands of legal moves; the random policy draws one
by its index without listing them: it counts the moves (main parts with
kickers, and their variants, by formula: _lz_kick_counts, _lz_spread,
_lz_count_ranks), draws k, and makes only move k, walking again only the
kind that holds it. Checked here:

* the count with no buffer (``_legal_move_count``) equals
  ``len(legal_moves(...))`` on random laizi hands of every size up to the
  whole deck, leading and following, and on the other rule sets;
* move k made alone equals ``legal_moves(...)[k]`` (its substitutes too),
  for every k, both by the window (``ddz_legal_move_at``) and as the draw
  makes it from where each kind's moves start (``drawn=True``), and nothing
  is made past the last move;
* ``simulate`` and ``Game.rollout`` with random policies play the very same
  laizi deals with the draw as with every move listed (``_draw_by_count``),
  so the policy stays uniform over the legal moves, and the classic rule
  sets are untouched.
"""
import contextlib
import random

import numpy as np
import pytest

import ddzfast
from ddzfast import _core, _engine
from helpers import CLASSIC_FAMILY, DECKS

RANKS = "3456789TJQKA2"
DECK = DECKS["classic"]


def laizi_position(rng, size, laizi, lead):
    """(rules name, hand, last move or None): a hand of `size` cards with
    `laizi` laizi of a random wild rank, leading or following a random legal
    move of the other cards."""
    wild = rng.choice(RANKS)
    others = [c for c in DECK if c != wild]
    rng.shuffle(others)
    hand = [wild] * laizi + others[:size - laizi]
    name = f"laizi:{wild}"
    if lead:
        return name, "".join(hand), None
    rest = others[size - laizi:][:20] + [wild] * (4 - laizi)
    moves = [m for m in ddzfast.legal_moves("".join(rest), None, name)]
    return name, "".join(hand), rng.choice(moves)


def positions(seed, count):
    rng = random.Random(seed)
    for _ in range(count):
        laizi = rng.randint(0, 4)
        size = rng.choice([laizi + 1, 5, 9, 13, 17, 20])
        yield laizi_position(rng, max(size, laizi), laizi, rng.random() < 0.6)


def same(a, b):
    return a == b and a.substitutes == b.substitutes


@pytest.mark.parametrize("seed", range(4))
def test_count_without_buffer_is_the_number_of_moves(seed):
    for name, hand, last in positions(seed, 150):
        assert _core._legal_move_count(hand, last, name) == len(
            ddzfast.legal_moves(hand, last, name)), (name, hand, last)


@pytest.mark.parametrize("rules", CLASSIC_FAMILY)
def test_count_without_buffer_other_rule_sets(rules):
    rng = random.Random(rules)
    deck = list(DECKS[rules])
    for _ in range(100):
        rng.shuffle(deck)
        hand = "".join(deck[:rng.choice([5, 12, 17, 21])])
        assert _core._legal_move_count(hand, None, rules) == len(
            ddzfast.legal_moves(hand, None, rules))


@pytest.mark.parametrize("drawn", [False, True], ids=["window", "marks"])
@pytest.mark.parametrize("seed", range(3))
def test_move_k_made_alone_is_the_listed_move_k(seed, drawn):
    rng = random.Random(100 + seed)
    for name, hand, last in positions(seed, 60):
        moves = ddzfast.legal_moves(hand, last, name)
        ks = range(len(moves)) if len(moves) <= 400 else rng.sample(range(len(moves)), 400)
        for k in ks:
            made = _core._legal_move_at(hand, last, name, k, drawn)
            assert same(made, moves[k]), (name, hand, last, k, made, moves[k])
        assert _core._legal_move_at(hand, last, name, len(moves), drawn) is None


@pytest.mark.parametrize("laizi", [1, 2, 3, 4])
def test_largest_hands(laizi):
    # the whole deck but the laizi not held: over 100,000 moves, chains of
    # up to 12 ranks with as many kickers (the counts' largest cases)
    rng = random.Random(laizi)
    wild = rng.choice(RANKS)
    hand = "".join(c for c in DECK if c != wild) + wild * laizi
    name = f"laizi:{wild}"
    moves = ddzfast.legal_moves(hand, None, name)
    assert _core._legal_move_count(hand, None, name) == len(moves)
    for k in rng.sample(range(len(moves)), 40) + [0, len(moves) - 1]:
        for drawn in (False, True):
            assert same(_core._legal_move_at(hand, None, name, k, drawn), moves[k])


def test_bad_index():
    with pytest.raises(IndexError):
        _core._legal_move_at("3457", None, "laizi:7", -1)
    assert _core._legal_move_at("3457", None, "laizi:7", 10 ** 6) is None


@contextlib.contextmanager
def listing_every_move():
    """The random policy lists every move and takes the k-th (as before
    the draw), for the span of the block."""
    _engine._draw_by_count(False)
    try:
        yield
    finally:
        _engine._draw_by_count(True)


@pytest.mark.parametrize("rules", ["laizi", "laizi:3", "laizi:2"])
def test_simulate_plays_the_same_deals_as_listing_every_move(rules):
    drawn = np.asarray(ddzfast.simulate(1500, rules, seed=5, threads=1))
    with listing_every_move():
        listed = np.asarray(ddzfast.simulate(1500, rules, seed=5, threads=1))
    assert drawn.tobytes() == listed.tobytes()


def test_rollout_and_policy_move_agree_with_listing():
    rollouts, moves = [], []
    for listed in (False, True):
        results, played = [], []
        with (listing_every_move() if listed else contextlib.nullcontext()):
            for seed in range(40):
                game = ddzfast.Game("laizi", seed=seed)
                results.append(game.rollout("random", seed=seed))
                while not game.done:
                    action = game.policy_action("random")
                    if isinstance(action, int):
                        game.bid(action)
                    else:
                        played.append((action, action.substitutes))
                        game.play(action)
        rollouts.append(results)
        moves.append(played)
    assert rollouts[0] == rollouts[1]
    assert moves[0] == moves[1]
