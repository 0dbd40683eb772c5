"""The ddzfast command line: driven as a user would, in a subprocess (the
`run` fixture), and in this process through `cli.main` where that is enough;
bad input and the rough edges a new user hits (never a traceback, checks
before any work, streaming output, --json, --plot, --version, W readings as
text in `play`), and laizi's --wild. The regressions of the hardening review
each name the defect they guard."""
import io
import os
import json
import signal
import sys
import time

import numpy as np
import pytest

import ddzfast
from ddzfast import DEAL_DTYPE, Game, cli, report
from ddzfast._engine import POLICIES
from ddzfast.constants import CARD_CHARS
from helpers import RULE_SETS, cli_rules, failing_import


@pytest.fixture
def run(run_python):
    """`ddzfast ARGS` as a user runs it, in a subprocess: the CompletedProcess
    (no traceback in its output)."""
    def run(*args, stdin=None, timeout=300):
        r = run_python(*args, module="ddzfast.cli", input=stdin, timeout=timeout)
        assert "Traceback" not in r.stdout + r.stderr, r.stderr
        return r
    return run


def test_moves(run):
    r = run("moves", "3333W", "--rules", "biegang")
    assert r.returncode == 0, r.stderr
    assert "biegang: 3333W leading: 9 legal moves" in r.stdout
    assert "HEAVEN_BOMB" in r.stdout and "W as 3" in r.stdout and "W as kicker" in r.stdout
    r = run("moves", "4455XD", "--last", "33")
    assert r.returncode == 0 and "4455XD after PAIR 33: 4 legal moves" in r.stdout
    r = run("moves", "334455W", "--last", "STRAIGHT/4/5/4567W", "--rules", "super")
    assert r.returncode == 0 and "PASS" in r.stdout


@pytest.mark.parametrize("rules", RULE_SETS)
def test_moves_of_every_rule_set(capsys, rules):
    """`moves` takes every rule set of helpers.RULE_SETS (laizi with --wild) and
    lists exactly the legal moves of the Python API."""
    hand = "33377899"
    code, out, err = main(capsys, "moves", hand, *cli_rules(rules))
    moves = ddzfast.legal_moves(hand, None, rules)
    assert code == 0 and f"{hand} leading: {len(moves)} legal moves" in out, out
    rows = [line.split() for line in out.splitlines() if line.split()[:1] != []
            and line.split()[0].isdigit()]
    assert [(r[1], r[2]) for r in rows] == [(m.kind.name, str(m.cards)) for m in moves]


def test_moves_of_an_empty_hand(capsys):
    """An empty hand was printed as nothing between two spaces."""
    code, out, _ = main(capsys, "moves", "")
    assert code == 0 and out.startswith("classic: - leading: 0 legal moves"), out
    code, out, _ = main(capsys, "moves", "", "--last", "33")
    assert code == 0 and "- after PAIR 33: 1 legal move" in out, out


def test_moves_errors(run):
    r = run("moves", "33Z")
    assert r.returncode == 2 and "unknown card 'Z'" in r.stderr
    r = run("moves", "33W")
    assert r.returncode == 2 and "wildcard" in r.stderr
    r = run("moves", "3456", "--last", "4567W", "--rules", "super")
    assert r.returncode == 2 and "several ways" in r.stderr
    r = run("moves", "3456", "--last", "34")
    assert r.returncode == 2 and "not a move" in r.stderr


def test_simulate_writes_rows(run, tmp_path):
    out = tmp_path / "deals.npz"
    r = run("simulate", "--rules", "super", "--games", "3000", "--policies",
            "random,greedy,greedy", "--threads", "2", "--seed", "4", "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert "landlord win rate" in r.stdout and "95% CI" in r.stdout
    assert "deals per second" in r.stdout and "100.0% 3000/3000" in r.stderr
    rows = np.load(out)["deals"]
    assert np.array_equal(rows, ddzfast.simulate(3000, "super", ("random", "greedy", "greedy"),
                                                 seed=4))
    r = run("simulate", "--games", "10", "--policies", "smart")
    assert r.returncode == 2 and "unknown policy" in r.stderr
    r = run("simulate", "--games", "10", "--out", str(tmp_path / "x.csv"))
    assert r.returncode == 2 and ".npz or .parquet" in r.stderr


def test_play_fed_by_stdin(run):
    # bid 3 (landlord), then bad input of every sort, then quit
    script = "\n".join(["9", "3", "ZZ", "33333", "#999", "pass", "?", "quit"]) + "\n"
    r = run("play", "--seed", "11", stdin=script)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "not a legal bid: '9'" in out
    assert "landlord: you (base 3)" in out
    assert "unknown card 'Z'" in out
    assert "5 of '3'" in out
    assert "there is no move #999" in out
    assert "you cannot pass when leading" in out
    assert "#0 " in out


def test_play_a_whole_deal_to_the_end(run):
    # always play the first listed legal move (PASS when following)
    script = "0\n0\n0\n" + "#0\n" * 80
    r = run("play", "--seed", "5", "--bots", "random", stdin=script)
    assert r.returncode == 0, r.stderr
    assert ("you win" in r.stdout) or ("you lose" in r.stdout) or ("bye" in r.stdout)


def test_play_against_expert_bots(run):
    script = "0\n0\n0\n" + "#0\n" * 80
    r = run("play", "--seed", "5", "--bots", "expert", stdin=script)
    assert r.returncode == 0, r.stderr
    assert "two 'expert' bots" in r.stdout
    assert ("you win" in r.stdout) or ("you lose" in r.stdout) or ("bye" in r.stdout)


# ---- in this process: cli.main, and the regressions of the hardening review ---

def main(capsys, *args):
    """Run `ddzfast ARGS` in this process: (exit status, stdout, stderr).
    cli.main returns its status, argparse's errors and --version included."""
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


# ---- simulate on bad input and rough edges ------------------------------------

def test_version(run, capsys):
    """There was no --version: `ddzfast --version` prints the package version, in this
    process and as a command."""
    code, out, err = main(capsys, "--version")
    assert code == 0 and out.strip() == f"ddzfast {ddzfast.__version__}"
    r = run("--version", timeout=120)
    assert r.returncode == 0 and ddzfast.__version__ in r.stdout


def test_python_m_ddzfast(run_python):
    """`python -m ddzfast` ran nothing (the package had no __main__): it is
    the command, as `python -m ddzfast.cli` is."""
    r = run_python("moves", "3334", module="ddzfast", timeout=120)
    assert r.returncode == 0, r.stderr
    assert "3334 leading: 5 legal moves" in r.stdout and "TRIPLE_SINGLE" in r.stdout


@pytest.mark.parametrize("args, words", [
    (("--games", "1000000000000", "--out", "DIR/x.npz"), "GiB"),
    (("--games", "9223372036854775808"), "not in 0..9223372036854775807"),
    (("--games", "-1"), "not in 0.."),
    (("--games", "10", "--start", "9223372036854775800"), "2**63 - 1"),
    (("--games", "²"), "is not a whole number"),
    (("--threads", "1099511627776"), "not in 1..1024"),
    (("--threads", "0"), "not in 1..1024"),
    (("--threads", "1.5"), "not a whole number"),
    (("--seed", "-1"), "seeds are 0 .. 2**64 - 1"),
    (("--seed", "18446744073709551616"), "seeds are 0 .. 2**64 - 1"),
    (("--policies", "smart"), "unknown policy 'smart'"),
    (("--policies", "random,greedy"), "one policy or three"),
    (("--out", "DIR/missing/x.npz"), "does not exist"),
    (("--out", "DIR/adir.npz"), "is a directory"),
    (("--out", "DIR/x.csv"), ".npz or .parquet"),
    (("--plot", "DIR/x.jpg"), "PNG"),
    (("--plot", "DIR/missing/x.png"), "does not exist"),
    (("--connect-timeout", "0"), "positive, finite number of seconds"),
])
def test_simulate_bad_input_is_a_message_before_any_work(capsys, tmp_path, args, words):
    """Bad simulate arguments surfaced only after simulating, or as tracebacks: each is
    a usage message before any deal is played."""
    (tmp_path / "adir.npz").mkdir()
    args = [a.replace("DIR", str(tmp_path)) for a in args]
    begin = time.monotonic()
    code, out, err = main(capsys, "simulate", "--games", "300000", *args)
    assert code == 2 and words in err, err
    assert "/300000 deals" not in err    # no progress bar: nothing was simulated
    assert time.monotonic() - begin < 5
    assert not (tmp_path / "x.npz").exists() and not (tmp_path / "x.npz.part").exists()


def test_bad_out_is_found_before_simulating_in_a_subprocess(run, tmp_path):
    """The old CLI ran the whole simulation, then failed with a traceback."""
    begin = time.monotonic()
    r = run("simulate", "--games", "2000000", "--out", str(tmp_path / "no" / "x.npz"),
            timeout=120)
    assert r.returncode == 2 and "does not exist" in r.stderr
    (tmp_path / "d.parquet").mkdir()
    r = run("simulate", "--games", "2000000", "--out", str(tmp_path / "d.parquet"),
            timeout=120)
    assert r.returncode == 2 and "is a directory" in r.stderr
    assert time.monotonic() - begin < 10     # the old CLI simulated first


def test_parquet_without_pyarrow_is_refused_first(capsys, tmp_path, monkeypatch):
    """Without pyarrow, --out x.parquet failed after the whole simulation: it is
    refused first, naming the extra to install."""
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    code, out, err = main(capsys, "simulate", "--games", "300000",
                          "--out", str(tmp_path / "x.parquet"))
    assert code == 2 and "needs pyarrow" in err and "pip install 'ddzfast[parquet]'" in err
    assert "/300000 deals" not in err    # refused before simulating
    assert not (tmp_path / "x.parquet").exists()


def test_parquet_with_a_pyarrow_that_fails_to_import(capsys, tmp_path, monkeypatch):
    """pyarrow 26 refuses numpy 1.x at import, and pip installs it beside numpy
    1.26 (its metadata does not require numpy 2): --out x.parquet said pyarrow
    was needed and to install the extra that had installed it. It says that
    pyarrow failed to import, and why."""
    failing_import(monkeypatch, "pyarrow",
                   ImportError("pyarrow requires NumPy 2.0 or newer, found 1.26.4"))
    code, out, err = main(capsys, "simulate", "--games", "300000",
                          "--out", str(tmp_path / "x.parquet"))
    assert code == 2 and "/300000 deals" not in err
    assert ("needs pyarrow, which is installed but failed to import: pyarrow requires "
            "NumPy 2.0 or newer, found 1.26.4" in err)
    assert "pip install" not in err
    assert not (tmp_path / "x.parquet").exists()


def test_plot_with_a_matplotlib_that_fails_to_import(capsys, tmp_path, monkeypatch):
    """As for pyarrow: a matplotlib that is installed but fails its own import
    is not reported as missing."""
    failing_import(monkeypatch, "matplotlib",
                   ImportError("numpy.core.multiarray failed to import"))
    code, out, err = main(capsys, "simulate", "--games", "300000",
                          "--plot", str(tmp_path / "x.png"))
    assert code == 2 and "/300000 deals" not in err
    assert ("--plot needs matplotlib, which is installed but failed to import: "
            "numpy.core.multiarray failed to import" in err)
    assert "pip install" not in err


def test_plot_without_matplotlib_is_refused_first(capsys, tmp_path, monkeypatch):
    """Without matplotlib, --plot failed after the whole simulation: it is refused
    first, naming the extra to install."""
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    code, out, err = main(capsys, "simulate", "--games", "300000",
                          "--plot", str(tmp_path / "x.png"))
    assert code == 2 and "pip install 'ddzfast[plot]'" in err
    assert "/300000 deals" not in err


def test_ray_backend_without_ray(capsys, monkeypatch):
    """--backend ray without Ray installed was a traceback: it is a message naming the
    extra to install."""
    monkeypatch.setitem(sys.modules, "ray", None)
    code, out, err = main(capsys, "simulate", "--games", "10", "--backend", "ray")
    assert code == 2 and "pip install 'ddzfast[ray]'" in err


def test_ray_backend_with_a_ray_that_fails_its_own_import(capsys, monkeypatch):
    """A Ray that is installed but fails its own import (built for another
    numpy, say) was reported as missing, naming the extra that had installed
    it: the message says that its import failed, and why."""
    failing_import(monkeypatch, "ray", ImportError("ray is built for another numpy"))
    code, out, err = main(capsys, "simulate", "--games", "10", "--backend", "ray")
    assert code == 2 and "ddzfast[ray]" not in err
    assert ("backend 'ray' needs ray, which is installed but failed to import: "
            "ray is built for another numpy") in err


def test_ray_backend_without_ray_in_a_subprocess(run_python):
    """--backend ray without Ray, in a fresh process: exit status 2 and the install
    hint, never a traceback."""
    code = ("import sys; sys.modules['ray'] = None\n"
            "from ddzfast.cli import main\n"
            "sys.exit(main(['simulate', '--games', '10', '--backend', 'ray']))\n")
    r = run_python(code=code, timeout=120)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "pip install 'ddzfast[ray]'" in r.stderr


def test_ray_dead_address_is_a_message_within_seconds(run):
    """The old CLI hung for minutes in ray.init with no message."""
    pytest.importorskip("ray")
    begin = time.monotonic()
    r = run("simulate", "--games", "10", "--backend", "ray", "--address", "127.0.0.1:1",
            "--connect-timeout", "5", timeout=60)
    assert r.returncode == 2 and "no Ray cluster at '127.0.0.1:1'" in r.stderr
    assert time.monotonic() - begin < 30


def test_games_zero_has_no_rates(capsys):
    """--games 0 printed a win rate, an interval and a speed over no deals: it says
    that no deals were simulated."""
    code, out, err = main(capsys, "simulate", "--games", "0")
    assert code == 0 and "no deals were simulated" in out
    assert "0.0000 .. 1.0000" not in out and "deals per second" not in out
    code, out, err = main(capsys, "simulate", "--games", "0", "--json")
    s = json.loads(out)
    assert s["deals"] == 0 and s["landlord"]["win_rate"] is None


def test_json_summary(capsys, tmp_path):
    """There was no --json: stdout is the run's summary as JSON only, equal to
    report.summarize of the same rows."""
    code, out, err = main(capsys, "simulate", "--games", "2000", "--policies",
                          "random,greedy,greedy", "--seed", "3", "--json",
                          "--out", str(tmp_path / "x.npz"))
    assert code == 0
    s = json.loads(out)                    # stdout is JSON only
    rows = ddzfast.simulate(2000, "classic", "random,greedy,greedy", seed=3)
    assert s == {**ddzfast.report.summarize(rows, "random,greedy,greedy"), "run": s["run"]}
    assert s["run"]["complete"] and s["run"]["seed"] == 3
    assert "2000 rows written" in err


def test_out_streams_in_chunks_npz_and_parquet(capsys, tmp_path):
    """--out kept every row in memory until the end: it streams in chunks, and the .npz
    and .parquet files hold exactly simulate's rows."""
    expect = ddzfast.simulate(2500, "biegang", ("greedy", "random", "greedy"), seed=9,
                              threads=2)
    code, out, err = main(capsys, "simulate", "--rules", "biegang", "--games", "2500",
                          "--policies", "greedy,random,greedy", "--seed", "9",
                          "--threads", "2", "--chunk", "300", "--quiet",
                          "--out", str(tmp_path / "x.npz"))
    assert code == 0 and "2500 rows written" in out
    got = np.load(tmp_path / "x.npz")["deals"]
    assert got.dtype == DEAL_DTYPE and np.array_equal(got, expect)
    assert not (tmp_path / "x.npz.part").exists()
    pq = pytest.importorskip("pyarrow.parquet")
    code, out, err = main(capsys, "simulate", "--rules", "biegang", "--games", "2500",
                          "--policies", "greedy,random,greedy", "--seed", "9",
                          "--chunk", "700", "--quiet", "--out", str(tmp_path / "x.parquet"))
    assert code == 0
    table = pq.read_table(tmp_path / "x.parquet")
    assert table.num_rows == 2500
    assert np.array_equal(table.column("score1").to_numpy(), expect["scores"][:, 1])
    assert np.array_equal(table.column("seed").to_numpy(), expect["seed"])


def test_start_splits_a_run(capsys, tmp_path):
    """There was no --start: a run from deal 50 is exactly the tail of the run from
    deal 0."""
    main(capsys, "simulate", "--games", "100", "--start", "50", "--seed", "2", "--quiet",
         "--out", str(tmp_path / "tail.npz"))
    tail = np.load(tmp_path / "tail.npz")["deals"]
    assert np.array_equal(tail, ddzfast.simulate(150, seed=2)[50:])


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_interrupted_huge_run_keeps_its_rows(run_python, tmp_path, sig):
    """--games 10**12 without --out streams (flat memory, an ETA); an
    interruption ends it with a summary and the rows so far, no traceback."""
    out = tmp_path / "x.npz"
    p = run_python.popen("simulate", "--games", "1000000000000", "--chunk", "2000",
                         module="ddzfast.cli")
    # (twenty million deals: far more than four seconds play, and their
    # file's 1.8 GiB fit the free disk the CLI asks for before it starts)
    q = run_python.popen("simulate", "--games", "20000000", "--chunk", "2000",
                         "--out", str(out), module="ddzfast.cli")
    time.sleep(4)
    for proc in (p, q):
        proc.send_signal(sig)
    results = [proc.communicate(timeout=60) for proc in (p, q)]
    for proc, (stdout, stderr) in zip((p, q), results):
        assert proc.returncode == 130, stderr
        assert "Traceback" not in stderr and "interrupted after" in stderr
        assert "landlord win rate" in stdout
    assert "ETA" in results[0][1]
    rows = np.load(out)["deals"]
    written = int(results[1][0].split(" rows written")[0].split()[-1])
    assert len(rows) == written > 0
    assert np.array_equal(rows, ddzfast.simulate(len(rows)))


def test_a_reader_that_stops_early_ends_it_quietly(run_python):
    """Regression (audit): `ddzfast moves ... | head -1` printed a
    BrokenPipeError traceback once head had gone. The output here (tiandi's
    moves of a laizi-rich hand, most of a megabyte) outlasts any pipe buffer,
    so the reader's close always cuts it short."""
    p = run_python.popen("moves", "3334445556667777JJJJ", "--rules", "tiandi", "--wild", "7J",
                         module="ddzfast.cli")
    first = p.stdout.readline()
    p.stdout.close()
    stderr = p.stderr.read()
    assert p.wait(timeout=120) == 1
    assert "legal moves" in first and stderr == ""


@pytest.mark.parametrize("argv", [
    ["moves", "33"], ["solve", "33", "44"], ["arena", "--a", "expert", "--b", "greedy",
                                            "--deals", "3"],
    ["simulate", "--games", "5", "--out", "{out}"], ["play", "--seed", "1"],
    ["--version"], ["--help"]])
def test_a_closed_standard_output_ends_it_quietly(run_python, tmp_path, argv):
    """Regression (a user's review): with standard output closed (`>&-`)
    every command ended in an AttributeError traceback. It runs with its
    output going nowhere, makes its files, and exits with status 1, as when
    a reader has gone. --version and --help (review of the command line,
    2026-12-07) printed on standard error and exited 0: argparse writes to
    standard error when standard output is None."""
    out = tmp_path / "rows.npz"
    argv = [a.format(out=out) for a in argv]
    code = ("import os, sys\n"
            "os.close(1)\n"
            "sys.stdout = None\n"          # what Python starts with under >&-
            "sys.stdin = open(os.devnull)\n"
            "from ddzfast.cli import main\n"
            f"sys.exit(main({argv!r}))\n")
    r = run_python(code=code)
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    if argv[0].startswith("--"):
        assert r.stderr == ""
    if "--out" in argv:
        assert len(np.load(out)["deals"]) == 5


def _interrupt_this_process():
    os.kill(os.getpid(), signal.SIGINT)


def test_an_interrupt_keeps_the_file_the_summary_and_the_count_equal(capsys, tmp_path,
                                                                     monkeypatch):
    """Regression (review of the command line, 2026-12-07): Ctrl-C or
    SIGTERM landing while a chunk was written and counted (here: as the
    second chunk is counted) left a file, a summary and an "interrupted
    after N" that disagreed, or a summary that disagreed with itself (a
    seat's counts half added). The interrupt waits for the chunk to be in
    all three."""
    add = report.Tally.add
    calls = []

    def add_interrupted(self, rows):
        calls.append(len(rows))
        if len(calls) == 2:
            _interrupt_this_process()
        return add(self, rows)
    monkeypatch.setattr(report.Tally, "add", add_interrupted)
    out = tmp_path / "rows.npz"
    code, stdout, err = main(capsys, "simulate", "--games", "1000", "--chunk", "100",
                             "--json", "--quiet", "--out", str(out))
    summary = json.loads(stdout)
    rows = np.load(out)["deals"]
    assert code == 130 and "interrupted after 200 of 1000 deals" in err
    assert summary["deals"] == len(rows) == 200
    assert sum(seat["landlord_deals"] for seat in summary["seats"]) == 200
    assert summary["landlord"]["wins"] == int((rows["winner"] == 0).sum())
    assert np.array_equal(rows, ddzfast.simulate(200))


def test_an_interrupted_compression_leaves_no_broken_file(capsys, tmp_path, monkeypatch):
    """Regression (review of the command line, 2026-12-07): Ctrl-C while
    --out FILE.npz was compressed (after the progress bar's end, silent for
    minutes on a long run) left a truncated FILE.npz and printed no summary.
    The archive is made under another name and renamed whole: interrupted,
    FILE stays as it was, the rows stay in FILE.npz.part, the summary is
    printed and the message says where the rows are."""
    out = tmp_path / "rows.npz"
    out.write_bytes(b"an earlier file")

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt
    monkeypatch.setattr(cli.shutil, "copyfileobj", interrupted)
    code, stdout, err = main(capsys, "simulate", "--games", "300", "--quiet", "--out",
                             str(out))
    assert code == 130 and "landlord win rate" in stdout and "deals                  300" in stdout
    assert f"interrupted while writing --out {out}: the 300 rows are in {out}.part" in err
    assert out.read_bytes() == b"an earlier file"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rows.npz", "rows.npz.part"]
    part = np.fromfile(f"{out}.part", ddzfast.DEAL_DTYPE)
    assert np.array_equal(part, ddzfast.simulate(300))
    monkeypatch.undo()
    code, stdout, err = main(capsys, "simulate", "--games", "300", "--out", str(out))
    assert code == 0 and f"compressing 300 rows into {out}" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rows.npz"]
    assert np.array_equal(np.load(out)["deals"], part)


def test_out_takes_its_extension_in_capitals(capsys, tmp_path):
    """Regression (review of the command line, 2026-12-07): --out FILE.NPZ
    was refused ("must end in .npz or .parquet") where --plot FILE.PNG was
    taken."""
    out = tmp_path / "ROWS.NPZ"
    code, stdout, err = main(capsys, "simulate", "--games", "5", "--quiet", "--out", str(out))
    assert code == 0 and len(np.load(out)["deals"]) == 5


def test_a_file_name_that_is_not_utf8_is_printed(run_python, tmp_path):
    """Regression (review of the command line, 2026-12-07): a --out or --plot
    name holding a byte that is not UTF-8 ended the run, its file written,
    in a UnicodeEncodeError traceback on a strict standard output (an
    en_US.UTF-8 locale's). The name is printed with the byte as \\xNN."""
    code = ("import os, sys\n"
            "from ddzfast.cli import main\n"
            f"out = os.fsdecode({bytes(tmp_path)!r} + b'/\\xe9.npz')\n"
            "sys.exit(main(['simulate', '--games', '3', '--quiet', '--out', out]))\n")
    r = run_python(code=code, env={"PYTHONIOENCODING": "utf-8:strict"})
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert "3 rows written to " in r.stdout and "\\xe9.npz" in r.stdout
    assert len(np.load(os.path.join(bytes(tmp_path), b"\xe9.npz"))["deals"]) == 3


@pytest.mark.parametrize("argv, message", [
    (["solve", "33", "44", "--seconds", "-1"], "argument --seconds: '-1' is not a positive"),
    (["solve", "33", "44", "--seconds", "1e400"], "argument --seconds: '1e400' is not a "),
    (["solve", "33", "44", "--last", "55", "--last-seat", "0"],
     "--last-seat 0 is the seat to move (--to-move 0)"),
    (["solve", "33", "44", "--last", "22"], "--last and --last-seat go together"),
    (["solve", "33", "44", "--last-seat", "1"], "--last and --last-seat go together"),
    (["simulate", "--policies", "random,,greedy"],
     "--policies random,,greedy: unknown policy '': use random, greedy, expert"),
    (["simulate", "--policies", "random,greedy"],
     "--policies random,greedy: give one policy or three"),
])
def test_usage_errors_name_the_options(capsys, argv, message):
    """Regression (review of the command line, 2026-12-07): these usage
    errors gave the Python API's message, naming its parameters (seconds,
    last_seat, last=None) or offering a callable policy, which no command
    line can give."""
    code, out, err = main(capsys, *argv)
    assert code == 2 and message in err, err
    assert "last_seat" not in err and "to_move" not in err and "callable" not in err


def test_arena_bidding_refusal_offers_no_callable(capsys):
    """Regression (review of the arena, 2026-12-07): `ddzfast arena --a
    rlcard-rule --bidding` said the arena with bidding takes callables,
    which no command line can give."""
    pytest.importorskip("rlcard")
    code, out, err = main(capsys, "arena", "--a", "rlcard-rule", "--b", "greedy",
                          "--deals", "3", "--bidding")
    assert code == 2 and "'rlcard-rule' does not bid" in err
    assert "takes built-in policies\n" in err and "callable" not in err


def test_progress_bar_shows_an_eta():
    """The progress bar showed no ETA while running and no elapsed time at the end."""
    stream = io.StringIO()
    bar = cli.ProgressBar(1000, stream=stream)
    bar(100)
    bar(1000)
    text = stream.getvalue()
    assert "ETA 0:00:0" in text and "100.0% 1000/1000 deals" in text and "in 0:00:0" in text


def test_plot(capsys, tmp_path):
    """There was no --plot: it writes a PNG of the run."""
    pytest.importorskip("matplotlib")
    code, out, err = main(capsys, "simulate", "--games", "1000", "--quiet",
                          "--plot", str(tmp_path / "p.png"))
    assert code == 0 and "plot written" in out
    assert (tmp_path / "p.png").read_bytes()[:4] == b"\x89PNG"


def test_a_plot_or_rows_not_written_is_a_message(capsys, tmp_path, monkeypatch):
    """A PNG that could not be written (a name too long, a full disk) after
    the whole run, or an --out write that failed in the middle (a full
    disk), ended in a traceback (found by an audit): each is now a one-line
    message and exit status 1, after the summary of the deals done."""
    pytest.importorskip("matplotlib")
    code, out, err = main(capsys, "simulate", "--games", "300", "--quiet",
                          "--plot", str(tmp_path / ("a" * 300 + ".png")))
    assert code == 1 and "ddzfast simulate: --plot" in err and "Traceback" not in err
    assert out.startswith("classic, policies")
    write = cli.NpzRowWriter.write

    def full_disk(self, rows):
        if self.count >= 2000:
            raise OSError(28, "No space left on device")
        write(self, rows)
    monkeypatch.setattr(cli.NpzRowWriter, "write", full_disk)
    code, out, err = main(capsys, "simulate", "--games", "10000", "--chunk", "1000",
                          "--quiet", "--out", str(tmp_path / "rows.npz"))
    assert code == 1 and "stopped after 2000 of 10000 deals" in err
    assert "No space left on device" in err


# ---- moves --------------------------------------------------------------------

def test_moves_pluralises_and_uses_move_text(capsys):
    """`moves` printed '1 legal moves': the count is pluralised."""
    code, out, err = main(capsys, "moves", "3")
    assert code == 0 and "3 leading: 1 legal move\n" in out
    code, out, err = main(capsys, "moves", "33")
    assert "2 legal moves" in out


def test_last_pass_is_a_clear_message(capsys):
    """--last pass was an obscure error: it says that a pass beats nothing and to leave
    --last out."""
    for text in ("pass", "PASS", "p"):
        code, out, err = main(capsys, "moves", "33", "--last", text)
        assert code == 2 and "a pass beats nothing" in err and "leave --last out" in err


def test_last_with_w_reading(capsys):
    """A --last move with two readings of W (4567W) could not be given: 4567W=8 names
    the reading, the bare form lists the choices."""
    code, out, err = main(capsys, "moves", "3456", "--last", "4567W", "--rules", "super")
    assert code == 2 and "4567W=3" in err and "4567W=8" in err
    code, out, err = main(capsys, "moves", "3456", "--last", "4567W=8", "--rules", "super")
    assert code == 0 and "after STRAIGHT 4567W (W as 8): 1 legal move" in out
    code, out, err = main(capsys, "moves", "3456", "--last", "4567W=3", "--rules", "super")
    assert code == 0 and "(W as 3)" in out
    code, out, err = main(capsys, "moves", "3456", "--last", "4567=8", "--rules", "super")
    assert code == 2 and "has no W" in err


def test_last_in_its_text_form_is_read_in_the_rule_set(capsys):
    """--last KIND/r/n/cards was read in no rule set: a laizi SOFT_BOMB (the
    form the CLI itself offers for an ambiguous --last) or a tiandi
    LAIZI_BOMB was 'not a move in any rule set'."""
    code, out, err = main(capsys, "moves", "4448", "--rules", "laizi:7", "--last", "3337")
    assert code == 2 and "SOFT_BOMB/3/1/3337" in err
    for rules, last in (("laizi:7", "SOFT_BOMB/3/1/3337"),
                        ("tiandi:7J", "LAIZI_BOMB/J/1/777J")):
        code, out, err = main(capsys, "moves", "4448", "--rules", rules, "--last", last)
        assert code == 0, err


def test_play_tells_a_fixed_tiandi_pair_at_once(run):
    """With both wild ranks in the rule set (tiandi:7J) play said the ground
    rank 'is drawn once the landlord takes the kitty': it is fixed."""
    r = run("play", "--rules", "tiandi:7J", "--seed", "1", stdin="quit\n")
    assert "ground laizi rank: J (every 7 and J stands for any card 3..2)" in r.stdout
    assert "is drawn once" not in r.stdout
    assert r.stdout.count("ground laizi rank") == 1


def test_play_tells_the_ground_rank_before_the_decisions_after_the_kitty(capsys,
                                                                        monkeypatch):
    """Regression (a user's review): with showing and doubling (tiandi+happy)
    play told the ground rank after the landlord's show and the doubling,
    which the bots decided knowing it (it is drawn, and shown to all, as the
    landlord takes the kitty, RULES.md 9)."""
    # no show, call, then rob and no double as long as asked; q at the first move
    monkeypatch.setattr(sys, "stdin", io.StringIO("0\n1\n1\n0\n1\n1\n1\nquit\n"))
    code, out, err = main(capsys, "play", "--seed", "3", "--rules", "tiandi+happy",
                          "--bots", "expert")
    assert code == 0, err
    ground = out.index("ground laizi rank")
    assert out.index("landlord: ") < ground
    for after in ("double your stake?", "doubles x", "show your hand (x2)?"):
        if after in out:
            assert ground < out.index(after), after
    assert "double your stake?" in out or "doubles x" in out
    assert out.count("ground laizi rank") == 1


def test_cli_has_no_card_alphabet_of_its_own():
    """The CLI kept a card alphabet of its own (CARD_NAMES, _wild_text) beside the
    package's."""
    assert not hasattr(cli, "CARD_NAMES") and not hasattr(cli, "_wild_text")


def _options(parser):
    """(command, option, action) of every option of every subcommand."""
    for group in parser._subparsers._group_actions:
        for command, sub in group.choices.items():
            for action in sub._actions:
                if action.dest != "help":
                    yield command, (action.option_strings or [action.dest])[0], action


def test_every_option_says_what_it_is():
    """--games, --threads, --seed and --backend of simulate, --seed and --bots of
    play and --deals and --seed of arena had no help text."""
    bare = [f"{command} {option}" for command, option, action in _options(cli.build_parser())
            if not action.help]
    assert not bare, f"options without help: {bare}"


def test_the_description_and_arena_help_name_what_they_take(capsys):
    """The description listed four rule sets (not tiandi); arena's --a and --b,
    and its unknown-agent message, left out douzero:DIR."""
    parser = cli.build_parser()
    assert all(name in parser.description for name in ddzfast.RULES)
    agent_help = {option: action.help for command, option, action in _options(parser)
                  if command == "arena"}
    for option in ("--a", "--b"):
        assert all(name in agent_help[option] for name in POLICIES)
        assert "rlcard-rule" in agent_help[option] and "douzero:DIR" in agent_help[option]
    assert cli.main(["arena", "--a", "expert", "--b", "nope", "--deals", "3"]) == 2
    err = capsys.readouterr().err
    assert "unknown arena agent 'nope'" in err and "douzero:DIR" in err


# ---- play ---------------------------------------------------------------------

def test_play_bad_bids_and_move_numbers(capsys, monkeypatch):
    """`play` failed on huge, negative or non-ASCII bids and move numbers: each is a
    message, then the prompt again."""
    script = "99999999999999999999999\n²\n-1\n3\n#²\n#-1\n#99999999999999999999\nquit\n"
    monkeypatch.setattr(sys, "stdin", io.StringIO(script))
    code, out, err = main(capsys, "play", "--seed", "11")
    assert code == 0
    assert "not a legal bid: '99999999999999999999999'" in out
    assert "not a legal bid: '²'" in out and "not a legal bid: '-1'" in out
    assert "landlord: you (base 3)" in out
    assert "there is no move #²" in out and "there is no move #-1" in out
    assert "there is no move #99999999999999999999" in out


def test_play_seeds_out_of_range_in_a_subprocess(run):
    """`play --seed` out of 0 .. 2**64 - 1 was a traceback: it is a usage error (exit
    status 2)."""
    for seed in ("-1", "18446744073709551616"):
        r = run("play", "--seed", seed, stdin="quit\n", timeout=120)
        assert r.returncode == 2 and "seeds are 0 .. 2**64 - 1" in r.stderr


def test_play_echoes_a_move_chosen_by_number(capsys, monkeypatch):
    """`play` did not echo a move chosen by its number: it prints 'you play: MOVE'."""
    monkeypatch.setattr(sys, "stdin", io.StringIO("3\n#0\nquit\n"))
    code, out, err = main(capsys, "play", "--seed", "11")
    game = Game("classic", 11, bidding=True, first_bidder=0)
    game.bid(3)
    first = game.legal_moves()[0]
    assert f"you play: {first}\n" in out


def test_choose_move_reads_what_w_stands_for():
    """4567W with two readings can be typed: 4567W=8, 4567W=3 or the full
    KIND/r/n/cards form; plain 4567W lists the choices."""
    game = Game.from_position(["4567W", "99", "TT"], "super", landlord=0)
    legal = game.legal_moves()
    move, problem = cli._choose_move(game, "4567W", legal)
    assert move is None and "4567W=3" in problem and "4567W=8" in problem
    move, problem = cli._choose_move(game, "4567W=8", legal)
    assert problem is None and move.wild_text == "W as 8" and move.kind.name == "STRAIGHT"
    move, problem = cli._choose_move(game, "4567w=3", legal)
    assert problem is None and move.wild_text == "W as 3"
    move, problem = cli._choose_move(game, "STRAIGHT/4/5/4567W", legal)
    assert problem is None and move.wild_text == "W as 8"
    move, problem = cli._choose_move(game, "4567W=Z", legal)
    assert move is None and "after '='" in problem
    move, problem = cli._choose_move(game, "4567W=9", legal)
    assert move is None and "not a legal move" in problem
    move, problem = cli._choose_move(game, "#²", legal)
    assert move is None and "there is no move #²" in problem
    # every listed move's typed form picks exactly that move
    for m in legal:
        move, problem = cli._choose_move(game, cli.typed_form(m, list(legal)), legal)
        assert problem is None and move == m and move.wild == m.wild


def test_play_help_documents_the_w_syntax(capsys, monkeypatch):
    """`play`'s help did not say how to type what W stands for (4567W=8) or the
    KIND/rank/length/cards form."""
    monkeypatch.setattr(sys, "stdin", io.StringIO("3\nhelp\n?\nquit\n"))
    code, out, err = main(capsys, "play", "--seed", "11", "--rules", "biegang")
    assert "4567W=8" in out and "W stands for 8" in out
    assert "KIND/rank/length/cards" in out and " type " in out
    # (a deck without W: its help leaves the W syntax out)
    monkeypatch.setattr(sys, "stdin", io.StringIO("3\nhelp\nquit\n"))
    code, out, err = main(capsys, "play", "--seed", "11")
    assert "KIND/rank/length/cards" in out and "W stands for" not in out


def test_play_tells_the_w_syntax_only_with_a_w(run):
    """`play`'s opening line told every rule set to type 4567W=8 for what W
    stands for, classic, laizi and tiandi too, whose decks have no W."""
    for rules, has_w in (("classic", False), ("laizi:7", False), ("tiandi:7J", False),
                         ("biegang", True), ("super", True)):
        opening = next(line for line in run("play", "--rules", rules, "--seed", "1",
                                            stdin="quit\n").stdout.splitlines()
                       if line.startswith("ddzfast "))
        assert ("4567W=8" in opening) == has_w, (rules, opening)
        assert "Type cards like 33 or 34567" in opening and "'quit' to quit" in opening


# ---- laizi: --wild ------------------------------------------------------------

def test_cli_moves_with_a_wild_rank(capsys):
    from ddzfast.cli import main
    assert main(["moves", "3777", "--rules", "laizi", "--wild", "7"]) == 0
    out = capsys.readouterr().out
    assert "20 legal moves" in out and "77 as 33" in out and "SOFT_BOMB" in out
    assert main(["moves", "3777", "--rules", "laizi"]) == 2
    assert "--wild" in capsys.readouterr().err
    assert main(["moves", "3777", "--rules", "classic", "--wild", "7"]) == 2


def test_cli_play_laizi(monkeypatch, capsys):
    from ddzfast import cli
    answers = iter(["0", "quit"])
    monkeypatch.setattr(cli, "_ask", lambda prompt, out: next(answers))
    assert cli.main(["play", "--rules", "laizi", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "laizi (wild) rank: " + CARD_CHARS[Game("laizi", seed=3).wild_rank] in out


@pytest.mark.parametrize("command", [["moves", "3"], ["solve", "33", "44"]])
@pytest.mark.parametrize("wild", ["7J8", "", "7 J", "7,J"])
def test_bad_tiandi_wild_is_a_usage_error(capsys, command, wild):
    """Regression (audit of the command line): `--rules tiandi --wild 7J8`
    (or "", "7 J", "7,J") ended in a TypeError traceback, exit status 1."""
    code, out, err = main(capsys, *command, "--rules", "tiandi", "--wild", wild)
    assert code == 2 and err.count("\n") == 1 and "both wild ranks, sky then ground" in err


@pytest.mark.parametrize("command, drawn", [(["moves", "3"], False), (["solve", "33", "44"], False),
                                           (["simulate", "--games", "1"], True),
                                           (["play", "--seed", "1"], True)])
def test_one_tiandi_rank_says_what_the_command_does_without_wild(capsys, command, drawn):
    """Regression (the examples review of 2026-12-06): `moves --rules tiandi
    --wild 7` said "without --wild both are drawn", but moves and solve
    have no deal to draw from (without --wild they ask for both ranks).
    Only the commands that deal say it."""
    code, out, err = main(capsys, *command, "--rules", "tiandi", "--wild", "7")
    assert code == 2 and "both wild ranks, sky then ground (--wild 7J)" in err
    assert ("without --wild both are drawn" in err) == drawn
    assert set(cli.DEALING_COMMANDS) == {"simulate", "play", "arena"}


@pytest.mark.parametrize("rules, wild", [("tiandi:7J+happy", "89"), ("laizi:7", "8"),
                                         ("tiandi:7J", "7J")])
def test_wild_over_a_name_with_ranks_is_a_usage_error(capsys, rules, wild):
    """Regression (audit of the command line): `moves 3 --rules
    tiandi:7J+happy --wild 89` played the ranks 8 and 9 under the header
    "tiandi:7J+happy (sky rank 8, ground rank 9)". A name that fixes the
    ranks takes no --wild: a usage error saying so."""
    for command in (["moves", "3"], ["solve", "33", "44"]):
        code, out, err = main(capsys, *command, "--rules", rules, "--wild", wild)
        assert code == 2 and "already fixes" in err and out == ""


@pytest.mark.parametrize("rules, wild, read", [("laizi", "Z", "D"), ("tiandi", "0Y", "TX")])
def test_solve_wild_in_puzzle_notation_names_what_was_typed(capsys, rules, wild, read):
    """Regression (an input review): `solve ... --rules laizi --wild Z` said
    the wild rank was "not 'D'", a card not typed: --wild is read in puzzle
    notation, as the hands are, and the message now says so. A ten as 0
    is a wild rank."""
    code, out, err = main(capsys, "solve", "KK5543", "225543", "--rules", rules,
                          "--wild", wild)
    assert code == 2 and out == ""
    assert f"(--wild {wild!r}, read in puzzle notation as {read!r})" in err
    code, out, err = main(capsys, "solve", "KK5543", "225543", "--rules", "laizi",
                          "--wild", "0")
    assert code == 0 and out.startswith("laizi (wild rank T), 2 players")


def test_headers_name_the_wild_ranks_in_use(capsys):
    """Regression (audit of the command line): `solve ... --rules tiandi
    --wild 7J` printed "tiandi", without the ranks it played."""
    code, out, err = main(capsys, "solve", "37", "8J", "--rules", "tiandi", "--wild", "7J")
    assert code == 0 and out.startswith("tiandi (sky rank 7, ground rank J), 2 players")
    code, out, err = main(capsys, "solve", "37", "8J", "--rules", "laizi", "--wild", "7")
    assert code == 0 and out.startswith("laizi (wild rank 7), 2 players")
    code, out, err = main(capsys, "moves", "37", "--rules", "tiandi:7J+happy")
    assert code == 0 and out.startswith("tiandi+happy (sky rank 7, ground rank J): 37")


# ---- regressions of the audit of the command line (2026-12-04) ----------------

def test_simulate_runs_on_without_stderr(capsys, monkeypatch, tmp_path):
    """With standard error closed (`2>&-`, sys.stderr None) the progress bar
    raised AttributeError and the run died without a word: a bar is
    cosmetic, so there is none, and the run ends with its summary. The
    messages meant for stderr stay out of --json's output (print with
    file=None writes to stdout)."""
    monkeypatch.setattr(sys, "stderr", None)
    code = cli.main(["simulate", "--games", "3000", "--chunk", "1000"])
    out = capsys.readouterr().out
    assert code == 0 and "landlord win rate" in out
    assert out.splitlines()[1].split() == ["deals", "3000"]
    code = cli.main(["simulate", "--games", "3000", "--chunk", "1000", "--json",
                     "--out", str(tmp_path / "x.npz")])
    assert code == 0 and json.loads(capsys.readouterr().out)["deals"] == 3000


@pytest.mark.parametrize("args", [
    ["moves", "33", "--bogus", "1"],                     # an unrecognized argument
    ["moves", "33Z"],                                    # a UsageError
    ["solve", "37", "8J", "--rules", "tiandi", "--wild", "7"],
])
def test_errors_without_stderr_stay_out_of_stdout(capsys, monkeypatch, args):
    """With standard error closed (`2>&-`), main's own error messages went to
    standard output (print with file=None writes there), among the rows or
    the JSON a reader parses: they are dropped, and the status says it."""
    monkeypatch.setattr(sys, "stderr", None)
    assert cli.main(args) == 2
    assert capsys.readouterr().out == ""


def test_a_progress_bar_that_cannot_draw_stops_drawing():
    """A progress bar whose stream failed (a reader gone: BrokenPipeError; a
    closed file: ValueError) raised into the simulation, which stopped the
    run: it stops drawing and the run goes on."""
    class Broken(io.StringIO):
        def __init__(self, error):
            super().__init__()
            self.error, self.writes = error, 0

        def write(self, text):
            self.writes += 1
            raise self.error

    for error in (BrokenPipeError(32, "Broken pipe"),
                  ValueError("I/O operation on closed file")):
        stream = Broken(error)
        bar = cli.ProgressBar(1000, stream=stream)
        bar(100)
        bar(500)
        bar(1000)
        bar.close()
        assert stream.writes == 1


def test_a_stderr_reader_gone_does_not_stop_the_run(run_python):
    """When the reader of standard error went away (`2>&1 | head -c 10`), the
    progress bar's BrokenPipeError was taken for a failure of the
    simulation and stopped the run early (found by an audit): the run
    finishes and its summary is complete."""
    p = run_python.popen("simulate", "--games", "200000", "--chunk", "2000", "--json",
                         module="ddzfast.cli")
    assert p.stderr.read(10)
    p.stderr.close()
    out = p.stdout.read()
    assert p.wait(timeout=300) == 0
    summary = json.loads(out)
    assert summary["deals"] == 200000 and summary["run"]["complete"]


@pytest.mark.parametrize("args, code", [(["--version"], 0), (["--help"], 0),
                                        (["simulate", "--help"], 0),
                                        (["moves", "33", "--rules", "foo"], 2),
                                        (["simulate", "--games", "-1"], 2), ([], 2)])
def test_main_returns_the_exit_status_of_argparse_too(capsys, args, code):
    """cli.main(argv), documented to return its exit status, raised
    SystemExit for what argparse handles (errors, --help, --version)."""
    try:
        got = cli.main(args)
    except SystemExit as e:
        pytest.fail(f"main({args}) raised SystemExit({e.code})")
    assert got == code
    out, err = capsys.readouterr()
    assert (out if code == 0 else err).strip()


@pytest.mark.parametrize("args, message", [
    (["simulate", "--games", "-1"],
     "ddzfast simulate: argument --games: -1 is not in 0..9223372036854775807"),
    (["moves", "33", "--rules", "foo"], "ddzfast moves: argument --rules: unknown rule set"),
    (["play", "--bots", "smart"], "ddzfast play: argument --bots: invalid choice: 'smart'"),
    (["moves", "33", "--bogus", "1"], "ddzfast moves: unrecognized arguments: --bogus 1"),
    (["simulate", "--games"], "ddzfast simulate: argument --games: expected one argument"),
    (["arena", "--a", "greedy"], "ddzfast arena: the following arguments are required: --b"),
    (["nope"], "ddzfast: argument command: invalid choice: 'nope'"),
    ([], "ddzfast: the following arguments are required: command"),
])
def test_argument_errors_are_one_line(capsys, args, message):
    """Errors that argparse finds printed the usage block first (8 lines for
    `simulate --games -1`) where the docs promise a one-line message, as
    the commands' own errors are: `ddzfast COMMAND: message (see --help)`."""
    code, out, err = main(capsys, *args)
    assert code == 2 and out == ""
    assert err.startswith(message) and err.endswith(" (see --help)\n"), err
    assert err.count("\n") == 1 and "usage:" not in err


def test_argument_errors_in_a_subprocess(run):
    """The command exits with the status main returns: 2 for argparse's errors,
    0 for --help."""
    r = run("simulate", "--games", "x", timeout=120)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr == "ddzfast simulate: argument --games: 'x' is not a whole number " \
                       "(see --help)\n"
    r = run("simulate", "--help", timeout=120)
    assert r.returncode == 0 and "--connect-timeout" in r.stdout


def test_play_takes_bytes_that_are_not_utf8_as_bad_input(run_python):
    """A line that is not valid UTF-8 (过, "pass", typed in a GBK terminal)
    ended `play` in a UnicodeDecodeError traceback: it is bad input like any
    other, with a message and the question again."""
    gbk = "过".encode("gbk")
    script = b"\n".join([gbk, b"3", gbk, b"quit"]) + b"\n"
    r = run_python("play", "--seed", "11", module="ddzfast", input=script, text=False,
                   env={"PYTHONIOENCODING": "utf-8:strict"}, timeout=120)
    out, err = r.stdout.decode(), r.stderr.decode()
    assert r.returncode == 0 and "Traceback" not in out + err, err
    assert "not a legal bid: '\ufffd\ufffd'" in out
    assert "landlord: you (base 3)" in out
    assert out.count("your move: ") == 2 and "unknown card" in out


def test_play_echoes_what_the_terminal_cannot_encode_as_escapes(run_python):
    """Bytes the input's encoding cannot decode became U+FFFD, which a GBK
    (or ASCII) terminal cannot print: the echo of them ended `play` in a
    UnicodeEncodeError traceback. They are written as escapes."""
    for encoding in ("gbk", "ascii"):
        r = run_python("play", "--seed", "1", module="ddzfast",
                       input=b"\xff\xff\n3\n\xff\nquit\n", text=False,
                       env={"PYTHONIOENCODING": encoding}, timeout=120)
        out, err = r.stdout.decode(encoding, "replace"), r.stderr.decode()
        assert r.returncode == 0 and "Traceback" not in out + err, err
        assert "not a legal bid: '\\ufffd\\ufffd'" in out and out.count("your move: ") == 2


def test_play_reads_q_as_a_queen():
    """`q` ended the game in the play phase, where it names a queen (RULES.md
    1: lower case is read), and '?' said to type Q for SINGLE Q."""
    out = io.StringIO()
    sys_stdin = sys.stdin
    try:
        sys.stdin = io.StringIO("3\n#0\nq\nquit\n")
        cli.cmd_play(cli.build_parser().parse_args(["play", "--seed", "1"]), out)
    finally:
        sys.stdin = sys_stdin
    text = out.getvalue()
    assert "you play: SINGLE Q\n" in text and text.endswith("bye\n")
    assert "'quit' to quit" in text


def test_typed_forms_are_typed_form_of_each_move():
    """'?' named each move by typed_form over the whole list, once a move:
    minutes for a tiandi hand of tens of thousands of moves. typed_forms
    gives the same texts in one pass."""
    for hand, last, rules in (("3456789TJQKA22XDW", None, "super"),
                              ("33445566777788", None, "laizi:7"),
                              ("3456789TTJJ77JQ2", None, "tiandi:7J")):
        moves = list(ddzfast.legal_moves(hand, last, rules))
        assert len(moves) > 50
        assert cli.typed_forms(moves) == [cli.typed_form(m, moves) for m in moves]
        # each text picks its move out again
        for m, typed in zip(moves[::7], cli.typed_forms(moves)[::7]):
            if typed != "pass":
                assert cli.pick_move(typed, moves, rules) == [m]


def test_play_tells_a_redeal():
    """Nobody calling in rob bidding redeals the cards: the table went on
    with new hands and no word of it."""
    out = io.StringIO()
    sys_stdin = sys.stdin
    try:
        sys.stdin = io.StringIO("0\n0\nquit\n")
        cli.cmd_play(cli.build_parser().parse_args(
            ["play", "--rules", "classic+happy", "--seed", "6", "--bots", "random"]), out)
    finally:
        sys.stdin = sys_stdin
    text = out.getvalue()
    assert "nobody called: the cards are dealt again (redeal 1)\n" in text


def test_play_move_text_without_cards_before_the_equals_sign():
    """`=5` said " has no W: leave out '=5'", naming no cards."""
    moves = list(ddzfast.legal_moves("34567W", None, "super"))
    with pytest.raises(cli.UsageError, match="the cards come before '='"):
        cli.pick_move("=5", moves, "super")


def test_a_run_stopped_before_any_deal_does_not_blame_games_0(capsys, monkeypatch):
    """A run stopped before its first chunk finished (Ctrl-C, a Ray address
    that failed) said "no deals were simulated (--games 0)", with --games
    1000000: it says that no deal finished."""
    def interrupted(games, *args, **kwargs):
        if games:
            raise KeyboardInterrupt
        return iter(())
    monkeypatch.setattr(cli, "simulate_parts", interrupted)
    code, out, err = main(capsys, "simulate", "--games", "1000000", "--quiet")
    assert code == 130 and "interrupted after 0 of 1000000 deals" in err
    assert "--games 0" not in out and "no deal finished" in out
    code, out, err = main(capsys, "simulate", "--games", "0")
    assert code == 0 and "no deals were simulated (--games 0)" in out


@pytest.mark.parametrize("rules, wild, name", [("laizi", "7", "laizi:7"),
                                               ("tiandi", "7J", "tiandi:7J"),
                                               ("laizi+happy", "t", "laizi:T+happy"),
                                               ("tiandi+happy", "10j", "tiandi:TJ+happy")])
def test_simulate_takes_wild(capsys, tmp_path, rules, wild, name):
    """--wild was only on `moves` and `solve` (`simulate --rules laizi --wild
    7` was an unrecognised argument), though the docs introduce it with
    --rules: on simulate it fixes the wild ranks, and the run is the run of
    the rule set's name with those ranks (laizi:7): rows, summary, header."""
    paths = [tmp_path / "wild.npz", tmp_path / "name.npz"]
    runs = [main(capsys, "simulate", "--rules", rules, "--wild", wild, "--games", "40",
                 "--seed", "5", "--quiet", "--out", str(paths[0])),
            main(capsys, "simulate", "--rules", name, "--games", "40", "--seed", "5",
                 "--quiet", "--out", str(paths[1]))]
    assert [code for code, _, _ in runs] == [0, 0]
    rows = [np.load(path)["deals"] for path in paths]
    assert np.array_equal(rows[0], rows[1])
    assert np.array_equal(rows[0], ddzfast.simulate(40, name, seed=5))
    ranks = ddzfast.get_rules(name).wild_ranks
    assert (rows[0]["wild_rank"] == ranks[0]).all()
    if len(ranks) == 2:
        assert (rows[0]["ground_rank"] == ranks[1]).all()
    texts = [[line for line in out.splitlines()
              if "deals per second" not in line and "rows written" not in line]
             for _, out, _ in runs]
    assert texts[0] == texts[1] and texts[0][0].startswith(f"{name}, policies")
    code, out, err = main(capsys, "simulate", "--rules", rules, "--wild", wild, "--games",
                          "40", "--seed", "5", "--json")
    assert code == 0 and json.loads(out)["run"]["rules"] == name


@pytest.mark.parametrize("args, words", [
    (("--rules", "classic", "--wild", "7"), "it needs --rules laizi or tiandi"),
    (("--rules", "laizi:7", "--wild", "8"), "already fixes"),
    (("--rules", "laizi", "--wild", "Z"), "unknown card 'Z'"),
    (("--rules", "laizi", "--wild", "78"),
     "--wild '78': wild_rank is one rank of 3..2 ('7'), not '78'"),
    (("--rules", "laizi", "--wild", "X"), "--wild 'X': wild_rank must be a rank of 3..2"),
    (("--rules", "tiandi", "--wild", "7J8"), "both wild ranks, sky then ground"),
    (("--rules", "tiandi", "--wild", "77"), "--wild '77': the sky and ground ranks must differ"),
    (("--rules", "tiandi", "--wild", "X7"), "--wild 'X7': each of wild_ranks must be a rank"),
])
@pytest.mark.parametrize("command", ["simulate", "play"])
def test_simulate_and_play_refuse_a_bad_wild(capsys, monkeypatch, command, args, words):
    """simulate and play check --wild as moves does, with its messages: one
    line, exit status 2, before any deal (theirs adding, for one tiandi
    rank, that without --wild both are drawn, as they deal)."""
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    more = ("--games", "300000") if command == "simulate" else ()
    code, out, err = main(capsys, command, *args, *more)
    assert code == 2 and out == "" and err.count("\n") == 1 and words in err, err
    assert (err.replace(command, "moves", 1).replace("; without --wild both are drawn", "")
            == main(capsys, "moves", "3", *args)[2])


@pytest.mark.parametrize("command", [("simulate",), ("play",), ("moves", "33"),
                                     ("solve", "33", "4")])
@pytest.mark.parametrize("wild", ["7", "", "7JQ"])
def test_a_tiandi_wild_of_one_rank_is_refused(capsys, command, wild):
    """tiandi's --wild on every command is both ranks, as every name with
    ranks (tiandi:7J) is; one rank (or none, or three) is a usage message.
    `moves --wild ''` suggested '7', which the command line refuses (a
    user's review)."""
    code, out, err = main(capsys, *command, "--rules", "tiandi", "--wild", wild)
    assert code == 2 and out == "" and "both wild ranks, sky then ground" in err, err
    assert "before the ground rank" not in err


def test_play_takes_wild(capsys, monkeypatch):
    """`play --rules laizi --wild 7` was an unrecognised argument: it plays
    with laizi rank 7 (tiandi: 7J, sky and ground), as --rules laizi:7 does."""
    for rules, wild, told in (("laizi", "7", "laizi (wild) rank: 7 (every 7"),
                              ("tiandi", "7J", "sky laizi rank: 7\nground laizi rank: J "
                                               "(every 7 and J")):
        monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
        code, out, err = main(capsys, "play", "--rules", rules, "--wild", wild, "--seed", "3")
        monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
        same = main(capsys, "play", "--rules", f"{rules}:{wild}", "--seed", "3")
        assert code == 0 and told in out and (code, out, err) == same


def test_arena_text_tells_a_from_b(capsys):
    """`arena --a rlcard-rule --b rlcard-rule` printed two counter lines both
    starting "rlcard-rule:": they are labelled A and B."""
    pytest.importorskip("rlcard")
    code, out, err = main(capsys, "arena", "--a", "rlcard-rule", "--b", "rlcard-rule",
                          "--deals", "2")
    assert code == 0
    counters = [line for line in out.splitlines() if "decisions" in line]
    assert [line.split(":")[0] for line in counters] == ["  A (rlcard-rule)",
                                                         "  B (rlcard-rule)"]
    code, out, err = main(capsys, "arena", "--a", "rlcard-rule", "--b", "rlcard-rule",
                          "--deals", "2", "--json")
    assert code == 0 and set(json.loads(out)["agents"]) == {"a", "b"}


def test_a_missing_wild_rank_is_told_as_an_option_of_the_command_line(capsys):
    """Regression (a user's review): `solve ... --rules tiandi --wild 7`
    printed the Python hint (get_rules(...).with_options), and `moves
    --rules laizi+happy` said "--rules laizi"."""
    code, out, err = main(capsys, "solve", "33", "4", "--rules", "tiandi", "--wild", "7")
    assert code == 2 and "--wild 7J" in err and "get_rules" not in err
    code, out, err = main(capsys, "moves", "33", "--rules", "laizi+happy")
    assert code == 2 and "--rules laizi+happy needs the laizi rank" in err


def test_two_ranks_for_laizi_say_laizi_takes_one(capsys):
    """Regression (a user's review): `moves 33 --rules laizi --wild 7J`
    said "unknown card '7J'"."""
    code, out, err = main(capsys, "moves", "33", "--rules", "laizi", "--wild", "7J")
    assert code == 2 and "wild_rank is one rank of 3..2" in err and "'7J'" in err


def test_play_reads_an_empty_line_as_nothing(monkeypatch, capsys):
    """Regression (a user's review): an empty line passed the turn when
    following (an empty card set names PASS), and when leading said
    " is not a legal move now"."""
    from ddzfast.cli import main as cli_main
    # seat 0 bids 3, leads, then follows with an empty line
    monkeypatch.setattr(sys, "stdin", io.StringIO("3\n\nquit\n"))
    assert cli_main(["play", "--seed", "1", "--bots", "expert"]) == 0
    out = capsys.readouterr().out
    assert "type a move (cards like 33), 'pass'" in out and "you play" not in out
    assert out.rstrip().endswith("bye")


def test_play_decisions_take_pass_and_help(monkeypatch, capsys):
    """Regression (a user's review): at the bid, show, call, rob and double
    prompts 'pass', 'help' and '?' were "not a legal bid", though the
    opening line offers them; the person's own choices went untold."""
    from ddzfast.cli import main as cli_main
    monkeypatch.setattr(sys, "stdin", io.StringIO("help\npass\n?\nquit\n"))
    assert cli_main(["play", "--seed", "1", "--rules", "classic+happy"]) == 0
    out = capsys.readouterr().out
    assert "not a legal" not in out and "type one of [0, 1]" in out
    assert "seat 0 does not show" in out


def test_address_without_the_ray_backend_is_refused(capsys):
    """Regression (a user's review): --address (and in Python address= or
    tasks=) with the local backend ran locally without a word."""
    code, out, err = main(capsys, "arena", "--a", "expert", "--b", "greedy", "--deals", "2",
                          "--address", "127.0.0.1:1")
    assert code == 2 and "--address is the Ray cluster of --backend ray" in err
    with pytest.raises(ValueError, match="address is for backend='ray'"):
        ddzfast.simulate(2, address="127.0.0.1:1")
    from ddzfast.arena import arena
    with pytest.raises(ValueError, match="tasks is for backend='ray'"):
        arena("expert", "greedy", deals=2, tasks=3)


def test_an_unknown_arena_agent_offers_no_callable_on_the_command_line(capsys):
    """Regression (a user's review): `ddzfast arena --a nope` ended its
    message with "or a callable policy(game, legal)", which no command-line
    argument can be."""
    code, out, err = main(capsys, "arena", "--a", "nope", "--b", "greedy", "--deals", "2")
    assert code == 2 and "unknown arena agent 'nope'" in err and "callable" not in err
    from ddzfast.arena import resolve_agent
    with pytest.raises(ValueError, match="or a callable policy"):
        resolve_agent("nope")
