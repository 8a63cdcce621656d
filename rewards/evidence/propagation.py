"""Counterfactual edits: push an edited quantity through the verified equations (:func:`counterfactuals` edits a
step's result, :func:`input_counterfactuals` a problem quantity), over the per-step plan of what each equation
derives (:func:`derivation_entries`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from rewards.checks.algebra import algebra_work, rational_roots, real_roots, substitutes
from rewards.checks.arithmetic import evaluate
from rewards.checks.solving import solve_linear
from rewards.checks.algebra.determined import determined_value
from rewards.evidence.algebra_links import ALGEBRA_WORK, expression_side
from rewards.evidence.equation_derivations import equation_derivation, trace_equations
from rewards.evidence.irrational import approx_key, approximate_derivation, move_coefficient
from rewards.evidence.model import AlgebraLink, Dataflow, Derivation, Intervention, MAX_INTERVENTIONS
from rewards.evidence.paths import answer_path, derived_answer
from rewards.evidence.problem_kinds import rules_for
from rewards.evidence.problem_kinds.modular import residue_of
from rewards.evidence.quantities import exact_value, number_keys, read_numbers, value_key
from rewards.evidence.wordy import unit_free
from rewards.parsing.trace import Trace


def _literal(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"({value.numerator}/{value.denominator})"


def _substitute(side: str, changed: dict[Fraction, Fraction], first_only: frozenset[Fraction] = frozenset(),
                keep: Fraction | None = None) -> str | None:
    """Replace, in one pass, every literal of ``side`` whose value was changed — of a value in ``first_only`` other
    than ``keep`` that is the side's only two numbers, only the first literal; None when there is none."""
    spans, seen = [], set()
    numbers = read_numbers(side)
    for (value, span), key in zip(numbers, number_keys(side)):  # int keys: no Fraction hashing (value_key)
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
    value, kind), key)``, the link's reading where it derives the value; ``key``: the value's :func:`value_key`. Worked
    out once per trace (every edit walks the same equations) and kept on ``flow``; what :func:`build_dataflow`
    derived already is reused."""
    steps = tuple(trace.steps)
    if flow._plan is not None and flow._plan[0] == steps:
        return flow._plan[1]
    plan = []  # two threads may both build it: the same plan, assigned whole
    rules = rules_for(trace.problem)
    built = flow._derivations[1] if flow._derivations is not None and flow._derivations[0] == steps else {}
    # what build_dataflow read (else once per trace here), indexed per step
    equations = flow._equations[1] if flow._equations is not None and flow._equations[0] == steps \
        else trace_equations(steps)
    for k, text in enumerate(trace.steps):
        entries = []
        for position, (eq, check) in enumerate(equations[k]):
            derivation = built[(k, position)] if (k, position) in built else equation_derivation(eq, check)  # built
            # already (None included), or worked out
            if derivation is None and flow.approximate and check.ok is True and not eq.approximate:
                derivation = approximate_derivation(tuple(eq.sides), tuple(eq.values))
            link = flow.links.get((k, position))
            if link is not None and link.value is not None and (derivation is None or
                                                                link.kind == "substituted"):
                derivation = Derivation(link.sides, link.value, link.kind)
            if derivation is not None:
                entries.append((eq, link, derivation, value_key(derivation.value)))
        for rule in rules:  # what a problem-kind rule derives beside the equations (a congruence chain)
            entries.extend((None, None, derivation, value_key(derivation.value))
                           for derivation in rule.plan_entries(text))
        plan.append(entries)
    flow._plan = (steps, plan)
    return plan


@dataclass(slots=True)
class _Edits:
    """The edits of one counterfactual as they propagate: ``changed`` (by :func:`value_key`), the ``retired`` local
    edits (seen only by the root equations re-solved), the unit factors whose derived equals change only their
    first literal, the edited problem quantity that changes in every literal (``keep``), the shared algebra budget
    (``work``) and whether the answer is irrational (inexact results keyed by :func:`approx_key`)."""

    changed: dict
    retired: dict
    units: frozenset
    keep: Fraction | None
    work: list[int] | None
    approximate: bool

    def substitute(self, side: str) -> str | None:
        return _substitute(side, self.changed, self.units, self.keep)


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
    :func:`value_key` (whole values as ints: look a ``Fraction`` up in it, never read its keys as values)."""
    # keyed by value_key (equal keys, native hashes): callers look up Fractions in it; unit factors named by a word
    # (not every common constant); an edited problem quantity changes in every literal
    edits = _Edits({value_key(old): new}, {}, flow.units, old if from_input else None, work, flow.approximate)
    changed = edits.changed
    steps = range(step, len(flow.steps)) if only is None else sorted(t for t in only if t >= step)
    plan = _propagation_plan(trace, flow)
    until_key = value_key(until) if until is not None else None  # lookups by value_key: no Fraction hashing
    for k in steps:
        if until is not None and until_key in changed:
            break  # the value asked about has moved: later steps cannot move it again
        seen_source = from_input or k > step  # in the edited step itself, only equations after the edited one
        for entry in plan[k]:
            if not seen_source:
                seen_source = entry[2][1] == old
                continue
            _move_entry(entry, edits)
        if seen_source:
            _move_wordy(flow.steps[k].wordy, edits)
        if local and k == step and changed.get(old) == new and old != until:
            # the problem's other quantity with this value is not edited: later literals keep it (an algebraic
            # derivation re-solves the equation it started from, which may hold the edited literal, with it)
            edits.retired[old] = changed.pop(old)
    return changed


def _move_entry(entry: tuple, edits: _Edits) -> None:
    """Where one plan entry's value goes under ``edits``; recorded in ``edits.changed`` when it moves."""
    eq, link, (operand_sides, result, kind), result_key = entry
    if result_key in edits.changed:
        return
    if kind in ("followed", "substituted"):
        moved = _propagate_link(link, result, edits.changed, edits.work, edits.retired)
    elif kind == "congruence":
        moved = _move_congruence(operand_sides, result, edits)
    elif kind == "solved":
        moved = _move_solved(eq, edits)
    else:
        moved = _move_computed(operand_sides, result, edits)
    if moved is None or moved == result:
        return
    edits.changed[result_key] = moved
    if edits.approximate and kind not in ("followed", "substituted", "congruence", "solved"):
        move_coefficient(eq.sides[-1], moved, edits.changed)


def _move_congruence(operand_sides: tuple[str, ...], result: Fraction, edits: _Edits) -> Fraction | None:
    """The edited first side, reduced modulo the (edited) modulus."""
    first, modulus = (edits.substitute(side) or side for side in operand_sides)
    values = [exact_value(evaluate(side)) for side in (first, modulus)]
    return residue_of(*values, result) if None not in values and (first, modulus) != operand_sides else None


def _move_solved(eq, edits: _Edits) -> Fraction | None:
    """A solved linear equation, solved again with the edited literals."""
    left, right = (edits.substitute(side) or side for side in eq.sides)
    return solve_linear(left, right) if (left, right) != tuple(eq.sides) else None


def _move_computed(operand_sides: tuple[str, ...], result: Fraction, edits: _Edits) -> Fraction | None:
    """A computation re-evaluated with the edited literals: the first operand side whose value moves."""
    for side in operand_sides:
        edited = edits.substitute(side)
        if edited is None:
            continue
        value = evaluate(edited)
        if value is None:
            continue
        new_result = value.exact if value.is_exact and value.exact is not None else \
            (approx_key(value.approx) if edits.approximate else
             Fraction(value.approx).limit_denominator(10**6)) if math.isfinite(value.approx) else None
        if new_result is not None and new_result != result:  # √168 is inexact but moved
            return new_result
    return None


def _move_wordy(wordy: list, edits: _Edits) -> None:
    """Computations written with unit words ("5 sites x 7 birds/site = 35 birds"), re-evaluated."""
    for operand_sides, result in wordy:
        if result not in edits.changed:
            edited = edits.substitute(operand_sides[0])
            value = exact_value(evaluate(unit_free(edited))) if edited is not None else None
            if value is not None and value != result:
                edits.changed[result] = value


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
        expression = expression_side(link.sides)  # "a + b = 997": the edited equation's value of a + b
        if expression is not None:
            return determined_value(root, expression[0])
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


def input_counterfactuals(trace: Trace, flow: Dataflow, *,
                          path: frozenset[int] | None = None) -> list[Intervention]:
    """Edits of the *problem quantities* the answer's derivation uses, each propagated through the verified
    equations: ``expected`` is where the answer should move (``None`` when it does not move).

    An answer that no problem quantity reaches through checked operations has no edit at all (an empty list):
    restating the answer, or copying it beside unrelated arithmetic, derives nothing.

    >>> from rewards.parsing.trace import parse_trace
    >>> from rewards.evidence.builder import build_dataflow
    >>> t = parse_trace("Ann has 3 apples and buys 4 bags of 2.", "4 * 2 = 8 new apples.\\n3 + 8 = 11 apples.\\n#### 11")
    >>> [(i.old, i.new, i.expected) for i in input_counterfactuals(t, build_dataflow(t))]
    [(Fraction(4, 1), Fraction(5, 1), Fraction(13, 1)), (Fraction(2, 1), Fraction(3, 1), Fraction(15, 1)), (Fraction(3, 1), Fraction(4, 1), Fraction(12, 1))]

    ``path``: :func:`answer_path` of ``flow`` when the caller has it.
    """
    if path is None:
        path = answer_path(flow)
    if not path or flow.answer_value is None:
        return []
    answer = derived_answer(flow)
    answer_key = value_key(answer)
    first_use: dict[int | Fraction, tuple[Fraction, int]] = {}  # value_key(value) -> (value, its first step)
    pnums = flow._problem_keys if flow._problem_keys is not None else flow.problem_numbers  # lookups by value_key
    for t in sorted(path):
        for value in flow.steps[t].used:
            key = value.numerator if value.denominator == 1 else value  # value_key, inline: no Fraction hashing
            if key in pnums and key not in first_use:
                first_use[key] = (value, t)
    out: list[Intervention] = []
    stated = number_keys(trace.problem)  # the problem's values, by value_key (counted: equal keys, equal values)
    work: list[int] = []  # algebra_work() at the first algebraic re-solve
    for key, (value, step) in list(first_use.items())[:MAX_INTERVENTIONS]:
        new = value + 1 if value.denominator == 1 else value * 2
        if new == answer:
            new = value + 2
        expected = _propagate(trace, flow, step, value, new, from_input=True, only=path, until=answer,
                              local=stated.count(key) >= 2, work=work).get(answer_key)
        out.append(Intervention(step, value, new, expected if expected != answer else None))
    return out



def derivation_entries(trace: Trace, flow: Dataflow) -> list[list[Derivation]]:
    """Per step, what its equations derive, in order: ``(operand sides, value, kind)`` (``kind`` one of
    ``computed``, ``evaluated``, ``solved``, ``followed``, ``substituted``, ``congruence``), then the computations
    written with unit words (:func:`wordy_derivations`, as ``computed``). The reading the counterfactual propagation
    uses (worked out once per trace); :mod:`rewards.evidence.derivation_function` builds the answer's function from
    it."""
    plan = _propagation_plan(trace, flow)
    return [[Derivation(tuple(d.sides), d.value, d.kind) for _eq, _link, d, _key in entries]
            + [Derivation(tuple(sides), result, "computed") for sides, result in flow.steps[k].wordy]
            for k, entries in enumerate(plan)]
