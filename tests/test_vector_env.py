"""ddzfast.env.VectorEnv, many deals stepped in one C call: every row against
the replayed Game (observation, seat to move, legal actions, rewards,
terminated) across autoresets, in every rule set, with and without bidding,
self-play and a learner seat with built-in opponents; masks against the
CSR lists; threads; uint8 observations; bad input that must change
nothing. Skipped without the ``env`` extra (ddzfast.env needs it)."""
import _thread
import os
import textwrap

import numpy as np
import pytest

pytest.importorskip("gymnasium", reason='needs the env extra: pip install "ddzfast[env]"')
pytest.importorskip("pettingzoo", reason='needs the env extra: pip install "ddzfast[env]"')

import ddzfast  # noqa: E402
from ddzfast import Game, OBSERVATION_LAYOUT, OBSERVATION_SIZE, action_count, deal_seed  # noqa: E402
from ddzfast.env import BID_ACTIONS, VectorEnv  # noqa: E402

from helpers import (CHILD_HELPERS, RULE_SETS, os_threads, settled_threads, survives_a_writer,  # noqa: E402
                     threads_back_to)

SEED = 2026


class Replay:
    """The Games a VectorEnv's rows should be playing, stepped alongside."""

    def __init__(self, env, rules, bidding, seat, opponents):
        self.env, self.rules, self.bidding, self.seat = env, rules, bidding, seat
        self.moves = action_count(rules)
        self.policies = {}
        if seat is not None:
            others = [s for s in range(3) if s != seat]
            two = opponents if len(opponents) == 2 else opponents * 2
            self.policies = dict(zip(others, two))
        self.games = [self.deal(int(d)) for d in env.deals]

    def deal(self, d):
        game = Game(self.rules, deal_seed(self.env.seed, d), self.bidding, d % 3)
        self.opponents(game)
        return game

    def opponents(self, game):
        while self.seat is not None and not game.done and game.to_move != self.seat:
            policy = self.policies[game.to_move]
            if game.phase == "play":
                game.play(game.policy_move(policy))
            else:
                game.choose(game.policy_choice(policy))

    def choice_action(self, game, choice):
        """doudizhu_v0's action of a decision's choice: 0 says no (a pass,
        no show, doubling x1), choice v else the moves' count + v - 1."""
        if choice == 0 or (choice == 1 and game.phase == "doubling"):
            return 0
        return self.moves + choice - 1

    def legal(self, game):
        if game.phase == "play":
            return game.legal_action_indices()
        return np.array([self.choice_action(game, c) for c in game.legal_choices()],
                        dtype=np.int32)

    def act(self, game, a):
        if game.phase == "play":
            game.play_action(a)
        else:
            game.choose({self.choice_action(game, c): c for c in game.legal_choices()}[a])

    def check_rows(self):
        env = self.env
        for i, game in enumerate(self.games):
            assert env.to_move[i] == game.to_move
            np.testing.assert_array_equal(env.obs[i], game.observation_tensor())
            legal = env.legal_indices[env.legal_offsets[i]:env.legal_offsets[i + 1]]
            np.testing.assert_array_equal(legal, self.legal(game))

    def step(self, actions):
        """Play the actions on the Games; then check the env's step outcome."""
        env = self.env
        ended = 0
        for i, game in enumerate(self.games):
            self.act(game, int(actions[i]))
            self.opponents(game)
            assert bool(env.terminated[i]) == game.done
            if game.done:
                assert tuple(env.rewards[i]) == game.result.scores
                ended += 1
            else:
                assert not env.rewards[i].any()
        # the new deals: the next numbers, in increasing row
        numbers = iter(range(self.next_before, self.next_before + ended))
        for i, game in enumerate(self.games):
            if game.done:
                d = next(numbers)
                assert env.deals[i] == d
                self.games[i] = self.deal(d)


def random_actions(env, rng):
    off = env.legal_offsets
    pick = off[:-1] + (rng.random(env.num_envs) * np.diff(off)).astype(np.int64)
    return env.legal_indices[pick].astype(np.int32)


def play_against_replay(rules, bidding, seat, opponents=("greedy",), steps=120, n=6,
                        **kw):
    env = VectorEnv(n, rules, bidding=bidding, seat=seat,
                    opponents=None if seat is None else opponents, seed=SEED, **kw)
    env.reset()
    assert list(env.deals) == list(range(n))
    replay = Replay(env, rules, bidding, seat, opponents)
    rng = np.random.default_rng(7)
    ends = 0
    for _ in range(steps):
        replay.check_rows()
        actions = random_actions(env, rng)
        replay.next_before = env.next_deal
        env.step(actions)
        replay.step(actions)
        ends += int(env.terminated.sum())
    replay.check_rows()
    assert ends > 0, "no deal ended: the autoreset went untested"
    return env


#: Rule sets with the platform options of RULES.md 10 that add decisions.
PLATFORM = ["classic+happy", "tiandi:7J+happy",
            ddzfast.get_rules("laizi:7").with_options(bidding="rob", no_call="first",
                                                      doubling="after_farmer"),
            ddzfast.get_rules("super").with_options(show=True, cap=32)]
PLATFORM_IDS = ["classic+happy", "tiandi:7J+happy", "laizi:7-rob-first-after-farmer",
                "super-show-cap"]


@pytest.mark.parametrize("bidding", [False, True])
@pytest.mark.parametrize("rules", [*RULE_SETS, *PLATFORM], ids=[*RULE_SETS, *PLATFORM_IDS])
def test_self_play_equals_replayed_games(rules, bidding):
    play_against_replay(rules, bidding, None)


@pytest.mark.parametrize("rules, bidding, seat, opponents", [
    (rules, bidding, seat, opp)
    for rules in [*RULE_SETS, *PLATFORM] for bidding in (False, True)
    for seat, opp in ((0, ("greedy",)), (2, ("random", "greedy")))])
def test_learner_seat_equals_replayed_games(rules, bidding, seat, opponents):
    env = play_against_replay(rules, bidding, seat, opponents, steps=60)
    assert set(env.to_move) == {seat}


@pytest.mark.parametrize("rules", PLATFORM, ids=PLATFORM_IDS)
def test_platform_decisions_are_steps(rules):
    """With the platform options every decision is a step: a run of random
    actions meets every phase the options add, redeals included where
    nobody calls, and the actions follow the moves (CHOICE_ACTIONS)."""
    from ddzfast.env import CHOICE_ACTIONS
    env = VectorEnv(8, rules, bidding=True, seed=SEED)
    assert env.action_count == action_count(rules) + CHOICE_ACTIONS
    env.reset()
    rng = np.random.default_rng(3)
    phase = OBSERVATION_LAYOUT["deal_phase"]
    redeals = OBSERVATION_LAYOUT["redeals"].offset
    seen, redealt = set(), False
    for _ in range(150):
        seen |= set(np.flatnonzero(env.obs[:, phase.offset:phase.offset + phase.size].any(0)))
        redealt |= bool(env.obs[:, redeals].any())
        env.step(random_actions(env, rng))
    p = ddzfast.get_rules(rules).platform
    names = ("bidding", "play", "done", "show", "landlord_show", "doubling")
    expected = {"bidding", "play"} | ({"show", "landlord_show"} if p["show"] else set()) \
        | ({"doubling"} if p["doubling"] else set())
    assert {names[k] for k in seen} == expected
    assert redealt == (p["bidding"] == "rob" and p["no_call"] == "redeal")


def test_deals_are_those_of_simulate():
    """Row d of reset is deal d of the run: the seed simulate gives row d."""
    env = VectorEnv(5, "classic", bidding=True, seed=SEED)
    env.reset()
    rows = ddzfast.simulate(5, "classic", seed=SEED, bidding=True)
    for d in range(5):
        game = Game("classic", int(rows["seed"][d]), True, d % 3)
        np.testing.assert_array_equal(env.obs[d], game.observation_tensor())


# a tiandi mask row is millions of entries: fewer rows and steps
@pytest.mark.parametrize("rules, n, steps", [("classic", 5, 80), ("laizi:7", 5, 80),
                                             ("tiandi:7J", 2, 20)])
def test_masks_equal_the_lists(rules, n, steps):
    for bidding in (False, True):
        dense = VectorEnv(n, rules, bidding=bidding, seed=3, mask="dense")
        bits = VectorEnv(n, rules, bidding=bidding, seed=3, mask="bits")
        dense.reset()
        bits.reset()
        count = action_count(rules) + (BID_ACTIONS if bidding else 0)
        assert dense.action_count == count
        assert dense.mask.dtype == np.int8 and dense.mask.shape == (n, count)
        assert bits.mask.dtype == np.uint8 and bits.mask.shape == (n, (count + 7) // 8)
        rng = np.random.default_rng(0)
        for _ in range(steps):
            for i in range(n):
                legal = dense.legal_indices[dense.legal_offsets[i]:dense.legal_offsets[i + 1]]
                expect = np.zeros(count, dtype=np.int8)
                expect[legal] = 1
                np.testing.assert_array_equal(dense.mask[i], expect)
                unpacked = np.unpackbits(bits.mask[i])
                np.testing.assert_array_equal(unpacked[:count], expect)
                assert not unpacked[count:].any()
            actions = random_actions(dense, rng)
            dense.step(actions)
            bits.step(actions)
        assert VectorEnv(2).mask is None


def snapshot(env):
    return {name: np.array(getattr(env, name)) for name in
            ("obs", "to_move", "rewards", "terminated", "legal_offsets", "legal_indices",
             "deals")} | ({"mask": np.array(env.mask)} if env.mask is not None else {})


@pytest.mark.parametrize("rules", ["classic", "classic+happy"])
@pytest.mark.parametrize("seat, mask", [(None, "bits"), (1, "dense")])
def test_threads_give_identical_buffers(seat, mask, rules):
    envs = [VectorEnv(13, rules, bidding=True, seat=seat, seed=11, threads=t, mask=mask)
            for t in (1, 2, 4)]
    for env in envs:
        env.reset()
    rng = np.random.default_rng(5)
    for _ in range(100):
        snaps = [snapshot(env) for env in envs]
        for other in snaps[1:]:
            for name in snaps[0]:
                np.testing.assert_array_equal(snaps[0][name], other[name], err_msg=name)
        actions = random_actions(envs[0], rng)
        for env in envs:
            env.step(actions)


def test_a_decision_takes_only_its_own_actions():
    """In the doubling phase x1 is action 0 alone (not the first action
    after the moves, which a show or a call would be), and no move is a
    decision: either is refused, naming the row and phase, and no deal
    changes; the factors' own actions play."""
    rules = ddzfast.get_rules("classic").with_options(doubling=True)
    env = VectorEnv(2, rules, seed=1)
    env.reset()
    moves = action_count(rules)
    assert env.legal_indices.tolist() == [0, moves + 1, moves + 3] * 2
    before = snapshot(env)
    for wrong in (moves, 1, moves + 2):
        with pytest.raises(ValueError, match=r"actions\[1\].*doubling phase"):
            env.step(np.array([0, wrong], dtype=np.int32))
        for name, value in before.items():
            np.testing.assert_array_equal(getattr(env, name), value, err_msg=name)
    env.step(np.array([moves + 3, 0], dtype=np.int32))
    replay = [Game(rules, deal_seed(1, d), False, d % 3) for d in range(2)]
    replay[0].choose(4)
    replay[1].choose(1)
    for i in range(2):
        np.testing.assert_array_equal(env.obs[i], replay[i].observation_tensor())


def test_uint8_observations():
    """Every entry as the float32 tensor gives it, but ``multiplier`` (log2
    of the multiplier) rounded down."""
    f = VectorEnv(8, "super", seed=1)
    u = VectorEnv(8, "super", seed=1, obs_dtype="uint8")
    # a numpy dtype or scalar type of a name is that name (a ValueError until
    # a user's review)
    for same, name in ((np.uint8, "uint8"), (np.dtype("uint8"), "uint8"),
                       (np.float32, "float32"), ("f4", "float32")):
        assert VectorEnv(2, "super", obs_dtype=same).obs_dtype == name
    f.reset()
    u.reset()
    mult = OBSERVATION_LAYOUT["multiplier"].offset
    rng = np.random.default_rng(2)
    for _ in range(200):
        assert u.obs.dtype == np.uint8 and u.obs.shape == (8, OBSERVATION_SIZE)
        expect = f.obs.astype(np.uint8)
        expect[:, mult] = np.floor(f.obs[:, mult])
        np.testing.assert_array_equal(u.obs, expect)
        assert (f.obs == np.floor(f.obs))[:, np.arange(OBSERVATION_SIZE) != mult].all()
        actions = random_actions(f, rng)
        f.step(actions)
        u.step(actions)


def test_bad_actions_change_nothing():
    env = VectorEnv(6, "classic", bidding=True, seed=4, mask="bits")
    twin = VectorEnv(6, "classic", bidding=True, seed=4, mask="bits")
    env.reset()
    twin.reset()
    rng = np.random.default_rng(3)
    for _ in range(30):
        actions = random_actions(env, rng)
        env.step(actions)
        twin.step(actions)
    before = snapshot(env)
    good = random_actions(env, rng)
    illegal = good.copy()
    row = 4
    legal = set(env.legal_indices[env.legal_offsets[row]:env.legal_offsets[row + 1]])
    illegal[row] = next(a for a in range(env.action_count) if a not in legal)
    with pytest.raises(ValueError, match=rf"actions\[{row}\].*row {row}"):
        env.step(illegal)
    out_of_range = good.copy()
    out_of_range[2] = env.action_count
    with pytest.raises(ValueError, match=r"actions\[2\]"):
        env.step(out_of_range)
    with pytest.raises(ValueError, match=r"actions\[1\]"):
        env.step(np.where(np.arange(6) == 1, -1, good).astype(np.int64))
    with pytest.raises(ValueError, match=r"shape \(6,\)"):
        env.step(good[:5])
    with pytest.raises(ValueError, match=r"shape \(6,\)"):
        env.step(good.reshape(2, 3))
    with pytest.raises(TypeError, match="integer"):
        env.step(good.astype(np.float32))
    with pytest.raises(TypeError, match="integer"):
        env.step(np.ones(6, dtype=bool))
    after = snapshot(env)
    for name in before:
        np.testing.assert_array_equal(before[name], after[name], err_msg=name)
    # the deals themselves unchanged: the next step goes as the twin's does
    env.step(good.astype(np.int64))        # other integer dtypes are converted
    twin.step(good)
    for name, value in snapshot(twin).items():
        np.testing.assert_array_equal(getattr(env, name), value, err_msg=name)


def test_bad_arguments():
    with pytest.raises(ValueError, match="num_envs"):
        VectorEnv(0)
    with pytest.raises(TypeError, match="num_envs"):
        VectorEnv(2.0)
    with pytest.raises(ValueError, match="wild rank"):
        VectorEnv(2, "laizi")
    for tiandi in ("tiandi", ddzfast.get_rules("tiandi").with_options(wild_ranks=("7",))):
        with pytest.raises(ValueError, match="tiandi:7J"):
            VectorEnv(2, tiandi)
    with pytest.raises(ValueError, match="seat"):
        VectorEnv(2, seat=3)
    with pytest.raises(ValueError, match="opponents"):
        VectorEnv(2, opponents="greedy")
    with pytest.raises(ValueError, match="in C"):
        VectorEnv(2, seat=0, opponents=lambda game, legal: 0)
    with pytest.raises(ValueError, match="one opponent policy or two"):
        VectorEnv(2, seat=0, opponents=("greedy",) * 3)
    for bad in ("float64", np.float64, None, 3, "f8", [1]):
        with pytest.raises(ValueError, match="obs_dtype"):
            VectorEnv(2, obs_dtype=bad)
    with pytest.raises(ValueError, match="mask"):
        VectorEnv(2, mask="sparse")
    with pytest.raises(ValueError, match="threads"):
        VectorEnv(2, threads=0)
    with pytest.raises(ValueError, match="reset"):
        VectorEnv(2).step(np.zeros(2, dtype=np.int32))


def test_mask_must_be_text():
    """Regression (review of the environments, 2026-12-07): a NumPy array
    holding "bits" passed the check (`in` compares with ==) and became the
    env's mask_kind; one of two items was NumPy's ambiguous-truth error. A
    mask kind that is no text is a TypeError; a str subclass is read as its
    text."""
    for bad in (np.array("bits"), np.array(["dense"]), np.array(["dense", "bits"]), 1):
        with pytest.raises(TypeError, match="mask must be None, 'dense' or 'bits', not"):
            VectorEnv(2, mask=bad)
    env = VectorEnv(2, mask=np.str_("bits"))
    assert type(env.mask_kind) is str and env.mask_kind == "bits"


def test_reset_numbering():
    env = VectorEnv(3, seed=9)
    env.reset()
    assert env.seed == 9 and list(env.deals) == [0, 1, 2]
    env.reset()
    assert list(env.deals) == [3, 4, 5]
    env.reset(seed=9)
    assert list(env.deals) == [0, 1, 2]
    drawn = VectorEnv(2)
    drawn.reset()
    assert isinstance(drawn.seed, int)


def test_uninitialised_objects_raise():
    """Objects made without __init__ (VectorEnv.__new__, DouZeroVec with bad
    arguments) raise instead of touching unallocated buffers."""
    from ddzfast._douzero import DouZeroVec
    bare = VectorEnv.__new__(VectorEnv)
    with pytest.raises(TypeError, match="initialised"):
        bare.reset()
    with pytest.raises(TypeError, match="initialised"):
        bare.step(np.zeros(1, dtype=np.int32))
    with pytest.raises(ValueError):
        DouZeroVec(0, 0)
    engine = DouZeroVec(2, 0)
    with pytest.raises(ValueError, match="reset"):
        engine.step(np.zeros(2, dtype=np.int64))
    engine.reset(1, 0)
    with pytest.raises(ValueError, match="int64"):
        engine.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(ValueError, match="byte order"):
        engine.step(np.zeros(2, dtype=">i8"))
    with pytest.raises(ValueError, match="int64"):
        engine.check(np.zeros(2, dtype=np.int32))
    with pytest.raises(IndexError):
        engine.legal_lists(2)
    with pytest.raises(IndexError):
        engine.buffers(3)


def test_concurrent_calls_are_refused():
    """A step while another step of the same VectorEnv runs (from another
    thread) raises RuntimeError instead of racing on its buffers, and
    changes nothing: after each round the buffers equal those of a twin
    stepped once with the same actions. The actions are picked while no
    step runs (reading the buffers during a step would itself race); the
    intruding thread sends an illegal action, so a call that slips in
    between steps raises ValueError and changes nothing either (and while
    it runs, the main thread's step is refused and retried)."""
    import threading
    import time
    n = 4096
    env = VectorEnv(n, "classic", seed=1, threads=2)
    twin = VectorEnv(n, "classic", seed=1, threads=1)
    env.reset()
    twin.reset()
    rng = np.random.default_rng(0)
    illegal = np.full(n, env.action_count, dtype=np.int32)
    refused = []
    for _ in range(8):
        actions = random_actions(env, rng)
        started = threading.Event()
        done = threading.Event()
        failures = []

        def intrude():
            started.set()
            while not done.is_set():
                try:
                    env.step(illegal)
                except RuntimeError as e:
                    refused.append(str(e))
                except ValueError as e:
                    if "not a legal action" not in str(e):
                        failures.append(e)
                except Exception as e:      # noqa: BLE001 - reported below
                    failures.append(e)
                else:
                    failures.append(AssertionError("an illegal step was accepted"))
                time.sleep(0.0005)  # not a spin: the main thread's step gets in

        intruder = threading.Thread(target=intrude)
        intruder.start()
        started.wait()
        try:
            while True:
                try:
                    env.step(actions)
                    break
                except RuntimeError as e:
                    assert "one call at a time" in str(e)
                    time.sleep(0.0005)  # the intruder's call was running: retried
        finally:
            done.set()
            intruder.join()
        assert not failures, failures
        twin.step(actions)
        for name, value in snapshot(twin).items():
            np.testing.assert_array_equal(getattr(env, name), value, err_msg=name)
        if refused:
            break
    assert refused, "no call overlapped a running step: the refusal went untested"
    assert all("one call at a time" in e for e in refused)


@pytest.mark.parametrize("rules", ["classic", "laizi:7"])
def test_actions_in_the_other_byte_order_are_read_as_their_values(rules):
    """An int32 actions array of the other byte order was read as the
    machine's: a legal action refused with another number, or (laizi) another
    legal action played in its place."""
    env = VectorEnv(64, rules, seed=3)
    twin = VectorEnv(64, rules, seed=3)
    env.reset()
    twin.reset()
    rng = np.random.default_rng(5)
    for _ in range(12):
        actions = random_actions(env, rng).astype(np.int32)
        env.step(actions.astype(">i4"))
        twin.step(actions)
        assert np.array_equal(env.obs, twin.obs)
        assert np.array_equal(env.rewards, twin.rewards)
        assert np.array_equal(env.legal_indices, twin.legal_indices)


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"),
                    reason="counts the process's threads in /proc")
def test_a_threaded_envs_workers_run_while_it_lives_and_end_with_it():
    """threads=3: two worker threads from the first threaded pass on, kept
    from step to step (none made per step), and gone once the env is."""
    import gc
    before = settled_threads()
    env = VectorEnv(64, "classic", seat=0, opponents="random", threads=3, seed=1)
    env.reset()
    assert os_threads() >= before + 2
    for _ in range(5):
        env.step(env.legal_indices[env.legal_offsets[:-1]])
    assert os_threads() >= before + 2
    del env
    gc.collect()
    assert threads_back_to(before) <= before


def test_a_threaded_env_stepped_before_fork_steps_in_the_child(run_python):
    """The child of a fork inherited the env's thread pool but none of its
    threads: its next reset waited for ever (the user review of
    2026-12-05). It makes a pool of its own."""
    code = textwrap.dedent("""
        import os
        from ddzfast.env import VectorEnv
        env = VectorEnv(8, "classic", threads=2, seed=1)
        env.reset()
        pid = os.fork()
        if pid == 0:
            import signal
            signal.alarm(30)                 # (a hang ends the child, not the run)
            env.reset(seed=2)
            env.step(env.legal_indices[env.legal_offsets[:-1]])
            os._exit(0)
        _, status = os.waitpid(pid, 0)
        env.reset(seed=3)
        print("child status", os.waitstatus_to_exitcode(status))
    """)
    result = run_python(code=code, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "child status 0" in result.stdout


@pytest.mark.parametrize("last_line", ["", "del env"])
def test_a_threaded_env_alive_at_exit_ends_cleanly(run_python, last_line):
    """Regression (the CI of 2026-12-06): a threaded env ended at the
    interpreter's exit (still alive then, or dropped by the last line)
    woke its workers, and each was ended inside its frames as it took the
    GIL back (pthread_exit), once the shutdown had begun: the
    AddressSanitizer build (scripts/asan_check.sh runs this test) reported
    the frames left poisoned. Ended before the shutdown, the env now waits
    for its workers to return; ended during it, it leaves them blocked, to
    end with the process."""
    code = textwrap.dedent("""
        from ddzfast.env import VectorEnv
        env = VectorEnv(8, "classic", threads=3, seed=1)
        env.reset(seed=1)
        for _ in range(3):
            env.step(env.legal_indices[env.legal_offsets[:-1]])
        print("stepped")
    """) + last_line + "\n"
    result = run_python(code=code, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "stepped\n" and result.stderr == ""


@pytest.mark.skipif(not hasattr(_thread, "_count"), reason="counts threads with _thread._count")
def test_an_env_ends_once_its_workers_have_returned(run_python):
    """What the test above needs, seen without AddressSanitizer: when an
    env ends, its workers have returned from their Python frames (before,
    they were woken and left to run: the interpreter could begin to shut
    down before they had). In a process of its own, where no other test's
    threads come and go."""
    code = textwrap.dedent("""
        import _thread
        from ddzfast.env import VectorEnv
        before = _thread._count()
        env = VectorEnv(8, "classic", threads=3, seed=1)
        env.reset(seed=1)
        env.step(env.legal_indices[env.legal_offsets[:-1]])
        running = _thread._count()
        del env
        print(before, running, _thread._count())
    """)
    result = run_python(code=code, timeout=60)
    assert result.returncode == 0, result.stderr
    before, running, after = map(int, result.stdout.split())
    assert running == before + 2 and after == before


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"),
                    reason="counts the process's threads in /proc")
def test_an_env_ended_at_shutdown_leaves_its_workers_blocked(run_python):
    """An env ended while the interpreter shuts down (``sys.is_finalizing()``
    true, stood in for here) does not wake its workers, which would not
    return from taking the GIL."""
    code = CHILD_HELPERS + textwrap.dedent("""
        import gc, sys, time
        from ddzfast.env import VectorEnv
        sys.is_finalizing = lambda: True
        env = VectorEnv(8, "classic", threads=3, seed=1)
        env.reset(seed=1)
        alive = os_threads()
        del env
        gc.collect()
        time.sleep(0.3)
        print(alive, os_threads())
    """)
    result = run_python(code=code, timeout=60)
    assert result.returncode == 0, result.stderr
    alive, after = map(int, result.stdout.split())
    assert after == alive


def test_an_env_ended_after_its_module_globals_says_nothing(run_python):
    """Regression (the lifecycle review of 2026-12-06): the finalizer of a
    threaded env read the module global ``os``, which the interpreter's
    shutdown may have cleared first: the env kept until then (here on
    ``sys``) printed an error on its way out. It reads no module global."""
    code = textwrap.dedent("""
        import sys
        from ddzfast.env import VectorEnv
        env = VectorEnv(8, "classic", threads=3, seed=1)
        env.reset(seed=1)
        sys.kept_to_the_end = env
        del env
    """)
    result = run_python(code=code, timeout=60)
    assert result.returncode == 0 and result.stderr == "", result.stderr


@pytest.mark.skipif(not hasattr(os, "fork"), reason="forks")
def test_a_child_forked_during_a_step_says_so(run_python):
    """Regression (the lifecycle review of 2026-12-06): a fork while
    another thread stepped the env left the child's env refusing every
    call "from another thread", a thread the child does not have. The
    refusal stays (the rows are part way through that step there), and
    says what happened. Forked until a fork lands inside a step."""
    code = textwrap.dedent("""
        import os, threading, time
        from ddzfast.env import VectorEnv
        env = VectorEnv(4000, "classic", seed=1)
        env.reset(seed=1)
        going = True
        def stepper():
            while going:
                try:
                    env.step(env.legal_indices[env.legal_offsets[:-1]].copy())
                except RuntimeError:      # (the main thread in its reset)
                    pass
        t = threading.Thread(target=stepper)
        t.start()
        seen = set()
        for attempt in range(200):
            time.sleep(0.002)             # (the stepper's turn to enter a step)
            try:
                env.reset()               # refused while the stepper is in a step
                continue
            except RuntimeError:
                pass
            pid = os.fork()
            if pid == 0:
                try:
                    env.step(env.legal_indices[env.legal_offsets[:-1]].copy())
                    os._exit(10)
                except RuntimeError as e:
                    os._exit(11 if "when this process was forked" in str(e) else 12)
            _, status = os.waitpid(pid, 0)
            seen.add(os.waitstatus_to_exitcode(status))
            if 11 in seen or 12 in seen:
                break
        going = False
        t.join()
        print(sorted(seen))
    """)
    result = run_python(code=code, timeout=300)
    assert result.returncode == 0, result.stderr
    seen = set(eval(result.stdout))
    assert 12 not in seen and 11 in seen, seen


def test_another_thread_writing_the_buffers_cannot_crash_a_step(run_python):
    """Regression (a user's review): step read its offsets back from
    legal_offsets, a buffer of the caller's, to place each row's legal
    actions, and played int32 actions from the caller's array after
    checking them: another thread writing either made a step write out of
    bounds (a segfault) or fail in the engine ("the deals are in an
    unspecified state"). The actions are copied before they are checked,
    and the offsets are the step's own."""
    survives_a_writer(run_python, """
        import numpy as np
        from ddzfast.env import VectorEnv
        env = VectorEnv(1024, "classic", seed=1)
        env.reset(seed=1)
        offsets, actions = env.legal_offsets, np.zeros(1024, np.int32)
    """, """
        offsets[500] = 1 << 40
        actions[700] = 1 << 30
        actions[700] = 0
    """, """
        starts = np.minimum(env.legal_offsets.copy()[:-1], len(env.legal_indices) - 1)
        actions[:] = env.legal_indices[starts]
        try:
            env.step(actions)
        except ValueError as e:
            assert "is not a legal action" in str(e), e
            env.reset()
    """, rounds=300)


@pytest.mark.parametrize("actions, message", [
    (None, "not None"), ([2 ** 70, 0, 0], "ints past 64 bits"),
    (np.zeros(3, np.float32), "not of dtype float32"),
])
def test_actions_of_no_integer_type_say_what_they_are(actions, message):
    """Regression (a user's review): step(None) and step([2**70, 0, 0])
    said "not of dtype object", which names neither."""
    env = VectorEnv(3, "classic", seed=1)
    env.reset()
    with pytest.raises(TypeError, match=message):
        env.step(actions)
