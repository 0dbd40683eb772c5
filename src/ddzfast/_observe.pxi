# Observation tensors, included into _engine.pyx after _game.pxi: what one
# seat of a Game may know, as a fixed float32 vector filled in C. The layout
# is OBSERVATION_LAYOUT (one table, read by the C code through the offsets
# below, by the docs and by the tests).

from libc.math cimport log2

ObservationBlock = collections.namedtuple("ObservationBlock",
                                          "offset size shape description",
                                          module="ddzfast")   # (see GameResult)
ObservationBlock.__doc__ = """One part of an observation tensor:
``tensor[offset:offset + size]``, read as ``shape`` (row-major)."""

#: Moves of the recent history in an observation tensor.
HISTORY_MOVES = DDZ_HISTORY_MOVES

# The encoding of a set of cards (as ddzfast.features.encode_hands: a 4 x 15
# count plane, plane[j, i] = 1 when more than j cards of index i, then the
# number of W) and of a move (those 61 cards, 16 columns for what the
# wildcards stand for, then a one-hot of its kind, PASS included). The 16
# columns: with a W, a one-hot of what W stands for (WILD_KICKER: kicker or
# itself); in a laizi move, column i (rank 3..2) is how many laizi stand for
# rank i (0..4, tiandi 0..8: what Move.substitutes records, kickers not
# but in tiandi's moves of laizi alone), since the W one-hot says nothing
# there; else zero. As
# ddzfast.features.encode_moves.
cdef enum:
    OBS_CARDS = 61
    OBS_MOVE = 61 + 16 + NKINDS
    OBS_SLOT = OBS_MOVE + 3
    OBS_LEFT = 22                # cards left: one-hot of 0..21 (21: 21 or more)
    OBS_RANKS = 13               # wild rank: one-hot of 3..2

# Seats are relative to the observing seat: 0 = itself, 1 = the seat that
# plays after it, 2 = the seat after that (the one before it).
_OBS_BLOCKS = (
    ("seat", (3,), "one-hot of the observing seat's absolute seat 0..2"),
    ("phase", (3,), "one-hot of the phase: bidding, play, done"),
    ("to_move", (3,), "one-hot of the seat to move (relative); zero when done"),
    ("hand", (OBS_CARDS,), "the observing seat's hand (card encoding)"),
    ("unseen", (OBS_CARDS,), "the deck minus the own hand and every card played: "
                             "the other hands (and the kitty while bidding; and, "
                             "after Game.from_position, cards played before it)"),
    ("played", (3, OBS_CARDS), "the cards each seat (relative) has played"),
    ("cards_left", (3, OBS_LEFT), "one-hot of the cards each seat (relative) "
                                  "holds, 0..21 (21: 21 or more)"),
    ("landlord", (3,), "one-hot of the landlord seat (relative); zero while bidding"),
    ("bids", (3, 5), "point bidding: each seat's (relative) bid, one-hot of: not yet, "
     "pass, 1, 2, 3 (rob bidding: not yet, its calls are in calls)"),
    ("base", (4,), "one-hot of the base score 0..3 (0 while bidding; 3 for "
                   "3 or more: a deal bid by robbing has the rule set's "
                   "rob_base, up to 100)"),
    ("kitty", (OBS_CARDS,), "the kitty once shown (after bidding), else zero"),
    ("kitty_shown", (1,), "1 once the kitty is shown (after bidding)"),
    ("last_move", (OBS_MOVE,), "the move to beat (move encoding); zero on a free lead"),
    ("last_seat", (3,), "one-hot of who played the move to beat (relative)"),
    ("bombs", (1,), "number of bombs (moves of a bomb tier) played so far"),
    ("multiplier", (1,), "log2 of the multiplier so far (Game.multiplier)"),
    ("history", (HISTORY_MOVES, OBS_SLOT),
     f"the last {HISTORY_MOVES} plays, passes included, most recent first: the "
     f"move encoding then a one-hot of its seat (relative); rows before the "
     f"first play are zero"),
    # appended last, so every block before it keeps its offset
    ("wild_rank", (OBS_RANKS,), "laizi: one-hot of the deal's wild rank (3..2, "
                                "Game.wild_rank; tiandi: its two, Game.wild_ranks, "
                                "the ground rank once drawn), shown from the deal "
                                "on; zero in other rule sets"),
    # platform play (RULES.md 10), appended: zero but for `deal_phase` and
    # the neutral `doubles` and `show_multiplier` when its options are off
    ("deal_phase", (6,), "one-hot of the phase: bidding, play, done, show, "
                         "landlord_show, doubling (the `phase` block above "
                         "has the first three only)"),
    ("shown", (3,), "1 for each seat (relative) that has shown its hand"),
    ("shown_hands", (3, OBS_CARDS), "the hand of each seat (relative) that has "
                                    "shown it, as it is now; zero for the others"),
    ("calls", (3, 3), "rob bidding: each seat's (relative) call, one-hot of: not "
                      "asked, passed, called (point bidding: not asked)"),
    ("robbed", (3, 3), "rob bidding: each seat's (relative) rob, one-hot of: not "
                       "asked, declined, robbed (the caller's last rob included; "
                       "point bidding: not asked)"),
    ("robs", (1,), "robs so far (Game.robs)"),
    ("show_multiplier", (3,), "one-hot of the show multiplier 1, 2, 4"),
    ("doubles", (3, 4), "each seat's (relative) doubling factor, one-hot of: not "
                        "chosen yet, 1, 2, 4"),
    ("redeals", (1,), "redeals of the deal so far (Game.redeals)"),
)


def _observation_layout():
    layout = {}
    offset = 0
    for name, shape, text in _OBS_BLOCKS:
        size = 1
        for d in shape:
            size *= d
        layout[name] = ObservationBlock(offset, size, shape, text)
        offset += size
    return MappingProxyType(layout), offset


#: The parts of an observation tensor, in order: name -> ObservationBlock
#: (offset, size, shape, description).
OBSERVATION_LAYOUT, OBSERVATION_SIZE = _observation_layout()
#: The dtype of an observation tensor.
OBSERVATION_DTYPE = np.dtype(np.float32)

cdef int O_SEAT = OBSERVATION_LAYOUT["seat"].offset
cdef int O_PHASE = OBSERVATION_LAYOUT["phase"].offset
cdef int O_TO_MOVE = OBSERVATION_LAYOUT["to_move"].offset
cdef int O_HAND = OBSERVATION_LAYOUT["hand"].offset
cdef int O_UNSEEN = OBSERVATION_LAYOUT["unseen"].offset
cdef int O_PLAYED = OBSERVATION_LAYOUT["played"].offset
cdef int O_LEFT = OBSERVATION_LAYOUT["cards_left"].offset
cdef int O_LANDLORD = OBSERVATION_LAYOUT["landlord"].offset
cdef int O_BIDS = OBSERVATION_LAYOUT["bids"].offset
cdef int O_BASE = OBSERVATION_LAYOUT["base"].offset
cdef int O_KITTY = OBSERVATION_LAYOUT["kitty"].offset
cdef int O_KITTY_SHOWN = OBSERVATION_LAYOUT["kitty_shown"].offset
cdef int O_LAST = OBSERVATION_LAYOUT["last_move"].offset
cdef int O_LAST_SEAT = OBSERVATION_LAYOUT["last_seat"].offset
cdef int O_BOMBS = OBSERVATION_LAYOUT["bombs"].offset
cdef int O_MULT = OBSERVATION_LAYOUT["multiplier"].offset
cdef int O_HISTORY = OBSERVATION_LAYOUT["history"].offset
cdef int O_WILD_RANK = OBSERVATION_LAYOUT["wild_rank"].offset
cdef int O_DEAL_PHASE = OBSERVATION_LAYOUT["deal_phase"].offset
cdef int O_SHOWN = OBSERVATION_LAYOUT["shown"].offset
cdef int O_SHOWN_HANDS = OBSERVATION_LAYOUT["shown_hands"].offset
cdef int O_CALLS = OBSERVATION_LAYOUT["calls"].offset
cdef int O_ROBBED = OBSERVATION_LAYOUT["robbed"].offset
cdef int O_ROBS = OBSERVATION_LAYOUT["robs"].offset
cdef int O_SHOW_MULT = OBSERVATION_LAYOUT["show_multiplier"].offset
cdef int O_DOUBLES = OBSERVATION_LAYOUT["doubles"].offset
cdef int O_REDEALS = OBSERVATION_LAYOUT["redeals"].offset
cdef int O_SIZE = OBSERVATION_SIZE
cdef int O_HISTORY_MOVES = HISTORY_MOVES


cdef extern from *:
    """
    /* The card encoding's four planes of 15 (plane j, column i: 1.0 when
       more than j cards of index i), every entry stored, without a branch
       on the cards: visiting only the indices held mispredicted at the end
       of every set and of every count, the most of an observation's cost.
       Plane j goes out as 16 floats from o[15 j]; the 16th (the W nibble's)
       lands on the next plane's first, which that plane then stores, or on
       o[60], which the caller stores after. */
    #include <stdint.h>
    #if (defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2)) \
        && !defined(DDZFAST_PLAIN_C)
    #include <emmintrin.h>
    static inline void ddz_obs_planes(float* o, uint64_t cards) {
        __m128i w = _mm_loadl_epi64((const __m128i*)&cards);
        __m128i m = _mm_set1_epi8(0x0F);
        __m128i nib = _mm_unpacklo_epi8(_mm_and_si128(w, m),
                                        _mm_and_si128(_mm_srli_epi16(w, 4), m));
        __m128i z = _mm_setzero_si128();
        __m128i lo = _mm_unpacklo_epi8(nib, z), hi = _mm_unpackhi_epi8(nib, z);
        __m128i n[4];
        __m128i one = _mm_castps_si128(_mm_set1_ps(1.0f));
        int j, k;
        n[0] = _mm_unpacklo_epi16(lo, z);
        n[1] = _mm_unpackhi_epi16(lo, z);
        n[2] = _mm_unpacklo_epi16(hi, z);
        n[3] = _mm_unpackhi_epi16(hi, z);
        for (j = 0; j < 4; j++) {
            __m128i t = _mm_set1_epi32(j);
            for (k = 0; k < 4; k++)
                _mm_storeu_ps(o + 15 * j + 4 * k,
                              _mm_castsi128_ps(_mm_and_si128(_mm_cmpgt_epi32(n[k], t), one)));
        }
    }
    #else
    static inline void ddz_obs_planes(float* o, uint64_t cards) {
        int32_t nib[16];
        int i, j;
        for (i = 0; i < 16; i++)
            nib[i] = (int32_t)((cards >> (4 * i)) & 0xF);
        for (j = 0; j < 4; j++)
            for (i = 0; i < 16; i++)
                o[15 * j + i] = (float)(nib[i] > j);
    }
    #endif
    """
    void ddz_obs_planes(float* o, uint64_t cards) noexcept nogil


cdef inline void _obs_cards(float* o, uint64_t cards) noexcept nogil:
    ddz_obs_planes(o, cards)
    o[60] = <float>_nib(cards, IDX_W)


# Blocks that count rather than flag, with no small bound in every rule set
_UNBOUNDED_BLOCKS = ("bombs", "multiplier")
# The most laizi that stand for one rank in a move (tiandi's SOFT_BOMB of
# twelve: four natural cards and eight laizi)
_MAX_SUBSTITUTES = 8


def _observation_high():
    # 1 for the one-hots and card planes (a hand holds one W at most), the
    # substitute counts of each move encoding, float32's largest for counts
    high = np.ones(OBSERVATION_SIZE, dtype=np.float32)
    for name in _UNBOUNDED_BLOCKS:
        b = OBSERVATION_LAYOUT[name]
        high[b.offset:b.offset + b.size] = np.finfo(np.float32).max
    starts = [OBSERVATION_LAYOUT["last_move"].offset]
    h = OBSERVATION_LAYOUT["history"]
    starts += [h.offset + i * h.shape[1] for i in range(h.shape[0])]
    for s in starts:
        high[s + OBS_CARDS:s + OBS_CARDS + OBS_RANKS] = _MAX_SUBSTITUTES
    # two seats rob once each and the caller once more; redeals stop at
    # DDZ_MAX_REDEALS
    high[OBSERVATION_LAYOUT["robs"].offset] = 3
    high[OBSERVATION_LAYOUT["redeals"].offset] = DDZ_MAX_REDEALS
    return read_only(high)


#: The largest value of each entry of an observation tensor (read-only
#: float32 of OBSERVATION_SIZE): the upper bounds of an observation space.
OBSERVATION_HIGH = _observation_high()


cdef inline void _obs_move(float* o, const ddz_move* m) noexcept nogil:
    cdef uint64_t subs
    cdef int i
    _obs_cards(o, m.cards)
    if m.wild != WILD_NONE and m.wild <= WILD_KICKER:
        o[OBS_CARDS + m.wild] = 1.0
    if m.substitutes:
        subs = _substitute_bits(m.substitutes)
        for i in range(OBS_RANKS):
            o[OBS_CARDS + i] = <float>_nib(subs, i)
    if m.kind < NKINDS:
        o[OBS_CARDS + 16 + m.kind] = 1.0


cdef inline int _rel(int s, int seat) noexcept nogil:
    return (s - seat + 3) % 3


def _deck_words():
    from ddzfast.constants import CARD_LIMITS
    base = sum(CARD_LIMITS[i] << (4 * i) for i in range(IDX_W))
    return base, CARD_LIMITS[IDX_W] << (4 * IDX_W)


# the deck without W and the W part, packed (as _full_deck, for C callers)
cdef uint64_t _DECK_BASE, _DECK_W
_DECK_BASE, _DECK_W = _deck_words()


cdef inline uint64_t _deck_of(const ddz_rules* rules) noexcept nogil:
    return _DECK_BASE + (_DECK_W if rules.has_wild else 0)


cdef void ddz_obs_record_clear(ddz_obs_record* r) noexcept nogil:
    r.played[0] = r.played[1] = r.played[2] = 0
    r.bids[0] = r.bids[1] = r.bids[2] = -1
    r.plays = 0


cdef void ddz_obs_record_bid(ddz_obs_record* r, int seat, int bid) noexcept nogil:
    r.bids[seat] = bid


cdef void ddz_obs_record_play(ddz_obs_record* r, int seat, const ddz_move* m) noexcept nogil:
    cdef int k = <int>(r.plays % DDZ_HISTORY_MOVES)
    r.played[seat] += m.cards
    r.recent[k] = m[0]
    r.recent_seat[k] = seat
    r.plays += 1


cdef void ddz_fill_observation(const ddz_game* g, const ddz_rules* rules,
                               const ddz_obs_record* r, int seat, float* o) noexcept nogil:
    """Write the observation tensor of `seat` into o[0:O_SIZE] from the deal
    `g` and its record `r`: the one writer, for Game and for VectorEnv."""
    cdef uint64_t deck, unseen
    cdef int s, i, k, left, n, slot
    memset(o, 0, O_SIZE * sizeof(float))
    deck = _deck_of(rules)
    o[O_SEAT + seat] = 1.0
    if g.phase <= PHASE_DONE:
        o[O_PHASE + g.phase] = 1.0
    if g.phase != PHASE_DONE:
        o[O_TO_MOVE + _rel(g.to_move, seat)] = 1.0
    _obs_cards(o + O_HAND, g.hands[seat])
    # per nibble: hand and plays are disjoint parts of the deck (the Game
    # keeps it so), so no nibble of the difference goes below zero
    unseen = deck - g.hands[seat] - r.played[0] - r.played[1] - r.played[2]
    _obs_cards(o + O_UNSEEN, unseen)
    for s in range(3):
        k = _rel(s, seat)
        _obs_cards(o + O_PLAYED + k * OBS_CARDS, r.played[s])
        left = _hand_size(g.hands[s])
        o[O_LEFT + k * OBS_LEFT + (left if left < OBS_LEFT else OBS_LEFT - 1)] = 1.0
        # one-hot of: not yet, pass, 1, 2, 3
        o[O_BIDS + k * 5 + 1 + r.bids[s]] = 1.0
    if g.landlord >= 0:
        o[O_LANDLORD + _rel(g.landlord, seat)] = 1.0
        _obs_cards(o + O_KITTY, g.kitty)
        o[O_KITTY_SHOWN] = 1.0
    # (rob bidding's base, rob_base, may pass 3: the last entry stands for 3
    # or more, so that every base has one)
    if g.base >= 0:
        o[O_BASE + (g.base if g.base < 3 else 3)] = 1.0
    if g.has_last:
        _obs_move(o + O_LAST, &g.last)
        o[O_LAST_SEAT + _rel(g.last_seat, seat)] = 1.0
    o[O_BOMBS] = <float>g.nbombs
    o[O_MULT] = <float>log2(<double>g.mult) if g.mult > 0 else 0.0
    n = <int>(r.plays if r.plays < O_HISTORY_MOVES else O_HISTORY_MOVES)
    for i in range(n):
        slot = <int>((r.plays - 1 - i) % DDZ_HISTORY_MOVES)
        _obs_move(o + O_HISTORY + i * OBS_SLOT, &r.recent[slot])
        o[O_HISTORY + i * OBS_SLOT + OBS_MOVE + _rel(r.recent_seat[slot], seat)] = 1.0
    # (tiandi: both wild ranks, the ground rank once it is drawn)
    for i in range(13):
        if (rules.wild_mask >> i) & 1:
            o[O_WILD_RANK + i] = 1.0
    _obs_platform(g, seat, o)


cdef inline int _show_index(int factor) noexcept nogil:
    return 0 if factor <= 1 else (1 if factor == 2 else 2)


cdef void _obs_platform(const ddz_game* g, int seat, float* o) noexcept nogil:
    # the blocks of RULES.md 10's decisions (see _OBS_BLOCKS)
    cdef int s, k, d
    o[O_DEAL_PHASE + g.phase] = 1.0
    for s in range(3):
        k = _rel(s, seat)
        if g.shown[s]:
            o[O_SHOWN + k] = 1.0
            _obs_cards(o + O_SHOWN_HANDS + k * OBS_CARDS, g.hands[s])
        o[O_CALLS + k * 3 + 1 + g.called[s]] = 1.0
        o[O_ROBBED + k * 3 + 1 + g.robbed[s]] = 1.0
        d = g.doubles[s]
        o[O_DOUBLES + k * 4 + (0 if d == 0 else 1 + _show_index(d))] = 1.0
    o[O_ROBS] = <float>g.robs
    o[O_SHOW_MULT + _show_index(g.show_mult)] = 1.0
    o[O_REDEALS] = <float>g.redeals


cdef int _fill_observation(Game game, int seat, float* o) except -1:
    """Write the observation tensor of `seat` in `game` into o[0:O_SIZE]: its
    record (plays and bids) read from the Game's lists, then
    ddz_fill_observation."""
    cdef ddz_obs_record r
    cdef list history = game._history
    cdef Py_ssize_t h, nh = len(history), first
    cdef tuple item
    cdef Move mv
    cdef int s, b
    ddz_obs_record_clear(&r)
    first = nh - O_HISTORY_MOVES if nh > O_HISTORY_MOVES else 0
    for h in range(first):
        item = <tuple>history[h]
        r.played[<int>item[0]] += (<Move>item[1]).m.cards
    r.plays = first          # play h goes to ring slot h % DDZ_HISTORY_MOVES
    for h in range(first, nh):
        item = <tuple>history[h]
        mv = <Move>item[1]
        ddz_obs_record_play(&r, <int>item[0], &mv.m)
    if not game.g.opt_rob:          # rob bidding has its calls and robbed blocks
        for s, b in game.bids:
            ddz_obs_record_bid(&r, s, b)
    ddz_fill_observation(&game.g, &game._rules.c, &r, seat, o)
    return 0


cdef cnp.ndarray _obs_out(object out, tuple shape):
    # `out` checked (float32, this shape, C-contiguous, writable) or a new array
    cdef cnp.ndarray a
    if out is None:
        return np.empty(shape, dtype=np.float32)
    if not isinstance(out, cnp.ndarray):
        raise TypeError(f"out must be a numpy array, not {type(out).__name__}")
    a = <cnp.ndarray>out
    if cnp.PyArray_TYPE(a) != cnp.NPY_FLOAT32 or not cnp.PyArray_ISNOTSWAPPED(a):
        # (the type number does not tell the byte order)
        raise TypeError(f"out must have dtype float32 in the machine's byte order, "
                        f"not {a.dtype}")
    if (<object>a).shape != shape:
        raise ValueError(f"out has shape {(<object>a).shape}, not {shape}")
    if not cnp.PyArray_IS_C_CONTIGUOUS(a) or not cnp.PyArray_ISWRITEABLE(a) \
            or not cnp.PyArray_ISALIGNED(a):
        raise ValueError("out must be writable, aligned and C-contiguous")
    return a


cdef int _observer(Game game, object seat) except -1:
    if seat is None:
        if game.g.phase == PHASE_DONE:
            raise ValueError("the deal is over: no seat is to move; name the seat")
        return game.g.to_move
    return _seat_arg(seat, "seat")


def _observation_tensor(Game game, seat=None, out=None):
    """Game.observation_tensor: see its docstring."""
    cdef int s = _observer(game, seat)
    cdef cnp.ndarray a = _obs_out(out, (O_SIZE,))
    _fill_observation(game, s, <float*>cnp.PyArray_DATA(a))
    return a


def observation_tensors(games, seats=None, out=None) -> cnp.ndarray:
    """The observation tensors of many games (or of many seats of one game:
    repeat it in ``games``) in one (N, OBSERVATION_SIZE) float32 array, row i
    that of ``seats[i]`` in ``games[i]``, exactly as
    ``Game.observation_tensor`` gives it. ``seats``: None (each game's seat to
    move), one seat for every game, or a sequence of N seats. ``out``: None
    or a writable, C-contiguous float32 array of that shape, filled and
    returned (Ctrl-C stops a long batch with KeyboardInterrupt: ``out`` then
    holds the rows filled so far; a bad game or seat writes no row)."""
    cdef list gs
    cdef Py_ssize_t n, i
    if isinstance(games, Game):
        raise TypeError("games is a sequence of Games, one per row: for many seats of "
                        "one game repeat it ([game] * 3, seats=[0, 1, 2])")
    check_ordered(games, "games")
    gs = list(games)
    n = len(gs)
    cdef cnp.ndarray a
    cdef float* base
    cdef Game game
    cdef int s
    for i in range(n):
        if not isinstance(gs[i], Game):
            raise TypeError(f"games[{i}] is a {type(gs[i]).__name__}, not a Game")
    if isinstance(seats, np.ndarray) and seats.ndim == 0:
        seats = seats[()]         # a 0-d array is its one value
    if seats is None or isinstance(seats, numbers.Integral):
        seat_list = [seats] * n
    elif isinstance(seats, (str, bytes)) or not isinstance(seats, collections.abc.Iterable):
        raise TypeError(f"seats is None, a seat or a sequence of seats, not "
                        f"{type(seats).__name__}")
    else:
        check_ordered(seats, "seats")
        seat_list = list(seats)
        if len(seat_list) != n:
            raise ValueError(f"{len(seat_list)} seats for {n} games")
    a = _obs_out(out, (n, O_SIZE))
    # every row's seat checked before any row is written: a bad one leaves
    # `out` as it was
    observers = [0] * n
    for i in range(n):
        try:
            observers[i] = _observer(<Game>gs[i], seat_list[i])
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"games[{i}]: {exc}") from None
    base = <float*>cnp.PyArray_DATA(a)
    for i in range(n):
        game = <Game>gs[i]
        s = observers[i]
        _fill_observation(game, s, base + i * O_SIZE)
        if (i & 255) == 255:
            PyErr_CheckSignals()     # Ctrl-C in a long batch (rows so far filled)
    return a
