"""The dataflow graph of quantities in a trace: what each step uses and produces, grounding, counterfactuals.

Every equation a step states (``16 - 3 - 4 = 9``) *produces* its result (the last side, 9) and *uses* the
numbers on its other sides (16, 3, 4). A step depends on an earlier step when it uses a quantity that step
produced. An operand is *grounded* when it appears in the problem, was produced or mentioned by an earlier step
(or earlier in the same step), or is a common constant (:data:`COMMON_CONSTANTS`).

Counterfactual propagation (structural sensitivity): edit one step's result ``v -> v'`` and push the change
through every later equation that uses it, re-evaluating each edited expression exactly. The answer *moves*
when the final answer's value is among the propagated changes. An intervention is valid only when it keeps
the four constraints of the design: atomic (one number of one step), bounded (one number), isolated (no other
step is edited) and free of answer leakage (neither the old nor the new value is the final answer).

>>> from rewards.parsing.trace import parse_trace
>>> t = parse_trace("Ann has 3 apples and buys 4 bags of 2.", "4 * 2 = 8 new apples.\\n3 + 8 = 11 apples.\\n#### 11")
>>> flow = build_dataflow(t)
>>> flow.answer_step, sorted(flow.steps[1].depends_on)
(1, [0])
>>> [(i.step, i.moves) for i in counterfactuals(t, flow)]
[(0, True)]
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache

from rewards.checks.arithmetic import EquationCheck, evaluate, numbers_in
from rewards.checks.claims import trace_checks
from rewards.checks.equations import BARE_NUMBER, step_equations
from rewards.checks.identities import constrained_variables
from rewards.parsing.trace import Trace

__all__ = ["COMMON_CONSTANTS", "StepFlow", "Dataflow", "Intervention", "build_dataflow", "counterfactuals",
           "problem_numbers"]

COMMON_CONSTANTS: frozenset[Fraction] = frozenset(
    Fraction(n) for n in (0, 1, 2, 3, 4, 7, 10, 12, 24, 30, 52, 60, 100, 365, 1000, 3600)
) | frozenset({Fraction(1, 2), Fraction(1, 4), Fraction(3, 4), Fraction(1, 10), Fraction(1, 100)})
"""Quantities a step may use without a source: 0-4 (counting, 3 ft/yd, 4 weeks/quarters), unit conversions
(7 days, 10, 12 months/inches/dozen, 24 h, 30 days, 52 weeks, 60 min, 100 %/cents, 365 days, 1000 g, 3600 s) and
the halves/quarters of everyday reasoning. Deliberately not 5: the invented "$5 fee" is the paper's example of a
quantity that came from nowhere."""

MAX_INTERVENTIONS = 12
"""At most this many counterfactual edits per trace (the latest computing steps first are the pivotal ones)."""


@dataclass
class StepFlow:
    """What one step states, uses and produces."""

    index: int
    checks: list[EquationCheck] = field(default_factory=list)
    produced: list[Fraction] = field(default_factory=list)
    used: list[Fraction] = field(default_factory=list)
    mentioned: list[Fraction] = field(default_factory=list)
    ungrounded: list[Fraction] = field(default_factory=list)
    depends_on: set[int] = field(default_factory=set)

    @property
    def checkable(self) -> bool:
        return any(c.ok is not None for c in self.checks)


@dataclass
class Dataflow:
    """The quantities of a whole trace.

    Attributes:
        steps: one :class:`StepFlow` per step.
        problem_numbers: every number the problem states.
        answer_value: the stated final answer's exact value (``None`` when it is not a number).
        answer_step: the last step that produced ``answer_value`` (``None`` when no step did).
        last_derived: the result of the trace's last equation.
    """

    steps: list[StepFlow]
    problem_numbers: frozenset[Fraction]
    answer_value: Fraction | None
    answer_step: int | None
    last_derived: Fraction | None

    @property
    def coverage(self) -> float:
        """Share of steps with at least one checkable equation."""
        return sum(s.checkable for s in self.steps) / len(self.steps) if self.steps else 0.0

    def producer_of(self, value: Fraction, before: int) -> int | None:
        for j in range(min(before, len(self.steps)) - 1, -1, -1):
            if value in self.steps[j].produced:
                return j
        return None

    def ancestors(self, step: int) -> set[int]:
        """Every step the given step depends on, directly or through others."""
        seen: set[int] = set()
        stack = [step]
        while stack:
            for j in self.steps[stack.pop()].depends_on:
                if j not in seen:
                    seen.add(j)
                    stack.append(j)
        return seen


@dataclass(frozen=True)
class Intervention:
    """One counterfactual edit: step ``step``'s result ``old -> new``; ``expected`` is the propagated answer."""

    step: int
    old: Fraction
    new: Fraction
    expected: Fraction | None

    @property
    def moves(self) -> bool:
        return self.expected is not None


@lru_cache(maxsize=65536)
def _numbers(text: str) -> tuple[tuple[Fraction, tuple[int, int]], ...]:
    """:func:`rewards.checks.arithmetic.numbers_in`, cached (sides repeat across propagation and group members)."""
    return tuple(numbers_in(text))


_UNIT_TABLE: tuple[tuple[str, tuple[int, ...]], ...] = (
    ("quarter quarters", (25,)),
    ("pint pints gallon gallons quart quarts cup cups", (2, 4, 8, 16, 32, 128)),
    ("ounce ounces oz pound pounds lb lbs", (16,)),
    ("yard yards", (3, 36)),
    ("mile miles", (5280, 1760)),
    ("inch inches foot feet", (12, 36)),
    ("ton tons", (2000,)),
    ("january february march april may june july august september october november december month months",
     (28, 29, 30, 31)),
    ("leap", (366,)),
    ("decade decades", (10,)),
    ("century centuries", (100,)),
    ("nickel nickels", (5,)),
    ("dime dimes", (10,)),
    ("gross", (144,)),
    ("score", (20,)),
    ("percent %", (100,)),
    ("hour hours minute minutes second seconds", (60, 3600)),
    ("meter meters metre metres km kilometer kilometers kilogram kilograms kg gram grams liter liters litre "
     "litres", (1000,)),
    ("cm centimeter centimeters centimetre centimetres", (100,)),
)
_UNIT_VALUES: dict[str, frozenset[Fraction]] = {}
for _words, _values in _UNIT_TABLE:
    for _word in _words.split():
        _UNIT_VALUES[_word] = _UNIT_VALUES.get(_word, frozenset()) | frozenset(Fraction(v) for v in _values)
_WORD = re.compile(r"[a-z]+|%")
"""Conversion factors a solution may use without a source when a matching unit word occurs in the problem or the
trace: 8 pints a gallon, 16 ounces a pound, 31 days in December, 5,280 feet a mile, a quarter is 25 cents...
Looked up word by word in one pass over the lower-cased text."""

_ORDINALS = {"half": 2, "halves": 2, "third": 3, "fourth": 4, "quarter": 4, "fifth": 5, "sixth": 6, "seventh": 7,
             "eighth": 8, "ninth": 9, "tenth": 10, "twelfth": 12, "twentieth": 20, "hundredth": 100}
_ORDINAL_WORDS = re.compile(r"\b(" + "|".join(_ORDINALS) + r")s?\b", re.I)
_WEEKDAYS = re.compile(r"\b(monday|tuesday|wednesday|thursday|friday|weekdays?|work ?days?|school ?days?)\b", re.I)
_WEEKEND = re.compile(r"\bweekends?\b", re.I)


@lru_cache(maxsize=4096)
def problem_numbers(problem: str) -> frozenset[Fraction]:
    """Every quantity the problem states or implies.

    Numerals and number words (via :func:`rewards.checks.arithmetic.numbers_in`), percentages also as fractions
    (50% -> 50 and 1/2), ordinals and fraction words both ways ("every sixth customer", "a fifth of an hour"
    -> 6 and 1/6, 5 and 1/5), and the calendar words a solution turns into numbers ("Monday to Friday",
    "weekdays" -> 5; "weekend" -> 2).
    """
    values = set()
    for value, (start, end) in _numbers(problem):
        values.add(value)
        if problem[end:end + 1] == "%" or problem[end:end + 8].lstrip().lower().startswith("percent"):
            values.add(value / 100)
    for word in _ORDINAL_WORDS.findall(problem):
        n = _ORDINALS[word.lower()]
        values.update((Fraction(n), Fraction(1, n)))
    if _WEEKDAYS.search(problem):
        values.add(Fraction(5))
    if _WEEKEND.search(problem):
        values.add(Fraction(2))
    return frozenset(values)


def _unit_constants(text: str) -> frozenset[Fraction]:
    """The conversion factors whose unit words occur in ``text`` (see :data:`_UNIT_TABLE`)."""
    found: set[Fraction] = set()
    for word in set(_WORD.findall(text.lower())):
        values = _UNIT_VALUES.get(word)
        if values:
            found |= values
    return frozenset(found)


def _value(v) -> Fraction | None:
    return v.exact if v is not None and v.is_exact else None


def _roles(eq) -> tuple[list[str], Fraction] | None:
    """(operand sides, result) of an equation: the result is the last side with an exact value; the operand
    sides are the sides before it (or the result side itself when only the first side evaluates: ``3 * 4 = …``)."""
    values = [_value(v) for v in eq.values]
    result_idx = max((k for k, v in enumerate(values) if v is not None), default=None)
    if result_idx is None:
        return None
    operand_sides = eq.sides[:result_idx] if result_idx > 0 else eq.sides[:1]
    return list(operand_sides), values[result_idx]


def _derived(known: set[Fraction], value: Fraction) -> bool:
    """A value is grounded if known, or a simple transform of a known value (percent, reciprocal, negation)."""
    if value in known or value in COMMON_CONSTANTS or -value in known:
        return True
    if value * 100 in known or value / 100 in known:
        return True
    return value != 0 and 1 / value in known


def build_dataflow(trace: Trace) -> Dataflow:
    """Build the graph of quantities for ``trace`` (cheap: regexes and exact arithmetic only)."""
    from rewards.checks.answers import numeric_value  # local: answers imports trace, keep import graph one-way

    pnums = problem_numbers(trace.problem)
    constrained = constrained_variables(trace.problem)
    known: set[Fraction] = set(pnums) | _unit_constants(trace.problem + "\n" + trace.text)
    steps: list[StepFlow] = []
    last_derived = None
    producers: dict[Fraction, int] = {}  # value -> the latest earlier step that produced it
    for index, text in enumerate(trace.steps):
        flow = StepFlow(index)
        for eq, check in step_equations(text):
            if check.ok is False and check.variable is not None and check.variable in constrained:
                check = EquationCheck(eq, None, check.detail + f" (not refuted: the problem constrains "
                                      f"{check.variable}, and a link may substitute that condition)", check.pairs)
            flow.checks.append(check)
            roles = _roles(eq)
            if roles is None:
                continue
            operand_sides, result = roles
            for side in operand_sides:
                numbers = _numbers(side)
                if len(numbers) == 1 and BARE_NUMBER.fullmatch(side):
                    continue  # "<<6=6>>6", "x = 33": a restated or solved value, not an operand
                for number, _span in numbers:
                    flow.used.append(number)
                    if not _derived(known, number):
                        flow.ungrounded.append(number)
                    producer = producers.get(number)
                    if producer is not None and number not in pnums:
                        flow.depends_on.add(producer)
            if check.ok is not False:
                flow.produced.append(result)
                known.add(result)
                last_derived = result
        for number, _span in _numbers(text):
            flow.mentioned.append(number)
            known.add(number)
        for value in flow.produced:
            producers[value] = index
        steps.append(flow)
    for index, check in trace_checks(trace.steps, trace.problem):
        steps[index].checks.append(check)
    answer_value = numeric_value(trace.answer) if trace.answer else None
    answer_step = None
    if answer_value is not None:
        for j in range(len(steps) - 1, -1, -1):
            if answer_value in steps[j].produced:
                answer_step = j
                break
    return Dataflow(steps, pnums, answer_value, answer_step, last_derived)


def _literal(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"({value.numerator}/{value.denominator})"


def _substitute(side: str, changed: dict[Fraction, Fraction]) -> str | None:
    """Replace, in one pass, every literal of ``side`` whose value was changed; None when there is none."""
    spans = [(span, changed[value]) for value, span in _numbers(side) if value in changed]
    if not spans:
        return None
    text = side
    for (start, end), new in sorted(spans, reverse=True):
        text = text[:start] + _literal(new) + text[end:]
    return text


def _propagate(trace: Trace, flow: Dataflow, step: int, old: Fraction, new: Fraction) -> dict[Fraction, Fraction]:
    """Push ``old -> new`` (a result of ``step``) through the equations of the later steps."""
    changed = {old: new}
    for k in range(step, len(flow.steps)):
        seen_source = k > step  # in the edited step itself, only equations after the edited one
        for eq, check in step_equations(trace.steps[k]):
            if check.ok is False:
                continue
            roles = _roles(eq)
            if roles is None:
                continue
            operand_sides, result = roles
            if not seen_source:
                seen_source = result == old
                continue
            if result in changed:
                continue
            for side in operand_sides:
                edited = _substitute(side, changed)
                if edited is not None:
                    value = evaluate(edited)
                    if value is not None and value.is_exact and value.exact != result:
                        changed[result] = value.exact
                        break
    return changed


def counterfactuals(trace: Trace, flow: Dataflow) -> list[Intervention]:
    """Valid counterfactual edits of the computing steps, each with the answer it should then lead to.

    ``expected`` is ``None`` when the edit does not reach the answer (the answer does not depend on that step).
    """
    if flow.answer_value is None:
        return []
    answer = flow.answer_value
    out: list[Intervention] = []
    for j in range(len(flow.steps) - 1, -1, -1):
        if len(out) >= MAX_INTERVENTIONS:
            break
        produced = [v for v in flow.steps[j].produced if v != answer]
        if not produced:
            continue
        old = produced[-1]
        new = old + 1 if old.denominator == 1 else old * 2
        if new == answer:  # no answer leakage: the edit must not state the final answer
            new = old + 2
        changed = _propagate(trace, flow, j, old, new)
        expected = changed.get(answer)
        out.append(Intervention(j, old, new, expected if expected != answer else None))
    return out
