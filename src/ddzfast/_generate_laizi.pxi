# The laizi part of the generator (RULES.md section 8), included into
# _generate.pxi: a hand holding laizi (the four cards of the deal's wild
# rank, each standing for any rank 3..2 or for itself) gets its moves here;
# every other hand takes the plain path of _generate.pxi. Plain C over the
# generator state gen_t (_core.pxd).
#
# A separate path, taken only when the rule set has a wild rank L (g.lz >= 0),
# so the single-W generator of _generate.pxi is untouched. The identity of a laizi move
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


cdef inline int _put_meta(ddz_move* out, int n, int cap, uint64_t cards,
                        uint64_t meta) noexcept nogil:
    # _put with the meta word ready (keep out, n and cap in locals, as there)
    if n < cap:
        _store_cm(out + n, cards, meta)
    return n + 1


cdef inline uint32_t _lz_sub(int rank, int d) noexcept nogil:
    # `d` laizi (0..8) standing for `rank`, as bits of ddz_substitutes'
    # encoding (at most one rank of a move has four or more: see there)
    if d < 4:
        return (<uint32_t>d) << (2 * rank)
    if d < 8:
        return ((<uint32_t>(d - 4)) << (2 * rank)) | ((<uint32_t>(rank + 1)) << 26)
    return ((<uint32_t>(rank + 1)) << 26) | ((<uint32_t>1) << 30)


cdef inline uint32_t _td_face_subs(int t, int a, int g, int b) noexcept nogil:
    # ddz_substitutes of a move of laizi alone (face value): a cards of the
    # wild rank t and b of the wild rank g, each standing for itself
    if a == 4 and b == 4:
        if t > g:
            t, g = g, t
        return ((<uint32_t>(t + 1)) << 26) | ((<uint32_t>1) << 31) | <uint32_t>(g + 1)
    return _lz_sub(t, a) + _lz_sub(g, b)


cdef inline void _lz_emit(gen_t* g, uint64_t cards, int kind, int rank, int length,
                          uint32_t subs) noexcept nogil:
    g.n = _put_meta(g.out, g.n, g.cap, cards,
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
                n = _put_meta(out, n, cap, acc + g.lpool_unit[i], meta)
        else:
            for i in range(idx, pool_n):
                ai = acc + g.lpool_unit[i]
                if g.lpool_count[i] >= 2:
                    n = _put_meta(out, n, cap, ai + g.lpool_unit[i], meta)
                for j in range(i + 1, pool_n):
                    n = _put_meta(out, n, cap, ai + g.lpool_unit[j], meta)
        g.n = n
        return
    unit = g.lpool_unit[idx]
    top = g.lpool_count[idx] if g.lpool_count[idx] < need else need
    for t in range(top, -1, -1):
        if t == need:
            g.n = _put_meta(g.out, g.n, g.cap, acc + t * unit, meta)
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
            g.n = _put_meta(g.out, g.n, g.cap,
                            acc + (g.lmu[g.lkoff + left] - g.lmu[g.lkoff + left - 2 * need]),
                            meta)
        return
    if need > g.lpool_n - idx + left // 2:
        return
    unit = g.lpool_unit[idx]
    if g.lpool_count[idx] >= 2:
        _lz_pairs(g, idx + 1, need - 1, acc + 2 * unit, left, chosen + 1, 1, meta)
    if left:
        _lz_pairs(g, idx + 1, need - 1, acc + unit + g.lunits[g.lkoff + left - 1], left - 1,
                  chosen + 1, 1, meta)
    _lz_pairs(g, idx + 1, need, acc, left, chosen, nat, meta)


cdef inline void _lz_set_kick_upto(gen_t* g, int t, int count) noexcept nogil:
    # lkick_upto[t:] = count: so far the base has count moves, each with at
    # most t laizi among its kickers
    cdef int i
    for i in range(t, 9):
        g.lkick_upto[i] = count


cdef void _lz_two_pairs(gen_t* g, uint64_t main, int left, int nat, uint64_t meta,
                        int i0, int i1, int end) noexcept nogil:
    # Two pair kickers (FOUR_PAIRS, a two-triple PLANE_PAIRS) of distinct
    # ranks from lh[0:i0] and lh[i1:end], by their number t of laizi (g.lkick_upto):
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
    cdef uint64_t l1 = g.lku[1]
    cdef uint64_t l2 = g.lku[2]
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
            n = _put_meta(out, n, cap, x + pu[b], meta)
    g.lkick_upto[0] = n - n0
    if left >= 1:
        for a in range(np):
            x = main + pu[a] + l1
            for b in range(pidx[a]):
                n = _put_meta(out, n, cap, x + su[b], meta)
            for b in range(pidx[a] + 1, ns):
                n = _put_meta(out, n, cap, x + su[b], meta)
    g.lkick_upto[1] = n - n0
    if left >= 2:
        for a in range(ns):
            x = main + su[a] + l2
            for b in range(a + 1, ns):
                n = _put_meta(out, n, cap, x + su[b], meta)
        if free >= 2:
            for a in range(np):
                n = _put_meta(out, n, cap, main + pu[a] + l2, meta)
    g.lkick_upto[2] = n - n0
    if left >= 3 and free >= 2:
        for a in range(ns):
            n = _put_meta(out, n, cap, main + su[a] + g.lku[3], meta)
    g.lkick_upto[3] = n - n0
    if left >= 4 and nat and free >= 2:
        n = _put_meta(out, n, cap, main + g.lku[4], meta)
    _lz_set_kick_upto(g, 4, n - n0)
    g.n = n


cdef void _lz_kickers(gen_t* g, uint64_t main, int left, int nat,
                      uint64_t meta) noexcept nogil:
    # The main part `main` (nat: it holds a natural card) with every kicker
    # choice from the natural cards of the other ranks and `left` laizi; a
    # move of only laizi is read at face value, so never gets kickers. The
    # moves come by their number of laizi kickers (recorded in g.lkick_upto, for
    # _lz_variant), but for two or more pair kickers (g.lsorted = 0).
    cdef int need = g.lneed
    cdef int i, j, t, tmax, seg, lo, hi, i0, i1, end, pool_n
    cdef int n0 = g.n
    cdef uint64_t lunit = g.lku[1]
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
            g.lkoff = g.lw - left
            _lz_pairs(g, 0, need, main, left, 0, nat, meta)
            return
        # t of the single kickers laizi (one kicker each, whatever they
        # stand for), the others natural
        tmax = left if left < need else need
        if tmax == need and not nat:
            tmax = need - 1
        for t in range(tmax + 1):
            if t == need:
                g.n = _put_meta(g.out, g.n, g.cap, main + g.lku[t], meta)
            else:
                _lz_nat_singles(g, 0, need - t, main + g.lku[t], meta)
            g.lkick_upto[t] = g.n - n0
        _lz_set_kick_upto(g, tmax + 1, g.n - n0)
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
        g.lkick_upto[0] = n - n0
        if left:
            for seg in range(2):
                lo = 0 if seg == 0 else i1
                hi = i0 if seg == 0 else end
                for i in range(lo, hi):
                    n = _put_meta(out, n, cap, main + g.lh_unit[i] + lunit, meta)
        g.lkick_upto[1] = n - n0
        if left >= 2 and nat and g.lnmain < RANKS_3_2:
            n = _put_meta(out, n, cap, main + g.lku[2], meta)
        _lz_set_kick_upto(g, 2, n - n0)
        g.n = n
        return
    tmax = left if left < need else need
    if tmax == need and not nat:
        tmax = need - 1
    if need == 1:
        for i in range(i0):
            n = _put_meta(out, n, cap, main + g.lh_unit[i], meta)
        for i in range(i1, end):
            n = _put_meta(out, n, cap, main + g.lh_unit[i], meta)
        g.lkick_upto[0] = n - n0
        if tmax:
            n = _put_meta(out, n, cap, main + lunit, meta)
        _lz_set_kick_upto(g, 1, n - n0)
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
            n = _put_meta(out, n, cap, mi + units[j], meta)
    g.lkick_upto[0] = n - n0
    if tmax:
        for i in range(pool_n):
            n = _put_meta(out, n, cap, main + units[i] + lunit, meta)
    g.lkick_upto[1] = n - n0
    if tmax == 2:
        n = _put_meta(out, n, cap, main + g.lku[2], meta)
    _lz_set_kick_upto(g, 2, n - n0)
    g.n = n


# LZ_SPREAD[a - 1][m][e]: the ways to take e cards (e <= 8) from m ranks
# holding a cards each, at most a from each: the coefficient of x^e in
# (1 + x + ... + x^a)^m. A main part's variants (_lz_replace_naturals, _lz_replace_naturals_plain)
# take e of its natural cards out for laizi, so these count them
# (_lz_spread).
cdef int LZ_SPREAD[4][14][9]


cdef void _lz_spread_init() noexcept nogil:
    cdef int a, m, e, j
    for a in range(1, 5):
        LZ_SPREAD[a - 1][0][0] = 1
        for e in range(1, 9):
            LZ_SPREAD[a - 1][0][e] = 0
        for m in range(1, 14):
            for e in range(9):
                LZ_SPREAD[a - 1][m][e] = 0
                for j in range((a if a < e else e) + 1):
                    LZ_SPREAD[a - 1][m][e] += LZ_SPREAD[a - 1][m - 1][e - j]


_lz_spread_init()


cdef inline void _lz_spread(const gen_t* g, uint64_t main, int nat, int top,
                            int* c) noexcept nogil:
    # c[e], e = 0..top (top <= 8): the ways to take e of the nat natural
    # cards out of the chain `main` (the main part set in g), each rank
    # giving at most the natural cards it holds: a variant each.
    cdef uint64_t nib13 = 0x1111111111111ULL
    cdef uint64_t x
    cdef int ge1, ge2, ge3, ge4, e, i
    cdef int c12[9]
    cdef int c34[9]
    if g.lq == 1:
        # a chain of singles: nat ranks of one natural card each
        for e in range(top + 1):
            c[e] = LZ_SPREAD[0][nat][e]
        return
    # the natural cards of the main ranks (main but the laizi's nibbles):
    # ge1..ge4 ranks hold at least 1..4 of them
    x = main & ~g.lmask
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
    # (at most 8: a hand holds no more): g.lkc[t] of them with t or fewer,
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
    cdef int kc[9]
    # need <= 12: a chain has at most 12 ranks (3..A)
    cdef int poly[13]
    cdef int ways[13][13]   # [pairs chosen from the pool][of them natural + laizi]
    for t in range(9):
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
                    if t <= 8:
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
        for t in range(need if need < 9 else 9):
            kc[t] = poly[need - t]
        g.lkall = need
    g.lkc[0] = kc[0]
    for t in range(1, 9):
        g.lkc[t] = g.lkc[t - 1] + kc[t]


cdef inline int _lz_tally(const gen_t* g, int left, int nat) noexcept nogil:
    # The moves of a main part with `left` laizi free (nat: it holds a
    # natural card), from g.lkc: as many as _lz_kickers would make
    return g.lkc[left] + <int>(nat != 0 and g.lkall <= left)


cdef inline int _lz_variant_ways(const gen_t* g, int extra, uint64_t main, int nat,
                                 int* c) noexcept nogil:
    # c[e]: the variants of a main part (extra laizi free, nat natural
    # cards) that take e more natural cards out for laizi, e = 0..top;
    # returns top
    cdef int top = extra if extra < 8 else 8
    cdef int e
    if top > nat:
        top = nat
    if g.length == 1:
        # one rank: one way for each e up to top
        for e in range(top + 1):
            c[e] = 1
    else:
        _lz_spread(g, main, nat, top, c)
    return top


cdef inline int _lz_count_main(gen_t* g, int extra, uint64_t main, uint32_t subs,
                               int nat) noexcept nogil:
    # The moves _lz_main makes for a main part (its base and every
    # variant), counted, not listed: a variant takes e more natural cards
    # out for laizi (c[e] ways), leaving extra - e laizi free and nat - e
    # natural cards.
    cdef int c[9]
    cdef int e, total
    cdef int top = _lz_variant_ways(g, extra, main, nat, c)
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


cdef int _td_count_main(gen_t* g, int extra, uint64_t main, uint32_t subs,
                        int nat) noexcept nogil:
    # _lz_count_main with each move counted as its splits (g.lweigh): a
    # move of the variant taking e more natural cards out, with k laizi
    # among its kickers, holds lw - extra + e + k laizi and a natural card
    # (the moves of laizi alone are _td_face's)
    cdef int c[9]
    cdef int e, k, left, d, total, ways, below
    cdef int top = _lz_variant_ways(g, extra, main, nat, c)
    cdef const int* w = g.lsplits
    d = g.lw - extra
    if g.lkick_mode == KICK_NONE:
        total = w[d] if nat or not subs else 0
        for e in range(1, (top if top < nat else nat - 1) + 1):
            total += c[e] * w[d + e]
        return total
    _lz_kick_counts(g)
    total = 0
    for e in range(top + 1):
        left = extra - e
        ways = 0
        below = 0
        for k in range(left + 1):
            # g.lkc counts the choices of k laizi or fewer
            ways += (g.lkc[k] - below) * w[d + e + k]
            below = g.lkc[k]
        if nat - e and g.lkall <= left:
            ways += w[d + e + g.lkall]
        total += c[e] * ways
    return total


cdef inline int _sky_most(int lwt, int t) noexcept nogil:
    # The most laizi of the sky rank a split of t laizi can have, lwt of
    # them held: min(t, lwt)
    return t if t < lwt else lwt


cdef inline int _sky_fewest(int lwg, int t) noexcept nogil:
    # The fewest, lwg of the ground rank held: max(0, t - lwg) (the rest are
    # of the ground rank)
    return t - lwg if t > lwg else 0


cdef inline int _td_sky_most(const gen_t* g, int t) noexcept nogil:
    return _sky_most(g.lwt, t)


cdef inline int _td_sky_fewest(const gen_t* g, int t) noexcept nogil:
    return _sky_fewest(g.lwg, t)


cdef inline int _td_split_count(const gen_t* g, int t) noexcept nogil:
    # The splits of a move of t laizi (t <= g.lw) holding a natural card:
    # min(t, lwt) - max(0, t - lwg) + 1
    return _td_sky_most(g, t) - _td_sky_fewest(g, t) + 1


cdef inline int _td_sky(int lwt, int lwg, int d, int k) noexcept nogil:
    # The laizi of the sky rank in a move the walks make of a main part of d
    # laizi (lmu[d], the sky rank's first) and k among its kickers (lku[k],
    # the ground rank's first), in a hand of lwt and lwg laizi of each rank
    return _sky_most(lwt, d) + _sky_fewest(lwg, k)


cdef void _td_alt_sections(gen_t* g, int start, int d, int tl,
                           uint64_t meta) noexcept nogil:
    # Tiandi, laizi of both ranks: the other splits of the moves out[start:]
    # of one main part of d laizi, made by their number k of laizi among
    # the kickers (g.lkick_upto) for k up to tl, each split a copy of the
    # k's moves (g.ljob_n...: RULES.md section 9, the two ranks' laizi are
    # interchangeable), written after the moves so far.
    cdef ddz_move* out = g.out
    cdef int n = g.n
    cdef int cap = g.cap
    cdef int a, k, i, j, m
    cdef uint64_t delta
    cdef const ddz_move* src
    cdef ddz_move* dst
    for j in range(g.ljob_n[d]):
        k = g.ljob_k[d][j]
        if k > tl:
            break
        a = g.lkick_upto[k - 1] if k else 0
        m = g.lkick_upto[k] - a
        src = out + start + a
        delta = g.ljob_delta[d][j]
        dst = out + n
        if n + m <= cap:
            for i in range(m):
                _store_cm(dst + i, src[i].cards + delta, meta)
        else:
            # src[i] is stored wherever its copy is (it comes first)
            for i in range(m):
                if n + i < cap:
                    _store_cm(dst + i, src[i].cards + delta, meta)
        n += m
    g.n = n


cdef void _td_alt_moves(gen_t* g, int start) noexcept nogil:
    # _td_alt_sections for moves in no such order, out[start:g.n]: each
    # move's laizi of each rank read off its cards. A move of laizi alone
    # (face value) has no other split. Moves past cap are not there to
    # read: the count is then short, and the caller walks again.
    cdef ddz_move* out = g.out
    cdef int n = g.n
    cdef int cap = g.cap
    cdef int end = n if n < cap else cap
    cdef int i, j, s0, t
    cdef uint64_t c
    for i in range(start, end):
        c = out[i].cards
        s0 = <int>((c >> (4 * g.lt)) & 15)
        t = s0 + <int>((c >> (4 * g.lg)) & 15)
        # (out may be the caller's buffer, written by another of its
        # threads meanwhile: what is read back never indexes past lsc)
        if t > 8 or s0 > 4 or not g.lsc[t][s0] or not (c & ~g.lmask):
            continue
        for j in range(g.lsc[t][s0]):
            if n < cap:
                out[n] = out[i]
                out[n].cards = c + g.lsd[t][s0][j]
            n += 1
    g.n = n


cdef inline int _td_put(gen_t* g, ddz_move* out, int n, int cap, uint64_t cards,
                        uint64_t meta, int d) noexcept nogil:
    # _put_meta of a move without kickers of d laizi (lmu[d]), and its other
    # splits after it
    cdef int j
    n = _put_meta(out, n, cap, cards, meta)
    for j in range(g.ljob0[d]):
        n = _put_meta(out, n, cap, cards + g.ljob_delta[d][j], meta)
    return n


# The walk of the shaped kinds (_lz_generic, _lz_main, _lz_variant and the
# variants' walks: _lz_replace_naturals, _lz_variants_last,
# _lz_replace_naturals_plain, _lz_plain_last, _lz_plain_put) is compiled
# twice, by the type of its last argument (NULL): for the hands whose laizi
# are of one rank (laizi's, and tiandi's holding one wild rank) and for
# tiandi's hands holding laizi of both (g.lboth), whose moves get their
# other splits (g.lsc) and whose laizi are in two nibbles; _lz_kind picks
# the copy once per kind, so that no walk tests which per main part or
# variant.
ctypedef struct laizi_walk:
    char unused
ctypedef struct tiandi_walk:
    char unused
ctypedef fused walk_t:
    laizi_walk
    tiandi_walk


cdef inline int _lz_count_main_of(gen_t* g, int extra, uint64_t main, uint32_t subs,
                                  int nat, walk_t* walk) noexcept nogil:
    # _lz_count_main, or _td_count_main when the walk counts each move as
    # its splits
    if walk_t is tiandi_walk:
        if g.lweigh:
            return _td_count_main(g, extra, main, subs, nat)
    return _lz_count_main(g, extra, main, subs, nat)


cdef void _lz_variant(gen_t* g, uint64_t main, int left, int nat,
                      uint32_t subs, walk_t* walk) noexcept nogil:
    # The moves of a main part with more laizi than the base (left laizi
    # free, nat natural cards in it): the base's moves whose kickers hold at
    # most `left` laizi (and a natural card, when the main part holds none),
    # with this main part in place of the base's.
    cdef uint64_t meta = _meta_subs(g.lmeta0, subs)
    cdef const ddz_move* src
    cdef ddz_move* out
    cdef int n, cap, i, cnt, shift, tl
    cdef uint64_t base, k, t, delta
    # (the kinds without kickers have their variants made by
    # _lz_replace_naturals_plain, not here)
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
        cnt = g.lkick_upto[tl if tl < 8 else 8]
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
        if walk_t is tiandi_walk:
            if g.ljob_n[g.lw - left] and g.ljob_k[g.lw - left][0] <= tl:
                _td_alt_sections(g, n, g.lw - left, tl, meta)
        return
    if g.lbase + g.lbase_n > cap:
        # the base's moves are not all in the buffer (it is full: only the
        # count matters now): walk the kickers again
        n = g.n
        _lz_kickers(g, main, left, nat, meta)
        if walk_t is tiandi_walk:
            _td_alt_moves(g, n)
        return
    src = out + g.lbase
    cnt = g.lbase_n
    base = g.lbase_main
    shift = g.lshift
    for i in range(cnt):
        k = src[i].cards - base     # the kickers
        # the laizi among them (tiandi: perhaps of both ranks)
        if walk_t is tiandi_walk:
            t = ((k >> shift) & 15) + ((k >> g.lshift2) & 15)
        else:
            t = (k >> shift) & 15
        if t <= <uint64_t>left and (nat or k != g.lku[t]):
            n = _put_meta(out, n, cap, k + main, meta)
    cnt = g.n
    g.n = n
    if walk_t is tiandi_walk:
        _td_alt_moves(g, cnt)


cdef inline uint32_t _lz_one_more(uint32_t subs, int q, int a, int j) noexcept nogil:
    # `subs` once one of the `a` natural cards of main rank j (q cards a main
    # rank) is a laizi instead: j's substitutes d -> d + 1 (in
    # ddz_substitutes' encoding a fourth laizi of one rank moves to the
    # upper bits)
    if q - a == 3:
        return subs - ((<uint32_t>3) << (2 * j)) + ((<uint32_t>(j + 1)) << 26)
    return subs + ((<uint32_t>1) << (2 * j))


cdef inline uint64_t _lz_next_unit(const gen_t* g, int extra, walk_t* walk) noexcept nogil:
    # The laizi a variant takes into its main part, `extra` of them free
    # before it: of the hand's one wild rank (g.lunit; _lz_units sets no
    # lnext then), or, laizi of both ranks, the next in the walks' order
    # (g.lnext)
    if walk_t is tiandi_walk:
        return g.lnext[extra]
    else:
        return g.lunit


cdef inline void _lz_variants_last(gen_t* g, int start, uint64_t main, uint32_t subs,
                                   int nat, unsigned int natmask,
                                   walk_t* walk) noexcept nogil:
    # _lz_replace_naturals with one laizi left: its variants have none of
    # their own, so this last level is a loop inlined in its caller rather
    # than a call per variant above it
    cdef unsigned int cand = natmask & ~((1u << start) - 1)
    cdef int j
    cdef uint64_t lunit = _lz_next_unit(g, 1, walk)
    while cand:
        j = _ctz(cand)
        cand &= cand - 1
        _lz_variant(g, main - ((<uint64_t>1) << (4 * j)) + lunit, 0, nat - 1,
                    _lz_one_more(subs, g.lq, _nib(main, j), j), walk)


cdef void _lz_replace_naturals(gen_t* g, int start, int extra, uint64_t main, uint32_t subs,
                               int nat, unsigned int natmask, walk_t* walk) noexcept nogil:
    # Each of the `extra` (>= 2) laizi not in the main part `main` may
    # replace one more natural card of a main rank (natmask: the main ranks
    # still holding one), from rank `start` up so that each main part comes
    # out once (one laizi: _lz_variants_last).
    cdef unsigned int cand = natmask & ~((1u << start) - 1)
    cdef int j, a
    cdef uint32_t s2
    cdef uint64_t m2
    cdef uint64_t lunit = _lz_next_unit(g, extra, walk)
    while cand:
        j = _ctz(cand)
        cand &= cand - 1
        a = _nib(main, j)
        s2 = _lz_one_more(subs, g.lq, a, j)
        m2 = main - ((<uint64_t>1) << (4 * j)) + lunit
        _lz_variant(g, m2, extra - 1, nat - 1, s2, walk)
        if extra > 2:
            _lz_replace_naturals(g, j, extra - 1, m2, s2, nat - 1,
                                 natmask if a > 1 else natmask & ~(1u << j), walk)
        else:
            _lz_variants_last(g, j, m2, s2, nat - 1,
                              natmask if a > 1 else natmask & ~(1u << j), walk)


cdef inline int _lz_plain_put(ddz_move* out, int n, int cap, uint64_t cards, uint64_t meta,
                              int alts, const uint64_t* deltas, walk_t* walk) noexcept nogil:
    # A variant of a kind without kickers (see _put_meta), and (tiandi) its
    # `alts` other splits, cards + deltas[i]
    cdef int i
    n = _put_meta(out, n, cap, cards, meta)
    if walk_t is tiandi_walk:
        for i in range(alts):
            n = _put_meta(out, n, cap, cards + deltas[i], meta)
    return n


cdef inline int _lz_plain_last(gen_t* g, int start, uint64_t main, uint32_t subs, int nat,
                               unsigned int natmask, ddz_move* out, int n, int cap,
                               walk_t* walk) noexcept nogil:
    # _lz_replace_naturals_plain with one laizi left: its variants have none
    # of their own, so this last level of the walk is a loop inlined in its
    # caller rather than a call per variant above it
    cdef unsigned int cand = natmask & ~((1u << start) - 1)
    cdef uint64_t meta0 = g.lmeta0
    cdef uint64_t lunit
    cdef int q = g.lq
    cdef int j, alts = 0
    cdef const uint64_t* deltas = NULL
    if nat <= 1:
        return n
    lunit = _lz_next_unit(g, 1, walk)
    if walk_t is tiandi_walk:
        # (a variant of lw laizi)
        alts = g.ljob0[g.lw]
        deltas = g.ljob_delta[g.lw]
    while cand:
        j = _ctz(cand)
        cand &= cand - 1
        n = _lz_plain_put(out, n, cap, main - ((<uint64_t>1) << (4 * j)) + lunit,
                          _meta_subs(meta0, _lz_one_more(subs, q, _nib(main, j), j)),
                          alts, deltas, walk)
    return n


cdef int _lz_replace_naturals_plain(gen_t* g, int start, int extra, uint64_t main,
                                    uint32_t subs, int nat, unsigned int natmask,
                                    ddz_move* out, int n, int cap,
                                    walk_t* walk) noexcept nogil:
    # _lz_replace_naturals for the kinds without kickers, each variant one move, stored
    # at out[n] (see _put); returns the new n. A variant keeps a natural
    # card only if nat > 1: else it would be laizi standing for other ranks,
    # alone, which is not a move (face value), nor are its own variants.
    # Tiandi: each variant (of lw - extra + 1 laizi) with its other splits.
    # extra >= 2 (one laizi: _lz_plain_last).
    cdef unsigned int cand = natmask & ~((1u << start) - 1)
    cdef uint64_t meta0 = g.lmeta0
    cdef uint64_t lunit
    cdef uint64_t m2
    cdef int q = g.lq
    cdef int j, a, d, alts = 0
    cdef uint32_t s2
    cdef const uint64_t* deltas = NULL
    if nat <= 1:
        return n
    lunit = _lz_next_unit(g, extra, walk)
    if walk_t is tiandi_walk:
        d = g.lw - extra + 1
        alts = g.ljob0[d]
        deltas = g.ljob_delta[d]
    while cand:
        j = _ctz(cand)
        cand &= cand - 1
        a = _nib(main, j)
        s2 = _lz_one_more(subs, q, a, j)
        m2 = main - ((<uint64_t>1) << (4 * j)) + lunit
        n = _lz_plain_put(out, n, cap, m2, _meta_subs(meta0, s2), alts, deltas, walk)
        if extra > 2:
            n = _lz_replace_naturals_plain(g, j, extra - 1, m2, s2, nat - 1,
                               natmask if a > 1 else natmask & ~(1u << j), out, n,
                               cap, walk)
        else:
            n = _lz_plain_last(g, j, m2, s2, nat - 1,
                               natmask if a > 1 else natmask & ~(1u << j), out, n,
                               cap, walk)
    return n


cdef inline void _lz_main(gen_t* g, int extra, uint64_t main, uint32_t subs, int nat,
                   unsigned int natmask, walk_t* walk) noexcept nogil:
    # Every move on the main ranks set in g (rank, length, lmainmask...): the
    # base `main` (every main rank as natural as the hand allows, `extra`
    # laizi not in it) and its variants (walk_t: see laizi_walk).
    cdef uint64_t meta
    cdef int total
    if g.n >= g.cap or g.n < g.skip:
        # outside the window (see gen_t.skip): a main part whose moves all
        # fall outside it is counted, not listed
        if g.stop and g.n >= g.cap:
            return
        total = _lz_count_main_of(g, extra, main, subs, nat, walk)
        if g.n >= g.cap or g.n + total <= g.skip:
            g.n += total
            return
    g.lmeta0 = _meta_word(g.kind, g.rank, g.length, WILD_NONE, 0)
    meta = _meta_subs(g.lmeta0, subs)
    if g.lkick_mode == KICK_NONE:
        if nat or not subs:
            if walk_t is tiandi_walk:
                # (each move with its other splits)
                g.n = _td_put(g, g.out, g.n, g.cap, main, meta, g.lw - extra)
            else:
                g.n = _put_meta(g.out, g.n, g.cap, main, meta)
        if extra == 1 and natmask:
            g.n = _lz_plain_last(g, g.rank, main, subs, nat, natmask, g.out, g.n, g.cap,
                                 walk)
        elif extra and natmask:
            g.n = _lz_replace_naturals_plain(g, g.rank, extra, main, subs, nat, natmask,
                                             g.out, g.n, g.cap, walk)
        return
    g.lbase = g.n
    g.lbase_main = main
    _lz_kickers(g, main, extra, nat, meta)
    g.lbase_n = g.n - g.lbase
    if walk_t is tiandi_walk:
        if not g.lsorted:
            _td_alt_moves(g, g.lbase)
        elif g.ljob_n[g.lw - extra]:
            _td_alt_sections(g, g.lbase, g.lw - extra, 8, meta)
    if extra == 1 and natmask:
        _lz_variants_last(g, g.rank, main, subs, nat, natmask, walk)
    elif extra and natmask:
        _lz_replace_naturals(g, g.rank, extra, main, subs, nat, natmask, walk)


cdef int _lz_count_ranks(gen_t* g, unsigned int cand, uint64_t def_q) noexcept nogil:
    # The moves of the kind without chains set in g (lq, lkick_mode, lneed,
    # length 1) whose main rank is one of cand, each main part counted by
    # _lz_count_main (_td_count_main when the walk counts each move as its
    # splits): without a call to _lz_main, its window test or its meta word
    # per rank.
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
        if g.lboth and g.lweigh:
            total += _td_count_main(g, g.lw - d, 0, <uint32_t>(d > 0), g.lq - d)
        else:
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


cdef void _lz_generic(gen_t* g, int kind, int rmin, int rmax, int nfix,
                      walk_t* walk) noexcept nogil:
    # The shaped kinds (KIND_SHAPE) with laizi, ranks rmin..rmax, and with
    # nfix only chains of that length (walk_t: see laizi_walk). A main
    # part's ranks as natural as the hand allows, read off packed vectors:
    # nat = min(count, q) natural cards of each rank (none for L) and
    # q - nat laizi (q for L, as themselves).
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
            _lz_main(g, lw - d, (nat_q & ((<uint64_t>15) << (4 * r))) + g.lmu[d],
                     0 if r == L else _lz_sub(r, d), q - d, nat1 & (1u << r), walk)
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
                g.n += _lz_count_main_of(g, lw - deficit, natpart + g.lmu[deficit],
                                         <uint32_t>((def_q & window & ~lnib) != 0),
                                         q * n - deficit, walk)
            else:
                _lz_main(g, lw - deficit, natpart + g.lmu[deficit],
                         _nibbles_to_subs(def_q & window & ~lnib), q * n - deficit,
                         nat1 & mainmask, walk)
            if nfix or r + n > s.max_rank or (n + 1) * unit > g.size:
                break
            deficit += _nib(def_q, r + n)
            window |= (<uint64_t>15) << (4 * (r + n))
            n += 1


cdef enum:
    # The most SOFT_BOMBs a hand can have (_lz_kind): 13 ranks, 4 counts of
    # natural cards and 8 of laizi each
    SOFT_BOMBS_MOST = 13 * 4 * 8


cdef void _lz_kind(gen_t* g, int kind, int rmin, int rmax, int nfix) noexcept nogil:
    # The moves of `kind` of rank rmin..rmax in a laizi rule set.
    cdef int r, a, amin, top, l, n0
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
        cand = g.lheld & window
        while cand:
            r = _ctz(cand)
            cand &= cand - 1
            _lz_emit(g, (<uint64_t>1) << (4 * r), K_SINGLE, r, 1,
                     _lz_sub(r, 1) if (g.lz == IDX_W and (g.lwild >> r) & 1) else 0)
    elif kind == K_BOMB:
        # four natural cards (four laizi are the LAIZI_BOMB)
        cand = g.ge[4] & 0x1FFFu & ~(1u << L) & window
        while cand:
            r = _ctz(cand)
            cand &= cand - 1
            _lz_emit(g, (<uint64_t>4) << (4 * r), K_BOMB, r, 1, 0)
    elif kind == K_SOFT_BOMB:
        # a natural cards and l >= 1 laizi standing for their rank, 4 to
        # bomb_max cards: the ranks holding at least 4 - lw (and one)
        # natural cards, by a from the most down, then by l (at most 13
        # ranks, 4 values of a and 8 of l: SOFT_BOMBS_MOST)
        amin = 4 - g.lw if g.lw < 3 else 1
        top = g.rules.bomb_max[K_SOFT_BOMB]
        n0 = g.n
        cand = g.ge[amin] & 0x1FFFu & ~(1u << L) & window
        while cand:
            r = _ctz(cand)
            cand &= cand - 1
            a = _nib(g.hand, r)
            if a > top - 1:
                a = top - 1
            while a >= amin:
                for l in range(4 - a if a < 4 else 1,
                               (g.lw if g.lw < top - a else top - a) + 1):
                    _lz_bomb(g, ((<uint64_t>a) << (4 * r)) + g.lmu[l],
                             K_SOFT_BOMB, r, a + l, _lz_sub(r, l))
                a -= 1
        if g.lboth and g.n > n0:
            if not g.lsplits_made:
                _td_split_tables(g)
            _td_alt_moves(g, n0)
    elif kind == K_LAIZI_BOMB:
        if g.lz == IDX_W:
            if (g.lface >> kind) & 1:
                _td_face(g, kind, rmin, rmax, nfix)
        elif g.lw == 4 and rmin <= L <= rmax:
            _lz_emit(g, 4 * g.lunit, K_LAIZI_BOMB, L, 1, 0)
    elif kind == K_ROCKET:
        # emitted whatever the rank window, as in _gen_special
        if _nib(g.hand, IDX_X) and _nib(g.hand, IDX_D):
            _lz_emit(g, XBIT | DBIT, K_ROCKET, 13, 1, 0)
    elif KIND_SHAPE[kind].q:
        if g.lboth:
            if not g.lsplits_made:
                _td_split_tables(g)
            _lz_generic(g, kind, rmin, rmax, nfix, <tiandi_walk*>NULL)
        else:
            _lz_generic(g, kind, rmin, rmax, nfix, <laizi_walk*>NULL)
        if g.lz == IDX_W and (g.lface >> kind) & 1:
            _td_face(g, kind, rmin, rmax, nfix)


cdef inline void _lz_bomb(gen_t* g, uint64_t cards, int kind, int rank, int size,
                          uint32_t subs) noexcept nogil:
    # A bomb of `size` cards, unless ddz_check looks for another size, or a
    # follow walks this kind whole (its tier grows with size, and the last
    # move's tier is within the kind's) and it does not beat the last move
    cdef ddz_move m
    if g.only_size and size != g.only_size:
        return
    if g.flast != NULL:
        m.cards = cards
        m.kind = kind
        m.rank = rank
        m.length = 1
        if not ddz_beats(g.rules, &m, g.flast):
            return
    _lz_emit(g, cards, kind, rank, 1, subs)


cdef void _td_face(gen_t* g, int kind, int rmin, int rmax, int nfix) noexcept nogil:
    # The moves of `kind` made of laizi alone (tiandi), read at face value:
    # the readings of a cards of the wild rank lt and b of lg as natural
    # cards (RULES.md section 3), but that four or more are one LAIZI_BOMB
    # (never a BOMB). With two ranks only, the kinds are: a PAIR, TRIPLE of
    # one rank; a triple with one card or a pair of the other (TRIPLE_SINGLE,
    # TRIPLE_PAIR); four with two of the other (FOUR_SINGLES); two
    # neighbouring triples of 3..A (PLANE).
    cdef int a, b, x, y, cx, cy, r, q, kick
    cdef int t = g.lt, gr = g.lg
    cdef uint64_t cards
    if g.lwt < 2 and g.lwg < 2:
        # each kind below needs two cards of one wild rank, or four laizi
        return
    if kind == K_LAIZI_BOMB:
        for a in range(g.lwt + 1):
            for b in range(g.lwg + 1):
                if a + b < 4 or a + b > g.rules.bomb_max[K_LAIZI_BOMB]:
                    continue
                r = t if b == 0 else (gr if a == 0 else (t if t > gr else gr))
                if rmin <= r <= rmax:
                    _lz_bomb(g, ((<uint64_t>a) << (4 * t)) + ((<uint64_t>b) << (4 * gr)),
                             K_LAIZI_BOMB, r, a + b, _td_face_subs(t, a, gr, b))
        return
    if kind == K_PLANE:
        if ((nfix == 0 or nfix == 2) and g.lwt >= 3 and g.lwg >= 3
                and (t - gr == 1 or gr - t == 1) and t <= 11 and gr <= 11):
            r = t if t < gr else gr
            if rmin <= r <= rmax and (not g.only_size or g.only_size == 6):
                _lz_emit(g, ((<uint64_t>3) << (4 * t)) + ((<uint64_t>3) << (4 * gr)),
                         K_PLANE, r, 2, _td_face_subs(t, 3, gr, 3))
        return
    if nfix > 1:
        return
    if kind == K_PAIR or kind == K_TRIPLE:
        q, kick = (2 if kind == K_PAIR else 3), 0
    elif kind == K_TRIPLE_SINGLE:
        q, kick = 3, 1
    elif kind == K_TRIPLE_PAIR:
        q, kick = 3, 2
    elif kind == K_FOUR_SINGLES:
        q, kick = 4, 2
    else:
        return
    # x: the main rank, y: the other wild rank (its cards the kickers)
    for x in range(2):
        if x == 0:
            r, cx, y, cy = t, g.lwt, gr, g.lwg
        else:
            r, cx, y, cy = gr, g.lwg, t, g.lwt
        if cx < q or cy < kick or not rmin <= r <= rmax:
            continue
        if g.only_size and g.only_size != q + kick:
            continue
        cards = ((<uint64_t>q) << (4 * r)) + ((<uint64_t>kick) << (4 * y))
        _lz_emit(g, cards, kind, r, 1, _td_face_subs(r, q, y, kick))


cdef uint32_t ddz_substitutes(const ddz_rules* rules, int kind, int rank, int length,
                              uint64_t cards) noexcept nogil:
    cdef int j, q, d, t, g, a, b
    cdef unsigned int wild = rules.wild_mask
    cdef uint64_t natural = cards
    cdef uint32_t subs = 0
    if not wild or kind < 0 or kind >= NKINDS:
        return 0
    for j in range(13):
        if (wild >> j) & 1:
            natural &= ~((<uint64_t>15) << (4 * j))
    if _two_wild_ranks(rules):
        # the laizi that complete a wild main rank are recorded too: which of
        # the two ranks fills it is not told by the rank alone
        t = _ctz(wild)
        g = _ctz(wild & (wild - 1))
        a = _nib(cards, t)
        b = _nib(cards, g)
        if natural == 0 and cards:
            return _td_face_subs(t, a, g, b)
        if kind == K_SOFT_BOMB:
            return _lz_sub(rank, a + b)
    if kind == K_SOFT_BOMB:
        q = 4
    elif kind == K_SINGLE or kind == K_BOMB or not KIND_SHAPE[kind].q:
        return 0
    else:
        q = KIND_SHAPE[kind].q
    for j in range(rank, rank + length):
        if j > 12 or ((wild >> j) & 1 and not _two_wild_ranks(rules)):
            continue
        d = q - _nib(natural, j)
        if d > 0:
            subs += _lz_sub(j, d)
    return subs


cdef void _lz_units(gen_t* g, uint64_t first, uint64_t second, int nfirst) noexcept nogil:
    # g's laizi tables (see gen_t) for laizi 0..nfirst-1 of the card `first`
    # and the others of `second`
    cdef int i
    cdef uint64_t u, m = 0, k = 0
    if nfirst >= 9:
        # (all laizi of one rank: laizi's walks, which read no lnext)
        for i in range(9):
            g.lunits[i] = first
            g.lmu[i] = i * first
            g.lku[i] = i * first
        return
    for i in range(9):
        u = first if i < nfirst else second
        g.lunits[i] = u
        g.lmu[i] = m
        m += u
    for i in range(9):
        g.lku[i] = k
        k += g.lunits[g.lw - 1 - i] if i < g.lw else second
        g.lnext[i] = g.lunits[g.lw - i] if 1 <= i <= g.lw else first


# TD_SPLITS[lwt][lwg]: the other splits of the moves of a tiandi hand
# holding lwt laizi of the sky rank and lwg of the ground one, shared by
# every hand of those counts. A move of t laizi has a split for each count
# s of the sky rank from max(0, t - lwg) to min(t, lwt); the walks make one,
# s0 (_td_sky), and each other has s - s0 more sky cards (fewer, when
# negative) and as many fewer ground ones.
cdef td_splits TD_SPLITS[5][5]


cdef void _td_splits_init() noexcept nogil:
    cdef int wt, wg, t, s0, s, c, lo, hi, d, k
    cdef td_splits* ls
    memset(TD_SPLITS, 0, sizeof(TD_SPLITS))
    for wt in range(1, 5):
        for wg in range(1, 5):
            ls = &TD_SPLITS[wt][wg]
            for t in range(wt + wg + 1):
                lo = _sky_fewest(wg, t)
                hi = _sky_most(wt, t)
                for s0 in range(lo, hi + 1):
                    c = 0
                    for s in range(lo, hi + 1):
                        if s != s0:
                            ls.diff[t][s0][c] = s - s0
                            c += 1
                    ls.count[t][s0] = c
            for d in range(wt + wg + 1):
                c = 0
                for k in range(wt + wg - d + 1):
                    s0 = _td_sky(wt, wg, d, k)
                    for s in range(ls.count[d + k][s0]):
                        ls.job_k[d][c] = k
                        ls.job_diff[d][c] = ls.diff[d + k][s0][s]
                        c += 1
                    if k == 0:
                        ls.njobs0[d] = c
                ls.njobs[d] = c


_td_splits_init()


cdef void _td_split_tables(gen_t* g) noexcept nogil:
    # g.lsc, lsd and ljob_n... (see gen_t) for a hand of lwt + lwg laizi, from
    # TD_SPLITS: each other split a multiple of a sky card for a ground one;
    # made by _lz_kind before the first kind that writes other splits (none
    # when a count or a draw makes one split a move: _td_one_split)
    cdef const td_splits* ls = &TD_SPLITS[g.lwt][g.lwg]
    cdef int t, s0, j
    cdef uint64_t swap = ((<uint64_t>1) << (4 * g.lt)) - ((<uint64_t>1) << (4 * g.lg))
    g.lsplits_made = 1
    memcpy(g.lsc, ls.count, sizeof(g.lsc))
    memcpy(g.ljob_n, ls.njobs, sizeof(g.ljob_n))
    memcpy(g.ljob0, ls.njobs0, sizeof(g.ljob0))
    memcpy(g.ljob_k, ls.job_k, sizeof(g.ljob_k))
    for t in range(g.lw + 1):
        for s0 in range(_td_sky_fewest(g, t), _td_sky_most(g, t) + 1):
            for j in range(ls.count[t][s0]):
                g.lsd[t][s0][j] = (<uint64_t><int64_t>ls.diff[t][s0][j]) * swap
        for j in range(ls.njobs[t]):
            g.ljob_delta[t][j] = (<uint64_t><int64_t>ls.job_diff[t][j]) * swap


cdef void _td_one_split(gen_t* g) noexcept nogil:
    # The walks of a hand holding laizi of both wild ranks (g.lboth) make
    # one split of each move from here on, not the others (gen_t.lsc): for
    # a draw of a move and one of its splits (ddz_draw_splits_count), and,
    # each counted as its splits (_td_weigh), to count them (_td_count)
    cdef int t
    if not g.lboth:
        return
    g.lsplits_made = 1
    for t in range(9):
        g.ljob_n[t] = 0
        g.ljob0[t] = 0
        memset(g.lsc[t], 0, sizeof(g.lsc[t]))


cdef void _td_weigh(gen_t* g) noexcept nogil:
    # After _td_one_split, for a walk that lists nothing (cap 0): the moves
    # of each main part counted as their splits (gen_t.lweigh), so that no
    # move is made to read its laizi (the soft bombs, counted once each,
    # are _td_count's)
    cdef int t
    if not g.lboth:
        return
    g.lweigh = 1
    for t in range(9):
        g.lsplits[t] = _td_split_count(g, t) if t <= g.lw else 0


cdef void _lz_init(gen_t* g, const ddz_rules* rules) noexcept nogil:
    # The laizi fields of g for a hand holding laizi (g.hand, g.ge set); the
    # tables of the shaped kinds (_lz_tables) and those of the other splits
    # (_td_split_tables) wait for the first kind that needs them: a follow
    # often needs none. Two wild ranks: the hand's laizi move to
    # nibble 15 (see gen_t), and g.hand and g.ge describe that hand.
    cdef unsigned int wild = rules.wild_mask
    cdef int i, hi, lo
    cdef uint64_t ut, ug
    g.rules = rules
    g.lwild = wild
    g.lheld = g.ge[1]
    g.lready = 0
    g.lboth = 0
    g.lshift2 = 4 * IDX_W
    if not _two_wild_ranks(rules):
        g.lz = _ctz(wild)
        g.lunit = (<uint64_t>1) << (4 * g.lz)
        g.lshift = 4 * g.lz
        g.lw = _nib(g.hand, g.lz)
        g.lmask = (<uint64_t>15) << g.lshift
        _lz_units(g, g.lunit, g.lunit, 9)
        return
    g.lt = _ctz(wild)
    g.lg = _ctz(wild & (wild - 1))
    g.lwt = _nib(g.hand, g.lt)
    g.lwg = _nib(g.hand, g.lg)
    g.lz = IDX_W
    g.lw = g.lwt + g.lwg
    ut = (<uint64_t>1) << (4 * g.lt)
    ug = (<uint64_t>1) << (4 * g.lg)
    if g.lwt == 0 or g.lwg == 0:
        # one wild rank held: the laizi stand in their own nibble (no natural
        # card of a wild rank is left in the hand the walks see)
        g.lshift = 4 * (g.lt if g.lwt else g.lg)
        g.lunit = (<uint64_t>1) << g.lshift
        g.lmask = (<uint64_t>15) << g.lshift
        _lz_units(g, g.lunit, g.lunit, 9)
    else:
        g.lshift = 4 * g.lt
        g.lshift2 = 4 * g.lg
        g.lunit = ut
        g.lmask = ((<uint64_t>15) << (4 * g.lt)) | ((<uint64_t>15) << (4 * g.lg))
        _lz_units(g, ut, ug, g.lwt)
        g.lsplits_made = 0
        g.lboth = 1
        g.lweigh = 0
    # what each kind of _td_face needs of the cards of the two wild ranks:
    # the most of one rank (hi) and the fewest (lo)
    hi = g.lwt if g.lwt > g.lwg else g.lwg
    lo = g.lwt + g.lwg - hi
    g.lface = ((<unsigned int>(hi >= 2) << K_PAIR)
               | (<unsigned int>(hi >= 3) << K_TRIPLE)
               | (<unsigned int>(hi >= 3 and lo >= 1) << K_TRIPLE_SINGLE)
               | (<unsigned int>(hi >= 3 and lo >= 2) << K_TRIPLE_PAIR)
               | (<unsigned int>(hi >= 4 and lo >= 2) << K_FOUR_SINGLES)
               | (<unsigned int>(lo >= 3) << K_PLANE)
               | (<unsigned int>(g.lw >= 4) << K_LAIZI_BOMB))
    g.hand = (g.hand - ((<uint64_t>g.lwt) << (4 * g.lt)) - ((<uint64_t>g.lwg) << (4 * g.lg))
              + (<uint64_t>g.lw) * WBIT)
    # the wild ranks' nibbles are now empty, and _ranks_holding reads no
    # nibble 15
    for i in range(1, 5):
        g.ge[i] &= ~wild


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
