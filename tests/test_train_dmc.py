"""examples/train_dmc.py, Deep Monte Carlo over compat.douzero.VecEnv: a
smoke run of a few seconds with a tiny network (it trains, evaluates,
checkpoints and reports). Skipped without PyTorch."""
import pathlib

import pytest

pytest.importorskip("torch", reason="needs PyTorch: pip install torch")

SCRIPT = pathlib.Path(__file__).resolve().parent.parent / "examples" / "train_dmc.py"


def test_smoke_run(run_python, tmp_path):
    ckpt = tmp_path / "dmc.pt"
    done = run_python(SCRIPT, "--seconds", 3, "--envs", 8, "--hidden", 16, "--lstm", 16,
                      "--eval-deals", 6, "--greedy-deals", 4, "--eval-every", 1, "--batch", 64,
                      "--checkpoint", ckpt, "--checkpoint-every", 1, timeout=240)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[0].split()[:4] == ["seconds", "decisions", "dec/s", "env"]
    assert len(lines) >= 4                      # header, start, at least one evaluation, end
    last = lines[-1]
    assert last.startswith("done: ") and "decisions/s" in last and "WP against random" in last
    import re
    greedy = re.search(r"against greedy: ([0-9.]+) as the landlord, ([0-9.]+) as the farmers "
                       r"\((\d+) agent decisions at random", last)
    assert greedy, last
    # 4 deals: each WP a multiple of 1/4
    assert all(float(g) * 4 == round(float(g) * 4) for g in greedy.groups()[:2])
    decisions = int(last.split()[1])
    assert decisions > 0
    import torch
    saved = torch.load(ckpt)
    assert len(saved["models"]) == 3 and saved["decisions"] == decisions


@pytest.mark.parametrize("option, value, message", [
    ("--batch", 0, "--batch is at least 1"), ("--threads", 0, "--threads is at least 1"),
    ("--eval-deals", 0, "--eval-deals is at least 1"),
    ("--greedy-deals", -1, "--greedy-deals is at least 0"),
    ("--layers", 0, "--layers is at least 1"), ("--epsilon", 2, "--epsilon is in 0..1"),
    ("--seconds", "nan", "--seconds is a finite number above 0"),
    ("--eval-every", "nan", "--eval-every is a number above 0"),
    ("--checkpoint", "/nonexistent-folder/dmc.pt", "no file can be written there"),
    ("--checkpoint", "", "no file can be written there"),
    # abspath drops the separator: the file "/nonexistent-folder" in "/"
    ("--checkpoint", "/nonexistent-folder/", "no file can be written there"),
    ("--envs", 2**20 + 1, "--envs is at most 1048576"),
    ("--eval-deals", 2**20 + 1, "--eval-deals is at most 1048576"),
    ("--seed", 2**64, "--seed is at most"),
])
def test_bad_options_stop_before_any_work(run_python, option, value, message):
    """These options were taken as given: a bad one failed with another
    library's error after the first evaluation or training (a checkpoint
    in a missing folder only at its first save, the training lost), or
    changed nothing (--layers 0 built --layers 1's network)."""
    done = run_python(SCRIPT, "--seconds", 600, "--envs", 8, "--hidden", 16, "--lstm", 16,
                      option, value, timeout=120)
    assert done.returncode == 2 and message in done.stderr, done.stderr


def _load_dmc():
    import importlib.util
    spec = importlib.util.spec_from_file_location("train_dmc", SCRIPT)
    dmc = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(dmc)
    return dmc


def test_lstm_once_per_deal_equals_douzero_rows():
    """The actors' values (the LSTM and the deal's part of the first layer
    once per deal on z and x_no_action, the action's part per candidate)
    equal the model run on DouZero's z_batch/x_batch rows, and the model's
    forward equals DouZero's concatenation through nn.LSTM and the first
    layer whole."""
    import numpy as np
    import torch

    from ddzfast.compat.douzero import VecEnv
    dmc = _load_dmc()
    torch.manual_seed(0)
    vec = VecEnv(24, "adp", seed=3)
    lean = dmc.lean_vec(24, "adp", 3)
    vec.reset()
    lean.reset()
    rng = np.random.default_rng(1)
    seen = set()
    for _ in range(12):
        for p in range(3):
            rows = np.flatnonzero(vec.position == p)
            if rows.size == 0:
                continue
            seen.add(p)
            model = dmc.Model(dmc.X_WIDTH[p], 8, 8, 2)
            owner = np.repeat(np.arange(rows.size), vec.counts[rows])
            width = dmc.X_WIDTH[p] - 54
            with torch.no_grad():
                zb, xb = torch.from_numpy(vec.z_batch[p]), torch.from_numpy(vec.x_batch[p])
                rows_z = model(zb, xb)
                out, _ = model.lstm(zb)
                whole = model.mlp(torch.cat([out[:, -1, :], xb], dim=-1)).squeeze(-1)
                once = model.values(torch.from_numpy(lean.z[rows]).float(),
                                    torch.from_numpy(lean.x_no_action[rows, :width]).float(),
                                    torch.from_numpy(owner),
                                    torch.from_numpy(lean.x_action[p]).float())
            np.testing.assert_allclose(rows_z.numpy(), whole.numpy(), rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(once.numpy(), rows_z.numpy(), rtol=1e-5, atol=1e-6)
        actions = (rng.random(24) * vec.counts).astype(np.int64)
        vec.step(actions)
        lean.step(actions)
    assert seen == {0, 1, 2}


def test_choose_takes_the_best_candidate():
    """choose (epsilon 0) picks in every deal a candidate of the highest
    value over DouZero's rows (deals with one legal action included)."""
    import numpy as np
    import torch

    from ddzfast.compat.douzero import VecEnv
    dmc = _load_dmc()
    torch.manual_seed(1)
    models = [dmc.Model(dmc.X_WIDTH[p], 8, 16, 2) for p in range(3)]
    n = 32
    vec, lean = VecEnv(n, "adp", seed=5), dmc.lean_vec(n, "adp", 5)
    vec.reset()
    lean.reset()
    rng = np.random.default_rng(2)
    forced = 0
    for _ in range(40):
        actions = dmc.choose(models, lean, rng, 0.0)
        for i in range(n):
            p, a, c = int(vec.position[i]), int(vec.offsets[i]), int(vec.counts[i])
            assert 0 <= actions[i] < c
            if c == 1:
                forced += 1
                continue
            with torch.no_grad():
                v = models[p](torch.from_numpy(vec.z_batch[p][a:a + c]),
                              torch.from_numpy(vec.x_batch[p][a:a + c])).numpy()
            assert v[actions[i]] >= v.max() - 1e-5
        vec.step(actions)
        lean.step(actions)
    assert forced > 0


def test_close_after_the_learners_thread_failed_raises():
    """A learner thread that failed with its queue full left close() waiting
    for ever to put its end mark."""
    import threading

    import numpy as np
    dmc = _load_dmc()
    models = [dmc.Model(dmc.X_WIDTH[p], 8, 8, 1) for p in range(3)]
    learner = dmc.Learner(models, 1e-3, threaded=True)
    taken = threading.Event()

    def failing_step(q, x, z, y):
        taken.wait()
        raise MemoryError("a step that fails")

    learner._step = failing_step
    x = np.zeros((4, dmc.X_WIDTH[0]), np.int8)
    z = np.zeros((4, 5, 162), np.int8)
    y = np.zeros(4, np.float32)
    for _ in range(3):      # the thread takes the first; two fill the queue
        learner.submit(0, x, z, y)
    taken.set()
    learner.thread.join(10)
    assert not learner.thread.is_alive() and learner.queue.full()
    outcome = []

    def close():
        try:
            learner.close()
        except RuntimeError as e:
            outcome.append(e)

    closer = threading.Thread(target=close, daemon=True)
    closer.start()
    closer.join(10)
    assert not closer.is_alive(), "close() hangs"
    assert outcome and isinstance(outcome[0].__cause__, MemoryError)


def test_nan_values_are_a_clear_error():
    """Values of a diverged model (NaN) made choose() pick the index past
    the candidates, and the run died of an IndexError in the environment."""
    import numpy as np
    import torch
    dmc = _load_dmc()
    models = [dmc.Model(dmc.X_WIDTH[p], 8, 8, 1) for p in range(3)]
    for m in models:
        torch.nn.init.constant_(m.mlp[-1].bias, float("nan"))
    vec = dmc.lean_vec(4, "wp", 1)
    vec.reset()
    with pytest.raises(FloatingPointError, match="values are NaN"):
        dmc.choose(models, vec, np.random.default_rng(0), 0.0)


def test_the_arena_agent_plays_only_what_the_arena_allows():
    """DouZero ranks a plane of single kickers by its highest triple,
    kickers included, so it lists 333444555+KKK after 666777888+TJQ, which
    ddzfast's rules refuse: the agent, taking that candidate, raised
    RuntimeError mid-evaluation. It now takes the best of the candidates
    the arena's game allows."""
    import torch

    import ddzfast
    dmc = _load_dmc()
    models = [dmc.Model(dmc.X_WIDTH[p], 8, 8, 1) for p in range(3)]
    for m in models:        # equal values: the first candidate is the best
        torch.nn.init.zeros_(m.mlp[-1].weight)
    game = ddzfast.Game.from_position(
        ["666777888TJQ99AA22XD", "333444555KKKTJQ9A", "3456789TTJJQQKA22"], "classic",
        landlord=0)
    game.play(ddzfast.Move.parse("PLANE_SINGLES/6/3/666777888TJQ"))
    legal = game.legal_moves()
    agent = dmc.ArenaAgent(models, 0)
    assert agent.mirror is None
    choice = agent(game, legal)
    assert str(legal[choice]) == "PASS" and agent.unreplayable == 0
    assert [3, 3, 3, 4, 4, 4, 5, 5, 5, 13, 13, 13] in agent.mirror.legal_actions


def test_ctrl_c_joins_the_learner_and_writes_the_checkpoint(run_python, tmp_path):
    """Ctrl-C with --learner thread often aborted the process (a daemon
    thread inside a torch operation at the interpreter's exit) and wrote
    no checkpoint."""
    import os
    import signal
    import time

    import torch
    ckpt = tmp_path / "dmc.pt"
    proc = run_python.popen(SCRIPT, "--seconds", 600, "--envs", 8, "--hidden", 16, "--lstm", 16,
                            "--eval-deals", 2, "--greedy-deals", 0, "--batch", 16,
                            "--learner", "thread", "--checkpoint", ckpt,
                            env={"PYTHONUNBUFFERED": "1"})
    try:
        lines = []
        while len(lines) < 2:       # the header and the start's evaluation
            line = proc.stdout.readline()
            assert line, proc.stderr.read()
            lines.append(line)
        time.sleep(3)               # the learner's thread at work
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert "interrupted:" in err and "checkpoint written" in err
    saved = torch.load(ckpt)
    assert len(saved["models"]) == 3 and saved["decisions"] > 0
    assert not os.path.exists(str(ckpt) + ".part")
