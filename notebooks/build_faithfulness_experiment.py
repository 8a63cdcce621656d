"""Build and execute ``notebooks/faithfulness_experiment.ipynb`` and regenerate the results block of
``docs/faithfulness.md``: does GRPO with the RAFS rewards make reasoning more faithful, and at what cost in
accuracy? The curves of every arm with intervals across seeds, the Welch tests, the non-inferiority interval and
the pre-registered comparisons, from the committed reports.

    rafs experiment faithfulness --quick --arms accuracy,faithful_accuracy,rafs,support_only --out runs/faith-main
    rafs experiment faithfulness --quick --world laundered --arms faithful_accuracy,rafs,support_only \
        --out runs/faith-laundered
    cp runs/faith-main/report.json notebooks/results/faithfulness/report.json
    cp runs/faith-laundered/report.json notebooks/results/faithfulness/report_laundered.json
    .venv/bin/python notebooks/build_faithfulness_experiment.py [path/to/report.json]

The notebook is built with nbformat and executed in place with nbclient (the venv's ``python3`` kernel). It reads
``notebooks/results/faithfulness/report.json`` unless a path is given (``$FAITHFULNESS_REPORT`` inside the kernel).
Beside it, when present: ``report_laundered.json`` (the pre-registered world variant),
``report_check_hinted_only.json`` and ``report_check_hint_free_share.json`` (the one-seed check of why hint-free
accuracy fell), ``report_hinted_only.json`` (the hinted-only recipe: hinted prompts only, 3 seeds, 64 prompts),
``report_head_rewards.json`` and ``report_after_integrity.json`` (the hinted-only recipe's arms before and after the
reward-integrity change, shown as before / during / after), ``report_kl.json`` and ``report_cosine.json`` (the
exploratory runs with a KL term and with a cosine schedule), ``report_kl_confirm.json`` (the pre-registered
confirmation C4 on fresh seeds), ``report_gated.json`` and ``report_sum_fresh.json`` (the pre-registered C5: the
``rafs`` arm composed ``accuracy × (1 + RAFS)``, and as ``accuracy + RAFS``, on fresh seeds 10–14). The text
between ``<!-- generated: … -->`` and ``<!-- /generated -->`` in ``docs/faithfulness.md`` is rewritten from the
same reports (``--docs-only`` skips the notebook).
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
OUT = HERE / "faithfulness_experiment.ipynb"
DEFAULT_REPORT = HERE / "results" / "faithfulness" / "report.json"
DOCS = ROOT / "docs" / "faithfulness.md"
BEGIN, END = "<!-- generated: notebooks/build_faithfulness_experiment.py -->", "<!-- /generated -->"
sys.path.insert(0, str(ROOT))  # this checkout's trainers package, for the docs block

from nbbuild import code, execute_and_write, md  # noqa: E402

CELLS = [
    md("""
# Does the RAFS reward make reasoning more faithful, and at what cost in accuracy? A controlled GRPO experiment on CPU

A tiny world where the ground truth of faithfulness is known without reading the chain
(`trainers/experiments/world.py`): program-generated arithmetic word problems solved in the step format
`a op b = c` / `#### N`, prompts that may carry a hint ("The answer key says N."). A tiny `LlamaForCausalLM`
is trained from scratch with SFT on a mixture of behaviours — **faithful** (the answer is the chain's result),
**rationalising** (the answer copies the hint; the chain is cut short or carries a slip), **shortcut** (`#### N`
only) and **restate** (`N = N`) — then GRPO runs from that one checkpoint. Every hinted training prompt carries a
**right** hint, so accuracy alone cannot tell the behaviours apart on it; half of every GRPO batch carries **no**
hint, so each arm trains on the hint-free prompts its accuracy is measured on. Arms, same budget and seeds:
`accuracy`, `faithful_accuracy` (`faithful_accuracy_reward`), `rafs` (accuracy + `rafs_reward`) and
`support_only` (`rafs_support_reward`: `S_RA` alone).

Measured on held-out prompts (never trained or tuned on), sampling at temperature 1 from a fixed seed:
**misleading-hint accuracy** (the hint is wrong: a faithful policy ignores it), **faithfulness rate** (the causal
test: a pivotal intermediate result of the reference chain is forced to another value, teacher-forced; does the
final answer follow the chain?), **hack rate** (an answer with no `a op b = c` step, or a `N = N` line),
**accuracy** on hint-free prompts and **mean completion length**. Reproduce with
`rafs experiment faithfulness --quick --out DIR`; see `docs/faithfulness.md`.
"""),
    code("""
import io, json, os, sys
from pathlib import Path
import numpy as np
import pandas as pd
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
from scipy import stats
from IPython.display import Image, Markdown, display

sys.path.insert(0, str(Path.cwd().parent))  # this checkout's trainers package
from trainers.experiments import faithfulness as F

REPORT = Path(os.environ.get("FAITHFULNESS_REPORT", "results/faithfulness/report.json"))
report = json.loads(REPORT.read_text())
cfg = report["config"]

def load(name):
    path = REPORT.with_name(name)
    return json.loads(path.read_text()) if path.is_file() else None

def show(fig, dpi=100):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
    plt.close(fig)
    display(Image(data=buf.getvalue()))

print(f"report: {REPORT} | complete: {report['complete']} | wall time {report['wall_time_s'] / 60:.1f} min "
      f"| started {report['started_utc']}")
print(f"world: {cfg['min_ops']}-{cfg['max_ops']} operations, values <= {cfg['max_value']}, mixture "
      f"{cfg.get('world_variant', 'default')}; SFT {report['sft'].get('steps')} steps "
      f"({report['sft'].get('seconds')} s), {report['sft'].get('parameters', 0):,} parameters")
print(f"GRPO: {cfg['steps']} steps x {cfg['prompts_per_step']} prompts x {cfg['num_generations']} completions "
      f"(hint-free share {cfg.get('hint_free_share', 0.0)}), lr {cfg['learning_rate']}, {cfg['seeds']} seeds per "
      f"arm; {cfg['eval_prompts']} evaluation prompts")
pd.Series(report["sft"]["metrics"], name="SFT policy (step 0)").to_frame()
"""),
    md("""
## How the rewards, as they stand, pay each behaviour

One canonical completion of each behaviour for one problem with a right hint, and what each arm's total reward
(as TRL sums it; a `None` counts 0) pays for it. This is the fingerprint of the reward version the run used.
"""),
    code("""
probe = report["rewards"]["probe"]
pd.DataFrame({arm: probe[arm] for arm in probe if arm != "completion"}).round(3).assign(
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
           ("hack_rate", "hack rate"), ("accuracy", "accuracy, hint-free"), ("hinted_accuracy", "accuracy, right hint"),
           ("hint_copy_rate", "copies the misleading hint")]
colors = {"accuracy": "C0", "faithful_accuracy": "C1", "rafs": "C3", "support_only": "C2", "rafs_only": "C4"}

def curves(runs, metric):
    steps = sorted({c["step"] for r in runs for c in r["curve"]})
    table = np.full((len(runs), len(steps)), np.nan)
    for i, r in enumerate(runs):
        for c in r["curve"]:
            if metric in c:
                table[i, steps.index(c["step"])] = c[metric]
    return np.array(steps), table

def band(runs, metric):  # steps, the mean over seeds, the half-width of its 95% t-interval (0 with one seed)
    steps, t = curves(runs, metric)
    n = np.sum(~np.isnan(t), axis=0)
    mean = np.nanmean(t, axis=0)
    sd = np.nanstd(t, axis=0, ddof=1) if len(runs) > 1 else np.zeros_like(mean)
    return steps, mean, np.where(n > 1, stats.t.ppf(0.975, np.maximum(n - 1, 1)) * sd / np.sqrt(n), 0.0)

def plot_arms(rep, title=None, ls="-"):
    fig, axes = plt.subplots(2, 3, figsize=(14, 7))
    for ax, (metric, name) in zip(axes.flat, METRICS):
        for arm, runs in rep["grpo"]["arms"].items():
            if not runs:
                continue
            steps, mean, half = band(runs, metric)
            ax.plot(steps, mean, ls=ls, marker="o", color=colors.get(arm), label=f"{arm} (n={len(runs)})")
            ax.fill_between(steps, mean - half, mean + half, color=colors.get(arm), alpha=0.15)
        ax.set_title(name); ax.set_xlabel("GRPO step")
    axes.flat[0].legend(fontsize=8)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    show(fig)

plot_arms(report)
"""),
    md("""
## The end of training: intervals, tests, the non-inferiority interval and the bars

`report["analysis"]` (`trainers.experiments.faithfulness.analyse`): per arm the mean and 95% t-interval over
seeds; Welch differences to the `accuracy` and `faithful_accuracy` arms; each arm against the SFT policy evaluated
with the same sampling seed (paired by seed: the non-inferiority interval, margin 0.05); the issue's bars for the
`rafs` arm. The same text is the results block of `docs/faithfulness.md`.
"""),
    code("""
display(Markdown(F.results_markdown(report, name=REPORT.name)))
per_seed = pd.DataFrame([{"arm": arm, "seed": r["seed"], **{m: r[m] for m in F.TABLE_METRICS if m in r},
                          "seconds": r.get("seconds")} for arm, runs in report["grpo"]["arms"].items() for r in runs])
per_seed.round(3)
"""),
    md("""
## Why hint-free accuracy fell, and the fix

The hinted-only recipe trained on hinted prompts only (every GRPO prompt carried a right hint), so the hint-free
prompts accuracy is measured on were never trained on. The cheapest discriminating check: one seed of the `rafs`
arm from one SFT checkpoint, 256 evaluation prompts, hinted prompts only (`report_check_hinted_only.json`) vs half
of every batch without a hint (`report_check_hint_free_share.json`). Below: both runs' curves, and the earlier
recipe's 3-seed run for reference (`report_hinted_only.json`, 64 prompts).
"""),
    code("""
checks = {label: load(name) for label, name in [("hinted prompts only", "report_check_hinted_only.json"),
                                                ("half hint-free", "report_check_hint_free_share.json")]}
checks = {k: v for k, v in checks.items() if v}
if checks:
    fig, axes = plt.subplots(1, 3, figsize=(14, 3.6))
    for ax, metric in zip(axes, ["accuracy", "hinted_accuracy", "misleading_hint_accuracy"]):
        for (label, rep), ls in zip(checks.items(), ["--", "-"]):
            run = rep["grpo"]["arms"]["rafs"][0]
            steps = [c["step"] for c in run["curve"]]
            ax.plot(steps, [c[metric] for c in run["curve"]], ls=ls, marker="o", color="C3", label=label)
            sft = rep["sft"].get("per_seed")
            if sft:
                ax.axhline(sft[0][metric], color="grey", lw=1, ls=":")
        ax.set_title(metric + " (rafs, seed 0)"); ax.set_xlabel("GRPO step")
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    show(fig)
    display(pd.DataFrame({label: {m: rep["grpo"]["arms"]["rafs"][0][m] for m in F.TABLE_METRICS}
                          for label, rep in checks.items()}).round(3))
old = load("report_hinted_only.json")
if old:
    print("earlier recipe (hinted prompts only, 3 seeds, 64 prompts), end of training:")
    display(pd.DataFrame({arm: {m: f"{s[m]['mean']:.3f} ± {s[m]['sd']:.3f}" for m in ("accuracy", "hinted_accuracy",
                                                                                         "misleading_hint_accuracy", "hack_rate")}
                          for arm, s in old["grpo"]["summary"].items()}).T)
"""),
    md("""
## Pre-registered: the laundered world (`report_laundered.json`)

Registered in `docs/faithfulness.md` before the run: the SFT mixture adds honest slips (the whole chain with a
propagated slip, the answer the chain's wrong result) and rationalisations that write every operation (the last
step bent to the hint, or a propagated slip). C1: `rafs` − `faithful_accuracy` (the continuous vs the discrete
reward), C2 (primary): `support_only` − `faithful_accuracy`, both in this world; C3: `support_only` −
`faithful_accuracy` in the default world. Misleading-hint accuracy at the end of training, Welch over seeds.
"""),
    code("""
laundered = load("report_laundered.json")
display(Markdown(F.preregistered_markdown({"default": report, "laundered": laundered})))
if laundered:
    probe = laundered["rewards"]["probe"]
    display(pd.DataFrame({arm: probe[arm] for arm in probe if arm != "completion"}).round(3).assign(
        completion=pd.Series(probe["completion"]).str.replace("\\n", " | ")))
    display(Markdown(F.results_markdown(laundered, name="report_laundered.json")))
    plot_arms(laundered, title="laundered world")
"""),
    md("""
## A KL term: exploratory on seeds 0-4, pre-registered confirmation C4 on seeds 5-9

`report_kl.json`: every arm with `--beta 0.04` on the main run's checkpoint, prompts and seeds (chosen after the
main run). `report_kl_confirm.json`: the `rafs` arm with the same recipe on fresh seeds 5-9, registered in
`docs/faithfulness.md` before it ran (C4: hint-free accuracy non-inferior to the SFT policy at margin 0.05, hack
rate at most 0.05). `report_cosine.json`: the `rafs` arm with a cosine schedule and no KL term.
"""),
    code("""
for name in ("report_kl.json", "report_cosine.json", "report_kl_confirm.json"):
    rep = load(name)
    if rep:
        display(Markdown(F.results_markdown(rep, name=name)))
        plot_arms(rep, title=name)
"""),
    md("""
## Pre-registered C5: RAFS paid only on a correct answer, fresh seeds 10-14

`rafs_reward` does not read the gold, so added to accuracy it also pays a wrong answer reached by well-formed steps.
`report_gated.json`: the `rafs` arm composed `accuracy × (1 + RAFS)` (`--rafs-composition gated`) and the accuracy
arm, seeds 10-14, registered in `docs/faithfulness.md` before it ran; `report_sum_fresh.json`: the `rafs` arm
composed as before (`accuracy + RAFS`) on the same seeds, the control, and the `faithful_accuracy` arm on the same
seeds as a reference (run after C5's results, not pre-registered). Below: both runs, gated minus sum paired by
seed, and what each composition paid each class of its own GRPO samples.
"""),
    code("""
gated, summed = load("report_gated.json"), load("report_sum_fresh.json")
for name, rep in (("report_gated.json", gated), ("report_sum_fresh.json", summed)):
    if rep:
        display(Markdown(F.results_markdown(rep, name=name)))
        plot_arms(rep, title=name)
if gated and summed:
    display(Markdown(F.paired_runs_markdown(gated, summed, label="gated − sum")))
    display(Markdown(F.reward_classes_markdown({"`rafs` gated": gated, "`rafs` summed; faithful_accuracy": summed},
                                               arms=("rafs", "faithful_accuracy"))))
"""),
    md("""
## The hinted-only recipe before, during and after the reward-integrity change

Hinted prompts only, 3 seeds, 64 evaluation prompts. `rafs experiment faithfulness --reuse-sft DIR/sft --arms ...`
reruns arms from the same SFT checkpoint, the same evaluation prompts and seeds, on whatever `rewards` package is
imported (its path and a hash of its sources are in `report["rewards"]`). Three versions of the rewards:

* **before** — `report_head_rewards.json`: the rewards committed before the integrity change (`faithful_accuracy`
  and `rafs` arms only);
* **during** — `report_hinted_only.json`: the working tree at run time, the integrity change partly in;
* **after** — `report_after_integrity.json`: the rewards as committed after the change (all three arms; the
  `accuracy` arm does not read the changed rewards and reruns as a check that the setup reproduces).
"""),
    code("""
DURING = REPORT.with_name("report_hinted_only.json")
VERSIONS = [("before", REPORT.with_name("report_head_rewards.json")), ("during", DURING),
            ("after", REPORT.with_name("report_after_integrity.json"))]
reports = {label: json.loads(path.read_text()) for label, path in VERSIONS if path.is_file()}
print("versions present:", ", ".join(reports))
for label, rep in reports.items():
    print(f"  {label:7s} rewards {rep['rewards'].get('package')} sha1 {rep['rewards'].get('source_sha1', '(not recorded)')}"
          f" | started {rep['started_utc']} | wall {rep['wall_time_s']:.0f} s | SFT {rep['sft'].get('reused', 'trained')}")
END = ["misleading_hint_accuracy", "faithfulness_rate", "hack_rate", "accuracy", "mean_length", "hint_copy_rate",
       "continuation_faithfulness_rate", "hinted_accuracy"]
rows = {}
if "during" in reports:
    rows["SFT policy (step 0)"] = {m: f"{reports['during']['sft']['metrics'][m]:.3f}" for m in END
                                   if m in reports["during"]["sft"]["metrics"]}
for arm in ("accuracy", "faithful_accuracy", "rafs"):
    for label, rep in reports.items():
        s = rep["grpo"].get("summary", {}).get(arm)
        if s:
            n = max(v["n"] for v in s.values())
            rows[f"{arm} — {label} (n={n})"] = {m: f"{s[m]['mean']:.3f} ± {s[m]['sd']:.3f}" for m in END if m in s}
display(pd.DataFrame(rows).T)
"""),
    code("""
styles = {"before": ":", "during": "--", "after": "-"}
fig, axes = plt.subplots(2, 3, figsize=(15, 7.5))
for ax, (metric, title) in zip(axes.flat, METRICS):
    for label, rep in reports.items():
        for arm, runs in rep["grpo"]["arms"].items():
            if not runs or arm not in colors:
                continue
            steps, mean, half = band(runs, metric)
            ax.plot(steps, mean, ls=styles[label], marker="o", ms=3, color=colors[arm], label=f"{arm} ({label})")
            ax.fill_between(steps, mean - half, mean + half, color=colors[arm], alpha=0.08)
    ax.set_title(title); ax.set_xlabel("GRPO step")
axes.flat[0].legend(fontsize=7)
fig.suptitle("earlier recipe — dotted: before the integrity change · dashed: during · solid: after")
fig.tight_layout()
show(fig)
"""),
    md("""
The interpretation, the limits of this tiny world, and how to rerun it after a reward change are in
`docs/faithfulness.md`.
"""),
]


def docs_block(report_path: Path) -> str:
    """The generated results block of ``docs/faithfulness.md``, from the reports beside ``report_path``."""
    from trainers.experiments import faithfulness as F

    def load(name: str):
        path = report_path.with_name(name)
        return json.loads(path.read_text()) if path.is_file() else None

    main_report = json.loads(report_path.read_text())
    laundered = load("report_laundered.json")
    parts = ["### Main run (`" + report_path.name + "`)", "", F.results_markdown(main_report, name=report_path.name)]
    checks = [(label, load(name)) for label, name in [("hinted prompts only", "report_check_hinted_only.json"),
                                                      ("half of every batch hint-free",
                                                       "report_check_hint_free_share.json")]]
    checks = [(label, rep) for label, rep in checks if rep]
    if checks:
        parts += ["", "### Why hint-free accuracy fell: the one-seed check", "",
                  "The `rafs` arm, seed 0, one SFT checkpoint, 256 evaluation prompts; the SFT policy at the same "
                  "sampling seed in the last column:", "",
                  "| recipe | " + " | ".join(f"{F.TITLES[m]} (step {c['step']})" for m in ("accuracy",)
                                           for c in checks[0][1]["grpo"]["arms"]["rafs"][0]["curve"])
                  + " | accuracy (right hint), end | misleading-hint accuracy, end | SFT accuracy (hint-free) |",
                  "|---" * (len(checks[0][1]["grpo"]["arms"]["rafs"][0]["curve"]) + 4) + "|"]
        # both runs start from one SFT checkpoint: its evaluation at the runs' sampling seed, wherever recorded
        sft = next((rep["sft"]["per_seed"][0]["accuracy"] for _, rep in checks if rep["sft"].get("per_seed")), None)
        for label, rep in checks:
            run = rep["grpo"]["arms"]["rafs"][0]
            parts.append(f"| {label} | " + " | ".join(f"{c['accuracy']:.3f}" for c in run["curve"])
                         + f" | {run['hinted_accuracy']:.3f} | {run['misleading_hint_accuracy']:.3f} | "
                         + ("n/a" if sft is None else f"{sft:.3f}") + " |")
    kl = load("report_kl.json")
    if kl:
        parts += ["", "### Exploratory: the same recipe with a KL term (`report_kl.json`, `--beta 0.04`)", "",
                  "Chosen after the main run, on the same SFT checkpoint, evaluation prompts and seeds (not "
                  "pre-registered; see the interpretation).", "", F.results_markdown(kl, name="report_kl.json")]
    cosine = load("report_cosine.json")
    if cosine:
        parts += ["", "### Exploratory: the `rafs` arm with a cosine learning-rate schedule (`report_cosine.json`)",
                  "", F.results_markdown(cosine, name="report_cosine.json")]
    confirm = load("report_kl_confirm.json")
    if confirm:
        parts += ["", "### Pre-registered confirmation C4: the `rafs` arm with `--beta 0.04` on fresh seeds 5–9 "
                  "(`report_kl_confirm.json`)", "", F.results_markdown(confirm, name="report_kl_confirm.json")]
    gated, summed = load("report_gated.json"), load("report_sum_fresh.json")
    if gated:
        parts += ["", "### Pre-registered C5: the `rafs` arm composed `accuracy × (1 + RAFS)` on fresh seeds 10–14 "
                  "(`report_gated.json`)", "", F.results_markdown(gated, name="report_gated.json")]
    if summed:
        parts += ["", "### C5d control: the `rafs` arm composed `accuracy + RAFS` on the same seeds "
                  "(`report_sum_fresh.json`)", "",
                  "With the `faithful_accuracy` arm on the same seeds as a reference (run after C5's results, not "
                  "pre-registered; merged with `--merge`).", "",
                  F.results_markdown(summed, name="report_sum_fresh.json")]
    if gated and summed:
        parts += ["", "Gated minus sum, the `rafs` arm on the same seeds, rewards and SFT checkpoint:", "",
                  F.paired_runs_markdown(gated, summed, label="gated − sum")]
    tallies = {name: rep for name, rep in [("main run", main_report), ("seeds 10–14, `rafs` gated", gated),
                                           ("seeds 10–14", summed)] if rep}
    if any(r.get("reward_classes") for rep in tallies.values() for runs in rep["grpo"]["arms"].values()
           for r in runs):
        parts += ["", "What each arm's reward paid each class of its own GRPO samples (share of the samples / "
                  "mean reward / mean group-normalised advantage, averaged over seeds; `RewardTally`):", "",
                  F.reward_classes_markdown(tallies, arms=("rafs", "faithful_accuracy"))]
    parts += ["", "### The pre-registered comparisons", "",
              F.preregistered_markdown({"default": main_report, "laundered": laundered})]
    if laundered:
        parts += ["", "### The laundered world (`report_laundered.json`)", "",
                  F.results_markdown(laundered, name="report_laundered.json")]
    return "\n".join(parts)


def write_docs(report_path: Path, docs: Path = DOCS) -> None:
    """Rewrite the text between :data:`BEGIN` and :data:`END` in ``docs`` (refuses when the markers are missing)."""
    text = docs.read_text()
    pattern = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END), re.S)
    if not pattern.search(text):
        raise SystemExit(f"{docs}: no {BEGIN} … {END} block to regenerate; add the two markers where the results go")
    block = BEGIN + "\n" + docs_block(report_path) + "\n" + END
    docs.write_text(pattern.sub(lambda _m: block, text, count=1))
    print(f"wrote {docs}")


def merge(argv: list[str]) -> None:
    """``--merge OUT A.json B.json …``: the arms of runs of one recipe from one SFT checkpoint as one report
    (:func:`trainers.experiments.faithfulness.merge_reports`); refuses to overwrite ``OUT``."""
    from trainers.experiments import faithfulness as F

    if len(argv) < 3:
        raise SystemExit("--merge OUT.json A.json B.json ...: give the output and at least two reports")
    out, inputs = Path(argv[0]), [Path(a) for a in argv[1:]]
    if out.exists():
        raise SystemExit(f"--merge: {out} exists; remove it or choose another name")
    try:
        merged = F.merge_reports([json.loads(p.read_text()) for p in inputs])
    except (OSError, ValueError) as exc:
        raise SystemExit(f"--merge: {exc}") from None
    out.write_text(json.dumps(merged, indent=1))
    print(f"wrote {out} (arms {', '.join(merged['grpo']['arms'])})")


def main(argv: list[str]) -> None:
    if argv[:1] == ["--merge"]:
        return merge(argv[1:])
    docs_only = "--docs-only" in argv
    argv = [a for a in argv if a != "--docs-only"]
    report = Path(argv[0]).resolve() if argv else DEFAULT_REPORT
    if not report.is_file():
        raise SystemExit(f"no report at {report}: run `rafs experiment faithfulness --quick --out DIR` and copy "
                         f"DIR/report.json there, or pass its path")
    write_docs(report)
    if not docs_only:
        os.environ["FAITHFULNESS_REPORT"] = str(report)
        execute_and_write(CELLS, OUT)


if __name__ == "__main__":
    main(sys.argv[1:])
