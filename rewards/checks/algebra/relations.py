"""How one equation stands to the previous one (:func:`relation`, :func:`follows`) and whether two expressions are
one rewritten (:func:`identical`): the kinds and the rule are in :mod:`rewards.checks.algebra`."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Mapping

from rewards.checks.algebra.budget import Budget, HoldsOnRange, OutOfBudget, costed, never_raising
from rewards.checks.algebra.lines import zero_set_inclusions
from rewards.checks.algebra.points import NEAR, REL_TOL, difference, draw, is_zero, seeded_rng, value_at
from rewards.checks.algebra.sides import MAX_UNKNOWNS, binding_key, read_equation
from rewards.checks.arithmetic.errors import internal_error
from rewards.checks.arithmetic.values import Value

__all__ = [
    "FOLLOWING", "PROPORTIONAL_POINTS", "Relation", "follows", "identical", "relation",
]

PROPORTIONAL_POINTS = 6
FOLLOWING = frozenset({"equivalent", "selects"})


@dataclass(frozen=True)
class Relation:
    """How ``current`` stands to ``previous``: ``kind`` is one of ``equivalent``, ``selects``, ``implies``,
    ``unrelated``, ``identity``, ``undecided``; ``follows`` is True / False / None (see :func:`follows`);
    ``restated``: the current equation is the previous one, verbatim; ``detail``: why, in one line."""

    kind: str
    detail: str = ""
    restated: bool = False

    @property
    def follows(self) -> bool | None:
        if self.kind in FOLLOWING:
            return True
        if self.kind == "unrelated":
            return False
        return None


def _proportional(e1, e2, names, rng, budget) -> bool | None:
    """``D2 = c * D1`` with one constant ``c != 0`` at PROPORTIONAL_POINTS random points (True), a point where
    that fails (False), too few points where both are defined among 3 * PROPORTIONAL_POINTS draws (None: an
    equation defined on the integers only, or on a thin domain, is not decided at all). Raises :class:`HoldsOnRange`
    when an equation holds at two distinct random points."""
    ratio = None
    good = 0
    verdict = True
    zeros: list[set] = [set(), set()]  # distinct random points where an equation holds
    for _ in range(3 * PROPORTIONAL_POINTS):
        point = {n: draw(rng) for n in sorted(names)}
        d1, d2 = difference(e1, point, budget), difference(e2, point, budget)
        if d1 is None or d2 is None:
            continue
        z1, z2 = is_zero(d1), is_zero(d2)
        if z1 or z2:
            key = tuple(sorted(point.items()))
            for k, z in enumerate((z1, z2)):
                if z:
                    zeros[k].add(key)
            if len(zeros[0]) >= 2 or len(zeros[1]) >= 2:
                raise HoldsOnRange
            if z1 != z2:
                verdict = False
            continue
        if d1.is_exact and d2.is_exact:
            r = d2.exact / d1.exact
            same = ratio is None or (ratio.is_exact and r == ratio.exact) or (
                not ratio.is_exact and abs(float(r) - ratio.approx) <= 1e-7 * max(1.0, abs(ratio.approx)))
            r = Value(r, float(r), True)
        else:
            rf = d2.approx / d1.approx if d1.approx else math.inf
            if not math.isfinite(rf):
                return None
            same = ratio is None or abs(rf - ratio.approx) <= 1e-7 * max(1.0, abs(rf), abs(ratio.approx))
            r = Value(None, rf, False)
        if not same:
            verdict = False
        ratio = ratio or r
        good += 1
        if good >= PROPORTIONAL_POINTS:
            return verdict
    return None  # defined at too few random points (``\binom{n}{2}``, ``n!``: integers only): not decided


def _stated_value(eq, names) -> tuple[str, Value] | None:
    """``x = <constant>`` (either way round) in the only unknown: (name, the constant's value)."""
    if len(names) != 1:
        return None
    for a, b in (eq, eq[::-1]):
        if len(a.tokens) == 1 and a.tokens[0][0] == "?" and not b.names:
            v = value_at(b, {}, None)
            return None if v is None else (a.tokens[0][1], v)
    return None


def _root_check(eq, var: str, value: Value, budget) -> bool | None:
    """Whether an irrational ``value`` solves ``eq``: ``eq`` evaluated exactly at the float's own rational, within
    a relative 1e-9 of the sides' size."""
    r = Fraction(value.approx)

    def holds(x: Fraction) -> bool | None:
        a, b = value_at(eq[0], {var: x}, budget), value_at(eq[1], {var: x}, budget)
        if a is None or b is None:
            return None
        return abs(a.approx - b.approx) <= REL_TOL * max(1.0, abs(a.approx), abs(b.approx))

    ok = holds(r)
    if ok and any(holds(r + d) for d in NEAR):
        raise HoldsOnRange
    return ok


def relation(previous, current, bindings: Mapping[str, Fraction] | None = None) -> Relation:
    """How the equation ``current`` stands to ``previous`` (see the module docstring for the kinds).

    ``previous``/``current``: an equation's text (``"2x + 3 = 11"``, LaTeX allowed) or its two sides;
    ``bindings``: values already solved (``{"a": Fraction(2)}``), put in before comparing. Never raises.

    >>> relation("2x + 3 = 11", "x = 4").kind, relation("x = 3", "x^2 = 9").kind, relation("y = 2", "y = 3").kind
    ('equivalent', 'implies', 'unrelated')
    """
    key = binding_key(bindings)
    if key is None:
        return Relation("undecided", "bindings must map a letter to a rational number")
    try:
        prev = previous if isinstance(previous, str) else tuple(previous)
        cur = current if isinstance(current, str) else tuple(current)
        hash((prev, cur))
    except TypeError:
        return Relation("undecided", "an equation must be a string or a pair of sides")
    try:
        return _relation(prev, cur, key)
    except Exception as exc:  # noqa: BLE001 - never raise on model output (unless RAFS_STRICT)
        internal_error("algebra.relation", (previous, current), exc)
        return Relation("undecided", "internal error")


@costed(16384)
def _relation(previous, current, bindings: tuple) -> Relation:
    try:
        e1, e2 = read_equation(previous, bindings), read_equation(current, bindings)
        if e1 is None or e2 is None:
            return Relation("undecided", "an equation cannot be read as algebra")
        names = e1[0].names | e1[1].names | e2[0].names | e2[1].names
        if not names:
            return Relation("undecided", "no unknown left: arithmetic, not algebra")
        if len(names) > MAX_UNKNOWNS:
            return Relation("undecided", "too many unknowns")
        restated = e1 == e2 or e1 == (e2[1], e2[0])
        budget = Budget()
        rng = seeded_rng(str(previous), str(current), str(bindings))
        if _identity(e1, names, rng, budget) or _identity(e2, names, rng, budget):
            return Relation("identity", "an equation holds for every value: a rewrite, not a condition")
        names1, names2 = e1[0].names | e1[1].names, e2[0].names | e2[1].names
        if names1 and names2 and not names1 & names2:  # x = 1, then y = 2: two conditions on different unknowns
            return Relation("unrelated", "the two equations share no unknown")
        prop = _proportional(e1, e2, names, rng, budget)
        if prop is None:
            return Relation("undecided", "too few points where both equations can be evaluated")
        if prop and not any(side.piecewise for side in e1 + e2):
            return Relation("equivalent", "the second is the first times a non-zero constant", restated)
        stated = _stated_value(e2, names)
        if stated is not None and not stated[1].is_exact:  # x = \frac{-1 + \sqrt{5}}{2}: a root, irrational
            ok = _root_check(e1, stated[0], stated[1], budget)
            if ok is None:
                return Relation("undecided", "the first cannot be evaluated at the stated value")
            return Relation("selects", "the stated value solves the first") if ok else Relation(
                "unrelated", "the stated value does not solve the first")
        sel, imp = zero_set_inclusions(e1, e2, names, rng, budget)
        if sel and imp:
            return Relation("equivalent", "the two have the same solutions")
        if sel:
            return Relation("selects", "every solution of the second solves the first")
        if imp:
            return Relation("implies", "every solution of the first solves the second")
        if sel is False and imp is False:
            return Relation("unrelated", "each has a solution the other lacks")
        return Relation("undecided", "the solution sets could not be compared")
    except OutOfBudget:
        return Relation("undecided", "out of budget")
    except HoldsOnRange:
        return Relation("undecided", "an equation holds on a range of values, not at finitely many")
    except (ArithmeticError, ValueError, RecursionError, MemoryError):
        return Relation("undecided", "not evaluable")


def _identity(eq, names, rng, budget, *, tries: int = 2, short: bool | None = False) -> bool | None:
    """``left = right`` at every one of PROPORTIONAL_POINTS random points (where defined), drawing at most
    ``tries × PROPORTIONAL_POINTS`` points; ``short`` when too few points were defined."""
    seen = 0
    for _ in range(tries * PROPORTIONAL_POINTS):
        d = difference(eq, {n: draw(rng) for n in sorted(names)}, budget)
        if d is None:
            continue
        if not is_zero(d):
            return False
        seen += 1
        if seen >= PROPORTIONAL_POINTS:
            return True
    return short


def follows(previous, current, bindings: Mapping[str, Fraction] | None = None) -> bool | None:
    """Whether the equation ``current`` follows from ``previous`` by algebra, in the sense a derivation needs:
    True when every solution of ``current`` solves ``previous`` (``equivalent``, or ``selects``: roots chosen);
    False when each has a solution the other lacks; None otherwise (``implies``: a consequence with extra roots;
    unreadable, an identity, a range, irrational and not proportional, out of budget).

    >>> follows(r"\\frac{3}{x} = 6", r"x = \\frac{1}{2}"), follows("x^2 - 5x + 6 = 0", "x = 4")
    (True, False)
    """
    return relation(previous, current, bindings).follows


def identical(left: str, right: str, bindings: Mapping[str, Fraction] | None = None) -> bool | None:
    """Whether ``left = right`` holds for every value of its unknowns (a rewrite of one expression: expanding,
    factoring, collecting), at :data:`PROPORTIONAL_POINTS` random rational points; False at the first point
    where the sides differ; None when unreadable, without an unknown, or with too few evaluable points.

    >>> identical("(a+b)^2", "a^2 + 2ab + b^2"), identical("(a+b)^2", "a^2 + b^2"), identical("2+2", "4")
    (True, False, None)
    """
    key = binding_key(bindings)
    if key is None or not isinstance(left, str) or not isinstance(right, str):
        return None
    return never_raising("algebra.identical", _identical, left, right, key)


@costed(16384)
def _identical(left: str, right: str, bindings: tuple) -> bool | None:
    eq = read_equation((left, right), bindings)
    if eq is None:
        return None
    names = eq[0].names | eq[1].names
    if not names:
        return None
    rng, budget = seeded_rng(left, right, str(bindings)), Budget()
    return _identity(eq, names, rng, budget, tries=3, short=None)
