"""Build and execute ``notebooks/collapse_experiment.ipynb`` from the committed report of the collapse experiment.

    .venv/bin/python notebooks/build_collapse_experiment.py

The report is made by ``rafs experiment collapse --quick --out notebooks/results/collapse`` (see docs/collapse.md);
the notebook only reads ``notebooks/results/collapse/report.json`` and plots it (no training).
"""

from __future__ import annotations

from pathlib import Path

from nbbuild import code, execute_and_write, md

HERE = Path(__file__).resolve().parent
OUT = HERE / "collapse_experiment.ipynb"

CELLS = [
    md("""
# Does the checkpoint screen catch a confidence collapse that training causes?

A tiny Llama policy, trained from scratch on the shared tiny world (arithmetic word problems in the step format),
answers and then **states a confidence** (`confidence: 0.8`). SFT makes that confidence calibrated and informative:
lower on problems with more operations, which it gets wrong more often, and lower still when its own chain carries a
slip. GRPO then trains it in two arms, several seeds each:

* **collapse** — the reward is the stated confidence, whatever the answer (the RLHF failure the model card names:
  reward models prefer stated confidence regardless of quality);
* **control** — correctness plus a Brier calibration term, `y − (c − y)²` (as RLCR).

The project's `ValidityScreenCallback` (`policy="halt"`) screens a fixed held-out probe before training and every
`screen_every` steps. Goal: every collapse seed flagged Invalid no later than one screen after its probe AUROC falls
to 0.55 or below; no control seed ever flagged.
"""),
    code("""
import io, json
from pathlib import Path
import pandas as pd
from IPython.display import Image, Markdown, display
from matplotlib.figure import Figure

REPO = Path.cwd().parent if Path.cwd().name == "notebooks" else Path.cwd()
report = json.loads((REPO / "notebooks" / "results" / "collapse" / "report.json").read_text())
cfg = report["config"]

def show(fig, dpi=100):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    display(Image(data=buf.getvalue()))

print(f"complete: {report['complete']}, wall time {report['wall_time_s']:.0f} s, started {report['started_utc']}")
print({k: cfg[k] for k in ("steps", "screen_every", "probe_items", "threshold", "learning_rate", "num_generations",
                           "prompts_per_step", "seeds", "sft_seconds")})
"""),
    md("## The SFT policy (the starting point of every run)"),
    code("""
cal = report["sft"]["calibration"]
print(f"SFT: {report['sft'].get('steps')} steps in {report['sft'].get('seconds')} s, final loss {report['sft'].get('final_loss')}")
print(f"held-out ({cal['n']} problems, sampled): accuracy {cal['accuracy']}, AUROC of stated confidence {cal['auroc']}, "
      f"ECE {cal['ece']}, completions with a confidence {cal['with_confidence']}")
pd.DataFrame(cal["by_operations"]).T.rename_axis("operations")
"""),
    md("## Per seed: first Invalid flag, first AUROC drop, halt"),
    code("""
rows = []
for arm in ("collapse", "control"):
    for r in report.get(arm, []):
        rows.append({"arm": arm, "seed": r["seed"], "baseline tier": r.get("baseline_tier"),
                     "flagged_step": r["flagged_step"], "auroc_drop_step": r["auroc_drop_step"],
                     "halted": r["halted"], "steps run": r.get("steps_run"),
                     "collapse rule would fire at": r.get("collapse_rule_step"), "seconds": r.get("seconds")})
per_seed = pd.DataFrame(rows)
print("goal met:", report.get("goal", {}).get("met"))
per_seed
"""),
    md("""
## L, r and AUROC over training

One line per seed; a red cross marks a screen whose tier is Invalid (the callback halts there), an orange dot an
Indeterminate one. Dashed lines: the L threshold 0.95, r = 0, AUROC 0.55.
"""),
    code("""
colours = {"collapse": "#c62828", "control": "#1565c0"}
fig = Figure(figsize=(14, 8), layout="constrained")
axes = fig.subplots(2, 3, sharex=True)
for i, arm in enumerate(("collapse", "control")):
    for j, (key, ref) in enumerate((("L", 0.95), ("r", 0.0), ("AUROC", 0.55))):
        ax = axes[i, j]
        for r in report.get(arm, []):
            h = [x for x in r["history"] if x.get(key) is not None]
            ax.plot([x["step"] for x in h], [x[key] for x in h], "-", color=colours[arm], alpha=0.75, lw=1.3,
                    label=f"seed {r['seed']}")
            bad = [x for x in h if x["tier"] == "Invalid"]
            ax.plot([x["step"] for x in bad], [x[key] for x in bad], "x", color="black", ms=8, mew=2)
            ind = [x for x in h if x["tier"] == "Indeterminate"]
            ax.plot([x["step"] for x in ind], [x[key] for x in ind], "o", color="#ef8f00", ms=4)
        ax.axhline(ref, color="grey", ls="--", lw=1)
        ax.set_title(f"{arm}: {key}")
        ax.set_ylim(-1.02 if key == "r" else -0.02, 1.02)
        if i == 1:
            ax.set_xlabel("GRPO step")
    axes[i, 0].legend(fontsize=7)
show(fig)
"""),
    code("""
fig = Figure(figsize=(14, 3.6), layout="constrained")
axes = fig.subplots(1, 3)
for arm in ("collapse", "control"):
    for r in report.get(arm, []):
        h = r["history"]
        axes[0].plot([x["step"] for x in h], [x["mean_confidence"] for x in h], color=colours[arm], alpha=0.7)
        axes[1].plot([x["step"] for x in h], [x["accuracy"] for x in h], color=colours[arm], alpha=0.7)
        tr = r.get("train_reward") or []
        axes[2].plot([s for s, _ in tr], [v for _, v in tr], color=colours[arm], alpha=0.5, lw=0.8)
axes[0].set_title("mean stated confidence on the probe")
axes[1].set_title("probe accuracy")
axes[2].set_title("training reward (red: confidence; blue: Brier)")
for ax in axes:
    ax.set_xlabel("GRPO step")
show(fig)
"""),
    md("""
## Without the halt: the same runs under `policy="flag"`

`report_flag.json` repeats the experiment from the same SFT checkpoint with the callback's policy set to `"flag"`
(log and go on), so that the whole trajectory is seen: when the AUROC falls, and whether the collapse persists.
"""),
    code("""
flag_path = REPO / "notebooks" / "results" / "collapse" / "report_flag.json"
if flag_path.is_file():
    flag = json.loads(flag_path.read_text())
    print(f"policy={flag['config']['policy']}, wall time {flag['wall_time_s']:.0f} s, goal met: {flag['goal']['met']}")
    display(pd.DataFrame([{"arm": arm, "seed": r["seed"], "flagged_step": r["flagged_step"],
                           "auroc_drop_step": r["auroc_drop_step"], "halted": r["halted"],
                           "collapse rule would fire at": r.get("collapse_rule_step"),
                           "Invalid screens": sum(h["tier"] == "Invalid" for h in r["history"]),
                           "screens": len(r["history"])} for arm in ("collapse", "control") for r in flag[arm]]))
    fig = Figure(figsize=(14, 3.8), layout="constrained")
    axes = fig.subplots(1, 3, sharex=True)
    for arm in ("collapse", "control"):
        for r in flag[arm]:
            h = r["history"]
            for ax, key in zip(axes, ("L", "r", "AUROC")):
                pts = [x for x in h if x.get(key) is not None]
                ax.plot([x["step"] for x in pts], [x[key] for x in pts], color=colours[arm], alpha=0.7)
                bad = [x for x in pts if x["tier"] == "Invalid"]
                ax.plot([x["step"] for x in bad], [x[key] for x in bad], "x", color="black", ms=6)
    for ax, (key, ref) in zip(axes, (("L", 0.95), ("r", 0.0), ("AUROC", 0.55))):
        ax.axhline(ref, color="grey", ls="--", lw=1)
        ax.set_title(f"{key} (red: collapse, blue: control; x: Invalid)")
        ax.set_xlabel("GRPO step")
    show(fig)
else:
    print("no report_flag.json")
"""),
    md("## The screen history of every run"),
    code("""
hist = pd.DataFrame([{"arm": arm, "seed": r["seed"], **{k: x.get(k) for k in ("step", "tier", "L", "Fp", "RBS", "r",
                                                                              "AUROC", "accuracy", "mean_confidence",
                                                                              "n", "decision")},
                      "tier (other binarisation)": (x.get("other_binarisation") or {}).get("tier")}
                     for arm in ("collapse", "control") for r in report.get(arm, []) for x in r["history"]])
pd.set_option("display.max_rows", 400)
hist
"""),
]


def main() -> None:
    execute_and_write(CELLS, OUT)


if __name__ == "__main__":
    main()
