"""Dou Dizhu for one seat as a Gymnasium environment: the learner's seat
against two opponents that are built-in policies or callables."""
from __future__ import annotations

import contextlib
import numbers
from typing import Callable, Sequence, Union

import gymnasium
import numpy as np
from gymnasium import spaces

from ddzfast._engine import OBSERVATION_DTYPE, OBSERVATION_SIZE
from ddzfast.constants import check_finite, split_policies
from ddzfast.env._table import RENDER_MODES, Table, check_no_options, observation_high
from ddzfast.simulate import _policy_choice, check_seed, parse_policies, policy_name

Policy = Union[str, Callable]

#: The Gymnasium id under which ``import ddzfast.env`` registers the
#: environment: ``gymnasium.make(GYM_ID, rules=...)`` is ``gym_env``'s, and
#: ``gymnasium.make_vec(GYM_ID, num_envs, ...)`` a ``GymVectorEnv``.
GYM_ID = "ddzfast/Doudizhu-v0"


class DoudizhuGymEnv(gymnasium.Env):
    """One seat of a Dou Dizhu deal (see ``gym_env``)."""

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 1}

    def __init__(self, rules="classic", seat=0, opponents: str | Sequence[Policy] = ("greedy", "greedy"),
                 bidding=False, render_mode=None, illegal_reward=-1.0):
        if isinstance(seat, (bool, np.bool_)) or not isinstance(seat, numbers.Integral):
            raise TypeError(f"seat is 0, 1 or 2, not {type(seat).__name__} {seat!r}")
        if not 0 <= int(seat) < 3:
            raise ValueError(f"seat is 0, 1 or 2, not {seat}")
        self.seat = int(seat)
        self.table = Table(rules, bidding, render_mode)
        self.render_mode = render_mode
        self.policies = _seat_policies(opponents, self.seat)
        self.illegal_reward = check_finite(illegal_reward, "illegal_reward")
        self._over = True
        n = self.table.action_count
        self.action_space = spaces.Discrete(n)
        self.observation_space = spaces.Box(0, observation_high(), (OBSERVATION_SIZE,),
                                            dtype=OBSERVATION_DTYPE)

    @property
    def game(self):
        """The Game being played (ValueError before the first reset)."""
        return self.table.game

    def _opponents_play(self) -> None:
        """The opponents move until the learner is to move or the deal ends."""
        table = self.table
        game = table.game
        while True:
            seat = game.to_move
            if seat is None or seat == self.seat:
                return
            policy = self.policies[seat]
            choosing = game.phase != "play"
            if callable(policy):
                choice = _policy_choice(policy, game, seat)
                try:
                    table.choose(choice) if choosing else table.play(choice)
                except ValueError as e:
                    raise type(e)(f"policy {policy_name(policy)!r} (seat {seat}) chose "
                                  f"{choice}: {e}") from None
            elif choosing:
                table.choose(game.policy_choice(policy))
            else:
                table.play(game.policy_move(policy))

    @contextlib.contextmanager
    def _undone_on_error(self):
        """The deal as it was, should the body raise: an opponent's callable
        that fails (or Ctrl-C in it) leaves the learner's move untaken, not
        the deal part way through a step with its opponent to move. A
        callable that took back moves of the deal itself leaves a deal that
        cannot be put back: the episode is then over."""
        table = self.table
        game = table.game
        depth = game._undo_depth
        lines = len(table.lines)
        try:
            yield
        except BaseException:
            while game._undo_depth > depth:
                game.undo()
            del table.lines[lines:]
            if game._undo_depth != depth:
                self._over = True
            raise

    def reset(self, *, seed=None, options=None):
        check_no_options(options)
        if seed is not None:
            # checked first: Gymnasium's own seeding raises its own error type
            seed = check_seed(seed)
        table = self.table
        # put back should an opponent's callable fail: the run's place,
        # the deal and the random stream, as if reset had not been called
        saved = (table.run_seed, table.deal_index, table.deal_seed, table._game,
                 list(table.lines), self._np_random, self._np_random_seed)
        try:
            super().reset(seed=seed)
            table.deal(seed)
            self._opponents_play()
            while table.game.done:
                # ended before the learner's first decision (a landlord's first
                # lead emptied its hand): nothing to learn from, the next deal
                table.deal()
                self._opponents_play()
        except BaseException:
            (table.run_seed, table.deal_index, table.deal_seed, table._game, table.lines,
             self._np_random, self._np_random_seed) = saved
            raise
        self._over = False
        if self.render_mode == "human":
            self.render()
        return self.table.observation(self.seat), {}

    def step(self, action):
        table = self.table
        if self._over:
            raise ValueError("the episode is over (or never began): call reset()")
        if isinstance(action, (bool, np.bool_)) or not (
                isinstance(action, numbers.Integral)
                or (isinstance(action, np.ndarray) and action.ndim == 0
                    and action.dtype.kind in "iu")):
            # not an int (nor a 0-d int array, as a policy's predict gives):
            # a policy's type bug, not an action of the space; a bool too,
            # which Discrete.contains takes for 1
            raise table.not_an_action(action)
        index = int(action)
        # (range read off the int: Discrete.contains refuses a uint64, which
        # is an int like any other here)
        if not 0 <= index < table.action_count:
            raise ValueError(f"action {index} is not in the action space 0.."
                             f"{table.action_count - 1}; nothing changed")
        if not self.action_masks()[index]:
            # Gymnasium lets an agent send any action of the space: an
            # illegal one ends the episode, as PettingZoo's
            # TerminateIllegalWrapper does, and leaves the deal as it was.
            self._over = True
            return (table.observation(self.seat), self.illegal_reward, True, False,
                    {"illegal_action": action})
        with self._undone_on_error():
            table.apply(index)
            self._opponents_play()
        done = self._over = table.game.done
        reward = table.scores()[self.seat] if done else 0.0
        if self.render_mode == "human":
            self.render()
        return table.observation(self.seat), reward, done, False, {}

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions as a bool vector of the action space's
        size (what sb3-contrib's MaskablePPO reads); all False when no step
        is taken (before the first reset, once the episode is over)."""
        if self._over:
            return np.zeros(self.table.action_count, dtype=np.bool_)
        return self.table.mask(self.seat).view(bool)

    def legal_actions(self) -> np.ndarray:
        """The learner's legal actions (int32), in the order of legal_moves();
        none when no step is taken (before the first reset, once the
        episode is over)."""
        if self._over or self.table.game.to_move != self.seat:
            return np.zeros(0, dtype=np.int32)
        return self.table.legal_actions()

    def action_of(self, choice) -> int:
        """The action of a Move (or MOVE_DTYPE row) or, in a decision phase,
        of a choice (a bid 0..3, a call, show or doubling factor) of the
        learner. TypeError for a choice that is not an int, ValueError for
        one beyond the choice actions."""
        return self.table.action_of(choice)

    def render(self):
        return self.table.render("gym_env")


def _seat_policies(opponents, seat: int) -> tuple:
    """The three seats' policies: the opponents' in seat order (the lower
    seat first), None for the learner. ``opponents``: one policy for both or two, as ``simulate``
    accepts them (names of built-in policies, text like "random,greedy", or
    callables)."""
    items = split_policies(
        opponents, 2, "opponents must be a policy or two, not {type}",
        "give one opponent policy or two (the other seats', the lower seat first), "
        "not {n}")
    three = list(items)
    three.insert(seat, items[0])       # a stand-in, checked with the rest
    checked: list[Policy | None] = list(parse_policies(three))
    checked[seat] = None
    return tuple(checked)


def gym_env(rules="classic", seat=0, opponents: str | Sequence[Policy] = ("greedy", "greedy"),
            bidding=False, render_mode=None, illegal_reward=-1.0) -> DoudizhuGymEnv:
    """A Gymnasium environment in which the learner plays ``seat`` (0..2) of
    each deal and ``opponents`` the other two seats, the lower seat first.

    ``opponents``: one policy for both or two, each a built-in policy name
    ("greedy", "random") or a callable ``policy(game, legal) -> int`` with
    the contract of ``ddzfast.simulate`` (``simulate.parse_policies`` checks
    them). Actions, observations (``Game.observation_tensor`` of the
    learner's seat: the vector of ``doudizhu_v0``, without the mask) and
    seeds are those of ``doudizhu_v0``, and so are its rule sets (laizi with
    a fixed wild rank, ``"laizi:7"``, tiandi with a fixed pair, ``"tiandi:7J"``;
    ``"laizi"`` or ``"tiandi"`` alone is a ValueError, the action index
    depending on the wild ranks); the reward is the
    learner's score when the deal ends, else 0. ``action_masks()`` gives the
    legal actions for sb3-contrib's MaskablePPO. Without ``bidding`` seat 0
    is the landlord. ``reset`` returns a deal in which the learner is to
    move: a deal that ends before its first decision is passed over for
    the run's next one (as VectorEnv does).

    Gymnasium lets an agent send any action of the space: an illegal one
    (``action_masks()`` False there) ends the episode with reward
    ``illegal_reward`` and ``info["illegal_action"]``, the deal unchanged.
    An int outside the space is a ValueError, and a bool no action
    (TypeError, though ``Discrete`` takes True for 1). Bad arguments raise
    ValueError (TypeError for a wrong type). An error raised by an
    opponent's callable in ``step`` or ``reset`` leaves the environment as
    it was before the call (the learner's action not taken)."""
    return DoudizhuGymEnv(rules, seat, opponents, bidding, render_mode, illegal_reward)
