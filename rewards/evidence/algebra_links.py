"""Equations with unknowns: which grounded equation an equation follows from by algebra, and which solved values
it substitutes (:class:`AlgebraTracker`, one per trace, producing :class:`~rewards.evidence.model.AlgebraLink`).
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from functools import lru_cache

from rewards.checks.algebra import MAX_COMBINED, algebra_work, combines, equation_sides, holds_under, relation, unknowns
from rewards.checks.algebra.determined import determined_value
from rewards.checks.arithmetic import evaluate, extract_equations
from rewards.evidence.irrational import approx_key
from rewards.evidence.model import AlgebraLink
from rewards.evidence.quantities import BASIC_CONSTANTS, exact_value, read_numbers
from rewards.evidence.wordy import MAX_WORDY_CHARS


MAX_SOURCES = 4
"""An equation may follow from one of the last this many grounded algebraic equations of the trace (or from one the
problem states)."""
MAX_ALGEBRA_CALLS = 48
ALGEBRA_WORK = 120_000
"""Per trace: at most :data:`MAX_ALGEBRA_CALLS` algebra comparisons and :data:`ALGEBRA_WORK` tokens evaluated by them
(:func:`rewards.checks.algebra.algebra_work`; each comparison has its own bounds, :mod:`rewards.checks.algebra`);
past either, equations with unknowns derive nothing. The counterfactual re-solves of a trace share one more such work
budget; past it, an algebraic value does not move. Counted, never timed: a verdict that depended on the machine's
load would differ between runs and between the ranks of a distributed job (a wall-clock budget of 0.25 s flipped
MATH-500 #114 on a loaded machine). The heaviest trace among MATH-500's gold and ProcessBench's 1,400 solutions
charges 42,208 tokens to the comparisons (0.15 s) and another 2,880 to the re-solves; an adversarial trace of
comparisons that each spend their whole budget reaches the bound in about a second."""
_PROSE_WORD = re.compile(r"(?<![\\A-Za-z])[A-Za-z]{3,}")
LONE_NAME = re.compile(r"\s*\{?\s*(?:([A-Za-z])(?:_(?:(\d|[A-Za-z])|\{(\d{1,2}|[A-Za-z])\}))?"
                       r"|(?<!m)\\angle\s*(?:([A-Z]{1,3})|\{([A-Z]{1,3})\}))\s*\}?\s*")
"""x, {y}, s_1, x_{12}, h_a, h_{c}, \\angle ACB"""


def _name(match: re.Match) -> str:
    """The unknown a :data:`LONE_NAME` match names, spelt as :func:`rewards.checks.algebra.unknowns` spells it."""
    if match.group(1) is None:
        return "angle_" + (match.group(4) or match.group(5))
    index = match.group(2) or match.group(3)
    return match.group(1) + (f"_{index}" if index else "")


def _algebraic(sides: tuple[str, ...]) -> tuple[str, str] | None:
    """(first, last) side of an equation with an unknown that the algebra checks read (no prose words: ``5 sites x
    7 birds`` is arithmetic with units); None otherwise."""
    if not any(c.isalpha() for side in sides for c in side) or any(_PROSE_WORD.search(side) and "\\" not in side
                                                                  for side in sides):
        return None
    pair = equation_sides(" = ".join(sides))
    if pair is None:
        return None
    names = [unknowns(side) for side in pair]
    if names[0] is None or names[1] is None or not (names[0] | names[1]):
        return None
    return pair


@lru_cache(maxsize=1024)
def _given_equations(problem: str) -> tuple[tuple[str, str], ...]:
    """The equations with unknowns the problem states ("Solve $2x + 3 = 11$"): where a derivation may start."""
    found = (_algebraic(tuple(eq.sides)) for eq in extract_equations(problem[:MAX_WORDY_CHARS]))
    return tuple(pair for pair in found if pair is not None)[:MAX_SOURCES]


def _stated_value(pair: tuple[str, str]) -> tuple[str, Fraction] | None:
    """``x = 5`` (either way round): (name, value)."""
    for name_side, value_side in (pair, pair[::-1]):
        match = LONE_NAME.fullmatch(name_side)
        if match and not any(c.isalpha() for c in value_side):
            value = exact_value(evaluate(value_side.strip().strip("{}")))
            if value is not None:
                return _name(match), value
    return None


_IRRATIONAL_COMMANDS = re.compile(r"\\(?:sqrt|pi|d?frac|cdot|left|right)(?![A-Za-z])")
_LETTERS = re.compile(r"[A-Za-z]")
_LETTER_RUN = re.compile(r"(?<!\\)\b[A-Za-z]")


def _stated_irrational(pair: tuple[str, str]) -> Fraction | None:
    """``r = \\sqrt{5}`` (either way round): the irrational value's :func:`approx_key`."""
    for name_side, value_side in (pair, pair[::-1]):
        if LONE_NAME.fullmatch(name_side) and not _LETTERS.search(_IRRATIONAL_COMMANDS.sub(" ", value_side)):
            value = evaluate(value_side)
            if value is not None and not value.is_exact and math.isfinite(value.approx):
                return approx_key(value.approx)
    return None


_ABS_ATOM = re.compile(r"\|([^|]{1,40})\|")


def _abs_atomized(source: tuple[str, str], pair: tuple[str, str]) -> tuple[tuple[str, str], tuple[str, str]] | None:
    r"""``source`` and ``pair`` with each absolute value ``|...|`` they both write (spaces aside) read as one fresh
    unknown, so that ``|x-4| = 12`` follows from the problem's ``|x-4| - 10 = 2`` as ``u = 12`` from ``u - 10 = 2``
    (the algebra cannot compare solution sets through ``|·|``); None when ``pair`` writes an absolute value
    ``source`` does not, or no letter is free.

    >>> _abs_atomized(("|x-4| -10", "2"), ("|x - 4|", "12"))
    (('u -10', '2'), ('u', '12'))
    """
    atoms = {"".join(m.group(1).split()) for side in pair for m in _ABS_ATOM.finditer(side)}
    if not atoms or atoms - {"".join(m.group(1).split()) for side in source for m in _ABS_ATOM.finditer(side)}:
        return None
    text = "".join(source + pair)
    free = [c for c in "uvw" if c not in text]
    if len(free) < len(atoms):
        return None
    names = dict(zip(sorted(atoms), free))

    def sub(side: str) -> str:
        return _ABS_ATOM.sub(lambda m: names.get("".join(m.group(1).split()), m.group(0)), side)

    out = (tuple(sub(side) for side in source), tuple(sub(side) for side in pair))
    return None if any("|" in side for side in out[1]) else out


class AlgebraTracker:
    """The grounded algebraic equations and solved values of one trace, as :func:`build_dataflow` walks it."""

    def __init__(self, problem: str, approximate: bool = False) -> None:
        self.problem = problem
        self.approximate = approximate  # the final answer is irrational: "r = \\sqrt{5}" may be a root chosen
        self.previous: tuple[str, str] | None = None  # the last equation with unknowns read
        self.sources: list[tuple[tuple[str, str], int, tuple[str, str]]] = []  # (equation, step, root equation)
        self.bindings: dict[str, tuple[Fraction, int]] = {}
        for pair in _given_equations(problem) if "=" in problem else ():  # "If $a = 8$, what is ...": step -1
            stated = _stated_value(pair)
            if stated is not None:
                self.bindings.setdefault(stated[0], (stated[1], -1))
        self.calls, self.work = 0, None  # algebra_work() at the first comparison

    def _spend(self) -> bool:
        if self.work is None:
            self.work = algebra_work()
        self.calls += 1
        return self.calls <= MAX_ALGEBRA_CALLS and algebra_work() - self.work <= ALGEBRA_WORK

    def link(self, sides: tuple[str, ...], index: int, reached, given_values: frozenset[Fraction] = frozenset()
             ) -> AlgebraLink | None:
        """What the equation ``sides`` of step ``index`` contributes: solved values put into it (``substituted``),
        a grounded equation (``source``: every number ``reached``), or one that follows from a grounded one by
        algebra (``followed``); None when it is no equation with unknowns or nothing links it."""
        pair = _algebraic(sides)
        if pair is None:
            return None
        previous, self.previous = self.previous, pair
        names = (unknowns(pair[0]) or frozenset()) | (unknowns(pair[1]) or frozenset())
        if names and names <= self.bindings.keys():  # solved values put into an expression: "a + b = -1"
            found = self._substituted(pair, names, given_values)
            if found is not None:
                return found
        all_reached = all(reached(v) for v in (v for side in pair for v, _ in read_numbers(side)))
        if all_reached and _stated_value(pair) is None and not (self.approximate and _stated_irrational(pair)):
            self.sources.append((pair, index, pair))
            return AlgebraLink("source", pair)
        given = [(pair, -1, pair) for pair in _given_equations(self.problem)] if "=" in self.problem else []
        found = self._followed(pair, previous, names, index, given)
        if found is not None:
            return found
        combined = self._combined(pair, given) if len(self.sources) + len(given) > 1 else None
        if combined is not None:  # "3p + q = 124", "5p + q = 182", so "2p = 58": their difference
            self.sources.append((pair, index, pair))
            return AlgebraLink("followed", pair, combined, self._bind(pair, index), pair)
        if all_reached:
            self.sources.append((pair, index, pair))
            self._bind(pair, index)
            return AlgebraLink("source", pair)
        return None

    def _substituted(self, pair: tuple[str, str], names: frozenset[str], given_values: frozenset[Fraction]
                     ) -> AlgebraLink | None:
        """Solved values put into an expression that equals a number (``x = 4``, so ``3x + 1 = 13``)."""
        bound = tuple(sorted((n, self.bindings[n][0]) for n in names))
        for expr, number in (pair, pair[::-1]):
            if LONE_NAME.fullmatch(expr) or any(c.isalpha() for c in number):
                continue
            value = exact_value(evaluate(number))  # a given checked is no derivation ("2.5S = 150", 150 given)
            if value is not None and value not in given_values and self._spend() \
                    and holds_under(expr, number, dict(bound)):
                steps = tuple(sorted({self.bindings[n][1] for n in names} - {-1}))  # -1: the problem states it
                return AlgebraLink("substituted", (expr,), steps, value, bindings=bound)
        return None

    def _followed(self, pair: tuple[str, str], previous, names: frozenset[str], index: int, given: list
                  ) -> AlgebraLink | None:
        """An equation that follows from a grounded one; "x = -4" after "0 = (x + 4)(x - 1)" is a root chosen, even
        when -4 is a number any derivation may use."""
        candidates = [*reversed(self.sources[-MAX_SOURCES:]), *given]
        if self.approximate and _stated_value(pair) is None and _stated_irrational(pair) is not None:
            # an irrational root chosen follows from the equation just before it, which must be grounded: the
            # slip checks (rewards.checks.claims.equivalence) leave radicals alone, so "r^2 = 6, so r = \\sqrt{5}"
            # after a grounded "4r^2 = 20" is refused here
            candidates = [c for c in self.sources[-1:] if c[0] == previous and any(
                v not in BASIC_CONSTANTS for side in c[0] for v, _ in read_numbers(side))]  # not "x^2 = 1/3" alone
        for source, step, root in candidates:
            if not self._spend():
                break
            found = relation(source, pair)
            if not found.follows and "|" in pair[0] + pair[1]:  # "|x-4| - 10 = 2", so "|x-4| = 12"
                atomized = _abs_atomized(source, pair)
                if atomized is not None and self._spend():
                    found = relation(*atomized)
            solved = self._solved_in(source, names) if not found.follows else {}
            if solved and self._spend():  # "s_1 s_2 = 24" and s_1 = 4 solved: "s_2 = 6" follows
                found = relation(source, pair, {n: v for n, (v, _step) in solved.items()})
            if found.follows and not found.restated:
                self.sources.append((pair, index, root))
                steps = {t for t in (step, *(t for _v, t in solved.values())) if t >= 0}
                value = self._bind(pair, index)
                if value is None and not solved and not self.approximate and self._spend():
                    value = expression_value(pair, source)  # "2(a + b) = 1994", so "a + b = 997"
                return AlgebraLink("followed", pair, tuple(sorted(steps)), value, root)
        return None

    def _combined(self, pair: tuple[str, str], given: list) -> tuple[int, ...] | None:
        """The steps of the grounded equations (the problem's, or the last
        :data:`~rewards.checks.algebra.MAX_COMBINED` read) that ``pair`` is a sum of multiples of
        (:func:`rewards.checks.algebra.combines`); None if none."""
        pool = [*given, *self.sources[-MAX_COMBINED:]]
        pool = [c for c in pool if c[0] != pair][-MAX_COMBINED:]
        if len(pool) < 2 or not self._spend():
            return None
        used = combines([c[0] for c in pool], pair)
        return None if used is None else tuple(sorted({pool[i][1] for i in used} - {-1}))

    def _solved_in(self, source: tuple[str, str], names: frozenset[str]) -> dict[str, tuple[Fraction, int]]:
        """The solved values of ``source``'s unknowns that the equation being read does not name."""
        if not self.bindings:
            return {}
        inside = (unknowns(source[0]) or frozenset()) | (unknowns(source[1]) or frozenset())
        return {n: self.bindings[n] for n in sorted(inside - names) if n in self.bindings}

    def solved_by(self, sides: tuple[str, ...]) -> int | None:
        r"""The step of the grounded equation (one of the last :data:`MAX_SOURCES`) that a computation assigned to a
        name solves: ``h_c = \\frac{168}{25} = 6.72`` after ``84 = \\frac{1}{2} \\cdot 25 \\cdot h_c``, where
        ``h_c = 6.72`` follows from the source by algebra. None when the first side is no name, the last no number,
        or no grounded equation has that root.

        >>> t = AlgebraTracker("")
        >>> t.link(("84", "\\frac{1}{2} \\cdot 25 \\cdot h_c"), 3, lambda v: True).kind
        'source'
        >>> t.solved_by(("h_c", "\\frac{168}{25}", "6.72")), t.solved_by(("h_c", "\\frac{170}{25}", "6.8"))
        (3, None)
        """
        if len(sides) < 3 or not LONE_NAME.fullmatch(sides[0]):
            return None
        pair = _algebraic((sides[0], sides[-1]))
        if pair is None or _stated_value(pair) is None:
            return None
        for source, step, _root in reversed(self.sources[-MAX_SOURCES:]):
            if not self._spend():
                break
            found = relation(source, pair)
            if found.follows and not found.restated:
                return step
        return None

    def bind_computed(self, sides: tuple[str, ...], value: Fraction, index: int, symbolic: bool = False) -> None:
        """``x = \\frac{288}{72} = 4``, a verified computation assigned to a name: ``x`` may be put into later
        expressions. ``s^3 = 4 + 3 \\cdot 12 = 64`` assigns one to an expression the arithmetic cannot read
        (``symbolic``; ``2 x 3 = 6`` is arithmetic): ``s^3 = 64`` is a grounded equation that later ones may follow
        from (``s = 4``), as it would be stated on its own."""
        match = LONE_NAME.fullmatch(sides[0]) if sides else None
        if match:
            self.bindings[_name(match)] = (value, index)
        elif symbolic and _LETTER_RUN.search(sides[0]) and value.denominator == 1 and abs(value) < 10**12:
            pair = _algebraic((sides[0], str(value)))
            if pair is not None and _stated_value(pair) is None:
                self.sources.append((pair, index, pair))

    def _bind(self, pair: tuple[str, str], index: int) -> Fraction | None:
        """A value the trace states for an unknown (``x = 4``) in a grounded or followed equation may be put into later
        expressions. Only a stated one: the root of ``4x + 600 = 10000`` is not yet "x", and ``4x = 9400`` then
        rewrites the equation being solved rather than substituting a solution."""
        stated = _stated_value(pair)
        if stated is None:  # an irrational root chosen derives its value, but is put into nothing
            return _stated_irrational(pair) if self.approximate else None
        self.bindings[stated[0]] = (stated[1], index)
        return stated[1]


def expression_side(pair: tuple[str, ...]) -> tuple[str, Fraction] | None:
    """``(expression, number)`` of an equation ``expression = number`` (either way round) whose expression has
    letters and is no lone name (``a + b = 997``; ``x = 5`` is a stated value, :func:`_stated_value`), the other side
    one number; None otherwise.

    >>> expression_side(("a + b", "997")), expression_side(("x", "5")), expression_side(("a + b", "c"))
    (('a + b', Fraction(997, 1)), None, None)
    """
    if len(pair) != 2:
        return None
    for expr, number in (pair, pair[::-1]):
        if LONE_NAME.fullmatch(expr) or not _LETTERS.search(expr) or _LETTERS.search(number):
            continue
        value = exact_value(evaluate(number.strip().strip("{}")))
        if value is not None:
            return expr, value
    return None


def expression_value(pair: tuple[str, str], source: tuple[str, str]) -> Fraction | None:
    """The number of ``expression = number`` (:func:`expression_side`) when the grounded equation ``source`` it
    follows from fixes the expression at that value on every solution
    (:func:`~rewards.checks.algebra.determined.determined_value`): ``2(a + b) = 1994``, so ``a + b = 997`` derives
    997. None otherwise (the expression is not fixed by ``source``, or at another value).

    >>> expression_value(("a + b", "997"), ("2(a + b)", "1994")), expression_value(("a + b", "998"), ("2(a + b)", "1994"))
    (Fraction(997, 1), None)
    """
    found = expression_side(pair)
    if found is None:
        return None
    return found[1] if determined_value(source, found[0]) == found[1] else None


def given_equations(problem: str) -> tuple[tuple[str, str], ...]:
    """The equations with unknowns the problem states, as (first, last) sides (at most :data:`MAX_SOURCES`): where a
    derivation may start, and what :func:`rewards.evidence.paths.consumed_through_algebra` compares against.

    >>> given_equations("Solve $2x + 3 = 11$ for $x$.")
    (('2x + 3', '11'),)
    """
    return _given_equations(problem)


def stated_value(pair: tuple[str, str]) -> tuple[str, Fraction] | None:
    """``x = 5`` (either way round): (the unknown, its value); None for anything else.

    >>> stated_value(("y", "10")), stated_value(("3y", "30"))
    (('y', Fraction(10, 1)), None)
    """
    return _stated_value(pair)


def algebraic_sides(sides: tuple[str, ...]) -> tuple[str, str] | None:
    """(first, last) side of an equation with an unknown that the algebra checks read; None for arithmetic, prose
    (``5 sites x 7 birds``) or an equation without an unknown.

    >>> algebraic_sides(("x^2 - 7x - 30", "0")), algebraic_sides(("3 + 4", "7"))
    (('x^2 - 7x - 30', '0'), None)
    """
    return _algebraic(sides)
