r"""Angles said to be a full, half or quarter turn: "we are looking at $180^\circ$. This angle is equivalent to a full
rotation" (a full rotation is 360°).

A claim checker for :mod:`rewards.checks.claims` (``check_trace(steps, problem)``). A degree measure said to be (equal
/ equivalent to, to correspond to, to represent, to make) a full or complete rotation, turn or revolution is 360°,
a half one 180°, a quarter one 90°; the claim is refuted when the measure differs. The measure is written in the
claim (``$270^\circ$ is a full rotation``) or, when the claim's subject is "this angle", "that angle", "the angle"
or "it" opening a sentence, it is the one degree measure of the sentence before (none, or two or more: not read —
"rotate by 90°, then by 90° again: this angle is a half turn" means their sum).

Measured when introduced, over ProcessBench (GSM8K and MATH, all 1,400 completions) and MATH-500 gold: one claim
found, the labelled error of math-547 ("$180^\circ$. This angle is equivalent to a full rotation").

>>> [(i, c.detail) for i, c in check_trace([r"We look at $180^\circ$. This angle is equivalent to a full rotation."])]
[(0, 'turns: 180 degrees is said to be a full rotation, which is 360 degrees')]
>>> check_trace([r"An angle of $180^\circ$ is a half turn, and $90^\circ$ is a quarter turn."])
[]
"""

from __future__ import annotations

import re
from typing import Sequence

from rewards.checks.arithmetic import Equation, EquationCheck, contains_any
from rewards.checks.claims.gates import admits, step_claims

__all__ = ["check_trace"]

MAX_STEP_CHARS = 4000
MAX_STEPS = 200
MAX_CLAIMS = 12  # claims read per step

_DEGREES = r"(\d{1,4})\s*(?:\^\s*\{?\s*\\circ\s*\}?|°|\s*degrees?\b)"
_CLAIM = re.compile(
    r"(?:(?P<literal>" + _DEGREES + r")\s*\$?\s*(?:\\\))?|(?P<pronoun>(?:(?<=[.!?]\s)|^)(?:this|that|the)\s+angle|"
    r"(?:(?<=[.!?]\s)|^)it))\s+(?:is|equals|is\s+equal\s+to|is\s+equivalent\s+to|corresponds\s+to|represents|makes)\s+"
    r"(?:exactly\s+)?(?:a|one)\s+(?P<kind>full|complete|half|quarter)[\s-]+(?:rotation|turn|revolution)", re.I | re.M)
_DEGREE = re.compile(_DEGREES, re.I)
_TURN = {"full": 360, "complete": 360, "half": 180, "quarter": 90}
_HINT_WORDS = ("rotation", "turn", "revolution")


def _previous_sentence_degrees(step: str, at: int) -> int | None:
    """The one degree measure of the sentence before position ``at`` (None when it has none or several)."""
    end = max(step.rfind(". ", 0, at), step.rfind("? ", 0, at), step.rfind("! ", 0, at))
    if end < 0:
        return None
    start = max(step.rfind(". ", 0, end), step.rfind("? ", 0, end), step.rfind("! ", 0, end), step.rfind("\n", 0, end))
    found = _DEGREE.findall(step, start + 1, end + 1)
    return int(found[0]) if len(found) == 1 else None


def _claim(value: int, kind: str, want: int) -> EquationCheck:
    eq = Equation(sides=[f"{value}°", f"{want}°"], values=[None, None], span=(0, 0), source="claim")
    return EquationCheck(eq, False, f"turns: {value} degrees is said to be a {kind} rotation, which is {want} degrees",
                         (False,))


def _may_hold_a_claim(step: str) -> bool:
    """Cheap test: can ``step`` hold a turn claim at all?"""
    return contains_any(step.lower(), _HINT_WORDS)


def _may_hold_any(steps: Sequence[str]) -> bool:
    """The trace gate (:func:`rewards.checks.claims.gates.admits`) with :func:`_may_hold_a_claim`."""
    return admits(steps, _may_hold_a_claim)


def _turn_claims(step: str) -> list[EquationCheck]:
    """The failed checks of one step: each degree measure it says is a full, half or quarter turn that it is not."""
    out = []
    for n, m in enumerate(_CLAIM.finditer(step)):
        if n >= MAX_CLAIMS:
            break
        value = int(_DEGREE.match(m.group("literal")).group(1)) if m.group("literal") else \
            _previous_sentence_degrees(step, m.start())
        kind = m.group("kind").lower()
        if value is not None and value != _TURN[kind]:
            out.append(_claim(value, kind, _TURN[kind]))
    return out


def check_trace(steps: Sequence[str], problem: str = "") -> list[tuple[int, EquationCheck]]:
    """Every degree measure said to be a turn it is not, as ``(step_index, failed check)`` pairs."""
    return step_claims(steps, _may_hold_a_claim, _turn_claims, MAX_STEPS, MAX_STEP_CHARS, gate=_may_hold_any)
