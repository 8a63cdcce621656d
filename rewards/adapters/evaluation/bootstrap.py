"""Percentile bootstrap intervals for every figure of an evaluation, from one set of jointly resampled rows.

A report holds about a hundred figures (ProcessBench's metric at every θ, per generator, per detector, AUROC and
AUPRC of a dozen detectors); all of them are computed on the *same* resamples, so that paired differences (the
θ choice compares ``F1(θ) − F1(default)`` resample by resample) and subgroups (a generator's rows, the rows whose
final answer is correct) stay consistent. A resample is stored as the multiplicity of each row
(:func:`bootstrap_weights`, a ``(resamples, n)`` matrix ``W``) and every figure is a ratio of weighted sums, so a
thousand resamples cost a few matrix products::

    rate_b  = (W @ (hit & mask)) / (W @ mask)                    (NaN where the mask has no weight)
    AUROC_b = Σ_k P_k (N_<k + N_k / 2) / (P · N)                 (distinct scores k; ties count one half)
    AUPRC_b = Σ_k P_k · precision(s >= s_k) / P                  (distinct scores k, descending)

with ``P_k`` / ``N_k`` the weighted positives / negatives at score ``k``. The AUROC and AUPRC equal
``sklearn.metrics.roc_auc_score`` / ``average_precision_score`` with ``sample_weight=W[b]`` (the tests compare them
resample by resample); sklearn itself takes one resample per call. The resamples are exactly those of
``scipy.stats.bootstrap(..., paired=True, rng=numpy.random.default_rng(seed))`` (the same
``rng.integers(0, n, (resamples, n))`` draw). The interval (:func:`percentile_ci`) is the percentile interval over the
resamples where the figure is defined (a resample without, say, any erroneous row of a generator has no accuracy on
erroneous rows), rounded to 4 decimals.

>>> W = bootstrap_weights(4, resamples=3, seed=0)
>>> W.shape, W.sum(axis=1).tolist()
((3, 4), [4.0, 4.0, 4.0])
>>> rates = ratio(W @ np.array([1.0, 0.0, 1.0, 1.0]), W.sum(axis=1))
>>> bool(((0 <= rates) & (rates <= 1)).all())
True
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

__all__ = ["bootstrap_weights", "weighted_auroc", "weighted_auprc", "ratio", "percentile_ci", "rounded",
           "processbench_resampled", "MIN_FINITE"]

#: fewest resamples with a defined figure for an interval to be reported (``None`` below)
MIN_FINITE = 10


def bootstrap_weights(n: int, resamples: int = 1000, seed: int = 0) -> np.ndarray:
    """``(resamples, n)`` multiplicities of a seeded nonparametric bootstrap (each row a resample of n rows, drawn
    as ``numpy.random.default_rng(seed).integers(0, n, (resamples, n))``, the draw of ``scipy.stats.bootstrap``).

    >>> W = bootstrap_weights(3, resamples=2, seed=1)
    >>> W.tolist() == bootstrap_weights(3, resamples=2, seed=1).tolist(), W.sum(axis=1).tolist()
    (True, [3.0, 3.0])
    """
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, size=(resamples, n))
    flat = idx + (np.arange(resamples) * n)[:, None]
    return np.bincount(flat.ravel(), minlength=resamples * n).reshape(resamples, n).astype(float)


def ratio(num, den) -> np.ndarray:
    """``num / den`` elementwise, NaN where ``den`` is 0 (a figure undefined on that resample).

    >>> ratio(np.array([1.0, 2.0]), np.array([2.0, 0.0])).tolist()
    [0.5, nan]
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)


def rounded(x) -> float | None:
    """A report value: rounded to 4 decimals, ``None`` for a missing or NaN value.

    >>> rounded(0.184210526), rounded(float("nan")), rounded(None)
    (0.1842, None, None)
    """
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else round(float(x), 4)


def percentile_ci(samples, level: float = 0.95) -> list[float] | None:
    """The percentile interval ``[q_(1-level)/2, q_(1+level)/2]`` of the finite bootstrap values (linear
    interpolation, ``numpy.percentile``), rounded to 4 decimals; ``None`` when fewer than :data:`MIN_FINITE`
    resamples define the figure.

    >>> percentile_ci(np.arange(101) / 100)
    [0.025, 0.975]
    >>> percentile_ci([0.5] * 5 + [float("nan")] * 995) is None
    True
    """
    samples = np.asarray(samples, float)
    samples = samples[np.isfinite(samples)]
    if samples.size < MIN_FINITE:
        return None
    lo, hi = np.percentile(samples, [50 * (1 - level), 50 * (1 + level)])
    return [round(float(lo), 4), round(float(hi), 4)]


def _grouped(W: np.ndarray, y: np.ndarray, s: np.ndarray):
    order = np.argsort(s, kind="stable")
    ss = s[order]
    starts = np.flatnonzero(np.r_[True, ss[1:] != ss[:-1]])
    Ws = W[:, order]
    yo = y[order].astype(float)
    P = np.add.reduceat(Ws * yo, starts, axis=1)
    N = np.add.reduceat(Ws * (1 - yo), starts, axis=1)
    return P, N  # per distinct score, ascending


def weighted_auroc(W: np.ndarray, y: Sequence[bool], s: Sequence[float]) -> np.ndarray:
    """ROC AUC per row of the weight matrix ``W`` (ties count one half): ``Σ_k P_k (N_<k + N_k/2) / (P·N)`` over the
    distinct scores ``k``; equals ``roc_auc_score(y, s, sample_weight=w)``. NaN where a class has no weight.

    >>> weighted_auroc(np.ones((1, 4)), [True, True, False, False], [0.9, 0.5, 0.5, 0.1]).tolist()
    [0.875]
    """
    y, s = np.asarray(y, bool), np.asarray(s, float)
    if len(y) == 0:
        return np.full(W.shape[0], np.nan)
    P, N = _grouped(W, y, s)
    below = np.cumsum(N, axis=1) - N
    return ratio((P * (below + 0.5 * N)).sum(1), P.sum(1) * N.sum(1))


def weighted_auprc(W: np.ndarray, y: Sequence[bool], s: Sequence[float]) -> np.ndarray:
    """Average precision per row of ``W``: ``Σ_k P_k · precision(s >= s_k) / P`` over distinct scores, descending;
    equals ``average_precision_score(y, s, sample_weight=w)``. NaN where there is no positive weight.

    >>> weighted_auprc(np.ones((1, 3)), [True, False, True], [0.9, 0.8, 0.1]).round(4).tolist()
    [0.8333]
    """
    y, s = np.asarray(y, bool), np.asarray(s, float)
    if len(y) == 0:
        return np.full(W.shape[0], np.nan)
    P, N = _grouped(W, y, s)
    P, N = P[:, ::-1], N[:, ::-1]
    tp, fp = np.cumsum(P, axis=1), np.cumsum(N, axis=1)
    prec = ratio(tp, tp + fp)
    return ratio(np.nansum(P * np.nan_to_num(prec), axis=1), P.sum(1))


def processbench_resampled(labels, preds, W: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """ProcessBench's ``acc_erroneous``, ``acc_correct`` and ``f1`` on every resample of ``W`` (the definitions of
    :func:`rewards.adapters.evaluation.metrics.processbench_metrics`, weighted); NaN where a class has no row.

    >>> e, c, f = processbench_resampled([0, -1], [0, 0], np.ones((1, 2)))
    >>> e.tolist(), c.tolist(), f.tolist()
    ([1.0], [0.0], [0.0])
    """
    labels, preds = np.asarray(labels), np.asarray(preds)
    err, cor = labels != -1, labels == -1
    acc_e = ratio(W @ ((preds == labels) & err), W @ err)
    acc_c = ratio(W @ ((preds == -1) & cor), W @ cor)
    with np.errstate(divide="ignore", invalid="ignore"):
        f1 = np.where(acc_e + acc_c > 0, 2 * acc_e * acc_c / (acc_e + acc_c), 0.0)
    f1 = np.where(np.isnan(acc_e) | np.isnan(acc_c), np.nan, f1)
    return acc_e, acc_c, f1
