"""Exact open-hand endgame solving (RULES.md section 7): ``solve`` and its
result type ``Solution``.

The search runs in C without the GIL (``ddzfast._solve``): a depth-first
AND/OR search (won or lost for the side to move) with a transposition table
and move ordering. See ``solve`` for the details and the memory it may use.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence, Union

from ddzfast._solve import _solve
from ddzfast._core import Hand, Move, Rules

#: The transposition table starts at 2**16 entries (2 MiB) and doubles while more
#: than half full, up to TABLE_MAX_ENTRIES entries of TABLE_ENTRY_BYTES
#: (64 MiB; 96 MiB at the peak while the old and the new table coexist);
#: then it replaces entries whose searches took least work.
TABLE_MAX_ENTRIES = 1 << 21
TABLE_ENTRY_BYTES = 32

#: How puzzle sites write cards, and ddzfast's letters for them.
PUZZLE_NOTATION = {"0": "T", "Y": "X", "Z": "D"}


def from_puzzle_notation(text: str) -> str:
    """Card text in the notation of published puzzles (``0`` for ten, ``Y``
    for the small joker, ``Z`` for the big one) as ddzfast card text:
    ``from_puzzle_notation("ZY0")`` is ``"DXT"``. ``10`` stays a ten; other
    characters are kept, for the card parser to read or refuse. TypeError
    for anything but a str."""
    if not isinstance(text, str):
        raise TypeError(f"puzzle notation is a str of cards, not {type(text).__name__}")
    out = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "1" and text[i + 1:i + 2] == "0":
            out.append("T")
            i += 2
            continue
        out.append(PUZZLE_NOTATION.get(ch.upper(), ch))
        i += 1
    return "".join(out)


@dataclass(frozen=True)
class Solution:
    """The result of ``solve``.

    * ``win``: True when the side of ``to_move`` wins with best play, False
      when it loses, None when ``max_nodes`` or ``seconds`` stopped the search.
    * ``move``: a winning move of ``to_move`` (the first the search proved),
      or None.
    * ``winning_moves``: with ``all_moves=True``, every winning move of
      ``to_move``, each identity once, in legal-move order; else None.
    * ``line``: a principal variation to the end of the deal (passes
      included), legal move by move, ending with a hand of the winning side
      emptying. The winning side plays a winning move at every step (its
      first in search order); the losing side plays the reply whose
      refutation took the most search, a stubborn but not necessarily the
      longest defence. Empty when ``win`` is None; shorter (possibly empty)
      when ``seconds`` ran out while the line was being built.
    * ``nodes``: positions the search visited (the line's included); when
      ``max_nodes`` stopped it, exactly ``max_nodes``.
    * ``seconds``: time of the search, in seconds.
    * ``memory``: bytes the search held at its peak (table, move buffers and
      caches; while the table doubled, the old and the new table both).
    """

    win: Optional[bool]
    move: Optional[Move]
    winning_moves: Optional[tuple[Move, ...]]
    line: tuple[Move, ...]
    nodes: int
    seconds: float
    memory: int


HandLike = Union[Hand, str, int]


def solve(hands: Sequence[HandLike], rules: Union[str, Rules] = "classic", *,
          to_move: int = 0, last: Optional[Move] = None,
          last_seat: Optional[int] = None, landlord: Optional[int] = None,
          all_moves: bool = False, max_nodes: Optional[int] = None,
          seconds: Optional[float] = None) -> Solution:
    """Solve an open-hand endgame exactly: who wins with best play.

    ``hands``: two hands (a two-player puzzle: seats 0 and 1 alternate, a PASS
    hands the lead to the other seat) or three with ``landlord`` (the landlord
    against the two farmers as one side; seats play 0, 1, 2 in turn and a
    trick ends when both other seats have passed after a move, whose player
    then leads). The first hand to empty wins for its side. Hands are card
    text, packed ints or Hands (a list or tuple, or a 1-d array of packed
    hands); together they must fit the rule set's deck, and none may be
    empty.

    ``to_move`` leads, or, with ``last`` (a non-pass Move or MOVE_DTYPE row,
    legal in ``rules``) played by ``last_seat``, must beat it or pass. With
    three hands and ``to_move == (last_seat + 2) % 3`` the seat in between has
    already passed, so a pass ends the trick and ``last_seat`` leads. A hand
    of only W can only pass, also when leading; the next seat then leads.
    Every rule set works, custom ``Rules`` included (a puzzle that bans
    3+2 is a rule set without TRIPLE_PAIR).

    ``all_moves``: find every winning move of ``to_move`` (slower: no cut-off
    at the root). ``max_nodes`` (a positive int) and ``seconds`` (a positive
    number) bound the search; when one stops it, ``win`` is None.
    ``max_nodes`` bounds the proof of who wins: the principal variation then
    read out of it searches on without a node limit, so ``nodes``, which
    counts that search too, may come out above ``max_nodes`` (up to about
    twice). ``seconds`` bounds the whole call, the principal variation
    included: it returns
    within 0.1 s past the limit, most often within a few milliseconds (the
    search reads the clock every 4,096 positions; a doubling of its table,
    at most 64 MiB, cannot be cut short, nor can ordering the moves of one
    position: millions for a hand larger than a deal, such as the whole
    deck in tiandi). Ctrl-C stops a search within 0.1 s
    with KeyboardInterrupt, what it grew past the first sizes freed (see
    Memory below).

    The search: depth-first AND/OR search in C, without the GIL (other
    threads run meanwhile; each thread keeps a table and buffers of its
    own, so calls from several threads are safe), with a transposition
    table keyed on the packed hands and the trick state (seat to move, kind/rank/length of the move to beat,
    who played it; of its cards only what decides what beats it, a tiandi
    bomb's size and purity). Two exact reductions let transposed
    positions share entries: the rank of the move
    to beat is replaced by the highest rank below it that changes what the
    seats may answer, and, while no W is in play, the ranks 3..A are
    relabelled in order with runs of ranks nobody holds shrunk to one.
    A search meets few distinct (hand, move to beat) pairs, so their
    generated move lists are cached and copied rather than generated again.
    Moves are tried best first: a move that empties the hand wins at once;
    then the killer move (the last move that won a node of the same seat
    and hand sizes; when following, before the others are even ordered);
    then, when the
    table already proves that some move wins, that move (enhanced
    transposition cut-off: the key of every move's position is computed
    and probed once, and reused by that position's own search); then moves
    no opponent can beat (with two players the opponent's forced pass is
    skipped), then other moves, PASS, and bombs that can be answered; more
    cards first, then moves that won larger searches elsewhere (history
    heuristic). A node stops at its first winning move; ``nodes`` counts
    the positions searched (those the table settles for their parent are
    not counted, nor is the one a limit stopped the search at).

    Memory: the table grows from 2 MiB while more than half full, up to
    2**21 entries of 32 bytes (64 MiB; 96 MiB at the peak while it doubles),
    then replaces entries whose searches took least work; move buffers
    (8192 moves with their ordering and table keys, 512 KiB, grown when a
    position has more), a cache of what each hand
    can answer (712 KiB) and a cache of generated move lists (352 KiB) come
    on top. ``Solution.memory`` reports the most a search held at once.
    Each thread keeps the first sizes of these (about 3.6 MiB) from one
    search to the next, marked empty rather than zeroed, and frees the rest
    when a search ends: a small search takes microseconds, not the 0.1 ms of
    making them, and gives what it gives on a fresh thread.

    >>> solve(["KK5543", "225543"]).win
    True
    """
    win, move, winning, line, nodes, secs, memory = _solve(
        hands, rules, to_move, last, last_seat, landlord, all_moves, max_nodes,
        seconds)
    return Solution(win, move, winning, line, nodes, secs, memory)
