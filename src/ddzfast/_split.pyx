# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Exact hand decomposition (拆牌, 最少手数): the fewest legal leading moves
of a rule set whose cards partition a hand, in C without the GIL.

The search (ddz_min_plays) generates the leading moves of the hand once
(ddz_legal_moves of ddzfast._core), keeps their distinct card sets grouped
by lowest card, and solves f(h) = 1 + min f(h - s) over the sets s within h
that hold the lowest card of h, memoised in a transposition table from
sub-hands to their value and best set (as the move that plays it). It is a
branch and bound: a sub-hand is searched only for splits shorter than the
best found so far (the table keeps exact values and lower bounds), and a
part that must be one move is looked up in a hash of the sets instead of
searched. A leading move's legality depends on its own cards alone, so the
moves of any part of the hand are the hand's moves that fit in it: one
generation serves the whole search, and the remainders of plays_left. The
sets are searched in an order of their cards alone, and each is played by
its least reading, so a hand's partition does not depend on the root (the
larger hand) it is searched under.
"""

from libc.stdint cimport int16_t, int32_t, uint32_t, uint64_t, int64_t
from libc.stdlib cimport malloc, free, calloc, realloc
from libc.string cimport memset, memcmp, memcpy
cimport numpy as cnp

import numpy as np
import threading

from ddzfast._core cimport (ddz_move, ddz_rules, ddz_legal_moves, ddz_hand_valid,
                            _hand_contains, _hand_size, _ctz, K_PASS,
                            Rules, Move, MoveList, _get_rules, _need_wild, _to_bits,
                            _move_list, _move_struct, _cards_text, DDZ_MOVE_BUFFER,
                            ddz_grow_scratch, _as_hand_array, _is_integral)
from ddzfast._core import MOVE_DTYPE, _parallel, _sliced
from ddzfast.constants import MAX_HAND, check_ordered, check_threads, worker_count

cnp.import_array()

cdef enum:
    NONE_VALUE = 100            # "cannot be emptied" (above any hand's plays)
    FIRST_SLOTS = 1 << 12       # the table's slots in use when a root is prepared
    FIRST_SET_SLOTS = 1 << 8
    KEEP_SLOTS = 1 << 16        # tables allocated past this are freed when the root changes
    KEEP_MOVES = 1 << 17        # so are the move and set buffers past this many
    ORDER_KEYS = 16 * 64        # _order_key's values
    MAX_SETS = 0x7FFFFFFF       # moves a root may have: an index and an entry's
                                # best move + 1 hold any below it
    MAX_ROOT_MOVES = 1 << 24    # moves a root may have: its buffers (about 64
                                # bytes a move at the peak) stay near 1 GB


# A table entry (ddz_split_ctx.vals) is a uint64: the value << 33, exact << 32
# and the best set's move + 1 (0: none) in the low 32 bits, which hold any
# move index of a root (_prepare refuses more than MAX_SETS moves): a large
# tiandi hand has tens of millions of moves, more than fewer bits could index.
cdef inline uint64_t _entry(int value, bint exact, int64_t best) noexcept nogil:
    return (<uint64_t>value << 33) | (<uint64_t>exact << 32) | <uint64_t>(best + 1)


cdef inline int _entry_value(uint64_t e) noexcept nogil:
    return <int>(e >> 33)


cdef inline bint _entry_exact(uint64_t e) noexcept nogil:
    return (e >> 32) & 1


cdef inline int64_t _entry_best(uint64_t e) noexcept nogil:
    return <int64_t>(e & 0xFFFFFFFFULL) - 1


cdef inline int _lowest(uint64_t h) noexcept nogil:
    # the lowest card index held by h != 0
    cdef unsigned int lo = <unsigned int>(h & 0xFFFFFFFFULL)
    if lo:
        return _ctz(lo) >> 2
    return 8 + (_ctz(<unsigned int>(h >> 32)) >> 2)


cdef inline uint64_t _slot(uint64_t h, uint64_t mask) noexcept nogil:
    return ((h * 0x9E3779B97F4A7C15ULL) >> 29) & mask


cdef int ddz_split_init(ddz_split_ctx* ctx) noexcept nogil:
    memset(ctx, 0, sizeof(ddz_split_ctx))
    ctx.max_work = DDZ_SPLIT_MAX_WORK
    ctx.moves = <ddz_move*>malloc(DDZ_MOVE_BUFFER * sizeof(ddz_move))
    ctx.sets = <ddz_split_set*>malloc(2 * DDZ_MOVE_BUFFER * sizeof(ddz_split_set))
    ctx.keys = <uint64_t*>calloc(FIRST_SLOTS, sizeof(uint64_t))
    ctx.vals = <uint64_t*>malloc(FIRST_SLOTS * sizeof(uint64_t))
    ctx.skeys = <uint64_t*>calloc(FIRST_SET_SLOTS, sizeof(uint64_t))
    ctx.sidx = <int32_t*>malloc(FIRST_SET_SLOTS * sizeof(int32_t))
    ctx.smask = FIRST_SET_SLOTS - 1
    ctx.scap = FIRST_SET_SLOTS
    ctx.tcap = FIRST_SLOTS
    if ctx.moves == NULL or ctx.sets == NULL or ctx.keys == NULL or ctx.vals == NULL \
            or ctx.skeys == NULL or ctx.sidx == NULL:
        ddz_split_free(ctx)
        return 0
    ctx.moves_cap = DDZ_MOVE_BUFFER
    ctx.sets_cap = 2 * DDZ_MOVE_BUFFER
    ctx.tmask = FIRST_SLOTS - 1
    return 1


cdef void ddz_split_free(ddz_split_ctx* ctx) noexcept nogil:
    free(ctx.moves)
    free(ctx.sets)
    free(ctx.keys)
    free(ctx.vals)
    free(ctx.skeys)
    free(ctx.sidx)
    ctx.skeys = NULL
    ctx.sidx = NULL
    ctx.moves = NULL
    ctx.sets = NULL
    ctx.keys = NULL
    ctx.vals = NULL
    ctx.root = 0


cdef inline int _order_key(uint64_t cards) noexcept nogil:
    # sets in search order: lowest card up, then size down
    return _lowest(cards) * 64 + 63 - _hand_size(cards)


cdef int _slots_reset(uint64_t** keys, void** vals, size_t val_size, uint64_t* cap,
                      uint64_t slots) noexcept nogil:
    # An open-addressing table (keys, 0 = empty, and values of val_size
    # bytes) emptied to `slots` slots, allocated anew only when *cap is too
    # small or far too large; 0, or -1 (the table as it was) when out of memory.
    cdef uint64_t* k
    cdef void* v
    if slots > cap[0] or cap[0] > KEEP_SLOTS:
        k = <uint64_t*>calloc(slots, sizeof(uint64_t))
        v = malloc(slots * val_size)
        if k == NULL or v == NULL:
            free(k)
            free(v)
            return -1
        free(keys[0])
        free(vals[0])
        keys[0] = k
        vals[0] = v
        cap[0] = slots
    else:
        memset(keys[0], 0, slots * sizeof(uint64_t))
    return 0


cdef int _table_reset(ddz_split_ctx* ctx, uint64_t slots) noexcept nogil:
    # an empty table of `slots` slots in use (allocated anew only when the
    # allocation is too small, or far too large)
    if _slots_reset(&ctx.keys, <void**>&ctx.vals, sizeof(uint64_t), &ctx.tcap,
                    slots) < 0:
        return DDZ_SPLIT_NOMEM
    ctx.tmask = slots - 1
    ctx.tused = 0
    return 0


cdef int _buffers_reset(ddz_split_ctx* ctx) noexcept nogil:
    # the move and set buffers back to their first size, once a root far
    # larger than a hand (a whole deck: up to tens of millions of moves) has
    # grown them: kept, they would hold that memory for the thread's life
    cdef ddz_move* m = <ddz_move*>realloc(ctx.moves, DDZ_MOVE_BUFFER * sizeof(ddz_move))
    cdef ddz_split_set* st
    if m == NULL:
        return DDZ_SPLIT_NOMEM
    ctx.moves = m
    ctx.moves_cap = DDZ_MOVE_BUFFER
    st = <ddz_split_set*>realloc(ctx.sets, 2 * DDZ_MOVE_BUFFER * sizeof(ddz_split_set))
    if st == NULL:
        return DDZ_SPLIT_NOMEM
    ctx.sets = st
    ctx.sets_cap = 2 * DDZ_MOVE_BUFFER
    return 0


cdef inline uint64_t _reading(const ddz_move* m) noexcept nogil:
    # a move's reading of its cards as one number, to choose one per card set
    return ((<uint64_t>m.kind << 56) | (<uint64_t>m.rank << 48)
            | (<uint64_t>m.length << 40) | (<uint64_t>m.wild << 32) | m.substitutes)


cdef inline uint32_t _nibble_sum(uint64_t x) noexcept nogil:
    x = (x & 0x0F0F0F0F0F0F0F0FULL) + ((x >> 4) & 0x0F0F0F0F0F0F0F0FULL)
    return <uint32_t>((x * 0x0101010101010101ULL) >> 56)


cdef inline uint64_t _wild_cards(const ddz_rules* rules) noexcept nogil:
    # the nibbles of a packed hand that hold wildcards: W and the laizi ranks
    cdef uint64_t m = (<uint64_t>0xF << 60) if rules.has_wild else 0
    cdef int j
    for j in range(15):
        if rules.wild_mask >> j & 1:
            m |= <uint64_t>0xF << (4 * j)
    return m


cdef inline bint _set_before(const ddz_split_set* a, const ddz_split_set* b) noexcept nogil:
    # within a group: by order, then by the cards as a number (the lower
    # kickers first, as the generators list them)
    if a.order != b.order:
        return a.order < b.order
    return a.cards < b.cards


cdef enum:
    SORT_RUN = 16               # sets _sort_sets orders by insertion before merging


cdef void _sort_sets(ddz_split_set* s, int64_t n, ddz_split_set* tmp) noexcept nogil:
    # s[:n] in the order of _set_before, stable, with tmp[:n] as scratch:
    # runs of SORT_RUN by insertion, then merges of runs twice as long each
    # pass. The sets come nearly in order (the generator's), so most
    # insertions move little and most merges are copies; a whole deck's
    # group of millions of sets still takes n log n, in sequential passes.
    cdef int64_t lo, mid, hi, a, b, o, width, end
    cdef ddz_split_set t
    cdef ddz_split_set* src = s
    cdef ddz_split_set* dst = tmp
    cdef ddz_split_set* swap
    lo = 0
    while lo < n:
        hi = min(lo + SORT_RUN, n)
        for end in range(lo + 1, hi):
            t = s[end]
            a = end
            while a > lo and _set_before(&t, &s[a - 1]):
                s[a] = s[a - 1]
                a -= 1
            s[a] = t
        lo = hi
    width = SORT_RUN
    while width < n:
        lo = -2 * width
        while True:
            lo += 2 * width
            if lo >= n:
                break
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            if mid >= hi or not _set_before(&src[mid], &src[mid - 1]):
                memcpy(dst + lo, src + lo, (hi - lo) * sizeof(ddz_split_set))
                continue
            a = lo
            b = mid
            o = lo
            while a < mid and b < hi:
                if _set_before(&src[b], &src[a]):
                    dst[o] = src[b]
                    b += 1
                else:
                    dst[o] = src[a]
                    a += 1
                o += 1
            if a < mid:
                memcpy(dst + o, src + a, (mid - a) * sizeof(ddz_split_set))
            else:
                memcpy(dst + o, src + b, (hi - b) * sizeof(ddz_split_set))
        swap = src
        src = dst
        dst = swap
        width *= 2
    if src != s:
        memcpy(s, src, n * sizeof(ddz_split_set))


cdef int _prepare(ddz_split_ctx* ctx, const ddz_rules* rules, uint64_t hand) noexcept nogil:
    # The root's moves, their distinct card sets by lowest card, an empty table.
    cdef int64_t n, i, k, j
    cdef int c, key
    cdef int32_t counts[ORDER_KEYS + 1]
    cdef uint64_t cards, slot, mask, wilds = _wild_cards(rules)
    cdef ddz_split_set* met
    ctx.root = 0
    if ctx.moves_cap > KEEP_MOVES and _buffers_reset(ctx) != 0:
        return DDZ_SPLIT_NOMEM
    if _hand_size(hand) > KEEP_ROOT_CARDS:
        # counted first, none listed (a whole deck of some tiandi pairs has
        # tens of millions of moves, which a listing into a short buffer
        # would make whole in a buffer of its own)
        n = ddz_legal_moves(rules, hand, NULL, ctx.moves, 0)
        if n > MAX_ROOT_MOVES:
            return DDZ_SPLIT_TOO_BIG
    n = ddz_legal_moves(rules, hand, NULL, ctx.moves, ctx.moves_cap)
    if n > MAX_ROOT_MOVES or n > MAX_SETS:
        return DDZ_SPLIT_TOO_BIG
    if n > ctx.moves_cap:
        if ddz_grow_scratch(<void**>&ctx.moves, &ctx.moves_cap, n, sizeof(ddz_move)) < 0:
            return DDZ_SPLIT_NOMEM
        n = ddz_legal_moves(rules, hand, NULL, ctx.moves, ctx.moves_cap)
    # room for the sets twice: as first met (from sets + n), then in order
    if ddz_grow_scratch(<void**>&ctx.sets, &ctx.sets_cap, 2 * n,
                        sizeof(ddz_split_set)) < 0:
        return DDZ_SPLIT_NOMEM
    # The moves' distinct card sets, each with its least reading (by
    # _reading), ordered by lowest card, largest first (a counting sort on
    # low * 64 + 63 - size), then by that reading's kind, rank and length,
    # the wildcards among the cards and the cards: an order of the cards
    # alone, whatever order the generator lists them in (tiandi's differs
    # from hand to hand), so that the partition found for a hand does not
    # depend on the root it is searched under. Kinds in the generator's
    # order and sets with fewer wildcards first find short splits early.
    if _sets_hash(ctx, n) != 0:
        return DDZ_SPLIT_NOMEM
    mask = ctx.smask
    met = ctx.sets + n
    k = 0
    memset(counts, 0, sizeof(counts))
    for i in range(n):
        if ctx.moves[i].kind == K_PASS:
            continue
        cards = ctx.moves[i].cards
        slot = _slot(cards, mask)
        while ctx.skeys[slot] and ctx.skeys[slot] != cards:
            slot = (slot + 1) & mask
        if not ctx.skeys[slot]:
            ctx.skeys[slot] = cards
            ctx.sidx[slot] = <int32_t>k
            met[k].cards = cards
            met[k].move = <int32_t>i
            met[k].order = <uint32_t>slot     # until the set is placed
            counts[_order_key(cards) + 1] += 1
            k += 1
        elif _reading(&ctx.moves[i]) < _reading(&ctx.moves[met[ctx.sidx[slot]].move]):
            met[ctx.sidx[slot]].move = <int32_t>i
    for key in range(ORDER_KEYS):
        counts[key + 1] += counts[key]
    for c in range(17):
        ctx.start[c] = counts[c * 64]      # where lowest card c begins
    # as first met, in the generator's order, which is close to the sets'
    # order: the sorts below have little to move
    for i in range(k):
        ctx.sidx[met[i].order] = met[i].move
        cards = met[i].cards
        key = _order_key(cards)
        j = counts[key]
        counts[key] += 1
        ctx.sets[j].cards = cards
        ctx.sets[j].move = met[i].move
        ctx.sets[j].order = (<uint32_t>(_reading(&ctx.moves[met[i].move]) >> 32)
                             & 0xFFFFFF00U) | _nibble_sum(cards & wilds)
    # counts[key] is now where the group after key starts; the sets as met
    # are scratch now
    j = 0
    while j < k:
        i = counts[_order_key(ctx.sets[j].cards)]
        if i - j > 1:
            _sort_sets(ctx.sets + j, i - j, met + j)
        j = i
    if _table_reset(ctx, FIRST_SLOTS) != 0:
        return DDZ_SPLIT_NOMEM
    memcpy(&ctx.rules, rules, sizeof(ddz_rules))
    ctx.root = hand
    ctx.work = 0
    return 0


cdef int _sets_hash(ddz_split_ctx* ctx, int64_t n) noexcept nogil:
    # an empty hash for n sets by their cards (at most half full)
    cdef uint64_t slots = FIRST_SET_SLOTS
    while <int64_t>slots < 2 * n:
        slots *= 2
    if _slots_reset(&ctx.skeys, <void**>&ctx.sidx, sizeof(int32_t), &ctx.scap,
                    slots) < 0:
        return DDZ_SPLIT_NOMEM
    ctx.smask = slots - 1
    return 0


cdef inline int64_t _set_of(const ddz_split_ctx* ctx, uint64_t cards) noexcept nogil:
    # the move kept for the set of exactly these cards, or -1
    cdef uint64_t j = _slot(cards, ctx.smask)
    while ctx.skeys[j]:
        if ctx.skeys[j] == cards:
            return ctx.sidx[j]
        j = (j + 1) & ctx.smask
    return -1


# A root serves the later queries on its sub-hands (a hand played down in a
# deal) only while it is no larger than a hand of a deal: a larger one (a
# whole deck) holds every hand of its rule set, whose searches would then
# scan its sets (slower, and sooner past the work limit than on a root of
# their own) and grow its table with every distinct hand asked.
cdef int KEEP_ROOT_CARDS = MAX_HAND[True]


cdef int _ensure(ddz_split_ctx* ctx, const ddz_rules* rules, uint64_t hand) noexcept nogil:
    # prepare the root unless ctx already holds a root containing hand
    if ctx.root and _hand_size(ctx.root) <= KEEP_ROOT_CARDS \
            and _hand_contains(ctx.root, hand) \
            and memcmp(&ctx.rules, rules, sizeof(ddz_rules)) == 0:
        return 0
    return _prepare(ctx, rules, hand)


cdef int _grow_table(ddz_split_ctx* ctx) noexcept nogil:
    cdef uint64_t old_slots = ctx.tmask + 1, slots = old_slots * 2, i, j
    cdef uint64_t mask = slots - 1
    cdef uint64_t* keys = <uint64_t*>calloc(slots, sizeof(uint64_t))
    cdef uint64_t* vals = <uint64_t*>malloc(slots * sizeof(uint64_t))
    if keys == NULL or vals == NULL:
        free(keys)
        free(vals)
        return DDZ_SPLIT_NOMEM
    for i in range(old_slots):
        if ctx.keys[i]:
            j = _slot(ctx.keys[i], mask)
            while keys[j]:
                j = (j + 1) & mask
            keys[j] = ctx.keys[i]
            vals[j] = ctx.vals[i]
    free(ctx.keys)
    free(ctx.vals)
    ctx.keys = keys
    ctx.vals = vals
    ctx.tmask = mask
    ctx.tcap = slots
    return 0


cdef inline int64_t _find(const ddz_split_ctx* ctx, uint64_t h) noexcept nogil:
    cdef uint64_t j = _slot(h, ctx.tmask)
    while ctx.keys[j]:
        if ctx.keys[j] == h:
            return <int64_t>j
        j = (j + 1) & ctx.tmask
    return -1


cdef int _store(ddz_split_ctx* ctx, uint64_t h, int value, bint exact,
                int64_t best) noexcept nogil:
    # h's entry: its value (exact, or a lower bound) and best set
    cdef uint64_t j
    if (ctx.tused + 1) * 2 > <int64_t>(ctx.tmask + 1):
        if _grow_table(ctx) != 0:
            return DDZ_SPLIT_NOMEM
    j = _slot(h, ctx.tmask)
    while ctx.keys[j]:
        if ctx.keys[j] == h:
            break
        j = (j + 1) & ctx.tmask
    if not ctx.keys[j]:
        ctx.keys[j] = h
        ctx.tused += 1
    ctx.vals[j] = _entry(value, exact, best)
    return 0


cdef int _search(ddz_split_ctx* ctx, uint64_t h, int limit) noexcept nogil:
    # The fewest plays of h (h != 0, within the root) when below `limit`
    # (exact), else a lower bound of at least `limit`; NONE_VALUE (with
    # limit NONE_VALUE + 1): nothing empties h; or a negative DDZ_SPLIT_ code.
    cdef int64_t j = _find(ctx, h)
    cdef int c, v, lb = 1, best
    cdef int64_t i, stop, bi = -1
    cdef uint64_t s
    cdef uint64_t e
    if j >= 0:
        e = ctx.vals[j]
        v = _entry_value(e)
        if _entry_exact(e) or v >= limit:
            return v
        lb = v
    if lb >= limit:
        return lb
    if limit == 2:
        # below 2 is one move: h itself, or nothing
        i = _set_of(ctx, h)
        if i >= 0:
            if _store(ctx, h, 1, True, i) != 0:
                return DDZ_SPLIT_NOMEM
            return 1
        if _store(ctx, h, 2, False, -1) != 0:
            return DDZ_SPLIT_NOMEM
        return 2
    c = _lowest(h)
    stop = ctx.start[c + 1]
    ctx.work += stop - ctx.start[c]
    if ctx.max_work and ctx.work > ctx.max_work:
        return DDZ_SPLIT_TOO_BIG
    best = limit
    for i in range(ctx.start[c], stop):
        s = ctx.sets[i].cards
        if not _hand_contains(h, s):
            continue
        if s == h:
            best = 1
            bi = i
            break
        if best <= 2:
            continue        # only h itself, as one move, is shorter
        v = _search(ctx, h - s, best - 1)
        if v < 0:
            return v
        if v + 1 < best:
            best = v + 1
            bi = i
            if best <= lb:
                break
    if best < limit:
        if _store(ctx, h, best, True, ctx.sets[bi].move) != 0:
            return DDZ_SPLIT_NOMEM
        return best
    if _store(ctx, h, limit, False, -1) != 0:
        return DDZ_SPLIT_NOMEM
    return limit


cdef inline int _result(int v) noexcept nogil:
    return DDZ_SPLIT_NONE if v >= NONE_VALUE else v


cdef int ddz_min_plays(ddz_split_ctx* ctx, const ddz_rules* rules,
                       uint64_t hand) noexcept nogil:
    cdef int status, v
    if hand == 0:
        return 0
    status = _ensure(ctx, rules, hand)
    if status != 0:
        return status
    # the work limit is per query, whatever earlier queries of the same root
    # did: an answer (or a bot's move) must not depend on the calls before it
    ctx.work = 0
    v = _search(ctx, hand, NONE_VALUE + 1)
    return v if v < 0 else _result(v)


cdef int ddz_split_moves(ddz_split_ctx* ctx, uint64_t hand, ddz_move* out) noexcept nogil:
    cdef int k = 0
    cdef int64_t j, b
    while hand:
        j = _find(ctx, hand)
        if j < 0:
            return -1
        if not _entry_exact(ctx.vals[j]):
            return -1
        b = _entry_best(ctx.vals[j])
        if b < 0 or not _hand_contains(hand, ctx.moves[b].cards):
            return -1
        out[k] = ctx.moves[b]
        k += 1
        hand -= ctx.moves[b].cards
    return k


cdef int ddz_plays_left(ddz_split_ctx* ctx, const ddz_rules* rules, uint64_t hand,
                        const ddz_move* moves, int64_t n, int16_t* out) noexcept nogil:
    cdef int64_t i
    cdef int v, status
    cdef uint64_t rest
    for i in range(n):
        if moves[i].kind != K_PASS and not _hand_contains(hand, moves[i].cards):
            return -4
    if hand == 0:
        for i in range(n):
            out[i] = 0
        return 0
    status = _ensure(ctx, rules, hand)
    if status != 0:
        return status
    for i in range(n):
        rest = hand if moves[i].kind == K_PASS else hand - moves[i].cards
        if rest == 0:
            out[i] = 0
            continue
        # each rest is a query of its own, as min_plays of it would be: the
        # limit does not grow with the number of moves, nor run out by them
        ctx.work = 0
        v = _search(ctx, rest, NONE_VALUE + 1)
        if v < 0:
            return v
        out[i] = <int16_t>_result(v)
    return 0


cdef int ddz_min_plays_once(const ddz_rules* rules, uint64_t hand) noexcept nogil:
    cdef ddz_split_ctx ctx
    cdef int v
    if hand == 0:
        return 0
    if not ddz_split_init(&ctx):
        return DDZ_SPLIT_NOMEM
    v = ddz_min_plays(&ctx, rules, hand)
    ddz_split_free(&ctx)
    return v


# ---- Python ---------------------------------------------------------------------

cdef class _Splitter:
    """One ddz_split_ctx (a thread's: the functions below keep one per thread)."""
    cdef ddz_split_ctx ctx

    def __cinit__(self):
        if not ddz_split_init(&self.ctx):
            raise MemoryError("out of memory for a hand decomposition")

    def __dealloc__(self):
        ddz_split_free(&self.ctx)


_local = threading.local()


cdef _Splitter _splitter():
    cdef _Splitter s = getattr(_local, "splitter", None)
    if s is None:
        s = _Splitter()
        _local.splitter = s
    return s


cdef int _raise_status(int status, uint64_t hand,
                       int64_t limit=DDZ_SPLIT_MAX_WORK) except -1:
    # limit: the work limit of the context that searched
    if status == DDZ_SPLIT_NOMEM:
        raise MemoryError("out of memory splitting a hand")
    if status == DDZ_SPLIT_TOO_BIG:
        raise ValueError(f"hand {_cards_text(hand)!r} is too large to split exactly: "
                         f"the search passed its work limit ({limit:,} move tests) "
                         f"or the hand has more than {MAX_ROOT_MOVES:,} leading moves; "
                         f"every hand a deal gives is far below both")
    raise RuntimeError(f"hand decomposition failed with status {status} (a bug)")


class Split:
    """A hand's fewest plays and one partition that reaches it.

    ``count``: the fewest legal leading moves whose cards are exactly the
    hand (0 for an empty hand), or None when no moves empty it (a lone W,
    which is never a move). ``moves``: a ``MoveList`` of ``count`` moves
    partitioning the hand (empty when ``count`` is None or 0).

    Immutable, as the other values are. The constructor checks the types
    (TypeError), that ``count`` is the number of moves and that none is a
    PASS (ValueError); it holds no hand, so it cannot check that the moves
    partition one: ``min_plays`` makes the Splits that do."""

    __slots__ = ("count", "moves")

    def __init__(self, count, moves):
        if count is not None and not _is_integral(count):
            raise TypeError(f"count is an int or None, not {type(count).__name__}")
        if not isinstance(moves, MoveList):
            raise TypeError(f"moves is a MoveList, not {type(moves).__name__}")
        if count is not None and count < 0:
            raise ValueError(f"count is a number of plays, not {count}")
        if len(moves) != (count or 0):
            raise ValueError(f"a Split of count {count!r} holds "
                             f"{count if count else 'no'} moves, not {len(moves)}")
        if len(moves) and (moves.array["kind"] == K_PASS).any():
            raise ValueError("a Split's moves are plays of the hand's cards: "
                             "a PASS is none")
        object.__setattr__(self, "count", None if count is None else int(count))
        object.__setattr__(self, "moves", moves)

    def __setattr__(self, name, value):
        raise AttributeError(f"a Split is immutable: {name} cannot be set")

    def __delattr__(self, name):
        raise AttributeError(f"a Split is immutable: {name} cannot be deleted")

    def __reduce__(self):
        # (every pickle protocol: 0 and 1 do not read __slots__)
        return (Split, (self.count, self.moves))

    def __repr__(self):
        return f"Split(count={self.count!r}, moves=[{', '.join(str(m) for m in self.moves)}])"

    def __eq__(self, other):
        if not isinstance(other, Split):
            return NotImplemented
        return self.count == other.count and list(self.moves) == list(other.moves)

    __hash__ = None


cdef Rules _split_rules(object rules):
    cdef Rules r = _get_rules(rules)
    _need_wild(r)
    return r


def min_plays(hand, rules="classic") -> Split:
    """The fewest legal leading moves of ``rules`` whose cards partition
    ``hand`` exactly (拆牌, 最少手数), and one such partition.

    Every move kind of the rule set counts, bombs and rockets included, with
    kickers as the rule set allows them (a triple with a single, a plane with
    pairs, four with two, ...); W and laizi stand for what they may in a
    move. Exact: a memoised search in C, without the GIL, over the moves that
    hold the lowest card left. ``hand``: a Hand, packed int or card text of
    the rule set's deck. Returns a ``Split``; its ``count`` is None when the
    hand cannot be emptied (a lone W). ValueError for a hand beyond the
    search's work limit, or with more leading moves than its buffers take:
    only hands far larger than a deal gives reach either (the docs' page
    on bots says which)."""
    cdef Rules r = _split_rules(rules)
    cdef uint64_t h = _to_bits(hand, r, "hand")
    cdef _Splitter sp = _splitter()
    cdef int v, k
    cdef ddz_move out[64]
    with nogil:
        v = ddz_min_plays(&sp.ctx, &r.c, h)
        k = 0
        if v > 0:
            k = ddz_split_moves(&sp.ctx, h, out)
    if v == DDZ_SPLIT_NONE:
        return Split(None, _move_list(out, 0, r))
    if v < 0:
        _raise_status(v, h, sp.ctx.max_work)
    if k != v:
        raise RuntimeError("hand decomposition lost its partition (a bug)")
    return Split(v, _move_list(out, k, r))


cdef cnp.ndarray _hand_array(object hands, Rules r):
    cdef cnp.ndarray h
    cdef const uint64_t* hp
    cdef Py_ssize_t i, n, bad = -1
    # (as the batches of the core read them: Hands and packed ints)
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
    return h


def _batch_chunk(Rules r, cnp.ndarray hands, cnp.ndarray out, Py_ssize_t start,
                 Py_ssize_t stop, list status, cancel):
    cdef const uint64_t* hp = <const uint64_t*>cnp.PyArray_DATA(hands)
    cdef int16_t* op = <int16_t*>cnp.PyArray_DATA(out)
    cdef ddz_split_ctx ctx
    if not ddz_split_init(&ctx):
        status.append((DDZ_SPLIT_NOMEM, start))
        return

    def hands_of(Py_ssize_t a, Py_ssize_t b):
        cdef Py_ssize_t i, bad = -1
        cdef int v = 0
        with nogil:
            for i in range(a, b):
                v = ddz_min_plays(&ctx, &r.c, hp[i])
                if v < DDZ_SPLIT_NONE:
                    bad = i
                    break
                op[i] = <int16_t>v
        if bad >= 0:
            status.append((v, bad))
            return 1
        return 0

    try:
        _sliced(hands_of, start, stop, cancel)
    finally:
        ddz_split_free(&ctx)


def min_plays_batch(hands, rules="classic", threads=1) -> np.ndarray:
    """``min_plays(h, rules).count`` of many packed hands at once: an int16
    array, -1 where a hand cannot be emptied (a lone W). The search runs
    without the GIL on ``threads`` threads over contiguous ranges."""
    cdef Rules r = _split_rules(rules)
    threads = check_threads(threads)
    cdef cnp.ndarray h = _hand_array(hands, r)
    cdef Py_ssize_t n = cnp.PyArray_DIM(h, 0), t
    cdef cnp.ndarray out = np.zeros(n, dtype=np.int16)
    status = []
    threads = worker_count(threads, n)
    bounds = [n * t // threads for t in range(threads + 1)]
    _parallel(threads, _batch_chunk,
              [(r, h, out, bounds[t], bounds[t + 1], status) for t in range(threads)])
    if status:
        code, i = min(status, key=lambda s: s[1])
        try:
            _raise_status(code, <uint64_t>int(h[i]) if i < n else 0)
        except ValueError as exc:
            # named by its row, as the other batches name a bad hand
            raise ValueError(f"hands[{i}]: {exc}") from None
    return out


cdef object _moves_array(object moves, Rules r):
    # the moves as a contiguous MOVE_DTYPE array, each checked legal in r
    cdef cnp.ndarray a
    cdef ddz_move m
    cdef Py_ssize_t i
    if isinstance(moves, cnp.ndarray):
        if moves.dtype != MOVE_DTYPE or moves.ndim != 1:
            raise TypeError("moves must be a MoveList, a 1-d MOVE_DTYPE array or "
                            "Moves")
        # (a copy: checked here, the rows are read again without the GIL,
        # while another thread of the caller's may write its array)
        a = np.array(moves, order="C", copy=True)
        for i in range(cnp.PyArray_DIM(a, 0)):
            _move_struct(a[i], r, &m, f"moves[{i}]")
        return a
    if isinstance(moves, (str, bytes, Move)):
        raise TypeError("moves must be a list of moves (a MoveList, a MOVE_DTYPE "
                        "array or Moves), not one move")
    check_ordered(moves, "moves")
    try:
        items = list(moves)
    except TypeError:
        raise TypeError(f"moves must be a MoveList, a MOVE_DTYPE array or Moves, "
                        f"not {type(moves).__name__}") from None
    a = np.zeros(len(items), dtype=MOVE_DTYPE)
    cdef ddz_move* ap = <ddz_move*>cnp.PyArray_DATA(a)
    for i in range(len(items)):
        _move_struct(items[i], r, &ap[i], f"moves[{i}]")
    return a


def plays_left(hand, moves, rules="classic") -> np.ndarray:
    """For each move of ``moves``, the fewest plays of what ``hand`` keeps
    after playing it (``min_plays(hand - move).count``), in one call: an
    int16 array, 0 where the move empties the hand, -1 where the rest cannot
    be emptied (a lone W). A PASS keeps the whole hand.

    ``moves``: a ``MoveList`` (the legal moves of a position:
    ``legal_moves(hand, last)``, ``game.legal_moves()``), a MOVE_DTYPE array
    or Moves; each must be a legal move of the rule set whose cards are in
    ``hand`` (ValueError otherwise). One generation of the hand's moves and
    one transposition table serve every remainder."""
    cdef Rules r = _split_rules(rules)
    cdef uint64_t h = _to_bits(hand, r, "hand")
    cdef cnp.ndarray a
    cdef cnp.ndarray out
    cdef const ddz_move* mp
    cdef int16_t* op
    cdef int64_t n
    cdef int status
    cdef Py_ssize_t i
    cdef _Splitter sp
    if isinstance(moves, MoveList) and (<MoveList>moves).rules is not None and \
            (<MoveList>moves).rules.rules_id == r.rules_id:
        # the moves of a position (legal_moves) of this rule set: rows the
        # generator made (another rule set's are checked one by one below)
        mp = (<MoveList>moves).data
        n = (<MoveList>moves).n
        a = None
    else:
        a = _moves_array(moves, r)
        mp = <const ddz_move*>cnp.PyArray_DATA(a)
        n = cnp.PyArray_DIM(a, 0)
    out = np.zeros(n, dtype=np.int16)
    op = <int16_t*>cnp.PyArray_DATA(out)
    for i in range(n):
        if mp[i].kind != K_PASS and not _hand_contains(h, mp[i].cards):
            raise ValueError(f"moves[{i}] plays {_cards_text(mp[i].cards)!r}, which "
                             f"hand {_cards_text(h)!r} does not hold")
    sp = _splitter()
    with nogil:
        status = ddz_plays_left(&sp.ctx, &r.c, h, mp, n, op)
    if status != 0:
        _raise_status(status, h, sp.ctx.max_work)
    return out


def _set_max_work(int64_t work) -> int:
    """Set this thread's search work limit (tests); returns the old one."""
    cdef _Splitter sp = _splitter()
    old = sp.ctx.max_work
    sp.ctx.max_work = work
    return old
