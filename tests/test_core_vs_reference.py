"""The fast core against the pure-Python reference (tests/oracles/reference.py), move
for move, on thousands of random small hands of every rule set, leading and
following, with and without W."""
import random

import pytest

import ddzfast
from oracles import reference
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
        assert set(got) == expected, (
            f"{rules} {hand}: missing {sorted(expected - set(got))[:5]}, "
            f"extra {sorted(set(got) - expected)[:5]}")
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
        expected = ref.legal_moves(counts, last)
        got = [identity(m) for m in ddzfast.legal_moves(hand, core_move(last, rules), rules)]
        assert len(got) == len(set(got))
        assert set(got) == expected, (
            f"{rules} {hand} after {last}: missing {sorted(expected - set(got))[:5]}, "
            f"extra {sorted(set(got) - expected)[:5]}")
        checked_follow += 1
    assert checked_follow > HANDS_PER_RULE_SET // 2


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
