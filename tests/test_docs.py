"""Every example of the docs and of the README runs as a doctest, so the docs
stay true.

One test per page: README.md and every Markdown page under docs/. The
```` ```python ```` blocks of a page run in order, in one namespace (a page's
examples may build on each other), with ELLIPSIS and NORMALIZE_WHITESPACE.

A page that needs an optional module says so in an HTML comment at its top::

    <!-- doctest-requires: numba pettingzoo -->

and is skipped, naming the extra to install, only when one of those modules
cannot be imported. Pages without the comment need nothing beyond ddzfast's
own dependencies.
"""
from __future__ import annotations

import doctest
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md"] + sorted(DOCS.rglob("*.md"))

# Pages that document no API and so may hold no example; every other page
# must hold at least one.
NO_EXAMPLES = {"docs/RULES.md", "docs/benchmarks.md", "docs/tiandi-speed.md", "docs/layout.md",
               "docs/changelog.md"}

# The extra that installs each module a page may require (for skip messages).
EXTRAS = {"numba": "numba", "pettingzoo": "env", "gymnasium": "env",
          "rlcard": "rlcard", "ray": "ray", "pandas": "pandas",
          "pyarrow": "parquet", "matplotlib": "plot"}

REQUIRES = re.compile(r"<!--\s*doctest-requires:([^>]*?)-->")
FENCE_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*python\b[^`]*$")
PROMPT = re.compile(r"^[ \t]*>>> ", re.MULTILINE)
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def page_id(path: pathlib.Path) -> str:
    return path.relative_to(ROOT).as_posix()


def requirements(text: str) -> list[str]:
    """The modules named by doctest-requires comments at the top of a page
    (before its first non-comment line)."""
    modules = []
    rest = text.lstrip()
    while True:
        m = REQUIRES.match(rest)
        if m is None:
            if rest.startswith("<!--"):      # another comment: look past it
                end = rest.find("-->")
                if end < 0:
                    break
                rest = rest[end + 3:].lstrip()
                continue
            break
        modules.extend(m.group(1).split())
        rest = rest[m.end():].lstrip()
    return modules


def python_blocks(text: str) -> list[tuple[int, str]]:
    """(line number, source) of each ```python block, the fence's
    indentation removed."""
    blocks = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = FENCE_OPEN.match(lines[i])
        if m is None:
            i += 1
            continue
        indent, fence = m.group("indent"), m.group("fence")
        close = re.compile(r"^" + re.escape(indent) + re.escape(fence[0]) + "{"
                           + str(len(fence)) + r",}[ \t]*$")
        start = i + 1
        j = start
        while j < len(lines) and not close.match(lines[j]):
            j += 1
        body = [line[len(indent):] if line.startswith(indent) else line.lstrip()
                for line in lines[start:j]]
        blocks.append((start, "\n".join(body) + "\n"))
        i = j + 1
    return blocks


def test_parser_finds_the_examples():
    """The block parser itself, on a page made up here."""
    text = ("<!-- doctest-requires: numba env_module -->\n# T\n\n"
            "```python\n>>> 1 + 1\n2\n\n```\n\ntext\n\n"
            "```sh\n>>> not python\n```\n\n"
            "* item\n\n    ```python\n    >>> print('x')\n    x\n    ```\n")
    assert requirements(text) == ["numba", "env_module"]
    assert requirements("# no comment\n<!-- doctest-requires: numba -->\n") == []
    blocks = python_blocks(text)
    assert [line for line, _ in blocks] == [4, 18]
    parser = doctest.DocTestParser()
    assert sum(len(parser.get_examples(src)) for _, src in blocks) == 2


@pytest.mark.parametrize("path", PAGES, ids=page_id)
def test_page_examples(path: pathlib.Path):
    name = page_id(path)
    text = path.read_text(encoding="utf-8")
    for module in requirements(text):
        extra = EXTRAS.get(module, module)
        pytest.importorskip(module, reason=f"{name}'s examples need {module}: "
                            f"pip install 'ddzfast[{extra}]'")

    parser = doctest.DocTestParser()
    globs: dict = {"__name__": "__docs__"}
    tests = [parser.get_doctest(src, globs, f"{name}:{line + 1}", str(path), line)
             for line, src in python_blocks(text)]
    for t in tests:
        t.globs = globs          # DocTest copies its globals: share one namespace
    found = sum(len(t.examples) for t in tests)

    # Every prompt of the page is in a python block (else it would never run),
    # and the parser found each one.
    prompts_in_blocks = sum(len(PROMPT.findall(src)) for _, src in python_blocks(text))
    assert found == prompts_in_blocks == len(PROMPT.findall(text)), (
        f"{name}: {len(PROMPT.findall(text))} '>>>' lines, {prompts_in_blocks} in "
        f"```python blocks, {found} examples parsed")
    if name not in NO_EXAMPLES:
        assert found > 0, f"{name} documents API but holds no example"

    runner = doctest.DocTestRunner(optionflags=FLAGS)
    for t in tests:
        runner.run(t, clear_globs=False)
    result = runner.summarize(verbose=False)
    assert result.attempted == found
    assert result.failed == 0, f"{name}: {result.failed} of {found} examples failed"


NUMBER_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")


@pytest.mark.parametrize("path", [ROOT / "README.md", DOCS / "index.md"], ids=page_id)
def test_opening_counts_are_the_projects(path: pathlib.Path):
    """The opening paragraph's number of wildcard variants (the built-in rule
    sets other than classic) and of perft positions (tests/perft/)."""
    import ddzfast

    text = " ".join(path.read_text(encoding="utf-8").split())
    variants = re.search(r"Dou Dizhu \(斗地主\) and (\w+) wildcard variants", text)
    assert variants, f"{page_id(path)}: no 'and N wildcard variants' in the opening"
    assert variants.group(1) == NUMBER_WORDS[len(ddzfast.RULE_SETS) - 1], (
        f"{page_id(path)} says {variants.group(1)} wildcard variants; the built-in "
        f"rule sets besides classic are {sorted(set(ddzfast.RULE_SETS) - {'classic'})}")
    positions = sum(1 for f in (ROOT / "tests" / "perft").glob("*.txt")
                    for line in f.read_text().splitlines()
                    if line.split()[:1] and line.split()[0].isdigit())
    stated = re.search(r"against ([\d,]+) perft positions", text)
    assert stated and int(stated.group(1).replace(",", "")) == positions, (
        f"{page_id(path)}: {stated and stated.group(1)} perft positions stated, "
        f"tests/perft/ holds {positions}")


LAYOUT_ROW = re.compile(r"^\| `(\w+)` \| (\d+) \| (\d+) \| (\([\d, ]*\)) \| (.*) \|$")


def test_observation_layout_table_is_the_layout():
    """docs/learning.md's table of the observation tensor's blocks: one row
    per OBSERVATION_LAYOUT entry, with its offset, size, shape and
    description."""
    from ddzfast._engine import OBSERVATION_LAYOUT

    rows = {}
    for line in (DOCS / "learning.md").read_text(encoding="utf-8").splitlines():
        m = LAYOUT_ROW.match(line)
        if m:
            rows[m.group(1)] = m.groups()[1:]
    assert list(rows) == list(OBSERVATION_LAYOUT)
    for name, block in OBSERVATION_LAYOUT.items():
        assert rows[name] == (str(block.offset), str(block.size), str(tuple(block.shape)),
                              block.description), name


def test_extras_listed_are_pyprojects():
    """Regression (audit): index.md's list of optional extras lacked `sb3` and
    `train`. It names every extra of pyproject.toml, and only those."""
    tomllib = pytest.importorskip("tomllib", reason="tomllib is Python 3.11+")
    with open(ROOT / "pyproject.toml", "rb") as f:
        extras = set(tomllib.load(f)["project"]["optional-dependencies"])
    text = " ".join((DOCS / "index.md").read_text(encoding="utf-8").split())
    listed = re.search(r"Optional extras: (.*?)\.(?: |$)", text)
    assert listed, "index.md: no 'Optional extras: ...' sentence"
    names = re.sub(r"\([^()]*\)", "", listed.group(1))     # what each extra is for
    assert set(re.findall(r"`([\w-]+)`", names)) == extras


def test_the_version_is_pyprojects():
    """The version is written twice, in pyproject.toml (the package's
    metadata) and as ``ddzfast.__version__`` (what ``ddzfast --version``
    prints): the two agree (the packaging review of 2026-12-06 found no
    check that they do)."""
    import ddzfast
    tomllib = pytest.importorskip("tomllib", reason="tomllib is Python 3.11+")
    with open(ROOT / "pyproject.toml", "rb") as f:
        assert tomllib.load(f)["project"]["version"] == ddzfast.__version__


POLICY_CALL = re.compile(r'policy_\w+\(("\w+"(?: \| "\w+")+)\)')
POLICY_LIST = re.compile(r'Policies: (`"\w+"`(?:, `"\w+"`)*)')


def test_policy_lists_are_the_engines():
    """Regression (audit): deals.md listed the built-in policies as "random"
    and "greedy", without "expert". Every list of them in the docs, a call's
    alternatives (``policy_move("random" | ...)``) or a "Policies:"
    enumeration, names the engine's POLICIES, in its order."""
    from ddzfast._engine import POLICIES

    found = 0
    for path in PAGES:
        text = " ".join(path.read_text(encoding="utf-8").split())
        for pattern in (POLICY_CALL, POLICY_LIST):
            for listed in pattern.findall(text):
                found += 1
                assert re.findall(r'"(\w+)"', listed) == list(POLICIES), (
                    f"{page_id(path)}: {listed}")
    assert found >= 3


def test_numba_function_lists_are_its_all():
    """Regression (audit of the docs): ddzfast.numba's min_plays was missing
    from batches.md's list of its functions and from the members of the API
    reference page. The reference's members are numba.__all__ (less the
    dtype), and batches.md names each of them."""
    dn = pytest.importorskip("ddzfast.numba")
    public = set(dn.__all__) - {"MOVE_DTYPE"}
    reference = (DOCS / "reference" / "batches.md").read_text(encoding="utf-8")
    members = re.search(r"::: ddzfast\.numba\s+options:\s+members: \[([^\]]*)\]", reference)
    assert members, "reference/batches.md: no members list of ddzfast.numba"
    assert {m.strip() for m in members.group(1).split(",")} == public
    page = (DOCS / "batches.md").read_text(encoding="utf-8")
    section = page[page.index("## From Numba"):]
    named = set(re.findall(r"(\w+)\(", section))
    assert public <= named, sorted(public - named)


def test_the_demo_into_a_closed_pipe_ends_quietly(run_python):
    """`python -m ddzfast.demo | head -1` ended in a BrokenPipeError
    traceback: it ends with status 1 and nothing on standard error."""
    demo = run_python.popen(module="ddzfast.demo", text=False)
    first = demo.stdout.readline()
    demo.stdout.close()         # the reader has gone before the speed line
    err = demo.stderr.read()
    assert demo.wait(timeout=120) == 1 and first.startswith(b"ddzfast ")
    assert err == b"", err.decode(errors="replace")


def test_readme_demo_runs(run_python):
    """The README's first command ends in ``python -m ddzfast.demo``: it
    runs, shows a position of every built-in rule set with the count of
    legal_moves, and ends with the speed line."""

    import ddzfast
    from ddzfast import Move, legal_moves
    from ddzfast.demo import POSITIONS
    from ddzfast.rulesets import RULE_SETS

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "python -m ddzfast.demo" in readme
    assert {rules.split(":")[0] for rules, _, _ in POSITIONS} == set(RULE_SETS)

    done = run_python(module="ddzfast.demo", timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[0] == f"ddzfast {ddzfast.__version__}"
    counts = [int(m.group(1)) for m in map(re.compile(r"^\S+ .*: (\d+) legal moves$").match,
                                            lines) if m]
    assert counts == [len(legal_moves(hand, Move.parse(last) if last else None, rules))
                      for rules, hand, last in POSITIONS]
    speed = re.fullmatch(r"classic 20-card leads through legal_moves_into: "
                         r"([\d.]+) us per call, (\d+) million moves per second", lines[-1])
    assert speed is not None, lines[-1]
    assert float(speed.group(1)) > 0


def test_ci_runs_the_readmes_test_command_so_that_it_fails():
    """.ci/run runs the README's test command as it is, in a subshell of its
    own: under ``set -e`` a failure inside an ``&&`` list is ignored unless
    it is the last command, so a failed install there would skip the tests
    and let the script go on; a failed subshell stops it."""
    import subprocess

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("Install and pass the tests"):]
    command = re.search(r"```sh\n(.*?)\n```", section, re.DOTALL).group(1).strip()
    assert "\n" not in command and command.startswith("python3 -m venv .venv")
    # .ci/run makes its own environment first, then the rest of the command
    rest = command.split(" && ", 2)[2]
    assert rest.startswith("pip install ")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "set -euo pipefail" in ci
    assert f"\n( {rest} )\n" in ci

    stops = subprocess.run(["bash", "-c", "set -euo pipefail; ( true && false && true ); "
                            "echo went on"], capture_output=True, text=True)
    assert stops.returncode != 0 and "went on" not in stops.stdout
