"""Algebra slips between consecutive equations: a derived equation with a root its source does not have.

A step that rewrites an equation in one unknown must keep its solutions: ``3x + 5 = 20, so 3x = 14`` is a slip,
because ``x = 14/3`` solves the second and not the first. The rule, for two consecutive equations E1: L1 = R1 and
E2: L2 = R2 in the same single-letter unknown:

* E2 must be *derived* from E1: the text between them is only connector words (``so``, ``thus``, ``gives``,
  ``simplifies to``, ``we get``, ``Subtract 5 from both sides:`` …), arrows (``\\Rightarrow``, ``\\implies``,
  ``\\iff``, ``\\therefore``) and delimiters, with at least one derivation signal — a connector, an arrow, a new
  display ``\\] \\[`` / ``$$ $$`` or a new ``align`` line ``\\\\``. A comma, ``and``, ``or``, ``if``, a label
  ``(1)``, ``substituting`` or any other word breaks the pair. The last equation of a step pairs with the first
  of the next the same way (``… 150 = 10 + 4c.`` / ``So, 4c = 150.``). Both equations must be extracted whole (no
  operand of the expression left next to the span by the extractor).
* Sides are evaluated exactly by :func:`rewards.checks.arithmetic.evaluate` with the unknown replaced textually by a
  rational number (:func:`rewards.checks.identities._at`); nothing is ever ``eval``-ed. ``L2 - R2`` must be a polynomial
  of degree 1 to 4 (checked by finite differences at seven points).
* A rational root of E2 (degree 1, or degree 2 with a square discriminant) at which E1 is defined and false
  refutes the step. Failing that, for degree 2 to 4, E2 is refuted when its polynomial is square-free and does
  not divide E1's: every root of E2 — complex ones too — would be a root of E1 otherwise.

Valid rewrites never add roots, except by multiplying by something that can vanish; so it is left alone:

* E1 whose degree is lower than E2's (squaring ``x = 3`` into ``x^2 = 9``, multiplying by ``x``), E1 with a
  radical or with values that are not exact (squaring ``\\sqrt{x+1} = x - 1`` adds roots), and a root at which E1
  is undefined (clearing the denominator of ``\\frac{x}{x-1} = \\frac{1}{x-1}``). Dropped roots (``x^2 = 4, so
  x = 2``) are correct writing and never flagged.
* E1 that states a value (``x = 3 … x = 5`` are cases, not a rewrite), and a root of E2 that satisfies some
  earlier equation of the step (``x - 8 = 12 or x - 8 = -12`` solved in parallel).
* A solved value written as a decimal within 1% of a root of E1 (``h^2 = 17600, so h = 132.66``: rounded).
* Sides with two letters or words, subscripts and primes (``a_1``, ``x'``), function notation (``f(x)``,
  ``f\\left(…\\right)``, and with it a product written ``x(x - 1)``), ``i``, ``e``, ``\\pi``, ``\\pm``,
  inequalities, absolute values, ``\\approx``, chains whose unknown is not in a leading run of sides.

Measured with ``benchmarks/claim_checkers.py rewards.checks.claims.equivalence:check_trace`` (alone, not registered): ProcessBench
MATH +13 earliest errors found, 0 lost, 0 correct traces flagged, 0 flags before the labelled error (F1 0.203 →
0.237; a further 14 flags fall after the label, all read and all real slips); GSM8K +3 found, 0 flagged (one
late flag, a real slip). Gold solutions: MATH-500 0 flagged; GSM8K train 4 flagged, each a real slip in the
gold text (``150 = 10+4c`` then ``4c = 150``; ``10b = 180`` then ``b = 180``; ``… = 315`` then ``6p + 30 = 312``;
``140 + 140x = 147`` then ``x = .5``). Cost: 0.06 ms/trace (GSM8K gold) and 0.14 ms/trace (MATH-500 gold) once the
scorer has extracted the steps' equations (it reuses :func:`rewards.checks.equations.step_equations`); about 1 ms/trace on
MATH-500 when it has to extract them itself.

>>> [c.detail for _, c in check_trace(["2x + 3 = 11, so x = 5"])]
['x = 5 does not follow from 2x + 3 = 11: x = 5 solves the second but not the first (2x + 3 = 13, not 11)']
>>> check_trace(["2x + 3 = 11, so x = 4", "$x^2 = 4$, so $x = 2$"])
[]
"""

from __future__ import annotations

import re
from functools import lru_cache
from fractions import Fraction
from typing import Sequence

from rewards.checks.arithmetic import Equation, EquationCheck, extract_equations
from rewards.checks.identities import FUNCTION_CALL, TEXT_MARKUP, NON_ARITHMETIC, VARIABLE, value_at
from rewards.checks.equations import step_equations
from rewards.checks.polynomials import is_squarefree, remainder
from rewards.parsing.folding import ascii_lowered

__all__ = ["check_trace", "pair_check"]

MAX_STEP_CHARS = 4000
MAX_SIDE_CHARS = 200
MAX_GAP_CHARS = 80
MAX_PAIRS = 40  # equation pairs examined per trace
MAX_DEGREE = 4
_POINTS = tuple(Fraction(k) for k in range(-2, 5))  # 7 points: degree <= 5 detected, <= 4 used
_MAX_BITS = 256

_RESERVED = frozenset({"i", "e"})
# subscripts, primes, inequalities, factorials, absolute values, f\\left(…\\right), radicals, constants, functions
_BAD_SIDE = re.compile(r"[_'<>≤≥%!|]|(?<![\\A-Za-z])[A-Za-z]\s*\\(?:left|bigl?|Bigl?)\s*\(|"
                       r"\\(?:prime|pm|mp|approx|le|ge|leq|geq|neq|ne|lt|gt|cdots|ldots|dots|infty|pi|log|ln|sin|"
                       r"cos|tan|sqrt|binom|choose|lfloor|lceil|mod|pmod|bmod)\b")
# connector words that say the second equation is obtained from the first
_GAP_WORDS = frozenset("""
so thus hence therefore then now gives give giving get gets we have obtain obtains yields yield simplifies simplify
simplifying simplified to which means implies it this that equation becomes follows rearranging rearrange rearranged
subtract subtracting subtracted add adding added divide dividing divided multiply multiplying multiplied both sides
side from by on each the expanding expand expanded factor factoring factorising factorizing factorise factorize
factored factorised factorized into collecting collect combining combine like terms isolate isolating solving solve
for move moving bring bringing further finally us can be written as rewritten reduce reduces reducing results in
tells leaves leaving left right hand expression term also simplification is quadratic cubic linear polynomial our
rewrite write
""".split())
_GAP_STRIP = re.compile(
    r"\\(?:Rightarrow|Longrightarrow|implies|iff|therefore|to|rightarrow|longrightarrow|Leftrightarrow|quad|qquad|"
    r"left|right|[,;!:]|\\|\[|\]|\(|\))|\\(?:begin|end)\{[a-z*]*\}|\\text(?:bf)?\{([^{}]*)\}|"
    r"[$&.,;:()\[\]{}]")
_WORD = re.compile(r"[A-Za-z]+")
_WORDS = re.compile(r"[A-Za-z]{2,}")
_COMMAND = re.compile(r"\\[A-Za-z]+")


def _letters(side: str) -> set[str] | None:
    """The single-letter variables of a side; None when the side is unsafe to evaluate."""
    if len(side) > MAX_SIDE_CHARS or _BAD_SIDE.search(side) or FUNCTION_CALL.search(side) or NON_ARITHMETIC.search(side):
        return None
    plain = TEXT_MARKUP.sub(" ", side)
    names = set(VARIABLE.findall(plain))
    if names & _RESERVED:
        return None
    if _WORDS.search(_COMMAND.sub(" ", plain)):  # a word or a name of two letters: not one unknown
        return None
    return names


@lru_cache(maxsize=4096)
def _poly(lhs: str, rhs: str, var: str):
    """Values of lhs - rhs at _POINTS if it is a polynomial of degree <= MAX_DEGREE in var, with its degree."""
    vals = []
    for x in _POINTS:
        p, q = value_at(lhs, var, x), value_at(rhs, var, x)
        if p is None or q is None or not (p.is_exact and q.is_exact) or p.exact is None or q.exact is None:
            return None
        d = p.exact - q.exact
        if d.numerator.bit_length() > _MAX_BITS or d.denominator.bit_length() > _MAX_BITS:
            return None
        vals.append(d)
    diffs, deg = list(vals), None
    for order in range(0, MAX_DEGREE + 2):
        if all(v == 0 for v in diffs):
            deg = order - 1
            break
        diffs = [b - a for a, b in zip(diffs, diffs[1:])]
    if deg is None:
        return None
    return (deg, vals) if deg <= MAX_DEGREE else None


def _rational(lhs: str, rhs: str, var: str) -> bool:
    """``lhs - rhs`` takes exact rational values at rational points where it is defined (no radicals)."""
    exact = 0
    for x in _POINTS:
        p, q = value_at(lhs, var, x), value_at(rhs, var, x)
        if p is None or q is None:
            continue
        if not (p.is_exact and q.is_exact) or p.exact is None or q.exact is None:
            return False
        exact += 1
    return exact >= len(_POINTS) - 2


def _monomial(vals, deg: int) -> list[Fraction]:
    """Coefficients ``[c0, c1, ...]`` of the degree-``deg`` polynomial taking ``vals`` at ``_POINTS``."""
    xs, dd = _POINTS[:deg + 1], list(vals[:deg + 1])
    for j in range(1, deg + 1):  # Newton divided differences, in place
        for i in range(deg, j - 1, -1):
            dd[i] = (dd[i] - dd[i - 1]) / (xs[i] - xs[i - j])
    coef = [Fraction(0)] * (deg + 1)
    for i in range(deg, -1, -1):  # Horner on the Newton form: coef = coef * (x - xs[i]) + dd[i]
        shifted = [Fraction(0)] + coef[:-1]
        coef = [shifted[k] - xs[i] * coef[k] for k in range(deg + 1)]
        coef[0] += dd[i]
    return coef




def _isqrt_frac(q: Fraction) -> Fraction | None:
    if q < 0:
        return None
    from math import isqrt
    n, d = isqrt(q.numerator), isqrt(q.denominator)
    if n * n == q.numerator and d * d == q.denominator:
        return Fraction(n, d)
    return None


def _roots(vals, deg) -> list[Fraction]:
    """The rational roots of a polynomial of degree 1 or 2 given by its values at ``_POINTS`` ([] otherwise)."""
    if deg not in (1, 2):
        return []
    c = _monomial(vals, deg)
    if deg == 1:
        return [-c[0] / c[1]]
    s = _isqrt_frac(c[1] * c[1] - 4 * c[2] * c[0])
    if s is None:
        return []
    return sorted({(-c[1] - s) / (2 * c[2]), (-c[1] + s) / (2 * c[2])})


_SIGNAL = re.compile(r"\\(?:Rightarrow|Longrightarrow|implies|iff|therefore|Leftrightarrow)\b|\\\]|\$\$|\\\\|"
                     r"\b(?:so|thus|hence|therefore|gives|giving|get|obtain|yields|simplifies|simplifying|means|"
                     r"implies|becomes|rearranging|subtract|subtracting|add|adding|divide|dividing|multiply|"
                     r"multiplying|expanding|factoring|factorising|factorizing|collecting|combining|isolate|isolating|"
                     r"solving|then|have|reduces|combine|combined|simplify|simplified|factor|factored|expand|"
                     r"expanded|solve|rearrange|rearranged|collect|subtracted|added|divided|multiplied|isolating|"
                     r"leaves|results)\b", re.I)
"""A connective or a display break between two equations: what :func:`_gap_ok` asks of a gap first."""
_SIGNAL_WORDS = frozenset(_SIGNAL.pattern.rsplit(r"\b(?:", 1)[1].removesuffix(r")\b").split("|"))
"""The words of ``_SIGNAL``'s last alternative (lower-case)."""
_WORD_RUN = re.compile(r"\w+")


def _signalled(gap: str) -> bool:
    """``_SIGNAL.search(gap) is not None``, without the search where it can be answered from the gap's words: in text
    without a backslash or a ``$$`` (a lone ``$`` is no word character and starts no other branch), only
    ``_SIGNAL``'s words can match, each a whole run of word characters (``\\b`` on both sides), compared without
    case where lower-casing folds as ``re.I`` does (:func:`ascii_lowered`: ASCII text, and other text but for the few
    characters it names). The search tries its ~55 alternatives at every character (~18 µs a gap, on every pair of
    consecutive steps with equations); the words of the gap, looked up in a set, ~2 µs."""
    low = None if "\\" in gap or "$$" in gap else ascii_lowered(gap)
    if low is None:
        return _SIGNAL.search(gap) is not None
    return not _SIGNAL_WORDS.isdisjoint(_WORD_RUN.findall(low))


_OPERATION = re.compile(r"\b(?:subtract|subtracting|add|adding|divide|dividing|multiply|multiplying)\b", re.I)
_DIGIT = re.compile(r"\d")


def _gap_ok(gap: str) -> bool:
    """The text between two equations says the second is derived from the first: a signal (:func:`_signalled`), no
    word of two letters or more outside :data:`_GAP_WORDS`, and no label of parallel equations. The words are asked
    first (most gaps of prose fail there; the three tests decide together, in any order); a gap without a backslash
    is read as it is: :data:`_GAP_STRIP` then only turns punctuation into blanks, which leaves every run of letters
    as it was."""
    if len(gap) > MAX_GAP_CHARS or "=" in gap:
        return False
    text = _GAP_STRIP.sub(lambda m: " " + (m.group(1) or "") + " ", gap) if "\\" in gap else gap
    for w in _WORD.findall(text):
        if len(w) > 1 and w.lower() not in _GAP_WORDS:  # one letter: the unknown ("divide both sides by 2r")
            return False
    if not _signalled(gap):
        return False
    if _DIGIT.search(gap) and _OPERATION.search(gap) is None:  # "(1)", "(2)": labelled, parallel equations
        return False
    return True


_BEFORE_OP = re.compile(r"(?:[0-9)|+\-*/^=·×÷]|\\(?:cdot|times|div|left|right|frac|dfrac|sqrt|pm|mp))\s*$")
_BEFORE_LETTER = re.compile(r"[A-Za-z]\s*$")
_BEFORE_WORD = re.compile(r"(?:^|[^A-Za-z])\\?[A-Za-z]{2,}\s*$")
_AFTER_OP = re.compile(r"^\s*(?:[0-9({\[|+\-*/^=·×÷!]|\\(?:cdot|times|div|left|right|frac|dfrac|sqrt|pm|mp|cdots|"
                       r"ldots)\b)")
_AFTER_LETTER = re.compile(r"^\s*[A-Za-z]")
_AFTER_WORD = re.compile(r"^\s*\\?[A-Za-z]{2,}")


def _whole(step: str, span) -> bool:
    """The equation was extracted whole: nothing of the expression continues before or after its span."""
    s, e = span
    before, after = step[max(0, s - 40):s], step[e:e + 40]
    if _BEFORE_OP.search(before) or (_BEFORE_LETTER.search(before) and not _BEFORE_WORD.search(before)):
        return False
    if _AFTER_OP.search(after) or (_AFTER_LETTER.search(after) and not _AFTER_WORD.search(after)):
        return False
    return True


def _val(side: str, var: str, x: Fraction) -> Fraction | None:
    v = value_at(side, var, x)
    return v.exact if v is not None and v.is_exact else None


def _one_unknown(eq: Equation):
    """(lhs, rhs, var) of an equation in exactly one single-letter unknown, else None.

    A chain ``A(x) = B(x) = c`` (the unknown in a leading run of sides, constants after) reads as ``B(x) = c``.
    """
    if eq.approximate or not 2 <= len(eq.sides) <= 6:
        return None
    names = [_letters(s) for s in eq.sides]
    if any(n is None for n in names):
        return None
    union = set().union(*names)
    if len(union) != 1:
        return None
    if len(eq.sides) == 2:
        return eq.sides[0], eq.sides[1], next(iter(union))
    m = sum(1 for n in names if n)
    if any(not n for n in names[:m]) or m == len(names):
        return None
    return eq.sides[m - 1], eq.sides[-1], next(iter(union))


def _is_value(lhs: str, rhs: str, var: str) -> bool:
    """``x = 3`` or ``3 = x``: a stated value, not an equation to rewrite."""
    return lhs.strip() == var or rhs.strip() == var


def _near_root(lhs: str, rhs: str, var: str, r: Fraction) -> bool:
    """``lhs - rhs`` changes sign (or vanishes) within 1% of ``r``: ``r`` is a rounded root."""
    d = max(abs(r), Fraction(1)) / 100
    vals = []
    for x in (r - d, r, r + d):
        a, b = _val(lhs, var, x), _val(rhs, var, x)
        if a is None or b is None:
            return True
        vals.append(a - b)
    return vals[1] == 0 or (vals[0] <= 0) != (vals[2] <= 0) or vals[0] == 0 or vals[2] == 0


_DECIMAL = re.compile(r"\d?\.\d")


def pair_check(e1: Equation, e2: Equation, others: Sequence[Equation] = ()) -> str | None:
    """Why ``e2`` cannot follow from ``e1``: a root of ``e2`` that is not a root of ``e1`` (nor of ``others``)."""
    one, two = _one_unknown(e1), _one_unknown(e2)
    if one is None or two is None or one[2] != two[2]:
        return None
    (l1, r1, var), (l2, r2, _) = one, two
    if _is_value(l1, r1, var):  # "x = 3 ... x = 5": cases, not a rewrite
        return None
    p2 = _poly(l2, r2, var)
    if p2 is None or p2[0] == 0:
        return None
    d2, v2 = p2
    roots = _roots(v2, d2)
    rounded = _is_value(l2, r2, var) and bool(_DECIMAL.search(l2) or _DECIMAL.search(r2))
    for r in roots:
        a, b = _val(l1, var, r), _val(r1, var, r)
        if a is None or b is None or a == b:
            continue
        if rounded and _near_root(l1, r1, var, r):
            continue
        if any(_satisfies(o, var, r) for o in others):  # derived from another equation of the step
            continue
        p1 = _poly(l1, r1, var)
        if p1 is None and not _rational(l1, r1, var):  # radicals: squaring adds roots
            return None
        if p1 is not None and not 0 < d2 <= p1[0]:  # raised degree: squared, or multiplied by 0-able
            return None
        return (f"{l2.strip()} = {r2.strip()} does not follow from {l1.strip()} = {r1.strip()}: "
                f"{var} = {r} solves the second but not the first ({l1.strip()} = {a}, not {b})")
    if roots or d2 < 2 or _DECIMAL.search(l2 + r2):
        return None
    p1 = _poly(l1, r1, var)
    if p1 is None or p1[0] < d2:
        return None
    d1 = p1[0]
    # no rational root to show: the second's roots (complex ones too) are all roots of the first only if its
    # polynomial, when square-free, divides the first's
    q2 = _monomial(v2, d2)
    if not is_squarefree(q2) or not remainder(_monomial(p1[1], d1), q2):
        return None
    for o in others:
        got = _one_unknown(o)
        po = _poly(got[0], got[1], var) if got is not None and got[2] == var else None
        if po is not None and po[0] >= d2 and not remainder(_monomial(po[1], po[0]), q2):
            return None  # derived from another equation of the step
    return (f"{l2.strip()} = {r2.strip()} does not follow from {l1.strip()} = {r1.strip()}: "
            f"the roots of the second are not roots of the first")


def _satisfies(eq: Equation, var: str, r: Fraction) -> bool:
    got = _one_unknown(eq)
    if got is None or got[2] != var:
        return False
    a, b = _val(got[0], var, r), _val(got[1], var, r)
    return a is None or b is None or a == b


def _equations(step: str) -> list[Equation]:
    """The step's equations, from the scorer's per-step cache (it has usually read this step already)."""
    return [eq for eq, _check in step_equations(step)]


_ASCII_LETTER = re.compile(r"[A-Za-z]")


def _has_unknowns(steps: Sequence[str]) -> bool:
    """Whether an equation the loop of :func:`check_trace` reads has a side with an ASCII letter. :func:`pair_check`
    finds something only for two equations in one unknown (:func:`_one_unknown`: a letter :data:`VARIABLE` matches in
    a side of each), so a trace without any (most GSM8K traces) has nothing to check: one look at the sides instead
    of the gaps and ends of every pair. Steps that are no list or tuple (read once) leave the gate open."""
    if not isinstance(steps, (tuple, list)):
        return True
    for step in steps:
        if isinstance(step, str) and len(step) <= MAX_STEP_CHARS and "=" in step:
            for eq in _equations(step):
                for side in eq.sides:
                    if _ASCII_LETTER.search(side) is not None:
                        return True
    return False


def check_trace(steps: Sequence[str], problem: str = "") -> list[tuple[int, EquationCheck]]:
    """Failed checks for steps that rewrite an equation in one unknown into one with a root it lacks."""
    try:
        out: list[tuple[int, EquationCheck]] = []
        if not _has_unknowns(steps):
            return out
        budget = MAX_PAIRS
        prev = None  # (step, its last equation, its equations) when the step has one (whole: checked when used)
        for k, step in enumerate(steps):
            if not isinstance(step, str) or len(step) > MAX_STEP_CHARS or "=" not in step:
                prev = None
                continue
            eqs = _equations(step)
            if prev is not None and eqs and budget > 0:  # the last equation of the previous step, then this one
                p_step, p_eq, p_eqs = prev
                e2 = eqs[0]
                gap = p_step[p_eq.span[1]:] + "\n" + step[:e2.span[0]]
                if _gap_ok(gap) and _whole(p_step, p_eq.span) and _whole(step, e2.span):
                    budget -= 1
                    detail = pair_check(p_eq, e2, p_eqs[:-1])
                    if detail:
                        out.append((k, EquationCheck(e2, False, detail, (False,))))
                        prev = None
                        continue
            prev = None
            for j in range(1, len(eqs)):
                e1, e2 = eqs[j - 1], eqs[j]
                if budget <= 0:
                    return out
                if e2.span[0] < e1.span[1] or not _gap_ok(step[e1.span[1]:e2.span[0]]):
                    continue
                if not (_whole(step, e1.span) and _whole(step, e2.span)):
                    continue
                budget -= 1
                detail = pair_check(e1, e2, eqs[:j - 1])
                if detail:
                    out.append((k, EquationCheck(e2, False, detail, (False,))))
                    break
            if eqs:  # a pair with the next step needs this equation whole: asked only when the gap reads as one
                prev = (step, eqs[-1], eqs)
        return out
    except Exception:  # untrusted text: never raise
        return []
