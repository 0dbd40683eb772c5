# The C-level interface of ddzfast._engine, the deal engine (RULES.md
# sections 5 and 6): plain structs and `noexcept nogil` functions over one
# deal in progress. Other Cython modules cimport these; the moves, hands and
# rule sets they take are those of ddzfast._core (_core.pxd).

from libc.stdint cimport uint8_t, int8_t, int16_t, uint16_t, int32_t, uint32_t, uint64_t, int64_t

from ddzfast._core cimport ddz_getpid, ddz_move, ddz_rules
from ddzfast._split cimport ddz_split_ctx

cdef enum:
    DDZ_HISTORY_MOVES = 15  # plays of the recent history in an observation
                            # (HISTORY_MOVES in Python)
    PHASE_BIDDING = 0
    PHASE_PLAY = 1
    PHASE_DONE = 2
    PHASE_SHOW = 3            # platform play (RULES.md 10): showing before bidding
    PHASE_LANDLORD_SHOW = 4   # the landlord may show before its first play
    PHASE_DOUBLING = 5        # each seat chooses its factor
    DDZ_DEAL_CARDS = 17       # cards dealt to each seat (DEAL_CARDS in Python)
    DDZ_MAX_CHOICES = 4       # the most legal choices a decision has
    DDZ_MAX_REDEALS = 100     # redeals in a row before the first bidder must be landlord
    POLICY_RANDOM = 0
    POLICY_GREEDY = 1
    POLICY_EXPERT = 2

# One deal in progress.
ctypedef struct ddz_game:
    uint64_t hands[3]
    uint64_t kitty
    uint64_t rng            # splitmix64 state: dealing and built-in policies
    uint64_t seed           # the deal's: its cards when dealt, and redeal k's
                            # from ddz_deal_seed(seed, k) (a deal from given
                            # cards: its redeal seed)
    ddz_move last           # the last non-pass move, while has_last
    int64_t mult            # product of the factors of the moves played,
                            # saturated at INT64_MAX (never wraps)
    int phase
    int bidding
    int first_bidder
    int bids_made
    int bids[3]             # -1: not yet; 0: pass; 1..3
    int high_bid
    int high_bidder
    int landlord
    int base
    int to_move
    int has_last
    int last_seat
    int passes
    int winner_seat
    int moves_by[3]         # non-pass moves per seat
    int nmoves
    int nbombs
    uint16_t wild_mask      # laizi: the deal's wild rank (RULES.md 8), else 0;
                            # tiandi: its wild ranks drawn so far (RULES.md 9)
    uint8_t sky_rank        # tiandi: the sky rank (drawn first), else 255
    uint8_t ground_given    # tiandi: the ground rank the kitty brings, given
                            # (Game.from_deal's ground_rank), else 255: drawn
                            # then from the random stream
    uint64_t played[3]      # the cards each seat has played
    # platform play (RULES.md 10), copied from the rule set so that a
    # decision needs the deal alone
    uint8_t opt_rob
    uint8_t opt_no_call_first
    uint8_t opt_show
    uint8_t opt_doubling
    uint8_t deck_wild       # the deck holds W (for a redeal's shuffle)
    int rob_base
    # rob bidding: the call stage (stage 0), the others' robs (1), the
    # caller's last rob (2); leader: the seat that would be landlord now
    int rob_stage
    int calls_made
    int caller
    int leader
    int robs
    int8_t called[3]        # -1: not asked; 0: passed; 1: called
    int8_t robbed[3]        # -1: not asked; 0: declined; 1: robbed
    int8_t shown[3]         # 0: no; 1: before bidding; 2: the landlord before play
    int8_t doubles[3]       # 0: not chosen yet; else the factor 1, 2 or 4
    int show_mult           # the largest show factor chosen (1: none)
    int turns               # decisions made in the current show or doubling phase
    int redeals             # deals redealt because nobody called
    int position            # no-shuffle: the deal's position in its session
    int64_t session         # the session (simulate: its index; else -1)

# The result of one deal; its layout is DEAL_DTYPE (96 bytes, aligned). Its
# bytes of alignment padding are zeroed by ddz_game_score.
ctypedef struct ddz_deal_row:
    uint64_t seed
    double scores[3]
    int64_t multiplier
    int16_t moves
    int16_t bombs
    int8_t landlord
    int8_t base
    int8_t winner           # 0: the landlord's side won; 1: the farmers'
    int8_t spring
    int8_t anti_spring
    int8_t first_bidder
    int8_t wild_rank        # laizi: the deal's wild rank (card index), tiandi:
                            # its sky rank, else -1
    int8_t ground_rank      # tiandi: the deal's ground rank, else -1
    int8_t robs             # platform play (RULES.md 10): robs
    int8_t show             # the show multiplier, 1, 2 or 4
    uint8_t shown           # bit s: seat s showed its hand
    int8_t doubles[3]       # each seat's factor 1, 2 or 4
    uint8_t redeals
    int32_t position        # the deal's position in its session (0: shuffled)
    int64_t session         # its session (shuffled deals: the deal index)
    double stakes[3]        # each farmer's stake, the landlord's the sum

# The seed of deal `index` of a run seeded `seed`.
cdef uint64_t ddz_deal_seed(uint64_t seed, int64_t index) noexcept nogil

# Deal the cards of `seed`. With bidding, seat first_bidder (taken modulo 3,
# floored: always 0..2) bids first; without, seat 0 is the landlord, base 1.
# A laizi rule set without a wild rank draws one from the deal's stream after
# dealing (g.wild_mask); the engine functions below then need the rule set
# with that rank (ddz_rules_for_deal).
cdef void ddz_game_new(ddz_game* g, const ddz_rules* rules, uint64_t seed,
                       int first_bidder, int bidding) noexcept nogil

# The rule set of the deal: `rules` itself, or for a laizi rule set without a
# wild rank, a copy into *scratch with the deal's wild rank.
cdef const ddz_rules* ddz_rules_for_deal(const ddz_game* g, const ddz_rules* rules,
                                         ddz_rules* scratch) noexcept nogil

# Seat to_move bids `bid` (0: pass). 0, or -1 (state unchanged) when illegal.
cdef int ddz_game_bid(ddz_game* g, int bid) noexcept nogil

# The legal choices of the decision now (bids, calls and robs, shows,
# doubling factors, RULES.md 5 and 10) into out[0:DDZ_MAX_CHOICES],
# ascending; their number (0 in the play phase and when the deal is over).
cdef int ddz_game_choices(const ddz_game* g, int* out) noexcept nogil

# Seat to_move makes choice `c`. 0, or -1 (state unchanged) when illegal.
cdef int ddz_game_choose(ddz_game* g, int c) noexcept nogil

# Whether the deal is in one of its decision phases (not play, not done).
cdef int ddz_game_choosing(const ddz_game* g) noexcept nogil

# The next deal of a no-shuffle session (RULES.md 10) from the finished
# deal *prev: its pile is `order` (the cards played, in order, each move's
# ascending: n_order card indices), then the hands and the kitty as section
# 10 says, then transposed, cut and dealt with the stream of `seed`. 0, or
# -1 when `order` and prev's hands are not the whole deck.
cdef int ddz_game_next(ddz_game* g, const ddz_rules* rules, const ddz_game* prev,
                       const uint8_t* order, int n_order, uint64_t seed) noexcept nogil

# ddz_game_next in two steps: the pile of the finished deal *prev (into
# pile[0:deck]; its size, or -1), and a deal from a pile (0, or -1 when it
# is not the deck). See _deal.pxi.
cdef int ddz_next_pile(const ddz_game* prev, const uint8_t* order, int n_order,
                       int deck, uint8_t* pile) noexcept nogil
cdef int ddz_game_from_pile(ddz_game* g, const ddz_rules* rules, const uint8_t* pile,
                            int n, uint64_t seed, int first_bidder,
                            int bidding) noexcept nogil

# The card indices of `cards` ascending into out; how many.
cdef int ddz_cards_ascending(uint64_t cards, uint8_t* out) noexcept nogil

# The legal moves of seat to_move, as ddz_legal_moves (0 unless playing).
cdef int64_t ddz_game_legal_moves(const ddz_game* g, const ddz_rules* rules,
                                  ddz_move* out, int64_t cap) noexcept nogil

# Seat to_move plays `move`. 0, or -1 (state unchanged) when illegal.
cdef int ddz_game_play(ddz_game* g, const ddz_rules* rules,
                       const ddz_move* move) noexcept nogil

# The result of a finished deal into *row (every byte written).
cdef void ddz_game_score(const ddz_game* g, const ddz_rules* rules,
                         ddz_deal_row* row) noexcept nogil

# The bid of a built-in policy for seat to_move.
cdef int ddz_policy_bid(ddz_game* g, int policy) noexcept nogil

# The choice of a built-in policy for the decision now (ddz_game_choices).
cdef int ddz_policy_choice(ddz_game* g, int policy) noexcept nogil

# The index k of the built-in policy's choice among the legal moves of seat
# to_move, that move in buf[k] (greedy fills buf with them all; random,
# leading a hand that holds laizi, only buf[k]), or DDZ_ERR_NO_MOVE when
# there is none or buf holds fewer moves than the position has.
cdef int64_t ddz_policy_move(ddz_game* g, const ddz_rules* rules, int policy,
                             ddz_move* buf, int64_t cap) noexcept nogil

# Where a run of no-shuffle deals (RULES.md 10) left its session: the last
# deal played and the cards played in it, in order, so that a run going on
# from deal `next` deals that deal from them instead of replaying the
# session's earlier deals. next = -1: nothing to go on from.
ctypedef struct ddz_session_carry:
    ddz_game prev
    uint8_t order[56]
    int n_order
    int64_t next

# The `count` deals from deal `start` on of a run seeded `seed` (row j gets
# deal start + j), every seat played by a built-in policy. Returns DDZ_OK or
# a DDZ_ERR_ code.
cdef int ddz_simulate(const ddz_rules* rules, const int* policies, uint64_t seed,
                      int64_t start, int64_t count, int bidding,
                      ddz_deal_row* rows) noexcept nogil

# ddz_simulate going on from `carry` (NULL: none) when its `next` is `start`
# and the deal is not a session's first, and leaving the run's end in it.
# The carry must come from the same rules, policies, seed and bidding.
cdef int ddz_simulate_carry(const ddz_rules* rules, const int* policies, uint64_t seed,
                            int64_t start, int64_t count, int bidding,
                            ddz_deal_row* rows, ddz_session_carry* carry) noexcept nogil



# The built-in policy's move as ddz_policy_move, into a heap buffer *buf of
# *cap moves grown (realloc) when the position has more moves than fit; the
# index k of the move in (*buf)[k], or a DDZ_ERR_ code. `split`: the
# caller's split context for the expert policy (ddz_split_init, one per
# thread), or NULL (the expert then makes one per decision).
cdef int64_t ddz_policy_move_grow(ddz_game* g, const ddz_rules* rules, int policy,
                                  ddz_move** buf, int64_t* cap,
                                  ddz_split_ctx* split) noexcept nogil

# Seat to_move plays `move`, an entry of the rule set's action table or of
# its generator (its kind, rank, length and wild are the generator's own, so
# ddz_check is skipped; the hand and beat checks run). 0, or -1 (state
# unchanged) when it is not a legal move of that seat now.
cdef int ddz_game_play_generated(ddz_game* g, const ddz_rules* rules,
                                 const ddz_move* move) noexcept nogil

# What an observation tensor needs of a deal beyond its ddz_game: the cards
# each seat has played, the bids, and the last DDZ_HISTORY_MOVES plays (a
# ring: play n, 0-based, passes included, at n % DDZ_HISTORY_MOVES).
ctypedef struct ddz_obs_record:
    uint64_t played[3]
    int bids[3]             # -1: not yet; 0: pass; 1..3
    ddz_move recent[DDZ_HISTORY_MOVES]
    int recent_seat[DDZ_HISTORY_MOVES]
    int64_t plays

# An empty record (a new deal); a bid of `seat`; a play (or pass) of `seat`.
cdef void ddz_obs_record_clear(ddz_obs_record* r) noexcept nogil
cdef void ddz_obs_record_bid(ddz_obs_record* r, int seat, int bid) noexcept nogil
cdef void ddz_obs_record_play(ddz_obs_record* r, int seat, const ddz_move* m) noexcept nogil

# The observation tensor of `seat` (OBSERVATION_LAYOUT) into o[0:OBSERVATION_SIZE]:
# what Game.observation_tensor writes, from the C state alone. `rules` is
# the deal's rule set (its wild rank shown).
cdef void ddz_fill_observation(const ddz_game* g, const ddz_rules* rules,
                               const ddz_obs_record* r, int seat, float* o) noexcept nogil

# One call at a time on an object whose calls release the GIL over buffers
# it owns and may reallocate (VectorEnv, compat.douzero's VecEnv): a call
# from another thread while one runs would race on them, so it is refused.
# `busy` is 0, or the id of the process whose thread is in a call: a child
# of fork inherits the mark of a call that no thread of its own will end,
# over buffers left part way, so it is refused there for good, saying why.
# The mark is tested and set with the GIL held, so no two threads pass
# together; the caller clears it (to 0) in a `finally`. `what` names the
# object.
cdef inline int ddz_check_idle(long busy, str what) except -1:
    if busy:
        if busy != ddz_getpid():
            raise RuntimeError(f"this {what} was being reset or stepped by another "
                               f"thread when this process was forked from it: its rows "
                               f"are part way through that call here; make a new {what}")
        raise RuntimeError(f"this {what} is already being reset or stepped (from "
                           f"another thread): one call at a time")
    return 0

cdef inline int ddz_enter(long* busy, str what) except -1:
    ddz_check_idle(busy[0], what)
    busy[0] = ddz_getpid()
    return 0
