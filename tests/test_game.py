"""The deal engine: scoring (one test per row of RULES.md 6), bidding, the
forced pass of a lone W, turn order, and errors that leave the game as it was."""
import pytest

import ddzfast

from ddzfast import Game, Move, MoveKind, get_rules

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
