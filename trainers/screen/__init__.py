"""Validity screen for confidence signals ("screen before you interpret").

Phase A builds the 2x2 table of correctness x binarised confidence (``a`` correct & high, ``b`` wrong & high,
``c`` correct & low, ``d`` wrong & low), computes L = b/(b+d), Fp = c/(a+c), RBS = Fp - (1 - L),
TRIN = max(a+b, c+d)/n and r(confidence, correct) with intervals, and classifies the signal Valid /
Indeterminate / Invalid. Phase B (AUROC, ECE, Brier, AURC, selective gain, meta-d') runs only on signals that
pass. Only numpy is imported here; scipy, scikit-learn, pandas and matplotlib are imported when first needed.

>>> from trainers.screen import screen
>>> res = screen([True, True, False, True] * 50, [90, 85, 40, 70] * 50)
>>> res.tier, res.L.value
('Valid', 0.0)
"""

from .config import ScreenConfig
from .indices import Interval, newcombe_diff, point_biserial, wilson
from .phase_b import PhaseB, expected_calibration_error, phase_b_metrics, risk_coverage
from .report import ScreenResult, results_to_frame, results_to_json, results_to_markdown, summary_figure
from .screening import load_table, screen, screen_groups
from .stability import StabilityResult, subsample_stability
from .table import Cells, ScreenInputError, binarise, parse_confidence, parse_correct
from .tiers import RESPONSE_STYLES, TIERS, TierDecision, classify

__all__ = [
    "screen",
    "screen_groups",
    "ScreenConfig",
    "ScreenResult",
    "ScreenInputError",
    "Interval",
    "Cells",
    "PhaseB",
    "TierDecision",
    "StabilityResult",
    "TIERS",
    "RESPONSE_STYLES",
    "binarise",
    "classify",
    "expected_calibration_error",
    "load_table",
    "newcombe_diff",
    "parse_confidence",
    "parse_correct",
    "phase_b_metrics",
    "point_biserial",
    "results_to_frame",
    "results_to_json",
    "results_to_markdown",
    "risk_coverage",
    "subsample_stability",
    "summary_figure",
    "wilson",
]
