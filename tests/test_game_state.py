"""A Game's pickled state: a versioned record of how the deal began and every
bid and play since, rebuilt through the API's own checks (GAME_STATE_FORMAT);
pickles of the earlier, unversioned format load when they check out and are
refused otherwise; Observation.sample checks every field it reads."""
import json
import os
import pickle
import random
import textwrap

import pytest

import ddzfast
from ddzfast import Game, Hand, Move, _core, _engine
from helpers import DECKS, RULE_SETS, play_to

LEGACY = os.path.join(os.path.dirname(__file__), "data", "legacy_game_pickles.json")


def played(name, seed, steps, bidding=True, policy="random"):
    g = Game(name, seed=seed, bidding=bidding)
    for _ in range(steps):
        if g.done:
            break
        if g.phase == "bidding":
            g.bid(g.policy_bid(policy))
        else:
            g.play(g.policy_move(policy))
    return g


def same_game(a: Game, b: Game) -> None:
    assert a.position_key() == b.position_key()
    assert (a.history, a.bids, a.hands, a.phase, a.to_move, a.can_undo, a.seed,
            a.redeal_seed, a.multiplier, a.kitty, a.landlord, a.base) == \
        (b.history, b.bids, b.hands, b.phase, b.to_move, b.can_undo, b.seed,
         b.redeal_seed, b.multiplier, b.kitty, b.landlord, b.base)
    assert a.result == b.result
    assert (a.observation_tensor(0) == b.observation_tensor(0)).all()


def undo_all_alike(a: Game, b: Game) -> None:
    """Undo both games to their start, step by step, comparing each state."""
    while a.can_undo:
        a.undo()
        b.undo()
        same_game(a, b)
    assert not b.can_undo


@pytest.mark.parametrize("name", RULE_SETS)
@pytest.mark.parametrize("steps", [0, 1, 4, 30, 999])
def test_dealt_games_round_trip_with_their_undo_and_random_stream(name, steps):
    a = played(name, 11 + steps, steps)
    b = pickle.loads(pickle.dumps(a))
    same_game(a, b)
    if not a.done:
        # the random stream was carried: the next random choice is the same
        assert a.policy_action("random") == b.policy_action("random")
    undo_all_alike(a, b)


@pytest.mark.parametrize("name", RULE_SETS)
def test_positions_and_sampled_worlds_round_trip(name):
    rng = random.Random(3)
    deck = list(DECKS[name])
    rng.shuffle(deck)
    p = Game.from_position(["".join(deck[:6]), "".join(deck[6:11]), "".join(deck[11:18])],
                           name, landlord=2, base=3)
    for _ in range(4):
        if not p.done:
            p.play(p.policy_move("greedy"))
    q = pickle.loads(pickle.dumps(p))
    same_game(p, q)
    assert q.seed is None
    undo_all_alike(p, q)
    for steps in (0, 2, 12):
        g = played(name, 5, steps)
        if g.done:
            continue
        world = g.observation(1).sample(9)
        again = pickle.loads(pickle.dumps(world))
        same_game(world, again)
        assert again.history == g.history and again.bids == g.bids


def test_a_pickle_of_another_format_version_is_refused():
    g = Game("classic", seed=1)
    load, args = Game.from_deal(g.hands, g.kitty, "classic", seed=2).__reduce__()
    assert args[0] == 4        # (format 5 holds only deals not bid, from their shows)
    future = _engine.GAME_STATE_FORMAT + 1
    with pytest.raises(ValueError, match=f"state format {future}"):
        load(future, *args[1:])
    # a seeded deal's record holds nothing new to format 3: older readers load it
    load, args = g.__reduce__()
    assert args[0] == 3 and len(args) == 6


def test_a_given_ground_rank_round_trips_and_is_checked():
    """A tiandi deal given its ground rank (Game.from_deal's ground_rank)
    pickles as format 6, the rank after the redeal seed: before the kitty
    (hidden, to come) and after it (undo goes back to the sky rank alone).
    A record whose rank Game.from_deal would refuse is refused."""
    dealt = Game("tiandi", 5)
    sky = dealt.wild_ranks[0]
    ground = (sky + 3) % 13
    game = Game.from_deal(dealt.hands, dealt.kitty, dealt.rules, seed=2, redeal_seed=9,
                          ground_rank=ground)
    load, args = game.__reduce__()
    assert args[0] == 6 == _engine.GAME_STATE_FORMAT and args[-2:] == (9, ground)
    again = pickle.loads(pickle.dumps(game))
    same_game(game, again)
    again.bid(3)
    assert again.wild_ranks == (sky, ground)
    game.bid(3)
    after = pickle.loads(pickle.dumps(game))
    same_game(game, after)
    after.undo()
    assert after.wild_ranks == (sky,)
    after.bid(3)
    assert after.wild_ranks == (sky, ground)
    for bad, error in ((sky, ValueError), (13, ValueError), ("X", ValueError),
                       (1.5, TypeError), (None, ValueError)):
        with pytest.raises(error, match="given ground rank"):
            load(*args[:-1], bad)
    # a start from_deal does not make (one of Observation.sample: shows, no
    # bidding) given a ground rank
    world = Game("tiandi+happy", seed=7, bidding=False).observation(0).sample(rng=1)
    wload, wargs = world.__reduce__()
    assert wargs[2][0] == "bidding" and len(wargs[2]) == 8
    with pytest.raises(ValueError, match="belongs to a deal Game.from_deal made"):
        wload(6, *wargs[1:], ground)
    # only a deal in its bidding is given one: a seeded deal's record has no
    # redeal seed, and so no ground rank after it
    load3, args3 = Game("tiandi", 5).__reduce__()
    assert len(args3) == 7      # (with the rule set it was dealt from)
    with pytest.raises(ValueError, match="no redeal seed"):
        load3(6, *args3[1:], 9, ground)
    # a deal not given one writes the format it did before
    assert Game.from_deal(dealt.hands, dealt.kitty, dealt.rules, seed=2).__reduce__()[1][0] == 4


def test_a_format_1_record_still_loads():
    """Format 2 only added step kinds and a start; a format 1 record (bids
    and plays from a seed) loads as the game it was."""
    g = played("classic", 2, 6)
    load, args = g.__reduce__()
    old = load(1, *args[1:])
    assert old.position_key() == g.position_key() and old.history == g.history


def test_a_recorded_play_that_is_not_legal_there_is_refused():
    """A record whose play is not legal where it stands (here: a play during
    the bidding) is refused; nothing of it is installed."""
    load, args = played("classic", 2, 6).__reduce__()
    steps = args[3]
    assert steps[0][0] == "bid"
    with pytest.raises(ValueError, match="step 0"):
        load(args[0], args[1], args[2], (("play", 0, "SINGLE/3/1/3"),) + steps[1:],
             args[4], args[5])
    with pytest.raises(ValueError, match="steps and their random states"):
        load(args[0], args[1], args[2], steps, args[4][:-1], args[5])



@pytest.mark.parametrize("position, error", [(2 ** 70, ValueError), (-1, ValueError),
                                             (2 ** 31, ValueError), ("1", TypeError),
                                             (0, ValueError), (10, ValueError)])
def test_a_pile_start_with_a_position_out_of_range_is_refused(position, error):
    """A no-shuffle pickle's session position went to a C int before it was
    checked: 2**70 raised OverflowError (found by the state fuzzer). A pile
    deal is at positions 1 .. session - 1 (10 deals here): a session's first
    deal is shuffled, and position 10 would be past its end (loaded before)."""
    r = ddzfast.get_rules("classic").with_options(deal="no_shuffle")
    g = Game(r, seed=3)
    while not g.done:
        if g.phase == "play":
            g.play(g.policy_move("greedy"))
        else:
            g.choose(g.policy_choice("greedy"))
    nxt = g.next_deal(5)
    load, args = nxt.__reduce__()
    start = args[2]
    assert start[0] == "pile"
    assert load(*args).position_key() == nxt.position_key()
    with pytest.raises(error, match="position"):
        load(args[0], args[1], start[:5] + (position,), *args[3:])


def _legacy():
    with open(LEGACY, encoding="utf-8") as f:
        return json.load(f)


def test_earlier_pickles_of_dealt_games_load_as_they_were():
    """Pickles of the earlier, unversioned format (written by the build before
    the format: tests/data) load when the deal their seed and record give is
    the state they carry."""
    count = 0
    for item in _legacy():
        if item["kind"] != "deal":
            continue
        g = pickle.loads(bytes.fromhex(item["pickle"]))
        assert [int(h) for h in g.hands] == item["hands"]
        assert [(s, m.text) for s, m in g.history] == [tuple(x) for x in item["history"]]
        assert [tuple(x) for x in item["bids"]] == list(g.bids)
        assert (g.phase, g.to_move, g.can_undo, g.multiplier, g.seed) == \
            (item["phase"], item["to_move"], item["can_undo"], item["multiplier"], item["seed"])
        if item["scores"] is not None:
            assert list(g.result.scores) == item["scores"]
        count += 1
    assert count >= 20


def test_earlier_pickles_of_positions_are_refused_with_a_reason():
    for item in _legacy():
        if item["kind"] == "deal":
            continue
        with pytest.raises(ValueError, match="cannot be checked"):
            pickle.loads(bytes.fromhex(item["pickle"]))


# The reproducers of issue 20, each against the earlier format's loader
# (its pickles call ddzfast._core._game_from_state) or Observation.sample:
# every one wrote or read out of bounds, hung, or loaded a corrupt game
# before the state was rebuilt through the API. In a subprocess, so that a
# crash fails the test.
REPRODUCERS = textwrap.dedent(r'''
    import struct, sys
    sys.path.insert(0, sys.argv[1])
    import ddzfast
    from ddzfast import _core
    from oracles.state_fuzz import legacy_args

    captured = legacy_args(kinds=("deal",))
    f = _core._game_from_state
    a = captured[3]
    super_state = next(args for args in captured if args[0].name == "super" and args[2])

    def with_int(state, offset, value):
        b = bytearray(state)
        struct.pack_into("=i", b, offset, value)
        return bytes(b)

    # offsets in the earlier ddz_game: last.kind 56, phase 72, to_move 116,
    # landlord 108, last_seat 124, passes 128
    cases = [
        ("bid of 100000 points", lambda: f(a[0], a[1], a[2], ((0, 100000),), a[4], a[5]).observation_tensor()),
        ("history seat 7", lambda: f(a[0], a[1], ((7, "PASS"),), *a[3:])),
        ("a super state with W into classic", lambda: f(ddzfast.get_rules("classic"), *super_state[1:])),
        ("garbage state", lambda: f(a[0], bytes(range(160)), a[2], a[3], a[4], a[5])),
        ("undo blob of the wrong size", lambda: f(a[0], a[1], a[2], a[3], a[4], b"x" * 7)),
    ]
    for value in (20, 3, 7, -1, 100000, -100000):
        cases.append((f"to_move {value}", lambda v=value: f(a[0], with_int(a[1], 116, v), *a[2:])))
        cases.append((f"landlord {value}", lambda v=value: f(a[0], with_int(a[1], 108, v), *a[2:])))
        cases.append((f"last_seat {value}", lambda v=value: f(a[0], with_int(a[1], 124, v), *a[2:])))
    for value in (3, -1):
        cases.append((f"phase {value}", lambda v=value: f(a[0], with_int(a[1], 72, v), *a[2:])))
    cases.append(("passes 5", lambda: f(a[0], with_int(a[1], 128, 5), *a[2:]).rollout()))
    for kind in (21, 100, 255):
        def bad_kind(k=kind):
            b = bytearray(a[1]); b[56] = k
            g = f(a[0], bytes(b), *a[2:])
            return g.phase, repr(g), g.last_move
        cases.append((f"last move kind {kind}", bad_kind))
    g = ddzfast.Game("classic", seed=1)
    obs = g.observation(1)
    play = ddzfast.Game("classic", seed=2, bidding=False)
    for _ in range(5):
        play.play(play.policy_move("greedy"))
    pobs = play.observation(1)
    cases += [
        ("sample: bids seat 40000", lambda: obs._replace(bids=((40000, 1),)).sample(1)),
        ("sample: to_move 7", lambda: obs._replace(to_move=7).sample(1)),
        ("sample: base 99", lambda: pobs._replace(base=99).sample(1)),
        ("sample: history seat 7", lambda: pobs._replace(history=((7, pobs.history[0][1]),) + pobs.history[1:]).sample(1)),
        ("sample: multiplier", lambda: pobs._replace(multiplier=-5).sample(1)),
        ("sample: landlord 9", lambda: pobs._replace(landlord=9).sample(1)),
    ]
    for what, call in cases:
        try:
            call()
        except (ValueError, TypeError):
            continue
        raise SystemExit(f"{what}: accepted")
    # a garbage undo blob of the right size is not installed by undo(): the
    # undo records are the replay's own
    n = len(a[2]) + len(a[3])
    g = f(a[0], a[1], a[2], a[3], a[4], bytes(range(256)) * (160 * n // 256) + bytes(160 * n % 256))
    h = f(*a)
    while h.can_undo:
        g.undo(); h.undo()
        assert g.position_key() == h.position_key()
    print("refused:", len(cases))
''')


def test_issue_20_reproducers_are_refused_in_a_subprocess(run_python):
    result = run_python(os.path.dirname(__file__), code=REPRODUCERS, timeout=300)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-4000:]
    assert "refused:" in result.stdout


@pytest.mark.parametrize("field, value, message", [
    ("seat", 3, "seat"), ("to_move", None, "seat"), ("first_bidder", 5, "first_bidder"),
    ("cards_left", (17, 17), "cards_left"), ("played", ("", ""), "played"),
    ("phase", "scoring", "phase"), ("landlord", 0, "no landlord"),
    ("bids", ((0, 2), (0, 3)), "out of turn"), ("bids", ((0, 4),), "bid"),
])
def test_sample_checks_each_field_of_a_bidding_observation(field, value, message):
    """Observation.sample read its fields unchecked: seats and points became
    array indices of the sampled game."""
    obs = Game("classic", seed=4).observation(0)
    with pytest.raises((ValueError, TypeError), match=message):
        obs._replace(**{field: value}).sample(1)


@pytest.mark.parametrize("rules", ["classic", "super"])
def test_sample_of_a_position_of_most_of_the_deck(rules):
    """Observation.sample refused cards_left past a dealt hand's 21, which
    Game.from_position makes: a position's hand of 30 cards could not be
    sampled from its own observation."""
    deck = ddzfast.constants.deck_text(rules == "super")
    game = Game.from_position([deck[:30], deck[30:53], deck[53:]], rules, landlord=0)
    for seat in range(3):
        world = game.observation(seat).sample(1)
        assert world.cards_left == game.cards_left == (30, 23, len(deck) - 53)
        assert world.hands[seat] == game.hands[seat]
    too_many = game.observation(1)._replace(cards_left=(len(deck) + 1, 23, 1))
    with pytest.raises(ValueError, match="cards_left"):
        too_many.sample(1)


def test_sample_refuses_shown_hands_and_wild_ranks_the_deal_does_not_have():
    """A hand-built observation's shown hand of a seat that did not show, or
    a wild rank in classic (or another rank than the rule set's), was
    ignored (the user review of 2026-12-05)."""
    obs = Game("classic", seed=4, bidding=False).observation(0)
    with pytest.raises(ValueError, match="did not show"):
        obs._replace(shown_hands=(None, Hand("3"), None)).sample(1)
    with pytest.raises(ValueError, match="has no wild rank"):
        obs._replace(wild_rank=4).sample(1)
    laizi = Game("laizi:7", seed=4, bidding=False).observation(0)
    assert laizi.sample(1).rules == laizi.rules
    with pytest.raises(ValueError, match="not a wild rank of 'laizi:7'"):
        laizi._replace(wild_rank=5).sample(1)


def test_sample_checks_the_observing_seats_own_shown_hand():
    """shown_hands was read only for the other seats: None for it as a
    whole, or an entry for the observing seat that was not its hand (or
    that it never showed), was accepted where shown=None is refused."""
    obs = Game("classic", seed=4, bidding=False).observation(1)
    assert obs.shown == (None, None, None)
    with pytest.raises(ValueError, match="shown_hands holds one entry"):
        obs._replace(shown_hands=None).sample(1)
    with pytest.raises(ValueError, match="seat 1's hand, which it did not show"):
        obs._replace(shown_hands=(None, Hand("33"), None)).sample(1)
    g = Game("classic+happy", seed=3)
    while g.phase == "show":
        g.choose(1)
    obs = g.observation(0)
    assert obs.shown[0] is not None and obs.shown_hands[0] == obs.hand
    assert obs.sample(1).hands[0] == obs.hand
    with pytest.raises(ValueError, match="seat 0 showed its hand"):
        obs._replace(shown_hands=(None,) + obs.shown_hands[1:]).sample(1)
    other = Hand("3") if obs.hand != Hand("3") else Hand("4")
    with pytest.raises(ValueError, match="the observing seat"):
        obs._replace(shown_hands=(other,) + obs.shown_hands[1:]).sample(1)


def test_sample_of_a_position_after_its_own_move_left_the_table():
    """A from_position game's own last move is a play of its seat (its bomb
    doubles), but once its trick was over the observation no longer showed
    it: the sampled world lacked its factor ("multiplier 2 is not what the
    history gives (1)"), and a kitty card in it, on the table, was taken
    for one the landlord could not hold."""
    g = Game.from_position(["34", "56", "78"], "classic", landlord=0, to_move=1,
                           last_move=Move.parse("BOMB/2/1/2222"), last_seat=0, seed=1)
    assert g.observation(2).position_move == (0, Move.parse("BOMB/2/1/2222"))
    g.play(Move.parse("PASS"))
    g.play(Move.parse("PASS"))
    for seat in range(3):
        obs = g.observation(seat)
        world = obs.sample(1)
        assert world.multiplier == 2 and world.observation(seat) == obs
    g = Game.from_position(["34", "56", "78"], "classic", landlord=0, kitty="5", to_move=1,
                           last_move=Move.parse("TRIPLE/5/1/555"), last_seat=0, seed=1)
    assert g.observation(1).sample(1).observation(1) == g.observation(1)
    assert Game.from_position(["34", "56", "78"], seed=1).observation(0).position_move is None
    with pytest.raises(ValueError, match="position_move is None or a"):
        g.observation(1)._replace(position_move=(0,)).sample(1)
    with pytest.raises(ValueError, match="is not position_move"):
        g.observation(1)._replace(position_move=(0, Move.parse("TRIPLE/6/1/666"))).sample(1)


@pytest.mark.parametrize("rules", ["biegang", "super"])
def test_sample_follows_the_trick_from_a_positions_start_for_a_lone_w(rules):
    """A pass of its lead marks a seat holding W alone (RULES.md 3). It was
    read off three passes in a row, which a position's history lacks: the
    pass of the seat between the position's own move and the seat to move
    is not in it, and a position without a move to beat starts with a
    lead. Such a seat was dealt an ordinary card (so the replay of its pass
    failed: "cannot pass when leading")."""
    g = Game.from_position(["W", "3456", "789"], rules, landlord=1, to_move=2,
                           last_move=Move.parse("SINGLE/Q/1/Q", rules), last_seat=0, seed=1)
    g.play(Move.parse("PASS"))
    g.play(Move.parse("PASS"))           # seat 0 passes its lead, W alone
    for seat in (1, 2):
        world = g.observation(seat).sample(seat)
        assert world.hands[0] == Hand("W") and world.observation(seat) == g.observation(seat)
    g = Game.from_position(["W", "56", "78"], rules, landlord=1, to_move=0, seed=1)
    g.play(Move.parse("PASS"))
    assert g.observation(1).sample(1).hands[0] == Hand("W")


def test_sample_of_a_position_whose_landlord_played_its_kitty_before_it():
    """A position's landlord may have played kitty cards before it
    (from_position): holding W alone, or seen by its own seat, it was
    refused ("holds W alone but has not played its kitty"), or the cards
    were kept from the farmers of a pool that holds just the hidden ones."""
    g = Game.from_position(["5", "W", "6"], "super", landlord=1, kitty="87", to_move=2,
                           last_move=Move.parse("SINGLE/9/1/9", "super"), last_seat=1, seed=1)
    for _ in range(3):
        g.play(Move.parse("PASS"))
    assert g.observation(0).sample(1).observation(0) == g.observation(0)
    g = Game.from_position(["3", "4", "5"], "classic", landlord=0, kitty="4", seed=1)
    world = g.observation(0).sample(1, pool="45")
    assert sorted([str(world.hands[1]), str(world.hands[2])]) == ["4", "5"]
    world = g.observation(0).sample(1, pool="56")       # the kitty's 4 is gone
    assert sorted([str(world.hands[1]), str(world.hands[2])]) == ["5", "6"]
    # a dealt game's landlord has played all of its kitty in sight: there the
    # same is inconsistent
    dealt = Game("classic", seed=3, bidding=False)
    obs = dealt.observation(0)
    other = next(c for c in "3456789TJQKA2" if obs.hand.count(c) == 0)
    with pytest.raises(ValueError, match="inconsistent"):
        obs._replace(kitty=Hand(other + str(obs.kitty)[1:])).sample(1)


def test_no_farmer_ever_holds_a_card_of_the_kitty():
    """The kitty is the landlord's: from_position compared it with the
    farmers' hands only, not with what they played (the position's own
    move included), and sample dealt a farmer a card of a rank the kitty
    and the farmers' plays already held four of."""
    with pytest.raises(ValueError, match="the kitty .* farmers' hands and plays"):
        Game.from_position(["3", "45", "67"], landlord=0, kitty="QQQ", to_move=0,
                           last_move=Move.parse("PAIR/Q/1/QQ"), last_seat=2)
    g = Game.from_position(["3", "45", "67"], landlord=0, kitty="3QD", to_move=0,
                           last_move=Move.parse("PAIR/Q/1/QQ"), last_seat=2, seed=1)
    obs = g.observation(0)
    for k in range(300):
        world = obs.sample(k)
        assert (world.hands[1] + world.hands[2]).count("Q") <= 1


def test_sample_checks_the_trick_against_position_move_and_the_history():
    """With position_move the history is played again from the position,
    and last_move and last_seat were not compared with the trick it left."""
    g = Game.from_position(["34", "56", "789"], "classic", landlord=0, to_move=1,
                           last_move=Move.parse("SINGLE/4/1/4"), last_seat=0, seed=1)
    g.play(Move.parse("SINGLE/5/1/5"))
    obs = g.observation(2)
    assert obs.sample(1).observation(2) == obs
    for bad in (dict(last_move=Move.parse("SINGLE/6/1/6")), dict(last_seat=0)):
        with pytest.raises(ValueError, match="not the move to beat"):
            obs._replace(**bad).sample(1)
    lead = Game.from_position(["34", "56", "789"], "classic", landlord=0, to_move=1, seed=1)
    with pytest.raises(ValueError, match="not the move to beat"):
        lead.observation(1)._replace(position_move=(2, Move.parse("SINGLE/K/1/K"))).sample(1)


@pytest.mark.parametrize("name", RULE_SETS)
def test_sample_of_positions_shows_the_observation_it_was_drawn_from(name):
    """Positions cut from dealt games, with the move to beat as their own
    last move, played on at random: each seat's sampled world shows that
    seat what the game shows it, at every decision."""
    rng = random.Random(5)
    checked = 0
    for deal in range(12):
        dealt = Game(name, seed=deal, bidding=False)
        for _ in range(rng.randrange(1, 12)):
            dealt.play(rng.choice(list(dealt.legal_moves())))
            if dealt.done:
                break
        if dealt.done or dealt.last_move is None:
            continue
        game = Game.from_position(dealt.hands, dealt.rules, landlord=dealt.landlord,
                                  kitty=dealt.kitty, to_move=dealt.to_move,
                                  last_move=dealt.last_move, last_seat=dealt.last_seat,
                                  seed=deal)
        while not game.done:
            for seat in range(3):
                obs = game.observation(seat)
                assert obs.sample(deal).observation(seat) == obs
                checked += 1
            game.play(rng.choice(list(game.legal_moves())))
    assert checked > 100


def test_sample_checks_the_history_against_what_was_played():
    g = Game("classic", seed=8, bidding=False)
    for _ in range(6):
        g.play(g.policy_move("greedy"))
    obs = g.observation(2)
    other = (obs.history[0][0] + 1) % 3
    with pytest.raises(ValueError, match="history shows"):
        obs._replace(history=((other, obs.history[0][1]),) + obs.history[1:]).sample(1)
    with pytest.raises(ValueError, match="multiplier"):
        obs._replace(multiplier=obs.multiplier * 2).sample(1)
    with pytest.raises(ValueError, match="base"):
        obs._replace(base=0).sample(1)
    assert obs.sample(1).history == g.history


def test_earlier_names_lead_to_their_new_module():
    """Game, Observation and GameResult moved to ddzfast._engine; pickles of
    the earlier build name ddzfast._core."""
    assert _core.Observation is ddzfast.Observation
    assert _core.GameResult is ddzfast.GameResult
    assert _core.Game is ddzfast.Game
    with pytest.raises(AttributeError):
        _core.NoSuchThing
    obs = Game("classic", seed=1).observation(0)
    assert pickle.loads(pickle.dumps(obs)) == obs
    assert Move.parse("PASS") == pickle.loads(pickle.dumps(Move.parse("PASS")))


def _sampled_platform_world(phase, seat=1):
    """A world sampled from seat ``seat``'s observation of a classic+happy
    deal in ``phase`` (its landlord seat 0: it calls, the others rob)."""
    g = play_to(phase, "classic+happy", 7)
    return g, g.observation(seat).sample(3)


def test_a_position_start_with_platform_decisions_no_deal_reaches_is_refused():
    """Defect B, pickles: a "position" start with platform decisions goes
    through the builder sample uses, which counted the doubles made and let
    any seat decide next; a record with the landlord to double before its
    farmers, or doubles out of the farmers-then-landlord order, loaded as a
    corrupt Game."""
    g, w = _sampled_platform_world("doubling")
    load, args = w.__reduce__()
    start = args[2]
    assert start[0] == "position" and start[11][3] == "doubling" and start[5] == 1
    assert load(*args).position_key() == w.position_key()
    landlord_first = start[:5] + (0,) + start[6:]
    with pytest.raises(ValueError, match="seat 1 is to decide"):
        load(args[0], args[1], landlord_first, *args[3:])
    robs, shown, _, phase = start[11]
    out_of_order = start[:5] + (2,) + start[6:11] + ((robs, shown, (None, None, 2), phase),)
    with pytest.raises(ValueError, match="the farmers double first"):
        load(args[0], args[1], out_of_order, *args[3:])


@pytest.mark.parametrize("bids, message", [
    (((1, 0), (2, 0), (0, 0)), "redealt"),
    (((1, 1), (2, 0), (0, 0)), "end the bidding"),
])
def test_a_bidding_start_whose_bids_are_not_a_bidding_is_refused(bids, message):
    """Defect B, pickles: a "bidding" start whose calls redeal the deal
    loaded with the hands replaced by a redeal of the builder's own stream;
    one whose calls end the bidding became a play-phase position without
    the landlord's show and the doubling its rule set has."""
    g = Game("classic+happy", seed=3, first_bidder=1)
    while g.phase == "show":
        g.choose(0)
    load, args = g.observation(2).sample(5).__reduce__()
    start = args[2]
    assert start[0] == "bidding" and start[4] == ()
    with pytest.raises(ValueError, match=message):
        load(args[0], args[1], start[:4] + (bids,) + start[5:], *args[3:])


def test_sample_refuses_calls_that_redeal():
    """Defect B: three passes of rob bidding (a redeal: the calls of a deal
    are those of its last dealing) were sampled into a redealt deal, the
    observing seat's hand gone."""
    r = ddzfast.get_rules("classic").with_options(bidding="rob")
    obs = Game(r, seed=3).observation(0)
    with pytest.raises(ValueError, match="redealt"):
        obs._replace(bids=((0, 0), (1, 0), (2, 0))).sample(1)


def _finished_session_deal(name, seed):
    g = Game(ddzfast.get_rules(name).with_options(deal="no_shuffle", session=4), seed=seed)
    while not g.done:
        if g.phase == "play":
            g.play(g.policy_move("greedy"))
        else:
            g.choose(g.policy_choice("greedy"))
    return g


@pytest.mark.parametrize("name", ["laizi", "tiandi"])
def test_a_pickle_keeps_the_rule_set_a_wild_deal_was_made_with(name):
    """Defect 1 (pickle fidelity): a no-shuffle laizi or tiandi deal dealt
    from a rule set without its ranks draws them from the seed, and its
    next_deal draws new ones; the pickle carried only the rule set with the
    drawn ranks, so the loaded game's next_deal kept the old ones. The
    record now names the rule set the deal was made with (copy and undo
    keep it), and a load checks that it is that rule set without the ranks
    the seed drew."""
    g = _finished_session_deal(name, 5)
    assert g.rules.wild_ranks and not ddzfast.get_rules(name).wild_ranks
    for twin in (pickle.loads(pickle.dumps(g)), g.copy()):
        for seed in (1, 9):
            assert twin.next_deal(seed).rules.wild_ranks == g.next_deal(seed).rules.wild_ranks
    nxt = g.next_deal(9)
    assert nxt.rules.wild_ranks[0] != g.rules.wild_ranks[0]  # a rank of its own
    undone = pickle.loads(pickle.dumps(g))
    while undone.can_undo:
        undone.undo()
    again = pickle.loads(pickle.dumps(undone))
    same_game(undone, again)
    undo_all_alike(g.copy(), pickle.loads(pickle.dumps(g)))
    # a pile start (the next deal of the session) too
    nxt = _finished_session_deal(name, 5).next_deal(9)
    while not nxt.done:
        if nxt.phase == "play":
            nxt.play(nxt.policy_move("greedy"))
        else:
            nxt.choose(nxt.policy_choice("greedy"))
    assert pickle.loads(pickle.dumps(nxt)).next_deal(3).rules.wild_ranks == \
        nxt.next_deal(3).rules.wild_ranks
    # a record whose given rule set is not its own without the drawn ranks
    load, args = g.__reduce__()
    assert len(args) == 7 and args[6].rules_id != args[1].rules_id
    assert load(*args[:6]).position_key() == g.position_key()   # a record of before
    ranked = ddzfast.get_rules(f"{name}:{'QK' if name == 'tiandi' else 'Q'}")
    for wrong in (ddzfast.get_rules(name), ranked.with_options(deal="no_shuffle", session=4),
                  ddzfast.get_rules("classic").with_options(deal="no_shuffle", session=4)):
        with pytest.raises(ValueError, match="another rule set"):
            load(*args[:6], wrong)
    with pytest.raises(TypeError, match="given rules"):
        load(*args[:6], name)
    # a position draws no rank: it is made with its own rule set
    load, args = Game.from_position(["3456", "789", "TJQ"], ranked).__reduce__()
    assert len(args) == 6
    with pytest.raises(ValueError, match="draws no wild rank"):
        load(*args, ddzfast.get_rules(name))


def test_a_last_move_that_is_not_the_historys_is_refused():
    """Defect 2: the builder of sampled worlds and pickled "position" starts
    checked the last move's cards against the deck only when the history
    was empty; with a history, any last move loaded (one whose cards a hand
    held, more of a rank than the deck has, or one that is not the
    history's last non-pass move), a Game no deal reaches."""
    g = Game("classic", seed=5)
    while g.phase != "play":
        g.bid(g.policy_bid("greedy"))
    for _ in range(4):
        g.play(g.policy_move("greedy"))
    # the history: 556677 by seat 0, two passes, QQKKAA by seat 0
    assert [s for s, _ in g.history] == [0, 1, 2, 0] and g.to_move == 1
    obs = g.observation(1)
    world = obs.sample(1)
    load, args = world.__reduce__()
    start = args[2]
    assert start[0] == "position" and start[6:8] == (obs.last_move.text, 0)
    assert load(*args).position_key() == world.position_key()
    hand_card = _core.classify("D", "classic")[0]      # in seat 1's own hand
    too_many = _core.classify("TTT", "classic")[0]     # seat 1 holds TTT, seat 0 a T
    other = _core.classify("55", "classic")[0]
    for last, seat in ((hand_card, 0), (too_many, 0), (other, 2), (obs.last_move, 2)):
        with pytest.raises(ValueError, match="history ends with seat 0"):
            obs._replace(last_move=last, last_seat=seat).sample(1)
        with pytest.raises(ValueError, match="history ends with seat 0"):
            load(args[0], args[1], start[:6] + (last.text, seat) + start[8:], *args[3:])
    # no last move while the history's stands, or one after the trick is over
    with pytest.raises(ValueError, match="beat it or pass"):
        obs._replace(last_move=None, last_seat=None).sample(1)
    with pytest.raises(ValueError, match="trick is over"):
        load(args[0], args[1], start[:8] + (start[8][:3],) + start[9:], *args[3:])
    # a position's own last move, before a history of passes, still fits the deck
    p = Game.from_position(["3456", "789", "TJQ"], landlord=0, to_move=1,
                           last_move=_core.classify("K", "classic")[0], last_seat=0)
    load, args = p.__reduce__()
    start = args[2]
    p.play(Move.parse("PASS"))
    passed = start[:5] + (2,) + start[6:8] + (((1, "PASS"),),) + start[9:]
    assert load(args[0], args[1], passed, (), (), args[5]).position_key() == p.position_key()
    bomb = _core.classify("QQQQ", "classic")[0].text    # seat 2 holds a Q
    with pytest.raises(ValueError, match="last move QQQQ"):
        load(args[0], args[1], passed[:6] + (bomb,) + passed[7:], (), (), args[5])


@pytest.mark.parametrize("rng, error, message", [
    (True, TypeError, "rng is a numpy.random.Generator"),
    ("x", TypeError, "rng is a numpy.random.Generator"),
    (1.5, TypeError, "rng is a numpy.random.Generator"),
    (-1, ValueError, "rng as a seed is a non-negative int"),
])
def test_sample_names_a_bad_rng(rng, error, message):
    """Regression (a user's review): sample(-1) and sample("x") raised
    NumPy's messages, which do not name the argument, and sample(True) was
    taken for the seed 1."""
    obs = Game("classic", seed=4).observation(0)
    with pytest.raises(error, match=message):
        obs.sample(rng)
    import numpy as np
    assert obs.sample(np.uint8(3)).position_key() == obs.sample(3).position_key()
    assert obs.sample(np.random.SeedSequence(3)).hands == obs.sample(3).hands
