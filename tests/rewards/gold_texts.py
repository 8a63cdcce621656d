"""The real text the fast-path equivalence tests (``test_fast_paths*.py``) run on: the first GSM8K train and MATH-500
gold solutions with their problems, read once per test process."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"


@lru_cache(maxsize=None)
def gold_rows(gsm8k: int, math500: int) -> tuple[tuple[str, str], ...]:
    """``(problem, gold solution)`` of the first ``gsm8k`` GSM8K train rows, then the first ``math500`` MATH-500 rows."""
    rows = []
    for line in (DATA / "gsm8k" / "train.jsonl").read_text().splitlines()[:gsm8k]:
        row = json.loads(line)
        rows.append((row["question"], row["answer"]))
    for line in (DATA / "math500" / "test.jsonl").read_text().splitlines()[:math500]:
        row = json.loads(line)
        rows.append((row["problem"], row["solution"]))
    return tuple(rows)


def gold_lines(gsm8k: int, math500: int) -> list[str]:
    """Each row of :func:`gold_rows` as its problem, then its solution's lines."""
    texts = []
    for problem, solution in gold_rows(gsm8k, math500):
        texts.append(problem)
        texts.extend(solution.splitlines())
    return texts
