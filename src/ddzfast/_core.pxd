# The C-level interface of ddzfast: plain structs and `noexcept nogil`
# functions over packed hands and caller-supplied buffers. Other Cython
# modules (and Numba, through __pyx_capi__) call these directly.
#
# A hand (or the cards of a move) is a uint64: nibble i holds the count of
# card index i (0 = '3' ... 12 = '2', 13 = X, 14 = D), nibble 15 the count of
# the wildcard W.

from libc.stdint cimport uint8_t, int8_t, int16_t, uint16_t, int32_t, uint32_t, uint64_t, int64_t

cdef enum:
    # Move kinds, in the order of RULES.md section 3 (MoveKind mirrors these).
    K_PASS = 0
    K_SINGLE = 1
    K_PAIR = 2
    K_TRIPLE = 3
    K_TRIPLE_SINGLE = 4
    K_TRIPLE_PAIR = 5
    K_STRAIGHT = 6
    K_PAIR_STRAIGHT = 7
    K_PLANE = 8
    K_PLANE_SINGLES = 9
    K_PLANE_PAIRS = 10
    K_FOUR_SINGLES = 11
    K_FOUR_PAIRS = 12
    K_BOMB = 13
    K_ROCKET = 14
    K_WILD_ROCKET = 15
    K_HEAVEN_ROCKET = 16
    K_HEAVEN_BOMB = 17
    K_SUPER_BOMB = 18
    K_SOFT_BOMB = 19        # laizi (RULES.md section 8): 1..3 natural + laizi
    K_LAIZI_BOMB = 20       # laizi: the four laizi
    NKINDS = 21

cdef enum:
    IDX_X = 13
    IDX_D = 14
    IDX_W = 15
    WILD_KICKER = 15    # `wild` of a move whose W is a kicker or plays as itself
    WILD_NONE = 255     # `wild` of a move without W

# One move; its layout is MOVE_DTYPE (16 bytes, aligned). `reserved` names
# the 4 bytes the alignment of `cards` would otherwise leave as padding: every
# writer of a ddz_move sets it, so the 16 bytes of a move are a function of
# the move alone (stable .tobytes() and hashes of move arrays). It is 0 except
# in laizi moves, where it records what the laizi of the main part stand for
# (MOVE_DTYPE's `substitutes`; see ddz_substitutes).
ctypedef struct ddz_move:
    uint64_t cards
    uint8_t kind
    uint8_t rank
    uint8_t length
    uint8_t wild
    uint32_t reserved

# A rule set, as data (see ddzfast/rulesets.py for the readable description).
ctypedef struct ddz_rules:
    uint8_t has_wild            # the deck holds one W
    uint8_t allowed[NKINDS]     # kind exists in this rule set
    uint8_t tier[NKINDS]        # 0 = plain; a higher tier beats a lower one
    uint8_t ranked[NKINDS]      # same-tier moves of this kind compare by rank
    uint8_t wild_joker_kind     # kind of X+W and D+W (ROCKET, WILD_ROCKET) or 0
    uint8_t wild_joker_stands   # 1: in X+W, W stands for the other joker
    uint8_t xdw_kind            # kind of X+D+W (HEAVEN_ROCKET) or 0
    uint8_t four_wild_kind      # kind of a natural four + W or 0
    uint8_t wild_max_rank       # highest card index W stands for in a main part
    # the deal and its score (RULES.md sections 5 and 6)
    uint8_t kitty               # cards in the kitty
    uint8_t mult[NKINDS]        # factor on the multiplier per kind played (0: x1)
    int64_t mult_cap            # cap on the deal's multiplier (0: none)
    double service_fee          # share of each winner's gain taken as a fee
    double deal_cap             # cap on what one seat wins or loses (0: none)
    # laizi (RULES.md section 8): wild ranks drawn per deal
    uint8_t laizi               # a laizi rule set: moves need a wild rank
    uint16_t wild_mask          # bit j: the cards of rank j are laizi (0: none yet)
    # derived from the above (Rules): the allowed kinds with a bomb tier, in
    # kind order, which a follow walks besides the last move's own kind
    uint8_t ntiered
    uint8_t tiered[NKINDS]

# Generate the legal moves of `hand` into out[0:cap]. `last` is NULL when
# leading, else the last non-pass move (assumed legal: see ddz_check). Returns
# the number of legal moves, which may exceed `cap`: then only the first `cap`
# were written and the caller must retry with a larger buffer.
cdef int64_t ddz_legal_moves(const ddz_rules* rules, uint64_t hand,
                             const ddz_move* last, ddz_move* out,
                             int64_t cap) noexcept nogil

# Move k of ddz_legal_moves(rules, hand, last) into out[k], out holding k + 1
# moves (out[0:k] is scratch); 0, or -1 when there are k or fewer. In a hand
# holding laizi it counts, rather than lists, the moves before k where it can
# and stops at k: what the random policy draws from.
cdef int ddz_legal_move_at(const ddz_rules* rules, uint64_t hand,
                           const ddz_move* last, int64_t k,
                           ddz_move* out) noexcept nogil

# Every reading of exactly `cards` as one move, into out[0:cap]; returns the
# count (at most one per kind and rank, NKINDS * 15 in all). It runs the
# generator over `cards` itself, kind by kind, and keeps the moves that use
# all of them, so it agrees with ddz_legal_moves by construction.
cdef int64_t ddz_classify(const ddz_rules* rules, uint64_t cards,
                          ddz_move* out, int64_t cap) noexcept nogil

# The `wild` value of the move (kind, rank, length, cards) when it is a legal
# move of the rule set, else -1. Like ddz_classify, it runs the generator
# (for this kind, rank and length) over `cards` itself: one source of truth.
cdef int ddz_check(const ddz_rules* rules, int kind, int rank, int length,
                   uint64_t cards) noexcept nogil

# What the laizi of the move (kind, rank, length, cards) stand for in its
# main part, as MOVE_DTYPE's `substitutes` (0 outside laizi rule sets): two
# bits per rank 3..2 (bits 2j, 2j+1: how many laizi stand for rank j, 0..3)
# and, when four laizi stand for one rank (the four of FOUR_SINGLES or
# FOUR_PAIRS), that rank + 1 in bits 26..29. Laizi standing for their own rank
# and laizi kickers are not recorded. The move is assumed legal (ddz_check).
cdef uint32_t ddz_substitutes(const ddz_rules* rules, int kind, int rank, int length,
                              uint64_t cards) noexcept nogil

# 1 when `move` beats `last` (a non-pass move), else 0.
cdef int ddz_beats(const ddz_rules* rules, const ddz_move* move,
                   const ddz_move* last) noexcept nogil

# 1 when every nibble of `hand` fits the deck of the rule set.
cdef int ddz_hand_valid(const ddz_rules* rules, uint64_t hand) noexcept nogil

# 1 when the multiset `part` is contained in `hand`.
cdef int ddz_contains(uint64_t hand, uint64_t part) noexcept nogil

# Number of cards in a packed hand.
cdef int ddz_size(uint64_t hand) noexcept nogil


# ---- the deal engine (_engine.pxi; RULES.md sections 5 and 6) -------------

cdef enum:
    PHASE_BIDDING = 0
    PHASE_PLAY = 1
    PHASE_DONE = 2
    POLICY_RANDOM = 0
    POLICY_GREEDY = 1
    GAME_BUFFER = 4096     # legal moves of a hand of at most 21 cards fit

# Status codes of ddz_simulate (and DDZ_ERR_NO_MOVE of ddz_policy_move).
cdef enum:
    DDZ_OK = 0
    DDZ_ERR_NOMEM = -1      # a buffer could not be allocated
    DDZ_ERR_NO_MOVE = -2    # a policy found no legal move (or its buffer was too small)
    DDZ_ERR_ILLEGAL = -3    # the engine refused a move a policy chose

# One deal in progress.
ctypedef struct ddz_game:
    uint64_t hands[3]
    uint64_t kitty
    uint64_t rng            # splitmix64 state: dealing and built-in policies
    uint64_t seed
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
    uint16_t wild_mask      # laizi: the deal's wild rank (RULES.md 8), else 0

# The result of one deal; its layout is DEAL_DTYPE (56 bytes, aligned). The
# trailing 5 bytes of alignment padding are zeroed by ddz_game_score.
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
    int8_t wild_rank        # laizi: the deal's wild rank (card index), else -1

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

# The index k of the built-in policy's choice among the legal moves of seat
# to_move, that move in buf[k] (greedy fills buf with them all; random,
# leading a hand that holds laizi, only buf[k]), or DDZ_ERR_NO_MOVE when
# there is none or buf holds fewer moves than the position has.
cdef int64_t ddz_policy_move(ddz_game* g, const ddz_rules* rules, int policy,
                             ddz_move* buf, int64_t cap) noexcept nogil

# Deals start..stop of a run seeded `seed` (row i - start gets deal i), every
# seat played by a built-in policy. Returns DDZ_OK or a DDZ_ERR_ code.
cdef int ddz_simulate(const ddz_rules* rules, const int* policies, uint64_t seed,
                      int64_t start, int64_t stop, int bidding,
                      ddz_deal_row* rows) noexcept nogil


# ---- action indices (_actions.pxi) -------------------------------------------

cdef enum:
    DDZ_ERR_NO_ACTION = -4  # a legal move that is no action of the table

# The lookup of one rule set's action table: the actions in index order (as
# ddzfast.features.action_moves lists them) and an open-addressing hash of
# their identities (kind, rank, length, cards), at most a quarter full.
ctypedef struct ddz_actions:
    const ddz_move* moves   # moves[i] is action i
    const int32_t* slots    # 2**(64 - shift) slots: an action index, or -1
    int64_t count           # the number of actions
    uint64_t slot_mask
    int shift

# The action index of the identity of `m` (its wild is not read), or -1.
cdef int64_t ddz_action_index(const ddz_actions* t, const ddz_move* m) noexcept nogil

# The number of actions of the table.
cdef int64_t ddz_action_count(const ddz_actions* t) noexcept nogil

# The action indices of the legal moves of `hand` after `last` (NULL:
# leading), in generation order, into out[0:cap]; returns how many there are
# (it may exceed cap: then only cap were written), or DDZ_ERR_NO_ACTION /
# DDZ_ERR_NOMEM.
cdef int64_t ddz_legal_action_indices(const ddz_rules* rules, const ddz_actions* t,
                                      uint64_t hand, const ddz_move* last,
                                      int32_t* out, int64_t cap) noexcept nogil

# Write the legal-action mask (t.count bytes, 1 at each legal move's index,
# else 0) into `mask`; returns the number of legal moves, or an error code as
# above (the mask is then unspecified).
cdef int64_t ddz_legal_action_mask(const ddz_rules* rules, const ddz_actions* t,
                                   uint64_t hand, const ddz_move* last,
                                   uint8_t* mask) noexcept nogil
