"""The package type-checks with mypy against its own stubs (_core.pyi), with
the configuration in pyproject.toml."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.join(os.path.dirname(__file__), os.pardir)


def test_mypy_passes():
    pytest.importorskip("mypy", reason="mypy is part of the test extra")
    result = subprocess.run([sys.executable, "-m", "mypy", "--no-incremental"],
                            cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
