"""ddzfast's `classic` rule set against DouZero's move generator.

RULES.md: `classic` matches the conventions of the DouZero move generator
exactly, so on any hand the card multisets of ddzfast's leading moves are
DouZero's ``MovesGener(cards).gen_moves()``, card for card.

DouZero is installed with ``pip install --no-deps douzero`` (pure Python; the
move generator needs neither torch nor rlcard). These tests are skipped only
when it is not installed.

Card texts are compared as sets: one card multiset can be several ddzfast
moves (``333444555666`` is a PLANE of 4 and a PLANE_SINGLES of 3 with kickers
666), and DouZero may list a multiset more than once.
"""

import os
import random
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

try:
    from oracles import douzero_adapter as dza
    dza.load_douzero()
except ImportError:
    pytest.importorskip("douzero")  # skips the module when DouZero is missing
    raise  # DouZero is installed but could not be loaded: a real error

import ddzfast  # noqa: E402

RULES = "classic"
N_HANDS = int(os.environ.get("DDZ_DOUZERO_HANDS", "300"))
N_FOLLOWS = int(os.environ.get("DDZ_DOUZERO_FOLLOWS", "300"))
DECK = "".join(c * 4 for c in "3456789TJQKA2") + "XD"  # 54 cards


def canonical(cards) -> str:
    return "".join(sorted(cards, key=DECK.index))


def deal(rng: random.Random, n: int) -> str:
    return canonical(rng.sample(DECK, n))


def card_text(m) -> str:
    """Canonical card text of a ddzfast Move; PASS is ''."""
    return "" if int(m.cards) == 0 else str(m.cards)


def ddz_texts(hand_text: str, last=None):
    ml = ddzfast.legal_moves(ddzfast.Hand.parse(hand_text), last, rules=RULES)
    return ml, [card_text(m) for m in ml]


def assert_same(hand_text, ours, theirs, what="leading"):
    if ours == theirs:
        return
    only_ours = sorted(ours - theirs, key=lambda s: (len(s), s))
    only_dz = sorted(theirs - ours, key=lambda s: (len(s), s))
    pytest.fail(
        f"{what} moves of {hand_text!r} differ from DouZero's: "
        f"{len(ours)} vs {len(theirs)} card sets; "
        f"only ddzfast ({len(only_ours)}): {only_ours[:20]}; "
        f"only DouZero ({len(only_dz)}): {only_dz[:20]}")


def test_adapter_round_trip():
    assert dza.text_to_douzero("3TA2XD") == [3, 10, 14, 17, 20, 30]
    assert dza.douzero_to_text([30, 17, 3, 10, 3]) == "33T2D"
    assert dza.douzero_move_multisets("33") == {"3", "33"}
    assert dza.douzero_move_multisets("XD") == {"X", "D", "XD"}
    h = ddzfast.Hand.parse("334TTJQKA22XD")
    assert str(h) == "334TTJQKA22XD"
    assert str(ddzfast.Hand(int(h))) == "334TTJQKA22XD"


@pytest.mark.parametrize("size", [17, 20])
def test_leading_moves_match_douzero(size):
    rng = random.Random(20240 + size)
    for _ in range(N_HANDS):
        text = deal(rng, size)
        ml, texts = ddz_texts(text)
        ours = set(texts)
        assert "" not in ours, f"PASS among the leading moves of {text!r}"
        assert_same(text, ours, dza.douzero_move_multisets(text))
        # The numpy view lists the same moves, in the same order.
        arr = ml.array
        assert len(arr) == len(texts)
        assert [str(ddzfast.Hand(int(c))) for c in arr["cards"]] == texts


FIXED_HANDS = [
    "33334444555566667777",   # five fours: planes, bombs, 4+2, 4+2 pairs
    "333444555666777888XD",   # a 6-triple plane and both jokers
    "3333444455556666XD22",
    "3456789TJQKA2222XD",     # the longest straight, four 2s, rocket
    "33445566778899TTJJQQ",   # a 10-pair chain
    "3334445556667778889T",
    "333444555666777AAA22",
    "3",
    "XD",
    "2222",
]


@pytest.mark.parametrize("text", FIXED_HANDS)
def test_fixed_hands_match_douzero(text):
    text = canonical(text)
    ml, texts = ddz_texts(text)
    assert_same(text, set(texts), dza.douzero_move_multisets(text))


# --------------------------------------------------------------------------
# Following
# --------------------------------------------------------------------------
# DouZero's game (GameEnv.get_legal_card_play_actions) reads the last move's
# kind back from its cards (move_detector) and compares it with
# move_selector. Two of its quirks make it differ from RULES.md, so those
# last moves are left out here (they are not ddzfast bugs):
#   * a plane with single kickers of 3+ triples (TYPE_11, len >= 3): the
#     selector ranks both moves by their highest triple, kickers included
#     (333444555+888 is ranked as 8);
#   * a card multiset with several ddzfast readings (333444555666): DouZero
#     picks one reading, ddzfast's Move has its own.

def _follow_comparable(last_text: str, n_readings: int) -> bool:
    if n_readings != 1:
        return False
    t = dza.douzero_move_type(last_text)
    md = dza.load_douzero().md
    if t["type"] == md.TYPE_15_WRONG:
        return False
    if t["type"] == md.TYPE_11_SERIAL_3_1 and t.get("len", 1) >= 3:
        return False
    return True


def test_following_moves_match_douzero():
    if dza.load_douzero().game_env is None:
        pytest.skip("DouZero's GameEnv could not be imported")
    rng = random.Random(777)
    compared = 0
    kinds_seen = set()
    for _ in range(N_FOLLOWS):
        cards = rng.sample(DECK, 37)
        leader, follower = canonical(cards[:20]), canonical(cards[20:])
        lead_ml = ddzfast.legal_moves(ddzfast.Hand.parse(leader), None, rules=RULES)
        lead = list(lead_ml)
        kinds = [int(k) for k in lead_ml.array["kind"]]
        counts = {}
        for m in lead:
            counts[card_text(m)] = counts.get(card_text(m), 0) + 1
        # Pick a kind first, then a move of it, so that rare kinds get tried.
        kind = rng.choice(sorted(set(kinds)))
        last = rng.choice([m for m, k in zip(lead, kinds) if k == kind])
        last_text = card_text(last)
        if not _follow_comparable(last_text, counts[last_text]):
            continue
        _, texts = ddz_texts(follower, last)
        ours = set(texts)
        assert "" in ours, "PASS missing from a follow"
        theirs = dza.douzero_follow_multisets(follower, last_text)
        assert_same(follower, ours, theirs, what=f"following {last_text!r}")
        compared += 1
        kinds_seen.add(kind)
    assert compared >= N_FOLLOWS // 2
    assert len(kinds_seen) >= min(8, N_FOLLOWS // 20)


def test_a_pickle_state_with_a_mapping_is_refused():
    """Regression (a user's review): a DouZeroGame pickle whose hands or
    history were a dict raised KeyError (read by index)."""
    from ddzfast._douzero import _douzero_game_from_state
    with pytest.raises(TypeError, match="tuples of packed ints"):
        _douzero_game_from_state(False, (0, 0, 0), (0, 0, 0), (0, 0, 0), {"x": 1},
                                 0, 0, False, False)
    with pytest.raises(TypeError, match="tuples of packed ints"):
        _douzero_game_from_state(False, {0: 0, 1: 0, 2: 0}, (0, 0, 0), (0, 0, 0), (),
                                 0, 0, False, False)


def _played_game(plays: int):
    """A DouZeroGame of a shuffled deck after ``plays`` plays of its first
    legal action (a pass when one is legal)."""
    from ddzfast._douzero import DouZeroGame
    deck = [c for c in range(3, 15) for _ in range(4)] + [17] * 4 + [20, 30]
    random.Random(5).shuffle(deck)
    game = DouZeroGame()
    game.deal_deck(deck)
    for _ in range(plays):
        if game.play(game.legal_actions[0]):
            break
    return game


def test_a_pickle_not_made_by_a_game_is_refused():
    """A DouZeroGame pickle was checked by the sum of its packed hands, which
    carries from one card into the next: sixteen 3s (or any hands, with
    `played` their negated sum) loaded, and their hands went to the
    generator. The deal is now played again from its history."""
    import pickle

    from ddzfast._douzero import _douzero_game_from_state
    for plays in (0, 7, 200):
        game = _played_game(plays)
        loaded = pickle.loads(pickle.dumps(game))
        assert loaded.__reduce__() == game.__reduce__()
        if plays < 200:
            assert loaded.legal_actions == game.legal_actions
    fields = list(_played_game(7).__reduce__()[1])
    three = 1   # one 3, packed
    crafted = {
        "sixteen 3s": (True, (4 * three,) * 3, (4 * three, 0, 0), (0, 0, 0), (), 0, 0,
                       False, False),
        "played carrying into W": (True, (three, three, three), (-3 * three % 2**64, 0, 0),
                                   (0, 0, 0), (), 0, 0, False, False),
        "a play not in the history": fields[:2] + [(fields[2][0] + three,) + fields[2][1:]]
        + fields[3:],
        "one bomb more": fields[:6] + [fields[6] + 1] + fields[7:],
        "another seat": fields[:5] + [(fields[5] + 1) % 3] + fields[6:],
        "fifteen 3s played": fields[:4] + [fields[4][:-1] + (15 * three,)] + fields[5:],
        "no deal with cards": (False, (three, 0, 0), (0, 0, 0), (0, 0, 0), (), 0, 0,
                               False, False),
    }
    reasons = {"sixteen 3s": "cards are not of one deck",
               "played carrying into W": "cards are not of one deck",
               "fifteen 3s played": "history is no deal's",
               "no deal with cards": "deal is not dealt"}
    for what, state in crafted.items():
        with pytest.raises(ValueError, match="DouZeroGame pickle whose "
                           + reasons.get(what, "")):
            _douzero_game_from_state(*state)
