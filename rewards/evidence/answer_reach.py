r"""Answers reached from the chain's result by a step that is no equation: a rounding the trace licenses
(:func:`rounded_answer`) and an ordered pair, vector or interval whose coordinates the chain derived
(:func:`component_answer`).

Competition solutions end in ways the equation reader does not follow: ``n > \frac{\ln 1.1224}{\ln 1.05} \approx
2.383``, "since n must be an integer, we round up": ``n = 3``; ``\frac{10000}{550} \approx 18.18``, "the number of
whole years, so we round up to 19"; ``x = \frac{17}{4}``, then "the x-intercept is :math:`(\frac{17}{4}, 0)`".
Each route adds support only from something checked, and never refutes:

* **rounding** — the answer is ``ceil(b)``, ``floor(b)`` or the nearest integer to ``b``, where ``b`` is the chain's
  last result: a non-integer value a verified step derived from the problem (reached, ``is_reached``), no later
  step deriving anything else; the trace itself, after the step that derives ``b``, names that rounding ("round up",
  "the greatest integer less than", "to the nearest whole number", ``\lceil``), and the problem calls for that
  direction in words (:data:`_PROBLEM_ASKS`: up for "the smallest number needed", down for "the greatest" or
  "complete" units, either for whole units or a rounding, the nearest for "nearest" or "round"; "how many" or
  "integer" alone call for none). A bound stated bare, an earlier result, the wrong direction, or a rounding the
  problem does not call for license nothing;
* **components** — every coordinate of the answer (``(a, b)``, ``\begin{pmatrix} a \\ b \end{pmatrix}``,
  ``[a, b]``) is a number; at least one is a value a verified step derived from the problem (not a basic constant
  alone), and the others are derived too or are ``0`` (the intercept's ``y = 0``); at most half of them are such
  zeros. A coordinate copied from the problem or stated from nowhere licenses nothing. The answer's step is the latest step that derives a coordinate; the answer's value for
  the counterfactual checks is that coordinate (the dataflow follows one value).

Both return the shape :func:`rewards.evidence.latex_derivations.latex_answer_step` returns, for
:meth:`rewards.evidence.builder.DataflowBuilder.latex_answer` to record.

>>> from rewards.parsing.trace import parse_trace
>>> from rewards.evidence.builder import build_dataflow
>>> t = parse_trace("Pens cost 3 dollars. How many whole pens can Ann buy with 10 dollars?",
...                 "10 / 3 = 3.333\nShe can only buy a whole number of pens, so we round down: 3.\n#### 3")
>>> flow = build_dataflow(t)
>>> flow.answer_value, flow.answer_step
(Fraction(3, 1), 1)
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

from rewards.evidence.quantities import BASIC_KEYS, read_numbers, value_key

_ROUND = r"round(?:s|ed|ing)?\b[^.\n]{0,40}?"
_CEIL = re.compile(_ROUND + r"\bup\b|\\lceil|\bceil(?:ing)?\b|next (?:whole|integer|largest)|"
                   r"(?:smallest|least|minimum) (?:possible )?(?:integer|whole)", re.I)
_FLOOR = re.compile(_ROUND + r"\bdown\b|\\lfloor|\bfloor\b|(?:greatest|largest|maximum) (?:possible )?(?:integer|whole)|"
                    r"integer part", re.I)
_NEAREST = re.compile(r"nearest (?:whole|integer)", re.I)
_PROBLEM_ASKS = {
    "ceil": re.compile(r"whole|round|smallest|least|minimum|fewest|\bneed|enough", re.I),
    "floor": re.compile(r"whole|round|largest|greatest|maximum|at most|\bcomplete|\bfull\b", re.I),
    "nearest": re.compile(r"nearest|round", re.I),
}
"""The words of a problem that calls for each rounding (whole units, a least number needed, a greatest number that
fits, the nearest): "how many" alone calls for none, and a direction the problem does not call for is
no licence. There a rounding of a derived number that lands on the answer is numerology, not a method
(``12 / 10 = 1.2``, "we round up: 2", for a count the chain computes exactly)."""
MAX_ROUNDING_GAP = 1
"""The answer lies within this of the bound (a rounding moves a value less than one)."""


def _last_result(builder) -> tuple[int, Fraction] | None:
    """``(step, value)``: the chain's last result, when it is a value reached from the problem."""
    for t in range(len(builder.steps) - 1, -1, -1):
        produced = builder.steps[t].produced
        if produced:
            value = produced[-1]
            return (t, value) if builder.is_reached(value) else None
    return None


def _rounding(bound: Fraction, target: Fraction, text: str, problem: str = "") -> bool:
    """Whether ``text`` names the rounding that takes ``bound`` to ``target``, one ``problem`` calls for
    (:data:`_PROBLEM_ASKS`)."""
    if bound.denominator == 1 or target.denominator != 1 or abs(target - bound) >= MAX_ROUNDING_GAP:
        return False
    if target == math.ceil(bound) and _CEIL.search(text) and _PROBLEM_ASKS["ceil"].search(problem):
        return True
    if target == math.floor(bound) and _FLOOR.search(text) and _PROBLEM_ASKS["floor"].search(problem):
        return True
    return target == math.floor(bound + Fraction(1, 2)) and bool(_NEAREST.search(text)) \
        and bool(_PROBLEM_ASKS["nearest"].search(problem))


def rounded_answer(builder, target: Fraction):
    """The answer as the licensed rounding of the chain's last result (module docstring), as ``(step, operands,
    steps it depends on, numbers each step writes that are verified)``, or ``None``."""
    if target.denominator != 1 or not any(words.search(builder.problem) for words in _PROBLEM_ASKS.values()):
        return None
    found = _last_result(builder)
    if found is None:
        return None
    source, bound = found
    steps = builder.trace.steps
    after = _after(steps[source], bound)
    for t in range(source, len(steps)):
        text = steps[t] if t > source else after
        if t > source and builder.steps[t].produced:
            return None  # a later step derives something else: the bound is no longer the chain's result
        if not any(v == target for v, _ in read_numbers(text)):
            continue
        if _rounding(bound, target, "\n".join([after, *steps[source + 1:t + 1]]), builder.problem):
            return t, [bound], {source}, {t: {target}}
        return None
    return None


def _after(text: str, value: Fraction) -> str:
    """``text`` after its last literal of ``value`` (the rounding follows the bound it rounds)."""
    ends = [end for v, (_start, end) in read_numbers(text) if v == value]
    return text[ends[-1]:] if ends else ""


_PMATRIX = re.compile(r"\\begin\{[pbv]?matrix\}(.*?)\\end\{[pbv]?matrix\}", re.S)
_DELIMITERS = re.compile(r"\\left|\\right|\\big[lr]?|\\Big[lr]?")
_NAMES_ARE = re.compile(r"^\s*\(\s*[A-Za-z](?:\s*,\s*[A-Za-z])+\s*\)\s*=")
MAX_COMPONENTS = 6


def components(answer: str) -> list[str] | None:
    r"""The coordinates an answer lists: ``(\frac{17}{4}, 0)`` -> ``['\frac{17}{4}', '0']``; a column vector's rows;
    ``None`` for anything else (one number, an expression, a union of intervals).

    >>> components(r"\left(\frac{17}{4},0\right)"), components("(b,c)=(6,5)")
    (['\\frac{17}{4}', '0'], ['6', '5'])
    >>> components(r"\begin{pmatrix} 1 \\ -2 \end{pmatrix}"), components("12"), components(r"(1, 2) \cup (3, 4)")
    (['1', '-2'], None, None)
    """
    text = _NAMES_ARE.sub("", _DELIMITERS.sub("", answer), count=1).strip()
    matrix = _PMATRIX.fullmatch(text)
    if matrix is not None:
        parts = [p.strip() for p in matrix.group(1).split("\\\\")]
        if any("&" in p for p in parts):
            return None  # a matrix, not a vector
    elif len(text) >= 2 and text[0] in "([" and text[-1] in ")]":
        inner = text[1:-1]
        if any(c in inner for c in "()[]") or "\\cup" in inner:
            return None
        parts = _split_commas(inner)
    else:
        return None
    parts = [p for p in parts if p]
    return parts if 2 <= len(parts) <= MAX_COMPONENTS else None


def _split_commas(text: str) -> list[str]:
    """``text`` split at commas outside braces."""
    out, depth, start = [], 0, 0
    for k, c in enumerate(text):
        depth += (c == "{") - (c == "}")
        if c == "," and depth == 0:
            out.append(text[start:k].strip())
            start = k + 1
    out.append(text[start:].strip())
    return out


def derived_step(builder, value: Fraction) -> int | None:
    """The latest step that derived ``value`` from the problem (a reached result), or ``None``."""
    if not builder.is_reached(value):
        return None
    for t in range(len(builder.steps) - 1, -1, -1):
        if value in builder.steps[t].produced:
            return t
    return None


def component_answer(builder, answer: str) -> tuple[Fraction, tuple] | None:
    """``(the coordinate the dataflow follows, the latex_answer_step shape)`` for an answer whose coordinates the
    chain derived (module docstring), or ``None``."""
    from rewards.checks.answers import named_value  # local: answers imports the trace module (one-way)

    parts = components(answer)
    if parts is None:
        return None
    values = [named_value(p) for p in parts]
    if any(v is None for v in values):
        return None
    derived: dict[Fraction, int] = {}
    free = 0
    for value in values:
        step = derived_step(builder, value)
        if step is not None:
            derived[value] = step
        elif value == 0:
            free += 1
        else:
            return None  # a coordinate from nowhere
    if not derived or free > len(derived) or all(value_key(v) in BASIC_KEYS for v in derived):
        return None
    value, step = max(derived.items(), key=lambda item: item[1])
    depends = {t for t in derived.values() if t != step}
    return value, (step, [value], depends, {step: set(values)})
