"""pyflakes' checks, as ruff's F rules (pyproject.toml), over the project's
Python and stubs: no unused import or variable, no undefined name, no
import shadowed before use. Regression (audit): unused imports had piled up
in the compiled modules' neighbours (report, arena, the Gym environment)
and in tests, with a stub's type aliases naming classes defined below them
without ``TypeAlias``."""
import os

import pytest

ROOT = os.path.join(os.path.dirname(__file__), os.pardir)
# every folder of the project that holds Python
FOLDERS = ("src", "tests", "benchmarks", "scripts", "examples")


def test_pyflakes_checks_pass(run_python):
    pytest.importorskip("ruff", reason="ruff is part of the test extra")
    result = run_python("check", "--no-cache", "--output-format", "concise", *FOLDERS,
                        module="ruff", cwd=ROOT, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
