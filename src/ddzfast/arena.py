"""DouZero's evaluation protocol as an arena: who beats whom, and by how much.

``arena(a, b, deals=10000, seed=0)`` plays agent ``a`` against agent ``b``
exactly as DouZero (and PerfectDou) evaluate their agents:

* **Deals** are uniform shuffles of DouZero's 54-card deck, made as
  DouZero's ``generate_eval_data.py`` makes them: ``np.random.shuffle`` of
  the deck list, deal after deal, from NumPy's legacy ``RandomState(seed)``
  (what ``np.random.seed(seed)`` before that script gives); the landlord
  gets ``deck[:20]``, ``landlord_up`` ``deck[20:37]``, ``landlord_down``
  ``deck[37:54]``, and the kitty ``deck[17:20]`` (shown to all, held by the
  landlord). No bidding: seat 0 is the landlord, base 1; seat 1 is
  ``landlord_down`` (it plays after the landlord) and seat 2 ``landlord_up``.
* **Other rule sets** (``rules``: any rule set but classic's 54-card deck,
  which keeps DouZero's deals): deal ``i`` is the one
  ``Game(rules, deal_seed(2**32 + seed, i), bidding=False)`` deals (seat 0
  the landlord holding the kitty, the wild ranks of a laizi rule set drawn
  as that game draws them unless the rule set fixes them). The platform
  options of RULES.md 10 that add decisions before play (rob bidding,
  showing, doubling) are played only with bidding (below); no-shuffle
  sessions, whose deals depend on how the deal before was played, are a
  ValueError either way.
* **Each deal is played twice**: ``a`` as the landlord against ``b`` as both
  farmers, then ``b`` as the landlord against ``a`` as both farmers.
* **WP** is the share of deals a side wins; **ADP** the average points with
  DouZero's scoring: the landlord's side wins or loses ``2 * 2**bombs``
  (bombs and rockets played), the farmers' side the same (DouZero's
  ``2 * farmer score``); springs do not count. In another rule set the
  points are ``2 *`` the product of the rule set's factors (``multipliers``)
  over the bombs of its kinds played, with no cap (``mult_cap`` is not
  applied). Both are given per role (``a`` as landlord, ``a`` as farmers)
  and averaged over the roles, with 95% intervals (normal, over the
  per-deal values; the average pairs each deal's two games).

With bidding (``bidding=True``; not part of DouZero's protocol): the same
deals (seat 0's hand without the kitty, which waits for the landlord) are
bid as RULES.md 5 says (point bidding, seat 0 the first bidder; if all
pass, seat 0 is the landlord at base 1) and played in six seatings each,
``BIDDING_SEATINGS``: ``a`` alone in seat 0, 1 or 2 with ``b`` in the other
two, then the reverse, so that each agent holds each seat in three of the
six and bids from each place. When the bidding makes the lone agent a
farmer, the two agents share the farmers' side, so the statistics are
per seat: each seat scores its own points (RULES.md 6 with the base bid,
springs and the cap left out: the landlord ``2 * base * bombs`` won or
lost, each farmer half as much), and ``a``'s points in a game are its
seats' sum (what ``b`` loses). **WP** is the share of games in which
``a``'s seats came out ahead and **ADP** ``a``'s points per game (each
with its interval over the deals, a deal's six games averaged);
``landlord_share`` is the share of games ``a``'s seat won the bidding;
"as landlord" reads the games whose landlord seat was ``a``'s (the
landlord's WP and points) and "as farmers" those whose landlord was
``b``'s (the farmers' side's WP and points, ``a`` holding one or both
farmer seats), each with its interval over those games. Game ``t`` of
deal ``i`` is ``Game.from_deal(hands, kitty, rules, first_bidder=0,
seed=deal_seed(seed, 6 * i + t), redeal_seed=deal_seed(2**33 + seed, i))``
(a match of two built-in policies plays it out with ``rollout(policies,
seed=deal_seed(seed, 6 * i + t))``). A laizi rule set's wild rank is drawn
with the deal, and so are tiandi's two when the rule set does not fix
them, but its game is given the sky rank in ``rules`` and the ground rank
as ``from_deal``'s ``ground_rank``: the bidders see the sky rank alone, and
the ground rank comes with the kitty (RULES.md 9), the same in all six
seatings (a rule set fixing both ranks, ``"tiandi:7J"``, shows both, as in
``Game``). RLCard's rule agent and DouZero's models do not bid: with
bidding, the arena takes built-in policies and callables.

With bidding and the platform options (RULES.md 10: rob bidding, showing,
doubling, e.g. ``"classic+happy"``): the same deals (those of the rule set
without its options), each game's decisions made by the agents of their
seats, and the game played decision by decision from Python (built-in
policies too, so that the game keeps what was decided). Each seat's
points follow RULES.md 10's settlement with springs and the caps left out
(``cap`` and ``mult_cap`` are removed): farmer ``f``'s stake ``base *
2**robs * show * bombs * d_f * d_L`` won or lost, the landlord's the sum
of the farmers'; without the options this is the scoring above. A deal
nobody calls is redealt (``no_call="redeal"``, the default and the
``+happy`` preset's; ``no_call="first"`` makes the first bidder landlord),
its six seatings from the deal's one redeal seed (above), so that a
seating's k-th redeal deals the cards of every other seating's k-th.
``per_deal`` adds ``robs``, ``show`` (the show multiplier), ``doubles``
(each seat's factor), ``redeals`` and ``points`` (each seat's).

Agents (``resolve_agent``):

* a built-in policy name (``"random"``, ``"greedy"``, ``"expert"``): played
  in C; a match of two built-ins plays whole deals in C (``Game.rollout``)
  and can use ``threads``;
* a Python callable ``policy(game, legal)``, the contract of
  ``ddzfast.simulate`` (the index of its choice in ``legal``, or a Move);
* ``"rlcard-rule"`` (classic's deck only): RLCard's rule agent
  (``rlcard.models.doudizhu_rule_models.DouDizhuRuleAgentV1``, the ``rlcard``
  extra), given RLCard's raw state (its hand, the trace, the legal actions
  RLCard has ids for); every action it chooses is checked legal in
  ddzfast's engine and counted, and where it raises (RLCard's tables lack
  some moves ddzfast's rules allow, e.g. a plane with both jokers as kickers,
  when an opponent plays one) or chooses no legal move, a uniformly random
  legal move is played instead and counted, as DouZero's own RLCard adapter
  does. Its random choices come from NumPy's global generator, which the
  arena seeds per game from ``seed``;
* ``"douzero:DIR"`` (classic's deck only): DouZero's three trained
  networks (``landlord.ckpt``, ``landlord_up.ckpt``, ``landlord_down.ckpt``
  in ``DIR``, each holding every weight of its network) on the CPU, with
  torch and the douzero package: DouZero's own model classes and
  ``get_obs`` over an ``InfoSet`` built from ddzfast's game, choosing as
  DouZero's ``DeepAgent`` does (legal actions are ddzfast's, each card set
  once); the move it picks is checked legal.

A match of two built-in policies plays on threads, or as Ray tasks on a
cluster (``backend="ray"``), with the same results. ``ddzfast arena --a
expert --b rlcard-rule --deals 10000`` runs it from the command line
(``--rules laizi`` for another rule set, ``--bidding``, ``--backend ray``).
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass, field, fields
from typing import Any, Callable, Optional, Union

import numpy as np

from ddzfast._core import Hand, Move, Rules, _parallel, get_rules
from ddzfast.movekind import MoveKind
from ddzfast._engine import POLICIES, Game, GameResult, deal_seed
from ddzfast.rulesets import PLATFORM_DEFAULTS, decision_options
from ddzfast.constants import (CARD_CHARS, CARD_LIMITS, DOUZERO_CARDS, broken_import,
                               check_bool, check_int, check_threads, worker_count)
from ddzfast.simulate import (RAY_CONNECT_TIMEOUT, check_backend, ray_results, ray_session,
                              ray_task_bounds)

__all__ = ["arena", "ArenaResult", "arena_rules", "BIDDING_COLUMNS", "BIDDING_SEATINGS",
           "check_ray_agents", "douzero_deals", "resolve_agent", "RLCARD_RULE"]

#: The name of RLCard's rule agent as an arena agent.
RLCARD_RULE = "rlcard-rule"
#: The prefix of a DouZero checkpoint folder as an arena agent ("douzero:DIR").
DOUZERO_PREFIX = "douzero:"
#: The agents an arena takes by name, for messages and the command line's help.
AGENT_NAMES = (", ".join(POLICIES) + f", {RLCARD_RULE} (needs rlcard) or "
               f"{DOUZERO_PREFIX}DIR (a folder of DouZero's three .ckpt models; needs torch "
               "and douzero)")

#: DouZero's unshuffled deck, as ``generate_eval_data.py`` builds it.
_DOUZERO_DECK = [c for c, n in zip(DOUZERO_CARDS, CARD_LIMITS) for _ in range(n)]
_DOUZERO_CHAR = dict(zip(DOUZERO_CARDS, CARD_CHARS))
_Z = 1.959963984540054      # the 97.5% point of the standard normal


def douzero_deals(count: int, seed: int = 0) -> list[tuple[str, str, str, str]]:
    """``count`` deals as DouZero's ``generate_eval_data.py`` lays them out
    from ``np.random.seed(seed)``: ``(landlord, landlord_down, landlord_up,
    kitty)`` as card text, i.e. the hands of seats 0, 1, 2 and the kitty."""
    count = _count(count, "count")
    return _deals_from(np.random.RandomState(_seed(seed)), count)


def _deals_from(rs: np.random.RandomState, count: int) -> list:
    # the next `count` deals of the stream rs
    out = []
    for _ in range(count):
        deck = list(_DOUZERO_DECK)
        rs.shuffle(deck)
        text = ["".join(_DOUZERO_CHAR[c] for c in sorted(part))
                for part in (deck[:20], deck[37:54], deck[20:37], deck[17:20])]
        out.append(tuple(text))
    return out


# ---- agents ------------------------------------------------------------------------

class _Agent:
    """One side's player: ``choose(game, trace)`` returns the Move to play."""

    name = "agent"
    builtin: Optional[str] = None
    #: plays only on classic's deck (DouZero's deals): its tables or models
    #: know no wildcard
    classic_deck_only = False
    #: makes the decisions before play (bids), for the arena with bidding
    bids = False

    def start(self, game_seed: int) -> None:
        """Called before each game, with the game's seed."""

    def choose(self, game: Game, trace: list) -> Any:
        raise NotImplementedError

    def decide(self, game: Game) -> int:
        """The choice (a bid) in the decision phase now, for ``game.choose``."""
        raise NotImplementedError

    def stats(self) -> dict:
        return {}


class _Builtin(_Agent):
    bids = True

    def __init__(self, name: str):
        self.name = self.builtin = name

    def choose(self, game, trace):
        return game.policy_move(self.builtin)

    def decide(self, game):
        return game.policy_choice(self.builtin)


class _Callable(_Agent):
    bids = True

    def __init__(self, fn: Callable):
        from ddzfast.simulate import policy_name
        self.fn = fn
        self.name = policy_name(fn)

    def choose(self, game, trace):
        from ddzfast.simulate import _policy_choice
        return _policy_choice(self.fn, game, game.to_move)

    def decide(self, game):
        # (simulate's contract covers both: legal_choices() while deciding)
        return self.choose(game, [])


def _rlcard_text(cards) -> str:
    # RLCard's card string: the cards low to high, B and R for the jokers
    return str(cards).replace("X", "B").replace("D", "R")


def _rlcard_import_error(exc: ImportError) -> str:
    """The message for an import of RLCard's rule agent that failed with exc:
    rlcard missing, or installed but failing in its own imports (RLCard's
    agents import distutils, which Python 3.12 and later have only from
    setuptools)."""
    broken = broken_import(exc, "rlcard")
    if broken is None:
        return ("the arena agent 'rlcard-rule' needs rlcard, which is not "
                "installed; install it with: pip install 'ddzfast[rlcard]'")
    missing = getattr(exc, "name", None) or ""
    hint = " (distutils comes from setuptools on Python 3.12+)" if missing == "distutils" else ""
    return (f"the arena agent 'rlcard-rule' needs rlcard, {broken}{hint}; install it "
            f"again with its dependencies: pip install 'ddzfast[rlcard]'")


class _RLCardRule(_Agent):
    """RLCard's DouDizhuRuleAgentV1 over ddzfast's engine."""

    name = RLCARD_RULE
    classic_deck_only = True

    def __init__(self):
        try:
            from rlcard.games.doudizhu.utils import CARD_TYPE
            from rlcard.models.doudizhu_rule_models import DouDizhuRuleAgentV1
        except ImportError as exc:
            raise ImportError(_rlcard_import_error(exc)) from exc
        self.agent = DouDizhuRuleAgentV1()
        self.known = CARD_TYPE[2]
        self.decisions = 0
        self.legal_choices = 0
        self.raised = 0
        self.illegal = 0
        self.unlisted = 0
        self.rng = random.Random(0)

    def start(self, game_seed):
        np.random.seed(game_seed % (1 << 32))
        self.rng = random.Random(game_seed)

    def choose(self, game, trace):
        legal = list(game.legal_moves())
        texts = ["pass" if m.kind == MoveKind.PASS else _rlcard_text(m.cards) for m in legal]
        actions = []
        for t in texts:
            if (t == "pass" or t in self.known) and t not in actions:
                actions.append(t)
        self.unlisted += len(set(texts)) - len(actions)
        seat = game.to_move
        raw = {"current_hand": _rlcard_text(game.hands[seat]), "trace": list(trace),
               "actions": actions, "landlord": game.landlord, "self": seat}
        self.decisions += 1
        try:
            chosen = self.agent.step({"raw_obs": raw})
        except Exception:       # RLCard's tables lack the move to answer
            self.raised += 1
            return self.rng.choice(legal)
        if isinstance(chosen, str) and chosen in texts:
            self.legal_choices += 1
            return legal[texts.index(chosen)]
        self.illegal += 1
        return self.rng.choice(legal)

    def stats(self):
        return {"decisions": self.decisions, "legal_choices": self.legal_choices,
                "raised_random": self.raised, "illegal_random": self.illegal,
                "moves_without_rlcard_id": self.unlisted}


_POSITIONS = ("landlord", "landlord_down", "landlord_up")     # seats 0, 1, 2
DOUZERO_CHECKPOINTS = tuple(f"{p}.ckpt" for p in ("landlord", "landlord_up", "landlord_down"))


class _DouZeroModels(_Agent):
    """DouZero's three networks (``landlord.ckpt``, ``landlord_up.ckpt``,
    ``landlord_down.ckpt`` in one folder) on the CPU: DouZero's own model
    classes and ``get_obs``, choosing as its ``DeepAgent`` does, over
    ddzfast's engine."""

    classic_deck_only = True

    def __init__(self, folder: str):
        import os
        try:
            import torch
            from douzero.env.env import get_obs
        except ImportError as exc:
            if broken_import(exc, "torch", "douzero"):
                raise ImportError(f"the arena agent '{DOUZERO_PREFIX}DIR' needs torch and "
                                  f"douzero, one of which is installed but failed to "
                                  f"import: {exc}") from exc
            raise ImportError(f"the arena agent '{DOUZERO_PREFIX}DIR' needs torch and "
                              "douzero; install them with: pip install 'ddzfast[train]' "
                              "and pip install --no-deps douzero (its models need only "
                              "torch and numpy)") from exc
        missing = [f for f in DOUZERO_CHECKPOINTS if not os.path.isfile(os.path.join(folder, f))]
        if missing:
            raise ValueError(f"{DOUZERO_PREFIX}{folder} lacks {', '.join(missing)} "
                             f"(DouZero's three models: {', '.join(DOUZERO_CHECKPOINTS)})")
        self.name = DOUZERO_PREFIX + folder
        self.torch = torch
        self.get_obs = get_obs
        classes = _douzero_model_classes()
        self.models = {}
        for pos in _POSITIONS:
            # as DouZero's DeepAgent loads them, on the CPU
            model = classes[pos]()
            state = model.state_dict()
            path = os.path.join(folder, f"{pos}.ckpt")
            try:
                loaded = torch.load(path, map_location="cpu")
                # DouZero's DeepAgent takes the keys the model has and keeps
                # its random weights for any the file lacks: here a file
                # without them all is no checkpoint of this network
                lacking = [k for k in state if k not in loaded]
                if not lacking:
                    state.update({k: loaded[k] for k in state})
                    model.load_state_dict(state)
            except Exception as exc:   # noqa: BLE001 - unpickling fails in many types
                raise ValueError(f"{path} is not a DouZero {pos} model "
                                 f"({type(exc).__name__}: {exc})") from exc
            if lacking:
                raise ValueError(f"{path} is not a DouZero {pos} model: it lacks "
                                 f"{len(lacking)} of its {len(state)} weights "
                                 f"({', '.join(lacking[:4])}"
                                 f"{', ...' if len(lacking) > 4 else ''})")
            model.eval()
            self.models[pos] = model
        self.decisions = 0
        self.legal_choices = 0

    def _act(self, pos, info):
        # DouZero's DeepAgent.act: the legal action of the highest value
        if len(info.legal_actions) == 1:
            return info.legal_actions[0]
        obs = self.get_obs(info)
        with self.torch.no_grad():
            z = self.torch.from_numpy(obs["z_batch"]).float()
            x = self.torch.from_numpy(obs["x_batch"]).float()
            values = self.models[pos].forward(z, x, return_value=True)["values"]
        return info.legal_actions[int(np.argmax(values.numpy(), axis=0)[0])]

    def choose(self, game, trace):
        from douzero.env.game import InfoSet
        from ddzfast.compat.douzero import to_douzero
        seat = game.to_move
        pos = _POSITIONS[seat]
        legal = list(game.legal_moves())
        actions, index = [], {}
        for i, m in enumerate(legal):
            cards = [] if m.kind == MoveKind.PASS else sorted(to_douzero(m.cards))
            key = tuple(cards)
            if key not in index:
                index[key] = i
                actions.append(cards)
        seq = [[] if m.kind == MoveKind.PASS else sorted(to_douzero(m.cards))
               for _, m in game.history]
        info = InfoSet(pos)
        info.player_hand_cards = sorted(to_douzero(game.hands[seat]))
        info.num_cards_left_dict = {_POSITIONS[s]: len(game.hands[s]) for s in range(3)}
        info.three_landlord_cards = sorted(to_douzero(game.kitty))
        info.card_play_action_seq = seq
        info.other_hand_cards = sorted(to_douzero(game.hands[(seat + 1) % 3])
                                       + to_douzero(game.hands[(seat + 2) % 3]))
        info.legal_actions = actions
        # DouZero's readings of the history (GameEnv.get_last_move, ...)
        info.last_move = (seq[-2] if len(seq[-1]) == 0 and len(seq) > 1 else seq[-1]) if seq else []
        info.last_two_moves = ([seq[-1], seq[-2]] if len(seq) > 1 else
                               [seq[-1], []] if seq else [[], []])
        last = {p: [] for p in _POSITIONS}
        played = {p: [] for p in _POSITIONS}
        bombs = 0
        for (who, m), cards in zip(game.history, seq):
            last[_POSITIONS[who]] = cards
            played[_POSITIONS[who]] = played[_POSITIONS[who]] + cards
            bombs += m.kind in (MoveKind.BOMB, MoveKind.ROCKET)
        info.last_move_dict = last
        info.played_cards = played
        info.bomb_num = bombs
        info.last_pid = _POSITIONS[game.history[-1][0]] if game.history else "landlord"
        self.decisions += 1
        chosen = self._act(pos, info)
        i = index.get(tuple(sorted(chosen)))
        if i is None:
            raise RuntimeError(f"the DouZero model chose {chosen}, which is no legal action")
        self.legal_choices += 1
        return legal[i]

    def stats(self):
        return {"decisions": self.decisions, "legal_choices": self.legal_choices}


def _douzero_model_classes() -> dict:
    """DouZero's ``model_dict`` (douzero/dmc/models.py), loaded from its file:
    importing ``douzero.dmc`` would import DouZero's training code and its
    dependencies (GitPython, ...), which evaluation does not need."""
    import importlib.util
    import os

    import douzero
    path = os.path.join(os.path.dirname(douzero.__file__), "dmc", "models.py")
    spec = importlib.util.spec_from_file_location("_ddzfast_douzero_models", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"douzero's models are not at {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.model_dict


AgentLike = Union[str, Callable[..., Any], _Agent]


#: How the unknown-agent message offers a callable (the command line, which
#: takes none, leaves it out).
CALLABLE_AGENT = ", or a callable policy(game, legal)"
#: The same in the message for an agent that does not bid.
CALLABLE_BIDDER = " and callables"


def resolve_agent(spec: AgentLike) -> _Agent:
    """An arena agent from a built-in policy name, ``"rlcard-rule"``,
    ``"douzero:DIR"`` (a folder with DouZero's ``landlord.ckpt``,
    ``landlord_up.ckpt`` and ``landlord_down.ckpt``, run on the CPU with
    torch) or a callable ``policy(game, legal)``; ValueError/TypeError
    otherwise, and ImportError naming what to install when it is missing."""
    if isinstance(spec, _Agent):
        return spec
    if isinstance(spec, str):
        if spec in POLICIES:
            return _Builtin(spec)
        if spec == RLCARD_RULE:
            return _RLCardRule()
        if spec.startswith(DOUZERO_PREFIX):
            return _DouZeroModels(spec[len(DOUZERO_PREFIX):])
        raise ValueError(f"unknown arena agent {spec!r}: use {AGENT_NAMES}"
                         f"{CALLABLE_AGENT}")
    if callable(spec):
        return _Callable(spec)
    raise TypeError(f"an arena agent is a policy name or a callable, not "
                    f"{type(spec).__name__}")


# ---- playing -------------------------------------------------------------------------

#: The most deals one arena call plays (the command line's bound too).
MAX_DEALS = 10 ** 8
_BLOCK = 100_000        # deals laid out at a time (memory stays bounded)


def _count(value, what) -> int:
    value = check_int(value, what)
    if not 0 <= value <= MAX_DEALS:
        raise ValueError(f"{what} must be an int in 0 .. {MAX_DEALS}, not {value!r}")
    return value


def _seed(value) -> int:
    value = check_int(value, "seed")
    if not 0 <= value < 2 ** 32:
        raise ValueError(f"seed must be an int in 0 .. 2**32 - 1 (NumPy's RandomState), "
                         f"not {value!r}")
    return value


def _douzero_deck(rules: Rules) -> bool:
    """Whether ``rules`` is dealt from DouZero's deck (54 cards, no wildcard,
    no wild rank, a kitty of 3), and so from DouZero's deals."""
    return not rules.wildcard and not rules.laizi and rules.kitty == 3


def _decisions(rules: Rules) -> list[str]:
    """The platform options of ``rules`` (RULES.md 10) that add decisions
    before play, by name."""
    return [what for what, on in decision_options(rules.platform).items() if on]


def arena_rules(rules: Union[str, Rules] = "classic", *agents: AgentLike,
                bidding: bool = False) -> Rules:
    """The rule set an arena plays for ``rules`` (a name or a Rules) with
    ``agents`` (what ``arena`` takes: names, callables): ValueError for
    no-shuffle sessions (each deal would depend
    on how the one before was played), for rob bidding, showing or doubling
    without ``bidding`` (DouZero's evaluation makes no decision before
    play), an agent that plays only classic's deck in another rule set, or,
    with ``bidding``, an agent that does not bid. Its ``mult_cap`` and
    ``cap`` are removed, as DouZero's scoring has no cap."""
    r = get_rules(rules)
    check_bool(bidding, "bidding")
    resolved = [resolve_agent(a) for a in agents]
    if r.platform["deal"] == "no_shuffle":
        raise ValueError(f"the arena deals every deal afresh, and {r.ranked_name!r} has the "
                         f"platform option of no-shuffle sessions (each deal made from the "
                         f"cards of the one before, which the seatings play differently): "
                         f"use the rule set with deal='shuffle'")
    decisions = _decisions(r)
    if decisions and not bidding:
        raise ValueError(f"DouZero's evaluation makes no decision before play, and "
                         f"{r.ranked_name!r} has platform options ({', '.join(decisions)}): play "
                         f"them with bidding=True (ddzfast arena --bidding)")
    if not _douzero_deck(r):
        for agent in resolved:
            if agent.classic_deck_only:
                raise ValueError(f"the arena agent {agent.name!r} plays only classic's "
                                 f"54-card deck without wildcards, not {r.ranked_name!r}")
    if bidding:
        for agent in resolved:
            if not agent.bids:
                raise ValueError(f"the arena agent {agent.name!r} does not bid: the arena "
                                 f"with bidding takes built-in policies{CALLABLE_BIDDER}")
    uncapped = {k: None for k, v in (("mult_cap", r.description.get("mult_cap")),
                                     ("cap", r.platform["cap"])) if v is not None}
    return r.with_options(**uncapped) if uncapped else r


#: Deals of the rule sets other than classic's deck come from the engine,
#: from seeds apart from the games' (which come from ``seed`` itself, < 2**32).
_ENGINE_DEALS = 1 << 32
#: With bidding, the redeals of deal i (nobody called) come from
#: ``deal_seed(_REDEAL_SEEDS + seed, i)`` in each of its seatings, apart
#: from the games' seeds and the engine's deals.
_REDEAL_SEEDS = 2 << 32


def _engine_deals(rules: Rules, seed: int, first: int, count: int) -> list:
    # deals first..first+count-1 as (hands..., kitty, the deal's rules):
    # dealt as the rule set without its platform options deals them (seat 0
    # the landlord, the kitty in its hand), then played with them. A tiandi
    # deal whose ground rank the rule set leaves to the draw ends with its
    # bidding's rules (the sky rank alone) and its ground rank: a game bid
    # from it is given the rank, to come with the kitty (_bidding_deal).
    platform = rules.platform
    dealer = rules if platform == PLATFORM_DEFAULTS else rules.with_options(**PLATFORM_DEFAULTS)
    ground_drawn = rules.wild_count == 2 and len(rules.wild_ranks) < 2
    played: dict = {}
    bid_with: dict = {}
    out: list[tuple] = []
    for i in range(first, first + count):
        game = Game(dealer, deal_seed(_ENGINE_DEALS + seed, i), bidding=False)
        # (game.rules: with the wild ranks the deal drew)
        drawn = game.rules
        ranks = drawn.wild_ranks
        if dealer is not rules:
            # (the deals' rule sets differ only in the wild ranks drawn)
            if ranks not in played:
                played[ranks] = drawn.with_options(**platform)
            drawn = played[ranks]
        if ground_drawn:
            if ranks not in bid_with:
                bid_with[ranks] = drawn.with_options(wild_ranks=ranks[:1])
            out.append((*game.hands, game.kitty, drawn, bid_with[ranks], ranks[1]))
        else:
            out.append((*game.hands, game.kitty, drawn))
    return out


def _bombs_factor(result: GameResult) -> int:
    # the multiplier (uncapped: arena_rules) less spring's factor 2 (RULES.md 6)
    return result.multiplier // (2 if (result.spring or result.anti_spring) else 1)


def _play(deal, landlord: _Agent, farmers: _Agent, game_seed: int) -> tuple[bool, int]:
    """One game of a deal (hands, kitty, rules): (the landlord won, the
    product of the factors of the bombs played)."""
    hands, kitty, rules = deal[:3], deal[3], deal[4]
    game = Game.from_position(hands, rules, landlord=0, kitty=kitty, seed=game_seed)
    if landlord.builtin and farmers.builtin:
        result = game.rollout((landlord.builtin, farmers.builtin, farmers.builtin),
                              seed=game_seed)
    else:
        result = _play_moves(game, (landlord, farmers, farmers), game_seed)
    return result.winner == "landlord", _bombs_factor(result)


def _bidding_deal(deal) -> tuple:
    """A deal (hands, kitty, rules[, bidding's rules, ground rank]) as
    bidding starts it: (hands, kitty, rules, ground), seat 0's hand without
    the kitty it held; a tiandi deal whose ground rank was drawn bids with
    the sky rank alone, and ``ground`` is given to every seating, to come
    with the kitty (RULES.md 9), else None."""
    hands, kitty, rules = deal[:3], deal[3], deal[4]
    ground = None
    if len(deal) > 5:
        rules, ground = deal[5], deal[6]
    return (Hand(hands[0]) - Hand(kitty), hands[1], hands[2]), kitty, rules, ground


def _play_bidding(deal, seats: tuple, game_seed: int, redeal_seed: int) -> tuple:
    """One game of a deal (``_bidding_deal``) with bidding, ``seats`` the
    agents of seats 0, 1, 2, redealt (nobody called) from ``redeal_seed``:
    a row of ``BIDDING_COLUMNS``."""
    hands, kitty, rules, ground = deal
    game = Game.from_deal(hands, kitty, rules, first_bidder=0, seed=game_seed,
                          redeal_seed=redeal_seed, ground_rank=ground)
    if all(agent.builtin for agent in seats) and not _decisions(rules):
        result = game.rollout(tuple(agent.builtin for agent in seats), seed=game_seed)
    else:
        # (the platform's decisions are read off the game, which a rollout
        # leaves as it was: it plays a copy)
        result = _play_moves(game, seats, game_seed)
    robs, show = game.robs, game.show_multiplier
    # (the multiplier less spring's factor holds the robs' and the show's)
    factor = _bombs_factor(result) // (2 ** robs * show)
    return (result.landlord, result.base, result.winner == "landlord", factor, robs, show,
            *game.doubles, game.redeals)


def _play_moves(game: Game, seats: tuple, game_seed: int) -> GameResult:
    """The game played to its end, each decision and move asked of the agent
    of its seat (``seats``: seats 0, 1, 2)."""
    for agent in dict.fromkeys(seats):      # each once, in seat order
        agent.start(game_seed)
    trace: list = []
    while not game.done:
        seat = game.to_move
        assert seat is not None     # the deal is not done
        agent = seats[seat]
        if game.phase != "play":
            game.choose(agent.decide(game))     # the engine checks it
            continue
        move = agent.choose(game, trace)
        game.play(move)     # the engine checks it: an illegal move raises
        if not isinstance(move, Move):
            move = game.history[-1][1]
        trace.append((seat, "pass" if move.kind == MoveKind.PASS else _rlcard_text(move.cards)))
    result = game.result
    assert result is not None       # the deal is done
    return result


@dataclass
class ArenaResult:
    """The outcome of ``arena(a, b)``: ``wp`` and ``adp`` are ``(value,
    half-width of the 95% interval)`` pairs, for ``a`` as the landlord, ``a``
    as the farmers, and averaged over the two roles (NaN where the deals
    leave them undefined: both with no deals, the half-width with one; None
    in ``as_dict``); ``per_deal`` holds, for
    each deal, whether ``a`` won as landlord and as farmers and the points it
    made in each role; ``agents`` the counters of agents that keep them (the
    RLCard agent's legal and random choices); ``rules`` the rule set: the
    name given; for a Rules, its ``ranked_name`` (its name and wild ranks)
    when that name gives the same rule set, else its repr.
    With ``bidding`` (the module docstring's "With bidding"),
    ``landlord_share`` is the share of games whose bidding made one of
    ``a``'s seats the landlord, and ``per_deal`` holds arrays
    of one row per deal and one column per seating of
    ``BIDDING_SEATINGS``: ``landlord`` (its seat), ``base``,
    ``landlord_won``, ``bombs_factor``, ``robs``, ``show`` (the show
    multiplier), ``redeals``, ``a_landlord`` (the landlord seat was
    ``a``'s) and ``a_points``, and ``doubles`` and ``points`` with a third
    axis, the seat (each seat's doubling factor and points)."""

    a: str
    b: str
    deals: int
    seed: int
    wp_landlord: tuple[float, float]
    wp_farmers: tuple[float, float]
    wp: tuple[float, float]
    adp_landlord: tuple[float, float]
    adp_farmers: tuple[float, float]
    adp: tuple[float, float]
    per_deal: dict = field(repr=False, default_factory=dict)
    agents: dict = field(default_factory=dict)
    rules: str = "classic"
    bidding: bool = False
    landlord_share: tuple[float, float] = (math.nan, math.nan)

    def __eq__(self, other: object) -> bool:
        # every field, the per-deal arrays element by element and an
        # undefined statistic (NaN) equal to an undefined one: a copy or a
        # pickle of a result is equal to it
        if other.__class__ is not self.__class__:
            return NotImplemented
        for f in fields(self):
            mine, theirs = getattr(self, f.name), getattr(other, f.name)
            if f.name == "per_deal":
                if mine.keys() != theirs.keys() or not all(
                        np.array_equal(mine[k], theirs[k]) for k in mine):
                    return False
            elif isinstance(mine, tuple) and isinstance(theirs, tuple):
                if len(mine) != len(theirs) or not all(
                        x == y or (math.isnan(x) and math.isnan(y))
                        for x, y in zip(mine, theirs)):
                    return False
            elif mine != theirs:
                return False
        return True

    def as_dict(self) -> dict:
        """The result without the per-deal arrays, as JSON-ready values: a
        statistic the deals leave undefined (any with no deals, an interval
        with one) is None, as in ``report.summarize``; ``landlord_share``
        only with bidding."""
        d = {k: getattr(self, k) for k in ("a", "b", "rules", "bidding", "deals", "seed")}
        keys = ["wp_landlord", "wp_farmers", "wp", "adp_landlord", "adp_farmers", "adp"]
        for k in keys + (["landlord_share"] if self.bidding else []):
            v, h = getattr(self, k)
            d[k] = {"value": _defined(v), "ci95": _defined(h)}
        d["agents"] = self.agents
        return d

    def table(self) -> str:
        """The result as a few lines of text ("n/a" for what the deals
        leave undefined)."""
        def num(x):
            return "n/a" if math.isnan(x) else f"{x:.3f}"

        def f(p):
            return f"{num(p[0])} ± {num(p[1])}"
        where = "" if self.rules == "classic" else f", {self.rules}"
        deals = f"{self.deals} deal{'' if self.deals == 1 else 's'}"
        if self.bidding:
            return (f"{self.a} vs {self.b}: {deals} (seed {self.seed}{where}), "
                    f"each bid and played in {len(BIDDING_SEATINGS)} seatings\n"
                    f"  landlord share {f(self.landlord_share)}\n"
                    f"  WP  as landlord {f(self.wp_landlord)}  as farmers "
                    f"{f(self.wp_farmers)}  games ahead {f(self.wp)}\n"
                    f"  ADP as landlord {f(self.adp_landlord)}  as farmers "
                    f"{f(self.adp_farmers)}  per game {f(self.adp)}")
        return (f"{self.a} vs {self.b}: {deals} (seed {self.seed}{where}), "
                f"each played twice\n"
                f"  WP  as landlord {f(self.wp_landlord)}  as farmers "
                f"{f(self.wp_farmers)}  average {f(self.wp)}\n"
                f"  ADP as landlord {f(self.adp_landlord)}  as farmers "
                f"{f(self.adp_farmers)}  average {f(self.adp)}")


def _defined(x: float) -> float | None:
    """``x``, or None for NaN: an undefined statistic, which JSON has no
    number for."""
    return None if math.isnan(x) else x


def _mean_ci(x: np.ndarray) -> tuple[float, float]:
    x = np.asarray(x, dtype=np.float64)
    n = len(x)
    if n == 0:
        return (math.nan, math.nan)
    half = _Z * float(np.std(x, ddof=1)) / math.sqrt(n) if n > 1 else math.nan
    return (float(np.mean(x)), half)


#: The seatings of a deal in the arena with bidding: who plays seats 0, 1, 2.
BIDDING_SEATINGS = ("ABB", "BAB", "BBA", "BAA", "ABA", "AAB")
#: What the arena with bidding records of each game: the landlord's seat,
#: the base, whether the landlord won, the product of the factors of the
#: bombs played, the robs, the show multiplier, each seat's doubling
#: factor and the redeals (RULES.md 10; 0, 1, 1, 1, 1 and 0 without its
#: options).
BIDDING_COLUMNS = ("landlord", "base", "landlord_won", "bombs_factor", "robs", "show",
                   "double_0", "double_1", "double_2", "redeals")
#: The columns of a deal's row in the arena's per-deal array: without
#: bidding (won as landlord, points as landlord, won as farmers, points as
#: farmers), with bidding BIDDING_COLUMNS for each seating.
_COLUMNS = {False: 4, True: len(BIDDING_COLUMNS) * len(BIDDING_SEATINGS)}


def _run(deals, first: int, a: _Agent, b: _Agent, seed: int, bidding: bool,
         out: np.ndarray) -> None:
    # deals first, first + 1, ... into out[0], out[1], ...
    for j, deal in enumerate(deals):
        i = first + j
        if bidding:
            k = len(BIDDING_SEATINGS)
            bid_deal = _bidding_deal(deal)
            width = len(BIDDING_COLUMNS)
            redeals_from = deal_seed(_REDEAL_SEEDS + seed, i)
            for t, seating in enumerate(BIDDING_SEATINGS):
                seats = tuple(a if c == "A" else b for c in seating)
                out[j, width * t:width * (t + 1)] = _play_bidding(
                    bid_deal, seats, deal_seed(seed, k * i + t), redeals_from)
            continue
        lw, lb = _play(deal, a, b, deal_seed(seed, 2 * i))
        fw, fb = _play(deal, b, a, deal_seed(seed, 2 * i + 1))
        out[j] = (lw, 2 * lb if lw else -2 * lb, not fw, 2 * fb if not fw else -2 * fb)


def _run_part(deals, first: int, a: _Agent, b: _Agent, seed: int, bidding: bool,
              out: np.ndarray, cancel) -> None:
    # _run as one of _parallel's parts (a block is short: `cancel`, the
    # others' stop, is not read)
    _run(deals, first, a, b, seed, bidding, out)


def _layout(played: Rules, rs: Optional[np.random.RandomState], seed: int, first: int,
            count: int) -> list:
    """Deals first .. first + count - 1: the next ``count`` of DouZero's
    stream ``rs`` (classic's deck), else the engine's."""
    if rs is not None:
        return [(*d, played) for d in _deals_from(rs, count)]
    return _engine_deals(played, seed, first, count)


def _arena_range(a: str, b: str, rules_name: str, description: dict, seed: int,
                 bidding: bool, first: int, count: int, state) -> np.ndarray:
    """A Ray task: deals first .. first + count - 1 of a match of two
    built-in policies, DouZero's stream resumed from ``state`` (None: the
    engine's deals); their rows of the arena's per-deal array."""
    played = Rules(rules_name, **description)
    rs = None
    if state is not None:
        rs = np.random.RandomState()
        rs.set_state(state)
    out = np.zeros((count, _COLUMNS[bidding]), dtype=np.float64)
    for off in range(0, count, _BLOCK):
        n = min(_BLOCK, count - off)
        _run(_layout(played, rs, seed, first + off, n), first + off, _Builtin(a),
             _Builtin(b), seed, bidding, out[off:off + n])
    return out


def check_ray_agents(agent_a: AgentLike, agent_b: AgentLike) -> None:
    """ValueError unless both agents (as ``arena`` takes them, or from
    ``resolve_agent``) are built-in policies, the only ones the Ray backend
    plays (the others play in this process)."""
    agent_a, agent_b = resolve_agent(agent_a), resolve_agent(agent_b)
    if not (agent_a.builtin and agent_b.builtin):
        raise ValueError(f"backend 'ray' plays a match of two built-in policies "
                         f"({', '.join(POLICIES)}), not {agent_a.name!r} against "
                         f"{agent_b.name!r}: other agents play in this process")


def _arena_ray(agent_a: _Agent, agent_b: _Agent, played: Rules, deals: int, seed: int,
               bidding: bool, douzero: bool, address, tasks,
               connect_timeout) -> np.ndarray:
    ray = ray_session(address, connect_timeout)
    bounds = ray_task_bounds(ray, tasks, 0, deals)
    rs = np.random.RandomState(seed)
    arglists = []
    for t in range(len(bounds) - 1):
        count = bounds[t + 1] - bounds[t]
        state = None
        if douzero:
            # each task resumes DouZero's one stream where the one before ends
            state = rs.get_state()
            for off in range(0, count, _BLOCK):
                _deals_from(rs, min(_BLOCK, count - off))
        arglists.append((agent_a.builtin, agent_b.builtin, played.name,
                         played.description_dict(), seed, bidding, bounds[t], count, state))
    parts = ray_results(ray, _arena_range, arglists)
    return (np.concatenate(parts) if parts
            else np.zeros((0, _COLUMNS[bidding]), dtype=np.float64))


def _arena_local(agent_a: _Agent, agent_b: _Agent, played: Rules, deals: int, seed: int,
                 bidding: bool, douzero: bool, threads: int) -> np.ndarray:
    out = np.zeros((deals, _COLUMNS[bidding]), dtype=np.float64)
    # RLCard's agent draws from NumPy's global generator, which each game
    # seeds: the caller gets its state back
    saved = None
    if not (agent_a.builtin and agent_b.builtin):
        threads = 1
        saved = np.random.get_state()
    threads = worker_count(threads, max(deals, 1))
    rs = np.random.RandomState(seed) if douzero else None
    try:
        for start in range(0, deals, _BLOCK):
            n = min(_BLOCK, deals - start)
            layout = _layout(played, rs, seed, start, n)
            if threads == 1:
                _run(layout, start, agent_a, agent_b, seed, bidding, out[start:start + n])
                continue
            # (_parallel's threads: a Ctrl-C is raised, never lost, and no
            # thread outlives the block)
            bounds = [start + n * t // threads for t in range(threads + 1)]
            _parallel(threads, _run_part,
                      [(layout[bounds[t] - start:bounds[t + 1] - start], bounds[t], agent_a,
                        agent_b, seed, bidding, out[bounds[t]:bounds[t + 1]])
                       for t in range(threads)])
    finally:
        if saved is not None:
            np.random.set_state(saved)
    return out


def arena(a: AgentLike, b: AgentLike, deals: int = 10000, seed: int = 0,
          threads: int = 1, rules: Union[str, Rules] = "classic",
          backend: str = "local", address: Optional[str] = None,
          tasks: Optional[int] = None,
          connect_timeout: float = RAY_CONNECT_TIMEOUT,
          bidding: bool = False) -> ArenaResult:
    """Play ``a`` against ``b`` under DouZero's evaluation protocol (see the
    module docstring): ``deals`` deals from ``seed`` (0 .. 2**32 - 1), each
    played with ``a`` as the landlord and with ``a`` as both farmers.
    ``threads`` plays a match of two built-in policies on threads (other
    agents run in Python on one thread, so that their random choices are
    reproducible). ``rules``: the rule set (see the module docstring and
    ``arena_rules``; classic's deck plays DouZero's deals). ``bidding``:
    the same deals bid and played in six seatings each (the module
    docstring's "With bidding").
    ``backend="ray"`` plays a match of two built-in policies as ``tasks``
    Ray tasks (default: 4 per CPU of the cluster) on the cluster
    ``ray.init(address=address)`` connects to, as ``simulate`` does
    (``connect_timeout`` likewise). Returns an ``ArenaResult``; equal
    arguments give equal results, whatever the threads, backend or tasks."""
    deals = _count(deals, "deals")
    seed = _seed(seed)
    threads = check_threads(threads)
    tasks, connect_timeout = check_backend(backend, address, tasks, connect_timeout)
    agent_a = resolve_agent(a)
    agent_b = resolve_agent(b)
    played = arena_rules(rules, agent_a, agent_b, bidding=bidding)
    bidding = bool(bidding)
    douzero = _douzero_deck(played)
    if backend == "ray":
        check_ray_agents(agent_a, agent_b)
        out = _arena_ray(agent_a, agent_b, played, deals, seed, bidding, douzero, address,
                         tasks, connect_timeout)
    else:
        out = _arena_local(agent_a, agent_b, played, deals, seed, bidding, douzero, threads)
    agents = {}
    for side, agent in (("a", agent_a), ("b", agent_b)):
        if agent.stats():
            agents[side] = agent.stats()
    return ArenaResult(
        a=agent_a.name, b=agent_b.name, deals=deals, seed=seed,
        rules=_rules_text(get_rules(rules)),
        agents=agents,
        **(_bidding_statistics(out) if bidding else _statistics(out)))


def _rules_text(rules: Rules) -> str:
    """How a result names a rule set given as a Rules: its ``ranked_name``
    when that name gives the same rule set, else its repr, which tells what
    sets it apart (kinds left out, options)."""
    try:
        if get_rules(rules.ranked_name).rules_id == rules.rules_id:
            return rules.ranked_name
    except ValueError:
        pass
    return repr(rules)


def _statistics(out: np.ndarray) -> dict:
    """ArenaResult's statistics and per-deal arrays from the rows of the
    arena without bidding."""
    won_l, pts_l, won_f, pts_f = out.T
    return dict(
        wp_landlord=_mean_ci(won_l), wp_farmers=_mean_ci(won_f),
        wp=_mean_ci((won_l + won_f) / 2),
        adp_landlord=_mean_ci(pts_l), adp_farmers=_mean_ci(pts_f),
        adp=_mean_ci((pts_l + pts_f) / 2),
        per_deal={"a_won_as_landlord": won_l.astype(bool), "a_points_as_landlord": pts_l,
                  "a_won_as_farmers": won_f.astype(bool), "a_points_as_farmers": pts_f})


def _bidding_statistics(out: np.ndarray) -> dict:
    """ArenaResult's statistics and per-deal arrays from the rows of the
    arena with bidding (the module docstring's "With bidding")."""
    games = out.reshape(len(out), len(BIDDING_SEATINGS), len(BIDDING_COLUMNS))
    col = {name: games[:, :, i] for i, name in enumerate(BIDDING_COLUMNS)}
    landlord = col["landlord"].astype(np.int8)
    landlord_won = col["landlord_won"].astype(bool)
    doubles = np.stack([col[f"double_{s}"] for s in range(3)], axis=2)
    d_landlord = np.take_along_axis(doubles, landlord.astype(np.intp)[:, :, None], 2)
    # each seat's points (RULES.md 10's settlement, springs and the caps
    # left out): farmer f's stake base * 2**robs * show * bombs * d_f * d_L,
    # won or lost; the landlord's, the farmers' stakes added
    stakes = (col["base"] * 2.0 ** col["robs"] * col["show"] * col["bombs_factor"])[
        :, :, None] * doubles * d_landlord
    seat = np.arange(3)
    is_landlord = seat == landlord[:, :, None]
    farmer_stakes = np.where(is_landlord, 0.0, stakes)
    sign = np.where(landlord_won, 1.0, -1.0)[:, :, None]
    points = sign * np.where(is_landlord, farmer_stakes.sum(axis=2, keepdims=True),
                             -farmer_stakes)
    a_seat = np.array([[c == "A" for c in seating] for seating in BIDDING_SEATINGS])
    a_landlord = a_seat[np.arange(len(BIDDING_SEATINGS)), landlord]
    a_points = (points * a_seat).sum(axis=2)
    landlord_points = np.take_along_axis(points, landlord.astype(np.intp)[:, :, None],
                                         2)[:, :, 0]
    return dict(
        wp_landlord=_mean_ci(landlord_won[a_landlord]),
        wp_farmers=_mean_ci(~landlord_won[~a_landlord]),
        wp=_mean_ci((a_points > 0).mean(axis=1)),
        adp_landlord=_mean_ci(landlord_points[a_landlord]),
        adp_farmers=_mean_ci(-landlord_points[~a_landlord]),
        adp=_mean_ci(a_points.mean(axis=1)),
        landlord_share=_mean_ci(a_landlord.mean(axis=1)),
        bidding=True,
        per_deal={"landlord": landlord, "base": col["base"].astype(np.int8),
                  "landlord_won": landlord_won,
                  "bombs_factor": col["bombs_factor"].astype(np.int64),
                  "robs": col["robs"].astype(np.int8), "show": col["show"].astype(np.int8),
                  "doubles": doubles.astype(np.int8),
                  "redeals": col["redeals"].astype(np.int64), "points": points,
                  "a_points": a_points, "a_landlord": a_landlord})
