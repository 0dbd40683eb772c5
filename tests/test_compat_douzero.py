"""ddzfast.compat.douzero against DouZero's own environment.

DouZero is installed with ``pip install --no-deps douzero``. Its environment
(douzero.env: env.py, game.py and the move modules) needs only numpy, so the
comparison runs without torch, which only DouZero's training code (douzero.dmc)
and its evaluation agents need; the tests are skipped only when DouZero itself
is missing.

Equality is checked array for array: for the same deals and the same actions,
every step's observation (position, x_no_action, z, and for each legal action
its x_batch and z_batch rows) equals DouZero's get_obs, and the rewards, done
flags and infos of step are DouZero's. DouZero may list a card set more than
once among its legal actions (equal rows); those duplicates are dropped for
the comparison: ddzfast lists each card set once, and the sets must be equal.
"""

import os
import random
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# skipped when DouZero itself is missing; an installed DouZero whose
# environment fails to import is an error, not a skip
pytest.importorskip(
    "douzero",
    reason="DouZero is not installed (pip install --no-deps douzero); its "
           "environment needs only numpy, torch is not needed")
import douzero.env.env as dz_env  # noqa: E402

from oracles import douzero_adapter as dza  # noqa: E402

import ddzfast  # noqa: E402
from ddzfast.compat import douzero as cdz  # noqa: E402

N_EPISODES = int(os.environ.get("DDZ_DOUZERO_EPISODES", "30"))
N_LEGAL = int(os.environ.get("DDZ_DOUZERO_LEGAL", "400"))


def _key(action):
    return tuple(sorted(action))


def assert_same_obs(ours, theirs, where):
    assert ours["position"] == theirs["position"], where
    for k in ("x_no_action", "z"):
        a, b = ours[k], theirs[k]
        assert a.dtype == b.dtype and a.shape == b.shape, (where, k, a.dtype, a.shape)
        assert np.array_equal(a, b), (where, k, np.nonzero(a != b))
    legal = [_key(a) for a in ours["legal_actions"]]
    assert len(set(legal)) == len(legal), (where, "duplicate legal actions")
    assert all(list(k) == a for k, a in zip(legal, ours["legal_actions"])), \
        (where, "legal actions are sorted card lists")
    first = {}
    for j, a in enumerate(theirs["legal_actions"]):
        first.setdefault(_key(a), j)
    assert set(legal) == set(first), (
        where, "legal actions differ",
        sorted(set(legal) - set(first))[:5], sorted(set(first) - set(legal))[:5])
    n = len(legal)
    for k, width in (("x_batch", theirs["x_batch"].shape[1]), ("z_batch", None)):
        assert ours[k].dtype == theirs[k].dtype == np.float32, (where, k)
        assert ours[k].shape[0] == n and ours[k].shape[1:] == theirs[k].shape[1:], \
            (where, k, ours[k].shape)
    order = [first[k] for k in legal]
    assert np.array_equal(ours["x_batch"], theirs["x_batch"][order]), (where, "x_batch")
    assert np.array_equal(ours["z_batch"], theirs["z_batch"][order]), (where, "z_batch")


def play_both(seed, choose, objective):
    """One deal in both environments from np.random.seed(seed), comparing
    every step; returns the positions that acted and the step count."""
    np.random.seed(seed)
    ours_env = cdz.Env(objective)
    ours = ours_env.reset()
    np.random.seed(seed)
    theirs_env = dz_env.Env(objective)
    theirs = theirs_env.reset()
    rng = random.Random(seed)
    seen = set()
    step = 0
    while True:
        assert_same_obs(ours, theirs, (seed, step))
        seen.add(theirs["position"])
        action = choose(rng, theirs["legal_actions"])
        ours, r1, d1, i1 = ours_env.step(list(action))
        theirs, r2, d2, i2 = theirs_env.step(action)
        step += 1
        assert (r1, d1, i1) == (r2, d2, i2), (seed, step)
        assert type(r1) is type(r2) is float
        if d2:
            assert ours is None and theirs is None
            assert ours_env._game_winner == theirs_env._game_winner
            assert ours_env._game_bomb_num == theirs_env._game_bomb_num
            return seen, step
        assert ours_env._acting_player_position == theirs_env._acting_player_position


CHOOSERS = {
    "random": lambda rng, legal: rng.choice(legal),
    "first": lambda rng, legal: legal[0],
    "largest": lambda rng, legal: max(legal, key=len),
    # bombs and the rocket whenever there is one, so bomb counts grow
    "bomb": lambda rng, legal: next((a for a in legal if len(a) == 4 and len(set(a)) == 1
                                     or a == [20, 30]), rng.choice(legal)),
}


@pytest.mark.parametrize("mode", sorted(CHOOSERS))
def test_episodes_match_douzero(mode):
    seen = set()
    steps = 0
    for i in range(N_EPISODES):
        objective = cdz.OBJECTIVES[i % 3]
        s, n = play_both(1000 * len(mode) + i, CHOOSERS[mode], objective)
        seen |= s
        steps += n
    assert seen == set(cdz.POSITIONS)
    assert steps >= 3 * N_EPISODES


def test_reset_deals_as_douzero():
    for seed in range(20):
        np.random.seed(seed)
        env = cdz.Env("wp")
        env.reset()
        np.random.seed(seed)
        theirs = dz_env.Env("wp")
        theirs.reset()
        after_theirs = np.random.randint(1 << 30)
        for pos in cdz.POSITIONS:
            assert env.game.hand(pos) == theirs._env.info_sets[pos].player_hand_cards
        # both drew the same random numbers from the global state
        np.random.seed(seed)
        env.reset()
        assert np.random.randint(1 << 30) == after_theirs


def test_private_properties_before_a_reset_are_douzeros():
    """Regression (an input review): before its first reset DouZero's Env
    has no acting position (None) and its deal is not over; ours said
    'landlord'."""
    ours, theirs = cdz.Env("wp"), dz_env.Env("wp")
    assert ours._acting_player_position is theirs._acting_player_position is None
    assert ours._game_over is theirs._game_over is False
    ours.reset()
    assert ours._acting_player_position == "landlord"


def test_reset_from_card_play_data():
    rng = random.Random(5)
    for _ in range(10):
        deck = list(cdz.DECK)
        rng.shuffle(deck)
        data = {"landlord": sorted(deck[:20]), "landlord_up": sorted(deck[20:37]),
                "landlord_down": sorted(deck[37:]), "three_landlord_cards": sorted(deck[17:20])}
        env = cdz.Env("logadp")
        ours = env.reset({k: list(v) for k, v in data.items()})
        game = dz_env.GameEnv({p: dz_env.DummyAgent(p) for p in cdz.POSITIONS})
        game.card_play_init({k: list(v) for k, v in data.items()})
        assert_same_obs(ours, dz_env.get_obs(game.game_infoset), "card_play_data")
        assert env.game.hand("landlord_up") == data["landlord_up"]


def test_duplicates_are_dropped():
    # DouZero lists 333444555666 as a plane and as a plane with kickers, and
    # repeats kicker choices drawn from equal cards
    hand = [3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6, 7, 7, 8, 8]
    theirs = dza.douzero_legal_moves(hand, [])
    ours = cdz.legal_actions(hand)
    assert len(theirs) > len({_key(a) for a in theirs})
    assert len(ours) == len({_key(a) for a in ours}) == len({_key(a) for a in theirs})


def _rivals(rng):
    """Moves DouZero lets a leader play, its odd readings among them."""
    deck = list(cdz.DECK)
    rng.shuffle(deck)
    leader, follower = sorted(deck[:20]), sorted(deck[20:37])
    moves = dza.douzero_legal_moves(leader, [])
    return follower, moves


def test_legal_actions_match_douzero():
    rng = random.Random(99)
    checked = 0
    kinds = set()
    for _ in range(N_LEGAL):
        follower, moves = _rivals(rng)
        rival = rng.choice(moves)
        rival_type = dza.douzero_move_type(dza.douzero_to_text(rival))["type"]
        kinds.add(rival_type)
        theirs = {_key(a) for a in dza.douzero_legal_moves(follower, list(rival))}
        ours = cdz.legal_actions(follower, rival)
        assert len(ours) == len({_key(a) for a in ours})
        assert {_key(a) for a in ours} == theirs, (follower, rival)
        assert ours[-1] == []
        checked += 1
        # leading too
        lead_theirs = {_key(a) for a in dza.douzero_legal_moves(follower, [])}
        assert {_key(a) for a in cdz.legal_actions(follower, [])} == lead_theirs
    assert checked == N_LEGAL and len(kinds) >= 8


@pytest.mark.parametrize("rival, follower_has, follower_lacks", [
    # a plane with a kicker triple reads as the plane 3-5 but ranks as its
    # highest triple (8): the plane 4-6 with small kickers does not beat it
    ([3, 3, 3, 4, 4, 4, 5, 5, 5, 8, 8, 8], None,
     [4, 4, 4, 5, 5, 5, 6, 6, 6, 9, 10, 11]),
    # a 16-card plane with a triple among its kickers is a "wrong" type:
    # only bombs, the rocket and pass answer it
    ([3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6, 7, 7, 7, 8], [], None),
    # the rocket: only pass
    ([20, 30], [], None),
])
def test_douzero_quirks(rival, follower_has, follower_lacks):
    hand = [4, 4, 4, 5, 5, 5, 6, 6, 6, 9, 10, 11, 12, 12, 12, 12, 13]
    theirs = {_key(a) for a in dza.douzero_legal_moves(hand, rival)}
    ours = cdz.legal_actions(hand, rival)
    assert {_key(a) for a in ours} == theirs
    if follower_has is not None:
        assert follower_has in ours
    if follower_lacks is not None:
        assert follower_lacks not in ours
    if rival != [20, 30] and len(rival) == 16:
        assert sorted(ours, key=len) == [[], [12, 12, 12, 12]]


# ---- conversions ---------------------------------------------------------

def test_conversions_round_trip():
    assert cdz.to_douzero("33TXD") == [3, 3, 10, 20, 30]
    assert cdz.from_douzero([30, 3, 17, 3]) == ddzfast.Hand("332D")
    assert cdz.from_douzero([]) == ddzfast.Hand(0)
    assert cdz.to_douzero(ddzfast.Hand(0)) == []
    rng = random.Random(3)
    deck = "".join(c * 4 for c in "3456789TJQKA2") + "XD"
    for _ in range(200):
        hand = ddzfast.Hand("".join(rng.sample(deck, rng.randint(0, 20))))
        lists = cdz.to_douzero(hand)
        assert lists == sorted(lists)
        assert cdz.from_douzero(lists) == hand
        assert cdz.from_douzero(rng.sample(lists, len(lists))) == hand
        assert dza.douzero_to_text(lists) == str(hand)
        moves = ddzfast.legal_moves(hand, None, "classic")
        many = cdz.to_douzero(moves)
        assert many == [cdz.to_douzero(m) for m in moves]
        assert many == cdz.to_douzero(moves.array)
        assert many == cdz.to_douzero(moves.array["cards"])
        packed = cdz.from_douzero(many)
        if len(many):
            assert packed.dtype == np.uint64
            assert np.array_equal(packed, moves.array["cards"])
    assert cdz.to_douzero(["3", ddzfast.Hand("XD"), ""]) == [[3], [20, 30], []]
    assert cdz.DECK == tuple(dz_env.deck)


@pytest.mark.parametrize("bad", [[15], [3, 3, 3, 3, 3], [20, 20], [31], [-3], [2],
                                 [1 << 70]])
def test_bad_cards_raise_value_error(bad):
    with pytest.raises(ValueError):
        cdz.from_douzero(bad)
    with pytest.raises(ValueError):
        cdz.legal_actions(bad)
    with pytest.raises(ValueError):
        cdz.legal_actions([3, 4, 5], bad)
    with pytest.raises(ValueError):
        cdz.from_douzero([[3], bad])


@pytest.mark.parametrize("bad", ["345", 3, None, [3.0], [True], [[3], "4"]])
def test_bad_types_raise_type_error(bad):
    with pytest.raises(TypeError):
        cdz.from_douzero(bad)


def test_one_move_row_and_the_name_of_a_bad_list():
    """Regressions (audit of the compat layers): to_douzero of one MOVE_DTYPE
    row (an np.void) was a TypeError, though to_rlcard takes one; and
    from_douzero([[3], 4]) called the bad list actions[1], not cards[1]."""
    rows = ddzfast.legal_moves("3345", None, "classic").array
    assert [cdz.to_douzero(row) for row in rows] == cdz.to_douzero(rows)
    laizi_row = next(r for r in ddzfast.legal_moves("3777", None, "laizi:7").array
                     if r["substitutes"])
    with pytest.raises(ValueError, match="laizi move"):
        cdz.to_douzero(laizi_row)
    with pytest.raises(TypeError, match=r"cards\[1\]"):
        cdz.from_douzero([[3], 4])


def test_to_douzero_rejects_what_douzero_cannot_hold():
    with pytest.raises(ValueError):
        cdz.to_douzero("W")           # DouZero has no wildcard
    with pytest.raises(ValueError):
        cdz.to_douzero(np.array([-1]))
    with pytest.raises(ValueError):
        cdz.to_douzero(np.array([0xF], dtype=np.uint64))   # 15 threes
    with pytest.raises(TypeError):
        cdz.to_douzero(np.array([1.0]))


def test_env_bad_input():
    with pytest.raises(ValueError):
        cdz.Env("win")
    env = cdz.Env("wp")
    # (a step before reset or after the deal's end was a RuntimeError, where
    # every other wrong-phase call of the package is a ValueError)
    with pytest.raises(ValueError, match="no deal yet"):
        env.step([3])
    np.random.seed(0)
    obs = env.reset()
    not_legal = [c for c in cdz.DECK if [c] not in obs["legal_actions"]][0]
    # (an action given as a generator was named [] once read)
    with pytest.raises(ddzfast.IllegalMoveError, match=rf"^\[{not_legal}\] is not"):
        env.step(c for c in [not_legal])
    with pytest.raises(ddzfast.IllegalMoveError):
        env.step([not_legal])
    with pytest.raises(ValueError):
        env.step([])                   # the landlord leads: no pass
    with pytest.raises(ValueError):
        env.step([99])
    with pytest.raises(TypeError):
        env.step("3")
    # the failed steps changed nothing
    assert env.game.history == []
    with pytest.raises(ValueError):
        env.reset({"landlord": [3, 3, 3, 3], "landlord_up": [3], "landlord_down": [4]})
    with pytest.raises(ValueError):
        env.reset({"landlord": [3]})
    with pytest.raises(ValueError):
        env.reset({"landlord": [3], "landlord_up": [], "landlord_down": [4]})
    with pytest.raises(ValueError):   # 18 cards: beyond DouZero's one-hot of 17
        env.reset({"landlord": [3], "landlord_up": list(cdz.DECK[4:22]),
                   "landlord_down": [3]})


def test_env_accepts_any_card_order_and_finishes():
    np.random.seed(11)
    env = cdz.Env("adp")
    obs = env.reset()
    done = False
    while not done:
        action = obs["legal_actions"][0]
        obs, reward, done, info = env.step(list(reversed(action)))
    assert reward in (1.0, -1.0) or abs(reward) >= 2.0
    assert info == {}
    with pytest.raises(ValueError, match="the deal is over"):
        env.step([])


def test_laizi_moves_are_rejected():
    """DouZero plays the classic rules: to_douzero rejects laizi moves and
    laizi MoveLists (their cards would read as another move) but converts a
    laizi move's cards, a Hand."""
    moves = ddzfast.legal_moves(ddzfast.Hand("3777"), None, "laizi:7")
    with pytest.raises(ValueError, match="classic"):
        cdz.to_douzero(moves)
    soft = next(m for m in moves if m.kind == ddzfast.MoveKind.SOFT_BOMB)
    with pytest.raises(ValueError, match="laizi move"):
        cdz.to_douzero(soft)
    with pytest.raises(ValueError, match="laizi move"):
        cdz.to_douzero(moves.array)
    with pytest.raises(ValueError, match="laizi move"):
        cdz.to_douzero([moves[0], soft])
    assert cdz.to_douzero(soft.cards) == [3, 7, 7, 7]


def _same_obs(a, b):
    assert a.keys() == b.keys()
    for k in a:
        if isinstance(a[k], np.ndarray):
            np.testing.assert_array_equal(a[k], b[k])
        else:
            assert a[k] == b[k], k


def _mid_deal():
    """A DouZero Env six plays into a deal, its last observation, and the
    random stream that chose those plays."""
    np.random.seed(3)
    env = cdz.Env("adp")
    obs = env.reset()
    rng = random.Random(4)
    for _ in range(6):
        obs, *_ = env.step(rng.choice(obs["legal_actions"]))
    return env, obs, rng


@pytest.mark.parametrize("copier", ["pickle", "deepcopy"])
def test_env_pickles_and_copies_mid_deal(copier):
    """Regression (a user's review): DouZero's Env, which docs/search.md
    lists among the environments that pickle, raised "self.s cannot be
    converted to a Python object for pickling"; a copy plays on as the
    original does."""
    import copy
    import pickle
    assert pickle.loads(pickle.dumps(cdz.Env("wp"))).objective == "wp"
    env, obs, rng = _mid_deal()
    twin = pickle.loads(pickle.dumps(env)) if copier == "pickle" else copy.deepcopy(env)
    a = b = obs
    done = False
    while not done:
        _same_obs(a, b)
        action = rng.choice(a["legal_actions"])
        a, ra, done, _ = env.step(action)
        b, rb, done_b, _ = twin.step(action)
        assert (ra, done) == (rb, done_b)


@pytest.mark.parametrize("copier", ["pickle", "copy", "deepcopy"])
def test_vec_env_says_it_is_not_copied(copier):
    """copy.copy made a second VecEnv over the same C deals (stepping one
    stepped both); pickle and deepcopy already said no."""
    import copy
    import pickle
    vec = cdz.VecEnv(2, "wp")
    copy_it = {"pickle": pickle.dumps, "copy": copy.copy, "deepcopy": copy.deepcopy}[copier]
    with pytest.raises(TypeError, match="douzero VecEnv is not pickled or copied"):
        copy_it(vec)


# ---- the user review of 2026-12-05 ------------------------------------------------

def test_to_douzero_refuses_a_list_of_ints():
    """to_douzero([3, 4]) read each DouZero card as a packed hand ([[3, 3, 3],
    [3, 3, 3, 3]]); a list of ints is a DouZero card list already."""
    for bad in ([3, 4], [17], ["3", 0], [np.uint64(3)]):
        with pytest.raises(TypeError, match="from_douzero"):
            cdz.to_douzero(bad)
    moves = ddzfast.legal_moves("3345")
    assert cdz.to_douzero([moves.array[1], moves[2].array]) == \
        [cdz.to_douzero(moves[1]), cdz.to_douzero(moves[2])]
    assert cdz.to_douzero(np.array([int(ddzfast.Hand("34"))], np.uint64)) == [[3, 4]]


def test_legal_actions_are_none_once_the_deal_is_over():
    """game.legal_actions still listed the winner's last actions after the
    end (and a pickle of the ended game listed none)."""
    import pickle
    env = cdz.Env("wp")
    env.reset({"landlord": [3, 3], "landlord_up": [5], "landlord_down": [6]})
    assert env.game.legal_actions == [[3], [3, 3]]
    assert env.step([3, 3])[2]
    assert env.game.legal_actions == [] and env.game.legal_packed.size == 0
    assert pickle.loads(pickle.dumps(env)).game.legal_actions == []
    assert cdz.Env("wp").game.legal_actions == []


def test_a_game_observed_in_one_thread_is_not_played_in_another():
    """observe() fills its batches without the GIL from the legal actions a
    play or deal from another thread rewrote meanwhile: torn observations,
    no error. Such a call is now a RuntimeError, and what observe returns
    is whole."""
    import threading
    import time
    deck = list(cdz.DECK)
    rich = {"landlord": deck[0:12] + deck[16:24], "landlord_up": deck[24:41],
            "landlord_down": deck[41:54] + deck[12:16]}
    env = cdz.Env("wp")
    env.reset(rich)
    stop = threading.Event()
    refused = []

    def redeal():
        while not stop.is_set():
            try:
                env.game.deal(rich["landlord"], rich["landlord_up"], rich["landlord_down"])
            except RuntimeError:
                refused.append(1)
                return

    other = threading.Thread(target=redeal)
    other.start()
    try:
        end = time.monotonic() + 10
        while not refused and time.monotonic() < end:
            obs = env.game.observe()
            assert len(obs["x_batch"]) == len(obs["legal_actions"])
    finally:
        stop.set()
        other.join()
    assert refused, "no deal was refused while observe ran"
