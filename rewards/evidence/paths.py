"""The answer's derivations in the graph (:func:`answer_derivations`, :func:`answer_path`) and how many of the
problem's quantities they use (:func:`quantity_coverage`).
"""

from __future__ import annotations

import re
from fractions import Fraction

from rewards.evidence.model import Dataflow
from rewards.evidence.quantities import read_numbers, value_key
from rewards.parsing.trace import Trace


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
    target = derived_answer(flow)
    last = flow.answer_step
    last_ancestors = flow.ancestors(last)
    out = [frozenset(last_ancestors | {last})]
    target_key = value_key(target)  # an int key: a list's == takes Fraction's fast path for an int
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


def derived_answer(flow: Dataflow) -> Fraction:
    """The value the answer step derived: the answer, or the fraction it states in percent or cents."""
    answer = flow.answer_value
    return answer if answer in flow.steps[flow.answer_step].produced else answer / 100


_NUMERAL = re.compile(r"\d")


def quantity_coverage(trace: Trace, flow: Dataflow, path: frozenset[int] | None = None,
                      used: frozenset[Fraction] | None = None) -> tuple[int, int]:
    r"""``(used, stated)``: how many of the distinct quantities the problem writes as numerals (``48``, ``$18.00``,
    ``20%``; not number words, which are often no quantity: "one day", "a pair") the answer's derivation uses as
    an operand — as written, in percent (``20`` as ``0.2``), or converted by a unit factor (``2`` weeks as ``14``).
    ``path``: the answer's derivation steps when the caller has them (:func:`answer_path`); ``used``: the values of
    the quantities the answer depends on when the caller knows them (the derivation read as a function of the
    problem's quantities, :meth:`rewards.evidence.derivation_function.DerivationFunction.used_values`: a quantity that
    cancels is not used), instead of every operand on the path.

    The paper's skipped muffins: an answer reached without a quantity the problem gives is evidence that the
    derivation is a shortcut that happens to land. Not proof: half of GSM8K's gold solutions leave a distractor or a
    restated number unused, so the reward only weighs it (:attr:`~rewards.scoring.score.RAFSConfig.unused_exponent`).

    >>> from rewards.parsing.trace import parse_trace
    >>> from rewards.evidence.builder import build_dataflow
    >>> p = "Janet's ducks lay 16 eggs. She eats 3 and bakes with 4. She sells the rest at $2 each. How much?"
    >>> t = parse_trace(p, "16 - 3 - 4 = 9 eggs.\n9 * 2 = 18 dollars.\n#### 18")
    >>> quantity_coverage(t, build_dataflow(t))
    (4, 4)
    >>> t = parse_trace(p, "16 + 2 = 18 dollars.\n#### 18")
    >>> quantity_coverage(t, build_dataflow(t))
    (2, 4)
    """
    problem = trace.problem
    stated = {v for v, (start, _end) in read_numbers(problem) if _NUMERAL.match(problem, start) or
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
