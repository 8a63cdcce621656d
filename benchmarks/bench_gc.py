"""What the scorer costs Python's cyclic garbage collector on the bench completions of ``bench_scorer.py``.

The collector runs a full collection (a walk over every tracked object of the process) each time the objects that
survived younger collections grow by a quarter of the heap; the scorer's caches (cleared per repeat in
``bench_scorer.py``) refill with new objects on every run, and garbage in reference cycles is freed only by the
collector. Both show up in ``bench_scorer.py``'s ratio. This prints, for one cold-cache pass over the completions:

* collections per generation and the time spent in them (``gc.callbacks``), per trace;
* tracked objects the caches hold after the pass (what every later full collection walks);
* objects found in reference cycles (garbage only the collector frees; 0 is the target).

Usage: python benchmarks/bench_gc.py [--n 2000]
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_scorer import completions  # noqa: E402


def _clear_caches() -> None:
    for module in [m for name, m in sys.modules.items() if name.startswith("rewards.")]:
        for value in list(vars(module).values()):
            if callable(getattr(value, "cache_clear", None)):
                value.cache_clear()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2000)
    args = parser.parse_args()
    prompts, comps, _golds = completions(args.n)

    from rewards.scoring.score import score_trace

    for p, c in zip(prompts[:50], comps[:50]):  # imports and one-time set-up
        score_trace(p, c)

    spent = [0.0, 0.0, 0.0]
    runs = [0, 0, 0]
    started = [0.0]

    def timer(phase: str, info: dict) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
        else:
            spent[info["generation"]] += time.perf_counter() - started[0]
            runs[info["generation"]] += 1

    _clear_caches()
    gc.collect()
    before = len(gc.get_objects())
    gc.callbacks.append(timer)
    try:
        t0 = time.perf_counter()
        for p, c in zip(prompts, comps):
            score_trace(p, c)
        total = time.perf_counter() - t0
    finally:
        gc.callbacks.remove(timer)
    gc.collect()
    held = len(gc.get_objects()) - before

    _clear_caches()
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        for p, c in zip(prompts, comps):
            score_trace(p, c)
        cyclic = gc.collect()
    finally:
        if enabled:
            gc.enable()

    n = len(comps)
    print(f"completions                 {n}")
    print(f"scoring                     {total * 1e3 / n:.3f} ms/trace")
    print(f"collections gen0/gen1/gen2  {runs[0]} / {runs[1]} / {runs[2]}")
    print(f"time in the collector       {sum(spent) * 1e3 / n:.3f} ms/trace "
          f"(gen2 {spent[2] * 1e3 / n:.3f})")
    print(f"objects the caches hold     {held}")
    print(f"objects in reference cycles {cyclic}")


if __name__ == "__main__":
    main()
