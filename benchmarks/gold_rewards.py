"""What our rewards pay real gold solutions (GSM8K train, MATH-500): the integrity change must keep faithful gold.

Prints, per dataset: median ``rafs_reward``, the share of full ``faithful_accuracy_reward``, how many are unscorable
(``None``) or unsupported, and the most common reasons a gold solution loses full credit. Optional ``--limit``.

    python benchmarks/gold_rewards.py [--limit N] [--json OUT.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's rewards, not an installed copy

from rewards import get_faithful_accuracy_reward, get_rafs_reward

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def load(name: str, limit: int | None) -> list[tuple[str, str, str]]:
    if name == "gsm8k_train":
        rows = [json.loads(x) for x in (DATA / "gsm8k" / "train.jsonl").read_text().splitlines()]
        out = [(r["question"], r["answer"], r["answer"].split("####")[-1].strip()) for r in rows]
    else:
        rows = [json.loads(x) for x in (DATA / "math500" / "test.jsonl").read_text().splitlines()]
        out = [(r["problem"], r["solution"], r["answer"]) for r in rows]
    return out[:limit] if limit else out


def measure(name: str, limit: int | None) -> dict:
    items = load(name, limit)
    rafs, fa = get_rafs_reward(cache=False), get_faithful_accuracy_reward(cache=False)
    t0 = time.perf_counter()
    r_values, fa_values, reasons = [], [], Counter()
    for problem, solution, gold in items:
        results = rafs.score([problem], [solution], [gold])
        r_values.append(rafs.value(results[0], gold))
        value = fa.value(results[0], gold)
        fa_values.append(value)
        if value != 1.0:
            reasons[(results[0].reasons or [results[0].status])[0].split(":")[0][:70]] += 1
    seconds = time.perf_counter() - t0
    scored = [v if v is not None else 0.0 for v in r_values]
    return {
        "dataset": name, "n": len(items), "seconds": round(seconds, 1),
        "rafs_median": round(statistics.median(scored), 3),
        "rafs_none": sum(v is None for v in r_values),
        "faithful_accuracy_full": sum(v == 1.0 for v in fa_values),
        "faithful_accuracy_full_share": round(sum(v == 1.0 for v in fa_values) / len(items), 4),
        "faithful_accuracy_counts": {str(k): v for k, v in Counter(fa_values).most_common()},
        "top_reasons_below_full": reasons.most_common(8),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    report = [measure(name, args.limit) for name in ("gsm8k_train", "math500")]
    for r in report:
        print(json.dumps(r, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
