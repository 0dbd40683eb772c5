# The deal engine (RULES.md sections 5 and 6), included into _engine.pyx:
# seeded dealing, bidding, play with tricks and free leads, scoring, the
# built-in policies and the simulation loop, all plain C without the GIL.

# The structs, enums and status codes are declared in _engine.pxd.

from libc.stdint cimport INT64_MAX
from libc.string cimport memset


cdef inline uint64_t _rng_next(uint64_t* s) noexcept nogil:
    # splitmix64: tiny, fast, and good enough for shuffles and policies
    cdef uint64_t z
    s[0] += 0x9E3779B97F4A7C15ULL
    z = s[0]
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline uint64_t _rng_below(uint64_t* s, uint64_t n) noexcept nogil:
    # the high bits through a 64x64 -> 128 multiply would be unbiased; with n
    # below 2**13 the bias of a modulo is under 2**-50
    return _rng_next(s) % n


cdef uint64_t ddz_deal_seed(uint64_t seed, int64_t index) noexcept nogil:
    """The seed of deal `index` of a run seeded `seed`: independent of how the
    run is split over threads or machines."""
    cdef uint64_t s = seed ^ (<uint64_t>index * 0xD1B54A32D192ED03ULL)
    _rng_next(&s)
    return _rng_next(&s)


cdef inline int _seat_of(int64_t i) noexcept nogil:
    # i modulo 3, floored as Python's %: a seat 0..2 for negative i too (C's %
    # truncates toward zero, and -1 % 3 would index policies[-1]).
    cdef int64_t r = i % 3
    return <int>(r + 3 if r < 0 else r)


cdef inline int64_t _mul_saturated(int64_t a, int64_t factor) noexcept nogil:
    # a * factor for a >= 0 and factor >= 1, or INT64_MAX when the product
    # would not fit: a multiplier never wraps to a negative value, whatever
    # the factors (up to 255 each) and however many bombs are played.
    if a > INT64_MAX // factor:
        return INT64_MAX
    return a * factor


cdef void ddz_game_new(ddz_game* g, const ddz_rules* rules, uint64_t seed,
                       int first_bidder, int bidding) noexcept nogil:
    cdef uint8_t cards[55]
    cdef int n = 0, i, j, r
    cdef uint8_t t
    for r in range(13):
        for i in range(4):
            cards[n] = r
            n += 1
    cards[n] = IDX_X
    cards[n + 1] = IDX_D
    n += 2
    if rules.has_wild:
        cards[n] = IDX_W
        n += 1
    g.seed = seed
    g.rng = seed
    for i in range(n - 1, 0, -1):
        j = <int>_rng_below(&g.rng, i + 1)
        t = cards[i]
        cards[i] = cards[j]
        cards[j] = t
    g.hands[0] = g.hands[1] = g.hands[2] = 0
    g.kitty = 0
    for i in range(n):
        if i < 51:
            g.hands[i % 3] += (<uint64_t>1) << (4 * cards[i])
        else:
            g.kitty += (<uint64_t>1) << (4 * cards[i])
    g.mult = 1
    g.bidding = bidding
    g.first_bidder = _seat_of(first_bidder)
    g.bids_made = 0
    g.bids[0] = g.bids[1] = g.bids[2] = -1
    g.high_bid = 0
    g.high_bidder = -1
    g.landlord = -1
    g.base = 0
    g.has_last = 0
    g.last_seat = -1
    g.passes = 0
    g.winner_seat = -1
    g.moves_by[0] = g.moves_by[1] = g.moves_by[2] = 0
    g.nmoves = 0
    g.nbombs = 0
    g.last.cards = 0
    g.last.kind = K_PASS
    g.last.rank = 0
    g.last.length = 0
    g.last.wild = WILD_NONE
    g.last.substitutes = 0
    # laizi: the wild rank is drawn after the deal, before bidding (a rule
    # set naming its rank keeps it, and other rule sets draw nothing, so
    # their deals are those of earlier versions)
    g.wild_mask = rules.wild_mask
    g.sky_rank = 255
    if rules.laizi and rules.wild_count == 2:
        # tiandi: the sky rank now, the ground rank once the kitty is taken
        # (_start_play)
        g.sky_rank = rules.sky_rank
        if g.sky_rank == 255:
            g.sky_rank = <uint8_t>_rng_below(&g.rng, 13)
            g.wild_mask = <uint16_t>(1u << g.sky_rank)
    elif rules.laizi and not g.wild_mask:
        g.wild_mask = <uint16_t>(1u << <int>_rng_below(&g.rng, 13))
    if bidding:
        g.phase = PHASE_BIDDING
        g.to_move = g.first_bidder
    else:
        _start_play(g, 0, 1)


cdef void _start_play(ddz_game* g, int landlord, int base) noexcept nogil:
    cdef int k
    g.landlord = landlord
    g.base = base
    g.hands[landlord] += g.kitty
    g.phase = PHASE_PLAY
    g.to_move = landlord
    if g.sky_rank != 255 and g.wild_mask == (1u << g.sky_rank):
        # tiandi: the ground rank, one of the 12 other ranks (RULES.md 9)
        k = <int>_rng_below(&g.rng, 12)
        g.wild_mask |= <uint16_t>(1u << (k + (k >= g.sky_rank)))


cdef int ddz_game_bid(ddz_game* g, int bid) noexcept nogil:
    """Seat to_move bids `bid` (0: pass). Returns 0, or -1 when the bid is not
    legal (not bidding now, or not above the highest bid, or above 3)."""
    if g.phase != PHASE_BIDDING or bid < 0 or bid > 3:
        return -1
    if bid and bid <= g.high_bid:
        return -1
    g.bids[g.to_move] = bid
    g.bids_made += 1
    if bid:
        g.high_bid = bid
        g.high_bidder = g.to_move
    if bid == 3 or g.bids_made == 3:
        if g.high_bidder < 0:
            _start_play(g, g.first_bidder, 1)
        else:
            _start_play(g, g.high_bidder, g.high_bid)
    else:
        g.to_move = (g.to_move + 1) % 3
    return 0


cdef inline int _leading(const ddz_game* g) noexcept nogil:
    return not g.has_last


cdef int64_t ddz_game_legal_moves(const ddz_game* g, const ddz_rules* rules,
                                  ddz_move* out, int64_t cap) noexcept nogil:
    cdef const ddz_move* last = NULL
    if g.phase != PHASE_PLAY:
        return 0
    if not _leading(g):
        last = &g.last
    return ddz_legal_moves(rules, g.hands[g.to_move], last, out, cap)


cdef int ddz_game_play(ddz_game* g, const ddz_rules* rules,
                       const ddz_move* move) noexcept nogil:
    """Seat to_move plays `move`. Returns 0, or -1 (state unchanged) when it
    is not a legal move of that seat now."""
    return _game_play(g, rules, move, 0)


cdef int ddz_game_play_generated(ddz_game* g, const ddz_rules* rules,
                                 const ddz_move* move) noexcept nogil:
    return _game_play(g, rules, move, 1)


cdef int _game_play(ddz_game* g, const ddz_rules* rules, const ddz_move* move,
                    int generated) noexcept nogil:
    # ddz_game_play. `generated`: the move is an entry of
    # ddz_game_legal_moves for this very state (ddz_simulate), so its kind,
    # rank, length and wild are the generator's own and ddz_check, which
    # would run the generator again over its cards, is skipped; the cheap
    # hand and beat checks still run.
    cdef int seat = g.to_move
    cdef uint64_t hand = g.hands[seat]
    cdef int wild, factor
    if g.phase != PHASE_PLAY:
        return -1
    if move.kind == K_PASS:
        if move.cards or move.rank or move.length:
            return -1
        if _leading(g):
            # only a hand of nothing but W passes when leading; the next
            # seat then leads freely
            if hand & ~WBIT:
                return -1
        else:
            g.passes += 1
            if g.passes == 2:
                g.has_last = 0
                g.passes = 0
        g.to_move = (seat + 1) % 3
        return 0
    if generated:
        wild = move.wild
    else:
        wild = ddz_check(rules, move.kind, move.rank, move.length, move.cards)
    if wild < 0 or not _hand_contains(hand, move.cards):
        return -1
    if not _leading(g) and not ddz_beats(rules, move, &g.last):
        return -1
    g.hands[seat] = hand - move.cards
    g.last = move[0]
    g.last.wild = <uint8_t>wild
    # laizi: what the laizi stand for, from the move itself (0 elsewhere)
    g.last.substitutes = ddz_substitutes(rules, move.kind, move.rank, move.length,
                                      move.cards)
    g.has_last = 1
    g.last_seat = seat
    g.passes = 0
    g.moves_by[seat] += 1
    g.nmoves += 1
    factor = rules.mult[move.kind]
    if factor > 1:
        g.mult = _mul_saturated(g.mult, factor)
    if rules.tier[move.kind]:
        g.nbombs += 1
    if g.hands[seat] == 0:
        g.phase = PHASE_DONE
        g.winner_seat = seat
    else:
        g.to_move = (seat + 1) % 3
    return 0


cdef void ddz_game_score(const ddz_game* g, const ddz_rules* rules,
                         ddz_deal_row* row) noexcept nogil:
    """The result of a finished deal (RULES.md section 6)."""
    cdef int landlord_won = g.winner_seat == g.landlord
    cdef int spring = 0, anti = 0, seat
    cdef int64_t mult = g.mult
    cdef double unit, s
    # every byte of the row, its 4 bytes of trailing padding included, is
    # written: rows copied to numpy (Game.result, simulate) are deterministic
    memset(row, 0, sizeof(ddz_deal_row))
    if landlord_won:
        spring = g.moves_by[(g.landlord + 1) % 3] == 0 and g.moves_by[(g.landlord + 2) % 3] == 0
    else:
        anti = g.moves_by[g.landlord] == 1
    if spring or anti:
        mult = _mul_saturated(mult, 2)
    if rules.mult_cap and mult > rules.mult_cap:
        mult = rules.mult_cap
    unit = <double>g.base * <double>mult
    for seat in range(3):
        if seat == g.landlord:
            s = 2 * unit if landlord_won else -2 * unit
        else:
            s = -unit if landlord_won else unit
        if s > 0:
            s -= s * rules.service_fee
        if rules.deal_cap:
            if s > rules.deal_cap:
                s = rules.deal_cap
            elif s < -rules.deal_cap:
                s = -rules.deal_cap
        row.scores[seat] = s
    row.seed = g.seed
    row.multiplier = mult
    row.moves = <int16_t>g.nmoves
    row.bombs = <int16_t>g.nbombs
    row.landlord = <int8_t>g.landlord
    row.base = <int8_t>g.base
    row.winner = 0 if landlord_won else 1
    row.spring = <int8_t>spring
    row.anti_spring = <int8_t>anti
    row.first_bidder = <int8_t>g.first_bidder
    row.wild_rank = <int8_t>(_ctz(g.wild_mask) if g.wild_mask else -1)
    row.ground_rank = -1
    if g.sky_rank != 255:
        row.wild_rank = <int8_t>g.sky_rank
        if g.wild_mask & ~(1u << g.sky_rank):
            row.ground_rank = <int8_t>_ctz(g.wild_mask & ~(1u << g.sky_rank))


# ---- built-in policies --------------------------------------------------------

cdef int _hand_strength(uint64_t hand) noexcept nogil:
    # A rough bidding score: high cards, bombs, the wildcard.
    cdef int s = 2 * _nib(hand, 12) + 2 * _nib(hand, IDX_X) + 3 * _nib(hand, IDX_D)
    cdef int r
    s += 3 * _nib(hand, IDX_W) + _nib(hand, 11)
    for r in range(13):
        if _nib(hand, r) == 4:
            s += 4
    return s


cdef int ddz_policy_bid(ddz_game* g, int policy) noexcept nogil:
    """The bid of a built-in policy for seat to_move."""
    cdef int choices, bid, s
    if policy == POLICY_RANDOM:
        choices = 4 - g.high_bid           # pass, or any bid above the highest
        bid = <int>_rng_below(&g.rng, choices)
        return 0 if bid == 0 else g.high_bid + bid
    s = _hand_strength(g.hands[g.to_move])
    bid = 3 if s >= 12 else (2 if s >= 9 else (1 if s >= 6 else 0))
    return bid if bid > g.high_bid else 0


cdef inline int _uses_wild(const ddz_move* m) noexcept nogil:
    return (m.cards & WBIT) != 0


cdef int64_t _greedy_pick(const ddz_game* g, const ddz_rules* rules,
                          const ddz_move* moves, int64_t n) noexcept nogil:
    # Greedy: take a move that empties the hand; leading, shed the most cards
    # (lowest rank first, natural cards before W, no bombs while other moves
    # exist); following, the cheapest non-bomb that beats the last move
    # (passing a partner's move), a bomb only when an opponent is close to
    # going out, else pass.
    cdef uint64_t hand = g.hands[g.to_move]
    cdef int64_t i, best = -1
    cdef int64_t score, best_score = -1
    cdef int size, partner, danger
    for i in range(n):
        if moves[i].kind != K_PASS and moves[i].cards == hand:
            return i
    if _leading(g):
        for i in range(n):
            if moves[i].kind == K_PASS:
                continue
            size = _hand_size(moves[i].cards)
            score = size * 64 - moves[i].rank * 2 - _uses_wild(&moves[i])
            if rules.tier[moves[i].kind]:
                score -= 1 << 20
            if score > best_score:
                best_score = score
                best = i
        return best if best >= 0 else 0
    partner = (g.to_move != g.landlord and g.last_seat != g.landlord)
    if partner:
        return 0                         # PASS comes first in a follow
    for i in range(n):
        if moves[i].kind == K_PASS or rules.tier[moves[i].kind]:
            continue
        score = (1 << 20) - moves[i].rank * 4 - _uses_wild(&moves[i]) * 2
        if score > best_score:
            best_score = score
            best = i
    if best >= 0:
        return best
    danger = _hand_size(g.hands[g.last_seat]) <= 4
    if danger:
        for i in range(n):
            if moves[i].kind != K_PASS:
                score = (1 << 20) - rules.tier[moves[i].kind] * 64 - moves[i].rank
                if score > best_score:
                    best_score = score
                    best = i
        if best >= 0:
            return best
    return 0


cdef const ddz_rules* ddz_rules_for_deal(const ddz_game* g, const ddz_rules* rules,
                                         ddz_rules* scratch) noexcept nogil:
    if rules.wild_mask == g.wild_mask:
        return rules
    memcpy(scratch, rules, sizeof(ddz_rules))
    scratch.wild_mask = g.wild_mask
    if g.sky_rank != 255:
        scratch.sky_rank = g.sky_rank
    return scratch


cdef inline int64_t _policy_pick(ddz_game* g, const ddz_rules* rules, int policy,
                                 const ddz_move* buf, int64_t n,
                                 ddz_split_ctx* ctx) noexcept nogil:
    # ctx: the expert's split context (NULL: it makes one for the call)
    if policy == POLICY_RANDOM:
        return <int64_t>_rng_below(&g.rng, <uint64_t>n)
    if policy == POLICY_EXPERT:
        return _expert_pick(g, rules, buf, n, ctx)
    return _greedy_pick(g, rules, buf, n)


cdef int _DRAW_BY_COUNT = 1     # off only in tests (_draw_by_count)


def _draw_by_count(bint on) -> None:
    """Whether the random policy draws a laizi lead by counting (the
    default) or by listing every move: for tests, which check that both
    play the same deals."""
    global _DRAW_BY_COUNT
    _DRAW_BY_COUNT = on


cdef inline int _draws_by_count(const ddz_game* g, const ddz_rules* rules,
                                int policy) noexcept nogil:
    # The random policy leading a hand that holds laizi counts the legal
    # moves, draws k and makes only move k (ddz_draw_count, ddz_draw_make):
    # the very move that listing them all and taking the k-th gives, for a
    # fraction of the work (a laizi lead has up to thousands of moves,
    # mostly kicker choices, which are counted, not listed).
    # tiandi: a move as walked and a split of its laizi, drawn again until
    # that split exists (ddz_draw_splits_count): uniform too, though not the
    # k-th move of the list.
    cdef int i
    if not (policy == POLICY_RANDOM and g.phase == PHASE_PLAY and rules.wild_mask != 0
            and _leading(g) and _DRAW_BY_COUNT):
        return 0
    for i in range(13):
        if (rules.wild_mask >> i) & 1 and _nib(g.hands[g.to_move], i):
            return 1
    return 0


cdef int _grow_buffer(ddz_move** buf, int64_t* cap, int64_t n) noexcept nogil:
    # *buf (of *cap moves) grown (realloc) to hold n moves; DDZ_OK, or
    # DDZ_ERR_NOMEM with *buf untouched
    cdef ddz_move* grown
    if n <= cap[0]:
        return DDZ_OK
    grown = <ddz_move*>realloc(buf[0], n * sizeof(ddz_move))
    if grown == NULL:
        return DDZ_ERR_NOMEM
    buf[0] = grown
    cap[0] = n
    return DDZ_OK


cdef int64_t _draw_policy_move(ddz_game* g, const ddz_rules* rules, ddz_move** buf,
                               int64_t* cap, int grow) noexcept nogil:
    # The random policy's move drawn by counting (see _draws_by_count) into
    # (*buf)[k], k returned; a buffer short of the count is grown (realloc)
    # when `grow`, else DDZ_ERR_NO_MOVE, as ddz_policy_move's callers expect.
    cdef ddz_draw d
    cdef int64_t k
    cdef int most, made
    cdef int64_t n
    if rules.wild_count == 2:
        # tiandi: a walked move and a split drawn until the split exists
        # (uniform over the legal moves; see ddz_draw_splits_count)
        n = ddz_draw_splits_count(&d, rules, g.hands[g.to_move],
                                  NULL if _leading(g) else &g.last, &most)
        if n <= 0:
            return DDZ_ERR_NO_MOVE
        if n > cap[0]:
            if not grow:
                return DDZ_ERR_NO_MOVE
            if _grow_buffer(buf, cap, n) != DDZ_OK:
                return DDZ_ERR_NOMEM
        while True:
            k = <int64_t>_rng_below(&g.rng, <uint64_t>n)
            made = ddz_draw_split_make(&d, k, <int>_rng_below(&g.rng, <uint64_t>most)
                                       if most > 1 else 0, buf[0])
            if made == 0:
                return k
            if made < 0:
                return DDZ_ERR_NO_MOVE
    n = ddz_draw_count(&d, rules, g.hands[g.to_move], NULL if _leading(g) else &g.last)
    if n <= 0:
        return DDZ_ERR_NO_MOVE
    if n > cap[0]:
        if not grow:
            return DDZ_ERR_NO_MOVE
        if _grow_buffer(buf, cap, n) != DDZ_OK:
            return DDZ_ERR_NOMEM
    k = <int64_t>_rng_below(&g.rng, <uint64_t>n)
    if ddz_draw_make(&d, k, buf[0]) != 0:
        return DDZ_ERR_NO_MOVE
    return k


cdef int64_t ddz_policy_move(ddz_game* g, const ddz_rules* rules, int policy,
                             ddz_move* buf, int64_t cap) noexcept nogil:
    """The index k of the built-in policy's choice among the legal moves of
    seat to_move, that move in buf[k]; DDZ_ERR_NO_MOVE when there is no
    legal move or buf holds fewer than the position has."""
    return _policy_move_ctx(g, rules, policy, buf, cap, NULL)


cdef int64_t _policy_move_ctx(ddz_game* g, const ddz_rules* rules, int policy,
                              ddz_move* buf, int64_t cap,
                              ddz_split_ctx* ctx) noexcept nogil:
    # ddz_policy_move with the expert's split context (NULL: one per call)
    cdef int64_t n
    if _draws_by_count(g, rules, policy):
        return _draw_policy_move(g, rules, &buf, &cap, 0)
    n = ddz_game_legal_moves(g, rules, buf, cap)
    if n > cap or n <= 0:
        return DDZ_ERR_NO_MOVE
    return _policy_pick(g, rules, policy, buf, n, ctx)


cdef int64_t _policy_move_grow(ddz_game* g, const ddz_rules* rules, int policy,
                               ddz_move** buf, int64_t* cap,
                               ddz_split_ctx* ctx) noexcept nogil:
    # ddz_policy_move into a heap buffer *buf of *cap moves, grown (realloc)
    # to the position's count when it does not fit: a laizi hand of 20 cards
    # can have over 10,000 legal moves, more than DDZ_MOVE_BUFFER.
    cdef int64_t n
    if _draws_by_count(g, rules, policy):
        return _draw_policy_move(g, rules, buf, cap, 1)
    n = ddz_game_legal_moves(g, rules, buf[0], cap[0])
    if n > cap[0]:
        if _grow_buffer(buf, cap, n) != DDZ_OK:
            return DDZ_ERR_NOMEM
        n = ddz_game_legal_moves(g, rules, buf[0], cap[0])
    if n <= 0:
        return DDZ_ERR_NO_MOVE
    return _policy_pick(g, rules, policy, buf[0], n, ctx)


cdef int64_t ddz_policy_move_grow(ddz_game* g, const ddz_rules* rules, int policy,
                                  ddz_move** buf, int64_t* cap,
                                  ddz_split_ctx* split) noexcept nogil:
    return _policy_move_grow(g, rules, policy, buf, cap, split)


cdef int ddz_simulate(const ddz_rules* rules, const int* policies, uint64_t seed,
                      int64_t start, int64_t stop, int bidding,
                      ddz_deal_row* rows) noexcept nogil:
    """Deals start..stop of a run seeded `seed`, every seat played by a
    built-in policy; row i - start of `rows` gets deal i, whose first bidder
    is i modulo 3 (floored: 0..2 for a negative i too). Returns DDZ_OK, or
    DDZ_ERR_NOMEM (no buffer), DDZ_ERR_NO_MOVE (a policy found no legal
    move) or DDZ_ERR_ILLEGAL (the engine refused a policy's move); rows
    from the failing deal on are then unspecified."""
    cdef ddz_game g
    cdef ddz_rules scratch
    cdef const ddz_rules* dr
    cdef int64_t cap = DDZ_MOVE_BUFFER
    cdef ddz_move* buf = <ddz_move*>malloc(cap * sizeof(ddz_move))
    cdef int64_t i, k
    cdef int status = DDZ_OK
    cdef ddz_split_ctx ctx
    if buf == NULL:
        return DDZ_ERR_NOMEM
    if not ddz_split_init(&ctx):
        free(buf)
        return DDZ_ERR_NOMEM
    for i in range(start, stop):
        ddz_game_new(&g, rules, ddz_deal_seed(seed, i), _seat_of(i), bidding)
        while g.phase == PHASE_BIDDING:
            ddz_game_bid(&g, ddz_policy_bid(&g, policies[g.to_move]))
        # (after bidding: tiandi's ground rank is drawn as play starts)
        dr = ddz_rules_for_deal(&g, rules, &scratch)
        while g.phase == PHASE_PLAY:
            k = _policy_move_grow(&g, dr, policies[g.to_move], &buf, &cap, &ctx)
            if k < 0:
                status = <int>k
                break
            if _game_play(&g, dr, &buf[k], 1) != 0:
                status = DDZ_ERR_ILLEGAL
                break
        if status != DDZ_OK:
            break
        ddz_game_score(&g, dr, &rows[i - start])
    free(buf)
    ddz_split_free(&ctx)
    return status
