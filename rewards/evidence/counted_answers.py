r"""A count answer reached by counting the solutions the chain derived (:func:`counted_answer`).

"How many y-intercepts does :math:`x = -y^2 + 4y - 4` have?": the trace solves ``(y - 2)^2 = 0``, writes
``y = 2``, and answers "exactly one y-intercept": ``\boxed{1}``. No equation computes 1, so the answer was "not
derived". Here a count is derived when what it counts is:

* the problem asks for a count ("how many", "number of") and states an equation in the counted letter (among its
  first :data:`MAX_PROBLEM_EQUATIONS`);
* the trace writes a step of solving (an equation in the letter that is neither the problem's restated nor a solved
  form) and the solutions in solved form (a math segment ``y = 2``, or a chain ``x = \frac{1 + 17}{2} = 9``), and
  every distinct value it gives that letter is a value a verified step derived from the problem (``is_reached`` and
  produced) — no solution stated from nowhere, no roots listed with nothing solved;
* every one of them satisfies the problem's equation, computed (:func:`~rewards.checks.latex_algebra.holds_at`;
  for an intercept the other coordinate is 0) — a value derived from the problem's numbers that solves nothing is
  no solution;
* there are exactly as many of them as the answer says, and the step that says so names what it counts (solutions,
  values, roots, intercepts, ...).

The count's step then uses those solutions and depends on the steps that derived them. Only support is added; a
solution that does not hold is no refutation here. Bounds: counts up to :data:`MAX_COUNT`, at most
:data:`MAX_HOLD_CHECKS` evaluations per trace.
"""

from __future__ import annotations

import re
from fractions import Fraction

from rewards.checks.latex_algebra import holds_at, parse, split_top_level
from rewards.evidence.answer_reach import derived_step
from rewards.evidence.latex_derivations import math_segments
from rewards.evidence.quantities import read_numbers

MAX_COUNT = 10
MAX_HOLD_CHECKS = 12
MAX_PROBLEM_EQUATIONS = 3
_COUNT_ASKED = re.compile(r"\bhow many\b|\bnumber of\b", re.I)
_COUNT_NOUN = re.compile(r"solution|value|root|intercept|point|pair|zero", re.I)
_LETTER = re.compile(r"[A-Za-z]")
_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
          "ten": 10, "only one": 1, "exactly one": 1, "a single": 1, "unique": 1}


def _solved(steps: list[str]) -> dict[str, dict[Fraction, int]]:
    """Letter -> {value: the first step that writes it in solved form} (``y = 2``; ``x = \\frac{1+17}{2} = 9``)."""
    from rewards.checks.answers import named_value  # local: answers imports the trace module (one-way)

    out: dict[str, dict[Fraction, int]] = {}
    for t, text in enumerate(steps):
        if "=" not in text:
            continue
        for segment in math_segments(text):
            sides = [s.strip().strip(".,;:").strip() for s in split_top_level(segment)]
            if len(sides) < 2 or not re.fullmatch(r"[A-Za-z]", sides[0]):
                continue
            value = named_value(sides[-1]) if not _LETTER.search(sides[-1].replace("\\frac", "")) else None
            if value is not None:
                out.setdefault(sides[0], {}).setdefault(value, t)
    return out


def _solving_written(steps: list[str], letter: str, equation: str) -> bool:
    """Whether the trace writes an equation in ``letter`` of its own: neither a solved form (``x = 3``) nor the
    problem's equation restated (``x^2 - 7x + 12 = 0``, ``x(x - 9) = 0``: a step of solving)."""
    given = "".join(equation.split())
    name = re.compile(r"(?<![A-Za-z\\])" + re.escape(letter) + r"(?![A-Za-z])")
    for text in steps:
        for segment in math_segments(text):
            sides = [s.strip() for s in split_top_level(segment)]
            if len(sides) >= 2 and name.search(segment) and "".join(segment.split()) != given and \
                    not re.fullmatch(r"[A-Za-z]", sides[0]):
                return True
    return False


def _names_count(text: str, count: int) -> bool:
    """Whether ``text`` states ``count`` next to what it counts ("2 y-intercepts", "three different values",
    "exactly one y-intercept")."""
    low = text.lower()
    words = [w for w, n in _WORDS.items() if n == count]
    pattern = r"(?:\b" + str(count) + r"\b|" + "|".join(r"\b" + re.escape(w) + r"\b" for w in words) + r")"
    return any(_COUNT_NOUN.search(low, m.end(), m.end() + 40) for m in re.finditer(pattern, low))


def _problem_equation(problem: str, letter: str) -> tuple[str, dict[str, Fraction]] | None:
    """An equation of the problem in ``letter`` and the other letters' values (0 for an intercept), or ``None``."""
    for equation in [e for e in math_segments(problem) if e.count("=") == 1][:MAX_PROBLEM_EQUATIONS]:
        parsed = parse(equation)
        names = {s.name for s in getattr(parsed, "free_symbols", ())}
        if parsed is None or letter not in names:
            continue
        others = names - {letter}
        if others and not re.search(r"intercept", problem, re.I):
            continue
        return equation, {name: Fraction(0) for name in others}
    return None


def counted_answer(builder, target: Fraction):
    """``(step, operands, steps it depends on, numbers each step writes that are verified)`` for a count of the
    solutions the chain derived (module docstring), or ``None``."""
    if target.denominator != 1 or not 1 <= target <= MAX_COUNT or not _COUNT_ASKED.search(builder.problem):
        return None
    steps = builder.trace.steps
    budget = MAX_HOLD_CHECKS
    for letter, values in _solved(steps).items():
        if len(values) != target:
            continue
        found = _problem_equation(builder.problem, letter)
        if found is None:
            continue
        equation, others = found
        if not _solving_written(steps, letter, equation):
            continue  # the problem's roots listed with no step of solving: no derivation to count
        producers = {v: derived_step(builder, v) for v in values}
        if any(p is None for p in producers.values()) or budget < len(values):
            continue
        budget -= len(values)
        if not all(holds_at(equation, {**others, letter: v}).verified for v in values):
            continue
        last = max(values.values())
        for t in range(last, len(steps)):
            if _names_count(steps[t], int(target)):
                written = {t: {target, *(v for v, _ in read_numbers(steps[t]) if v in values)}}
                return t, list(values), {p for p in producers.values() if p < t}, written
    return None
