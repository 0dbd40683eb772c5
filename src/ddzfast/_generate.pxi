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


cdef inline int _within_a_deck(uint64_t hand) noexcept nogil:
    # No card index holds more than a deck (with W) has (CARD_LIMITS):
    # nibbles 0..12 at most 4 (SWAR: x > 4 iff bit 3 of x or of (x & 7) + 3),
    # X, D and W at most 1.
    cdef uint64_t ranks = hand & 0x000FFFFFFFFFFFFFULL
    cdef uint64_t over = (((ranks & 0x0007777777777777ULL) + 0x0003333333333333ULL)
                          | ranks) & 0x0008888888888888ULL
    return not over and not (hand & 0xEEE0000000000000ULL)


cdef int ddz_hand_valid(const ddz_rules* rules, uint64_t hand) noexcept nogil:
    # Within a deck, W only in a deck that has it.
    if not _within_a_deck(hand):
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


include "_generate_laizi.pxi"


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
    g.only_size = 0
    g.flast = NULL
    g.lz = -1
    if rules.wild_mask:
        # A hand without laizi has exactly the classic moves (natural fours
        # are BOMBs), which the single-W path above makes, faster.
        for i in range(13):
            if (rules.wild_mask >> i) & 1 and _nib(hand, i):
                _lz_init(g, rules)
                break


cdef inline int64_t _gen_moves(gen_t* g, const ddz_rules* rules,
                              const ddz_move* last, int laizi) noexcept nogil:
    # ddz_legal_moves after _gen_init. Called with laizi a constant (0 or 1),
    # so that the loops of a hand without laizi hold no laizi code.
    cdef int kind, tp, tk, i, beat
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
    tp = ddz_move_tier(rules, last)
    if tp == 0 and rules.allowed[last.kind]:
        _gen_kind_of(g, rules, last.kind, last.rank + 1, 14, last.length, laizi)
    for i in range(rules.ntiered):
        if laizi and g.stop and g.n >= g.cap:
            break
        kind = rules.tiered[i]
        if rules.size_tiered[kind]:
            # its tiers span sizes: walked whole, each bomb compared with the
            # last move only when its tier is within the kind's (bombs are
            # few)
            if laizi:
                beat = _size_tiered_beat(rules, kind, tp)
                if beat != BEAT_NONE:
                    g.flast = last if beat == BEAT_SOME else NULL
                    _gen_kind_of(g, rules, kind, 0, 14, 0, laizi)
                    g.flast = NULL
            continue
        tk = rules.tier[kind]
        if tk < tp:
            continue
        if tk > tp:
            _gen_kind_of(g, rules, kind, 0, 14, 0, laizi)
        elif rules.ranked[kind] and rules.ranked[last.kind]:
            _gen_kind_of(g, rules, kind, last.rank + 1, 14, 0, laizi)
    return g.n


cdef inline const ddz_move* _own_last(const ddz_move* last,
                                      ddz_move* copy) noexcept nogil:
    # The move to beat read once, into `copy`: the generator reads it many
    # times (a tiandi list past its buffer is walked three times, counted
    # alike), and the caller's memory (a Numba caller's array) may be
    # written by another thread meanwhile.
    if last == NULL:
        return NULL
    copy[0] = last[0]
    return copy


cdef int64_t ddz_legal_moves(const ddz_rules* rules, uint64_t hand,
                             const ddz_move* last, ddz_move* out,
                             int64_t cap) noexcept nogil:
    cdef gen_t g
    cdef ddz_move own
    last = _own_last(last, &own)
    if not _rules_ready(rules):
        return 0    # wild ranks not drawn yet: no moves (Python raises ValueError)
    _gen_init(&g, rules, hand, out, cap)
    if g.lz == IDX_W:
        if g.lboth and cap <= 0:
            # a count: the walk that lists would list nothing and come short
            # of it (see _td_moves)
            return _td_count_far(rules, hand, last, -1, 0, 0, 0)
        return _td_moves_far(&g, rules, hand, last)
    if g.lz >= 0:
        return _gen_moves(&g, rules, last, 1)
    return _gen_moves(&g, rules, last, 0)


cdef inline int _td_splits(const gen_t* g, uint64_t cards) noexcept nogil:
    # The splits of a move the walks made without the others (_td_one_split) of a
    # tiandi hand holding laizi of both ranks, by its laizi; one for a move
    # of laizi alone (face value)
    cdef int t
    if not (cards & ~g.lmask):
        return 1
    t = _nib(cards, g.lt) + _nib(cards, g.lg)
    return _td_split_count(g, t)


cdef int64_t _td_count(const ddz_rules* rules, uint64_t hand, const ddz_move* last,
                       int kind, int rmin, int rmax, int length) noexcept nogil:
    # The moves of a tiandi hand holding laizi of both ranks, every split
    # counted: of one kind as ddz_kind_moves (kind >= 0), else all of them.
    # The walks make one split a move and count the moves of each main part
    # as their splits (_td_weigh), listing none; the soft bombs, counted
    # once each there, are made apart (few: SOFT_BOMBS_MOST) to count the
    # other splits of those in the list (leading, all; following, those
    # that beat the last move).
    cdef gen_t h
    cdef ddz_move bombs[SOFT_BOMBS_MOST]
    cdef int64_t total
    cdef int i
    _gen_init(&h, rules, hand, NULL, 0)
    _td_one_split(&h)
    _td_weigh(&h)
    if kind >= 0:
        _gen_kind(&h, rules, kind, rmin, rmax, length)
        total = h.n
        if kind != K_SOFT_BOMB:
            return total
    else:
        total = _gen_moves(&h, rules, last, 1)
        if not rules.allowed[K_SOFT_BOMB]:
            return total
        rmin, rmax, length = 0, 14, 0
    _gen_init(&h, rules, hand, bombs, SOFT_BOMBS_MOST)
    _td_one_split(&h)
    _gen_kind(&h, rules, K_SOFT_BOMB, rmin, rmax, length)
    for i in range(h.n if h.n < SOFT_BOMBS_MOST else SOFT_BOMBS_MOST):
        if kind >= 0 or last == NULL or ddz_beats(rules, &bombs[i], last):
            total += _td_splits(&h, bombs[i].cards) - 1
    return total


# _td_count reached through a pointer from ddz_legal_moves, for the same
# reason as _td_moves_far below
cdef int64_t (*_td_count_far)(const ddz_rules*, uint64_t, const ddz_move*,
                              int, int, int, int) noexcept nogil
_td_count_far = _td_count


cdef int64_t _td_moves(gen_t* g, const ddz_rules* rules, uint64_t hand,
                       const ddz_move* last) noexcept nogil:
    # ddz_legal_moves of a tiandi hand holding laizi (g made by _gen_init).
    # With laizi of both ranks the walks write every split of each move
    # (gen_t.lsc), and past cap their count falls short (a main part
    # counted once, not per split; splits not read back): it is then made
    # apart (_td_count). The first cap moves are in place, as the walks
    # fall short only of moves past cap.
    cdef int64_t n = _gen_moves(g, rules, last, 1)
    if n > g.cap and g.lboth:
        return _td_count(rules, hand, last, -1, 0, 0, 0)
    return n


# _td_moves reached through a pointer, so that the compiler keeps it (and
# the walk inlined in it) out of ddz_legal_moves: inlined there, it made
# the function larger and every rule set's path through it longer
cdef int64_t (*_td_moves_far)(gen_t*, const ddz_rules*, uint64_t,
                              const ddz_move*) noexcept nogil
_td_moves_far = _td_moves


cdef int ddz_legal_move_at(const ddz_rules* rules, uint64_t hand,
                           const ddz_move* last, int64_t k,
                           ddz_move* out) noexcept nogil:
    # Move k of ddz_legal_moves(rules, hand, last) into out[k] (out holds
    # k + 1 moves; out[0:k] is scratch); 0, or -1 when there are k or fewer.
    # In a hand holding laizi, the main parts whose moves all come before
    # move k are counted, not listed, and generation stops at move k.
    cdef gen_t g
    cdef int64_t n
    cdef ddz_move own
    last = _own_last(last, &own)
    if k < 0 or k >= 0x3FFFFFFF or not _rules_ready(rules):
        return -1
    _gen_init(&g, rules, hand, out, k + 1)
    # the window, but with two wild ranks, whose walks copy moves before
    # move k to make the other splits: there moves 0..k are made, and a
    # count past cap, short of the total, is still more than k
    if g.lz != IDX_W:
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
    if not _rules_ready(rules):
        return n
    _gen_init(&g, rules, hand, out, cap)
    if g.lz == IDX_W:
        # the moves made here (out[n:] only, every split); when they do not
        # fit, counted apart (see _td_moves), with no walk first when there
        # is no room at all
        if cap > n or not g.lboth:
            _gen_init(&g, rules, hand, out + n, cap - n if cap > n else 0)
            _gen_kind(&g, rules, kind, rmin, rmax, length)
            if g.n <= g.cap or not g.lboth:
                return n + g.n
        return n + _td_count(rules, hand, NULL, kind, rmin, rmax, length)
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
    if not _rules_ready(rules):
        return 0
    _gen_init(&d.g, rules, hand, NULL, 0)
    if d.g.lz == IDX_W:
        # two wild ranks: counted as ddz_legal_moves counts with no buffer
        # (ddz_draw_make walks again up to move k)
        return ddz_legal_moves(rules, hand, last, NULL, 0)
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


cdef int64_t ddz_draw_splits_count(ddz_draw* d, const ddz_rules* rules, uint64_t hand,
                                   const ddz_move* last, int* most) noexcept nogil:
    most[0] = 1
    d.rules = rules
    d.hand = hand
    d.last = last
    d.counted = 0
    if not _rules_ready(rules):
        return 0
    _gen_init(&d.g, rules, hand, NULL, 0)
    if d.g.lz != IDX_W:
        return ddz_draw_count(d, rules, hand, last)
    # the moves one split each (their other splits drawn by ddz_draw_split_make)
    _td_one_split(&d.g)
    # a move of t laizi has min(t, wt) - max(0, t - wg) + 1 splits, at most
    # min(wt, wg) + 1
    most[0] = (d.g.lwt if d.g.lwt < d.g.lwg else d.g.lwg) + 1
    d.g.marks = d.marks
    d.g.nmarks = 0
    d.counted = 1
    return _gen_moves(&d.g, rules, last, 1)


cdef int ddz_draw_split_make(ddz_draw* d, int64_t k, int split,
                             ddz_move* out) noexcept nogil:
    cdef gen_t* g = &d.g
    cdef gen_t h
    cdef const lz_mark* mk
    cdef int i = 0, t, a
    cdef int64_t n
    cdef uint64_t base
    if not d.counted or g.lz != IDX_W:
        return ddz_draw_make(d, k, out) if split == 0 else 1
    if k < 0 or k >= 0x3FFFFFFF or split < 0:
        return -1
    if g.nmarks > LZ_MARKS or g.nmarks == 0 or d.marks[0].n > k:
        # before the first kind (a follow's PASS), or no marks: walked again
        _gen_init(&h, d.rules, d.hand, out, k + 1)
        _td_one_split(&h)
        n = _gen_moves(&h, d.rules, d.last, 1)
        if n <= k:
            return -1
    else:
        while i + 1 < g.nmarks and d.marks[i + 1].n <= k:
            i += 1
        mk = &d.marks[i]
        g.marks = NULL
        g.out = out
        g.cap = <int>k + 1
        g.n = mk.n
        g.skip = <int>k
        g.stop = 1
        # as _gen_moves walks it: a kind whose tiers span sizes is filtered
        # by the last move when its tier is within the kind's
        g.flast = NULL
        if (d.last != NULL and d.rules.size_tiered[mk.kind]
                and _size_tiered_beat(d.rules, mk.kind, ddz_move_tier(d.rules, d.last))
                == BEAT_SOME):
            g.flast = d.last
        _lz_kind(g, mk.kind, mk.rmin, mk.rmax, mk.nfix)
        g.flast = NULL
        if g.n <= k:
            return -1
    if split >= _td_splits(g, out[k].cards):
        return 1
    base = out[k].cards & ~g.lmask
    if not base:
        # laizi alone (face value): one split, as made
        return 0
    t = _nib(out[k].cards, g.lt) + _nib(out[k].cards, g.lg)
    # split s: s fewer laizi of the sky rank lt than the most (most first)
    a = _td_sky_most(g, t) - split
    out[k].cards = (base + (<uint64_t>a << (4 * g.lt))
                    + (<uint64_t>(t - a) << (4 * g.lg)))
    return 0


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
    if not _rules_ready(rules):
        return -1
    if not ddz_hand_valid(rules, cards):
        return -1
    if kind == K_PASS:
        return WILD_NONE if (cards == 0 and rank == 0 and length == 0) else -1
    if (length < 1 or rank < 0 or rank > 14
            or not _length_fits(kind, length, _hand_size(cards))):
        return -1
    _gen_init(&g, rules, cards, buf, READINGS)
    g.only_size = _hand_size(cards)
    _gen_kind(&g, rules, kind, rank, rank, length)
    n = g.n if 0 <= g.n < READINGS else READINGS
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
    if not ddz_hand_valid(rules, cards) or not _rules_ready(rules):
        return 0
    _gen_init(&g, rules, cards, buf, READINGS)
    g.only_size = size
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
        made = g.n if 0 <= g.n < READINGS else READINGS
        for i in range(made):
            if buf[i].cards == cards and buf[i].length == length:
                if n < cap:
                    out[n] = buf[i]
                n += 1
    return n


cdef inline int _one_rank(uint64_t cards) noexcept nogil:
    # 1 when the cards are all of one card index
    cdef uint64_t x = cards | (cards >> 1)
    x = (x | (x >> 2)) & 0x1111111111111111ULL
    return x != 0 and (x & (x - 1)) == 0


cdef int ddz_move_tier(const ddz_rules* rules, const ddz_move* m) noexcept nogil:
    cdef int size
    cdef int t
    if m.kind >= NKINDS:
        return 0
    t = rules.tier[m.kind]
    if rules.size_tiered[m.kind]:
        size = _hand_size(m.cards)
        t = rules.size_tier[m.kind][size if size <= 12 else 0]
        if m.kind == K_LAIZI_BOMB and _one_rank(m.cards):
            t += rules.pure_step
    return t


cdef enum:
    BEAT_NONE = 0   # no bomb of the kind beats the last move
    BEAT_ALL = 1    # every one does
    BEAT_SOME = 2   # the last move's tier is within the kind's: each compared


cdef inline int _size_tiered_beat(const ddz_rules* rules, int kind, int tp) noexcept nogil:
    # Which bombs of a kind whose tiers span sizes beat a last move of tier
    # tp: a follow compares each with the last move only when tp is between
    # the kind's lowest and highest tiers
    if rules.size_tier_lo[kind] > tp:
        return BEAT_ALL
    if rules.size_tier_hi[kind] < tp:
        return BEAT_NONE
    return BEAT_SOME


cdef int ddz_one_rank(uint64_t cards) noexcept nogil:
    return _one_rank(cards)


cdef int ddz_reads_cards(const ddz_rules* rules, int kind) noexcept nogil:
    # ddz_move_tier reads the size of a kind whose tier grows with it (and a
    # LAIZI_BOMB's purity); ddz_beats reads whether a move of a bomb tier is
    # of one rank where a pure LAIZI_BOMB may beat a move of its own tier
    # (LAIZI_BOMB allowed and ranked)
    return 1 if (rules.size_tiered[kind]
                 or (rules.allowed[K_LAIZI_BOMB] and rules.ranked[K_LAIZI_BOMB]
                     and rules.tier[kind])) else 0


cdef uint32_t ddz_beaten_code(const ddz_rules* rules, const ddz_move* m) noexcept nogil:
    # its tier plus one when that is not its kind's (a bomb of more than four
    # cards, a pure LAIZI_BOMB), and bit 9 when its cards are not of one rank
    cdef int t
    cdef uint32_t code = 0
    if m.kind >= NKINDS or not ddz_reads_cards(rules, m.kind):
        return 0
    t = ddz_move_tier(rules, m)
    if t != rules.tier[m.kind]:
        code = <uint32_t>(t + 1)
    if not _one_rank(m.cards):
        code |= 1u << 9
    return code


cdef int ddz_beats(const ddz_rules* rules, const ddz_move* move,
                   const ddz_move* last) noexcept nogil:
    cdef int tm, tp
    if move.kind == K_PASS or last.kind == K_PASS:
        return 0
    tm = ddz_move_tier(rules, move)
    tp = ddz_move_tier(rules, last)
    if tm != tp:
        return 1 if tm > tp else 0
    if tm > 0:
        # LAIZI_BOMBs of two wild ranks (mixed) never beat each other
        if move.kind == K_LAIZI_BOMB and not (_one_rank(move.cards)
                                              and _one_rank(last.cards)):
            return 0
        return 1 if (rules.ranked[move.kind] and rules.ranked[last.kind]
                     and move.rank > last.rank) else 0
    return 1 if (move.kind == last.kind and move.length == last.length
                 and move.rank > last.rank) else 0
