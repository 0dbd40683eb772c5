"""Random-play Monte Carlo of whole deals in Numba-jitted code, over the
ddzfast core (ddzfast.numba): no Python in the loop.

    python examples/numba_monte_carlo.py --rules biegang --deals 20000

Deals random hands (landlord seat 0 holds 17 + the kitty), lets every seat
play a uniformly random legal move until one runs out of cards, and prints
the landlord's win rate under random play. Laizi and tiandi play with their
wild ranks fixed for every deal (--rules laizi:7, --rules tiandi:7J).
"""
import argparse
import time

# (ddzfast.numba first: without numba, its ImportError says what to install)
from ddzfast import numba as dn

import numba
import numpy as np

import ddzfast
from ddzfast.constants import CARD_LIMITS, DEAL_CARDS, IDX_W


@numba.njit(nogil=True)
def _deal(deck, hands):
    np.random.shuffle(deck)
    hands[:] = 0
    for i in range(deck.shape[0]):
        seat = 0 if i >= 3 * DEAL_CARDS else i % 3   # the kitty goes to the landlord
        hands[seat] += np.uint64(1) << np.uint64(4 * deck[i])


@numba.njit(nogil=True)
def play_deals(rules, deck, deals, seed, out_rows):
    """Play `deals` random deals; returns (landlord wins, moves played)."""
    np.random.seed(seed)
    hands = np.zeros(3, dtype=np.uint64)
    out = np.empty(out_rows, dtype=dn.MOVE_DTYPE)
    last = np.empty(1, dtype=dn.MOVE_DTYPE)
    wins = 0
    moves = 0
    for _ in range(deals):
        _deal(deck, hands)
        seat = 0
        last_seat = -1
        while True:
            if last_seat == seat:
                last_seat = -1                # everyone passed: a free lead
            if last_seat < 0:
                n = dn.legal_moves_into(rules, hands[seat], last[:0], out)
            else:
                n = dn.legal_moves_into(rules, hands[seat], last, out)
            move = out[np.random.randint(n)]
            if move.kind != 0:
                hands[seat] = dn.play(hands[seat], move.cards)
                last[0] = move
                last_seat = seat
                moves += 1
                if hands[seat] == 0:
                    if seat == 0:
                        wins += 1
                    break
            seat = (seat + 1) % 3
    return wins, moves


#: The move buffer of laizi and tiandi hands (4 MB).
LAIZI_OUT_ROWS = 1 << 18


def make_deck(rules: str) -> np.ndarray:
    """The card indices of the rule set's deck, each as often as the deck holds it."""
    wildcard = ddzfast.get_rules(rules).wildcard
    cards = [i for i, copies in enumerate(CARD_LIMITS) for _ in range(copies)
             if i != IDX_W or wildcard]
    return np.array(cards, dtype=np.int64)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rules", default="classic",
                    help="a rule-set name; laizi and tiandi with their wild ranks "
                         "fixed for every deal (laizi:7, tiandi:7J)")
    ap.add_argument("--deals", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=1,
                    help="0..2**32-1 (Numba's random stream takes 32 bits)")
    args = ap.parse_args(argv)
    if args.deals < 1:
        ap.error(f"--deals must be at least 1, not {args.deals}")
    if not 0 <= args.seed < 2 ** 32:
        ap.error(f"--seed must be in 0..2**32-1, not {args.seed}")
    try:
        rules = dn.rules_handle(args.rules)
    except ValueError as e:
        ap.error(f"--rules: {e}")
    deck = make_deck(args.rules)
    # MOVE_BUFFER holds every hand of the classic family; a 20-card laizi or
    # tiandi hand can have tens of thousands of moves (docs/moves.md,
    # "Buffers"), so those get room well past the most found
    out_rows = LAIZI_OUT_ROWS if ddzfast.get_rules(args.rules).laizi else ddzfast.MOVE_BUFFER
    play_deals(rules, deck, 1, args.seed, out_rows)       # compile
    start = time.perf_counter()
    wins, moves = play_deals(rules, deck, args.deals, args.seed, out_rows)
    elapsed = time.perf_counter() - start
    print(f"{args.rules}: {args.deals} random deals, landlord won {wins / args.deals:.3f}, "
          f"{moves / args.deals:.1f} moves per deal, {args.deals / elapsed:,.0f} deals/s")
    return wins, moves


if __name__ == "__main__":
    main()
