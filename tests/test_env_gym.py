"""ddzfast.env.gym_env, one seat as a Gymnasium environment: Gymnasium's
check_env, whole deals against the engine's simulation and Game.result,
the action_masks() contract of sb3-contrib's MaskablePPO, opponents as
built-in policies and callables, illegal actions, rendering, bad
arguments. Skipped, saying why, without the ``env`` extra."""
import numpy as np
import pytest

pytest.importorskip("gymnasium", reason='needs the env extra: pip install "ddzfast[env]"')
pytest.importorskip("pettingzoo", reason='needs the env extra: pip install "ddzfast[env]"')

from gymnasium.utils.env_checker import check_env  # noqa: E402

import ddzfast  # noqa: E402
from ddzfast import action_count, action_index, action_moves  # noqa: E402
from ddzfast.render import outcome_text  # noqa: E402
from ddzfast.env import gym_env  # noqa: E402

from helpers import RULE_SETS  # noqa: E402

ENV_RULES = RULE_SETS      # laizi: with a fixed wild rank


@pytest.mark.parametrize("rules, seat, bidding", [
    ("classic", 0, False), ("classic", 2, True), ("biegang", 1, False), ("super", 2, False),
    ("laizi:7", 1, True)])
def test_check_env(rules, seat, bidding):
    check_env(gym_env(rules, seat, bidding=bidding), skip_render_check=True)


@pytest.mark.parametrize("rules", ENV_RULES)
@pytest.mark.parametrize("seat", [0, 1, 2])
def test_deals_equal_the_engines_simulation(rules, seat):
    # the learner plays what the opponents' policy would: every deal of the
    # run is then simulate's deal, and the learner's rewards its scores
    deals = 8
    for policy in ("greedy", "random"):
        env = gym_env(rules, seat, (policy, policy), bidding=seat == 1)
        rewards = []
        for i in range(deals):
            obs, info = env.reset(seed=21 if i == 0 else None)
            done = False
            total = 0.0
            while not done:
                assert env.game.to_move == seat
                action = env.action_of(env.game.policy_action(policy))
                obs, reward, done, truncated, info = env.step(action)
                assert not truncated
                assert env.observation_space.contains(obs)
                total += reward
            rewards.append(total)
        rows = ddzfast.simulate(deals, rules, (policy,) * 3, seed=21, bidding=seat == 1)
        np.testing.assert_array_equal(rewards, rows["scores"][:, seat])


@pytest.mark.parametrize("rules", ENV_RULES)
def test_random_masked_episodes_score_as_game_result(rules):
    rng = np.random.default_rng(5)
    moves = action_moves(rules)
    for seat in range(3):
        env = gym_env(rules, seat, "random")
        for deal in range(4):
            obs, info = env.reset(seed=50 + deal)
            done = False
            while not done:
                masks = env.action_masks()
                # the contract sb3-contrib's MaskablePPO reads: one bool per action
                assert masks.dtype == np.bool_ and masks.shape == (action_count(rules),)
                legal = np.flatnonzero(masks)
                np.testing.assert_array_equal(
                    legal, np.sort(action_index(env.game.legal_moves(), rules)))
                np.testing.assert_array_equal(legal, np.sort(env.legal_actions()))
                a = int(rng.choice(legal))
                row = moves[a]
                assert ddzfast.Move(int(row["kind"]), int(row["rank"]), int(row["length"]),
                                    int(row["cards"]), rules=rules) in env.game.legal_moves()
                obs, reward, done, truncated, info = env.step(a)
                # the observation is the learner's Game.observation_tensor
                np.testing.assert_array_equal(obs, env.game.observation_tensor(seat))
                block = ddzfast.OBSERVATION_LAYOUT["hand"]
                hand = obs[None, block.offset:block.offset + block.size]
                assert int(ddzfast.decode_hands(hand)[0]) == int(env.game.hands[seat])
            assert reward == env.game.result.scores[seat]
            assert not env.action_masks().any()
            assert len(env.legal_actions()) == 0


def test_masks_stack_for_vectorised_envs():
    # MaskablePPO stacks the masks of a vector of environments
    envs = [gym_env("classic", s) for s in range(3)]
    for i, e in enumerate(envs):
        e.reset(seed=i)
    stacked = np.stack([e.action_masks() for e in envs])
    assert stacked.shape == (3, action_count("classic")) and stacked.dtype == np.bool_
    assert stacked.any(axis=1).all()


def test_callable_opponents():
    calls = []

    def first_legal(game, legal):
        calls.append((game.phase, len(legal)))
        return 0                                 # the index of its choice in legal

    def last_move(game, legal):
        return legal[len(legal) - 1] if game.phase == "play" else 0

    env = gym_env("classic", 1, (first_legal, last_move), bidding=True)
    obs, info = env.reset(seed=4)
    done = False
    while not done:
        obs, reward, done, _, _ = env.step(int(env.legal_actions()[0]))
    assert calls and {phase for phase, _ in calls} <= {"bidding", "play"}
    assert reward == env.game.result.scores[1]

    def cheat(game, legal):
        return 10 ** 6

    env = gym_env("classic", 0, (cheat, "greedy"))
    env.reset(seed=1)
    with pytest.raises(ValueError, match="cheat"):
        env.step(int(env.legal_actions()[0]))


def test_illegal_action_ends_the_episode():
    env = gym_env("classic", 0, illegal_reward=-5)
    env.reset(seed=3)
    before = env.game.position_key()
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    obs, reward, done, truncated, info = env.step(illegal)
    assert (reward, done, truncated, info) == (-5.0, True, False, {"illegal_action": illegal})
    assert env.game.position_key() == before
    with pytest.raises(ValueError, match="reset"):
        env.step(int(env.legal_actions()[0]))
    env.reset(seed=3)
    obs, reward, done, truncated, info = env.step(action_count("classic") + 7)
    assert done and reward == -5.0


@pytest.mark.parametrize("kwargs, error", [
    (dict(rules="nope"), ValueError),
    (dict(seat=3), ValueError),
    (dict(seat=-1), ValueError),
    (dict(seat="0"), TypeError),
    (dict(seat=True), TypeError),
    (dict(opponents=("greedy",) * 3), ValueError),
    (dict(opponents=("greedy", "clever")), ValueError),
    (dict(opponents=("greedy", 3)), TypeError),
    (dict(opponents=5), TypeError),
    (dict(render_mode="rgb_array"), ValueError),
    (dict(bidding=1), TypeError),
    (dict(illegal_reward=float("nan")), ValueError),
    (dict(illegal_reward="x"), TypeError),
    (dict(illegal_reward=10**400), ValueError),
    (dict(opponents=b"greedy"), TypeError),
])
def test_bad_arguments(kwargs, error):
    with pytest.raises(error):
        gym_env(**kwargs)


def test_illegal_reward_beyond_a_float_is_a_value_error():
    """gym_env(illegal_reward=10**400) raised OverflowError from float()."""
    with pytest.raises(ValueError, match="illegal_reward is out of range"):
        gym_env(illegal_reward=10**400)
    assert gym_env(illegal_reward=-3).illegal_reward == -3.0


def test_step_refuses_a_bool():
    """step(True) raised numpy's 'truth value of an array ... is ambiguous':
    Discrete.contains takes True for 1, and the mask indexed by a bool is
    an array. A bool is no action: TypeError, the episode going on."""
    env = gym_env("classic", 0)
    env.reset(seed=3)
    before = env.game.position_key()
    for action in (True, False, np.bool_(True)):
        with pytest.raises(TypeError, match="an action is an int in 0..30383, not bool"):
            env.step(action)
    assert env.game.position_key() == before
    obs, reward, done, truncated, info = env.step(int(env.legal_actions()[0]))
    assert "illegal_action" not in info


def test_laizi_needs_a_wild_rank():
    with pytest.raises(ValueError, match="laizi:7"):
        gym_env("laizi")
    env = gym_env("laizi:2", 0, "random")
    assert env.action_space.n == action_count("laizi:2")
    obs, _ = env.reset(seed=4)
    assert env.game.wild_rank == 12 and env.observation_space.contains(obs)


def test_tiandi_needs_both_wild_ranks():
    for rules in ("tiandi", ddzfast.get_rules("tiandi").with_options(wild_ranks=("7",))):
        with pytest.raises(ValueError, match="tiandi:7J"):
            gym_env(rules)


def test_reset_never_returns_a_finished_deal():
    """A deal the opponents finish before the learner's first decision is
    passed over: before the fix, the 122nd reset of this run returned such a
    deal (all-False mask; any step then 'illegal')."""
    env = gym_env("laizi:7", seat=1, opponents="greedy")
    for i in range(150):
        env.reset(seed=9 if i == 0 else None)
        assert not env.game.done and env.game.to_move == 1
        assert env.action_masks().any()


def test_step_takes_a_zero_dimensional_action_array():
    """MaskablePPO.predict returns one action as a 0-d array, which
    Discrete.contains accepts: before the fix, step raised TypeError."""
    env = gym_env("classic", 0)
    env.reset(seed=3)
    action = np.array(int(np.flatnonzero(env.action_masks())[0]))
    assert env.action_space.contains(action)
    obs, reward, done, truncated, info = env.step(action)
    assert "illegal_action" not in info
    with pytest.raises(TypeError, match="an action is an int"):
        env.table.apply(np.array(1.5))


def test_no_shuffle_sessions_are_refused():
    """Every deal of an environment comes from its own seed; before the fix
    a no-shuffle rule set was accepted and its sessions silently ignored."""
    sessions = ddzfast.get_rules("classic").with_options(deal="no_shuffle", session=4)
    with pytest.raises(ValueError, match="no-shuffle sessions"):
        gym_env(sessions)
    from ddzfast.env import VectorEnv, doudizhu_v0
    with pytest.raises(ValueError, match="no-shuffle sessions"):
        doudizhu_v0.env(rules=sessions)
    with pytest.raises(ValueError, match="no-shuffle sessions"):
        VectorEnv(2, sessions)


@pytest.mark.parametrize("seed, error", [("3", TypeError), (1.5, TypeError), (-1, ValueError),
                                         (2 ** 64, ValueError)])
def test_reset_checks_its_seed(seed, error):
    # checked before Gymnasium's seeding, which raised gymnasium.error.Error
    env = gym_env()
    with pytest.raises(error, match="seed"):
        env.reset(seed=seed)


def test_step_before_reset():
    with pytest.raises(ValueError, match="reset"):
        gym_env().step(1)


def test_render(capsys):
    env = gym_env("classic", 2, render_mode="human")
    env.reset(seed=8)
    out = capsys.readouterr().out
    assert out.startswith("landlord: player_0 (base 1); kitty ")
    assert "player_0: " in out and "player_1: " in out
    assert out.endswith(f"player_2 hand: {env.game.hands[2]}   to beat: "
                        f"{env.game.last_move or 'nothing (you lead)'}\n")
    done = False
    while not done:
        _, _, done, _, _ = env.step(int(env.legal_actions()[0]))
    out = capsys.readouterr().out
    assert out.endswith(outcome_text(env.game.result) + "\n")
    text_env = gym_env("classic", 0, render_mode="ansi")
    text_env.reset(seed=8)
    assert text_env.render().startswith("landlord: player_0")
