"""Regenerate every figure the docs quote from a run, into ``docs/figures.json``; optionally rewrite the docs.

A *figure* is a number (or a short verdict) that README.md or ``docs/*.md`` quote and that comes from running
something: the scorer on the README's example, ``rafs eval`` on ProcessBench, ``rafs filter`` on GSM8K train, the
differentiable example of ``docs/verifiers.md``, the experiments' reports. The docs mark each quoted figure with an
HTML comment pair that GitHub renders as nothing::

    GSM8K train: <!-- fig:filter_gsm8k_kept -->7,162<!-- /fig --> of <!-- fig:filter_gsm8k_n -->7,473<!-- /fig -->

Inside a fenced code block (where a comment would show) a figure is quoted after a fixed anchor instead: the
``CODE_FIGURES`` table below names the file, the anchor text, and the figure whose display must follow it.

``docs/figures.json`` maps each name to ``value`` (the raw number), ``display`` (the text the docs show),
``kind``, ``command`` (what produced it), ``measured_utc`` and ``source``. ``tests/test_docs_figures.py`` fails when
a marked figure differs from figures.json, and recomputes the figures of kind ``fast``.

Kinds:

* ``fast`` — recomputed on every run of this script (each well under a minute of CPU): the README's scoring
  example and long_traces.md's self-correction example, ProcessBench (``rafs eval``, both splits, no step-detector
  ablation: the metric, the silent-failure detectors, H1, the tau_accept evidence of scoring.md), the GSM8K-train
  filter counts (``rafs filter``), the differentiable example of verifiers.md (run from the doc's own code block),
  the validity screen on the 16 MMLU models, the audit's family count.
* ``report`` — read from the experiment reports committed under ``notebooks/results/`` (fast); ``--full`` reruns
  the experiment (``rafs experiment … --quick``, 8–15 min each) and reads the new report instead.
* ``full`` — from long runs (the full audit, ProcessBench's step-detector ablation, benchmarks of time): kept as
  recorded, with its provenance, unless ``--full`` reruns the command (benchmarks of time are never rerun).

Usage (from the repository root; data from ``../shared/data`` or ``$RAFS_DATA_DIR``)::

    python scripts/docs_figures.py                  # recompute fast + report figures, rewrite docs/figures.json
    python scripts/docs_figures.py --write-docs     # ... and rewrite the marked figures in README.md and docs/*.md
    python scripts/docs_figures.py --check          # exit 1 when a marked figure differs from docs/figures.json
    python scripts/docs_figures.py --only processbench,janet   # some computations only (see --list)
    python scripts/docs_figures.py --full           # also rerun the experiments and the audit (an hour or more)

Run it with ``nice -n 10`` on a shared machine: the fast set took 1.5–2 minutes of wall time (about 35 CPU-seconds)
on the shared 2-core development machine at load 7–10. Exit status 1 when a computation failed (its figures are
kept) or a marked figure differs from the new figures.json (without ``--write-docs``). See docs/figures.md.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
FIGURES_JSON = ROOT / "docs" / "figures.json"
DOC_FILES = ["README.md", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md"))]
MARK = re.compile(r"<!-- fig:([A-Za-z0-9_.]+) -->(.*?)<!-- /fig -->", re.S)
PYTHON = sys.executable


def data_dir() -> Path:
    """``$RAFS_DATA_DIR`` or ``../shared/data`` beside the repository (the development convention)."""
    env = os.environ.get("RAFS_DATA_DIR")
    return Path(env) if env else ROOT.parent / "shared" / "data"


def now_utc() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


# ------------------------------------------------------------------------------------------------- formatting
def thousands(x: float) -> str:
    return f"{int(x):,}"


def fixed(digits: int) -> Callable[[float], str]:
    return lambda x: f"{x:.{digits}f}"


def pct1(x: float) -> str:
    """A fraction as a percentage with one decimal (ProcessBench reports rates ×100)."""
    return f"{100 * x:.1f}"


def mean_sd(d: dict, digits: int = 2) -> str:
    return f"{d['mean']:.{digits}f} ± {d['sd']:.{digits}f}"


# ------------------------------------------------------------------------------------------------- computations
@dataclass
class Computation:
    """One run that yields several figures. ``kind`` is ``fast``, ``report`` or ``full``; ``run(full)`` returns
    ``{figure name: (value, display)}``; ``full`` computations are only run with ``--full``."""
    name: str
    kind: str
    command: str
    run: Callable[[bool], dict[str, tuple[Any, str]]]
    figures: list[str] = field(default_factory=list)
    source: str = ""


JANET_PROBLEM = ("Janet's ducks lay 16 eggs per day. She eats three for breakfast and bakes muffins with four. "
                 "She sells the remainder for $2 per egg. How much does she make every day?")
JANET_TRACE = "Janet sells 16 - 3 - 4 = 8 duck eggs a day.\nShe makes 9 * 2 = $18.\n#### 18"


def run_janet(full: bool = False) -> dict[str, tuple[Any, str]]:
    """README's "Quick start: score a trace"."""
    from rewards import score_trace

    r = score_trace(JANET_PROBLEM, JANET_TRACE, gold="18")
    score = None if r.score is None else round(float(r.score), 2)
    shown = "None" if score is None else f"~{r.score:.0f}"
    verdict = f"{shown} {r.status} {r.failure_type} {r.suspect_step}"
    return {
        "janet_verdict": ({"score": score, "status": r.status, "failure_type": r.failure_type,
                           "suspect_step": r.suspect_step}, verdict),
        "janet_reasons": (list(r.step_checks[0].reasons), repr(list(r.step_checks[0].reasons))),
    }


SELF_CORRECTION_PROBLEM = (
    "Janet's ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes muffins for her "
    "friends every day with four. She sells the remainder at the farmers' market daily for $2 per fresh duck egg. "
    "How much in dollars does she make every day at the farmers' market?")
SELF_CORRECTED = ("She has 16 - 3 - 4 = 8 eggs left.\nWait, that is wrong: 16 - 3 - 4 = 9 eggs left.\n"
                  "She makes 9 * 2 = 18 dollars.\n#### 18")


def run_self_correction(full: bool = False) -> dict[str, tuple[Any, str]]:
    """long_traces.md's example of issue 17: a retracted and corrected slip (the trace of
    tests/rewards/scoring/test_self_correction.py)."""
    from rewards import faithful_accuracy_reward, score_trace

    r = score_trace(SELF_CORRECTION_PROBLEM, SELF_CORRECTED, gold="18")
    fa = faithful_accuracy_reward([SELF_CORRECTION_PROBLEM], [SELF_CORRECTED], answer=["18"])[0]
    suspect = "no suspect" if r.suspect_step is None else f"suspect {r.suspect_step}"
    score = None if r.score is None else round(float(r.score), 2)
    verdict = f"{r.status} / {r.failure_type} / {suspect} / RAFS {'None' if score is None else f'{r.score:.1f}'}"
    return {"self_correction_verdict": ({"status": r.status, "failure_type": r.failure_type,
                                         "suspect_step": r.suspect_step, "score": score}, verdict),
            "self_correction_faithful_accuracy": (fa, "None" if fa is None else f"{fa:.1f}")}


def run_processbench(full: bool = False) -> dict[str, tuple[Any, str]]:
    """``rafs eval SPLIT --calibrate-on OTHER`` on both ProcessBench splits (no step-detector ablation, which does
    not change these figures), plus the tau_accept evidence quoted in scoring.md."""
    import numpy as np

    from rewards.adapters.evaluation import evaluate, load_rows, score_rows

    rows = {s: load_rows(data_dir() / "processbench" / f"{s}.json") for s in ("gsm8k", "math")}
    scored = {s: score_rows(rows[s], progress=False) for s in rows}
    out: dict[str, tuple[Any, str]] = {}
    reports: dict[str, dict] = {}
    flagged_correct = n_correct = 0
    for split, other in (("gsm8k", "math"), ("math", "gsm8k")):
        rep = evaluate(rows[split], scored=scored[split], calibration_rows=rows[other],
                       calibration_scored=scored[other], source=f"{split}.json", calibration_source=f"{other}.json",
                       progress=False, detector_ablation=False)
        reports[split] = rep
        for key in ("f1", "acc_erroneous", "acc_correct", "abstain_rate"):
            out[f"pb_{split}_{key}"] = (round(rep[key], 4), pct1(rep[key]))
            ci = rep.get(f"{key}_ci")
            if ci is not None:
                out[f"pb_{split}_{key}_ci"] = ([round(c, 4) for c in ci], f"[{pct1(ci[0])}, {pct1(ci[1])}]")
        for key in ("accuracy", "faithful_accuracy", "labelled_faithful_accuracy"):  # H1
            out[f"pb_{split}_h1_{key}"] = (round(rep[key], 4), pct1(rep[key]))
            ci = rep[f"{key}_ci"]
            out[f"pb_{split}_h1_{key}_ci"] = ([round(c, 4) for c in ci], f"[{pct1(ci[0])}, {pct1(ci[1])}]")
        for base, key in (("random", "random"), ("step_validity_only", "svo")):  # baselines' F1
            ab = rep["ablations"][base]
            out[f"pb_{split}_{key}_f1"] = (round(ab["f1"], 4), pct1(ab["f1"]))
            out[f"pb_{split}_{key}_f1_ci"] = ([round(c, 4) for c in ab["f1_ci"]],
                                              f"[{pct1(ab['f1_ci'][0])}, {pct1(ab['f1_ci'][1])}]")
        sf = rep["silent_failure"]
        for key in ("auprc", "auroc"):  # the RAFS detector of silent failures
            if sf.get(key) is not None:
                ci = sf[f"{key}_ci"]
                out[f"pb_{split}_sf_{key}"] = (round(sf[key], 4), f"{sf[key]:.3f}")
                out[f"pb_{split}_sf_{key}_ci"] = ([round(c, 4) for c in ci], f"[{ci[0]:.3f}, {ci[1]:.3f}]")
        for key in ("flag_recall", "flag_false_positive_rate"):
            if sf.get(key) is not None:
                ci = sf[f"{key}_ci"]
                out[f"pb_{split}_sf_{key}"] = (round(sf[key], 4), pct1(sf[key]))
                out[f"pb_{split}_sf_{key}_ci"] = ([round(c, 4) for c in ci], f"[{pct1(ci[0])}, {pct1(ci[1])}]")
        out[f"pb_{split}_theta"] = (rep["meta"]["theta"], f"{rep['meta']['theta']:g}")
        out[f"pb_{split}_n"] = (rep["n"], thousands(rep["n"]))
        labels = np.array([r["label"] for r in rows[split]])
        preds = np.array([-1 if s.suspect_step is None else s.suspect_step for s in scored[split]])
        correct = labels == -1
        flagged_correct += int((preds[correct] != -1).sum())
        out[f"pb_{split}_false_alarms"] = (int((preds[correct] != -1).sum()), str(int((preds[correct] != -1).sum())))
        n_correct += int(correct.sum())
        # scoring.md, tau_accept: traces with a suspect step vs the all-correct traces
        suspect = [s.score for s in scored[split] if s.suspect_step is not None and s.score is not None]
        clean = [s.score for s, lab in zip(scored[split], labels) if lab == -1 and s.score is not None]
        out[f"tau_{split}_suspect_max"] = (round(max(suspect), 2), f"{max(suspect):.1f}")
        out[f"tau_{split}_correct_median"] = (round(statistics.median(clean), 2), f"{statistics.median(clean):.0f}")
        p25 = float(np.percentile(clean, 25))
        out[f"tau_{split}_correct_p25"] = (round(p25, 2), f"{p25:.0f}")
    table = silent_failure_table(reports)
    out["pb_silent_failure_table"] = (table, table)
    out["pb_correct_flagged"] = (flagged_correct, thousands(flagged_correct))
    out["pb_correct_n"] = (n_correct, thousands(n_correct))
    top = max(out["tau_gsm8k_suspect_max"][0], out["tau_math_suspect_max"][0])
    out["tau_suspect_max_ceil"] = (int(-(-top // 1)), str(int(-(-top // 1))))
    return out


def _num_ci(d: dict, key: str, digits: int = 3) -> str:
    ci = d.get(f"{key}_ci")
    return f"{d[key]:.{digits}f}" + ("" if ci is None else f" [{ci[0]:.{digits}f}, {ci[1]:.{digits}f}]")


def _pct_ci(d: dict, key: str) -> str:
    ci = d.get(f"{key}_ci")
    return pct1(d[key]) + ("" if ci is None else f" [{pct1(ci[0])}, {pct1(ci[1])}]")


def silent_failure_table(reports: dict[str, dict]) -> str:
    """evaluation.md's "Silent-failure detection" table: every detector's AUPRC/AUROC on both splits."""
    g, m = reports["gsm8k"]["ablations"], reports["math"]["ablations"]
    lines = ["| detector | GSM8K AUPRC | GSM8K AUROC | MATH AUPRC | MATH AUROC |", "|---|---|---|---|---|"]
    for name in g:
        label = name
        if "available" in g[name]:
            label += f" (available {100 * g[name]['available']:.0f}% / {100 * m[name]['available']:.0f}%)"
        cells = [_num_ci(d[name]["silent_failure"], k) for d in (g, m) for k in ("auprc", "auroc")]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def run_processbench_detectors(full: bool = False) -> dict[str, tuple[Any, str]]:
    """evaluation.md's "Step detectors" table: ``rafs eval`` with the step-detector ablation (each claim checker
    left out, and none), both splits (8–9 re-scorings of each split: minutes)."""
    from rewards.adapters.evaluation import evaluate, load_rows

    rows = {s: load_rows(data_dir() / "processbench" / f"{s}.json") for s in ("gsm8k", "math")}
    det = {}
    for split, other in (("gsm8k", "math"), ("math", "gsm8k")):
        rep = evaluate(rows[split], calibration_rows=rows[other], source=f"{split}.json",
                       calibration_source=f"{other}.json", progress=False, detector_ablation=True)
        det[split] = rep["step_detectors"]
    g, m = det["gsm8k"], det["math"]
    lines = ["| variant | GSM8K F1 | GSM8K hits lost | MATH acc_erroneous | MATH F1 | MATH hits lost |",
             "|---|---|---|---|---|---|",
             f"| full scorer | {_pct_ci(g['full'], 'f1')} | — | {_pct_ci(m['full'], 'acc_erroneous')} | "
             f"{_pct_ci(m['full'], 'f1')} | — |"]
    for name in g:
        if name in ("checkers", "full", "equations_only"):
            continue
        lines.append(f"| without `{name.removeprefix('without_')}` | {pct1(g[name]['f1'])} | {g[name]['hits_lost']} | "
                     f"{pct1(m[name]['acc_erroneous'])} | {pct1(m[name]['f1'])} | {m[name]['hits_lost']} |")
    e_g, e_m = g["equations_only"], m["equations_only"]
    lines.append(f"| `equations_only` (no claim checker) | {_pct_ci(e_g, 'f1')} | {e_g['hits_lost']} | "
                 f"{_pct_ci(e_m, 'acc_erroneous')} | {_pct_ci(e_m, 'f1')} | {e_m['hits_lost']} |")
    table = "\n".join(lines)
    n_err = {s: sum(r["label"] != -1 for r in rows[s]) for s in rows}
    hits = {s: round(det[s]["full"]["acc_erroneous"] * n_err[s]) for s in det}
    eq_hits = {s: hits[s] - det[s]["equations_only"]["hits_lost"] + det[s]["equations_only"]["hits_gained"]
               for s in det}
    return {
        "pb_step_detector_table": (table, table),
        "pb_gsm8k_f1_equations_only": (round(e_g["f1"], 4), pct1(e_g["f1"])),
        "pb_math_f1_equations_only": (round(e_m["f1"], 4), pct1(e_m["f1"])),
        "pb_gsm8k_hits": (hits["gsm8k"], str(hits["gsm8k"])), "pb_math_hits": (hits["math"], str(hits["math"])),
        "pb_gsm8k_hits_equations": (eq_hits["gsm8k"], str(eq_hits["gsm8k"])),
        "pb_math_hits_equations": (eq_hits["math"], str(eq_hits["math"])),
    }


def run_filter(full: bool = False) -> dict[str, tuple[Any, str]]:
    """``rafs filter ../shared/data/gsm8k/train.jsonl --out DIR`` (defaults), read from its summary.json."""
    src = data_dir() / "gsm8k" / "train.jsonl"
    with tempfile.TemporaryDirectory(prefix="docs_figures_filter_") as tmp:
        out_dir = Path(tmp) / "filtered"
        proc = subprocess.run([PYTHON, "-m", "trainers", "filter", str(src), "--out", str(out_dir)],
                              cwd=ROOT, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"rafs filter failed ({proc.returncode}): {proc.stderr.strip()[-500:]}")
        summary = json.loads((out_dir / "summary.json").read_text())
    reasons = summary.get("reasons", {})
    vals = {
        "filter_gsm8k_n": summary["n_in"],
        "filter_gsm8k_kept": summary["n_kept"],
        "filter_gsm8k_dropped": summary["n_dropped"],
        "filter_gsm8k_silent": reasons.get("failure_type:silent_failure", 0),
        "filter_gsm8k_review": reasons.get("status:review", 0),
        "filter_gsm8k_abstain": reasons.get("status:abstain", 0),
    }
    return {k: (v, thousands(v)) for k, v in vals.items()}


def _doc_code_block(path: Path, first_line: str) -> str:
    """The fenced python block of ``path`` that starts with ``first_line``."""
    for block in re.findall(r"```python\n(.*?)```", path.read_text(), re.S):
        if block.startswith(first_line):
            return block
    raise RuntimeError(f"{path.name}: no ```python block starting with {first_line!r}; update CODE_BLOCK_START")


DIFF_BLOCK_START = "import tempfile, torch"


def run_differentiable(full: bool = False) -> dict[str, tuple[Any, str]]:
    """verifiers.md's differentiable example, run from the doc's own code block with one torch thread."""
    code = "import torch; torch.set_num_threads(1)\n" + _doc_code_block(ROOT / "docs" / "verifiers.md",
                                                                        DIFF_BLOCK_START)
    env = dict(os.environ, TOKENIZERS_PARALLELISM="false", OMP_NUM_THREADS="1")
    proc = subprocess.run([PYTHON, "-c", code], cwd=ROOT, capture_output=True, text=True, env=env)
    if proc.returncode != 0:
        raise RuntimeError(f"verifiers.md example failed: {proc.stderr.strip()[-800:]}")
    steps = re.findall(r"step (\d+): sensitivity ([0-9.]+)\s+RAFS ([0-9.]+)", proc.stdout)
    if not steps:
        raise RuntimeError(f"verifiers.md example printed no 'step N: sensitivity X  RAFS Y' line: {proc.stdout!r}")
    (_, s0, r0), (_, s1, r1) = steps[0], steps[-1]
    return {
        "diff_sens_start": (float(s0), s0), "diff_sens_end": (float(s1), s1),
        "diff_rafs_start": (float(r0), r0), "diff_rafs_end": (float(r1), r1),
        "diff_steps": (len(steps), str(len(steps))),
    }


def run_screen_mmlu(full: bool = False) -> dict[str, tuple[Any, str]]:
    """screen.md, "On the paper's data": the validity screen (default rule, median split) on the 16 MMLU models'
    item-level rows."""
    import pandas as pd

    from trainers.screen import screen_groups

    folder = data_dir() / "validity_screen" / "validity-scaling-llm" / "cross-benchmark" / "mmlu" / "item_level"
    frame = pd.concat([pd.read_csv(f) for f in sorted(folder.glob("*.csv"))], ignore_index=True)
    results = list(screen_groups(frame, "is_correct", "confidence", group_col="model"))
    tiers = {r.group: r.tier for r in results}
    valid = sum(t == "Valid" for t in tiers.values())
    invalid = sorted(g for g, t in tiers.items() if t == "Invalid")
    return {"screen_mmlu_models": (len(tiers), str(len(tiers))),
            "screen_mmlu_valid": (valid, str(valid)),
            "screen_mmlu_invalid": (invalid, ", ".join(invalid) or "none")}


def run_audit_families(full: bool = False) -> dict[str, tuple[Any, str]]:
    from rewards.audit.battery import select_families

    n = len(select_families())
    return {"audit_family_count": (n, str(n))}


FAITH_REPORTS = ROOT / "notebooks" / "results" / "faithfulness"
COLLAPSE_REPORTS = ROOT / "notebooks" / "results" / "collapse"


def _rerun(args: list[str], out: Path) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    subprocess.run([PYTHON, "-m", "trainers", *args, "--out", str(out), "--force"], cwd=ROOT, check=True)
    return out / "report.json"


def run_faithfulness(full: bool = False) -> dict[str, tuple[Any, str]]:
    """README's experiment sentence: accuracy arm (during = after), faithful_accuracy and rafs arms after the
    integrity change, faithful_accuracy before it."""
    after = FAITH_REPORTS / "report_after_integrity.json"
    before = FAITH_REPORTS / "report_head_rewards.json"
    if full:
        after = _rerun(["experiment", "faithfulness", "--quick"], ROOT / "runs" / "docs_figures" / "faithfulness")
    summ = json.loads(after.read_text())["grpo"]["summary"]
    acc, fa, rafs = summ["accuracy"], summ["faithful_accuracy"], summ["rafs"]
    out = {
        "faith_accuracy_misleading": (acc["misleading_hint_accuracy"]["mean"],
                                      f"{acc['misleading_hint_accuracy']['mean']:.3f}"),
        "faith_accuracy_hack": (acc["hack_rate"]["mean"], f"{acc['hack_rate']['mean']:.2f}"),
        "faith_fa_misleading": (fa["misleading_hint_accuracy"], mean_sd(fa["misleading_hint_accuracy"])),
        "faith_rafs_misleading": (rafs["misleading_hint_accuracy"], mean_sd(rafs["misleading_hint_accuracy"])),
        "faith_reasoning_hack": (max(fa["hack_rate"]["mean"], rafs["hack_rate"]["mean"]),
                                 f"{max(fa['hack_rate']['mean'], rafs['hack_rate']['mean']):.2f}"),
    }
    if not full:  # the "before" report is a historical run (rewards at HEAD 6bed605): never rerun
        b = json.loads(before.read_text())["grpo"]["summary"]["faithful_accuracy"]["hack_rate"]["mean"]
        out["faith_fa_before_hack"] = (b, f"{b:.3f}")
    return out


def run_collapse(full: bool = False) -> dict[str, tuple[Any, str]]:
    """README's collapse sentence: the step at which the screen flags (and halts) every collapse seed."""
    path = COLLAPSE_REPORTS / "report.json"
    if full:
        path = _rerun(["experiment", "collapse", "--quick"], ROOT / "runs" / "docs_figures" / "collapse")
    rep = json.loads(path.read_text())
    steps = sorted({c["flagged_step"] for c in rep["collapse"]}, key=lambda s: (s is None, s))
    shown = " / ".join("never" if s is None else str(s) for s in steps)
    control_flags = sum(c.get("flagged_step") is not None for c in rep["control"])
    return {"collapse_flag_step": (steps, shown),
            "collapse_halted_seeds": (sum(bool(c["halted"]) for c in rep["collapse"]),
                                      str(sum(bool(c["halted"]) for c in rep["collapse"]))),
            "collapse_control_flags": (control_flags, str(control_flags))}


AUDIT_CMD = ("rafs audit rafs faithful_accuracy rafs_step_validity rafs_support trl.rewards:accuracy_reward "
             "--n 300 --json OUT.json --markdown OUT.md")


def run_audit_full(full: bool = False) -> dict[str, tuple[Any, str]]:
    """The full audit of audit.md's "after" section (about 4 minutes alone, far more under load). With
    ``RAFS_AUDIT_RUN=OUT.json,OUT.md`` the outputs of that same command, run earlier, are read instead."""
    out_dir = ROOT / "runs" / "docs_figures"
    out_dir.mkdir(parents=True, exist_ok=True)
    path, md = out_dir / "audit.json", out_dir / "audit.md"
    reuse = os.environ.get("RAFS_AUDIT_RUN")  # "OUT.json,OUT.md" of that very command, run earlier
    if reuse:
        path, md = (Path(x) for x in reuse.split(","))
    else:
        subprocess.run([PYTHON, "-m", "trainers", "audit", "rafs", "faithful_accuracy", "rafs_step_validity",
                        "rafs_support", "trl.rewards:accuracy_reward", "--n", "300", "--json", str(path),
                        "--markdown", str(md), "--force"], cwd=ROOT, check=True)
    data = json.loads(path.read_text())
    # the docs quote the table without its run time (docs are reference; the time stays in figures.json)
    table = re.sub(r", \d{4}-\d\d-\d\d \d\d:\d\d UTC\.", ".", md.read_text().strip(), count=1)
    for rep in data["reports"]:
        if rep["reward"] in ("rafs", "rafs_reward") and rep["mode"] == "single":
            viol = sum(f["violations"] for f in rep["families"])
            ref0 = sum(f.get("ref_zero_violations", 0) for f in rep["families"])
            return {"audit_rafs_ref_zero_violations": (ref0, thousands(ref0)),
                    "audit_rafs_single_violations": (viol, thousands(viol)),
                    "audit_after_table": (table, table)}
    raise RuntimeError(f"{path}: no single-mode report of rafs_reward; read the JSON and update run_audit_full")


COMPUTATIONS: list[Computation] = [
    Computation("janet", "fast", "python -c 'from rewards import score_trace; ...'  (README, Quick start: score a "
                "trace)", run_janet),
    Computation("self_correction", "fast", "python -c 'from rewards import score_trace; ...'  (long_traces.md, the "
                "issue's self-correction example)", run_self_correction),
    Computation("processbench", "fast",
                "rafs eval ../shared/data/processbench/{gsm8k,math}.json --calibrate-on <the other split> "
                "(θ calibrated on the other split; --no-detector-ablation)", run_processbench),
    Computation("processbench_detectors", "full",
                "rafs eval ../shared/data/processbench/{gsm8k,math}.json --calibrate-on <the other split> "
                "(with the step-detector ablation)", run_processbench_detectors),
    Computation("filter", "fast", "rafs filter ../shared/data/gsm8k/train.jsonl --out DIR  (defaults)", run_filter),
    Computation("differentiable", "fast", "the ```python block of docs/verifiers.md starting "
                f"{DIFF_BLOCK_START!r}, run with torch.set_num_threads(1)", run_differentiable),
    Computation("screen_mmlu", "fast",
                "rafs screen <the 16 item_level/*.csv of ../shared/data/validity_screen/…/mmlu> "
                "--correct-col is_correct --confidence-col confidence --group-col model", run_screen_mmlu),
    Computation("audit_families", "fast", "rafs audit --list-families (count)", run_audit_families),
    Computation("faithfulness", "report",
                "rafs experiment faithfulness --quick --out DIR  (recorded: "
                "notebooks/results/faithfulness/report_after_integrity.json; the 'before' hack rate from "
                "report_head_rewards.json)", run_faithfulness),
    Computation("collapse", "report", "rafs experiment collapse --quick --out DIR  (recorded: "
                "notebooks/results/collapse/report.json)", run_collapse),
    Computation("audit", "full", AUDIT_CMD, run_audit_full),
]

# Figures of long runs, with their provenance, as recorded in the docs. ``--full`` reruns what has a command
# here (the audit); the others are benchmarks of time that this script does not rerun (their commands are listed).
RECORDED: dict[str, dict[str, Any]] = {
    "audit_rafs_ref_zero_violations": {
        "value": 1474, "display": "1,474", "kind": "full", "command": AUDIT_CMD, "computation": "audit",
        "measured_utc": "2026-12-01T16:16:00+00:00",
        "source": "docs/audit.md, 'Measured: after the issue-11 scorer changes' (commit dd74a7b + b7144e7)"},
    "audit_rafs_single_violations": {
        "value": 1624, "display": "1,624", "kind": "full", "command": AUDIT_CMD, "computation": "audit",
        "measured_utc": "2026-12-01T16:16:00+00:00",
        "source": "docs/audit.md, 'Measured: after the issue-11 scorer changes' (commit dd74a7b + b7144e7)"},
    "audit_after_table": {
        "from_doc": "docs/audit.md", "kind": "full", "command": AUDIT_CMD, "computation": "audit",
        "measured_utc": "2026-12-01T16:16:00+00:00",
        "source": "docs/audit.md, 'Measured: after the issue-11 scorer changes': the --markdown output of that run, "
                  "recorded as the doc quoted it"},
    **{name: {"from_doc": "docs/evaluation.md", "kind": "full", "computation": "processbench_detectors",
              "command": "rafs eval ../shared/data/processbench/{gsm8k,math}.json --calibrate-on <the other split> "
                         "(with the step-detector ablation)",
              "measured_utc": "2026-11-29T21:34:00+00:00",
              "source": "docs/evaluation.md, Results (2026-11-29 21:34 UTC), recorded as the doc quoted it"}
       for name in ("pb_step_detector_table", "pb_gsm8k_f1_equations_only", "pb_math_f1_equations_only",
                    "pb_gsm8k_hits", "pb_math_hits", "pb_gsm8k_hits_equations", "pb_math_hits_equations")},
    "bench_training_reward_share": {
        "value": 0.7, "display": "0.7%", "kind": "full", "command": "python benchmarks/bench_training.py",
        "measured_utc": None,
        "source": "docs/training.md (share of the GRPO step spent in the RAFS rewards); not rerun by this script"},
}


# ------------------------------------------------------------------------------------------------- docs
# Figures quoted inside fenced code blocks: (file, anchor text, figure). The display must follow the anchor on the
# same line (after optional spaces).
CODE_FIGURES: list[tuple[str, str, str]] = [
    ("README.md", "print(r.score, r.status, r.failure_type, r.suspect_step)", "janet_verdict"),
    ("README.md", "print(r.step_checks[0].reasons)", "janet_reasons"),
]


def code_pattern(anchor: str) -> re.Pattern:
    return re.compile(re.escape(anchor) + r"([ \t]*#[ \t]*)(.*)$", re.M)


FENCE = re.compile(r"^ *```.*?^ *```", re.M | re.S)


def _fenced(text: str) -> list[tuple[int, int]]:
    """The spans of fenced code blocks: a marker there is an example (docs/figures.md), not a figure."""
    return [m.span() for m in FENCE.finditer(text)]


def _inside(pos: int, spans: list[tuple[int, int]]) -> bool:
    return any(a <= pos < b for a, b in spans)


def marked(files: list[str] | None = None) -> list[tuple[str, int, str, str]]:
    """Every marked figure: (file, line, name, quoted text)."""
    found = []
    for rel in files or DOC_FILES:
        text = (ROOT / rel).read_text()
        fences = _fenced(text)
        for m in MARK.finditer(text):
            if _inside(m.start(), fences):
                continue
            found.append((rel, text.count("\n", 0, m.start()) + 1, m.group(1), m.group(2)))
        for f, anchor, name in CODE_FIGURES:
            if f == rel:
                for m in code_pattern(anchor).finditer(text):
                    found.append((rel, text.count("\n", 0, m.start()) + 1, name, m.group(2).rstrip()))
    return found


def mismatches(figures: dict[str, dict]) -> list[str]:
    """One line per marked figure that differs from ``figures`` (or is unknown)."""
    bad = []
    for rel, line, name, quoted in marked():
        if name not in figures:
            bad.append(f"{rel}:{line}: figure {name!r} is not in docs/figures.json")
        elif quoted.strip() != figures[name]["display"].strip():
            bad.append(f"{rel}:{line}: {name} quotes {quoted!r}, the run gave {figures[name]['display']!r} "
                       f"({figures[name]['command']})")
    return bad


def write_docs(figures: dict[str, dict]) -> list[str]:
    """Rewrite every marked figure to its display; returns the changes made."""
    changes = []
    for rel in DOC_FILES:
        path = ROOT / rel
        text = path.read_text()
        fences = _fenced(text)

        def repl(m: re.Match) -> str:
            name = m.group(1)
            if (not _inside(m.start(), fences) and name in figures
                    and m.group(2).strip() != figures[name]["display"].strip()):
                shown = figures[name]["display"]
                changes.append(f"{rel}: {name}: {m.group(2)[:60]!r} -> {shown[:60]!r}")
                if "\n" in shown:  # a block (a table): blank lines around it so Markdown renders it
                    shown = f"\n\n{shown.strip()}\n\n"
                return f"<!-- fig:{name} -->{shown}<!-- /fig -->"
            return m.group(0)

        new = MARK.sub(repl, text)
        for f, anchor, name in CODE_FIGURES:
            if f == rel and name in figures:
                def crepl(m: re.Match, name=name, anchor=anchor) -> str:
                    if m.group(2).rstrip() != figures[name]["display"]:
                        changes.append(f"{rel}: {name}: {m.group(2).rstrip()!r} -> {figures[name]['display']!r}")
                        return anchor + m.group(1) + figures[name]["display"]
                    return m.group(0)
                new = code_pattern(anchor).sub(crepl, new)
        if new != text:
            tmp = path.with_suffix(path.suffix + ".tmp")
            tmp.write_text(new)
            os.replace(tmp, path)
    return changes


# ------------------------------------------------------------------------------------------------- main
def scorer_fingerprint() -> str | None:
    """The hash ``rafs filter`` records of the scoring code (None if it cannot be computed)."""
    try:
        from rewards.adapters.filter_shards import scorer_fingerprint as fp
        return fp()
    except Exception:  # provenance only
        return None


def load_figures() -> dict[str, dict]:
    if FIGURES_JSON.exists():
        return json.loads(FIGURES_JSON.read_text())["figures"]
    return {}


def compute(comp: Computation, full: bool) -> dict[str, dict]:
    t0 = time.perf_counter()
    values = comp.run(full)
    seconds = round(time.perf_counter() - t0, 1)
    kind = comp.kind
    source = "rerun with --full" if full and kind == "report" else ""
    if kind == "report" and not full:
        source = "read from the committed report (rerun: --full)"
    scorer = scorer_fingerprint()
    return {name: {"value": v, "display": d, "kind": kind, "command": comp.command, "computation": comp.name,
                   "measured_utc": now_utc(), "seconds": seconds, "scorer": scorer,
                   **({"source": source} if source else {})}
            for name, (v, d) in values.items()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--write-docs", action="store_true", help="rewrite the marked figures in README.md and docs/")
    ap.add_argument("--full", action="store_true", help="also rerun the long runs (experiments, full audit)")
    ap.add_argument("--only", default=None, help="comma list of computations to run (see --list)")
    ap.add_argument("--check", action="store_true", help="compute nothing; exit 1 if a marked figure differs")
    ap.add_argument("--list", action="store_true", help="list the computations and their figures")
    args = ap.parse_args(argv)
    os.chdir(ROOT)
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))

    figures = load_figures()
    if args.list:
        for comp in COMPUTATIONS:
            names = sorted(n for n, f in figures.items() if f.get("computation") == comp.name)
            print(f"{comp.name} [{comp.kind}]: {comp.command}\n    {', '.join(names) or '(not yet computed)'}")
        return 0
    if args.check:
        bad = mismatches(figures)
        print("\n".join(bad) if bad else f"{len(marked())} marked figures match docs/figures.json")
        return 1 if bad else 0

    only = set(args.only.split(",")) if args.only else None
    if only and (unknown := only - {c.name for c in COMPUTATIONS}):
        print(f"docs_figures: error: unknown computation(s) {sorted(unknown)}; known: "
              f"{[c.name for c in COMPUTATIONS]}", file=sys.stderr)
        return 2
    known = {c.name for c in COMPUTATIONS} | {"recorded"}
    figures = {n: f for n, f in figures.items() if f.get("computation") in known}  # drop removed computations
    for name, rec in RECORDED.items():
        if name in figures and figures[name].get("measured_utc") == rec.get("measured_utc"):
            # still the recorded run: refresh its provenance (command, source) from this script
            figures[name].update({k: v for k, v in rec.items() if k not in ("value", "display", "from_doc")})
        if name not in figures:
            rec = {"computation": "recorded", **rec}
            if rec.get("from_doc"):  # a block recorded as the doc quotes it (its run's own output)
                quoted = [q for f, _, n, q in marked([rec.pop("from_doc")]) if n == name]
                if not quoted:
                    continue
                rec["value"] = rec["display"] = quoted[0].strip()
            figures[name] = rec
    failed = []
    for comp in COMPUTATIONS:
        if only is not None and comp.name not in only:
            continue
        if comp.kind == "full" and not args.full:
            continue
        print(f"[{comp.name}] {comp.command}", flush=True)
        try:
            new = compute(comp, args.full)
        except Exception as exc:  # report and keep the recorded figures of this computation
            failed.append(f"{comp.name}: {type(exc).__name__}: {exc}")
            print(f"    FAILED: {failed[-1]}", file=sys.stderr)
            continue
        for name in [n for n, f in figures.items() if f.get("computation") == comp.name and n not in new]:
            del figures[name]  # a figure this computation no longer produces
        for name, entry in new.items():
            old = figures.get(name, {}).get("display")
            was = old.splitlines()[0] if old and old.strip() else repr(old)
            flag = "" if old in (None, entry["display"]) else f"   (was {was})"
            shown = entry["display"].split("\n")[0] + (" …" if "\n" in entry["display"] else "")
            print(f"    {name} = {shown}{flag}")
        figures.update(new)
    payload = {"generated_by": "python scripts/docs_figures.py", "updated_utc": now_utc(),
               "scorer": scorer_fingerprint(), "figures": dict(sorted(figures.items()))}
    tmp = FIGURES_JSON.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(payload, indent=1, ensure_ascii=False, default=str) + "\n")
    os.replace(tmp, FIGURES_JSON)
    print(f"wrote {FIGURES_JSON.relative_to(ROOT)} ({len(figures)} figures)")
    if args.write_docs:
        for line in write_docs(figures) or ["docs already match"]:
            print("    " + line)
    bad = mismatches(figures)
    if bad:
        print(f"{len(bad)} marked figure(s) differ from the runs (rerun with --write-docs):", file=sys.stderr)
        print("\n".join("  " + b for b in bad), file=sys.stderr)
    if failed:
        print("failed computations (their figures were kept):\n  " + "\n  ".join(failed), file=sys.stderr)
    return 1 if failed or bad else 0


if __name__ == "__main__":
    with contextlib.suppress(BrokenPipeError):
        sys.exit(main())
