"""Benchmark of the validity screen: 50,000 rows in 30 groups, 2,000 bootstrap resamples each.

Measures (does not assert) the wall time of ``screen_groups`` on one core, Phase A + Phase B, against the target
of < 5 s, plus the per-call time of the training-callback path (``screen`` on n = 200 lists of bools and floats
in [0, 100]) against its target of < 0.2 s.

    .venv/bin/python benchmarks/bench_screen.py
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # one core

import time  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import sys  # noqa: E402
from pathlib import Path  # noqa: E402
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's rewards, not an installed copy

from trainers.screen import ScreenConfig, screen, screen_groups  # noqa: E402


def make_data(n_rows: int = 50_000, n_groups: int = 30, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    group = rng.integers(0, n_groups, n_rows)
    acc = rng.uniform(0.4, 0.95, n_groups)[group]
    correct = rng.random(n_rows) < acc
    sep = rng.uniform(-5, 25, n_groups)[group]  # some groups informative, some inverted, some blanket
    conf = np.clip(np.round(rng.normal(70 + sep * correct, 15)), 0, 100)
    return pd.DataFrame({"model": [f"m{g:02d}" for g in group], "correct": correct, "confidence": conf})


def main() -> None:
    df = make_data()
    cfg = ScreenConfig(n_boot=2000)
    screen_groups(df.head(500), "correct", "confidence", "model", config=cfg)  # warm imports (scipy, sklearn)
    t0 = time.perf_counter()
    res = screen_groups(df, "correct", "confidence", "model", config=cfg)
    dt = time.perf_counter() - t0
    tiers = pd.Series([r.tier for r in res]).value_counts().to_dict()
    print(f"screen_groups: {len(df):,} rows, {len(res)} groups, {cfg.n_boot} bootstrap resamples each: "
          f"{dt:.2f} s (target < 5 s on one core); tiers {tiers}")

    cfg_b = ScreenConfig(n_boot=2000, rbs_interval="bootstrap")
    t0 = time.perf_counter()
    screen_groups(df, "correct", "confidence", "model", config=cfg_b)
    print(f"  with the RBS bootstrap too: {time.perf_counter() - t0:.2f} s")

    rng = np.random.default_rng(1)
    ok = (rng.random(200) < 0.7).tolist()
    conf = [float(x) for x in np.clip(rng.normal(75, 15, 200), 0, 100)]
    screen(ok, conf)
    reps = 20
    t0 = time.perf_counter()
    for _ in range(reps):
        screen(ok, conf)
    per = (time.perf_counter() - t0) / reps
    print(f"screen(200 bools, 200 floats in [0,100]): {per * 1000:.1f} ms per call (target < 200 ms)")


if __name__ == "__main__":
    main()
