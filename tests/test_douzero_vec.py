"""ddzfast.compat.douzero.VecEnv, many DouZero deals at once: every row's
observation (x_batch, z_batch, legal actions, x_no_action, z, position),
reward and end against compat.douzero.Env playing the same deal with the
same actions, across autoresets, for every objective; the per-position
buffers and offsets; bad input that must change nothing."""
import numpy as np
import pytest

from ddzfast.compat.douzero import OBJECTIVES, POSITIONS, Env, VecEnv


@pytest.mark.parametrize("objective, z_batch", [(o, True) for o in OBJECTIVES]
                         + [("adp", False)])
def test_rows_equal_env(objective, z_batch):
    """(z_batch=False: observation() rebuilds z_batch from z, and x_batch,
    written without it, must still equal Env's.)"""
    n = 7
    vec = VecEnv(n, objective, seed=11, z_batch=z_batch)
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
            for p in range(3):
                deals = vec.deal_of_rows(p)
                assert deals.shape == (vec.x_batch[p].shape[0],)
                assert (vec.position[deals] == p).all()
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
