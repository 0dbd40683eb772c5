"""ddzfast.report: simulation rows as a DataFrame, a summary with intervals
(JSON-serialisable), a plot; each checked against a direct computation."""
import json
import math
import sys

import numpy as np
import pytest

from ddzfast import DEAL_DTYPE, simulate
from ddzfast.report import (Tally, mean_interval, plot_rows, policy_labels, rows_to_frame,
                            summarize, wilson_interval)
from helpers import failing_import

POLICIES = ("random", "greedy", "greedy")


@pytest.fixture(scope="module")
def rows():
    return simulate(4000, "super", POLICIES, seed=6)


def test_rows_to_frame_splits_scores(rows):
    """pd.DataFrame(rows) fails on the (N, 3) scores field; rows_to_frame
    gives score0..score2 and every other field as a column."""
    pd = pytest.importorskip("pandas")
    with pytest.raises(Exception):
        pd.DataFrame(rows)
    df = rows_to_frame(rows)
    assert len(df) == len(rows)
    assert [c for c in df.columns if c.startswith("score")] == ["score0", "score1", "score2"]
    assert "scores" not in df.columns
    for seat in range(3):
        assert np.array_equal(df[f"score{seat}"].to_numpy(), rows["scores"][:, seat])
    for name in DEAL_DTYPE.names:
        if rows[name].ndim == 2:            # every per-seat field splits the same way
            assert name not in df.columns
            for seat in range(3):
                assert np.array_equal(df[f"{name[:-1]}{seat}"].to_numpy(),
                                      rows[name][:, seat])
        else:
            assert np.array_equal(df[name].to_numpy(), rows[name])
    assert df["seed"].dtype == np.uint64
    assert len(rows_to_frame(rows[:0])) == 0


def test_rows_to_frame_rejects_other_arrays():
    pytest.importorskip("pandas")
    with pytest.raises(TypeError, match="DEAL_DTYPE"):
        rows_to_frame(np.zeros(3))


def test_missing_pandas_or_matplotlib_name_the_extra(monkeypatch, rows, tmp_path):
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match=r"pip install 'ddzfast\[pandas\]'"):
        rows_to_frame(rows)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(ImportError, match=r"pip install 'ddzfast\[plot\]'"):
        plot_rows(rows, str(tmp_path / "x.png"))


def test_pandas_or_matplotlib_failing_to_import_is_not_called_missing(monkeypatch, rows,
                                                                     tmp_path):
    """An installed pandas or matplotlib that fails its own import (built for
    another numpy, say) was reported as missing, naming the extra that had
    installed it: the error says it failed to import, and why."""
    for name in ("pandas", "matplotlib"):
        failing_import(monkeypatch, name, ImportError(f"{name} is built for another numpy"))
    with pytest.raises(ImportError, match="rows_to_frame needs pandas, which is installed "
                                          "but failed to import: pandas is built for "
                                          "another numpy"):
        rows_to_frame(rows)
    with pytest.raises(ImportError, match="plot_rows needs matplotlib, which is installed "
                                          "but failed to import: matplotlib is built for"):
        plot_rows(rows, str(tmp_path / "x.png"))


def test_wilson_interval_known_values():
    # Wilson 95% for 81/263 (a textbook example): 0.2553 .. 0.3662
    lo, hi = wilson_interval(81, 263)
    assert abs(lo - 0.2553) < 5e-4 and abs(hi - 0.3662) < 5e-4
    assert wilson_interval(0, 10)[0] == 0.0 and math.isclose(wilson_interval(10, 10)[1], 1.0)
    assert wilson_interval(0, 0) is None
    assert mean_interval(1.0, 1.0, 1) is None


def test_intervals_refuse_bad_counts_with_value_error():
    """wilson_interval(1, 10**400) and mean_interval(1., 1., 10**400) raised
    OverflowError (an int beyond a float); wilson_interval(5, 2) and (-1, 2)
    'math domain error'; a negative n gave None as if there were no
    trials."""
    for call in (lambda: wilson_interval(1, 10**400),
                 lambda: wilson_interval(10**400, 10**401),
                 lambda: mean_interval(1.0, 1.0, 10**400),
                 lambda: mean_interval(10**400, 1.0, 5)):
        with pytest.raises(ValueError, match="out of range"):
            call()
    for successes in (5, -1, 2.5):
        with pytest.raises(ValueError, match=r"successes must be in 0\.\.n \(2 trials\)"):
            wilson_interval(successes, 2)
    with pytest.raises(ValueError, match="must not be negative"):
        wilson_interval(0, -3)
    with pytest.raises(ValueError, match="must not be negative"):
        mean_interval(0.0, 0.0, -3)
    with pytest.raises(ValueError, match="z"):
        wilson_interval(1, 2, z=0)
    with pytest.raises(ValueError, match="finite"):
        mean_interval(float("nan"), 1.0, 5)
    with pytest.raises(TypeError, match="n must be a number"):
        wilson_interval(1, "2")
    with pytest.raises(TypeError, match="successes must be a number"):
        wilson_interval(True, 2)
    # large counts within a float's range still give an interval (4 * n * n
    # of an int n of 10**200 is beyond a float: computed as floats)
    lo, hi = wilson_interval(10**200, 2 * 10**200)
    assert lo == hi == 0.5
    assert wilson_interval(np.int64(81), np.int64(263)) == wilson_interval(81, 263)


def test_summarize_matches_a_direct_computation(rows):
    s = summarize(rows, POLICIES)
    json.dumps(s)                              # plain data, JSON as it is
    n = len(rows)
    assert s["deals"] == n and s["policies"] == list(POLICIES)
    landlord_wins = int((rows["winner"] == 0).sum())
    assert s["landlord"]["wins"] == landlord_wins
    assert s["landlord"]["win_rate_ci95"] == list(wilson_interval(landlord_wins, n))
    for seat in range(3):
        won = np.where(rows["landlord"] == seat, rows["winner"] == 0, rows["winner"] == 1)
        info = s["seats"][seat]
        assert info["policy"] == POLICIES[seat]
        assert info["wins"] == int(won.sum())
        lo, hi = info["win_rate_ci95"]
        assert lo < info["win_rate"] < hi
        scores = rows["scores"][:, seat]
        assert math.isclose(info["mean_score"], scores.mean())
        half = 1.959963984540054 * scores.std(ddof=1) / math.sqrt(n)
        assert math.isclose(info["mean_score_ci95"][0], scores.mean() - half, rel_tol=1e-9)
        assert math.isclose(info["mean_score_ci95"][1], scores.mean() + half, rel_tol=1e-9)
        assert info["landlord_deals"] == int((rows["landlord"] == seat).sum())
    # the seats' win counts: the landlord's side wins 1 seat, the farmers 2
    assert sum(x["wins"] for x in s["seats"]) == landlord_wins + 2 * (n - landlord_wins)
    greedy = s["by_policy"]["greedy"]
    assert greedy["seats"] == [1, 2] and greedy["win_rate_interval"] == "normal"
    expect = (s["seats"][1]["wins"] + s["seats"][2]["wins"]) / (2 * n)
    assert math.isclose(greedy["win_rate"], expect)
    random_ = s["by_policy"]["random"]
    assert random_["win_rate_interval"] == "wilson"
    assert random_["win_rate_ci95"] == s["seats"][0]["win_rate_ci95"]
    assert math.isclose(s["multiplier_mean"], rows["multiplier"].mean())
    assert s["multiplier_max"] == rows["multiplier"].max()


def test_tally_in_chunks_equals_all_at_once(rows):
    t = Tally(POLICIES)
    for part in np.array_split(rows, 7):
        t.add(part)
    whole = summarize(rows, "random,greedy,greedy")
    chunked = t.summary()
    assert chunked["seats"][0]["wins"] == whole["seats"][0]["wins"]
    for key in ("landlord", "multiplier_max", "deals"):
        assert chunked[key] == whole[key]
    for a, b in zip(chunked["seats"], whole["seats"]):
        assert math.isclose(a["mean_score"], b["mean_score"])


@pytest.mark.parametrize("field, value", [("landlord", 5), ("landlord", -1),
                                          ("winner", 2), ("winner", -1)])
def test_tally_checks_every_row_before_counting_any(rows, field, value):
    """Tally().add with a row's landlord set to 5 raised IndexError after
    counting the rows in (tally.deals grew); landlord -1 was counted
    silently (as seat 2's stake). Now ValueError naming the row, and the
    tally is as it was."""
    tally = Tally(POLICIES).add(rows[:50])
    before = tally.summary()
    bad = rows[50:60].copy()
    bad[field][3] = value
    with pytest.raises(ValueError, match=rf"rows\[3\]\['{field}'\] is {value}"):
        tally.add(bad)
    assert tally.deals == 50 and tally.summary() == before
    with pytest.raises(ValueError, match=field):
        summarize(bad)


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf, 1e200])
def test_tally_refuses_scores_that_are_not_finite(rows, value):
    """Regression (the extras review of 2026-12-06): a NaN or infinite
    score (or one whose square is) was counted in, and the tally's summary
    failed for good, naming an internal parameter ("total must be
    finite"). The rows are refused first, naming the row."""
    tally = Tally(POLICIES).add(rows[:50])
    before = tally.summary()
    bad = rows[50:60].copy()
    bad["scores"][3, 1] = value
    with pytest.raises(ValueError, match=r"rows\[3\]\['scores'\] is .*not the finite scores"):
        tally.add(bad)
    assert tally.deals == 50 and tally.summary() == before
    with pytest.raises(ValueError, match=r"rows\[3\]\['scores'\]"):
        summarize(bad)


def test_tally_reads_policy_text_as_summarize_does(rows):
    """Regression (an input review): Tally("random,greedy,greedy") was
    refused as 20 policies and Tally("rgx") taken as three, one a letter;
    Tally([1, 2, 3]) made labels of ints. Text is split at commas, one
    label stands for all three seats, and a label is text."""
    text = Tally("random, greedy,greedy").add(rows).summary()
    assert text == Tally(list(POLICIES)).add(rows).summary()
    assert Tally("expert").policies == ["expert"] * 3
    for bad, error, message in [("rgx,y", ValueError, "three policies"),
                                (["a", "b"], ValueError, "three policies"),
                                ([1, 2, 3], TypeError, "a policy label is text"),
                                (b"random", TypeError, "decode bytes"),
                                (5, TypeError, "text or a sequence")]:
        with pytest.raises(error, match=message):
            Tally(bad)


@pytest.mark.parametrize("bad", [None, "random", 3])
def test_policy_labels_refuses_what_is_no_sequence_of_policies(bad):
    with pytest.raises(TypeError, match="sequence of names and callables"):
        policy_labels(bad)


def test_summarize_no_deals_has_no_rates():
    s = summarize(np.zeros(0, dtype=DEAL_DTYPE), POLICIES)
    assert s["deals"] == 0
    assert s["landlord"]["win_rate"] is None and s["landlord"]["win_rate_ci95"] is None
    assert all(x["mean_score"] is None and x["win_rate_ci95"] is None for x in s["seats"])
    json.dumps(s)
    without = summarize(np.zeros(0, dtype=DEAL_DTYPE))
    assert without["by_policy"] == {} and without["seats"][0]["policy"] is None


def test_plot_rows_writes_a_png(rows, tmp_path):
    pytest.importorskip("matplotlib")
    path = tmp_path / "deals.png"
    plot_rows(rows, str(path))
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10000
    with pytest.raises(ValueError, match="no deals"):
        plot_rows(rows[:0], str(tmp_path / "none.png"))


def test_one_bound_method_in_two_seats_is_one_policy():
    """Regression (review of simulate, 2026-12-07): each read of `bot.act`
    makes a new method object, so one bot's method in seats 0 and 2 was
    two policies (Bot.act#1, Bot.act#2), each with a seat's interval; one
    function of one instance is one policy. Two instances stay two."""
    class Bot:
        def act(self, game, legal):
            return 0
    from ddzfast.simulate import policy_name
    bot, other = Bot(), Bot()
    name = policy_name(bot.act)
    assert name.endswith("Bot.act")
    assert policy_labels((bot.act, "random", bot.act)) == [name, "random", name]
    assert policy_labels((bot.act, other.act, "random")) == [f"{name}#1", f"{name}#2",
                                                              "random"]
    policies = (bot.act, "random", bot.act)
    summary = summarize(simulate(30, "classic", policies, seed=1), policies)
    assert sorted(summary["by_policy"]) == sorted([name, "random"])


def test_plot_rows_writes_a_png_whatever_the_extension(rows, tmp_path):
    """Regression (review of the command line, 2026-12-07): plot_rows, which
    says it saves a PNG, wrote a JPEG to "x.jpg" (matplotlib reads the
    format off the extension), and a path of 5 was an AttributeError from
    inside matplotlib after the figure was drawn."""
    pytest.importorskip("matplotlib")
    path = tmp_path / "plot.jpg"
    plot_rows(rows, str(path))
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(TypeError, match="path must be a file name"):
        plot_rows(rows, 5)


def test_plot_rows_leaves_matplotlibs_backend_and_figures_alone(run_python, tmp_path):
    """Regression (the extras review of 2026-12-06): plot_rows switched the
    caller's backend to Agg for the rest of the process (a notebook's or a
    GUI's plots then showed nothing). It draws apart from pyplot."""
    pytest.importorskip("matplotlib")
    code = f"""
import matplotlib
matplotlib.use("svg")
import matplotlib.pyplot as plt
import ddzfast
from ddzfast.report import plot_rows
plt.figure()
plot_rows(ddzfast.simulate(20, seed=1), {str(tmp_path / "p.png")!r})
print(matplotlib.get_backend(), plt.get_fignums())
"""
    result = run_python(code=code, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["svg", "[1]"]
    assert (tmp_path / "p.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_multiplier_mean_does_not_wrap():
    """Regression (a user's review): the multiplier column was summed in
    int64, which wraps past 2**63: two saturated multipliers read a negative
    mean."""
    rows = np.zeros(3, DEAL_DTYPE)
    rows["multiplier"] = 2 ** 63 - 1
    summary = summarize(rows)
    assert summary["multiplier_mean"] == float(2 ** 63 - 1)
    assert summary["multiplier_max"] == 2 ** 63 - 1


def test_callables_of_one_name_are_told_apart():
    """Regression (a user's review): two closures of one factory share a
    __qualname__, and summarize pooled their seats into one policy."""
    def make_agent(k):
        def policy(game, legal):
            return min(k, len(legal) - 1)
        return policy
    a, b = make_agent(0), make_agent(5)
    rows = simulate(40, "classic", (a, b, "greedy"), seed=1)
    by = summarize(rows, (a, b, "greedy"))["by_policy"]
    name = "test_callables_of_one_name_are_told_apart.<locals>.make_agent.<locals>.policy"
    assert by[f"{name}#1"]["seats"] == [0] and by[f"{name}#2"]["seats"] == [1]
    assert summarize(rows, (a, a, "greedy"))["by_policy"][name]["seats"] == [0, 1]


def test_mean_interval_refuses_sums_no_values_have():
    """Regression (a user's review): a sum of squares below what the sum
    needs was read as a variance of 0, a zero-width interval."""
    with pytest.raises(ValueError, match="not their sum of squares"):
        mean_interval(10, 1, 3)
    values = np.array([0.1, 0.2, 0.3])
    low, high = mean_interval(values.sum(), (values ** 2).sum(), 3)
    assert low < 0.2 < high
    assert mean_interval(3.0, 3.0, 3) == (1.0, 1.0)      # equal values: exact


def test_a_folder_named_as_an_extra_is_not_the_extra(tmp_path, monkeypatch):
    """Regression (a user's review): run from /tmp, where Ray leaves its
    folder /tmp/ray, `import ray` found that folder (an empty namespace
    package) and the Ray backend failed with an AttributeError instead of
    saying what to install."""
    from ddzfast.constants import import_optional
    (tmp_path / "nopkg_folder").mkdir()
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ImportError, match=r"is a folder .* pip install 'ddzfast\[ray\]'"):
        import_optional("nopkg_folder", "ray", "the test")
    assert import_optional("json", "x", "the test").__name__ == "json"
