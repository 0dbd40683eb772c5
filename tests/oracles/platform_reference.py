"""An independent model of RULES.md section 10 (platform play): the order and
the legal choices of every decision of a deal (showing, call/rob or point
bidding, the landlord's show, doubling), the settlement recomputed from a
deal's public record, and the no-shuffle dealing procedure with the engine's
splitmix64 stream.

Nothing here imports ``ddzfast``: a hand is a tuple of 16 counts (card indices
``3 4 5 6 7 8 9 T J Q K A 2 X D W`` = 0..15), seats are 0, 1, 2.

* ``SplitMix64(seed)``: ``next()`` and ``below(n) = next() % n``, the stream
  the engine deals and draws with (its state starts at the seed).
* ``DealModel(options, first_bidder, bidding)``: the decisions of one deal as
  RULES.md 5 and 10 order them. ``phase``, ``to_move`` and ``legal()`` say what
  the engine must offer; ``choose(x)`` applies a choice and returns
  ``"redeal"`` when nobody called and the deal is redealt (the caller then
  checks the engine's new cards), else None. Once ``phase == "play"`` it
  holds ``landlord``, ``base``, ``robs``, ``shown``, ``doubles``, ``redeals``.
* ``rob_bidding(first_bidder, choices)``: a whole call/rob sequence at once.
* ``show_multiplier(shown)``: 4, 2 or 1 (the largest chosen, not a product).
* ``settle(...)``: P, spring, anti-spring, the stakes and the scores.
* ``no_shuffle_pile(...)``, ``swap_and_cut(...)``, ``deal_pile(...)`` and
  ``next_deal_hands(...)``: the next deal of a no-shuffle session.
"""
from __future__ import annotations

from typing import List, NamedTuple, Optional, Sequence, Tuple

Counts = Tuple[int, ...]

MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
#: the number of redeals in a row after which the first bidder is landlord
MAX_REDEALS = 100

SHOW_PHASES = ("show", "landlord_show")
BEFORE_BIDDING = "before_bidding"
BEFORE_PLAY = "before_play"


# ---- the random stream ------------------------------------------------------------

class SplitMix64:
    """splitmix64 as RULES.md/the engine use it: the state starts at the seed
    and each draw adds the golden gamma first."""

    def __init__(self, seed: int):
        self.state = seed & MASK64

    def next(self) -> int:
        self.state = (self.state + GOLDEN) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        return self.next() % n


def deal_seed(seed: int, index: int) -> int:
    """The seed of deal ``index`` of a run seeded ``seed`` (the engine's
    ``deal_seed``, restated: two draws from ``seed ^ index * C``)."""
    rng = SplitMix64(seed ^ ((index * 0xD1B54A32D192ED03) & MASK64))
    rng.next()
    return rng.next()


def shuffled_deal(seed: int, wildcard: bool, kitty: int):
    """The hands and kitty of a shuffled deal as the engine deals it today
    (Fisher-Yates from the top with ``below(i + 1)``, card ``i`` of the
    shuffled deck to seat ``i % 3`` for the first 51, the rest to the kitty),
    and the stream after it: a check that this model's stream is the
    engine's."""
    deck = [r for r in range(13) for _ in range(4)] + [13, 14] + ([15] if wildcard else [])
    rng = SplitMix64(seed)
    for i in range(len(deck) - 1, 0, -1):
        j = rng.below(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    hands = [[0] * 16 for _ in range(3)]
    rest = [0] * 16
    for i, card in enumerate(deck):
        if i < 51:
            hands[i % 3][card] += 1
        else:
            rest[card] += 1
    assert sum(rest) == kitty
    return tuple(tuple(h) for h in hands), tuple(rest), rng


# ---- the decisions of a deal -----------------------------------------------------

class Options(NamedTuple):
    """The section 10 options of a rule set (as ``Rules.with_options`` takes
    them)."""
    bidding: str = "points"            # "points" or "rob"
    no_call: str = "redeal"            # "redeal" or "first"
    rob_base: int = 1
    show: bool = False
    doubling: object = False           # False, True or "after_farmer"
    cap: Optional[int] = None


#: the options of the "+happy" preset
HAPPY = Options(bidding="rob", show=True, doubling=True, cap=64)


def show_multiplier(shown: Sequence[Optional[str]]) -> int:
    """The show multiplier of RULES.md 10: the largest chosen (x4 before
    bidding, x2 by the landlord before play), 1 when nobody showed; never a
    product."""
    if BEFORE_BIDDING in shown:
        return 4
    if BEFORE_PLAY in shown:
        return 2
    return 1


class DealModel:
    """The decisions of one deal, phase by phase (see the module docstring).

    ``calls`` is the bidding record of the current deal (after a redeal it
    starts again; ``all_calls`` keeps every call since the deal began)."""

    def __init__(self, options: Options, first_bidder: int = 0, bidding: bool = True):
        self.o = options
        self.first_bidder = first_bidder
        self.bidding = bidding
        self.redeals = 0
        self.all_calls: List[Tuple[int, int]] = []
        self._restart()

    # -- state --
    def _restart(self):
        self.shown: List[Optional[str]] = [None, None, None]
        self.doubles: List[Optional[int]] = [None, None, None]
        self.calls: List[Tuple[int, int]] = []
        self.robs = 0
        self.landlord: Optional[int] = None
        self.base = 0
        self._queue: List[int] = []
        # rob bidding
        self._passed: set = set()
        self._caller: Optional[int] = None
        self._last: Optional[int] = None
        self._robbed = False
        self._final = False
        # point bidding
        self._high = 0
        self._high_bidder: Optional[int] = None
        self._bids_made = 0
        if self.o.show:
            self.phase = "show"
            self._queue = [(self.first_bidder + k) % 3 for k in range(3)]
        else:
            self._begin_bidding()

    def _begin_bidding(self):
        if not self.bidding:
            self._landlord_is(0, self.o.rob_base if self.o.bidding == "rob" else 1)
            return
        self.phase = "bidding"
        self._queue = [self.first_bidder]

    def _landlord_is(self, seat: int, base: int):
        self.landlord, self.base = seat, base
        if self.o.show and self.shown[seat] is None:
            self.phase = "landlord_show"
            self._queue = [seat]
        else:
            self._begin_doubling()

    def _begin_doubling(self):
        if self.o.doubling:
            self.phase = "doubling"
            self._queue = [(self.landlord + 1) % 3, (self.landlord + 2) % 3, self.landlord]
        else:
            self.phase = "play"
            self._queue = []

    @property
    def to_move(self) -> Optional[int]:
        return self._queue[0] if self._queue else None

    @property
    def show_multiplier(self) -> int:
        return show_multiplier(self.shown)

    @property
    def multiplier(self) -> int:
        """The public multiplier of the decisions so far (bombs come on top)."""
        return 2 ** self.robs * self.show_multiplier

    def legal(self) -> List[int]:
        if self.phase in SHOW_PHASES:
            return [0, 1]
        if self.phase == "bidding":
            if self.o.bidding == "rob":
                return [0, 1]
            return [0] + [b for b in (1, 2, 3) if b > self._high]
        if self.phase == "doubling":
            return [1, 2, 4]
        return []

    # -- choices --
    def choose(self, x: int):
        if x not in self.legal():
            raise ValueError(f"{x} is not legal in {self.phase}: {self.legal()}")
        seat = self.to_move
        if self.phase == "show":
            if x:
                self.shown[seat] = BEFORE_BIDDING
            self._queue.pop(0)
            if not self._queue:
                self._begin_bidding()
            return None
        if self.phase == "landlord_show":
            if x:
                self.shown[seat] = BEFORE_PLAY
            self._begin_doubling()
            return None
        if self.phase == "doubling":
            self.doubles[seat] = x
            self._queue.pop(0)
            if self.o.doubling == "after_farmer" and self._queue == [self.landlord] \
                    and all(self.doubles[f] == 1 for f in self.farmers):
                self._queue = []            # the landlord's turn is skipped: factor 1
            if not self._queue:
                self.phase = "play"
            return None
        # bidding
        self.calls.append((seat, x))
        self.all_calls.append((seat, x))
        if self.o.bidding == "rob":
            return self._rob_step(seat, x)
        return self._points_step(seat, x)

    @property
    def farmers(self) -> Tuple[int, int]:
        return ((self.landlord + 1) % 3, (self.landlord + 2) % 3)

    def _points_step(self, seat, points):
        self._bids_made += 1
        if points > self._high:
            self._high, self._high_bidder = points, seat
        if points == 3 or self._bids_made == 3:
            if self._high_bidder is None:
                self._landlord_is(self.first_bidder, 1)
            else:
                self._landlord_is(self._high_bidder, self._high)
        else:
            self._queue = [(seat + 1) % 3]
        return None

    def _rob_step(self, seat, x):
        if self._caller is None:                      # step 1: call or pass
            if x:
                self._caller = self._last = seat
                # step 2: the two others from the caller's next seat, once;
                # a seat that passed the call is skipped
                self._queue = [s for s in ((seat + 1) % 3, (seat + 2) % 3)
                               if s not in self._passed]
                if not self._queue:
                    self._landlord_is(seat, self.o.rob_base)
                return None
            self._passed.add(seat)
            if len(self._passed) < 3:
                self._queue = [(seat + 1) % 3]
                return None
            # step 5: nobody called
            if self.o.no_call == "first" or self.redeals >= MAX_REDEALS:
                self._landlord_is(self.first_bidder, self.o.rob_base)
                return None
            self.redeals += 1
            self._restart()
            return "redeal"
        if x:
            self.robs += 1
            self._robbed = True
            self._last = seat
        self._queue.pop(0)
        if not self._queue and self._robbed and not self._final:
            self._final = True                        # step 3: the caller's last rob
            self._queue = [self._caller]
        if not self._queue:
            self._landlord_is(self._last, self.o.rob_base)   # step 4
        return None


def rob_bidding(first_bidder: int, choices: Sequence[int], no_call: str = "redeal"):
    """A whole call/rob sequence: ``(landlord, robs, seats)`` where ``seats``
    lists who made each choice; landlord None when nobody called (a redeal).
    Raises ValueError when ``choices`` is too short or too long."""
    model = DealModel(Options(bidding="rob", no_call=no_call), first_bidder)
    seats = []
    for k, x in enumerate(choices):
        if model.phase != "bidding":
            raise ValueError(f"bidding was over after {k} choices")
        seats.append(model.to_move)
        if model.choose(x) == "redeal":
            if k != len(choices) - 1:
                raise ValueError("choices after a redeal")
            return None, 0, seats
    if model.phase == "bidding":
        raise ValueError("bidding is not over")
    return model.landlord, model.robs, seats


# ---- settlement ------------------------------------------------------------------

class Settlement(NamedTuple):
    multiplier: int            # P: robs, show, bombs, spring/anti-spring (mult_cap applied)
    spring: bool
    anti_spring: bool
    stakes: Tuple[float, float, float]   # a_f for each farmer, a_1 + a_2 for the landlord
    scores: Tuple[float, float, float]


def settle(*, landlord: int, base: int, robs: int, show_mult: int, factors: Sequence[int],
           moves_by: Sequence[int], winner_seat: int, doubles=(None, None, None),
           cap: Optional[int] = None, mult_cap: Optional[int] = None,
           service_fee: float = 0.0, deal_cap: Optional[float] = None) -> Settlement:
    """RULES.md 10's settlement from a deal's public record.

    ``factors``: the section 6 factor of every move played (1 for a plain
    move); ``moves_by``: non-pass moves per seat; ``doubles``: each seat's
    factor (None = 1). P = 2^robs * show * product(factors) * (2 on spring or
    anti-spring), then the rule set's ``mult_cap``; each farmer's stake
    ``a_f = base * min(P * d_f * d_L, cap)``; the landlord's ``a_1 + a_2``.
    The winner side gains, the other loses; then ``service_fee`` from each
    positive score and ``deal_cap`` clipping, as section 6."""
    landlord_won = winner_seat == landlord
    farmers = ((landlord + 1) % 3, (landlord + 2) % 3)
    spring = landlord_won and all(moves_by[f] == 0 for f in farmers)
    anti = (not landlord_won) and moves_by[landlord] == 1
    p = 2 ** robs * show_mult
    for f in factors:
        p *= f
    if spring or anti:
        p *= 2
    if mult_cap and p > mult_cap:
        p = mult_cap
    d = [1 if x is None else x for x in doubles]
    stakes = [0.0, 0.0, 0.0]
    for f in farmers:
        m = p * d[f] * d[landlord]
        if cap is not None:
            m = min(m, cap)
        stakes[f] = float(base * m)
    stakes[landlord] = stakes[farmers[0]] + stakes[farmers[1]]
    sign = 1.0 if landlord_won else -1.0
    scores = []
    for seat in range(3):
        s = sign * stakes[seat] if seat == landlord else -sign * stakes[seat]
        if s > 0:
            s -= s * service_fee
        if deal_cap:
            s = max(-deal_cap, min(deal_cap, s))
        scores.append(s)
    return Settlement(p, spring, anti, tuple(stakes), tuple(scores))


# ---- no-shuffle dealing ------------------------------------------------------------

def ascending(counts: Sequence[int]) -> List[int]:
    """The cards of a count vector as card indices, low to high."""
    return [i for i, c in enumerate(counts) for _ in range(c)]


def as_counts(cards: Sequence[int]) -> Counts:
    out = [0] * 16
    for c in cards:
        out[c] += 1
    return tuple(out)


def no_shuffle_pile(moves: Sequence[Tuple[int, Counts]], hands_left: Sequence[Counts],
                    kitty: Counts, landlord: int) -> List[int]:
    """The pile a finished deal leaves (RULES.md 10): every non-pass move in
    the order played (``moves``: (seat, counts)), each move's cards
    ascending; the cards left in seats 0, 1, 2, ascending, except the
    landlord's unplayed kitty cards (per index: the kitty's count less what
    the landlord played of it, at least 0), which go last, ascending."""
    pile: List[int] = []
    by_landlord = [0] * 16
    for seat, counts in moves:
        pile += ascending(counts)
        if seat == landlord:
            by_landlord = [a + b for a, b in zip(by_landlord, counts)]
    unplayed = [max(0, kitty[i] - by_landlord[i]) for i in range(16)]
    for seat in range(3):
        left = list(hands_left[seat])
        if seat == landlord:
            left = [a - b for a, b in zip(left, unplayed)]
            if min(left) < 0:
                raise ValueError("the landlord does not hold its unplayed kitty cards")
        pile += ascending(left)
    return pile + ascending(unplayed)


def swap_and_cut(pile: Sequence[int], seed: int, swaps: int = 5):
    """``swaps`` transpositions (``i = below(n)``, ``j = below(n - 1)``, ``j``
    moved past ``i``) and a cut at ``below(n)``, drawn from ``seed``'s stream;
    returns the new pile and the stream (a laizi deal draws its rank next)."""
    pile = list(pile)
    n = len(pile)
    rng = SplitMix64(seed)
    for _ in range(swaps):
        i = rng.below(n)
        j = rng.below(n - 1)
        if j >= i:
            j += 1
        pile[i], pile[j] = pile[j], pile[i]
    c = rng.below(n)
    return pile[c:] + pile[:c], rng


def deal_pile(pile: Sequence[int], first_bidder: int):
    """Blocks of 17 to the first bidder, the next seat and the one after; the
    rest is the kitty. Returns (hands as counts by seat, kitty counts)."""
    hands: List[Counts] = [(), (), ()]
    for k in range(3):
        hands[(first_bidder + k) % 3] = as_counts(pile[17 * k:17 * (k + 1)])
    return tuple(hands), as_counts(pile[51:])


def next_deal_hands(moves, hands_left, kitty, landlord, first_bidder, seed, swaps=5):
    """The hands and kitty of the next deal of a session after a finished deal
    whose first bidder was ``first_bidder``: dealt to ``(first_bidder + 1) %
    3`` first."""
    pile = no_shuffle_pile(moves, hands_left, kitty, landlord)
    pile, _ = swap_and_cut(pile, seed, swaps)
    return deal_pile(pile, (first_bidder + 1) % 3)
