"""pytest configuration for ddzfast's tests (see tests/README.md).

* ``tests/`` is put on sys.path: the test modules import their shared helpers
  as ``from helpers import ...`` (tests/helpers.py: the one list of rule sets,
  RULE_SETS, and what derives from it) and the independent oracles and
  drivers as ``from oracles import reference`` (the tests/oracles package).
* ``run_python``: the one fixture for tests that need a fresh Python
  interpreter (a crash then fails the test instead of killing pytest, and an
  import or an environment variable is seen from scratch).
"""
import os
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))


class PythonRunner:
    """Runs this interpreter (``sys.executable``) in a subprocess.

    ``run_python(*args, code=None, module=None, input=None, timeout=300,
    env=None, cwd=None, text=True)`` runs ``python -c CODE ARGS`` when ``code``
    is given, ``python -m MODULE ARGS`` when ``module`` is, else
    ``python ARGS`` (a script and its arguments); output is captured, and the
    ``subprocess.CompletedProcess`` is returned (its return code unchecked).
    ``env`` entries are added to this process's environment (``None`` as a
    value removes a variable). ``run_python.popen(...)`` takes the same
    arguments but ``input`` and ``timeout`` and returns a running
    ``subprocess.Popen`` with piped stdout and stderr."""

    @staticmethod
    def argv(args, code=None, module=None) -> list:
        if code is not None and module is not None:
            raise ValueError("run_python: code or module, not both")
        head = ["-c", code] if code is not None else ["-m", module] if module else []
        return [sys.executable, *head, *map(str, args)]

    @staticmethod
    def environ(env):
        if env is None:
            return None
        merged = dict(os.environ)
        for key, value in env.items():
            if value is None:
                merged.pop(key, None)
            else:
                merged[key] = value
        return merged

    def __call__(self, *args, code=None, module=None, input=None, timeout=300,
                 env=None, cwd=None, text=True) -> subprocess.CompletedProcess:
        return subprocess.run(self.argv(args, code, module), input=input,
                              capture_output=True, text=text, timeout=timeout,
                              env=self.environ(env), cwd=cwd)

    def popen(self, *args, code=None, module=None, env=None, cwd=None,
              text=True) -> subprocess.Popen:
        return subprocess.Popen(self.argv(args, code, module), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=text,
                                env=self.environ(env), cwd=cwd)


@pytest.fixture(scope="session")
def run_python() -> PythonRunner:
    """Run Python in a subprocess: see PythonRunner."""
    return PythonRunner()


@pytest.fixture(scope="session")
def ray_home(tmp_path_factory):
    """A home folder for the Ray tests of this process (see ray_tmpdir)."""
    return str(tmp_path_factory.mktemp("ray-home"))


@pytest.fixture
def ray_tmpdir(monkeypatch, ray_home):
    """A folder of the test's own for the Ray sessions it starts (RAY_TMPDIR,
    which `ray start` also reads), removed after it: they stayed in /tmp/ray.
    Short, as Ray's sockets are in it.

    HOME is `ray_home` meanwhile: Ray keeps its token in ~/.ray/auth_token
    (`ray.init()` writes one), and with a token another process left in the
    user's home, the head that a test starts with `ray start` refused this
    process's connection."""
    import shutil
    import tempfile
    folder = tempfile.mkdtemp(prefix="ray-")
    monkeypatch.setenv("RAY_TMPDIR", folder)
    monkeypatch.setenv("HOME", ray_home)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)
