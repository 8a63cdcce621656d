r"""Angles at a point between two others: "$X$ is the midpoint of segment $ST$", so ``\angle TXS`` is 180°.

A claim checker for :mod:`rewards.checks.claims` (``check_trace(steps, problem)``). When the problem puts a point
``P`` strictly inside a segment ``AB`` — "P is the midpoint of (segment / side) AB", "P is / lies on side AB",
"P is on $\overline{AB}$" — the angle ``APB`` (or ``BPA``) is a straight angle. A step that states
``\angle APB = 90^\circ`` (``m\angle``, ``°``, "degrees") with a value other than 180 is refuted; nothing else about
the figure is read.

Left alone: a point "on line AB" (it may lie outside the segment, where the angle is 0), an angle with no degree
sign (it may be in radians), any other angle, points the trace introduces itself, and every step over
:data:`MAX_STEP_CHARS`.

Measured when introduced, over ProcessBench (GSM8K and MATH, all 1,400 completions) and MATH-500 gold: one
statement found, the labelled error of math-556 ("$\angle TXS = 90^\circ$ since $X$ divides
$ST$ into two equal segments").

>>> problem = "In regular pentagon $PQRST$, $X$ is the midpoint of segment $ST$. What is the measure of angle $XQS$?"
>>> [(i, c.detail) for i, c in check_trace([r"So $\angle TXS = 90^\circ$.", r"$\angle XQS = 18^\circ$"], problem)]
[(0, 'straight angle: X lies between T and S (the problem), so angle TXS is 180 degrees, not 90')]
"""

from __future__ import annotations

import re
from typing import Sequence

from rewards.checks.arithmetic import Equation, EquationCheck

__all__ = ["check_trace", "points_between"]

MAX_STEP_CHARS = 4000
MAX_STEPS = 200
MAX_PROBLEM_CHARS = 4000
MAX_CLAIMS = 24  # angle claims read per step

_SEGMENT = r"(?:(?:the\s+)?(?:line\s+)?(?:segment|side)\s+)?\$?\s*(?:\\overline\s*\{\s*([A-Z])\s*([A-Z])\s*\}|([A-Z])\s*([A-Z]))\s*\$?"
_MIDPOINT = re.compile(r"\$?\s*([A-Z])\s*\$?\s+is\s+(?:the\s+)?midpoint\s+of\s+" + _SEGMENT)
_ON_SIDE = re.compile(r"\$?\s*([A-Z])\s*\$?\s+(?:is|lies)\s+on\s+(?:(?:the\s+)?(?:line\s+)?(?:segment|side)\s+" + _SEGMENT +
                      r"|\$?\s*\\overline\s*\{\s*([A-Z])\s*([A-Z])\s*\})")
_ANGLE = re.compile(r"(?:m\s*)?\\angle\s*\{?\s*([A-Z])\s*([A-Z])\s*([A-Z])\s*\}?\s*=\s*(\d{1,3}(?:\.\d+)?)\s*"
                    r"(?:\^\s*\{?\s*\\circ\s*\}?|°|\\text\s*\{\s*°\s*\}|\s*degrees\b)")


def points_between(problem: str) -> set[tuple[str, frozenset[str]]]:
    """``(P, {A, B})`` for each point the problem puts strictly inside a segment ``AB``."""
    out: set[tuple[str, frozenset[str]]] = set()
    if not problem or len(problem) > MAX_PROBLEM_CHARS:
        return out
    for rx in (_MIDPOINT, _ON_SIDE):
        for m in rx.finditer(problem):
            p, *ends = m.groups()
            a, b = [e for e in ends if e is not None][:2]
            if len({p, a, b}) == 3:
                out.add((p, frozenset((a, b))))
    return out


def _claim(a: str, p: str, b: str, value: str) -> EquationCheck:
    eq = Equation(sides=[f"\\angle {a}{p}{b}", value], values=[None, None], span=(0, 0), source="claim")
    return EquationCheck(eq, False, f"straight angle: {p} lies between {a} and {b} (the problem), so angle {a}{p}{b} "
                                    f"is 180 degrees, not {value}", (False,))


def check_trace(steps: Sequence[str], problem: str = "") -> list[tuple[int, EquationCheck]]:
    """Every stated angle at a point between two others that is not 180 degrees, as ``(step_index, failed check)``."""
    try:
        if not isinstance(problem, str) or "midpoint" not in problem and " on " not in problem:
            return []
        between = points_between(problem)
        if not between:
            return []
        out: list[tuple[int, EquationCheck]] = []
        for k, step in enumerate(steps[:MAX_STEPS]):
            if not isinstance(step, str) or len(step) > MAX_STEP_CHARS or "\\angle" not in step:
                continue
            for n, m in enumerate(_ANGLE.finditer(step)):
                if n >= MAX_CLAIMS:
                    break
                a, p, b, v = m.groups()
                if (p, frozenset((a, b))) in between and float(v) != 180:
                    out.append((k, _claim(a, p, b, v)))
        return out
    except Exception:  # untrusted text: a checker never raises
        return []
