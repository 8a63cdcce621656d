"""The step threshold θ: predicted earliest wrong steps at a θ, the sweep over a grid, and the choice of θ on a
calibration split.

A row's predicted earliest wrong step at θ is its earliest step with ``q_t < θ`` (``-1``: none), and ``-1`` when
the scorer abstained. θ is chosen on a split other than the one reported: the grid point with the highest F1 is
adopted only if the paired bootstrap 95% interval of ``F1(θ) − F1(default)`` lies above 0.

>>> from rewards.adapters.evaluation.scorer import ScoredRow
>>> scored = [ScoredRow(40.0, "review", 0, {}, [0.3, 0.9]), ScoredRow(90.0, "accept", None, {}, [0.9, 0.9])]
>>> predict_steps(scored, 0.5).tolist(), predict_steps(scored, 0.25).tolist()
([0, -1], [-1, -1])
>>> [(s["theta"], s["f1"]) for s in threshold_sweep([0, -1], scored, (0.25, 0.5))]
[(0.25, 0.0), (0.5, 1.0)]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from rewards.adapters.evaluation.bootstrap import bootstrap_weights, percentile_ci, processbench_resampled, rounded
from rewards.adapters.evaluation.metrics import processbench_metrics, processbench_with_ci

if TYPE_CHECKING:  # pragma: no cover
    from rewards.adapters.evaluation.scorer import ScoredRow

__all__ = ["DEFAULT_GRID", "predict_steps", "threshold_sweep", "choose_theta", "in_sample_best"]

#: the θ grid of the threshold sweep
DEFAULT_GRID = tuple(round(0.05 * k, 2) for k in range(1, 20))


def predict_steps(scored: Sequence["ScoredRow"], theta: float, *, config_theta: float | None = None,
                  gate_abstain: bool = True) -> np.ndarray:
    """The predicted earliest wrong step per row at threshold ``θ`` (``-1``: no error).

    The earliest ``q_t < θ`` (:func:`rewards.scoring.components.suspect_step`); an abstention predicts ``-1`` when
    ``gate_abstain`` (the scorer reports no suspect step when it abstains). At ``θ == config_theta`` the scorer's
    own ``suspect_step`` is used, so the sweep reproduces ``rafs score`` at the configured threshold.

    >>> from rewards.adapters.evaluation.scorer import ScoredRow
    >>> abstained = [ScoredRow(None, "abstain", None, {}, [0.1])]
    >>> predict_steps(abstained, 0.5).tolist(), predict_steps(abstained, 0.5, gate_abstain=False).tolist()
    ([-1], [0])
    """
    from rewards.scoring.components import suspect_step

    out = np.full(len(scored), -1, dtype=int)
    for i, r in enumerate(scored):
        if config_theta is not None and abs(theta - config_theta) < 1e-12:
            s = r.suspect_step
        elif gate_abstain and r.status == "abstain":
            s = None
        else:
            s = suspect_step(r.q, theta)
        out[i] = -1 if s is None else s
    return out


def threshold_sweep(labels, scored: Sequence["ScoredRow"], grid: Sequence[float] = DEFAULT_GRID,
                    config_theta: float | None = None, W: np.ndarray | None = None) -> list[dict]:
    """ProcessBench's metric at every ``θ`` of ``grid`` (computed from the per-step ``q``, no re-scoring), with
    bootstrap intervals when the resamples ``W`` are given."""
    out = []
    for theta in grid:
        preds = predict_steps(scored, theta, config_theta=config_theta)
        if W is None:
            m = {k: rounded(v) for k, v in processbench_metrics(labels, preds).items()}
        else:
            m = processbench_with_ci(labels, preds, W)
        out.append({"theta": round(float(theta), 4), **m})
    return out


def choose_theta(labels, scored: Sequence["ScoredRow"], default: float, grid: Sequence[float] = DEFAULT_GRID, *,
                 resamples: int = 1000, seed: int = 0) -> tuple[float, str, list[dict]]:
    """Choose ``θ`` on a calibration split: the ``θ`` with the highest F1 (ties broken toward ``default``, then the
    smaller), adopted only if it beats ``default`` beyond noise — the paired bootstrap 95% interval of
    ``F1(θ) − F1(default)`` on the calibration split lies above 0; otherwise ``default`` is kept (a flat or noisy
    gain is not worth moving the scorer's threshold for). Returns ``(θ, reason, sweep)``.

    >>> from rewards.adapters.evaluation.scorer import ScoredRow
    >>> flat = [ScoredRow(90.0, "accept", None, {}, [0.9])] * 20
    >>> choose_theta([-1] * 20, flat, 0.5)[0]
    0.5
    """
    labels = np.asarray(labels)
    grid = sorted({round(float(t), 4) for t in grid} | {round(float(default), 4)})
    sweep = threshold_sweep(labels, scored, grid, default)
    valid = [s for s in sweep if s["f1"] is not None]
    if not valid:
        return default, f"no F1 could be computed on the calibration split; kept the scorer default θ={default}", sweep
    best_f1 = max(s["f1"] for s in valid)
    ties = [s for s in valid if abs(s["f1"] - best_f1) < 1e-9]
    best = min(ties, key=lambda s: (abs(s["theta"] - default), s["theta"]))["theta"]
    plateau = [s["theta"] for s in ties]
    if abs(best - default) < 1e-9:
        return float(default), (f"the scorer default θ={default} already maximises F1 ({best_f1:.4f}) on the "
                                f"calibration split (F1 is flat over θ in {_ranges(plateau)})"), sweep
    W = bootstrap_weights(len(labels), resamples, seed)
    f_best = processbench_resampled(labels, predict_steps(scored, best, config_theta=default), W)[2]
    f_def = processbench_resampled(labels, predict_steps(scored, default, config_theta=default), W)[2]
    lo, hi = percentile_ci(f_best - f_def) or [float("nan"), float("nan")]
    d_point = best_f1 - next(s["f1"] for s in sweep if abs(s["theta"] - default) < 1e-9)
    acc_c = {s["theta"]: s["acc_correct"] for s in sweep}
    detail = (f"θ={best} has the highest F1 on the calibration split ({best_f1:.4f}, +{d_point:.4f} over the "
              f"default θ={default}, paired bootstrap 95% interval [{lo:.4f}, {hi:.4f}]; acc_correct "
              f"{acc_c[best]} vs {acc_c[round(float(default), 4)]})")
    if lo > 0:
        return float(best), detail + "; the gain is beyond noise, so θ moves", sweep
    return float(default), detail + "; the interval includes 0, so the scorer default is kept", sweep


def _ranges(thetas: Sequence[float]) -> str:
    return f"[{min(thetas)}, {max(thetas)}]" if thetas else "[]"


def in_sample_best(sweep: Sequence[dict]) -> dict[str, Any] | None:
    """The best θ of a sweep on the reported split itself (optimistic: shown for reference, never used).

    >>> in_sample_best([{"theta": 0.4, "f1": 0.2}, {"theta": 0.6, "f1": 0.3}])["theta"]
    0.6
    """
    valid = [s for s in sweep if s["f1"] is not None]
    if not valid:
        return None
    best = max(valid, key=lambda s: s["f1"])
    return {"theta": best["theta"], "f1": best["f1"],
            "note": "best θ on the reported split itself: optimistic, shown for reference only, not used"}
