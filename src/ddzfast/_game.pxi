# Python wrappers of the deal engine (_deal.pxi), included into _engine.pyx:
# Game, the object bots drive, and the native simulation entry point.

import collections
import collections.abc
import numbers
import os

from ddzfast.constants import (check_ordered, check_threads, is_unordered, split_policies,
                               worker_count)

DEAL_DTYPE = np.dtype(
    [("seed", "=u8"), ("scores", "=f8", (3,)), ("multiplier", "=i8"),
     ("moves", "=i2"), ("bombs", "=i2"), ("landlord", "i1"), ("base", "i1"),
     ("winner", "i1"), ("spring", "?"), ("anti_spring", "?"),
     ("first_bidder", "i1"), ("wild_rank", "i1"), ("ground_rank", "i1"), ("robs", "i1"),
     ("show", "i1"), ("shown", "u1"), ("doubles", "i1", (3,)), ("redeals", "u1"),
     ("position", "=i4"), ("session", "=i8"), ("stakes", "=f8", (3,))],
    align=True,
)
if DEAL_DTYPE.itemsize != sizeof(ddz_deal_row):
    raise ImportError("DEAL_DTYPE does not match the core's deal row layout")

POLICIES = {"random": POLICY_RANDOM, "greedy": POLICY_GREEDY, "expert": POLICY_EXPERT}

# (module: where pickle finds the class; a namedtuple made in compiled code
# would name importlib's)
GameResult = collections.namedtuple(
    "GameResult",
    "winner winner_seat landlord base multiplier spring anti_spring scores stakes",
    module="ddzfast")
GameResult.__doc__ = """The result of a finished deal. ``winner`` is
"landlord" or "farmers"; ``scores`` the three seats' scores (RULES.md 6
and 10); ``multiplier`` the public multiplier (robs, show, the moves'
factors, spring) with the rule set's ``mult_cap``; ``stakes`` each
farmer's stake ``base * min(multiplier * d_f * d_L, cap)`` and the
landlord's, their sum (before ``service_fee`` and ``deal_cap``)."""

_ObservationBase = collections.namedtuple(
    "Observation",
    "seat phase hand cards_left played landlord base kitty to_move last_move "
    "last_seat bids history multiplier rules first_bidder wild_rank "
    "robs shown shown_hands doubles redeals bidding position_move",
    defaults=(None, None, None, 0, (None, None, None), (None, None, None),
              (1, 1, 1), 0, True, None))


class Observation(_ObservationBase):
    """What one seat sees: its own ``hand``, the number of cards every seat
    holds, the cards each seat has played, the kitty once it is shown, the
    bids and the play history; never the other hands unless shown.
    ``wild_rank``: laizi, the deal's wild rank (a card index, shown to all),
    else None; ``wild_ranks``: the wild ranks drawn so far, as
    ``Game.wild_ranks`` (tiandi's sky rank, then its ground rank). Platform
    play (RULES.md 10): ``robs``, ``shown`` and ``doubles`` as the Game has
    them, ``shown_hands`` the hands of the seats that showed (None for the
    others), ``redeals`` the deal's redeals so far (Game.redeals);
    ``bidding`` as ``Game.bidding`` (False: seat 0 takes the kitty after
    the shows, unbid). ``position_move``: a game of ``Game.from_position``
    with a ``last_move``, ``(last_seat, last_move)`` as given, on the table
    or not: a play before ``history`` (its cards in no hand and not in
    ``played``) that the multiplier and the springs count; else None."""

    __slots__ = ()

    @property
    def wild_ranks(self) -> tuple:
        """The deal's wild ranks drawn so far, as card indices (laizi its one
        rank; tiandi the sky rank, then the ground rank once drawn; () in the
        other rule sets): ``Game.wild_ranks`` when the seat looked."""
        return self.rules.wild_ranks

    def sample(self, rng=None, pool=None):
        """A Game consistent with this observation, the unseen cards dealt at
        random: what determinized (PIMC) search plays out.

        The observing seat keeps its hand; every move played, the bids, the
        trick, the multiplier and the cards left per seat are as observed.
        The kitty cards the landlord has not visibly played (per rank: kitty
        count minus the landlord's plays of that rank, at least 0) are never
        in a farmer's hand. In a deal the unseen cards fill the hidden hands
        exactly, so those kitty cards stay in the landlord's hand, and every
        other unseen card is dealt uniformly at random to the hidden hands
        (and, while bidding, the kitty), given their sizes. ``rng``: a
        ``numpy.random.Generator``, an int seed or None. The sampled game's
        ``seed`` is None.

        After ``Game.from_position`` the cards played before the position
        are unseen too (as in the observation tensor), so the hidden hands
        are dealt from more cards than they hold, and the rest are out of
        the sampled game; the landlord may have played kitty cards before
        the position, so they are in its hand or out: the farmers' hidden
        hands are dealt first, from the unseen cards not of the kitty, then
        the landlord's from the rest. ``pool`` (cards, within the unseen
        ones, at least as many as the hidden hands hold) deals them from
        those cards only: in an endgame, the cards every seat has seen
        played, taken out, as players count them; the kitty cards outside
        it count as played."""
        return _sample_observation(self, rng, pool)

# phase names by the engine's PHASE_ codes
_PHASES = ("bidding", "play", "done", "show", "landlord_show", "doubling")
# the name of each decision's step in a Game's record (pickles)
_SHOWN = (None, "before_bidding", "before_play")

# Seconds of a rollout between two checks for signals (Ctrl-C).
cdef double ROLLOUT_POLL_SECONDS = 0.02



cdef inline bint _list_or_tuple(object value):
    # what Observations and records hold, told apart before the ABC checks
    # of sequences, which cost more than the rest of most checks
    return type(value) is tuple or type(value) is list


cdef bint _sequence_of(object value, object abc):
    # A list or tuple, or another instance of `abc` (a collections.abc class)
    # that is not text. (The ABC is tested alone: Cython does not check the
    # error of an isinstance over a tuple holding one, which a signal
    # handler raising in the ABC's Python code leaves set.)
    if _list_or_tuple(value):
        return True
    if isinstance(value, (str, bytes)):
        return False
    return isinstance(value, abc)


cdef int _check_three_hands(object hands) except -1:
    # three hands in seat order: a sequence, not text nor a mapping or a set
    # (which have no seat order), of three entries
    if not _sequence_of(hands, collections.abc.Sized) or (
            not _list_or_tuple(hands) and is_unordered(hands)) or len(hands) != 3:
        raise ValueError("three hands, one per seat, in seat order")
    return 0


cdef int _seat_arg(object value, str what) except -1:
    """A seat 0..2 from an int-like argument; TypeError/ValueError otherwise."""
    if not _is_integral(value):
        raise TypeError(f"{what} is a seat 0..2, not {value!r}")
    if not 0 <= value < 3:
        raise ValueError(f"{what} is a seat 0..2, not {value}")
    return value


cdef uint64_t _seed_arg(object seed, str what) except? 0:
    if not _is_integral(seed) or not 0 <= seed < (1 << 64):
        raise ValueError(f"{what} must be an int in 0 .. 2**64 - 1, not {seed!r}")
    return <uint64_t>int(seed)


cdef uint64_t _seed_or_entropy(object seed, str what) except? 0:
    # _seed_arg, None drawing a fresh seed from the system's entropy
    if seed is None:
        seed = int.from_bytes(os.urandom(8), "little")
    return _seed_arg(seed, what)


cdef inline int64_t _key_mult(const ddz_game* g, const ddz_rules* r) noexcept nogil:
    # past the rule set's mult_cap every result reads the cap (RULES.md 6), so
    # larger multipliers are one future
    if r.mult_cap and g.mult > r.mult_cap:
        return r.mult_cap
    return g.mult


cdef inline tuple _seat_trio(const int8_t* a):
    # a per-seat int8 array as a tuple of ints (tuple() of a char array would
    # read it as NUL-terminated bytes)
    return (a[0], a[1], a[2])


cdef class Game:
    """One deal, driven step by step by bots (RULES.md sections 5 and 6).

    ``Game(rules="classic", seed=None, bidding=True, first_bidder=0)`` deals
    the cards from ``seed`` (random when None). With ``bidding`` the seats
    bid first (``legal_bids()``, ``bid(points)``); without it seat 0 is the
    landlord with base 1. Then ``legal_moves()`` and ``play(move)`` until
    ``done``; ``result`` scores the deal. An illegal bid or move, or one out of
    turn, raises ValueError and leaves the game unchanged.

    With the platform options of RULES.md 10 (``"classic+happy"``) the deal
    also has show, rob-bidding, landlord-show and doubling decisions:
    ``legal_choices()`` and ``choose(x)`` in every phase but play (see the
    docs page Platform play).
    """

    cdef ddz_game g
    cdef Rules _rules
    cdef list _history
    # every decision that is not a play, in order: (phase code, seat,
    # choice, redeals before it), so bids, calls, shows and doubles of the
    # deal's last dealing are a view of it
    cdef list _steps
    # the rule set the deal was made with (laizi without a rank: the one
    # whose next no-shuffle deal draws a rank of its own)
    cdef Rules _given
    cdef bint _dealt      # dealt from a seed (False: from_position)
    # how the deal began, as plain data (_start_record): what the pickle
    # carries, with every bid and play since, to rebuild it through the API
    cdef tuple _start
    # bumped by every bid, play and undo: a policy given the live game must
    # leave it unchanged (simulate._policy_choice compares it)
    cdef readonly uint64_t _changes
    # states before each bid or play, for undo(): plain structs, no objects
    cdef ddz_game* _undo
    cdef Py_ssize_t _undo_n
    cdef Py_ssize_t _undo_cap

    def __cinit__(self):
        # Even a Game made by Game.__new__ alone is a whole deal (classic,
        # seed 0, bidding), never a struct of zeros behind a None rule set.
        self._rules = self._given = _get_rules("classic")
        ddz_game_new(&self.g, &self._rules.c, 0, 0, 1)
        self._history = []
        self._steps = []
        self._dealt = True
        self._start = ("deal", 0, True, 0)
        self._changes = 0
        self._undo = NULL
        self._undo_n = 0
        self._undo_cap = 0

    def __dealloc__(self):
        free(self._undo)

    def __init__(self, rules="classic", seed=None, bidding=True, first_bidder=0):
        cdef Rules r = _get_rules(rules)
        cdef int fb = _seat_arg(first_bidder, "first_bidder")
        cdef uint64_t s
        s = _seed_or_entropy(seed, "seed")
        if not isinstance(bidding, (bool, np.bool_)):
            raise TypeError(f"bidding must be True or False, not {bidding!r}")
        ddz_game_new(&self.g, &r.c, s, fb, 1 if bidding else 0)
        # laizi: the deal drew its wild rank; the game plays by that rule set
        # (tiandi: its sky rank now, the ground rank when the kitty is taken)
        self._rules = _rules_with_mask(r, self.g.wild_mask, self.g.sky_rank)
        self._given = r
        self._history = []
        self._steps = []
        self._dealt = True
        self._start = ("deal", s, bool(bidding), fb)
        self._changes += 1
        self._undo_n = 0

    @staticmethod
    def from_position(hands, rules="classic", landlord=0, base=1, kitty="",
                      to_move=None, last_move=None, last_seat=None, seed=None):
        """A deal in its play phase from given hands, for puzzles, endgames,
        search and tests; its ``seed`` property is None (it was not dealt).

        ``seed`` (an int in 0 .. 2**64 - 1) seeds the game's random stream,
        which the ``random`` policy draws from (``policy_move``, ``rollout``
        without a seed): games from one position with equal seeds play the
        same random moves, with different seeds different ones. None (the
        default): fresh entropy, as ``Game(rules, seed=None)``.

        ``hands``: the three seats' hands, none empty, together within the
        deck. ``kitty`` (shown to all) was the landlord's: none of it may be
        in a farmer's hand, nor in ``last_move`` when a farmer made it (the
        landlord may have played some). ``to_move``:
        the seat to play (default: the landlord). ``last_move``, with
        ``last_seat``: a non-pass move that ``last_seat`` (not ``to_move``)
        played and that ``to_move`` must beat or pass: the position is in the
        middle of a trick (if ``to_move`` is the second seat after
        ``last_seat``, the seat between has passed). Its cards are out of
        every hand, so the hands and the move together must fit the deck.

        The position scores as a deal of its own: its springs and its
        multiplier (RULES.md 6) count the plays it shows, ``last_move`` as a
        play of ``last_seat`` (a bomb there doubles) and every play from the
        position on; cards outside the hands are no plays."""
        cdef Game game
        # the random stream: the seed's own, mixed as a deal's seed is
        cdef uint64_t stream = ddz_deal_seed(_seed_or_entropy(seed, "seed"), 0)
        game = _position_game(_get_rules(rules), hands, kitty, landlord, base,
                              to_move, last_move, last_seat, (), (), None)
        game.g.rng = stream
        return game

    @staticmethod
    def from_deal(hands, kitty, rules="classic", first_bidder=0, seed=None,
                  redeal_seed=None, ground_rank=None):
        """A deal in its first decision (bidding; with the platform options of
        RULES.md 10 the shows or the calls) from given cards: ``hands`` the
        three seats' hands of 17 cards each and ``kitty`` the rest of the
        deck, so that one deal can be bid and played again by other players
        (the arena's bidding seatings). Its ``seed`` property is None (it
        was not dealt).

        ``rules``: a laizi rule set needs its wild rank, tiandi its sky rank
        (a deal draws it before bidding; give it with ``with_options``, or
        pass a dealt Game's ``rules``); a tiandi rule set without a ground
        rank draws it from the game's random stream when the landlord takes
        the kitty, unless ``ground_rank`` (a rank of 3..2 other than the sky
        rank, as a card character or index) gives it: the ground rank the
        kitty brings, kept from the players until then as a drawn one is,
        so that games of one deal given one ground rank (the arena's
        seatings) play with the same one, whatever was chosen before the
        kitty. ``seed`` (an int in 0 .. 2**64 - 1) seeds the random
        stream, which the ``random`` policy draws from; None: fresh entropy.
        ``redeal_seed`` (an int in 0 .. 2**64 - 1; None: ``seed``) seeds the
        redeals (rob bidding, nobody called; see ``Game.redeal_seed``):
        games given one redeal seed are redealt the same cards, whatever
        their seeds and the choices made in them, and a given ground rank
        stays with the redealt cards. ``next_deal`` deals by ``rules`` as
        given, its wild ranks included."""
        cdef Game game
        cdef Rules r = _get_rules(rules)
        cdef uint64_t s = _seed_or_entropy(seed, "seed")
        cdef uint64_t redeals_from = s if redeal_seed is None \
            else _seed_arg(redeal_seed, "redeal_seed")
        cdef int ground = _ground_rank_arg(r, ground_rank)
        game = _bidding_game(r, hands, kitty, first_bidder, ())
        # the random stream: the seed's own, mixed as a deal's seed is
        game.g.rng = ddz_deal_seed(s, 0)
        game.g.seed = redeals_from
        game.g.ground_given = <uint8_t>ground
        return game

    # ---- search: copy, undo, keys ---------------------------------------------------

    cdef Game _copy(self):
        cdef Game other = Game.__new__(Game)
        other.g = self.g
        other._rules = self._rules
        other._given = self._given
        other._history = list(self._history)
        other._steps = list(self._steps)
        other._dealt = self._dealt
        other._start = self._start
        if self._undo_n:
            other._undo = <ddz_game*>malloc(self._undo_n * sizeof(ddz_game))
            if other._undo == NULL:
                raise MemoryError()
            memcpy(other._undo, self._undo, self._undo_n * sizeof(ddz_game))
            other._undo_n = other._undo_cap = self._undo_n
        return other

    def copy(self) -> Game:
        """An equal, independent game (a struct copy in C; the history lists
        are copied, their Moves shared: they are immutable). ``undo`` works on
        the copy as on the original."""
        return self._copy()

    def __copy__(self):
        return self._copy()

    def __deepcopy__(self, memo):
        return self._copy()

    def __reduce__(self):
        # What defines the deal, as plain data: how it began (_start) and
        # every bid and play since, each with the random stream's state
        # before it (undo restores that too). Loading replays them through
        # the API's own checks (_game_from_record), so a loaded Game is one
        # the API could have reached, whatever the bytes said.
        cdef Py_ssize_t i
        kept_steps, kept_plays = _start_prefix(self._start)
        steps = ([("bid" if phase == PHASE_BIDDING else "choose", seat, value)
                  for phase, seat, value, _ in self._steps[kept_steps:]]
                 + [("play", seat, (<Move>mv).text) for seat, mv in self._history[kept_plays:]])
        rngs = tuple(self._undo[i].rng for i in range(self._undo_n))
        rules = self._rules
        if self._undo_n and self._undo[0].sky_rank != 255 \
                and self._undo[0].wild_mask == (1u << self._undo[0].sky_rank):
            # tiandi, its ground rank drawn by a step since the start (the
            # kitty taken): the rule set as it began, with the sky rank
            # alone, so that the replay draws the ground rank as the kitty is
            # taken (from the recorded random state) and undo() back before
            # it has the sky rank alone, as here
            rules = _rules_with_mask(self._rules, self._undo[0].wild_mask,
                                     self._undo[0].sky_rank)
        given = self._given if self._given.rules_id != rules.rules_id else None
        if self._start[0] == "bidding":
            # built from given cards: the redeal seed is not the start's; then
            # Game.from_deal's ground_rank, when given
            fmt = _SEED_REDEAL_FORMAT if len(self._start) < 8 else _UNBID_FORMAT
            ground = ()
            if self.g.ground_given != 255:
                fmt, ground = _GIVEN_GROUND_FORMAT, (int(self.g.ground_given),)
            return (_game_from_record, (fmt, rules, self._start, tuple(steps),
                                        rngs, self.g.rng, given, self.g.seed) + ground)
        # format 3 when no step since the start redealt (an older ddzfast
        # loads it too, and deals what this one deals)
        redealt = self._undo_n > 0 and self.g.redeals != self._undo[0].redeals
        record = (_SEED_REDEAL_FORMAT if redealt else _STREAM_REDEAL_FORMAT, rules,
                  self._start, tuple(steps), rngs, self.g.rng)
        if given is not None:
            # dealt from a rule set without its wild rank(s) (laizi, tiandi):
            # the ranks were drawn from the seed, and next_deal draws its own
            # from that rule set, so the record names it (only then: a record
            # without it loads with an older ddzfast too)
            record += (given,)
        return (_game_from_record, record)

    cdef int _push_undo(self, const ddz_game* state) except -1:
        cdef Py_ssize_t cap
        cdef ddz_game* grown
        if self._undo_n == self._undo_cap:
            cap = 64 if self._undo_cap == 0 else 2 * self._undo_cap
            grown = <ddz_game*>realloc(self._undo, cap * sizeof(ddz_game))
            if grown == NULL:
                raise MemoryError()
            self._undo = grown
            self._undo_cap = cap
        self._undo[self._undo_n] = state[0]
        self._undo_n += 1
        return 0

    def undo(self) -> None:
        """Take back the last decision (bid, call, rob, show, double) or play:
        every attribute is then as it was
        before it. ValueError when nothing was bid or played (a position from
        ``from_position`` starts with nothing to undo)."""
        if self._undo_n == 0:
            raise ValueError("nothing to undo: no bid or play since the deal "
                             "(or the position) began")
        self._undo_n -= 1
        self.g = self._undo[self._undo_n]
        self._changes += 1
        self._rules = _rules_with_mask(self._rules, self.g.wild_mask, self.g.sky_rank)
        if self.g.phase == PHASE_PLAY:
            self._history.pop()
        else:
            self._steps.pop()

    @property
    def can_undo(self) -> bool:
        """Whether undo() has a bid or play to take back."""
        return self._undo_n > 0

    @property
    def _undo_depth(self) -> int:
        # the bids and plays undo() can take back: the environments undo
        # down to the depth a failed step began at
        return self._undo_n

    def position_key(self) -> tuple:
        """A small hashable value: two games with equal keys are the same
        position, with the same choices, moves and chances to come (some
        positions with one future differ in a field that no longer matters,
        such as the landlord's plays where no anti-spring is left, and have
        two keys). It reads the rule set (its ``Rules.fingerprint``, the
        same in every process of one build, so keys from workers compare),
        the phase, the hands, the seat to
        move, the move to beat (its kind, rank and length, and in tiandi a
        bomb's size and purity: nothing else of its cards changes what may
        follow), who played it and the passes since, and what scoring still
        depends on (landlord, base, multiplier so far, up to the rule set's
        ``mult_cap``, past which every result reads the cap; whether the
        farmers have played and how often the landlord has: spring and
        anti-spring). While bidding: the hands, the kitty and the bids (and
        in the shows before it, whether the deal is bid at all). Two
        move orders that reach the same position give the same key. The
        state of the game's random stream and its redeal seed are not part
        of it, nor a ground rank given to ``from_deal``: the draws still to
        come before the kitty is taken (tiandi's ground rank from that
        stream, which the ``random`` policy also draws from, or the one
        given; a redeal's cards, when nobody calls, from the redeal seed),
        so two games with one key may draw them differently, each by the
        rules' chances, or one be given a ground rank the other draws."""
        cdef const ddz_game* g = &self.g
        cdef int f1, f2
        if g.phase == PHASE_BIDDING and not g.opt_rob and not g.opt_show:
            return (self._rules.fingerprint, PHASE_BIDDING, g.hands[0], g.hands[1],
                    g.hands[2], g.kitty, g.to_move, g.first_bidder, g.bids_made,
                    g.high_bid, g.high_bidder)
        if ddz_game_choosing(g):
            # platform decisions (RULES.md 10): everything they have decided
            return (self._rules.fingerprint, g.phase, g.hands[0], g.hands[1], g.hands[2],
                    g.kitty, g.to_move, g.first_bidder, g.bids_made, g.high_bid,
                    g.high_bidder, g.landlord, g.base, _key_mult(g, &self._rules.c), g.rob_stage,
                    g.calls_made, g.caller, g.leader, g.robs, _seat_trio(g.called),
                    _seat_trio(g.robbed), _seat_trio(g.shown), _seat_trio(g.doubles),
                    g.show_mult,
                    g.turns, g.redeals,
                    # (while the shows go on, whether bidding or seat 0 follows)
                    g.bidding != 0 if g.landlord < 0 else None)
        if g.phase == PHASE_DONE:
            f1 = (g.landlord + 1) % 3
            f2 = (g.landlord + 2) % 3
            return (self._rules.fingerprint, PHASE_DONE, g.hands[0], g.hands[1],
                    g.hands[2], g.winner_seat, g.landlord, g.base, _key_mult(g, &self._rules.c),
                    g.moves_by[f1] + g.moves_by[f2] > 0, min(g.moves_by[g.landlord], 2)) \
                + ((_seat_trio(g.doubles),) if g.opt_doubling else ())
        f1 = (g.landlord + 1) % 3
        f2 = (g.landlord + 2) % 3
        return (self._rules.fingerprint, PHASE_PLAY, g.hands[0], g.hands[1], g.hands[2],
                g.to_move,
                (g.last.kind, g.last.rank, g.last.length,
                 ddz_beaten_code(&self._rules.c, &g.last), g.last_seat, g.passes)
                if g.has_last else None,
                g.landlord, g.base, _key_mult(g, &self._rules.c),
                g.moves_by[f1] + g.moves_by[f2] > 0, min(g.moves_by[g.landlord], 2)) \
            + ((_seat_trio(g.doubles),) if g.opt_doubling else ())

    # ---- state ----------------------------------------------------------------

    @property
    def rules(self) -> Rules:
        """The deal's rule set (laizi: with the wild rank the deal drew)."""
        return self._rules

    @property
    def wild_rank(self):
        """laizi: the deal's wild rank as a card index (0 = '3' ... 12 = '2'),
        drawn from the seed after dealing, before bidding; else None."""
        return self._rules.wild_rank

    @property
    def wild_ranks(self) -> tuple:
        """The deal's wild ranks drawn so far as card indices: laizi its one
        rank; tiandi the sky rank (drawn after the deal, before bidding), then
        the ground rank (drawn when the landlord has taken the kitty, RULES.md
        9); () in the other rule sets."""
        return self._rules.wild_ranks

    @property
    def seed(self):
        """The deal's seed, or None for a position (from_position)."""
        return self.g.seed if self._dealt else None

    @property
    def redeal_seed(self) -> int:
        """What a redeal's cards come from (rob bidding, nobody called,
        RULES.md 10): redeal ``k`` (1, 2, ...) deals the cards that
        ``Game(rules, deal_seed(redeal_seed, k))`` deals, whatever was
        chosen before it. A dealt game's is its ``seed``; ``from_deal``
        takes it as ``redeal_seed``; a deal sampled before the kitty is
        taken draws one; a position's (it never redeals) is 0."""
        return self.g.seed

    @property
    def phase(self) -> str:
        """"bidding", "play" or "done"; with the platform options of RULES.md
        10 also "show" (before bidding), "landlord_show" (after the kitty)
        and "doubling" (before the first play)."""
        return _PHASES[self.g.phase]

    @property
    def hands(self):
        """The three seats' hands (the landlord's includes the kitty once
        bidding is over)."""
        return tuple(_hand(self.g.hands[s]) for s in range(3))

    @property
    def kitty(self) -> Hand:
        return _hand(self.g.kitty)

    @property
    def landlord(self):
        """The landlord's seat, or None while bidding."""
        return None if self.g.landlord < 0 else self.g.landlord

    @property
    def base(self) -> int:
        """The base score: the winning bid, or ``rob_base`` when the deal
        was bid by robbing (0 while bidding)."""
        return self.g.base

    @property
    def to_move(self):
        """The seat to bid or play, or None when the deal is over."""
        return None if self.g.phase == PHASE_DONE else self.g.to_move

    @property
    def last_move(self):
        """The last non-pass move of the current trick, or None on a free lead."""
        return _move(&self.g.last, self._rules) if self.g.has_last else None

    @property
    def last_seat(self):
        """Who played last_move, or None."""
        return self.g.last_seat if self.g.has_last else None

    @property
    def history(self):
        """Every play so far as (seat, Move), passes included."""
        return list(self._history)

    @property
    def bids(self):
        """Every bid so far as (seat, points), 0 for a pass (rob bidding: as
        ``calls``)."""
        return self._phase_steps(PHASE_BIDDING)

    @property
    def calls(self):
        """The bidding sequence of the deal's last dealing as (seat, choice):
        rob bidding 0 (pass) or 1 (call, or rob once a seat has called);
        point bidding the bids."""
        return self._phase_steps(PHASE_BIDDING)

    @property
    def robs(self) -> int:
        """Robs so far (rob bidding: each doubles the multiplier)."""
        return self.g.robs

    @property
    def shown(self) -> tuple:
        """Per seat: None, "before_bidding" (showed before bidding, x4) or
        "before_play" (the landlord showed after the kitty, x2)."""
        return tuple(_SHOWN[self.g.shown[s]] for s in range(3))

    @property
    def doubles(self) -> tuple:
        """Each seat's doubling factor 1, 2 or 4 (None until chosen); (1, 1, 1)
        in a rule set without doubling."""
        return tuple(None if self.g.doubles[s] == 0 else self.g.doubles[s]
                     for s in range(3))

    @property
    def show_multiplier(self) -> int:
        """The show multiplier: the largest show factor chosen (RULES.md 10:
        4 before bidding, 2 by the landlord before play), 1 when nobody
        showed."""
        return self.g.show_mult

    @property
    def redeals(self) -> int:
        """How often the deal was redealt because nobody called."""
        return self.g.redeals

    @property
    def bidding(self) -> bool:
        """Whether the deal is bid: False for ``Game(..., bidding=False)``,
        whose kitty seat 0 takes unbid (after the shows, with the options of
        RULES.md 10), and for a position given without bids."""
        return self.g.bidding != 0

    @property
    def position(self) -> int:
        """The deal's position in its no-shuffle session (0: its first deal)."""
        return self.g.position

    @property
    def multiplier(self) -> int:
        """The public multiplier so far: 2 per rob, the show multiplier and
        the factors of the moves played (spring and the cap are applied in
        result)."""
        return self.g.mult

    cdef list _phase_steps(self, int phase):
        # the (seat, choice) steps of one phase since the last redeal
        cdef int r = self.g.redeals
        return [(seat, value) for p, seat, value, rd in self._steps
                if p == phase and rd == r]

    @property
    def cards_left(self):
        return tuple(_hand_size(self.g.hands[s]) for s in range(3))

    @property
    def done(self) -> bool:
        return self.g.phase == PHASE_DONE

    @property
    def result(self):
        """The GameResult once the deal is over, else None."""
        if self.g.phase != PHASE_DONE:
            return None
        return _game_result(&self.g, self._rules)

    def observation(self, seat=None) -> Observation:
        """What ``seat`` (default: the seat to move) may see; ValueError for
        no seat once the deal is over, when none is to move."""
        cdef int s = _observer(self, seat)
        cdef uint64_t played[3]
        cdef int i
        played[0] = played[1] = played[2] = 0
        for i, mv in self._history:
            played[i] += (<Move>mv).m.cards
        return Observation(
            s, self.phase, _hand(self.g.hands[s]), self.cards_left,
            tuple(_hand(played[i]) for i in range(3)), self.landlord, self.g.base,
            None if self.g.landlord < 0 else _hand(self.g.kitty),
            self.to_move, self.last_move, self.last_seat, tuple(self.bids),
            tuple(self._history), self.g.mult, self._rules, self.g.first_bidder,
            self._rules.wild_rank, self.g.robs, self.shown,
            tuple(_hand(self.g.hands[i]) if self.g.shown[i] else None for i in range(3)),
            self.doubles, self.g.redeals, bool(self.g.bidding), self._position_move())

    cdef object _position_move(self):
        # a position's own last move (see _position_game): given with a
        # history of passes alone (or none)
        start = self._start
        if start[0] != "position" or start[6] is None \
                or any(text != "PASS" for _, text in start[8]):
            return None
        return (start[7], Move.parse(start[6], self._rules))

    def observation_tensor(self, seat=None, out=None):
        """What ``seat`` (default: the seat to move) may know, as a fixed
        float32 vector of OBSERVATION_SIZE, filled in C; the same layout in
        every rule set. Parts, in order (OBSERVATION_LAYOUT gives each one's
        offset, size, shape and description; seats relative to ``seat``: 0
        itself, 1 the next to play, 2 the one after): seat, phase, to_move,
        hand, unseen (the deck less the own hand and all plays), played (3
        seats), cards_left (3 one-hots of 0..21), landlord, bids (3 one-hots
        of not yet/pass/1/2/3), base, kitty, kitty_shown, last_move and
        last_seat, bombs, multiplier (log2), history (the last
        HISTORY_MOVES plays, passes included, most recent first, each a move
        and its seat), and wild_rank (laizi: a one-hot of the deal's wild
        rank 3..2; tiandi: of its two, the ground rank once drawn; zero in
        other rule sets), then the platform blocks
        (RULES.md 10): deal_phase (a one-hot of all six phases), shown and
        shown_hands (the hands of the seats that showed), calls and robbed
        (rob bidding), robs, show_multiplier, doubles (each seat's factor)
        and redeals. Cards are encoded as
        ``encode_hands`` (a 4 x 15 count plane, then the number of W), a move
        as ``encode_moves`` does: its cards, 16 columns for what the
        wildcards stand for (a one-hot of what W stands for; in a laizi move
        the number of laizi standing for each rank 3..2, from
        ``Move.substitutes``) and a one-hot of its kind. Entries are at most
        OBSERVATION_HIGH. ``out``: None or a
        writable, C-contiguous float32 array of OBSERVATION_SIZE to fill.
        ``observation_tensors`` does many games or seats in one call."""
        return _observation_tensor(self, seat, out)

    def legal_action_mask(self, out=None):
        """The legal-action mask of the seat to move (as
        ``legal_action_mask_into`` fills it, for this game's rule set): a new
        bool array of ``action_count(rules)``, or ``out`` filled and returned.
        All zero unless the deal is in its play phase. A tiandi deal has no
        action space before its ground rank is drawn (as the landlord takes
        the kitty): a ValueError until then."""
        cdef _ActionTable t
        cdef cnp.ndarray a
        cdef int64_t n
        if not self._rules.ready:
            raise ValueError(
                f"a {self._rules.name} deal's actions are numbered once both wild ranks "
                f"are drawn, and the ground rank is drawn as the landlord takes the "
                f"kitty (phase {self.phase!r} now): there is no move action before "
                f"then (legal_action_indices() is empty)")
        t = _actions_of(self._rules)
        if out is None:
            a = np.empty(t.count, dtype=np.bool_)
        else:
            if not isinstance(out, cnp.ndarray):
                raise TypeError(f"out must be a numpy array, not {type(out).__name__}")
            a = <cnp.ndarray>out
            _check_out(a, cnp.NPY_BOOL, cnp.NPY_UINT8, cnp.NPY_INT8, "bool, uint8 or int8")
            if cnp.PyArray_DIM(a, 0) != t.count:
                raise ValueError(f"out has {cnp.PyArray_DIM(a, 0)} entries; a mask of "
                                 f"{self._rules.ranked_name!r} has action_count = {t.count}")
        if self.g.phase != PHASE_PLAY:
            memset(cnp.PyArray_DATA(a), 0, t.count)
            return a
        n = ddz_legal_action_mask(&self._rules.c, &t.t, self.g.hands[self.g.to_move],
                                  &self.g.last if self.g.has_last else NULL,
                                  <uint8_t*>cnp.PyArray_DATA(a))
        if n < 0:
            _raise_actions_error(n, self._rules, self.g.hands[self.g.to_move])
        return a

    def legal_action_indices(self):
        """The action indices (int32) of the legal moves of the seat to move,
        in ``legal_moves`` order; empty unless the deal is in its play phase."""
        if self.g.phase != PHASE_PLAY:
            return np.empty(0, dtype=np.int32)
        return legal_action_indices(self.g.hands[self.g.to_move], self.last_move,
                                    self._rules)

    def play_action(self, index, seat=None):
        """The seat to move plays the move of action ``index`` (an int in
        0 .. action_count(rules) - 1, as ``action_moves(rules)`` numbers
        them; 0 is PASS), as ``play`` would; the move is taken from the action
        table in C, without making a Move first. IndexError for an index out
        of range, IllegalMoveError for an action that is no legal move now."""
        cdef _ActionTable t
        cdef ddz_move m
        cdef int who = self.g.to_move
        cdef ddz_game before = self.g
        cdef int64_t i
        self._check_turn(seat, PHASE_PLAY, "play")
        if not _is_integral(index):
            raise TypeError(f"an action index is an int, not {type(index).__name__}")
        t = _actions_of(self._rules)
        if not 0 <= index < t.count:
            raise IndexError(f"action {index} out of range: {self._rules.ranked_name!r} has "
                             f"{t.count} actions")
        i = index
        m = t.t.moves[i]
        # the table's rows are the generator's own moves of this rule set (wild
        # included), so the engine may skip re-checking the move's shape
        if _game_play(&self.g, &self._rules.c, &m, 1) != 0:
            raise IllegalMoveError(self._why_illegal(&m, who))
        self._history.append((who, _move(&m, self._rules)))
        self._push_undo(&before)
        self._changes += 1

    # ---- actions ----------------------------------------------------------------

    def legal_bids(self):
        """The bids the seat to move may make (0 is a pass); [] when not bidding."""
        if self.g.phase != PHASE_BIDDING:
            return []
        return self.legal_choices()

    def bid(self, points, seat=None):
        """The seat to move bids ``points`` (0: pass; else above the highest bid,
        at most 3; rob bidding: 0 or 1, as ``choose``). ``seat``, when given,
        must be the seat to move."""
        self._check_turn(seat, PHASE_BIDDING, "bid")
        self._choose(points, "bid")

    def legal_choices(self):
        """The choices of the decision now, ascending: bids (0 passes, then
        1..3 above the highest bid); rob bidding 0 (pass) or 1 (call, or rob
        once a seat has called); a show 0 or 1; doubling the factor 1, 2 or
        4. [] in the play phase and when the deal is over."""
        cdef int out[DDZ_MAX_CHOICES]
        cdef int n = ddz_game_choices(&self.g, out)
        return [out[i] for i in range(n)]

    def choose(self, choice, seat=None):
        """The seat to move makes ``choice``, one of ``legal_choices()``, in
        any decision phase (bidding, show, landlord_show, doubling).
        ``seat``, when given, must be the seat to move. ValueError (the game
        unchanged) for a choice not legal now or in the play phase."""
        if not ddz_game_choosing(&self.g):
            raise ValueError(f"no choice to make: the deal is in its {self.phase} "
                             f"phase" + (" (play a move)" if self.g.phase == PHASE_PLAY
                                         else ""))
        if seat is not None and _seat_arg(seat, "seat") != self.g.to_move:
            raise IllegalMoveError(f"seat {seat} cannot choose out of turn: seat "
                                   f"{self.g.to_move} is to move")
        self._choose(choice, "choose")

    cdef _choose(self, choice, str what):
        cdef int who = self.g.to_move
        cdef int phase = self.g.phase
        cdef int redeals = self.g.redeals
        cdef int c = -1
        cdef ddz_game before = self.g
        if _is_integral(choice):
            if 0 <= choice <= 4:
                c = choice
        if c < 0 or ddz_game_choose(&self.g, c) != 0:
            raise ValueError(f"seat {who} cannot {what} {choice!r} in the "
                             f"{_PHASES[phase]} phase: the legal choices are "
                             f"{self.legal_choices()}")
        self._steps.append((phase, who, c, redeals))
        self._push_undo(&before)
        self._changes += 1
        if self.g.landlord >= 0 and self._rules.c.wild_mask != self.g.wild_mask:
            # tiandi: the landlord took the kitty and the ground rank was drawn
            self._rules = _rules_with_mask(self._rules, self.g.wild_mask, self.g.sky_rank)

    def next_deal(self, seed=None) -> Game:
        """The next deal of this finished deal's no-shuffle session (RULES.md
        10): dealt from this deal's cards (its plays in order, then the
        hands, then the kitty cards not played), transposed and cut with the
        stream of ``seed`` (random when None). After the session's last deal
        (``position`` ``session - 1``) it is the first deal of the next
        session, shuffled from ``seed`` as ``Game(rules, seed)`` deals, at
        position 0: the deals ``simulate`` plays. The first bidder is the
        next seat; bidding is this deal's, and so is the rule set the deal
        was made with: ``Game(rules, seed)``'s ``rules``, which draws its
        wild ranks anew each deal unless it fixes them, or
        ``from_deal``'s ``rules`` as given, whose wild ranks then stay (a
        dealt game's ``rules`` hold the ranks it drew: its session goes on
        by ``next_deal`` of the dealt game itself). ValueError unless the
        deal is over and its rule set deals without shuffling."""
        cdef uint8_t order[56]
        cdef uint8_t pile[56]
        cdef int n_order = 0, n
        cdef uint64_t s
        if not self._rules.c.no_shuffle:
            raise ValueError(f"{self._rules.name!r} shuffles every deal: next_deal is "
                             f"for deal='no_shuffle' rule sets")
        if self.g.phase != PHASE_DONE:
            raise ValueError(f"the deal is not over (it is in its {self.phase} phase)")
        s = _seed_or_entropy(seed, "seed")
        if self.g.position + 1 >= self._rules.c.session:
            return Game(self._given, s, bool(self.g.bidding), (self.g.first_bidder + 1) % 3)
        for seat, mv in self._history:
            if (<Move>mv).m.kind != K_PASS:
                n_order += ddz_cards_ascending((<Move>mv).m.cards, order + n_order)
        n = ddz_next_pile(&self.g, order, n_order, 54 + self._rules.c.has_wild, pile)
        if n < 0:
            raise ValueError("this deal's plays and hands are not the whole deck "
                             "(a position, not a dealt deal)")
        return _pile_game(self._given, tuple(pile[i] for i in range(n)), s,
                          bool(self.g.bidding), (self.g.first_bidder + 1) % 3,
                          self.g.position + 1)

    def legal_moves(self) -> MoveList:
        """The legal moves of the seat to move (empty unless playing)."""
        if self.g.phase != PHASE_PLAY:
            return _move_list(NULL, 0, self._rules)
        return _legal_move_list(self._rules, self.g.hands[self.g.to_move],
                                &self.g.last if self.g.has_last else NULL)

    def play(self, move, seat=None):
        """The seat to move plays ``move`` (a Move or MOVE_DTYPE row; PASS to
        pass). ``seat``, when given, must be the seat to move."""
        cdef ddz_move m
        cdef int who = self.g.to_move
        cdef ddz_game before = self.g
        self._check_turn(seat, PHASE_PLAY, "play")
        _move_struct(move, self._rules, &m, "move")
        if ddz_game_play(&self.g, &self._rules.c, &m) != 0:
            raise IllegalMoveError(self._why_illegal(&m, who))
        self._history.append((who, _move(&m, self._rules)))
        self._push_undo(&before)
        self._changes += 1

    def rollout(self, policies="greedy", seed=None) -> GameResult:
        """Play this deal to its end with built-in policies, in C without the
        GIL, and return its GameResult; the game itself is not changed (a
        copy of its state is played out). ``policies``: one policy name for
        every seat or three, one per seat. ``seed`` seeds the random stream
        of the playout; None draws it from (and advances) the game's own
        stream, so repeated rollouts differ. For Monte Carlo search: a rollout
        of a classic deal takes a few microseconds."""
        cdef ddz_game g = self.g
        # the rule set of that state, held here: another thread may replace
        # self._rules (tiandi's ground rank drawn or undone) while the
        # playout reads it without the GIL
        cdef Rules rules = self._rules
        cdef int codes[3]
        cdef int s, failed = 0
        cdef int64_t k, n, plays = 0
        cdef double next_poll
        cdef ddz_move* buf
        cdef ddz_split_ctx ctx
        cdef bint split
        cdef ddz_rules scratch
        cdef const ddz_rules* dr
        if type(policies) is not str and (
                callable(policies) or not isinstance(policies, collections.abc.Sized)):
            raise TypeError(f"policies: one built-in policy name, or three in seat "
                            f"order (\"random,greedy,greedy\" or a sequence), not "
                            f"{type(policies).__name__}")
        code = POLICIES.get(policies) if type(policies) is str else None
        if code is not None:
            # one built-in name for every seat, as search's playouts give it
            codes[0] = codes[1] = codes[2] = code
        else:
            # (read as simulate reads them: comma text too)
            policies = split_policies(
                policies, 3, "policies: one built-in policy name, or three in seat "
                "order, not {type}", "give one policy or three, one per seat, not {n}")
            for s in range(3):
                codes[s] = _policy_code(policies[s])
        g.rng = _rng_next(&self.g.rng) if seed is None else _seed_arg(seed, "seed")
        n = DDZ_MOVE_BUFFER
        buf = <ddz_move*>malloc(n * sizeof(ddz_move))
        if buf == NULL:
            raise MemoryError()
        # the expert's split context, made only when a seat plays it (its
        # tables take longer to make than a random playout of a deal)
        split = _uses_expert(codes)
        if split and not ddz_split_init(&ctx):
            free(buf)
            raise MemoryError()
        with nogil:
            while ddz_game_choosing(&g):
                ddz_game_choose(&g, ddz_policy_choice(&g, codes[g.to_move]))
            # (tiandi: the ground rank is drawn as the kitty is taken)
            dr = ddz_rules_for_deal(&g, &rules.c, &scratch)
            next_poll = ddz_now() + ROLLOUT_POLL_SECONDS
            while g.phase == PHASE_PLAY:
                # the buffer grows to the largest position met (laizi hands
                # and positions beyond 21 cards exceed DDZ_MOVE_BUFFER)
                k = _policy_move_grow(&g, dr, codes[g.to_move], &buf, &n,
                                      &ctx if split else NULL)
                if k == DDZ_ERR_NOMEM:
                    failed = 2
                    break
                if k < 0 or ddz_game_play(&g, dr, &buf[k]) != 0:
                    failed = 1
                    break
                # a deal of ordinary hands is over in microseconds; only a
                # huge position (its buffer grown) reads the clock every play
                plays += 1
                if (n > DDZ_MOVE_BUFFER or (plays & 63) == 0) and ddz_now() > next_poll:
                    next_poll = ddz_now() + ROLLOUT_POLL_SECONDS
                    if _interrupted():
                        failed = 3
                        break
        free(buf)
        if split:
            ddz_split_free(&ctx)
        if failed == 3:
            _raise_pending()
        if failed == 2:
            raise MemoryError()
        if failed:
            raise RuntimeError("the built-in policy found no legal move (a bug: "
                               "please report the position)")
        return _game_result(&g, rules)

    def policy_action(self, policy="greedy"):
        """What a built-in policy ("random", "greedy" or "expert") would do now: a
        choice in a decision phase (policy_choice), else a Move (policy_move)."""
        if ddz_game_choosing(&self.g):
            return self.policy_choice(policy)
        return self.policy_move(policy)

    def policy_bid(self, policy="greedy") -> int:
        """The bid a built-in policy would make now. Uses (and advances) the
        deal's own random stream, as ``simulate`` does."""
        cdef int code = _policy_code(policy)
        if self.g.phase != PHASE_BIDDING:
            raise ValueError(f"no bid now: the deal is in its {self.phase} phase")
        return ddz_policy_choice(&self.g, code)

    def policy_choice(self, policy="greedy") -> int:
        """The choice a built-in policy would make in the decision now (one of
        ``legal_choices()``): random uniformly, greedy and expert from the hand
        strength (ddz_policy_choice in _deal.pxi gives the thresholds). Uses
        (and advances) the deal's own random stream, as ``simulate`` does."""
        cdef int code = _policy_code(policy)
        if not ddz_game_choosing(&self.g):
            raise ValueError(f"no choice now: the deal is in its {self.phase} phase")
        return ddz_policy_choice(&self.g, code)

    def policy_move(self, policy="greedy") -> Move:
        """The move a built-in policy would play now. Uses (and advances) the
        deal's own random stream, as ``simulate`` does."""
        cdef int code = _policy_code(policy)
        cdef int64_t k, n
        cdef ddz_move* buf
        cdef ddz_move stack_buf[DDZ_MOVE_BUFFER]
        if self.g.phase != PHASE_PLAY:
            raise ValueError(f"no move now: the deal is in its {self.phase} phase")
        k = _policy_move_ctx(&self.g, &self._rules.c, code, stack_buf, DDZ_MOVE_BUFFER,
                             _python_split_ctx())
        if k >= 0:
            return _move(&stack_buf[k], self._rules)
        # a hand far beyond 21 cards (Game.from_position): a buffer of its own
        n = ddz_game_legal_moves(&self.g, &self._rules.c, NULL, 0)
        buf = <ddz_move*>malloc(n * sizeof(ddz_move))
        if buf == NULL:
            raise MemoryError()
        try:
            k = ddz_policy_move(&self.g, &self._rules.c, code, buf, n)
            if k < 0:
                raise RuntimeError("no legal move to choose from")
            return _move(&buf[k], self._rules)
        finally:
            free(buf)

    cdef _check_turn(self, seat, int phase, str what):
        if self.g.phase != phase:
            raise ValueError(f"cannot {what} now: the deal is in its "
                             f"{_PHASES[self.g.phase]} phase"
                             + (" (choose one of legal_choices())"
                                if ddz_game_choosing(&self.g) else ""))
        if seat is not None and _seat_arg(seat, "seat") != self.g.to_move:
            raise IllegalMoveError(f"seat {seat} cannot {what} out of turn: seat "
                             f"{self.g.to_move} is to move")

    cdef str _why_illegal(self, const ddz_move* m, int who):
        cdef Move mv = _move(m, self._rules)
        if m.kind == K_PASS:
            return f"seat {who} cannot pass when leading"
        if not _hand_contains(self.g.hands[who], m.cards):
            return (f"seat {who} cannot play {mv}: its hand "
                    f"{_cards_text(self.g.hands[who])} does not hold those cards")
        return f"seat {who} cannot play {mv}: it does not beat {_move(&self.g.last, self._rules)}"

    def __repr__(self):
        return (f"<Game {self._rules.ranked_name} seed={self.seed} {self.phase} "
                f"to_move={self.to_move} cards_left={self.cards_left}>")


cdef object _game_result(const ddz_game* g, Rules rules):
    """The GameResult of a finished deal (Game.result, Game.rollout)."""
    cdef ddz_deal_row row
    ddz_game_score(g, &rules.c, &row)
    return GameResult(
        "landlord" if row.winner == 0 else "farmers", g.winner_seat,
        row.landlord, row.base, row.multiplier, bool(row.spring),
        bool(row.anti_spring), (row.scores[0], row.scores[1], row.scores[2]),
        (row.stakes[0], row.stakes[1], row.stakes[2]))


cdef ddz_split_ctx _PY_CTX
cdef int _PY_CTX_READY = 0


cdef ddz_split_ctx* _python_split_ctx():
    # The expert's split context for calls made holding the GIL
    # (Game.policy_move): one for the process, reused, so that a decision
    # asked for from Python allocates nothing. NULL (the call makes its own)
    # when it cannot be made.
    global _PY_CTX_READY
    if not _PY_CTX_READY:
        _PY_CTX_READY = ddz_split_init(&_PY_CTX)
    return &_PY_CTX if _PY_CTX_READY else NULL


cdef int _policy_code(object policy) except -1:
    if not isinstance(policy, str):
        raise TypeError(f"a built-in policy is named by text ({', '.join(POLICIES)}), "
                        f"not {type(policy).__name__}: the engine plays built-in "
                        f"policies in C (a callable plays through simulate)")
    code = POLICIES.get(policy)
    if code is None:
        raise ValueError(f"unknown built-in policy {policy!r}; built in: "
                         f"{', '.join(POLICIES)}")
    return code


# (name, rules_id, mask, sky) -> (the description of the rule set it was
# last made from, the rule set with those ranks): _rules_with_mask. Keyed by
# the compiled rule set, which the process keeps anyway (Rules.rules_id), so
# that a rule set named like another keeps its own.
cdef dict _RULES_BY_MASK = {}


cdef Rules _rules_with_mask(Rules r, uint16_t mask, int sky=255):
    # `r`, or for a laizi rule set without a wild rank, the same rule set with
    # the wild rank of `mask` (one Rules per rule set and rank, made once).
    # Two wild ranks (tiandi): the rule set with the ranks of `mask` drawn so
    # far, `sky` the first.
    cdef uint16_t ground
    if not r.c.laizi or not mask or r.c.wild_mask == mask:
        return r
    if _two_wild_ranks(&r.c):
        if sky == 255 or not (mask >> sky) & 1:
            return r
        ground = mask & ~(1u << sky)
        ranks = (CARD_CHARS[sky],) + ((CARD_CHARS[_ctz(ground)],) if ground else ())
        option = {"wild_ranks": ranks}
    elif r.c.wild_mask:
        return r
    else:
        option = {"wild_rank": CARD_CHARS[_ctz(mask)]}
    key = (r.name, r.rules_id, mask, sky)
    made = _RULES_BY_MASK.get(key)
    # (the rule set it was made from, that rule set with the ranks): most
    # often made from this very rule set, known by its description's
    # identity, without comparing descriptions
    if made is not None and (<tuple>made)[0] is r.description:
        return <Rules>(<tuple>made)[1]
    if made is not None and (<Rules>(<tuple>made)[1]).description == {**r.description,
                                                                      **option}:
        ranked = (<tuple>made)[1]
    else:
        ranked = Rules(r.name, **{**r.description, **option})
    _RULES_BY_MASK[key] = (r.description, ranked)
    return <Rules>ranked


cdef class _SessionCarry:
    """Where a run of simulated no-shuffle deals left its session (opaque):
    given to the next run of the same simulation, which starts where this
    one ended, that run goes on from it instead of replaying the session's
    earlier deals."""
    cdef ddz_session_carry c

    def __cinit__(self):
        self.c.next = -1

    @property
    def next(self) -> int:
        """The deal a run going on from this carry starts at (-1: none)."""
        return self.c.next

    def __reduce__(self):
        raise TypeError("a simulation's session carry is not copied")


def _simulate_native(rules, policies, seed, start, stop, bidding, threads=1,
                     _SessionCarry carry=None, progress=None):
    """Rows of DEAL_DTYPE for deals start .. stop - 1, every seat a built-in
    policy, on up to ``threads`` threads (each writing its own slice of the
    result). ``stop`` may be 2**63: the last deal index is 2**63 - 1.
    ``carry`` (no-shuffle sessions): a run of the same rules, policies, seed
    and bidding that ended at ``start`` left it; this run goes on from it
    and leaves its own end there. ``progress`` (or None): called on this
    thread with the number of deals finished, while the threads play them
    (about every TICK_SECONDS, when that number has grown) and once with
    them all at the end."""
    cdef Rules r = _get_rules(rules)
    cdef uint64_t s = _seed_arg(seed, "seed")
    cdef int64_t n
    cdef cnp.ndarray rows
    cdef _SessionCarry mine
    for value, what, top, text in (
            (start, "start", (1 << 63) - 1, "a deal index in 0 .. 2**63 - 1"),
            (stop, "stop", 1 << 63, "in 0 .. 2**63 (exclusive)")):
        if not _is_integral(value) or not 0 <= value <= top:
            raise ValueError(f"{what} is {text}, not {value!r}")
    if stop < start:
        raise ValueError("stop must not be below start")
    if stop - start >= 1 << 63:
        raise ValueError("more than 2**63 - 1 deals at once")
    # deal indices stay Python ints here: stop may be 2**63, beyond int64
    first = int(start)
    n = stop - start
    threads = check_threads(threads)
    if len(policies) != 3:
        raise ValueError("three policies, one per seat")
    codes = np.array([_policy_code(p) for p in policies], dtype=np.intc)
    rows = np.zeros(n, dtype=DEAL_DTYPE)
    threads = worker_count(threads, n)
    bounds = [first + n * t // threads for t in range(threads + 1)]
    if r.c.no_shuffle:
        # whole sessions per thread (one that starts before `start` stays
        # whole too): a session cut in two would be played by both threads
        align = r.c.session
        # (bounds[1:threads], not [1:-1]: wraparound is off in this module)
        bounds = [first] + [max(first, b - b % align) for b in bounds[1:threads]] + [stop]
    # each thread goes on from its own carry from slice to slice; the first
    # with deals to play (those before it may have none: the bounds moved
    # down to `first`) starts from the caller's, and the caller's gets the
    # last one's end
    carries = [_SessionCarry() for _ in range(threads)]
    if carry is not None:
        mine = carries[next((t for t in range(threads) if bounds[t + 1] > bounds[t]), 0)]
        mine.c = carry.c
    status = [DDZ_OK] * threads
    # each thread's deals finished so far, for `progress`
    done = [0] * threads
    _parallel(threads, _simulate_chunk,
              [(r, codes, s, bounds[t], bounds[t + 1] - bounds[t], 1 if bidding else 0,
                rows, bounds[t] - first, status, t, carries[t], done)
               for t in range(threads)],
              None if progress is None else _progress_tick(progress, done))
    for code in status:
        _raise_engine_error(code)
    if carry is not None:
        # (the last thread's part is never empty when there are deals: the
        # bounds before it are cut below `stop`)
        mine = carries[threads - 1]
        carry.c = mine.c
    return rows


cdef _raise_engine_error(int code):
    if code == DDZ_OK:
        return
    if code == DDZ_ERR_NOMEM:
        raise MemoryError("out of memory simulating deals")
    if code == DDZ_ERR_NO_MOVE:
        raise RuntimeError("the engine found no legal move for a seat to play "
                           "(a bug: please report it with the seed)")
    if code == DDZ_ERR_ILLEGAL:
        raise RuntimeError("the engine refused a move its own policy chose "
                           "(a bug: please report it with the seed)")
    raise RuntimeError(f"the engine failed with code {code}")


def _simulate_chunk(Rules r, cnp.ndarray codes, uint64_t seed, uint64_t start,
                    int64_t count, int bidding, cnp.ndarray rows, int64_t offset,
                    list status, int slot, _SessionCarry carry, list done, cancel):
    # Deals start .. start + count - 1 into rows[offset:], in slices that go
    # on from one another through `carry` (no-shuffle sessions are not
    # replayed slice by slice), each slice's end counted in done[slot].
    # Slices are offsets from `start`, never deal indices: a chunk that ends
    # with the last deal index (2**63 - 1) has an end beyond int64.
    cdef const int* pc = <const int*>cnp.PyArray_DATA(codes)
    cdef ddz_deal_row* out = <ddz_deal_row*>cnp.PyArray_DATA(rows) + offset
    if count <= 0:
        return

    def deals(int64_t a, int64_t b):
        cdef int code
        with nogil:
            code = ddz_simulate_carry(&r.c, pc, seed, <int64_t>start + a, b - a, bidding,
                                      out + a, &carry.c)
        status[slot] = code
        if code == DDZ_OK:
            done[slot] = b
        return code
    _sliced(deals, 0, count, cancel)


def _progress_tick(progress, list done):
    # _parallel's tick for a run's `progress`: the deals finished, each time
    # that number has grown
    last = [0]

    def tick():
        k = sum(done)
        if k != last[0]:
            last[0] = k
            progress(k)
    return tick


def deal_seed(seed, index) -> int:
    """The seed of deal ``index`` (0 .. 2**63 - 1) in a simulation run seeded
    ``seed`` (0 .. 2**64 - 1): ``Game(rules, deal_seed(seed, i), bidding,
    first_bidder=i % 3)`` replays it."""
    cdef uint64_t s = _seed_arg(seed, "seed")
    if not _is_integral(index) or not 0 <= index < (1 << 63):
        raise ValueError(f"index is a deal index in 0 .. 2**63 - 1, not {index!r}")
    return ddz_deal_seed(s, <int64_t>index)


def _score_row(Game game, session=None):
    """The DEAL_DTYPE row of a finished Game (for simulate's Python path),
    with its ``session`` index when given."""
    cdef ddz_deal_row row
    if game.g.phase != PHASE_DONE:
        raise ValueError("the deal is not over")
    memset(&row, 0, sizeof(ddz_deal_row))     # padding included: rows compare bytewise
    ddz_game_score(&game.g, &game._rules.c, &row)
    if session is not None:
        row.session = session
    out = np.zeros(1, dtype=DEAL_DTYPE)
    memcpy(cnp.PyArray_DATA(out), &row, sizeof(ddz_deal_row))
    return out[0]


#: The version of a pickled Game's state (Game.__reduce__); a load refuses
#: any other, so a pickle of another version is never misread. Format 2
#: added the "choose" step (platform decisions) and the "pile" start
#: (no-shuffle deals); format 3 the redeals of a "bidding" or "position"
#: start (a sampled deal after a redeal); format 4 redeals from the redeal
#: seed (Game.redeal_seed), and a "bidding" start's record ends with it,
#: after the rule set it was made with (None when that is the record's). A
#: record of an earlier format is read as it was written, but one whose
#: steps redeal is refused (those redeals' cards came from the random
#: stream), and a "bidding" start of one redeals from seed 0. A record
#: whose start is not "bidding" may end with the rule set the deal was made
#: with (Game's _given), when that is not the record's rule set: one
#: without the wild ranks the seed drew (laizi, tiandi), whose next_deal
#: draws its own. Format 5 adds a "bidding" start of a deal that is not
#: bid (a sampled world of one, in its shows): its shows, its redeals and
#: False. Format 6: a "bidding" start's record may end, after its redeal
#: seed, with the ground rank the deal was given (Game.from_deal's
#: ground_rank, tiandi). A game neither built from given cards nor redealt
#: since its start is written as format 3, which older versions load, and
#: any other as the earliest format that holds it.
GAME_STATE_FORMAT = 6
_STATE_FORMATS = (1, 2, 3, 4, 5, 6)
#: the last format whose redeals drew their cards from the random stream
_STREAM_REDEAL_FORMAT = 3
#: the first format whose redeals draw from the redeal seed
_SEED_REDEAL_FORMAT = 4
#: the first format with a "bidding" start of a deal not bid
_UNBID_FORMAT = 5
#: the first format whose "bidding" start may hold a given ground rank
_GIVEN_GROUND_FORMAT = 6


cdef tuple _start_prefix(tuple start):
    # How many of a game's bids and plays its start record holds (the rest
    # are steps, one undo record each).
    if start[0] == "position":
        return len(start[9]), len(start[8])
    if start[0] == "bidding":
        return len(start[4]) + (len(start[5]) if len(start) > 5 else 0), 0
    return 0, 0


cdef Game _pile_game(Rules r, tuple pile, uint64_t seed, bint bidding, int first_bidder,
                     object position):
    """A deal dealt from a no-shuffle pile (Game.next_deal, a pickle's "pile"
    start): the pile checked to be the deck of ``r``."""
    cdef Game game = Game.__new__(Game)
    cdef uint8_t cards[56]
    cdef int i, n = len(pile)
    if not r.c.no_shuffle:
        raise ValueError(f"{r.name!r} shuffles every deal: no deal comes from a pile")
    # a session's first deal is shuffled, never dealt from a pile
    if r.c.session < 2:
        raise ValueError(f"{r.name!r} plays sessions of one deal: every deal is shuffled, "
                         f"none comes from a pile")
    position = _int_in(position, "the position of a deal from a pile", 1, r.c.session - 1)
    if n != 54 + r.c.has_wild:
        raise ValueError(f"a pile holds the {54 + r.c.has_wild} cards of the deck, not {n}")
    for i in range(n):
        cards[i] = <uint8_t>_int_in(pile[i], "a card of the pile", 0, 15)
    if ddz_game_from_pile(&game.g, &r.c, cards, n, seed, first_bidder, bidding) != 0:
        raise ValueError("the pile is not the deck of the rule set")
    game.g.position = position
    game._rules = _rules_with_mask(r, game.g.wild_mask, game.g.sky_rank)
    game._given = r
    game._history = []
    game._steps = []
    game._dealt = True
    game._start = ("pile", tuple(int(c) for c in pile), int(seed), bool(bidding),
                   first_bidder, game.g.position)
    return game


cdef int _int_in(object value, str what, object lo, object hi) except? -1:
    if not _is_integral(value):
        raise TypeError(f"{what} is an int, not {type(value).__name__}")
    if not lo <= value <= hi:
        raise ValueError(f"{what} is in {lo}..{hi}, not {value}")
    return value


cdef list _seat_moves(object history, Rules r, str what):
    # (seat, Move) pairs from (seat, Move or move text) pairs, each a legal
    # move of r (PASS included).
    cdef ddz_move m
    if not _sequence_of(history, collections.abc.Iterable):
        raise TypeError(f"{what} is a sequence of (seat, move) pairs, not "
                        f"{type(history).__name__}")
    out = []
    for item in history:
        if not isinstance(item, tuple) or len(item) != 2:
            raise ValueError(f"{what} holds (seat, move) pairs, not {item!r}")
        seat = _seat_arg(item[0], f"a seat of {what}")
        mv = item[1]
        if isinstance(mv, str):
            mv = Move.parse(mv, r)
        elif not isinstance(mv, Move):
            raise TypeError(f"{what} holds Moves (or move text), not {type(mv).__name__}")
        _move_struct(mv, r, &m, what)
        out.append((seat, _move(&m, r)))
    return out


cdef int _replay_bids(ddz_game* g, object bids, str what) except -1:
    # Every bid of `bids` ((seat, points) pairs) through ddz_game_bid on g,
    # which must be bidding: each by the seat to move and legal there.
    if not _sequence_of(bids, collections.abc.Iterable):
        raise TypeError(f"{what} is a sequence of (seat, points) pairs")
    for item in bids:
        if not isinstance(item, tuple) or len(item) != 2:
            raise ValueError(f"{what} holds (seat, points) pairs, not {item!r}")
        seat = _seat_arg(item[0], f"a seat of {what}")
        points = _int_in(item[1], f"a bid of {what}", 0, 3)
        if g.phase != PHASE_BIDDING:
            raise ValueError(f"{what}: the bidding was over before seat {seat} bid {points}")
        if seat != g.to_move:
            raise ValueError(f"{what}: seat {seat} bid out of turn (seat {g.to_move} was to bid)")
        if ddz_game_bid(g, points) != 0:
            raise ValueError(f"{what}: seat {seat} cannot bid {points} after a bid of "
                             f"{g.high_bid}")
    return 0


cdef Game _position_game(Rules r, hands, kitty, landlord, base, to_move, last_move,
                         last_seat, history, bids, first_bidder, platform=None,
                         redeals=0):
    """A deal in its play phase from its parts, every one checked: what
    Game.from_position, Observation.sample and a pickle's "position" start
    build. ``history``: what was played before (seat, move), informational
    (its cards are out of the hands) but checked: legal moves of the rule
    set, within the deck with the hands; the multiplier, the moves per seat
    and the bombs are counted from it; ``last_move`` (by ``last_seat``) is
    its last non-pass move while fewer than two passes follow it, and none
    after two, ``to_move`` the seat after its last entry (a history of
    passes alone, or none: a last move from before it, its cards out of the
    hands and the history). ``bids``: the bidding that made
    ``landlord`` the landlord at ``base``, replayed (empty: no bidding),
    after ``redeals`` redeals of the deal (rob bidding, RULES.md 10)."""
    cdef Game game = Game.__new__(Game)
    cdef uint64_t total = 0, farmers = 0, k
    cdef uint64_t bits[3]
    cdef ddz_move lm
    cdef ddz_game scratch
    cdef ddz_game* g
    cdef int s, mover, ls = -1, factor, fb
    cdef Py_ssize_t i, lead, after
    cdef Move mv
    _need_wild(r)
    cdef int ll = _seat_arg(landlord, "landlord")
    if not _is_integral(base) or not 1 <= base <= (r.c.rob_base if r.c.rob else 3):
        raise ValueError(f"base is 1..{r.c.rob_base if r.c.rob else 3}, not {base!r}")
    _check_three_hands(hands)
    mover = ll if to_move is None else _seat_arg(to_move, "to_move")
    if (last_move is None) != (last_seat is None):
        raise ValueError("give last_move and last_seat together (or neither: "
                         "to_move leads)")
    if last_move is not None:
        ls = _seat_arg(last_seat, "last_seat")
        if ls == mover:
            raise ValueError(f"last_seat {ls} is the seat to move: a seat never "
                             f"has to beat its own move")
        _last_struct(last_move, r, &lm)
    for s in range(3):
        bits[s] = _to_bits(hands[s], r, f"hands[{s}]")
        if bits[s] == 0:
            raise ValueError(f"hands[{s}] is empty: a deal ends when a hand "
                             f"empties, so no position has an empty hand")
        total = _add_within_deck(total, bits[s], r, "the hands")
        if s != ll:
            farmers += bits[s]
    played = _seat_moves(history, r, "history")
    for s, mv in played:
        total = _add_within_deck(total, mv.m.cards, r, "the hands and the history")
    # the move to beat: the history's last non-pass move while fewer than
    # two passes follow it (its cards are counted with the history), else
    # none; a history of passes alone (or none) follows a position's own
    # last move, whose cards are out of the hands and the history
    lead = -1
    for i in range(len(played) - 1, -1, -1):
        if (<Move>played[i][1]).m.kind != K_PASS:
            lead = i
            break
    if lead < 0:
        if ls >= 0:
            _add_within_deck(total, lm.cards, r,
                             f"the hands and seat {ls}'s last move {_cards_text(lm.cards)}")
    else:
        s, mv = played[lead]
        after = len(played) - 1 - lead
        if after == 3 and ls < 0 and mover == (s + 1) % 3 and bits[s] == WBIT:
            # seat s, left with W alone, passed its lead (RULES.md 3): the
            # next seat leads freely
            pass
        elif after >= 2:
            if ls >= 0 or after > 2 or mover != s:
                raise ValueError(
                    f"the history ends with seat {s}'s {mv} and {after} passes: the "
                    f"trick is over and seat {s} leads, with no move to beat (not "
                    f"seat {mover} to move"
                    + ("" if ls < 0 else f" facing {_move(&lm, r)} of seat {ls}") + ")")
        elif ls != s or lm.kind != mv.m.kind or lm.rank != mv.m.rank \
                or lm.length != mv.m.length or lm.cards != mv.m.cards \
                or mover != (s + 1 + after) % 3:
            raise ValueError(
                f"the history ends with seat {s}'s {mv}"
                + (f" and {after} pass" if after else "")
                + f": seat {(s + 1 + after) % 3} is to beat it or pass, not seat {mover} "
                + ("leading" if ls < 0 else f"facing {_move(&lm, r)} of seat {ls}"))
    # the kitty is the landlord's: no farmer held a card of it, neither in
    # its hand nor in its plays (the position's own move included)
    for s, mv in played:
        if s != ll:
            farmers += mv.m.cards
    if ls >= 0 and lead < 0 and ls != ll:
        farmers += lm.cards
    k = _to_bits(kitty, r, "kitty")
    _add_within_deck(farmers, k, r, "the kitty (the landlord's) and the farmers' hands "
                     "and plays")
    fb = ll if first_bidder is None else _seat_arg(first_bidder, "first_bidder")
    red = _redeals_arg(redeals)
    ddz_game_new(&scratch, &r.c, 0, fb, 1)
    scratch.redeals = red     # (at the cap, nobody calling makes a landlord)
    while scratch.phase == PHASE_SHOW:
        ddz_game_choose(&scratch, 0)        # shows do not change who may bid
    _replay_bids(&scratch, bids, "bids")
    if bids and (scratch.landlord != ll or scratch.base != base):
        raise ValueError(f"the bids {tuple(bids)!r} do not make seat {ll} the landlord "
                         f"at base {base}")
    game._rules = game._given = r
    game._history = played
    game._steps = [(PHASE_BIDDING, int(seat), int(points), red) for seat, points in bids]
    game._dealt = False
    ddz_game_new(&game.g, &r.c, 0, fb, 1 if bids else 0)
    g = &game.g
    g.redeals = red
    if bids:
        memcpy(g.bids, scratch.bids, sizeof(g.bids))
        g.bids_made = scratch.bids_made
        g.high_bid = scratch.high_bid
        g.high_bidder = scratch.high_bidder
        # rob bidding (RULES.md 10): who called and robbed, and the robs
        memcpy(g.called, scratch.called, sizeof(g.called))
        memcpy(g.robbed, scratch.robbed, sizeof(g.robbed))
        g.rob_stage = scratch.rob_stage
        g.calls_made = scratch.calls_made
        g.caller = scratch.caller
        g.leader = scratch.leader
        g.robs = scratch.robs
    for s in range(3):
        g.hands[s] = bits[s]
    g.kitty = k
    g.landlord = ll
    g.base = base
    g.phase = PHASE_PLAY
    g.to_move = mover
    for s in range(3):
        g.doubles[s] = 1         # nobody doubled before a given position
    for s, mv in played:
        if mv.m.kind != K_PASS:
            g.moves_by[s] += 1
            g.nmoves += 1
            factor = r.c.mult[mv.m.kind]
            if factor > 1:
                g.mult = _mul_saturated(g.mult, factor)
            if r.c.tier[mv.m.kind]:
                g.nbombs += 1
    if ls >= 0:
        g.last = lm
        g.has_last = 1
        g.last_seat = ls
        g.passes = 0 if mover == (ls + 1) % 3 else 1
    # the springs and the multiplier (RULES.md 6) count the plays a position
    # shows, as in a deal of its own: its move to beat is a play of its seat
    # (the history's plays are counted above); cards outside the hands are
    # no plays
    if ls >= 0 and lead < 0:
        g.moves_by[ls] += 1
        factor = r.c.mult[lm.kind]
        if factor > 1:
            g.mult = _mul_saturated(g.mult, factor)
        if r.c.tier[lm.kind]:
            g.nbombs += 1
    game._start = ("position", tuple(int(b) for b in bits), int(k), ll, int(base), mover,
                   None if ls < 0 else _move(&lm, r).text, None if ls < 0 else ls,
                   tuple((s, mv.text) for s, mv in played),
                   tuple((seat, value) for _, seat, value, _ in game._steps), fb)
    if platform is not None:
        _set_platform(game, r, platform)
    if platform is not None or red:
        game._start += (None if platform is None else
                        (int(platform[0]), tuple(platform[1]), tuple(platform[2]),
                         platform[3]),)
    if red:
        game._start += (red,)
    return game


cdef int _redeals_arg(object redeals) except -1:
    # the redeals of a deal built from its parts (Observation.redeals)
    if not _is_integral(redeals) or not 0 <= redeals <= DDZ_MAX_REDEALS:
        raise ValueError(f"redeals is an int in 0..{DDZ_MAX_REDEALS}, not {redeals!r}")
    return <int>redeals


cdef tuple _per_seat(object value, str message):
    # an Observation field of one entry per seat, as a tuple; ValueError
    # `message` for anything else (text is no sequence of three entries)
    if not (_sequence_of(value, collections.abc.Sequence)
            or isinstance(value, np.ndarray)) or len(value) != 3:
        raise ValueError(message)
    return tuple(value)


cdef tuple _shown_codes(object shown):
    # Observation.shown (None, "before_bidding" or "before_play" per seat) as
    # the engine's codes 0..2
    shown = _per_seat(shown, "shown holds one entry per seat")
    codes = []
    for w in shown:
        if w not in _SHOWN:
            raise ValueError(f"shown holds None, 'before_bidding' or 'before_play', "
                             f"not {w!r}")
        codes.append(_SHOWN.index(w))
    return tuple(codes)


cdef int _set_platform(Game game, Rules r, object platform) except -1:
    # A position past the kitty with the decisions of RULES.md 10 made:
    # platform = (robs, shown, doubles, phase) as Observation has them (a
    # sampled deal, a pickle's "position" start); its decision phase when it
    # is in one. Every field is checked against section 10's order (shows
    # before bidding by any seat, after the kitty by the landlord alone and
    # only one that had not shown; doubling by the farmers from the
    # landlord's next seat, then the landlord, under "after_farmer" only if
    # a farmer doubled), so that the position is one a deal reaches.
    cdef ddz_game* g = &game.g
    cdef int s, factor = 1, d, turns, expect
    cdef int ll = g.landlord
    cdef int f1 = (ll + 1) % 3
    cdef int f2 = (ll + 2) % 3
    if not isinstance(platform, tuple) or len(platform) != 4:
        raise ValueError(f"the platform decisions are (robs, shown, doubles, phase), "
                         f"not {platform!r}")
    robs_arg, shown_arg, doubles, phase = platform
    shown = _shown_codes(shown_arg)
    robs = _int_in(robs_arg, "robs", 0, 3)
    if robs and not r.c.rob:
        raise ValueError("robs without rob bidding")
    if any(shown) and not r.c.show:
        raise ValueError("a seat showed its hand in a rule set without showing")
    if not _sequence_of(doubles, collections.abc.Sequence) or len(doubles) != 3:
        raise ValueError("doubles holds one factor (or None) per seat")
    doubles = tuple(doubles)
    if phase not in ("landlord_show", "doubling", "play"):
        raise ValueError(f"a position with platform decisions is in its landlord_show, "
                         f"doubling or play phase, not {phase!r}")
    for s in range(3):
        g.shown[s] = shown[s]
        if shown[s]:
            factor = max(factor, 4 if shown[s] == 1 else 2)
        d = 0 if doubles[s] is None else _int_in(doubles[s], "a double", 1, 4)
        if d == 3 or (d and not r.c.doubling and d != 1) or (d == 0 and not r.c.doubling):
            raise ValueError(f"doubles {tuple(doubles)!r} are not factors this rule "
                             f"set's doubling gives")
        g.doubles[s] = d
    if g.calls_made and robs != g.robs:
        raise ValueError(f"robs {robs} is not what the calls give ({g.robs})")
    if robs and not g.calls_made:
        raise ValueError(f"robs {robs} without the calls that made them (no bids: a "
                         f"deal without bidding has no robs)")
    # shows: the landlord alone shows after taking the kitty ("before_play"),
    # in its landlord_show decision, which it has only when it had not shown
    # before bidding
    for s in range(3):
        if shown[s] == 2 and s != ll:
            raise ValueError(f"seat {s} is a farmer: only the landlord (seat {ll}) "
                             f"shows before play, after taking the kitty")
    if phase == "landlord_show":
        if not r.c.show:
            raise ValueError(f"a landlord_show phase in a rule set without showing "
                             f"({r.name!r})")
        if shown[ll] == 1:
            raise ValueError(f"the landlord (seat {ll}) showed before bidding: it has "
                             f"no landlord_show decision")
        if shown[ll] == 2:
            raise ValueError(f"the landlord (seat {ll}) has shown before play: its "
                             f"landlord_show decision is made")
    # doubling: seat f1, then f2, then the landlord, each once
    if phase == "doubling" and not r.c.doubling:
        raise ValueError(f"a doubling phase in a rule set without doubling ({r.name!r})")
    decided = [g.doubles[f1] != 0, g.doubles[f2] != 0, g.doubles[ll] != 0]
    turns = sum(decided)
    if r.c.doubling:
        if decided != [True] * turns + [False] * (3 - turns):
            raise ValueError(f"doubles {doubles!r}: the farmers double first (seat {f1}, "
                             f"then seat {f2}), then the landlord (seat {ll})")
        if phase == "landlord_show" and turns:
            raise ValueError(f"doubles {doubles!r} before the landlord's show: the "
                             f"doubling comes after it")
        if phase == "doubling" and turns == 3:
            raise ValueError(f"doubles {doubles!r}: every seat has doubled, so the "
                             f"doubling is over")
        if phase == "play" and turns != 3:
            raise ValueError("in the play phase every seat has its doubling factor")
        if r.c.doubling == 2 and turns >= 2 and g.doubles[f1] == 1 and g.doubles[f2] == 1:
            if phase == "doubling":
                raise ValueError(f"doubles {doubles!r}: with doubling='after_farmer' the "
                                 f"landlord doubles only if a farmer did; neither did, "
                                 f"so the doubling is over")
            if g.doubles[ll] != 1:
                raise ValueError(f"doubles {doubles!r}: with doubling='after_farmer' the "
                                 f"landlord doubles only if a farmer did, and neither did")
    # a decision phase: nothing played yet, the hands as dealt, the seat to
    # decide the one section 10 names
    if phase != "play":
        if game._history or g.has_last:
            raise ValueError(f"a {phase} phase comes before the first play, but the "
                             f"history holds plays")
        if _hand_size(g.kitty) != r.c.kitty or not _hand_contains(g.hands[ll], g.kitty):
            raise ValueError(f"in the {phase} phase the landlord (seat {ll}) holds the "
                             f"kitty it has just taken ({r.c.kitty} cards)")
        for s in range(3):
            if _hand_size(g.hands[s]) != DEAL_CARDS + (r.c.kitty if s == ll else 0):
                raise ValueError(f"in the {phase} phase seat {s} holds its whole deal, "
                                 f"not {_hand_size(g.hands[s])} cards")
        expect = ll if phase == "landlord_show" else (f1, f2, ll)[turns]
        if g.to_move != expect:
            raise ValueError(
                f"seat {expect} is to decide in the {phase} phase, not seat {g.to_move} "
                + ("(the landlord decides whether to show)" if phase == "landlord_show"
                   else f"(the farmers double first, seat {f1} then seat {f2}, then the "
                        f"landlord, seat {ll}; doubles so far {doubles!r})"))
    # no bids: a deal dealt without bidding (its decisions made), where seat 0
    # took the kitty at the base of a deal without bidding
    if not game._steps and (phase != "play" or any(shown)
                            or (r.c.doubling and any(g.doubles[s] != 1 for s in range(3)))):
        if ll != 0 or g.base != (r.c.rob_base if r.c.rob else 1):
            raise ValueError(f"platform decisions without bids are those of a deal "
                             f"dealt without bidding, whose landlord is seat 0 at base "
                             f"{r.c.rob_base if r.c.rob else 1}, not seat {ll} at base "
                             f"{g.base}")
    g.robs = robs
    g.show_mult = factor
    g.mult = _mul_saturated(_mul_saturated(g.mult, 1 << robs), factor)
    if phase == "landlord_show":
        g.phase = PHASE_LANDLORD_SHOW
    elif phase == "doubling":
        g.phase = PHASE_DOUBLING
        g.turns = turns
    return 0


cdef int _need_sky(Rules r) except -1:
    # What a deal before the kitty needs of its rule set: tiandi its sky rank
    # (drawn after the deal, RULES.md 9; the ground rank is drawn when the
    # landlord takes the kitty, so it may be missing), laizi its rank.
    if _two_wild_ranks(&r.c):
        if r.c.sky_rank == 255:
            raise ValueError(
                f"the rule set {r.name!r} has no sky rank: a deal of it draws one "
                f"before bidding (use the Game's rules, or "
                f"get_rules({r.name!r}).with_options(wild_ranks=('7',)))")
        return 0
    return _need_wild(r)


cdef int _ground_rank_arg(Rules r, object value) except -1:
    # Game.from_deal's ground_rank as a card index, 255 for None (drawn when
    # the kitty is taken): for a tiandi rule set with its sky rank alone
    cdef int k
    if value is None:
        return 255
    if not _two_wild_ranks(&r.c):
        raise ValueError(f"ground_rank is for tiandi rule sets (two wild ranks); "
                         f"{r.name!r} has none to draw")
    k = _wild_rank_index(value, "ground_rank")
    if r.c.sky_rank != 255 and r.c.wild_mask != (1u << r.c.sky_rank):
        raise ValueError(f"the rule set {r!r} has its ground rank already: give "
                         f"ground_rank with the sky rank alone, "
                         f"with_options(wild_ranks=({CARD_CHARS[r.c.sky_rank]!r},))")
    if k == r.c.sky_rank:
        raise ValueError(f"ground_rank must differ from the sky rank, not both "
                         f"{CARD_CHARS[k]!r}")
    return k


cdef Game _bidding_game(Rules r, hands, kitty, first_bidder, bids, shows=(), redeals=0,
                        bint bidding=True):
    """A deal in its bidding (or show) phase from given cards (three hands of
    the deal's size and the kitty: the whole deck), the shows (0 or 1 per
    seat in turn from the first bidder, RULES.md 10) and bids so far
    replayed, after ``redeals`` redeals: what Observation.sample and a
    pickle's "bidding" start build. Without ``bidding``, a deal in its show
    phase whose kitty goes to seat 0 unbid once the shows are made."""
    cdef Game game = Game.__new__(Game)
    cdef uint64_t total = 0, k
    cdef uint64_t bits[3]
    cdef int s, fb = _seat_arg(first_bidder, "first_bidder")
    _need_sky(r)
    _check_three_hands(hands)
    for s in range(3):
        bits[s] = _to_bits(hands[s], r, f"hands[{s}]")
        if _hand_size(bits[s]) != DEAL_CARDS:
            raise ValueError(f"hands[{s}] holds {_hand_size(bits[s])} cards; a deal "
                             f"gives each seat {DEAL_CARDS}")
        total = _add_within_deck(total, bits[s], r, "the hands")
    k = _to_bits(kitty, r, "kitty")
    total = _add_within_deck(total, k, r, "the hands and the kitty")
    if total != _full_deck(r):
        raise ValueError("the hands and the kitty are not the whole deck")
    if not bidding and not r.c.show:
        raise ValueError(f"a deal of {r.name!r} without bidding has no decision before "
                         f"its kitty is taken (only the shows of RULES.md 10 come "
                         f"before it)")
    game._rules = game._given = r
    game._dealt = False
    game._history = []
    red = _redeals_arg(redeals)
    ddz_game_new(&game.g, &r.c, 0, fb, 1 if bidding else 0)
    game.g.redeals = red
    for s in range(3):
        game.g.hands[s] = bits[s]
    game.g.kitty = k
    steps = []
    if not _sequence_of(shows, collections.abc.Sized):
        raise TypeError("shows is a sequence of 0 or 1, one per seat in turn")
    for i, c in enumerate(shows):
        who = game.g.to_move
        if game.g.phase != PHASE_SHOW or ddz_game_choose(
                &game.g, _int_in(c, "a show", 0, 1)) != 0:
            raise ValueError(f"shows {tuple(shows)!r}: no show {i} to make here")
        steps.append((PHASE_SHOW, who, int(c), red))
    if game.g.phase == PHASE_SHOW and bids:
        raise ValueError("bids before every seat decided whether to show")
    _replay_bids(&game.g, bids, "bids")
    if game.g.redeals != red:
        raise ValueError(f"bids {tuple(bids)!r}: nobody called, so the deal was redealt "
                         f"(the bids of a deal are those of its last dealing)")
    pairs = [(int(seat), int(points)) for seat, points in bids]
    game._steps = steps + [(PHASE_BIDDING, seat, points, red) for seat, points in pairs]
    game._start = ("bidding", tuple(int(b) for b in bits), int(k), fb, tuple(pairs)) \
        + ((tuple(int(c) for c in shows),) if shows or red or not bidding else ()) \
        + ((red,) if red or not bidding else ()) + (() if bidding else (False,))
    if game.g.landlord >= 0:
        # the bids ended the bidding: the deal is a position from here on,
        # unless the kitty brought decisions (RULES.md 10) or a tiandi ground
        # rank that such a position would not have
        if r.c.rob or r.c.show or r.c.doubling or not _rules_ready(&r.c):
            raise ValueError(f"bids {tuple(bids)!r} end the bidding: a deal of "
                             f"{r.name!r} built in its bidding is still bidding")
        return _position_game(r, game.hands, game.g.kitty, game.g.landlord, game.g.base,
                              None, None, None, (), pairs, fb, None, red)
    return game


cdef uint64_t _rng_arg(object value, str what) except? 0:
    if not _is_integral(value) or not 0 <= value < (1 << 64):
        raise ValueError(f"{what} is an int in 0 .. 2**64 - 1, not {value!r}")
    return <uint64_t>int(value)


def _game_from_record(fmt, rules, start, steps, rngs, rng, given=None, *redeal_seed):
    """Rebuild a pickled Game (Game.__reduce__) through the API's checks:
    its start (a seeded deal, a position or a bidding state, each built as
    the API builds it) and then every bid and play replayed, each with the
    random stream's state before it. ``given`` (None: ``rules``): the rule
    set a seeded or no-shuffle deal was made with, ``rules`` without the
    wild ranks its seed drew; the start is dealt from it and must draw the
    ranks ``rules`` names. ``redeal_seed``: a format-4 "bidding" start's
    (and only its). ValueError (or TypeError) for anything the API could
    not have reached."""
    cdef Game game
    cdef Rules r, made_with
    cdef Py_ssize_t i
    if fmt not in _STATE_FORMATS or isinstance(fmt, bool):
        raise ValueError(f"a pickled Game of state format {fmt!r}: this ddzfast reads "
                         f"formats {', '.join(map(str, _STATE_FORMATS))}")
    if not isinstance(start, tuple) or not start or not isinstance(start[0], str):
        raise ValueError(f"a pickled Game's start is a tagged tuple, not {start!r}")
    ground = None
    if fmt > _STREAM_REDEAL_FORMAT and start[0] == "bidding":
        if fmt >= _GIVEN_GROUND_FORMAT and len(redeal_seed) == 2:
            # (checked as Game.from_deal checks it, once the rule set is read)
            ground = redeal_seed[1]
            redeal_seed = redeal_seed[:1]
            if ground is None:
                raise ValueError("a pickled Game's given ground rank is a rank, not None "
                                 "(a deal not given one has no such field)")
        if len(redeal_seed) != 1:
            raise ValueError("a pickled Game's bidding start of format 4 or later ends with "
                             "its redeal seed" + (" (and perhaps a given ground rank)"
                                                  if fmt >= _GIVEN_GROUND_FORMAT else ""))
        redeals_from = _rng_arg(redeal_seed[0], "the redeal seed")
    elif redeal_seed:
        raise ValueError(f"a pickled Game of format {fmt} with a {start[0]!r} start has no "
                         f"redeal seed, not {redeal_seed[0]!r}")
    else:
        redeals_from = None
    if not isinstance(rules, Rules):
        raise TypeError(f"a pickled Game's rules are a Rules, not {type(rules).__name__}")
    r = _get_rules(rules)     # (a made one)
    if given is None:
        made_with = r
    elif not isinstance(given, Rules):
        raise TypeError(f"a pickled Game's given rules are a Rules, not "
                        f"{type(given).__name__}")
    else:
        made_with = _get_rules(given)
    if not isinstance(steps, tuple) or not isinstance(rngs, tuple) \
            or len(steps) != len(rngs):
        raise ValueError("a pickled Game's steps and their random states do not match")
    kind = start[0]
    try:
        if kind in ("position", "bidding") and made_with.rules_id != r.rules_id:
            # built from rules with every rank it needs: nothing drawn
            raise ValueError(f"the rule set it was made with, {made_with!r}, is not its "
                             f"rule set {r!r} (a {kind} draws no wild rank)")
        if kind == "deal" and len(start) == 4:
            game = Game(made_with, _rng_arg(start[1], "the seed"), start[2],
                        _seat_arg(start[3], "first_bidder"))
            if (<Game>game)._rules.rules_id != r.rules_id:
                raise ValueError(f"the seed deals from {made_with!r} another rule set "
                                 f"({(<Game>game)._rules!r}) than the record names ({r!r})")
        elif kind == "position" and (len(start) == 11 or (len(start) == 12 and fmt >= 2)
                                     or (len(start) == 13 and fmt >= 3)):
            last = start[6]
            if last is not None:
                if not isinstance(last, str):
                    raise TypeError(f"the last move is move text, not {type(last).__name__}")
                last = Move.parse(last, r)
            game = _position_game(r, start[1], start[2], start[3], start[4], start[5],
                                  last, start[7], start[8], start[9], start[10],
                                  start[11] if len(start) >= 12 else None,
                                  start[12] if len(start) == 13 else 0)
        elif kind == "bidding" and len(start) == 5:
            game = _bidding_game(r, start[1], start[2], start[3], start[4])
        elif kind == "bidding" and len(start) == 6 and fmt >= 2:
            game = _bidding_game(r, start[1], start[2], start[3], start[4], start[5])
        elif kind == "bidding" and len(start) == 7 and fmt >= 3:
            game = _bidding_game(r, start[1], start[2], start[3], start[4], start[5],
                                 start[6])
        elif kind == "bidding" and len(start) == 8 and fmt >= 5:
            if start[7] is not False:
                raise ValueError(f"a bidding start's eighth field is False (a deal not "
                                 f"bid), not {start[7]!r}")
            game = _bidding_game(r, start[1], start[2], start[3], start[4], start[5],
                                 start[6], False)
        elif kind == "pile" and len(start) == 6 and fmt >= 2:
            if not isinstance(start[1], tuple) or not isinstance(start[3], bool):
                raise TypeError("a pile start holds a tuple of cards and a bool")
            game = _pile_game(made_with, start[1], _rng_arg(start[2], "the seed"), start[3],
                              _seat_arg(start[4], "first_bidder"), start[5])
            if game._rules.rules_id != r.rules_id:
                raise ValueError(f"the pile deals from {made_with!r} another rule set "
                                 f"({game._rules!r}) than the record names ({r!r})")
        else:
            raise ValueError(f"unknown start {kind!r} of {len(start)} fields")
    except (ValueError, TypeError) as e:
        raise type(e)(f"a pickled Game's start is not a deal the API makes: {e}") from None
    if redeals_from is not None:
        game.g.seed = redeals_from
    if ground is not None:
        # (ground is read for bidding starts alone; from_deal's is the cards
        # and first bidder, no bids, and so still bidding)
        if len(start) != 5 or start[4]:
            raise ValueError("a pickled Game's given ground rank belongs to a deal "
                             "Game.from_deal made (a bidding start with no bids, shows "
                             "or redeals)")
        try:
            game.g.ground_given = <uint8_t>_ground_rank_arg(r, ground)
        except (ValueError, TypeError) as e:
            raise type(e)(f"a pickled Game's given ground rank: {e}") from None
    redeals_before = game.g.redeals
    for i in range(len(steps)):
        step = steps[i]
        game.g.rng = _rng_arg(rngs[i], "a random state")
        if not isinstance(step, tuple) or len(step) != 3:
            raise ValueError(f"a pickled Game's step {i} is not (kind, seat, value): {step!r}")
        try:
            if step[0] == "bid":
                game.bid(step[2], seat=step[1])
            elif step[0] == "choose" and fmt >= 2:
                game.choose(step[2], seat=step[1])
            elif step[0] == "play" and isinstance(step[2], str):
                game.play(Move.parse(step[2], game._rules), seat=step[1])
            else:
                raise ValueError(f"unknown step {step[0]!r}")
        except (ValueError, TypeError) as e:
            raise type(e)(f"a pickled Game's step {i} {step!r} cannot be made: {e}") from None
        if fmt <= _STREAM_REDEAL_FORMAT and game.g.redeals != redeals_before:
            # (its steps after the redeal were made with other cards)
            raise ValueError(f"a pickled Game of state format {fmt} whose step {i} redeals "
                             f"the deal: that format's redeals drew their cards from the "
                             f"random stream, this ddzfast's from the redeal seed")
    game.g.rng = _rng_arg(rng, "the random state")
    return game


# The deal struct as the unversioned pickles hold it: ddz_game up to its
# wild_mask, the fields platform play (RULES.md 10) added after it absent.
ctypedef struct _legacy_game:
    uint64_t hands[3]
    uint64_t kitty
    uint64_t rng
    uint64_t seed
    ddz_move last
    int64_t mult
    int phase
    int bidding
    int first_bidder
    int bids_made
    int bids[3]
    int high_bid
    int high_bidder
    int landlord
    int base
    int to_move
    int has_last
    int last_seat
    int passes
    int winner_seat
    int moves_by[3]
    int nmoves
    int nbombs
    uint16_t wild_mask


def _game_from_legacy_state(rules, state, history, bids, dealt, undo):
    """Load a Game pickled before the state format was versioned (its pickle
    calls ddzfast._core._game_from_state). A dealt game is rebuilt from its
    seed with its bids and plays replayed through the API, and must come out
    as its recorded state says; any other is refused."""
    cdef Game game
    cdef ddz_game old
    cdef ddz_game step_state
    cdef Rules r
    cdef Py_ssize_t i, n
    if not isinstance(rules, Rules) or not isinstance(state, bytes) \
            or not isinstance(undo, bytes) or len(state) != sizeof(_legacy_game) \
            or len(undo) % sizeof(_legacy_game):
        raise ValueError("not a pickled Game of an earlier ddzfast (its state has "
                         "the wrong size or types)")
    if not dealt:
        raise ValueError("a Game pickled by an earlier ddzfast from a position "
                         "(from_position or Observation.sample) cannot be checked, "
                         "so it is not loaded: rebuild it with Game.from_position")
    r = _get_rules(rules)
    # the old layout is the start of today's: its fields land where they were
    memset(&old, 0, sizeof(ddz_game))
    memcpy(&old, <const char*>state, sizeof(_legacy_game))
    n = len(undo) // sizeof(_legacy_game)
    history = list(history)
    bids = list(bids)
    if n != len(history) + len(bids):
        raise ValueError("an earlier ddzfast's pickled Game: its undo records do not "
                         "match its bids and plays")
    steps = tuple([("bid", s, p) for s, p in bids] + [("play", s, t) for s, t in history])
    rngs = []
    for i in range(n):
        memset(&step_state, 0, sizeof(ddz_game))
        memcpy(&step_state, (<const char*>undo) + i * sizeof(_legacy_game), sizeof(_legacy_game))
        rngs.append(step_state.rng)
    if old.bidding not in (0, 1):
        raise ValueError("an earlier ddzfast's pickled Game: not a deal it could make")
    game = _game_from_record(GAME_STATE_FORMAT, r, ("deal", old.seed, bool(old.bidding),
                             old.first_bidder), steps, tuple(rngs), old.rng)
    if _state_fields(&game.g) != _state_fields(&old):
        raise ValueError("an earlier ddzfast's pickled Game: its state is not the "
                         "deal its seed and its record give")
    return game


cdef tuple _state_fields(const ddz_game* g):
    # what defines a deal's state (for comparing a rebuilt one with a record)
    return (g.hands[0], g.hands[1], g.hands[2], g.kitty, g.seed, g.mult, g.phase,
            g.bidding, g.first_bidder, g.bids_made, g.bids[0], g.bids[1], g.bids[2],
            g.high_bid, g.high_bidder, g.landlord, g.base, g.to_move, g.has_last,
            g.last.cards, g.last.kind, g.last.rank, g.last.length, g.last_seat,
            g.passes, g.winner_seat, g.moves_by[0], g.moves_by[1], g.moves_by[2],
            g.nmoves, g.nbombs, g.wild_mask)


cdef object _card_indices(uint64_t cards):
    # each card of `cards` as its card index, ascending (a uint8 array)
    cdef cnp.ndarray out = np.empty(_hand_size(cards), dtype=np.uint8)
    ddz_cards_ascending(cards, <uint8_t*>cnp.PyArray_DATA(out))
    return out


cdef uint64_t _packed_indices(const uint8_t[::1] indices, Py_ssize_t start,
                              Py_ssize_t stop) except? 0xFFFFFFFFFFFFFFFF:
    # the cards indices[start:stop] (card indexes, as _card_indices makes
    # them) packed as a hand
    cdef uint64_t bits = 0
    cdef Py_ssize_t j
    for j in range(start, stop):
        bits += (<uint64_t>1) << (4 * indices[j])
    return bits


def _sample_observation(obs, rng, pool_cards=None):
    """Observation.sample: see its docstring. Every field it reads is
    checked, and the sampled game is built by the same checked builders as
    Game.from_position (_position_game, _bidding_game), so an observation
    that no game could show is a ValueError, never a corrupt Game."""
    cdef Rules r
    cdef Game game
    cdef uint64_t unseen, forced = 0, deck, known, own, kitty = 0, pool_bits, seen
    cdef uint64_t kitty_out = 0
    cdef uint64_t played[3]
    cdef uint64_t from_history[3]
    cdef ddz_move table
    cdef uint64_t pm_cards = 0, farmers_seen
    cdef int seat, s, i, k, ll, size, beat_seat, lone_w, pm_seat = -1
    if not isinstance(obs, Observation):
        raise TypeError(f"sample() needs an Observation, not {type(obs).__name__}")
    if obs.rules is None:
        raise ValueError("this Observation does not name its rule set "
                         "(make it with Game.observation)")
    r = _get_rules(obs.rules)
    if obs.wild_rank is not None:
        if not r.c.laizi:
            raise ValueError(f"wild_rank is {obs.wild_rank!r}, but {r.name!r} has no "
                             f"wild rank (None)")
        i = _wild_rank_index(obs.wild_rank)
        r = _rules_with_mask(r, 1 << i)
        if r.c.wild_mask and not (r.c.wild_mask >> i) & 1:
            raise ValueError(f"wild_rank {CARD_CHARS[i]!r} is not a wild rank of "
                             f"{r.ranked_name!r}")
    if obs.phase == "done":
        raise ValueError("the deal is over: there is nothing hidden to sample")
    if obs.phase not in ("bidding", "play", "show", "landlord_show", "doubling"):
        raise ValueError(f"phase is 'show', 'bidding', 'landlord_show', 'doubling' or "
                         f"'play', not {obs.phase!r}")
    before_kitty = obs.phase in ("show", "bidding")
    if not isinstance(obs.bidding, (bool, np.bool_)):
        raise TypeError(f"bidding must be True or False, not {obs.bidding!r}")
    if not obs.bidding and obs.phase == "bidding":
        raise ValueError("a deal that is not bid has no bidding phase")
    # tiandi: before the kitty only the sky rank is drawn (RULES.md 9); the
    # sampled deal draws the ground rank when its landlord takes the kitty
    if before_kitty:
        _need_sky(r)
    else:
        _need_wild(r)
    shown = _shown_codes(obs.shown)
    robs = _int_in(obs.robs, "robs", 0, 3)
    redeals = _redeals_arg(obs.redeals)
    doubles = _per_seat(obs.doubles, "doubles holds one factor (or None) per seat")
    if not _sequence_of(obs.bids, collections.abc.Sequence):
        raise TypeError(f"bids is a sequence of (seat, bid) pairs, not "
                        f"{type(obs.bids).__name__}")
    bids = tuple(obs.bids)
    if not obs.bidding and bids:
        raise ValueError("a deal that is not bid has no bids")
    if not isinstance(rng, np.random.Generator):
        if rng is not None and not isinstance(
                rng, (np.random.SeedSequence, np.random.BitGenerator)):
            if not _is_integral(rng):
                raise TypeError(f"rng is a numpy.random.Generator, an int seed or None, "
                                f"not {type(rng).__name__} {rng!r}")
            if rng < 0:
                raise ValueError(f"rng as a seed is a non-negative int, not {rng}")
            rng = int(rng)
        rng = np.random.default_rng(rng)
    seat = _seat_arg(obs.seat, "seat")
    to_move = _seat_arg(obs.to_move, "to_move")
    fb = 0 if obs.first_bidder is None else _seat_arg(obs.first_bidder, "first_bidder")
    deck = _full_deck(r)
    own = _to_bits(obs.hand, r, "hand")
    known = _add_within_deck(0, own, r, "the observation")
    played_cards = _per_seat(obs.played, "played holds the cards of each of the three seats")
    for s in range(3):
        played[s] = _to_bits(played_cards[s], r, "played")
        known = _add_within_deck(known, played[s], r, "the observation")
    # a seat that showed its hand hides nothing
    open_hands = {}
    shown_hands = _per_seat(obs.shown_hands,
                            "shown_hands holds one entry (a hand or None) per seat")
    for s in range(3):
        if not shown[s]:
            if shown_hands[s] is not None:
                raise ValueError(f"shown_hands holds seat {s}'s hand, which it did not show")
        elif shown_hands[s] is None:
            raise ValueError(f"seat {s} showed its hand, but shown_hands does not hold it")
        elif s == seat:
            if _to_bits(shown_hands[s], r, "shown_hands") != own:
                raise ValueError(f"shown_hands holds a hand for seat {s} (the observing "
                                 f"seat) that is not its hand")
        else:
            open_hands[s] = _to_bits(shown_hands[s], r, "shown_hands")
            known = _add_within_deck(known, open_hands[s], r, "the observation")
    history = _seat_moves(obs.history, r, "history")
    # a position's own last move (Observation.position_move): a play before
    # the history, its cards out of the hands, the history and played
    position_move = obs.position_move
    # the move to beat with no play before it in the history: the position's own
    own_on_table = obs.last_move is not None \
        and all((<Move>mv).m.kind == K_PASS for _, mv in history)
    if position_move is not None:
        if not _sequence_of(position_move, collections.abc.Sequence) \
                or len(position_move) != 2:
            raise ValueError("position_move is None or a (seat, move) pair")
        pm_seat = _seat_arg(position_move[0], "position_move's seat")
        _last_struct(position_move[1], r, &table)
        position_move = (pm_seat, _move(&table, r))
        if own_on_table:
            _last_struct(obs.last_move, r, &table)
            if obs.last_seat != pm_seat or _move(&table, r) != position_move[1]:
                raise ValueError("last_move, with a history of passes alone, is not "
                                 "position_move: the position's own move is the one "
                                 "to beat")
    elif own_on_table:
        # (an observation made without position_move)
        pm_seat = _seat_arg(obs.last_seat, "last_seat")
        _last_struct(obs.last_move, r, &table)
        position_move = (pm_seat, _move(&table, r))
    if position_move is not None:
        pm_cards = (<Move>position_move[1]).m.cards
        known = _add_within_deck(known, pm_cards, r, "the observation")
    unseen = deck - known
    if pool_cards is not None:
        pool_bits = _to_bits(pool_cards, r, "pool")
        if not _hand_contains(unseen, pool_bits):
            seen = 0
            for i in range(16):
                if _nib(pool_bits, i) > _nib(unseen, i):
                    seen += <uint64_t>(_nib(pool_bits, i) - _nib(unseen, i)) << (4 * i)
            raise ValueError(f"pool holds cards this seat has seen (in its hand, played "
                             f"or shown): {_cards_text(seen)}")
        unseen = pool_bits
    from_history[0] = from_history[1] = from_history[2] = 0
    for s, mv in history:
        from_history[s] += (<Move>mv).m.cards
    for s in range(3):
        if from_history[s] != played[s]:
            raise ValueError(f"played[{s}] ({_cards_text(played[s])}) is not what the "
                             f"history shows seat {s} playing ({_cards_text(from_history[s])})")
    left = _per_seat(obs.cards_left, "cards_left holds the three seats' card counts")
    # (a position's hand may hold most of the deck: not MAX_HAND, a dealt
    # hand's most)
    sizes = [_int_in(left[s], "cards_left", 0, len(deck_text(bool(r.c.has_wild))))
             for s in range(3)]
    if sizes[seat] != _hand_size(own):
        raise ValueError("cards_left does not match the observing seat's hand")
    for s, bits in open_hands.items():
        if sizes[s] != _hand_size(bits):
            raise ValueError(f"cards_left does not match seat {s}'s shown hand")
    hidden = [s for s in range(3) if s != seat and s not in open_hands]
    if before_kitty:
        if obs.landlord is not None or history or obs.base != 0 or obs.kitty is not None \
                or obs.last_move is not None or obs.last_seat is not None \
                or position_move is not None:
            raise ValueError("while bidding there is no landlord, base, kitty or play")
        ll = -1
        hidden.append(3)                 # the kitty
        sizes.append(r.c.kitty)
    else:
        ll = _seat_arg(obs.landlord, "landlord")
        kitty = _to_bits(obs.kitty, r, "kitty")
    # a seat that passed its lead holds W alone from then on (RULES.md 3):
    # the trick followed from the history's start, whose move to beat is the
    # position's own (made by pm_seat; the seat between may have passed
    # unrecorded) or none (its first entry leads); a lead passed makes the
    # next seat lead
    lone_w = -1
    beat_seat = pm_seat
    for s, mv in history:
        if (<Move>mv).m.kind != K_PASS:
            beat_seat = s
        elif beat_seat < 0 or beat_seat == s:
            if lone_w >= 0 and lone_w != s:
                raise ValueError(f"the observation is inconsistent: seats {lone_w} and "
                                 f"{s} both passed their lead, which only a hand of W "
                                 f"alone does")
            lone_w = s
            beat_seat = -1
    # a deal's observation (no position's, no pool): every unseen card is in
    # a hidden hand, the kitty's included, and every play of the landlord
    # was seen
    is_deal = pool_cards is None and sum(sizes[s] for s in hidden) == _hand_size(unseen)
    if lone_w in hidden:
        if sizes[lone_w] != 1 or not _hand_contains(unseen, WBIT):
            raise ValueError(f"the observation is inconsistent: seat {lone_w} passed "
                             f"its lead, which only a hand of W alone does, but "
                             + ("W is not among the unseen cards" if sizes[lone_w] == 1
                                else f"it holds {sizes[lone_w]} cards"))
        unseen -= WBIT
        hidden.remove(lone_w)
    if not before_kitty:
        # The kitty is the landlord's: no farmer ever held a card of it, so
        # of each rank the hidden farmers hold at most what the deck has
        # beyond the kitty and what the farmers are seen to hold or to have
        # played (the position's own move included). The other unseen
        # cards of that rank (kitty_out) are the landlord's, or out of the
        # game in a position, whose landlord may have played them before.
        farmers_seen = 0
        for s in range(3):
            if s != ll:
                farmers_seen += played[s] + (pm_cards if pm_seat == s else 0)
                farmers_seen += (own if s == seat else open_hands[s] if s in open_hands
                                 else WBIT if s == lone_w else 0)
        for i in range(16):
            k = _nib(deck, i) - _nib(kitty, i) - _nib(farmers_seen, i)
            if k < 0:
                raise ValueError("the observation is inconsistent: the landlord "
                                 "cannot still hold its kitty (the farmers hold or "
                                 "played its cards)")
            if _nib(unseen, i) > k:
                kitty_out += (<uint64_t>(_nib(unseen, i) - k)) << (4 * i)
        if ll not in hidden:
            # its hand is known: the rest were played before a position,
            # which a deal has not
            if kitty_out and is_deal:
                raise ValueError("the observation is inconsistent: the landlord's "
                                 "kitty is neither in its hand nor among its plays")
            unseen -= kitty_out
            kitty_out = 0
        elif sum(sizes[s] for s in hidden) == _hand_size(unseen):
            # a deal: every unseen card is in a hidden hand, so the kitty the
            # landlord has not visibly played is in its hand
            forced = kitty_out
            kitty_out = 0
            if _hand_size(forced) > sizes[ll]:
                raise ValueError("the observation is inconsistent: the landlord "
                                 "cannot still hold its kitty")
            unseen -= forced
        # else the landlord's kitty_out is in its hand or out of the game:
        # dealt after the farmers
    pool = _card_indices(unseen)
    need = sum(sizes[s] for s in hidden) - (_hand_size(forced) if ll in hidden else 0)
    # (more unseen cards than hidden places: a position's, whose cards played
    # before it are unseen; a deal's fill them exactly, the kitty's too)
    if pool_cards is not None and need > len(pool):
        raise ValueError(f"pool holds {len(pool) + _hand_size(forced)} cards for "
                         f"{need + _hand_size(forced)} hidden places")
    if need > len(pool) or (need < len(pool) and before_kitty):
        raise ValueError(f"the observation is inconsistent: {len(pool)} unseen "
                         f"cards for {need} hidden places")
    if kitty_out:
        # the farmers' cards first, from the cards not of the kitty
        farmers = [s for s in hidden if s != ll]
        if sum(sizes[s] for s in farmers) > _hand_size(unseen - kitty_out):
            raise ValueError("the observation is inconsistent: the farmers' hidden "
                             "hands need cards of the landlord's kitty")
        hidden = farmers + [s for s in hidden if s == ll]
        pool = np.concatenate((rng.permutation(_card_indices(unseen - kitty_out)),
                               _card_indices(kitty_out)))
        start = sum(sizes[s] for s in farmers)
        pool[start:] = rng.permutation(pool[start:])
    else:
        pool = rng.permutation(pool)
    dealt = {seat: own, **open_hands}
    if lone_w >= 0 and lone_w not in dealt:
        dealt[lone_w] = WBIT
    start = 0
    for s in hidden:
        size = sizes[s] - (_hand_size(forced) if s == ll else 0)
        dealt[s] = _packed_indices(pool, start, start + size) + (forced if s == ll else 0)
        start += size
    hands = [dealt[s] for s in range(3)]
    if before_kitty:
        # the shows made so far, in turn from the first bidder
        made = 3 if obs.phase == "bidding" else (to_move - fb) % 3
        shows = tuple(1 if shown[(fb + i) % 3] else 0 for i in range(made)) \
            if r.c.show else ()
        game = _bidding_game(r, hands, dealt[3], fb, bids, shows, redeals, obs.bidding)
        if game.g.to_move != to_move or _PHASES[game.g.phase] != obs.phase:
            raise ValueError(f"to_move {to_move} is not the seat to decide after bids "
                             f"{bids!r}")
        if obs.multiplier != game.g.mult:
            raise ValueError(f"multiplier {obs.multiplier!r} is not what the shows and "
                             f"bids give ({game.g.mult})")
    else:
        platform = None
        if r.c.rob or r.c.show or r.c.doubling:
            platform = (obs.robs, obs.shown, obs.doubles, obs.phase)
        elif obs.phase != "play":
            raise ValueError(f"phase {obs.phase!r} needs the platform options of RULES.md "
                             f"10, which {r.name!r} does not have")
        if position_move is None:
            game = _position_game(r, hands, kitty, ll, obs.base, to_move, obs.last_move,
                                  obs.last_seat, history, bids, fb, platform,
                                  redeals)
        else:
            # the position as it was, its hands holding what they played
            # since, and the history played again: its own move then counts
            # in the multiplier and the springs as in the observed game
            game = _position_game(r, [hands[s] + played[s] for s in range(3)], kitty,
                                  ll, obs.base, history[0][0] if history else to_move,
                                  position_move[1], pm_seat, (), bids, fb, platform,
                                  redeals)
            for s, mv in history:
                if game.g.to_move != s or game.g.phase != PHASE_PLAY:
                    raise ValueError(f"the history has seat {s} play {mv} where seat "
                                     f"{game.g.to_move} is to move")
                game.play(mv)
            if game.g.to_move != to_move:
                raise ValueError(f"to_move {to_move} is not the seat to play after the "
                                 f"history")
            if obs.last_move is None:
                trick = None
            else:
                _last_struct(obs.last_move, r, &table)
                trick = (obs.last_seat, _move(&table, r))
            if trick != (None if game.last_move is None
                         else (game.last_seat, game.last_move)):
                raise ValueError(f"last_move {obs.last_move} of seat {obs.last_seat} is "
                                 f"not the move to beat after position_move and the "
                                 f"history ({game.last_move} of seat {game.last_seat})")
        if obs.multiplier != game.g.mult:
            raise ValueError(f"multiplier {obs.multiplier!r} is not what the history "
                             f"gives ({game.g.mult})")
    # the platform record (RULES.md 10) is the built deal's: made by its shows
    # and calls while bidding, checked against section 10 after the kitty, and
    # neutral in a rule set without the options
    if (robs, shown, doubles) != (game.g.robs, _seat_trio(game.g.shown), game.doubles):
        raise ValueError(f"robs {robs}, shown {tuple(obs.shown)!r} and doubles "
                         f"{doubles!r} are not what a deal of {r.name!r} with these bids "
                         f"and phase has: robs {game.g.robs}, shown {game.shown!r}, "
                         f"doubles {game.doubles!r}")
    game.g.rng = <uint64_t>int(rng.integers(0, 1 << 63))
    if before_kitty:
        # a redeal still to come is drawn anew (not the real deal's: the
        # seat does not know its cards)
        game.g.seed = <uint64_t>int(rng.integers(0, 1 << 63))
    return game
