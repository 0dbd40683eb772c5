"""The command line on bad input and on the rough edges a new user hits:
never a traceback, checks before any work, streaming output, --json, --plot,
--version, W readings as text in `play`. In-process through `cli.main`
where that is enough, in a subprocess where the process is what matters."""
import io
import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import ddzfast
from ddzfast import DEAL_DTYPE, Game, cli


def main(capsys, *args):
    """Run `ddzfast ARGS` in this process: (exit status, stdout, stderr)."""
    try:
        code = cli.main(list(args))
    except SystemExit as e:           # argparse: usage errors and --version
        code = e.code
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def run(*args, stdin=None, timeout=120):
    r = subprocess.run([sys.executable, "-m", "ddzfast.cli", *args], input=stdin,
                       capture_output=True, text=True, timeout=timeout)
    assert "Traceback" not in r.stdout + r.stderr, r.stderr
    return r


def test_version(capsys):
    code, out, err = main(capsys, "--version")
    assert code == 0 and out.strip() == f"ddzfast {ddzfast.__version__}"
    r = run("--version")
    assert r.returncode == 0 and ddzfast.__version__ in r.stdout


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
    (("--connect-timeout", "0"), "positive number of seconds"),
])
def test_simulate_bad_input_is_a_message_before_any_work(capsys, tmp_path, args, words):
    (tmp_path / "adir.npz").mkdir()
    args = [a.replace("DIR", str(tmp_path)) for a in args]
    begin = time.monotonic()
    code, out, err = main(capsys, "simulate", "--games", "300000", *args)
    assert code == 2 and words in err, err
    assert "/300000 deals" not in err    # no progress bar: nothing was simulated
    assert time.monotonic() - begin < 5
    assert not (tmp_path / "x.npz").exists() and not (tmp_path / "x.npz.part").exists()


def test_bad_out_is_found_before_simulating_in_a_subprocess(tmp_path):
    """The old CLI ran the whole simulation, then failed with a traceback."""
    begin = time.monotonic()
    r = run("simulate", "--games", "2000000", "--out", str(tmp_path / "no" / "x.npz"))
    assert r.returncode == 2 and "does not exist" in r.stderr
    (tmp_path / "d.parquet").mkdir()
    r = run("simulate", "--games", "2000000", "--out", str(tmp_path / "d.parquet"))
    assert r.returncode == 2 and "is a directory" in r.stderr
    assert time.monotonic() - begin < 10     # the old CLI simulated first


def test_parquet_without_pyarrow_is_refused_first(capsys, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    code, out, err = main(capsys, "simulate", "--games", "300000",
                          "--out", str(tmp_path / "x.parquet"))
    assert code == 2 and "needs pyarrow" in err and "pip install 'ddzfast[parquet]'" in err
    assert "/300000 deals" not in err    # refused before simulating
    assert not (tmp_path / "x.parquet").exists()


def test_plot_without_matplotlib_is_refused_first(capsys, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    code, out, err = main(capsys, "simulate", "--games", "300000",
                          "--plot", str(tmp_path / "x.png"))
    assert code == 2 and "pip install 'ddzfast[plot]'" in err
    assert "/300000 deals" not in err


def test_ray_backend_without_ray(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)
    code, out, err = main(capsys, "simulate", "--games", "10", "--backend", "ray")
    assert code == 2 and "pip install 'ddzfast[ray]'" in err


def test_ray_backend_without_ray_in_a_subprocess():
    code = ("import sys; sys.modules['ray'] = None\n"
            "from ddzfast.cli import main\n"
            "sys.exit(main(['simulate', '--games', '10', '--backend', 'ray']))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "pip install 'ddzfast[ray]'" in r.stderr


def test_ray_dead_address_is_a_message_within_seconds():
    """The old CLI hung for minutes in ray.init with no message."""
    pytest.importorskip("ray")
    begin = time.monotonic()
    r = run("simulate", "--games", "10", "--backend", "ray", "--address", "127.0.0.1:1",
            "--connect-timeout", "5", timeout=60)
    assert r.returncode == 2 and "no Ray cluster at '127.0.0.1:1'" in r.stderr
    assert time.monotonic() - begin < 30


def test_games_zero_has_no_rates(capsys):
    code, out, err = main(capsys, "simulate", "--games", "0")
    assert code == 0 and "no deals were simulated" in out
    assert "0.0000 .. 1.0000" not in out and "deals per second" not in out
    code, out, err = main(capsys, "simulate", "--games", "0", "--json")
    s = json.loads(out)
    assert s["deals"] == 0 and s["landlord"]["win_rate"] is None


def test_json_summary(capsys, tmp_path):
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
    main(capsys, "simulate", "--games", "100", "--start", "50", "--seed", "2", "--quiet",
         "--out", str(tmp_path / "tail.npz"))
    tail = np.load(tmp_path / "tail.npz")["deals"]
    assert np.array_equal(tail, ddzfast.simulate(150, seed=2)[50:])


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_interrupted_huge_run_keeps_its_rows(tmp_path, sig):
    """--games 10**12 without --out streams (flat memory, an ETA); an
    interruption ends it with a summary and the rows so far, no traceback."""
    out = tmp_path / "x.npz"
    p = subprocess.Popen([sys.executable, "-m", "ddzfast.cli", "simulate", "--games",
                          "1000000000000", "--chunk", "2000"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    q = subprocess.Popen([sys.executable, "-m", "ddzfast.cli", "simulate", "--games",
                          "100000000", "--chunk", "2000", "--out", str(out)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
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


def test_progress_bar_shows_an_eta():
    stream = io.StringIO()
    bar = cli.ProgressBar(1000, stream=stream)
    bar(100)
    bar(1000)
    text = stream.getvalue()
    assert "ETA 0:00:0" in text and "100.0% 1000/1000 deals" in text and "in 0:00:0" in text


def test_plot(capsys, tmp_path):
    pytest.importorskip("matplotlib")
    code, out, err = main(capsys, "simulate", "--games", "1000", "--quiet",
                          "--plot", str(tmp_path / "p.png"))
    assert code == 0 and "plot written" in out
    assert (tmp_path / "p.png").read_bytes()[:4] == b"\x89PNG"


# ---- moves ----------------------------------------------------------------------

def test_moves_pluralises_and_uses_move_text(capsys):
    code, out, err = main(capsys, "moves", "3")
    assert code == 0 and "3 leading: 1 legal move\n" in out
    code, out, err = main(capsys, "moves", "33")
    assert "2 legal moves" in out


def test_last_pass_is_a_clear_message(capsys):
    for text in ("pass", "PASS", "p"):
        code, out, err = main(capsys, "moves", "33", "--last", text)
        assert code == 2 and "a pass beats nothing" in err and "leave --last out" in err


def test_last_with_w_reading(capsys):
    code, out, err = main(capsys, "moves", "3456", "--last", "4567W", "--rules", "super")
    assert code == 2 and "4567W=3" in err and "4567W=8" in err
    code, out, err = main(capsys, "moves", "3456", "--last", "4567W=8", "--rules", "super")
    assert code == 0 and "after STRAIGHT 4567W (W as 8): 1 legal move" in out
    code, out, err = main(capsys, "moves", "3456", "--last", "4567W=3", "--rules", "super")
    assert code == 0 and "(W as 3)" in out
    code, out, err = main(capsys, "moves", "3456", "--last", "4567=8", "--rules", "super")
    assert code == 2 and "has no W" in err


def test_cli_has_no_card_alphabet_of_its_own():
    assert not hasattr(cli, "CARD_NAMES") and not hasattr(cli, "_wild_text")


# ---- play -------------------------------------------------------------------------

def test_play_bad_bids_and_move_numbers(capsys, monkeypatch):
    script = "99999999999999999999999\n²\n-1\n3\n#²\n#-1\n#99999999999999999999\nq\n"
    monkeypatch.setattr(sys, "stdin", io.StringIO(script))
    code, out, err = main(capsys, "play", "--seed", "11")
    assert code == 0
    assert "not a legal bid: '99999999999999999999999'" in out
    assert "not a legal bid: '²'" in out and "not a legal bid: '-1'" in out
    assert "landlord: you (base 3)" in out
    assert "there is no move #²" in out and "there is no move #-1" in out
    assert "there is no move #99999999999999999999" in out


def test_play_seeds_out_of_range_in_a_subprocess():
    for seed in ("-1", "18446744073709551616"):
        r = run("play", "--seed", seed, stdin="q\n")
        assert r.returncode == 2 and "seeds are 0 .. 2**64 - 1" in r.stderr


def test_play_echoes_a_move_chosen_by_number(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("3\n#0\nq\n"))
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
    monkeypatch.setattr(sys, "stdin", io.StringIO("3\nhelp\n?\nq\n"))
    code, out, err = main(capsys, "play", "--seed", "11")
    assert "4567W=8" in out and "W stands for 8" in out
    assert "KIND/rank/length/cards" in out and " type " in out
