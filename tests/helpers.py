"""Helpers shared by the tests: the one list of rule sets to test and what
derives from it (decks, the reference each rule set is checked against,
command-line arguments), and conversion between the core's moves and the
references' identities (kind name, r, n, 16 counts).

``RULE_SETS`` holds rule-set *names* as ``ddzfast.get_rules`` takes them, one
per rule set: a laizi rule set is named with the wild rank that move
generation needs, ``"laizi:7"`` (``get_rules("laizi")`` alone has no wild
rank; a deal of ``Game("laizi")`` draws one from its seed, and tests of that
draw name ``"laizi"`` themselves), and tiandi with its two, sky then ground,
``"tiandi:7J"``. A test of a feature that holds for every
rule set is parametrised over ``RULE_SETS``; adding a rule set is adding its
name here (and, when it is neither of the classic family nor laizi, teaching
``reference_for`` which oracle checks it).
"""
import ctypes
import os
import textwrap
import threading
import time
from types import SimpleNamespace

import pytest

import ddzfast
from ddzfast.constants import CARD_CHARS, deck_text

RULE_SETS = ("classic", "biegang", "super", "laizi:7", "tiandi:7J")

#: the laizi rule set of RULES.md section 8's worked readings (wild rank 7)
L7 = "laizi:7"
#: a 20-card laizi hand with four laizi for "laizi:7": 10,796 leads, over the
#: 4,096 moves of the per-call stack buffer
LAIZI_BIG = "3456777789TTTJJJQQKA"

#: pettingzoo.test.api_test warns about dict observations unless the
#: environment is one of PettingZoo's own classic games (it checks their
#: names); the dict with "observation" and "action_mask" is what those games
#: give. A test module's ``pytestmark``, or one test's marks.
API_TEST_DICT_WARNINGS = [
    pytest.mark.filterwarnings("ignore:Observation space for each agent probably"),
    pytest.mark.filterwarnings("ignore:Observation is not a NumPy array"),
]


def ignoring_api_test_dict_warnings(test):
    """``test`` with the marks of API_TEST_DICT_WARNINGS."""
    for mark in API_TEST_DICT_WARNINGS:
        test = mark(test)
    return test

# derived from RULE_SETS --------------------------------------------------------
#: the rule sets of the classic family (a W joker or none, no laizi): those the
#: classic reference, tests/oracles/reference.py, knows
CLASSIC_FAMILY = tuple(name for name in RULE_SETS if not ddzfast.get_rules(name).laizi)
#: the rule sets whose deck holds the W joker
WILDCARD_RULE_SETS = tuple(name for name in RULE_SETS if ddzfast.get_rules(name).wildcard)
#: the deck of each rule set, as card text (54 cards, 55 with W)
DECKS = {name: deck_text(ddzfast.get_rules(name).wildcard) for name in RULE_SETS}


def base_name(rules: str) -> str:
    """The built-in rule set a name refers to: ``"laizi:7"`` -> ``"laizi"``."""
    return rules.split(":", 1)[0]


def wild_char(rules: str):
    """The wild ranks' card characters of a laizi or tiandi name
    (``"laizi:7"`` -> ``"7"``, ``"tiandi:7J"`` -> ``"7J"``), None for the
    other rule sets."""
    r = ddzfast.get_rules(rules)
    ranks = r.wild_ranks if r.wild_count == 2 else (
        () if r.wild_rank is None else (r.wild_rank,))
    return "".join(CARD_CHARS[k] for k in ranks) or None


def cli_rules(rules: str) -> list:
    """The command line's arguments naming a rule set: ``--rules NAME``, and
    ``--wild RANK`` for a laizi rule set (the CLI takes no ``laizi:7``;
    ``--wild 7J`` for tiandi)."""
    args = ["--rules", base_name(rules)]
    wild = wild_char(rules)
    return args + (["--wild", wild] if wild is not None else [])


def reference_for(rules: str) -> SimpleNamespace:
    """The independent oracle of a rule set behind one interface, on the
    references' identities and 16-count tuples: ``classify(counts)``,
    ``beats(move, last)``, ``tier(move)`` (0 for a move of no bomb tier),
    ``legal_moves(counts, last)``
    (tests/oracles/reference.py for the classic family,
    tests/oracles/reference_laizi.py with the wild rank for laizi,
    tests/oracles/reference_tiandi.py with both for tiandi)."""
    from oracles import reference, reference_laizi, reference_tiandi
    wild = ddzfast.get_rules(rules).wild_rank
    if ddzfast.get_rules(rules).wild_count == 2:
        T, G = ddzfast.get_rules(rules).wild_ranks
        return SimpleNamespace(
            classify=lambda counts: reference_tiandi.classify(counts, T, G),
            beats=lambda m, p: reference_tiandi.beats(m, p),
            tier=reference_tiandi.tier,
            legal_moves=lambda counts, last: reference_tiandi.legal_moves(counts, last,
                                                                          T, G),
            PASS=reference_tiandi.PASS)
    if ddzfast.get_rules(rules).laizi:
        return SimpleNamespace(
            classify=lambda counts: reference_laizi.classify(counts, wild),
            beats=lambda m, p: reference_laizi.beats(m, p),
            tier=reference_laizi.tier,
            legal_moves=lambda counts, last: reference_laizi.legal_moves(counts, last, wild),
            PASS=reference_laizi.PASS)
    return SimpleNamespace(
        classify=lambda counts: reference.classify(counts, rules),
        beats=lambda m, p: reference.beats(m, p, rules),
        tier=lambda m: reference.tier(m, rules),
        legal_moves=lambda counts, last: reference.legal_moves(counts, last, rules),
        PASS=reference.PASS)


def identity(move) -> tuple:
    """A core Move as the reference's identity."""
    return (move.kind.name, move.rank, move.length, move.cards.counts)


def identities_repeat(arr) -> bool:
    """Whether two rows of a MOVE_DTYPE array share an identity (kind, rank,
    length, cards): by sorting, as a tiandi list has millions of rows."""
    import numpy as np
    fields = ("cards", "length", "rank", "kind")
    ids = arr[np.lexsort([arr[f] for f in fields])]
    same = np.ones(max(len(arr) - 1, 0), dtype=bool)
    for f in fields:
        same &= ids[f][1:] == ids[f][:-1]
    return bool(same.any())


def core_move(ident, rules=None) -> "ddzfast.Move":
    """A reference identity as a core Move."""
    kind, r, n, counts = ident
    packed = sum(c << (4 * i) for i, c in enumerate(counts))
    return ddzfast.Move(kind, r, n, packed, rules=rules)


def capi(name: str, restype, *argtypes, module: str = "_core"):
    """A C function of a compiled module of ddzfast (declared in its .pxd:
    _core.pxd by default) as a ctypes function. Its arguments are passed as
    they are: callers keep the memory they point into alive."""
    import importlib
    capsule = importlib.import_module(f"ddzfast.{module}").__pyx_capi__[name]
    get_name = ctypes.pythonapi.PyCapsule_GetName
    get_name.restype = ctypes.c_char_p
    get_name.argtypes = [ctypes.py_object]
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype = ctypes.c_void_p
    get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    address = get_pointer(capsule, get_name(capsule))
    return ctypes.CFUNCTYPE(restype, *argtypes)(address)


def dirty_the_stack():
    """Deep C frames with pointers in them in every rule set, so that stale
    stack bytes under a later call's buffer are not zero by luck."""
    deck = "3456789TJQKA2" * 4 + "XD"
    for rules in RULE_SETS:
        ddzfast.legal_moves(deck[:20], None, rules)
        list(ddzfast.legal_moves("3456789TJQKA2", None, rules))
        ddzfast.Game(rules, 7).observation()


def play_to(phase, rules, seed, show=0, call=1, double=1) -> "ddzfast.Game":
    """A deal of ``rules`` (seeded ``seed``) played to its ``phase`` of
    RULES.md 10's decisions: ``show`` at each show step (or a function of
    the game giving it), ``call`` at each call or rob, ``double`` at each
    doubling step."""
    g = ddzfast.Game(rules, seed=seed)
    while g.phase != phase:
        if g.phase in ("show", "landlord_show"):
            g.choose(show(g) if callable(show) else show)
        elif g.phase == "bidding":
            g.choose(call)
        elif g.phase == "doubling":
            g.choose(double)
        else:
            raise AssertionError(f"the deal went past {phase!r}")
    return g


def failing_import(monkeypatch, module: str, error: ImportError) -> None:
    """Imports of ``module`` and its submodules raise ``error`` (monkeypatched
    for one test): an optional package that is installed but fails its own
    import. Calls for several modules stack."""
    import builtins
    import sys
    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name == module or name.startswith(module + "."):
            raise error
        return real_import(name, *args, **kwargs)

    for name in [m for m in sys.modules if m == module or m.startswith(module + ".")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setattr(builtins, "__import__", fake_import)


def assert_never_writable(a) -> None:
    """Neither ``a`` nor any array it is a view of can be made writable
    (numpy lets the array owning its data be made writable again: a view of
    a read-only array alone is no protection)."""
    while a is not None and hasattr(a, "flags"):
        with pytest.raises(ValueError, match="WRITEABLE"):
            a.flags.writeable = True
        assert not a.flags.writeable
        a = a.base


def survives_a_writer(run_python, setup: str, writes: str, work: str, rounds: int) -> None:
    """The regression tests of values read twice from memory another thread
    may write: in a subprocess, ``setup``, then ``work`` ``rounds`` times
    while a second thread runs ``writes`` over and over, the interpreter
    switching threads as often as it can. Fails when the process crashes
    (a segfault is a return code, not a lost pytest worker) or ``work``
    raises what it does not catch itself."""
    script = "\n".join([
        "import sys, threading", textwrap.dedent(setup), "stop = False",
        "def scribble():", "    while not stop:",
        textwrap.indent(textwrap.dedent(writes).strip("\n"), " " * 8),
        "threading.Thread(target=scribble, daemon=True).start()",
        "sys.setswitchinterval(1e-6)", f"for _ in range({rounds}):",
        textwrap.indent(textwrap.dedent(work).strip("\n"), " " * 4),
        "stop = True", 'print("survived")'])
    done = run_python(code=script, timeout=240)
    assert done.returncode == 0 and "survived" in done.stdout, \
        f"status {done.returncode}: {done.stderr[-2000:]}"


def os_threads() -> int:
    """The threads of this process as the system counts them. The workers
    of ddzfast's threaded calls are bare threads (``_thread``), which
    ``threading.active_count()`` does not see; without /proc (not Linux),
    that count is all there is."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return threading.active_count()


#: The head of a child process's code that counts threads with the
#: helpers above (a child does not have the tests folder on its path).
CHILD_HELPERS = (f"import sys\nsys.path.insert(0, {os.path.dirname(os.path.abspath(__file__))!r})\n"
                 f"from helpers import os_threads, threads_back_to\n")


def threads_back_to(before: int, seconds: float = 5.0) -> int:
    """``os_threads()`` once it is down to ``before``, or after ``seconds``:
    a worker that has reported its end still takes a moment to exit. (A
    thread of an earlier test may still be exiting when ``before`` is
    read: what is checked is that none is left, ``<= before``.)"""
    deadline = time.monotonic() + seconds
    while os_threads() > before and time.monotonic() < deadline:
        time.sleep(0.01)
    return os_threads()


def settled_threads(seconds: float = 2.0) -> int:
    """``os_threads()`` once it has stopped falling (threads of earlier
    tests exited), or after ``seconds``."""
    deadline = time.monotonic() + seconds
    count = os_threads()
    while time.monotonic() < deadline:
        time.sleep(0.02)
        now = os_threads()
        if now >= count:
            return now
        count = now
    return count
