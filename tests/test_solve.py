"""ddzfast.solve: the exact endgame solver (RULES.md section 7) against a plain
memoized minimax (tests/oracles/solve_reference.py), its principal variations, the
published puzzles, bad input, limits, the ``ddzfast solve`` command, and laizi
endgames of every wild rank against a plain minimax.

DDZFAST_SOLVE_FUZZ=N runs N random endgames per rule set instead of the CI
default (a larger run for releases).
"""
from __future__ import annotations

import os
import random
import re
import threading

import numpy as np
import pytest

import ddzfast
from ddzfast import (Hand, IllegalMoveError, InvalidCardsError, Move, MoveKind, Solution,
                     classify, get_rules, legal_moves, solve)
from ddzfast.cli import main as cli_main
from ddzfast.constants import CARD_CHARS, deck_text
from ddzfast._solve import _solve
from ddzfast.solve import TABLE_ENTRY_BYTES, from_puzzle_notation

from helpers import RULE_SETS
from oracles.solve_reference import reference_solve, replay

FUZZ = int(os.environ.get("DDZFAST_SOLVE_FUZZ", "0"))

NO_TRIPLE_PAIR = get_rules("classic").with_options(
    kinds=[k.name for k in get_rules("classic").kinds
           if k not in (MoveKind.PASS, MoveKind.TRIPLE_PAIR)])
# A custom wildcard rule set: biegang without 3+2, 4+2 and planes with pairs.
BIEGANG_BANNED = get_rules("biegang").with_options(
    kinds=[k.name for k in get_rules("biegang").kinds
           if k not in (MoveKind.PASS, MoveKind.TRIPLE_PAIR, MoveKind.FOUR_SINGLES,
                        MoveKind.FOUR_PAIRS, MoveKind.PLANE_PAIRS)])

# every rule set of helpers.RULE_SETS, and two custom ones
SOLVE_RULE_SETS = {**{name: name for name in RULE_SETS},
                   "classic-no-3+2": NO_TRIPLE_PAIR, "biegang-banned": BIEGANG_BANNED}

# The published two-player puzzles of issue 8 (first player leads), in the
# puzzle notation (0 = ten, Y = small joker, Z = big joker), with the winner.
PUZZLES = [
    ("KK5543", "225543", 0),
    ("ZA54333", "Y222KQ", 0),
    ("2KK0077554", "AA8", 1),
    ("ZKKQJ09876633", "AAKQJ0987", 0),
    ("2AK096554", "YKJ08854", 0),
    ("ZYAAKKQ0099", "2222JJ00", 0),
    ("Y2AK998553", "ZQQJJ0953", 0),
    ("ZAQQJJ0999844", "Y22AA0886633", 0),
]


def winner_seat(sol: Solution, to_move: int, nseats: int, landlord) -> int:
    """A seat of the winning side (for two players: the winner)."""
    if nseats == 2:
        return to_move if sol.win else 1 - to_move
    mover_is_landlord = to_move == landlord
    landlord_wins = sol.win == mover_is_landlord
    return landlord if landlord_wins else (landlord + 1) % 3


def side_of(seat: int, landlord) -> int:
    return seat if landlord is None else (0 if seat == landlord else 1)


def check_line(sol: Solution, hands, rules, to_move, last, last_seat, landlord):
    """The line is legal move by move and ends with the winning side emptying
    a hand; with a win it starts with the solution's move."""
    ended = replay(hands, sol.line, rules, to_move, last, last_seat, landlord)
    want = side_of(winner_seat(sol, to_move, len(hands), landlord), landlord)
    assert ended == want
    if sol.win:
        assert sol.line[0] == sol.move


# ---- random endgames against plain minimax ------------------------------------

def random_position(rng: random.Random, rules):
    """A random endgame: two players up to 7 cards each or three up to 4, a
    move to beat in about 40% of them, W often (and sometimes alone)."""
    r = get_rules(rules)
    deck = list(deck_text(r.wildcard))
    rng.shuffle(deck)
    nseats = rng.choice((2, 3))
    limit = 7 if nseats == 2 else 4
    if r.wildcard and rng.random() < 0.5:
        deck.remove("W")
        deck.insert(rng.randrange(nseats * 3), "W")   # W in play more often
    hands = []
    for _ in range(nseats):
        k = rng.randint(1, limit)
        hands.append("".join(deck[:k]))
        del deck[:k]
    if r.wildcard and rng.random() < 0.08:
        # a lone W: that seat can only ever pass
        hands = [h.replace("W", "") or "3" for h in hands]
        deck = [c for c in deck if c != "W"]
        hands[rng.randrange(nseats)] = "W"
        if any(not h for h in hands):
            return random_position(rng, rules)
        # the hands must still fit the deck
        try:
            total = ddzfast.Hand("")
            for h in hands:
                total = total + ddzfast.Hand(h)
        except ValueError:
            return random_position(rng, rules)
    landlord = rng.randrange(3) if nseats == 3 else None
    to_move = rng.randrange(nseats)
    last = last_seat = None
    if rng.random() < 0.4:
        for _ in range(10):
            k = rng.randint(1, 6)
            readings = list(classify("".join(deck[:k]), r))
            if readings:
                last = rng.choice(readings)
                last_seat = rng.choice([s for s in range(nseats) if s != to_move])
                break
            rng.shuffle(deck)
    return hands, to_move, last, last_seat, landlord


@pytest.mark.parametrize("name", sorted(SOLVE_RULE_SETS))
def test_against_plain_minimax(name):
    """win, move and winning_moves agree with plain minimax on random small
    endgames (hundreds per rule set in CI, DDZFAST_SOLVE_FUZZ for more); every
    line is legal and ends the deal for the winning side."""
    rules = SOLVE_RULE_SETS[name]
    rng = random.Random(f"solve-{name}")
    count = FUZZ or 400
    seen = {"last": 0, "W": 0, "lone W": 0, "three": 0, "loss": 0}
    for _ in range(count):
        hands, to_move, last, last_seat, landlord = random_position(rng, rules)
        args = dict(to_move=to_move, last=last, last_seat=last_seat, landlord=landlord)
        sol = solve(hands, rules, all_moves=True, **args)
        win, winners, ref = reference_solve(hands, rules, **args)
        where = f"{hands} {rules} {args}"
        assert sol.win == win, where
        assert {m.identity for m in sol.winning_moves} == winners, where
        assert len(set(m.identity for m in sol.winning_moves)) == len(sol.winning_moves)
        if win:
            assert sol.move.identity in winners, where
        else:
            assert sol.move is None, where
        check_line(sol, hands, rules, to_move, last, last_seat, landlord)
        # without all_moves: the same value, a winning move, the same kind of line
        fast = solve(hands, rules, **args)
        assert fast.win == win and fast.winning_moves is None, where
        if win:
            assert fast.move.identity in winners, where
        check_line(fast, hands, rules, to_move, last, last_seat, landlord)
        seen["last"] += last is not None
        seen["W"] += any("W" in h for h in hands)
        seen["lone W"] += "W" in hands
        seen["three"] += len(hands) == 3
        seen["loss"] += not win
    # the sample really holds each kind of position
    assert seen["last"] > count // 5 and seen["three"] > count // 4
    assert seen["loss"] > count // 10
    if get_rules(rules).wildcard:
        assert seen["W"] > count // 5 and seen["lone W"] > 0


SOLVE_IN_A_CHILD = """
import sys
sys.path.insert(0, sys.argv[1])
import ddzfast
from oracles.solve_reference import replay
for hands, rules, landlord in [
        (["3X", "77776A9AKJ9T54Q4QJ8K"], "laizi:7", None),
        (["34", "7777JJJJ54A485T96KQT"], "tiandi:7J", None),
        (["3X", "77776A9AKJ9T54Q4QJ8K", "45"], "laizi:7", 1)]:
    sol = ddzfast.solve(hands, rules, landlord=landlord)
    won = replay(hands, sol.line, rules, landlord=landlord)
    mover_side = 0 if landlord in (None, 0) else 1      # seat 0 moves first
    print(sol.win, won == mover_side)
"""


def test_hands_with_thousands_of_leads_are_solved(run_python):
    """Wild hands of 20 cards have 8,000 to 42,000 leads: the opponents'
    answers grew (moved) the move buffers while the move ordering still held
    pointers into the old ones, and solve crashed (found by an audit). Each
    solve now ends, its line legal to the end; run in a child, where a crash
    fails the test instead of pytest."""
    result = run_python(os.path.dirname(__file__), code=SOLVE_IN_A_CHILD, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    lines = result.stdout.splitlines()
    assert len(lines) == 3
    for line in lines:
        # the solver's verdict for the side to move is what its own line,
        # played out, gives that side
        win, mover_won = line.split()
        assert win == mover_won, line


def test_lone_w_passes_and_the_next_seat_leads():
    # two players: a lone W never empties, so it loses whatever it holds
    sol = solve(["W", "3"], "biegang", all_moves=True)
    assert sol.win is False and sol.winning_moves == ()
    assert [m.kind for m in sol.line] == [MoveKind.PASS, MoveKind.SINGLE]
    # three players: the farmer with a lone W passes; its partner can still win
    sol = solve(["W", "33", "4"], "super", landlord=2, all_moves=True)
    assert sol.win is True and sol.move.kind == MoveKind.PASS
    assert [m.text for m in sol.line] == ["PASS", "PAIR/3/1/33"]
    check_line(sol, ["W", "33", "4"], "super", 0, None, None, 2)
    # ... and with the landlord next, the landlord leads and wins
    assert solve(["W", "33", "4"], "super", landlord=1).win is False


def test_three_players_second_pass_ends_the_trick():
    # seat 1 is (last_seat + 2) % 3: seat 0 already passed, so a pass by
    # seat 1 hands the lead back to seat 2, who then plays out and wins
    last = list(classify("K"))[0]
    sol = solve(["3", "4", "55"], to_move=1, last=last, last_seat=2, landlord=2)
    assert sol.win is False   # the farmer at seat 1 cannot beat K: the landlord leads 55
    sol = solve(["3", "4", "55"], to_move=0, last=last, last_seat=2, landlord=2)
    assert sol.win is False


def test_key_relabelling_with_and_without_pext():
    """The table keys' rank relabelling by the CPU's PEXT (where it is fast)
    and by the portable loop are the same keys: the same positions are
    searched in the same order, so the node counts agree exactly (a wrong
    key in either changes the table's hits and with them the count)."""
    from ddzfast import _solve
    positions = [
        (["Y2AK998553", "ZQQJJ0953"], "classic", None),           # puzzle 7
        (["2AK096554", "YKJ08854"], "classic", None),             # puzzle 5
        (["345678999TTTJ", "3456QQQQKKKA2"], "classic", None),    # chains, a bomb
        (["AQ9766", "KJ8753", "2T9854"], "classic", 1),           # three players
        (["355689TTTJJKW", "3357889TQQKKX"], "biegang", None),    # W: kept as is
    ]
    default = _solve._solve_pext()
    try:
        for hands, rules, landlord in positions:
            hands = [from_puzzle_notation(h) for h in hands]
            _solve._solve_pext(False)
            plain = solve(hands, rules, landlord=landlord, all_moves=True)
            _solve._solve_pext(True)
            fast = solve(hands, rules, landlord=landlord, all_moves=True)
            assert (plain.win, plain.winning_moves, plain.line, plain.nodes) == \
                (fast.win, fast.winning_moves, fast.line, fast.nodes), hands
    finally:
        _solve._solve_pext(default)


# ---- published puzzles -------------------------------------------------------------

@pytest.mark.parametrize("first, second, winner", PUZZLES)
def test_published_puzzles(first, second, winner):
    hands = [from_puzzle_notation(first), from_puzzle_notation(second)]
    sol = solve(hands)
    assert sol.win == (winner == 0)
    check_line(sol, hands, "classic", 0, None, None, None)


def test_last_puzzle_without_triple_pair_is_a_win_for_the_second_player():
    hands = [from_puzzle_notation("ZAQQJJ0999844"), from_puzzle_notation("Y22AA0886633")]
    sol = solve(hands, NO_TRIPLE_PAIR)
    assert sol.win is False and sol.move is None
    check_line(sol, hands, NO_TRIPLE_PAIR, 0, None, None, None)
    assert all(m.kind != MoveKind.TRIPLE_PAIR for m in sol.line)


def test_puzzle_notation():
    assert from_puzzle_notation("ZY0") == "DXT"
    assert from_puzzle_notation("z10y") == "DTX"
    assert from_puzzle_notation("KK55") == "KK55"


# ---- results ---------------------------------------------------------------------------

def test_solution_fields():
    sol = solve(["KK5543", "225543"])
    assert isinstance(sol, Solution)
    assert sol.win is True and isinstance(sol.move, Move)
    assert sol.winning_moves is None
    assert sol.nodes > 0 and sol.seconds >= 0 and sol.memory > 0
    with pytest.raises(AttributeError):
        sol.win = False          # frozen


def test_all_moves_lists_each_winning_move_once():
    sol = solve(["33W", "4"], "biegang", all_moves=True)
    ids = [m.identity for m in sol.winning_moves]
    assert len(ids) == len(set(ids))
    assert sol.move in sol.winning_moves
    legal = legal_moves("33W", None, "biegang")
    assert all(m in legal for m in sol.winning_moves)


def test_move_to_beat_as_array_row():
    row = legal_moves("K", None).array[0]
    a = solve(["A", "2"], to_move=0, last=row, last_seat=1)
    b = solve(["A", "2"], to_move=0, last=list(classify("K"))[0], last_seat=1)
    assert a.win == b.win is True


def test_limits_stop_the_search():
    hands = [from_puzzle_notation("ZAQQJJ0999844"), from_puzzle_notation("Y22AA0886633")]
    sol = solve(hands, max_nodes=1000)
    assert sol.win is None and sol.move is None and sol.line == ()
    assert sol.nodes == 1000
    sol = solve(hands, seconds=1e-4)
    assert sol.win is None
    # a limit that is large enough changes nothing
    assert solve(["KK5543", "225543"], max_nodes=10**9, seconds=60).win is True


def test_a_stopped_search_counts_the_positions_it_searched():
    """Regression (audit): the node that found the limit spent was counted
    before it gave up, so a search stopped by max_nodes reported max_nodes
    + 1 positions, one more than it searched."""
    hands = [from_puzzle_notation("ZAQQJJ0999844"), from_puzzle_notation("Y22AA0886633")]
    for limit in (1, 2, 3, 4096, 4097, 50_000):
        sol = solve(hands, max_nodes=limit)
        assert sol.win is None and sol.nodes == limit, limit
    assert solve(hands, max_nodes=10**9).nodes == solve(hands).nodes


def test_memory_is_the_peak():
    """Regression (audit): Solution.memory, documented as the peak, was what
    the search held at its end, leaving out the old table held while the
    table doubles. ``table_bits`` (private) caps the table's growth."""
    hands = [from_puzzle_notation("ZAQQJJ0999844"), from_puzzle_notation("Y22AA0886633")]

    def held(bits):
        return _solve(hands, "classic", 0, None, None, None, False, None, None,
                      table_bits=bits)[6]

    fixed = held(16)            # the first table, never doubled: its end is its peak
    grown = TABLE_ENTRY_BYTES << 17
    # the first table and the one it doubled into, held at once
    assert grown <= held(17) - fixed <= grown + 128
    assert solve(hands).memory >= held(17) + grown
    assert solve(["KK5543", "225543"]).memory == fixed


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="reads Linux's /proc")
def test_tables_give_their_address_space_back():
    """Regression (audit): a table of 2 MiB or more is mapped with a huge page
    to spare and trimmed, at a length that was not whole pages, so the trim
    and the final unmap failed and each search kept about 2 MiB of address
    space mapped (a process under an address-space limit ran out)."""
    def mapped():
        return int(open("/proc/self/statm").read().split()[0]) * os.sysconf("SC_PAGESIZE")

    hands = ["KK5543", "225543"]
    solve(hands)
    before = mapped()
    for _ in range(200):
        solve(hands)
    # 200 tables of 2 MiB each: what the leak kept
    assert mapped() - before < 64 << 20


def test_threads_give_the_same_results():
    # the search runs without the GIL; each thread keeps a table and buffers
    # of its own
    hands = [from_puzzle_notation("Y2AK998553"), from_puzzle_notation("ZQQJJ0953")]
    want = solve(hands)
    got = []
    threads = [threading.Thread(target=lambda: got.append(solve(hands)))
               for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [(s.win, s.move, s.line) for s in got] == [(want.win, want.move, want.line)] * 4


def _in_a_new_thread(call):
    """call() on a thread of its own, whose solver scratch is fresh (what it
    raises is raised here)."""
    got = []

    def run():
        try:
            got.append((True, call()))
        except BaseException as e:     # noqa: BLE001 (raised again below)
            got.append((False, e))

    t = threading.Thread(target=run)
    t.start()
    t.join()
    ok, value = got[0]
    if not ok:
        raise value
    return value


def _outcome(sol):
    return (sol.win, sol.move, sol.winning_moves, sol.line, sol.nodes, sol.memory)


# A position whose winner TRIPLE_PAIR decides (seat 0 loses in classic, wins
# without 3+2), searched without the table doubling: a table or cache entry
# of the one rule set read in a search of the other gives a wrong answer.
WINNER_BY_RULES = ["467JTTTX", "2255577"]


def test_results_do_not_depend_on_earlier_searches():
    """Each thread keeps the solver's table and caches from one search to the
    next, emptied by a new epoch each search: a search after others (another
    rule set on the same hands, a table that doubled, a search stopped by
    its node limit, three players) gives what it gives on a fresh thread,
    to the positions searched."""
    cases = [(WINNER_BY_RULES, "classic", {}), (WINNER_BY_RULES, NO_TRIPLE_PAIR, {}),
             ([from_puzzle_notation("Y2AK998553"), from_puzzle_notation("ZQQJJ0953")],
              "classic", {"all_moves": True}),
             (["KK5543", "225543"], "tiandi:7J", {}),
             (["3456789TJQ", "KKKA2", "3399"], "laizi:9", {"landlord": 1})]
    fresh = [_in_a_new_thread(lambda h=h, r=r, kw=kw: _outcome(solve(h, r, **kw)))
             for h, r, kw in cases]
    assert fresh[0][0] is False and fresh[1][0] is True
    puzzle8 = [from_puzzle_notation("ZAQQJJ0999844"), from_puzzle_notation("Y22AA0886633")]
    for _ in range(2):
        for (h, r, kw), want in zip(cases, fresh):
            assert _outcome(solve(h, r, **kw)) == want, (h, r)
            solve(puzzle8, max_nodes=5000)         # stopped by its limit
        solve(puzzle8)                              # its table doubles


def test_the_epochs_wrap_round():
    """The table and answer cache are emptied by a 16-bit epoch, the
    move-list cache by a 32-bit one: when one wraps round, what older
    searches left is zeroed, or a search of the epoch come round again would
    read it as its own (here: the other rule set's values of the same
    positions)."""
    from ddzfast._solve import _solve_scratch_epochs

    def run():
        first = _outcome(solve(WINNER_BY_RULES, "classic"))
        # the next search's epochs come round to those of the search above:
        # both, then the table's alone, then the move lists' alone
        _solve_scratch_epochs(0xFFFF, 0xFFFFFFFF)
        both = _outcome(solve(WINNER_BY_RULES, NO_TRIPLE_PAIR))
        _solve_scratch_epochs(0xFFFF, 0x80000000)
        table = _outcome(solve(WINNER_BY_RULES, "classic"))
        _solve_scratch_epochs(0x8000, 0xFFFFFFFF)
        lists = _outcome(solve(WINNER_BY_RULES, NO_TRIPLE_PAIR))
        with pytest.raises(ValueError, match="epoch"):
            _solve_scratch_epochs(1, 0xFFFFFFFF)      # not forward
        with pytest.raises(ValueError, match="gen_epoch"):
            _solve_scratch_epochs(0x9000, 1)
        return first, both, table, lists

    first, both, table, lists = _in_a_new_thread(run)
    assert first == table
    assert both == lists == _in_a_new_thread(
        lambda: _outcome(solve(WINNER_BY_RULES, NO_TRIPLE_PAIR)))
    assert (first[0], both[0]) == (False, True)


SOLVE_FROM_A_SIGNAL_HANDLER = """
import signal
import ddzfast
from ddzfast.solve import from_puzzle_notation
no32 = ddzfast.get_rules("classic").without_kinds("TRIPLE_PAIR")
inner = []
def handler(signum, frame):
    inner.append(ddzfast.solve(["467JTTTX", "2255577"], no32))
signal.signal(signal.SIGALRM, handler)
hands = [from_puzzle_notation("ZAQQJJ0999844"), from_puzzle_notation("Y22AA0886633")]
want = ddzfast.solve(hands, no32)
signal.setitimer(signal.ITIMER_REAL, 0.002)
got = ddzfast.solve(hands, no32)
signal.setitimer(signal.ITIMER_REAL, 0)
print(len(inner), inner[0].win if inner else None,
      (got.win, got.line, got.nodes) == (want.win, want.line, want.nodes))
"""


def test_a_search_from_a_signal_handler_takes_scratch_of_its_own(run_python):
    """A search polls for signals, so a Python signal handler may run a
    search of its own while the thread's scratch is in use: that search
    takes a fresh one, and the search it interrupted goes on as if it had
    not run. In a child: a search sharing its buffers could crash."""
    result = run_python(code=SOLVE_FROM_A_SIGNAL_HANDLER, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.split() == ["1", "True", "True"]


# ---- bad input -----------------------------------------------------------------------

K = list(classify("K"))[0]


@pytest.mark.parametrize("kwargs, error, text", [
    (dict(hands=["33"]), ValueError, "two hands"),
    (dict(hands=["3", "4", "5", "6"]), ValueError, "two hands"),
    (dict(hands="3344"), TypeError, "list or tuple of two or three"),
    (dict(hands=["33", ""]), ValueError, "empty"),
    (dict(hands=["3333", "3"]), InvalidCardsError, "more '3'"),
    (dict(hands=["XD", "X"]), InvalidCardsError, "more 'X'"),
    (dict(hands=["3W", "4"]), InvalidCardsError, "wildcard"),
    (dict(hands=["3?", "4"]), InvalidCardsError, "unknown card"),
    (dict(hands=["3", "4", "5"]), ValueError, "landlord"),
    (dict(hands=["3", "4"], landlord=0), ValueError, "landlord"),
    (dict(hands=["3", "4", "5"], landlord=3), ValueError, "landlord"),
    (dict(hands=["3", "4", "5"], landlord=True), TypeError, "landlord"),
    (dict(hands=["3", "4"], to_move=2), ValueError, "to_move"),
    (dict(hands=["3", "4"], to_move=-1), ValueError, "to_move"),
    (dict(hands=["3", "4"], to_move=False), TypeError, "to_move"),
    (dict(hands=["3", "4"], to_move=1.0), TypeError, "to_move"),
    (dict(hands=["3", "4"], last=K), ValueError, "last_seat"),
    (dict(hands=["3", "4"], last_seat=1), ValueError, "last_seat"),
    (dict(hands=["3", "4"], last=K, last_seat=0), ValueError, "its own move"),
    (dict(hands=["3", "4"], last=K, last_seat=2), ValueError, "last_seat"),
    (dict(hands=["3", "4"], last=K, last_seat=True), TypeError, "last_seat"),
    (dict(hands=["3", "4"], last="K", last_seat=1), TypeError, "Move"),
    (dict(hands=["3", "4"], last=Move(MoveKind.PASS, 0, 0, 0), last_seat=1),
     IllegalMoveError, "non-pass"),
    (dict(hands=["KKK", "4"], last=Move("PAIR", 10, 1, "KK"), last_seat=1),
     InvalidCardsError, "could not have played"),
    (dict(hands=["3", "4"], last=Move("SUPER_BOMB", 0, 1, "3333W"), last_seat=1),
     IllegalMoveError, "not a legal move"),
    (dict(hands=["3", "4"], max_nodes=0), ValueError, "max_nodes"),
    (dict(hands=["3", "4"], max_nodes=1.5), TypeError, "max_nodes"),
    (dict(hands=["3", "4"], max_nodes=True), TypeError, "max_nodes"),
    (dict(hands=["3", "4"], seconds=0), ValueError, "seconds"),
    (dict(hands=["3", "4"], seconds=float("nan")), ValueError, "seconds"),
    (dict(hands=["3", "4"], seconds=float("inf")), ValueError, "seconds"),
    (dict(hands=["3", "4"], seconds="1"), TypeError, "seconds"),
    # (an int past the floats raised OverflowError)
    (dict(hands=["3", "4"], seconds=10 ** 400), ValueError, "seconds is out of range"),
    (dict(hands=["3", "4"], rules="nope"), ValueError, "unknown rule set"),
])
def test_bad_input(kwargs, error, text):
    hands = kwargs.pop("hands")
    with pytest.raises(error, match=text):
        solve(hands, **kwargs)


def test_large_limits_and_numpy_ints_are_accepted():
    assert solve(["3", "4"], to_move=np.int64(1), max_nodes=2**80).win is True


# ---- the command line ---------------------------------------------------------------

def test_cli_solve_two_players(capsys):
    assert cli_main(["solve", "KK5543", "225543", "--all"]) == 0
    out = capsys.readouterr().out
    assert "seat 0 wins with best play" in out
    assert "winning move: SINGLE" in out and "all winning moves" in out
    assert "principal variation:" in out and "  1. seat 0" in out


def test_cli_solve_puzzle_notation_and_ban(capsys):
    assert cli_main(["solve", "ZAQQJJ0999844", "Y22AA0886633",
                     "--ban", "TRIPLE_PAIR"]) == 0
    out = capsys.readouterr().out
    assert "without TRIPLE_PAIR" in out and "seat 1 wins" in out


@pytest.mark.parametrize("argv, same", [
    (["3Y", "4Z", "--rules", "tiandi", "--wild", "0J"],
     ["3X", "4D", "--rules", "tiandi", "--wild", "TJ"]),
    (["30", "Y4", "--rules", "laizi", "--wild", "10"],
     ["3T", "X4", "--rules", "laizi", "--wild", "T"]),
    (["33", "JJ", "--last", "PAIR/0/1/00", "--last-seat", "1"],
     ["33", "JJ", "--last", "PAIR/T/1/TT", "--last-seat", "1"]),
    (["3", "2", "--last", "ROCKET/Y/1/YZ", "--last-seat", "1"],
     ["3", "2", "--last", "ROCKET/X/1/XD", "--last-seat", "1"]),
    (["3456789TJQ", "KK", "--last", "STRAIGHT/3/10/34567890JQ", "--last-seat", "1"],
     ["3456789TJQ", "KK", "--last", "STRAIGHT/3/10/3456789TJQ", "--last-seat", "1"]),
])
def test_cli_solve_reads_puzzle_notation_in_every_card_argument(capsys, argv, same):
    """Regression (a user's review): --wild and the rank and cards of a
    KIND/r/n/cards --last were read in ddzfast's letters only ('unknown card
    '0''), though the command takes puzzle notation; a length stays a number."""
    assert cli_main(["solve", *argv]) == 0
    out = capsys.readouterr().out
    assert cli_main(["solve", *same]) == 0
    assert _without_wall_time(out) == _without_wall_time(capsys.readouterr().out)


def _without_wall_time(text):
    # the search's wall time is the one part of two runs' reports that may
    # differ
    timed, n = re.subn(r"positions in \d+\.\d+ s", "positions in (time) s", text)
    assert n == 1, text
    return timed


def test_cli_solve_reads_last_as_moves_does(capsys):
    """Regression (a user's review): `--last 4567W=8` (W's reading named,
    as `moves` and `play` take it) was 'unknown card '=''; solve reads
    --last with the parser of moves, after its notation."""
    argv = ["solve", "3456", "89TJ", "--rules", "biegang", "--last-seat", "1", "--last"]
    assert cli_main(argv + ["4567W=8"]) == 0
    assert "to beat STRAIGHT 4567W (W as 8) played by seat 1" in capsys.readouterr().out


@pytest.mark.parametrize("rules, wild, kind, hand", [
    ("biegang", None, "WILD_ROCKET", "XW"), ("biegang", None, "HEAVEN_ROCKET", "XDW"),
    ("biegang", None, "HEAVEN_BOMB", "3333W"), ("super", None, "ROCKET", "XD"),
    ("super", None, "SUPER_BOMB", "3333W"), ("tiandi", "7J", "SOFT_BOMB", "3337"),
    ("tiandi", "7J", "LAIZI_BOMB", "777J")])
def test_cli_solve_bans_every_kind(capsys, rules, wild, kind, hand):
    """Regression (audit of the command line): `solve --ban` refused the
    wildcard kinds and tiandi's bombs ("HEAVEN_BOMB is used but not in
    kinds", "size_tiers: SOFT_BOMB has no bomb tier"): it took a kind out of
    kinds, tiers, ranked and multipliers only. Rules.without_kinds takes it
    out of every field that names it, and the kind then makes no move."""
    from ddzfast.cli import _solve_rules
    argv = ["solve", hand, "44", "--rules", rules, "--ban", kind]
    argv += ["--wild", wild] if wild else []
    assert cli_main(argv) == 0
    assert f"without {kind}, 2 players" in capsys.readouterr().out
    full = _solve_rules(rules, [], wild)
    banned = _solve_rules(rules, [kind], wild)
    assert MoveKind[kind] in full.kinds and MoveKind[kind] not in banned.kinds
    assert any(m.kind == MoveKind[kind] for m in legal_moves(hand, None, full))
    assert not any(m.kind == MoveKind[kind] for m in legal_moves(hand, None, banned))
    assert banned.rules_id == full.without_kinds(MoveKind[kind]).rules_id


def test_cli_solve_three_players_with_last(capsys):
    assert cli_main(["solve", "33", "44", "55", "--landlord", "1", "--last", "7",
                     "--last-seat", "2"]) == 0
    out = capsys.readouterr().out
    assert "the farmers win" in out and "winning move: PASS" in out


def test_cli_solve_limits(capsys):
    assert cli_main(["solve", "ZAQQJJ0999844", "Y22AA0886633", "--max-nodes", "10"]) == 0
    assert "undecided" in capsys.readouterr().out


@pytest.mark.parametrize("argv, text", [
    (["solve", "33"], "two hands"),
    (["solve", "33", "44", "55"], "landlord"),
    (["solve", "3333", "3"], "more '3'"),
    (["solve", "33", "44", "--last", "K"], "--last-seat"),
    (["solve", "33", "44", "--last", "KQ", "--last-seat", "1"], "not a move"),
    (["solve", "33", "44", "--last", "PASS/3/0/", "--last-seat", "1"], ""),
    (["solve", "33", "44", "--last", "4567W", "--last-seat", "1", "--rules", "biegang"],
     "several ways"),
    (["solve", "33", "44", "--to-move", "5"], "--to-move"),
    (["solve", "33", "44", "--max-nodes", "0"], "--max-nodes"),
    (["solve", "33", "44", "--seconds", "nan"], "seconds"),
    (["solve", "33", "44", "--ban", "NOPE"], "unknown move kind"),
    (["solve", "33", "44", "--ban", "SINGLE"], "SINGLE"),
])
def test_cli_solve_bad_input(capsys, argv, text):
    # argparse's own range checks too: one line, returned as status 2
    status = cli_main(argv)
    assert status == 2
    err = capsys.readouterr().err
    assert err.startswith("ddzfast solve: ") and text in err
    assert err.count("\n") == 1 and "Traceback" not in err


# ---- laizi against plain minimax ----------------------------------------------

def test_solver_laizi_against_plain_minimax():
    from functools import lru_cache

    from ddzfast.solve import solve

    def naive(rules):
        @lru_cache(maxsize=None)
        def wins(me, other, last):
            # seat to move holds `me`; last: the move to beat (None: lead)
            lm = None if last is None else Move.parse(last, rules)
            for m in legal_moves(me, lm, rules):
                if m.kind.name == "PASS":
                    if not wins(other, me, None):
                        return True
                    continue
                left = ddzfast.play(me, m)
                if not left or not wins(other, str(left), m.text):
                    return True
            return False
        return wins

    rng = np.random.default_rng(8)
    deck = "".join(c * 4 for c in CARD_CHARS[:13]) + "XD"
    for i in range(60):
        L = CARD_CHARS[i % 13]
        rules = f"laizi:{L}"
        cards = list(rng.choice([c for c in deck if c != L], 7, replace=False))
        cards += [L] * int(rng.integers(1, 4))
        rng.shuffle(cards)
        a, b = "".join(cards[:5]), "".join(cards[5:])
        a, b = str(Hand(a)), str(Hand(b))
        assert solve([a, b], rules).win == naive(rules)(a, b, None), (a, b, L)


def test_hands_as_an_array_of_packed_hands():
    """Regression (a user's review): a 1-d array of packed hands, the form
    the batches take, was refused as "a list of two or three hands"."""
    packed = np.array([int(Hand("KK5543")), int(Hand("225543"))], dtype=np.uint64)
    assert solve(packed).win == solve(["KK5543", "225543"]).win is True
    with pytest.raises(TypeError, match=r"1-d array of packed hands\), not ndarray of shape"):
        solve(packed.reshape(1, 2))


def test_all_moves_is_a_flag():
    """Regression (a user's review): all_moves="no" searched with all_moves
    on; every other argument is checked for its type."""
    with pytest.raises(TypeError, match="all_moves must be True or False"):
        solve(["3", "4"], all_moves="no")
    assert solve(["3", "4"], all_moves=np.bool_(True)).winning_moves


@pytest.mark.parametrize("n", [0, 1, 2, 16, 17, 700, 4096, 4097, 20000])
def test_the_move_ordering_sort_sorts(n):
    """The search's sort of ordering keys, each of its methods (insertion,
    Shell and, past 4,096 keys, heapsort), against NumPy's; the keys are
    unique in a search (each ends with its move's index), and repeats here."""
    from ddzfast._solve import _sorted_desc
    rng = np.random.default_rng(n)
    for keys in (rng.integers(0, 2 ** 63, n, dtype=np.uint64) * 2,
                 rng.integers(0, 5, n).astype(np.uint64), np.arange(n, dtype=np.uint64)):
        assert np.array_equal(_sorted_desc(keys), np.sort(keys)[::-1])


def test_a_hand_larger_than_a_deal_keeps_to_a_node_budget():
    """Regression (a user's review): the whole deck but one card in
    tiandi:7J has millions of leads, which the move ordering sorted by
    Shell sort with gaps up to 701 (time growing as their square): one
    node took 45 s whatever max_nodes said. It is sorted by heapsort now
    (benchmarks/test_bench_solve.py times it)."""
    deck = deck_text(False)
    sol = ddzfast.solve([deck[:-1], deck[-1:]], "tiandi:7J", max_nodes=1)
    assert sol.nodes == 1 and sol.win is None


@pytest.mark.parametrize("text", [b"ZY0", ["Z", "Y"], {"a": 1}, None])
def test_puzzle_notation_is_text(text):
    """Regression (a user's review): bytes gave AttributeError, a dict
    KeyError, and a list of cards came back as other cards."""
    with pytest.raises(TypeError, match="puzzle notation is a str"):
        from_puzzle_notation(text)
    assert from_puzzle_notation("ZY010") == "DXTT"
