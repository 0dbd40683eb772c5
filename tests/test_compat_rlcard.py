"""ddzfast.compat.rlcard: RLCard's action ids both ways. Every id and every
mappable classic move round-trips; the unmappable moves are exactly the
classic moves with both jokers as kickers; on random hands RLCard's own
judge lists the same plays as ddzfast. Skipped, saying why, when RLCard is
not installed (the ``rlcard`` extra)."""
import importlib.util

import numpy as np
import pytest

if importlib.util.find_spec("rlcard") is None:
    pytest.skip('needs RLCard: pip install "ddzfast[rlcard]"', allow_module_level=True)

import ddzfast  # noqa: E402
from ddzfast import IllegalMoveError, Move, MoveKind, action_count, action_moves  # noqa: E402
from ddzfast.compat import rlcard as rl  # noqa: E402
from ddzfast.constants import CARD_CHARS, IDX_D, IDX_X  # noqa: E402
from helpers import assert_never_writable  # noqa: E402

CLASSIC = action_moves("classic")


def _move(row) -> Move:
    return Move(int(row["kind"]), int(row["rank"]), int(row["length"]), int(row["cards"]),
                rules="classic")


def _rlcard_text(cards) -> str:
    return "".join(cards).replace("X", "B").replace("D", "R") if len(cards) else "pass"


def _texts(rows) -> list:
    return [_rlcard_text(str(ddzfast.Hand(int(c)))) for c in rows["cards"]]


def test_every_mappable_move_round_trips():
    table = rl.action_to_rlcard()
    assert table.shape == (action_count("classic"),)
    mappable = np.flatnonzero(table >= 0)
    ids = rl.to_rlcard(CLASSIC[mappable])
    np.testing.assert_array_equal(ids, table[mappable])
    # each id is RLCard's string of exactly the move's cards
    actions = rl.rlcard_actions()
    assert [actions[i] for i in ids] == _texts(CLASSIC[mappable])
    for index, i in zip(mappable, ids):
        assert index in rl.rlcard_to_actions(i)
    for index in mappable[::97]:                 # Move objects too, on a sample
        move = _move(CLASSIC[index])
        assert move in rl.rlcard_moves(rl.to_rlcard(move))


def test_every_rlcard_id_round_trips():
    actions = rl.rlcard_actions()
    table = rl.action_to_rlcard()
    assert len(actions) == 27472 and actions[-1] == "pass"
    seen = []
    counts = {}
    for i in range(len(actions)):
        indices = rl.rlcard_to_actions(i)
        assert len(indices), f"RLCard id {i} ({actions[i]}) has no ddzfast move"
        assert (table[indices] == i).all()
        assert set(_texts(CLASSIC[indices])) == {actions[i]}
        counts[len(indices)] = counts.get(len(indices), 0) + 1
        seen.extend(indices.tolist())
    # the ids partition the mappable actions
    assert sorted(seen) == np.flatnonzero(table >= 0).tolist()
    # nine card sets read as three moves each: the four-trio planes
    assert counts == {1: len(actions) - 9, 3: 9}
    assert rl.from_rlcard(len(actions) - 1).kind == MoveKind.PASS
    assert rl.from_rlcard(actions.index("BR")).kind == MoveKind.ROCKET
    assert str(rl.from_rlcard(actions.index("3334")).cards) == "3334"


def _kickers(row) -> list:
    counts = [(int(row["cards"]) >> (4 * i)) & 15 for i in range(16)]
    if MoveKind(int(row["kind"])) == MoveKind.PLANE_SINGLES:
        for i in range(int(row["rank"]), int(row["rank"]) + int(row["length"])):
            counts[i] -= 3
    return counts


def test_the_unmappable_moves_break_rlcards_kicker_rules():
    bad = rl.unmappable_moves()
    assert len(bad) == 2894
    reasons = {}
    for n, row in enumerate(bad):
        kind = MoveKind(int(row["kind"])).name
        k = _kickers(row)
        lo, hi = int(row["rank"]) - 1, int(row["rank"]) + int(row["length"])
        if k[IDX_X] and k[IDX_D]:
            reason = "both jokers"
        elif max(k) == 4:
            assert kind == "PLANE_SINGLES"
            reason = "four cards of one rank"
        else:
            assert kind == "PLANE_SINGLES"
            assert any(0 <= r < 12 and k[r] == 3 for r in (lo, hi))
            reason = "three cards of the rank next to"
        reasons[(kind, reason)] = reasons.get((kind, reason), 0) + 1
        if n % 25 == 0 or kind == "FOUR_SINGLES":
            with pytest.raises(ValueError, match=reason):
                rl.to_rlcard(row)
    assert reasons == {("FOUR_SINGLES", "both jokers"): 13,
                       ("PLANE_SINGLES", "both jokers"): 1476,
                       ("PLANE_SINGLES", "four cards of one rank"): 657,
                       ("PLANE_SINGLES", "three cards of the rank next to"): 748}
    # no mappable move breaks those rules but the 18 three-trio readings of
    # a four-trio plane's cards
    table = rl.action_to_rlcard()
    odd = 0
    for row in CLASSIC[table >= 0]:
        if MoveKind(int(row["kind"])).name not in ("FOUR_SINGLES", "PLANE_SINGLES"):
            continue
        k = _kickers(row)
        assert not (k[IDX_X] and k[IDX_D])
        if MoveKind(int(row["kind"])) == MoveKind.PLANE_SINGLES:
            assert max(k) < 4
            lo, hi = int(row["rank"]) - 1, int(row["rank"]) + int(row["length"])
            if any(0 <= r < 12 and k[r] == 3 for r in (lo, hi)):
                odd += 1
                assert int(row["length"]) == 3
    assert odd == 18
    with pytest.raises(ValueError, match="both jokers"):
        rl.to_rlcard(CLASSIC)
    with pytest.raises(ValueError, match="FOUR_SINGLES 3333XD"):
        rl.to_rlcard(ddzfast.legal_moves("3333XD"))


def test_rlcards_judge_lists_the_same_plays():
    # RLCard's own list of the plays a hand can lead (its judge, imported
    # from the installed package) against ddzfast's legal moves through the
    # id map: equal, but for the moves RLCard has no id for.
    judger = pytest.importorskip("rlcard.games.doudizhu.judger")
    actions = rl.rlcard_actions()
    index = {a: i for i, a in enumerate(actions)}
    rng = np.random.default_rng(9)
    deck = np.array(list(ddzfast.constants.deck_text(False)))
    table = rl.action_to_rlcard()
    for trial in range(300):
        size = int(rng.integers(1, 21))
        # RLCard's judge reads a hand sorted by rank, as RLCard keeps hands
        hand = "".join(sorted(rng.choice(deck, size, replace=False), key=CARD_CHARS.index))
        theirs = {index[s] for s in judger.DoudizhuJudger.playable_cards_from_hand(
            hand.replace("X", "B").replace("D", "R"))}
        legal = ddzfast.legal_moves(hand, None, "classic")
        idx = ddzfast.action_index(legal, "classic")
        ours = set(table[idx][table[idx] >= 0].tolist())
        assert ours == theirs, hand


def test_from_rlcard_with_the_legal_moves():
    actions = rl.rlcard_actions()
    plane = actions.index("444555666777")
    readings = rl.rlcard_moves(plane)
    assert {m.kind.name for m in readings} == {"PLANE", "PLANE_SINGLES"}
    with pytest.raises(ValueError, match="reads as 3 moves"):
        rl.from_rlcard(plane)
    hand = "444555666777893"
    lead = ddzfast.legal_moves(hand)
    assert rl.from_rlcard(plane, lead) in readings
    follow = ddzfast.legal_moves(hand, Move.parse("PLANE/3/4/333444555666"))
    chosen = rl.from_rlcard(plane, follow)
    assert chosen.kind.name == "PLANE" and chosen in follow
    with pytest.raises(IllegalMoveError, match="not legal here"):
        rl.from_rlcard(actions.index("22"), lead)
    for seed in range(5):
        legal = ddzfast.Game("classic", seed, bidding=False).legal_moves()
        for m in legal:
            try:
                i = rl.to_rlcard(m)
            except ValueError:
                assert m in rl.unmappable_moves().tolist() or "X" in str(m.cards)
                continue
            chosen = rl.from_rlcard(i, legal)
            assert chosen == m or (len(rl.rlcard_moves(i)) > 1 and chosen.cards == m.cards)


def test_bad_input():
    with pytest.raises(IndexError):
        rl.rlcard_moves(27472)
    with pytest.raises(IndexError):
        rl.from_rlcard(-1)
    with pytest.raises(TypeError):
        rl.from_rlcard(True)
    with pytest.raises(TypeError):
        rl.from_rlcard("33")
    with pytest.raises(TypeError):
        rl.to_rlcard("33")
    with pytest.raises(TypeError):
        rl.from_rlcard(0, ["3"])
    with pytest.raises(ValueError, match="classic"):
        rl.from_rlcard(0, ddzfast.legal_moves("33", None, "super"))
    with pytest.raises(IllegalMoveError):
        rl.to_rlcard(ddzfast.legal_moves("333W", None, "super").array)


def test_from_rlcard_takes_what_to_rlcard_takes():
    """Regression (audit of the compat layers): from_rlcard refused the
    legal moves of "classic+happy" (platform options change no move), which
    to_rlcard took. Both ask one question: does the list's rule set make
    classic's moves."""
    happy = ddzfast.legal_moves("3344", None, "classic+happy")
    ids = rl.to_rlcard(happy)
    assert [rl.from_rlcard(int(i), happy) for i in ids] == list(happy)
    other = ddzfast.legal_moves("3344", None, "super")
    for call in (lambda: rl.to_rlcard(other), lambda: rl.from_rlcard(int(ids[0]), other)):
        with pytest.raises(ValueError, match="classic"):
            call()


def test_missing_rlcard_says_what_to_install(monkeypatch):
    monkeypatch.setattr(rl.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ImportError, match=r'pip install "ddzfast\[rlcard\]"'):
        rl._read_action_list()


def test_a_folder_named_rlcard_is_not_taken_for_it(monkeypatch, tmp_path):
    """Regression (the extras review of 2026-12-06): a folder named rlcard
    on the path (a clone never installed) was read as the package, and the
    first call failed with FileNotFoundError on its data file. It is an
    ImportError saying what it is and what to install, as import_optional
    says of other extras."""
    from importlib.machinery import PathFinder
    (tmp_path / "rlcard").mkdir()
    monkeypatch.setattr(rl.importlib.util, "find_spec",
                        lambda name: PathFinder.find_spec(name, [str(tmp_path)]))
    with pytest.raises(ImportError, match=r"rlcard is a folder .*rlcard\), not the package: "
                                          r"pip install 'ddzfast\[rlcard\]'"):
        rl._read_action_list()


def test_laizi_moves_are_rejected():
    """RLCard plays the classic rules: a laizi move (a laizi kind, or laizi
    standing for another rank) and a MoveList of a laizi rule set are a
    ValueError saying so; a laizi hand's moves that are classic moves are
    not looked at one by one."""
    moves = ddzfast.legal_moves(ddzfast.Hand("3777"), None, "laizi:7")
    with pytest.raises(ValueError, match="classic"):
        rl.to_rlcard(moves)
    for m in moves:
        if int(m.substitutes) or m.kind in (MoveKind.SOFT_BOMB, MoveKind.LAIZI_BOMB):
            with pytest.raises(ValueError, match="laizi move"):
                rl.to_rlcard(m)
    rows = moves.array
    with pytest.raises(ValueError, match=r"moves\[2\].*laizi move"):
        rl.to_rlcard(rows)
    # PAIR 77 reads alike in both: the classic id
    pair = next(m for m in moves if str(m) == "PAIR 77")
    assert rl.to_rlcard(pair) == rl.to_rlcard(Move("PAIR", 4, 1, "77", rules="classic"))
    game = ddzfast.Game("laizi", seed=2, bidding=False)
    with pytest.raises(ValueError, match="classic"):
        rl.from_rlcard(0, game.legal_moves())


def test_an_array_of_more_than_one_dimension_is_refused():
    """Regression (a user's review): to_rlcard of a (2, 2) array of moves
    returned four ids, flattened; action_index refuses it."""
    rows = ddzfast.legal_moves("3344556677").array[:4].reshape(2, 2)
    with pytest.raises(ValueError, match=r"1-d \(or one row\), not of shape \(2, 2\)"):
        rl.to_rlcard(rows)


def test_the_id_table_cannot_be_made_writable():
    """action_to_rlcard() handed out the array owning the cached table: its
    WRITEABLE flag could be set back and every later to_rlcard forged."""
    assert_never_writable(rl.action_to_rlcard())
