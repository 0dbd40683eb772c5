"""Platform play (RULES.md 10) in the layers above the engine: deals with
every option off are those of the build before the options existed,
``Observation.sample`` in every decision phase, the environments' action
layout for the new decisions, the command line, and the vector environment's
refusal. (The rules themselves, worked by hand, are in test_platform.py.)"""
from __future__ import annotations

import hashlib
import importlib
import json
import os
import random

import numpy as np
import pytest

import ddzfast
from ddzfast import Game, simulate
from ddzfast.errors import IllegalMoveError
from helpers import (RULE_SETS, ignoring_api_test_dict_warnings, os_threads, play_to,
                     threads_back_to)

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
HAPPY = tuple(f"{r}+happy" for r in RULE_SETS)
# the DEAL_DTYPE fields rows had before platform play
OLD_FIELDS = ("seed", "scores", "multiplier", "moves", "bombs", "landlord", "base",
              "winner", "spring", "anti_spring", "first_bidder", "wild_rank")


def _digest(rows) -> str:
    h = hashlib.sha256()
    for f in OLD_FIELDS:
        h.update(np.ascontiguousarray(rows[f]).tobytes())
    return h.hexdigest()


def test_rows_without_options_are_those_of_the_earlier_build():
    """tests/data/simulate_digests.json holds digests of simulate rows (the
    fields that existed then) written by the build before platform play,
    for every rule set, with and without bidding, random and greedy seats:
    the options, off, change none of them."""
    with open(os.path.join(DATA, "simulate_digests.json")) as f:
        want = json.load(f)
    assert len(want) == 20
    for key, digest in want.items():
        rules, bidding, policies = key.split("|")
        rows = simulate(3000, rules, tuple(policies.split(",")), seed=11,
                        bidding=bidding == "True")
        assert _digest(rows) == digest, key
        # and the new fields take their neutral values
        assert (rows["robs"] == 0).all() and (rows["show"] == 1).all()
        assert (rows["shown"] == 0).all() and (rows["doubles"] == 1).all()
        assert (rows["redeals"] == 0).all() and (rows["position"] == 0).all()
        assert np.array_equal(rows["session"], np.arange(3000))
        assert np.array_equal(np.abs(rows["scores"]) > 0, rows["stakes"] > 0)


def _random_games(rules, n, rng):
    for d in range(n):
        g = Game(rules, seed=rng.randrange(2**63), bidding=rng.random() < 0.8)
        for _ in range(rng.choice([0, 1, 2, rng.randrange(3, 12), rng.randrange(3, 60)])):
            if g.done:
                break
            if g.phase != "play":
                g.choose(rng.choice(g.legal_choices()))
            else:
                moves = g.legal_moves()
                g.play(moves[rng.randrange(len(moves))])
        yield g


@pytest.mark.parametrize("rules", HAPPY)
def test_sample_keeps_what_is_public_in_every_phase(rules):
    """A world sampled from a seat's observation is in the same phase, with
    the same seat to move, choices, multiplier, robs, shows and doubles;
    the observing seat's hand and every shown hand are the real ones."""
    rng = random.Random(HAPPY.index(rules))
    phases = set()
    for g in _random_games(rules, 120, rng):
        if g.done:
            continue
        for seat in range(3):
            w = g.observation(seat).sample(rng.randrange(1 << 30))
            assert (w.phase, w.to_move, w.legal_choices(), w.multiplier) == \
                (g.phase, g.to_move, g.legal_choices(), g.multiplier)
            assert (w.robs, w.shown, w.doubles) == (g.robs, g.shown, g.doubles)
            assert w.bidding == g.bidding and w.observation(seat).bidding == g.bidding
            for s in range(3):
                if s == seat or g.shown[s] is not None:
                    assert w.hands[s] == g.hands[s]
            assert w.cards_left == g.cards_left
            phases.add(g.phase)
    assert phases >= {"show", "bidding", "doubling", "play"}


@pytest.mark.parametrize("rules", HAPPY)
def test_a_deal_not_bid_is_told_apart_in_its_shows(rules):
    """Regression (a review of Game's state): in its shows a deal made with
    bidding=False had the position_key and the observation of the same deal
    bid, though seat 0 takes its kitty where the other bids: a transposition
    table mixed the two, and Observation.sample's worlds of it were bid.
    Game.bidding and Observation.bidding tell them apart, the key reads the
    flag until the landlord is known, and a sampled world (pickled too, as
    a format-5 record) is not bid either."""
    import pickle
    bid, unbid = Game(rules, seed=5, bidding=True), Game(rules, seed=5, bidding=False)
    assert bid.bidding and not unbid.bidding and bid.hands == unbid.hands
    assert bid.position_key() != unbid.position_key()
    assert bid.observation(0).bidding and not unbid.observation(0).bidding
    world = unbid.observation(0).sample(1)
    again = pickle.loads(pickle.dumps(world))
    assert world.__reduce__()[1][0] == 5 and bid.observation(0).sample(1).__reduce__()[1][0] == 4
    for game in (unbid, world, again):
        assert not game.bidding
        while game.phase == "show":
            game.choose(0)
        assert game.landlord == 0 and game.phase == "landlord_show"
    obs = unbid.observation(1)
    with pytest.raises(ValueError, match="not bid has no bids"):
        obs._replace(bids=((0, 1),)).sample(1)
    with pytest.raises(TypeError, match="bidding must be True or False"):
        obs._replace(bidding=1).sample(1)
    with pytest.raises(ValueError, match="no bidding phase"):
        bid.observation(0)._replace(phase="bidding", bidding=False).sample(1)


def test_sample_refuses_shown_hands_of_the_wrong_length():
    """shown_hands shorter than three seats was read past its end (the core
    is built without bounds checks): a crash, now a ValueError."""
    g = Game("classic+happy", seed=3)
    while g.phase == "show":
        g.choose(1)
    obs = g.observation(0)
    for bad in ((ddzfast.Hand("3"),), (), [None] * 4, {0: None, 1: None, 2: None}):
        with pytest.raises((ValueError, TypeError)):
            obs._replace(shown_hands=bad).sample(1)
    while g.phase != "play":
        g.choose(g.legal_choices()[-1])
    obs = g.observation(0)
    for bad in ((1, 1), {0: 1, 1: 1, 2: 1}, "124"):
        with pytest.raises((ValueError, TypeError)):
            obs._replace(doubles=bad).sample(1)


def test_sample_refuses_a_shown_hand_it_is_not_given():
    g = Game("classic+happy", seed=3)
    while g.phase == "show":
        g.choose(1)
    obs = g.observation(0)
    hidden = obs._replace(shown_hands=(obs.shown_hands[0], None, obs.shown_hands[2]))
    with pytest.raises(ValueError, match="seat 1 showed its hand"):
        hidden.sample(1)


# ---- environments ----------------------------------------------------------------

@ignoring_api_test_dict_warnings
def test_pettingzoo_api_with_every_decision():
    from pettingzoo.test import api_test
    from ddzfast.env import doudizhu_v0
    api_test(doudizhu_v0.env("classic+happy", bidding=True), num_cycles=300)


def test_decision_actions_follow_the_documented_layout():
    """Choice v is action move_count + v - 1, and action 0 says no (a pass,
    no show, doubling x1): in every decision phase the legal actions are the
    legal choices mapped so, and each one makes that choice."""
    from ddzfast.env import CHOICE_ACTIONS, doudizhu_v0
    e = doudizhu_v0.raw_env("classic+happy", bidding=True)
    n = e.table.move_count
    assert e.table.action_count == n + CHOICE_ACTIONS
    rng = random.Random(0)
    seen = set()
    for seed in range(40):
        e.reset(seed=seed)
        game = e.game
        while game.phase != "play":
            choices = game.legal_choices()
            mapped = [0 if c == 0 or (c == 1 and game.phase == "doubling") else n + c - 1
                      for c in choices]
            assert list(e.legal_actions()) == mapped
            mask = e.observe(e.agent_selection)["action_mask"]
            assert np.flatnonzero(mask).tolist() == sorted(mapped)
            k = rng.randrange(len(choices))
            before = game.copy()
            before.choose(choices[k])
            e.step(mapped[k])
            seen.add(game.phase)
            assert game.position_key() == before.position_key()
    assert seen >= {"show", "bidding", "doubling"}


def test_a_move_in_a_decision_phase_is_refused():
    from ddzfast.env import doudizhu_v0
    e = doudizhu_v0.raw_env("classic+happy", bidding=True)
    e.reset(seed=1)
    key = e.game.position_key()
    with pytest.raises(IllegalMoveError, match="is a move, but seat 0 is deciding"):
        e.table.apply(5)
    with pytest.raises(IllegalMoveError, match="cannot choose 2 in the show phase"):
        e.table.apply(e.table.move_count + 1)
    assert e.game.position_key() == key


def test_only_the_masked_action_says_doubling_x1():
    """Doubling x1 is action 0; action move_count (which the choice
    arithmetic also reads as x1) is not legal, and its mask entry is 0:
    before the fix it was accepted."""
    from ddzfast.env import doudizhu_v0
    e = doudizhu_v0.raw_env("classic+happy", bidding=True)
    rng = random.Random(2)
    for seed in range(40):
        e.reset(seed=seed)
        game = e.game
        while game.phase not in ("doubling", "play", "done"):
            e.step(rng.choice(list(e.legal_actions())))
        if game.phase == "doubling":
            break
    assert game.phase == "doubling"
    n = e.table.move_count
    assert 0 in e.legal_actions() and n not in e.legal_actions()
    key = game.position_key()
    with pytest.raises(IllegalMoveError, match="in the doubling phase"):
        e.table.apply(n)
    assert game.position_key() == key


def test_gym_learner_decides_and_opponents_choose_in_c():
    import gymnasium
    from gymnasium.utils.env_checker import check_env
    from ddzfast.env import GYM_ID
    # made through the registration, so the checker has a spec and also
    # checks the render modes
    env = gymnasium.make(GYM_ID, rules="laizi:7+happy", seat=2, opponents="greedy",
                         bidding=True).unwrapped
    check_env(env)
    rng = np.random.default_rng(1)
    env.reset(seed=4)
    deals = 0
    for _ in range(3000):
        a = int(rng.choice(np.flatnonzero(env.action_masks())))
        _, reward, done, _, _ = env.step(a)
        if done:
            assert reward == env.game.result.scores[2]
            deals += 1
            env.reset()
    assert deals > 20


def _random_action(table):
    """The action of the built-in random policy's decision (the game's own
    random stream, as simulate's Python path draws it)."""
    game = table.game
    if game.phase == "play":
        return table.action_of(game.policy_move("random"))
    return table.action_of(game.policy_choice("random"))


@pytest.mark.parametrize("rules", ["classic", "laizi:7+happy", "tiandi:7J"])
def test_environments_play_no_shuffle_sessions_as_simulate_does(rules):
    """Issue 17 asked the environments to run no-shuffle sessions; they
    refused them. Deal i of a run is now deal i of simulate's run (next_deal
    within a session), every decision made by the random policy; a reset
    before a deal's end starts a new session."""
    from ddzfast._engine import _score_row
    from ddzfast.env import doudizhu_v0, gym_env
    r = ddzfast.get_rules(rules).with_options(deal="no_shuffle", session=4)
    bidding = r.platform["bidding"] == "rob"
    rows = simulate(11, r, "random", seed=9, bidding=bidding)
    env = doudizhu_v0.raw_env(r, bidding=bidding)
    env.reset(seed=9)
    for i in range(11):
        while not env.table.game.done:
            env.step(_random_action(env.table))
        assert _score_row(env.table.game, i // 4) == rows[i]
        env.reset()
    # the one-seat environment: the deals its learner plays are the run's
    one = gym_env(r, seat=1, opponents="random", bidding=bidding)
    one.reset(seed=9)
    seen = 0
    while one.table.deal_index <= 11:
        i = one.table.deal_index - 1
        done = False
        while not done:
            _, _, done, _, _ = one.step(_random_action(one.table))
        assert _score_row(one.table.game, i // 4) == rows[i]
        seen += 1
        one.reset()
    assert seen >= 6
    # left mid-deal: the next deal begins a session
    env.reset(seed=9)
    env.step(_random_action(env.table))
    env.reset()
    assert env.table.game.position == 0 and env.table.deal_index == 2
    assert env.table.game.seed == env.table.deal_seed == rows[1]["seed"]


@pytest.mark.parametrize("rules", ["classic", "classic+happy", "laizi:7+happy",
                                   ddzfast.get_rules("classic").with_options(bidding="rob"),
                                   ddzfast.get_rules("classic").with_options(doubling=True)])
@pytest.mark.parametrize("bidding", [False, True])
def test_vector_env_has_the_actions_of_doudizhu_v0(rules, bidding):
    """VectorEnv takes the platform's decisions as doudizhu_v0 does: the
    same actions (rob bidding adds none to deals that are not bid), and the
    same legal actions in the first decision of a deal."""
    from ddzfast.env import VectorEnv, doudizhu_v0
    e = doudizhu_v0.raw_env(rules, bidding=bidding)
    v = VectorEnv(1, rules, bidding=bidding, seed=5)
    assert v.action_count == e.table.action_count
    v.reset()
    e.reset(seed=5)         # deal 0 of run 5, as the VectorEnv's row 0
    assert e.game.hands == Game(rules, ddzfast.deal_seed(5, 0), bidding, 0).hands
    assert v.legal_indices.tolist() == e.legal_actions().tolist()


# ---- command line ------------------------------------------------------------------

def test_simulate_summary_has_the_platform_rates(run_cli):
    r = run_cli("simulate", "--rules", "classic+happy", "--games", "300", "--quiet")
    assert r.returncode == 0, r.stderr
    for line in ("rob rate", "show rate", "double rate", "mean stake"):
        assert line in r.stdout
    plain = run_cli("simulate", "--games", "300", "--quiet")
    assert "rob rate" not in plain.stdout


def test_the_rendered_table_tells_a_redeal():
    """Nobody calling in rob bidding redeals the cards: the environments'
    rendering went on with new hands and no word of it."""
    from ddzfast.env._table import Table
    table = Table("classic+happy", bidding=True, render_mode="ansi")
    game = table.deal(seed=6)
    while game.redeals == 0:
        choices = game.legal_choices()
        table.choose(0 if 0 in choices else choices[0])
    assert "nobody called: the cards are dealt again (redeal 1)\n" in table.render_text()


def test_play_asks_every_decision(run_cli):
    # show? no; call? yes; double? x2; then quit at the first move
    r = run_cli("play", "--rules", "classic+happy", "--seed", "3", "--bots", "greedy",
                stdin="7\n0\n1\n1\n0\n2\nquit\n")
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "show your hand (x4)?" in out and "not a legal choice: '7'" in out
    assert "call the landlord?" in out or "rob the landlord" in out
    assert "double your stake?" in out or "landlord:" in out


@pytest.fixture
def run_cli(run_python):
    """`ddzfast ARGS` in a subprocess, as test_cli.py runs it."""
    def run(*args, stdin=None):
        r = run_python(*args, module="ddzfast.cli", input=stdin, timeout=300)
        assert "Traceback" not in r.stdout + r.stderr, r.stderr
        return r
    return run


@pytest.mark.parametrize("rules", HAPPY)
def test_sessions_in_python_equal_the_native_rows(rules):
    """simulate's Python path (a Game per deal, next_deal within a session)
    plays the rows the C loop plays, a start inside a session included, on
    one thread or two, in one call or two."""
    from ddzfast.simulate import _python_rows
    r = ddzfast.get_rules(rules).with_options(deal="no_shuffle", session=4)
    native = simulate(30, r, ("random", "greedy", "random"), seed=9, start=5)
    python = np.array(list(_python_rows(r, ("random", "greedy", "random"), 9, 5, 35, True)),
                      dtype=ddzfast.DEAL_DTYPE)
    assert np.array_equal(native, python)
    assert native["position"].tolist() == [i % 4 for i in range(5, 35)]
    assert native["session"].tolist() == [i // 4 for i in range(5, 35)]
    split = np.concatenate([simulate(13, r, ("random", "greedy", "random"), seed=9, start=5),
                            simulate(17, r, ("random", "greedy", "random"), seed=9,
                                     start=18, threads=2)])
    assert np.array_equal(native, split)


@pytest.mark.parametrize("rules", HAPPY + ("tiandi:7J",))
def test_simulate_parts_go_on_within_sessions(rules):
    """simulate_parts yields simulate's rows part by part, whatever the part
    size, start, thread count or policies (callables too), a session cut by
    the parts included; progress counts the whole run."""
    from ddzfast.simulate import simulate_parts
    r = ddzfast.get_rules(rules).with_options(deal="no_shuffle", session=6)
    policies = ("random", "greedy", "random")
    whole = simulate(75, r, policies, seed=4, start=3)
    for part, threads in ((1, 1), (5, 2), (13, 1), (6, 3), (200, 2)):
        seen = []
        parts = list(simulate_parts(75, r, policies, seed=4, start=3, threads=threads,
                                    part=part, progress=seen.append))
        assert [len(p) for p in parts[:-1]] == [part] * (len(parts) - 1)
        assert np.array_equal(np.concatenate(parts), whole), (part, threads)
        assert seen == sorted(seen) and seen[-1] == 75
    def first_move(game, legal):
        return 0
    mixed = ("random", first_move, "greedy")
    assert np.array_equal(np.concatenate(list(simulate_parts(20, r, mixed, seed=4, start=3,
                                                             part=7))),
                          simulate(20, r, mixed, seed=4, start=3))


@pytest.mark.parametrize("threads", [1, 2])
def test_a_progress_run_is_one_engine_call_on_every_thread(monkeypatch, threads):
    """simulate(progress=...) played the run in steps of 1% (a user's
    review: with threads=2 and sessions longer than a quarter of the run,
    each step lay inside one session and ran on one thread, twice a plain
    call's time). The engine now plays the whole run in one call, on every
    thread, and its threads' count of finished deals is the progress:
    rising, ending with the run's size, the rows a plain call's."""
    sim = importlib.import_module("ddzfast.simulate")
    calls = []
    real = sim._simulate_native

    def spy(rules, policies, seed, start, stop, bidding, threads=1, carry=None,
            progress=None):
        calls.append((start, stop, threads, None if carry is None else carry.next))
        return real(rules, policies, seed, start, stop, bidding, threads, carry, progress)
    monkeypatch.setattr(sim, "_simulate_native", spy)
    r = ddzfast.get_rules("classic").with_options(deal="no_shuffle", session=1500)
    seen = []
    rows = sim.simulate(3000, r, seed=8, start=1000, threads=threads, progress=seen.append)
    assert calls == [(1000, 4000, threads, None)]
    assert seen == sorted(set(seen)) and seen[-1] == 3000
    # in parts, each part is one call that goes on from the carry the part
    # before left (no session replayed from its start)
    calls.clear()
    seen.clear()
    parts = list(sim.simulate_parts(3000, r, seed=8, start=1000, threads=threads, part=700,
                                    progress=seen.append))
    assert [c[:3] for c in calls] == [(a, min(a + 700, 4000), threads)
                                      for a in range(1000, 4000, 700)]
    assert all(carry == start for start, _, _, carry in calls[1:]), calls
    assert seen == sorted(set(seen)) and seen[-1] == 3000
    monkeypatch.setattr(sim, "_simulate_native", real)
    plain = sim.simulate(3000, r, seed=8, start=1000)
    # (np.concatenate leaves the dtype's padding byte as memory held it)
    assert rows.tobytes() == plain.tobytes() and np.array_equal(np.concatenate(parts), plain)


@pytest.mark.parametrize("threads", [1, 2])
def test_progress_is_reported_while_the_threads_play(monkeypatch, threads):
    """Between the first deal and the last, progress is called with the
    deals finished so far (here every millisecond: ticks of the waiting
    thread), not only once at the end; a progress that raises stops the
    run, its threads included, with its exception."""
    core = importlib.import_module("ddzfast._core")
    monkeypatch.setattr(core, "TICK_SECONDS", 0.001)
    seen = []
    simulate(40000, "classic", seed=3, threads=threads, progress=seen.append)
    assert len(seen) >= 3 and seen == sorted(set(seen)) and seen[-1] == 40000

    def stop(k):
        raise RuntimeError(f"stopped at {k}")
    before = os_threads()
    with pytest.raises(RuntimeError, match="stopped at"):
        simulate(10 ** 6, "classic", seed=3, threads=threads, progress=stop)
    assert threads_back_to(before) <= before


def test_simulate_parts_checks_the_ray_address_when_called():
    """A user's review: simulate_parts(backend="ray") with a bad address
    raised only at the first part (simulate raises at the call)."""
    pytest.importorskip("ray")
    from ddzfast.simulate import simulate_parts
    with pytest.raises(ValueError, match="a Ray address is HOST:PORT"):
        simulate_parts(10, backend="ray", address="nonsense")


def test_a_carry_goes_to_the_first_thread_with_deals():
    """On two threads the bounds of a run inside one session move down to its
    start: the first thread has no deal, and the second, which plays them
    all, started from a fresh carry and replayed the session's earlier
    deals (each progress step of a threaded run). The carry goes to the
    first thread with deals: a carry from another seed changes the rows
    (it was read), the run's own carry gives its rows, and the run leaves
    its end in the carry."""
    from ddzfast._engine import _SessionCarry, _simulate_native
    r = ddzfast.get_rules("classic").with_options(deal="no_shuffle", session=10 ** 6)
    policies = ("random",) * 3
    whole = _simulate_native(r, policies, 3, 0, 60, True)
    carry = _SessionCarry()
    _simulate_native(r, policies, 3, 0, 40, True, 1, carry)
    # a carry that has been gone on from cannot be told from a replay by the
    # rows: one made to look as if it came from another run shows it
    forged = _SessionCarry()
    _simulate_native(r, policies, 4, 0, 40, True, 1, forged)
    assert forged.next == 40
    from_forged = _simulate_native(r, policies, 3, 40, 60, True, 2, forged)
    assert from_forged.tobytes() != whole[40:].tobytes()
    assert _simulate_native(r, policies, 3, 40, 60, True, 2, carry).tobytes() == \
        whole[40:].tobytes()
    assert carry.next == 60


def test_a_carry_from_elsewhere_is_not_gone_on_from():
    """The engine goes on from a carry only where it ended: a carry left at
    deal 40 does not change a run from deal 50 (replayed from its session's
    start), and one left by the same run at deal 50 gives that run's rows."""
    from ddzfast._engine import _SessionCarry, _simulate_native
    r = ddzfast.get_rules("super").with_options(deal="no_shuffle", session=100)
    policies = ("random", "random", "greedy")
    whole = _simulate_native(r, policies, 6, 0, 90, True)
    carry = _SessionCarry()
    assert carry.next == -1
    _simulate_native(r, policies, 6, 0, 40, True, 1, carry)
    assert carry.next == 40
    assert _simulate_native(r, policies, 6, 50, 90, True, 1, carry).tobytes() == \
        whole[50:].tobytes()
    assert carry.next == 90
    carry = _SessionCarry()
    _simulate_native(r, policies, 6, 0, 50, True, 2, carry)
    assert carry.next == 50
    assert _simulate_native(r, policies, 6, 50, 90, True, 2, carry).tobytes() == \
        whole[50:].tobytes()
    import copy
    with pytest.raises(TypeError, match="not copied"):
        copy.copy(carry)


def test_ray_tasks_do_not_cut_sessions(monkeypatch):
    """simulate(backend="ray") cut its deals into tasks wherever the count
    fell, so each task replayed the start of the session it began inside:
    the inner bounds now fall where sessions start, and the rows are the
    local backend's."""
    sim = importlib.import_module("ddzfast.simulate")
    tasks = []

    def run_here(ray, fn, arglists, on_result=None):
        tasks.extend((args[4], args[5]) for args in arglists)
        parts = [fn(*args) for args in arglists]
        for part in parts:
            if on_result is not None:
                on_result(part)
        return parts
    monkeypatch.setattr(sim, "ray_session", lambda address, timeout: object())
    monkeypatch.setattr(sim, "ray_results", run_here)
    r = ddzfast.get_rules("classic").with_options(deal="no_shuffle", session=30)
    rows = sim.simulate(200, r, seed=2, start=10, backend="ray", tasks=9)
    assert tasks[0][0] == 10 and tasks[-1][1] == 210
    assert [a for a, _ in tasks] == [10, 30, 60, 90, 120, 150, 180]
    assert rows.tobytes() == sim.simulate(200, r, seed=2, start=10).tobytes()
    assert sim.session_bounds([10, 30, 31, 59, 61, 70], 30) == [10, 30, 60, 70]
    assert sim.session_bounds([5, 9, 12], 100) == [5, 12]
    assert sim.session_bounds([5, 5], 7) == [5, 5]


# ---- sampling: the order of RULES.md 10 ------------------------------------------

OPTION_SETS = [dict(bidding=b, show=s, doubling=d) for b in ("points", "rob")
               for s in (False, True) for d in (False, True, "after_farmer") if s or d]


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: "-".join(map(str, o.values())))
def test_sample_accepts_what_deals_reach_and_no_other_seat_to_decide(options):
    """Defect B (sample built platform states section 10 forbids): every
    observation of real deals under each combination of the options
    (doubling='after_farmer' included) samples to the same decision, and
    the same observation with another seat to decide in the landlord_show
    or doubling phase is refused (the builder counted the doubles made and
    let any seat decide next: the landlord doubled before the farmers)."""
    i = OPTION_SETS.index(options)
    r = ddzfast.get_rules(RULE_SETS[i % len(RULE_SETS)]).with_options(**options)
    rng = random.Random(i)
    phases = set()
    for d in range(25):
        g = Game(r, seed=rng.randrange(2**63), bidding=rng.random() < 0.8,
                 first_bidder=rng.randrange(3))
        plays = 0
        while not g.done and plays < 4:
            for seat in range(3):
                obs = g.observation(seat)
                w = obs.sample(rng.randrange(1 << 30))
                assert (w.phase, w.to_move, w.legal_choices(), w.multiplier, w.robs,
                        w.shown, w.doubles) == (g.phase, g.to_move, g.legal_choices(),
                                                g.multiplier, g.robs, g.shown, g.doubles)
                if g.phase in ("landlord_show", "doubling"):
                    for other in range(3):
                        if other != g.to_move:
                            with pytest.raises(ValueError, match="is to decide"):
                                obs._replace(to_move=other).sample(1)
            phases.add(g.phase)
            if g.phase == "play":
                g.play(g.policy_move("random"))
                plays += 1
            else:
                g.choose(rng.choice(g.legal_choices()))
    assert ("landlord_show" in phases) == options["show"]
    assert ("doubling" in phases) == bool(options["doubling"])


AFTER_FARMER = ddzfast.get_rules("classic").with_options(bidding="rob", show=True,
                                                         doubling="after_farmer")


def test_sample_refuses_the_landlord_doubling_before_the_farmers():
    """Defect B, the reported case: the landlord (seat 0) to double before
    its farmers was sampled into a deal where it doubled x4 first and play
    began with doubles (4, None, None)."""
    g = play_to("doubling", AFTER_FARMER, 7)
    assert (g.landlord, g.to_move, g.doubles) == (0, 1, (None, None, None))
    obs = g.observation(1)._replace(to_move=0, seat=0, hand=g.hands[0])
    with pytest.raises(ValueError, match="seat 1 is to decide in the doubling phase"):
        obs.sample(1)
    # the real one samples and plays on as the deal does
    w = g.observation(0).sample(1)
    w.choose(1)
    assert (w.to_move, w.doubles) == (2, (None, 1, None))


def _forged_farmer_double_out_of_order():
    g = play_to("doubling", AFTER_FARMER, 7)
    g.choose(2)                           # seat 1 doubles; seat 2 is to decide
    return g.observation(2)._replace(doubles=(None, None, 2), to_move=1)


def _forged_farmer_shown_before_play():
    g = play_to("play", AFTER_FARMER, 7)
    obs = g.observation(0)
    return obs._replace(shown=(None, "before_play", None),
                        shown_hands=(None, g.hands[1], None), multiplier=obs.multiplier * 2)


def _forged_landlord_doubling_alone():
    g = play_to("play", AFTER_FARMER, 7)
    assert g.doubles == (1, 1, 1)
    return g.observation(1)._replace(doubles=(4, 1, 1))


def _forged_landlord_show_after_showing():
    r = ddzfast.get_rules("classic").with_options(bidding="rob", show=True, doubling=True)
    g = play_to("doubling", r, 7, show=lambda g: int(g.to_move == 0))
    assert (g.landlord, g.shown) == (0, ("before_bidding", None, None))
    return g.observation(1)._replace(phase="landlord_show", to_move=0,
                                     doubles=(None, None, None))


def _forged_landlord_to_double_after_no_farmer_did():
    g = play_to("play", AFTER_FARMER, 7)
    return g.observation(1)._replace(phase="doubling", to_move=0, doubles=(None, 1, 1))


def _forged_show_by_a_seat_still_to_decide():
    g = Game("classic+happy", seed=3)
    g.choose(0)                           # seat 0 does not show; seat 1 decides next
    obs = g.observation(1)
    return obs._replace(shown=(None, None, "before_bidding"),
                        shown_hands=(None, None, g.hands[2]))


@pytest.mark.parametrize("forge, message", [
    (_forged_farmer_double_out_of_order, "the farmers double first"),
    (_forged_farmer_shown_before_play, "only the landlord"),
    (_forged_landlord_doubling_alone, "only if a farmer did"),
    (_forged_landlord_show_after_showing, "showed before bidding"),
    (_forged_landlord_to_double_after_no_farmer_did, "only if a farmer did"),
    (_forged_show_by_a_seat_still_to_decide, "shown"),
])
def test_sample_refuses_platform_records_section_10_forbids(forge, message):
    """Defect B: the builder checked the platform fields one by one and
    counted the doubles made, so it built deals no game reaches (a farmer
    doubling out of turn, a farmer's show after the kitty, the landlord
    doubling alone under 'after_farmer', a landlord_show decision for a
    landlord that showed before bidding, a show by a seat still to decide)."""
    with pytest.raises(ValueError, match=message):
        forge().sample(1)
