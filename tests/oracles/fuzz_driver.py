"""Fuzz every public entry point of ddzfast with hostile arguments.

    python tests/oracles/fuzz_driver.py GROUP SEED CALLS

Makes CALLS random calls on the entry points of GROUP (core, objects, game,
features, numba, simulate, cli, solve, learning, split, vector, envs, arena)
and exits 0 when every call either returned or raised an allowed error:
ValueError or TypeError (IndexError for an index out of range; numba's
compile-time TypingError for the Numba functions; SystemExit with status 2
from the command line's argument parser; ImportError from a call that needs
an optional package MISSING here). Anything else prints
the call and its traceback and exits 1; a crash ends the process with a
signal. tests/test_fuzz_api.py runs each group in its own process, so a
crash fails that test rather than killing pytest; scripts/asan_check.sh runs
the same driver under AddressSanitizer.
"""
from __future__ import annotations

import contextlib
import functools
import importlib
import importlib.util
import io
import itertools
import json
import math
import os
import pickle
import random
import sys
import tempfile
import traceback

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import ddzfast  # noqa: E402
from ddzfast import (DEAL_DTYPE, MOVE_DTYPE, Game, Hand, Move, MoveList, Rules, beats,
                     classify, deal_seed, get_rules, legal_moves, legal_moves_batch,
                     legal_moves_into, play)  # noqa: E402
from helpers import RULE_SETS, cli_rules  # noqa: E402  (tests/helpers.py)

ALLOWED = (ValueError, TypeError)
# platform play (RULES.md 10): rule sets with its options, and valid values
# of each option beside the hostile ones
PLATFORM_RULES = ("classic+happy", "laizi:7+happy", "super+happy")
PLATFORM_VALUES = {
    "bidding": ("rob", "points"), "no_call": ("first", "redeal"), "rob_base": (1, 100, 101),
    "show": (True, False), "doubling": (True, "after_farmer", False), "cap": (None, 1, 64),
    "deal": ("no_shuffle", "shuffle"), "session": (1, 3, 2 ** 31), "swaps": (0, 5, 255, 256),
}
SESSIONS = get_rules("biegang+happy").with_options(deal="no_shuffle", session=3)
DECK = ddzfast.constants.deck_text(True)
#: tiandi pairs beyond RULE_SETS' "tiandi:7J" (whose action table is the only
#: one a fuzzing run builds)
TIANDI = ("tiandi:32", "tiandi:KA")
#: the largest tiandi hands: eight laizi in 20 cards (tens of thousands of
#: leads; a whole deck has millions, too many for a fuzzing loop)
LARGE_HANDS = ("34567777899JJJJQQKKA", "33334567899TJQKA2222", "3333444477778888JJJJ")
#: whole decks, far beyond a deal's 20 cards: with W, without it, and without
#: it and one 3 (in laizi:7 and tiandi:7J each has millions of moves): drawn
#: by Fuzzer.deck, with a low probability, for the entry points that stay
#: fast on them
WHOLE_DECKS = (DECK, DECK.replace("W", ""), DECK.replace("W", "").replace("3", "", 1))
#: the rule sets in which a whole deck is quick everywhere; in laizi:7 and
#: tiandi:7J min_plays and the action mask of one take seconds
#: (Fuzzer.deck_rules draws those a few times a run)
QUICK_DECK_RULES = ("classic", "biegang", "super")
#: dtypes and copy flags asked of __array__ (Hand, MoveList) and np.asarray
ARRAY_DTYPES = (None, np.uint64, np.int64, np.int8, np.float32, np.bool_, object, "U3",
                "M8[s]", MOVE_DTYPE, DEAL_DTYPE, [("x", "u1")], "nonsense")
#: the optional packages some entry points need: with one missing, the
#: ImportError saying what to install is an allowed outcome of those calls
MISSING = {name: importlib.util.find_spec(name) is None
           for name in ("pandas", "rlcard", "torch", "douzero")}
#: a folder without DouZero's models (this one), for the agent "douzero:DIR"
EMPTY_DIR = os.path.dirname(os.path.abspath(__file__))


class Fuzzer:
    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.np_rng = np.random.default_rng(seed)
        self.calls = 0
        # whole decks in laizi:7 or tiandi:7J left to the slow entry points
        self.slow_decks = 2

    # ---- hostile values ----------------------------------------------------------

    def hand_text(self, wild=True) -> str:
        if self.rng.random() < 0.01:
            return self.rng.choice(LARGE_HANDS)
        deck = DECK if wild else DECK[:-1]
        return "".join(self.rng.sample(deck, self.rng.randint(0, 21)))

    def deck(self, p: float):
        """One of WHOLE_DECKS with probability ``p``, else None."""
        return self.rng.choice(WHOLE_DECKS) if self.rng.random() < p else None

    def deck_rules(self, slow=("laizi:7", "tiandi:7J")) -> str:
        """A rule set for a whole deck: one of QUICK_DECK_RULES, or one of
        ``slow`` while slow_decks lasts (up to seconds a call there)."""
        if self.slow_decks and self.rng.random() < 0.3:
            self.slow_decks -= 1
            return self.rng.choice(slow)
        return self.rng.choice(QUICK_DECK_RULES)

    def array_dtype(self):
        return self.rng.choice(ARRAY_DTYPES + (self.nasty(),))

    def hand(self):
        text = self.hand_text(self.rng.random() < 0.5)
        pick = self.rng.randrange(4)
        if pick == 0:
            return text
        if pick == 1:
            return Hand(text)
        if pick == 2:
            return int(Hand(text))
        return self.nasty()

    def move_row(self):
        row = np.zeros(1, MOVE_DTYPE)
        row["cards"] = self.rng.choice([0, int(Hand(self.hand_text())),
                                        self.rng.getrandbits(64)])
        for field in ("kind", "rank", "length", "wild"):
            row[field] = self.rng.choice([0, 1, 2, 5, 13, 15, 18, 19, 33, 200, 255])
        return row[0]

    def move(self):
        pick = self.rng.randrange(5)
        if pick <= 1:
            rules = self.rng.choice(RULE_SETS + TIANDI)
            try:
                moves = legal_moves(self.hand_text(get_rules(rules).wildcard), None, rules)
            except ALLOWED:
                return None
            return moves[self.rng.randrange(len(moves))] if len(moves) else None
        if pick == 2:
            return self.move_row()
        if pick == 3:
            return Move.parse("PASS")
        return self.nasty()

    def nasty(self):
        return self.rng.choice([
            None, True, False, -1, 0, 1, 2, 3, 15, 16, 255, 2 ** 31, 2 ** 40, 2 ** 63,
            2 ** 64, 2 ** 70, -2 ** 70, 1.5, 2.0, math.nan, math.inf, -math.inf, "",
            "33", "3W", "W", "xyz", "#²", "10", "PASS", "²", "３", b"33", [], [1],
            [1, math.inf], ["33"], {}, {"BOMB": 2}, (), object(), np.int64(5),
            np.uint64(2 ** 63), np.float64(2.0), np.bool_(True),
            np.zeros(3, dtype=np.uint64), np.zeros((2, 2)), np.array(["33"]),
            np.zeros(2, MOVE_DTYPE), Hand("33"), Move.parse("PAIR/3/1/33"),
        ])

    def rules(self):
        pick = self.rng.randrange(4)
        if pick <= 1:
            # the rule sets, then names that are not (quite) rule sets
            return self.rng.choice(RULE_SETS + PLATFORM_RULES + TIANDI + (
                "laizi:2", "laizi", "laizi:W", "laizi:77", "classic+sad", "+happy",
                "laizi+happy", "classic+happy+happy", "tiandi", "tiandi:77",
                "tiandi:7", "tiandi:7JQ", "laizi:7J", "tiandi:7J+happy"))
        if pick == 2:
            return self.rules_object()
        return self.nasty()

    def table_rules(self):
        """rules() for the calls that build action tables: a tiandi set
        ready to play only as RULE_SETS' "tiandi:7J" (each other pair, or
        option change, would build a table of its own, hundreds of MB)."""
        while True:
            rules = self.rules()
            try:
                r = get_rules(rules)
            except ALLOWED:
                return rules
            if not (r.wild_count == 2 and r.ready) or \
                    r.description == get_rules("tiandi:7J").description:
                return rules

    def rules_object(self):
        base = get_rules(self.rng.choice(RULE_SETS + TIANDI))
        try:
            return base.with_options(**self.rules_changes())
        except ALLOWED:
            return base

    def rules_changes(self) -> dict:
        fields = ["wildcard", "kinds", "tiers", "ranked", "wild_joker_kind",
                  "wild_joker_stands", "xdw_kind", "four_wild_kind", "kitty",
                  "multipliers", "wild_max_rank", "mult_cap", "service_fee",
                  "deal_cap", "nonsense", "wild_ranks", "wild_count", "size_tiers",
                  "pure_step"] + list(PLATFORM_VALUES)
        kinds = [k.name for k in ddzfast.MoveKind]
        changes = {}
        for field in self.rng.sample(fields, self.rng.randint(0, 3)):
            changes[field] = self.rng.choice([
                self.nasty(), tuple(self.rng.sample(kinds, self.rng.randint(0, 6))),
                {self.rng.choice(kinds): self.rng.choice([1, 2, 255, 256, 2.9, 0])},
                self.rng.randint(-2, 40), self.rng.random(),
                self.rng.choice(PLATFORM_VALUES.get(field, (None,))),
            ])
        return changes

    def seat(self):
        return self.rng.choice([0, 1, 2, None]) if self.rng.random() < 0.7 else self.nasty()

    def out_array(self):
        pick = self.rng.randrange(8)
        if pick <= 2:
            return np.empty(self.rng.choice([0, 1, 16, 4096]), MOVE_DTYPE)
        if pick == 3:
            return np.empty(16, np.uint8)
        if pick == 4:
            return np.empty((16, 0), MOVE_DTYPE)
        if pick == 5:
            return np.empty(64, MOVE_DTYPE)[::-1]
        if pick == 6:
            a = np.empty(64, MOVE_DTYPE)
            a.flags.writeable = False
            return a
        return np.frombuffer(bytes(16 * 64), dtype=MOVE_DTYPE)

    # ---- running calls ------------------------------------------------------------

    def call(self, fn, *args, index_ok=False, extra=(), **kwargs):
        self.calls += 1
        allowed = ALLOWED + ((IndexError,) if index_ok else ()) + tuple(extra)
        try:
            return fn(*args, **kwargs)
        except allowed:
            return None
        except Exception:
            print(f"call {self.calls}: {getattr(fn, '__qualname__', fn)}"
                  f"(*{args!r}, **{kwargs!r})", file=sys.stderr)
            raise


# ---- groups ---------------------------------------------------------------------------

def fuzz_core(f: Fuzzer) -> None:
    r = f.rng
    pick = r.randrange(16)
    if pick == 0:
        f.call(legal_moves, f.hand(), f.move() if r.random() < 0.5 else None, f.rules())
    elif pick == 1:
        f.call(legal_moves_into, f.hand(), f.move() if r.random() < 0.5 else None,
               f.rules(), f.out_array())
    elif pick == 2:
        f.call(classify, f.hand(), f.rules())
    elif pick == 3:
        f.call(beats, f.move(), f.move(), f.rules())
    elif pick == 4:
        f.call(play, f.hand(), f.move() if r.random() < 0.7 else f.hand(),
               f.rules() if r.random() < 0.5 else None)
    elif pick == 5:
        f.call(Hand, f.hand() if r.random() < 0.5 else f.nasty(),
               f.rules() if r.random() < 0.3 else None)
    elif pick == 6:
        f.call(Hand.parse, f.hand_text() if r.random() < 0.5 else f.nasty())
    elif pick == 7:
        f.call(Move, r.choice([f.nasty(), r.randint(0, 20), "PAIR", "BOMB"]),
               r.choice([f.nasty(), r.randint(0, 15)]),
               r.choice([f.nasty(), r.randint(0, 13)]), f.hand(),
               rules=f.rules() if r.random() < 0.3 else None)
    elif pick == 8:
        text = r.choice(["PAIR/3/1/33", "STRAIGHT/4/5/4567W", "BOMB/3/1/333W",
                         "PAIR/3/x/33", "A/B/C/D", "PASS", "PAIR/3/²/33", "//", ""])
        f.call(Move.parse, text if r.random() < 0.7 else f.nasty())
    elif pick == 9:
        moves = f.call(legal_moves, f.hand_text(False))
        if moves is not None:
            f.call(moves.__getitem__, r.choice([f.nasty(), r.randint(-30, 30),
                                                slice(None, None, r.choice([1, -1, 2]))]),
                   index_ok=True)
    elif pick == 10:
        f.call(get_rules, f.rules())
    elif pick == 11:
        f.call(Rules, r.choice(["classic", "custom", f.nasty()]), **f.rules_changes())
    elif pick == 12:
        hands = r.choice([[int(Hand(f.hand_text(False))) for _ in range(r.randint(0, 5))],
                          f.nasty(), np.zeros(3, np.int8) - 1, np.array([1.5]),
                          np.zeros((2, 2), np.uint64)])
        lasts = r.choice([None, None, np.zeros(len(hands) if hasattr(hands, "__len__")
                                               else 1, MOVE_DTYPE), f.nasty()])
        out = r.choice([None, None, np.zeros(r.randint(0, 40), MOVE_DTYPE),
                        np.zeros(r.randint(0, 40), MOVE_DTYPE)[::2], np.zeros(4, np.int64),
                        f.nasty()])
        f.call(legal_moves_batch, hands, lasts, f.rules(),
               r.choice([1, 2, f.nasty()]), out)
    elif pick == 13:
        f.call(deal_seed, f.nasty() if r.random() < 0.5 else r.getrandbits(64),
               f.nasty() if r.random() < 0.5 else r.randint(0, 10 ** 6))
    elif pick == 14:
        hand = f.call(Hand, f.hand_text())
        if hand is not None:
            f.call(hand.__add__, f.hand())
            f.call(hand.__sub__, f.hand())
            f.call(hand.count, f.nasty())
            f.call(hand.__contains__, f.nasty())
            f.call(hand.validate, f.rules())
    else:
        rules = f.rules_object()
        f.call(rules.tier, f.nasty())
        f.call(rules.with_options, **f.rules_changes())


def _round_trip(value):
    """``value`` pickled and loaded again: an equal value, else a defect."""
    back = pickle.loads(pickle.dumps(value))
    if back != value:
        raise AssertionError(f"{value!r} came back from its pickle as {back!r}")
    return back


def _hostile_reduce(f: Fuzzer, value, hostile: list) -> None:
    """What unpickling ``value`` calls, one of its arguments replaced by one
    of ``hostile`` or a nasty value (a pickle from outside). An object
    never made has no pickle (ValueError)."""
    reduced = f.call(value.__reduce__)
    if reduced is None:
        return
    fn, args = reduced[:2]
    args = list(args)
    if args:
        args[f.rng.randrange(len(args))] = f.rng.choice(hostile + [f.nasty()])
    f.call(fn, *args)


def _fuzz_hand(f: Fuzzer) -> None:
    from ddzfast._core import _hand_of_bits
    r = f.rng
    pick = r.randrange(10)
    if pick == 0:
        hand = Hand.__new__(Hand)
    elif pick == 1:
        # any packed counts (how a pickle makes a Hand no deck holds)
        hand = f.call(_hand_of_bits, r.choice([r.getrandbits(64), f.nasty()]))
    else:
        hand = f.call(Hand, f.deck(0.05) or f.hand(),
                      f.rules() if r.random() < 0.2 else None)
    if hand is None:
        return
    f.call(hand.__getitem__, r.choice(["3", "T", "10", "t", "2", "X", "D", "W", "w", "Z",
                                       "33", r.randint(-20, 20), f.nasty()]), index_ok=True)
    cards = "".join(hand)
    "".join(reversed(hand))
    if not len(hand) == len(cards) == sum(hand.counts):
        raise AssertionError(f"{hand!r}: len {len(hand)}, {len(cards)} cards iterated, "
                             f"counts {hand.counts}")
    hand.bits, hand.wildcards, int(hand), hash(hand), str(hand), repr(hand)
    f.call(hand.__array__, f.array_dtype(), copy=r.choice([None, True, False, f.nasty()]))
    f.call(np.asarray, hand, f.array_dtype())
    f.call(_round_trip, hand)
    _hostile_reduce(f, hand, [-1, 2 ** 64 - 1, 2 ** 64, 1 << 63, 0xF, 1.5, "33", None])
    # (a whole deck or a Hand no deck holds, through the calls that stay fast)
    rules = f.rules()
    f.call(classify, hand, rules)
    f.call(Hand, hand, rules)
    f.call(hand.validate, rules)
    f.call(play, hand, r.choice([f.move(), f.hand()]), r.choice([None, rules]))
    f.call(hand.__add__, f.hand())
    f.call(hand.__sub__, f.hand())
    f.call(hand.__contains__, f.hand())
    # (into a small buffer: the count alone comes back, made without
    # listing the moves, whole decks included)
    f.call(legal_moves_into, hand, None, r.choice(RULE_SETS + (rules,)),
           np.empty(r.choice([0, 16]), MOVE_DTYPE))


def _fuzz_move(f: Fuzzer) -> None:
    r = f.rng
    pick = r.randrange(6)
    if pick == 0:
        move = Move.__new__(Move)
    elif pick == 1:
        move = f.call(Move, r.choice([f.nasty(), r.randint(0, 20), "PAIR", "SOFT_BOMB"]),
                      r.choice([f.nasty(), r.randint(0, 15)]),
                      r.choice([f.nasty(), r.randint(0, 13)]), f.hand(),
                      rules=f.rules() if r.random() < 0.5 else None)
    else:
        move = f.move()
    if not isinstance(move, Move):
        return
    move.identity, move.substitutes, move.wild_text, move.array, move.text
    move.kind, move.rank, move.length, move.wild, move.cards, str(move), repr(move)
    hash(move)
    subs = move.substitutes
    len(subs), list(subs), subs.counts
    f.call(Move.parse, move.text, r.choice([None, None, f.rules()]))
    f.call(_round_trip, move)
    _hostile_reduce(f, move, [-1, 256, 2 ** 64, 2 ** 64 - 1, "PAIR", None, f.rules(),
                              Rules.__new__(Rules)])


def _fuzz_move_list(f: Fuzzer) -> None:
    from ddzfast._core import _move_list_of
    r = f.rng
    pick = r.randrange(8)
    if pick == 0:
        moves = MoveList.__new__(MoveList)
    elif pick == 1:
        moves = f.call(classify, f.deck(0.1) or f.hand_text(), f.rules())
    else:
        rules = r.choice(RULE_SETS + TIANDI)
        moves = f.call(legal_moves, f.hand_text(get_rules(rules).wildcard),
                       f.move() if r.random() < 0.3 else None, rules)
    if moves is None:
        return
    rows = moves.array
    f.call(getattr, moves, "rules")     # (ValueError for a MoveList never made)
    len(moves), repr(moves)
    f.call(moves.__array__, f.array_dtype(), copy=r.choice([None, True, False, f.nasty()]))
    f.call(np.asarray, moves, f.array_dtype())
    f.call(moves.__contains__, r.choice([f.move(), f.move_row(), f.nasty(), rows[:1],
                                         rows[:2], rows.reshape(-1, 1)[:1], rows[::-1][:1]]))
    for i in r.sample(range(len(moves)), min(3, len(moves))):
        if moves[i] not in moves or rows[i] not in moves:
            raise AssertionError(f"move {i} of {moves!r} is not in it")
    f.call(_round_trip, moves)
    # a pickle's rows from outside: mutated fields, other dtypes and shapes
    mutated = np.array(rows)
    if len(mutated):
        mutated[r.randrange(len(mutated))] = f.move_row()
    readonly = np.array(rows)
    readonly.flags.writeable = False
    _hostile_reduce(f, moves, [f.rules(), mutated, readonly, rows[::-1], rows.reshape(-1, 1),
                               rows.astype([(n, "<u8") for n in MOVE_DTYPE.names]),
                               np.frombuffer(r.randbytes(16 * r.randint(0, 4)), MOVE_DTYPE),
                               list(rows)])
    f.call(_move_list_of, f.rules(), rows)


def _fuzz_rules(f: Fuzzer) -> None:
    r = f.rng
    pick = r.randrange(8)
    if pick == 0:
        rules = Rules.__new__(Rules)
    elif pick <= 3:
        rules = f.call(get_rules, f.rules())
    else:
        rules = f.rules_object()
    if rules is None:
        return
    kinds = [r.choice([k.name, k.name.lower(), int(k), k, "NOPE", 99, -1, f.nasty()])
             for k in r.sample(list(ddzfast.MoveKind), r.randint(0, 4))]
    made = rules.description is not None
    fewer = f.call(rules.without_kinds, *kinds)
    rules.fingerprint, rules.address, hash(rules)
    d = f.call(rules.description_dict)
    f.call(_round_trip, rules)
    if made:
        # (a Rules never made has no pickle: ValueError, as _round_trip saw)
        _hostile_reduce(f, rules, ["classic", "", "laizi:7", {}, {"kinds": ["SINGLE"]},
                                   {"nonsense": 1}, {**(d or {}), **f.rules_changes()}])
    else:
        # (a Rules never made: ValueError from what reads its description)
        for attribute in ("platform", "ranked_name"):
            f.call(getattr, rules, attribute)
    for each in (rules, fewer) if made else ():
        if each is None:
            continue
        each.platform, each.ranked_name
        back = eval(repr(each), {"Rules": Rules})
        if back != each:
            raise AssertionError(f"repr {each!r} makes another rule set")
        if Rules(each.name, **each.description_dict()) != each:
            raise AssertionError(f"{each!r}: Rules(name, **description_dict()) differs")


def fuzz_objects(f: Fuzzer) -> None:
    """Hand, Move, MoveList and Rules as values: indexing, iteration,
    NumPy conversion, fields, pickles (round trips, and hostile arguments
    to what a pickle calls), repr evaluating back; objects never made
    (__new__ alone), whole decks and Hands no deck holds."""
    (_fuzz_hand, _fuzz_move, _fuzz_move_list, _fuzz_rules)[f.rng.randrange(4)](f)


def fuzz_game(f: Fuzzer) -> None:
    r = f.rng
    pick = r.randrange(5)
    if pick == 4:
        # a dealt deal's cards (or hostile ones) bid again from its first decision
        dealt = Game(r.choice(RULE_SETS + PLATFORM_RULES + ("tiandi", "tiandi+happy")),
                     r.getrandbits(64))
        parts = [dealt.hands, dealt.kitty, dealt.rules]
        if r.random() < 0.5:
            parts[r.randrange(3)] = r.choice([f.nasty(), [f.hand_text() for _ in range(3)],
                                               f.hand_text(), f.rules()])
        if r.random() < 0.5 and dealt.rules.wild_count == 2 and len(dealt.wild_ranks) == 1:
            # a tiandi deal before its kitty: its ground rank given
            ground = r.choice([r.randrange(13), r.choice("3456789TJQKA2"), r.randrange(-2, 20),
                               f.nasty()])
        else:
            ground = r.choice([None, r.randrange(13), f.nasty()])
        game = f.call(Game.from_deal, *parts, r.choice([0, 1, 2, f.nasty()]),
                      r.choice([None, r.getrandbits(64), f.nasty()]),
                      r.choice([None, r.getrandbits(64), f.nasty()]), ground)
    elif pick == 0:
        game = f.call(Game, f.rules(), r.choice([r.getrandbits(64), None, f.nasty()]),
                      r.choice([True, False, f.nasty()]), f.seat())
    elif pick == 1:
        hands = [f.hand_text(r.random() < 0.5) for _ in range(r.choice([2, 3, 3, 4]))]
        game = f.call(Game.from_position, hands if r.random() < 0.8 else f.nasty(),
                      f.rules(), f.seat(), r.choice([1, 2, 3, f.nasty()]),
                      r.choice(["", f.hand_text()]))
    elif pick == 2:
        game = Game.__new__(Game)
    else:
        game = Game(r.choice(RULE_SETS + PLATFORM_RULES + TIANDI + ("tiandi", SESSIONS,
                                                                    "tiandi+happy")),
                    r.getrandbits(64))
    if game is None:
        return
    for _ in range(r.randint(1, 40)):
        action = r.randrange(18)
        if action == 0:
            f.call(game.bid, r.choice([0, 1, 2, 3, f.nasty()]), seat=f.seat())
        elif action == 1:
            f.call(game.play, f.move(), seat=f.seat())
        elif action == 2:
            f.call(game.observation, f.seat())
        elif action == 3:
            f.call(game.policy_action, r.choice(["greedy", "random", f.nasty()]))
        elif action == 4:
            moves = f.call(game.legal_moves)
            if moves is not None and len(moves):
                f.call(game.play, moves[r.randrange(len(moves))])
        elif action == 5:
            bids = game.legal_bids()
            if bids:
                f.call(game.bid, r.choice(bids))
        elif action == 6:
            f.call(game.policy_bid, r.choice(["greedy", "random", f.nasty()]))
        elif action == 7:
            f.call(game.policy_move, r.choice(["greedy", "random", f.nasty()]))
        elif action == 8:
            f.call(game.undo)
        elif action == 9:
            game = r.choice([game.copy(), pickle.loads(pickle.dumps(game)), game])
            hash(game.position_key())
        elif action == 10:
            obs = f.call(game.observation, f.seat())
            if obs is not None:
                if r.random() < 0.3:
                    obs = obs._replace(position_move=r.choice(
                        [None, (f.seat(), f.move()), (f.nasty(), f.move()), f.nasty()]))
                f.call(obs.sample, r.choice([None, 1, f.nasty()]),
                       r.choice([None, None, f.hand_text(), f.nasty()]))
        elif action == 11:
            f.call(game.rollout, r.choice(["greedy", "random", ("random",) * 3,
                                           f.nasty()]),
                   r.choice([None, 1, f.nasty()]))
        elif action == 12:
            f.call(Game.from_position, [f.hand_text(False) for _ in range(3)],
                   "classic", f.seat(), 1, "", f.seat(), f.move(), f.seat())
        elif action == 13:
            f.call(game.choose, r.choice([0, 1, 2, 3, 4, 5, -1, f.nasty()]), seat=f.seat())
        elif action == 14:
            choices = game.legal_choices()
            if choices:
                f.call(game.choose, r.choice(choices))
        elif action == 15:
            f.call(game.policy_choice, r.choice(["greedy", "random", "expert", f.nasty()]))
        elif action == 16:
            nxt = f.call(game.next_deal, r.choice([None, 1, r.getrandbits(64), f.nasty()]))
            if nxt is not None:
                game = nxt
        else:
            repr(game), game.result, game.hands, game.history, game.last_move
            game.cards_left, game.seed, game.multiplier, game.calls, game.robs
            game.shown, game.show_multiplier, game.doubles, game.redeals, game.position
            game.redeal_seed


def fuzz_features(f: Fuzzer) -> None:
    from ddzfast import features
    r = f.rng
    rules = r.choice(RULE_SETS)
    pick = r.randrange(7)
    if pick == 6:
        moves = f.call(features.action_moves, f.table_rules() if r.random() < 0.3 else rules)
        if moves is not None:
            # read-only: the shared table itself
            f.call(moves.__setitem__, r.randrange(len(moves)), f.move_row())
            f.call(features.action_index, moves[r.randrange(len(moves)):][:5],
                   r.choice([rules, f.table_rules()]))
    elif pick == 0:
        f.call(features.encode_hands, r.choice([
            f.nasty(), [int(Hand(f.hand_text(False))) for _ in range(3)],
            [1, math.inf], [3.7], "33", np.array([1.5]), np.array([-1]),
            np.array([2 ** 63], dtype=np.uint64), [Hand("33"), 7]]))
    elif pick == 1:
        rows = np.array([f.move_row() for _ in range(r.randint(0, 4))], dtype=MOVE_DTYPE)
        f.call(features.encode_moves, rows if r.random() < 0.8 else f.nasty())
    elif pick == 2:
        shape = (r.randint(0, 3), r.choice([60, 61, 77, 5]))
        values = r.choice([0, 1, 2, -1, 255, 0.5])
        data = np.full(shape, values) if r.random() < 0.5 else \
            f.np_rng.integers(0, 2, shape)
        f.call(features.decode_hands, data if r.random() < 0.9 else f.nasty())
    elif pick == 3:
        rows = np.array([f.move_row() for _ in range(r.randint(0, 4))], dtype=MOVE_DTYPE)
        f.call(features.action_index, rows, rules)
    elif pick == 4:
        moves = f.call(legal_moves, f.hand_text(get_rules(rules).wildcard), None, rules)
        if moves is not None:
            f.call(features.legal_action_mask, moves, rules)
            f.call(features.action_index, moves, rules)
    else:
        f.call(features.action_count, f.table_rules() if r.random() < 0.3 else rules)


def fuzz_numba(f: Fuzzer) -> None:
    from numba.core.errors import TypingError

    from ddzfast import numba as dn
    r = f.rng
    good = dn.rules_handle(r.choice(RULE_SETS))
    # called from Python, every function checks its rules handle first: one
    # rules_handle did not give out is an error, never read through
    handle = good if r.random() < 0.9 else r.choice([
        good + 8, 0, -1, 123456, 2 ** 64, np.int64(good), np.uint64(good), True,
        dn.actions_handle("classic"), f.nasty()])

    def any_bits():
        return r.choice([r.getrandbits(64), -r.getrandbits(63),
                         np.uint64(r.getrandbits(64))])

    extra = (TypingError,)
    pick = r.randrange(9)
    last = r.choice([dn.no_last(), np.zeros(1, MOVE_DTYPE), f.out_array()])
    if pick >= 5:
        _fuzz_numba_actions(f, dn, good, any_bits, last, extra)
    elif pick == 0:
        f.call(dn.legal_moves_into, handle, r.choice([int(Hand(f.hand_text())),
                                                      any_bits()]),
               last, f.out_array(), extra=extra)
    elif pick == 1:
        f.call(dn.classify_into, handle, int(Hand(f.hand_text())), f.out_array(),
               extra=extra)
    elif pick == 2:
        move = np.array([f.move_row()], dtype=MOVE_DTYPE)
        f.call(dn.beats, handle, move, r.choice([move, last]), extra=extra)
    elif pick == 3:
        f.call(dn.play, int(Hand(f.hand_text())), int(Hand(f.hand_text())), extra=extra)
    else:
        f.call(dn.hand_valid, handle, any_bits(), extra=extra)
        f.call(dn.rules_handle, f.rules())


def _fuzz_numba_actions(f: Fuzzer, dn, handle: int, any_bits, last, extra) -> None:
    """The handle checks, the action functions and min_plays of
    ddzfast.numba. A jitted function compiles once per argument types, so
    each gets few of them: hands as int or uint64, a few out arrays."""
    r = f.rng
    pick = r.randrange(4)
    if pick == 0:
        f.call(dn.check_handle, r.choice([handle, handle + 8, 0, -1, 2 ** 64, np.int64(handle),
                                          np.uint64(handle), True, f.nasty()]))
        rules = r.choice(RULE_SETS)
        actions = f.call(dn.actions_handle,
                         rules if r.random() < 0.8 else r.choice(["laizi", "tiandi", f.nasty()]))
        f.call(dn.check_actions_handle,
               actions if r.random() < 0.6 else r.choice([
                   handle, 0, -1, 2 ** 64, np.uint64(actions or 0), f.nasty()]),
               r.choice([None, dn.rules_handle(rules), handle, actions, 0, f.nasty()]))
        return
    if pick == 3:
        hand = r.choice([int(Hand(f.hand_text())), any_bits()])
        if r.random() < 0.01:
            # a whole deck (in the quick rule sets: the split group takes
            # one in laizi:7, 0.4 s and 230 MB; tiandi:7J takes 3 s and 1.2 GB)
            rules = r.choice(QUICK_DECK_RULES)
            hand, handle = int(Hand(f.deck(1.0))), dn.rules_handle(rules)
        f.call(dn.min_plays, handle, hand, extra=extra)
        return
    rules = r.choice(RULE_SETS)
    own = dn.rules_handle(rules)
    actions = dn.actions_handle(rules)
    # each part as it should be four times in five (the whole call about
    # half the time); else another rule set's lookup, no handle, a hostile
    # hand, last or out
    pair = (own, actions) if r.random() < 0.8 else r.choice([
        (handle, actions), (own, dn.actions_handle("classic")), (own, own),
        (actions, actions), (own, 12345), (0, actions), (own, f.nasty())])
    size = ddzfast.action_count(rules)
    wild = get_rules(rules).wildcard
    hand = int(Hand(f.hand_text(wild))) if r.random() < 0.8 else r.choice([
        any_bits(), 2 ** 64 - 1, -1, 2 ** 64, f.nasty()])
    if r.random() < 0.01:
        hand = int(Hand(f.deck(1.0)))
    # leading, or a legal move to beat (a one-row array of its own)
    leads = legal_moves(f.hand_text(wild)[:6], None, rules).array
    last = r.choice([dn.no_last(), leads[-1:].copy()]) if r.random() < 0.8 else last
    if pick == 1:
        out = np.zeros(size, np.int32) if r.random() < 0.8 else r.choice([
            np.zeros(4, np.int32), np.zeros(2 * size, np.int32)[::2],
            np.zeros(size, np.int64), f.nasty()])
        f.call(dn.legal_action_indices_into, *pair, hand, last, out, extra=extra)
    else:
        out = r.choice([np.zeros(size, np.bool_), np.zeros(size, np.uint8)]) \
            if r.random() < 0.8 else r.choice([np.zeros(size + 1, np.bool_),
                                               np.zeros(size, np.float32), f.nasty()])
        f.call(dn.legal_action_mask_into, *pair, hand, last, out, extra=extra)


def fuzz_simulate(f: Fuzzer) -> None:
    from ddzfast import get_rules, simulate
    from ddzfast.simulate import simulate_parts
    r = f.rng

    def pick_index(game, legal):
        return r.choice([0, len(legal) - 1, len(legal), -1, 1.5, None, True])

    policies = r.choice([("random",) * 3, "greedy", "random,greedy,random", f.nasty(),
                         (pick_index, "random", "greedy"), ("smart",)])
    rows = f.call(simulate, r.choice([0, 1, 3, f.nasty()]), f.rules(), policies,
                  seed=r.choice([0, 1, f.nasty()]), threads=r.choice([1, 2, f.nasty()]),
                  bidding=r.choice([True, False, f.nasty()]),
                  backend=r.choice(["local", "local", f.nasty()]),
                  start=r.choice([0, 5, f.nasty()]),
                  progress=r.choice([None, None, lambda k: None, f.nasty()]))
    # a run in parts, no-shuffle sessions cut between them (the engine's carry)
    rules = f.rules()
    try:
        rules = get_rules(rules).with_options(deal="no_shuffle",
                                             session=r.choice([1, 2, 7]))
    except (TypeError, ValueError):
        pass
    # (its first parts: a run of 2**40 deals is a valid one)
    f.call(lambda *a, **k: [len(p) for p in itertools.islice(simulate_parts(*a, **k), 3)],
           r.choice([0, 1, 9, f.nasty()]), rules, policies,
           seed=r.choice([0, 1, f.nasty()]), threads=r.choice([1, 2, f.nasty()]),
           start=r.choice([0, 5, 13, f.nasty()]), part=r.choice([1, 2, 4, f.nasty()]),
           progress=r.choice([None, lambda k: None, f.nasty()]))
    # the report of the rows (or of hostile ones)
    from ddzfast.report import mean_interval, policy_labels, summarize
    f.call(summarize, rows if rows is not None and r.random() < 0.7 else f.nasty(),
           r.choice([None, policies, f.nasty()]))
    f.call(policy_labels, r.choice([[pick_index, pick_index, "greedy"], f.nasty()]))
    f.call(mean_interval, r.choice([1.0, f.nasty()]), r.choice([1.0, 0.0, f.nasty()]),
           r.choice([0, 2, 3, f.nasty()]))
    # one deal in Python, the policy parser and names, a session's length
    from ddzfast.simulate import parse_policies, play_deal, policy_name, session_length
    f.call(session_length, f.rules())
    f.call(parse_policies, policies)
    f.call(policy_name, r.choice([pick_index, "greedy", functools.partial(pick_index),
                                  Game.policy_move, f.nasty()]))
    row = f.call(play_deal, f.rules() if r.random() < 0.5 else r.choice(RULE_SETS), policies,
                 r.choice([0, r.getrandbits(64), f.nasty()]),
                 r.choice([0, 1, 2, 3, -1, f.nasty()]), r.choice([True, False, f.nasty()]))
    # rows as simulate makes them, one row of play_deal, or any bytes
    from ddzfast.report import Tally, rows_to_frame, wilson_interval
    garbage = np.frombuffer(r.randbytes(DEAL_DTYPE.itemsize * r.randint(0, 3)), DEAL_DTYPE)
    some = r.choice([rows, garbage, None if row is None else np.array([row]), row,
                     np.zeros(2, DEAL_DTYPE), np.zeros((2, 2), DEAL_DTYPE), f.nasty()])
    extra = (ImportError,) if MISSING["pandas"] else ()
    f.call(rows_to_frame, some, extra=extra)
    tally = f.call(Tally, r.choice([None, ("random",) * 3, ["a", "b"], [pick_index] * 3,
                                    f.nasty()]))
    if tally is not None:
        for _ in range(r.randint(0, 3)):
            f.call(tally.add, r.choice([some, rows, garbage, f.nasty()]))
        f.call(tally.summary)
    f.call(wilson_interval, r.choice([0, 3, 10, -1, 2 ** 1100, f.nasty()]),
           r.choice([0, 3, 10, -1, 2 ** 1100, f.nasty()]),
           *r.choice([(), (1.96,), (0,), (-1.0,), (f.nasty(),)]))


def fuzz_cli(f: Fuzzer) -> None:
    from ddzfast import cli
    r = f.rng
    tmp = tempfile.gettempdir()
    word = lambda: r.choice(["", "-1", "0", "1", "3", "2.5", "1000000000000",
                             "18446744073709551616", "1099511627776", "abc", "#²",
                             "33", "3W", "pass", "PAIR/3/1/33", "x" * 50])
    agent = lambda: r.choice(["random", "greedy", "expert", "rlcard-rule", "douzero:" + EMPTY_DIR,
                              "douzero:", word()])
    command = r.choice([
        ["moves", r.choice([f.hand_text(), word()])],
        ["moves", f.hand_text(False), "--last", word()],
        ["moves", f.hand_text(), *r.choice([cli_rules(name) for name in RULE_SETS]
                                           + [["--rules", "x"]])],
        # (a valid but huge --games runs for days, by design: only counts
        # beyond the deal-index range, which are refused, stand in for it)
        ["simulate", "--games", r.choice(["0", "1", "2", "-1", "2.5", "abc", "#²",
                                          "9223372036854775808",
                                          "18446744073709551616"]), "--quiet"],
        ["simulate", "--games", "1", "--threads", word(), "--quiet"],
        ["simulate", "--games", "1", "--seed", word(), "--quiet"],
        ["simulate", "--games", "1", "--policies", word(), "--quiet"],
        ["simulate", "--games", "1", "--quiet", "--out",
         r.choice([os.path.join(tmp, "no", "such", "dir", "x.npz"), tmp, "x.csv"])],
        ["solve", f.hand_text(False)[:5], f.hand_text(False)[:5], "--max-nodes", "20000"],
        ["solve", word(), word(), r.choice(["--landlord", "--to-move", "--last-seat",
                                            "--max-nodes", "--seconds", "--last"]), word()],
        ["--version"],
        [word()],
        # a deal against two bots, typed from the lines below
        ["play", *r.choice([[], ["--seed", str(r.getrandbits(64))], ["--seed", word()]]),
         *r.choice([[], ["--bots", r.choice(["greedy", "random", "expert", word()])]]),
         *r.choice([[], [], ["--rules", "classic+happy"], ["--rules", "tiandi"],
                    ["--wild", word()]] + [cli_rules(name) for name in RULE_SETS])],
        # (a valid but huge --deals runs for hours: only counts beyond the
        # bound stand in for it; --backend ray would start a cluster)
        ["arena", "--a", agent(), "--b", agent(),
         "--deals", r.choice(["0", "1", "2", "1", "2", "-1", "2.5", "abc", "100000001"]),
         *r.choice([[], ["--seed", word()], ["--threads", r.choice(["1", "2", word()])],
                    ["--bidding"], ["--json"], ["--address", word()]]),
         *r.choice([[], ["--rules", "classic+happy", "--bidding"]]
                   + [cli_rules(name) for name in RULE_SETS])],
    ])
    # standard input: lines a person might type (or bytes no encoding
    # reads), ending at end of file, so that a game never waits
    typed = [r.choice(["?", "help", "h", "q", "pass", "p", "#0", "#-1", "#99999999999999999999",
                       "0", "1", "2", "3", "4", "", "4567W=8", "33W=4", f.hand_text()[:6],
                       word()]) for _ in range(r.randint(0, 60))]
    raw = "\n".join(typed).encode() + r.choice([b"", b"\n", b"\xff\xfe\x80\n", b"\x00"])
    stdin = r.choice([io.StringIO(raw.decode("utf-8", "replace")),
                      io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8"), None])
    stdout, stderr = io.StringIO(), io.StringIO()
    f.calls += 1
    saved_stdin = sys.stdin
    try:
        sys.stdin = stdin
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            status = cli.main(command)
    except SystemExit as e:
        status = e.code
    except Exception:
        print(f"call {f.calls}: ddzfast {command!r} (standard input {raw!r})", file=sys.stderr)
        raise
    finally:
        sys.stdin = saved_stdin
    if status not in (0, 2, None):
        raise AssertionError(f"ddzfast {command!r} exited {status}: {stderr.getvalue()}")
    if "Traceback" in stderr.getvalue():
        raise AssertionError(f"ddzfast {command!r} printed a traceback")


def fuzz_solve(f: Fuzzer) -> None:
    r = f.rng
    if r.random() < 0.1:
        # puzzle notation (0, Y, Z) as card text
        # (ddzfast.solve the attribute is the function, not the module)
        notation = importlib.import_module("ddzfast.solve").from_puzzle_notation
        text = "".join(r.choice("34567890JQKA2YZyzT1W #²") for _ in range(r.randint(0, 14)))
        cards = f.call(notation, text if r.random() < 0.8 else f.nasty())
        if cards is not None:
            f.call(ddzfast.solve, [cards, f.hand_text(False)[:3]], "classic", max_nodes=1000)
        return
    if r.random() < 0.003:
        # a whole deck dealt to the seats, one node searched
        deck = list(f.deck(1.0))
        r.shuffle(deck)
        cut = sorted(r.sample(range(len(deck) + 1), r.choice([1, 2])))
        hands = ["".join(deck[a:b]) for a, b in zip([0] + cut, cut + [len(deck)])]
        f.call(ddzfast.solve, hands, f.deck_rules() if r.random() < 0.5 else r.choice(RULE_SETS),
               to_move=r.randrange(len(hands)),
               landlord=r.randrange(3) if len(hands) == 3 else None,
               all_moves=r.random() < 0.5, max_nodes=1)
        return
    if r.random() < 0.7:
        # mostly valid: small disjoint hands, consistent seats, a reading of
        # some cards as the move to beat
        n = r.choice([2, 3])
        rules = r.choice(RULE_SETS)
        deck = ddzfast.constants.deck_text(get_rules(rules).wildcard)
        cards = r.sample(deck, 5 * n + 3)
        hands = ["".join(cards[5 * i:5 * i + r.randint(1, 5)]) for i in range(n)]
        to_move = r.randrange(n)
        last = last_seat = None
        if r.random() < 0.5:
            readings = f.call(classify, "".join(cards[-r.randint(1, 3):]), rules)
            if readings:
                last = readings[0]
                last_seat = r.choice([s for s in range(n) if s != to_move])
        f.call(ddzfast.solve, hands, rules, to_move=to_move, last=last,
               last_seat=last_seat, landlord=r.randrange(3) if n == 3 else None,
               all_moves=r.random() < 0.5, max_nodes=r.choice([None, 50, 100_000]))
        return
    n = r.choice([2, 3, 3, 1, 4])
    cards = r.sample(DECK, 4 * n)
    hands = ["".join(cards[4 * i:4 * i + r.randint(0, 4)]) for i in range(n)]
    if r.random() < 0.2:
        hands = f.nasty()
    last = r.choice([None, None, f.move(), f.move_row()])
    f.call(ddzfast.solve, hands, f.rules() if r.random() < 0.3 else "biegang",
           to_move=r.choice([0, 1, 2, f.nasty()]), last=last,
           last_seat=r.choice([None, 0, 1, 2, f.nasty()]),
           landlord=r.choice([None, 0, 1, 2, f.nasty()]),
           all_moves=r.choice([False, True, f.nasty()]),
           max_nodes=r.choice([None, 1, 10_000, f.nasty()]),
           seconds=r.choice([None, 0.5, f.nasty()]))


def _fuzz_rlcard(f: Fuzzer) -> None:
    """RLCard's action ids (ddzfast.compat.rlcard), or, without rlcard, the
    ImportError saying what to install."""
    from ddzfast.compat import rlcard
    r = f.rng
    extra = (ImportError,) if MISSING["rlcard"] else ()
    ids = r.choice([r.randrange(27472), r.choice([0, 27471, 27472, -1, 2 ** 63, 2 ** 64]),
                    np.int64(5), np.uint16(7), f.nasty()])
    pick = r.randrange(5)
    if pick == 0:
        f.call(rlcard.rlcard_to_actions, ids, index_ok=True, extra=extra)
        f.call(rlcard.rlcard_moves, ids, index_ok=True, extra=extra)
    elif pick == 1:
        legal = r.choice([None, None, f.call(legal_moves, f.hand_text(False)),
                          f.call(legal_moves, f.hand_text(False), None, r.choice(RULE_SETS)),
                          MoveList.__new__(MoveList), f.nasty()])
        f.call(rlcard.from_rlcard, ids, legal, index_ok=True, extra=extra)
    elif pick == 2:
        rules = r.choice(RULE_SETS)
        moves = f.call(legal_moves, f.hand_text(get_rules(rules).wildcard), None, rules)
        f.call(rlcard.to_rlcard, r.choice([moves, moves and moves[0], moves and moves.array,
                                           f.move(), f.move_row(), f.nasty(),
                                           MoveList.__new__(MoveList), Move.__new__(Move),
                                           np.zeros((2, 2), MOVE_DTYPE)]), extra=extra)
    else:
        table = f.call(r.choice([rlcard.action_to_rlcard, rlcard.unmappable_moves,
                                 rlcard.rlcard_actions]), extra=extra)
        if isinstance(table, np.ndarray) and len(table):
            # (action_to_rlcard: read-only, the module's own table)
            f.call(table.__setitem__, r.randrange(len(table)), 0)


def fuzz_learning(f: Fuzzer) -> None:
    # action indices and masks, observation tensors, DouZero's environment,
    # RLCard's action ids
    from ddzfast.compat import douzero
    r = f.rng
    pick = r.randrange(10)
    rules = r.choice(RULE_SETS) if r.random() < 0.8 \
        else f.table_rules()
    last = f.move() if r.random() < 0.5 else None
    hand = f.hand() if pick <= 2 else None
    if pick <= 2 and r.random() < 0.003:
        # a whole deck: more cards than a deal gives, so moves no action is
        # (ValueError), found without making its millions of moves
        hand, rules = f.deck(1.0), f.deck_rules()
    if pick == 9:
        _fuzz_rlcard(f)
    elif pick == 0:
        f.call(ddzfast.legal_action_indices, hand, last, rules)
    elif pick == 1:
        out = r.choice([np.empty(r.choice([0, 1, 8, 4096]), np.int32),
                        np.empty(64, np.int64), np.empty(64, np.int32)[::2], f.nasty()])
        f.call(ddzfast.legal_action_indices_into, hand, last, rules, out)
    elif pick == 2:
        size = f.call(ddzfast.action_count, rules) or 16
        out = r.choice([np.zeros(size, bool), np.zeros(size + r.choice([-1, 1]), bool),
                        np.zeros(size, np.uint8), np.zeros(size, np.float32),
                        np.zeros((2, size), bool), f.nasty()])
        f.call(ddzfast.legal_action_mask_into, hand, last, rules, out)
    elif pick == 3:
        hands = r.choice([[int(Hand(f.hand_text(False))) for _ in range(r.randint(0, 4))],
                          f.nasty(), np.zeros((2, 2), np.uint64)])
        f.call(r.choice([ddzfast.legal_action_indices_batch, ddzfast.legal_action_mask_batch]),
               hands, None, rules, threads=r.choice([1, 2, f.nasty()]))
    elif pick == 4:
        game = f.call(Game, rules, r.getrandbits(32), r.choice([True, False]))
        if game is None:
            return
        for _ in range(r.randint(0, 30)):
            if game.done:
                break
            if game.phase == "bidding":
                f.call(game.bid, r.choice(game.legal_bids()))
            else:
                idx = f.call(game.legal_action_indices)
                if idx is not None and len(idx):
                    f.call(game.play_action, int(idx[r.randrange(len(idx))]))
        f.call(game.observation_tensor, f.seat(),
               out=r.choice([None, np.zeros(ddzfast.OBSERVATION_SIZE, np.float32),
                             np.zeros(3, np.float32), f.nasty()]))
        f.call(game.legal_action_mask, out=r.choice([None, f.nasty()]))
        f.call(game.play_action, r.choice([f.nasty(), -1, 0, 10 ** 9]), index_ok=True)
        f.call(ddzfast.observation_tensors, r.choice([[game, game], [game], f.nasty()]),
               r.choice([None, [0, 1], [5], f.nasty()]))
    elif pick == 5:
        f.call(douzero.to_douzero, r.choice([f.hand(), f.move(), f.nasty(),
                                             [3, 3, 17], [99], [-1],
                                             ddzfast.MoveList.__new__(ddzfast.MoveList)]))
    elif pick == 6:
        f.call(douzero.from_douzero, r.choice([[3, 3, 17], [30, 20], [[3], [4, 4]],
                                               [99], [3] * 5, f.nasty()]))
    elif pick == 7:
        f.call(douzero.legal_actions, r.choice([[3, 4, 5, 5, 17], [], f.nasty()]),
               r.choice([(), [4], [4, 4], [99], f.nasty()]))
    else:
        env = douzero.Env(r.choice(["wp", "adp", "logadp"]))
        np.random.seed(r.getrandbits(32))
        obs = env.reset()
        for _ in range(r.randint(0, 40)):
            if obs is None:
                break
            legal = obs["legal_actions"]
            action = legal[r.randrange(len(legal))] if r.random() < 0.9 else \
                r.choice([[99], [3, 3, 3, 3, 3], f.nasty()])
            step = f.call(env.step, action, extra=(ddzfast.IllegalMoveError,))
            if step is not None:
                obs = step[0]
        # a pickle's state, made hostile or as it is
        if r.random() < 0.7:
            _hostile_reduce(f, env._game, [-1, 2 ** 64, (1, 2), (0,) * 300, 99, None])
        else:
            load, state = env._game.__reduce__()
            f.call(load, *state)


def fuzz_split(f: Fuzzer) -> None:
    """min_plays, plays_left, min_plays_batch and the arena's checks."""
    r = f.rng
    hand = f.hand() if r.random() < 0.8 else f.nasty()
    rules = f.rules()
    split = f.call(ddzfast.min_plays, hand, rules)
    if r.random() < 0.002:
        # a whole deck (within the work limit, or ValueError beyond it; not in
        # tiandi:7J, where one takes 3 s and 1.2 GB)
        f.call(ddzfast.min_plays, f.deck(1.0), f.deck_rules(slow=("laizi:7",)))
    # a Split made by hand: its count and moves must agree
    some = r.choice([split.moves if split is not None else MoveList.__new__(MoveList),
                     f.call(classify, f.hand_text(False)[:r.randint(0, 6)], "classic"),
                     f.call(legal_moves, f.hand_text(False)[:r.randint(0, 4)]),
                     MoveList.__new__(MoveList), [f.move()], f.nasty()])
    count = r.choice([len(some) if hasattr(some, "__len__") else 0, None, 0, 1, 2, -1,
                      True, 1.0, np.int64(1), np.uint8(2), 2 ** 64, f.nasty()])
    made = f.call(ddzfast.Split, count, some)
    if made is not None:
        repr(made)
        f.call(_round_trip, made)
        f.call(made.__eq__, split)
    moves = r.choice([None, [f.move()], [f.move(), f.move_row()], f.nasty(),
                      np.zeros(2, MOVE_DTYPE), "33"])
    if moves is None:
        moves = f.call(ddzfast.legal_moves, hand, rules=rules)
    f.call(ddzfast.plays_left, hand, moves, rules)
    hands = r.choice([[f.hand() for _ in range(3)], f.nasty(), np.zeros(3, np.uint64),
                      np.array([2 ** 63], np.uint64), [-1], [1.5]])
    f.call(ddzfast.min_plays_batch, hands, rules, threads=r.choice([1, 2, f.nasty()]))
    if r.random() < 0.02:
        from ddzfast.arena import arena
        f.call(arena, r.choice(["expert", "greedy", f.nasty()]),
               r.choice(["random", f.nasty()]),
               deals=r.choice([0, 1, 2, -1, 1.5, None, "3", 2 ** 40, True]),
               seed=r.choice([0, f.nasty()]), threads=r.choice([1, f.nasty()]),
               rules=r.choice(["classic", "tiandi", "tiandi+happy", f.rules(), f.nasty()]),
               bidding=r.choice([False, True, f.nasty()]))


def fuzz_vector(f: Fuzzer) -> None:
    # VectorEnv and compat.douzero.VecEnv: hostile arguments and actions
    from ddzfast.compat import douzero
    from ddzfast.env import VectorEnv
    r = f.rng
    if r.random() < 0.3:
        vec = f.call(douzero.VecEnv, r.choice([1, 2, 5, 0, -1, f.nasty()]),
                     r.choice(["wp", "adp", "logadp", f.nasty()]),
                     seed=r.choice([None, 1, f.nasty()]),
                     z_batch=r.choice([True, False, f.nasty()]),
                     x_batch=r.choice([True, False, f.nasty()]),
                     dtype=r.choice(["float32", "int8", np.int8, np.float32, f.nasty()]))
        if vec is None:
            return
        row = lambda: r.choice([0, vec.num_envs - 1, vec.num_envs, -1, np.int64(0), True,
                                f.nasty()])
        f.call(vec.step, np.zeros(vec.num_envs, np.int64))      # before reset
        f.call(vec.observation, row(), index_ok=True)
        f.call(vec.card_play_data, row(), index_ok=True)
        f.call(vec.reset, seed=r.choice([None, 7, f.nasty()]))
        for _ in range(r.randint(0, 20)):
            if r.random() < 0.8:
                actions = (np.array([r.random() for _ in range(vec.num_envs)])
                           * vec.counts).astype(np.int64)
            else:
                actions = r.choice([np.full(vec.num_envs, 10 ** 6), np.zeros(vec.num_envs + 1,
                                    np.int64), np.zeros(vec.num_envs, np.float32), f.nasty()])
            f.call(vec.step, actions)
        f.call(vec.legal_actions, r.choice([0, vec.num_envs, -1, f.nasty()]), index_ok=True)
        f.call(vec.observation, row(), index_ok=True)
        f.call(vec.card_play_data, row(), index_ok=True)
        f.call(vec.expand, r.choice([0, 1, 2, 3, -1, f.nasty()]))
        f.call(vec.deal_of_rows, r.choice([0, 1, 2, 3, -1, f.nasty()]))
        return
    rules = r.choice(RULE_SETS + ("classic+happy", "laizi:7+happy")) if r.random() < 0.8 \
        else f.table_rules()
    seat = r.choice([None, None, 0, 1, 2, 3, f.nasty()])
    env = f.call(VectorEnv, r.choice([1, 2, 3, 7, 0, f.nasty()]), rules,
                 bidding=r.choice([True, False, f.nasty()]), seat=seat,
                 opponents=r.choice([None, "greedy", ("random", "greedy"), f.nasty()])
                 if seat is not None else None,
                 seed=r.choice([None, 3, f.nasty()]), threads=r.choice([1, 2, 3, f.nasty()]),
                 obs_dtype=r.choice(["float32", "uint8", f.nasty()]),
                 mask=r.choice([None, "dense", "bits", f.nasty()]))
    if env is None:
        return
    f.call(env.step, np.zeros(env.num_envs, np.int32))          # before reset
    f.call(env.reset, seed=r.choice([None, 5, f.nasty()]))
    for _ in range(r.randint(0, 30)):
        off = env.legal_offsets
        if r.random() < 0.85 and len(env.legal_indices):
            pick = off[:-1] + (np.array([r.random() for _ in range(env.num_envs)])
                               * np.diff(off)).astype(np.int64)
            actions = env.legal_indices[pick]
        else:
            actions = r.choice([np.full(env.num_envs, r.choice([-1, 2 ** 31 - 1, 2 ** 40])),
                                np.zeros(env.num_envs + 1, np.int32),
                                np.zeros(env.num_envs, np.float64), np.zeros((1, 1), np.int8),
                                [0] * env.num_envs, f.nasty()])
        f.call(env.step, actions)


def _step_masked(f: Fuzzer, venv, hostile: list) -> None:
    """Up to 20 steps of a vector environment (``action_masks()`` and
    ``step``): mostly legal actions, else one of ``hostile`` or a nasty value."""
    r = f.rng
    for _ in range(r.randint(0, 20)):
        if r.random() < 0.85:
            actions = np.array([r.choice(np.flatnonzero(m)) if m.any() else 0
                                for m in venv.action_masks()])
        else:
            actions = r.choice(hostile + [f.nasty()])
        f.call(venv.step, actions)

def fuzz_envs(f: Fuzzer) -> None:
    """The learning wrappers (ddzfast.env: PettingZoo's AEC environment,
    Gymnasium's one-seat and vector environments, the one-seat one also as
    gymnasium.make(GYM_ID) makes it, Stable-Baselines3's VecEnv) with
    hostile arguments and actions."""
    import gymnasium
    from ddzfast.env import GYM_ID, GymVectorEnv, doudizhu_v0, gym_env
    from ddzfast.env._table import PLAYERS
    r = f.rng
    rules = r.choice(RULE_SETS + ("classic+happy", "tiandi:KA", SESSIONS)) \
        if r.random() < 0.9 else f.nasty()
    pick = r.randrange(4)
    if pick == 0:
        made = r.random() < 0.3
        env = f.call(functools.partial(gymnasium.make, GYM_ID) if made else gym_env, rules=rules,
                     seat=r.choice([0, 1, 2, 3, -1, f.nasty()]),
                     opponents=r.choice([("greedy", "random"), "greedy", ("expert",) * 2,
                                         (f.nasty(), "greedy"), f.nasty()]),
                     bidding=r.choice([True, False, f.nasty()]),
                     # (gymnasium.make reads a render mode as a str itself)
                     render_mode=r.choice([None, "ansi", "nonsense" if made else f.nasty()]),
                     illegal_reward=r.choice([-1.0, 0, math.inf, f.nasty()]))
        if env is None:
            return
        raw = env.unwrapped
        if not made:
            # (Gymnasium's OrderEnforcing raises its own ResetNeeded here)
            f.call(env.step, 0)                             # before reset
            f.call(env.render)
        f.call(raw.action_masks)
        if f.call(env.reset, seed=r.choice([None, 1, 2 ** 64, -1, f.nasty()])) is None:
            return
        for _ in range(r.randint(0, 30)):
            legal = env.unwrapped.legal_actions()
            action = (int(legal[r.randrange(len(legal))]) if r.random() < 0.85 and len(legal)
                      else r.choice([-1, 10 ** 9, 1.5, np.int64(0), np.array(0), f.nasty()]))
            step = f.call(env.step, action)
            if step is None or step[2]:
                break
        f.call(raw.action_masks)
        f.call(env.render)
        # the run's next deal (a no-shuffle session's next one after a deal's end)
        f.call(env.reset)
        f.call(env.unwrapped.action_of, r.choice([f.move(), 0, 4, f.nasty()]), index_ok=True)
        f.call(env.close)
        f.call(raw.action_masks)
    elif pick == 1:
        env = f.call(doudizhu_v0.env, rules, bidding=r.choice([True, False, f.nasty()]),
                     render_mode=r.choice([None, "ansi", f.nasty()]))
        if env is None:
            return
        who = lambda: r.choice(PLAYERS + ("player_3", "player_0 ", "", f.nasty()))
        raw = env.unwrapped
        # before reset (the wrapper's own AttributeError aside: PettingZoo's)
        f.call(raw.observe, who())
        f.call(raw.last, r.choice([True, False, f.nasty()]))
        f.call(raw.render)
        f.call(raw.observation_space, who())
        f.call(raw.action_space, who())
        if f.call(env.reset, seed=r.choice([None, 3, f.nasty()])) is None and \
                not getattr(env, "agents", None):
            return
        for _ in range(r.randint(0, 40)):
            if not env.agents:
                break
            raw = env.unwrapped
            legal = raw.legal_actions()
            agent = env.agent_selection
            if raw.terminations[agent]:
                action = None
            elif r.random() < 0.85 and len(legal):
                action = int(legal[r.randrange(len(legal))])
            else:
                action = r.choice([-1, 10 ** 9, 1.5, f.nasty()])
            f.call(env.step, action, index_ok=True)
            if r.random() < 0.3:
                f.call(r.choice([env.observe, raw.observe]), who())
                f.call(r.choice([env.last, raw.last]), r.choice([True, False, f.nasty()]))
                f.call(env.render)
        f.call(raw.observation_space, who())
        f.call(raw.action_space, who())
        f.call(env.reset)
        raw = env.unwrapped
        f.call(raw.move_of, r.choice([0, -1, 10 ** 9, f.nasty()]), index_ok=True)
        f.call(raw.action_of, r.choice([f.move(), 0, f.nasty()]), index_ok=True)
    elif pick == 2:
        venv = f.call(GymVectorEnv, r.choice([1, 2, 3, 0, f.nasty()]), rules,
                      seat=r.choice([0, 1, 2, None, f.nasty()]),
                      seed=r.choice([None, 4, f.nasty()]))
        if venv is None:
            return
        n = venv.num_envs
        f.call(venv.step, np.zeros(n, np.int64))             # before reset
        seed = r.choice([None, 5, list(range(5, 5 + n)), [7] * n, [None] * n,
                         [1] * (n + 1), [1, None] * n, [1.5] * n, np.arange(n), f.nasty()])
        if f.call(venv.reset, seed=seed, options=r.choice([None, {}, {"x": 1}])) is None:
            return
        _step_masked(f, venv, [np.full(n, -1), np.zeros(n + 1, np.int64),
                               np.zeros(n, np.float64), [0] * n])
        venv.close()
    else:
        try:
            from ddzfast.env.sb3 import SB3VecEnv
        except ImportError:
            return
        venv = f.call(SB3VecEnv, r.choice([1, 2, 0, f.nasty()]), rules,
                      seat=r.choice([0, 2, None, 3, f.nasty()]),
                      seed=r.choice([None, 6, f.nasty()]))
        if venv is None:
            return
        f.call(venv.step_wait)                              # without step_async
        f.call(venv.seed, r.choice([None, 8, f.nasty()]))
        if f.call(venv.reset) is None:
            return
        _step_masked(f, venv, [np.full(venv.num_envs, 10 ** 6),
                               np.zeros(venv.num_envs + 1, np.int64)])
        f.call(venv.get_attr, r.choice(["seat", "num_envs"]),
               r.choice([None, 0, [0], f.nasty()]), index_ok=True)
        indices = r.choice([None, 0, [0], [0, 0], -1, venv.num_envs, [True], range(1), 1.5,
                            np.int64(0), np.array([0]), f.nasty()])
        # (names of its methods: getattr's AttributeError for a name it
        # lacks is SB3's VecEnv contract, as get_attr's above)
        f.call(venv.env_method, r.choice(["action_masks", "reset", "seed"]),
               *r.choice([(), (3,), (f.nasty(),)]), indices=indices)
        f.call(venv.has_attr, r.choice(["seat", "num_envs", "no_such", "", f.nasty()]))
        f.call(venv.env_is_wrapped, r.choice([gymnasium.Wrapper, object, f.nasty()]), indices)
        f.call(venv.set_options, r.choice([None, {}, {"x": 1}, [{}] * venv.num_envs,
                                           [{"x": 1}], f.nasty()]))
        # (set_attr is an AttributeError for any name: the rows share their
        # attributes, as a read-only attribute refuses setattr)
        f.call(venv.set_attr, r.choice(["seat", "no_such", f.nasty()]), r.choice([0, None]),
               extra=(AttributeError,))
        f.call(venv.reset)


def fuzz_arena(f: Fuzzer) -> None:
    """ddzfast.arena: agents (names, callables, RLCard's, DouZero's from a
    folder without its models), the rule set an arena plays, DouZero's
    deals, the Ray backend's check, and small real matches with their
    results as a dict (JSON-ready) and as a table."""
    from ddzfast import arena as ar
    r = f.rng
    # an agent that is not installed: the ImportError saying what to install
    extra = (ImportError,) if MISSING["rlcard"] or MISSING["torch"] or MISSING["douzero"] \
        else ()

    def pick_index(game, legal):
        return r.choice([0, len(legal) - 1, len(legal), -1, 1.5, None, True])

    # (a folder of three files that are no checkpoints is a test of
    # tests/test_arena.py: loading torch here would slow the group)
    def agent(hostile=1.0):
        if r.random() >= hostile:
            return r.choice(["random", "greedy", "expert", "rlcard-rule",
                             lambda game, legal: len(legal) - 1])
        return r.choice(["random", "greedy", "expert", "rlcard-rule", "douzero:" + EMPTY_DIR,
                         "douzero:", "douzero", "smart", "", "GREEDY", pick_index,
                         lambda game, legal: 0, ar.resolve_agent("greedy"), f.nasty()])

    def some(valid, *hostile):
        # valid four times in five
        return valid if r.random() < 0.8 else r.choice(hostile)

    pick = r.randrange(5)
    if pick == 0:
        f.call(ar.resolve_agent, agent(), extra=extra)
    elif pick == 1:
        f.call(ar.arena_rules, f.rules(), *[agent() for _ in range(r.randint(0, 3))],
               bidding=r.choice([False, True, f.nasty()]), extra=extra)
    elif pick == 2:
        # (a valid count of 10**8 deals takes minutes: only counts beyond it)
        f.call(ar.douzero_deals, r.choice([0, 1, 3, -1, 10 ** 8 + 1, 2 ** 64, 1.5, True,
                                           np.int64(2), np.uint8(1), None, "3"]),
               r.choice([0, 7, 2 ** 32 - 1, 2 ** 32, -1, np.uint32(5), f.nasty()]))
    elif pick == 3:
        f.call(ar.check_ray_agents, agent(), agent(), extra=extra)
    else:
        bidding = r.random() < 0.3
        result = f.call(ar.arena, agent(0.2), agent(0.2),
                        deals=some(r.randint(0, 3), -1, 1.5, None, True, np.int64(2),
                                   10 ** 8 + 1),
                        seed=some(r.getrandbits(32), 2 ** 32, -1, f.nasty()),
                        threads=some(r.choice([1, 2]), 0, f.nasty()),
                        rules=some(r.choice(RULE_SETS + ("classic+happy", "laizi", "tiandi"))
                                   if bidding else r.choice(RULE_SETS + ("laizi",)),
                                   f.rules(), f.nasty()),
                        bidding=some(bidding, f.nasty()), extra=extra)
        if result is not None:
            json.dumps(result.as_dict(), allow_nan=False)
            result.table()


GROUPS = {"objects": fuzz_objects, "split": fuzz_split, "vector": fuzz_vector, "core": fuzz_core,
          "learning": fuzz_learning, "game": fuzz_game, "features": fuzz_features,
          "numba": fuzz_numba, "simulate": fuzz_simulate, "cli": fuzz_cli,
          "solve": fuzz_solve, "envs": fuzz_envs, "arena": fuzz_arena}


def main(argv) -> int:
    group, seed, calls = argv[0], int(argv[1]), int(argv[2])
    fuzz = GROUPS[group]
    f = Fuzzer(seed)
    try:
        while f.calls < calls:
            fuzz(f)
    except Exception:
        traceback.print_exc()
        return 1
    print(f"{group}: {f.calls} calls, only allowed errors")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
