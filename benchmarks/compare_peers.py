#!/usr/bin/env python
"""Time ddzfast against peer move generators on the same classic positions.

    python benchmarks/compare_peers.py [--positions N] [--repeat R] [--seed S]

Positions (seeded): deal a 54-card deck; seat 0 (landlord) holds 20 cards,
seats 1 and 2 hold 17.

* lead:   the landlord's 20-card hand, leading.
* follow: seat 1's 17-card hand answering a landlord move (a kind is drawn
  first, then a move of that kind, so that rare kinds are tried). The move is
  one every installed tool can represent.

Tools (each one is skipped with "not installed" when it cannot be imported):

* ddzfast ``legal_moves(hand, last, "classic")`` -> MoveList
* ddzfast ``legal_moves_into(int(hand), last, "classic", buf)`` -> count
* DouZero (``pip install --no-deps douzero``): lead =
  ``MovesGener(cards).gen_moves()``; follow = its game's
  ``GameEnv.get_legal_card_play_actions`` (see tests/oracles/douzero_adapter.py)
* OpenSpiel (``pip install open_spiel``): ``state.legal_actions()`` on a
  ``dou_dizhu`` state dealt to the same hands (seat 0 bids 3 and leads).
  OpenSpiel's move set differs from classic: it has no four-with-kickers, and
  its answer is a list of action ids.

Each tool runs over all positions ``--repeat`` times; reported are the median
time per call (µs), the mean number of moves per call, moves per second and
the ratio peer time / ddzfast time.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests"))

from ddzfast.constants import CARD_CHARS, deck_text  # noqa: E402
from _args import at_least  # noqa: E402

RULES = "classic"
DECK = deck_text(False)


def canonical(cards) -> str:
    return "".join(sorted(cards, key=CARD_CHARS.index))


# --------------------------------------------------------------------------
# tools
# --------------------------------------------------------------------------

def load_ddzfast():
    try:
        import numpy as np
        import ddzfast
    except ImportError as e:
        return None, f"not installed ({e})"
    return (ddzfast, np), getattr(ddzfast, "__version__", "?")


def load_douzero():
    try:
        from oracles import douzero_adapter as dza
        dza.load_douzero()
    except ImportError as e:
        return None, f"not installed ({e})"
    return dza, dza.douzero_version() or "?"


def load_pyspiel():
    try:
        import pyspiel
        game = pyspiel.load_game("dou_dizhu")
    except Exception as e:  # ImportError, or a build without the game
        return None, f"not installed ({type(e).__name__}: {e})"
    try:
        from importlib.metadata import version
        v = version("open_spiel")
    except Exception:
        v = "?"
    return (pyspiel, game), v


class OpenSpielPositions:
    """Builds OpenSpiel ``dou_dizhu`` states with known hands.

    OpenSpiel deals through chance nodes: first the position of the face-up
    card (0..50; the seat dealt that card bids first), then the 51 dealt cards
    one at a time to seats 0, 1, 2, 0, 1, ... (deal action = 51 + card id;
    card id = rank + 13 * suit for ranks 3..2, 52 = small joker, 53 = big
    joker). The 3 cards never dealt are the kitty. Face-up position 0 makes
    seat 0 the first bidder; seat 0 bids 3, becomes landlord, takes the kitty
    and leads. Action ids are looked up by their strings ('Bid 3',
    'Deal C3'), which do not depend on OpenSpiel's version-specific numbering.
    """

    def __init__(self, game):
        self.game = game
        s = game.new_initial_state()
        s.apply_action(0)
        self.deal_action = {}
        for a in s.legal_actions():
            name = s.action_to_string(-1, a)  # 'Deal C3', 'Deal (BWJ)', ...
            self.deal_action[name[len("Deal "):]] = a

    def landlord_state(self, landlord: str, seat1: str, seat2: str):
        s = self.game.new_initial_state()
        s.apply_action(0)
        counters = {}
        order = []
        for text in (landlord, seat1, seat2):
            seat_cards = []
            for ch in text:  # one suit per copy of a rank, unique across seats
                k = counters.get(ch, 0)
                counters[ch] = k + 1
                seat_cards.append("(BWJ)" if ch == "X" else "(CJ)" if ch == "D"
                                  else "CDHS"[k] + ch)
            order.append(seat_cards)
        for i in range(17):
            for seat in range(3):
                s.apply_action(self.deal_action[order[seat][i]])
        if s.current_player() != 0:
            raise RuntimeError("OpenSpiel: seat 0 is not the first bidder")
        bid3 = [a for a in s.legal_actions() if s.action_to_string(0, a) == "Bid 3"]
        s.apply_action(bid3[0])
        if s.current_player() != 0:
            raise RuntimeError("OpenSpiel: seat 0 did not become landlord")
        return s

    @staticmethod
    def action_text(state, player, action) -> str:
        """Canonical card text of a play action ('' for Pass)."""
        s = state.action_to_string(player, action)
        if s == "Pass":
            return ""
        s = s.replace("-", "").replace("(BWJ)", "X").replace("(CJ)", "D")
        return canonical(s)


# --------------------------------------------------------------------------
# positions
# --------------------------------------------------------------------------

def build_positions(n, seed, ddz, dza, osp):
    """Returns a list of dicts: landlord/seat1/seat2 texts, the chosen last
    move text, and per-tool prepared arguments."""
    rng = random.Random(seed)
    positions = []
    attempts = 0
    while len(positions) < n:
        attempts += 1
        if attempts > 50 * n:
            raise RuntimeError("could not build positions")
        cards = rng.sample(DECK, 54)
        landlord = canonical(cards[:20])
        seat1 = canonical(cards[20:37])
        seat2 = canonical(cards[37:54])
        pos = {"landlord": landlord, "seat1": seat1, "seat2": seat2}

        # Candidate last moves (text -> group key), from the first available tool.
        if ddz:
            ddzfast, _ = ddz
            ml = ddzfast.legal_moves(ddzfast.Hand.parse(landlord), None, RULES)
            moves = list(ml)
            kinds = [int(k) for k in ml.array["kind"]]
            by_text = {}
            for m, k in zip(moves, kinds):
                if int(m.cards) != 0:
                    by_text.setdefault(str(m.cards), (m, k))
            candidates = {t: k for t, (m, k) in by_text.items()}
        elif dza:
            candidates = {t: dza.douzero_move_type(t)["type"]
                          for t in dza.douzero_move_multisets(landlord)}
        else:
            candidates = {}

        os_state = None
        if osp:
            os_state = osp.landlord_state(landlord, seat1, seat2)
            os_actions = {}
            for a in os_state.legal_actions():
                os_actions.setdefault(osp.action_text(os_state, 0, a), a)
            if not candidates:
                candidates = {t: len(t) for t in os_actions}
            candidates = {t: k for t, k in candidates.items() if t in os_actions}
        if dza:
            md = dza.load_douzero().md
            candidates = {t: k for t, k in candidates.items()
                          if dza.douzero_move_type(t)["type"] != md.TYPE_15_WRONG}
        if not candidates:
            continue
        groups = sorted(set(candidates.values()))
        g = rng.choice(groups)
        last_text = rng.choice(sorted(t for t, k in candidates.items() if k == g))
        pos["last"] = last_text

        if ddz:
            ddzfast, _ = ddz
            pos["ddz_lead_hand"] = ddzfast.Hand.parse(landlord)
            pos["ddz_follow_hand"] = ddzfast.Hand.parse(seat1)
            pos["ddz_last"] = by_text[last_text][0]
        if dza:
            pos["dz_lead"] = dza.text_to_douzero(landlord)
            pos["dz_follow"] = dza.text_to_douzero(seat1)
            pos["dz_last"] = dza.text_to_douzero(last_text)
        if osp:
            pos["os_lead"] = os_state
            follow = os_state.clone()
            follow.apply_action(os_actions[last_text])
            pos["os_follow"] = follow
        positions.append(pos)
    return positions


# --------------------------------------------------------------------------
# timing
# --------------------------------------------------------------------------

def time_calls(fn, args_list, repeat):
    """fn(*args) for every args in args_list, `repeat` times. Returns (median
    ns per call, mean results per call) where fn returns its move count."""
    counts = [fn(*a) for a in args_list]  # warm-up, and the counts
    per_call = []
    n = len(args_list)
    for _ in range(repeat):
        t0 = time.perf_counter_ns()
        for a in args_list:
            fn(*a)
        per_call.append((time.perf_counter_ns() - t0) / n)
    return statistics.median(per_call), sum(counts) / n


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--positions", type=at_least(1), default=200,
                    help="positions of each scenario (default 200)")
    ap.add_argument("--repeat", type=at_least(1), default=5,
                    help="timed passes over all positions; the median is "
                         "reported (default 5)")
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    args = ap.parse_args(argv)

    ddz, ddz_v = load_ddzfast()
    dza, dz_v = load_douzero()
    os_loaded, os_v = load_pyspiel()
    osp = OpenSpielPositions(os_loaded[1]) if os_loaded else None

    print(f"python {sys.version.split()[0]}; positions {args.positions}, "
          f"repeat {args.repeat}, seed {args.seed}")
    print(f"  ddzfast   : {ddz_v}")
    print(f"  douzero   : {dz_v}")
    print(f"  open_spiel: {os_v}")

    t0 = time.perf_counter()
    positions = build_positions(args.positions, args.seed, ddz, dza, osp)
    print(f"built {len(positions)} positions in {time.perf_counter() - t0:.1f} s\n")

    results = []  # (scenario, tool, ns_per_call, moves_per_call)

    def run(scenario, tool, fn, arglist):
        ns, moves = time_calls(fn, arglist, args.repeat)
        results.append({"scenario": scenario, "tool": tool,
                        "us_per_call": ns / 1e3, "moves_per_call": moves,
                        "moves_per_s": moves / (ns * 1e-9) if ns else float("inf")})

    for scenario in ("lead", "follow"):
        if ddz:
            ddzfast, np = ddz
            buf = np.empty(ddzfast.MOVE_BUFFER, ddzfast.MOVE_DTYPE)
            lm, lmi = ddzfast.legal_moves, ddzfast.legal_moves_into
            if scenario == "lead":
                a1 = [(p["ddz_lead_hand"], None) for p in positions]
                a2 = [(int(p["ddz_lead_hand"]), None) for p in positions]
            else:
                a1 = [(p["ddz_follow_hand"], p["ddz_last"]) for p in positions]
                a2 = [(int(p["ddz_follow_hand"]), p["ddz_last"]) for p in positions]
            run(scenario, "ddzfast legal_moves",
                lambda h, last: len(lm(h, last, RULES).array), a1)
            run(scenario, "ddzfast legal_moves_into",
                lambda h, last: lmi(h, last, RULES, buf), a2)
        else:
            print(f"[{scenario}] ddzfast: {ddz_v}")
        if dza:
            dz = dza.load_douzero()
            if scenario == "lead":
                gen = dz.MovesGener
                run(scenario, "douzero MovesGener.gen_moves",
                    lambda c: len(gen(c).gen_moves()), [(p["dz_lead"],) for p in positions])
            else:
                lm_dz = dza.douzero_legal_moves
                run(scenario, "douzero GameEnv legal actions",
                    lambda c, last: len(lm_dz(c, last)),
                    [(p["dz_follow"], p["dz_last"]) for p in positions])
        else:
            print(f"[{scenario}] douzero: {dz_v}")
        if osp:
            key = "os_lead" if scenario == "lead" else "os_follow"
            run(scenario, "open_spiel state.legal_actions",
                lambda s: len(s.legal_actions()), [(p[key],) for p in positions])
        else:
            print(f"[{scenario}] open_spiel: {os_v}")

    print()
    hdr = f"{'scenario':8} {'tool':34} {'us/call':>11} {'moves/call':>11} " \
          f"{'Mmoves/s':>10} {'x legal_moves':>14} {'x _into':>9}"
    print(hdr)
    print("-" * len(hdr))
    for scenario in ("lead", "follow"):
        rows = [r for r in results if r["scenario"] == scenario]
        base = {r["tool"]: r["us_per_call"] for r in rows}
        b1 = base.get("ddzfast legal_moves")
        b2 = base.get("ddzfast legal_moves_into")
        for r in rows:
            r1 = f"{r['us_per_call'] / b1:14.1f}" if b1 else f"{'-':>14}"
            r2 = f"{r['us_per_call'] / b2:9.1f}" if b2 else f"{'-':>9}"
            r["ratio_vs_legal_moves"] = r["us_per_call"] / b1 if b1 else None
            r["ratio_vs_legal_moves_into"] = r["us_per_call"] / b2 if b2 else None
            print(f"{scenario:8} {r['tool']:34} {r['us_per_call']:11.2f} "
                  f"{r['moves_per_call']:11.1f} {r['moves_per_s'] / 1e6:10.2f}{r1}{r2}")
    print("\nratios are peer time / ddzfast time (higher = ddzfast faster). "
          "Move counts differ\nbetween tools where their rules differ "
          "(OpenSpiel has no four-with-kickers).")
    deal_results = bench_deals(args, ddz, os_loaded)
    results.extend(deal_results)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"args": vars(args),
                       "versions": {"ddzfast": ddz_v, "douzero": dz_v,
                                    "open_spiel": os_v},
                       "results": results}, f, indent=2)
    return 0


# --------------------------------------------------------------------------
# whole deals
# --------------------------------------------------------------------------

def _ddz_python_deals(ddzfast, n, seed):
    """Deals driven from Python, bids included: Game.legal_choices() and
    Game.choose() while bidding, Game.legal_moves() and Game.play() after,
    each choice uniformly at random (a deal nobody bids for is dealt
    again, where OpenSpiel's ends without a score)."""
    import random
    rng = random.Random(seed)
    Game = ddzfast.Game
    for i in range(n):
        game = Game("classic", seed + i)
        while not game.done:
            if game.phase == "play":
                legal = game.legal_moves()
                game.play(legal[rng.randrange(len(legal))])
            else:
                choices = game.legal_choices()
                game.choose(choices[rng.randrange(len(choices))])


def _open_spiel_deals(pyspiel, game, n, seed):
    """OpenSpiel's dou_dizhu driven from Python the same way: every chance
    outcome (the deal, card by card, as its API deals) and every action,
    bids included, uniformly at random. Its chance outcomes are all equally
    likely, so a chance node's legal_actions() are drawn from, not its
    chance_outcomes(), a list of (action, probability) pairs a node, which
    would time building those lists more than OpenSpiel."""
    import random
    rng = random.Random(seed)
    for _ in range(n):
        state = game.new_initial_state()
        while not state.is_terminal():
            actions = state.legal_actions()
            state.apply_action(actions[rng.randrange(len(actions))])


def bench_deals(args, ddz, os_loaded):
    """Deals per second: ddzfast's native simulate (1 and 2 threads), a deal
    driven from Python through Game, and OpenSpiel driven the same way."""
    results = []
    n_native, n_python = 100000, 2000

    def timed(label, fn, deals, repeat):
        times = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
        med = statistics.median(times)
        results.append({"scenario": "deals", "tool": label,
                        "deals_per_s": deals / med, "us_per_deal": med / deals * 1e6})

    if ddz:
        ddzfast, _ = ddz
        sim = ddzfast.simulate
        sim(1000, "classic", ("random",) * 3, seed=1)
        for threads in (1, 2):
            timed(f"ddzfast simulate random, {threads} thread(s)",
                  lambda: sim(n_native, "classic", ("random",) * 3, seed=1,
                              threads=threads), n_native, args.repeat)
        timed("ddzfast Game from Python, random",
              lambda: _ddz_python_deals(ddzfast, n_python, 1), n_python, args.repeat)
    if os_loaded:
        pyspiel, game = os_loaded
        timed("open_spiel from Python, random",
              lambda: _open_spiel_deals(pyspiel, game, n_python // 2, 1),
              n_python // 2, args.repeat)
    print(f"\n{'scenario':8} {'tool':40} {'deals/s':>12} {'us/deal':>10}")
    for r in results:
        print(f"{'deals':8} {r['tool']:40} {r['deals_per_s']:12,.0f} {r['us_per_deal']:10.1f}")
    by = {r["tool"]: r["deals_per_s"] for r in results}
    one = by.get("ddzfast simulate random, 1 thread(s)")
    two = by.get("ddzfast simulate random, 2 thread(s)")
    py = by.get("ddzfast Game from Python, random")
    osd = by.get("open_spiel from Python, random")
    if one and two:
        print(f"simulate, 2 threads / 1 thread: {two / one:.2f}x")
    if py and osd:
        print(f"Game from Python / OpenSpiel from Python: {py / osd:.1f}x deals per second")
    if one and osd:
        print(f"native simulate (1 thread) / OpenSpiel from Python: {one / osd:.0f}x")
    return results


if __name__ == "__main__":
    sys.exit(main())
