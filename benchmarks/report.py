"""Summarise a pytest-benchmark JSON file per call (test_bench_moves.py),
per position (other benchmarks of many positions a round, such as
test_bench_actions.py's observation batch) or per deal
(test_bench_game.py).

    python -m pytest benchmarks --benchmark-json=bench.json
    python benchmarks/report.py bench.json

Prints the median time per call and moves per second of every scenario, and
the ratio of each wildcard 21-card lead's moves per second to the classic
20-card lead's (the target is at least 0.5).
"""
import json
import sys


def main(path: str) -> None:
    with open(path) as f:
        data = json.load(f)
    rows = {}
    deals = [b for b in data["benchmarks"] if "deals" in b["extra_info"]]
    if deals:
        print(f"{'scenario':50s} {'deals/s (median)':>18s}")
        for b in deals:
            rate = b["extra_info"]["deals"] / b["stats"]["median"]
            print(f"{b['name']:50s} {rate:18,.0f}")
    per_position = []
    for b in data["benchmarks"]:
        if "positions" not in b["extra_info"]:
            continue
        positions = b["extra_info"]["positions"]
        per_call = b["stats"]["median"] / positions
        if "moves_per_call" not in b["extra_info"]:
            # positions of something else than moves (observations)
            per_position.append((b["name"], per_call))
            continue
        moves = b["extra_info"]["moves_per_call"]
        name = b["name"].split("[", 1)[1].rstrip("]")
        rows[name] = (per_call, moves, moves / per_call)
    if per_position:
        print(f"{'scenario':50s} {'median/position':>16s}")
        for name, per_call in per_position:
            print(f"{name:50s} {per_call * 1e6:13.3f} us")
    if rows:
        print(f"{'scenario':42s} {'median/call':>12s} {'moves/call':>11s} {'Mmoves/s':>9s}")
    for name, (per_call, moves, rate) in rows.items():
        print(f"{name:42s} {per_call * 1e6:9.3f} us {moves:11.1f} {rate / 1e6:9.1f}")
    base = rows.get("classic-20-lead-legal_moves_into")
    if base:
        for rules in ("biegang", "super"):
            r = rows.get(f"{rules}-21-lead-legal_moves_into")
            if r:
                print(f"{rules} 21-card lead moves/s vs classic 20-card lead: "
                      f"{r[2] / base[2]:.2f}x")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "bench.json")
