"""pyflakes' checks, as ruff's F rules (pyproject.toml), over the project's
Python and stubs: no unused import or variable, no undefined name, no
import shadowed before use. Regression (audit): unused imports had piled up
in the compiled modules' neighbours (report, arena, the Gym environment)
and in tests, with a stub's type aliases naming classes defined below them
without ``TypeAlias``. And a pattern of the Cython sources that Cython
compiles without its error check."""
import glob
import os
import re

import pytest

ROOT = os.path.join(os.path.dirname(__file__), os.pardir)
# every folder of the project that holds Python
FOLDERS = ("src", "tests", "benchmarks", "scripts", "examples")


def test_pyflakes_checks_pass(run_python):
    pytest.importorskip("ruff", reason="ruff is part of the test extra")
    result = run_python("check", "--no-cache", "--output-format", "concise", *FOLDERS,
                        module="ruff", cwd=ROOT, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr


def test_no_isinstance_over_a_tuple_holding_an_abc_in_cython():
    """Cython 3.3 compiles ``isinstance(x, (A, B))`` without checking the
    error of the check when a member is not a built-in type. An ABC's check
    (collections.abc, numbers) runs Python code, where a signal handler
    may raise: the error was then left set and the next call failed with
    SystemError (Game.from_position interrupted by Ctrl-C). Such an ABC is
    tested with an isinstance of its own, which Cython checks."""
    call = re.compile(r"isinstance\(\s*[^,()]+,\s*\(([^()]*)\)\s*\)", re.S)
    found = []
    sources = [path for ext in ("pyx", "pxi")
               for path in glob.glob(os.path.join(ROOT, "src", "ddzfast", f"*.{ext}"))]
    assert len(sources) > 10, sources
    for path in sorted(sources):
        text = open(path, encoding="utf-8").read()
        for m in call.finditer(text):
            if re.search(r"\b(abc|numbers)\.", m.group(1)):
                line = text.count("\n", 0, m.start()) + 1
                found.append(f"{os.path.basename(path)}:{line}: {m.group(0)}")
    assert not found, "\n".join(found)
