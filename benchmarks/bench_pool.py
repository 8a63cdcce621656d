"""The scoring pool on real completions: per-step latency of ``rafs_reward``, one process against N workers.

Completions: ProcessBench MATH (``shared/data/processbench/math.json``, 1,000 real model solutions), as TRL passes
them (the prompt repeated per completion; a problem that appears twice in a batch is one group). A training run
starts its pool once and scores one new batch per step, so the benchmark does the same, per setting:

* ``in-process``: ``get_rafs_reward(num_workers=1)`` in a fresh child process (one core: no pool);
* ``pool-N``: ``get_rafs_reward(num_workers=N, timeout_s=DEFAULT_TIMEOUT_S, cache=False)`` on a fresh pool of N
  workers (``pool-1`` is one worker process, the deadline's price);

each started (``start s``: a pool's ``warm()``, workers importing the scorer and scoring the warm-up groups; the
child's imports and the same warm-up; reported, never hidden, and paid once per training run), then ``--steps``
steps of ``--batch`` new completions each (distinct rows: no step sees a completion an earlier step saw). Step 1 is
the **cold step** (the first batch a fresh process meets: its caches are empty); steps 2.. are the **warm steps**,
the steady state of a training run. Within a repetition every setting scores the same slices, the settings in
alternating order; each repetition starts every setting afresh on new slices. Speedups are the median over
repetitions of the per-repetition ratios (absolute times drift on a shared machine: read the ratios). Each step's
rewards are compared exactly with the in-process rewards of the same slice.

``CPU s/step``: user + system seconds of every process that scored a warm step (the workers and the dispatching
process); ``idle-core bound``: the in-process CPU of a warm step over the largest one-process share of it — the
speedup the setting would reach if every process had a core of its own (extra CPU a pool spends and uneven shares
lower it; other jobs on the machine do not).

The deadline check scores a batch of ``--batch - 1`` normal completions plus one that hangs (a test-only verifier,
``SlowVerifier``, sleeps 60 s on it: the scorer bounds its own work on every real slow input found so far), first in
the batch, on a started pool with ``timeout_s``; it prints the batch's wall time beside the normal completions' alone
and whether every other reward equals the in-process one.

Usage: python benchmarks/bench_pool.py [--batch 256] [--steps 3] [--reps 3] [--workers 1,2] [--timeout 5]
Target (issue 30): pool-2 >= 1.7x one process on a 2-core machine; the slow batch returns within the deadline plus
1 s with every other reward unchanged. Not a CI gate: it prints, it never fails on a time.
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


def batch(start: int, size: int) -> tuple[list[str], list[str]]:
    """``size`` rows of the file from row ``start`` on (wrapping around): prompts and completions."""
    rows = json.loads(DATA.read_text())
    picked = [rows[(start + i) % len(rows)] for i in range(size)]
    return [r["problem"] for r in picked], ["\n\n".join(r["steps"]) for r in picked]


def _cpu_of(pid: int) -> float:
    """CPU seconds (user + system) a process has used, from /proc."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def child(starts: list[int], size: int, slow: bool = False) -> None:
    """The in-process setting, in this (fresh) process: start-up, then one step per slice; prints one JSON line."""
    t0 = time.perf_counter()
    from rewards.adapters.pool import warm_scorer
    from rewards.adapters.trl_rewards import get_rafs_reward

    warm_scorer()  # what a pool worker does before it reports ready
    reward = get_rafs_reward(num_workers=1, cache=False, verifier=SlowVerifier() if slow else None)
    start_s = time.perf_counter() - t0
    steps = []
    for start in starts:
        prompts, completions = batch(start, size)
        t0, c0 = time.perf_counter(), time.process_time()
        rewards = reward(prompts, completions)
        cpu = time.process_time() - c0
        steps.append({"seconds": time.perf_counter() - t0, "cpu": cpu, "most": cpu, "rewards": rewards})
    print(json.dumps({"start": start_s, "steps": steps}))


def in_process(starts: list[int], size: int, slow: bool = False) -> dict:
    out = subprocess.run([sys.executable, __file__, "--child", ",".join(map(str, starts)), "--batch", str(size)]
                         + (["--slow"] if slow else []), cwd=ROOT, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def on_pool(workers: int, slices: list[tuple[list, list]], timeout_s: float | None = None, verifier=None) -> dict:
    """A fresh pool of ``workers``: its start-up, then one step per ``(prompts, completions)`` slice (wall seconds,
    CPU of the workers and this process together, the largest one-process share, rewards); closed afterwards."""
    from rewards.adapters.pool import DEFAULT_TIMEOUT_S, close_pools, shared_pool
    from rewards.adapters.trl_rewards import get_rafs_reward

    close_pools()
    t0 = time.perf_counter()
    pool = shared_pool(workers).warm()
    start_s = time.perf_counter() - t0
    reward = get_rafs_reward(num_workers=workers, cache=False, verifier=verifier,
                             timeout_s=timeout_s if timeout_s is not None else DEFAULT_TIMEOUT_S)
    steps = []
    for prompts, completions in slices:
        pids = pool.pids()
        before = {pid: _cpu_of(pid) for pid in pids}
        t0, c0 = time.perf_counter(), time.process_time()
        rewards = reward(prompts, completions)
        seconds, parent = time.perf_counter() - t0, time.process_time() - c0
        shares = [_cpu_of(pid) - before[pid] for pid in pids if pid in pool.pids()] + [parent]
        steps.append({"seconds": seconds, "cpu": sum(shares), "most": max(shares), "parent": parent,
                      "rewards": rewards})
    close_pools()
    return {"start": start_s, "steps": steps}


def _ratio(a: list[float], b: list[float]) -> float:
    pairs = [x / y for x, y in zip(a, b) if y > 0]
    return statistics.median(pairs) if pairs else float("nan")


def report(runs: dict[str, list[dict]], args) -> None:
    """The table: per setting, start-up, cold step, warm steps, speedups, CPU and the idle-core bound."""
    warm = {k: [statistics.mean(s["seconds"] for s in run["steps"][1:]) for run in v] for k, v in runs.items()}
    cold = {k: [run["steps"][0]["seconds"] for run in v] for k, v in runs.items()}
    cpu = {k: [statistics.mean(s["cpu"] for s in run["steps"][1:]) for run in v] for k, v in runs.items()}
    most = {k: [statistics.mean(s["most"] for s in run["steps"][1:]) for run in v] for k, v in runs.items()}
    parent = {k: [statistics.mean(s.get("parent", 0.0) for s in run["steps"][1:]) for run in v]
              for k, v in runs.items()}
    ref = "pool-1" if "pool-1" in runs else "in-process"
    print(f"\nper-step latency, batch of {args.batch}: cold = step 1 of a fresh process or pool, warm = the mean of "
          f"steps 2..{args.steps} (the steady state); medians over {args.reps} repetitions; speedups are medians of "
          "the per-repetition ratios")
    print(f"{'setting':<12}{'start s':>8}{'cold ms':>9}{'warm ms':>9}{'ms/compl.':>10}{'warm vs ' + ref:>16}"
          f"{'warm vs in-proc':>17}{'cold vs in-proc':>17}{'CPU s/step':>11}{'parent CPU s':>13}"
          f"{'idle-core bound':>16}{'rewards != in-proc':>20}")
    for name, values in runs.items():
        med = statistics.median(warm[name])
        bound = _ratio(cpu["in-process"], most[name])
        print(f"{name:<12}{statistics.median(r['start'] for r in values):>8.1f}"
              f"{statistics.median(cold[name]) * 1000:>9.0f}{med * 1000:>9.0f}{med * 1000 / args.batch:>10.1f}"
              f"{_ratio(warm[ref], warm[name]):>15.2f}x{_ratio(warm['in-process'], warm[name]):>16.2f}x"
              f"{_ratio(cold['in-process'], cold[name]):>16.2f}x{statistics.median(cpu[name]):>11.2f}"
              f"{statistics.median(parent[name]):>13.2f}{bound:>15.2f}x{args.mismatches[name]:>20}")


def deadline_check(args, workers: int) -> None:
    """A batch with one completion that hangs, first, on a started pool with ``timeout_s``."""
    import bench_pool  # the verifier by module name, so that the workers import it

    prompts, completions = batch(0, args.batch - 1)
    verifier = bench_pool.SlowVerifier()
    # each on a fresh started pool: a pool that scored these completions once would score them again from its
    # workers' caches
    with_slow = on_pool(workers, [([SLOW_PROMPT] + prompts, [SLOW] + completions)], timeout_s=args.timeout,
                        verifier=verifier)["steps"][0]
    normal_only = on_pool(workers, [(prompts, completions)], timeout_s=args.timeout, verifier=verifier)["steps"][0]
    seconds, normal, rewards = with_slow["seconds"], normal_only["seconds"], with_slow["rewards"]
    reference = in_process([0], args.batch - 1, slow=True)["steps"][0]["rewards"]
    same = rewards[1:] == reference and normal_only["rewards"] == reference
    print(f"\ndeadline: {args.batch - 1} normal completions + 1 that hangs (60 s in the verifier), first in the batch, "
          f"pool-{workers} (started), timeout_s {args.timeout:g}: batch {seconds:.2f} s (the normal ones alone, on "
          f"another started pool: {normal:.2f} s); the hanging one's reward {rewards[0]}; every other reward unchanged: {same}; "
          f"batch <= deadline + 1 s: {seconds <= args.timeout + 1.0}; batch <= normal batch + deadline + 1 s: "
          f"{seconds <= normal + args.timeout + 1.0}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--steps", type=int, default=3, help="steps per started setting (>= 2: one cold, the rest warm)")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--workers", default=None, help="comma-separated pool sizes (default: 1, 2, 4, ... and the cores)")
    ap.add_argument("--timeout", type=float, default=5.0, help="deadline of the slow-batch check (s)")
    ap.add_argument("--no-deadline", action="store_true", help="skip the slow-batch check")
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--slow", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child is not None:
        child([int(s) for s in args.child.split(",")], args.batch, args.slow)
        return
    if args.steps < 2:
        ap.error(f"--steps {args.steps}: needs at least 2 (one cold step, then warm ones)")
    cores = len(os.sched_getaffinity(0))
    default = sorted({1, cores, *[2 ** k for k in range(1, 8) if 2 ** k <= cores]})
    sizes = [int(w) for w in args.workers.split(",")] if args.workers else default
    rows = len(json.loads(DATA.read_text()))
    print(f"bench_pool: ProcessBench MATH, batch {args.batch}, {args.steps} steps per setting, {args.reps} reps, "
          f"cores available {cores}, load average {os.getloadavg()[0]:.2f} at start")
    runs: dict[str, list[dict]] = {"in-process": [], **{f"pool-{n}": [] for n in sizes}}
    args.mismatches = {k: 0 for k in runs}
    for rep in range(args.reps):
        starts = [((rep * args.steps + s) * args.batch) % rows for s in range(args.steps)]
        slices = [batch(start, args.batch) for start in starts]
        order = list(runs) if rep % 2 == 0 else list(runs)[::-1]  # alternate which setting runs first
        got = {}
        for name in order:
            got[name] = (in_process(starts, args.batch) if name == "in-process"
                         else on_pool(int(name.split("-")[1]), slices))
            runs[name].append(got[name])
        for name, run in got.items():
            for step, ref in zip(run["steps"], got["in-process"]["steps"]):
                args.mismatches[name] += sum(a != b for a, b in zip(step["rewards"], ref["rewards"]))
        print(f"  rep {rep} (rows from {starts}): " + "; ".join(
            f"{n} start {got[n]['start']:.1f} s, steps " + "/".join(f"{s['seconds'] * 1000:.0f}" for s in
                                                                  got[n]["steps"]) + " ms" for n in runs)
              + f"; load {os.getloadavg()[0]:.2f}", flush=True)
    report(runs, args)
    if not args.no_deadline:
        deadline_check(args, max(sizes))
    print(f"load average {os.getloadavg()[0]:.2f} at the end (other processes share these cores: read the ratios)")


if __name__ == "__main__":
    main()
