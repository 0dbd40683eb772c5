# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""ddzfast's compiled core: exact legal-move generation for Dou Dizhu.

The first half of this file is plain C (``noexcept nogil`` functions over
packed hands and caller-supplied buffers, declared in _core.pxd). The second
half wraps it for Python: it converts and validates, and never computes moves
itself.
"""

from libc.stdint cimport uint8_t, uint64_t, int64_t
from libc.stdlib cimport malloc, free, realloc
from libc.string cimport memcpy
from cpython.ref cimport Py_INCREF

cimport cython
cimport numpy as cnp
import numpy as np

from ddzfast.movekind import MoveKind
from ddzfast.rulesets import RULE_SETS

cnp.import_array()

cdef extern from "numpy/arrayobject.h":
    object _new_from_descr "PyArray_NewFromDescr"(
        void* subtype, void* descr, int nd, cnp.npy_intp* dims,
        cnp.npy_intp* strides, void* data, int flags, void* obj)

# --------------------------------------------------------------------------
# C part
# --------------------------------------------------------------------------

cdef uint64_t WBIT = (<uint64_t>1) << 60
cdef uint64_t XBIT = (<uint64_t>1) << 52
cdef uint64_t DBIT = (<uint64_t>1) << 56

# Per-kind shape of the generic kinds (everything but rockets and the
# four+W bombs): q cards of each main rank, chain or not, minimum length,
# highest rank, kicker mode (0 none, 1 single cards, 2 pairs) and kicker units
# per main rank, and whether W may complete the main part.
cdef uint8_t KQ[NKINDS]
cdef uint8_t KCHAIN[NKINDS]
cdef uint8_t KMIN[NKINDS]
cdef uint8_t KMAXR[NKINDS]
cdef uint8_t KMODE[NKINDS]
cdef uint8_t KPER[NKINDS]
cdef uint8_t KWILD[NKINDS]


cdef void _set_shape(int kind, int q, int chain, int min_n, int maxr, int mode,
                     int per, int wild_main):
    KQ[kind] = q
    KCHAIN[kind] = chain
    KMIN[kind] = min_n
    KMAXR[kind] = maxr
    KMODE[kind] = mode
    KPER[kind] = per
    KWILD[kind] = wild_main


_set_shape(K_SINGLE, 1, 0, 1, 14, 0, 0, 0)     # W never plays alone
_set_shape(K_PAIR, 2, 0, 1, 12, 0, 0, 1)
_set_shape(K_TRIPLE, 3, 0, 1, 12, 0, 0, 1)
_set_shape(K_TRIPLE_SINGLE, 3, 0, 1, 12, 1, 1, 1)
_set_shape(K_TRIPLE_PAIR, 3, 0, 1, 12, 2, 1, 1)
_set_shape(K_STRAIGHT, 1, 1, 5, 11, 0, 0, 1)
_set_shape(K_PAIR_STRAIGHT, 2, 1, 3, 11, 0, 0, 1)
_set_shape(K_PLANE, 3, 1, 2, 11, 0, 0, 1)
_set_shape(K_PLANE_SINGLES, 3, 1, 2, 11, 1, 1, 1)
_set_shape(K_PLANE_PAIRS, 3, 1, 2, 11, 2, 1, 1)
_set_shape(K_FOUR_SINGLES, 4, 0, 1, 12, 1, 2, 1)
_set_shape(K_FOUR_PAIRS, 4, 0, 1, 12, 2, 2, 1)
_set_shape(K_BOMB, 4, 0, 1, 12, 0, 0, 1)


cdef extern from *:
    int _ctz "__builtin_ctz"(unsigned int) noexcept nogil
    int _popcount "__builtin_popcount"(unsigned int) noexcept nogil


cdef inline int _nib(uint64_t h, int i) noexcept nogil:
    return <int>((h >> (4 * i)) & 15)


cdef int ddz_size(uint64_t hand) noexcept nogil:
    cdef uint64_t m = 0x0F0F0F0F0F0F0F0FULL
    cdef uint64_t x = (hand & m) + ((hand >> 4) & m)
    return <int>((x * 0x0101010101010101ULL) >> 56)


cdef int ddz_contains(uint64_t hand, uint64_t part) noexcept nogil:
    cdef int i
    for i in range(16):
        if ((part >> (4 * i)) & 15) > ((hand >> (4 * i)) & 15):
            return 0
    return 1


cdef int ddz_hand_valid(const ddz_rules* rules, uint64_t hand) noexcept nogil:
    # Nibbles 0..12 at most 4 (SWAR: x > 4 iff bit 3 of x or of (x & 7) + 3),
    # X, D and W at most 1, W only in a deck that has it.
    cdef uint64_t ranks = hand & 0x000FFFFFFFFFFFFFULL
    cdef uint64_t over = (((ranks & 0x0007777777777777ULL) + 0x0003333333333333ULL)
                          | ranks) & 0x0008888888888888ULL
    if over:
        return 0
    if hand & 0xEEE0000000000000ULL:
        return 0
    if (hand & WBIT) and not rules.has_wild:
        return 0
    return 1


# ---- generation -----------------------------------------------------------

cdef inline unsigned int _ranks_holding(uint64_t hand, int q) noexcept nogil:
    # Bitmask of the ranks 0..14 holding at least q cards, branch-free: with
    # every nibble x <= 7, x >= q iff bit 3 of x + 8 - q is set; then the
    # bits 4i+3 are gathered into bit i.
    cdef uint64_t t = (((hand & 0x0FFFFFFFFFFFFFFFULL)
                        + <uint64_t>(8 - q) * 0x0111111111111111ULL)
                       & 0x0888888888888888ULL) >> 3
    t = (t | (t >> 3)) & 0x0303030303030303ULL
    t = (t | (t >> 6)) & 0x000F000F000F000FULL
    t = (t | (t >> 12)) & 0x000000FF000000FFULL
    t = (t | (t >> 24)) & 0xFFFFULL
    return <unsigned int>t


ctypedef struct gen_t:
    ddz_move* out
    int cap     # int, not int64: the 64-bit stores of _emit cannot alias it
    int n
    int c[16]
    int w
    int size
    int wild_max
    unsigned int ge[5]     # ge[q]: bitmask of ranks 0..14 holding at least q
    unsigned int wmask     # ranks W may stand for in a main part
    # the main part being completed with kickers
    int kind
    int rank
    int length
    int wild
    int np
    int pr[16]
    int pc[16]
    int suffix[17]


cdef inline void _emit(gen_t* g, uint64_t cards, int kind, int rank, int length,
                       int wild) noexcept nogil:
    # Two 64-bit stores: byte-wide stores would alias every field of *g and
    # force the compiler to reload them after each move.
    cdef uint64_t* slot
    if g.n < g.cap:
        slot = <uint64_t*>(g.out + g.n)
        slot[0] = cards
        slot[1] = (<uint64_t>kind | (<uint64_t>rank << 8) | (<uint64_t>length << 16)
                   | (<uint64_t>wild << 24))
    g.n += 1


cdef void _singles(gen_t* g, int idx, int need, uint64_t acc) noexcept nogil:
    # Every multiset of `need` kicker cards from pool[idx:].
    cdef int t, top
    cdef int wild
    if need == 0:
        wild = g.wild
        if wild == WILD_NONE and (acc & WBIT):
            wild = WILD_KICKER
        _emit(g, acc, g.kind, g.rank, g.length, wild)
        return
    if g.suffix[idx] < need:
        return
    top = g.pc[idx] if g.pc[idx] < need else need
    for t in range(top, -1, -1):
        _singles(g, idx + 1, need - t,
                 acc + ((<uint64_t>t) << (4 * g.pr[idx])))


cdef void _pairs(gen_t* g, int idx, int need, uint64_t acc, int wleft) noexcept nogil:
    # Every set of `need` pair kickers of distinct ranks from pool[idx:]; at
    # most one of them is a natural card completed by W.
    cdef uint64_t unit
    if need == 0:
        _emit(g, acc, g.kind, g.rank, g.length,
              WILD_KICKER if (g.wild == WILD_NONE and (acc & WBIT)) else g.wild)
        return
    if g.np - idx < need:
        return
    unit = (<uint64_t>1) << (4 * g.pr[idx])
    if g.pc[idx] >= 2:
        _pairs(g, idx + 1, need - 1, acc + 2 * unit, wleft)
    if wleft:
        _pairs(g, idx + 1, need - 1, acc + unit + WBIT, 0)
    _pairs(g, idx + 1, need, acc, wleft)


cdef void _with_kickers(gen_t* g, int kind, int rank, int length,
                        uint64_t main, int wild_free, int wild) noexcept nogil:
    # Emit the main part `main` with every kicker choice of `kind`.
    cdef int mode = KMODE[kind]
    cdef int need = KPER[kind] * length
    cdef int k, i, j, wi
    cdef unsigned int mainmask = ((1u << length) - 1) << rank
    cdef unsigned int pool
    cdef uint64_t ui
    g.np = 0
    if mode == 1:
        pool = g.ge[1] & ~mainmask
        while pool:
            k = _ctz(pool)
            pool &= pool - 1
            g.pr[g.np] = k
            g.pc[g.np] = g.c[k]
            g.np += 1
        if wild_free:
            g.pr[g.np] = IDX_W
            g.pc[g.np] = 1
            g.np += 1
        if need == 1:
            for i in range(g.np):
                _emit(g, main + ((<uint64_t>1) << (4 * g.pr[i])), kind, rank, length,
                      WILD_KICKER if (wild == WILD_NONE and g.pr[i] == IDX_W) else wild)
            return
        if need == 2:
            for i in range(g.np):
                ui = (<uint64_t>1) << (4 * g.pr[i])
                wi = WILD_KICKER if (wild == WILD_NONE and g.pr[i] == IDX_W) else wild
                if g.pc[i] >= 2:
                    _emit(g, main + 2 * ui, kind, rank, length, wi)
                for j in range(i + 1, g.np):
                    _emit(g, main + ui + ((<uint64_t>1) << (4 * g.pr[j])), kind, rank,
                          length,
                          WILD_KICKER if (wild == WILD_NONE and g.pr[j] == IDX_W) else wi)
            return
        g.kind = kind
        g.rank = rank
        g.length = length
        g.wild = wild
        g.suffix[g.np] = 0
        for i in range(g.np - 1, -1, -1):
            g.suffix[i] = g.suffix[i + 1] + g.pc[i]
        if g.suffix[0] >= need:
            _singles(g, 0, need, main)
    else:
        pool = (g.ge[1] if wild_free else g.ge[2]) & 0x1FFFu & ~mainmask
        while pool:
            k = _ctz(pool)
            pool &= pool - 1
            g.pr[g.np] = k
            g.pc[g.np] = g.c[k]
            g.np += 1
        if g.np >= need:
            g.kind = kind
            g.rank = rank
            g.length = length
            g.wild = wild
            _pairs(g, 0, need, main, wild_free)


cdef inline void _variants(gen_t* g, int kind, int rank, int length, uint64_t natural,
                    int short_rank) noexcept nogil:
    # The main part on ranks rank..rank+length-1: all natural, or W standing
    # for one card of one rank (filling the short rank, if there is one).
    cdef int j
    cdef uint64_t unit
    if KMODE[kind] == 0:
        if short_rank < 0:
            _emit(g, natural, kind, rank, length, WILD_NONE)
            if g.w and KWILD[kind]:
                for j in range(rank, rank + length):
                    if j <= g.wild_max:
                        unit = (<uint64_t>1) << (4 * j)
                        _emit(g, natural - unit + WBIT, kind, rank, length, j)
        else:
            unit = (<uint64_t>1) << (4 * short_rank)
            _emit(g, natural - unit + WBIT, kind, rank, length, short_rank)
        return
    if short_rank < 0:
        _with_kickers(g, kind, rank, length, natural, g.w, WILD_NONE)
        if g.w and KWILD[kind]:
            for j in range(rank, rank + length):
                if j <= g.wild_max:
                    unit = (<uint64_t>1) << (4 * j)
                    _with_kickers(g, kind, rank, length, natural - unit + WBIT, 0, j)
    else:
        unit = (<uint64_t>1) << (4 * short_rank)
        _with_kickers(g, kind, rank, length, natural - unit + WBIT, 0, short_rank)


cdef void _gen_generic(gen_t* g, int kind, int rmin, int nfix) noexcept nogil:
    # Ranks are walked as bitmasks: full = ranks holding q cards, part = ranks
    # one short that W may complete.
    cdef int q = KQ[kind]
    cdef int unit = q + KPER[kind] * KMODE[kind]    # cards per main rank
    cdef int r, n, i, short_rank, maxn
    cdef unsigned int full = g.ge[q]
    cdef unsigned int part = 0
    cdef unsigned int cand, bit
    cdef uint64_t natural
    if rmin > 14:
        return
    if g.w and KWILD[kind]:
        part = g.ge[q - 1] & ~full & g.wmask
    if not KCHAIN[kind]:
        if nfix > 1 or unit > g.size:
            return
        cand = (full | part) & ((2u << KMAXR[kind]) - 1) & ~((1u << rmin) - 1)
        while cand:
            r = _ctz(cand)
            cand &= cand - 1
            _variants(g, kind, r, 1, (<uint64_t>q) << (4 * r),
                      -1 if (full >> r) & 1 else r)
        return
    maxn = g.size // unit
    if nfix:
        if nfix > maxn:
            return
        maxn = nfix
    cand = (full | part) & 0xFFFu & ~((1u << rmin) - 1)
    if _popcount(cand) < KMIN[kind]:
        return
    while cand:
        r = _ctz(cand)
        cand &= cand - 1
        natural = 0
        short_rank = -1
        for n in range(1, min(12 - r, maxn) + 1):
            i = r + n - 1
            bit = 1u << i
            if not (full & bit):
                if short_rank >= 0 or not (part & bit):
                    break
                short_rank = i
            natural += (<uint64_t>q) << (4 * i)
            if n < KMIN[kind] or (nfix and n != nfix):
                continue
            _variants(g, kind, r, n, natural, short_rank)


cdef void _gen_special(gen_t* g, const ddz_rules* rules, int kind, int rmin) noexcept nogil:
    cdef int r
    cdef int stands = rules.wild_joker_stands
    if kind == K_ROCKET and g.c[IDX_X] and g.c[IDX_D]:
        _emit(g, XBIT | DBIT, K_ROCKET, 13, 1, WILD_NONE)
    if rules.wild_joker_kind == kind and g.w:
        if g.c[IDX_X]:
            _emit(g, XBIT | WBIT, kind, 13, 1, IDX_D if stands else WILD_KICKER)
        if g.c[IDX_D]:
            _emit(g, DBIT | WBIT, kind, 13, 1, IDX_X if stands else WILD_KICKER)
    if rules.xdw_kind == kind and g.w and g.c[IDX_X] and g.c[IDX_D]:
        _emit(g, XBIT | DBIT | WBIT, kind, 13, 1, WILD_KICKER)
    if rules.four_wild_kind == kind and g.w:
        for r in range(rmin, 13):
            if g.c[r] == 4:
                _emit(g, ((<uint64_t>4) << (4 * r)) | WBIT, kind, r, 1, WILD_KICKER)


cdef inline void _gen_kind(gen_t* g, const ddz_rules* rules, int kind, int rmin,
                           int nfix) noexcept nogil:
    if KQ[kind]:
        _gen_generic(g, kind, rmin, nfix)
    else:
        _gen_special(g, rules, kind, rmin)


cdef int64_t ddz_legal_moves(const ddz_rules* rules, uint64_t hand,
                             const ddz_move* last, ddz_move* out,
                             int64_t cap) noexcept nogil:
    cdef gen_t g
    cdef int i, kind, tp, tk
    g.out = out
    g.cap = <int>(cap if cap < 0x40000000 else 0x40000000)
    g.n = 0
    for i in range(16):
        g.c[i] = _nib(hand, i)
    g.w = g.c[IDX_W]
    g.size = ddz_size(hand)
    g.wild_max = rules.wild_max_rank if rules.has_wild else -1
    g.wmask = ((2u << g.wild_max) - 1) if rules.has_wild else 0
    g.ge[0] = 0x7FFF
    for i in range(1, 5):
        g.ge[i] = _ranks_holding(hand, i)
    if last == NULL:
        if g.size == g.w:
            # Nothing but W (or nothing at all): W never plays alone.
            if g.w:
                _emit(&g, 0, K_PASS, 0, 0, WILD_NONE)
            return g.n
        for kind in range(1, NKINDS):
            if rules.allowed[kind]:
                _gen_kind(&g, rules, kind, 0, 0)
        return g.n
    _emit(&g, 0, K_PASS, 0, 0, WILD_NONE)
    if last.kind >= NKINDS:
        return g.n
    tp = rules.tier[last.kind]
    if tp == 0 and rules.allowed[last.kind]:
        _gen_kind(&g, rules, last.kind, last.rank + 1, last.length)
    for kind in range(1, NKINDS):
        tk = rules.tier[kind]
        if not rules.allowed[kind] or tk == 0 or tk < tp:
            continue
        if tk > tp:
            _gen_kind(&g, rules, kind, 0, 0)
        elif rules.ranked[kind] and rules.ranked[last.kind]:
            _gen_kind(&g, rules, kind, last.rank + 1, 0)
    return g.n


# ---- checking and comparing ------------------------------------------------

cdef int ddz_check(const ddz_rules* rules, int kind, int rank, int length,
                   uint64_t cards) noexcept nogil:
    cdef int w, q, i, k, x, wild, need, pairs, wleft, mode
    cdef uint64_t main, rest
    if kind < 0 or kind >= NKINDS or not rules.allowed[kind]:
        return -1
    if not ddz_hand_valid(rules, cards):
        return -1
    if kind == K_PASS:
        return WILD_NONE if (cards == 0 and rank == 0 and length == 0) else -1
    if length < 1 or rank < 0:
        return -1
    w = _nib(cards, IDX_W)
    q = KQ[kind]
    if q == 0:
        if length != 1:
            return -1
        if kind == K_ROCKET and rank == 13 and cards == (XBIT | DBIT):
            return WILD_NONE
        if rules.wild_joker_kind == kind and rank == 13:
            if cards == (XBIT | WBIT):
                return IDX_D if rules.wild_joker_stands else WILD_KICKER
            if cards == (DBIT | WBIT):
                return IDX_X if rules.wild_joker_stands else WILD_KICKER
        if rules.xdw_kind == kind and rank == 13 and cards == (XBIT | DBIT | WBIT):
            return WILD_KICKER
        if (rules.four_wild_kind == kind and rank <= 12
                and cards == (((<uint64_t>4) << (4 * rank)) | WBIT)):
            return WILD_KICKER
        return -1
    if KCHAIN[kind]:
        if length < KMIN[kind] or rank + length - 1 > 11:
            return -1
    elif length != 1 or rank > KMAXR[kind]:
        return -1
    wild = WILD_NONE
    main = 0
    for i in range(rank, rank + length):
        x = _nib(cards, i)
        if x != q:
            if (x != q - 1 or not w or wild != WILD_NONE or not KWILD[kind]
                    or not rules.has_wild or i > rules.wild_max_rank):
                return -1
            wild = i
        main += (<uint64_t>q) << (4 * i)
    if wild != WILD_NONE:
        main = main - ((<uint64_t>1) << (4 * wild)) + WBIT
    rest = cards - main
    mode = KMODE[kind]
    need = KPER[kind] * length
    if mode == 0:
        return wild if rest == 0 else -1
    if mode == 1:
        if ddz_size(rest) != need:
            return -1
        return WILD_KICKER if (rest & WBIT) else wild
    # pair kickers: distinct ranks 3..2, at most one completed by W
    if rest & (XBIT | DBIT):
        return -1
    wleft = 1 if (rest & WBIT) else 0
    pairs = 0
    for k in range(13):
        x = _nib(rest, k)
        if x == 0:
            continue
        if x == 2:
            pairs += 1
        elif x == 1 and wleft:
            wleft = 0
            pairs += 1
        else:
            return -1
    if wleft or pairs != need:
        return -1
    return WILD_KICKER if (rest & WBIT) else wild


cdef int64_t ddz_classify(const ddz_rules* rules, uint64_t cards,
                          ddz_move* out, int64_t cap) noexcept nogil:
    cdef int64_t n = 0
    cdef int size = ddz_size(cards)
    cdef int kind, r, length, unit, wild
    for kind in range(NKINDS):
        if not rules.allowed[kind]:
            continue
        if kind == K_PASS:
            if size == 0:
                if n < cap:
                    out[n].cards = 0
                    out[n].kind = K_PASS
                    out[n].rank = 0
                    out[n].length = 0
                    out[n].wild = WILD_NONE
                n += 1
            continue
        if KQ[kind]:
            unit = KQ[kind] + KPER[kind] * KMODE[kind]
            if size == 0 or size % unit:
                continue
            length = size // unit
            if not KCHAIN[kind] and length != 1:
                continue
        else:
            length = 1
        for r in range(15):
            wild = ddz_check(rules, kind, r, length, cards)
            if wild >= 0:
                if n < cap:
                    out[n].cards = cards
                    out[n].kind = <uint8_t>kind
                    out[n].rank = <uint8_t>r
                    out[n].length = <uint8_t>length
                    out[n].wild = <uint8_t>wild
                n += 1
    return n


cdef int ddz_beats(const ddz_rules* rules, const ddz_move* move,
                   const ddz_move* last) noexcept nogil:
    cdef int tm = rules.tier[move.kind]
    cdef int tp = rules.tier[last.kind]
    if move.kind == K_PASS or last.kind == K_PASS:
        return 0
    if tm != tp:
        return 1 if tm > tp else 0
    if tm > 0:
        return 1 if (rules.ranked[move.kind] and rules.ranked[last.kind]
                     and move.rank > last.rank) else 0
    return 1 if (move.kind == last.kind and move.length == last.length
                 and move.rank > last.rank) else 0


# --------------------------------------------------------------------------
# Python part: conversion, validation, thin wrappers
# --------------------------------------------------------------------------

CARD_CHARS = "3456789TJQKA2XDW"
MOVE_DTYPE = np.dtype(
    [("cards", "<u8"), ("kind", "u1"), ("rank", "u1"), ("length", "u1"),
     ("wild", "u1")],
    align=True,
)
if MOVE_DTYPE.itemsize != sizeof(ddz_move):
    raise ImportError("MOVE_DTYPE does not match the core's move layout")

cdef object _KINDS = tuple(MoveKind)
cdef dict _CHAR_INDEX = {c: i for i, c in enumerate(CARD_CHARS)}
_CHAR_INDEX.update({c.lower(): i for i, c in enumerate(CARD_CHARS)})
cdef dict _KIND_BY_NAME = {k.name: k for k in MoveKind}

# Scratch buffer for legal_moves(); the GIL is held while it is in use.
DEF SCRATCH = 8192
cdef ddz_move _scratch[SCRATCH]


cdef uint64_t _parse_cards(str text) except? 0xFFFFFFFFFFFFFFFF:
    cdef uint64_t bits = 0
    cdef Py_ssize_t i = 0, n = len(text)
    cdef object idx
    while i < n:
        ch = text[i]
        if ch == "1" and i + 1 < n and text[i + 1] == "0":
            idx = 7
            i += 2
        elif ch in " ,+":
            i += 1
            continue
        else:
            idx = _CHAR_INDEX.get(ch)
            if idx is None:
                raise ValueError(
                    f"unknown card {ch!r} at position {i} of {text!r}; "
                    f"cards are {CARD_CHARS} ('10' for T, lower case accepted)")
            i += 1
        if (bits >> (4 * <int>idx)) & 15 == 15:
            raise ValueError(f"too many {CARD_CHARS[idx]!r} in {text!r}")
        bits += (<uint64_t>1) << (4 * <int>idx)
    return bits


cdef str _cards_text(uint64_t bits):
    cdef list parts = []
    cdef int i
    for i in range(16):
        parts.append(CARD_CHARS[i] * _nib(bits, i))
    return "".join(parts)


cdef str _deck_problem(uint64_t bits, Rules rules):
    # Why `bits` is not a hand of this deck (None when it is one).
    cdef int i, k
    for i in range(16):
        k = _nib(bits, i)
        if i < 13 and k > 4:
            return f"{k} of {CARD_CHARS[i]!r} (a deck has 4)"
        if i >= 13 and k > 1:
            return f"{k} of {CARD_CHARS[i]!r} (a deck has 1)"
    if rules is not None and (bits & WBIT) and not rules.c.has_wild:
        return f"a wildcard W, which the {rules.name!r} deck does not have"
    return None


cdef uint64_t _to_bits(object value, Rules rules, str what) except? 0xFFFFFFFFFFFFFFFF:
    """Packed cards from a Hand, an int or card text, checked against the deck."""
    cdef uint64_t bits
    cdef str problem
    if type(value) is Hand:
        bits = (<Hand>value).bits
    elif isinstance(value, str):
        bits = _parse_cards(value)
    elif isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        if value < 0 or value >= 1 << 64:
            raise ValueError(f"{what} {value!r} is not a packed hand (0 <= value < 2**64)")
        bits = <uint64_t>value
    elif isinstance(value, Hand):
        bits = (<Hand>value).bits
    else:
        raise TypeError(f"{what} must be a Hand, a packed int or card text, "
                        f"not {type(value).__name__}")
    if rules is None:
        if _deck_problem(bits, None) is None:
            return bits
    elif ddz_hand_valid(&rules.c, bits):
        return bits
    problem = _deck_problem(bits, rules)
    raise ValueError(f"{what} {_cards_text(bits) or '(empty)'!r} holds {problem}")


cdef class Rules:
    """A rule set compiled for the core. ``Rules("classic")`` (or the name alone,
    wherever rules are asked for) gives one of the built-in sets; a new set is
    ``Rules(name, **description)`` with the fields of ddzfast.rulesets."""

    cdef ddz_rules c
    cdef readonly str name
    cdef readonly object description
    cdef readonly int rules_id

    def __init__(self, str name, **description):
        if not description:
            if name not in RULE_SETS:
                raise ValueError(f"unknown rule set {name!r}; built in: "
                                 f"{', '.join(RULE_SETS)}")
            description = RULE_SETS[name]
        self.name = name
        self.description = dict(description)
        self._compile(description)
        self.rules_id = _next_rules_id()

    cdef _compile(self, dict d):
        cdef int k
        def kind_of(value, field):
            if value is None:
                return 0
            if value not in _KIND_BY_NAME:
                raise ValueError(f"{field}: unknown move kind {value!r}")
            return int(_KIND_BY_NAME[value])
        known = {"wildcard", "kinds", "tiers", "ranked", "wild_joker_kind",
                 "wild_joker_stands", "xdw_kind", "four_wild_kind", "kitty",
                 "multipliers", "wild_max_rank", "mult_cap", "service_fee",
                 "deal_cap"}
        unknown = set(d) - known
        if unknown:
            raise ValueError(f"unknown rule-set fields: {sorted(unknown)}")
        for k in range(NKINDS):
            self.c.allowed[k] = 0
            self.c.tier[k] = 0
            self.c.ranked[k] = 0
            self.c.mult[k] = 0
        self.c.allowed[K_PASS] = 1
        for name in d.get("kinds", ()):
            self.c.allowed[kind_of(name, "kinds")] = 1
        for name, tier in d.get("tiers", {}).items():
            if not 0 < tier < 256:
                raise ValueError(f"tiers: {name} has tier {tier}, not in 1..255")
            self.c.tier[kind_of(name, "tiers")] = tier
        for name in d.get("ranked", ()):
            self.c.ranked[kind_of(name, "ranked")] = 1
        self.c.has_wild = 1 if d.get("wildcard", False) else 0
        self.c.wild_joker_kind = kind_of(d.get("wild_joker_kind"), "wild_joker_kind")
        self.c.wild_joker_stands = 1 if d.get("wild_joker_stands", False) else 0
        self.c.xdw_kind = kind_of(d.get("xdw_kind"), "xdw_kind")
        self.c.four_wild_kind = kind_of(d.get("four_wild_kind"), "four_wild_kind")
        self.c.wild_max_rank = d.get("wild_max_rank", 12)
        kitty = d.get("kitty", 4 if self.c.has_wild else 3)
        if not 0 <= kitty <= 4 or kitty != 54 + self.c.has_wild - 51:
            raise ValueError(f"kitty: {kitty} cards, but the deck leaves "
                             f"{54 + self.c.has_wild - 51} after dealing 3 x 17")
        self.c.kitty = kitty
        for name, factor in d.get("multipliers", {}).items():
            if not 1 <= factor <= 255:
                raise ValueError(f"multipliers: {name} has factor {factor}, not in 1..255")
            self.c.mult[kind_of(name, "multipliers")] = factor
        cap = d.get("mult_cap")
        if cap is not None and cap < 1:
            raise ValueError(f"mult_cap must be at least 1 (or None), not {cap}")
        self.c.mult_cap = cap or 0
        fee = d.get("service_fee", 0.0)
        if not 0.0 <= fee < 1.0:
            raise ValueError(f"service_fee is a share of each winner's gain, "
                             f"0 <= fee < 1, not {fee}")
        self.c.service_fee = fee
        deal_cap = d.get("deal_cap")
        if deal_cap is not None and deal_cap <= 0:
            raise ValueError(f"deal_cap must be positive (or None), not {deal_cap}")
        self.c.deal_cap = deal_cap or 0.0
        for k in (self.c.wild_joker_kind, self.c.xdw_kind, self.c.four_wild_kind):
            if k and not self.c.allowed[k]:
                raise ValueError(f"{MoveKind(k).name} is used but not in kinds")
            if k and KQ[k]:
                raise ValueError(f"{MoveKind(k).name} cannot be a wildcard special")
        if (self.c.wild_joker_kind or self.c.xdw_kind or self.c.four_wild_kind) \
                and not self.c.has_wild:
            raise ValueError("wildcard kinds given for a deck without W")

    @property
    def wildcard(self) -> bool:
        """The deck holds one W."""
        return bool(self.c.has_wild)

    @property
    def kinds(self):
        """The move kinds of this rule set, PASS included."""
        return frozenset(k for k in MoveKind if self.c.allowed[k])

    def tier(self, kind) -> int:
        """The bomb tier of a kind (0 for plain moves)."""
        return self.c.tier[int(kind)]

    def with_options(self, **changes) -> Rules:
        """A copy of this rule set with some fields changed, e.g.
        ``get_rules("super").with_options(service_fee=0.05, deal_cap=96)``."""
        return Rules(self.name, **{**self.description, **changes})

    @property
    def kitty(self) -> int:
        """Cards in the kitty."""
        return self.c.kitty

    @property
    def address(self) -> int:
        """The address of the compiled ``ddz_rules`` struct, for C and Numba
        callers (ddzfast.numba). Valid while this Rules object is alive (the
        built-in rule sets live as long as the module)."""
        return <size_t>&self.c

    def __repr__(self):
        return f"Rules({self.name!r})"

    def __reduce__(self):
        if self.name in RULE_SETS and self.description == RULE_SETS[self.name]:
            return (Rules, (self.name,))
        return (_rules_from_description, (self.name, self.description))


def _rules_from_description(name, description):
    return Rules(name, **description)


cdef int _rules_counter = 0


cdef int _next_rules_id():
    global _rules_counter
    _rules_counter += 1
    return _rules_counter - 1


cdef dict _RULES = {name: Rules(name) for name in RULE_SETS}
RULES = dict(_RULES)


cdef object _last_name = None     # the name asked for last, and its Rules
cdef Rules _last_rules = None


cdef inline Rules _get_rules(object rules):
    global _last_name, _last_rules
    if rules is _last_name:
        return _last_rules
    if type(rules) is str:
        r = _RULES.get(rules)
        if r is None:
            raise ValueError(f"unknown rule set {rules!r}; built in: "
                             f"{', '.join(RULE_SETS)}")
        _last_name = rules
        _last_rules = <Rules>r
        return <Rules>r
    if isinstance(rules, Rules):
        return <Rules>rules
    raise TypeError(f"rules must be a rule-set name or a Rules, not {type(rules).__name__}")


def get_rules(rules="classic") -> Rules:
    """The Rules for a name ("classic", "biegang", "super") or a Rules."""
    return _get_rules(rules)


cdef class Hand:
    """An immutable multiset of cards, packed in one uint64 (nibble i = count
    of card index i of RULES.md, nibble 15 = the wildcard W).

    ``Hand("33W45678")``, ``Hand.parse(text, rules)``, ``Hand(packed_int)``;
    ``int(hand)`` and ``str(hand)`` (canonical text) convert back.
    """

    cdef readonly uint64_t bits

    def __init__(self, value=0, rules=None):
        self.bits = _to_bits(value, None if rules is None else _get_rules(rules), "hand")

    @staticmethod
    def parse(str text, rules=None) -> Hand:
        """Parse card text (``'334TTJQKA22XDW'``; ``10`` and lower case accepted).
        With ``rules``, also check it against that rule set's deck."""
        cdef Hand h = Hand.__new__(Hand)
        h.bits = _to_bits(text, None if rules is None else _get_rules(rules), "hand")
        return h

    def validate(self, rules) -> Hand:
        """Return self when it is a hand of the rule set's deck, else raise ValueError."""
        _to_bits(self, _get_rules(rules), "hand")
        return self

    @property
    def counts(self):
        """The 16 counts (card indices 0..14, then W)."""
        return tuple(_nib(self.bits, i) for i in range(16))

    @property
    def wildcards(self) -> int:
        """How many W the hand holds (0 or 1)."""
        return _nib(self.bits, IDX_W)

    def count(self, card) -> int:
        """How many of one card (``'3'``, ``'T'``, ``'10'``, ``'W'`` or an index 0..15)."""
        return _nib(self.bits, _card_index(card))

    def __getitem__(self, card):
        return _nib(self.bits, _card_index(card))

    def __contains__(self, cards):
        if isinstance(cards, (Hand, str, int)):
            return bool(ddz_contains(self.bits, _to_bits(cards, None, "cards")))
        raise TypeError("'in <Hand>' needs cards (a Hand, card text or packed int)")

    def __len__(self):
        return ddz_size(self.bits)

    def __bool__(self):
        return self.bits != 0

    def __iter__(self):
        return iter(_cards_text(self.bits))

    def __int__(self):
        return self.bits

    def __index__(self):
        return self.bits

    def __str__(self):
        return _cards_text(self.bits)

    def __repr__(self):
        return f"Hand({_cards_text(self.bits)!r})"

    def __eq__(self, other):
        if isinstance(other, Hand):
            return self.bits == (<Hand>other).bits
        return NotImplemented

    def __hash__(self):
        return hash(("Hand", self.bits))

    def __add__(self, other):
        cdef Hand o = Hand(other) if not isinstance(other, Hand) else other
        cdef Hand h = Hand.__new__(Hand)
        cdef int i
        for i in range(16):
            if _nib(self.bits, i) + _nib(o.bits, i) > 15:
                raise ValueError(f"too many {CARD_CHARS[i]!r} in {self} + {o}")
        h.bits = _to_bits(self.bits + o.bits, None, "sum")
        return h

    def __sub__(self, other):
        cdef Hand o = Hand(other) if not isinstance(other, Hand) else other
        cdef Hand h = Hand.__new__(Hand)
        if not ddz_contains(self.bits, o.bits):
            raise ValueError(f"{o} is not contained in {self}")
        h.bits = self.bits - o.bits
        return h

    def __reduce__(self):
        return (Hand, (self.bits,))


cdef int _card_index(object card) except -1:
    if isinstance(card, str):
        if card == "10":
            return 7
        idx = _CHAR_INDEX.get(card)
        if idx is not None and len(card) == 1:
            return idx
        raise ValueError(f"unknown card {card!r}; cards are {CARD_CHARS}")
    if isinstance(card, int) and 0 <= card < 16:
        return card
    raise ValueError(f"a card is one of {CARD_CHARS!r} or an index 0..15, not {card!r}")


cdef inline Hand _hand(uint64_t bits):
    cdef Hand h = Hand.__new__(Hand)
    h.bits = bits
    return h


@cython.freelist(64)
cdef class Move:
    """One move: ``kind``, main ``rank`` (a card index), chain ``length``, the
    physical ``cards`` that leave the hand (W included) and ``wild``, the card
    index W stands for in the main part (15: W is a kicker or plays as itself;
    255: no W). Identity (equality, hashing) is (kind, rank, length, cards).

    ``Move(kind, rank, length, cards)`` checks that some rule set has this move
    and fills in ``wild``; ``Move.parse("PAIR/3/1/3W")`` reads the text form
    ``KIND/r/n/cards`` with r as a card character.
    """

    cdef ddz_move m
    cdef uint64_t legal_in    # bit i: checked legal in the rule set of id i

    def __init__(self, kind, rank, length, cards, wild=None):
        cdef int k = _kind_code(kind)
        cdef uint64_t bits = _to_bits(cards, None, "cards")
        cdef int found = -1, v
        cdef Rules r
        if not isinstance(rank, int) or not isinstance(length, int):
            raise TypeError("rank and length must be ints")
        if not 0 <= rank < 16 or not 0 <= length < 16:
            raise ValueError(f"rank {rank} / length {length} out of range 0..15")
        self.m.cards = bits
        self.m.kind = k
        self.m.rank = rank
        self.m.length = length
        self.legal_in = 0
        for r in _RULES.values():
            v = ddz_check(&r.c, k, rank, length, bits)
            if v >= 0:
                found = v
                if r.rules_id < 64:
                    self.legal_in |= (<uint64_t>1) << r.rules_id
        if found < 0:
            raise ValueError(
                f"{_cards_text(bits) or '(no cards)'} is not a {MoveKind(k).name} "
                f"of rank {CARD_CHARS[rank]} and length {length} in any rule set")
        if wild is not None and wild != found:
            raise ValueError(f"wild={wild} does not match the move (W stands for {found})")
        self.m.wild = found

    @staticmethod
    def parse(str text) -> Move:
        """Read ``KIND/r/n/cards`` (``PASS`` alone for a pass)."""
        if text.strip().upper() == "PASS":
            return Move(MoveKind.PASS, 0, 0, 0)
        parts = text.strip().split("/")
        if len(parts) != 4:
            raise ValueError(f"a move is KIND/r/n/cards, not {text!r}")
        kind, r, n, cards = parts
        try:
            length = int(n)
        except ValueError:
            raise ValueError(f"move length {n!r} is not a number in {text!r}") from None
        return Move(kind, _card_index(r), length, cards)

    @property
    def kind(self):
        return _KINDS[self.m.kind]

    @property
    def rank(self) -> int:
        return self.m.rank

    @property
    def length(self) -> int:
        return self.m.length

    @property
    def wild(self) -> int:
        return self.m.wild

    @property
    def cards(self) -> Hand:
        return _hand(self.m.cards)

    @property
    def identity(self):
        """(kind, rank, length, packed cards): what makes two moves the same."""
        return (self.m.kind, self.m.rank, self.m.length, self.m.cards)

    def __eq__(self, other):
        cdef Move o
        if not isinstance(other, Move):
            return NotImplemented
        o = <Move>other
        return (self.m.kind == o.m.kind and self.m.rank == o.m.rank
                and self.m.length == o.m.length and self.m.cards == o.m.cards)

    def __hash__(self):
        return hash((self.m.kind, self.m.rank, self.m.length, self.m.cards))

    def __str__(self):
        cdef str text = _KINDS[self.m.kind].name
        if self.m.kind == K_PASS:
            return text
        text += " " + _cards_text(self.m.cards)
        if self.m.wild == WILD_KICKER:
            text += " (W as itself)" if KQ[self.m.kind] == 0 else " (W as kicker)"
        elif self.m.wild != WILD_NONE:
            text += f" (W as {CARD_CHARS[self.m.wild]})"
        return text

    def __repr__(self):
        if self.m.kind == K_PASS:
            return "Move.parse('PASS')"
        return (f"Move.parse('{_KINDS[self.m.kind].name}/{CARD_CHARS[self.m.rank]}"
                f"/{self.m.length}/{_cards_text(self.m.cards)}')")

    def __reduce__(self):
        return (Move, (int(self.m.kind), self.m.rank, self.m.length, self.m.cards))


cdef int _kind_code(object kind) except -1:
    if isinstance(kind, str):
        k = _KIND_BY_NAME.get(kind.upper())
        if k is None:
            raise ValueError(f"unknown move kind {kind!r}")
        return int(k)
    if isinstance(kind, int) and 0 <= kind < NKINDS:
        return int(kind)
    raise ValueError(f"unknown move kind {kind!r}")


cdef inline Move _move(const ddz_move* m, Rules rules):
    cdef Move mv = Move.__new__(Move)
    mv.m = m[0]
    mv.legal_in = ((<uint64_t>1) << rules.rules_id) if rules.rules_id < 64 else 0
    return mv


cdef int _move_struct(object move, Rules rules, ddz_move* out, str what) except -1:
    """Read a Move (or a MOVE_DTYPE row) into `out`, checking it is a legal move
    of the rule set."""
    cdef Move mv
    cdef int wild
    cdef uint64_t bit
    if type(move) is Move:
        mv = <Move>move
        out[0] = mv.m
        bit = ((<uint64_t>1) << rules.rules_id) if rules.rules_id < 64 else 0
        if mv.legal_in & bit:
            return 0
        wild = ddz_check(&rules.c, out.kind, out.rank, out.length, out.cards)
        if wild < 0:
            raise ValueError(f"{what} {mv} is not a legal move in {rules.name!r}")
        mv.legal_in |= bit
        return 0
    if isinstance(move, np.void) and move.dtype == MOVE_DTYPE:
        out.cards = <uint64_t>move["cards"]
        out.kind = <uint8_t>move["kind"]
        out.rank = <uint8_t>move["rank"]
        out.length = <uint8_t>move["length"]
        out.wild = <uint8_t>move["wild"]
        wild = ddz_check(&rules.c, out.kind, out.rank, out.length, out.cards)
        if wild < 0:
            raise ValueError(f"{what} (row {move}) is not a legal move in {rules.name!r}")
        out.wild = wild
        return 0
    if isinstance(move, Move):
        return _move_struct(Move(move.kind, move.rank, move.length, move.cards),
                            rules, out, what)
    raise TypeError(f"{what} must be a Move or a MOVE_DTYPE row, not {type(move).__name__}")


cdef int _last_struct(object last, Rules rules, ddz_move* out) except -1:
    _move_struct(last, rules, out, "last move")
    if out.kind == K_PASS:
        raise ValueError("last must be the last non-pass move, or None when leading")
    return 0


@cython.no_gc     # refers only to a Rules: no cycles through it
@cython.freelist(16)
cdef class MoveList:
    """The moves of one query: a thin object over a MOVE_DTYPE array
    (``.array``), with ``len``, indexing and iteration (yielding Move) and
    ``in`` (by move identity)."""

    cdef ddz_move* data
    cdef Py_ssize_t n
    cdef Rules rules

    def __dealloc__(self):
        free(self.data)

    @property
    def array(self):
        """The moves as a read-only numpy array of MOVE_DTYPE: a view of this
        list's buffer (each access makes a new view; none is cached, so that
        the list and its array never form a reference cycle)."""
        cdef cnp.npy_intp dims[1]
        dims[0] = self.n
        Py_INCREF(MOVE_DTYPE)    # PyArray_NewFromDescr steals a reference
        a = _new_from_descr(
            <void*>np.ndarray, <void*>MOVE_DTYPE, 1, dims, NULL,
            <void*>self.data, cnp.NPY_ARRAY_C_CONTIGUOUS | cnp.NPY_ARRAY_ALIGNED,
            NULL)
        Py_INCREF(self)          # PyArray_SetBaseObject steals a reference
        cnp.PyArray_SetBaseObject(<cnp.ndarray>a, self)
        return a

    @property
    def rules(self) -> Rules:
        return self.rules

    def __len__(self):
        return self.n

    def __getitem__(self, index):
        cdef Py_ssize_t i
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self.n))]
        i = index
        if i < 0:
            i += self.n
        if not 0 <= i < self.n:
            raise IndexError(f"move index {index} out of range for {self.n} moves")
        return _move(&self.data[i], self.rules)

    def __iter__(self):
        cdef Py_ssize_t i
        for i in range(self.n):
            yield _move(&self.data[i], self.rules)

    def __contains__(self, move):
        cdef Move mv
        cdef Py_ssize_t i
        if not isinstance(move, Move):
            return False
        mv = <Move>move
        for i in range(self.n):
            if (self.data[i].cards == mv.m.cards and self.data[i].kind == mv.m.kind
                    and self.data[i].rank == mv.m.rank
                    and self.data[i].length == mv.m.length):
                return True
        return False

    def __repr__(self):
        shown = ", ".join(str(m) for m in self[:4])
        more = f", ... ({self.n} moves)" if self.n > 4 else ""
        return f"<MoveList [{shown}{more}]>"


cdef MoveList _move_list(const ddz_move* src, int64_t n, Rules rules):
    cdef MoveList ml = MoveList.__new__(MoveList)
    ml.data = <ddz_move*>malloc((n if n > 0 else 1) * sizeof(ddz_move))
    if ml.data == NULL:
        raise MemoryError()
    if n:
        memcpy(ml.data, src, n * sizeof(ddz_move))
    ml.n = n
    ml.rules = rules
    return ml


def legal_moves(hand, last=None, rules="classic") -> MoveList:
    """The legal moves of ``hand`` (RULES.md section 4), each move identity once.

    ``last=None`` means leading: every move but PASS (a hand of only W gets
    just PASS). Otherwise ``last`` is the last non-pass Move (or MOVE_DTYPE row)
    and the result is PASS plus every move that beats it.
    """
    cdef Rules r = _get_rules(rules)
    cdef uint64_t bits = _to_bits(hand, r, "hand")
    cdef ddz_move lm
    cdef const ddz_move* lp = NULL
    cdef int64_t n
    cdef ddz_move* buf
    cdef MoveList ml
    if last is not None:
        _last_struct(last, r, &lm)
        lp = &lm
    n = ddz_legal_moves(&r.c, bits, lp, _scratch, SCRATCH)
    if n <= SCRATCH:
        return _move_list(_scratch, n, r)
    buf = <ddz_move*>malloc(n * sizeof(ddz_move))
    if buf == NULL:
        raise MemoryError()
    ddz_legal_moves(&r.c, bits, lp, buf, n)
    ml = MoveList.__new__(MoveList)
    ml.data = buf
    ml.n = n
    ml.rules = r
    return ml


cdef object _MOVE_DESCR = MOVE_DTYPE


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


def legal_moves_into(hand, last, rules, cnp.ndarray out not None) -> int:
    """Write the legal moves of ``hand`` into ``out`` (a C-contiguous, writable
    1-d MOVE_DTYPE array) and return how many there are. Nothing is allocated;
    a buffer too small for the position raises ValueError with the count
    needed. 4096 entries hold every hand of up to 21 cards found so far (the
    largest: 2,525 moves); a whole deck has up to about 435,000."""
    cdef Rules r = _get_rules(rules)
    cdef uint64_t bits
    cdef ddz_move lm
    cdef const ddz_move* lp = NULL
    cdef int64_t n, cap
    if type(hand) is int:
        bits = _int_bits(hand, r)
    else:
        bits = _to_bits(hand, r, "hand")
    if last is not None:
        _last_struct(last, r, &lm)
        lp = &lm
    if <object>cnp.PyArray_DESCR(out) is not _MOVE_DESCR:
        if out.dtype != MOVE_DTYPE:
            raise TypeError(f"out must have dtype MOVE_DTYPE, not {out.dtype}")
    if (cnp.PyArray_NDIM(out) != 1 or not cnp.PyArray_IS_C_CONTIGUOUS(out)
            or not cnp.PyArray_ISWRITEABLE(out)):
        raise ValueError("out must be a writable, C-contiguous 1-d array")
    cap = cnp.PyArray_DIM(out, 0)
    n = ddz_legal_moves(&r.c, bits, lp, <ddz_move*>cnp.PyArray_DATA(out), cap)
    if n > cap:
        raise ValueError(f"out holds {cap} moves but this position has {n} "
                         f"legal moves; pass a larger buffer")
    return n


def classify(cards, rules="classic") -> MoveList:
    """Every reading of exactly ``cards`` played as one move (empty when the
    cards are not a move). The way to turn an opponent's cards into ``last``."""
    cdef Rules r = _get_rules(rules)
    cdef uint64_t bits = _to_bits(cards, r, "cards")
    # at most one reading per (kind, rank): the card count fixes the length
    cdef ddz_move buf[NKINDS * 15]
    cdef int64_t n = ddz_classify(&r.c, bits, buf, NKINDS * 15)
    return _move_list(buf, n, r)


def beats(move, last, rules="classic") -> bool:
    """Whether ``move`` beats ``last`` (a non-pass move), RULES.md section 4.
    Both must be legal moves of the rule set; PASS beats nothing."""
    cdef Rules r = _get_rules(rules)
    cdef ddz_move m, p
    _move_struct(move, r, &m, "move")
    _last_struct(last, r, &p)
    return bool(ddz_beats(&r.c, &m, &p))


def play(hand, move) -> Hand:
    """The hand left after playing ``move`` (a Move, MOVE_DTYPE row or cards);
    ValueError when its cards are not all in the hand."""
    cdef uint64_t h = _to_bits(hand, None, "hand")
    cdef uint64_t c
    if isinstance(move, Move):
        c = (<Move>move).m.cards
    elif isinstance(move, np.void) and move.dtype == MOVE_DTYPE:
        c = _to_bits(int(move["cards"]), None, "move cards")
    else:
        c = _to_bits(move, None, "move cards")
    if not ddz_contains(h, c):
        raise ValueError(f"cannot play {_cards_text(c)} from {_cards_text(h)}: "
                         f"not all of its cards are in the hand")
    return _hand(h - c)


# --------------------------------------------------------------------------
# Batches
# --------------------------------------------------------------------------

cdef extern from *:
    """
    #include <stdlib.h>
    #include <string.h>
    #if defined(__linux__)
    #include <sys/mman.h>
    #endif
    /* Large move buffers ask for transparent huge pages: first-touch page
       faults, not generation, otherwise dominate a big batch. */
    static void* ddz_alloc_big(size_t size) {
    #if defined(__linux__) && defined(MADV_HUGEPAGE)
        if (size >= ((size_t)4 << 20)) {
            void* p = NULL;
            if (posix_memalign(&p, (size_t)2 << 20, size) != 0) return NULL;
            madvise(p, size, MADV_HUGEPAGE);
            return p;
        }
    #endif
        return malloc(size);
    }
    """
    void* ddz_alloc_big(size_t size) nogil


cdef class _Chunk:
    """The moves of hands[start:stop], generated without the GIL into a buffer
    that grows as needed."""

    cdef ddz_move* buf
    cdef int64_t size
    cdef int64_t cap
    cdef int failed

    def __dealloc__(self):
        free(self.buf)

    cdef object as_array(self):
        """The generated moves as a MOVE_DTYPE array that owns this chunk."""
        cdef cnp.npy_intp dims[1]
        cdef ddz_move* shrunk
        if self.size and self.size < self.cap:
            shrunk = <ddz_move*>realloc(self.buf, self.size * sizeof(ddz_move))
            if shrunk != NULL:
                self.buf = shrunk
                self.cap = self.size
        dims[0] = self.size
        Py_INCREF(MOVE_DTYPE)    # PyArray_NewFromDescr steals a reference
        a = _new_from_descr(
            <void*>np.ndarray, <void*>MOVE_DTYPE, 1, dims, NULL, <void*>self.buf,
            cnp.NPY_ARRAY_C_CONTIGUOUS | cnp.NPY_ARRAY_ALIGNED | cnp.NPY_ARRAY_WRITEABLE,
            NULL)
        Py_INCREF(self)          # PyArray_SetBaseObject steals a reference
        cnp.PyArray_SetBaseObject(<cnp.ndarray>a, self)
        return a

    cdef void run(self, const ddz_rules* rules, const uint64_t* hands,
                  const ddz_move* lasts, int64_t* counts, Py_ssize_t start,
                  Py_ssize_t stop) noexcept nogil:
        cdef Py_ssize_t i
        cdef int64_t n, newcap
        cdef const ddz_move* last
        cdef ddz_move* grown
        if self.cap == 0 and stop > start:
            # a first guess of 64 moves a position; the loop grows it as needed
            self.buf = <ddz_move*>ddz_alloc_big((stop - start) * 64 * sizeof(ddz_move))
            if self.buf == NULL:
                self.failed = 1
                return
            self.cap = (stop - start) * 64
        for i in range(start, stop):
            last = NULL
            if lasts != NULL and lasts[i].kind != K_PASS:
                last = &lasts[i]
            while True:
                n = ddz_legal_moves(rules, hands[i], last, self.buf + self.size,
                                    self.cap - self.size)
                if n <= self.cap - self.size:
                    break
                # room for the rest at the mean size so far, at least double
                newcap = self.size + n + (stop - i) * ((self.size + n) // (i - start + 1))
                if newcap < self.cap * 2:
                    newcap = self.cap * 2
                grown = <ddz_move*>ddz_alloc_big(newcap * sizeof(ddz_move))
                if grown == NULL:
                    self.failed = 1
                    return
                memcpy(grown, self.buf, self.size * sizeof(ddz_move))
                free(self.buf)
                self.buf = grown
                self.cap = newcap
            counts[i] = n
            self.size += n


def _run_chunk(_Chunk chunk, Rules rules, cnp.ndarray hands, lasts,
               cnp.ndarray counts, Py_ssize_t start, Py_ssize_t stop):
    cdef const uint64_t* hp = <const uint64_t*>cnp.PyArray_DATA(hands)
    cdef const ddz_move* lp = NULL
    cdef int64_t* cp = <int64_t*>cnp.PyArray_DATA(counts)
    if lasts is not None:
        lp = <const ddz_move*>cnp.PyArray_DATA(<cnp.ndarray>lasts)
    with nogil:
        chunk.run(&rules.c, hp, lp, cp, start, stop)


def legal_moves_batch(hands, lasts=None, rules="classic", int threads=1):
    """The legal moves of many positions at once, in CSR form.

    ``hands``: packed hands, a 1-d array-like of uint64 (N). ``lasts``: None
    (every position leads) or a MOVE_DTYPE array of N rows, a PASS row meaning
    that position leads. Returns ``(offsets, moves)``: ``offsets`` int64 of
    N + 1 and ``moves`` MOVE_DTYPE, the moves of position i being
    ``moves[offsets[i]:offsets[i + 1]]``, each list exactly as
    ``legal_moves`` gives it. Generation runs without the GIL, on ``threads``
    threads over contiguous ranges of positions.
    """
    cdef Rules r = _get_rules(rules)
    cdef cnp.ndarray h, counts, offsets, moves
    cdef cnp.ndarray la = None
    cdef Py_ssize_t n, i, t, start
    cdef const uint64_t* hp
    cdef const ddz_move* lp
    cdef Py_ssize_t bad = -1
    cdef _Chunk chunk
    if threads < 1:
        raise ValueError(f"threads must be at least 1, not {threads}")
    h = _as_hand_array(hands)
    n = cnp.PyArray_DIM(h, 0)
    hp = <const uint64_t*>cnp.PyArray_DATA(h)
    with nogil:
        for i in range(n):
            if not ddz_hand_valid(&r.c, hp[i]):
                bad = i
                break
    if bad >= 0:
        _to_bits(int(h[bad]), r, f"hands[{bad}]")
    if lasts is not None:
        la = np.ascontiguousarray(lasts)
        if la.dtype != MOVE_DTYPE or la.ndim != 1:
            raise TypeError("lasts must be a 1-d MOVE_DTYPE array (or None)")
        if cnp.PyArray_DIM(la, 0) != n:
            raise ValueError(f"lasts has {cnp.PyArray_DIM(la, 0)} rows for {n} hands")
        lp = <const ddz_move*>cnp.PyArray_DATA(la)
        with nogil:
            for i in range(n):
                if lp[i].kind != K_PASS and ddz_check(
                        &r.c, lp[i].kind, lp[i].rank, lp[i].length, lp[i].cards) < 0:
                    bad = i
                    break
        if bad >= 0:
            raise ValueError(f"lasts[{bad}] {la[bad]} is not a legal move in {r.name!r}")
    counts = np.zeros(n, dtype=np.int64)
    threads = max(1, min(threads, n))
    bounds = [n * t // threads for t in range(threads + 1)]
    chunks = [_Chunk() for _ in range(threads)]
    _parallel(threads, _run_chunk,
              [(chunks[t], r, h, la, counts, bounds[t], bounds[t + 1])
               for t in range(threads)])
    for chunk in chunks:
        if chunk.failed:
            raise MemoryError("out of memory generating a batch of moves")
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    if threads == 1:
        # The chunk's buffer becomes the result: no copy of what may be
        # hundreds of megabytes.
        return offsets, (<_Chunk>chunks[0]).as_array()
    moves = np.empty(offsets[n], dtype=MOVE_DTYPE)
    starts = [int(offsets[b]) for b in bounds[:-1]]
    _parallel(threads, _copy_chunk,
              [(chunks[t], moves, starts[t]) for t in range(threads)])
    return offsets, moves


def _parallel(int threads, fn, list args):
    # fn(*args[0]) on this thread, the others on their own threads; fn
    # releases the GIL for its work.
    if threads == 1:
        fn(*args[0])
        return
    import threading
    workers = [threading.Thread(target=fn, args=a) for a in args[1:]]
    for w in workers:
        w.start()
    try:
        fn(*args[0])
    finally:
        for w in workers:
            w.join()


def _copy_chunk(_Chunk chunk, cnp.ndarray moves, Py_ssize_t start):
    cdef char* dst = <char*>cnp.PyArray_DATA(moves) + start * sizeof(ddz_move)
    cdef size_t size = chunk.size * sizeof(ddz_move)
    if size:
        with nogil:
            memcpy(dst, chunk.buf, size)


cdef cnp.ndarray _as_hand_array(object hands):
    cdef cnp.ndarray a
    if isinstance(hands, np.ndarray):
        a = <cnp.ndarray>hands
        if a.dtype.kind not in "iu":
            raise TypeError(f"hands must be an integer array of packed hands, not {a.dtype}")
        if a.dtype.kind == "i" and a.size and a.min() < 0:
            raise ValueError("hands holds a negative value: not a packed hand")
    else:
        hands = [int(x) if isinstance(x, Hand) else x for x in hands]
        for x in hands:
            if not isinstance(x, (int, np.integer)) or isinstance(x, bool):
                raise TypeError(f"hands must hold packed ints or Hands, not {type(x).__name__}")
            if not 0 <= x < (1 << 64):
                raise ValueError(f"{x!r} is not a packed hand (0 <= value < 2**64)")
        a = np.array(hands, dtype=np.uint64)
    if a.ndim != 1:
        raise ValueError(f"hands must be 1-d, not of shape {(<object>a).shape}")
    return np.ascontiguousarray(a, dtype=np.uint64)


include "_engine.pxi"
include "_game.pxi"
