"""Machine instructions per ``score_trace`` call on the bench completions of ``bench_scorer.py``: a speed measure that
a shared, loaded machine does not blur.

Wall and CPU time drift by 10-30% between runs when other jobs share the cores, which hides a 5% change. Valgrind's
``cachegrind`` counts the instructions the interpreter executes (``I refs``), which load does not change:

    instructions/trace = (I(imports + n cold-cache traces) - I(imports + 0 traces)) / n

with ``PYTHONHASHSEED=0`` (set and dict iteration, and so the work done, are then the same on every run). Each tree is
the folder that holds a ``rewards/`` package (put first on ``PYTHONPATH``); the first tree is the reference of the
ratio. Instructions are a proxy: they ignore cache misses and branch mispredictions, so confirm a change with
``bench_scorer.py`` on a quiet machine. Needs ``valgrind``; about a minute per tree for ``--n 500``.

Example (measured 2026-12-02, 500 traces): main at 531a60e 9.75M instructions/trace, the perf8 worktree 8.53M
(ratio 1.14). With ``--trl`` (300 traces): TRL's ``accuracy_reward`` 6.80M instructions/trace; main at 531a60e
9.74M (ratio to it 0.70), main at e9a5b8b with session eight's rules and speed-ups 9.12M (0.75). Session nine
(2026-12-02, --n 500 --trl): TRL 7.065M; main at 76b99c8 9.479M (0.745); after three behaviour-preserving speed
rounds 6.688M (1.057; 1.417x). At --n 2000 a full garbage collection falls inside the run, so the step caches' size
shows: 6.743M with the old sizes, 6.643M sized to a GRPO batch, 6.147M after the last round (TRL 7.021M, ratio
1.14). One home per keyword list (a loop over each tuple instead of hand-unrolled copies) then cost 1%: 6.758M at
--n 500 (1.045), 6.223M at --n 2000 (1.13). Wall clock lags these counts (bench_scorer median ratio about 0.97 the same day): instructions per cycle differ.
Session ten (four behaviour-preserving rounds: extraction, claim gates and parsing, two on the dataflow): 5.697M at
--n 500 (1.198 to TRL's 6.825M that run; TRL's count moves ~3% between runs), 5.243M at --n 2000 (1.294 to 6.784M);
bench_scorer still about even (0.89-1.04): the counts and the wall clock part ways here.

Usage: python benchmarks/bench_instructions.py [--n 500] [--trl] TREE [TREE ...]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

_RUN = """
import sys
sys.path.insert(0, {bench!r})
from bench_scorer import completions
from rewards.scoring.score import score_trace
n = {n}
prompts, comps, _golds = completions(max(n, 1))
score_trace(prompts[0], comps[0])  # imports and lazy initialisation, counted in both runs
for p, c in zip(prompts[:n], comps[:n]):
    score_trace(p, c)
"""
_RUN_TRL = """
import sys
sys.path.insert(0, {bench!r})
from bench_scorer import completions
from trl.rewards import accuracy_reward
n = {n}
prompts, comps, golds = completions(max(n, 1))
accuracy_reward(comps[:1], golds[:1])  # imports and lazy initialisation, counted in both runs
if n:
    accuracy_reward(comps[:n], golds[:n])
"""
_IREFS = re.compile(r"I\s+refs:\s+([\d,]+)")


def instructions(tree: Path, n: int, template: str = _RUN) -> int:
    """Instructions executed by a Python process that imports the scorer from ``tree`` and scores ``n`` traces
    (with ``_RUN_TRL``: TRL's ``accuracy_reward`` on the same completions)."""
    code = template.format(bench=str(Path(__file__).resolve().parent), n=n)
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONHASHSEED": "0"}
    out = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
                          sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=str(tree))
    found = _IREFS.search(out.stderr)
    if out.returncode != 0 or found is None:
        raise SystemExit(f"valgrind on {tree} failed (exit {out.returncode}): {out.stderr.strip()[-300:]}")
    return int(found.group(1).replace(",", ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="+", type=Path, help="folders that hold a rewards/ package")
    parser.add_argument("--n", type=int, default=500, help="traces scored (default 500)")
    parser.add_argument("--trl", action="store_true",
                        help="also count TRL's accuracy_reward on the same completions and print each tree's "
                             "ratio to it (issue 11's throughput bar, ratio >= 1.0, without the load's noise)")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed: install it (apt-get install valgrind), or time bench_scorer.py")
    if args.n < 1:
        raise SystemExit(f"--n {args.n}: score at least one trace (e.g. --n 500)")
    for tree in args.trees:
        if not (tree / "rewards" / "__init__.py").is_file():
            raise SystemExit(f"{tree}: no rewards/ package there; pass the folder that holds rewards/")
    trl = None
    if args.trl:
        tree = args.trees[0]
        trl = (instructions(tree, args.n, _RUN_TRL) - instructions(tree, 0, _RUN_TRL)) / args.n
        print(f"{'trl accuracy_reward':40s} {trl / 1e6:8.3f} M instructions/trace", flush=True)
    reference = None
    for tree in args.trees:
        per_trace = (instructions(tree, args.n) - instructions(tree, 0)) / args.n
        reference = reference or per_trace
        vs_trl = f"   ratio to accuracy_reward {trl / per_trace:5.3f}" if trl else ""
        print(f"{str(tree):40s} {per_trace / 1e6:8.3f} M instructions/trace   ratio {reference / per_trace:5.3f}"
              + vs_trl, flush=True)


if __name__ == "__main__":
    main()
