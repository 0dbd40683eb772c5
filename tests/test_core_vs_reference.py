"""The fast core against the pure-Python references (tests/oracles/:
reference.py for the classic family, reference_laizi.py for laizi), move for
move, on thousands of random small hands of every rule set of
helpers.RULE_SETS, leading and following, with and without W, and on hands
of 17 and 20 cards dealt from each rule set's deck; and laizi over every
wild rank, substitutes included."""
import json
import os
import random

import pytest

import ddzfast
from oracles import reference
from oracles import reference_laizi as RL
from helpers import DECKS, RULE_SETS, core_move, identity, reference_for

HANDS_PER_RULE_SET = 2000


def _random_hand(rng, rules):
    """A small random hand; a third of them 'dense' (pairs, triples, fours)."""
    deck = DECKS[rules]
    size = rng.randint(1, 9)
    if rng.random() < 0.35:
        ranks = rng.sample("3456789TJQKA2", rng.randint(1, 4))
        cards = "".join(r * rng.randint(2, 4) for r in ranks)
        extra = "".join(rng.sample(deck, rng.randint(0, 3)))
        text = cards + extra
    else:
        text = "".join(rng.sample(deck, size))
    counts = [0] * 16
    for ch in text:
        i = ddzfast.CARD_CHARS.index(ch)
        counts[i] = min(counts[i] + 1, 4 if i < 13 else 1)
    if DECKS[rules].endswith("W") and rng.random() < 0.5:
        counts[15] = 1
    return ddzfast.Hand(sum(c << (4 * i) for i, c in enumerate(counts)))


def _listed(hand, last, rules):
    """The identities of the core's legal moves (asserting none comes twice)."""
    got = [identity(m) for m in ddzfast.legal_moves(
        hand, None if last is None else core_move(last, rules), rules)]
    assert len(got) == len(set(got)), f"{rules} {hand}: an identity listed twice"
    return set(got)


def _assert_listed_equal(got, expected, rules, hand, last):
    """The core's identities `got` are the reference's `expected`."""
    assert got == expected, (
        f"{rules} {hand}{'' if last is None else f' after {last}'}: missing "
        f"{sorted(expected - got)[:5]}, extra {sorted(got - expected)[:5]}")


@pytest.mark.parametrize("rules", RULE_SETS)
def test_leading_and_following_equal_reference(rules):
    rng = random.Random(f"core-vs-reference-{rules}")
    ref = reference_for(rules)
    laizi = ddzfast.get_rules(rules).laizi
    checked_follow = 0
    for _ in range(HANDS_PER_RULE_SET):
        hand = _random_hand(rng, rules)
        counts = hand.counts
        expected = ref.legal_moves(counts, None)
        core = ddzfast.legal_moves(hand, None, rules)
        got = [identity(m) for m in core]
        assert len(got) == len(set(got)), f"duplicate identity in {hand}"
        if len(hand) == 0:
            assert got == []
            continue
        _assert_listed_equal(set(got), expected, rules, hand, None)
        # wild is descriptive but must agree with the reference's reading
        # (laizi plays no W: its substitutes are checked in the laizi tests below)
        for m in core if not laizi else ():
            assert m.wild == reference.wild_of(identity(m), rules), (rules, hand, m)

        # follow a move of another random hand
        other = _random_hand(rng, rules)
        options = [m for m in ref.legal_moves(other.counts, None)
                   if m[0] != "PASS"]
        if not options:
            continue
        last = rng.choice(sorted(options))
        _assert_listed_equal(_listed(hand, last, rules), ref.legal_moves(counts, last),
                             rules, hand, last)
        checked_follow += 1
    assert checked_follow > HANDS_PER_RULE_SET // 2


GAME_SIZE_DEALS = 4


@pytest.mark.parametrize("rules", RULE_SETS)
def test_game_size_hands_equal_reference(rules):
    """Hands of 17 and 20 cards dealt from the rule set's deck (a farmer's
    and the landlord's at the start of a deal), leading and following a
    move of the next 17 cards of the same deck (a bomb when it has one, every
    other time): the random hands above are small."""
    rng = random.Random(f"game-size-{rules}")
    ref = reference_for(rules)
    for deal in range(GAME_SIZE_DEALS):
        for size in (17, 20):
            deck = list(DECKS[rules])
            rng.shuffle(deck)
            hand = ddzfast.Hand("".join(deck[:size]))
            other = ddzfast.Hand("".join(deck[size:size + 17]))
            lasts = sorted(m for m in ref.legal_moves(other.counts, None) if m[0] != "PASS")
            bombs = [m for m in lasts if ref.tier(m)]
            last = rng.choice(bombs if bombs and deal % 2 else lasts)
            for prev in (None, last):
                _assert_listed_equal(_listed(hand, prev, rules),
                                     ref.legal_moves(hand.counts, prev), rules, hand, prev)


@pytest.mark.parametrize("rules", RULE_SETS)
def test_classify_equals_reference(rules):
    """Every sub-multiset of random hands classified by both."""
    rng = random.Random(f"classify-{rules}")
    ref = reference_for(rules)
    for _ in range(300):
        hand = _random_hand(rng, rules)
        for sub in reference.sub_multisets(hand.counts):
            cards = sum(c << (4 * i) for i, c in enumerate(sub))
            got = {identity(m) for m in ddzfast.classify(cards, rules)}
            expected = ref.classify(sub)
            if sum(sub) == 0:
                expected = expected | {ref.PASS}
            assert got == expected, (rules, ddzfast.Hand(cards))


@pytest.mark.parametrize("rules", RULE_SETS)
def test_beats_equals_reference(rules):
    rng = random.Random(f"beats-{rules}")
    ref = reference_for(rules)
    pool = []
    for _ in range(60):
        pool.extend(ddzfast.legal_moves(_random_hand(rng, rules), None, rules))
    pool = [m for m in pool if m.kind != ddzfast.MoveKind.PASS]
    for _ in range(20000):
        m, p = rng.choice(pool), rng.choice(pool)
        assert ddzfast.beats(m, p, rules) == ref.beats(identity(m), identity(p))


# ===========================================================================
# laizi against its reference (tests/oracles/reference_laizi.py), move for
# move, over every wild rank:
#
# * every count of tests/perft/laizi.txt and every list of laizi-moves.json;
# * random hands of every wild rank with one to four laizi, leading and
#   following a random legal move of another hand: the same identities, each
#   once, and ``Move.substitutes`` equal to the reference's reading (the laizi
#   of the main part standing for another rank; a laizi standing for ``L``
#   itself is not a substitute: ``345677`` with ``L = 7`` has ``8``);
# * ``classify`` and ``beats`` on random cards and move pairs;
# * hands without laizi: exactly the ``classic`` moves (BOMB for a natural
#   four), leading and following, with no substitutes.
# ===========================================================================

PERFT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "perft")
RANKS = "3456789TJQKA2"
DECK = RANKS * 4 + "XD"
HANDS_PER_RANK_AND_LAIZI = 30     # x 13 wild ranks x 4 laizi counts, lead + follow


def laizi_rules(L):
    """The core's laizi rule set with wild rank ``L`` (index or character)."""
    return ddzfast.get_rules("laizi").with_options(wild_rank=RANKS[RL.wild_index(L)])


def core_hand(counts):
    return ddzfast.Hand(sum(c << (4 * i) for i, c in enumerate(counts)))


def core_subst(move):
    """Move.substitutes as 13 counts over ranks 3..2."""
    counts = move.substitutes.counts
    assert not any(counts[13:]), f"{move}: a laizi stands for a joker or W"
    return tuple(counts[:13])


def expected_subst(subst, L):
    # The core records only laizi standing for another rank (a laizi standing
    # for L itself is not a substitute); the reference counts both.
    s = list(subst)
    s[L] = 0
    return tuple(s)


def random_laizi_hand(rng, L, n_laizi, max_other=8):
    """``n_laizi`` cards of rank L and up to ``max_other`` other cards; a third
    'dense' (pairs, triples and fours of a few ranks)."""
    pool = [c for c in DECK if c != RANKS[L]]
    if rng.random() < 0.35:
        ranks = rng.sample([q for q in RANKS if q != RANKS[L]], rng.randint(1, 3))
        other = "".join(q * rng.randint(1, 4) for q in ranks)
        other += "".join(rng.sample(pool, rng.randint(0, 2)))
    else:
        other = "".join(rng.sample(pool, rng.randint(0, max_other)))
    counts = [0] * 16
    for ch in other:
        i = RL.CARD_CHARS.index(ch)
        counts[i] = min(counts[i] + 1, 4 if i < 13 else 1)
    while sum(counts) > max_other:
        i = rng.choice([q for q in range(15) if counts[q]])
        counts[i] -= 1
    counts[L] = n_laizi
    return tuple(counts)


def compare(counts, last, L, rules, where):
    """Core vs reference for one position: identities and substitutes."""
    expected = RL.legal_moves_subst(counts, last, L)
    last_move = core_move(last, rules) if last is not None else None
    got = ddzfast.legal_moves(core_hand(counts), last_move, rules)
    ids = [identity(m) for m in got]
    assert len(ids) == len(set(ids)), f"{where}: an identity listed twice"
    if set(ids) != set(expected):
        missing = sorted(RL.move_text(m) for m in set(expected) - set(ids))
        extra = sorted(RL.move_text(m) for m in set(ids) - set(expected))
        pytest.fail(f"{where}: hand {RL.cards_text(counts)} L={RANKS[L]} last="
                    f"{RL.move_text(last) if last else '-'}\n"
                    f"only the reference: {missing[:20]}\nonly the core: {extra[:20]}")
    for m in got:
        want = expected_subst(expected[identity(m)], L)
        assert core_subst(m) == want, (
            f"{where}: hand {RL.cards_text(counts)} L={RANKS[L]} {m}: substitutes "
            f"{RL.subst_text(core_subst(m))!r}, reference {RL.subst_text(want)!r}")
    return expected


# ---------------------------------------------------------------------------
# Perft
# ---------------------------------------------------------------------------

def _perft_rows():
    rows = []
    with open(os.path.join(PERFT_DIR, "laizi.txt")) as f:
        for line in f:
            words = line.split()
            if words and words[0] != "total":
                idx, _, L, hand, last, count = words
                rows.append((int(idx), L, hand, last, int(count)))
    return rows


def test_laizi_perft_counts_against_the_reference():
    failures = []
    for idx, L, hand, last, count in _perft_rows():
        rules = laizi_rules(L)
        last_move = None if last == "-" else ddzfast.Move.parse(last, rules)
        got = ddzfast.legal_moves(hand, last_move, rules)
        if len(got) != count:
            ref = RL.legal_moves(RL.parse_cards(hand), RL.parse_last(last), L)
            ids = {identity(m) for m in got}
            failures.append(
                f"#{idx} L={L} {hand} last={last}: core {len(got)}, expected {count}; "
                f"only the reference {sorted(RL.move_text(m) for m in ref - ids)[:10]}, "
                f"only the core {sorted(RL.move_text(m) for m in ids - ref)[:10]}")
    assert not failures, "\n".join(failures[:10])


def test_laizi_perft_move_lists_against_the_reference():
    with open(os.path.join(PERFT_DIR, "laizi-moves.json")) as f:
        positions = json.load(f)["positions"]
    for pos in positions:
        L = RL.wild_index(pos["laizi_rank"])
        last = RL.parse_last(pos["last"])
        compare(RL.parse_cards(pos["hand"]), last, L, laizi_rules(L),
                f"laizi-moves.json {pos['hand']}")


# ---------------------------------------------------------------------------
# Random hands
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("n_laizi", [1, 2, 3, 4])
def test_laizi_random_hands_every_wild_rank(n_laizi):
    rng = random.Random(f"laizi-vs-reference-{n_laizi}")
    for L in range(13):
        rules = laizi_rules(L)
        for i in range(HANDS_PER_RANK_AND_LAIZI):
            counts = random_laizi_hand(rng, L, n_laizi)
            compare(counts, None, L, rules, f"lead #{i}")
            compare(counts, random_laizi_last(rng, L), L, rules, f"follow #{i}")


def random_laizi_last(rng, L):
    """A move of another random laizi hand (a bomb now and then)."""
    options = []
    while not options:
        other = random_laizi_hand(rng, L, rng.randint(0, 4))
        options = sorted(RL.all_moves(other, L))
    bombs = [m for m in options if RL.tier(m)]
    if bombs and rng.random() < 0.2:
        return rng.choice(bombs)
    return rng.choice(options)


def test_laizi_game_size_hands():
    """Hands of 17 and 20 cards holding one to four laizi of a random wild
    rank, leading and following (the random hands above have at most 12)."""
    rng = random.Random("laizi-game-size")
    for size in (17, 20):
        for n_laizi in range(1, 5):
            L = rng.randrange(13)
            counts = [0] * 16
            counts[L] = n_laizi
            others = [i for i in range(15) if i != L]
            while sum(counts) < size:
                i = rng.choice(others)
                counts[i] = min(counts[i] + 1, 4 if i < 13 else 1)
            counts = tuple(counts)
            rules = laizi_rules(L)
            compare(counts, None, L, rules, f"lead of {size}")
            compare(counts, random_laizi_last(rng, L), L, rules, f"follow of {size}")


def test_laizi_classify_and_beats_every_wild_rank():
    rng = random.Random("laizi-classify-beats")
    for L in range(13):
        rules = laizi_rules(L)
        moves = []
        for _ in range(60):
            cards = random_laizi_hand(rng, L, rng.randint(0, 4), max_other=6)
            # no cards: the core reads PASS, as in every rule set
            expected = RL.classify(cards, L) if sum(cards) else {RL.PASS}
            got = ddzfast.classify(core_hand(cards), rules)
            ids = [identity(m) for m in got]
            assert len(ids) == len(set(ids)) and set(ids) == expected, (
                RL.cards_text(cards), RANKS[L], sorted(map(RL.move_text, expected)),
                sorted(map(RL.move_text, ids)))
            moves.extend(m for m in got if m.kind.name != "PASS")
        for _ in range(300):
            a, b = rng.choice(moves), rng.choice(moves)
            assert ddzfast.beats(a, b, rules) == RL.beats(identity(a), identity(b)), (
                RANKS[L], str(a), str(b))


def test_a_laizi_rule_set_needs_a_wild_rank():
    with pytest.raises(ValueError):
        ddzfast.legal_moves("3777", None, "laizi")


# ---------------------------------------------------------------------------
# Without laizi: classic
# ---------------------------------------------------------------------------

def test_hands_without_laizi_give_the_classic_moves():
    rng = random.Random("laizi-no-laizi-core")
    for i in range(1500):
        L = rng.randrange(13)
        rules = laizi_rules(L)
        pool = [c for c in DECK if c != RANKS[L]]
        hand = "".join(rng.sample(pool, rng.randint(1, 20)))
        classic = ddzfast.legal_moves(hand, None, "classic")
        got = ddzfast.legal_moves(hand, None, rules)
        assert sorted(map(identity, got)) == sorted(map(identity, classic)), (hand, L)
        assert all(not any(m.substitutes.counts) for m in got)
        # follow a classic move of another hand without laizi
        other = ddzfast.legal_moves("".join(rng.sample(pool, rng.randint(1, 17))),
                                    None, "classic")
        last = other[rng.randrange(len(other))]
        want = ddzfast.legal_moves(hand, last, "classic")
        got = ddzfast.legal_moves(hand, ddzfast.Move(last.kind, last.rank, last.length,
                                                     int(last.cards), rules=rules), rules)
        assert sorted(map(identity, got)) == sorted(map(identity, want)), (hand, str(last), L)
