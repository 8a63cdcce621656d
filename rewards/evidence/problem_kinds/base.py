"""The protocol of a problem-kind rule: one class per kind of problem (modular arithmetic, counting, factoring,
logarithms, …) that decides itself whether a problem is of its kind and, where it is, adds what that kind licenses
while :class:`~rewards.evidence.builder.DataflowBuilder` walks a trace.

The builder asks every registered rule :meth:`ProblemKindRule.applies` once per trace and calls the hooks of the
rules that apply, at fixed points of its walk; every hook has a default that does nothing, so a rule overrides only
the ones it needs. The builder never tests the problem's text for a kind itself.

>>> class Dozens(ProblemKindRule):
...     name = "dozens"
...     def applies(self, problem):
...         return "dozen" in problem
>>> Dozens().applies("a dozen eggs"), Dozens().operand_spans(None, "12 * 3", (), "computed", None)
(True, ((), None))
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from rewards.checks.arithmetic import Equation, EquationCheck
    from rewards.evidence.builder import DataflowBuilder
    from rewards.evidence.model import Derivation, StepFlow

__all__ = ["ProblemKindRule"]

class ProblemKindRule:
    """A rule about one kind of problem. Subclasses set :attr:`name` and implement :meth:`applies`.

    The hooks, in the order the builder calls them (``builder`` is the
    :class:`~rewards.evidence.builder.DataflowBuilder`: its ``strict`` / ``known`` sets of reached and grounded
    values, its ``is_reached`` test, ``producers``, ``aliases`` …):

    * :meth:`start` — once, before the first step;
    * :meth:`before_step` — before a step's equations are read (facts a step's words license);
    * :meth:`on_equation` — for each equation, after its derivation is read, before its operands are;
    * :meth:`operand_spans` — for each operand side: spans of numbers that are no operands, and a value the side
      solves for;
    * :meth:`after_step` — after a step's equations (derivations the equation reader does not see);
    * :meth:`plan_entries` — what a step derives beside its equations, for counterfactual propagation.
    """

    name: str = ""

    def applies(self, problem: str) -> bool:
        """Whether ``problem`` is of this kind (cheap: asked once per trace)."""
        raise NotImplementedError

    def start(self, builder: DataflowBuilder) -> None:
        return None

    def before_step(self, builder: DataflowBuilder, flow: StepFlow, text: str) -> None:
        return None

    def on_equation(self, builder: DataflowBuilder, flow: StepFlow, eq: Equation, check: EquationCheck) -> None:
        return None

    def operand_spans(self, builder: DataflowBuilder, side: str, numbers, kind: str | None,
                      value: Fraction | None) -> tuple[tuple | set, Fraction | None]:
        return (), None

    def after_step(self, builder: DataflowBuilder, flow: StepFlow, text: str) -> None:
        return None

    def plan_entries(self, text: str) -> list[Derivation]:
        return []

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"
