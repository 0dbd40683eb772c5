"""Tiandi's share of laizi's lead moves per second, for this build and,
with ``--against DIR``, another built ddzfast package beside it in the same
process and the same turns (medians; nothing is asserted).

    PYTHONPATH=src python benchmarks/tiandi_builds.py [--against DIR]
        [--positions N] [--turns N] [--follows]

DIR is a folder holding another built ddzfast package (as for
``scripts/callgrind_core.py --against``), such as the ``src`` of a
``git worktree`` of the commit before, built in place. Two builds run in
separate processes differ by a few percent from the processes alone, which
is the size of the changes to be measured; loaded in one process and timed
turn by turn they share the machine's state.

The positions are ``laizi_moves.paired_positions`` (N pairs, default 256):
17 and 20 cards, 2 laizi with the uniform and the deal split, 4 laizi with
the uniform split; with ``--follows``, the 2-laizi pairs each after the
same natural move (``paired_positions(..., follow=True)``). Each turn
times one round of laizi's positions then one of tiandi's for each build,
the builds' order alternating from turn to turn.
Printed per set: each build's share (the median over the turns of tiandi's
moves per second over laizi's, as laizi_moves.py prints it), and this
build's round times over the other's, for laizi and for tiandi (medians of
the turns' ratios: below 1 is faster). Both builds must list as many moves
on every set, or the script stops.
"""
import argparse
import importlib
import os
import statistics
import sys
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import ddzfast  # noqa: E402
import laizi_moves  # noqa: E402

SETS = [(size, laizi, split) for size in (17, 20)
        for laizi, split in ((2, "uniform"), (2, "deal"), (4, "uniform"))]
# with --follows: the same hands, each following a natural move
FOLLOW_SETS = [(size, 2, split) for size in (17, 20) for split in ("uniform", "deal")]


def load_other(folder):
    """The ddzfast package in `folder`, imported beside this one. Its modules
    take the names `ddzfast...` in sys.modules from here on, so this build's
    positions must be made before (a lazy import inside this build would
    find the other's modules)."""
    path = Path(folder).resolve()
    if not (path / "ddzfast" / "__init__.py").is_file():
        raise SystemExit(f"--against: {folder} holds no ddzfast package")
    if (path / "ddzfast").resolve() == Path(ddzfast.__file__).resolve().parent:
        raise SystemExit(f"--against: {folder} holds this build, not another")
    for k in [k for k in sys.modules if k == "ddzfast" or k.startswith("ddzfast.")]:
        del sys.modules[k]
    sys.path.insert(0, str(path))
    try:
        other = importlib.import_module("ddzfast")
        importlib.import_module("ddzfast._core")
    finally:
        sys.path.remove(str(path))
    return other


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--against", help="a folder holding another built ddzfast package")
    ap.add_argument("--positions", type=int, default=256, help="pairs a set (default %(default)s)")
    ap.add_argument("--turns", type=int, default=101, help="turns a set (default %(default)s)")
    ap.add_argument("--follows", action="store_true",
                    help="follows of 2 laizi (the pairs' hands after a natural move) "
                         "instead of leads")
    args = ap.parse_args()
    if args.positions < 1 or args.turns < 1:
        ap.error("--positions and --turns must be at least 1")
    laizi_moves.POSITIONS = args.positions
    specs = FOLLOW_SETS if args.follows else SETS
    builds = [("this", ddzfast, [laizi_moves.paired_positions(*s, follow=args.follows)
                                 for s in specs])]
    if args.against:
        other = load_other(args.against)
        builds.append(("other", other,
                       [laizi_moves.paired_positions(*s, package=other, follow=args.follows)
                        for s in specs]))
    for name, package, _ in builds:
        print(f"{name} build: {Path(package.__file__).parent}")
    bufs = [np.empty(1 << 16, package.MOVE_DTYPE) for _, package, _ in builds]
    for i, (size, laizi, split) in enumerate(specs):
        counts = [(laizi_moves.move_count(sets[i][0], buf, package),
                   laizi_moves.move_count(sets[i][1], buf, package))
                  for (_, package, sets), buf in zip(builds, bufs)]
        if len(set(counts)) > 1:
            raise SystemExit(f"{size} cards, {laizi} laizi, {split}: the builds list "
                             f"different numbers of moves (laizi, tiandi): {counts}")
        n_laizi, n_tiandi = counts[0]
        times = [([], []) for _ in builds]
        order = list(range(len(builds)))
        for _ in range(args.turns):
            for b in order:
                _, package, sets = builds[b]
                times[b][0].append(laizi_moves.round_time(sets[i][0], bufs[b], package))
                times[b][1].append(laizi_moves.round_time(sets[i][1], bufs[b], package))
            order.reverse()
        shares = [statistics.median(laizi_moves.rate_share(n_laizi, lz, n_tiandi, t)
                                    for lz, t in zip(*tt))
                  for tt in times]
        line = (f"{size} cards, {laizi} laizi, {split + ' split':13s}"
                f"{' follows' if args.follows else ''} share this "
                f"{shares[0]:.3f}")
        if len(builds) > 1:
            lz = statistics.median(a / b for a, b in zip(times[0][0], times[1][0]))
            td = statistics.median(a / b for a, b in zip(times[0][1], times[1][1]))
            line += (f", other {shares[1]:.3f}; time this / other: laizi {lz:.3f}, "
                     f"tiandi {td:.3f}")
        print(line, flush=True)


if __name__ == "__main__":
    main()
