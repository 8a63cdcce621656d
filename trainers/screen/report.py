"""The VRS report (Validity Report for Screening): one :class:`ScreenResult` per group, as a dataclass, a JSON
object, Markdown, and a matplotlib figure.

JSON shape of one group (``ScreenResult.to_dict()``)::

    {"group": "gpt-x", "n": 500, "n_dropped": 0, "accuracy": 0.89, "n_correct": 445, "n_wrong": 55,
     "cells": {"a": 319, "b": 16, "c": 126, "d": 39},
     "L": {"value": .., "ci_low": .., "ci_high": .., "method": "wilson", "threshold": 0.95},
     "Fp": {...}, "RBS": {...}, "TRIN": {...}, "r": {...},
     "tier": "Valid", "reasons": [...], "warnings": [...], "fragile": false, "fragility": [...],
     "response_style": "none",
     "confidence_format": "percent", "threshold_rule": "median", "threshold": 0.92,
     "phase_b": {"auroc": .., "ece": .., "brier": .., "aurc": .., ...} | null, ...}

NaN values become ``null``.

Example
-------
>>> from trainers.screen import screen
>>> res = screen([True, True, False, True, False, True] * 20, [90, 80, 30, 95, 60, 70] * 20)
>>> res.to_dict()["cells"]
{'a': 60, 'b': 0, 'c': 20, 'd': 40}
>>> print(res.to_markdown().splitlines()[0])
### VRS — validity screen
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from .config import ScreenConfig
from .indices import Interval
from .phase_b import PhaseB, finite_or_none
from .table import Cells

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.figure import Figure

    from .stability import StabilityResult

__all__ = ["ScreenResult", "results_to_json", "results_to_markdown", "summary_figure", "results_to_frame"]

TIER_COLOURS = {"Valid": "#2e7d32", "Indeterminate": "#ef8f00", "Invalid": "#c62828"}


@dataclass
class ScreenResult:
    """The screen of one group: the 2x2 table, every index with its interval, the tier and Phase B.

    Attribute access: ``result.tier``, ``result.L.value``, ``result.L.ci_low``, ``result.cells.b``,
    ``result.phase_b.auroc`` (``phase_b`` is None for Invalid signals).
    """

    group: str | None
    n: int
    n_dropped: int
    accuracy: float
    cells: Cells
    L: Interval
    Fp: Interval
    RBS: Interval
    TRIN: Interval
    r: Interval
    r_phi: Interval
    tier: str
    reasons: list[str]
    warnings: list[str]
    response_style: str
    phase_b: PhaseB | None
    confidence_format: str
    threshold_rule: str
    threshold: float | None
    config: ScreenConfig = field(default_factory=ScreenConfig, repr=False)
    seed: int = 0
    metadata: dict[str, Any] = field(default_factory=dict)
    stability: "StabilityResult | None" = None
    fragility: list[str] = field(default_factory=list)

    @property
    def fragile(self) -> bool:
        """True when an interval crosses a threshold (the verdict could flip with a few responses)."""
        return bool(self.fragility)

    # ------------------------------------------------------------------ serialisation
    @property
    def n_correct(self) -> int:
        return self.cells.n_correct

    @property
    def n_wrong(self) -> int:
        return self.cells.n_wrong

    @property
    def indices(self) -> dict[str, Interval]:
        return {"L": self.L, "Fp": self.Fp, "RBS": self.RBS, "TRIN": self.TRIN, "r": self.r, "r_phi": self.r_phi}

    def to_dict(self, include_curves: bool = False) -> dict[str, Any]:
        """The JSON object of this group (see the module docstring); NaN becomes None."""
        d: dict[str, Any] = {
            "group": self.group,
            "n": self.n,
            "n_dropped": self.n_dropped,
            "accuracy": finite_or_none(self.accuracy),
            "n_correct": self.n_correct,
            "n_wrong": self.n_wrong,
            "cells": self.cells.to_dict(),
        }
        for k, iv in self.indices.items():
            d[k] = iv.to_dict()
        d.update({
            "tier": self.tier,
            "reasons": list(self.reasons),
            "warnings": list(self.warnings),
            "fragile": self.fragile,
            "fragility": list(self.fragility),
            "response_style": self.response_style,
            "confidence_format": self.confidence_format,
            "threshold_rule": self.threshold_rule,
            "threshold": finite_or_none(self.threshold),
            "phase_b": self.phase_b.to_dict(include_curves) if self.phase_b is not None else None,
            "seed": self.seed,
            "config": self.config.to_dict(),
        })
        if self.metadata:
            d["metadata"] = dict(self.metadata)
        if self.stability is not None:
            d["stability"] = self.stability.to_dict()
        return d

    def to_json(self, **kwargs: Any) -> str:
        return json.dumps(self.to_dict(), **({"indent": 2} | kwargs))

    # ------------------------------------------------------------------ markdown
    def to_markdown(self) -> str:
        """The VRS table of this group as Markdown."""
        title = "### VRS — validity screen" + (f": {self.group}" if self.group is not None else "")
        c = self.cells
        thr = ("as given (binary)" if self.threshold_rule == "binary" else
               f"{self.threshold_rule} ({self.threshold:.3g}); high = confidence >= threshold"
               if self.threshold is not None else self.threshold_rule)
        rows: list[tuple[str, str]] = []
        for key in ("model", "benchmark", "elicitation", "probe_timing"):
            if key in self.metadata:
                rows.append((key.replace("_", " ").capitalize(), str(self.metadata[key])))
        rows += [
            ("N items (dropped)", f"{self.n} ({self.n_dropped})"),
            ("Accuracy", f"{self.accuracy:.3f} ({self.n_correct} correct / {self.n_wrong} wrong)"
             if self.n else "n/a"),
            ("Confidence format", self.confidence_format),
            ("Binarisation", thr),
            ("2x2 table", f"a={c.a} (correct, high), b={c.b} (wrong, high), c={c.c} (correct, low), "
                          f"d={c.d} (wrong, low)"),
            ("L = b/(b+d)", self.L.fmt() + f" (Invalid >= {self.config.L_threshold})"),
            ("Fp = c/(a+c)", self.Fp.fmt() + f" (Invalid >= {self.config.Fp_threshold})"),
            ("RBS = Fp-(1-L)", self.RBS.fmt(signed=True) + " (Invalid if reliably > 0)"),
            ("TRIN", self.TRIN.fmt() + f" (warning >= {self.config.TRIN_warning})"),
            ("r(confidence, correct)", self.r.fmt(signed=True) + f" ({self.r.method})"),
            ("r on binarised confidence (phi)", self.r_phi.fmt(signed=True)),
            ("**Tier**", f"**{self.tier}**"),
            ("Reasons", "<br>".join(self.reasons) or "none"),
            ("Warnings", "<br>".join(self.warnings) or "none"),
            ("Fragility (intervals; they do not veto the tier)", "<br>".join(self.fragility) or "none"),
            ("Response style", self.response_style),
        ]
        pb = self.phase_b
        if pb is None:
            rows.append(("Phase B", "not run (Invalid signal)" if self.tier == "Invalid" else "not run"))
        else:
            def f(x: float | None) -> str:
                return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.3f}"
            gains = ", ".join(f"{k:g}: {v:+.3f}" for k, v in pb.selective_gain.items())
            rows += [
                ("Phase B", ("with caveat: " + pb.caveat) if pb.caveat else "run"),
                ("AUROC / ECE / Brier", f"{f(pb.auroc)} / {f(pb.ece)} / {f(pb.brier)}"),
                ("AURC (excess)", f"{f(pb.aurc)} ({f(pb.e_aurc)})"),
                ("Selective gain by coverage", gains),
                ("meta-d' (approx.)", f(pb.meta_d)),
            ]
        if self.stability is not None:
            rows.append(("Subsampling stability", self.stability.summary()))
        lines = [title, "", "| Field | Value |", "|---|---|"]
        lines += [f"| {k} | {v.replace('|', '/')} |" for k, v in rows]
        return "\n".join(lines) + "\n"

    # ------------------------------------------------------------------ figure
    def figure(self) -> "Figure":
        """A matplotlib figure (Agg): the 2x2 table, each index with its interval against its threshold, and
        the reliability diagram (or the risk–coverage curve) when Phase B ran."""
        from matplotlib.figure import Figure  # a bare Figure renders with Agg; no pyplot, no GUI backend

        fig = Figure(figsize=(13, 4.2), layout="constrained")
        ax0, ax1, ax2 = fig.subplots(1, 3, gridspec_kw={"width_ratios": [1, 1.5, 1.2]})
        _draw_table(ax0, self.cells)
        _draw_indices(ax1, self)
        _draw_phase_b(ax2, self)
        title = f"{self.group}: " if self.group is not None else ""
        fig.suptitle(f"{title}{self.tier} (n={self.n}, accuracy {self.accuracy:.3f})",
                     color=TIER_COLOURS.get(self.tier, "black"), fontweight="bold")
        return fig

    def save_figure(self, path: str | Path, dpi: int = 120) -> Path:
        path = Path(path)
        self.figure().savefig(path, dpi=dpi)
        return path


def _draw_table(ax: Any, cells: Cells) -> None:
    import numpy as np

    m = np.array([[cells.a, cells.c], [cells.b, cells.d]], dtype=float)
    ax.imshow(m, cmap="Blues", vmin=0, vmax=max(1.0, m.max()))
    names = [["a", "c"], ["b", "d"]]
    for i in range(2):
        for j in range(2):
            ax.text(j, i, f"{names[i][j]} = {int(m[i, j])}", ha="center", va="center",
                    color="white" if m[i, j] > 0.6 * m.max() else "black", fontsize=12)
    ax.set_xticks([0, 1], ["high conf.", "low conf."])
    ax.set_yticks([0, 1], ["correct", "wrong"])
    ax.set_title("2x2 table")


def _draw_indices(ax: Any, res: ScreenResult) -> None:
    cfg = res.config
    items = [("L", res.L, cfg.L_threshold), ("Fp", res.Fp, cfg.Fp_threshold),
             ("RBS", res.RBS, cfg.RBS_threshold), ("TRIN", res.TRIN, cfg.TRIN_warning), ("r", res.r, 0.0)]
    for y, (name, iv, thr) in enumerate(items):
        colour = "black"
        if name in ("L", "Fp") and iv.defined and iv.value >= thr:
            colour = TIER_COLOURS["Invalid"]
        if name == "RBS" and iv.defined and iv.value > thr:
            colour = TIER_COLOURS["Invalid"]
        if name == "TRIN" and iv.defined and iv.value >= thr:
            colour = TIER_COLOURS["Indeterminate"]  # structural warning only
        ax.plot([iv.ci_low, iv.ci_high], [y, y], color=colour, lw=2.5)
        if iv.defined:
            ax.plot([iv.value], [y], "o", color=colour)
        ax.plot([thr, thr], [y - 0.35, y + 0.35], color="grey", ls="--", lw=1)
        ax.text(1.03, y, iv.fmt(2, signed=name in ("RBS", "r")), va="center", fontsize=8,
                transform=ax.get_yaxis_transform())
    ax.set_yticks(range(len(items)), [i[0] for i in items])
    ax.set_xlim(-1.05, 1.05)
    ax.invert_yaxis()
    ax.set_title("indices with intervals (dashed: threshold)")


def _draw_phase_b(ax: Any, res: ScreenResult) -> None:
    import numpy as np

    pb = res.phase_b
    if pb is None:
        ax.axis("off")
        ax.text(0.5, 0.5, "Phase B not run\n(Invalid signal: do not interpret)", ha="center", va="center",
                fontsize=11, color=TIER_COLOURS["Invalid"])
        return
    if pb.reliability is not None:
        rel = pb.reliability
        conf = np.asarray(rel["confidence"], dtype=float)
        acc = np.asarray(rel["accuracy"], dtype=float)
        cnt = np.asarray(rel["count"], dtype=float)
        m = cnt > 0
        ax.plot([0, 1], [0, 1], color="grey", ls="--", lw=1)
        ax.bar(np.asarray(rel["edges"][:-1])[m], cnt[m] / cnt.sum(), width=1 / len(cnt), align="edge",
               color="#90caf9", alpha=0.5, label="share of items")
        ax.scatter(conf[m], acc[m], s=20 + 200 * cnt[m] / cnt.sum(), color="#1565c0", zorder=3,
                   label="accuracy (size: items)")
        ax.plot(conf[m], acc[m], color="#1565c0", lw=1)
        ax.legend(fontsize=7, loc="upper left")
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1.02)
        ax.set_xlabel("mean confidence in bin")
        ax.set_ylabel("accuracy in bin")
        ax.set_title(f"reliability (ECE {pb.ece:.3f}, AUROC {pb.auroc:.3f})")
    else:
        ax.plot(pb.coverage, pb.risk, color="#1565c0")
        ax.set_xlabel("coverage")
        ax.set_ylabel("risk (error rate)")
        ax.set_title(f"risk–coverage (AURC {pb.aurc:.3f})")
    if pb.caveat:
        ax.text(0.98, 0.02, "caveat: Indeterminate", transform=ax.transAxes, va="bottom", ha="right", fontsize=8,
                color=TIER_COLOURS["Indeterminate"])


# ---------------------------------------------------------------------- many groups
def results_to_json(results: Sequence[ScreenResult], path: str | Path | None = None,
                    include_curves: bool = False) -> str:
    """The JSON list (one object per group); written to ``path`` when given."""
    text = json.dumps([r.to_dict(include_curves) for r in results], indent=2)
    if path is not None:
        Path(path).write_text(text + "\n", encoding="utf-8")
    return text


def results_to_frame(results: Sequence[ScreenResult]) -> Any:
    """A pandas DataFrame with one row per group: tier, cells, each index with its interval, Phase B."""
    import pandas as pd

    rows = []
    for r in results:
        row: dict[str, Any] = {"group": r.group, "n": r.n, "n_dropped": r.n_dropped, "accuracy": r.accuracy,
                               **r.cells.to_dict(), "tier": r.tier, "response_style": r.response_style}
        for k, iv in r.indices.items():
            row[k] = iv.value
            row[f"{k}_ci_low"] = iv.ci_low
            row[f"{k}_ci_high"] = iv.ci_high
        pb = r.phase_b
        row.update({"auroc": pb.auroc if pb else math.nan, "ece": (pb.ece if pb and pb.ece is not None
                                                                    else math.nan),
                    "brier": pb.brier if pb and pb.brier is not None else math.nan,
                    "aurc": pb.aurc if pb else math.nan})
        rows.append(row)
    return pd.DataFrame(rows)


def results_to_markdown(results: Sequence[ScreenResult], detail: bool = True) -> str:
    """A summary table of every group, followed (``detail``) by each group's VRS table."""
    head = ("| group | n | acc | a | b | c | d | L | Fp | RBS | TRIN | r | tier | style | AUROC |\n"
            "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    lines = ["## Validity screen", "", head]
    for r in results:
        c = r.cells
        au = f"{r.phase_b.auroc:.3f}" if r.phase_b is not None and not math.isnan(r.phase_b.auroc) else "—"
        lines.append(
            f"| {r.group if r.group is not None else '—'} | {r.n} | {r.accuracy:.3f} | {c.a} | {c.b} | {c.c} | "
            f"{c.d} | {r.L.fmt()} | {r.Fp.fmt()} | {r.RBS.fmt(signed=True)} | {r.TRIN.fmt()} | "
            f"{r.r.fmt(signed=True)} | **{r.tier}** | {r.response_style} | {au} |")
    out = "\n".join(lines) + "\n"
    if detail:
        out += "\n" + "\n".join(r.to_markdown() for r in results)
    return out


def summary_figure(results: Sequence[ScreenResult]) -> "Figure":
    """A forest plot per index (L, Fp, RBS, r) with one row per group, coloured by tier."""
    from matplotlib.figure import Figure  # a bare Figure renders with Agg; no pyplot, no GUI backend

    k = len(results)
    fig = Figure(figsize=(14, 1.2 + 0.32 * k), layout="constrained")
    axes = fig.subplots(1, 4, sharey=True)
    names = [str(r.group) for r in results]
    cfg = results[0].config if results else ScreenConfig()
    for ax, (key, thr) in zip(axes, [("L", cfg.L_threshold), ("Fp", cfg.Fp_threshold),
                                     ("RBS", cfg.RBS_threshold), ("r", 0.0)]):
        for y, r in enumerate(results):
            iv = r.indices[key]
            col = TIER_COLOURS.get(r.tier, "black")
            ax.plot([iv.ci_low, iv.ci_high], [y, y], color=col, lw=2)
            if iv.defined:
                ax.plot([iv.value], [y], "o", color=col, ms=4)
        ax.axvline(thr, color="grey", ls="--", lw=1)
        ax.set_title(key)
        ax.set_xlim(-1.0 if key in ("RBS", "r") else 0.0, 1.0)
    axes[0].set_yticks(range(k), names, fontsize=8)
    axes[0].invert_yaxis()
    from matplotlib.lines import Line2D

    fig.legend(handles=[Line2D([], [], color=c, lw=2, label=t) for t, c in TIER_COLOURS.items()],
               loc="outside lower center", ncols=3, frameon=False)
    return fig
