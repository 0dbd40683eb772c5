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
* An illegal action raises ``ddzfast.IllegalMoveError`` where DouZero fails
  an ``assert``; an action that is no DouZero card list (an int that is no
  card, more copies of a card than the deck holds) raises
  ``ddzfast.InvalidCardsError`` (both are ValueErrors) or, for an object
  that is not an int, TypeError. The action may list its cards in any order.
* DouZero's ``Env`` also has ``infoset``, ``_env`` and ``players``; this one
  has not. What an infoset holds is on ``env.game``: ``hand(position)``,
  ``played(position)``, ``history`` and ``legal_actions``.

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
from ddzfast._douzero import (ACTION_WIDTH, X_NO_ACTION_WIDTH, DouZeroGame, DouZeroVec,
                              douzero_legal_actions, douzero_list,
                              douzero_lists, douzero_pack, douzero_pack_many)
from ddzfast.compat import _reject_laizi
from ddzfast.constants import CARD_LIMITS, DOUZERO_CARDS, check_bool

__all__ = ["Env", "VecEnv", "DECK", "POSITIONS", "OBJECTIVES", "X_NO_ACTION_WIDTH",
           "ACTION_WIDTH", "MAX_ENVS", "legal_actions", "to_douzero", "from_douzero"]

#: DouZero's positions, in playing order.
POSITIONS = ("landlord", "landlord_down", "landlord_up")
#: The reward objectives DouZero's ``Env`` knows.
OBJECTIVES = ("wp", "adp", "logadp")
#: The most deals one ``VecEnv`` holds.
MAX_ENVS = 1 << 20
#: DouZero's unshuffled deck (``douzero.env.env.deck``): four of each rank
#: 3..A and 2 in order, then X and D.
DECK = tuple(c for c, n in zip(DOUZERO_CARDS, CARD_LIMITS) for _ in range(n))


def to_douzero(cards: Any) -> Union[list[int], list[list[int]]]:
    """DouZero card lists of ddzfast cards.

    One set of cards (a ``Hand``, ``Move``, one ``MOVE_DTYPE`` row, packed
    int or card text) gives one sorted list:
    ``to_douzero("33TXD") == [3, 3, 10, 20, 30]``. A ``MoveList``, a numpy
    array of packed cards (uint64) or of ``MOVE_DTYPE`` rows, or a list of
    Hands, Moves, rows or card texts gives a list of lists, converted in C.
    A pass is ``[]``. A list holding an int is a TypeError: a list of ints
    is a DouZero card list already (``from_douzero`` reads one), and packed
    cards in bulk go in a uint64 array.
    InvalidCardsError (a ValueError) for cards outside the classic deck (the
    wildcard W has no DouZero equivalent); ValueError for a laizi move or a
    MoveList of a laizi rule set (DouZero would read its cards as another
    move: convert ``move.cards`` for the cards alone).
    """
    if isinstance(cards, np.void):      # one MOVE_DTYPE row, as to_rlcard takes
        cards = np.asarray(cards)
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
    # one element of a list given to to_douzero
    if isinstance(cards, (int, np.integer)):
        raise TypeError(
            "to_douzero takes a list of Hands, Moves, rows or card texts, not of "
            "ints: a list of ints is a DouZero card list already (from_douzero "
            "reads it), and packed cards in bulk go in a numpy uint64 array")
    if isinstance(cards, np.void):
        cards = np.asarray(cards)
    if isinstance(cards, np.ndarray) and cards.dtype.names is not None \
            and "cards" in cards.dtype.names and cards.shape in ((), (1,)):
        _reject_laizi(cards, "DouZero")
        return int(cards["cards"].reshape(-1)[0])
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
        return douzero_pack_many(seq, "cards")
    return Hand(douzero_pack(seq))


def legal_actions(hand_cards: Union[Sequence[int], np.ndarray],
                  rival_move: Union[Sequence[int], np.ndarray] = ()) -> list[list[int]]:
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

    def step(self, action: Union[Sequence[int], np.ndarray]
             ) -> tuple[Optional[dict], float, bool, dict]:
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
    def _acting_player_position(self) -> Optional[str]:
        # (None before the first reset, as DouZero's GameEnv has it)
        return self._game.position if self._dealt else None

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


class VecEnv:
    """Many DouZero deals at once: every deal's DouZero observation
    (``x_batch``, ``z_batch``, ``x_no_action``, ``z``, the legal actions) in
    buffers filled in C, so that a DouZero model evaluates the candidates of
    every deal at one position in one forward pass.

    ``VecEnv(num_envs, objective, seed=None, z_batch=True, x_batch=True,
    dtype="float32")``; ``reset(seed=None)`` deals
    deals 0 .. num_envs - 1 of the run seeded ``seed`` (the constructor's,
    or a random one; a later ``reset()`` without a seed deals the run's next
    num_envs deals), ``step(actions)`` plays one action per deal: row i's
    action is an index into its legal actions (``legal_actions(i)``), an
    integer array of num_envs. A deal that ends reports its landlord's
    reward (``rewards``, float32, as ``Env.step`` under ``objective``) and
    ``done``, and its row already holds the next deal (numbered in the order
    they start, in increasing row within a step). Deal ``d`` is ddzfast's
    deal ``Game("classic", deal_seed(seed, d), False, d % 3)``: seat 0 (20
    cards) the landlord, seat 1 ``landlord_down``, seat 2 ``landlord_up``;
    ``card_play_data(i)`` gives row i's deal as ``Env.reset`` takes it.

    Buffers (the same arrays after every call, read them again after each):

    * ``position`` (int8): each row's position to act, an index into
      ``POSITIONS``; ``deals`` (int64) each row's deal number.
    * ``x_batch[p]``, ``z_batch[p]`` (float32) and ``legal_packed[p]``
      (uint64, packed cards) for position ``p``: the candidate rows of every
      row at that position, row after row; row i's are
      ``offsets[i] : offsets[i] + counts[i]`` of its position's buffers,
      equal to ``Env``'s ``x_batch``/``z_batch`` of that deal.
    * ``x_no_action`` (int8, num_envs x 430: the landlord's 319 entries
      zero-padded) and ``z`` (int8, num_envs x 5 x 162, read-only: each
      step shifts a row's z by the move played), as ``Env``'s.
    * ``deal_of_rows(p)`` (int64): for each of position ``p``'s candidate
      rows, the row of this environment (the deal) it is a candidate of.
    * ``z_batch=False`` leaves ``z_batch`` empty (0 rows): DouZero's z_batch
      repeats the deal's ``z`` for every candidate (3.2 KB a row, most of
      the buffers' bytes); a model can run its LSTM once per deal on ``z``
      and repeat the result (``z[deal_of_rows(p)]`` is ``z_batch[p]``).
    * ``x_batch=False`` leaves ``x_batch`` empty too and writes only each
      candidate's action, ``x_action[p]`` (rows x 54: the last 54 columns
      of ``x_batch``); ``x_batch[p]`` is then
      ``concatenate([x_no_action[deal_of_rows(p), :width], x_action[p]], 1)``
      (width 319 for the landlord, 430 for a farmer; ``expand(p)`` builds
      both batches so). A model can apply its first layer to the deal's
      part once per deal and to the action's part per candidate.
      With ``x_batch=True`` ``x_action[p]`` is a view of ``x_batch[p]``.
    * ``dtype="int8"`` (or ``np.int8``) writes ``x_batch``, ``z_batch`` and
      ``x_action`` as int8 instead of float32: every entry of DouZero's
      observation is 0 or 1, so the values are exact (a quarter of the
      bytes; a model converts them, e.g. ``torch.from_numpy(b).float()``).

    Bad actions (wrong shape or dtype, an index out of a row's range) raise
    ValueError or TypeError naming the row, and change nothing.

    One instance serves one call at a time: its calls release the GIL while
    they rewrite the buffers, so ``reset``, ``step`` or ``legal_actions``
    from another thread while a ``reset`` or ``step`` runs raises
    RuntimeError and changes nothing (as ``ddzfast.env.VectorEnv``). Give
    each thread its own instance."""

    def __init__(self, num_envs: int, objective: str, seed: Optional[int] = None,
                 z_batch: bool = True, x_batch: bool = True,
                 dtype: Any = "float32") -> None:
        from ddzfast.simulate import check_seed
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)):
            raise TypeError(f"num_envs must be an int, not {type(num_envs).__name__}")
        num_envs = int(num_envs)
        if not 1 <= num_envs <= MAX_ENVS:
            raise ValueError(f"num_envs must be in 1 .. MAX_ENVS = {MAX_ENVS} (2**20), "
                             f"not {num_envs}")
        if objective not in OBJECTIVES:
            raise ValueError(f"objective must be one of {OBJECTIVES}, not {objective!r}")
        self.num_envs: int = num_envs
        self.objective: str = objective
        self.seed: Optional[int] = None if seed is None else check_seed(seed)
        check_bool(z_batch, "z_batch")
        check_bool(x_batch, "x_batch")
        try:
            dt = np.dtype(dtype) if isinstance(dtype, (str, type, np.dtype)) else None
        except TypeError:
            dt = None
        if dt is None:
            raise TypeError(f"dtype must be 'float32' or 'int8', not {dtype!r}")
        if dt not in (np.dtype(np.float32), np.dtype(np.int8)):
            raise ValueError(f"dtype must be 'float32' or 'int8', not {dtype!r}")
        self.dtype: np.dtype = dt
        self._vec: DouZeroVec = DouZeroVec(num_envs, OBJECTIVES.index(objective), bool(z_batch),
                                           bool(x_batch), dt == np.int8)
        self._started: bool = False
        self._next: int = 0

    def __reduce__(self) -> Any:
        # DouZeroVec's refusal, for pickle, copy and deepcopy alike (a shallow
        # copy would share its deals)
        return self._vec.__reduce__()

    def reset(self, seed: Optional[int] = None) -> None:
        """Deal num_envs new deals and fill every buffer (see the class)."""
        from ddzfast.simulate import check_seed
        import os
        if seed is not None:
            seed = check_seed(seed)
            first = 0
        elif self.seed is None:
            seed = int.from_bytes(os.urandom(8), "little")
            first = 0
        else:
            seed = self.seed
            first = self._vec.next_deal if self._started else 0
        # the seed is kept once the deals are made: a reset refused (another
        # thread's call running) changes nothing
        self._vec.reset(seed, first)
        self.seed = seed
        self._started = True

    def step(self, actions) -> tuple[np.ndarray, np.ndarray]:
        """Play row i's legal action ``actions[i]`` in every row; returns
        (rewards, done)."""
        self._need_deals()
        a = np.asarray(actions)
        if a.dtype.kind not in "iu":
            raise TypeError(f"actions must be an integer array, not of dtype {a.dtype}")
        if a.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},) (one per deal), "
                             f"not {a.shape}")
        given = a
        a = np.ascontiguousarray(a, dtype=np.int64)
        bad = self._vec.check(a)
        if bad >= 0:
            # the value passed: a uint64 past int64 wraps in `a`
            raise ValueError(f"actions[{bad}] = {int(given[bad])} is out of row {bad}'s "
                             f"{int(self.counts[bad])} legal actions; no deal was changed")
        self._vec.step(a)
        return self.rewards, self.done

    # the buffers
    position = property(lambda self: self._vec.position, doc="int8: each row's position")
    deals = property(lambda self: self._vec.deal_numbers, doc="int64: each row's deal")
    offsets = property(lambda self: self._vec.offsets,
                       doc="int64: row i's first candidate row in its position's buffers")
    counts = property(lambda self: self._vec.counts,
                      doc="int64: row i's number of legal actions")
    rewards = property(lambda self: self._vec.rewards,
                       doc="float32: the landlord's reward of the deals that ended, else 0")
    done = property(lambda self: self._vec.done, doc="bool: the rows whose deal ended")
    x_no_action = property(lambda self: self._vec.x_no_action,
                           doc="int8 (num_envs, 430): DouZero's x_no_action, zero-padded")
    z = property(lambda self: self._vec.z,
                 doc="int8 (num_envs, 5, 162): DouZero's z (read-only: each step "
                     "shifts a row's z by the move played)")

    @property
    def x_batch(self) -> tuple:
        """Per position, (rows, width + 54) of ``dtype``: every candidate row
        (0 rows with ``x_batch=False``)."""
        return tuple(self._vec.buffers(p)[0] for p in range(3))

    @property
    def z_batch(self) -> tuple:
        """Per position, (rows, 5, 162) of ``dtype``: every candidate's z (0
        rows with ``z_batch=False``)."""
        return tuple(self._vec.buffers(p)[1] for p in range(3))

    @property
    def x_action(self) -> tuple:
        """Per position, (rows, 54) of ``dtype``: every candidate's action,
        ``x_batch``'s last 54 columns (a view of it with ``x_batch=True``)."""
        return tuple(self._vec.buffers(p)[3] for p in range(3))

    @property
    def legal_packed(self) -> tuple:
        """Per position, uint64: every candidate action as packed cards."""
        return tuple(self._vec.buffers(p)[2] for p in range(3))

    @property
    def x_batch_written(self) -> bool:
        """Whether ``x_batch`` is written (the constructor's ``x_batch``)."""
        return bool(self._vec.fill_x_batch)

    @property
    def z_batch_written(self) -> bool:
        """Whether ``z_batch`` is written (the constructor's ``z_batch``)."""
        return bool(self._vec.fill_z_batch)

    def deal_of_rows(self, p: int) -> np.ndarray:
        """For each row of position ``p``'s buffers, the deal (row of this
        environment) it is a candidate of (int64; a view of a buffer
        rewritten by every step)."""
        p = self._position(p)
        self._need_deals()
        return self._vec.buffers(p)[4]

    def expand(self, p: int) -> tuple[np.ndarray, np.ndarray]:
        """Position ``p``'s ``(x_batch, z_batch)`` as ``dtype`` arrays, built
        from the per-deal ``x_no_action``/``z`` and ``x_action`` where they
        are not written (new arrays then; the buffers themselves where they
        are)."""
        p = self._position(p)
        self._need_deals()
        xb, zb, _pk, xa, owner = self._vec.buffers(p)
        width = X_NO_ACTION_WIDTH[p]
        if not self._vec.fill_x_batch:
            xb = np.concatenate([self.x_no_action[owner, :width].astype(self.dtype), xa], axis=1)
        if not self._vec.fill_z_batch:
            zb = self.z[owner].astype(self.dtype)
        return xb, zb

    @staticmethod
    def _position(p) -> int:
        if isinstance(p, (bool, np.bool_)) or not isinstance(p, (int, np.integer)):
            raise TypeError(f"a position is an int (0, 1 or 2), not {type(p).__name__}")
        if not 0 <= p < 3:
            raise ValueError(f"a position is 0, 1 or 2, not {p!r}")
        return int(p)

    def _need_deals(self) -> None:
        if not self._started:
            raise ValueError("no deals yet: call reset() first")

    def legal_actions(self, i: int) -> list[list[int]]:
        """Row i's legal actions as DouZero card lists (``Env``'s order)."""
        return self._vec.legal_lists(self._row(i))

    def observation(self, i: int) -> dict:
        """Row i's observation as ``Env`` gives it (a dict of copies): for
        tests and debugging; training reads the buffers."""
        i = self._row(i)
        p = int(self.position[i])
        a, n = int(self.offsets[i]), int(self.counts[i])
        width = X_NO_ACTION_WIDTH[p]
        x_batch, z_batch = self.expand(p)
        return {"position": POSITIONS[p],
                "x_batch": x_batch[a:a + n].astype(np.float32),
                "z_batch": z_batch[a:a + n].astype(np.float32),
                "legal_actions": self.legal_actions(i),
                "x_no_action": self.x_no_action[i, :width].copy(),
                "z": self.z[i].copy()}

    def card_play_data(self, i: int) -> dict:
        """Row i's deal as ``Env.reset(card_play_data)`` takes it (the hands
        dealt, before any play)."""
        from ddzfast._engine import Game, deal_seed
        d = int(self.deals[self._row(i)])
        if self.seed is None:                 # set by the first reset (_row checks it)
            raise ValueError("no deals yet: call reset() first")
        hands = Game("classic", deal_seed(self.seed, d), False, d % 3).hands
        return {"landlord": to_douzero(hands[0]), "landlord_down": to_douzero(hands[1]),
                "landlord_up": to_douzero(hands[2])}

    def _row(self, i) -> int:
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)):
            raise TypeError(f"a row is an int, not {type(i).__name__}")
        if not 0 <= i < self.num_envs:
            raise IndexError(f"row {i} out of range: {self.num_envs} rows")
        self._need_deals()
        return int(i)
