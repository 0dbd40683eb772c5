# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""ddzfast's compiled core: exact legal-move generation for Dou Dizhu.

One extension module (everything ``ddzfast.numba`` binds) built from
several source files, each with one job; its C interface is _core.pxd,
which ddzfast._engine, ddzfast._solve and ddzfast._douzero cimport:

* _generate.pxi: the C generator, checker and comparator (``noexcept nogil``
  functions over packed hands and caller-supplied buffers);
* _generate_laizi.pxi: the generator's laizi part (RULES.md section 8);
* _values.pxi: Rules, Hand, Move and MoveList, which convert and validate;
* this file: the public functions legal_moves, legal_moves_into, classify,
  beats and play;
* _batch.pxi: legal_moves_batch;
* _actions.pxi: action indices and legal-action masks in C.
"""

from libc.stdint cimport uint8_t, int16_t, int32_t, uint64_t, int64_t
from libc.stdlib cimport malloc, free, realloc
from libc.string cimport memcpy, memset
from cpython.ref cimport Py_INCREF
from cpython.weakref cimport PyWeakref_NewRef

cimport cython
cimport numpy as cnp
import numpy as np

from ddzfast.movekind import MoveKind
from ddzfast.rulesets import PLATFORM_DEFAULTS, PLATFORM_PRESETS, RULE_SETS

cnp.import_array()


cdef extern from "numpy/arrayobject.h":
    object _new_from_descr "PyArray_NewFromDescr"(
        void* subtype, void* descr, int nd, cnp.npy_intp* dims,
        cnp.npy_intp* strides, void* data, int flags, void* obj)


include "_generate.pxi"
include "_values.pxi"


# --------------------------------------------------------------------------
# The public functions
# --------------------------------------------------------------------------

def legal_moves(hand, last=None, rules="classic") -> MoveList:
    """The legal moves of ``hand`` (RULES.md section 4), each move identity once.

    ``last=None`` means leading: every move but PASS (a hand of only W gets
    just PASS, an empty hand, which has gone out, none). Otherwise ``last``
    is the last non-pass Move (or MOVE_DTYPE row) and the result is PASS
    plus every move that beats it.
    """
    cdef Rules r = _get_rules(rules)
    cdef uint64_t bits
    cdef ddz_move lm
    cdef int following = _read_position(r, hand, last, &bits, &lm)
    return _legal_move_list(r, bits, &lm if following else NULL)


cdef int _read_position(Rules r, object hand, object last, uint64_t* bits,
                        ddz_move* lm) except -1:
    """A position's hand into *bits and its last move, when there is one,
    into *lm (1, else 0), both checked for rule set r."""
    bits[0] = _to_bits(hand, r, "hand")
    _need_wild(r)
    if last is None:
        return 0
    _last_struct(last, r, lm)
    return 1


cdef MoveList _legal_move_list(Rules r, uint64_t hand, const ddz_move* last):
    """The legal moves as a MoveList: generated into a buffer on this call's
    stack and copied out, or, for a hand with more moves than it holds, into
    a heap buffer of their own."""
    cdef ddz_move buf[DDZ_MOVE_BUFFER]
    cdef int64_t n = ddz_legal_moves(&r.c, hand, last, buf, DDZ_MOVE_BUFFER)
    cdef MoveList ml
    if n <= DDZ_MOVE_BUFFER:
        return _move_list(buf, n, r)
    ml = _move_list(buf, 0, r)
    free(ml.data)
    ml.data = <ddz_move*>malloc(n * sizeof(ddz_move))
    if ml.data == NULL:
        raise MemoryError()
    ml.n = ddz_legal_moves(&r.c, hand, last, ml.data, n)
    return ml


def _legal_move_count(hand, last, rules) -> int:
    """How many legal moves ``hand`` has (as ``len(legal_moves(...))``),
    counted with no buffer: the count pass of the random policy's draw."""
    cdef Rules r = _get_rules(rules)
    cdef uint64_t bits
    cdef ddz_move lm
    cdef int following = _read_position(r, hand, last, &bits, &lm)
    return ddz_legal_moves(&r.c, bits, &lm if following else NULL, NULL, 0)


def _legal_move_at(hand, last, rules, int64_t k, bint drawn=False):
    """Move ``k`` of ``legal_moves(hand, last, rules)`` made alone, or None
    when there are k or fewer: by ddz_legal_move_at (the moves before k
    counted where they can be), or with ``drawn`` as the random policy
    makes it (ddz_draw_count, then ddz_draw_make from the marks)."""
    cdef Rules r = _get_rules(rules)
    cdef uint64_t bits
    cdef ddz_move lm
    cdef const ddz_move* lp = NULL
    cdef ddz_move* buf
    cdef ddz_draw draw
    cdef int status
    if _read_position(r, hand, last, &bits, &lm):
        lp = &lm
    if k < 0:
        raise IndexError(f"move index {k} is negative")
    if k >= 0x3FFFFFFF:
        return None
    if drawn and ddz_draw_count(&draw, &r.c, bits, lp) <= k:
        return None
    buf = <ddz_move*>malloc((k + 1) * sizeof(ddz_move))
    if buf == NULL:
        raise MemoryError()
    try:
        if drawn:
            status = ddz_draw_make(&draw, k, buf)
        else:
            status = ddz_legal_move_at(&r.c, bits, lp, k, buf)
        return _move(&buf[k], r) if status == 0 else None
    finally:
        free(buf)


#: Moves a buffer of ddzfast holds before it grows: legal_moves_into's ``out``
#: of this many entries holds every position of a deal in classic, biegang
#: and super.
MOVE_BUFFER = DDZ_MOVE_BUFFER


cdef inline uint64_t _int_bits(object hand, Rules r) except? 0xFFFFFFFFFFFFFFFF:
    # The fast path for a packed int; anything odd goes to _to_bits for its
    # error message.
    cdef uint64_t bits
    try:
        bits = hand
    except OverflowError:
        return _to_bits(hand, r, "hand")
    if ddz_hand_valid(&r.c, bits):
        return bits
    return _to_bits(hand, r, "hand")


cdef int _check_move_out(object out) except -1:
    # A buffer the caller lends for moves: a writable, C-contiguous, aligned
    # 1-d MOVE_DTYPE array (the core writes its rows as ddz_move structs)
    if not isinstance(out, cnp.ndarray):
        raise TypeError(f"out must be a MOVE_DTYPE array, not {type(out).__name__}")
    if <object>cnp.PyArray_DESCR(<cnp.ndarray>out) is not _MOVE_DESCR:
        if out.dtype != MOVE_DTYPE:
            raise TypeError(f"out must have dtype MOVE_DTYPE, not {out.dtype}")
    if (cnp.PyArray_NDIM(<cnp.ndarray>out) != 1
            or not cnp.PyArray_IS_C_CONTIGUOUS(<cnp.ndarray>out)
            or not cnp.PyArray_ISWRITEABLE(<cnp.ndarray>out)):
        raise ValueError("out must be a writable, C-contiguous 1-d array")
    if not cnp.PyArray_ISALIGNED(<cnp.ndarray>out):
        raise ValueError("out must be aligned (a MOVE_DTYPE array NumPy made, or a "
                         "slice of one; not a view at an odd byte offset)")
    return 0


def legal_moves_into(hand, last, rules, cnp.ndarray out not None) -> int:
    """Write the legal moves of ``hand`` into ``out`` (a C-contiguous, writable
    1-d MOVE_DTYPE array; its rows past them are scratch) and return how many
    there are. Nothing is allocated;
    a buffer too small for the position raises ValueError with the count
    needed, its rows then scratch too (the generator writes into ``out`` as
    it goes: no second buffer in this hot path). MOVE_BUFFER entries hold every position of a deal in classic,
    biegang and super (the docs' page on cards and moves says how many moves
    larger hands can have)."""
    cdef Rules r = _get_rules(rules)
    cdef uint64_t bits
    cdef ddz_move lm
    cdef const ddz_move* lp = NULL
    cdef int64_t n, cap
    _need_wild(r)
    if type(hand) is int:
        bits = _int_bits(hand, r)
    else:
        bits = _to_bits(hand, r, "hand")
    if last is not None:
        _last_struct(last, r, &lm)
        lp = &lm
    _check_move_out(out)
    cap = cnp.PyArray_DIM(out, 0)
    n = ddz_legal_moves(&r.c, bits, lp, <ddz_move*>cnp.PyArray_DATA(out), cap)
    if n > cap:
        raise ValueError(f"out holds {cap} moves but this position has {n} "
                         f"legal moves; pass a larger buffer")
    return n


def classify(cards, rules="classic") -> MoveList:
    """Every reading of exactly ``cards`` played as one move: empty when the
    cards are not a move, PASS alone when there are no cards. The way to
    turn an opponent's cards into ``last``."""
    cdef Rules r = _get_rules(rules)
    cdef uint64_t bits = _to_bits(cards, r, "cards")
    _need_wild(r)
    # at most one reading per (kind, rank): the card count fixes the length
    cdef ddz_move buf[NKINDS * 15]
    cdef int64_t n
    memset(buf, 0, sizeof(buf))
    n = ddz_classify(&r.c, bits, buf, NKINDS * 15)
    return _move_list(buf, n, r)


def beats(move, last, rules="classic") -> bool:
    """Whether ``move`` beats ``last`` (a non-pass move), RULES.md section 4.
    Both must be legal moves of the rule set; PASS beats nothing."""
    cdef Rules r = _get_rules(rules)
    cdef ddz_move m, p
    _move_struct(move, r, &m, "move")
    _move_struct(last, r, &p, "last")
    if p.kind == K_PASS:
        raise IllegalMoveError("beats compares with a non-pass move; last is PASS")
    return bool(ddz_beats(&r.c, &m, &p))


def play(hand, move, rules=None) -> Hand:
    """The hand left after playing ``move`` from ``hand``.

    ``move`` is a Move, a MOVE_DTYPE row or a one-row MOVE_DTYPE array (its
    kind, rank and length must make it a legal move of ``rules``; None: of
    some built-in rule set) or plain
    cards (text, a packed int or a Hand). InvalidCardsError (a ValueError)
    when not all of its cards are in the hand."""
    cdef Rules r = None if rules is None else _get_rules(rules)
    cdef uint64_t h = _to_bits(hand, r, "hand")
    cdef uint64_t c
    cdef ddz_move m
    if isinstance(move, Move):
        c = (<Move>move).m.cards
        if r is not None:
            _move_struct(move, r, &m, "move")
    elif _read_row(move, &m):
        # a MOVE_DTYPE row or one-row array: a legal move of the rule set
        if r is not None:
            _move_struct(move, r, &m, "move")
        else:
            _move_struct_any(move, &m)
        c = m.cards
    elif isinstance(move, _VOID):
        raise TypeError(f"a move row must have dtype MOVE_DTYPE, not {move.dtype}")
    else:
        c = _to_bits(move, r, "move cards")
    if not _hand_contains(h, c):
        raise InvalidCardsError(f"cannot play {_cards_text(c)} from {_cards_text(h)}: "
                                f"not all of its cards are in the hand")
    return _hand(h - c)


cdef int _move_struct_any(object row, ddz_move* out) except -1:
    # A MOVE_DTYPE row that is a legal move of some built-in rule set.
    cdef Rules r
    for r in _ANY_RULES:
        try:
            _move_struct(row, r, out, "move")
            return 0
        except IllegalMoveError:
            pass
    raise IllegalMoveError(f"move (row {row}) is not a legal move in {_any_rules_label()}")


include "_batch.pxi"
include "_actions.pxi"


# ---- names that pickles of earlier versions refer to -----------------------
# Before the core was split, Game and its values lived in this module, so
# their pickles name ddzfast._core: those names lead to their new homes.

def _game_from_state(*state):
    """Load a Game pickled by a ddzfast whose state format was not yet
    versioned (ddzfast._engine._game_from_legacy_state checks it)."""
    from ddzfast._engine import _game_from_legacy_state
    return _game_from_legacy_state(*state)


_MOVED_TO_ENGINE = frozenset({"Game", "GameResult", "Observation", "ObservationBlock"})


def __getattr__(name):
    if name in _MOVED_TO_ENGINE:
        from ddzfast import _engine
        return getattr(_engine, name)
    raise AttributeError(f"module 'ddzfast._core' has no attribute {name!r}")
