# Python wrappers of the deal engine (_engine.pxi), included into _core.pyx:
# Game, the object bots drive, and the native simulation entry point.

import collections
import numbers
import os

from ddzfast.constants import check_threads, worker_count

DEAL_DTYPE = np.dtype(
    [("seed", "=u8"), ("scores", "=f8", (3,)), ("multiplier", "=i8"),
     ("moves", "=i2"), ("bombs", "=i2"), ("landlord", "i1"), ("base", "i1"),
     ("winner", "i1"), ("spring", "?"), ("anti_spring", "?"),
     ("first_bidder", "i1")],
    align=True,
)
if DEAL_DTYPE.itemsize != sizeof(ddz_deal_row):
    raise ImportError("DEAL_DTYPE does not match the core's deal row layout")

POLICIES = {"random": POLICY_RANDOM, "greedy": POLICY_GREEDY}

GameResult = collections.namedtuple(
    "GameResult",
    "winner winner_seat landlord base multiplier spring anti_spring scores")
GameResult.__doc__ = """The result of a finished deal. ``winner`` is
"landlord" or "farmers"; ``scores`` the three seats' scores (RULES.md 6);
``multiplier`` includes spring and the rule set's cap."""

Observation = collections.namedtuple(
    "Observation",
    "seat phase hand cards_left played landlord base kitty to_move last_move "
    "last_seat bids history multiplier")
Observation.__doc__ = """What one seat sees: its own ``hand``, the number of
cards every seat holds, the cards each seat has played, the kitty once it is
shown, the bids and the play history; never the other hands."""

_PHASES = ("bidding", "play", "done")



cdef int _seat_arg(object value, str what) except -1:
    """A seat 0..2 from an int-like argument; TypeError/ValueError otherwise."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{what} is a seat 0..2, not {value!r}")
    if not 0 <= value < 3:
        raise ValueError(f"{what} is a seat 0..2, not {value}")
    return value


cdef uint64_t _seed_arg(object seed, str what) except? 0:
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) \
            or not 0 <= seed < (1 << 64):
        raise ValueError(f"{what} must be an int in 0 .. 2**64 - 1, not {seed!r}")
    return <uint64_t>int(seed)


cdef class Game:
    """One deal, driven step by step by bots (RULES.md sections 5 and 6).

    ``Game(rules="classic", seed=None, bidding=True, first_bidder=0)`` deals
    the cards from ``seed`` (random when None). With ``bidding`` the seats
    bid first (``legal_bids()``, ``bid(points)``); without it seat 0 is the
    landlord with base 1. Then ``legal_moves()`` and ``play(move)`` until
    ``done``; ``result`` scores the deal. An illegal bid or move, or one out of
    turn, raises ValueError and leaves the game unchanged.
    """

    cdef ddz_game g
    cdef Rules _rules
    cdef list _history
    cdef list _bids
    cdef bint _dealt      # dealt from a seed (False: from_position)

    def __cinit__(self):
        # Even a Game made by Game.__new__ alone is a whole deal (classic,
        # seed 0, bidding), never a struct of zeros behind a None rule set.
        self._rules = _RULES["classic"]
        ddz_game_new(&self.g, &self._rules.c, 0, 0, 1)
        self._history = []
        self._bids = []
        self._dealt = True

    def __init__(self, rules="classic", seed=None, bidding=True, first_bidder=0):
        cdef Rules r = _get_rules(rules)
        cdef int fb = _seat_arg(first_bidder, "first_bidder")
        cdef uint64_t s
        if seed is None:
            seed = int.from_bytes(os.urandom(8), "little")
        s = _seed_arg(seed, "seed")
        if not isinstance(bidding, (bool, np.bool_)):
            raise TypeError(f"bidding must be True or False, not {bidding!r}")
        self._rules = r
        ddz_game_new(&self.g, &r.c, s, fb, 1 if bidding else 0)
        self._history = []
        self._bids = []
        self._dealt = True

    @staticmethod
    def from_position(hands, rules="classic", landlord=0, base=1, kitty=""):
        """A deal that starts in the play phase from given hands (the
        landlord's including its kitty), for tests, puzzles and endgames. The
        hands need not use the whole deck but must fit in it together, and
        none may be empty; ``kitty`` (shown to all) must be part of the
        landlord's hand. Its ``seed`` is None (it was not dealt)."""
        cdef Game game = Game.__new__(Game)
        cdef Rules r = _get_rules(rules)
        cdef uint64_t total = 0
        cdef uint64_t bits[3]
        cdef int s, i
        cdef int ll = _seat_arg(landlord, "landlord")
        if isinstance(base, bool) or not isinstance(base, numbers.Integral) \
                or not 1 <= base <= 3:
            raise ValueError(f"base is 1..3, not {base!r}")
        if isinstance(hands, (str, bytes)) or len(hands) != 3:
            raise ValueError("three hands, one per seat")
        for s in range(3):
            bits[s] = _to_bits(hands[s], r, f"hands[{s}]")
            if bits[s] == 0:
                raise ValueError(f"hands[{s}] is empty: a deal ends when a hand "
                                 f"empties, so no position has an empty hand")
            for i in range(16):
                if _nib(total, i) + _nib(bits[s], i) > CARD_LIMITS[i]:
                    raise InvalidCardsError(f"the hands hold more {CARD_CHARS[i]!r} "
                                            f"than the {r.name!r} deck")
            total += bits[s]
        k = _to_bits(kitty, r, "kitty")
        if not ddz_contains(bits[ll], k):
            raise InvalidCardsError("the kitty must be part of the landlord's hand")
        game._rules = r
        game._history = []
        game._bids = []
        game._dealt = False
        landlord = ll
        ddz_game_new(&game.g, &r.c, 0, landlord, 0)
        for s in range(3):
            game.g.hands[s] = bits[s]
        game.g.hands[landlord] -= k
        game.g.kitty = k
        game.g.phase = PHASE_BIDDING
        _start_play(&game.g, landlord, base)
        return game

    # ---- state ----------------------------------------------------------------

    @property
    def rules(self) -> Rules:
        return self._rules

    @property
    def seed(self):
        """The deal's seed, or None for a position (from_position)."""
        return self.g.seed if self._dealt else None

    @property
    def phase(self) -> str:
        """"bidding", "play" or "done"."""
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
        """The base score: the winning bid (0 while bidding)."""
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
        """Every bid so far as (seat, points), 0 for a pass."""
        return list(self._bids)

    @property
    def multiplier(self) -> int:
        """The product of the factors of the moves played so far (spring and
        the cap are applied in result)."""
        return self.g.mult

    @property
    def cards_left(self):
        return tuple(ddz_size(self.g.hands[s]) for s in range(3))

    @property
    def done(self) -> bool:
        return self.g.phase == PHASE_DONE

    @property
    def result(self):
        """The GameResult once the deal is over, else None."""
        cdef ddz_deal_row row
        if self.g.phase != PHASE_DONE:
            return None
        ddz_game_score(&self.g, &self._rules.c, &row)
        return GameResult(
            "landlord" if row.winner == 0 else "farmers", self.g.winner_seat,
            row.landlord, row.base, row.multiplier, bool(row.spring),
            bool(row.anti_spring), (row.scores[0], row.scores[1], row.scores[2]))

    def observation(self, seat=None) -> Observation:
        """What ``seat`` (default: the seat to move) may see."""
        cdef int s = self.g.to_move if seat is None else _seat_arg(seat, "seat")
        cdef uint64_t played[3]
        cdef int i
        played[0] = played[1] = played[2] = 0
        for i, mv in self._history:
            played[i] += (<Move>mv).m.cards
        return Observation(
            s, self.phase, _hand(self.g.hands[s]), self.cards_left,
            tuple(_hand(played[i]) for i in range(3)), self.landlord, self.g.base,
            None if self.g.phase == PHASE_BIDDING else _hand(self.g.kitty),
            self.to_move, self.last_move, self.last_seat, tuple(self._bids),
            tuple(self._history), self.g.mult)

    # ---- actions ----------------------------------------------------------------

    def legal_bids(self):
        """The bids the seat to move may make (0 is a pass); [] when not bidding."""
        if self.g.phase != PHASE_BIDDING:
            return []
        return [0] + list(range(self.g.high_bid + 1, 4))

    def bid(self, points, seat=None):
        """The seat to move bids ``points`` (0: pass; else above the highest bid,
        at most 3). ``seat``, when given, must be the seat to move."""
        cdef int who = self.g.to_move
        self._check_turn(seat, PHASE_BIDDING, "bid")
        if (isinstance(points, bool) or not isinstance(points, numbers.Integral)
                or not 0 <= points <= 3 or ddz_game_bid(&self.g, points) != 0):
            raise ValueError(f"seat {who} cannot bid {points!r}: legal bids are "
                             f"{[0] + list(range(self.g.high_bid + 1, 4))} (0 passes)")
        self._bids.append((who, int(points)))

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
        self._check_turn(seat, PHASE_PLAY, "play")
        _move_struct(move, self._rules, &m, "move")
        if ddz_game_play(&self.g, &self._rules.c, &m) != 0:
            raise IllegalMoveError(self._why_illegal(&m, who))
        self._history.append((who, _move(&m, self._rules)))

    def policy_action(self, policy="greedy"):
        """What a built-in policy ("random" or "greedy") would do now: a bid
        while bidding (policy_bid), else a Move (policy_move)."""
        if self.g.phase == PHASE_BIDDING:
            return self.policy_bid(policy)
        return self.policy_move(policy)

    def policy_bid(self, policy="greedy") -> int:
        """The bid a built-in policy would make now. Uses (and advances) the
        deal's own random stream, as ``simulate`` does."""
        cdef int code = _policy_code(policy)
        if self.g.phase != PHASE_BIDDING:
            raise ValueError(f"no bid now: the deal is in its {self.phase} phase")
        return ddz_policy_bid(&self.g, code)

    def policy_move(self, policy="greedy") -> Move:
        """The move a built-in policy would play now. Uses (and advances) the
        deal's own random stream, as ``simulate`` does."""
        cdef int code = _policy_code(policy)
        cdef int64_t k, n
        cdef ddz_move* buf
        cdef ddz_move stack_buf[STACK_MOVES]
        if self.g.phase != PHASE_PLAY:
            raise ValueError(f"no move now: the deal is in its {self.phase} phase")
        k = ddz_policy_move(&self.g, &self._rules.c, code, stack_buf, STACK_MOVES)
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
                             f"{_PHASES[self.g.phase]} phase")
        if seat is not None and _seat_arg(seat, "seat") != self.g.to_move:
            raise IllegalMoveError(f"seat {seat} cannot {what} out of turn: seat "
                             f"{self.g.to_move} is to move")

    cdef str _why_illegal(self, const ddz_move* m, int who):
        cdef Move mv = _move(m, self._rules)
        if m.kind == K_PASS:
            return f"seat {who} cannot pass when leading"
        if not ddz_contains(self.g.hands[who], m.cards):
            return (f"seat {who} cannot play {mv}: its hand "
                    f"{_cards_text(self.g.hands[who])} does not hold those cards")
        return f"seat {who} cannot play {mv}: it does not beat {_move(&self.g.last, self._rules)}"

    def __repr__(self):
        return (f"<Game {self._rules.name} seed={self.seed} {self.phase} "
                f"to_move={self.to_move} cards_left={self.cards_left}>")


cdef int _policy_code(object policy) except -1:
    code = POLICIES.get(policy) if isinstance(policy, str) else None
    if code is None:
        raise ValueError(f"unknown built-in policy {policy!r}; built in: "
                         f"{', '.join(POLICIES)}")
    return code


def _simulate_native(rules, policies, seed, start, stop, bidding, threads=1):
    """Rows of DEAL_DTYPE for deals start..stop, every seat a built-in policy,
    on up to ``threads`` threads (each writing its own slice of the result)."""
    cdef Rules r = _get_rules(rules)
    cdef uint64_t s = _seed_arg(seed, "seed")
    cdef int64_t first, n
    cdef cnp.ndarray rows
    for value, what in ((start, "start"), (stop, "stop")):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) \
                or not 0 <= value < (1 << 63):
            raise ValueError(f"{what} is a deal index in 0 .. 2**63 - 1, not {value!r}")
    if stop < start:
        raise ValueError("stop must not be below start")
    first = start
    n = stop - start
    threads = check_threads(threads)
    if len(policies) != 3:
        raise ValueError("three policies, one per seat")
    codes = np.array([_policy_code(p) for p in policies], dtype=np.intc)
    rows = np.zeros(n, dtype=DEAL_DTYPE)
    threads = worker_count(threads, n)
    bounds = [first + n * t // threads for t in range(threads + 1)]
    status = [DDZ_OK] * threads
    _parallel(threads, _simulate_chunk,
              [(r, codes, s, bounds[t], bounds[t + 1], 1 if bidding else 0, rows,
                bounds[t] - first, status, t) for t in range(threads)])
    for code in status:
        _raise_engine_error(code)
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


def _simulate_chunk(Rules r, cnp.ndarray codes, uint64_t seed, int64_t start,
                    int64_t stop, int bidding, cnp.ndarray rows, int64_t offset,
                    list status, int slot):
    cdef const int* pc = <const int*>cnp.PyArray_DATA(codes)
    cdef ddz_deal_row* out = <ddz_deal_row*>cnp.PyArray_DATA(rows) + offset
    cdef int code
    with nogil:
        code = ddz_simulate(&r.c, pc, seed, start, stop, bidding, out)
    status[slot] = code


def deal_seed(seed, index) -> int:
    """The seed of deal ``index`` (0 .. 2**63 - 1) in a simulation run seeded
    ``seed`` (0 .. 2**64 - 1): ``Game(rules, deal_seed(seed, i), bidding,
    first_bidder=i % 3)`` replays it."""
    cdef uint64_t s = _seed_arg(seed, "seed")
    if isinstance(index, bool) or not isinstance(index, numbers.Integral) \
            or not 0 <= index < (1 << 63):
        raise ValueError(f"index is a deal index in 0 .. 2**63 - 1, not {index!r}")
    return ddz_deal_seed(s, <int64_t>index)


def _score_row(Game game):
    """The DEAL_DTYPE row of a finished Game (for simulate's Python path)."""
    cdef ddz_deal_row row
    if game.g.phase != PHASE_DONE:
        raise ValueError("the deal is not over")
    memset(&row, 0, sizeof(ddz_deal_row))     # padding included: rows compare bytewise
    ddz_game_score(&game.g, &game._rules.c, &row)
    out = np.zeros(1, dtype=DEAL_DTYPE)
    memcpy(cnp.PyArray_DATA(out), &row, sizeof(ddz_deal_row))
    return out[0]
