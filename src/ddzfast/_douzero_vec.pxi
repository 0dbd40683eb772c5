# Many DouZero deals at once, included into _douzero.pyx: the engine of
# ddzfast.compat.douzero.VecEnv. Each deal is a dz_state (the very state
# DouZeroGame plays); one step plays one action per deal, re-deals the deals
# that end, and writes every deal's DouZero observation into buffers owned
# here, in C without the GIL: per position (landlord, landlord_down,
# landlord_up) one x_batch / z_batch / packed-action buffer holding the
# candidates of every deal at that position, deal after deal.

from libc.math cimport ldexp
from ddzfast._engine cimport ddz_game, ddz_game_new, ddz_deal_seed, ddz_check_idle, ddz_enter

cdef int _DZ_WIDTH[3]
_DZ_WIDTH[:] = [DZ_X_LANDLORD, DZ_X_FARMER, DZ_X_FARMER]

ctypedef struct dzv_deal:
    dz_state g
    int64_t deal
    int zn                    # the history length the row's z was encoded at (-1: none)


cdef void _dzv_deal(dzv_deal* d, uint64_t seed, int64_t index) noexcept nogil:
    # deal `index` of the run: ddzfast's deal (Game(classic, deal_seed(seed,
    # index), False, index % 3)): seat 0, the landlord, holds the kitty; seat
    # 1 plays after it (landlord_down), seat 2 before it (landlord_up)
    cdef ddz_game game
    ddz_game_new(&game, &_CLASSIC.c, ddz_deal_seed(seed, index), <int>(index % 3), 0)
    memset(&d.g, 0, sizeof(dz_state))
    d.g.hand[DZ_LANDLORD] = game.hands[0]
    d.g.hand[DZ_DOWN] = game.hands[1]
    d.g.hand[DZ_UP] = game.hands[2]
    d.deal = index
    d.zn = -1


cdef void _dzv_z(dzv_deal* d, int8_t* z) noexcept nogil:
    # the deal's z in its row z (read-only to Python, so that it holds what
    # was written last): its 15 latest actions are those z was encoded at
    # shifted by one when one action was played since (all but a new deal)
    cdef int n = d.g.nhistory
    if d.zn >= 0 and n == d.zn + 1:
        memmove(z, z + DZ_CARDS, (DZ_Z_ROWS - 1) * DZ_CARDS)
        _dz_encode(d.g.history[n - 1], z + (DZ_Z_ROWS - 1) * DZ_CARDS)
    elif n != d.zn:
        dz_z(&d.g, z)
    d.zn = n


cdef int _dzv_play(dz_state* g, uint64_t c) noexcept nogil:
    # DouZeroGame.play of a checked legal action; 1 when the deal ends
    cdef int s = g.seat
    if dz_is_bomb(c):
        g.bombs += 1
    g.last_by_seat[s] = c
    g.history[g.nhistory] = c
    g.nhistory += 1
    g.hand[s] -= c
    g.played[s] += c
    if g.hand[s] == 0:
        g.over = 1
        g.landlord_won = s == DZ_LANDLORD
        return 1
    g.seat = (s + 1) % 3
    return 0


cdef void _dzv_x_rows(const int8_t* x, int width, const uint64_t* acts, int64_t n,
                      float* xb) noexcept nogil:
    # dz_batches' x_batch alone (no z_batch): n rows of x then the action
    cdef int64_t j
    cdef int k, row = width + DZ_CARDS
    for k in range(width):
        xb[k] = x[k]
    for j in range(n):
        if j:
            memcpy(xb + j * row, xb, width * sizeof(float))
        _dz_encode_float(acts[j], xb + j * row + width)


cdef void _dzv_rows_i8(const int8_t* x, int width, const int8_t* z,
                       const uint64_t* acts, int64_t n, int8_t* xb, int8_t* zb,
                       int8_t* xa) noexcept nogil:
    # the candidate rows of one deal as int8 (every entry is 0 or 1): x_batch
    # rows when xb, z_batch rows when zb, the 54 action columns alone when xa
    cdef int64_t j
    cdef int row = width + DZ_CARDS
    for j in range(n):
        if xb != NULL:
            memcpy(xb + j * row, x, width)
            _dz_encode(acts[j], xb + j * row + width)
        if zb != NULL:
            memcpy(zb + j * DZ_Z, z, DZ_Z)
        if xa != NULL:
            _dz_encode(acts[j], xa + j * DZ_CARDS)


cdef void _dzv_z_rows(const int8_t* z, int64_t n, float* zb) noexcept nogil:
    # z_batch alone (no x_batch): n copies of z as float32
    cdef int64_t j
    cdef int k
    if n == 0:
        return
    for k in range(DZ_Z):
        zb[k] = z[k]
    for j in range(1, n):
        memcpy(zb + j * DZ_Z, zb, DZ_Z * sizeof(float))


cdef void _dzv_actions_f32(const uint64_t* acts, int64_t n, float* xa) noexcept nogil:
    # the 54 action columns of x_batch alone, float32
    cdef int64_t j
    for j in range(n):
        _dz_encode_float(acts[j], xa + j * DZ_CARDS)


cdef class DouZeroVec:
    """The engine of ddzfast.compat.douzero.VecEnv; use that. One call at a
    time: reset and step from another thread while one runs raise
    RuntimeError, as do check and legal_lists (they read what a step
    rewrites)."""

    cdef dzv_deal* deals
    cdef dz_scratch s
    cdef uint64_t* acts          # every deal's legal actions, deal after deal
    cdef int64_t acts_cap
    cdef int64_t* acts_start     # deal i's in acts[acts_start[i]:...]
    cdef readonly int64_t num_envs
    cdef readonly int64_t next_deal
    cdef readonly int objective   # 0 wp, 1 adp, 2 logadp
    cdef readonly bint fill_z_batch
    cdef readonly bint fill_x_batch
    cdef readonly bint int8        # int8 candidate buffers instead of float32
    cdef uint64_t seed
    cdef bint started
    cdef int64_t* roff           # deal i's first row in its position's buffers
    cdef int64_t* chosen         # a step's actions, copied before they are checked
    cdef int64_t nrows[3]
    cdef list _xb, _zb, _pk, _xa, _rd   # per position (private: C writes through them)
    cdef readonly object position, offsets, counts, rewards, done, x_no_action, z
    cdef readonly object deal_numbers
    cdef long _busy                     # a reset or step is running: its process (ddz_enter)

    def __cinit__(self, int64_t num_envs, int objective, bint fill_z_batch=True,
                  bint fill_x_batch=True, bint int8=False):
        if num_envs < 1:
            raise ValueError(f"num_envs must be at least 1, not {num_envs}")
        self.deals = <dzv_deal*>calloc(num_envs, sizeof(dzv_deal))
        self.acts_start = <int64_t*>calloc(num_envs + 1, sizeof(int64_t))
        self.acts_cap = 64 * num_envs
        self.acts = <uint64_t*>malloc(self.acts_cap * sizeof(uint64_t))
        self.roff = <int64_t*>calloc(num_envs, sizeof(int64_t))
        self.chosen = <int64_t*>calloc(num_envs, sizeof(int64_t))
        if (self.deals == NULL or self.acts_start == NULL or self.acts == NULL
                or self.roff == NULL or self.chosen == NULL):
            raise MemoryError()
        self.num_envs = num_envs
        self.objective = objective
        self.fill_z_batch = fill_z_batch
        self.fill_x_batch = fill_x_batch
        self.int8 = int8
        self.started = False
        self.position = np.zeros(num_envs, dtype=np.int8)
        self.offsets = np.zeros(num_envs, dtype=np.int64)
        self.counts = np.zeros(num_envs, dtype=np.int64)
        self.rewards = np.zeros(num_envs, dtype=np.float32)
        self.done = np.zeros(num_envs, dtype=np.bool_)
        self.x_no_action = np.zeros((num_envs, DZ_X_FARMER), dtype=np.int8)
        # read-only to callers: each step shifts a row's z in place
        self.z = read_only_view(np.zeros((num_envs, 5, 3 * DZ_CARDS), dtype=np.int8))
        self.deal_numbers = np.zeros(num_envs, dtype=np.int64)
        self.nrows[0] = self.nrows[1] = self.nrows[2] = 0
        self._xb = [None] * 3
        self._zb = [None] * 3
        self._xa = [None] * 3
        self._pk = [None] * 3
        self._rd = [None] * 3
        for p in range(3):
            self._alloc(p, 16 * num_envs)

    cdef _alloc(self, int p, int64_t size):
        # position p's candidate buffers for `size` rows (the ones not
        # written get 0 rows)
        dt = np.int8 if self.int8 else np.float32
        self._xb[p] = np.zeros((size if self.fill_x_batch else 0, _DZ_WIDTH[p] + DZ_CARDS), dt)
        self._zb[p] = np.zeros((size if self.fill_z_batch else 0, 5, 3 * DZ_CARDS), dt)
        self._xa[p] = np.zeros((0 if self.fill_x_batch else size, DZ_CARDS), dt)
        self._pk[p] = np.zeros(size, np.uint64)
        self._rd[p] = np.zeros(size, np.int64)

    def __reduce__(self):
        # (copy and deepcopy come here too)
        raise TypeError(
            "a douzero VecEnv is not pickled or copied: its deals are C structs "
            "stepped in place; make another with the same arguments and seed")

    def __dealloc__(self):
        free(self.roff)
        free(self.chosen)
        free(self.deals)
        free(self.acts_start)
        free(self.acts)
        dz_scratch_free(&self.s)

    def reset(self, uint64_t seed, int64_t first):
        ddz_enter(&self._busy, "VecEnv")
        try:
            self._reset(seed, first)
        finally:
            self._busy = 0

    cdef _reset(self, uint64_t seed, int64_t first):
        cdef int64_t i
        self.seed = seed
        with nogil:
            for i in range(self.num_envs):
                _dzv_deal(&self.deals[i], seed, first + i)
        self.next_deal = first + self.num_envs
        self.rewards[:] = 0
        self.done[:] = False
        self.started = True
        self._observe()

    cdef int _actions_ok(self, cnp.ndarray actions) except -1:
        if (cnp.PyArray_TYPE(actions) != cnp.NPY_INT64 or cnp.PyArray_NDIM(actions) != 1
                or cnp.PyArray_DIM(actions, 0) != self.num_envs
                or not cnp.PyArray_IS_C_CONTIGUOUS(actions)
                or not cnp.PyArray_ISALIGNED(actions)
                or not cnp.PyArray_ISNOTSWAPPED(actions)):
            raise ValueError(f"actions must be a contiguous int64 array of {self.num_envs} "
                             f"in the machine's byte order")
        if not self.started:
            raise ValueError("no deals yet: call reset() first")
        return 0

    def buffers(self, int p):
        """Position p's (x_batch, z_batch, packed, action columns, row's
        deal) rows, as views (x_batch, z_batch or the action columns with 0
        rows when not written; the action columns are x_batch's last 54 when
        it is)."""
        if not 0 <= p < 3:
            raise IndexError(f"position {p} out of range 0..2")
        n = self.nrows[p]
        xb = self._xb[p][:n if self.fill_x_batch else 0]
        xa = xb[:, _DZ_WIDTH[p]:] if self.fill_x_batch else self._xa[p][:n]
        return (xb, self._zb[p][:n if self.fill_z_batch else 0], self._pk[p][:n], xa,
                self._rd[p][:n])

    def check(self, cnp.ndarray actions not None):
        """The first row whose action (int64) is out of its legal range, or -1."""
        ddz_check_idle(self._busy, "VecEnv")
        return self._check(actions)

    cdef int64_t _check(self, cnp.ndarray actions) except -2:
        self._actions_ok(actions)
        return self._first_bad(<const int64_t*>cnp.PyArray_DATA(actions))

    cdef int64_t _first_bad(self, const int64_t* a) noexcept:
        cdef int64_t i, bad = -1
        cdef int64_t n
        for i in range(self.num_envs):
            n = self.acts_start[i + 1] - self.acts_start[i]
            if a[i] < 0 or a[i] >= n:
                bad = i
                break
        return bad

    def step(self, cnp.ndarray actions not None):
        """Play row i's legal action actions[i] in every row (int64); ValueError
        (nothing changed) unless every one is in its row's range."""
        ddz_enter(&self._busy, "VecEnv")
        try:
            self._step(actions)
        finally:
            self._busy = 0

    cdef _step(self, cnp.ndarray actions):
        # played from a copy, checked first: another thread of the caller's
        # may change `actions` meanwhile
        self._actions_ok(actions)
        cdef const int64_t* a = self.chosen
        memcpy(self.chosen, cnp.PyArray_DATA(actions), self.num_envs * sizeof(int64_t))
        if self._first_bad(a) >= 0:
            raise ValueError("an action is out of its row's legal actions")
        cdef float* rewards = <float*>cnp.PyArray_DATA(self.rewards)
        cdef uint8_t* done = <uint8_t*>cnp.PyArray_DATA(self.done)
        cdef int64_t i
        cdef dz_state* g
        cdef float sign
        cdef int obj = self.objective
        with nogil:
            for i in range(self.num_envs):
                g = &self.deals[i].g
                rewards[i] = 0
                done[i] = 0
                if _dzv_play(g, self.acts[self.acts_start[i] + a[i]]):
                    sign = 1.0 if g.landlord_won else -1.0
                    if obj == 1:
                        rewards[i] = <float>(sign * ldexp(1.0, g.bombs))
                    elif obj == 2:
                        rewards[i] = sign * (g.bombs + 1)
                    else:
                        rewards[i] = sign
                    done[i] = 1
                    _dzv_deal(&self.deals[i], self.seed, self.next_deal)
                    self.next_deal += 1
        self._observe()

    cdef int _observe(self) except -1:
        cdef int64_t i, n, total = 0, need, p
        cdef int64_t rows[3]
        cdef dz_state* g
        cdef int64_t* offsets = <int64_t*>cnp.PyArray_DATA(self.offsets)
        cdef int64_t* counts = <int64_t*>cnp.PyArray_DATA(self.counts)
        cdef int8_t* position = <int8_t*>cnp.PyArray_DATA(self.position)
        cdef int64_t* numbers = <int64_t*>cnp.PyArray_DATA(self.deal_numbers)
        cdef int8_t* xna = <int8_t*>cnp.PyArray_DATA(self.x_no_action)
        cdef int8_t* za = <int8_t*>cnp.PyArray_DATA(self.z)
        cdef char* xb[3]
        cdef char* zb[3]
        cdef char* xa[3]
        cdef uint64_t* pk[3]
        cdef int64_t* rd[3]
        cdef int64_t j, r0
        cdef bint fx = self.fill_x_batch, fz = self.fill_z_batch, i8 = self.int8
        cdef uint64_t* grown
        cdef int status = 0
        cdef int width
        rows[0] = rows[1] = rows[2] = 0
        # the legal actions of every deal (DouZero's, distinct), and where
        # each deal's rows go in its position's buffers
        with nogil:
            for i in range(self.num_envs):
                g = &self.deals[i].g
                n = dz_legal(&self.s, &_CLASSIC.c, g.hand[g.seat], dz_last_move(g))
                if n < 0:
                    status = -1
                    break
                if total + n > self.acts_cap:
                    need = 2 * (total + n)
                    grown = <uint64_t*>realloc(self.acts, need * sizeof(uint64_t))
                    if grown == NULL:
                        status = -1
                        break
                    self.acts = grown
                    self.acts_cap = need
                memcpy(self.acts + total, self.s.acts, n * sizeof(uint64_t))
                self.acts_start[i] = total
                total += n
                p = g.seat
                position[i] = <int8_t>p
                self.roff[i] = rows[p]
                offsets[i] = rows[p]
                counts[i] = n
                numbers[i] = self.deals[i].deal
                rows[p] += n
            self.acts_start[self.num_envs] = total
        if status:
            raise MemoryError()
        for p in range(3):
            if rows[p] > self._pk[p].shape[0]:
                self._alloc(p, max(rows[p], 2 * self._pk[p].shape[0]))
            xb[p] = <char*>cnp.PyArray_DATA(self._xb[p])
            zb[p] = <char*>cnp.PyArray_DATA(self._zb[p])
            xa[p] = <char*>cnp.PyArray_DATA(self._xa[p])
            pk[p] = <uint64_t*>cnp.PyArray_DATA(self._pk[p])
            rd[p] = <int64_t*>cnp.PyArray_DATA(self._rd[p])
            self.nrows[p] = rows[p]
        with nogil:
            for i in range(self.num_envs):
                g = &self.deals[i].g
                p = g.seat
                width = dz_x_no_action(g, xna + i * DZ_X_FARMER)
                if width < DZ_X_FARMER:
                    memset(xna + i * DZ_X_FARMER + width, 0, DZ_X_FARMER - width)
                _dzv_z(&self.deals[i], za + i * DZ_Z)
                n = self.acts_start[i + 1] - self.acts_start[i]
                r0 = self.roff[i]
                memcpy(pk[p] + r0, self.acts + self.acts_start[i], n * sizeof(uint64_t))
                for j in range(n):
                    rd[p][r0 + j] = i
                if i8:
                    _dzv_rows_i8(xna + i * DZ_X_FARMER, width, za + i * DZ_Z,
                                 self.acts + self.acts_start[i], n,
                                 <int8_t*>xb[p] + r0 * (width + DZ_CARDS) if fx else NULL,
                                 <int8_t*>zb[p] + r0 * DZ_Z if fz else NULL,
                                 NULL if fx else <int8_t*>xa[p] + r0 * DZ_CARDS)
                elif fx and fz:
                    dz_batches(xna + i * DZ_X_FARMER, width, za + i * DZ_Z,
                               self.acts + self.acts_start[i], n,
                               <float*>xb[p] + r0 * (width + DZ_CARDS),
                               <float*>zb[p] + r0 * DZ_Z)
                else:
                    if fx:
                        _dzv_x_rows(xna + i * DZ_X_FARMER, width,
                                    self.acts + self.acts_start[i], n,
                                    <float*>xb[p] + r0 * (width + DZ_CARDS))
                    else:
                        _dzv_actions_f32(self.acts + self.acts_start[i], n,
                                         <float*>xa[p] + r0 * DZ_CARDS)
                    if fz:
                        _dzv_z_rows(za + i * DZ_Z, n, <float*>zb[p] + r0 * DZ_Z)
        return 0

    def legal_lists(self, int64_t i) -> list:
        """Row i's legal actions as DouZero card lists."""
        ddz_check_idle(self._busy, "VecEnv")
        if not self.started or not 0 <= i < self.num_envs:
            raise IndexError(f"row {i} out of range (or no deals yet)")
        return _dz_lists(self.acts + self.acts_start[i],
                         self.acts_start[i + 1] - self.acts_start[i])
