"""The move generator as the one source of the rules: classify and the
core's check (ddz_check, called through ctypes) accept exactly the moves
legal_moves generates, on every sub-multiset of random hands of every rule
set and of custom ones (before the hardening review each had rules of its
own; each regression names the defect it guards); and the rules on fixed
hands: every worked reading of RULES.md section 8 (laizi, L = 7), the
substitutes and their text, hands without laizi giving the classic moves."""
from __future__ import annotations

import ctypes
import itertools
import random

import numpy as np
import pytest

import pickle

import ddzfast
from ddzfast import Hand, Move, classify, get_rules, legal_moves
from ddzfast.constants import CARD_CHARS
from helpers import CLASSIC_FAMILY, L7, RULE_SETS, capi

DECK = "3456789TJQKA2" * 4 + "XD"

_PTR = ctypes.c_void_p
c_check = capi("ddz_check", ctypes.c_int, _PTR, ctypes.c_int, ctypes.c_int,
               ctypes.c_int, ctypes.c_uint64)


def check(rules, kind: int, rank: int, length: int, cards: int) -> int:
    """ddz_check: the move's wild, or -1 when it is not a legal move."""
    return c_check(ddzfast.get_rules(rules).address, kind, rank, length, cards)


# ---- one source for generating, checking and classifying ---------------------

def _submultisets(hand: int):
    counts = [(hand >> (4 * i)) & 15 for i in range(16)]
    for pick in itertools.product(*(range(c + 1) for c in counts)):
        yield sum(c << (4 * i) for i, c in enumerate(pick))


def _readings(moves) -> dict:
    """cards -> {(kind, rank, length): wild} of a MOVE_DTYPE array."""
    out: dict = {}
    for row in moves:
        out.setdefault(int(row["cards"]), {})[
            (int(row["kind"]), int(row["rank"]), int(row["length"]))] = int(row["wild"])
    return out


CUSTOM = {
    "stands": ("super", dict(wild_joker_stands=False)),
    "low-wild": ("biegang", dict(wild_max_rank=5)),
}


def _rules(name):
    if name in CUSTOM:
        base, changes = CUSTOM[name]
        return ddzfast.get_rules(base).with_options(**changes)
    return ddzfast.get_rules(name)


@pytest.mark.parametrize("name", RULE_SETS + tuple(CUSTOM))
def test_classify_of_every_submultiset_is_the_generator(name):
    # classify(C) is exactly the moves with cards C that the generator makes
    # from any hand holding C, and ddz_check accepts exactly those
    """classify and ddz_check had rules of their own beside the generator's: on every
    sub-multiset they accept exactly what it generates."""
    rules = _rules(name)
    rng = random.Random(hash(name) & 0xFFFF)
    deck = DECK + ("W" if rules.wildcard else "")
    for _ in range(6):
        hand = int(Hand.parse("".join(rng.sample(deck, 9)), rules))
        generated = _readings(ddzfast.legal_moves(hand, None, rules).array)
        for cards in _submultisets(hand):
            if cards == 0:
                continue
            classified = _readings(ddzfast.classify(cards, rules).array).get(cards, {})
            assert classified == generated.get(cards, {}), hex(cards)
            for (kind, rank, length), wild in classified.items():
                assert check(rules, kind, rank, length, cards) == wild
                # a neighbouring identity is legal only when generated
                for k, r, n in ((kind, rank + 1, length), (kind, rank, length + 1),
                                (kind + 1, rank, length), (kind - 1, rank, length)):
                    got = check(rules, k, r, n, cards)
                    assert got == classified.get((k, r, n), -1), (k, r, n, hex(cards))


@pytest.mark.parametrize("name", RULE_SETS + tuple(CUSTOM))
def test_every_generated_move_checks(name):
    """ddz_check refused moves the generator makes, or gave them another wild: every
    generated move checks, with its wild."""
    rules = _rules(name)
    rng = random.Random(7)
    deck = DECK + ("W" if rules.wildcard else "")
    for size in (5, 12, 17, 21):
        for _ in range(5):
            hand = Hand.parse("".join(rng.sample(deck, min(size, len(deck)))), rules)
            moves = ddzfast.legal_moves(hand, None, rules).array
            for row in moves:
                assert check(rules, int(row["kind"]), int(row["rank"]),
                             int(row["length"]), int(row["cards"])) == row["wild"]


def test_check_grid_matches_classify():
    # every (kind, rank, length) for a few card sets, out-of-range values too
    """ddz_check accepted identities the generator never makes (any kind, rank and
    length, out-of-range values too): only classify's readings."""
    rules = ddzfast.get_rules("biegang")
    for text in ("333W", "33W", "XW", "XDW", "3333W", "34567W", "33344458", "3W44",
                 "3344556W", "333444W5", "33334455"):
        cards = int(Hand.parse(text, rules))
        classified = _readings(ddzfast.classify(cards, rules).array).get(cards, {})
        for kind in range(-1, 21):
            for rank in range(-1, 17):
                for length in range(-1, 14):
                    assert check(rules, kind, rank, length, cards) \
                        == classified.get((kind, rank, length), -1)


def test_wild_max_rank_past_the_deck_is_consistent():
    """A wild_max_rank of 32 or more shifted past an int: classify called PAIR KW legal
    while legal_moves omitted it. Past the deck it is refused; at the largest
    accepted (12, the 2) the two agree."""
    with pytest.raises(ValueError, match=r"wild_max_rank must be in 0\.\.12, not 40"):
        ddzfast.get_rules("biegang").with_options(wild_max_rank=40)
    rules = ddzfast.get_rules("biegang").with_options(wild_max_rank=12)
    hand = Hand.parse("KW", rules)
    generated = _readings(ddzfast.legal_moves(hand, None, rules).array)
    classified = _readings(ddzfast.classify(hand, rules).array)
    assert classified.get(int(hand), {}) == generated.get(int(hand), {})
    assert (int(ddzfast.MoveKind.PAIR), 10, 1) in generated[int(hand)]


# ---- the worked readings of RULES.md section 8 (laizi, L = 7), substitutes and text ---

def moves_of(hand, rules=L7, last=None):
    return {(m.kind.name, CARD_CHARS[m.rank], m.length, str(m.cards))
            for m in legal_moves(hand, last, rules)}


def readings(cards, rules=L7):
    """Every reading of exactly these cards: (kind, rank char)."""
    return sorted((m.kind.name, CARD_CHARS[m.rank]) for m in classify(cards, rules))


def test_5577():
    assert readings("5577") == [("SOFT_BOMB", "5"), ("TRIPLE_SINGLE", "5")]


def test_3777():
    got = readings("3777")
    assert ("SOFT_BOMB", "3") in got
    ts = [r for k, r in got if k == "TRIPLE_SINGLE"]
    assert sorted(ts) == sorted(CARD_CHARS[:13]) and len(got) == 14


def test_777X():
    got = readings("777X")
    assert len(got) == 13 and {k for k, _ in got} == {"TRIPLE_SINGLE"}


def test_7777_is_only_a_laizi_bomb():
    assert readings("7777") == [("LAIZI_BOMB", "7")]


def test_345677_is_only_one_straight():
    (m,) = classify("345677", L7)
    assert (m.kind.name, m.rank, m.length) == ("STRAIGHT", 0, 6)
    assert str(m.substitutes) == "8" and str(m) == "STRAIGHT 345677 (7 as 8)"


def test_33377_is_only_a_triple_pair():
    assert readings("33377") == [("TRIPLE_PAIR", "3")]


def test_33337777_is_only_four_pairs():
    (m,) = classify("33337777", L7)
    assert (m.kind.name, m.rank) == ("FOUR_PAIRS", 0)


def test_3457_is_not_a_move():
    assert readings("3457") == []


def test_laizi_alone_are_read_at_face_value():
    assert readings("7") == [("SINGLE", "7")]
    assert readings("77") == [("PAIR", "7")]
    assert readings("777") == [("TRIPLE", "7")]


def test_4477_answers_a_pair_of_aces_only_as_a_soft_bomb():
    aa = Move("PAIR", 11, 1, "AA", rules=L7)
    got = moves_of("4477", last=aa)
    assert got == {("PASS", "3", 0, ""), ("SOFT_BOMB", "4", 1, "4477")}


def test_a_soft_bomb_never_beats_a_bomb():
    soft5 = Move("SOFT_BOMB", 2, 1, "5577", rules=L7)
    bomb3 = Move("BOMB", 0, 1, "3333", rules=L7)
    assert not ddzfast.beats(soft5, bomb3, L7) and ddzfast.beats(bomb3, soft5, L7)
    assert ("SOFT_BOMB", "5", 1, "5557") not in moves_of("5557", last=bomb3)
    lz = Move("LAIZI_BOMB", 4, 1, "7777", rules=L7)
    rocket = Move("ROCKET", 13, 1, "XD", rules=L7)
    assert ddzfast.beats(lz, bomb3, L7) and ddzfast.beats(rocket, lz, L7)
    assert not ddzfast.beats(lz, rocket, L7)
    soft6 = Move("SOFT_BOMB", 3, 1, "6777", rules=L7)
    assert ddzfast.beats(soft6, soft5, L7) and not ddzfast.beats(soft5, soft6, L7)


def test_a_laizi_kicker_may_sit_beside_a_main_rank_of_L():
    assert ("PLANE_SINGLES", "6") in readings("3666777" + "7")


def test_no_natural_kicker_of_a_main_rank():
    # 3337: the 3s are all in the main part; 7 can only be the kicker or a 3
    assert readings("3337") == [("SOFT_BOMB", "3"), ("TRIPLE_SINGLE", "3")]
    # 33334: never a triple of 3s with a 3 kicker
    assert ("TRIPLE_PAIR", "3") not in readings("33334")


def test_pair_kickers_of_distinct_ranks_none_a_main_rank():
    # 333+77: the laizi as a pair of any free rank
    assert readings("33377") == [("TRIPLE_PAIR", "3")]
    # 333+4+7: a natural 4 completed by a laizi
    assert ("TRIPLE_PAIR", "3") in readings("33347")
    # four pairs need two distinct ranks: 3333+44+47 is not FOUR_PAIRS
    assert ("FOUR_PAIRS", "3") not in readings("33334447")


def test_four_singles_and_four_pairs_hold_laizi():
    assert ("FOUR_SINGLES", "3") in readings("33375" + "8")
    assert ("FOUR_PAIRS", "3") in readings("3337" + "5588")


def test_bombs():
    assert moves_of("3333") >= {("BOMB", "3", 1, "3333")}
    assert ("SOFT_BOMB", "3", 1, "3333") not in moves_of("3333")
    assert {m for m in moves_of("3777") if m[0] == "SOFT_BOMB"} == {
        ("SOFT_BOMB", "3", 1, "3777")}
    # laizi 7s are never a BOMB or a SOFT_BOMB of 7s
    assert {m[0] for m in moves_of("7777") if "BOMB" in m[0]} == {"LAIZI_BOMB"}


def test_substitutes_and_text():
    by = {str(m): m for m in legal_moves("3777", None, L7)}
    assert "TRIPLE_SINGLE 3777 (77 as 33)" in by
    assert "TRIPLE_SINGLE 3777 (777 as AAA)" in by
    assert "TRIPLE_SINGLE 3777" in by          # 777 as themselves, 3 kicker
    assert str(by["TRIPLE_SINGLE 3777 (77 as 33)"].substitutes) == "33"
    assert by["TRIPLE_SINGLE 3777 (777 as AAA)"].wild_text == "777 as AAA"
    # four laizi standing for one rank
    (m,) = [m for m in legal_moves("357777", None, L7)
            if m.kind.name == "FOUR_SINGLES" and m.rank == 11]
    assert str(m.substitutes) == "AAAA" and str(m) == "FOUR_SINGLES 357777 (7777 as AAAA)"
    # the array holds them too; Move() and a row re-derive them
    arr = legal_moves("357777", None, L7).array
    row = arr[[i for i in range(len(arr)) if arr[i]["kind"] == 11
               and arr[i]["rank"] == 11][0]]
    # 2 bits per rank 3..2; four laizi for one rank: that rank + 1 in bits 26..29
    assert int(row["substitutes"]) == (11 + 1) << 26
    assert int(legal_moves("3777", None, L7).array[6]["substitutes"]) == 2 << 0
    made = Move("FOUR_SINGLES", 11, 1, "357777", rules=L7)
    assert made.substitutes == m.substitutes
    assert pickle.loads(pickle.dumps(made)).substitutes == m.substitutes
    assert ddzfast.play("3577779", row, L7) == Hand("9")


def test_classic_rule_sets_have_no_substitutes():
    for rules in CLASSIC_FAMILY:
        hand = "33345678" + ("W" if get_rules(rules).wildcard else "")
        arr = legal_moves(hand, None, rules).array
        assert not arr["substitutes"].any()


def test_a_hand_without_laizi_has_the_classic_moves():
    rng = np.random.default_rng(10)
    deck = "".join(c * 4 for c in CARD_CHARS[:13]) + "XD"
    for i in range(400):
        L = CARD_CHARS[i % 13]
        pool = [c for c in deck if c != L]
        hand = "".join(rng.choice(pool, rng.integers(1, 21), replace=False))
        want = {m.identity for m in legal_moves(hand, None, "classic")}
        got = legal_moves(hand, None, f"laizi:{L}")
        assert {m.identity for m in got} == want, (hand, L)
        assert len(got) == len(want)
