r"""One quantity, named the same way, given two values: "The total number of possible assignments is …: $3 \cdot 1 =
3$." and, a step later, "The total number of possible assignments is …: $\binom{6}{4} = 15$."

A claim checker for :mod:`rewards.checks.claims` (``check_trace(steps, problem)``). A sentence "(So / Thus /
Therefore / Hence / Then / Now) the <name> is/are/equals … N." states the value of the quantity it names, when the
sentence ends on the value (``… = 3$.``, ``… is 15.``). Two such sentences in different steps with the same name (three
to nine words, compared in lower case) and different values contradict each other: one of them is false. The earlier
one is the step refuted — the trace went on with the later value, so a trace that replaced a value without saying so
is read as one whose earlier statement was wrong.

Left alone, because the two values may both be true: a sentence with a case or an assumption in it ("case", "if",
"when", "for each", "suppose", "assume"), names of fewer than three words ("the answer is", "the sum is": reused for
different sums), a pair with a retraction between them or in the later step ("wait", "mistake", "incorrect",
"wrong", "actually", "re-evaluate", "correct", "however", "instead", "reconsider", "recalculate", "error", in
either step or between them), values
that are not exact numbers, and sentences in one step. Bounds: :data:`MAX_STEP_CHARS` per step, :data:`MAX_STATEMENTS`
statements per trace.

Measured when introduced, over ProcessBench (GSM8K and MATH, all 1,400 completions), MATH-500 gold and GSM8K train:
one pair found, the labelled error of math-568 (the total number of assignments given as 3, then as 15).

>>> steps = [r"The total number of possible assignments is the product: $3 \cdot 1 = 3$.",
...          r"The total number of possible assignments is the sum: $\binom{6}{4} = 15$.", r"So $\boxed{\frac{1}{5}}$."]
>>> [(i, c.detail) for i, c in check_trace(steps)]
[(0, 'named values: the total number of possible assignments is 3 here and 15 in step 2')]
>>> check_trace(["In case 1, the number of ways to choose is 6.", "In case 2, the number of ways to choose is 4."])
[]
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Sequence

from rewards.checks.arithmetic import Equation, EquationCheck, evaluate

__all__ = ["check_trace", "named_values"]

MAX_STEP_CHARS = 4000
MAX_STEPS = 200
MAX_STATEMENTS = 200

_STATEMENT = re.compile(
    r"(?:^|(?<=[.!?:])\s+|\n)\s*(?:(?:So|Thus|Therefore|Hence|Then|Now),?\s+)?[Tt]he\s+((?:[A-Za-z]+\s+){2,8}?[A-Za-z]+)"
    r"\s+(?:is|are|equals)\s+([^\n]{0,400}?)(?:\.\s|\.$|\n|$)")
_TAIL_VALUE = re.compile(r"(?:^|=|\bis)\s*(-?\d{1,12}(?:\s*/\s*\d{1,12})?)\s*(?:\\\)|\$|\\\])?\s*$")
_CONDITION = re.compile(r"\b(?:cases?|if|when|for\s+each|suppose|assum\w*)\b", re.I)
_RETRACTION = re.compile(r"\b(?:wait|mistake|incorrect|wrong|actually|re-?evaluat\w*|correct\w*|however|instead|"
                         r"reconsider\w*|recalculat\w*|let'?s\s+re\w*|oops|error)\b", re.I)
_HINT = re.compile(r"\b[Tt]he\s+(?:[A-Za-z]+\s+){2}")


def named_values(steps: Sequence[str]) -> list[tuple[int, str, Fraction]]:
    """``(step, name, value)`` for each sentence that states the value of a quantity it names."""
    out: list[tuple[int, str, Fraction]] = []
    for k, step in enumerate(steps[:MAX_STEPS]):
        if not isinstance(step, str) or len(step) > MAX_STEP_CHARS or _HINT.search(step) is None:
            continue
        for m in _STATEMENT.finditer(step):
            tail = _TAIL_VALUE.search(m.group(2))
            if tail is None or _CONDITION.search(m.group(0)):
                continue
            value = evaluate(tail.group(1))
            if value is not None and value.is_exact and value.exact is not None:
                out.append((k, " ".join(m.group(1).lower().split()), value.exact))
                if len(out) >= MAX_STATEMENTS:
                    return out
    return out


def _claim(name: str, first: Fraction, later: Fraction, later_step: int) -> EquationCheck:
    eq = Equation(sides=[name, str(first)], values=[None, None], span=(0, 0), source="claim")
    return EquationCheck(eq, False, f"named values: the {name} is {first} here and {later} in step {later_step + 1}",
                         (False,))


def check_trace(steps: Sequence[str], problem: str = "") -> list[tuple[int, EquationCheck]]:
    """The earlier statement of each pair that gives one named quantity two values, as ``(step_index, failed check)``."""
    try:
        found = named_values(steps)
        if len(found) < 2:
            return []
        retracts = [isinstance(s, str) and _RETRACTION.search(s) is not None for s in steps[:MAX_STEPS]]
        latest: dict[str, tuple[int, Fraction]] = {}
        out: list[tuple[int, EquationCheck]] = []
        for k, name, value in reversed(found):  # each statement against the next statement of its name
            nxt = latest.get(name)
            latest[name] = (k, value)
            if nxt is None or nxt[0] == k or nxt[1] == value:
                continue
            if any(retracts[k:nxt[0] + 1]):
                continue
            out.append((k, _claim(name, value, nxt[1], nxt[0])))
        return sorted(out, key=lambda x: x[0])
    except Exception:  # untrusted text: a checker never raises
        return []
