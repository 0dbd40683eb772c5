# The C-level interface of ddzfast: plain structs and `noexcept nogil`
# functions over packed hands and caller-supplied buffers. Other Cython
# modules (and Numba, through __pyx_capi__) call these directly.
#
# A hand (or the cards of a move) is a uint64: nibble i holds the count of
# card index i (0 = '3' ... 12 = '2', 13 = X, 14 = D), nibble 15 the count of
# the wildcard W.

from libc.stdint cimport uint8_t, int8_t, int16_t, uint64_t, int64_t

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
    NKINDS = 19

cdef enum:
    IDX_X = 13
    IDX_D = 14
    IDX_W = 15
    WILD_KICKER = 15    # `wild` of a move whose W is a kicker or plays as itself
    WILD_NONE = 255     # `wild` of a move without W

# One move; its layout is MOVE_DTYPE (16 bytes, aligned).
ctypedef struct ddz_move:
    uint64_t cards
    uint8_t kind
    uint8_t rank
    uint8_t length
    uint8_t wild

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

# Generate the legal moves of `hand` into out[0:cap]. `last` is NULL when
# leading, else the last non-pass move (assumed legal: see ddz_check). Returns
# the number of legal moves, which may exceed `cap`: then only the first `cap`
# were written and the caller must retry with a larger buffer.
cdef int64_t ddz_legal_moves(const ddz_rules* rules, uint64_t hand,
                             const ddz_move* last, ddz_move* out,
                             int64_t cap) noexcept nogil

# Every reading of exactly `cards` as one move, into out[0:cap]; returns the
# count (at most a few dozen: readings differ in kind, rank or length).
cdef int64_t ddz_classify(const ddz_rules* rules, uint64_t cards,
                          ddz_move* out, int64_t cap) noexcept nogil

# The `wild` value of the move (kind, rank, length, cards) when it is a legal
# move of the rule set, else -1.
cdef int ddz_check(const ddz_rules* rules, int kind, int rank, int length,
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
