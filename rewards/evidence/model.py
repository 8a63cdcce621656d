"""The evidence data model: what one step states, uses and produces (:class:`StepFlow`), the quantities of a
whole trace (:class:`Dataflow`), the algebra behind an equation with unknowns (:class:`AlgebraLink`) and one
counterfactual edit (:class:`Intervention`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple
from fractions import Fraction

from rewards.checks.arithmetic import EquationCheck


MAX_INTERVENTIONS = 12
"""At most this many counterfactual edits per trace (the latest computing steps first are the pivotal ones)."""


class Derivation(NamedTuple):
    """What one equation derives: the operand sides it computes from, the value, and how (``computed``: a verified
    computation; ``evaluated``: a name assigned a computation; ``solved``: a linear equation's root; ``followed``,
    ``substituted``: algebra (:class:`AlgebraLink`); ``congruence``: a residue; ``coefficient``: a multiple of pi
    read by its coefficient)."""

    sides: tuple[str, ...]
    value: Fraction
    kind: str


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
    result derive it too, keyed by :func:`approx_key` (:func:`approximate_derivation`)."""
    symbolic: "SymbolicChain | None" = field(default=None, compare=False)
    """An answer in letters reached from the problem's own expression by verified algebra
    (:func:`~rewards.evidence.symbolic_answers.symbolic_chain`; ``None``: none, or the answer is a number)."""
    _plan: tuple | None = field(default=None, init=False, repr=False, compare=False)
    """``(the trace's steps, plan)``: what each step's equations derive for counterfactual propagation
    (:func:`_propagation_plan`), worked out once per trace; not copied by ``dataclasses.replace``."""
    _problem_keys: frozenset | None = field(default=None, init=False, repr=False, compare=False)
    """``problem_numbers`` by :func:`value_key`, for lookups by key (set by :func:`build_dataflow`; not copied either)."""
    _equations: tuple | None = field(default=None, init=False, repr=False, compare=False)
    """``(the trace's steps, trace_equations(steps))``: the equations :func:`build_dataflow` read, per step, for
    :func:`_propagation_plan` to reuse (not copied either)."""
    _derivations: tuple | None = field(default=None, init=False, repr=False, compare=False)
    """``(the trace's steps, {(step, position): equation_derivation(eq, check)})``: what :func:`build_dataflow` worked out
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
