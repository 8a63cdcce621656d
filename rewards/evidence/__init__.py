r"""The evidence layer: what a trace states, uses and derives — below the verifiers, above the checks.

The dataflow graph of quantities in a trace: what each step uses and produces, grounding, counterfactuals.

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
problem is a given, not a derivation, and a number written another way (``1\frac{4}{5} = \frac{9}{5}``) computes
nothing.

Counterfactual propagation (structural sensitivity): edit one step's result ``v -> v'`` and push the change
through every later verified equation that uses it, re-evaluating each edited expression exactly.
:func:`input_counterfactuals` edits instead a *problem quantity* the answer's derivation uses (what RAFS's
``S_RA`` reads): the answer is supported only when it moves with the problem's own numbers. The answer *moves*
when the final answer's value is among the propagated changes. An intervention is valid only when it keeps
the four constraints of the design: atomic (one number of one step), bounded (one number), isolated (no other
step is edited) and free of answer leakage (neither the old nor the new value is the final answer).

>>> from rewards.parsing.trace import parse_trace
>>> t = parse_trace("Ann has 3 apples and buys 4 bags of 2.", "4 * 2 = 8 new apples.\n3 + 8 = 11 apples.\n#### 11")
>>> flow = build_dataflow(t)
>>> flow.answer_step, sorted(flow.steps[1].depends_on)
(1, [0])
>>> [(i.step, i.moves) for i in counterfactuals(t, flow)]
[(0, True)]
"""

from rewards.evidence.builder import build_dataflow
from rewards.evidence.derivation_function import DerivationFunction, derivation_function
from rewards.evidence.irrational import ANSWER_MATCH_REL_TOL, approx_key
from rewards.evidence.lexicon import problem_numbers
from rewards.evidence.model import AlgebraLink, Dataflow, Derivation, Intervention, StepFlow
from rewards.evidence.paths import answer_derivations, answer_path, quantity_coverage
from rewards.evidence.problem_kinds.divisibility import MAX_DIVISOR_FACT, divisibility_problem, divisor_facts
from rewards.evidence.propagation import counterfactuals, derivation_entries, input_counterfactuals
from rewards.evidence.quantities import BASIC_CONSTANTS, COMMON_CONSTANTS, fraction_literals
from rewards.evidence.readings import MAX_NODES, MAX_QUANTITIES, MAX_READINGS

__all__ = ["COMMON_CONSTANTS", "BASIC_CONSTANTS", "AlgebraLink", "Derivation", "StepFlow", "Dataflow", "Intervention",
           "build_dataflow", "counterfactuals", "input_counterfactuals", "answer_path", "answer_derivations",
           "problem_numbers", "quantity_coverage", "approx_key", "ANSWER_MATCH_REL_TOL", "fraction_literals",
           "divisor_facts", "divisibility_problem", "MAX_DIVISOR_FACT", "derivation_entries", "DerivationFunction",
           "derivation_function", "MAX_NODES", "MAX_READINGS", "MAX_QUANTITIES"]
