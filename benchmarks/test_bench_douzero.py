"""pytest-benchmark suite for ddzfast.compat.douzero.Env.

    python -m pytest benchmarks/test_bench_douzero.py

Group ``douzero-env``: DEALS deals played through ``reset()`` and ``step()``
(each step builds DouZero's observation), the actions recorded beforehand
(uniform random legal actions), for ddzfast's Env and, when DouZero is
installed, DouZero's own Env on the same deals and actions. The side-by-side
ratio is printed by benchmarks/douzero_env_speed.py.
"""
import pytest

from ddzfast.compat import douzero as cdz
from douzero_env_speed import record, replay

DEALS = 20


def _envs():
    envs = [("ddzfast", cdz.Env)]
    try:
        from douzero.env.env import Env as DouZeroEnv
        envs.append(("douzero", DouZeroEnv))
    except ImportError:
        pass
    return envs


@pytest.mark.parametrize("name, env_cls", _envs(), ids=[n for n, _ in _envs()])
def test_douzero_env_deals(benchmark, name, env_cls):
    benchmark.group = "douzero-env"
    seeds = list(range(DEALS))
    deals = record(cdz.Env, seeds, "random", "adp")   # chosen on ddzfast's Env

    def run():
        return replay(env_cls, seeds, deals, "adp")[1]

    rewards = benchmark(run)
    assert len(rewards) == DEALS and all(r != 0 for r in rewards)
    benchmark.extra_info["deals"] = DEALS
    benchmark.extra_info["steps"] = sum(len(d) for d in deals)


def test_side_by_side_script_runs(capsys):
    """The side-by-side script runs (its timings are not checked)."""
    pytest.importorskip("douzero.env.env", reason="DouZero is not installed "
                        "(pip install --no-deps douzero)")
    import os
    import sys
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import douzero_env_speed
    assert douzero_env_speed.main(["--deals", "3", "--rounds", "1"]) == 0
    assert "ratio DouZero / ddzfast" in capsys.readouterr().out
