"""What one equation derives (:func:`derivation_of`: ``(operand sides, value, kind)``), which equations a step
states as the dataflow reads them (:func:`trace_equations`), and the equations that derive nothing (a given of
the problem, the answer restated in a box).
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache

from rewards.evidence.display_runs import display_run_chains
from rewards.evidence.model import Derivation
from rewards.checks.arithmetic import evaluate
from rewards.checks.equations import step_equations
from rewards.checks.named_chains import join_across
from rewards.checks.solving import solve_linear
from rewards.evidence.quantities import exact_value, read_numbers
from rewards.evidence.wordy import unit_free_derivation


def equation_roles(sides, values) -> tuple[tuple[str, ...], Fraction] | None:
    """(operand sides, result) of an equation: the result is the last side with an exact value; the operand
    sides are the sides before it (or the result side itself when only the first side evaluates: ``3 * 4 = …``)."""
    for k in range(len(values) - 1, -1, -1):  # the last exact value
        v = values[k]
        if v is not None and v.is_exact and v.exact is not None:
            return tuple(sides[:k] if k > 0 else sides[:1]), v.exact
    return None


_OPERATION = re.compile(r"[+*/×÷·^!√=<>-]|\\(?:frac|d?frac|sqrt|cdot|times|div|binom|log|ln|sin|cos|tan|sum|prod)"
                        r"|\b(?:sqrt|log|ln|sin|cos|tan|of|times|plus|minus|divided|percent)\b|%", re.I)


_FRACTION_LITERAL = re.compile(r"\s*+[-+]?\s*+(?:\d+\s*+)?\\[dt]?frac\s*+\{\s*+\d+\s*+\}\s*+\{\s*+\d+\s*+\}\s*")
"""A number written as a (mixed) fraction, ``\\frac{4}{5}``, ``1\\frac{4}{5}``: a value, not a computation."""
SLASH_FRACTION = re.compile(r"\s*+[-+]?\s*+\d{1,30}\s*+/\s*+\d{1,30}\s*")
"""A fraction written with a slash (``-5/2``): a value when it restates one already reached."""
def computes(operand_sides: list[str], used: int) -> bool:
    """An equation computes when its operands hold two numbers or more, or one number under an operation
    (``\\sqrt{16} = 4``, ``3! = 6``, ``50% of 30``); ``18 = 18``, ``x = 18`` and ``18 dollars = 18`` derive
    nothing."""
    if used >= 2:
        return True
    return used == 1 and any(_OPERATION.search(side) for side in operand_sides)


_NAME = re.compile(r"\s*\$?\s*[A-Za-z]\s*")


SPACES = re.compile(r"[\s$]+")


@lru_cache(maxsize=1024)
def _given_text(problem: str) -> str:
    return SPACES.sub("", problem)


def is_given(eq, problem: str) -> bool:
    """Whether the equation is copied from the problem ("$441+2(21)(19)+361=x$. Solve for $x$."): a given, where
    a derivation may start, not a derivation of its result."""
    return "=" in problem and SPACES.sub("", "=".join(eq.sides)) in _given_text(problem)


def equation_derivation(eq, check, roles=None) -> tuple[tuple[str, ...], Fraction, str] | None:
    """:func:`_derivation_of` of ``eq`` as ``check`` reads it; ``roles``: :func:`equation_roles` of ``eq`` when the caller has
    worked it out (``None``: read here)."""
    return _derivation_of(tuple(eq.sides), tuple(eq.values), check.ok, roles)


def _derivation_of(sides: tuple, values: tuple, ok: bool | None, roles=None
                   ) -> tuple[tuple[str, ...], Fraction, str] | None:
    """What an equation derives, as ``(operand sides, value, kind)``, or ``None``:

    * ``computed`` — a verified equation (``check.ok is True``): its operand sides and result (whether it computes
      anything is decided by the operands it uses, :func:`computes`);
    * ``evaluated`` — a name assigned a computation the evaluator works out exactly (``X = $60/1.5`` -> 40);
    * ``solved`` — a linear equation in one unknown (``5x = 20`` -> 4, :func:`rewards.checks.solving.solve_linear`).

    A relation the checker declined to verify derives nothing; a refuted one neither. Only the unverified reading
    is cached (:func:`_unverified_derivation`, per sides): a verified one is worked out as cheaply as a cache key of
    its values would be hashed (a ``Fraction`` hashes in Python). ``roles``: :func:`equation_roles` of ``sides`` and
    ``values`` when the caller has it (``None`` reads it again: the same answer).
    """
    if ok is True:
        if roles is None:
            roles = equation_roles(sides, values)
        if roles is None or len({SPACES.sub("", side) for side in sides}) == 1:  # "1\frac{4}{5} = 1\frac{4}{5}"
            return None
        return Derivation(*roles, "computed")
    if ok is False:
        return None
    return _unverified_derivation(sides)


@lru_cache(maxsize=4096)
def _unverified_derivation(sides: tuple) -> tuple[tuple[str, ...], Fraction, str] | None:
    """:func:`_derivation_of` of an equation the checker neither verified nor refuted: ``evaluated``, ``solved`` or
    ``None``, read from its sides alone (its values are not consulted). Cached per sides (GRPO groups repeat
    equations)."""
    stripped = unit_free_derivation(sides)
    if stripped is not None:
        return stripped
    if len(sides) != 2:
        return None
    left, right = sides
    for name, expr in ((left, right), (right, left)):
        if _NAME.fullmatch(name):
            value = exact_value(evaluate(expr)) if len(read_numbers(expr)) >= 2 and not _FRACTION_LITERAL.fullmatch(expr) \
                else None
            if value is not None:
                return Derivation((expr,), value, "evaluated")
    root = solve_linear(left, right)
    return None if root is None else Derivation((left, right), root, "solved")


_BOX = re.compile(r"\\(?:boxed|fbox|framebox)\s*\{")


def answer_boxes(text: str) -> list[tuple[int, int]]:
    """The spans of every ``\\boxed{...}`` (also ``\\boxed {``, ``\\fbox{``) of ``text``: an answer written as an
    equation (``\\boxed{x=5}``) restates the answer there, deriving nothing (it would otherwise read as a root
    chosen). Every box, not only the last: the red team boxed it twice, and with a space."""
    spans = []
    for match in _BOX.finditer(text):
        if len(spans) >= MAX_BOXES:
            break
        start, depth, stop = match.start(), 0, min(len(text), match.end() + MAX_BOX_CHARS)
        for end in range(match.end(), stop):
            if text[end] == "{":
                depth += 1
            elif text[end] == "}":
                if depth == 0:
                    stop = end + 1
                    break
                depth -= 1
        spans.append((start, stop))
    return spans


MAX_BOX_CHARS = 400
"""How far :func:`answer_boxes` looks for the end of a ``\\boxed{`` (an answer is short); an unclosed box ends
there."""
MAX_BOXES = 16
"""At most this many boxes per step are read (bounded work on a step of thousands of ``\\boxed{``)."""


def trace_equations(steps: tuple[str, ...]) -> tuple[tuple, ...]:
    """Per step, the equations it states as the dataflow reads them: :func:`step_equations`, with a step's first
    equation joined to the last equation of the step before (as read, so a chain carried over several steps keeps
    its first side: ``OP^2 = 10^2 - 6^2``, ``OP^2 = 100 - 36``, ``OP^2 = 64`` read ``OP^2 = 10^2 - 6^2 = 100 - 36 =
    64`` in the third) where both name the same quantity (:func:`rewards.checks.named_chains.join_across`), and the
    verified chains of runs of bare displays (:func:`rewards.evidence.display_runs.display_run_chains`). Read it
    once per trace and index it per step. Not cached here: :func:`~rewards.evidence.builder.build_dataflow` keeps
    its reading on the :class:`~rewards.evidence.model.Dataflow` (``_equations``), where the propagation plan reads
    it again. (A cache of whole traces kept every equation of the last 1,024 traces alive, steps the per-step cache
    had long evicted: ~17,000 objects per 128k-character trace that every full garbage collection walked.)"""
    out: list[tuple] = []
    previous: tuple = ()
    runs = display_run_chains(steps) if any("\\[" in s or "$$" in s for s in steps) else {}
    for k, text in enumerate(steps):
        read = step_equations(text)
        if previous and read and "=" in text:
            read = join_across(previous, read, steps[k - 1], text)
        out.append(read + tuple(runs[k]) if k in runs else read)  # "\\[ -7 + 12 \\]" then "\\[ 5 \\]": a run
        previous = read
    return tuple(out)
