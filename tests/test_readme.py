"""The README's API examples run as doctests, so the docs stay true."""
import doctest
import os

import pytest

README = os.path.join(os.path.dirname(__file__), os.pardir, "README.md")


def test_readme_examples():
    # the README's Numba example needs the optional extra ddzfast[numba]
    pytest.importorskip("numba", reason="the README's examples include Numba: "
                        "pip install 'ddzfast[numba]'")
    # ... and the learning environments, ddzfast[env] and ddzfast[rlcard]
    for module in ("pettingzoo", "gymnasium"):
        pytest.importorskip(module, reason="the README's examples include the "
                            "environments: pip install 'ddzfast[env]'")
    pytest.importorskip("rlcard", reason="the README's examples include RLCard's "
                        "ids: pip install 'ddzfast[rlcard]'")
    with open(README, encoding="utf-8") as f:
        text = f.read()
    parser = doctest.DocTestParser()
    test = parser.get_doctest(text, {}, "README.md", README, 0)
    assert len(test.examples) >= 10
    runner = doctest.DocTestRunner(
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0
