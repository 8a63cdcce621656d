"""Problems that state a quadratic: its linear factorisation written by a step reaches its numbers.
"""

from __future__ import annotations

import re
from fractions import Fraction

from rewards.checks.solving import is_identity
from rewards.evidence.problem_kinds.base import ProblemKindRule
from rewards.evidence.quantities import read_numbers


LINEAR_FACTORS = re.compile(r"\(\s*(\d{0,3})\s*([a-z])\s*([+-])\s*(\d{1,6})\s*\)\s*(?:\\cdot\s*)?"
                             r"\(\s*(\d{0,3})\s*\2\s*([+-])\s*(\d{1,6})\s*\)")
_PROBLEM_POLYNOMIAL = re.compile(r"[^{}$=,<>\\]*?\^2[^{}$=,<>]*")


def quadratic_factors(problem: str, text: str) -> set[Fraction]:
    r"""The numbers of the linear factorizations ``(x-7)(x+2)`` that ``text`` writes of a quadratic the problem
    states (``\frac{2x}{x^2-5x-14}``): the factorization is the problem's own expression rewritten (checked as an
    identity, :func:`rewards.checks.solving.is_identity`), so its numbers, and with them its roots, are reached. A
    product that expands to no quadratic of the problem reaches nothing.

    >>> sorted(quadratic_factors("Let $f(x)=\\frac{2x}{x^2-5x-14}$.", "We factor it as $(x-7)(x+2)$."))
    [Fraction(2, 1), Fraction(7, 1)]
    >>> quadratic_factors("Let $f(x)=\\frac{2x}{x^2-5x-14}$.", "We factor it as $(x-7)(x+3)$.")
    set()
    """
    out: set[Fraction] = set()
    candidates = sorted({m.group(0).strip() for m in _PROBLEM_POLYNOMIAL.finditer(problem)
                         if any(c.isdigit() for c in m.group(0)) and len(m.group(0).strip()) <= 40})[:8]
    for match in LINEAR_FACTORS.finditer(text):
        product = match.group(0).replace("\\cdot", "")
        if any(is_identity(candidate, product) for candidate in candidates):
            out.update(v for v, _ in read_numbers(product))
    return out


class QuadraticRule(ProblemKindRule):
    """A problem that states a quadratic (``x^2 - 5x - 14``): a step's linear factorisation of it, ``(x-7)(x+2)``,
    reaches its numbers (:func:`quadratic_factors`)."""

    name = "quadratics"

    def applies(self, problem: str) -> bool:
        return "^2" in problem

    def before_step(self, builder, flow, text: str) -> None:
        if ")" in text and LINEAR_FACTORS.search(text):
            factored = quadratic_factors(builder.problem, text)
            builder.strict.update(factored)
            builder.known.update(factored)
