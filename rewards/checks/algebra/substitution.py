"""Solved values put into an expression (:func:`substitutes`) or an equation (:func:`holds_under`)."""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from typing import Mapping

from rewards.checks.algebra.points import difference, is_zero, value_at
from rewards.checks.algebra.sides import binding_key, bound_side, read_equation, read_side
from rewards.checks.arithmetic.errors import internal_error

__all__ = [
    "holds_under", "substitutes",
]

def substitutes(expression: str, bindings: Mapping[str, Fraction]) -> Fraction | None:
    """The exact value of ``expression`` with the solved values ``bindings`` put in; None when a letter stays
    free, the expression cannot be read as algebra, or its value is irrational.

    >>> substitutes(r"\\frac{x^2 + 1}{2}", {"x": Fraction(3)}), substitutes("x + y", {"x": Fraction(1)})
    (Fraction(5, 1), None)
    """
    key = binding_key(bindings)
    if key is None or not isinstance(expression, str):
        return None
    try:
        return _substitutes(expression, key)
    except (ArithmeticError, ValueError, RecursionError, MemoryError):
        return None
    except Exception as exc:  # noqa: BLE001 - never raise on model output (unless RAFS_STRICT)
        internal_error("algebra.substitutes", expression, exc)
        return None


@lru_cache(maxsize=16384)
def _substitutes(expression: str, bindings: tuple) -> Fraction | None:
    side = read_side(expression)
    if side is None:
        return None
    side = bound_side(side, bindings)
    if side.names:
        return None
    v = value_at(side, {}, None)
    return v.exact if v is not None and v.is_exact else None


def holds_under(left: str, right: str, bindings: Mapping[str, Fraction]) -> bool | None:
    """Whether ``left = right`` holds once ``bindings`` are put in (exactly; within a relative 1e-9 when a side is
    irrational); None when a letter stays free or a side cannot be read.

    >>> holds_under("a + b", "7", {"a": Fraction(2), "b": Fraction(5)}), holds_under("ab", "12", {"a": Fraction(2), "b": Fraction(5)})
    (True, False)
    """
    key = binding_key(bindings)
    if key is None or not isinstance(left, str) or not isinstance(right, str):
        return None
    try:
        eq = read_equation((left, right), key)
        if eq is None or eq[0].names or eq[1].names:
            return None
        d = difference(eq, {}, None)
        return None if d is None else is_zero(d)
    except (ArithmeticError, ValueError, RecursionError, MemoryError):
        return None
    except Exception as exc:  # noqa: BLE001 - never raise on model output (unless RAFS_STRICT)
        internal_error("algebra.holds_under", (left, right), exc)
        return None
