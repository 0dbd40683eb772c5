"""legal_moves_batch equals per-hand legal_moves, with 1 and 2 threads."""
import random

import numpy as np
import pytest

import ddzfast
from ddzfast import MOVE_DTYPE, Hand, legal_moves, legal_moves_batch
from ddzfast._engine import _simulate_native
from helpers import DECKS, RULE_SETS, os_threads, survives_a_writer, threads_back_to


def _positions(rules, n, seed):
    rng = random.Random(seed)
    hands, lasts = [], np.zeros(n, MOVE_DTYPE)
    for i in range(n):
        hand = ddzfast.Hand("".join(rng.sample(DECKS[rules], rng.choice([1, 9, 17, 20]))))
        hands.append(int(hand))
        if rng.random() < 0.5:
            other = legal_moves("".join(rng.sample(DECKS[rules], 17)), None, rules).array
            lasts[i] = other[rng.randrange(len(other))]
    return np.array(hands, dtype=np.uint64), lasts


@pytest.mark.parametrize("rules", RULE_SETS)
@pytest.mark.parametrize("threads", [1, 2])
def test_batch_equals_per_hand(rules, threads):
    hands, lasts = _positions(rules, 1500, f"batch-{rules}")
    offsets, moves = legal_moves_batch(hands, lasts, rules, threads=threads)
    assert offsets.dtype == np.int64 and moves.dtype == MOVE_DTYPE
    assert offsets[0] == 0 and offsets[-1] == len(moves) and len(offsets) == len(hands) + 1
    for i, (h, last) in enumerate(zip(hands, lasts)):
        expected = legal_moves(int(h), None if last["kind"] == 0 else last, rules).array
        assert np.array_equal(moves[offsets[i]:offsets[i + 1]], expected), i
    lead_offsets, lead_moves = legal_moves_batch(hands, None, rules, threads=threads)
    for i in range(0, len(hands), 97):
        assert np.array_equal(lead_moves[lead_offsets[i]:lead_offsets[i + 1]],
                              legal_moves(int(hands[i]), None, rules).array)


@pytest.mark.parametrize("rules", RULE_SETS)
@pytest.mark.parametrize("threads", [1, 2])
def test_batch_into_out_equals_a_new_batch(rules, threads):
    hands, lasts = _positions(rules, 400, f"batch-out-{rules}")
    offsets, moves = legal_moves_batch(hands, lasts, rules, threads=threads)
    total = len(moves)
    # exactly large enough, then with room to spare (scratch, as documented)
    for room in (0, 1000):
        out = np.zeros(total + room, MOVE_DTYPE)
        got_offsets, got = legal_moves_batch(hands, lasts, rules, threads=threads, out=out)
        assert np.array_equal(got_offsets, offsets)
        assert np.array_equal(got, moves)
        assert len(got) == total and np.shares_memory(got, out)
    # the same buffer again: the same moves
    got_offsets, got = legal_moves_batch(hands, lasts, rules, threads=threads, out=out)
    assert np.array_equal(got, moves) and np.array_equal(got_offsets, offsets)


@pytest.mark.parametrize("rules", RULE_SETS)
@pytest.mark.parametrize("threads", [1, 2])
def test_batch_into_a_small_out_says_how_many_moves(rules, threads):
    hands, lasts = _positions(rules, 200, f"batch-small-out-{rules}")
    total = len(legal_moves_batch(hands, lasts, rules)[1])
    for size in (0, 1, total // 2, total - 1):
        with pytest.raises(ValueError, match=f"out holds {size} moves but these positions "
                                             f"have {total} legal moves"):
            legal_moves_batch(hands, lasts, rules, threads=threads,
                              out=np.zeros(size, MOVE_DTYPE))


def test_batch_out_is_checked():
    hands = np.array([int(Hand("334"))], np.uint64)
    for bad, error in [([0] * 8, TypeError), (np.zeros(8, np.int64), TypeError),
                       (np.zeros((2, 4), MOVE_DTYPE), ValueError),
                       (np.zeros(16, MOVE_DTYPE)[::2], ValueError)]:
        with pytest.raises(error, match="out"):
            legal_moves_batch(hands, out=bad)
    frozen = np.zeros(8, MOVE_DTYPE)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="writable"):
        legal_moves_batch(hands, out=frozen)
    # an out over the positions' own memory is refused before anything is written
    lasts = np.zeros(64, MOVE_DTYPE)
    with pytest.raises(ValueError, match="shares memory"):
        legal_moves_batch(np.full(64, int(Hand("334")), np.uint64), lasts, out=lasts)
    raw = np.zeros(64 * 16, np.uint8)
    packed = raw[:8].view(np.uint64)
    packed[0] = int(Hand("334"))
    with pytest.raises(ValueError, match="shares memory"):
        legal_moves_batch(packed, out=raw.view(MOVE_DTYPE))
    assert packed[0] == int(Hand("334")) and (raw[8:] == 0).all()
    # beside the hands, not over them: allowed
    offsets, moves = legal_moves_batch(packed, out=raw[16:].view(MOVE_DTYPE))
    assert packed[0] == int(Hand("334")) and len(moves) == offsets[-1] > 0


def test_batch_grows_its_buffers_for_huge_positions():
    deck = ddzfast.Hand(DECKS["biegang"])
    offsets, moves = legal_moves_batch([deck, deck, ddzfast.Hand("34")], None, "biegang",
                                       threads=2)
    n = len(legal_moves(deck, None, "biegang"))
    assert list(np.diff(offsets)) == [n, n, 2]


def test_batch_inputs():
    offsets, moves = legal_moves_batch([], None, "classic")
    assert list(offsets) == [0] and len(moves) == 0
    assert len(legal_moves_batch([ddzfast.Hand("33")], rules="classic")[1]) == 2
    with pytest.raises(ValueError, match=r"hands\[1\].*5 of '3'"):
        legal_moves_batch([1, 5], None, "classic")
    with pytest.raises(ValueError, match=r"hands\[0\].*wildcard"):
        legal_moves_batch([int(ddzfast.Hand("W", rules="super"))], None, "classic")
    with pytest.raises(ValueError, match="negative"):
        legal_moves_batch(np.array([-1]), None, "classic")
    with pytest.raises(ValueError, match="1-d"):
        legal_moves_batch(np.zeros((2, 2), np.uint64), None, "classic")
    with pytest.raises(TypeError):
        legal_moves_batch(np.zeros(2, np.float64), None, "classic")
    with pytest.raises(ValueError, match="lasts has 1 rows for 2 hands"):
        legal_moves_batch([1, 1], np.zeros(1, MOVE_DTYPE), "classic")
    with pytest.raises(TypeError, match="MOVE_DTYPE"):
        legal_moves_batch([1], np.zeros(1, np.int64), "classic")
    bad = np.zeros(1, MOVE_DTYPE)
    bad["kind"], bad["length"], bad["cards"] = 2, 1, int(ddzfast.Hand("34"))
    with pytest.raises(ValueError, match=r"lasts\[0\].*not a legal move"):
        legal_moves_batch([1], bad, "classic")
    with pytest.raises(ValueError, match="threads"):
        legal_moves_batch([1], None, "classic", threads=0)


# ---- resources: regressions of the hardening review ---------------------------

def test_a_batch_of_many_small_positions_fits_its_result():
    # 30 million one-card hands: 458 MiB of moves; a first guess of 64 moves
    # a position (29 GiB) used to fail with MemoryError
    """A batch of 30 million one-card hands failed with MemoryError (a first guess of
    64 moves a position): the result fits what it needs."""
    hands = np.full(30_000_000, int(Hand("3")), dtype=np.uint64)
    offsets, moves = legal_moves_batch(hands)
    assert len(moves) == 30_000_000 and offsets[-1] == 30_000_000
    assert moves["cards"][-1] == int(Hand("3"))


def test_threads_beyond_the_machine_are_not_started():
    """threads=MAX_THREADS started more threads than the machine has, and more were
    accepted: they are capped, and beyond it refused."""
    before = os_threads()
    hands = np.full(100, int(Hand("33")), dtype=np.uint64)
    offsets, moves = legal_moves_batch(hands, threads=ddzfast.MAX_THREADS)
    assert len(moves) == 200
    rows = _simulate_native("classic", ("random",) * 3, 1, 0, 50, True,
                            ddzfast.MAX_THREADS)
    assert np.array_equal(rows, _simulate_native("classic", ("random",) * 3, 1, 0, 50, True))
    assert threads_back_to(before) <= before
    with pytest.raises(ValueError):
        legal_moves_batch(hands, threads=ddzfast.MAX_THREADS + 1)


def test_another_thread_writing_the_positions_cannot_crash_a_batch(run_python):
    """Regression (a user's review): a batch checked the caller's hands and
    lasts and then read them again without the GIL (the generator re-read
    each last move many times), so another thread writing them handed the
    tiandi generator fifteen cards of a rank (a stack overflow) or made its
    passes disagree (negative counts, a write before out). The batches read
    copies of their own, and the generator reads the move to beat once."""
    survives_a_writer(run_python, """
        import numpy as np
        import ddzfast as d
        rules = "tiandi:7J"
        good = int(d.Hand("7777JJJJ3"))
        bad = good | (0xF << 16) | (0xF << 32)          # fifteen 7s and fifteen Js
        hands = np.full(64, good, np.uint64)
        rocket = d.legal_moves("3XD", None, rules)[-1].array
        plane = [m for m in d.legal_moves("3334449T", None, rules)
                 if m.text == "PLANE_SINGLES/3/2/3334449T"][0].array
        lasts = np.repeat(np.array([plane]), 8)
        follow = [int(d.Hand("33445566777JJJ89TQ"))] * 8
    """, """
        hands[:] = bad
        hands[:] = good
        lasts[:] = rocket
        lasts[:] = plane
    """, """
        for call in (lambda: d.legal_moves_batch(hands, None, rules),
                     lambda: d.legal_action_indices_batch(hands, None, rules),
                     lambda: d.legal_moves_batch(follow, lasts, rules,
                                                 out=np.zeros(0, d.MOVE_DTYPE))):
            try:
                call()
            except ValueError:          # a position copied while it was bad
                pass
    """, rounds=1000)
