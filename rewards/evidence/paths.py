"""The answer's derivations in the graph (:func:`answer_derivations`, :func:`answer_path`) and how many of the
problem's quantities they use (:func:`quantity_coverage`).
"""

from __future__ import annotations

import re
from fractions import Fraction

from rewards.checks.algebra import algebra_work, holds_under, relation
from rewards.checks.arithmetic import extract_equations
from rewards.evidence.expression_use import consumed_through_expressions, linked_steps
from rewards.evidence.model import AlgebraLink, Dataflow
from rewards.evidence.quantities import BASIC_KEYS, figure_numbers, read_numbers, stated_quantities, value_key
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


MAX_CONSUMPTION_CHECKS = 16
CONSUMPTION_WORK = 20_000
"""Per trace: at most :data:`MAX_CONSUMPTION_CHECKS` algebra comparisons (:func:`consumed_through_algebra`) and
:data:`CONSUMPTION_WORK` tokens evaluated by them (:func:`rewards.checks.algebra.algebra_work`: counted, never timed,
so the verdict does not depend on the machine's load), each also bounded by the algebra checks' own per-call budget;
past either, a quantity is used only as an operand. Measured on ProcessBench's MATH right-answer completions, the
costliest trace charged 41,531 tokens to these comparisons (13 of them, 0.29 s on a loaded machine) and found nothing;
the ones that find a quantity charge a few thousand."""


MAX_PATH_EQUATIONS = 8
"""At most this many equations with unknowns feed :func:`consumed_through_algebra` per trace."""


def _feeding_equations(flow: Dataflow, path: frozenset[int]) -> list[tuple[tuple[str, ...], tuple[str, str] | None]]:
    """The equations with unknowns that feed the answer's derivation, each with the grounded equation it follows
    from (``None`` for one the trace writes from reached numbers, a ``source``): an equation in a step of ``path``,
    or a ``followed`` one in an earlier step that writes a value (no problem quantity, no basic constant) a step of
    ``path`` uses — the ``L + W = 6`` that ``6 - 2L = 0`` goes on from — and, in turn, those that feed the equations
    they follow from."""
    if not flow.links or not path:
        return []
    last = max(path)
    used = {value_key(v) for t in path for v in flow.steps[t].used}
    problem = getattr(flow, "_problem_keys", frozenset())
    links = [(key, link) for key, link in flow.links.items()
             if key[0] <= last and (link.kind == "followed" or (link.kind == "source" and key[0] in path))]
    out: list[tuple[tuple[str, ...], tuple[str, str] | None]] = []
    taken: set[tuple[int, int]] = set()
    grew = True
    while grew:
        grew = False
        for key, link in links:
            if key in taken:
                continue
            if key[0] not in path and not any(
                    k in used and k not in problem and k not in BASIC_KEYS
                    for k in (value_key(v) for side in link.sides for v, _ in read_numbers(side))):
                continue
            taken.add(key)
            root = link.root if link.kind == "followed" and link.root is not None \
                and tuple(link.root) != tuple(link.sides) else None
            out.append((tuple(link.sides), root))
            grew = True
            for side in root or ():  # what the equation it follows from writes feeds it in turn
                used.update(value_key(v) for v, _ in read_numbers(side))
    return out


def _edited(side: str, value: Fraction, new: int) -> str:
    """``side`` with every occurrence of the whole number ``value`` (not an exponent) written as ``new``."""
    out, pos = [], 0
    for v, (start, end) in read_numbers(side):
        if v == value and side[start:end].strip().lstrip("-").isdigit() and not side[:start].rstrip("{ -").endswith("^"):
            digits = side[start:end]
            out.append(side[pos:start] + digits.replace(digits.strip().lstrip("-"), str(new), 1))
            pos = end
    out.append(side[pos:])
    return "".join(out)


def _path_step_equations(path: frozenset[int], steps, seen: set, algebraic_sides) -> list:
    """The algebraic equations the steps of ``path`` write that ``seen`` does not hold yet, latest step first, as
    ``(sides, None)`` pairs (no root: they are compared with the problem's equations only); ``seen`` grows to at most
    :data:`MAX_PATH_EQUATIONS`."""
    out = []
    for t in sorted(path, reverse=True):
        for eq in extract_equations(steps[t]) if t < len(steps) and "=" in steps[t] else ():
            pair = algebraic_sides(tuple(eq.sides))
            if pair is not None and pair not in seen and len(seen) < MAX_PATH_EQUATIONS:
                seen.add(pair)
                out.append((pair, None))
    return out


def consumed_through_algebra(flow: Dataflow, path: frozenset[int], candidates: set[Fraction],
                             problem: str = "", steps: tuple[str, ...] | list[str] = ()) -> set[Fraction]:
    r"""The quantities of ``candidates`` the answer's derivation consumes through an equation it verifiably works
    with. An equation that feeds the derivation (:func:`_feeding_equations`) follows by algebra
    (:func:`rewards.checks.algebra.relation`) from an equation that writes the quantity — one of the trace's,
    written from problem quantities (``2L + 2W = 12``, so ``L + W = 6``), or one the ``problem`` states
    (``x^2 - 4x - 14 = 3x + 16``, so ``(x - 10)(x + 3) = 0``; with ``steps``, the trace's step texts, an equation
    with unknowns any step of ``path`` writes is compared with the problem's too) — and would *not* follow had the quantity been
    different: the same equation with that quantity edited (every occurrence, exponents aside) no longer gives it.
    A quantity an equation writes but the step does not depend on (``x + 5 - 5 = 9``, so ``x = 9``) is not
    consumed; neither is a number an equation merely mentions, nor one that feeds nothing on the answer's path.
    At most :data:`MAX_CONSUMPTION_CHECKS` comparisons and :data:`CONSUMPTION_WORK` tokens of algebra per trace.

    >>> from rewards.parsing.trace import parse_trace
    >>> from rewards.evidence.builder import build_dataflow
    >>> p = "A rectangle has a perimeter of 12 inches. What is its largest area?"
    >>> t = parse_trace(p, "$2L + 2W = 12$, so $L + W = 6$.\n$6 - 2L = 0$, so $L = 3$.\nThe area is $3 * 3 = 9$.\n#### 9")
    >>> f = build_dataflow(t)
    >>> sorted(consumed_through_algebra(f, answer_path(f), {Fraction(12)}))
    [Fraction(12, 1)]
    """
    from rewards.evidence.algebra_links import algebraic_sides, given_equations  # local: it reads the model

    feeding = _feeding_equations(flow, path)
    given = given_equations(problem) if problem and "=" in problem else ()
    if given and steps:
        feeding += _path_step_equations(path, steps, {eq for eq, _root in feeding}, algebraic_sides)
    if not feeding:
        return set()
    pairs = [(root, eq) for eq, root in feeding if root is not None]
    pairs += [(g, eq) for g in given for eq, _root in feeding if tuple(g) != eq]
    found: set[Fraction] = set()
    checks, start = 0, algebra_work()

    def spent() -> bool:
        return checks >= MAX_CONSUMPTION_CHECKS or algebra_work() - start > CONSUMPTION_WORK

    for source, eq in pairs:
        if spent():
            break
        written = {v for side in source for v, _ in read_numbers(side)} & (candidates - found)
        written = {v for v in written if v.denominator == 1 and abs(v) < 10**9}
        if not written:
            continue
        checks += 1
        base = relation(source, eq)
        if base.follows is not True or base.restated:  # a restatement works with nothing
            continue
        for value in sorted(written):
            if spent():
                break
            edited = tuple(_edited(side, value, int(value) + 1) for side in source)
            if edited == tuple(source):
                continue
            checks += 1
            moved = relation(edited, eq).follows
            if moved is False or (moved is None and _misses_stated_value(edited, eq)):
                found.add(value)
    return found


def _misses_stated_value(edited: tuple[str, ...], eq: tuple[str, ...]) -> bool:
    """Whether ``eq`` states a value (``y = 10``) that no longer solves the ``edited`` equation (``\\sqrt{19+3y} =
    8``): where the solution sets cannot be compared, the stated solution still tells that the value depends on the
    edited quantity."""
    from rewards.evidence.algebra_links import stated_value  # local: it reads the model

    stated = stated_value(tuple(eq)) if len(eq) == 2 else None
    return stated is not None and len(edited) == 2 and holds_under(edited[0], edited[1], {stated[0]: stated[1]}) is False


def quantity_coverage(trace: Trace, flow: Dataflow, path: frozenset[int] | None = None,
                      used: frozenset[Fraction] | None = None) -> tuple[int, int]:
    r"""``(used, stated)``: how many of the distinct quantities the problem states (:func:`stated_quantities`:
    numerals, less figure code, exponents of a letter, 0 and 1 bounding an inequality and the numbers of a sentence
    that formats the answer) the answer's derivation uses — as an operand, as written, in percent (``20`` as
    ``0.2``), or converted by a unit factor (``2`` weeks as ``14``) — or consumes through an equation it verifiably
    works with (:func:`consumed_through_algebra`). ``path``: the answer's derivation steps when the caller has them
    (:func:`answer_path`); ``used``: the values of the quantities the answer depends on when the caller knows them
    (the derivation read as a function of the problem's quantities,
    :meth:`rewards.evidence.derivation_function.DerivationFunction.used_values`: a quantity that cancels is not
    used), instead of every operand on the path.

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
    stated, hits = coverage_detail(trace, flow, path, used)
    return len(hits), len(stated)


def coverage_detail(trace: Trace, flow: Dataflow, path: frozenset[int] | None = None,
                    used: frozenset[Fraction] | None = None) -> tuple[frozenset[Fraction], frozenset[Fraction]]:
    """``(stated, used)`` as sets of values, for :func:`quantity_coverage` (which counts them) and for reports that
    say which quantities a derivation left unused. A value only figure code or notation writes
    (:func:`figure_numbers`) is stated when the derivation uses it as an operand, and else not. A quantity is used
    as an operand (or its negation: ``f(-2)`` as ``3(-2)``), through an equation the derivation works with
    (:func:`consumed_through_algebra`), or through a verified rewrite of a problem's expression that writes it
    (:func:`~rewards.evidence.expression_use.consumed_through_expressions`)."""
    stated = set(stated_quantities(trace.problem))
    if path is None:
        path = answer_path(flow)
    if used is None:
        operands: set[Fraction] = set()
        for t in path:
            operands.update(flow.steps[t].used)
        used = operands
    stated.update(v for v in figure_numbers(trace.problem) if v in used)
    if not stated:
        return frozenset(), frozenset()
    units = flow.units
    hits = set()
    for v in stated:
        if v in used or -v in used or v / 100 in used or any(v * u in used or v / u in used for u in units):
            hits.add(v)
        elif v.denominator != 1 and (v.numerator == 1 or v.numerator in used) and v.denominator in used:
            hits.add(v)  # a stated fraction used as its two numbers (3/4 of 20 as 20 * 3 / 4; 1/2 of 10 as 10 / 2)
        elif 0 < v < 1 and v.denominator != 1 and 1 - v in used:
            hits.add(v)  # a probability or share used through its complement (1/4 of days as 3/4 failing)
    if len(hits) < len(stated) and path:
        hits |= consumed_through_algebra(flow, path, stated - hits, trace.problem, trace.steps)
    if len(hits) < len(stated) and path:
        linked = linked_steps(trace.problem, trace.steps, flow.answer_step, path, used)
        if linked:  # equations before the value-keyed path that lead to it, compared with the problem's equations
            hits |= consumed_through_algebra(flow, path | linked, stated - hits, trace.problem, trace.steps)
    if len(hits) < len(stated) and path:
        hits |= consumed_through_expressions(trace.problem, trace.steps, flow.answer_step, stated - hits, used)
    return frozenset(stated), frozenset(hits)
