"""The scoring pool on real completions: per-step latency of ``rafs_reward`` on a batch, 1 vs N workers.

Completions: ProcessBench MATH (``shared/data/processbench/math.json``, 1,000 real model solutions; a problem that
appears twice is one group of 2, the rest are groups of 1), as TRL passes them (the prompt repeated per completion).
Each repetition takes a new slice of ``--batch`` completions (every step is new: no cache of an earlier step helps)
and scores that same slice once per setting, the settings alternated within the repetition:

* ``in-process``: ``get_rafs_reward(num_workers=1)`` in a fresh child process (what one core gives today);
* ``pool-N``: ``get_rafs_reward(num_workers=N, cache=False)`` on a fresh, started pool of N workers (its start is
  not timed: a trainer starts it once).

Every setting starts with cold caches, so none gains from another having seen the slice. The ratio of each setting
to ``pool-1`` and to ``in-process`` is what to read: absolute times drift on a shared machine. Each setting's
rewards are compared with the in-process rewards, exactly.

The deadline check scores a batch of ``--batch - 1`` normal completions plus one built to be slow (nested factorials
in its final answer, which math-verify's own parse timeout bounds at about 1 s), with ``timeout_s`` below that; it
prints the batch's wall time, the deadline, and whether every other reward equals the in-process one.

Usage: python benchmarks/bench_pool.py [--batch 256] [--reps 3] [--workers 1,2] [--timeout 0.5]
Target (issue 30): pool-2 >= 1.7x pool-1 (and in-process) on a 2-core machine; the slow batch returns within
the deadline plus 1 s with every other reward unchanged. Not a CI gate: it prints, it never fails on a time.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = ROOT.parent / "shared" / "data" / "processbench" / "math.json"
SLOW_PROMPT = "Ann has 3 apples and buys 4 bags of 2 apples. How many apples does she have?"
SLOW = ("4 * 2 = 8 apples.\n3 + 8 = 11 apples.\n((((((((10!)!)!)!)!)!)!)!) = 5\n"
        "The answer is $\\boxed{((10!)!)!}$.")  # compared with the gold 11: math-verify's parse timeout bounds it


def batch(start: int, size: int) -> tuple[list[str], list[str]]:
    rows = json.loads(DATA.read_text())
    picked = [rows[(start + i) % len(rows)] for i in range(size)]
    return [r["problem"] for r in picked], ["\n\n".join(r["steps"]) for r in picked]


def time_in_process(start: int, size: int) -> tuple[float, list]:
    """Score the slice in a fresh child process (cold caches) in one process; its seconds and rewards."""
    out = subprocess.run([sys.executable, __file__, "--child", str(start), "--batch", str(size)], cwd=ROOT,
                         capture_output=True, text=True, check=True)
    data = json.loads(out.stdout.strip().splitlines()[-1])
    return data["seconds"], data["rewards"]


def child(start: int, size: int) -> None:
    from rewards.adapters.trl_rewards import get_rafs_reward

    prompts, completions = batch(start, size)
    reward = get_rafs_reward(num_workers=1, cache=False)
    reward(["Find x if x^2 = 1/2."], ["$x = \\frac{\\sqrt{2}}{2}$, so $\\boxed{\\frac{\\sqrt{2}}{2}}$"])  # imports
    t0 = time.perf_counter()
    rewards = reward(prompts, completions)
    print(json.dumps({"seconds": time.perf_counter() - t0, "rewards": rewards}))


def time_pool(workers: int, prompts, completions, timeout_s=None, **kwargs) -> tuple[float, list]:
    from rewards.adapters.pool import close_pools, shared_pool
    from rewards.adapters.trl_rewards import get_rafs_reward

    close_pools()
    shared_pool(workers).warm()
    reward = get_rafs_reward(num_workers=workers, cache=False, timeout_s=timeout_s)
    t0 = time.perf_counter()
    rewards = reward(prompts, completions, **kwargs)
    seconds = time.perf_counter() - t0
    close_pools()
    return seconds, rewards


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--workers", default=None, help="comma-separated pool sizes (default: 1..cores, then 2x)")
    ap.add_argument("--timeout", type=float, default=0.5, help="deadline of the slow-batch check (s)")
    ap.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child is not None:
        child(args.child, args.batch)
        return
    cores = len(os.sched_getaffinity(0))
    sizes = [int(w) for w in args.workers.split(",")] if args.workers else sorted({1, *range(2, cores + 1)})
    print(f"bench_pool: ProcessBench MATH, batch {args.batch}, {args.reps} reps, cores available {cores}, "
          f"load average {os.getloadavg()[0]:.2f} at start")
    times: dict[str, list[float]] = {"in-process": [], **{f"pool-{n}": [] for n in sizes}}
    mismatches: dict[str, int] = {k: 0 for k in times}
    for rep in range(args.reps):
        start = rep * args.batch
        prompts, completions = batch(start, args.batch)
        order = list(times)
        if rep % 2:
            order.reverse()  # alternate which setting runs first
        reference = None
        results = {}
        for name in order:
            if name == "in-process":
                seconds, rewards = time_in_process(start, args.batch)
            else:
                seconds, rewards = time_pool(int(name.split("-")[1]), prompts, completions)
            times[name].append(seconds)
            results[name] = rewards
        reference = results["in-process"]
        for name, rewards in results.items():
            mismatches[name] += sum(a != b for a, b in zip(rewards, reference))
        print(f"  rep {rep} (rows {start}..{start + args.batch - 1}): " +
              ", ".join(f"{n} {times[n][-1] * 1000:.0f} ms" for n in times))
    base = statistics.median(times["pool-1"]) if "pool-1" in times else None
    here = statistics.median(times["in-process"])
    print(f"\nper-step latency, batch of {args.batch} (median of {args.reps}); speedup = median of the per-rep "
          "ratios")
    print(f"{'setting':<12}{'ms/step':>10}{'ms/completion':>15}{'vs pool-1':>11}{'vs in-process':>15}"
          f"{'rewards != in-process':>23}")
    for name, values in times.items():
        med = statistics.median(values)
        vs1 = (statistics.median(a / b for a, b in zip(times["pool-1"], values)) if base else float("nan"))
        vsin = statistics.median(a / b for a, b in zip(times["in-process"], values))
        print(f"{name:<12}{med * 1000:>10.0f}{med * 1000 / args.batch:>15.1f}{vs1:>10.2f}x{vsin:>14.2f}x"
              f"{mismatches[name]:>23}")

    # the deadline: one slow completion among normal ones
    from rewards.adapters.trl_rewards import get_rafs_reward

    prompts, completions = batch(0, args.batch - 1)
    prompts, completions = [SLOW_PROMPT] + prompts, [SLOW] + completions
    gold = ["11"] + [None] * (args.batch - 1)
    workers = max(sizes)
    t_slow0 = time.perf_counter()
    slow_alone = get_rafs_reward(num_workers=1, cache=False)(prompts[:1], completions[:1], answer=gold[:1])
    t_slow = time.perf_counter() - t_slow0
    seconds, rewards = time_pool(workers, prompts, completions, timeout_s=args.timeout, answer=gold)
    normal, _ = time_pool(workers, prompts[1:], completions[1:], timeout_s=args.timeout)
    reference = json.loads(subprocess.run([sys.executable, __file__, "--child", "0", "--batch",
                                           str(args.batch - 1)], cwd=ROOT, capture_output=True, text=True,
                                          check=True).stdout.strip().splitlines()[-1])["rewards"]
    same = rewards[1:] == reference
    print(f"\ndeadline: {args.batch - 1} normal completions + 1 slow one (nested factorials: {t_slow:.2f} s alone, "
          f"reward {slow_alone[0]} in one process), pool-{workers}, timeout_s {args.timeout:g}: batch {seconds:.2f} s "
          f"(the normal ones alone: {normal:.2f} s); slow reward {rewards[0]}; every other reward unchanged: {same}; "
          f"batch <= deadline + 1 s: {seconds <= args.timeout + 1.0}; batch <= normal batch + deadline + 1 s: "
          f"{seconds <= normal + args.timeout + 1.0}")
    print(f"load average {os.getloadavg()[0]:.2f} at the end (other processes share these cores: read the ratios)")


if __name__ == "__main__":
    main()
