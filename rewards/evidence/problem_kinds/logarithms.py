"""Problems that ask for a logarithm: a verified power ``b^e = N`` solves for its exponent.
"""

from __future__ import annotations

import re
from fractions import Fraction

from rewards.evidence.lexicon import STATED_LOG
from rewards.evidence.problem_kinds.base import ProblemKindRule


_POWER = re.compile(r"\s*+\{?\s*+(\d{1,6})\s*+\}?\s*+\^\s*+\{?\s*+(\d{1,3})\s*+\}?\s*")
_LOG_PROBLEM = re.compile(r"\\log|\blog(?:arithm)?\b")


def log_exponent(problem: str, side: str, value: Fraction | None, is_reached) -> tuple[int, int] | None:
    r"""In a problem that asks for a logarithm, the span of the exponent ``e`` of a verified power ``b^e = N`` whose
    base and value are the problem's logarithm or reached (``2^6 = 64`` for ``\log_2 64``): the equation solves for
    ``e``, which is ``\log_b N``; None otherwise (``2^6 = 64`` derives no 6 where nothing reaches 64, or where
    no logarithm is asked).

    >>> log_exponent("Evaluate $\\log_264$.", "2^6", Fraction(64), lambda v: False)
    (2, 3)
    >>> log_exponent("Evaluate $2^6$.", "2^6", Fraction(64), lambda v: v in (2, 64)) is None
    True
    """
    match = _POWER.fullmatch(side)
    if match is None or value is None or not _LOG_PROBLEM.search(problem):
        return None
    base = int(match.group(1))
    asked = {(int(m.group(1) or m.group(2)), Fraction(m.group(3))) for m in STATED_LOG.finditer(problem)}
    if base < 2 or (base, value) not in asked and not (is_reached(Fraction(base)) and is_reached(value)):
        return None
    return match.span(2)


class LogarithmRule(ProblemKindRule):
    """A problem that mentions a logarithm: a verified power ``2^6 = 64`` solves ``\\log_2 64``; its exponent is the
    result, not an operand (:func:`log_exponent`)."""

    name = "logarithms"

    def applies(self, problem: str) -> bool:
        return "log" in problem

    def operand_spans(self, builder, side: str, numbers, kind, value):
        if kind != "computed" or len(numbers) != 2 or "^" not in side:
            return (), None
        span = log_exponent(builder.problem, side, value, builder.is_reached)
        if span is None:
            return (), None
        return {span}, Fraction(side[slice(*span)])
