"""Tier classification (Invalid / Indeterminate / Valid), fragility notes and the response-style label.

Rules, as the paper classifies its own battery, with the thresholds of :class:`~trainers.screen.config.ScreenConfig`
(defaults in brackets):

* **Invalid** — a violated point estimate: ``L >= L_threshold`` [0.95] (blanket confidence),
  ``Fp >= Fp_threshold`` [0.50] (blanket withdrawal), or RBS reliably above 0 (its whole interval above 0:
  inverted monitoring).
* **Indeterminate** — a point *near* a threshold, or an index that cannot be estimated:
  ``L`` in ``[L_threshold - L_near, L_threshold)`` [0.93, 0.95); ``Fp`` in ``[Fp_threshold - Fp_near,
  Fp_threshold)`` [0.48, 0.50); RBS above 0 with an interval that includes 0 (violated, not reliably), or RBS in
  ``(-RBS_near, 0]`` [(-0.02, 0]]; fewer than ``min_errors`` [5] wrong answers (L not estimable) or
  ``min_correct`` [5] correct answers (Fp not estimable) — never an exception.
* **Valid** — none of the above.

Intervals do not veto a verdict: an interval that crosses a threshold is reported in ``fragility`` (with how many
responses would have to change to flip the verdict), beside the subsampling stability. Setting
``L_invalid_ci_floor`` / ``Fp_invalid_ci_floor`` (``ScreenConfig.reference_tool()``) restores the authors' tool's
rule, where a violated point with a Wilson lower bound under the floor is Indeterminate.

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
>>> gemini = Cells(a=478, b=29, c=16, d=1)              # L = 29/30 = 0.967 (the paper: Invalid)
>>> decision = classify(gemini, phase_a_indices(gemini))
>>> decision.tier, decision.response_style
('Invalid', 'blanket confidence')
>>> decision.fragility[0][:62]
'L = 0.967 [0.833, 0.994]: the 95% interval reaches below 0.95;'
>>> classify(Cells(a=400, b=47, c=0, d=3), phase_a_indices(Cells(a=400, b=47, c=0, d=3))).tier  # L = 0.94: near
'Indeterminate'
"""

from __future__ import annotations

import math
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
    fragility: list[str] = field(default_factory=list)


def _f(x: float) -> str:
    return f"{x:.3f}"


def _flip_count(k: int, n: int, threshold: float, violated: bool) -> int:
    """How many of the ``n`` responses (moving one unit of ``k``) would cross ``k/n`` to the other side of
    ``threshold``: the smallest ``m`` with ``(k - m)/n < threshold`` when violated, ``(k + m)/n >= threshold``
    otherwise."""
    if violated:
        return k - math.ceil(threshold * n - 1e-12) + 1
    return max(0, math.ceil(threshold * n - 1e-12) - k)


def _screen_share(name: str, x: Interval, k: int, n: int, n_min: int, threshold: float, ci_floor: float | None,
                  near: float, pct: str, invalid: list[str], indet: list[str], fragile: list[str], *, empty: str,
                  few: str, blanket: str, unit: str, forced_k: int = 0, forced_why: str = "") -> None:
    """The screen of one response-set share (``L = k/n`` or ``Fp = k/n``).

    Invalid when the point estimate is at or above ``threshold`` (with its Wilson lower bound above ``ci_floor``
    when a floor is set: the reference tool's rule); Indeterminate when it cannot be estimated (``n`` = 0 or
    ``n < n_min``) or lies within ``near`` below the threshold, or when the binarisation alone forces it there
    (``forced_k/n >= threshold - near``: the median split fixed that many responses, the model did not choose
    them). An interval that crosses the threshold is a fragility note, not a veto."""
    if n == 0:
        indet.append(empty)
        return
    if n < n_min:
        indet.append(few)
        return
    violated = x.value >= threshold
    forced = forced_k / n
    if violated and forced >= threshold - near:
        indet.append(f"{name} = {x.fmt()} >= {threshold}, but the median split alone forces {name} >= {_f(forced)} "
                     f"({forced_why}): not a response set of the model")
    elif violated:
        if ci_floor is not None and not x.ci_low > ci_floor:
            indet.append(f"{name} = {x.fmt()} >= {threshold} but the {pct} interval reaches {_f(x.ci_low)} <= "
                         f"{ci_floor} (reference-tool floor rule, {n} {unit})")
        else:
            invalid.append(blanket)
    elif x.value >= threshold - near:
        indet.append(f"{name} = {x.fmt()} is near the threshold: within {near:g} below {threshold}")
    crosses = x.ci_low < threshold if violated else x.ci_high >= threshold
    if crosses:
        m = _flip_count(k, n, threshold, violated)
        side = "below" if violated else "up to"
        verdict = "violation" if violated else "pass"
        fragile.append(f"{name} = {x.fmt()}: the {pct} interval reaches {side} {threshold}; the {verdict} rests on "
                       f"{n} {unit} ({m} response{'s' if m != 1 else ''} changing would flip it)")


def classify(cells: Cells, indices: Mapping[str, Interval], config: ScreenConfig | None = None, *,
             median_split: bool = False) -> TierDecision:
    """Classify one 2x2 table from its indices (see the module docstring for the rules).

    ``median_split``: the confidence was binarised at its own median, so the share of high/low responses is
    (partly) set by the rule, not by the model: at least half the items are high, and untied confidences put
    about half of them low. A violation that this alone implies (with ``n_low`` low responses but only
    ``n_wrong`` errors, at least ``n_low - n_wrong`` correct answers must be low, so ``Fp >= (n_low -
    n_wrong)/n_correct``; likewise ``L >= (ceil(n/2) - n_correct)/n_wrong``) is Indeterminate, not Invalid. A model
    that has no errors at all, binarised at its median, has Fp = 0.5 by construction.
    """
    cfg = config or ScreenConfig()
    L, Fp, RBS, TRIN = indices["L"], indices["Fp"], indices["RBS"], indices["TRIN"]
    invalid: list[str] = []
    indet: list[str] = []
    warnings: list[str] = []
    fragile: list[str] = []
    pct = f"{cfg.confidence_level:.0%}"

    # ---- L: high confidence on errors; Fp: low confidence on correct answers --------------------------------------
    nw, nc = cells.n_wrong, cells.n_correct
    _screen_share(
        "L", L, cells.b, nw, cfg.min_errors, cfg.L_threshold, cfg.L_invalid_ci_floor, cfg.L_near, pct, invalid,
        indet, fragile,
        empty="no wrong answers (b + d = 0): L, the share of errors kept with high confidence, cannot be estimated",
        few=f"only {nw} wrong answer{'s' if nw != 1 else ''} (< min_errors = {cfg.min_errors}): L = {L.fmt()} "
            "cannot be estimated, so blanket confidence cannot be screened",
        blanket=f"blanket confidence: L = {L.fmt()} >= {cfg.L_threshold}: {cells.b} of {nw} errors kept with high "
                "confidence",
        unit="errors",
        forced_k=max(0, math.ceil(cells.n / 2) - nc) if median_split else 0,
        forced_why=f"at least half of the {cells.n} responses are high and only {nc} answers are correct")
    _screen_share(
        "Fp", Fp, cells.c, nc, cfg.min_correct, cfg.Fp_threshold, cfg.Fp_invalid_ci_floor, cfg.Fp_near, pct,
        invalid, indet, fragile,
        empty="no correct answers (a + c = 0): Fp, the share of correct answers withdrawn, cannot be estimated",
        few=f"only {nc} correct answer{'s' if nc != 1 else ''} (< min_correct = {cfg.min_correct}): Fp = "
            f"{Fp.fmt()} cannot be estimated, so blanket withdrawal cannot be screened",
        blanket=f"blanket withdrawal: Fp = {Fp.fmt()} >= {cfg.Fp_threshold}: {cells.c} of {nc} correct answers "
                "given low confidence",
        unit="correct answers",
        forced_k=max(0, cells.n_low - nw) if median_split else 0,
        forced_why=f"{cells.n_low} responses are below the median and only {nw} answers are wrong")

    # ---- RBS: direction of the signal (the interval is part of the paper's criterion: "reliably above 0") --------
    t = cfg.RBS_threshold
    if RBS.defined:
        if RBS.value > t and RBS.ci_low > t:
            invalid.append(f"inverted monitoring: RBS = {RBS.fmt(signed=True)} is reliably above {t:g} "
                           "(low confidence is more common on correct answers than on errors)")
        elif RBS.value > t:
            indet.append(f"RBS = {RBS.fmt(signed=True)} is above {t:g} but not reliably: its {pct} interval "
                         f"includes {t:g}")
        elif RBS.value > t - cfg.RBS_near:
            indet.append(f"RBS = {RBS.fmt(signed=True)} is near the threshold: within {cfg.RBS_near:g} below {t:g} "
                         "(the signal hardly separates correct answers from errors)")
        elif RBS.ci_high > t:
            if cfg.rbs_ci_spanning_zero_is_indeterminate:
                indet.append(f"RBS = {RBS.fmt(signed=True)}: the {pct} interval reaches above {t:g}, so the "
                             "signal's direction is not established (rbs_ci_spanning_zero_is_indeterminate)")
            else:
                fragile.append(f"RBS = {RBS.fmt(signed=True)}: the {pct} interval reaches above {t:g}; the "
                               "signal's direction is not established at this sample size")

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
        reasons = [f"no threshold violated or near: L = {L.fmt()} < {cfg.L_threshold}, Fp = {Fp.fmt()} < "
                   f"{cfg.Fp_threshold}, RBS = {RBS.fmt(signed=True)} < {t:g}"]

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
    return TierDecision(tier=tier, reasons=reasons, warnings=warnings, response_style=style, fragility=fragile)
