"""Build and execute ``notebooks/validity_screen_mmlu.ipynb``: the validity screen on 16 LLMs x ~500 MMLU items.

    .venv/bin/python notebooks/build_validity_screen_mmlu.py

The notebook is built with nbformat and executed in place with nbclient (the venv's ``python3`` kernel; if none
is installed: ``.venv/bin/python -m ipykernel install --sys-prefix``). It reads the data from
``../shared/data/validity_screen/...`` beside the repository.
"""

from __future__ import annotations

from pathlib import Path

from nbbuild import code, execute_and_write, md

HERE = Path(__file__).resolve().parent
OUT = HERE / "validity_screen_mmlu.ipynb"

CELLS = [
    md("""
# Validity screen on MMLU: 16 LLMs, verbalised 0–100 confidence

*Screen before you interpret.* Before AUROC, ECE or selective prediction are read off a model's confidence, the
screen asks whether that confidence carries item-level information about correctness at all (Phase A), and only
then computes the substantive metrics (Phase B).

Data: the cross-benchmark MMLU study of the validity-screen paper (`validity-scaling-llm`), one CSV per model with
`is_correct` ("True"/"False"), `confidence` (0–100, verbalised) and `model`. Confidence is binarised per model at
its median (high means `>= median`, the authors' convention), giving the 2x2 table
`a` correct & high, `b` wrong & high, `c` correct & low, `d` wrong & low, and

* `L = b/(b+d)` — errors kept with high confidence (blanket confidence), Wilson interval
* `Fp = c/(a+c)` — correct answers given low confidence (blanket withdrawal), Wilson interval
* `RBS = Fp − (1 − L)` — > 0 means inverted monitoring; Newcombe interval
* `TRIN = max(a+b, c+d)/n` — structural warning at ≥ 0.95
* `r` — point-biserial r of the continuous confidence with correctness (seeded bootstrap interval);
  `r_phi` — r on the binarised confidence, which is what the paper reports.
"""),
    code("""
from pathlib import Path
import io
import numpy as np
import pandas as pd
from IPython.display import Image, Markdown, display

from trainers.screen import (ScreenConfig, screen_groups, results_to_frame, results_to_markdown, summary_figure,
                             subsample_stability)

REPO = Path.cwd().parent if Path.cwd().name == "notebooks" else Path.cwd()
DATA = REPO.parent / "shared" / "data" / "validity_screen" / "validity-scaling-llm" / "cross-benchmark" / "mmlu"
files = sorted((DATA / "item_level").glob("*.csv"))
df = pd.concat([pd.read_csv(f, dtype=str, keep_default_na=False) for f in files], ignore_index=True)

def show(fig, dpi=100):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi)
    display(Image(data=buf.getvalue()))

print(f"{len(files)} files, {len(df)} rows, {df['model'].nunique()} models")
df.groupby("model").agg(n=("is_correct", "size"), accuracy=("is_correct", lambda s: (s == "True").mean()),
                        median_conf=("confidence", lambda s: s.astype(float).median()),
                        distinct_conf=("confidence", "nunique"))
"""),
    md("## Phase A for every model (seeded: `seed=0`, 2,000 bootstrap resamples)"),
    code("""
import time
t0 = time.perf_counter()
results = screen_groups(df, "is_correct", "confidence", "model", seed=0)
print(f"screened {len(results)} models in {time.perf_counter() - t0:.2f} s")

def iv(x):
    return "n/a" if not x.defined else f"{x.value:+.3f} [{x.ci_low:+.3f}, {x.ci_high:+.3f}]"

table = pd.DataFrame([{
    "model": r.group, "n": r.n, "acc": round(r.accuracy, 3),
    "a/b/c/d": f"{r.cells.a}/{r.cells.b}/{r.cells.c}/{r.cells.d}",
    "tier": r.tier, "L": iv(r.L), "Fp": iv(r.Fp), "RBS": iv(r.RBS), "r (continuous)": iv(r.r),
    "r_phi (binarised)": iv(r.r_phi), "TRIN": round(r.TRIN.value, 3), "style": r.response_style,
} for r in results])
pd.set_option("display.width", 250, "display.max_colwidth", 60)
table
"""),
    code("""
print(pd.Series([r.tier for r in results]).value_counts().to_string())
for r in results:
    if r.tier != "Valid" or r.fragile:
        print(f"\\n{r.group} — {r.tier} ({r.response_style})")
        for reason in r.reasons:
            print("   -", reason)
        for w in r.warnings:
            print("   !", w)
        for f in r.fragility:
            print("   ~ fragility:", f)
"""),
    md("""
### Tiers by the point estimate; intervals as fragility

The tier follows the paper: a violated point estimate is Invalid (`L >= 0.95`, `Fp >= 0.50`, or RBS with its whole
interval above 0); points *near* a threshold (L in [0.93, 0.95), Fp in [0.48, 0.50), RBS in (−0.02, 0] or above 0
but not reliably) and indices resting on fewer than 5 answers are Indeterminate. An interval that crosses a
threshold is listed under `fragility` (with how many responses would flip the verdict); it does not change the tier.

Before this rule the screen let an overlapping interval veto a verdict (the authors' tool's Wilson floors, plus
Indeterminate whenever an L / Fp interval reached its threshold or an RBS interval reached above 0). Both rules on
the same 16 models:
"""),
    code("""
old_cfg = ScreenConfig.reference_tool(L_near=0.02, Fp_near=0.02, rbs_ci_spanning_zero_is_indeterminate=True)
# the earlier rule also made an L / Fp interval that reaches its threshold Indeterminate
def old_tier(r):
    from trainers.screen import classify
    t = classify(r.cells, r.indices, old_cfg).tier
    if t == "Valid" and (r.L.ci_high >= 0.95 or r.Fp.ci_high >= 0.50):
        t = "Indeterminate"
    return t
before_after = pd.DataFrame({"model": [r.group for r in results], "before (interval veto)": [old_tier(r) for r in results],
                             "after (point estimate)": [r.tier for r in results]})
print(before_after.drop(columns="model").apply(lambda c: c.value_counts()).fillna(0).astype(int).to_string())
before_after[before_after.iloc[:, 1] != before_after.iloc[:, 2]]
"""),
    md("""
The main study's blanket-confidence models are not in the shared data (only the MMLU cross-benchmark files are).
Tables rebuilt from the values the paper quotes — Gemini 3.1 Pro, L = 0.967 from 30 errors with r ≈ 0, and
Qwen 3 Next 80B Thinking, L = 0.974 (37 of 38) — with illustrative correct-answer cells chosen so that r ≈ 0:
"""),
    code("""
from trainers.screen import screen
rebuilt = {"Gemini 3.1 Pro (rebuilt)": (478, 29, 16, 1), "Qwen 3 Next 80B Thinking (rebuilt)": (470, 37, 16, 1)}
for name, (a, b, c, d) in rebuilt.items():
    ok = np.array([True] * a + [False] * b + [True] * c + [False] * d)
    high = np.array([True] * (a + b) + [False] * (c + d))
    r = screen(ok, high, group=name, phase_b=False)
    old = old_tier(r)
    print(f"{name}: L = {r.L.fmt()}, r = {r.r.value:+.3f} -> {r.tier} ({r.response_style}); interval-veto rule: {old}")
    print("   ~", r.fragility[0])
"""),
    md("""
### Each index with its interval against its threshold

Green Valid, orange Indeterminate, red Invalid; the dashed line is the threshold (L 0.95, Fp 0.50, RBS 0, r 0).
"""),
    code("show(summary_figure(results))"),
    md("""
## Agreement with the authors' published summaries

The per-model summaries in `summary/` were produced by the authors. The cells, L and Fp with their Wilson
intervals, RBS and r (the paper's r is on the binarised confidence, our `r_phi`) and AUROC should coincide.
"""),
    code("""
summ = pd.concat([pd.read_csv(f) for f in (DATA / "summary").glob("*.csv")]).set_index("model")
rows = []
for r in results:
    if r.group not in summ.index:
        continue
    s = summ.loc[r.group]
    rows.append({"model": r.group, "tier (ours)": r.tier, "tier (paper)": s["tier"],
                 "|ΔL|": abs(r.L.value - s["L"]), "|ΔL_ci_low|": abs(r.L.ci_low - s["L_ci_lower"]),
                 "|ΔFp|": abs(r.Fp.value - s["Fp"]), "|ΔFp_ci_high|": abs(r.Fp.ci_high - s["Fp_ci_upper"]),
                 "|ΔRBS|": abs(r.RBS.value - s["RBS"]), "|Δr_phi|": abs(r.r_phi.value - s["r"]),
                 "|ΔAUROC|": abs(r.phase_b.auroc - s["auroc"]) if r.phase_b is not None else np.nan})
cmp = pd.DataFrame(rows)
print(f"{len(cmp)} models matched by name; largest absolute differences:")
print(cmp.drop(columns=["model", "tier (ours)", "tier (paper)"]).max().round(5).to_string())
cmp[["model", "tier (ours)", "tier (paper)"]][cmp["tier (ours)"] != cmp["tier (paper)"]]
"""),
    md("""
Every model with a published summary gets the authors' tier (the table of differences above is empty): Gemma 3 1B
Invalid (blanket confidence), the rest Valid. GLM-5 and GPT-5.4 nano, which the interval-veto rule called
Indeterminate, are Valid with their intervals listed as fragility.

## The reference tool, validity-screen 0.1.0, on the same binarised data
"""),
    code("""
import validity_screen as vs
ref_rows = []
for r in results:
    sub = df[df["model"] == r.group]
    ok = sub["is_correct"].eq("True").to_numpy()
    ref = vs.screen(ok, vs.binarise(sub["confidence"].astype(float).to_numpy(), method="median"))
    ref_rows.append({"model": r.group, "cells equal": (ref.a, ref.b, ref.c, ref.d) == tuple(r.cells.to_dict().values()),
                     "reference tier": ref.tier, "our tier": r.tier, "min cell": ref.min_cell})
pd.DataFrame(ref_rows)
"""),
    md("""
The reference refuses any table with a cell under 5 (“Insufficient data”). None of these 16 tables is that
sparse, but a model that keeps every answer (c = d = 0) would be refused; ours classifies it:
"""),
    code("""
from trainers.screen import screen
ok = df.loc[df["model"] == "google/gemma-3-1b", "is_correct"].eq("True").to_numpy()
blanket = screen(ok, ["KEEP"] * len(ok), group="Gemma 3 1B, every answer KEEP")
print("reference:", vs.screen(ok, np.ones(len(ok), bool)).tier)
print("ours:     ", blanket.tier, "|", blanket.response_style, "|", "; ".join(blanket.reasons[:1]))
"""),
    md("""
## Small probes: the checkpoint alarm

A training callback screens a probe of 20–50 items. Blanket confidence on 24 items (every answer kept, 12 wrong)
is Invalid by the point rule; the interval-veto rule could never flag it (the L interval needs ~35 errors).
"""),
    code("""
ok24 = np.array([True, False] * 12)
blanket24 = screen(ok24, [95] * 24, phase_b=False)
print("24 items, all kept:", blanket24.tier, "|", blanket24.reasons[0], "| interval-veto rule:", old_tier(blanket24))
print("   ~", blanket24.fragility[0])
"""),
    md("## VRS reports and figures of three models: Invalid, fragile Valid, Valid"),
    code("""
by = {r.group: r for r in results}
for name in ["google/gemma-3-1b", "openai/gpt-5.4-nano-2026-03-17", "anthropic/claude-haiku-4-5@20251001"]:
    display(Markdown(by[name].to_markdown()))
    show(by[name].figure())
"""),
    md("""
## Phase B for the signals that passed

Computed for Valid signals, and for Indeterminate ones with a caveat; never for Invalid. ECE uses 15 equal-width
bins; `gain@c` is the accuracy of the `c` most confident share minus overall accuracy; `meta_d` is the documented
type-2 approximation `sqrt(2)·Φ⁻¹(AUROC)`.
"""),
    code("""
pb = pd.DataFrame([{
    "model": r.group, "tier": r.tier, "AUROC": r.phase_b.auroc, "ECE": r.phase_b.ece, "Brier": r.phase_b.brier,
    "AURC": r.phase_b.aurc, "E-AURC": r.phase_b.e_aurc,
    **{f"gain@{k:g}": v for k, v in r.phase_b.selective_gain.items()}, "meta_d (approx.)": r.phase_b.meta_d,
} for r in results if r.phase_b is not None]).round(3)
pb
"""),
    code("""
from matplotlib.figure import Figure
fig = Figure(figsize=(12, 4.5), layout="constrained")
ax1, ax2 = fig.subplots(1, 2)
shown = {"anthropic/claude-sonnet-4-6@default", "google/gemini-2.5-pro", "google/gemma-3-12b",
         "openai/gpt-5.4-nano-2026-03-17"}
for r in results:
    if r.phase_b is None:
        continue
    ls = "-" if r.tier == "Valid" else ":"
    line, = ax1.plot(r.phase_b.coverage, r.phase_b.risk, ls, lw=1, label=r.group.split("/")[-1][:22])
    if r.group in shown:
        rel = r.phase_b.reliability
        conf, acc, cnt = (np.asarray(rel[k], dtype=float) for k in ("confidence", "accuracy", "count"))
        m = cnt >= 10
        ax2.plot(conf[m], acc[m], ls + "o", ms=4, lw=1.2, color=line.get_color(), label=r.group.split("/")[-1][:22])
ax1.set(xlabel="coverage", ylabel="risk (error rate of kept items)", title="risk–coverage (dotted: Indeterminate)")
ax2.plot([0, 1], [0, 1], "k--", lw=0.8)
ax2.set(xlabel="mean confidence in bin", ylabel="accuracy in bin",
        title="reliability of four models (bins with >= 10 items)", xlim=(0.3, 1.01), ylim=(0.3, 1.01))
ax2.legend(fontsize=7, loc="upper left")
ax1.legend(fontsize=6, ncols=2, loc="upper right")
show(fig)
"""),
    md("""
## Subsampling stability

How often the full-sample tier holds in 200 random subsamples of n items (re-binarised at each subsample's
median). The paper reports clear cases to be stable from 100–150 items, and L to be unstable when there are few
errors.
"""),
    code("""
sizes = (50, 100, 150, 200, 300)
stab = {}
for r in results:
    sub = df[df["model"] == r.group]
    stab[r.group] = subsample_stability(sub["is_correct"], sub["confidence"], sizes=sizes, n_rep=200, seed=0)
st = pd.DataFrame({g: {"full tier": s.full_tier, **{f"n={m}": s.agreement.get(m, np.nan) for m in sizes}}
                   for g, s in stab.items()}).T
st
"""),
    code("""
fig = Figure(figsize=(8, 4), layout="constrained")
ax = fig.subplots()
colours = {"Valid": "#2e7d32", "Indeterminate": "#ef8f00", "Invalid": "#c62828"}
for g, s in stab.items():
    ax.plot(s.sizes, [s.agreement[m] for m in s.sizes], "o-", color=colours[s.full_tier], alpha=0.7, lw=1)
ax.set(xlabel="subsample size n", ylabel="share of subsamples with the full-sample tier", ylim=(0, 1.02),
       title="tier stability (colour: full-sample tier)")
show(fig)
"""),
    md("## The whole VRS report as Markdown (first two models)"),
    code("display(Markdown(results_to_markdown(results[:2], detail=False)))"),
]


def main() -> None:
    execute_and_write(CELLS, OUT)


if __name__ == "__main__":
    main()
