"""Measure claim checkers (:mod:`rewards.checks.claims`) on human-labelled and gold data, against the scorer without them.

For each ProcessBench split it scores every row twice — with ``rewards.checks.claims.CHECKERS`` empty (baseline) and with
the named checkers — and prints the ProcessBench metric both ways plus what changed: *hits* (an erroneous row whose
predicted earliest error became the label), *lost* (a hit the checker destroyed by flagging an earlier step),
*false alarms* (a correct row newly flagged). On gold solutions (GSM8K train, MATH-500: written by people and
checked, so nearly every flag is a false alarm) it counts newly flagged traces. ``--show`` lists every flag the
checkers raised, with its kind and detail, for reading.

    python benchmarks/claim_checkers.py rewards.checks.claims.congruences:check_trace --show
    python benchmarks/claim_checkers.py all            # the checkers the scorer ships with

Measures; does not gate anything.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = ROOT.parent / "shared" / "data"

from rewards.checks import claims  # noqa: E402
from rewards.adapters.evaluation import processbench_metrics  # noqa: E402
from rewards.scoring.score import score_trace  # noqa: E402


def _load(spec: str):
    module, _, name = spec.partition(":")
    return getattr(importlib.import_module(module), name or "check_trace")


def _suspects(rows, checkers):
    claims.CHECKERS[:] = checkers
    from rewards.checks.equations import step_equations

    step_equations.cache_clear()
    t0 = time.perf_counter()
    out = []
    for r in rows:
        res = score_trace(r["problem"], steps=r.get("steps"), completion=r.get("completion"))
        out.append(res.suspect_step)
    return out, time.perf_counter() - t0


def _own_flags(rows, checkers):
    flags = []
    t0 = time.perf_counter()
    for i, r in enumerate(rows):
        steps = r.get("steps")
        if steps is None:
            from rewards.parsing.trace import parse_trace

            steps = parse_trace(r["problem"], r["completion"]).steps
        claims.CHECKERS[:] = checkers
        for k, c in claims.trace_checks(steps, r["problem"]):
            flags.append((i, k, c.detail))
    return flags, time.perf_counter() - t0


def processbench(split: str, checkers, show: bool, limit: int | None):
    rows = json.loads((DATA / "processbench" / f"{split}.json").read_text())[:limit]
    labels = [r["label"] for r in rows]
    _suspects(rows[:200], checkers)  # warm-up: imports and problem caches, so the two timings compare
    base, t_base = _suspects(rows, [])
    new, t_new = _suspects(rows, checkers)
    claims.CHECKERS[:] = []
    pb = lambda s: processbench_metrics(labels, [-1 if x is None else x for x in s])  # noqa: E731
    b, n = pb(base), pb(new)
    hits = sum(1 for L, x, y in zip(labels, base, new) if L != -1 and x != L and y == L)
    lost = sum(1 for L, x, y in zip(labels, base, new) if L != -1 and x == L and y != L)
    false = sum(1 for L, x, y in zip(labels, base, new) if L == -1 and x is None and y is not None)
    print(f"\n== ProcessBench {split} ({len(rows)} rows)")
    print(f"   baseline : acc_err {b['acc_erroneous']:.4f}  acc_cor {b['acc_correct']:.4f}  F1 {b['f1']:.4f}")
    print(f"   checkers : acc_err {n['acc_erroneous']:.4f}  acc_cor {n['acc_correct']:.4f}  F1 {n['f1']:.4f}")
    print(f"   +{hits} hits, -{lost} lost hits, {false} new false alarms on correct rows; "
          f"scoring time ×{t_new / max(t_base, 1e-9):.2f}")
    if show:
        flags, _ = _own_flags(rows, checkers)
        for i, k, detail in flags:
            L = labels[i]
            kind = ("HIT" if k == L else "FALSE(correct row)" if L == -1 else "EARLY" if k < L else "late")
            print(f"   [{kind:>18}] {rows[i].get('id', i)} step {k} (label {L}): {detail[:200]}")
    return hits, lost, false


def gold(name: str, checkers, show: bool, limit: int | None):
    if name == "gsm8k":
        src = [json.loads(x) for x in (DATA / "gsm8k" / "train.jsonl").read_text().splitlines()][:limit]
        rows = [{"problem": r["question"], "completion": r["answer"]} for r in src]
    else:
        src = [json.loads(x) for x in (DATA / "math500" / "test.jsonl").read_text().splitlines()][:limit]
        rows = [{"problem": r["problem"], "completion": r["solution"], "id": r["unique_id"]} for r in src]
    base, _ = _suspects(rows, [])
    new, _ = _suspects(rows, checkers)
    claims.CHECKERS[:] = []
    newly = sum(1 for x, y in zip(base, new) if x is None and y is not None)
    print(f"\n== gold {name} ({len(rows)} solutions): {newly} newly flagged "
          f"({sum(x is not None for x in base)} flagged before)")
    if show:
        flags, t = _own_flags(rows, checkers)
        for i, k, detail in flags:
            print(f"   [gold flag] {rows[i].get('id', i)} step {k}: {detail[:200]}")
        print(f"   checkers alone: {1000 * t / max(len(rows), 1):.3f} ms/trace")
    return newly


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("checkers", nargs="+",
                    help="module:function specs, 'all' for the shipped CHECKERS, 'none' for the scorer alone")
    ap.add_argument("--show", action="store_true", help="list every flag the checkers raise")
    ap.add_argument("--limit", type=int, default=None, help="first N rows of each set (quick looks)")
    ap.add_argument("--no-gold", action="store_true", help="skip the gold-solution false-alarm sets")
    args = ap.parse_args(argv)
    shipped = list(claims.CHECKERS)
    checkers = (shipped if args.checkers == ["all"] else [] if args.checkers == ["none"]
                else [_load(s) for s in args.checkers])
    for split in ("gsm8k", "math"):
        processbench(split, checkers, args.show, args.limit)
    if not args.no_gold:
        for name in ("gsm8k", "math500"):
            gold(name, checkers, args.show, args.limit)
    claims.CHECKERS[:] = shipped
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
