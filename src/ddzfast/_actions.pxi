# Action indices and masks in C, included into _core.pyx: a hash table from
# a move's identity (kind, rank, length, cards) to its action index, built
# once per rule set's action table (ddzfast.features defines the table and
# its order; this file only looks moves up in it), and the legal-action
# functions over it: indices, masks, batches.

from ddzfast.constants import MAX_HAND


cdef inline uint64_t _action_hash(uint64_t cards, int kind, int rank,
                                  int length) noexcept nogil:
    # Identities differ in cards mostly; kind/rank/length are mixed in so
    # that the readings of one card set (e.g. a plane or a plane with
    # kickers) land apart. The top bits of the product are the slot.
    cdef uint64_t x = cards + ((<uint64_t>kind | (<uint64_t>rank << 8)
                                | (<uint64_t>length << 16)) * 0x9E3779B97F4A7C15ULL)
    x ^= x >> 32
    return x * 0xD6E8FEB86659FD93ULL


cdef int64_t ddz_action_index(const ddz_actions* t, const ddz_move* m) noexcept nogil:
    cdef uint64_t s = _action_hash(m.cards, m.kind, m.rank, m.length) >> t.shift
    cdef int32_t i
    cdef const ddz_move* a
    while True:
        i = t.slots[s]
        if i < 0:
            return -1
        a = &t.moves[i]
        if ddz_same_move(a, m):
            return i
        s = (s + 1) & t.slot_mask


cdef int64_t ddz_action_count(const ddz_actions* t) noexcept nogil:
    return t.count


cdef int64_t _legal_actions(const ddz_rules* rules, const ddz_actions* t,
                            uint64_t hand, const ddz_move* last, int32_t* idx,
                            int64_t cap, uint8_t* mask) noexcept nogil:
    # The legal moves of `hand`, looked up: their indices into idx[0:cap]
    # (idx may be NULL) and, with `mask` (t.count bytes), a 0/1 mask. The
    # number of legal moves, or a DDZ_ERR_ code.
    cdef ddz_move buf[DDZ_MOVE_BUFFER]
    cdef ddz_move* moves = buf
    cdef int64_t n, i, k
    cdef ddz_move own
    # (read once: listed twice below, and alike both times)
    last = _own_last(last, &own)
    n = ddz_legal_moves(rules, hand, last, buf, DDZ_MOVE_BUFFER)
    if n > DDZ_MOVE_BUFFER:
        # a hand far beyond a deal's size: such hands have moves that are no
        # action anyway, but the caller deserves that answer, not a crash
        moves = <ddz_move*>malloc(n * sizeof(ddz_move))
        if moves == NULL:
            return DDZ_ERR_NOMEM
        n = ddz_legal_moves(rules, hand, last, moves, n)
    # Every move is looked up before anything is written, so that an error
    # (or an idx too small for them all) leaves idx and mask as they were;
    # a move's index is kept in its own cards, which are read no more.
    for i in range(n):
        k = ddz_action_index(t, &moves[i])
        if k < 0:
            n = DDZ_ERR_NO_ACTION
            break
        moves[i].cards = <uint64_t>k
    if n >= 0:
        if idx != NULL and n <= cap:
            for i in range(n):
                idx[i] = <int32_t>moves[i].cards
        if mask != NULL:
            memset(mask, 0, t.count)
            for i in range(n):
                mask[moves[i].cards] = 1
    if moves != buf:
        free(moves)
    return n


cdef int64_t ddz_legal_action_indices(const ddz_rules* rules, const ddz_actions* t,
                                      uint64_t hand, const ddz_move* last,
                                      int32_t* out, int64_t cap) noexcept nogil:
    return _legal_actions(rules, t, hand, last, out, cap, NULL)


cdef int64_t ddz_legal_action_mask(const ddz_rules* rules, const ddz_actions* t,
                                   uint64_t hand, const ddz_move* last,
                                   uint8_t* mask) noexcept nogil:
    return _legal_actions(rules, t, hand, last, NULL, 0, mask)


@cython.final
cdef class _ActionTable:
    """The C lookup of one rule set's action table: built from the table's
    moves in index order (``action_moves``), which it keeps alive and reads.
    ``address`` is the ``ddz_actions`` struct, for Numba and C callers."""


    def __cinit__(self, cnp.ndarray moves not None):
        cdef Py_ssize_t n, i
        cdef int bits = 4
        cdef uint64_t s
        cdef const ddz_move* mp
        if moves.dtype != MOVE_DTYPE or moves.ndim != 1 \
                or not moves.flags.c_contiguous or moves.flags.writeable:
            raise ValueError("an action table is a read-only, C-contiguous 1-d "
                             "MOVE_DTYPE array")
        n = cnp.PyArray_DIM(moves, 0)
        if n == 0 or n >= (1 << 31) - 1:
            raise ValueError(f"an action table holds 1 .. 2**31 - 2 moves, not {n}")
        # at most a quarter full: about 9 lookups in 10 hit the first slot
        # they probe, so the branch on it is mostly predicted (a half-full
        # table, half the memory, mispredicts twice as often)
        while (1 << bits) < 4 * n:
            bits += 1
        self.slots = <int32_t*>malloc((<size_t>1 << bits) * sizeof(int32_t))
        if self.slots == NULL:
            raise MemoryError()
        memset(self.slots, 0xFF, (<size_t>1 << bits) * sizeof(int32_t))
        self.moves = moves
        mp = <const ddz_move*>cnp.PyArray_DATA(moves)
        self.t.moves = mp
        self.t.slots = self.slots
        self.t.count = n
        self.t.shift = 64 - bits
        self.t.slot_mask = (<uint64_t>1 << bits) - 1
        self.count = n
        for i in range(n):
            if ddz_action_index(&self.t, &mp[i]) >= 0:
                raise ValueError(f"action {i} repeats an earlier action")
            s = _action_hash(mp[i].cards, mp[i].kind, mp[i].rank, mp[i].length) \
                >> self.t.shift
            while self.slots[s] >= 0:
                s = (s + 1) & self.t.slot_mask
            self.slots[s] = <int32_t>i

    def __dealloc__(self):
        free(self.slots)

    @property
    def address(self) -> int:
        """The address of the ``ddz_actions`` struct (valid while this
        object lives)."""
        return <size_t>&self.t

    @property
    def slot_bytes(self) -> int:
        """The bytes of the hash's slots (the moves are the caller's)."""
        return <size_t>(self.t.slot_mask + 1) * sizeof(int32_t)

    def lookup(self, moves) -> cnp.ndarray:
        """The action index (int64) of each row of a MOVE_DTYPE array, a
        MoveList or a Move (one row), -1 where the identity is no action
        (``wild`` is not read)."""
        cdef const ddz_move* mp
        cdef Py_ssize_t n, i
        cdef cnp.ndarray a = None, res
        cdef int64_t* rp
        if type(moves) is MoveList:
            mp = (<MoveList>moves).data
            n = (<MoveList>moves).n
        elif type(moves) is Move:
            mp = &(<Move>moves).m
            n = 1
        else:
            a = np.ascontiguousarray(moves)
            if a.dtype != MOVE_DTYPE or a.ndim != 1:
                raise TypeError("moves must be a 1-d MOVE_DTYPE array or a MoveList")
            mp = <const ddz_move*>cnp.PyArray_DATA(a)
            n = cnp.PyArray_DIM(a, 0)
        res = np.empty(n, dtype=np.int64)
        rp = <int64_t*>cnp.PyArray_DATA(res)
        with nogil:
            for i in range(n):
                rp[i] = ddz_action_index(&self.t, &mp[i])
        return res

    def __reduce__(self):
        raise TypeError("an action table is rebuilt, not pickled: use "
                        "ddzfast.features.action_moves")


# The lookups live in features' cache of action tables (the one place that
# holds them and bounds them by ACTION_CACHE_SIZE and ACTION_CACHE_BYTES);
# this module asks it and keeps none alive itself. The one asked for last is
# remembered by a weak reference, as one tuple read and replaced whole
# (thread switches never pair one rule set with another's table), so that
# asking again for one rule set skips the cache's lock.
cdef tuple _last_actions = (None, None)
cdef object _cached_action_table = None   # features._action_table, at first use


cdef _ActionTable _actions_of(Rules r):
    global _last_actions, _cached_action_table
    cdef tuple cached = _last_actions
    cdef object t
    if cached[0] is r:
        t = cached[1]()
        if t is not None:
            return <_ActionTable>t
    if _cached_action_table is None:
        # features owns the action tables (their order is defined there); it
        # is imported here, at first use, because it imports this module
        from ddzfast.features import _action_table
        _cached_action_table = _action_table
    t = _cached_action_table(r)[2]
    _last_actions = (r, PyWeakref_NewRef(t, None))
    return <_ActionTable>t


def _action_lookup(rules="classic") -> _ActionTable:
    """The C lookup of a rule set's action table (built on first use)."""
    return _actions_of(_get_rules(rules))


def _fixed_action_rules(rules, str who) -> Rules:
    """The rule set of something whose action space is fixed (``who``: "an
    environment", "a VectorEnv"): a laizi set must name its wild rank, a
    tiandi set both, since the action index depends on them."""
    cdef Rules r = _get_rules(rules)
    if _two_wild_ranks(&r.c) and not _rules_ready(&r.c):
        raise ValueError(
            f"{who} needs a fixed action space, and the actions of {r.name!r} "
            f"depend on its two wild ranks: pass both, sky then ground, e.g. "
            f"{_wild_ranks_hint(r, WILD_RANKS_OPTION, '7J', 'rules={}')} (every "
            f"deal then has them); ranks drawn per deal are not supported")
    if r.c.laizi and not r.c.wild_mask:
        raise ValueError(
            f"{who} needs a fixed action space, and a laizi rule set's actions "
            f"depend on its wild rank: pass the wild rank, e.g. "
            f"{_wild_ranks_hint(r, WILD_RANK_OPTION, '7', 'rules={}')} (every "
            f"deal then has that wild rank); a wild rank drawn per deal is not "
            f"supported")
    return r


cdef int _raise_actions_error(int64_t code, Rules r, uint64_t hand) except -1:
    if code == DDZ_ERR_NOMEM:
        raise MemoryError("out of memory generating legal moves")
    if code == DDZ_ERR_NO_ACTION:
        raise InvalidCardsError(
            f"hand {_cards_text(hand)!r} ({_hand_size(hand)} cards) has legal moves "
            f"that are no action of {r.ranked_name!r}: actions are the moves of a "
            f"hand of at most {MAX_HAND[bool(r.c.has_wild)]} cards")
    raise RuntimeError(f"action lookup failed with code {code}")


cdef inline uint64_t _hand_arg(object hand, Rules r) except? 0xFFFFFFFFFFFFFFFF:
    if type(hand) is int:
        return _int_bits(hand, r)
    return _to_bits(hand, r, "hand")


cdef int _check_out(cnp.ndarray out, int typenum_a, int typenum_b, int typenum_c,
                    str dtypes) except -1:
    # A writable, C-contiguous 1-d array of one of the given type numbers,
    # in the machine's byte order (the type number does not tell it)
    cdef int tn = cnp.PyArray_TYPE(out)
    if tn != typenum_a and tn != typenum_b and tn != typenum_c:
        raise TypeError(f"out must have dtype {dtypes}, not {out.dtype}")
    if not cnp.PyArray_ISNOTSWAPPED(out):
        raise TypeError(f"out must have dtype {dtypes} in the machine's byte order, "
                        f"not {out.dtype}")
    if cnp.PyArray_NDIM(out) != 1:
        raise ValueError(f"out must be 1-d, not of shape {(<object>out).shape}")
    if not cnp.PyArray_IS_C_CONTIGUOUS(out):
        raise ValueError("out must be C-contiguous")
    if not cnp.PyArray_ISWRITEABLE(out):
        raise ValueError("out must be writable")
    if not cnp.PyArray_ISALIGNED(out):
        raise ValueError("out must be aligned")
    return 0


def legal_action_indices(hand, last=None, rules="classic") -> cnp.ndarray:
    """The action index (``action_moves(rules)`` order; PASS is 0) of every
    legal move of ``hand`` after ``last`` (None: leading), as an int32 array
    in the order ``legal_moves`` lists the moves. Computed in C: no Move is
    made. InvalidCardsError for a hand with legal moves that are no action
    (more cards than a hand of the rule set holds)."""
    cdef Rules r = _get_rules(rules)
    cdef uint64_t bits = _hand_arg(hand, r)
    cdef ddz_move lm
    cdef const ddz_move* lp = NULL
    cdef _ActionTable t
    cdef int32_t buf[DDZ_MOVE_BUFFER]
    cdef int32_t* dst
    cdef int64_t n
    cdef cnp.ndarray res
    if last is not None:
        _last_struct(last, r, &lm)
        lp = &lm
    t = _actions_of(r)
    n = ddz_legal_action_indices(&r.c, &t.t, bits, lp, buf, DDZ_MOVE_BUFFER)
    if n < 0:
        _raise_actions_error(n, r, bits)
    res = np.empty(n, dtype=np.int32)
    dst = <int32_t*>cnp.PyArray_DATA(res)
    if n <= DDZ_MOVE_BUFFER:
        memcpy(dst, buf, n * sizeof(int32_t))
    else:
        # generated again into res: this pass allocates its moves anew, and
        # may fail where the first did not
        n = ddz_legal_action_indices(&r.c, &t.t, bits, lp, dst, n)
        if n < 0:
            _raise_actions_error(n, r, bits)
    return res


def legal_action_indices_into(hand, last, rules, cnp.ndarray out not None) -> int:
    """Write the action indices of the legal moves of ``hand`` after ``last``
    (None: leading) into ``out`` and return how many there are (they are
    ``out[:n]``; the rest of ``out`` is left as it was). ``out``: a writable,
    C-contiguous 1-d int32 array (TypeError for another dtype, ValueError for
    another shape or layout); ``action_count(rules)`` entries always suffice.
    A buffer too small for the position raises ValueError with the count
    needed; then, as on any other error, ``out`` is left as it was. Nothing
    is allocated."""
    cdef Rules r = _get_rules(rules)
    cdef uint64_t bits = _hand_arg(hand, r)
    cdef ddz_move lm
    cdef const ddz_move* lp = NULL
    cdef _ActionTable t
    cdef int64_t n, cap
    if last is not None:
        _last_struct(last, r, &lm)
        lp = &lm
    _check_out(out, cnp.NPY_INT32, cnp.NPY_INT32, cnp.NPY_INT32, "int32")
    t = _actions_of(r)
    cap = cnp.PyArray_DIM(out, 0)
    n = ddz_legal_action_indices(&r.c, &t.t, bits, lp,
                                 <int32_t*>cnp.PyArray_DATA(out), cap)
    if n < 0:
        _raise_actions_error(n, r, bits)
    if n > cap:
        raise ValueError(f"out holds {cap} indices but this position has {n} "
                         f"legal moves; pass a larger buffer")
    return n


def legal_action_mask_into(hand, last, rules, cnp.ndarray out not None) -> int:
    """Fill ``out`` with the legal-action mask of ``hand`` after ``last``
    (None: leading): 1 (True) at the action index of every legal move, 0
    everywhere else; return the number of legal moves (the 1 entries).
    ``out``: a writable, C-contiguous 1-d array of exactly
    ``action_count(rules)`` entries, dtype bool, uint8 or int8 (TypeError
    for another dtype, ValueError for another size, shape or layout). An
    error leaves ``out`` as it was. Nothing is allocated."""
    cdef Rules r = _get_rules(rules)
    cdef uint64_t bits = _hand_arg(hand, r)
    cdef ddz_move lm
    cdef const ddz_move* lp = NULL
    cdef _ActionTable t
    cdef int64_t n
    if last is not None:
        _last_struct(last, r, &lm)
        lp = &lm
    _check_out(out, cnp.NPY_BOOL, cnp.NPY_UINT8, cnp.NPY_INT8, "bool, uint8 or int8")
    t = _actions_of(r)
    if cnp.PyArray_DIM(out, 0) != t.count:
        raise ValueError(f"out has {cnp.PyArray_DIM(out, 0)} entries; a mask of "
                         f"{_name_with_ranks(r)!r} has action_count = {t.count}")
    n = ddz_legal_action_mask(&r.c, &t.t, bits, lp, <uint8_t*>cnp.PyArray_DATA(out))
    if n < 0:
        _raise_actions_error(n, r, bits)
    return n


# ---- batches ----------------------------------------------------------------

cdef class _IndexChunk:
    """The action indices of positions start..stop, computed without the GIL
    into a buffer that grows as needed."""

    cdef int32_t* buf
    cdef int64_t size
    cdef int64_t cap
    cdef int64_t error       # a DDZ_ERR_ code, 0 when none
    cdef Py_ssize_t bad      # the position it came from
    # the whole range that run() serves in slices (for its size guesses)
    cdef Py_ssize_t planned_start
    cdef Py_ssize_t planned_stop

    def __dealloc__(self):
        free(self.buf)

    cdef void run(self, const ddz_rules* rules, const ddz_actions* t,
                  const uint64_t* hands, const ddz_move* lasts, int64_t* counts,
                  Py_ssize_t start, Py_ssize_t stop) noexcept nogil:
        cdef Py_ssize_t i
        cdef int64_t n, newcap
        cdef const ddz_move* last
        cdef int32_t* grown
        cdef Py_ssize_t first = start, planned = stop
        if self.planned_start <= start and stop <= self.planned_stop:
            first = self.planned_start
            planned = self.planned_stop
        for i in range(start, stop):
            last = _batch_last(lasts, i)
            while True:
                n = ddz_legal_action_indices(rules, t, hands[i], last,
                                             self.buf + self.size, self.cap - self.size)
                if n < 0:
                    self.error = n
                    self.bad = i
                    return
                if n <= self.cap - self.size:
                    break
                newcap = self.size + n + (planned - i) * ((self.size + n) // (i - first + 1))
                if newcap < 2 * self.cap:
                    newcap = 2 * self.cap
                grown = <int32_t*>realloc(self.buf, newcap * sizeof(int32_t))
                if grown == NULL:
                    self.error = DDZ_ERR_NOMEM
                    self.bad = i
                    return
                self.buf = grown
                self.cap = newcap
            counts[i] = n
            self.size += n


def _run_index_chunk(_IndexChunk chunk, Rules r, _ActionTable t, cnp.ndarray hands,
                     lasts, cnp.ndarray counts, Py_ssize_t start, Py_ssize_t stop, cancel):
    cdef const uint64_t* hp = <const uint64_t*>cnp.PyArray_DATA(hands)
    cdef const ddz_move* lp = NULL
    cdef int64_t* cp = <int64_t*>cnp.PyArray_DATA(counts)
    if lasts is not None:
        lp = <const ddz_move*>cnp.PyArray_DATA(<cnp.ndarray>lasts)

    def positions(Py_ssize_t a, Py_ssize_t b):
        with nogil:
            chunk.run(&r.c, &t.t, hp, lp, cp, a, b)
        return chunk.error != 0

    chunk.planned_start = start
    chunk.planned_stop = stop

    _sliced(positions, start, stop, cancel)


def _run_mask_chunk(Rules r, _ActionTable t, cnp.ndarray hands, lasts, cnp.ndarray out,
                    cnp.ndarray counts, Py_ssize_t start, Py_ssize_t stop, cancel):
    cdef const uint64_t* hp = <const uint64_t*>cnp.PyArray_DATA(hands)
    cdef const ddz_move* lp = NULL
    cdef uint8_t* op = <uint8_t*>cnp.PyArray_DATA(out)
    cdef int64_t* cp = <int64_t*>cnp.PyArray_DATA(counts)
    if lasts is not None:
        lp = <const ddz_move*>cnp.PyArray_DATA(<cnp.ndarray>lasts)

    def positions(Py_ssize_t a, Py_ssize_t b):
        cdef Py_ssize_t i
        cdef const ddz_move* last
        cdef int failed = 0
        with nogil:
            for i in range(a, b):
                last = _batch_last(lp, i)
                cp[i] = ddz_legal_action_mask(&r.c, &t.t, hp[i], last, op + i * t.count)
                if cp[i] < 0:
                    failed = 1
                    break
        return failed

    _sliced(positions, start, stop, cancel)


cdef _raise_batch_error(int64_t code, Py_ssize_t i, Rules r, cnp.ndarray hands):
    try:
        _raise_actions_error(code, r, <uint64_t>hands[i])
    except InvalidCardsError as exc:
        raise InvalidCardsError(f"hands[{i}]: {exc}") from None


def legal_action_indices_batch(hands, lasts=None, rules="classic", threads=1):
    """The action indices of the legal moves of many positions, in CSR form:
    ``(offsets, indices)``, ``offsets`` int64 of N + 1 and ``indices`` int32,
    position i's being ``indices[offsets[i]:offsets[i + 1]]``, each exactly
    as ``legal_action_indices`` gives them. ``hands`` and ``lasts`` as for
    ``legal_moves_batch`` (a PASS row in ``lasts``: that position leads).
    Runs without the GIL, on ``threads`` threads."""
    cdef Rules r = _get_rules(rules)
    cdef cnp.ndarray h, counts, offsets, indices
    cdef Py_ssize_t n, t_
    cdef _IndexChunk chunk
    cdef _ActionTable table
    threads = check_threads(threads)
    h, la = _batch_positions(hands, lasts, r)
    table = _actions_of(r)
    n = cnp.PyArray_DIM(h, 0)
    counts = np.zeros(n, dtype=np.int64)
    threads = worker_count(threads, n)
    bounds = [n * t_ // threads for t_ in range(threads + 1)]
    chunks = [_IndexChunk() for _ in range(threads)]
    _parallel(threads, _run_index_chunk,
              [(chunks[t_], r, table, h, la, counts, bounds[t_], bounds[t_ + 1])
               for t_ in range(threads)])
    for chunk in chunks:
        if chunk.error:
            _raise_batch_error(chunk.error, chunk.bad, r, h)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    indices = np.empty(offsets[n], dtype=np.int32)
    for t_ in range(threads):
        chunk = chunks[t_]
        if chunk.size:
            memcpy(<int32_t*>cnp.PyArray_DATA(indices) + <int64_t>offsets[bounds[t_]],
                   chunk.buf, chunk.size * sizeof(int32_t))
    return offsets, indices


cdef int _check_all_actions(Rules r, _ActionTable t, cnp.ndarray hands,
                            object lasts) except -1:
    # Raise the error a batch would meet, before any of its rows is written.
    # Only a hand of more cards than a deal gives can have legal moves that
    # are no action (the table is every move of at most MAX_HAND cards), so
    # only such hands are looked up here.
    cdef const uint64_t* hp = <const uint64_t*>cnp.PyArray_DATA(hands)
    cdef const ddz_move* lp = NULL
    cdef int most = MAX_HAND[bool(r.c.has_wild)]
    cdef Py_ssize_t i
    cdef int64_t code
    if lasts is not None:
        lp = <const ddz_move*>cnp.PyArray_DATA(<cnp.ndarray>lasts)
    for i in range(cnp.PyArray_DIM(hands, 0)):
        if _hand_size(hp[i]) > most:
            with nogil:
                code = _legal_actions(&r.c, &t.t, hp[i], _batch_last(lp, i), NULL, 0, NULL)
            if code < 0:
                _raise_batch_error(code, i, r, hands)
    return 0


def legal_action_mask_batch(hands, lasts=None, rules="classic", out=None, threads=1):
    """The legal-action masks of many positions: an (N, action_count(rules))
    array, row i the mask of position i (as ``legal_action_mask_into`` fills
    it). ``out``: None (a new bool array) or a writable, C-contiguous array of
    that shape and dtype bool, uint8 or int8, filled and returned (an error
    leaves it as it was; an ``out`` sharing memory with ``hands`` or
    ``lasts`` is a ValueError). ``hands`` and ``lasts`` as for
    ``legal_moves_batch``. Runs without the GIL, on ``threads`` threads over
    contiguous ranges of positions."""
    cdef Rules r = _get_rules(rules)
    cdef cnp.ndarray h, counts, res
    cdef Py_ssize_t n, t_, i
    cdef _ActionTable table
    cdef int tn
    threads = check_threads(threads)
    h, la = _batch_positions(hands, lasts, r)
    table = _actions_of(r)
    n = cnp.PyArray_DIM(h, 0)
    if out is None:
        res = np.empty((n, table.count), dtype=np.bool_)
    else:
        if not isinstance(out, cnp.ndarray):
            raise TypeError(f"out must be a numpy array, not {type(out).__name__}")
        res = <cnp.ndarray>out
        tn = cnp.PyArray_TYPE(res)
        if tn != cnp.NPY_BOOL and tn != cnp.NPY_UINT8 and tn != cnp.NPY_INT8:
            raise TypeError(f"out must have dtype bool, uint8 or int8, not {res.dtype}")
        if (<object>res).shape != (n, table.count):
            raise ValueError(f"out has shape {(<object>res).shape}, not "
                             f"({n}, {table.count}) (positions, action_count)")
        if not cnp.PyArray_IS_C_CONTIGUOUS(res) or not cnp.PyArray_ISWRITEABLE(res):
            raise ValueError("out must be writable and C-contiguous")
        _check_out_apart(res, hands, lasts, "masks")
        _check_all_actions(r, table, h, la)
    counts = np.zeros(n, dtype=np.int64)
    threads = worker_count(threads, n)
    bounds = [n * t_ // threads for t_ in range(threads + 1)]
    _parallel(threads, _run_mask_chunk,
              [(r, table, h, la, res, counts, bounds[t_], bounds[t_ + 1])
               for t_ in range(threads)])
    bad = np.flatnonzero(counts < 0)
    if len(bad):
        i = bad[0]
        _raise_batch_error(counts[i], i, r, h)
    return res
