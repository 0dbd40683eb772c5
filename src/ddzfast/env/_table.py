"""The table both environments play on: one ``Game`` at a time, dealt as
``simulate`` deals, with the action <-> move mapping, the legal-action mask,
the observation vector and the lines a human rendering prints.

Deals: ``reset(seed=s)`` starts a run seeded ``s``; deal ``i`` of the run
(0 for that reset, 1 for the next reset without a seed, ...) is
``Game(rules, deal_seed(s, i), bidding, first_bidder=i % 3)``, the deal row
``i`` of ``simulate(..., seed=s, bidding=bidding)`` describes. A reset
without a seed before any seeded one starts a run from a random seed.

Actions: ``0 .. action_count(rules) - 1`` are the rule set's action index
(``ddzfast.action_moves``; 0 is PASS). With bidding there are
``BID_ACTIONS`` more: ``action_count(rules) + k - 1`` bids ``k`` (1..3), and
action 0 passes the bid as it passes a trick.

With the platform options of RULES.md 10 (rob bidding, showing, doubling)
every decision is an action, ``CHOICE_ACTIONS`` of them after the moves:
choice ``v`` (``Game.legal_choices()``) is action ``action_count(rules) + v
- 1`` (a call or rob, a show, a bid of 1: ``+ 0``; doubling x2 or a bid of
2: ``+ 1``; a bid of 3: ``+ 2``; super-doubling x4: ``+ 3``), and action 0
says no (passes the call or rob, does not show, doubles x1).
"""
from __future__ import annotations

import numbers
import os

import numpy as np

from ddzfast._core import Move, _fixed_action_rules
from ddzfast._engine import OBSERVATION_HIGH, Game, deal_seed
from ddzfast._vector import action_choice, choice_action, choice_actions
from ddzfast.render import (choice_line, decision_text, hand_line, landlord_line, move_line,
                            outcome_text, redeal_line, wild_lines)
from ddzfast.constants import CHOICE_ACTIONS, check_bool
from ddzfast.errors import IllegalMoveError
from ddzfast.features import action_count, action_index, action_moves
from ddzfast.simulate import check_seed

#: The agents, seat ``i`` being ``PLAYERS[i]``.
PLAYERS = ("player_0", "player_1", "player_2")
RENDER_MODES = ("human", "ansi")


def check_no_options(options) -> None:
    """``reset(options=...)`` of the Gymnasium and SB3 adapters: no option
    is read, so a non-empty one is a ValueError rather than ignored.
    (PettingZoo's environment takes any: its api_test passes some.)"""
    if options:
        raise ValueError(f"reset takes no options, not {options!r}: the rule set, "
                         f"seat and opponents are the constructor's arguments")


def observation_high() -> np.ndarray:
    """The largest value of each entry of ``Game.observation_tensor`` (the
    observation space's upper bounds): a writable copy of
    ``ddzfast.OBSERVATION_HIGH``."""
    return OBSERVATION_HIGH.copy()


def check_rules(rules):
    """The environment's rule set. A laizi set must name its wild rank
    ("laizi:7"), a tiandi set both ("tiandi:7J"): the action index depends
    on them, and an environment's action space is fixed."""
    return _fixed_action_rules(rules, "an environment")


def check_render_mode(render_mode) -> str | None:
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(f"render_mode is None or one of {', '.join(RENDER_MODES)}, "
                         f"not {render_mode!r}")
    return render_mode


class Table:
    """One deal at a time and everything the environments need of it."""

    def __init__(self, rules="classic", bidding=False, render_mode=None):
        self.rules = check_rules(rules)
        self.bidding = check_bool(bidding, "bidding")
        self.render_mode = check_render_mode(render_mode)
        self.move_count = action_count(self.rules)
        platform = self.rules.platform
        self.choice_count = choice_actions(self.rules, self.bidding)
        self.platform = self.choice_count == CHOICE_ACTIONS
        self.action_count = self.move_count + self.choice_count
        self.no_shuffle = platform["deal"] == "no_shuffle"
        self._moves = action_moves(self.rules)
        self._move_cache: list[Move | None] = [None] * self.move_count
        self.run_seed: int | None = None
        self.deal_index = 0
        self.deal_seed: int | None = None
        self._game: Game | None = None
        self.lines: list[str] = []

    def __getstate__(self) -> dict:
        # the action table (and the Moves made of it) is the process's own,
        # shared through action_moves' cache: a pickle holds the rule set,
        # and loading looks the table up again (a tiandi table is hundreds of
        # MB: docs/learning.md)
        state = self.__dict__.copy()
        del state["_moves"], state["_move_cache"]
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._moves = action_moves(self.rules)
        self._move_cache = [None] * self.move_count

    @property
    def started(self) -> bool:
        return self._game is not None

    @property
    def game(self) -> Game:
        """The deal being played; ValueError before the first deal."""
        if self._game is None:
            raise ValueError("no deal yet: call reset() first")
        return self._game

    # ---- deals ---------------------------------------------------------------

    def deal(self, seed=None) -> Game:
        """The next deal of the run (a new run when ``seed`` is given): deal
        ``i`` is ``Game(rules, deal_seed(run seed, i), bidding, i % 3)``, as
        ``simulate`` deals it. In a no-shuffle session (RULES.md 10) it is
        ``next_deal(deal_seed(run seed, i))`` of deal ``i - 1`` when that
        deal was played to its end, as ``simulate`` plays sessions; a deal
        left before its end (a reset mid-deal) ends its session, and the
        next one is dealt shuffled, the first of a new session."""
        previous = self._game if seed is None else None
        if seed is not None:
            self.run_seed = check_seed(seed)
            self.deal_index = 0
        elif self.run_seed is None:
            self.run_seed = int.from_bytes(os.urandom(8), "little")
            self.deal_index = 0
        self.deal_seed = deal_seed(self.run_seed, self.deal_index)
        if self.no_shuffle and previous is not None and previous.done:
            game = self._game = previous.next_deal(self.deal_seed)
        else:
            game = self._game = Game(self.rules, self.deal_seed, self.bidding,
                                     self.deal_index % 3)
        self.deal_index += 1
        self.lines.clear()
        if self.render_mode is not None:
            # (an environment's rule set fixes its wild ranks: all are told
            # here)
            self.lines.append(wild_lines(game))
            if game.landlord is not None:
                self.lines.append(landlord_line(game, PLAYERS))
        return game

    # ---- actions -------------------------------------------------------------

    def legal_actions(self) -> np.ndarray:
        """The legal actions of the seat to move (int32), in the order of
        legal_moves() (the legal bids, ascending, while bidding); empty
        when the deal is over."""
        game = self.game
        seat = game.to_move
        if seat is None:
            return np.zeros(0, dtype=np.int32)
        if game.phase == "play":
            return game.legal_action_indices()
        return np.array([self._choice_action(c) for c in game.legal_choices()],
                        dtype=np.int32)

    def _choice_action(self, choice: int) -> int:
        return choice_action(choice, self.move_count, self.game.phase == "doubling")

    def mask(self, seat: int) -> np.ndarray:
        """The legal-action mask (int8) of ``seat``: all zeros unless it is
        to move."""
        game = self.game
        if game.to_move != seat:
            return np.zeros(self.action_count, dtype=np.int8)
        if game.phase == "play":
            # the C mask writes every entry: no zeroing first
            out = np.empty(self.action_count, dtype=np.int8)
            if self.choice_count:
                game.legal_action_mask(out[:self.move_count])
                out[self.move_count:] = 0
            else:
                game.legal_action_mask(out)
            return out
        out = np.zeros(self.action_count, dtype=np.int8)
        out[self.legal_actions()] = 1
        return out

    def move_of(self, action: int) -> Move:
        """The Move of a move action (built once per action and kept)."""
        move = self._move_cache[action]
        if move is None:
            row = self._moves[action]
            move = self._move_cache[action] = Move(
                int(row["kind"]), int(row["rank"]), int(row["length"]), int(row["cards"]),
                rules=self.rules)
        return move

    def action_of(self, choice) -> int:
        """The action of a choice (a bid, call, show or doubling factor, in a
        decision phase: an int 0..choice_count, else TypeError or ValueError)
        or of a Move or MOVE_DTYPE row."""
        phase = self.game.phase
        if phase not in ("play", "done"):
            if isinstance(choice, (bool, np.bool_)) or not isinstance(choice,
                                                                      numbers.Integral):
                raise TypeError(f"in the {phase} phase a choice is an int "
                                f"0..{self.choice_count} (one of Game.legal_choices()), "
                                f"not {type(choice).__name__} {choice!r}")
            c = int(choice)
            if not 0 <= c <= self.choice_count:
                raise ValueError(f"choice {c} is out of range 0..{self.choice_count} "
                                 f"(Game.legal_choices() of the {phase} phase: "
                                 f"{self.game.legal_choices()})")
            return self._choice_action(c)
        if isinstance(choice, Move):
            choice = choice.array[0]
        elif not (isinstance(choice, (np.void, np.ndarray)) and choice.shape == ()
                  and choice.dtype == self._moves.dtype):
            # (numpy would read an int as every field of a row, or fail with
            # OverflowError)
            what = (f"an array of shape {choice.shape} and dtype {choice.dtype.str}"
                    if isinstance(choice, np.ndarray) else
                    f"{type(choice).__name__} {choice!r}")
            raise TypeError(f"while playing, a choice is a Move or a MOVE_DTYPE row, "
                            f"not {what}")
        return int(action_index(np.array([choice], dtype=self._moves.dtype),
                                self.rules)[0])

    def not_an_action(self, action) -> TypeError:
        """The TypeError for an action of the wrong type (a bool included)."""
        return TypeError(f"an action is an int in 0..{self.action_count - 1}, "
                         f"not {type(action).__name__} {action!r}")

    def apply(self, action) -> None:
        """The seat to move takes ``action``; ValueError (IllegalMoveError
        for an illegal move) leaves the deal unchanged."""
        if (isinstance(action, np.ndarray) and action.ndim == 0
                and action.dtype.kind in "iu"):
            # what a policy's predict returns for one observation (and what
            # Discrete.contains accepts)
            action = action.item()
        if type(action) is not int and (isinstance(action, (bool, np.bool_)) or
                                        not isinstance(action, numbers.Integral)):
            raise self.not_an_action(action)
        a = int(action)
        if not 0 <= a < self.action_count:
            raise ValueError(f"action {a} is out of range 0..{self.action_count - 1}")
        game = self.game
        seat = game.to_move
        if seat is None:
            raise ValueError("the deal is over: reset for the next one")
        if game.phase != "play":
            legal = game.legal_choices()
            if a != 0 and a < self.move_count:
                raise IllegalMoveError(
                    f"action {a} is a move, but seat {seat} is deciding ({game.phase}): "
                    f"its legal actions are {self.legal_actions().tolist()} (choices "
                    f"{legal})")
            choice = action_choice(a, self.move_count, self.choice_count,
                                   game.phase == "doubling")
            if choice not in legal:
                # (-1: the action of choice 1 when choice 1 is action 0, doubling x1)
                said = choice if choice >= 0 else a - self.move_count + 1
                if game.phase == "bidding" and not self.platform:
                    raise IllegalMoveError(f"action {a}: seat {seat} cannot bid {said}; "
                                           f"legal bids are {legal} (0 passes)")
                raise IllegalMoveError(f"action {a}: seat {seat} cannot choose {said} "
                                       f"in the {game.phase} phase with action {a}; legal "
                                       f"choices are {legal} (actions "
                                       f"{self.legal_actions().tolist()})")
            self.choose(choice)
            return
        if a >= self.move_count:
            raise IllegalMoveError(f"action {a} is a decision, but the deal is in "
                                   f"its play phase")
        try:
            game.play_action(a)
        except IllegalMoveError as e:
            raise IllegalMoveError(f"action {a}: {e}") from None
        if self.render_mode is not None:
            self._played(seat)

    def bid(self, points: int) -> None:
        """The seat to move bids ``points`` (Game.bid), noted for rendering."""
        self.choose(points)

    def choose(self, choice: int) -> None:
        """The seat to move makes ``choice`` (Game.choose: a bid, call or rob,
        show or doubling factor), noted for rendering."""
        game = self.game
        seat = game.to_move
        phase = game.phase
        had_landlord = game.landlord is not None
        redeals = game.redeals
        line = (choice_line(PLAYERS[seat], phase, choice, game)
                if self.render_mode is not None and seat is not None else None)
        game.choose(choice)
        if line is not None:
            self.lines.append(line)
            if not had_landlord and game.landlord is not None:
                self.lines.append(landlord_line(game, PLAYERS))
            if game.redeals != redeals:
                self.lines.append(redeal_line(game))

    def play(self, move) -> None:
        """The seat to move plays ``move`` (a Move or MOVE_DTYPE row:
        Game.play), noted for rendering."""
        game = self.game
        seat = game.to_move
        game.play(move)
        if self.render_mode is not None and seat is not None:
            self._played(seat)

    def _played(self, seat: int) -> None:
        """Note the move ``seat`` has just played, for rendering."""
        game = self.game
        self.lines.append(move_line(PLAYERS[seat], game.history[-1][1],
                                    game.cards_left[seat]))
        if game.done:
            self.lines.append(outcome_text(game.result) + "\n")

    def scores(self) -> tuple[float, float, float]:
        """The seats' scores of the finished deal."""
        result = self.game.result
        if result is None:
            raise ValueError("the deal is not over")
        s = result.scores
        return float(s[0]), float(s[1]), float(s[2])

    # ---- observations --------------------------------------------------------

    def observation(self, seat: int) -> np.ndarray:
        """What ``seat`` may know: ``Game.observation_tensor(seat)``."""
        return self.game.observation_tensor(seat)

    # ---- rendering -----------------------------------------------------------

    def render_text(self) -> str:
        """The lines since the last rendering, then the seat to move's hand
        and the move it has to beat (nothing more once the deal is over)."""
        text = "".join(self.lines)
        self.lines.clear()
        seat = self.game.to_move if self.started else None
        if seat is not None:
            text += hand_line(PLAYERS[seat], self.game.hands[seat], self.game.last_move,
                              decision_text(self.game))
        return text

    def render(self, where: str):
        """An environment's ``render()``: print the text (``"human"``),
        return it (``"ansi"``), or warn that no render mode was given
        (``where`` names the constructor to pass one to)."""
        if self.render_mode is None:
            import gymnasium
            gymnasium.logger.warn("render() called without a render_mode: pass "
                                  f"render_mode='human' or 'ansi' to {where}")
            return None
        text = self.render_text()
        if self.render_mode == "ansi":
            return text
        print(text, end="")
        return None

