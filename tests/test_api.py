"""The Python API: conversions, values (Hand, Move, MoveList, Rules, the laizi
rule set and its wild rank as data), buffers and every byte of a move row,
immutability, and clear errors (only ValueError and TypeError, IndexError
for an index) on bad input; the regressions of the hardening review each
name the defect they guard."""
import copy
import math
import pickle
import random
import re
import threading

import numpy as np
import pytest

import ddzfast
from ddzfast import (MOVE_DTYPE, Game, Hand, IllegalMoveError, InvalidCardsError, Move,
                     MoveKind, MoveList, Rules, beats, classify, deal_seed, get_rules,
                     legal_moves, legal_moves_batch, legal_moves_into, play)
from ddzfast.constants import deck_text
from helpers import CLASSIC_FAMILY, L7, RULE_SETS, WILDCARD_RULE_SETS, dirty_the_stack


# ---- hands -------------------------------------------------------------------

def test_hand_round_trips():
    h = Hand.parse("33W45678")
    assert str(h) == "3345678W"
    assert repr(h) == "Hand('3345678W')"
    assert eval(repr(h)) == h
    assert Hand(int(h)) == h == Hand("3345678w") == Hand(h)
    assert len(h) == 8 and h.count("3") == 2 and h["W"] == 1 and h.wildcards == 1
    assert h.counts[:2] == (2, 1) and h.counts[15] == 1
    assert int(h) == 2 + (1 << 4) + (1 << 8) + (1 << 12) + (1 << 16) + (1 << 20) + (1 << 60)
    assert Hand.parse("10 10 j q k") == Hand("TTJQK")
    assert "TJ" in Hand("TTJQK") and "TTT" not in Hand("TTJQK")
    assert Hand("334") - "3" == Hand("34") and Hand("3") + Hand("4") == Hand("34")
    assert pickle.loads(pickle.dumps(h)) == h
    assert len({Hand("34"), Hand("43")}) == 1
    assert not Hand(0) and list(Hand("XD3")) == ["3", "X", "D"]


@pytest.mark.parametrize("text, message", [
    ("33Z", "unknown card 'Z'"),
    ("33333", "5 of '3'"),
    ("XX", "2 of 'X'"),
    ("3WW", "2 of 'W'"),
])
def test_hand_rejects_bad_text(text, message):
    with pytest.raises(ValueError, match=message):
        Hand.parse(text)


def test_hand_deck_checks():
    with pytest.raises(ValueError, match="wildcard W.*'classic'"):
        Hand.parse("34W", rules="classic")
    assert Hand.parse("34W", rules="super") == Hand("34W")
    with pytest.raises(ValueError, match="wildcard"):
        legal_moves("34W", None, "classic")
    with pytest.raises(ValueError, match="not a packed hand"):
        Hand(-1)
    with pytest.raises(ValueError, match="not a packed hand"):
        Hand(1 << 64)
    with pytest.raises(ValueError, match="5 of '3'"):
        Hand(5)
    with pytest.raises(TypeError):
        Hand(3.5)
    with pytest.raises(ValueError, match="not contained"):
        Hand("3") - "4"


# ---- moves -------------------------------------------------------------------

@pytest.mark.parametrize("rules", RULE_SETS + ("laizi:7+happy",))
def test_repr_of_every_move_pastes_back(rules):
    """Regression (a user's review): a laizi or tiandi move's repr named no
    rule set, so that pasting it back was an IllegalMoveError for most of
    them; it names the one with the move's wild ranks."""
    rng = random.Random(rules)
    deck = list(deck_text(get_rules(rules).wildcard))
    r = get_rules(rules)
    for _ in range(20):
        hand = "".join(rng.sample(deck, 12))
        for m in legal_moves(hand, None, r):
            back = eval(repr(m))
            assert back == m and back.substitutes == m.substitutes and str(back) == str(m)


def test_move_values():
    m = Move.parse("STRAIGHT/4/5/4567W")
    assert (m.kind, m.rank, m.length, m.wild) == (MoveKind.STRAIGHT, 1, 5, 5)
    assert str(m) == "STRAIGHT 4567W (W as 8)"
    assert eval(repr(m)) == m
    assert m.cards == Hand("4567W")
    assert Move("STRAIGHT", 1, 5, "4567W") == m and hash(Move(6, 1, 5, "4567W")) == hash(m)
    assert Move.parse("STRAIGHT/3/5/4567W").wild == 0
    assert Move.parse("STRAIGHT/3/5/4567W") != m   # same cards, another rank
    assert Move.parse("TRIPLE_SINGLE/3/1/333W").wild == 15
    assert Move.parse("BOMB/3/1/333W").wild == 0
    assert Move.parse("ROCKET/X/1/XD").wild == 255
    assert Move.parse("ROCKET/X/1/XW").wild == 14       # super: W as D
    assert Move.parse("WILD_ROCKET/X/1/DW").wild == 15  # biegang: W as itself
    assert str(Move.parse("PASS")) == "PASS" and Move.parse("PASS").kind == MoveKind.PASS
    assert pickle.loads(pickle.dumps(m)) == m
    assert m.identity == (6, 1, 5, int(Hand("4567W")))


@pytest.mark.parametrize("text, message", [
    ("PAIR/3/1/34", "not a PAIR"),
    ("FOO/3/1/33", "unknown move kind"),
    ("PAIR/Z/1/33", "unknown card"),
    ("PAIR/3/x/33", "not a count"),
    ("PAIR/3/-1/33", "'-1' is not a count"),     # (it was called no number)
    ("PAIR/3/33", "KIND/r/n/cards"),
    ("SINGLE/3/1/W", "not a SINGLE"),
    ("FOUR_PAIRS/3/1/33335555", "not a FOUR_PAIRS"),
])
def test_move_rejects_bad_text(text, message):
    with pytest.raises(ValueError, match=message):
        Move.parse(text)


def test_move_kind_names_are_those_of_rules_md():
    assert [k.name for k in MoveKind] == [
        "PASS", "SINGLE", "PAIR", "TRIPLE", "TRIPLE_SINGLE", "TRIPLE_PAIR",
        "STRAIGHT", "PAIR_STRAIGHT", "PLANE", "PLANE_SINGLES", "PLANE_PAIRS",
        "FOUR_SINGLES", "FOUR_PAIRS", "BOMB", "ROCKET", "WILD_ROCKET",
        "HEAVEN_ROCKET", "HEAVEN_BOMB", "SUPER_BOMB", "SOFT_BOMB", "LAIZI_BOMB"]
    assert MOVE_DTYPE.names == ("cards", "kind", "rank", "length", "wild", "substitutes")
    assert MOVE_DTYPE["cards"] == np.uint64 and MOVE_DTYPE["wild"] == np.uint8
    assert MOVE_DTYPE["substitutes"] == np.uint32 and MOVE_DTYPE.itemsize == 16


# ---- move lists ----------------------------------------------------------------

def test_move_list():
    ml = legal_moves("3333XD")
    assert isinstance(ml, MoveList) and len(ml) == 10
    arr = ml.array
    assert arr.dtype == MOVE_DTYPE and arr.shape == (10,) and not arr.flags.writeable
    moves = list(ml)
    assert [m.identity for m in moves] == [
        (int(r["kind"]), int(r["rank"]), int(r["length"]), int(r["cards"])) for r in arr]
    assert ml[-1] == moves[-1] and ml[0] == moves[0] and ml[1:3] == moves[1:3]
    assert Move.parse("ROCKET/X/1/XD") in ml and Move.parse("PAIR/4/1/44") not in ml
    assert "XD" not in ml       # only moves are members
    with pytest.raises(IndexError):
        ml[10]
    del ml                       # the array keeps the list's buffer alive
    assert len({int(c) for c in arr["cards"]}) == 10


def test_leading_with_only_w_passes_and_empty_hand_has_no_moves():
    for rules in WILDCARD_RULE_SETS:
        assert [m.kind for m in legal_moves("W", None, rules)] == [MoveKind.PASS]
        assert [m.kind for m in legal_moves("W", Move.parse("SINGLE/3/1/3"), rules)] == [
            MoveKind.PASS]
    assert len(legal_moves("", None, "classic")) == 0


def test_following_starts_with_pass_and_accepts_array_rows():
    lead = legal_moves("33", None)
    row = lead.array[1]          # PAIR 33
    follow = legal_moves("44", row)
    assert [str(m) for m in follow] == ["PASS", "PAIR 44"]
    assert [str(m) for m in legal_moves("44", lead[1])] == ["PASS", "PAIR 44"]


def test_last_must_be_a_legal_non_pass_move_of_the_rule_set():
    with pytest.raises(ValueError, match="non-pass"):
        legal_moves("44", Move.parse("PASS"))
    with pytest.raises(ValueError, match="not a legal move in 'super'"):
        legal_moves("44", Move.parse("TRIPLE_PAIR/3/1/33344"), "super")
    with pytest.raises(ValueError, match="not a legal move in 'classic'"):
        legal_moves("44", Move.parse("BOMB/3/1/333W"), "classic")
    bad = np.zeros(1, MOVE_DTYPE)[0]
    bad["kind"], bad["rank"], bad["length"], bad["cards"] = 2, 0, 1, int(Hand("34"))
    with pytest.raises(ValueError, match="not a legal move"):
        legal_moves("44", bad)
    with pytest.raises(TypeError, match="a Move, a MOVE_DTYPE row"):
        legal_moves("44", "33")


_SKY_ONLY = get_rules("tiandi").with_options(wild_ranks=("7",))
_NO_SIZE_TIERS = get_rules("tiandi:7J").description_dict()
del _NO_SIZE_TIERS["size_tiers"]


@pytest.mark.parametrize("rules, text", [
    (get_rules("classic"), "Rules('classic')"),
    (get_rules("classic").with_options(doubling=True),
     "Rules('classic').with_options(doubling=True)"),
    (get_rules("classic+happy").with_options(cap=None),
     "Rules('classic+happy').with_options(cap=None)"),
    (get_rules("laizi:7+happy"), "Rules('laizi:7+happy')"),
    (get_rules("tiandi:7J").without_kinds("LAIZI_BOMB"),
     "Rules('tiandi:7J').without_kinds('LAIZI_BOMB')"),
    (get_rules("classic").without_kinds("BOMB").with_options(deal_cap=3),
     "Rules('classic').without_kinds('BOMB').with_options(deal_cap=3)"),
    (Rules("classic", **dict(get_rules("classic").description_dict(),
                             multipliers={"BOMB": 4, "ROCKET": 2})),
     "Rules('classic').with_options(multipliers={'BOMB': 4, 'ROCKET': 2})"),
    (_SKY_ONLY, "Rules('tiandi').with_options(wild_ranks=('7',))"),
    (Rules("mine", **get_rules("super").description_dict()), "Rules('mine', wildcard=True, "),
    (Rules("tiandi", **_NO_SIZE_TIERS), "Rules('tiandi', wildcard=False, "),
])
def test_rules_repr_says_what_sets_the_rule_set_apart(rules, text):
    """Regression (a user's review): a rule set with options, or without
    kinds, read as the built-in one (Rules('classic') for both of two
    unequal rule sets, in messages that print them). Its repr then read
    Rules('classic', without_kinds=('BOMB',)), which raises when run, and a
    name of one's own read Rules('mine'), which is no built-in name: a repr
    is code that makes an equal rule set of the same name (the whole
    description where calls on a built-in set cannot make it)."""
    assert repr(rules) == text if text.endswith(")") else repr(rules).startswith(text)
    made = eval(repr(rules), {"Rules": Rules})
    assert made == rules and made.name == rules.name
    assert made.wild_ranks == rules.wild_ranks


def test_numpy_values_in_a_description_are_stored_as_python_values():
    """Regression: a description kept NumPy scalars and arrays as given, so
    repr read np.float64(0.05) (code that needs NumPy), an array of kinds
    stayed mutable inside the immutable rule set, and repr raised on it
    (an array's truth value)."""
    kinds = get_rules("classic").description_dict()["kinds"]
    rules = get_rules("classic").with_options(
        service_fee=np.float64(0.05), deal_cap=np.int64(96), doubling=np.bool_(True),
        kinds=np.array(kinds[:-1]), multipliers={np.str_("BOMB"): np.int64(4)})
    assert rules.description["kinds"] == tuple(kinds[:-1])
    assert type(rules.description["deal_cap"]) is int
    assert list(rules.description["multipliers"]) == ["BOMB"]
    assert "np." not in repr(rules) and "array" not in repr(rules)
    assert eval(repr(rules), {"Rules": Rules}) == rules


@pytest.mark.parametrize("name", ["classic", "laizi", "laizi:7", "laizi:T+happy",
                                  "tiandi", "tiandi:7J", "tiandi:J7+happy", "super+happy"])
def test_the_repr_of_a_named_rule_set_makes_it(name):
    """A user's review: repr(get_rules("tiandi:7J")) read Rules('tiandi',
    wild_ranks=('7', 'J')), which looks like code and raises (a description
    of two fields): a built-in rule set with its ranks reads as its name,
    which makes it."""
    rules = get_rules(name)
    assert eval(repr(rules), {"Rules": Rules}) == rules


def test_an_illegal_move_is_named_with_what_makes_the_rule_set():
    """Regression (a user's review): the messages named 'laizi' for a move
    that is legal in laizi but not with this wild rank, and 'tiandi' for a
    copy without LAIZI_BOMB; they name the wild ranks and the missing kinds."""
    soft = Move.parse("SOFT_BOMB/4/1/4477", "laizi:7")
    with pytest.raises(IllegalMoveError, match="not a legal move in 'laizi:8'$"):
        legal_moves("AAAA", soft, "laizi:8")
    with pytest.raises(IllegalMoveError, match="not a legal move in 'laizi:8\\+happy'$"):
        legal_moves("AAAA", soft, "laizi:8+happy")
    lasts = soft.array
    with pytest.raises(IllegalMoveError, match=r"lasts\[0\] .* in 'laizi:8'$"):
        legal_moves_batch(np.array([int(Hand("AAAA"))], np.uint64), lasts, "laizi:8")
    banned = get_rules("tiandi:7J").without_kinds("LAIZI_BOMB", "FOUR_PAIRS")
    with pytest.raises(IllegalMoveError,
                       match="in 'tiandi:7J' without FOUR_PAIRS, LAIZI_BOMB$"):
        Move.parse("LAIZI_BOMB/J/1/777JJ", banned)
    with pytest.raises(IllegalMoveError, match="in 'classic\\+happy' without BOMB$"):
        beats(Move.parse("BOMB/4/1/4444"), Move.parse("PAIR/2/1/22"),
              get_rules("classic+happy").without_kinds("BOMB"))


def test_rules_arguments():
    assert legal_moves("33", None, Rules("classic")).array.tolist() == \
        legal_moves("33").array.tolist()
    assert ddzfast.get_rules("super").wildcard and not ddzfast.get_rules("classic").wildcard
    assert MoveKind.SUPER_BOMB in ddzfast.get_rules("super").kinds
    assert MoveKind.TRIPLE_PAIR not in ddzfast.get_rules("super").kinds
    with pytest.raises(ValueError, match="unknown rule set 'poker'") as err:
        legal_moves("33", None, "poker")
    # every form a name takes, each of them a name that works
    for form in ("classic", "tiandi", "laizi:7", "tiandi:7J", "classic+happy"):
        assert form in str(err.value)
        assert isinstance(ddzfast.get_rules(form), Rules)
    with pytest.raises(TypeError):
        legal_moves("33", None, 3)
    with pytest.raises(ValueError, match="unknown rule-set fields"):
        Rules("mine", wildcard=False, kinds=("SINGLE",), colour="red")
    assert pickle.loads(pickle.dumps(Rules("biegang"))).name == "biegang"


def test_a_new_rule_set_is_data():
    # classic without any kicker kinds: the generator needs no new code path
    desc = dict(ddzfast.RULE_SETS["classic"])
    desc["kinds"] = ("SINGLE", "PAIR", "TRIPLE", "STRAIGHT", "BOMB", "ROCKET")
    plain = Rules("plain", **desc)
    kinds = {m.kind for m in legal_moves("333444XD", None, plain)}
    assert kinds == {MoveKind.SINGLE, MoveKind.PAIR, MoveKind.TRIPLE, MoveKind.ROCKET}


# ---- the buffer form -------------------------------------------------------------

def test_legal_moves_into_fills_the_buffer():
    out = np.empty(64, MOVE_DTYPE)
    n = legal_moves_into(int(Hand("3333XD")), None, "classic", out)
    assert n == 10
    assert out[:n].tolist() == legal_moves("3333XD").array.tolist()
    assert legal_moves_into(Hand("3333XD"), None, "classic", out) == 10
    assert legal_moves_into("3333XD", None, "classic", out) == 10


def test_legal_moves_into_rejects_bad_buffers():
    hand = int(Hand("3333XD"))
    with pytest.raises(ValueError, match="holds 9 moves but this position has 10"):
        legal_moves_into(hand, None, "classic", np.empty(9, MOVE_DTYPE))
    with pytest.raises(TypeError, match="dtype MOVE_DTYPE"):
        legal_moves_into(hand, None, "classic", np.empty(64, np.uint64))
    with pytest.raises(ValueError, match="C-contiguous 1-d"):
        legal_moves_into(hand, None, "classic", np.empty(64, MOVE_DTYPE)[::2])
    with pytest.raises(ValueError, match="C-contiguous 1-d"):
        legal_moves_into(hand, None, "classic", np.empty((8, 8), MOVE_DTYPE))
    ro = np.empty(64, MOVE_DTYPE)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="writable"):
        legal_moves_into(hand, None, "classic", ro)
    # a view at an odd byte offset was written as if aligned (the action
    # functions and the Numba layer refused it; found by an audit)
    odd = np.zeros(64 * MOVE_DTYPE.itemsize + 1, np.uint8)[1:].view(MOVE_DTYPE)
    assert not odd.flags.aligned
    for call in (lambda: legal_moves_into(hand, None, "classic", odd),
                 lambda: ddzfast.legal_moves_batch(np.array([hand], np.uint64), out=odd)):
        with pytest.raises(ValueError, match="aligned"):
            call()
    assert not odd.view(np.uint8).any()
    with pytest.raises(TypeError):
        legal_moves_into(hand, None, "classic", None)
    with pytest.raises(TypeError):
        legal_moves_into(hand, None, "classic", [0] * 64)
    with pytest.raises(ValueError, match="5 of '3'"):
        legal_moves_into(5, None, "classic", np.empty(8, MOVE_DTYPE))
    with pytest.raises(ValueError, match="not a packed hand"):
        legal_moves_into(-1, None, "classic", np.empty(8, MOVE_DTYPE))
    # an equal dtype that is not the MOVE_DTYPE object itself is accepted
    same = np.dtype([("cards", "<u8"), ("kind", "u1"), ("rank", "u1"),
                     ("length", "u1"), ("wild", "u1"), ("substitutes", "<u4")],
                    align=True)
    assert same is not MOVE_DTYPE
    assert legal_moves_into(hand, None, "classic", np.empty(16, same)) == 10


# ---- classify, beats, play -----------------------------------------------------------

def test_classify_play_and_beats():
    readings = classify("333W", "biegang")
    assert sorted(str(m) for m in readings) == ["BOMB 333W (W as 3)",
                                               "TRIPLE_SINGLE 333W (W as kicker)"]
    assert len(classify("3456", "classic")) == 0
    assert [str(m) for m in classify("", "classic")] == ["PASS"]
    bomb = Move.parse("BOMB/4/1/4444")
    assert beats(bomb, Move.parse("PAIR/2/1/22"))
    assert not beats(Move.parse("PASS"), bomb)
    assert beats(Move.parse("ROCKET/X/1/XD"), bomb)
    assert not beats(Move.parse("ROCKET/X/1/XD"), Move.parse("WILD_ROCKET/X/1/XW"), "biegang")
    with pytest.raises(ValueError, match="not a legal move in 'classic'"):
        beats(Move.parse("WILD_ROCKET/X/1/XW"), bomb)
    assert play("3333XD", bomb.cards and Move.parse("ROCKET/X/1/XD")) == Hand("3333")
    assert play(Hand("34"), legal_moves("34").array[0]) == Hand("4")
    with pytest.raises(ValueError, match="not all of its cards are in the hand"):
        play("3333", Move.parse("ROCKET/X/1/XD"))
    with pytest.raises(ValueError, match="not all of its cards"):
        play("33", "333")


def test_move_array_is_the_row_the_core_writes():
    # Code that turned a Move into a row by hand broke when MOVE_DTYPE gained
    # `substitutes`; Move.array is the one conversion.
    import ddzfast
    for hand, rules in (("33445", "classic"), ("333W", "biegang"), ("3777", "laizi:7")):
        moves = ddzfast.legal_moves(hand, None, rules)
        for i, m in enumerate(moves):
            row = m.array
            assert row.dtype == ddzfast.MOVE_DTYPE and row.shape == (1,)
            assert not row.flags.writeable
            assert row.tobytes() == moves.array[i:i + 1].tobytes()
    m = ddzfast.Move.parse("TRIPLE_SINGLE/4/1/3777", "laizi:7")
    assert int(m.array["substitutes"][0]) != 0
    assert ddzfast.action_index(ddzfast.Move.parse("PAIR/3/1/33"), "classic").tolist() == [
        int(ddzfast.action_index(ddzfast.legal_moves("33").array[1:2], "classic")[0])]


def test_containment_is_card_by_card_on_every_count():
    # ddz_contains compares every card index at once (SWAR lanes): against
    # the per-card comparison on random sub-hands of the 55-card deck, the
    # whole deck and the empty hand included
    import random
    rng = random.Random(11)
    deck = list("3456789TJQKA2" * 4 + "XDW")
    for _ in range(3000):
        rng.shuffle(deck)
        a = Hand("".join(deck[:rng.randint(0, 55)]))
        rng.shuffle(deck)
        b = Hand("".join(deck[:rng.randint(0, 55)]))
        expected = all(x <= y for x, y in zip(b.counts, a.counts))
        assert (b in a) == expected, (str(a), str(b))
        assert (a in a) and (Hand(0) in a)


# ---- every byte of a move row: regressions of the hardening review ------------

DECK = "3456789TJQKA2" * 4 + "XD"


def _row_bytes(arr: np.ndarray) -> np.ndarray:
    return arr.view(np.uint8).reshape(-1, MOVE_DTYPE.itemsize)


def test_move_layout_has_no_unnamed_bytes():
    # 8 bytes of cards, 4 byte fields, then the 4 reserved (always zero) bytes
    """A move row had bytes that no field covered, left as stack garbage: cards, four
    byte fields, then bytes 12..15 at fixed offsets."""
    assert MOVE_DTYPE.itemsize == 16
    assert [MOVE_DTYPE.fields[f][1] for f in ("cards", "kind", "rank", "length", "wild")] \
        == [0, 8, 9, 10, 11]


# bytes 12..15 are the substitutes of laizi moves, zero in the classic family
@pytest.mark.parametrize("rules", CLASSIC_FAMILY)
def test_classify_rows_are_deterministic_and_zero_padded(rules):
    """classify rows carried stale stack bytes in 12..15 and differed between calls on
    the same cards."""
    rng = random.Random(5)
    deck = DECK + ("W" if rules != "classic" else "")
    samples = ["333W", "3W", "XDW", "3333W", "33344458", "34567W", "XD", "",
               "33334444", "333444555666"]
    samples += ["".join(rng.sample(deck, rng.randint(1, 8))) for _ in range(60)]
    for text in samples:
        try:
            cards = Hand.parse(text, rules)
        except ValueError:
            continue
        first = ddzfast.classify(cards, rules).array.tobytes()
        dirty_the_stack()
        again = ddzfast.classify(cards, rules).array.tobytes()
        assert first == again, text
        rows = _row_bytes(ddzfast.classify(cards, rules).array)
        assert not rows[:, 12:].any(), f"padding bytes of classify({text!r})"


@pytest.mark.parametrize("rules", CLASSIC_FAMILY)
def test_legal_move_rows_are_zero_padded(rules):
    """legal_moves rows, leading and following, carried stale stack bytes in 12..15."""
    rng = random.Random(11)
    deck = DECK + ("W" if rules != "classic" else "")
    for _ in range(20):
        hand = Hand.parse("".join(rng.sample(deck, 17)), rules)
        moves = ddzfast.legal_moves(hand, None, rules)
        assert not _row_bytes(moves.array)[:, 12:].any()
        assert moves.array.tobytes() == ddzfast.legal_moves(hand, None, rules).array.tobytes()
        last = moves[rng.randrange(len(moves))]
        follow = ddzfast.legal_moves(hand, last, rules)
        assert not _row_bytes(follow.array)[:, 12:].any()


# ---- rule-set descriptions, immutable values: regressions of the hardening review ---

def classic_with(**changes):
    return get_rules("classic").with_options(**changes)


@pytest.mark.parametrize("changes, error", [
    (dict(wild_max_rank=32), ValueError),
    (dict(wild_max_rank=13), ValueError),
    (dict(wild_max_rank=2.0), TypeError),
    (dict(tiers={"BOMB": 2.9, "ROCKET": 3}), TypeError),
    (dict(tiers=[1]), TypeError),
    (dict(tiers=None), TypeError),
    (dict(tiers={"BOMB": True}), TypeError),
    (dict(multipliers=5), TypeError),
    (dict(multipliers={"BOMB": 2.9}), TypeError),
    (dict(multipliers={"BOMB": 0}), ValueError),
    (dict(multipliers={"NOPE": 2}), ValueError),
    (dict(deal_cap=math.nan), ValueError),
    (dict(deal_cap=math.inf), ValueError),
    (dict(deal_cap=-1), ValueError),
    (dict(deal_cap="10"), TypeError),
    (dict(mult_cap=math.inf), TypeError),
    (dict(mult_cap=0), ValueError),
    (dict(service_fee=math.nan), ValueError),
    (dict(service_fee=1.0), ValueError),
    (dict(kinds=()), ValueError),
    (dict(kinds="SINGLE"), TypeError),
    (dict(kinds=("PAIR", "BOMB")), ValueError),      # no SINGLE: a hand could not lead
    (dict(kinds=("SINGLE", "PASS")), ValueError),
    (dict(ranked=("PAIR",)), ValueError),            # ranked only means something for bombs
    (dict(wildcard=1), TypeError),
    (dict(kitty=3.0), TypeError),
    (dict(wild_joker_kind=7), TypeError),
])
def test_every_rules_field_is_checked(changes, error):
    """Rule-set fields of the wrong type or range (floats for ints, NaN, infinities, no
    SINGLE, a ranked PAIR) were accepted: each is refused."""
    with pytest.raises(error):
        classic_with(**changes)


def test_a_failed_description_changes_nothing():
    """A refused with_options left the rule set it started from changed."""
    rules = get_rules("classic")
    before = bytes(np.frombuffer(pickle.dumps(rules), dtype=np.uint8))
    with pytest.raises(ValueError):
        classic_with(multipliers={"BOMB": 1000})
    assert bytes(np.frombuffer(pickle.dumps(rules), dtype=np.uint8)) == before


def test_built_in_rules_cannot_be_rewritten():
    """Calling __init__ again on a built-in Rules rewrote it for every later caller:
    Rules are immutable."""
    classic = get_rules("classic")
    with pytest.raises(TypeError, match="immutable"):
        classic.__init__("classic", wildcard=True, kinds=("SINGLE",), kitty=4)
    assert not classic.wildcard
    assert [str(m) for m in legal_moves("3344", None, "classic")] == [
        "SINGLE 3", "SINGLE 4", "PAIR 33", "PAIR 44"]


def test_descriptions_are_read_only_all_through():
    """Rules.description was read-only at the top only: its tiers dict was
    RULE_SETS' own, so one assignment broke every later Rules('classic')."""
    import types
    classic = get_rules("classic")
    with pytest.raises(TypeError):
        classic.description["tiers"]["ROCKET"] = 0
    with pytest.raises(AttributeError):
        classic.description["kinds"].append("BOMB")
    assert Rules("classic").tier("ROCKET") == 2
    plain = classic.description_dict()
    assert type(plain) is dict and type(plain["tiers"]) is dict
    plain["tiers"]["ROCKET"] = 9       # a copy: nothing else changes
    assert isinstance(classic.description["tiers"], types.MappingProxyType)
    assert ddzfast.RULE_SETS["classic"]["tiers"]["ROCKET"] == 2
    assert Rules("mine", **plain).tier("ROCKET") == 9
    for name in ("classic", "tiandi:7J", "laizi:7+happy"):
        r = get_rules(name)
        assert pickle.loads(pickle.dumps(r)).description == r.description
        assert get_rules(name).with_options().description == r.description


@pytest.mark.parametrize("name, plain, options", [
    ("laizi:7", "laizi", dict(wild_rank="7")),
    ("tiandi:7J", "tiandi", dict(wild_ranks=("7", "J"))),
    ("laizi:7+happy", "laizi+happy", dict(wild_rank="7")),
    ("tiandi:7J+happy", "tiandi+happy", dict(wild_ranks=("7", "J"))),
    ("classic+happy", "classic+happy", {}),
])
def test_name_is_without_wild_ranks_and_ranked_name_with_them(name, plain, options):
    """Regression: a preset's name kept the wild ranks of the name it was
    made from ('laizi:7+happy', read as Rules('laizi:7+happy',
    wild_rank='7')), where a ranked name's did not ('laizi'), and the same
    rule set made by with_options was named 'laizi+happy'."""
    r = get_rules(name)
    made = get_rules(plain).with_options(**options)
    assert r.name == made.name == plain
    assert r.ranked_name == made.ranked_name == name
    assert get_rules(r.ranked_name) is r and repr(r) == repr(made)
    assert pickle.loads(pickle.dumps(r)).ranked_name == name


def test_wild_rank_errors_name_a_name_that_works():
    """The suggestion for a platform preset put the rank after the preset
    ('laizi+happy:7'), a name get_rules refuses."""
    for name, fix in (("laizi+happy", "laizi:7+happy"), ("tiandi+happy", "tiandi:7J+happy"),
                      ("laizi", "laizi:7"), ("tiandi", "tiandi:7J")):
        with pytest.raises(ValueError, match=re.escape(repr(fix))):
            legal_moves("33", None, name)
        assert get_rules(fix).ready


def test_membership_takes_what_the_containers_take():
    """A MoveList row (MOVE_DTYPE) is in its list, as a Move is; a numpy
    integer hand is in a Hand, as Hand() takes it. Before, the row was
    'not in' and the integer a TypeError."""
    moves = legal_moves("3344")
    assert moves.array[1] in moves and moves[1] in moves
    assert legal_moves("55").array[0] not in moves and "33" not in moves
    assert np.int64(1) in Hand("3") and np.uint64(2) in Hand("33")
    assert np.int64(2) not in Hand("3")
    with pytest.raises(TypeError):
        1.5 in Hand("3")


@pytest.mark.parametrize("call", [
    lambda: Hand("3").count(None), lambda: Hand("3")[1.5], lambda: Hand("3")[0:1],
    lambda: Hand("3").count(True), lambda: Move(None, 0, 1, "3"),
    lambda: Move(1.0, 0, 1, "3"), lambda: get_rules().tier(None)])
def test_wrong_types_are_type_errors(call):
    """A card or move kind of the wrong type raised ValueError."""
    with pytest.raises(TypeError):
        call()


def test_hands_and_moves_are_immutable():
    """Calling __init__ again on a Hand or a Move changed it in place (and its hash):
    they are immutable."""
    hand = Hand("33")
    key = hash(hand)
    with pytest.raises(TypeError, match="immutable"):
        hand.__init__("44")
    assert str(hand) == "33" and hash(hand) == key
    made = legal_moves("33")[0]
    with pytest.raises(TypeError, match="immutable"):
        made.cards.__init__("55")
    move = Move.parse("PAIR/3/1/33")
    with pytest.raises(TypeError, match="immutable"):
        move.__init__("SINGLE", 4, 1, "7")
    assert move.text == "PAIR/3/1/33"
    with pytest.raises(TypeError, match="immutable"):
        made.__init__("SINGLE", 4, 1, "7")


def test_a_hashed_bare_hand_or_move_is_not_made_again():
    """Hand.__new__(Hand) or Move.__new__(Move), hashed (put in a set), then
    given its cards by a late __init__ changed a hashed key: the first hash
    makes it the empty hand (classic's PASS), and __init__ then refuses."""
    hand = Hand.__new__(Hand)
    kept = {hand}
    with pytest.raises(TypeError, match="immutable"):
        hand.__init__("33")
    assert hand in kept and str(hand) == "" and hand == Hand()
    move = Move.__new__(Move)
    kept = {move}
    with pytest.raises(TypeError, match="immutable"):
        move.__init__("SINGLE", 4, 1, "7")
    assert move in kept and move == Move.parse("PASS")
    fresh = Hand.__new__(Hand)
    fresh.__init__("44")            # never hashed: made once, as Hand("44")
    assert fresh == Hand("44")


def test_kind_codes_are_checked_against_the_core():
    # the check runs at import; MoveKind and the core agree on every code
    """MoveKind's codes could drift from the core's: they are checked at import, and
    agree on every code."""
    assert [int(k) for k in MoveKind] == list(range(len(MoveKind)))
    assert Rules("classic").tier("BOMB") == 1


def test_rule_sets_that_compile_alike_share_an_id_and_pickle_to_themselves():
    """Equal rule sets got different ids, and a pickled built-in came back as a copy:
    they share an id, and a built-in unpickles to itself."""
    a = get_rules("super").with_options(deal_cap=10)
    assert a.rules_id == get_rules("super").with_options(deal_cap=10.0).rules_id
    assert a.rules_id != get_rules("super").with_options(deal_cap=11).rules_id
    assert Rules("classic").rules_id == get_rules("classic").rules_id
    assert pickle.loads(pickle.dumps(get_rules("classic"))) is get_rules("classic")
    restored = pickle.loads(pickle.dumps(a))
    assert restored.rules_id == a.rules_id and restored.description == a.description


def test_a_rule_set_named_as_a_built_in_pickles_as_it_only_when_equal():
    """Pickling a rule set froze the built-in description again on every
    call (most of a Game's pickle); it is compared with the built-in rule
    set's own now: one equal to it, made apart, unpickles to the built-in
    object, and one of the same name with another description keeps it."""
    plain = get_rules("classic").description_dict()
    assert pickle.loads(pickle.dumps(Rules("classic", **plain))) is get_rules("classic")
    plain["tiers"]["ROCKET"] = 9
    other = Rules("classic", **plain)
    restored = pickle.loads(pickle.dumps(other))
    assert restored is not get_rules("classic")
    assert restored.tier("ROCKET") == 9 and restored.description == other.description


def test_a_factor_of_one_is_the_rule_set_without_it():
    """multipliers={..., "PAIR": 1} compiled apart from leaving PAIR out, and
    the two rule sets, which score every deal alike, compared unequal."""
    classic = get_rules("classic")
    ones = classic.with_options(multipliers={"BOMB": 2, "ROCKET": 2, "PAIR": 1})
    assert ones == classic and hash(ones) == hash(classic)
    assert ones.description["multipliers"]["PAIR"] == 1     # as it was given
    assert classic.with_options(multipliers={"BOMB": 2, "ROCKET": 2, "PAIR": 2}) != classic


def test_a_move_of_a_rule_set_of_ones_own_is_made_again_with_it():
    """A move legal in no built-in rule set (super's ROCKET of XDW once
    xdw_kind is ROCKET) could not be pickled, deep-copied or remade from its
    repr: they made it again without its rule set."""
    rules = get_rules("super").with_options(xdw_kind="ROCKET")
    own = next(m for m in legal_moves("XDW", None, rules) if len(m.cards) == 3)
    with pytest.raises(IllegalMoveError):
        Move.parse(own.text)
    assert pickle.loads(pickle.dumps(own)) == own
    assert copy.deepcopy(own) == own and copy.copy(own) == own
    remade = eval(repr(own), {"Move": Move, "Rules": Rules})
    assert remade == own and remade.wild == own.wild
    # a move a built-in rule set has keeps the short forms
    built_in = next(m for m in legal_moves("XDW", None, rules) if len(m.cards) == 2)
    assert repr(built_in) == f"Move.parse({built_in.text!r})"
    assert len(pickle.dumps(built_in)) < len(pickle.dumps(own))


def test_a_move_keeps_its_reading_through_copies():
    """A move of a rule set of one's own that a built-in one also has but
    reads otherwise (super's X+W as itself once wild_joker_stands is off:
    super reads W as D) came back from a pickle, a copy or its repr with
    the built-in reading, and its row was refused where the original's is
    taken."""
    rules = get_rules("super").with_options(wild_joker_stands=False)
    own = next(m for m in legal_moves("XW", None, rules) if m.kind == MoveKind.ROCKET)
    assert own.wild == 15 and Move.parse(own.text).wild == 14
    for again in (pickle.loads(pickle.dumps(own)), copy.copy(own), copy.deepcopy(own),
                  eval(repr(own), {"Move": Move, "Rules": Rules})):
        assert again == own and again.wild == own.wild and str(again) == str(own)
        ddzfast.encode_moves(again.array, rules)


def test_a_laizi_moves_repr_names_a_rule_set_get_rules_makes():
    """A description of one's own named after a built-in rule set that
    compiles as laizi:7 made every laizi:7 move's repr name 'classic:7',
    which get_rules refuses."""
    laizi = get_rules("laizi").description_dict()
    Rules("classic", **{**laizi, "wild_rank": "7"})
    move = Move.parse("PAIR/3/1/37", "laizi:7")
    assert repr(move) == "Move.parse('PAIR/3/1/37', 'laizi:7')"
    assert eval(repr(move), {"Move": Move}) == move


# ---- only ValueError and TypeError (IndexError for an index); rows checked ----

def test_huge_ints_raise_the_right_errors():
    """Huge ints (indices, thread counts, seats, bids, bases, seeds) raised
    OverflowError or worse: only IndexError, ValueError or TypeError."""
    moves = legal_moves("33")
    with pytest.raises(IndexError):
        moves[2 ** 70]
    with pytest.raises(IndexError):
        moves[-2 ** 70]
    with pytest.raises(TypeError):
        moves["0"]
    with pytest.raises(ValueError):
        legal_moves_batch([int(Hand("3"))], threads=2 ** 40)
    with pytest.raises(TypeError):
        legal_moves_batch([int(Hand("3"))], threads=1.5)
    with pytest.raises(ValueError):
        Game(first_bidder=2 ** 40)
    with pytest.raises(TypeError):
        Game(first_bidder=1.0)
    game = Game(seed=3)
    with pytest.raises(ValueError):
        game.bid(2 ** 40)
    with pytest.raises(ValueError):
        game.observation(2 ** 70)
    with pytest.raises(ValueError):
        game.bid(1, seat=2 ** 70)
    with pytest.raises(ValueError):
        Game.from_position(["3", "4", "5"], landlord=2 ** 40)
    with pytest.raises(ValueError):
        Game.from_position(["3", "4", "5"], base=2 ** 40)
    with pytest.raises(ValueError):
        deal_seed(-1, 0)
    with pytest.raises(ValueError):
        deal_seed(0, -1)
    with pytest.raises(ValueError):
        deal_seed(2 ** 64, 0)


def test_classify_bytes_do_not_change_between_calls():
    """classify's rows changed between calls on the same cards (stale stack bytes),
    other calls in between."""
    first = classify("3333", "biegang").array.tobytes()
    for _ in range(50):
        # other calls in between leave other stack contents behind
        legal_moves("3456789TJQKA2XDW", None, "biegang")
        assert classify("3333", "biegang").array.tobytes() == first
    raw = np.frombuffer(first, dtype=np.uint8).reshape(-1, 16)
    assert not raw[:, 12:].any()


def garbage_row(kind=200, rank=0, length=1, cards="3"):
    row = np.zeros(1, MOVE_DTYPE)
    row["cards"], row["kind"], row["rank"], row["length"] = int(Hand(cards)), kind, rank, length
    return row[0]


def test_play_checks_the_rows_kind_rank_and_length():
    """play took any row holding the cards, whatever its kind, rank and length: the row
    must be a legal move."""
    with pytest.raises(IllegalMoveError):
        play("345", garbage_row(kind=200))
    with pytest.raises(IllegalMoveError):
        play("345", garbage_row(kind=int(MoveKind.PAIR)))
    with pytest.raises(IllegalMoveError):
        play("345", garbage_row(kind=int(MoveKind.SINGLE), rank=5), rules="classic")
    assert play("345", garbage_row(kind=int(MoveKind.SINGLE), rank=0)) == Hand("45")
    with pytest.raises(InvalidCardsError):
        play("45", legal_moves("33")[0])


def test_game_play_checks_rows_too():
    """Game.play took a garbage row (kind 200) as a move: it is refused and the game
    unchanged."""
    game = Game.from_position(["3456", "789", "TJQ"])
    with pytest.raises(IllegalMoveError):
        game.play(garbage_row(kind=200))
    assert game.history == []


# ---- shared state -------------------------------------------------------------

def test_concurrent_queries_from_threads_agree_with_sequential_ones():
    """Shared state in the core made concurrent queries from threads disagree with
    sequential ones."""
    rng = np.random.default_rng(4)
    deck = list("3456789TJQKA2" * 4 + "XDW")
    hands = ["".join(rng.choice(deck, 17, replace=False)) for _ in range(40)]
    expect = {(h, r): legal_moves(h, None, r).array.tobytes()
              for h in hands for r in RULE_SETS if get_rules(r).wildcard or "W" not in h}
    errors = []

    def work(seed):
        local = np.random.default_rng(seed)
        keys = list(expect)
        for _ in range(2000):
            h, r = keys[local.integers(len(keys))]
            if legal_moves(h, None, r).array.tobytes() != expect[(h, r)]:
                errors.append((h, r))

    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


# ---- the laizi rule set as data (RULES.md section 8) --------------------------

def test_the_wild_rank_is_a_value_of_the_rule_set():
    base = get_rules("laizi")
    assert base.laizi and base.wild_rank is None and not base.wildcard
    seven = base.with_options(wild_rank="7")
    assert seven.wild_rank == 4 and seven.laizi
    assert get_rules(L7).wild_rank == 4
    assert get_rules("laizi:T").wild_rank == get_rules("laizi:10").wild_rank == 7
    assert base.with_options(wild_rank=12).wild_rank == 12
    # equal rule sets: the same core behaviour
    assert get_rules(L7).rules_id == seven.rules_id
    assert repr(seven) == "Rules('laizi:7')"
    assert pickle.loads(pickle.dumps(seven)).wild_rank == 4
    assert get_rules("classic").wild_rank is None and not get_rules("classic").laizi


@pytest.mark.parametrize("call", [
    lambda r: legal_moves("3777", None, r),
    lambda r: classify("3777", r),
    lambda r: ddzfast.beats(Move("PAIR", 0, 1, "33", rules=L7),
                            Move("SINGLE", 0, 1, "3", rules=L7), r),
    lambda r: ddzfast.legal_moves_into(int(Hand("3777")), None, r,
                                       np.empty(64, ddzfast.MOVE_DTYPE)),
    lambda r: ddzfast.legal_moves_batch([int(Hand("3777"))], None, r),
    lambda r: Move("PAIR", 0, 1, "37", rules=r),
    lambda r: Game.from_position(["3", "4", "5"], r),
])
def test_no_wild_rank_is_a_value_error(call):
    with pytest.raises(ValueError, match="wild rank"):
        call("laizi")


@pytest.mark.parametrize("value, error", [
    ("X", ValueError), ("W", ValueError), (13, ValueError), (-1, ValueError),
    ("77", ValueError), (1.0, TypeError), (True, TypeError)])
def test_bad_wild_ranks(value, error):
    with pytest.raises(error):
        get_rules("laizi").with_options(wild_rank=value)


def test_wild_rank_and_laizi_kinds_only_in_laizi_rule_sets():
    with pytest.raises(ValueError, match="laizi"):
        get_rules("classic").with_options(wild_rank="7")
    with pytest.raises(ValueError, match="laizi"):
        get_rules("classic").with_options(
            kinds=tuple(k.name for k in get_rules("classic").kinds if k) + ("SOFT_BOMB",))
    with pytest.raises(ValueError, match="no W"):
        get_rules("laizi").with_options(wildcard=True, kitty=4)
    with pytest.raises(ValueError, match="not a laizi rule set"):
        get_rules("classic:7")
    with pytest.raises(ValueError):
        get_rules("laizi:X")


def test_kinds_are_appended_and_tiers_are_data():
    assert MoveKind.SOFT_BOMB == 19 and MoveKind.LAIZI_BOMB == 20
    assert MoveKind.SUPER_BOMB == 18      # existing numbers unchanged
    r = get_rules(L7)
    tiers = [r.tier(k) for k in ("SOFT_BOMB", "BOMB", "LAIZI_BOMB", "ROCKET")]
    assert tiers == sorted(tiers) and len(set(tiers)) == 4 and r.tier("PAIR") == 0
    assert ddzfast.MOVE_DTYPE.itemsize == 16


# ---- package metadata ----------------------------------------------------------

def test_installed_metadata_names_every_rule_set_and_an_spdx_license():
    # the summary pip and PyPI show was written when there were three rule sets
    import importlib.metadata
    meta = importlib.metadata.metadata("ddzfast")
    missing = [name for name in ddzfast.RULE_SETS if name not in meta["Summary"]]
    assert not missing, f"the package summary does not name {missing}: {meta['Summary']!r}"
    assert meta["License-Expression"] == "MIT"


# ---- the input audit of 2026-12-04 ------------------------------------------------

@pytest.mark.parametrize("parse", [Hand.parse, Move.parse])
def test_parse_of_none_is_a_type_error_every_time(parse):
    """Move.parse(None) called str.strip on None: a TypeError the first time,
    then a ValueError read from memory that was not a string."""
    for _ in range(3):
        with pytest.raises(TypeError, match="str"):
            parse(None)


def test_card_text_of_every_count_a_nibble_holds():
    """The card text is written into a buffer of 16 * 15 characters: the
    largest packed value, 15 of each card index, is told whole in the
    message that refuses it, and every count of every card reads back."""
    from ddzfast.constants import CARD_CHARS
    with pytest.raises(InvalidCardsError) as refused:
        Hand(2 ** 64 - 1)
    assert "".join(c * 15 for c in CARD_CHARS) in str(refused.value)
    for i, c in enumerate(CARD_CHARS):
        for k in range(1, 5 if i < 13 else 2):
            assert str(Hand(k << (4 * i))) == c * k


def test_card_text_may_be_a_str_subclass():
    """numpy's str_ (a subclass of str) was refused as card text."""
    assert Hand(np.str_("33")) == Hand("33")
    assert Hand.parse(np.str_("3344")) == Hand("3344")
    assert Move.parse(np.str_("PAIR/3/1/33")) == Move.parse("PAIR/3/1/33")


@pytest.mark.parametrize("name, words", [
    ("laizi:", "'laizi:': 'laizi' takes one wild rank"),
    ("laizi:1", "'laizi:1': "),
    ("laizi: 7", "'laizi: 7': 'laizi' takes one wild rank"),
    ("laizi:7:8", "'laizi:7:8': 'laizi' takes one wild rank"),
    ("laizi:X", "'laizi:X': wild_rank must be a rank"),
    ("tiandi:77", "'tiandi:77': the sky and ground ranks must differ"),
    # (each such name was accepted, and kept for the process's life)
    ("classic+happy+happy", "'classic+happy+happy': one platform preset a name"),
])
def test_a_bad_wild_rank_in_a_name_names_the_rule_set(name, words):
    """'laizi:' said only "unknown card ''", naming neither the rule set nor
    its wild rank."""
    with pytest.raises(ValueError) as e:
        ddzfast.get_rules(name)
    assert words in str(e.value)


@pytest.mark.parametrize("field", ["service_fee", "deal_cap"])
def test_a_real_field_past_the_floats_is_a_value_error(field):
    """An int past the floats raised OverflowError from float()."""
    with pytest.raises(ValueError, match=f"{field} is out of range"):
        ddzfast.get_rules("classic").with_options(**{field: 10 ** 400})


def test_a_rules_never_made_is_refused():
    """Rules.__new__(Rules) alone was taken for a rule set: no moves, or
    classic's tables (its id is classic's), or a RuntimeError calling itself
    a bug."""
    r0 = Rules.__new__(Rules)
    with pytest.raises(ValueError, match="never made"):
        legal_moves("3344", None, r0)
    with pytest.raises(ValueError, match="never made"):
        ddzfast.legal_action_indices("33", None, r0)
    with pytest.raises(ValueError, match="never made"):
        Game(r0, seed=1)
    # (it equalled classic, whose id it had, and its repr raised; two were
    # equal; what reads the description raised AttributeError)
    assert r0 != ddzfast.get_rules("classic") and "never made" in repr(r0)
    assert r0.rules_id == -1 and r0 != Rules.__new__(Rules) and r0 == r0
    for read in (lambda: r0.platform, lambda: r0.ranked_name, r0.description_dict,
                 lambda: r0.without_kinds("BOMB"), lambda: r0.with_options(cap=None),
                 lambda: pickle.dumps(r0)):
        with pytest.raises(ValueError, match="never made"):
            read()


def test_a_move_list_or_move_never_made():
    """Regression (a user's review): MoveList.__new__(MoveList).rules was
    None (to_douzero of it raised AttributeError), and a bare Move, a PASS,
    read 'W as 3'."""
    from ddzfast.compat.douzero import to_douzero
    bare = ddzfast.MoveList.__new__(ddzfast.MoveList)
    with pytest.raises(ValueError, match="never made"):
        bare.rules
    with pytest.raises(ValueError, match="never made"):
        to_douzero(bare)
    assert Move.__new__(Move).wild_text == ""


@pytest.mark.parametrize("rules", RULE_SETS)
def test_a_move_list_never_made_equals_itself_alone_and_does_not_pickle(rules):
    """Regression (the lifecycle review of 2026-12-06): == read the rule-set
    id of an unmade MoveList through None (past CPython's None object), so
    it equalled every empty classic list; pickle, copy and deepcopy wrote
    what could not be loaded ("rules must be a rule-set name or a Rules")."""
    import copy
    bare = ddzfast.MoveList.__new__(ddzfast.MoveList)
    empty = legal_moves("", None, rules)
    assert bare != empty and empty != bare and not bare == empty
    assert bare == bare and bare != ddzfast.MoveList.__new__(ddzfast.MoveList)
    for write in (pickle.dumps, copy.copy, copy.deepcopy):
        with pytest.raises(ValueError, match="never made"):
            write(bare)


def test_without_kinds_of_none_is_a_type_error():
    """without_kinds(None) read None as no kind and did nothing, though its
    docstring promises a TypeError for a kind that is no name."""
    with pytest.raises(TypeError, match="not None"):
        ddzfast.get_rules("classic").without_kinds(None)
    # (PASS was called an unknown move kind)
    for kind in ("PASS", MoveKind.PASS):
        with pytest.raises(ValueError, match="PASS is not a kind a rule set's fields name"):
            ddzfast.get_rules("classic").without_kinds(kind)
    with pytest.raises(ValueError, match="PASS is not a kind"):
        ddzfast.get_rules("classic").with_options(kinds=("SINGLE", "PASS"))


@pytest.mark.parametrize("rules", RULE_SETS)
def test_move_lists_pickle_and_copy(rules):
    """A MoveList (and so a Split, which holds one) could be neither pickled
    nor copied."""
    import copy
    hand = {"classic": "3334445566XD", "biegang": "3334445566XW",
            "super": "3334445566XW", "laizi:7": "333444556677",
            "tiandi:7J": "33344455677J"}[rules]
    moves = legal_moves(hand, None, rules)
    for made in (pickle.loads(pickle.dumps(moves)), copy.copy(moves), copy.deepcopy(moves)):
        assert type(made) is type(moves) and made.rules.rules_id == moves.rules.rules_id
        assert list(made) == list(moves)
        assert np.array_equal(made.array, moves.array)
    split = ddzfast.min_plays(hand, rules)
    assert pickle.loads(pickle.dumps(split)) == split
    # a pickle's rows are checked again: a row made illegal is refused
    load, (r, rows) = moves.__reduce__()
    rows[1]["cards"] = int(Hand("3333"))
    with pytest.raises(IllegalMoveError, match="row 1 is not a legal move"):
        load(r, rows)
    with pytest.raises(TypeError, match="MOVE_DTYPE"):
        load(r, rows["cards"])


def test_wild_ranks_are_stored_as_card_characters():
    """Regression (a user's review): 'laizi:10', 'laizi:T' and wild_rank=7
    kept their spellings in the description, so equal rule sets had unequal
    keys: the numba check refused a matching action table and each
    spelling built a table of its own."""
    from ddzfast.features import description_key
    spellings = [get_rules("laizi:T"), get_rules("laizi:10"), get_rules("laizi:t"),
                 get_rules("laizi").with_options(wild_rank=7)]
    assert {r.description["wild_rank"] for r in spellings} == {"T"}
    assert len({description_key(r) for r in spellings}) == 1
    assert get_rules("tiandi:7j").description["wild_ranks"] == ("7", "J")
    assert get_rules("tiandi").with_options(wild_ranks="7J").description["wild_ranks"] \
        == ("7", "J")


def test_a_field_left_out_is_told():
    """Regression (a user's review): a description without a field of the
    built-in one read as the built-in rule set, in repr and in the message
    naming where a move is illegal (a move legal in 'tiandi:7J')."""
    d = get_rules("tiandi:7J").description_dict()
    del d["size_tiers"]
    r = Rules("tiandi", **d)
    assert "size_tiers" not in repr(r) and eval(repr(r), {"Rules": Rules}) == r
    with pytest.raises(ValueError, match=r"'tiandi:7J' \(its size_tiers changed\)"):
        Move.parse("SOFT_BOMB/3/1/33337", r)
    Move.parse("SOFT_BOMB/3/1/33337", "tiandi:7J")


def test_wild_rank_hints_keep_what_sets_a_rule_set_apart():
    """Regression (a user's review): a rule set of its own name, or one
    without some kinds, was told to use get_rules(name).with_options(...),
    which does not exist or brings the kinds back."""
    with pytest.raises(ValueError, match=r"rules\.with_options\(wild_rank='7'\) on this "):
        legal_moves("33", None, Rules("mine", **ddzfast.RULE_SETS["laizi"]))
    with pytest.raises(ValueError, match=r"rules\.with_options\(wild_rank='7'\) on this "):
        legal_moves("33", None, get_rules("laizi").without_kinds("LAIZI_BOMB"))
    with pytest.raises(ValueError, match=re.escape("'tiandi:7J+happy' or get_rules")):
        legal_moves("33", None, "tiandi+happy")


def test_checking_moves_against_an_unranked_laizi_set_says_so():
    """Regression (a user's review): encode_moves(moves, 'laizi') said a
    classic SINGLE 3 was no legal move of 'laizi'."""
    moves = legal_moves("3", None, "classic")
    for name in ("laizi", "tiandi"):
        with pytest.raises(ValueError, match="wild rank"):
            ddzfast.encode_moves(moves, name)


@pytest.mark.parametrize("name", ["laizi:7", "classic+happy", "tiandi:7J+happy"])
def test_rules_of_a_name_alone_takes_what_get_rules_takes(name):
    """Regression (a user's review): Rules('laizi:7') was an unknown rule
    set, though the docstring says the name alone is taken."""
    made = Rules(name)
    assert made.ranked_name == name and made.rules_id == get_rules(name).rules_id
    with pytest.raises(ValueError, match="unknown rule set 'nope'"):
        Rules("nope")


def test_rules_copy_is_itself():
    """Regression (a user's review): copy and deepcopy of a Rules made new
    objects, unequal (Rules compare by identity) to the one copied."""
    import copy
    for name in ("classic", "laizi:7", "tiandi:7J+happy"):
        r = get_rules(name)
        assert copy.copy(r) is r and copy.deepcopy([r]) == [r]


def test_without_kinds_reads_kinds_as_tier_does():
    """Regression (a user's review): tier('bomb') and tier(13) worked, and
    without_kinds('bomb') and without_kinds(13) did not."""
    classic = get_rules("classic")
    bomb = int(ddzfast.MoveKind.BOMB)
    assert classic.tier("bomb") == classic.tier(bomb)
    for kinds in (("bomb", "triple_pair"), (bomb, "TRIPLE_PAIR"),
                  (ddzfast.MoveKind.BOMB, ddzfast.MoveKind.TRIPLE_PAIR)):
        assert repr(classic.without_kinds(*kinds)) == \
            "Rules('classic').without_kinds('BOMB', 'TRIPLE_PAIR')"
    with pytest.raises(ValueError, match="without_kinds: unknown move kind 'nope'"):
        classic.without_kinds("nope")
    with pytest.raises(ValueError, match="without_kinds: PASS"):
        classic.without_kinds("pass")


def test_a_laizi_moves_repr_names_a_built_in_rule_set():
    """Regression (a user's review): a rule set of its own name made first
    with laizi:7's struct made laizi:7's moves repr as Move.parse(text)
    without a rule set, which does not evaluate."""
    # (a fee no other test uses: a struct of its own, first made here)
    fields = {"wild_rank": "8", "service_fee": 0.0123}
    mine = Rules("mine_first", **{**ddzfast.RULE_SETS["laizi"], **fields})
    named = get_rules("laizi").with_options(**fields)
    assert mine.rules_id == named.rules_id
    move = ddzfast.classify("38", named)[0]
    assert repr(move) == "Move.parse('PAIR/3/1/38', 'laizi:8')"
    assert eval(repr(move), {"Move": Move}) == move


@pytest.mark.parametrize("base, ranks, cards, text", [
    ("laizi", {"wild_rank": "9"}, "39", "PAIR/3/1/39"),
    ("tiandi", {"wild_ranks": ("9", "Q")}, "39Q", "TRIPLE/3/1/39Q")])
def test_a_laizi_moves_repr_of_a_rule_set_of_its_own_name_evaluates(base, ranks, cards,
                                                                     text):
    """Regression: the moves of a laizi rule set of a name of its own, with no
    built-in-named rule set of its struct in the process, repr'd as
    Move.parse(text) without a rule set, which does not evaluate: they name
    the first built-in rule set with those ranks that reads the text as
    that move."""
    # (a fee no other test uses: a struct of its own, made only here)
    fields = {**ranks, "service_fee": 0.0457}
    mine = Rules(f"{base}_alone", **{**ddzfast.RULE_SETS[base], **fields})
    move = ddzfast.classify(cards, mine)[0]
    ranked = base + ":" + "".join(ranks.get("wild_ranks", ranks.get("wild_rank")))
    assert repr(move) == f"Move.parse({text!r}, {ranked!r})"
    assert eval(repr(move), {"Move": Move}) == move


def test_rules_are_equal_when_they_compile_alike():
    """Regression (two user reviews): Rules compared by identity, so a
    pickled preset, or the same options set by with_options, was unequal to
    the rule set it plays as (a config holding one never matched)."""
    happy = get_rules("classic+happy")
    spelled = get_rules("classic").with_options(bidding="rob", show=True, doubling=True,
                                                cap=64)
    assert pickle.loads(pickle.dumps(happy)) == happy == spelled
    assert hash(happy) == hash(spelled) and len({happy, spelled}) == 1
    assert get_rules("laizi:T") == get_rules("laizi").with_options(wild_rank="10")
    assert happy != get_rules("classic") and get_rules("laizi:7") != get_rules("laizi:8")
    assert (happy == "classic+happy") is False


def test_minus_zero_is_zero_in_a_rule_set():
    """Regression (a user's review): service_fee=-0.0 compiled to other
    bytes than 0.0, so the rule set was unequal to classic (another
    rules_id, other position keys) while its repr read Rules('classic')."""
    classic = get_rules("classic")
    assert classic.with_options(service_fee=-0.0) == classic


# ---- the user review of 2026-12-05 (values) ---------------------------------------

def test_numpy_reads_a_hand_as_its_packed_uint64():
    """numpy read a Hand as the sequence of its card characters:
    np.array([Hand("3"), Hand("4")], dtype=np.uint64) made the hands 3 and 4
    of the digits, and reversed() read counts by card index."""
    hands = np.array([Hand("3"), Hand("4"), Hand("3T")], dtype=np.uint64)
    assert hands.shape == (3,)
    assert hands.tolist() == [int(Hand("3")), int(Hand("4")), int(Hand("3T"))]
    assert int(np.asarray(Hand("33"))) == int(Hand("33"))
    assert list(legal_moves_batch(hands)[0]) == [0, 1, 2, 4]     # 3T leads 3 or T
    assert list(reversed(Hand("3345"))) == list("5433")


def test_substitutes_past_a_deck_pickle_and_copy():
    """A tiandi SOFT_BOMB's substitutes (five or eight of a rank) could not
    be pickled or deep-copied: the Hand was checked against the decks again."""
    import copy
    for cards, text in (("3333777JJ", "33333"), ("33337777JJJJ", "33333333")):
        sub = classify(cards, "tiandi:7J")[0].substitutes
        assert str(sub) == text
        assert pickle.loads(pickle.dumps(sub)) == sub
        assert copy.deepcopy(sub) is sub and copy.copy(sub) is sub
        with pytest.raises(InvalidCardsError):
            legal_moves(sub)            # a value to read, not a hand to play
    assert pickle.loads(pickle.dumps(Hand("33W"))) == Hand("33W")
    with pytest.raises(TypeError):
        ddzfast._core._hand_of_bits(-1)


def test_a_one_row_array_is_a_move():
    """Move.array (a one-row MOVE_DTYPE array) was 'not in' its list and a
    TypeError for play, beats and last; it is read as its row."""
    moves = legal_moves("3345")
    move = moves[3]
    assert move.array in moves and legal_moves("55").array not in moves
    assert play("3345", move.array) == play("3345", move)
    last = Move.parse("SINGLE/3/1/3")
    assert beats(move.array, last.array) == beats(move, last)
    assert legal_moves("3345", last.array).array.tobytes() == \
        legal_moves("3345", last).array.tobytes()
    assert np.asarray(moves).dtype == MOVE_DTYPE
    assert np.asarray(moves).tobytes() == moves.array.tobytes()
    with pytest.raises(TypeError, match=r"shape \(2,\)"):
        beats(moves.array[:2], last)


def _row_forms(moves, i):
    """Move i of the MoveList `moves` in every form a move may take besides
    a Move: its row, its one-row array, both from an unaligned copy of the
    array, a recarray's row, a copied row, and a row of an equal dtype made
    apart (each read from its memory)."""
    arr = moves.array
    raw = bytearray(arr.nbytes + 1)
    raw[1:] = arr.tobytes()
    unaligned = np.frombuffer(raw, dtype=MOVE_DTYPE, offset=1, count=len(arr))
    assert not unaligned.flags.aligned
    equal = arr.view(np.dtype(MOVE_DTYPE.descr, align=True))
    assert equal.dtype == MOVE_DTYPE and equal.dtype is not MOVE_DTYPE
    return {"row": arr[i], "one-row array": arr[i:i + 1], "unaligned row": unaligned[i],
            "unaligned one-row array": unaligned[i:i + 1],
            "recarray row": arr.view(np.recarray)[i], "copied row": arr[i].copy(),
            "row of an equal dtype": equal[i]}


@pytest.mark.parametrize("rules", RULE_SETS)
def test_every_row_form_reads_as_its_move(rules):
    """A move given as a row or a one-row array, aligned or not, of a
    recarray or of an equal dtype, is read as the Move: as the move to
    beat, in beats, in play and in `in`."""
    rng = random.Random(f"row-forms-{rules}")
    deck = list(ddzfast.constants.deck_text(ddzfast.get_rules(rules).wildcard))
    for _ in range(30):
        rng.shuffle(deck)
        hand, other = "".join(deck[:17]), "".join(deck[17:34])
        moves = legal_moves(other, None, rules)
        i = rng.randrange(len(moves))
        move = moves[i]
        want = legal_moves(hand, move, rules).array.tobytes()
        for name, form in _row_forms(moves, i).items():
            assert legal_moves(hand, form, rules).array.tobytes() == want, name
            assert form in moves, name
            assert beats(form, move, rules) == beats(move, move, rules), name
            assert play(other, form, rules) == play(other, move, rules), name


def test_a_row_of_another_dtype_is_not_a_move():
    """A void row of another dtype, and an array of two rows, are type
    errors for the move to beat, as before."""
    other = np.zeros(1, dtype=[("cards", "<u8"), ("kind", "u1")])
    with pytest.raises(TypeError, match="last move must be"):
        legal_moves("3345", other[0])
    with pytest.raises(TypeError, match=r"shape \(2,\)"):
        legal_moves("3345", legal_moves("3345").array[:2])
    assert other[0] not in legal_moves("3345")


def test_beats_with_a_pass_says_what_it_compares():
    """beats(m, PASS) said 'or None when leading', which beats does not take."""
    with pytest.raises(IllegalMoveError, match="beats compares with a non-pass move"):
        beats(Move.parse("PAIR/4/1/44"), Move.parse("PASS"))


@pytest.mark.parametrize("wild", [255.0, "x", True])
def test_a_moves_wild_of_the_wrong_type_is_a_type_error(wild):
    """Move(..., wild=255.0) was taken and wild='x' an IllegalMoveError."""
    with pytest.raises(TypeError, match="wild"):
        Move("PAIR", 0, 1, "33", wild=wild)
    assert Move("PAIR", 0, 1, "33", wild=255).wild == 255


def test_tiandi_text_names_only_laizi_standing_for_another_rank():
    """The text of 3777J as a TRIPLE_PAIR of 7s said '(laizi as 777)', of
    777QQ nothing; 3777 as a TRIPLE_SINGLE of 3s said 'laizi' where every
    laizi is a 7."""
    texts = {str(m) for m in classify("3777J", "tiandi:7J")}
    assert "TRIPLE_PAIR 3777J" in texts and "TRIPLE_PAIR 3777J (laizi as 33)" in texts
    texts = {str(m) for m in classify("3777", "tiandi:7J")}
    assert "TRIPLE_SINGLE 3777 (77 as 33)" in texts and "TRIPLE_SINGLE 3777" in texts
    assert "SOFT_BOMB 3337J (7J as 33)" in {str(m) for m in classify("3337J", "tiandi:7J")}


def test_move_lists_are_equal_by_value():
    """legal_moves("3456") == legal_moves("3456") was False (identity), so a
    list back from a worker never equalled the original (the user review of
    2026-12-05). Equal: the same moves in the same order, of one rule set."""
    a = legal_moves("3456")
    assert a == legal_moves("3456") and pickle.loads(pickle.dumps(a)) == a
    assert a != legal_moves("3457") and a != legal_moves("3456", None, "laizi:9")
    assert a != list(a) and a[:] == list(a)
    with pytest.raises(TypeError):
        hash(a)


# ---- the review of 2026-12-07 (values) ---------------------------------------------

def test_numpy_converts_a_hand_only_to_a_type_holding_it_exactly():
    """np.asarray(Hand("J"), dtype=np.int32) was array(0), an empty hand
    (astype wrapped the packed value), and float32 rounded Hand("JW")."""
    assert int(np.asarray(Hand("J"), dtype=np.int64)) == int(Hand("J"))
    assert int(np.asarray(Hand("34"), dtype=np.float64)) == int(Hand("34"))
    assert np.asarray(Hand("JW"), dtype=object)[()] == int(Hand("JW"))
    for hand, dtype in (("J", np.int32), ("3344W", np.int8), ("JW", np.float32),
                        ("3W", np.float64), ("2", np.uint32)):
        with pytest.raises(ValueError, match="cannot hold exactly"):
            np.asarray(Hand(hand), dtype=dtype)
    for dtype in (np.bool_, "U20", np.complex128):
        with pytest.raises(TypeError, match="packed integer"):
            np.asarray(Hand("3"), dtype=dtype)


def test_numpy_converts_move_rows_only_to_fields_holding_them_whole():
    """np.asarray(moves, dtype=<cards as u4, ...>) cut the cards of SINGLE J
    to 0: astype narrowed every field silently."""
    moves = legal_moves("33J")
    narrow = [("cards", "u4"), ("kind", "u1"), ("rank", "u1"), ("length", "u1"),
              ("wild", "u1"), ("substitutes", "u4")]
    with pytest.raises(TypeError, match="cannot hold"):
        np.asarray(moves, dtype=narrow)
    with pytest.raises(TypeError, match="cannot hold"):
        np.asarray(moves, dtype=np.float64)
    wide = np.asarray(moves, dtype=[(name, "u8") for name in MOVE_DTYPE.names])
    for name in MOVE_DTYPE.names:
        assert wide[name].tolist() == moves.array[name].tolist()


def _three_games():
    return [Game("classic", seed=s) for s in range(3)]


# (entry point, how it is called with its ordered argument, a valid argument)
_ORDERED_INPUTS = {
    "legal_moves_batch": (lambda x: legal_moves_batch(x), lambda: [1, 16]),
    "legal_action_mask_batch": (lambda x: ddzfast.legal_action_mask_batch(x),
                                lambda: [1, 16]),
    "legal_action_indices_batch": (lambda x: ddzfast.legal_action_indices_batch(x),
                                   lambda: [1, 16]),
    "min_plays_batch": (lambda x: ddzfast.min_plays_batch(x), lambda: [1, 16]),
    "encode_hands": (lambda x: ddzfast.encode_hands(x), lambda: [1, 16]),
    "plays_left moves": (lambda x: ddzfast.plays_left("3345", x),
                         lambda: list(legal_moves("3345"))),
    "observation_tensors games": (lambda x: ddzfast.observation_tensors(x),
                                  _three_games),
    "observation_tensors seats": (lambda x: ddzfast.observation_tensors(
        [Game("classic", seed=1)] * 3, seats=x), lambda: [0, 1, 2]),
}


@pytest.mark.parametrize("entry", sorted(_ORDERED_INPUTS))
def test_what_is_read_in_order_refuses_sets_and_mappings(entry):
    """A set or a dict was taken where items are read in order (batches of
    hands, plays_left's moves, observation_tensors' games and seats): the
    rows came back in hash order, or from a dict's keys, matched to
    nothing."""
    call, valid = _ORDERED_INPUTS[entry]
    items = valid()
    call(items)                               # the sequence itself is fine
    for unordered in (set(items), dict.fromkeys(items)):
        with pytest.raises(TypeError, match="has no order"):
            call(unordered)


def test_a_games_three_hands_refuse_a_set():
    """Game.from_position({...}) got past the three-hands check and failed
    with "'set' object is not subscriptable"."""
    hands = ["3334", "5556", "77789"]
    for make in (Game.from_position, lambda h: Game.from_deal(h, [])):
        with pytest.raises(ValueError, match="in seat order"):
            make(set(hands))
    Game.from_position(hands)


def test_the_repr_of_a_rule_set_given_wild_ranks_its_name_has_none_of():
    """Regression (review of the values, 2026-12-07): repr of classic given
    laizi=True and a wild rank (or laizi given two wild ranks) raised
    ValueError: its ranked name ('classic:7') is no name get_rules reads,
    and repr made it outside the check that falls back to the constructor.
    The repr is code that makes an equal rule set."""
    made = [ddzfast.get_rules("classic").with_options(laizi=True, wild_rank="7"),
            ddzfast.get_rules("laizi").with_options(wild_count=2, wild_ranks="7J",
                                                     wild_rank=None)]
    for rules in made:
        text = repr(rules)
        assert eval(text, {"Rules": ddzfast.Rules}) == rules
    move = ddzfast.classify("37", made[0])[0]
    assert str(move) == "PAIR 37 (7 as 3)" and repr(move)


def test_a_generator_of_kinds_is_read_once_and_kept():
    """Regression (review of the values, 2026-12-07): kinds given as a
    generator compiled, but the description kept the spent generator, so
    the rule set did not pickle and with_options, without_kinds and
    Rules(name, **description_dict()) of it had no kinds. Any one-pass
    iterable is read once, into a tuple."""
    kinds = ddzfast.RULE_SETS["classic"]["kinds"]
    rules = ddzfast.get_rules("classic").with_options(
        kinds=(k for k in kinds if k != "TRIPLE_PAIR"))
    expected = ddzfast.get_rules("classic").without_kinds("TRIPLE_PAIR")
    assert rules == expected
    assert rules.description["kinds"] == tuple(k for k in kinds if k != "TRIPLE_PAIR")
    assert pickle.loads(pickle.dumps(rules)) == rules
    assert rules.with_options(cap=5) == expected.with_options(cap=5)
    assert rules.without_kinds("FOUR_PAIRS") == expected.without_kinds("FOUR_PAIRS")
    assert ddzfast.Rules("x", **rules.description_dict()) == rules
    ranked = ddzfast.Rules("y", **{**ddzfast.RULE_SETS["classic"],
                                  "ranked": iter(ddzfast.RULE_SETS["classic"]["ranked"])})
    assert ranked == ddzfast.get_rules("classic")


def test_numpy_strings_name_rule_sets_and_options():
    """Regression (review of the values, 2026-12-07): a NumPy string was
    refused as a rule-set name (TypeError "not str_", or Cython's "Expected
    str" from Rules) and as the value of bidding, no_call, doubling and
    deal ("bidding is one of 'points', 'rob', not np.str_('rob')"), where
    wild ranks, kind names and card text take one."""
    assert ddzfast.get_rules(np.str_("classic")) == ddzfast.get_rules("classic")
    assert ddzfast.legal_moves("34", None, np.str_("laizi:7")) == \
        ddzfast.legal_moves("34", None, "laizi:7")
    assert ddzfast.Rules(np.str_("classic")).name == "classic"
    assert type(ddzfast.Rules(np.str_("classic")).name) is str
    options = dict(bidding="rob", no_call="first", doubling="after_farmer")
    assert ddzfast.get_rules("classic").with_options(
        **{k: np.str_(v) for k, v in options.items()}) == \
        ddzfast.get_rules("classic").with_options(**options)


def test_a_subclass_of_move_keeps_its_rule_set():
    """Regression (review of the values, 2026-12-07): an instance of a
    Move subclass was re-made wherever a move is taken, without its rule
    set: a laizi move of one was "not a PAIR ... in any built-in rule
    set"."""
    class Mine(Move):
        pass
    mine = Mine("PAIR", 0, 1, "37", rules=L7)
    last = Move.parse("PAIR/3/1/33", L7)
    assert ddzfast.beats(mine, last, L7) == ddzfast.beats(
        Move("PAIR", 0, 1, "37", rules=L7), last, L7)
    assert ddzfast.beats(Move.parse("PAIR/4/1/44", L7), mine, L7)
    assert ddzfast.play("3377", mine, L7) == ddzfast.play("3377", Move.parse(
        "PAIR/3/1/37", L7), L7)
