r"""Numbers said to be written another way: ``$1$, which can be written as $3 \cdot 2^{-1} - 1$``.

A claim checker for :mod:`rewards.checks.claims` (``check_trace(steps, problem)``). A step that says a number *can be
written as* (also: *rewritten*, *expressed*, *represented as*; *is the same as*) another expression claims the two
are equal exactly — it is a rewriting, not an estimate — so the claim is refuted when both sides are numeric and
their values differ. :mod:`rewards.checks.claims.continuations` reads "$A$ simplifies to / equals $B$" but leaves a
bare number on the left alone (``$5$ becomes $6$`` is a change, not an equality); "can be written as" is an
equality whatever stands on the left. This is the one place a bare number on the left is read.

The rule, per step: two math spans (``$…$``, ``\(…\)``, ``\[…\]``) joined only by the phrase (``,`` and
``which/that/this/it``, ``also``, ``easily`` allowed); both sides evaluate with :func:`rewards.checks.arithmetic.evaluate`
and both exactly (rationals), or both inexactly (``\sqrt{12}`` and ``2\sqrt{3}``: compared to a relative 1e-9);
the claim is refuted when the values differ. No rounding is licensed — :func:`rewards.checks.arithmetic.check_equation`
would accept ``1 = 3 \cdot 2^{-1} - 1`` as a rounded whole number, a rewriting never rounds.

Left alone, on purpose: a side with a letter, a relation (``=``, ``<``, ``\equiv``), a decimal point (a decimal
may be rounded), ``%``, a degree sign, a subscript (base numerals), ``!``, ``\pi`` on one side only, or a
modulus or "approximately" next to the claim; a left side that is an operand of a longer phrase ("the product of
$3$ and $4$, which can be written as $12$": ``of``, ``and``, ``by``, ``times`` or an operator just before it); a
number in prose (the antecedent of "which" is not known there); every step over :data:`MAX_STEP_CHARS`, at most
:data:`MAX_CLAIMS` claims per step.

Measured on ProcessBench MATH right-answer completions when introduced: it refutes the labelled first error of
math-936 (``$1$, which can be written as $3 \cdot 2^{-1} - 1$``, which is 1/2) and no step of a valid solution
(``/work/shared/tools/false_refutation.py`` unchanged; no new refutation in the 406 valid MATH and 193 valid
GSM8K ProcessBench solutions, MATH-500 gold or GSM8K train).

>>> [(i, c.detail) for i, c in check_trace([r"The first term is $1$, which can be written as $3 \cdot 2^{-1} - 1$."])]
[(0, 'written as: 1 can be written as 3 \\cdot 2^{-1} - 1 is false: 3 \\cdot 2^{-1} - 1 is 1/2')]
>>> check_trace([r"$12$ can be written as $2^2 \cdot 3$, and $\sqrt{12}$ can be written as $2\sqrt{3}$."])
[]
>>> check_trace([r"the product of $3$ and $4$, which can be written as $7$"])  # "$4$" is an operand here
[]
"""

from __future__ import annotations

import re
from typing import Sequence

from rewards.checks.arithmetic import Equation, EquationCheck, Value, contains_any, evaluate
from rewards.checks.claims.gates import admits, step_claims
from rewards.parsing.values import format_value

__all__ = ["check_trace", "written_as_claims"]

MAX_STEP_CHARS = 4000
MAX_STEPS = 200
MAX_CLAIMS = 12  # claims read per step
MAX_SIDE_CHARS = 120
REL_TOL = 1e-9

_HINT_WORDS = ("written as", "expressed as", "represented as", "the same as")
_INLINE = re.compile(r"\$([^$\n]{1,300})\$|\\\((.{1,300}?)\\\)|\\\[(.{1,600}?)\\\]", re.S)
_SAYS_WRITTEN = re.compile(
    r"\s*(?:,\s*)?(?:(?:which|that|this|it)\s+)?(?:(?:can|could|may)\s+(?:also\s+|easily\s+|then\s+)?be\s+"
    r"(?:re)?(?:written|expressed|represented)\s+as|is\s+the\s+same\s+as)\s*(?::\s*)?", re.I)
# the left side is an operand of a longer phrase: "the product of $3$ and $4$, which ..."
_OPERAND_BEFORE = re.compile(
    r"(?:\b(?:by|of|and|plus|minus|times|from|with|over|into|than|between|per|multiply|multiplying|divide|"
    r"dividing|add|adding|subtract|subtracting|squared|cubed)|[-+*/×÷^=<>])\s*$", re.I)
_ALLOWED_COMMANDS = re.compile(r"\\(?:d?frac|sqrt|cdot|times|div|left|right|pi)(?![A-Za-z])|\\[,;! ]")
_REFUSED = re.compile(r"[A-Za-z=<>.%°_!]")  # after the allowed commands are taken out: a letter is a variable or
# another command (\circ, \equiv, \text, \approx, \overline, \dots), a dot a decimal, "_" a base numeral
_NEAR_REFUSED = re.compile(r"\bmod(?:ulo)?\b|\\pmod|\\bmod|\bapprox|\broughly\b|\babout\b|\bround", re.I)


def _side_value(text: str) -> Value | None:
    """The value of one side, or None when the side is refused (see the module's docstring) or not numeric."""
    if not text or len(text) > MAX_SIDE_CHARS or _REFUSED.search(_ALLOWED_COMMANDS.sub(" ", text)):
        return None
    return evaluate(text)


def _differ(a: Value, b: Value) -> bool | None:
    """True when the two values differ, False when equal, None when not comparable (one exact, one not)."""
    if a.is_exact and b.is_exact and a.exact is not None and b.exact is not None:
        return a.exact != b.exact
    if a.is_exact != b.is_exact:
        return None
    scale = max(abs(a.approx), abs(b.approx), 1e-300)
    return abs(a.approx - b.approx) > REL_TOL * scale


def _claim(a: str, b: str, vb: Value) -> EquationCheck:
    eq = Equation(sides=[a, b], values=[None, None], span=(0, 0), source="claim")
    detail = f"written as: {a} can be written as {b} is false: {b} is {format_value(vb)}"
    return EquationCheck(eq, False, detail, (False,))


def written_as_claims(step: str) -> list[EquationCheck]:
    """The refuted "can be written as" claims of one step."""
    spans = []
    for m in _INLINE.finditer(step):
        body = next(g for g in m.groups() if g is not None)
        spans.append((m.start(), m.end(), body.strip()))
        if len(spans) > 8 * MAX_CLAIMS:
            break
    out: list[EquationCheck] = []
    read = 0
    for (s1, e1, a), (s2, e2, b) in zip(spans, spans[1:]):
        if read >= MAX_CLAIMS:
            break
        if not _SAYS_WRITTEN.fullmatch(step, e1, s2):
            continue
        read += 1
        if ("\\pi" in a) != ("\\pi" in b) or _OPERAND_BEFORE.search(step, max(0, s1 - 40), s1) \
                or _NEAR_REFUSED.search(step, max(0, s1 - 40), min(len(step), e2 + 30)):
            continue
        a, b = a.rstrip(" .,;:"), b.rstrip(" .,;:")
        va, vb = _side_value(a), _side_value(b)
        if va is not None and vb is not None and _differ(va, vb):
            out.append(_claim(a, b, vb))
    return out


def _may_hold_a_claim(step: str) -> bool:
    """Cheap test: can ``step`` hold a "can be written as" claim at all?"""
    return contains_any(step, _HINT_WORDS)


def _may_hold_any(steps: Sequence[str]) -> bool:
    """The trace gate (:func:`rewards.checks.claims.gates.admits`) with :func:`_may_hold_a_claim`."""
    return admits(steps, _may_hold_a_claim)


def check_trace(steps: Sequence[str], problem: str = "") -> list[tuple[int, EquationCheck]]:
    """Every refuted "can be written as" claim of a trace, as ``(step_index, failed check)`` pairs."""
    return step_claims(steps, _may_hold_a_claim, written_as_claims, MAX_STEPS, MAX_STEP_CHARS, gate=_may_hold_any)
