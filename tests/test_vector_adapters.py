"""The adapters over VectorEnv's buffers: ``ddzfast.env.GymVectorEnv``
(Gymnasium's vector API: spaces, same-step autoreset, its vector wrappers)
and ``ddzfast.env.sb3.SB3VecEnv`` (Stable-Baselines3's VecEnv, masks in one
call, sb3-contrib's MaskablePPO). Each skipped, saying what to install,
without its package."""
import copy
import pickle

import numpy as np
import pytest

pytest.importorskip("gymnasium", reason='needs the env extra: pip install "ddzfast[env]"')
pytest.importorskip("pettingzoo", reason='needs the env extra: pip install "ddzfast[env]"')

from gymnasium.vector import AutoresetMode  # noqa: E402

from ddzfast import action_count  # noqa: E402
from ddzfast.env import GymVectorEnv, VectorEnv  # noqa: E402
from helpers import assert_never_writable  # noqa: E402


def legal_choice(masks, rng):
    return np.array([rng.choice(np.flatnonzero(row)) for row in masks], dtype=np.int32)


@pytest.mark.parametrize("rules, bidding, seat, mask, choices", [
    ("classic", False, 0, None, 0), ("super", True, 2, "dense", 3),
    ("laizi:7", True, 1, "bits", 3), ("classic+happy", True, 1, "bits", 4)])
def test_gymnasium_vector_env(rules, bidding, seat, mask, choices):
    env = GymVectorEnv(5, rules, bidding=bidding, seat=seat, seed=3, mask=mask)
    twin = VectorEnv(5, rules, bidding=bidding, seat=seat, seed=3)
    assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    count = action_count(rules) + choices
    assert env.single_action_space.n == count
    assert env.action_space.shape == (5,) and env.observation_space.shape[0] == 5
    obs, info = env.reset(seed=9)
    twin.reset(seed=9)
    assert info == {}
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(120):
        assert env.observation_space.contains(obs)
        masks = env.action_masks()
        assert masks.dtype == np.bool_ and masks.shape == (5, count)
        for i in range(5):
            legal = twin.legal_indices[twin.legal_offsets[i]:twin.legal_offsets[i + 1]]
            assert sorted(np.flatnonzero(masks[i])) == sorted(legal)
        actions = legal_choice(masks, rng)
        assert env.action_space.contains(actions)
        obs, reward, terminated, truncated, info = env.step(actions)
        twin.step(actions)
        np.testing.assert_array_equal(obs, twin.obs)
        np.testing.assert_array_equal(reward, twin.rewards[:, seat])
        np.testing.assert_array_equal(terminated, twin.terminated)
        assert terminated.dtype == np.bool_ and not truncated.any() and info == {}
        ended += int(terminated.sum())
    assert ended > 0
    obs_again, _ = env.reset(seed=9)
    twin.reset(seed=9)
    np.testing.assert_array_equal(obs_again, twin.obs)
    env.close()


def test_gymnasium_wrappers_and_errors():
    from gymnasium.wrappers.vector import RecordEpisodeStatistics
    env = RecordEpisodeStatistics(GymVectorEnv(4, seat=0, seed=1))
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    episodes = 0
    for _ in range(100):
        *_, info = env.step(legal_choice(env.unwrapped.action_masks(), rng))
        episodes += int(info.get("_episode", np.zeros(4, bool)).sum())
    assert episodes > 0
    with pytest.raises(ValueError, match="seat"):
        GymVectorEnv(2, seat=None)
    with pytest.raises(TypeError, match="seed"):
        GymVectorEnv(2).reset(seed="12")
    plain = GymVectorEnv(2, seat=0, seed=1)
    plain.reset()
    masks = plain.action_masks()
    actions = np.array([np.flatnonzero(masks[0])[0], np.flatnonzero(~masks[1])[0]],
                       dtype=np.int32)
    before = plain.venv.obs.copy()
    with pytest.raises(ValueError, match=r"actions\[1\]"):
        plain.step(actions)
    np.testing.assert_array_equal(plain.venv.obs, before)


def test_gymnasium_reset_takes_a_list_of_seeds():
    """Regression (audit): reset(seed=[...]), one seed per sub-environment as
    Gymnasium's vector API allows, was a TypeError. The rows share one run,
    so a list seeds that run: Gymnasium's expansion of an int s, [s, s + 1,
    ...], is the run s; any other list a run of its own, the same for the
    same list; a list of Nones no seed."""
    env = GymVectorEnv(4, seat=0, seed=1)
    twin = VectorEnv(4, seat=0)

    def dealt(seed):
        obs, info = env.reset(seed=seed)
        return obs.copy(), env.venv.seed

    assert dealt([9, 10, 11, 12])[1] == 9
    np.testing.assert_array_equal(dealt([9, 10, 11, 12])[0], twin.reset(seed=9))
    np.testing.assert_array_equal(dealt((9, 10, 11, 12))[0], twin.reset(seed=9))
    np.testing.assert_array_equal(dealt(np.arange(9, 13))[0], twin.reset(seed=9))
    mixed, run = dealt([5, 3, 0, 2**64 - 1])
    assert run not in (5, 3, 0, 2**64 - 1)
    assert dealt([3, 5, 0, 2**64 - 1])[1] != run
    again, same = dealt([5, 3, 0, 2**64 - 1])
    np.testing.assert_array_equal(mixed, again)
    assert same == run
    np.testing.assert_array_equal(mixed, twin.reset(seed=run))
    # a list of Nones: the run goes on, as reset() does
    deals = env.venv.deals.copy()
    env.reset(seed=[None] * 4)
    assert env.venv.seed == run and (env.venv.deals == deals + 4).all()
    for seed, error, text in [
            ([1, 2, 3], ValueError, "one per row: 4, not 3"),
            ([], ValueError, "one per row: 4, not 0"),
            ([1, None, 3, 4], ValueError, "ints and Nones"),
            ([1, 2, 3, 2.5], TypeError, r"seed\[3\]"),
            ([1, 2, True, 4], TypeError, r"seed\[2\]"),
            ([1, 2, 3, -1], ValueError, "2\\*\\*64"),
            ({1, 2, 3, 4}, TypeError, "list of one int per row")]:
        with pytest.raises(error, match=text):
            env.reset(seed=seed)
    assert env.venv.seed == run and (env.venv.deals == deals + 4).all()   # unchanged


def test_sb3_vec_env():
    pytest.importorskip("stable_baselines3", reason="needs pip install stable-baselines3")
    from stable_baselines3.common.vec_env import VecMonitor
    from ddzfast.env.sb3 import SB3VecEnv
    env = SB3VecEnv(6, "classic", bidding=True, seat=1, seed=2)
    twin = VectorEnv(6, "classic", bidding=True, seat=1, seed=2)
    env.seed(4)
    obs = env.reset()
    twin.reset(seed=4)
    np.testing.assert_array_equal(obs, twin.obs)
    assert env.observation_space.contains(obs[0])
    masks = env.env_method("action_masks")
    np.testing.assert_array_equal(np.stack(masks), env.action_masks())
    # (with indices it gave every row's masks once per index)
    some = env.env_method("action_masks", indices=[2, 5])
    assert len(some) == 2
    np.testing.assert_array_equal(np.stack(some), env.action_masks()[[2, 5]])
    np.testing.assert_array_equal(env.env_method("action_masks", indices=3)[0],
                                  env.action_masks()[3])
    with pytest.raises(ValueError, match="rows 0..5"):
        env.env_method("action_masks", indices=[6])
    with pytest.raises(ValueError, match="rows 0..5"):
        env.get_attr("num_envs", indices=[-1])
    assert env.action_masks().shape == (6, env.action_space.n)
    assert env.has_attr("action_masks") and env.env_is_wrapped(object) == [False] * 6
    rng = np.random.default_rng(2)
    monitored = VecMonitor(env)
    ended = 0
    for _ in range(80):
        actions = legal_choice(env.action_masks(), rng)
        obs, rewards, dones, infos = monitored.step(actions)
        twin.step(actions)
        assert rewards.dtype == np.float32 and len(infos) == 6
        np.testing.assert_array_equal(rewards, twin.rewards[:, 1].astype(np.float32))
        np.testing.assert_array_equal(dones, twin.terminated)
        ended += sum("episode" in info for info in infos)
    assert ended > 0


def test_sb3_vec_env_returns_new_observation_arrays():
    """SB3's algorithms keep the last observation across a step (its rollout
    buffer stores it with the action taken on it): reset and step must not
    hand out VectorEnv's buffer, which the next step overwrites. Before the
    fix every stored row was the observation after its action."""
    pytest.importorskip("stable_baselines3", reason="needs pip install stable-baselines3")
    from ddzfast.env.sb3 import SB3VecEnv
    env = SB3VecEnv(3, "classic", seat=0, seed=1)
    rng = np.random.default_rng(0)
    obs = env.reset()
    for _ in range(5):
        kept = obs.copy()
        env.step_async(legal_choice(env.action_masks(), rng))
        new_obs, _, _, _ = env.step_wait()
        np.testing.assert_array_equal(obs, kept)
        assert not np.shares_memory(new_obs, env.venv.obs)
        obs = new_obs


def test_maskable_ppo_runs(tmp_path, monkeypatch):
    """MaskablePPO learns on SB3VecEnv. Regression (audit): learn() with
    SB3's default logger made a directory tempdir/SB3-<date> every run, which
    the test suite left behind: the model logs nowhere here (and any default
    logger would write under tmp_path)."""
    pytest.importorskip("sb3_contrib", reason="needs pip install sb3-contrib")
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import Logger
    from ddzfast.env.sb3 import SB3VecEnv
    monkeypatch.setenv("SB3_LOGDIR", str(tmp_path / "sb3"))
    env = SB3VecEnv(4, "classic", seat=0, seed=5, mask="dense")
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=64, n_epochs=1,
                        policy_kwargs={"net_arch": [16]}, seed=0)
    model.set_logger(Logger(folder=None, output_formats=[]))
    model.learn(300)
    assert model.num_timesteps >= 300
    assert not (tmp_path / "sb3").exists()


def test_sb3_reset_refuses_options():
    """Regression (a user's review): options set by set_options were
    dropped at reset without a word."""
    pytest.importorskip("stable_baselines3", reason="needs pip install stable-baselines3")
    from ddzfast.env.sb3 import SB3VecEnv
    env = SB3VecEnv(2, "classic", seat=0, seed=1)
    env.set_options({"rules": "laizi"})
    with pytest.raises(ValueError, match="reset takes no options"):
        env.reset()
    env.set_options(None)
    assert env.reset().shape[0] == 2


@pytest.mark.parametrize("copier", [pickle.dumps, copy.copy, copy.deepcopy])
def test_vector_envs_say_they_are_not_copied(copier):
    """Regression (a user's review): pickling or copying a VectorEnv (or an
    adapter holding one) was Cython's "no default __reduce__ due to
    non-trivial __cinit__". A shallow copy of an adapter made a second
    adapter over the same rows, each with its own state (the user review of
    2026-12-05): it says no too."""
    envs = [VectorEnv(2), GymVectorEnv(2)]
    try:
        from ddzfast.env.sb3 import SB3VecEnv
        envs.append(SB3VecEnv(2))
    except ImportError:
        pass
    for env in envs:
        with pytest.raises(TypeError, match="VectorEnv is not pickled or copied"):
            copier(env)


def test_truncated_cannot_be_made_writable():
    """GymVectorEnv's truncated row (all False, returned by every step)
    owned its data: a caller could make it writable and set it for good."""
    env = GymVectorEnv(2, seat=0, seed=1)
    env.reset(seed=1)
    actions = legal_choice(env.action_masks(), np.random.default_rng(1))
    truncated = env.step(actions)[3]
    assert_never_writable(truncated)
