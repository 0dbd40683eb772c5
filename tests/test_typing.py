"""The package type-checks with mypy against its own stubs (_core.pyi), with
the configuration in pyproject.toml."""
import os

import pytest

ROOT = os.path.join(os.path.dirname(__file__), os.pardir)


def test_mypy_passes(run_python):
    pytest.importorskip("mypy", reason="mypy is part of the test extra")
    result = run_python("--no-incremental", module="mypy", cwd=ROOT, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr


def _stub_functions(tree, module):
    """(qualified name, stub def, runtime object) of every function and
    method a stub declares that the module has; dunder methods are left out
    (their slot wrappers show no parameters)."""
    import ast
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and hasattr(module, node.name):
            yield node.name, node, getattr(module, node.name)
        elif isinstance(node, ast.ClassDef) and hasattr(module, node.name):
            cls = getattr(module, node.name)
            for sub in node.body:
                if (isinstance(sub, ast.FunctionDef) and sub.name in vars(cls)
                        and not sub.name.startswith("__")):
                    obj = vars(cls)[sub.name]
                    obj = getattr(obj, "__func__", obj)      # staticmethod, classmethod
                    if callable(obj):
                        yield f"{node.name}.{sub.name}", sub, obj


def test_stubs_name_the_runtime_parameters():
    """Regression (audit): ``_core._sliced``'s stub lacked its ``align``
    parameter (and ``_engine._game_from_record``'s its ``given``). Every
    function and method of the extension modules' stubs names the
    parameters of the compiled function, in order."""
    import ast
    import glob
    import importlib
    import inspect

    checked, wrong = 0, []
    for path in sorted(glob.glob(os.path.join(ROOT, "src", "ddzfast", "_*.pyi"))):
        name = "ddzfast." + os.path.basename(path)[:-len(".pyi")]
        module = importlib.import_module(name)
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read())
        for qualname, node, obj in _stub_functions(tree, module):
            try:
                runtime = [p.name for p in inspect.signature(obj).parameters.values()]
            except (TypeError, ValueError):     # a builtin without a signature
                continue
            a = node.args
            stub = [p.arg for p in a.posonlyargs + a.args]
            stub += [a.vararg.arg] if a.vararg else []
            stub += [p.arg for p in a.kwonlyargs]
            stub += [a.kwarg.arg] if a.kwarg else []
            if stub[:1] in (["self"], ["cls"]) and runtime[:1] != stub[:1]:
                stub = stub[1:]          # a static or class method seen through its class
            checked += 1
            if stub != runtime:
                wrong.append(f"{name}.{qualname}: stub {stub}, runtime {runtime}")
    assert checked > 50 and not wrong, "\n".join(wrong)
