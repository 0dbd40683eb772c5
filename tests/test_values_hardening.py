"""Regressions of the hardening review for the Python values and the Game
wrapper: each test failed (or crashed) on the code before the fix."""
import math
import pickle
import threading

import numpy as np
import pytest

import ddzfast
from ddzfast import (MOVE_DTYPE, Game, Hand, IllegalMoveError, InvalidCardsError,
                     Move, MoveKind, Rules, classify, deal_seed, get_rules,
                     legal_moves, legal_moves_batch, play)
from ddzfast._core import _score_row, _simulate_native


# ---- 1. memory-unsafe entry points ---------------------------------------------

def test_game_made_by_new_alone_is_a_whole_deal(run_python):
    # in a fresh interpreter, so that a crash fails the test instead of killing pytest
    result = run_python(code=(
        "from ddzfast import Game\n"
        "g = Game.__new__(Game)\n"
        "print(repr(g))\n"
        "g.bid(3)\n"
        "print(g.phase, g.landlord, g.rules.name, len(g.legal_moves()) > 0)\n"), timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "play 0 classic True"


def test_native_simulation_rejects_negative_deal_indices():
    with pytest.raises(ValueError, match="deal index"):
        _simulate_native("classic", ("random",) * 3, 0, -6, 10, True)
    with pytest.raises(ValueError, match="deal index"):
        _simulate_native("classic", ("random",) * 3, 0, 2 ** 63, 2 ** 63 + 1, True)


# ---- 3. rule-set descriptions ------------------------------------------------------

def classic_with(**changes):
    return get_rules("classic").with_options(**changes)


@pytest.mark.parametrize("changes, error", [
    (dict(wild_max_rank=32), ValueError),
    (dict(wild_max_rank=13), ValueError),
    (dict(wild_max_rank=2.0), TypeError),
    (dict(tiers={"BOMB": 2.9, "ROCKET": 3}), TypeError),
    (dict(tiers=[1]), TypeError),
    (dict(tiers=None), TypeError),
    (dict(tiers={"BOMB": True}), TypeError),
    (dict(multipliers=5), TypeError),
    (dict(multipliers={"BOMB": 2.9}), TypeError),
    (dict(multipliers={"BOMB": 0}), ValueError),
    (dict(multipliers={"NOPE": 2}), ValueError),
    (dict(deal_cap=math.nan), ValueError),
    (dict(deal_cap=math.inf), ValueError),
    (dict(deal_cap=-1), ValueError),
    (dict(deal_cap="10"), TypeError),
    (dict(mult_cap=math.inf), TypeError),
    (dict(mult_cap=0), ValueError),
    (dict(service_fee=math.nan), ValueError),
    (dict(service_fee=1.0), ValueError),
    (dict(kinds=()), ValueError),
    (dict(kinds="SINGLE"), TypeError),
    (dict(kinds=("PAIR", "BOMB")), ValueError),      # no SINGLE: a hand could not lead
    (dict(kinds=("SINGLE", "PASS")), ValueError),
    (dict(ranked=("PAIR",)), ValueError),            # ranked only means something for bombs
    (dict(wildcard=1), TypeError),
    (dict(kitty=3.0), TypeError),
    (dict(wild_joker_kind=7), TypeError),
])
def test_every_rules_field_is_checked(changes, error):
    with pytest.raises(error):
        classic_with(**changes)


def test_a_failed_description_changes_nothing():
    rules = get_rules("classic")
    before = bytes(np.frombuffer(pickle.dumps(rules), dtype=np.uint8))
    with pytest.raises(ValueError):
        classic_with(multipliers={"BOMB": 1000})
    assert bytes(np.frombuffer(pickle.dumps(rules), dtype=np.uint8)) == before


def test_built_in_rules_cannot_be_rewritten():
    classic = get_rules("classic")
    with pytest.raises(TypeError, match="immutable"):
        classic.__init__("classic", wildcard=True, kinds=("SINGLE",), kitty=4)
    assert not classic.wildcard
    assert [str(m) for m in legal_moves("3344", None, "classic")] == [
        "SINGLE 3", "SINGLE 4", "PAIR 33", "PAIR 44"]


def test_hands_and_moves_are_immutable():
    hand = Hand("33")
    key = hash(hand)
    with pytest.raises(TypeError, match="immutable"):
        hand.__init__("44")
    assert str(hand) == "33" and hash(hand) == key
    made = legal_moves("33")[0]
    with pytest.raises(TypeError, match="immutable"):
        made.cards.__init__("55")
    move = Move.parse("PAIR/3/1/33")
    with pytest.raises(TypeError, match="immutable"):
        move.__init__("SINGLE", 4, 1, "7")
    assert move.text == "PAIR/3/1/33"
    with pytest.raises(TypeError, match="immutable"):
        made.__init__("SINGLE", 4, 1, "7")


# ---- 4. only ValueError and TypeError (IndexError for an index) -----------------

def test_huge_ints_raise_the_right_errors():
    moves = legal_moves("33")
    with pytest.raises(IndexError):
        moves[2 ** 70]
    with pytest.raises(IndexError):
        moves[-2 ** 70]
    with pytest.raises(TypeError):
        moves["0"]
    with pytest.raises(ValueError):
        legal_moves_batch([int(Hand("3"))], threads=2 ** 40)
    with pytest.raises(TypeError):
        legal_moves_batch([int(Hand("3"))], threads=1.5)
    with pytest.raises(ValueError):
        Game(first_bidder=2 ** 40)
    with pytest.raises(TypeError):
        Game(first_bidder=1.0)
    game = Game(seed=3)
    with pytest.raises(ValueError):
        game.bid(2 ** 40)
    with pytest.raises(ValueError):
        game.observation(2 ** 70)
    with pytest.raises(ValueError):
        game.bid(1, seat=2 ** 70)
    with pytest.raises(ValueError):
        Game.from_position(["3", "4", "5"], landlord=2 ** 40)
    with pytest.raises(ValueError):
        Game.from_position(["3", "4", "5"], base=2 ** 40)
    with pytest.raises(ValueError):
        deal_seed(-1, 0)
    with pytest.raises(ValueError):
        deal_seed(0, -1)
    with pytest.raises(ValueError):
        deal_seed(2 ** 64, 0)


# ---- 5. games that cannot go on ------------------------------------------------------

@pytest.mark.parametrize("hands", [["", "", ""], ["3", "", "5"], ["3", "4", ""]])
def test_positions_never_hold_an_empty_hand(hands):
    with pytest.raises(ValueError, match="empty"):
        Game.from_position(hands)


def test_positions_have_no_seed_and_bools_are_not_bids():
    game = Game.from_position(["34", "56", "78"])
    assert game.seed is None
    assert "seed=None" in repr(game)
    dealt = Game("classic", seed=5)
    assert dealt.seed == 5
    with pytest.raises(ValueError, match="cannot bid True"):
        dealt.bid(True)
    assert dealt.bids == []
    dealt.bid(np.int64(2))
    assert dealt.bids == [(0, 2)] and type(dealt.bids[0][1]) is int


# ---- 6. every byte written ------------------------------------------------------------

def test_classify_bytes_do_not_change_between_calls():
    first = classify("3333", "biegang").array.tobytes()
    for _ in range(50):
        # other calls in between leave other stack contents behind
        legal_moves("3456789TJQKA2XDW", None, "biegang")
        assert classify("3333", "biegang").array.tobytes() == first
    raw = np.frombuffer(first, dtype=np.uint8).reshape(-1, 16)
    assert not raw[:, 12:].any()


def test_deal_rows_of_the_python_path_have_zero_padding():
    game = Game("classic", seed=9, bidding=False)
    while not game.done:
        game.play(game.policy_move("greedy"))
    rows = [_score_row(game).tobytes() for _ in range(20)]
    assert len(set(rows)) == 1
    row = np.frombuffer(rows[0], dtype=ddzfast.DEAL_DTYPE)
    fields = bytearray(len(rows[0]))
    for name in ddzfast.DEAL_DTYPE.names:
        offset = ddzfast.DEAL_DTYPE.fields[name][1]
        fields[offset:offset + ddzfast.DEAL_DTYPE.fields[name][0].itemsize] = \
            b"\x01" * ddzfast.DEAL_DTYPE.fields[name][0].itemsize
    padding = [i for i, f in enumerate(fields) if not f]
    assert padding, "the test expects padding in DEAL_DTYPE"
    assert all(rows[0][i] == 0 for i in padding)
    assert row["seed"][0] == 9


# ---- 7. silent wrong answers on wrong input ---------------------------------------------

def garbage_row(kind=200, rank=0, length=1, cards="3"):
    row = np.zeros(1, MOVE_DTYPE)
    row["cards"], row["kind"], row["rank"], row["length"] = int(Hand(cards)), kind, rank, length
    return row[0]


def test_play_checks_the_rows_kind_rank_and_length():
    with pytest.raises(IllegalMoveError):
        play("345", garbage_row(kind=200))
    with pytest.raises(IllegalMoveError):
        play("345", garbage_row(kind=int(MoveKind.PAIR)))
    with pytest.raises(IllegalMoveError):
        play("345", garbage_row(kind=int(MoveKind.SINGLE), rank=5), rules="classic")
    assert play("345", garbage_row(kind=int(MoveKind.SINGLE), rank=0)) == Hand("45")
    with pytest.raises(InvalidCardsError):
        play("45", legal_moves("33")[0])


def test_game_play_checks_rows_too():
    game = Game.from_position(["3456", "789", "TJQ"])
    with pytest.raises(IllegalMoveError):
        game.play(garbage_row(kind=200))
    assert game.history == []


# ---- 8. a Move never carries a stale reading of W ---------------------------------------

def test_move_wild_follows_the_rule_set_it_is_played_in():
    plain = get_rules("super").with_options(wild_joker_stands=False)
    rocket = Move.parse("ROCKET/X/1/XW")          # built-in super: W stands for D
    assert rocket.wild == 14
    assert Move.parse("ROCKET/X/1/XW", rules=plain).wild == ddzfast.WILD_KICKER
    game = Game.from_position(["XW", "3", "4"], plain)
    game.play(rocket)
    (_, played), = game.history
    assert played.wild == ddzfast.WILD_KICKER
    assert game.done
    game = Game.from_position(["XW3", "45", "67"], plain)
    game.play(rocket)
    assert game.last_move.wild == game.history[-1][1].wild == ddzfast.WILD_KICKER


# ---- 9. resources -------------------------------------------------------------------------

def test_a_batch_of_many_small_positions_fits_its_result():
    # 30 million one-card hands: 458 MiB of moves; a first guess of 64 moves
    # a position (29 GiB) used to fail with MemoryError
    hands = np.full(30_000_000, int(Hand("3")), dtype=np.uint64)
    offsets, moves = legal_moves_batch(hands)
    assert len(moves) == 30_000_000 and offsets[-1] == 30_000_000
    assert moves["cards"][-1] == int(Hand("3"))


def test_threads_beyond_the_machine_are_not_started():
    before = threading.active_count()
    hands = np.full(100, int(Hand("33")), dtype=np.uint64)
    offsets, moves = legal_moves_batch(hands, threads=ddzfast.MAX_THREADS)
    assert len(moves) == 200
    rows = _simulate_native("classic", ("random",) * 3, 1, 0, 50, True,
                            ddzfast.MAX_THREADS)
    assert np.array_equal(rows, _simulate_native("classic", ("random",) * 3, 1, 0, 50, True))
    assert threading.active_count() == before
    with pytest.raises(ValueError):
        legal_moves_batch(hands, threads=ddzfast.MAX_THREADS + 1)


# ---- 10. shared state ----------------------------------------------------------------------

def test_concurrent_queries_from_threads_agree_with_sequential_ones():
    rng = np.random.default_rng(4)
    deck = list("3456789TJQKA2" * 4 + "XDW")
    hands = ["".join(rng.choice(deck, 17, replace=False)) for _ in range(40)]
    rule_names = ("classic", "biegang", "super")
    expect = {(h, r): legal_moves(h, None, r).array.tobytes()
              for h in hands for r in rule_names if r != "classic" or "W" not in h}
    errors = []

    def work(seed):
        local = np.random.default_rng(seed)
        keys = list(expect)
        for _ in range(2000):
            h, r = keys[local.integers(len(keys))]
            if legal_moves(h, None, r).array.tobytes() != expect[(h, r)]:
                errors.append((h, r))

    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_kind_codes_are_checked_against_the_core():
    # the check runs at import; MoveKind and the core agree on every code
    assert [int(k) for k in MoveKind] == list(range(len(MoveKind)))
    assert Rules("classic").tier("BOMB") == 1


def test_rule_sets_that_compile_alike_share_an_id_and_pickle_to_themselves():
    a = get_rules("super").with_options(deal_cap=10)
    assert a.rules_id == get_rules("super").with_options(deal_cap=10.0).rules_id
    assert a.rules_id != get_rules("super").with_options(deal_cap=11).rules_id
    assert Rules("classic").rules_id == get_rules("classic").rules_id
    assert pickle.loads(pickle.dumps(get_rules("classic"))) is get_rules("classic")
    restored = pickle.loads(pickle.dumps(a))
    assert restored.rules_id == a.rules_id and restored.description == a.description
