# Python wrappers of the deal engine (_engine.pxi), included into _core.pyx:
# Game, the object bots drive, and the native simulation entry point.

import collections
import os

DEAL_DTYPE = np.dtype(
    [("seed", "<u8"), ("scores", "<f8", (3,)), ("multiplier", "<i8"),
     ("moves", "<i2"), ("bombs", "<i2"), ("landlord", "i1"), ("base", "i1"),
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

    def __init__(self, rules="classic", seed=None, bint bidding=True, int first_bidder=0):
        self._rules = _get_rules(rules)
        if seed is None:
            seed = int.from_bytes(os.urandom(8), "little")
        if not isinstance(seed, (int, np.integer)) or not 0 <= seed < (1 << 64):
            raise ValueError(f"seed must be an int in 0 .. 2**64 - 1, not {seed!r}")
        if not 0 <= first_bidder < 3:
            raise ValueError(f"first_bidder is a seat 0..2, not {first_bidder}")
        ddz_game_new(&self.g, &self._rules.c, <uint64_t>seed, first_bidder, bidding)
        self._history = []
        self._bids = []

    @staticmethod
    def from_position(hands, rules="classic", int landlord=0, int base=1, kitty=""):
        """A deal that starts in the play phase from given hands (the
        landlord's including its kitty), for tests, puzzles and endgames. The
        hands need not use the whole deck but must fit in it together;
        ``kitty`` (shown to all) must be part of the landlord's hand."""
        cdef Game game = Game.__new__(Game)
        cdef Rules r = _get_rules(rules)
        cdef uint64_t total = 0
        cdef uint64_t bits[3]
        cdef int s
        if len(hands) != 3:
            raise ValueError("three hands, one per seat")
        if not 0 <= landlord < 3 or not 1 <= base <= 3:
            raise ValueError("landlord is a seat 0..2 and base 1..3")
        for s in range(3):
            bits[s] = _to_bits(hands[s], r, f"hands[{s}]")
            for i in range(16):
                if _nib(total, i) + _nib(bits[s], i) > (4 if i < 13 else 1):
                    raise ValueError(f"the hands hold more {CARD_CHARS[i]!r} than "
                                     f"the {r.name!r} deck")
            total += bits[s]
        k = _to_bits(kitty, r, "kitty")
        if not ddz_contains(bits[landlord], k):
            raise ValueError("the kitty must be part of the landlord's hand")
        game._rules = r
        game._history = []
        game._bids = []
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
    def seed(self) -> int:
        return self.g.seed

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
        cdef int s = self.g.to_move if seat is None else seat
        cdef uint64_t played[3]
        cdef int i
        if not 0 <= s < 3:
            raise ValueError(f"seat is 0..2, not {seat}")
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
        if not isinstance(points, int) or ddz_game_bid(&self.g, points) != 0:
            raise ValueError(f"seat {who} cannot bid {points!r}: legal bids are "
                             f"{[0] + list(range(self.g.high_bid + 1, 4))} (0 passes)")
        self._bids.append((who, points))

    def legal_moves(self) -> MoveList:
        """The legal moves of the seat to move (empty unless playing)."""
        if self.g.phase != PHASE_PLAY:
            return _move_list(_scratch, 0, self._rules)
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
            raise ValueError(self._why_illegal(&m, who))
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
        if self.g.phase != PHASE_PLAY:
            raise ValueError(f"no move now: the deal is in its {self.phase} phase")
        k = ddz_policy_move(&self.g, &self._rules.c, code, _scratch, SCRATCH)
        if k >= 0:
            return _move(&_scratch[k], self._rules)
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
        if seat is not None and seat != self.g.to_move:
            raise ValueError(f"seat {seat} cannot {what} out of turn: seat "
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
        return (f"<Game {self._rules.name} seed={self.g.seed} {self.phase} "
                f"to_move={self.to_move} cards_left={self.cards_left}>")


cdef int _policy_code(object policy) except -1:
    code = POLICIES.get(policy) if isinstance(policy, str) else None
    if code is None:
        raise ValueError(f"unknown built-in policy {policy!r}; built in: "
                         f"{', '.join(POLICIES)}")
    return code


def _simulate_native(rules, policies, uint64_t seed, int64_t start, int64_t stop,
                     bint bidding, int threads=1):
    """Rows of DEAL_DTYPE for deals start..stop, every seat a built-in policy,
    on ``threads`` threads (each writing its own slice of the result)."""
    cdef Rules r = _get_rules(rules)
    cdef int64_t n = stop - start
    cdef cnp.ndarray rows
    if n < 0:
        raise ValueError("stop must not be below start")
    if len(policies) != 3:
        raise ValueError("three policies, one per seat")
    codes = np.array([_policy_code(p) for p in policies], dtype=np.intc)
    rows = np.zeros(n, dtype=DEAL_DTYPE)
    threads = max(1, min(threads, n if n > 0 else 1))
    bounds = [start + n * t // threads for t in range(threads + 1)]
    failed = []
    _parallel(threads, _simulate_chunk,
              [(r, codes, seed, bounds[t], bounds[t + 1], bidding, rows,
                bounds[t] - start, failed) for t in range(threads)])
    if failed:
        raise MemoryError("out of memory simulating deals")
    return rows


def _simulate_chunk(Rules r, cnp.ndarray codes, uint64_t seed, int64_t start,
                    int64_t stop, bint bidding, cnp.ndarray rows, int64_t offset,
                    list failed):
    cdef const int* pc = <const int*>cnp.PyArray_DATA(codes)
    cdef ddz_deal_row* out = <ddz_deal_row*>cnp.PyArray_DATA(rows) + offset
    cdef int status
    with nogil:
        status = ddz_simulate(&r.c, pc, seed, start, stop, bidding, out)
    if status != 0:
        failed.append(start)


def deal_seed(uint64_t seed, int64_t index) -> int:
    """The seed of deal ``index`` in a simulation run seeded ``seed``:
    ``Game(rules, deal_seed(seed, i), bidding, first_bidder=i % 3)`` replays it."""
    return ddz_deal_seed(seed, index)


def _score_row(Game game):
    """The DEAL_DTYPE row of a finished Game (for simulate's Python path)."""
    cdef ddz_deal_row row
    if game.g.phase != PHASE_DONE:
        raise ValueError("the deal is not over")
    ddz_game_score(&game.g, &game._rules.c, &row)
    out = np.zeros(1, dtype=DEAL_DTYPE)
    memcpy(cnp.PyArray_DATA(out), &row, sizeof(ddz_deal_row))
    return out[0]
