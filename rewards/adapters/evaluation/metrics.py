"""The evaluation's figures: ProcessBench's metric, silent-failure detection, and the detectors compared.

**ProcessBench's metric** (Zheng et al. 2024) with the predicted earliest wrong step ``pred`` (``-1``: no error)::

    acc_erroneous = accuracy(pred, label | label != -1)   = mean(pred == label | label != -1)
    acc_correct   = accuracy(pred, label | label == -1)   = mean(pred == -1    | label == -1)
    f1            = 2 · acc_erroneous · acc_correct / (acc_erroneous + acc_correct)

The accuracies are ``sklearn.metrics.accuracy_score`` on each class's rows. ProcessBench's "F1" is the harmonic mean
of these two accuracies, not the F1 of one class's precision and recall, so ``sklearn.metrics.f1_score`` does not
compute it.

**Silent-failure detection** among rows whose final answer is correct: positives have a labelled wrong step; a
detector's scores are ranked with ``sklearn.metrics.average_precision_score`` (AUPRC) and ``roc_auc_score`` (AUROC),
each with a bootstrap interval (:mod:`rewards.adapters.evaluation.bootstrap`).

>>> processbench_metrics([0, 2, -1, -1], [0, -1, -1, 1])
{'acc_erroneous': 0.5, 'acc_correct': 0.5, 'f1': 0.5}
>>> d = detection(np.array([True, False, False]), np.array([0.9, 0.2, 0.1]), np.ones((20, 3)))
>>> d["auroc"], d["auprc"], d["auroc_ci"]
(1.0, 1.0, [1.0, 1.0])
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from rewards.adapters.evaluation.bootstrap import (
    percentile_ci,
    processbench_resampled,
    ratio,
    rounded,
    weighted_auprc,
    weighted_auroc,
)

if TYPE_CHECKING:  # pragma: no cover
    from rewards.adapters.evaluation.scorer import ScoredRow

__all__ = ["processbench_metrics", "harmonic_f1", "processbench_with_ci", "rate_with_ci", "detection",
           "detector_scores", "COMPONENT_NAMES", "ABSTAIN_SCORE"]

#: detector score of an abstention (and of a missing component): "no opinion"
ABSTAIN_SCORE = 0.5
COMPONENT_NAMES = ("P_R", "S_RA", "C_A", "D_R")


def harmonic_f1(acc_erroneous: float | None, acc_correct: float | None) -> float | None:
    """ProcessBench's F1: ``2ab / (a + b)``, 0 when both are 0, ``None`` when either is undefined.

    >>> harmonic_f1(0.75, 1.0), harmonic_f1(0.0, 0.0), harmonic_f1(None, 1.0)
    (0.8571428571428571, 0.0, None)
    """
    a, b = acc_erroneous, acc_correct
    if a is None or b is None:
        return None
    return 0.0 if a + b == 0 else 2 * a * b / (a + b)


def processbench_metrics(labels: Sequence[int], preds: Sequence[int]) -> dict[str, float | None]:
    """ProcessBench's metric: ``acc_erroneous`` (pred == label over rows with label != -1), ``acc_correct``
    (pred == -1 over rows with label == -1), ``f1`` their harmonic mean (0 when both are 0; ``None`` when a class
    is empty).

    >>> processbench_metrics([0, 1], [0, 1])
    {'acc_erroneous': 1.0, 'acc_correct': None, 'f1': None}
    """
    from sklearn.metrics import accuracy_score

    labels, preds = np.asarray(labels), np.asarray(preds)
    err, cor = labels != -1, labels == -1
    acc_e = float(accuracy_score(labels[err], preds[err])) if err.any() else None
    acc_c = float(accuracy_score(labels[cor], preds[cor])) if cor.any() else None
    return {"acc_erroneous": acc_e, "acc_correct": acc_c, "f1": harmonic_f1(acc_e, acc_c)}


def processbench_with_ci(labels, preds, W: np.ndarray, mask=None) -> dict[str, Any]:
    """:func:`processbench_metrics` (rounded) with a ``<key>_ci`` bootstrap interval beside each figure, over the
    rows in ``mask`` (all rows when ``None``) on the resamples ``W``.

    >>> m = processbench_with_ci([0, -1], [0, -1], np.ones((20, 2)))
    >>> m["f1"], m["f1_ci"]
    (1.0, [1.0, 1.0])
    """
    labels, preds = np.asarray(labels), np.asarray(preds)
    if mask is not None:
        labels, preds, W = labels[mask], preds[mask], W[:, mask]
    point = processbench_metrics(labels, preds)
    acc_e, acc_c, f1 = processbench_resampled(labels, preds, W)
    out = {}
    for key, boot in (("acc_erroneous", acc_e), ("acc_correct", acc_c), ("f1", f1)):
        out[key] = rounded(point[key])
        out[key + "_ci"] = percentile_ci(boot) if point[key] is not None else None
    return out


def rate_with_ci(hit, W: np.ndarray, mask=None) -> tuple[float | None, list[float] | None]:
    """The share of ``hit`` among the rows in ``mask`` (all when ``None``) and its bootstrap interval;
    ``(None, None)`` for an empty mask.

    >>> rate_with_ci(np.array([True, False, True, True]), np.ones((20, 4)))
    (0.75, [0.75, 0.75])
    """
    hit = np.asarray(hit, bool)
    mask = np.ones_like(hit) if mask is None else np.asarray(mask, bool)
    if not mask.any():
        return None, None
    return rounded(hit[mask].mean()), percentile_ci(ratio(W @ (hit & mask), W @ mask))


def detection(y, s, W: np.ndarray) -> dict[str, Any]:
    """AUPRC and AUROC (scikit-learn) of the detector scores ``s`` for the positives ``y``, with bootstrap
    intervals on the resamples ``W``; every figure ``None`` unless both classes occur."""
    from sklearn.metrics import average_precision_score, roc_auc_score

    y = np.asarray(y, bool)
    both = y.any() and (~y).any()
    auprc = float(average_precision_score(y, s)) if both else None
    auroc = float(roc_auc_score(y, s)) if both else None
    return {
        "auprc": rounded(auprc), "auprc_ci": percentile_ci(weighted_auprc(W, y, s)) if both else None,
        "auroc": rounded(auroc), "auroc_ci": percentile_ci(weighted_auroc(W, y, s)) if both else None,
    }


def detector_scores(scored: Sequence["ScoredRow"], seed: int = 0, config=None) -> dict[str, np.ndarray]:
    """Silent-failure detector scores in [0, 1] (higher = more likely a wrong step), per row:
    ``rafs`` = (100 − RAFS)/100 (abstention → 0.5); ``P_R``, ``S_RA``, ``C_A``, ``D_R`` = 1 − component
    (missing → 0.5); ``rafs_without_<m>`` = the same aggregation (:func:`rewards.scoring.components.aggregate`, the
    config's weights and ε) without component m (abstention or nothing left → 0.5); ``step_validity_only`` =
    1 − P_R; ``random`` = seeded uniform.

    >>> from rewards.adapters.evaluation.scorer import ScoredRow
    >>> rows = [ScoredRow(80.0, "accept", None, {"P_R": 0.9, "S_RA": 0.7, "C_A": None, "D_R": None}, [0.9]),
    ...         ScoredRow(None, "abstain", None, {"P_R": None, "S_RA": None, "C_A": None, "D_R": None}, [])]
    >>> d = detector_scores(rows)
    >>> d["rafs"].tolist(), d["P_R"].round(2).tolist()
    ([0.2, 0.5], [0.1, 0.5])
    """
    from rewards.scoring.components import aggregate
    from rewards.scoring.score import RAFSConfig

    config = config or RAFSConfig()
    out = {"rafs": np.array([ABSTAIN_SCORE if r.score is None else (100.0 - r.score) / 100.0 for r in scored])}
    for m in COMPONENT_NAMES:
        out[m] = np.array([ABSTAIN_SCORE if r.components.get(m) is None else 1.0 - r.components[m]
                           for r in scored])
    for m in COMPONENT_NAMES:
        vals = []
        for r in scored:
            rest = {k: v for k, v in r.components.items() if k != m}
            score = None if r.status == "abstain" else aggregate(rest, config.weights, config.eps)
            vals.append(ABSTAIN_SCORE if score is None else (100.0 - score) / 100.0)
        out[f"rafs_without_{m}"] = np.array(vals)
    out["step_validity_only"] = out["P_R"].copy()
    out["random"] = np.random.default_rng([seed, 1]).random(len(scored))
    return out
