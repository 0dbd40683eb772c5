"""ddzfast.arena: DouZero's evaluation protocol (issue 18). The deals are
generate_eval_data.py's, both seatings play the same deals, results are
reproducible, RLCard's rule agent only plays legal moves, and WP/ADP are
recomputed by hand from replayed games; in the other rule sets, from games
replayed on the engine's deals the module docstring names; with bidding,
from the six seatings of each deal bid and played again and scored per
seat."""
import json
import math
import random
import sys

import numpy as np
import pytest

from ddzfast import Game, Hand, MoveKind, deal_seed, get_rules
from ddzfast.arena import arena, arena_rules, douzero_deals, resolve_agent
from ddzfast.cli import main
from ddzfast.rulesets import PLATFORM_DEFAULTS
from helpers import RULE_SETS, failing_import

#: the rule sets dealt by the engine (all but classic's deck), the laizi ones
#: also with their wild ranks drawn per deal
ENGINE_DEALT = [r for r in RULE_SETS if r != "classic"] + ["laizi", "tiandi"]

DOUZERO_CHARS = {3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 8: "8", 9: "9", 10: "T", 11: "J",
                 12: "Q", 13: "K", 14: "A", 17: "2", 20: "X", 30: "D"}


def douzero_generate(count, seed):
    """DouZero's generate_eval_data.py, restated: after np.random.seed(seed),
    shuffle its deck list per deal; landlord deck[:20], landlord_up
    deck[20:37], landlord_down deck[37:54], three_landlord_cards deck[17:20]."""
    deck = []
    for i in range(3, 15):
        deck.extend([i] * 4)
    deck.extend([17] * 4)
    deck.extend([20, 30])
    np.random.seed(seed)
    out = []
    for _ in range(count):
        d = deck.copy()
        np.random.shuffle(d)
        data = {"landlord": sorted(d[:20]), "landlord_up": sorted(d[20:37]),
                "landlord_down": sorted(d[37:54]), "three_landlord_cards": sorted(d[17:20])}
        out.append(data)
    return out


def text(cards):
    return "".join(DOUZERO_CHARS[c] for c in cards)


def test_deals_are_douzeros_layout():
    for seed in (0, 7):
        ours = douzero_deals(30, seed)
        for deal, dz in zip(ours, douzero_generate(30, seed)):
            assert deal == (text(dz["landlord"]), text(dz["landlord_down"]),
                            text(dz["landlord_up"]), text(dz["three_landlord_cards"]))
            assert all(c in deal[0] for c in deal[3])      # the landlord holds the kitty


def test_both_seatings_play_the_same_deals(monkeypatch):
    import ddzfast.arena as A
    made = []
    real = Game.from_position

    class Recording:
        @staticmethod
        def from_position(hands, *args, **kwargs):
            made.append((tuple(hands), kwargs["kitty"], kwargs["landlord"]))
            return real(hands, *args, **kwargs)

    monkeypatch.setattr(A, "Game", Recording)
    for b in ("greedy", lambda game, legal: 0 if len(legal) == 1 else len(legal) - 1):
        made.clear()
        arena("expert", b, deals=5, seed=3)
        deals = douzero_deals(5, 3)
        # two games per deal, in order: A as landlord, then B as landlord
        assert made == [(tuple(d[:3]), d[3], 0) for d in deals for _ in range(2)]


def test_results_are_reproducible_and_threads_do_not_change_them():
    one = arena("expert", "random", deals=80, seed=5)
    two = arena("expert", "random", deals=80, seed=5, threads=2)
    for k in one.per_deal:
        assert (one.per_deal[k] == two.per_deal[k]).all()
    assert one.wp == two.wp and one.adp == two.adp
    other = arena("expert", "random", deals=80, seed=6)
    assert not all((one.per_deal[k] == other.per_deal[k]).all() for k in one.per_deal)


def _replay(deal, landlord, farmers, game_seed):
    """One game played move by move in Python, scored by hand."""
    game = Game.from_position(deal[:3], "classic", landlord=0, kitty=deal[3], seed=game_seed)
    bombs = 0
    while not game.done:
        policy = landlord if game.to_move == 0 else farmers
        move = game.policy_move(policy)
        bombs += move.kind in (MoveKind.BOMB, MoveKind.ROCKET)
        game.play(move)
    return game.result.winner == "landlord", bombs


def test_wp_and_adp_by_hand():
    from ddzfast import deal_seed
    n, seed = 12, 9
    result = arena("greedy", "expert", deals=n, seed=seed)
    wins_l, wins_f, pts_l, pts_f = [], [], [], []
    for i, deal in enumerate(douzero_deals(n, seed)):
        lw, lb = _replay(deal, "greedy", "expert", deal_seed(seed, 2 * i))
        fw, fb = _replay(deal, "expert", "greedy", deal_seed(seed, 2 * i + 1))
        wins_l.append(lw)
        pts_l.append(2 * 2 ** lb if lw else -2 * 2 ** lb)
        wins_f.append(not fw)
        pts_f.append(2 * 2 ** fb if not fw else -2 * 2 ** fb)
    assert result.wp_landlord[0] == pytest.approx(sum(wins_l) / n)
    assert result.wp_farmers[0] == pytest.approx(sum(wins_f) / n)
    assert result.wp[0] == pytest.approx((sum(wins_l) + sum(wins_f)) / (2 * n))
    assert result.adp_landlord[0] == pytest.approx(sum(pts_l) / n)
    assert result.adp_farmers[0] == pytest.approx(sum(pts_f) / n)
    assert result.adp[0] == pytest.approx((sum(pts_l) + sum(pts_f)) / (2 * n))
    x = (np.array(wins_l, float) + np.array(wins_f, float)) / 2
    assert result.wp[1] == pytest.approx(1.959963984540054 * x.std(ddof=1) / np.sqrt(n))


def test_rlcard_rule_agent_plays_only_legal_moves():
    pytest.importorskip("rlcard")
    result = arena("expert", "rlcard-rule", deals=40, seed=1)
    stats = result.agents["b"]
    assert stats["decisions"] > 500
    assert stats["legal_choices"] + stats["raised_random"] + stats["illegal_random"] \
        == stats["decisions"]
    assert stats["illegal_random"] == 0
    again = arena("expert", "rlcard-rule", deals=40, seed=1)
    assert again.wp == result.wp and again.agents == result.agents


def test_missing_rlcard_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "rlcard", None)
    monkeypatch.setitem(sys.modules, "rlcard.models.doudizhu_rule_models", None)
    monkeypatch.setitem(sys.modules, "rlcard.games.doudizhu.utils", None)
    with pytest.raises(ImportError, match=r"ddzfast\[rlcard\]"):
        resolve_agent("rlcard-rule")


def test_rlcard_failing_its_own_import_is_not_called_missing(monkeypatch):
    # rlcard 1.2's agents import distutils, which Python 3.12+ has only from
    # setuptools: the agent's error said rlcard was "not installed"
    failing_import(monkeypatch, "rlcard",
                   ModuleNotFoundError("No module named 'distutils'", name="distutils"))
    with pytest.raises(ImportError) as info:
        resolve_agent("rlcard-rule")
    message = str(info.value)
    assert "not installed" not in message
    assert "failed to import: No module named 'distutils'" in message
    assert "setuptools" in message and "ddzfast[rlcard]" in message


def test_douzero_agent_failing_its_own_import_is_not_called_missing(monkeypatch, tmp_path):
    # an installed torch that fails its own import (a build for another CPU,
    # say) was reported as torch and douzero to install
    failing_import(monkeypatch, "torch",
                   ImportError("libtorch_cpu.so: cannot open shared object file"))
    with pytest.raises(ImportError, match="needs torch and douzero, one of which is "
                                          "installed but failed to import: libtorch_cpu"):
        resolve_agent(f"douzero:{tmp_path}")


@pytest.mark.parametrize("kwargs, error", [
    ({"a": "nope"}, ValueError),
    ({"a": 5}, TypeError),
    ({"deals": -1}, ValueError),
    # (a count or seed of another type is a TypeError, as simulate's: it
    # was a ValueError here)
    ({"deals": 1.5}, TypeError),
    ({"deals": True}, TypeError),
    ({"seed": 1.0}, TypeError),
    ({"seed": 2 ** 32}, ValueError),
    ({"seed": -1}, ValueError),
    ({"threads": 0}, ValueError),
    ({"a": "douzero"}, ValueError),
    ({"backend": "dask"}, ValueError),
    ({"backend": "ray", "tasks": 0}, ValueError),
    ({"backend": "ray", "address": 6379}, TypeError),
    ({"backend": "ray", "connect_timeout": -1}, ValueError),
    ({"backend": "ray", "b": lambda game, legal: 0}, ValueError),
])
def test_bad_arguments(kwargs, error):
    args = {"a": "greedy", "b": "random", "deals": 2, "seed": 0}
    args.update(kwargs)
    with pytest.raises(error):
        arena(**args)


def test_command_line(capsys):
    assert main(["arena", "--a", "expert", "--b", "greedy", "--deals", "30", "--seed", "2",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["deals"] == 30 and 0 <= out["wp"]["value"] <= 1
    assert out["wp"]["value"] == pytest.approx(arena("expert", "greedy", 30, 2).wp[0])
    assert main(["arena", "--a", "expert", "--b", "nope", "--deals", "3"]) == 2
    assert "unknown arena agent" in capsys.readouterr().err


@pytest.mark.parametrize("bidding", [False, True])
@pytest.mark.parametrize("deals", [0, 1])
def test_undefined_statistics_are_null_in_json_and_na_in_text(capsys, deals, bidding):
    """Regression (audit of the command line): `arena --json` with --deals 1
    or 0 printed NaN, which is no JSON. An undefined statistic is None in
    as_dict() (as in report.summarize), null in the JSON, n/a in the table."""
    flags = ["--bidding"] if bidding else []
    assert main(["arena", "--a", "random", "--b", "greedy", "--deals", str(deals),
                 "--json"] + flags) == 0
    text = capsys.readouterr().out
    out = json.loads(text, parse_constant=lambda c: pytest.fail(f"{c} in the JSON"))
    assert out["wp"]["ci95"] is None
    assert (out["wp"]["value"] is None) == (deals == 0)
    if not bidding:     # (with bidding, the per-role intervals are over games)
        assert out["adp_landlord"]["ci95"] is None
    assert ("landlord_share" in out) == bidding
    assert arena("random", "greedy", deals, bidding=bidding).as_dict() == out
    assert main(["arena", "--a", "random", "--b", "greedy", "--deals", str(deals)]
                + flags) == 0
    table = capsys.readouterr().out
    assert "nan" not in table.lower() and "± n/a" in table


def _random_douzero_models(folder):
    torch = pytest.importorskip("torch")
    pytest.importorskip("douzero")
    from ddzfast.arena import _douzero_model_classes
    model_dict = _douzero_model_classes()      # DouZero's own classes
    torch.manual_seed(0)
    for pos in ("landlord", "landlord_up", "landlord_down"):
        torch.save(model_dict[pos]().state_dict(), folder / f"{pos}.ckpt")


def test_douzero_checkpoints_play_legal_moves(tmp_path):
    _random_douzero_models(tmp_path)
    spec = f"douzero:{tmp_path}"
    result = arena(spec, "greedy", deals=1, seed=0)
    stats = result.agents["a"]
    assert stats["decisions"] > 10 and stats["legal_choices"] == stats["decisions"]
    again = arena(spec, "greedy", deals=1, seed=0)
    for k in result.per_deal:
        assert (result.per_deal[k] == again.per_deal[k]).all()
    with pytest.raises(ValueError, match="does not bid"):
        arena(spec, "greedy", deals=1, bidding=True)


def test_douzero_folder_without_models(tmp_path):
    pytest.importorskip("torch")
    pytest.importorskip("douzero")
    with pytest.raises(ValueError, match="landlord.ckpt"):
        resolve_agent(f"douzero:{tmp_path}")


def test_douzero_folder_of_files_that_are_no_models(tmp_path):
    """Regression (a user's review): three files of the checkpoints' names
    that are no checkpoints raised torch's UnpicklingError, and `ddzfast
    arena` printed its traceback."""
    pytest.importorskip("torch")
    pytest.importorskip("douzero")
    for name in ("landlord.ckpt", "landlord_up.ckpt", "landlord_down.ckpt"):
        (tmp_path / name).write_text("not a model")
    with pytest.raises(ValueError, match="landlord.ckpt is not a DouZero landlord model"):
        resolve_agent(f"douzero:{tmp_path}")
    assert main(["arena", "--a", f"douzero:{tmp_path}", "--b", "greedy",
                 "--deals", "1"]) == 2


def test_douzero_checkpoints_lacking_weights_are_refused(tmp_path):
    """A checkpoint holding some or none of its network's weights loaded,
    the rest kept at random (DouZero's DeepAgent does so), and played an
    untrained network under the folder's name."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("douzero")
    _random_douzero_models(tmp_path)
    state = torch.load(tmp_path / "landlord_up.ckpt")
    torch.save({k: v for k, v in state.items() if k.startswith("lstm.")},
               tmp_path / "landlord_up.ckpt")
    with pytest.raises(ValueError, match=r"landlord_up.ckpt is not a DouZero landlord_up "
                                         r"model: it lacks \d+ of its \d+ weights \(dense"):
        resolve_agent(f"douzero:{tmp_path}")
    torch.save({}, tmp_path / "landlord_up.ckpt")
    with pytest.raises(ValueError, match="it lacks"):
        resolve_agent(f"douzero:{tmp_path}")


def test_missing_torch_names_it(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(ImportError, match="torch"):
        resolve_agent(f"douzero:{tmp_path}")


def test_blocks_of_deals_do_not_change_results(monkeypatch):
    import ddzfast.arena as A
    whole = arena("expert", "random", deals=20, seed=4)
    monkeypatch.setattr(A, "_BLOCK", 7)      # deals laid out 7 at a time
    for threads in (1, 2):
        blocks = arena("expert", "random", deals=20, seed=4, threads=threads)
        for k in whole.per_deal:
            assert (whole.per_deal[k] == blocks.per_deal[k]).all()


# ---- other rule sets -------------------------------------------------------------

def _last_legal(game, legal):
    return len(legal) - 1


def _replay_rules(rules, i, seed, landlord, farmers, game_seed):
    """Game i of an arena in another rule set, as the module docstring says
    it is dealt, played move by move and scored by hand: (the landlord won,
    the product of the rule set's factors over the bombs played)."""
    dealt = Game(rules, deal_seed(2 ** 32 + seed, i), bidding=False)
    game = Game.from_position(dealt.hands, dealt.rules, landlord=0, kitty=dealt.kitty,
                              seed=game_seed)
    factors = dict(get_rules(rules).description["multipliers"])
    product = 1
    while not game.done:
        policy = landlord if game.to_move == 0 else farmers
        move = (game.policy_move(policy) if isinstance(policy, str)
                else game.legal_moves()[policy(game, game.legal_moves())])
        product *= factors.get(move.kind.name, 1)
        game.play(move)
    return game.result.winner == "landlord", product


@pytest.mark.parametrize("rules", ENGINE_DEALT)
@pytest.mark.parametrize("b", ["greedy", _last_legal], ids=["builtin", "callable"])
def test_other_rule_sets_by_hand(rules, b):
    """Each deal is the engine's (Game(rules, deal_seed(2**32 + seed, i),
    bidding=False)), played in both seatings; the points are 2 times the
    product of the rule set's bomb factors, springs and the cap left out."""
    n, seed = 8, 11
    result = arena("expert", b, deals=n, seed=seed, rules=rules)
    assert result.rules == rules
    for i in range(n):
        lw, lf = _replay_rules(rules, i, seed, "expert", b, deal_seed(seed, 2 * i))
        fw, ff = _replay_rules(rules, i, seed, b, "expert", deal_seed(seed, 2 * i + 1))
        assert result.per_deal["a_won_as_landlord"][i] == lw
        assert result.per_deal["a_points_as_landlord"][i] == (2 * lf if lw else -2 * lf)
        assert result.per_deal["a_won_as_farmers"][i] == (not fw)
        assert result.per_deal["a_points_as_farmers"][i] == (-2 * ff if fw else 2 * ff)


@pytest.mark.parametrize("rules", ["laizi", "tiandi:7J", "super"])
def test_other_rule_sets_reproducible_in_threads_and_blocks(monkeypatch, rules):
    import ddzfast.arena as A
    whole = arena("expert", "random", deals=30, seed=4, rules=rules)
    monkeypatch.setattr(A, "_BLOCK", 7)
    for threads in (1, 2):
        again = arena("expert", "random", deals=30, seed=4, threads=threads, rules=rules)
        for k in whole.per_deal:
            assert (whole.per_deal[k] == again.per_deal[k]).all()
    other = arena("expert", "random", deals=30, seed=5, rules=rules)
    assert not all((whole.per_deal[k] == other.per_deal[k]).all() for k in whole.per_deal)


def test_the_wild_ranks_drawn_differ_from_deal_to_deal():
    ranks = {Game("laizi", deal_seed(2 ** 32 + 3, i), bidding=False).wild_rank
             for i in range(40)}
    assert len(ranks) > 5
    # and arena plays them: the drawn rule set is not one fixed rank
    drawn = arena("expert", "greedy", deals=40, seed=3, rules="laizi")
    fixed = arena("expert", "greedy", deals=40, seed=3, rules="laizi:7")
    assert not all((drawn.per_deal[k] == fixed.per_deal[k]).all() for k in drawn.per_deal)


def test_a_rule_set_given_as_rules_is_named_with_its_wild_ranks():
    """Regression: ArenaResult.rules held 'laizi' for get_rules('laizi:7'),
    so a result did not say which wild rank its deals played."""
    for name in ("laizi:7", "tiandi:7J"):
        result = arena("expert", "greedy", deals=2, seed=3, rules=get_rules(name))
        assert result.rules == result.as_dict()["rules"] == name
        assert name in result.table()
    # a rule set its name does not give is named by its repr
    banned = get_rules("classic").without_kinds("TRIPLE_PAIR")
    result = arena("expert", "greedy", deals=2, seed=3, rules=banned)
    assert result.rules == repr(banned) == "Rules('classic').without_kinds('TRIPLE_PAIR')"
    assert repr(banned) in result.table()


def test_a_rule_set_given_by_name_is_named_as_its_rules_name_it():
    """Regression (review of the arena, 2026-12-07): ArenaResult.rules
    echoed the text given ("laizi:t"), where a Rules given is named by its
    ranked name ("laizi:T")."""
    for given, name in (("laizi:t", "laizi:T"), ("tiandi:10j", "tiandi:TJ"),
                        ("classic", "classic")):
        result = arena("expert", "greedy", deals=2, seed=3, rules=given)
        assert result.rules == result.as_dict()["rules"] == name


def test_the_table_counts_one_deal_in_the_singular():
    """Regression (review of the arena, 2026-12-07): the table said "1 deals"."""
    assert "greedy vs random: 1 deal (seed 0)" in arena("greedy", "random", deals=1).table()
    assert "greedy vs random: 2 deals (seed 0)" in arena("greedy", "random", deals=2).table()


def test_the_rlcard_agent_leaves_numpys_global_generator_as_it_was():
    """Regression (review of the arena, 2026-12-07): the arena seeds NumPy's
    global generator for each game, which RLCard's agent draws from, and
    left it so: a caller's own np.random draws after arena() depended on
    the arena's last game. Its state is given back."""
    pytest.importorskip("rlcard")
    np.random.seed(12345)
    expected = np.random.random(3)
    np.random.seed(12345)
    arena("expert", "rlcard-rule", deals=3, seed=1)
    assert np.array_equal(np.random.random(3), expected)


def test_the_cap_is_not_applied():
    """DouZero's scoring has no cap: super's mult_cap (24) is removed."""
    assert get_rules("super").description["mult_cap"] == 24
    assert arena_rules("super").description["mult_cap"] is None
    assert arena_rules("classic") is get_rules("classic")


NO_SHUFFLE = get_rules("classic").with_options(deal="no_shuffle")


@pytest.mark.parametrize("rules", ["classic+happy", "tiandi:7J+happy", NO_SHUFFLE,
                                   get_rules("laizi:7").with_options(doubling=True)])
def test_platform_options_are_refused_without_bidding(rules):
    """DouZero's protocol makes no decision before play: rob bidding,
    showing and doubling need bidding=True, and no-shuffle sessions are
    refused either way."""
    with pytest.raises(ValueError, match="platform option"):
        arena("expert", "greedy", deals=2, rules=rules)


def test_no_shuffle_sessions_are_refused_with_bidding():
    with pytest.raises(ValueError, match="no-shuffle sessions"):
        arena("expert", "greedy", deals=2, rules=NO_SHUFFLE, bidding=True)


def test_command_line_platform_options_need_bidding(capsys):
    assert main(["arena", "--a", "expert", "--b", "greedy", "--rules", "classic+happy"]) == 2
    assert "--bidding" in capsys.readouterr().err


def test_classic_deck_agents_are_refused_elsewhere():
    pytest.importorskip("rlcard")
    for rules in ("biegang", "laizi:7", "tiandi"):
        with pytest.raises(ValueError, match="only classic's 54-card deck"):
            arena("rlcard-rule", "greedy", deals=2, rules=rules)
    # a rule set of classic's deck without some kinds keeps DouZero's deals
    plain = get_rules("classic").without_kinds("FOUR_PAIRS")
    assert arena("rlcard-rule", "greedy", deals=2, rules=plain).deals == 2


def test_command_line_rules(capsys):
    assert main(["arena", "--a", "expert", "--b", "greedy", "--deals", "6", "--seed", "2",
                 "--rules", "tiandi", "--wild", "7J", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["rules"] == "tiandi:7J"
    assert out == arena("expert", "greedy", 6, 2, rules="tiandi:7J").as_dict()
    assert main(["arena", "--a", "expert", "--b", "greedy", "--deals", "6",
                 "--rules", "laizi"]) == 0
    assert "(seed 0, laizi)" in capsys.readouterr().out
    assert main(["arena", "--a", "expert", "--b", "greedy", "--rules", "classic+happy"]) == 2
    assert "platform options" in capsys.readouterr().err


# ---- Ray ------------------------------------------------------------------------------

def test_ray_backend_equals_local(ray_tmpdir):
    """DouZero's one stream resumed task by task, and the engine's deals, give
    the local results whatever the task count."""
    ray = pytest.importorskip("ray")
    cases = (("classic", 4, False), ("classic", 1, False), ("tiandi", 3, False),
             ("classic", 3, True), ("laizi+happy", 2, True))
    local = {(rules, bidding): arena("expert", "random", deals=60, seed=8, rules=rules,
                                     bidding=bidding)
             for rules, _, bidding in cases}
    try:
        for rules, tasks, bidding in cases:
            remote = arena("expert", "random", deals=60, seed=8, rules=rules,
                           backend="ray", tasks=tasks, bidding=bidding)
            here = local[rules, bidding]
            assert remote.bidding == bidding
            for k in remote.per_deal:
                assert (remote.per_deal[k] == here.per_deal[k]).all(), (rules, k)
            assert remote.wp == here.wp
    finally:
        ray.shutdown()


def test_ray_missing_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)     # `import ray` raises ImportError
    with pytest.raises(ImportError, match=r"pip install 'ddzfast\[ray\]'"):
        arena("expert", "random", deals=2, backend="ray")
    assert main(["arena", "--a", "expert", "--b", "random", "--backend", "ray"]) == 2


# ---- bidding --------------------------------------------------------------------------

def _bid_high_play_last(game, legal):
    """A callable agent: the highest bid, the last legal move."""
    return len(legal) - 1


def _deal_parts(rules, seed, i):
    """Deal i of an arena with bidding as the module docstring lays it out,
    with the kitty apart from seat 0's hand: (hands, kitty, the deal's
    rules, its ground rank). A rule set with platform options deals as it
    does without them, and plays with them, caps removed. A tiandi deal's
    rules hold its sky rank alone, and its ground rank is given apart (to
    come with the kitty); None in the other rule sets."""
    platform = get_rules(rules).platform
    played = {k: v for k, v in platform.items() if k != "cap"}
    if rules in ("classic", "classic+happy"):
        d = douzero_deals(i + 1, seed)[i]
        return ((Hand(d[0]) - Hand(d[3]), d[1], d[2]), d[3],
                get_rules("classic").with_options(**played), None)
    dealt = Game(get_rules(rules).with_options(**PLATFORM_DEFAULTS),
                 deal_seed(2 ** 32 + seed, i), bidding=False)
    h = dealt.hands
    deal_rules, ground = dealt.rules.with_options(**played), None
    if deal_rules.wild_count == 2 and len(get_rules(rules).wild_ranks) < 2:
        sky, ground = deal_rules.wild_ranks
        deal_rules = deal_rules.with_options(wild_ranks=(sky,))
    return (h[0] - dealt.kitty, h[1], h[2]), dealt.kitty, deal_rules, ground


#: The show factors of RULES.md 10, by the phase a show is chosen in.
SHOW_FACTORS = {"show": 4, "landlord_show": 2}


def _replay_bidding(rules, i, seed, seating, a, b, t):
    """Game t of deal i of an arena with bidding, bid and played decision by
    decision and scored by hand: each seat's points (RULES.md 6 and 10: the
    base, each rob x2, the largest show factor, the rule set's bomb
    factors, the seats' doubling factors; no spring, no cap). Returns the
    arena's columns (BIDDING_COLUMNS) and the points."""
    hands, kitty, deal_rules, ground = _deal_parts(rules, seed, i)
    game = Game.from_deal(hands, kitty, deal_rules, first_bidder=0,
                          seed=deal_seed(seed, 6 * i + t),
                          redeal_seed=deal_seed(2 ** 33 + seed, i), ground_rank=ground)
    assert game.to_move == 0
    factors = dict(get_rules(rules).description["multipliers"])
    product, dealing = 1, -1
    while not game.done:
        if game.redeals != dealing:       # a new dealing: its decisions alone count
            dealing, ones, show, doubles = game.redeals, 0, 1, [1, 1, 1]
        agent = a if seating[game.to_move] == "A" else b
        if game.phase != "play":
            legal = game.legal_choices()
            choice = (game.policy_choice(agent) if isinstance(agent, str)
                      else legal[agent(game, legal)])
            if game.phase == "bidding":
                ones += choice == 1
            elif game.phase in SHOW_FACTORS and choice:
                show = max(show, SHOW_FACTORS[game.phase])
            elif game.phase == "doubling":
                doubles[game.to_move] = choice
            game.choose(choice)
            continue
        legal = game.legal_moves()
        move = game.policy_move(agent) if isinstance(agent, str) else legal[agent(game, legal)]
        product *= factors.get(move.kind.name, 1)
        game.play(move)
    won = game.result.winner == "landlord"
    # rob bidding: the first 1 is the call, each one after it a rob
    robs = max(ones - 1, 0) if get_rules(rules).platform["bidding"] == "rob" else 0
    farmer = [game.base * 2 ** robs * show * product * doubles[s] * doubles[game.landlord]
              for s in range(3)]
    sign = 1 if won else -1
    total = sum(farmer[s] for s in range(3) if s != game.landlord)
    points = [sign * total if s == game.landlord else -sign * farmer[s] for s in range(3)]
    columns = (game.landlord, game.base, won, product, robs, show, *doubles, game.redeals)
    return columns, points


def _pass_play_last(game, legal):
    """A callable agent: never bids, plays the last legal move."""
    return 0 if game.phase == "bidding" else len(legal) - 1


def _show_rob_double_play_last(game, legal):
    """A callable agent: the last choice everywhere (show, call and rob,
    super-double; point bidding's highest bid), the last legal move."""
    return len(legal) - 1


#: Rule sets with the platform options of RULES.md 10 that add decisions
#: before play, each with a name for the test ids.
PLATFORM_BIDDING = {
    "classic+happy": "classic+happy",
    "tiandi+happy": "tiandi+happy",
    "laizi:7-rob-first-after-farmer": get_rules("laizi:7").with_options(
        bidding="rob", no_call="first", doubling="after_farmer"),
    "super-points-show": get_rules("super").with_options(show=True),
}


def _name(rules):
    # (these Rules have options their names do not give)
    return rules if isinstance(rules, str) else repr(rules)


@pytest.mark.parametrize("rules", ["classic", "laizi", "tiandi", "tiandi:7J", "super"]
                         + list(PLATFORM_BIDDING.values()),
                         ids=["classic", "laizi", "tiandi", "tiandi:7J", "super"]
                         + list(PLATFORM_BIDDING))
@pytest.mark.parametrize("b", ["greedy", _pass_play_last, _show_rob_double_play_last],
                         ids=["builtin", "callable", "callable-all-in"])
def test_bidding_by_hand(rules, b):
    """Every deal bid and played in the six seatings, each scored per seat
    and summed over a's seats; the statistics recomputed from those games."""
    from ddzfast.arena import BIDDING_COLUMNS, BIDDING_SEATINGS
    n, seed = 6, 13
    result = arena("expert", b, deals=n, seed=seed, rules=rules, bidding=True)
    assert result.bidding and result.rules == _name(rules)
    pd = result.per_deal
    recorded = [pd[k] for k in BIDDING_COLUMNS[:6]] + [pd["doubles"][..., s] for s in range(3)] \
        + [pd["redeals"]]
    ahead, a_pts, a_ll, ll_won, ll_pts, f_won, f_pts = [], [], [], [], [], [], []
    for i in range(n):
        deal_ahead, deal_pts, deal_ll = [], [], []
        for t, seating in enumerate(BIDDING_SEATINGS):
            columns, points = _replay_bidding(rules, i, seed, seating, "expert", b, t)
            landlord, won = columns[0], columns[2]
            mine = sum(p for s, p in enumerate(points) if seating[s] == "A")
            assert sum(points) == 0
            assert tuple(c[i, t] for c in recorded) == columns, (i, seating)
            assert tuple(pd["points"][i, t]) == tuple(points), (i, seating)
            assert pd["a_points"][i, t] == mine, (i, seating)
            deal_ahead.append(mine > 0)
            deal_pts.append(mine)
            deal_ll.append(seating[landlord] == "A")
            if seating[landlord] == "A":
                ll_won.append(won)
                ll_pts.append(points[landlord])
            else:
                f_won.append(not won)
                f_pts.append(-points[landlord])
        ahead.append(np.mean(deal_ahead))
        a_pts.append(np.mean(deal_pts))
        a_ll.append(np.mean(deal_ll))
    assert result.wp[0] == pytest.approx(np.mean(ahead))
    assert result.adp[0] == pytest.approx(np.mean(a_pts))
    assert result.landlord_share[0] == pytest.approx(np.mean(a_ll))
    # (a role nobody held has no figures: NaN)
    for got, games in ((result.wp_landlord, ll_won), (result.adp_landlord, ll_pts),
                       (result.wp_farmers, f_won), (result.adp_farmers, f_pts)):
        assert got[0] == pytest.approx(np.mean(games) if games else np.nan, nan_ok=True)
    assert result.adp[1] == pytest.approx(
        1.959963984540054 * np.std(a_pts, ddof=1) / np.sqrt(n))


def test_platform_decisions_are_played():
    """The platform's decisions reach the arena's records: every show
    factor, robs up to three, each doubling factor, redeals when nobody
    calls (none with no_call="first"), and the landlord's turn to double
    skipped unless a farmer doubled (after_farmer)."""
    happy = arena("expert", _pass_play_last, deals=6, seed=13, rules="classic+happy",
                  bidding=True).per_deal
    assert happy["redeals"].sum() > 0 and set(np.unique(happy["show"])) == {4}
    eager = arena("expert", _show_rob_double_play_last, deals=6, seed=13,
                  rules="classic+happy", bidding=True).per_deal
    assert eager["robs"].max() == 3 and set(np.unique(eager["doubles"])) == {1, 2, 4}
    greedy = arena("expert", "greedy", deals=6, seed=13, rules="classic+happy",
                   bidding=True).per_deal
    assert set(np.unique(greedy["show"])) == {1, 2}
    after = PLATFORM_BIDDING["laizi:7-rob-first-after-farmer"]
    for b in ("greedy", _pass_play_last, _show_rob_double_play_last):
        pd = arena("expert", b, deals=6, seed=13, rules=after, bidding=True).per_deal
        assert pd["redeals"].sum() == 0
        d = pd["doubles"]
        landlord = np.take_along_axis(d, pd["landlord"].astype(np.intp)[..., None], 2)[..., 0]
        farmers_doubled = (d > 1).sum(axis=2) - (landlord > 1)
        assert (landlord[farmers_doubled == 0] == 1).all()


@pytest.mark.parametrize("rules", ["classic", "laizi"])
def test_bidding_swapping_the_agents_negates_the_points(rules):
    """With deterministic agents, a's seating t is b's mirrored seating (a
    lone agent for two and back): the same games, so the points of one
    match are the other's negated, and its landlord seats are the others'."""
    from ddzfast.arena import BIDDING_SEATINGS
    mirror = [BIDDING_SEATINGS.index(s.translate(str.maketrans("AB", "BA")))
              for s in BIDDING_SEATINGS]
    ab = arena("expert", _pass_play_last, deals=12, seed=6, rules=rules, bidding=True)
    ba = arena(_pass_play_last, "expert", deals=12, seed=6, rules=rules, bidding=True)
    assert (ab.per_deal["a_points"] == -ba.per_deal["a_points"][:, mirror]).all()
    assert (ab.per_deal["landlord"] == ba.per_deal["landlord"][:, mirror]).all()
    assert (ab.per_deal["a_landlord"] == ~ba.per_deal["a_landlord"][:, mirror]).all()
    assert ab.adp[0] == pytest.approx(-ba.adp[0])
    assert ab.landlord_share[0] == pytest.approx(1 - ba.landlord_share[0])


def test_bidding_seatings_play_the_same_deals(monkeypatch):
    """Six games a deal, each from the deal's cards with seat 0 the first
    bidder, and the game and redeal seeds the module docstring names."""
    import ddzfast.arena as A
    made = []
    real = Game.from_deal

    class Recording:
        def __new__(cls, *args, **kwargs):
            # (the engine's deals of other decks than classic's)
            return Game(*args, **kwargs)

        @staticmethod
        def from_deal(hands, kitty, rules, first_bidder, seed, redeal_seed, ground_rank):
            made.append((tuple(str(h) for h in hands), str(kitty), rules, first_bidder,
                         seed, redeal_seed, ground_rank))
            return real(hands, kitty, rules, first_bidder, seed, redeal_seed, ground_rank)

    monkeypatch.setattr(A, "Game", Recording)
    for rules in ("classic", "tiandi", "tiandi:7J"):
        made.clear()
        arena("expert", "random", deals=4, seed=3, bidding=True, rules=rules)
        expected = []
        for i in range(4):
            hands, kitty, deal_rules, ground = _deal_parts(rules, 3, i)
            expected += [(tuple(str(Hand(h)) for h in hands), str(Hand(kitty)), deal_rules, 0,
                          deal_seed(3, 6 * i + t), deal_seed(2 ** 33 + 3, i), ground)
                         for t in range(6)]
        assert made == expected


def test_tiandi_bidders_see_the_sky_rank_alone():
    """With bidding, a tiandi deal's ground rank was drawn with the deal and
    given to its games in their rule set, so the bidders saw it (RULES.md 9
    draws it as the kitty is taken). They see the sky rank; the ground rank
    comes with the kitty, the same in the six seatings of a deal."""
    seen = {}

    def agent(game, legal):
        seen.setdefault(game.phase, set()).add(game.wild_ranks)
        return 0

    deals = 3
    arena(agent, "greedy", deals=deals, seed=0, rules="tiandi", bidding=True)
    drawn = [Game("tiandi", deal_seed(2 ** 32, i), bidding=False).wild_ranks
             for i in range(deals)]
    assert seen["bidding"] == {r[:1] for r in drawn}
    assert seen["play"] <= set(drawn) and len(seen["play"]) > 1
    # a rule set that fixes both ranks shows both from the deal on, as Game
    # does (nothing is drawn)
    seen.clear()
    arena(agent, "greedy", deals=deals, seed=0, rules="tiandi:7J", bidding=True)
    assert seen["bidding"] == seen["play"] == {get_rules("tiandi:7J").wild_ranks}


@pytest.mark.parametrize("rules", ["classic+happy", "laizi+happy", "tiandi+happy"])
def test_bidding_seatings_are_redealt_the_same_cards(rules):
    """A deal nobody calls is redealt alike in its six seatings: each
    seating's k-th dealing holds the cards of every other seating's k-th,
    whatever the random choices made before it (each seating's game draws
    its random choices from a stream of its own)."""
    games, dealings = [], []

    def calls_rarely(game, legal):
        # records each dealing's cards at the agent's first decision in it (a
        # show: before the kitty is taken); calls one time in five (so that
        # many deals are redealt); else at random
        if not games or games[-1] is not game:
            games.append(game)
            dealings.append({})
        dealings[-1].setdefault(game.redeals, (tuple(str(h) for h in game.hands),
                                               str(game.kitty)))
        if game.phase == "bidding":
            return legal.index(1 if random.random() < 0.2 else 0)
        return random.randrange(len(legal))

    random.seed(5)
    n = 12
    result = arena(calls_rarely, "random", deals=n, seed=9, rules=rules, bidding=True)
    redeals = result.per_deal["redeals"]
    assert (redeals > 0).sum() >= n and len(set(redeals.ravel())) > 2
    assert len(dealings) == 6 * n     # each game of the arena, in its order
    for i in range(n):
        seatings = dealings[6 * i:6 * i + 6]
        assert [max(s) for s in seatings] == list(redeals[i])
        for k in range(int(redeals[i].max()) + 1):
            cards = {s[k] for s in seatings if k in s}
            assert len(cards) == 1, (i, k)


def test_bidding_bids_differ_between_agents():
    """Agents that bid differently win the bidding in different shares (the
    built-in greedy and expert policies bid alike: a half exactly)."""
    alike = arena("expert", "greedy", deals=30, seed=2, bidding=True)
    assert alike.landlord_share[0] == 0.5
    eager = arena(_bid_high_play_last, "greedy", deals=30, seed=2, bidding=True)
    assert eager.landlord_share[0] > 0.5
    assert (eager.per_deal["base"][eager.per_deal["a_landlord"]] == 3).all()


@pytest.mark.parametrize("rules", ["classic", "tiandi:7J", "tiandi+happy"])
def test_bidding_reproducible_in_threads_and_blocks(monkeypatch, rules):
    import ddzfast.arena as A
    whole = arena("expert", "random", deals=24, seed=4, rules=rules, bidding=True)
    monkeypatch.setattr(A, "_BLOCK", 7)
    for threads in (1, 2):
        again = arena("expert", "random", deals=24, seed=4, threads=threads, rules=rules,
                      bidding=True)
        for k in whole.per_deal:
            assert (whole.per_deal[k] == again.per_deal[k]).all()
    other = arena("expert", "random", deals=24, seed=5, rules=rules, bidding=True)
    assert not all((whole.per_deal[k] == other.per_deal[k]).all() for k in whole.per_deal)


def test_bidding_refuses_agents_that_do_not_bid(tmp_path):
    pytest.importorskip("rlcard")
    with pytest.raises(ValueError, match="'rlcard-rule' does not bid"):
        arena("rlcard-rule", "greedy", deals=2, bidding=True)
    assert main(["arena", "--a", "greedy", "--b", "rlcard-rule", "--bidding"]) == 2


def test_bidding_must_be_a_bool():
    with pytest.raises(TypeError, match="bidding must be True or False"):
        arena("expert", "greedy", deals=2, bidding="yes")


def test_command_line_bidding(capsys):
    assert main(["arena", "--a", "expert", "--b", "random", "--deals", "5", "--seed", "2",
                 "--bidding", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["bidding"] is True and "landlord_share" in out
    assert out == arena("expert", "random", 5, 2, bidding=True).as_dict()
    assert main(["arena", "--a", "expert", "--b", "random", "--deals", "5",
                 "--bidding"]) == 0
    text_out = capsys.readouterr().out
    assert "each bid and played in 6 seatings" in text_out
    assert "landlord share" in text_out
    assert main(["arena", "--a", "expert", "--b", "random", "--deals", "5", "--seed", "2",
                 "--rules", "classic+happy", "--bidding", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out == arena("expert", "random", 5, 2, rules="classic+happy", bidding=True).as_dict()


def test_arena_rules_takes_agents_as_arena_does():
    """Regression (a user's review): arena_rules("laizi", "rlcard-rule") was
    an AttributeError ('str' object has no attribute 'classic_deck_only'),
    and arena_rules("classic", "expert") passed only by chance."""
    assert arena_rules("classic", "expert", "greedy") is get_rules("classic")
    pytest.importorskip("rlcard")
    with pytest.raises(ValueError, match="plays only classic's"):
        arena_rules("laizi", "rlcard-rule")
    with pytest.raises(ValueError, match="does not bid"):
        arena_rules("classic", "rlcard-rule", bidding=True)


def test_check_ray_agents_takes_what_arena_takes():
    """Regression (a user's review): check_ray_agents("greedy", "random")
    raised AttributeError: it took only resolved agents."""
    from ddzfast.arena import check_ray_agents
    check_ray_agents("greedy", resolve_agent("random"))
    with pytest.raises(ValueError, match="backend 'ray' plays a match of two built-in"):
        check_ray_agents("greedy", lambda game, legal: 0)
    with pytest.raises(ValueError, match="unknown"):
        check_ray_agents("greedy", "nobody")


def test_one_deal_leaves_the_intervals_over_deals_undefined_not_those_over_games():
    """docs/bots.md said every interval of a one-deal arena was undefined;
    with bidding the role intervals are over games, and one deal's six
    games define them."""
    r = arena("greedy", "random", deals=1, seed=0, bidding=True)
    assert np.isnan(r.wp[1]) and np.isnan(r.adp[1])
    assert np.isfinite(r.wp_farmers[1]) and np.isfinite(r.adp_farmers[1])


def test_a_result_equals_its_copies():
    """ArenaResult's dataclass equality compared the per-deal arrays as
    truth values (ValueError) and an undefined statistic (NaN) as unequal
    to itself after a pickle."""
    import copy
    import pickle
    result = arena("greedy", "random", deals=20, seed=1)
    assert copy.deepcopy(result) == result and pickle.loads(pickle.dumps(result)) == result
    assert math.isnan(result.landlord_share[0])
    assert arena("greedy", "random", deals=20, seed=2) != result
    changed = copy.deepcopy(result)
    changed.per_deal["a_points_as_landlord"][0] += 1
    assert changed != result
