"""Tests of the pure-Python references (tests/oracles/reference.py and, for
laizi, tests/oracles/reference_laizi.py) against RULES.md.

* every worked example of RULES.md and of the original descriptions
  (shared seeds, Chinese) that RULES.md keeps;
* every position of tests/perft/<rules>-moves.json, move for move;
* the positions of tests/perft/<rules>.txt whose hands have at most
  ``DDZ_PERFT_MAX_SUBSETS`` sub-multisets (default 20000); all of them, and
  the total line, with ``DDZ_FULL_PERFT=1`` (about 8 CPU-minutes), or
  ``python3 tests/test_reference.py`` (all positions, on every core);
* the laizi reference: every worked reading of RULES.md section 8, every
  count of tests/perft/laizi.txt and move list of laizi-moves.json, and
  hands without laizi giving the classic reference's moves.

Neither reference nor these tests import ddzfast.
"""

from __future__ import annotations

import json
import math
import os
import random
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from oracles import reference  # noqa: E402
from oracles import reference_laizi as RL  # noqa: E402
from oracles.reference import (  # noqa: E402
    PASS, W, X, D, beats, cards_text, classify, legal_moves, move_text,
    parse_cards, parse_last, wild_of,
)

PERFT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "perft")
RULES = tuple(reference.RULE_SETS)      # the rule sets the classic reference knows
FULL_PERFT = os.environ.get("DDZ_FULL_PERFT", "") not in ("", "0")
MAX_SUBSETS = int(os.environ.get("DDZ_PERFT_MAX_SUBSETS", "20000"))


def C(text):
    return parse_cards(text)


def M(kind, r, n, cards):
    """Identity with ``r`` given as a card character ("3".."2", "X")."""
    return (kind, "3456789TJQKA2XD".index(r), n, C(cards))


def kinds(text, rules):
    """{(kind, r as card character, n)} of every reading of ``text``."""
    return {(k, "3456789TJQKA2XD"[r], n) for k, r, n, _ in classify(C(text), rules)}


def lead(text, rules):
    return legal_moves(C(text), None, rules)


# ---------------------------------------------------------------------------
# Parsing
# ---------------------------------------------------------------------------

def test_parse_cards_canonical():
    c = C("334TTJQKA22XDW")
    assert c == (2, 1, 0, 0, 0, 0, 0, 2, 1, 1, 1, 1, 2, 1, 1, 1)
    assert cards_text(c) == "334TTJQKA22XDW"


def test_parse_cards_10_lower_case_and_order():
    assert C("10 10 j q k a x d w 3") == C("3TTJQKAXDW")
    assert C("w2x3") == C("32XW")
    assert cards_text(C("")) == ""
    assert C("333444+8W") == C("3334448W")


@pytest.mark.parametrize("bad", ["33333", "XX", "WW", "1", "Z", "DD"])
def test_parse_cards_rejects(bad):
    with pytest.raises(ValueError):
        C(bad)


def test_parse_last():
    assert parse_last("-") is None
    assert parse_last("SINGLE/3/1/3") == ("SINGLE", 0, 1, C("3"))
    assert parse_last("ROCKET/X/1/XD") == ("ROCKET", 13, 1, C("XD"))
    assert parse_last("PAIR_STRAIGHT/T/3/TTJJQQ") == ("PAIR_STRAIGHT", 7, 3, C("TTJJQQ"))
    assert parse_last("STRAIGHT/3/6/345678") == ("STRAIGHT", 0, 6, C("345678"))
    assert parse_last("TRIPLE/2/1/222") == ("TRIPLE", 12, 1, C("222"))
    m = parse_last("HEAVEN_BOMB/3/1/3333W")
    assert move_text(m) == "HEAVEN_BOMB/3/1/3333W"
    with pytest.raises(ValueError):
        parse_last("NOPE/3/1/3")


def test_classic_has_no_wildcard():
    with pytest.raises(ValueError):
        classify(C("33W"), "classic")


# ---------------------------------------------------------------------------
# Worked readings of RULES.md
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("rules", ["biegang", "super"])
def test_333W_is_bomb_and_triple_single(rules):
    assert kinds("333W", rules) == {("BOMB", "3", 1), ("TRIPLE_SINGLE", "3", 1)}
    assert wild_of(M("BOMB", "3", 1, "333W"), rules) == 0
    assert wild_of(M("TRIPLE_SINGLE", "3", 1, "333W"), rules) == W


def test_3333_is_a_bomb_never_a_triple_single():
    for rules in RULES:
        assert kinds("3333", rules) == {("BOMB", "3", 1)}


@pytest.mark.parametrize("rules", ["biegang", "super"])
def test_wild_may_stand_for_a_held_card(rules):
    # From 34567W both 34567 and 3456W (W as 7) are legal, different moves.
    moves = lead("34567W", rules)
    a, b = M("STRAIGHT", "3", 5, "34567"), M("STRAIGHT", "3", 5, "3456W")
    assert a in moves and b in moves and a != b
    assert wild_of(a, rules) == 255
    assert wild_of(b, rules) == 4  # W as 7


@pytest.mark.parametrize("rules", ["biegang", "super"])
def test_4567W_is_two_straights(rules):
    assert kinds("4567W", rules) == {("STRAIGHT", "3", 5), ("STRAIGHT", "4", 5)}
    assert wild_of(M("STRAIGHT", "3", 5, "4567W"), rules) == 0  # W as 3
    assert wild_of(M("STRAIGHT", "4", 5, "4567W"), rules) == 5  # W as 8


@pytest.mark.parametrize("rules", RULES)
def test_single_kickers_may_repeat_and_be_jokers(rules):
    assert ("PLANE_SINGLES", "3", 2) in kinds("333444+88", rules)
    assert ("PLANE_SINGLES", "3", 3) in kinds("333444555+888", rules)
    assert kinds("3333+XD", rules) == {("FOUR_SINGLES", "3", 1)}
    assert kinds("333+X", rules) == {("TRIPLE_SINGLE", "3", 1)}


@pytest.mark.parametrize("rules", RULES)
def test_four_singles_with_a_pair(rules):
    # 3333+77 is FOUR_SINGLES in every rule set (two single cards).
    assert kinds("3333+77", rules) == {("FOUR_SINGLES", "3", 1)}


@pytest.mark.parametrize("rules", RULES)
def test_not_moves(rules):
    assert kinds("3333+445", rules) == set()
    assert kinds("44445555+3628", rules) == set()
    assert kinds("3333+5555", rules) == set()  # not FOUR_PAIRS
    assert kinds("333+44+5", rules) == set()
    assert kinds("2345", rules) == set()
    assert kinds("TJQKA2", rules) == set()  # 2 is not a chain rank
    assert kinds("QQKKAA22", rules) == set()
    assert kinds("AAA222", rules) == set()
    assert kinds("3X", rules) == set()


@pytest.mark.parametrize("rules", ["classic", "biegang"])
def test_pair_kickers(rules):
    assert kinds("333+44", rules) == {("TRIPLE_PAIR", "3", 1)}
    assert kinds("3333+44+77", rules) == {("FOUR_PAIRS", "3", 1)}
    assert kinds("333444+6677", rules) == {("PLANE_PAIRS", "3", 2)}
    assert kinds("333+XD", rules) == set()  # jokers never pair


def test_super_has_no_pair_kickers():
    for text in ("333+44", "33W+44", "333+4W", "3333+44+77",
                 "333444+6677", "33W444+6677", "33344W+6677",
                 "333444+6W77", "333444+667W"):
        assert kinds(text, "super") == set(), text


def test_biegang_pair_kicker_with_wildcard():
    assert kinds("333+8W", "biegang") == {("TRIPLE_PAIR", "3", 1)}
    assert wild_of(M("TRIPLE_PAIR", "3", 1, "3338W"), "biegang") == W
    assert kinds("333444+6W77", "biegang") == {("PLANE_PAIRS", "3", 2)}
    assert kinds("333444+667W", "biegang") == {("PLANE_PAIRS", "3", 2)}
    assert kinds("33W444+6677", "biegang") == {("PLANE_PAIRS", "3", 2)}
    assert wild_of(M("PLANE_PAIRS", "3", 2, "33W444+6677"), "biegang") == 0
    # A pair kicker 8W has rank 8.
    assert kinds("333+3W", "biegang") == {("HEAVEN_BOMB", "3", 1)}  # no TRIPLE_PAIR
    assert kinds("3333+88+8W", "biegang") == set()  # not FOUR_PAIRS
    assert kinds("3333+88+9W", "biegang") == {("FOUR_PAIRS", "3", 1)}
    # W never pairs with X or D.
    assert kinds("333+XW", "biegang") == set()
    assert kinds("333+DW", "biegang") == set()
    assert kinds("3333+XW+55", "biegang") == set()


@pytest.mark.parametrize("rules", ["biegang", "super"])
def test_wild_completes_the_main_part(rules):
    assert kinds("333W+58", rules) == {("FOUR_SINGLES", "3", 1)}
    assert wild_of(M("FOUR_SINGLES", "3", 1, "333W58"), rules) == 0
    assert kinds("33W+5", rules) == {("TRIPLE_SINGLE", "3", 1)}
    assert wild_of(M("TRIPLE_SINGLE", "3", 1, "33W5"), rules) == 0
    assert kinds("33W444+58", rules) == {("PLANE_SINGLES", "3", 2)}
    assert wild_of(M("PLANE_SINGLES", "3", 2, "33W44458"), rules) == 0


def test_super_wildcard_is_a_joker_only_in_a_rocket():
    assert kinds("XDW", "super") == set()
    assert kinds("3333+XW", "super") == {("FOUR_SINGLES", "3", 1)}
    assert wild_of(M("FOUR_SINGLES", "3", 1, "3333XW"), "super") == W
    assert kinds("XW", "super") == {("ROCKET", "X", 1)}
    assert kinds("DW", "super") == {("ROCKET", "X", 1)}
    assert wild_of(M("ROCKET", "X", 1, "XW"), "super") == D  # W as D
    assert wild_of(M("ROCKET", "X", 1, "DW"), "super") == X  # W as X
    assert wild_of(M("ROCKET", "X", 1, "XD"), "super") == 255
    assert kinds("3333W", "super") == {("SUPER_BOMB", "3", 1)}
    assert wild_of(M("SUPER_BOMB", "3", 1, "3333W"), "super") == W
    assert kinds("XDW", "super") == set()
    assert len(lead("XDW", "super")) == 5  # X, D, XD, XW, DW


def test_biegang_wildcard_rockets_and_bombs():
    assert kinds("XW", "biegang") == {("WILD_ROCKET", "X", 1)}
    assert kinds("DW", "biegang") == {("WILD_ROCKET", "X", 1)}
    assert kinds("XD", "biegang") == {("ROCKET", "X", 1)}
    assert kinds("XDW", "biegang") == {("HEAVEN_ROCKET", "X", 1)}
    assert kinds("2222W", "biegang") == {("HEAVEN_BOMB", "2", 1)}
    for text in ("XW", "DW", "XDW", "2222W"):
        (m,) = classify(C(text), "biegang")
        assert wild_of(m, "biegang") == W
    assert len(lead("XDW", "biegang")) == 6  # X, D, XD, XW, DW, XDW


def test_no_single_wildcard():
    for rules in ("biegang", "super"):
        assert classify(C("W"), rules) == set()
        assert lead("W", rules) == {PASS}  # a lone W must pass, even leading
        assert legal_moves(C("W"), M("SINGLE", "3", 1, "3"), rules) == {PASS}


def test_wild_never_stands_for_a_joker_in_a_pair():
    assert kinds("XW", "biegang") == {("WILD_ROCKET", "X", 1)}
    assert kinds("XW", "super") == {("ROCKET", "X", 1)}
    for rules in ("biegang", "super"):
        assert kinds("2W", rules) == {("PAIR", "2", 1)}
        assert kinds("22W", rules) == {("TRIPLE", "2", 1)}


def test_wild_rocket_is_top_tier():
    xw = M("WILD_ROCKET", "X", 1, "XW")
    xd = M("ROCKET", "X", 1, "XD")
    assert not beats(xd, xw, "biegang")
    assert beats(xw, xd, "biegang")
    assert legal_moves(C("XD"), xw, "biegang") == {PASS}


def test_extreme_lead():
    assert len(lead("3456789TTTJJJQQQKKKAW", "biegang")) == 2525


# ---------------------------------------------------------------------------
# Beating (RULES.md section 4)
# ---------------------------------------------------------------------------

def test_beats_plain():
    for rules in RULES:
        assert beats(M("SINGLE", "4", 1, "4"), M("SINGLE", "3", 1, "3"), rules)
        assert beats(M("SINGLE", "D", 1, "D"), M("SINGLE", "X", 1, "X"), rules)
        assert not beats(M("SINGLE", "3", 1, "3"), M("SINGLE", "3", 1, "3"), rules)
        assert not beats(M("PAIR", "4", 1, "44"), M("SINGLE", "3", 1, "3"), rules)
        # same kind, different n: no
        assert not beats(M("STRAIGHT", "4", 6, "456789"),
                         M("STRAIGHT", "3", 5, "34567"), rules)
        assert beats(M("STRAIGHT", "4", 5, "45678"),
                     M("STRAIGHT", "3", 5, "34567"), rules)
        # kickers never matter
        assert beats(M("TRIPLE_SINGLE", "4", 1, "4443"),
                     M("TRIPLE_SINGLE", "3", 1, "333D"), rules)
        assert not beats(PASS, M("SINGLE", "3", 1, "3"), rules)


def test_beats_bombs_and_rockets_classic():
    bomb3, bomb4 = M("BOMB", "3", 1, "3333"), M("BOMB", "4", 1, "4444")
    rocket = M("ROCKET", "X", 1, "XD")
    plain = M("PLANE_SINGLES", "A", 2, "KKKAAA22")
    assert beats(bomb4, bomb3, "classic") and not beats(bomb3, bomb4, "classic")
    assert beats(bomb3, plain, "classic")
    assert beats(rocket, bomb4, "classic") and not beats(bomb4, rocket, "classic")
    assert not beats(plain, bomb3, "classic")


@pytest.mark.parametrize("rules", ["biegang", "super"])
def test_soft_and_natural_bombs_compare_by_rank(rules):
    soft4 = M("BOMB", "4", 1, "444W")
    nat3, nat4 = M("BOMB", "3", 1, "3333"), M("BOMB", "4", 1, "4444")
    assert beats(soft4, nat3, rules)
    assert not beats(nat3, soft4, rules)
    assert not beats(nat4, soft4, rules) and not beats(soft4, nat4, rules)


def test_biegang_tiers():
    top = [M("HEAVEN_ROCKET", "X", 1, "XDW"), M("HEAVEN_BOMB", "3", 1, "3333W"),
           M("HEAVEN_BOMB", "2", 1, "2222W"), M("WILD_ROCKET", "X", 1, "XW")]
    rocket, bomb = M("ROCKET", "X", 1, "XD"), M("BOMB", "2", 1, "2222")
    for a in top:
        assert beats(a, rocket, "biegang") and beats(a, bomb, "biegang")
        assert not beats(rocket, a, "biegang")
        for b in top:
            assert not beats(a, b, "biegang")  # equal tier, never beat
    assert beats(rocket, bomb, "biegang")
    assert not beats(rocket, rocket, "biegang")


def test_super_tiers():
    sb3, sb2 = M("SUPER_BOMB", "3", 1, "3333W"), M("SUPER_BOMB", "2", 1, "2222W")
    rockets = [M("ROCKET", "X", 1, t) for t in ("XD", "XW", "DW")]
    bomb = M("BOMB", "2", 1, "2222")
    assert beats(sb2, sb3, "super") and not beats(sb3, sb2, "super")
    for r in rockets:
        assert beats(sb3, r, "super") and not beats(r, sb3, "super")
        assert beats(r, bomb, "super")
        for r2 in rockets:
            assert not beats(r, r2, "super")
    # 2222W is the highest: after 3333W, 2222W has PASS and SUPER_BOMB 2.
    assert legal_moves(C("2222W"), sb3, "super") == {PASS, sb2}


def test_heaven_bomb_cannot_answer_heaven_bomb():
    last = M("HEAVEN_BOMB", "3", 1, "3333W")
    assert legal_moves(C("2222W"), last, "biegang") == {PASS}


# ---------------------------------------------------------------------------
# Examples of the original descriptions (shared/seeds)
# ---------------------------------------------------------------------------

SUPER_SEED_MOVES = [
    ("33", "PAIR"), ("3W", "PAIR"), ("333", "TRIPLE"), ("33W", "TRIPLE"),
    ("3334", "TRIPLE_SINGLE"), ("33W4", "TRIPLE_SINGLE"),
    ("34567", "STRAIGHT"), ("W4567", "STRAIGHT"), ("3W567", "STRAIGHT"),
    ("34W67", "STRAIGHT"), ("345W7", "STRAIGHT"), ("3456W", "STRAIGHT"),
    ("334455", "PAIR_STRAIGHT"), ("3W4455", "PAIR_STRAIGHT"),
    ("334W55", "PAIR_STRAIGHT"), ("33445W", "PAIR_STRAIGHT"),
    ("333444", "PLANE"), ("33W444", "PLANE"), ("33344W", "PLANE"),
    ("555666777", "PLANE"), ("55W666777", "PLANE"), ("55566W777", "PLANE"),
    ("55566677W", "PLANE"),
    ("333444+86", "PLANE_SINGLES"), ("333444+88", "PLANE_SINGLES"),
    ("33W444+86", "PLANE_SINGLES"), ("33344W+86", "PLANE_SINGLES"),
    ("333444+8W", "PLANE_SINGLES"), ("333444555+729", "PLANE_SINGLES"),
    ("333444555+886", "PLANE_SINGLES"),
    ("3333+78", "FOUR_SINGLES"), ("3333+77", "FOUR_SINGLES"),
    ("333W+78", "FOUR_SINGLES"), ("3333+7W", "FOUR_SINGLES"),
    ("3333W", "SUPER_BOMB"), ("2222W", "SUPER_BOMB"),
    ("XD", "ROCKET"), ("DW", "ROCKET"), ("XW", "ROCKET"),
    ("3333", "BOMB"), ("333W", "BOMB"),
]


@pytest.mark.parametrize("text,kind", SUPER_SEED_MOVES)
def test_super_seed_examples(text, kind):
    assert kind in {k for k, _, _ in kinds(text, "super")}


def test_super_seed_non_moves():
    for text in ("333+44", "33W+44", "333+4W", "333444+6677", "33W444+6677",
                 "33344W+6677", "333444+6W77", "333444+667W", "3333+445",
                 "44445555+3628"):
        assert kinds(text, "super") == set(), text
    # W alone cannot be played as a small joker to beat a single.
    assert legal_moves(C("DW"), M("SINGLE", "2", 1, "2"), "super") == {
        PASS, M("SINGLE", "D", 1, "D"), M("ROCKET", "X", 1, "DW")}


BIEGANG_SEED_MOVES = [
    ("TW", "PAIR", "T"), ("TTW", "TRIPLE", "T"), ("TTW+3", "TRIPLE_SINGLE", "T"),
    ("TJQAW", "STRAIGHT", "T"), ("XDW", "HEAVEN_ROCKET", "X"),
    ("XW", "WILD_ROCKET", "X"), ("DW", "WILD_ROCKET", "X"), ("XD", "ROCKET", "X"),
    ("5555W", "HEAVEN_BOMB", "5"), ("5555", "BOMB", "5"), ("555W", "BOMB", "5"),
    ("333+44", "TRIPLE_PAIR", "3"), ("5555+38", "FOUR_SINGLES", "5"),
    ("4444+55+77", "FOUR_PAIRS", "4"), ("333444555", "PLANE", "3"),
    ("334455", "PAIR_STRAIGHT", "3"),
]


@pytest.mark.parametrize("text,kind,r", BIEGANG_SEED_MOVES)
def test_biegang_seed_examples(text, kind, r):
    assert (kind, r) in {(k, rr) for k, rr, _ in kinds(text, "biegang")}


def test_biegang_seed_wild_for_king():
    # 10, J, Q, A + W is the straight 10-J-Q-K-A (W as K).
    assert wild_of(M("STRAIGHT", "T", 5, "TJQAW"), "biegang") == 10


# ---------------------------------------------------------------------------
# Perft data
# ---------------------------------------------------------------------------

def _load_moves_json(rules):
    with open(os.path.join(PERFT_DIR, f"{rules}-moves.json")) as f:
        data = json.load(f)
    assert data["rules"] == rules
    return data["positions"]


def _json_last(last):
    if last is None:
        return None
    kind, r, n, cards = last
    return (kind, r, n, C(cards))


MOVES_JSON_CASES = [(rules, i) for rules in RULES
                    for i in range(len(_load_moves_json(rules)))]
_MOVES_JSON = {rules: _load_moves_json(rules) for rules in RULES}


def _diff_message(got, expected):
    missing = sorted(move_text(m) for m in expected - got)
    extra = sorted(move_text(m) for m in got - expected)
    return f"missing {missing}\nextra {extra}"


@pytest.mark.parametrize("rules,i", MOVES_JSON_CASES,
                         ids=[f"{r}-{i}" for r, i in MOVES_JSON_CASES])
def test_perft_moves_json(rules, i):
    pos = _MOVES_JSON[rules][i]
    hand = tuple(pos["hand_counts"])
    assert hand == C(pos["hand"])
    expected = {(k, r, n, C(cards)) for k, r, n, cards in pos["moves"]}
    assert len(expected) == len(pos["moves"]) == pos["count"]
    got = legal_moves(hand, _json_last(pos["last"]), rules)
    assert got == expected, f"{rules} #{i} {pos['hand']} last={pos['last']}\n" \
        + _diff_message(got, expected)
    # each move has exactly one reading (wild_of asserts it)
    for m in got:
        wild_of(m, rules)


def _load_perft_txt(rules):
    rows, total = [], None
    with open(os.path.join(PERFT_DIR, f"{rules}.txt")) as f:
        for line in f:
            if line.startswith("#"):
                # "# total 82119 legal moves in 413 positions"
                words = line.split()
                total = (int(words[2]), int(words[6]))
                continue
            idx, r, hand, last, count = line.split()
            assert r == rules
            rows.append((int(idx), hand, last, int(count)))
    assert total is not None
    return rows, total


_PERFT_TXT = {rules: _load_perft_txt(rules) for rules in RULES}


def _n_subsets(hand_text):
    return math.prod(c + 1 for c in C(hand_text))


PERFT_TXT_CASES = [
    (rules, idx, hand, last, count)
    for rules in RULES
    for idx, hand, last, count in _PERFT_TXT[rules][0]
    if FULL_PERFT or _n_subsets(hand) <= MAX_SUBSETS
]


@pytest.mark.parametrize("rules,idx,hand,last,count", PERFT_TXT_CASES,
                         ids=[f"{c[0]}-{c[1]}" for c in PERFT_TXT_CASES])
def test_perft_txt(rules, idx, hand, last, count):
    got = legal_moves(C(hand), parse_last(last), rules)
    assert len(got) == count, f"{rules} #{idx} {hand} {last}"


@pytest.mark.parametrize("rules", RULES)
def test_perft_txt_total_line(rules):
    rows, (total, n_positions) = _PERFT_TXT[rules]
    assert len(rows) == n_positions
    assert [r[0] for r in rows] == list(range(n_positions))
    assert sum(r[3] for r in rows) == total


@pytest.mark.skipif(not FULL_PERFT, reason="set DDZ_FULL_PERFT=1 (slow)")
@pytest.mark.parametrize("rules", RULES)
def test_perft_txt_total_recomputed(rules):
    rows, (total, _) = _PERFT_TXT[rules]
    assert sum(len(legal_moves(C(h), parse_last(l), rules))
               for _, h, l, _ in rows) == total


# ===========================================================================
# The laizi reference (tests/oracles/reference_laizi.py) against RULES.md
# section 8: every worked reading of section 8 (L = 7) as an explicit
# assertion and the rules behind them (face value, kickers, tiers); every
# count of tests/perft/laizi.txt (all 320 positions and the total, about 3 s)
# and every full move list of tests/perft/laizi-moves.json; hands without
# laizi: the same moves as the classic reference, a natural four a BOMB.
# ===========================================================================

RANK_CHARS = "3456789TJQKA2"


def laizi_kinds(text, L="7"):
    """{(kind, r as card character, n)} of every reading of ``text``."""
    return {(k, "3456789TJQKA2XD"[r], n) for k, r, n, _ in RL.classify(C(text), L)}


def laizi_subst(text, kind, r, n=1, L="7"):
    """Substitutes of one move, as card text."""
    return RL.subst_text(RL.substitutes(M(kind, r, n, text), L))


# ---------------------------------------------------------------------------
# The worked readings of RULES.md section 8 (L = 7)
# ---------------------------------------------------------------------------

def test_laizi_5577_is_triple_single_and_soft_bomb_of_5s():
    assert laizi_kinds("5577") == {("TRIPLE_SINGLE", "5", 1), ("SOFT_BOMB", "5", 1)}
    assert laizi_subst("5577", "TRIPLE_SINGLE", "5") == "5"    # 55 + 7 as 5, kicker 7
    assert laizi_subst("5577", "SOFT_BOMB", "5") == "55"


def test_laizi_3777_is_a_soft_bomb_and_thirteen_triple_singles():
    got = laizi_kinds("3777")
    assert got == {("SOFT_BOMB", "3", 1)} | {("TRIPLE_SINGLE", q, 1) for q in RANK_CHARS}
    assert len(got) == 14
    assert laizi_subst("3777", "TRIPLE_SINGLE", "3") == "33"   # 77 as 33, kicker 7
    assert laizi_subst("3777", "TRIPLE_SINGLE", "7") == "777"  # 777 as itself, kicker 3
    assert laizi_subst("3777", "TRIPLE_SINGLE", "A") == "AAA"  # 777 as AAA, kicker 3
    assert laizi_subst("3777", "SOFT_BOMB", "3") == "333"
    assert RL.substitutes_excluding_self(M("TRIPLE_SINGLE", "7", 1, "3777"), "7") == (0,) * 13


def test_laizi_777X_is_thirteen_triple_singles():
    assert laizi_kinds("777X") == {("TRIPLE_SINGLE", q, 1) for q in RANK_CHARS}


def test_7777_is_only_a_laizi_bomb():
    assert laizi_kinds("7777") == {("LAIZI_BOMB", "7", 1)}
    assert laizi_subst("7777", "LAIZI_BOMB", "7") == "7777"


def test_laizi_345677_is_only_one_straight():
    assert laizi_kinds("345677") == {("STRAIGHT", "3", 6)}
    assert laizi_subst("345677", "STRAIGHT", "3", 6) == "78"   # one 7 as itself, one as 8
    assert RL.subst_text(RL.substitutes_excluding_self(M("STRAIGHT", "3", 6, "345677"), "7")) == "8"


def test_laizi_33377_is_only_triple_pair():
    assert laizi_kinds("33377") == {("TRIPLE_PAIR", "3", 1)}
    assert laizi_subst("33377", "TRIPLE_PAIR", "3") == ""      # the laizi are the kicker pair


def test_laizi_33337777_is_only_four_pairs():
    assert laizi_kinds("33337777") == {("FOUR_PAIRS", "3", 1)}


def test_laizi_3457_is_not_a_move():
    assert RL.classify(C("3457"), "7") == set()


def test_laizi_4477_answers_pair_AA_only_as_soft_bomb():
    last = M("PAIR", "A", 1, "AA")
    assert RL.legal_moves(C("4477"), last, "7") == {PASS, M("SOFT_BOMB", "4", 1, "4477")}
    assert laizi_kinds("77") == {("PAIR", "7", 1)}    # face value, never a pair of aces
    assert laizi_kinds("47") == {("PAIR", "4", 1)}
    assert laizi_kinds("44") == {("PAIR", "4", 1)}


def test_laizi_soft_bomb_of_5s_cannot_beat_bomb_of_3s():
    soft5 = M("SOFT_BOMB", "5", 1, "5557")
    bomb3 = M("BOMB", "3", 1, "3333")
    assert not RL.beats(soft5, bomb3)
    assert RL.beats(bomb3, soft5)
    assert RL.legal_moves(C("5557"), bomb3, "7") == {PASS}


# ---------------------------------------------------------------------------
# The rules behind them
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("text,expected", [
    ("7", {("SINGLE", "7", 1)}),
    ("77", {("PAIR", "7", 1)}),
    ("777", {("TRIPLE", "7", 1)}),
    ("7777", {("LAIZI_BOMB", "7", 1)}),
])
def test_only_laizi_is_face_value(text, expected):
    assert laizi_kinds(text) == expected
    assert laizi_subst(text, next(iter(expected))[0], "7") == text


def test_laizi_never_stands_for_a_joker():
    assert laizi_kinds("X7") == set()
    assert laizi_kinds("XD7") == set()                  # no rocket with a laizi
    assert laizi_kinds("XD") == {("ROCKET", "X", 1)}
    assert laizi_kinds("X77") == set()


def test_laizi_complete_pairs_triples_and_chains():
    assert laizi_kinds("57") == {("PAIR", "5", 1)}
    assert laizi_kinds("577") == {("TRIPLE", "5", 1)}
    assert laizi_kinds("34567") == {("STRAIGHT", "3", 5)}    # the 7 as itself
    assert laizi_kinds("34568") == set()
    assert laizi_kinds("34587") == set()     # one laizi cannot fill 6 and keep 8 in
    assert laizi_kinds("345697") == set()
    assert laizi_kinds("3458977") == {("STRAIGHT", "3", 7)}
    assert laizi_subst("3458977", "STRAIGHT", "3", 7) == "67"
    assert laizi_kinds("3344577") == set()
    assert laizi_kinds("334457") == {("PAIR_STRAIGHT", "3", 3)}
    assert laizi_kinds("QKA77") == {("STRAIGHT", "T", 5)}    # two laizi as T and J
    assert laizi_subst("QKA77", "STRAIGHT", "T", 5) == "TJ"
    # never a chain through 2; four of K, A or 2 with two kickers instead
    assert laizi_kinds("KA2777") == {("FOUR_SINGLES", q, 1) for q in "KA2"}


def test_laizi_two_stands_in_chains():
    # L = 2: the 2s are laizi, so they may stand for chain ranks
    assert laizi_kinds("345622", "2") == {("STRAIGHT", "3", 6)}
    assert laizi_subst("345622", "STRAIGHT", "3", 6, L="2") == "78"
    assert laizi_kinds("34522", "2") == {("STRAIGHT", "3", 5)}
    assert laizi_kinds("3422", "2") == {("TRIPLE_SINGLE", "3", 1), ("TRIPLE_SINGLE", "4", 1)}


def test_laizi_natural_cards_of_a_main_rank_never_stay_out():
    assert laizi_kinds("3337") == {("TRIPLE_SINGLE", "3", 1), ("SOFT_BOMB", "3", 1)}
    assert laizi_kinds("33337") == set()                 # 3333 + 7 is no 5-card move
    assert laizi_kinds("333377") == {("FOUR_SINGLES", "3", 1)}
    assert laizi_kinds("333447") == {("PLANE", "3", 2), ("FOUR_SINGLES", "3", 1)}
    assert laizi_subst("333447", "PLANE", "3", 2) == "4"
    assert laizi_subst("333447", "FOUR_SINGLES", "3") == "3"


def test_laizi_kicker_may_sit_beside_main_rank_L():
    # 666777 + 7 + 3: the laizi kicker beside the main rank 7
    assert laizi_kinds("66677773") == {("PLANE_SINGLES", "6", 2), ("PLANE_SINGLES", "5", 2),
                                 ("FOUR_PAIRS", "6", 1)}
    assert laizi_subst("66677773", "PLANE_SINGLES", "6", 2) == "777"
    assert laizi_subst("66677773", "PLANE_SINGLES", "5", 2) == "555"
    assert laizi_subst("66677773", "FOUR_PAIRS", "6") == "6"   # kickers 3+7 and 77


def test_pair_kickers_with_laizi():
    assert laizi_kinds("33387") == {("TRIPLE_PAIR", "3", 1)}       # natural + laizi
    assert laizi_kinds("33377") == {("TRIPLE_PAIR", "3", 1)}       # two laizi
    assert laizi_kinds("3338X") == set()                            # jokers never pair
    assert laizi_kinds("33338877") == {("FOUR_PAIRS", "3", 1)}
    assert laizi_kinds("33338779") == {("FOUR_PAIRS", "3", 1)}
    assert laizi_kinds("33338888") == set()          # pair kickers of distinct ranks
    assert laizi_kinds("3334447788") == {("PLANE_PAIRS", "3", 2)}


def test_laizi_bombs_are_read_by_their_cards():
    assert laizi_kinds("3333") == {("BOMB", "3", 1)}
    assert laizi_kinds("3337") == {("SOFT_BOMB", "3", 1), ("TRIPLE_SINGLE", "3", 1)}
    assert ("SOFT_BOMB", "3", 1) in laizi_kinds("3377")
    assert ("SOFT_BOMB", "3", 1) in laizi_kinds("3777")
    assert laizi_kinds("3333", "3") == {("LAIZI_BOMB", "3", 1)}
    assert laizi_kinds("2222", "7") == {("BOMB", "2", 1)}


def test_laizi_tiers():
    rocket = M("ROCKET", "X", 1, "XD")
    lb = M("LAIZI_BOMB", "7", 1, "7777")
    bomb3, bomb2 = M("BOMB", "3", 1, "3333"), M("BOMB", "2", 1, "2222")
    soft3, soft2 = M("SOFT_BOMB", "3", 1, "3337"), M("SOFT_BOMB", "2", 1, "2227")
    pair = M("PAIR", "2", 1, "22")
    order = [pair, soft3, soft2, bomb3, bomb2, lb, rocket]
    for i, m in enumerate(order):
        for j, p in enumerate(order):
            assert RL.beats(m, p) == (i > j), (RL.move_text(m), RL.move_text(p))
    assert not RL.beats(rocket, rocket) and not RL.beats(lb, lb)
    assert RL.beats(bomb3, soft2)                  # any BOMB beats any SOFT_BOMB
    assert not RL.beats(PASS, pair)


def test_laizi_plain_moves_compare_by_kind_length_and_rank():
    last = M("STRAIGHT", "3", 5, "34567")
    assert RL.beats(M("STRAIGHT", "4", 5, "45678"), last)
    assert not RL.beats(M("STRAIGHT", "4", 6, "456789"), last)
    assert not RL.beats(M("STRAIGHT", "3", 5, "34589"), last)
    assert not RL.beats(M("PAIR", "A", 1, "AA"), last)


def test_laizi_wild_index():
    assert RL.wild_index("7") == 4 == RL.wild_index(4)
    assert RL.wild_index("10") == 7 == RL.wild_index("t")
    for bad in ("X", "D", "W", 13, -1, "33"):
        with pytest.raises(ValueError):
            RL.wild_index(bad)


def test_laizi_each_identity_has_one_reading():
    rng = random.Random("laizi-readings")
    deck = "3456789TJQKA2" * 4 + "XD"
    for _ in range(300):
        L = rng.randrange(13)
        sub = C("".join(rng.sample(deck, rng.randint(1, 10))))
        ids = [m for m, _ in RL.readings(sub, L)]
        assert len(ids) == len(set(ids))


# ---------------------------------------------------------------------------
# Perft data
# ---------------------------------------------------------------------------

def _load_laizi_perft_txt():
    rows, total = [], None
    with open(os.path.join(PERFT_DIR, "laizi.txt")) as f:
        for line in f:
            words = line.split()
            if not words:
                continue
            if words[0] == "total":
                total = int(words[1])
                continue
            idx, rules, L, hand, last, count = words
            assert rules == "laizi"
            rows.append((int(idx), L, hand, last, int(count)))
    assert total is not None
    return rows, total


_ROWS, _TOTAL = _load_laizi_perft_txt()


def test_laizi_perft_counts_all_320():
    assert len(_ROWS) == 320
    failures, seen = [], 0
    for idx, L, hand, last, count in _ROWS:
        got = RL.legal_moves(C(hand), RL.parse_last(last), L)
        seen += len(got)
        if len(got) != count:
            failures.append(f"#{idx} L={L} {hand} last={last}: {len(got)} != {count}")
    assert not failures, "\n".join(failures[:10])
    assert seen == _TOTAL


def _json_move(m):
    kind, r, n, cards = m
    if kind == "PASS":
        # the shared file writes PASS with r = -1; RULES.md section 3 says 0
        assert (r, n, cards) in ((-1, 0, ""), (0, 0, ""))
        return PASS
    return (kind, r, n, C(cards))


with open(os.path.join(PERFT_DIR, "laizi-moves.json")) as _f:
    _JSON = json.load(_f)
assert _JSON["rules"] == "laizi"


@pytest.mark.parametrize("i", range(len(_JSON["positions"])))
def test_laizi_perft_moves_json(i):
    pos = _JSON["positions"][i]
    hand = C(pos["hand"])
    assert tuple(pos["hand_counts"]) + (0,) == hand
    expected = {_json_move(m) for m in pos["moves"]}
    assert len(expected) == len(pos["moves"]) == pos["count"]
    got = RL.legal_moves(hand, RL.parse_last(pos["last"]), pos["laizi_rank"])
    missing = sorted(RL.move_text(m) for m in expected - got)
    extra = sorted(RL.move_text(m) for m in got - expected)
    assert got == expected, f"#{i} L={pos['laizi_rank']} {pos['hand']} " \
        f"last={pos['last']}\nmissing {missing}\nextra {extra}"
    for m in got:
        RL.substitutes(m, pos["laizi_rank"])     # exactly one reading each


def test_laizi_perft_json_positions_are_in_the_txt():
    txt = {(L, hand, last): count for _, L, hand, last, count in _ROWS}
    for pos in _JSON["positions"]:
        assert txt[(pos["laizi_rank"], pos["hand"], pos["last"])] == pos["count"]


# ---------------------------------------------------------------------------
# Without laizi: the classic moves
# ---------------------------------------------------------------------------

def test_hands_without_laizi_give_the_classic_moves():
    rng = random.Random("laizi-no-wild")
    deck = "3456789TJQKA2" * 4 + "XD"
    for _ in range(300):
        L = rng.randrange(13)
        pool = [c for c in deck if c != RANK_CHARS[L]]
        hand = C("".join(rng.sample(pool, rng.randint(1, 10))))
        expected = reference.legal_moves(hand, None, "classic")
        assert RL.legal_moves(hand, None, L) == expected, (cards_text(hand), L)
        for m in expected:
            assert RL.substitutes(m, L) == (0,) * 13
        last = rng.choice(sorted(expected))
        other = C("".join(rng.sample(pool, rng.randint(1, 10))))
        assert RL.legal_moves(other, last, L) == \
            reference.legal_moves(other, last, "classic"), (cards_text(other), last, L)


# ---------------------------------------------------------------------------
# Full check on every core: python3 tests/test_reference.py
# ---------------------------------------------------------------------------

def _count_position(args):
    rules, idx, hand, last, count = args
    return rules, idx, hand, last, count, len(legal_moves(C(hand), parse_last(last), rules))


def main():
    import multiprocessing
    t0 = time.time()
    jobs = [(rules, idx, hand, last, count) for rules in RULES
            for idx, hand, last, count in _PERFT_TXT[rules][0]]
    jobs.sort(key=lambda j: -_n_subsets(j[2]))  # biggest first
    sums = dict.fromkeys(RULES, 0)
    bad = 0
    with multiprocessing.Pool() as pool:
        for rules, idx, hand, last, count, got in pool.imap_unordered(
                _count_position, jobs):
            sums[rules] += got
            if got != count:
                bad += 1
                print(f"MISMATCH {rules} #{idx} {hand} {last}: "
                      f"expected {count}, got {got}", flush=True)
    for rules in RULES:
        total = _PERFT_TXT[rules][1][0]
        print(f"{rules}: {sums[rules]} legal moves (file total {total})"
              + ("" if sums[rules] == total else "  MISMATCH"))
        bad += sums[rules] != total
    print(f"{len(jobs)} positions, {bad} mismatches, "
          f"{time.time() - t0:.0f} s wall")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
