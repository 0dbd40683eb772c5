"""ddzfast.env.doudizhu_v0, the PettingZoo AEC environment: PettingZoo's API
and seed tests, whole deals against the engine's own simulation and the
Game API, masks and observations against legal_moves, rendering, bad
arguments. Skipped, saying why, without the ``env`` extra."""

import numpy as np
import pytest

pytest.importorskip("pettingzoo", reason='needs the env extra: pip install "ddzfast[env]"')
pytest.importorskip("gymnasium", reason='needs the env extra: pip install "ddzfast[env]"')

from pettingzoo.test import api_test, render_test, seed_test  # noqa: E402

import ddzfast  # noqa: E402
from ddzfast import IllegalMoveError, action_count, action_index, action_moves  # noqa: E402
from ddzfast.render import bid_line, landlord_line, move_line, outcome_text  # noqa: E402
from ddzfast import OBSERVATION_LAYOUT, OBSERVATION_SIZE  # noqa: E402
from ddzfast.env import BID_ACTIONS, doudizhu_v0  # noqa: E402
from ddzfast.features import decode_hands  # noqa: E402

from helpers import API_TEST_DICT_WARNINGS, RULE_SETS  # noqa: E402

# laizi with a fixed wild rank: an environment's action space is fixed, and
# laizi's action index depends on the wild rank
ENV_RULES = RULE_SETS

PLAYERS = ("player_0", "player_1", "player_2")
_hand = OBSERVATION_LAYOUT["hand"]
HAND = slice(_hand.offset, _hand.offset + _hand.size)

pytestmark = API_TEST_DICT_WARNINGS


@pytest.mark.parametrize("rules", ENV_RULES)
@pytest.mark.parametrize("bidding", [False, True])
def test_pettingzoo_api_test(rules, bidding):
    api_test(doudizhu_v0.env(rules, bidding), num_cycles=150)


@pytest.mark.parametrize("bidding", [False, True])
def test_pettingzoo_seed_test(bidding):
    seed_test(lambda: doudizhu_v0.env("classic", bidding), num_cycles=100)


def test_spaces():
    e = doudizhu_v0.raw_env("classic")
    n = action_count("classic")
    assert e.possible_agents == list(PLAYERS)
    for a in PLAYERS:
        assert e.action_space(a).n == n
        assert e.observation_space(a)["action_mask"].shape == (n,)
        assert e.observation_space(a)["observation"].shape == (OBSERVATION_SIZE,)
    assert doudizhu_v0.raw_env("super", bidding=True).action_space("player_0").n == \
        action_count("super") + BID_ACTIONS


def _play_policy_deals(rules, bidding, policy, seed, deals):
    """Rewards of ``deals`` deals of the environment, every seat choosing
    the action of the built-in policy's move (or bid) on the env's own game."""
    e = doudizhu_v0.raw_env(rules, bidding)
    out = []
    for i in range(deals):
        e.reset(seed=seed if i == 0 else None)
        total = dict.fromkeys(PLAYERS, 0.0)
        for agent in e.agent_iter():
            obs, reward, term, trunc, info = e.last()
            total[agent] += reward
            if term or trunc:
                e.step(None)
                continue
            game = e.game
            assert PLAYERS[game.to_move] == agent
            choice = game.policy_action(policy)
            action = e.action_of(choice)
            assert obs["action_mask"][action] == 1
            e.step(action)
        out.append([total[a] for a in PLAYERS])
    return np.array(out)


@pytest.mark.parametrize("rules", ENV_RULES)
@pytest.mark.parametrize("bidding", [False, True])
def test_deals_equal_the_engines_simulation(rules, bidding):
    # Deal i after reset(seed=s) is simulate's deal i of the run seeded s:
    # driven by the same built-in policy, the environment's rewards are the
    # C engine's scores, deal by deal.
    deals = 12
    for policy in ("random", "greedy"):
        rewards = _play_policy_deals(rules, bidding, policy, 7, deals)
        rows = ddzfast.simulate(deals, rules, (policy,) * 3, seed=7, bidding=bidding)
        np.testing.assert_array_equal(rewards, rows["scores"])


@pytest.mark.parametrize("rules", ENV_RULES)
def test_random_episodes_score_as_game_result(rules):
    rng = np.random.default_rng(3)
    moves = action_moves(rules)
    # each step's mask is an action_count vector: millions in tiandi
    deals = 3 if ddzfast.get_rules(rules).wild_count == 2 else 8
    for bidding in (False, True):
        e = doudizhu_v0.env(rules, bidding)
        for deal in range(deals):
            e.reset(seed=100 + deal)
            raw = e.unwrapped
            seed = raw.game.seed
            assert seed == ddzfast.deal_seed(100 + deal, 0)
            replay = ddzfast.Game(rules, seed, bidding, 0)
            rewards = dict.fromkeys(PLAYERS, 0.0)
            steps = 0
            for agent in e.agent_iter():
                obs, reward, term, trunc, info = e.last()
                rewards[agent] += reward
                if term or trunc:
                    e.step(None)
                    continue
                seat = PLAYERS.index(agent)
                game = raw.game
                mask = obs["action_mask"]
                legal = np.flatnonzero(mask)
                np.testing.assert_array_equal(legal, np.sort(raw.legal_actions()))
                # the mask marks exactly the legal moves (or bids)
                if game.phase == "play":
                    np.testing.assert_array_equal(
                        legal, np.sort(action_index(game.legal_moves(), rules)))
                else:
                    n = action_count(rules)
                    assert [0 if a == 0 else a - n + 1 for a in legal] == game.legal_bids()
                # the others' masks are empty
                for other in PLAYERS:
                    if other != agent:
                        assert not e.observe(other)["action_mask"].any()
                # the observation is the seat's Game.observation_tensor
                vec = obs["observation"]
                np.testing.assert_array_equal(vec, game.observation_tensor(seat))
                assert int(decode_hands(vec[None, HAND])[0]) == int(game.hands[seat])
                a = int(rng.choice(legal))
                if game.phase == "bidding":
                    replay.bid(0 if a == 0 else a - action_count(rules) + 1)
                else:
                    replay.play(moves[a])
                e.step(np.int32(a) if steps % 2 else a)
                steps += 1
            result = replay.result
            assert result is not None and raw.game.done
            assert [rewards[a] for a in PLAYERS] == list(result.scores)
            assert sum(rewards.values()) == pytest.approx(0.0)
            assert e.agents == []


def test_reset_seeds_and_runs():
    e = doudizhu_v0.raw_env("biegang")
    e.reset(seed=5)
    first = e.game.hands
    e.reset()
    second = e.game.hands
    assert e.game.seed == ddzfast.deal_seed(5, 1)
    e.reset(seed=5)
    assert e.game.hands == first
    e.reset()
    assert e.game.hands == second
    assert e.agent_selection == "player_0"       # no bidding: seat 0 leads


def test_move_of_and_action_of():
    e = doudizhu_v0.raw_env("super", bidding=True)
    e.reset(seed=4)
    n = action_count("super")
    assert e.action_of(0) == 0 and e.action_of(2) == n + 1     # bids while bidding
    while e.game.phase == "bidding":
        e.step(int(e.legal_actions()[-1]))
    for a in e.legal_actions():
        move = e.move_of(int(a))
        assert move in e.game.legal_moves() and e.action_of(move) == a
    with pytest.raises(IndexError):
        e.move_of(n)
    with pytest.raises(IndexError):
        e.move_of(-1)
    with pytest.raises(TypeError):
        e.move_of(1.0)
    # while playing, a choice is a move: an int was read as every field of a
    # row (0: a PASS) or failed with OverflowError (-1)
    for choice in (0, -1, "33", e.game.legal_moves().array[:2]):
        with pytest.raises(TypeError, match="a Move or a MOVE_DTYPE row"):
            e.action_of(choice)


@pytest.mark.parametrize("rules", ENV_RULES)
def test_a_pickled_env_goes_on_alike_and_holds_no_mask_bounds(rules):
    """A pickled environment held each agent's action-mask Box bounds:
    four arrays as long as the action table (12.7 MB for laizi:7). It
    holds the spaces' random streams only: the copy's spaces are equal,
    sample what the original's do, and the deal goes on alike."""
    import pickle
    e = doudizhu_v0.env(rules, bidding=True)
    e.reset(seed=4)
    e.observation_space("player_1").seed(5)
    e.action_space("player_2").seed(6)
    e.observation_space("player_1").sample()
    data = pickle.dumps(e)
    assert len(data) < 20000
    copy = pickle.loads(data)
    for agent in PLAYERS:
        assert copy.observation_space(agent) == e.observation_space(agent)
        assert copy.action_space(agent) == e.action_space(agent)
    a, b = e.observation_space("player_1").sample(), copy.observation_space("player_1").sample()
    assert all(np.array_equal(a[k], b[k]) for k in a)
    assert e.action_space("player_2").sample() == copy.action_space("player_2").sample()
    for _ in range(40):
        if not e.agents:
            break
        obs, _, done, _, _ = e.last()
        obs2, _, done2, _, _ = copy.last()
        assert np.array_equal(obs["observation"], obs2["observation"]) and done == done2
        action = None if done else int(np.flatnonzero(obs["action_mask"])[-1])
        e.step(action)
        copy.step(action)


@pytest.mark.parametrize("rules, lines", [
    ("tiandi:7J", ["sky laizi rank: 7", "ground laizi rank: J (every 7 and J stands for "
                                        "any card 3..2)"]),
    ("laizi:7", ["laizi (wild) rank: 7 (every 7 stands for any card 3..2)"]),
    ("classic", [])])
def test_the_table_tells_the_wild_ranks(rules, lines):
    """A user's review: the rendered table never told the wild ranks, which
    `ddzfast play` prints: a deal's first rendering does, once."""
    e = doudizhu_v0.env(rules, render_mode="ansi")
    e.reset(seed=2)
    first = e.render().splitlines()
    assert first[:len(lines)] == lines and "laizi rank" not in " ".join(first[len(lines):])
    e.step(int(np.flatnonzero(e.last()[0]["action_mask"])[-1]))
    assert "laizi rank" not in e.render()


def test_illegal_and_bad_actions_leave_the_deal_unchanged():
    e = doudizhu_v0.raw_env("classic")
    e.reset(seed=1)
    before = e.game.position_key()
    mask = e.observe("player_0")["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[1])
    with pytest.raises(IllegalMoveError, match=f"action {illegal}"):
        e.step(illegal)
    with pytest.raises(IllegalMoveError, match="cannot pass when leading"):
        e.step(0)
    with pytest.raises(ValueError, match="out of range"):
        e.step(action_count("classic"))
    with pytest.raises(ValueError, match="out of range"):
        e.step(-1)
    with pytest.raises(TypeError, match="action is an int"):
        e.step(1.0)
    with pytest.raises(TypeError, match="action is an int"):
        e.step(True)
    assert e.game.position_key() == before
    assert e.agent_selection == "player_0"


def test_action_of_checks_a_choice_in_a_decision_phase():
    """While bidding, action_of took anything int() took: 2.9 became bid 2,
    "2" too, -5 a move action and 2**70 an index far beyond the action
    space. Now TypeError for a non-int (a bool included, as in the play
    phase) and ValueError beyond the choice actions."""
    n = action_count("classic")
    e = doudizhu_v0.raw_env("classic", bidding=True)
    e.reset(seed=2)
    assert e.game.phase == "bidding"
    assert [e.action_of(c) for c in (0, 1, 2, np.int64(3))] == [0, n, n + 1, n + 2]
    for choice in (2.9, "2", True, np.bool_(True), None, np.array(2)):
        with pytest.raises(TypeError, match="in the bidding phase a choice is an int 0..3"):
            e.action_of(choice)
    for choice in (-5, 4, 2**70):
        with pytest.raises(ValueError, match=f"choice {choice} is out of range 0..3"):
            e.action_of(choice)
    happy = doudizhu_v0.raw_env("classic+happy", bidding=True)
    happy.reset(seed=2)
    assert happy.game.phase not in ("play", "done")
    m = action_count("classic+happy")
    assert happy.action_of(4) == m + 3
    with pytest.raises(ValueError, match="out of range 0..4"):
        happy.action_of(5)


def test_raw_env_outside_a_deal_is_a_value_error():
    """raw_env().step(0) before reset raised AttributeError
    ('agent_selection'), observe("player_9") KeyError, and a step (or
    last()) after every agent had stepped out of a finished deal KeyError
    'player_0'. Now ValueError, as observe and legal_actions gave before a
    reset; the wrapped env keeps PettingZoo's contract (a warning, the step
    ignored)."""
    raw = doudizhu_v0.raw_env("classic")
    for call in (lambda: raw.step(0), lambda: raw.last(), lambda: raw.observe("player_0")):
        with pytest.raises(ValueError, match="call reset"):
            call()
    raw.reset(seed=1)
    for agent in ("player_9", 0, None, ["player_0"]):
        for call in (raw.observe, raw.observation_space, raw.action_space):
            with pytest.raises(ValueError, match="unknown agent"):
                call(agent)
    wrapped = doudizhu_v0.env("classic")
    wrapped.reset(seed=1)
    for e in (raw, wrapped):
        game = e.unwrapped.game
        while not game.done:
            e.step(e.unwrapped.action_of(game.policy_action()))
        with pytest.raises(ValueError, match="only valid action is None"):
            e.step(0)                          # PettingZoo's dead-agent contract
        for _ in PLAYERS:
            e.last()
            e.step(None)
        assert e.agents == []
    for call in (lambda: raw.step(None), lambda: raw.step(0), lambda: raw.last()):
        with pytest.raises(ValueError, match="every agent has stepped out"):
            call()
    wrapped.step(None)                         # ignored, with PettingZoo's warning
    raw.reset()
    assert raw.agents == list(PLAYERS) and raw.last()[2] is False


def test_bidding_actions():
    e = doudizhu_v0.raw_env("classic", bidding=True)
    n = action_count("classic")
    e.reset(seed=2)
    first = e.agent_selection
    assert e.game.phase == "bidding"
    assert list(e.legal_actions()) == [0, n, n + 1, n + 2]
    with pytest.raises(IllegalMoveError, match="bidding"):
        e.step(5)
    e.step(n + 1)                              # bid 2
    assert e.game.bids == [(PLAYERS.index(first), 2)]
    assert list(e.legal_actions()) == [0, n + 2]
    with pytest.raises(IllegalMoveError, match="cannot bid 1"):
        e.step(n)


@pytest.mark.parametrize("bad, error", [
    (dict(rules="nope"), ValueError),
    (dict(render_mode="rgb_array"), ValueError),
    (dict(bidding="yes"), TypeError),
])
def test_bad_arguments(bad, error):
    with pytest.raises(error):
        doudizhu_v0.env(**bad)
    with pytest.raises(error):
        doudizhu_v0.raw_env(**bad)


def test_tiandi_needs_both_wild_ranks():
    for make in (doudizhu_v0.env, doudizhu_v0.raw_env):
        with pytest.raises(ValueError, match="tiandi:7J"):
            make("tiandi")
    e = doudizhu_v0.raw_env("tiandi:7J", bidding=True)
    assert e.action_space("player_0").n == action_count("tiandi:7J") + BID_ACTIONS
    for seed in range(3):
        e.reset(seed=seed)
        assert e.game.wild_ranks == (4, 8)                  # every deal: 7 and J


def test_laizi_needs_a_wild_rank():
    for make in (doudizhu_v0.env, doudizhu_v0.raw_env):
        with pytest.raises(ValueError, match="laizi:7"):
            make("laizi")
        with pytest.raises(ValueError, match="wild rank"):
            make(ddzfast.get_rules("laizi"), bidding=True)
    e = doudizhu_v0.raw_env(ddzfast.get_rules("laizi").with_options(wild_rank="K"))
    assert e.action_space("player_0").n == action_count("laizi:K")
    for seed in range(3):
        e.reset(seed=seed)
        assert e.game.wild_rank == 10                       # every deal: K
        obs = e.observe("player_0")
        block = OBSERVATION_LAYOUT["wild_rank"]
        assert obs["observation"][block.offset + 10] == 1
        assert e.observation_space("player_0")["observation"].contains(obs["observation"])


def test_bad_seed():
    e = doudizhu_v0.raw_env()
    with pytest.raises(ValueError):
        e.reset(seed=-1)
    with pytest.raises(TypeError):
        e.reset(seed=1.5)


def test_the_landlord_line_before_a_landlord_is_a_value_error():
    """render.landlord_line on a deal still bidding failed an assert (gone
    under python -O, where it printed a seat of None)."""
    game = ddzfast.Game("classic", seed=1)
    with pytest.raises(ValueError, match="no landlord yet .*bidding phase"):
        landlord_line(game, PLAYERS)


def test_render_human_prints_the_table(capsys):
    e = doudizhu_v0.env("super", render_mode="human")
    e.reset(seed=11)
    game = e.unwrapped.game
    out = capsys.readouterr().out
    assert out == landlord_line(game, PLAYERS) + \
        f"player_0 hand: {game.hands[0]}   to beat: nothing (you lead)\n"
    expected = []
    for agent in e.agent_iter():
        obs, reward, term, trunc, info = e.last()
        if term or trunc:
            e.step(None)
            continue
        seat = game.to_move
        action = int(e.unwrapped.legal_actions()[-1])
        e.step(action)
        expected.append(move_line(agent, game.history[-1][1], game.cards_left[seat]))
    out = capsys.readouterr().out
    lines = [line + "\n" for line in out.splitlines()]
    assert [line for line in lines if "hand:" not in line][:-1] == expected
    assert lines[-1] == outcome_text(game.result) + "\n"
    assert sum("hand:" in line for line in lines) == len(expected) - 1


def test_pettingzoo_render_test(capsys):
    render_test(lambda render_mode=None: doudizhu_v0.env("biegang", True, render_mode))


def test_render_bidding():
    # (before play the line says what the seat decides, not what it beats:
    # it read "to beat: nothing (you lead)" while bidding until a user's review)
    e = doudizhu_v0.raw_env("classic", bidding=True, render_mode="ansi")
    e.reset(seed=6)
    game = e.game
    n = action_count("classic")
    first = game.to_move
    assert e.render() == f"{PLAYERS[first]} hand: {game.hands[first]}   to decide: " \
                         f"a bid or pass\n"
    e.step(n + 2)                                  # bid 3: bidding ends at once
    assert game.phase == "play"
    assert e.render() == (bid_line(PLAYERS[first], 3) + landlord_line(game, PLAYERS) +
                          f"{PLAYERS[first]} hand: {game.hands[first]}   to beat: "
                          f"nothing (you lead)\n")


def test_render_names_each_decision_before_play():
    e = doudizhu_v0.raw_env("classic+happy", bidding=True, render_mode="ansi")
    e.reset(seed=1)
    seen = []
    while e.game.phase != "play":
        seat = e.game.to_move
        line = e.render().splitlines()[-1]
        assert line.startswith(f"{PLAYERS[seat]} hand: {e.game.hands[seat]}   to decide: ")
        seen.append(line.partition("to decide: ")[2])
        mask = e.observe(e.agent_selection)["action_mask"]
        e.step(int(np.flatnonzero(mask)[-1]))       # show, call, rob, double the most
    assert {"show the hand or not", "call or pass", "rob or not",
            "a doubling factor"} <= set(seen)
    assert e.render().splitlines()[-1].endswith("to beat: nothing (you lead)")


def test_render_ansi_and_none():
    e = doudizhu_v0.raw_env("classic", render_mode="ansi")
    e.reset(seed=3)
    text = e.render()
    assert text.startswith("landlord: player_0 (base 1); kitty ")
    e.step(int(e.legal_actions()[0]))
    text = e.render()
    assert text.startswith("player_0: ") and "player_1 hand: " in text
    quiet = doudizhu_v0.raw_env("classic")
    quiet.reset(seed=3)
    with pytest.warns(UserWarning, match="render_mode"):
        assert quiet.render() is None


def _env_import_error(run_python, prelude: str) -> str:
    """What importing ddzfast.env prints as its ImportError, in a new
    process after the code ``prelude``."""
    code = prelude + ("try:\n"
                      "    import ddzfast.env\n"
                      "except ImportError as e:\n"
                      "    print(e)\n")
    result = run_python(code=code)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_the_core_never_imports_the_extra_and_says_what_to_install(run_python):
    out = _env_import_error(run_python, (
        "import sys, ddzfast, ddzfast.cli, ddzfast.features, ddzfast.simulate\n"
        "assert 'pettingzoo' not in sys.modules and 'gymnasium' not in sys.modules\n"
        "sys.modules['pettingzoo'] = None\n"))
    assert 'pip install "ddzfast[env]"' in out


def test_an_extra_that_fails_its_own_import_is_not_called_missing(run_python, tmp_path):
    """A gymnasium that is installed but fails its own import was reported
    as missing ("gymnasium is missing: pip install"): the error says that its
    import failed, and why."""
    fake = tmp_path / "gymnasium"
    fake.mkdir()
    (fake / "__init__.py").write_text('raise ImportError("gymnasium needs another numpy")\n')
    out = _env_import_error(run_python, f"import sys; sys.path.insert(0, {str(tmp_path)!r})\n")
    assert ("ddzfast.env needs pettingzoo and gymnasium, one of which is installed but "
            "failed to import: gymnasium needs another numpy") in out
    assert "is missing" not in out


def test_a_gymnasium_without_same_step_autoreset_is_named(run_python):
    """Regression (a user's review): the extras allowed gymnasium 1.0, which
    has no gymnasium.vector.AutoresetMode, and importing ddzfast.env then
    failed with a bare ImportError; they ask for 1.1, and the import says
    which gymnasium it found and what to install."""
    out = _env_import_error(run_python, (
        "import gymnasium, gymnasium.vector\n"
        "gymnasium.__version__ = '1.0.0'\n"
        "del gymnasium.vector.AutoresetMode\n"))
    assert ("ddzfast.env needs gymnasium 1.1 or later (this is 1.0.0, without "
            "gymnasium.vector.AutoresetMode)") in out
    assert 'pip install -U "ddzfast[env]"' in out


def test_wrapped_env_keeps_the_order_checks_and_answers_last_as_the_raw_env():
    # env() overrides last() (one call instead of five attribute reads
    # through the wrapper): it must stay an OrderEnforcingWrapper, refuse
    # use before reset as PettingZoo's does, and answer as the raw env.
    from pettingzoo.utils.wrappers import OrderEnforcingWrapper
    env = doudizhu_v0.env("classic")
    assert isinstance(env, OrderEnforcingWrapper)
    with pytest.raises(AttributeError, match="before reset"):
        env.last()
    with pytest.raises(AttributeError, match="before reset"):
        env.last(observe=False)
    env.reset(seed=3)
    for _ in range(12):
        wrapped, raw = env.last(), env.unwrapped.last()
        assert np.array_equal(wrapped[0]["observation"], raw[0]["observation"])
        assert np.array_equal(wrapped[0]["action_mask"], raw[0]["action_mask"])
        assert wrapped[1:] == raw[1:]
        assert env.last(observe=False)[0] is None
        env.step(int(env.unwrapped.legal_actions()[0]))
