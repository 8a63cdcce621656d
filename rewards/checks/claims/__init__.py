"""Claims that span more than one equation: checkers that read a whole trace and refute a step.

:mod:`rewards.checks.arithmetic` checks each equation a step states on its own, and :mod:`rewards.checks.identities` the links of
one chain. The checkers here look at what a single equation cannot show — a congruence or a remainder, an
equation rewritten into a non-equivalent one, an expression continued on the next line — and report each refuted
step as a failed :class:`~rewards.checks.arithmetic.EquationCheck`. :func:`rewards.evidence.build_dataflow` appends them to
the step's checks, so the symbolic verifier treats them exactly like a false calculation (``q_t = q_false``).

Shipped (:data:`CHECKERS`, in this order): :mod:`rewards.checks.claims.continuations` (displays continued with ``=``, equalities in
words, two-letter identities), :mod:`rewards.checks.claims.equivalence` (an equation rewritten into a non-equivalent one),
:mod:`rewards.checks.claims.congruences` (congruences, remainders, gcd/lcm, base-b numerals), :mod:`rewards.checks.claims.numberfacts`
(divisibility, last digits, digit sums, primality, divisor counts, numeric inequalities), :mod:`rewards.checks.claims.substitution`
(values of defined functions), :mod:`rewards.checks.claims.assignments` (value claims about letters just assigned),
:mod:`rewards.checks.claims.coordinates` (points, vectors, matrices: midpoints, distances, slopes, products, determinants),
:mod:`rewards.checks.claims.sequences` (ellipsis and sigma sums, mean/median/mode of a list, ``C(n, k)``/``P(n, k)``),
:mod:`rewards.checks.claims.written_as` (a number said to be written as another expression),
:mod:`rewards.checks.claims.straight_angles` (an angle at a point the problem puts inside a segment),
:mod:`rewards.checks.claims.turns` (a degree measure said to be a full, half or quarter turn),
:mod:`rewards.checks.claims.after_answer` (the answer's quantity given another value after the answer) and
:mod:`rewards.checks.claims.named_values` (one quantity, named the same way, given two values). Each
module's docstring gives its rule and what it measured; ``benchmarks/claim_checkers.py`` measures a new one and
``rafs eval`` re-scores with each left out (its ``step_detectors`` section).

A checker is a callable ``(steps, problem) -> list[(step_index, EquationCheck)]`` that returns failed checks
only, never raises on odd text (it is fed untrusted model output) and bounds its own work. They run in the order of
:data:`CHECKERS`; :func:`trace_checks` collects them and drops a checker that raises (logged once).

>>> trace_checks(("Nothing to check here.",), "")
[]
"""

from __future__ import annotations

import logging
from contextlib import contextmanager
from typing import Callable, Iterator, Sequence

from rewards.checks.arithmetic import EquationCheck

__all__ = ["CHECKERS", "Checker", "checker_name", "trace_checks", "using"]

log = logging.getLogger(__name__)

Checker = Callable[[Sequence[str], str], "list[tuple[int, EquationCheck]]"]

def _shipped() -> list[Checker]:
    from rewards.checks.claims.assignments import check_trace as assignments
    from rewards.checks.claims.congruences import check_trace as congruences
    from rewards.checks.claims.named_values import check_trace as named_values
    from rewards.checks.claims.continuations import check_trace as continuations
    from rewards.checks.claims.coordinates import check_trace as coordinates
    from rewards.checks.claims.equivalence import check_trace as equivalence
    from rewards.checks.claims.numberfacts import check_trace as numberfacts
    from rewards.checks.claims.sequences import check_trace as sequences
    from rewards.checks.claims.substitution import check_trace as substitution
    from rewards.checks.claims.turns import check_trace as turns
    from rewards.checks.claims.after_answer import check_trace as after_answer
    from rewards.checks.claims.straight_angles import check_trace as straight_angles
    from rewards.checks.claims.written_as import check_trace as written_as

    return [continuations, equivalence, congruences, numberfacts, substitution, assignments, coordinates, sequences,
            written_as, straight_angles, turns, after_answer, named_values]


CHECKERS: list[Checker] = _shipped()
"""The checkers :func:`trace_checks` runs, in order (module-level so tests and measurements can swap them)."""

_warned: set[str] = set()


def trace_checks(steps: Sequence[str], problem: str = "") -> list[tuple[int, EquationCheck]]:
    """Every failed check of every checker in :data:`CHECKERS`, as ``(step_index, check)`` pairs."""
    out: list[tuple[int, EquationCheck]] = []
    steps = tuple(steps) if isinstance(steps, (tuple, list)) and _all_text(steps) else \
        tuple(s if isinstance(s, str) else "" for s in steps)
    problem = problem or ""
    for checker in CHECKERS:
        try:
            found = checker(steps, problem)
        except Exception as exc:  # a checker bug must never crash a reward
            name = getattr(checker, "__qualname__", repr(checker))
            if name not in _warned:
                _warned.add(name)
                log.warning("rafs: claim checker %s failed (%s: %s); its checks are skipped", name,
                            type(exc).__name__, exc)
            continue
        if found:  # most checkers find nothing in most traces
            out.extend((i, c) for i, c in found if 0 <= i < len(steps) and c.ok is False)
    return out


def _all_text(steps: tuple | list) -> bool:
    """Whether every step is text: a join succeeds exactly then (one C loop, not a generator per step)."""
    try:
        "".join(steps)
    except TypeError:
        return False
    return True


def checker_name(checker: Checker) -> str:
    """A short name for reports: the checker's module (``rewards.checks.claims.continuations.check_trace`` -> ``continuations``)."""
    module = getattr(checker, "__module__", None) or ""
    name = getattr(checker, "__name__", "checker")
    return module.rsplit(".", 1)[-1] if name == "check_trace" and module else name


@contextmanager
def using(checkers: Sequence[Checker]) -> Iterator[None]:
    """Run with :data:`CHECKERS` replaced by ``checkers`` (restored on exit). It changes a module global: use it in
    evaluation and measurement code, not while other threads score."""
    saved = list(CHECKERS)
    CHECKERS[:] = list(checkers)
    try:
        yield
    finally:
        CHECKERS[:] = saved
