# Many DouZero deals at once, included into _douzero.pyx: the engine of
# ddzfast.compat.douzero.VecEnv. Each deal is a dz_state (the very state
# DouZeroGame plays); one step plays one action per deal, re-deals the deals
# that end, and writes every deal's DouZero observation into buffers owned
# here, in C without the GIL: per position (landlord, landlord_down,
# landlord_up) one x_batch / z_batch / packed-action buffer holding the
# candidates of every deal at that position, deal after deal.

from libc.math cimport ldexp
from ddzfast._engine cimport ddz_game, ddz_game_new, ddz_deal_seed

cdef int _DZ_WIDTH[3]
_DZ_WIDTH[:] = [DZ_X_LANDLORD, DZ_X_FARMER, DZ_X_FARMER]

ctypedef struct dzv_deal:
    dz_state g
    int64_t deal


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


cdef class DouZeroVec:
    """The engine of ddzfast.compat.douzero.VecEnv; use that."""

    cdef dzv_deal* deals
    cdef dz_scratch s
    cdef uint64_t* acts          # every deal's legal actions, deal after deal
    cdef int64_t acts_cap
    cdef int64_t* acts_start     # deal i's in acts[acts_start[i]:...]
    cdef readonly int64_t num_envs
    cdef readonly int64_t next_deal
    cdef readonly int objective   # 0 wp, 1 adp, 2 logadp
    cdef uint64_t seed
    cdef bint started
    cdef public object rows, x_batch, z_batch, packed     # per position
    cdef public object position, offsets, counts, rewards, done, x_no_action, z, deal_numbers

    def __cinit__(self, int64_t num_envs, int objective):
        self.deals = <dzv_deal*>calloc(num_envs, sizeof(dzv_deal))
        self.acts_start = <int64_t*>calloc(num_envs + 1, sizeof(int64_t))
        self.acts_cap = 64 * num_envs
        self.acts = <uint64_t*>malloc(self.acts_cap * sizeof(uint64_t))
        if self.deals == NULL or self.acts_start == NULL or self.acts == NULL:
            raise MemoryError()
        self.num_envs = num_envs
        self.objective = objective
        self.started = False
        self.position = np.zeros(num_envs, dtype=np.int8)
        self.offsets = np.zeros(num_envs, dtype=np.int64)
        self.counts = np.zeros(num_envs, dtype=np.int64)
        self.rewards = np.zeros(num_envs, dtype=np.float32)
        self.done = np.zeros(num_envs, dtype=np.bool_)
        self.x_no_action = np.zeros((num_envs, DZ_X_FARMER), dtype=np.int8)
        self.z = np.zeros((num_envs, 5, 3 * DZ_CARDS), dtype=np.int8)
        self.deal_numbers = np.zeros(num_envs, dtype=np.int64)
        self.rows = [0, 0, 0]
        self.x_batch = [np.zeros((16 * num_envs, _DZ_WIDTH[p] + DZ_CARDS), np.float32)
                        for p in range(3)]
        self.z_batch = [np.zeros((16 * num_envs, 5, 3 * DZ_CARDS), np.float32)
                        for p in range(3)]
        self.packed = [np.zeros(16 * num_envs, np.uint64) for p in range(3)]

    def __dealloc__(self):
        free(self.deals)
        free(self.acts_start)
        free(self.acts)
        dz_scratch_free(&self.s)

    def reset(self, uint64_t seed, int64_t first):
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

    def check(self, cnp.ndarray actions):
        """The first row whose action (int64) is out of its legal range, or -1."""
        cdef const int64_t* a = <const int64_t*>cnp.PyArray_DATA(actions)
        cdef int64_t i, bad = -1
        cdef int64_t n
        for i in range(self.num_envs):
            n = self.acts_start[i + 1] - self.acts_start[i]
            if a[i] < 0 or a[i] >= n:
                bad = i
                break
        return bad

    def step(self, cnp.ndarray actions):
        # actions: int64, checked by check()
        cdef const int64_t* a = <const int64_t*>cnp.PyArray_DATA(actions)
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
        cdef float* xb[3]
        cdef float* zb[3]
        cdef uint64_t* pk[3]
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
                offsets[i] = rows[p]
                counts[i] = n
                numbers[i] = self.deals[i].deal
                rows[p] += n
            self.acts_start[self.num_envs] = total
        if status:
            raise MemoryError()
        for p in range(3):
            if rows[p] > self.packed[p].shape[0]:
                size = max(rows[p], 2 * self.packed[p].shape[0])
                self.x_batch[p] = np.zeros((size, _DZ_WIDTH[p] + DZ_CARDS), np.float32)
                self.z_batch[p] = np.zeros((size, 5, 3 * DZ_CARDS), np.float32)
                self.packed[p] = np.zeros(size, np.uint64)
            xb[p] = <float*>cnp.PyArray_DATA(self.x_batch[p])
            zb[p] = <float*>cnp.PyArray_DATA(self.z_batch[p])
            pk[p] = <uint64_t*>cnp.PyArray_DATA(self.packed[p])
            self.rows[p] = rows[p]
        with nogil:
            for i in range(self.num_envs):
                g = &self.deals[i].g
                p = g.seat
                width = dz_x_no_action(g, xna + i * DZ_X_FARMER)
                if width < DZ_X_FARMER:
                    memset(xna + i * DZ_X_FARMER + width, 0, DZ_X_FARMER - width)
                dz_z(g, za + i * DZ_Z)
                n = counts[i]
                memcpy(pk[p] + offsets[i], self.acts + self.acts_start[i],
                       n * sizeof(uint64_t))
                dz_batches(xna + i * DZ_X_FARMER, width, za + i * DZ_Z,
                           self.acts + self.acts_start[i], n,
                           xb[p] + offsets[i] * (width + DZ_CARDS),
                           zb[p] + offsets[i] * DZ_Z)
        return 0

    def legal_lists(self, int64_t i) -> list:
        """Row i's legal actions as DouZero card lists."""
        return _dz_lists(self.acts + self.acts_start[i],
                         self.acts_start[i + 1] - self.acts_start[i])
