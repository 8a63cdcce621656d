"""Tier classification (Invalid / Indeterminate / Valid) and the response-style label.

Rules, with the thresholds of :class:`~trainers.screen.config.ScreenConfig` (defaults in brackets):

* **Invalid** — a clear violation:
  ``L >= L_threshold`` [0.95] with Wilson low > ``L_invalid_ci_floor`` [0.90];
  ``Fp >= Fp_threshold`` [0.50] with Wilson low > ``Fp_invalid_ci_floor`` [0.40];
  or RBS reliably above 0 (interval low > 0).
* **Indeterminate** — no clear violation, but: a point value at/over a threshold whose interval reaches below the
  floor; a point value in the near band just below a threshold; an interval that overlaps a threshold; RBS > 0 with
  an interval that includes 0, or RBS <= 0 whose interval reaches above 0; fewer than ``min_errors`` [5] wrong
  (or ``min_correct`` correct) answers, so L (or Fp) cannot be estimated.
* **Valid** — none of the above.

TRIN >= ``TRIN_warning`` [0.95] is a structural warning (in ``warnings``), never on its own a reason for Invalid.

Response style (from the point values, so an Indeterminate table still says which way it leans):
``blanket confidence`` (L >= 0.95, Fp < 0.50), ``blanket withdrawal`` (Fp >= 0.50, L < 0.95),
``inverted monitoring`` (RBS reliably > 0, or L and Fp both over their thresholds), ``fixed responding``
(TRIN >= 0.95 without any of these), else ``none``.

Example
-------
>>> from trainers.screen.table import Cells
>>> from trainers.screen.indices import phase_a_indices
>>> from trainers.screen.tiers import classify
>>> cells = Cells(a=100, b=97, c=0, d=3)               # keeps 97 of 100 errors
>>> decision = classify(cells, phase_a_indices(cells))
>>> decision.tier, decision.response_style
('Invalid', 'blanket confidence')
>>> classify(Cells(a=150, b=48, c=0, d=2), phase_a_indices(Cells(a=150, b=48, c=0, d=2))).tier  # 48 of 50: CI too wide
'Indeterminate'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Mapping

from .config import ScreenConfig
from .indices import Interval
from .table import Cells

__all__ = ["Tier", "TierDecision", "classify", "TIERS", "RESPONSE_STYLES"]

Tier = Literal["Valid", "Indeterminate", "Invalid"]
TIERS: tuple[str, ...] = ("Valid", "Indeterminate", "Invalid")
RESPONSE_STYLES: tuple[str, ...] = (
    "blanket confidence", "blanket withdrawal", "inverted monitoring", "fixed responding", "none",
)


@dataclass(frozen=True)
class TierDecision:
    tier: Tier
    reasons: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    response_style: str = "none"


def _f(x: float) -> str:
    return f"{x:.3f}"


def _screen_share(name: str, x: Interval, n: int, n_min: int, threshold: float, ci_floor: float, near: float,
                  pct: str, invalid: list[str], indet: list[str], *, empty: str, few: str, blanket: str,
                  count_note: str) -> None:
    """The screen of one response-set share (L or Fp): Invalid when it is at or above ``threshold`` with its Wilson
    lower bound above ``ci_floor``; Indeterminate when it cannot be estimated (``n`` = 0), rests on fewer than
    ``n_min`` answers, is at the threshold with a wide interval, within ``near`` below it, or its interval overlaps
    it."""
    if n == 0:
        indet.append(empty)
    elif n < n_min:
        indet.append(few)
    elif x.value >= threshold:
        if x.ci_low > ci_floor:
            invalid.append(blanket)
        else:
            indet.append(f"{name} = {x.fmt()} >= {threshold} but the {pct} interval reaches "
                         f"{_f(x.ci_low)} <= {ci_floor}{count_note}")
    elif x.value >= threshold - near:
        indet.append(f"{name} = {x.fmt()} is within {near} of the threshold {threshold}")
    elif x.ci_high >= threshold:
        indet.append(f"{name} = {x.fmt()}: the {pct} interval overlaps the threshold {threshold}")


def classify(cells: Cells, indices: Mapping[str, Interval], config: ScreenConfig | None = None) -> TierDecision:
    """Classify one 2x2 table from its indices (see the module docstring for the rules)."""
    cfg = config or ScreenConfig()
    L, Fp, RBS, TRIN = indices["L"], indices["Fp"], indices["RBS"], indices["TRIN"]
    invalid: list[str] = []
    indet: list[str] = []
    warnings: list[str] = []
    pct = f"{cfg.confidence_level:.0%}"

    # ---- L: high confidence on errors; Fp: low confidence on correct answers --------------------------------------
    nw, nc = cells.n_wrong, cells.n_correct
    _screen_share(
        "L", L, nw, cfg.min_errors, cfg.L_threshold, cfg.L_invalid_ci_floor, cfg.L_near, pct, invalid, indet,
        empty="no wrong answers (b + d = 0): L, the share of errors kept with high confidence, cannot be estimated",
        few=f"only {nw} wrong answer{'s' if nw != 1 else ''} (< {cfg.min_errors}): L = {L.fmt()} "
            "is too uncertain to screen blanket confidence",
        blanket=f"blanket confidence: L = {L.fmt()} >= {cfg.L_threshold} (Wilson low {_f(L.ci_low)} > "
                f"{cfg.L_invalid_ci_floor}): {cells.b} of {nw} errors kept with high confidence",
        count_note=f" ({nw} errors)")
    _screen_share(
        "Fp", Fp, nc, cfg.min_correct, cfg.Fp_threshold, cfg.Fp_invalid_ci_floor, cfg.Fp_near, pct, invalid, indet,
        empty="no correct answers (a + c = 0): Fp, the share of correct answers withdrawn, cannot be estimated",
        few=f"only {nc} correct answer{'s' if nc != 1 else ''} (< {cfg.min_correct}): Fp = {Fp.fmt()} "
            "is too uncertain to screen blanket withdrawal",
        blanket=f"blanket withdrawal: Fp = {Fp.fmt()} >= {cfg.Fp_threshold} (Wilson low {_f(Fp.ci_low)} > "
                f"{cfg.Fp_invalid_ci_floor}): {cells.c} of {nc} correct answers given low confidence",
        count_note="")

    # ---- RBS: direction of the signal -------------------------------------------------------------------------
    t = cfg.RBS_threshold
    if RBS.defined:
        if RBS.value > t and RBS.ci_low > t:
            invalid.append(f"inverted monitoring: RBS = {RBS.fmt(signed=True)} is reliably above {t:g} "
                           "(low confidence is more common on correct answers than on errors)")
        elif RBS.value > t:
            indet.append(f"RBS = {RBS.fmt(signed=True)} is above {t:g} but its {pct} interval includes {t:g}")
        elif RBS.ci_high > t and cfg.rbs_ci_spanning_zero_is_indeterminate:
            indet.append(f"RBS = {RBS.fmt(signed=True)}: the {pct} interval reaches above {t:g}, so the signal's "
                         "direction is not established")

    # ---- TRIN: structural warning only ------------------------------------------------------------------------
    trin_flag = TRIN.defined and TRIN.value >= cfg.TRIN_warning
    if trin_flag:
        side = "high" if cells.n_high >= cells.n_low else "low"
        warnings.append(f"structural warning: TRIN = {_f(TRIN.value)} >= {cfg.TRIN_warning} "
                        f"({max(cells.n_high, cells.n_low)} of {cells.n} responses are {side} confidence)")

    # ---- tier ---------------------------------------------------------------------------------------------------
    if invalid:
        tier: Tier = "Invalid"
        reasons = invalid + indet
    elif indet:
        tier = "Indeterminate"
        reasons = indet
    else:
        tier = "Valid"
        reasons = [f"no threshold violated: L = {L.fmt()} < {cfg.L_threshold}, Fp = {Fp.fmt()} < "
                   f"{cfg.Fp_threshold}, RBS = {RBS.fmt(signed=True)} reliably below {t:g}"]

    # ---- response style (from point values) ---------------------------------------------------------------------
    L_high = L.defined and nw > 0 and L.value >= cfg.L_threshold
    Fp_high = Fp.defined and nc > 0 and Fp.value >= cfg.Fp_threshold
    rbs_inv = RBS.defined and RBS.value > t and RBS.ci_low > t
    if L_high and Fp_high:
        style = "inverted monitoring"
    elif L_high:
        style = "blanket confidence"
    elif Fp_high:
        style = "blanket withdrawal"
    elif rbs_inv:
        style = "inverted monitoring"
    elif trin_flag:
        style = "fixed responding"
    else:
        style = "none"
    return TierDecision(tier=tier, reasons=reasons, warnings=warnings, response_style=style)
