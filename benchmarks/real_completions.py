r"""What every reward of ``REWARD_FUNCS`` pays real model completions, valid and flawed: ProcessBench's right-answer
solutions, labelled step by step by people.

Per ProcessBench split (``../shared/data/processbench/{gsm8k,math}.json``) the rows whose ``final_answer_correct``
is true are kept; ``label == -1`` is *valid* (every step right), any other label *flawed* (a step wrong, the answer
right anyway). The completion is the steps joined with a blank line; the gold is the completion's own final answer,
its last ``\boxed{}`` as the rewards read it (``rewards.parsing.trace.extract_final_answer``); rows without a box are
skipped and counted. Every reward is called exactly as GRPO calls it, one completion per call::

    fn(prompts=[problem], completions=[completion], answer=[gold])

one completion after another, the rewards' shared cache cleared before each completion (so the rewards share one
scoring of it, as in one GRPO step). Per split and reward:

* valid / flawed paid in full (at least the reward's ceiling: 1, or what a fully verified one-step derivation earns,
  :func:`rewards.adapters.reward_report.full_pay_ceiling`), valid paid 0, unscorable (``None``);
* valid paid at or below what a bare answer (``\boxed{gold}`` alone, same problem) earns;
* AUROC valid vs flawed (valid the positive class; ``roc_auc_score``) with a 95% percentile bootstrap interval
  (1,000 joint resamples, seed 0), and within length quintiles in the pooled (stratified) form — the probability
  that a valid completion outranks a flawed one of the same length quintile (characters);
  :mod:`rewards.adapters.reward_report` documents both and also gives the unweighted mean of the quintiles;
Per split: the median and max ms per completion (all the rewards on it, cold cache; a LaTeX probe is scored once
untimed beforehand, to load math-verify and sympy), the length baseline's AUROC ("the shorter completion is the valid one", score ``-len``), and false
refutation on valid solutions — some step check ``q < 0.5`` under ``score_trace`` with
``RAFSConfig(missing_evidence="no_support")`` (reward mode) and ``"absent"`` (evaluation mode), no gold given (as
``../shared/tools/false_refutation.py`` does) — and, for ``rafs_reward`` and ``faithful_accuracy_reward``, the ten
most common reasons a valid solution is not paid in full (numbers replaced by ``N``; each counted once per
solution; share of the valid solutions not paid in full).

Everything but the timings is deterministic. Run from the project root::

    python benchmarks/real_completions.py [--splits math gsm8k] [--limit N] [--json OUT.json [--force]] [--markdown]
    python benchmarks/real_completions.py --from-json benchmarks/results/real_completions.json --markdown
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's rewards, not an installed copy

from rewards import REWARD_FUNCS, RAFSConfig, get_reward_funcs, score_trace
from rewards.adapters import reward_report as rr
from rewards.adapters.files import atomic_write
from rewards.adapters.trl_rewards import clear_cache
from rewards.parsing.trace import extract_final_answer

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "processbench"
REASON_REWARDS = ("rafs", "faithful_accuracy")
RESAMPLES, SEED = 1000, 0


def load_split(split: str, limit: int | None = None) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """The right-answer rows of a split with a boxed answer, as ``{id, problem, completion, gold, valid}``, and the
    counts of rows read, kept and skipped (no ``\\boxed``)."""
    path = DATA / f"{split}.json"
    if not path.is_file():
        sys.exit(f"real_completions: error: {path} not found; the ProcessBench splits live in "
                 "../shared/data/processbench (gsm8k, math)")
    rows = [r for r in json.loads(path.read_text()) if r.get("final_answer_correct") is True]
    if limit:
        rows = rows[:limit]
    out, skipped = [], 0
    for r in rows:
        steps = json.loads(r["steps"]) if isinstance(r["steps"], str) else r["steps"]
        completion = "\n\n".join(steps)
        gold, source = extract_final_answer(completion)
        if source != "boxed":
            skipped += 1
            continue
        out.append({"id": r.get("id"), "problem": r["problem"], "completion": completion, "gold": gold,
                    "valid": int(r["label"]) == -1})
    return out, {"right_answer_rows": len(rows), "kept": len(out), "skipped_no_box": skipped}


def _refuted(result) -> bool:
    return any(c.q is not None and c.q < 0.5 for c in result.step_checks)


def score_split(rows: list[dict[str, Any]], keys: list[str], progress: bool = True) -> dict[str, Any]:
    """Call every reward on every row (and on the bare answer), score both modes; per-row values and timings."""
    from tqdm import tqdm

    funcs = {k: REWARD_FUNCS[k] for k in keys}
    instances = {k: get_reward_funcs([k], cache=True)[0] for k in keys if k in REASON_REWARDS}
    modes = {"reward": RAFSConfig(missing_evidence="no_support"), "evaluation": RAFSConfig(missing_evidence="absent")}
    values = {k: [] for k in keys}
    bare = {k: [] for k in keys}
    ms: list[float] = []
    reasons = {k: [] for k in instances}
    causes = {k: [] for k in instances}
    refuted = {m: [] for m in modes}
    rr.warm_up(funcs.values())  # math-verify and sympy load on the first LaTeX answer: once, untimed
    for row in tqdm(rows, desc="real completions", unit="completion", disable=not progress):
        p, c, g = row["problem"], row["completion"], row["gold"]
        clear_cache()  # cold for this completion; the rewards then share its score, as in one GRPO step
        t0 = time.perf_counter()
        for k, fn in funcs.items():
            values[k].append(fn(prompts=[p], completions=[c], answer=[g])[0])
        ms.append(1000 * (time.perf_counter() - t0))
        for k, inst in instances.items():  # the same config and group: the result the reward paid, from the cache
            result = inst.score([p], [c], [g])[0]
            correct = inst.correct(result, g) if hasattr(inst, "correct") else None
            reasons[k].append(rr.shortfall_reasons(result, correct=correct))
            causes[k].append(rr.shortfall_cause(result, correct=correct))
        for k, fn in funcs.items():
            bare[k].append(fn(prompts=[p], completions=[f"\\boxed{{{g}}}"], answer=[g])[0])
        for mode, cfg in modes.items():
            refuted[mode].append(_refuted(score_trace(p, c, config=cfg)))
    return {"values": values, "bare": bare, "ms": ms, "reasons": reasons, "causes": causes, "refuted": refuted}


def summarise(split: str, rows: list[dict[str, Any]], counts: dict[str, int], scored: dict[str, Any],
              ceilings: dict[str, float]) -> dict[str, Any]:
    valid = [r["valid"] for r in rows]
    lengths = [len(r["completion"]) for r in rows]
    strata = rr.length_strata(lengths, k=5)
    n_valid = sum(valid)
    length_auc, length_ci = rr.auroc_with_ci(valid, [-x for x in lengths], resamples=RESAMPLES, seed=SEED)
    out: dict[str, Any] = {
        "split": split, **counts, "n_valid": n_valid, "n_flawed": len(rows) - n_valid,
        "length_auroc": _r(length_auc),
        "length_auroc_ci": length_ci,
        "length_auroc_quintiles": rr.stratified_auroc(valid, [-x for x in lengths], strata),
        "false_refutation": {}, "rewards": {}, "reasons_valid_not_full": {},
        "timing": {"ms_median": round(statistics.median(scored["ms"]), 2) if scored["ms"] else None,
                   "ms_max": round(max(scored["ms"]), 2) if scored["ms"] else None,
                   "slowest_id": rows[max(range(len(rows)), key=scored["ms"].__getitem__)]["id"] if rows else None},
    }
    for mode, hits in scored["refuted"].items():
        k = sum(h for h, v in zip(hits, valid) if v)
        out["false_refutation"][mode] = {"refuted": k, "valid": n_valid, "share": _r(k / n_valid) if n_valid else None}
    for key, values in scored["values"].items():
        ceiling = ceilings[key]
        v_valid = [v for v, ok in zip(values, valid) if ok]
        v_flawed = [v for v, ok in zip(values, valid) if not ok]
        pay_v, pay_f = rr.pay_summary(v_valid, ceiling), rr.pay_summary(v_flawed, ceiling)
        pairs = [(v, b) for v, b, ok in zip(values, scored["bare"][key], valid) if ok and v is not None and b is not None]
        at_or_below = sum(v <= b + rr.TOL for v, b in pairs)
        auc, ci = rr.auroc_with_ci(valid, values, resamples=RESAMPLES, seed=SEED)
        quint = rr.stratified_auroc(valid, values, strata)
        out["rewards"][key] = {
            "name": REWARD_FUNCS[key].__name__, "ceiling": round(ceiling, 6),
            "valid": pay_v, "flawed": pay_f,
            "valid_at_or_below_bare": at_or_below, "valid_compared_with_bare": len(pairs),
            "valid_at_or_below_bare_share": _r(at_or_below / len(pairs)) if pairs else None,
            "bare_answer_median": _r(statistics.median([b for _, b in pairs])) if pairs else None,
            "auroc": _r(auc), "auroc_ci": ci,
            "auroc_quintiles": quint["pooled"], "auroc_quintiles_mean": quint["mean"],
            "auroc_quintiles_per_stratum": quint["per_stratum"],
        }
        if key in scored["reasons"]:
            short = [i for i, (v, ok) in enumerate(zip(values, valid)) if ok and not (v is not None and v >= ceiling - rr.TOL)]
            causes = Counter(scored["causes"][key][i] for i in short)
            out["reasons_valid_not_full"][key] = {
                "n": len(short), "causes": dict(sorted(causes.items(), key=lambda kv: (-kv[1], kv[0]))),
                "top": rr.common_reasons([scored["reasons"][key][i] for i in short], top=10)}
    return out


def _r(x: float | None) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else round(float(x), 4)


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.0f}%"


def _pct1(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def _auc(x: float | None, ci: list[float] | None = None) -> str:
    if x is None:
        return "–"
    return f"{x:.3f}" + (f" [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else "")


def markdown(report: dict[str, Any]) -> str:
    """The report as Markdown: a table of the rewards, a table of the splits, the reasons."""
    lines = ["| split | reward | valid / flawed | valid paid in full | flawed paid in full | valid paid 0 | "
             "valid ≤ bare answer | unscorable (valid) | AUROC valid vs flawed [95% CI] | AUROC within length quintiles |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for s in report["splits"]:
        for key, r in s["rewards"].items():
            lines.append(
                f"| {s['split']} | `{r['name']}` | {s['n_valid']} / {s['n_flawed']} | {_pct(r['valid']['full_share'])} | "
                f"{_pct(r['flawed']['full_share'])} | {_pct(r['valid']['zero_share'])} | "
                f"{_pct(r['valid_at_or_below_bare_share'])} | {_pct(r['valid']['none_share'])} | "
                f"{_auc(r['auroc'], r['auroc_ci'])} | {_auc(r['auroc_quintiles'])} |")
    lines += ["", "| split | right-answer rows (no `\\boxed`: skipped) | valid / flawed | length baseline AUROC "
              "(shorter = valid) [95% CI] | its AUROC within length quintiles | false refutation on valid, reward mode "
              "| evaluation mode | ms per completion, median / max |", "|---|---|---|---|---|---|---|---|"]
    for s in report["splits"]:
        fr = s["false_refutation"]
        lines.append(
            f"| {s['split']} | {s['right_answer_rows']} ({s['skipped_no_box']}) | {s['n_valid']} / {s['n_flawed']} | "
            f"{_auc(s['length_auroc'], s['length_auroc_ci'])} | {_auc(s['length_auroc_quintiles']['pooled'])} | "
            f"{_pct1(fr['reward']['share'])} ({fr['reward']['refuted']} of {fr['reward']['valid']}) | "
            f"{_pct1(fr['evaluation']['share'])} ({fr['evaluation']['refuted']} of {fr['evaluation']['valid']}) | "
            f"{_ms(s['timing']['ms_median'])} / {_ms(s['timing']['ms_max'])} |")
    for s in report["splits"]:
        for key, rs in s["reasons_valid_not_full"].items():
            name = s["rewards"][key]["name"]
            lines += ["", f"Why a valid {s['split']} solution is not paid in full by `{name}` "
                          f"({rs['n']} of {s['n_valid']}). Cause: "
                          + ", ".join(f"{c} {n}" for c, n in rs.get("causes", {}).items())
                          + f". Every reason the scorer gives them (share of those {rs['n']}):", "",
                      "| # | reason (numbers as N) | solutions | share |", "|---|---|---|---|"]
            for i, item in enumerate(rs["top"], 1):
                reason = item["reason"].replace("|", "\\|")
                lines.append(f"| {i} | {reason} | {item['count']} | {_pct(item['share'])} |")
    return "\n".join(lines)


def _ms(x: float | None) -> str:
    return "–" if x is None else (f"{x:.0f}" if x >= 10 else f"{x:.1f}")


def text_table(report: dict[str, Any]) -> str:
    """A terminal table (rich) of the rewards."""
    from rich.console import Console
    from rich.table import Table

    table = Table(title="Rewards on ProcessBench right-answer completions (valid vs flawed)")
    for col in ("split", "reward", "valid/flawed", "valid full", "flawed full", "valid 0", "valid ≤ bare", "AUROC [95% CI]",
                "AUROC quintiles"):
        table.add_column(col)
    for s in report["splits"]:
        for r in s["rewards"].values():
            table.add_row(s["split"], r["name"], f"{s['n_valid']}/{s['n_flawed']}", _pct(r["valid"]["full_share"]),
                          _pct(r["flawed"]["full_share"]), _pct(r["valid"]["zero_share"]),
                          _pct(r["valid_at_or_below_bare_share"]), _auc(r["auroc"], r["auroc_ci"]),
                          _auc(r["auroc_quintiles"]))
    console = Console(file=sys.stdout, width=200)
    with console.capture() as cap:
        console.print(table)
    lines = [cap.get()]
    for s in report["splits"]:
        fr = s["false_refutation"]
        lines.append(f"{s['split']}: length baseline AUROC {_auc(s['length_auroc'], s['length_auroc_ci'])}; false "
                     f"refutation on valid: reward mode {_pct1(fr['reward']['share'])} ({fr['reward']['refuted']} of "
                     f"{fr['reward']['valid']}), evaluation mode {_pct1(fr['evaluation']['share'])} "
                     f"({fr['evaluation']['refuted']} of {fr['evaluation']['valid']}); "
                     f"{s['skipped_no_box']} of {s['right_answer_rows']} right-answer rows skipped (no \\boxed); "
                     f"ms per completion (all rewards) median {_ms(s['timing']['ms_median'])}, max "
                     f"{_ms(s['timing']['ms_max'])}")
    return "\n".join(lines)


def run(splits: list[str], limit: int | None, keys: list[str], progress: bool = True) -> dict[str, Any]:
    t0 = time.perf_counter()
    ceilings = {k: rr.full_pay_ceiling(REWARD_FUNCS[k]) for k in keys}
    report: dict[str, Any] = {"splits": [], "rewards": keys, "bootstrap": {"resamples": RESAMPLES, "seed": SEED},
                              "limit": limit}
    for split in splits:
        rows, counts = load_split(split, limit)
        scored = score_split(rows, keys, progress=progress)
        report["splits"].append(summarise(split, rows, counts, scored, ceilings))
    report["wall_seconds"] = round(time.perf_counter() - t0, 1)
    return report


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--splits", nargs="+", default=["math", "gsm8k"], choices=["math", "gsm8k"])
    ap.add_argument("--limit", type=int, default=None, help="the first N right-answer rows of each split")
    ap.add_argument("--rewards", default=",".join(REWARD_FUNCS),
                    help=f"comma-separated registry names (default: all of {', '.join(REWARD_FUNCS)})")
    ap.add_argument("--json", default=None, help="write the report here (not overwritten without --force)")
    ap.add_argument("--force", action="store_true", help="overwrite --json")
    ap.add_argument("--markdown", action="store_true", help="print the tables as Markdown (for docs)")
    ap.add_argument("--from-json", default=None, help="print a saved report instead of measuring")
    ap.add_argument("--no-progress", action="store_true")
    args = ap.parse_args(argv)
    if args.limit is not None and args.limit < 1:
        ap.error(f"--limit {args.limit}: give a positive number of rows")
    if args.from_json:
        report = json.loads(Path(args.from_json).read_text())
    else:
        keys = [k.strip() for k in args.rewards.split(",") if k.strip()]
        unknown = [k for k in keys if k not in REWARD_FUNCS]
        if unknown or not keys:
            ap.error(f"--rewards {args.rewards!r}: unknown {unknown}; use names of {list(REWARD_FUNCS)}")
        if args.json and Path(args.json).exists() and not args.force:
            ap.error(f"--json {args.json}: the file exists; choose another path or pass --force")
        report = run(args.splits, args.limit, keys, progress=not args.no_progress)
        if args.json:
            atomic_write(args.json, json.dumps(report, indent=1, ensure_ascii=False) + "\n")
    print(markdown(report) if args.markdown else text_table(report))
    if "wall_seconds" in report:
        print(f"\nwall time: {report['wall_seconds']} s", file=sys.stderr if args.from_json else sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
