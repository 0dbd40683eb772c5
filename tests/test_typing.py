"""The package type-checks with mypy against its own stubs (_core.pyi), with
the configuration in pyproject.toml."""
import os

import pytest

ROOT = os.path.join(os.path.dirname(__file__), os.pardir)


def test_mypy_passes(run_python):
    pytest.importorskip("mypy", reason="mypy is part of the test extra")
    result = run_python("--no-incremental", module="mypy", cwd=ROOT, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
