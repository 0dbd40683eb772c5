# The C-level interface of ddzfast._split: exact hand decomposition (the
# fewest leading moves whose cards partition a hand, 最少手数) as plain C
# without the GIL, over the generator of ddzfast._core (_core.pxd).

from libc.stdint cimport uint8_t, int16_t, int32_t, uint32_t, uint64_t, int64_t

from ddzfast._core cimport ddz_move, ddz_rules

cdef enum:
    DDZ_SPLIT_NONE = -1       # the hand cannot be emptied by moves (a lone W)
    DDZ_SPLIT_NOMEM = -2      # a buffer could not be allocated
    DDZ_SPLIT_TOO_BIG = -3    # the search passed its work limit (hands far
                              # beyond a deal's: see ddz_split_ctx.max_work),
                              # or the root has more moves than _split.pyx's
                              # MAX_ROOT_MOVES
    # the work limit of a context ddz_split_init makes (move tests a
    # query): every hand a deal gives is far within it
    DDZ_SPLIT_MAX_WORK = 200000000

# One distinct card set of a leading move: its cards, the move that plays
# them with the least reading (an index into ddz_split_ctx.moves), and its
# place among the sets of the same lowest card and size: that reading's
# kind << 24 | rank << 16 | length << 8 | the wildcards among the cards.
ctypedef struct ddz_split_set:
    uint64_t cards
    int32_t move
    uint32_t order

# The state of a decomposition: the distinct card sets of the leading moves
# of one hand, by lowest card, and a transposition table from sub-hands to
# their fewest plays. Made by ddz_split_init, reused by any number of calls
# (its buffers only grow), freed by ddz_split_free; one per thread.
ctypedef struct ddz_split_ctx:
    ddz_rules rules           # a copy of the rule set the root was prepared in
    uint64_t root             # the hand whose moves are prepared (0: none)
    ddz_move* moves           # the root's leading moves (generator output)
    int64_t moves_cap
    ddz_split_set* sets       # distinct card sets of those moves, grouped by
    int64_t sets_cap          # lowest card, largest first within a group,
                              # then by order and cards
    int32_t start[17]         # sets[start[c]:start[c + 1]]: lowest card c
    uint64_t* skeys           # the sets by their cards (open addressing, 0 =
    int32_t* sidx             # empty) to their moves: "is this part one
                              # move?" in one probe
    uint64_t smask            # slots in use - 1 (a power of two)
    uint64_t scap             # slots allocated
    uint64_t* keys            # the table: open addressing, key 0 = empty
    uint64_t* vals            # value << 33 | exact << 32 | best set's move + 1
                              # (the low 32 bits: any move index), the value exact
                              # or a lower bound
    uint64_t tmask            # slots in use - 1 (a power of two)
    uint64_t tcap             # slots allocated
    int64_t tused
    int64_t work              # containment tests made since the root was set
    int64_t max_work          # DDZ_SPLIT_TOO_BIG past this (0: no limit)

# Make an empty context (1) or fail for memory (0).
cdef int ddz_split_init(ddz_split_ctx* ctx) noexcept nogil
cdef void ddz_split_free(ddz_split_ctx* ctx) noexcept nogil

# The fewest plays of `hand` (0 for the empty hand), DDZ_SPLIT_NONE when it
# cannot be emptied, or DDZ_SPLIT_NOMEM / DDZ_SPLIT_TOO_BIG. The moves of the
# rule set `rules` (laizi: with its wild rank). Reuses what ctx holds when
# `hand` is within the hand it last prepared with the same rules.
cdef int ddz_min_plays(ddz_split_ctx* ctx, const ddz_rules* rules,
                       uint64_t hand) noexcept nogil

# After ddz_min_plays(ctx, rules, hand) returned k >= 0: one partition of
# `hand` into k moves, written to out[0:k].
cdef int ddz_split_moves(ddz_split_ctx* ctx, uint64_t hand,
                         ddz_move* out) noexcept nogil

# For each of moves[0:n] (cards within hand; PASS keeps the hand whole): the
# fewest plays of what the hand keeps after it into out[i] (DDZ_SPLIT_NONE
# where it cannot be emptied). Returns 0, or DDZ_SPLIT_NOMEM /
# DDZ_SPLIT_TOO_BIG, or -4 when a move's cards are not in the hand.
cdef int ddz_plays_left(ddz_split_ctx* ctx, const ddz_rules* rules, uint64_t hand,
                        const ddz_move* moves, int64_t n, int16_t* out) noexcept nogil

# ddz_min_plays with a context of its own (for callers without one: Numba).
cdef int ddz_min_plays_once(const ddz_rules* rules, uint64_t hand) noexcept nogil
