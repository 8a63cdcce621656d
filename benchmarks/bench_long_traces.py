"""Long R1-style traces (issue 17): ms per trace at 2k–128k characters beside TRL's ``accuracy_reward``, and the
verdict per kind of the generated battery (:mod:`benchmarks.long_traces`).

For each length and seed the battery's eight kinds are scored once each (fresh text per seed, so no cache hit
flatters the time) by ``rewards.score_trace`` with the gold answer and by ``trl.rewards.accuracy_reward`` on the
same conversational completions, on one core. The table prints the median and max ms per trace and the ratio
of the medians (RAFS / TRL; medians because a shared machine's noise lands in the mean); then, per kind at each
length, the verdict: status, failure type, suspect step (``!`` when it is not the step the battery expects), RAFS,
and whether the answer is right; and, when ``rewards.scoring.revisions`` is importable, what the revision analysis
found (``S`` superseded, ``F`` fake, ``T`` turned, ``C`` summary conflicts) against the battery's expectation, and
the verdict the scorer would give under the wiring proposed in docs/long_traces.md (:func:`proposed`), computed
here from the scorer's own step validities and components — a simulation until ``score.py`` applies it.

Usage: python benchmarks/bench_long_traces.py [--lengths 2000 8000 32000 128000] [--seeds 3] [--json out.json]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import logging
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's rewards, not an installed copy

HERE = Path(__file__).resolve().parent


def _load_battery():
    spec = importlib.util.spec_from_file_location("long_traces", HERE / "long_traces.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("long_traces", module)
    spec.loader.exec_module(module)
    return module


def _step_of(trace, marker: str | None) -> int | None:
    if marker is None:
        return None
    return next((i for i, s in enumerate(trace.steps) if marker in s), -1)


def proposed(res, rev, flow=None, cfg=None) -> dict:
    """The verdict under the proposed use of :class:`~rewards.scoring.revisions.Revisions` (docs/long_traces.md):

    superseded steps leave P_R and the suspect-step search; a turn to a wrong answer (gold known) and a summary
    step that contradicts the thinking count as false steps (``q = 0.05``, the symbolic verifier's ``q_false``);
    fake retractions change nothing (the fault stands); accept needs no suspect step and no summary conflict.
    P_R is taken as the scorer takes it (over ``answer_path(flow)`` and every refuted step when the scorer has
    ``answer_path``; over every step otherwise); the other components are the scorer's own.
    """
    from rewards.scoring import components as C
    from rewards.scoring.score import RAFSConfig

    cfg = cfg or RAFSConfig()
    if res.score is None:
        return {"status": res.status, "failure_type": None, "suspect": None, "rafs": None}
    q = [c.q for c in res.step_checks]
    if rev.turned_at is not None and res.correct is False and rev.turned_at < len(q):
        q[rev.turned_at] = min(q[rev.turned_at], 0.05)
    for line in rev.summary_conflicts:
        k = int(line.split(":", 1)[0].rsplit(" ", 1)[-1])
        if k < len(q):
            q[k] = min(q[k], 0.05)
    try:
        from rewards.evidence import answer_path

        path = set(answer_path(flow)) if flow is not None else set()
    except ImportError:
        path = set()
    steps = sorted(path | {t for t, x in enumerate(q) if x < cfg.theta_step}) if path else range(len(q))
    kept = [q[t] for t in steps if t not in rev.superseded]
    comps = dict(res.components)
    comps["P_R"] = C.step_validity(kept, cfg.lam, smooth=cfg.smooth)
    score = C.aggregate(comps, cfg.weights, cfg.eps)
    suspect = next((t for t, x in enumerate(q) if x < cfg.theta_step and t not in rev.superseded), None)
    feeding = any(r.startswith("ungrounded quantity feeds") for r in res.reasons)
    accept = score is not None and score >= cfg.tau_accept and suspect is None and not feeding
    valid = suspect is None
    if res.correct is None:
        failure = None if valid else "invalid_reasoning"
    elif res.correct:
        failure = "faithful_success" if valid else "silent_failure"
    else:
        failure = "extraction_failure" if valid else "overt_failure"
    return {"status": "accept" if accept else "review", "failure_type": failure, "suspect": suspect,
            "rafs": None if score is None else round(score, 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", type=int, nargs="+", default=[2_000, 8_000, 32_000, 128_000])
    parser.add_argument("--seeds", type=int, default=3, help="battery seeds per length (8 traces each)")
    parser.add_argument("--json", type=Path, default=None, help="write the per-trace rows here")
    parser.add_argument("--force", action="store_true", help="overwrite --json if it exists")
    args = parser.parse_args(argv)
    if args.json is not None and args.json.exists() and not args.force:
        print(f"error: --json {args.json} exists; pass --force to overwrite it", file=sys.stderr)
        return 2
    if args.seeds < 1 or any(n < 1000 for n in args.lengths):
        print("error: --seeds must be >= 1 and every --lengths value >= 1000", file=sys.stderr)
        return 2
    try:
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    except (AttributeError, OSError):
        pass
    logging.disable(logging.WARNING)
    from trl.rewards import accuracy_reward

    from rewards import score_trace
    from rewards.parsing.trace import parse_trace

    try:
        from rewards.evidence import build_dataflow
        from rewards.scoring.revisions import analyse_revisions
        from rewards.verifiers.symbolic import SymbolicVerifier
    except ImportError:
        analyse_revisions = None
    lt = _load_battery()
    for row in lt.battery(2_000, seed=10_000):  # warm imports and caches on text not measured
        score_trace(row["problem"], [{"role": "assistant", "content": row["completion"]}], gold=row["gold"])
        accuracy_reward([[{"role": "assistant", "content": row["completion"]}]], [row["gold"]])
    out = []
    print(f"{'chars':>7} {'n':>3} {'RAFS ms median':>14} {'max':>8} {'TRL ms median':>13} {'max':>7} {'ratio':>6} "
          f"{'revisions ms median':>19} {'max':>6}")
    verdicts = {}
    for length in args.lengths:
        ms_r, ms_t, ms_v = [], [], []
        for seed in range(args.seeds):
            for row in lt.battery(length, seed=seed):
                msgs = [{"role": "assistant", "content": row["completion"]}]
                t0 = time.perf_counter()
                res = score_trace(row["problem"], msgs, gold=row["gold"])
                t1 = time.perf_counter()
                trl = accuracy_reward([msgs], [row["gold"]])[0]
                t2 = time.perf_counter()
                ms_r.append(1e3 * (t1 - t0))
                ms_t.append(1e3 * (t2 - t1))
                trace = parse_trace(row["problem"], msgs)
                exp = row["expect"]
                rec = {"length": length, "seed": seed, "kind": row["kind"], "chars": len(row["completion"]),
                       "steps": len(trace.steps), "status": res.status, "failure_type": res.failure_type,
                       "suspect": res.suspect_step, "expected_suspect": _step_of(trace, exp["fault"]),
                       "rafs": None if res.score is None else round(res.score, 1), "correct": res.correct,
                       "trl": trl, "ms": round(1e3 * (t1 - t0), 2), "trl_ms": round(1e3 * (t2 - t1), 2),
                       "reasons": res.reasons[:2]}
                if analyse_revisions is not None and not trace.issues:
                    flow = build_dataflow(trace)
                    q = [c.q for c in SymbolicVerifier().verify(trace, flow)]
                    t3 = time.perf_counter()
                    rev = analyse_revisions(trace, flow, q)
                    rec["revisions_ms"] = round(1e3 * (time.perf_counter() - t3), 2)
                    ms_v.append(rec["revisions_ms"])
                    rec["superseded"] = sorted(rev.superseded)
                    rec["fake"] = sorted(rev.fake)
                    rec["turned_at"] = rev.turned_at
                    rec["summary_conflicts"] = len(rev.summary_conflicts)
                    rec["expected_superseded"] = _step_of(trace, exp["superseded"])
                    rec["expected_fake"] = _step_of(trace, exp["fake"])
                    rec["expected_turned"] = _step_of(trace, exp["turned"])
                    rec["expected_conflict"] = exp["summary_conflict"]
                    rec["proposed"] = proposed(res, rev, flow)
                    rec["expected_status"] = exp["status"]
                out.append(rec)
                if seed == 0:
                    verdicts[(length, row["kind"])] = rec
        ratio = statistics.median(ms_r) / statistics.median(ms_t)
        rev_cols = f"{statistics.median(ms_v):>19.1f} {max(ms_v):>6.1f}" if ms_v else f"{'-':>19} {'-':>6}"
        print(f"{length:>7} {len(ms_r):>3} {statistics.median(ms_r):>14.1f} {max(ms_r):>8.1f} "
              f"{statistics.median(ms_t):>13.1f} {max(ms_t):>7.1f} {ratio:>6.2f} {rev_cols}")
    print()
    print(f"{'chars':>7} {'kind':<19} {'steps':>5} {'status':<8} {'failure':<18} {'suspect':>8} {'RAFS':>6} "
          f"{'correct':>7} {'TRL':>4}  revisions (seed 0)")
    for (length, kind), r in verdicts.items():
        mark = "" if r["suspect"] == r["expected_suspect"] else "!"
        sus = "-" if r["suspect"] is None else str(r["suspect"])
        rev = ""
        if "superseded" in r:
            p = r["proposed"]
            mark_p = "" if p["suspect"] == r["expected_suspect"] else "!"
            rev = (f"S{r['superseded'][:3]}(exp {r['expected_superseded']}) F{r['fake'][:3]}(exp {r['expected_fake']}) "
                   f"T{r['turned_at']}(exp {r['expected_turned']}) C{r['summary_conflicts']}"
                   f"(exp {int(r['expected_conflict'])})  proposed: {p['status']} {p['failure_type']} "
                   f"suspect {p['suspect']}{mark_p} RAFS {p['rafs']} (expected {r['expected_status']})")
        print(f"{length:>7} {kind:<19} {r['steps']:>5} {r['status']:<8} {str(r['failure_type']):<18} "
              f"{sus + mark:>8} {str(r['rafs']):>6} {str(r['correct']):>7} {str(r['trl']):>4}  {rev}")
    if args.json is not None:
        args.json.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
