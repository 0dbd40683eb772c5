# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Many deals stepped together in C: ``ddzfast.env.VectorEnv``.

The deals are C structs (a ``ddz_game`` and the ``ddz_obs_record`` its
observation needs: played cards, bids, a ring of the last HISTORY_MOVES
plays); ``step`` checks every action, then applies them, plays the built-in
opponents, scores and re-deals the deals that end, and writes observations,
legal actions and masks into buffers the environment owns, in C without
the GIL, on threads over contiguous ranges of deals. Nothing is allocated
per step (the buffers of legal actions grow, rarely, to the largest count
seen). The observation is written by ``ddz_fill_observation``
(_observe.pxi), the one writer Game.observation_tensor uses too.

Passes of one step (N deals, T threads; rows i of thread j's range):
  0. check (serial, no state changed): each action on a copy of its deal;
     the first illegal one raises, naming its row;
  1. act (parallel): the action, then the opponents until the learner is to
     move or the deal ends; a deal that ends is scored into `rewards`;
  -  number (serial): the deals that ended get the run's next deal numbers,
     in increasing row;
  2. observe (parallel): those deals dealt (and their opponents played),
     then every row's observation, seat to move, legal actions (into its
     thread's list) and mask;
  -  rare (serial): a new deal that ended before the learner's first
     decision (seat=k) is replaced by the run's next deal, until one does
     not;
  3. gather (serial): the CSR offsets and indices from the threads' lists.
"""

from libc.stdint cimport uint8_t, int8_t, int32_t, int64_t, uint64_t
from libc.stdlib cimport malloc, calloc, free, realloc
from libc.string cimport memcpy, memset

cimport numpy as cnp
import numpy as np

from ddzfast._core cimport *
from ddzfast._engine cimport *
from ddzfast._split cimport ddz_split_ctx, ddz_split_free, ddz_split_init

import os
from functools import partial

from ddzfast._core import _Crew, _fixed_action_rules
from ddzfast._engine import _PHASES, OBSERVATION_LAYOUT, OBSERVATION_SIZE, POLICIES
from ddzfast.constants import BID_ACTIONS, CHOICE_ACTIONS
from ddzfast.rulesets import decision_options

cnp.import_array()

#: The most deals one VectorEnv holds (its float32 observations alone are
#: then OBSERVATION_SIZE * 4 bytes a deal, about 10 GB).
MAX_ENVS = 1 << 20
#: The observation dtypes a VectorEnv writes.
OBS_DTYPES = ("float32", "uint8")


def _obs_dtype_name(obs_dtype) -> str:
    """The name in OBS_DTYPES of ``obs_dtype``: that name, or a numpy dtype
    or scalar type of it (np.float32, np.dtype("uint8"))."""
    if isinstance(obs_dtype, str) and obs_dtype in OBS_DTYPES:
        return obs_dtype
    try:
        name = np.dtype(obs_dtype).name if obs_dtype is not None else None
    except (TypeError, ValueError):
        name = None
    if name not in OBS_DTYPES:
        raise ValueError(f"obs_dtype must be one of {', '.join(OBS_DTYPES)} (a name, or "
                         f"a numpy dtype of it), not {obs_dtype!r}")
    return name
#: The masks a VectorEnv writes besides the CSR lists.
MASK_KINDS = (None, "dense", "bits")

cdef int O_SIZE = OBSERVATION_SIZE
cdef int O_MULT = OBSERVATION_LAYOUT["multiplier"].offset


ctypedef struct vec_deal:
    ddz_game g
    ddz_obs_record r
    int64_t deal                # the deal's number in the run


ctypedef struct vec_list:
    # one thread's legal-action list (rows of its range, in order)
    int32_t* idx
    int64_t cap
    int64_t n
    ddz_move* moves             # the opponents' move buffer
    int64_t moves_cap
    ddz_split_ctx split         # the expert opponents' split context
    int split_ready
    float* scratch              # one float observation (uint8 observations)
    int status


ctypedef struct vec_env:
    const ddz_rules* rules
    const ddz_actions* table
    int64_t n
    int64_t move_count          # actions that are moves: 0 .. move_count - 1
    int64_t action_count        # move_count + choice_count
    int64_t choice_count        # BID_ACTIONS, CHOICE_ACTIONS (platform options) or 0
    int bidding
    int seat                    # the learner's seat, or -1 (self-play)
    int policies[3]
    int uint8_obs
    int mask_kind               # 0: none, 1: dense, 2: bits
    int64_t mask_row            # bytes per mask row
    uint64_t seed
    vec_deal* deals
    int8_t* fresh               # 1: row i needs a new deal (ended this step)
    int8_t* more                # 1: row i's new deal ended before the learner moved
    int32_t* lcount             # legal actions of row i
    int64_t* lstart             # their start in the list of lthread[i]
    int32_t* lthread            # the list holding them (threads: the rare list)
    # the buffers exposed as numpy arrays
    float* obs_f
    uint8_t* obs_u
    int32_t* to_move
    double* rewards
    uint8_t* terminated
    uint8_t* mask


cdef inline int64_t _choice_action(int choice, int64_t move_count, int doubling) noexcept nogil:
    # The action of a decision's choice (the environments' actions): 0 says
    # no (a pass, no show, doubling x1); choice v else move_count + v - 1.
    if choice == 0 or (choice == 1 and doubling):
        return 0
    return move_count + choice - 1


cdef inline int _action_choice(int64_t a, int64_t move_count, int64_t choice_count,
                               int doubling) noexcept nogil:
    # The choice action `a` stands for in a decision, or -1: only
    # _choice_action's action of a choice stands for it (doubling x1 is 0)
    cdef int c
    if a == 0:
        return 1 if doubling else 0
    if a < move_count or a >= move_count + choice_count:
        return -1
    c = <int>(a - move_count) + 1
    return c if _choice_action(c, move_count, doubling) == a else -1


def choice_actions(rules, bint bidding) -> int:
    """The environments' actions after the moves for ``rules`` (a Rules):
    CHOICE_ACTIONS with the platform options that add decisions (RULES.md
    10; rob bidding only when the deals are bid), else BID_ACTIONS with
    ``bidding``, else 0."""
    on = decision_options(rules.platform)
    # (rob bidding decides nothing in a deal that is not bid)
    if on["showing"] or on["doubling"] or (bidding and on["rob bidding"]):
        return CHOICE_ACTIONS
    return BID_ACTIONS if bidding else 0


def choice_action(int choice, int64_t move_count, bint doubling) -> int:
    """The environments' action for ``choice`` (``Game.legal_choices()``)
    in a decision phase, ``move_count`` the rule set's move actions,
    ``doubling`` whether the decision is a doubling factor."""
    return _choice_action(choice, move_count, doubling)


def action_choice(int64_t action, int64_t move_count, int64_t choice_count,
                  bint doubling) -> int:
    """The choice ``action`` stands for in a decision phase (see
    ``choice_action``), or -1 when it stands for none."""
    return _action_choice(action, move_count, choice_count, doubling)


cdef inline void _record_choice(ddz_obs_record* r, const ddz_game* g, int phase, int seat,
                                int c) noexcept nogil:
    # a point bid goes to the observation's bids block (rob bidding and the
    # other decisions have blocks of their own, read off the game)
    if phase == PHASE_BIDDING and not g.opt_rob:
        ddz_obs_record_bid(r, seat, c)


cdef inline int _apply(vec_env* e, ddz_game* g, ddz_obs_record* r, int64_t a) noexcept nogil:
    # action `a` by the seat to move of g: 0, or -1 (g unchanged) when illegal
    cdef int seat = g.to_move
    cdef int phase = g.phase
    cdef int c
    cdef const ddz_move* m
    if phase != PHASE_PLAY and ddz_game_choosing(g):
        c = _action_choice(a, e.move_count, e.choice_count, phase == PHASE_DOUBLING)
        if c < 0 or ddz_game_choose(g, c) != 0:
            return -1
        if r != NULL:
            _record_choice(r, g, phase, seat, c)
        return 0
    if g.phase != PHASE_PLAY or a < 0 or a >= e.move_count:
        return -1
    m = &e.table.moves[a]
    if ddz_game_play_generated(g, e.rules, m) != 0:
        return -1
    if r != NULL:
        ddz_obs_record_play(r, seat, m)
    return 0


cdef int _opponents(vec_env* e, vec_deal* d, vec_list* w) noexcept nogil:
    # The built-in opponents play until seat e.seat is to move or the deal
    # ends; each move is recorded as its action's table entry (as a Game
    # replaying it with play_action records it). DDZ_OK or a DDZ_ERR_ code.
    cdef ddz_game* g = &d.g
    cdef int seat, c, phase
    cdef int64_t k, a
    if e.seat < 0:
        return DDZ_OK
    while g.phase != PHASE_DONE and g.to_move != e.seat:
        seat = g.to_move
        if g.phase != PHASE_PLAY and ddz_game_choosing(g):
            phase = g.phase
            c = ddz_policy_choice(g, e.policies[seat])
            if ddz_game_choose(g, c) != 0:
                return DDZ_ERR_ILLEGAL
            _record_choice(&d.r, g, phase, seat, c)
            continue
        k = ddz_policy_move_grow(g, e.rules, e.policies[seat], &w.moves, &w.moves_cap,
                                 &w.split if w.split_ready else NULL)
        if k < 0:
            return <int>k
        a = ddz_action_index(e.table, &w.moves[k])
        if a < 0:
            return DDZ_ERR_NO_ACTION
        if ddz_game_play_generated(g, e.rules, &e.table.moves[a]) != 0:
            return DDZ_ERR_ILLEGAL
        ddz_obs_record_play(&d.r, seat, &e.table.moves[a])
    return DDZ_OK


cdef inline void _deal(vec_env* e, vec_deal* d, int64_t index) noexcept nogil:
    d.deal = index
    ddz_game_new(&d.g, e.rules, ddz_deal_seed(e.seed, index),
                 <int>(index % 3), e.bidding)
    ddz_obs_record_clear(&d.r)


cdef int _act_range(vec_env* e, const int32_t* actions, int64_t a, int64_t b,
                    vec_list* w) noexcept nogil:
    # pass 1 over rows a..b-1 (actions already checked)
    cdef int64_t i
    cdef vec_deal* d
    cdef ddz_deal_row row
    cdef int status
    for i in range(a, b):
        d = &e.deals[i]
        e.rewards[3 * i] = e.rewards[3 * i + 1] = e.rewards[3 * i + 2] = 0.0
        e.terminated[i] = 0
        e.fresh[i] = 0
        if _apply(e, &d.g, &d.r, actions[i]) != 0:
            return DDZ_ERR_ILLEGAL
        status = _opponents(e, d, w)
        if status != DDZ_OK:
            return status
        if d.g.phase == PHASE_DONE:
            ddz_game_score(&d.g, e.rules, &row)
            e.rewards[3 * i] = row.scores[0]
            e.rewards[3 * i + 1] = row.scores[1]
            e.rewards[3 * i + 2] = row.scores[2]
            e.terminated[i] = 1
            e.fresh[i] = 1
    return DDZ_OK


cdef int _list_room(vec_list* w, int64_t need) noexcept nogil:
    cdef int64_t cap
    cdef int32_t* grown
    if w.n + need <= w.cap:
        return DDZ_OK
    cap = w.cap * 2
    if cap < w.n + need:
        cap = w.n + need
    grown = <int32_t*>realloc(w.idx, cap * sizeof(int32_t))
    if grown == NULL:
        return DDZ_ERR_NOMEM
    w.idx = grown
    w.cap = cap
    return DDZ_OK


cdef int _observe_row(vec_env* e, int64_t i, vec_list* w, int list_id) noexcept nogil:
    # row i's observation, seat to move, legal actions (appended to w) and mask
    cdef vec_deal* d = &e.deals[i]
    cdef ddz_game* g = &d.g
    cdef int seat = g.to_move
    cdef int64_t n, j, k
    cdef int32_t* idx
    cdef float* f
    cdef uint8_t* u
    cdef uint8_t* mrow
    cdef int choices[DDZ_MAX_CHOICES]
    e.to_move[i] = seat
    if e.uint8_obs:
        f = w.scratch
    else:
        f = e.obs_f + i * O_SIZE
    ddz_fill_observation(g, e.rules, &d.r, seat, f)
    if e.uint8_obs:
        u = e.obs_u + i * O_SIZE
        for j in range(O_SIZE):
            u[j] = <uint8_t>f[j]
    if g.phase != PHASE_PLAY:
        n = ddz_game_choices(g, choices)
        if _list_room(w, n) != DDZ_OK:
            return DDZ_ERR_NOMEM
        idx = w.idx + w.n
        for k in range(n):
            idx[k] = <int32_t>_choice_action(choices[k], e.move_count,
                                             g.phase == PHASE_DOUBLING)
    else:
        n = ddz_legal_action_indices(e.rules, e.table, g.hands[seat],
                                     &g.last if g.has_last else NULL,
                                     w.idx + w.n, w.cap - w.n)
        if n > w.cap - w.n:
            if _list_room(w, n) != DDZ_OK:
                return DDZ_ERR_NOMEM
            n = ddz_legal_action_indices(e.rules, e.table, g.hands[seat],
                                         &g.last if g.has_last else NULL,
                                         w.idx + w.n, w.cap - w.n)
        if n < 0:
            return <int>n
        idx = w.idx + w.n
    e.lcount[i] = <int32_t>n
    e.lstart[i] = w.n
    e.lthread[i] = list_id
    w.n += n
    if e.mask_kind:
        mrow = e.mask + i * e.mask_row
        memset(mrow, 0, e.mask_row)
        if e.mask_kind == 1:
            for k in range(n):
                mrow[idx[k]] = 1
        else:
            for k in range(n):
                mrow[idx[k] >> 3] |= <uint8_t>(0x80 >> (idx[k] & 7))
    return DDZ_OK


cdef int _observe_range(vec_env* e, int64_t a, int64_t b, vec_list* w,
                        int list_id) noexcept nogil:
    # pass 2 over rows a..b-1: new deals where fresh, then every row observed
    cdef int64_t i
    cdef vec_deal* d
    cdef int status
    w.n = 0
    for i in range(a, b):
        d = &e.deals[i]
        e.more[i] = 0
        if e.fresh[i]:
            _deal(e, d, e.lstart[i])        # lstart holds the deal number here
            status = _opponents(e, d, w)
            if status != DDZ_OK:
                return status
            if d.g.phase == PHASE_DONE:
                e.more[i] = 1               # the rare pass deals it again
                e.lcount[i] = 0
                e.lstart[i] = 0
                e.lthread[i] = list_id
                continue
        status = _observe_row(e, i, w, list_id)
        if status != DDZ_OK:
            return status
    return DDZ_OK


cdef class VectorEnv:
    """``num_envs`` deals of Dou Dizhu stepped together in C.

    ``VectorEnv(num_envs, rules="classic", bidding=False, seat=None,
    opponents=None, seed=None, threads=1, obs_dtype="float32", mask=None)``

    * ``reset(seed=None)`` deals the first ``num_envs`` deals and
      ``step(actions)`` (one action index per deal, an integer array of
      ``num_envs``) plays them; both write into the buffers below, which
      the environment owns: the same arrays at every step (read them after
      each call; ``legal_indices`` is a view that may move to a larger
      buffer when a position has more legal actions than any before).
    * ``obs``: (num_envs, OBSERVATION_SIZE), row i the observation
      (``Game.observation_tensor``) of row i's seat to move; float32, or
      uint8 with ``obs_dtype="uint8"`` (or ``np.uint8``; every entry is a small integer but
      ``multiplier``, log2 of the multiplier, written rounded down: exact
      unless a factor is no power of two, as ``super``'s SUPER_BOMB, 3).
      ``to_move`` (int32): each row's seat to move. ``rewards``
      (num_envs, 3, float64): the three seats' scores (``Game.result``) on
      the step that ends a deal, else 0. ``terminated`` (bool).
    * Legal actions of each row's seat to move as CSR: row i's are
      ``legal_indices[legal_offsets[i]:legal_offsets[i + 1]]`` (int32,
      ``Game.legal_action_indices`` order; in a decision phase the actions
      of ``Game.legal_choices()``, ascending). ``mask="dense"``: also ``mask``, int8
      (num_envs, action_count); ``mask="bits"``: uint8 (num_envs,
      ceil(action_count / 8)), ``np.unpackbits(mask, axis=1)`` the dense
      mask (padded); None (the default): no mask (``mask`` is None).
    * Actions: those of ``doudizhu_v0``: ``0 .. action_count(rules) - 1``
      the rule set's action index (0 is PASS); with ``bidding``
      ``action_count(rules) + k - 1`` bids ``k`` and 0 passes the bid.
      With the platform options of RULES.md 10 that add decisions (rob
      bidding when the deals are bid, showing, doubling; e.g.
      ``"classic+happy"``), ``CHOICE_ACTIONS`` follow the moves instead:
      choice ``v`` of ``Game.legal_choices()`` is action
      ``action_count(rules) + v - 1``, and 0 says no (a pass, no show,
      doubling x1). ``action_count`` is their number.
    * Autoreset: a deal that ends reports its ``rewards`` and
      ``terminated``, and its row already holds the next deal's first
      position. Deals are numbered in the order they start: ``reset``
      deals 0 .. num_envs - 1, each step the next numbers to the rows
      whose deals ended, in increasing row. Deal ``d`` is ``Game(rules,
      deal_seed(seed, d), bidding, first_bidder=d % 3)``, the deal
      ``simulate(..., seed=seed)`` plays as row ``d``; ``deals`` (int64)
      holds each row's deal number. ``reset(seed=s)`` starts the run
      seeded ``s`` at deal 0; ``reset()`` the constructor's seed at deal 0
      the first time, later the run's next ``num_envs`` deals.
    * ``seat=None``: every decision of every seat is a step (self-play).
      ``seat=k`` (0..2): ``opponents`` (one built-in policy name or two,
      the lower seat first, as ``simulate`` takes them; "greedy" when
      None) play the other seats in C inside ``step`` and every step is a
      decision of seat ``k``. A new deal that ends before seat ``k``'s
      first decision (the landlord's first lead emptying its hand) is not
      reported: the row takes the run's next deal number after those of
      the step.
    * Rule sets: any; laizi with its wild rank fixed (``"laizi:7"``), tiandi
      with both (``"tiandi:7J"``), as the environments' action space needs;
      the platform options but no-shuffle sessions (each deal is dealt
      from its own seed). A deal nobody calls is redealt within its row, as
      the rule set says.
    * ``threads``: the rows are split in contiguous ranges over that many
      threads (the buffers are the same for any number).
    * One call at a time: ``reset`` or ``step`` from another thread while
      one runs raises RuntimeError and changes nothing (they rewrite the
      buffers without the GIL); give each thread its own VectorEnv. Ctrl-C
      during a call on several threads raises KeyboardInterrupt once every
      thread's pass is done (a pass cannot be cut short), and the rows,
      stepped in part, then take a ``reset()`` before the next ``step``
      (a ValueError says so).

    Bad input (actions of the wrong length or dtype, an illegal action in
    any row, bad arguments) raises ValueError or TypeError naming the
    problem and the row, and changes nothing."""

    cdef vec_env e
    cdef vec_list* lists        # threads + 1 (the last: the rare pass's)
    cdef int nthreads
    cdef readonly int64_t num_envs
    cdef readonly object rules
    cdef readonly bint bidding
    cdef readonly object seat
    cdef readonly tuple opponents
    cdef readonly int threads
    cdef readonly str obs_dtype
    cdef readonly int64_t action_count
    cdef readonly int64_t next_deal
    cdef object _seed
    cdef bint _started
    cdef object _mask_kind
    cdef Rules _rules
    cdef _ActionTable _table
    cdef cnp.ndarray _obs, _to_move, _rewards, _terminated, _offsets, _indices
    cdef cnp.ndarray _mask, _deal_numbers, _actions32
    cdef object _crew           # the worker threads (_Crew), made on the first threaded pass
    cdef object _last_actions
    cdef long _busy             # a reset or step is running: its process (ddz_enter)
    cdef bint _interrupted      # a reset or step stopped part way: reset() before a step

    def __cinit__(self):
        self.lists = NULL
        self.e.deals = NULL
        self.e.fresh = NULL
        self.e.more = NULL
        self.e.lcount = NULL
        self.e.lstart = NULL
        self.e.lthread = NULL
        self.nthreads = 0

    def __init__(self, num_envs, rules="classic", bidding=False, seat=None,
                 opponents=None, seed=None, threads=1, obs_dtype="float32", mask=None):
        from ddzfast.constants import check_threads, split_policies
        from ddzfast.simulate import check_seed
        cdef Rules r
        cdef int64_t n, i
        cdef int k
        if self.nthreads:
            raise TypeError("a VectorEnv is initialised once")
        if not _is_integral(num_envs):
            raise TypeError(f"num_envs must be an int, not {type(num_envs).__name__}")
        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, not {num_envs}")
        if num_envs > MAX_ENVS:
            raise ValueError(f"num_envs must be at most MAX_ENVS = {MAX_ENVS} (2**20), "
                             f"not {num_envs}")
        n = num_envs
        r = _fixed_action_rules(rules, "a VectorEnv")
        if r.c.no_shuffle:
            raise ValueError(
                f"a VectorEnv deals every deal from its own seed, so it does not play "
                f"the no-shuffle sessions of {r.name!r} (deal='no_shuffle'): use "
                f"deal='shuffle', or play sessions with Game.next_deal or simulate")
        if not isinstance(bidding, (bool, np.bool_)):
            raise TypeError(f"bidding must be True or False, not {bidding!r}")
        if seat is not None:
            if not _is_integral(seat):
                raise TypeError(f"seat must be None or an int 0..2, not "
                                f"{type(seat).__name__}")
            if not 0 <= seat <= 2:
                raise ValueError(f"seat must be None or 0..2, not {seat}")
            seat = int(seat)
            items = split_policies(
                "greedy" if opponents is None else opponents, 2,
                "opponents must be a policy name or two, not {type}",
                "give one opponent policy or two (the lower seat first), not {n}")
            for p in items:
                if not isinstance(p, str) or p not in POLICIES:
                    raise ValueError(
                        f"a VectorEnv plays its opponents in C: each is one of "
                        f"{', '.join(POLICIES)}, not {p!r}")
            self.opponents = tuple(items)
        else:
            if opponents is not None:
                raise ValueError("opponents need a learner's seat: pass seat=0..2 "
                                 "(seat=None is self-play: every seat is a step)")
            self.opponents = ()
        if seed is not None:
            seed = check_seed(seed)
        self.threads = check_threads(threads)
        obs_dtype = _obs_dtype_name(obs_dtype)
        # (not `mask in MASK_KINDS`, which compares with ==: a NumPy array
        # holding "bits" would pass, and be kept as the mask kind)
        if not (mask is None or isinstance(mask, str)):
            raise TypeError(f"mask must be None, 'dense' or 'bits', not "
                            f"{type(mask).__name__}")
        if mask is not None:
            mask = str(mask)
        if mask not in MASK_KINDS:
            raise ValueError(f"mask must be None, 'dense' or 'bits', not {mask!r}")
        self.num_envs = n
        self._rules = r
        self.rules = r
        self.bidding = bool(bidding)
        self.seat = seat
        self._seed = seed
        self.obs_dtype = obs_dtype
        self._mask_kind = mask
        self._table = _actions_of(r)
        self._started = False
        self.next_deal = 0
        e = &self.e
        e.rules = &r.c
        e.table = &self._table.t
        e.n = n
        e.move_count = self._table.count
        e.choice_count = choice_actions(r, self.bidding)
        e.action_count = e.move_count + e.choice_count
        self.action_count = e.action_count
        e.bidding = self.bidding
        e.seat = -1 if seat is None else seat
        e.policies[0] = e.policies[1] = e.policies[2] = POLICY_GREEDY
        if seat is not None:
            k = 0
            for i in range(3):
                if i != seat:
                    e.policies[i] = POLICIES[self.opponents[0 if len(self.opponents) == 1 else k]]
                    k += 1
        e.uint8_obs = obs_dtype == "uint8"
        e.mask_kind = 0 if mask is None else (1 if mask == "dense" else 2)
        e.mask_row = e.action_count if e.mask_kind == 1 else (e.action_count + 7) // 8
        e.seed = 0
        self._obs = np.zeros((n, O_SIZE), dtype=np.uint8 if e.uint8_obs else np.float32)
        self._to_move = np.zeros(n, dtype=np.int32)
        self._rewards = np.zeros((n, 3), dtype=np.float64)
        self._terminated = np.zeros(n, dtype=np.bool_)
        self._offsets = np.zeros(n + 1, dtype=np.int64)
        self._indices = np.zeros(max(64, 32 * n), dtype=np.int32)
        self._deal_numbers = np.zeros(n, dtype=np.int64)
        self._mask = None
        if e.mask_kind:
            self._mask = np.zeros((n, e.mask_row),
                                  dtype=np.int8 if e.mask_kind == 1 else np.uint8)
            e.mask = <uint8_t*>cnp.PyArray_DATA(self._mask)
        e.obs_f = <float*>cnp.PyArray_DATA(self._obs)
        e.obs_u = <uint8_t*>cnp.PyArray_DATA(self._obs)
        e.to_move = <int32_t*>cnp.PyArray_DATA(self._to_move)
        e.rewards = <double*>cnp.PyArray_DATA(self._rewards)
        e.terminated = <uint8_t*>cnp.PyArray_DATA(self._terminated)
        e.deals = <vec_deal*>calloc(n, sizeof(vec_deal))
        e.fresh = <int8_t*>calloc(n, 1)
        e.more = <int8_t*>calloc(n, 1)
        e.lcount = <int32_t*>calloc(n, sizeof(int32_t))
        e.lstart = <int64_t*>calloc(n, sizeof(int64_t))
        e.lthread = <int32_t*>calloc(n, sizeof(int32_t))
        self.nthreads = self.threads if self.threads < n else <int>n
        self.lists = <vec_list*>calloc(self.nthreads + 1, sizeof(vec_list))
        if (e.deals == NULL or e.fresh == NULL or e.more == NULL or e.lcount == NULL
                or e.lstart == NULL or e.lthread == NULL or self.lists == NULL):
            raise MemoryError()
        for k in range(self.nthreads + 1):
            self.lists[k].cap = 64 * (n // self.nthreads + 1)
            self.lists[k].idx = <int32_t*>malloc(self.lists[k].cap * sizeof(int32_t))
            self.lists[k].moves_cap = DDZ_MOVE_BUFFER
            self.lists[k].moves = <ddz_move*>malloc(DDZ_MOVE_BUFFER * sizeof(ddz_move))
            self.lists[k].scratch = <float*>malloc(O_SIZE * sizeof(float))
            self.lists[k].split_ready = ddz_split_init(&self.lists[k].split)
            if (self.lists[k].idx == NULL or self.lists[k].moves == NULL
                    or self.lists[k].scratch == NULL or not self.lists[k].split_ready):
                raise MemoryError()
        self._actions32 = np.zeros(n, dtype=np.int32)
        self._crew = None

    def __reduce__(self):
        # (copy and deepcopy come here too)
        raise TypeError(
            "a VectorEnv is not pickled or copied: its rows are C deals stepped in "
            "place; make another with the same arguments (reset(seed=s) replays "
            "the run s from deal 0)")

    def __dealloc__(self):
        cdef int k
        if self.lists != NULL:
            for k in range(self.nthreads + 1):
                free(self.lists[k].idx)
                free(self.lists[k].moves)
                free(self.lists[k].scratch)
                if self.lists[k].split_ready:
                    ddz_split_free(&self.lists[k].split)
            free(self.lists)
        free(self.e.deals)
        free(self.e.fresh)
        free(self.e.more)
        free(self.e.lcount)
        free(self.e.lstart)
        free(self.e.lthread)
        if self._crew is not None and self._crew.made_here():
            self._crew.stop()

    # ---- the buffers -----------------------------------------------------------

    @property
    def obs(self):
        """(num_envs, OBSERVATION_SIZE) float32 (or uint8): each row's observation."""
        return self._obs

    @property
    def to_move(self):
        """(num_envs,) int32: each row's seat to move."""
        return self._to_move

    @property
    def rewards(self):
        """(num_envs, 3) float64: the scores of the deals that ended this step, else 0."""
        return self._rewards

    @property
    def terminated(self):
        """(num_envs,) bool: the rows whose deal ended this step."""
        return self._terminated

    @property
    def legal_offsets(self):
        """(num_envs + 1,) int64: row i's legal actions are
        legal_indices[legal_offsets[i]:legal_offsets[i + 1]]."""
        return self._offsets

    @property
    def legal_indices(self):
        """int32: the legal actions of every row, row after row (a view of a
        buffer that may grow: read it after each call)."""
        return self._indices[:self._offsets[self.num_envs]]

    @property
    def mask(self):
        """The mask asked for (int8 dense or uint8 bits, one row per deal), or None."""
        return self._mask

    @property
    def mask_kind(self):
        """None, "dense" or "bits", as passed."""
        return self._mask_kind

    @property
    def deals(self):
        """(num_envs,) int64: each row's deal number in the run."""
        return self._deal_numbers

    @property
    def seed(self):
        """The run's seed (None before the first reset without one given)."""
        return self._seed

    # ---- running -----------------------------------------------------------------

    def reset(self, seed=None):
        """Deal the first num_envs deals of the run seeded ``seed`` (deals 0 ..
        num_envs - 1), or with no seed: of the constructor's seed (a random
        one when it had none) the first time, later the run's next num_envs
        deals. Fills every buffer; returns ``obs``."""
        if not self.nthreads:
            raise TypeError("this VectorEnv was never initialised (VectorEnv(num_envs, ...))")
        ddz_enter(&self._busy, "VectorEnv")
        try:
            return self._reset(seed)
        finally:
            self._busy = 0

    cdef _reset(self, seed):
        from ddzfast.simulate import check_seed
        cdef int64_t i, first
        if seed is not None:
            self._seed = check_seed(seed)
            self.next_deal = 0
        elif self._seed is None:
            self._seed = int.from_bytes(os.urandom(8), "little")
            self.next_deal = 0
        elif not self._started:
            self.next_deal = 0
        self.e.seed = <uint64_t>self._seed
        first = self.next_deal
        for i in range(self.num_envs):
            self.e.fresh[i] = 1
            self.e.lstart[i] = first + i
            self.e.terminated[i] = 0
            self.e.rewards[3 * i] = self.e.rewards[3 * i + 1] = self.e.rewards[3 * i + 2] = 0.0
        self.next_deal = first + self.num_envs
        self._interrupted = False
        self._observe_all()
        self._started = True
        return self._obs

    def step(self, actions):
        """Play one action per row (``actions``: an integer array of
        num_envs, copied before it is read), the opponents with
        ``seat=k``, and re-deal the rows whose deal ended. Fills every
        buffer; returns (obs, rewards, terminated). An illegal action in any
        row raises ValueError naming the first such row; then no deal has
        changed."""
        if not self.nthreads:
            raise TypeError("this VectorEnv was never initialised (VectorEnv(num_envs, ...))")
        ddz_enter(&self._busy, "VectorEnv")
        try:
            return self._step(actions)
        finally:
            self._busy = 0

    cdef _step(self, actions):
        cdef cnp.ndarray a
        cdef const int32_t* act
        cdef int64_t i, bad = -1, first
        cdef ddz_game tmp
        cdef vec_env* e = &self.e
        if not self._started:
            raise ValueError("no deals yet: call reset() first")
        if self._interrupted:
            raise ValueError("a reset or step of this VectorEnv was interrupted part way "
                             "(its rows are in no one state): call reset() first")
        a = self._actions_arg(actions)
        act = <const int32_t*>cnp.PyArray_DATA(a)
        with nogil:
            for i in range(e.n):
                tmp = e.deals[i].g
                if _apply(e, &tmp, NULL, act[i]) != 0:
                    bad = i
                    break
        if bad >= 0:
            self._raise_illegal(bad, act[bad])
        self._last_actions = a
        self._run(1, act)
        first = self.next_deal
        for i in range(e.n):
            if e.fresh[i]:
                e.lstart[i] = first
                first += 1
        self.next_deal = first
        self._observe_all()
        return self._obs, self._rewards, self._terminated

    cdef cnp.ndarray _actions_arg(self, actions):
        cdef cnp.ndarray a
        if isinstance(actions, cnp.ndarray):
            a = <cnp.ndarray>actions
        else:
            try:
                a = np.asarray(actions)
            except Exception:
                raise TypeError(f"actions must be an integer array of {self.num_envs}, "
                                f"not {type(actions).__name__}") from None
        if a.dtype.kind not in "iu":
            if actions is None:
                what = "None"
            elif a.dtype.kind == "O":
                what = (f"values NumPy reads as objects ({actions!r:.60}: ints past "
                        f"64 bits, None or mixed types)")
            else:
                what = f"of dtype {a.dtype}"
            raise TypeError(f"actions must be an integer array (int32), not {what}")
        if a.ndim != 1 or cnp.PyArray_DIM(a, 0) != self.num_envs:
            raise ValueError(f"actions must have shape ({self.num_envs},) (one per deal), "
                             f"not {(<object>a).shape}")
        # Always copied: the rows are checked and then played from the copy,
        # which no other thread of the caller's can change in between. Only
        # int32 values are copied as they are (a wider value could wrap into
        # range).
        if cnp.PyArray_TYPE(a) != cnp.NPY_INT32 or not cnp.PyArray_ISNOTSWAPPED(a):
            lo = a.min()
            hi = a.max()
            if lo < 0 or hi >= self.action_count:
                i = int(np.flatnonzero((a < 0) | (a >= self.action_count))[0])
                self._raise_illegal(i, a[i])
        np.copyto(self._actions32, a, casting="unsafe")
        return self._actions32

    cdef _raise_illegal(self, int64_t i, object action):
        cdef ddz_game* g = &self.e.deals[i].g
        cdef int64_t lo = self._offsets[i], hi = self._offsets[i + 1]
        legal = self._indices[lo:hi]
        shown = ", ".join(str(x) for x in legal[:12]) + (", ..." if hi - lo > 12 else "")
        phase = _PHASES[g.phase]
        raise ValueError(f"actions[{i}] = {int(action)} is not a legal action of row {i} "
                         f"(deal {self.e.deals[i].deal}, seat {g.to_move} to move, "
                         f"{phase} phase); its legal actions: [{shown}]; no deal was "
                         f"changed")

    cdef _run(self, int which, const int32_t* act):
        # pass `which` (1: act, 2: observe) over the rows, on the threads
        cdef int t = self.nthreads
        cdef int status
        if t == 1:
            with nogil:
                status = self._pass(which, act, 0)
            self._check(status)
            return
        if self._crew is None or not self._crew.made_here():
            # (a child of fork inherits the crew but none of its threads: it
            # makes its own)
            self._crew = _Crew(t - 1)
        crew = self._crew
        try:
            for j in range(1, t):
                crew.dispatch(j - 1, partial(self._py_pass, which, j))
            status = self._py_pass(which, 0)
            statuses = [status] + crew.collect()
        except BaseException:
            # Ctrl-C lands in this thread's pass or its wait, while the
            # workers write their rows without the GIL: none outlives the
            # call, and the rows, stepped in part, take a reset before the
            # next step
            crew.collect_through()
            self._interrupted = True
            raise
        for status in statuses:
            self._check(status)

    def _py_pass(self, int which, int j):
        cdef int status
        cdef const int32_t* act = <const int32_t*>cnp.PyArray_DATA(self._last_actions)
        with nogil:
            status = self._pass(which, act, j)
        return status

    cdef int _pass(self, int which, const int32_t* act, int j) noexcept nogil:
        cdef int64_t n = self.e.n, t = self.nthreads
        cdef int64_t a = n * j // t, b = n * (j + 1) // t
        if which == 1:
            return _act_range(&self.e, act, a, b, &self.lists[j])
        return _observe_range(&self.e, a, b, &self.lists[j], j)

    cdef _check(self, int status):
        if status == DDZ_OK:
            return
        if status == DDZ_ERR_NOMEM:
            raise MemoryError()
        raise RuntimeError(f"the engine failed (status {status}): the deals are in an "
                           f"unspecified state; reset() them")

    cdef _observe_all(self):
        cdef vec_env* e = &self.e
        cdef vec_list* extra = &self.lists[self.nthreads]
        cdef int64_t i, total, off
        cdef int64_t* offsets
        cdef int32_t* dst
        cdef int64_t* deal_numbers
        cdef int status = DDZ_OK
        self._run(2, NULL)
        # rare: a new deal over before the learner's first decision
        extra.n = 0
        for i in range(e.n):
            if e.more[i]:
                while True:
                    _deal(e, &e.deals[i], self.next_deal)
                    self.next_deal += 1
                    status = _opponents(e, &e.deals[i], extra)
                    self._check(status)
                    if e.deals[i].g.phase != PHASE_DONE:
                        break
                self._check(_observe_row(e, i, extra, self.nthreads))
        offsets = <int64_t*>cnp.PyArray_DATA(self._offsets)
        total = 0
        offsets[0] = 0
        for i in range(e.n):
            total += e.lcount[i]
            offsets[i + 1] = total
        if total > cnp.PyArray_DIM(self._indices, 0):
            self._indices = np.zeros(max(total, 2 * cnp.PyArray_DIM(self._indices, 0)),
                                     dtype=np.int32)
        dst = <int32_t*>cnp.PyArray_DATA(self._indices)
        deal_numbers = <int64_t*>cnp.PyArray_DATA(self._deal_numbers)
        # (the offsets written above are the caller's to read, and may be
        # changed by another of its threads: the copies go by their own sum)
        off = 0
        with nogil:
            for i in range(e.n):
                memcpy(dst + off, self.lists[e.lthread[i]].idx + e.lstart[i],
                       e.lcount[i] * sizeof(int32_t))
                off += e.lcount[i]
                deal_numbers[i] = e.deals[i].deal
