r"""The answer's own quantity given another value after the answer: "the measure of angle 2 is $\boxed{140}$ ...
So, the measure of angle 2 is actually $180 - 130 = 50$".

A claim checker for :mod:`rewards.checks.claims` (``check_trace(steps, problem)``). The sentence that gives the trace's
last ``\boxed{}`` names what it is: "the *measure of angle 2* is ``\boxed{140}``". When a later sentence says the same
thing ("the measure of angle 2 is / should be / must be (actually) …") with a value that differs, and no assumption is
made in that sentence ("if", "when", "suppose", "were", "instead", "would" before it, "if" just after it: "if the side
were doubled, the area is 48" is another question), the trace contradicts its own answer: one of the two statements is
false, and the later one is the step refuted (it comes after the answer, so it is no correction the answer took up).
:func:`rewards.parsing.trace.other_stated_answers` reads "the answer is …" the same way; this reads the answer's
quantity under the name the trace gave it.

The rule: the box's content and the later value both evaluate exactly (:func:`rewards.checks.arithmetic.evaluate`; a
later math span is read at its last ``=`` side, ``180 - 130 = 50`` is 50); the subject is one to nine words after
"the", the same words in both; only the text after the box is read, at most :data:`MAX_AFTER_CHARS` characters and
:data:`MAX_CLAIMS` statements. A value before the box is not read: a trace that tries a value and replaces it is
exploring, not contradicting itself.

Measured when introduced, over ProcessBench (GSM8K and MATH, all 1,400 completions) and MATH-500 gold: one statement
found, the labelled error of math-739 (boxes 140, then "the measure of angle 2 is actually $180 - 130 = 50$").

>>> steps = [r"Thus the measure of angle 2 is $\boxed{140}$ degrees.",
...          r"So, the measure of angle 2 is actually $180 - 130 = 50$ degrees."]
>>> [(i, c.detail) for i, c in check_trace(steps)]
[(1, 'after the answer: the measure of angle 2 is 50, but the answer given for it is 140')]
>>> check_trace([r"The area is $\boxed{12}$.", "Indeed, the area is 12, as the figure shows."])
[]
"""

from __future__ import annotations

import re
from typing import Sequence

from rewards.checks.arithmetic import Equation, EquationCheck, evaluate

__all__ = ["check_trace"]

MAX_AFTER_CHARS = 4_000
MAX_CLAIMS = 12
_BOX = re.compile(r"\\boxed\s*\{")
_SUBJECT = re.compile(
    r"\b[Tt]he\s+((?:[\w']+\s+){0,8}?[\w']+)\s+(?:is|equals|=)\s*(?:equal\s+to\s+)?(?:\\\(|\$|\\\[)?\s*"
    r"\\boxed\s*\{([^{}]{1,40})\}")
_VALUE = (r"\s+(?:is|should\s+be|must\s+be|equals)\s+(?:actually\s+|really\s+|in\s+fact\s+|then\s+)?"
          r"(?:\\\((.{1,200}?)\\\)|\$([^$]{1,200})\$|(-?\d+(?:/\d+)?)(?![\d.,/]\d))")

# "if the side were doubled, the area is 48": a value under another assumption, not the answer's quantity
_CONDITIONAL = re.compile(r"\b(?:if|when|whenever|suppose|supposing|assum\w*|were|instead|would|could|had|otherwise|"
                          r"unless|for\s+example|e\.g)\b", re.I)
_IF_AFTER = re.compile(r"[^.\n]{0,20}?\b(?:if|for\s+example)\b", re.I)


def _claim(subject: str, said: str, value: str, boxed: str) -> EquationCheck:
    eq = Equation(sides=[said, boxed], values=[None, None], span=(0, 0), source="claim")
    return EquationCheck(eq, False, f"after the answer: the {subject} is {value}, but the answer given for it is {boxed}",
                         (False,))


def _contradictions(text: str) -> list[tuple[int, EquationCheck]]:
    """``(position, check)`` for each statement after the last box that gives the box's quantity another value."""
    at = text.rfind("\\boxed")
    box = _BOX.match(text, at) if at >= 0 else None
    if box is None:
        return []
    start = max(text.rfind(". ", 0, box.start()), text.rfind("\n", 0, box.start())) + 1
    m = _SUBJECT.search(text, start, box.end() + 60)
    boxed = evaluate(m.group(2)) if m is not None else None
    if boxed is None or not boxed.is_exact or boxed.exact is None:
        return []
    subject = " ".join(m.group(1).split())
    pattern = re.compile(r"\b[Tt]he\s+" + r"\s+".join(map(re.escape, subject.split())) + _VALUE)
    out: list[tuple[int, EquationCheck]] = []
    for k, later in enumerate(pattern.finditer(text, m.end(), min(len(text), m.end() + MAX_AFTER_CHARS))):
        if k >= MAX_CLAIMS:
            break
        body = next(g for g in later.groups() if g is not None)
        sentence = max(text.rfind(". ", 0, later.start()), text.rfind("\n", 0, later.start())) + 1
        if _CONDITIONAL.search(text, sentence, later.start()) or _IF_AFTER.match(text, later.end()):
            continue
        value = evaluate(body.split("=")[-1].strip()) if len(body) <= 200 else None
        if value is not None and value.is_exact and value.exact is not None and value.exact != boxed.exact:
            out.append((later.start(), _claim(subject, later.group(0), body.split("=")[-1].strip(), m.group(2))))
    return out


def check_trace(steps: Sequence[str], problem: str = "") -> list[tuple[int, EquationCheck]]:
    """Every statement after the answer that gives the answer's quantity another value, as ``(step_index, failed
    check)`` pairs."""
    try:
        texts = [s if isinstance(s, str) else "" for s in steps]
        if not any("boxed" in s for s in texts):
            return []
        text = "\n".join(texts)
        ends, pos = [], 0
        for s in texts:
            pos += len(s) + 1
            ends.append(pos)
        out = []
        for at, check in _contradictions(text):
            out.append((next(i for i, e in enumerate(ends) if at < e), check))
        return out
    except Exception:  # untrusted text: a checker never raises
        return []
