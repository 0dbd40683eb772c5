"""DouZero's training environment, computed by ddzfast's core.

DouZero (https://github.com/kwai/DouZero) trains on ``douzero.env.Env``. This
module offers the same contract, so a DouZero training run changes one line,
in ``douzero/dmc/utils.py``::

    from douzero.env import Env            # before
    from ddzfast.compat.douzero import Env  # after

* ``Env(objective)``: ``objective`` is ``"wp"``, ``"adp"`` or ``"logadp"``.
* ``reset()`` deals as DouZero's ``Env.reset()`` does, by shuffling DouZero's
  54-card deck with ``np.random.shuffle`` (NumPy's global random state), so
  one ``np.random.seed`` gives both environments the same deal. The landlord
  gets ``deck[:20]``, ``landlord_up`` ``deck[20:37]``, ``landlord_down``
  ``deck[37:54]``. ``reset(card_play_data)`` starts from a given deal instead
  (DouZero's ``card_play_data`` dict; ``three_landlord_cards`` is not needed).
* ``step(action)`` returns ``(obs, reward, done, {})`` as DouZero's does:
  ``obs`` is None and ``reward`` the landlord's result when the deal ends
  (wp: +-1; adp: +-2**bombs; logadp: +-(bombs + 1)), else 0.0.
* An observation is the dict DouZero's ``get_obs`` builds (``position``,
  ``x_batch``, ``z_batch``, ``legal_actions``, ``x_no_action``, ``z``: the
  same keys, shapes, dtypes and values), filled in C.

Where it differs from DouZero, on purpose:

* ``legal_actions`` lists each card set once. DouZero's generator can list a
  card set several times (``333444555666`` as a plane and as a plane with
  kickers; a plane's or a four's kickers chosen from equal cards), with equal
  rows in ``x_batch``; here each appears once (and its rows once), so an
  agent exploring uniformly over ``legal_actions`` is no longer biased
  towards such sets. The order of the actions is ddzfast's (pass last when
  following, as in DouZero).
* An illegal action raises ``ddzfast.IllegalMoveError`` (a ValueError) where
  DouZero fails an ``assert``; the action may list its cards in any order.

The game itself is DouZero's, quirks included: a played move is read back
from its cards as DouZero's ``move_detector`` reads it and compared with its
``move_selector``'s ranks (a 16-card plane whose kickers hold a triple reads
as an illegal type, which only a bomb can answer; a plane with single kickers
is ranked by its highest triple, kickers included). So agents see exactly
the positions DouZero's environment gives them.

Cards are DouZero's ints: 3..14 for '3'..'A', 17 for '2', 20 and 30 for the
jokers. ``to_douzero`` and ``from_douzero`` convert between those lists and
ddzfast's hands and moves.
"""
from __future__ import annotations

from typing import Any, Iterable, Optional, Sequence, Union

import numpy as np

from ddzfast._core import Hand, Move, MoveList
from ddzfast._douzero import (DouZeroGame, douzero_legal_actions, douzero_list, douzero_lists,
                              douzero_pack, douzero_pack_many)
from ddzfast.compat import _reject_laizi
from ddzfast.constants import CARD_LIMITS, DOUZERO_CARDS

__all__ = ["Env", "DECK", "POSITIONS", "OBJECTIVES", "legal_actions", "to_douzero",
           "from_douzero"]

#: DouZero's positions, in playing order.
POSITIONS = ("landlord", "landlord_down", "landlord_up")
#: The reward objectives DouZero's ``Env`` knows.
OBJECTIVES = ("wp", "adp", "logadp")
#: DouZero's unshuffled deck (``douzero.env.env.deck``): four of each rank
#: 3..A and 2 in order, then X and D.
DECK = tuple(c for c, n in zip(DOUZERO_CARDS, CARD_LIMITS) for _ in range(n))


def to_douzero(cards: Any) -> Union[list[int], list[list[int]]]:
    """DouZero card lists of ddzfast cards.

    One set of cards (a ``Hand``, ``Move``, packed int or card text) gives one
    sorted list: ``to_douzero("33TXD") == [3, 3, 10, 20, 30]``. A ``MoveList``,
    a numpy array of packed cards (uint64) or of ``MOVE_DTYPE`` rows, or a list
    of cards gives a list of lists, converted in C. A pass is ``[]``.
    InvalidCardsError (a ValueError) for cards outside the classic deck (the
    wildcard W has no DouZero equivalent); ValueError for a laizi move or a
    MoveList of a laizi rule set (DouZero would read its cards as another
    move: convert ``move.cards`` for the cards alone).
    """
    _reject_laizi(cards, "DouZero")
    if isinstance(cards, Move):
        return douzero_list(int(cards.cards))
    if isinstance(cards, MoveList):
        return douzero_lists(cards.array["cards"])
    if isinstance(cards, np.ndarray):
        if cards.dtype.names is not None and "cards" in cards.dtype.names:
            cards = cards["cards"]
        if cards.dtype.kind not in "ui":
            raise TypeError(f"an array of cards holds packed ints, not {cards.dtype}")
        if cards.ndim == 0:
            return douzero_list(int(cards))
        if cards.dtype.kind == "i" and cards.size and cards.min() < 0:
            raise ValueError("packed cards are never negative")
        return douzero_lists(cards)
    if isinstance(cards, (list, tuple)):
        return douzero_lists(np.array([_packed(c) for c in cards], dtype=np.uint64))
    return douzero_list(cards)


def _packed(cards: Any) -> int:
    if isinstance(cards, Move):
        _reject_laizi(cards, "DouZero")
        return int(cards.cards)
    return int(Hand(cards, "classic"))


def from_douzero(cards: Sequence[Any]) -> Union[Hand, np.ndarray]:
    """ddzfast cards of DouZero card lists.

    One card list (ints, any order) gives a ``Hand``:
    ``from_douzero([30, 3, 17, 3]) == Hand("332D")``; ``[]`` is the empty
    hand (DouZero's pass). A list of card lists gives a uint64 array of packed
    cards, one per list (ddzfast's ``Hand(int)`` of each; ``ddzfast.classify``
    turns a card set into its readings as moves).
    InvalidCardsError (a ValueError) for an int that is not a DouZero card or
    more copies of a card than the deck holds; TypeError for other objects.
    """
    if isinstance(cards, (str, bytes)) or not isinstance(cards, Iterable):
        raise TypeError(f"DouZero cards are a list of ints (or a list of such "
                        f"lists), not {type(cards).__name__}")
    seq = cards if isinstance(cards, (list, tuple)) else list(cards)
    if len(seq) and isinstance(seq[0], (list, tuple, np.ndarray)):
        return douzero_pack_many(seq)
    return Hand(douzero_pack(seq))


def legal_actions(hand_cards: Sequence[int],
                  rival_move: Sequence[int] = ()) -> list[list[int]]:
    """DouZero's legal actions (``GameEnv.get_legal_card_play_actions``) of
    ``hand_cards`` after ``rival_move``, the last action that was not a pass
    (``[]`` when leading): sorted card lists, each card set once, ``[]``
    (pass) last when following. Both arguments are DouZero card lists.

    ``rival_move`` is read as DouZero's move detector reads it: a card set
    DouZero cannot read as a move (its "wrong" type) can be answered only by
    a bomb, the rocket or a pass.
    """
    return douzero_legal_actions(hand_cards, rival_move)


class Env:
    """DouZero's ``douzero.env.Env``, computed by ddzfast (see the module's
    documentation for the contract and the two deliberate differences)."""

    def __init__(self, objective: str) -> None:
        if objective not in OBJECTIVES:
            raise ValueError(f"objective must be one of {OBJECTIVES}, not {objective!r}")
        self.objective = objective
        self._game = DouZeroGame()
        self._dealt = False

    def reset(self, card_play_data: Optional[dict] = None) -> dict:
        """Deal a new deal and return the landlord's first observation.

        Without ``card_play_data`` the deck is shuffled exactly as DouZero's
        ``Env.reset()`` shuffles it (``np.random.shuffle`` of DouZero's deck
        list), from NumPy's global random state.
        """
        if card_play_data is None:
            deck = list(DECK)
            np.random.shuffle(deck)
            self._game.deal_deck(deck)
        else:
            try:
                hands = [card_play_data[p] for p in ("landlord", "landlord_up",
                                                     "landlord_down")]
            except (KeyError, TypeError):
                raise ValueError("card_play_data is a dict with the keys 'landlord', "
                                 "'landlord_up' and 'landlord_down'") from None
            self._game.deal(*hands)
        self._dealt = True
        return self._game.observe()

    def step(self, action: Sequence[int]) -> tuple[Optional[dict], float, bool, dict]:
        """Play ``action`` (a DouZero card list from the observation's
        ``legal_actions``) for the position to act; returns ``(obs, reward,
        done, {})`` as DouZero's ``Env.step`` does."""
        if self._game.play(action):
            return None, self._get_reward(), True, {}
        return self._game.observe(), 0.0, False, {}

    def _get_reward(self) -> float:
        # The landlord's result (DouZero's Env._get_reward)
        bombs = self._game.bomb_num
        sign = 1.0 if self._game.landlord_won else -1.0
        if self.objective == "adp":
            return sign * 2.0 ** bombs
        if self.objective == "logadp":
            return sign * (bombs + 1.0)
        return sign

    def close(self) -> None:
        """Nothing to release (DouZero's wrapper calls it)."""

    # DouZero's Env exposes these (as private properties); kept for code
    # that reads them.
    @property
    def _acting_player_position(self) -> str:
        return self._game.position

    @property
    def _game_over(self) -> bool:
        return self._game.over

    @property
    def _game_winner(self) -> str:
        if not self._game.over:
            raise RuntimeError("the deal is not over")
        return "landlord" if self._game.landlord_won else "farmer"

    @property
    def _game_bomb_num(self) -> int:
        return self._game.bomb_num

    @property
    def game(self) -> DouZeroGame:
        """The engine: hands, played cards, history and legal actions as
        DouZero card lists (``hand(position)``, ``played(position)``,
        ``history``, ``legal_actions``) or packed (``legal_packed``)."""
        return self._game
