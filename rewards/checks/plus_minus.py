r"""An equation written with ``\pm`` is two equations: ``x = \frac{1 \pm 17}{2} = 9`` or ``-8`` — the quadratic formula.

Competition solutions solve every quadratic through a chain like

    y = \frac{-(-4) \pm \sqrt{(-4)^2 - 4(1)(-1)}}{2(1)} = \frac{4 \pm \sqrt{20}}{2} = 2 \pm \sqrt{5}

which the exact checker cannot read as one value. :func:`branches` reads it as its two branches, ``\pm`` as ``+``
throughout (``\mp`` as ``-``) and as ``-`` throughout, and checks each with the exact arithmetic checker
(:func:`~rewards.checks.arithmetic.check_equation`, its bounds on digits, exponents and work). When *both* branches
hold, the chain is verified and each branch derives its root like any chain; otherwise the equation stays as
written, unchecked (a branch taken in the middle of a chain, ``\frac{1 \pm 17}{2} = 9``, is the author choosing a
root, not a slip), so the reading only ever adds support and refutes nothing.

>>> from rewards.checks.arithmetic import extract_equations
>>> [eq] = extract_equations(r"\[ x = \frac{1 \pm \sqrt{289}}{2} = \frac{1 \pm 17}{2} \]")
>>> [(" = ".join(b.sides), c.ok) for b, c in branches(eq)]
[('x = \\frac{1 + \\sqrt{289}}{2} = \\frac{1 + 17}{2}', True), ('x = \\frac{1 - \\sqrt{289}}{2} = \\frac{1 - 17}{2}', True)]
>>> [eq] = extract_equations(r"\[ x = \frac{1 \pm 17}{2} = 9 \]")
>>> branches(eq) is None
True
"""

from __future__ import annotations

import re

from rewards.checks.arithmetic import Equation, EquationCheck, check_equation, evaluate

__all__ = ["MAX_SIDES", "PLUS_MINUS", "branches", "split_branches"]

PLUS_MINUS = re.compile(r"\\(?:pm|mp)(?![A-Za-z])|±|∓")
r"""``\pm``, ``\mp`` (not ``\pmod``), and their Unicode signs."""

MAX_SIDES = 8
"""At most this many sides (each branch is checked once: two checks per equation)."""

_PLUS = {"\\pm": "+", "\\mp": "-", "±": "+", "∓": "-"}
_MINUS = {"\\pm": "-", "\\mp": "+", "±": "-", "∓": "+"}


def _branch(eq: Equation, signs: dict[str, str]) -> tuple[Equation, EquationCheck]:
    sides = [PLUS_MINUS.sub(lambda m: signs[m.group()], side) for side in eq.sides]
    values = [evaluate(side) for side in sides]
    branch = Equation(sides, values, eq.span, eq.source, eq.relations, eq.approximate)
    return branch, check_equation(branch)


def branches(eq: Equation) -> tuple[tuple[Equation, EquationCheck], tuple[Equation, EquationCheck]] | None:
    """The ``+`` and ``-`` branches of an equation written with ``\\pm``, each with its check, when both hold; else
    ``None`` (no ``\\pm``, too many sides, a congruence, or a branch that does not hold or cannot be evaluated)."""
    sides = eq.sides
    if not 2 <= len(sides) <= MAX_SIDES or eq.source == "annotation":
        return None
    if not any(isinstance(side, str) and PLUS_MINUS.search(side) for side in sides):
        return None
    if any("pmod" in side or "equiv" in side for side in sides):
        return None
    plus, minus = _branch(eq, _PLUS), _branch(eq, _MINUS)
    if plus[1].ok is True and minus[1].ok is True:
        return plus, minus
    return None


def split_branches(checked) -> list:
    """``checked`` (equations with their checks) with every unchecked equation whose two branches hold replaced by
    the two branches (:func:`branches`)."""
    out = []
    for eq, check in checked:
        split = branches(eq) if check.ok is None else None
        if split is None:
            out.append((eq, check))
        else:
            out.extend(split)
    return out
