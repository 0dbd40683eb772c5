"""A tour of ddzfast: ``python -m ddzfast.demo``.

Prints the legal moves of a few positions in each rule set, then how many
legal-move queries per second this machine answers.
"""
from __future__ import annotations

import os
import random
import sys
import time

import numpy as np

import ddzfast
from ddzfast import MOVE_DTYPE, Hand, Move, legal_moves, legal_moves_into
from ddzfast.constants import deck_text

POSITIONS = [
    ("classic", "33344456789TJQKA2XD", None),
    ("classic", "3344556677889TTJJ22", "PAIR_STRAIGHT/5/3/556677"),
    ("biegang", "4567TTTJJJQQKA22XW", None),
    ("biegang", "3333JQKXDW", "BOMB/A/1/AAAA"),
    ("super", "3456677889TTJQKA2W", "STRAIGHT/4/5/45678"),
    ("super", "5555XDW", "ROCKET/X/1/XD"),
    ("laizi:7", "3345677789TJQ", "PAIR/4/1/44"),
    ("tiandi:7J", "3345677JJ9TQ", None),
]


def show_position(rules: str, hand: str, last: str | None) -> None:
    last_move = Move.parse(last) if last else None
    moves = legal_moves(hand, last_move, rules)
    what = f"after {last_move}" if last_move else "leading"
    print(f"{rules:10s} {Hand(hand)!s:22s} {what}: {len(moves)} legal moves")
    by_kind: dict = {}
    for m in moves:
        by_kind.setdefault(m.kind, []).append(m)
    for kind, ms in by_kind.items():
        shown = ", ".join(str(m).split(" ", 1)[-1] for m in ms[:3])
        more = f", ... ({len(ms)})" if len(ms) > 3 else ""
        print(f"    {kind.name:14s} {shown}{more}")


def measure(seconds: float = 1.0) -> None:
    rng = random.Random(0)
    deck = deck_text(False)
    hands = [int(Hand("".join(rng.sample(deck, 20)))) for _ in range(256)]
    out = np.empty(ddzfast.MOVE_BUFFER, MOVE_DTYPE)
    calls = moves = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for h in hands:
            moves += legal_moves_into(h, None, "classic", out)
        calls += len(hands)
    elapsed = time.perf_counter() - start
    print(f"\nclassic 20-card leads through legal_moves_into: "
          f"{elapsed / calls * 1e6:.2f} us per call, "
          f"{moves / elapsed / 1e6:.0f} million moves per second")


def main() -> None:
    try:
        print(f"ddzfast {ddzfast.__version__}\n")
        for rules, hand, last in POSITIONS:
            show_position(rules, hand, last)
        measure()
        sys.stdout.flush()
    except BrokenPipeError:
        # the reader has gone (`python -m ddzfast.demo | head`): nothing more
        # can be said; the flush at exit would fail the same way, so
        # standard output goes to devnull (as the command line does)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)


if __name__ == "__main__":
    main()
