"""Build and execute ``notebooks/processbench_eval.ipynb``: RAFS against ProcessBench's human step labels.

    .venv/bin/python notebooks/build_processbench_eval.py

The notebook is built with nbformat and executed in place with nbclient (the venv's ``python3`` kernel; if none
is installed: ``.venv/bin/python -m ipykernel install --sys-prefix``). It reads ``../shared/data/processbench/``
beside the repository, scores both splits with the scorer as it is at build time (about 10–20 s each) and
calibrates θ on each split for the other (never on the split it reports).
"""

from __future__ import annotations

from pathlib import Path

from nbbuild import code, execute_and_write, md

HERE = Path(__file__).resolve().parent
OUT = HERE / "processbench_eval.ipynb"

CELLS = [
    md("""
# Does RAFS catch silent failures? ProcessBench, GSM8K and MATH

ProcessBench (Zheng et al., ACL 2025) gives model-written solutions split into steps with the human-labelled
earliest wrong step (`label`, `-1` when every step is right) and whether the final answer is right. We score every
solution with `rewards.scoring.score.score_trace` (the default, model-free symbolic checker; one trace per problem, so the
group components C_A and D_R are undefined) and ask three questions:

1. **ProcessBench's metric** — with the suspect step (earliest `q_t < θ`) as the predicted earliest error:
   `acc_erroneous`, `acc_correct` and `F1` (their harmonic mean).
2. **Silent failures** — among rows whose final answer is right, does `100 − RAFS` rank the ones with a wrong step
   first? (AUPRC / AUROC; an abstention scores 0.5.) Which component does the work?
3. **H1** — how far does accuracy overstate reasoning validity (accuracy vs faithful accuracy)?

θ is chosen on one split and reported on the other. Every figure carries a 95% percentile bootstrap interval
(1,000 resamples, seed 0). All numbers below are computed when the notebook is built, from the scorer at that
time — see the date in the next cell.
"""),
    code("""
import io
import time
from datetime import datetime, timezone
from pathlib import Path

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import Image, Markdown, display
from sklearn.metrics import precision_recall_curve

from rewards.adapters.evaluation import PUBLISHED_F1, detector_scores, evaluate, load_rows, score_rows

REPO = Path.cwd().parent if Path.cwd().name == "notebooks" else Path.cwd()
DATA = REPO.parent / "shared" / "data" / "processbench"
SPLITS = ("gsm8k", "math")

def show(fig, dpi=100):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
    plt.close(fig)
    display(Image(data=buf.getvalue()))

rows = {s: load_rows(DATA / f"{s}.json") for s in SPLITS}
t0 = time.perf_counter()
scored = {s: score_rows(rows[s], progress=False) for s in SPLITS}
print(f"scored {sum(map(len, rows.values()))} traces in {time.perf_counter() - t0:.1f} s; "
      f"built {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC")
other = {"gsm8k": "math", "math": "gsm8k"}
reports = {s: evaluate(rows[s], scored=scored[s], calibration_rows=rows[other[s]],
                       calibration_scored=scored[other[s]], source=f"{s}.json",
                       calibration_source=f"{other[s]}.json", progress=False) for s in SPLITS}
"""),
    md("## 1. ProcessBench's metric (θ calibrated on the other split)"),
    code("""
def ci(d, key, scale=100):
    # 'x [lo, hi]': rates x100 with one decimal (scale=100), AUPRC/AUROC as fractions with three (scale=1)
    x, c = d.get(key), d.get(key + "_ci")
    if x is None:
        return "—"
    f = ".1f" if scale == 100 else ".3f"
    return f"{scale * x:{f}} [{scale * c[0]:{f}}, {scale * c[1]:{f}}]" if c else f"{scale * x:{f}}"

pd.DataFrame({s: {"n": r["n"], "erroneous / correct": f"{r['n_erroneous']} / {r['n_correct']}",
                  "θ (calibrated on)": f"{r['meta']['theta']} ({r['threshold']['calibrated_on']})",
                  "acc_erroneous": ci(r, "acc_erroneous"), "acc_correct": ci(r, "acc_correct"),
                  "F1": ci(r, "f1"), "abstained": ci(r, "abstain_rate")} for s, r in reports.items()})
"""),
    code("""
for s, r in reports.items():
    print(f"{s}: {r['threshold']['reason']}")
"""),
    md("""
### Against published process reward models

Published ProcessBench F1 (×100), **published figures, not our runs**: Zheng et al. 2024 (ProcessBench) and
"The Lessons of Developing Process Reward Models in Mathematical Reasoning" (2025). Our row is this notebook's
run of the model-free symbolic checker (no model, no training).
"""),
    code("""
table = pd.DataFrame(PUBLISHED_F1, index=["GSM8K", "MATH"]).T
table.loc["RAFS symbolic checker (this run)"] = [round(100 * reports["gsm8k"]["f1"], 1),
                                                 round(100 * reports["math"]["f1"], 1)]
table
"""),
    md("""
### F1 against the threshold θ

The symbolic checker's `q_t` takes few values (a false calculation ≈ 0.05, ungrounded quantities lower a step's
`q` softly, an unchecked step gets the neutral prior), so F1 is a step function of θ with long plateaus. The
dashed line is the scorer default, the dot the θ chosen on the *other* split.
"""),
    code("""
fig, axes = plt.subplots(1, 2, figsize=(11, 3.8), sharey=True)
for ax, s in zip(axes, SPLITS):
    r = reports[s]
    sw = r["threshold"]["sweep"]
    th = np.array([p["theta"] for p in sw])
    f1 = np.array([p["f1"] for p in sw])
    lo = np.array([p["f1_ci"][0] for p in sw]); hi = np.array([p["f1_ci"][1] for p in sw])
    ax.plot(th, f1, "-o", ms=3, label=f"{s} (reported)")
    ax.fill_between(th, lo, hi, alpha=0.2)
    cal = r["threshold"]["calibration"]["sweep"]
    ax.plot([p["theta"] for p in cal], [p["f1"] for p in cal], "--", color="gray", label=f"{other[s]} (calibration)")
    ax.axvline(r["threshold"]["default"], ls=":", color="k", lw=1, label="scorer default θ")
    chosen = r["meta"]["theta"]
    ax.plot([chosen], [next(p["f1"] for p in sw if p["theta"] == chosen)], "o", color="C3", ms=8,
            label=f"chosen θ={chosen}")
    ax.set_title(f"ProcessBench {s}: F1 vs θ"); ax.set_xlabel("θ (suspect step: q_t < θ)")
    ax.legend(fontsize=8)
axes[0].set_ylabel("F1")
show(fig)
"""),
    md("""
### Which step detector finds the errors

Besides checking each stated equation (arithmetic, and chains in one variable as identities), the scorer runs the
claim checkers of `rewards.checks.claims`: continued displays and worded equalities (`continuations`), rewrites of an
equation into a non-equivalent one (`equivalence`), congruences, remainders, gcd/lcm and base-b numerals
(`congruences`), divisibility, last digits, primality and numeric inequalities (`numberfacts`), values of defined
functions (`substitution`), value claims about letters just assigned (`assignments`), points, vectors and matrices
(`coordinates`), and sums, statistics and counting notation (`sequences`). Each is left out in turn and the split
re-scored at the same θ; *hits lost* counts the earliest errors only the full scorer finds. `equations_only` is the
scorer with no claim checker.
"""),
    code("""
det_rows = []
for s, r in reports.items():
    for name, e in r["step_detectors"].items():
        if name in ("checkers",):
            continue
        det_rows.append({"split": s, "variant": "full scorer" if name == "full" else name,
                         "acc_erroneous": ci(e, "acc_erroneous"), "acc_correct": ci(e, "acc_correct"),
                         "F1": ci(e, "f1"), "hits lost": e.get("hits_lost", "—"),
                         "false alarms": e.get("false_alarms", r["misses"]["false_alarms"]["n"])})
display(pd.DataFrame(det_rows).set_index(["split", "variant"]))

fig, ax = plt.subplots(figsize=(8, 3.4))
names = [n for n in reports["math"]["step_detectors"] if n.startswith("without_")]
x = np.arange(len(names))
for i, s in enumerate(SPLITS):
    ax.bar(x + (i - 0.5) * 0.38, [reports[s]["step_detectors"][n]["hits_lost"] for n in names], 0.38, label=s)
ax.set_xticks(x, [n.removeprefix("without_") for n in names], rotation=20, ha="right")
ax.set_ylabel("earliest errors found only by it"); ax.set_title("Claim checkers: unique hits per split")
ax.legend()
show(fig)
"""),
    md("""
## 2. Silent-failure detection among correct final answers

Positives: final answer right **and** a labelled wrong step. Detector: `(100 − RAFS)/100` (abstention → 0.5);
per component `1 − component` (missing → 0.5); RAFS with one component left out (`rafs_without_<m>`); baselines: seeded random scores and the step verifier alone
(`1 − P_R`). An uninformative detector has AUROC 0.5 and AUPRC equal to the prevalence (dotted line). GSM8K has
only a handful of silent failures, so its intervals are wide.
"""),
    code("""
rows_out = {}
for s, r in reports.items():
    sf = r["silent_failure"]
    for name, e in r["ablations"].items():
        d = e["silent_failure"]
        rows_out[(s, name)] = {"n / positives": f"{sf['n']} / {sf['n_pos']}",
                               "available": "—" if "available" not in e else f"{100 * e['available']:.0f}%",
                               "AUPRC": ci(d, "auprc", 1), "AUROC": ci(d, "auroc", 1), "F1": ci(e, "f1")}
pd.DataFrame(rows_out).T
"""),
    code("""
fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
for ax, s in zip(axes, SPLITS):
    mask = np.array([x["final_answer_correct"] for x in rows[s]])
    y = np.array([x["label"] != -1 for x in rows[s]])[mask]
    det = detector_scores(scored[s])
    for name in ("rafs", "P_R", "S_RA", "random"):
        if y.any():
            p, rc, _ = precision_recall_curve(y, det[name][mask])
            auprc = reports[s]["ablations"][name]["silent_failure"]["auprc"]
            ax.step(rc, p, where="post", label=f"{name} (AUPRC {auprc:.3f})")
    ax.axhline(y.mean(), ls=":", color="k", lw=1, label=f"prevalence {y.mean():.3f}")
    ax.set_title(f"{s}: silent failures ({int(y.sum())} of {int(mask.sum())} correct answers)")
    ax.set_xlabel("recall"); ax.set_ylabel("precision"); ax.set_ylim(0, 1.02); ax.legend(fontsize=8)
show(fig)
"""),
    code("""
names = list(reports["gsm8k"]["ablations"])
fig, axes = plt.subplots(1, 2, figsize=(14, 4.2))
for ax, metric in zip(axes, ("auroc", "auprc")):
    width = 0.38
    for k, s in enumerate(SPLITS):
        vals, err = [], [[], []]
        for name in names:
            d = reports[s]["ablations"][name]["silent_failure"]
            v, c = d[metric], d[metric + "_ci"]
            vals.append(np.nan if v is None else v)
            err[0].append(0 if c is None or v is None else v - c[0])
            err[1].append(0 if c is None or v is None else c[1] - v)
        ax.bar(np.arange(len(names)) + (k - 0.5) * width, vals, width, yerr=err, capsize=2, label=s)
    if metric == "auroc":
        ax.axhline(0.5, ls=":", color="k", lw=1)
    ax.set_xticks(range(len(names))); ax.set_xticklabels(names, rotation=30, ha="right")
    ax.set_title(f"silent-failure {metric.upper()} by detector (95% CI)"); ax.legend(fontsize=8)
show(fig)
"""),
    md("## 3. H1: accuracy vs faithful accuracy"),
    code("""
pd.DataFrame({s: {"accuracy (final answer right)": ci(r, "accuracy"),
                  "faithful accuracy (right, no suspect step, not abstained)": ci(r, "faithful_accuracy"),
                  "labelled faithful accuracy (right and label = −1)": ci(r, "labelled_faithful_accuracy"),
                  "silent failures flagged": ci(r["silent_failure"], "flag_recall"),
                  "faithful successes flagged": ci(r["silent_failure"], "flag_false_positive_rate")}
              for s, r in reports.items()})
"""),
    md("## Per generator"),
    code("""
pd.DataFrame({(s, g): {"n": d["n"], "acc_erroneous": ci(d, "acc_erroneous"), "acc_correct": ci(d, "acc_correct"),
                       "F1": ci(d, "f1")}
              for s, r in reports.items() for g, d in r["per_generator"].items()}).T
"""),
    md("""
## Where it fails, by kind of error

For every erroneous row the labelled step is classified from the equations it states
(`rewards.checks.arithmetic.check_equation`): a **false calculation**, **no equation** at all, only equations that
**hold**, or equations that could **not be checked**. A model-free checker can only catch the first kind.
"""),
    code("""
kinds = {}
for s, r in reports.items():
    for kind, k in r["misses"]["kinds"].items():
        kinds[(s, kind)] = {"rows": k["n"], "share": f"{100 * (k['share_of_erroneous'] or 0):.1f}%",
                            "caught": k["caught"], "missed": k["missed"], "recall": k["recall"],
                            "missed: no flag / earlier / later":
                                f"{k['missed_no_flag']} / {k['missed_flagged_earlier']} / {k['missed_flagged_later']}"}
pd.DataFrame(kinds).T
"""),
    code("""
lines = []
for s, r in reports.items():
    for kind, k in r["misses"]["kinds"].items():
        for e in k["examples"]:
            check = f" — _{e['check']}_" if e["check"] else ""
            lines.append(f"- **{s} / {kind}** `{e['id']}` step {e['label']} (predicted {e['predicted']}): "
                         f"{e['step']}{check}")
    fa = r["misses"]["false_alarms"]
    lines.append(f"- **{s}: {fa['n']} false alarms on correct solutions**" + "".join(
        f"; `{e['id']}` step {e['predicted']}: {'; '.join(e['reasons'])}" for e in fa["examples"]))
display(Markdown("\\n".join(lines)))
"""),
    md("## Summary (generated from the numbers above)"),
    code("""
out = []
for s, r in reports.items():
    sf, ab = r["silent_failure"], r["ablations"]
    comp = max((n for n in ("P_R", "S_RA") if ab[n]["silent_failure"]["auroc"] is not None),
               key=lambda n: ab[n]["silent_failure"]["auroc"], default=None)
    fc = r["misses"]["kinds"]["false_calculation"]
    out.append(
        f"- **{s}** (θ={r['meta']['theta']}, calibrated on {r['threshold']['calibrated_on']}): F1 {ci(r, 'f1')}, "
        f"acc_erroneous {ci(r, 'acc_erroneous')}, acc_correct {ci(r, 'acc_correct')}. Silent failures "
        f"({sf['n_pos']} of {sf['n']}): AUROC {ci(sf, 'auroc', 1)}, AUPRC {ci(sf, 'auprc', 1)} "
        f"(prevalence {sf['prevalence']}); the strongest single component by AUROC is {comp}. "
        f"False calculations are {fc['n']} of {r['misses']['n_erroneous']} labelled errors and {fc['caught']} "
        f"of them are caught; accuracy {ci(r, 'accuracy')} vs faithful accuracy {ci(r, 'faithful_accuracy')}.")
display(Markdown("\\n".join(out)))
"""),
    md("""
**Reading.** The symbolic checker is precise (it almost never flags a correct solution) but sees only errors
that leave a checkable trace: false calculations, false identities, non-equivalent rewrites of an equation, false
congruences and remainders. Wrong quantities, wrong operations, misread problems and setup errors pass as long as
each stated claim holds. ProcessBench traces come one per
problem, so C_A and D_R — the components that use the policy's own K samples during training — are undefined
here (their detector is constant, AUROC 0.5 by construction); this evaluation measures P_R and S_RA only.
"""),
]


def main() -> None:
    execute_and_write(CELLS, OUT)


if __name__ == "__main__":
    main()
