"""Every benchmark script runs to its end on a small workload (timings are
not checked): a script that no test runs breaks unseen.

    python -m pytest benchmarks/test_scripts.py

Each script runs in its own process with the arguments below and must exit
0 and print the line its last part prints. A script whose optional peer is
not installed says so and goes on (compare_peers, douzero_env_speed); one
that cannot run without it is skipped here (dmc_loop_speed needs torch and
douzero). A new script gets an entry, or test_every_script_is_listed fails.
"""
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent

# script -> (arguments, a fragment of its output, modules it cannot run without)
SCRIPTS = {
    "compare_peers.py": (["--positions", "5", "--repeat", "1"],
                         "simulate, 2 threads / 1 thread", ()),
    "dmc_loop_speed.py": (["--seconds", "0.2", "--envs", "2", "--rounds", "1"],
                          "load average at the end", ("torch", "douzero")),
    "douzero_env_speed.py": (["--deals", "3", "--rounds", "1"], "ddzfast", ()),
    "douzero_vec_speed.py": (["--envs", "4", "--rounds", "1", "--seconds", "0.2"],
                             "compat.douzero.VecEnv", ()),
    "expert_speed.py": (["--deals", "10"], "decisions/s", ()),
    "laizi_moves.py": (["--quick", "--positions", "2"],
                       "paired positions in turns: 0 laizi", ()),
    "numba_vs_core.py": (["--positions", "8", "--batch", "8", "--repeat", "1"],
                         "legal_moves_batch", ()),
    "platform_speed.py": (["--deals", "10", "--rounds", "1"], "choose / play", ()),
    "solve_puzzles.py": (["--repeat", "1"], "positions/s", ()),
    "split_speed.py": (["--hands", "10"], "median laizi:7 / classic", ()),
    "strength_table.py": (["--deals", "4"], "| row vs column |", ()),
    "tiandi_builds.py": (["--positions", "2", "--turns", "1"],
                         "20 cards, 4 laizi, uniform split share this", ()),
    "tiandi_order.py": (["--positions", "4", "--turns", "1", "--repeats", "1"],
                        "laizi's time between calls over alone", ()),
    "vector_env_speed.py": (["--envs", "4", "--rounds", "1", "--seconds", "0.2"],
                            "self-play float32, 1 thread", ()),
}


def run_script(name, args):
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    done = subprocess.run([sys.executable, str(HERE / name), *args], cwd=HERE.parent,
                          env=env, capture_output=True, text=True, timeout=300)
    return done.returncode, done.stdout + done.stderr


def test_every_script_is_listed():
    scripts = {p.name for p in HERE.glob("*.py")
               if not p.name.startswith(("test_", "conftest", "_"))}
    scripts.discard("report.py")    # reads a pytest-benchmark file: its own test below
    assert scripts == set(SCRIPTS)


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_script_runs(name):
    args, fragment, needs = SCRIPTS[name]
    for module in needs:
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{name} needs {module}")
    code, out = run_script(name, args)
    assert code == 0, out[-3000:]
    assert fragment in out, out[-3000:]


def test_tiandi_builds_against_another_build(tmp_path):
    # a copy of this build stands for another: its files are other files, so
    # the process loads it beside this one
    import ddzfast

    shutil.copytree(Path(ddzfast.__file__).parent, tmp_path / "ddzfast")
    code, out = run_script("tiandi_builds.py", ["--against", str(tmp_path),
                                                 "--positions", "2", "--turns", "1"])
    assert code == 0, out[-3000:]
    assert out.count("time this / other: laizi") == 6, out[-3000:]
    code, out = run_script("tiandi_builds.py", ["--against", str(tmp_path), "--follows",
                                                 "--positions", "2", "--turns", "1"])
    assert code == 0, out[-3000:]
    assert out.count("follows share this") == 4, out[-3000:]
    code, out = run_script("tiandi_builds.py", ["--against", str(tmp_path / "none")])
    assert code != 0 and "holds no ddzfast package" in out, out[-3000:]


@pytest.mark.parametrize("split", ["uniform", "deal"])
def test_paired_follows_are_the_leads_after_one_natural_move(split):
    import ddzfast
    sys.path.insert(0, str(HERE))
    import laizi_moves

    leads = laizi_moves.paired_positions(20, 2, split, count=40)
    follows = laizi_moves.paired_positions(20, 2, split, count=40, follow=True)
    bombs = 0
    for (lr, lh, _), (tr, th, _), (lr2, lh2, llast), (tr2, th2, tlast) in zip(*leads, *follows):
        assert (lr, lh, tr, th) == (lr2, lh2, tr2, th2)
        assert (llast.kind, llast.rank, llast.length, llast.cards) == \
            (tlast.kind, tlast.rank, tlast.length, tlast.cards)
        # cards dealt apart from the hands', none of a wild rank
        cards = int(llast.cards)
        assert not llast.substitutes and not cards & (15 << (4 * tr.wild_ranks[0])) \
            and not cards & (15 << (4 * tr.wild_ranks[1]))
        assert all((cards >> (4 * i) & 15) + (th >> (4 * i) & 15) <= 4 for i in range(15))
        bombs += llast.kind in (ddzfast.MoveKind.BOMB, ddzfast.MoveKind.ROCKET)
        for r, h, last in ((lr, lh, llast), (tr, th, tlast)):
            assert len(ddzfast.legal_moves(h, last, r)) >= 1
    assert 0 < bombs < 40


def test_strength_table_with_bidding():
    code, out = run_script("strength_table.py", ["--deals", "3", "--bidding",
                                                 "--agents", "expert,random"])
    assert code == 0, out[-3000:]
    assert "with bidding" in out and out.count("(landlord ") == 2, out[-3000:]


@pytest.mark.parametrize("name, args", [
    ("compare_peers.py", ["--positions", "0"]), ("compare_peers.py", ["--repeat", "0"]),
    ("douzero_env_speed.py", ["--deals", "0"]), ("douzero_env_speed.py", ["--rounds", "0"]),
    ("solve_puzzles.py", ["--repeat", "0"]), ("vector_env_speed.py", ["--rounds", "0"]),
    ("vector_env_speed.py", ["--seconds", "-1"]), ("douzero_vec_speed.py", ["--rounds", "0"]),
    ("platform_speed.py", ["--deals", "0"]), ("platform_speed.py", ["--rounds", "0"]),
    ("expert_speed.py", ["--deals", "0"]), ("numba_vs_core.py", ["--positions", "0"]),
    ("split_speed.py", ["--hands", "3"]), ("strength_table.py", ["--deals", "0"]),
    ("dmc_loop_speed.py", ["--envs", "0"]), ("laizi_moves.py", ["--positions", "0"]),
])
def test_counts_out_of_range_are_usage_errors(name, args):
    """Regression (review of the benchmarks, 2026-12-07): these ended in a
    ZeroDivisionError, a StatisticsError or an IndexError traceback
    (split_speed.py with 3 hands), and strength_table.py --deals 0 printed
    a table of nan: each is a usage error naming the option."""
    code, out = run_script(name, args)
    assert code == 2 and f"error: argument {args[0]}" in out, out[-3000:]
    assert "Traceback" not in out


def test_report_reads_the_file_the_benchmarks_write(tmp_path):
    """Regression (review of the benchmarks, 2026-12-07): report.py raised
    KeyError on the JSON of `pytest benchmarks --benchmark-json`, as the
    observation batch's benchmark gives positions and no moves: the file is
    made here by the benchmarks themselves (two of them)."""
    path = tmp_path / "bench.json"
    here = os.path.dirname(os.path.abspath(__file__))
    r = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         "-p", "no:xdist", f"--rootdir={here}",
         os.path.join(here, "test_bench_moves.py") + "::test_bench[classic-20-lead-legal_moves_into]",
         os.path.join(here, "test_bench_actions.py") + "::test_bench_observation_batch",
         f"--benchmark-json={path}"],
        # (not as a worker of this run's xdist, whose variables would keep
        # pytest-benchmark from writing the file)
        env={k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST")},
        capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    code, out = run_script("report.py", [str(path)])
    assert code == 0, out
    assert "classic-20-lead-legal_moves_into" in out and "median/position" in out, out


def test_report_reads_a_benchmark_file(tmp_path):
    def row(name, median, positions, moves):
        return {"name": f"test_moves[{name}]", "stats": {"median": median},
                "extra_info": {"positions": positions, "moves_per_call": moves}}

    path = tmp_path / "bench.json"
    path.write_text(json.dumps({"benchmarks": [
        row("classic-20-lead-legal_moves_into", 64e-6, 64, 90.0),
        row("biegang-21-lead-legal_moves_into", 128e-6, 64, 540.0),
    ]}))
    code, out = run_script("report.py", [str(path)])
    assert code == 0, out
    # 540 moves in 2 us against 90 in 1 us
    assert "biegang 21-card lead moves/s vs classic 20-card lead: 3.00x" in out, out
