"""The dataflow graph of quantities in a trace: what each step uses and produces, grounding, counterfactuals.

Every equation a step states (``16 - 3 - 4 = 9``) *uses* the numbers on its operand sides (16, 3, 4). It
*produces* (derives) its result (the last side, 9) only when the checker verified it (``check.ok is True``) and it
computes something: an operation on the operands, not a restatement (``18 = 18``, ``x = 18``, ``<<18=18>>18``) and
not a relation the checker declined to verify. A step depends on an earlier step when it uses a quantity that step
produced. Only derived quantities carry the chain to the answer. An operand is *grounded* when it appears in the problem, was produced or mentioned by an earlier step
(or earlier in the same step), or is a common constant (:data:`COMMON_CONSTANTS`).

Equations with unknowns (MATH's algebra) derive through :class:`AlgebraLink`: an equation whose numbers are all
reached is a grounded *source*; an equation that follows from a recent source by algebra (equivalent, or a root
chosen: :func:`rewards.checks.algebra.relation`) is reached too, and ``x = 5`` stated in it derives 5; a stated
solution put into an expression (``x = 4``, so ``3x + 1 = 13``) derives its value. An equation copied from the
problem is a given, not a derivation, and a number written another way (``1\\frac{4}{5} = \\frac{9}{5}``) computes
nothing.

Counterfactual propagation (structural sensitivity): edit one step's result ``v -> v'`` and push the change
through every later verified equation that uses it, re-evaluating each edited expression exactly.
:func:`input_counterfactuals` edits instead a *problem quantity* the answer's derivation uses (what RAFS's
``S_RA`` reads): the answer is supported only when it moves with the problem's own numbers. The answer *moves*
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

import math
import re
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache

from rewards.checks.algebra import (MAX_COMBINED, algebra_work, combines, equation_sides, holds_under, rational_roots,
                                    real_roots, relation, substitutes, unknowns)
from rewards.checks.arithmetic import Equation, EquationCheck, Value, contains_any, evaluate, extract_equations, numbers_in
from rewards.checks.arithmetic.extraction import CLOCK_TIME, time_of_day
from rewards.checks.arithmetic.literals import num_value
from rewards.checks.claims import trace_checks
from rewards.checks.claims.congruences import congruence_chains
from rewards.checks.equations import BARE_NUMBER, step_equations
from rewards.checks.identities import constrained_variables
from rewards.checks.named_chains import join_across
from rewards.checks.solving import is_identity, solve_linear
from rewards.parsing.trace import Trace

__all__ = ["COMMON_CONSTANTS", "AlgebraLink", "StepFlow", "Dataflow", "Intervention", "build_dataflow", "counterfactuals",
           "input_counterfactuals", "answer_path", "answer_derivations", "problem_numbers", "quantity_coverage",
           "approx_key", "ANSWER_MATCH_REL_TOL", "fraction_literals", "divisor_facts", "divisibility_problem",
           "MAX_DIVISOR_FACT", "derivation_entries", "BASIC_CONSTANTS"]

COMMON_CONSTANTS: frozenset[Fraction] = frozenset(
    Fraction(n) for n in (0, 1, 2, 3, 4, 7, 10, 12, 24, 30, 52, 60, 100, 365, 1000, 3600)
) | frozenset({Fraction(1, 2), Fraction(1, 4), Fraction(3, 4), Fraction(1, 10), Fraction(1, 100)})
"""Quantities a step may use without a source: 0-4 (counting, 3 ft/yd, 4 weeks/quarters), unit conversions
(7 days, 10, 12 months/inches/dozen, 24 h, 30 days, 52 weeks, 60 min, 100 %/cents, 365 days, 1000 g, 3600 s) and
the halves/quarters of everyday reasoning. Deliberately not 5: the invented "$5 fee" is the paper's example of a
quantity that came from nowhere."""

BASIC_CONSTANTS: frozenset[Fraction] = frozenset(Fraction(n) for n in (0, 1, 2, 3, 4, 10, 100)) | frozenset(
    {Fraction(1, 2), Fraction(1, 3), Fraction(1, 4), Fraction(3, 4), Fraction(1, 10), Fraction(1, 100)}) | frozenset(
    {Fraction(25), Fraction(50), Fraction(75)})
"""What a derivation may use without a source in the problem: counting (0-4: halves, thirds, quarters, a triple),
tens and percent, and halves and quarters in percent (an even split is 50%). Only the listed values: the percent
and reciprocal transforms of :func:`_derived` apply to quantities, not to these (400 is not "4 percent"). The unit factors of :data:`COMMON_CONSTANTS` (7 days, 12 months, 60 minutes…) only soften ``q``;
for support a unit conversion must be named by a unit word in the problem or the trace (:data:`_UNIT_TABLE`)."""

_COMMON_KEYS = frozenset(v.numerator if v.denominator == 1 else v for v in COMMON_CONSTANTS)
_BASIC_KEYS = frozenset(v.numerator if v.denominator == 1 else v for v in BASIC_CONSTANTS)
""":data:`COMMON_CONSTANTS` and :data:`BASIC_CONSTANTS` by :func:`_key` (whole values as ints), for lookups by key:
an ``int`` found in a set of ``Fraction`` compares through ``Fraction.__eq__`` (Python code), in a set of ints
natively. Same members, same hashes, so the same answers (tests/rewards/test_fast_paths.py); a ``Fraction`` finds
its equal int as well."""

MAX_INTERVENTIONS = 12
"""At most this many counterfactual edits per trace (the latest computing steps first are the pivotal ones)."""


@dataclass(slots=True)
class StepFlow:
    """What one step states, uses and produces."""

    index: int
    checks: list[EquationCheck] = field(default_factory=list)
    produced: list[Fraction] = field(default_factory=list)
    used: list[Fraction] = field(default_factory=list)
    mentioned: list[Fraction] = field(default_factory=list)
    ungrounded: list[Fraction] = field(default_factory=list)
    unsupported: list[Fraction] = field(default_factory=list)
    """Operands not reached from the problem: neither a problem quantity (or its unit conversion), nor a basic
    constant, nor derived from such through verified equations. Stricter than ``ungrounded`` (a number the trace
    merely mentioned earlier is not a derivation): what decides whether the answer is supported."""
    stray: list[Fraction] = field(default_factory=list)
    """Numbers the step states that nothing reaches: not a problem quantity (or its unit conversion), not a basic
    constant, not derived from such by a verified step up to here (a slip's hidden result: "Joe got 5 slices"
    where ``1/2 x 8`` is 4). Off the answer's path they feed nothing, but the step asserts a value from nowhere."""
    depends_on: set[int] = field(default_factory=set)
    wordy: list[tuple[tuple[str, ...], Fraction]] = field(default_factory=list)
    """Computations written with unit words that the step derives (:func:`wordy_derivations`), kept so that a
    counterfactual edit propagates through them."""

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
        units: the unit conversion factors named by a unit word in the problem or the trace (``_UNIT_TABLE``).
        links: the algebra behind equations with unknowns (see below).
    """

    steps: list[StepFlow]
    problem_numbers: frozenset[Fraction]
    answer_value: Fraction | None
    answer_step: int | None
    last_derived: Fraction | None
    units: frozenset[Fraction] = frozenset()
    links: dict[tuple[int, int], "AlgebraLink"] = field(default_factory=dict)
    """Algebra behind equations the arithmetic checks cannot read, keyed by ``(step, equation index)``: a grounded
    equation with unknowns, one that follows from such an equation, or a solved value put into an expression
    (:class:`AlgebraLink`)."""
    approximate: bool = False
    """The final answer is an irrational number (``3\\sqrt{13}``, ``12\\pi``): verified equations with an inexact
    result derive it too, keyed by :func:`approx_key` (:func:`_approximate_derivation`)."""
    _plan: tuple | None = field(default=None, init=False, repr=False, compare=False)
    """``(the trace's steps, plan)``: what each step's equations derive for counterfactual propagation
    (:func:`_propagation_plan`), worked out once per trace; not copied by ``dataclasses.replace``."""
    _problem_keys: frozenset | None = field(default=None, init=False, repr=False, compare=False)
    """``problem_numbers`` by :func:`_key`, for lookups by key (set by :func:`build_dataflow`; not copied either)."""
    _derivations: tuple | None = field(default=None, init=False, repr=False, compare=False)
    """``(the trace's steps, {(step, position): _derivation(eq, check)})``: what :func:`build_dataflow` worked out
    for an equation with its check as read, for :func:`_propagation_plan` to reuse (not copied either)."""

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


_TIMES_X = re.compile(r"[x×](?<=\d[x×])(?=\d)")
"""A product written without spaces (``15x2=30``): ``numbers_in`` reads 15 and the name ``x2``. (The ``x`` or ``×``
after a digit and before one: the character class leads, so the scan skips to each ``x`` instead of trying the
digit lookbehind at every position; the same matches as ``(?<=\\d)[x×](?=\\d)``.)"""


@lru_cache(maxsize=4096)
def _numbers(text: str) -> tuple[tuple[Fraction, tuple[int, int]], ...]:
    """:func:`rewards.checks.arithmetic.numbers_in`, cached (sides repeat across propagation and group members).
    ``15x2`` reads as the two factors 15 and 2 (the ``x`` is blanked, so spans stay those of ``text``)."""
    if "x" in text or "×" in text:
        text = _TIMES_X.sub(" ", text)
    return tuple(numbers_in(text))


_step_numbers = _numbers.__wrapped__
""":func:`_numbers` of a whole step, not cached: read once per step (twice when the step has no figure code, from
one reading), and rarely again — a cached entry per step would only be kept alive, and every Fraction in it walked
by Python's cyclic collector on each full collection (measured on 2,000 GSM8K traces: 54,000 of the 198,000 objects
the scorer's caches held)."""


def _key(value: Fraction) -> int | Fraction:
    """A cheap set/dict key for ``value``: its ``int`` when whole, else the value itself. Equal to ``value`` and
    with the same hash (``hash(Fraction(5)) == hash(5)``), so it finds a ``Fraction`` key and a ``Fraction`` finds
    it; but an ``int`` hashes natively, where ``Fraction.__hash__`` computes a modular inverse in Python (and
    ``Fraction(5) == 5`` takes its fast path, where ``Fraction == Fraction`` checks ``numbers.Rational``). Only
    for lookups and private sets: a value handed on stays the ``Fraction`` it was.

    >>> _key(Fraction(6, 2)), _key(Fraction(1, 2)), {Fraction(5): "five"}[_key(Fraction(5))]
    (3, Fraction(1, 2), 'five')
    """
    return value.numerator if value.denominator == 1 else value


@lru_cache(maxsize=4096)
def _number_keys(text: str) -> tuple[int | Fraction, ...]:
    """:func:`_key` of each number of :func:`_numbers` of ``text``, in order (cached beside it: the sides that
    counterfactual propagation substitutes into, once per edit)."""
    return tuple([value.numerator if value.denominator == 1 else value for value, _span in _numbers(text)])


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
    ("day days daily", (24,)),
    ("week weeks weekly fortnight", (7, 14)),
    ("year years yearly annual annually", (12, 52, 365)),
    ("dozen dozens", (12,)),
    ("decade decades", (10,)),
    ("century centuries", (100,)),
    ("nickel nickels", (5,)),
    ("dime dimes", (10,)),
    ("gross", (144,)),
    ("score", (20,)),
    ("percent %", (100,)),
    ("hour hours minute minutes second seconds", (60, 3600)),
    ("meter meters metre metres km kilometer kilometers kilogram kilograms kg gram grams liter liters litre "
     "litres kw kwh kilowatt kilowatts watt watts", (1000,)),
    ("cm centimeter centimeters centimetre centimetres", (100,)),
    ("circ angle angles triangle triangles polygon quadrilateral pentagon hexagon octagon", (90, 180, 360)),
)
ANGLES: frozenset[Fraction] = frozenset(Fraction(v) for v in (90, 180, 360))
"""The angle factors of :data:`_UNIT_TABLE`: grounded only by the problem's own words (angle, triangle, ``^\\circ``)."""
_UNIT_VALUES: dict[str, frozenset[Fraction]] = {}
for _words, _values in _UNIT_TABLE:
    for _word in _words.split():
        _UNIT_VALUES[_word] = _UNIT_VALUES.get(_word, frozenset()) | frozenset(Fraction(v) for v in _values)
_UNIT_WORDS: frozenset[str] = frozenset(_UNIT_VALUES)
_WORD = re.compile(r"[a-z]+|%")
"""Conversion factors a solution may use without a source when a matching unit word occurs in the problem or the
trace: 8 pints a gallon, 16 ounces a pound, 31 days in December, 5,280 feet a mile, a quarter is 25 cents, a
right angle of 90 degrees and a triangle's 180...
Looked up word by word in one pass over the lower-cased text."""

_HALVES = {"half": Fraction(1, 2), "1/2": Fraction(1, 2), "quarter": Fraction(1, 4), "1/4": Fraction(1, 4),
           "third": Fraction(1, 3), "1/3": Fraction(1, 3), "3/4": Fraction(3, 4)}
_AND_A_HALF = re.compile(
    r"(?:(?P<n>\b\d+(?:\.\d+)?|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\b)|(?P<one>\ban?\b))"
    r"(?:\s+[a-z]+){0,2}?\s+and\s+(?:a\s+|one\s+)?(?P<part>half|quarter|third)\b"
    r"|(?P<m>\b\d+)\s+(?P<mpart>1/2|1/4|1/3|3/4)\b", re.I)
_HALF_PART = re.compile(r"and\s++(?:a\s++|one\s++)?(?:half|quarter|third)\b|\d\s++(?:1/2|1/4|1/3|3/4)\b", re.I)
"""The tail every match of :data:`_AND_A_HALF` ends with ("and a half", "4 1/2"), under the same flags: a problem
without it has no match, and is answered without the full pattern (which tries its number words at every position,
~40 µs on a GSM8K problem; this test ~5). The whitespace runs are possessive: each is followed by a letter or digit."""
_ORDINALS = {"half": 2, "halves": 2, "third": 3, "fourth": 4, "quarter": 4, "fifth": 5, "sixth": 6, "seventh": 7,
             "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14,
             "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18, "nineteenth": 19, "twentieth": 20,
             "thirtieth": 30, "fortieth": 40, "fiftieth": 50, "hundredth": 100}


def _has_ordinal(low: str) -> bool:
    """Whether one of the :data:`_ORDINALS` occurs in ``low`` (lower-cased)."""
    return contains_any(low, _ORDINALS)


_ORDINAL_WORDS = re.compile(r"\b(" + "|".join(_ORDINALS) + r")s?\b", re.I)
_ORDINAL_WORDS_LOWER = re.compile(r"\b(" + "|".join(_ORDINALS) + r")s?\b")
""":data:`_ORDINAL_WORDS` for lower-cased ASCII text (the same matches, without case folding)."""
_WEEKDAY_WORDS = ("monday", "tuesday", "wednesday", "thursday", "friday", "weekday", "workday", "work day",
                  "schoolday", "school day")
"""A word every match of :data:`_WEEKDAYS` holds (lower-cased)."""
_WEEKDAYS = re.compile(r"\b(monday|tuesday|wednesday|thursday|friday|weekdays?|work ?days?|school ?days?)\b", re.I)
_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_DAY_RANGE = re.compile(r"\b(" + "|".join(_DAYS) + r")s?\s+(?:to|through|thru|until|till|-|–)\s+(" + "|".join(_DAYS)
                        + r")\b", re.I)
_WEEKEND = re.compile(r"\bweekends?\b", re.I)
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")
_MONTH_RANGE = re.compile(r"\b(" + "|".join(_MONTHS) + r")\s+(?:to|through|thru|until|till|-|–)\s+("
                          + "|".join(_MONTHS) + r")\b", re.I)


_POLYGONS = {"pentagon": 5, "hexagon": 6, "heptagon": 7, "octagon": 8, "nonagon": 9, "decagon": 10,
             "hendecagon": 11, "dodecagon": 12, "icosagon": 20}
_POLYGON_WORDS = re.compile(r"\b(" + "|".join(_POLYGONS) + r")(?:s|al)?\b", re.I)


_COMPANION_WORDS = ("friends", "siblings", "brothers", "sisters", "cousins", "classmates", "coworkers", "co-workers",
                    "colleagues", "teammates", "roommates")
"""A word every match of :data:`_COMPANIONS` holds (lower-cased)."""
_COMPANIONS = re.compile(r"\band (?:(?:his|her|their) ([\w-]+)|([\w-]+) (?:of )?(?:his|her|their)) "
                         r"(?:best |close |good )?(?:friends|siblings|brothers|sisters|cousins|classmates|coworkers|"
                         r"co-workers|colleagues|"
                         r"teammates|roommates)\b", re.I)
"""``Suzie and 5 of her friends``, ``Tom and his 3 brothers``: with the one named, a group of N + 1."""


_NTH_TERM = re.compile(r"\b(?:(\d{1,6})(?:st|nd|rd|th)|(\d{1,6})\^\{?\\(?:text|mathrm)\{(?:st|nd|rd|th)\}\}?|("
                       + "|".join(w for w in _ORDINALS if w not in ("half", "halves", "quarter"))
                       + r"))\W{0,3}\s*terms?\b", re.I)
"""``the 2003rd term``, ``the $100^{\\mathrm{th}}$ term``, ``the eighth term``: the N-th term of a sequence is N - 1
steps from the first (``1 + 2002 \\cdot 2``)."""


_RADIUS = re.compile(r"\bradius\s+(?:of\s+|is\s+)?\$?(?P<r1>\d{1,6}(?:\.\d+)?)(?![\d.]*\s*[\\^/])|"
                     r"(?<![\d.])(?P<r2>\d{1,6}(?:\.\d+)?)\$?[- ](?:[a-z]+[- ])?radius\b|"
                     r"\bdiameter\s+(?:of\s+|is\s+)?\$?(?P<d1>\d{1,6}(?:\.\d+)?)(?![\d.]*\s*[\\^/])|"
                     r"(?<![\d.])(?P<d2>\d{1,6}(?:\.\d+)?)\$?[- ](?:[a-z]+[- ])?diameter\b")
"""``a radius of 3 cm``, ``a 3-inch radius``, ``diameter 10``: the other of the two is a quantity of the problem."""


_LISTED = re.compile(r"(?<![\d.])-?\d{1,9}(?:\.\d+)?(?:[\s$]*,[\s$]+(?:and[\s$]+)?-?\d{1,9}(?:\.\d+)?(?!\d|\.\d)){2,}")
r"""A list of three numbers or more (``$71,$ $72,$ $73,$ $74,$ $75``, ``3, 5, 7, and 9``; a comma and a space between
items, so ``1,000,000`` is one number): how many it lists is a quantity of the problem (an average divides by it).
Not a list that goes on (``1, 3, 5, \ldots``)."""
_LISTED_ITEM = re.compile(r"-?\d{1,9}(?:\.\d+)?")
_GOES_ON = re.compile(r"[lc]?dots|\.\.\.|…")
MAX_LISTED = 50


@lru_cache(maxsize=4096)
def problem_numbers(problem: str) -> frozenset[Fraction]:
    """Every quantity the problem states or implies.

    Numerals and number words (via :func:`rewards.checks.arithmetic.numbers_in`), percentages also as fractions
    (50% -> 50 and 1/2) with the factors of a change by that percentage (3/2, 1/2, 150, 50), ordinals and fraction
    words both ways ("every sixth customer", "a fifth of an hour"
    -> 6 and 1/6, 5 and 1/5), and the calendar words a solution turns into numbers ("Monday to Friday",
    "weekdays" -> 5; "weekend" -> 2), a polygon's sides ("a regular octagon" -> 8), a group with the one named
    ("Suzie and 5 of her friends" -> 6), the steps to a sequence's N-th term ("the 2003rd term" -> 2003, 2002)
    and a logarithm's base and argument ("\\log_264" -> 2, 64), a clock time in minutes ("7:50 a.m." -> 470), a
    circle's diameter from its radius and back ("a 3-inch radius" -> 6), how many numbers a list gives ("the
    integers $71,$ $72,$ $73,$ $74,$ $75$" -> 5, :data:`_LISTED`).
    """
    values = set()
    low = problem.lower()
    percent = "%" in problem or "percent" in low  # else no number is a percentage (lower() maps char by char)
    for value, (start, end) in _numbers(problem):
        values.add(value)
        if percent and (problem[end:end + 1] == "%" or problem[end:end + 2] == "\\%"
                        or problem[end:end + 8].lstrip().lower().startswith("percent")):  # LaTeX: "60\%"
            # 20% -> 1/5, and the factors of a 20% change: 6/5, 4/5 (and 120, 80 "percent of the old")
            values.update((value / 100, 1 + value / 100, 1 - value / 100, 100 + value, 100 - value))
    # each pattern below runs only where a word it needs occurs (a substring test is exact for ASCII text: the
    # patterns' re.I also folds a few non-ASCII letters, so other text always runs them)
    every = not low.isascii()
    halves = every or "1/" in problem or "3/4" in problem or "half" in low or "quarter" in low or "third" in low
    for match in _AND_A_HALF.finditer(problem) if halves and _HALF_PART.search(problem) else ():  # "four and a half
        # hours", "4 1/2 pounds"
        if match.group("m"):
            values.add(Fraction(match.group("m")) + _HALVES[match.group("mpart")])
            continue
        whole = Fraction(1) if match.group("one") else next((v for v, _ in _numbers(match.group("n"))), None)
        if whole is not None:
            values.add(whole + _HALVES[match.group("part").lower()])
    if every or _has_ordinal(low):
        for word in _ORDINAL_WORDS.findall(problem) if every else _ORDINAL_WORDS_LOWER.findall(low):
            n = _ORDINALS[word.lower()]
            values.update((Fraction(n), Fraction(1, n)))
    if every or "day" in low:  # every weekday name, "workday" and "school day" hold "day"
        if (every or contains_any(low, _WEEKDAY_WORDS)) and _WEEKDAYS.search(problem):
            values.add(Fraction(5))
        for first, last in _DAY_RANGE.findall(problem) if every or contains_any(low, _DAYS) else ():
            # "from Monday to Saturday" -> 6 days
            values.add(Fraction((_DAYS.index(last.lower()) - _DAYS.index(first.lower())) % 7 + 1))
    if every or contains_any(low, _MONTHS):
        for first, last in _MONTH_RANGE.findall(problem):  # "from January to July" -> 7 months
            values.add(Fraction((_MONTHS.index(last.lower()) - _MONTHS.index(first.lower())) % 12 + 1))
    if (every or "weekend" in low) and _WEEKEND.search(problem):
        values.add(Fraction(2))
    if every or "gon" in low:  # "a regular octagon": its 8 sides are a quantity of the problem
        values.update(Fraction(_POLYGONS[word.lower()]) for word in _POLYGON_WORDS.findall(problem))
    for match in _NTH_TERM.finditer(problem) if "term" in low else ():  # the 2003rd term: 2002 steps on
        n = Fraction(match.group(1) or match.group(2) or _ORDINALS[match.group(3).lower()])
        values.update((n, n - 1))
    for match in _COMPANIONS.finditer(problem) if " and " in low and (every or contains_any(
            low, _COMPANION_WORDS)) else ():  # "Suzie and 5 of her friends": 6
        count = _numbers(match.group(1) or match.group(2))
        if len(count) == 1 and count[0][0].denominator == 1 and 0 < count[0][0] < 1000:
            values.add(count[0][0] + 1)
    for match in _STATED_LOG.finditer(problem) if "\\log_" in problem else ():  # "\\log_264": base 2, 64
        values.update((Fraction(match.group(1) or match.group(2)), Fraction(match.group(3))))
    for match in _RADIUS.finditer(problem) if "radius" in low or "diameter" in low else ():  # radius 3: diameter 6
        radius, diameter = match.group("r1") or match.group("r2"), match.group("d1") or match.group("d2")
        values.add(Fraction(radius) * 2 if radius else Fraction(diameter) / 2)
    for match in _LISTED.finditer(problem) if "," in problem else ():  # "the integers 71, 72, 73, 74, 75": 5
        count = len(_LISTED_ITEM.findall(match.group()))
        if count <= MAX_LISTED and not _GOES_ON.search(problem[max(0, match.start() - 12):match.start()]) \
                and not _GOES_ON.search(problem[match.end():match.end() + 12]):
            values.add(Fraction(count))
    for match in CLOCK_TIME.finditer(problem) if ":" in problem else ():  # "at 7:50 a.m.": 470 minutes, as a
        h, m, ap = int(match["h"]), int(match["m"]), match["ap"]  # trace's clock chains are read (read_clock_times)
        values.add(Fraction(time_of_day(h, m, ap)))
        if h == 12 and not ap:  # "12:00" unmarked: noon too
            values.add(Fraction(720 + m))
    return frozenset(values)


class _Converted:
    """``value in converted``: whether a value is a problem quantity in another unit (``a * u`` or ``a / u``), worked
    out only when asked (most operands are grounded without it): ``value / u`` or ``value * u`` is a problem quantity
    for some unit factor ``u`` (exact, and ``u > 0``: the same answer as membership in :func:`_conversions`, without
    building and keeping every product — a few queries per trace against ``2 · |pnums| · |units|`` products)."""

    __slots__ = ("pnums", "units")

    def __init__(self, pnums: frozenset[Fraction], units: frozenset[Fraction]) -> None:
        self.pnums, self.units = pnums, units

    def __contains__(self, value: Fraction) -> bool:
        pnums = self.pnums
        if value.denominator == 1:  # whole: int arithmetic and int keys (equal values, same hashes) where the unit
            n = value.numerator     # is whole too
            for u in self.units:
                if u.denominator != 1 or u.numerator <= 0:
                    if value / u in pnums or value * u in pnums:
                        return True
                    continue
                w = u.numerator
                if (n // w if n % w == 0 else Fraction(n, w)) in pnums or n * w in pnums:
                    return True
            return False
        for u in self.units:
            if value / u in pnums or value * u in pnums:
                return True
        return False


@lru_cache(maxsize=4096)
def _conversions(pnums: frozenset[Fraction], units: frozenset[Fraction]) -> frozenset[Fraction]:
    return frozenset({a * u for a in pnums for u in units} | {a / u for a in pnums for u in units})


_TIME_SECOND = re.compile(r"(?:\d|\bper|\beach|\bevery|\bone|\ba)\s+second\b", re.I)
""""second" as a unit of time (``30 second``, ``per second``), not the ordinal ("the second car")."""
_SPACED_SECOND = re.compile(r"\s+second\b", re.I)
"""The tail of every :data:`_TIME_SECOND` match, from the first space of its run (the word before it has none)."""


def _time_second(text: str) -> bool:
    """``_TIME_SECOND.search(text)``, tried only where its tail occurs: a match's word or digit ends where the space
    run before "second" begins, so it starts 1 (a digit, "a"), 3, 4 or 5 characters before it (``match`` at a
    position sees the text before it, for ``\\b``). The search tries its six openings at every character of a whole
    completion (~75 µs); this ~20."""
    for tail in _SPACED_SECOND.finditer(text):
        start = tail.start()
        for at in (start - 1, start - 3, start - 4, start - 5):
            if at >= 0 and _TIME_SECOND.match(text, at):
                return True
    return False


def _unit_constants(text: str, words: frozenset[str] | None = None) -> frozenset[Fraction]:
    """The conversion factors whose unit words occur in ``text`` (see :data:`_UNIT_TABLE`); ``words``: its unit
    words when the caller has them (:func:`_unit_words`)."""
    found: set[Fraction] = set()
    for word in _unit_words(text) if words is None else words:
        if word != "second" or _time_second(text):
            found |= _UNIT_VALUES[word]
    return frozenset(found)


def _unit_words(text: str) -> frozenset[str]:
    """The words of ``text`` (lower-cased) that name a unit of :data:`_UNIT_TABLE`."""
    return _UNIT_WORDS.intersection(_WORD.findall(text.lower()))


_problem_unit_words = lru_cache(maxsize=4096)(_unit_words)
""":func:`_unit_words` of a problem, cached: the completions of a group share it."""


_FIGURE = re.compile(r"\[(/?)asy\]", re.I)
_QUOTED = re.compile(r'"[^"\n]*"')
_CODE_LINE = re.compile(r";|--|\.\.|^\s*[{}]?\s*$")
"""An Asymptote line: a statement (``;``), a path continued over lines (``--``, ``..``), a brace or nothing."""


def _outside_figures(text: str, inside: bool) -> tuple[str, bool]:
    """``text`` without the figure code of ``[asy] ... [/asy]`` blocks — MATH solutions draw with Asymptote, and
    ``draw(dir(60*i)--dir(60*(i+1)));`` states no quantity — and whether a block is still open at its end. Quoted
    text inside a figure stays (``label("5 eggs", (0,0));`` states what any prose would)."""
    if not inside and "[" not in text:
        return text, False
    parts, pos = [], 0
    for match in _FIGURE.finditer(text):
        parts.append(text[pos:match.start()] if not inside else _quoted(text[pos:match.start()]))
        inside = match.group(1) != "/"
        pos = match.end()
    parts.append(text[pos:] if not inside else _quoted(text[pos:]))
    return " ".join(parts), inside


def _quoted(code: str) -> str:
    """What figure code says in words: its quoted labels, and any line that is no code (no ``;``, no ``(``): an
    ``[asy]`` tag is no licence to state a value unseen."""
    prose = [line for line in code.split("\n") if not _CODE_LINE.search(line)]
    return " ".join([*_QUOTED.findall(code), *prose])


def _value(v) -> Fraction | None:
    return v.exact if v is not None and v.is_exact else None


def _roles(sides, values) -> tuple[tuple[str, ...], Fraction] | None:
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
_SLASH_FRACTION = re.compile(r"\s*+[-+]?\s*+\d{1,30}\s*+/\s*+\d{1,30}\s*")
"""A fraction written with a slash (``-5/2``): a value when it restates one already reached."""
def _computes(operand_sides: list[str], used: int) -> bool:
    """An equation computes when its operands hold two numbers or more, or one number under an operation
    (``\\sqrt{16} = 4``, ``3! = 6``, ``50% of 30``); ``18 = 18``, ``x = 18`` and ``18 dollars = 18`` derive
    nothing."""
    if used >= 2:
        return True
    return used == 1 and any(_OPERATION.search(side) for side in operand_sides)


_NAME = re.compile(r"\s*\$?\s*[A-Za-z]\s*")
_TIMES_WORD = re.compile(r"(?:(?<=\d)\s*(?:[xX×]|times)|\s(?:[xX×]|times))\s*(?=\$?\s*\d)")
_PER_UNIT = re.compile(r"\s*(?:/|\bper\b)\s*[A-Za-z][A-Za-z-]*")
_WORDS = re.compile(r"[A-Za-z][A-Za-z'’-]*")


_LATEX_UNIT = re.compile(r"\\(?:mbox|text|mathrm)\s*\{\s*[A-Za-z]+(?:\s+[A-Za-z]+)?\s*\}"
                         r"(?:\s*\^\s*(?:\{\s*[23]\s*\}|[23]))?")
"""A unit in LaTeX, squared or cubed (``\\mbox{ cm}^2``): dropped whole, or its power would stay behind."""


def _unit_free(side: str) -> str:
    """``8 mice * 6 pups/mouse`` -> ``8 * 6``: unit words and per-unit suffixes dropped, "x"/"times" as a product."""
    side = _TIMES_WORD.sub(" * ", side)
    return _WORDS.sub(" ", _PER_UNIT.sub(" ", side))


_WORDY_TOKEN = re.compile(r"\$?(?:\d[\d,]*(?:\.\d+)?|\.\d+)%?|[-–−+*/×÷=]|[A-Za-z][A-Za-z'’-]*|[^\sA-Za-z\d]")
_NUMBER_TOKEN = re.compile(r"\$?\.?\d")
_PAREN_WORDS = re.compile(r"\(\s*[A-Za-z][A-Za-z\s'’-]*\)")
MAX_WORDY_CHARS = 2000
"""Only the first this many characters of a step are read for equations with unit words (bounded work)."""
MAX_UNIT_WORDS = 12
"""At most this many words may follow a number inside one operand (``12 bags of hammers``, ``52 cards in a full
deck of cards``)."""
_OPERATOR = frozenset("+-–−*/×÷") | {"x", "X", "times"}
_TIMES = ("x", "X", "times")
_STATED_RESULT = re.compile(r"=\s*\$?(\d[\d,]*(?:\.\d+)?|\.\d+)")


def _results_unexplained(text: str, produced: list[Fraction]) -> bool:
    """Whether some ``= number`` in ``text`` states a value the step's equations did not derive: only then can
    :func:`wordy_derivations` add anything (a cheap test that spares its token scan on most steps)."""
    for match in _STATED_RESULT.finditer(text, 0, MAX_WORDY_CHARS):
        digits = match.group(1).replace(",", "")
        try:  # num_value (cached): Fraction(digits)'s value without parsing the string again; None past 30 digits
            value = num_value(digits)
            if value is None:
                value = Fraction(digits)
        except (ValueError, ZeroDivisionError):
            return True
        if value not in produced:
            return True
    return False


def wordy_derivations(step: str) -> list[tuple[tuple[str, ...], Fraction]]:
    """Computations written with unit words that the equation extractor does not read as one equation
    (``5 sites x 7 birds/site = 35 different birds``, ``12 bags * 5kg per bag = 60kg``): ``(operand sides,
    result)`` for each whose unit-free left side evaluates exactly to the stated number. Derivation only: a
    mismatch is not a refutation (the checker, which reads the step, decides that). One linear scan over tokens.

    >>> wordy_derivations("On Monday Kendra saw 5 sites x 7 birds/site = 35 different birds")
    [(('5 sites x 7 birds/site',), Fraction(35, 1))]
    """
    text = step[:MAX_WORDY_CHARS]
    if "(" in text:  # "1 (Jose) + 4 siblings = 5", "$240 (house and food) + $9 (phone) = $249": words in brackets
        text = _PAREN_WORDS.sub(lambda m: " " * len(m.group()), text)
    tokens = [(m.group(), m.start(), m.end()) for m in _WORDY_TOKEN.finditer(text)]
    out = []
    for i, (tok, _start, _end) in enumerate(tokens):
        if tok != "=" or i + 1 >= len(tokens) or not tokens[i + 1][0][-1:].isdigit() and "%" not in tokens[i + 1][0]:
            continue
        # walk back: operand (number, up to MAX_UNIT_WORDS words or "/ word"), then operator, then operand ...
        j, begins = i - 1, []
        while j >= 0:
            words = 0
            while j >= 0 and (tokens[j][0][0].isalpha() and (tokens[j][0] not in _TIMES or j + 1 < len(tokens)
                                                              and tokens[j + 1][0] in (*_OPERATOR, "="))
                              or tokens[j][0] == "/" and j > 0 and tokens[j - 1][0][0].isdigit() is False):
                words += tokens[j][0][0].isalpha()  # "3 times * 350": "times" before an operator is a unit word
                j -= 1
                if words > MAX_UNIT_WORDS:
                    break
            if words > MAX_UNIT_WORDS or j < 0 or not _NUMBER_TOKEN.match(tokens[j][0]):
                break
            begins.append(tokens[j][1])
            j -= 1
            k = j
            while k >= 0 and tokens[k][0][0].isalpha() and tokens[k][0] not in _TIMES and j - k < MAX_UNIT_WORDS:
                k -= 1  # words before an operand's number: "Caleb's 7 gallons + Cynthia's 8 gallons = 15 gallons"
            if k >= 0 and tokens[k][0] in _OPERATOR:
                j = k - 1
                continue
            break
        if len(begins) < 2:
            continue
        stated = evaluate(tokens[i + 1][0].replace(",", "").lstrip("$"))
        if stated is None or not stated.is_exact:
            continue
        for begin in begins[:0:-1]:  # the longest reading first, then shorter ones ("250-page book in 250/10 = 25")
            left = text[begin:tokens[i][1]].strip()
            value = evaluate(_unit_free(left))
            if value is not None and value.is_exact and value.exact == stated.exact:
                out.append(((left,), stated.exact))
                break
    return out


def _unit_free_derivation(sides: tuple) -> tuple[tuple[str, ...], Fraction, str] | None:
    """An equation the checker declined because of unit words, whose sides agree exactly once the words are dropped
    (``8 mice * 6 pups/mouse = 48 pups``), or because the extractor left its last side unread (``40*.8=32 are 5
    dollar winners``, ``500*$.25=$125 on the half-priced bricks``, ``6(2)=12$``): a verified computation for the
    dataflow. It only ever *derives*; the checker, which declined to judge it, never refutes on this reading."""
    if len(sides) < 2:
        return None
    values = [evaluate(_unit_free(side)) for side in sides]
    if any(v is None for v in values) and any("\\mbox" in side or "\\text" in side for side in sides):
        # LaTeX units: "\\frac{1}{2}\\times 3 \\times 10 = 15\\mbox{ cm}^2" (the word filter would eat \\frac)
        values = [evaluate(_LATEX_UNIT.sub(" ", side)) for side in sides]
    if any(v is None or not v.is_exact or v.exact is None for v in values):
        return None
    if any(v.exact != values[-1].exact for v in values):
        return None
    return tuple(sides[:-1]), values[-1].exact, "computed"


_SPACES = re.compile(r"[\s$]+")


@lru_cache(maxsize=1024)
def _given_text(problem: str) -> str:
    return _SPACES.sub("", problem)


def _given(eq, problem: str) -> bool:
    """Whether the equation is copied from the problem ("$441+2(21)(19)+361=x$. Solve for $x$."): a given, where
    a derivation may start, not a derivation of its result."""
    return "=" in problem and _SPACES.sub("", "=".join(eq.sides)) in _given_text(problem)


def _derivation(eq, check, roles=None) -> tuple[tuple[str, ...], Fraction, str] | None:
    """:func:`_derivation_of` of ``eq`` as ``check`` reads it; ``roles``: :func:`_roles` of ``eq`` when the caller has
    worked it out (``None``: read here)."""
    return _derivation_of(tuple(eq.sides), tuple(eq.values), check.ok, roles)


def _derivation_of(sides: tuple, values: tuple, ok: bool | None, roles=None
                   ) -> tuple[tuple[str, ...], Fraction, str] | None:
    """What an equation derives, as ``(operand sides, value, kind)``, or ``None``:

    * ``computed`` — a verified equation (``check.ok is True``): its operand sides and result (whether it computes
      anything is decided by the operands it uses, :func:`_computes`);
    * ``evaluated`` — a name assigned a computation the evaluator works out exactly (``X = $60/1.5`` -> 40);
    * ``solved`` — a linear equation in one unknown (``5x = 20`` -> 4, :func:`rewards.checks.solving.solve_linear`).

    A relation the checker declined to verify derives nothing; a refuted one neither. Only the unverified reading
    is cached (:func:`_unverified_derivation`, per sides): a verified one is worked out as cheaply as a cache key of
    its values would be hashed (a ``Fraction`` hashes in Python). ``roles``: :func:`_roles` of ``sides`` and
    ``values`` when the caller has it (``None`` reads it again: the same answer).
    """
    if ok is True:
        if roles is None:
            roles = _roles(sides, values)
        if roles is None or len({_SPACES.sub("", side) for side in sides}) == 1:  # "1\frac{4}{5} = 1\frac{4}{5}"
            return None
        return (*roles, "computed")
    if ok is False:
        return None
    return _unverified_derivation(sides)


@lru_cache(maxsize=4096)
def _unverified_derivation(sides: tuple) -> tuple[tuple[str, ...], Fraction, str] | None:
    """:func:`_derivation_of` of an equation the checker neither verified nor refuted: ``evaluated``, ``solved`` or
    ``None``, read from its sides alone (its values are not consulted). Cached per sides (GRPO groups repeat
    equations)."""
    stripped = _unit_free_derivation(sides)
    if stripped is not None:
        return stripped
    if len(sides) != 2:
        return None
    left, right = sides
    for name, expr in ((left, right), (right, left)):
        if _NAME.fullmatch(name):
            value = _value(evaluate(expr)) if len(_numbers(expr)) >= 2 and not _FRACTION_LITERAL.fullmatch(expr) \
                else None
            if value is not None:
                return (expr,), value, "evaluated"
    root = solve_linear(left, right)
    return None if root is None else ((left, right), root, "solved")


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
def _approximate_derivation(sides: tuple, values: tuple) -> tuple[tuple[str, ...], Fraction, str] | None:
    """What a *verified* equation with an inexact result derives (``\\sqrt{36 + 81} = \\sqrt{117} = 3\\sqrt{13}``,
    ``\\pi\\cdot 6^2 - \\pi\\cdot 4^2 = 20\\pi``): its operand sides and the result keyed by :func:`approx_key`.
    Read only when the final answer is irrational (:attr:`Dataflow.approximate`). The result is the last side with a
    value and must be a later side than an operand; the same text on every side restates, deriving nothing, and so
    does a re-writing whose operands hold no number but the result's own and 1 (``7 \\cdot \\pi = 7\\pi``,
    ``\\frac{1}{3}\\sqrt{3} = \\frac{\\sqrt{3}}{3}``, ``\\sqrt{\\frac{1}{3}} = \\frac{\\sqrt{3}}{3}``): found by the red
    team, each paid an answer that nothing computed."""
    result_idx = max((k for k, v in enumerate(values) if v is not None and math.isfinite(v.approx)), default=0)
    if result_idx == 0 or values[result_idx].is_exact or len({_SPACES.sub("", side) for side in sides}) == 1:
        return None
    key = approx_key(values[result_idx].approx)
    if key.denominator == 1 or abs(values[result_idx].approx) < 1e-6:
        return None  # within 1e-12 of a whole number, or of 0: it would stand for an ordinary number
    own = {v for v, _ in _numbers(sides[result_idx])} | {Fraction(1)}
    if all(v in own for side in sides[:result_idx] for v, _ in _numbers(side)):
        return None
    return tuple(sides[:result_idx]), key, "computed"


_MULTIPLE = re.compile(r"\s*\{?\s*(\d+(?:\.\d+)?)\s*(?:\\cdot\s*)?(\\pi|\\sqrt\s*\{\s*\d+\s*\}|\\sqrt\s*\d)\s*\}?\s*")


def _coefficient(side: str) -> tuple[Fraction, float] | None:
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


def _pi_coefficient(sides: tuple[str, ...]) -> tuple[tuple[str, ...], Fraction, str] | None:
    """What a verified equation whose result is a multiple of pi derives toward a rational answer: the coefficient
    (``3^2\\cdot8\\cdot\\pi = 72\\pi`` -> 72, read later in ``\\frac{288\\pi}{72\\pi} = 4``), from operand sides that
    compute with pi themselves; ``None`` for anything else (``72\\pi = 72\\pi``, ``\\frac{1}{2} = 0.5``)."""
    coefficient = _coefficient(sides[-1])
    operands = sides[:-1]
    if coefficient is None or "pi" not in sides[-1] or not all("\\pi" in side for side in operands):
        return None
    if not _computes(list(operands), sum(len(_numbers(side)) for side in operands)) or \
            any(_SPACES.sub("", side) == _SPACES.sub("", sides[-1]) for side in operands):
        return None
    return operands, coefficient[0], "coefficient"


def _move_coefficient(side: str, new: Fraction, changed: dict[Fraction, Fraction]) -> None:
    """Under an edit that moved the multiple ``side`` (``20\\pi``) to ``new``, move its coefficient too."""
    coefficient = _coefficient(side)
    if coefficient is not None and coefficient[0] not in changed:
        moved = Fraction(float(new) / coefficient[1]).limit_denominator(10**6)
        if moved != coefficient[0]:
            changed[coefficient[0]] = moved


def _beside_equations(text: str) -> str:
    """``text`` with its equations blanked (offsets kept): what a step states beside them. Read only for a trace
    whose answer is irrational (:attr:`Dataflow.approximate`), whose credit is new: a number stated there that
    nothing reaches is a stray claim, as in a step with no equation (a hidden slip, ``3^2 + 7^2 = 59`` written
    ``59``). On every trace it would cost 15 MATH-500 gold solutions with plain-number answers (measured)."""
    out = list(text)
    for eq, _check in step_equations(text):
        start, end = eq.span
        out[start:end] = " " * (min(end, len(out)) - start)
    return "".join(out)


_BOX = re.compile(r"\\(?:boxed|fbox|framebox)\s*\{")


def _answer_boxes(text: str) -> list[tuple[int, int]]:
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
"""How far :func:`_answer_boxes` looks for the end of a ``\\boxed{`` (an answer is short); an unclosed box ends
there."""
MAX_BOXES = 16
"""At most this many boxes per step are read (bounded work on a step of thousands of ``\\boxed{``)."""


def _approximate_answer_step(steps: list[StepFlow], approx: float, inexact: set[Fraction]
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


MAX_SOURCES = 4
"""An equation may follow from one of the last this many grounded algebraic equations of the trace (or from one the
problem states)."""
MAX_ALGEBRA_CALLS = 48
ALGEBRA_WORK = 120_000
"""Per trace: at most :data:`MAX_ALGEBRA_CALLS` algebra comparisons and :data:`ALGEBRA_WORK` tokens evaluated by them
(:func:`rewards.checks.algebra.algebra_work`; each comparison has its own bounds, :mod:`rewards.checks.algebra`);
past either, equations with unknowns derive nothing. The counterfactual re-solves of a trace share one more such work
budget; past it, an algebraic value does not move. Counted, never timed: a verdict that depended on the machine's
load would differ between runs and between the ranks of a distributed job (a wall-clock budget of 0.25 s flipped
MATH-500 #114 on a loaded machine). The heaviest trace among MATH-500's gold and ProcessBench's 1,400 solutions
charges 42,208 tokens to the comparisons (0.15 s) and another 2,880 to the re-solves; an adversarial trace of
comparisons that each spend their whole budget reaches the bound in about a second."""
_PROSE_WORD = re.compile(r"(?<![\\A-Za-z])[A-Za-z]{3,}")
_LONE_NAME = re.compile(r"\s*\{?\s*([A-Za-z])(?:_(?:(\d)|\{(\d{1,2})\}))?\s*\}?\s*")  # x, {y}, s_1, x_{12}


def _name(match: re.Match) -> str:
    """The unknown a :data:`_LONE_NAME` match names, spelt as :func:`rewards.checks.algebra.unknowns` spells it."""
    index = match.group(2) or match.group(3)
    return match.group(1) + (f"_{index}" if index else "")


@dataclass(frozen=True)
class AlgebraLink:
    """What an equation with unknowns contributes to the dataflow.

    * ``source`` — every number it states is reached from the problem (``\frac{16+4x}{12} = \frac{16+x}{12-x}``):
      a grounded equation that later ones may follow from; it derives nothing by itself.
    * ``followed`` — it follows by algebra (:func:`rewards.checks.algebra.relation`: equivalent, or a root chosen)
      from a grounded equation (``0 = 4x(x - 5)``, then ``x = 5``); when it states ``name = number`` it derives
      that number. ``root`` is the grounded equation the chain started from: a counterfactual edit of the
      problem's numbers re-solves it (:func:`rewards.checks.algebra.rational_roots`).
    * ``substituted`` — an expression of solved values equals a number (``x = 4``, so ``3x + 1 = 13``): derives
      the number; ``bindings`` are the solved values it used.
    """

    kind: str
    sides: tuple[str, ...]
    steps: tuple[int, ...] = ()
    value: Fraction | None = None
    root: tuple[str, str] | None = None
    bindings: tuple[tuple[str, Fraction], ...] = ()


def _algebraic(sides: tuple[str, ...]) -> tuple[str, str] | None:
    """(first, last) side of an equation with an unknown that the algebra checks read (no prose words: ``5 sites x
    7 birds`` is arithmetic with units); None otherwise."""
    if not any(c.isalpha() for side in sides for c in side) or any(_PROSE_WORD.search(side) and "\\" not in side
                                                                  for side in sides):
        return None
    pair = equation_sides(" = ".join(sides))
    if pair is None:
        return None
    names = [unknowns(side) for side in pair]
    if names[0] is None or names[1] is None or not (names[0] | names[1]):
        return None
    return pair


@lru_cache(maxsize=1024)
def _given_equations(problem: str) -> tuple[tuple[str, str], ...]:
    """The equations with unknowns the problem states ("Solve $2x + 3 = 11$"): where a derivation may start."""
    found = (_algebraic(tuple(eq.sides)) for eq in extract_equations(problem[:MAX_WORDY_CHARS]))
    return tuple(pair for pair in found if pair is not None)[:MAX_SOURCES]


def _stated_value(pair: tuple[str, str]) -> tuple[str, Fraction] | None:
    """``x = 5`` (either way round): (name, value)."""
    for name_side, value_side in (pair, pair[::-1]):
        match = _LONE_NAME.fullmatch(name_side)
        if match and not any(c.isalpha() for c in value_side):
            value = _value(evaluate(value_side.strip().strip("{}")))
            if value is not None:
                return _name(match), value
    return None


_IRRATIONAL_COMMANDS = re.compile(r"\\(?:sqrt|pi|d?frac|cdot|left|right)(?![A-Za-z])")
_LETTERS = re.compile(r"[A-Za-z]")
_LETTER_RUN = re.compile(r"(?<!\\)\b[A-Za-z]")


def _stated_irrational(pair: tuple[str, str]) -> Fraction | None:
    """``r = \\sqrt{5}`` (either way round): the irrational value's :func:`approx_key`."""
    for name_side, value_side in (pair, pair[::-1]):
        if _LONE_NAME.fullmatch(name_side) and not _LETTERS.search(_IRRATIONAL_COMMANDS.sub(" ", value_side)):
            value = evaluate(value_side)
            if value is not None and not value.is_exact and math.isfinite(value.approx):
                return approx_key(value.approx)
    return None


_ABS_ATOM = re.compile(r"\|([^|]{1,40})\|")


def _abs_atomized(source: tuple[str, str], pair: tuple[str, str]) -> tuple[tuple[str, str], tuple[str, str]] | None:
    r"""``source`` and ``pair`` with each absolute value ``|...|`` they both write (spaces aside) read as one fresh
    unknown, so that ``|x-4| = 12`` follows from the problem's ``|x-4| - 10 = 2`` as ``u = 12`` from ``u - 10 = 2``
    (the algebra cannot compare solution sets through ``|·|``); None when ``pair`` writes an absolute value
    ``source`` does not, or no letter is free.

    >>> _abs_atomized(("|x-4| -10", "2"), ("|x - 4|", "12"))
    (('u -10', '2'), ('u', '12'))
    """
    atoms = {"".join(m.group(1).split()) for side in pair for m in _ABS_ATOM.finditer(side)}
    if not atoms or atoms - {"".join(m.group(1).split()) for side in source for m in _ABS_ATOM.finditer(side)}:
        return None
    text = "".join(source + pair)
    free = [c for c in "uvw" if c not in text]
    if len(free) < len(atoms):
        return None
    names = dict(zip(sorted(atoms), free))

    def sub(side: str) -> str:
        return _ABS_ATOM.sub(lambda m: names.get("".join(m.group(1).split()), m.group(0)), side)

    out = (tuple(sub(side) for side in source), tuple(sub(side) for side in pair))
    return None if any("|" in side for side in out[1]) else out


class _Algebra:
    """The grounded algebraic equations and solved values of one trace, as :func:`build_dataflow` walks it."""

    def __init__(self, problem: str, approximate: bool = False) -> None:
        self.problem = problem
        self.approximate = approximate  # the final answer is irrational: "r = \\sqrt{5}" may be a root chosen
        self.previous: tuple[str, str] | None = None  # the last equation with unknowns read
        self.sources: list[tuple[tuple[str, str], int, tuple[str, str]]] = []  # (equation, step, root equation)
        self.bindings: dict[str, tuple[Fraction, int]] = {}
        for pair in _given_equations(problem) if "=" in problem else ():  # "If $a = 8$, what is ...": step -1
            stated = _stated_value(pair)
            if stated is not None:
                self.bindings.setdefault(stated[0], (stated[1], -1))
        self.calls, self.work = 0, None  # algebra_work() at the first comparison

    def _spend(self) -> bool:
        if self.work is None:
            self.work = algebra_work()
        self.calls += 1
        return self.calls <= MAX_ALGEBRA_CALLS and algebra_work() - self.work <= ALGEBRA_WORK

    def link(self, sides: tuple[str, ...], index: int, reached, given_values: frozenset[Fraction] = frozenset()
             ) -> AlgebraLink | None:
        pair = _algebraic(sides)
        if pair is None:
            return None
        previous, self.previous = self.previous, pair
        names = (unknowns(pair[0]) or frozenset()) | (unknowns(pair[1]) or frozenset())
        if names and names <= self.bindings.keys():  # solved values put into an expression: "a + b = -1"
            bound = tuple(sorted((n, self.bindings[n][0]) for n in names))
            for expr, number in (pair, pair[::-1]):
                if _LONE_NAME.fullmatch(expr) or any(c.isalpha() for c in number):
                    continue
                value = _value(evaluate(number))  # a given checked is no derivation ("2.5S = 150", 150 given)
                if value is not None and value not in given_values and self._spend() \
                        and holds_under(expr, number, dict(bound)):
                    steps = tuple(sorted({self.bindings[n][1] for n in names} - {-1}))  # -1: the problem states it
                    return AlgebraLink("substituted", (expr,), steps, value, bindings=bound)
        grounded = all(reached(v) for v in (v for side in pair for v, _ in _numbers(side)))
        if grounded and _stated_value(pair) is None and not (self.approximate and _stated_irrational(pair)):
            self.sources.append((pair, index, pair))
            return AlgebraLink("source", pair)
        # an equation that follows from a grounded one; "x = -4" after "0 = (x + 4)(x - 1)" is a root chosen, even
        # when -4 is a number any derivation may use
        given = [(pair, -1, pair) for pair in _given_equations(self.problem)] if "=" in self.problem else []
        candidates = [*reversed(self.sources[-MAX_SOURCES:]), *given]
        if self.approximate and _stated_value(pair) is None and _stated_irrational(pair) is not None:
            # an irrational root chosen follows from the equation just before it, which must be grounded: the
            # slip checks (rewards.checks.claims.equivalence) leave radicals alone, so "r^2 = 6, so r = \\sqrt{5}"
            # after a grounded "4r^2 = 20" is refused here
            candidates = [c for c in self.sources[-1:] if c[0] == previous and any(
                v not in BASIC_CONSTANTS for side in c[0] for v, _ in _numbers(side))]  # not "x^2 = 1/3" alone
        for source, step, root in candidates:
            if not self._spend():
                break
            found = relation(source, pair)
            if not found.follows and "|" in pair[0] + pair[1]:  # "|x-4| - 10 = 2", so "|x-4| = 12"
                atomized = _abs_atomized(source, pair)
                if atomized is not None and self._spend():
                    found = relation(*atomized)
            solved = self._solved_in(source, names) if not found.follows else {}
            if solved and self._spend():  # "s_1 s_2 = 24" and s_1 = 4 solved: "s_2 = 6" follows
                found = relation(source, pair, {n: v for n, (v, _step) in solved.items()})
            if found.follows and not found.restated:
                self.sources.append((pair, index, root))
                steps = {t for t in (step, *(t for _v, t in solved.values())) if t >= 0}
                return AlgebraLink("followed", pair, tuple(sorted(steps)), self._bind(pair, index), root)
        combined = self._combined(pair, given) if len(self.sources) + len(given) > 1 else None
        if combined is not None:  # "3p + q = 124", "5p + q = 182", so "2p = 58": their difference
            self.sources.append((pair, index, pair))
            return AlgebraLink("followed", pair, combined, self._bind(pair, index), pair)
        if grounded:
            self.sources.append((pair, index, pair))
            self._bind(pair, index)
            return AlgebraLink("source", pair)
        return None

    def _combined(self, pair: tuple[str, str], given: list) -> tuple[int, ...] | None:
        """The steps of the grounded equations (the problem's, or the last
        :data:`~rewards.checks.algebra.MAX_COMBINED` read) that ``pair`` is a sum of multiples of
        (:func:`rewards.checks.algebra.combines`); None if none."""
        pool = [*given, *self.sources[-MAX_COMBINED:]]
        pool = [c for c in pool if c[0] != pair][-MAX_COMBINED:]
        if len(pool) < 2 or not self._spend():
            return None
        used = combines([c[0] for c in pool], pair)
        return None if used is None else tuple(sorted({pool[i][1] for i in used} - {-1}))

    def _solved_in(self, source: tuple[str, str], names: frozenset[str]) -> dict[str, tuple[Fraction, int]]:
        """The solved values of ``source``'s unknowns that the equation being read does not name."""
        if not self.bindings:
            return {}
        inside = (unknowns(source[0]) or frozenset()) | (unknowns(source[1]) or frozenset())
        return {n: self.bindings[n] for n in sorted(inside - names) if n in self.bindings}

    def bind_computed(self, sides: tuple[str, ...], value: Fraction, index: int, symbolic: bool = False) -> None:
        """``x = \\frac{288}{72} = 4``, a verified computation assigned to a name: ``x`` may be put into later
        expressions. ``s^3 = 4 + 3 \\cdot 12 = 64`` assigns one to an expression the arithmetic cannot read
        (``symbolic``; ``2 x 3 = 6`` is arithmetic): ``s^3 = 64`` is a grounded equation that later ones may follow
        from (``s = 4``), as it would be stated on its own."""
        match = _LONE_NAME.fullmatch(sides[0]) if sides else None
        if match:
            self.bindings[_name(match)] = (value, index)
        elif symbolic and _LETTER_RUN.search(sides[0]) and value.denominator == 1 and abs(value) < 10**12:
            pair = _algebraic((sides[0], str(value)))
            if pair is not None and _stated_value(pair) is None:
                self.sources.append((pair, index, pair))

    def _bind(self, pair: tuple[str, str], index: int) -> Fraction | None:
        """A value the trace states for an unknown (``x = 4``) in a grounded or followed equation may be put into later
        expressions. Only a stated one: the root of ``4x + 600 = 10000`` is not yet "x", and ``4x = 9400`` then
        rewrites the equation being solved rather than substituting a solution."""
        stated = _stated_value(pair)
        if stated is None:  # an irrational root chosen derives its value, but is put into nothing
            return _stated_irrational(pair) if self.approximate else None
        self.bindings[stated[0]] = (stated[1], index)
        return stated[1]


SMALL_COUNTS: frozenset[Fraction] = frozenset(Fraction(n) for n in (3, 4))
"""Basic constants that scale (halves, doubles, a triple, quarters) but are no amount of their own: added or taken
away (``14 - 3 - 4 = 7``, an invented "fee of 3") they need a source like any other quantity."""
_UNIT_AFTER = re.compile(r"\s*(?:[A-Za-z%]+\s*){0,2}")


_NEGATED = re.compile(r"(?:^|[(\[{=,]|\\left\()\s*-\s*$")
"""A unary minus just before a number (``(-4)``, ``= -4``, a side's first character): the number written is the
negative value (``23 + (-4)`` uses the -4 a step derived, not a 4 from nowhere). Searched in ``side[:start]``."""
_TERM_CHARS = frozenset("0123456789. *×·/÷()")
_LATEX_PRODUCT = re.compile(r"\\(?:cdot|times|div)(?![A-Za-z])")


def _added(side: str, start: int, end: int) -> bool:
    """Whether the number at ``side[start:end]`` is a term of a sum or difference (``14 - 3 - 4``, ``9 + 3``,
    ``$3 + $5``), not a factor (``3 * 4``, ``12 / 3``, ``(3 + 1) * 2``, ``3/4``, ``10 - 2 * 3``) — or a factor of a
    term made of constants only, which adds the same amount in disguise (``85 - 3 * 1``, ``85 - (3)``,
    ``2 \\cdot 2 \\cdot 3 + 1``: a LaTeX product is read as ``*``, offsets kept)."""
    if "\\" in side:
        side = _LATEX_PRODUCT.sub(lambda m: " " * (len(m.group()) - 1) + "*", side)
    a, b = start, end
    while a > 0 and side[a - 1] in _TERM_CHARS:
        a -= 1
    while b < len(side) and side[b] in _TERM_CHARS:
        b += 1
    term = side[a:b]
    if term.strip() != side[start:end].strip() and all(v in BASIC_CONSTANTS for v, _ in _numbers(term)):
        if _added_plain(side, a + len(term) - len(term.lstrip()), b - (len(term) - len(term.rstrip()))):
            return True
    return _added_plain(side, start, end)


def _added_plain(side: str, start: int, end: int) -> bool:
    """:func:`_added` for the number alone."""
    left = side[:start].rstrip().rstrip("$").rstrip()[-1:]
    right_text = side[end:]
    right = right_text[_UNIT_AFTER.match(right_text).end():][:1]
    if left in "*/×÷·^(x" and left or right in "*/×÷·^)x%" and right or side[:start].rstrip().endswith(
            ("\\cdot", "\\times", "\\div", "of", "times")):
        return False
    return left in "+-−–" and left != "" or right in "+-−–" and right != ""


def _derived(known: set[Fraction], value: Fraction, constants: frozenset[Fraction] = _COMMON_KEYS) -> bool:
    """A value is grounded if known, a constant, or a simple transform of a known value (percent, reciprocal,
    negation). A whole value is looked up as an ``int`` (:func:`_key`: the same answers without ``Fraction``
    hashing and arithmetic)."""
    if value.denominator == 1:
        n = value.numerator
        if n in known or n in constants or -n in known or n * 100 in known:
            return True
        if (n // 100 if n % 100 == 0 else Fraction(n, 100)) in known:
            return True
        return n != 0 and (n if n == 1 or n == -1 else Fraction(1, n)) in known
    if value in known or value in constants or -value in known:
        return True
    if value * 100 in known or value / 100 in known:
        return True
    return value != 0 and 1 / value in known


_MODULAR_PROBLEM = re.compile(r"remainder|\\pmod|\\bmod|\bmod(?:ulo)?\b|congruen|divisib|divided by|units digit|ones "
                              r"digit|last (?:two |three )?digits?|residue|\bbase\b|inverse", re.I)
"""A problem that asks for a residue (46 of MATH-500's 500, 58 of GSM8K train's 7,473): only there does a
congruence chain derive an answer. Elsewhere a residue of the problem's numbers is a shortcut that happens to land
(``128 \\equiv 2 \\pmod 7``: the multiple of 7 it drops is grounded nowhere)."""


_MODULAR_WORDS = ("mod", "remainder", "digit", "divided by", "divisib", "congruen", "residue", "base", "inverse")
"""A word that every match of :data:`_MODULAR_PROBLEM` holds (lower-cased): ``\\pmod``, ``\\bmod`` and ``modulo``
hold "mod"; "units digit", "ones digit" and "last digits" hold "digit"."""


@lru_cache(maxsize=4096)
def modular_problem(problem: str) -> bool:
    """Whether ``problem`` asks about remainders, congruences, digits or bases (:data:`_MODULAR_PROBLEM`).

    The case-insensitive search costs ~30 µs on a GSM8K problem; on ASCII text (where ``re.I`` folds only ASCII
    letters, exactly as ``str.lower`` does) a problem that holds none of :data:`_MODULAR_WORDS` cannot match, and is
    answered without it. (Cached: the completions of a group, and each trace's propagation plan, ask again.)"""
    if problem.isascii():
        low = problem.lower()
        if not contains_any(low, _MODULAR_WORDS):
            return False
    return _MODULAR_PROBLEM.search(problem) is not None


_WRITTEN_FRACTION = re.compile(r"\\[dt]?frac\{\s*(-?\d{1,12})\s*\}\{\s*(\d{1,12})\s*\}|(?<![\d.])(\d{1,12})\s*/\s*(\d{1,12})(?![\d.])")


def fraction_literals(text: str) -> list[tuple[Fraction, tuple[int, int]]]:
    """The fractions ``text`` writes as literals (``\\frac{8}{21}``, ``8/21``), each with its span.

    >>> fraction_literals("so $\\\\frac{11}{2}$ and 3/4")
    [(Fraction(11, 2), (4, 16)), (Fraction(3, 4), (22, 25))]
    """
    out = []
    for m in _WRITTEN_FRACTION.finditer(text):
        top, bottom = (m.group(1), m.group(2)) if m.group(1) is not None else (m.group(3), m.group(4))
        if int(bottom):
            out.append((Fraction(int(top), int(bottom)), m.span()))
    return out


_UNKNOWN_LETTER = re.compile(r"(?<![\\A-Za-z])[A-Za-z](?![A-Za-z])")
"""A one-letter name outside a LaTeX command or a word: ``x + 0`` is no number, ``\\frac{9}{2}`` and ``9 eggs`` are."""


def _reached_fractions(text: str, is_reached) -> list[tuple[int, int]]:
    """Spans of the fractions ``text`` writes whose value is reached: their numerator and denominator are no stray
    numbers (a restated fractional answer read digit group by digit group stated 21)."""
    return [span for value, span in fraction_literals(text) if is_reached(value)]


def _congruence_derivation(chain) -> tuple[tuple[str, str], Fraction, str] | None:
    """What a congruence chain (:func:`rewards.checks.claims.congruences.congruence_chains`) derives: its last side, a
    residue (``|r| < m``), from its first side and the modulus, when every link checks and some link reduces (``18
    \\equiv 18`` derives nothing; neither does ``7 \\equiv 13 \\pmod 2``, whose 13 no congruence pins down)."""
    result = chain.values[-1]
    if not chain.holds or abs(result) >= chain.modulus or result == chain.values[0]:
        return None
    return (chain.sides[0], chain.modulus_text), result, "congruence"


_GIVEN_CONGRUENCE = re.compile(r"(?<![\\A-Za-z])([a-z])\s*\\equiv\s*(-?\d{1,9})\s*\\pmod\s*\{?\s*(\d{1,9})\s*\}?")


def _substituted_head(problem: str, text: str, chain) -> bool:
    r"""Whether ``chain`` (a congruence chain of ``text``) starts from an expression in an unknown that its reader
    dropped, ``(n + 2)(n + 4)(n + 6) \equiv 4 \cdot 6 \cdot 8``, whose value with the problem's own congruence put
    in (``n \equiv 2 \pmod{7}``, same modulus) is exactly the chain's first side: that side is the problem's
    expression evaluated, its numbers reached.

    >>> from rewards.checks.claims.congruences import congruence_chains
    >>> t = r"Then $(n + 2)(n + 4) \equiv 4 \cdot 6 \equiv 3 \pmod{7}$."
    >>> _substituted_head(r"If $n \equiv 2 \pmod{7}$, find ...", t, congruence_chains(t)[0])
    True
    >>> _substituted_head(r"If $n \equiv 3 \pmod{7}$, find ...", t, congruence_chains(t)[0])
    False
    """
    given = _GIVEN_CONGRUENCE.findall(problem)
    if not given:
        return False
    head = text[chain.span[0]:].split("\\equiv", 1)[0].strip().strip("$").strip()
    if not head or not any(c.isalpha() for c in head) or len(head) > 80:
        return False
    for name, residue, modulus in given:
        if Fraction(modulus) == chain.modulus and name in head:
            value = substitutes(head, {name: Fraction(residue)})
            if value is not None and value == chain.values[0]:
                return True
    return False


def _residue(value: Fraction, modulus: Fraction, like: Fraction) -> Fraction | None:
    """``value`` modulo ``modulus`` on the side of zero ``like`` sits (a counterfactual edit of a congruence)."""
    if value.denominator != 1 or modulus.denominator != 1 or modulus < 2:
        return None
    residue = value % modulus
    return residue - modulus if like < 0 and residue else residue


MAX_REWRITE_SIDES = 6
"""Longest chain of rewrites (``\\frac{x}{2} + \\frac{x}{3} = \\frac{3x}{6} + \\frac{2x}{6} = \\frac{5x}{6}``) whose
links :func:`_reach_rewrites` checks."""


def _reach_rewrites(sides: tuple[str, ...], is_reached, strict: set[Fraction]) -> None:
    """A chain of rewrites of one unknown, ``s_0 = s_1 = ... = s_n``: while each link ``s_{k-1} = s_k`` is an identity
    (:func:`rewards.checks.solving.is_identity`) and every number of ``s_0`` is reached, the numbers of ``s_k`` are
    reached too (they are the same quantity written anew); the walk stops at the first link that is no identity
    (``2x + 4 = 2(x + 2) = 10`` grounds the 2 of ``2(x + 2)``, not the 10)."""
    if len(sides) > MAX_REWRITE_SIDES or not all(is_reached(v) for v, _ in _numbers(sides[0])):
        return
    for before, after in zip(sides, sides[1:]):
        if not is_identity(before, after):
            return
        strict.update(v for v, _ in _numbers(after))


_COUNTING_PROBLEM = re.compile(r"\b(?:distinct|ways?|arrange(?:d|ments?)?|choices|choose|chosen|"
                               r"select(?:ed|s)?|combinations?|permutations?|committees?|licen[cs]e plates?|"
                               r"passwords?)\b", re.I)
"""A counting problem (choices without repetition): only there does a falling product ``10 \\cdot 9`` count the
choices left after each pick (:func:`_falling_factors`). Not "different": "a different route home" made 139 of 238
GSM8K train problems counting ones, where any reached n reached n - 1 (red team, session 8)."""


_COUNTING_WORDS = ("distinct", "way", "arrange", "choices", "choose", "chosen", "select", "combination",
                   "permutation", "committee", "licen", "password")
"""A word every match of :data:`_COUNTING_PROBLEM` holds (lower-cased)."""


def _counting_problem(problem: str) -> bool:
    """``_COUNTING_PROBLEM.search(problem) is not None``, the pattern run only where a word it needs occurs: in ASCII
    text re.I folds nothing else, so substring tests on the lower-cased problem are exact (the tests check it)."""
    if problem.isascii() and not contains_any(problem.lower(), _COUNTING_WORDS):
        return False
    return _COUNTING_PROBLEM.search(problem) is not None


_FALLING_JOIN = re.compile(r"\s*(?:\\cdot|\\times|\*|×|·)\s*")


def _falling_factors(side: str, numbers, is_reached) -> set[tuple[int, int]]:
    r"""Spans of the factors of a falling product ``n \cdot (n-1) \cdot ...`` in ``side`` (integers joined by a
    multiplication sign, each one less than the one before) whose head ``n`` is reached: in a counting problem the
    choices left after each pick ("Yann can order 10 dishes, Camille 9 left": ``10 \cdot 9``), reached from ``n``.
    A factor that is one less than nothing reached, or an exponent, is none.

    >>> sorted(_falling_factors("26\\times 25\\times 10\\times 9", _numbers("26\\times 25\\times 10\\times 9"),
    ...                          lambda v: v in (26, 10)))
    [(9, 11), (27, 28)]
    """
    out: set[tuple[int, int]] = set()
    for (head, (a, b)), (value, (c, d)) in zip(numbers, numbers[1:]):
        if head.denominator != 1 or value != head - 1 or value < 2 or not _FALLING_JOIN.fullmatch(side[b:c]):
            continue
        if side[:a].rstrip().endswith(("^", "^{")) or side[d:].lstrip().startswith("^"):
            continue  # an exponent or a power is no count of choices
        if (a, b) in out or is_reached(head):
            out.add((c, d))
    return out


_FACTORING_PROBLEM = re.compile(r"\b(?:(divisors)|factors|prime|perfect (?:square|cube))\b", re.I)
_FACTORING_WORDS = ("divisors", "factors", "prime", "perfect")
"""A word every match of :data:`_FACTORING_PROBLEM` holds (lower-cased)."""


def _factoring_problem(problem: str) -> re.Match | None:
    """``_FACTORING_PROBLEM.search(problem)``, run only where a word it needs occurs (ASCII text: substring tests on
    the lower-cased problem are exact, as in :func:`_counting_problem`)."""
    if problem.isascii() and not contains_any(problem.lower(), _FACTORING_WORDS):
        return None
    return _FACTORING_PROBLEM.search(problem)


_PRIME_POWER = re.compile(r"\s*+\(?\s*+(\d{1,6})\s*+\)?(?:\s*+\^\s*+\{?\s*+(\d{1,2})\s*+\}?)?\s*")
_PRODUCT_SIGN = re.compile(r"\\cdot|\\times|×|·|\*")


def _factorization_parts(sides: tuple[str, ...], is_reached, divisors: bool) -> tuple[set[Fraction], list[Fraction]]:
    """A verified prime factorisation of reached numbers (``196 = 2^2\\cdot7^2``, ``7 \\cdot 156 = 7 \\cdot 2^2
    \\cdot 3 \\cdot 13``) in a problem about factors: its primes and exponents are reached, and in one that counts
    divisors each exponent + 1 too (``3\\times 3 = 9``), with the numbers it factors; else ``(set(), [])``.
    Only products of primes (and their powers) against sides whose every number is reached."""
    for k, side in enumerate(sides):
        pieces = _PRODUCT_SIGN.split(side)
        if len(pieces) < 2 and "^" not in side:
            continue
        matches = [_PRIME_POWER.fullmatch(piece) for piece in pieces]
        if not all(matches) or not all(_is_prime(int(m.group(1))) for m in matches):
            continue
        numbers = [v for j, other in enumerate(sides) if j != k for v, _ in _numbers(other)]
        if not numbers or not all(is_reached(v) for v in numbers):
            continue
        exponents = {Fraction(m.group(2) or 1) for m in matches}
        parts = {Fraction(m.group(1)) for m in matches} | exponents
        if divisors:
            parts |= {e + 1 for e in exponents}
        return parts, numbers
    return set(), []


def _is_prime(n: int) -> bool:
    return n >= 2 and all(n % d for d in range(2, math.isqrt(n) + 1)) if n < 10**6 else False


_ALPHABET = re.compile(r"alphabet|\bA\s*(?:through|to|-|--|\\text\{-\})\s*Z\b")
"""A problem that names the 26 letters of the alphabet (``2 different letters (A through Z)``)."""


_DIVISOR_WORDS = ("factor", "divisor", "divides", "divisible", "multiple")
_DIVISIBILITY_PROBLEM_WORDS = (*_DIVISOR_WORDS, "prime", "gcd", "lcm", "greatest common", "least common", "integer",
                               "whole number", "perfect square", "perfect cube", "digit")
_EVERY_NTH = re.compile(r"\bevery\s+(?:other|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|"
                        r"\d{1,4}(?:st|nd|rd|th)\b|\$?\d)", re.I)
"""``every seventh page``, ``every $9$ days``: a period, so the items counted are multiples (GSM8K train 985:
"divisible by both 3 and 7: there are two, 21 and 42"; an lcm of periods)."""
_CONGRUENCE_PROBLEM = re.compile(r"\\pmod|\\bmod|\bmodulo\b|congruen|remainder when|units digit", re.I)
"""Remainders and congruences (not :func:`modular_problem`, whose bare "remainder" is GSM8K's leftover eggs)."""
MAX_DIVISOR_FACT = 10 ** 12
"""The largest whole number whose divisors a step may name as a verified fact (:func:`divisor_facts`)."""


def divisibility_problem(problem: str) -> bool:
    """Whether ``problem`` is about divisibility — factors, divisors, multiples, primes, gcd/lcm, integers, digits,
    perfect squares, periods ("every 9 days", "every seventh page") — or remainders and congruences: only there does
    a step's divisor fact (:func:`divisor_facts`) license a number. Elsewhere it licensed any divisor of any reached
    product: "16 * 3 * 4 * 2 * 3 = 1152. The factors of 1152 include 64. So 1152 / 64 = 18." minted the answer of 855
    of 1,319 GSM8K test problems (full faithful accuracy on every one) from the problem's numbers alone.

    >>> divisibility_problem("What is the least common multiple of $14$, $20$, and $35$?")
    True
    >>> divisibility_problem("A printer crumples every seventh page. If he prints 42 pages, how many are crumpled?")
    True
    >>> divisibility_problem("Janet's ducks lay 16 eggs per day. How much does she make every day?")
    False
    """
    low = problem.lower()
    return (contains_any(low, _DIVISIBILITY_PROBLEM_WORDS) or _CONGRUENCE_PROBLEM.search(problem) is not None
            or ("every" in low and _EVERY_NTH.search(problem) is not None))


def divisor_facts(text: str, is_reached) -> set[int]:
    """Numbers a step names as divisors of a reached whole number it also names — "the prime factorization of 15 is
    3 x 5", "the factor pairs of 35 are (1, 35), (5, 7)" — licensed as facts the checker verifies exactly (``r % d
    == 0``): a divisor of a reached quantity is no number from nowhere. Only in a step that speaks of factors,
    divisors or multiples; whole numbers ``1 < d < r <= MAX_DIVISOR_FACT``. The dataflow reads them only in a problem
    about divisibility (:func:`divisibility_problem`).

    >>> sorted(divisor_facts("The prime factorization of 15 is 3 x 5.", lambda v: v in (15, 3)))
    [5]
    >>> divisor_facts("Joe got 5 slices of 15.", lambda v: v == 15)
    set()
    """
    if not contains_any(text.lower(), _DIVISOR_WORDS):
        return set()
    whole = [int(v) for v, _ in _numbers(text)[:64] if v.denominator == 1 and 1 < v <= MAX_DIVISOR_FACT]
    reached = [r for r in dict.fromkeys(whole) if is_reached(Fraction(r))]
    return {d for d in whole if not is_reached(Fraction(d)) and any(d < r and r % d == 0 for r in reached)}


_LINEAR_FACTORS = re.compile(r"\(\s*(\d{0,3})\s*([a-z])\s*([+-])\s*(\d{1,6})\s*\)\s*(?:\\cdot\s*)?"
                             r"\(\s*(\d{0,3})\s*\2\s*([+-])\s*(\d{1,6})\s*\)")
_PROBLEM_POLYNOMIAL = re.compile(r"[^{}$=,<>\\]*?\^2[^{}$=,<>]*")


def _factored(problem: str, text: str) -> set[Fraction]:
    r"""The numbers of the linear factorizations ``(x-7)(x+2)`` that ``text`` writes of a quadratic the problem
    states (``\frac{2x}{x^2-5x-14}``): the factorization is the problem's own expression rewritten (checked as an
    identity, :func:`rewards.checks.solving.is_identity`), so its numbers, and with them its roots, are reached. A
    product that expands to no quadratic of the problem reaches nothing.

    >>> sorted(_factored("Let $f(x)=\\frac{2x}{x^2-5x-14}$.", "We factor it as $(x-7)(x+2)$."))
    [Fraction(2, 1), Fraction(7, 1)]
    >>> _factored("Let $f(x)=\\frac{2x}{x^2-5x-14}$.", "We factor it as $(x-7)(x+3)$.")
    set()
    """
    out: set[Fraction] = set()
    candidates = sorted({m.group(0).strip() for m in _PROBLEM_POLYNOMIAL.finditer(problem)
                         if any(c.isdigit() for c in m.group(0)) and len(m.group(0).strip()) <= 40})[:8]
    for match in _LINEAR_FACTORS.finditer(text):
        product = match.group(0).replace("\\cdot", "")
        if any(is_identity(candidate, product) for candidate in candidates):
            out.update(v for v, _ in _numbers(product))
    return out


_POWER = re.compile(r"\s*+\{?\s*+(\d{1,6})\s*+\}?\s*+\^\s*+\{?\s*+(\d{1,3})\s*+\}?\s*")
_LOG_PROBLEM = re.compile(r"\\log|\blog(?:arithm)?\b")
_STATED_LOG = re.compile(r"\\log_\s*(?:\{\s*(\d{1,4})\s*\}|(\d))\s*\{?\s*(\d{1,9})")
"""``\\log_264`` (``\\log_2 64``: a bare subscript is one digit), ``\\log_{10} 1000``: the logarithms a problem asks."""


def _log_exponent(problem: str, side: str, value: Fraction | None, is_reached) -> tuple[int, int] | None:
    r"""In a problem that asks for a logarithm, the span of the exponent ``e`` of a verified power ``b^e = N`` whose
    base and value are the problem's logarithm or reached (``2^6 = 64`` for ``\log_2 64``): the equation solves for
    ``e``, which is ``\log_b N``; None otherwise (``2^6 = 64`` derives no 6 where nothing reaches 64, or where
    no logarithm is asked).

    >>> _log_exponent("Evaluate $\\log_264$.", "2^6", Fraction(64), lambda v: False)
    (2, 3)
    >>> _log_exponent("Evaluate $2^6$.", "2^6", Fraction(64), lambda v: v in (2, 64)) is None
    True
    """
    match = _POWER.fullmatch(side)
    if match is None or value is None or not _LOG_PROBLEM.search(problem):
        return None
    base = int(match.group(1))
    asked = {(int(m.group(1) or m.group(2)), Fraction(m.group(3))) for m in _STATED_LOG.finditer(problem)}
    if base < 2 or (base, value) not in asked and not (is_reached(Fraction(base)) and is_reached(value)):
        return None
    return match.span(2)


def _unbraced(side: str) -> str:
    """``side`` without spaces around it and one pair of braces around it all (``{\\frac{5}{3}}``)."""
    side = side.strip()
    return side[1:-1].strip() if side.startswith("{") and side.endswith("}") else side


def _rescaled(sides, values, is_reached, strict: set[Fraction], known: set[Fraction]) -> None:
    r"""A reached value written anew as a fraction: in ``\frac{5}{3} = \frac{600}{360}`` (equal values) with 5, 3 and
    360 reached, 600 is ``5/3 \cdot 360``: reached too; in ``\frac{650}{1170} = \frac{65}{117}`` with 650 and 1170
    reached, 65 and 117 are the two divided by their common 10. The new side must be a bare fraction with one new
    number, or a reduction of the old fraction by a common factor that is itself reached as it stands (a basic
    constant, a problem quantity or a derived value, not a percent or reciprocal of one; any divisor of the numbers'
    gcd would launder a free numerator: 85/20 = 17/4 by the 5 of "20%"): two free numbers (``\frac{5}{3} =
    \frac{5 + 0 \cdot 120}{3}``, ``\frac{90}{54}``) would launder any value, and a bare number restates.

    >>> strict, known = {Fraction(5), Fraction(3), Fraction(360)}, set()
    >>> sides = ("\\frac{5}{3}", "\\frac{600}{360}")
    >>> _rescaled(sides, [evaluate(s) for s in sides], lambda v: v in strict, strict, known); sorted(known)
    [Fraction(600, 1)]
    """
    for k in range(len(sides) - 1):
        old, new = values[k], values[k + 1]
        if old is None or new is None or not old.is_exact or not new.is_exact or old.exact != new.exact:
            continue
        literal = _WRITTEN_FRACTION.fullmatch(_unbraced(sides[k + 1]))
        before = _numbers(sides[k])
        if literal is None or not before or not all(is_reached(v) for v, _ in before):
            continue
        after = [v for v, _ in _numbers(sides[k + 1])]
        fresh = [v for v in after if not is_reached(v)]
        if len(after) == 2 and len(fresh) == 2:  # a reduction: both parts divided by one whole number
            top = _WRITTEN_FRACTION.fullmatch(_unbraced(sides[k]))
            parts = [v for v, _ in before]
            if top is None or len(parts) != 2 or 0 in after or any(p.denominator != 1 for p in [*parts, *after]):
                continue
            factor = parts[0] / after[0]
            if factor.denominator != 1 or abs(factor) < 2 or parts[1] / after[1] != factor \
                    or (factor not in strict and factor not in BASIC_CONSTANTS):
                continue  # a factor from nowhere would launder: 85/20 = 17/4 (by 5) makes a free 17 a quantity
        elif len(after) != 2 or len(fresh) != 1 or fresh[0] == 0 or not all(v in strict for v in after if v != fresh[0]):
            continue  # the kept part reached as it stands: a free basic constant would launder (85/20 = 17/4)
        strict.update(fresh)
        known.update(fresh)


@lru_cache(maxsize=1024)
def _trace_equations(steps: tuple[str, ...]) -> tuple[tuple, ...]:
    """Per step, the equations it states as the dataflow reads them: :func:`step_equations`, with a step's first
    equation joined to the last equation of the step before (as read, so a chain carried over several steps keeps
    its first side: ``OP^2 = 10^2 - 6^2``, ``OP^2 = 100 - 36``, ``OP^2 = 64`` read ``OP^2 = 10^2 - 6^2 = 100 - 36 =
    64`` in the third) where both name the same quantity (:func:`rewards.checks.named_chains.join_across`); cached
    per trace (the propagation plan reads them again)."""
    out: list[tuple] = []
    previous: tuple = ()
    for k, text in enumerate(steps):
        read = step_equations(text)
        if previous and read and "=" in text:
            read = join_across(previous, read, steps[k - 1], text)
        out.append(read)
        previous = read
    return tuple(out)


def _equations(steps, index: int) -> tuple:
    """The equations step ``index`` states, as the dataflow reads them (:func:`_trace_equations`)."""
    return _trace_equations(tuple(steps))[index]


def build_dataflow(trace: Trace) -> Dataflow:
    """Build the graph of quantities for ``trace`` (cheap: regexes and exact arithmetic only)."""
    from rewards.checks.answers import approximate_value, named_value  # local: answers imports trace (one-way graph)

    pnums = problem_numbers(trace.problem)
    modular = modular_problem(trace.problem)
    constrained = constrained_variables(trace.problem)
    answer_value = named_value(trace.answer) if trace.answer else None  # "x=5" names 5
    # an irrational answer (3\sqrt{13}, 12\pi) takes the inexact path; every plain number stays off it
    approx = approximate_value(trace.answer) if trace.answer and answer_value is None else None
    inexact: set[Fraction] = set()  # the keys of inexact results derived (an irrational answer is one of them)
    aliases: list[Fraction] = []  # coefficients of derived multiples of pi or a root in this step (_coefficient)
    # angle sums only where the problem speaks of angles: a completion's "think of it as an angle" grounds nothing
    problem_words = _problem_unit_words(trace.problem)  # a word never spans the joining newline
    units = _unit_constants(trace.problem + "\n" + trace.text, problem_words | _unit_words(trace.text)) - \
        (ANGLES - _unit_constants(trace.problem, problem_words))
    pnum_keys = frozenset([_key(v) for v in pnums])  # by _key: an int hit compares natively, a Fraction through
    grounded_keys = pnum_keys | {_key(u) for u in units}  # Python (values are added to these sets as keys too)
    known: set[Fraction] = set(grounded_keys)
    # "2 weeks" -> 14 days, "30 minutes" -> 1/2 hour: a problem quantity in another unit (matched as is, not through
    # the percent/reciprocal transforms of _derived, which would ground almost any small number)
    converted = _Converted(pnum_keys, units)
    strict: set[Fraction] = set(grounded_keys)  # reached from the problem (see StepFlow.unsupported); constants apart:
    # a percent or reciprocal transform applies to a quantity, not to a constant (400 is not "4 percent")
    reached_roots: dict[Fraction, int] = {}  # root of a reached one-unknown equation -> its step
    counting = _counting_problem(trace.problem)
    factoring = _factoring_problem(trace.problem)  # a prime factorisation reaches its parts
    divisors = divisibility_problem(trace.problem)  # a step's divisor facts license numbers (divisor_facts)
    log_problem = "log" in trace.problem  # a power may solve the logarithm it asks (_log_exponent)
    if counting and _ALPHABET.search(trace.problem):  # "2 different letters (A through Z)": 26 of them
        strict.add(Fraction(26))
        known.add(Fraction(26))
    steps: list[StepFlow] = []
    in_figure = False  # inside an [asy] ... [/asy] block (figure code spans lines)
    algebra = _Algebra(trace.problem, approx is not None)
    links: dict[tuple[int, int], AlgebraLink] = {}

    def is_reached(value: Fraction) -> bool:
        """Reached from the problem: a problem quantity (or its unit conversion), a basic constant, or derived from
        such by verified steps so far (``StepFlow.unsupported``)."""
        return _derived(strict, value, _BASIC_KEYS) or value in converted

    last_derived = None
    raw_derivations: dict[tuple[int, int], tuple] = {}  # (step, position) -> _derivation(eq, check as read)
    producers: dict[int | Fraction, int] = {}  # _key(value) -> the latest earlier step that produced it (looked up
    # by a key or a Fraction alike: equal, with one hash; only the steps are read back)
    seen_steps: set[str] = set()
    equations = _trace_equations(tuple(trace.steps))  # once: a lookup per step re-hashes every step (quadratic)
    for index, text in enumerate(trace.steps):
        flow = StepFlow(index)
        written = " ".join(text.split())
        if written in seen_steps and "=" in written:  # a step written again derives nothing new (repeat_steps)
            flow.mentioned.extend(v for v, _ in _numbers(text))
            steps.append(flow)
            continue
        seen_steps.add(written)
        if ")" in text and "^2" in trace.problem and _LINEAR_FACTORS.search(text):  # "(x-7)(x+2)" of the problem's
            factored = _factored(trace.problem, text)                            # x^2 - 5x - 14
            strict.update(factored)
            known.update(factored)
        # "the prime factorization of 15 is 3 x 5": 5 is a fact, in a problem about divisibility
        licensed = divisor_facts(text, is_reached) if divisors else set()
        if licensed:
            strict.update(licensed)
            known.update(licensed)
        boxes = _answer_boxes(text) if trace.answer and "=" in trace.answer else ()  # "\\boxed{x=5}"
        for position, (eq, check) in enumerate(equations[index]):
            as_read = check
            if check.ok is False and check.variable is not None and check.variable in constrained:
                check = EquationCheck(eq, None, check.detail + f" (not refuted: the problem constrains "
                                      f"{check.variable}, and a link may substitute that condition)", check.pairs)
            flow.checks.append(check)
            roles = _roles(eq.sides, eq.values)
            boxed = bool(boxes) and any(a <= eq.span[0] and eq.span[1] <= b for a, b in boxes)  # the answer restated
            given_or_boxed = boxed or _given(eq, trace.problem)
            derivation = _derivation(eq, check, roles) if not given_or_boxed else None
            if check is as_read and not given_or_boxed:
                raw_derivations[(index, position)] = derivation  # for _propagation_plan (None included)
            if derivation is not None and derivation[2] == "evaluated" and _SLASH_FRACTION.fullmatch(derivation[0][0]) \
                    and is_reached(derivation[1]):  # "h = -5/2" after "(-7 + 2)/2 = -5/2": the value written as a
                derivation = None  # fraction, not a computation from 5 and 2 ("p = 7/2" of a 7 m rope still is one)
            if derivation is None and approx is not None and check.ok is True and not eq.approximate \
                    and not _given(eq, trace.problem) and not boxed:  # "\\approx" holds to 1%: no irrational
                derivation = _approximate_derivation(tuple(eq.sides), tuple(eq.values))
                if derivation is not None:
                    inexact.add(derivation[1])
            if derivation is None and approx is None and check.ok is True and "pi" in text and not boxed \
                    and not _given(eq, trace.problem):  # "3^2\\cdot8\\cdot\\pi = 72\\pi" toward a rational answer
                derivation = _pi_coefficient(tuple(eq.sides))
            if derivation is None and check.ok is None and len(eq.sides) == 2 and is_identity(*eq.sides):
                # "x + 0.25x = 1.25x": a rewrite; the new side's numbers are reached when the old side's are
                if all(is_reached(v) for v, _ in _numbers(eq.sides[0])):
                    strict.update(v for v, _ in _numbers(eq.sides[1]))
            elif derivation is None and check.ok is None and len(eq.sides) > 2:
                _reach_rewrites(tuple(eq.sides), is_reached, strict)
            if len(eq.sides) > 2 and check.ok is not False and "frac" in text:  # "= \\frac53 = \\frac{600}{360}"
                _rescaled(eq.sides, eq.values, is_reached, strict, known)
            if check.ok is True and factoring is not None and not _given(eq, trace.problem):  # "196 = 2^2\\cdot7^2"
                parts, used = _factorization_parts(tuple(eq.sides), is_reached, factoring.group(1) is not None)
                strict.update(parts); known.update(parts); aliases.extend(parts); flow.used.extend(used)
            link = None
            if check.ok is not False and (derivation is None or derivation[2] == "solved") and not boxed:
                link = algebra.link(tuple(eq.sides), index, is_reached, pnums)
                if link is not None:
                    links[(index, position)] = link
                    flow.depends_on.update(t for t in link.steps if t != index)
                    if link.kind == "followed" and link.value is None:  # "(x - 5)^2 + (y + 3)^2 = 34 - c" after
                        strict.update(v for side in link.sides for v, _ in _numbers(side)  # the problem's circle;
                                      if v not in BASIC_CONSTANTS)  # "2x = 24" makes no 2 a quantity (a fee's)
                    if link.kind == "substituted":  # what it derives is the number, not the root it restates
                        derivation = (link.sides, link.value, link.kind)
                        flow.used.extend(v for n, v in link.bindings if algebra.bindings[n][1] < 0)  # the problem's
                    elif derivation is None and link.value is not None:  # operands: the name's side
                        derivation = (tuple(side for side in link.sides if _LONE_NAME.fullmatch(side)), link.value,
                                      link.kind)
                        if approx is not None and link.kind == "followed":  # an irrational root chosen
                            inexact.add(link.value)
            if roles is None and derivation is None and (link is None or link.kind != "source"):
                continue
            kind = derivation[2] if derivation is not None else None
            source_sides = link.sides if derivation is None and link is not None and link.kind == "source" else None
            operand_sides = derivation[0] if derivation is not None else source_sides or roles[0]  # a grounded
            # equation with unknowns: every number it states is an input
            operands = 0
            log_result = None
            reached = True  # every operand so far is reached from the problem
            # "5x - 28 = 157" then "5x = 185": a rewrite with the root of an equation already reached is reached;
            # so is an equation that follows by algebra from a grounded one
            rewrite = kind in ("solved", "evaluated") and derivation[1] in reached_roots
            if rewrite and reached_roots[derivation[1]] != index:
                flow.depends_on.add(reached_roots[derivation[1]])  # the equation it rewrites
            rewrite = rewrite or (link is not None and link.kind == "followed")
            opened = False  # some side so far computed from numbers alone (no unknown in it)
            for k, side in enumerate(operand_sides):
                numbers = _numbers(side)
                opened_before, opened = opened, opened or bool(numbers) and not _UNKNOWN_LETTER.search(side)
                if kind != "solved" and operand_sides is not source_sides and len(numbers) == 1 \
                        and BARE_NUMBER.fullmatch(side):
                    continue  # "<<6=6>>6", "x = 33": a restated or solved value, not an operand
                # in a verified chain "9 * 10 - 7 = 90 - 7 = 83", a later side rewrites the first: its partial
                # results are reached when the first side's numbers are
                # (only after a side that computes from numbers alone: after a name, "x = 16 * 3 - 366 = 18" or
                # "x + 0 = …", the next side is the computation, not a rewrite of one, unless the value it computes
                # is reached already: "4a + 3 = 7a - 12" solved, then "a = 15/3 = 5")
                chained = (kind == "computed" and k > 0 and reached
                           and (opened_before or _key(derivation[1]) in strict)) or rewrite
                keys = _number_keys(side)  # looked up by _key: no Fraction hashing
                # constants added or taken away with no source: one may be a count (+1, 2 legs); several in one
                # expression are an amount assembled from nothing ("26 - 2 - 2 - 2 - 2", a lucky fee)
                free_added = [] if chained else [
                    (start, end) for (number, (start, end)), key in zip(numbers, keys)
                    if key in _BASIC_KEYS and key not in strict and key not in converted
                    and _added(side, start, end)]
                falling = _falling_factors(side, numbers, is_reached) if counting and len(numbers) > 1 else ()
                solved_exponent = _log_exponent(trace.problem, side, derivation[1], is_reached) \
                    if log_problem and kind == "computed" and len(numbers) == 2 and "^" in side else None
                if solved_exponent is not None:  # "2^6 = 64" solves log_2 64: its 6 is the result, not an operand
                    falling = {*falling, solved_exponent}
                    log_result = Fraction(side[slice(*solved_exponent)])
                # a fraction written whole whose value an earlier step derived ("-\\frac{5}{2}" after "h = -5/2") is
                # that value: its numerator and denominator are no numbers from nowhere (not a problem number's value:
                # "\\frac{438}{6}" is no 73 the problem lists)
                whole = [(value, span) for value, span in fraction_literals(side)
                         if any(producers.get(_key(v)) is not None and is_reached(v) and _key(v) not in pnum_keys
                                for v in (value, -value))] if not chained and "frac" in side else ()
                for (number, (start, end)), key in zip(numbers, keys):
                    operands += 1
                    inside = next((value for value, (a, b) in whole if a <= start and end <= b), None) \
                        if whole else None
                    if inside is not None:
                        flow.used.append(number)
                        producer = producers.get(_key(inside)) or producers.get(_key(-inside))
                        if producer is not None:
                            flow.depends_on.add(producer)
                        continue
                    if "-" in side[max(0, start - 3):start] and _NEGATED.search(side, 0, start) and -number in strict:
                        key = _key(-number)  # "23 + (-4)" after "b = -4": the operand is the reached -4
                    flow.used.append(number)
                    if (start, end) in falling:  # "10 \\cdot 9": the choices left after one pick
                        continue
                    # asked by key: an int key answers as its equal Fraction would (int has numerator and
                    # denominator, and its arithmetic with a Fraction is exact), without Fraction property calls
                    if not chained and not _derived(known, key) and key not in converted:
                        flow.ungrounded.append(number)  # a later side of a reached chain rewrites the first: its
                        # partial results are grounded (else a padded step that states them would ground them)
                    if not chained and (not is_reached(key) or (key in SMALL_COUNTS or len(free_added) >= 2)
                                        and (start, end) in free_added):
                        flow.unsupported.append(number)
                        reached = False
                    producer = producers.get(key)
                    if producer is None and side[end:end + 1] == "%":  # "1/5 = 20%" then "20% + 10% = 30%"
                        producer = producers.get(number / 100)
                    if producer is not None and key not in pnum_keys and not side[:start].rstrip().endswith("^"):
                        flow.depends_on.add(producer)  # an exponent ("r^2") is notation, not a quantity a step
                        # produced: "\\sqrt{2}\\sqrt{2} = 2" padded before it would join the answer's path
            if roles is not None and check.ok is not False:
                known.add(_key(roles[1]))  # grounding: a stated value may be used later, verified or not
            if log_result is not None and reached:  # the logarithm the power solves
                flow.produced.append(log_result)
                known.add(_key(log_result))
                strict.add(_key(log_result))
                log_result = None
            if derivation is not None and (kind != "computed" or _computes(operand_sides, operands)):
                flow.produced.append(derivation[1])  # only a verified computation or a solved equation
                known.add(_key(derivation[1]))       # carries the chain
                last_derived = derivation[1]
                if reached:
                    strict.add(_key(derivation[1]))
                    if kind == "solved":
                        reached_roots.setdefault(derivation[1], index)
                    elif kind == "computed":
                        algebra.bind_computed(tuple(eq.sides), derivation[1], index, eq.values[0] is None)
                        coefficient = _coefficient(eq.sides[-1]) if approx is not None else None
                        if coefficient is not None:  # "= 20\\pi" derived: "20\\pi - 13\\pi" reads its 20
                            strict.add(_key(coefficient[0]))
                            known.add(_key(coefficient[0]))
                            aliases.append(coefficient[0])
        for chain in congruence_chains(text) if modular and "mod" in text else ():  # "129^{34} + 96^{38} \equiv 9 \pmod{11}"
            derivation = _congruence_derivation(chain)
            if derivation is None:
                continue
            values = [Value(v, float(v), True) for v in chain.values]
            flow.checks.append(EquationCheck(Equation(list(chain.sides), values, chain.span, "latex", chain.relations),
                                             True, f"congruent modulo {chain.modulus}"))
            unreached = False
            substituted = _substituted_head(trace.problem, text, chain) if "equiv" in trace.problem else False
            for side in derivation[0]:
                for number, _span in _numbers(side):
                    flow.used.append(number)
                    if substituted and side is derivation[0][0]:  # "(n+2)(n+4)(n+6) \equiv 4 \cdot 6 \cdot 8"
                        continue                                  # where the problem says n \equiv 2
                    if not _derived(known, number) and number not in converted:
                        flow.ungrounded.append(number)
                    if not is_reached(number):
                        flow.unsupported.append(number)
                        unreached = True
                    producer = producers.get(number)
                    if producer is not None and number not in pnums:
                        flow.depends_on.add(producer)
            flow.produced.append(derivation[1])
            known.add(_key(derivation[1]))
            last_derived = derivation[1]
            if not unreached:
                strict.add(_key(derivation[1]))
        if ("=" in text and not any(c.ok is False for c in flow.checks) and any(c.isalpha() for c in text)
                and _results_unexplained(text, flow.produced)):
            for operand_sides, result in wordy_derivations(text):
                if result in flow.produced:
                    continue
                numbers = [v for side in operand_sides for v, _ in _numbers(side)]
                if len(numbers) < 2:
                    continue
                unreached = [v for v in numbers if not is_reached(v)]
                for v in numbers:
                    flow.used.append(v)
                    if not _derived(known, v) and v not in converted:
                        flow.ungrounded.append(v)
                    producer = producers.get(v)
                    if producer is not None and v not in pnums:
                        flow.depends_on.add(producer)
                flow.unsupported.extend(unreached)
                flow.wordy.append((operand_sides, result))
                flow.produced.append(result)
                known.add(_key(result))
                last_derived = result
                if not unreached:
                    strict.add(_key(result))
        # a step with no equation at all: what it states, it asserts (a figure's code states nothing)
        figure_before = in_figure
        prose, in_figure = _outside_figures(text, in_figure)
        claim = not flow.checks
        stated = _step_numbers(text)
        flow.mentioned.extend([number for number, _span in stated])
        known.update([number.numerator if number.denominator == 1 else number  # _key, inline
                      for number, _span in stated])
        if claim:
            fractions = _reached_fractions(prose, is_reached) if "/" in prose or "frac" in prose else ()
            for number, (start, end) in stated if prose == text else _numbers(prose):
                if not is_reached(number) and not prose[end:end + 1].isalpha():  # "9m": a coefficient, not a quantity
                    if not any(a <= start and end <= b for a, b in fractions):  # "\frac{8}{21}" restated whole
                        flow.stray.append(number)
        elif approx is not None:  # an irrational answer also answers for what a step states beside its equations
            beside = _outside_figures(_beside_equations(text), figure_before)[0]  # "59, \\" where "3^2 + 7^2 = 58"
            for number, (_start, end) in _numbers(beside):
                if not is_reached(number) and not beside[end:end + 1].isalpha():
                    flow.stray.append(number)
        for value in [*flow.produced, *aliases]:
            producers[value.numerator if value.denominator == 1 else value] = index  # _key, inline
        aliases.clear()
        steps.append(flow)
    for index, check in trace_checks(trace.steps, trace.problem):
        steps[index].checks.append(check)
    answer_step = None
    if answer_value is not None:
        percent = answer_value / 100  # once, not per step: a Fraction division runs in Python
        for j in range(len(steps) - 1, -1, -1):  # the answer, or it as a percentage / in cents (3/4 -> "75")
            if answer_value in steps[j].produced or percent in steps[j].produced:
                answer_step = j
                break
    elif approx is not None:
        answer_value, answer_step = _approximate_answer_step(steps, approx, inexact)
    dataflow = Dataflow(steps, pnums, answer_value, answer_step, last_derived, units, links, approx is not None)
    dataflow._derivations = (tuple(trace.steps), raw_derivations)
    dataflow._problem_keys = pnum_keys
    return dataflow


def _literal(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"({value.numerator}/{value.denominator})"


def _substitute(side: str, changed: dict[Fraction, Fraction], first_only: frozenset[Fraction] = frozenset(),
                keep: Fraction | None = None) -> str | None:
    """Replace, in one pass, every literal of ``side`` whose value was changed — of a value in ``first_only`` other
    than ``keep`` that is the side's only two numbers, only the first literal; None when there is none."""
    spans, seen = [], set()
    numbers = _numbers(side)
    for (value, span), key in zip(numbers, _number_keys(side)):  # int keys: no Fraction hashing (_key)
        if key in changed:
            if key in seen and key in first_only and value != keep and len(numbers) == 2:
                continue  # "60/60": a derived 60 minutes over the unit's 60 (not "2 * 60 / 60", a copy)
            spans.append((span, changed[key]))
            seen.add(key)
    if not spans:
        return None
    text = side
    for (start, end), new in sorted(spans, reverse=True) if len(spans) > 1 else spans:
        text = text[:start] + _literal(new) + text[end:]
    return text


def _propagation_plan(trace: Trace, flow: Dataflow) -> list[list[tuple]]:
    """Per step, what each of its equations derives for propagation: ``(equation, algebra link, (operand sides,
    value, kind), key)``, the link's reading where it derives the value; ``key``: the value's :func:`_key`. Worked
    out once per trace (every edit walks the same equations) and kept on ``flow``; what :func:`build_dataflow`
    derived already is reused."""
    steps = tuple(trace.steps)
    if flow._plan is not None and flow._plan[0] == steps:
        return flow._plan[1]
    plan = []  # two threads may both build it: the same plan, assigned whole
    modular = modular_problem(trace.problem)
    built = flow._derivations[1] if flow._derivations is not None and flow._derivations[0] == steps else {}
    equations = _trace_equations(steps)
    for k, text in enumerate(trace.steps):
        entries = []
        for position, (eq, check) in enumerate(equations[k]):
            derivation = built[(k, position)] if (k, position) in built else _derivation(eq, check)  # built
            # already (None included), or worked out
            if derivation is None and flow.approximate and check.ok is True and not eq.approximate:
                derivation = _approximate_derivation(tuple(eq.sides), tuple(eq.values))
            link = flow.links.get((k, position))
            if link is not None and link.value is not None and (derivation is None or
                                                                link.kind == "substituted"):
                derivation = (link.sides, link.value, link.kind)
            if derivation is not None:
                entries.append((eq, link, derivation, _key(derivation[1])))
        for chain in congruence_chains(text) if modular and "mod" in text else ():
            derivation = _congruence_derivation(chain)
            if derivation is not None:
                entries.append((None, None, derivation, _key(derivation[1])))
        plan.append(entries)
    flow._plan = (steps, plan)
    return plan


def _propagate(trace: Trace, flow: Dataflow, step: int, old: Fraction, new: Fraction, *,
               from_input: bool = False, only: frozenset[int] | None = None,
               until: Fraction | None = None, local: bool = False,
               work: list[int] | None = None) -> dict[Fraction, Fraction]:
    """Push ``old -> new`` (a result of ``step``, or with ``from_input`` a problem quantity first used in ``step``)
    through the verified equations from there on (only through the steps ``only`` when given: the answer's
    derivation, whose last step is the last that can matter).

    Edits are keyed by value, so two quantities with one value are told apart only by two rules: with ``local`` (a
    problem quantity whose value the problem states twice: "5 shirts", "5 of the pants") the edit applies to the
    literals of ``step`` only; and a derived value that equals a unit factor (``12 + 21 + 27 = 60`` minutes, then
    ``60/60 = 1`` hour) changes only its first literal in an expression. The edits come back keyed by their
    :func:`_key` (whole values as ints: look a ``Fraction`` up in it, never read its keys as values)."""
    changed = {_key(old): new}  # keyed by _key (equal keys, native hashes): callers look up Fractions in it
    retired: dict[Fraction, Fraction] = {}  # a local edit after its step: only the root equations re-solved see it
    unit_like = flow.units  # unit factors named by a word (not every common constant)
    keep = old if from_input else None  # an edited problem quantity changes in every literal
    steps = range(step, len(flow.steps)) if only is None else sorted(t for t in only if t >= step)
    plan = _propagation_plan(trace, flow)
    until_key = _key(until) if until is not None else None  # lookups by _key: no Fraction hashing
    for k in steps:
        if until is not None and until_key in changed:
            break  # the value asked about has moved: later steps cannot move it again
        seen_source = from_input or k > step  # in the edited step itself, only equations after the edited one
        for eq, link, (operand_sides, result, kind), result_key in plan[k]:
            if not seen_source:
                seen_source = result == old
                continue
            if result_key in changed:
                continue
            if kind in ("followed", "substituted"):
                moved = _propagate_link(link, result, changed, work, retired)
                if moved is not None and moved != result:
                    changed[result_key] = moved
                continue
            if kind == "congruence":  # the edited first side, reduced modulo the (edited) modulus
                first, modulus = (_substitute(side, changed, unit_like, keep) or side for side in operand_sides)
                values = [_value(evaluate(side)) for side in (first, modulus)]
                moved = _residue(*values, result) if None not in values and (first, modulus) != operand_sides \
                    else None
                if moved is not None and moved != result:
                    changed[result_key] = moved
                continue
            if kind == "solved":
                left, right = (_substitute(side, changed, unit_like, keep) or side for side in eq.sides)
                root = solve_linear(left, right) if (left, right) != tuple(eq.sides) else None
                if root is not None and root != result:
                    changed[result_key] = root
                continue
            for side in operand_sides:
                edited = _substitute(side, changed, unit_like, keep)
                if edited is not None:
                    value = evaluate(edited)
                    if value is None:
                        continue
                    new_result = value.exact if value.is_exact and value.exact is not None else \
                        (approx_key(value.approx) if flow.approximate else
                         Fraction(value.approx).limit_denominator(10**6)) if math.isfinite(value.approx) else None
                    if new_result is not None and new_result != result:  # √168 is inexact but moved
                        changed[result_key] = new_result
                        if flow.approximate:
                            _move_coefficient(eq.sides[-1], new_result, changed)
                        break
        for operand_sides, result in flow.steps[k].wordy:  # "5 sites x 7 birds/site = 35 birds"
            if seen_source and result not in changed:
                edited = _substitute(operand_sides[0], changed, unit_like, keep)
                value = _value(evaluate(_unit_free(edited))) if edited is not None else None
                if value is not None and value != result:
                    changed[result] = value
        if local and k == step and changed.get(old) == new and old != until:
            # the problem's other quantity with this value is not edited: later literals keep it (an algebraic
            # derivation re-solves the equation it started from, which may hold the edited literal, with it)
            retired[old] = changed.pop(old)
    return changed


def _propagate_link(link: AlgebraLink, result: Fraction, changed: dict[Fraction, Fraction],
                    work: list[int] | None = None, retired: dict[Fraction, Fraction] | None = None
                    ) -> Fraction | None:
    """Where an algebraic derivation's value goes under the edits ``changed``: a followed value is the root of the
    edited grounded equation it started from (with the ``retired`` local edits too: that equation may hold the edited
    literal) that is nearest the old value; a substituted one is its expression with the edited solved values (and
    numbers) put in. None when it cannot be worked out exactly."""
    if work is not None:  # one budget for every re-solve of a trace's counterfactuals (ALGEBRA_WORK)
        if not work:
            work.append(algebra_work())
        elif algebra_work() - work[0] > ALGEBRA_WORK:
            return None
    if link.kind == "followed" and link.root is not None:
        edits = {**retired, **changed} if retired else changed
        edited = [_substitute(side, edits) for side in link.root]
        if all(side is None for side in edited):
            return None
        root = tuple(new or side for new, side in zip(edited, link.root))
        found = rational_roots(*root) or real_roots(*root)  # a quadratic edited by +1 rarely keeps rational roots
        if found is None:
            return None
        return min(found[1], key=lambda root: (abs(root - result), root))
    if link.kind == "substituted" and link.sides:
        bindings = {name: changed.get(value, value) for name, value in link.bindings}
        expression = _substitute(link.sides[0], changed) or link.sides[0]
        if bindings == dict(link.bindings) and expression == link.sides[0]:
            return None
        return substitutes(expression, bindings)
    return None


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


def answer_path(flow: Dataflow) -> frozenset[int]:
    """The steps the answer's derivations run through: every step that derived the answer's value (an algebra
    solution often derives it twice: ``x + x + 20 = 180`` and later ``2x = 160``) and their ancestors (empty when
    no step derived it)."""
    return frozenset().union(*answer_derivations(flow))


def answer_derivations(flow: Dataflow) -> list[frozenset[int]]:
    """The answer's derivations: the last step that derived its value, and each earlier step that derived it and
    that the last derivation does not build past — each with its ancestors (empty when no step derived it).

    An earlier step whose result merely equals the answer (``1/4 x 8 = 2``), when the last derivation is built on
    later, different results (``8 - 4 = 4``, then an invented "fee": ``4 - 0.8 - 1.2 = 2``), is a coincidence, not
    a derivation of the answer. Algebra that derives the answer several times (``x + x + 20 = 180``, then
    ``2x = 160``, ``x = 160/2``) keeps every derivation.
    """
    if flow.answer_step is None:
        return []
    target = _derived_answer(flow)
    last = flow.answer_step
    last_ancestors = flow.ancestors(last)
    out = [frozenset(last_ancestors | {last})]
    target_key = _key(target)  # an int key: a list's == takes Fraction's fast path for an int
    earlier = [t for t in range(last) if target_key in flow.steps[t].produced]
    if not earlier:
        return out
    # built_past[t]: a step between t and the last one that the last derivation builds on (an ancestor, or a step
    # whose result it uses) produced a value other than the answer. One backward pass: a scan per earlier step
    # cost O(steps) each, quadratic on a long trace where the answer's value recurs (64 x 1,800 steps at 128k
    # characters)
    used_last = flow.steps[last].used
    built_past = [False] * last
    seen = False
    for a in range(last - 1, earlier[0] - 1, -1):
        built_past[a] = seen
        produced = flow.steps[a].produced
        if not seen and (a in last_ancestors or any(v in used_last for v in produced)) and \
                any(v != target for v in produced):
            seen = True
    for t in earlier:
        if not built_past[t]:
            out.append(frozenset(flow.ancestors(t) | {t}))
    return out


def _derived_answer(flow: Dataflow) -> Fraction:
    """The value the answer step derived: the answer, or the fraction it states in percent or cents."""
    answer = flow.answer_value
    return answer if answer in flow.steps[flow.answer_step].produced else answer / 100


def input_counterfactuals(trace: Trace, flow: Dataflow, *,
                          path: frozenset[int] | None = None) -> list[Intervention]:
    """Edits of the *problem quantities* the answer's derivation uses, each propagated through the verified
    equations: ``expected`` is where the answer should move (``None`` when it does not move).

    An answer that no problem quantity reaches through checked operations has no edit at all (an empty list):
    restating the answer, or copying it beside unrelated arithmetic, derives nothing.

    >>> from rewards.parsing.trace import parse_trace
    >>> t = parse_trace("Ann has 3 apples and buys 4 bags of 2.", "4 * 2 = 8 new apples.\\n3 + 8 = 11 apples.\\n#### 11")
    >>> [(i.old, i.new, i.expected) for i in input_counterfactuals(t, build_dataflow(t))]
    [(Fraction(4, 1), Fraction(5, 1), Fraction(13, 1)), (Fraction(2, 1), Fraction(3, 1), Fraction(15, 1)), (Fraction(3, 1), Fraction(4, 1), Fraction(12, 1))]

    ``path``: :func:`answer_path` of ``flow`` when the caller has it.
    """
    if path is None:
        path = answer_path(flow)
    if not path or flow.answer_value is None:
        return []
    answer = _derived_answer(flow)
    answer_key = _key(answer)
    first_use: dict[int | Fraction, tuple[Fraction, int]] = {}  # _key(value) -> (value, its first step)
    pnums = flow._problem_keys if flow._problem_keys is not None else flow.problem_numbers  # lookups by _key
    for t in sorted(path):
        for value in flow.steps[t].used:
            key = value.numerator if value.denominator == 1 else value  # _key, inline: no Fraction hashing
            if key in pnums and key not in first_use:
                first_use[key] = (value, t)
    out: list[Intervention] = []
    stated = _number_keys(trace.problem)  # the problem's values, by _key (counted: equal keys, equal values)
    work: list[int] = []  # algebra_work() at the first algebraic re-solve
    for key, (value, step) in list(first_use.items())[:MAX_INTERVENTIONS]:
        new = value + 1 if value.denominator == 1 else value * 2
        if new == answer:
            new = value + 2
        expected = _propagate(trace, flow, step, value, new, from_input=True, only=path, until=answer,
                              local=stated.count(key) >= 2, work=work).get(answer_key)
        out.append(Intervention(step, value, new, expected if expected != answer else None))
    return out


_NUMERAL = re.compile(r"\d")


def quantity_coverage(trace: Trace, flow: Dataflow, path: frozenset[int] | None = None,
                      used: frozenset[Fraction] | None = None) -> tuple[int, int]:
    r"""``(used, stated)``: how many of the distinct quantities the problem writes as numerals (``48``, ``$18.00``,
    ``20%``; not number words, which are often no quantity: "one day", "a pair") the answer's derivation uses as
    an operand — as written, in percent (``20`` as ``0.2``), or converted by a unit factor (``2`` weeks as ``14``).
    ``path``: the answer's derivation steps when the caller has them (:func:`answer_path`); ``used``: the values of
    the quantities the answer depends on when the caller knows them (the derivation read as a function of the
    problem's quantities, :meth:`rewards.scoring.derivation.DerivationFunction.used_values`: a quantity that cancels
    is not used), instead of every operand on the path.

    The paper's skipped muffins: an answer reached without a quantity the problem gives is evidence that the
    derivation is a shortcut that happens to land. Not proof: half of GSM8K's gold solutions leave a distractor or a
    restated number unused, so the reward only weighs it (:attr:`~rewards.scoring.score.RAFSConfig.unused_exponent`).

    >>> from rewards.parsing.trace import parse_trace
    >>> p = "Janet's ducks lay 16 eggs. She eats 3 and bakes with 4. She sells the rest at $2 each. How much?"
    >>> t = parse_trace(p, "16 - 3 - 4 = 9 eggs.\n9 * 2 = 18 dollars.\n#### 18")
    >>> quantity_coverage(t, build_dataflow(t))
    (4, 4)
    >>> t = parse_trace(p, "16 + 2 = 18 dollars.\n#### 18")
    >>> quantity_coverage(t, build_dataflow(t))
    (2, 4)
    """
    problem = trace.problem
    stated = {v for v, (start, _end) in _numbers(problem) if _NUMERAL.match(problem, start) or
              _NUMERAL.search(problem[start:start + 2])}
    if not stated:
        return 0, 0
    if used is None:
        operands: set[Fraction] = set()
        for t in answer_path(flow) if path is None else path:
            operands.update(flow.steps[t].used)
        used = operands
    if not used:
        return 0, len(stated)
    units = flow.units
    hits = 0
    for v in stated:
        if v in used or v / 100 in used or any(v * u in used or v / u in used for u in units):
            hits += 1
    return hits, len(stated)



def derivation_entries(trace: Trace, flow: Dataflow) -> list[list[tuple[tuple[str, ...], Fraction, str]]]:
    """Per step, what its equations derive, in order: ``(operand sides, value, kind)`` (``kind`` one of
    ``computed``, ``evaluated``, ``solved``, ``followed``, ``substituted``, ``congruence``), then the computations
    written with unit words (:func:`wordy_derivations`, as ``computed``). The reading the counterfactual propagation
    uses (worked out once per trace); :mod:`rewards.scoring.derivation` builds the answer's function from it."""
    plan = _propagation_plan(trace, flow)
    return [[(tuple(d[0]), d[1], d[2]) for _eq, _link, d, _key in entries]
            + [(tuple(sides), result, "computed") for sides, result in flow.steps[k].wordy]
            for k, entries in enumerate(plan)]
