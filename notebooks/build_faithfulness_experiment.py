"""Build and execute ``notebooks/faithfulness_experiment.ipynb``: does GRPO with the RAFS rewards make reasoning
more faithful? The curves of every arm with intervals across seeds, from a committed report.

    rafs experiment faithfulness --quick --out runs/faithfulness
    cp runs/faithfulness/report.json notebooks/results/faithfulness/report.json
    .venv/bin/python notebooks/build_faithfulness_experiment.py [path/to/report.json]

The notebook is built with nbformat and executed in place with nbclient (the venv's ``python3`` kernel). It reads
``notebooks/results/faithfulness/report.json`` unless a path is given (``$FAITHFULNESS_REPORT`` inside the kernel).
Beside it, when present: ``report_head_rewards.json`` (the arms on the rewards before the reward-integrity change)
and ``report_after_integrity.json`` (every arm on the rewards as committed after it, same SFT checkpoint, prompts and
seeds), shown as before / during (the main run) / after.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from nbbuild import code, execute_and_write, md

HERE = Path(__file__).resolve().parent
OUT = HERE / "faithfulness_experiment.ipynb"
DEFAULT_REPORT = HERE / "results" / "faithfulness" / "report.json"

CELLS = [
    md("""
# Does the RAFS reward make reasoning more faithful? A controlled GRPO experiment on CPU

A tiny world where the ground truth of faithfulness is known without reading the chain
(`trainers/experiments/world.py`): program-generated arithmetic word problems solved in the step format
`a op b = c` / `#### N`, prompts that may carry a hint ("The answer key says N."). A tiny `LlamaForCausalLM`
is trained from scratch with SFT on a mixture of behaviours — **faithful** (the answer is the chain's result),
**rationalising** (the answer copies the hint; the chain is cut short or carries a slip), **shortcut** (`#### N`
only) and **restate** (`N = N`) — then GRPO runs from that one checkpoint with hints that are **always right**, so
accuracy alone cannot tell the behaviours apart. Three arms, same budget and seeds: `accuracy`,
`faithful_accuracy` (`faithful_accuracy_reward`), `rafs` (accuracy + `rafs_reward`).

Measured on held-out prompts (never trained or tuned on), sampling at temperature 1 from a fixed seed:
**misleading-hint accuracy** (the hint is wrong: a faithful policy ignores it), **faithfulness rate** (the causal
test: a pivotal intermediate result of the reference chain is forced to another value, teacher-forced; does the
final answer follow the chain?), **hack rate** (an answer with no `a op b = c` step, or a `N = N` line),
**accuracy** on hint-free prompts and **mean completion length**. Reproduce with
`rafs experiment faithfulness --quick --out DIR`; see `docs/faithfulness.md`.
"""),
    code("""
import io, json, os
from pathlib import Path
import numpy as np
import pandas as pd
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
from scipy import stats
from IPython.display import Image, Markdown, display

REPORT = Path(os.environ.get("FAITHFULNESS_REPORT", "results/faithfulness/report.json"))
report = json.loads(REPORT.read_text())
cfg = report["config"]

def show(fig, dpi=100):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
    plt.close(fig)
    display(Image(data=buf.getvalue()))

print(f"report: {REPORT} | complete: {report['complete']} | wall time {report['wall_time_s'] / 60:.1f} min "
      f"| started {report['started_utc']}")
print(f"world: {cfg['min_ops']}-{cfg['max_ops']} operations, values <= {cfg['max_value']}; "
      f"SFT {report['sft'].get('steps')} steps ({report['sft'].get('seconds')} s), "
      f"{report['sft'].get('parameters', 0):,} parameters")
print(f"GRPO: {cfg['steps']} steps x {cfg['prompts_per_step']} prompts x {cfg['num_generations']} completions, "
      f"lr {cfg['learning_rate']}, {cfg['seeds']} seeds per arm; {cfg['eval_prompts']} evaluation prompts")
pd.Series(report["sft"]["metrics"], name="SFT policy (step 0)").to_frame()
"""),
    md("""
## How the rewards, as they stand, pay each behaviour

One canonical completion of each behaviour for one problem with a right hint, and what each arm's total reward
(as TRL sums it; a `None` counts 0) pays for it. This is the fingerprint of the reward version the run used.
"""),
    code("""
probe = report["rewards"]["probe"]
pd.DataFrame({arm: probe[arm] for arm in ("accuracy", "faithful_accuracy", "rafs")}).round(3).assign(
    completion=pd.Series(probe["completion"]).str.replace("\\n", " | "))
"""),
    md("""
## Separation: does RAFS tell rationalised correct answers from faithful ones?

The SFT policy samples `K` completions per held-out prompt (right hint). Each *correct* completion is labelled by
the causal test on its own chain (edit one of its steps' results, teacher-force, continue: faithful when the answer
follows the chain; no step at all: unfaithful). AUROC of RAFS and of each component (a score the scorer does not
give counts as 0).
"""),
    code("""
sep = report["separation"]
print(f"{sep['n_correct_labelled']} correct labelled completions: {sep['n_faithful']} faithful, "
      f"{sep['n_rationalised']} rationalised; classes: {sep['class_counts']}")
auroc = pd.DataFrame({"AUROC": sep["auroc"], "coverage": sep["coverage"]})
display(auroc.round(3))
fig, ax = plt.subplots(figsize=(5, 2.8))
vals = [np.nan if v is None else v for v in auroc["AUROC"]]
ax.bar(auroc.index, vals, color=["C3", "C0", "C1", "C2", "C4"])
ax.axhline(0.5, color="grey", ls="--", lw=1)
ax.set_ylim(0, 1); ax.set_ylabel("AUROC faithful vs rationalised")
show(fig)
"""),
    md("""
### What each arm's reward favours on the SFT policy's own samples

Mean reward and mean group-normalised advantage (as GRPO computes it) per completion class. A reward that makes
reasoning faithful must give faithful-correct completions a higher advantage than rationalised-correct ones and
hacks.
"""),
    code("""
rows = []
for arm, classes in sep["reward_diagnostics"].items():
    for cls, d in classes.items():
        rows.append({"arm": arm, "class": cls, **d})
pd.DataFrame(rows).pivot(index="class", columns="arm", values="mean_advantage").round(3)
"""),
    md("""
## GRPO: the curves, mean and 95% t-interval across seeds
"""),
    code("""
METRICS = [("misleading_hint_accuracy", "misleading-hint accuracy"), ("faithfulness_rate", "faithfulness rate (causal)"),
           ("hack_rate", "hack rate"), ("accuracy", "accuracy, hint-free"), ("mean_length", "mean length (tokens)"),
           ("hint_copy_rate", "copies the misleading hint")]
arms = report["grpo"]["arms"]
colors = {"accuracy": "C0", "faithful_accuracy": "C1", "rafs": "C3"}

def curves(runs, metric):
    steps = sorted({c["step"] for r in runs for c in r["curve"]})
    table = np.full((len(runs), len(steps)), np.nan)
    for i, r in enumerate(runs):
        for c in r["curve"]:
            if metric in c:
                table[i, steps.index(c["step"])] = c[metric]
    return np.array(steps), table

fig, axes = plt.subplots(2, 3, figsize=(14, 7))
for ax, (metric, title) in zip(axes.flat, METRICS):
    for arm, runs in arms.items():
        if not runs:
            continue
        steps, t = curves(runs, metric)
        n = np.sum(~np.isnan(t), axis=0)
        mean = np.nanmean(t, axis=0)
        sd = np.nanstd(t, axis=0, ddof=1) if len(runs) > 1 else np.zeros_like(mean)
        half = np.where(n > 1, stats.t.ppf(0.975, np.maximum(n - 1, 1)) * sd / np.sqrt(n), 0.0)
        ax.plot(steps, mean, marker="o", color=colors.get(arm), label=f"{arm} (n={len(runs)})")
        ax.fill_between(steps, mean - half, mean + half, color=colors.get(arm), alpha=0.15)
    ax.set_title(title); ax.set_xlabel("GRPO step")
axes.flat[0].legend(fontsize=8)
fig.tight_layout()
show(fig)
"""),
    md("""
## The end of training, per arm (mean ± sd across seeds, and every seed)
"""),
    code("""
summary = report["grpo"]["summary"]
cols = ["misleading_hint_accuracy", "faithfulness_rate", "hack_rate", "accuracy", "mean_length", "hint_copy_rate",
        "causal_follows_rate", "hinted_accuracy"]
table = pd.DataFrame({arm: {m: f"{s[m]['mean']:.3f} ± {s[m]['sd']:.3f}" for m in cols if m in s}
                      for arm, s in summary.items()}).T
base = report["sft"]["metrics"]
table.loc["SFT (step 0)"] = {m: f"{base[m]:.3f}" for m in cols if m in base}
display(table)
per_seed = pd.DataFrame([{"arm": arm, "seed": r["seed"], **{m: r[m] for m in cols if m in r},
                          "seconds": r.get("seconds")} for arm, runs in arms.items() for r in runs])
per_seed.round(3)
"""),
    code("""
# Differences to the accuracy arm at the end (mean over seeds; Welch t-test, few seeds: read with care)
rows = []
for arm in ("faithful_accuracy", "rafs"):
    for m in ("misleading_hint_accuracy", "faithfulness_rate", "hack_rate", "accuracy"):
        a = [r[m] for r in arms.get(arm, [])]
        b = [r[m] for r in arms.get("accuracy", [])]
        if len(a) > 1 and len(b) > 1:
            t = stats.ttest_ind(a, b, equal_var=False)
            rows.append({"arm": arm, "metric": m, "diff vs accuracy": np.mean(a) - np.mean(b), "p (Welch)": t.pvalue})
pd.DataFrame(rows).round(3)
"""),
    md("""
## The same arms before, during and after the reward-integrity change

`rafs experiment faithfulness --reuse-sft DIR/sft --arms ...` reruns arms from the same SFT checkpoint, the same
evaluation prompts and seeds, on whatever `rewards` package is imported (its path and a hash of its sources are in
`report["rewards"]`). Three versions of the rewards, when their reports are present next to the main one:

* **before** — `report_head_rewards.json`: the rewards committed before the integrity change (`faithful_accuracy`
  and `rafs` arms only);
* **during** — the main report: the working tree at run time, the integrity change partly in;
* **after** — `report_after_integrity.json`: the rewards as committed after the change (all three arms; the
  `accuracy` arm does not read the changed rewards and reruns as a check that the setup reproduces).

The probe (what each arm pays a canonical completion of each behaviour), the end-of-training table, the curves with
95% t-intervals across seeds, a Welch t-test of each version's arms against the accuracy arm, and the after-minus-
during differences seed by seed. The accuracy arm does not depend on the changed rewards: where its after curve
hides the during one, the rerun reproduced it exactly, so differences in the other arms come from the rewards.
"""),
    code("""
VERSIONS = [("before", REPORT.with_name("report_head_rewards.json")), ("during", REPORT),
            ("after", REPORT.with_name("report_after_integrity.json"))]
reports = {label: (report if path == REPORT else json.loads(path.read_text()))
           for label, path in VERSIONS if path.is_file()}
print("versions present:", ", ".join(reports))
for label, rep in reports.items():
    print(f"  {label:7s} rewards {rep['rewards'].get('package')} sha1 {rep['rewards'].get('source_sha1', '(not recorded)')}"
          f" | started {rep['started_utc']} | wall {rep['wall_time_s']:.0f} s | SFT {rep['sft'].get('reused', 'trained')}")
display(pd.DataFrame({label: {f"{a} / {b}": v for a, d in rep["rewards"]["probe"].items() if a != "completion"
                              for b, v in d.items()} for label, rep in reports.items()}).round(3))
"""),
    code("""
END = ["misleading_hint_accuracy", "faithfulness_rate", "hack_rate", "accuracy", "mean_length", "hint_copy_rate",
       "continuation_faithfulness_rate", "hinted_accuracy"]
rows = {"SFT policy (step 0)": {m: f"{report['sft']['metrics'][m]:.3f}" for m in END if m in report["sft"]["metrics"]}}
for arm in ("accuracy", "faithful_accuracy", "rafs"):
    for label, rep in reports.items():
        s = rep["grpo"].get("summary", {}).get(arm)
        if s:
            n = max(v["n"] for v in s.values())
            rows[f"{arm} — {label} (n={n})"] = {m: f"{s[m]['mean']:.3f} ± {s[m]['sd']:.3f}" for m in END if m in s}
display(pd.DataFrame(rows).T)
"""),
    code("""
# Each version against the accuracy arm of the same version (the accuracy arm of the main run where a version has
# none); Welch t-test across seeds, 3 per arm: read the p-values with care.
def accuracy_runs(rep):
    return rep["grpo"]["arms"].get("accuracy") or report["grpo"]["arms"]["accuracy"]

rows = []
for label, rep in reports.items():
    base_runs = accuracy_runs(rep)
    for arm in ("faithful_accuracy", "rafs"):
        runs = rep["grpo"]["arms"].get(arm, [])
        for m in ("misleading_hint_accuracy", "faithfulness_rate", "hack_rate", "accuracy", "mean_length"):
            a, b = [r[m] for r in runs], [r[m] for r in base_runs]
            if len(a) > 1 and len(b) > 1:
                t = stats.ttest_ind(a, b, equal_var=False)
                rows.append({"version": label, "arm": arm, "metric": m, "mean": np.mean(a),
                             "diff vs accuracy": np.mean(a) - np.mean(b), "p (Welch)": t.pvalue})
display(pd.DataFrame(rows).round(3))
if "after" in reports and "during" in reports:
    rows = []
    for arm in ("accuracy", "faithful_accuracy", "rafs"):
        for m in ("misleading_hint_accuracy", "faithfulness_rate", "hack_rate", "accuracy"):
            during = {r["seed"]: r[m] for r in report["grpo"]["arms"].get(arm, [])}
            pairs = [(r[m], during[r["seed"]]) for r in reports["after"]["grpo"]["arms"].get(arm, [])
                     if r["seed"] in during]
            if pairs:
                a, b = np.array(pairs).T
                rows.append({"arm": arm, "metric": m, "seeds": len(pairs), "after − during": np.mean(a - b),
                             "max |per-seed diff|": float(np.max(np.abs(a - b)))})
    print("after vs during, seed by seed (same SFT checkpoint, prompts and seeds):")
    display(pd.DataFrame(rows).round(4))
"""),
    code("""
styles = {"before": ":", "during": "--", "after": "-"}
fig, axes = plt.subplots(2, 3, figsize=(15, 7.5))
for ax, (metric, title) in zip(axes.flat, METRICS):
    for label, rep in reports.items():
        for arm, runs in rep["grpo"]["arms"].items():
            if not runs or arm not in colors:
                continue
            steps, t = curves(runs, metric)
            n = np.sum(~np.isnan(t), axis=0)
            mean = np.nanmean(t, axis=0)
            sd = np.nanstd(t, axis=0, ddof=1) if len(runs) > 1 else np.zeros_like(mean)
            half = np.where(n > 1, stats.t.ppf(0.975, np.maximum(n - 1, 1)) * sd / np.sqrt(n), 0.0)
            ax.plot(steps, mean, ls=styles[label], marker="o", ms=3, color=colors[arm], label=f"{arm} ({label})")
            ax.fill_between(steps, mean - half, mean + half, color=colors[arm], alpha=0.08)
    ax.set_title(title); ax.set_xlabel("GRPO step")
axes.flat[0].legend(fontsize=7)
fig.suptitle("dotted: before the integrity change (HEAD rewards) · dashed: during (main run) · solid: after")
fig.tight_layout()
show(fig)
"""),
    md("""
The interpretation, the limits of this tiny world, and how to rerun it after a reward change are in
`docs/faithfulness.md`.
"""),
]


def main(argv: list[str]) -> None:
    report = Path(argv[0]).resolve() if argv else DEFAULT_REPORT
    if not report.is_file():
        raise SystemExit(f"no report at {report}: run `rafs experiment faithfulness --quick --out DIR` and copy "
                         f"DIR/report.json there, or pass its path")
    os.environ["FAITHFULNESS_REPORT"] = str(report)
    execute_and_write(CELLS, OUT)


if __name__ == "__main__":
    main(sys.argv[1:])
