"""Published ProcessBench F1 of process reward models and critics, and where this run's F1 goes beside them.

The figures are as published (not our runs): ProcessBench (Zheng et al. 2024, ACL 2025) and "The Lessons of
Developing Process Reward Models in Mathematical Reasoning" (2025). The split of a run (GSM8K or
MATH) is read from its file name, e.g. ``processbench/gsm8k.json``; a run on another file gets its own row.

>>> split_name("data/processbench/gsm8k.json"), split_name("MATH_test.jsonl"), split_name("olympiad.json")
('gsm8k', 'math', None)
>>> leaderboard_markdown("31.2", "math", "math.json")[-1]
'| **RAFS, symbolic checker (this run)** | — | 31.2 |'
"""

from __future__ import annotations

import os

__all__ = ["PUBLISHED_F1", "SPLITS", "split_name", "leaderboard_markdown"]

#: published ProcessBench F1 (×100), GSM8K / MATH. Published figures, not our runs.
PUBLISHED_F1 = {
    "Math-Shepherd-PRM-7B": (47.9, 29.5),
    "Skywork-PRM-7B": (70.8, 53.6),
    "Qwen2.5-Math-PRM-7B": (82.4, 77.6),
    "Qwen2.5-Math-PRM-72B": (87.3, 80.6),
    "GPT-4o (critic)": (79.2, 63.6),
    "o1-mini (critic)": (93.2, 88.9),
}
#: the ProcessBench splits with published figures, in the order of :data:`PUBLISHED_F1`'s pairs
SPLITS = ("gsm8k", "math")


def split_name(source: str | None) -> str | None:
    """``"gsm8k"`` or ``"math"`` when the file name (without folder and extension, any case) contains it, else
    ``None`` (the first match wins, GSM8K first).

    >>> split_name(None), split_name("runs/Math-500.json")
    (None, 'math')
    """
    if not source:
        return None
    stem = os.path.splitext(os.path.basename(source))[0].lower()
    for name in SPLITS:
        if name in stem:
            return name
    return None


def leaderboard_markdown(f1_percent: str, split: str | None, source: str | None) -> list[str]:
    """The Markdown lines of the published table with this run's F1 (already formatted ×100) in its split's
    column; a run on an unknown split gets a row named after its source.

    >>> leaderboard_markdown("18.4", None, "mine.json")[-1]
    '| **RAFS (this run, mine.json)** | 18.4 | |'
    """
    lines = ["### Published process reward models (published figures, not our runs)", "",
             "ProcessBench F1 ×100 as published by Zheng et al. 2024 (ProcessBench, ACL 2025) and \"The Lessons of "
             "Developing Process Reward Models in Mathematical Reasoning\" (2025).", "",
             "| model | GSM8K | MATH |", "|---|---|---|"]
    for model, (g, m) in PUBLISHED_F1.items():
        lines.append(f"| {model} | {g} | {m} |")
    if split:
        lines.append(f"| **RAFS, symbolic checker (this run)** | {f1_percent if split == 'gsm8k' else '—'} | "
                     f"{f1_percent if split == 'math' else '—'} |")
    else:
        lines.append(f"| **RAFS (this run, {source})** | {f1_percent} | |")
    return lines
