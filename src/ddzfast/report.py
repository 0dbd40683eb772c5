"""Simulation rows for data work: a pandas DataFrame, a summary with
confidence intervals (plain dicts, JSON-serialisable), and a plot.

``rows`` is what ``simulate`` returns (a ``DEAL_DTYPE`` array). pandas and
matplotlib are optional: ``pip install 'ddzfast[pandas]'`` /
``'ddzfast[plot]'`` (or ``'ddzfast[all]'``); a function that needs one raises
ImportError saying so.

Intervals are 95%:

* a rate (a seat's, a policy's or the landlord's win rate) has the Wilson
  score interval of a binomial proportion;
* a mean score has the normal approximation ``mean +- 1.96 * sd / sqrt(n)``
  (``sd`` the sample standard deviation over deals);
* a policy that holds two or three seats of a deal wins or loses them
  together (two farmers), so its seats are not independent trials: its win
  rate is the mean over deals of the share of its seats that won, with the
  normal-approximation interval over deals (Wilson when it holds one seat).

``Tally`` accumulates rows chunk by chunk (the command line streams with it),
so a summary or a plot never needs every row in memory.
"""
from __future__ import annotations

import collections.abc
import math
import os
from collections import Counter
from typing import Sequence

import numpy as np

from ddzfast._engine import DEAL_DTYPE
from ddzfast.constants import check_finite, check_positive, import_optional, split_policies

__all__ = ["rows_to_frame", "summarize", "plot_rows", "Tally", "wilson_interval",
           "mean_interval", "policy_labels", "Z95"]

#: The normal quantile of a two-sided 95% interval.
Z95 = 1.959963984540054


def _check_rows(rows) -> np.ndarray:
    rows = np.asarray(rows)
    if rows.dtype != DEAL_DTYPE or rows.ndim != 1:
        raise TypeError(f"rows must be a one-dimensional DEAL_DTYPE array (what simulate "
                        f"returns), not {rows.dtype} of shape {rows.shape}")
    return rows


def row_columns(rows) -> dict[str, np.ndarray]:
    """Simulation rows as flat, contiguous columns: one per field, and each
    per-seat field of shape (N, 3) (``scores``, ``doubles``, ``stakes``) as
    three, ``score0``..``score2``, ``double0``.., ``stake0``..: what
    ``rows_to_frame`` and ``ddzfast simulate --out FILE.parquet`` hold."""
    columns: dict[str, np.ndarray] = {}
    for name in rows.dtype.names or ():
        col = rows[name]
        if col.ndim == 2:
            for seat in range(col.shape[1]):
                columns[f"{name[:-1]}{seat}"] = np.ascontiguousarray(col[:, seat])
        else:
            columns[name] = np.ascontiguousarray(col)
    return columns


def rows_to_frame(rows):
    """A pandas DataFrame of simulation rows: one column per field, each
    per-seat field split in three (``row_columns``: ``scores`` as
    ``score0``, ``score1``, ``score2``)."""
    pd = import_optional("pandas", "pandas", "rows_to_frame")
    rows = _check_rows(rows)
    return pd.DataFrame({k: v.copy() for k, v in row_columns(rows).items()})


def wilson_interval(successes: int, n: int, z: float = Z95) -> tuple[float, float] | None:
    """The Wilson score interval of a proportion (95% by default); None when
    there are no trials. ValueError unless ``0 <= successes <= n``, every
    argument is within a float's finite range and ``z`` is positive
    (TypeError for a non-number)."""
    # as floats: 4 * n * n of an int n near a float's limit is beyond it
    k = check_finite(successes, "successes")
    t = check_finite(n, "n")
    zf = check_positive(z, "z")
    if t < 0:
        raise ValueError(f"n (the number of trials) must not be negative, not {n}")
    if not 0 <= k <= t:
        raise ValueError(f"successes must be in 0..n ({n} trials), not {successes}")
    if t == 0:
        return None
    p = k / t
    denom = 1 + zf * zf / t
    centre = (p + zf * zf / (2 * t)) / denom
    half = zf * math.sqrt(p * (1 - p) / t + zf * zf / (4 * t * t)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def mean_interval(total: float, total_sq: float, n: int,
                  z: float = Z95) -> tuple[float, float] | None:
    """The normal-approximation interval ``mean +- z * sd / sqrt(n)`` from a
    sum and a sum of squares; None with fewer than two values. ValueError
    for a negative ``n``, a ``z`` not positive, an argument beyond a
    float's finite range, or a ``total_sq`` below ``total**2 / n`` (no
    values have those sums); TypeError for a non-number."""
    s = check_finite(total, "total")
    sq = check_finite(total_sq, "total_sq")
    t = check_finite(n, "n")
    zf = check_positive(z, "z")
    if t < 0:
        raise ValueError(f"n (the number of values) must not be negative, not {n}")
    if t < 2:
        return None
    mean = s / t
    spread = sq - t * mean * mean
    if spread < -1e-9 * max(1.0, abs(sq)):
        # (rounding makes it slightly negative at most)
        raise ValueError(f"total_sq ({total_sq}) is below what {n} values summing to "
                         f"{total} have at least ({t * mean * mean}): not their sum "
                         f"of squares")
    var = max(0.0, spread / (t - 1))
    half = zf * math.sqrt(var / t)
    return (mean - half, mean + half)


def _seat_wins(rows: np.ndarray) -> np.ndarray:
    """(N, 3) bool: which seats won each deal."""
    landlord_won = rows["winner"] == 0
    is_landlord = rows["landlord"][:, None] == np.arange(3)[None, :]
    return is_landlord == landlord_won[:, None]


class Tally:
    """Running totals of simulation rows, added chunk by chunk; ``summary()``
    and ``plot_rows`` read them. Memory does not grow with the rows (scores
    are kept as a count per distinct value)."""

    def __init__(self, policies: str | Sequence[str] | None = None):
        """``policies``: the seats' policy labels, as text ("random,greedy,greedy",
        or one label for all three seats) or a sequence of three (the labels
        ``policy_labels`` makes); None when the rows' policies are unknown."""
        self.policies: list[str | None] = ([None] * 3 if policies is None
                                           else list(_three_labels(policies)))
        self.deals = 0
        self.landlord_wins = 0
        self.seat_wins = [0, 0, 0]
        self.seat_landlord = [0, 0, 0]
        self.score_sum = [0.0, 0.0, 0.0]
        self.score_sq = [0.0, 0.0, 0.0]
        self.score_counts: list[Counter] = [Counter(), Counter(), Counter()]
        self.multiplier_sum = 0
        self.multiplier_max = 0
        self.bombs = 0
        self.springs = 0
        self.anti_springs = 0
        self.moves = 0
        # platform play (RULES.md 10)
        self.rob_deals = 0
        self.robs = 0
        self.show_deals = 0
        self.doubles = 0
        self.redeals = 0
        self.stake_sum = 0.0
        names = ([] if policies is None
                 else sorted(set(self.policies), key=self.policies.index))
        # per policy: sum and sum of squares over deals of the share of its
        # seats that won, and of its seats' mean score
        self._policy = {p: [0.0, 0.0, 0.0, 0.0] for p in names}

    def add(self, rows) -> "Tally":
        """Count these rows in; returns self. Rows whose ``landlord`` is no
        seat (0..2), whose ``winner`` is neither 0 nor 1 or whose ``scores``
        are not finite (NaN, infinite, or so large that their squares are)
        are a ValueError, and the tally is left as it was."""
        rows = _check_rows(rows)
        n = len(rows)
        if n == 0:
            return self
        for field, top, what in (("landlord", 2, "a seat"), ("winner", 1, "0 or 1")):
            bad = np.flatnonzero((rows[field] < 0) | (rows[field] > top))
            if len(bad):
                i = int(bad[0])
                raise ValueError(f"rows[{i}][{field!r}] is {int(rows[field][i])}, not "
                                 f"{what} (0..{top}): not a row of simulate")
        with np.errstate(over="ignore", invalid="ignore"):
            finite = np.isfinite(np.square(rows["scores"].astype(np.float64))).all(axis=1)
        bad = np.flatnonzero(~finite)
        if len(bad):
            i = int(bad[0])
            raise ValueError(f"rows[{i}]['scores'] is {rows['scores'][i].tolist()}: not the "
                             f"finite scores of a deal (their squares are summed too): "
                             f"not a row of simulate")
        self.deals += n
        wins = _seat_wins(rows)
        scores = rows["scores"]
        self.landlord_wins += int((rows["winner"] == 0).sum())
        for seat in range(3):
            self.seat_wins[seat] += int(wins[:, seat].sum())
            self.seat_landlord[seat] += int((rows["landlord"] == seat).sum())
            col = scores[:, seat]
            self.score_sum[seat] += float(col.sum())
            self.score_sq[seat] += float(np.square(col).sum())
            values, counts = np.unique(col, return_counts=True)
            self.score_counts[seat].update(dict(zip(values.tolist(), counts.tolist())))
        mult = rows["multiplier"]
        # summed in two halves: int64 sums wrap past 2**63, which one
        # saturated multiplier (2**63 - 1) reaches alone
        mult = mult.astype(np.int64, copy=False)
        self.multiplier_sum += (int((mult >> 32).sum()) << 32) + int((mult & 0xFFFFFFFF).sum())
        self.multiplier_max = max(self.multiplier_max, int(mult.max()))
        self.bombs += int(rows["bombs"].sum())
        self.springs += int(rows["spring"].sum())
        self.anti_springs += int(rows["anti_spring"].sum())
        self.moves += int(rows["moves"].sum())
        self.rob_deals += int((rows["robs"] > 0).sum())
        self.robs += int(rows["robs"].sum())
        self.show_deals += int((rows["shown"] != 0).sum())
        self.doubles += int((rows["doubles"] > 1).sum())
        self.redeals += int(rows["redeals"].sum())
        ll = rows["landlord"].astype(np.int64)
        farmers = rows["stakes"].sum(axis=1) - rows["stakes"][np.arange(n), ll]
        self.stake_sum += float(farmers.sum())
        for name, acc in self._policy.items():
            seats = [s for s in range(3) if self.policies[s] == name]
            share = wins[:, seats].mean(axis=1)
            score = scores[:, seats].mean(axis=1)
            acc[0] += float(share.sum())
            acc[1] += float(np.square(share).sum())
            acc[2] += float(score.sum())
            acc[3] += float(np.square(score).sum())
        return self

    def summary(self) -> dict:
        """The summary as plain dicts and lists (see ``summarize``)."""
        n = self.deals

        def rate(k: float, trials: int) -> float | None:
            return k / trials if trials else None

        def interval(iv) -> list[float] | None:
            return None if iv is None else [iv[0], iv[1]]

        seats = []
        for s in range(3):
            seats.append({
                "seat": s,
                "policy": self.policies[s],
                "mean_score": rate(self.score_sum[s], n),
                "mean_score_ci95": interval(mean_interval(self.score_sum[s],
                                                          self.score_sq[s], n)),
                "wins": self.seat_wins[s],
                "win_rate": rate(self.seat_wins[s], n),
                "win_rate_ci95": interval(wilson_interval(self.seat_wins[s], n)),
                "landlord_deals": self.seat_landlord[s],
            })
        policies = {}
        for name, (share, share_sq, score, score_sq) in self._policy.items():
            held = [s for s in range(3) if self.policies[s] == name]
            if len(held) == 1:
                ci = wilson_interval(self.seat_wins[held[0]], n)
                method = "wilson"
            else:
                ci = mean_interval(share, share_sq, n)
                if ci is not None:
                    ci = (max(0.0, ci[0]), min(1.0, ci[1]))
                method = "normal"
            policies[name] = {
                "seats": held,
                "win_rate": share / n if n else None,
                "win_rate_ci95": interval(ci),
                "win_rate_interval": method,
                "mean_score": score / n if n else None,
                "mean_score_ci95": interval(mean_interval(score, score_sq, n)),
            }
        return {
            "deals": n,
            "policies": list(self.policies),
            "landlord": {
                "wins": self.landlord_wins,
                "win_rate": rate(self.landlord_wins, n),
                "win_rate_ci95": interval(wilson_interval(self.landlord_wins, n)),
            },
            "seats": seats,
            "by_policy": policies,
            "multiplier_mean": rate(self.multiplier_sum, n),
            "multiplier_max": self.multiplier_max if n else None,
            "bombs_per_deal": rate(self.bombs, n),
            "spring_rate": rate(self.springs, n),
            "anti_spring_rate": rate(self.anti_springs, n),
            "moves_per_deal": rate(self.moves, n),
            "rob_rate": rate(self.rob_deals, n),
            "robs_per_deal": rate(self.robs, n),
            "show_rate": rate(self.show_deals, n),
            "double_rate": rate(self.doubles, 3 * n),
            "redeals_per_deal": rate(self.redeals, n),
            "mean_stake": rate(self.stake_sum, 2 * n),
            "intervals": "95%: Wilson score interval for win rates; normal approximation "
                         "(mean +- 1.96 sd/sqrt(n)) for mean scores and for the win rate "
                         "of a policy holding several seats",
        }


def summarize(rows, policies: Sequence | None = None) -> dict:
    """A per-seat and per-policy summary of simulation rows, as plain dicts
    and lists (``json.dumps`` takes it as it is):

    * ``deals``; ``landlord``: ``wins``, ``win_rate``, ``win_rate_ci95``;
    * ``seats``: per seat its ``policy``, ``mean_score`` and
      ``mean_score_ci95``, ``wins``, ``win_rate`` and ``win_rate_ci95``,
      ``landlord_deals``;
    * ``by_policy``: per policy name (``policy_labels``: different
      callables of one name are told apart) its ``seats``, ``win_rate`` and
      ``win_rate_ci95`` (with ``win_rate_interval``: "wilson" or "normal"),
      ``mean_score`` and ``mean_score_ci95`` (per seat it holds);
    * ``multiplier_mean``, ``multiplier_max``, ``bombs_per_deal``,
      ``spring_rate``, ``anti_spring_rate``, ``moves_per_deal``;
    * platform play (RULES.md 10): ``rob_rate`` (deals with a rob),
      ``robs_per_deal``, ``show_rate`` (deals where a seat showed),
      ``double_rate`` (seats that doubled, x2 or x4, per seat and deal),
      ``redeals_per_deal`` and ``mean_stake`` (a farmer's stake).

    Rates, means and intervals are None when there are no deals. With a
    single deal the Wilson intervals of win rates are given, and the normal
    ones (``mean_score_ci95``, and ``win_rate_ci95`` where
    ``win_rate_interval`` is "normal") are None. ``policies`` names the
    seats' policies (text such as "random,greedy,greedy", or a sequence of
    names and callables, as ``simulate`` takes them); without it
    ``by_policy`` is empty and each seat's ``policy`` is None.
    """
    if policies is None:
        return Tally().add(rows).summary()
    from ddzfast.simulate import parse_policies
    return Tally(policy_labels(parse_policies(policies))).add(rows).summary()


def _three_labels(policies) -> list[str]:
    items = split_policies(
        policies, 3, "policies must be text or a sequence of three labels, not {type}",
        "three policies (one per seat), not {n}")
    for p in items:
        if not isinstance(p, str):
            raise TypeError(f"a policy label is text, not {type(p).__name__} {p!r}")
    return list(items)


def _policy_key(policy) -> object:
    """What makes two seats' policies one: a name, one object, or one
    bound method (each ``bot.act`` read makes a new method object, of
    one function and one instance)."""
    if isinstance(policy, str):
        return policy
    owner = getattr(policy, "__self__", None)
    function = getattr(policy, "__func__", None)
    if owner is not None and function is not None:
        return ("method", id(owner), id(function))
    return id(policy)


def policy_labels(policies: Sequence) -> list[str]:
    """One label per seat for its policy (``policies``: a sequence of names
    and callables, one per seat, as ``parse_policies`` gives them): the name
    (``policy_name``), and ``name#k`` (k = 1, 2, ... in seat order) where
    different callables share a name (two closures of one factory, two
    lambdas), so that a summary never pools them; one object in several
    seats keeps one label, and so does one method of one instance (each
    ``bot.act`` read is a new method object)."""
    from ddzfast.simulate import policy_name
    if isinstance(policies, (str, bytes)) or not isinstance(policies, collections.abc.Sequence):
        raise TypeError(f"policies must be a sequence of names and callables (one "
                        f"per seat), not {type(policies).__name__}")
    keys = [_policy_key(p) for p in policies]
    names = [policy_name(p) for p in policies]
    labels = []
    for s, name in enumerate(names):
        kinds = list(dict.fromkeys(k for k, n in zip(keys, names) if n == name))
        labels.append(name if len(kinds) == 1 else f"{name}#{kinds.index(keys[s]) + 1}")
    return labels


def plot_rows(rows: "np.ndarray | Tally", path: "str | os.PathLike[str]",
              title: str | None = None) -> None:
    """Save a PNG (matplotlib's Agg canvas) of the score distribution per
    seat and the win rates (landlord side, each seat) with their 95% Wilson
    intervals, at ``path`` (a PNG whatever its extension). ``rows``:
    simulation rows or a ``Tally`` of them. The figure is drawn apart from
    pyplot: matplotlib's backend and pyplot's figures are left as they
    were."""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a file name (str or os.PathLike), not "
                        f"{type(path).__name__}")
    import_optional("matplotlib", "plot", "plot_rows")
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    tally = rows if isinstance(rows, Tally) else Tally().add(rows)
    if tally.deals == 0:
        raise ValueError("there are no deals to plot")
    fig = Figure(figsize=(12, 4.8))
    FigureCanvasAgg(fig)
    left, right = fig.subplots(1, 2, gridspec_kw={"width_ratios": [2.2, 1]})
    values = sorted(set().union(*tally.score_counts))
    shown = values
    if len(values) > 24:          # keep the most frequent values legible
        total: Counter = Counter()
        for c in tally.score_counts:
            total.update(c)
        shown = sorted(v for v, _ in total.most_common(24))
    x = np.arange(len(shown))
    width = 0.27
    for seat in range(3):
        freq = [tally.score_counts[seat].get(v, 0) / tally.deals for v in shown]
        left.bar(x + (seat - 1) * width, freq, width,
                 label=f"seat {seat}" + (f" ({tally.policies[seat]})"
                                         if tally.policies[seat] else ""))
    left.set_xticks(x, [f"{v:g}" for v in shown], rotation=45 if len(shown) > 10 else 0)
    left.set_xlabel("score of the deal" + ("" if shown is values else
                                           f" (the {len(shown)} most frequent values)"))
    left.set_ylabel("share of deals")
    left.set_title("score distribution per seat")
    left.legend()
    left.grid(axis="y", alpha=0.3)

    labels = ["landlord side"] + [f"seat {s}" for s in range(3)]
    wins = [tally.landlord_wins] + tally.seat_wins
    rates = [w / tally.deals for w in wins]
    ivs = []
    for w in wins:
        iv = wilson_interval(w, tally.deals)
        assert iv is not None                 # tally.deals > 0
        ivs.append(iv)
    err = np.array([[r - iv[0] for r, iv in zip(rates, ivs)],
                    [iv[1] - r for r, iv in zip(rates, ivs)]])
    ypos = np.arange(len(labels))[::-1]
    right.errorbar(rates, ypos, xerr=err, fmt="o", capsize=6, color="C3")
    for r, iv, y in zip(rates, ivs, ypos):
        # the label on the side with room, so it never leaves the axes
        right.annotate(f"{r:.3f}  [{iv[0]:.3f}, {iv[1]:.3f}]", (r, y),
                       textcoords="offset points", xytext=(-10 if r > 0.5 else 10, 9),
                       ha="right" if r > 0.5 else "left", fontsize=8)
    right.set_yticks(ypos, labels)
    right.set_xlim(0, 1)
    right.set_ylim(-0.6, len(labels) - 0.4)
    right.axvline(0.5, color="grey", lw=0.8, ls="--")
    right.set_xlabel("win rate (95% Wilson interval)")
    right.set_title("win rates")
    right.grid(axis="x", alpha=0.3)
    named = all(tally.policies)
    fig.suptitle(title or f"{tally.deals:,} deals"
                 + (f"; policies {', '.join(map(str, tally.policies))}" if named else ""))
    fig.tight_layout()
    fig.savefig(path, dpi=110, format="png")
