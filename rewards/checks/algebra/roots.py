"""The roots of an equation in one unknown, re-solved after a counterfactual edit: :func:`rational_roots` (degree 1
or 2, exact) and :func:`real_roots` (any degree up to :data:`~rewards.checks.algebra.lines.MAX_DEGREE`)."""

from __future__ import annotations

from fractions import Fraction

from rewards.checks.algebra.budget import Budget, costed, never_raising
from rewards.checks.algebra.lines import LINE_POINTS, along_line, horner, polynomial_rational_roots
from rewards.checks.algebra.points import draw, seeded_rng
from rewards.checks.algebra.sides import read_equation
from rewards.checks.polynomials import trim

__all__ = [
    "rational_roots", "real_roots",
]

def rational_roots(left: str, right: str) -> tuple[str, tuple[Fraction, ...]] | None:
    """``(unknown, roots)`` of an equation in one unknown whose difference is a polynomial (or a fraction of
    polynomials) with a numerator of degree 1 or 2 and rational roots; None otherwise (several unknowns, higher
    degree, irrational roots, unreadable, out of budget). Roots of the denominator are left out. Used to carry a
    counterfactual edit through an algebraic derivation: the edited equation's root next to the old one.

    >>> rational_roots("2x + 3", "11"), rational_roots("x^2 - 5x", "-6"), rational_roots("x^2", "2")
    (('x', (Fraction(4, 1),)), ('x', (Fraction(2, 1), Fraction(3, 1))), None)
    """
    if not isinstance(left, str) or not isinstance(right, str):
        return None
    return never_raising("algebra.rational_roots", _rational_roots_of, left, right)


@costed(4096)
def _line_fit(left: str, right: str) -> tuple[str, list, list] | None:
    """``(unknown, N, Q)``: the difference of an equation in one unknown as a reduced fraction of polynomials."""
    eq = read_equation((left, right), ())
    if eq is None or len(eq[0].names | eq[1].names) != 1:
        return None
    (var,) = eq[0].names | eq[1].names
    rng, budget = seeded_rng(left, right), Budget()
    xs: list = []
    while len(xs) < LINE_POINTS:
        x = draw(rng)
        if x not in xs:
            xs.append(x)
    fit = along_line(eq, var, {}, xs, budget)
    return None if fit is None else (var, trim(fit[0]), fit[1])


def _rational_roots_of(left: str, right: str) -> tuple[str, tuple[Fraction, ...]] | None:
    fit = _line_fit(left, right)
    if fit is None:
        return None
    var, numerator, denominator = fit
    roots = polynomial_rational_roots(numerator) if len(numerator) in (2, 3) else None
    if roots is None:
        return None
    kept = tuple(r for r in roots if horner(denominator, r) != 0)
    return (var, kept) if kept else None


def real_roots(left: str, right: str) -> tuple[str, tuple[Fraction, ...]] | None:
    """``(unknown, roots)`` like :func:`rational_roots`, for any degree up to :data:`MAX_DEGREE` and irrational roots
    too: the real roots of the numerator (numerically, to a relative 1e-9) as rationals within 1e-6
    (``Fraction.limit_denominator(10**6)``), roots of the denominator left out. None when there is none or the
    equation cannot be fitted.

    >>> [round(float(r), 6) for r in real_roots("x^2", "2")[1]], real_roots("x^3 - 6x^2 + 11x", "6")[1][-1]
    ([-1.414214, 1.414214], Fraction(3, 1))
    >>> real_roots("x^2", "-1") is None
    True
    """
    if not isinstance(left, str) or not isinstance(right, str):
        return None
    return never_raising("algebra.real_roots", _real_roots_of, left, right)


def _real_roots_of(left: str, right: str) -> tuple[str, tuple[Fraction, ...]] | None:
    import numpy as np

    fit = _line_fit(left, right)
    if fit is None or len(fit[1]) < 2:
        return None
    var, numerator, denominator = fit
    found = np.roots([float(c) for c in reversed(numerator)])
    kept = []
    for root in found:
        if abs(root.imag) > 1e-9 * max(1.0, abs(root.real)):
            continue
        value = Fraction(float(root.real)).limit_denominator(10**6)
        if abs(float(horner(denominator, value))) > 1e-9:
            kept.append(value)
    return (var, tuple(sorted(set(kept)))) if kept else None
