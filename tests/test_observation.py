"""Observation tensors (issue 9, part 2): every block of
Game.observation_tensor checked against values computed here, independently,
from the Game's public attributes, over random deals in every rule set and
every phase (laizi included: the wild_rank block and, in move encodings,
what the laizi stand for); the batched form agrees; the layout is the
documented one."""
import math
import random

import numpy as np
import pytest

import ddzfast
from ddzfast import (HISTORY_MOVES, OBSERVATION_DTYPE, OBSERVATION_HIGH,
                     OBSERVATION_LAYOUT, OBSERVATION_SIZE, Game, MoveKind,
                     observation_tensors)
from ddzfast.constants import CARD_LIMITS, WILD_NONE
from helpers import RULE_SETS, assert_never_writable

# every rule set; laizi with its wild rank drawn per deal; +happy: every
# platform decision (RULES.md 10)
OBS_RULES = RULE_SETS + ("laizi", "classic+happy", "laizi:7+happy")
NKINDS = len(MoveKind)
MOVE_SIZE = 61 + 16 + NKINDS          # 98: cards, what wildcards stand for, kind

EXPECTED_LAYOUT = [  # name, offset, size: the documented layout, frozen
    ("seat", 0, 3), ("phase", 3, 3), ("to_move", 6, 3), ("hand", 9, 61),
    ("unseen", 70, 61), ("played", 131, 183), ("cards_left", 314, 66),
    ("landlord", 380, 3), ("bids", 383, 15), ("base", 398, 4), ("kitty", 402, 61),
    ("kitty_shown", 463, 1), ("last_move", 464, 98), ("last_seat", 562, 3),
    ("bombs", 565, 1), ("multiplier", 566, 1), ("history", 567, 15 * 101),
    ("wild_rank", 2082, 13),
    # platform play (RULES.md 10), appended
    ("deal_phase", 2095, 6), ("shown", 2101, 3), ("shown_hands", 2104, 183),
    ("calls", 2287, 9), ("robbed", 2296, 9), ("robs", 2305, 1),
    ("show_multiplier", 2306, 3), ("doubles", 2309, 12), ("redeals", 2321, 1)]


def test_layout_is_documented_and_contiguous():
    assert [(n, b.offset, b.size) for n, b in OBSERVATION_LAYOUT.items()] == EXPECTED_LAYOUT
    assert OBSERVATION_SIZE == 2322 and OBSERVATION_DTYPE == np.float32
    assert MOVE_SIZE == 98
    end = 0
    for name, block in OBSERVATION_LAYOUT.items():
        assert block.offset == end and block.size == math.prod(block.shape)
        assert block.description
        end += block.size
    assert end == OBSERVATION_SIZE
    assert HISTORY_MOVES == OBSERVATION_LAYOUT["history"].shape[0]
    doc = Game.observation_tensor.__doc__
    for name in OBSERVATION_LAYOUT:
        assert name in doc


# ---- an independent encoder from public attributes --------------------------------

def cards_vec(hand) -> np.ndarray:
    counts = ddzfast.Hand(int(hand)).counts
    v = np.zeros(61, np.float32)
    for i in range(15):
        for j in range(counts[i]):
            v[j * 15 + i] = 1
    v[60] = counts[15]
    return v


def move_vec(move) -> np.ndarray:
    v = np.zeros(MOVE_SIZE, np.float32)
    v[:61] = cards_vec(move.cards)
    if move.wild != WILD_NONE:
        v[61 + move.wild] = 1
    # laizi: how many laizi stand for each rank 3..2
    v[61:61 + 13] += np.float32(move.substitutes.counts[:13])
    v[77 + int(move.kind)] = 1
    return v


def one_hot(n, i) -> np.ndarray:
    v = np.zeros(n, np.float32)
    if i is not None:
        v[i] = 1
    return v


def multi_hot(n, indices) -> np.ndarray:
    v = np.zeros(n, np.float32)
    v[list(indices)] = 1
    return v


def expected(game: Game, seat: int) -> dict:
    rel = lambda s: (s - seat) % 3  # noqa: E731
    order = [seat, (seat + 1) % 3, (seat + 2) % 3]
    history = game.history
    played = [ddzfast.Hand() for _ in range(3)]
    for s, mv in history:
        played[s] = played[s] + mv.cards
    deck = [CARD_LIMITS[i] if i < 15 or game.rules.wildcard else 0 for i in range(16)]
    hand = game.hands[seat]
    unseen = [deck[i] - hand.counts[i] - sum(p.counts[i] for p in played) for i in range(16)]
    unseen_bits = sum(c << (4 * i) for i, c in enumerate(unseen))
    bids = {} if game.rules.platform["bidding"] == "rob" else {s: b for s, b in game.bids}
    bidding = game.landlord is None
    # rob bidding: each seat's call, then the robs (the caller's last included)
    called, robbed = [-1] * 3, [-1] * 3
    if game.rules.platform["bidding"] == "rob":
        stage = 0
        for s, c in game.calls:
            if stage == 0:
                called[s] = c
                stage = c
            else:
                robbed[s] = c
    shows = [w for w in game.shown if w is not None]
    show = 4 if "before_bidding" in shows else (2 if shows else 1)
    phases = ("bidding", "play", "done", "show", "landlord_show", "doubling")
    hist = np.zeros((HISTORY_MOVES, MOVE_SIZE + 3), np.float32)
    for k, (s, mv) in enumerate(reversed(history[-HISTORY_MOVES:])):
        hist[k, :MOVE_SIZE] = move_vec(mv)
        hist[k, MOVE_SIZE + rel(s)] = 1
    return {
        "seat": one_hot(3, seat),
        "phase": one_hot(3, phases.index(game.phase) if phases.index(game.phase) < 3
                         else None),
        "to_move": one_hot(3, None if game.to_move is None else rel(game.to_move)),
        "hand": cards_vec(hand),
        "unseen": cards_vec(unseen_bits),
        "played": np.concatenate([cards_vec(played[s]) for s in order]),
        "cards_left": np.concatenate([one_hot(22, min(game.cards_left[s], 21))
                                      for s in order]),
        "landlord": one_hot(3, None if bidding else rel(game.landlord)),
        "bids": np.concatenate([one_hot(5, 0 if s not in bids else 1 + bids[s])
                                for s in order]),
        "base": one_hot(4, min(game.base, 3)),
        "kitty": np.zeros(61, np.float32) if bidding else cards_vec(game.kitty),
        "kitty_shown": np.float32([0 if bidding else 1]),
        "last_move": (np.zeros(MOVE_SIZE, np.float32) if game.last_move is None
                      else move_vec(game.last_move)),
        "last_seat": one_hot(3, None if game.last_seat is None else rel(game.last_seat)),
        "bombs": np.float32([sum(1 for _, mv in history
                                 if game.rules.tier(mv.kind) > 0)]),
        "multiplier": np.float32([math.log2(game.multiplier)]),
        "history": hist.reshape(-1),
        "wild_rank": multi_hot(13, game.wild_ranks),
        "deal_phase": one_hot(6, phases.index(game.phase)),
        "shown": np.float32([game.shown[s] is not None for s in order]),
        "shown_hands": np.concatenate([cards_vec(game.hands[s]) if game.shown[s]
                                       else np.zeros(61, np.float32) for s in order]),
        "calls": np.concatenate([one_hot(3, 1 + called[s]) for s in order]),
        "robbed": np.concatenate([one_hot(3, 1 + robbed[s]) for s in order]),
        "robs": np.float32([game.robs]),
        "show_multiplier": one_hot(3, (1, 2, 4).index(show)),
        "doubles": np.concatenate([one_hot(4, 0 if game.doubles[s] is None else
                                           1 + (1, 2, 4).index(game.doubles[s]))
                                   for s in order]),
        "redeals": np.float32([game.redeals]),
    }


def check(game: Game, seat: int, tensor: np.ndarray) -> None:
    assert tensor.dtype == np.float32 and tensor.shape == (OBSERVATION_SIZE,)
    want = expected(game, seat)
    for name, block in OBSERVATION_LAYOUT.items():
        got = tensor[block.offset:block.offset + block.size]
        assert np.array_equal(got, want[name]), (name, game, seat)
    assert (tensor >= 0).all() and (tensor <= OBSERVATION_HIGH).all()


def random_games(rules, n, rng):
    """Games in every phase: (game) snapshots taken along random deals."""
    for _ in range(n):
        game = Game(rules, seed=rng.randrange(2**63), bidding=rng.random() < 0.7)
        stop = rng.choice([0, 1, 2, rng.randrange(3, 12), rng.randrange(3, 150),
                           rng.randrange(3, 150)])
        steps = 0
        while not game.done and steps < stop:
            if game.phase != "play":
                game.choose(rng.choice(game.legal_choices()))
            else:
                moves = game.legal_moves()
                game.play(moves[rng.randrange(len(moves))])
            steps += 1
        yield game


@pytest.mark.parametrize("rules", OBS_RULES)
def test_blocks_match_public_attributes(rules):
    # seeded by the name, so that adding a rule set leaves the others' games
    rng = random.Random(rules)
    if "+happy" in rules:
        phases = {"show", "bidding", "landlord_show", "doubling", "play"}
    else:
        phases = {"bidding", "play", "done"}
    seen_phases = set()
    # at least 60 games, and more (up to 600) until every phase has been
    # observed: how soon a seed reaches a rare phase is chance
    for played, game in enumerate(random_games(rules, 600, rng), 1):
        seen_phases.add(game.phase)
        for seat in range(3):
            check(game, seat, game.observation_tensor(seat))
        if not game.done:
            assert np.array_equal(game.observation_tensor(),
                                  game.observation_tensor(game.to_move))
        if played >= 60 and seen_phases >= phases:
            break
    if "+happy" in rules:
        assert seen_phases >= phases
    else:
        assert seen_phases == phases


def test_a_finished_deal_has_no_default_observer():
    """Once a deal is over no seat is to move: observation() without a seat
    returned an internal seat's view, where observation_tensor() raised.
    Both raise now; a named seat is observed as before."""
    game = Game("classic", seed=1, bidding=False)
    while not game.done:
        game.play(game.policy_move("greedy"))
    assert game.to_move is None
    for observe in (game.observation, game.observation_tensor):
        with pytest.raises(ValueError, match="no seat is to move; name the seat"):
            observe()
    assert [game.observation(s).seat for s in range(3)] == [0, 1, 2]


def test_laizi_observations_show_the_wild_rank_and_substitutes():
    """Every wild rank shows in the wild_rank block (from bidding on), and a
    laizi move's substitutes reach last_move and history."""
    block = OBSERVATION_LAYOUT["wild_rank"]
    ranks = set()
    for seed in range(60):
        game = Game("laizi", seed=seed, bidding=True)
        t = game.observation_tensor(0)
        assert game.wild_rank is not None
        assert np.flatnonzero(t[block.offset:block.offset + block.size]).tolist() == \
            [game.wild_rank]
        ranks.add(game.wild_rank)
    assert len(ranks) >= 10
    # a fixed wild rank: "laizi:7" leads PAIR 37 (7 as 3)
    game = Game.from_position(["37", "44", "55"], landlord=0, rules="laizi:7")
    move = next(m for m in game.legal_moves() if int(m.substitutes))
    assert str(move) == "PAIR 37 (7 as 3)"
    game.play(move)
    t = game.observation_tensor(1)
    last = OBSERVATION_LAYOUT["last_move"].offset
    hist = OBSERVATION_LAYOUT["history"].offset
    for start in (last, hist):
        assert t[start + 61:start + 77].tolist() == [1.0] + [0.0] * 15
    check(game, 1, t)
    assert t[block.offset + 4] == 1           # '7' is index 4
    # classic: the block stays zero
    t = Game("classic", seed=1).observation_tensor(0)
    assert not t[block.offset:block.offset + block.size].any()


@pytest.mark.parametrize("rules", OBS_RULES)
def test_batch_agrees(rules):
    rng = random.Random(7)
    games = [g for g in random_games(rules, 20, rng) if not g.done]
    batch = observation_tensors(games)
    assert batch.shape == (len(games), OBSERVATION_SIZE)
    for i, g in enumerate(games):
        assert np.array_equal(batch[i], g.observation_tensor())
    one = games[0]
    seats = observation_tensors([one] * 3, [0, 1, 2])
    for s in range(3):
        assert np.array_equal(seats[s], one.observation_tensor(s))
    out = np.full((3, OBSERVATION_SIZE), 9, np.float32)
    assert observation_tensors([one] * 3, 1, out=out) is out
    assert np.array_equal(out[2], one.observation_tensor(1))


def test_from_position_and_hidden_information():
    game = Game.from_position(["33", "44", "55"], landlord=1, kitty="4")
    t = game.observation_tensor(0)
    check(game, 0, t)
    # seat 0 never sees seat 1's hand: two games that differ only there
    # give seat 0 the same tensor
    a = Game("classic", seed=11, bidding=False)
    b = Game.from_position([a.hands[0], a.hands[2], a.hands[1]], landlord=0,
                           kitty=a.kitty)
    assert not np.array_equal(a.observation_tensor(1), b.observation_tensor(1))
    ta, tb = a.observation_tensor(0), b.observation_tensor(0)
    assert np.array_equal(ta, tb)


def test_bad_arguments():
    game = Game("classic", seed=1)
    with pytest.raises(ValueError):
        game.observation_tensor(3)
    with pytest.raises(TypeError):
        game.observation_tensor("0")
    with pytest.raises(TypeError):
        game.observation_tensor(0, out=np.zeros(OBSERVATION_SIZE, np.float64))
    with pytest.raises(ValueError):
        game.observation_tensor(0, out=np.zeros(OBSERVATION_SIZE + 1, np.float32))
    with pytest.raises(ValueError):
        game.observation_tensor(0, out=np.zeros(2 * OBSERVATION_SIZE, np.float32)[::2])
    ro = np.zeros(OBSERVATION_SIZE, np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError):
        game.observation_tensor(0, out=ro)
    with pytest.raises(TypeError):
        observation_tensors([game, "not a game"])
    with pytest.raises(ValueError):
        observation_tensors([game, game], [0])
    with pytest.raises(ValueError):
        observation_tensors([game], [5])
    # a 0-d array is its one seat, as an int is (it was "iteration over a
    # 0-d array"); text is no sequence of seats
    assert (observation_tensors([game, game], np.array(1))
            == observation_tensors([game, game], 1)).all()
    with pytest.raises(TypeError, match="seats is None, a seat or a sequence"):
        observation_tensors([game], "0")
    with pytest.raises(TypeError, match="seats is None, a seat or a sequence"):
        observation_tensors([game], 1.5)
    done = Game.from_position(["3", "4", "5"])
    done.play(done.legal_moves()[0])
    assert done.done
    with pytest.raises(ValueError):
        done.observation_tensor()
    check(done, 2, done.observation_tensor(2))


def test_out_in_the_other_byte_order_is_refused():
    """A float32 out of the other byte order was written as the machine's,
    so the tensor read back as other numbers."""
    game = ddzfast.Game(seed=1)
    with pytest.raises(TypeError, match="byte order"):
        game.observation_tensor(out=np.zeros(OBSERVATION_SIZE, ">f4"))
    with pytest.raises(TypeError, match="byte order"):
        ddzfast.observation_tensors([game], out=np.zeros((1, OBSERVATION_SIZE), ">f4"))


def test_the_layout_blocks_pickle():
    """ObservationBlock (a namedtuple made in compiled code) named
    importlib's module, so pickle could not find it."""
    import pickle
    block = OBSERVATION_LAYOUT["hand"]
    assert pickle.loads(pickle.dumps(block)) == block


@pytest.mark.parametrize("rob_base", [1, 3, 4, 100])
def test_a_base_over_three_is_shown(rob_base):
    """A deal bid by robbing whose rob_base (1..100) passed 3 had an all-zero
    base block: no entry of the one-hot, so base 4 and base 100 read alike,
    and as no state of point bidding does."""
    rules = ddzfast.get_rules("classic").with_options(bidding="rob", rob_base=rob_base)
    rng = random.Random(rob_base)
    for game in random_games(rules, 20, rng):
        for seat in range(3):
            check(game, seat, game.observation_tensor(seat))
        block = OBSERVATION_LAYOUT["base"]
        assert game.observation_tensor(0)[block.offset:block.offset + block.size].sum() == 1


def test_observation_tensors_of_one_game_says_to_repeat_it():
    """Regression (a user's review): observation_tensors(game, [0, 1, 2])
    was "'Game' object is not iterable"."""
    game = Game("classic", seed=1)
    with pytest.raises(TypeError, match=r"\[game\] \* 3"):
        ddzfast.observation_tensors(game, [0, 1, 2])
    assert ddzfast.observation_tensors([game] * 3, [0, 1, 2]).shape == (3, OBSERVATION_SIZE)


def test_a_bad_row_of_observation_tensors_writes_no_row():
    """Regression (a user's review): a bad seat or a finished game in a
    later row raised after the earlier rows were written into ``out``."""
    game = Game("classic", seed=1, bidding=False)
    done = Game.from_position(["3", "4", "5"])
    done.play(done.legal_moves()[0])
    for games, seats, error in (([game, game], [0, 3], "games\\[1\\]: .*seat"),
                                ([game, done], None, "games\\[1\\]: .*over")):
        out = np.full((2, OBSERVATION_SIZE), 7, np.float32)
        with pytest.raises(ValueError, match=error):
            observation_tensors(games, seats, out=out)
        assert (out == 7).all()


def test_observation_high_cannot_be_made_writable():
    """OBSERVATION_HIGH, the observation spaces' bounds, owned its data:
    its WRITEABLE flag could be set back and the constant changed for every
    environment of the process."""
    assert_never_writable(OBSERVATION_HIGH)
    assert not OBSERVATION_HIGH.flags.writeable
