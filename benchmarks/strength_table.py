"""The strength table of docs/bots.md: every agent against every other under
DouZero's evaluation protocol (ddzfast.arena), as markdown:

    python benchmarks/strength_table.py [--deals 10000] [--seed 0]
        [--agents expert,greedy,random,rlcard-rule] [--rules classic] [--threads 1]
        [--bidding]

Each cell is ``arena(row, column, deals, seed, threads, rules, bidding)``: the
row agent's WP averaged over its two roles (as landlord, as farmers) with its
95% interval, then WP as landlord / as farmers, then ADP. With ``--bidding``
(the arena's six seatings a deal; agents that bid only, so not 'rlcard-rule'):
the row agent's WP (the share of games its seats came out ahead) with its
interval, then its landlord share, WP as landlord / as farmers and ADP per
game. Needs rlcard for 'rlcard-rule'.
"""
import argparse
import time

from ddzfast.arena import arena
from _args import at_least  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=at_least(1), default=10000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--agents", default="expert,greedy,random,rlcard-rule")
    ap.add_argument("--rules", default="classic",
                    help="the rule set (rlcard-rule plays classic's deck only)")
    ap.add_argument("--threads", type=at_least(1), default=1,
                    help="threads for a match of two built-in policies")
    ap.add_argument("--bidding", action="store_true",
                    help="the arena with bidding (six seatings a deal)")
    a = ap.parse_args()
    agents = a.agents.split(",")
    if a.bidding:
        print(f"{a.rules} with bidding, {a.deals} deals per cell, seed {a.seed}: WP of "
              f"the row agent (games ahead ± 95%; landlord share; as landlord / as "
              f"farmers; ADP per game)\n")
    else:
        print(f"{a.rules}, {a.deals} deals per cell, seed {a.seed}: WP of the row agent "
              f"(average ± 95%; as landlord / as farmers; ADP)\n")
    print("| row vs column | " + " | ".join(agents) + " |")
    print("|---" * (len(agents) + 1) + "|")
    for x in agents:
        cells = []
        for y in agents:
            if x == y:
                cells.append("—")
                continue
            t = time.perf_counter()
            r = arena(x, y, deals=a.deals, seed=a.seed, threads=a.threads, rules=a.rules,
                      bidding=a.bidding)
            share = f"landlord {r.landlord_share[0]:.3f}; " if a.bidding else ""
            cells.append(f"**{r.wp[0]:.3f}** ± {r.wp[1]:.3f} ({share}{r.wp_landlord[0]:.3f} / "
                         f"{r.wp_farmers[0]:.3f}; ADP {r.adp[0]:+.2f})")
            extra = f" rlcard: {r.agents}" if r.agents else ""
            print(f"<!-- {x} vs {y}: {time.perf_counter() - t:.0f} s{extra} -->", flush=True)
        print(f"| {x} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
