"""Long traces of distinct plain-text solutions: ``rafs_reward`` beside TRL's ``accuracy_reward``, one core.

A trace of about ``--chars`` characters is built from distinct real solutions (GSM8K train, ``<<...>>`` annotations
removed, or MATH-500 solutions), one after another, ending in the last one's final answer; every repetition builds
a new trace from solutions not used before (no memo of an earlier step helps). Both rewards score the same
conversational completion with the same gold, alternated, timed in CPU seconds of this process
(``time.process_time``: a shared machine's other jobs do not count); the ratio of the medians is what to read.
``--lengths`` prints the cost curve (ms per trace against length), whose slope says whether the cost is linear.

Usage: python benchmarks/bench_long_distinct.py [--source gsm8k|math] [--lengths 16000 32000 64000 128000] [--reps 3]
Target (issue 30): at 128k characters, rafs_reward <= 10x accuracy_reward; cost linear in length.

``--same-text K``: whether the cost per character depends on the length itself and not on what the text says: each
repetition builds one trace of ``L`` characters and ``K`` traces of ``L/K`` from the same solutions, and times
``rafs_reward`` on both, alternated, with the scorer's caches cleared before each trace (neither reading reuses the
other's); the ratio of the medians (one long trace over the ``K`` short ones) is 1.0 for a cost linear in length.

``--collector``: what the deferred young collections of ``score_group`` (:mod:`rewards.scoring.collector`) save:
``rafs_reward`` with them and without (``RAFS_GC_DEFER=0``), alternated trace by trace in one process, each trace
new and scored once; CPU ms and collector ms per trace for each, and the ratio of the medians.

``--run rafs|trl --traces N``: score N traces of each length with that reward alone, untimed and silent, for an
instruction counter that a loaded machine does not blur (valgrind's cachegrind, ``PYTHONHASHSEED=0``)::

    instructions/trace = (I(--run rafs --traces N) - I(--run rafs --traces 0)) / N   (per length)
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = ROOT.parent / "shared" / "data"


def solutions(source: str) -> list[tuple[str, str]]:
    """(solution text, final answer) pairs, in file order."""
    out = []
    if source == "gsm8k":
        for line in (DATA / "gsm8k" / "train.jsonl").open():
            row = json.loads(line)
            body, answer = row["answer"].rsplit("####", 1)
            out.append((re.sub(r"<<[^>]*>>", "", body).strip(), answer.strip()))
    else:
        path = next((DATA / "math500").glob("*.jsonl"))
        for line in path.open():
            row = json.loads(line)
            out.append((row["solution"].strip(), str(row["answer"]).strip()))
    return out


def trace(pool: list[tuple[str, str]], start: int, chars: int) -> tuple[str, str, int]:
    """A trace of about ``chars`` characters from ``pool[start:]``; its text, gold and the next unused index."""
    parts, n, i = [], 0, start
    while n < chars and i < len(pool):
        parts.append(pool[i][0])
        n += len(pool[i][0]) + 2
        i += 1
    if n < chars:  # every trace is new text: fewer lengths or repetitions per run
        raise SystemExit(f"bench_long_distinct: the source's solutions ran out at a trace of {chars} characters; "
                         "ask for fewer --lengths or --reps in one run")
    gold = pool[i - 1][1]
    return "\n\n".join(parts) + f"\n\nThe answer is $\\boxed{{{gold}}}$.", gold, i


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--source", choices=("gsm8k", "math"), default="gsm8k")
    ap.add_argument("--lengths", type=int, nargs="+", default=[16_000, 32_000, 64_000, 128_000])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--run", choices=("rafs", "trl"), help="score with this reward alone, untimed (see above)")
    ap.add_argument("--traces", type=int, default=3, help="with --run: traces per length")
    ap.add_argument("--collector", action="store_true", help="the deferred young collections on and off, "
                    "alternated (see above)")
    ap.add_argument("--same-text", type=int, metavar="K", help="one trace of each length against K traces of the "
                    "same solutions, a K-th as long each (see above)")
    args = ap.parse_args()
    pool = solutions(args.source)
    problem = "Solve the problems below."
    warm, _, nxt = trace(pool, 0, 4000)  # imports and first-call costs, untimed
    if args.run == "trl":  # rafs is not imported: its imports would count
        from trl.rewards import accuracy_reward

        accuracy_reward([[{"role": "assistant", "content": warm}]], solution=["1"])
        for chars in args.lengths:
            for _ in range(args.traces):
                text, gold, nxt = trace(pool, nxt, chars)
                accuracy_reward([[{"role": "assistant", "content": text}]], solution=[gold])
        return
    from rewards.adapters.trl_rewards import get_rafs_reward

    reward = get_rafs_reward(num_workers=1, cache=False)
    reward([problem], [[{"role": "assistant", "content": warm}]], answer=["1"])
    if args.run == "rafs":
        for chars in args.lengths:
            for _ in range(args.traces):
                text, gold, nxt = trace(pool, nxt, chars)
                reward([problem], [[{"role": "assistant", "content": text}]], answer=[gold])
        return
    if args.same_text:
        same_text(reward, problem, pool, nxt, args)
        return
    if args.collector:
        collector(reward, problem, pool, nxt, args)
        return
    from trl.rewards import accuracy_reward

    accuracy_reward([[{"role": "assistant", "content": warm}]], solution=["1"])
    print(f"bench_long_distinct: {args.source}, {args.reps} reps per length, one core")
    print(f"{'chars':>8}{'rafs ms':>10}{'trl ms':>9}{'ratio':>8}{'rafs us/char':>14}{'rafs gc ms':>12}   (CPU time)")
    in_gc = _gc_clock()
    for chars in args.lengths:
        ours, theirs, collecting = [], [], []
        for rep in range(args.reps):
            text, gold, nxt = trace(pool, nxt, chars)
            completion = [[{"role": "assistant", "content": text}]]
            order = ("rafs", "trl") if rep % 2 == 0 else ("trl", "rafs")
            for name in order:
                t0 = time.process_time()
                if name == "rafs":
                    gc_before = in_gc[0]
                    reward([problem], completion, answer=[gold])
                    ours.append(time.process_time() - t0)
                    collecting.append(in_gc[0] - gc_before)
                else:
                    accuracy_reward(completion, solution=[gold])
                    theirs.append(time.process_time() - t0)
        a, b = statistics.median(ours), statistics.median(theirs)
        print(f"{chars:>8}{a * 1000:>10.0f}{b * 1000:>9.0f}{a / b:>7.1f}x{a * 1e6 / chars:>14.2f}"
              f"{statistics.mean(collecting) * 1000:>12.1f}")


def _gc_clock() -> list[float]:
    """A one-element list that holds the CPU seconds this process has spent in Python's cyclic garbage collector
    since the call (all generations; ``gc.callbacks``). The "rafs gc ms" column is its mean per ``rafs_reward``
    call: a mean, because a full collection comes every few traces and walks every object the process holds."""
    import gc

    total, started = [0.0], [0.0]

    def clock(phase: str, _info: dict) -> None:
        if phase == "start":
            started[0] = time.process_time()
        else:
            total[0] += time.process_time() - started[0]

    gc.callbacks.append(clock)
    return total


def clear_caches() -> None:
    """Empty every ``functools`` cache of the scorer's modules (as ``bench_scorer.py`` does)."""
    for name, module in list(sys.modules.items()):
        if name.startswith("rewards.") and module is not None:
            for value in list(vars(module).values()):
                if callable(getattr(value, "cache_clear", None)):
                    value.cache_clear()


def collector(reward, problem: str, pool, nxt: int, args) -> None:
    """``--collector``: ``rafs_reward`` with the deferred young collections and without, alternated per trace."""
    import os

    print(f"bench_long_distinct --collector: {args.source}, {args.reps} traces per setting and length, one core")
    print(f"{'chars':>8}{'deferred ms':>13}{'gc ms':>8}{'default ms':>12}{'gc ms':>8}{'ratio':>8}   (CPU time)")
    in_gc = _gc_clock()
    for chars in args.lengths:
        times: dict[str, list[float]] = {"1": [], "0": []}
        collecting: dict[str, list[float]] = {"1": [], "0": []}
        for rep in range(args.reps):
            for setting in (("1", "0") if rep % 2 == 0 else ("0", "1")):
                text, gold, nxt = trace(pool, nxt, chars)
                os.environ["RAFS_GC_DEFER"] = setting
                gc_before, t0 = in_gc[0], time.process_time()
                reward([problem], [[{"role": "assistant", "content": text}]], answer=[gold])
                times[setting].append(time.process_time() - t0)
                collecting[setting].append(in_gc[0] - gc_before)
        os.environ.pop("RAFS_GC_DEFER", None)
        on, off = statistics.median(times["1"]), statistics.median(times["0"])
        print(f"{chars:>8}{on * 1000:>13.0f}{statistics.mean(collecting['1']) * 1000:>8.1f}{off * 1000:>12.0f}"
              f"{statistics.mean(collecting['0']) * 1000:>8.1f}{on / off:>7.2f}x")


def same_text(reward, problem: str, pool, nxt: int, args) -> None:
    """``--same-text K``: one trace of ``L`` characters against ``K`` traces of ``L/K`` from the same solutions."""
    k = args.same_text
    print(f"bench_long_distinct --same-text {k}: {args.source}, {args.reps} reps per length, one core, caches cleared "
          "before each trace")
    print(f"{'chars':>8}{'1 trace ms':>12}{f'{k} traces ms':>14}{'ratio':>8}{'us/char':>10}{f'us/char ({k})':>14}")
    for chars in args.lengths:
        whole, parts = [], []
        for rep in range(args.reps):
            text, gold, end = trace(pool, nxt, chars)
            pieces, i = [], nxt
            while i < end:
                piece, piece_gold, i = trace(pool, i, chars // k)
                pieces.append((piece, piece_gold))
            nxt = end
            for name in (("whole", "parts") if rep % 2 == 0 else ("parts", "whole")):
                total = 0.0
                for piece, piece_gold in ([(text, gold)] if name == "whole" else pieces):
                    clear_caches()
                    t0 = time.process_time()
                    reward([problem], [[{"role": "assistant", "content": piece}]], answer=[piece_gold])
                    total += time.process_time() - t0
                (whole if name == "whole" else parts).append((total, len(text) if name == "whole"
                                                              else sum(len(p) for p, _ in pieces)))
        a = statistics.median(t for t, _ in whole)
        b = statistics.median(t for t, _ in parts)
        print(f"{chars:>8}{a * 1000:>12.0f}{b * 1000:>14.0f}{a / b:>7.2f}x"
              f"{statistics.median(t * 1e6 / n for t, n in whole):>10.2f}"
              f"{statistics.median(t * 1e6 / n for t, n in parts):>14.2f}")


if __name__ == "__main__":
    main()
