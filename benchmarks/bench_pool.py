"""The scoring pool on real completions: per-step latency of ``rafs_reward`` on a batch, 1 vs N workers.

Completions: ProcessBench MATH (``shared/data/processbench/math.json``, 1,000 real model solutions; a problem that
appears twice is one group of 2, the rest are groups of 1), as TRL passes them (the prompt repeated per completion).
Each repetition takes a new slice of ``--batch`` completions (every step is new: no cache of an earlier step helps)
and scores that same slice once per setting, the settings alternated within the repetition:

* ``in-process``: ``get_rafs_reward(num_workers=1)`` in a fresh child process (what one core gives today);
* ``pool-N``: ``get_rafs_reward(num_workers=N, cache=False)`` on a fresh, started pool of N workers (its start is
  not timed: a trainer starts it once).

Every setting gets fresh processes, so none gains from another having seen the slice; each first scores the same
64 other completions (the file's last 64, never timed) so that the timed step meets warm processes, as every step
after the first does in training. The ratio of each setting
to ``pool-1`` and to ``in-process`` is what to read: absolute times drift on a shared machine. Each setting's
rewards are compared with the in-process rewards, exactly.

The deadline check scores a batch of ``--batch - 1`` normal completions plus one that hangs (a test-only verifier,
``SlowVerifier``, sleeps 60 s on it: the scorer bounds its own work on every real slow input found so far), with
``timeout_s``; it prints the batch's wall time beside the normal completions' alone, and whether every other
reward equals the in-process one.

Usage: python benchmarks/bench_pool.py [--batch 256] [--reps 3] [--workers 1,2] [--timeout 5]
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
MARKER = "This step takes the verifier a minute."
SLOW = f"4 * 2 = 8 apples.\n3 + 8 = 11 apples.\n{MARKER}\nThe answer is $\\boxed{{11}}$."

try:
    from rewards.verifiers.symbolic import SymbolicVerifier
except ImportError:  # pragma: no cover
    SymbolicVerifier = object


class SlowVerifier(SymbolicVerifier):
    """The symbolic verifier, except that a trace holding :data:`MARKER` takes 60 s: a completion that hangs (the
    scorer bounds its own work on every slow input found so far, so the hang is injected through the public
    ``verifier=`` argument)."""

    def verify(self, trace, flow):
        if MARKER in trace.text:
            time.sleep(60)
        return super().verify(trace, flow)


WARM = 64  # completions from the end of the file that every scoring process sees before the timed step


def warm_batch() -> tuple[list[str], list[str]]:
    """The last :data:`WARM` completions (never in a timed slice): a pool runs for a whole training, so a step
    meets warm processes (imports, compiled patterns, sympy's caches) with completions they have not seen."""
    rows = json.loads(DATA.read_text())[-WARM:]
    return [r["problem"] for r in rows], ["\n\n".join(r["steps"]) for r in rows]


def batch(start: int, size: int) -> tuple[list[str], list[str]]:
    rows = json.loads(DATA.read_text())[:-WARM]
    picked = [rows[(start + i) % len(rows)] for i in range(size)]
    return [r["problem"] for r in picked], ["\n\n".join(r["steps"]) for r in picked]


def time_in_process(start: int, size: int) -> tuple[float, list, float, float]:
    """Score the slice in a fresh child process (cold caches) in one process: wall seconds, rewards, CPU seconds
    (and the same CPU seconds as the longest single-process share)."""
    out = subprocess.run([sys.executable, __file__, "--child", str(start), "--batch", str(size)], cwd=ROOT,
                         capture_output=True, text=True, check=True)
    data = json.loads(out.stdout.strip().splitlines()[-1])
    return data["seconds"], data["rewards"], data["cpu"], data["cpu"]


def _cpu_of(pid: int) -> float:
    """CPU seconds (user + system) a process has used, from /proc."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def child(start: int, size: int, slow: bool = False) -> None:
    from rewards.adapters.trl_rewards import get_rafs_reward

    prompts, completions = batch(start, size)
    reward = get_rafs_reward(num_workers=1, cache=False, verifier=SlowVerifier() if slow else None)
    reward(*warm_batch())
    t0, c0 = time.perf_counter(), time.process_time()
    rewards = reward(prompts, completions)
    print(json.dumps({"seconds": time.perf_counter() - t0, "cpu": time.process_time() - c0, "rewards": rewards}))


def time_pool(workers: int, prompts, completions, timeout_s=None, verifier=None,
              **kwargs) -> tuple[float, list, float, float]:
    """Score on a fresh, started pool: wall seconds, rewards, CPU seconds of the workers and this process together,
    and the largest CPU share of one process (a worker, or this one dispatching)."""
    from rewards.adapters.pool import close_pools, shared_pool
    from rewards.adapters.trl_rewards import get_rafs_reward

    close_pools()
    pool = shared_pool(workers).warm()
    reward = get_rafs_reward(num_workers=workers, cache=False, timeout_s=timeout_s, verifier=verifier)
    reward(*warm_batch())
    pids = pool.pids()
    before = {pid: _cpu_of(pid) for pid in pids}
    t0, c0 = time.perf_counter(), time.process_time()
    rewards = reward(prompts, completions, **kwargs)
    seconds, parent = time.perf_counter() - t0, time.process_time() - c0
    shares = [_cpu_of(pid) - before[pid] for pid in pids if pid in pool.pids()] + [parent]
    close_pools()
    return seconds, rewards, sum(shares), max(shares)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--workers", default=None, help="comma-separated pool sizes (default: 1..cores, then 2x)")
    ap.add_argument("--timeout", type=float, default=5.0, help="deadline of the slow-batch check (s)")
    ap.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--slow", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child is not None:
        child(args.child, args.batch, args.slow)
        return
    cores = len(os.sched_getaffinity(0))
    sizes = [int(w) for w in args.workers.split(",")] if args.workers else sorted({1, *range(2, cores + 1)})
    print(f"bench_pool: ProcessBench MATH, batch {args.batch}, {args.reps} reps, cores available {cores}, "
          f"load average {os.getloadavg()[0]:.2f} at start")
    times: dict[str, list[float]] = {"in-process": [], **{f"pool-{n}": [] for n in sizes}}
    cpu: dict[str, list[float]] = {k: [] for k in times}
    longest: dict[str, list[float]] = {k: [] for k in times}
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
                seconds, rewards, used, most = time_in_process(start, args.batch)
            else:
                seconds, rewards, used, most = time_pool(int(name.split("-")[1]), prompts, completions)
            times[name].append(seconds)
            cpu[name].append(used)
            longest[name].append(most)
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
    print("CPU s: user+system of every process that scored (workers and the dispatching process); idle-core bound: "
          "in-process CPU / the largest one-process CPU share (the speedup if every process had a core of its own)")
    print(f"{'setting':<12}{'ms/step':>10}{'ms/compl.':>11}{'vs pool-1':>11}{'vs in-proc':>12}{'CPU s':>8}"
          f"{'idle-core bound':>17}{'rewards != in-process':>23}")
    for name, values in times.items():
        med = statistics.median(values)
        vs1 = (statistics.median(a / b for a, b in zip(times["pool-1"], values)) if base else float("nan"))
        vsin = statistics.median(a / b for a, b in zip(times["in-process"], values))
        bound = statistics.median(a / b for a, b in zip(cpu["in-process"], longest[name]) if b > 0)
        print(f"{name:<12}{med * 1000:>10.0f}{med * 1000 / args.batch:>11.1f}{vs1:>10.2f}x{vsin:>11.2f}x"
              f"{statistics.median(cpu[name]):>8.1f}{bound:>16.2f}x{mismatches[name]:>23}")

    # the deadline: one completion that hangs among normal ones (the class by module name, so workers import it)
    import bench_pool

    prompts, completions = batch(0, args.batch - 1)
    prompts, completions = [SLOW_PROMPT] + prompts, [SLOW] + completions
    workers = max(sizes)
    verifier = bench_pool.SlowVerifier()
    seconds, rewards, _, _ = time_pool(workers, prompts, completions, timeout_s=args.timeout, verifier=verifier)
    normal, *_ = time_pool(workers, prompts[1:], completions[1:], timeout_s=args.timeout, verifier=verifier)
    reference = json.loads(subprocess.run([sys.executable, __file__, "--child", "0", "--batch",
                                           str(args.batch - 1), "--slow"], cwd=ROOT, capture_output=True, text=True,
                                          check=True).stdout.strip().splitlines()[-1])["rewards"]
    same = rewards[1:] == reference
    print(f"\ndeadline: {args.batch - 1} normal completions + 1 that hangs (60 s in the verifier), first in the batch, "
          f"pool-{workers}, timeout_s {args.timeout:g}: batch {seconds:.2f} s (the normal ones alone: {normal:.2f} "
          f"s); the hanging one's reward {rewards[0]}; every other reward unchanged: {same}; "
          f"batch <= deadline + 1 s: {seconds <= args.timeout + 1.0}; batch <= normal batch + deadline + 1 s: "
          f"{seconds <= normal + args.timeout + 1.0}")
    print(f"load average {os.getloadavg()[0]:.2f} at the end (other processes share these cores: read the ratios)")


if __name__ == "__main__":
    main()
