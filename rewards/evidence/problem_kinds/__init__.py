"""Problem-kind rules: plug-ins that know one kind of problem, with one protocol
(:class:`~rewards.evidence.problem_kinds.base.ProblemKindRule`) and one registry (:data:`RULES`), as the claim
checkers of :mod:`rewards.checks.claims` are. Each rule decides whether it applies to a problem; the builder calls
the hooks of those that do (:func:`rules_for`), in registry order.

To add a rule: a module here with a ``ProblemKindRule`` subclass, and its instance in :data:`RULES`.

>>> [rule.name for rule in rules_for("How many ways can 3 of 10 people be chosen?")]
['counting']
>>> [rule.name for rule in rules_for("What is the remainder when $2^{10}$ is divided by 7?")]
['divisibility', 'modular']
"""

from __future__ import annotations

from functools import lru_cache

from rewards.evidence.problem_kinds.base import ProblemKindRule
from rewards.evidence.problem_kinds.counting import CountingRule
from rewards.evidence.problem_kinds.divisibility import DivisibilityRule
from rewards.evidence.problem_kinds.factoring import FactoringRule
from rewards.evidence.problem_kinds.letters import LetterCountRule
from rewards.evidence.problem_kinds.logarithms import LogarithmRule
from rewards.evidence.problem_kinds.modular import ModularRule
from rewards.evidence.problem_kinds.quadratics import QuadraticRule

__all__ = ["ProblemKindRule", "RULES", "rules_for"]

RULES: tuple[ProblemKindRule, ...] = (QuadraticRule(), DivisibilityRule(), CountingRule(), FactoringRule(),
                                      LogarithmRule(), ModularRule(), LetterCountRule())
"""Every problem-kind rule, in the order the builder calls their hooks (a quadratic's factors are reached before a
divisor fact is licensed from what is reached)."""


@lru_cache(maxsize=4096)
def rules_for(problem: str) -> tuple[ProblemKindRule, ...]:
    """The rules that apply to ``problem``, in registry order (cached: the completions of a group share it)."""
    return tuple(rule for rule in RULES if rule.applies(problem))
