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


def test_lstm_once_per_deal_equals_douzero_rows():
    """The actors' values (the LSTM once per deal on z, repeated over the
    deal's candidates) equal the model run on DouZero's z_batch rows."""
    import importlib.util

    import numpy as np
    import torch

    from ddzfast.compat.douzero import VecEnv
    spec = importlib.util.spec_from_file_location("train_dmc", SCRIPT)
    dmc = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(dmc)
    torch.manual_seed(0)
    vec = VecEnv(24, "adp", seed=3)
    vec.reset()
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
            with torch.no_grad():
                rows_z = model(torch.from_numpy(vec.z_batch[p]), torch.from_numpy(vec.x_batch[p]))
                once = model.values(torch.from_numpy(vec.z[rows].astype(np.float32)),
                                    torch.from_numpy(owner), torch.from_numpy(vec.x_batch[p]))
            np.testing.assert_allclose(once.numpy(), rows_z.numpy(), rtol=1e-5, atol=1e-6)
        vec.step((rng.random(24) * vec.counts).astype(np.int64))
    assert seen == {0, 1, 2}
