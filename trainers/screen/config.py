"""Thresholds and knobs of the validity screen, each documented with its default and why.

Example
-------
>>> from trainers.screen.config import ScreenConfig
>>> cfg = ScreenConfig(n_boot=500)
>>> cfg.L_threshold, cfg.L_near, cfg.L_invalid_ci_floor      # point estimate decides; no interval veto
(0.95, 0.02, None)
>>> ScreenConfig.reference_tool().L_invalid_ci_floor           # the authors' tool, validity-screen 0.1.0
0.9
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal


@dataclass(frozen=True)
class ScreenConfig:
    """Every threshold the screen applies, with the paper's defaults.

    Phase A (validity) fields
    -------------------------
    L_threshold: 0.95
        ``L = b/(b+d)``, the share of errors answered with high confidence. At or above 0.95 the model keeps
        (almost) every wrong answer: blanket confidence. The paper's Invalid cut-off, applied to the **point
        estimate** (the paper classifies its own battery that way: Gemini 3.1 Pro, L = 0.967 from 30 errors, is
        Invalid although its interval reaches 0.83).
    L_near: 0.02
        "Near the threshold": a point value in ``[L_threshold - L_near, L_threshold)`` is *Indeterminate* (a
        sample just below the line is not a clean pass, however large). Two points of a proportion: MMLU's
        Gemma 3 12B (L = 0.899) stays Valid, an L of 0.935 does not.
    L_invalid_ci_floor: None
        ``None`` (default, the paper): a violated point estimate is Invalid; the interval is reported as
        fragility (``ScreenResult.fragility``), it does not veto. A number (the authors' tool,
        validity-screen 0.1.0, uses 0.90) restores its rule: Invalid only when the Wilson lower bound is above
        the floor as well, otherwise Indeterminate. That rule needs about 35 errors before blanket confidence can
        be Invalid, so it can never fire on a 20-50 item checkpoint probe.
    Fp_threshold: 0.50
        ``Fp = c/(a+c)``, the share of correct answers given low confidence. At or above 0.50 the model withdraws
        at least half of what it gets right: blanket withdrawal. The paper's Invalid cut-off, on the point
        estimate.
    Fp_near: 0.02
        Near band below ``Fp_threshold`` (see ``L_near``).
    Fp_invalid_ci_floor: None
        As ``L_invalid_ci_floor`` (the reference tool uses 0.40).
    RBS_threshold: 0.0
        ``RBS = Fp - (1 - L) = P(low | correct) - P(low | wrong)``. Above 0 the signal points the wrong way
        (inverted monitoring). Invalid when the whole interval is above 0 (the paper's "reliably > 0": for RBS
        the interval is part of the criterion itself). An RBS above 0 whose interval includes 0 is a point
        *near* the threshold in the paper's own terms: *Indeterminate*.
    RBS_near: 0.02
        An RBS in ``(RBS_threshold - RBS_near, RBS_threshold]`` is near the threshold: the signal hardly
        separates correct answers from errors (MMLU's Gemma 3 1B has RBS = +0.000). *Indeterminate*.
    rbs_ci_spanning_zero_is_indeterminate: False
        ``True`` restores a stricter, non-paper rule: a negative RBS whose interval still reaches above 0 is
        *Indeterminate* (the direction of the signal is not established). Off by default: the interval is then
        reported as fragility only.
    TRIN_warning: 0.95
        ``TRIN = max(a+b, c+d)/n``, the share of the dominant response. At or above 0.95 the responses are nearly
        fixed: a structural warning in ``warnings``, never on its own a reason for Invalid (paper, §Phase A).
    min_errors: 5
        Fewer wrong answers than this and L is not estimable: *Indeterminate* with a reason, never an
        exception (the paper: too few errors to estimate L). 5 is the reference tool's minimum cell count,
        applied to the denominator of L only.
    min_correct: 5
        The same for Fp's denominator (correct answers).
    confidence_level: 0.95
        Two-sided level of every interval.
    rbs_interval: "newcombe"
        Interval for RBS, a difference of two independent proportions. ``"newcombe"`` is Newcombe's (1998)
        hybrid score interval built from the two Wilson intervals: it stays honest when a cell is 0 (a
        blanket-confidence model has d = 0, where the bootstrap and the reference tool's Wald interval
        collapse to a point). ``"bootstrap"``: stratified percentile bootstrap of the 2x2 cells.
    n_boot: 2000
        Bootstrap resamples for r (and RBS when ``rbs_interval="bootstrap"``); seeded.

    Phase B fields
    --------------
    ece_bins: 15
        Equal-width bins of the expected calibration error and the reliability diagram (the common choice of
        Guo et al. 2017; torchmetrics' default n_bins is also 15).
    coverages: (0.5, 0.8, 0.9)
        Coverages at which the selective-prediction gain (accuracy on the most confident share minus overall
        accuracy) is reported.
    phase_b_for_indeterminate: True
        Run Phase B for Indeterminate signals too, with a caveat in ``phase_b.caveat``. Never for Invalid.
    """

    L_threshold: float = 0.95
    L_near: float = 0.02
    L_invalid_ci_floor: float | None = None
    Fp_threshold: float = 0.50
    Fp_near: float = 0.02
    Fp_invalid_ci_floor: float | None = None
    RBS_threshold: float = 0.0
    RBS_near: float = 0.02
    rbs_ci_spanning_zero_is_indeterminate: bool = False
    TRIN_warning: float = 0.95
    min_errors: int = 5
    min_correct: int = 5
    confidence_level: float = 0.95
    rbs_interval: Literal["newcombe", "bootstrap"] = "newcombe"
    n_boot: int = 2000
    ece_bins: int = 15
    coverages: tuple[float, ...] = field(default=(0.5, 0.8, 0.9))
    phase_b_for_indeterminate: bool = True

    def __post_init__(self) -> None:
        for name in ("L_threshold", "L_invalid_ci_floor", "Fp_threshold", "Fp_invalid_ci_floor", "TRIN_warning"):
            v = getattr(self, name)
            if v is None and name.endswith("_ci_floor"):
                continue
            if not isinstance(v, (int, float)) or not 0.0 <= v <= 1.0:
                raise ValueError(f"ScreenConfig.{name}={v!r} must lie in [0, 1]"
                                 + (" (or be None: the paper's point-estimate rule)" if name.endswith("_ci_floor")
                                    else ""))
        for name in ("L_near", "Fp_near", "RBS_near"):
            v = getattr(self, name)
            if not isinstance(v, (int, float)) or not 0.0 <= v < 0.5:
                raise ValueError(f"ScreenConfig.{name}={v!r} is the width of the near-threshold band; use a "
                                 "number in [0, 0.5), e.g. 0.02 (0 disables the band)")
        if not 0.0 < self.confidence_level < 1.0:
            raise ValueError(f"ScreenConfig.confidence_level={self.confidence_level!r} must lie in (0, 1), e.g. 0.95")
        if self.rbs_interval not in ("newcombe", "bootstrap"):
            raise ValueError(f"ScreenConfig.rbs_interval={self.rbs_interval!r}: use 'newcombe' or 'bootstrap'")
        if self.n_boot < 100:
            raise ValueError(f"ScreenConfig.n_boot={self.n_boot!r} is too small for a percentile interval; use >= 100")
        if self.ece_bins < 1:
            raise ValueError(f"ScreenConfig.ece_bins={self.ece_bins!r} must be >= 1")
        if any(not 0.0 < c <= 1.0 for c in self.coverages):
            raise ValueError(f"ScreenConfig.coverages={self.coverages!r}: each coverage must lie in (0, 1]")
        if self.min_errors < 1 or self.min_correct < 1:
            raise ValueError("ScreenConfig.min_errors and min_correct must be >= 1")

    @classmethod
    def reference_tool(cls, **overrides: Any) -> "ScreenConfig":
        """The tier rule of the authors' tool, validity-screen 0.1.0: Invalid L or Fp needs the Wilson lower bound
        above 0.90 / 0.40 as well; no near bands. (Its refusal of tables with a cell under 5 is not reproduced.)"""
        base = dict(L_invalid_ci_floor=0.90, Fp_invalid_ci_floor=0.40, L_near=0.0, Fp_near=0.0, RBS_near=0.0)
        return cls(**(base | overrides))

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["coverages"] = list(self.coverages)
        return d
