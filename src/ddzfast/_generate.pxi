# The C core of ddzfast, included into _core.pyx: the shape of each move
# kind, packed-hand helpers, legal-move generation, checking a move,
# classifying a card set and comparing two moves. Plain C: no Python
# objects, `noexcept nogil` throughout (declared in _core.pxd).


# Kicker modes of a kind shape.
cdef enum:
    KICK_NONE = 0       # no kickers
    KICK_SINGLES = 1    # single cards, any ranks outside the main part
    KICK_PAIRS = 2      # pairs of distinct ranks 3..2 outside the main part

cdef enum:
    RANKS_3_2 = 13      # the ranks 3..2: what pair kickers and laizi may be


# The shape of a generic kind (everything but PASS, the rockets and the
# four+W bombs, whose table entry stays all zero): `q` cards of each main
# rank, on one rank or on a chain of `min_length` or more consecutive ranks,
# the main part ending at most at `max_rank`, then `kickers_per_rank` kicker
# units (single cards or pairs, per `kicker_mode`) per main rank; W may stand
# for one card of the main part when `wild_in_main`. The generator and the
# checker (ddz_check runs the generator) both read this table and nothing
# else about a kind's shape.
ctypedef struct kind_shape:
    uint8_t q
    uint8_t chain
    uint8_t min_length
    uint8_t max_rank
    uint8_t kicker_mode
    uint8_t kickers_per_rank
    uint8_t wild_in_main


cdef kind_shape KIND_SHAPE[NKINDS]

KIND_SHAPE[K_SINGLE] = kind_shape(      # W never plays alone
    q=1, chain=0, min_length=1, max_rank=IDX_D, kicker_mode=KICK_NONE,
    kickers_per_rank=0, wild_in_main=0)
KIND_SHAPE[K_PAIR] = kind_shape(
    q=2, chain=0, min_length=1, max_rank=12, kicker_mode=KICK_NONE,
    kickers_per_rank=0, wild_in_main=1)
KIND_SHAPE[K_TRIPLE] = kind_shape(
    q=3, chain=0, min_length=1, max_rank=12, kicker_mode=KICK_NONE,
    kickers_per_rank=0, wild_in_main=1)
KIND_SHAPE[K_TRIPLE_SINGLE] = kind_shape(
    q=3, chain=0, min_length=1, max_rank=12, kicker_mode=KICK_SINGLES,
    kickers_per_rank=1, wild_in_main=1)
KIND_SHAPE[K_TRIPLE_PAIR] = kind_shape(
    q=3, chain=0, min_length=1, max_rank=12, kicker_mode=KICK_PAIRS,
    kickers_per_rank=1, wild_in_main=1)
KIND_SHAPE[K_STRAIGHT] = kind_shape(    # chains end at A (index 11)
    q=1, chain=1, min_length=5, max_rank=11, kicker_mode=KICK_NONE,
    kickers_per_rank=0, wild_in_main=1)
KIND_SHAPE[K_PAIR_STRAIGHT] = kind_shape(
    q=2, chain=1, min_length=3, max_rank=11, kicker_mode=KICK_NONE,
    kickers_per_rank=0, wild_in_main=1)
KIND_SHAPE[K_PLANE] = kind_shape(
    q=3, chain=1, min_length=2, max_rank=11, kicker_mode=KICK_NONE,
    kickers_per_rank=0, wild_in_main=1)
KIND_SHAPE[K_PLANE_SINGLES] = kind_shape(
    q=3, chain=1, min_length=2, max_rank=11, kicker_mode=KICK_SINGLES,
    kickers_per_rank=1, wild_in_main=1)
KIND_SHAPE[K_PLANE_PAIRS] = kind_shape(
    q=3, chain=1, min_length=2, max_rank=11, kicker_mode=KICK_PAIRS,
    kickers_per_rank=1, wild_in_main=1)
KIND_SHAPE[K_FOUR_SINGLES] = kind_shape(
    q=4, chain=0, min_length=1, max_rank=12, kicker_mode=KICK_SINGLES,
    kickers_per_rank=2, wild_in_main=1)
KIND_SHAPE[K_FOUR_PAIRS] = kind_shape(
    q=4, chain=0, min_length=1, max_rank=12, kicker_mode=KICK_PAIRS,
    kickers_per_rank=2, wild_in_main=1)
KIND_SHAPE[K_BOMB] = kind_shape(
    q=4, chain=0, min_length=1, max_rank=12, kicker_mode=KICK_NONE,
    kickers_per_rank=0, wild_in_main=1)


cdef inline int ddz_is_special(int kind) noexcept nogil:
    """1 for a kind without a generic shape (PASS, the rockets, the four+W
    bombs: they are matched card for card), else 0."""
    return 1 if kind < 0 or kind >= NKINDS else KIND_SHAPE[kind].q == 0


cdef inline int _cards_per_rank(const kind_shape* s) noexcept nogil:
    # cards per main rank, kickers included (a pair kicker unit is 2 cards)
    return s.q + s.kickers_per_rank * s.kicker_mode


# Writing a move: the 16 bytes of a ddz_move in two 8-byte stores, portably.
cdef extern from *:
    """
    #include <string.h>
    /* Whether the byte order is known at compile time (MSVC targets are all
       little-endian); where it is not, or under DDZFAST_PLAIN_C, the bytes
       are written one by one. */
    #if defined(DDZFAST_PLAIN_C)
    #define DDZ_META_WORD 0
    #elif defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) \
          && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    #define DDZ_META_WORD 1
    #define DDZ_META_SHIFT(byte) (8 * (byte))
    #elif defined(__BYTE_ORDER__) && defined(__ORDER_BIG_ENDIAN__) \
          && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    #define DDZ_META_WORD 1
    #define DDZ_META_SHIFT(byte) (56 - 8 * (byte))
    #elif defined(_MSC_VER)
    #define DDZ_META_WORD 1
    #define DDZ_META_SHIFT(byte) (8 * (byte))
    #else
    #define DDZ_META_WORD 0
    #endif
    /* Store the move (cards, kind, rank, length, wild) into the 16-byte slot
       of a ddz_move: cards at offset 0, the four byte fields at 8..11 and the
       zero `substitutes` at 12..15, every byte written. memcpy, not a store
       through a cast pointer: no type punning, and compilers turn each copy
       into one 8-byte store. */
    static CYTHON_INLINE void ddz_store_move(void* slot, uint64_t cards,
                                             int kind, int rank, int length,
                                             int wild) {
        unsigned char* p = (unsigned char*)slot;
    #if DDZ_META_WORD
        uint64_t meta = ((uint64_t)(kind & 0xFF) << DDZ_META_SHIFT(0))
                      | ((uint64_t)(rank & 0xFF) << DDZ_META_SHIFT(1))
                      | ((uint64_t)(length & 0xFF) << DDZ_META_SHIFT(2))
                      | ((uint64_t)(wild & 0xFF) << DDZ_META_SHIFT(3));
        memcpy(p, &cards, 8);
        memcpy(p + 8, &meta, 8);
    #else
        memcpy(p, &cards, 8);
        p[8] = (unsigned char)kind;
        p[9] = (unsigned char)rank;
        p[10] = (unsigned char)length;
        p[11] = (unsigned char)wild;
        p[12] = p[13] = p[14] = p[15] = 0;
    #endif
    }
    """
    void _store_move "ddz_store_move"(ddz_move* slot, uint64_t cards, int kind,
                                      int rank, int length, int wild) noexcept nogil


cdef int ddz_size(uint64_t hand) noexcept nogil:
    return _hand_size(hand)


cdef int ddz_contains(uint64_t hand, uint64_t part) noexcept nogil:
    return _hand_contains(hand, part)


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


cdef inline int _put(ddz_move* out, int n, int cap, uint64_t cards, int kind,
                     int rank, int length, int wild) noexcept nogil:
    # Store move n into out (when n < cap) and return n + 1, writing all 16
    # bytes (see ddz_store_move). Such stores may alias anything in memory,
    # so hot loops keep out, n and cap in locals (registers), not only in *g.
    if n < cap:
        _store_move(out + n, cards, kind, rank, length, wild)
    return n + 1


cdef inline void _emit(gen_t* g, uint64_t cards, int kind, int rank, int length,
                       int wild) noexcept nogil:
    g.n = _put(g.out, g.n, g.cap, cards, kind, rank, length, wild)


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
    if g.kicker_cards_from[idx] < need:
        return
    top = g.kicker_count[idx] if g.kicker_count[idx] < need else need
    for t in range(top, -1, -1):
        _singles(g, idx + 1, need - t,
                 acc + ((<uint64_t>t) << (4 * g.kicker_rank[idx])))


cdef void _pairs(gen_t* g, int idx, int need, uint64_t acc, int wleft) noexcept nogil:
    # Every set of `need` pair kickers of distinct ranks from pool[idx:]; at
    # most one of them is a natural card completed by W.
    cdef uint64_t unit
    if need == 0:
        _emit(g, acc, g.kind, g.rank, g.length,
              WILD_KICKER if (g.wild == WILD_NONE and (acc & WBIT)) else g.wild)
        return
    if g.kicker_ranks - idx < need:
        return
    unit = (<uint64_t>1) << (4 * g.kicker_rank[idx])
    if g.kicker_count[idx] >= 2:
        _pairs(g, idx + 1, need - 1, acc + 2 * unit, wleft)
    if wleft:
        _pairs(g, idx + 1, need - 1, acc + unit + WBIT, 0)
    _pairs(g, idx + 1, need, acc, wleft)


cdef void _with_kickers(gen_t* g, int kind, int rank, int length,
                        uint64_t main, int wild_free, int wild) noexcept nogil:
    # Emit the main part `main` with every kicker choice of `kind`.
    cdef kind_shape s = KIND_SHAPE[kind]
    cdef int need = s.kickers_per_rank * length
    cdef int k, i, j, pool_n = 0
    cdef unsigned int mainmask = ((1u << length) - 1) << rank
    cdef unsigned int pool
    # the single-kicker pool in locals (see _put): per entry its card index,
    # one card of it as a packed unit, the hand's count, the move's wild
    cdef int ranks[16]
    cdef uint64_t units[16]
    cdef int counts[16]
    cdef int wilds[16]
    cdef ddz_move* out = g.out
    cdef int n = g.n
    cdef int cap = g.cap
    if s.kicker_mode == KICK_SINGLES:
        pool = g.ge[1] & ~mainmask
        while pool:
            k = _ctz(pool)
            pool &= pool - 1
            ranks[pool_n] = k
            units[pool_n] = (<uint64_t>1) << (4 * k)
            counts[pool_n] = _nib(g.hand, k)
            wilds[pool_n] = wild
            pool_n += 1
        if wild_free:
            # W, last in the pool: a kicker (it plays as itself)
            ranks[pool_n] = IDX_W
            units[pool_n] = WBIT
            counts[pool_n] = 1
            wilds[pool_n] = WILD_KICKER if wild == WILD_NONE else wild
            pool_n += 1
        if need == 1:
            for i in range(pool_n):
                n = _put(out, n, cap, main + units[i], kind, rank, length, wilds[i])
            g.n = n
            return
        if need == 2:
            # two cards of one rank (never W: it is one card), or of two; W
            # can only be the second, so the pair's wild is wilds[j]
            for i in range(pool_n):
                if counts[i] >= 2:
                    n = _put(out, n, cap, main + 2 * units[i], kind, rank, length,
                             wilds[i])
                for j in range(i + 1, pool_n):
                    n = _put(out, n, cap, main + units[i] + units[j], kind, rank,
                             length, wilds[j])
            g.n = n
            return
        for i in range(pool_n):
            g.kicker_rank[i] = ranks[i]
            g.kicker_count[i] = counts[i]
        g.kicker_ranks = pool_n
        g.kind = kind
        g.rank = rank
        g.length = length
        g.wild = wild
        g.kicker_cards_from[pool_n] = 0
        for i in range(pool_n - 1, -1, -1):
            g.kicker_cards_from[i] = g.kicker_cards_from[i + 1] + counts[i]
        if g.kicker_cards_from[0] >= need:
            _singles(g, 0, need, main)
    else:
        # pair kickers: ranks 3..2 holding a pair, or one card when W is free
        # to complete it
        pool = (g.ge[1] if wild_free else g.ge[2]) & 0x1FFFu & ~mainmask
        while pool:
            k = _ctz(pool)
            pool &= pool - 1
            g.kicker_rank[pool_n] = k
            g.kicker_count[pool_n] = _nib(g.hand, k)
            pool_n += 1
        g.kicker_ranks = pool_n
        if pool_n >= need:
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
    cdef int wild_in_main = KIND_SHAPE[kind].wild_in_main
    if KIND_SHAPE[kind].kicker_mode == KICK_NONE:
        if short_rank < 0:
            _emit(g, natural, kind, rank, length, WILD_NONE)
            if g.w and wild_in_main:
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
        if g.w and wild_in_main:
            for j in range(rank, rank + length):
                if j <= g.wild_max:
                    unit = (<uint64_t>1) << (4 * j)
                    _with_kickers(g, kind, rank, length, natural - unit + WBIT, 0, j)
    else:
        unit = (<uint64_t>1) << (4 * short_rank)
        _with_kickers(g, kind, rank, length, natural - unit + WBIT, 0, short_rank)


cdef void _gen_generic(gen_t* g, int kind, int rmin, int rmax, int nfix) noexcept nogil:
    # Ranks are walked as bitmasks: full = ranks holding q cards, part = ranks
    # one short that W may complete. Only moves of rank rmin..rmax (0 <= rmax
    # <= 14), and with nfix, only chains of that length.
    cdef const kind_shape* s = &KIND_SHAPE[kind]
    cdef int q = s.q
    cdef int unit = _cards_per_rank(s)
    cdef int r, n, i, short_rank, maxn
    cdef unsigned int full = g.ge[q]
    cdef unsigned int part = 0
    cdef unsigned int cand, bit
    cdef uint64_t natural
    cdef unsigned int window
    if rmin > rmax:
        return
    window = ((2u << rmax) - 1) & ~((1u << rmin) - 1)
    if g.w and s.wild_in_main:
        part = g.ge[q - 1] & ~full & g.wmask
    if not s.chain:
        if nfix > 1 or unit > g.size:
            return
        cand = (full | part) & ((2u << s.max_rank) - 1) & window
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
    cand = (full | part) & ((2u << s.max_rank) - 1)
    if _popcount(cand & ~((1u << rmin) - 1)) < s.min_length:
        return
    # start ranks only where min_length ranks in a row hold (or with W may
    # hold) q cards: the walk below would stop short from the others
    bit = cand
    for i in range(1, s.min_length):
        bit &= cand >> i
    cand = bit & window
    while cand:
        r = _ctz(cand)
        cand &= cand - 1
        natural = 0
        short_rank = -1
        for n in range(1, min(s.max_rank + 1 - r, maxn) + 1):
            i = r + n - 1
            bit = 1u << i
            if not (full & bit):
                if short_rank >= 0 or not (part & bit):
                    break
                short_rank = i
            natural += (<uint64_t>q) << (4 * i)
            if n < s.min_length or (nfix and n != nfix):
                continue
            _variants(g, kind, r, n, natural, short_rank)


cdef void _gen_special(gen_t* g, const ddz_rules* rules, int kind, int rmin,
                       int rmax) noexcept nogil:
    # The kinds without a shape, card for card (RULES.md section 3). The rank
    # window applies to the four+W bombs; the rockets (rank 13) are emitted
    # whatever it is, as they always were when following (ddz_check filters
    # by rank itself).
    cdef int r
    cdef int stands = rules.wild_joker_stands
    if kind == K_ROCKET and _nib(g.hand, IDX_X) and _nib(g.hand, IDX_D):
        _emit(g, XBIT | DBIT, K_ROCKET, 13, 1, WILD_NONE)
    if rules.wild_joker_kind == kind and g.w:
        if _nib(g.hand, IDX_X):
            _emit(g, XBIT | WBIT, kind, 13, 1, IDX_D if stands else WILD_KICKER)
        if _nib(g.hand, IDX_D):
            _emit(g, DBIT | WBIT, kind, 13, 1, IDX_X if stands else WILD_KICKER)
    if rules.xdw_kind == kind and g.w and _nib(g.hand, IDX_X) and _nib(g.hand, IDX_D):
        _emit(g, XBIT | DBIT | WBIT, kind, 13, 1, WILD_KICKER)
    if rules.four_wild_kind == kind and g.w:
        for r in range(rmin, (rmax if rmax < 12 else 12) + 1):
            if _nib(g.hand, r) == 4:
                _emit(g, ((<uint64_t>4) << (4 * r)) | WBIT, kind, r, 1, WILD_KICKER)


# ---- laizi (RULES.md section 8) -------------------------------------------
#
# A separate path, taken only when the rule set has a wild rank L (g.lz >= 0),
# so the single-W generator above is untouched. The identity of a laizi move
# fixes its reading: every natural card of a main rank is in the main part
# and laizi fill the rest. So the generator walks, per kind and main ranks,
# the number a_j of natural cards of each main rank j (q - a_j laizi stand
# for j; a main rank L is q laizi as themselves), then the kickers from the
# natural cards of the other ranks and the laizi left. Each identity comes
# out once, by construction: no list of moves is searched for duplicates.
#
# For speed, the kickers of one set of main ranks are walked once: the main
# part as natural as the hand allows (the base) gets every kicker choice,
# and each variant with more laizi in its main part copies the base's moves
# with its own main part swapped in, dropping those whose kickers need more
# laizi than it leaves (or are all laizi when its main part is).

cdef extern from *:
    """
    /* Bytes 8..15 of a ddz_move (kind, rank, length, wild, then the laizi
       substitutes) as one word in memory order, so that a
       move is two 8-byte stores (ddz_store_cards_meta) whatever the byte
       order: built once per main part, not per move. */
    static CYTHON_INLINE uint64_t ddz_meta_word(int kind, int rank, int length,
                                                int wild, uint32_t subs) {
        unsigned char b[8];
        uint64_t m;
        b[0] = (unsigned char)kind;
        b[1] = (unsigned char)rank;
        b[2] = (unsigned char)length;
        b[3] = (unsigned char)wild;
        memcpy(b + 4, &subs, 4);
        memcpy(&m, b, 8);
        return m;
    }
    /* A meta word with its substitutes replaced (bytes 12..15). */
    static CYTHON_INLINE uint64_t ddz_meta_subs(uint64_t meta, uint32_t subs) {
        unsigned char b[8];
        memcpy(b, &meta, 8);
        memcpy(b + 4, &subs, 4);
        memcpy(&meta, b, 8);
        return meta;
    }
    static CYTHON_INLINE void ddz_store_cards_meta(void* slot, uint64_t cards,
                                                   uint64_t meta) {
        unsigned char* p = (unsigned char*)slot;
        memcpy(p, &cards, 8);
        memcpy(p + 8, &meta, 8);
    }
    """
    uint64_t _meta_word "ddz_meta_word"(int kind, int rank, int length, int wild,
                                        uint32_t subs) noexcept nogil
    uint64_t _meta_subs "ddz_meta_subs"(uint64_t meta, uint32_t subs) noexcept nogil
    void _store_cm "ddz_store_cards_meta"(ddz_move* slot, uint64_t cards,
                                          uint64_t meta) noexcept nogil


cdef inline int _put_cm(ddz_move* out, int n, int cap, uint64_t cards,
                        uint64_t meta) noexcept nogil:
    # _put with the meta word ready (keep out, n and cap in locals, as there)
    if n < cap:
        _store_cm(out + n, cards, meta)
    return n + 1


cdef inline uint32_t _lz_sub(int rank, int d) noexcept nogil:
    # `d` laizi standing for `rank`, as bits of ddz_substitutes' encoding
    if d == 4:
        return (<uint32_t>(rank + 1)) << 26
    return (<uint32_t>d) << (2 * rank)


cdef inline void _lz_emit(gen_t* g, uint64_t cards, int kind, int rank, int length,
                          uint32_t subs) noexcept nogil:
    g.n = _put_cm(g.out, g.n, g.cap, cards,
                  _meta_word(kind, rank, length, WILD_NONE, subs))


cdef void _lz_pool(gen_t* g, int extra) noexcept nogil:
    # The natural kicker pool of the main ranks into g.lpool_* (for the
    # recursive walks): single kickers from every other rank, jokers
    # included; pair kickers from the ranks 3..2 holding a pair, or one card
    # when a laizi (`extra` of them are free) may complete it. The main
    # ranks are consecutive: the hand's natural ranks lh[0:i0] and lh[i1:].
    cdef int i, c, seg, lo, hi, pool_n = 0
    cdef int pairs = g.lkick_mode == KICK_PAIRS
    cdef int i0 = g.lh_below[g.rank]
    cdef int i1 = g.lh_below[g.rank + g.length]
    cdef int end = g.lh_below[13] if pairs else g.lh_n
    cdef int keep_all = 0 if pairs and not extra else 1
    for seg in range(2):
        lo = 0 if seg == 0 else i1
        hi = i0 if seg == 0 else end
        for i in range(lo, hi):
            c = g.lh_count[i]
            g.lpool_unit[pool_n] = g.lh_unit[i]
            g.lpool_count[pool_n] = c
            pool_n += keep_all | <int>(c >= 2)
    g.lpool_n = pool_n
    g.lpool_from[pool_n] = 0
    for i in range(pool_n - 1, -1, -1):
        g.lpool_from[i] = g.lpool_from[i + 1] + g.lpool_count[i]


cdef void _lz_nat_singles(gen_t* g, int idx, int need, uint64_t acc,
                          uint64_t meta) noexcept nogil:
    # Every multiset of `need` (>= 1) natural kickers from pool[idx:], added
    # to acc.
    cdef int t, top, i, j
    cdef int pool_n = g.lpool_n
    cdef uint64_t unit, ai
    cdef ddz_move* out
    cdef int n, cap
    if g.lpool_from[idx] < need:
        return
    if need <= 2:
        out = g.out
        n = g.n
        cap = g.cap
        if need == 1:
            for i in range(idx, pool_n):
                n = _put_cm(out, n, cap, acc + g.lpool_unit[i], meta)
        else:
            for i in range(idx, pool_n):
                ai = acc + g.lpool_unit[i]
                if g.lpool_count[i] >= 2:
                    n = _put_cm(out, n, cap, ai + g.lpool_unit[i], meta)
                for j in range(i + 1, pool_n):
                    n = _put_cm(out, n, cap, ai + g.lpool_unit[j], meta)
        g.n = n
        return
    unit = g.lpool_unit[idx]
    top = g.lpool_count[idx] if g.lpool_count[idx] < need else need
    for t in range(top, -1, -1):
        if t == need:
            g.n = _put_cm(g.out, g.n, g.cap, acc + t * unit, meta)
        else:
            _lz_nat_singles(g, idx + 1, need - t, acc + t * unit, meta)


cdef void _lz_pairs(gen_t* g, int idx, int need, uint64_t acc, int left, int chosen,
                    int nat, uint64_t meta) noexcept nogil:
    # Every set of `need` pair kickers of distinct ranks, none a main rank:
    # pool[idx:] gives natural pairs and natural + laizi; at the end of the
    # pool, the pairs still needed are two laizi each, standing for ranks
    # still free (not main, not taken by another pair); `left` laizi remain,
    # nat: a natural card is in the move so far.
    cdef uint64_t unit
    if need == 0 or idx == g.lpool_n:
        # (with need 0 the rest of the pool could only be skipped: emit now)
        if 2 * need <= left and need <= RANKS_3_2 - g.lnmain - chosen and nat:
            g.n = _put_cm(g.out, g.n, g.cap, acc + <uint64_t>(2 * need) * g.lunit,
                          meta)
        return
    if need > g.lpool_n - idx + left // 2:
        return
    unit = g.lpool_unit[idx]
    if g.lpool_count[idx] >= 2:
        _lz_pairs(g, idx + 1, need - 1, acc + 2 * unit, left, chosen + 1, 1, meta)
    if left:
        _lz_pairs(g, idx + 1, need - 1, acc + unit + g.lunit, left - 1,
                  chosen + 1, 1, meta)
    _lz_pairs(g, idx + 1, need, acc, left, chosen, nat, meta)


cdef inline void _lz_bt(gen_t* g, int t, int count) noexcept nogil:
    # lbt[t:] = count: the base's moves so far have at most t laizi kickers
    cdef int i
    for i in range(t, 9):
        g.lbt[i] = count


cdef void _lz_two_pairs(gen_t* g, uint64_t main, int left, int nat, uint64_t meta,
                        int i0, int i1, int end) noexcept nogil:
    # Two pair kickers (FOUR_PAIRS, a two-triple PLANE_PAIRS) of distinct
    # ranks from lh[0:i0] and lh[i1:end], by their number t of laizi (g.lbt):
    # natural pairs (t 0), a natural card and a laizi (1), two laizi (2,
    # standing for a rank free: neither main nor the other pair's).
    cdef uint64_t su[16]    # a card of each rank of the pool
    cdef uint64_t pu[16]    # two cards of each rank holding a pair
    cdef int pidx[16]       # that rank's index in su
    cdef int ns = 0, np = 0, seg, lo, hi, i, a, b
    cdef int n0 = g.n
    cdef int n = n0
    cdef int cap = g.cap
    cdef ddz_move* out = g.out
    cdef uint64_t l1 = g.lunit
    cdef uint64_t l2 = 2 * g.lunit
    cdef uint64_t x
    cdef int free = RANKS_3_2 - g.lnmain
    for seg in range(2):
        lo = 0 if seg == 0 else i1
        hi = i0 if seg == 0 else end
        for i in range(lo, hi):
            su[ns] = g.lh_unit[i]
            pu[np] = 2 * g.lh_unit[i]
            pidx[np] = ns
            np += <int>(g.lh_count[i] >= 2)
            ns += 1
    for a in range(np):
        x = main + pu[a]
        for b in range(a + 1, np):
            n = _put_cm(out, n, cap, x + pu[b], meta)
    g.lbt[0] = n - n0
    if left >= 1:
        for a in range(np):
            x = main + pu[a] + l1
            for b in range(pidx[a]):
                n = _put_cm(out, n, cap, x + su[b], meta)
            for b in range(pidx[a] + 1, ns):
                n = _put_cm(out, n, cap, x + su[b], meta)
    g.lbt[1] = n - n0
    if left >= 2:
        for a in range(ns):
            x = main + su[a] + l2
            for b in range(a + 1, ns):
                n = _put_cm(out, n, cap, x + su[b], meta)
        if free >= 2:
            for a in range(np):
                n = _put_cm(out, n, cap, main + pu[a] + l2, meta)
    g.lbt[2] = n - n0
    if left >= 3 and free >= 2:
        for a in range(ns):
            n = _put_cm(out, n, cap, main + su[a] + l1 + l2, meta)
    g.lbt[3] = n - n0
    if left >= 4 and nat and free >= 2:
        n = _put_cm(out, n, cap, main + 2 * l2, meta)
    _lz_bt(g, 4, n - n0)
    g.n = n


cdef void _lz_kickers(gen_t* g, uint64_t main, int left, int nat,
                      uint64_t meta) noexcept nogil:
    # The main part `main` (nat: it holds a natural card) with every kicker
    # choice from the natural cards of the other ranks and `left` laizi; a
    # move of only laizi is read at face value, so never gets kickers. The
    # moves come by their number of laizi kickers (recorded in g.lbt, for
    # _lz_variant), but for two or more pair kickers (g.lsorted = 0).
    cdef int need = g.lneed
    cdef int i, j, t, tmax, seg, lo, hi, i0, i1, end, pool_n
    cdef int n0 = g.n
    cdef uint64_t lunit = g.lunit
    cdef uint64_t mi
    cdef uint64_t units[16]
    cdef int counts[16]
    cdef ddz_move* out
    cdef int n, cap
    g.lsorted = 1
    if need == 2 and g.lkick_mode == KICK_PAIRS:
        _lz_two_pairs(g, main, left, nat, meta, g.lh_below[g.rank],
                      g.lh_below[g.rank + g.length], g.lh_below[13])
        return
    if need > 2:
        _lz_pool(g, left)
        if g.lkick_mode == KICK_PAIRS:
            g.lsorted = 0
            _lz_pairs(g, 0, need, main, left, 0, nat, meta)
            return
        # t of the single kickers laizi (one kicker each, whatever they
        # stand for), the others natural
        tmax = left if left < need else need
        if tmax == need and not nat:
            tmax = need - 1
        for t in range(tmax + 1):
            if t == need:
                g.n = _put_cm(g.out, g.n, g.cap, main + t * lunit, meta)
            else:
                _lz_nat_singles(g, 0, need - t, main + t * lunit, meta)
            g.lbt[t] = g.n - n0
        _lz_bt(g, tmax + 1, g.n - n0)
        return
    # The hand's natural ranks (g.lh_*, by rank) but the main ones, which
    # are consecutive: lh[0:i0] and lh[i1:end] (end: the jokers out for
    # pairs).
    i0 = g.lh_below[g.rank]
    i1 = g.lh_below[g.rank + g.length]
    end = g.lh_n
    out = g.out
    n = n0
    cap = g.cap
    if g.lkick_mode == KICK_PAIRS:
        end = g.lh_below[13]
        for seg in range(2):
            lo = 0 if seg == 0 else i1
            hi = i0 if seg == 0 else end
            for i in range(lo, hi):
                # stored whatever the count, kept only for a pair: no
                # branch on the hand's counts
                if n < cap:
                    _store_cm(out + n, main + 2 * g.lh_unit[i], meta)
                n += <int>(g.lh_count[i] >= 2)
        g.lbt[0] = n - n0
        if left:
            for seg in range(2):
                lo = 0 if seg == 0 else i1
                hi = i0 if seg == 0 else end
                for i in range(lo, hi):
                    n = _put_cm(out, n, cap, main + g.lh_unit[i] + lunit, meta)
        g.lbt[1] = n - n0
        if left >= 2 and nat and g.lnmain < RANKS_3_2:
            n = _put_cm(out, n, cap, main + 2 * lunit, meta)
        _lz_bt(g, 2, n - n0)
        g.n = n
        return
    tmax = left if left < need else need
    if tmax == need and not nat:
        tmax = need - 1
    if need == 1:
        for i in range(i0):
            n = _put_cm(out, n, cap, main + g.lh_unit[i], meta)
        for i in range(i1, end):
            n = _put_cm(out, n, cap, main + g.lh_unit[i], meta)
        g.lbt[0] = n - n0
        if tmax:
            n = _put_cm(out, n, cap, main + lunit, meta)
        _lz_bt(g, 1, n - n0)
        g.n = n
        return
    # two single kickers: the pool in locals (see _put)
    for i in range(i0):
        units[i] = g.lh_unit[i]
        counts[i] = g.lh_count[i]
    pool_n = i0
    for i in range(i1, end):
        units[pool_n] = g.lh_unit[i]
        counts[pool_n] = g.lh_count[i]
        pool_n += 1
    for i in range(pool_n):
        mi = main + units[i]
        if n < cap:     # kept only for a pair (see above)
            _store_cm(out + n, mi + units[i], meta)
        n += <int>(counts[i] >= 2)
        for j in range(i + 1, pool_n):
            n = _put_cm(out, n, cap, mi + units[j], meta)
    g.lbt[0] = n - n0
    if tmax:
        for i in range(pool_n):
            n = _put_cm(out, n, cap, main + units[i] + lunit, meta)
    g.lbt[1] = n - n0
    if tmax == 2:
        n = _put_cm(out, n, cap, main + 2 * lunit, meta)
    _lz_bt(g, 2, n - n0)
    g.n = n


# LZ_SPREAD[a - 1][m][e]: the ways to take e cards (e <= 4) from m ranks
# holding a cards each, at most a from each: the coefficient of x^e in
# (1 + x + ... + x^a)^m. A main part's variants (_lz_more, _lz_more_plain)
# take e of its natural cards out for laizi, so these count them
# (_lz_spread).
cdef int LZ_SPREAD[4][14][5]


cdef void _lz_spread_init() noexcept nogil:
    cdef int a, m, e, j
    for a in range(1, 5):
        LZ_SPREAD[a - 1][0][0] = 1
        for e in range(1, 5):
            LZ_SPREAD[a - 1][0][e] = 0
        for m in range(1, 14):
            for e in range(5):
                LZ_SPREAD[a - 1][m][e] = 0
                for j in range((a if a < e else e) + 1):
                    LZ_SPREAD[a - 1][m][e] += LZ_SPREAD[a - 1][m - 1][e - j]


_lz_spread_init()


cdef inline void _lz_spread(const gen_t* g, uint64_t main, int nat, int top,
                            int* c) noexcept nogil:
    # c[e], e = 0..top (top <= 4): the ways to take e of the nat natural
    # cards out of the chain `main` (the main part set in g), each rank
    # giving at most the natural cards it holds: a variant each.
    cdef uint64_t nib13 = 0x1111111111111ULL
    cdef uint64_t x
    cdef int ge1, ge2, ge3, ge4, e, i
    cdef int c12[5]
    cdef int c34[5]
    if g.lq == 1:
        # a chain of singles: nat ranks of one natural card each
        for e in range(top + 1):
            c[e] = LZ_SPREAD[0][nat][e]
        return
    # the natural cards of the main ranks (main but L's nibble, its laizi):
    # ge1..ge4 ranks hold at least 1..4 of them
    x = main & ~((<uint64_t>15) << (4 * g.lz))
    ge1 = _nibble_sum(((x + 7 * nib13) & (8 * nib13)) >> 3)
    ge2 = _nibble_sum(((x + 6 * nib13) & (8 * nib13)) >> 3)
    ge3 = _nibble_sum(((x + 5 * nib13) & (8 * nib13)) >> 3) if g.lq >= 3 else 0
    for e in range(top + 1):
        c12[e] = 0
        for i in range(e + 1):
            c12[e] += LZ_SPREAD[0][ge1 - ge2][i] * LZ_SPREAD[1][ge2 - ge3][e - i]
    if not ge3:
        for e in range(top + 1):
            c[e] = c12[e]
        return
    ge4 = _nibble_sum(((x + 4 * nib13) & (8 * nib13)) >> 3) if g.lq >= 4 else 0
    for e in range(top + 1):
        c34[e] = 0
        for i in range(e + 1):
            c34[e] += LZ_SPREAD[2][ge3 - ge4][i] * LZ_SPREAD[3][ge4][e - i]
    for e in range(top + 1):
        c[e] = 0
        for i in range(e + 1):
            c[e] += c12[i] * c34[e - i]


cdef void _lz_kick_counts(gen_t* g) noexcept nogil:
    # How many kicker choices _lz_kickers makes for the main part set in g
    # (lmainmask, lneed, lkick_mode, lnmain), by their number t of laizi
    # (at most 4: a hand holds no more): g.lkc[t] of them with t or fewer,
    # the all-laizi choice apart (g.lkall:
    # its laizi, 99 when it cannot be). The choices with t laizi do not
    # depend on how many laizi are free, so the base and every variant read
    # their counts off these (_lz_tally): a main part's moves counted
    # without listing them.
    cdef int need = g.lneed
    cdef unsigned int other = ~g.lmainmask
    cdef int free = RANKS_3_2 - g.lnmain
    cdef int seg, lo, hi, i, t, m, j, c, ch, s, r, end
    cdef int i0, i1
    cdef int ns, np
    cdef int kc[5]
    # need <= 12: a chain has at most 12 ranks (3..A)
    cdef int poly[13]
    cdef int ways[13][13]   # [pairs chosen from the pool][of them natural + laizi]
    for t in range(5):
        kc[t] = 0
    g.lkall = 99
    if g.lkick_mode == KICK_PAIRS:
        # pool: the ranks 3..2 but the main ones; np of them hold a pair
        ns = _popcount(g.lh_mask & 0x1FFFu & other)
        np = _popcount(g.lpair_mask & other)
        if need == 1:
            # a natural pair; a card and a laizi; two laizi for a free rank
            kc[0] = np
            kc[1] = ns
            if free >= 1:
                g.lkall = 2
        elif need == 2:
            # as _lz_two_pairs lists them
            kc[0] = np * (np - 1) // 2
            kc[1] = np * (ns - 1)
            kc[2] = ns * (ns - 1) // 2 + (np if free >= 2 else 0)
            kc[3] = ns if free >= 2 else 0
            if free >= 2:
                g.lkall = 4
        elif need <= 12:
            # as _lz_pairs: each pool rank gives no pair, a natural pair or a
            # card and a laizi; the pairs still needed are two laizi each,
            # for ranks still free
            i0 = g.lh_below[g.rank]
            i1 = g.lh_below[g.rank + g.length]
            end = g.lh_below[13]
            for ch in range(need + 1):
                for s in range(need + 1):
                    ways[ch][s] = 0
            ways[0][0] = 1
            for seg in range(2):
                lo = 0 if seg == 0 else i1
                hi = i0 if seg == 0 else end
                for i in range(lo, hi):
                    c = <int>(g.lh_count[i] >= 2)
                    for ch in range(need - 1, -1, -1):
                        for s in range(ch, -1, -1):
                            if ways[ch][s]:
                                ways[ch + 1][s] += c * ways[ch][s]
                                ways[ch + 1][s + 1] += ways[ch][s]
            for ch in range(1, need + 1):
                r = need - ch
                if r and need > free:
                    continue
                for s in range(ch + 1):
                    t = s + 2 * r
                    if t <= 4:
                        kc[t] += ways[ch][s]
            if need <= free:
                g.lkall = 2 * need
    elif need <= 2:
        # single kickers: any natural card of another rank (jokers
        # included), each laizi one kicker; m ranks, of them pairs holding two
        m = _popcount(g.lh_mask & other)
        if need == 1:
            kc[0] = m
            g.lkall = 1
        else:
            kc[0] = m * (m - 1) // 2 + _popcount(g.lpair_mask & other)
            kc[1] = m
            g.lkall = 2
    elif need <= 12:
        # multisets of natural kickers of each size (at most need): the
        # product of (1 + x + ... + x^count) over the pool's ranks
        i0 = g.lh_below[g.rank]
        i1 = g.lh_below[g.rank + g.length]
        poly[0] = 1
        for t in range(1, need + 1):
            poly[t] = 0
        for seg in range(2):
            lo = 0 if seg == 0 else i1
            hi = i0 if seg == 0 else g.lh_n
            for i in range(lo, hi):
                c = g.lh_count[i]
                for t in range(need, 0, -1):
                    for j in range(1, (c if c < t else t) + 1):
                        poly[t] += poly[t - j]
        for t in range(need if need < 5 else 5):
            kc[t] = poly[need - t]
        g.lkall = need
    g.lkc[0] = kc[0]
    for t in range(1, 5):
        g.lkc[t] = g.lkc[t - 1] + kc[t]


cdef inline int _lz_tally(const gen_t* g, int left, int nat) noexcept nogil:
    # The moves of a main part with `left` laizi free (nat: it holds a
    # natural card), from g.lkc: as many as _lz_kickers would make
    return g.lkc[left] + <int>(nat != 0 and g.lkall <= left)


cdef inline int _lz_count_main(gen_t* g, int extra, uint64_t main, uint32_t subs,
                               int nat) noexcept nogil:
    # The moves _lz_main makes for a main part (its base and every
    # variant), counted, not listed: a variant takes e more natural cards
    # out for laizi (c[e] ways), leaving extra - e laizi free and nat - e
    # natural cards.
    cdef int top = extra if extra < 4 else 4
    cdef int c[5]
    cdef int e, total
    if top > nat:
        top = nat
    if g.length == 1:
        # one rank: one way for each e up to top
        for e in range(top + 1):
            c[e] = 1
    else:
        _lz_spread(g, main, nat, top, c)
    if g.lkick_mode == KICK_NONE:
        # the base, then the variants that keep a natural card
        total = 1 if nat or not subs else 0
        for e in range(1, (top if top < nat else nat - 1) + 1):
            total += c[e]
        return total
    _lz_kick_counts(g)
    total = 0
    for e in range(top + 1):
        total += c[e] * _lz_tally(g, extra - e, nat - e)
    return total


cdef void _lz_variant(gen_t* g, uint64_t main, int left, int nat,
                      uint32_t subs) noexcept nogil:
    # The moves of a main part with more laizi than the base (left laizi
    # free, nat natural cards in it): the base's moves whose kickers hold at
    # most `left` laizi (and a natural card, when the main part holds none),
    # with this main part in place of the base's.
    cdef uint64_t meta = _meta_subs(g.lmeta0, subs)
    cdef const ddz_move* src
    cdef ddz_move* out
    cdef int n, cap, i, cnt, shift, tl
    cdef uint64_t base, lunit, k, t, delta
    if g.lkick_mode == KICK_NONE:
        # only laizi as themselves (subs == 0) may make a move alone
        if nat or not subs:
            g.n = _put_cm(g.out, g.n, g.cap, main, meta)
        return
    out = g.out
    n = g.n
    cap = g.cap
    if g.lsorted:
        # all-laizi kickers (t = need single or 2 * need pair kicker cards)
        # come last
        tl = left
        if not nat:
            t = g.lneed * (2 if g.lkick_mode == KICK_PAIRS else 1) - 1
            if tl > <int>t:
                tl = <int>t
        cnt = g.lbt[tl if tl < 8 else 8]
        if n + cnt <= cap:
            src = out + g.lbase
            out += n
            delta = main - g.lbase_main
            for i in range(cnt):
                _store_cm(out + i, src[i].cards + delta, meta)
        elif n < cap:
            # the buffer fills up here; the base is in it (it comes first)
            src = out + g.lbase
            delta = main - g.lbase_main
            for i in range(cap - n):
                _store_cm(out + n + i, src[i].cards + delta, meta)
        # (else the buffer is full, perhaps before the base's end: only the
        # count matters)
        g.n = n + cnt
        return
    if g.lbase + g.lbase_n > cap:
        # the base's moves are not all in the buffer (it is full: only the
        # count matters now): walk the kickers again
        _lz_kickers(g, main, left, nat, meta)
        return
    src = out + g.lbase
    cnt = g.lbase_n
    base = g.lbase_main
    lunit = g.lunit
    shift = 4 * g.lz
    for i in range(cnt):
        k = src[i].cards - base     # the kickers
        t = (k >> shift) & 15       # laizi among them
        if t <= <uint64_t>left and (nat or k != t * lunit):
            n = _put_cm(out, n, cap, k + main, meta)
    g.n = n


cdef void _lz_more(gen_t* g, int start, int extra, uint64_t main, uint32_t subs,
                   int nat, unsigned int natmask) noexcept nogil:
    # Each of the `extra` laizi not in the main part `main` may replace one
    # more natural card of a main rank (natmask: the main ranks still holding
    # one), from rank `start` up so that each main part comes out once.
    cdef unsigned int cand = natmask & ~((1u << start) - 1)
    cdef int j, a
    cdef uint32_t s2
    cdef uint64_t m2
    while cand:
        j = _ctz(cand)
        cand &= cand - 1
        # one natural card of rank j out, one laizi in: j's substitutes d -> d+1
        a = _nib(main, j)
        if g.lq - a == 3:
            s2 = subs - ((<uint32_t>3) << (2 * j)) + ((<uint32_t>(j + 1)) << 26)
        else:
            s2 = subs + ((<uint32_t>1) << (2 * j))
        m2 = main - ((<uint64_t>1) << (4 * j)) + g.lunit
        _lz_variant(g, m2, extra - 1, nat - 1, s2)
        if extra > 1:
            _lz_more(g, j, extra - 1, m2, s2, nat - 1,
                     natmask if a > 1 else natmask & ~(1u << j))


cdef int _lz_more_plain(gen_t* g, int start, int extra, uint64_t main,
                        uint32_t subs, int nat, unsigned int natmask, ddz_move* out,
                        int n, int cap) noexcept nogil:
    # _lz_more for the kinds without kickers, each variant one move, stored
    # at out[n] (see _put); returns the new n. A variant keeps a natural
    # card only if nat > 1: else it would be laizi standing for other ranks,
    # alone, which is not a move (face value), nor are its own variants.
    cdef unsigned int cand = natmask & ~((1u << start) - 1)
    cdef uint64_t meta0 = g.lmeta0
    cdef uint64_t lunit = g.lunit
    cdef uint64_t m2
    cdef int q = g.lq
    cdef int j, a
    cdef uint32_t s2
    if nat <= 1:
        return n
    while cand:
        j = _ctz(cand)
        cand &= cand - 1
        a = _nib(main, j)
        if q - a == 3:
            s2 = subs - ((<uint32_t>3) << (2 * j)) + ((<uint32_t>(j + 1)) << 26)
        else:
            s2 = subs + ((<uint32_t>1) << (2 * j))
        m2 = main - ((<uint64_t>1) << (4 * j)) + lunit
        n = _put_cm(out, n, cap, m2, _meta_subs(meta0, s2))
        if extra > 1:
            n = _lz_more_plain(g, j, extra - 1, m2, s2, nat - 1,
                               natmask if a > 1 else natmask & ~(1u << j), out, n, cap)
    return n


cdef inline void _lz_main(gen_t* g, int extra, uint64_t main, uint32_t subs, int nat,
                   unsigned int natmask) noexcept nogil:
    # Every move on the main ranks set in g (rank, length, lmainmask...): the
    # base `main` (every main rank as natural as the hand allows, `extra`
    # laizi not in it) and its variants.
    cdef uint64_t meta
    cdef int total
    if g.n >= g.cap or g.n < g.skip:
        # outside the window (see gen_t.skip): a main part whose moves all
        # fall outside it is counted, not listed
        if g.stop and g.n >= g.cap:
            return
        total = _lz_count_main(g, extra, main, subs, nat)
        if g.n >= g.cap or g.n + total <= g.skip:
            g.n += total
            return
    g.lmeta0 = _meta_word(g.kind, g.rank, g.length, WILD_NONE, 0)
    meta = _meta_subs(g.lmeta0, subs)
    if g.lkick_mode == KICK_NONE:
        if nat or not subs:
            g.n = _put_cm(g.out, g.n, g.cap, main, meta)
        if extra and natmask:
            g.n = _lz_more_plain(g, g.rank, extra, main, subs, nat, natmask,
                                 g.out, g.n, g.cap)
        return
    g.lbase = g.n
    g.lbase_main = main
    _lz_kickers(g, main, extra, nat, meta)
    g.lbase_n = g.n - g.lbase
    if extra and natmask:
        _lz_more(g, g.rank, extra, main, subs, nat, natmask)


cdef int _lz_count_ranks(gen_t* g, unsigned int cand, uint64_t def_q) noexcept nogil:
    # The moves of the kind without chains set in g (lq, lkick_mode, lneed,
    # length 1) whose main rank is one of cand, each main part counted by
    # _lz_count_main: without a call to _lz_main, its window test or its
    # meta word per rank.
    cdef int total = 0
    cdef int r, d
    while cand:
        r = _ctz(cand)
        cand &= cand - 1
        d = _nib(def_q, r)
        g.rank = r
        g.lmainmask = 1u << r
        # (one rank: the variants do not read the main part's cards; its
        # substitutes matter only as none or some)
        total += _lz_count_main(g, g.lw - d, 0, <uint32_t>(r != g.lz and d > 0),
                                g.lq - d)
    return total


cdef inline int _nibble_sum(uint64_t x) noexcept nogil:
    # The sum of the nibbles of x (each at most 4, 13 of them: fits a byte)
    x = (x & 0x0F0F0F0F0F0F0F0FULL) + ((x >> 4) & 0x0F0F0F0F0F0F0F0FULL)
    return <int>((x * 0x0101010101010101ULL) >> 56)


cdef inline uint32_t _nibbles_to_subs(uint64_t x) noexcept nogil:
    # Nibbles of at most 3 (at bits 4j) packed into 2-bit fields (at bits 2j):
    # ddz_substitutes' encoding of a main part's laizi
    x = (x | (x >> 2)) & 0x0F0F0F0F0F0F0F0FULL
    x = (x | (x >> 4)) & 0x00FF00FF00FF00FFULL
    x = (x | (x >> 8)) & 0x0000FFFF0000FFFFULL
    x = (x | (x >> 16)) & 0x00000000FFFFFFFFULL
    return <uint32_t>x


cdef void _lz_generic(gen_t* g, int kind, int rmin, int rmax, int nfix) noexcept nogil:
    # The shaped kinds (KIND_SHAPE) with laizi, ranks rmin..rmax, and with
    # nfix only chains of that length. A main part's ranks as natural as the
    # hand allows, read off packed vectors: nat = min(count, q) natural cards
    # of each rank (none for L) and q - nat laizi (q for L, as themselves).
    cdef const kind_shape* s = &KIND_SHAPE[kind]
    cdef int q = s.q
    cdef int unit = _cards_per_rank(s)
    cdef int top = rmax if rmax < s.max_rank else s.max_rank
    cdef int lw = g.lw
    cdef int L = g.lz
    cdef int r, n, nmin, deficit, d, wdef, counting
    cdef uint64_t nat_q
    if not g.lready:
        _lz_tables(g)
    nat_q = g.lnat_q[q]
    cdef uint64_t def_q = q * (<uint64_t>0x1111111111111ULL) - nat_q
    cdef uint64_t lnib = (<uint64_t>15) << (4 * L)
    cdef uint64_t window, natpart
    cdef unsigned int nat1 = g.ge[1] & ~(1u << L)
    cdef unsigned int mainmask, cand
    if unit > g.size or rmin > top:
        return
    g.kind = kind
    g.lq = q
    g.lkick_mode = s.kicker_mode
    if not s.chain:
        if nfix > 1:
            return
        g.length = 1
        g.lneed = s.kickers_per_rank
        g.lnmain = 1
        # the ranks short of at most lw cards: q - lw naturals or more (L:
        # q laizi as themselves)
        cand = (g.ge[q - lw] if q > lw else 0x7FFFu) & ~(1u << L)
        if q <= lw:
            cand |= 1u << L
        cand &= ((2u << top) - 1) & ~((1u << rmin) - 1)
        if g.n >= g.cap and not g.stop:
            # nothing stored from here on: the kind counted rank by rank
            g.n += _lz_count_ranks(g, cand, def_q)
            return
        while cand:
            r = _ctz(cand)
            cand &= cand - 1
            d = _nib(def_q, r)
            g.rank = r
            g.lmainmask = 1u << r
            _lz_main(g, lw - d, (nat_q & ((<uint64_t>15) << (4 * r))) + d * g.lunit,
                     0 if r == L else _lz_sub(r, d), q - d, nat1 & (1u << r))
        return
    # chains: from each start rank, the shortest chain allowed (its laizi
    # counted at once), then one rank longer while the laizi last
    nmin = nfix if nfix else s.min_length
    if nmin < s.min_length or nmin * unit > g.size:
        return
    if top > s.max_rank + 1 - nmin:
        top = s.max_rank + 1 - nmin
    wdef = _nibble_sum(def_q & ((((<uint64_t>1) << (4 * nmin)) - 1) << (4 * rmin)))
    # nothing stored from here on: each main part counted, not made
    counting = g.n >= g.cap and not g.stop
    for r in range(rmin, top + 1):
        # wdef: the laizi the window r..r+nmin-1 needs (slid one rank on)
        if r > rmin:
            wdef += _nib(def_q, r + nmin - 1) - _nib(def_q, r - 1)
        if wdef > lw:
            continue
        n = nmin
        window = (((<uint64_t>1) << (4 * n)) - 1) << (4 * r)
        deficit = wdef
        while deficit <= lw:
            natpart = nat_q & window
            mainmask = ((1u << n) - 1) << r
            g.rank = r
            g.length = n
            g.lneed = s.kickers_per_rank * n
            g.lnmain = n
            g.lmainmask = mainmask
            if counting:
                # (the substitutes only matter as none or some there)
                g.n += _lz_count_main(g, lw - deficit, natpart + deficit * g.lunit,
                                      <uint32_t>((def_q & window & ~lnib) != 0),
                                      q * n - deficit)
            else:
                _lz_main(g, lw - deficit, natpart + deficit * g.lunit,
                         _nibbles_to_subs(def_q & window & ~lnib), q * n - deficit,
                         nat1 & mainmask)
            if nfix or r + n > s.max_rank or (n + 1) * unit > g.size:
                break
            deficit += _nib(def_q, r + n)
            window |= (<uint64_t>15) << (4 * (r + n))
            n += 1


cdef void _lz_kind(gen_t* g, int kind, int rmin, int rmax, int nfix) noexcept nogil:
    # The moves of `kind` of rank rmin..rmax in a laizi rule set.
    cdef int r, a, amin, top
    cdef int L = g.lz
    cdef unsigned int cand
    # the ranks rmin..rmax (rmax <= 14), as a mask
    cdef unsigned int window = ((2u << rmax) - 1) & ~((1u << rmin) - 1)
    cdef lz_mark* mk
    if g.marks != NULL:
        if g.nmarks < LZ_MARKS:
            mk = &g.marks[g.nmarks]
            mk.n = g.n
            mk.kind = kind
            mk.rmin = rmin
            mk.rmax = rmax
            mk.nfix = nfix
        g.nmarks += 1
    if kind == K_SINGLE:
        # a lone laizi is itself (face value): one single per card held
        cand = g.ge[1] & window
        while cand:
            r = _ctz(cand)
            cand &= cand - 1
            _lz_emit(g, (<uint64_t>1) << (4 * r), K_SINGLE, r, 1, 0)
    elif kind == K_BOMB:
        # four natural cards (four laizi are the LAIZI_BOMB)
        cand = g.ge[4] & 0x1FFFu & ~(1u << L) & window
        while cand:
            r = _ctz(cand)
            cand &= cand - 1
            _lz_emit(g, (<uint64_t>4) << (4 * r), K_BOMB, r, 1, 0)
    elif kind == K_SOFT_BOMB:
        # a = 1..3 natural cards and 4 - a laizi: the ranks holding at
        # least 4 - lw (and one) natural cards
        amin = 4 - g.lw if g.lw < 3 else 1
        cand = g.ge[amin] & 0x1FFFu & ~(1u << L) & window
        while cand:
            r = _ctz(cand)
            cand &= cand - 1
            a = _nib(g.hand, r)
            if a > 3:
                a = 3
            while a >= amin:
                _lz_emit(g, ((<uint64_t>a) << (4 * r)) + (4 - a) * g.lunit,
                         K_SOFT_BOMB, r, 1, _lz_sub(r, 4 - a))
                a -= 1
    elif kind == K_LAIZI_BOMB:
        if g.lw == 4 and rmin <= L <= rmax:
            _lz_emit(g, 4 * g.lunit, K_LAIZI_BOMB, L, 1, 0)
    elif kind == K_ROCKET:
        # emitted whatever the rank window, as in _gen_special
        if _nib(g.hand, IDX_X) and _nib(g.hand, IDX_D):
            _lz_emit(g, XBIT | DBIT, K_ROCKET, 13, 1, 0)
    elif KIND_SHAPE[kind].q:
        _lz_generic(g, kind, rmin, rmax, nfix)


cdef uint32_t ddz_substitutes(const ddz_rules* rules, int kind, int rank, int length,
                              uint64_t cards) noexcept nogil:
    cdef int L, j, q, d
    cdef uint32_t subs = 0
    if not rules.wild_mask or kind < 0 or kind >= NKINDS:
        return 0
    L = _ctz(rules.wild_mask)
    if kind == K_SOFT_BOMB:
        q = 4
    elif kind == K_SINGLE or kind == K_BOMB or not KIND_SHAPE[kind].q:
        return 0
    else:
        q = KIND_SHAPE[kind].q
    for j in range(rank, rank + length):
        if j != L and j <= 12:
            d = q - _nib(cards, j)
            if d > 0:
                subs += _lz_sub(j, d)
    return subs


cdef inline void _gen_kind_of(gen_t* g, const ddz_rules* rules, int kind, int rmin,
                              int rmax, int nfix, int laizi) noexcept nogil:
    # The moves of `kind` of rank rmin..rmax (rmax <= 14); nfix as
    # _gen_generic; laizi: g.lz >= 0 (a constant where the caller knows it).
    cdef const kind_shape* s = &KIND_SHAPE[kind]
    if laizi:
        _lz_kind(g, kind, rmin, rmax, nfix)
    elif s.q:
        # most kinds of a hand have no move (no triple, no four...): this
        # test (what _gen_generic walks, W's ranks included) spares them
        # the call
        if ((g.ge[s.q] | (g.ge[s.q - 1] if g.w and s.wild_in_main else 0))
                & ((2u << s.max_rank) - 1) & ~((1u << rmin) - 1)):
            _gen_generic(g, kind, rmin, rmax, nfix)
    else:
        _gen_special(g, rules, kind, rmin, rmax)


cdef inline void _gen_kind(gen_t* g, const ddz_rules* rules, int kind, int rmin,
                           int rmax, int nfix) noexcept nogil:
    _gen_kind_of(g, rules, kind, rmin, rmax, nfix, g.lz >= 0)


cdef void _lz_init(gen_t* g, int L) noexcept nogil:
    # The laizi fields of g for a hand holding laizi of rank L (g.hand, g.ge
    # set); the tables of the shaped kinds wait for the first of them
    # (_lz_tables): a follow often needs none.
    g.lz = L
    g.lunit = (<uint64_t>1) << (4 * L)
    g.lw = _nib(g.hand, L)
    g.lready = 0


cdef void _lz_tables(gen_t* g) noexcept nogil:
    # lnat_q and the hand's natural ranks (lh_*), once per hand.
    cdef uint64_t nib13 = 0x1111111111111ULL
    cdef int L = g.lz
    cdef uint64_t ranks = (g.hand & 0xFFFFFFFFFFFFFULL) & ~((<uint64_t>15) << (4 * L))
    cdef unsigned int pool = g.ge[1] & ~(1u << L)
    cdef int q, k, n = 0
    g.lready = 1
    g.lnat_q[0] = 0
    for q in range(1, 5):
        # nibble-wise count >= q (counts are at most 4: no carry)
        g.lnat_q[q] = g.lnat_q[q - 1] + (((ranks + (8 - q) * nib13) & (8 * nib13)) >> 3)
    while pool:
        k = _ctz(pool)
        pool &= pool - 1
        g.lh_unit[n] = (<uint64_t>1) << (4 * k)
        g.lh_count[n] = _nib(g.hand, k)
        n += 1
    g.lh_n = n
    g.lh_mask = g.ge[1] & ~(1u << L)
    g.lpair_mask = g.ge[2] & ~(1u << L) & 0x1FFFu
    n = 0
    for k in range(16):
        g.lh_below[k] = n
        n += (g.lh_mask >> k) & 1


cdef inline void _gen_init(gen_t* g, const ddz_rules* rules, uint64_t hand,
                           ddz_move* out, int64_t cap) noexcept nogil:
    # `hand` must be valid (ddz_hand_valid): _ranks_holding needs nibbles <= 7.
    cdef int i
    g.out = out
    g.cap = <int>(cap if cap < 0x40000000 else 0x40000000)
    g.n = 0
    g.hand = hand
    g.w = _nib(hand, IDX_W)
    g.size = _hand_size(hand)
    # W stands for ranks up to wild_max_rank; no main part goes past D (14),
    # so clamping there is exact and keeps the shift below 32 bits whatever
    # the rule set says
    g.wild_max = (rules.wild_max_rank if rules.wild_max_rank < IDX_D else IDX_D) \
        if rules.has_wild else -1
    g.wmask = ((2u << g.wild_max) - 1) if rules.has_wild else 0
    g.ge[0] = 0x7FFF
    for i in range(1, 5):
        g.ge[i] = _ranks_holding(hand, i)
    g.skip = 0
    g.stop = 0
    g.marks = NULL
    g.lz = -1
    if rules.wild_mask:
        # one wild rank for now (Rules accepts one): its lowest bit. A hand
        # without laizi has exactly the classic moves (natural fours are
        # BOMBs), which the single-W path above makes, faster.
        i = _ctz(rules.wild_mask)
        if _nib(hand, i):
            _lz_init(g, i)


cdef inline int64_t _gen_moves(gen_t* g, const ddz_rules* rules,
                              const ddz_move* last, int laizi) noexcept nogil:
    # ddz_legal_moves after _gen_init. Called with laizi a constant (0 or 1),
    # so that the loops of a hand without laizi hold no laizi code.
    cdef int kind, tp, tk, i
    if last == NULL:
        if g.size == g.w:
            # Nothing but W (or nothing at all): W never plays alone.
            if g.w:
                _emit(g, 0, K_PASS, 0, 0, WILD_NONE)
            return g.n
        for kind in range(1, NKINDS):
            if laizi and g.stop and g.n >= g.cap:
                break
            if rules.allowed[kind]:
                _gen_kind_of(g, rules, kind, 0, 14, 0, laizi)
        return g.n
    _emit(g, 0, K_PASS, 0, 0, WILD_NONE)
    if last.kind >= NKINDS:
        return g.n
    tp = rules.tier[last.kind]
    if tp == 0 and rules.allowed[last.kind]:
        _gen_kind_of(g, rules, last.kind, last.rank + 1, 14, last.length, laizi)
    for i in range(rules.ntiered):
        if laizi and g.stop and g.n >= g.cap:
            break
        kind = rules.tiered[i]
        tk = rules.tier[kind]
        if tk < tp:
            continue
        if tk > tp:
            _gen_kind_of(g, rules, kind, 0, 14, 0, laizi)
        elif rules.ranked[kind] and rules.ranked[last.kind]:
            _gen_kind_of(g, rules, kind, last.rank + 1, 14, 0, laizi)
    return g.n


cdef int64_t ddz_legal_moves(const ddz_rules* rules, uint64_t hand,
                             const ddz_move* last, ddz_move* out,
                             int64_t cap) noexcept nogil:
    cdef gen_t g
    if rules.laizi and not rules.wild_mask:
        return 0    # no wild rank drawn yet: no moves (Python raises ValueError)
    _gen_init(&g, rules, hand, out, cap)
    if g.lz >= 0:
        return _gen_moves(&g, rules, last, 1)
    return _gen_moves(&g, rules, last, 0)


cdef int ddz_legal_move_at(const ddz_rules* rules, uint64_t hand,
                           const ddz_move* last, int64_t k,
                           ddz_move* out) noexcept nogil:
    # Move k of ddz_legal_moves(rules, hand, last) into out[k] (out holds
    # k + 1 moves; out[0:k] is scratch); 0, or -1 when there are k or fewer.
    # In a hand holding laizi, the main parts whose moves all come before
    # move k are counted, not listed, and generation stops at move k.
    cdef gen_t g
    cdef int64_t n
    if k < 0 or k >= 0x3FFFFFFF or (rules.laizi and not rules.wild_mask):
        return -1
    _gen_init(&g, rules, hand, out, k + 1)
    g.skip = <int>k
    g.stop = 1
    if g.lz >= 0:
        n = _gen_moves(&g, rules, last, 1)
    else:
        n = _gen_moves(&g, rules, last, 0)
    return 0 if n > k else -1


cdef int64_t ddz_kind_moves(const ddz_rules* rules, uint64_t hand, int kind, int rmin,
                            int rmax, int length, ddz_move* out, int64_t cap,
                            int64_t n) noexcept nogil:
    cdef gen_t g
    if rules.laizi and not rules.wild_mask:
        return n
    _gen_init(&g, rules, hand, out, cap)
    g.n = <int>n
    _gen_kind(&g, rules, kind, rmin, rmax, length)
    return g.n


cdef int64_t ddz_draw_count(ddz_draw* d, const ddz_rules* rules, uint64_t hand,
                            const ddz_move* last) noexcept nogil:
    # The legal moves' count (as ddz_legal_moves), listing none; in a hand
    # holding laizi, where each kind's moves start is kept in *d for
    # ddz_draw_make.
    d.rules = rules
    d.hand = hand
    d.last = last
    d.counted = 0
    if rules.laizi and not rules.wild_mask:
        return 0
    _gen_init(&d.g, rules, hand, NULL, 0)
    if d.g.lz < 0:
        return _gen_moves(&d.g, rules, last, 0)
    d.g.marks = d.marks
    d.g.nmarks = 0
    d.counted = 1
    return _gen_moves(&d.g, rules, last, 1)


cdef int ddz_draw_make(ddz_draw* d, int64_t k, ddz_move* out) noexcept nogil:
    # Move k of the list ddz_draw_count counted into out[k] (out holds k + 1
    # moves; out[0:k] is scratch); 0, or -1 when there are k or fewer. Only
    # the kind holding move k is walked again, its main parts before move k
    # counted, not listed (gen_t.skip).
    cdef gen_t* g = &d.g
    cdef const lz_mark* mk
    cdef int i = 0
    if (not d.counted or g.nmarks > LZ_MARKS or g.nmarks == 0 or k < 0
            or k >= 0x3FFFFFFF or d.marks[0].n > k):
        return ddz_legal_move_at(d.rules, d.hand, d.last, k, out)
    # the last mark at or before move k (marks come in order of n)
    while i + 1 < g.nmarks and d.marks[i + 1].n <= k:
        i += 1
    mk = &d.marks[i]
    g.marks = NULL
    g.out = out
    g.cap = <int>k + 1
    g.n = mk.n
    g.skip = <int>k
    g.stop = 1
    _lz_kind(g, mk.kind, mk.rmin, mk.rmax, mk.nfix)
    return 0 if g.n > k else -1


# ---- checking and classifying: the generator over the cards themselves ----
#
# A move is legal exactly when the generator produces it from a hand holding
# its cards, and a hand equal to those cards is the smallest such hand. So
# ddz_check and ddz_classify run the generator for one kind (and length) over
# `cards` itself and keep the moves whose cards are all of `cards`: the shape
# table and the kicker rules are written once, in the generator.
#
# Over a hand equal to `cards`, every generated move of a generic kind with
# as many cards as `cards` (the length fixed by the card count) uses all of
# `cards`, and moves are distinct in (rank, cards) within a kind: so at most
# one move per rank, 15 in all; a special kind adds at most 4 at rank 13
# (XD, XW, DW, XDW), 13 + 4 = 17 in the worst rule set. READINGS holds them.

cdef enum:
    READINGS = 32


cdef inline int _length_fits(int kind, int length, int size) noexcept nogil:
    # Whether `size` cards can be a move of `kind` with chain length `length`.
    cdef const kind_shape* s = &KIND_SHAPE[kind]
    if s.q == 0:
        return length == 1
    return size == _cards_per_rank(s) * length


cdef int ddz_check(const ddz_rules* rules, int kind, int rank, int length,
                   uint64_t cards) noexcept nogil:
    cdef gen_t g
    cdef ddz_move buf[READINGS]
    cdef int i, n
    if kind < 0 or kind >= NKINDS or not rules.allowed[kind]:
        return -1
    if rules.laizi and not rules.wild_mask:
        return -1
    if not ddz_hand_valid(rules, cards):
        return -1
    if kind == K_PASS:
        return WILD_NONE if (cards == 0 and rank == 0 and length == 0) else -1
    if (length < 1 or rank < 0 or rank > 14
            or not _length_fits(kind, length, _hand_size(cards))):
        return -1
    _gen_init(&g, rules, cards, buf, READINGS)
    _gen_kind(&g, rules, kind, rank, rank, length)
    n = g.n if g.n < READINGS else READINGS
    for i in range(n):
        if buf[i].rank == rank and buf[i].length == length and buf[i].cards == cards:
            return buf[i].wild
    return -1


cdef int64_t ddz_classify(const ddz_rules* rules, uint64_t cards,
                          ddz_move* out, int64_t cap) noexcept nogil:
    cdef gen_t g
    cdef ddz_move buf[READINGS]
    cdef int64_t n = 0
    cdef int size = _hand_size(cards)
    cdef int kind, i, length, unit, made
    if not ddz_hand_valid(rules, cards) or (rules.laizi and not rules.wild_mask):
        return 0
    _gen_init(&g, rules, cards, buf, READINGS)
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
                    out[n].substitutes = 0
                n += 1
            continue
        if size == 0:
            continue
        if KIND_SHAPE[kind].q:
            unit = _cards_per_rank(&KIND_SHAPE[kind])
            if size % unit:
                continue
            length = size // unit
            if not KIND_SHAPE[kind].chain and length != 1:
                continue
        else:
            length = 1
        g.n = 0
        _gen_kind(&g, rules, kind, 0, 14, length)
        made = g.n if g.n < READINGS else READINGS
        for i in range(made):
            if buf[i].cards == cards and buf[i].length == length:
                if n < cap:
                    out[n] = buf[i]
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
