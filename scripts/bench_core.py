"""Micro-benchmarks of the C core, for before/after comparisons of a change.

    PYTHONPATH=src python scripts/bench_core.py [--repeat 7]

Prints one line per case: the median (and min) CPU time per call over
`repeat` runs of about 0.3 s each. The cases:

* lead-classic-20: legal_moves_into on 256 seeded 20-card classic leads (the
  demo's measure());
* lead-super-21: the same for 21-card super hands holding W;
* check-rows: Move construction from MOVE_DTYPE rows through beats(), which
  runs ddz_check on both rows (a Move object caches its check, a row does not);
* classify: classify() of every legal lead of a few hands;
* game-play: whole deals driven through Game.play (ddz_check per move);
* simulate: ddzfast.simulate of 2000 deals with random policies, 1 thread;
* with numba installed, the C functions from jitted loops (no Python in the
  loop): ddz_legal_moves on the two lead sets, ddz_check on every lead move
  of 32 super hands, ddz_classify on their cards.

Compare two builds by running the script with each on PYTHONPATH, ideally
interleaved, on an otherwise idle machine: timings on a shared machine vary.
"""
from __future__ import annotations

import argparse
import random
import statistics
import time

import numpy as np

import ddzfast
from ddzfast import MOVE_DTYPE, Hand, legal_moves_into

DECK54 = "3456789TJQKA2" * 4 + "XD"


def _timed(fn, calls: int, repeat: int) -> tuple[float, float]:
    """Median and minimum seconds per call of fn() (which makes `calls` calls)."""
    fn()  # warm up
    per_call = []
    for _ in range(repeat):
        n = 0
        # CPU time of this process: less disturbed by other processes
        start = time.process_time()
        while True:
            fn()
            n += 1
            elapsed = time.process_time() - start
            if elapsed > 0.3:
                break
        per_call.append(elapsed / (n * calls))
    return statistics.median(per_call), min(per_call)


def cases():
    rng = random.Random(0)
    out = np.empty(ddzfast.MOVE_BUFFER, MOVE_DTYPE)

    hands20 = [int(Hand("".join(rng.sample(DECK54, 20)))) for _ in range(256)]

    def lead_classic():
        for h in hands20:
            legal_moves_into(h, None, "classic", out)
    yield "lead-classic-20", lead_classic, len(hands20)

    hands21 = [int(Hand("".join(rng.sample(DECK54, 20)) + "W")) for _ in range(256)]

    def lead_super():
        for h in hands21:
            legal_moves_into(h, None, "super", out)
    yield "lead-super-21", lead_super, len(hands21)

    rows = []
    for h in hands21[:16]:
        rows.extend(ddzfast.legal_moves(h, None, "super").array)
    rows = [r for r in rows if r["kind"] != 0][:2000]
    pairs = list(zip(rows, rows[1:] + rows[:1]))
    beats = ddzfast.beats

    def check_rows():
        for a, b in pairs:
            beats(a, b, "super")
    yield "check-rows(beats)", check_rows, 2 * len(pairs)

    sets = [ddzfast.Move(m.kind, m.rank, m.length, int(m.cards)).cards
            for m in list(ddzfast.legal_moves(hands21[0], None, "biegang"))[:2000]]
    classify = ddzfast.classify

    def classify_all():
        for c in sets:
            classify(c, "biegang")
    yield "classify", classify_all, len(sets)

    def game_play():
        r = random.Random(1)
        for i in range(20):
            game = ddzfast.Game("classic", i, bidding=False)
            while not game.done:
                legal = game.legal_moves()
                game.play(legal[r.randrange(len(legal))])
    yield "game-play(20deals)", game_play, 20

    def simulate():
        ddzfast.simulate(2000, "biegang", ("random",) * 3, seed=1, threads=1)
    yield "simulate(2000deals)", simulate, 2000

    try:
        yield from _numba_cases(hands21)
    except ImportError:
        pass


def _numba_cases(hands21):
    """ddz_check and ddz_classify called from jitted loops: the C cost alone."""
    import numba

    from ddzfast import numba as dn

    check, classify, legal = dn._c_check, dn._c_classify, dn._c_legal_moves
    rules = dn.rules_handle("super")
    arr = np.concatenate([ddzfast.legal_moves(h, None, "super").array
                          for h in hands21[:32]])
    arr = arr[arr["kind"] != 0]
    kinds = arr["kind"].astype(np.int64)
    ranks = arr["rank"].astype(np.int64)
    lengths = arr["length"].astype(np.int64)
    cards = arr["cards"].copy()
    out = np.empty(285, MOVE_DTYPE)

    @numba.njit
    def check_all(rules, kinds, ranks, lengths, cards):
        s = 0
        for i in range(kinds.shape[0]):
            s += check(rules, kinds[i], ranks[i], lengths[i], cards[i])
        return s

    @numba.njit
    def classify_all(rules, cards, out):
        s = 0
        p = out.ctypes.data
        for i in range(cards.shape[0]):
            s += classify(rules, cards[i], p, 285)
        return s

    @numba.njit
    def leads(rules, hands, out):
        s = 0
        p = out.ctypes.data
        for i in range(hands.shape[0]):
            s += legal(rules, hands[i], 0, p, out.shape[0])
        return s

    big = np.empty(ddzfast.MOVE_BUFFER, MOVE_DTYPE)
    rng = random.Random(0)
    h20 = np.array([int(Hand("".join(rng.sample(DECK54, 20)))) for _ in range(256)],
                   dtype=np.uint64)
    h21 = np.array(hands21, dtype=np.uint64)
    classic = dn.rules_handle("classic")
    yield "lead-classic-20(C)", lambda: leads(classic, h20, big), len(h20)
    yield "lead-super-21(C)", lambda: leads(rules, h21, big), len(h21)
    yield "ddz_check(C)", lambda: check_all(rules, kinds, ranks, lengths, cards), len(kinds)
    yield "ddz_classify(C)", lambda: classify_all(rules, cards, out), len(cards)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--only", default="", help="run only cases whose name contains this")
    args = ap.parse_args()
    print(f"# ddzfast from {ddzfast.__file__}")
    for name, fn, calls in cases():
        if args.only and args.only not in name:
            continue
        med, best = _timed(fn, calls, args.repeat)
        print(f"{name:22s} median {med * 1e9:10.1f} ns/call   min {best * 1e9:10.1f} ns/call")


if __name__ == "__main__":
    main()
