"""The builder of the evidence graph: :func:`build_dataflow`.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from rewards.checks.arithmetic import EquationCheck
from rewards.checks.claims import trace_checks
from rewards.checks.equations import BARE_NUMBER
from rewards.checks.identities import constrained_variables
from rewards.checks.solving import is_identity
from rewards.evidence.algebra_links import AlgebraTracker, LONE_NAME, expression_side
from rewards.evidence.answer_reach import component_answer, rounded_answer
from rewards.evidence.bound_answers import bound_chain
from rewards.evidence.counted_answers import counted_answer
from rewards.evidence.enumerations import bracketed_count, enumerated_count
from rewards.evidence.equation_derivations import (SLASH_FRACTION, answer_boxes, computes, equation_derivation,
                                                   equation_roles, is_given, trace_equations)
from rewards.evidence.figures import outside_figures
from rewards.evidence.implicit import implicit_operation, written_operand
from rewards.evidence.irrational import (approx_key, approximate_answer_step, approximate_derivation, beside_equations,
                                         irrational_coefficient, pi_coefficient)
from rewards.evidence.latex_derivations import latex_answer_step
from rewards.evidence.latex_steps import symbolic_checks
from rewards.evidence.radical_chains import constants_licensed, radical_answer_step
from rewards.evidence.licences import Licences, license_before, license_facts
from rewards.evidence.lexicon import ANGLES, Converted, problem_numbers, problem_unit_words, unit_constants, unit_words
from rewards.evidence.model import AlgebraLink, Dataflow, Derivation, StepFlow
from rewards.evidence.operands import NEGATED, added_term
from rewards.evidence.problem_kinds import rules_for
from rewards.evidence.quantities import (BASIC_CONSTANTS, BASIC_KEYS, SMALL_COUNTS, UNKNOWN_LETTER, fraction_literals,
                                         grounded, number_keys, reached_fractions, read_numbers, step_numbers,
                                         value_key)
from rewards.evidence.rewrites import reach_rewrites, rescaled
from rewards.evidence.substitutions import derive_chains, plus_minus_links
from rewards.evidence.symbolic_answers import symbolic_chain
from rewards.evidence.vector_answers import scaled_vector_answer
from rewards.evidence.wordy import results_unexplained, wordy_derivations
from rewards.parsing.trace import Trace


@dataclass(slots=True)
class OperandScan:
    """What the builder has read so far of one equation's operand sides."""

    sides: tuple[str, ...]
    kind: str | None
    operands: int = 0
    reached: bool = True
    """Every operand so far is reached from the problem."""
    opened: bool = False
    """Some side so far computed from numbers alone (no unknown in it)."""
    solved: Fraction | None = None
    """A value a side solves for, not an operand (a logarithm's exponent: :meth:`ProblemKindRule.operand_spans`)."""


class DataflowBuilder:
    """One walk over a trace's steps that builds its :class:`~rewards.evidence.model.Dataflow`.

    The state it keeps while walking, which the problem-kind rules (:mod:`rewards.evidence.problem_kinds`) read and
    extend through their hooks:

    * ``known`` — grounded values (problem quantities, unit factors, anything stated so far), by :func:`value_key`;
    * ``strict`` — values *reached* from the problem (see ``StepFlow.unsupported``): problem quantities, unit
      factors, and what verified steps derived from them (constants apart: a percent or reciprocal transform
      applies to a quantity, not to a constant);
    * ``converted`` — a problem quantity in another unit ("2 weeks" -> 14 days);
    * ``producers`` — value key -> the latest earlier step that produced it;
    * ``aliases`` — values the current step derives under another name (a multiple of pi's coefficient);
    * ``reached_roots`` — root of a reached one-unknown equation -> its step;
    * ``algebra`` and ``links`` — equations with unknowns (:class:`~rewards.evidence.algebra_links.AlgebraTracker`).
    """

    __slots__ = ("trace", "problem", "pnums", "constrained", "answer_value", "approx", "inexact", "aliases", "units",
                 "pnum_keys", "known", "converted", "strict", "reached_roots", "rules", "steps", "in_figure", "algebra",
                 "links", "last_derived", "raw_derivations", "producers", "seen_steps", "equations", "licences")

    def __init__(self, trace: Trace) -> None:
        from rewards.checks.answers import approximate_value, named_value  # local: answers imports trace (one-way)

        problem = trace.problem
        self.trace, self.problem = trace, problem
        self.equations = trace_equations(tuple(trace.steps))  # once per trace, indexed per step
        self.pnums = problem_numbers(problem)
        self.constrained = constrained_variables(problem)
        self.answer_value = named_value(trace.answer) if trace.answer else None  # "x=5" names 5
        # an irrational answer (3\sqrt{13}, 12\pi) takes the inexact path; every plain number stays off it
        self.approx = approximate_value(trace.answer) if trace.answer and self.answer_value is None else None
        self.inexact: set[Fraction] = set()  # the keys of inexact results derived
        self.aliases: list[Fraction] = []
        # angle sums only where the problem speaks of angles: a completion's "think of it as an angle" grounds nothing
        problem_words = problem_unit_words(problem)  # a word never spans the joining newline
        self.units = unit_constants(problem + "\n" + trace.text, problem_words | unit_words(trace.text)) - \
            (ANGLES - unit_constants(problem, problem_words))
        self.pnum_keys = frozenset([value_key(v) for v in self.pnums])
        grounded_keys = self.pnum_keys | {value_key(u) for u in self.units}
        self.known: set[Fraction] = set(grounded_keys)
        self.converted = Converted(self.pnum_keys, self.units)
        self.strict: set[Fraction] = set(grounded_keys)
        self.reached_roots: dict[Fraction, int] = {}
        self.rules = rules_for(problem)
        self.steps: list[StepFlow] = []
        self.in_figure = False  # inside an [asy] ... [/asy] block (figure code spans lines)
        self.algebra = AlgebraTracker(problem, self.approx is not None)
        self.links: dict[tuple[int, int], AlgebraLink] = {}
        self.last_derived: Fraction | None = None
        self.raw_derivations: dict[tuple[int, int], tuple] = {}  # (step, position) -> equation_derivation as read
        self.producers: dict[int | Fraction, int] = {}
        self.seen_steps: set[str] = set()
        self.licences = Licences(problem if isinstance(problem, str) else "")  # facts and checked trials
        for rule in self.rules:
            rule.start(self)

    def is_reached(self, value: Fraction) -> bool:
        """Reached from the problem: a problem quantity (or its unit conversion), a basic constant, or derived from
        such by verified steps so far (``StepFlow.unsupported``)."""
        return grounded(self.strict, value, BASIC_KEYS) or value in self.converted

    def build(self) -> Dataflow:
        """Walk every step, add the claim checkers' findings, find the answer's step."""
        for index, text in enumerate(self.trace.steps):
            self.steps.append(self.read_step(index, text))
        for index, check in trace_checks(self.trace.steps, self.problem):
            self.steps[index].checks.append(check)
        if not any(flow.checkable for flow in self.steps):  # written in letters only: read its symbolic algebra
            for index, check in symbolic_checks(self.trace.steps):
                self.steps[index].checks.append(check)
        plus_minus_links(self)  # the quadratic formula over several lines: its verified numbers are reached
        derive_chains(self, constants_licensed)  # irrational sub-results of verified LaTeX chains, for later steps
        answer_value, answer_step = self.answer()
        dataflow = Dataflow(self.steps, self.pnums, answer_value, answer_step, self.last_derived, self.units,
                            self.links, self.approx is not None)
        if answer_value is None and answer_step is None and self.approx is None:
            dataflow.symbolic = self.symbolic_answer()
        if answer_step is None and self.approx is None and dataflow.symbolic is None:
            dataflow.symbolic = self.bound_answer()  # an integer or interval read off a solved inequality
        steps = tuple(self.trace.steps)
        dataflow._derivations = (steps, self.raw_derivations)
        dataflow._equations = (steps, self.equations)
        dataflow._problem_keys = self.pnum_keys
        return dataflow

    def answer(self) -> tuple[Fraction | None, int | None]:
        """The answer's value and the last step that produced it (or it as a percentage / in cents: 3/4 -> "75")."""
        answer_value = self.answer_value
        if answer_value is not None:
            percent = answer_value / 100  # once, not per step: a Fraction division runs in Python
            for j in range(len(self.steps) - 1, -1, -1):
                if answer_value in self.steps[j].produced or percent in self.steps[j].produced:
                    return answer_value, j
            return answer_value, self.latex_answer(answer_value, answer_value)
        if self.approx is not None:  # an irrational answer: the equations' own, stricter path first
            found = approximate_answer_step(self.steps, self.approx, self.inexact)
            chain = radical_answer_step(self)  # and a verified LaTeX chain that computes it (radical_chains): its
            if chain is None:  # numbers are verified results, no claims from nowhere
                return found
            key = found[0] if found[1] is not None else approx_key(self.approx)
            self.inexact.add(key)
            step = self.record_answer_step(chain, key)
            return key, step if found[1] is None else max(step, found[1])
        return self.component_answer()

    def symbolic_answer(self):
        """An answer in letters reached from the problem's expression by verified algebra
        (:func:`~rewards.evidence.symbolic_answers.symbolic_chain`): its links are recorded as passed checks of
        their steps (once: a link :func:`symbolic_checks` recorded already is not added again)."""
        chain = symbolic_chain(self.problem, self.trace.steps, self.trace.answer)
        if chain is not None:
            for t, check in chain.links:
                if not any(c.equation.sides == check.equation.sides for c in self.steps[t].checks):
                    self.steps[t].checks.append(check)
        return chain

    def bound_answer(self):
        """An answer read off a verified chain of inequalities from the problem
        (:func:`~rewards.evidence.bound_answers.bound_chain`): its links are recorded as passed checks of their
        steps."""
        chain = bound_chain(self.problem, self.trace.steps, self.trace.answer)
        if chain is not None:
            for t, check in chain.links:
                self.steps[t].checks.append(check)
        return chain

    def component_answer(self) -> tuple[Fraction | None, int | None]:
        """An ordered pair, vector or interval whose coordinates the chain derived
        (:func:`~rewards.evidence.answer_reach.component_answer`): the coordinate the dataflow follows and its step,
        which depends on the steps of the others."""
        if not self.trace.answer:
            return None, None
        found = component_answer(self, self.trace.answer)
        if found is not None:
            value, (step, _operands, depends, _written) = found
            self.steps[step].depends_on.update(t for t in depends if t < step)
            return value, step
        found = scaled_vector_answer(self, self.trace.answer)  # a scalar times a vector, checked exactly
        return (None, None) if found is None else (found[0], self.record_answer_step(found[1], found[0]))

    def latex_answer(self, target: Fraction | float, key: Fraction) -> int | None:
        """The step of a verified LaTeX chain from the problem to an answer no equation derived
        (:func:`rewards.evidence.latex_derivations.latex_answer_step`): it produces ``key``, uses the chain's
        first side, and the numbers the chain writes are verified results, no stray or ungrounded claims."""
        found = latex_answer_step(self, self.trace.answer, target) if self.trace.answer else None
        if found is None and isinstance(target, Fraction):  # the chain's result rounded as the trace says
            found = rounded_answer(self, target) or counted_answer(self, target) \
                or enumerated_count(self, target) or bracketed_count(self, target)  # or the derived solutions
            # counted, a checked list's size, or the distinct values of the problem's expression's bracketings
        return None if found is None else self.record_answer_step(found, key)

    def record_answer_step(self, found: tuple, key: Fraction) -> int:
        """Record ``found`` (``(step, operands, steps it depends on, verified numbers per step)``) as the step that
        produced the answer's ``key``: its operands used, the steps depended on, the numbers the chain writes no
        claims from nowhere."""
        step, operands, depends, written = found
        flow = self.steps[step]
        flow.produced.append(key)
        flow.used.extend(v for v in dict.fromkeys(operands) if v not in flow.used)  # read once: no "repeated" operand
        flow.depends_on.update(t for t in depends if t < step)
        for t, values in written.items():  # verified results (or the answer put back), not numbers from nowhere
            chained = self.steps[t]
            chained.stray = [v for v in chained.stray if v not in values]
            chained.ungrounded = [v for v in chained.ungrounded if v not in values]
            chained.unsupported = [v for v in chained.unsupported if v not in values]
        if self.last_derived is None:
            self.last_derived = key
        return step

    def read_step(self, index: int, text: str) -> StepFlow:
        """What step ``index`` states, uses and produces."""
        flow = StepFlow(index)
        written = " ".join(text.split())
        if written in self.seen_steps and "=" in written:  # a step written again derives nothing new (repeat_steps)
            flow.mentioned.extend(v for v, _ in read_numbers(text))
            return flow
        self.seen_steps.add(written)
        for rule in self.rules:
            rule.before_step(self, flow, text)
        boxes = answer_boxes(text) if self.trace.answer and "=" in self.trace.answer else ()  # "\\boxed{x=5}"
        license_before(self, index, text)  # a value tried and checked against the problem's equation is reached
        for position, (eq, check) in enumerate(self.equations[index]):
            self.read_equation(flow, (index, position), eq, check, boxes, text)
        for rule in self.rules:
            rule.after_step(self, flow, text)
        license_facts(self, flow, text)  # a true fact about reached numbers derives its result
        self.read_wordy(flow, text)
        self.read_prose(flow, text)
        for value in [*flow.produced, *self.aliases]:
            self.producers[value.numerator if value.denominator == 1 else value] = index  # value_key, inline
        self.aliases.clear()
        return flow

    def read_equation(self, flow: StepFlow, at: tuple[int, int], eq, check: EquationCheck, boxes, text: str) -> None:
        """One equation of a step (``at``: its step and position): its check, what it derives, its operands."""
        as_read = check
        if check.ok is False and check.variable is not None and check.variable in self.constrained:
            check = EquationCheck(eq, None, check.detail + f" (not refuted: the problem constrains "
                                  f"{check.variable}, and a link may substitute that condition)", check.pairs)
        flow.checks.append(check)
        roles = equation_roles(eq.sides, eq.values)
        boxed = bool(boxes) and any(a <= eq.span[0] and eq.span[1] <= b for a, b in boxes)  # the answer restated
        given = is_given(eq, self.problem)
        raw, derivation = self.derive(eq, check, roles, boxed or given, text)
        if check is as_read and not (boxed or given):
            self.raw_derivations[at] = raw  # for the propagation plan (None included)
        self.reach_rewritten(eq, check, derivation, text)
        for rule in self.rules:
            rule.on_equation(self, flow, eq, check)
        link, derivation = self.link_algebra(flow, at, eq, check, derivation, boxed)
        if derivation is not None and derivation.kind == "computed" and check.ok is True and not boxed:
            self.reach_solving(flow, at[0], eq)
        if roles is None and derivation is None and (link is None or link.kind != "source"):
            return
        scan = self.read_operands(flow, at[0], roles, derivation, link)
        self.record(flow, at[0], eq, check, roles, derivation, scan)

    def derive(self, eq, check: EquationCheck, roles, given_or_boxed: bool, text: str) -> tuple:
        """``(as read, as taken)``: what the equation derives as the equation reader reads it, and what the
        dataflow takes it to derive (a fraction that restates a reached value derives nothing; an irrational or
        a multiple of pi may derive its value)."""
        raw = equation_derivation(eq, check, roles) if not given_or_boxed else None
        derivation = raw
        if derivation is not None and derivation.kind == "evaluated" and SLASH_FRACTION.fullmatch(derivation.sides[0]) \
                and self.is_reached(derivation.value):  # "h = -5/2" after "(-7 + 2)/2 = -5/2": the value written as a
            derivation = None  # fraction, not a computation from 5 and 2 ("p = 7/2" of a 7 m rope still is one)
        if derivation is None and self.approx is not None and check.ok is True and not eq.approximate \
                and not given_or_boxed:  # "\\approx" holds to 1%: no irrational
            derivation = approximate_derivation(tuple(eq.sides), tuple(eq.values))
            if derivation is not None and not constants_licensed(self.problem, " = ".join(eq.sides)):
                derivation = None  # pi or a sine the problem gives no reason for: a constant from nowhere
            if derivation is not None:
                self.inexact.add(derivation.value)
        if derivation is None and self.approx is None and check.ok is True and "pi" in text \
                and not given_or_boxed:  # "3^2\\cdot8\\cdot\\pi = 72\\pi" toward a rational answer
            derivation = pi_coefficient(tuple(eq.sides))
        return raw, derivation

    def reach_rewritten(self, eq, check: EquationCheck, derivation, text: str) -> None:
        """Numbers reached because a side rewrites a reached one: an identity, a chain of identities, a fraction
        written anew (:mod:`rewards.evidence.rewrites`)."""
        if derivation is None and check.ok is None and len(eq.sides) == 2 and is_identity(*eq.sides):
            # "x + 0.25x = 1.25x": a rewrite; the new side's numbers are reached when the old side's are
            if all(self.is_reached(v) for v, _ in read_numbers(eq.sides[0])):
                self.strict.update(v for v, _ in read_numbers(eq.sides[1]))
        elif derivation is None and check.ok is None and len(eq.sides) > 2:
            reach_rewrites(tuple(eq.sides), self.is_reached, self.strict)
        if len(eq.sides) > 2 and check.ok is not False and "frac" in text:  # "= \\frac53 = \\frac{600}{360}"
            rescaled(eq.sides, eq.values, self.is_reached, self.strict, self.known)

    def reach_solving(self, flow: StepFlow, index: int, eq) -> None:
        """``h_c = \\frac{168}{25} = 6.72`` after the grounded ``84 = \\frac{1}{2} \\cdot 25 \\cdot h_c``: the
        computation solves that equation (:meth:`AlgebraTracker.solved_by`), so the one number it writes that
        nothing reached (168, twice the area) is derived by the solving. At most one such number: with two, the
        computation could be any pair of invented numbers that gives the root (``1000 - 993.28``)."""
        middle = [v for side in eq.sides[1:-1] for v, _ in read_numbers(side)]
        unreached = {value_key(v) for v in middle if not self.is_reached(v)}
        if len(unreached) != 1:
            return
        step = self.algebra.solved_by(tuple(eq.sides))
        if step is not None:
            self.strict.update(unreached)
            if step != index:
                flow.depends_on.add(step)

    def link_algebra(self, flow: StepFlow, at: tuple[int, int], eq, check: EquationCheck, derivation, boxed: bool
                     ) -> tuple[AlgebraLink | None, tuple | None]:
        """The algebra behind an equation with unknowns (:class:`~rewards.evidence.model.AlgebraLink`), and what
        the equation derives with it."""
        if check.ok is False or not (derivation is None or derivation.kind == "solved") or boxed:
            return None, derivation
        index = at[0]
        link = self.algebra.link(tuple(eq.sides), index, self.is_reached, self.pnums)
        if link is None:
            return None, derivation
        self.links[at] = link
        flow.depends_on.update(t for t in link.steps if t != index)
        # "(x - 5)^2 + (y + 3)^2 = 34 - c" after the problem's circle (or "a + b = 997" after "2(a + b) = 1994")
        if link.kind == "followed" and (link.value is None or expression_side(link.sides)):
            self.strict.update(v for side in link.sides for v, _ in read_numbers(side)  # the problem's circle;
                               if v not in BASIC_CONSTANTS)  # "2x = 24" makes no 2 a quantity (a fee's)
        if link.kind == "substituted":  # what it derives is the number, not the root it restates
            derivation = Derivation(link.sides, link.value, link.kind)
            flow.used.extend(v for n, v in link.bindings if self.algebra.bindings[n][1] < 0)  # the problem's
        elif derivation is None and link.value is not None:  # operands: the name's side
            derivation = Derivation(tuple(side for side in link.sides if LONE_NAME.fullmatch(side)), link.value,
                                    link.kind)
            if self.approx is not None and link.kind == "followed":  # an irrational root chosen
                self.inexact.add(link.value)
        return link, derivation

    def read_operands(self, flow: StepFlow, index: int, roles, derivation, link) -> OperandScan:
        """Every operand of the equation: used, grounded or not, reached or not, and the steps it depends on."""
        kind = derivation.kind if derivation is not None else None
        source_sides = link.sides if derivation is None and link is not None and link.kind == "source" else None
        # a grounded equation with unknowns: every number it states is an input
        scan = OperandScan(derivation.sides if derivation is not None else source_sides or roles[0], kind)
        # "5x - 28 = 157" then "5x = 185": a rewrite with the root of an equation already reached is reached;
        # so is an equation that follows by algebra from a grounded one
        rewrite = kind in ("solved", "evaluated") and derivation.value in self.reached_roots
        if rewrite and self.reached_roots[derivation.value] != index:
            flow.depends_on.add(self.reached_roots[derivation.value])  # the equation it rewrites
        rewrite = rewrite or (link is not None and link.kind == "followed")
        for k, side in enumerate(scan.sides):
            self.read_side(flow, scan, k, side, derivation, scan.sides is source_sides, rewrite)
        return scan

    def read_side(self, flow: StepFlow, scan: OperandScan, k: int, side: str, derivation, from_source: bool,
                  rewrite: bool) -> None:
        """The operands of one side (the ``k``-th operand side)."""
        numbers = read_numbers(side)
        opened_before, scan.opened = scan.opened, scan.opened or bool(numbers) and not UNKNOWN_LETTER.search(side)
        if scan.kind != "solved" and not from_source and len(numbers) == 1 and BARE_NUMBER.fullmatch(side):
            return  # "<<6=6>>6", "x = 33": a restated or solved value, not an operand
        # in a verified chain "9 * 10 - 7 = 90 - 7 = 83", a later side rewrites the first: its partial results are
        # reached when the first side's numbers are (only after a side that computes from numbers alone: after a
        # name, "x = 16 * 3 - 366 = 18" or "x + 0 = …", the next side is the computation, not a rewrite of one,
        # unless the value it computes is reached already: "4a + 3 = 7a - 12" solved, then "a = 15/3 = 5")
        chained = (scan.kind == "computed" and k > 0 and scan.reached
                   and (opened_before or value_key(derivation.value) in self.strict)) or rewrite
        keys = number_keys(side)  # looked up by value_key: no Fraction hashing
        # constants added or taken away with no source: one may be a count (+1, 2 legs); several in one
        # expression are an amount assembled from nothing ("26 - 2 - 2 - 2 - 2", a lucky fee)
        free_added = [] if chained else [
            (start, end) for (number, (start, end)), key in zip(numbers, keys)
            if key in BASIC_KEYS and key not in self.strict and key not in self.converted
            and added_term(side, start, end)]
        skipped = self.not_operands(scan, side, numbers, derivation) if self.rules else ()
        whole = self.whole_fractions(side) if not chained and "frac" in side else ()
        for (number, span), key in zip(numbers, keys):
            scan.operands += 1
            self.read_operand(flow, scan, side, (number, key, span), chained, whole, skipped, free_added)

    def not_operands(self, scan: OperandScan, side: str, numbers, derivation) -> tuple | set:
        """Spans of ``side`` the problem-kind rules say are no operands (and the value the side solves for)."""
        skipped: tuple | set = ()
        for rule in self.rules:
            spans, solved = rule.operand_spans(self, side, numbers, scan.kind,
                                               derivation.value if derivation is not None else None)
            if spans:
                skipped = {*skipped, *spans}
            if solved is not None:
                scan.solved = solved
        return skipped

    def whole_fractions(self, side: str) -> list:
        """A fraction written whole whose value an earlier step derived ("-\\frac{5}{2}" after "h = -5/2") is that
        value: its numerator and denominator are no numbers from nowhere (not a problem number's value:
        "\\frac{438}{6}" is no 73 the problem lists)."""
        return [(value, span) for value, span in fraction_literals(side)
                if any(self.producers.get(value_key(v)) is not None and self.is_reached(v)
                       and value_key(v) not in self.pnum_keys for v in (value, -value))]

    def read_operand(self, flow: StepFlow, scan: OperandScan, side: str, number_at: tuple, chained: bool, whole,
                     skipped, free_added: list) -> None:
        """One operand: ``number_at`` is ``(number, its value key, its span)``."""
        number, key, (start, end) = number_at
        inside = next((value for value, (a, b) in whole if a <= start and end <= b), None) if whole else None
        if inside is not None:
            flow.used.append(number)
            producer = self.producers.get(value_key(inside)) or self.producers.get(value_key(-inside))
            if producer is not None:
                flow.depends_on.add(producer)
            return
        if "-" in side[max(0, start - 3):start] and NEGATED.search(side, 0, start) and -number in self.strict:
            key = value_key(-number)  # "23 + (-4)" after "b = -4": the operand is the reached -4
        flow.used.append(number)
        if (start, end) in skipped:  # "10 \\cdot 9": the choices left after one pick
            return
        # asked by key: an int key answers as its equal Fraction would
        if not chained and not grounded(self.known, key) and key not in self.converted:
            flow.ungrounded.append(number)  # a later side of a reached chain rewrites the first: its partial
            # results are grounded (else a padded step that states them would ground them)
        if not chained and (not self.is_reached(key) or (key in SMALL_COUNTS or len(free_added) >= 2)
                            and (start, end) in free_added):
            flow.unsupported.append(number)
            scan.reached = False
        producer = self.producers.get(key)
        if producer is None and side[end:end + 1] == "%":  # "1/5 = 20%" then "20% + 10% = 30%"
            producer = self.producers.get(number / 100)
        if producer is not None and key not in self.pnum_keys and not side[:start].rstrip().endswith("^"):
            flow.depends_on.add(producer)  # an exponent ("r^2") is notation, not a quantity a step produced

    def record(self, flow: StepFlow, index: int, eq, check: EquationCheck, roles, derivation,
               scan: OperandScan) -> None:
        """What the equation produces: its stated value is known; a verified computation or a solved equation
        carries the chain (reached when every operand is)."""
        if roles is not None and check.ok is not False:
            self.known.add(value_key(roles[1]))  # grounding: a stated value may be used later, verified or not
        if scan.solved is not None and scan.reached:  # the logarithm the power solves
            flow.produced.append(scan.solved)
            self.known.add(value_key(scan.solved))
            self.strict.add(value_key(scan.solved))
        if derivation is None or (scan.kind == "computed" and not computes(scan.sides, scan.operands)):
            return
        value = derivation.value
        flow.produced.append(value)
        self.known.add(value_key(value))
        self.last_derived = value
        if not scan.reached:
            return
        self.strict.add(value_key(value))
        if scan.kind == "solved":
            self.reached_roots.setdefault(value, index)
        elif scan.kind == "computed":
            self.algebra.bind_computed(tuple(eq.sides), value, index, eq.values[0] is None)
            coefficient = irrational_coefficient(eq.sides[-1]) if self.approx is not None else None
            if coefficient is not None:  # "= 20\\pi" derived: "20\\pi - 13\\pi" reads its 20
                self.strict.add(value_key(coefficient[0]))
                self.known.add(value_key(coefficient[0]))
                self.aliases.append(coefficient[0])

    def read_wordy(self, flow: StepFlow, text: str) -> None:
        """Computations written with unit words that the step's equations did not derive (:func:`wordy_derivations`)."""
        if not ("=" in text and not any(c.ok is False for c in flow.checks) and any(c.isalpha() for c in text)
                and results_unexplained(text, flow.produced)):
            return
        for operand_sides, result in wordy_derivations(text):
            if result in flow.produced:
                continue
            numbers = [v for side in operand_sides for v, _ in read_numbers(side)]
            if len(numbers) < 2:
                continue
            unreached = [v for v in numbers if not self.is_reached(v)]
            for v in numbers:
                flow.used.append(v)
                if not grounded(self.known, v) and v not in self.converted:
                    flow.ungrounded.append(v)
                producer = self.producers.get(v)
                if producer is not None and v not in self.pnums:
                    flow.depends_on.add(producer)
            flow.unsupported.extend(unreached)
            flow.wordy.append((operand_sides, result))
            flow.produced.append(result)
            self.known.add(value_key(result))
            self.last_derived = result
            if not unreached:
                self.strict.add(value_key(result))

    def read_implicit(self, flow: StepFlow, prose: str, numbers, number: Fraction, start: int, end: int) -> bool:
        """A sentence that states one operation's operand and result but not its sign ("With the 4 that were
        already ripe, there will be 14", after 10 was derived): derived as that operation
        (:func:`~rewards.evidence.implicit.implicit_operation`); ``False`` when it is no such sentence."""
        previous = self.last_derived
        if previous is None or not self.is_reached(previous) or written_operand(prose, start, end):
            return False  # "= 3 + 5 + 4 Total ...": an operand of written arithmetic is no stated result
        begin = max(prose.rfind(". ", 0, start), prose.rfind("\n", 0, start)) + 1
        sentence = [(v, (a, b)) for v, (a, b) in numbers if begin <= a and b <= prose.find(". ", start) % (len(prose) + 1)]
        if any(not self.is_reached(v) for v, (a, _b) in sentence if a != start):
            return False  # no other unreached number in the sentence than the result
        operands = [v for v, (_a, b) in sentence if b <= start and self.is_reached(v)
                    and (value_key(v) in self.pnum_keys or value_key(v) in self.producers)]
        found = implicit_operation(number, previous, operands)
        if found is None:
            return False
        side, result = found
        operand = Fraction(side.rsplit(" ", 1)[1])
        flow.used.extend([previous, operand])
        for v in (previous, operand):  # both operands' steps: "35 - 5 = 30" made up before "with the 30 more"
            producer = self.producers.get(value_key(v))
            if producer is not None and value_key(v) not in self.pnum_keys:
                flow.depends_on.add(producer)
        flow.wordy.append(((side,), result))
        flow.produced.append(result)
        self.known.add(value_key(result))
        self.strict.add(value_key(result))
        self.last_derived = result
        return True

    def read_prose(self, flow: StepFlow, text: str) -> None:
        """What a step states outside its equations: a step with no equation at all asserts what it states (a
        figure's code states nothing); beside an irrational answer's equations, so does the prose."""
        figure_before = self.in_figure
        prose, self.in_figure = outside_figures(text, self.in_figure)
        claim = not flow.checks
        stated = step_numbers(text)
        flow.mentioned.extend([number for number, _span in stated])
        self.known.update([number.numerator if number.denominator == 1 else number  # value_key, inline
                           for number, _span in stated])
        if claim:
            fractions = reached_fractions(prose, self.is_reached) if "/" in prose or "frac" in prose else ()
            numbers = stated if prose == text else read_numbers(prose)
            for number, (start, end) in numbers:
                if not self.is_reached(number) and not prose[end:end + 1].isalpha():  # "9m": a coefficient
                    if not any(a <= start and end <= b for a, b in fractions):  # "\frac{8}{21}" restated whole
                        if not self.read_implicit(flow, prose, numbers, number, start, end):
                            flow.stray.append(number)
        elif self.approx is not None:  # an irrational answer also answers for what a step states beside its equations
            beside = outside_figures(beside_equations(text), figure_before)[0]  # "59, \\" where "3^2 + 7^2 = 58"
            for number, (_start, end) in read_numbers(beside):
                if not self.is_reached(number) and not beside[end:end + 1].isalpha():
                    flow.stray.append(number)


def build_dataflow(trace: Trace) -> Dataflow:
    """Build the graph of quantities for ``trace`` (cheap: regexes and exact arithmetic only):
    :class:`DataflowBuilder` walks its steps once."""
    return DataflowBuilder(trace).build()
