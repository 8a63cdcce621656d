r"""Irrational answers (``3\\sqrt{13}``, ``12\\pi``): inexact results keyed by :func:`approx_key`, multiples of
``\\pi`` or a root, and the step that derives such an answer.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from functools import lru_cache

from rewards.checks.arithmetic import evaluate
from rewards.checks.equations import step_equations
from rewards.evidence.equation_derivations import SPACES, computes
from rewards.evidence.model import Derivation, StepFlow
from rewards.evidence.quantities import BASIC_CONSTANTS, COMMON_CONSTANTS, read_numbers


ANSWER_MATCH_REL_TOL = 1e-9
"""How close (relative) a derived inexact value must be to an irrational final answer to derive it."""


def approx_key(value: float) -> Fraction:
    """The dataflow's key for an inexact value (``\\sqrt{117}``, ``12\\pi``): the value to 12 significant digits
    (float noise of two ways to compute it maps to one key, ``-1.732050807568879`` and ``-1.7320508075688772``),
    then the nearest fraction with a denominator up to 10^6. :func:`_propagate` keys an edited inexact result the
    same way in a trace whose answer is irrational (:attr:`Dataflow.approximate`), so an unmoved value keeps its key.

    >>> approx_key(3 ** 0.5) == approx_key(1.7320508075688774), float(approx_key(3 ** 0.5)) - 3 ** 0.5 < 1e-11
    (True, True)
    """
    return Fraction(float(f"{value:.12g}")).limit_denominator(10**6)


@lru_cache(maxsize=16384)
def approximate_derivation(sides: tuple, values: tuple) -> tuple[tuple[str, ...], Fraction, str] | None:
    """What a *verified* equation with an inexact result derives (``\\sqrt{36 + 81} = \\sqrt{117} = 3\\sqrt{13}``,
    ``\\pi\\cdot 6^2 - \\pi\\cdot 4^2 = 20\\pi``): its operand sides and the result keyed by :func:`approx_key`.
    Read only when the final answer is irrational (:attr:`Dataflow.approximate`). The result is the last side with a
    value and must be a later side than an operand; the same text on every side restates, deriving nothing, and so
    does a re-writing whose operands hold no number but the result's own and 1 (``7 \\cdot \\pi = 7\\pi``,
    ``\\frac{1}{3}\\sqrt{3} = \\frac{\\sqrt{3}}{3}``, ``\\sqrt{\\frac{1}{3}} = \\frac{\\sqrt{3}}{3}``): found by the red
    team, each paid an answer that nothing computed."""
    result_idx = max((k for k, v in enumerate(values) if v is not None and math.isfinite(v.approx)), default=0)
    if result_idx == 0 or values[result_idx].is_exact or len({SPACES.sub("", side) for side in sides}) == 1:
        return None
    key = approx_key(values[result_idx].approx)
    if key.denominator == 1 or abs(values[result_idx].approx) < 1e-6:
        return None  # within 1e-12 of a whole number, or of 0: it would stand for an ordinary number
    own = {v for v, _ in read_numbers(sides[result_idx])} | {Fraction(1)}
    if all(v in own for side in sides[:result_idx] for v, _ in read_numbers(side)):
        return None
    return Derivation(tuple(sides[:result_idx]), key, "computed")


_MULTIPLE = re.compile(r"\s*\{?\s*(\d+(?:\.\d+)?)\s*(?:\\cdot\s*)?(\\pi|\\sqrt\s*\{\s*\d+\s*\}|\\sqrt\s*\d)\s*\}?\s*")


def irrational_coefficient(side: str) -> tuple[Fraction, float] | None:
    """``(c, u)`` when ``side`` is a rational multiple of pi or of one square root written ``c\\pi`` /
    ``c\\sqrt{k}`` (``20\\pi``, ``16 \\sqrt{3}``): later sides compute with the coefficient (``20\\pi - 13\\pi``),
    so a derived multiple makes its coefficient reached too, and an edit that moves it moves the coefficient."""
    match = _MULTIPLE.fullmatch(side) if len(side) <= 40 else None
    if match is None:
        return None
    coefficient = Fraction(match.group(1))
    if coefficient in COMMON_CONSTANTS or coefficient in BASIC_CONSTANTS:
        return None  # "2\\sqrt{3}": 2 is no quantity of its own, and moving it would move every later 2
    unit = evaluate(match.group(2))
    if unit is None or unit.is_exact or not unit.approx:
        return None
    return coefficient, unit.approx


def pi_coefficient(sides: tuple[str, ...]) -> tuple[tuple[str, ...], Fraction, str] | None:
    """What a verified equation whose result is a multiple of pi derives toward a rational answer: the coefficient
    (``3^2\\cdot8\\cdot\\pi = 72\\pi`` -> 72, read later in ``\\frac{288\\pi}{72\\pi} = 4``), from operand sides that
    compute with pi themselves; ``None`` for anything else (``72\\pi = 72\\pi``, ``\\frac{1}{2} = 0.5``)."""
    coefficient = irrational_coefficient(sides[-1])
    operands = sides[:-1]
    if coefficient is None or "pi" not in sides[-1] or not all("\\pi" in side for side in operands):
        return None
    if not computes(list(operands), sum(len(read_numbers(side)) for side in operands)) or \
            any(SPACES.sub("", side) == SPACES.sub("", sides[-1]) for side in operands):
        return None
    return Derivation(operands, coefficient[0], "coefficient")


def move_coefficient(side: str, new: Fraction, changed: dict[Fraction, Fraction]) -> None:
    """Under an edit that moved the multiple ``side`` (``20\\pi``) to ``new``, move its coefficient too."""
    coefficient = irrational_coefficient(side)
    if coefficient is not None and coefficient[0] not in changed:
        moved = Fraction(float(new) / coefficient[1]).limit_denominator(10**6)
        if moved != coefficient[0]:
            changed[coefficient[0]] = moved


def beside_equations(text: str) -> str:
    """``text`` with its equations blanked (offsets kept): what a step states beside them. Read only for a trace
    whose answer is irrational (:attr:`Dataflow.approximate`), whose credit is new: a number stated there that
    nothing reaches is a stray claim, as in a step with no equation (a hidden slip, ``3^2 + 7^2 = 59`` written
    ``59``). On every trace it would cost 15 MATH-500 gold solutions with plain-number answers (measured)."""
    out = list(text)
    for eq, _check in step_equations(text):
        start, end = eq.span
        out[start:end] = " " * (min(end, len(out)) - start)
    return "".join(out)


def approximate_answer_step(steps: list[StepFlow], approx: float, inexact: set[Fraction]
                             ) -> tuple[Fraction | None, int | None]:
    """``(answer_value, answer_step)`` for an irrational answer: the last step that derived a value within
    :data:`ANSWER_MATCH_REL_TOL` of it, and that value (its key); ``(None, None)`` when none did, as for any answer no
    number reads. Only the keys of inexact results count (``inexact``): a decimal the checker accepted
    (``\\frac{3}{\\sqrt{27}} = 0.57735026919``) is an ``\\approx`` written ``=``, not the irrational answer."""
    for j in range(len(steps) - 1, -1, -1):
        for value in reversed(steps[j].produced):
            if value in inexact and abs(float(value) - approx) <= ANSWER_MATCH_REL_TOL * max(1.0, abs(approx)):
                return value, j
    return None, None
