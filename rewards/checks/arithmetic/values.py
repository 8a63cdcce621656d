r"""What evaluating an expression gives: a :class:`Value` (exact and/or float), or the :class:`Unparseable` reason.

>>> Value(Fraction(12), 12.0, True), Value(Fraction(5, 2), 2.5, True), Value(None, 2 ** 0.5, False)
(Value(12), Value(2.5), Value(1.414213562))
>>> display_value(Value(Fraction(1, 3), 1 / 3, True)), display_value(None)
('1/3', '?')
>>> Unparseable("division by zero").reason
'division by zero'
"""

from __future__ import annotations

from fractions import Fraction
from typing import NamedTuple

__all__ = ["Value", "Unparseable", "display_value"]


class Value(NamedTuple):
    """A numeric value: ``exact`` (a Fraction, or None when only a float is known), ``approx``
    (always set) and ``is_exact``."""

    exact: Fraction | None
    approx: float
    is_exact: bool

    def __repr__(self) -> str:  # compact, readable in reports
        return f"Value({display_value(self)})"


class Unparseable(NamedTuple):
    """Why an expression has no value (``evaluate_ex``)."""

    reason: str



def display_value(v: Value | None) -> str:
    """A value as a report writes it: an integer, a terminating decimal, ``p/q``, or ``?`` for None."""
    if v is None:
        return "?"
    if v.is_exact and v.exact is not None:
        q = v.exact
        if q.denominator == 1:
            return str(q.numerator)
        # terminating decimals read better as decimals
        d = q.denominator
        while d % 2 == 0:
            d //= 2
        while d % 5 == 0:
            d //= 5
        if d == 1 and q.denominator <= 10**12 and abs(q) < 10**300:  # float(q) overflows past ~1.8e308
            s = f"{float(q):.12f}".rstrip("0").rstrip(".")
            if Fraction(s) == q:
                return s
        return f"{q.numerator}/{q.denominator}"
    return f"{v.approx:.10g}"
