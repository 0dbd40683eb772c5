"""The ddzfast command line, driven as a user would: a subprocess."""
import os
import subprocess
import sys

import numpy as np


def run(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "ddzfast.cli", *args], input=stdin,
                          capture_output=True, text=True, timeout=300)


def test_moves():
    r = run("moves", "3333W", "--rules", "biegang")
    assert r.returncode == 0, r.stderr
    assert "biegang: 3333W leading: 9 legal moves" in r.stdout
    assert "HEAVEN_BOMB" in r.stdout and "W as 3" in r.stdout and "W as kicker" in r.stdout
    r = run("moves", "4455XD", "--last", "33")
    assert r.returncode == 0 and "4455XD after PAIR 33: 4 legal moves" in r.stdout
    r = run("moves", "334455W", "--last", "STRAIGHT/4/5/4567W", "--rules", "super")
    assert r.returncode == 0 and "PASS" in r.stdout


def test_moves_errors():
    r = run("moves", "33Z")
    assert r.returncode == 2 and "unknown card 'Z'" in r.stderr
    r = run("moves", "33W")
    assert r.returncode == 2 and "wildcard" in r.stderr
    r = run("moves", "3456", "--last", "4567W", "--rules", "super")
    assert r.returncode == 2 and "several ways" in r.stderr
    r = run("moves", "3456", "--last", "34")
    assert r.returncode == 2 and "not a move" in r.stderr


def test_simulate_writes_rows(tmp_path):
    out = tmp_path / "deals.npz"
    r = run("simulate", "--rules", "super", "--games", "3000", "--policies",
            "random,greedy,greedy", "--threads", "2", "--seed", "4", "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert "landlord win rate" in r.stdout and "95% CI" in r.stdout
    assert "deals per second" in r.stdout and "100.0% 3000/3000" in r.stderr
    rows = np.load(out)["deals"]
    import ddzfast
    assert np.array_equal(rows, ddzfast.simulate(3000, "super", ("random", "greedy", "greedy"),
                                                 seed=4))
    r = run("simulate", "--games", "10", "--policies", "smart")
    assert r.returncode == 2 and "unknown policy" in r.stderr
    r = run("simulate", "--games", "10", "--out", str(tmp_path / "x.csv"))
    assert r.returncode == 2 and ".npz or .parquet" in r.stderr


def test_play_fed_by_stdin():
    # bid 3 (landlord), then bad input of every sort, then quit
    script = "\n".join(["9", "3", "ZZ", "33333", "#999", "pass", "?", "q"]) + "\n"
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


def test_play_a_whole_deal_to_the_end():
    # always play the first listed legal move (PASS when following)
    script = "0\n0\n0\n" + "#0\n" * 80
    r = run("play", "--seed", "5", "--bots", "random", stdin=script)
    assert r.returncode == 0, r.stderr
    assert ("you win" in r.stdout) or ("you lose" in r.stdout) or ("bye" in r.stdout)


def test_play_against_expert_bots():
    script = "0\n0\n0\n" + "#0\n" * 80
    r = run("play", "--seed", "5", "--bots", "expert", stdin=script)
    assert r.returncode == 0, r.stderr
    assert "two 'expert' bots" in r.stdout
    assert ("you win" in r.stdout) or ("you lose" in r.stdout) or ("bye" in r.stdout)
