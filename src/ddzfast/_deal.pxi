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


cdef void _shuffle_deal(ddz_game* g, int deck_wild, uint64_t* rng) noexcept nogil:
    # The deck shuffled with the stream *rng and dealt (RULES.md 5): card i
    # to seat i % 3, the last ones to the kitty.
    cdef uint8_t cards[55]
    cdef int n = 0, i, j, r
    cdef uint8_t t
    # (drawn from a local copy: the stores to cards, bytes, may alias *rng,
    # which the compiler would otherwise load again at every draw)
    cdef uint64_t stream = rng[0]
    for r in range(13):
        for i in range(4):
            cards[n] = r
            n += 1
    cards[n] = IDX_X
    cards[n + 1] = IDX_D
    n += 2
    if deck_wild:
        cards[n] = IDX_W
        n += 1
    for i in range(n - 1, 0, -1):
        j = <int>_rng_below(&stream, i + 1)
        t = cards[i]
        cards[i] = cards[j]
        cards[j] = t
    rng[0] = stream
    g.hands[0] = g.hands[1] = g.hands[2] = 0
    g.kitty = 0
    for i in range(n):
        if i < 3 * DDZ_DEAL_CARDS:
            g.hands[i % 3] += (<uint64_t>1) << (4 * cards[i])
        else:
            g.kitty += (<uint64_t>1) << (4 * cards[i])


cdef void _reset_round(ddz_game* g) noexcept nogil:
    # Everything a deal decides after its cards are dealt, as before the
    # first decision (a redeal starts from here again).
    cdef int s
    g.mult = 1
    g.bids_made = 0
    g.high_bid = 0
    g.high_bidder = -1
    g.landlord = -1
    g.base = 0
    g.has_last = 0
    g.last_seat = -1
    g.passes = 0
    g.winner_seat = -1
    g.nmoves = 0
    g.nbombs = 0
    g.last.cards = 0
    g.last.kind = K_PASS
    g.last.rank = 0
    g.last.length = 0
    g.last.wild = WILD_NONE
    g.last.substitutes = 0
    g.rob_stage = 0
    g.calls_made = 0
    g.caller = -1
    g.leader = -1
    g.robs = 0
    g.show_mult = 1
    g.turns = 0
    for s in range(3):
        g.bids[s] = -1
        g.moves_by[s] = 0
        g.played[s] = 0
        g.called[s] = -1
        g.robbed[s] = -1
        g.shown[s] = 0
        g.doubles[s] = 0 if g.opt_doubling else 1


cdef void _reset_deal(ddz_game* g, const ddz_rules* rules, int first_bidder,
                      int bidding) noexcept nogil:
    g.bidding = bidding
    g.first_bidder = _seat_of(first_bidder)
    g.opt_rob = rules.rob
    g.opt_no_call_first = rules.no_call_first
    g.opt_show = rules.show
    g.opt_doubling = rules.doubling
    g.deck_wild = rules.has_wild
    g.rob_base = rules.rob_base
    g.redeals = 0
    g.position = 0
    g.session = -1
    _reset_round(g)


cdef void _draw_wild(ddz_game* g, const ddz_rules* rules) noexcept nogil:
    # laizi: the wild rank is drawn after the deal, before bidding (a rule
    # set naming its rank keeps it, and other rule sets draw nothing, so
    # their deals are those of earlier versions)
    g.wild_mask = rules.wild_mask
    g.sky_rank = 255
    g.ground_given = 255
    if _two_wild_ranks(rules):
        # tiandi: the sky rank now, the ground rank once the kitty is taken
        # (_start_play)
        g.sky_rank = rules.sky_rank
        if g.sky_rank == 255:
            g.sky_rank = <uint8_t>_rng_below(&g.rng, 13)
            g.wild_mask = <uint16_t>(1u << g.sky_rank)
    elif rules.laizi and not g.wild_mask:
        g.wild_mask = <uint16_t>(1u << <int>_rng_below(&g.rng, 13))


cdef void ddz_game_new(ddz_game* g, const ddz_rules* rules, uint64_t seed,
                       int first_bidder, int bidding) noexcept nogil:
    g.seed = seed
    g.rng = seed
    _shuffle_deal(g, rules.has_wild, &g.rng)
    _reset_deal(g, rules, first_bidder, bidding)
    _draw_wild(g, rules)
    _begin(g)


cdef void _begin(ddz_game* g) noexcept nogil:
    # The first decision of a dealt deal: the shows, else the bidding, else
    # (no bidding) seat 0 takes the kitty.
    if g.opt_show:
        g.phase = PHASE_SHOW
        g.to_move = g.first_bidder
        g.turns = 0
    else:
        _begin_bidding(g)


cdef void _begin_bidding(ddz_game* g) noexcept nogil:
    if g.bidding:
        g.phase = PHASE_BIDDING
        g.to_move = g.first_bidder
    else:
        _start_play(g, 0, g.rob_base if g.opt_rob else 1)


cdef void _start_play(ddz_game* g, int landlord, int base) noexcept nogil:
    # The landlord takes the kitty; then its show, the doubling, the play.
    cdef int k
    g.landlord = landlord
    g.base = base
    g.hands[landlord] += g.kitty
    if g.sky_rank != 255 and g.wild_mask == (1u << g.sky_rank):
        # tiandi: the ground rank, one of the 12 other ranks (RULES.md 9),
        # unless the deal was given it
        if g.ground_given != 255:
            g.wild_mask |= <uint16_t>(1u << g.ground_given)
        else:
            k = <int>_rng_below(&g.rng, 12)
            g.wild_mask |= <uint16_t>(1u << (k + (k >= g.sky_rank)))
    if g.opt_show and not g.shown[landlord]:
        g.phase = PHASE_LANDLORD_SHOW
        g.to_move = landlord
    else:
        _begin_doubling(g)


cdef void _begin_doubling(ddz_game* g) noexcept nogil:
    if g.opt_doubling:
        g.phase = PHASE_DOUBLING
        g.turns = 0
        g.to_move = (g.landlord + 1) % 3
    else:
        g.phase = PHASE_PLAY
        g.to_move = g.landlord


cdef void _set_show(ddz_game* g, int seat, int when, int factor) noexcept nogil:
    # seat shows; the show multiplier is the largest factor chosen, and the
    # public multiplier grows by what that adds
    g.shown[seat] = when
    if factor > g.show_mult:
        g.mult = _mul_saturated(g.mult, factor // g.show_mult)
        g.show_mult = factor


cdef void _redeal(ddz_game* g) noexcept nogil:
    # Nobody called: new cards, the same first bidder and wild rank, every
    # decision made again. Redeal k is shuffled from a stream of its own,
    # ddz_deal_seed(g.seed, k), not from g.rng, which the random policy
    # draws from: so the redeals' cards do not depend on the choices made
    # before them, and games given one seed for their redeals (the arena's
    # seatings of a deal, Game.from_deal's redeal_seed) are redealt the
    # same cards.
    cdef uint64_t stream
    g.redeals += 1
    stream = ddz_deal_seed(g.seed, g.redeals)
    _shuffle_deal(g, g.deck_wild, &stream)
    _reset_round(g)
    _begin(g)


cdef inline int _next_robber(const ddz_game* g, int seat) noexcept nogil:
    # The next seat after `seat`, before the caller comes round again, that
    # may rob: one not asked to call (those asked before the caller passed)
    cdef int s = (seat + 1) % 3
    while s != g.caller:
        if g.called[s] < 0:
            return s
        s = (s + 1) % 3
    return -1


cdef int _rob_choose(ddz_game* g, int c) noexcept nogil:
    # Rob bidding (RULES.md 10): call or pass, then the others' robs, then
    # the caller's last rob; the landlord is the last to call or rob.
    cdef int seat = g.to_move, nxt
    if c != 0 and c != 1:
        return -1
    if g.rob_stage == 0:
        g.called[seat] = <int8_t>c
        g.calls_made += 1
        if c:
            g.caller = g.leader = seat
            g.rob_stage = 1
            nxt = _next_robber(g, seat)
            if nxt < 0:
                _start_play(g, seat, g.rob_base)
            else:
                g.to_move = nxt
        elif g.calls_made == 3:
            if g.opt_no_call_first or g.redeals >= DDZ_MAX_REDEALS:
                _start_play(g, g.first_bidder, g.rob_base)
            else:
                _redeal(g)
        else:
            g.to_move = (seat + 1) % 3
        return 0
    g.robbed[seat] = <int8_t>c
    if c:
        g.robs += 1
        g.leader = seat
        g.mult = _mul_saturated(g.mult, 2)
    if g.rob_stage == 1:
        nxt = _next_robber(g, seat)
        if nxt >= 0:
            g.to_move = nxt
            return 0
        if g.robs:
            g.rob_stage = 2
            g.to_move = g.caller
            return 0
    _start_play(g, g.leader, g.rob_base)
    return 0


cdef int ddz_game_bid(ddz_game* g, int bid) noexcept nogil:
    """Seat to_move bids `bid` (0: pass). Returns 0, or -1 when the bid is not
    legal (not bidding now, or not above the highest bid, or above 3)."""
    if g.phase != PHASE_BIDDING or bid < 0 or bid > 3:
        return -1
    if g.opt_rob:
        return _rob_choose(g, bid)
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


cdef int ddz_game_choosing(const ddz_game* g) noexcept nogil:
    return g.phase != PHASE_PLAY and g.phase != PHASE_DONE


cdef inline int _landlord_may_double(const ddz_game* g) noexcept nogil:
    return g.opt_doubling != 2 or g.doubles[(g.landlord + 1) % 3] > 1 \
        or g.doubles[(g.landlord + 2) % 3] > 1


cdef int ddz_game_choices(const ddz_game* g, int* out) noexcept nogil:
    cdef int n = 0, b
    if g.phase == PHASE_BIDDING:
        out[0] = 0
        if g.opt_rob:
            out[1] = 1
            return 2
        n = 1
        for b in range(g.high_bid + 1, 4):
            out[n] = b
            n += 1
        return n
    if g.phase == PHASE_SHOW or g.phase == PHASE_LANDLORD_SHOW:
        out[0] = 0
        out[1] = 1
        return 2
    if g.phase == PHASE_DOUBLING:
        out[0] = 1
        out[1] = 2
        out[2] = 4
        return 3
    return 0


cdef int ddz_game_choose(ddz_game* g, int c) noexcept nogil:
    """Seat to_move makes choice `c` (ddz_game_choices). 0, or -1 (state
    unchanged) when it is not legal now."""
    cdef int seat = g.to_move
    if g.phase == PHASE_BIDDING:
        return ddz_game_bid(g, c)
    if g.phase == PHASE_SHOW:
        if c != 0 and c != 1:
            return -1
        if c:
            _set_show(g, seat, 1, 4)
        g.turns += 1
        if g.turns == 3:
            # (the count of the shows only: the phases after it start at 0,
            # or two positions alike but for it would differ)
            g.turns = 0
            _begin_bidding(g)
        else:
            g.to_move = (seat + 1) % 3
        return 0
    if g.phase == PHASE_LANDLORD_SHOW:
        if c != 0 and c != 1:
            return -1
        if c:
            _set_show(g, seat, 2, 2)
        _begin_doubling(g)
        return 0
    if g.phase == PHASE_DOUBLING:
        if c != 1 and c != 2 and c != 4:
            return -1
        g.doubles[seat] = <int8_t>c
        g.turns += 1
        if seat == g.landlord:
            g.phase = PHASE_PLAY
        elif g.turns == 2 and not _landlord_may_double(g):
            g.doubles[g.landlord] = 1
            g.phase = PHASE_PLAY
        if g.phase == PHASE_PLAY:
            g.to_move = g.landlord
        else:
            g.to_move = (seat + 1) % 3
        return 0
    return -1


cdef inline uint64_t _deck_bits(int deck_wild) noexcept nogil:
    # the whole deck, packed: four of each rank 3..2, X, D, and W if held
    cdef uint64_t deck = (<uint64_t>1 << (4 * IDX_X)) + (<uint64_t>1 << (4 * IDX_D))
    cdef int r
    for r in range(13):
        deck += (<uint64_t>4) << (4 * r)
    if deck_wild:
        deck += WBIT
    return deck


cdef int ddz_cards_ascending(uint64_t cards, uint8_t* out) noexcept nogil:
    cdef int n = 0, i, k
    for i in range(16):
        for k in range(_nib(cards, i)):
            out[n] = <uint8_t>i
            n += 1
    return n


cdef int ddz_next_pile(const ddz_game* prev, const uint8_t* order, int n_order,
                       int deck, uint8_t* pile) noexcept nogil:
    """The pile a no-shuffle session deals its next deal from (RULES.md 10):
    `order` (the finished deal *prev's plays, in order, each move's cards
    ascending), then the cards left in seats 0, 1, 2 ascending, then the
    landlord's kitty cards not played. Its size (`deck`), or -1 when these
    are not `deck` cards."""
    cdef uint64_t left[3]
    cdef uint64_t kitty_left = 0
    cdef int n = 0, s, i, k
    cdef int ll = prev.landlord
    if n_order < 0 or n_order > deck or ll < 0:
        return -1
    for i in range(n_order):
        if order[i] > 15:
            return -1
        pile[n] = order[i]
        n += 1
    # which of the landlord's cards are the kitty's is read as
    # Observation.sample reads it: per card, the kitty's count less the
    # landlord's plays of that card
    for i in range(16):
        k = _nib(prev.kitty, i) - _nib(prev.played[ll], i)
        if k > 0:
            kitty_left += (<uint64_t>k) << (4 * i)
    for s in range(3):
        left[s] = prev.hands[s]
    if not _hand_contains(left[ll], kitty_left):
        return -1
    left[ll] -= kitty_left
    for s in range(3):
        if n + _hand_size(left[s]) > deck:
            return -1
        n += ddz_cards_ascending(left[s], pile + n)
    if n + _hand_size(kitty_left) != deck:
        return -1
    n += ddz_cards_ascending(kitty_left, pile + n)
    return n


cdef int ddz_game_from_pile(ddz_game* g, const ddz_rules* rules, const uint8_t* pile,
                            int n, uint64_t seed, int first_bidder,
                            int bidding) noexcept nogil:
    """A deal dealt from `pile` (RULES.md 10): rules.swaps transpositions and
    a cut drawn from the stream of `seed`, then blocks of 17 to the first
    bidder and the seats after it, the rest to the kitty. 0, or -1 when the
    pile is not the rule set's deck."""
    cdef uint8_t work[56]
    cdef uint64_t total = 0
    cdef int i, j, k, t, c, fb = _seat_of(first_bidder)
    if n != 54 + rules.has_wild:
        return -1
    for i in range(n):
        if pile[i] > 15:
            return -1
        work[i] = pile[i]
        total += (<uint64_t>1) << (4 * pile[i])
    if total != _deck_bits(rules.has_wild):
        return -1
    g.seed = seed
    g.rng = seed
    for t in range(rules.swaps):
        i = <int>_rng_below(&g.rng, n)
        j = <int>_rng_below(&g.rng, n - 1)
        if j >= i:
            j += 1
        k = work[i]
        work[i] = work[j]
        work[j] = <uint8_t>k
    c = <int>_rng_below(&g.rng, n)
    g.hands[0] = g.hands[1] = g.hands[2] = 0
    g.kitty = 0
    for i in range(n):
        t = work[(c + i) % n]
        if i < 3 * DDZ_DEAL_CARDS:
            g.hands[(fb + i // DDZ_DEAL_CARDS) % 3] += (<uint64_t>1) << (4 * t)
        else:
            g.kitty += (<uint64_t>1) << (4 * t)
    _reset_deal(g, rules, fb, bidding)
    _draw_wild(g, rules)
    _begin(g)
    return 0


cdef int ddz_game_next(ddz_game* g, const ddz_rules* rules, const ddz_game* prev,
                       const uint8_t* order, int n_order, uint64_t seed) noexcept nogil:
    """The next deal of a no-shuffle session (RULES.md 10); see _engine.pxd."""
    cdef uint8_t pile[56]
    cdef int n = ddz_next_pile(prev, order, n_order, 54 + rules.has_wild, pile)
    if n < 0 or ddz_game_from_pile(g, rules, pile, n, seed, prev.first_bidder + 1,
                                   prev.bidding) != 0:
        return -1
    g.position = prev.position + 1
    g.session = prev.session
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


cdef inline int _game_play(ddz_game* g, const ddz_rules* rules, const ddz_move* move,
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
    g.played[seat] += move.cards
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
    """The result of a finished deal (RULES.md sections 6 and 10)."""
    cdef int landlord_won = g.winner_seat == g.landlord
    cdef int spring = 0, anti = 0, seat, f, d_f, d_l
    cdef int64_t mult = g.mult, m
    cdef double s, total = 0.0
    # every byte of the row, its padding included, is written: rows copied
    # to numpy (Game.result, simulate) are deterministic
    memset(row, 0, sizeof(ddz_deal_row))
    if landlord_won:
        spring = g.moves_by[(g.landlord + 1) % 3] == 0 and g.moves_by[(g.landlord + 2) % 3] == 0
    else:
        anti = g.moves_by[g.landlord] == 1
    if spring or anti:
        mult = _mul_saturated(mult, 2)
    if rules.mult_cap and mult > rules.mult_cap:
        mult = rules.mult_cap
    # each farmer's stake base * min(P * d_f * d_L, cap), the landlord's
    # the sum (with every factor 1 and no cap: base * mult each, 2 * that)
    d_l = g.doubles[g.landlord] if g.doubles[g.landlord] > 0 else 1
    for f in range(1, 3):
        seat = (g.landlord + f) % 3
        d_f = g.doubles[seat] if g.doubles[seat] > 0 else 1
        m = _mul_saturated(_mul_saturated(mult, d_f), d_l)
        if rules.stake_cap and m > rules.stake_cap:
            m = rules.stake_cap
        row.stakes[seat] = <double>g.base * <double>m
        total += row.stakes[seat]
    row.stakes[g.landlord] = total
    for seat in range(3):
        s = row.stakes[seat]
        if (seat == g.landlord) != landlord_won:
            s = -s
        if s > 0:
            s -= s * rules.service_fee
        if rules.deal_cap:
            if s > rules.deal_cap:
                s = rules.deal_cap
            elif s < -rules.deal_cap:
                s = -rules.deal_cap
        row.scores[seat] = s
        row.doubles[seat] = <int8_t>(g.doubles[seat] if g.doubles[seat] > 0 else 1)
        if g.shown[seat]:
            row.shown |= <uint8_t>(1 << seat)
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
    row.robs = <int8_t>g.robs
    row.show = <int8_t>g.show_mult
    row.redeals = <uint8_t>g.redeals
    row.position = g.position
    row.session = g.session


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
    if g.opt_rob:
        return ddz_policy_choice(g, policy)
    if policy == POLICY_RANDOM:
        choices = 4 - g.high_bid           # pass, or any bid above the highest
        bid = <int>_rng_below(&g.rng, choices)
        return 0 if bid == 0 else g.high_bid + bid
    s = _hand_strength(g.hands[g.to_move])
    bid = 3 if s >= 12 else (2 if s >= 9 else (1 if s >= 6 else 0))
    return bid if bid > g.high_bid else 0


cdef int ddz_policy_choice(ddz_game* g, int policy) noexcept nogil:
    """The choice of a built-in policy for the decision now: random draws
    uniformly among the legal choices; greedy and expert decide from the
    hand strength of _hand_strength (the bid's estimate): call at 6, rob at
    9, show before bidding at 14 and after the kitty at 12, double at 9 and
    super-double at 13."""
    cdef int choices[DDZ_MAX_CHOICES]
    cdef int n = ddz_game_choices(g, choices)
    cdef int s
    if n <= 0:
        return -1
    if policy == POLICY_RANDOM:
        return choices[<int>_rng_below(&g.rng, <uint64_t>n)]
    if g.phase == PHASE_BIDDING and not g.opt_rob:
        return ddz_policy_bid(g, policy)
    s = _hand_strength(g.hands[g.to_move])
    if g.phase == PHASE_BIDDING:
        return 1 if s >= (6 if g.rob_stage == 0 else 9) else 0
    if g.phase == PHASE_SHOW:
        return 1 if s >= 14 else 0
    if g.phase == PHASE_LANDLORD_SHOW:
        return 1 if s >= 12 else 0
    return 4 if s >= 13 else (2 if s >= 9 else 1)


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
                score = (1 << 20) - ddz_move_tier(rules, &moves[i]) * 64 - moves[i].rank
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


cdef inline int _grow_buffer(ddz_move** buf, int64_t* cap, int64_t n) noexcept nogil:
    # *buf (of *cap moves) grown to hold n moves, its moves not kept (every
    # caller writes it again); DDZ_OK, or DDZ_ERR_NOMEM with *buf untouched
    return DDZ_OK if ddz_grow_scratch(<void**>buf, cap, n, sizeof(ddz_move)) == 0 \
        else DDZ_ERR_NOMEM


cdef int64_t _draw_policy_move(ddz_game* g, const ddz_rules* rules, ddz_move** buf,
                               int64_t* cap, int grow) noexcept nogil:
    # The random policy's move drawn by counting (see _draws_by_count) into
    # (*buf)[k], k returned; a buffer short of the count is grown (realloc)
    # when `grow`, else DDZ_ERR_NO_MOVE, as ddz_policy_move's callers expect.
    cdef ddz_draw d
    cdef int64_t k
    cdef int most, made
    cdef int64_t n
    if _two_wild_ranks(rules):
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


cdef inline int64_t _policy_move_grow(ddz_game* g, const ddz_rules* rules, int policy,
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


cdef inline bint _uses_expert(const int* policies) noexcept nogil:
    return (policies[0] == POLICY_EXPERT or policies[1] == POLICY_EXPERT
            or policies[2] == POLICY_EXPERT)


cdef inline int _simulate_deal(ddz_game* g, const ddz_rules* rules, ddz_rules* scratch,
                               const int* policies, ddz_move** buf, int64_t* cap,
                               ddz_split_ctx* ctx, uint8_t* order,
                               int* n_order) noexcept nogil:
    # Deal *g played to its end by built-in policies, every decision
    # included; with `order`, the cards played, in order, each move's
    # ascending, into order[0:*n_order] (a no-shuffle session's next pile).
    # DDZ_OK or a DDZ_ERR_ code.
    cdef int64_t k
    cdef ddz_move* played
    # the deal's rule set once play starts (tiandi's ground rank is drawn as
    # the landlord takes the kitty)
    cdef const ddz_rules* dr = NULL
    n_order[0] = 0
    while g.phase != PHASE_DONE:
        if g.phase != PHASE_PLAY:
            if ddz_game_choose(g, ddz_policy_choice(g, policies[g.to_move])) != 0:
                return DDZ_ERR_ILLEGAL
            continue
        if dr == NULL:
            dr = ddz_rules_for_deal(g, rules, scratch)
        k = _policy_move_grow(g, dr, policies[g.to_move], buf, cap, ctx)
        if k < 0:
            return <int>k
        played = buf[0] + k
        if _game_play(g, dr, played, 1) != 0:
            return DDZ_ERR_ILLEGAL
        if order != NULL and played.kind != K_PASS:
            n_order[0] += ddz_cards_ascending(played.cards, order + n_order[0])
    return DDZ_OK


cdef int ddz_simulate(const ddz_rules* rules, const int* policies, uint64_t seed,
                      int64_t start, int64_t count, int bidding,
                      ddz_deal_row* rows) noexcept nogil:
    """The `count` deals from deal `start` on of a run seeded `seed`, every
    seat played by a built-in policy; row j of `rows` gets deal start + j,
    whose first bidder is its index modulo 3 (floored: 0..2 for a negative
    index too). The run is a count, not an exclusive end, so that it may end
    at the last int64 index, whose end would not fit. No-shuffle deals
    (RULES.md 10) come in sessions of rules.session deals: deal i is
    position i % session of session i // session, dealt from the deal
    before it, so a run starting inside a session first plays that
    session's earlier deals (without rows). Returns DDZ_OK, or
    DDZ_ERR_NOMEM (no buffer), DDZ_ERR_NO_MOVE (a policy found no legal
    move) or DDZ_ERR_ILLEGAL (the engine refused a policy's decision); rows
    from the failing deal on are then unspecified."""
    return ddz_simulate_carry(rules, policies, seed, start, count, bidding, rows, NULL)


cdef int ddz_simulate_carry(const ddz_rules* rules, const int* policies, uint64_t seed,
                            int64_t start, int64_t count, int bidding,
                            ddz_deal_row* rows, ddz_session_carry* carry) noexcept nogil:
    """ddz_simulate, a run inside a no-shuffle session going on from `carry`
    when the carry ends where the run starts; see _engine.pxd."""
    cdef ddz_game g
    cdef ddz_game prev
    cdef ddz_rules scratch
    cdef const ddz_rules* dr
    cdef int64_t cap = DDZ_MOVE_BUFFER
    cdef ddz_move* buf
    cdef int64_t i, j, lead = 0, length = 1
    cdef int status = DDZ_OK
    cdef uint8_t order[56]
    cdef int n_order = 0
    cdef bint resumed = False
    cdef ddz_split_ctx ctx
    cdef bint split
    if count <= 0:
        return DDZ_OK
    buf = <ddz_move*>malloc(cap * sizeof(ddz_move))
    if buf == NULL:
        return DDZ_ERR_NOMEM
    # the expert's split context, made only when a seat plays it (its
    # tables are large to make for a short run)
    split = _uses_expert(policies)
    if split and not ddz_split_init(&ctx):
        free(buf)
        return DDZ_ERR_NOMEM
    if rules.no_shuffle:
        length = rules.session
        lead = -(start % length) if start >= 0 else 0
        if carry != NULL and lead < 0 and carry.next == start:
            prev = carry.prev
            memcpy(order, carry.order, sizeof(order))
            n_order = carry.n_order
            lead = 0
            resumed = True
    if carry != NULL:
        carry.next = -1     # until the run ends well
    # j counts from the session's first deal (lead <= 0) to count - 1: every
    # index start + j is a deal of the run or of its first session
    for j in range(lead, count):
        i = start + j
        if (j == lead and not resumed) or i % length == 0:
            ddz_game_new(&g, rules, ddz_deal_seed(seed, i), _seat_of(i), bidding)
        elif ddz_game_next(&g, rules, &prev, order, n_order, ddz_deal_seed(seed, i)) != 0:
            status = DDZ_ERR_ILLEGAL
            break
        g.session = i // length if rules.no_shuffle else i
        g.position = <int>(i % length) if rules.no_shuffle else 0
        status = _simulate_deal(&g, rules, &scratch, policies, &buf, &cap,
                                &ctx if split else NULL,
                                order if rules.no_shuffle else NULL, &n_order)
        if status != DDZ_OK:
            break
        dr = ddz_rules_for_deal(&g, rules, &scratch)
        if j >= 0:
            ddz_game_score(&g, dr, &rows[j])
        if rules.no_shuffle:
            prev = g
    free(buf)
    if split:
        ddz_split_free(&ctx)
    # (a run ending at the last deal index has no next deal to go on to)
    if carry != NULL and status == DDZ_OK and rules.no_shuffle \
            and count <= INT64_MAX - start:
        carry.prev = prev
        memcpy(carry.order, order, sizeof(order))
        carry.n_order = n_order
        carry.next = start + count
    return status
