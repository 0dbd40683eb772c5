# The C core of ddzfast, included into _core.pyx: the shape of each move
# kind, packed-hand helpers, legal-move generation, checking a move,
# classifying a card set and comparing two moves. Plain C: no Python
# objects, `noexcept nogil` throughout (declared in _core.pxd).

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
