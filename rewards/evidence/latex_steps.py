r"""Symbolic algebra read as checked steps (:func:`symbolic_checks`): what a trace states in letters.

The exact evaluator (:mod:`rewards.checks.arithmetic`) checks equations between numbers; an equation in letters is
"not checkable" there. A competition solution can be written in letters from its first line to its answer:
``\[ (b-a) + a + b = b + b = 2b \]``; ``\[ (x + 10) - (10 - x) \]``, then ``\[ x + 10 - 10 + x \]``, then
``\[ 2x \]``; ``\[ -r^2 + 4r + 5 = 0 \]``, then ``\[ r^2 - 4r - 5 = 0 \]``, then ``\[ (r - 5)(r + 1) = 0 \]``. Such a
trace had no checkable step at all, and the scorer abstained ("nothing checkable"). This module reads its math
segments (:func:`~rewards.evidence.latex_derivations.math_segments`) in order and verifies, on math-verify's LaTeX
parser (:mod:`rewards.checks.latex_algebra`: random rational points, a bounded tree, a lock, no ``sympify``):

* an **identity link** — two adjacent sides of one chain ``A = B = C`` that are both expressions in letters (not a
  name being defined: ``\Delta = b^2 - 4ac``, ``f(x) = …``, ``L' = …``) and agree as functions
  (:func:`~rewards.checks.latex_algebra.expressions_equal`): ``(x-3)^2 = x^2 - 6x + 9``;
* a **rewritten expression** — an expression in letters displayed on its own right after another one it equals:
  ``(x + 10) - (10 - x)`` then ``x + 10 - 10 + x``;
* a **following equation** — an equation in letters right after another one it follows from
  (:func:`~rewards.checks.latex_algebra.equation_follows`: rearranged, scaled, expanded, factored, a root chosen):
  ``5a - 40 = 0`` then ``5a = 40`` then ``a = 8``;
* a **following inequality** — an inequality right after another one it follows from by rearranging
  (:func:`~rewards.checks.latex_algebra.inequality_follows`: a side moved, both sides scaled by a positive number,
  or by a negative one with the relation turned): ``6 - x > -9`` then ``6 + 9 > x`` then ``15 > x``.

A segment split by ``\implies`` or ``\Rightarrow`` is read as consecutive lines.

Each verified link is a passed :class:`~rewards.checks.arithmetic.EquationCheck` of the step that writes its second
part (``variable`` ``"symbolic"``), so that step is checkable. Only support for the *step* is added: no value is
produced, no quantity is grounded, no answer is derived, and nothing here refutes (a link that does not verify is
left unread — two lines of a system are no falsehood). A restatement (the same text again) is no link. An
internal error is counted and logged (:func:`~rewards.checks.arithmetic.errors.internal_error`; raised under
``RAFS_STRICT``), and the links read before it stand.

Only traces in which nothing else is checkable are read (:meth:`DataflowBuilder.build
<rewards.evidence.builder.DataflowBuilder.build>`): each parse costs milliseconds, and a trace with a checked
computation is judged by it already.

Bounds: at most :data:`MAX_LINKS` comparisons per trace and :data:`MAX_PARSE_CHARS` characters handed to the parser,
the last :data:`MAX_SEGMENTS` math segments; a part longer than
:data:`~rewards.checks.latex_algebra.MAX_CHARS` is not read. Never raises on untrusted text.

>>> [(t, c.equation.sides, c.ok) for t, c in symbolic_checks(["\\[ (x + 10) - (10 - x) \\]", "\\[ x + 10 - 10 + x \\]",
...                                                           "\\[ 2x \\]"])]
[(1, ['(x + 10) - (10 - x)', 'x + 10 - 10 + x'], True), (2, ['x + 10 - 10 + x', '2x'], True)]
>>> symbolic_checks(["\\[ (x + 1)^2 = x^2 + 1 \\]"])
[]
"""

from __future__ import annotations

import re
from typing import Sequence

from rewards.checks.arithmetic import Equation, EquationCheck
from rewards.checks.arithmetic.errors import internal_error
from rewards.checks.latex_algebra import (MAX_CHARS, Verdict, equation_follows, expressions_equal,
                                          inequality_follows, split_top_level)
from rewards.evidence.latex_derivations import math_segments, unboxed

__all__ = ["MAX_LINKS", "MAX_PARSE_CHARS", "MAX_SEGMENTS", "symbolic_checks"]

MAX_LINKS = 6
"""Comparisons (identity, rewrite or equation links) per trace; each parses one or two parts (about 5-50 ms, cached)."""
MAX_PARSE_CHARS = 400
"""Characters of parts handed to the parser per trace."""
MAX_SEGMENTS = 80
"""Math segments read, from the end of the trace (the answer's end is where a derivation lands)."""

_LETTER = re.compile(r"(?<![\\A-Za-z])[A-Za-z](?![A-Za-z])")
_COMMAND = re.compile(r"\\[A-Za-z]+")
_OPERATION = re.compile(r"[-+*/^()]|\\(?:cdot|times|div|frac|dfrac|tfrac|sqrt)(?![A-Za-z])|\d\s*[A-Za-z(]|[A-Za-z)]\s*[A-Za-z(]")
_NAME = re.compile(r"\s*(?:\\?[A-Za-z]+(?:_\{?\w+\}?)?'*(?:\s*\([^()]*\))?|\\[A-Za-z]+\s*\{[^{}]*\})\s*")
r"""A name being defined or evaluated: ``x``, ``\Delta``, ``a_1``, ``L'``, ``f(x)``, ``\text{Area}``."""
_PIECEWISE = re.compile(r"\||\\[lr]vert|\\(?:max|min|lfloor|lceil|sgn|operatorname)(?![A-Za-z])")
r"""An absolute value, a maximum, a floor: piecewise, so agreement at a few random points is no identity (``|a - b|``
and ``b - a`` agree wherever ``a < b``)."""
_TRAILING = " .,;:"
_TAG = re.compile(r"\\(?:tag|label)\s*\{[^{}]{0,20}\}|\\(?:quad|qquad)(?![A-Za-z])")
_MENTION = re.compile(r"\s*(?:-?\d+(?:\.\d+)?|\\?[A-Za-z]+(?:_\{?\w+\}?)?'*(?:\s*\([^()]{0,12}\))?)\s*")
_IMPLIES = re.compile(r"\\(?:implies|Rightarrow|Longrightarrow|therefore)(?![A-Za-z])|⇒|⟹")
_RELATION = re.compile(r"\\(?:leq?|geq?|lt|gt)(?![A-Za-z])|[<>≤≥]")


def _part(text: str) -> str:
    """One side as read: unboxed, trailing punctuation off, and one pair of brackets around the whole side removed
    (``(a^2 + ab^{15} + b^{19})`` costs the parser ten times what the same sum does without them)."""
    part = _TAG.sub(" ", unboxed(text)).strip().strip(_TRAILING).strip()
    if len(part) > 2 and part[0] == "(" and part[-1] == ")" and _closes_at_end(part):
        part = part[1:-1].strip()
    return part


def _closes_at_end(part: str) -> bool:
    """The bracket that opens ``part`` closes at its last character (``(a + b)`` yes, ``(a)(b)`` no)."""
    depth = 0
    for k, c in enumerate(part):
        depth += (c == "(") - (c == ")")
        if depth == 0:
            return k == len(part) - 1
    return False


def _expression(part: str) -> bool:
    """An expression in letters that computes something: a letter that is no command, an operation, not a bare name."""
    if not part or len(part) > MAX_CHARS or _NAME.fullmatch(part) or _PIECEWISE.search(part):
        return False
    return bool(_LETTER.search(_COMMAND.sub(" ", part))) and bool(_OPERATION.search(part))


def _same(a: str, b: str) -> bool:
    return "".join(a.split()) == "".join(b.split())


def _check(sides: list[str], detail: str) -> EquationCheck:
    eq = Equation(sides=list(sides), values=[None] * len(sides), span=(0, 0), source="latex",
                  relations=("=",) * (len(sides) - 1))
    return EquationCheck(eq, True, detail, (True,) * (len(sides) - 1), variable="symbolic")


latex_check = _check
"""A passed check of LaTeX sides verified equal (public for :mod:`rewards.evidence.substitutions`)."""


_APPLICATION = re.compile(r"(?<![\\A-Za-z])[fghpqFGPQ](?:\^\s*\{\s*-1\s*\})?\s*\(([^()]{1,40})\)")
r"""A function applied: ``f(0)``, ``g(-x)``, ``f^{-1}(2)`` (a function-like letter, an argument without brackets)."""
_UNKNOWNS = (r"\xi", r"\eta", r"\zeta", r"\mu")
r"""Letters put for the applications of a pair of parts (a symbol the parser reads, which a solution rarely writes)."""


def _as_unknowns(*parts: str) -> tuple[str, ...] | None:
    r"""``parts`` with each distinct function application replaced by one unknown, the same in every part
    (``f(x) \cdot (-g(x))`` and ``-f(x) g(x)`` -> ``\xi \cdot (-\eta)`` and ``-\xi \eta``): what holds for
    every value of the unknowns holds for every function. ``None`` when there are more applications than
    :data:`_UNKNOWNS` or a part already writes one of them."""
    if not any("(" in p for p in parts):
        return parts
    if any(u in p for u in _UNKNOWNS for p in parts):
        return None
    names: dict[str, str] = {}

    def unknown(m: re.Match) -> str:
        key = "".join(m.group(0).split())
        if key not in names:
            if len(names) == len(_UNKNOWNS):
                raise _TooMany
            names[key] = _UNKNOWNS[len(names)]
        return " " + names[key] + " "

    out = list(parts)
    try:
        for _ in range(3):  # f(f(2)): the inner application first
            out = [_APPLICATION.sub(unknown, p) for p in out]
    except _TooMany:
        return None
    return tuple(out)


def _compare(check, a: str, b: str) -> Verdict:
    """``check(a, b)`` with the function applications of both read as unknowns (:func:`_as_unknowns`)."""
    pair = _as_unknowns(a, b)
    return check(*pair) if pair is not None else Verdict("undecided", "more function applications than unknowns")


class _TooMany(Exception):
    """More distinct function applications than unknowns."""


class _Budget:
    """Comparisons and parsed characters left for one trace."""

    __slots__ = ("links", "chars")

    def __init__(self) -> None:
        self.links, self.chars = MAX_LINKS, MAX_PARSE_CHARS

    def spend(self, *parts: str) -> bool:
        self.links -= 1
        self.chars -= sum(len(p) for p in parts)
        return self.links >= 0 and self.chars >= 0


def _segments(steps: Sequence[str]) -> list[tuple[int, list[str]]]:
    """``(step, parts)`` of every math segment in order (``parts``: the segment split at top-level ``=``)."""
    out = []
    for t, text in enumerate(steps):
        if not isinstance(text, str) or ("\\" not in text and "$" not in text):
            continue
        for segment in math_segments(text):
            for piece in _IMPLIES.split(segment):  # "2x \geq 6 \implies x \geq 3": two lines of a derivation
                parts = [_part(p) for p in split_top_level(piece)]
                if any(parts):
                    out.append((t, parts))
    return out[-MAX_SEGMENTS:]


def _identity_links(step: int, parts: list[str], budget: _Budget, out: list) -> None:
    """Adjacent sides of one chain that are both expressions in letters and agree as functions."""
    for a, b in zip(parts, parts[1:]):
        if _expression(a) and _expression(b) and not _same(a, b):
            if not budget.spend(a, b):
                return
            verdict = _compare(expressions_equal, a, b)
            if verdict.verified:
                out.append((step, _check([a, b], f"{a} = {b}: an identity ({verdict.reason})")))


def symbolic_checks(steps: Sequence[str]) -> list[tuple[int, EquationCheck]]:
    """The verified symbolic links of a trace, as ``(step, passed check)`` pairs (module docstring). Never raises."""
    out: list[tuple[int, EquationCheck]] = []
    budget = _Budget()
    previous: tuple[str, ...] | None = None  # the segment before: ("expression" | "equation", its text, its sides)
    try:
        for step, parts in _segments(steps):
            if budget.links <= 0 or budget.chars <= 0:
                break
            if len(parts) >= 2:
                _identity_links(step, parts, budget, out)
            current = _current(parts)
            if current is None and len(parts) == 1 and _MENTION.fullmatch(parts[0]):
                continue  # "add $x$ to both sides", "divide by $-1$": a name or a number mentioned, no line of its own
            if current is not None and previous is not None and previous[0] == current[0] \
                    and not _same(previous[1], current[1]):
                _link(step, previous, current, budget, out)
            previous = current
    except Exception as exc:  # noqa: BLE001 - a bug here must not crash a reward: counted, logged, raised when strict
        internal_error("symbolic_checks", steps, exc)
        return out
    return out


def _current(parts: list[str]) -> tuple[str, ...] | None:
    """The segment as a link's end: an expression in letters on its own, or an equation ``L = R`` with a letter."""
    if len(parts) == 1:
        if _RELATION.search(parts[0]):
            return ("inequality", parts[0], parts[0]) if len(parts[0]) <= MAX_CHARS and not \
                _PIECEWISE.search(parts[0]) and _LETTER.search(_COMMAND.sub(" ", parts[0])) else None
        return ("expression", parts[0], parts[0]) if _expression(parts[0]) else None
    if len(parts) == 2 and all(parts) and len(parts[0]) + len(parts[1]) <= MAX_CHARS \
            and not _PIECEWISE.search(parts[0] + parts[1]) and _LETTER.search(_COMMAND.sub(" ", parts[0] + " " + parts[1])):
        return "equation", f"{parts[0]} = {parts[1]}", parts[0], parts[1]
    return None


def _link(step: int, previous: tuple[str, ...], current: tuple[str, ...], budget: _Budget, out: list) -> None:
    """A rewritten expression or a following equation, checked and recorded on ``step``."""
    if current[0] == "equation" and _NAME.fullmatch(previous[2]) and _NAME.fullmatch(current[2]) \
            and not _same(previous[2], current[2]):
        return  # two names given values (``a = 2``, then ``b = 5``): a list of values, not a derivation
    if not budget.spend(previous[1], current[1]):
        return
    if current[0] == "expression":
        verdict = _compare(expressions_equal, previous[1], current[1])
        if verdict.verified:
            out.append((step, _check([previous[1], current[1]], f"{previous[1]} rewritten as {current[1]} "
                                                                 f"({verdict.reason})")))
        return
    if current[0] == "inequality":
        verdict = _compare(inequality_follows, previous[1], current[1])
        if verdict.verified:
            out.append((step, _check([current[1]], f"{current[1]} follows from {previous[1]} ({verdict.reason})")))
        return
    verdict = _compare(equation_follows, previous[1], current[1])
    if verdict.verified:
        out.append((step, _check(list(current[2:]),
                                 f"{current[1]} follows from {previous[1]} ({verdict.reason})")))


# what rewards.evidence.symbolic_answers reads of the same parts, under public names
IMPLIES, LETTER, COMMAND, MENTION = _IMPLIES, _LETTER, _COMMAND, _MENTION
side_part, is_expression, passed_check, compare_parts = _part, _expression, _check, _compare
closes_at_end = _closes_at_end
