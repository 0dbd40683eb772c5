"""A plain memoized minimax for open-hand endgames (RULES.md section 7), the
reference that tests/test_solve.py checks ddzfast.solve against.

No pruning, no ordering, no cut-offs: every legal move (from
ddzfast.legal_moves, itself checked against tests/oracles/reference.py) is searched,
and positions are memoized on (hands, seat to move, the identity (kind, rank,
length, cards) of the move to beat, the seat that played it). The cards are
part of the key, as the solver's reduction of them is what the oracle checks:
a tiandi bomb's size and purity (RULES.md section 9) decide what beats it.
"""
from __future__ import annotations

import functools

import ddzfast
from ddzfast import MoveKind

PASS = MoveKind.PASS


class Reference:
    """Values of the positions of one puzzle (rules, seats, landlord)."""

    def __init__(self, rules, nseats: int, landlord: int | None = None):
        self.rules = ddzfast.get_rules(rules)
        self.nseats = nseats
        self.landlord = landlord
        self._moves = functools.lru_cache(maxsize=None)(self._legal)
        self._cache: dict = {}

    def side(self, seat: int) -> int:
        if self.landlord is None:
            return seat
        return 0 if seat == self.landlord else 1

    def _legal(self, hand: int, trick):
        last = None if trick is None else trick[1]
        return tuple(ddzfast.legal_moves(hand, last, self.rules))

    def moves(self, hands, s, trick):
        """The legal moves of seat s; trick is None (s leads) or
        (key, last Move, last_seat)."""
        return self._moves(hands[s], None if trick is None else (trick[0], trick[1]))

    def child(self, hands, s, trick, m):
        """(hands, seat, trick) after s plays m, or None when m ends the deal."""
        ns = (s + 1) % self.nseats
        if m.kind == PASS:
            if trick is None:
                return hands, ns, None
            if ns == trick[2]:
                return hands, ns, None
            return hands, ns, trick
        left = hands[s] - int(m.cards)
        if left == 0:
            return None
        h = list(hands)
        h[s] = left
        return tuple(h), ns, (m.identity, m, s)

    def wins(self, hands, s, trick) -> bool:
        for m in self.moves(hands, s, trick):
            if self.move_wins(hands, s, trick, m):
                return True
        return False

    def move_wins(self, hands, s, trick, m) -> bool:
        """Whether seat s's side wins by playing m."""
        nxt = self.child(hands, s, trick, m)
        if nxt is None:
            return True
        h, ns, t = nxt
        v = self._memo(h, ns, t)
        return v if self.side(ns) == self.side(s) else not v

    def _memo(self, hands, s, trick):
        # the move to beat enters the key whole (its identity, cards
        # included): no reduction of it is taken on trust
        key = (hands, s, None if trick is None else (trick[0], trick[2]))
        v = self._cache.get(key)
        if v is None:
            v = self.wins(hands, s, trick)
            self._cache[key] = v
        return v


def reference_solve(hands, rules="classic", to_move=0, last=None, last_seat=None,
                    landlord=None):
    """(win, winning root moves as a set of identities) by plain minimax."""
    rules = ddzfast.get_rules(rules)
    bits = tuple(int(ddzfast.Hand(h) if isinstance(h, str) else h) for h in hands)
    ref = Reference(rules, len(bits), landlord)
    trick = None
    if last is not None:
        trick = (last.identity, last, last_seat)
    winners = {m.identity for m in ref.moves(bits, to_move, trick)
               if ref.move_wins(bits, to_move, trick, m)}
    return bool(winners), winners, ref


def replay(hands, line, rules="classic", to_move=0, last=None, last_seat=None,
           landlord=None):
    """Replay a line move by move, checking each is legal; the side that
    emptied a hand at the end (AssertionError when a move is illegal, or the
    line does not end the deal)."""
    rules = ddzfast.get_rules(rules)
    hands = [int(ddzfast.Hand(h) if isinstance(h, str) else h) for h in hands]
    n = len(hands)
    side = (lambda seat: seat) if landlord is None else (
        lambda seat: 0 if seat == landlord else 1)
    s, cur, ls = to_move, last, last_seat
    for i, m in enumerate(line):
        legal = ddzfast.legal_moves(hands[s], cur, rules)
        assert m in legal, f"move {i} ({m}) of seat {s} is not legal"
        nxt = (s + 1) % n
        if m.kind == PASS:
            if cur is not None and nxt == ls:
                cur, ls = None, None
            s = nxt
            continue
        hands[s] -= int(m.cards)
        if hands[s] == 0:
            assert i == len(line) - 1, "the line goes on after the deal ended"
            return side(s)
        cur, ls, s = m, s, nxt
    raise AssertionError("the line does not end the deal")
