"""The ``ddzfast`` command line.

    ddzfast --version
    ddzfast moves HAND [--last MOVE] [--rules R] [--wild RANK]
    ddzfast simulate [--rules R] [--wild RANK] [--games N]
                     [--policies random,greedy,greedy] [--threads K] [--seed S]
                     [--start I] [--no-bidding]
                     [--backend local|ray] [--address HOST:PORT]
                     [--out FILE.npz|FILE.parquet] [--json] [--plot FILE.png]
    ddzfast play [--rules R] [--wild RANK] [--seed S] [--bots greedy|random|expert]
    ddzfast solve FIRST SECOND [THIRD] [--landlord SEAT] [--last CARDS --last-seat SEAT]
                  [--to-move SEAT] [--rules R] [--wild RANK] [--ban KIND] [--all]
                  [--max-nodes N] [--seconds S]
    ddzfast arena --a AGENT --b AGENT [--deals N] [--seed S] [--threads K]
                  [--rules R] [--wild RANK] [--bidding]
                  [--backend local|ray] [--address HOST:PORT] [--json]

Bad input never ends in a traceback: it is a one-line message on standard
error (``ddzfast COMMAND: message``; argparse's add ``(see --help)``) and
exit status 2, which ``main`` returns. Output into a pipe whose reader
stops early (``ddzfast moves ... | head -1``) ends the command quietly with
status 1.
``simulate`` checks every argument and every output path before it
simulates, then runs in chunks of deals: each chunk is counted into the
summary and appended to ``--out``, so memory does not grow with ``--games``
and an interruption (Ctrl-C) or a late error keeps the rows already
simulated.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
import zipfile
from collections import Counter
from typing import Callable, Sequence

import numpy as np

from ddzfast import __version__
from ddzfast._core import (RULES, Hand, Move, _ranked_name, classify, get_rules,
                           legal_moves)
from ddzfast._engine import DEAL_DTYPE, POLICIES, Game
from ddzfast.arena import AGENT_NAMES, MAX_DEALS
from ddzfast.constants import CARD_CHARS, MAX_THREADS, WILD_NONE, broken_import, import_optional
from ddzfast.movekind import MoveKind
from ddzfast.render import (choice_line, decision_kind, ground_line, hand_line, landlord_line,
                            move_line, no_choice, outcome_text, redeal_line, wild_lines)
from ddzfast.report import Tally, row_columns
from ddzfast.simulate import (CALLABLE_POLICY, MAX_DEAL_INDEX, MAX_SEED, RAY_CONNECT_TIMEOUT,
                              check_deal_range, parse_policies, ray_ready,
                              simulate_parts)

#: Deals simulated (and written) per chunk by ``ddzfast simulate``: small
#: enough that memory stays flat (``CHUNK_DEALS * DEAL_DTYPE.itemsize``
#: bytes of rows), large enough that starting threads per chunk costs
#: little beside the deals.
CHUNK_DEALS = 1 << 16
#: The same with ``--backend ray``, where each chunk is a round of Ray tasks:
#: larger, so the scheduling cost stays small.
RAY_CHUNK_DEALS = 1 << 20

PASS_WORDS = ("pass", "p", "-")


class UsageError(Exception):
    """Bad input from the user: printed as a message, exit status 2."""


def _ascii_int(text: str) -> int | None:
    """``text`` as an int when it is ASCII digits with an optional minus
    sign, else None. (``str.isdigit`` and ``int`` accept '²' or '٣'.)"""
    text = text.strip()
    digits = text[1:] if text.startswith("-") else text
    if not digits or not (digits.isascii() and digits.isdigit()):
        return None
    return int(text)


def _int_in(lo: int, hi: int, hint: str = "") -> Callable[[str], int]:
    """An argparse type: an ASCII integer in lo..hi."""
    def convert(text: str) -> int:
        value = _ascii_int(text)
        if value is None:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number")
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"{value} is not in {lo}..{hi}{hint}")
        return value
    return convert


def _seconds(text: str) -> float:
    """An argparse type: a positive, finite number of seconds."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive, finite number of seconds")
    return value


def _path_text(path: str) -> str:
    """A file name as printable text: bytes no encoding can show (a name
    that is not UTF-8, read with Python's surrogate escapes) as ``\\xNN``,
    so that printing it on a strict standard output cannot fail."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


# ---- W readings as text --------------------------------------------------------

def _card_index(text: str) -> int | None:
    """The card index of one card's text ('8', 't', '10', 'W'), else None."""
    t = text.strip().upper()
    if t == "10":
        t = "T"
    return CARD_CHARS.index(t) if len(t) == 1 and t in CARD_CHARS else None


def typed_form(move: Move, among: Sequence[Move]) -> str:
    """The shortest text that picks ``move`` out of ``among``: its cards when
    no other move has them, else ``cards=C`` (W stands for C; ``=W``: W is a
    kicker or plays as itself), else the full ``KIND/r/n/cards`` form."""
    return _typed(move, *_readings(among))


def typed_forms(moves: Sequence[Move]) -> list[str]:
    """``typed_form`` of each of ``moves`` among them all, in one pass over
    them (a laizi hand may have tens of thousands)."""
    readings = _readings(moves)
    return [_typed(m, *readings) for m in moves]


def _readings(moves: Sequence[Move]) -> tuple[Counter, Counter]:
    # how many of the moves have each set of cards, and each reading of W
    cards = [int(m.cards) for m in moves]
    return Counter(cards), Counter(zip(cards, (m.wild for m in moves)))


def _typed(move: Move, by_cards: Counter, by_reading: Counter) -> str:
    if move.kind == MoveKind.PASS:
        return "pass"
    cards = int(move.cards)
    if by_cards[cards] <= 1:
        return str(move.cards)
    if move.wild != WILD_NONE and by_reading[cards, move.wild] == 1:
        return f"{move.cards}={CARD_CHARS[move.wild]}"
    return move.text


def pick_move(text: str, candidates: Sequence[Move], rules) -> list[Move]:
    """The moves of ``candidates`` that ``text`` names: card text (``4567W``),
    card text with what W stands for (``4567W=8``; ``333W=W`` for W as a
    kicker or as itself) or ``KIND/r/n/cards``. Raises UsageError for text
    that is not a move at all."""
    text = text.strip()
    if "/" in text:
        try:
            wanted = Move.parse(text, rules)
        except ValueError as e:
            raise UsageError(str(e)) from None
        return [m for m in candidates if m == wanted]
    cards_text, sep, wild_text = text.partition("=")
    try:
        cards = Hand.parse(cards_text, rules)
    except ValueError as e:
        raise UsageError(str(e)) from None
    found = [m for m in candidates if m.cards == cards]
    if sep:
        wild = _card_index(wild_text)
        if wild is None:
            raise UsageError(f"after '=' comes the card W stands for (e.g. 4567W=8, or "
                             f"=W for W as a kicker or itself), not {wild_text!r}")
        if not cards:
            raise UsageError(f"the cards come before '=' (e.g. 4567W=8), not {text!r}")
        if cards["W"] == 0:
            raise UsageError(f"{cards} has no W: leave out '={wild_text}'")
        found = [m for m in found if m.wild == wild]
    return found


# ---- moves -----------------------------------------------------------------

def parse_last(text: str, rules) -> Move:
    """A last move from ``KIND/r/n/cards`` or from card text (``=C`` saying
    what W stands for) with one reading."""
    if text.strip().lower() in PASS_WORDS:
        raise UsageError("--last is the move to beat, and a pass beats nothing: leave "
                         "--last out to list the moves that lead a trick")
    if "/" in text:
        try:
            move = Move.parse(text, rules)
        except ValueError as e:
            raise UsageError(str(e)) from None
    else:
        try:
            readings = list(classify(Hand.parse(text.partition("=")[0], rules), rules))
        except ValueError as e:
            raise UsageError(str(e)) from None
        found = pick_move(text, readings, rules)
        if not found:
            raise UsageError(f"{text!r} is not a move in {_rules_label(rules)}")
        if len(found) > 1:
            options = ", ".join(f"{typed_form(m, readings)} ({m})" for m in found)
            raise UsageError(f"{text!r} can be read several ways; pass one of: {options}")
        move = found[0]
    if move.kind == MoveKind.PASS:
        raise UsageError("--last is the move to beat, and a pass beats nothing: leave "
                         "--last out to list the moves that lead a trick")
    return move


RULES_HELP = (f"a rule set: {', '.join(sorted(RULES))}; a '+happy' suffix adds the "
              f"platform options of RULES.md 10 (classic+happy)")


WILD_HELP = ("the laizi (wild) rank with --rules laizi, e.g. 7; the sky and ground "
             "ranks with --rules tiandi, e.g. 7J")


#: The commands that deal (and so draw the wild ranks --wild does not fix);
#: moves and solve list moves of ranks given.
DEALING_COMMANDS = ("simulate", "play", "arena")


def _rules_name(text: str) -> str:
    """--rules: any rule-set name get_rules takes ("classic", "laizi:7",
    "classic+happy")."""
    try:
        get_rules(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return text


def _rules_arg(args):
    """The rule set of --rules, with --wild's laizi rank when given (tiandi:
    its two ranks, sky first, as 7J)."""
    try:
        rules = get_rules(args.rules)
        wild = getattr(args, "wild", None)
        if wild is not None:
            if not rules.laizi:
                raise UsageError(f"--wild is the laizi rank: it needs --rules laizi "
                                 f"or tiandi, not {args.rules!r}")
            if rules.wild_ranks:
                # with_options would keep the name, which then names ranks
                # other than the ones in use
                base = args.rules.partition(":")[0]
                preset = args.rules.partition("+")[2]
                raise UsageError(f"--rules {args.rules} already fixes the wild "
                                 f"rank{'s' if rules.wild_count == 2 else ''} "
                                 f"({_ranks_text(rules)}): leave out --wild, or pass "
                                 f"--rules {base}{'+' + preset if preset else ''} "
                                 f"--wild {wild}")
            if rules.wild_count == 2:
                # (the API also takes the sky rank alone, before the ground
                # rank is drawn; a command's deal or position needs both)
                if len(wild.replace("10", "T")) != 2:
                    drawn = getattr(args, "command", None) in DEALING_COMMANDS
                    raise UsageError(f"--wild with --rules {args.rules} is both wild "
                                     f"ranks, sky then ground (--wild 7J), not {wild!r}"
                                     + ("; without --wild both are drawn" if drawn else ""))
            option = "wild_ranks" if rules.wild_count == 2 else "wild_rank"
            try:
                rules = rules.with_options(**{option: wild})
            except (TypeError, ValueError) as e:
                # (the message names the API's argument, not --wild)
                raise UsageError(f"--wild {wild!r}: {e}") from None
    except (TypeError, ValueError) as e:
        raise UsageError(str(e)) from None
    return rules


def _ranked_rules_name(args) -> str:
    """--rules with --wild's ranks in the name (laizi and 7: "laizi:7";
    tiandi+happy and 7J: "tiandi:7J+happy"), checked as _rules_arg checks
    them: simulate and play then run, print and record the run exactly as
    they do for that name."""
    if getattr(args, "wild", None) is None:
        return args.rules
    rules = _rules_arg(args)
    return _ranked_name(args.rules, "".join(CARD_CHARS[k] for k in rules.wild_ranks))


def _ranks_text(rules) -> str:
    """The wild ranks of a laizi rule set in words ("" when none is drawn)."""
    ranks = [CARD_CHARS[k] for k in rules.wild_ranks]
    if rules.wild_count == 2:
        return ", ".join(f"{which} rank {c}" for which, c in zip(("sky", "ground"), ranks))
    return f"wild rank {ranks[0]}" if ranks else ""


def _rules_label(rules) -> str:
    """The rule set's name and, for a laizi set, the wild ranks in use (a
    name given --wild does not carry them)."""
    wild = _ranks_text(rules) if rules.laizi else ""
    return f"{rules.name} ({wild})" if wild else rules.name


def _need_wild_arg(rules) -> None:
    """A laizi rule set without its wild ranks is a usage error naming the
    --wild to give (moves and solve list moves of a fixed rank)."""
    if rules.laizi and not rules.ready:
        if rules.wild_count == 2:
            raise UsageError(f"--rules {rules.name} needs both wild ranks, sky then "
                             f"ground: --wild 7J")
        raise UsageError(f"--rules {rules.name} needs the laizi rank: --wild RANK (3..2)")


def cmd_moves(args) -> int:
    rules = _rules_arg(args)
    _need_wild_arg(rules)
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
    print(f"{_rules_label(rules)}: {str(hand) or '-'} {what}: "
          f"{_plural(len(moves), 'legal move')}")
    print(f"{'#':>5}  {'kind':14s} {'cards':22s} {'rank':>4} {'len':>3}  wildcard")
    for i, m in enumerate(moves):
        rank = "" if m.kind == MoveKind.PASS else CARD_CHARS[m.rank]
        print(f"{i:>5}  {m.kind.name:14s} {str(m.cards) or '-':22s} {rank:>4} "
              f"{m.length:>3}  {m.wild_text}")
    return 0


# ---- simulate ----------------------------------------------------------------

def _clock(seconds: float) -> str:
    seconds = int(round(seconds))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}"


def _error_stream():
    """Where the command's messages go: standard error, or nowhere when it is
    closed (`2>&-`), since print(file=None) would write them to standard
    output, among the rows or the JSON there."""
    return sys.stderr if sys.stderr is not None else io.StringIO()


class ProgressBar:
    """A one-line progress bar with rate and ETA on a stream (standard error).
    A terminal redraws at most ten times a second; a log gets a line per
    tenth of the run. A stream that fails (closed, its reader gone) ends the
    drawing, never the run."""

    def __init__(self, total: int, stream=None, width: int = 30):
        self.total = max(total, 1)
        self.stream = stream if stream is not None else sys.stderr
        self.width = width
        self.start = time.perf_counter()
        try:
            self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        except ValueError:          # a closed stream
            self.tty, self.stream = False, None
        self.shown = -1.0

    def __call__(self, done: int) -> None:
        if self.stream is None:
            return
        try:
            self._draw(done)
        except (OSError, ValueError):
            self._stop()

    def _stop(self) -> None:
        """Draw no more. When the reader of standard error has gone, the
        unwritten bar stays in its buffer and every later message there would
        fail on it and end a finished run with status 1: standard error goes
        to devnull instead, as main does with standard output."""
        stream, self.stream = self.stream, None
        if stream is sys.stderr and stream is not None:
            try:
                fd = stream.fileno()
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, fd)
                os.close(devnull)
            except (OSError, ValueError, AttributeError):
                pass

    def _draw(self, done: int) -> None:
        frac = done / self.total
        now = time.perf_counter()
        if self.tty:
            if now - self.shown < 0.1 and done < self.total:
                return
            self.shown = now
        elif int(frac * 10) == int(self.shown * 10) and done < self.total:
            return
        else:
            self.shown = frac
        filled = int(frac * self.width)
        elapsed = max(now - self.start, 1e-9)
        rate = done / elapsed
        if done >= self.total:
            tail = f"in {_clock(elapsed)}"
        elif done > 0:
            tail = f"ETA {_clock((self.total - done) / rate)}"
        else:
            tail = "ETA ?"
        self.stream.write(f"{chr(13) if self.tty else ''}[{'#' * filled}"
                          f"{'.' * (self.width - filled)}] {frac:6.1%} "
                          f"{done}/{self.total} deals, {rate:,.0f}/s, {tail}"
                          f"{'' if self.tty else chr(10)}")
        self.stream.flush()

    def close(self) -> None:
        if self.tty and self.stream is not None:
            try:
                self.stream.write("\n")
                self.stream.flush()
            except (OSError, ValueError):
                self._stop()


def _fmt(x, digits: int = 4) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def _ci(iv, digits: int = 4) -> str:
    return "" if iv is None else f"(95% CI {iv[0]:.{digits}f} .. {iv[1]:.{digits}f})"


def summary_text(summary: dict, seconds: float, platform: bool = False,
                 games: int = 0) -> str:
    """The summary of ``report.Tally.summary()`` as aligned text lines; with
    ``platform`` (a rule set with the options of RULES.md 10) also the rob,
    show and double rates and the mean stake. ``games``: the deals asked
    for (--games), which tells a run of none from a run stopped early."""
    n = summary["deals"]
    if n == 0:
        if games == 0:
            return "no deals were simulated (--games 0): nothing to summarise"
        return "no deal finished: nothing to summarise"
    land = summary["landlord"]
    lines = [
        ("deals", f"{n}"),
        ("landlord win rate", f"{_fmt(land['win_rate'])}  {_ci(land['win_rate_ci95'])}"),
    ]
    for s in summary["seats"]:
        lines.append((f"seat {s['seat']} ({s['policy']})",
                      f"win rate {_fmt(s['win_rate'])} {_ci(s['win_rate_ci95'])}, "
                      f"mean score {_fmt(s['mean_score'], 3)} "
                      f"{_ci(s['mean_score_ci95'], 3)}"))
    if len(summary["by_policy"]) > 1:
        for name, p in summary["by_policy"].items():
            seats = ", ".join(map(str, p["seats"]))
            lines.append((f"policy {name} (seat{'s' if len(p['seats']) > 1 else ''} "
                          f"{seats})",
                          f"win rate {_fmt(p['win_rate'])} {_ci(p['win_rate_ci95'])}, "
                          f"mean score {_fmt(p['mean_score'], 3)}"))
    lines += [
        ("multiplier mean / max", f"{summary['multiplier_mean']:.3f} / "
                                  f"{summary['multiplier_max']}"),
        ("bombs per deal", f"{summary['bombs_per_deal']:.3f}"),
        ("spring rate", f"{summary['spring_rate']:.4f}"),
        ("anti-spring rate", f"{summary['anti_spring_rate']:.4f}"),
        ("moves per deal", f"{summary['moves_per_deal']:.2f}"),
    ]
    if platform:
        lines += [
            ("rob rate / robs per deal", f"{summary['rob_rate']:.4f} / "
                                         f"{summary['robs_per_deal']:.3f}"),
            ("show rate", f"{summary['show_rate']:.4f}"),
            ("double rate (per seat)", f"{summary['double_rate']:.4f}"),
            ("redeals per deal", f"{summary['redeals_per_deal']:.4f}"),
            ("mean stake (a farmer's)", f"{summary['mean_stake']:.3f}"),
        ]
    lines += [
        ("deals per second", f"{n / seconds:,.0f}" if seconds > 0 else "-"),
    ]
    width = max(len(k) for k, _ in lines)
    return "\n".join(f"{k:<{width}}  {v}" for k, v in lines) + \
        "\n(win rates: Wilson interval; mean scores: normal approximation)"


def _check_output(path: str, option: str) -> None:
    """Refuse, before any work, a path that cannot be written."""
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise UsageError(f"{option} {path}: the directory {parent} does not exist")
    if os.path.isdir(path):
        raise UsageError(f"{option} {path}: that is a directory; give a file name")
    if not os.access(parent, os.W_OK) or (os.path.exists(path)
                                          and not os.access(path, os.W_OK)):
        raise UsageError(f"{option} {path}: not writable")


class NpzRowWriter:
    """Rows streamed to ``path + '.part'`` (raw DEAL_DTYPE bytes, readable
    with ``np.fromfile(part, DEAL_DTYPE)`` should the process be killed), then
    on ``close`` compressed into ``path`` as ``np.savez_compressed(path,
    deals=rows)`` would write it."""

    def __init__(self, path: str):
        self.path = path
        self.part = path + ".part"
        self.count = 0
        try:
            self.file = open(self.part, "wb")
        except OSError as e:
            raise UsageError(f"--out {path}: {e.strerror or e}") from None

    def write(self, rows: np.ndarray) -> None:
        self.file.write(np.ascontiguousarray(rows, dtype=DEAL_DTYPE).tobytes())
        self.count += len(rows)

    def close(self, progress=None) -> str:
        """Compress the rows into ``path`` and remove the part file; returns
        the message that says so. ``progress``: a stream told that the
        compression runs (it can take a while). Interrupted or failed, it
        leaves ``path`` as it was and the rows in the part file: the
        archive is made under a temporary name and renamed whole."""
        self.file.close()
        if progress is not None:
            print(f"compressing {_plural(self.count, 'row')} into {_path_text(self.path)}",
                  file=progress, flush=True)
        header = {"descr": np.lib.format.dtype_to_descr(DEAL_DTYPE),
                  "fortran_order": False, "shape": (self.count,)}
        fd, temporary = tempfile.mkstemp(prefix=os.path.basename(self.path) + ".",
                                         suffix=".tmp",
                                         dir=os.path.dirname(os.path.abspath(self.path)))
        try:
            with os.fdopen(fd, "wb") as raw, \
                    zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED, allowZip64=True) as zf, \
                    zf.open("deals.npy", "w", force_zip64=True) as member, \
                    open(self.part, "rb") as src:
                np.lib.format.write_array_header_1_0(member, header)
                shutil.copyfileobj(src, member, 1 << 24)
            os.replace(temporary, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.remove(temporary)
            raise
        os.remove(self.part)
        return f"{_plural(self.count, 'row')} written to {_path_text(self.path)}"

    def kept(self) -> str:
        """Where the rows are when ``close`` was interrupted."""
        return (f"the {_plural(self.count, 'row')} are in {_path_text(self.part)} "
                f"(np.fromfile(part, DEAL_DTYPE))")


class ParquetRowWriter:
    """Rows appended to a Parquet file, one row group per chunk, in the
    columns of ``report.row_columns`` (``scores`` as ``score0``..``score2``).
    ``close`` leaves a valid file with every row written so far."""

    def __init__(self, path: str):
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError as exc:
            broken = broken_import(exc, "pyarrow")
            if broken:
                raise UsageError(f"--out FILE.parquet needs pyarrow, {broken}; or write "
                                 f"FILE.npz") from None
            raise UsageError("--out FILE.parquet needs pyarrow: pip install 'ddzfast[parquet]' "
                             "(or pyarrow), or write FILE.npz") from None
        self.pa = pa
        self.path = path
        self.count = 0
        schema = self._table(np.zeros(0, dtype=DEAL_DTYPE)).schema
        try:
            self.writer = pq.ParquetWriter(path, schema)
        except OSError as e:
            raise UsageError(f"--out {path}: {e}") from None

    def _table(self, rows: np.ndarray):
        return self.pa.table(row_columns(rows))

    def write(self, rows: np.ndarray) -> None:
        self.writer.write_table(self._table(rows))
        self.count += len(rows)

    def close(self, progress=None) -> str:
        """Finish the file (its footer); returns the message that says so."""
        try:
            self.writer.close()
        except KeyboardInterrupt:
            # a file without its footer is unreadable, and writing it is
            # quick: finish it (pyarrow's close of a closed writer does
            # nothing) and let the interrupt go on
            self.writer.close()
            raise
        return f"{_plural(self.count, 'row')} written to {_path_text(self.path)}"

    def kept(self) -> str:
        """Where the rows are when ``close`` was interrupted."""
        return f"{_path_text(self.path)} holds its {_plural(self.count, 'row')}"


def open_rows_writer(path: str, games: int):
    """A writer for ``--out``, opened (so checked) before any simulation."""
    if not path.lower().endswith((".npz", ".parquet")):
        raise UsageError(f"--out must end in .npz or .parquet, not {path!r}")
    _check_output(path, "--out")
    need = games * DEAL_DTYPE.itemsize
    free = shutil.disk_usage(os.path.dirname(os.path.abspath(path))).free
    if need > free:
        raise UsageError(f"--out {path}: {games} deals take up to {need / 2**30:,.1f} GiB "
                         f"before compression, and that disk has {free / 2**30:,.1f} GiB "
                         f"free; simulate fewer (--games, --start) at a time")
    if path.lower().endswith(".parquet"):
        return ParquetRowWriter(path)
    return NpzRowWriter(path)


def _check_plot(path: str) -> None:
    if not path.lower().endswith(".png"):
        raise UsageError(f"--plot writes a PNG: the file name must end in .png, "
                         f"not {path!r}")
    _check_output(path, "--plot")
    try:
        import_optional("matplotlib", "plot", "--plot")
    except ImportError as exc:
        raise UsageError(str(exc)) from None


class _RunInterrupts:
    """Ctrl-C and SIGTERM during a run (a batch system's stop ends it as
    Ctrl-C does): a KeyboardInterrupt at once, except inside ``held()``,
    where it waits for the block's end, so that a chunk's rows are written
    and counted whole or not at all. Installed from the main thread only
    (signal handlers can be set nowhere else); elsewhere ``held()`` holds
    nothing."""

    def __init__(self):
        self.holding = False
        self.pending = False
        self.previous: dict = {}

    def _handler(self, signum, frame) -> None:
        if self.holding:
            self.pending = True
        else:
            raise KeyboardInterrupt

    def __enter__(self) -> "_RunInterrupts":
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                self.previous[sig] = signal.signal(sig, self._handler)
        return self

    def __exit__(self, *exc) -> None:
        for sig, handler in self.previous.items():
            signal.signal(sig, handler)

    @contextlib.contextmanager
    def held(self):
        self.holding = True
        try:
            yield
        finally:
            self.holding = False
        if self.pending:
            self.pending = False
            raise KeyboardInterrupt


def _check_ray_backend(args) -> None:
    """--backend ray: ray importable and --address answering, or a
    UsageError, before any deal is played; --address without it is one
    too (the run would be local without a word)."""
    if args.backend != "ray":
        if args.address is not None:
            raise UsageError("--address is the Ray cluster of --backend ray: pass "
                             "--backend ray, or leave --address out")
        return
    try:
        ray_ready(args.address, args.connect_timeout)
    except (ImportError, ConnectionError, ValueError) as e:
        raise UsageError(str(e)) from None


def _add_ray_options(parser, what: str) -> None:
    """--backend, --address and --connect-timeout (simulate, arena)."""
    parser.add_argument("--backend", default="local", choices=["local", "ray"],
                        help=f"local threads, or a Ray cluster{what} (needs ray; "
                             f"default local)")
    parser.add_argument("--address", default=None, help="Ray cluster address (backend ray)")
    parser.add_argument("--connect-timeout", type=_seconds, default=RAY_CONNECT_TIMEOUT,
                        help="seconds to wait for the Ray address to answer "
                             f"(default {RAY_CONNECT_TIMEOUT:g})")


def cmd_simulate(args) -> int:
    # every check first: nothing is simulated for a run that cannot finish
    rules_name = _ranked_rules_name(args)
    try:
        policies = parse_policies(args.policies)
    except ValueError as e:
        # (a callable is no command-line argument)
        raise UsageError(f"--policies {args.policies}: "
                         f"{str(e).replace(CALLABLE_POLICY, '')}") from None
    try:
        check_deal_range(args.games, args.start)
    except (TypeError, ValueError) as e:
        raise UsageError(str(e)) from None
    _check_ray_backend(args)
    if args.plot:
        _check_plot(args.plot)
    writer = open_rows_writer(args.out, args.games) if args.out else None
    err = _error_stream()
    info = err if args.json else sys.stdout
    chunk = args.chunk or (RAY_CHUNK_DEALS if args.backend == "ray" else CHUNK_DEALS)
    tally = Tally([str(p) for p in policies])     # the CLI's policies are names
    # no bar without a standard error (`2>&-`): the bar is cosmetic
    bar = ProgressBar(args.games) if (not args.quiet and args.games > 0
                                      and sys.stderr is not None) else None
    begin = time.perf_counter()
    done = 0
    problem = None
    written = None      # what --out's message says once the file is closed
    with _RunInterrupts() as interrupts:
        try:
            for rows in simulate_parts(args.games, rules_name, policies, seed=args.seed,
                                       threads=args.threads, bidding=not args.no_bidding,
                                       backend=args.backend, address=args.address,
                                       start=args.start, progress=bar, part=chunk,
                                       connect_timeout=args.connect_timeout):
                # the file, the summary and the count agree: an interrupt
                # waits for the chunk to be in all three
                with interrupts.held():
                    if writer is not None:
                        writer.write(rows)
                    tally.add(rows)
                    done += len(rows)
        except KeyboardInterrupt:
            problem = f"interrupted after {done} of {args.games} deals"
        except (ValueError, TypeError, OSError, ImportError, MemoryError) as e:
            # OSError: a connection lost, or --out's file not written (a full disk)
            problem = f"stopped after {done} of {args.games} deals: {e}"
        finally:
            if bar is not None:
                bar.close()
            if writer is not None:
                try:
                    written = writer.close(err if bar is not None else None)
                except OSError as e:
                    raise UsageError(f"--out {_path_text(args.out)}: {e}") from None
                except KeyboardInterrupt:
                    problem = (f"interrupted while writing --out {_path_text(args.out)}: "
                               f"{writer.kept()}")
    seconds = time.perf_counter() - begin
    summary = tally.summary()
    if args.json:
        summary["run"] = {"rules": rules_name, "policies": list(policies),
                          "seed": args.seed, "start": args.start, "games": args.games,
                          "threads": args.threads, "backend": args.backend,
                          "bidding": not args.no_bidding, "seconds": seconds,
                          "complete": problem is None}
        print(json.dumps(summary, indent=2, allow_nan=False))
    else:
        print(f"{rules_name}, policies {','.join(map(str, policies))}, "
              f"seed {args.seed}, {args.threads} thread(s), backend {args.backend}")
        rules = get_rules(rules_name)
        platform = rules.platform != get_rules("classic").platform
        print(summary_text(summary, seconds, platform, args.games))
    if written is not None:
        print(written, file=info)
    if args.plot:
        if tally.deals:
            from ddzfast.report import plot_rows
            try:
                plot_rows(tally, args.plot,
                          title=f"{rules_name}: {tally.deals:,} deals, "
                          f"policies {', '.join(map(str, policies))}, seed {args.seed}")
            except OSError as e:
                print(f"ddzfast simulate: --plot {_path_text(args.plot)}: {e}", file=err)
                return 1
            print(f"plot written to {_path_text(args.plot)}", file=info)
        else:
            print("no deals: no plot written", file=info)
    if problem:
        print(f"ddzfast simulate: {problem}", file=err)
        return 130 if problem.startswith("interrupted") else 1
    return 0


# ---- play ------------------------------------------------------------------------

PLAY_HELP = """\
  33, 34567      play those cards
  STRAIGHT/4/5/45678   a move in full (KIND/rank/length/cards, as '?' shows)
  #N             move N of the '?' list
  pass           pass (also p or -)
  ?              list your legal moves with what to type for each
  quit           quit (q is a queen)
"""
# (told only where the deck has a W)
PLAY_HELP_W = """\
  4567W=8        W stands for 8 (a W move with several readings); 333W=W: W is a
                 kicker or plays as itself
"""


def _decision_help(game, choices) -> str:
    """The help at a decision before play: what to type."""
    no = no_choice(game)
    return (f"  type one of {choices} (as the question says; 'pass' is {no}: "
            f"{'no doubling' if no else 'no'})\n  quit           quit (also q)\n")


def _read_line() -> str:
    """A line of standard input ("" at its end). Bytes the input's encoding
    cannot decode (GBK typed into a UTF-8 terminal) come out as U+FFFD, which
    no move or bid reads, instead of a UnicodeDecodeError."""
    stdin = sys.stdin
    if stdin is None:           # closed (`<&-`): nothing to read
        return ""
    raw = getattr(stdin, "buffer", None)
    if raw is None:             # a text stream (a test's StringIO)
        return stdin.readline()
    return raw.readline().decode(stdin.encoding or "utf-8", errors="replace")


def _ask(prompt: str, out) -> str:
    out.write(prompt)
    out.flush()
    line = _read_line()
    if not line:
        raise EOFError
    return line.strip()


def _choose_move(game: Game, text: str, legal):
    """The legal move the person meant, or a message saying why not."""
    if not text:
        # (an empty card set would name PASS, whose cards are none)
        return None, "type a move (cards like 33), 'pass', or '?' for your legal moves"
    if text.lower() in PASS_WORDS:
        for m in legal:
            if m.kind == MoveKind.PASS:
                return m, None
        return None, "you cannot pass when leading"
    if text.startswith("#"):
        i = _ascii_int(text[1:])
        if i is not None and 0 <= i < len(legal):
            return legal[i], None
        return None, f"there is no move {text} (#0..#{len(legal) - 1}; '?' lists them)"
    try:
        matches = pick_move(text, list(legal), game.rules)
    except UsageError as e:
        return None, str(e)
    if not matches:
        return None, f"{text} is not a legal move now ('?' lists the legal moves)"
    if len(matches) > 1:
        options = "; ".join(f"{typed_form(m, list(legal))} ({m})" for m in matches)
        return None, f"{text} can be played several ways: type one of {options}"
    return matches[0], None


def _decision_prompt(game, legal) -> str:
    """What the terminal game asks for the decision now (RULES.md 5 and 10)."""
    kind = decision_kind(game)
    if kind == "bid":
        return f"your bid {legal} (0 passes): "
    if kind == "rob":
        return "rob the landlord (x2)? 1 robs, 0 passes: "
    if kind == "call":
        return "call the landlord? 1 calls, 0 passes: "
    if game.phase == "show":
        return "show your hand (x4)? 1 shows, 0 does not: "
    if game.phase == "landlord_show":
        return "show your hand (x2)? 1 shows, 0 does not: "
    return f"double your stake? {legal} (1 does not): "


def cmd_play(args, out=None) -> int:
    out = out if out is not None else sys.stdout
    rules = get_rules(_ranked_rules_name(args))
    game = Game(rules, args.seed, bidding=True, first_bidder=0)
    you = 0
    names = ("you", "bot 1", "bot 2")
    # tiandi: the ground rank is told once drawn, or here when the rule set
    # fixes both ranks
    out.write(wild_lines(game))
    ground_told = len(game.wild_ranks) == 2
    # (the W syntax only where the deck has a W)
    w_syntax = ", 4567W=8 to say W stands for 8" if rules.wildcard else ""
    out.write(f"ddzfast {rules.name}: you are seat 0 against two '{args.bots}' bots "
              f"(seed {game.seed}). Type cards like 33 or 34567{w_syntax}, 'pass', "
              f"'?' for your legal moves, #N for move N of that list, 'help' for "
              f"more, 'quit' to quit.\n")
    try:
        landlord_told = False
        while game.phase not in ("play", "done"):
            seat = game.to_move
            assert seat is not None
            redeals = game.redeals
            if seat == you:
                out.write(f"your hand: {game.hands[you]}\n")
                choices = game.legal_choices()
                text = _ask(_decision_prompt(game, choices), out)
                if text.lower() in ("q", "quit", "exit"):      # (no card is read here)
                    out.write("bye\n")
                    return 0
                if text.lower() in ("help", "h", "?"):
                    out.write(_decision_help(game, choices))
                    continue
                choice = no_choice(game) if text.lower() in PASS_WORDS else _ascii_int(text)
                if choice is None or choice not in choices:
                    what = "bid" if decision_kind(game) == "bid" else "choice"
                    out.write(f"not a legal {what}: {text!r}; choose from {choices}\n")
                    continue
                # (told as the bots' are; "seat 0" conjugates as they do)
                line = choice_line(f"seat {you}", game.phase, choice, game)
                game.choose(choice)
                out.write(line)
            else:
                choice = game.policy_choice(args.bots)
                line = choice_line(names[seat], game.phase, choice, game)
                game.choose(choice)
                out.write(line)
                if game.shown[seat] is not None and line.endswith("shows its hand\n"):
                    out.write(f"{names[seat]} hand: {game.hands[seat]}\n")
            if game.redeals != redeals:
                out.write(redeal_line(game))
            if game.landlord is not None and not landlord_told:
                # (tiandi: the ground rank is drawn as the landlord takes the
                # kitty, before the landlord's show and the doubling)
                out.write(landlord_line(game, names))
                landlord_told = True
                if rules.wild_count == 2 and not ground_told:
                    out.write(ground_line(game))
                    ground_told = True
        if not landlord_told:
            out.write(landlord_line(game, names))
        if rules.wild_count == 2 and not ground_told:
            out.write(ground_line(game))
        while not game.done:
            seat = game.to_move
            assert seat is not None
            if seat != you:
                move = game.policy_move(args.bots)
                game.play(move)
                out.write(move_line(names[seat], move, game.cards_left[seat]))
                continue
            legal = game.legal_moves()
            out.write(hand_line("your", game.hands[you], game.last_move))
            text = _ask("your move: ", out)
            if text.lower() in ("quit", "exit"):     # (q is a queen)
                out.write("bye\n")
                return 0
            if text.lower() in ("help", "h"):
                out.write(PLAY_HELP + (PLAY_HELP_W if rules.wildcard else ""))
                continue
            if text == "?":
                moves = list(legal)
                out.write(f"{_plural(len(moves), 'legal move')}:\n")
                for i, (m, typed) in enumerate(zip(moves, typed_forms(moves))):
                    out.write(f"  #{i:<3} {str(m):34s} type {typed}\n")
                continue
            move, problem = _choose_move(game, text, legal)
            if problem:
                out.write(problem + "\n")
                continue
            game.play(move)
            out.write(f"you play: {move}\n")
    except EOFError:
        out.write("\nbye\n")
        return 0
    result = game.result
    assert result is not None
    won = (result.winner == "landlord") == (game.landlord == you)
    out.write(f"{'you win' if won else 'you lose'}: {outcome_text(result)}\n")
    return 0


# ---- solve -------------------------------------------------------------------------

def _solve_cards(text: str) -> str:
    """Card text of the solve command: ddzfast's letters or the puzzle
    notation (0 = ten, Y = small joker X, Z = big joker D)."""
    from ddzfast.solve import from_puzzle_notation
    return from_puzzle_notation(text)


def _solve_last(text: str, rules) -> Move:
    """The move to beat, as parse_last reads it (KIND/r/n/cards, or cards
    with one reading, ``=C`` saying what W stands for), its ranks and cards
    in either notation, as the hands."""
    if "/" in text:
        fields = text.split("/")
        if len(fields) == 4:
            # (not the kind, whose name may hold a Z, nor the length)
            fields[1], fields[3] = _solve_cards(fields[1]), _solve_cards(fields[3])
        text = "/".join(fields)
    else:
        cards, eq, wild = text.partition("=")
        text = _solve_cards(cards) + eq + _solve_cards(wild)
    return parse_last(text, rules)


def _solve_rules(name: str, banned: list[str], wild: str | None = None):
    """The rule set (laizi: with the wild rank ``wild``, in either notation),
    without the banned kinds (puzzles ban e.g. 3+2)."""
    read = None if wild is None else _solve_cards(wild)
    try:
        rules = _rules_arg(argparse.Namespace(rules=name, wild=read))
    except UsageError as e:
        if read == wild:
            raise
        # (the message names the converted text, which was not typed)
        raise UsageError(f"{e} (--wild {wild!r}, read in puzzle notation as "
                         f"{read!r})") from None
    if not banned:
        return rules
    names = {k.upper() for k in banned}
    unknown = names - {k.name for k in MoveKind}
    if unknown or "PASS" in names:
        raise UsageError(f"--ban: unknown move kind(s) {sorted(unknown or {'PASS'})}; "
                         f"kinds are {', '.join(k.name for k in MoveKind if k)}")
    try:
        return rules.without_kinds(*sorted(names))
    except ValueError as e:
        raise UsageError(f"--ban: {e}") from None


def cmd_solve(args, out=None) -> int:
    from ddzfast.solve import solve
    out = out or sys.stdout       # looked up per call: tests swap sys.stdout
    wild = getattr(args, "wild", None)
    rules = _solve_rules(args.rules, args.ban or [], wild)
    _need_wild_arg(rules)
    hands = [_solve_cards(h) for h in args.hands]
    if len(hands) not in (2, 3):
        raise UsageError(f"give two hands (two players) or three (with --landlord), "
                         f"not {len(hands)}")
    # (solve's own messages name its parameters, not these options)
    if (args.last is None) != (args.last_seat is None):
        raise UsageError("--last and --last-seat go together: the move to beat and the "
                         "seat that played it")
    if args.last_seat is not None and args.last_seat == args.to_move:
        raise UsageError(f"--last-seat {args.last_seat} is the seat to move (--to-move "
                         f"{args.to_move}): a seat never beats its own move; to lead, "
                         f"leave --last out")
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

    ruleset = _rules_label(rules) + (f" without {', '.join(args.ban)}" if args.ban else "")
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

class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line, as the commands' own:
    ``ddzfast simulate: argument --games: ... (see --help)``, without the
    usage block."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: {message} (see --help)\n")


def build_parser() -> argparse.ArgumentParser:
    ap = _Parser(prog="ddzfast", description="Dou Dizhu legal moves, simulation, play, "
                 "endgame solving and bot evaluation "
                 f"(rule sets: {', '.join(RULES)})")
    ap.add_argument("--version", action="version", version=f"ddzfast {__version__}")
    sub = ap.add_subparsers(dest="command", required=True)

    m = sub.add_parser("moves", help="list the legal moves of a hand")
    m.add_argument("hand", help="card text, e.g. 33W45678")
    m.add_argument("--last", help="the move to beat: card text (4567W=8 says what W "
                   "stands for) or KIND/r/n/cards")
    m.add_argument("--rules", default="classic", type=_rules_name, metavar="RULES",
                   help=RULES_HELP)
    m.add_argument("--wild", default=None, metavar="RANK", help=WILD_HELP)
    m.set_defaults(func=cmd_moves)

    seed_type = _int_in(0, MAX_SEED, " (seeds are 0 .. 2**64 - 1)")
    s = sub.add_parser("simulate", help="simulate deals with built-in policies")
    s.add_argument("--rules", default="classic", type=_rules_name, metavar="RULES",
                   help=RULES_HELP)
    s.add_argument("--wild", default=None, metavar="RANK",
                   help=WILD_HELP + " (default: drawn per deal)")
    s.add_argument("--games", type=_int_in(0, MAX_DEAL_INDEX), default=10000,
                   help="deals to simulate (default %(default)s)")
    s.add_argument("--policies", default="random,random,random",
                   help="one or three of: " + ", ".join(POLICIES) + " (comma-separated)")
    s.add_argument("--threads", type=_int_in(1, MAX_THREADS), default=1,
                   help="threads on this machine (backend local; default 1)")
    s.add_argument("--seed", type=seed_type, default=0,
                   help="seed of the run: deal i is deal_seed(seed, i) (default 0)")
    s.add_argument("--start", type=_int_in(0, MAX_DEAL_INDEX), default=0,
                   help="index of the first deal (to split a run: the rows of "
                        "--start S --games N are rows S..S+N-1 of one long run)")
    _add_ray_options(s, "")
    s.add_argument("--no-bidding", action="store_true",
                   help="landlord seat 0, base 1, as DouZero")
    s.add_argument("--out", help="write the rows to FILE.npz or FILE.parquet (streamed "
                                 "in chunks)")
    s.add_argument("--json", action="store_true",
                   help="print the summary as JSON (other messages go to stderr)")
    s.add_argument("--plot", help="save a PNG of the score distributions and win rates "
                                  "(needs matplotlib)")
    s.add_argument("--chunk", type=_int_in(1, 1 << 24), default=None,
                   help=f"deals per chunk simulated and written (default {CHUNK_DEALS}; "
                        f"{RAY_CHUNK_DEALS} with --backend ray)")
    s.add_argument("--quiet", action="store_true", help="no progress bar")
    s.set_defaults(func=cmd_simulate)

    p = sub.add_parser("play", help="play one deal in the terminal against two bots")
    p.add_argument("--rules", default="classic", type=_rules_name, metavar="RULES",
                   help=RULES_HELP)
    p.add_argument("--wild", default=None, metavar="RANK",
                   help=WILD_HELP + " (default: drawn)")
    p.add_argument("--seed", type=seed_type, default=None,
                   help="the deal's seed (default: a fresh one, printed)")
    p.add_argument("--bots", default="greedy", choices=list(POLICIES),
                   help="the two bots' policy (default greedy)")
    p.set_defaults(func=cmd_play)

    v = sub.add_parser(
        "solve", help="solve an open-hand endgame: who wins with best play",
        description="Solve an open-hand endgame exactly. Two hands: a two-player "
        "puzzle; three hands and --landlord: the landlord against two farmers. Cards "
        "in ddzfast's letters (3456789TJQKA2XDW) or the puzzle notation (0 = ten, "
        "Y = small joker, Z = big joker).")
    v.add_argument("hands", nargs="+", metavar="HAND",
                   help="the hands of seats 0, 1 (and 2), e.g. KK5543 225543")
    seat_type = _int_in(0, 2, " (a seat is 0, 1 or 2)")
    v.add_argument("--landlord", type=seat_type, default=None,
                   help="landlord seat (three hands)")
    v.add_argument("--to-move", type=seat_type, default=0,
                   help="the seat to move (default 0)")
    v.add_argument("--last", default=None,
                   help="the move to beat: cards or KIND/r/n/cards (with --last-seat)")
    v.add_argument("--last-seat", type=seat_type, default=None,
                   help="the seat that played --last")
    v.add_argument("--rules", default="classic", type=_rules_name, metavar="RULES",
                   help=RULES_HELP)
    v.add_argument("--wild", default=None, metavar="RANK", help=WILD_HELP)
    v.add_argument("--ban", action="append", metavar="KIND",
                   help="a move kind the puzzle bans, e.g. TRIPLE_PAIR (3+2); repeatable")
    v.add_argument("--all", action="store_true", help="list every winning move")
    v.add_argument("--max-nodes", type=_int_in(1, (1 << 63) - 1), default=None,
                   help="stop after N positions")
    v.add_argument("--seconds", type=_seconds, default=None, help="stop after S seconds")
    v.set_defaults(func=cmd_solve)

    r = sub.add_parser(
        "arena", help="DouZero's evaluation protocol: agent A against agent B",
        description="Play A against B as DouZero evaluates agents: uniform deals from "
        "the seed (DouZero's generate_eval_data.py layout, the landlord holding the "
        "kitty, no bidding; in another rule set, the engine's deals), each played with "
        "A as the landlord against B as both farmers and the reverse; WP and ADP per "
        "role and averaged, with 95% intervals. With --bidding (not DouZero's "
        "protocol) each deal is bid and played in six seatings, scored per seat.")
    r.add_argument("--a", required=True, help=f"agent A: {AGENT_NAMES}")
    r.add_argument("--b", required=True, help=f"agent B: {AGENT_NAMES}")
    r.add_argument("--deals", type=_int_in(0, MAX_DEALS), default=10000,
                   help="deals, each played twice with the roles swapped (six times "
                        "with --bidding; default %(default)s)")
    r.add_argument("--seed", type=_int_in(0, (1 << 32) - 1, " (NumPy's RandomState seeds)"),
                   default=0, help="seed of the deals: they are those of DouZero's "
                                   "generate_eval_data.py after np.random.seed(SEED) "
                                   "(default 0)")
    r.add_argument("--threads", type=_int_in(1, MAX_THREADS), default=1,
                   help="threads for a match of two built-in policies")
    r.add_argument("--rules", default="classic", type=_rules_name, metavar="RULES",
                   help="the rule set (default classic: DouZero's deals; another one "
                        "is dealt by the engine); its platform options, e.g. "
                        "classic+happy, are played with --bidding")
    r.add_argument("--wild", default=None, metavar="RANK",
                   help=WILD_HELP + " (default: drawn per deal)")
    r.add_argument("--bidding", action="store_true",
                   help="bid each deal (RULES.md 5, or 10's robbing, showing and "
                        "doubling) and play it in six seatings, each agent alone in each "
                        "seat once (not DouZero's protocol; built-in policies only)")
    _add_ray_options(r, " for a match of two built-in policies")
    r.add_argument("--json", action="store_true", help="print the result as JSON")
    r.set_defaults(func=cmd_arena)
    return ap


def cmd_arena(args) -> int:
    """DouZero's evaluation protocol between two agents (ddzfast.arena)."""
    from ddzfast.arena import (CALLABLE_AGENT, CALLABLE_BIDDER, arena, arena_rules,
                               check_ray_agents, resolve_agent)
    rules = _ranked_rules_name(args)
    try:
        # the agents and the rule set first: a missing extra, or an agent
        # the rule set does not take, is reported before any deal is played
        a, b = resolve_agent(args.a), resolve_agent(args.b)
        arena_rules(rules, a, b, bidding=args.bidding)
        if args.backend == "ray":
            check_ray_agents(a, b)
    except (ImportError, ValueError) as e:
        # (a callable is no command-line argument)
        raise UsageError(str(e).replace(CALLABLE_AGENT, "").replace(CALLABLE_BIDDER, "")) \
            from None
    _check_ray_backend(args)
    result = arena(a, b, deals=args.deals, seed=args.seed, threads=args.threads,
                   rules=rules, backend=args.backend, address=args.address,
                   connect_timeout=args.connect_timeout, bidding=args.bidding)
    if args.json:
        print(json.dumps(result.as_dict(), indent=2, allow_nan=False))
    else:
        print(result.table())
        for side, stats in result.agents.items():
            # "A (name)": the same agent may play both sides
            print(f"  {side.upper()} ({getattr(result, side)}): "
                  + ", ".join(f"{k} {v}" for k, v in stats.items()))
    return 0


def _command_name(args: argparse.Namespace | None) -> str:
    """``ddzfast COMMAND`` for messages (``ddzfast`` while the arguments
    are read, ``args`` None)."""
    return "ddzfast" if args is None else f"ddzfast {args.command}"


def main(argv=None) -> int:
    """Run the command line ``argv`` (default: sys.argv[1:]) and return its
    exit status, argparse's (0 for --help and --version, 2 for its errors)
    included."""
    closed = sys.stdout is None
    if closed:
        # standard output closed (`>&-`): what the command prints goes
        # nowhere, as to a reader that has gone (exit status 1), while what
        # it makes besides (--out files) is still made; set before argparse
        # runs, which would print --help and --version on standard error
        sys.stdout = open(os.devnull, "w")
    elif hasattr(sys.stdout, "reconfigure"):
        # what a person typed is echoed back (ddzfast play), and a terminal
        # of another encoding (GBK, ASCII) may not hold every character of
        # it: such a character is written as its escape, not a traceback
        sys.stdout.reconfigure(errors="backslashreplace")
    args: argparse.Namespace | None = None
    try:
        try:
            args, extra = build_parser().parse_known_args(argv)
        except SystemExit as e:     # argparse: --help, --version (0), its errors (2)
            code = e.code if isinstance(e.code, int) else 2
            return 1 if closed and code == 0 else code
        if extra:
            # parse_args would name the program, not the subcommand, in the message
            print(f"ddzfast {args.command}: unrecognized arguments: {' '.join(extra)} "
                  f"(see --help)", file=_error_stream())
            return 2
        status = args.func(args)
        # output still buffered fails here, while BrokenPipeError is caught
        sys.stdout.flush()
        return 1 if closed and status == 0 else status
    except UsageError as e:
        print(f"{_command_name(args)}: {e}", file=_error_stream())
        return 2
    except KeyboardInterrupt:
        print(f"\n{_command_name(args)}: interrupted", file=_error_stream())
        return 130
    except BrokenPipeError:
        # The reader closed the pipe (`ddzfast moves ... | head`): nothing more
        # can be said, and a traceback would be noise. Python flushes stdout
        # again at exit, which would fail the same way: standard output goes
        # to devnull instead (the recipe of the Python docs, signal module).
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    finally:
        if closed:
            sys.stdout.close()
            sys.stdout = None


if __name__ == "__main__":
    sys.exit(main())
