r"""The value an expression takes on every solution of an equation: :func:`determined_value`.

Competition solutions often solve for an expression rather than for one unknown: ``2(a + b) = 1994``, so
``a + b = 997``; ``2L + 2W = 12``, so ``L + W = 6``. The equation fixes the expression's value though it fixes
neither unknown. That value is read exactly, without solving symbolically: every unknown of the equation but one
(``var``, an unknown of the expression) is fixed at a random rational, the equation is reconstructed along ``var``
(:func:`~rewards.checks.algebra.lines.along_line`) and its one root taken (the equation must be of degree 1 in
``var`` on the line), and the expression evaluated exactly there. Two such points (:data:`POINTS`) must give the same
value, else the equation does not determine the expression (``a + 2b = 4`` leaves ``a + b`` free) and the answer is
None. Used to derive the number of ``expression = number`` when that equation follows from a grounded one, and to
carry a counterfactual edit of the grounded equation's numbers through it (the edited equation's value).

Bounded like every algebra check: one :class:`~rewards.checks.algebra.budget.Budget` per call, at most
:data:`~rewards.checks.algebra.sides.MAX_UNKNOWNS` unknowns, sides of at most
:data:`~rewards.checks.algebra.sides.MAX_SIDE_CHARS` characters; never raises on model output.

>>> determined_value(("2(a + b)", "1994"), "a + b"), determined_value(("2L + 2W", "12"), "L + W")
(Fraction(997, 1), Fraction(6, 1))
>>> determined_value(("a + 2b", "4"), "a + b") is None
True
"""

from __future__ import annotations

from fractions import Fraction

from rewards.checks.algebra.budget import Budget, costed, never_raising
from rewards.checks.algebra.lines import LINE_POINTS, along_line
from rewards.checks.algebra.points import draw, seeded_rng
from rewards.checks.algebra.sides import read_equation, read_side
from rewards.checks.algebra.substitution import substitutes

__all__ = ["POINTS", "determined_value"]

POINTS = 2
"""The expression is evaluated at this many random solutions of the equation; all must agree."""


def determined_value(equation: tuple[str, str], expression: str) -> Fraction | None:
    """The exact value ``expression`` takes on every solution of ``equation`` (``(left, right)``), or None: it is
    not determined, not rational, or the equation cannot be read as one of degree 1 in an unknown of the expression
    (see the module docs)."""
    if not (isinstance(equation, tuple) and len(equation) == 2 and all(isinstance(s, str) for s in equation)
            and isinstance(expression, str)):
        return None
    return never_raising("algebra.determined_value", _determined, equation[0], equation[1], expression)


@costed(1024)
def _determined(left: str, right: str, expression: str) -> Fraction | None:
    eq, target = read_equation((left, right), ()), read_side(expression)
    if eq is None or target is None or not target.names:
        return None
    names = eq[0].names | eq[1].names
    if not target.names <= names:
        return None  # a letter the equation does not hold stays free
    var = sorted(target.names)[0]
    others = sorted(names - {var})
    rng, budget = seeded_rng(left, right, expression), Budget()
    found: Fraction | None = None
    for _ in range(POINTS):
        fixed = {name: draw(rng) for name in others}
        xs: list[Fraction] = []
        while len(xs) < LINE_POINTS:
            x = draw(rng)
            if x not in xs:
                xs.append(x)
        fit = along_line(eq, var, fixed, xs, budget)
        if fit is None or len(fit[0]) != 2 or fit[0][1] == 0:
            return None  # not of degree 1 along the line: no single solution there
        root = -fit[0][0] / fit[0][1]
        value = substitutes(expression, {**fixed, var: root})
        if value is None or (found is not None and value != found):
            return None
        found = value
    return found
