"""The package type-checks with mypy against its own stubs (_core.pyi and
the other compiled modules' .pyi), with the configuration in
pyproject.toml, and the stubs say what the compiled modules have."""
import os

import pytest

ROOT = os.path.join(os.path.dirname(__file__), os.pardir)


def test_mypy_passes(run_python):
    pytest.importorskip("mypy", reason="mypy is part of the test extra")
    result = run_python("--no-incremental", module="mypy", cwd=ROOT, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr


def test_stubs_match_the_compiled_modules(run_python, tmp_path):
    """mypy's stubtest over every compiled module that has a stub
    (src/ddzfast/_*.pyi): each public name of the module is in its stub, and
    each function's parameters (names, kinds, defaults) are the compiled
    function's. Regression (audit): ``_core._sliced``'s stub lacked its
    ``align`` parameter, and ``_engine._game_from_record``'s its ``given``.
    What stubtest reports that is no such difference (Cython's own
    attributes, names a module imports) is in tests/stubtest_allowlist.txt."""
    pytest.importorskip("mypy.stubtest", reason="mypy is part of the test extra")
    src = os.path.join(ROOT, "src")
    modules = sorted("ddzfast." + name[:-len(".pyi")]
                     for name in os.listdir(os.path.join(src, "ddzfast"))
                     if name.startswith("_") and name.endswith(".pyi"))
    assert len(modules) >= 6, modules
    # (a configuration of its own: mypy's cache kept out of the source tree)
    config = tmp_path / "mypy.ini"
    config.write_text(f"[mypy]\ncache_dir = {tmp_path / 'mypy'}\n")
    flags = ["--allowlist", os.path.join(ROOT, "tests", "stubtest_allowlist.txt"),
             "--ignore-unused-allowlist", "--concise", "--mypy-config-file", config]
    usage = run_python("--help", module="mypy.stubtest").stdout
    if "--ignore-disjoint-bases" in usage:
        # (PEP 800: which classes may not share a subclass; not marked here)
        flags.append("--ignore-disjoint-bases")
    # run from src: the stubs and the compiled modules beside them
    result = run_python(*modules, *flags, module="mypy.stubtest", cwd=src, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
