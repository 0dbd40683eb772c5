"""Encodings for learning (shapes, round trips) and the action index (a
bijection on every move identity of each rule set), laizi's substitutes in
the move encoding; and ddzfast.features validating what it encodes and
indexes, with a bounded cache of action tables. Each regression of the
hardening review failed on the code before its fix (garbage rows mapped to
real actions, card text and floats were encoded as packed ints, impossible
features decoded to impossible hands, rows of any kind encoded as their
cards, every Rules copy added a table of its own) and names that defect."""
import hashlib
import importlib.util
import math
import random
import textwrap

import numpy as np
import pytest

import ddzfast
from ddzfast import (HAND_FEATURES, MOVE_DTYPE, MOVE_FEATURES, Hand, action_count,
                     action_index, action_moves, decode_hands, encode_hands,
                     encode_moves, features, legal_action_mask, legal_moves)
from ddzfast.errors import IllegalMoveError, InvalidCardsError
from helpers import DECKS, L7, LAIZI_BIG, RULE_SETS, assert_never_writable, identities_repeat


def test_encode_hands_shapes_and_round_trip():
    hands = [ddzfast.Hand("3"), ddzfast.Hand("33334444XDW"), ddzfast.Hand("")]
    f = encode_hands(hands)
    assert f.shape == (3, HAND_FEATURES) == (3, 61) and f.dtype == np.uint8
    plane = f[1, :60].reshape(4, 15)
    assert plane[:, 0].tolist() == [1, 1, 1, 1] and plane[:, 13].tolist() == [1, 0, 0, 0]
    assert f[1, 60] == 1 and f[0, 60] == 0 and f[2].sum() == 0
    assert decode_hands(f).tolist() == [int(h) for h in hands]
    assert encode_hands(int(hands[0])).shape == (1, 61)
    rng = random.Random(3)
    packed = np.array([int(ddzfast.Hand("".join(rng.sample(DECKS["super"], 21))))
                       for _ in range(500)], dtype=np.uint64)
    assert np.array_equal(decode_hands(encode_hands(packed)), packed)
    with pytest.raises(ValueError, match="more copies"):
        encode_hands(np.array([5], np.uint64))


def test_encode_moves():
    moves = legal_moves("3333W", None, "biegang")
    f = encode_moves(moves)
    assert f.shape == (len(moves), MOVE_FEATURES) == (len(moves), 77)
    assert np.array_equal(decode_hands(f), moves.array["cards"])
    for row, m in zip(f, moves):
        wild = row[61:]
        if m.wild == 255:
            assert wild.sum() == 0
        else:
            assert wild.sum() == 1 and wild[m.wild] == 1
    with pytest.raises(TypeError):
        encode_moves(np.zeros(2, np.int64))



def _plain_cards(packed: int) -> list:
    """encode_hands' 61 features written out: the 4 x 15 plane of the card
    counts (row j: more than j cards), then the W count."""
    counts = [(packed >> (4 * i)) & 15 for i in range(16)]
    return [int(counts[i] > j) for j in range(4) for i in range(15)] + [counts[15]]


def _plain_encoding(move) -> list:
    """encode_moves' 77 features written out from a Move: its cards, then
    W's one-hot or the laizi substitute counts (the module docstring)."""
    wild = [0] * 16
    if move.wild != 255:
        wild[move.wild] = 1
    if int(move.substitutes):
        wild[:13] = [int(c) for c in move.substitutes.counts[:13]]
    return _plain_cards(int(move.cards)) + wild


@pytest.mark.parametrize("rules", RULE_SETS)
def test_encodings_match_a_plain_one(rules):
    """encode_moves and encode_hands (written in C) give, row for row, what
    the encoding written out from each Move and hand gives: the leads and a
    follow of random hands of the rule set, as one array, a strided view
    and one row; decode_hands gives their cards back."""
    rng = random.Random(rules)
    deck = DECKS[rules]
    for _ in range(40):
        hand = Hand("".join(rng.sample(deck, rng.randint(1, 20))))
        leads = legal_moves(hand, None, rules)
        other = legal_moves(Hand("".join(rng.sample(deck, 12))), None, rules)
        follows = legal_moves(hand, other[rng.randrange(len(other))], rules)
        for moves in (leads, follows):
            enc = encode_moves(moves)
            assert enc.tolist() == [_plain_encoding(m) for m in moves]
            assert np.array_equal(encode_moves(moves.array[::2], rules), enc[::2])
            assert np.array_equal(encode_moves(moves.array[-1], rules), enc[-1:])
            # and back (decode_hands in C too), from any numeric type
            for back in (enc, enc.astype(np.float32), enc.astype(np.int64)):
                assert np.array_equal(decode_hands(back), moves.array["cards"])
        hands = np.array([int(hand), int(Hand(deck[:20])), 0], dtype=np.uint64)
        assert encode_hands(hands).tolist() == [_plain_cards(int(h)) for h in hands]
        assert np.array_equal(decode_hands(encode_hands(hands).astype(bool)), hands)
        assert np.array_equal(encode_hands(hands[::2]), encode_hands(hands)[::2])


@pytest.mark.parametrize("rules", RULE_SETS)
def test_action_index_is_a_bijection(rules):
    actions = action_moves(rules)
    n = action_count(rules)
    assert len(actions) == n and actions.dtype == MOVE_DTYPE
    assert actions[0]["kind"] == 0
    assert np.array_equal(action_index(actions, rules), np.arange(n))
    assert not identities_repeat(actions)
    # every action is a move of the rule set that fits in a hand
    limit = 21 if ddzfast.get_rules(rules).wildcard else 20
    rng = random.Random(rules)
    for i in rng.sample(range(1, n), 2000):
        m = ddzfast.Move(int(actions[i]["kind"]), int(actions[i]["rank"]),
                         int(actions[i]["length"]), int(actions[i]["cards"]), rules=rules)
        assert len(m.cards) <= limit
        assert m in ddzfast.classify(m.cards, rules)
    # and every move of a real hand is an action
    for _ in range(300):
        size = limit if rng.random() < 0.5 else 17
        hand = "".join(rng.sample(DECKS[rules], size))
        ml = legal_moves(hand, None, rules)
        idx = action_index(ml, rules)
        assert len(set(idx.tolist())) == len(ml)
        assert np.array_equal(actions[idx], ml.array)
        mask = legal_action_mask(ml, rules)
        assert mask.shape == (n,) and mask.sum() == len(ml)
        # a Move alone: one index, its row's
        k = rng.randrange(len(ml))
        assert action_index(ml[k], rules).tolist() == [idx[k]]


def test_action_index_rejects_foreign_moves():
    wild = legal_moves("333W", None, "super")
    with pytest.raises(ValueError, match="not an action of 'classic'"):
        action_index(wild.array, "classic")
    with pytest.raises(ValueError, match="not an action of 'classic'"):
        action_index(wild[-1], "classic")


def test_encode_moves_laizi_substitutes():
    """laizi moves play no W: the 16 wildcard columns hold how many laizi
    stand for each rank 3..2 (Move.substitutes), computed here from the
    Moves; decode_hands gives back the physical cards."""
    from ddzfast.features import MOVE_FEATURES, decode_hands, encode_moves
    for name, hand in (("laizi:7", "3777"), ("laizi:7", "345677789TJ"),
                       ("laizi:3", "3333456"), ("laizi:2", "22223344KK")):
        moves = ddzfast.legal_moves(ddzfast.Hand(hand), None, name)
        enc = encode_moves(moves)
        assert enc.shape == (len(moves), MOVE_FEATURES)
        for m, row in zip(moves, enc):
            want = np.zeros(16, np.uint8)
            want[:13] = m.substitutes.counts[:13]
            assert np.array_equal(row[61:], want), (m, row[61:])
        assert any(row[61:].max() > 1 for row in enc) or hand == "3333456"
        assert np.array_equal(decode_hands(enc), moves.array["cards"])
        assert np.array_equal(encode_moves(moves.array, name), enc)
    moves = ddzfast.legal_moves(ddzfast.Hand("3777"), None, "laizi:7")
    with pytest.raises(ddzfast.IllegalMoveError, match="laizi:<wild rank>"):
        encode_moves(moves.array)                       # no rule set to read them
    bad = moves.array.copy()
    i = int(np.flatnonzero(bad["substitutes"])[0])
    bad["substitutes"][i] = 0
    with pytest.raises(ddzfast.IllegalMoveError, match="substitutes"):
        encode_moves(bad, "laizi:7")
    enc = encode_moves(moves)
    broken = enc.copy()
    broken[i, 61 + 13] = 1                              # a joker substitute: impossible
    with pytest.raises(ValueError, match=rf"features\[{i}\]"):
        decode_hands(broken)
    broken = enc.copy()
    broken[i, 61] = 5                                   # more laizi than a rank takes
    with pytest.raises(ValueError, match=rf"features\[{i}\]"):
        decode_hands(broken)


# ---- action_index: the regressions of the hardening review --------------------

def _row(kind, rank, length, cards, wild=255):
    row = np.zeros(1, MOVE_DTYPE)
    row["kind"], row["rank"], row["length"] = kind, rank, length
    row["cards"], row["wild"] = int(cards), wild
    return row


@pytest.mark.parametrize("kind, rank, length, cards", [
    (33, 0, 1, Hand("3")),        # kind 33 OR-ed over rank's bits: was action 200
    (1, 17, 0, Hand("3")),        # rank 17 OR-ed over length's bits: also 200
    (200, 0, 1, Hand("3")),       # no such kind
    (1, 0, 1, Hand("34")),        # SINGLE of two cards
    (1, 5, 1, Hand("3")),         # SINGLE 3 with the rank of 8
    (2, 0, 1, Hand("3W")),        # a wildcard pair in classic
    (1, 0, 1, 0x5),               # five 3s: no deck holds them
])
def test_action_index_rejects_garbage_rows(kind, rank, length, cards):
    """Garbage rows (bits OR-ed over a neighbour field, no such kind, impossible cards)
    mapped to real actions: each is an IllegalMoveError naming its row."""
    with pytest.raises(IllegalMoveError, match=r"moves\[1\]"):
        action_index(np.concatenate([_row(1, 0, 1, Hand("3")),
                                     _row(kind, rank, length, cards)]), "classic")


def test_the_first_bad_row_is_named():
    """Regression (review of the features, 2026-12-07): with a legal-looking
    illegal row before a row out of range, encode_moves, action_index and
    legal_action_mask named the later row (every row's range was checked
    before any row's legality), and action_index named an illegal row
    after a legal move of 24 cards, which is no action, before it."""
    ok, illegal = _row(1, 1, 1, Hand("4")), _row(1, 5, 1, Hand("3"))
    out_of_range = _row(99, 1, 1, Hand("4"))
    rows = np.concatenate([ok, illegal, out_of_range])
    for call in (lambda a: ddzfast.encode_moves(a, "classic"),
                 lambda a: action_index(a, "classic"),
                 lambda a: ddzfast.legal_action_mask(a, "classic")):
        with pytest.raises(IllegalMoveError, match=r"^moves\[1\] \(kind 1, rank 5.*not "):
            call(rows)
        with pytest.raises(IllegalMoveError, match=r"^moves\[2\] .* is no move"):
            call(np.concatenate([ok, ok, out_of_range, illegal]))
    no_action = ddzfast.classify("33445566778899TTJJQQKKAA", "classic").array
    with pytest.raises(IllegalMoveError, match=r"^moves\[1\] .*more cards than a hand"):
        action_index(np.concatenate([ok, no_action, illegal]), "classic")
    with pytest.raises(IllegalMoveError, match=r"^moves\[1\] .*not a legal move"):
        action_index(np.concatenate([ok, illegal, no_action]), "classic")


def test_the_colliding_rows_of_the_issue():
    """(kind 33, rank 0, length 1) and (kind 1, rank 17, length 0) were both
    action 200, SINGLE 4."""
    assert action_index(_row(1, 1, 1, Hand("4")), "classic").tolist() == [200]
    for kind, rank, length in ((33, 0, 1), (1, 17, 0)):
        with pytest.raises(IllegalMoveError, match="is no move"):
            action_index(_row(kind, rank, length, Hand("4")), "classic")


def test_action_index_rejects_legal_moves_no_hand_holds():
    # legal classic moves of more than 20 cards: no hand holds them
    """Legal moves of more than 20 cards, which no hand holds, were given action
    indices: they are not actions."""
    every = legal_moves("3456789TJQKA2" * 4 + "XD", None, "classic").array
    big = every[[len(Hand(int(c))) > 20 for c in every["cards"]]]
    assert len(big)
    with pytest.raises(IllegalMoveError, match="not an action of 'classic'"):
        action_index(big[:1], "classic")


def test_action_index_ignores_wild():
    """A move's identity is (kind, rank, length, cards): wild follows."""
    ml = legal_moves("333W", None, "super").array.copy()
    fixed = action_index(ml, "super")
    ml["wild"] = 0
    assert np.array_equal(action_index(ml, "super"), fixed)


def test_action_counts_and_order_unchanged():
    """The README's counts, and the very order of each table (hashes of the
    fields as the code before this change produced them)."""
    expected = {
        "classic": (30384, "0ecf0edf3ddd5580beb976137dc5f864"),
        "biegang": (168676, "e233bfbc22d00762adcf0f05118d982e"),
        "super": (143144, "9d1387ba93e1e096ae8f645ea2350660"),
    }
    for name, (count, digest) in expected.items():
        actions = action_moves(name)
        assert action_count(name) == len(actions) == count
        h = hashlib.sha256()
        for field in ("cards", "kind", "rank", "length", "wild"):
            h.update(np.ascontiguousarray(actions[field]).tobytes())
        assert h.hexdigest()[:32] == digest, name


# ---- the action-table cache ---------------------------------------------------

def test_equal_descriptions_share_one_table():
    """Every equal Rules object built an action table of its own: equal descriptions
    (scoring fields aside) share one."""
    a = ddzfast.Rules("mine", **ddzfast.RULE_SETS["classic"])
    b = ddzfast.Rules("mine", **ddzfast.RULE_SETS["classic"])
    assert a is not b
    assert action_moves(a) is action_moves(b) is action_moves("classic")
    # fields only scoring reads do not change which moves exist, nor do the
    # platform options
    assert action_moves(a.with_options(service_fee=0.1, mult_cap=8)) is action_moves(a)
    assert action_moves("classic+happy") is action_moves("classic")
    assert action_moves("laizi:7+happy") is action_moves("laizi:7")


def test_with_options_copies_do_not_grow_the_cache():
    """Before, each copy added a table for good (+5.5 MB per wildcard copy):
    count the tables kept, not the process's memory."""
    classic = ddzfast.get_rules("classic")
    for i in range(20):
        # tiers are part of the key: each copy is a rule set of its own
        copy = classic.with_options(tiers={"BOMB": 1, "ROCKET": 2 + i})
        assert action_count(copy) == 30384
        assert len(features._action_tables) <= features.ACTION_CACHE_SIZE
    assert len(features._action_tables) == features.ACTION_CACHE_SIZE
    for i in range(20):
        copy = classic.with_options(service_fee=i / 100)
        action_moves(copy)
    assert len(features._action_tables) <= features.ACTION_CACHE_SIZE


def test_one_cache_holds_the_action_tables(monkeypatch):
    """Regression (audit): the core kept its own cache of action tables
    beside features' (by rules_id, oldest first, where features' goes by
    description, least recently used first), so mixing action_moves with
    legal_action_indices kept a table features had let go, built a second
    for the same description, and held about twice ACTION_CACHE_SIZE. Both
    paths ask one cache now: after more rule sets than it keeps, through
    both, at most ACTION_CACHE_SIZE of the tables built are alive, none
    twice for one description."""
    import gc
    from ddzfast._core import _ActionTable
    # the tables alive before are held, so that no new one reuses their ids
    held = [o for o in gc.get_objects() if type(o) is _ActionTable]
    old = {id(o) for o in held}
    key_of = {}
    build = features._build_action_table

    def counted(r):
        table = build(r)
        key_of[id(table[2])] = features.description_key(r, ignore=features._SCORING_FIELDS)
        return table

    monkeypatch.setattr(features, "_build_action_table", counted)
    size = features.ACTION_CACHE_SIZE
    classic = ddzfast.get_rules("classic")
    # tiers are part of the key: each is a rule set of its own
    sets = [classic.with_options(tiers={"BOMB": 1, "ROCKET": 2 + i}) for i in range(size + 4)]
    hand = Hand("3456789TJQKA2")
    for r in sets[:size]:
        ddzfast.legal_action_indices(hand, None, r)
    for r in sets[size:]:
        action_moves(r)
    for r in sets[:4]:
        action_moves(r)
        ddzfast.legal_action_indices(hand, None, r.with_options(service_fee=0.1))
    gc.collect()
    alive = [o for o in gc.get_objects() if type(o) is _ActionTable and id(o) not in old]
    assert len(alive) <= size
    keys = [key_of[id(o)] for o in alive]
    assert len(keys) == len(set(keys)), "a description has two tables alive"
    for r in sets[:4]:
        assert features._action_table(r)[2] is ddzfast._core._action_lookup(r)
    del held


def test_description_key_is_canonical():
    """The cache key depended on the order of a description's fields: equal rule sets
    get one hashable key."""
    a = ddzfast.get_rules("super")
    b = ddzfast.Rules("super", **dict(reversed(list(ddzfast.RULE_SETS["super"].items()))))
    assert features.description_key(a) == features.description_key(b)
    hash(features.description_key(a))
    assert features.description_key(a) != features.description_key("biegang")


# ---- encode_hands -------------------------------------------------------------

@pytest.mark.parametrize("bad", ["33", ["33"], [Hand("3"), "4"]])
def test_encode_hands_rejects_text(bad):
    # "33" was iterated and encoded as the packed ints 3 and 3
    """Card text was iterated and encoded as packed ints ("33" as the hands 3 and 3):
    text is a TypeError naming Hand()."""
    with pytest.raises(TypeError, match=r"Hand\("):
        encode_hands(bad)


@pytest.mark.parametrize("bad", [b"33", bytearray(b"33"), [Hand("3"), b"4"]])
def test_encode_hands_rejects_bytes(bad):
    """encode_hands(b"33") iterated the bytes and encoded two hands of 0x33
    (str card text was already a TypeError): bytes get the same TypeError."""
    with pytest.raises(TypeError, match=r"not a hand here: pass Hand\(text\).*byte by byte"):
        encode_hands(bad)


@pytest.mark.parametrize("bad", [[3.7], [1, math.inf], 3.7, [True], np.array([1.0]),
                                 [None], object()])
def test_encode_hands_rejects_non_integers(bad):
    # [3.7] was encoded as 3; [1, inf] raised OverflowError
    """Floats were encoded as packed ints ([3.7] as 3; [1, inf] raised OverflowError):
    non-integers are a TypeError."""
    with pytest.raises(TypeError):
        encode_hands(bad)


@pytest.mark.parametrize("bad", [[-1], [1 << 64], np.array([-1], np.int64),
                                 np.zeros((2, 2), np.uint64)])
def test_encode_hands_rejects_out_of_range(bad):
    """Negative and 64-bit-overflowing packed hands, and 2-d arrays, were encoded: they
    are a ValueError."""
    with pytest.raises(ValueError):
        encode_hands(bad)


def test_encode_hands_rejects_impossible_counts():
    """Packed ints with five of a rank or two W were encoded as hands: they are an
    InvalidCardsError."""
    with pytest.raises(InvalidCardsError, match="more copies"):
        encode_hands([int(Hand("3")), 5])
    with pytest.raises(InvalidCardsError):
        encode_hands([2 << 60])                   # two W


def test_encode_hands_accepts_hands_ints_and_integer_arrays():
    """The stricter checks must still take every valid form (Hand, int, numpy ints,
    integer arrays, empty input) alike."""
    h = Hand("33XW")
    expected = encode_hands([h])
    for value in (h, int(h), np.uint64(int(h)), [int(h)], np.array([int(h)], np.int64),
                  np.array([int(h)], np.uint64), (h,)):
        assert np.array_equal(encode_hands(value), expected)
    assert encode_hands([]).shape == (0, 61)
    assert encode_hands(np.array([], np.float64)).shape == (0, 61)


# ---- decode_hands -------------------------------------------------------------

def test_decode_hands_rejects_values_other_than_0_and_1():
    """Features other than 0 and 1 decoded to impossible hands (a doubled plane as
    eight 3s; NaN): they are a ValueError."""
    f = encode_hands([Hand("3333")]) * 2      # was decoded as eight 3s
    with pytest.raises(ValueError, match="other than 0 and 1"):
        decode_hands(f)
    f = encode_hands([Hand("3")]).astype(float)
    f[0, 5] = np.nan
    with pytest.raises(ValueError, match="other than 0 and 1"):
        decode_hands(f)


def test_decode_hands_rejects_impossible_planes():
    """Planes no hand encodes (joker rows beyond row 0, a row 1 without row 0) decoded
    to hands: they are a ValueError naming the row."""
    ones = np.ones((1, 61), np.uint8)          # jokers beyond row 0: no hand
    with pytest.raises(ValueError, match="no encoding"):
        decode_hands(ones)
    f = np.zeros((2, 61), np.uint8)
    f[1, 15 + 4] = 1                           # row 1 of card 7 without row 0
    with pytest.raises(ValueError, match=r"features\[1\]"):
        decode_hands(f)


def test_decode_hands_rejects_wrong_shapes():
    """Arrays of the wrong shape or dtype were decoded: they are a ValueError or
    TypeError."""
    f = encode_hands([Hand("345")])
    for bad in (f[0], f[:, :60], np.hstack([f, f]), f[:, :, None]):
        with pytest.raises(ValueError, match="shape"):
            decode_hands(bad)
    with pytest.raises(TypeError):
        decode_hands(np.array([["a"] * 61]))


def test_decode_hands_move_features_check_the_wild_one_hot():
    """Move features with a W one-hot and no W played, or more substitutes than a rank
    holds, decoded to hands: no encoding."""
    f = encode_moves(legal_moves("33W", None, "super"))
    assert np.array_equal(decode_hands(f), legal_moves("33W", None, "super").array["cards"])
    for col in (13, 14, 15):                   # a W one-hot without W played
        g = f.copy()
        g[0, 61 + col] = 1
        with pytest.raises(ValueError, match="no encoding"):
            decode_hands(g)
    # columns 0..12 without W count laizi substitutes (encode_moves): more of
    # them than the cards of any other rank hold is no laizi move either
    g = f.copy()
    g[0, 61 + 3] = 2
    with pytest.raises(ValueError, match="no encoding"):
        decode_hands(g)
    assert np.array_equal(decode_hands(f.astype(np.float32)), decode_hands(f))
    assert decode_hands(np.zeros((0, 77), np.uint8)).shape == (0,)


# ---- encode_moves and masks ---------------------------------------------------

def test_laizi_substitutes_without_rules_get_the_hint():
    """Regression (audit of the compat layers): a tiandi move whose identity
    is a classic move (PAIR 77 with 7 standing for J) without rules gave
    "has substitutes 256, but the core derives 0", not the documented hint
    to pass rules='tiandi:<sky><ground>'."""
    moves = legal_moves("3333777JJ45", None, "tiandi:7J").array
    i = int(np.flatnonzero(moves["substitutes"] != 0)[0])
    for rows in (moves, moves[i:i + 1]):
        with pytest.raises(ddzfast.IllegalMoveError,
                           match=r"substitutes \d+, which only a laizi.*tiandi:<sky><ground>"):
            encode_moves(rows)
    assert len(encode_moves(moves, "tiandi:7J")) == len(moves)


def test_encode_moves_rejects_rows_of_no_kind():
    # a row of kind 200 was encoded as its cards
    """Rows of any kind (200, a SINGLE of two cards, a PAIR with a wrong rank) were
    encoded as their cards: they are an IllegalMoveError."""
    with pytest.raises(IllegalMoveError, match=r"moves\[0\].*kind 200"):
        encode_moves(_row(200, 0, 1, Hand("3")))
    with pytest.raises(IllegalMoveError, match="not a legal move of any built-in"):
        encode_moves(_row(1, 0, 1, Hand("34")))
    with pytest.raises(IllegalMoveError):
        encode_moves(_row(2, 3, 1, Hand("33")))   # PAIR 33 claiming the rank of 6


def test_encode_moves_checks_wild():
    """A row's wild field was encoded as given, even where no W is played: it must be
    the one its identity derives."""
    ml = legal_moves("33W", None, "super").array
    assert encode_moves(ml).shape == (len(ml), 77)
    bad = ml.copy()
    i = int(np.nonzero(bad["wild"] != 255)[0][0])
    bad["wild"][i] = 5
    with pytest.raises(IllegalMoveError, match=rf"moves\[{i}\].*derives wild"):
        encode_moves(bad)
    no_w = ml.copy()
    no_w["wild"][0] = 0                       # a plain single claiming W as 3
    with pytest.raises(IllegalMoveError, match="derives wild 255"):
        encode_moves(no_w)
    # a zeroed row is PASS with wild 0, not the core's PASS (wild 255)
    with pytest.raises(IllegalMoveError):
        encode_moves(np.zeros(1, MOVE_DTYPE))
    assert encode_moves(_row(0, 0, 0, 0)).sum() == 0


def test_encode_moves_rules():
    """encode_moves checked no rule set: a row must be legal in the one named, in its
    MoveList's, or else in a built-in one."""
    wild = legal_moves("33W", None, "super")
    encode_moves(wild.array)                   # legal in a built-in set
    encode_moves(wild)                         # a MoveList: its own rule set
    with pytest.raises(IllegalMoveError, match="'classic'"):
        encode_moves(wild.array, rules="classic")
    custom = ddzfast.get_rules("classic").with_options(kinds=("SINGLE", "PAIR"))
    with pytest.raises(IllegalMoveError):
        encode_moves(legal_moves("333", None, "classic"), rules=custom)
    assert encode_moves(legal_moves("33", None, custom)).shape == (2, 77)


def test_mask_of_garbage_rows_raises():
    """legal_action_mask of a garbage row (kind 33) set a real action's bit: it is an
    IllegalMoveError."""
    with pytest.raises(IllegalMoveError):
        legal_action_mask(_row(33, 0, 1, Hand("3")), "classic")


# ---- laizi: a table per wild rank ---------------------------------------------

def test_action_index_per_wild_rank():
    from ddzfast import features as F
    moves = legal_moves(LAIZI_BIG, None, L7)
    idx = F.action_index(moves, L7)
    assert len(set(idx.tolist())) == len(moves)
    assert F.legal_action_mask(moves, L7).sum() == len(moves)
    table = F.action_moves(L7)
    assert np.array_equal(table[idx]["cards"], moves.array["cards"])
    assert F.action_count(L7) > 1_000_000
    with pytest.raises(ValueError, match="wild rank"):
        F.action_count("laizi")


def test_encode_hands_refuses_mappings_and_sets():
    """Regression (a user's review): encode_hands({1: 2}) encoded the key 1."""
    for bad in ({1: 2}, {1, 2}):
        with pytest.raises(TypeError, match="has no order"):
            ddzfast.encode_hands(bad)


def test_the_action_table_cannot_be_made_writable():
    """action_moves() handed out the array owning the cached table: setting
    its WRITEABLE flag back let a caller rewrite a row, and every later
    lookup and Game.play_action of the process read the forged row."""
    table = action_moves("classic")
    assert_never_writable(table)
    assert not action_moves("classic").flags.writeable
    assert action_moves("classic")[1].tobytes() == table[1].tobytes()
    moves = ddzfast.legal_moves("3")
    assert list(action_moves("classic")[action_index(moves)]["cards"]) == \
        list(moves.array["cards"])


def test_decode_hands_reads_a_wide_float_as_it_is():
    """A longdouble 1 + 2**-60 decoded as a 1: it was rounded to float64
    before the check that every value is 0 or 1."""
    near_one = np.longdouble(1) + np.longdouble(2) ** -60
    if near_one == 1:
        pytest.skip("this platform's longdouble is float64")
    f = np.eye(1, HAND_FEATURES, dtype=np.longdouble)
    assert decode_hands(f).tolist() == decode_hands(f.astype(np.float64)).tolist()
    with pytest.raises(ValueError, match="other than 0 and 1"):
        decode_hands(f * near_one)


def test_a_table_being_built_does_not_stall_the_others(monkeypatch):
    """Regression (a user's review): one lock was held through a table's
    build (seconds for tiandi), so a thread asking for another table, one
    already built, waited for it. Two threads asking for the same new table
    still build it once."""
    import threading
    from collections import OrderedDict
    from ddzfast import features
    monkeypatch.setattr(features, "_action_tables", OrderedDict())
    monkeypatch.setattr(features, "_action_keys", {})
    features.action_moves("classic")
    real, builds = features._build_action_table, []
    started, release = threading.Event(), threading.Event()

    def held_build(r):
        builds.append(r)
        started.set()
        release.wait(60)
        return real(r)

    monkeypatch.setattr(features, "_build_action_table", held_build)
    banned = ddzfast.get_rules("classic").without_kinds("TRIPLE_PAIR")
    builders = [threading.Thread(target=features.action_moves, args=(banned,))
                for _ in range(2)]
    for t in builders:
        t.start()
    assert started.wait(60)
    other = threading.Thread(target=features.action_moves, args=("classic",))
    other.start()
    other.join(30)
    stalled = other.is_alive()
    release.set()
    for t in builders + [other]:
        t.join(60)
    assert not stalled and len(builds) == 1
    assert len(features.action_moves(banned)) < len(features.action_moves("classic"))


# module-level locks of caches built on first use, each with a call that
# takes it: (what to import, the lock, the call, what it needs installed)
FORK_LOCKS = {
    "action table build": ("from ddzfast import features, get_rules\n"
                           "from ddzfast._locks import ForkSafeLock",
                           "features._build_locks.setdefault("
                           "features._moves_key(get_rules('laizi:4')), ForkSafeLock())",
                           "features.action_moves('laizi:4')", None),
    "action table cache": ("from ddzfast import features", "features._action_lock",
                           "features.action_moves('classic')", None),
    "numba handles": ("import ddzfast.numba as nb", "nb._PIN_LOCK",
                      "nb.rules_handle('classic')", "numba"),
    "rlcard ids": ("import ddzfast.compat.rlcard as rl", "rl._lock",
                   "rl.rlcard_actions()", "rlcard"),
}


@pytest.mark.parametrize("case", sorted(FORK_LOCKS))
def test_a_child_of_fork_takes_a_lock_another_thread_held(run_python, case):
    """A fork while another thread held a module's lock (an action table
    or RLCard's ids being built, a Numba handle being pinned) copied it,
    held, into the child, where no thread would release it: every later
    call that takes it waited for ever (the user review of 2026-12-05 for
    the action tables, the lifecycle review of 2026-12-06 for RLCard's ids).
    The child gets each lock back unheld."""
    imports, lock, call, needs = FORK_LOCKS[case]
    if needs is not None and importlib.util.find_spec(needs) is None:
        pytest.skip(f"needs {needs}")
    code = imports + "\n" + textwrap.dedent(f"""
        import os, signal, threading
        lock = {lock}
        taken, done = threading.Event(), threading.Event()
        def hold():
            with lock:
                taken.set()
                done.wait()
        holder = threading.Thread(target=hold)
        holder.start()
        taken.wait()
        pid = os.fork()
        if pid == 0:
            signal.alarm(30)                 # (a hang ends the child, not the run)
            {call}
            os._exit(0)
        _, status = os.waitpid(pid, 0)
        done.set()
        holder.join()
        {call}
        print("child status", os.waitstatus_to_exitcode(status))
    """)
    result = run_python(code=code, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "child status 0" in result.stdout
