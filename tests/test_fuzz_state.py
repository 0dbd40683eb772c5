"""State that comes back in from outside (Game pickles of today's format and
of the earlier unversioned one, Observations given to ``sample``, truncated
pickles), mutated field by field by tests/oracles/state_fuzz.py in a
subprocess: a load may only raise ValueError or TypeError, and a game that
loads works through the API. A crash or a hang fails the test.
DDZ_FUZZ_SCALE multiplies the cases (the AddressSanitizer run of .ci/run
runs this file too)."""
import os

import pytest

DRIVER = os.path.join(os.path.dirname(__file__), "oracles", "state_fuzz.py")
SCALE = float(os.environ.get("DDZ_FUZZ_SCALE", "1"))


# four streams of 5,000 cases rather than two of 10,000: the same number of
# cases, in parts that the test run can spread over its workers
@pytest.mark.parametrize("seed", [20261201, 7, 11, 1999])
def test_mutated_state_loads_or_is_refused_in_a_subprocess(run_python, seed):
    cases = max(4, int(5_000 * SCALE))
    result = run_python(DRIVER, seed, cases, timeout=1200)
    assert result.returncode == 0, (
        f"state fuzzing ended with status {result.returncode} (negative: killed by "
        f"that signal)\n{result.stdout[-3000:]}\n{result.stderr[-6000:]}")
    assert f"state: {cases} cases" in result.stdout
    loaded = int(result.stdout.split(" cases, ")[1].split(" loaded")[0])
    # the mutants that stay loadable (random states, equal moves) are exercised
    assert 0 < loaded < cases
