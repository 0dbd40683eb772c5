# The "expert" built-in policy (issue 18), included into _engine.pyx after
# _deal.pxi: plain C without the GIL over the exact decomposition of
# ddzfast._split. Its rules are written out in docs/bots.md (The expert
# policy); the comments here say where each rule is.
#
# What it reads of the deal is what the seat knows: its own hand, the hand
# sizes, the landlord, the last move and who played it, and the cards still
# out (the two other hands together, which counting the cards played gives;
# never which seat holds which).

cdef enum:
    SPLIT_MAX = 64          # a split has at most one move per card (55)


cdef inline uint64_t _cards_out(const ddz_game* g, int me) noexcept nogil:
    # the cards the seat has not seen played nor holds
    return g.hands[(me + 1) % 3] + g.hands[(me + 2) % 3]


cdef inline int _opponent(const ddz_game* g, int me, int seat) noexcept nogil:
    return seat != me and (me == g.landlord or seat == g.landlord)


cdef inline int _beatable(const ddz_rules* rules, uint64_t out, const ddz_move* m) noexcept nogil:
    # some move of the cards still out (as one hand: the conservative
    # reading, whoever holds them) beats m
    cdef ddz_move scratch[2]
    if out == 0:
        return 0
    return ddz_legal_moves(rules, out, m, scratch, 2) > 1


cdef int _proven_lead(ddz_split_ctx* ctx, const ddz_rules* rules, uint64_t hand,
                      uint64_t out, ddz_move* first) noexcept nogil:
    # 1 when `hand`, leading, provably goes out: its split has at most one
    # group that the cards still out can beat, so leading the others first
    # keeps the lead and the last group ends the deal. *first: the group to
    # lead now (an unbeatable one while one is left).
    cdef ddz_move split[SPLIT_MAX]
    cdef int k, i, beatable = 0, lead = -1, last = -1
    if ddz_min_plays(ctx, rules, hand) <= 0:
        return 0
    k = ddz_split_moves(ctx, hand, split)
    if k <= 0:
        return 0
    for i in range(k):
        if _beatable(rules, out, &split[i]):
            beatable += 1
            last = i
            if beatable > 1:
                return 0
        elif lead < 0 or rules.tier[split[lead].kind] > rules.tier[split[i].kind]:
            lead = i            # plain groups before bombs: bombs multiply
    first[0] = split[lead if lead >= 0 else last]
    return 1


cdef int64_t _index_of(const ddz_move* moves, int64_t n, const ddz_move* m) noexcept nogil:
    cdef int64_t i
    for i in range(n):
        if ddz_same_move(&moves[i], m):
            return i
    return -1


cdef int64_t _expert_lead(ddz_game* g, const ddz_rules* rules, const ddz_move* moves,
                          int64_t n, ddz_split_ctx* ctx) noexcept nogil:
    cdef int me = g.to_move
    cdef uint64_t hand = g.hands[me]
    cdef uint64_t out = _cards_out(g, me)
    cdef ddz_move split[SPLIT_MAX]
    cdef ddz_move first
    cdef int k, i, nxt = (me + 1) % 3, partner = -1, size, opp_min = 99, s, want
    cdef int64_t j, best = -1
    cdef int64_t score, best_score = 0
    if me != g.landlord:
        partner = 3 - me - g.landlord
    for s in range(3):
        if _opponent(g, me, s):
            size = _hand_size(g.hands[s])
            if size < opp_min:
                opp_min = size
    # a provable win: lead its next group
    if _proven_lead(ctx, rules, hand, out, &first):
        j = _index_of(moves, n, &first)
        if j >= 0:
            return j
    # play to a partner who is next and nearly out: the lowest single (or
    # pair) it can beat
    if partner == nxt and _hand_size(g.hands[partner]) <= 2:
        want = K_PAIR if _hand_size(g.hands[partner]) == 2 else K_SINGLE
        for j in range(n):
            if moves[j].kind == want and (best < 0 or moves[j].rank < moves[best].rank):
                best = j
        if best >= 0:
            return best
    # the plan: a group of the fewest-plays split, the one shedding the most
    # cards first (a card more weighs as much as four ranks; a tie goes to
    # the group listed first), then the lowest; bombs and rockets after the
    # other groups; a single (pair) into an opponent with one (two) cards
    # last of all, the highest first
    k = ddz_split_moves(ctx, hand, split)   # ctx holds the split of hand
    if k <= 0:
        return -1
    for i in range(k):
        score = 10000 + _hand_size(split[i].cards) * 64 - split[i].rank * 16
        if rules.tier[split[i].kind]:
            score -= 5000
        elif (split[i].kind == K_SINGLE and opp_min == 1) or \
                (split[i].kind == K_PAIR and opp_min == 2):
            # into a nearly empty hand: only the highest will do
            score = 1000 + split[i].rank * 16
        if best < 0 or score > best_score:
            best = i
            best_score = score
    j = _index_of(moves, n, &split[best])
    return j


cdef int64_t _expert_follow(ddz_game* g, const ddz_rules* rules, const ddz_move* moves,
                            int64_t n, ddz_split_ctx* ctx) noexcept nogil:
    cdef int me = g.to_move
    cdef uint64_t hand = g.hands[me]
    cdef uint64_t out = _cards_out(g, me)
    cdef int ls = g.last_seat
    cdef int f0, v, bomb, danger, opp_size
    cdef int partner_played = me != g.landlord and ls != g.landlord
    cdef int64_t i, best = 0
    cdef int64_t score, best_score = 0
    cdef ddz_move first
    f0 = ddz_min_plays(ctx, rules, hand)
    if f0 < 0:
        return -1       # past the search's limit: greedy decides
    # a provable win: a move nothing out can beat, after which the rest is
    # a provable lead
    for i in range(1, n):
        v = ddz_min_plays(ctx, rules, hand - moves[i].cards)
        if v < 0:
            continue
        if not _beatable(rules, out, &moves[i]) and \
                _proven_lead(ctx, rules, hand - moves[i].cards, out, &first):
            return i
    # a winning partner goes through
    opp_size = _hand_size(g.hands[ls])
    danger = opp_size <= 2 or (opp_size <= 4 and ls == g.landlord)
    if partner_played:
        # unless the landlord, next, is nearly out and could beat it: then
        # the highest answer
        if not ((me + 1) % 3 == g.landlord
                and _hand_size(g.hands[g.landlord]) <= 2 and _beatable(rules, out, &g.last)):
            return 0
        opp_size = _hand_size(g.hands[g.landlord])
        danger = 1
    for i in range(1, n):
        v = ddz_min_plays(ctx, rules, hand - moves[i].cards)
        if v < 0:
            continue
        bomb = rules.tier[moves[i].kind] != 0
        if bomb:
            # bombs and rockets when they decide the deal: an opponent
            # close to going out, or little left after it
            if not (danger or v <= 1):
                continue
        elif v > f0 - 1 and not danger:
            # off the plan: a beater that costs a play is only worth it
            # against a hand close to going out
            if not (v == f0 and opp_size <= 10):
                continue
        score = 100000 - v * 1000 - moves[i].rank * 16 - bomb * 500
        if not _beatable(rules, out, &moves[i]):
            score += 200            # it takes the lead for sure
        if danger and not bomb:
            score += moves[i].rank * 32    # against a near-empty hand: the highest
        if score > best_score:
            best_score = score
            best = i
    return best


cdef int64_t _expert_pick(ddz_game* g, const ddz_rules* rules, const ddz_move* moves,
                          int64_t n, ddz_split_ctx* ctx) noexcept nogil:
    # The expert's choice among the legal moves[0:n] of seat to_move (PASS
    # first when following); ctx: a split context (NULL: one of its own).
    cdef ddz_split_ctx own
    cdef int64_t i, k
    cdef uint64_t hand = g.hands[g.to_move]
    for i in range(n):
        if moves[i].kind != K_PASS and moves[i].cards == hand:
            return i        # going out
    if n == 1:
        return 0
    if ctx == NULL:
        if not ddz_split_init(&own):
            return _greedy_pick(g, rules, moves, n)
        k = _expert_pick(g, rules, moves, n, &own)
        ddz_split_free(&own)
        return k
    # min_plays's limit, so that the expert plays its plan whenever
    # min_plays answers (every hand a deal gives); a hand past it (most of
    # a deck, from Game.from_position) is played by greedy's rules
    ctx.max_work = DDZ_SPLIT_MAX_WORK
    if _leading(g):
        k = _expert_lead(g, rules, moves, n, ctx)
    else:
        k = _expert_follow(g, rules, moves, n, ctx)
    if k < 0 or k >= n:
        # (the split failed: a hand past the search's limit) greedy instead
        return _greedy_pick(g, rules, moves, n)
    return k
