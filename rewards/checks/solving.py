"""Solving what a step states in one unknown: ``5x = 20`` derives ``x = 4``; ``X = $60/1.5`` derives 40.

Word problems are often solved by algebra: the trace writes the problem as an equation in one unknown and solves
it (``4 * x + 600 = 10000`` … ``x = 2350``). The exact evaluator cannot check such a relation (it has a letter in
it), but it can *solve* it: with ``f(x) = left(x) - right(x)`` evaluated exactly at three rational points, a linear
``f`` (equal steps) has the one root ``x* = -f(0) / (f(1) - f(0))``. The root is what the equation derives; the
scorer's dataflow treats it like the result of a verified computation (:mod:`rewards.evidence`), so an
answer reached by solving the problem's own equation is supported, and an answer merely assigned (``x = 18``)
is not.

Bounded: sides longer than :data:`~rewards.checks.identities.MAX_SIDE_CHARS` are not read, function notation and
non-arithmetic symbols are refused, and evaluation goes through the bounded exact evaluator (no eval, no sympify).

>>> solve_linear("4 * x + 600", "10000")
Fraction(2350, 1)
>>> solve_linear("2p/5", "(p+600)/4")
Fraction(1000, 1)
>>> solve_linear("x^2", "16") is None     # not linear: no single root to derive
True
>>> solve_linear("x", "18") is None       # an assignment derives nothing
True
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

from rewards.checks.arithmetic import evaluate
from rewards.checks.identities import single_variable, text_at

__all__ = ["solve_linear", "equation_unknown", "is_identity"]

_POINTS = (Fraction(0), Fraction(1), Fraction(2), Fraction(7, 3))


def equation_unknown(left: str, right: str) -> str | None:
    """The one unknown of ``left = right`` (both sides together), or ``None``."""
    names = {single_variable(side) for side in (left, right)} - {None}
    if len(names) != 1:
        return None
    var = next(iter(names))
    for side in (left, right):  # a side with a letter must have exactly this one
        if single_variable(side) is None and evaluate(side) is None and any(c.isalpha() for c in side):
            return None
    return var


def _exact(side: str, var: str, x: Fraction, seen: dict[str, Fraction | None]) -> Fraction | None:
    """The exact value of ``side`` at ``var = x`` (:func:`~rewards.checks.identities.value_at`), None when it has
    none; ``seen``: the values of the texts evaluated so far (a side without ``var`` is one text at every point)."""
    text = text_at(side, var, x)
    if text not in seen:
        value = evaluate(text)
        seen[text] = value.exact if value is not None and value.is_exact else None
    return seen[text]


@lru_cache(maxsize=16384)
def solve_linear(left: str, right: str, var: str | None = None) -> Fraction | None:
    """The root of ``left = right`` when it is linear in its one unknown and not a bare assignment; else ``None``
    (cached: GRPO groups repeat equations)."""
    if not any(c.isalpha() for c in left + right):
        return None
    var = var or equation_unknown(left, right)
    if var is None:
        return None
    if left.strip() == var or right.strip() == var:
        return None  # "x = 18" or "x = 60/1.5": an assignment, not an equation to solve
    values: list[Fraction] = []
    seen: dict[str, Fraction | None] = {}
    for x in _POINTS:  # f = left - right at each point; None as soon as the root cannot be (the same answer)
        lv, rv = _exact(left, var, x, seen), _exact(right, var, x, seen)
        if lv is None or rv is None:
            return None
        values.append(lv - rv)
        if len(values) == 2 and values[1] == values[0]:
            return None  # slope 0
        if len(values) > 2 and values[-1] != values[0] + (values[1] - values[0]) * x:
            return None  # not linear
    return -values[0] / (values[1] - values[0])


@lru_cache(maxsize=16384)
def is_identity(left: str, right: str) -> bool:
    """Whether ``left = right`` holds for every value of its one unknown (checked exactly at four rational
    points): ``x + 0.25x = 1.25x`` and ``(2x-10)-8 = 2x-18`` are rewrites, not equations to solve.

    >>> is_identity("x + 0.25x", "1.25x"), is_identity("(2x-10)-8", "2x-18"), is_identity("2x", "10")
    (True, True, False)
    """
    if not any(c.isalpha() for c in left + right):
        return False
    var = equation_unknown(left, right)
    if var is None or single_variable(left) != var or single_variable(right) != var:
        return False
    seen: dict[str, Fraction | None] = {}
    for x in _POINTS:
        lv, rv = _exact(left, var, x, seen), _exact(right, var, x, seen)
        if lv is None or rv is None or lv != rv:
            return False
    return True
