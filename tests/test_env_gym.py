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
        env.step(0)
    env.reset(seed=3)
    before = env.game.position_key()
    for outside in (action_count("classic") + 7, -1, 2 ** 70, np.uint64(2 ** 64 - 1)):
        # (outside the space: no action the agent could have been sent)
        with pytest.raises(ValueError, match="not in the action space"):
            env.step(outside)
    assert env.game.position_key() == before and env.action_masks().any()


def _seat_games(env):
    # what a step can change: the deal, the run's place in it, the rendering
    table = env.table
    return (table.game.position_key(), table.game.copy().history, table.deal_index,
            table.deal_seed, list(table.lines), env.action_masks().tolist())


@pytest.mark.parametrize("seat", [0, 1])
def test_an_opponent_that_fails_leaves_the_env_as_it_was(seat):
    """Regression (a user's review): an opponent's callable that raised in
    step left the learner's move played and the opponent to move, the
    episode not over, so the learner's next legal action was charged as
    illegal; in reset it left a new deal dealt. Both now leave the env as
    it was before the call, so the same call succeeds once the policy does."""
    state = {"fail": False}

    def flaky(game, legal):
        if state["fail"]:
            raise RuntimeError("the policy's own bug")
        return 0 if len(legal) == 1 else 1

    env = gym_env("classic", seat, (flaky, flaky), bidding=True, render_mode="ansi")
    twin = gym_env("classic", seat, (flaky, flaky), bidding=True, render_mode="ansi")
    env.reset(seed=5)
    twin.reset(seed=5)
    raised = {"step": 0, "reset": 0}
    for _ in range(40):
        action = int(env.legal_actions()[0])
        before = _seat_games(env)
        state["fail"] = True
        for call, args in (("reset", ()), ("step", (action,))):
            try:
                getattr(env, call)(*args)
            except RuntimeError as e:
                assert "own bug" in str(e)
                raised[call] += 1
                assert _seat_games(env) == before
            else:
                # (no opponent was asked: the twin takes the same call)
                getattr(twin, call)(*args)
                break
        else:
            state["fail"] = False
            got, want = env.step(action), twin.step(action)
            assert np.array_equal(got[0], want[0]) and got[1:] == want[1:]
        state["fail"] = False
        if env.game.done:
            env.reset()
            twin.reset()
        assert _seat_games(env) == _seat_games(twin)
    assert raised["step"] >= 5 and raised["reset"] >= 5, raised
    assert _seat_games(env) == _seat_games(twin)


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


def test_too_many_opponents_says_the_seat_order():
    """Regression (review of the environments, 2026-12-07): the message said
    the opponents are "the seats after the learner's, in order", which for
    seat 1 reads as seats 2 then 0; they are the other seats, the lower
    first, as learning.md says and the environment plays them."""
    with pytest.raises(ValueError, match="the other seats', the lower seat first"):
        gym_env(seat=1, opponents=("greedy",) * 3)
    assert gym_env(seat=1, opponents=("greedy", "random")).policies == \
        ("greedy", None, "random")


def test_illegal_reward_beyond_a_float_is_a_value_error():
    """gym_env(illegal_reward=10**400) raised OverflowError from float()."""
    with pytest.raises(ValueError, match="illegal_reward is out of range"):
        gym_env(illegal_reward=10**400)
    assert gym_env(illegal_reward=-3).illegal_reward == -3.0


def test_step_refuses_a_bool_and_other_types():
    """step(True) raised numpy's 'truth value of an array ... is ambiguous':
    Discrete.contains takes True for 1, and the mask indexed by a bool is
    an array. A bool is no action: TypeError, the episode going on."""
    env = gym_env("classic", 0)
    env.reset(seed=3)
    before = env.game.position_key()
    for action in (True, False, np.bool_(True)):
        with pytest.raises(TypeError, match="an action is an int in 0..30383, not bool"):
            env.step(action)
    # nor is a float or an array of one action (a policy's type bug; they
    # ended the episode as illegal actions until a user's review)
    for action in (1.0, np.float32(2), np.array([1]), np.array(1.0), "1", None):
        with pytest.raises(TypeError, match="an action is an int in 0..30383, not "):
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


def test_no_shuffle_sessions_are_refused_by_the_vector_env():
    """A VectorEnv deals every deal from its own seed; a no-shuffle rule set
    is refused, not played shuffled (the one-deal environments play its
    sessions: test_platform_layers)."""
    sessions = ddzfast.get_rules("classic").with_options(deal="no_shuffle", session=4)
    from ddzfast.env import VectorEnv
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


# ---- the registered id: gymnasium.make and gymnasium.make_vec ------------

def _first_legal(masks):
    return int(np.flatnonzero(masks)[0])


@pytest.mark.parametrize("rules", ENV_RULES)
def test_gymnasium_make_is_gym_env(rules):
    """gymnasium.make(GYM_ID, ...) is gym_env's environment in Gymnasium's
    wrappers (its spec, the order and passive checkers): the same deals,
    observations and rewards for the same arguments and seed."""
    import gymnasium
    from ddzfast.env import GYM_ID, DoudizhuGymEnv
    made = gymnasium.make(GYM_ID, rules=rules, seat=1, opponents=("greedy", "random"))
    plain = gym_env(rules, 1, ("greedy", "random"))
    assert made.spec.id == GYM_ID and isinstance(made.unwrapped, DoudizhuGymEnv)
    assert made.action_space == plain.action_space
    assert made.observation_space == plain.observation_space
    for seed in (3, 4):
        a, _ = made.reset(seed=seed)
        b, _ = plain.reset(seed=seed)
        np.testing.assert_array_equal(a, b)
        done = False
        while not done:
            masks = made.get_wrapper_attr("action_masks")()
            np.testing.assert_array_equal(masks, plain.action_masks())
            action = _first_legal(masks)
            a, ra, ta, tra, _ = made.step(action)
            b, rb, tb, trb, _ = plain.step(action)
            np.testing.assert_array_equal(a, b)
            assert (ra, ta, tra) == (rb, tb, trb)
            done = ta or tra


def test_gymnasium_make_with_the_module_prefix(run_python):
    """gymnasium.make("ddzfast.env:ddzfast/Doudizhu-v0") imports ddzfast.env
    itself, in a process that has not: no glue in the user's code."""
    done = run_python(code=(
        "import sys, gymnasium\n"
        "assert 'ddzfast.env' not in sys.modules\n"
        "env = gymnasium.make('ddzfast.env:ddzfast/Doudizhu-v0', rules='super')\n"
        "obs, info = env.reset(seed=1)\n"
        "print(env.spec.id, env.unwrapped.table.rules.name, obs.shape[0])\n"))
    assert done.returncode == 0, done.stderr
    import ddzfast
    assert done.stdout.split() == ["ddzfast/Doudizhu-v0", "super",
                                   str(ddzfast.OBSERVATION_SIZE)]


def test_gymnasium_make_vec_is_gym_vector_env():
    """gymnasium.make_vec(GYM_ID, num_envs, ...) makes a GymVectorEnv (the
    id's vector entry point) with the keyword arguments given, the same
    deals as one made directly; vectorization_mode="sync" steps gym_env's
    environments in Gymnasium's SyncVectorEnv instead."""
    import gymnasium
    from ddzfast.env import GYM_ID, GymVectorEnv
    made = gymnasium.make_vec(GYM_ID, num_envs=4, rules="laizi:7", seat=2, seed=9)
    plain = GymVectorEnv(4, "laizi:7", seat=2, seed=9)
    assert isinstance(made, GymVectorEnv) and made.spec.id == GYM_ID
    assert (made.num_envs, made.seat) == (4, 2)
    np.testing.assert_array_equal(made.reset()[0], plain.reset()[0])
    for _ in range(5):
        actions = made.action_masks().argmax(axis=1).astype(np.int32)
        a, ra, ta, _, _ = made.step(actions)
        b, rb, tb, _, _ = plain.step(actions)
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(ra, rb)
        np.testing.assert_array_equal(ta, tb)
    sync = gymnasium.make_vec(GYM_ID, num_envs=2, vectorization_mode="sync", rules="classic")
    obs, _ = sync.reset(seed=1)
    assert isinstance(sync, gymnasium.vector.SyncVectorEnv)
    assert obs.shape == (2, ddzfast.OBSERVATION_SIZE)
    masks = sync.call("action_masks")
    obs, reward, terminated, truncated, _ = sync.step(np.array([_first_legal(m) for m in masks]))
    assert reward.shape == (2,) and not truncated.any()


def test_gymnasium_make_vec_says_what_the_vector_env_lacks():
    """Regression: make_vec with render_mode or illegal_reward (arguments of
    the one-seat environment) was a TypeError of an unexpected keyword; it
    is a ValueError pointing at vectorization_mode='sync', and None is taken."""
    import gymnasium
    from ddzfast.env import GYM_ID
    with pytest.raises(ValueError, match="does not render.*vectorization_mode='sync'"):
        gymnasium.make_vec(GYM_ID, num_envs=2, render_mode="ansi")
    with pytest.raises(ValueError, match="no illegal_reward.*vectorization_mode='sync'"):
        gymnasium.make_vec(GYM_ID, num_envs=2, illegal_reward=-2.0)
    vec = gymnasium.make_vec(GYM_ID, num_envs=2, render_mode=None, illegal_reward=None)
    assert vec.render_mode is None and vec.reset(seed=1)[0].shape[0] == 2
    sync = gymnasium.make_vec(GYM_ID, num_envs=2, vectorization_mode="sync",
                              render_mode="ansi", illegal_reward=-2.0)
    assert sync.render_mode == "ansi"


def test_registration_happens_once(recwarn):
    """Importing ddzfast.env again (importlib.reload) keeps the one
    registration, and Gymnasium warns of no override."""
    import importlib

    import gymnasium
    import ddzfast.env
    spec = gymnasium.spec(ddzfast.env.GYM_ID)
    importlib.reload(ddzfast.env)
    assert gymnasium.spec(ddzfast.env.GYM_ID) is spec
    assert not [w for w in recwarn if "Overriding" in str(w.message)]
    assert spec.entry_point == "ddzfast.env._gym:DoudizhuGymEnv"
    assert spec.vector_entry_point == "ddzfast.env._vector_gym:GymVectorEnv"


def test_maskable_ppo_learns_on_the_made_environment(tmp_path, monkeypatch):
    """sb3-contrib's MaskablePPO learns on gymnasium.make(GYM_ID): it finds
    action_masks() through Gymnasium's wrappers (learn() refuses an
    environment without it, as it checks masking is supported), and the
    policy's actions under those masks are legal."""
    pytest.importorskip("sb3_contrib", reason="needs pip install sb3-contrib")
    import gymnasium
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import Logger
    from ddzfast.env import GYM_ID
    monkeypatch.setenv("SB3_LOGDIR", str(tmp_path / "sb3"))
    env = gymnasium.make(GYM_ID, rules="classic", seat=0)
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=64, n_epochs=1,
                        policy_kwargs={"net_arch": [16]}, seed=0)
    model.set_logger(Logger(folder=None, output_formats=[]))
    model.learn(200)
    assert model.num_timesteps >= 200
    obs, _ = env.reset(seed=2)
    for _ in range(50):
        masks = env.get_wrapper_attr("action_masks")()
        action, _ = model.predict(obs, action_masks=masks)
        assert masks[int(action)]
        obs, reward, terminated, truncated, info = env.step(int(action))
        if terminated or truncated:
            obs, _ = env.reset()


def test_a_legal_action_of_any_integer_type_is_played():
    """Regression (a user's review): a legal action given as np.uint64 (or a
    0-d uint64 array) ended the episode with illegal_reward, as
    Discrete.contains refuses a uint64."""
    for action in (np.uint64, lambda i: np.array(i, dtype=np.uint64), np.int16, int):
        env, twin = gym_env("classic", seat=1), gym_env("classic", seat=1)
        env.reset(seed=0)
        twin.reset(seed=0)
        first = int(env.legal_actions()[0])
        got = env.step(action(first))
        want = twin.step(first)
        assert got[1:4] == want[1:4] and "illegal_action" not in got[4]
        np.testing.assert_array_equal(got[0], want[0])


def test_masks_and_legal_actions_agree_when_no_step_is_taken():
    """Regression (a user's review): before the first reset legal_actions()
    was empty and action_masks() a ValueError, and after an illegal action
    ended the episode both still listed the deal's legal actions, which
    step then refused."""
    env = gym_env("classic", seat=0)
    assert len(env.legal_actions()) == 0 and not env.action_masks().any()
    assert env.action_masks().shape == (env.action_space.n,)
    env.reset(seed=0)
    assert env.action_masks().sum() == len(env.legal_actions()) > 0
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    assert env.step(illegal)[2]
    assert len(env.legal_actions()) == 0 and not env.action_masks().any()
    with pytest.raises(ValueError, match="episode is over"):
        env.step(0)


def test_reset_options_are_refused_not_ignored():
    """Regression (a user's review): gym_env's reset took any options and
    ignored them, where GymVectorEnv refused them."""
    from ddzfast.env import GymVectorEnv
    env = gym_env("classic", seat=0)
    with pytest.raises(ValueError, match="reset takes no options"):
        env.reset(seed=0, options={"rules": "laizi"})
    env.reset(seed=0, options={})
    with pytest.raises(ValueError, match="reset takes no options"):
        GymVectorEnv(2).reset(options={"x": 1})


def test_a_pickled_environment_holds_its_rule_set_not_its_action_table():
    """A pickled gym_env carried its whole action table (79 MB for
    tiandi:7J, 18 MB for laizi:7; the user review of 2026-12-05); it names
    the rule set and looks the table up again when loaded, playing on as
    the original does."""
    import pickle
    from ddzfast.env import doudizhu_v0
    env = gym_env("laizi:7")
    env.reset(seed=1)
    blob = pickle.dumps(env)
    assert len(blob) < 100_000
    twin = pickle.loads(blob)
    for _ in range(20):
        legal = env.unwrapped.legal_actions()
        assert np.array_equal(twin.unwrapped.legal_actions(), legal)
        a = env.step(int(legal[0]))
        b = twin.step(int(legal[0]))
        assert np.array_equal(a[0], b[0]) and a[1:4] == b[1:4]
        if a[2]:
            break
    # PettingZoo's: its spaces' action-mask bounds (Gymnasium's Box keeps
    # two arrays of the mask's size) stay, the table goes
    aec = doudizhu_v0.env("laizi:7")
    aec.reset(seed=2)
    assert len(pickle.dumps(aec)) < action_moves("laizi:7").nbytes
