"""Instruction counts of the core's hot paths under callgrind, for comparing
two builds exactly on a noisy machine.

    python scripts/callgrind_core.py                 # the build on sys.path
    python scripts/callgrind_core.py --against DIR   # and the package in DIR

Each case runs in a fresh ``valgrind --tool=callgrind`` process that counts
only inside one function (``--toggle-collect``), so imports and set-up are
not counted:

* lead-classic-20 / follow-classic-20: ``legal_moves_into`` (the Python
  entry point and the generator) on 256 seeded 20-card classic hands,
  leading, then following a seeded legal lead of another hand;
* lead-laizi-K / lead-tiandi-K: ``legal_moves_into`` on 256 seeded 20-card
  leads holding K laizi (laizi: K of one wild rank; tiandi: K split between
  the two wild ranks at random, at most four of each), the wild ranks drawn
  per hand, rule sets passed as Rules objects;
* pair-laizi-K / pair-tiandi-K: the same on 256 seeded pairs of 20-card
  leads with the same natural cards (from the ranks other than two wild
  ranks T and G drawn per pair): laizi's holding K laizi of T, tiandi's K
  split between T and G at random (as ``benchmarks/laizi_moves.py``
  pairs them), so that the two rule sets' counts differ by their laizi
  only;
* follow-laizi-2 / follow-tiandi-2: ``legal_moves_into`` on 256 pairs of
  20-card follows holding 2 laizi, ``benchmarks/laizi_moves.py``'s paired
  positions with a last move (the same natural move in both rule sets, a
  bomb every other time the cards it comes from hold one);
* count-tiandi-2: the count with no buffer (``_core._legal_move_count``:
  ``ddz_legal_moves`` with no room) of pair-tiandi-2's leads;
* simulate-RULES: ``ddz_simulate_carry`` (the engine's run of deals) for
  2,000 deals with random policies on one thread, in each rule set, in
  slices of 16, 32, 64, ... deals (one call each);
* rollout-RULES: ``Game.rollout`` of one deal (classic, tiandi), 250 times
  with random policies and 250 with greedy ones;
* game-python-50: 50 seeded classic deals driven from Python through
  ``Game.legal_moves`` and ``Game.play`` (those two methods counted);
* solve-puzzle-7: the seventh published two-player puzzle;
* vector-self-play: ``VectorEnv.step`` (self-play, float32 observations, no
  mask) over 1,024 classic deals for 20 steps, the actions random legal ones
  chosen outside the count (divide by 20,480 for a step);
* douzero-vec: ``compat.douzero.VecEnv.step`` (its engine's ``step``) over
  256 deals for 20 steps, random legal actions (divide by 5,120 for a
  decision).

For the lead, pair and follow-RULES-2 cases the instructions per move listed
are printed too. ``--against DIR`` runs every case again with DIR (a folder
holding a built ``ddzfast`` package) and prints the ratio. The counts are
repeatable for the same binary and inputs, whatever else the machine does.
Each build is run through a link of the same length (a folder of links
made for the run, first on ``PYTHONPATH``): the lengths of the paths a
process starts with move its stack and heap, and with them the alignment
of what ``memcpy`` copies, whose instruction count depends on it.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import random
import re
import subprocess
import sys
import tempfile

DECK54 = "3456789TJQKA2" * 4 + "XD"
SIMULATE_RULES = ("classic", "biegang", "super", "laizi", "tiandi")
# moves: large enough for every lead of the lead and pair cases (a tiandi
# one can pass 80,000 moves)
LEAD_BUFFER = 1 << 17

# case name -> the functions callgrind counts inside (valgrind's wildcards)
CASES = {
    "lead-classic-20": ("__pyx_pw_*legal_moves_into",),
    "follow-classic-20": ("__pyx_pw_*legal_moves_into",),
    **{f"lead-laizi-{k}": ("__pyx_pw_*legal_moves_into",) for k in (2, 4)},
    **{f"lead-tiandi-{k}": ("__pyx_pw_*legal_moves_into",) for k in (2, 4, 8)},
    **{f"pair-{rules}-{k}": ("__pyx_pw_*legal_moves_into",)
       for k in (2, 4) for rules in ("laizi", "tiandi")},
    **{f"follow-{rules}-2": ("__pyx_pw_*legal_moves_into",) for rules in ("laizi", "tiandi")},
    "count-tiandi-2": ("__pyx_pw_*_legal_move_count",),
    **{f"simulate-{name}": ("*ddz_simulate_carry",) for name in SIMULATE_RULES},
    **{f"rollout-{name}": ("__pyx_pw_*4Game_*rollout",) for name in ("classic", "tiandi")},
    "game-python-50": ("__pyx_pw_*4Game_*legal_moves", "__pyx_pw_*4Game_*play"),
    "solve-puzzle-7": ("__pyx_pw_*_solve",),
    "vector-self-play": ("__pyx_pw_*9VectorEnv_*step",),
    "douzero-vec": ("__pyx_pw_*10DouZeroVec_*step",),
}


def wild_leads(rng: random.Random, rules: str, laizi: int) -> list:
    """256 (Rules, hand) of 20 cards holding `laizi` laizi."""
    import ddzfast
    from ddzfast import Hand

    ranks = DECK54[:13]
    out = []
    for _ in range(256):
        wild = rng.sample(ranks, 2 if rules == "tiandi" else 1)
        others = [c for c in DECK54 if c not in wild]
        rng.shuffle(others)
        a = rng.randint(max(0, laizi - 4), min(4, laizi)) if rules == "tiandi" else laizi
        hand = wild[0] * a + (wild[1] * (laizi - a) if rules == "tiandi" else "")
        out.append((ddzfast.get_rules(f"{rules}:{''.join(wild)}"),
                    int(Hand(hand + "".join(others[:20 - laizi])))))
    return out


def paired_leads(rng: random.Random, rules: str, laizi: int) -> list:
    """256 (Rules, hand) of 20 cards holding `laizi` laizi, the natural cards
    drawn as for the other rule set's (see the pair cases)."""
    import ddzfast
    from ddzfast import Hand

    ranks = DECK54[:13]
    out = []
    for _ in range(256):
        sky, ground = rng.sample(ranks, 2)
        others = [c for c in DECK54 if c not in (sky, ground)]
        rng.shuffle(others)
        a = rng.randint(max(0, laizi - 4), min(4, laizi))
        natural = "".join(others[:20 - laizi])
        if rules == "tiandi":
            out.append((ddzfast.get_rules(f"tiandi:{sky}{ground}"),
                        int(Hand(sky * a + ground * (laizi - a) + natural))))
        else:
            out.append((ddzfast.get_rules(f"laizi:{sky}"), int(Hand(sky * laizi + natural))))
    return out


def follows_of(name: str) -> list:
    """The 256 (Rules, hand, last) follows of a follow-laizi/tiandi case:
    20 cards, benchmarks/laizi_moves.py's paired positions with a last
    move, the rule set's half of each pair."""
    benchmarks = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                              "benchmarks")
    if benchmarks not in sys.path:
        sys.path.insert(0, benchmarks)
    import laizi_moves

    _, rules, laizi = name.split("-")
    pairs = laizi_moves.paired_positions(20, int(laizi), count=256, follow=True)
    return pairs[0] if rules == "laizi" else pairs[1]


def leads_of(name: str) -> list:
    """The (Rules, hand) leads of a lead-laizi/tiandi or pair case."""
    kind, rules, laizi = name.split("-")
    rng = random.Random(0)
    if kind == "pair":
        return paired_leads(rng, rules, int(laizi))
    # (the draws of the classic hands come first, as in run_case)
    for _ in range(256):
        rng.sample(DECK54, 20)
    return wild_leads(rng, rules, int(laizi))


def moves_listed(name: str) -> int | None:
    """How many moves the case lists (the lead and pair cases), else None."""
    import numpy as np

    from ddzfast import MOVE_DTYPE, legal_moves_into

    if name.startswith(("lead-laizi-", "lead-tiandi-", "pair-")):
        out = np.empty(LEAD_BUFFER, MOVE_DTYPE)
        return sum(legal_moves_into(h, None, r, out) for r, h in leads_of(name))
    if name.startswith(("follow-laizi-", "follow-tiandi-")):
        out = np.empty(LEAD_BUFFER, MOVE_DTYPE)
        return sum(legal_moves_into(h, last, r, out) for r, h, last in follows_of(name))
    return None


def run_case(name: str) -> None:
    """Run one case once (inside callgrind: only the toggled part counts)."""
    import numpy as np

    import ddzfast
    from ddzfast import MOVE_DTYPE, Hand, legal_moves, legal_moves_into

    rng = random.Random(0)
    hands = [int(Hand("".join(rng.sample(DECK54, 20)))) for _ in range(256)]
    # builds before the split have no MOVE_BUFFER; theirs was 4096
    out = np.empty(getattr(ddzfast, "MOVE_BUFFER", 4096), MOVE_DTYPE)
    if name == "lead-classic-20":
        for h in hands:
            legal_moves_into(h, None, "classic", out)
    elif name == "follow-classic-20":
        lasts = []
        for h in hands:
            leads = legal_moves(int(Hand("".join(rng.sample(DECK54, 20)))))
            lasts.append(leads[rng.randrange(len(leads))])
        for h, last in zip(hands, lasts):
            legal_moves_into(h, last, "classic", out)
    elif name.startswith(("follow-laizi-", "follow-tiandi-")):
        # (the buffer moves_listed counts them in)
        out = np.empty(LEAD_BUFFER, MOVE_DTYPE)
        for rules_obj, h, last in follows_of(name):
            legal_moves_into(h, last, rules_obj, out)
    elif name.startswith(("lead-laizi-", "lead-tiandi-", "pair-")):
        out = np.empty(LEAD_BUFFER, MOVE_DTYPE)
        for rules_obj, h in leads_of(name):
            legal_moves_into(h, None, rules_obj, out)
    elif name == "count-tiandi-2":
        for rules_obj, h in leads_of("pair-tiandi-2"):
            ddzfast._core._legal_move_count(h, None, rules_obj)
    elif name.startswith("simulate-"):
        # slices of a fixed number of deals (16, 32, 64, ...: none of them
        # ever takes the slice time): slices timed under valgrind, many
        # times slower, were a few deals each and as many as that time
        # made, and each slice (ddz_simulate call) makes its buffers again
        ddzfast._core.SLICE_SECONDS = float("inf")
        ddzfast.simulate(2000, name[len("simulate-"):], ("random",) * 3, seed=1, threads=1)
    elif name.startswith("rollout-"):
        # a Monte Carlo search's playouts: one deal played out 500 times
        game = ddzfast.Game(name[len("rollout-"):], 3, bidding=False)
        for i in range(250):
            game.rollout("random", seed=i)
            game.rollout("greedy", seed=i)
    elif name == "game-python-50":
        for i in range(50):
            game = ddzfast.Game("classic", i, bidding=False)
            while not game.done:
                legal = game.legal_moves()
                game.play(legal[rng.randrange(len(legal))])
    elif name == "solve-puzzle-7":
        from ddzfast.solve import from_puzzle_notation
        hands7 = [from_puzzle_notation(h) for h in ("Y2AK998553", "ZQQJJ0953")]
        assert ddzfast.solve(hands7).win
    elif name == "vector-self-play":
        from ddzfast.env import VectorEnv
        env = VectorEnv(1024, "classic", seed=1)
        env.reset()
        pick = np.random.default_rng(0)
        for _ in range(20):
            off = env.legal_offsets
            chosen = off[:-1] + (pick.random(1024) * np.diff(off)).astype(np.int64)
            env.step(env.legal_indices[chosen].astype(np.int32))
    elif name == "douzero-vec":
        from ddzfast.compat.douzero import VecEnv
        vec = VecEnv(256, "adp", seed=1)
        vec.reset()
        pick = np.random.default_rng(0)
        for _ in range(20):
            vec.step((pick.random(256) * vec.counts).astype(np.int64))
    else:
        raise SystemExit(f"unknown case {name!r}; cases: {', '.join(CASES)}")


def package_dir(folder: str | None) -> str:
    """The ddzfast package in `folder`, or (None) the one this process
    imports."""
    if folder is None:
        spec = importlib.util.find_spec("ddzfast")
        if spec is None or not spec.submodule_search_locations:
            raise SystemExit("ddzfast is not importable here")
        return os.path.realpath(list(spec.submodule_search_locations)[0])
    found = os.path.join(folder, "ddzfast")
    if not os.path.isfile(os.path.join(found, "__init__.py")):
        raise SystemExit(f"{folder} holds no ddzfast package")
    return os.path.realpath(found)


def link_builds(links: str, packages: list) -> list:
    """Folders links/0, links/1, ... each holding a link `ddzfast` to one of
    `packages`: paths of one length for every build."""
    folders = []
    for i, package in enumerate(packages):
        folder = os.path.join(links, str(i))
        os.mkdir(folder)
        os.symlink(package, os.path.join(folder, "ddzfast"))
        folders.append(folder)
    return folders


def count(name: str, pythonpath: str) -> int:
    """The instructions callgrind counts for case `name`, the ddzfast in
    folder `pythonpath` first on the path."""
    # a fixed hash seed: string lookups (a rule set passed by name) would
    # otherwise take a different number of probes from run to run
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", PYTHONHASHSEED="0")
    env["PYTHONPATH"] = pythonpath + os.pathsep + env.get("PYTHONPATH", "")
    with tempfile.TemporaryDirectory() as tmp:
        cmd = ["valgrind", "--tool=callgrind",
               *(f"--toggle-collect={fn}" for fn in CASES[name]),
               f"--callgrind-out-file={tmp}/out", sys.executable, __file__, "--case", name]
        done = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"{name}: valgrind failed:\n{done.stderr[-2000:]}")
        found = re.search(r"Collected : (\d+)", done.stderr)
        if not found:
            raise SystemExit(f"{name}: no count in valgrind's output:\n{done.stderr[-2000:]}")
        if int(found.group(1)) == 0:
            raise SystemExit(f"{name}: nothing counted: no call of {', '.join(CASES[name])}")
        return int(found.group(1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--case", help=argparse.SUPPRESS)
    ap.add_argument("--only", default="", help="run only cases whose name contains this")
    ap.add_argument("--against", help="a folder holding another built ddzfast package")
    args = ap.parse_args()
    if args.case:
        run_case(args.case)
        return
    names = [n for n in CASES if args.only in n]
    packages = [package_dir(None)] + ([package_dir(args.against)] if args.against else [])
    print(f"{'case':20s} {'this build':>14s} {'per move':>9s}"
          + (f" {'against':>14s} {'ratio':>7s}" if args.against else ""))
    with tempfile.TemporaryDirectory() as links:
        folders = link_builds(links, packages)
        for name in names:
            mine = count(name, folders[0])
            moves = moves_listed(name)
            line = f"{name:20s} {mine:14,d} " + (f"{mine / moves:9.2f}" if moves else " " * 9)
            if args.against:
                other = count(name, folders[1])
                line += f" {other:14,d} {mine / other:7.4f}"
            print(line, flush=True)


if __name__ == "__main__":
    main()
