"""A structured mutation fuzzer of the state that comes back into ddzfast from
outside: Game pickles (today's format and the earlier, unversioned one),
Observations given to ``sample``, and truncated pickles.

    python tests/oracles/state_fuzz.py SEED CASES

Builds a corpus of games in every rule set of ``helpers.RULE_SETS`` (dealt,
mid-bidding, mid-play, finished, from positions, sampled worlds, after
undo), then mutates what their pickles carry (every field: seats, phases,
bids, counts, move text, rule sets, random states, steps dropped, repeated,
reordered or truncated; byte flips of the earlier format's raw state and
undo records), mutates Observations field by field, and loads each mutant. A load may only raise ValueError or TypeError; a game
that loads must then work through the API (observation tensors, legal
moves, rollout, pickling). Prints ``state: N cases`` and exits 0, or dies:
the test runs it in a subprocess, so a crash or a hang fails the test.
"""
from __future__ import annotations

import io
import json
import os
import pickle
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import ddzfast  # noqa: E402
from ddzfast import Game, _core  # noqa: E402
from helpers import DECKS, RULE_SETS  # noqa: E402

LEGACY = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                      "data", "legacy_game_pickles.json")
ALLOWED = (ValueError, TypeError)
ODD_VALUES = [-1, 0, 1, 2, 3, 4, 7, 20, 21, 255, 256, 100000, -100000, 2 ** 31, 2 ** 63,
              2 ** 64, -2 ** 70, True, False, 1.5, float("nan"), "x", "", None, (), (1,),
              b"\x00", [0, 1]]


def corpus(rng: random.Random) -> list:
    """Games of every kind in every rule set."""
    games = []
    sessions = ddzfast.get_rules("classic+happy").with_options(deal="no_shuffle", session=3)
    for name in RULE_SETS + (f"{RULE_SETS[0]}+happy", f"{RULE_SETS[-1]}+happy", sessions):
        for stop in (0, 1, 3, 8, 25, 999):
            g = Game(name, seed=rng.randrange(2 ** 64), bidding=rng.random() < 0.7,
                     first_bidder=rng.randrange(3))
            n = 0
            while not g.done and n < stop:
                if g.phase != "play":
                    g.choose(g.policy_choice("random"))
                else:
                    g.play(g.policy_move("random"))
                n += 1
            if g.done and name is sessions:
                g = g.next_deal(rng.randrange(2 ** 64))
            if g.can_undo and rng.random() < 0.3:
                g.undo()
            games.append(g)
        if name not in DECKS:          # platform play: the deals above are its corpus
            continue
        deck = list(DECKS[name])
        rng.shuffle(deck)
        hands = ["".join(deck[0:7]), "".join(deck[7:12]), "".join(deck[12:20])]
        try:
            p = Game.from_position(hands, name, landlord=rng.randrange(3))
            while not p.done and rng.random() < 0.8:
                p.play(p.policy_move("random"))
            games.append(p)
        except ValueError:
            pass
        dealt = Game(name, seed=rng.randrange(2 ** 64), bidding=False)
        for _ in range(rng.randrange(12)):
            if dealt.done:
                break
            dealt.play(dealt.policy_move("greedy"))
        if not dealt.done:
            games.append(dealt.observation(rng.randrange(3)).sample(rng.randrange(99)))
    # samples of rob-bidding deals dealt again (their starts hold the redeals)
    for i in range(4):
        g = Game("classic+happy", seed=rng.randrange(2 ** 64), first_bidder=i % 3)
        while not g.done and not (g.redeals and g.phase != "show" and rng.random() < 0.3):
            if g.phase == "bidding":
                g.choose(0 if 0 in g.legal_choices() else g.policy_choice("random"))
            elif g.phase != "play":
                g.choose(g.policy_choice("random"))
            else:
                g.play(g.policy_move("random"))
        if not g.done:
            games.append(g.observation(g.to_move).sample(rng.randrange(99)))
    # deals from given cards with redeal seeds of their own (state format 4)
    for i in range(3):
        d = Game("classic+happy", seed=rng.randrange(2 ** 64))
        g = Game.from_deal(d.hands, d.kitty, d.rules, first_bidder=i, seed=rng.randrange(2 ** 64),
                           redeal_seed=rng.randrange(2 ** 64))
        for _ in range(rng.randrange(8)):
            if g.phase in ("play", "done"):
                break
            g.choose(0 if g.phase == "bidding" else g.policy_choice("random"))
        games.append(g)
    return games


def legacy_args(kinds=("deal", "position", "sample")) -> list:
    """The arguments the earlier format's pickles (tests/data, written by the
    build before the format) pass to _game_from_state, for the games of
    those kinds."""
    captured = []

    class Capture(pickle.Unpickler):
        def find_class(self, module, name):
            if name == "_game_from_state":
                return lambda *args: captured.append(args)
            return super().find_class(module, name)

    with open(LEGACY, encoding="utf-8") as f:
        for item in json.load(f):
            if item["kind"] in kinds:
                Capture(io.BytesIO(bytes.fromhex(item["pickle"]))).load()
    return captured


def mutate(value, rng: random.Random, other_rules, move_texts):
    """A copy of a nested tuple value with one leaf, or one tuple, changed."""
    if isinstance(value, tuple) and value and rng.random() < 0.75:
        i = rng.randrange(len(value))
        return value[:i] + (mutate(value[i], rng, other_rules, move_texts),) + value[i + 1:]
    choice = rng.random()
    if isinstance(value, tuple):
        if choice < 0.3:
            return value[:rng.randrange(len(value) + 1)]
        if choice < 0.5 and value:
            return value + (value[rng.randrange(len(value))],)
        if choice < 0.7:
            items = list(value)
            rng.shuffle(items)
            return tuple(items)
    if isinstance(value, str):
        if choice < 0.4 and move_texts:
            return rng.choice(move_texts)
        if choice < 0.7 and value:
            i = rng.randrange(len(value))
            return value[:i] + rng.choice("0123456789TJQKA2XDW/PASSINGLE_x") + value[i + 1:]
    if isinstance(value, bytes) and value:
        b = bytearray(value)
        for _ in range(rng.randrange(1, 4)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        return bytes(b) if rng.random() < 0.9 else bytes(b[:rng.randrange(len(b))])
    if isinstance(value, ddzfast.Rules):
        return rng.choice(other_rules)
    if isinstance(value, int) and not isinstance(value, bool) and choice < 0.5:
        return value + rng.choice([-2 ** 64, -3, -1, 1, 2, 3, 2 ** 32])
    return rng.choice(ODD_VALUES)


def exercise(game: Game) -> None:
    """A game that loaded works through the API."""
    assert game.phase in ("show", "bidding", "landlord_show", "doubling", "play", "done")
    repr(game)
    game.position_key()
    for seat in range(3):
        game.observation_tensor(seat)
        game.observation(seat)
    game.legal_moves()
    r = game.rules
    # a tiandi game of another pair than the corpus's (a mutated draw) would
    # build that pair's action table, seconds each
    if r.wild_count < 2 or r.wild_ranks in (ddzfast.get_rules(n).wild_ranks
                                            for n in RULE_SETS):
        game.legal_action_mask()
    if not game.done:
        game.rollout("random", seed=1)
    twin = pickle.loads(pickle.dumps(game))
    assert twin.position_key() == game.position_key()
    if game.can_undo:
        game.undo()


def main() -> None:
    seed, cases = int(sys.argv[1]), int(sys.argv[2])
    rng = random.Random(seed)
    games = corpus(rng)
    states = [g.__reduce__() for g in games]
    legacy = legacy_args()
    other_rules = [ddzfast.get_rules(n) for n in RULE_SETS] + [ddzfast.get_rules("laizi")]
    move_texts = [m.text for g in games for _, m in g.history][:400]
    observations = [g.observation(s) for g in games if not g.done for s in range(3)]
    loaded = 0
    for case in range(cases):
        kind = case % 4
        try:
            if kind == 0:
                load, args = states[rng.randrange(len(states))]
                game = load(*mutate(args, rng, other_rules, move_texts))
            elif kind == 1:
                args = legacy[rng.randrange(len(legacy))]
                game = _core._game_from_state(*mutate(args, rng, other_rules, move_texts))
            elif kind == 2:
                obs = observations[rng.randrange(len(observations))]
                field = rng.choice(obs._fields)
                bad = mutate((getattr(obs, field),), rng, other_rules, move_texts)
                game = obs._replace(**{field: bad[0] if bad else None}).sample(case)
            else:
                # truncated pickles (not byte flips: a flipped length makes
                # CPython's own unpickler allocate without bound, before any
                # of ours runs)
                data = pickle.dumps(games[rng.randrange(len(games))])
                try:
                    game = pickle.loads(data[:rng.randrange(len(data))])
                except ALLOWED:
                    raise
                except Exception:  # the pickle machinery's own errors, before ours
                    continue
        except ALLOWED:
            continue
        exercise(game)
        loaded += 1
    print(f"state: {cases} cases, {loaded} loaded and exercised")


if __name__ == "__main__":
    main()
