"""Endgame positions for ddzfast.solve, and a report of its speed on them.

    python benchmarks/solve_puzzles.py [--repeat 7] [--rss] [--hard]

PUZZLES are the eight published two-player puzzles of issue 8 (the first
player leads; written in the puzzle notation, 0 = ten, Y = small joker,
Z = big joker), with the last one again in a rule set without TRIPLE_PAIR
(3+2), where the second player wins. HARDER are positions of our own: 12 to
15 cards a side with chains, planes and bombs, wildcard rule sets, and
three-player endgames (which no public solver handles).

For each position the report gives the median wall time of ``solve`` called
from Python over --repeat runs, the positions searched, positions per
second, the most memory the search held at once (``Solution.memory``:
table and buffers) and, with --rss, the peak resident memory of a fresh process that
imports ddzfast and solves only that position (and of one that only
imports it, for reference).
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")   # numpy's idle threads spin

import ddzfast  # noqa: E402
from ddzfast import MoveKind  # noqa: E402
from ddzfast.solve import from_puzzle_notation  # noqa: E402
from _args import at_least  # noqa: E402

NO_TRIPLE_PAIR_KINDS = [k.name for k in ddzfast.get_rules("classic").kinds
                        if k not in (MoveKind.PASS, MoveKind.TRIPLE_PAIR)]


def rules_named(name: str):
    """A rule set by the name used in the tables ("classic-no-3+2": classic
    without TRIPLE_PAIR)."""
    if name == "classic-no-3+2":
        return ddzfast.get_rules("classic").with_options(kinds=NO_TRIPLE_PAIR_KINDS)
    return ddzfast.get_rules(name)


# (name, hands in puzzle notation, rules, landlord, winning side: 0 = the
# first player / the landlord's side when it moves first)
PUZZLES = [
    ("puzzle 1", ["KK5543", "225543"], "classic", None, "first"),
    ("puzzle 2", ["ZA54333", "Y222KQ"], "classic", None, "first"),
    ("puzzle 3", ["2KK0077554", "AA8"], "classic", None, "second"),
    ("puzzle 4", ["ZKKQJ09876633", "AAKQJ0987"], "classic", None, "first"),
    ("puzzle 5", ["2AK096554", "YKJ08854"], "classic", None, "first"),
    ("puzzle 6", ["ZYAAKKQ0099", "2222JJ00"], "classic", None, "first"),
    ("puzzle 7", ["Y2AK998553", "ZQQJJ0953"], "classic", None, "first"),
    ("puzzle 8", ["ZAQQJJ0999844", "Y22AA0886633"], "classic", None, "first"),
    ("puzzle 8, no 3+2", ["ZAQQJJ0999844", "Y22AA0886633"], "classic-no-3+2", None,
     "second"),
]

# Our own harder positions (found by random deals filtered for chains,
# planes and bombs, kept when they take noticeable search).
HARDER = [
    ("classic 15 v 15, plane, bombs", ["7788999TJQQAA22", "3344555566677TJ"],
     "classic", None, None),
    ("classic 13 v 13, plane, bomb", ["345678999TTTJ", "3456QQQQKKKA2"],
     "classic", None, None),
    ("biegang 13 v 13, W", ["355689TTTJJKW", "3357889TQQKKX"], "biegang", None, None),
    ("biegang 13 v 13, W, bombs", ["336789TJJKA2D", "6678JKKKAA22W"], "biegang", None,
     None),
    ("biegang 13 v 13, W, 222", ["4678TJJKK222X", "3579QQKKAAADW"], "biegang", None,
     None),
    ("super 12 v 12, W, bomb", ["4456678TQQA2", "33467999TTDW"], "super", None, None),
    ("3 players classic 8/6/5", ["33345678", "99TJQK", "AA22X"], "classic", 0, None),
    ("3 players super 10/10/10", ["45789JQKA2", "3488999T2W", "357TTJKKA2"], "super", 0,
     None),
    ("3 players super 10/10/10 (b)", ["36789QK22D", "459TTJJJQW", "3778899TJQ"],
     "super", 0, None),
]


def hands_of(position) -> list[str]:
    return [from_puzzle_notation(h) for h in position[1]]


def solve_position(position, **kw) -> ddzfast.Solution:
    _, _, rules, landlord, _ = position
    return ddzfast.solve(hands_of(position), rules_named(rules), landlord=landlord, **kw)


def peak_rss_kib(position=None) -> int:
    """Peak resident memory (KiB) of a fresh process that imports ddzfast and
    solves `position` (None: only imports)."""
    code = ("import sys; sys.path.insert(0, %r); import solve_puzzles as s;"
            % os.path.dirname(os.path.abspath(__file__)))
    if position is not None:
        code += "s.solve_position(s.ALL[%d]);" % ALL.index(position)
    code += "print(s.own_peak_rss_kib())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    return int(out.stdout.split()[-1])


ALL = PUZZLES + HARDER


def own_peak_rss_kib() -> int:
    """This process's peak resident memory in KiB: VmHWM where /proc has it
    (ru_maxrss on Linux carries the parent's peak over fork and exec)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=at_least(1), default=7)
    ap.add_argument("--rss", action="store_true", help="measure peak RSS per position")
    ap.add_argument("--hard", action="store_true", help="include our harder positions")
    args = ap.parse_args(argv)
    positions = ALL if args.hard else PUZZLES
    base = peak_rss_kib() if args.rss else 0
    if args.rss:
        print(f"peak RSS of a process that only imports ddzfast: {base / 1024:.1f} MiB")
    print(f"| position | hands | rules | winner | median time | positions | "
          f"positions/s | table+buffers |{' peak RSS (+import) |' if args.rss else ''}")
    print(f"|---|---|---|---|---:|---:|---:|---:|{'---:|' if args.rss else ''}")
    total_nodes = total_time = 0.0
    for pos in positions:
        times = []
        for _ in range(args.repeat):
            t = time.perf_counter()
            sol = solve_position(pos)
            times.append(time.perf_counter() - t)
        med = statistics.median(times)
        if pos[4] is not None:
            assert sol.win == (pos[4] == "first"), pos
        if len(pos[1]) == 2:
            winner = "first" if sol.win else "second"
        else:
            winner = "landlord" if sol.win else "farmers"
        total_nodes += sol.nodes
        total_time += med
        rss = ""
        if args.rss:
            peak = peak_rss_kib(pos)
            rss = f" {peak / 1024:.1f} MiB ({(peak - base) / 1024:+.1f}) |"
        print(f"| {pos[0]} | {' '.join(pos[1])} | {pos[2]} | {winner} | "
              f"{med * 1000:.2f} ms | {sol.nodes:,} | {sol.nodes / med / 1e6:.2f} M | "
              f"{sol.memory / 2**20:.1f} MiB |{rss}", flush=True)
    print(f"\nall positions: {total_nodes / total_time / 1e6:.2f} M positions/s "
          f"(medians, called from Python)")


if __name__ == "__main__":
    main()
