"""Dou Dizhu as a PettingZoo AEC environment, every rule set of ddzfast.

``env(rules="classic", bidding=False, render_mode=None)`` is the environment
with PettingZoo's order-enforcing wrapper (it raises on stepping before
``reset`` and the like); ``raw_env`` takes the same arguments, unwrapped and
faster (its ``step`` and ``last`` raise ValueError before ``reset``, and
once every agent has stepped out of a finished deal: there the wrapper warns
of a step and ignores it; an unknown agent is a ValueError).

* Rule sets: any, laizi with its wild rank fixed (``rules="laizi:7"``:
  every deal has wild rank 7; shown in the observation's ``wild_rank``
  block) and tiandi with its pair of ranks fixed (``rules="tiandi:7J"``,
  sky rank first). The action index of a laizi or tiandi set depends on
  its wild ranks and an environment's action space is fixed, so
  ``rules="laizi"`` or ``"tiandi"`` (ranks drawn per deal) is a ValueError.
* Agents ``player_0``, ``player_1``, ``player_2`` (seats 0, 1, 2). Without
  bidding seat 0 is the landlord (base 1; ``rob_base`` in a rule set that
  bids by robbing) and leads; with it the first bidder rotates from deal to
  deal as in ``simulate``.
* Actions: ``Discrete(action_count(rules))``, the rule set's action index
  (``ddzfast.action_moves(rules)[a]`` is the move of action ``a``; 0 is
  PASS). With ``bidding=True`` three more: ``action_count(rules) + k - 1``
  bids ``k`` (1..3) and 0 passes the bid. With the platform options of
  RULES.md 10 (``rules="classic+happy"``: rob bidding, showing, doubling)
  ``CHOICE_ACTIONS`` (4) more instead: choice ``v`` of
  ``Game.legal_choices()`` is action ``action_count(rules) + v - 1`` (call,
  rob, show or bid 1: ``+ 0``; double x2 or bid 2: ``+ 1``; bid 3: ``+ 2``;
  super-double x4: ``+ 3``) and 0 says no (passes, does not show, doubles
  x1). An illegal action raises ``IllegalMoveError`` (a ValueError) and
  leaves the deal unchanged.
* Observations: ``{"observation": float32 vector, "action_mask": int8
  vector}`` as PettingZoo's classic environments give them. The vector is
  ``Game.observation_tensor(seat)``, filled in C (``ddzfast.OBSERVATION_SIZE``
  entries laid out as ``ddzfast.OBSERVATION_LAYOUT`` says: the agent's hand,
  the unseen cards, what each seat played and holds, landlord, bids, kitty,
  the move to beat and who played it, bombs, multiplier, recent history);
  the mask (``Game.legal_action_mask``, in C) is all zeros for an agent
  that is not to move. Both are new arrays at every ``observe``.
  ``legal_actions()`` gives the legal actions of the agent to move as
  indices (``Game.legal_action_indices``), without a scan of the mask: what
  a random or sampling agent needs (``np.flatnonzero`` of a 30,384-entry
  mask costs more than a whole step of the environment).
* Rewards: 0 until the deal ends, then each seat's score (RULES.md 6), the
  ``scores`` of ``Game.result``; all three agents terminate together.
* Seeds: ``reset(seed=s)`` deals deal 0 of a run seeded ``s``, each later
  ``reset()`` the run's next deal: deal ``i`` is ``Game(rules,
  deal_seed(s, i), bidding, first_bidder=i % 3)``, the deal row ``i`` of
  ``simulate(n, rules, seed=s, bidding=bidding)`` plays.
  ``env.unwrapped.game`` is the Game being played.
* ``render_mode="human"`` prints the table as ``ddzfast play`` does (moves
  with the cards left, the hand to move and the move to beat, the result);
  ``"ansi"`` returns the same text from ``render()``.
"""
from __future__ import annotations

import numbers

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ddzfast._engine import OBSERVATION_DTYPE, OBSERVATION_SIZE
from ddzfast.env._table import PLAYERS, RENDER_MODES, Table, observation_high

__all__ = ["env", "raw_env"]


def env(rules="classic", bidding=False, render_mode=None) -> AECEnv:
    """The environment, wrapped in PettingZoo's OrderEnforcingWrapper."""
    return _OrderEnforcing(raw_env(rules, bidding, render_mode))


class _OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's OrderEnforcingWrapper with ``last()`` asked of the
    environment in one call: the inherited ``last()`` reads five attributes
    through two ``__getattr__`` levels each, which cost more than the
    observation and the mask it returns (measured: 8.8 against 3.5 µs).
    Before ``reset()`` it raises as the inherited one does."""

    def last(self, observe: bool = True):
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env.last(observe)


class raw_env(AECEnv):
    """The unwrapped AEC environment; see the module docstring."""

    metadata = {"render_modes": list(RENDER_MODES), "name": "doudizhu_v0",
                "is_parallelizable": False, "render_fps": 1}

    def __init__(self, rules="classic", bidding=False, render_mode=None):
        super().__init__()
        self.table = Table(rules, bidding, render_mode)
        self.render_mode = render_mode
        self.possible_agents = list(PLAYERS)
        self.agents: list[str] = []
        self._seat = {name: i for i, name in enumerate(PLAYERS)}
        self._make_spaces()

    def _make_spaces(self) -> None:
        n = self.table.action_count
        obs_space = spaces.Dict({
            "observation": spaces.Box(0, observation_high(), (OBSERVATION_SIZE,),
                                      dtype=OBSERVATION_DTYPE),
            "action_mask": spaces.Box(0, 1, (n,), dtype=np.int8),
        })
        # one space object per agent, so seeding one agent's space is its own
        self.observation_spaces = {a: obs_space if i == 0 else _copy_dict(obs_space)
                                   for i, a in enumerate(PLAYERS)}
        self.action_spaces = {a: spaces.Discrete(n) for a in PLAYERS}

    def __getstate__(self) -> dict:
        # the mask spaces' bounds are four arrays as long as the action
        # table per agent (megabytes for a laizi rule set): a pickle holds
        # the spaces' random streams only, and loading makes them again
        state = self.__dict__.copy()
        state["observation_spaces"] = {a: _streams(v)
                                       for a, v in self.observation_spaces.items()}
        state["action_spaces"] = {a: _streams(v) for a, v in self.action_spaces.items()}
        return state

    def __setstate__(self, state: dict) -> None:
        observation_streams = state.pop("observation_spaces")
        action_streams = state.pop("action_spaces")
        self.__dict__.update(state)
        self._make_spaces()
        for agent in PLAYERS:
            _set_streams(self.observation_spaces[agent], observation_streams[agent])
            _set_streams(self.action_spaces[agent], action_streams[agent])

    def _seat_of(self, agent) -> int:
        """The seat of ``agent``; ValueError for anything but PLAYERS."""
        seat = self._seat.get(agent) if isinstance(agent, str) else None
        if seat is None:
            raise ValueError(f"unknown agent {agent!r}: the agents are "
                             f"{', '.join(PLAYERS)}")
        return seat

    def observation_space(self, agent):
        self._seat_of(agent)
        return self.observation_spaces[agent]

    def action_space(self, agent):
        self._seat_of(agent)
        return self.action_spaces[agent]

    @property
    def game(self):
        """The Game being played (ValueError before the first reset)."""
        return self.table.game

    def reset(self, seed=None, options=None) -> None:
        """A new deal (``seed``: as ``Game``'s). ``options`` is not read:
        PettingZoo's api_test passes options of its own, which an AEC
        environment must take (the Gymnasium adapters refuse any)."""
        game = self.table.deal(seed)
        self.agents = list(PLAYERS)
        self.rewards = {a: 0.0 for a in PLAYERS}
        self._cumulative_rewards = {a: 0.0 for a in PLAYERS}
        self.terminations = {a: False for a in PLAYERS}
        self.truncations = {a: False for a in PLAYERS}
        self.infos: dict[str, dict] = {a: {} for a in PLAYERS}
        self.agent_selection = PLAYERS[game.to_move]
        self._skip_agent_selection = None
        if self.render_mode == "human":
            self.render()

    def observe(self, agent):
        seat = self._seat_of(agent)
        table = self.table
        return {"observation": table.observation(seat), "action_mask": table.mask(seat)}

    def legal_actions(self) -> np.ndarray:
        """The legal actions of the agent to move (int32), in the order of
        ``game.legal_moves()``: the indices where its action mask is 1,
        without scanning the mask."""
        return self.table.legal_actions()

    def action_of(self, choice) -> int:
        """The action of a Move (or MOVE_DTYPE row) or, in a decision phase,
        of a choice (a bid 0..3, a call, show or doubling factor) of the seat
        to move: e.g. ``action_of(game.policy_action())`` plays as a built-in
        policy would. TypeError for a choice that is not an int, ValueError
        for one beyond the choice actions."""
        return self.table.action_of(choice)

    def move_of(self, action: int):
        """The Move of a move action (``action_moves(rules)[action]``);
        IndexError outside ``0 .. action_count(rules) - 1``."""
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, numbers.Integral):
            raise TypeError(f"an action is an int, not {type(action).__name__}")
        if not 0 <= int(action) < self.table.move_count:
            raise IndexError(f"move action {int(action)} is out of range "
                             f"0..{self.table.move_count - 1}")
        return self.table.move_of(int(action))

    def _check_dealt(self) -> None:
        """ValueError before the first reset, and once every agent has
        stepped out of a finished deal (PettingZoo's OrderEnforcingWrapper
        refuses the first and warns of and ignores a step in the second:
        unwrapped, both are errors)."""
        self.table.game                 # (its ValueError before the first deal)
        if not self.agents:
            raise ValueError("the deal is over and every agent has stepped out "
                             "(step(None) once each): call reset() for the next deal")

    def last(self, observe: bool = True):
        self._check_dealt()
        return super().last(observe)

    def step(self, action) -> None:
        self._check_dealt()
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        table = self.table
        table.apply(action)
        game = table.game
        if game.done:
            scores = table.scores()
            for i, a in enumerate(PLAYERS):
                self.rewards[a] = scores[i]
                self._cumulative_rewards[a] += scores[i]
                self.terminations[a] = True
            # the agents leave in seat order, starting with the one that moved
            self.agent_selection = agent
        else:
            self._cumulative_rewards[agent] = 0.0
            self.agent_selection = PLAYERS[game.to_move]
        if self.render_mode == "human":
            self.render()

    def render(self):
        return self.table.render("doudizhu_v0.env")

    def close(self) -> None:
        pass


def _spaces_within(space: spaces.Space) -> list[spaces.Space]:
    """``space`` and, for a Dict, its subspaces by key: the order in which
    their random streams are kept."""
    inner = [v for _, v in sorted(space.items())] if isinstance(space, spaces.Dict) else []
    return [space, *inner]


def _streams(space: spaces.Space) -> list:
    """The random streams of ``space`` and its subspaces (None: not made yet)."""
    return [s._np_random for s in _spaces_within(space)]


def _set_streams(space: spaces.Space, streams: list) -> None:
    for s, stream in zip(_spaces_within(space), streams):
        s._np_random = stream


def _copy_dict(space: spaces.Dict) -> spaces.Dict:
    boxes = {k: v for k, v in space.items() if isinstance(v, spaces.Box)}
    return spaces.Dict({k: spaces.Box(v.low, v.high, v.shape, dtype=v.dtype)
                        for k, v in boxes.items()})
