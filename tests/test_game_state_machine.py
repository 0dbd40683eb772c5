"""A hypothesis state machine that drives ``ddzfast.Game`` side by side with
a plain Python model of the deal (issue 20's evidence: "a RuleBasedStateMachine
driving Game (play, undo, copy, pickle, from_position mid-trick, observation,
masks, rollout) against a plain Python model in every rule set").

The model (``Deal`` below) is written from RULES.md sections 5 and 6 and the
rule set's own data (``Rules.description``: the kitty size, the per-kind
``multipliers``, the bomb ``tiers`` and which of them are ``ranked``, the
multiplier cap, the service fee and the deal cap). It keeps its own books:
the hands as 16 counts, the kitty, the bids, the landlord and base, the trick
(the move to beat, who played it, the passes since), whose turn it is, the
history, the multiplier, spring and anti-spring, and the final scores. It
takes from the core only what it cannot know: the cards a seed deals (read
once at the start) and which moves exist (``legal_moves`` of a hand led
freely: the generator is tested against the oracles elsewhere). It decides
on its own which of those may follow the move to beat (RULES.md 4 on the
tiers of the description), that a free lead cannot pass (unless the hand is
only W), that a played move's cards leave the hand, that after two passes
the last player leads, that a bid of 3 or the third bid ends bidding, ... and
checks the core's ``legal_moves``, ``legal_bids``, observations, tensors and
masks against that.

One machine per rule set of ``helpers.RULE_SETS``, each its own pytest test.
A run starts from a dealt ``Game`` (seed, bidding on or off, first bidder) or
from ``Game.from_position`` (random hands from a shuffled deck, sometimes in
the middle of a trick) and then bids, plays (by index, by MOVE_DTYPE row, by
action index), undoes, copies (continuing on the copy while the original is
checked to stay as it was), pickles (continuing on the loaded game), samples
worlds from observations (continuing on one), rolls out, and tries illegal
inputs, each of which must raise and leave the game exactly as it was.
After every step the game must equal the model, the cards must be conserved,
and the game, its copy and its pickle must have one position key.

Not tested here (issue 20, being reworked): crafted or corrupted pickle
states; only round trips of states the API itself reached.
"""
import copy
import math
import pickle
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, settings, strategies as st
from hypothesis.stateful import (RuleBasedStateMachine, initialize, invariant,
                                 precondition, rule, run_state_machine_as_test)

import ddzfast
from ddzfast import Game, Hand, Move, MoveKind, get_rules
from helpers import DECKS, RULE_SETS

# RULES.md 1: card index -> character, and how many of each a deck may hold
CARDS = "3456789TJQKA2XDW"
X, D, W = 13, 14, 15
PASS = Move.parse("PASS")
PHASES = ("bidding", "play", "done")
KIND_NAMES = [k.name for k in sorted(MoveKind, key=lambda k: k.value)]

SETTINGS = settings(max_examples=150, stateful_step_count=50, deadline=None,
                    derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.data_too_large])


# ---- cards as 16 counts ------------------------------------------------------

def counts_of_text(text) -> list:
    counts = [0] * 16
    for ch in text:
        counts[CARDS.index(ch)] += 1
    return counts


def unpack(bits: int) -> list:
    """A packed hand or move (4 bits per card index) as 16 counts."""
    return [(bits >> (4 * i)) & 15 for i in range(16)]


def pack(counts) -> int:
    return sum(c << (4 * i) for i, c in enumerate(counts))


def add(a, b) -> list:
    return [x + y for x, y in zip(a, b)]


def sub(a, b) -> list:
    out = [x - y for x, y in zip(a, b)]
    assert min(out) >= 0, f"{a} - {b} goes negative"
    return out


def within(a, b) -> bool:
    return all(x <= y for x, y in zip(a, b))


def text_of(counts) -> str:
    return "".join(CARDS[i] * c for i, c in enumerate(counts))


def ident(move):
    """(kind, rank, length, packed cards) of a Move, or None."""
    return None if move is None else tuple(move.identity)


def row_idents(arr) -> list:
    """The identities of MOVE_DTYPE rows, in order."""
    return list(zip(arr["kind"].tolist(), arr["rank"].tolist(),
                    arr["length"].tolist(), arr["cards"].tolist()))


# ---- what the model reads from the rule set's data -----------------------------

class RuleData:
    """The parts of ``Rules.description`` that RULES.md 4 and 6 turn into
    play and scoring: bomb tiers (and which are ordered by rank), per-kind
    multipliers, the multiplier cap, the service fee and the deal cap."""

    def __init__(self, name: str):
        rules = ddzfast.get_rules(name)
        desc = rules.description
        self.name = name
        self.rules = rules
        self.kitty = desc["kitty"]
        self.deck = counts_of_text(DECKS[name])
        assert sum(self.deck) == 54 + bool(desc.get("wildcard")), desc
        self.tier = np.zeros(len(KIND_NAMES), dtype=np.int64)
        for kind, t in desc["tiers"].items():
            self.tier[KIND_NAMES.index(kind)] = t
        self.ranked = np.zeros(len(KIND_NAMES), dtype=bool)
        for kind in desc["ranked"]:
            self.ranked[KIND_NAMES.index(kind)] = True
        self.factor = [1] * len(KIND_NAMES)
        for kind, f in desc["multipliers"].items():
            self.factor[KIND_NAMES.index(kind)] = f
        self.mult_cap = desc["mult_cap"]
        self.service_fee = desc["service_fee"]
        self.deal_cap = desc["deal_cap"]
        self.laizi = bool(desc.get("laizi"))
        # laizi: the rule set names its wild rank ("laizi:7"), which every deal
        # keeps; tiandi its two, sky then ground ("tiandi:7J")
        two = desc.get("wild_count", 1) == 2
        self.wild_rank = CARDS.index(desc["wild_rank"]) if self.laizi and not two else None
        self.wild_ranks = (tuple(CARDS.index(c) for c in desc["wild_ranks"]) if two else
                           (self.wild_rank,) if self.laizi else ())
        # tiandi (RULES.md 9): a bomb's tier by its kind and size, a pure
        # LAIZI_BOMB (of one wild rank) pure_step above a mixed one
        self.size_tiers = {KIND_NAMES.index(k): by_size
                           for k, by_size in (desc.get("size_tiers") or {}).items()}
        self.pure_step = desc.get("pure_step") or 0
        self._actions = None

    @property
    def actions(self):
        """The action table (action index -> MOVE_DTYPE row), made once."""
        if self._actions is None:
            self._actions = ddzfast.action_moves(self.rules)
        return self._actions

    def beats(self, move, last) -> bool:
        """RULES.md 4 on identities: a higher tier; or the same ranked bomb
        tier and a higher rank (never a mixed LAIZI_BOMB over another); or,
        outside the bomb tiers, the same kind and length and a higher rank.
        PASS beats nothing."""
        row = np.zeros(1, dtype=ddzfast.MOVE_DTYPE)
        row["kind"], row["rank"], row["length"], row["cards"] = move
        return bool(self.beats_rows(row, last)[0])

    def tiers(self, kind, cards):
        """The tier of each move (arrays of kinds and packed cards), and
        whether it is a mixed LAIZI_BOMB."""
        kind = np.asarray(kind, dtype=np.int64)
        cards = np.asarray(cards, dtype=np.uint64)
        tier = self.tier[kind]
        mixed = np.zeros(len(kind), dtype=bool)
        if not self.size_tiers:
            return tier, mixed
        counts = (cards[:, None] >> (np.arange(16, dtype=np.uint64) * np.uint64(4))) \
            & np.uint64(15)
        size = counts.sum(axis=1).astype(np.int64)
        tier = tier.copy()
        for k, by_size in self.size_tiers.items():
            for n, t in by_size.items():
                tier[(kind == k) & (size == n)] = t
        laizi_bomb = kind == KIND_NAMES.index("LAIZI_BOMB")
        pure = np.zeros(len(kind), dtype=bool)
        for r in self.wild_ranks:
            pure |= counts[:, r].astype(np.int64) == size
        tier[laizi_bomb & pure] += self.pure_step
        return tier, laizi_bomb & ~pure

    def beats_rows(self, rows, last) -> np.ndarray:
        """beats() over MOVE_DTYPE rows."""
        kind, rank, length = (rows["kind"].astype(np.int64), rows["rank"].astype(np.int64),
                              rows["length"].astype(np.int64))
        lk, lr, ln = last[0], last[1], last[2]
        tm, mixed = self.tiers(kind, rows["cards"])
        tp, last_mixed = self.tiers([lk], [last[3]])
        tp, last_mixed = tp[0], bool(last_mixed[0])
        out = tm > tp
        if tp > 0:
            out |= ((tm == tp) & self.ranked[kind] & bool(self.ranked[lk]) & (rank > lr)
                    & ~mixed & (not last_mixed))
        else:
            out |= (tm == 0) & (kind == lk) & (length == ln) & (rank > lr)
        return out & (kind != 0)

    def score(self, landlord_won: bool, landlord: int, base: int, mult: int) -> tuple:
        """RULES.md 6: the scores of the three seats for a final multiplier."""
        unit = float(base) * float(mult)
        scores = []
        for seat in range(3):
            if seat == landlord:
                s = 2 * unit if landlord_won else -2 * unit
            else:
                s = -unit if landlord_won else unit
            if s > 0:
                s -= s * self.service_fee
            if self.deal_cap:
                s = max(-self.deal_cap, min(self.deal_cap, s))
            scores.append(s)
        return tuple(scores)


# ---- the model of a deal -------------------------------------------------------

class Deal:
    """A deal in plain Python (RULES.md 5 and 6), independent of the core."""

    def __init__(self, data: RuleData):
        self.data = data
        self.seed = None            # the deal's seed (None: not dealt from one)
        self.sampleable = False     # every card of the deck is in play (a deal)
        self.first_bidder = None
        self.phase = "play"
        self.hands = [[0] * 16 for _ in range(3)]
        self.kitty = [0] * 16
        self.offstage = [0] * 16    # from_position: the last move's cards
        self.prior_moves = [0] * 3  # from_position: its move to beat, a play
        self.prior_kinds = []       # ... whose kind multiplies as a play's
                                    # of its seat (RULES.md 6's springs)
        self.total = [0] * 16       # the cards of the deal, for conservation
        self.bids = []
        self.landlord = None
        self.base = 0
        self.to_move = None
        self.last = None            # identity of the move to beat
        self.last_seat = None
        self.passes = 0
        self.history = []           # (seat, identity)
        self.winner = None
        self.undo_stack = []        # (Deal, position key before the step)

    def clone(self) -> "Deal":
        other = copy.copy(self)
        other.hands = [list(h) for h in self.hands]
        other.kitty = list(self.kitty)
        other.bids = list(self.bids)
        other.history = list(self.history)
        other.undo_stack = list(self.undo_stack)
        return other

    # --- derived ---
    @property
    def high_bid(self) -> int:
        return max([p for _, p in self.bids], default=0)

    def legal_bids(self) -> list:
        if self.phase != "bidding":
            return []
        return [0] + list(range(self.high_bid + 1, 4))

    def moves_by(self, seat) -> int:
        return self.prior_moves[seat] + sum(1 for s, m in self.history
                                            if s == seat and m[0] != 0)

    def played(self, seat) -> list:
        out = [0] * 16
        for s, m in self.history:
            if s == seat:
                out = add(out, unpack(m[3]))
        return out

    @property
    def multiplier(self) -> int:
        mult = 1
        for kind in self.prior_kinds + [m[0] for _, m in self.history]:
            mult *= self.data.factor[kind]
        return mult

    @property
    def bombs(self) -> int:
        return sum(1 for kind in self.prior_kinds + [m[0] for _, m in self.history]
                   if self.data.tier[kind] > 0)

    def result(self):
        """(winner, winner_seat, landlord, base, multiplier, spring, anti, scores,
        stakes): without platform options each farmer's stake is base * mult,
        the landlord's their sum."""
        if self.phase != "done":
            return None
        ll = self.landlord
        landlord_won = self.winner == ll
        spring = landlord_won and self.moves_by((ll + 1) % 3) == 0 \
            and self.moves_by((ll + 2) % 3) == 0
        anti = not landlord_won and self.moves_by(ll) == 1
        mult = self.multiplier * (2 if spring or anti else 1)
        if self.data.mult_cap and mult > self.data.mult_cap:
            mult = self.data.mult_cap
        return ("landlord" if landlord_won else "farmers", self.winner, ll, self.base,
                mult, spring, anti, self.data.score(landlord_won, ll, self.base, mult),
                tuple(float((2 if s == ll else 1) * self.base * mult) for s in range(3)))

    def w_only(self, seat) -> bool:
        hand = self.hands[seat]
        return sum(hand) > 0 and sum(hand) == hand[W]

    # --- steps ---
    def push(self, key):
        self.undo_stack.append((self.clone(), key))

    def bid(self, points: int):
        assert self.phase == "bidding"
        assert points == 0 or self.high_bid < points <= 3, (points, self.bids)
        seat = self.to_move
        self.bids.append((seat, points))
        if points == 3 or len(self.bids) == 3:
            high = [(p, s) for s, p in self.bids if p > 0]
            if high:
                base, landlord = max(high)
            else:                      # everyone passed: the first bidder, base 1
                base, landlord = 1, self.first_bidder
            self.start_play(landlord, base)
        else:
            self.to_move = (seat + 1) % 3

    def start_play(self, landlord, base):
        self.landlord, self.base = landlord, base
        self.hands[landlord] = add(self.hands[landlord], self.kitty)
        self.phase = "play"
        self.to_move = landlord

    def play(self, move):
        """The seat to move plays ``move`` (an identity), checked by the model."""
        assert self.phase == "play"
        seat = self.to_move
        kind, rank, length, cards = move
        if kind == 0:
            assert cards == 0 and rank == 0 and length == 0
            if self.last is None:
                # a free lead passes only with a hand of nothing but W
                assert self.w_only(seat), f"seat {seat} passed a free lead"
            else:
                self.passes += 1
                if self.passes == 2:
                    # the seat after two passes is the one that played last
                    assert (seat + 1) % 3 == self.last_seat
                    self.last, self.last_seat, self.passes = None, None, 0
            self.history.append((seat, move))
            self.to_move = (seat + 1) % 3
            return
        counts = unpack(cards)
        assert within(counts, self.hands[seat]), \
            f"{text_of(counts)} is not in seat {seat}'s {text_of(self.hands[seat])}"
        if self.last is not None:
            assert self.data.beats(move, self.last), f"{move} does not beat {self.last}"
        self.hands[seat] = sub(self.hands[seat], counts)
        self.last, self.last_seat, self.passes = move, seat, 0
        self.history.append((seat, move))
        if sum(self.hands[seat]) == 0:
            self.phase, self.winner, self.to_move = "done", seat, None
        else:
            self.to_move = (seat + 1) % 3

    # --- conservation ---
    def check_cards(self):
        held = [0] * 16
        for h in self.hands:
            held = add(held, h)
        for s in range(3):
            held = add(held, self.played(s))
        if self.phase == "bidding":
            held = add(held, self.kitty)
        held = add(held, self.offstage)
        assert held == self.total, f"cards not conserved: {text_of(held)} != {text_of(self.total)}"
        assert within(self.total, self.data.deck)
        if self.sampleable:
            assert self.total == self.data.deck
        if self.phase != "bidding":
            assert self.landlord is not None
            for f in ((self.landlord + 1) % 3, (self.landlord + 2) % 3):
                # the kitty went to the landlord: no farmer holds or played more
                # than the deck less the kitty
                assert within(add(add(self.hands[f], self.played(f)), self.kitty),
                              self.data.deck)


# ---- the game against the model -----------------------------------------------

def freeze(game: Game) -> tuple:
    """What an illegal input or a rollout must leave as it was."""
    return (game.position_key(), [(s, ident(m)) for s, m in game.history], game.bids,
            tuple(h.bits for h in game.hands), game.can_undo, game.phase, game.to_move,
            ident(game.last_move), game.last_seat, game.multiplier, game.kitty.bits,
            game.landlord, game.base, game.cards_left)


def check_game(game: Game, m: Deal):
    """The game equals the model: every attribute."""
    d = m.data
    assert game.phase == m.phase
    assert [list(h.counts) for h in game.hands] == m.hands, \
        (game.hands, [text_of(h) for h in m.hands])
    assert list(game.kitty.counts) == m.kitty
    assert game.cards_left == tuple(sum(h) for h in m.hands)
    assert game.to_move == m.to_move
    assert game.landlord == m.landlord
    assert game.base == m.base
    assert ident(game.last_move) == m.last
    assert game.last_seat == m.last_seat
    assert [(s, ident(mv)) for s, mv in game.history] == m.history
    assert game.bids == m.bids
    assert game.legal_bids() == m.legal_bids()
    assert game.multiplier == m.multiplier
    assert game.done == (m.phase == "done")
    assert game.can_undo == bool(m.undo_stack)
    assert game.seed == m.seed
    assert game.wild_rank == d.wild_rank
    assert game.rules.name == d.rules.name and game.rules.wild_rank == d.wild_rank
    res = game.result
    if m.phase == "done":
        assert res is not None
        assert tuple(res) == m.result(), (res, m.result())
    else:
        assert res is None
    m.check_cards()


# ---- observations and tensors -----------------------------------------------------

def enc_cards(counts) -> np.ndarray:
    """RULES' card encoding as written in OBSERVATION_LAYOUT: a 4 x 15 plane
    (row j, column i is 1 when more than j cards of index i), then the Ws."""
    out = np.zeros(61, dtype=np.float32)
    for i in range(15):
        for j in range(min(counts[i], 4)):
            out[j * 15 + i] = 1.0
    out[60] = counts[W]
    return out


def one_hot(n, i) -> np.ndarray:
    out = np.zeros(n, dtype=np.float32)
    if i is not None:
        out[i] = 1.0
    return out


def check_move_enc(block, move, d: RuleData, where):
    """A move encoding: its cards, 16 wild columns, a one-hot of its kind."""
    kinds = len(KIND_NAMES)
    assert block.shape == (61 + 16 + kinds,)
    if move is None:
        assert not block.any(), where
        return
    kind, _, _, cards = move
    counts = unpack(cards)
    assert np.array_equal(block[:61], enc_cards(counts)), where
    assert np.array_equal(block[61 + 16:], one_hot(kinds, kind)), where
    wild = block[61:61 + 16]
    if d.laizi:
        # how many laizi stand for each rank: at most the laizi the move holds
        assert wild.sum() <= sum(counts[r] for r in d.wild_ranks), where
    elif counts[W] == 0:
        assert not wild.any(), where
    else:
        assert wild.sum() == 1, where


def check_tensor(t: np.ndarray, seat: int, m: Deal):
    d = m.data
    L = ddzfast.OBSERVATION_LAYOUT
    assert t.shape == (ddzfast.OBSERVATION_SIZE,) and t.dtype == np.float32
    assert np.all(t <= ddzfast.OBSERVATION_HIGH) and np.all(t >= 0)

    def block(name):
        b = L[name]
        return t[b.offset:b.offset + b.size].reshape(b.shape)

    def rel(s):
        return None if s is None else (s - seat) % 3

    played = [m.played(s) for s in range(3)]
    assert np.array_equal(block("seat"), one_hot(3, seat))
    assert np.array_equal(block("phase"), one_hot(3, PHASES.index(m.phase)))
    assert np.array_equal(block("to_move"), one_hot(3, rel(m.to_move)))
    assert np.array_equal(block("hand"), enc_cards(m.hands[seat]))
    unseen = list(d.deck)
    for counts in [m.hands[seat]] + played:
        unseen = sub(unseen, counts)
    assert np.array_equal(block("unseen"), enc_cards(unseen))
    for k in range(3):
        s = (seat + k) % 3
        assert np.array_equal(block("played")[k], enc_cards(played[s]))
        assert np.array_equal(block("cards_left")[k], one_hot(22, min(sum(m.hands[s]), 21)))
        bid = dict(m.bids).get(s)
        assert np.array_equal(block("bids")[k], one_hot(5, 0 if bid is None else bid + 1))
    assert np.array_equal(block("landlord"), one_hot(3, rel(m.landlord)))
    assert np.array_equal(block("base"), one_hot(4, m.base))
    shown = m.phase != "bidding"
    assert np.array_equal(block("kitty"), enc_cards(m.kitty) if shown else np.zeros(61))
    assert block("kitty_shown")[0] == float(shown)
    check_move_enc(block("last_move"), m.last, d, "last_move")
    assert np.array_equal(block("last_seat"), one_hot(3, rel(m.last_seat)))
    assert block("bombs")[0] == m.bombs
    assert math.isclose(block("multiplier")[0], math.log2(m.multiplier), rel_tol=1e-6)
    history = block("history")
    recent = m.history[::-1][:ddzfast.HISTORY_MOVES]
    for j in range(ddzfast.HISTORY_MOVES):
        if j < len(recent):
            s, mv = recent[j]
            check_move_enc(history[j][:-3], mv, d, f"history row {j}")
            assert np.array_equal(history[j][-3:], one_hot(3, rel(s)))
        else:
            assert not history[j].any()
    # a rule set naming its wild ranks shows them all from the deal on
    wild = np.zeros(13, dtype=np.float32)
    wild[list(d.wild_ranks)] = 1.0
    assert np.array_equal(block("wild_rank"), wild)


def check_observation(obs, seat: int, m: Deal):
    assert obs.seat == seat
    assert obs.phase == m.phase
    assert list(obs.hand.counts) == m.hands[seat]
    assert obs.cards_left == tuple(sum(h) for h in m.hands)
    assert [list(h.counts) for h in obs.played] == [m.played(s) for s in range(3)]
    assert obs.landlord == m.landlord
    assert obs.base == m.base
    if m.phase == "bidding":
        assert obs.kitty is None
    else:
        assert list(obs.kitty.counts) == m.kitty
    assert obs.to_move == m.to_move
    assert ident(obs.last_move) == m.last
    assert obs.last_seat == m.last_seat
    assert list(obs.bids) == m.bids
    assert [(s, ident(mv)) for s, mv in obs.history] == m.history
    assert obs.multiplier == m.multiplier
    assert obs.rules.name == m.data.rules.name
    assert obs.wild_rank == m.data.wild_rank
    if m.first_bidder is not None:
        assert obs.first_bidder == m.first_bidder


# ---- starting states ------------------------------------------------------------

@st.composite
def starts(draw, rules: str):
    """A dealt game, or a position from shuffled cards (mid-trick sometimes)."""
    if draw(st.booleans()):
        return ("deal", draw(st.integers(0, 2 ** 64 - 1)), draw(st.booleans()),
                draw(st.integers(0, 2)))
    if draw(st.booleans()):
        cards = draw(st.permutations(DECKS[rules]))
    else:
        # whole ranks kept together: hands full of bombs, planes and chains,
        # so that bombs meet bombs of their own tier
        ranks = sorted(set(DECKS[rules]), key=CARDS.index)
        cards = "".join(r * DECKS[rules].count(r) for r in draw(st.permutations(ranks)))
    # a seat holding nothing but W (it can only pass, even when leading)
    w_seat = draw(st.sampled_from([None, 0, 1, 2])) if "W" in cards else None
    if w_seat is not None:
        cards = [c for c in cards if c != "W"]
    hands, pos = [], 0
    for seat in range(3):
        if seat == w_seat:
            hands.append("W")
            continue
        # short hands too: deals that end soon, with springs and anti-springs
        n = draw(st.one_of(st.integers(1, 4), st.integers(1, 17)))
        hands.append("".join(cards[pos:pos + n]))
        pos += n
    rest = cards[pos:]
    landlord = draw(st.integers(0, 2))
    base = draw(st.integers(1, 3))
    to_move = draw(st.one_of(st.none(), st.integers(0, 2)))
    mover = landlord if to_move is None else to_move
    last_move = last_seat = None
    if rest and draw(st.booleans()):
        k = draw(st.integers(1, min(8, len(rest))))
        leads = [mv for mv in ddzfast.legal_moves(Hand("".join(rest[:k]), rules), None, rules)
                 if mv.kind != MoveKind.PASS]
        if leads and draw(st.booleans()):
            # the move of the highest tier: a bomb when there is one
            top = max(get_rules(rules).tier(mv.kind) for mv in leads)
            leads = [mv for mv in leads if get_rules(rules).tier(mv.kind) == top]
        if leads:
            last_move = leads[draw(st.integers(0, len(leads) - 1))]
            last_seat = draw(st.sampled_from([s for s in range(3) if s != mover]))
    # the kitty was the landlord's: in its hand, or played before the position
    # (by the landlord: never in a farmer's move)
    pool = list(hands[landlord] + "".join(rest))
    if last_move is not None and last_seat != landlord:
        for c in str(last_move.cards):
            pool.remove(c)
    picks = draw(st.lists(st.integers(0, len(pool) - 1), unique=True,
                          max_size=min(len(pool), ddzfast.get_rules(rules).kitty))) \
        if pool else []
    kitty = "".join(pool[i] for i in picks)
    return ("position", hands, landlord, base, kitty, to_move, last_move, last_seat)


def not_in_hand(counts, d: RuleData, k: int):
    """A move of a rank the hand holds too few of (1, 2, 3 or 4 of it)."""
    ranks = [r for r in range(13) if counts[r] < 4 and r not in d.wild_ranks]
    r = ranks[k % len(ranks)]
    kind = ("SINGLE", "PAIR", "TRIPLE", "BOMB")[counts[r]]
    return Move(kind, r, 1, pack([counts[r] + 1 if i == r else 0 for i in range(16)]),
                rules=d.rules)


# ---- the machine ---------------------------------------------------------------

class GameMachine(RuleBasedStateMachine):
    """Game against Deal in one rule set (RULES, set by make_machine)."""

    RULES = None

    def __init__(self):
        super().__init__()
        self.data = DATA[self.RULES]
        self.game = None
        self.model = None
        self.orphans = []       # (game, model, steps to keep checking it)

    # --- start ---
    def start(self, start):
        d = self.data
        m = Deal(d)
        if start[0] == "deal":
            _, seed, bidding, first_bidder = start
            game = Game(d.name, seed=seed, bidding=bidding, first_bidder=first_bidder)
            hands = [list(h.counts) for h in game.hands]
            m.kitty = list(game.kitty.counts)
            assert sum(m.kitty) == d.kitty
            if not bidding:
                hands[0] = sub(hands[0], m.kitty)
            assert [sum(h) for h in hands] == [17, 17, 17]
            m.hands = hands
            m.total = list(d.deck)
            m.seed, m.sampleable, m.first_bidder = seed, True, first_bidder
            if bidding:
                m.phase, m.to_move = "bidding", first_bidder
            else:
                # RULES.md 5: without bidding, seat 0 is landlord with base 1
                m.start_play(0, 1)
        else:
            _, hands, landlord, base, kitty, to_move, last_move, last_seat = start
            game = Game.from_position(hands, d.name, landlord=landlord, base=base,
                                      kitty=kitty, to_move=to_move, last_move=last_move,
                                      last_seat=last_seat)
            m.hands = [counts_of_text(h) for h in hands]
            m.kitty = counts_of_text(kitty)
            m.landlord, m.base, m.phase = landlord, base, "play"
            m.to_move = landlord if to_move is None else to_move
            if last_move is not None:
                m.last, m.last_seat = ident(last_move), last_seat
                m.offstage = unpack(last_move.identity[3])
                m.prior_moves = [int(s == last_seat) for s in range(3)]
                m.prior_kinds = [m.last[0]]
                # the seat between last_seat and the seat to move has passed
                m.passes = 0 if m.to_move == (last_seat + 1) % 3 else 1
            m.total = list(m.offstage)
            for h in m.hands:
                m.total = add(m.total, h)
        self.game, self.model = game, m

    # --- helpers ---
    def adopt(self, new_game: Game):
        """Continue on ``new_game``; the old game is checked to stay as it was."""
        self.orphans = [(g, mm, n - 1) for g, mm, n in self.orphans if n > 1]
        self.orphans.append((self.game, self.model.clone(), 3))
        self.game = new_game

    def check_legal_moves(self, legal):
        """The core's legal moves against the model's view of legality."""
        d, m = self.data, self.model
        seat = m.to_move
        hand = m.hands[seat]
        arr = legal.array
        ids = row_idents(arr)
        assert len(set(ids)) == len(ids), "a move listed twice"
        assert len(ids) > 0
        cards = arr["cards"].astype(np.uint64)
        for i in range(16):
            assert np.all((cards >> np.uint64(4 * i)) & np.uint64(15) <= hand[i]), \
                "a legal move holds cards the hand does not"
        is_pass = arr["kind"] == 0
        leads = ddzfast.legal_moves(Hand(pack(hand), d.rules), None, d.rules).array
        if m.last is None:
            if m.w_only(seat):
                assert ids == [ident(PASS)], "a hand of only W leads by passing"
            else:
                assert not is_pass.any(), "PASS is legal on a free lead"
                assert set(ids) == set(row_idents(leads))
        else:
            assert is_pass.sum() == 1, "following, PASS is legal once"
            beating = leads[d.beats_rows(leads, m.last)]
            assert set(ids) - {ident(PASS)} == set(row_idents(beating)), \
                "the moves that follow are not those of the hand that beat the last move"

    def maybe_seat(self, with_seat):
        return self.model.to_move if with_seat else None

    def play_move(self, legal, i, how="move", with_seat=False):
        """The seat to move plays ``legal[i]``: as a Move, as its MOVE_DTYPE
        row, or (``how`` an int) by its action index."""
        g, m = self.game, self.model
        self.check_legal_moves(legal)
        move = legal[i]
        seat = m.to_move
        key = g.position_key()
        if how == "move":
            g.play(move, seat=self.maybe_seat(with_seat))
        elif how == "row":
            g.play(legal.array[i], seat=self.maybe_seat(with_seat))
        else:
            g.play_action(how, seat=self.maybe_seat(with_seat))
        m.push(key)
        m.play(ident(move))
        assert g.history[-1][0] == seat and ident(g.history[-1][1]) == ident(move)

    def playing(self):
        return self.model.phase == "play"

    def bidding(self):
        return self.model.phase == "bidding"

    # --- rules ---
    @precondition(lambda self: self.bidding())
    @rule(k=st.integers(0, 3), with_seat=st.booleans())
    def bid(self, k, with_seat):
        g, m = self.game, self.model
        legal = g.legal_bids()
        assert legal == m.legal_bids()
        points = legal[k % len(legal)]
        key = g.position_key()
        g.bid(points, seat=self.maybe_seat(with_seat))
        m.push(key)
        m.bid(points)

    @precondition(lambda self: self.playing())
    @rule(k=st.integers(0, 2 ** 16), how=st.sampled_from(["move", "row"]),
          with_seat=st.booleans())
    def play(self, k, how, with_seat):
        legal = self.game.legal_moves()
        self.play_move(legal, k % len(legal), how, with_seat)

    @precondition(lambda self: self.playing())
    @rule(k=st.integers(0, 2 ** 16), dtype=st.sampled_from([int, np.int32, np.int64]),
          with_seat=st.booleans())
    def play_action(self, k, dtype, with_seat):
        g = self.game
        legal = g.legal_moves()
        indices = g.legal_action_indices()
        assert len(indices) == len(legal)
        i = k % len(legal)
        self.play_move(legal, i, dtype(indices[i]), with_seat)

    @precondition(lambda self: self.playing())
    @rule(steps=st.integers(1, 40), seed=st.integers(0, 2 ** 32))
    def play_on(self, steps, seed):
        """Several plays, mostly the move of most cards: deals reach their end."""
        rng = random.Random(seed)
        for _ in range(steps):
            if not self.playing():
                break
            legal = self.game.legal_moves()
            if rng.random() < 0.8:
                i = max(range(len(legal)), key=lambda j: len(legal[j].cards))
            else:
                i = rng.randrange(len(legal))
            self.play_move(legal, i, rng.choice(["move", "row"]), rng.random() < 0.5)
            check_game(self.game, self.model)

    @precondition(lambda self: bool(self.model.undo_stack))
    @rule()
    def undo(self):
        g, m = self.game, self.model
        assert g.can_undo
        g.undo()
        self.model, key = m.undo_stack[-1]
        assert g.position_key() == key

    @rule(how=st.sampled_from(["copy", "copy.copy", "copy.deepcopy"]))
    def copy(self, how):
        g = self.game
        twin = {"copy": g.copy, "copy.copy": lambda: copy.copy(g),
                "copy.deepcopy": lambda: copy.deepcopy(g)}[how]()
        assert twin is not g
        check_game(twin, self.model)
        self.adopt(twin)

    @rule(protocol=st.integers(0, pickle.HIGHEST_PROTOCOL))
    def pickle_round_trip(self, protocol):
        loaded = pickle.loads(pickle.dumps(self.game, protocol))
        check_game(loaded, self.model)
        assert loaded.position_key() == self.game.position_key()
        self.adopt(loaded)

    @rule(seat=st.sampled_from([None, 0, 1, 2]), use_out=st.booleans())
    def observe(self, seat, use_out):
        g, m = self.game, self.model
        if seat is None and m.phase == "done":
            # no seat is to move: both want the seat named
            for observe in (g.observation, g.observation_tensor):
                with pytest.raises(ValueError, match="no seat is to move"):
                    observe()
            seat = 0
        obs = g.observation(seat)
        who = obs.seat
        if seat is not None:
            assert who == seat
        else:
            assert who == m.to_move
        check_observation(obs, who, m)
        if use_out:
            out = np.full(ddzfast.OBSERVATION_SIZE, 7.0, dtype=np.float32)
            t = g.observation_tensor(seat, out=out)
            assert t is out
        else:
            t = g.observation_tensor(seat)
        check_tensor(t, who, m)
        for s in range(3):
            batch = ddzfast.observation_tensors([g], s)
            check_tensor(batch[0], s, m)

    @rule(use_out=st.sampled_from([None, np.bool_, np.uint8, np.int8]))
    def masks(self, use_out):
        g, d = self.game, self.data
        if use_out is None:
            mask = g.legal_action_mask()
        else:
            out = np.ones(ddzfast.action_count(d.rules), dtype=use_out)
            mask = g.legal_action_mask(out=out)
            assert mask is out
        indices = g.legal_action_indices()
        assert indices.dtype == np.int32
        assert mask.shape == (ddzfast.action_count(d.rules),)
        if not self.playing():
            assert not mask.any() and len(indices) == 0
            assert len(g.legal_moves()) == 0
            return
        legal = g.legal_moves()
        self.check_legal_moves(legal)
        assert np.array_equal(np.flatnonzero(mask), np.sort(indices))
        assert len(set(indices.tolist())) == len(indices) == len(legal)
        assert row_idents(d.actions[indices]) == row_idents(legal.array)

    @rule(policies=st.sampled_from(["greedy", "random", ("random", "greedy", "random")]),
          seed=st.one_of(st.none(), st.integers(0, 2 ** 64 - 1)))
    def rollout(self, policies, seed):
        g, m, d = self.game, self.model, self.data
        before = freeze(g)
        res = g.rollout(policies, seed)
        assert freeze(g) == before, "rollout changed the game"
        if seed is not None:
            assert g.rollout(policies, seed) == res, "a seeded rollout is not repeatable"
        assert res.winner in ("landlord", "farmers")
        assert res.winner_seat in (0, 1, 2) and res.landlord in (0, 1, 2)
        assert (res.winner_seat == res.landlord) == (res.winner == "landlord")
        assert not (res.spring and res.anti_spring)
        assert not res.spring or res.winner == "landlord"
        assert not res.anti_spring or res.winner == "farmers"
        if m.phase != "bidding":
            assert (res.landlord, res.base) == (m.landlord, m.base)
            f1, f2 = (m.landlord + 1) % 3, (m.landlord + 2) % 3
            if m.moves_by(f1) + m.moves_by(f2):
                assert not res.spring
            if m.moves_by(m.landlord) >= 2:
                assert not res.anti_spring
        else:
            assert 1 <= res.base <= 3
        # the multiplier: what was played so far times the rest, spring, the cap
        assert res.multiplier >= 1
        if not (d.mult_cap and res.multiplier == d.mult_cap):
            assert res.multiplier % m.multiplier == 0
            if res.spring or res.anti_spring:
                assert res.multiplier % (2 * m.multiplier) == 0
        if d.mult_cap:
            assert res.multiplier <= d.mult_cap
        assert res.scores == d.score(res.winner == "landlord", res.landlord, res.base,
                                     res.multiplier)
        assert sum(res.scores) == 0.0
        if m.phase == "done":
            assert tuple(res) == m.result()

    @precondition(lambda self: self.model.sampleable and self.model.phase != "done")
    @rule(seat=st.integers(0, 2), seed=st.integers(0, 2 ** 32), switch=st.booleans())
    def sample(self, seat, seed, switch):
        g, m = self.game, self.model
        obs = g.observation(seat)
        world = obs.sample(seed)
        hands = [list(h.counts) for h in world.hands]
        assert hands[seat] == m.hands[seat]
        assert world.cards_left == g.cards_left
        w = m.clone()
        w.undo_stack = []
        w.seed = None
        if m.phase == "bidding":
            w.kitty = list(world.kitty.counts)
            assert sum(w.kitty) == sum(m.kitty)
        elif seat != m.landlord:
            # the kitty the landlord has not visibly played is still its own
            kept = [max(0, k - p) for k, p in zip(m.kitty, m.played(m.landlord))]
            assert within(kept, hands[m.landlord])
        w.hands = hands
        check_game(world, w)        # cards conserved: the world deals the whole deck
        check_observation(world.observation(seat), seat, w)
        for protocol in (2, pickle.HIGHEST_PROTOCOL):
            loaded = pickle.loads(pickle.dumps(world, protocol))
            check_game(loaded, w)
            assert loaded.position_key() == world.position_key()
        if switch:
            self.adopt(world)
            self.model = w

    @rule(k=st.integers(0, 2 ** 16), choice=st.integers(0, 2 ** 16))
    def illegal(self, k, choice):
        g = self.game
        cases = self.illegal_inputs(k)
        name, call, errors = cases[choice % len(cases)]
        before = freeze(g)
        with pytest.raises(errors):
            call()
        assert freeze(g) == before, f"{name} changed the game"

    def illegal_inputs(self, k):
        """(name, call, exception types) of inputs the game must refuse now."""
        g, m, d = self.game, self.model, self.data
        other = ((m.to_move if m.to_move is not None else 0) + 1 + k % 2) % 3
        bad = (ValueError, TypeError)
        cases = [
            ("observation of seat 3", lambda: g.observation(3), ValueError),
            ("observation of seat '1'", lambda: g.observation("1"), TypeError),
            ("observation_tensor into a short buffer",
             lambda: g.observation_tensor(out=np.zeros(5, np.float32)), bad),
            ("observation_tensor into float64",
             lambda: g.observation_tensor(out=np.zeros(ddzfast.OBSERVATION_SIZE)), bad),
            ("legal_action_mask into a short buffer",
             lambda: g.legal_action_mask(out=np.zeros(5, bool)), bad),
            ("rollout with an unknown policy", lambda: g.rollout("nope"), ValueError),
            ("rollout with two policies", lambda: g.rollout(("greedy", "random")), ValueError),
            ("rollout with seed -1", lambda: g.rollout(seed=-1), ValueError),
        ]
        if not m.undo_stack:
            cases.append(("undo with nothing to undo", g.undo, ValueError))
        if m.phase == "bidding":
            high = m.high_bid
            for b in [4, -1, 2 ** 70] + list(range(1, high + 1)):
                cases.append((f"bid {b}", lambda b=b: g.bid(b), ValueError))
            for b in ["1", 1.0, None, True]:
                cases.append((f"bid {b!r}", lambda b=b: g.bid(b), bad))
            cases += [
                ("bid out of turn", lambda: g.bid(0, seat=other), ValueError),
                ("bid as seat 3", lambda: g.bid(0, seat=3), ValueError),
                ("play while bidding", lambda: g.play(PASS), ValueError),
                ("play a card while bidding",
                 lambda: g.play(ddzfast.classify(Hand(CARDS[next(
                     i for i in range(16) if m.hands[m.to_move][i])], d.rules), d.rules)[0]),
                 ValueError),
                ("play_action while bidding", lambda: g.play_action(1), ValueError),
                ("policy_move while bidding", lambda: g.policy_move(), ValueError),
            ]
        elif m.phase == "play":
            seat = m.to_move
            hand = m.hands[seat]
            legal = g.legal_moves()
            count = ddzfast.action_count(d.rules)
            cases += [
                ("bid while playing", lambda: g.bid(0), ValueError),
                ("bid 3 while playing", lambda: g.bid(3), ValueError),
                ("policy_bid while playing", lambda: g.policy_bid(), ValueError),
                ("play a move not in the hand",
                 lambda: g.play(not_in_hand(hand, d, k)), ValueError),
                ("play out of turn", lambda: g.play(legal[k % len(legal)], seat=other),
                 ValueError),
                ("play as seat 3", lambda: g.play(legal[0], seat=3), ValueError),
                ("play a str", lambda: g.play(text_of(hand)[:1]), TypeError),
                ("play None", lambda: g.play(None), TypeError),
                ("play_action out of turn",
                 lambda: g.play_action(int(g.legal_action_indices()[k % len(legal)]),
                                       seat=other), ValueError),
                ("play_action True", lambda: g.play_action(True), TypeError),
                ("play_action 1.0", lambda: g.play_action(1.0), TypeError),
                # documented: IndexError for an index out of range
                ("play_action out of range", lambda: g.play_action(count), IndexError),
                ("play_action -1", lambda: g.play_action(-1), IndexError),
            ]
            legal_set = set(g.legal_action_indices().tolist())
            rng = random.Random(k)
            for _ in range(4):
                a = rng.randrange(count)
                if a not in legal_set:
                    cases.append((f"play_action {a} (not legal now)",
                                  lambda a=a: g.play_action(a), ValueError))
                    break
            if m.last is None and not m.w_only(seat):
                cases.append(("PASS on a free lead", lambda: g.play(PASS), ValueError))
            if m.last is not None:
                leads = ddzfast.legal_moves(Hand(pack(hand), d.rules), None, d.rules)
                losing = [i for i, ok in enumerate(d.beats_rows(leads.array, m.last))
                          if not ok and leads[i].kind != MoveKind.PASS]
                if losing:
                    mv = leads[losing[k % len(losing)]]
                    cases.append((f"{mv} does not beat the last move",
                                  lambda: g.play(mv), ValueError))
        else:
            cases += [
                ("play when done", lambda: g.play(PASS), ValueError),
                ("play_action when done", lambda: g.play_action(0), ValueError),
                ("bid when done", lambda: g.bid(0), ValueError),
                ("policy_move when done", lambda: g.policy_move(), ValueError),
            ]
        return cases

    # --- invariants ---
    @invariant()
    def game_equals_model(self):
        if self.game is None:
            return
        check_game(self.game, self.model)
        if self.playing():
            self.check_legal_moves(self.game.legal_moves())
        key = self.game.position_key()
        assert self.game.copy().position_key() == key
        assert pickle.loads(pickle.dumps(self.game)).position_key() == key
        for old, model, _ in self.orphans:
            # a game left behind by copy or pickle is as it was
            check_game(old, model)


DATA = {name: RuleData(name) for name in RULE_SETS}


def make_machine(rules: str):
    """The state machine of one rule set."""

    class Machine(GameMachine):
        RULES = rules

        @initialize(start=starts(rules))
        def begin(self, start):
            self.start(start)

    Machine.__name__ = Machine.__qualname__ = f"GameMachine_{rules.replace(':', '_')}"
    return Machine


MACHINES = {name: make_machine(name) for name in RULE_SETS}


@pytest.mark.parametrize("rules", RULE_SETS)
def test_game_against_model(rules):
    run_state_machine_as_test(MACHINES[rules], settings=SETTINGS)
