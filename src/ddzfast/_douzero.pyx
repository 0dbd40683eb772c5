# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# DouZero's training environment in C, an extension module of its own; the
# public face is ddzfast.compat.douzero.
#
# DouZero (Zha et al. 2021) plays the classic game, but its game engine reads a
# played move back from its cards (douzero/env/move_detector.py) and compares
# moves with its own rank rules (move_selector.py). A few readings differ from
# RULES.md (a 16-card plane with a triple among its kickers is "wrong", so it
# can be beaten only by a bomb; a plane with single kickers is ranked by its
# highest triple, kickers included). A drop-in must reproduce what DouZero's
# agents were trained on, so this file keeps DouZero's reading of a played
# move (dz_move_type, dz_rank) and draws the candidates from ddzfast's
# generator (one generator kind per DouZero move type). Its observation is
# the one DouZero's env.get_obs builds, filled from packed hands here.
#
# Names: `douzero_*` are the Python functions compat.douzero calls,
# `DouZeroGame` its game; `dz_*` are the C functions of DouZero's rules
# (reading, legal actions, observation) and `_dz_*` their helpers, both
# without the GIL; `DZ_*` are DouZero's move-type codes.

from cpython.list cimport PyList_New, PyList_SET_ITEM
from cpython.ref cimport Py_INCREF
from libc.stdint cimport int8_t, uint8_t, uint32_t, uint64_t, int64_t
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memcpy, memmove, memset

cimport numpy as cnp
import numpy as np

from ddzfast._core cimport *

from ddzfast._readonly import read_only_view
from ddzfast.constants import DOUZERO_CARDS
from ddzfast.errors import IllegalMoveError, InvalidCardsError

cnp.import_array()

cdef enum:
    # DouZero's move types (douzero/env/utils.py)
    DZ_PASS = 0
    DZ_SINGLE = 1
    DZ_PAIR = 2
    DZ_TRIPLE = 3
    DZ_BOMB = 4
    DZ_KING_BOMB = 5
    DZ_3_1 = 6
    DZ_3_2 = 7
    DZ_SERIAL_SINGLE = 8
    DZ_SERIAL_PAIR = 9
    DZ_SERIAL_TRIPLE = 10
    DZ_SERIAL_3_1 = 11
    DZ_SERIAL_3_2 = 12
    DZ_4_2 = 13
    DZ_4_22 = 14
    DZ_WRONG = 15
    # a deal has at most 54 plays, each followed by at most two passes
    DZ_HISTORY = 192
    DZ_CARDS = 54          # one card set as DouZero's _cards2array encodes it
    DZ_Z_ROWS = 15         # moves of history in z
    DZ_Z = DZ_Z_ROWS * DZ_CARDS
    DZ_X_LANDLORD = 5 * DZ_CARDS + 17 + 17 + 15    # 319
    DZ_X_FARMER = 7 * DZ_CARDS + 20 + 17 + 15      # 430
    DZ_LANDLORD = 0        # seats in playing order
    DZ_DOWN = 1
    DZ_UP = 2

#: The width of DouZero's ``x_no_action`` for each position in playing order
#: (the landlord's, then the two farmers'), and of one action's columns:
#: ``x_batch`` rows are ``x_no_action`` followed by the action's.
X_NO_ACTION_WIDTH = (DZ_X_LANDLORD, DZ_X_FARMER, DZ_X_FARMER)
ACTION_WIDTH = DZ_CARDS

# The generator kind of each DouZero type whose moves a follower must match
# (0: none, only bombs can answer).
cdef int DZ_KIND_OF_TYPE[16]
DZ_KIND_OF_TYPE[:] = [0, K_SINGLE, K_PAIR, K_TRIPLE, K_BOMB, 0, K_TRIPLE_SINGLE,
                      K_TRIPLE_PAIR, K_STRAIGHT, K_PAIR_STRAIGHT, K_PLANE,
                      K_PLANE_SINGLES, K_PLANE_PAIRS, K_FOUR_SINGLES, K_FOUR_PAIRS, 0]

cdef tuple _DZ_INT = tuple(DOUZERO_CARDS)
cdef int _DZ_INDEX[31]          # DouZero int -> card index, -1 for none
for _i in range(31):
    _DZ_INDEX[_i] = -1
for _i, _v in enumerate(DOUZERO_CARDS):
    _DZ_INDEX[_v] = _i
if len(DOUZERO_CARDS) != IDX_D + 1 or max(DOUZERO_CARDS) > 30:
    raise ImportError("ddzfast.constants.DOUZERO_CARDS does not fit the core")

cdef Rules _CLASSIC = _get_rules("classic")
cdef tuple _DZ_POSITIONS = ("landlord", "landlord_down", "landlord_up")


# ---- DouZero's reading of a move ------------------------------------------

cdef inline int _dz_chain(int lo, int hi, int distinct) noexcept nogil:
    # DouZero's is_continuous_seq over the distinct ranks lo..hi: its card
    # ints step by one only from 3 to A (card indices 0..11).
    if distinct <= 1:
        return 1
    return hi - lo + 1 == distinct and hi <= 11


cdef int dz_move_type(uint64_t cards, int* length) noexcept nogil:
    """DouZero's move_detector.get_move_type of `cards`: its type code, and
    the chain length in length[0] (1 for kinds without one)."""
    cdef int size = _hand_size(cards)
    cdef int cnt[5]
    cdef int i, c, distinct = 0, lo = -1, hi = -1, tlo = -1, thi = -1
    length[0] = 1
    memset(cnt, 0, sizeof(cnt))
    for i in range(IDX_D + 1):
        c = _nib(cards, i)
        if c:
            if c > 4:
                return DZ_WRONG
            cnt[c] += 1
            distinct += 1
            if lo < 0:
                lo = i
            hi = i
            if c == 3:
                if tlo < 0:
                    tlo = i
                thi = i
    if size == 0:
        return DZ_PASS
    if size == 1:
        return DZ_SINGLE
    if size == 2:
        if distinct == 1:
            return DZ_PAIR
        return DZ_KING_BOMB if lo == IDX_X and hi == IDX_D else DZ_WRONG
    if size == 3:
        return DZ_TRIPLE if distinct == 1 else DZ_WRONG
    if size == 4:
        if distinct == 1:
            return DZ_BOMB
        return DZ_3_1 if distinct == 2 and cnt[3] == 1 else DZ_WRONG
    if distinct == size and _dz_chain(lo, hi, distinct):
        length[0] = size
        return DZ_SERIAL_SINGLE
    if size == 5:
        return DZ_3_2 if distinct == 2 else DZ_WRONG
    if size == 6 and (distinct == 2 or distinct == 3) and cnt[4] == 1 \
            and (cnt[2] == 1 or cnt[1] == 2):
        return DZ_4_2
    if size == 8 and (((distinct == 2 or distinct == 3) and cnt[4] == 1 and cnt[2] == 2)
                      or cnt[4] == 2):
        return DZ_4_22
    if distinct == cnt[2] and _dz_chain(lo, hi, distinct):
        length[0] = distinct
        return DZ_SERIAL_PAIR
    if distinct == cnt[3] and _dz_chain(lo, hi, distinct):
        length[0] = distinct
        return DZ_SERIAL_TRIPLE
    if cnt[3] >= 2:
        if cnt[4]:
            return DZ_WRONG
        if _dz_chain(tlo, thi, cnt[3]):
            if cnt[3] == cnt[1] + 2 * cnt[2]:
                length[0] = cnt[3]
                return DZ_SERIAL_3_1
            if cnt[3] == cnt[2] and distinct == 2 * cnt[3]:
                length[0] = cnt[3]
                return DZ_SERIAL_3_2
        if cnt[3] == 4 and (_dz_three_chain(cards, tlo, 1) or _dz_three_chain(cards, tlo, 0)):
            # four triples, three of them a chain: the fourth is kickers
            length[0] = 3
            return DZ_SERIAL_3_1
    return DZ_WRONG


cdef inline int _dz_three_chain(uint64_t cards, int tlo, int skip_first) noexcept nogil:
    # Whether the four triples of `cards` without their first (skip_first=1)
    # or last (0) form a chain.
    cdef int r[4]
    cdef int i, n = 0
    memset(r, 0, sizeof(r))
    for i in range(tlo, IDX_D + 1):
        if _nib(cards, i) == 3 and n < 4:
            r[n] = i
            n += 1
    if skip_first:
        return _dz_chain(r[1], r[3], 3)
    return _dz_chain(r[0], r[2], 3)


cdef int dz_rank(int dz_type, uint64_t cards) noexcept nogil:
    """The rank DouZero's move_selector compares for a move of `dz_type`, as a
    card index (DouZero's ints are in the same order)."""
    cdef int i, c, pos, seen
    if dz_type == DZ_SERIAL_3_1 or dz_type == DZ_SERIAL_3_2 or dz_type == DZ_4_22:
        # the highest triple (kicker triples count) / the highest four
        c = 4 if dz_type == DZ_4_22 else 3
        for i in range(IDX_D, -1, -1):
            if _nib(cards, i) == c:
                return i
        return -1
    # the card at a fixed place of the sorted move: move[1] of 3+1, move[2]
    # of 3+2 and 4+2, move[0] otherwise
    pos = 1 if dz_type == DZ_3_1 else (2 if dz_type == DZ_3_2 or dz_type == DZ_4_2 else 0)
    seen = 0
    for i in range(IDX_D + 1):
        seen += _nib(cards, i)
        if seen > pos:
            return i
    return -1


cdef inline int dz_is_bomb(uint64_t cards) noexcept nogil:
    # DouZero's `action in bombs`: four of a rank, or the two jokers
    cdef int i
    if cards == ((<uint64_t>1) << (4 * IDX_X)) + ((<uint64_t>1) << (4 * IDX_D)):
        return 1
    for i in range(13):
        if cards == (<uint64_t>4) << (4 * i):
            return 1
    return 0


# ---- legal actions: distinct card sets ------------------------------------

ctypedef struct dz_scratch:
    ddz_move* moves        # generator output, cap entries
    uint64_t* acts         # the distinct legal actions (pass = 0), cap + 1
    int64_t cap
    int64_t nacts
    uint64_t* keys         # open-addressing set of acts, hsize entries
    uint32_t* stamp        # keys[i] is live when stamp[i] == cur
    int64_t hsize
    uint32_t cur


cdef int dz_scratch_reserve(dz_scratch* s, int64_t cap) noexcept nogil:
    # Room for cap generated moves; 0, or -1 when out of memory.
    cdef int64_t hsize = 1024
    cdef void* p
    if cap <= s.cap:
        return 0
    while hsize < 2 * (cap + 1):
        hsize *= 2
    p = realloc(s.moves, cap * sizeof(ddz_move))
    if p == NULL:
        return -1
    s.moves = <ddz_move*>p
    p = realloc(s.acts, (cap + 1) * sizeof(uint64_t))
    if p == NULL:
        return -1
    s.acts = <uint64_t*>p
    if hsize > s.hsize:
        free(s.keys)
        free(s.stamp)
        s.keys = <uint64_t*>malloc(hsize * sizeof(uint64_t))
        s.stamp = <uint32_t*>calloc(hsize, sizeof(uint32_t))
        if s.keys == NULL or s.stamp == NULL:
            s.hsize = 0
            s.cap = 0
            return -1
        s.hsize = hsize
        s.cur = 0
    s.cap = cap
    return 0


cdef void dz_scratch_free(dz_scratch* s) noexcept nogil:
    free(s.moves)
    free(s.acts)
    free(s.keys)
    free(s.stamp)
    memset(s, 0, sizeof(dz_scratch))


cdef inline void _dz_add(dz_scratch* s, uint64_t cards) noexcept nogil:
    # Append `cards` to the actions unless it is there already.
    cdef uint64_t mask = <uint64_t>(s.hsize - 1)
    cdef uint64_t h = ((cards * 0x9E3779B97F4A7C15ULL) >> 40) & mask
    while s.stamp[h] == s.cur:
        if s.keys[h] == cards:
            return
        h = (h + 1) & mask
    s.stamp[h] = s.cur
    s.keys[h] = cards
    s.acts[s.nacts] = cards
    s.nacts += 1


cdef int64_t _dz_generate(dz_scratch* s, const ddz_rules* rules, uint64_t hand,
                          int dz_type, int length, int rival_rank) noexcept nogil:
    # The candidate moves into s.moves (all moves when dz_type is DZ_PASS);
    # returns their count, which may exceed s.cap.
    cdef int kind = DZ_KIND_OF_TYPE[dz_type]
    cdef int64_t n = 0
    if dz_type == DZ_PASS:
        return ddz_legal_moves(rules, hand, NULL, s.moves, s.cap)
    if dz_type == DZ_BOMB:
        if rival_rank < 12:
            n = ddz_kind_moves(rules, hand, K_BOMB, rival_rank + 1, 14, 0, s.moves, s.cap, n)
        return ddz_kind_moves(rules, hand, K_ROCKET, 0, 14, 0, s.moves, s.cap, n)
    if kind:
        if dz_type == DZ_SERIAL_3_1 or dz_type == DZ_SERIAL_3_2:
            # ranked by the highest triple, kickers included: filtered later
            n = ddz_kind_moves(rules, hand, kind, 0, 14, length, s.moves, s.cap, n)
        elif rival_rank < 14:
            n = ddz_kind_moves(rules, hand, kind, rival_rank + 1, 14, length,
                               s.moves, s.cap, n)
    if dz_type != DZ_KING_BOMB:
        n = ddz_kind_moves(rules, hand, K_BOMB, 0, 14, 0, s.moves, s.cap, n)
        n = ddz_kind_moves(rules, hand, K_ROCKET, 0, 14, 0, s.moves, s.cap, n)
    return n


cdef int64_t dz_legal(dz_scratch* s, const ddz_rules* rules, uint64_t hand,
                      uint64_t rival) noexcept nogil:
    """DouZero's legal actions of `hand` after `rival` (0: leading) as
    distinct card sets in s.acts, pass (0) last when following; returns their
    count, or -1 when out of memory."""
    cdef int length = 1, dz_type = DZ_PASS, rival_rank = -1, kind
    cdef int64_t n, i
    cdef uint64_t cards
    if rival:
        dz_type = dz_move_type(rival, &length)
        rival_rank = dz_rank(dz_type, rival)
    if s.cap == 0 and dz_scratch_reserve(s, DDZ_MOVE_BUFFER) < 0:
        return -1
    n = _dz_generate(s, rules, hand, dz_type, length, rival_rank)
    if n > s.cap:
        if dz_scratch_reserve(s, n) < 0:
            return -1
        n = _dz_generate(s, rules, hand, dz_type, length, rival_rank)
    s.cur += 1
    if s.cur == 0:
        memset(s.stamp, 0, s.hsize * sizeof(uint32_t))
        s.cur = 1
    s.nacts = 0
    kind = DZ_KIND_OF_TYPE[dz_type]
    for i in range(n):
        cards = s.moves[i].cards
        if cards == 0:
            continue
        if ((dz_type == DZ_SERIAL_3_1 or dz_type == DZ_SERIAL_3_2)
                and s.moves[i].kind == kind and dz_rank(dz_type, cards) <= rival_rank):
            continue
        _dz_add(s, cards)
    if rival:
        s.acts[s.nacts] = 0
        s.nacts += 1
    return s.nacts


# ---- DouZero's observation ------------------------------------------------

# A rank's four slots holding `count` cards (0..4): the first `count` set.
# Copied whole, so that the encoding has no branch on the cards (a loop
# over each count mispredicted at most ranks).
cdef int8_t _DZ_SLOTS[5][4]
cdef float _DZ_FSLOTS[5][4]
# The same for a byte of packed cards (two ranks, low nibble first): eight
# slots, so that a rank pair is one copy.
cdef int8_t _DZ_PAIRS[256][8]
cdef float _DZ_FPAIRS[256][8]


def _dz_slot_tables():
    cdef int c, k, b, lo, hi
    for c in range(5):
        for k in range(4):
            _DZ_SLOTS[c][k] = 1 if k < c else 0
            _DZ_FSLOTS[c][k] = 1.0 if k < c else 0.0
    for b in range(256):
        lo = min(b & 15, 4)
        hi = min(b >> 4, 4)
        for k in range(4):
            _DZ_PAIRS[b][k] = _DZ_SLOTS[lo][k]
            _DZ_PAIRS[b][4 + k] = _DZ_SLOTS[hi][k]
            _DZ_FPAIRS[b][k] = _DZ_FSLOTS[lo][k]
            _DZ_FPAIRS[b][4 + k] = _DZ_FSLOTS[hi][k]


_dz_slot_tables()


cdef inline int _dz_count(uint64_t cards, int i) noexcept nogil:
    cdef int c = _nib(cards, i)
    return c if c <= 4 else 4


cdef inline void _dz_encode(uint64_t cards, int8_t* out) noexcept nogil:
    # DouZero's _cards2array: four slots per rank 3..2 (the first `count`
    # set), then X and D.
    cdef int i
    for i in range(6):                  # ranks 3..A, two a byte
        memcpy(out + 8 * i, _DZ_PAIRS[(cards >> (8 * i)) & 0xFF], 8)
    memcpy(out + 48, _DZ_SLOTS[_dz_count(cards, 12)], 4)
    out[52] = <int8_t>_nib(cards, IDX_X)
    out[53] = <int8_t>_nib(cards, IDX_D)


cdef inline void _dz_encode_float(uint64_t cards, float* out) noexcept nogil:
    # _dz_encode as float32 (a candidate action's part of an x_batch row)
    cdef int i
    for i in range(6):
        memcpy(out + 8 * i, _DZ_FPAIRS[(cards >> (8 * i)) & 0xFF], 8 * sizeof(float))
    memcpy(out + 48, _DZ_FSLOTS[_dz_count(cards, 12)], 4 * sizeof(float))
    out[52] = <float>_nib(cards, IDX_X)
    out[53] = <float>_nib(cards, IDX_D)


cdef inline void _dz_one_hot(int value, int n, int8_t* out) noexcept nogil:
    # DouZero's one_hot[value - 1] = 1 (numpy: 0 sets the last entry)
    cdef int k = value - 1
    memset(out, 0, n)
    if k < 0:
        k += n
    if 0 <= k < n:
        out[k] = 1


ctypedef struct dz_state:
    uint64_t hand[3]          # by seat in playing order (DZ_LANDLORD, DZ_DOWN, DZ_UP)
    uint64_t played[3]
    uint64_t last_by_seat[3]  # each seat's latest action, pass included
    uint64_t history[DZ_HISTORY]
    int nhistory
    int seat                  # to act
    int bombs
    int over
    int landlord_won


cdef inline uint64_t dz_last_move(const dz_state* g) noexcept nogil:
    # DouZero's get_last_move: the latest action, or the one before when the
    # latest is a pass
    if g.nhistory == 0:
        return 0
    if g.history[g.nhistory - 1] or g.nhistory < 2:
        return g.history[g.nhistory - 1]
    return g.history[g.nhistory - 2]


cdef int dz_x_no_action(const dz_state* g, int8_t* x) noexcept nogil:
    """Fill DouZero's x_no_action of the seat to act; returns its width."""
    cdef int s = g.seat, mate
    if s == DZ_LANDLORD:
        _dz_encode(g.hand[0], x)
        _dz_encode(g.hand[1] + g.hand[2], x + 54)
        _dz_encode(dz_last_move(g), x + 108)
        _dz_encode(g.played[DZ_UP], x + 162)
        _dz_encode(g.played[DZ_DOWN], x + 216)
        _dz_one_hot(_hand_size(g.hand[DZ_UP]), 17, x + 270)
        _dz_one_hot(_hand_size(g.hand[DZ_DOWN]), 17, x + 287)
        _dz_one_hot(g.bombs + 1, 15, x + 304)   # one_hot[bomb_num], not [n - 1]
        return DZ_X_LANDLORD
    mate = DZ_UP if s == DZ_DOWN else DZ_DOWN
    _dz_encode(g.hand[s], x)
    _dz_encode(g.hand[DZ_LANDLORD] + g.hand[mate], x + 54)
    _dz_encode(g.played[DZ_LANDLORD], x + 108)
    _dz_encode(g.played[mate], x + 162)
    _dz_encode(dz_last_move(g), x + 216)
    _dz_encode(g.last_by_seat[DZ_LANDLORD], x + 270)
    _dz_encode(g.last_by_seat[mate], x + 324)
    _dz_one_hot(_hand_size(g.hand[DZ_LANDLORD]), 20, x + 378)
    _dz_one_hot(_hand_size(g.hand[mate]), 17, x + 398)
    _dz_one_hot(g.bombs + 1, 15, x + 415)
    return DZ_X_FARMER


cdef void dz_z(const dz_state* g, int8_t* z) noexcept nogil:
    """Fill DouZero's z: the latest 15 actions, oldest first, zero-padded in
    front (5 x 162 in DouZero's shape, the same bytes)."""
    cdef int r, h
    for r in range(DZ_Z_ROWS):
        h = g.nhistory - DZ_Z_ROWS + r
        if h < 0:
            memset(z + r * DZ_CARDS, 0, DZ_CARDS)
        else:
            _dz_encode(g.history[h], z + r * DZ_CARDS)


cdef void dz_batches(const int8_t* x, int width, const int8_t* z,
                     const uint64_t* acts, int64_t n, float* xb, float* zb) noexcept nogil:
    """Fill x_batch (n rows: x then the action's 54 slots) and z_batch (n
    copies of z), as float32."""
    cdef int64_t j
    cdef int k, row = width + DZ_CARDS
    for k in range(width):
        xb[k] = x[k]
    for k in range(DZ_Z):
        zb[k] = z[k]
    for j in range(n):
        if j:
            memcpy(xb + j * row, xb, width * sizeof(float))
            memcpy(zb + j * DZ_Z, zb, DZ_Z * sizeof(float))
        _dz_encode_float(acts[j], xb + j * row + width)


# ---- Python side: conversions ---------------------------------------------

cdef uint64_t _dz_pack(object cards, str what) except? 0xFFFFFFFFFFFFFFFF:
    # A DouZero card list (any order) as packed cards, checked against the deck.
    cdef uint64_t bits = 0
    cdef long v
    cdef int idx, c
    if isinstance(cards, (str, bytes)) or not hasattr(cards, "__iter__"):
        raise TypeError(f"{what} must be a list of DouZero card ints, "
                        f"not {type(cards).__name__}")
    for item in cards:
        if type(item) is not int and (isinstance(item, (bool, np.bool_))
                                      or not isinstance(item, (int, np.integer))):
            raise TypeError(f"{what}: a DouZero card is an int, not {item!r}")
        if not (0 <= item <= 30):
            raise InvalidCardsError(f"{what}: {item!r} is not a DouZero card "
                                    f"(one of {DOUZERO_CARDS})")
        v = item
        idx = _DZ_INDEX[v]
        if idx < 0:
            raise InvalidCardsError(f"{what}: {item!r} is not a DouZero card "
                                    f"(one of {DOUZERO_CARDS})")
        c = _nib(bits, idx) + 1
        if c > (4 if idx < IDX_X else 1):
            raise InvalidCardsError(f"{what}: more {v}s than a deck holds")
        bits += (<uint64_t>1) << (4 * idx)
    return bits


cdef list _dz_list(uint64_t cards):
    # DouZero's sorted int list of packed cards.
    cdef list out = PyList_New(_hand_size(cards & 0x0FFFFFFFFFFFFFFFULL))
    cdef Py_ssize_t k = 0
    cdef int i, c
    cdef object v
    for i in range(IDX_D + 1):
        c = _nib(cards, i)
        if c:
            v = _DZ_INT[i]
            while c:
                Py_INCREF(v)
                PyList_SET_ITEM(out, k, v)
                k += 1
                c -= 1
    return out


cdef list _dz_lists(const uint64_t* acts, int64_t n):
    cdef list out = PyList_New(n)
    cdef int64_t j
    cdef object one
    for j in range(n):
        one = _dz_list(acts[j])
        Py_INCREF(one)
        PyList_SET_ITEM(out, j, one)
    return out


def douzero_pack(cards) -> int:
    """Packed cards (an int) of a DouZero card list; InvalidCardsError (a
    ValueError) for an int that is no DouZero card or more copies of a card
    than the deck holds, TypeError for anything but a sequence of ints."""
    return _dz_pack(cards, "cards")


def douzero_pack_many(actions, str name="actions") -> np.ndarray:
    """Packed cards of each DouZero card list of ``actions``, as a uint64
    array; ``name`` is what errors call the argument (``actions[1]``)."""
    if isinstance(actions, (str, bytes)) or not hasattr(actions, "__iter__"):
        raise TypeError(f"{name} must be a list of DouZero card lists, "
                        f"not {type(actions).__name__}")
    seq = actions if isinstance(actions, (list, tuple)) else list(actions)
    cdef Py_ssize_t n = len(seq), j
    cdef cnp.ndarray out = np.empty(n, dtype=np.uint64)
    cdef uint64_t* p = <uint64_t*>cnp.PyArray_DATA(out)
    for j in range(n):
        p[j] = _dz_pack(seq[j], f"{name}[{j}]")
    return out


def douzero_lists(packed) -> list:
    """DouZero's sorted card list for each packed cards of ``packed`` (a 1-d
    uint64 array)."""
    cdef cnp.ndarray a = np.ascontiguousarray(packed, dtype=np.uint64)
    cdef const uint64_t* p
    cdef Py_ssize_t j, n
    if a.ndim != 1:
        raise ValueError(f"packed must be a 1-d array, not {a.ndim}-d")
    p = <const uint64_t*>cnp.PyArray_DATA(a)
    n = cnp.PyArray_DIM(a, 0)
    for j in range(n):
        if not ddz_hand_valid(&_CLASSIC.c, p[j]):
            raise InvalidCardsError(f"packed[{j}] = {p[j]:#x} is not a set of "
                                    f"classic-deck cards")
    return _dz_lists(p, n)


def douzero_list(cards) -> list:
    """DouZero's sorted card list of one set of cards (a Hand, packed int or
    card text of the classic deck)."""
    return _dz_list(_to_bits(cards, _CLASSIC, "cards"))



cdef class _DzLegal:
    # A scratch buffer per thread would do; one per call keeps it simple and
    # douzero_legal_actions is not the hot path (DouZeroGame keeps its own).
    cdef dz_scratch s

    def __dealloc__(self):
        dz_scratch_free(&self.s)


def douzero_legal_actions(hand, rival_move) -> list:
    """DouZero's legal actions (GameEnv.get_legal_card_play_actions) of the
    DouZero card list ``hand`` after ``rival_move`` (the last non-pass
    action; ``[]`` when leading), each distinct card set once, sorted card
    lists, ``[]`` (pass) last when following."""
    cdef uint64_t h = _dz_pack(hand, "hand")
    cdef uint64_t r = _dz_pack(rival_move, "rival_move")
    cdef _DzLegal tmp = _DzLegal()
    cdef int64_t n = dz_legal(&tmp.s, &_CLASSIC.c, h, r)
    if n < 0:
        raise MemoryError()
    return _dz_lists(tmp.s.acts, n)


def douzero_move_type(cards) -> tuple:
    """DouZero's reading of a DouZero card list: (type code of
    douzero.env.utils, chain length, compared rank as a card index)."""
    cdef uint64_t c = _dz_pack(cards, "cards")
    cdef int length, t
    t = dz_move_type(c, &length)
    return (t, length, dz_rank(t, c))


# ---- Python side: the game ------------------------------------------------

cdef class DouZeroGame:
    """DouZero's card-play game (douzero.env.game.GameEnv) over packed hands,
    with its observation (douzero.env.env.get_obs) filled in C. The engine of
    ddzfast.compat.douzero.Env; use that."""

    cdef dz_state g
    cdef dz_scratch s
    cdef int64_t nlegal
    cdef bint dealt
    # set while observe() fills its batches without the GIL from self.s.acts,
    # which play() and a new deal rewrite (and may move)
    cdef bint busy

    def __dealloc__(self):
        dz_scratch_free(&self.s)

    def deal(self, landlord, landlord_up, landlord_down):
        """Start a deal from DouZero card lists (card_play_data's three hands)."""
        cdef uint64_t hl = _dz_pack(landlord, "landlord")
        cdef uint64_t hu = _dz_pack(landlord_up, "landlord_up")
        cdef uint64_t hd = _dz_pack(landlord_down, "landlord_down")
        self._start(hl, hu, hd)

    def deal_deck(self, list deck):
        """Start a deal from a shuffled 54-card DouZero deck, cut as DouZero's
        Env.reset cuts it: landlord deck[:20], landlord_up deck[20:37],
        landlord_down deck[37:54]."""
        if len(deck) != 54:
            raise ValueError(f"a DouZero deck has 54 cards, not {len(deck)}")
        self._start(_dz_pack(deck[:20], "deck"), _dz_pack(deck[20:37], "deck"),
                    _dz_pack(deck[37:], "deck"))

    cdef int _check_idle(self) except -1:
        if self.busy:
            raise RuntimeError("this DouZero game is being observed by another thread: "
                               "give each thread its own Env")
        return 0

    cdef int _start(self, uint64_t hl, uint64_t hu, uint64_t hd) except -1:
        cdef uint64_t total = hl + hu + hd
        self._check_idle()
        if hl == 0 or hu == 0 or hd == 0:
            raise InvalidCardsError("every seat needs at least one card")
        # the widths of DouZero's cards-left one-hots
        if _hand_size(hl) > 20 or _hand_size(hu) > 17 or _hand_size(hd) > 17:
            raise InvalidCardsError(
                f"DouZero's observation holds at most 20 cards for the landlord and "
                f"17 for a farmer, not {_hand_size(hl)}, {_hand_size(hu)} (landlord_up) "
                f"and {_hand_size(hd)} (landlord_down)")
        # each nibble of the sum stays below 16 (at most 3 x 4), so the sum
        # is exact and the deck check sees the three hands together
        if not ddz_hand_valid(&_CLASSIC.c, total):
            raise InvalidCardsError(f"the three hands hold together "
                                    f"{_deck_problem(total, _CLASSIC)}")
        memset(&self.g, 0, sizeof(dz_state))
        self.g.hand[DZ_LANDLORD] = hl
        self.g.hand[DZ_DOWN] = hd
        self.g.hand[DZ_UP] = hu
        self.dealt = True
        self._legal()
        return 0

    def __reduce__(self):
        # the state's fields, not its bytes (no padding or byte order in a
        # pickle); the legal actions are derived again on loading
        cdef dz_state* g = &self.g
        cdef int i
        return (_douzero_game_from_state, (
            bool(self.dealt), tuple([g.hand[i] for i in range(3)]),
            tuple([g.played[i] for i in range(3)]),
            tuple([g.last_by_seat[i] for i in range(3)]),
            tuple([g.history[i] for i in range(g.nhistory)]), g.seat,
            g.bombs, bool(g.over), bool(g.landlord_won)))

    cdef int _restore(self, bint dealt, hand, played, last_by_seat, history, int seat,
                      int bombs, bint over, bint landlord_won) except -1:
        # The deal made again from what it started with (each seat's hand
        # and what it played), its history played move by move, and then
        # every field compared with the pickle's: a pickle not made by a
        # game (a count a deck lacks, a play no rule allows, fields that do
        # not agree) is refused, not handed to the generator.
        cdef uint64_t start[3]
        cdef uint64_t packed
        cdef int i
        for part in (hand, played, last_by_seat, history):
            # (read by index: a mapping's keys would be looked up)
            if not isinstance(part, (tuple, list)):
                raise TypeError(f"a DouZeroGame pickle holds tuples of packed ints, "
                                f"not {type(part).__name__}")
        if len(hand) != 3 or len(played) != 3 or len(last_by_seat) != 3:
            raise ValueError("a DouZeroGame pickle holds three hands, plays and last moves")
        if len(history) > DZ_HISTORY or not 0 <= seat < 3 or not 0 <= bombs <= 20:
            raise ValueError("a DouZeroGame pickle out of range (history, seat or bombs)")
        if not dealt:
            if (any(hand) or any(played) or any(last_by_seat) or history or seat
                    or bombs or over or landlord_won):
                raise ValueError("a DouZeroGame pickle whose deal is not dealt but has "
                                 "a state")
            return 0
        for i in range(3):
            for packed in (hand[i], played[i]):
                if not ddz_hand_valid(&_CLASSIC.c, packed):
                    raise ValueError(f"a DouZeroGame pickle whose cards are not of one "
                                     f"deck ({_deck_problem(packed, _CLASSIC)})")
            # (two counts of at most 4 each: no carry into the next card)
            start[i] = <uint64_t>hand[i] + <uint64_t>played[i]
            if not ddz_hand_valid(&_CLASSIC.c, start[i]):
                raise ValueError(f"a DouZeroGame pickle whose cards are not of one deck "
                                 f"({_deck_problem(start[i], _CLASSIC)})")
        try:
            self._start(start[DZ_LANDLORD], start[DZ_UP], start[DZ_DOWN])
            for packed in history:
                self._check_live()      # (a history past the deal's end)
                self._play(packed)
        except InvalidCardsError as e:
            raise ValueError(f"a DouZeroGame pickle whose cards are not of one deck "
                             f"({e})") from None
        except ValueError as e:     # a play its position does not allow
            raise ValueError(f"a DouZeroGame pickle whose history is no deal's "
                             f"({e})") from None
        if ([self.g.hand[i] for i in range(3)] != list(hand)
                or [self.g.played[i] for i in range(3)] != list(played)
                or [self.g.last_by_seat[i] for i in range(3)] != list(last_by_seat)
                or (self.g.seat, self.g.bombs, bool(self.g.over), bool(self.g.landlord_won))
                != (seat, bombs, bool(over), bool(landlord_won))):
            raise ValueError("a DouZeroGame pickle whose fields are not what its history "
                             "makes of its hands")
        return 0

    cdef int _legal(self) except -1:
        self.nlegal = dz_legal(&self.s, &_CLASSIC.c, self.g.hand[self.g.seat],
                               dz_last_move(&self.g))
        if self.nlegal < 0:
            raise MemoryError()
        return 0

    cdef int _check_live(self) except -1:
        if not self.dealt:
            raise ValueError("no deal yet: call reset() first")
        if self.g.over:
            raise ValueError("the deal is over: call reset() for a new one")
        return 0

    def play(self, action) -> bool:
        """Play a DouZero card list for the seat to act; True when the deal
        ends. IllegalMoveError (a ValueError) unless it is a legal action."""
        self._check_live()
        self._check_idle()
        return self._play(_dz_pack(action, "action"))

    cdef bint _play(self, uint64_t c) except -1:
        # play()'s move once it is checked to be a move and the game live
        cdef int64_t j
        cdef int s = self.g.seat
        for j in range(self.nlegal):
            if self.s.acts[j] == c:
                break
        else:
            raise IllegalMoveError(
                f"{_dz_list(c)} is not a legal action of "     # (action may be spent)
                f"{_DZ_POSITIONS[s]} (hand {_dz_list(self.g.hand[s])}, "
                f"after {_dz_list(dz_last_move(&self.g))})")
        if self.g.nhistory >= DZ_HISTORY:   # unreachable: see DZ_HISTORY
            raise RuntimeError("the deal's history is full")
        if dz_is_bomb(c):
            self.g.bombs += 1
        self.g.last_by_seat[s] = c
        self.g.history[self.g.nhistory] = c
        self.g.nhistory += 1
        self.g.hand[s] -= c
        self.g.played[s] += c
        if self.g.hand[s] == 0:
            self.g.over = 1
            self.g.landlord_won = s == DZ_LANDLORD
            return True
        self.g.seat = (s + 1) % 3
        self._legal()
        return False

    def observe(self) -> dict:
        """DouZero's get_obs of the seat to act: position, x_batch, z_batch,
        legal_actions, x_no_action, z (the same dtypes and shapes). One
        thread at a time: a play, deal or observe from another thread while
        this one fills its batches is a RuntimeError."""
        self._check_live()
        self._check_idle()
        cdef int8_t x[DZ_X_FARMER]
        cdef int width
        cdef cnp.npy_intp dims[3]
        cdef int64_t n = self.nlegal
        width = dz_x_no_action(&self.g, x)
        dims[0] = width
        cdef cnp.ndarray xa = cnp.PyArray_EMPTY(1, dims, cnp.NPY_INT8, 0)
        memcpy(cnp.PyArray_DATA(xa), x, width)
        dims[0] = 5
        dims[1] = 3 * DZ_CARDS
        cdef cnp.ndarray za = cnp.PyArray_EMPTY(2, dims, cnp.NPY_INT8, 0)
        dz_z(&self.g, <int8_t*>cnp.PyArray_DATA(za))
        dims[0] = n
        dims[1] = width + DZ_CARDS
        cdef cnp.ndarray xb = cnp.PyArray_EMPTY(2, dims, cnp.NPY_FLOAT32, 0)
        dims[1] = 5
        dims[2] = 3 * DZ_CARDS
        cdef cnp.ndarray zb = cnp.PyArray_EMPTY(3, dims, cnp.NPY_FLOAT32, 0)
        self.busy = True
        try:
            with nogil:
                dz_batches(x, width, <const int8_t*>cnp.PyArray_DATA(za), self.s.acts, n,
                           <float*>cnp.PyArray_DATA(xb), <float*>cnp.PyArray_DATA(zb))
        finally:
            self.busy = False
        return {
            "position": _DZ_POSITIONS[self.g.seat],
            "x_batch": xb,
            "z_batch": zb,
            "legal_actions": _dz_lists(self.s.acts, n),
            "x_no_action": xa,
            "z": za,
        }

    @property
    def position(self) -> str:
        """The seat to act (after the end: the seat that played last)."""
        return _DZ_POSITIONS[self.g.seat]

    @property
    def over(self) -> bool:
        return bool(self.g.over)

    @property
    def landlord_won(self) -> bool:
        return bool(self.g.landlord_won)

    @property
    def bomb_num(self) -> int:
        """Bombs and rockets played so far, as DouZero counts them."""
        return self.g.bombs

    @property
    def legal_actions(self) -> list:
        """The current legal actions as DouZero card lists (distinct; none
        before a deal and once it is over)."""
        return _dz_lists(self.s.acts, self._live_legal())

    @property
    def legal_packed(self) -> np.ndarray:
        """The current legal actions as packed cards (a uint64 array; empty
        before a deal and once it is over)."""
        cdef int64_t n = self._live_legal()
        cdef cnp.ndarray out = np.empty(n, dtype=np.uint64)
        if n:
            memcpy(cnp.PyArray_DATA(out), self.s.acts, n * sizeof(uint64_t))
        return out

    cdef int64_t _live_legal(self):
        # the seat to act's actions, of which the end of a deal leaves none
        return self.nlegal if self.dealt and not self.g.over else 0

    def hand(self, position) -> list:
        """The cards a position holds, as a DouZero card list."""
        return _dz_list(self.g.hand[_dz_seat(position)])

    def played(self, position) -> list:
        """The cards a position has played, as a DouZero card list."""
        return _dz_list(self.g.played[_dz_seat(position)])

    @property
    def history(self) -> list:
        """Every action so far (DouZero's card_play_action_seq)."""
        return _dz_lists(self.g.history, self.g.nhistory)


cdef int _dz_seat(object position) except -1:
    try:
        return _DZ_POSITIONS.index(position)
    except ValueError:
        raise ValueError(f"position must be one of {_DZ_POSITIONS}, not {position!r}") from None
include "_douzero_vec.pxi"


def _douzero_game_from_state(dealt, hand, played, last_by_seat, history, seat, bombs,
                             over, landlord_won):
    """A DouZeroGame from its pickle (DouZeroGame.__reduce__)."""
    cdef DouZeroGame game = DouZeroGame()
    try:
        game._restore(dealt, hand, played, last_by_seat, history, seat, bombs, over,
                      landlord_won)
    except OverflowError:
        raise ValueError("a DouZeroGame pickle with a value out of range") from None
    return game
