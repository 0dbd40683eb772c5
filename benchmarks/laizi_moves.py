"""Laizi and tiandi generation and simulation speed beside classic and
biegang, measured in the same run (medians; nothing is asserted).

    PYTHONPATH=src python benchmarks/laizi_moves.py [--quick] [--positions N]

Moves: for each case, 64 seeded positions (N with --positions: more
positions, a steadier comparison between rule sets); one round calls
``legal_moves_into`` once per position into a preallocated buffer, and (the C
generator alone, without the per-call Python cost) ``legal_moves_batch`` once
over all 64 into one preallocated ``out``. Printed: microseconds per call and
million moves per second, medians of the rounds.

* classic 17/20 and biegang 17/21 (every biegang hand holds W), as in
  test_bench_moves.py;
* laizi 17/20 with 0, 1, 2 and 4 laizi: one wild rank drawn per case (shown),
  that many cards of it in each hand, the rest from the other ranks;
* tiandi 17/20 with 0, 2, 4 and 8 laizi: two wild ranks drawn per case
  (shown, sky first), the laizi split between them at random (at most four
  of each), the rest from the other ranks.

Rule sets are passed as Rules objects (no name lookup per call). Times are
the CPU time of this process (time.process_time), not wall time: on a shared
machine wall time mostly measures the other processes.

A follow position answers a move of another hand of the same deal (a kind
drawn first, then a move of it). Simulation: ``simulate`` with random
policies on one thread, deals per second, classic beside laizi and tiandi.
Last, for leads: tiandi's moves per second as a share of laizi's at the
same laizi count, from the rounds above (per call, then batch) and from
rounds timed in turns, a tiandi round then a laizi one, 101 times: the
median of each turn's ratio, which a machine's load moves far less than it
moves rounds timed apart; then the same share on paired positions (see
``paired_positions``), where the hands differ only in their laizi, so that
what the positions alone make drops out: with no laizi the pairs are the
same hand and their share reads 1.00; last, the same on paired positions
whose tiandi laizi are split between the two wild ranks as a random deal
splits them (more hands then hold laizi of both ranks).
"""
import argparse
import os
import random
import statistics
import time
from typing import NamedTuple

# numpy's BLAS threads would otherwise spin in this process and count in its
# CPU time
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import ddzfast  # noqa: E402
from ddzfast.constants import CARD_CHARS  # noqa: E402
from _args import at_least  # noqa: E402

POSITIONS = 64
RANKS = CARD_CHARS[:13]
DECK54 = RANKS * 4 + "XD"


def canonical(cards):
    return "".join(sorted(cards, key=CARD_CHARS.index))


def position(rng, rules, size, laizi, wild):
    """(rules name, hand, other hand)."""
    if rules == "biegang":
        deck = list(DECK54)
        rng.shuffle(deck)
        hand, rest = ["W"] + deck[:size - 1], deck[size - 1:]
        return "biegang", canonical(hand), canonical(rest[:17 if size == 21 else 21])
    if rules == "classic":
        deck = list(DECK54)
        rng.shuffle(deck)
        return "classic", canonical(deck[:size]), canonical(deck[size:size + (
            17 if size == 20 else 20)])
    if rules == "tiandi":
        T, G = wild
        others = [c for c in DECK54 if c not in wild]
        rng.shuffle(others)
        a = rng.randint(max(0, laizi - 4), min(4, laizi))
        hand = [T] * a + [G] * (laizi - a) + others[:size - laizi]
        rest = others[size - laizi:] + [T] * (4 - a) + [G] * (4 - laizi + a)
        rng.shuffle(rest)
        return (f"tiandi:{T}{G}", canonical(hand),
                canonical(rest[:17 if size == 20 else 20]))
    others = [c for c in DECK54 if c != wild]
    rng.shuffle(others)
    hand = [wild] * laizi + others[:size - laizi]
    rest = others[size - laizi:] + [wild] * (4 - laizi)
    rng.shuffle(rest)
    return f"laizi:{wild}", canonical(hand), canonical(rest[:17 if size == 20 else 20])


def pick_last(rng, other, rules):
    moves = [m for m in ddzfast.legal_moves(other, None, rules)]
    kind = rng.choice(sorted({int(m.kind) for m in moves}))
    return rng.choice([m for m in moves if int(m.kind) == kind])


def build(rules, size, laizi, mode):
    rng = random.Random(f"{rules}-{size}-{laizi}-{mode}")
    wild = "".join(rng.sample(RANKS, 2)) if rules == "tiandi" else rng.choice(RANKS)
    out = []
    for _ in range(POSITIONS):
        name, hand, other = position(rng, rules, size, laizi, wild)
        last = pick_last(rng, other, name) if mode == "follow" else None
        out.append((ddzfast.get_rules(name), int(ddzfast.Hand(hand)), last))
    return out, wild


def move_count(pos, buf, package=ddzfast):
    """The legal moves of all positions `pos` ((rules, hand, last) each) of
    `package` (a ddzfast module), listed into `buf`."""
    lmi = package.legal_moves_into
    return sum(lmi(h, last, rules, buf) for rules, h, last in pos)


def round_time(pos, buf, package=ddzfast):
    """The CPU time of one round of ``legal_moves_into`` calls, one per
    position of `pos`, into `buf`."""
    lmi = package.legal_moves_into
    t = time.process_time()
    for rules, h, last in pos:
        lmi(h, last, rules, buf)
    return time.process_time() - t


def measure(pos, rounds):
    buf = np.empty(1 << 16, ddzfast.MOVE_DTYPE)
    total = move_count(pos, buf)
    per_call = []
    for _ in range(rounds):
        per_call.append(round_time(pos, buf) / len(pos))
    # the batch form: positions grouped by rule set (one call per group)
    groups = {}
    for name, h, last in pos:
        groups.setdefault(name.rules_id, (name, []))[1].append((h, last))
    batches = []
    for name, items in groups.values():
        hands = np.array([h for h, _ in items], dtype=np.uint64)
        lasts = None
        if items[0][1] is not None:
            lasts = np.zeros(len(items), ddzfast.MOVE_DTYPE)
            for i, (_, m) in enumerate(items):
                lasts[i]["cards"] = int(m.cards)
                lasts[i]["kind"] = int(m.kind)
                lasts[i]["rank"] = m.rank
                lasts[i]["length"] = m.length
        batches.append((name, hands, lasts))
    # one output buffer for every round, as `buf` for the calls: the rounds
    # time the generator, not the allocation and first touch of a new array
    batch_out = np.empty(max(total, 1), ddzfast.MOVE_DTYPE)
    per_batch = []
    for _ in range(rounds):
        t = time.process_time()
        for name, hands, lasts in batches:
            ddzfast.legal_moves_batch(hands, lasts, name, out=batch_out)
        per_batch.append((time.process_time() - t) / len(pos))
    moves = total / len(pos)
    call = statistics.median(per_call)
    batch = statistics.median(per_batch)
    return moves, call, batch


def natural_last(rng, cards, rules, package=ddzfast):
    """A last move for a follow: a move of the natural `cards` (a kind drawn,
    then a move of it; a bomb every other time they hold one), read in
    `rules` (of `package`). The draws do not depend on the rule set."""
    moves = sorted(package.legal_moves(canonical(cards), None, "classic"),
                   key=lambda m: (int(m.kind), str(m)))
    bombs = [m for m in moves if m.kind in (package.MoveKind.BOMB, package.MoveKind.ROCKET)]
    if bombs and rng.random() < 0.5:
        moves = bombs
    kind = rng.choice(sorted({int(m.kind) for m in moves}))
    move = rng.choice([m for m in moves if int(m.kind) == kind])
    return next(m for m in package.classify(move.cards, rules)
                if (m.kind, m.rank, m.length) == (move.kind, move.rank, move.length))


def paired_positions(size, laizi, split="uniform", package=ddzfast, count=None, seed="",
                     follow=False):
    """`count` (default POSITIONS) pairs of leads (laizi's, tiandi's) of `size`
    cards with the same natural cards: two wild ranks T, G drawn per pair,
    the natural cards from the other ranks; laizi's hand holds `laizi` (at
    most 4) laizi of its wild rank T, tiandi's (tiandi:TG) as many split
    between T and G, at most four of each: with split "uniform" the number
    of T drawn uniformly from those possible (as in the tiandi cases above),
    with "deal" as a random deal splits them (the laizi drawn from the eight
    cards of T and G, so that with 2 laizi 16 hands in 28 hold one of each,
    against one in three). The rules and hands are those of `package` (a
    ddzfast module: another build's, for tiandi_builds.py). A `seed` draws
    other pairs (the default's are the same in every run). With `follow`,
    each pair follows the same move of 20 natural cards dealt after the
    hand's (``natural_last``, drawn from a stream of its own: the hands are
    the leads' of the same seed)."""
    if split not in ("uniform", "deal"):
        raise ValueError(f"split must be 'uniform' or 'deal', not {split!r}")
    rng = random.Random(f"paired-{size}-{laizi}" + ("" if split == "uniform" else "-deal")
                        + (f"-{seed}" if seed else ""))
    last_rng = random.Random(f"paired-last-{size}-{laizi}-{split}-{seed}")
    laizi_pos, tiandi_pos = [], []
    for _ in range(POSITIONS if count is None else count):
        T, G = rng.sample(RANKS, 2)
        others = [c for c in DECK54 if c not in (T, G)]
        rng.shuffle(others)
        if split == "uniform":
            a = rng.randint(max(0, laizi - 4), min(4, laizi))
        else:
            a = rng.sample([T] * 4 + [G] * 4, laizi).count(T)
        natural = others[:size - laizi]
        rules = (package.get_rules(f"laizi:{T}"), package.get_rules(f"tiandi:{T}{G}"))
        last = [None, None]
        if follow:
            deal = others[size - laizi:size - laizi + 20]
            state = last_rng.getstate()
            last[0] = natural_last(last_rng, deal, rules[0], package)
            last_rng.setstate(state)
            last[1] = natural_last(last_rng, deal, rules[1], package)
        laizi_pos.append((rules[0], int(package.Hand(canonical([T] * laizi + natural))),
                          last[0]))
        tiandi_pos.append((rules[1],
                           int(package.Hand(canonical([T] * a + [G] * (laizi - a) + natural))),
                           last[1]))
    return laizi_pos, tiandi_pos


class PairedRounds(NamedTuple):
    """Rounds of laizi's and tiandi's positions timed in turns: each one's
    median round time (CPU seconds) and moves a round, and the share."""
    laizi_time: float
    tiandi_time: float
    laizi_moves: int
    tiandi_moves: int
    share: float


def rate_share(laizi_moves, laizi_time, tiandi_moves, tiandi_time):
    """Tiandi's moves per second over laizi's: the share every paired
    reading prints."""
    return (tiandi_moves / tiandi_time) / (laizi_moves / laizi_time)


def paired_rounds(laizi_pos, tiandi_pos, turns, buf, warm=0):
    """`turns` turns of one per-call round of each into `buf`, tiandi first;
    the share is the median over the turns of (tiandi's moves per second) /
    (laizi's). With `warm`, that many untimed rounds of the same rule set
    come before each timed one (so that each is timed after its own code,
    not the other's)."""
    n_laizi = move_count(laizi_pos, buf)
    n_tiandi = move_count(tiandi_pos, buf)
    laizi_times, tiandi_times, shares = [], [], []
    for _ in range(turns):
        for _ in range(warm):
            round_time(tiandi_pos, buf)
        t = max(round_time(tiandi_pos, buf), 1e-9)
        for _ in range(warm):
            round_time(laizi_pos, buf)
        x = max(round_time(laizi_pos, buf), 1e-9)
        tiandi_times.append(t)
        laizi_times.append(x)
        shares.append(rate_share(n_laizi, x, n_tiandi, t))
    return PairedRounds(statistics.median(laizi_times), statistics.median(tiandi_times),
                        n_laizi, n_tiandi, statistics.median(shares))


def paired_share(laizi_pos, tiandi_pos, turns):
    """paired_rounds' share."""
    buf = np.empty(1 << 16, ddzfast.MOVE_DTYPE)
    return paired_rounds(laizi_pos, tiandi_pos, turns, buf).share


def main():
    global POSITIONS
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--positions", type=at_least(1), default=POSITIONS,
                    help="positions a case (default %(default)s)")
    args = ap.parse_args()
    POSITIONS = args.positions
    rounds = 5 if args.quick else 25
    cases = [("classic", 17, 0), ("classic", 20, 0), ("biegang", 17, 1),
             ("biegang", 21, 1)]
    cases += [("laizi", size, k) for size in (17, 20) for k in (0, 1, 2, 4)]
    cases += [("tiandi", size, k) for size in (17, 20) for k in (0, 2, 4, 8)]
    print(f"{'case':28s} {'mode':6s} {'moves/call':>10s} {'us/call':>9s} "
          f"{'Mmoves/s':>9s} {'us/call batch':>14s} {'Mmoves/s batch':>15s}")
    rates = {}
    for rules, size, k in cases:
        for mode in ("lead", "follow"):
            pos, wild = build(rules, size, k, mode)
            moves, call, batch = measure(pos, rounds)
            rates[rules, size, k, mode] = (moves / call, moves / batch)
            label = f"{rules} {size}" + (
                f" ({k} laizi, L={wild})" if rules == "laizi"
                else f" ({k} laizi, T,G={wild[0]},{wild[1]})" if rules == "tiandi" else "")
            print(f"{label:28s} {mode:6s} {moves:10.1f} {call * 1e6:9.2f} "
                  f"{moves / call / 1e6:9.1f} {batch * 1e6:14.2f} "
                  f"{moves / batch / 1e6:15.1f}", flush=True)
    turns = 21 if args.quick else 101
    for size in (17, 20):
        shares = []
        for k in (0, 2, 4):
            t, lz = rates["tiandi", size, k, "lead"], rates["laizi", size, k, "lead"]
            paired = paired_share(build("laizi", size, k, "lead")[0],
                                  build("tiandi", size, k, "lead")[0], turns)
            shares.append(f"{k} laizi {t[0] / lz[0]:.2f} ({t[1] / lz[1]:.2f}; "
                          f"in turns {paired:.2f})")
        print(f"tiandi / laizi leads, {size} cards, per call (batch; per call in turns): "
              + ", ".join(shares), flush=True)
    for size in (17, 20):
        shares = [f"{k} laizi {paired_share(*paired_positions(size, k), turns):.2f}"
                  for k in (0, 2, 4)]
        print(f"tiandi / laizi leads, {size} cards, paired positions in turns: "
              + ", ".join(shares), flush=True)
    for size in (17, 20):
        shares = [f"{k} laizi {paired_share(*paired_positions(size, k, 'deal'), turns):.2f}"
                  for k in (2, 4)]
        print(f"tiandi / laizi leads, {size} cards, paired positions, laizi split as "
              "in a deal, in turns: " + ", ".join(shares), flush=True)
    deals = 5000 if args.quick else 20000
    for rules in ("classic", "laizi", "tiandi"):
        ddzfast.simulate(200, rules)        # warm up
        times = []
        for rep in range(3 if args.quick else 5):
            t = time.process_time()
            ddzfast.simulate(deals, rules, seed=rep, threads=1)
            times.append(time.process_time() - t)
        print(f"simulate {rules:8s} random policies, one thread: "
              f"{deals / statistics.median(times):,.0f} deals/s")


if __name__ == "__main__":
    main()
