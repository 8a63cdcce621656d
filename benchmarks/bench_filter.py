"""Benchmark ``rafs filter``: rows/s on 1 process and on every usable core (same input, same run), and peak memory
as the input grows (streamed, so it should stay flat).

Inputs are GSM8K train rows (``../shared/data/gsm8k/train.jsonl``) repeated to the wanted length, each with a
unique ``id``. Every measurement runs the real command, ``python -m trainers filter IN --out OUT --num-proc N``, in a
subprocess; a sampler thread sums the resident memory (RSS) of that process and all its children every 0.1 s and
keeps the peak. The machine's 1-minute load average is printed before and after each run: on a shared machine a
load above the core count means the speed-up is a lower bound.

    python benchmarks/bench_filter.py                               # 20k rows for speed, 100k and 1M for memory
    python benchmarks/bench_filter.py --speed-rows 5000 --memory-rows 10000,50000 --json runs/bench_filter.json

Speed-up = rows/s on all cores / rows/s on 1 process; ``rows/s`` is the command's own ``summary.json`` figure (it
excludes the Python start-up, ~2 s), ``wall`` the subprocess's wall-clock time.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
GSM8K = ROOT.parent / "shared" / "data" / "gsm8k" / "train.jsonl"


def make_input(path: Path, n: int) -> Path:
    """n GSM8K train rows (repeated), each with a unique ``id``, as JSON Lines."""
    base = [json.loads(line) for line in GSM8K.open()]
    with path.open("w") as handle:
        for i in range(n):
            handle.write(json.dumps({"id": i, **base[i % len(base)]}) + "\n")
    return path


class PeakRSS(threading.Thread):
    """Peak of the summed RSS of a process and its descendants, sampled every ``interval`` seconds."""

    def __init__(self, pid: int, interval: float = 0.1):
        super().__init__(daemon=True)
        self.root = psutil.Process(pid)
        self.interval = interval
        self.peak_total = 0
        self.peak_parent = 0
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                procs = [self.root, *self.root.children(recursive=True)]
                rss = []
                for p in procs:
                    try:
                        rss.append(p.memory_info().rss)
                    except psutil.Error:
                        rss.append(0)
                self.peak_total = max(self.peak_total, sum(rss))
                self.peak_parent = max(self.peak_parent, rss[0])
            except psutil.Error:
                pass
            self.stop.wait(self.interval)


def _committed_rows(out: Path) -> int:
    lines = (out / "manifest.jsonl").read_text().splitlines()[1:] if (out / "manifest.jsonl").exists() else []
    rows = 0
    for line in lines:
        try:
            rows += json.loads(line)["rows"]
        except (json.JSONDecodeError, KeyError):
            pass
    return rows


def run_filter(inp: Path, out: Path, num_proc: int, shard_size: int, max_seconds: float | None = None) -> dict:
    """One ``rafs filter`` run; with ``max_seconds`` it is stopped (SIGKILL) then, and the rows it committed so far
    are reported (a resumable run: the same command would continue it)."""
    if out.exists():
        shutil.rmtree(out)
    load_before = os.getloadavg()[0]
    argv = [sys.executable, "-m", "trainers", "filter", str(inp), "--out", str(out), "--num-proc", str(num_proc),
            "--shard-size", str(shard_size)]
    started = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "WANDB_MODE": "disabled"}, start_new_session=True)
    sampler = PeakRSS(proc.pid)
    sampler.start()
    try:
        _, err = proc.communicate(timeout=max_seconds)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        wall = time.perf_counter() - started
        sampler.stop.set()
        sampler.join()
        rows = _committed_rows(out)
        return {"rows": rows, "input_rows": sum(1 for _ in inp.open()), "stopped_after_seconds": max_seconds,
                "num_proc": num_proc, "rows_per_second": round(rows / wall, 1), "wall_seconds": round(wall, 2),
                "peak_rss_mb": round(sampler.peak_total / 2**20, 1),
                "peak_parent_rss_mb": round(sampler.peak_parent / 2**20, 1),
                "load_before": round(load_before, 2), "load_after": round(os.getloadavg()[0], 2)}
    wall = time.perf_counter() - started
    sampler.stop.set()
    sampler.join()
    if proc.returncode != 0:
        raise SystemExit(f"rafs filter failed ({proc.returncode}): {err[-2000:]}")
    summary = json.loads((out / "summary.json").read_text())
    return {"rows": summary["n_in"], "input_rows": summary["n_in"], "num_proc": summary["num_proc"],
            "n_kept": summary["n_kept"],
            "rows_per_second": summary["rows_per_second"], "seconds": summary["seconds"], "wall_seconds": round(wall, 2),
            "peak_rss_mb": round(sampler.peak_total / 2**20, 1), "peak_parent_rss_mb": round(sampler.peak_parent / 2**20, 1),
            "load_before": round(load_before, 2), "load_after": round(os.getloadavg()[0], 2)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--speed-rows", type=int, default=20000, help="rows for the 1-vs-all-cores comparison")
    parser.add_argument("--memory-rows", default="100000,1000000", help="comma-separated input sizes for memory")
    parser.add_argument("--num-proc", type=int, default=None, help="'all cores' (default: the usable cores)")
    parser.add_argument("--shard-size", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=1,
                        help="speed runs per setting, alternating 1 proc / all cores; the best rows/s of each is used")
    parser.add_argument("--max-seconds", type=float, default=None,
                        help="stop a memory run after this long and report its peak so far (rows committed)")
    parser.add_argument("--workdir", default=None, help="where inputs and outputs go (default: a temp dir)")
    parser.add_argument("--json", default=None, help="also write the results to this JSON file")
    args = parser.parse_args(argv)
    if not GSM8K.exists():
        raise SystemExit(f"{GSM8K} is not available")
    cores = args.num_proc or len(os.sched_getaffinity(0))
    work = Path(args.workdir or tempfile.mkdtemp(prefix="bench_filter_"))
    work.mkdir(parents=True, exist_ok=True)
    results: dict = {"usable_cores": len(os.sched_getaffinity(0)), "all_cores": cores, "shard_size": args.shard_size,
                     "speed": [], "memory": []}
    print(f"usable cores {results['usable_cores']}; load average now {os.getloadavg()}", flush=True)

    speed_in = make_input(work / f"speed_{args.speed_rows}.jsonl", args.speed_rows)
    for _ in range(args.repeats):
        for n_proc in (1, cores):
            r = run_filter(speed_in, work / f"out_speed_{n_proc}", n_proc, args.shard_size)
            results["speed"].append(r)
            print(f"speed  {r['rows']:>8} rows  {n_proc} proc: {r['rows_per_second']:8.1f} rows/s  "
                  f"(wall {r['wall_seconds']} s, peak RSS {r['peak_rss_mb']} MB, load {r['load_before']}->"
                  f"{r['load_after']})", flush=True)
    one = max(r["rows_per_second"] for r in results["speed"] if r["num_proc"] == 1)
    many = max(r["rows_per_second"] for r in results["speed"] if r["num_proc"] == cores)
    results["speedup"] = round(many / one, 2) if one else None
    print(f"speed-up {cores} procs / 1 proc: {results['speedup']}x", flush=True)

    for n in [int(x) for x in args.memory_rows.split(",") if x.strip()]:
        inp = make_input(work / f"mem_{n}.jsonl", n)
        r = run_filter(inp, work / f"out_mem_{n}", cores, args.shard_size, args.max_seconds)
        results["memory"].append(r)
        stopped = f" (stopped after {r['stopped_after_seconds']} s)" if r.get("stopped_after_seconds") else ""
        print(f"memory {n:>8}-row input, {r['rows']} rows done{stopped}, {cores} proc: peak RSS {r['peak_rss_mb']} MB (parent "
              f"{r['peak_parent_rss_mb']} MB), {r['rows_per_second']} rows/s, load {r['load_before']}->"
              f"{r['load_after']}", flush=True)
        inp.unlink()
        shutil.rmtree(work / f"out_mem_{n}")
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")
    if not args.workdir:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
