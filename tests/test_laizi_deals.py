"""Random ``laizi`` deals through ``ddzfast.Game``, checked against the
pure-Python reference (tests/oracles/reference_laizi.py) and RULES.md sections 5, 6
and 8:

* the wild rank is drawn from the deal's seed (the same seed, the same rank
  and hands), uniformly over ``3..2``, before bidding, and stays;
* every move played is legal by the reference (its cards in the hand, its
  identity a reading of those cards, beating the last move or PASS when
  following, never PASS when leading); with few cards left, the core's whole
  legal list equals the reference's;
* cards are conserved: hands + kitty (while bidding) or hands + cards played
  are the 54-card deck after every step;
* the result: the multiplier is 2 per SOFT_BOMB, BOMB, LAIZI_BOMB and ROCKET
  played, times 2 for spring or anti-spring; the scores are section 6's.

Skipped while the core has no ``laizi`` rule set.
"""
import collections
import random

import pytest

import ddzfast
from oracles import reference_laizi as RL
from helpers import identity

pytestmark = pytest.mark.skipif(
    "laizi" not in ddzfast.RULE_SETS,
    reason="the core has no 'laizi' rule set yet (not in ddzfast.RULE_SETS)")

DEALS = 1000
FULL_LIST_MAX_CARDS = 7     # compare whole legal lists below this hand size
DECK_COUNTS = (4,) * 13 + (1, 1, 0)
DOUBLING = ("SOFT_BOMB", "BOMB", "LAIZI_BOMB", "ROCKET")   # x2 each (section 8)


needs_wild_rank = pytest.mark.skipif(
    not hasattr(ddzfast.Game, "wild_rank"),
    reason="Game has no wild_rank yet (a laizi deal draws it from its seed)")


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


def play_deal(seed, rng):
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


def check_result(game, history, seed):
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


@needs_wild_rank
def test_random_deals():
    rng = random.Random("laizi-deals")
    ranks = collections.Counter()
    kinds = collections.Counter()
    for i in range(DEALS):
        seed = rng.getrandbits(64)
        game, history = play_deal(seed, rng)
        check_result(game, history, seed)
        ranks[wild_of(game)] += 1
        kinds.update(m[0] for _, m in history)
    # the wild rank is uniform over 3..2 (expected DEALS / 13 each)
    assert set(ranks) == set(range(13))
    assert all(0.6 * DEALS / 13 < c < 1.4 * DEALS / 13 for c in ranks.values()), ranks
    # the multipliers were exercised (a LAIZI_BOMB needs all four laizi in one
    # hand, about 3 deals in 100, and random play splits them: it is played in
    # test_every_bomb_kind_doubles instead)
    for kind in ("SOFT_BOMB", "BOMB", "ROCKET"):
        assert kinds[kind] > 0, kinds


@needs_wild_rank
def test_the_seed_fixes_the_wild_rank_and_the_deal():
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
def test_every_bomb_kind_doubles(hands, plays, mult):
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
