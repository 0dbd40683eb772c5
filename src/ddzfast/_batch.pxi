# Batches of positions, included into _core.pyx: legal_moves_batch runs the
# generator over many hands without the GIL, on threads.

from cpython.exc cimport PyErr_CheckSignals

import _thread
import sys

from ddzfast.constants import check_ordered, check_threads, worker_count

cdef extern from *:
    """
    #include <stdlib.h>
    #include <string.h>
    #if defined(__linux__)
    #include <sys/mman.h>
    #endif
    /* Large move buffers ask for transparent huge pages: first-touch page
       faults, not generation, otherwise dominate a big batch. */
    static void* ddz_alloc_big(size_t size) {
    #if defined(__linux__) && defined(MADV_HUGEPAGE)
        if (size >= ((size_t)4 << 20)) {
            void* p = NULL;
            if (posix_memalign(&p, (size_t)2 << 20, size) != 0) return NULL;
            madvise(p, size, MADV_HUGEPAGE);
            return p;
        }
    #endif
        return malloc(size);
    }
    """
    void* ddz_alloc_big(size_t size) nogil


cdef enum:
    BATCH_FIRST_GUESS = 1 << 20     # moves (16 MiB) reserved before the mean is known


cdef inline const ddz_move* _batch_last(const ddz_move* lasts,
                                        Py_ssize_t i) noexcept nogil:
    # position i's last move in a batch: NULL (it leads) when the batch has
    # no lasts or its row is a PASS
    if lasts == NULL or lasts[i].kind == K_PASS:
        return NULL
    return &lasts[i]


cdef class _Chunk:
    """The moves of hands[start:stop], generated without the GIL into a buffer
    that grows as needed."""

    cdef ddz_move* buf
    cdef int64_t size
    cdef int64_t cap
    cdef int failed
    # the whole range that run() serves in slices (for its size guesses)
    cdef Py_ssize_t planned_start
    cdef Py_ssize_t planned_stop
    # buf is the caller's (legal_moves_batch's out): never grown nor freed;
    # once the moves pass cap they are only counted (size: all of them)
    cdef int external

    def __dealloc__(self):
        if not self.external:
            free(self.buf)

    cdef object as_array(self):
        """The generated moves as a MOVE_DTYPE array that owns this chunk."""
        cdef ddz_move* shrunk
        if self.size and self.size < self.cap:
            shrunk = <ddz_move*>realloc(self.buf, self.size * sizeof(ddz_move))
            if shrunk != NULL:
                self.buf = shrunk
                self.cap = self.size
        return _move_array_view(self.buf, self.size, self, True)

    cdef void run(self, const ddz_rules* rules, const uint64_t* hands,
                  const ddz_move* lasts, int64_t* counts, Py_ssize_t start,
                  Py_ssize_t stop) noexcept nogil:
        cdef Py_ssize_t i
        cdef int64_t n, newcap, rest
        cdef const ddz_move* last
        cdef ddz_move* grown
        cdef Py_ssize_t first = start, planned = stop
        if self.external:
            for i in range(start, stop):
                if self.size < self.cap:
                    n = ddz_legal_moves(rules, hands[i], _batch_last(lasts, i),
                                        self.buf + self.size, self.cap - self.size)
                else:
                    n = ddz_legal_moves(rules, hands[i], _batch_last(lasts, i), NULL, 0)
                counts[i] = n
                self.size += n
            return
        if self.planned_start <= start and stop <= self.planned_stop:
            first = self.planned_start
            planned = self.planned_stop
        if self.cap == 0 and stop > start:
            # A first guess of 64 moves a position, but at most BATCH_FIRST_GUESS
            # moves in all: the loop grows the buffer from the mean so far, so
            # millions of small positions never reserve 64 rows each.
            newcap = (planned - first) * 64
            if newcap > BATCH_FIRST_GUESS:
                newcap = BATCH_FIRST_GUESS
            self.buf = <ddz_move*>ddz_alloc_big(newcap * sizeof(ddz_move))
            if self.buf == NULL:
                self.failed = 1
                return
            self.cap = newcap
        for i in range(start, stop):
            last = _batch_last(lasts, i)
            while True:
                n = ddz_legal_moves(rules, hands[i], last, self.buf + self.size,
                                    self.cap - self.size)
                if n <= self.cap - self.size:
                    break
                # room for the rest of the whole range at the mean size so
                # far and an eighth more (the mean of the first positions is
                # an estimate: a growth near the end copies everything);
                # at least double: a few large copies, not many
                rest = (planned - i) * ((self.size + n) // (i - first + 1))
                newcap = self.size + n + rest + rest // 8
                if newcap < self.cap * 2:
                    newcap = self.cap * 2
                grown = <ddz_move*>ddz_alloc_big(newcap * sizeof(ddz_move))
                if grown == NULL:
                    self.failed = 1
                    return
                memcpy(grown, self.buf, self.size * sizeof(ddz_move))
                free(self.buf)
                self.buf = grown
                self.cap = newcap
            counts[i] = n
            self.size += n


def _run_chunk(_Chunk chunk, Rules rules, cnp.ndarray hands, lasts,
               cnp.ndarray counts, Py_ssize_t start, Py_ssize_t stop, cancel):
    cdef const uint64_t* hp = <const uint64_t*>cnp.PyArray_DATA(hands)
    cdef const ddz_move* lp = NULL
    cdef int64_t* cp = <int64_t*>cnp.PyArray_DATA(counts)
    if lasts is not None:
        lp = <const ddz_move*>cnp.PyArray_DATA(<cnp.ndarray>lasts)

    def positions(Py_ssize_t a, Py_ssize_t b):
        with nogil:
            chunk.run(&rules.c, hp, lp, cp, a, b)
        return chunk.failed

    chunk.planned_start = start
    chunk.planned_stop = stop

    _sliced(positions, start, stop, cancel)


def legal_moves_batch(hands, lasts=None, rules="classic", threads=1, out=None):
    """The legal moves of many positions at once, in CSR form.

    ``hands``: packed hands, a 1-d array-like of uint64 (N). ``lasts``: None
    (every position leads) or a MOVE_DTYPE array of N rows, a PASS row meaning
    that position leads. Returns ``(offsets, moves)``: ``offsets`` int64 of
    N + 1 and ``moves`` MOVE_DTYPE, the moves of position i being
    ``moves[offsets[i]:offsets[i + 1]]``, each list exactly as
    ``legal_moves`` gives it. Generation runs without the GIL, on ``threads``
    threads over contiguous ranges of positions.

    ``out``: None (``moves`` is a new array), or a writable, C-contiguous 1-d
    MOVE_DTYPE array the moves are written into, ``moves`` being
    ``out[:offsets[-1]]`` (the rest of ``out`` is scratch): a buffer used
    again and again spares each call the new memory it would touch. When
    the moves do not all fit, ValueError says how many there are (``out``
    may then hold some of them); an ``out`` sharing memory with ``hands``
    or ``lasts`` is a ValueError.
    """
    cdef Rules r = _get_rules(rules)
    cdef cnp.ndarray h, counts, offsets, moves
    cdef Py_ssize_t n, t
    cdef int64_t total
    cdef _Chunk chunk
    threads = check_threads(threads)
    if out is not None:
        _check_move_out(out)
    h, la = _batch_positions(hands, lasts, r)
    if out is not None:
        _check_out_apart(out, hands, lasts, "moves")
    n = cnp.PyArray_DIM(h, 0)
    counts = np.zeros(n, dtype=np.int64)
    threads = worker_count(threads, n)
    bounds = [n * t // threads for t in range(threads + 1)]
    chunks = [_Chunk() for _ in range(threads)]
    if out is not None and threads == 1:
        # generated in place (the chunk's buffer is out's)
        chunk = chunks[0]
        chunk.external = 1
        chunk.buf = <ddz_move*>cnp.PyArray_DATA(<cnp.ndarray>out)
        chunk.cap = cnp.PyArray_DIM(<cnp.ndarray>out, 0)
    _parallel(threads, _run_chunk,
              [(chunks[t], r, h, la, counts, bounds[t], bounds[t + 1])
               for t in range(threads)])
    for chunk in chunks:
        if chunk.failed:
            raise MemoryError("out of memory generating a batch of moves")
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    total = offsets[n]
    if out is not None:
        if total > cnp.PyArray_DIM(<cnp.ndarray>out, 0):
            raise ValueError(f"out holds {cnp.PyArray_DIM(<cnp.ndarray>out, 0)} moves "
                             f"but these positions have {total} legal moves; pass a "
                             f"larger buffer")
        moves = out[:total]
        if threads == 1:
            return offsets, moves
    elif threads == 1:
        # The chunk's buffer becomes the result: no copy of what may be
        # hundreds of megabytes.
        return offsets, (<_Chunk>chunks[0]).as_array()
    else:
        moves = np.empty(total, dtype=MOVE_DTYPE)
    starts = [int(offsets[b]) for b in bounds[:threads]]
    _parallel(threads, _copy_chunk,
              [(chunks[t], moves, starts[t]) for t in range(threads)])
    return offsets, moves


cdef int _check_out_apart(object out, object hands, object lasts, str what) except -1:
    # A batch's `out` must not overlap the caller's positions: what is
    # written (`what`) would overwrite them (the batch reads copies of its
    # own, but a caller passing them twice is most likely mistaken).
    if np.may_share_memory(out, hands) or (lasts is not None
                                           and np.may_share_memory(out, lasts)):
        raise ValueError(f"out shares memory with hands or lasts: the {what} would "
                         f"overwrite the positions they are made from")
    return 0


cdef tuple _batch_positions(object hands, object lasts, Rules r):
    """(hands, lasts) of a batch checked and made C arrays: hands a uint64
    array of N hands of the rule set's deck, lasts None or N legal MOVE_DTYPE
    rows of it (a PASS row: that position leads)."""
    cdef cnp.ndarray h, la = None
    cdef Py_ssize_t n, i
    cdef const uint64_t* hp
    cdef const ddz_move* lp
    cdef Py_ssize_t bad = -1
    _need_wild(r)
    h = _as_hand_array(hands)
    n = cnp.PyArray_DIM(h, 0)
    hp = <const uint64_t*>cnp.PyArray_DATA(h)
    with nogil:
        for i in range(n):
            if not ddz_hand_valid(&r.c, hp[i]):
                bad = i
                break
    if bad >= 0:
        _to_bits(int(h[bad]), r, f"hands[{bad}]")
    if lasts is not None:
        # (a copy, as the hands are)
        la = np.array(lasts, order="C", copy=True)
        if la.dtype != MOVE_DTYPE or la.ndim != 1:
            raise TypeError("lasts must be a 1-d MOVE_DTYPE array (or None)")
        if cnp.PyArray_DIM(la, 0) != n:
            raise ValueError(f"lasts has {cnp.PyArray_DIM(la, 0)} rows for {n} hands")
        lp = <const ddz_move*>cnp.PyArray_DATA(la)
        with nogil:
            for i in range(n):
                if ddz_check(&r.c, lp[i].kind, lp[i].rank, lp[i].length,
                             lp[i].cards) < 0:
                    bad = i
                    break
        if bad >= 0:
            raise IllegalMoveError(f"lasts[{bad}] {la[bad]} is not a legal move in "
                                   f"{_rules_label(r)}")
    return h, la


@cython.auto_pickle(False)
cdef class _Cancel:
    """A run's stop request (``set``, ``is_set``, as threading.Event's), set
    by the calling thread and read by its workers between slices. Plain C
    under the GIL: no signal handler can run in the middle of ``set``, as
    one can in threading.Event's Python code and leave its lock held."""
    cdef int flag

    def set(self) -> None:
        self.flag = 1

    def is_set(self) -> bool:
        return self.flag != 0


def _parallel(int threads, fn, list args, tick=None):
    # fn(*args[0], cancel) on this thread, the others on their own threads;
    # fn releases the GIL for its work and, for long work, runs it through
    # _sliced with `cancel` (None with one thread). With `tick` (a callable:
    # a caller's progress), every part runs on a thread of its own instead
    # and this thread calls tick() every TICK_SECONDS while they run, then
    # once when all have finished. Whatever raises here, this thread's part,
    # a tick or a wait for the others (KeyboardInterrupt from Ctrl-C lands
    # in any of them), `cancel` stops the others at their next slice and
    # every one has finished before the exception goes on: no thread
    # outlives the call; an exception of a worker's part cancels the others
    # too and is raised here once they have finished.
    # The signal handlers run in this thread, at any point of the Python
    # code it runs, and an exception they raise is lost where that code is
    # a finalizer: so the workers are bare threads (_thread), whose end
    # runs no Python code here (a threading.Thread's runs a weakref
    # callback), and each reports its end on a lock of its own, waited for
    # in C by _await_end (threading.Event's wait, interrupted, can leave its
    # lock held and the worker that sets it blocked for good).
    if threads == 1 and tick is None:
        fn(*args[0], None)
        return
    cdef _Cancel cancel = _Cancel()
    started = []
    errors = []
    try:
        for a in (args if tick is not None else args[1:]):
            finished = _thread.allocate_lock()
            finished.acquire()
            _thread.start_new_thread(_worker, (fn, (*a, cancel), finished, errors))
            started.append(finished)
        if tick is None:
            fn(*args[0], cancel)
        for finished in started:
            _await_end(finished, tick)
            finished.release()
        PyErr_CheckSignals()
        if tick is not None:
            tick()
    except BaseException:
        cancel.set()
        _wait_through([_ended(finished) for finished in started])
        raise
    if errors:
        raise errors[0]


def _worker(fn, tuple args, finished, list errors):
    # (args' last item is the run's `cancel`; wraparound is off in this
    # module, so no args[-1])
    try:
        fn(*args)
    except BaseException as e:
        errors.append(e)
        args[len(args) - 1].set()
    finally:
        finished.release()


def _wait_through(waits) -> None:
    """Call each of ``waits`` (a wait for one worker) to its end, even
    through further exceptions (a second Ctrl-C): the caller re-raises the
    first one. The workers are cancelled or near their end, so each wait
    is short."""
    for wait in waits:
        while True:
            try:
                wait()
                break
            except BaseException:
                pass


cdef int _await_end(ended, tick) except -1:
    # Acquires `ended`, the lock a worker releases at its end, waiting in C
    # and waking every TICK_SECONDS to run the handlers of signals another
    # thread received (they would not wake this one) and call tick(), if
    # given. The lock is left held.
    while not ended.acquire(True, TICK_SECONDS):
        PyErr_CheckSignals()
        if tick is not None:
            tick()
    return 0


def _ended(finished):
    """A wait for the worker whose end releases the lock ``finished``."""
    def wait():
        finished.acquire()
        finished.release()
    return wait


@cython.auto_pickle(False)
cdef class _Crew:
    """Bare worker threads kept from call to call (VectorEnv's passes):
    ``dispatch`` hands worker j a callable, ``collect`` waits for every
    worker handed one and returns their results (raising a worker's
    exception), ``collect_through`` waits for them through any exception
    (the caller's interrupt is re-raised by the caller). The waits are as
    _parallel's, on locks in C: no Python code of threading runs in the
    calling thread, where a signal handler could leave it half done. The
    workers hold the crew, not what their callables belong to, and drop
    each callable before reporting its end; ``stop`` (the owner's end) has
    them exit and waits until they have, except at the interpreter's
    shutdown, when they are left to end with the process. A child of fork
    has none of the threads: ``made_here`` is false there, and the owner
    makes another crew. The owner's finalizer calls ``made_here`` and
    ``stop``, which read no module globals (torn down by then at the
    interpreter's shutdown)."""
    cdef readonly int size
    cdef readonly long pid               # the process that made it (ddz_getpid)
    cdef int started                     # workers whose threads were made
    cdef object interpreter_finalizing   # sys.is_finalizing, held for stop
    cdef list go, ended, jobs, results
    cdef int stopping
    cdef list pending

    def __init__(self, int size):
        cdef int j
        self.size = size
        self.pid = ddz_getpid()
        self.interpreter_finalizing = sys.is_finalizing
        self.go = [_thread.allocate_lock() for _ in range(size)]
        self.ended = [_thread.allocate_lock() for _ in range(size)]
        self.jobs = [None] * size
        self.results = [None] * size
        self.pending = [False] * size
        for j in range(size):
            self.go[j].acquire()
            self.ended[j].acquire()
        try:
            for j in range(size):
                _thread.start_new_thread(_crew_worker, (self, j))
                self.started += 1
        except BaseException:
            self.stop()
            raise

    def made_here(self) -> bool:
        """Whether this process made the crew (not a child of fork)."""
        return ddz_getpid() == self.pid

    def dispatch(self, int j, job) -> None:
        self.jobs[j] = job
        self.pending[j] = True
        self.go[j].release()

    def collect(self) -> list:
        cdef int j
        out = []
        for j in range(self.size):
            if self.pending[j]:
                _await_end(self.ended[j], None)
                self.pending[j] = False
                out.append(self.results[j])
                self.results[j] = None
        # a signal that came while this thread ran its own part or found
        # the workers done: raised here, in the call, not after it
        PyErr_CheckSignals()
        for r in out:
            if isinstance(r, BaseException):
                raise r
        return out

    def collect_through(self) -> None:
        cdef int j
        # (each end lock acquired and kept held, as collect leaves it)
        _wait_through([self.ended[j].acquire for j in range(self.size) if self.pending[j]])
        for j in range(self.size):
            self.pending[j] = False
            self.results[j] = None

    def stop(self) -> None:
        # A worker woken here and still on its way out when the interpreter
        # begins to shut down would be ended by it as it took the GIL back
        # (pthread_exit), inside its frames: stop returns once every worker
        # has left them. Once the shutdown has begun no woken worker gets
        # that far, so none is woken.
        cdef int j
        if self.stopping:
            return
        self.stopping = 1
        if self.interpreter_finalizing():
            return
        # (a job handed over and not collected ends first, so that every
        # end lock is held when its worker exits and releases it)
        _wait_through([self.ended[j].acquire for j in range(self.started) if self.pending[j]])
        for j in range(self.started):
            self.pending[j] = False
            self.go[j].release()
        _wait_through([self.ended[j].acquire for j in range(self.started)])


def _crew_worker(_Crew crew, int j):
    # worker j of `crew`: each job run as it is handed over, its result (or
    # exception) left for collect, the job dropped before its end is told;
    # told to stop, it tells its end once more and returns
    go = crew.go[j]
    ended = crew.ended[j]
    while True:
        go.acquire()
        if crew.stopping:
            ended.release()
            return
        job = crew.jobs[j]
        crew.jobs[j] = None
        try:
            result = job()
        except BaseException as e:
            result = e
        job = None
        crew.results[j] = result
        result = None
        ended.release()


#: The wall time one slice of _sliced aims at: signals are checked at least
#: this often (and at most a few times as long, as slices grow or shrink).
SLICE_SECONDS = 0.01

#: How often _parallel's `tick` (a run's progress) is called while the
#: workers run.
TICK_SECONDS = 0.05


def _sliced(fn, int64_t start, int64_t stop, cancel=None) -> int:
    """fn(a, b) over start..stop in slices of about SLICE_SECONDS each (fn
    releases the GIL for its slice and returns 0, or a status that ends the
    run), with signals checked between slices: Ctrl-C raises
    KeyboardInterrupt in the main thread within a slice's time. Returns the
    last status; stops early, returning 0, once ``cancel`` (_parallel's
    _Cancel, or anything with ``is_set``) is set."""
    cdef int64_t a = start, b, size = 16
    cdef double t0, spent
    cdef int status = 0
    while a < stop:
        b = stop if stop - a <= size else a + size
        t0 = ddz_now()
        status = fn(a, b)
        if status:
            return status
        spent = ddz_now() - t0
        a = b
        if spent < SLICE_SECONDS / 2 and size < (1 << 40):
            size *= 2
        elif spent > 2 * SLICE_SECONDS and size > 1:
            size //= 2
        PyErr_CheckSignals()
        if cancel is not None and cancel.is_set():
            return 0
    return status


def _copy_chunk(_Chunk chunk, cnp.ndarray moves, Py_ssize_t start, cancel):
    cdef char* dst = <char*>cnp.PyArray_DATA(moves) + start * sizeof(ddz_move)
    cdef size_t size = chunk.size * sizeof(ddz_move)
    if size:
        with nogil:
            memcpy(dst, chunk.buf, size)


cdef cnp.ndarray _as_hand_array(object hands):
    cdef cnp.ndarray a
    if isinstance(hands, (str, bytes)):
        raise TypeError("hands must be a 1-d array-like of packed hands, not a string")
    if isinstance(hands, Hand):
        raise TypeError("hands must be a 1-d array-like of packed hands, not one Hand "
                        "([hand] is a batch of one)")
    if not isinstance(hands, cnp.ndarray) and not hasattr(hands, "__iter__"):
        raise TypeError(f"hands must be a 1-d array-like of packed hands, not "
                        f"{type(hands).__name__}")
    if isinstance(hands, cnp.ndarray):
        a = <cnp.ndarray>hands
        if a.dtype.kind not in "iu":
            raise TypeError(f"hands must be an integer array of packed hands, not {a.dtype}")
        if a.dtype.kind == "i" and a.size and a.min() < 0:
            raise ValueError("hands holds a negative value: not a packed hand")
    else:
        check_ordered(hands, "hands")
        hands = [int(x) if isinstance(x, Hand) else x for x in hands]
        for x in hands:
            if not isinstance(x, (int, np.integer)) or isinstance(x, bool):
                raise TypeError(f"hands must hold packed ints or Hands, not {type(x).__name__}")
            if not 0 <= x < (1 << 64):
                raise ValueError(f"{x!r} is not a packed hand (0 <= value < 2**64)")
        a = np.array(hands, dtype=np.uint64)
    if a.ndim != 1:
        raise ValueError(f"hands must be 1-d, not of shape {(<object>a).shape}")
    # always a copy of the batch's own: its hands are checked, then read
    # again without the GIL, while another thread of the caller's may write
    # the caller's array
    return np.array(a, dtype=np.uint64, order="C", copy=True)


def _move_rows_wild(moves, rules) -> np.ndarray:
    """For each row of a 1-d MOVE_DTYPE array, the ``wild`` the core derives
    for it when (kind, rank, length, cards) is a legal move of ``rules``,
    else -1 (int16). Runs without the GIL; the rows' own ``wild`` is ignored.
    A laizi rule set without its wild ranks is a ValueError (it has no
    legal move to find)."""
    cdef Rules r = _get_rules(rules)
    cdef cnp.ndarray a = np.ascontiguousarray(moves)
    cdef cnp.ndarray res
    cdef const ddz_move* mp
    cdef int16_t* rp
    cdef Py_ssize_t i, n
    if a.dtype != MOVE_DTYPE or a.ndim != 1:
        raise TypeError(f"moves must be a 1-d MOVE_DTYPE array, not {a.dtype} "
                        f"of shape {(<object>a).shape}")
    _need_wild(r)
    n = cnp.PyArray_DIM(a, 0)
    res = np.empty(n, dtype=np.int16)
    mp = <const ddz_move*>cnp.PyArray_DATA(a)
    rp = <int16_t*>cnp.PyArray_DATA(res)
    with nogil:
        for i in range(n):
            rp[i] = <int16_t>ddz_check(&r.c, mp[i].kind, mp[i].rank, mp[i].length,
                                       mp[i].cards)
    return res


def _move_rows_substitutes(moves, rules) -> np.ndarray:
    """For each row of a 1-d MOVE_DTYPE array, the ``substitutes`` the core
    derives for its (kind, rank, length, cards) in ``rules`` (uint32, 0
    outside laizi rule sets; meaningful for legal rows only: check them with
    ``_move_rows_wild``). Runs without the GIL."""
    cdef Rules r = _get_rules(rules)
    cdef cnp.ndarray a = np.ascontiguousarray(moves)
    cdef cnp.ndarray res
    cdef const ddz_move* mp
    cdef uint32_t* rp
    cdef Py_ssize_t i, n
    if a.dtype != MOVE_DTYPE or a.ndim != 1:
        raise TypeError(f"moves must be a 1-d MOVE_DTYPE array, not {a.dtype} "
                        f"of shape {(<object>a).shape}")
    n = cnp.PyArray_DIM(a, 0)
    res = np.empty(n, dtype=np.uint32)
    mp = <const ddz_move*>cnp.PyArray_DATA(a)
    rp = <uint32_t*>cnp.PyArray_DATA(res)
    with nogil:
        for i in range(n):
            rp[i] = ddz_substitutes(&r.c, mp[i].kind, mp[i].rank, mp[i].length,
                                    mp[i].cards)
    return res


cdef inline void _feature_cards(uint8_t* o, uint64_t cards) noexcept nogil:
    # ddzfast.features' card encoding (its module docstring): o[15 j + i] = 1
    # when more than j cards of index i (3..2, X, D), then o[60] the W count
    cdef int i, j, c
    for i in range(15):
        c = _nib(cards, i)
        for j in range(4):
            o[15 * j + i] = c > j
    o[60] = <uint8_t>_nib(cards, IDX_W)


def _feature_rows_hands(hands, out) -> int:
    """encode_hands' rows of a 1-d uint64 array of packed hands into ``out``
    ((N, 61) uint8, C-contiguous): -1, or the first hand holding more of a
    card than a deck has (the rows before it written). Without the GIL."""
    cdef cnp.ndarray a = hands
    cdef cnp.ndarray o = out
    cdef const uint64_t* hp
    cdef uint8_t* op
    cdef Py_ssize_t i, n, bad = -1
    if a.dtype != np.uint64 or a.ndim != 1 or not a.flags.c_contiguous:
        raise TypeError("hands must be a 1-d C-contiguous uint64 array")
    n = cnp.PyArray_DIM(a, 0)
    if o.dtype != np.uint8 or o.ndim != 2 or not o.flags.c_contiguous \
            or cnp.PyArray_DIM(o, 0) != n or cnp.PyArray_DIM(o, 1) != 61:
        raise TypeError(f"out must be a C-contiguous ({n}, 61) uint8 array")
    hp = <const uint64_t*>cnp.PyArray_DATA(a)
    op = <uint8_t*>cnp.PyArray_DATA(o)
    with nogil:
        for i in range(n):
            if not _within_a_deck(hp[i]):
                bad = i
                break
            _feature_cards(op + 61 * i, hp[i])
    return bad


def _feature_rows_moves(moves, candidates, out) -> int:
    """encode_moves' rows of a 1-d MOVE_DTYPE array into ``out`` ((N, 77)
    uint8, C-contiguous), each row checked as features._check_legal checks
    it with check_wild against ``candidates`` (a tuple of Rules; one without
    its wild ranks fails the first row): its identity in range, legal in one
    of them, and carrying the wild and substitutes that one derives;
    its substitute columns those of the first candidate it is legal in. -1,
    or the first row that fails (the rows before it written), for the
    caller's message. Without the GIL."""
    cdef cnp.ndarray a = moves
    cdef cnp.ndarray o = out
    cdef const ddz_move* mp
    cdef const ddz_move* m
    cdef uint8_t* op
    cdef uint8_t* row
    cdef Py_ssize_t i, n, bad = -1
    cdef int k, nc = len(candidates), w, ok, first
    cdef uint32_t s, subs
    cdef uint64_t sc
    cdef const ddz_rules* rs[64]
    if a.dtype != MOVE_DTYPE or a.ndim != 1 or not a.flags.c_contiguous:
        raise TypeError("moves must be a 1-d C-contiguous MOVE_DTYPE array")
    n = cnp.PyArray_DIM(a, 0)
    if o.dtype != np.uint8 or o.ndim != 2 or not o.flags.c_contiguous \
            or cnp.PyArray_DIM(o, 0) != n or cnp.PyArray_DIM(o, 1) != 77:
        raise TypeError(f"out must be a C-contiguous ({n}, 77) uint8 array")
    if not 0 < nc <= 64:
        raise ValueError(f"candidates holds 1 to 64 rule sets, not {nc}")
    for k in range(nc):
        rs[k] = &(<Rules?>candidates[k]).c
        if not _rules_ready(rs[k]):
            # (its wild ranks not given: the caller's checks say so)
            return 0 if n else -1
    mp = <const ddz_move*>cnp.PyArray_DATA(a)
    op = <uint8_t*>cnp.PyArray_DATA(o)
    with nogil:
        for i in range(n):
            m = mp + i
            if m.kind >= NKINDS or m.rank >= 16 or not _within_a_deck(m.cards):
                bad = i
                break
            ok = 0
            first = 1
            subs = 0
            for k in range(nc):
                w = ddz_check(rs[k], m.kind, m.rank, m.length, m.cards)
                if w < 0:
                    continue
                s = ddz_substitutes(rs[k], m.kind, m.rank, m.length, m.cards)
                if first:
                    subs = s
                    first = 0
                if w == m.wild and s == m.substitutes:
                    ok = 1
                    break
            if not ok:
                bad = i
                break
            row = op + 77 * i
            _feature_cards(row, m.cards)
            memset(row + 61, 0, 16)
            if m.wild != WILD_NONE:
                if m.wild > WILD_KICKER:
                    bad = i
                    break
                row[61 + m.wild] = 1
            if subs:
                sc = _substitute_bits(subs)
                for k in range(13):
                    row[61 + k] = <uint8_t>_nib(sc, k)
    return bad


ctypedef fused feature_t:
    uint8_t
    double


cdef inline int _decode_row(const feature_t* f, int width, uint64_t* out) noexcept nogil:
    # decode_hands of one row of `width` features (61: encode_hands, 77:
    # encode_moves): 1 and the packed cards in *out when the row passes
    # features.decode_hands' checks (its docstring), else 0
    cdef int i, j, plays_w, ones, top1 = 0, top2 = 0
    cdef int count[15]
    cdef double v, subs = 0
    cdef uint64_t packed = 0
    for i in range(width):
        v = <double>f[i]
        if width == 77 and 61 <= i < 61 + 13:
            # a laizi substitute count: a whole number 0..8
            if not (0 <= v <= 8 and v == <double><int>v):
                return 0
        elif not (v == 0 or v == 1):
            return 0
    for i in range(15):
        count[i] = 0
        for j in range(4):
            if f[15 * j + i]:
                # a plane row set without the one above it, or past the
                # copies a deck has
                if j > count[i] or j >= _CARD_LIMIT[i]:
                    return 0
                count[i] += 1
        packed += (<uint64_t>count[i]) << (4 * i)
    plays_w = f[60] == 1
    if width == 77:
        if plays_w:
            # a one-hot of what W stands for
            ones = 0
            for i in range(61, 77):
                if f[i] > 1:
                    return 0
                ones += f[i] == 1
            if ones != 1:
                return 0
        else:
            for i in range(61 + 13, 77):
                if f[i]:
                    return 0
            # laizi substitutes: the two ranks holding the most cards hold
            # every one
            for i in range(13):
                subs += <double>f[61 + i]
                if count[i] > top1:
                    top2 = top1
                    top1 = count[i]
                elif count[i] > top2:
                    top2 = count[i]
            if subs > top1 + top2:
                return 0
    out[0] = packed + ((<uint64_t>plays_w) << (4 * IDX_W))
    return 1


def _feature_rows_decode(features, out) -> int:
    """decode_hands of a C-contiguous (N, 61) or (N, 77) uint8 or float64
    array into ``out`` (N uint64): -1, or the first row that fails its
    checks (the rows before it written), for the caller's message. Without
    the GIL."""
    cdef cnp.ndarray a = features
    cdef cnp.ndarray o = out
    cdef uint64_t* op
    cdef Py_ssize_t i, n, bad = -1
    cdef int width
    if a.ndim != 2 or not a.flags.c_contiguous or a.dtype not in (np.uint8, np.float64) \
            or cnp.PyArray_DIM(a, 1) not in (61, 77):
        raise TypeError("features must be a C-contiguous (N, 61) or (N, 77) uint8 or "
                        "float64 array")
    n = cnp.PyArray_DIM(a, 0)
    width = <int>cnp.PyArray_DIM(a, 1)
    if o.dtype != np.uint64 or o.ndim != 1 or not o.flags.c_contiguous \
            or cnp.PyArray_DIM(o, 0) != n:
        raise TypeError(f"out must be a C-contiguous ({n},) uint64 array")
    op = <uint64_t*>cnp.PyArray_DATA(o)
    if a.dtype == np.uint8:
        with nogil:
            for i in range(n):
                if not _decode_row(<const uint8_t*>cnp.PyArray_DATA(a) + width * i,
                                   width, op + i):
                    bad = i
                    break
    else:
        with nogil:
            for i in range(n):
                if not _decode_row(<const double*>cnp.PyArray_DATA(a) + width * i,
                                   width, op + i):
                    bad = i
                    break
    return bad
