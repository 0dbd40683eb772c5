"""The rule sets of RULES.md, written as data.

The core compiles each description into a small C struct (``ddz_rules``), so a
new rule set is a new entry here, not new code paths in the generator.

Fields of a description:

* ``wildcard``: the deck holds one W (the 55th card).
* ``kinds``: the move kinds that exist (PASS always does).
* ``tiers``: bomb tiers by kind; every other kind is tier 0 (plain). A move of a
  higher tier beats any move of a lower one.
* ``ranked``: bomb-tier kinds whose same-tier moves compare by rank.
* ``wild_joker_kind``: the kind of X+W and D+W, or None.
* ``wild_joker_stands``: in X+W, W stands for the other joker (so ``wild`` is
  13 or 14) rather than playing as itself (``wild`` 15).
* ``xdw_kind``: the kind of X+D+W, or None.
* ``four_wild_kind``: the kind of a natural four + W, or None.
* ``kitty``: cards in the kitty (the landlord holds 17 + kitty).
* ``multipliers``: factor on the deal's multiplier for each kind played.
* ``mult_cap``: cap on a deal's multiplier, or None.
* ``service_fee``: share of each winner's gain taken as a fee (0 <= fee < 1).
* ``deal_cap``: cap on what one seat can win or lose in a deal, or None.
* ``laizi``: a laizi rule set (RULES.md section 8): the cards of a wild rank
  are wildcards (laizi), the rank drawn after each deal. Generating moves needs
  a ``wild_rank``.
* ``wild_rank``: the laizi rank, a card character of ``3..2`` (or its index
  0..12), or None (not drawn yet). ``get_rules("laizi").with_options(
  wild_rank="7")``, or the name ``"laizi:7"``, gives a playable rule set.
* ``wild_count``: how many wild ranks a deal draws (1, or 2 for ``tiandi``,
  RULES.md section 9).
* ``wild_ranks``: with two wild ranks, ``(sky, ground)`` (``(sky,)`` before
  the ground rank is drawn) as card characters or indices; generating
  needs both. ``get_rules("tiandi").with_options(wild_ranks=("7", "J"))``,
  or the name ``"tiandi:7J"``.
* ``size_tiers``: for SOFT_BOMB and LAIZI_BOMB, the tier of a bomb of each
  size (4 up to the largest, which is its most cards); without it a kind's
  bombs are four cards in the tier of ``tiers``.
* ``pure_step``: tiers a LAIZI_BOMB of one wild rank (pure) stands above a
  mixed one of its size; pure ones compare by rank, mixed ones never beat
  each other.

Spring and anti-spring double the multiplier in every rule set (RULES.md 6).

Platform options (RULES.md section 10), fields of every rule set, off by
default (a description without them plays sections 5 and 6 as written):

* ``bidding``: ``"points"`` (bids of 1..3, section 5) or ``"rob"`` (call and
  rob the landlord; each rob doubles the multiplier).
* ``no_call``: rob bidding when nobody calls: ``"redeal"`` (new cards, the
  same first bidder) or ``"first"`` (the first bidder is landlord).
* ``rob_base``: the base score of a deal bid by robbing (an int 1..100).
* ``show``: showing the hand: each seat before bidding (x4), the landlord
  after taking the kitty (x2); the largest counts.
* ``doubling``: False, True (every seat chooses x1, x2 or x4 after the kitty,
  the farmers first) or ``"after_farmer"`` (the landlord only after a farmer
  doubled).
* ``cap``: the cap on each farmer's stake multiplier ``P * d_f * d_L``, or None.
* ``deal``: ``"shuffle"`` or ``"no_shuffle"`` (each deal of a session is dealt
  from the previous deal's cards); ``session``: deals per session; ``swaps``:
  random transpositions of the pile before the cut.

A preset is a name suffix: ``"classic+happy"`` (any rule-set name, e.g.
``"laizi:7+happy"``) is the rule set with PLATFORM_PRESETS["happy"].
"""
from __future__ import annotations

_COMMON = (
    "SINGLE", "PAIR", "TRIPLE", "TRIPLE_SINGLE", "STRAIGHT", "PAIR_STRAIGHT",
    "PLANE", "PLANE_SINGLES", "FOUR_SINGLES", "BOMB", "ROCKET",
)

#: The platform options and their values when a description leaves them out
#: (RULES.md section 10: all off).
PLATFORM_DEFAULTS: dict[str, object] = dict(
    bidding="points", no_call="redeal", rob_base=1, show=False, doubling=False,
    cap=None, deal="shuffle", session=10, swaps=5,
)


def decision_options(platform: dict) -> dict[str, bool]:
    """Which of the platform options that add decisions before play
    (RULES.md section 10) a rule set's ``platform`` dict turns on, by name:
    rob bidding, showing, doubling."""
    return {"rob bidding": platform["bidding"] == "rob", "showing": bool(platform["show"]),
            "doubling": bool(platform["doubling"])}


#: Named sets of platform options, spelled as a rule-set name suffix
#: (``"classic+happy"``): the conventions of the apps (RULES.md section 10).
PLATFORM_PRESETS: dict[str, dict[str, object]] = {
    "happy": dict(bidding="rob", show=True, doubling=True, cap=64),
}

RULE_SETS: dict[str, dict] = {
    "classic": dict(
        wildcard=False,
        kinds=_COMMON + ("TRIPLE_PAIR", "PLANE_PAIRS", "FOUR_PAIRS"),
        tiers={"BOMB": 1, "ROCKET": 2},
        ranked=("BOMB",),
        wild_joker_kind=None,
        wild_joker_stands=False,
        xdw_kind=None,
        four_wild_kind=None,
        kitty=3,
        multipliers={"BOMB": 2, "ROCKET": 2},
        mult_cap=None,
        service_fee=0.0,
        deal_cap=None,
    ),
    "biegang": dict(
        wildcard=True,
        kinds=_COMMON + ("TRIPLE_PAIR", "PLANE_PAIRS", "FOUR_PAIRS",
                         "WILD_ROCKET", "HEAVEN_ROCKET", "HEAVEN_BOMB"),
        tiers={"BOMB": 1, "ROCKET": 2, "WILD_ROCKET": 3, "HEAVEN_ROCKET": 3,
               "HEAVEN_BOMB": 3},
        ranked=("BOMB",),
        wild_joker_kind="WILD_ROCKET",
        wild_joker_stands=False,
        xdw_kind="HEAVEN_ROCKET",
        four_wild_kind="HEAVEN_BOMB",
        kitty=4,
        multipliers={"BOMB": 2, "ROCKET": 2, "WILD_ROCKET": 2,
                     "HEAVEN_ROCKET": 4, "HEAVEN_BOMB": 4},
        mult_cap=None,
        service_fee=0.0,
        deal_cap=None,
    ),
    "super": dict(
        wildcard=True,
        kinds=_COMMON + ("SUPER_BOMB",),
        tiers={"BOMB": 1, "ROCKET": 2, "SUPER_BOMB": 3},
        ranked=("BOMB", "SUPER_BOMB"),
        wild_joker_kind="ROCKET",
        wild_joker_stands=True,
        xdw_kind=None,
        four_wild_kind="SUPER_BOMB",
        kitty=4,
        multipliers={"BOMB": 2, "ROCKET": 2, "SUPER_BOMB": 3},
        mult_cap=24,
        service_fee=0.0,
        deal_cap=None,
    ),
    "laizi": dict(
        wildcard=False,
        laizi=True,
        wild_rank=None,
        kinds=_COMMON + ("TRIPLE_PAIR", "PLANE_PAIRS", "FOUR_PAIRS",
                         "SOFT_BOMB", "LAIZI_BOMB"),
        tiers={"SOFT_BOMB": 1, "BOMB": 2, "LAIZI_BOMB": 3, "ROCKET": 4},
        ranked=("SOFT_BOMB", "BOMB"),
        wild_joker_kind=None,
        wild_joker_stands=False,
        xdw_kind=None,
        four_wild_kind=None,
        kitty=3,
        multipliers={"SOFT_BOMB": 2, "BOMB": 2, "LAIZI_BOMB": 2, "ROCKET": 2},
        mult_cap=None,
        service_fee=0.0,
        deal_cap=None,
    ),
    "tiandi": dict(
        wildcard=False,
        laizi=True,
        wild_count=2,
        wild_ranks=None,
        kinds=_COMMON + ("TRIPLE_PAIR", "PLANE_PAIRS", "FOUR_PAIRS",
                         "SOFT_BOMB", "LAIZI_BOMB"),
        # RULES.md 9, low to high: SOFT_BOMB 4 < BOMB < mixed LAIZI_BOMB 4 <
        # pure LAIZI_BOMB 4 < SOFT_BOMB 5 < LAIZI_BOMB 5 < ... < LAIZI_BOMB 8
        # < SOFT_BOMB 9 < ... < SOFT_BOMB 12 < ROCKET
        tiers={"SOFT_BOMB": 1, "BOMB": 2, "LAIZI_BOMB": 3, "ROCKET": 17},
        size_tiers={
            "SOFT_BOMB": {4: 1, 5: 5, 6: 7, 7: 9, 8: 11, 9: 13, 10: 14, 11: 15,
                          12: 16},
            "LAIZI_BOMB": {4: 3, 5: 6, 6: 8, 7: 10, 8: 12},
        },
        pure_step=1,
        ranked=("SOFT_BOMB", "BOMB", "LAIZI_BOMB"),
        wild_joker_kind=None,
        wild_joker_stands=False,
        xdw_kind=None,
        four_wild_kind=None,
        kitty=3,
        multipliers={"SOFT_BOMB": 2, "BOMB": 2, "LAIZI_BOMB": 2, "ROCKET": 2},
        mult_cap=None,
        service_fee=0.0,
        deal_cap=None,
    ),
}
