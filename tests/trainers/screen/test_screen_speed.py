"""The training-callback path: fast import (no torch) and a fast screen of n = 200 items."""

from __future__ import annotations

import subprocess
import sys
import time

import numpy as np

from trainers.screen import screen


def test_import_pulls_in_nothing_heavy():
    code = ("import sys, trainers.screen; "
            "print(','.join(m for m in ('torch', 'scipy', 'sklearn', 'pandas', 'matplotlib') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.strip() == ""


def test_callback_path_lists_of_bools_and_percent_floats_is_fast():
    rng = np.random.default_rng(0)
    correct = [bool(x) for x in rng.random(200) < 0.7]
    confidence = [float(x) for x in np.clip(rng.normal(75, 15, 200), 0, 100)]
    screen(correct, confidence)  # warm the lazy imports (scipy, scikit-learn)
    best = float("inf")
    for _ in range(5):
        t0 = time.process_time()
        res = screen(correct, confidence)
        best = min(best, time.process_time() - t0)
    assert res.n == 200 and res.confidence_format == "percent"
    assert best < 0.2, f"screen() on n=200 took {best:.3f} s (target < 0.2 s)"
