"""The deal engine: scoring (one test per row of RULES.md 6, the multiplier
saturating), bidding, the forced pass of a lone W, turn order, errors that
leave the game as it was, and laizi deals (the wild rank drawn from the
seed; random deals against the laizi reference; every laizi bomb doubling)."""
import collections
import math
import pickle
import random

import numpy as np
import pytest

import ddzfast
from ddzfast import Game, Move, MoveKind, get_rules
from ddzfast.constants import CARD_CHARS
from helpers import L7, RULE_SETS, identity
from oracles import reference_laizi as RL

M = Move.parse


def finish(game, moves):
    for text in moves:
        game.play(M(text))
    assert game.done
    return game.result


# ---- scoring ----------------------------------------------------------------------

@pytest.mark.parametrize("rules, opening, factor", [
    ("classic", "BOMB/3/1/3333", 2),
    ("classic", "ROCKET/X/1/XD", 2),
    ("biegang", "BOMB/3/1/333W", 2),
    ("biegang", "ROCKET/X/1/XD", 2),
    ("biegang", "WILD_ROCKET/X/1/XW", 2),
    ("biegang", "HEAVEN_ROCKET/X/1/XDW", 4),
    ("biegang", "HEAVEN_BOMB/3/1/3333W", 4),
    ("super", "BOMB/3/1/3333", 2),
    ("super", "ROCKET/X/1/DW", 2),
    ("super", "SUPER_BOMB/3/1/3333W", 3),
])
def test_each_bomb_kind_multiplies(rules, opening, factor):
    opening_cards = str(M(opening).cards)
    # the landlord bombs, then the farmers pass and a farmer wins: no spring,
    # no anti-spring (the landlord played twice)
    game = Game.from_position([opening_cards + "45", "6", "7"], rules, landlord=0, base=1)
    game.play(M(opening))
    game.play(M("PASS"))
    game.play(M("PASS"))
    game.play(M("SINGLE/4/1/4"))
    game.play(M("SINGLE/6/1/6"))          # farmer 1 goes out
    result = game.result
    assert (result.winner, result.winner_seat) == ("farmers", 1)
    assert not result.spring and not result.anti_spring
    assert result.multiplier == factor
    assert result.scores == (-2 * factor, factor, factor)


def test_plain_win_scores_and_base():
    game = Game.from_position(["3", "45", "6"], "classic", landlord=0, base=3)
    game.play(M("SINGLE/3/1/3"))      # the landlord wins at once: a spring
    assert game.result.scores == (2 * 3 * 2, -3 * 2, -3 * 2)
    game = Game.from_position(["6", "345", "7"], "classic", landlord=1, base=2)
    # seat 1 is the landlord and leads; seat 2 (a farmer) goes out
    game.play(M("SINGLE/3/1/3"))
    game.play(M("SINGLE/7/1/7"))
    r = game.result
    assert r.winner == "farmers" and r.anti_spring and r.multiplier == 2
    assert r.scores == (2 * 2, -2 * 2 * 2, 2 * 2)


def test_spring():
    r = finish(Game.from_position(["34", "5", "6"], "classic"), [
        "SINGLE/3/1/3", "PASS", "PASS", "SINGLE/4/1/4"])
    assert r.spring and r.multiplier == 2 and r.scores == (4, -2, -2)


def test_no_spring_when_a_farmer_played():
    r = finish(Game.from_position(["38", "59", "6"], "classic"), [
        "SINGLE/3/1/3", "SINGLE/5/1/5", "PASS", "SINGLE/8/1/8"])
    assert r.winner == "landlord" and not r.spring and r.multiplier == 1


def test_a_positions_move_to_beat_is_a_play_of_its_seat():
    """Regression (a user's review): a position's springs counted only the
    plays after it, so a landlord beating a farmer's move to beat and going
    out scored a spring; that move is a play of its seat, as the history's
    plays are (a position plays as a deal of its own, RULES.md 6)."""
    game = Game.from_position(["2", "4", "5"], landlord=0, to_move=0,
                              last_move=M("SINGLE/A/1/A"), last_seat=1)
    r = finish(game, ["SINGLE/2/1/2"])
    assert r.winner == "landlord" and not r.spring and r.scores == (2, -1, -1)
    # the landlord's move to beat is its one play, and the farmers go out
    # before it plays again: an anti-spring
    game = Game.from_position(["3", "2", "5"], landlord=0, to_move=1,
                              last_move=M("SINGLE/A/1/A"), last_seat=0)
    r = finish(game, ["SINGLE/2/1/2"])
    assert r.winner == "farmers" and r.anti_spring and r.multiplier == 2


def test_a_positions_bomb_to_beat_doubles_as_a_play():
    """A position's bomb to beat counted as a play for the springs but not
    for the multiplier (the user review of 2026-12-05): RULES.md 6 doubles
    for every bomb played, and the position plays as a deal of its own."""
    game = Game.from_position(["3", "4", "5"], landlord=0, to_move=1,
                              last_move=M("BOMB/7/1/7777"), last_seat=0)
    assert game.multiplier == 2
    assert game.observation(1).sample(0).multiplier == 2
    r = finish(game, ["PASS", "PASS", "SINGLE/3/1/3"])
    assert r.winner == "landlord" and r.spring and r.multiplier == 4
    assert r.scores == (8, -4, -4)
    assert Game.from_position(["3", "4", "5"], landlord=0, to_move=1,
                              last_move=M("ROCKET/X/1/XD"), last_seat=0).multiplier == 2
    assert Game.from_position(["3", "4", "5"], landlord=0, to_move=1,
                              last_move=M("PAIR/7/1/77"), last_seat=0).multiplier == 1


def test_anti_spring():
    r = finish(Game.from_position(["3A", "45", "6"], "classic"), [
        "SINGLE/3/1/3", "SINGLE/4/1/4", "PASS", "PASS", "SINGLE/5/1/5"])
    assert r.winner == "farmers" and r.anti_spring and r.multiplier == 2
    assert r.scores == (-4, 2, 2)


def test_super_caps_the_multiplier_at_24():
    # four bombs (x16), a super bomb (x3) and a spring (x2): 96, capped at 24
    hands = ["3333444455556666" + "7777W", "8", "9"]
    game = Game.from_position(hands, "super")
    for move in ("BOMB/3/1/3333", "PASS", "PASS", "BOMB/4/1/4444", "PASS", "PASS",
                 "BOMB/5/1/5555", "PASS", "PASS", "BOMB/6/1/6666", "PASS", "PASS",
                 "SUPER_BOMB/7/1/7777W"):
        game.play(M(move))
    assert game.multiplier == 48 and game.result.multiplier == 24
    assert game.result.scores == (48, -24, -24)
    uncapped = get_rules("super").with_options(mult_cap=None)
    game = Game.from_position(hands, uncapped)
    for move in ("BOMB/3/1/3333", "PASS", "PASS", "BOMB/4/1/4444", "PASS", "PASS",
                 "BOMB/5/1/5555", "PASS", "PASS", "BOMB/6/1/6666", "PASS", "PASS",
                 "SUPER_BOMB/7/1/7777W"):
        game.play(M(move))
    assert game.result.multiplier == 96


def test_super_service_fee_and_deal_cap():
    rules = get_rules("super").with_options(service_fee=0.25)
    r = finish(Game.from_position(["3333W", "4", "5"], rules, base=2),
               ["SUPER_BOMB/3/1/3333W"])
    # x3, spring x2: 6; the landlord wins 2*2*6 = 24, less a quarter
    assert r.scores == (18.0, -12.0, -12.0)
    rules = get_rules("super").with_options(deal_cap=10)
    r = finish(Game.from_position(["3333W", "4", "5"], rules, base=2),
               ["SUPER_BOMB/3/1/3333W"])
    assert r.scores == (10.0, -10.0, -10.0)
    with pytest.raises(ValueError, match="service_fee"):
        get_rules("super").with_options(service_fee=1.5)


# ---- bidding ----------------------------------------------------------------------

def test_all_pass_makes_the_first_bidder_landlord_with_base_1():
    game = Game("classic", seed=1, first_bidder=2)
    assert game.phase == "bidding" and game.to_move == 2 and game.landlord is None
    for _ in range(3):
        game.bid(0)
    assert game.phase == "play" and game.landlord == 2 and game.base == 1
    assert game.to_move == 2 and len(game.hands[2]) == 20
    assert game.bids == [(2, 0), (0, 0), (1, 0)]


def test_a_bid_of_3_ends_bidding():
    game = Game("biegang", seed=2)
    game.bid(1)
    game.bid(3)
    assert game.phase == "play" and game.landlord == 1 and game.base == 3
    assert len(game.hands[1]) == 21 and game.kitty in game.hands[1]


def test_bids_must_rise():
    game = Game("classic", seed=3)
    game.bid(2)
    assert game.legal_bids() == [0, 3]
    with pytest.raises(ValueError, match="cannot bid 2"):
        game.bid(2)
    with pytest.raises(ValueError, match="cannot bid 1"):
        game.bid(1)
    with pytest.raises(ValueError, match="out of turn"):
        game.bid(3, seat=0)
    game.bid(0)
    game.bid(0)
    assert game.landlord == 0 and game.base == 2


def test_no_bidding_makes_seat_0_landlord():
    game = Game("super", seed=4, bidding=False)
    assert game.phase == "play" and game.landlord == 0 and game.base == 1
    assert len(game.hands[0]) == 21


# ---- play rules ----------------------------------------------------------------------

def test_a_lone_w_passes_even_when_leading_and_the_deal_ends():
    game = Game.from_position(["3W", "4", "56"], "biegang")
    game.play(M("SINGLE/3/1/3"))          # the landlord keeps only W
    game.play(M("PASS"))
    game.play(M("PASS"))
    assert game.last_move is None and game.to_move == 0
    assert [m.kind for m in game.legal_moves()] == [MoveKind.PASS]
    game.play(M("PASS"))                   # forced: the next seat leads freely
    assert game.to_move == 1 and game.last_move is None
    game.play(M("SINGLE/4/1/4"))
    assert game.done and game.result.winner == "farmers"


def test_two_passes_give_a_free_lead_and_illegal_moves_change_nothing():
    game = Game.from_position(["3K", "4A", "36"], "classic")
    game.play(M("SINGLE/3/1/3"))
    before = (game.hands, game.to_move, game.last_move, game.history)
    with pytest.raises(ValueError, match="does not hold"):
        game.play(M("SINGLE/2/1/2"))
    with pytest.raises(ValueError, match="out of turn"):
        game.play(M("SINGLE/5/1/5"), seat=2)
    with pytest.raises(ValueError, match="not a legal move in 'classic'"):
        game.play(M("PAIR/3/1/3W"))
    game.play(M("SINGLE/4/1/4"))
    with pytest.raises(ValueError, match="does not beat"):
        game.play(M("SINGLE/3/1/3"))
    assert game.to_move == 2
    game.play(M("PASS"))
    game.play(M("PASS"))
    assert game.to_move == 1 and game.last_move is None
    with pytest.raises(ValueError, match="cannot pass when leading"):
        game.play(M("PASS"))
    assert before[0][0] == game.hands[0]


def test_observation_hides_other_hands():
    game = Game("classic", seed=9)
    obs = game.observation(1)
    assert obs.hand == game.hands[1] and obs.kitty is None and obs.phase == "bidding"
    assert "hands" not in obs._fields and obs.cards_left == (17, 17, 17)
    for _ in range(3):
        game.bid(game.policy_action("greedy"))
    move = game.legal_moves()[0]
    game.play(move)
    obs = game.observation(2)
    assert obs.kitty == game.kitty and obs.played[game.landlord] == move.cards
    assert obs.history == ((game.landlord, move),) and obs.to_move == game.to_move


def test_errors_on_a_finished_deal_and_bad_arguments():
    game = Game.from_position(["3", "4", "5"], "classic")
    game.play(M("SINGLE/3/1/3"))
    with pytest.raises(ValueError, match="done phase"):
        game.play(M("SINGLE/4/1/4"))
    assert len(game.legal_moves()) == 0 and game.to_move is None
    with pytest.raises(ValueError, match="seed"):
        Game("classic", seed=-1)
    with pytest.raises(ValueError, match="more '3'"):
        Game.from_position(["333", "33", "4"], "classic")
    with pytest.raises(ValueError, match="kitty"):      # a farmer holds the only X
        Game.from_position(["3", "X", "5"], "classic", kitty="X")
    with pytest.raises(ValueError, match="unknown built-in policy"):
        Game("classic", seed=1).policy_action("smart")


def test_huge_positions_get_buffers_of_their_own():
    # all but two cards of the deck in one hand: far over the 4,096 moves of
    # the per-call stack buffer
    deck = "3456789TJQKA2" * 2 + "456789TJQKA2" * 2 + "XDW"
    game = Game.from_position([deck, "3", "3"], "biegang")
    moves = game.legal_moves()
    assert len(moves) > 100_000
    assert list(moves) == list(ddzfast.legal_moves(deck, None, "biegang"))
    greedy = game.policy_action("greedy")
    assert greedy in moves
    assert len(greedy.cards) == max(len(m.cards) for m in moves if m.kind < MoveKind.BOMB)
    assert game.policy_action("random") in moves


def test_policy_bid_and_move_only_in_their_phase():
    game = Game("classic", seed=12)
    with pytest.raises(ValueError, match="no move now: the deal is in its bidding phase"):
        game.policy_move("random")
    assert game.policy_bid("random") in game.legal_bids()
    game = Game("classic", seed=12, bidding=False)
    with pytest.raises(ValueError, match="no bid now"):
        game.policy_bid("greedy")
    assert game.policy_move("greedy") in game.legal_moves()


# ---- the multiplier saturates: regressions of the hardening review ------------

INT64_MAX = (1 << 63) - 1


# The landlord holds twelve natural bombs (3..A) and the rocket; each farmer a
# pair of 2s, so the farmers pass every trick and the landlord wins a spring.
BOMBS_HANDS = ("".join(c * 4 for c in "3456789TJQKA") + "XD", "22", "22")


def _play_all_bombs(rules):
    game = ddzfast.Game.from_position(BOMBS_HANDS, rules, landlord=0)
    seen = []
    for card in "3456789TJQKA":
        game.play(Move.parse(f"BOMB/{card}/1/{card * 4}"))
        seen.append(game.multiplier)
        game.play(Move.parse("PASS"))
        game.play(Move.parse("PASS"))
    game.play(Move.parse("ROCKET/X/1/XD"))
    seen.append(game.multiplier)
    assert game.done
    return game, seen


def test_multiplier_saturates_instead_of_wrapping():
    """A product of large bomb multipliers wrapped past int64 (negative multipliers and
    scores): it saturates at INT64_MAX."""
    rules = ddzfast.get_rules("classic").with_options(
        multipliers={"BOMB": 255, "ROCKET": 255})
    game, seen = _play_all_bombs(rules)
    # 255**13 is far beyond int64: the product stops at INT64_MAX, never wraps
    assert all(m > 0 for m in seen)
    assert seen == sorted(seen)
    assert seen[-1] == INT64_MAX
    result = game.result
    assert result.winner == "landlord" and result.spring
    assert result.multiplier == INT64_MAX      # spring's doubling saturates too
    scores = result.scores
    assert all(math.isfinite(s) for s in scores)
    assert scores[0] > 0 and scores[1] < 0 and scores[2] < 0
    assert scores[0] + scores[1] + scores[2] == 0
    assert scores[1] == scores[2] == -float(INT64_MAX)


def test_multiplier_cap_applies_to_the_saturated_product():
    """mult_cap must cap the saturated product of the multipliers, never a wrapped one."""
    rules = ddzfast.get_rules("classic").with_options(
        multipliers={"BOMB": 255, "ROCKET": 255}, mult_cap=1000)
    game, seen = _play_all_bombs(rules)
    assert all(m > 0 for m in seen)
    result = game.result
    assert result.multiplier == 1000
    assert result.scores == (2000.0, -1000.0, -1000.0)


def test_moderate_factors_are_exact():
    # below the limit nothing changes: 2**12 bombs * 2 rocket * 2 spring
    """Saturation must leave the products below the limit exact (twelve bombs, the
    rocket and spring: 2**14)."""
    game, seen = _play_all_bombs("classic")
    assert seen[-1] == 2 ** 13
    assert game.result.multiplier == 2 ** 14


# ---- games: regressions of the hardening review -------------------------------

def test_game_made_by_new_alone_is_a_whole_deal(run_python):
    # in a fresh interpreter, so that a crash fails the test instead of killing pytest
    """A Game made by Game.__new__ alone (no __init__) crashed on use: it is a whole
    classic deal."""
    result = run_python(code=(
        "from ddzfast import Game\n"
        "g = Game.__new__(Game)\n"
        "print(repr(g))\n"
        "g.bid(3)\n"
        "print(g.phase, g.landlord, g.rules.name, len(g.legal_moves()) > 0)\n"), timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "play 0 classic True"


@pytest.mark.parametrize("hands", [["", "", ""], ["3", "", "5"], ["3", "4", ""]])
def test_positions_never_hold_an_empty_hand(hands):
    """Game.from_position took a position with an empty hand, a deal that could not go
    on: it is refused."""
    with pytest.raises(ValueError, match="empty"):
        Game.from_position(hands)


def test_positions_have_no_seed_and_bools_are_not_bids():
    """A position reported a seed it never had, and True was taken as a bid of 1: seed
    None, and bools are refused."""
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


def test_move_wild_follows_the_rule_set_it_is_played_in():
    """A Move kept its reading of W from the rule set it was parsed in: played in
    another, its wild follows that one."""
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


# ===========================================================================
# Random laizi deals through Game, checked against the laizi reference
# (tests/oracles/reference_laizi.py) and RULES.md sections 5, 6 and 8:
#
# * the wild rank is drawn from the deal's seed (the same seed, the same rank
#   and hands), uniformly over 3..2, before bidding, and stays;
# * every move played is legal by the reference (its cards in the hand, its
#   identity a reading of those cards, beating the last move or PASS when
#   following, never PASS when leading); with few cards left, the core's
#   whole legal list equals the reference's;
# * cards are conserved: hands + kitty (while bidding) or hands + cards played
#   are the 54-card deck after every step;
# * the result: the multiplier is 2 per SOFT_BOMB, BOMB, LAIZI_BOMB and ROCKET
#   played, times 2 for spring or anti-spring; the scores are section 6's.
# ===========================================================================

LAIZI_DEALS = 1000
FULL_LIST_MAX_CARDS = 7     # compare whole legal lists below this hand size
DECK_COUNTS = (4,) * 13 + (1, 1, 0)
DOUBLING = ("SOFT_BOMB", "BOMB", "LAIZI_BOMB", "ROCKET")   # x2 each (section 8)


def wild_of(game):
    assert game.rules.wild_rank == game.wild_rank, game
    return RL.wild_index(game.wild_rank)


def observed_wild(obs):
    """The wild rank an observation shows (its field and its rules agree)."""
    assert obs.wild_rank == obs.rules.wild_rank, obs
    return RL.wild_index(obs.wild_rank)


def add(*handlists):
    """The sum of several 16-count tuples."""
    return tuple(map(sum, zip(*handlists)))


def check_conserved(game, played, where):
    hands = [h.counts for h in game.hands]
    if game.phase == "bidding":
        got = add(*hands, game.kitty.counts)
    else:
        got = add(*hands, *played)
    assert got == DECK_COUNTS, \
        f"{where() if callable(where) else where}: cards not conserved: {RL.cards_text(got)}"


def choose(rng, moves):
    """A random legal move; a bomb-tier move half the time there is one (so
    that deals exercise the multipliers)."""
    bombs = [m for m in moves if m.kind.name in DOUBLING]
    if bombs and rng.random() < 0.5:
        return rng.choice(bombs)
    return moves[rng.randrange(len(moves))]


def play_laizi_deal(seed, rng):
    """Play one random deal, checking every step; returns (game, history)."""
    game = ddzfast.Game("laizi", seed=seed, bidding=rng.random() < 0.7)
    L = wild_of(game)
    played = [(0,) * 16] * 3
    check_conserved(game, played, f"seed {seed} deal")
    while game.phase == "bidding":
        assert observed_wild(game.observation()) == L, f"seed {seed}: not observed"
        game.bid(rng.choice(game.legal_bids()))
        assert wild_of(game) == L, f"seed {seed}: the wild rank changed while bidding"
    check_conserved(game, played, f"seed {seed} after bidding")
    steps = 0
    while not game.done:
        seat = game.to_move
        hand = game.hands[seat].counts
        last = game.last_move
        last_id = identity(last) if last is not None else None
        moves = game.legal_moves()
        assert len(moves) > 0
        if sum(hand) <= FULL_LIST_MAX_CARDS:
            got = {identity(m) for m in moves}
            want = RL.legal_moves(hand, last_id, L)
            assert got == want, (
                f"seed {seed} L={RL.CARD_CHARS[L]} hand {RL.cards_text(hand)} "
                f"last {RL.move_text(last_id) if last_id else '-'}: only the reference "
                f"{sorted(map(RL.move_text, want - got))}, only the core "
                f"{sorted(map(RL.move_text, got - want))}")
        move = choose(rng, moves)
        ident = identity(move)

        def where():   # only built when an assertion fails
            return (f"seed {seed} L={RL.CARD_CHARS[L]} seat {seat} hand "
                    f"{RL.cards_text(hand)} last "
                    f"{RL.move_text(last_id) if last_id else '-'} move {RL.move_text(ident)}")

        if ident[0] == "PASS":
            assert last is not None, f"{where()}: PASS when leading"
        else:
            assert all(c <= h for c, h in zip(ident[3], hand)), f"{where()}: cards not held"
            assert ident in RL.classify(ident[3], L), f"{where()}: not a move by the reference"
            if last is not None:
                assert RL.beats(ident, last_id), f"{where()}: does not beat the last move"
        game.play(move)
        if ident[0] != "PASS":
            played[seat] = add(played[seat], ident[3])
        check_conserved(game, played, where)
        assert wild_of(game) == L
        steps += 1
        assert steps < 200, f"seed {seed}: the deal does not end"
    return game, [(s, identity(m)) for s, m in game.history]


def check_laizi_result(game, history, seed):
    res = game.result
    assert res is not None
    landlord, base = game.landlord, game.base
    doublings = sum(1 for _, m in history if m[0] in DOUBLING)
    farmers_played = any(m[0] != "PASS" for s, m in history if s != landlord)
    landlord_moves = sum(1 for s, m in history if s == landlord and m[0] != "PASS")
    landlord_wins = res.winner_seat == landlord
    assert sum(game.hands[res.winner_seat].counts) == 0
    assert res.winner == ("landlord" if landlord_wins else "farmers")
    spring = landlord_wins and not farmers_played
    anti_spring = (not landlord_wins) and landlord_moves == 1
    assert bool(res.spring) == spring and bool(res.anti_spring) == anti_spring, seed
    mult = 2 ** doublings * (2 if spring or anti_spring else 1)
    assert res.multiplier == mult, (seed, res, doublings)
    sign = 1 if landlord_wins else -1
    want = [-sign * base * mult] * 3
    want[landlord] = 2 * sign * base * mult
    assert list(res.scores) == want, (seed, res)


def test_laizi_random_deals_against_the_reference():
    rng = random.Random("laizi-deals")
    ranks = collections.Counter()
    kinds = collections.Counter()
    for i in range(LAIZI_DEALS):
        seed = rng.getrandbits(64)
        game, history = play_laizi_deal(seed, rng)
        check_laizi_result(game, history, seed)
        ranks[wild_of(game)] += 1
        kinds.update(m[0] for _, m in history)
    # the wild rank is uniform over 3..2 (expected DEALS / 13 each)
    assert set(ranks) == set(range(13))
    assert all(0.6 * LAIZI_DEALS / 13 < c < 1.4 * LAIZI_DEALS / 13 for c in ranks.values()), ranks
    # the multipliers were exercised (a LAIZI_BOMB needs all four laizi in one
    # hand, about 3 deals in 100, and random play splits them: it is played in
    # test_every_bomb_kind_doubles instead)
    for kind in ("SOFT_BOMB", "BOMB", "ROCKET"):
        assert kinds[kind] > 0, kinds


def test_the_seed_fixes_the_laizi_wild_rank_and_the_deal():
    for seed in (1, 2, 3, 2**64 - 1):
        a, b = ddzfast.Game("laizi", seed=seed), ddzfast.Game("laizi", seed=seed)
        assert a.wild_rank == b.wild_rank
        assert a.hands == b.hands and a.kitty == b.kitty
        # the wild rank is known before bidding
        assert a.phase == "bidding" and wild_of(a) in range(13)
        assert observed_wild(a.observation()) == wild_of(a)


def _play(game, kind, cards):
    """Play the legal move of this kind and cards (or PASS)."""
    want = (kind, RL.parse_cards(cards))
    moves = [m for m in game.legal_moves() if (m.kind.name, m.cards.counts) == want]
    assert len(moves) == 1, (kind, cards, [str(m) for m in game.legal_moves()])
    game.play(moves[0])


@pytest.mark.parametrize("hands,plays,mult", [
    # LAIZI_BOMB, ROCKET and BOMB played, then spring: 2 * 2 * 2 * 2
    (["77773333XD4", "5", "6"],
     [("LAIZI_BOMB", "7777"), ("ROCKET", "XD"), ("BOMB", "3333"), ("SINGLE", "4")], 16),
    # a SOFT_BOMB, then spring
    (["3377", "5", "6"], [("SOFT_BOMB", "3377")], 4),
    # the landlord's SOFT_BOMB, beaten by a farmer's BOMB; the farmer goes out
    # (anti-spring: the landlord played once)
    (["3377A", "4444", "6"], [("SOFT_BOMB", "3377"), ("BOMB", "4444")], 8),
])
def test_every_laizi_bomb_kind_doubles(hands, plays, mult):
    rules = ddzfast.get_rules("laizi").with_options(wild_rank="7")
    game = ddzfast.Game.from_position(hands, rules=rules)
    for kind, cards in plays:
        seat = _seat_of(hands, cards)
        while game.to_move != seat:
            _play(game, "PASS", "")
        _play(game, kind, cards)
    assert game.done
    res = game.result
    assert res.multiplier == mult
    landlord_wins = res.winner_seat == 0
    sign = 1 if landlord_wins else -1
    assert list(res.scores) == [2 * sign * mult, -sign * mult, -sign * mult]


def _seat_of(hands, cards):
    need = RL.parse_cards(cards)
    for s, h in enumerate(hands):
        held = RL.parse_cards(h)
        if all(c <= n for c, n in zip(need, held)):
            return s
    raise AssertionError(cards)


# ---- laizi deals --------------------------------------------------------------

def test_game_draws_the_wild_rank_from_the_seed():
    seen = set()
    for seed in range(60):
        g = Game("laizi", seed=seed)
        assert g.phase == "bidding" and g.wild_rank is not None
        assert g.rules.wild_rank == g.wild_rank
        assert Game("laizi", seed=seed).wild_rank == g.wild_rank
        assert g.observation(0).wild_rank == g.wild_rank
        seen.add(g.wild_rank)
    assert seen == set(range(13))
    # a rule set naming its rank keeps it
    assert Game(L7, seed=5).wild_rank == 4
    # classic deals are those of before: nothing is drawn
    assert Game("classic", seed=3).wild_rank is None


def test_game_plays_laizi_deals_to_the_end():
    for seed in range(30):
        g = Game("laizi", seed=seed)
        while not g.done:
            g.play(g.policy_move("random")) if g.phase == "play" else g.bid(
                g.policy_bid("random"))
        r = g.result
        assert sum(r.scores) == 0
    g = Game("laizi", seed=1)
    res = g.rollout("greedy", seed=2)
    assert res.winner in ("landlord", "farmers")
    assert pickle.loads(pickle.dumps(g)).wild_rank == g.wild_rank


def test_laizi_scoring_doubles_for_every_bomb():
    # bombs and rockets of every laizi kind double the multiplier
    r = get_rules(L7)
    for kind in ("SOFT_BOMB", "BOMB", "LAIZI_BOMB", "ROCKET"):
        assert r.description["multipliers"][kind] == 2
    g = Game.from_position(["5557", "XD", "3"], L7, landlord=0)
    g.play(Move("SOFT_BOMB", 2, 1, "5557", rules=L7))
    assert g.done and g.result.multiplier == 2 * 2      # the bomb, then spring


def test_game_last_move_keeps_its_substitutes():
    g = Game.from_position(["3777", "5", "6"], L7, landlord=0)
    move = Move("TRIPLE_SINGLE", 11, 1, "3777", rules=L7)
    g.play(move)
    assert str(g.last_move) == "TRIPLE_SINGLE 3777 (777 as AAA)"


# ---- from_position's random stream (issue 18) ----------------------------------

def _random_moves(seed, plies=6):
    hands = ["3456789TJQKA2", "3456789TJQKA2", "3456789TJQKA2"]
    game = Game.from_position(hands, "classic", seed=seed)
    moves = []
    for _ in range(plies):
        if game.done:
            break
        move = game.policy_move("random")
        game.play(move)
        moves.append(str(move))
    return moves


def test_from_position_seed_seeds_the_random_stream():
    runs = [_random_moves(seed) for seed in (1, 2, 3)]
    assert len({tuple(run) for run in runs}) == 3
    assert _random_moves(7) == _random_moves(7)
    # None: fresh entropy (two such games almost surely differ somewhere)
    assert len({tuple(_random_moves(None, 10)) for _ in range(4)}) > 1
    assert Game.from_position(["3", "4", "5"], seed=5).seed is None


@pytest.mark.parametrize("seed", [-1, 2**64, 1.5, True, "1"])
def test_from_position_bad_seed(seed):
    with pytest.raises(ValueError, match="seed"):
        Game.from_position(["3", "4", "5"], seed=seed)


def test_rollout_policies_and_position_hands_in_seat_order():
    """A mapping of three was indexed by seat (KeyError 0), and bytes were
    read as three ints ("unknown built-in policy 97")."""
    with pytest.raises(TypeError, match="seat order"):
        Game(seed=1).rollout({"a": "greedy", "b": "greedy", "c": "greedy"})
    with pytest.raises(TypeError, match="bytes"):
        Game(seed=1).rollout(b"abc")
    with pytest.raises(ValueError, match="seat order"):
        Game.from_position({"a": "3", "b": "4", "c": "5"})
    assert Game(seed=1).rollout(["greedy", "random", "expert"]).winner in ("landlord",
                                                                            "farmers")


def test_rollout_reads_policy_text_as_simulate_does():
    """Regression: rollout refused "random,greedy,greedy", which simulate
    and the command line take ("unknown built-in policy"), and a callable
    among the three was a ValueError naming its repr."""
    game = Game(seed=5)
    assert game.rollout("random, greedy,expert", seed=3) == game.rollout(
        ("random", "greedy", "expert"), seed=3)
    with pytest.raises(ValueError, match="one per seat, not 2"):
        game.rollout("random,greedy")
    with pytest.raises(TypeError, match="built-in policy is named by text"):
        game.rollout(["greedy", print, "greedy"])
    with pytest.raises(TypeError, match="not function"):
        game.rollout(lambda game, legal: 0)
    with pytest.raises(TypeError, match="built-in policy is named by text"):
        game.policy_move(3)


def test_a_game_result_pickles():
    """GameResult (a namedtuple made in compiled code) named importlib's
    module, so pickle could not find it."""
    result = Game(seed=1).rollout()
    assert pickle.loads(pickle.dumps(result)) == result


# ---- Game.from_deal ---------------------------------------------------------------

def _play_out(game, decisions):
    """Bid and play with the built-in policy of each step named in
    `decisions` (one name per seat); the bids and moves made."""
    steps = []
    while not game.done:
        policy = decisions[game.to_move]
        if game.phase == "play":
            move = game.policy_move(policy)
            game.play(move)
            steps.append(str(move))
        else:
            choice = game.policy_choice(policy)
            game.choose(choice)
            steps.append(choice)
    return steps


@pytest.mark.parametrize("rules", RULE_SETS + ("laizi",))
def test_from_deal_replays_a_dealt_deal(rules):
    """A deal's cards given to from_deal bid and play as the dealt deal does
    (deterministic policies: the random stream aside), with the same
    result; laizi takes the dealt game's rules (its rank). (A tiandi rule
    set without its ground rank draws it from the stream: below.)"""
    for seed in range(6):
        dealt = Game(rules, seed, first_bidder=seed % 3)
        again = Game.from_deal(dealt.hands, dealt.kitty, dealt.rules,
                               first_bidder=seed % 3, seed=seed)
        assert again.phase == dealt.phase and again.to_move == dealt.to_move
        assert again.hands == dealt.hands and again.kitty == dealt.kitty
        assert again.seed is None
        policies = ("expert", "greedy", "expert")
        assert _play_out(again, policies) == _play_out(dealt, policies)
        assert again.result == dealt.result
        assert again.rules.name == dealt.rules.name


def test_from_deal_seed_seeds_the_random_stream():
    dealt = Game("classic", 11)
    runs = {}
    for seed in (1, 2, 3, 1):
        game = Game.from_deal(dealt.hands, dealt.kitty, seed=seed)
        runs.setdefault(seed, []).append(tuple(_play_out(game, ("random",) * 3)))
    assert runs[1][0] == runs[1][1]
    assert len({runs[s][0] for s in (1, 2, 3)}) == 3
    game = Game.from_deal(dealt.hands, dealt.kitty, seed=4)
    again = pickle.loads(pickle.dumps(game))
    assert _play_out(again, ("random",) * 3) == _play_out(game, ("random",) * 3)


def test_from_deal_tiandi_draws_the_ground_rank_with_the_kitty():
    """A tiandi rule set with its sky rank only: the ground rank is drawn
    from the game's stream when the landlord takes the kitty (RULES.md 9)."""
    dealt = Game("tiandi", 5)
    sky = get_rules("tiandi").with_options(wild_ranks=(dealt.wild_ranks[0],))
    grounds = set()
    for seed in range(30):
        game = Game.from_deal(dealt.hands, dealt.kitty, sky, seed=seed)
        assert len(game.wild_ranks) == 1
        game.bid(3)
        assert game.phase == "play" and len(game.wild_ranks) == 2
        assert game.wild_ranks[0] == dealt.wild_ranks[0]
        grounds.add(game.wild_ranks[1])
    assert len(grounds) > 4


def test_from_deal_given_ground_rank_comes_with_the_kitty():
    """ground_rank: the bidders see the sky rank alone, the kitty brings the
    given rank whatever the random stream and the choices before it, and
    undo goes back to the sky rank alone."""
    dealt = Game("tiandi", 5)
    sky = dealt.wild_ranks[0]
    ground = (sky + 4) % 13
    for seed in range(12):
        game = Game.from_deal(dealt.hands, dealt.kitty, dealt.rules, seed=seed,
                              ground_rank=CARD_CHARS[ground])
        assert game.wild_ranks == (sky,) and len(game.rules.wild_ranks) == 1
        assert len(game.observation(1).wild_ranks) == 1
        while game.phase == "bidding":
            game.bid(game.policy_bid("random"))
        assert game.wild_ranks == (sky, ground) and game.rules.wild_ranks == (sky, ground)
        if game.can_undo:
            game.undo()
            assert game.wild_ranks == (sky,)
    # an index is a rank too
    game = Game.from_deal(dealt.hands, dealt.kitty, dealt.rules, seed=0, ground_rank=ground)
    game.bid(3)
    assert game.wild_ranks == (sky, ground)


def test_from_deal_given_ground_rank_stays_through_a_redeal():
    """A redeal (rob bidding, nobody calls) keeps the sky rank, and the given
    ground rank with it."""
    dealt = Game("tiandi", 8)
    sky = dealt.wild_ranks[0]
    rob = dealt.rules.with_options(bidding="rob")
    ground = (sky + 1) % 13
    game = Game.from_deal(dealt.hands, dealt.kitty, rob, seed=3, ground_rank=ground)
    for _ in range(3):
        game.choose(0)
    assert game.redeals == 1 and game.wild_ranks == (sky,)
    game.choose(1)
    while game.phase == "bidding":
        game.choose(0)
    assert game.wild_ranks == (sky, ground)


@pytest.mark.parametrize("rules, ground, error, message", [
    ("classic", "Q", ValueError, "ground_rank is for tiandi rule sets"),
    ("laizi:7", "Q", ValueError, "ground_rank is for tiandi rule sets"),
    ("tiandi:9J", "Q", ValueError, "has its ground rank already"),
    ("sky", "sky", ValueError, "must differ from the sky rank"),
    ("sky", "X", ValueError, "index 0..12"),
    ("sky", 13, ValueError, "index 0..12"),
    ("sky", "7J", ValueError, "one rank"),
    ("sky", 1.5, TypeError, "ground_rank must be a card"),
    ("sky", True, TypeError, "ground_rank must be a card"),
])
def test_from_deal_checks_the_ground_rank(rules, ground, error, message):
    dealt = Game("tiandi", 5)
    sky = CARD_CHARS[dealt.wild_ranks[0]]
    rules = dealt.rules if rules == "sky" else rules
    ground = sky if ground == "sky" else ground
    with pytest.raises(error, match=message):
        Game.from_deal(dealt.hands, dealt.kitty, rules, seed=0, ground_rank=ground)


def test_from_deal_platform_decisions_and_redeals_from_its_seed():
    """With the platform options the first decision is the shows; rob
    bidding with nobody calling redeals from the seed (the redeal seed's
    default)."""
    dealt = Game("classic", 2)
    happy = Game.from_deal(dealt.hands, dealt.kitty, "classic+happy", seed=1)
    assert happy.phase == "show" and happy.legal_choices() == [0, 1]
    rob = get_rules("classic").with_options(bidding="rob")
    redeals = set()
    for seed in (1, 2, 1):
        game = Game.from_deal(dealt.hands, dealt.kitty, rob, seed=seed)
        for _ in range(3):
            game.choose(0)          # nobody calls: new cards from the redeal seed
        assert game.redeals == 1 and game.phase == "bidding"
        assert game.hands != dealt.hands
        redeals.add((seed, game.hands))
    assert len(redeals) == 2        # seed 1 twice: the same new cards


@pytest.mark.parametrize("hands, kitty, rules, error", [
    (("3" * 4 + "4" * 4 + "5" * 4 + "6" * 4 + "7", "7" * 3 + "8" * 4 + "9" * 4 + "T" * 4
      + "JJ", "JJ" + "Q" * 4 + "K" * 4 + "A" * 4 + "2" * 3), "2XD", "classic", None),
    (("3456",) * 3, "", "classic", "holds 4 cards; a deal gives each seat 17"),
    (("3" * 4 + "4" * 4 + "5" * 4 + "6" * 4 + "7", "7" * 3 + "8" * 4 + "9" * 4 + "T" * 4
      + "JJ", "JJ" + "Q" * 4 + "K" * 4 + "A" * 4 + "2" * 3), "2X", "classic",
     "not the whole deck"),
    (("3" * 4 + "4" * 4 + "5" * 4 + "6" * 4 + "7",) * 3, "2XD", "classic",
     "more .3. than the .classic. deck"),
    (("3" * 4 + "4" * 4 + "5" * 4 + "6" * 4 + "7", "7" * 3 + "8" * 4 + "9" * 4 + "T" * 4
      + "JJ", "JJ" + "Q" * 4 + "K" * 4 + "A" * 4 + "2" * 3), "2XD", "laizi",
     "wild rank"),
    (("3" * 4 + "4" * 4 + "5" * 4 + "6" * 4 + "7", "7" * 3 + "8" * 4 + "9" * 4 + "T" * 4
      + "JJ", "JJ" + "Q" * 4 + "K" * 4 + "A" * 4 + "2" * 3), "2XD", "tiandi",
     "no sky rank"),
    ("3456", "2XD", "classic", "three hands"),
])
def test_from_deal_checks_the_cards(hands, kitty, rules, error):
    if error is None:
        game = Game.from_deal(hands, kitty, rules, first_bidder=2, seed=0)
        assert game.to_move == 2 and game.legal_bids() == [0, 1, 2, 3]
        return
    with pytest.raises(ValueError, match=error):
        Game.from_deal(hands, kitty, rules, seed=0)


@pytest.mark.parametrize("seed", [-1, 2**64, 1.5, True, "1"])
def test_from_deal_bad_seed_and_seat(seed):
    dealt = Game("classic", 1)
    with pytest.raises(ValueError, match="seed"):
        Game.from_deal(dealt.hands, dealt.kitty, seed=seed)
    with pytest.raises(ValueError, match="first_bidder"):
        Game.from_deal(dealt.hands, dealt.kitty, first_bidder=3, seed=1)


@pytest.mark.parametrize("name", ["laizi", "tiandi"])
def test_a_dealt_game_plays_by_its_own_rule_set_with_the_drawn_ranks(name):
    """A wild deal plays by the given rule set with the ranks it drew, one
    Rules object per rule set and ranks, and a rule set of the same name
    with another description (here without SOFT_BOMB) by its own, whichever
    of the two was dealt before."""
    builtin = get_rules(name)
    custom = builtin.without_kinds("SOFT_BOMB")
    seen = {}
    for seed in (7, 7, 8, 7, 8):
        for given in (builtin, custom, builtin):
            rules = Game(given, seed, bidding=False).rules
            assert rules.name == name
            assert (MoveKind.SOFT_BOMB in rules.kinds) == (given is builtin)
            assert {k: v for k, v in rules.description.items()
                    if k not in ("wild_rank", "wild_ranks")} == \
                {k: v for k, v in given.description.items()
                 if k not in ("wild_rank", "wild_ranks")}
            assert seen.setdefault((given is builtin, seed), rules) is rules
