r"""Values of defined functions: ``f(2) = …`` checked against the definition ``f(x) = …`` stated earlier.

A claim checker for :mod:`rewards.checks.claims` (``check_trace(steps, problem)``).

The rule
    A *definition* is an equation whose left side is exactly ``NAME(VAR)`` — one letter applied to one letter,
    ``f(x)``, ``g(t)``, ``P(x)`` — and whose next side is an expression in ``VAR`` alone that
    :func:`rewards.checks.arithmetic.evaluate` can read once a number is put in its place (``f(x) = 3x^2 - 5x + 2``,
    ``g(t) = \frac{t+1}{t-1}``). Definitions are read from the problem and from every step, in order. A later
    equation with a side that calls a defined function at a number (``f(2)``, ``f(-1)``, ``f(\frac{1}{2})``,
    ``f(2) + f(3)``, ``f(g(2))``) has that call replaced by the definition evaluated at the argument (the argument
    substituted textually, in parentheses, as :mod:`rewards.checks.identities` does — nothing is ever ``eval``-ed); the
    side's value must then equal the first evaluable side the equation equates it with (exactly; a written
    decimal may be rounded or truncated to its places; an irrational value within 1e-9). ``f(2) = 3(2)^2 + 5(2)
    + 2 = 24`` for ``f(x) = 3x^2 - 5x + 2`` is false at its first link — the substitution is wrong while the
    arithmetic after it is right, which :mod:`rewards.checks.arithmetic` cannot see.

Parameters
    A definition may carry up to three other letters (``p(x) = x^6 + 3ax^5 + …``). A value of it is checked only
    when the side is one call at a number and the next side is written in exactly those letters (``p(1) = 12a^2 +
    12a + 12``): both are evaluated at three rational points of the parameters and refuted when they differ at
    every one. ``p(1) = 5`` (a given) and ``p(1) = a + 2 + c`` (a parameter already solved) are left alone.

Left alone, on purpose
    * piecewise functions (a text with ``cases``/"piecewise", or a definition followed by "if", "when",
      "otherwise", "for x <" or an inequality): the branch a number falls in is not read;
    * a name defined twice by different expressions before the claim (a redefinition, a fixed-point condition
      ``f(x) = x``, a generic form ``f(x) = ax + b``): which one a call means is not known, so the name is dropped
      from then on; a condition without the variable (``f(x) = 0``) is not a definition and changes nothing;
    * a condition, not a definition: ``f(x) = 0``, ``f(n) = n`` (a bare variable), "such that / solve / satisfies
      / roots of / setting ``f(x) = 2x``";
    * a name the problem uses with a non-trivial argument (``f(x + y) = f(x)f(y)``, ``f(2x)``, ``f(1/x)``): a
      functional equation, so any ``f(x) = …`` in the trace is a model's conjecture or a condition — the name is
      never checked (a gold MATH-500 solution writes "such that ``f(n) = n``" for exactly such an ``f``);
    * inverses and derivatives (``f^{-1}(2)``, ``f'(2)``), compositions that define (``h(x) = f(g(x))``), the
      letters ``i`` and ``e`` anywhere in a definition (the imaginary unit, Euler's number), claims inside the
      problem (givens), a value written before its definition, ``≈`` chains, and every step over
      ``MAX_STEP_CHARS``.

Substitution in prose ("substituting ``x = 3`` into ``2x^2 + 1`` gives 19") is not read: ProcessBench MATH has 12
labelled error steps that substitute a value in words, none of them a wrong substitution into an explicit
one-variable expression (the errors are elsewhere in those steps), against 90 correct steps of the same shape.

Measured with ``benchmarks/claim_checkers.py rewards.checks.claims.substitution:check_trace`` when introduced: ProcessBench MATH
+2 earliest errors found (F1 0.2027 -> 0.2081), 0 correct traces flagged, 0 hits lost, 1 further flag after the
labelled error (a true slip); GSM8K no change (no function notation); 0 gold solutions newly flagged (GSM8K train
7,473, MATH-500 500); 0.05 ms/trace (GSM8K gold) and 0.2 ms/trace (MATH-500 gold) for the checker alone. The
shape is rare (82 of 1000 MATH rows define a function; 10 labelled error steps evaluate one at a number), so
recall is small by construction; precision is the point.

>>> steps = ["Let $f(x) = 3x^2 - 5x + 2$.", r"Then \( f(2) = 3(2)^2 + 5(2) + 2 = 24 \)."]
>>> [(i, c.detail) for i, c in check_trace(steps, "")]
[(1, 'f(2) = 3(2)^2 + 5(2) + 2 is false: f(x) = 3x^2 - 5x + 2 gives f(2) = 4, not 24')]
>>> check_trace(["$f(2) = 3(2)^2 - 5(2) + 2 = 4$ and $f(-1) = 10$."], "Let $f(x) = 3x^2 - 5x + 2$.")
[]
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Sequence

from rewards.checks.arithmetic import Equation, EquationCheck, Value, evaluate, extract_equations
from rewards.checks.claims.gates import admits
from rewards.checks.identities import values_equal as _same
from rewards.parsing.values import format_value as _fmt

__all__ = ["check_trace", "definitions_and_claims"]

MAX_STEP_CHARS = 4000
MAX_PROBLEM_CHARS = 6000
MAX_SIDE_CHARS = 300
MAX_EQUATIONS = 80  # equations read per text
MAX_CALLS = 8  # calls replaced per side
MAX_NEST = 4  # f(g(h(2))) depth

_PREFILTER = re.compile(r"(?<![\\A-Za-z])[A-Za-z]\s*\(")
_PREFILTER_SCAN = re.compile(r"[A-Za-z](?<![\\A-Za-z][A-Za-z])\s*\(")
""":data:`_PREFILTER` with its lookbehind after the letter it guards (a letter not preceded by a letter or a backslash
is a letter whose two characters up to it are not such a pair): the same texts match, and the regex engine skips to
letters instead of trying each position; :func:`_may_define_or_claim` runs it only on text with a bracket."""


def _may_define_or_claim(text: str) -> bool:
    """Whether ``text`` can hold a definition or a claim at all: ``_PREFILTER.search(text) is not None``, cheaply."""
    return "(" in text and _PREFILTER_SCAN.search(text) is not None


_DEF_LHS = re.compile(r"^\s*([A-Za-z])\s*\(\s*([A-Za-z])\s*\)\s*$")
_TEXT = re.compile(r"\\(?:text|mathrm|mbox|textbf|operatorname)\s*\{[^{}]*\}")
_COMMAND = re.compile(r"\\[A-Za-z]+")
_NAME = re.compile(r"[A-Za-z]")
_TOKEN = re.compile(r"\\[A-Za-z]+|[A-Za-z]")
_UNSAFE = re.compile(r"\\(?:circ|star|ast|oplus|otimes|diamond|bullet|nabla|sum|prod|int|lim|pm|mp|cdots|ldots|dots)"
                     r"\b|°|[<>≤≥']|\\(?:le|ge|leq|geq|lt|gt|neq|ne)\b|\.\.\.")
_PIECEWISE_TEXT = re.compile(r"cases|piecewise|\\left\s*\\\{", re.I)
# Possessive blanks (\s*+): a blank run is not re-split among the \s* (that took 45 ms on 60 blanks).
_CONDITION_AFTER = re.compile(
    r"^\s*+(?:\$|\\\)|\\\])?\s*+[,;]?\s*+(?:\\(?:text|mbox|quad|qquad)\s*+\{?\s*+)*+\s*+"
    r"(?:if|when|whenever|otherwise|for\s*+\$?\s*+\\?[A-Za-z]+\s*+(?:[<>≤≥]|\\[lg]e|\\[lg]eq|\\[lg]t|\\neq|\\in|\\ne))",
    re.I)
_RELATION_NEAR = re.compile(r"[<>≤≥]|\\(?:le|ge|leq|geq|lt|gt)\b")
# a call of a one-letter function at an argument without letters (innermost: no parentheses inside); the blanks
# after "(" are taken whole (or all but the one an argument of blanks is made of): linear in a run of them
_CALL = re.compile(r"(?<![\\A-Za-z'])([A-Za-z])\s*(\(|\\left\s*\()\s*(?:(?!\s)|(?=\s(?:\\right\s*)?\)))"
                   r"([^()A-Za-z]{1,40}|\\frac\s*\{[^{}]{1,20}\}\s*"
                   r"\{[^{}]{1,20}\}|-?\s*\\sqrt\s*\{[^{}]{1,20}\}|\\dfrac\s*\{[^{}]{1,20}\}\s*\{[^{}]{1,20}\})"
                   r"\s*(?:\\right\s*)?\)")
_DECIMAL_LITERAL = re.compile(r"^\s*-?\d+\.(\d{1,12})\s*$")
_POINTS = (Fraction(3, 7), Fraction(-5, 3), Fraction(11, 2))
_PARAM_POINTS = (Fraction(2, 5), Fraction(-7, 3), Fraction(13, 6), Fraction(5, 11))
_RESERVED = frozenset({"i", "e"})
_FUNCTIONAL = re.compile(r"(?<![\\A-Za-z])([A-Za-z])\s*\(([^()]{1,40})\)")
_CONDITION_BEFORE = re.compile(
    r"(?:such\s+that|for\s+which|solve|solving|satisf\w*|roots?\s+of|zeros?\s+of|solutions?\s+(?:of|to)"
    r"|intersect\w*|set(?:ting)?)\W{0,12}$", re.I)
MAX_PARAMS = 3


def _letters(expr: str) -> set[str]:
    """The one-letter names of ``expr`` (``3ax^5`` has ``a`` and ``x``; ``\\sqrt``, ``\\text{..}`` have none)."""
    return set(_NAME.findall(_COMMAND.sub(" ", _TEXT.sub(" ", expr))))


def _subst(expr: str, values: dict[str, str]) -> str:
    """``expr`` with every one-letter name in ``values`` replaced by its (parenthesised) text; commands kept."""
    return _TOKEN.sub(lambda m: values.get(m.group(0), m.group(0)), _TEXT.sub(" ", expr))


def _at(expr: str, var: str, arg: str) -> Value | None:
    return evaluate(_subst(expr, {var: f"({arg})"}))


def _lit(q: Fraction) -> str:
    return f"({q.numerator}/{q.denominator})" if q.denominator != 1 else f"({q.numerator})"


def _definition(eq: Equation) -> tuple | None | bool:
    """``(name, var, rhs, parameters)`` for a definition; False for ``NAME(VAR) = …`` that is not a usable one (it makes the
    name ambiguous); None for any other equation (or a condition without the variable)."""
    if len(eq.sides) < 2:
        return None
    m = _DEF_LHS.match(eq.sides[0])
    if not m:
        return None
    name, var = m.groups()
    rhs = eq.sides[1]
    if name == var:
        return None
    letters = _letters(rhs)
    if var not in letters or rhs.strip() == var:
        return None  # f(x) = 0, f(x) = 7, f(n) = n: a condition, not a definition
    params = frozenset(letters - {var})
    if (len(rhs) > MAX_SIDE_CHARS or len(params) > MAX_PARAMS or (letters & _RESERVED) or _UNSAFE.search(rhs)
            or re.search(r"[A-Za-z]\s*\(", _TEXT.sub(" ", rhs).replace("\\left(", "("))):
        return False
    if _at_all(rhs, var, _lit(_POINTS[0]), params, 0) is None:
        return False
    return name, var, rhs, params


def _at_all(expr: str, var: str, arg: str, params: frozenset, k: int) -> Value | None:
    """``expr`` with ``var`` replaced by ``arg`` and each parameter by the ``k``-th test point."""
    values = {p: _lit(_PARAM_POINTS[(k + j) % len(_PARAM_POINTS)]) for j, p in enumerate(sorted(params))}
    values[var] = f"({arg})"
    return evaluate(_subst(expr, values))


def _agree(a: tuple, b: tuple) -> bool:
    if a[2] != b[2]:
        return False
    for k, x in enumerate(_POINTS):
        p, q = _at_all(a[1], a[0], _lit(x), a[2], k), _at_all(b[1], b[0], _lit(x), b[2], k)
        if p is None or q is None or not _same(p, q):
            return False
    return True


def _substitute(side: str, defs: dict) -> tuple[str, Value | None, bool]:
    """The side with every call of a defined function replaced by its value: (text, value, any call replaced).
    The value is None when a call cannot be replaced (an unknown name, a parameter, an unreadable argument)."""
    text = side
    replaced = False
    for _ in range(MAX_CALLS * MAX_NEST):
        m = _CALL.search(text)
        if not m:
            break
        name, arg = m.group(1), m.group(3)
        if defs.get(name) is None or defs[name][2]:
            return text, None, replaced
        var, rhs, _ = defs[name]
        a = evaluate(arg)
        if a is None:
            return text, None, replaced
        v = _at(rhs, var, _lit(a.exact)) if a.is_exact else _at(rhs, var, arg)
        if v is None:
            return text, None, replaced
        replaced = True
        if m.start() == 0 and m.end() == len(text.rstrip()) and not v.is_exact:
            return text, v, True  # the whole side is one call with an irrational value
        if not v.is_exact:
            return text, None, replaced
        text = text[:m.start()] + _lit(v.exact) + text[m.end():]
    else:
        return text, None, replaced
    if re.search(r"(?<![\\A-Za-z])[A-Za-z]\s*\(", _TEXT.sub(" ", text)):
        return text, None, replaced
    return text, evaluate(text), replaced


def _matches(true: Value, side: str, claimed: Value) -> bool:
    if _same(true, claimed):
        return True
    m = _DECIMAL_LITERAL.match(side)
    if m:  # a written decimal may be the value rounded or truncated to its places
        return abs(true.approx - claimed.approx) < 10.0 ** -len(m.group(1)) * 1.000001
    return False


def _failed(eq: Equation, k: int, j: int, fname: str, d: tuple, true: str, claimed: str) -> EquationCheck:
    side, other = eq.sides[k].strip(), eq.sides[j].strip()
    claim = f"{side} = {other}" if j > k else f"{other} = {side}"
    detail = f"{claim} is false: {fname}({d[0]}) = {d[1].strip()} gives {side} = {true}, not {claimed}"
    lo, hi = min(j, k), max(j, k)
    return EquationCheck(eq, False, detail, tuple(False if lo <= p < hi else None for p in range(len(eq.sides) - 1)))


def _parametric(eq: Equation, k: int, defs: dict) -> EquationCheck | None:
    """``p(1) = 12a^2 + 12a + 12`` for ``p(x)`` with parameter ``a``: both sides compared as functions of the
    parameters, only when the side is one call and the next side is in exactly the definition's parameters."""
    side = eq.sides[k].strip()
    m = _CALL.fullmatch(side)
    if not m or k + 1 >= len(eq.sides) or defs.get(m.group(1)) is None:
        return None
    var, rhs, params = defs[m.group(1)]
    other = eq.sides[k + 1]
    if not params or _CALL.search(other) or _UNSAFE.search(other) or len(other) > MAX_SIDE_CHARS:
        return None
    if _letters(other) != params or re.search(r"[A-Za-z]\s*\(", other):
        return None
    a = evaluate(m.group(3))
    if a is None or not a.is_exact:
        return None
    first = None
    for n in range(len(_POINTS)):
        p, q = _at_all(rhs, var, _lit(a.exact), params, n), _at_all(other, var, "0", params, n)
        if p is None or q is None or _same(p, q):
            return None
        first = first or (n, p, q)
    n, p, q = first
    at = ", ".join(f"{x} = {_PARAM_POINTS[(n + j) % len(_PARAM_POINTS)]}" for j, x in enumerate(sorted(params)))
    return _failed(eq, k, k + 1, m.group(1), defs[m.group(1)], f"{_fmt(p)} at {at}", _fmt(q))


def _check_equation(eq: Equation, defs: dict) -> EquationCheck | None:
    if eq.approximate or len(eq.sides) < 2 or any(len(s) > MAX_SIDE_CHARS for s in eq.sides):
        return None
    n = len(eq.sides)
    for k, side in enumerate(eq.sides):
        if not _CALL.search(side) or _UNSAFE.search(side):
            continue
        check = _parametric(eq, k, defs)
        if check is not None:
            return check
        text, value, replaced = _substitute(side, defs)
        if not replaced or value is None:
            continue
        # the first evaluable side the equation equates it with: the next one, else the previous one
        for j in list(range(k + 1, n)) + list(range(k - 1, -1, -1)):
            other = eq.sides[j]
            if _CALL.search(other):
                break  # another call between: not "the first evaluable value"
            w = eq.values[j] if j < len(eq.values) else None
            if w is None:
                if j > k and _letters(other):
                    break  # an expression in letters comes first: not checked
                continue
            if not _matches(value, other, w):
                fname = _CALL.search(side).group(1)
                return _failed(eq, k, j, fname, defs[fname], _fmt(value), _fmt(w))
            break
    return None


def _piecewise_or_conditional(text: str, eq: Equation) -> bool:
    after = text[eq.span[1]:eq.span[1] + 60]
    if _CONDITION_AFTER.search(after) or _RELATION_NEAR.search(after[:25]):
        return True
    before = text[max(0, eq.span[0] - 30):eq.span[0]]
    return bool(re.search(r"\b(?:if|when|for)\b[^.]{0,25}(?:[<>≤≥]|\\[lg]e)", before))


def definitions_and_claims(steps: Sequence[str], problem: str = "") -> list[tuple[int, EquationCheck]]:
    """The refuted function values of a trace (see the module docstring)."""
    out: list[tuple[int, EquationCheck]] = []
    defs: dict[str, tuple[str, str] | None] = {}  # name -> (var, rhs); None: ambiguous, never checked

    def learn(text: str, equations: list[Equation]) -> None:
        for eq in equations:
            d = _definition(eq)
            if d is None:
                continue
            name = _DEF_LHS.match(eq.sides[0]).group(1)
            if name in defs and defs[name] is None:
                continue
            if d is False or piecewise or _piecewise_or_conditional(text, eq):
                defs[name] = None
                continue
            if _CONDITION_BEFORE.search(text[max(0, eq.span[0] - 40):eq.span[0]]):
                continue  # "such that f(x) = 2x": a condition on x, not a definition
            entry = d[1:]
            if name in defs and (defs[name] is None or not _agree(defs[name], entry)):
                defs[name] = None
            else:
                defs.setdefault(name, entry)

    texts = [problem[:MAX_PROBLEM_CHARS] if isinstance(problem, str) else ""]
    for i, text in enumerate([texts[0]] + list(steps)):
        if not isinstance(text, str) or len(text) > MAX_STEP_CHARS and i > 0 or not _may_define_or_claim(text):
            continue
        piecewise = bool(_PIECEWISE_TEXT.search(text))
        equations = sorted(extract_equations(text), key=lambda e: e.span)[:MAX_EQUATIONS]
        if i == 0:
            for m in _FUNCTIONAL.finditer(text):  # f(x + y), f(2x), f(1/x): a functional equation, f is unknown
                arg = m.group(2).strip()
                if _letters(arg) and not re.fullmatch(r"[A-Za-z]", arg):
                    defs[m.group(1)] = None
            learn(text, equations)
            continue
        for eq in equations:
            live = {k: v for k, v in defs.items() if v is not None}
            if live:
                check = _check_equation(eq, live)
                if check is not None:
                    out.append((i - 1, check))
                    break
            learn(text, [eq])
    return out


def _may_hold_any(steps: Sequence[str]) -> bool:
    """The trace gate (:func:`rewards.checks.claims.gates.admits`) with :func:`_may_define_or_claim`."""
    return admits(steps, _may_define_or_claim)


def check_trace(steps: Sequence[str], problem: str = "") -> list[tuple[int, EquationCheck]]:
    """Every refuted value of a defined function in a trace, as ``(step_index, failed check)`` pairs."""
    try:
        if not _may_hold_any(steps):  # claims are read in steps only (the problem may only define)
            return []
        return definitions_and_claims(steps, problem)
    except Exception:  # untrusted text: never raise into the reward
        return []
