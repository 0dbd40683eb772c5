# The C-level interface of ddzfast: plain structs and `noexcept nogil`
# functions over packed hands and caller-supplied buffers. Other Cython
# modules (and Numba, through __pyx_capi__) call these directly.
#
# A hand (or the cards of a move) is a uint64: nibble i holds the count of
# card index i (0 = '3' ... 12 = '2', 13 = X, 14 = D), nibble 15 the count of
# the wildcard W.

from libc.stdint cimport uint8_t, int8_t, int16_t, uint16_t, int32_t, uint32_t, uint64_t, int64_t
cimport numpy as cnp

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

# Status codes of the C functions that can fail (ddz_simulate, the action
# lookups, ddz_policy_move): 0 or a negative DDZ_ERR_ code.
cdef enum:
    DDZ_OK = 0
    DDZ_ERR_NOMEM = -1      # a buffer could not be allocated
    DDZ_ERR_NO_MOVE = -2    # a policy found no legal move (or its buffer was too small)
    DDZ_ERR_ILLEGAL = -3    # the engine refused a move a policy chose
    DDZ_ERR_NO_ACTION = -4  # a legal move that is no action of the table

cdef enum:
    # Moves a buffer of the core holds before it must grow or go to the heap
    # (the buffers on the C stack, the engine's first buffer): every hand a
    # deal gives fits in classic, biegang and super (docs: cards-and-moves).
    DDZ_MOVE_BUFFER = 4096

cdef enum:
    IDX_X = 13
    IDX_D = 14
    IDX_W = 15
    WILD_KICKER = 15    # `wild` of a move whose W is a kicker or plays as itself
    WILD_NONE = 255     # `wild` of a move without W

# One move; its layout is MOVE_DTYPE (16 bytes, aligned). `substitutes` fills
# the 4 bytes the alignment of `cards` would otherwise leave as padding: every
# writer of a ddz_move sets it, so the 16 bytes of a move are a function of
# the move alone (stable .tobytes() and hashes of move arrays). It is 0 except
# in laizi moves, where it records what the laizi of the main part stand for
# (see ddz_substitutes).
ctypedef struct ddz_move:
    uint64_t cards
    uint8_t kind
    uint8_t rank
    uint8_t length
    uint8_t wild
    uint32_t substitutes

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

# Bit helpers: compiler intrinsics where they exist, plain C elsewhere
# (DDZFAST_PLAIN_C forces the plain C versions, to test them).
cdef extern from *:
    """
    #if defined(_MSC_VER) && !defined(__clang__) && !defined(DDZFAST_PLAIN_C)
    #include <intrin.h>
    #endif
    /* Index of the lowest set bit of x, for x != 0. */
    static CYTHON_INLINE int ddz_ctz32(unsigned int x) {
    #if (defined(__GNUC__) || defined(__clang__)) && !defined(DDZFAST_PLAIN_C)
        return __builtin_ctz(x);
    #elif defined(_MSC_VER) && !defined(DDZFAST_PLAIN_C)
        unsigned long i;
        _BitScanForward(&i, (unsigned long)x);
        return (int)i;
    #else
        /* de Bruijn: isolate the lowest bit, multiply, look the index up */
        static const unsigned char index[32] = {
            0, 1, 28, 2, 29, 14, 24, 3, 30, 22, 20, 15, 25, 17, 4, 8,
            31, 27, 13, 23, 21, 19, 16, 7, 26, 12, 18, 6, 11, 5, 10, 9};
        return index[(((x & (0u - x)) * 0x077CB531u) & 0xFFFFFFFFu) >> 27];
    #endif
    }
    /* Number of set bits of x. Without the POPCNT instruction (not enabled
       by default: no -march), GCC's __builtin_popcount is a call into
       libgcc, slower than these few inline operations; MSVC's __popcnt
       would need that instruction too (it emits it unconditionally). */
    static CYTHON_INLINE int ddz_popcount32(unsigned int x) {
    #if (defined(__GNUC__) || defined(__clang__)) && defined(__POPCNT__) \
        && !defined(DDZFAST_PLAIN_C)
        return __builtin_popcount(x);
    #else
        x = x - ((x >> 1) & 0x55555555u);
        x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
        x = (x + (x >> 4)) & 0x0F0F0F0Fu;
        return (int)(((x * 0x01010101u) & 0xFFFFFFFFu) >> 24);
    #endif
    }
    """
    int _ctz "ddz_ctz32"(unsigned int) noexcept nogil
    int _popcount "ddz_popcount32"(unsigned int) noexcept nogil


# One W, X and D card, packed.
cdef extern from *:
    """
    #define DDZ_WBIT (((uint64_t)1) << 60)
    #define DDZ_XBIT (((uint64_t)1) << 52)
    #define DDZ_DBIT (((uint64_t)1) << 56)
    """
    const uint64_t WBIT "DDZ_WBIT"
    const uint64_t XBIT "DDZ_XBIT"
    const uint64_t DBIT "DDZ_DBIT"

# Reading packed hands, inline wherever they are cimported.

cdef inline int _nib(uint64_t h, int i) noexcept nogil:
    # the count of card index i
    return <int>((h >> (4 * i)) & 15)


cdef inline int _hand_size(uint64_t hand) noexcept nogil:
    cdef uint64_t m = 0x0F0F0F0F0F0F0F0FULL
    cdef uint64_t x = (hand & m) + ((hand >> 4) & m)
    return <int>((x * 0x0101010101010101ULL) >> 56)


cdef inline int _hand_contains(uint64_t hand, uint64_t part) noexcept nogil:
    # Every nibble of part at most hand's: the even and the odd nibbles
    # each in a byte lane, where 16 + h - p keeps bit 4 iff h >= p (and
    # never borrows from the next lane), whatever the nibbles hold.
    cdef uint64_t lanes = 0x0F0F0F0F0F0F0F0FULL
    cdef uint64_t carry = 0x1010101010101010ULL
    cdef uint64_t even = (((hand & lanes) | carry) - (part & lanes)) & carry
    cdef uint64_t odd = ((((hand >> 4) & lanes) | carry) - ((part >> 4) & lanes)) & carry
    return (even & odd) == carry


# The generator's state, declared here (not opaque) so that a draw
# (ddz_draw) lives on its caller's stack; only _generate*.pxi reads it.

ctypedef struct lz_mark:
    # Where the moves of one kind start in a laizi hand's list
    # (ddz_draw_count): the _lz_kind call that makes them, to make them again
    int n                # the moves before them
    int kind
    int rmin
    int rmax
    int nfix


cdef enum:
    LZ_MARKS = NKINDS   # one _lz_kind call per kind at most, leading or not


ctypedef struct gen_t:
    ddz_move* out
    int cap     # int, not int64: fewer registers in the hot loops
    int n
    uint64_t hand    # the hand (its counts are read with _nib)
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
    # the kicker pool: kicker_ranks distinct card indices (W included, as
    # IDX_W, when it is free), the hand's count of each, and for single
    # kickers the number of cards in pool[i:]
    int kicker_ranks
    int kicker_rank[16]
    int kicker_count[16]
    int kicker_cards_from[17]
    # laizi (RULES.md section 8; only read when lz >= 0): the wild rank, the
    # laizi the hand holds, one laizi card packed; the main part being
    # completed: its ranks (mask and count), the shape's q and kicker units
    int lz
    int lw
    uint64_t lunit
    unsigned int lmainmask
    int lnmain
    int lq
    int lkick_mode
    int lneed
    # per hand, set by _lz_tables when lready: lnat_q[q] packs min(count, q)
    # for each rank 3..2 but L (the natural cards a main rank takes); the
    # natural ranks (jokers included, L not), a card of each packed and the
    # hand's count
    int lready
    uint64_t lnat_q[5]
    unsigned int lh_mask
    unsigned int lpair_mask     # the ranks 3..2 but L holding two or more
    int lh_n
    int lh_below[16]    # how many of them are below rank r
    uint64_t lh_unit[16]
    int lh_count[16]
    # the natural kicker pool of those main ranks (_lz_pool): a card of each
    # rank packed, the hand's count, the cards in pool[i:]
    int lpool_n
    uint64_t lpool_unit[16]
    int lpool_count[16]
    int lpool_from[17]
    # the base main part and its moves, out[lbase:lbase + lbase_n], which
    # the variants copy (_lz_variant)
    uint64_t lbase_main
    int lbase
    int lbase_n
    uint64_t lmeta0      # the main part's meta word, substitutes 0
    # lsorted: the base's moves come by the number t of laizi among their
    # kickers, lbt[t] of them with t or fewer (so a variant's moves are a
    # prefix of them); else they are in no order (_lz_pairs)
    int lsorted
    int lbt[9]
    # A window on a laizi hand's move list (ddz_legal_move_at): main parts
    # whose moves all fall below `skip`, or at or past cap, are counted
    # (_lz_count_main, _lz_count_ranks), not listed; with `stop`, generation
    # ends once cap moves are made (the count is then not the total). skip
    # 0, stop 0: every move listed (ddz_legal_moves).
    int skip
    int stop
    int lkc[5]      # a main part's kicker choices with t = 0..4 laizi or
                    # fewer, the all-laizi choice left out (_lz_kick_counts)
    int lkall       # the laizi of the all-laizi choice (99: there is none)
    lz_mark* marks  # NULL, or where each kind's moves start (ddz_draw_count)
    int nmarks      # marks made (more than LZ_MARKS: they ran out)


ctypedef struct ddz_draw:
    # A move drawn by its index without listing the others (ddz_draw_count,
    # then ddz_draw_make): the random policy's draw.
    gen_t g
    const ddz_rules* rules
    uint64_t hand
    const ddz_move* last
    int counted          # the marks below are the hand's (it holds laizi)
    lz_mark marks[LZ_MARKS]

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

# The count of ddz_legal_moves(rules, hand, last), listing none; for a hand
# holding laizi, where each kind's moves start is kept in *d so that
# ddz_draw_make makes move k alone. `last` must outlive *d.
cdef int64_t ddz_draw_count(ddz_draw* d, const ddz_rules* rules, uint64_t hand,
                            const ddz_move* last) noexcept nogil

# Move k of the list ddz_draw_count counted into out[k] (out holds k + 1
# moves; out[0:k] is scratch); 0, or -1 when there are k or fewer.
cdef int ddz_draw_make(ddz_draw* d, int64_t k, ddz_move* out) noexcept nogil

# The moves of one kind of rank rmin..rmax (rmax <= 14; `length` 0: any
# chain length, else that one), as ddz_legal_moves makes them, appended to
# out[n:cap]; returns n plus their count (which may exceed cap: then only
# the first cap - n were written). Building blocks for another game's move
# rules (ddzfast._douzero).
cdef int64_t ddz_kind_moves(const ddz_rules* rules, uint64_t hand, int kind, int rmin,
                            int rmax, int length, ddz_move* out, int64_t cap,
                            int64_t n) noexcept nogil

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

# 1 when the multiset `part` is contained in `hand` (_hand_contains, for
# callers that cannot inline it: Numba).
cdef int ddz_contains(uint64_t hand, uint64_t part) noexcept nogil

# Number of cards in a packed hand (_hand_size, likewise).
cdef int ddz_size(uint64_t hand) noexcept nogil


# ---- action indices (_actions.pxi) -------------------------------------------


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


# ---- the Python values and the glue the wrappers of every module share ----
# (_values.pxi, _actions.pxi, _core.pyx). Attributes are declared here, once,
# so that ddzfast._engine, _solve and _douzero read them in C.

cdef class Rules:
    cdef ddz_rules c
    cdef readonly str name
    cdef readonly object description
    cdef readonly int64_t rules_id    # equal for rule sets the core cannot tell apart
    cdef bint _ready
    cdef _compile(self, dict d)

cdef class Hand:
    cdef readonly uint64_t bits
    cdef bint _ready     # made: __init__ may not run again (hands are hashed)

cdef class Move:
    cdef ddz_move m
    cdef int64_t wild_rules   # rules_id whose reading m.wild is (-1: none yet)

cdef class MoveList:
    cdef ddz_move* data
    cdef Py_ssize_t n
    cdef Rules rules

cdef class _ActionTable:
    cdef ddz_actions t
    cdef int32_t* slots
    cdef object moves
    cdef readonly int64_t count

# The Rules of a name or a Rules (ValueError, TypeError otherwise).
cdef Rules _get_rules(object rules)
# ValueError unless the rule set can generate (a laizi set needs its rank).
cdef int _need_wild(Rules r) except -1
# A laizi rank as a card index 0..12, from a card character or an index.
cdef int _wild_rank_index(object value) except -1
# Packed cards from a Hand, an int or card text, checked against the deck.
cdef uint64_t _to_bits(object value, Rules rules, str what) except? 0xFFFFFFFFFFFFFFFF
# total + more when together they fit the deck, else InvalidCardsError.
cdef uint64_t _add_within_deck(uint64_t total, uint64_t more, Rules r,
                               str what) except? 0xFFFFFFFFFFFFFFFF
# Canonical card text of packed cards; why they are no hand of the deck.
cdef str _cards_text(uint64_t bits)
cdef str _deck_problem(uint64_t bits, Rules rules)
# What ddz_substitutes' encoding stands for, as packed cards.
cdef uint64_t _substitute_bits(uint32_t subs) noexcept nogil
# Values from structs, and structs from values (checked legal in `rules`).
cdef Hand _hand(uint64_t bits)
cdef Move _move(const ddz_move* m, Rules rules)
cdef MoveList _move_list(const ddz_move* src, int64_t n, Rules rules)
cdef MoveList _legal_move_list(Rules r, uint64_t hand, const ddz_move* last)
cdef int _move_struct(object move, Rules rules, ddz_move* out, str what) except -1
cdef int _last_struct(object last, Rules rules, ddz_move* out) except -1
# The action table of a rule set, and the errors of the action functions.
cdef _ActionTable _actions_of(Rules r)
cdef int _raise_actions_error(int64_t code, Rules r, uint64_t hand) except -1
cdef int _check_out(cnp.ndarray out, int typenum_a, int typenum_b, int typenum_c,
                    str dtypes) except -1
