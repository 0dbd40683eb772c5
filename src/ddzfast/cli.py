"""The ``ddzfast`` command line.

    ddzfast moves HAND [--last MOVE] [--rules R]
    ddzfast simulate --rules R --games N --policies random,greedy,greedy
                     --threads K --seed S [--backend ray] [--out FILE]
    ddzfast play --rules R [--seed S] [--bots greedy]
    ddzfast solve FIRST SECOND [THIRD] [--landlord SEAT] [--last CARDS --last-seat SEAT]
                  [--to-move SEAT] [--rules R] [--ban KIND] [--all] [--max-nodes N]
                  [--seconds S]
"""
from __future__ import annotations

import argparse
import math
import sys
import time
from typing import Any

import numpy as np

from ddzfast._core import (RULES, Game, Hand, Move, classify, get_rules,
                           legal_moves)
from ddzfast.movekind import MoveKind
from ddzfast.simulate import simulate

CARD_NAMES = "3456789TJQKA2XDW"


class UsageError(Exception):
    """Bad input from the user: printed as a message, exit status 2."""


# ---- moves -----------------------------------------------------------------

def _wild_text(move: Move) -> str:
    if move.wild == 255:
        return ""
    if move.wild == 15:
        return "W as kicker" if move.kind not in (
            MoveKind.WILD_ROCKET, MoveKind.HEAVEN_ROCKET, MoveKind.HEAVEN_BOMB,
            MoveKind.SUPER_BOMB) else "W as itself"
    return f"W as {CARD_NAMES[move.wild]}"


def parse_last(text: str, rules) -> Move:
    """A last move from ``KIND/r/n/cards`` or from card text with one reading."""
    try:
        if "/" in text:
            move = Move.parse(text)
        else:
            readings = list(classify(Hand.parse(text, rules), rules))
            if not readings:
                raise UsageError(f"{text!r} is not a move in {rules.name!r}")
            if len(readings) > 1:
                options = ", ".join(repr(m)[len("Move.parse('"):-2] for m in readings)
                raise UsageError(f"{text!r} can be read several ways; pass one of: {options}")
            move = readings[0]
    except ValueError as e:
        raise UsageError(str(e)) from None
    if move.kind == MoveKind.PASS:
        raise UsageError("the last move must not be a pass")
    return move


def cmd_moves(args) -> int:
    rules = get_rules(args.rules)
    try:
        hand = Hand.parse(args.hand, rules)
    except ValueError as e:
        raise UsageError(str(e)) from None
    last = parse_last(args.last, rules) if args.last else None
    try:
        moves = legal_moves(hand, last, rules)
    except ValueError as e:
        raise UsageError(str(e)) from None
    what = f"after {last}" if last else "leading"
    print(f"{rules.name}: {hand} {what}: {len(moves)} legal moves")
    print(f"{'#':>5}  {'kind':14s} {'cards':22s} {'rank':>4} {'len':>3}  wildcard")
    for i, m in enumerate(moves):
        rank = "" if m.kind == MoveKind.PASS else CARD_NAMES[m.rank]
        print(f"{i:>5}  {m.kind.name:14s} {str(m.cards) or '-':22s} {rank:>4} "
              f"{m.length:>3}  {_wild_text(m)}")
    return 0


# ---- simulate ----------------------------------------------------------------

class ProgressBar:
    """A one-line progress bar on a stream (standard error)."""

    def __init__(self, total: int, stream=None, width: int = 30):
        self.total = max(total, 1)
        self.stream = stream if stream is not None else sys.stderr
        self.width = width
        self.start = time.perf_counter()
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.shown = -1.0

    def __call__(self, done: int) -> None:
        frac = done / self.total
        now = time.perf_counter()
        # a terminal redraws at most ten times a second; a log gets a line
        # per tenth of the run
        if self.tty:
            if now - self.shown < 0.1 and done < self.total:
                return
            self.shown = now
        elif int(frac * 10) == int(self.shown * 10) and done < self.total:
            return
        else:
            self.shown = frac
        filled = int(frac * self.width)
        rate = done / max(now - self.start, 1e-9)
        self.stream.write(f"{chr(13) if self.tty else ''}[{'#' * filled}"
                          f"{'.' * (self.width - filled)}] {frac:6.1%} "
                          f"{done}/{self.total} deals, {rate:,.0f}/s"
                          f"{'' if self.tty else chr(10)}")
        self.stream.flush()

    def close(self) -> None:
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()


def wilson_interval(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def summary(rows: np.ndarray, seconds: float) -> str:
    n = len(rows)
    wins = int((rows["winner"] == 0).sum())
    lo, hi = wilson_interval(wins, n)
    mult = rows["multiplier"]
    lines = [
        ("deals", f"{n}"),
        ("landlord win rate", f"{wins / n if n else 0:.4f}  (95% CI {lo:.4f} .. {hi:.4f})"),
        ("multiplier mean / max", f"{mult.mean() if n else 0:.3f} / {mult.max() if n else 0}"),
        ("bombs per deal", f"{rows['bombs'].mean() if n else 0:.3f}"),
        ("spring rate", f"{rows['spring'].mean() if n else 0:.4f}"),
        ("anti-spring rate", f"{rows['anti_spring'].mean() if n else 0:.4f}"),
        ("moves per deal", f"{rows['moves'].mean() if n else 0:.2f}"),
        ("deals per second", f"{n / seconds if seconds > 0 else float('inf'):,.0f}"),
    ]
    width = max(len(k) for k, _ in lines)
    return "\n".join(f"{k:<{width}}  {v}" for k, v in lines)


def write_rows(rows: np.ndarray, path: str) -> None:
    if path.endswith(".npz"):
        np.savez_compressed(path, deals=rows)
    elif path.endswith(".parquet"):
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError:
            raise UsageError("writing Parquet needs pyarrow (pip install pyarrow)") from None
        names = rows.dtype.names or ()
        columns = {name: rows[name] for name in names if name != "scores"}
        for seat in range(3):
            columns[f"score{seat}"] = rows["scores"][:, seat]
        pq.write_table(pa.table(columns), path)
    else:
        raise UsageError(f"--out must end in .npz or .parquet, not {path!r}")


def cmd_simulate(args) -> int:
    if args.games < 0:
        raise UsageError("--games must not be negative")
    if args.threads < 1:
        raise UsageError("--threads must be at least 1")
    if args.out and not args.out.endswith((".npz", ".parquet")):
        raise UsageError(f"--out must end in .npz or .parquet, not {args.out!r}")
    try:
        policies = tuple(p.strip() for p in args.policies.split(","))
        bar = ProgressBar(args.games) if not args.quiet else None
        start = time.perf_counter()
        rows = simulate(args.games, args.rules, policies, seed=args.seed,
                        threads=args.threads, bidding=not args.no_bidding,
                        backend=args.backend, address=args.address, progress=bar)
        seconds = time.perf_counter() - start
    except ValueError as e:
        raise UsageError(str(e)) from None
    if bar is not None:
        bar.close()
    print(f"{args.rules}, policies {','.join(policies)}, seed {args.seed}, "
          f"{args.threads} thread(s), backend {args.backend}")
    print(summary(rows, seconds))
    if args.out:
        write_rows(rows, args.out)
        print(f"rows written to {args.out}")
    return 0


# ---- play ------------------------------------------------------------------------

def _ask(prompt: str, out) -> str:
    out.write(prompt)
    out.flush()
    line = sys.stdin.readline()
    if not line:
        raise EOFError
    return line.strip()


def _choose_move(game: Game, text: str, legal):
    """The legal move the person meant, or a message saying why not."""
    if text.lower() in ("pass", "p", "-"):
        for m in legal:
            if m.kind == MoveKind.PASS:
                return m, None
        return None, "you cannot pass when leading"
    if text.startswith("#"):
        if text[1:].isdigit() and int(text[1:]) < len(legal):
            return legal[int(text[1:])], None
        return None, f"there is no move {text} (#0..#{len(legal) - 1}; '?' lists them)"
    try:
        cards = Hand.parse(text, game.rules)
    except ValueError as e:
        return None, str(e)
    matches = [m for m in legal if m.cards == cards]
    if not matches:
        return None, f"{cards} is not a legal move now ('?' lists the legal moves)"
    if len(matches) > 1:
        options = "; ".join(f"#{list(legal).index(m)} {m}" for m in matches)
        return None, f"{cards} can be played several ways: {options}; type one #number"
    return matches[0], None


def cmd_play(args, out=sys.stdout) -> int:
    rules = get_rules(args.rules)
    seed = args.seed
    game = Game(rules, seed, bidding=True, first_bidder=0)
    you = 0
    names = {0: "you", 1: "bot 1", 2: "bot 2"}
    out.write(f"ddzfast {rules.name}: you are seat 0 against two '{args.bots}' bots "
              f"(seed {game.seed}). Type cards like 33 or 34567, 'pass', "
              f"'?' for your legal moves, #N for move N of that list, 'q' to quit.\n")
    try:
        while game.phase == "bidding":
            if game.to_move == you:
                out.write(f"your hand: {game.hands[you]}\n")
                text = _ask(f"your bid {game.legal_bids()} (0 passes): ", out)
                if text.lower() in ("q", "quit"):
                    return 0
                try:
                    game.bid(int(text))
                except ValueError:
                    out.write(f"not a legal bid: {text!r}; choose from {game.legal_bids()}\n")
                    continue
            else:
                seat = game.to_move
                assert seat is not None
                points = game.policy_bid(args.bots)
                game.bid(points)
                out.write(f"{names[seat]} bids {points or 'pass'}\n")
        assert game.landlord is not None
        out.write(f"landlord: {names[game.landlord]} (base {game.base}); "
                  f"kitty {game.kitty}\n")
        while not game.done:
            seat = game.to_move
            assert seat is not None
            if seat != you:
                move = game.policy_move(args.bots)
                game.play(move)
                out.write(f"{names[seat]}: {move}  ({game.cards_left[seat]} left)\n")
                continue
            legal = game.legal_moves()
            last = game.last_move
            out.write(f"your hand: {game.hands[you]}   to beat: "
                      f"{last if last else 'nothing (you lead)'}\n")
            text = _ask("your move: ", out)
            if text.lower() in ("q", "quit"):
                return 0
            if text == "?":
                for i, m in enumerate(legal):
                    out.write(f"  #{i} {m}\n")
                continue
            move, problem = _choose_move(game, text, legal)
            if problem:
                out.write(problem + "\n")
                continue
            game.play(move)
    except EOFError:
        out.write("\nbye\n")
        return 0
    result = game.result
    assert result is not None
    won = (result.winner == "landlord") == (game.landlord == you)
    out.write(f"{'you win' if won else 'you lose'}: {result.winner} won, "
              f"multiplier {result.multiplier}, scores {result.scores}\n")
    return 0


# ---- solve -------------------------------------------------------------------------

def _solve_cards(text: str) -> str:
    """Card text of the solve command: ddzfast's letters or the puzzle
    notation (0 = ten, Y = small joker X, Z = big joker D)."""
    from ddzfast.solve import from_puzzle_notation
    return from_puzzle_notation(text)


def _solve_last(text: str, rules) -> Move:
    """The move to beat, from KIND/r/n/cards or from cards with one reading."""
    try:
        if "/" in text:
            move = Move.parse(text, rules)
        else:
            readings = list(classify(Hand.parse(_solve_cards(text), rules), rules))
            if not readings:
                raise UsageError(f"--last {text!r} is not a move in {rules.name!r}")
            if len(readings) > 1:
                options = ", ".join(m.text for m in readings)
                raise UsageError(f"--last {text!r} can be read several ways; "
                                 f"pass one of: {options}")
            move = readings[0]
    except ValueError as e:
        raise UsageError(str(e)) from None
    if move.kind == MoveKind.PASS:
        raise UsageError("--last must be a move, not a pass (leave it out to lead)")
    return move


def _solve_rules(name: str, banned: list[str]):
    """The rule set, without the banned kinds (puzzles ban e.g. 3+2)."""
    rules = get_rules(name)
    if not banned:
        return rules
    names = {k.upper() for k in banned}
    unknown = names - {k.name for k in MoveKind}
    if unknown or "PASS" in names:
        raise UsageError(f"--ban: unknown move kind(s) {sorted(unknown or {'PASS'})}; "
                         f"kinds are {', '.join(k.name for k in MoveKind if k)}")
    kinds = [k.name for k in sorted(rules.kinds) if k and k.name not in names]
    desc: dict[str, Any] = dict(rules.description)
    # a banned bomb kind leaves its tier, ranking and multiplier too
    tiers = {k: v for k, v in desc.get("tiers", {}).items() if k not in names}
    ranked = [k for k in desc.get("ranked", ()) if k not in names]
    mults = {k: v for k, v in desc.get("multipliers", {}).items() if k not in names}
    try:
        return rules.with_options(kinds=kinds, tiers=tiers, ranked=ranked,
                                  multipliers=mults)
    except ValueError as e:
        raise UsageError(f"--ban: {e}") from None


def cmd_solve(args, out=None) -> int:
    from ddzfast.solve import solve
    out = out or sys.stdout       # looked up per call: tests swap sys.stdout
    rules = _solve_rules(args.rules, args.ban or [])
    hands = [_solve_cards(h) for h in args.hands]
    if len(hands) not in (2, 3):
        raise UsageError(f"give two hands (two players) or three (with --landlord), "
                         f"not {len(hands)}")
    last = _solve_last(args.last, rules) if args.last is not None else None
    try:
        sol = solve(hands, rules, to_move=args.to_move, last=last,
                    last_seat=args.last_seat, landlord=args.landlord,
                    all_moves=args.all, max_nodes=args.max_nodes, seconds=args.seconds)
    except ValueError as e:     # InvalidCardsError and IllegalMoveError included
        raise UsageError(str(e)) from None
    except TypeError as e:
        raise UsageError(str(e)) from None
    n = len(hands)

    def who(seat: int) -> str:
        if n == 2:
            return f"seat {seat}"
        return f"seat {seat} ({'landlord' if seat == args.landlord else 'farmer'})"

    def side(seat: int) -> str:
        if n == 2:
            return f"seat {seat}"
        return "the landlord" if seat == args.landlord else "the farmers"

    ruleset = rules.name + (f" without {', '.join(args.ban)}" if args.ban else "")
    out.write(f"{ruleset}, {n} players\n")
    for s, h in enumerate(hands):
        out.write(f"  {who(s)}: {Hand.parse(h, rules)}\n")
    if last is None:
        out.write(f"{who(args.to_move)} to lead\n")
    else:
        out.write(f"{who(args.to_move)} to beat {last} played by {who(args.last_seat)}\n")
    stats = f"{sol.nodes:,} positions in {sol.seconds:.3f} s"
    if sol.win is None:
        out.write(f"undecided: the search stopped ({stats}); raise --max-nodes or "
                  f"--seconds\n")
        return 0
    if sol.win:
        winner = side(args.to_move)
    elif n == 2:
        winner = side(1 - args.to_move)
    else:
        winner = "the farmers" if args.to_move == args.landlord else "the landlord"
    out.write(f"{winner} {'wins' if n == 2 or winner == 'the landlord' else 'win'} "
              f"with best play ({stats})\n")
    if sol.move is not None:
        out.write(f"winning move: {sol.move}\n")
    if sol.winning_moves is not None:
        out.write(f"all winning moves ({len(sol.winning_moves)}): "
                  f"{'; '.join(str(m) for m in sol.winning_moves) or 'none'}\n")
    out.write("principal variation:\n")
    seat = args.to_move
    for i, m in enumerate(sol.line, 1):
        out.write(f"  {i:>3}. {who(seat):<20} {m}\n")
        seat = (seat + 1) % n
    return 0


# ---- entry point ------------------------------------------------------------------

def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="ddzfast", description="Dou Dizhu legal moves, "
                                 "simulation and play (rule sets: classic, biegang, super)")
    sub = ap.add_subparsers(dest="command", required=True)

    m = sub.add_parser("moves", help="list the legal moves of a hand")
    m.add_argument("hand", help="card text, e.g. 33W45678")
    m.add_argument("--last", help="the move to beat: card text or KIND/r/n/cards")
    m.add_argument("--rules", default="classic", choices=sorted(RULES))
    m.set_defaults(func=cmd_moves)

    s = sub.add_parser("simulate", help="simulate deals with built-in policies")
    s.add_argument("--rules", default="classic", choices=sorted(RULES))
    s.add_argument("--games", type=int, default=10000)
    s.add_argument("--policies", default="random,random,random",
                   help="one or three of: random, greedy (comma-separated)")
    s.add_argument("--threads", type=int, default=1)
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--backend", default="local", choices=["local", "ray"])
    s.add_argument("--address", default=None, help="Ray cluster address (backend ray)")
    s.add_argument("--no-bidding", action="store_true",
                   help="landlord seat 0, base 1, as DouZero")
    s.add_argument("--out", help="write the rows to FILE.npz or FILE.parquet")
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    s.set_defaults(func=cmd_simulate)

    p = sub.add_parser("play", help="play one deal in the terminal against two bots")
    p.add_argument("--rules", default="classic", choices=sorted(RULES))
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--bots", default="greedy", choices=["random", "greedy"])
    p.set_defaults(func=cmd_play)

    v = sub.add_parser(
        "solve", help="solve an open-hand endgame: who wins with best play",
        description="Solve an open-hand endgame exactly. Two hands: a two-player "
        "puzzle; three hands and --landlord: the landlord against two farmers. Cards "
        "in ddzfast's letters (3456789TJQKA2XDW) or the puzzle notation (0 = ten, "
        "Y = small joker, Z = big joker).")
    v.add_argument("hands", nargs="+", metavar="HAND",
                   help="the hands of seats 0, 1 (and 2), e.g. KK5543 225543")
    v.add_argument("--landlord", type=int, default=None, help="landlord seat (three hands)")
    v.add_argument("--to-move", type=int, default=0, help="the seat to move (default 0)")
    v.add_argument("--last", default=None,
                   help="the move to beat: cards or KIND/r/n/cards (with --last-seat)")
    v.add_argument("--last-seat", type=int, default=None, help="the seat that played --last")
    v.add_argument("--rules", default="classic", choices=sorted(RULES))
    v.add_argument("--ban", action="append", metavar="KIND",
                   help="a move kind the puzzle bans, e.g. TRIPLE_PAIR (3+2); repeatable")
    v.add_argument("--all", action="store_true", help="list every winning move")
    v.add_argument("--max-nodes", type=int, default=None, help="stop after N positions")
    v.add_argument("--seconds", type=float, default=None, help="stop after S seconds")
    v.set_defaults(func=cmd_solve)
    return ap


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except UsageError as e:
        print(f"ddzfast {args.command}: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
