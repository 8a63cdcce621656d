"""Zero sets compared along lines: ``D = left - right`` in one unknown reconstructed exactly as a reduced fraction
of polynomials from its values at :data:`LINE_POINTS` rational points, and the inclusion of one zero set in another
decided by exact polynomial division (see the rule in :mod:`rewards.checks.algebra`)."""

from __future__ import annotations

import math
from fractions import Fraction

from rewards.checks.algebra.budget import HoldsOnRange
from rewards.checks.algebra.points import NEAR, difference, draw, is_zero
from rewards.checks.polynomials import gcd, quotient, remainder, squarefree_part, trim

__all__ = [
    "LINES", "LINE_POINTS", "MAX_DEGREE", "along_line", "horner", "interpolate", "polynomial_rational_roots",
    "row_reduce", "zero_set_inclusions",
]

MAX_DEGREE = 6
LINES = 1


def interpolate(xs: list, ys: list) -> list | None:
    """Monomial coefficients (lowest first) of the polynomial through the points, when one of degree
    <= MAX_DEGREE fits all of them (the last point is a check); else None."""
    n = len(xs)
    if len(set(xs)) == n:  # the same table in integer pairs (reduced by gcd at each step, as Fraction does, without
        # its Python-level operators), made Fractions at the end: equal values
        xn, xd = [x.numerator for x in xs], [x.denominator for x in xs]
        num, den = [y.numerator for y in ys], [y.denominator for y in ys]
        for j in range(1, n):
            for i in range(n - 1, j - 1, -1):
                p = (num[i] * den[i - 1] - num[i - 1] * den[i]) * (xd[i] * xd[i - j])
                q = den[i] * den[i - 1] * (xn[i] * xd[i - j] - xn[i - j] * xd[i])
                g = math.gcd(p, q)
                num[i], den[i] = p // g, q // g
        dd = [Fraction(p, q) for p, q in zip(num, den)]
    else:  # a repeated point divides by zero, as it always did
        dd = list(ys)
        for j in range(1, n):
            for i in range(n - 1, j - 1, -1):
                dd[i] = (dd[i] - dd[i - 1]) / (xs[i] - xs[i - j])
    if any(c != 0 for c in dd[MAX_DEGREE + 1:]):
        return None
    deg = max((k for k, c in enumerate(dd) if c != 0), default=-1)
    coef = [Fraction(0)] * (deg + 1)
    for i in range(deg, -1, -1):  # Horner on the Newton form
        shifted = [Fraction(0)] + coef[:-1]
        coef = [shifted[k] - xs[i] * coef[k] for k in range(deg + 1)]
        coef[0] += dd[i]
    return trim(coef)


def polynomial_rational_roots(p: list) -> list | None:
    """All roots of p when they are all rational and p has degree 1 or 2; None otherwise."""
    p = trim(p)
    if len(p) == 2:
        return [-p[0] / p[1]]
    if len(p) == 3:
        disc = p[1] * p[1] - 4 * p[2] * p[0]
        if disc < 0:
            return None
        n, d = math.isqrt(disc.numerator), math.isqrt(disc.denominator)
        if n * n != disc.numerator or d * d != disc.denominator:
            return None
        s = Fraction(n, d)
        return sorted({(-p[1] - s) / (2 * p[2]), (-p[1] + s) / (2 * p[2])})
    return None


LINE_POINTS = 12
_MAX_DENOMINATOR_DEGREE = 2
_MAX_RATIONAL_DEGREE = 6


def along_line(eq, var, fixed, xs, budget):
    """``D`` along the line through ``fixed`` in ``var`` as a reduced fraction of polynomials ``(N, Q)``
    (coefficient lists, lowest first; ``Q == [1]`` for a polynomial, ``N == []`` for zero), reconstructed from its
    exact values at ``xs`` and checked at the points left over; None when ``D`` is not such a fraction of low
    degree (a radical, ``|x|``, an exponential) or not exact."""
    if eq[0].piecewise or eq[1].piecewise:
        return None
    ys = []
    for x in xs:
        point = dict(fixed)
        point[var] = x
        d = difference(eq, point, budget)
        if d is None or not d.is_exact:
            return None
        ys.append(d.exact)
    poly = interpolate(xs, ys)
    if poly is not None:
        return poly, [Fraction(1)]
    return _rational_fit(xs, ys)


def row_reduce(m: list[list], k: int) -> list[int]:
    """Gauss-Jordan elimination over the rationals of the augmented matrix ``m`` (rows of ``k`` coefficients and a
    right-hand side), in place; the pivot columns, in row order."""
    pivots, r = [], 0
    for c in range(k):
        p = next((i for i in range(r, len(m)) if m[i][c] != 0), None)
        if p is None:
            continue
        m[r], m[p] = m[p], m[r]
        inv = 1 / m[r][c]
        m[r] = [v * inv for v in m[r]]
        for i in range(len(m)):
            if i != r and m[i][c] != 0:
                f = m[i][c]
                m[i] = [a - f * b for a, b in zip(m[i], m[r])]
        pivots.append(c)
        r += 1
    return pivots


def _solve(rows: list, rhs: list) -> list | None:
    """The solution of the square system ``rows · x = rhs`` over the rationals; None when singular."""
    n = len(rows)
    m = [list(r) + [b] for r, b in zip(rows, rhs)]
    if len(row_reduce(m, n)) < n:
        return None
    return [m[r][n] for r in range(n)]


def horner(p: list, x: Fraction) -> Fraction:
    acc = Fraction(0)
    for c in reversed(p):
        acc = acc * x + c
    return acc


def _rational_fit(xs: list, ys: list):
    """``(N, Q)`` with ``N(x) = y * Q(x)`` at every point, ``Q`` monic of degree 1..2, lowest total degree first;
    reduced by ``gcd(N, Q)``. Unknowns are fitted on the first points, the rest (at least two) check."""
    for total in range(1, _MAX_RATIONAL_DEGREE + 1):
        for dq in range(1, min(total, _MAX_DENOMINATOR_DEGREE) + 1):
            dn = total - dq
            unknowns_ = dn + 1 + dq
            if unknowns_ + 2 > len(xs):
                continue
            rows, rhs = [], []
            for x, y in zip(xs[:unknowns_], ys[:unknowns_]):
                rows.append([x ** k for k in range(dn + 1)] + [-y * x ** k for k in range(dq)])
                rhs.append(y * x ** dq)
            sol = _solve(rows, rhs)
            if sol is None:
                continue
            num, den = trim(sol[:dn + 1]), sol[dn + 1:] + [Fraction(1)]
            if all(horner(den, x) != 0 and horner(num, x) == y * horner(den, x) for x, y in zip(xs, ys)):
                if not num:
                    return [], [Fraction(1)]
                g = gcd(num, den)
                if len(g) > 1:
                    num, den = quotient(num, g), quotient(den, g)
                    den = [c / den[-1] for c in trim(den)]
                    num = [c * 1 for c in trim(num)]
                return trim(num), den
    return None


def _zero_at(eq, var, fixed, x, budget) -> bool | None:
    point = dict(fixed)
    point[var] = x
    d = difference(eq, point, budget)
    return None if d is None else is_zero(d)


def _inclusion(fa, fb, ea, eb, var, fixed, budget) -> bool | None | str:
    """On one line: is Z(a) inside Z(b)? True/False, None when undecided, "vacuous" when ``a`` has no zero on the
    line. ``fa``/``fb``: reduced ``(N, Q)`` of ``a``/``b`` along the line, or None."""
    if fa is None:
        return None
    na, _qa = fa
    if not na:  # a vanishes on the whole line
        return None if fb is None else not fb[0]
    if len(na) == 1:
        return "vacuous"
    if fb is not None:
        nb, qb = fb
        if not nb:
            return True
        # every zero of a (a root of na) is a zero of nb, and no pole of b
        return not remainder(nb, squarefree_part(na)) and len(gcd(na, qb)) == 1
    roots = polynomial_rational_roots(na)
    if roots is None:
        return None
    verdicts = [_zero_at(eb, var, fixed, r, budget) for r in roots]
    if any(v is False for v in verdicts):
        return False
    for r in roots:  # b is no rational function (|x|, a radical): it must not hold on a range around the root
        if any(_zero_at(eb, var, fixed, r + d, budget) for d in NEAR):
            raise HoldsOnRange
    return True if all(v is True for v in verdicts) else None


def zero_set_inclusions(e1, e2, names, rng, budget) -> tuple[bool | None, bool | None]:
    """(Z2 ⊆ Z1, Z1 ⊆ Z2) decided along axis-parallel lines through random points.

    In one unknown there is one line and its verdict is a proof. With several, a direction is False when any
    line refutes it, True when at least one line confirms it and none refutes it (a line along which an
    equation is not a polynomial is skipped), else None."""
    found = {"sel": set(), "imp": set()}
    lines = 1 if len(names) == 1 else LINES
    for var in sorted(names):
        for _ in range(lines):
            fixed = {n: draw(rng) for n in sorted(names) if n != var}
            xs: list = []
            while len(xs) < LINE_POINTS:
                x = draw(rng)
                if x not in xs:
                    xs.append(x)
            p1, p2 = along_line(e1, var, fixed, xs, budget), along_line(e2, var, fixed, xs, budget)
            found["sel"].add(_inclusion(p2, p1, e2, e1, var, fixed, budget))
            found["imp"].add(_inclusion(p1, p2, e1, e2, var, fixed, budget))

    def verdict(seen: set) -> bool | None:
        if False in seen:
            return False
        if True in seen and (len(names) > 1 or None not in seen):
            return True
        return None

    return verdict(found["sel"]), verdict(found["imp"])
