"""Text rendering of a deal: the table's lines, shared by ``ddzfast play``
and the environments' human rendering (ddzfast.env), so a deal reads the
same in both."""
from __future__ import annotations

from typing import Sequence

from ddzfast._core import Hand, Move
from ddzfast._engine import Game
from ddzfast.constants import CARD_CHARS


def bid_line(name: str, points: int) -> str:
    """A seat's bid as the table prints it."""
    return f"{name} bids {points or 'pass'}\n"


def decision_kind(game: Game, phase: str | None = None) -> str | None:
    """The decision made before play (RULES.md 5 and 10) in ``phase`` (default:
    the game's): "bid" (point bidding), "call" or "rob" (rob bidding: a rob
    once a seat has called), "show" or "double"; None in play and once the
    deal is over."""
    phase = game.phase if phase is None else phase
    if phase == "bidding":
        if game.rules.platform["bidding"] != "rob":
            return "bid"
        return "rob" if any(c for _, c in game.calls) else "call"
    if phase in ("show", "landlord_show"):
        return "show"
    if phase == "doubling":
        return "double"
    return None


def choice_line(name: str, phase: str, choice: int, game: Game) -> str:
    """A seat's decision in ``phase`` (a bid, a call or rob, a show, a doubling
    factor) as the table prints it; ``game`` as it was before the decision."""
    kind = decision_kind(game, phase)
    if kind == "bid":
        return bid_line(name, choice)
    if kind == "rob":
        return f"{name} {'robs' if choice else 'does not rob'}\n"
    if kind == "call":
        return f"{name} {'calls' if choice else 'passes'}\n"
    if kind == "show":
        return f"{name} {'shows its hand' if choice else 'does not show'}\n"
    return f"{name} doubles x{choice}\n"


def landlord_line(game: Game, names: Sequence[str]) -> str:
    """Who became the landlord, the base and the kitty (ValueError before
    there is one)."""
    if game.landlord is None:
        raise ValueError(f"no landlord yet (the deal is in its {game.phase} phase)")
    return f"landlord: {names[game.landlord]} (base {game.base}); kitty {game.kitty}\n"


def redeal_line(game: Game) -> str:
    """A redeal (rob bidding where nobody called, RULES.md 10): the cards are
    dealt again and the deal starts over from its first decision."""
    return f"nobody called: the cards are dealt again (redeal {game.redeals})\n"


def wild_lines(game: Game) -> str:
    """The wild ranks a deal has at its start: laizi's rank; tiandi's sky
    rank, and its ground rank when the rule set fixes both (else it is told
    as drawn, ``ground_line``); "" in the other rule sets."""
    ranks = game.wild_ranks
    if not ranks:
        return ""
    if game.rules.wild_count < 2:
        rank = CARD_CHARS[ranks[0]]
        return f"laizi (wild) rank: {rank} (every {rank} stands for any card 3..2)\n"
    if len(ranks) == 2:
        return f"sky laizi rank: {CARD_CHARS[ranks[0]]}\n" + ground_line(game)
    return (f"sky laizi rank: {CARD_CHARS[ranks[0]]} (the ground rank is drawn once "
            f"the landlord takes the kitty)\n")


def ground_line(game: Game) -> str:
    """A tiandi deal's ground rank, with its sky rank."""
    sky, ground = game.wild_ranks
    return (f"ground laizi rank: {CARD_CHARS[ground]} (every {CARD_CHARS[sky]} "
            f"and {CARD_CHARS[ground]} stands for any card 3..2)\n")


def move_line(name: str, move: Move, left: int) -> str:
    """A seat's move and the cards it has left."""
    return f"{name}: {move}  ({left} left)\n"


def no_choice(game: Game) -> int:
    """The choice that says no in the decision now: 1 (no doubling) when
    doubling, else 0 (a pass, no call or rob, no show)."""
    return 1 if decision_kind(game) == "double" else 0


# decision_kind's decisions in words, as the table tells the seat to decide
_DECISION_TEXT = {"bid": "a bid or pass", "call": "call or pass", "rob": "rob or not",
                  "show": "show the hand or not", "double": "a doubling factor"}


def decision_text(game: Game) -> str | None:
    """What the seat to move decides before play (``decision_kind``), in
    words; None in play and once the deal is over."""
    kind = decision_kind(game)
    return None if kind is None else _DECISION_TEXT[kind]


def hand_line(owner: str, hand: Hand, last: Move | None, decision: str | None = None) -> str:
    """A hand and the move it has to beat, or (before play) the decision to
    make (``decision_text``)."""
    if decision is not None:
        return f"{owner} hand: {hand}   to decide: {decision}\n"
    return f"{owner} hand: {hand}   to beat: {last if last else 'nothing (you lead)'}\n"


def outcome_text(result) -> str:
    """A finished deal's winner, multiplier and scores."""
    return f"{result.winner} won, multiplier {result.multiplier}, scores {result.scores}"
