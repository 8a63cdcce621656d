"""How a number is written for a person: the one value formatter of :mod:`rewards` (check details, verifier reasons,
revision reasons, audit completions, counterfactual edits).

:func:`format_value` writes integers plainly and, for other values, one of three styles chosen by keyword:

* exact (the default): ``p/q``;
* ``places=k``: the exact decimal when the value has one with at most ``k`` places (``5/2`` -> ``2.5``), else ``p/q``;
* ``rounded=True``: ``digits`` significant digits (``f"{float(q):.6g}"``), a display and not the exact value; with
  ``max_len``, the exact ``p/q`` when that text is longer.

A float (a value known only approximately) is always written to ``digits`` significant digits; an arithmetic
:class:`~rewards.checks.arithmetic.Value` is written as its exact Fraction when it has one, else as its float.

>>> from fractions import Fraction
>>> format_value(Fraction(12)), format_value(Fraction(5, 2)), format_value(Fraction(5, 2), places=4)
('12', '5/2', '2.5')
>>> format_value(Fraction(1, 3), places=4), format_value(Fraction(1, 3), rounded=True), format_value(2 ** 0.5)
('1/3', '0.333333', '1.41421')
>>> format_value(None), format_value(None, missing="?")
(None, '?')
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

__all__ = ["format_value"]


def _decimal(q: Fraction, places: int) -> str | None:
    """``q`` as an exact decimal with at most ``places`` places (trailing zeros dropped), else None."""
    scaled = q * 10 ** places
    if scaled.denominator != 1:
        return None
    sign, n = ("-" if scaled < 0 else ""), abs(scaled.numerator)
    whole, frac = divmod(n, 10 ** places)
    frac_text = f"{frac:0{places}d}".rstrip("0")
    return f"{sign}{whole}.{frac_text}" if frac_text else f"{sign}{whole}"


def format_value(value: Any, *, places: int = 0, rounded: bool = False, digits: int = 6,
                 max_len: int | None = None, missing: str | None = None) -> str | None:
    """``value`` (a Fraction, int, float, arithmetic ``Value`` or None) as display text.

    Args:
        value: the number. ``None`` gives ``missing``.
        places: exact values: write a decimal when one with at most this many places is exact (0: never).
        rounded: exact values: write non-integers to ``digits`` significant digits instead (display only).
        digits: significant digits of a float, and of a ``rounded`` value.
        max_len: with ``rounded``: when the rounded text is longer than this, the exact ``p/q`` instead.
        missing: what ``None`` gives (default ``None``).

    >>> from fractions import Fraction
    >>> format_value(Fraction(-7, 4), places=10), format_value(Fraction(1, 8), places=2)
    ('-1.75', '1/8')
    >>> format_value(Fraction(-2469135, 2), rounded=True), format_value(Fraction(-2469135, 2), rounded=True, max_len=11)
    ('-1.23457e+06', '-2469135/2')
    """
    if value is None:
        return missing
    if hasattr(value, "is_exact") and hasattr(value, "approx"):  # an arithmetic Value (rewards.checks.arithmetic)
        value = value.exact if value.is_exact and value.exact is not None else value.approx
    if isinstance(value, float):
        return f"{value:.{digits}g}"
    q = Fraction(value)
    if q.denominator == 1:
        return str(q.numerator)
    exact = f"{q.numerator}/{q.denominator}"
    if rounded:
        try:
            text = f"{float(q):.{digits}g}"
        except OverflowError:  # beyond a float: only the fraction can say it
            return exact
        return exact if max_len is not None and len(text) > max_len else text
    if places > 0:
        return _decimal(q, places) or exact
    return exact
