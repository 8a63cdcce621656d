"""Phase B: what the confidence signal says, computed only once Phase A has passed it.

* ``auroc`` — type-2 AUROC, P(conf of a correct item > conf of a wrong one), ties 1/2
  (``sklearn.metrics.roc_auc_score``).
* ``ece`` — expected calibration error with ``ece_bins`` equal-width bins ``[0, 1/B), ..., [(B-1)/B, 1]``:
  ``sum_k (n_k/n) |acc_k - conf_k|`` (the torchmetrics ``BinaryCalibrationError(norm="l1")`` binning, except that
  confidence 1.0 falls in the last bin rather than a bin of its own). Only for probability-scale confidence.
* ``brier`` — mean of ``(conf - correct)^2`` (``sklearn.metrics.brier_score_loss``); probability scale only.
* risk–coverage curve and ``aurc`` — items sorted by confidence, most confident first; risk at coverage k/n is
  the error rate of the k kept items; AURC the mean risk over k = 1..n. Ties are broken in expectation (each tie
  block contributes its errors linearly), so the result does not depend on the order of tied items.
  ``e_aurc = aurc - aurc_oracle`` (the oracle keeps every correct item first).
* ``selective_gain`` — at each fixed coverage c: accuracy of the ``c·n`` most confident items minus overall
  accuracy (tie-aware as above). Positive: abstaining on the least confident items helps.
* ``meta_d`` — an approximation of type-2 meta-d'. The Maniscalco & Lau (2012) meta-d' needs the type-1 stimulus
  and response of every trial, which (correct, confidence) benchmark data does not have, and no well-kept Python
  library computes it from type-2 data alone. We report the binormal type-2 sensitivity from the type-2 ROC area,
  ``d'_a = sqrt(2) * Phi^-1(AUROC)`` (equal-variance Gaussian model of confidence for correct vs wrong items;
  Macmillan & Creelman), defined when the confidence has >= 2 levels. ``meta_d_method`` says so.

Example
-------
>>> import numpy as np
>>> from trainers.screen.phase_b import phase_b_metrics
>>> conf = np.array([0.9, 0.8, 0.7, 0.6, 0.4, 0.3]); ok = np.array([1, 1, 0, 1, 0, 0], bool)
>>> pb = phase_b_metrics(ok, conf, probability_scale=True)
>>> round(pb.auroc, 3), round(pb.aurc, 3)
(0.889, 0.247)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

__all__ = ["PhaseB", "phase_b_metrics", "risk_coverage", "expected_calibration_error", "reliability_bins",
           "finite_or_none"]

META_D_METHOD = "type-2 d'_a = sqrt(2)*Phi^-1(AUROC2) (binormal equal-variance approximation; not M&L 2012 meta-d')"


def finite_or_none(x: Any) -> float | None:
    """``float(x)`` when it is finite, else ``None``: NaN, ±inf, ``None`` and anything ``float()`` rejects (JSON
    has no NaN or Infinity). The one helper for metric values written to JSON (the screen's reports and history,
    the demo's training log).

    >>> finite_or_none(0.25), finite_or_none("3"), finite_or_none(float("nan")), finite_or_none(float("inf"))
    (0.25, 3.0, None, None)
    >>> finite_or_none(None), finite_or_none("n/a")
    (None, None)
    """
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


@dataclass
class PhaseB:
    """Phase B metrics of one signal. Fields are NaN/None where a metric is undefined (see ``notes``)."""

    auroc: float
    ece: float | None
    brier: float | None
    aurc: float
    e_aurc: float
    selective_gain: dict[float, float]
    meta_d: float | None
    meta_d_method: str
    coverage: np.ndarray = field(repr=False)
    risk: np.ndarray = field(repr=False)
    reliability: dict[str, list[float]] | None = field(default=None, repr=False)
    caveat: str | None = None
    notes: list[str] = field(default_factory=list)

    def to_dict(self, include_curves: bool = False) -> dict[str, Any]:
        d: dict[str, Any] = {
            "auroc": finite_or_none(self.auroc),
            "ece": finite_or_none(self.ece),
            "brier": finite_or_none(self.brier),
            "aurc": finite_or_none(self.aurc),
            "e_aurc": finite_or_none(self.e_aurc),
            "selective_gain": {f"{k:g}": finite_or_none(v) for k, v in self.selective_gain.items()},
            "meta_d": finite_or_none(self.meta_d),
            "meta_d_method": self.meta_d_method,
            "caveat": self.caveat,
            "notes": list(self.notes),
        }
        if include_curves:
            d["risk_coverage"] = {"coverage": self.coverage.tolist(), "risk": self.risk.tolist()}
            d["reliability"] = self.reliability
        return d


def _expected_cum_errors(correct: np.ndarray, confidence: np.ndarray) -> np.ndarray:
    """Expected cumulative errors among the k most confident items, k = 1..n, ties broken at random."""
    order = np.argsort(-confidence, kind="stable")
    c = confidence[order]
    wrong = (~correct[order]).astype(float)
    n = c.size
    # tie blocks
    starts = np.flatnonzero(np.r_[True, c[1:] != c[:-1]])
    ends = np.r_[starts[1:], n]
    block_err = np.add.reduceat(wrong, starts)
    block_size = ends - starts
    before = np.r_[0.0, np.cumsum(block_err)[:-1]]
    block_id = np.repeat(np.arange(starts.size), block_size)
    pos_in_block = np.arange(n) - starts[block_id] + 1
    return before[block_id] + pos_in_block * block_err[block_id] / block_size[block_id]


def risk_coverage(correct: Sequence[bool], confidence: Sequence[float]) -> tuple[np.ndarray, np.ndarray, float]:
    """Risk–coverage curve (coverage k/n, expected error rate of the k most confident items) and its AURC.

    >>> cov, risk, aurc = risk_coverage([True, False], [0.9, 0.1])
    >>> cov.tolist(), risk.tolist(), aurc
    ([0.5, 1.0], [0.0, 0.5], 0.25)
    """
    ok = np.asarray(correct, dtype=bool)
    x = np.asarray(confidence, dtype=float)
    n = ok.size
    if n == 0:
        return np.zeros(0), np.zeros(0), float("nan")
    k = np.arange(1, n + 1)
    risk = _expected_cum_errors(ok, x) / k
    return k / n, risk, float(risk.mean())


def reliability_bins(correct: np.ndarray, confidence: np.ndarray, n_bins: int = 15) -> dict[str, list[float]]:
    """Equal-width bins: edges, mean confidence, accuracy and count per bin (NaN where a bin is empty)."""
    edges = np.linspace(0.0, 1.0, n_bins + 1)
    idx = np.clip(np.searchsorted(edges, confidence, side="right") - 1, 0, n_bins - 1)
    count = np.bincount(idx, minlength=n_bins).astype(float)
    sconf = np.bincount(idx, weights=confidence, minlength=n_bins)
    sacc = np.bincount(idx, weights=correct.astype(float), minlength=n_bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        mconf = np.where(count > 0, sconf / np.maximum(count, 1), np.nan)
        macc = np.where(count > 0, sacc / np.maximum(count, 1), np.nan)
    return {"edges": edges.tolist(), "confidence": mconf.tolist(), "accuracy": macc.tolist(),
            "count": count.tolist()}


def expected_calibration_error(correct: Sequence[bool], confidence: Sequence[float], n_bins: int = 15) -> float:
    """ECE with ``n_bins`` equal-width bins: ``sum_k (n_k/n) |acc_k - conf_k|``.

    >>> expected_calibration_error([True, False, True, True], [0.9, 0.9, 0.6, 0.6], n_bins=10)
    0.4
    """
    ok = np.asarray(correct, dtype=bool)
    x = np.asarray(confidence, dtype=float)
    if ok.size == 0:
        return float("nan")
    rb = reliability_bins(ok, x, n_bins)
    cnt = np.asarray(rb["count"])
    m = cnt > 0
    gap = np.abs(np.asarray(rb["accuracy"])[m] - np.asarray(rb["confidence"])[m])
    return float(round(np.sum(cnt[m] / ok.size * gap), 12))


def phase_b_metrics(correct: Sequence[bool], confidence: Sequence[float], *, probability_scale: bool,
                    ece_bins: int = 15, coverages: Sequence[float] = (0.5, 0.8, 0.9),
                    caveat: str | None = None) -> PhaseB:
    """Compute every Phase B metric for one signal (see the module docstring for definitions).

    ``probability_scale`` says whether the confidence is a probability (numbers in [0, 1] or [0, 100]); ECE, Brier
    and the reliability diagram are only computed then (a KEEP/WITHDRAW signal is not a probability).
    """
    ok = np.asarray(correct, dtype=bool)
    x = np.asarray(confidence, dtype=float)
    notes: list[str] = []
    auroc = _auroc(ok, x, notes)
    ece, brier, rel = _calibration(ok, x, probability_scale, ece_bins, notes)
    cov, risk, aurc = risk_coverage(ok, x)
    aurc_oracle, gains = _selective(ok, risk, coverages)
    meta_d = _meta_d(x, auroc, notes)
    return PhaseB(auroc=auroc, ece=ece, brier=brier, aurc=aurc, e_aurc=aurc - aurc_oracle, selective_gain=gains,
                  meta_d=meta_d, meta_d_method=META_D_METHOD, coverage=cov, risk=risk, reliability=rel,
                  caveat=caveat, notes=notes)


def _auroc(ok: np.ndarray, x: np.ndarray, notes: list[str]) -> float:
    """AUROC of the confidence for correctness: 0.5 for a constant confidence, NaN without both kinds of items
    (each case noted)."""
    n = ok.size
    both = n > 0 and ok.any() and (~ok).any()
    if both and np.ptp(x) > 0:
        from sklearn.metrics import roc_auc_score

        return float(roc_auc_score(ok, x))
    if both:
        notes.append("confidence is constant: AUROC is 0.5 by definition (no ranking information)")
        return 0.5
    notes.append("AUROC needs both correct and wrong items")
    return float("nan")


def _calibration(ok: np.ndarray, x: np.ndarray, probability_scale: bool, ece_bins: int,
                 notes: list[str]) -> tuple[float | None, float | None, Any]:
    """``(ECE, Brier, reliability bins)`` when the confidence is a probability; else None (noted)."""
    n = ok.size
    if probability_scale and n:
        from sklearn.metrics import brier_score_loss

        ece: float | None = expected_calibration_error(ok, x, ece_bins)
        brier: float | None = float(brier_score_loss(ok.astype(int), x, pos_label=1)) if n else None
        return ece, brier, reliability_bins(ok, x, ece_bins)
    if not probability_scale:
        notes.append("confidence is binary (not a probability): ECE, Brier and the reliability diagram "
                     "are not computed")
    return None, None, None


def _selective(ok: np.ndarray, risk: np.ndarray, coverages: Sequence[float]) -> tuple[float, dict[float, float]]:
    """The oracle's AURC (errors last) and the selective gain at each coverage: accuracy of the most confident
    ``c`` share over the overall accuracy (expected errors interpolated between integer counts)."""
    nan = float("nan")
    n = ok.size
    if not n:
        return nan, {float(c): nan for c in coverages}
    oracle = np.sort(~ok)  # correct first
    k = np.arange(1, n + 1)
    aurc_oracle = float((np.cumsum(oracle) / k).mean())
    acc = float(ok.mean())
    cum_err = risk * k
    gains = {}
    for c in coverages:
        kk = c * n
        lo = int(math.floor(kk))
        # linear interpolation of expected errors between integer k (fractional coverage)
        e_lo = cum_err[lo - 1] if lo >= 1 else 0.0
        e_hi = cum_err[min(lo, n - 1)]
        errs = e_lo + (kk - lo) * (e_hi - e_lo) if lo < n else cum_err[-1]
        gains[float(c)] = float(1.0 - errs / kk - acc) if kk > 0 else nan
    return aurc_oracle, gains


def _meta_d(x: np.ndarray, auroc: float, notes: list[str]) -> float | None:
    """meta-d' from the AUROC (``sqrt(2) * Phi^-1(AUROC)``); None without two confidence levels (noted)."""
    if np.unique(x).size >= 2 and not math.isnan(auroc):
        from scipy.special import ndtri

        a = min(max(auroc, 1e-6), 1 - 1e-6)
        return float(math.sqrt(2.0) * ndtri(a))
    notes.append("meta-d' needs confidence with >= 2 levels and both correct and wrong items")
    return None
