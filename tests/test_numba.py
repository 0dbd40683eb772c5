"""ddzfast.numba: the core's C functions called from Numba-jitted code give
the same answers as the Python API in every rule set, and reject the arrays
and values the C functions must never see. Before the hardening fixes those
calls overflowed the heap, aborted the process, wrote past a view or into an
immutable bytes object, or read garbage: each such case runs in a subprocess
(the run_python fixture), so a crash fails the test instead of killing
pytest, and the child asserts the exact error and that no memory was
touched."""
import gc
import os
import random
import textwrap

import numpy as np
import pytest

numba = pytest.importorskip("numba")

import ddzfast  # noqa: E402
from ddzfast import MOVE_DTYPE, Hand, legal_moves  # noqa: E402
from ddzfast import numba as dn  # noqa: E402
from helpers import DECKS, L7, LAIZI_BIG, RULE_SETS  # noqa: E402

ROOT = os.path.join(os.path.dirname(__file__), os.pardir)


@numba.njit
def _moves(rules, hand, last, out):
    return dn.legal_moves_into(rules, hand, last, out)


@numba.njit
def _classify(rules, cards, out):
    return dn.classify_into(rules, cards, out)


@numba.njit
def _beats(rules, move, last):
    return dn.beats(rules, move, last)


@numba.njit
def _play(hand, cards):
    return dn.play(hand, cards)


def _random_hand(rng, rules):
    size = rng.choice([1, 5, 12, 17, 20, 21])
    return ddzfast.Hand("".join(rng.sample(DECKS[rules], size)))


@pytest.mark.parametrize("rules", RULE_SETS)
def test_numba_equals_python_api(rules):
    rng = random.Random(f"numba-{rules}")
    handle = dn.rules_handle(rules)
    # a laizi hand of 20 cards can have over 10,000 moves
    out = np.empty(1 << 16 if ddzfast.get_rules(rules).laizi else 4096, MOVE_DTYPE)
    readings = np.empty(285, MOVE_DTYPE)
    for _ in range(1500):
        hand = _random_hand(rng, rules)
        expected = ddzfast.legal_moves(hand, None, rules).array
        n = _moves(handle, int(hand), dn.no_last(), out)
        assert np.array_equal(out[:n], expected), str(hand)
        other = ddzfast.legal_moves(_random_hand(rng, rules), None, rules).array
        other = other[other["kind"] != 0]
        if len(other) == 0:
            continue
        j = rng.randrange(len(other))
        last = other[j:j + 1]
        expected = ddzfast.legal_moves(hand, last[0], rules).array
        n = _moves(handle, int(hand), last, out)
        assert np.array_equal(out[:n], expected), f"{hand} after {last[0]}"
        for k in range(min(n, 3)):
            assert _beats(handle, out[k:k + 1], last) == ddzfast.beats(out[k], last[0], rules)
            cards = int(out[k]["cards"])
            m = _classify(handle, cards, readings)
            assert np.array_equal(readings[:m], ddzfast.classify(cards, rules).array)
            assert _play(int(hand), cards) == int(ddzfast.play(hand, out[k], rules))


def test_numba_errors():
    handle = dn.rules_handle("classic")
    out = np.empty(4, MOVE_DTYPE)
    with pytest.raises(ValueError, match="deck"):
        _moves(handle, int(ddzfast.Hand("3W", rules="super")), dn.no_last(), out)
    # (the counts needed, as the Python forms say them)
    with pytest.raises(ValueError, match="out holds 4 moves but this position has 10 legal"):
        _moves(handle, int(ddzfast.Hand("3333XD")), dn.no_last(), out)
    with pytest.raises(ValueError, match="out holds 2 moves but these cards have 3 readings"):
        _classify(handle, int(ddzfast.Hand("333444555666")), out[:2])
    bad = np.zeros(1, MOVE_DTYPE)
    bad["kind"], bad["length"], bad["cards"] = 2, 1, int(ddzfast.Hand("34"))
    with pytest.raises(ValueError, match="not a legal move"):
        _moves(handle, int(ddzfast.Hand("44")), bad, np.empty(8, MOVE_DTYPE))
    pass_row = ddzfast.legal_moves("44", ddzfast.Move.parse("PAIR/3/1/33")).array[:1]
    with pytest.raises(ValueError, match="non-pass"):
        _moves(handle, int(ddzfast.Hand("44")), pass_row, np.empty(8, MOVE_DTYPE))
    with pytest.raises(ValueError, match="not all in the hand"):
        _play(int(ddzfast.Hand("33")), int(ddzfast.Hand("4")))
    # hands of no deck were played from: five 3s, two X, every nibble full
    # (ddzfast.play refuses each)
    for hand, cards in ((0x5, 1), (2 << 52, 1 << 52), ((1 << 63) - 1, 1)):
        with pytest.raises(ValueError, match="not a hand of any rule set's deck"):
            _play(hand, cards)
        with pytest.raises(ValueError):
            ddzfast.play(hand, cards)
    assert _play(int(ddzfast.Hand("33W", rules="super")), 1 << 60) == 2


def test_last_sharing_memory_with_out_is_refused():
    """legal_moves_into(rules, hand, out[0:1], out) (the moves[i:i + 1] form
    the docs give for a move, on the buffer just filled) overwrote the move
    to beat while generating: 2 moves where a separate last gives 14. Every
    function taking last and out now refuses an overlap (ValueError, as
    legal_moves_batch refuses an out overlapping its lasts) before writing;
    the action indices and mask also overwrote the caller's last."""
    rules, actions = dn.rules_handle("classic"), dn.actions_handle("classic")
    hand = int(Hand("3344556677889TTJJQKA2XD"))
    last = ddzfast.Move.parse("SINGLE/5/1/5").array.copy()
    out = np.zeros(200, MOVE_DTYPE)
    n = _moves(rules, hand, last, out)
    assert n == len(legal_moves(hand, ddzfast.Move.parse("SINGLE/5/1/5"))) == 14
    assert dn.legal_moves_into(rules, hand, last, out) == n
    shared = np.zeros(200, MOVE_DTYPE)
    shared[3] = last[0]
    snapshot = shared.copy()
    for call in (_moves, dn.legal_moves_into):
        for view in (shared, shared[3:], shared[:4]):
            with pytest.raises(ValueError, match="last shares memory with out"):
                call(rules, hand, shared[3:4], view)
    # beside the out, not in it: fine
    assert _moves(rules, hand, shared[3:4], shared[4:]) == n
    assert np.array_equal(shared[:4], snapshot[:4])
    width = 64 * 4 // MOVE_DTYPE.itemsize + 2
    buf = np.zeros(width, MOVE_DTYPE)
    buf[0] = last[0]
    with pytest.raises(ValueError, match="last shares memory with out"):
        dn.legal_action_indices_into(rules, actions, hand, buf[:1], buf.view(np.int32))
    mask = np.zeros(ddzfast.action_count("classic") + MOVE_DTYPE.itemsize, np.uint8)
    in_mask = mask[:MOVE_DTYPE.itemsize].view(MOVE_DTYPE)
    in_mask[0] = last[0]
    with pytest.raises(ValueError, match="last shares memory with out"):
        dn.legal_action_mask_into(rules, actions, hand, in_mask,
                                  mask[:ddzfast.action_count("classic")])
    assert in_mask[0] == last[0] and not buf.view(np.int32)[MOVE_DTYPE.itemsize // 4:].any()
    # leading (an empty last) never overlaps
    assert _moves(rules, hand, shared[3:3], shared) == len(legal_moves(hand))


MONTE_CARLO = os.path.join(ROOT, "examples", "numba_monte_carlo.py")


@pytest.mark.parametrize("rules", ["super", "laizi:7", "tiandi:7J"])
def test_monte_carlo_example_runs(run_python, rules):
    """(laizi and tiandi, offered by its --help, always failed: a rule set
    without its wild ranks, then moves past MOVE_BUFFER: the examples
    review of 2026-12-06)"""
    result = run_python(MONTE_CARLO, "--rules", rules, "--deals", "300", timeout=300)
    assert result.returncode == 0, result.stderr
    assert f"{rules}: 300 random deals, landlord won" in result.stdout


@pytest.mark.parametrize("args, message", [
    (["--rules", "laizi"], "--rules: the laizi rule set 'laizi' has no wild rank"),
    (["--deals", "0"], "--deals must be at least 1"),
    (["--seed", "-1"], "--seed must be in 0..2**32-1"),
    (["--seed", str(2 ** 32 + 7)], "--seed must be in 0..2**32-1"),
])
def test_monte_carlo_example_refuses_bad_arguments(run_python, args, message):
    """Regression (the examples review of 2026-12-06): --deals 0 ended in
    ZeroDivisionError, a negative count printed nonsense, seeds were cut
    to Numba's 32 bits (7 and 2**32 + 7 one run) and --rules laizi was a
    traceback. Each is an argument error naming the option."""
    result = run_python(MONTE_CARLO, *args, timeout=120)
    assert result.returncode == 2 and message in result.stderr
    assert "Traceback" not in result.stderr


def test_monte_carlo_example_without_numba_says_how_to_install(run_python):
    """Regression (the extras review of 2026-12-06): the example imported
    numba first, so without it the user saw a bare ModuleNotFoundError.
    ddzfast.numba comes first and says what to install."""
    code = textwrap.dedent(f"""
        import runpy, sys
        sys.modules["numba"] = None          # as if numba were not installed
        sys.argv = ["numba_monte_carlo.py", "--deals", "10"]
        runpy.run_path({MONTE_CARLO!r}, run_name="__main__")
    """)
    result = run_python(code=code, timeout=120)
    assert result.returncode != 0 and "pip install 'ddzfast[numba]'" in result.stderr


# ---- bad arguments, handles, no numba: the regressions of the hardening review ---

# Code every child runs first: jitted callers of each function, and
# `expect(exc_type, text, fn, *args)`, which exits non-zero unless the call
# raises `exc_type` with `text` in its message.
PRELUDE = textwrap.dedent("""
    import sys
    import numba
    import numpy as np
    import ddzfast
    from numba.core.errors import TypingError
    from ddzfast import MOVE_DTYPE
    from ddzfast import numba as dn

    @numba.njit
    def moves(rules, hand, last, out):
        return dn.legal_moves_into(rules, hand, last, out)

    @numba.njit
    def classify(rules, cards, out):
        return dn.classify_into(rules, cards, out)

    @numba.njit
    def beats(rules, move, last):
        return dn.beats(rules, move, last)

    @numba.njit
    def play(hand, cards):
        return dn.play(hand, cards)

    @numba.njit
    def valid(rules, hand):
        return dn.hand_valid(rules, hand)

    def expect(exc_type, text, fn, *args):
        try:
            result = fn(*args)
        except exc_type as exc:
            if text not in str(exc):
                sys.exit(f"wrong message: {exc}")
            return
        sys.exit(f"no {exc_type.__name__}; returned {result!r}")

    H = dn.rules_handle("classic")
    SMALL = int(ddzfast.Hand("345"))
    BIG = int(ddzfast.Hand("3333444455556666XD"))
    PAIR = ddzfast.legal_moves("44", None).array[1:2]     # PAIR 44, one row
    SINGLE = ddzfast.legal_moves("44", None).array[:1]    # SINGLE 4
""")


def run_child(run_python, code: str) -> None:
    result = run_python(code=PRELUDE + textwrap.dedent(code), timeout=300)
    assert result.returncode == 0, (
        f"child exited with {result.returncode}\nstdout: {result.stdout[-2000:]}\n"
        f"stderr: {result.stderr[-3000:]}")


CASES = {
    # a uint8 out: 256 bytes were written into a 16-byte buffer
    "out_uint8": """
        out = np.zeros(16, np.uint8)
        expect(TypingError, "out must have dtype ddzfast.MOVE_DTYPE", moves, H, SMALL,
               dn.no_last(), out)
        assert not out.any()
    """,
    "classify_out_uint8": """
        out = np.zeros(16, np.uint8)
        expect(TypingError, "out must have dtype ddzfast.MOVE_DTYPE", classify, H,
               int(ddzfast.Hand("33")), out)
        assert not out.any()
    """,
    # a 2-d out of shape (16, 0): shape[0] was taken as room, "double free"
    "out_2d": """
        expect(TypingError, "out must be one-dimensional", moves, H, SMALL,
               dn.no_last(), np.empty((16, 0), MOVE_DTYPE))
        expect(TypingError, "out must be one-dimensional", classify, H, SMALL,
               np.empty((16, 0), MOVE_DTYPE))
    """,
    # a reversed view: the C function wrote forward from its first row
    "out_reversed": """
        base = np.zeros(64, MOVE_DTYPE)
        expect(ValueError, "out must be C-contiguous", moves, H, SMALL, dn.no_last(),
               base[::-1])
        expect(ValueError, "out must be C-contiguous", classify, H, SMALL, base[::-1])
        assert not base.view(np.uint8).any()
    """,
    # every 4th row: the moves landed in rows the view does not show
    "out_strided": """
        base = np.zeros(64, MOVE_DTYPE)
        expect(ValueError, "out must be C-contiguous", moves, H, SMALL, dn.no_last(),
               base[::4])
        assert not base.view(np.uint8).any()
    """,
    # np.frombuffer(bytes) is read-only: the bytes object was mutated
    "out_read_only": """
        data = bytes(16 * 8)
        out = np.frombuffer(data, MOVE_DTYPE)
        expect(TypingError, "out must be writable", moves, H, SMALL, dn.no_last(), out)
        expect(TypingError, "out must be writable", classify, H, SMALL, out)
        assert data == bytes(16 * 8)
    """,
    "out_unaligned": """
        buf = bytearray(16 * 8 + 1)
        out = np.frombuffer(buf, MOVE_DTYPE, count=8, offset=1)
        expect(ValueError, "out must be an aligned array", moves, H, SMALL,
               dn.no_last(), out)
        expect(ValueError, "out must be an aligned array", classify, H, SMALL, out)
        assert not any(buf)
    """,
    "out_not_an_array": """
        expect(TypingError, "out must be a MOVE_DTYPE array", moves, H, SMALL,
               dn.no_last(), 7)
    """,
    # the same field names, packed (12-byte rows): read as garbage
    "last_packed_layout": """
        packed = np.dtype([("cards", "<u8"), ("kind", "u1"), ("rank", "u1"),
                           ("length", "u1"), ("wild", "u1")])
        last = np.zeros(1, packed)
        last["kind"], last["length"], last["cards"] = 1, 1, 1
        expect(TypingError, "last must have dtype ddzfast.MOVE_DTYPE", moves, H, BIG,
               last, np.empty(64, MOVE_DTYPE))
    """,
    # the same fields in another order
    "last_reordered_fields": """
        other = np.dtype([("kind", "u1"), ("rank", "u1"), ("length", "u1"),
                          ("wild", "u1"), ("cards", "<u8")], align=True)
        last = np.zeros(1, other)
        last["kind"], last["length"], last["cards"] = 1, 1, 1
        expect(TypingError, "last must have dtype ddzfast.MOVE_DTYPE", moves, H, BIG,
               last, np.empty(64, MOVE_DTYPE))
        expect(TypingError, "move must have dtype ddzfast.MOVE_DTYPE", beats, H, last,
               SINGLE)
        expect(TypingError, "last must have dtype ddzfast.MOVE_DTYPE", beats, H, PAIR,
               last)
    """,
    "last_rows": """
        two = ddzfast.legal_moves("44", None).array[:2]
        expect(ValueError, "last must have at most 1 row", moves, H, BIG, two,
               np.empty(64, MOVE_DTYPE))
        expect(TypingError, "last must be one-dimensional", moves, H, BIG,
               two.reshape(1, 2), np.empty(64, MOVE_DTYPE))
        # a strided one-row or empty last is fine: one row is always contiguous
        assert moves(H, SMALL, two[::2][:1], np.empty(64, MOVE_DTYPE)) >= 1
    """,
    "beats_rows": """
        two = ddzfast.legal_moves("44", None).array[:2]
        expect(ValueError, "move must have exactly 1 row", beats, H, two, SINGLE)
        expect(ValueError, "move must have exactly 1 row", beats, H, two[:0], SINGLE)
        expect(ValueError, "last must have exactly 1 row", beats, H, PAIR, two)
        expect(TypingError, "move must be one-dimensional", beats, H,
               PAIR.reshape(1, 1), SINGLE)
        # a read-only move and last are fine: beats only reads them
        ro = PAIR.copy()
        ro.flags.writeable = False
        assert beats(H, ro, np.frombuffer(SINGLE.tobytes(), MOVE_DTYPE)) in (True, False)
    """,
    # a float hand was truncated silently (3.7 -> 3)
    "float_hand": """
        out = np.empty(64, MOVE_DTYPE)
        expect(TypingError, "hand must be an integer", moves, H, 3.7, dn.no_last(), out)
        expect(TypingError, "cards must be an integer", classify, H, 1.0, out)
        expect(TypingError, "hand must be an integer", play, 1.5, 1)
        expect(TypingError, "hand must be an integer", valid, H, True)
        expect(TypingError, "rules must be an integer", valid, float(H), 1)
    """,
    "null_rules_handle": """
        expect(ValueError, "null handle", valid, 0, 1)
        expect(ValueError, "null handle", moves, 0, SMALL, dn.no_last(),
               np.empty(64, MOVE_DTYPE))
    """,
    # called from Python, an integer rules_handle did not give out reached the
    # C functions as a pointer: min_plays crashed, legal_moves_into listed
    # moves read from whatever memory it pointed at
    "unknown_handle_from_python": """
        out = np.zeros(64, MOVE_DTYPE)
        for bad in (123456, H + 8, 0, dn.actions_handle("classic")):
            text = "not a handle from rules_handle()"
            expect(ValueError, text, dn.hand_valid, bad, 1)
            expect(ValueError, text, dn.legal_moves_into, bad, SMALL, dn.no_last(), out)
            expect(ValueError, text, dn.classify_into, bad, SMALL, out)
            expect(ValueError, text, dn.beats, bad, PAIR, SINGLE)
            expect(ValueError, text, dn.min_plays, bad, SMALL)
        assert not out.view(np.uint8).any()
        expect(TypeError, "a rules handle is an int", dn.min_plays, float(H), SMALL)
        assert dn.legal_moves_into(np.int64(H), SMALL, dn.no_last(), out) == 3
        assert dn.min_plays(np.uint64(H), SMALL) == 3
    """,
    # called from Python after an int64 specialisation, a hand of 2**63 or
    # more was numba's OverflowError
    "wide_hand_from_python": """
        out = np.zeros(64, MOVE_DTYPE)
        assert dn.legal_moves_into(H, SMALL, dn.no_last(), out) == 3
        assert dn.hand_valid(H, 1) and dn.play(SMALL, 1) == SMALL - 1
        assert dn.hand_valid(H, 2 ** 63) is False
        expect(ValueError, "hand is not a hand", dn.legal_moves_into, H, 2 ** 63,
               dn.no_last(), out)
        expect(ValueError, "hand is not a hand", dn.min_plays, H, 2 ** 64 - 1)
        expect(ValueError, "hand is not a hand", dn.play, 2 ** 63, 1)
        expect(ValueError, "does not fit 64 bits", dn.classify_into, H, 2 ** 64, out)
    """,
    # inside jitted code a strided slice is layout 'A': checked when called
    "strided_inside_jit": """
        @numba.njit
        def every_other(rules, hand, out):
            return dn.legal_moves_into(rules, hand, out[:0], out[::2])

        @numba.njit
        def step_one(rules, hand, out):
            return dn.legal_moves_into(rules, hand, out[:0], out[::1])

        base = np.zeros(64, MOVE_DTYPE)
        expect(ValueError, "out must be C-contiguous", every_other, H, SMALL, base)
        assert not base.view(np.uint8).any()
        assert step_one(H, SMALL, base) == 3      # contiguous at run time: accepted
    """,
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_arguments_are_clean_errors(run_python, case):
    """Bad arrays and values reached the C functions (heap overflows, aborts, writes
    past a view or into bytes, garbage reads): each CASES entry is a clean error in
    a child."""
    run_child(run_python, CASES[case])


def test_import_without_numba_says_how_to_install(run_python):
    """Importing ddzfast.numba without numba was a bare ImportError: it names `pip
    install 'ddzfast[numba]'`, and the rest of the package still imports."""
    code = textwrap.dedent("""
        import sys
        sys.modules["numba"] = None          # as if numba were not installed
        import ddzfast                       # the rest of the package works
        try:
            from ddzfast import numba
        except ImportError as exc:
            assert "pip install 'ddzfast[numba]'" in str(exc), str(exc)
        else:
            sys.exit("imported without numba")
    """)
    result = run_python(code=code, timeout=120)
    assert result.returncode == 0, result.stderr


def test_import_with_a_numba_that_fails_its_own_import_says_why(run_python, tmp_path):
    """A numba that is installed but refuses the installed numpy (it raises
    ImportError naming the versions) was reported as not installed, sending
    the user to install the extra that had installed it: the error says that
    its import failed, and why."""
    fake = tmp_path / "numba"
    fake.mkdir()
    (fake / "__init__.py").write_text(
        'raise ImportError("Numba needs NumPy 2.3 or less. Got NumPy 2.5.")\n')
    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(tmp_path)!r})
        try:
            from ddzfast import numba
        except ImportError as exc:
            assert "not installed" not in str(exc), str(exc)
            assert ("needs numba, which is installed but failed to import: "
                    "Numba needs NumPy 2.3 or less") in str(exc), str(exc)
        else:
            sys.exit("imported a numba that fails its import")
    """)
    result = run_python(code=code, timeout=120)
    assert result.returncode == 0, result.stderr


def test_rules_handle_outlives_its_rules():
    """A handle stays valid after the caller drops its Rules: rules_handle
    keeps the rule set alive (before, the handle dangled)."""
    custom = ddzfast.get_rules("classic").with_options(service_fee=0.25)
    handle = dn.rules_handle(custom)
    del custom
    gc.collect()
    assert dn.check_handle(handle) == handle
    out = np.empty(64, MOVE_DTYPE)
    assert dn.legal_moves_into(handle, int(ddzfast.Hand("345")), dn.no_last(), out) == 3


def test_rules_handle_pins_one_rules_per_description():
    """rules_handle pinned a new Rules for each equal description (an unbounded leak):
    equal descriptions share one handle."""
    base = ddzfast.get_rules("super")
    handles = {dn.rules_handle(base.with_options(deal_cap=77)) for _ in range(20)}
    assert len(handles) == 1
    assert dn.rules_handle("super") == dn.rules_handle(ddzfast.Rules("super"))
    assert dn.rules_handle("super") != dn.rules_handle("classic")


def test_check_handle():
    """Any integer passed as a rules handle reached the C code as a pointer:
    check_handle refuses what rules_handle did not make."""
    assert dn.check_handle(dn.rules_handle("biegang")) == dn.rules_handle("biegang")
    with pytest.raises(ValueError, match="not a handle"):
        dn.check_handle(12345)
    with pytest.raises(TypeError):
        dn.check_handle(True)
    with pytest.raises(TypeError):
        dn.check_handle(float(dn.rules_handle()))


def test_actions_handle_of_another_rule_set_is_refused():
    """Regression (audit of Numba): legal_action_indices_into and
    legal_action_mask_into took an actions handle of another rule set and
    returned that table's indices (classic's rules with laizi:7's actions
    gave laizi:7's). Called from Python they check the pair; a rule set
    that differs only in platform options shares the table; jitted code,
    which sees two integers, calls the same functions unchecked (a pair is
    checked from Python with check_actions_handle)."""
    hand = int(Hand("34567"))
    classic, laizi = dn.rules_handle("classic"), dn.actions_handle("laizi:7")
    out = np.zeros(64, np.int32)
    mask = np.zeros(ddzfast.action_count("laizi:7"), np.bool_)
    with pytest.raises(ValueError, match="action lookup of Rules\\('laizi:7'"):
        dn.legal_action_indices_into(classic, laizi, hand, dn.no_last(), out)
    with pytest.raises(ValueError, match="action lookup of Rules\\('laizi:7'"):
        dn.legal_action_mask_into(classic, laizi, hand, dn.no_last(), mask)
    with pytest.raises(ValueError, match="action lookup"):
        dn.check_actions_handle(laizi, classic)
    assert not out.any() and not mask.any()
    happy = dn.rules_handle("classic+happy")
    actions = dn.actions_handle("classic")
    assert dn.check_actions_handle(actions, happy) == actions
    n = dn.legal_action_indices_into(happy, actions, hand, dn.no_last(), out)
    assert list(out[:n]) == list(ddzfast.legal_action_indices(hand, None, "classic"))

    @numba.njit
    def jitted(rules, actions, hand, out):
        return dn.legal_action_indices_into(rules, actions, hand, np.empty(0, MOVE_DTYPE),
                                            out)
    assert jitted(classic, actions, hand, out) == n


def test_actions_handle_takes_a_rules_handle():
    """Regression (review of Numba, 2026-12-07): batches.md writes
    ``actions = dn.actions_handle(rules)`` with ``rules =
    dn.rules_handle("classic")``, but an integer was a TypeError ("rules must
    be a rule-set name or a Rules, not int"). A handle from rules_handle is
    taken, and gives the lookup its rule set's name gives; an integer no
    rules_handle gave out is a ValueError."""
    for name in ("classic", "laizi:7", "tiandi:7J"):
        rules = dn.rules_handle(name)
        actions = dn.actions_handle(rules)
        assert actions == dn.actions_handle(name)
        assert dn.check_actions_handle(actions, rules) == actions
    with pytest.raises(ValueError, match="not a handle from rules_handle"):
        dn.actions_handle(12345)
    with pytest.raises(TypeError):
        dn.actions_handle(True)


def test_callers_are_not_cached_on_disk_as_batches_md_says(run_python, tmp_path):
    """batches.md says a jitted function calling ddzfast.numba cannot be
    cached on disk (cache=True warns and compiles in each process): held
    here, so that the page changes if numba comes to cache it. (From a
    review of Numba, 2026-12-07: the warning was said nowhere.)"""
    code = ("import warnings, numba, numpy as np\n"
            "from ddzfast import numba as dn, MOVE_DTYPE\n"
            "@numba.njit(cache=True)\n"
            "def f(rules, hand, out):\n"
            "    return dn.legal_moves_into(rules, hand, np.empty(0, MOVE_DTYPE), out)\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    warnings.simplefilter('always')\n"
            "    print(f(dn.rules_handle('classic'), 0x11, np.empty(64, MOVE_DTYPE)))\n"
            "print(any('Cannot cache' in str(x.message) and 'dynamic globals' in str(x.message)"
            " for x in w))\n")
    script = tmp_path / "cached.py"      # (numba caches functions of files only)
    script.write_text(code)
    r = run_python(str(script), cwd=str(tmp_path), env={"NUMBA_CACHE_DIR": str(tmp_path)})
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["2", "True"]


def test_module_docstring_documents_raw_pointers():
    """The module did not document that its handles are raw pointers, nor how to
    install numba."""
    doc = dn.__doc__
    assert "raw pointer" in doc and "pip install 'ddzfast[numba]'" in doc


def test_disable_jit_checks_too(run_python):
    """With NUMBA_DISABLE_JIT the guards run as Python and check the same."""
    code = textwrap.dedent("""
        import numpy as np, ddzfast
        from ddzfast import MOVE_DTYPE, numba as dn
        h = dn.rules_handle()
        out = np.zeros(64, MOVE_DTYPE)
        for bad, exc in [((h, 1.5, dn.no_last(), out), TypeError),
                         ((h, 1, dn.no_last(), out[::2]), ValueError),
                         ((h, 1, dn.no_last(), np.zeros(16, np.uint8)), TypeError),
                         ((h, 1, dn.no_last(), np.frombuffer(bytes(32), MOVE_DTYPE)),
                          TypeError)]:
            try:
                dn.legal_moves_into(*bad)
            except exc:
                continue
            raise SystemExit(f"accepted {bad}")
        assert dn.legal_moves_into(h, int(ddzfast.Hand("345")), dn.no_last(), out) == 3
    """)
    result = run_python(code=code, timeout=120, env={"NUMBA_DISABLE_JIT": "1"})
    assert result.returncode == 0, result.stderr


def test_disable_jit_follows_a_move(run_python):
    """With NUMBA_DISABLE_JIT every call given a non-empty last (or move)
    raised AttributeError ('numpy.void' object has no attribute 'kind'):
    the guards read the record's fields as attributes, which only numba's
    records have. The overlap check runs there too."""
    code = textwrap.dedent("""
        import numpy as np, ddzfast
        from ddzfast import MOVE_DTYPE, Move, numba as dn
        h = dn.rules_handle()
        last = Move.parse("SINGLE/5/1/5").array.copy()
        out = np.zeros(64, MOVE_DTYPE)
        assert dn.legal_moves_into(h, int(ddzfast.Hand("3456")), last, out) == 2
        assert dn.beats(h, Move.parse("SINGLE/6/1/6").array.copy(), last)
        out[3] = last[0]
        try:
            dn.legal_moves_into(h, int(ddzfast.Hand("3456")), out[3:4], out)
        except ValueError as e:
            assert "shares memory" in str(e), e
        else:
            raise SystemExit("an overlapping last was accepted")
    """)
    result = run_python(code=code, timeout=120, env={"NUMBA_DISABLE_JIT": "1"})
    assert result.returncode == 0, result.stderr


# ---- laizi --------------------------------------------------------------------

def test_numba_laizi():
    dn = pytest.importorskip("ddzfast.numba")
    import numba

    @numba.njit
    def gen(rules, hand, last, out):
        return dn.legal_moves_into(rules, hand, last, out)

    out = np.empty(12000, ddzfast.MOVE_DTYPE)
    n = gen(dn.rules_handle(L7), np.uint64(int(Hand(LAIZI_BIG))), dn.no_last(), out)
    assert np.array_equal(out[:n], legal_moves(LAIZI_BIG, None, L7).array)
    with pytest.raises(ValueError, match="wild rank"):
        dn.rules_handle("laizi")


def test_the_action_functions_read_a_python_int_past_int64():
    """Regression (a user's review): from Python, legal_action_indices_into
    and legal_action_mask_into gave numba's OverflowError for a hand of
    2**63 or more once an int64 specialisation existed; they refuse it as
    every other hand argument is refused (it is no hand of the deck)."""
    rules, actions = dn.rules_handle("classic"), dn.actions_handle("classic")
    out = np.zeros(ddzfast.action_count("classic"), np.int32)
    mask = np.zeros(ddzfast.action_count("classic"), np.bool_)
    assert dn.legal_action_indices_into(rules, actions, 1, dn.no_last(), out) == 1
    for big in (2 ** 63, 2 ** 64 - 1):
        with pytest.raises(ValueError, match="hand"):
            dn.legal_action_indices_into(rules, actions, big, dn.no_last(), out)
        with pytest.raises(ValueError, match="hand"):
            dn.legal_action_mask_into(rules, actions, big, dn.no_last(), mask)
    with pytest.raises(ValueError, match="does not fit 64 bits"):
        dn.legal_action_indices_into(rules, actions, 2 ** 64, dn.no_last(), out)
