r"""When a derivation works with an expression the problem writes (``y = x^2 - 6x + 13``, ``a^2 + 6a - 7``,
``3(x - 4) + 2(x^2 - x + 7) - 5(x - 1)``): the numbers inside it are used even when no step takes them as operands.

Competition solutions rewrite a problem's formula (complete the square, expand, factor) instead of computing with
its coefficients one by one, so the value-keyed coverage of :func:`rewards.evidence.paths.quantity_coverage` never
sees ``6`` or ``13`` as an operand. :func:`consumed_through_expressions` credits such a number when a step up to the
answer's writes an expression in the same unknowns that the algebra check verifies is the problem's expression
rewritten (:func:`rewards.checks.algebra.identical`: equal at random rational points), that writes the number fewer
times than the problem's expression does (``(x - 3)^2 + 4`` writes neither 6 nor 13: both were worked with), and that
depends on it: the problem's expression with that number edited is no longer identical to the rewrite.

What earns nothing: restating the expression, padding it (``x^2 - 6x + 13 + 0``, ``(x^2 - 6x + 13)``: the rewrite
still writes it), reordering it (``13 - 6x + x^2``: the same numbers), a wrong rewrite (not identical), a number the
rewrite copies through (``x^2 - 6x + 12 + 1`` works with 13, not with 6). A quantity the problem states outside its
expressions ("... and then add 10") is never credited here: it must still be used as an operand.
"""

from __future__ import annotations

import re
from collections import Counter
from fractions import Fraction

from rewards.checks.algebra import algebra_work, identical
from rewards.checks.arithmetic import extract_equations
from rewards.evidence.quantities import UNKNOWN_LETTER, read_numbers, stated_quantities

MAX_EXPRESSIONS = 6
"""At most this many expressions of a problem are compared."""
MAX_STEP_SIDES = 24
"""At most this many (step side, later side) pairs are looked at per trace."""
EXPRESSION_WORK = 20_000
"""Tokens of algebra (:func:`rewards.checks.algebra.algebra_work`, counted, never timed) all comparisons of one
trace may spend; past it, a number is used only as an operand."""
MAX_EXPRESSION_CHARS = 200
_TRIVIAL = frozenset({Fraction(0), Fraction(1), Fraction(2)})

_MATH = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$|\\\[(.+?)\\\]|\\\((.+?)\\\)", re.S)
_RELATION = re.compile(r"=|<|>|\\(?:le|leq|ge|geq|lt|gt|ne|neq|equiv|approx)(?![A-Za-z])|\\pmod")
_PROSE = re.compile(r"(?<![\\A-Za-z])[A-Za-z]{3,}")
_NOISE = re.compile(r"\s+|\\left(?![A-Za-z])|\\right(?![A-Za-z])|\\[,;!: ]|\\displaystyle")
_COMMAND_NAME = re.compile(r"\\[A-Za-z]+")


def normalised(text: str) -> str:
    """``text`` without spaces, ``\\left``/``\\right``, spacing commands and trailing punctuation; ``\\dfrac`` and
    ``\\tfrac`` as ``\\frac``, for comparing what two texts write.

    >>> normalised("\\\\left( x^2 - 6x \\\\right) + 13.")
    '(x^2-6x)+13'
    """
    text = _NOISE.sub("", text).replace("\\dfrac", "\\frac").replace("\\tfrac", "\\frac")
    return text.rstrip(".,;:")


def _is_expression(side: str) -> bool:
    """A side with an unknown letter and a numeral, and no prose word."""
    return (len(side) <= MAX_EXPRESSION_CHARS and bool(re.search(r"\d", side))
            and UNKNOWN_LETTER.search(_COMMAND_NAME.sub(" ", side)) is not None and not _PROSE.search(side))


def problem_expressions(problem: str) -> tuple[str, ...]:
    r"""The expressions with an unknown the problem writes in math: each side of a relation in a math segment that
    has an unknown letter and a numeral (at most :data:`MAX_EXPRESSIONS`).

    >>> problem_expressions("What is the minimum value of $y$ in $y = x^2 - 6x + 13$?")
    ('x^2 - 6x + 13',)
    """
    out: list[str] = []
    for match in _MATH.finditer(problem):
        segment = next(g for g in match.groups() if g is not None)
        for side in _RELATION.split(segment):
            side = side.strip().rstrip(".,;:?").strip()
            if _is_expression(side) and side not in out:
                out.append(side)
    return tuple(out[:MAX_EXPRESSIONS])


def _numbers(text: str) -> Counter:
    return Counter(value for value, _ in read_numbers(text))


def _edited(expression: str, value: Fraction) -> str:
    """``expression`` with each occurrence of the whole number ``value`` that is no exponent written as value + 1."""
    out, pos = [], 0
    for v, (start, end) in read_numbers(expression):
        digits = expression[start:end]
        if v == value and digits.strip().lstrip("-").isdigit() and not expression[:start].rstrip("{ -").endswith("^"):
            out.append(expression[pos:start] + digits.replace(digits.strip().lstrip("-"), str(int(value) + 1), 1))
            pos = end
    out.append(expression[pos:])
    return "".join(out)


def _unknowns(text: str) -> frozenset[str]:
    return frozenset(UNKNOWN_LETTER.findall(_COMMAND_NAME.sub(" ", text)))


def _written_sides(steps, upto: int) -> list[str]:
    """The expressions with an unknown that steps ``0..upto`` write — each side of an equation or other relation, in
    math or plain text, and each lone expression in math — latest step first, each once."""
    out: dict[str, str] = {}
    for t in range(min(upto, len(steps) - 1), -1, -1):
        step = steps[t]
        sides = [side for m in _MATH.finditer(step) for side in _RELATION.split(next(g for g in m.groups() if g))]
        if "=" in step:
            sides += [str(side) for eq in extract_equations(step) for side in eq.sides]
        for side in sides:
            side = side.strip().rstrip(".,;:?").strip()
            if _is_expression(side):
                out.setdefault(normalised(side), side)
    return list(out.values())


def _rewrites(steps, upto: int, expressions: tuple[str, ...]) -> list[tuple[str, str]]:
    """``(expression, rewrite)`` pairs: an expression of the problem and an expression a step up to ``upto`` writes
    in the same unknowns that does not write it again (``(x^2 - 6x + 13)``, ``x^2 - 6x + 13 + 0``) and writes other
    numbers (``13 - 6x + x^2`` writes the same): a candidate rewrite, latest step first, at most
    :data:`MAX_STEP_SIDES`."""
    written = _written_sides(steps, upto)
    out: list[tuple[str, str]] = []
    for expression in expressions:
        key, names, numbers = normalised(expression), _unknowns(expression), _numbers(expression)
        for side in written:
            if _unknowns(side) == names and key not in normalised(side) and _numbers(side) != numbers:
                out.append((expression, side))
                if len(out) >= MAX_STEP_SIDES:
                    return out
    return out


def consumed_through_expressions(problem: str, steps, upto: int | None, candidates: set[Fraction],
                                 path_used=frozenset()) -> set[Fraction]:
    r"""The quantities of ``candidates`` a step up to ``upto`` (the answer's step) consumes by rewriting an expression
    of the problem that writes them (see the module docstring), where the rewrite leads to the answer: a number it
    writes that the problem's expression does not (other than 0, 1 and 2, which any form writes) is among
    ``path_used``, the operands of the answer's derivation (``(x - 3)^2 + 4``, then ``(3 - 3)^2 + 4 = 4``). A rewrite
    beside a derivation that never uses it consumes nothing. Bounded by :data:`MAX_STEP_SIDES` pairs and
    :data:`EXPRESSION_WORK` tokens of algebra; never raises.

    >>> p = "What is the minimum value of $y$ in $y = x^2 - 6x + 13$?"
    >>> steps = ["$y = x^2 - 6x + 13 = (x - 3)^2 + 4$", "The minimum is $0 + 4 = 4$."]
    >>> sorted(consumed_through_expressions(p, steps, 1, {Fraction(6), Fraction(13)}, {Fraction(0), Fraction(4)}))
    [Fraction(6, 1), Fraction(13, 1)]
    >>> consumed_through_expressions(p, ["$y = x^2 - 6x + 13 + 0$", "The minimum is $4$."], 1, {Fraction(13)}, {4})
    set()
    """
    if upto is None or not candidates or not path_used or "$" not in problem and "\\" not in problem:
        return set()
    expressions = problem_expressions(problem)
    if not expressions:
        return set()
    found: set[Fraction] = set()
    start = algebra_work()
    for expression, rewrite in _rewrites(steps, upto, expressions):
        mine, theirs = _numbers(expression), _numbers(rewrite)
        if not any(v in path_used for v in theirs if v not in mine and v not in _TRIVIAL):
            continue  # the derivation of the answer does not go on from this form
        # a number the rewrite writes as often as the expression is copied through, not worked with
        written = {v for v in mine if v in candidates and v not in found and theirs[v] < mine[v]
                   and v.denominator == 1 and abs(v) < 10**9}
        if not written or algebra_work() - start > EXPRESSION_WORK or identical(expression, rewrite) is not True:
            continue
        for value in sorted(written):
            edited = _edited(expression, value)
            if edited != expression and algebra_work() - start <= EXPRESSION_WORK \
                    and identical(edited, rewrite) is False:
                found.add(value)
    return found


def linked_steps(problem: str, steps, upto: int | None, path: frozenset[int], path_used) -> frozenset[int]:
    r"""Steps up to ``upto`` (the answer's step) off the answer's ``path`` whose equations lead to it: a step that
    writes an equation and a number (no problem quantity, not 0, 1 or 2) the answer's derivation uses as an operand
    (``path_used``) — ``19 + 3y = 49`` before ``3y = 49 - 19``, where the value-keyed path starts at ``49 - 19``.
    Only for a problem that states an equation with an unknown (what
    :func:`rewards.evidence.paths.consumed_through_algebra` compares such a step with); else empty.

    >>> linked_steps("Find $y$: $\\sqrt{19+3y} = 7$.", ["$19 + 3y = 49$", "$3y = 49 - 19 = 30$", "$y = 10$"], 2,
    ...              frozenset({1, 2}), {Fraction(49), Fraction(19), Fraction(30), Fraction(3)})
    frozenset({0})
    """
    from rewards.evidence.algebra_links import given_equations  # local: it reads the model

    if upto is None or not path_used or "=" not in problem or not given_equations(problem):
        return frozenset()
    problem_values = stated_quantities(problem) | {v for v, _ in read_numbers(problem)}
    out = set()
    for t in range(min(upto, len(steps) - 1) + 1):
        if t in path or "=" not in steps[t]:
            continue
        if any(v in path_used for v in _numbers(steps[t]) if v not in problem_values and v not in _TRIVIAL):
            out.add(t)
    return frozenset(out)
