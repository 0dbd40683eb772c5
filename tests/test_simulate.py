"""Whole deals: invariants over thousands of deals in every rule set (every
move legal by the reference, cards conserved, zero-sum scores), determinism
across thread counts, Python policies, Ray equal to local, laizi's wild rank
drawn per deal, and every byte of a deal row."""
import ctypes
import random
import time

import numpy as np
import pytest

import ddzfast
from ddzfast import _engine
from ddzfast._engine import _score_row, _simulate_native
from ddzfast import DEAL_DTYPE, Game, deal_seed, simulate
from ddzfast.report import summarize
from ddzfast.simulate import play_deal
from helpers import DECKS, RULE_SETS, capi, dirty_the_stack, identity, reference_for

DEALS_CHECKED = 5000     # per rule set, every move checked by the reference
DEALS_NATIVE = 20000     # per rule set, row invariants


@pytest.mark.parametrize("rules", RULE_SETS)
def test_deals_follow_the_rules_move_by_move(rules):
    """Every move legal by the reference, turns, tricks, bidding and scores as
    an independent model of RULES.md 5-6 has them, cards conserved."""
    deck = ddzfast.Hand(DECKS[rules])
    factors = dict(ddzfast.get_rules(rules).description["multipliers"])
    cap = ddzfast.get_rules(rules).description["mult_cap"]
    rng = random.Random(rules)
    reference = reference_for(rules)
    for i in range(DEALS_CHECKED):
        policies = [rng.choice(["random", "greedy"]) for _ in range(3)]
        game = Game(rules, deal_seed(11, i), bidding=i % 2 == 0, first_bidder=i % 3)
        dealt = sum(game.hands, ddzfast.Hand())
        # without bidding the landlord (seat 0) already holds the kitty
        assert (dealt + game.kitty if game.phase == "bidding" else dealt) == deck
        # an independent model of RULES.md 5: bidding, turns and tricks
        bids = []
        while game.phase == "bidding":
            seat = (i % 3 + len(bids)) % 3
            assert game.to_move == seat
            points = game.policy_action(policies[seat])
            assert points == 0 or points > max([b for _, b in bids], default=0)
            game.bid(points)
            bids.append((seat, points))
            if points == 3:
                break
        if bids:
            top = max(b for _, b in bids)
            expected = ((i % 3, 1) if top == 0
                        else (next(s for s, b in bids if b == top), top))
            assert (game.landlord, game.base) == expected
        else:
            assert (game.landlord, game.base) == (0, 1)
        to_move, last, passes = game.landlord, None, 0
        played = [ddzfast.Hand() for _ in range(3)]
        moves_by = [0, 0, 0]
        mult = 1
        steps = 0
        while not game.done:
            assert (game.to_move, game.last_move) == (to_move, last)
            seat, hand = to_move, game.hands[to_move]
            move = game.policy_action(policies[seat])
            assert move in game.legal_moves()
            if move.kind == ddzfast.MoveKind.PASS:
                if last is None:     # only a hand of nothing but W passes a lead
                    assert hand.counts[:15] == (0,) * 15
                else:
                    passes += 1
                    if passes == 2:
                        last, passes = None, 0
            else:
                assert move.cards in hand
                assert identity(move) in reference.classify(move.cards.counts)
                if last is not None:
                    assert reference.beats(identity(move), identity(last))
                played[seat] = played[seat] + move.cards
                last, passes = move, 0
                moves_by[seat] += 1
                mult *= factors.get(move.kind.name, 1)
            game.play(move)
            to_move = (seat + 1) % 3
            steps += 1
            assert steps < 500
        assert sum(game.hands, ddzfast.Hand()) + sum(played, ddzfast.Hand()) == deck
        result = game.result
        assert len(game.hands[result.winner_seat]) == 0
        # RULES.md 6, computed apart
        landlord = game.landlord
        farmers = [s for s in range(3) if s != landlord]
        landlord_won = result.winner_seat == landlord
        spring = landlord_won and all(moves_by[s] == 0 for s in farmers)
        anti = not landlord_won and moves_by[landlord] == 1
        expected_mult = mult * (2 if spring or anti else 1)
        if cap:
            expected_mult = min(expected_mult, cap)
        unit = game.base * expected_mult * (1 if landlord_won else -1)
        expected = [-unit] * 3
        expected[landlord] = 2 * unit
        assert (result.spring, result.anti_spring) == (spring, anti)
        assert result.multiplier == expected_mult
        assert result.scores == tuple(float(x) for x in expected)


@pytest.mark.parametrize("rules", RULE_SETS)
def test_native_rows_are_consistent(rules):
    rows = simulate(DEALS_NATIVE, rules, ("greedy", "random", "greedy"), seed=5)
    assert rows.dtype == DEAL_DTYPE and len(rows) == DEALS_NATIVE
    assert np.all(rows["scores"].sum(axis=1) == 0)
    assert np.all((rows["landlord"] >= 0) & (rows["landlord"] <= 2))
    assert np.all((rows["base"] >= 1) & (rows["base"] <= 3))
    assert np.all(rows["multiplier"] >= 1) and np.all(rows["moves"] >= 1)
    assert np.all(rows["winner"][rows["spring"]] == 0)
    assert np.all(rows["winner"][rows["anti_spring"]] == 1)
    assert np.all(rows["first_bidder"] == np.arange(DEALS_NATIVE) % 3)
    landlord_score = rows["scores"][np.arange(DEALS_NATIVE), rows["landlord"]]
    sign = np.where(rows["winner"] == 0, 1, -1)
    assert np.all(landlord_score == sign * 2 * rows["base"] * rows["multiplier"])
    if rules == "super":
        assert rows["multiplier"].max() <= 24
    assert len(np.unique(rows["seed"])) == DEALS_NATIVE


@pytest.mark.parametrize("rules", RULE_SETS)
def test_native_equals_the_python_path(rules):
    policies = ("random", "greedy", "greedy")
    native = simulate(300, rules, policies, seed=8)
    r = ddzfast.get_rules(rules)
    python = np.array([play_deal(r, policies, deal_seed(8, i), i % 3) for i in range(300)],
                      dtype=DEAL_DTYPE)
    assert (python["session"] == -1).all()     # a Game knows no run index
    python["session"] = np.arange(300)
    assert np.array_equal(native, python)


def test_same_rows_whatever_the_thread_count_and_split():
    one = simulate(5000, "biegang", ("random", "greedy", "random"), seed=3, threads=1)
    two = simulate(5000, "biegang", ("random", "greedy", "random"), seed=3, threads=2)
    three = simulate(5000, "biegang", ("random", "greedy", "random"), seed=3, threads=3)
    assert np.array_equal(one, two) and np.array_equal(one, three)
    tail = simulate(1000, "biegang", ("random", "greedy", "random"), seed=3, start=4000)
    assert np.array_equal(one[4000:], tail)
    seen = []
    with_progress = simulate(5000, "biegang", ("random", "greedy", "random"), seed=3,
                             progress=seen.append)
    assert np.array_equal(one, with_progress) and seen[-1] == 5000


@pytest.mark.parametrize("policies", ["random", lambda game, legal: 0])
@pytest.mark.parametrize("threads", [1, 2])
def test_a_run_of_no_deal_still_reports_its_end(policies, threads):
    """Regression (a review of simulate): progress is called "last with
    games", but a run of 0 deals never called it, in simulate or in
    simulate_parts."""
    from ddzfast.simulate import simulate_parts
    seen = []
    assert len(simulate(0, "classic", policies, threads=threads, progress=seen.append)) == 0
    assert seen == [0]
    seen.clear()
    assert list(simulate_parts(0, "classic", policies, threads=threads,
                               progress=seen.append)) == []
    assert seen == [0]
    seen.clear()
    parts = list(simulate_parts(5, "classic", policies, threads=threads, part=2,
                                progress=seen.append))
    assert [len(p) for p in parts] == [2, 2, 1] and seen[-1] == 5


def test_python_callable_policies():
    rng = random.Random(0)
    calls = []

    def policy(game, legal):
        # the contract: an index into legal in both phases (or, while
        # playing, the Move itself)
        calls.append(game.phase)
        if game.phase == "bidding":
            return rng.randrange(len(legal))
        return rng.randrange(len(legal)) if rng.random() < 0.5 else legal[0]

    rows = simulate(40, "super", (policy, "greedy", "random"), seed=1)
    assert rows.dtype == DEAL_DTYPE and len(rows) == 40
    assert np.all(rows["scores"].sum(axis=1) == 0)
    assert "bidding" in calls and "play" in calls


def test_simulate_rejects_bad_arguments():
    with pytest.raises(ValueError, match="unknown policy"):
        simulate(10, "classic", ("random", "smart", "random"))
    with pytest.raises(ValueError, match="one policy or three"):
        simulate(10, "classic", ("random", "random"))
    with pytest.raises(ValueError, match="games"):
        simulate(-1)
    with pytest.raises(ValueError, match="threads"):
        simulate(10, threads=0)
    with pytest.raises(ValueError, match="backend"):
        simulate(10, backend="spark")
    with pytest.raises(ValueError, match="unknown rule set"):
        simulate(10, "poker")
    assert len(simulate(0)) == 0
    assert np.array_equal(simulate(50, policies="greedy", seed=2),
                          simulate(50, policies=("greedy",) * 3, seed=2))


def test_ray_backend_equals_local(ray_tmpdir):
    ray = pytest.importorskip("ray")
    try:
        rows = simulate(3000, "biegang", ("greedy", "random", "greedy"), seed=9,
                        backend="ray", tasks=5)
    finally:
        ray.shutdown()
    local = simulate(3000, "biegang", ("greedy", "random", "greedy"), seed=9)
    assert np.array_equal(rows, local)


def test_ray_backend_on_a_cluster_address(ray_tmpdir):
    """A Ray head started apart from this process (as on a cluster), reached
    through ray.init(address=...)."""
    ray = pytest.importorskip("ray")
    import shutil
    import socket
    import subprocess
    ray_cli = shutil.which("ray")
    if ray_cli is None:
        pytest.skip("the ray command is not on PATH")
    for attempt in range(2):
        # (on a loaded machine the head can time out starting: Ray's own
        # startup, not what is tested here, so it is given a second try)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        start = subprocess.run(
            [ray_cli, "start", "--head", "--num-cpus", "2", "--port", str(port),
             "--include-dashboard", "false", "--disable-usage-stats"],
            capture_output=True, text=True, timeout=180)
        if start.returncode == 0:
            break
        subprocess.run([ray_cli, "stop", "--force"], capture_output=True, timeout=180)
    assert start.returncode == 0, start.stderr
    try:
        rows = simulate(2000, "super", ("greedy", "random", "random"), seed=12,
                        backend="ray", address=f"127.0.0.1:{port}", tasks=3)
    finally:
        ray.shutdown()
        subprocess.run([ray_cli, "stop", "--force"], capture_output=True, timeout=180)
    assert np.array_equal(rows, simulate(2000, "super", ("greedy", "random", "random"),
                                         seed=12))


# ---- hardening: one contract for callable policies ---------------------------------

def _one_python_deal(policy, seed=0):
    """Play one deal with `policy` on seat 0 (greedy elsewhere), bidding."""
    return simulate(1, "classic", (policy, "greedy", "greedy"), seed=seed)


def test_callable_bid_is_an_index_into_legal():
    """A callable returning index 1 while bidding bids legal[1]. On the old
    code the 1 was taken as a bid of 1 point: wrong (or illegal) whenever
    legal is not [0, 1, 2, 3]."""
    from ddzfast.simulate import play_deal
    checked = 0
    for i in range(60):
        seen = []
        games = []

        def second_bid(game, legal):
            if game.phase == "bidding":
                seen.append(list(legal))
                games.append(game)
                return 1
            return 0

        play_deal("classic", (second_bid, "greedy", "greedy"), deal_seed(0, i), i % 3)
        if not seen:
            continue
        bids = [points for seat, points in games[0].bids if seat == 0]
        assert bids == [seen[0][1]]
        checked += seen[0] != [0, 1, 2, 3]
    assert checked > 0        # some deals had legal bids where index 1 != bid 1


def test_callable_bid_index_on_the_first_bid():
    """legal is [0, 1, 2, 3] on the first bid: index 3 bids 3; index 0 passes."""
    def bid_three(game, legal):
        return 3 if game.phase == "bidding" else 0

    rows = simulate(30, "classic", (bid_three,) * 3, seed=4)
    assert np.all(rows["base"] == 3)
    assert np.all(rows["landlord"] == rows["first_bidder"])


@pytest.mark.parametrize("answer, error, words", [
    (True, TypeError, "bool"),
    (False, TypeError, "bool"),
    (4, ValueError, "index 4"),
    (-1, ValueError, "index -1"),
    (1.0, TypeError, "float"),
    ("2", TypeError, "str"),
    (None, TypeError, "NoneType"),
])
def test_bad_bid_answers_name_the_seat_and_policy(answer, error, words):
    def bad_policy(game, legal):
        return answer

    with pytest.raises(error, match=words) as info:
        simulate(1, "classic", (bad_policy, "greedy", "greedy"), seed=0)
    assert "bad_policy" in str(info.value) and "seat 0" in str(info.value)


def test_bad_play_answers_name_the_seat_and_policy():
    def out_of_range(game, legal):
        return 0 if game.phase == "bidding" else len(legal)

    with pytest.raises(ValueError, match=r"out_of_range.*seat 1.*index"):
        simulate(1, "classic", ("greedy", out_of_range, "greedy"), seed=0,
                 bidding=False)

    def text_move(game, legal):
        return 0 if game.phase == "bidding" else "33"

    with pytest.raises(TypeError, match=r"text_move.*seat 0"):
        simulate(1, "classic", (text_move, "greedy", "greedy"), seed=0, bidding=False)

    def illegal_move(game, legal):
        return 0 if game.phase == "bidding" else ddzfast.Move("ROCKET", 13, 1, "XD")

    with pytest.raises(ValueError, match=r"illegal_move.*seat 0"):
        simulate(3, "classic", (illegal_move, "greedy", "greedy"), seed=0, bidding=False)


def test_a_policy_raising_stop_iteration_is_named():
    # raised inside simulate's generator of rows, it would come out as a bare
    # "generator raised StopIteration" naming no policy
    def stops(game, legal):
        raise StopIteration

    with pytest.raises(RuntimeError, match=r"stops' \(seat 2\) raised StopIteration"):
        simulate(2, "classic", ("greedy", "greedy", stops), seed=0)

    def fails(game, legal):
        raise KeyError("its own")

    with pytest.raises(KeyError, match="its own"):      # any other error as it is
        simulate(2, "classic", ("greedy", "greedy", fails), seed=0)


def test_play_answers_move_row_and_numpy_index():
    def rows_and_numpy(game, legal):
        if game.phase == "bidding":
            return np.int64(0)
        return legal.array[0] if len(legal) % 2 else np.intp(len(legal) - 1)

    rows = simulate(20, "biegang", (rows_and_numpy, "random", "random"), seed=2)
    assert np.all(rows["scores"].sum(axis=1) == 0)


# ---- hardening: only ValueError/TypeError for bad arguments ---------------------

@pytest.mark.parametrize("kwargs, error, words", [
    (dict(threads=2**40), ValueError, "threads"),
    (dict(threads=1.5), TypeError, "threads"),
    (dict(threads=True), TypeError, "threads"),
    (dict(start=2**63), ValueError, "2\\*\\*63"),
    (dict(start=-6), ValueError, "start"),
    (dict(start=1.0), TypeError, "start"),
    (dict(games=2**63), ValueError, "2\\*\\*63"),
    (dict(games=10, start=2**63 - 5), ValueError, "2\\*\\*63"),
    (dict(games=True), TypeError, "games"),
    (dict(games=2.0), TypeError, "games"),
    (dict(seed=-1), ValueError, "seed"),
    (dict(seed=2**64), ValueError, "seed"),
    (dict(seed=1.5), TypeError, "seed"),
    (dict(seed=True), TypeError, "seed"),
    (dict(backend="spark"), ValueError, "backend"),
    (dict(backend=None), ValueError, "backend"),
    (dict(policies=5), TypeError, "policies"),
    (dict(policies=(1, 2, 3)), TypeError, "policy"),
    (dict(policies="random,,greedy"), ValueError, "unknown policy ''"),
    (dict(policies=()), ValueError, "one policy or three"),
    (dict(bidding="yes"), TypeError, "bidding"),
    (dict(tasks=0), ValueError, "tasks"),
    (dict(tasks=True), TypeError, "tasks"),
    (dict(address=5), TypeError, "address"),
    (dict(progress=5), TypeError, "progress"),
    (dict(connect_timeout=0), ValueError, "connect_timeout"),
    (dict(connect_timeout=float("nan")), ValueError, "connect_timeout"),
    (dict(games=10**13), ValueError, "memory"),
])
def test_simulate_bad_arguments_raise_value_or_type_error(kwargs, error, words):
    kwargs = dict(kwargs)
    games = kwargs.pop("games", 10)
    with pytest.raises(error, match=words):
        simulate(games, **kwargs)


def test_negative_start_is_refused_not_simulated():
    """start=-6 reached C, which indexed policies[-1] (a heap overflow)."""
    with pytest.raises(ValueError, match="start must not be negative"):
        simulate(12, start=-6)
    # the last deal index there is still fine
    last = simulate(1, start=(1 << 63) - 2, seed=3)
    assert len(last) == 1 and last["scores"].sum() == 0


@pytest.mark.parametrize("rules", ["classic", "tiandi",
                                   ddzfast.get_rules("laizi").with_options(
                                       deal="no_shuffle", session=10)])
def test_the_last_deal_index_is_simulated(rules):
    """Regression (audit of simulate): simulate(1, start=MAX_DEAL_INDEX) was
    refused ("start + games must be at most 2**63 - 1") though deal indices
    are 0 .. MAX_DEAL_INDEX and the run's end is exclusive; its end, 2**63,
    does not fit the engine's int64, which now takes a count. The last deal
    is Game(rules, deal_seed(seed, MAX_DEAL_INDEX), ...)'s, and the same in
    any split, on threads, and on the Python path."""
    from ddzfast.simulate import MAX_DEAL_INDEX
    policies = ("random", "greedy", "greedy")
    last = simulate(1, rules, policies, seed=3, start=MAX_DEAL_INDEX)
    assert last["seed"][0] == deal_seed(3, MAX_DEAL_INDEX)
    run = simulate(23, rules, policies, seed=3, start=MAX_DEAL_INDEX - 22, threads=2)
    assert run[-1].tobytes() == last[0].tobytes()
    python = simulate(23, rules, (policies[0], lambda game, legal: 0, "greedy"), seed=3,
                      start=MAX_DEAL_INDEX - 22)
    assert python["seed"][-1] == last["seed"][0]
    r = ddzfast.get_rules(rules)
    if r.platform["deal"] == "shuffle":
        replay = play_deal(r, policies, deal_seed(3, MAX_DEAL_INDEX), MAX_DEAL_INDEX % 3)
        replay["session"] = MAX_DEAL_INDEX
        assert replay.tobytes() == last[0].tobytes()
    with pytest.raises(ValueError, match="2\\*\\*63"):
        simulate(2, rules, seed=3, start=MAX_DEAL_INDEX)


def test_threads_are_capped_by_the_machine():
    """Up to MAX_THREADS is accepted (the core starts no more threads than
    CPUs); the rows do not change."""
    from ddzfast.constants import MAX_THREADS
    assert np.array_equal(simulate(200, seed=1, threads=MAX_THREADS), simulate(200, seed=1))


def test_parse_policies_is_the_one_parser():
    from ddzfast.simulate import parse_policies
    assert parse_policies("greedy") == ("greedy",) * 3
    assert parse_policies(" random , greedy,greedy ") == ("random", "greedy", "greedy")
    assert parse_policies(["random"]) == ("random",) * 3

    def mine(game, legal):
        return 0

    assert parse_policies(mine) == (mine,) * 3
    assert parse_policies(("random", mine, "greedy"))[1] is mine
    with pytest.raises(ValueError, match="one policy or three"):
        parse_policies("random,greedy")
    with pytest.raises(ValueError, match="unknown policy 'Greedy'"):
        parse_policies("Greedy")


@pytest.mark.parametrize("policies", [b"greedy", b"abc", bytearray(b"random")])
def test_policies_as_bytes_are_a_type_error(policies):
    """Bytes were iterated as ints: simulate(policies=b"abc") said 'not int
    97', b"greedy" 'not 6' policies. split_policies, which simulate,
    gym_env's and VectorEnv's opponents share, refuses them naming what it
    takes."""
    from ddzfast.simulate import parse_policies
    with pytest.raises(TypeError, match=r"text, a callable or a sequence of them, "
                                        r"not (bytes|bytearray) \(decode"):
        simulate(3, policies=policies)
    with pytest.raises(TypeError, match="not (bytes|bytearray)"):
        parse_policies(policies)


@pytest.mark.parametrize("policies", [{"random", "greedy", "expert"}, frozenset({"greedy"}),
                                      {"random": 1, "greedy": 2, "expert": 3}])
def test_policies_in_a_set_or_mapping_are_a_type_error(policies):
    """Regression (the extras review of 2026-12-06): a set of policy names
    was taken in its iteration order, which changes from process to process
    (string hashing), so one seed gave other seats other policies; a dict
    gave its keys. split_policies, which every reader of policies shares,
    refuses both, saying they have no seat order."""
    from ddzfast.report import Tally
    from ddzfast.simulate import parse_policies
    for call in (lambda: simulate(3, policies=policies), lambda: parse_policies(policies),
                 lambda: Tally(policies), lambda: summarize(simulate(3, seed=1), policies),
                 lambda: Game("classic", seed=1).rollout(policies)):
        with pytest.raises(TypeError, match="no seat order"):
            call()


def test_connect_timeout_beyond_a_float_is_a_value_error():
    """simulate(backend="ray", connect_timeout=10**400) passed the check and
    raised OverflowError at float(); now ValueError before any work (no Ray
    needed)."""
    with pytest.raises(ValueError, match="connect_timeout is out of range"):
        simulate(1, backend="ray", connect_timeout=10**400)
    with pytest.raises(TypeError, match="connect_timeout must be a number"):
        simulate(1, backend="ray", connect_timeout="10")


def test_a_connect_timeout_past_what_waits_take_is_a_value_error():
    """Regression (review of simulate, 2026-12-07): connect_timeout=1e10
    passed the check and ended in an OverflowError from the socket's
    timeout, after the run had started."""
    with pytest.raises(ValueError, match="connect_timeout must be at most"):
        simulate(2, backend="ray", address="127.0.0.1:1", connect_timeout=1e10)


def test_a_failed_ray_run_cancels_its_other_tasks(ray_tmpdir):
    """Regression (review of simulate, 2026-12-07): when one Ray task raised
    (or Ctrl-C stopped the run), the others went on holding the cluster's
    CPUs, so the next run waited for them. A run of no deal reported its
    progress twice on Ray (once here)."""
    ray = pytest.importorskip("ray")
    first_seed = deal_seed(4, 0)

    def failing_at_the_first_deal(game, legal):
        if game.seed == first_seed:
            raise KeyError("the first task's policy fails")
        time.sleep(0.002)       # the other task's 1,000 deals: a minute or more
        return 0
    try:
        calls = []
        simulate(0, backend="ray", progress=calls.append)
        assert calls == [0]
        total = ray.cluster_resources()["CPU"]
        with pytest.raises(KeyError, match="the first task's policy fails"):
            simulate(2000, "classic", failing_at_the_first_deal, seed=4, backend="ray",
                     tasks=2, bidding=False)
        deadline = time.monotonic() + 15
        while ray.available_resources().get("CPU", 0) < total:
            assert time.monotonic() < deadline, "the other task still holds its CPU"
            time.sleep(0.5)
    finally:
        ray.shutdown()


# ---- hardening: Ray fails fast and clearly --------------------------------------

def test_ray_missing_is_a_clear_import_error(monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "ray", None)     # `import ray` raises ImportError
    with pytest.raises(ImportError, match=r"pip install 'ddzfast\[ray\]'"):
        simulate(10, backend="ray")


def test_ray_dead_address_fails_within_seconds():
    """Nothing listens at 127.0.0.1:1: ray.init would retry for minutes."""
    pytest.importorskip("ray")
    import time
    import ray
    if ray.is_initialized():
        ray.shutdown()
    begin = time.monotonic()
    with pytest.raises(ConnectionError, match="no Ray cluster at '127.0.0.1:1'"):
        simulate(10, backend="ray", address="127.0.0.1:1", connect_timeout=5)
    assert time.monotonic() - begin < 30
    assert not ray.is_initialized()


def test_ray_address_syntax_is_checked():
    pytest.importorskip("ray")
    from ddzfast.simulate import check_ray_address
    with pytest.raises(ValueError, match="HOST:PORT"):
        check_ray_address("127.0.0.1", 1)
    with pytest.raises(ValueError, match="HOST:PORT"):
        check_ray_address("127.0.0.1:99999", 1)
    check_ray_address(None, 1)         # a local Ray: nothing to probe
    check_ray_address("auto", 1)
    # read as ray.init reads them, these are no address: they passed the
    # check, stripped, and ray.init's error named no argument
    for text in ("", " auto ", " 127.0.0.1:6379"):
        with pytest.raises(ValueError, match="HOST:PORT"):
            check_ray_address(text, 1)


def _listener(reply: bytes | None):
    """A TCP server on 127.0.0.1 answering each connection with `reply` after
    the first bytes it receives (None: never a word); its port and a stop."""
    import socket
    import threading
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(0.2)
    stop = threading.Event()
    held = []

    def serve():
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            held.append(conn)
            if reply is not None:
                conn.settimeout(5)
                try:
                    conn.recv(64)
                    conn.sendall(reply)
                except OSError:
                    pass
    thread = threading.Thread(target=serve, daemon=True)
    thread.start()

    def close():
        stop.set()
        thread.join()
        for c in held:
            c.close()
        server.close()
    return server.getsockname()[1], close


@pytest.mark.parametrize("reply", [None, b"HTTP/1.1 400 Bad Request\r\n\r\n"],
                         ids=["silent", "http1"])
def test_ray_address_of_another_service_fails_within_its_timeout(reply):
    """A service that is not Ray at the address (a silent port, a dashboard's
    HTTP/1) passed the check, which only connected, and ray.init then
    retried it for minutes: it is a ConnectionError within the timeout."""
    import time
    from ddzfast.simulate import check_ray_address
    port, close = _listener(reply)
    try:
        begin = time.monotonic()
        with pytest.raises(ConnectionError, match="did not answer as Ray's gRPC ports"):
            check_ray_address(f"127.0.0.1:{port}", 2)
        assert time.monotonic() - begin < 10
    finally:
        close()


def test_ray_address_answering_http2_passes_the_check():
    # a gRPC server's first frame: SETTINGS (type 4) of no settings
    port, close = _listener(bytes([0, 0, 0, 4, 0, 0, 0, 0, 0]))
    try:
        from ddzfast.simulate import check_ray_address
        check_ray_address(f"127.0.0.1:{port}", 5)
    finally:
        close()


# ---- every byte of a deal row, and negative deal indices: regressions of the hardening review ---

def _padding_mask(dtype: np.dtype) -> np.ndarray:
    """True for the bytes of a record of `dtype` that no field covers."""
    covered = np.zeros(dtype.itemsize, bool)
    for field_dtype, offset in (v[:2] for v in dtype.fields.values()):
        covered[offset:offset + field_dtype.itemsize] = True
    return ~covered


def test_deal_rows_are_zero_padded():
    # _score_row copies the C row of a finished Game into DEAL_DTYPE; its
    # trailing padding used to be whatever was on the stack
    """A finished Game's deal row (_score_row) left its padding bytes as whatever was
    on the stack."""
    dtype = ddzfast.DEAL_DTYPE
    pad = _padding_mask(dtype)
    assert pad.any()
    for seed in range(8):
        game = ddzfast.Game("super", seed, bidding=False)
        while not game.done:
            game.play(game.policy_move("greedy"))
        dirty_the_stack()
        row = _engine._score_row(game)
        raw = np.frombuffer(row.tobytes(), np.uint8)
        assert not raw[pad].any()
        dirty_the_stack()
        assert _engine._score_row(game).tobytes() == row.tobytes()


def _simulate_c(rules, start, stop, seed=3):
    """ddz_simulate with random policies, called directly on deals start ..
    stop - 1 (it takes their count): (status, rows)."""
    ptr = ctypes.c_void_p
    c_simulate = capi("ddz_simulate", ctypes.c_int, ptr, ptr, ctypes.c_uint64,
                      ctypes.c_int64, ctypes.c_int64, ctypes.c_int, ptr, module="_engine")
    codes = np.array([_engine.POLICIES["random"]] * 3, dtype=np.intc)
    rows = np.zeros(stop - start, dtype=ddzfast.DEAL_DTYPE)
    status = c_simulate(ddzfast.get_rules(rules).address, codes.ctypes.data, seed,
                        start, stop - start, 1, rows.ctypes.data)
    return status, rows


@pytest.mark.parametrize("rules", RULE_SETS)
def test_simulate_negative_start_in_c(rules):
    # deal i's first bidder is i modulo 3, floored (Python's %): 0..2 for a
    # negative i too; it used to be -1 or -2 and index policies[-1]
    """ddz_simulate took deal i's first bidder as C's i % 3 (-1 or -2 for a negative i,
    indexing policies[-1]): it is floored."""
    status, rows = _simulate_c(rules, -7, 2)
    assert status == 0
    assert list(rows["first_bidder"]) == [i % 3 for i in range(-7, 2)]
    assert set(rows["landlord"]) <= {0, 1, 2}
    assert np.allclose(rows["scores"].sum(axis=1), 0.0)
    status2, rows2 = _simulate_c(rules, -7, 2)
    assert rows2.tobytes() == rows.tobytes()
    # a deal does not depend on the run it is part of
    _, tail = _simulate_c(rules, -2, 2)
    assert tail.tobytes() == rows[5:].tobytes()


def test_simulate_negative_start_through_the_wrapper():
    """A negative start through the Python wrapper is refused before anything
    reaches the C (the C itself floors the first bidder of a negative deal
    index: test_simulate_negative_start_in_c)."""
    with pytest.raises(ValueError, match=r"start is a deal index in 0 \.\. 2\*\*63 - 1, not -6"):
        _engine._simulate_native("classic", ("random",) * 3, 3, -6, 0, True, 1)


def test_native_simulation_rejects_negative_deal_indices():
    """The native simulation took negative deal indices, and indices past 2**63, into
    the C: they are a ValueError."""
    with pytest.raises(ValueError, match="deal index"):
        _simulate_native("classic", ("random",) * 3, 0, -6, 10, True)
    with pytest.raises(ValueError, match="deal index"):
        _simulate_native("classic", ("random",) * 3, 0, 2 ** 63, 2 ** 63 + 1, True)


def test_deal_rows_of_the_python_path_have_zero_padding():
    """The Python path's deal rows (_score_row) left their padding bytes unwritten:
    they are zero, and the same each time."""
    game = Game("classic", seed=9, bidding=False)
    while not game.done:
        game.play(game.policy_move("greedy"))
    rows = [_score_row(game).tobytes() for _ in range(20)]
    assert len(set(rows)) == 1
    row = np.frombuffer(rows[0], dtype=ddzfast.DEAL_DTYPE)
    fields = bytearray(len(rows[0]))
    for name in ddzfast.DEAL_DTYPE.names:
        offset = ddzfast.DEAL_DTYPE.fields[name][1]
        fields[offset:offset + ddzfast.DEAL_DTYPE.fields[name][0].itemsize] = \
            b"\x01" * ddzfast.DEAL_DTYPE.fields[name][0].itemsize
    padding = [i for i, f in enumerate(fields) if not f]
    assert padding, "the test expects padding in DEAL_DTYPE"
    assert all(rows[0][i] == 0 for i in padding)
    assert row["seed"][0] == 9


# ---- laizi: the wild rank drawn per deal --------------------------------------

def test_simulate_laizi_rows():
    rows = ddzfast.simulate(300, "laizi", seed=4)
    assert set(np.unique(rows["wild_rank"])) <= set(range(13))
    assert len(set(rows["wild_rank"])) > 5
    for i in (0, 7, 123):
        assert Game("laizi", seed=int(rows["seed"][i])).wild_rank == rows["wild_rank"][i]
    assert (ddzfast.simulate(20, "classic")["wild_rank"] == -1).all()
    # the same rows on one thread or two
    assert np.array_equal(rows, ddzfast.simulate(300, "laizi", seed=4, threads=2))
    assert (rows["scores"].sum(axis=1) == 0).all()


def test_joined_rows_are_their_parts_byte_for_byte():
    """The Ray backend joined its parts with np.concatenate, which copies a
    structured dtype field by field and leaves the padding as the memory
    held: rows equal to a local run's, but not byte for byte (the user
    review of 2026-12-05). The parts are joined as bytes."""
    from ddzfast.simulate import _joined_rows
    parts = [simulate(5, "classic", seed=9), simulate(3, "classic", seed=9, start=5)]
    joined = _joined_rows(parts)
    assert joined.tobytes() == simulate(8, "classic", seed=9).tobytes()
    marked = parts[1].copy()
    marked.view(np.uint8)[:] = 0xA5          # every byte, padding included
    assert _joined_rows([parts[0], marked]).tobytes() == parts[0].tobytes() + marked.tobytes()
    assert len(_joined_rows([])) == 0 and _joined_rows([]).dtype == DEAL_DTYPE


@pytest.mark.parametrize("policies, error", [
    (("random",) * 4, "one policy or three"),
    ({"x": 1}, "no seat order"),
    ((1, 2, 3), "a policy is one of"),
])
def test_play_deal_checks_its_policies(policies, error):
    """Regression (a user's review): play_deal read its policies unchecked:
    four were taken, one in a tuple was an IndexError and a dict a KeyError.
    It reads them as simulate does (one for all seats, or three; a mapping
    has no seat order)."""
    with pytest.raises((ValueError, TypeError), match=error):
        play_deal("classic", policies, 1)
    assert play_deal("classic", ("random",), 1) == play_deal("classic", "random", 1)
