"""Values reached by rewriting: a chain of identities (:func:`reach_rewrites`) and a reached value written anew as a
fraction (:func:`rescaled`).
"""

from __future__ import annotations

from fractions import Fraction

from rewards.checks.solving import is_identity
from rewards.evidence.quantities import BASIC_CONSTANTS, WRITTEN_FRACTION, read_numbers


MAX_REWRITE_SIDES = 6
"""Longest chain of rewrites (``\\frac{x}{2} + \\frac{x}{3} = \\frac{3x}{6} + \\frac{2x}{6} = \\frac{5x}{6}``) whose
links :func:`reach_rewrites` checks."""


def reach_rewrites(sides: tuple[str, ...], is_reached, strict: set[Fraction]) -> None:
    """A chain of rewrites of one unknown, ``s_0 = s_1 = ... = s_n``: while each link ``s_{k-1} = s_k`` is an identity
    (:func:`rewards.checks.solving.is_identity`) and every number of ``s_0`` is reached, the numbers of ``s_k`` are
    reached too (they are the same quantity written anew); the walk stops at the first link that is no identity
    (``2x + 4 = 2(x + 2) = 10`` grounds the 2 of ``2(x + 2)``, not the 10)."""
    if len(sides) > MAX_REWRITE_SIDES or not all(is_reached(v) for v, _ in read_numbers(sides[0])):
        return
    for before, after in zip(sides, sides[1:]):
        if not is_identity(before, after):
            return
        strict.update(v for v, _ in read_numbers(after))


def _unbraced(side: str) -> str:
    """``side`` without spaces around it and one pair of braces around it all (``{\\frac{5}{3}}``)."""
    side = side.strip()
    return side[1:-1].strip() if side.startswith("{") and side.endswith("}") else side


def rescaled(sides, values, is_reached, strict: set[Fraction], known: set[Fraction]) -> None:
    r"""A reached value written anew as a fraction: in ``\frac{5}{3} = \frac{600}{360}`` (equal values) with 5, 3 and
    360 reached, 600 is ``5/3 \cdot 360``: reached too; in ``\frac{650}{1170} = \frac{65}{117}`` with 650 and 1170
    reached, 65 and 117 are the two divided by their common 10. The new side must be a bare fraction with one new
    number, or a reduction of the old fraction by a common factor that is itself reached as it stands (a basic
    constant, a problem quantity or a derived value, not a percent or reciprocal of one; any divisor of the numbers'
    gcd would launder a free numerator: 85/20 = 17/4 by the 5 of "20%"): two free numbers (``\frac{5}{3} =
    \frac{5 + 0 \cdot 120}{3}``, ``\frac{90}{54}``) would launder any value, and a bare number restates.

    >>> from rewards.checks.arithmetic import evaluate
    >>> strict, known = {Fraction(5), Fraction(3), Fraction(360)}, set()
    >>> sides = ("\\frac{5}{3}", "\\frac{600}{360}")
    >>> rescaled(sides, [evaluate(s) for s in sides], lambda v: v in strict, strict, known); sorted(known)
    [Fraction(600, 1)]
    """
    for k in range(len(sides) - 1):
        old, new = values[k], values[k + 1]
        if old is None or new is None or not old.is_exact or not new.is_exact or old.exact != new.exact:
            continue
        literal = WRITTEN_FRACTION.fullmatch(_unbraced(sides[k + 1]))
        before = read_numbers(sides[k])
        if literal is None or not before or not all(is_reached(v) for v, _ in before):
            continue
        after = [v for v, _ in read_numbers(sides[k + 1])]
        fresh = [v for v in after if not is_reached(v)]
        if len(after) == 2 and len(fresh) == 2:  # a reduction: both parts divided by one whole number
            top = WRITTEN_FRACTION.fullmatch(_unbraced(sides[k]))
            parts = [v for v, _ in before]
            if top is None or len(parts) != 2 or 0 in after or any(p.denominator != 1 for p in [*parts, *after]):
                continue
            factor = parts[0] / after[0]
            if factor.denominator != 1 or abs(factor) < 2 or parts[1] / after[1] != factor \
                    or (factor not in strict and factor not in BASIC_CONSTANTS):
                continue  # a factor from nowhere would launder: 85/20 = 17/4 (by 5) makes a free 17 a quantity
        elif len(after) != 2 or len(fresh) != 1 or fresh[0] == 0 or not all(v in strict for v in after if v != fresh[0]):
            continue  # the kept part reached as it stands: a free basic constant would launder (85/20 = 17/4)
        strict.update(fresh)
        known.update(fresh)
