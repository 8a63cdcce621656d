"""Chained algebraic identities checked by exact evaluation at random rational points.

In a chain ``A = B = C`` (three sides or more) the middle links are rewrites of one expression — expanding,
factoring, collecting — so two adjacent sides in the same single variable must agree as functions:
``(49 - a^2)(4 - a^2) = 196 - 8a^2 + a^4 = …`` is false (the ``a^2`` coefficient is 53). Each side is evaluated by
the exact parser of :mod:`rewards.checks.arithmetic` with the variable replaced textually by a rational number (``2x``
reads as ``2(3/7)``; nothing is ever ``eval``-ed); the sides disagree when they differ at every one of five fixed
points (one agreement means the link is not refuted: a coincidence of a false identity at a rational point is
rare, a polynomial identity never disagrees).

What is left alone, because it is not an identity or cannot be evaluated faithfully: two-sided equations
(``2x + 3 = 7`` is a condition, not an identity), sides with two or more variables (``AB = BC`` names segments),
the letters ``i`` and ``e`` (the imaginary unit and Euler's number), function notation (``f(2)``, ``P(x)``,
``f^{-1}``), custom operators (``\\circ``, ``\\star``) and degrees (``90^\\circ``).

Measured on ProcessBench when introduced (the labelled-correct traces are the false alarms): MATH 11 earliest
errors found, 2 correct traces flagged; GSM8K 1 found, 0 flagged.

>>> from rewards.checks.arithmetic import extract_equations
>>> [c.detail for c in identity_checks(extract_equations("$(x+1)^2 = x^2 + x + 1 = 0$"))]
['(x+1)^2 and x^2 + x + 1 differ as functions of x (at x = 3/7: 100/49, not 79/49)']
>>> identity_checks(extract_equations("$(x+1)^2 = x^2 + 2x + 1 = 0$"))
[]
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache
from typing import Iterable

from rewards.checks.arithmetic import Equation, EquationCheck, Value, evaluate
from rewards.parsing.values import format_value

__all__ = ["constrained_variables", "identity_checks", "single_variable", "values_equal"]

VARIABLE = re.compile(r"(?<![\\A-Za-z])([A-Za-z])(?![A-Za-z])")
TEXT_MARKUP = re.compile(r"\\(?:text|mathrm|mbox|textbf|operatorname)\s*\{[^{}]*\}")
FUNCTION_CALL = re.compile(r"(?<![\\A-Za-z])[A-Za-z]\s*(?:\(|\^\s*\{?\s*-\s*1)")
NON_ARITHMETIC = re.compile(r"\\(?:circ|star|ast|oplus|otimes|diamond|bullet|nabla|sum|prod|int|lim)\b|°|[<>≤≥]")
_POINTS = (Fraction(3, 7), Fraction(-5, 3), Fraction(11, 2), Fraction(2, 9), Fraction(-13, 4))
_RESERVED = frozenset({"i", "e"})
MIN_CHAIN = 3
MAX_SIDE_CHARS = 300


def single_variable(side: str) -> str | None:
    """The one variable of ``side`` (``None`` for none, several, a reserved letter or function notation)."""
    if len(side) > MAX_SIDE_CHARS or FUNCTION_CALL.search(side) or NON_ARITHMETIC.search(side):
        return None
    names = set(VARIABLE.findall(TEXT_MARKUP.sub(" ", side)))
    if len(names) != 1 or names & _RESERVED:
        return None
    return next(iter(names))


def value_at(side: str, var: str, x: Fraction) -> Value | None:
    return evaluate(text_at(side, var, x))


@lru_cache(maxsize=256)
def _variable_pattern(var: str) -> re.Pattern:
    return re.compile(rf"(?<![\\A-Za-z]){re.escape(var)}(?![A-Za-z])")


def text_at(side: str, var: str, x: Fraction) -> str:
    """``side`` with the variable ``var`` written as the rational ``x`` (what :func:`value_at` evaluates).

    >>> text_at("2x + x^2 - ax", "x", Fraction(3, 7))
    '2(3/7) + (3/7)^2 - ax'
    """
    return _variable_pattern(var).sub(f"({x.numerator}/{x.denominator})", TEXT_MARKUP.sub(" ", side))


def values_equal(p: Value, q: Value) -> bool:
    """Exactly equal when both are exact, else within a relative 1e-9 (what "the sides agree at a point" means)."""
    if p.is_exact and q.is_exact:
        return p.exact == q.exact
    return abs(p.approx - q.approx) <= 1e-9 * max(1.0, abs(p.approx), abs(q.approx))


def _refuted(a: str, b: str, var: str) -> str | None:
    first = None
    for x in _POINTS:
        p, q = value_at(a, var, x), value_at(b, var, x)
        if p is None or q is None or values_equal(p, q):
            return None
        first = first or (x, p, q)
    x, p, q = first
    return f"{a.strip()} and {b.strip()} differ as functions of {var} (at {var} = {x}: {format_value(p)}, not {format_value(q)})"


_MATH_SEGMENT = re.compile(r"\$\$(.{1,600}?)\$\$|\$(.{1,600}?)\$|\\\((.{1,600}?)\\\)|\\\[(.{1,600}?)\\\]", re.S)
_CONDITION = re.compile(r"=|\\equiv")


@lru_cache(maxsize=4096)
def constrained_variables(problem: str) -> frozenset[str]:
    """Letters the problem ties by an equation in that letter alone (``x^2 - x - 1 = 0``, ``\\sin A = 2\\cos A``,
    ``z^5 = 1``; not a system like ``x/y = 4/5`` nor a definition ``f(x) = x^2``).

    A chain in such a letter may substitute the condition (``x^3 - 2x + 1 = x(x + 1) - 2x + 1`` when ``x^2 = x + 1``)
    and is then true for that letter though not as an identity, so its links are not refuted.

    >>> sorted(constrained_variables("Given $x^2 - x - 1 = 0$, find $x^3 - 2x + 1$ for real $y$."))
    ['x']
    """
    if not isinstance(problem, str):
        return frozenset()
    names: set[str] = set()
    for m in _MATH_SEGMENT.finditer(problem[:8000]):
        segment = next(g for g in m.groups() if g is not None)
        if not _CONDITION.search(segment) or FUNCTION_CALL.search(segment):
            continue  # no condition, or a function's definition (f(x) = ...): x stays free
        letters = set(VARIABLE.findall(TEXT_MARKUP.sub(" ", segment))) - _RESERVED
        if len(letters) == 1:  # a condition on one unknown; systems (x/y = 4/5) leave identities in x alone
            names |= letters
    return frozenset(names)


def identity_checks(equations: Iterable[Equation]) -> list[EquationCheck]:
    """A failed :class:`~rewards.checks.arithmetic.EquationCheck` for every refuted identity link in a chain."""
    out: list[EquationCheck] = []
    for eq in equations:
        if len(eq.sides) < MIN_CHAIN or eq.approximate:
            continue
        for i, (a, b) in enumerate(zip(eq.sides, eq.sides[1:])):
            var = single_variable(a)
            if var is None or single_variable(b) != var:
                continue
            detail = _refuted(a, b, var)
            if detail:
                pairs = tuple(False if j == i else None for j in range(len(eq.sides) - 1))
                out.append(EquationCheck(eq, False, detail, pairs, var))
                break
    return out
