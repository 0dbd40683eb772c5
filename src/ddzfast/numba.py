"""The core from Numba: functions callable inside ``@numba.njit`` code.

They call the very C functions of ``ddzfast._core`` (``ddz_legal_moves``,
``ddz_classify``, ``ddz_beats``, ...), reached through
``numba.extending.get_cython_function_address``, with no Python in the loop.
Importing this module needs numba: ``pip install 'ddzfast[numba]'``.

Conventions inside jitted code:

* ``rules`` is an integer handle from ``rules_handle("classic")`` (or
  ``rules_handle(some_rules_object)``). **A handle is a raw pointer** to the
  compiled C rule set: the C functions read through it without any check, so
  inside jitted code an integer that did not come from ``rules_handle``
  crashes the process. (Called from Python, every function checks its
  handles first: a ValueError.)
  ``rules_handle`` keeps the ``Rules`` it hands out alive for the rest of the
  process (one per distinct description, so memory stays bounded), so its
  handles never dangle; ``check_handle(h)`` tells, from Python, whether an
  integer is such a handle. (``Rules.address`` is the same pointer without
  that guarantee: valid only while its Rules object lives.)
* A hand or a set of cards is a packed integer (see ``ddzfast.Hand``); any
  numba integer type, never a float. Called from Python, the functions take
  any int that fits 64 bits (a negative one wraps, as ``np.uint64`` does).
* Moves live in ``MOVE_DTYPE`` arrays; a single move is passed as a one-row
  array (``moves[i:i + 1]``), and "no last move" (leading) as an empty one,
  ``no_last()`` or ``moves[:0]``. A ``last`` must not share memory with the
  ``out`` of the same call (ValueError, as ``legal_moves_batch`` refuses an
  ``out`` overlapping its ``lasts``: writing ``out`` would overwrite the move
  to beat): to follow a move of the ``out`` just filled, copy it into an
  array of its own first (``last[0] = out[i]``).

Every array argument must be a one-dimensional, aligned ``MOVE_DTYPE`` array
(the exact dtype: the same field names in another layout, packed or
reordered, are another dtype), and ``out`` must be writable. These are checked
when the caller is compiled: anything else is a ``numba.core.errors.
TypingError`` naming the argument. Arrays that numba cannot prove contiguous
(layout ``'A'``, e.g. ``out[::2]`` or a strided view passed from Python) are
checked when called: a ValueError unless their rows are adjacent. All checks
precede every C call, so no call with a wrong array reaches memory it must
not touch.

Signatures (all ``nopython``, no GIL needed):

* ``legal_moves_into(rules, hand, last, out) -> int64``: the legal moves of
  ``hand`` after ``last`` (at most one row; empty: leading) into ``out``;
  raises ValueError when the hand is not of the rule set's deck, ``last`` is
  not a legal non-pass move, shares memory with ``out``, or ``out`` is too
  small.
* ``classify_into(rules, cards, out) -> int64``: every reading of exactly
  ``cards`` as one move (at most 315, 15 per kind; ``out`` of 315 rows always
  suffices).
* ``beats(rules, move, last) -> bool``: the one-row ``move`` beats the one-row
  ``last``.
* ``play(hand, cards) -> uint64``: the hand left; ValueError when ``cards`` is
  not contained in ``hand``.
* ``hand_valid(rules, hand) -> bool``.
* ``min_plays(rules, hand) -> int``: ``ddzfast.min_plays(hand, rules).count``
  (-1 where the hand cannot be emptied: a lone W), from ``ddzfast._split``'s
  C search (``ddz_min_plays_once``, a context of its own per call); raises
  ValueError when the hand is not of the rule set's deck or is beyond the
  search's work limit.
* ``legal_action_indices_into(rules, actions, hand, last, out) -> int64``:
  the action indices (``ddzfast.action_moves`` order) of the legal moves of
  ``hand`` after ``last`` into ``out`` (int32; ``action_count`` entries always
  suffice); ValueError as ``legal_moves_into``, and when a legal move is no
  action (a hand with more cards than a deal gives).
* ``legal_action_mask_into(rules, actions, hand, last, out) -> int64``: the
  legal-action mask into ``out`` (bool, uint8 or int8, exactly
  ``action_count`` entries), returning the number of legal moves.

``actions`` is a second handle, from ``actions_handle(rules)``: the core's
lookup of the rule set's action table, pinned for the process like a rules
handle (``check_actions_handle`` tells a good one). It must be the lookup of
``rules``' moves (a rule set that differs only in scoring or platform
options shares it): another rule set's table may hold the same moves under
other indices (classic's moves are among ``laizi:7``'s), so a wrong pair
would give that table's indices. Called from Python, the two functions check
the pair first (ValueError). Inside jitted code they cannot: both handles
are plain integers there and the C table records no rule set, so a wrong
pair goes unnoticed unless a move is in neither table (ValueError); check a
pair once, from Python, with ``check_actions_handle(actions, rules)`` before
handing it to jitted code. Their ``out`` arrays are checked as above: dtype
and writability when compiled, contiguity (layout 'A'), alignment and size
when called.
"""
from __future__ import annotations

import ctypes

from ddzfast.constants import broken_import

try:
    import numba
    from numba import types
    from numba.core.errors import NumbaTypeError
    from numba.extending import get_cython_function_address, overload
except ImportError as exc:  # pragma: no cover - exercised in a subprocess
    # (numba refuses a numpy newer than it supports with an ImportError)
    _broken = broken_import(exc, "numba")
    raise ImportError(
        f"ddzfast.numba needs numba, {_broken}" if _broken else
        "ddzfast.numba needs numba, which is not installed; "
        "install it with: pip install 'ddzfast[numba]'") from exc

import numpy as np

from ddzfast._core import (MOVE_DTYPE, WILD_RANK_OPTION, WILD_RANKS_OPTION, Rules,
                           _action_lookup, _wild_ranks_hint, get_rules)
from ddzfast._locks import ForkSafeLock
from ddzfast.features import _moves_key, description_key
from ddzfast.rulesets import RULE_SETS

__all__ = ["rules_handle", "check_handle", "no_last", "legal_moves_into",
           "classify_into", "beats", "play", "hand_valid", "MOVE_DTYPE",
           "actions_handle", "check_actions_handle", "legal_action_indices_into",
           "legal_action_mask_into", "min_plays"]

# Pointers are passed as size_t: the same registers as a pointer on every
# 64-bit ABI numba supports, and numba hands array addresses over as integers.
_PTR = ctypes.c_size_t


def _bind(name, restype, *argtypes, module="ddzfast._core"):
    address = get_cython_function_address(module, name)
    return ctypes.CFUNCTYPE(restype, *argtypes)(address)


_c_legal_moves = _bind("ddz_legal_moves", ctypes.c_int64, _PTR, ctypes.c_uint64,
                       _PTR, _PTR, ctypes.c_int64)
_c_classify = _bind("ddz_classify", ctypes.c_int64, _PTR, ctypes.c_uint64, _PTR,
                    ctypes.c_int64)
_c_check = _bind("ddz_check", ctypes.c_int, _PTR, ctypes.c_int, ctypes.c_int,
                 ctypes.c_int, ctypes.c_uint64)
_c_beats = _bind("ddz_beats", ctypes.c_int, _PTR, _PTR, _PTR)
_c_hand_valid = _bind("ddz_hand_valid", ctypes.c_int, _PTR, ctypes.c_uint64)
_c_contains = _bind("ddz_contains", ctypes.c_int, ctypes.c_uint64, ctypes.c_uint64)
_c_action_count = _bind("ddz_action_count", ctypes.c_int64, _PTR)
_c_action_indices = _bind("ddz_legal_action_indices", ctypes.c_int64, _PTR, _PTR,
                          ctypes.c_uint64, _PTR, _PTR, ctypes.c_int64)
_c_action_mask = _bind("ddz_legal_action_mask", ctypes.c_int64, _PTR, _PTR,
                       ctypes.c_uint64, _PTR, _PTR)
_c_min_plays = _bind("ddz_min_plays_once", ctypes.c_int, _PTR, ctypes.c_uint64,
                     module="ddzfast._split")
# ddz_min_plays status codes (_split.pxd)
_SPLIT_NONE = -1
_SPLIT_NOMEM = -2
_SPLIT_TOO_BIG = -3
# ddz_legal_action_* status codes (_core.pxd)
_ERR_NOMEM = -1
_ERR_NO_ACTION = -4


# ---- rules handles -------------------------------------------------------------

# One Rules per distinct (name, description), kept alive for the process so
# that a handle, once given out, never points at freed memory. Keyed by
# description rather than by object: a loop that builds equal Rules over and
# over pins one of them, not all.
_PINNED_BY_KEY: dict = {}
_PINNED_BY_ADDRESS: dict[int, Rules] = {}
_PIN_LOCK = ForkSafeLock()


def rules_handle(rules="classic") -> int:
    """The integer handle of a rule set (a name or a ``Rules``), for the
    jitted functions. The handle is the address of a compiled rule set that
    stays alive for the rest of the process (a Rules with an equal
    description may be the one pinned, so the handle can differ from
    ``rules.address``)."""
    r = get_rules(rules)
    if not r.ready:
        # the core would generate nothing for it: say why instead
        if r.wild_count == 2:
            raise ValueError(f"the rule set {r.name!r} needs both wild ranks, sky "
                             f"and ground: use "
                             f"{_wild_ranks_hint(r, WILD_RANKS_OPTION, '7J', 'rules_handle({})')}")
        raise ValueError(f"the laizi rule set {r.name!r} has no wild rank: use "
                         f"{_wild_ranks_hint(r, WILD_RANK_OPTION, '7', 'rules_handle({})')} "
                         f"(any rank 3..2)")
    key = (r.name, description_key(r))
    with _PIN_LOCK:
        pinned = _PINNED_BY_KEY.get(key)
        if pinned is None:
            pinned = _PINNED_BY_KEY[key] = r
            _PINNED_BY_ADDRESS[r.address] = r
    return pinned.address


def check_handle(handle) -> int:
    """``handle`` if ``rules_handle`` gave it out (so passing it to the jitted
    functions is safe), else ValueError (TypeError for a non-integer). Use it
    where handles come from elsewhere, e.g. configuration."""
    if isinstance(handle, (bool, np.bool_)) or not isinstance(handle, (int, np.integer)):
        raise TypeError(f"a rules handle is an int, not {type(handle).__name__}")
    with _PIN_LOCK:
        known = int(handle) in _PINNED_BY_ADDRESS
    if not known:
        raise ValueError(f"{int(handle)} is not a handle from rules_handle(); "
                         f"a wrong handle would crash the jitted functions")
    return int(handle)


# The action lookups handed out, kept alive for the process as the rule sets
# are (one per description, so memory stays bounded), and the rule set each
# was made for: jitted code sees only the address, so a lookup's rule set
# can be told from Python alone.
_PINNED_ACTIONS_BY_KEY: dict = {}
_PINNED_ACTIONS_BY_ADDRESS: dict = {}
_ACTIONS_RULES: dict[int, Rules] = {}
# (rules handle, actions handle) pairs found to match, so that a call from
# Python checks its pair with one lookup
_MATCHED_PAIRS: set[tuple[int, int]] = set()


def actions_handle(rules="classic") -> int:
    """The integer handle of a rule set's action lookup (the core's C hash
    of ``action_moves(rules)``), for ``legal_action_indices_into`` and
    ``legal_action_mask_into``. ``rules`` is a rule-set name, a ``Rules``
    or a handle from ``rules_handle``. Built on first use (about a second
    for the wildcard sets); pinned for the rest of the process."""
    if isinstance(rules, (int, np.integer)) and not isinstance(rules, (bool, np.bool_)):
        rules_address = check_handle(rules)
        with _PIN_LOCK:
            r = _PINNED_BY_ADDRESS[rules_address]
    else:
        r = get_rules(rules)
    key = (r.name, description_key(r))
    with _PIN_LOCK:
        pinned = _PINNED_ACTIONS_BY_KEY.get(key)
    if pinned is None:
        table = _action_lookup(r)
        with _PIN_LOCK:
            pinned = _PINNED_ACTIONS_BY_KEY.setdefault(key, table)
            _PINNED_ACTIONS_BY_ADDRESS[pinned.address] = pinned
            _ACTIONS_RULES.setdefault(pinned.address, r)
    return pinned.address


def check_actions_handle(handle, rules=None) -> int:
    """``handle`` if ``actions_handle`` gave it out, else ValueError
    (TypeError for a non-integer). With ``rules`` (a handle from
    ``rules_handle``), also ValueError unless ``handle`` is the action
    lookup of that rule set's moves: the check that jitted code cannot make
    (see the module docstring)."""
    if isinstance(handle, (bool, np.bool_)) or not isinstance(handle, (int, np.integer)):
        raise TypeError(f"an actions handle is an int, not {type(handle).__name__}")
    with _PIN_LOCK:
        made_for = _ACTIONS_RULES.get(int(handle))
    if made_for is None:
        raise ValueError(f"{int(handle)} is not a handle from actions_handle(); "
                         f"a wrong handle would crash the jitted functions")
    if rules is not None:
        rules = check_handle(rules)
        if (rules, int(handle)) not in _MATCHED_PAIRS:
            with _PIN_LOCK:
                r = _PINNED_BY_ADDRESS[rules]
            # the core shares a table between equal structs, features between
            # equal move-generating descriptions: either makes the same moves
            if r.rules_id != made_for.rules_id and _moves_key(r) != _moves_key(made_for):
                raise ValueError(
                    f"actions {int(handle)} is the action lookup of {made_for!r}, not "
                    f"of the rules handle's {r!r}: pass the actions_handle of the "
                    f"same rule set (another rule set's table may hold the same "
                    f"moves under other indices)")
            _MATCHED_PAIRS.add((rules, int(handle)))
    return int(handle)


def no_last() -> np.ndarray:
    """An empty MOVE_DTYPE array: ``last`` when leading."""
    return np.empty(0, MOVE_DTYPE)


# ---- argument guards -----------------------------------------------------------
# Each guard is a plain Python function (used as is when numba's JIT is
# disabled) with a numba overload that inspects the argument's numba type at
# compile time and either rejects it (TypingError) or returns an
# implementation that does the remaining run-time checks.

_RECORD = numba.from_dtype(MOVE_DTYPE)
_ITEMSIZE = MOVE_DTYPE.itemsize
_ALIGNMENT = MOVE_DTYPE.alignment


def _numba_type_problem(ty, name: str, writable: bool):
    """Why the numba type ``ty`` is not acceptable for the array argument
    ``name`` (None when it is)."""
    if not isinstance(ty, types.Array):
        return f"{name} must be a MOVE_DTYPE array, not {ty}"
    if ty.dtype != _RECORD:
        return (f"{name} must have dtype ddzfast.MOVE_DTYPE exactly (a record of "
                f"{_ITEMSIZE} aligned bytes), not {ty.dtype}; a dtype with the same "
                f"fields in another layout is another dtype")
    if ty.ndim != 1:
        return f"{name} must be one-dimensional, not {ty.ndim}-dimensional"
    if not ty.aligned:
        return f"{name} must be an aligned array"
    if writable and not ty.mutable:
        return f"{name} must be writable, not a read-only array"
    return None


def _numpy_problem(arr, name: str, writable: bool):
    """The same checks on a numpy array (JIT disabled)."""
    if not isinstance(arr, np.ndarray):
        return TypeError(f"{name} must be a MOVE_DTYPE array, not {type(arr).__name__}")
    if arr.dtype != MOVE_DTYPE:
        return TypeError(f"{name} must have dtype ddzfast.MOVE_DTYPE exactly, not {arr.dtype}")
    if arr.ndim != 1:
        return TypeError(f"{name} must be one-dimensional, not {arr.ndim}-dimensional")
    if not arr.flags.aligned:
        return ValueError(f"{name} must be an aligned array")
    if writable and not arr.flags.writeable:
        return TypeError(f"{name} must be writable, not a read-only array")
    if not arr.flags.c_contiguous:
        return ValueError(f"{name} must be C-contiguous (its rows adjacent)")
    return None


def _make_array_guard(name: str, writable: bool, min_rows: int, max_rows: int):
    """A guard for the array argument ``name``: its type at compile time, its
    contiguity (layout 'A' only) and row count at run time."""
    contiguity = f"{name} must be C-contiguous (its rows adjacent)"
    alignment = f"{name} must be an aligned array (its data at a multiple of {_ALIGNMENT})"
    if max_rows < 0:
        rows = None
    elif min_rows == max_rows:
        rows = f"{name} must have exactly {min_rows} row"
    else:
        rows = f"{name} must have at most {max_rows} row (none: leading)"
    limit = max_rows if max_rows >= 0 else np.iinfo(np.int64).max

    def guard(arr):
        problem = _numpy_problem(arr, name, writable)
        if problem is not None:
            raise problem
        if rows is not None and not min_rows <= arr.shape[0] <= limit:
            raise ValueError(rows)
        return arr

    @overload(guard, jit_options={"nogil": True})
    def _typed(arr):
        problem = _numba_type_problem(arr, name, writable)
        if problem is not None:
            raise NumbaTypeError(problem)
        check_layout = arr.layout != "C"

        def impl(arr):
            # numba types a misaligned view (np.frombuffer at an odd offset)
            # as aligned; the C functions read whole uint64s from each row
            if arr.ctypes.data % _ALIGNMENT != 0:
                raise ValueError(alignment)
            if check_layout and arr.shape[0] > 1 and arr.strides[0] != _ITEMSIZE:
                raise ValueError(contiguity)
            if rows is not None and not (min_rows <= arr.shape[0] <= limit):
                raise ValueError(rows)
            return arr
        return impl

    guard.__name__ = guard.__qualname__ = f"_check_{name}"
    return guard


_check_out = _make_array_guard("out", writable=True, min_rows=0, max_rows=-1)
_check_last = _make_array_guard("last", writable=False, min_rows=0, max_rows=1)
_check_move = _make_array_guard("move", writable=False, min_rows=1, max_rows=1)
_check_beaten = _make_array_guard("last", writable=False, min_rows=1, max_rows=1)


def _make_int_guard(name: str):
    """A guard that accepts any integer type (never a float or bool: a float
    hand would be truncated silently) and returns it as uint64."""
    def guard(value):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"{name} must be an integer, not {type(value).__name__}")
        if not -(1 << 63) <= int(value) < 1 << 64:
            raise ValueError(f"{name} {int(value)} does not fit 64 bits")
        # wrap negatives as the jitted np.uint64(value) does
        return np.uint64(int(value) & 0xFFFFFFFFFFFFFFFF)

    @overload(guard, jit_options={"nogil": True})
    def _typed(value):
        if not isinstance(value, types.Integer):
            raise NumbaTypeError(f"{name} must be an integer, not {value}")
        return lambda value: np.uint64(value)

    guard.__name__ = guard.__qualname__ = f"_check_{name}"
    return guard


def _make_plain_guard(name: str, dtypes: tuple):
    """A guard for a writable 1-d output array of one of ``dtypes`` (numpy
    dtypes): its type when compiled; contiguity (layout 'A') and alignment
    when called."""
    names = " or ".join(str(np.dtype(d)) for d in dtypes)
    allowed = tuple(numba.from_dtype(np.dtype(d)) for d in dtypes)
    itemsize = np.dtype(dtypes[0]).itemsize
    contiguity = f"{name} must be C-contiguous"
    alignment = f"{name} must be an aligned array"

    def guard(arr):
        if not isinstance(arr, np.ndarray):
            raise TypeError(f"{name} must be a numpy array, not {type(arr).__name__}")
        if arr.dtype not in [np.dtype(d) for d in dtypes]:
            raise TypeError(f"{name} must have dtype {names}, not {arr.dtype}")
        if arr.ndim != 1:
            raise TypeError(f"{name} must be one-dimensional, not {arr.ndim}-dimensional")
        if not arr.flags.writeable:
            raise TypeError(f"{name} must be writable, not a read-only array")
        if not arr.flags.aligned:
            raise ValueError(alignment)
        if not arr.flags.c_contiguous:
            raise ValueError(contiguity)
        return arr

    @overload(guard, jit_options={"nogil": True})
    def _typed(arr):
        if not isinstance(arr, types.Array):
            raise NumbaTypeError(f"{name} must be an array of {names}, not {arr}")
        if arr.dtype not in allowed:
            raise NumbaTypeError(f"{name} must have dtype {names}, not {arr.dtype}")
        if arr.ndim != 1:
            raise NumbaTypeError(f"{name} must be one-dimensional, not "
                                 f"{arr.ndim}-dimensional")
        if not arr.mutable:
            raise NumbaTypeError(f"{name} must be writable, not a read-only array")
        check_layout = arr.layout != "C"

        def impl(arr):
            if arr.ctypes.data % itemsize != 0:
                raise ValueError(alignment)
            if check_layout and arr.shape[0] > 1 and arr.strides[0] != itemsize:
                raise ValueError(contiguity)
            return arr
        return impl

    guard.__name__ = guard.__qualname__ = f"_check_{name}"
    return guard


_check_index_out = _make_plain_guard("out", (np.int32,))
_check_mask_out = _make_plain_guard("out", (np.bool_, np.uint8, np.int8))
_int_actions = _make_int_guard("actions")

_check_hand = _make_int_guard("hand")
_check_cards = _make_int_guard("cards")
_int_rules = _make_int_guard("rules")


@numba.njit(nogil=True)
def _check_rules(rules):
    handle = _int_rules(rules)
    if handle == 0:
        raise ValueError("rules is a null handle; use rules_handle(...)")
    return handle


@numba.njit(nogil=True)
def _check_actions(actions):
    handle = _int_actions(actions)
    if handle == 0:
        raise ValueError("actions is a null handle; use actions_handle(...)")
    return handle


@numba.njit(nogil=True)
def _legal_row(rules, move):
    m = move[0]
    # fields by name: a numpy record (NUMBA_DISABLE_JIT) has no attributes
    if _c_check(rules, m["kind"], m["rank"], m["length"], m["cards"]) < 0:
        raise ValueError("not a legal move of this rule set")


# ---- the jitted bodies of the functions ------------------------------------------

@numba.njit(nogil=True)
def _hand_valid(rules, hand):
    rules = _check_rules(rules)
    return _c_hand_valid(rules, _check_hand(hand)) != 0


@numba.njit(nogil=True)
def _legal_moves_into(rules, hand, last, out):
    rules = _check_rules(rules)
    hand = _check_hand(hand)
    last = _check_last(last)
    out = _check_out(out)
    last_ptr = _position(rules, hand, last, out)
    n = _c_legal_moves(rules, hand, last_ptr, out.ctypes.data, out.shape[0])
    if n > out.shape[0]:
        raise ValueError("out holds " + str(out.shape[0]) + " moves but this position has "
                         + str(n) + " legal moves; pass a larger buffer")
    return n


@numba.njit(nogil=True)
def _classify_into(rules, cards, out):
    rules = _check_rules(rules)
    cards = _check_cards(cards)
    out = _check_out(out)
    if _c_hand_valid(rules, cards) == 0:
        raise ValueError("cards are not of this rule set's deck")
    n = _c_classify(rules, cards, out.ctypes.data, out.shape[0])
    if n > out.shape[0]:
        raise ValueError("out holds " + str(out.shape[0]) + " moves but these cards have "
                         + str(n) + " readings; pass a larger buffer")
    return n


@numba.njit(nogil=True)
def _beats(rules, move, last):
    rules = _check_rules(rules)
    move = _check_move(move)
    last = _check_beaten(last)
    _legal_row(rules, move)
    _legal_row(rules, last)
    if last[0]["kind"] == 0:
        raise ValueError("last must be a non-pass move")
    return _c_beats(rules, move.ctypes.data, last.ctypes.data) != 0


# play takes no rule set: its hand is checked against the largest deck (a
# rule set's with W), as ddzfast.play checks a hand given without rules.
_ANY_DECK = rules_handle(next(name for name in RULE_SETS if get_rules(name).wildcard))


@numba.njit(nogil=True)
def _play(hand, cards):
    hand = _check_hand(hand)
    cards = _check_cards(cards)
    if _c_hand_valid(_ANY_DECK, hand) == 0:
        raise ValueError("hand is not a hand of any rule set's deck")
    if _c_contains(hand, cards) == 0:
        raise ValueError("the cards are not all in the hand")
    return hand - cards


@numba.njit(nogil=True)
def _position(rules, hand, last, out):
    """The address of ``last`` (0 when leading), once the hand and ``last``
    are checked and ``last`` is found apart from ``out``: writing ``out``
    would overwrite the move to beat (``ddz_legal_moves`` still reads it:
    ``last=out[i:i + 1]`` gave wrong moves; the action functions overwrote
    the caller's ``last``), so an overlap is a ValueError, as
    ``legal_moves_batch`` refuses an ``out`` sharing memory with ``lasts``."""
    if _c_hand_valid(rules, hand) == 0:
        raise ValueError("hand is not a hand of this rule set's deck")
    if last.shape[0] > 0:
        _legal_row(rules, last)
        if last[0]["kind"] == 0:
            raise ValueError("last must be a non-pass move (or empty when leading)")
        start = last.ctypes.data
        other = out.ctypes.data
        if (out.shape[0] > 0 and start < other + out.shape[0] * out.itemsize
                and other < start + last.shape[0] * last.itemsize):
            raise ValueError("last shares memory with out: what is written to out "
                             "would overwrite the move to beat; copy the move into "
                             "an array of its own (last[0] = moves[i])")
        return start
    return 0


@numba.njit(nogil=True)
def _action_status(n):
    if n == _ERR_NO_ACTION:
        raise ValueError("a legal move of this hand is no action of the table "
                         "(more cards than a deal gives, or the actions handle "
                         "of another rule set)")
    if n == _ERR_NOMEM:
        raise MemoryError("out of memory generating legal moves")


@numba.njit(nogil=True)
def _action_indices_into(rules, actions, hand, last, out):
    rules = _check_rules(rules)
    actions = _check_actions(actions)
    hand = _check_hand(hand)
    last = _check_last(last)
    out = _check_index_out(out)
    last_ptr = _position(rules, hand, last, out)
    n = _c_action_indices(rules, actions, hand, last_ptr, out.ctypes.data, out.shape[0])
    _action_status(n)
    if n > out.shape[0]:
        raise ValueError("out holds " + str(out.shape[0]) + " entries but this position "
                         "has " + str(n) + " legal moves; pass a larger buffer")
    return n


@numba.njit(nogil=True)
def _action_mask_into(rules, actions, hand, last, out):
    rules = _check_rules(rules)
    actions = _check_actions(actions)
    hand = _check_hand(hand)
    last = _check_last(last)
    out = _check_mask_out(out)
    if out.shape[0] != _c_action_count(actions):
        raise ValueError("out must have exactly action_count(rules) entries")
    last_ptr = _position(rules, hand, last, out)
    n = _c_action_mask(rules, actions, hand, last_ptr, out.ctypes.data)
    _action_status(n)
    return n


@numba.njit(nogil=True)
def _min_plays(rules, hand):
    rules = _check_rules(rules)
    hand = _check_hand(hand)
    if _c_hand_valid(rules, hand) == 0:
        raise ValueError("hand is not a hand of this rule set's deck")
    v = _c_min_plays(rules, hand)
    if v == _SPLIT_NOMEM:
        raise MemoryError("out of memory splitting a hand")
    if v == _SPLIT_TOO_BIG:
        raise ValueError("hand is too large to split exactly (the search passed "
                         "its work limit, or the hand has too many leading moves)")
    return v


# The public functions are plain functions to Python, which check the handles
# first (only Python knows which integers rules_handle and actions_handle
# gave out, and which lookup is whose: the C functions read through any
# integer as a pointer) and convert a Python int hand themselves (numba's own
# conversion of 2**63 and more is an OverflowError once an int64
# specialisation exists); to jitted code they are their overloads, the
# jitted bodies above, with no Python in the loop.

def _checked_rules(rules) -> int:
    if type(rules) is int and rules in _PINNED_BY_ADDRESS:
        return rules
    return check_handle(rules)


def hand_valid(rules: int, hand: int) -> bool:
    """The packed ``hand`` is a hand of the rule set's deck."""
    return _hand_valid(_checked_rules(rules), _check_hand(hand))


def legal_moves_into(rules: int, hand: int, last: np.ndarray, out: np.ndarray) -> int:
    """Write the legal moves of ``hand`` after ``last`` (empty: leading) into
    ``out``; return how many."""
    return _legal_moves_into(_checked_rules(rules), _check_hand(hand), last, out)


def classify_into(rules: int, cards: int, out: np.ndarray) -> int:
    """Write every reading of exactly ``cards`` as one move into ``out``;
    return how many."""
    return _classify_into(_checked_rules(rules), _check_cards(cards), out)


def beats(rules: int, move: np.ndarray, last: np.ndarray) -> bool:
    """The one-row ``move`` beats the one-row, non-pass ``last``."""
    return _beats(_checked_rules(rules), move, last)


def play(hand: int, cards: int) -> int:
    """The packed hand left after playing ``cards`` from ``hand``."""
    return _play(_check_hand(hand), _check_cards(cards))


def min_plays(rules: int, hand: int) -> int:
    """The fewest plays of the packed ``hand`` (``ddzfast.min_plays(hand,
    rules).count``), -1 when it cannot be emptied."""
    return _min_plays(_checked_rules(rules), _check_hand(hand))


def _body(jitted):
    # The Python function a jitted body was made from: an overload returning
    # it is compiled as that body itself, where a lambda calling the
    # dispatcher adds a call that numba does not inline. (With
    # NUMBA_DISABLE_JIT, njit returns the function itself.)
    return getattr(jitted, "py_func", jitted)


def _check_pair(rules, actions) -> None:
    if (type(rules) is not int or type(actions) is not int
            or (rules, actions) not in _MATCHED_PAIRS):
        check_actions_handle(actions, rules)


def legal_action_indices_into(rules: int, actions: int, hand: int, last: np.ndarray,
                              out: np.ndarray) -> int:
    """Write the action indices of the legal moves of ``hand`` after ``last``
    (empty: leading) into the int32 ``out``; return how many. From Python,
    ValueError first unless ``rules`` and ``actions`` are handles from
    ``rules_handle`` and ``actions_handle`` and ``actions`` is the lookup of
    ``rules``' moves (jitted code cannot tell: see the module docstring)."""
    _check_pair(rules, actions)
    return _action_indices_into(rules, actions, _check_hand(hand), last, out)


def legal_action_mask_into(rules: int, actions: int, hand: int, last: np.ndarray,
                           out: np.ndarray) -> int:
    """Fill ``out`` (bool, uint8 or int8, ``action_count`` entries) with the
    legal-action mask of ``hand`` after ``last`` (empty: leading); return
    the number of legal moves. From Python, ValueError first unless
    ``rules`` and ``actions`` are handles from ``rules_handle`` and
    ``actions_handle`` and ``actions`` is the lookup of ``rules``' moves
    (jitted code cannot tell: see the module docstring)."""
    _check_pair(rules, actions)
    return _action_mask_into(rules, actions, _check_hand(hand), last, out)


@overload(legal_action_indices_into, jit_options={"nogil": True})
def _legal_action_indices_typed(rules, actions, hand, last, out):
    return _body(_action_indices_into)


@overload(legal_action_mask_into, jit_options={"nogil": True})
def _legal_action_mask_typed(rules, actions, hand, last, out):
    return _body(_action_mask_into)


@overload(hand_valid, jit_options={"nogil": True})
def _hand_valid_typed(rules, hand):
    return _body(_hand_valid)


@overload(legal_moves_into, jit_options={"nogil": True})
def _legal_moves_into_typed(rules, hand, last, out):
    return _body(_legal_moves_into)


@overload(classify_into, jit_options={"nogil": True})
def _classify_into_typed(rules, cards, out):
    return _body(_classify_into)


@overload(beats, jit_options={"nogil": True})
def _beats_typed(rules, move, last):
    return _body(_beats)


@overload(play, jit_options={"nogil": True})
def _play_typed(hand, cards):
    return _body(_play)


@overload(min_plays, jit_options={"nogil": True})
def _min_plays_typed(rules, hand):
    return _body(_min_plays)
