# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# The exact endgame solver (RULES.md section 7), an extension module of its own:
# a depth-first AND/OR search in plain C (`noexcept nogil`) over packed hands,
# with a transposition table, move ordering and cut-offs, and its Python
# entry point `_solve` (ddzfast.solve wraps it into a Solution).
#
# A position is the hands, the seat to move, and the trick: the (kind, rank,
# length) of the move to beat, what ddz_beats reads of its cards (_beat_code:
# in tiandi, a bomb's size and purity; nothing in the other rule sets), and
# the seat that played it, or nothing when the seat to move leads. The rest
# of the cards of the move to beat is not part of it: it never changes what
# may follow. Whether the seat in between has passed (three players) is
# implied by the seat to move and the seat that played.
#
# Every line of play ends (each trick removes cards, and a trick ends after
# at most two passes), so the game graph has no cycles and a won/lost value
# per position, for the side to move, is exact whatever the path to it.

from libc.stdint cimport int8_t, uint8_t, uint16_t, uint32_t, uint64_t, int64_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcpy, memset

cimport numpy as cnp
import numpy as np

from ddzfast._core cimport *

import collections.abc
import threading

from ddzfast.constants import check_bool, check_positive

cnp.import_array()

cdef extern from *:
    """
    #include <stdlib.h>
    #if defined(__linux__)
    #include <sys/mman.h>
    #endif
    /* Zeroed memory for the transposition table. On Linux a table of 2 MiB
       or more is mapped directly and asks for transparent huge pages: its
       probes land on random pages, so 4 KiB pages cost a TLB miss and a
       first-touch fault nearly every time. Elsewhere: calloc. */
    #define DDZ_HUGE ((size_t)2 << 20)
    #if defined(__linux__) && defined(MADV_HUGEPAGE)
    #include <unistd.h>
    /* A mapping's length as the kernel counts it: whole pages. Trimming and
       unmapping at any other boundary fails (EINVAL), and the pages past it
       would stay mapped. */
    static size_t ddz_pages(size_t size) {
        size_t page = (size_t)sysconf(_SC_PAGESIZE);
        return (size + page - 1) & ~(page - 1);
    }
    #endif
    static void* ddz_table_alloc(size_t size) {
    #if defined(__linux__) && defined(MADV_HUGEPAGE)
        if (size >= DDZ_HUGE) {
            /* map a huge page more than needed and trim it, so that the
               table starts on a huge-page boundary: an unaligned block
               only gets huge pages in its aligned middle */
            size_t extra = DDZ_HUGE, head, tail, length = ddz_pages(size);
            char* p = (char*)mmap(NULL, length + extra, PROT_READ | PROT_WRITE,
                                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            char* a;
            if (p == (char*)MAP_FAILED) return NULL;
            a = (char*)(((size_t)p + DDZ_HUGE - 1) & ~(DDZ_HUGE - 1));
            head = (size_t)(a - p);
            tail = extra - head;
            if (head) munmap(p, head);
            if (tail) munmap(a + length, tail);
            madvise(a, length, MADV_HUGEPAGE);
            return a;
        }
    #endif
        return calloc(size, 1);
    }
    static void ddz_table_free(void* p, size_t size) {
        if (p == NULL) return;
    #if defined(__linux__) && defined(MADV_HUGEPAGE)
        if (size >= DDZ_HUGE) { munmap(p, ddz_pages(size)); return; }
    #endif
        free(p);
    }
    static CYTHON_INLINE void ddz_prefetch(const void* p) {
    #if defined(__GNUC__) || defined(__clang__)
        __builtin_prefetch(p);
    #else
        (void)p;
    #endif
    }
    /* floor(log2(x)) for x > 0 */
    static CYTHON_INLINE int ddz_log2_64(unsigned long long x) {
    #if defined(__GNUC__) || defined(__clang__)
        return 63 - __builtin_clzll(x);
    #else
        int n = 0;
        while (x > 1) { x >>= 1; n++; }
        return n;
    #endif
    }
    """
    int _log2 "ddz_log2_64"(unsigned long long) noexcept nogil
    void _prefetch "ddz_prefetch"(const void* p) noexcept nogil
    void* ddz_table_alloc(size_t size) noexcept nogil
    void ddz_table_free(void* p, size_t size) noexcept nogil

cdef enum:
    # The transposition table starts with 2**TT_MIN_BITS entries of 32 bytes
    # (2 MiB: growing it from a smaller one, each step a fresh zeroed block
    # and a re-insertion of every entry, costs a small search more than
    # zeroing 2 MiB once) and doubles while it is more than half full, up
    # to 2**TT_MAX_BITS entries (64 MiB; while it doubles, the old and the new
    # table coexist: 96 MiB at the peak). Entries live in two-entry buckets
    # (one 64-byte cache line); a new entry whose bucket is full replaces
    # the one whose search took less work, unless both took more than it.
    TT_MIN_BITS = 16
    TT_MAX_BITS = 21
    # Direct-mapped cache of what a hand can answer (for move ordering).
    ANSWER_CACHE = 1024
    # Cache of generated move lists, keyed by (hand, move to beat): a search
    # meets few distinct ones, and copying a list costs a fraction of
    # generating it. GEN_SLOTS direct-mapped slots point into an arena of
    # GEN_ARENA moves (256 KiB), emptied whole when full; lists longer than
    # GEN_LIST_MAX are generated every time.
    GEN_SLOTS = 4096
    GEN_ARENA = 16384
    GEN_LIST_MAX = 512
    WHOLE_MAX = 4
    # Killer moves are kept per hand size up to this (larger sizes share
    # the last slot).
    KILLER_SIZES = 24
    # Longer move lists are ordered by heapsort rather than Shell sort.
    SHELL_SORT_MAX = 4096
    # move-ordering categories (the top byte of an ordering key)
    CAT_LOSES = 0       # the next seat, an opponent, answers by emptying its hand
    CAT_BOMB = 1        # a bomb an opponent can answer
    CAT_PASS = 2
    CAT_PLAIN = 3       # a plain move an opponent can answer
    CAT_KEEP = 4        # no opponent can answer it
    CAT_MASK = 7        # the category in the top byte; above it, KILLER_BIT
    KILLER_BIT = 0x80   # (the top byte's): the node's killer move
    NO_SEAT = 3
    # Moves held per node at first; the buffer doubles when a node needs more.
    FIRST_MOVES = 8192
    # The longest line: at most 55 cards are played, each move is followed by
    # at most two passes, and a hand of W may pass one lead per trick.
    MAX_LINE = 4 * 64
    # Why a search stopped.
    STOP_NONE = 0
    STOP_NODES = 1
    STOP_TIME = 2
    STOP_NOMEM = 3
    STOP_INTERRUPT = 4      # a signal handler raised (Ctrl-C): its exception is set

# Seconds of search between two checks for signals.
cdef double POLL_SECONDS = 0.02

ctypedef struct tt_entry:
    uint64_t h[3]
    uint32_t st        # the trick state, with bit 31 set in a used entry
    uint8_t win        # 1: the side to move wins
    uint8_t work       # log2 of the nodes its search took (replacement)
    uint16_t epoch     # live while equal to solve_ctx.epoch (else empty)

ctypedef struct hand_answers:
    # What a hand can answer: the ranks of its lead moves of each (kind,
    # length), the top tier of its moves (_tier), and the highest ranks of
    # its ranked moves of that tier (-1: none), apart for the LAIZI_BOMBs of
    # one rank (pure: ddz_beats lets them beat only a move of one rank of
    # their tier; a mixed LAIZI_BOMB beats none of its tier) and the other
    # kinds. With those, _can_beat answers as ddz_beats: a move of a lower
    # tier than the hand's top beats nothing that the top does not.
    uint64_t hand
    uint16_t epoch       # valid while equal to solve_ctx.epoch
    int8_t toprank       # of its ranked moves of tier maxtier, not LAIZI_BOMBs
    int8_t toppure       # of its ranked pure LAIZI_BOMBs of tier maxtier
    uint16_t maxtier
    uint16_t rmask[NKINDS][16]    # the ranks of its moves of each (kind, length)
    # readings of the whole hand as one move (the first WHOLE_MAX of them)
    int nwhole
    ddz_move whole[WHOLE_MAX]

ctypedef struct gen_slot:
    uint64_t hand
    uint64_t last      # what is to be beaten (_gen_code)
    uint32_t epoch     # valid while equal to solve_ctx.gen_epoch
    uint32_t start     # in the arena
    uint32_t count

ctypedef struct solve_ctx:
    # What one search sets: zeroed before each (_SolveScratch.lend), up to
    # `moves`.
    const ddz_rules* rules
    # per kind: whether ddz_move_tier or ddz_beats read the cards of a move
    # of that kind (_solve sets it: see _beat_code)
    uint8_t beat_cards[NKINDS]
    int nseats
    int landlord             # -1: two players, every seat its own side
    int pext                 # relabel keys with _compact3 (see _solve_pext)
    uint64_t hand[3]
    int tt_max_bits
    int64_t tt_used
    uint32_t gen_used        # arena moves in use
    # limits and counters
    int64_t nodes
    int64_t max_nodes
    int64_t peak             # the most bytes held at once while the table doubled
    double deadline          # 0: none
    double next_poll         # when signals are next checked (_interrupted)
    int stop
    # No hand of the search holds more cards (the most at its start): the
    # history and killer entries it may write (_history_clear)
    int size_bound

    # What the thread keeps from one search to the next (_SolveScratch),
    # from `moves` on.
    #
    # move and ordering-key buffers, grown by doubling
    ddz_move* moves
    uint64_t* keys
    # the table keys (and their hashes) of the positions after each move,
    # for the enhanced transposition cut-off; indexed like moves
    tt_key* ckeys
    uint64_t* chash
    int64_t cap
    # transposition table
    tt_entry* tt
    void* tt_block           # the allocation tt points into (aligned to 64 bytes)
    int tt_bits
    # The search's epoch: the table's entries and the answer cache's of
    # another epoch are empty, so that a new search empties them without
    # zeroing them.
    uint16_t epoch
    hand_answers* answer_cache
    gen_slot* gen_slots
    ddz_move* gen_arena
    uint32_t gen_epoch       # slots of an older epoch are empty
    # History heuristic: for each (length, kind, rank), the positions
    # searched under the nodes that a move of it won (each win weighs its
    # subtree: a move that settles large positions counts for more), apart
    # for following [0] and leading [1]; it orders moves of equal category
    # and size. Weighing each win by its subtree rather than by 1 searches
    # fewer positions on every benchmark position. Zero between searches
    # (_history_clear), as are the killer moves; length first, as a
    # search's moves are no longer than its hands, so that the lengths up
    # to that alone are zeroed.
    uint32_t hist[2][16][NKINDS][16]
    # killer moves: the last winning move of a node, apart for following [0]
    # and leading [1], per seat and per the sizes of its hand and of the next
    # seat's: its cards and its (kind, rank, length) packed by _move_id
    uint64_t kcards[2][3][KILLER_SIZES][KILLER_SIZES]
    uint32_t kid[2][3][KILLER_SIZES][KILLER_SIZES]


cdef inline int _side(const solve_ctx* c, int seat) noexcept nogil:
    if c.landlord < 0:
        return seat
    return 0 if seat == c.landlord else 1


cdef inline int _next_seat(const solve_ctx* c, int seat) noexcept nogil:
    seat += 1
    return 0 if seat == c.nseats else seat


cdef inline int _after_pass(int ns, const ddz_move* last, int ls,
                            const ddz_move** table) noexcept nogil:
    # A pass by the seat before `ns`, with `last` (played by `ls`; NULL when
    # leading) on the table: the seat to move, and in `table` the move it
    # must beat. The trick ends when the turn comes back to its last
    # player, who leads.
    if last == NULL:
        table[0] = NULL
        return ns
    if ns == ls:
        table[0] = NULL
        return ls
    table[0] = last
    return ns


cdef void _set_beat_cards(solve_ctx* c) noexcept nogil:
    # c.beat_cards from the rule set (ddz_reads_cards): elsewhere a move's
    # kind, rank and length say all that ddz_beats reads of it
    cdef int k
    for k in range(NKINDS):
        c.beat_cards[k] = <uint8_t>ddz_reads_cards(c.rules, k)


cdef inline int _tier(const solve_ctx* c, const ddz_move* m) noexcept nogil:
    # The tier of a move (kind < NKINDS) as ddz_beats takes it
    # (ddz_move_tier; rules.tier of its kind where that reads no cards).
    if c.beat_cards[m.kind]:
        return ddz_move_tier(c.rules, m)
    return c.rules.tier[m.kind]


cdef inline uint32_t _beat_code(const solve_ctx* c, const ddz_move* m) noexcept nogil:
    # What ddz_beats reads of the cards of a move to beat (ddz_beaten_code,
    # in 10 bits; 0 in every rule set but tiandi): the table and the
    # move-list cache key on it.
    if m.kind >= NKINDS or not c.beat_cards[m.kind]:
        return 0
    return ddz_beaten_code(c.rules, m)


ctypedef struct tt_key:
    uint64_t h[3]
    uint32_t st        # 0 in a child's key (ckeys) that the table proves lost
    uint8_t nrank      # in a child's key: the canonical rank of its move to beat
    uint8_t same       # in a child's key: its seat to move is on the parent's side


cdef inline unsigned int _held_ranks(uint64_t u) noexcept nogil:
    # Bit i set when nibble i (rank i, 0..11) of u is not zero.
    cdef uint64_t x = u | (u >> 1)
    x = (x | (x >> 2)) & 0x0000111111111111ULL
    x = (x | (x >> 3)) & 0x0000030303030303ULL
    x = (x | (x >> 6)) & 0x0000000F000F000FULL
    x = (x | (x >> 12)) & 0x000000FF000000FFULL
    return <unsigned int>((x | (x >> 24)) & 0xFFF)


cdef extern from *:
    """
    /* The relabelling of _make_key moves the nibbles of the kept ranks down
       into one block: a parallel bit extract (BMI2 PEXT), one instruction a
       hand, where the CPU has a fast one (checked at run time: the build
       itself targets plain x86-64). AMD before Zen 3 runs PEXT in microcode
       (tens to hundreds of cycles), so it keeps the portable loop. */
    #if (defined(__GNUC__) || defined(__clang__)) && defined(__x86_64__) \
        && !defined(DDZFAST_PLAIN_C)
    #include <immintrin.h>
    __attribute__((target("bmi2")))
    static void ddz_compact3(const uint64_t* hand, unsigned int keep, uint64_t* out) {
        uint64_t m = _pdep_u64(keep, 0x111111111111ULL) * 15u;
        int j;
        for (j = 0; j < 3; j++)
            out[j] = _pext_u64(hand[j], m) | (hand[j] & 0xFFFF000000000000ULL);
    }
    static int ddz_fast_pext(void) {
        __builtin_cpu_init();
        if (!__builtin_cpu_supports("bmi2")) return 0;
        if (__builtin_cpu_is("amd") && (__builtin_cpu_is("znver1")
                || __builtin_cpu_is("znver2") || __builtin_cpu_is("amdfam15h")))
            return 0;
        return __builtin_cpu_is("intel") || __builtin_cpu_is("amd");
    }
    #else
    static void ddz_compact3(const uint64_t* hand, unsigned int keep, uint64_t* out) {
        (void)hand; (void)keep; (void)out;   /* never called: no fast PEXT */
    }
    static int ddz_fast_pext(void) { return 0; }
    #endif
    /* whether solves relabel with PEXT: -1 not decided yet; tests force 0 */
    static int ddz_use_pext = -1;
    """
    void _compact3 "ddz_compact3"(const uint64_t* hand, unsigned int keep, uint64_t* out) noexcept nogil
    int _fast_pext "ddz_fast_pext"() noexcept nogil
    int _use_pext "ddz_use_pext"


def _solve_pext(object use=None):
    """Whether the solver relabels table keys with the CPU's PEXT (private,
    for tests: ``use`` False forces the portable loop, True restores the
    run-time choice). Returns the setting in force."""
    global _use_pext
    if use is not None:
        _use_pext = _fast_pext() if use else 0
    elif _use_pext < 0:
        _use_pext = _fast_pext()
    return bool(_use_pext)


cdef inline int _popcount12(unsigned int x) noexcept nogil:
    # Set bits of a 12-bit value, in registers (the compiler's popcount is a
    # library call without a -mpopcnt build).
    x = x - ((x >> 1) & 0x555u)
    x = (x & 0x333u) + ((x >> 2) & 0x333u)
    x = (x + (x >> 4)) & 0x70Fu
    return <int>((x + (x >> 8)) & 0x1Fu)


cdef inline void _make_key(const solve_ctx* c, int s, const ddz_move* last, int ls,
                           tt_key* k) noexcept nogil:
    # The table key of a position: its hands and trick state in a canonical
    # form. Without W in play, the ranks 3..A (0..11) are relabelled in order
    # onto 0, 1, 2, ...: the lowest held rank becomes 0, held ranks that are
    # adjacent stay adjacent, and a run of ranks nobody holds shrinks to one
    # empty rank (no chain can cross it either way). 2, X and D keep their
    # places. The game from the relabelled position is the same game (chains,
    # comparisons and kickers only depend on order and adjacency), so
    # positions that differ by such a relabelling share one entry. The rank of
    # the move to beat becomes the label of the highest held rank not above
    # it (or -1): that keeps every comparison with a held rank. With W in
    # play (it may fill a gap, up to a rank limit) the hands are kept as
    # they are; so they are in laizi, where the wild rank is a rank like any
    # other and laizi fill gaps of any width.
    #
    # The relabelling drops the empty ranks whose rank below is empty too (or
    # that are rank 0): the kept ranks, in runs, move down as blocks.
    cdef uint64_t u = c.hand[0] | c.hand[1] | c.hand[2]
    cdef uint64_t mask, h0, h1, h2
    cdef unsigned int held, empty, keep, rest, t
    cdef int j, start, end, dst = 0, crank, r, sh
    if (u & WBIT) or c.rules.wild_mask:
        for j in range(3):
            k.h[j] = c.hand[j]
        crank = 0 if last == NULL else last.rank
    else:
        held = _held_ranks(u)
        empty = ~held & 0xFFF
        keep = ~(empty & ((empty << 1) | 1)) & 0xFFF
        if c.pext:
            _compact3(c.hand, keep, k.h)
            rest = 0
        else:
            rest = keep
        h0 = c.hand[0] & 0xFFFF000000000000ULL     # 2, X, D, W stay
        h1 = c.hand[1] & 0xFFFF000000000000ULL
        h2 = c.hand[2] & 0xFFFF000000000000ULL
        while rest:
            # the lowest run of kept ranks: [start, end)
            start = _ctz(rest)
            t = rest + (rest & (0u - rest))
            end = _ctz(t)
            rest &= t
            mask = ((<uint64_t>1) << (4 * end)) - ((<uint64_t>1) << (4 * start))
            sh = 4 * (start - dst)
            h0 |= (c.hand[0] & mask) >> sh
            h1 |= (c.hand[1] & mask) >> sh
            if c.nseats == 3:
                h2 |= (c.hand[2] & mask) >> sh
            dst += end - start
        if not c.pext:
            k.h[0] = h0
            k.h[1] = h1
            k.h[2] = h2
        crank = 0
        if last != NULL:
            r = last.rank
            if r >= 12:
                crank = r + 1
            else:
                # the label of the highest held rank t <= r, plus one: the
                # kept ranks up to t, which are those up to r less one when
                # t < r (t + 1, empty, is kept; ranks above it are not)
                if held & ((2u << r) - 1):
                    crank = (_popcount12(keep & ((2u << r) - 1))
                             - (1 - <int>((held >> r) & 1)))
    if last == NULL:
        k.st = (<uint32_t>1 << 31) | <uint32_t>s | (<uint32_t>NO_SEAT << 2)
    else:
        k.st = ((<uint32_t>1 << 31) | <uint32_t>s | (<uint32_t>ls << 2)
                | (<uint32_t>last.kind << 4) | (<uint32_t>crank << 9)
                | (<uint32_t>last.length << 14) | (_beat_code(c, last) << 18))


cdef inline uint64_t _mix(uint64_t x) noexcept nogil:
    x ^= x >> 31
    x *= 0xBF58476D1CE4E5B9ULL
    x ^= x >> 29
    x *= 0x94D049BB133111EBULL
    x ^= x >> 32
    return x


cdef inline uint64_t _key_hash(const uint64_t* h, uint32_t st) noexcept nogil:
    return _mix(h[0] * 0x9E3779B97F4A7C15ULL
                ^ _mix(h[1] + 0x632BE59BD9B4E019ULL)
                ^ (h[2] * 0xD6E8FEB86659FD93ULL) ^ <uint64_t>st)


cdef inline tt_entry* _tt_find(const solve_ctx* c, const tt_key* key,
                               uint64_t hsh) noexcept nogil:
    cdef int64_t i = <int64_t>(hsh & ((<uint64_t>1 << c.tt_bits) - 1)) & ~(<int64_t>1)
    cdef tt_entry* e = c.tt + i
    cdef int k
    for k in range(2):
        # (the epoch last: a probe that misses most often differs before)
        if (e[k].st == key.st and e[k].h[0] == key.h[0] and e[k].h[1] == key.h[1]
                and e[k].h[2] == key.h[2] and e[k].epoch == c.epoch):
            return e + k
    return NULL


cdef void _tt_put(tt_entry* tt, int bits, const tt_entry* src, uint64_t hsh,
                  int64_t* used) noexcept nogil:
    # src (of the search's epoch) into its bucket; an entry of another epoch
    # is empty
    cdef int64_t i = <int64_t>(hsh & ((<uint64_t>1 << bits) - 1)) & ~(<int64_t>1)
    cdef tt_entry* e = tt + i
    cdef int k, victim = -1
    for k in range(2):
        if (e[k].st == src.st and e[k].h[0] == src.h[0] and e[k].h[1] == src.h[1]
                and e[k].h[2] == src.h[2] and e[k].epoch == src.epoch):
            e[k] = src[0]
            return
    for k in range(2):
        if e[k].epoch != src.epoch:
            e[k] = src[0]
            used[0] += 1
            return
    victim = 0 if e[0].work <= e[1].work else 1
    if e[victim].work <= src.work:
        e[victim] = src[0]


cdef inline size_t _tt_block_size(int bits) noexcept nogil:
    return ((<size_t>1) << bits) * sizeof(tt_entry) + 64


cdef tt_entry* _tt_alloc(int bits, void** block) noexcept nogil:
    # A zeroed table of 2**bits entries whose two-entry buckets each fill one
    # 64-byte cache line; block gets the pointer to free.
    cdef size_t addr
    block[0] = ddz_table_alloc(_tt_block_size(bits))
    if block[0] == NULL:
        return NULL
    addr = <size_t>block[0]
    return <tt_entry*>((addr + 63) & ~(<size_t>63))


cdef int _tt_grow(solve_ctx* c) noexcept nogil:
    # Double the table and re-insert every entry; 0 when out of memory (the
    # old table stays in use).
    cdef int nb = c.tt_bits + 1
    cdef int64_t n = (<int64_t>1) << c.tt_bits
    cdef int64_t i, used = 0
    cdef void* block = NULL
    cdef tt_entry* t = _tt_alloc(nb, &block)
    if t == NULL:
        return 0
    # the old table and the new one are both held until the entries move
    c.peak = max(c.peak, _solve_bytes(c) + <int64_t>_tt_block_size(nb))
    for i in range(n):
        if c.tt[i].epoch == c.epoch:
            _tt_put(t, nb, &c.tt[i], _key_hash(c.tt[i].h, c.tt[i].st), &used)
    ddz_table_free(c.tt_block, _tt_block_size(c.tt_bits))
    c.tt = t
    c.tt_block = block
    c.tt_bits = nb
    c.tt_used = used
    return 1


cdef inline void _tt_store(solve_ctx* c, const tt_key* key, uint64_t hsh, int win,
                           int64_t work) noexcept nogil:
    cdef tt_entry e
    cdef int lg = _log2(<uint64_t>work) if work > 1 else 0
    e.h[0] = key.h[0]
    e.h[1] = key.h[1]
    e.h[2] = key.h[2]
    e.st = key.st
    e.win = <uint8_t>win
    e.work = <uint8_t>lg
    e.epoch = c.epoch
    if c.tt_used * 2 > ((<int64_t>1) << c.tt_bits) and c.tt_bits < c.tt_max_bits:
        _tt_grow(c)
    _tt_put(c.tt, c.tt_bits, &e, hsh, &c.tt_used)


cdef int _reserve(solve_ctx* c, int64_t need) noexcept nogil:
    # Make room for `need` moves (and keys) in the buffers; 0 when out of
    # memory (c.cap then still holds for every buffer: those grown before
    # the failure are only larger).
    cdef int64_t cap = c.cap
    cdef int64_t had
    if need <= cap:
        return 1
    while cap < need:
        cap *= 2
    had = c.cap
    if ddz_grow(<void**>&c.moves, &had, cap, sizeof(ddz_move)) < 0:
        return 0
    had = c.cap
    if ddz_grow(<void**>&c.keys, &had, cap, sizeof(uint64_t)) < 0:
        return 0
    had = c.cap
    if ddz_grow(<void**>&c.ckeys, &had, cap, sizeof(tt_key)) < 0:
        return 0
    had = c.cap
    if ddz_grow(<void**>&c.chash, &had, cap, sizeof(uint64_t)) < 0:
        return 0
    c.cap = cap
    return 1


cdef int64_t _gen(solve_ctx* c, int64_t base, uint64_t hand,
                  const ddz_move* last) noexcept nogil:
    # The legal moves of `hand` into moves[base:]; -1 when out of memory.
    cdef int64_t n = ddz_legal_moves(c.rules, hand, last, c.moves + base, c.cap - base)
    if n > c.cap - base:
        if not _reserve(c, base + n):
            c.stop = STOP_NOMEM
            return -1
        n = ddz_legal_moves(c.rules, hand, last, c.moves + base, c.cap - base)
    return n


cdef inline uint64_t _gen_code(const solve_ctx* c, const ddz_move* last) noexcept nogil:
    # What generation depends on besides the hand: nothing to beat, or the
    # (kind, rank, length) of the move to beat and what ddz_beats reads of
    # its cards (_beat_code; never the cards themselves).
    if last == NULL:
        return 0xFFFFFFFFFFFFFFFFULL
    return (<uint64_t>last.kind | (<uint64_t>last.rank << 8)
            | (<uint64_t>last.length << 16) | (<uint64_t>_beat_code(c, last) << 24))


cdef void _gen_forget(solve_ctx* c) noexcept nogil:
    # Empty the cache of move lists at once: a new epoch (and, when the
    # epoch wraps round, the slots zeroed, so that none of an old epoch
    # equal to the new one is taken for live)
    c.gen_epoch += 1
    if c.gen_epoch == 0:
        memset(c.gen_slots, 0, GEN_SLOTS * sizeof(gen_slot))
        c.gen_epoch = 1
    c.gen_used = 0


cdef int64_t _gen_cached(solve_ctx* c, int64_t base, uint64_t hand,
                         const ddz_move* last) noexcept nogil:
    # _gen through the cache of move lists (same moves, same order).
    cdef uint64_t code = _gen_code(c, last)
    cdef gen_slot* e = c.gen_slots + (_mix(hand ^ (code * 0x9E3779B97F4A7C15ULL))
                                      & (GEN_SLOTS - 1))
    cdef int64_t n
    if e.epoch == c.gen_epoch and e.hand == hand and e.last == code:
        n = e.count
        if base + n > c.cap and not _reserve(c, base + n):
            c.stop = STOP_NOMEM
            return -1
        memcpy(c.moves + base, c.gen_arena + e.start, <size_t>n * sizeof(ddz_move))
        return n
    n = _gen(c, base, hand, last)
    if n < 0 or n > GEN_LIST_MAX:
        return n
    if c.gen_used + n > GEN_ARENA:
        _gen_forget(c)
    memcpy(c.gen_arena + c.gen_used, c.moves + base, <size_t>n * sizeof(ddz_move))
    e.hand = hand
    e.last = code
    e.epoch = c.gen_epoch
    e.start = c.gen_used
    e.count = <uint32_t>n
    c.gen_used += <uint32_t>n
    return n


cdef inline const hand_answers* _answers(solve_ctx* c, int64_t base, uint64_t hand) noexcept nogil:
    # What `hand` can answer, from the cache or from its lead moves
    # (generated into moves[base:], scratch space). NULL when out of memory.
    cdef hand_answers* s = c.answer_cache + (_mix(hand * 0x9E3779B97F4A7C15ULL) & (ANSWER_CACHE - 1))
    if s.epoch == c.epoch and s.hand == hand:
        return s
    return _answers_fill(c, base, hand, s)


cdef const hand_answers* _answers_fill(solve_ctx* c, int64_t base, uint64_t hand,
                                  hand_answers* s) noexcept nogil:
    cdef int64_t n, i
    cdef const ddz_move* m
    cdef int t
    n = _gen_cached(c, base, hand, NULL)
    if n < 0:
        return NULL
    s.hand = hand
    s.epoch = c.epoch
    s.maxtier = 0
    s.toprank = -1
    s.toppure = -1
    memset(s.rmask, 0, sizeof(s.rmask))
    s.nwhole = 0
    for i in range(n):
        m = c.moves + base + i
        if m.kind == K_PASS:
            continue
        if m.cards == hand and s.nwhole < WHOLE_MAX:
            s.whole[s.nwhole] = m[0]
            s.nwhole += 1
        t = _tier(c, m)
        if t > s.maxtier:
            s.maxtier = <uint16_t>t
            s.toprank = -1
            s.toppure = -1
        if t == s.maxtier and t > 0 and c.rules.ranked[m.kind]:
            if m.kind != K_LAIZI_BOMB:
                if <int>m.rank > s.toprank:
                    s.toprank = <int8_t>m.rank
            elif ddz_one_rank(m.cards) and <int>m.rank > s.toppure:
                s.toppure = <int8_t>m.rank
        s.rmask[m.kind][m.length & 15] |= <uint16_t>(1u << m.rank)
    return s


cdef inline int _wins_at_once(const ddz_rules* r, const hand_answers* s,
                              const ddz_move* to_beat) noexcept nogil:
    # 1 when the summarised hand is one move that leads (to_beat NULL) or
    # beats to_beat: its seat, to move, empties its hand at once. (Only the
    # first WHOLE_MAX readings are kept: a miss only forgoes a shortcut.)
    cdef int k
    if s.nwhole == 0:
        return 0
    if to_beat == NULL:
        return 1
    for k in range(s.nwhole):
        if ddz_beats(r, &s.whole[k], to_beat):
            return 1
    return 0


cdef inline int _can_beat(const solve_ctx* c, const hand_answers* s,
                          const ddz_move* m) noexcept nogil:
    # 1 when the summarised hand has a move that beats m (as ddz_beats: a
    # higher tier; or in m's tier, both ranked, a higher rank, and for a
    # LAIZI_BOMB, both of one rank).
    cdef int tm = _tier(c, m)
    if s.maxtier > tm:
        return 1
    if tm == 0:
        return 1 if (s.rmask[m.kind][m.length & 15] >> (m.rank + 1)) else 0
    if s.maxtier < tm or not c.rules.ranked[m.kind]:
        return 0
    if s.toprank > <int>m.rank:
        return 1
    return 1 if (s.toppure > <int>m.rank and ddz_one_rank(m.cards)) else 0


cdef inline uint32_t _hist_code(uint32_t h) noexcept nogil:
    # A history count in 16 bits, in the same order: exact below 4096,
    # then 11 significant bits and the exponent (a float of sorts).
    cdef int e
    if h < 4096:
        return h
    e = _log2(h) - 11
    return (<uint32_t>e << 11) + (h >> e)


cdef inline int _killer_size(uint64_t hand) noexcept nogil:
    cdef int n = _hand_size(hand)
    return n if n < KILLER_SIZES else KILLER_SIZES - 1


cdef inline uint32_t _move_id(const ddz_move* m) noexcept nogil:
    return <uint32_t>m.kind | (<uint32_t>m.rank << 8) | (<uint32_t>m.length << 16)


cdef void _sift_min(uint64_t* a, int64_t root, int64_t end) noexcept nogil:
    # a[root] down the min-heap a[:end]
    cdef int64_t child
    cdef uint64_t v = a[root]
    while True:
        child = 2 * root + 1
        if child >= end:
            break
        if child + 1 < end and a[child + 1] < a[child]:
            child += 1
        if a[child] >= v:
            break
        a[root] = a[child]
        root = child
    a[root] = v


cdef void _sort_desc(uint64_t* a, int64_t n) noexcept nogil:
    # Descending. Insertion sort for the few keys of most nodes (a handful:
    # the gap sequence's set-up cost more than the sort); Shell sort
    # (Ciura's gaps) for longer lists; heapsort past a few thousand, where
    # Shell sort with those gaps grows as the square (the leads of hands
    # larger than a deal's run to millions). No allocation.
    cdef int64_t gaps[8]
    cdef int64_t g, i, j, gi
    cdef uint64_t v
    if n <= 16:
        for i in range(1, n):
            v = a[i]
            j = i
            while j > 0 and a[j - 1] < v:
                a[j] = a[j - 1]
                j -= 1
            a[j] = v
        return
    if n > SHELL_SORT_MAX:
        # a min-heap whose smallest key goes to the end, one by one
        for i in range(n // 2 - 1, -1, -1):
            _sift_min(a, i, n)
        for i in range(n - 1, 0, -1):
            v = a[0]
            a[0] = a[i]
            a[i] = v
            _sift_min(a, 0, i)
        return
    gaps[0] = 701; gaps[1] = 301; gaps[2] = 132; gaps[3] = 57; gaps[4] = 23
    gaps[5] = 10; gaps[6] = 4; gaps[7] = 1
    for gi in range(8):
        g = gaps[gi]
        if g >= n and g > 1:
            continue
        for i in range(g, n):
            v = a[i]
            j = i
            while j >= g and a[j - g] < v:
                a[j] = a[j - g]
                j -= g
            a[j] = v


cdef int _order(solve_ctx* c, int64_t base, int64_t n, int s, const ddz_move* last,
                int ls) noexcept nogil:
    # Ordering keys for moves[base:base+n] into keys[base:], sorted best
    # first: moves no opponent can beat (the seat keeps the lead), then other
    # plain moves, then PASS, then bombs that can be answered, and last the
    # moves after which the next seat, an opponent, empties its hand at once
    # (CAT_LOSES: they lose; the search skips them); within each,
    # more cards first, then moves that won larger searches elsewhere (history
    # heuristic), then generation order (lower ranks first). Before all of
    # them (unless it loses at once) the killer move: the move that last won
    # a node of the same kind (leading or following) for this seat with the
    # same hand sizes of this seat and the next. Key layout:
    # (killer | category) << 56 | cards << 48 | history << 32 | ~index. 0 when
    # out of memory. The killer is keyed by both hand sizes, and ranked above
    # the category, because keyed by the seat's hand size only, or ranked
    # below, it cuts less; history comes after the card count, scores wins
    # by their subtrees rather than per try, and keeps apart tables for
    # leading and following, each the order that searched fewer positions
    # on the published puzzles.
    cdef const hand_answers* sm
    cdef int nopp, o, k, cat, flags, pass_loses, last_opp, lead = last == NULL
    cdef int ns = _next_seat(c, s)
    cdef int pass_mover
    cdef uint32_t hv
    cdef int64_t i
    cdef const ddz_move* m
    cdef const ddz_move* pass_beat
    cdef int seats[2]
    cdef int hs = _killer_size(c.hand[s])
    cdef int osz = _killer_size(c.hand[ns])
    cdef uint64_t kc = c.kcards[lead][s][hs][osz]
    cdef uint32_t kid = c.kid[lead][s][hs][osz]
    cdef uint64_t top
    cdef uint64_t* keys
    cdef const ddz_move* moves
    if c.landlord < 0:
        nopp = 1
        seats[0] = 1 - s
    elif s != c.landlord:
        nopp = 1
        seats[0] = c.landlord
    else:
        nopp = 2
        seats[0] = ns
        seats[1] = _next_seat(c, ns)
    # after a pass: who moves, and what it must beat
    if last == NULL:
        pass_mover, pass_beat = ns, NULL
    elif ns == ls:
        pass_mover, pass_beat = ls, NULL
    else:
        pass_mover, pass_beat = ns, last
    # Summaries are fetched one at a time (a second fetch may evict the
    # first): with two opponents, keys hold the first one's flags meanwhile.
    # Flags: 1 an opponent can beat the move, 2 it loses at once.
    for k in range(nopp):
        o = seats[k]
        sm = _answers(c, base + n, c.hand[o])
        if sm == NULL:
            return 0
        # _answers generates past base + n and may grow (move) the buffers
        keys = c.keys + base
        moves = c.moves + base
        pass_loses = pass_mover == o and _wins_at_once(c.rules, sm, pass_beat)
        last_opp = k == nopp - 1
        for i in range(n):
            m = moves + i
            flags = 0 if k == 0 else <int>keys[i]
            if m.kind != K_PASS:
                if _can_beat(c, sm, m):
                    flags |= 1
                    if ns == o and _wins_at_once(c.rules, sm, m):
                        flags |= 2
            elif pass_loses:
                flags |= 2
            if not last_opp:
                keys[i] = <uint64_t>flags
                continue
            if flags & 2:
                cat = CAT_LOSES
            elif m.kind == K_PASS:
                cat = CAT_PASS
            elif not (flags & 1):
                cat = CAT_KEEP
            elif _tier(c, m):
                cat = CAT_BOMB
            else:
                cat = CAT_PLAIN
            hv = _hist_code(c.hist[lead][m.length & 15][m.kind][m.rank & 15])
            # the killer move goes first (bit 63), whatever its category,
            # unless it loses at once
            top = <uint64_t>cat
            if (cat != CAT_LOSES and m.cards == kc and m.kind != K_PASS
                    and _move_id(m) == kid):
                top |= KILLER_BIT
            keys[i] = ((top << 56) | (<uint64_t>_hand_size(m.cards) << 48)
                       | (<uint64_t>hv << 32) | (0xFFFFFFFFULL - <uint64_t>i))
    _sort_desc(keys, n)
    return 1


cdef int _keep_then_one(solve_ctx* c, int64_t base, int64_t n, uint64_t hand) noexcept nogil:
    # The static win test of a seat that leads, on its ordered lead moves
    # moves[base:base+n]: 1 when its hand is some moves no opponent can beat
    # (taken greedily in order) and then at most one more move. It plays
    # those one by one (every opponent passes each, a partner passes too,
    # and it leads again) and then the last: its side wins. 0 says nothing.
    cdef uint64_t rest = hand, mc
    cdef uint64_t hi = 0x8888888888888888ULL
    cdef int64_t i, idx
    cdef int got = 0
    for i in range(n):
        if ((c.keys[base + i] >> 56) & CAT_MASK) != CAT_KEEP:
            continue
        idx = <int64_t>(0xFFFFFFFFULL - (c.keys[base + i] & 0xFFFFFFFFULL))
        mc = c.moves[base + idx].cards
        # mc within rest, nibble by nibble (counts are at most 4: no nibble
        # of rest | hi borrows unless mc holds more of that card)
        if (((rest | hi) - mc) & hi) == hi:
            rest -= mc
            got = 1
            if rest == 0:
                return 1
    if not got:
        return 0
    for i in range(n):
        if c.moves[base + i].cards == rest:
            return 1
    return 0


cdef int _norm_rank(solve_ctx* c, int64_t base, int s, const ddz_move* last,
                    int ls) noexcept nogil:
    # For a plain move to beat: the rank that gives the seats still to answer
    # it (s, and the next seat unless it played it) exactly the same replies,
    # chosen canonically: the highest rank, not above last's, of their moves of
    # that kind and length (0 when they have none). Positions that differ only
    # in such ranks have the same future and share one table entry. -1 when
    # out of memory.
    cdef const hand_answers* sm = _answers(c, base, c.hand[s])
    cdef unsigned int mask
    cdef int ns = _next_seat(c, s)
    cdef int r = 0
    if sm == NULL:
        return -1
    mask = sm.rmask[last.kind][last.length & 15]
    if c.nseats == 3 and ns != ls:
        sm = _answers(c, base, c.hand[ns])
        if sm == NULL:
            return -1
        mask |= sm.rmask[last.kind][last.length & 15]
    mask &= (2u << last.rank) - 1
    while mask > 1:
        mask >>= 1
        r += 1
    return r


cdef inline int _normalize(solve_ctx* c, int64_t base, int s, const ddz_move** last,
                           int ls, ddz_move* buf) noexcept nogil:
    # Point *last at the canonical move to beat (see _norm_rank; a copy in
    # buf when it changes). 0, or -1 when out of memory.
    cdef int r
    if last[0] != NULL and _tier(c, last[0]) == 0:
        r = _norm_rank(c, base, s, last[0], ls)
        if r < 0:
            c.stop = STOP_NOMEM
            return -1
        if r != last[0].rank:
            buf[0] = last[0][0]
            buf.rank = <uint8_t>r
            last[0] = buf
    return 0


cdef inline int _tt_work(solve_ctx* c, int64_t base, int s, const ddz_move* last,
                         int ls) noexcept nogil:
    # The stored work of a position (0 when not stored), keyed as its own
    # search keys it.
    cdef tt_key key
    cdef tt_entry* e
    cdef ddz_move buf
    if _normalize(c, base, s, &last, ls, &buf) < 0:
        return 0
    _make_key(c, s, last, ls, &key)
    e = _tt_find(c, &key, _key_hash(key.h, key.st))
    return 0 if e == NULL else e.work


cdef inline void _remember_win(solve_ctx* c, int s, const ddz_move* last, uint64_t hand,
                              const ddz_move* m, int64_t work) noexcept nogil:
    # History and killer of a node of s (holding `hand`) that m won after
    # `work` positions.
    cdef uint32_t* hp = &c.hist[last == NULL][m.length & 15][m.kind][m.rank & 15]
    cdef int hs, osz
    cdef uint64_t v = <uint64_t>hp[0] + <uint64_t>work
    hp[0] = <uint32_t>(v if v < 0xFFFFFFFFULL else 0xFFFFFFFFULL)
    if m.kind != K_PASS:
        hs = _killer_size(hand)
        osz = _killer_size(c.hand[_next_seat(c, s)])
        c.kcards[last == NULL][s][hs][osz] = m.cards
        c.kid[last == NULL][s][hs][osz] = _move_id(m)


cdef void _history_clear(solve_ctx* c) noexcept nogil:
    # The history and killer entries the search may have written zero again:
    # those of moves and hands of at most c.size_bound cards (its hands only
    # lose cards, and a move is no longer than the hand that plays it)
    cdef int lead, s, hs
    cdef int lengths = (c.size_bound if c.size_bound < 15 else 15) + 1
    cdef int sizes = (c.size_bound if c.size_bound < KILLER_SIZES - 1
                      else KILLER_SIZES - 1) + 1
    for lead in range(2):
        memset(&c.hist[lead][0][0][0], 0, lengths * sizeof(c.hist[lead][0]))
        for s in range(3):
            for hs in range(sizes):
                memset(&c.kcards[lead][s][hs][0], 0, sizes * sizeof(uint64_t))
                memset(&c.kid[lead][s][hs][0], 0, sizes * sizeof(uint32_t))


cdef int64_t _enhanced_tt_cutoff(solve_ctx* c, int64_t base, int64_t n, int s, const ddz_move* last,
                  int ls) noexcept nogil:
    # Enhanced transposition cut-off, on the ordered moves moves[base:base+n]
    # of seat s: the table key of the position after each move (but those
    # that lose at once) into ckeys/chash[base + index], probed at once. The
    # index of a move that the table proves wins for the side of s; else -1,
    # with the keys of the moves it proves lose marked (st = 0); -2 when out
    # of memory. The children's searches reuse these keys, so at a node
    # that loses, where every child is searched anyway, the probes cost
    # nothing extra.
    cdef uint64_t hand = c.hand[s]
    cdef int64_t i, idx
    cdef int cat, cs, cls, ns = _next_seat(c, s)
    cdef ddz_move m, nl
    cdef const ddz_move* cl
    cdef tt_key* key
    cdef tt_entry* e
    cdef uint64_t h
    for i in range(n):
        cat = <int>((c.keys[base + i] >> 56) & CAT_MASK)
        if cat == CAT_LOSES:
            continue
        idx = <int64_t>(0xFFFFFFFFULL - (c.keys[base + i] & 0xFFFFFFFFULL))
        m = c.moves[base + idx]    # a copy: the buffer may move
        if m.kind == K_PASS:
            cs = _after_pass(ns, last, ls, &cl)
            cls = NO_SEAT if cl == NULL else ls
        elif cat == CAT_KEEP and (c.nseats == 2 or s == c.landlord):
            cs, cl, cls = s, NULL, NO_SEAT
        elif cat == CAT_KEEP and ns == c.landlord:
            cs, cl, cls = _next_seat(c, ns), &m, s
        else:
            cs, cl, cls = ns, &m, s
        if m.kind != K_PASS:
            c.hand[s] = hand - m.cards
        if _normalize(c, base + n, cs, &cl, cls, &nl) < 0:
            c.hand[s] = hand
            return -2
        key = c.ckeys + base + idx
        _make_key(c, cs, cl, cls, key)
        key.nrank = 0 if cl == NULL else cl.rank
        key.same = _side(c, cs) == _side(c, s)
        c.hand[s] = hand
        h = _key_hash(key.h, key.st)
        c.chash[base + idx] = h
        # all the buckets are fetched at once, then probed: their cache
        # misses overlap
        _prefetch(c.tt + (<int64_t>(h & ((<uint64_t>1 << c.tt_bits) - 1)) & ~(<int64_t>1)))
    for i in range(n):
        if <int>((c.keys[base + i] >> 56) & CAT_MASK) == CAT_LOSES:
            continue
        idx = <int64_t>(0xFFFFFFFFULL - (c.keys[base + i] & 0xFFFFFFFFULL))
        key = c.ckeys + base + idx
        e = _tt_find(c, key, c.chash[base + idx])
        if e != NULL:
            if e.win if key.same else 1 - e.win:
                return idx
            key.st = 0
    return -1


cdef int _stop_now(solve_ctx* c) noexcept nogil:
    # Whether the search must stop for the time limit or a signal (checked
    # every POLL_SECONDS: Ctrl-C stops a search within that and the unwind);
    # c.stop says which.
    cdef double now = ddz_now()
    if c.deadline > 0 and now > c.deadline:
        c.stop = STOP_TIME
        return 1
    if now >= c.next_poll:
        c.next_poll = now + POLL_SECONDS
        if _interrupted():
            c.stop = STOP_INTERRUPT
            return 1
    return 0


cdef int _node(solve_ctx* c, int64_t base, int s, const ddz_move* last,
               int ls, const tt_key* pk, uint64_t phsh) noexcept nogil:
    # 1 when the side of seat s (to move) wins, 0 when it loses, -1 when the
    # search stopped (c.stop says why). Moves go to moves[base:]. pk: the
    # position's table key and phsh its hash when the parent computed them
    # (_enhanced_tt_cutoff; NULL: computed here).
    cdef tt_key key
    cdef tt_entry* e
    cdef uint64_t hsh, hand = c.hand[s]
    cdef int64_t n, i, idx, start
    cdef int r, win = 0
    cdef ddz_move m, nl
    cdef tt_key ck
    cdef int cat
    cdef int64_t tried
    # counted once past the limits: a search that stops counts only the
    # positions it searched
    if c.nodes >= c.max_nodes:
        c.stop = STOP_NODES
        return -1
    if ((c.nodes + 1) & 4095) == 0 and _stop_now(c):
        return -1
    c.nodes += 1
    if pk == NULL:
        if _normalize(c, base, s, &last, ls, &nl) < 0:
            return -1
        _make_key(c, s, last, ls, &key)
        hsh = _key_hash(key.h, key.st)
    else:
        key = pk[0]
        hsh = phsh
        if last != NULL and last.rank != key.nrank and _tier(c, last) == 0:
            nl = last[0]
            nl.rank = key.nrank
            last = &nl
    e = _tt_find(c, &key, hsh)
    if e != NULL:
        return e.win
    start = c.nodes
    n = _gen_cached(c, base, hand, last)
    if n < 0:
        return -1
    # a move that empties the hand wins at once
    for i in range(n):
        if c.moves[base + i].cards == hand:
            return 1
    tried = -1
    if n > 1:
        # following, the killer move first, before ordering the others: it
        # wins most nodes where it is legal, and then no ordering is needed.
        # (Leading, the static test of _keep_then_one, which needs the
        # order, comes first: trying the killer before it searches more
        # positions.)
        if last != NULL:
            tried = _find_killer(c, base, n, s, last, hand)
        if tried >= 0:
            m = c.moves[base + tried]
            cat = _category(c, base + n, s, last, &m)
            if cat < 0:
                c.stop = STOP_NOMEM
                return -1
            if cat == CAT_LOSES:
                tried = -1
            else:
                r = _move_wins(c, base + n, s, last, ls, &m, cat, NULL, 0)
                if r < 0:
                    return -1
                if r:
                    _remember_win(c, s, last, hand, &m, c.nodes - start + 1)
                    _tt_store(c, &key, hsh, 1, c.nodes - start + 1)
                    return 1
        if not _order(c, base, n, s, last, ls):
            c.stop = STOP_NOMEM
            return -1
    else:
        c.keys[base] = (<uint64_t>CAT_PASS << 56) | 0xFFFFFFFFULL   # no ordering: a neutral key
    if n > 1 and last == NULL and _keep_then_one(c, base, n, hand):
        # a static win: stored, as its test costs a generation and ordering
        _tt_store(c, &key, hsh, 1, c.nodes - start + 1)
        return 1
    if n > 1:
        idx = _enhanced_tt_cutoff(c, base, n, s, last, ls)
        if idx == -2:
            c.stop = STOP_NOMEM
            return -1
        if idx >= 0:
            m = c.moves[base + idx]
            _tt_store(c, &key, hsh, 1, c.nodes - start + 1)
            _remember_win(c, s, last, hand, &m, 1)
            return 1
    for i in range(n):
        idx = <int64_t>(0xFFFFFFFFULL - (c.keys[base + i] & 0xFFFFFFFFULL))
        cat = <int>((c.keys[base + i] >> 56) & CAT_MASK)
        if cat == CAT_LOSES or idx == tried:
            continue        # the next seat, an opponent, wins at once; or searched
        m = c.moves[base + idx]    # a copy: the buffer may move while searching
        if n > 1:
            ck = c.ckeys[base + idx]
            if ck.st == 0:
                continue    # the table proves it loses
            r = _move_wins(c, base + n, s, last, ls, &m, cat, &ck, c.chash[base + idx])
        else:
            r = _move_wins(c, base + n, s, last, ls, &m, cat, NULL, 0)
        if r < 0:
            return -1
        if r:
            win = 1
            _remember_win(c, s, last, hand, &m, c.nodes - start + 1)
            break
    _tt_store(c, &key, hsh, win, c.nodes - start + 1)
    return win


cdef int _move_wins(solve_ctx* c, int64_t base, int s, const ddz_move* last, int ls,
              const ddz_move* m, int cat, const tt_key* pk, uint64_t phsh) noexcept nogil:
    # 1 when s's move m (not losing at once; of ordering category cat) wins
    # for the side of s, 0 when not, -1 when the search stopped. The child
    # position is searched from moves[base:]; pk/phsh: its key, or NULL.
    cdef uint64_t hand = c.hand[s]
    cdef int ns = _next_seat(c, s)
    cdef int r
    cdef ddz_move mm = m[0]    # a copy: m may point into a buffer that moves
    cdef const ddz_move* table
    if mm.kind == K_PASS:
        # (a pass when leading is a hand of W alone's: the next seat leads)
        ns = _after_pass(ns, last, ls, &table)
        r = _node(c, base, ns, table, NO_SEAT if table == NULL else ls, pk, phsh)
    elif cat == CAT_KEEP and (c.nseats == 2 or s == c.landlord):
        # no opponent can beat it: they pass and s leads again
        c.hand[s] = hand - mm.cards
        r = _node(c, base, s, NULL, NO_SEAT, pk, phsh)
        c.hand[s] = hand
        ns = s
    elif cat == CAT_KEEP and ns == c.landlord:
        # a farmer's move the landlord cannot beat: the landlord passes and
        # the partner answers (or passes the lead back to s)
        c.hand[s] = hand - mm.cards
        ns = _next_seat(c, ns)
        r = _node(c, base, ns, &mm, s, pk, phsh)
        c.hand[s] = hand
    else:
        c.hand[s] = hand - mm.cards
        r = _node(c, base, ns, &mm, s, pk, phsh)
        c.hand[s] = hand
    if r < 0:
        return -1
    return r if _side(c, ns) == _side(c, s) else 1 - r


cdef inline int64_t _find_killer(solve_ctx* c, int64_t base, int64_t n, int s,
                                 const ddz_move* last, uint64_t hand) noexcept nogil:
    # The index in moves[base:base+n] of the killer move of this node (see
    # _order), or -1.
    cdef int lead = last == NULL
    cdef int hs = _killer_size(hand)
    cdef int osz = _killer_size(c.hand[_next_seat(c, s)])
    cdef uint64_t kc = c.kcards[lead][s][hs][osz]
    cdef uint32_t kid = c.kid[lead][s][hs][osz]
    cdef int64_t i
    if kc == 0:
        return -1
    for i in range(n):
        if c.moves[base + i].cards == kc and _move_id(&c.moves[base + i]) == kid:
            return i
    return -1


cdef int _category(solve_ctx* c, int64_t base, int s, const ddz_move* last,
                   const ddz_move* m) noexcept nogil:
    # The ordering category of s's non-pass move m (as _order gives it), or
    # -1 when out of memory; moves[base:] is scratch space.
    cdef const hand_answers* sm
    cdef int o, flags = 0
    cdef int ns = _next_seat(c, s)
    for o in range(c.nseats):
        if _side(c, o) == _side(c, s):
            continue
        sm = _answers(c, base, c.hand[o])
        if sm == NULL:
            return -1
        if _can_beat(c, sm, m):
            flags |= 1
            if ns == o and _wins_at_once(c.rules, sm, m):
                return CAT_LOSES
    if not (flags & 1):
        return CAT_KEEP
    if _tier(c, m):
        return CAT_BOMB
    return CAT_PLAIN


cdef int _child(solve_ctx* c, int64_t base, int s, const ddz_move* last, int ls,
                const ddz_move* m, int* work) noexcept nogil:
    # The value of playing m for the side of s: 1 win, 0 loss, -1 stopped;
    # `work` gets the child's stored work (for choosing a loser's reply).
    cdef uint64_t hand = c.hand[s]
    cdef int ns = _next_seat(c, s)
    cdef int r, cs, cl
    cdef const ddz_move* cast
    work[0] = 0
    if m.kind != K_PASS and m.cards == hand:
        return 1
    if m.kind == K_PASS:
        cs = _after_pass(ns, last, ls, &cast)
        cl = NO_SEAT if cast == NULL else ls
        r = _node(c, base, cs, cast, cl, NULL, 0)
        if r >= 0:
            work[0] = _tt_work(c, base, cs, cast, cl)
    else:
        cs = ns
        c.hand[s] = hand - m.cards
        r = _node(c, base, ns, m, s, NULL, 0)
        if r >= 0:
            work[0] = _tt_work(c, base, ns, m, s)
        c.hand[s] = hand
    if r < 0:
        return -1
    return r if _side(c, cs) == _side(c, s) else 1 - r


cdef int _root(solve_ctx* c, int s, const ddz_move* last, int ls, int all_moves,
               int8_t* res, int64_t n) noexcept nogil:
    # Search the root moves moves[0:n] in order; res[i] gets the value of
    # move i (1/0, or -1 when not searched). Returns the root's value or -1.
    cdef int64_t i, idx
    cdef int r, win = 0, work
    cdef ddz_move m
    for i in range(n):
        res[i] = -1
    c.nodes += 1
    if n > 1 and not _order(c, 0, n, s, last, ls):
        c.stop = STOP_NOMEM
        return -1
    if n == 1:
        c.keys[0] = (<uint64_t>CAT_PASS << 56) | 0xFFFFFFFFULL
    for i in range(n):
        idx = <int64_t>(0xFFFFFFFFULL - (c.keys[i] & 0xFFFFFFFFULL))
        m = c.moves[idx]
        r = _child(c, n, s, last, ls, &m, &work)
        if r < 0:
            return -1
        res[idx] = <int8_t>r
        if r:
            win = 1
            if not all_moves:
                break
    return win


cdef int _line(solve_ctx* c, int s, const ddz_move* last, int ls, int win,
               ddz_move* out, int max_len) noexcept nogil:
    # A principal variation from the position (whose value for the side to
    # move is `win`) to the end of the deal into out; its length, or -1. The
    # winning side plays its first winning move in search order; the losing
    # side plays the reply whose refutation took the most search (the
    # stubbornest defence the table remembers).
    cdef int length = 0, r, work, best_work, ns
    cdef int winner = _side(c, s) if win else 1 - _side(c, s)
    cdef int64_t n, i, idx, best
    cdef ddz_move m, lm
    cdef uint64_t hand
    while length < max_len:
        win = _side(c, s) == winner
        hand = c.hand[s]
        n = _gen(c, 0, hand, last)
        if n < 0:
            return -1
        if n > 1 and not _order(c, 0, n, s, last, ls):
            c.stop = STOP_NOMEM
            return -1
        if n == 1:
            c.keys[0] = (<uint64_t>CAT_PASS << 56) | 0xFFFFFFFFULL
        best = -1
        best_work = -1
        for i in range(n):
            idx = <int64_t>(0xFFFFFFFFULL - (c.keys[i] & 0xFFFFFFFFULL))
            m = c.moves[idx]
            r = _child(c, n, s, last, ls, &m, &work)
            if r < 0:
                # out of time: the line so far (out of memory, interrupted: none)
                return length if c.stop == STOP_TIME else -1
            if win:
                if r:
                    best = idx
                    break
            elif work > best_work:
                best = idx
                best_work = work
        if best < 0:       # cannot happen: the value was proved
            return -1
        m = c.moves[best]
        out[length] = m
        length += 1
        ns = _next_seat(c, s)
        if m.kind == K_PASS:
            s = _after_pass(ns, last, ls, &last)
            if last == NULL:
                ls = NO_SEAT
        else:
            c.hand[s] -= m.cards
            if c.hand[s] == 0:
                return length
            lm = m
            last = &lm
            ls = s
            s = ns
    return -1


cdef class _SolveScratch:
    """A search's context, buffers and caches, kept by a thread from one
    search to the next (_thread_scratch), so that a small search does not pay
    for allocating and zeroing them (about 1 MiB of caches, a 2 MiB table
    and the 84 KiB of the history and killer tables): the next search
    empties the caches by a new epoch (solve_ctx.epoch, gen_epoch), and each
    search zeroes the history entries it may have written. What a search
    grew past the first sizes (the table, the move buffers) is freed when it
    ends, so that a thread keeps the first sizes only."""
    cdef solve_ctx* ctx
    cdef ddz_move* line
    cdef bint busy

    def __dealloc__(self):
        if self.ctx != NULL:
            self._free_moves()
            self._free_table()
            free(self.ctx.answer_cache)
            free(self.ctx.gen_slots)
            free(self.ctx.gen_arena)
            free(self.ctx)
        free(self.line)

    cdef void _free_moves(self) noexcept:
        cdef solve_ctx* c = self.ctx
        free(c.moves)
        free(c.keys)
        free(c.ckeys)
        free(c.chash)
        c.moves = NULL
        c.keys = NULL
        c.ckeys = NULL
        c.chash = NULL
        c.cap = 0

    cdef void _free_table(self) noexcept:
        cdef solve_ctx* c = self.ctx
        ddz_table_free(c.tt_block, _tt_block_size(c.tt_bits))
        c.tt_block = NULL
        c.tt = NULL
        c.tt_bits = 0

    cdef solve_ctx* lend(self) except NULL:
        # The search's context: its buffers and caches emptied for a new
        # search, the fields one search sets zero (the history and killer
        # tables are zero between searches: take_back); MemoryError when
        # they cannot be made
        cdef solve_ctx* c
        if self.ctx == NULL:
            self.ctx = <solve_ctx*>calloc(1, sizeof(solve_ctx))
            if self.ctx == NULL:
                raise MemoryError("out of memory for the solver's context")
        c = self.ctx
        if c.moves == NULL:
            c.moves = <ddz_move*>malloc(FIRST_MOVES * sizeof(ddz_move))
            c.keys = <uint64_t*>malloc(FIRST_MOVES * sizeof(uint64_t))
            c.ckeys = <tt_key*>malloc(FIRST_MOVES * sizeof(tt_key))
            c.chash = <uint64_t*>malloc(FIRST_MOVES * sizeof(uint64_t))
            c.cap = FIRST_MOVES
        if c.tt == NULL:
            c.tt_bits = TT_MIN_BITS
            c.tt = _tt_alloc(TT_MIN_BITS, &c.tt_block)
        if c.answer_cache == NULL:
            c.answer_cache = <hand_answers*>calloc(ANSWER_CACHE, sizeof(hand_answers))
        if c.gen_slots == NULL:
            c.gen_slots = <gen_slot*>calloc(GEN_SLOTS, sizeof(gen_slot))
        if c.gen_arena == NULL:
            c.gen_arena = <ddz_move*>malloc(GEN_ARENA * sizeof(ddz_move))
        if self.line == NULL:
            self.line = <ddz_move*>malloc(MAX_LINE * sizeof(ddz_move))
        if c.moves == NULL or c.keys == NULL or c.ckeys == NULL or c.chash == NULL \
                or c.tt == NULL or c.answer_cache == NULL or c.gen_slots == NULL \
                or c.gen_arena == NULL or self.line == NULL:
            self._free_moves()
            raise MemoryError("out of memory for the solver's table and buffers")
        memset(c, 0, <size_t>(<char*>&c.moves - <char*>c))
        # a new epoch; when it wraps round, the entries of every old epoch
        # zeroed (0 is no search's epoch: fresh memory is empty)
        c.epoch += 1
        if c.epoch == 0:
            memset(c.tt, 0, ((<size_t>1) << c.tt_bits) * sizeof(tt_entry))
            memset(c.answer_cache, 0, ANSWER_CACHE * sizeof(hand_answers))
            c.epoch = 1
        _gen_forget(c)
        self.busy = True
        return c

    cdef void take_back(self) noexcept:
        # After the search: what it grew past the first sizes (the table, the
        # move buffers) freed, its history and killer tables zero again
        if self.ctx.cap > FIRST_MOVES:
            self._free_moves()
        if self.ctx.tt_bits > TT_MIN_BITS:
            self._free_table()
        _history_clear(self.ctx)
        self.busy = False


_scratch_of_thread = threading.local()


cdef _SolveScratch _thread_scratch():
    # The scratch of the calling thread (freed with the thread); a fresh one,
    # dropped after the search, when the thread's own is in use (a search
    # started by a signal handler while another polls for signals)
    cdef _SolveScratch scratch = getattr(_scratch_of_thread, "scratch", None)
    if scratch is None:
        scratch = _SolveScratch()
        _scratch_of_thread.scratch = scratch
    elif scratch.busy:
        scratch = _SolveScratch()
    return scratch


def _solve_scratch_epochs(int epoch, unsigned int gen_epoch):
    """Move the calling thread's solver scratch on to these epochs (private:
    the tests of the epochs' wrap round). Only forward: an epoch no older
    than the scratch's is refused, as entries of it may be in the caches."""
    cdef _SolveScratch scratch = _thread_scratch()
    cdef solve_ctx* c
    scratch.lend()
    scratch.take_back()
    c = scratch.ctx
    if not c.epoch < epoch <= 0xFFFF:
        raise ValueError(f"epoch is {c.epoch + 1}..65535, not {epoch}")
    if not gen_epoch > c.gen_epoch:
        raise ValueError(f"gen_epoch is more than {c.gen_epoch}, not {gen_epoch}")
    c.epoch = <uint16_t>epoch
    c.gen_epoch = gen_epoch


# --------------------------------------------------------------------------
# The Python entry point
# --------------------------------------------------------------------------

cdef int _solve_seat(object value, str what, int nseats) except -1:
    if not _is_integral(value):
        raise TypeError(f"{what} is a seat 0..{nseats - 1}, not {value!r}")
    if not 0 <= value < nseats:
        raise ValueError(f"{what} is a seat 0..{nseats - 1}, not {value}")
    return value


def _solve(hands, rules, to_move, last, last_seat, landlord, all_moves, max_nodes,
           seconds, int table_bits=TT_MAX_BITS):
    """The search behind ddzfast.solve: checks its arguments and returns
    (win, move, winning_moves, line, nodes, seconds, memory_bytes).
    ``table_bits`` (private, for measurements) caps the table at
    2**table_bits entries."""
    cdef Rules r = _get_rules(rules)
    cdef solve_ctx* c
    cdef uint64_t bits[3]
    cdef uint64_t total = 0
    cdef int nseats, s, i, ls = NO_SEAT, ll = -1, win = -1, nline = 0, allm, pext
    cdef ddz_move lm
    cdef const ddz_move* lp = NULL
    cdef int64_t n = 0, k
    cdef int8_t* res = NULL
    cdef ddz_move* line = NULL
    cdef _SolveScratch scratch
    cdef double t0, t1, limit = 0.0
    cdef int64_t node_limit = 0x7FFFFFFFFFFFFFFF
    # ---- arguments
    _need_wild(r)
    if isinstance(hands, cnp.ndarray) and hands.ndim == 1:
        # packed hands, as the batches take them
        hands = list(hands)
    if isinstance(hands, (str, bytes, Hand)) or not isinstance(
            hands, collections.abc.Sequence):
        raise TypeError(f"hands is a list or tuple of two or three hands (or a 1-d "
                        f"array of packed hands), not {type(hands).__name__}"
                        + (f" of shape {hands.shape}" if isinstance(hands, cnp.ndarray)
                           else ""))
    nseats = len(hands)
    if nseats not in (2, 3):
        raise ValueError(f"a puzzle has two hands (two players) or three (landlord "
                         f"against two farmers), not {nseats}")
    for s in range(nseats):
        bits[s] = _to_bits(hands[s], r, f"hands[{s}]")
        if bits[s] == 0:
            raise ValueError(f"hands[{s}] is empty: the deal is over when a hand empties")
        total = _add_within_deck(total, bits[s], r, "the hands")
    if nseats == 2:
        bits[2] = 0
        if landlord is not None:
            raise ValueError("landlord is for three hands; two hands play each "
                             "for itself")
    else:
        if landlord is None:
            raise ValueError("three hands need a landlord seat (0..2): the landlord "
                             "plays against the two farmers")
        ll = _solve_seat(landlord, "landlord", 3)
    s = _solve_seat(to_move, "to_move", nseats)
    if (last is None) != (last_seat is None):
        raise ValueError("last and last_seat go together: the move to beat and the "
                         "seat that played it (both None when to_move leads)")
    if last is not None:
        ls = _solve_seat(last_seat, "last_seat", nseats)
        if ls == s:
            raise ValueError(f"last_seat {ls} is to_move: a seat never has to beat "
                             f"its own move (it leads instead: last=None)")
        _last_struct(last, r, &lm)
        _add_within_deck(total, lm.cards, r, f"last ({_cards_text(lm.cards)}) and the "
                         f"hands (seat {ls} could not have played it)")
        # its cards stay: generation and _can_beat read what ddz_beats reads
        # of them (a tiandi bomb's size and purity), the keys _beat_code
        lp = &lm
    allm = check_bool(all_moves, "all_moves")
    if max_nodes is not None:
        if not _is_integral(max_nodes):
            raise TypeError(f"max_nodes is a positive int or None, not {max_nodes!r}")
        if max_nodes < 1:
            raise ValueError(f"max_nodes must be positive, not {max_nodes}")
        node_limit = min(int(max_nodes), 0x7FFFFFFFFFFFFFFF)
    if seconds is not None:
        limit = check_positive(seconds, "seconds")
    # ---- the search
    if not TT_MIN_BITS <= table_bits <= TT_MAX_BITS:
        raise ValueError(f"table_bits must be in {TT_MIN_BITS}..{TT_MAX_BITS}")
    pext = 1 if _solve_pext() else 0
    scratch = _thread_scratch()
    c = scratch.lend()
    try:
        c.rules = &r.c
        _set_beat_cards(c)
        c.nseats = nseats
        c.landlord = ll
        for i in range(3):
            c.hand[i] = bits[i]
            c.size_bound = max(c.size_bound, _hand_size(bits[i]))
        c.max_nodes = node_limit
        c.pext = pext
        c.tt_max_bits = table_bits
        line = scratch.line
        n = _gen(c, 0, bits[s], lp)
        if n < 0:
            raise MemoryError("out of memory for the root's legal moves")
        res = <int8_t*>malloc(n)
        if res == NULL:
            raise MemoryError("out of memory for the root's legal moves")
        with nogil:
            t0 = ddz_now()
            c.next_poll = t0 + POLL_SECONDS
            if limit > 0:
                c.deadline = t0 + limit
            win = _root(c, s, lp, ls, allm, res, n)
            if win >= 0:
                # the line follows proved values, searching what the table
                # lacks: no node limit cuts it, the time limit does (the line
                # is then shorter)
                c.max_nodes = 0x7FFFFFFFFFFFFFFF
                nline = _line(c, s, lp, ls, win, line, MAX_LINE)
            t1 = ddz_now()
        if c.stop == STOP_INTERRUPT:
            _raise_pending()
        if c.stop == STOP_NOMEM:
            raise MemoryError("the solver ran out of memory")
        if win < 0:
            return (None, None, None, (), c.nodes, t1 - t0, _solve_peak(c))
        if nline < 0:
            raise RuntimeError("the solver could not rebuild its principal variation")
        # (loops, not generator expressions: a closure would hold c, which
        # Cython then allocates and zeroes on the heap each call)
        line_list = []
        for k in range(nline):
            line_list.append(_move(&line[k], r))
        line_moves = tuple(line_list)
        # the root moves were overwritten by the line: regenerate them
        n = _gen(c, 0, bits[s], lp)
        win_list = []
        for k in range(n):
            if res[k] == 1:
                win_list.append(_move(&c.moves[k], r))
        win_moves = tuple(win_list)
        first = (line_moves[0] if line_moves else win_moves[0]) if win else None
        return (bool(win), first, win_moves if allm else None, line_moves,
                c.nodes, t1 - t0, _solve_peak(c))
    finally:
        scratch.take_back()
        free(res)


cdef int64_t _solve_bytes(const solve_ctx* c) noexcept nogil:
    # Memory the search holds now: its table, move buffers, answer cache,
    # move-list cache and line.
    return ((<int64_t>1 << c.tt_bits) * sizeof(tt_entry) + 64
            + ANSWER_CACHE * sizeof(hand_answers)
            + GEN_SLOTS * sizeof(gen_slot) + GEN_ARENA * sizeof(ddz_move)
            + c.cap * (sizeof(ddz_move) + 2 * sizeof(uint64_t) + sizeof(tt_key))
            + MAX_LINE * sizeof(ddz_move))


cdef int64_t _solve_peak(const solve_ctx* c) noexcept nogil:
    # The most memory the search held at once: what it holds at its end
    # (nothing it holds ever shrinks), or more while its table doubled.
    return max(c.peak, _solve_bytes(c))


def _sorted_desc(keys) -> np.ndarray:
    """A copy of the uint64 array ``keys`` sorted by the search's move
    ordering sort (descending), for the tests of its three methods."""
    cdef cnp.ndarray out = np.array(keys, dtype=np.uint64, copy=True, order="C")
    if out.ndim != 1:
        raise ValueError("keys is a one-dimensional array")
    _sort_desc(<uint64_t*>cnp.PyArray_DATA(out), out.shape[0])
    return out
