"""Score gold solutions through ``rafs_reward`` the way GRPO calls it (batches of 8, cold caches), for timing the
whole process against another checkout of the scorer.

Meant to be run twice under a paired timer, once per version of ``rewards``: put the other version first on
``PYTHONPATH`` (a ``git archive REV rewards`` copy) and read the ratio, never an absolute time (shared machines
drift)::

    git archive c3575ed rewards | tar -x -C /tmp/base
    farm-bench --vs "env PYTHONPATH=/tmp/base .venv/bin/python benchmarks/reward_throughput.py gsm8k" \\
        -- env PYTHONPATH=. .venv/bin/python benchmarks/reward_throughput.py gsm8k

``gsm8k``: GSM8K train rows 3000-3799 (the worked ``answer`` as the completion); ``math500``: all 500 MATH-500
solutions. ``--n`` and ``--offset`` pick other rows.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def rows(dataset: str, n: int | None, offset: int) -> tuple[list[str], list[str], list[str]]:
    if dataset == "gsm8k":
        data = [json.loads(x) for x in (DATA / "gsm8k" / "train.jsonl").read_text().splitlines()]
        items = [(r["question"], r["answer"], r["answer"].split("####")[-1].strip()) for r in data]
        offset, n = (3000 if offset is None else offset), (800 if n is None else n)
    else:
        data = [json.loads(x) for x in (DATA / "math500" / "test.jsonl").read_text().splitlines()]
        items = [(r["problem"], r["solution"], r["answer"]) for r in data]
        offset = 0 if offset is None else offset
    chosen = items[offset:offset + n if n is not None else None]
    return [p for p, _, _ in chosen], [c for _, c, _ in chosen], [g for _, _, g in chosen]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dataset", choices=("gsm8k", "math500"))
    ap.add_argument("--n", type=int, default=None)
    ap.add_argument("--offset", type=int, default=None)
    args = ap.parse_args()
    from rewards import get_rafs_reward

    prompts, completions, golds = rows(args.dataset, args.n, args.offset)
    reward = get_rafs_reward(cache=False)
    for i in range(0, len(prompts), 8):
        reward(prompts[i:i + 8], completions[i:i + 8], answer=golds[i:i + 8])


if __name__ == "__main__":
    main()
