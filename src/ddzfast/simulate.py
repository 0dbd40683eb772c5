"""Monte Carlo simulation of whole deals: on one core, on all cores, or on a
Ray cluster.

``simulate(games, rules="classic", policies=("random", "random", "random"),
seed=0, threads=1, bidding=True, backend="local")`` returns a numpy array of
``DEAL_DTYPE``, one row per deal:

* ``seed``: the deal's own seed (``Game(rules, seed, bidding, first_bidder)``
  replays it with the built-in policies; a no-shuffle deal past its
  session's first is ``next_deal`` of the deal before it, seeded so);
* ``landlord``, ``base``, ``first_bidder``: the bidding's outcome;
* ``winner``: 0 when the landlord's side won, 1 when the farmers did;
* ``multiplier`` (spring and the rule set's cap included), ``spring``,
  ``anti_spring``, ``scores`` (the three seats', RULES.md 6);
* ``moves`` (non-pass moves played) and ``bombs`` (bomb-tier moves played).
* ``wild_rank``: ``laizi``, the wild rank the deal drew (a card index, 0 =
  ``3`` ... 12 = ``2``); ``tiandi``, its sky rank; -1 in the other rule
  sets. ``ground_rank``: ``tiandi``, the ground rank; -1 in the others.
* platform play (RULES.md 10; neutral values without its options): ``robs``,
  ``show`` (the show multiplier 1, 2 or 4), ``shown`` (bit ``s``: seat ``s``
  showed), ``doubles`` (each seat's factor), ``redeals``, ``stakes`` (each
  farmer's stake, the landlord's their sum), ``session`` and ``position``
  (no-shuffle deals: deal ``i`` is position ``i % session`` of session
  ``i // session``; shuffled deals: session ``i``, position 0).

Deal ``i`` of a run seeded ``seed`` depends only on ``(seed, i)`` (a
no-shuffle deal also on its session's earlier deals, which are played in
order, sessions in parallel), so the rows are the same whatever the thread
count, backend or split. Deal indices are
``0 .. MAX_DEAL_INDEX`` (the int64 range): ``start >= 0`` and
``start + games <= MAX_DEAL_INDEX + 1`` (the last deal is
``start + games - 1``).

Policies
--------
``"random"`` (uniform over the legal bids and moves) and ``"greedy"`` (bid by
a hand-strength score: 2 per 2, 2 for X, 3 for D, 3 for W, 1 per A, 4 per four
of a kind, bidding 1/2/3 from 6/9/12 points; take a move that empties the
hand; lead the move that sheds the most cards, lowest rank first and natural
cards before W, bombs last; follow with the cheapest beating non-bomb, pass a
partner's move, bomb only when the last player holds at most 4 cards) and
``"expert"`` (plans with the exact decomposition ``min_plays``: its rules are
on the docs page Bots and the arena; it bids as greedy) run in C without the
GIL. ``parse_policies`` reads them from text (``"greedy"`` or
``"random,greedy,greedy"``), for ``simulate`` and the command line alike.

A Python callable is also accepted, with one contract in both phases::

    policy(game: Game, legal) -> int

``legal`` is ``game.legal_choices()`` in a decision phase (the bids while
bidding, 0 a pass; with the platform options of RULES.md 10 also the calls
and robs, shows and doubling factors) and the ``MoveList`` of legal moves
while playing; the policy returns the INDEX of its choice in ``legal``
(``legal[i]`` is chosen or played). While playing it may instead return the ``Move`` itself or a
``MOVE_DTYPE`` row. A bool, an index out of range, a move that is not legal
or anything else raises ValueError or TypeError naming the seat and the
policy. The policy gets the live game to read: one that bids, plays or undoes
on it raises RuntimeError naming it (look ahead on ``game.copy()``); its
random stream is the deal's, so ``game.policy_move("random")`` is allowed.
Deals with a callable run one by one in Python (slower), with the same rows
format.
"""
from __future__ import annotations

import functools
import numbers
import os
import socket
import threading
import time
from typing import Callable, Iterator, Sequence, Union

import numpy as np

from ddzfast._core import MOVE_DTYPE, Move, get_rules
from ddzfast._engine import (DEAL_DTYPE, POLICIES, Game, _score_row, _SessionCarry,
                             _simulate_native, deal_seed)
from ddzfast.constants import (check_bool, check_int, check_positive, check_threads,
                                import_optional, split_policies)

Policy = Union[str, Callable]

__all__ = ["simulate", "simulate_parts", "session_length", "DEAL_DTYPE", "deal_seed",
           "play_deal", "parse_policies", "policy_name", "check_deal_range", "MAX_DEAL_INDEX", "MAX_SEED",
           "RAY_CONNECT_TIMEOUT"]

#: The largest deal index (deal indices are int64 in the engine).
MAX_DEAL_INDEX = (1 << 63) - 1
#: The largest seed (seeds are uint64).
MAX_SEED = (1 << 64) - 1
#: Seconds to wait for a Ray cluster address to accept a connection before
#: ``simulate(backend="ray", address=...)`` gives up with ConnectionError
#: (``ray.init`` itself retries an unreachable address for minutes).
RAY_CONNECT_TIMEOUT = 10.0

BACKENDS = ("local", "ray")


def check_deal_range(games, start=0) -> tuple[int, int]:
    """``(games, start)`` as ints with ``0 <= games <= MAX_DEAL_INDEX``,
    ``0 <= start`` and ``start + games <= MAX_DEAL_INDEX + 1`` (the deals are
    ``start .. start + games - 1``), else TypeError/ValueError."""
    games = check_int(games, "games")
    start = check_int(start, "start")
    if not 0 <= games <= MAX_DEAL_INDEX:
        raise ValueError(f"games must be in 0 .. 2**63 - 1, not {games}")
    if start < 0:
        raise ValueError(f"start must not be negative, not {start} (deal indices are "
                         f"0 .. 2**63 - 1)")
    if start + games > MAX_DEAL_INDEX + 1:
        raise ValueError(f"start + games must be at most 2**63 (the last deal index "
                         f"is 2**63 - 1, int64's largest), not {start} + {games}")
    return games, start


def check_seed(seed) -> int:
    """``seed`` as an int in 0 .. 2**64 - 1, else TypeError/ValueError."""
    seed = check_int(seed, "seed")
    if not 0 <= seed <= MAX_SEED:
        raise ValueError(f"seed must be in 0 .. 2**64 - 1, not {seed}")
    return seed


def policy_name(policy: Policy) -> str:
    """A policy as text: a built-in's name, a callable's qualified name."""
    if isinstance(policy, str):
        return policy
    return getattr(policy, "__qualname__", None) or getattr(policy, "__name__", None) \
        or repr(policy)


#: the end of parse_policies' message for an unknown name, which the command
#: line (where no callable can be given) leaves out
CALLABLE_POLICY = " or a callable"


def parse_policies(policies: str | Sequence[Policy]) -> tuple[Policy, Policy, Policy]:
    """Three policies, one per seat, from text (``"greedy"``,
    ``"random,greedy,greedy"``) or a sequence of names and callables; one
    policy is used for all three seats. The one parser of policy text: both
    ``simulate`` and the command line use it."""
    items = split_policies(
        policies, 3, "policies must be text, a callable or a sequence of them, not {type}",
        "give one policy or three (one per seat), not {n}")
    for p in items:
        if callable(p):
            continue
        if not isinstance(p, str):
            raise TypeError(f"a policy is one of {', '.join(POLICIES)} or a callable, "
                            f"not {type(p).__name__} {p!r}")
        if p not in POLICIES:
            raise ValueError(f"unknown policy {p!r}: use {', '.join(POLICIES)}"
                             f"{CALLABLE_POLICY}")
    return items[0], items[1], items[2]


def _policy_choice(policy: Callable, game: Game, seat: int):
    """Ask a callable policy for its choice and turn it into a bid or a Move,
    enforcing the contract of the module docstring."""
    bidding = game.phase not in ("play", "done")
    legal = game.legal_choices() if bidding else game.legal_moves()
    changes = game._changes
    who = f"policy {policy_name(policy)!r} (seat {seat})"
    try:
        choice = policy(game, legal)
    except StopIteration as e:
        # inside simulate's generator of rows it would come out as a bare
        # "generator raised StopIteration" (PEP 479), naming no policy
        raise RuntimeError(f"{who} raised StopIteration") from e
    if game._changes != changes:
        raise RuntimeError(f"{who} changed the game it was given (it bid, played or "
                           f"undid a move): a policy reads the game and returns its "
                           f"choice; to look ahead, play on game.copy()")
    if isinstance(choice, bool):
        raise TypeError(f"{who} returned the bool {choice}: return the index of its "
                        f"choice in legal")
    if isinstance(choice, numbers.Integral):
        i = int(choice)
        if not 0 <= i < len(legal):
            raise ValueError(f"{who} returned index {i}, but legal has {len(legal)} "
                             f"{'choices' if bidding else 'moves'} (0 .. {len(legal) - 1})")
        return legal[i]
    if bidding:
        raise TypeError(f"{who} returned {type(choice).__name__} {choice!r} in the "
                        f"{game.phase} phase: return the index of a choice in legal")
    if isinstance(choice, Move) or (isinstance(choice, np.void)
                                     and choice.dtype == MOVE_DTYPE):
        return choice
    raise TypeError(f"{who} returned {type(choice).__name__} {choice!r}: return an "
                    f"index into legal, a Move or a MOVE_DTYPE row")


def play_deal(rules, policies: Sequence[Policy], seed: int, first_bidder: int = 0,
              bidding: bool = True):
    """Play one deal in Python with these policies (as ``simulate`` takes
    them); returns its DEAL_DTYPE row (its ``session``: -1, as a Game's)."""
    policies = parse_policies(policies)
    game = Game(rules, seed, bidding, first_bidder)
    _play_out(game, policies)
    return _score_row(game)


def _play_out(game: Game, policies: Sequence[Policy]) -> None:
    """Play ``game`` to its end with these policies, every decision included."""
    while not game.done:
        seat = game.to_move
        assert seat is not None
        policy = policies[seat]
        choosing = game.phase != "play"
        if not callable(policy):
            if choosing:
                game.choose(game.policy_choice(policy))
            else:
                game.play(game.policy_move(policy))
            continue
        choice = _policy_choice(policy, game, seat)
        try:
            if choosing:
                game.choose(choice)
            else:
                game.play(choice)
        except ValueError as e:
            raise type(e)(f"policy {policy_name(policy)!r} (seat {seat}) chose "
                          f"{choice}: {e}") from None


def _python_rows(rules, policies, seed: int, start: int, stop: int, bidding: bool):
    """Deals start..stop played in Python, as ``simulate`` numbers them: a
    no-shuffle deal from its session's previous deal (a start inside a
    session first plays the session's earlier deals, without rows)."""
    length = session_length(rules)
    first = start - start % length
    game: Game | None = None
    for i in range(first, stop):
        if game is None or i % length == 0:
            game = Game(rules, deal_seed(seed, i), bidding, i % 3)
        else:
            game = game.next_deal(deal_seed(seed, i))
        _play_out(game, policies)
        if i >= start:
            yield _score_row(game, i // length)


@functools.cache
def _memory_bytes() -> int | None:
    """The machine's physical memory, when the system says (asked once: two
    system calls would be most of a short run's cost)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None


def check_backend(backend, address, tasks, connect_timeout) -> tuple[int | None, float]:
    """The backend arguments of ``simulate`` and the arena checked: a
    backend of BACKENDS, an address of text or None, ``tasks`` None or an
    int of at least 1, a positive ``connect_timeout``; returns ``(tasks,
    connect_timeout)`` as ints and floats, else TypeError/ValueError."""
    if not isinstance(backend, str) or backend not in BACKENDS:
        raise ValueError(f"backend is 'local' or 'ray', not {backend!r}")
    if address is not None and not isinstance(address, str):
        raise TypeError(f"address must be text or None, not {type(address).__name__}")
    if tasks is not None:
        tasks = check_int(tasks, "tasks")
        if tasks < 1:
            raise ValueError(f"tasks must be at least 1, not {tasks}")
    if backend == "local" and (address is not None or tasks is not None):
        # (else a run meant for a cluster would run here without a word)
        given = " and ".join(n for n, v in (("address", address), ("tasks", tasks))
                             if v is not None)
        raise ValueError(f"{given} {'is' if ' and ' not in given else 'are'} for "
                         f"backend='ray' (the local backend runs on this machine's "
                         f"threads): pass backend='ray', or leave {given} out")
    connect_timeout = check_positive(connect_timeout, "connect_timeout")
    if connect_timeout > threading.TIMEOUT_MAX:
        # (sockets and waits take no longer: OverflowError after the check)
        raise ValueError(f"connect_timeout must be at most {threading.TIMEOUT_MAX:g} "
                         f"seconds, not {connect_timeout:g}")
    return tasks, connect_timeout


def _built_in(policies) -> bool:
    """Whether every policy is a built-in one (the run is played in C)."""
    return not any(callable(p) for p in policies)


def _checked_run(games, rules, policies, seed, threads, bidding, backend, address,
                 start, tasks, progress, connect_timeout):
    """The arguments of a simulation run checked and read (TypeError or
    ValueError else), in simulate's order."""
    games, start = check_deal_range(games, start)
    seed = check_seed(seed)
    threads = check_threads(threads)
    bidding = check_bool(bidding, "bidding")
    tasks, connect_timeout = check_backend(backend, address, tasks, connect_timeout)
    if progress is not None and not callable(progress):
        raise TypeError("progress must be a callable (or None)")
    return (games, get_rules(rules), parse_policies(policies), seed, threads, bidding,
            start, tasks, connect_timeout)


def _check_memory(games: int, what: str) -> None:
    need = games * DEAL_DTYPE.itemsize
    memory = _memory_bytes()
    if memory is not None and need > memory:
        raise ValueError(f"{games} deals need {need / 2**30:,.1f} GiB of rows, more than "
                         f"this machine's {memory / 2**30:,.1f} GiB of memory: {what}")


def simulate(games: int, rules="classic", policies=("random", "random", "random"),
             seed: int = 0, threads: int = 1, bidding: bool = True,
             backend: str = "local", address: str | None = None,
             start: int = 0, tasks: int | None = None,
             progress: Callable[[int], None] | None = None,
             connect_timeout: float = RAY_CONNECT_TIMEOUT) -> np.ndarray:
    """Play ``games`` deals (deal indices ``start .. start + games - 1``) and
    return their DEAL_DTYPE rows; see the module docstring.

    ``threads``: 1 .. MAX_THREADS (never more are started than the machine
    has CPUs). ``backend="ray"`` splits the deals into ``tasks`` seed ranges
    (default: 4 per CPU of the cluster; no-shuffle sessions are not cut
    between tasks) run as Ray tasks on the cluster that
    ``ray.init(address=address)`` connects to (a local Ray when None; an
    already initialised Ray is used as it is); an address that accepts no
    connection, or does not answer as Ray's gRPC ports do, within
    ``connect_timeout`` seconds raises ConnectionError. ``address`` and
    ``tasks`` with the local backend are a ValueError. Callable policies go
    to the Ray workers pickled: they run there, and what they change of
    Python state stays there. ``progress``, when given, is called on this
    thread with the number of deals finished so far: with built-in policies
    at short intervals while the threads play (the threads are not slowed
    by it), after each deal with a callable policy, and last with
    ``games``. Bad arguments raise TypeError or ValueError before any work;
    so does a result larger than the machine's memory (simulate in parts
    with ``simulate_parts``, or use ``ddzfast simulate --out``, which
    streams to disk).
    """
    (games, rules, policies, seed, threads, bidding, start, tasks,
     connect_timeout) = _checked_run(games, rules, policies, seed, threads, bidding,
                                     backend, address, start, tasks, progress,
                                     connect_timeout)
    _check_memory(games, "simulate in parts (simulate_parts) or stream with "
                         "`ddzfast simulate --out`")
    if backend == "ray":
        rows = _simulate_ray(games, rules, policies, seed, threads, bidding, address,
                             start, tasks, progress, connect_timeout)
    elif _built_in(policies):
        rows = _simulate_native(rules, policies, seed, start, start + games, bidding, threads,
                                progress=progress)
    else:
        run = _LocalRun(rules, policies, seed, threads, bidding, start, start + games)
        rows = np.zeros(games, dtype=DEAL_DTYPE)
        run.fill(rows, progress)
    _report_empty_run(games, progress)
    return rows


def _report_empty_run(games: int, progress) -> None:
    # a run of no deal still ends with progress(games), as the docstrings
    # say: no deal finished to report it
    if games == 0 and progress is not None:
        progress(0)


def simulate_parts(games: int, rules="classic",
                   policies=("random", "random", "random"), seed: int = 0,
                   threads: int = 1, bidding: bool = True, backend: str = "local",
                   address: str | None = None, start: int = 0, tasks: int | None = None,
                   progress: Callable[[int], None] | None = None,
                   connect_timeout: float = RAY_CONNECT_TIMEOUT,
                   part: int = 1 << 16) -> Iterator[np.ndarray]:
    """The rows of ``simulate`` with the same arguments, yielded in order as
    arrays of at most ``part`` rows each, one part in memory at a time: runs
    larger than memory. ``progress`` counts the deals of the whole run.

    A no-shuffle session (RULES.md 10) goes on from part to part on the
    local backend. With ``backend="ray"`` each part is one ``simulate``
    call, cut where a session ends when the sessions are no longer than
    ``part``; longer ones are replayed from their start by each part of
    them (a session is played in order, so Ray runs it on one CPU anyway).
    The arguments are checked as ``simulate`` checks them, and Ray started
    or reached, when the function is called, before the first part is
    played."""
    (games, rules, policies, seed, threads, bidding, start, tasks,
     connect_timeout) = _checked_run(games, rules, policies, seed, threads, bidding,
                                     backend, address, start, tasks, progress,
                                     connect_timeout)
    part = check_int(part, "part")
    if part < 1:
        raise ValueError(f"part must be at least 1, not {part}")
    _check_memory(min(part, games), "pass a smaller part")
    if backend == "ray":
        # (Ray missing, a bad address or one that does not answer: raised
        # here, as simulate raises them, not at the first part)
        ray_session(address, connect_timeout)
    return _parts(games, rules, policies, seed, threads, bidding, backend, address, start,
                  tasks, progress, connect_timeout, part)


def _parts(games, rules, policies, seed, threads, bidding, backend, address, start,
           tasks, progress, connect_timeout, part):
    stop = start + games
    length = session_length(rules)
    run = (_LocalRun(rules, policies, seed, threads, bidding, start, stop)
           if backend == "local" else None)
    first = start
    while first < stop:
        end = min(stop, first + part)
        if run is None and end < stop and length <= part:
            end -= end % length
        offset = first - start

        def counted(k: int, offset: int = offset) -> None:
            progress(offset + k)
        if run is not None:
            rows = np.zeros(end - first, dtype=DEAL_DTYPE)
            run.fill(rows, counted if progress is not None else None)
        else:
            rows = _simulate_ray(end - first, rules, policies, seed, threads, bidding,
                                 address, first, tasks,
                                 counted if progress is not None else None,
                                 connect_timeout)
        first = end
        yield rows
    _report_empty_run(games, progress)


def session_length(rules) -> int:
    """The deals of a session of ``rules``: its ``session`` option for
    no-shuffle deals (RULES.md 10), else 1 (each deal stands alone)."""
    rules = get_rules(rules)
    return rules.platform["session"] if rules.platform["deal"] == "no_shuffle" else 1


class _LocalRun:
    """The deals start .. stop - 1 of one simulation on this machine, played
    in order by successive ``fill`` calls: a no-shuffle session goes on from
    call to call (the engine's carry for built-in policies, one Python
    generator for callables) instead of being replayed from its start."""

    def __init__(self, rules, policies, seed, threads, bidding, start, stop):
        self.native = _built_in(policies)
        self.args = (rules, policies, seed, threads, bidding)
        self.carry = _SessionCarry() if self.native else None
        self.python_rows = (None if self.native else
                            _python_rows(rules, policies, seed, start, stop, bidding))
        self.next = start

    def fill(self, rows: np.ndarray, progress) -> None:
        """The next len(rows) deals into ``rows``; ``progress`` (or None)
        called with the deals of ``rows`` finished: as the engine's threads
        play them, or after each deal with a callable policy."""
        rules, policies, seed, threads, bidding = self.args
        games = len(rows)
        if self.native:
            rows[:] = _simulate_native(rules, policies, seed, self.next, self.next + games,
                                       bidding, threads, self.carry, progress)
        else:
            for k in range(games):
                rows[k] = next(self.python_rows)
                if progress is not None:
                    progress(k + 1)
        self.next += games


def _ray_range(rules_name, description, policies, seed, start, stop, bidding):
    from ddzfast._core import Rules
    rules = Rules(rules_name, **description)
    if _built_in(policies):
        return _simulate_native(rules, policies, seed, start, stop, bidding, 1)
    rows = np.zeros(stop - start, dtype=DEAL_DTYPE)
    _LocalRun(rules, policies, seed, 1, bidding, start, stop).fill(rows, None)
    return rows


def import_ray():
    """The ray module, or an ImportError that says how to install it."""
    return import_optional("ray", "ray", "backend 'ray'")


def _split_address(address: str) -> tuple[str, int] | None:
    """(host, port) of a Ray address ``HOST:PORT`` or ``ray://HOST:PORT``;
    None for the addresses Ray resolves itself ('auto', 'local'). The text
    is read as ``ray.init`` reads it: spaces and an empty text are no
    address."""
    text = address
    if text in ("auto", "local"):
        return None
    if text.startswith("ray://"):
        text = text[len("ray://"):]
    host, sep, port = text.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or any(c.isspace() for c in host) \
            or not (port.isascii() and port.isdigit()) or not 0 < int(port) < 65536:
        raise ValueError(f"a Ray address is HOST:PORT (or ray://HOST:PORT, 'auto'), "
                         f"not {address!r}")
    return host, int(port)


# HTTP/2's client connection preface and an empty SETTINGS frame: a gRPC
# server (a Ray head's GCS or Ray Client port) answers with a SETTINGS
# frame of its own (RFC 9113, section 3.4)
_H2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])
_H2_SETTINGS = 4


def _answers_grpc(sock: socket.socket, timeout: float) -> bool:
    """Whether the peer of a connected socket answers HTTP/2's preface with a
    SETTINGS frame within ``timeout`` seconds."""
    try:
        sock.settimeout(max(timeout, 0.1))
        sock.sendall(_H2_PREFACE)
        head = b""
        while len(head) < 9:        # a frame header: length 3, type 1, ...
            part = sock.recv(9 - len(head))
            if not part:
                return False
            head += part
    except OSError:                 # socket.timeout included
        return False
    return head[3] == _H2_SETTINGS


def check_ray_address(address: str | None, timeout: float = RAY_CONNECT_TIMEOUT) -> None:
    """Raise ConnectionError unless a Ray address accepts a TCP connection
    and answers as a gRPC server (HTTP/2), as a Ray head's GCS and Ray Client
    ports do, within ``timeout`` seconds. ``ray.init`` retries an address
    where nothing listens, or another service does (a dashboard's port), for
    minutes without a word; this fails fast. With RAY_USE_TLS set only the
    connection is checked."""
    if address is None:
        return
    hostport = _split_address(address)
    if hostport is None:
        return
    host, port = hostport
    hosts = [host]
    try:
        # Ray connects to 127.0.0.1/localhost through the node's own IP: try it too
        from ray._private.services import resolve_ip_for_localhost
        other = resolve_ip_for_localhost(host)
        if other and other != host:
            hosts.append(other)
    except Exception:           # a private helper: its absence only skips the extra try
        pass
    tls = os.environ.get("RAY_USE_TLS", "0").lower() not in ("", "0", "false")
    deadline = time.monotonic() + timeout
    problem: Exception | None = None
    for i, h in enumerate(hosts):
        left = (deadline - time.monotonic()) / (len(hosts) - i)
        try:
            with socket.create_connection((h, port), timeout=max(left, 0.1)) as sock:
                if tls or _answers_grpc(sock, deadline - time.monotonic()):
                    return
        except OSError as e:
            problem = e
            continue
        raise ConnectionError(
            f"no Ray cluster at {address!r}: something accepted a connection but did "
            f"not answer as Ray's gRPC ports do within {timeout:g} s; give the head's "
            f"GCS port (`ray start --head --port`, 6379 by default) or "
            f"ray://HOST:10001, not the dashboard's or another service's")
    raise ConnectionError(f"no Ray cluster at {address!r}: nothing accepted a connection "
                          f"within {timeout:g} s ({problem}); start one with "
                          f"`ray start --head` or check the address")


def ray_ready(address: str | None, connect_timeout: float = RAY_CONNECT_TIMEOUT):
    """The ray module, ready to connect: imported (``import_ray``) and, unless
    Ray is already initialised, ``address`` answering (``check_ray_address``);
    ImportError, ConnectionError or ValueError before any work otherwise."""
    ray = import_ray()
    if not ray.is_initialized():
        check_ray_address(address, connect_timeout)
    return ray


def ray_session(address: str | None, connect_timeout: float = RAY_CONNECT_TIMEOUT):
    """The ray module, connected: ``ray.init(address=address)`` unless Ray
    is already initialised (then used as it is), after ``ray_ready``."""
    ray = ray_ready(address, connect_timeout)
    if not ray.is_initialized():
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
    return ray


def ray_task_bounds(ray, tasks: int | None, start: int, count: int) -> list[int]:
    """The bounds of the item ranges ``start .. start + count`` split into
    ``tasks`` Ray tasks (default: 4 per CPU of the cluster; never more tasks
    than items, and one for none)."""
    if tasks is None:
        tasks = max(1, 4 * int(ray.cluster_resources().get("CPU", 1)))
    tasks = max(1, min(tasks, count or 1))
    return [start + count * t // tasks for t in range(tasks + 1)]


def session_bounds(bounds: list[int], length: int) -> list[int]:
    """``bounds`` (ascending deal indices, the first and last kept) with the
    inner ones moved down to where a session of ``length`` deals starts,
    none twice: no session is cut between two parts (each part would replay
    its start)."""
    inner = [b - b % length for b in bounds[1:-1]]
    kept = [bounds[0]]
    for b in inner + bounds[-1:]:
        if b > kept[-1]:
            kept.append(b)
    return kept if len(kept) > 1 else bounds[:1] + bounds[-1:]


def ray_results(ray, fn: Callable, arglists: Sequence[tuple],
                on_result: Callable | None = None) -> list:
    """``fn(*args)`` for each of ``arglists``, each a Ray task of one CPU;
    the results in the order of ``arglists``, ``on_result`` called with
    each as it arrives."""
    remote = ray.remote(num_cpus=1)(fn)
    refs = [remote.remote(*args) for args in arglists]
    parts: list = [None] * len(refs)
    pending = {ref: t for t, ref in enumerate(refs)}
    try:
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                t = pending.pop(ref)
                parts[t] = ray.get(ref)
                if on_result is not None:
                    on_result(parts[t])
    except BaseException:
        # Ctrl-C, or a task's exception: the other tasks would go on, holding
        # the cluster's CPUs for nothing
        for ref in pending:
            ray.cancel(ref, force=True)
        raise
    return parts


def _simulate_ray(games, rules, policies, seed, threads, bidding, address, start,
                  tasks, progress, connect_timeout=RAY_CONNECT_TIMEOUT):
    ray = ray_session(address, connect_timeout)
    bounds = session_bounds(ray_task_bounds(ray, tasks, start, games), session_length(rules))
    done = 0

    def finished(part):
        nonlocal done
        done += len(part)
        # (a run of no deal has one empty task: simulate reports its end)
        if progress is not None and len(part):
            progress(done)
    parts = ray_results(ray, _ray_range, [
        (rules.name, rules.description_dict(), policies, seed, bounds[t], bounds[t + 1],
         bidding) for t in range(len(bounds) - 1)], finished)
    return _joined_rows(parts)


def _joined_rows(parts: Sequence[np.ndarray]) -> np.ndarray:
    """The DEAL_DTYPE rows of ``parts``, one part after another, byte for
    byte: np.concatenate copies a structured dtype field by field and leaves
    its padding as the memory held, where the core writes zeros."""
    rows = np.zeros(sum(len(part) for part in parts), dtype=DEAL_DTYPE)
    raw = rows.view(np.uint8)
    offset = 0
    for part in parts:
        data = np.ascontiguousarray(part, dtype=DEAL_DTYPE).view(np.uint8)
        raw[offset:offset + len(data)] = data
        offset += len(data)
    return rows
