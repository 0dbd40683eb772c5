"""Exact legal-move counts of fixed positions (tests/perft/, copied from an
independent reference), like a chess engine's perft, for every rule set of
tests/helpers.RULE_SETS (a laizi rule set reads the laizi file, whose
positions name their wild ranks). A mismatch prints a
"divide": the moves missing from and extra in the core's list."""
import json
import os

import pytest

import ddzfast
from helpers import RULE_SETS

HERE = os.path.join(os.path.dirname(__file__), "perft")


def _positions(rules):
    """The perft positions of a rule set's family, as (index, rules, hand,
    last, count), and the file's total. The laizi file (RULES.md section 8)
    names a wild rank in each position: every laizi rule set reads all of
    them, each with its own wild rank; the tiandi file (section 9) names a
    pair in each, read the same way."""
    if ddzfast.get_rules(rules).wild_count == 2:
        return _wild_positions("tiandi", 300)
    if ddzfast.get_rules(rules).laizi:
        return _wild_positions("laizi", 320)
    with open(os.path.join(HERE, f"{rules}.txt")) as f:
        lines = f.read().splitlines()
    total = None
    positions = []
    for line in lines:
        if line.startswith("# total"):
            total = int(line.split()[2])
        elif line and not line.startswith("#"):
            index, r, hand, last, count = line.split()
            assert r == rules
            positions.append((int(index), rules, hand, None if last == "-" else last,
                              int(count)))
    return positions, total


def _wild_positions(family, count):
    """A laizi-family perft file: each line "index family wild... hand last
    count", the wild ranks (one for laizi, sky and ground for tiandi) in
    columns of their own, read as the rule set "family:<ranks>"."""
    positions, total = [], None
    with open(os.path.join(HERE, f"{family}.txt")) as f:
        for line in f.read().splitlines():
            words = line.split()
            if words and words[0] == "total":
                total = int(words[1])
            elif words and not words[0].startswith("#"):
                index, name, *wild, hand, last, moves = words
                assert name == family and len(wild) == (2 if family == "tiandi" else 1)
                positions.append((int(index), f"{family}:{''.join(wild)}", hand,
                                  None if last == "-" else last, int(moves)))
    assert len(positions) == count
    return positions, total


def _move_lists(rules):
    """The full move lists of the family's -moves.json: (hand, last move,
    rules, expected identities as (kind, r, n, card text), count)."""
    laizi = ddzfast.get_rules(rules).laizi
    family = ("tiandi" if ddzfast.get_rules(rules).wild_count == 2 else "laizi" if laizi
              else rules)
    with open(os.path.join(HERE, f"{family}-moves.json")) as f:
        data = json.load(f)
    assert data["positions"]
    if laizi:
        assert len(data["positions"]) == {"laizi": 60, "tiandi": 50}[family]
    out = []
    for p in data["positions"]:
        if laizi:
            name = (f"tiandi:{p['sky_rank']}{p['ground_rank']}" if family == "tiandi"
                    else f"laizi:{p['laizi_rank']}")
            last = None if p["last"] == "-" else ddzfast.Move.parse(p["last"], name)
            # the reference writes PASS with r = -1
            expected = {("PASS", 0, 0, "") if m[0] == "PASS" else tuple(m) for m in p["moves"]}
        else:
            name = rules
            last = ddzfast.Move(*p["last"]) if p["last"] else None
            expected = {tuple(m) for m in p["moves"]}
        out.append((p["hand"], last, name, expected, p["count"]))
    return out


def _divide(hand, last, rules, expected_moves=None):
    got = ddzfast.legal_moves(hand, last, rules)
    text = [f"{rules} {hand} last={last}: {len(got)} moves"]
    if expected_moves is not None:
        g = {(m.kind.name, m.rank, m.length, str(m.cards)) for m in got}
        text.append(f"missing: {sorted(expected_moves - g)}")
        text.append(f"extra: {sorted(g - expected_moves)}")
    else:
        by_kind = {}
        for m in got:
            by_kind[m.kind.name] = by_kind.get(m.kind.name, 0) + 1
        text.append(f"per kind: {by_kind}")
    return "\n".join(text)


def _check_counts(positions, total):
    """Every position's legal-move count (index, rules, hand, last, count) and
    their sum; a mismatch is reported with its divide."""
    seen = 0
    failures = []
    for index, rules, hand, last, count in positions:
        last_move = ddzfast.Move.parse(last, rules) if last else None
        n = len(ddzfast.legal_moves(hand, last_move, rules))
        seen += n
        if n != count:
            failures.append(f"#{index} expected {count}\n" + _divide(hand, last_move, rules))
    assert not failures, "\n\n".join(failures[:10])
    assert seen == total


@pytest.mark.parametrize("rules", RULE_SETS)
def test_perft_counts(rules):
    positions, total = _positions(rules)
    assert positions and total is not None
    _check_counts(positions, total)


@pytest.mark.parametrize("rules", RULE_SETS)
def test_perft_move_lists(rules):
    failures = []
    for hand, last, name, expected, count in _move_lists(rules):
        got = {(m.kind.name, m.rank, m.length, str(m.cards))
               for m in ddzfast.legal_moves(hand, last, name)}
        assert len(expected) == count
        if got != expected:
            failures.append(_divide(hand, last, name, expected))
    assert not failures, "\n\n".join(failures[:5])


@pytest.mark.parametrize("rules", RULE_SETS)
def test_perft_buffer_form_agrees(rules):
    import numpy as np
    positions, _ = _positions(rules)
    # tiandi positions of eight laizi have more moves than MOVE_BUFFER
    most = max(ddzfast.MOVE_BUFFER, max(p[-1] for p in positions))
    buf = np.empty(most, ddzfast.MOVE_DTYPE)
    for index, name, hand, last, count in positions:
        last_move = ddzfast.Move.parse(last, name) if last else None
        n = ddzfast.legal_moves_into(int(ddzfast.Hand(hand)), last_move, name, buf)
        assert n == count, f"#{index} {hand}"
        assert np.array_equal(buf[:n], ddzfast.legal_moves(hand, last_move, name).array)
