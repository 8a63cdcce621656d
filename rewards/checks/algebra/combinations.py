"""A linear equation reached as a sum of multiples of two or more earlier ones (:func:`combines`)."""

from __future__ import annotations

from fractions import Fraction

from rewards.checks.algebra.budget import Budget, OutOfBudget, costed
from rewards.checks.algebra.lines import row_reduce
from rewards.checks.algebra.points import difference, draw, seeded_rng
from rewards.checks.algebra.sides import MAX_UNKNOWNS, read_equation
from rewards.checks.arithmetic.errors import internal_error

__all__ = [
    "MAX_COMBINED", "combines",
]

MAX_COMBINED = 6
"""Most grounded equations :func:`combines` reads (the last ones given) to reach a new one."""


def _affine(eq, names: tuple[str, ...], rng, budget) -> tuple[Fraction, ...] | None:
    """``left - right`` of ``eq`` as an affine form in ``names``: (its coefficients..., its constant), read off
    exact values at a random point and its unit steps and checked at two more random points; None when it is not
    affine (or not exactly evaluable)."""
    base = {n: draw(rng) for n in names}
    d0 = difference(eq, base, budget)
    if d0 is None or not d0.is_exact:
        return None
    coefficients = []
    for n in names:
        d = difference(eq, {**base, n: base[n] + 1}, budget)
        if d is None or not d.is_exact:
            return None
        coefficients.append(d.exact - d0.exact)
    constant = d0.exact - sum(c * base[n] for c, n in zip(coefficients, names))
    for _ in range(2):
        point = {n: draw(rng) for n in names}
        d = difference(eq, point, budget)
        if d is None or not d.is_exact or d.exact != constant + sum(c * point[n] for c, n in zip(coefficients, names)):
            return None
    return (*coefficients, constant)


def _weights(columns: list[tuple[Fraction, ...]], target: tuple[Fraction, ...]) -> list[Fraction] | None:
    """``w`` with ``sum(w_j * columns[j]) == target`` exactly (Gauss-Jordan over the rationals, :func:`row_reduce`;
    any solution when several), or None when there is none."""
    k = len(columns)
    rows = [[*(col[i] for col in columns), target[i]] for i in range(len(target))]
    pivots = row_reduce(rows, k)
    if any(all(v == 0 for v in row[:k]) and row[k] != 0 for row in rows):
        return None
    weights = [Fraction(0)] * k
    for i, c in enumerate(pivots):
        weights[c] = rows[i][k]
    return weights


def combines(sources, current) -> tuple[int, ...] | None:
    r"""Whether the linear equation ``current`` is a sum of multiples of two or more of the linear equations
    ``sources`` (the last :data:`MAX_COMBINED`, each its two sides) that do not contradict each other:
    ``3p + q = 124`` and ``5p + q = 182`` give ``2p = 58`` (the second minus the first), which no one of them gives
    alone. Returns the indices of the sources used (at least two), or None: not linear, no such sum, a single
    source's multiple (:func:`relation` reads those), an identity, sources used that contradict each other
    (``x + y = 5``, ``x + y = 6``: anything follows), or out of budget. Exact arithmetic at random points only
    (each equation read as ``sum(a_i * x_i) + c``); never raises.

    >>> combines([("3p + q", "124"), ("5p + q", "182")], ("2p", "58")), combines([("3p + q", "124")], ("p", "29"))
    ((0, 1), None)
    """
    try:
        sources = [tuple(s) for s in sources][-MAX_COMBINED:]
        current = tuple(current)
        hash((tuple(sources), current))
        if len(sources) < 2:
            return None
        return _combines(tuple(sources), current)
    except (ArithmeticError, ValueError, RecursionError, MemoryError, TypeError, OutOfBudget):
        return None
    except Exception as exc:  # noqa: BLE001 - never raise on model output (unless RAFS_STRICT)
        internal_error("algebra.combines", (sources, current), exc)
        return None


@costed(4096)
def _combines(sources: tuple, current: tuple) -> tuple[int, ...] | None:
    equations = [read_equation(s, ()) for s in (*sources, current)]
    if any(e is None for e in equations):
        return None
    names = tuple(sorted(set().union(*(side.names for e in equations for side in e))))
    if not names or len(names) > MAX_UNKNOWNS or any(side.piecewise for e in equations for side in e):
        return None
    rng, budget = seeded_rng(str(sources), str(current)), Budget()
    forms = [_affine(e, names, rng, budget) for e in equations]
    if any(f is None for f in forms) or all(v == 0 for v in forms[-1][:-1]):
        return None  # not linear, or no unknown left in the new equation (an identity or a contradiction)
    weights = _weights(forms[:-1], forms[-1])
    if weights is None:
        return None
    used = tuple(i for i, w in enumerate(weights) if w != 0)
    if len(used) < 2 or _weights([forms[i] for i in used], (*(Fraction(0) for _ in names), Fraction(1))) is not None:
        return None  # one source's multiple, or sources that contradict each other (from which anything follows)
    return used
