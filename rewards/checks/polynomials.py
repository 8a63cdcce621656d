"""Exact polynomial arithmetic on coefficient lists (lowest degree first, :class:`fractions.Fraction` entries).

The one home of what the algebra check (:mod:`rewards.checks.algebra`) and the equivalence claim checker
(:mod:`rewards.checks.claims.equivalence`) both need: trimming, division with remainder, gcd and square-free parts.
No parsing here: callers build the coefficient lists from expressions they evaluated themselves.

>>> from fractions import Fraction as F
>>> p = [F(6), F(-5), F(1)]                      # x^2 - 5x + 6 = (x - 2)(x - 3)
>>> remainder(p, [F(-2), F(1)])                  # divisible by x - 2
[]
>>> quotient(p, [F(-2), F(1)])
[Fraction(-3, 1), Fraction(1, 1)]
>>> is_squarefree(p), is_squarefree([F(1), F(2), F(1)])   # (x + 1)^2 has a repeated root
(True, False)
"""

from __future__ import annotations

from fractions import Fraction

__all__ = ["trim", "divide", "remainder", "quotient", "gcd", "squarefree_part", "is_squarefree"]


def trim(p: list[Fraction]) -> list[Fraction]:
    """``p`` without its zero leading coefficients (a new list; the zero polynomial is ``[]``)."""
    p = list(p)
    while p and p[-1] == 0:
        p.pop()
    return p


def divide(a: list[Fraction], b: list[Fraction]) -> tuple[list[Fraction], list[Fraction]]:
    """``(quotient, remainder)`` of ``a`` divided by ``b`` (``b`` non-zero)."""
    a, b = trim(a), trim(b)
    out = [Fraction(0)] * max(1, len(a) - len(b) + 1)
    while len(a) >= len(b):
        q, shift = a[-1] / b[-1], len(a) - len(b)
        out[shift] = q
        for k, c in enumerate(b):
            a[k + shift] -= q * c
        a = trim(a[:-1])
    return out, a


def remainder(a: list[Fraction], b: list[Fraction]) -> list[Fraction]:
    """The remainder of ``a`` divided by ``b`` (``b`` non-zero)."""
    return divide(a, b)[1]


def quotient(a: list[Fraction], b: list[Fraction]) -> list[Fraction]:
    """The quotient of ``a`` divided by ``b`` (``b`` non-zero)."""
    return divide(a, b)[0]


def gcd(a: list[Fraction], b: list[Fraction]) -> list[Fraction]:
    """A greatest common divisor of ``a`` and ``b`` (not normalised)."""
    a, b = trim(a), trim(b)
    while b:
        a, b = b, remainder(a, b)
    return a


def _derivative(p: list[Fraction]) -> list[Fraction]:
    return trim([k * c for k, c in enumerate(p)][1:])


def squarefree_part(p: list[Fraction]) -> list[Fraction]:
    """``p / gcd(p, p')``: the same roots, each once."""
    p = trim(p)
    d = _derivative(p)
    if not d:
        return p
    return trim(quotient(p, gcd(p, d)))


def is_squarefree(p: list[Fraction]) -> bool:
    """No repeated root: ``gcd(p, p')`` is a constant."""
    return len(gcd(trim(p), _derivative(p))) == 1
