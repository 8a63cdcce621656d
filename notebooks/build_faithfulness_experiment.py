"""Build and execute ``notebooks/faithfulness_experiment.ipynb``: does GRPO with the RAFS rewards make reasoning
more faithful? The curves of every arm with intervals across seeds, from a committed report.

    rafs experiment faithfulness --quick --out runs/faithfulness
    cp runs/faithfulness/report.json notebooks/results/faithfulness/report.json
    .venv/bin/python notebooks/build_faithfulness_experiment.py [path/to/report.json]

The notebook is built with nbformat and executed in place with nbclient (the venv's ``python3`` kernel). It reads
``notebooks/results/faithfulness/report.json`` unless a path is given (``$FAITHFULNESS_REPORT`` inside the kernel).
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
## The same experiment on another version of the rewards

`rafs experiment faithfulness --reuse-sft DIR/sft --arms faithful_accuracy,rafs` reruns the reward-dependent arms
from the same SFT checkpoint, the same evaluation prompts and seeds, on whatever `rewards` package is imported
(its path and a hash of its sources are in `report["rewards"]`). When `results/faithfulness/report_head_rewards.json`
is present (the rewards committed before the reward-integrity change), it is shown beside the main report.
"""),
    code("""
OTHER = REPORT.with_name("report_head_rewards.json")
if OTHER.is_file():
    other = json.loads(OTHER.read_text())
    print("main report rewards: ", report["rewards"].get("package"), report["rewards"].get("source_sha1", "(not recorded)"))
    print("other report rewards:", other["rewards"].get("package"), other["rewards"].get("source_sha1"))
    display(pd.DataFrame({"main": {f"{a}/{b}": v for a, d in report["rewards"]["probe"].items() if a != "completion"
                                   for b, v in d.items()},
                          "other": {f"{a}/{b}": v for a, d in other["rewards"]["probe"].items() if a != "completion"
                                    for b, v in d.items()}}).round(3))
    rows = {}
    for label, rep in (("main", report), ("HEAD rewards", other)):
        for arm, s in rep["grpo"]["summary"].items():
            rows[f"{arm} ({label})"] = {m: f"{s[m]['mean']:.3f} ± {s[m]['sd']:.3f}" for m in cols if m in s}
    display(pd.DataFrame(rows).T)
    fig, axes = plt.subplots(1, 4, figsize=(16, 3.6))
    for ax, (metric, title) in zip(axes, METRICS[:4]):
        for label, rep, ls in (("main", report, "-"), ("HEAD rewards", other, "--")):
            for arm, runs in rep["grpo"]["arms"].items():
                if arm == "accuracy" and label != "main" or not runs:
                    continue
                steps, t = curves(runs, metric)
                n = np.sum(~np.isnan(t), axis=0)
                mean = np.nanmean(t, axis=0)
                sd = np.nanstd(t, axis=0, ddof=1) if len(runs) > 1 else np.zeros_like(mean)
                half = np.where(n > 1, stats.t.ppf(0.975, np.maximum(n - 1, 1)) * sd / np.sqrt(n), 0.0)
                ax.plot(steps, mean, ls=ls, marker="o", color=colors.get(arm), label=f"{arm} ({label})")
                ax.fill_between(steps, mean - half, mean + half, color=colors.get(arm), alpha=0.12)
        ax.set_title(title); ax.set_xlabel("GRPO step")
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    show(fig)
else:
    print(f"no {OTHER.name}: nothing to compare")
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
