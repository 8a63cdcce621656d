"""The builder of the evidence graph: :func:`build_dataflow`.
"""

from __future__ import annotations

from fractions import Fraction

from rewards.checks.arithmetic import Equation, EquationCheck, Value
from rewards.checks.claims import trace_checks
from rewards.checks.claims.congruences import congruence_chains
from rewards.checks.equations import BARE_NUMBER
from rewards.checks.identities import constrained_variables
from rewards.checks.solving import is_identity
from rewards.evidence.algebra_links import AlgebraTracker, LONE_NAME
from rewards.evidence.equation_derivations import (SLASH_FRACTION, answer_boxes, computes, equation_derivation,
                                                   equation_roles, is_given, step_equations_of)
from rewards.evidence.figures import outside_figures
from rewards.evidence.irrational import (approximate_answer_step, approximate_derivation, beside_equations,
                                         irrational_coefficient, pi_coefficient)
from rewards.evidence.lexicon import ANGLES, Converted, problem_numbers, problem_unit_words, unit_constants, unit_words
from rewards.evidence.model import AlgebraLink, Dataflow, StepFlow
from rewards.evidence.operands import NEGATED, added_term
from rewards.evidence.problem_kinds.counting import ALPHABET, counting_problem, falling_factors
from rewards.evidence.problem_kinds.divisibility import divisibility_problem, divisor_facts
from rewards.evidence.problem_kinds.factoring import factoring_problem, factorization_parts
from rewards.evidence.problem_kinds.logarithms import log_exponent
from rewards.evidence.problem_kinds.modular import congruence_derivation, modular_problem, substituted_head
from rewards.evidence.problem_kinds.quadratics import LINEAR_FACTORS, quadratic_factors
from rewards.evidence.quantities import (BASIC_CONSTANTS, BASIC_KEYS, SMALL_COUNTS, UNKNOWN_LETTER, fraction_literals,
                                         grounded, number_keys, reached_fractions, read_numbers, step_numbers,
                                         value_key)
from rewards.evidence.rewrites import reach_rewrites, rescaled
from rewards.evidence.wordy import results_unexplained, wordy_derivations
from rewards.parsing.trace import Trace


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
    aliases: list[Fraction] = []  # coefficients of derived multiples of pi or a root in this step (irrational_coefficient)
    # angle sums only where the problem speaks of angles: a completion's "think of it as an angle" grounds nothing
    problem_words = problem_unit_words(trace.problem)  # a word never spans the joining newline
    units = unit_constants(trace.problem + "\n" + trace.text, problem_words | unit_words(trace.text)) - \
        (ANGLES - unit_constants(trace.problem, problem_words))
    pnum_keys = frozenset([value_key(v) for v in pnums])  # by value_key: an int hit compares natively, a Fraction through
    grounded_keys = pnum_keys | {value_key(u) for u in units}  # Python (values are added to these sets as keys too)
    known: set[Fraction] = set(grounded_keys)
    # "2 weeks" -> 14 days, "30 minutes" -> 1/2 hour: a problem quantity in another unit (matched as is, not through
    # the percent/reciprocal transforms of grounded, which would ground almost any small number)
    converted = Converted(pnum_keys, units)
    strict: set[Fraction] = set(grounded_keys)  # reached from the problem (see StepFlow.unsupported); constants apart:
    # a percent or reciprocal transform applies to a quantity, not to a constant (400 is not "4 percent")
    reached_roots: dict[Fraction, int] = {}  # root of a reached one-unknown equation -> its step
    counting = counting_problem(trace.problem)
    factoring = factoring_problem(trace.problem)  # a prime factorisation reaches its parts
    divisors = divisibility_problem(trace.problem)  # a step's divisor facts license numbers (divisor_facts)
    log_problem = "log" in trace.problem  # a power may solve the logarithm it asks (log_exponent)
    if counting and ALPHABET.search(trace.problem):  # "2 different letters (A through Z)": 26 of them
        strict.add(Fraction(26))
        known.add(Fraction(26))
    steps: list[StepFlow] = []
    in_figure = False  # inside an [asy] ... [/asy] block (figure code spans lines)
    algebra = AlgebraTracker(trace.problem, approx is not None)
    links: dict[tuple[int, int], AlgebraLink] = {}

    def is_reached(value: Fraction) -> bool:
        """Reached from the problem: a problem quantity (or its unit conversion), a basic constant, or derived from
        such by verified steps so far (``StepFlow.unsupported``)."""
        return grounded(strict, value, BASIC_KEYS) or value in converted

    last_derived = None
    raw_derivations: dict[tuple[int, int], tuple] = {}  # (step, position) -> equation_derivation(eq, check as read)
    producers: dict[int | Fraction, int] = {}  # value_key(value) -> the latest earlier step that produced it (looked up
    # by a key or a Fraction alike: equal, with one hash; only the steps are read back)
    seen_steps: set[str] = set()
    for index, text in enumerate(trace.steps):
        flow = StepFlow(index)
        written = " ".join(text.split())
        if written in seen_steps and "=" in written:  # a step written again derives nothing new (repeat_steps)
            flow.mentioned.extend(v for v, _ in read_numbers(text))
            steps.append(flow)
            continue
        seen_steps.add(written)
        if ")" in text and "^2" in trace.problem and LINEAR_FACTORS.search(text):  # "(x-7)(x+2)" of the problem's
            factored = quadratic_factors(trace.problem, text)                            # x^2 - 5x - 14
            strict.update(factored)
            known.update(factored)
        # "the prime factorization of 15 is 3 x 5": 5 is a fact, in a problem about divisibility
        licensed = divisor_facts(text, is_reached) if divisors else set()
        if licensed:
            strict.update(licensed)
            known.update(licensed)
        boxes = answer_boxes(text) if trace.answer and "=" in trace.answer else ()  # "\\boxed{x=5}"
        for position, (eq, check) in enumerate(step_equations_of(trace.steps, index)):
            as_read = check
            if check.ok is False and check.variable is not None and check.variable in constrained:
                check = EquationCheck(eq, None, check.detail + f" (not refuted: the problem constrains "
                                      f"{check.variable}, and a link may substitute that condition)", check.pairs)
            flow.checks.append(check)
            roles = equation_roles(eq.sides, eq.values)
            boxed = bool(boxes) and any(a <= eq.span[0] and eq.span[1] <= b for a, b in boxes)  # the answer restated
            given_or_boxed = boxed or is_given(eq, trace.problem)
            derivation = equation_derivation(eq, check, roles) if not given_or_boxed else None
            if check is as_read and not given_or_boxed:
                raw_derivations[(index, position)] = derivation  # for _propagation_plan (None included)
            if derivation is not None and derivation[2] == "evaluated" and SLASH_FRACTION.fullmatch(derivation[0][0]) \
                    and is_reached(derivation[1]):  # "h = -5/2" after "(-7 + 2)/2 = -5/2": the value written as a
                derivation = None  # fraction, not a computation from 5 and 2 ("p = 7/2" of a 7 m rope still is one)
            if derivation is None and approx is not None and check.ok is True and not eq.approximate \
                    and not is_given(eq, trace.problem) and not boxed:  # "\\approx" holds to 1%: no irrational
                derivation = approximate_derivation(tuple(eq.sides), tuple(eq.values))
                if derivation is not None:
                    inexact.add(derivation[1])
            if derivation is None and approx is None and check.ok is True and "pi" in text and not boxed \
                    and not is_given(eq, trace.problem):  # "3^2\\cdot8\\cdot\\pi = 72\\pi" toward a rational answer
                derivation = pi_coefficient(tuple(eq.sides))
            if derivation is None and check.ok is None and len(eq.sides) == 2 and is_identity(*eq.sides):
                # "x + 0.25x = 1.25x": a rewrite; the new side's numbers are reached when the old side's are
                if all(is_reached(v) for v, _ in read_numbers(eq.sides[0])):
                    strict.update(v for v, _ in read_numbers(eq.sides[1]))
            elif derivation is None and check.ok is None and len(eq.sides) > 2:
                reach_rewrites(tuple(eq.sides), is_reached, strict)
            if len(eq.sides) > 2 and check.ok is not False and "frac" in text:  # "= \\frac53 = \\frac{600}{360}"
                rescaled(eq.sides, eq.values, is_reached, strict, known)
            if check.ok is True and factoring is not None and not is_given(eq, trace.problem):  # "196 = 2^2\\cdot7^2"
                parts, used = factorization_parts(tuple(eq.sides), is_reached, factoring.group(1) is not None)
                strict.update(parts); known.update(parts); aliases.extend(parts); flow.used.extend(used)
            link = None
            if check.ok is not False and (derivation is None or derivation[2] == "solved") and not boxed:
                link = algebra.link(tuple(eq.sides), index, is_reached, pnums)
                if link is not None:
                    links[(index, position)] = link
                    flow.depends_on.update(t for t in link.steps if t != index)
                    if link.kind == "followed" and link.value is None:  # "(x - 5)^2 + (y + 3)^2 = 34 - c" after
                        strict.update(v for side in link.sides for v, _ in read_numbers(side)  # the problem's circle;
                                      if v not in BASIC_CONSTANTS)  # "2x = 24" makes no 2 a quantity (a fee's)
                    if link.kind == "substituted":  # what it derives is the number, not the root it restates
                        derivation = (link.sides, link.value, link.kind)
                        flow.used.extend(v for n, v in link.bindings if algebra.bindings[n][1] < 0)  # the problem's
                    elif derivation is None and link.value is not None:  # operands: the name's side
                        derivation = (tuple(side for side in link.sides if LONE_NAME.fullmatch(side)), link.value,
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
                numbers = read_numbers(side)
                opened_before, opened = opened, opened or bool(numbers) and not UNKNOWN_LETTER.search(side)
                if kind != "solved" and operand_sides is not source_sides and len(numbers) == 1 \
                        and BARE_NUMBER.fullmatch(side):
                    continue  # "<<6=6>>6", "x = 33": a restated or solved value, not an operand
                # in a verified chain "9 * 10 - 7 = 90 - 7 = 83", a later side rewrites the first: its partial
                # results are reached when the first side's numbers are
                # (only after a side that computes from numbers alone: after a name, "x = 16 * 3 - 366 = 18" or
                # "x + 0 = …", the next side is the computation, not a rewrite of one, unless the value it computes
                # is reached already: "4a + 3 = 7a - 12" solved, then "a = 15/3 = 5")
                chained = (kind == "computed" and k > 0 and reached
                           and (opened_before or value_key(derivation[1]) in strict)) or rewrite
                keys = number_keys(side)  # looked up by value_key: no Fraction hashing
                # constants added or taken away with no source: one may be a count (+1, 2 legs); several in one
                # expression are an amount assembled from nothing ("26 - 2 - 2 - 2 - 2", a lucky fee)
                free_added = [] if chained else [
                    (start, end) for (number, (start, end)), key in zip(numbers, keys)
                    if key in BASIC_KEYS and key not in strict and key not in converted
                    and added_term(side, start, end)]
                falling = falling_factors(side, numbers, is_reached) if counting and len(numbers) > 1 else ()
                solved_exponent = log_exponent(trace.problem, side, derivation[1], is_reached) \
                    if log_problem and kind == "computed" and len(numbers) == 2 and "^" in side else None
                if solved_exponent is not None:  # "2^6 = 64" solves log_2 64: its 6 is the result, not an operand
                    falling = {*falling, solved_exponent}
                    log_result = Fraction(side[slice(*solved_exponent)])
                # a fraction written whole whose value an earlier step derived ("-\\frac{5}{2}" after "h = -5/2") is
                # that value: its numerator and denominator are no numbers from nowhere (not a problem number's value:
                # "\\frac{438}{6}" is no 73 the problem lists)
                whole = [(value, span) for value, span in fraction_literals(side)
                         if any(producers.get(value_key(v)) is not None and is_reached(v) and value_key(v) not in pnum_keys
                                for v in (value, -value))] if not chained and "frac" in side else ()
                for (number, (start, end)), key in zip(numbers, keys):
                    operands += 1
                    inside = next((value for value, (a, b) in whole if a <= start and end <= b), None) \
                        if whole else None
                    if inside is not None:
                        flow.used.append(number)
                        producer = producers.get(value_key(inside)) or producers.get(value_key(-inside))
                        if producer is not None:
                            flow.depends_on.add(producer)
                        continue
                    if "-" in side[max(0, start - 3):start] and NEGATED.search(side, 0, start) and -number in strict:
                        key = value_key(-number)  # "23 + (-4)" after "b = -4": the operand is the reached -4
                    flow.used.append(number)
                    if (start, end) in falling:  # "10 \\cdot 9": the choices left after one pick
                        continue
                    # asked by key: an int key answers as its equal Fraction would (int has numerator and
                    # denominator, and its arithmetic with a Fraction is exact), without Fraction property calls
                    if not chained and not grounded(known, key) and key not in converted:
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
                known.add(value_key(roles[1]))  # grounding: a stated value may be used later, verified or not
            if log_result is not None and reached:  # the logarithm the power solves
                flow.produced.append(log_result)
                known.add(value_key(log_result))
                strict.add(value_key(log_result))
                log_result = None
            if derivation is not None and (kind != "computed" or computes(operand_sides, operands)):
                flow.produced.append(derivation[1])  # only a verified computation or a solved equation
                known.add(value_key(derivation[1]))       # carries the chain
                last_derived = derivation[1]
                if reached:
                    strict.add(value_key(derivation[1]))
                    if kind == "solved":
                        reached_roots.setdefault(derivation[1], index)
                    elif kind == "computed":
                        algebra.bind_computed(tuple(eq.sides), derivation[1], index, eq.values[0] is None)
                        coefficient = irrational_coefficient(eq.sides[-1]) if approx is not None else None
                        if coefficient is not None:  # "= 20\\pi" derived: "20\\pi - 13\\pi" reads its 20
                            strict.add(value_key(coefficient[0]))
                            known.add(value_key(coefficient[0]))
                            aliases.append(coefficient[0])
        for chain in congruence_chains(text) if modular and "mod" in text else ():  # "129^{34} + 96^{38} \equiv 9 \pmod{11}"
            derivation = congruence_derivation(chain)
            if derivation is None:
                continue
            values = [Value(v, float(v), True) for v in chain.values]
            flow.checks.append(EquationCheck(Equation(list(chain.sides), values, chain.span, "latex", chain.relations),
                                             True, f"congruent modulo {chain.modulus}"))
            unreached = False
            substituted = substituted_head(trace.problem, text, chain) if "equiv" in trace.problem else False
            for side in derivation[0]:
                for number, _span in read_numbers(side):
                    flow.used.append(number)
                    if substituted and side is derivation[0][0]:  # "(n+2)(n+4)(n+6) \equiv 4 \cdot 6 \cdot 8"
                        continue                                  # where the problem says n \equiv 2
                    if not grounded(known, number) and number not in converted:
                        flow.ungrounded.append(number)
                    if not is_reached(number):
                        flow.unsupported.append(number)
                        unreached = True
                    producer = producers.get(number)
                    if producer is not None and number not in pnums:
                        flow.depends_on.add(producer)
            flow.produced.append(derivation[1])
            known.add(value_key(derivation[1]))
            last_derived = derivation[1]
            if not unreached:
                strict.add(value_key(derivation[1]))
        if ("=" in text and not any(c.ok is False for c in flow.checks) and any(c.isalpha() for c in text)
                and results_unexplained(text, flow.produced)):
            for operand_sides, result in wordy_derivations(text):
                if result in flow.produced:
                    continue
                numbers = [v for side in operand_sides for v, _ in read_numbers(side)]
                if len(numbers) < 2:
                    continue
                unreached = [v for v in numbers if not is_reached(v)]
                for v in numbers:
                    flow.used.append(v)
                    if not grounded(known, v) and v not in converted:
                        flow.ungrounded.append(v)
                    producer = producers.get(v)
                    if producer is not None and v not in pnums:
                        flow.depends_on.add(producer)
                flow.unsupported.extend(unreached)
                flow.wordy.append((operand_sides, result))
                flow.produced.append(result)
                known.add(value_key(result))
                last_derived = result
                if not unreached:
                    strict.add(value_key(result))
        # a step with no equation at all: what it states, it asserts (a figure's code states nothing)
        figure_before = in_figure
        prose, in_figure = outside_figures(text, in_figure)
        claim = not flow.checks
        stated = step_numbers(text)
        flow.mentioned.extend([number for number, _span in stated])
        known.update([number.numerator if number.denominator == 1 else number  # value_key, inline
                      for number, _span in stated])
        if claim:
            fractions = reached_fractions(prose, is_reached) if "/" in prose or "frac" in prose else ()
            for number, (start, end) in stated if prose == text else read_numbers(prose):
                if not is_reached(number) and not prose[end:end + 1].isalpha():  # "9m": a coefficient, not a quantity
                    if not any(a <= start and end <= b for a, b in fractions):  # "\frac{8}{21}" restated whole
                        flow.stray.append(number)
        elif approx is not None:  # an irrational answer also answers for what a step states beside its equations
            beside = outside_figures(beside_equations(text), figure_before)[0]  # "59, \\" where "3^2 + 7^2 = 58"
            for number, (_start, end) in read_numbers(beside):
                if not is_reached(number) and not beside[end:end + 1].isalpha():
                    flow.stray.append(number)
        for value in [*flow.produced, *aliases]:
            producers[value.numerator if value.denominator == 1 else value] = index  # value_key, inline
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
        answer_value, answer_step = approximate_answer_step(steps, approx, inexact)
    dataflow = Dataflow(steps, pnums, answer_value, answer_step, last_derived, units, links, approx is not None)
    dataflow._derivations = (tuple(trace.steps), raw_derivations)
    dataflow._problem_keys = pnum_keys
    return dataflow
