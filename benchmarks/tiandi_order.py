"""What the order of the hands does to tiandi's 2-laizi leads against
laizi's (medians; nothing is asserted).

    PYTHONPATH=src python benchmarks/tiandi_order.py [--positions N]
        [--turns N] [--repeats N]

The positions are ``laizi_moves.paired_positions`` (N pairs, default 256)
of 17 and 20 cards with 2 laizi, the uniform and the deal split. A
tiandi hand's laizi are of one wild rank (the one-rank group: it runs
laizi's walk) or of both (the both-rank group: the walk that writes the
other splits). Printed per set:

* **shares**, each the median over the turns of tiandi's moves per second
  over laizi's, a round of tiandi's leads then one of laizi's, as
  laizi_moves.py times them: the pairs in the script's order (the groups
  mixed; and so with an untimed round of the same rule set before each
  timed one, so that neither is timed right after the other's code), the
  same pairs with the one-rank group first (grouped), each
  group alone, and the share the groups alone predict for their mix (from
  their median round times); then tiandi's moves over laizi's and its
  median round time over laizi's, mixed and for each group alone (the
  goal needs the time at most the moves);
* **per call** (perf_counter_ns, each hand's median over the repeats, the
  order shuffled each repeat): the median over the hands of a group of
  tiandi's time over its laizi pair's, in the mixed order (and there by
  the hand's run: how many hands of its group it is since the last of the
  other group, 1, 2, 3 or 4 and more) and with the group's hands alone;
* **fresh pairs**: as many new slices of N pairs (drawn with another
  seed) as there are turns, timed mixed one after the other, then as many
  more with each slice's two groups timed alone; each hand's first call
  is the timed one, tiandi's round first in every other turn. The median
  over the slices of the share mixed, of each group's alone, and of what
  a slice's two group rounds predict for their mix;
* **laizi between other calls**: laizi's per-call time with one untimed
  call between each two of its own (a classic 20-card lead, another of
  laizi's 2-laizi leads, a 4-laizi laizi lead, a one-rank tiandi lead, a
  both-rank one; each with its mean moves a call), over its time with none
  between: the median over the hands;
* **tiandi's both-rank hands between other calls**: the same for the
  both-rank group's calls (the untimed ones: a classic 20-card lead, a
  2-laizi laizi lead, a one-rank tiandi lead, another both-rank one, a
  4-laizi tiandi lead holding laizi of both ranks), over their time with
  none between: which calls slow the walk that writes the other splits.
"""
import argparse
import os
import random
import statistics
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import ddzfast  # noqa: E402
import laizi_moves  # noqa: E402

SETS = [(size, split) for split in ("uniform", "deal") for size in (17, 20)]
# the longest run of one group kept apart in the per-call readings
RUN_MAX = 4


def both_ranks(pos):
    """Whether each tiandi position's hand holds laizi of both wild ranks."""
    flags = []
    for rules, hand, _ in pos:
        flags.append(all((hand >> (4 * r)) & 15 for r in rules.wild_ranks))
    return flags


def rounds_in_order(laizi_pos, tiandi_pos, order, turns, buf):
    """laizi_moves.paired_rounds of the pairs `order` (indices), in that order."""
    return laizi_moves.paired_rounds([laizi_pos[i] for i in order],
                                     [tiandi_pos[i] for i in order], turns, buf)


def per_call(pos, order, repeats, rng, buf, between=None, flags=None):
    """Each position's median per-call time (ns) over `repeats` rounds, its
    order shuffled each round; `between`: positions one of which is called,
    untimed, before each timed call. With `flags` (each position's group),
    the times are also kept by the position's run: how many positions of
    its group it is since the last of the other (1, 2, 3, RUN_MAX or more),
    as {(i, run): median}. Returns (medians, by run: {} without flags)."""
    lmi = ddzfast.legal_moves_into
    clock = time.perf_counter_ns
    times = {i: [] for i in order}
    by_run = {}
    order = list(order)
    for _ in range(repeats):
        rng.shuffle(order)
        run, group = 0, None
        for i in order:
            if between is not None:
                rules, hand, last = between[rng.randrange(len(between))]
                lmi(hand, last, rules, buf)
            rules, hand, last = pos[i]
            t = clock()
            lmi(hand, last, rules, buf)
            t = clock() - t
            times[i].append(t)
            if flags is not None:
                run = run + 1 if flags[i] == group else 1
                group = flags[i]
                by_run.setdefault((i, min(run, RUN_MAX)), []).append(t)
    return ({i: statistics.median(v) for i, v in times.items()},
            {k: statistics.median(v) for k, v in by_run.items()})


def mix_share(rounds):
    """The share that groups timed apart (laizi_moves.PairedRounds each)
    predict for their mix: tiandi's moves per second over laizi's, their
    moves and times added."""
    rounds = list(rounds)
    return laizi_moves.rate_share(sum(r.laizi_moves for r in rounds),
                                  sum(r.laizi_time for r in rounds),
                                  sum(r.tiandi_moves for r in rounds),
                                  sum(r.tiandi_time for r in rounds))


def fresh_shares(size, split, count, turns, buf):
    """The fresh-pairs readings of one set: `turns` new slices of `count`
    pairs timed mixed, one after the other, then `turns` more with each
    slice's groups timed alone, every hand's first call timed. Returns
    (mixed, {group name: share alone}, the groups' prediction); a group with
    no pairs in a slice leaves that slice out of its readings."""
    laizi_pos, tiandi_pos = laizi_moves.paired_positions(
        size, 2, split, count=2 * count * turns, seed="fresh")
    flags = both_ranks(tiandi_pos)
    slices = [{"mixed": range(turn * count, (turn + 1) * count)} for turn in range(turns)]
    for turn in range(turns, 2 * turns):
        second = range(turn * count, (turn + 1) * count)
        slices.append({"one-rank": [i for i in second if not flags[i]],
                       "both-rank": [i for i in second if flags[i]]})
    timed = []
    for turn, groups in enumerate(slices):
        times = {}
        for name, group in groups.items():
            lz = [laizi_pos[i] for i in group]
            td = [tiandi_pos[i] for i in group]
            if turn % 2:
                x = laizi_moves.round_time(lz, buf)
                t = laizi_moves.round_time(td, buf)
            else:
                t = laizi_moves.round_time(td, buf)
                x = laizi_moves.round_time(lz, buf)
            # (counted after the timing, so that the timed calls are each
            # hand's first)
            times[name] = (lz, td, max(x, 1e-9), max(t, 1e-9))
        timed.append(times)
    shares = {}
    predicted = []
    for times in timed:
        rounds = {}
        for name, (lz, td, x, t) in times.items():
            if lz:
                n_laizi = laizi_moves.move_count(lz, buf)
                n_tiandi = laizi_moves.move_count(td, buf)
                rounds[name] = laizi_moves.PairedRounds(
                    x, t, n_laizi, n_tiandi, laizi_moves.rate_share(n_laizi, x, n_tiandi, t))
                shares.setdefault(name, []).append(rounds[name].share)
        if "one-rank" in rounds and "both-rank" in rounds:
            predicted.append(mix_share((rounds["one-rank"], rounds["both-rank"])))
    alone = {name: statistics.median(v) for name, v in shares.items() if name != "mixed"}
    return (statistics.median(shares["mixed"]), alone,
            statistics.median(predicted) if predicted else None)


def classic_leads(count, rng):
    """`count` classic 20-card leads, as laizi_moves.position deals them."""
    rules = ddzfast.get_rules("classic")
    return [(rules, int(ddzfast.Hand(laizi_moves.position(rng, "classic", 20, 0, None)[1])),
             None) for _ in range(count)]


def between_line(label, pos, alone, fillers, repeats, rng, buf):
    """`label` and, for each (name, positions) of `fillers`, the median over
    the hands of `alone` (per_call's medians of some hands of `pos`, timed
    with no call between) of their per-call time with one untimed call of
    those positions between each two, over their time alone."""
    group = list(alone)
    line = label
    for name, between in fillers:
        with_between = per_call(pos, group, repeats, rng, buf, between)[0]
        ratio = statistics.median(with_between[i] / alone[i] for i in group)
        moves = laizi_moves.move_count(between, buf) / len(between)
        line += f"; {name} ({moves:.0f} moves) {ratio:.3f}"
    return line


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--positions", type=int, default=256,
                    help="pairs a set (default %(default)s)")
    ap.add_argument("--turns", type=int, default=41,
                    help="turns a share (default %(default)s)")
    ap.add_argument("--repeats", type=int, default=30,
                    help="rounds of the per-call readings (default %(default)s)")
    args = ap.parse_args()
    if args.positions < 2 or args.turns < 1 or args.repeats < 1:
        ap.error("--positions must be at least 2, --turns and --repeats at least 1")
    laizi_moves.POSITIONS = args.positions
    buf = np.empty(1 << 16, ddzfast.MOVE_DTYPE)
    rng = random.Random("tiandi-order")
    for size, split in SETS:
        laizi_pos, tiandi_pos = laizi_moves.paired_positions(size, 2, split)
        flags = both_ranks(tiandi_pos)
        one = [i for i, f in enumerate(flags) if not f]
        both = [i for i, f in enumerate(flags) if f]
        label = f"{size} cards, {split} split ({len(one)} one-rank, {len(both)} both-rank)"
        mixed_rounds = rounds_in_order(laizi_pos, tiandi_pos, range(len(tiandi_pos)),
                                       args.turns, buf)
        mixed = mixed_rounds.share
        warmed = laizi_moves.paired_rounds(laizi_pos, tiandi_pos, args.turns, buf,
                                           warm=1).share
        grouped = rounds_in_order(laizi_pos, tiandi_pos, one + both, args.turns, buf).share
        alone = {name: rounds_in_order(laizi_pos, tiandi_pos, group, args.turns, buf)
                 for name, group in (("one-rank", one), ("both-rank", both)) if group}
        line = (f"{label}: share mixed {mixed:.3f} (each after a round of its own "
                f"{warmed:.3f}), grouped {grouped:.3f}")
        for name, a in alone.items():
            line += f", {name} alone {a.share:.3f}"
        if len(alone) == 2:
            line += f", the groups predict {mix_share(alone.values()):.3f}"
        print(line, flush=True)
        line = f"{label}: tiandi's moves over laizi's, mixed"
        for name, r in (("", mixed_rounds), *((f" {n}", a) for n, a in alone.items())):
            line += f"{name} {r.tiandi_moves / r.laizi_moves:.3f}"
        line += "; round time over laizi's, mixed"
        for name, r in (("", mixed_rounds), *((f" {n} alone", a) for n, a in alone.items())):
            line += f"{name} {r.tiandi_time / r.laizi_time:.3f}"
        print(line, flush=True)
        everyone = range(len(tiandi_pos))
        laizi_call = per_call(laizi_pos, everyone, args.repeats, rng, buf)[0]
        tiandi_mixed, tiandi_runs = per_call(tiandi_pos, everyone, args.repeats, rng, buf,
                                             flags=flags)
        line = f"{label}: per call, tiandi's time over laizi's"
        tiandi_alone = {}
        for name, group in (("one-rank", one), ("both-rank", both)):
            if not group:
                continue
            tiandi_alone[name] = per_call(tiandi_pos, group, args.repeats, rng, buf)[0]
            mixed_ratio = statistics.median(tiandi_mixed[i] / laizi_call[i] for i in group)
            alone_ratio = statistics.median(tiandi_alone[name][i] / laizi_call[i]
                                            for i in group)
            line += f"; {name} mixed {mixed_ratio:.3f} (by run"
            for run in range(1, RUN_MAX + 1):
                ratios = [tiandi_runs[i, run] / laizi_call[i] for i in group
                          if (i, run) in tiandi_runs]
                mark = "+" if run == RUN_MAX else ""
                line += f" {run}{mark}: " + (f"{statistics.median(ratios):.3f}" if ratios
                                             else "-")
            line += f"), alone {alone_ratio:.3f}"
        print(line, flush=True)
        mixed, alone, predicted = fresh_shares(size, split, len(tiandi_pos), args.turns, buf)
        line = f"{label}: fresh pairs, share mixed {mixed:.3f}"
        for name, share in alone.items():
            line += f", {name} alone {share:.3f}"
        if predicted is not None:
            line += f", the groups predict {predicted:.3f}"
        print(line, flush=True)
        fillers = [("a classic lead", classic_leads(len(tiandi_pos), rng)),
                   ("another 2-laizi laizi lead", laizi_pos),
                   ("a 4-laizi laizi lead", laizi_moves.paired_positions(size, 4, split)[0])]
        if one:
            fillers.append(("a one-rank tiandi lead", [tiandi_pos[i] for i in one]))
        if both:
            fillers.append(("a both-rank tiandi lead", [tiandi_pos[i] for i in both]))
        print(between_line(f"{label}: laizi's time between calls over alone", laizi_pos,
                           laizi_call, fillers, args.repeats, rng, buf), flush=True)
        if both:
            four = laizi_moves.paired_positions(size, 4, split)[1]
            fillers = [("a classic lead", classic_leads(len(tiandi_pos), rng)),
                       ("a 2-laizi laizi lead", laizi_pos)]
            if one:
                fillers.append(("a one-rank tiandi lead", [tiandi_pos[i] for i in one]))
            fillers += [("another both-rank tiandi lead", [tiandi_pos[i] for i in both]),
                        ("a 4-laizi both-rank tiandi lead",
                         [p for p, f in zip(four, both_ranks(four)) if f])]
            print(between_line(f"{label}: tiandi's both-rank time between calls over alone",
                               tiandi_pos, tiandi_alone["both-rank"], fillers, args.repeats,
                               rng, buf), flush=True)


if __name__ == "__main__":
    main()
