"""Tests of the pure-Python laizi reference (tests/oracles/reference_laizi.py) against
RULES.md section 8:

* every worked reading of section 8 (``L = 7``) as an explicit assertion, and
  the rules behind them (face value, kickers, tiers);
* every count of tests/perft/laizi.txt (all 320 positions and the total, about
  3 s) and every full move list of tests/perft/laizi-moves.json;
* hands without laizi: the same moves as the classic reference (tests/
  reference.py), a natural four being a BOMB.
"""

from __future__ import annotations

import json
import os
import random
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from oracles import reference  # noqa: E402
from oracles.reference_laizi import (  # noqa: E402
    PASS, beats, cards_text, classify, legal_moves, move_text, parse_cards,
    parse_last, readings, subst_text, substitutes, substitutes_excluding_self,
    wild_index,
)

PERFT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "perft")
RANK_CHARS = "3456789TJQKA2"


def C(text):
    return parse_cards(text)


def M(kind, r, n, cards):
    """Identity with ``r`` a card character."""
    return (kind, "3456789TJQKA2XD".index(r), n, C(cards))


def kinds(text, L="7"):
    """{(kind, r as card character, n)} of every reading of ``text``."""
    return {(k, "3456789TJQKA2XD"[r], n) for k, r, n, _ in classify(C(text), L)}


def subst(text, kind, r, n=1, L="7"):
    """Substitutes of one move, as card text."""
    return subst_text(substitutes(M(kind, r, n, text), L))


# ---------------------------------------------------------------------------
# The worked readings of RULES.md section 8 (L = 7)
# ---------------------------------------------------------------------------

def test_5577_is_triple_single_and_soft_bomb_of_5s():
    assert kinds("5577") == {("TRIPLE_SINGLE", "5", 1), ("SOFT_BOMB", "5", 1)}
    assert subst("5577", "TRIPLE_SINGLE", "5") == "5"    # 55 + 7 as 5, kicker 7
    assert subst("5577", "SOFT_BOMB", "5") == "55"


def test_3777_is_a_soft_bomb_and_thirteen_triple_singles():
    got = kinds("3777")
    assert got == {("SOFT_BOMB", "3", 1)} | {("TRIPLE_SINGLE", q, 1) for q in RANK_CHARS}
    assert len(got) == 14
    assert subst("3777", "TRIPLE_SINGLE", "3") == "33"   # 77 as 33, kicker 7
    assert subst("3777", "TRIPLE_SINGLE", "7") == "777"  # 777 as itself, kicker 3
    assert subst("3777", "TRIPLE_SINGLE", "A") == "AAA"  # 777 as AAA, kicker 3
    assert subst("3777", "SOFT_BOMB", "3") == "333"
    assert substitutes_excluding_self(M("TRIPLE_SINGLE", "7", 1, "3777"), "7") == (0,) * 13


def test_777X_is_thirteen_triple_singles():
    assert kinds("777X") == {("TRIPLE_SINGLE", q, 1) for q in RANK_CHARS}


def test_7777_is_only_a_laizi_bomb():
    assert kinds("7777") == {("LAIZI_BOMB", "7", 1)}
    assert subst("7777", "LAIZI_BOMB", "7") == "7777"


def test_345677_is_only_one_straight():
    assert kinds("345677") == {("STRAIGHT", "3", 6)}
    assert subst("345677", "STRAIGHT", "3", 6) == "78"   # one 7 as itself, one as 8
    assert subst_text(substitutes_excluding_self(M("STRAIGHT", "3", 6, "345677"), "7")) == "8"


def test_33377_is_only_triple_pair():
    assert kinds("33377") == {("TRIPLE_PAIR", "3", 1)}
    assert subst("33377", "TRIPLE_PAIR", "3") == ""      # the laizi are the kicker pair


def test_33337777_is_only_four_pairs():
    assert kinds("33337777") == {("FOUR_PAIRS", "3", 1)}


def test_3457_is_not_a_move():
    assert classify(C("3457"), "7") == set()


def test_4477_answers_pair_AA_only_as_soft_bomb():
    last = M("PAIR", "A", 1, "AA")
    assert legal_moves(C("4477"), last, "7") == {PASS, M("SOFT_BOMB", "4", 1, "4477")}
    assert kinds("77") == {("PAIR", "7", 1)}    # face value, never a pair of aces
    assert kinds("47") == {("PAIR", "4", 1)}
    assert kinds("44") == {("PAIR", "4", 1)}


def test_soft_bomb_of_5s_cannot_beat_bomb_of_3s():
    soft5 = M("SOFT_BOMB", "5", 1, "5557")
    bomb3 = M("BOMB", "3", 1, "3333")
    assert not beats(soft5, bomb3)
    assert beats(bomb3, soft5)
    assert legal_moves(C("5557"), bomb3, "7") == {PASS}


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
    assert kinds(text) == expected
    assert subst(text, next(iter(expected))[0], "7") == text


def test_laizi_never_stands_for_a_joker():
    assert kinds("X7") == set()
    assert kinds("XD7") == set()                  # no rocket with a laizi
    assert kinds("XD") == {("ROCKET", "X", 1)}
    assert kinds("X77") == set()


def test_laizi_complete_pairs_triples_and_chains():
    assert kinds("57") == {("PAIR", "5", 1)}
    assert kinds("577") == {("TRIPLE", "5", 1)}
    assert kinds("34567") == {("STRAIGHT", "3", 5)}    # the 7 as itself
    assert kinds("34568") == set()
    assert kinds("34587") == set()     # one laizi cannot fill 6 and keep 8 in
    assert kinds("345697") == set()
    assert kinds("3458977") == {("STRAIGHT", "3", 7)}
    assert subst("3458977", "STRAIGHT", "3", 7) == "67"
    assert kinds("3344577") == set()
    assert kinds("334457") == {("PAIR_STRAIGHT", "3", 3)}
    assert kinds("QKA77") == {("STRAIGHT", "T", 5)}    # two laizi as T and J
    assert subst("QKA77", "STRAIGHT", "T", 5) == "TJ"
    # never a chain through 2; four of K, A or 2 with two kickers instead
    assert kinds("KA2777") == {("FOUR_SINGLES", q, 1) for q in "KA2"}


def test_laizi_two_stands_in_chains():
    # L = 2: the 2s are laizi, so they may stand for chain ranks
    assert kinds("345622", "2") == {("STRAIGHT", "3", 6)}
    assert subst("345622", "STRAIGHT", "3", 6, L="2") == "78"
    assert kinds("34522", "2") == {("STRAIGHT", "3", 5)}
    assert kinds("3422", "2") == {("TRIPLE_SINGLE", "3", 1), ("TRIPLE_SINGLE", "4", 1)}


def test_natural_cards_of_a_main_rank_never_stay_out():
    assert kinds("3337") == {("TRIPLE_SINGLE", "3", 1), ("SOFT_BOMB", "3", 1)}
    assert kinds("33337") == set()                 # 3333 + 7 is no 5-card move
    assert kinds("333377") == {("FOUR_SINGLES", "3", 1)}
    assert kinds("333447") == {("PLANE", "3", 2), ("FOUR_SINGLES", "3", 1)}
    assert subst("333447", "PLANE", "3", 2) == "4"
    assert subst("333447", "FOUR_SINGLES", "3") == "3"


def test_laizi_kicker_may_sit_beside_main_rank_L():
    # 666777 + 7 + 3: the laizi kicker beside the main rank 7
    assert kinds("66677773") == {("PLANE_SINGLES", "6", 2), ("PLANE_SINGLES", "5", 2),
                                 ("FOUR_PAIRS", "6", 1)}
    assert subst("66677773", "PLANE_SINGLES", "6", 2) == "777"
    assert subst("66677773", "PLANE_SINGLES", "5", 2) == "555"
    assert subst("66677773", "FOUR_PAIRS", "6") == "6"   # kickers 3+7 and 77


def test_pair_kickers_with_laizi():
    assert kinds("33387") == {("TRIPLE_PAIR", "3", 1)}       # natural + laizi
    assert kinds("33377") == {("TRIPLE_PAIR", "3", 1)}       # two laizi
    assert kinds("3338X") == set()                            # jokers never pair
    assert kinds("33338877") == {("FOUR_PAIRS", "3", 1)}
    assert kinds("33338779") == {("FOUR_PAIRS", "3", 1)}
    assert kinds("33338888") == set()          # pair kickers of distinct ranks
    assert kinds("3334447788") == {("PLANE_PAIRS", "3", 2)}


def test_bombs_are_read_by_their_cards():
    assert kinds("3333") == {("BOMB", "3", 1)}
    assert kinds("3337") == {("SOFT_BOMB", "3", 1), ("TRIPLE_SINGLE", "3", 1)}
    assert ("SOFT_BOMB", "3", 1) in kinds("3377")
    assert ("SOFT_BOMB", "3", 1) in kinds("3777")
    assert kinds("3333", "3") == {("LAIZI_BOMB", "3", 1)}
    assert kinds("2222", "7") == {("BOMB", "2", 1)}


def test_tiers():
    rocket = M("ROCKET", "X", 1, "XD")
    lb = M("LAIZI_BOMB", "7", 1, "7777")
    bomb3, bomb2 = M("BOMB", "3", 1, "3333"), M("BOMB", "2", 1, "2222")
    soft3, soft2 = M("SOFT_BOMB", "3", 1, "3337"), M("SOFT_BOMB", "2", 1, "2227")
    pair = M("PAIR", "2", 1, "22")
    order = [pair, soft3, soft2, bomb3, bomb2, lb, rocket]
    for i, m in enumerate(order):
        for j, p in enumerate(order):
            assert beats(m, p) == (i > j), (move_text(m), move_text(p))
    assert not beats(rocket, rocket) and not beats(lb, lb)
    assert beats(bomb3, soft2)                  # any BOMB beats any SOFT_BOMB
    assert not beats(PASS, pair)


def test_plain_moves_compare_by_kind_length_and_rank():
    last = M("STRAIGHT", "3", 5, "34567")
    assert beats(M("STRAIGHT", "4", 5, "45678"), last)
    assert not beats(M("STRAIGHT", "4", 6, "456789"), last)
    assert not beats(M("STRAIGHT", "3", 5, "34589"), last)
    assert not beats(M("PAIR", "A", 1, "AA"), last)


def test_wild_index():
    assert wild_index("7") == 4 == wild_index(4)
    assert wild_index("10") == 7 == wild_index("t")
    for bad in ("X", "D", "W", 13, -1, "33"):
        with pytest.raises(ValueError):
            wild_index(bad)


def test_each_identity_has_one_reading():
    rng = random.Random("laizi-readings")
    deck = "3456789TJQKA2" * 4 + "XD"
    for _ in range(300):
        L = rng.randrange(13)
        sub = C("".join(rng.sample(deck, rng.randint(1, 10))))
        ids = [m for m, _ in readings(sub, L)]
        assert len(ids) == len(set(ids))


# ---------------------------------------------------------------------------
# Perft data
# ---------------------------------------------------------------------------

def _load_perft_txt():
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


_ROWS, _TOTAL = _load_perft_txt()


def test_perft_counts_all_320():
    assert len(_ROWS) == 320
    failures, seen = [], 0
    for idx, L, hand, last, count in _ROWS:
        got = legal_moves(C(hand), parse_last(last), L)
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
def test_perft_moves_json(i):
    pos = _JSON["positions"][i]
    hand = C(pos["hand"])
    assert tuple(pos["hand_counts"]) + (0,) == hand
    expected = {_json_move(m) for m in pos["moves"]}
    assert len(expected) == len(pos["moves"]) == pos["count"]
    got = legal_moves(hand, parse_last(pos["last"]), pos["laizi_rank"])
    missing = sorted(move_text(m) for m in expected - got)
    extra = sorted(move_text(m) for m in got - expected)
    assert got == expected, f"#{i} L={pos['laizi_rank']} {pos['hand']} " \
        f"last={pos['last']}\nmissing {missing}\nextra {extra}"
    for m in got:
        substitutes(m, pos["laizi_rank"])     # exactly one reading each


def test_perft_json_positions_are_in_the_txt():
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
        assert legal_moves(hand, None, L) == expected, (cards_text(hand), L)
        for m in expected:
            assert substitutes(m, L) == (0,) * 13
        last = rng.choice(sorted(expected))
        other = C("".join(rng.sample(pool, rng.randint(1, 10))))
        assert legal_moves(other, last, L) == \
            reference.legal_moves(other, last, "classic"), (cards_text(other), last, L)
