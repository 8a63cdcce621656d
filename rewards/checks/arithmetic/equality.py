r"""Checking equalities: are the adjacent evaluable sides of an :class:`~.extraction.Equation` equal?

Exactly, or within the documented rounding rule of a written decimal literal, the percent-point reading, or the
``≈`` tolerance; unit conversions and percent correspondences are not checked (package docstring, "Equality").

>>> check_equation(extract_equations("3 * 4 = 13")[0]).detail
'3 * 4 evaluates to 12, not 13'
>>> [c.ok for c in check_text("10/3 = 3.33, 100 cents = $1 and 40/80*100 = 50%")]
[True, None, True]
>>> from rewards.checks.arithmetic.parser import evaluate
>>> check_equation(Equation(["7/2", "3.4"], [evaluate("7/2"), evaluate("3.4")], (0, 9), "plain")).ok
False
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from .budget import MAX_EXPR_CHARS
from .errors import internal_error
from .extraction import Equation, extract_equations
from .sides import NO_META, side_meta
from .tokens import Token, tokenize
from .values import Value, display_value

__all__ = ["EquationCheck", "check_equation", "check_text", "pair_holds", "INEXACT_REL_TOL", "APPROX_REL_TOL"]

INEXACT_REL_TOL = 1e-6  # relative tolerance between two sides when one is a float (an irrational function)
APPROX_REL_TOL = 1e-2  # relative tolerance of a stated approximation (``≈``, ``\approx``)


@dataclass(frozen=True)
class EquationCheck:
    """``ok``: True (every evaluable adjacent pair is equal), False (some pair is not), None (no
    pair could be evaluated).  ``detail``: a human-readable sentence.  ``pairs``: per adjacent
    pair, True/False/None."""

    equation: Equation
    ok: bool | None
    detail: str
    pairs: tuple = ()
    variable: str | None = None  # set by identity checks: the variable the sides were compared as functions of



def pair_holds(v1: Value, v2: Value, m1, m2, approx: bool, ceil_ok: bool = True) -> bool | None:
    if v1.is_exact and v2.is_exact and v1.exact == v2.exact:
        return True
    if m1.units and m2.units and m1.units != m2.units and not (
            (m1.dec < 0 and not m1.additive and set(m2.units) <= set(m1.units))
            or (m2.dec < 0 and not m2.additive and set(m1.units) <= set(m2.units))):
        # "100 cents = $1", "12 inches = 1 foot", "4 pounds - 6 ounces = 58 ounces": a unit conversion, not
        # arithmetic; but a product or quotient whose result carries only its own units is arithmetic
        # ("495 students * $15 = $7425")
        return None
    if m1.dec >= 0 and m2.dec < 0 and any(u != "$" for u in m1.units):
        return None  # "5 pairs = 5 * 2", "4 hours = 4 * 60": a conversion written left to right
    if _close(v1, v2, m1[0], m2[0], approx, ceil_ok):
        return True
    # percent read as percentage points ("40/80*100 = 50%")
    if m1[1] is not None or m2[1] is not None:
        a = m1[1] if m1[1] is not None else v1
        b = m2[1] if m2[1] is not None else v2
        for x, y in ((a, v2), (v1, b), (a, b)):
            if x.is_exact and y.is_exact and x.exact == y.exact:
                return True
            if _close(x, y, m1[0], m2[0], approx, ceil_ok):
                return True
        if (m1.pct == 2 and m2.pct == 0) or (m2.pct == 2 and m1.pct == 0):
            return None  # "48 = 100% + 20%": a correspondence, not a calculation
    return False


def _rounds_to(v, w, k: int, ceil_ok: bool = True) -> bool:
    """Is ``w`` (written with ``k`` decimal places) the value ``v`` rounded to ``k`` places?

    Accepted: rounding to nearest (either way at a tie) and truncation toward zero; for ``k ==
    0`` and ``ceil_ok`` also rounding up (|v - w| < 1: "17/5 = 3 full boxes", "17/5 = 4 boxes needed")."""
    exact = type(v) is not float and type(w) is not float
    unit = Fraction(1, 10**k) if exact else 10.0**-k
    eps = 0 if exact else 1e-9 * max(1.0, abs(v))
    d = abs(v - w)
    if k == 0 and ceil_ok:
        return d < 1 + eps
    if d <= unit / 2 + eps:
        return True
    return (w >= 0) == (v >= 0) and abs(w) <= abs(v) + eps and d < unit + eps


def _close(v1: Value, v2: Value, d1: int, d2: int, approx: bool, ceil_ok: bool = True) -> bool:
    # the written literal: the side with the fewest decimals among lone literals
    k = -1
    if d1 >= 0 and (d2 < 0 or d1 <= d2):
        k, w, other = d1, v1, v2
    elif d2 >= 0:
        k, w, other = d2, v2, v1
    x, y = v1.approx, v2.approx
    diff = abs(x - y)
    scale = max(abs(x), abs(y))
    if approx:
        if diff <= APPROX_REL_TOL * scale + 1e-12:
            return True
        return k >= 0 and _rounds_to(other.approx, w.approx, k, ceil_ok)
    if k >= 0:
        if other.is_exact and w.is_exact:
            if (other.exact * 10**k).denominator == 1:
                return False  # representable with k places: must be exact
            return _rounds_to(other.exact, w.exact, k, ceil_ok)
        return _rounds_to(other.approx, w.approx, k, ceil_ok) or diff <= INEXACT_REL_TOL * scale
    if v1.is_exact and v2.is_exact:
        return False
    return diff <= INEXACT_REL_TOL * scale + 1e-12


def check_equation(eq: Equation) -> EquationCheck:
    """Check that every adjacent pair of evaluable sides is equal (see module docs)."""
    try:
        pairs = []
        fails = []
        meta = [None] * len(eq.sides)
        stoks = eq._toks

        def m(j):
            if meta[j] is None:
                if j < len(stoks) and stoks[j] is not None:
                    meta[j] = side_meta(*stoks[j])
                else:  # a hand-built Equation, or an annotation's "48/2": read its side text
                    toks: list[Token] = []
                    side = eq.sides[j]
                    if isinstance(side, str) and len(side) <= MAX_EXPR_CHARS:
                        tokenize(side, 0, len(side), False, toks, True)
                    meta[j] = side_meta(toks, toks) if toks else NO_META
            return meta[j]

        rels = eq.relations or tuple("=" for _ in eq.sides[1:])
        for i in range(len(eq.sides) - 1):
            v1, v2 = eq.values[i], eq.values[i + 1]
            if v1 is None or v2 is None:
                pairs.append(None)
                continue
            if v1.is_exact and v2.is_exact and v1.exact == v2.exact:
                ok = True
            else:
                ok = pair_holds(v1, v2, m(i), m(i + 1), rels[i] == "≈", eq.source != "latex")
            pairs.append(ok)
            if ok is False:
                fails.append(i)
        if not any(p is not None for p in pairs):
            return EquationCheck(eq, None, "not checkable: " + " = ".join(eq.sides), tuple(pairs))
        if fails:
            i = fails[0]
            a, b = eq.sides[i], eq.sides[i + 1]
            va, vb = eq.values[i], eq.values[i + 1]
            # say "<expression> evaluates to X, not <written>": the written side is the literal
            if m(i).dec >= 0 and m(i + 1).dec < 0:
                a, b, va, vb = b, a, vb, va
            return EquationCheck(eq, False, f"{a} evaluates to {display_value(va)}, not {display_value(vb)}",
                                 tuple(pairs))
        rel = " ≈ " if eq.approximate else " = "
        return EquationCheck(eq, True, rel.join(eq.sides) + " holds", tuple(pairs))
    except Exception as exc:  # noqa: BLE001 - never raise on model output (unless RAFS_STRICT)
        internal_error("check_equation", getattr(eq, "sides", eq), exc)
        return EquationCheck(eq, None, "not checkable", ())


def check_text(text: str) -> list[EquationCheck]:
    """``check_equation`` for every equation in ``text``."""
    return [check_equation(e) for e in extract_equations(text)]
