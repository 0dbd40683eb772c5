"""ddzfast.compat.douzero.VecEnv, many DouZero deals at once: every row's
observation (x_batch, z_batch, legal actions, x_no_action, z, position),
reward and end against compat.douzero.Env playing the same deal with the
same actions, across autoresets, for every objective; the per-position
buffers and offsets; bad input that must change nothing."""
import numpy as np
import pytest

from ddzfast.compat.douzero import (ACTION_WIDTH, OBJECTIVES, POSITIONS, X_NO_ACTION_WIDTH, Env,
                                    VecEnv)
from helpers import survives_a_writer


FORMS = [dict(z_batch=zb, x_batch=xb, dtype=dt) for dt in ("float32", "int8")
         for zb in (True, False) for xb in (True, False)]


@pytest.mark.parametrize("objective, form", [(o, FORMS[0]) for o in OBJECTIVES]
                         + [("adp", f) for f in FORMS[1:]])
def test_rows_equal_env(objective, form):
    """(z_batch=False / x_batch=False: observation() rebuilds the batches
    from z, x_no_action and x_action; dtype="int8": observation() converts
    to float32, and the int8 values must be exact.)"""
    n = 7
    z_batch = form["z_batch"]
    vec = VecEnv(n, objective, seed=11, **form)
    vec.reset()
    assert list(vec.deals) == list(range(n))
    envs = [Env(objective) for _ in range(n)]
    obs = [env.reset(vec.card_play_data(i)) for i, env in enumerate(envs)]
    rng = np.random.default_rng(1)
    ends = 0
    for _ in range(250):
        for i in range(n):
            got, want = vec.observation(i), obs[i]
            assert got["position"] == want["position"] == POSITIONS[vec.position[i]]
            assert got["legal_actions"] == want["legal_actions"]
            for key in ("x_batch", "z_batch", "x_no_action", "z"):
                assert got[key].dtype == want[key].dtype, key
                np.testing.assert_array_equal(got[key], want[key], err_msg=key)
        if not z_batch:
            assert all(b.shape[0] == 0 for b in vec.z_batch)
        if not form["x_batch"]:
            assert all(b.shape[0] == 0 for b in vec.x_batch)
        for p in range(3):
            deals = vec.deal_of_rows(p)
            assert deals.shape == (vec.x_action[p].shape[0],) == (vec.legal_packed[p].shape[0],)
            assert (vec.position[deals] == p).all()
            for b in vec.x_batch[p], vec.z_batch[p], vec.x_action[p]:
                assert b.dtype == np.dtype(form["dtype"])
        actions = (rng.random(n) * vec.counts).astype(np.int64)
        chosen = [vec.legal_actions(i)[actions[i]] for i in range(n)]
        rewards, done = vec.step(actions)
        for i in range(n):
            o, reward, finished, _ = envs[i].step(chosen[i])
            assert bool(done[i]) == finished
            assert float(rewards[i]) == reward
            if finished:
                ends += 1
                obs[i] = envs[i].reset(vec.card_play_data(i))
            else:
                obs[i] = o
    assert ends > 0


def test_widths_are_douzeros():
    """DouZero's observation widths (douzero.env.env: x_no_action 319 for the
    landlord, 430 for a farmer; an action is a 54-entry card vector), as
    the package exports them, and as Env's observation has them."""
    assert X_NO_ACTION_WIDTH == (319, 430, 430)
    assert ACTION_WIDTH == 54
    env = Env("wp")
    obs = env.reset()
    for p in range(3):
        while POSITIONS.index(obs["position"]) != p:
            obs, _, _, _ = env.step(obs["legal_actions"][0])
        assert obs["x_no_action"].shape == (X_NO_ACTION_WIDTH[p],)
        assert obs["x_batch"].shape[1] == X_NO_ACTION_WIDTH[p] + ACTION_WIDTH


def test_buffers_layout():
    vec = VecEnv(9, "wp", seed=2)
    vec.reset()
    rng = np.random.default_rng(0)
    for _ in range(60):
        for p in range(3):
            rows = vec.position == p
            assert vec.x_batch[p].shape == (int(vec.counts[rows].sum()), (319 if p == 0 else 430) + 54)
            assert vec.z_batch[p].shape == (vec.x_batch[p].shape[0], 5, 162)
            assert vec.legal_packed[p].shape == (vec.x_batch[p].shape[0],)
            # a position's rows are its deals' candidates, deal after deal
            starts = vec.offsets[rows]
            expect = np.cumsum(vec.counts[rows]) - vec.counts[rows]
            assert list(starts) == list(expect)
        vec.step((rng.random(9) * vec.counts).astype(np.int32))
    first = vec.deals.copy()
    vec.reset()
    assert vec.deals.min() > first.max() - 9 and vec.deals.min() >= 9
    vec.reset(seed=2)
    assert list(vec.deals) == list(range(9))


def test_bad_input_changes_nothing():
    vec = VecEnv(4, "logadp", seed=5)
    with pytest.raises(ValueError, match="reset"):
        vec.step(np.zeros(4, dtype=np.int64))
    vec.reset()
    x = [b.copy() for b in vec.x_batch]
    bad = np.zeros(4, dtype=np.int64)
    bad[2] = vec.counts[2]
    with pytest.raises(ValueError, match=r"actions\[2\]"):
        vec.step(bad)
    bad[2] = -1
    with pytest.raises(ValueError, match=r"actions\[2\]"):
        vec.step(bad)
    # Regression (audit of the compat layers): a uint64 past int64 was shown
    # wrapped (-9223372036854775808), not as the value passed
    with pytest.raises(ValueError, match=r"actions\[0\] = 9223372036854775808 is out"):
        vec.step(np.array([2**63, 0, 0, 0], dtype=np.uint64))
    with pytest.raises(ValueError, match=r"shape \(4,\)"):
        vec.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(TypeError, match="integer"):
        vec.step(np.zeros(4, dtype=np.float64))
    for before, after in zip(x, vec.x_batch):
        np.testing.assert_array_equal(before, after)
    assert list(vec.deals) == [0, 1, 2, 3]
    with pytest.raises(ValueError, match="num_envs"):
        VecEnv(0, "wp")
    with pytest.raises(ValueError, match="objective"):
        VecEnv(2, "win")
    with pytest.raises(IndexError, match="row 4"):
        vec.legal_actions(4)


@pytest.mark.parametrize("form", FORMS[1:])
def test_compact_forms_expand_to_the_default(form):
    """Every form's buffers, expanded (x_no_action and z gathered by
    deal_of_rows, x_action appended, converted to float32), equal the
    default VecEnv's x_batch/z_batch row for row, over the same deals and
    actions, across autoresets; x_action is x_batch's last 54 columns."""
    n = 13
    full, vec = VecEnv(n, "adp", seed=4), VecEnv(n, "adp", seed=4, **form)
    full.reset()
    vec.reset()
    rng = np.random.default_rng(3)
    ends = 0
    for _ in range(120):
        for name in ("position", "offsets", "counts", "deals", "x_no_action", "z"):
            np.testing.assert_array_equal(getattr(vec, name), getattr(full, name), err_msg=name)
        for p in range(3):
            xb, zb = vec.expand(p)
            assert xb.dtype == zb.dtype == np.dtype(form["dtype"])
            np.testing.assert_array_equal(xb.astype(np.float32), full.x_batch[p])
            np.testing.assert_array_equal(zb.astype(np.float32), full.z_batch[p])
            np.testing.assert_array_equal(vec.x_action[p].astype(np.float32),
                                          full.x_batch[p][:, -54:])
            np.testing.assert_array_equal(vec.legal_packed[p], full.legal_packed[p])
            np.testing.assert_array_equal(vec.deal_of_rows(p), full.deal_of_rows(p))
            rows = np.flatnonzero(full.position == p)
            np.testing.assert_array_equal(full.deal_of_rows(p), np.repeat(rows, full.counts[rows]))
            if form["x_batch"] and len(vec.x_action[p]):
                assert np.shares_memory(vec.x_action[p], vec.x_batch[p])
        actions = (rng.random(n) * vec.counts).astype(np.int64)
        r1, d1 = vec.step(actions)
        r2, d2 = full.step(actions)
        np.testing.assert_array_equal(r1, r2)
        np.testing.assert_array_equal(d1, d2)
        ends += int(d1.sum())
    assert ends > 0


def test_z_is_read_only():
    """Each step shifts a row's z in place, so the buffer is read-only."""
    vec = VecEnv(3, "wp", seed=1)
    vec.reset()
    with pytest.raises(ValueError, match="read-only"):
        vec.z[0, 0, 0] = 1


def test_bad_forms():
    for bad in ("float64", np.uint16, "bool"):
        with pytest.raises(ValueError, match="dtype"):
            VecEnv(2, "wp", dtype=bad)
    for bad in (None, 3, [np.int8], "nonsense-dtype"):
        with pytest.raises((TypeError, ValueError), match="dtype"):
            VecEnv(2, "wp", dtype=bad)
    for name in ("x_batch", "z_batch"):
        with pytest.raises(TypeError, match=name):
            VecEnv(2, "wp", **{name: 1})
    vec = VecEnv(3, "wp", seed=1, x_batch=False, dtype=np.int8)
    # (an input review) before a reset expand and deal_of_rows gave empty
    # arrays where every other reader of the deals refused
    for read in (vec.expand, vec.deal_of_rows, vec.legal_actions, vec.observation):
        with pytest.raises(ValueError, match="no deals yet"):
            read(0)
    vec.reset()
    for bad, error in ((3, ValueError), (-1, ValueError), (True, TypeError),
                       ("0", TypeError), (1.0, TypeError)):
        with pytest.raises(error, match="position"):
            vec.expand(bad)
        with pytest.raises(error, match="position"):
            vec.deal_of_rows(bad)


def test_calls_while_one_runs_are_refused(monkeypatch):
    """Regression (audit): two threads stepping one VecEnv raced on the
    buffers its calls rewrite and reallocate without the GIL, and crashed
    the process. A call from another thread while a reset runs now raises
    RuntimeError and changes nothing. The reset is held at a known point:
    where it grows a position's buffers (np.zeros; a new VecEnv has 16 rows
    a deal per position, and a 20-card lead has more candidates), from
    where a second thread makes the calls and is joined."""
    import threading
    from ddzfast import _douzero
    vec, twin = VecEnv(1, "adp", seed=5), VecEnv(1, "adp", seed=5)
    engine, actions = vec._vec, np.zeros(1, dtype=np.int64)
    calls = {"step": lambda: engine.step(actions), "reset": lambda: engine.reset(9, 0),
             "check": lambda: engine.check(actions), "legal_lists": lambda: engine.legal_lists(0),
             "VecEnv.reset": lambda: vec.reset(seed=9)}
    outcomes = {}

    def intrude():
        for name, call in calls.items():
            try:
                call()
                outcomes[name] = "ran"
            except Exception as e:      # noqa: BLE001 - compared below
                outcomes[name] = e

    class HeldNumpy:
        def __getattr__(self, name):
            return getattr(np, name)

        def zeros(self, *args, **kwargs):
            if not outcomes:
                intruder = threading.Thread(target=intrude)
                intruder.start()
                intruder.join()
            return np.zeros(*args, **kwargs)

    monkeypatch.setattr(_douzero, "np", HeldNumpy())
    vec.reset()
    monkeypatch.undo()
    assert set(outcomes) == set(calls), "the reset was not held: nothing was tried"
    for name, outcome in outcomes.items():
        assert isinstance(outcome, RuntimeError), (name, outcome)
        assert "one call at a time" in str(outcome), name
    # nothing changed: the held reset's deals, and the steps after it, are
    # those of a twin left alone
    twin.reset()
    assert vec.seed == twin.seed == 5
    for _ in range(30):
        for name in ("position", "counts", "deals", "x_no_action", "z"):
            np.testing.assert_array_equal(getattr(vec, name), getattr(twin, name), err_msg=name)
        for mine, theirs in zip(vec.x_batch, twin.x_batch):
            np.testing.assert_array_equal(mine, theirs)
        assert vec.legal_actions(0) == twin.legal_actions(0)
        for r1, r2 in zip(vec.step(actions), twin.step(actions)):
            np.testing.assert_array_equal(r1, r2)


def test_another_thread_writing_the_actions_cannot_crash_a_step(run_python):
    """Regression (a user's review): step checked an int64 actions array and
    then read it again to play, so another thread writing it in between
    made the step index past a row's legal actions (a segfault). The
    actions are copied, then checked and played from the copy."""
    survives_a_writer(run_python, """
        import numpy as np
        from ddzfast.compat.douzero import VecEnv
        env = VecEnv(1024, "wp", seed=1)
        env.reset()
        actions = np.zeros(env.num_envs, np.int64)
    """, """
        actions[500] = 1 << 40
        actions[500] = 0
    """, """
        try:
            env.step(actions)
        except ValueError as e:
            assert "out of its row's legal actions" in str(e), e
    """, rounds=600)


def test_z_cannot_be_made_writable():
    """VecEnv.z, shifted in place by each step, owned its data: a caller
    could set its WRITEABLE flag back and write into the next observation."""
    vec = VecEnv(2, "wp", seed=3)
    vec.reset()
    with pytest.raises(ValueError, match="WRITEABLE"):
        vec.z.flags.writeable = True
