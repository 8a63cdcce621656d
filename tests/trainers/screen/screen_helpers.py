"""Helpers shared by the validity-screen tests (a uniquely named module, importable from the test files)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[3]
# the validity-screen MMLU tables, relative to the `shared_data` fixture (tests/conftest.py)
MMLU_SUBDIR = Path("validity_screen") / "validity-scaling-llm" / "cross-benchmark" / "mmlu"


def table_arrays(a: int, b: int, c: int, d: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-item (correct, high) arrays that tabulate to exactly (a, b, c, d)."""
    correct = np.array([True] * a + [False] * b + [True] * c + [False] * d, dtype=bool)
    high = np.array([True] * (a + b) + [False] * (c + d), dtype=bool)
    return correct, high
