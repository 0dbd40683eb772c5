"""Exact legal-move counts of fixed positions (tests/perft/, copied from an
independent reference), like a chess engine's perft. A mismatch prints a
"divide": the moves missing from and extra in the core's list."""
import json
import os

import pytest

import ddzfast
from helpers import RULE_NAMES

HERE = os.path.join(os.path.dirname(__file__), "perft")


def _positions(rules):
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
            positions.append((int(index), hand, None if last == "-" else last, int(count)))
    return positions, total


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


@pytest.mark.parametrize("rules", RULE_NAMES)
def test_perft_counts(rules):
    positions, total = _positions(rules)
    assert positions and total is not None
    _check_counts([(index, rules, hand, last, count)
                   for index, hand, last, count in positions], total)


@pytest.mark.parametrize("rules", RULE_NAMES)
def test_perft_move_lists(rules):
    with open(os.path.join(HERE, f"{rules}-moves.json")) as f:
        data = json.load(f)
    assert data["positions"]
    failures = []
    for p in data["positions"]:
        last = ddzfast.Move(*p["last"]) if p["last"] else None
        expected = {tuple(m) for m in p["moves"]}
        got = {(m.kind.name, m.rank, m.length, str(m.cards))
               for m in ddzfast.legal_moves(p["hand"], last, rules)}
        assert len(expected) == p["count"]
        if got != expected:
            failures.append(_divide(p["hand"], last, rules, expected))
    assert not failures, "\n\n".join(failures[:5])


@pytest.mark.parametrize("rules", RULE_NAMES)
def test_perft_buffer_form_agrees(rules):
    import numpy as np
    buf = np.empty(4096, ddzfast.MOVE_DTYPE)
    positions, _ = _positions(rules)
    for index, hand, last, count in positions:
        last_move = ddzfast.Move.parse(last) if last else None
        n = ddzfast.legal_moves_into(int(ddzfast.Hand(hand)), last_move, rules, buf)
        assert n == count, f"#{index} {hand}"
        assert np.array_equal(buf[:n], ddzfast.legal_moves(hand, last_move, rules).array)


# ---- laizi (RULES.md section 8): each position names its wild rank ---------------

def _laizi_positions():
    positions, total = [], None
    with open(os.path.join(HERE, "laizi.txt")) as f:
        for line in f.read().splitlines():
            words = line.split()
            if words and words[0] == "total":
                total = int(words[1])
            elif words:
                index, name, wild, hand, last, count = words
                assert name == "laizi"
                positions.append((int(index), f"laizi:{wild}", hand,
                                  None if last == "-" else last, int(count)))
    return positions, total


def test_laizi_perft_counts():
    positions, total = _laizi_positions()
    assert len(positions) == 320 and total is not None
    _check_counts(positions, total)


def test_laizi_perft_move_lists():
    with open(os.path.join(HERE, "laizi-moves.json")) as f:
        data = json.load(f)
    assert len(data["positions"]) == 60
    failures = []
    for p in data["positions"]:
        rules = f"laizi:{p['laizi_rank']}"
        last = None if p["last"] == "-" else ddzfast.Move.parse(p["last"], rules)
        # the reference writes PASS with r = -1
        expected = {("PASS", 0, 0, "") if m[0] == "PASS" else tuple(m) for m in p["moves"]}
        got = {(m.kind.name, m.rank, m.length, str(m.cards))
               for m in ddzfast.legal_moves(p["hand"], last, rules)}
        assert len(expected) == p["count"]
        if got != expected:
            failures.append(_divide(p["hand"], last, rules, expected))
    assert not failures, "\n\n".join(failures[:5])


def test_laizi_perft_buffer_form_agrees():
    import numpy as np
    buf = np.empty(4096, ddzfast.MOVE_DTYPE)
    positions, _ = _laizi_positions()
    for index, rules, hand, last, count in positions:
        last_move = ddzfast.Move.parse(last, rules) if last else None
        n = ddzfast.legal_moves_into(int(ddzfast.Hand(hand)), last_move, rules, buf)
        assert n == count, f"#{index} {hand}"
        assert np.array_equal(buf[:n], ddzfast.legal_moves(hand, last_move, rules).array)
