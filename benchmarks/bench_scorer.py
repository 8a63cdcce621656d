"""Single-trace RAFS throughput on one core, beside TRL's ``accuracy_reward`` on the same completions.

Completions: 2,000 GSM8K-style traces (GSM8K train solutions with their ``<<...>>`` annotations, plus the same
solutions with one result corrupted so that the checker has something to find), as TRL conversational
completions. Both rewards score the same completions in the same run; the ratio is what to read (absolute
times drift on shared machines). Peak RSS is read after both have run.

The tail is printed too (per-trace CPU time, cold caches: median, p99, max and the slowest completion's index): a GRPO
step waits for its slowest completion, and one gold GSM8K line (#1616) took 37 s through a regex that backtracked
catastrophically (fixed at 76b99c8; `tests/rewards/checks/test_connectives.py`) while the mean hid it in smaller runs.

Usage: python benchmarks/bench_scorer.py [--n 2000] [--repeat 5]
Targets (issue 2): ratio >= 1.0, >= 1,000 traces/s on one core, < 300 MB RSS without embeddings; (issue 11) no
completion slower than 0.5 s.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import random
import re
import resource
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's rewards, not an installed copy

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "gsm8k" / "train.jsonl"


def completions(n: int, seed: int = 0) -> tuple[list[str], list[list[dict]], list[str]]:
    rows = [json.loads(line) for line in DATA.open()][:n]
    rng = random.Random(seed)
    prompts, comps, golds = [], [], []
    for row in rows:
        text = row["answer"]
        if rng.random() < 0.3:  # corrupt one annotated result: a false calculation to find
            text = re.sub(r"=(\d+)>>(\d+)", lambda m: f"={int(m.group(1)) + 1}>>{int(m.group(2)) + 1}", text, count=1)
        gold = row["answer"].rsplit("####", 1)[-1].strip()
        final = text.rsplit("####", 1)
        text = final[0] + f"The answer is \\boxed{{{final[-1].strip()}}}."
        prompts.append(row["question"])
        comps.append([{"role": "assistant", "content": text}])
        golds.append(gold)
    return prompts, comps, golds


def timed(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    try:
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    except (AttributeError, OSError):
        pass
    prompts, comps, golds = completions(args.n)

    from trl.rewards import accuracy_reward

    from rewards.scoring.score import score_trace
    def clear_caches():
        # cold caches each repeat: the scorer must not win by memoising the benchmark
        for module in [m for name, m in sys.modules.items() if name.startswith("rewards.")]:
            for value in list(vars(module).values()):
                if callable(getattr(value, "cache_clear", None)):
                    value.cache_clear()

    def rafs_all():
        clear_caches()
        return [score_trace(p, c).reward for p, c in zip(prompts, comps)]

    def rafs_tail() -> list[tuple[float, int]]:
        clear_caches()
        times = []
        for i, (p, c) in enumerate(zip(prompts, comps)):
            start = time.process_time()
            score_trace(p, c)
            times.append((time.process_time() - start, i))
        return sorted(times)

    def accuracy_all():
        return accuracy_reward(comps, golds)

    rafs_all(); accuracy_all()  # warm imports
    # alternate the two (rafs, TRL, rafs, TRL, ...): a load that comes and goes on a shared machine then hits both
    # alike, where timing all of one before the other let it land on one side only (ratios 0.84-1.10 on one day)
    pairs = [(timed(rafs_all, 1), timed(accuracy_all, 1)) for _ in range(args.repeat)]
    t_rafs, t_acc = min(p[0] for p in pairs), min(p[1] for p in pairs)
    pair_ratios = sorted(b / a for a, b in pairs)
    tail = rafs_tail()
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    n = len(comps)
    print(f"completions             {n}")
    print(f"rafs_reward (single)    {n / t_rafs:10.0f} traces/s   ({t_rafs * 1e3 / n:.3f} ms/trace)")
    print(f"trl accuracy_reward     {n / t_acc:10.0f} traces/s   ({t_acc * 1e3 / n:.3f} ms/trace)")
    print(f"ratio rafs/accuracy     {t_acc / t_rafs:10.2f}   (target >= 1.0; best of {args.repeat} each)")
    print(f"ratio per pair          median {pair_ratios[len(pair_ratios) // 2]:.2f}, range "
          f"{pair_ratios[0]:.2f}-{pair_ratios[-1]:.2f} over {args.repeat} alternating pairs")
    q = lambda f: tail[min(len(tail) - 1, int(f * len(tail)))][0] * 1e3  # noqa: E731
    print(f"rafs per trace (cold)   median {q(0.5):.2f} ms, p99 {q(0.99):.2f} ms, max {tail[-1][0] * 1e3:.1f} ms "
          f"(completion #{tail[-1][1]}; target max < 500 ms)")
    print(f"peak RSS                {rss_mb:10.0f} MB        (target < 300 MB; includes TRL's imports)")


if __name__ == "__main__":
    main()
