"""Every public entry point fuzzed with hostile arguments, each group in its
own process (tests/oracles/fuzz_driver.py): only ValueError and TypeError may come
out (IndexError for an index), and a crash fails the test instead of killing
pytest. Over 500,000 calls in all; DDZ_FUZZ_SCALE multiplies them."""
import os

import pytest

DRIVER = os.path.join(os.path.dirname(__file__), "oracles", "fuzz_driver.py")
SCALE = float(os.environ.get("DDZ_FUZZ_SCALE", "1"))

# calls per group: cheap groups get more
# (numba, simulate, cli and envs grew with the entry points they took on, so
# that those they had keep their share)
CALLS = {"core": 200_000, "objects": 50_000, "game": 100_000, "features": 20_000,
         "numba": 18_000, "simulate": 10_000, "cli": 4_000, "solve": 10_000,
         "learning": 20_000, "split": 50_000, "vector": 10_000, "envs": 5_000,
         "arena": 5_000}
# groups that need an optional extra: the modules they import
NEEDS = {"numba": ("numba",), "envs": ("gymnasium", "pettingzoo")}


@pytest.mark.parametrize("group", sorted(CALLS))
def test_fuzz_group_in_a_subprocess(run_python, group):
    for module in NEEDS.get(group, ()):
        pytest.importorskip(module)
    calls = max(1, int(CALLS[group] * SCALE))
    result = run_python(DRIVER, group, "20261130", str(calls), timeout=1800)
    assert result.returncode == 0, (
        f"{group} fuzzing ended with status {result.returncode} "
        f"(negative: killed by that signal)\n{result.stdout[-3000:]}\n{result.stderr[-6000:]}")
    made = int(result.stdout.split(f"{group}: ", 1)[1].split(" calls")[0])
    assert made >= calls
