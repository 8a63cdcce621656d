"""Phase A indices of the validity screen, each with an interval.

With the 2x2 table ``a`` correct & high, ``b`` wrong & high, ``c`` correct & low, ``d`` wrong & low, ``n = a+b+c+d``:

* ``L    = b / (b + d)``             high confidence on errors (blanket confidence); Wilson interval
* ``Fp   = c / (a + c)``             low confidence on correct answers (blanket withdrawal); Wilson interval
* ``RBS  = Fp - (1 - L)``            ``= P(low | correct) - P(low | wrong)``; > 0 is inverted monitoring;
                                     Newcombe hybrid score interval (default) or stratified bootstrap
* ``TRIN = max(a + b, c + d) / n``   share of the dominant response; Wilson interval
* ``r``                             point-biserial correlation of confidence (continuous where there is one)
                                     with correctness; seeded percentile bootstrap over items
* ``r_phi``                         r on the binarised confidence (the phi coefficient of the table), as the
                                     paper and validity-screen 0.1.0 report it; Fisher-z interval

An index whose denominator is empty has ``value`` NaN (``null`` in JSON) and the widest honest interval, never an
exception: Wilson with n = 0 is [0, 1]; RBS with one proportion unknown spans what the other allows.

Example
-------
>>> from trainers.screen.indices import phase_a_indices
>>> from trainers.screen.table import Cells
>>> ix = phase_a_indices(Cells(a=40, b=5, c=10, d=45))
>>> round(ix["L"].value, 3), round(ix["Fp"].value, 3), round(ix["RBS"].value, 3)
(0.1, 0.2, -0.7)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from .table import Cells

__all__ = ["Interval", "wilson", "newcombe_diff", "point_biserial", "bootstrap_r", "phase_a_indices",
           "rbs_bootstrap"]


def _clean(x: float) -> float | None:
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else float(x)


@dataclass(frozen=True)
class Interval:
    """A point value with its interval: ``value``, ``ci_low``, ``ci_high`` (NaN value = not estimable)."""

    name: str
    value: float
    ci_low: float
    ci_high: float
    method: str
    threshold: float | None = None

    @property
    def defined(self) -> bool:
        return not math.isnan(self.value)

    def to_dict(self) -> dict[str, Any]:
        return {
            "value": _clean(self.value),
            "ci_low": _clean(self.ci_low),
            "ci_high": _clean(self.ci_high),
            "method": self.method,
            "threshold": self.threshold,
        }

    def fmt(self, digits: int = 3, signed: bool = False) -> str:
        """``0.290 [0.188, 0.421]``; ``n/a [0.000, 1.000]`` when undefined."""
        f = f"{{:+.{digits}f}}" if signed else f"{{:.{digits}f}}"
        v = f.format(self.value) if self.defined else "n/a"
        return f"{v} [{f.format(self.ci_low)}, {f.format(self.ci_high)}]"


@lru_cache(maxsize=65536)
def wilson(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for ``k`` successes out of ``n`` (scipy's ``binomtest(...).proportion_ci``).

    ``n == 0`` gives the honest [0, 1] (nothing is known), not an error.

    >>> tuple(round(x, 4) for x in wilson(37, 100))
    (0.2818, 0.4678)
    """
    if n <= 0:
        return (0.0, 1.0)
    from scipy.stats import binomtest

    ci = binomtest(int(k), int(n)).proportion_ci(confidence_level=level, method="wilson")
    return (max(0.0, float(ci.low)), min(1.0, float(ci.high)))


def newcombe_diff(k1: int, n1: int, k2: int, n2: int, level: float = 0.95) -> tuple[float, float, float]:
    """Newcombe (1998, method 10) hybrid score interval for ``p1 - p2``, ``p1 = k1/n1``, ``p2 = k2/n2``.

    ``lower = d - sqrt((p1 - l1)^2 + (u2 - p2)^2)``, ``upper = d + sqrt((u1 - p1)^2 + (p2 - l2)^2)`` with
    ``(l_i, u_i)`` the Wilson limits. Unlike the Wald interval it does not collapse when a cell is 0 or full.
    When a denominator is 0 the difference is NaN and the interval spans every value the known proportion allows.
    Returns ``(d, lower, upper)``.

    >>> tuple(round(x, 3) for x in newcombe_diff(10, 500, 0, 10))   # blanket confidence: d = 0
    (0.02, -0.258, 0.036)
    """
    l1, u1 = wilson(k1, n1, level)
    l2, u2 = wilson(k2, n2, level)
    if n1 == 0 or n2 == 0:
        return (float("nan"), max(-1.0, l1 - u2), min(1.0, u1 - l2))
    p1, p2 = k1 / n1, k2 / n2
    d = p1 - p2
    lo = d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    hi = d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    return (d, max(-1.0, lo), min(1.0, hi))


def rbs_bootstrap(cells: Cells, n_boot: int, level: float, rng: np.random.Generator) -> tuple[float, float]:
    """Stratified percentile bootstrap for RBS: ``c* ~ Bin(a+c, Fp)``, ``b* ~ Bin(b+d, L)`` (vectorised)."""
    nc, nw = cells.n_correct, cells.n_wrong
    if nc == 0 or nw == 0:
        return newcombe_diff(cells.c, nc, cells.d, nw, level)[1:]
    fp = rng.binomial(nc, cells.c / nc, size=n_boot) / nc
    ll = rng.binomial(nw, cells.b / nw, size=n_boot) / nw
    rbs = fp - (1.0 - ll)
    alpha = 1.0 - level
    lo, hi = np.quantile(rbs, [alpha / 2, 1 - alpha / 2])
    return float(lo), float(hi)


def point_biserial(confidence: np.ndarray, correct: np.ndarray) -> float:
    """Point-biserial r between confidence and correctness (``scipy.stats.pointbiserialr``).

    NaN when either variable is constant (r is undefined), never a warning or an exception.

    >>> round(point_biserial(np.array([0.9, 0.8, 0.3, 0.2]), np.array([True, True, False, False])), 3)
    0.986
    """
    x = np.asarray(confidence, dtype=float)
    y = np.asarray(correct, dtype=bool)
    if x.size < 2 or np.ptp(x) == 0 or y.all() or not y.any():
        return float("nan")
    from scipy.stats import pointbiserialr

    return float(pointbiserialr(y, x).statistic)


def bootstrap_r(confidence: np.ndarray, correct: np.ndarray, n_boot: int, level: float,
                rng: np.random.Generator, chunk: int = 250_000) -> tuple[float, float]:
    """Percentile bootstrap interval of r, resampling items; numpy-vectorised in chunks of resamples.

    Each resample's Pearson r is computed from the five sums (x, y, xy, x^2, y^2) of the resampled items;
    resamples where a variable is constant are skipped (their r is undefined). Returns (-1, 1) when fewer than
    10 resamples are defined or n < 3.
    """
    x = np.asarray(confidence, dtype=float)
    y = np.asarray(correct, dtype=float)
    n = x.size
    if n < 3:
        return (-1.0, 1.0)
    # centre for numerical stability of the sums
    x = x - x.mean()
    y = y - y.mean()
    per_chunk = max(1, chunk // n)
    rs: list[np.ndarray] = []
    done = 0
    while done < n_boot:
        m = min(per_chunk, n_boot - done)
        idx = rng.integers(0, n, size=(m, n))
        rs.append(_pearson_rows(x[idx], y[idx]))
        done += m
    allr = np.concatenate(rs)
    allr = allr[~np.isnan(allr)]
    if allr.size < 10:
        return (-1.0, 1.0)
    alpha = 1.0 - level
    lo, hi = np.quantile(allr, [alpha / 2, 1 - alpha / 2])
    return float(max(-1.0, lo)), float(min(1.0, hi))


def _pearson_rows(xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """Pearson r of each row pair of ``xs``/``ys`` (one resample per row) from the five sums; NaN where a
    variable is constant."""
    n = xs.shape[1]
    sx = xs.sum(1)
    sy = ys.sum(1)
    sxy = np.einsum("ij,ij->i", xs, ys)
    sxx = np.einsum("ij,ij->i", xs, xs)
    syy = np.einsum("ij,ij->i", ys, ys)
    vx = sxx - sx * sx / n
    vy = syy - sy * sy / n
    ok = (vx > 1e-12) & (vy > 1e-12)
    r = np.full(xs.shape[0], np.nan)
    r[ok] = (sxy[ok] - sx[ok] * sy[ok] / n) / np.sqrt(vx[ok] * vy[ok])
    return r


def phase_a_indices(cells: Cells, confidence: np.ndarray | None = None, correct: np.ndarray | None = None, *,
                    level: float = 0.95, n_boot: int = 2000, rbs_interval: str = "newcombe",
                    L_threshold: float = 0.95, Fp_threshold: float = 0.5, RBS_threshold: float = 0.0,
                    TRIN_warning: float = 0.95, seed: int = 0) -> dict[str, Interval]:
    """Compute L, Fp, RBS, TRIN and r with their intervals.

    ``confidence``/``correct`` are the per-item arrays behind ``cells`` (confidence continuous where it is); without
    them r is computed from the table (the phi coefficient) with a Fisher-z interval.
    """
    rng = np.random.default_rng(seed)
    rbs = _rbs_interval(cells, level, n_boot, rbs_interval, rng, RBS_threshold)  # draws from rng before r does
    r, r_phi = _r_intervals(cells, confidence, correct, level, n_boot, rng)
    return {
        "L": _wilson_interval("L", cells.b, cells.n_wrong, level, L_threshold),
        "Fp": _wilson_interval("Fp", cells.c, cells.n_correct, level, Fp_threshold),
        "RBS": rbs,
        "TRIN": _wilson_interval("TRIN", max(cells.n_high, cells.n_low), cells.n, level, TRIN_warning),
        "r": r,
        "r_phi": r_phi,
    }


def _wilson_interval(name: str, k: int, total: int, level: float, threshold: float) -> Interval:
    """The share ``k / total`` (NaN without items) with its Wilson interval."""
    lo, hi = wilson(k, total, level)
    return Interval(name, k / total if total else float("nan"), lo, hi, "wilson", threshold)


def _rbs_interval(cells: Cells, level: float, n_boot: int, method: str, rng: np.random.Generator,
                  threshold: float) -> Interval:
    """RBS = Fp - (1 - L) = c/(a+c) - d/(b+d), with a Newcombe interval (or a bootstrap one, drawn from ``rng``)."""
    nw, nc = cells.n_wrong, cells.n_correct
    rbs_val, rbs_lo, rbs_hi = newcombe_diff(cells.c, nc, cells.d, nw, level)
    rbs_method = "newcombe"
    if method == "bootstrap" and nc and nw:
        rbs_lo, rbs_hi = rbs_bootstrap(cells, n_boot, level, rng)
        rbs_method = f"bootstrap({n_boot})"
    return Interval("RBS", rbs_val, rbs_lo, rbs_hi, rbs_method, threshold)


def _r_intervals(cells: Cells, confidence: np.ndarray | None, correct: np.ndarray | None, level: float,
                 n_boot: int, rng: np.random.Generator) -> tuple[Interval, Interval]:
    """``r`` (point-biserial with a bootstrap interval drawn from ``rng`` when the per-item arrays are given, else
    the phi coefficient) and ``r_phi`` (from the table, Fisher z)."""
    phi, phi_lo, phi_hi = _phi_fisher(cells, level)
    if confidence is not None and correct is not None:
        r_val = point_biserial(confidence, correct)
        if math.isnan(r_val):
            r_lo, r_hi = -1.0, 1.0
        else:
            r_lo, r_hi = bootstrap_r(confidence, correct, n_boot, level, rng)
        r_method = f"point-biserial, bootstrap({n_boot})"
    else:
        r_val, r_lo, r_hi = phi, phi_lo, phi_hi
        r_method = "phi, Fisher z"
    return (Interval("r", r_val, r_lo, r_hi, r_method, 0.0),
            Interval("r_phi", phi, phi_lo, phi_hi, "phi, Fisher z", 0.0))


def _phi_fisher(cells: Cells, level: float) -> tuple[float, float, float]:
    """Phi coefficient of the 2x2 table (r on the binarised confidence, as the paper and validity-screen 0.1.0
    report it) with a Fisher-z interval ``tanh(atanh(phi) +- z/sqrt(n-3))``; NaN and (-1, 1) when undefined."""
    a, b, c, d = cells.a, cells.b, cells.c, cells.d
    n = cells.n
    den = math.sqrt((a + b) * (c + d) * (a + c) * (b + d))
    if not den:
        return float("nan"), -1.0, 1.0
    phi = (a * d - b * c) / den
    if n <= 3:
        return phi, -1.0, 1.0
    from scipy.stats import norm

    z = math.atanh(max(-0.999999, min(0.999999, phi)))
    h = float(norm.ppf(0.5 + level / 2)) / math.sqrt(n - 3)
    return phi, math.tanh(z - h), math.tanh(z + h)
