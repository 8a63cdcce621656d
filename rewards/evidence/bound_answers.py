r"""An answer read off a solved inequality (:func:`bound_chain`): the greatest or least integer, the number of integers,
or the interval that a verified chain of inequalities from the problem reaches.

"What is the greatest integer that satisfies :math:`6 - x > -9`?" is answered by solving the inequality to a bound
(``15 > x``) and reading the answer off it (14). No equation produces 14, so the dataflow found no derivation and
such an answer earned the unverifiable floor however carefully the trace solved. This module reads the trace's
inequalities in order — the parts of its math segments (as :mod:`~rewards.evidence.symbolic_answers` reads them)
that state a relation (``<``, ``>``, ``\le``, ``\ge``, ``\neq``; two in one part, ``-2 \le x \le 7``, are both
conditions) in one unknown — and solves each over the reals with sympy (the sides read by math-verify's parser,
:func:`~rewards.checks.latex_algebra.parse`). A node is

* a **start** when it is the problem's own inequality (the same text, spacing aside) — or, when the problem writes
  no inequality in letters (a word problem: "the largest number of kids ... at least 3 pieces"), when every number
  it writes is one of the problem's (``0`` and a square's exponent aside: ``3n \le 44``);
* **reached** when the inequality node right before it is reached and the two have the same solutions over the
  *domain* the question asks about (a link). The domain is the integers when the question counts or asks for an
  integer ("integer", "how many", "number of"), with the lower bound "positive" / "nonnegative" set, else the reals:
  ``3n \le 44`` and ``n \le 14`` have the same integer solutions, ``|x + 2| < \sqrt{20}`` and ``x < 2.47`` the same
  positive integer ones. A link that does not hold reaches nothing (nothing is refuted: a case split, a chain that
  goes on elsewhere); lines without an inequality in the unknown (``15 \cdot 3 = 45 > 44``) neither link nor cut.

The solution set is the last chain's (the last with its links), or else the intersection of the chains' last nodes
in its unknown (``x \ge 3`` and ``x \neq 3``: the domain of :math:`\sqrt{2x-6}/(x-3)`); it is
**derived** when it went through at least one verified link and

* an integer answer is its greatest integer (the problem asks for the greatest, largest or maximum), its least
  (smallest, least, minimum), or its number of integers (how many, number of), over the domain;
* an interval answer (``(2, \infty)``, ``[-2, 7]``, a union with ``\cup``) is the set itself, over the reals.

Withheld (``None``): a bound asserted without a start (``x < 15``, the answer beside it), a start with no link (the
problem's inequality copied, the answer stated), a trial value checked on one side (``6 - 14 > -9``: no unknown).

**Sensitivity** — each of the first :data:`MAX_EDITS` numerals of the chain's starts is raised by one, the start
solved again and the answer read again: it *moves* when the answer changes. ``sensitivity = moved / decided``; an
answer no edit moves is **degenerate** (:class:`~rewards.evidence.symbolic_answers.SymbolicChain`).

Solving is a sign chart, not sympy's solvers (seconds on a quartic): a quotient of polynomials in the unknown with
rational coefficients, degree at most :data:`MAX_DEGREE`, is positive between its real roots and poles where it is
positive at a point inside; one absolute value is read as its two cases; anything else (a root of the unknown, a
logarithm) is no node. Sets are kept as sorted spans with float ends rounded to 12 significant digits.

Bounds: at most :data:`MAX_NODES` relation parts (:data:`MAX_PARSE_CHARS` characters) read and :data:`MAX_SOLVES` relations solved per trace (sides
parsed under the parser's own limits), the last :data:`~rewards.evidence.latex_steps.MAX_SEGMENTS` segments. Never
raises on untrusted text.

>>> chain = bound_chain("What is the greatest integer that satisfies $6 - x > -9$ ?",
...                     ["Add $x$: $6 > -9 + x$.", "So $15 > x$, and the greatest integer is $\\boxed{14}$."], "14")
>>> sorted(chain.steps), chain.sensitivity, chain.degenerate
([0, 1], 1.0, None)
>>> bound_chain("What is the greatest integer that satisfies $6 - x > -9$ ?", ["$x < 15$, so $\\boxed{14}$."], "14")
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from typing import Sequence

from rewards.checks.arithmetic.errors import internal_error
from rewards.checks.latex_algebra import MAX_CHARS, parse, split_top_level
from rewards.evidence.latex_steps import passed_check
from rewards.evidence.symbolic_answers import SymbolicChain, expression_key as _key, math_parts as _segments

__all__ = ["MAX_SOLVES", "MAX_NODES", "MAX_PARSE_CHARS", "MAX_EDITS", "MAX_DEGREE", "bound_chain"]

MAX_SOLVES = 16
"""Relations solved per trace (nodes, the problem's, the edits); each parses its sides (about 5-40 ms) and solves
by a sign chart (about 1-5 ms)."""
MAX_NODES = 10
"""Parts stating a relation in one unknown read per trace, from its start (where the chain from the problem
begins)."""
MAX_PARSE_CHARS = 480
"""Characters of those parts handed to the parser per trace (a part costs about 5-100 ms, growing with its
length)."""
MAX_EDITS = 3
"""Counterfactual edits of the chain's starts."""
MAX_DEGREE = 4
"""Highest degree of a numerator or denominator solved."""

_LETTER = re.compile(r"(?<![A-Za-z])[A-Za-z](?![A-Za-z])")
_COMMAND = re.compile(r"\\[A-Za-z]+")
_REL = re.compile(r"\\(?:leq?|geq?|lt|gt|neq?)(?![A-Za-z])|[<>≤≥≠]|!=")
_NUMERAL = re.compile(r"(?<![\w.\\])\d+(?:\.\d+)?(?![\d.])")
_SQUARE = re.compile(r"\^\s*\{?\s*2(?![\d.])\s*\}?")
_MAX_WORDS = re.compile(r"\b(?:greatest|largest|maximum|biggest|max)\b", re.I)
_MIN_WORDS = re.compile(r"\b(?:smallest|least|minimum|min)\b", re.I)
_UNSOLVED = re.compile(r"\^\s*(?:\{[^{}]*[A-Za-z][^{}]*\}|[A-Za-z])|\\(?:ln|log|exp|sin|cos|tan|cot|sec|csc|arc\w+|lfloor|lceil|sum|prod|binom)(?![A-Za-z])|\\sqrt\s*(?:\[[^\]]*\])?\s*\{[^{}]*[A-Za-z]")
"""What the sign chart cannot solve, read before parsing: the unknown in an exponent, a logarithm or trigonometric
function, a floor, a sum, a root of the unknown."""
_HOW_MANY = re.compile(r"\bhow many\b", re.I)
_NUMBER_OF = re.compile(r"\bnumber of\b", re.I)
_CONDITION_WORDS = re.compile(r"\bat (?:least|most)\b", re.I)
_INTEGER_WORDS = re.compile(r"\binteger|\bhow many\b|\bnumber of\b|\bwhole numbers?\b", re.I)
_POSITIVE = re.compile(r"\bpositive\b", re.I)
_NONNEGATIVE = re.compile(r"\bnon-?negative\b", re.I)
_INTERVAL_WORDS = re.compile(r"\binterval", re.I)
_INTERVAL = re.compile(r"\s*([\[(])(.+?),(.+?)([\])])\s*")


class _Budget:
    __slots__ = ("left",)

    def __init__(self, left: int = MAX_SOLVES) -> None:
        self.left = left

    def spend(self) -> bool:
        self.left -= 1
        return self.left >= 0


def _sympy():
    import sympy  # local: sympy loads with the parser, on the first LaTeX answer

    return sympy


def _relations(part: str) -> list[tuple[int, int, str]]:
    """The relations of ``part`` outside brackets: ``(start, end, relation)``."""
    out, depth = [], 0
    for k, c in enumerate(part):
        depth += (c in "({[") - (c in ")}]")
        if depth == 0 and c in "<>≤≥≠\\!":
            m = _REL.match(part, k)
            if m and not (out and out[-1][1] > k):
                out.append((m.start(), m.end(), m.group()))
    return out


def _normal(relation: str) -> str:
    relation = relation.replace("\\", "")
    return {"leq": "le", "geq": "ge", "≤": "le", "≥": "ge", "<": "lt", ">": "gt", "ne": "ne", "neq": "ne",
            "≠": "ne", "!=": "ne"}.get(relation, relation)


def _solve(part: str, budget: _Budget):
    """``(unknown, the solution set over the reals)`` of a part stating one or two relations in one unknown, or
    ``None``."""
    found = _relations(part)
    if not 1 <= len(found) <= 2 or len(part) > MAX_CHARS:
        return None
    bounds = [0, *[k for a, b, _ in found for k in (a, b)], len(part)]
    sides = [part[bounds[2 * i]:bounds[2 * i + 1]] for i in range(len(found) + 1)]
    if not all(s.strip() for s in sides):
        return None
    sympy = _sympy()
    exprs = [_side(s) for s in sides]
    if not all(isinstance(e, sympy.Expr) for e in exprs):
        return None
    names = set().union(*(e.free_symbols for e in exprs))
    if len(names) != 1:
        return None
    x = next(iter(names))
    result = _REALS
    for (_, _, relation), left, right in zip(found, exprs, exprs[1:]):
        if not budget.spend():
            return None
        solved = _one(left, right, _normal(relation), x)
        if solved is None:
            return None
        result = _intersect(result, solved)
    return x, result


def _evaluates(part: str, before: str) -> bool:
    """Whether ``part``, of the same form as ``before`` (:func:`_form`), computes something of it: it writes fewer
    numbers (``6 + 9 > x`` then ``15 > x``); padding writes as many or more (``6 - x + 0 > -9``, the sides swapped)."""
    return len(_numerals(part)) < len(_numerals(before))


def _evaluated(expr):
    """``expr`` rebuilt with sympy's evaluation (the parser keeps ``6 + 9`` and ``+ 0`` as written); its size is the
    parser's bounded tree."""
    if not getattr(expr, "args", ()):
        return expr
    return expr.func(*[_evaluated(a) for a in expr.args])


def _form(part: str) -> tuple | None:
    r"""The inequality ``part`` states, each side expanded by sympy: each relation as
    ``(relation, greater side, smaller side)`` (``a < b`` is ``b > a``). Two parts with the same form state one
    inequality, however the text pads a side: ``6 - x + 0 > -9`` and ``-9 < 6 - x`` are ``6 - x > -9`` written again
    (no link, :func:`_evaluates`); ``6 + 9 > x`` moves a term across and is a link, and ``15 > x`` after it computes
    a side (it writes fewer numbers) and is one too. ``None`` when a side does not parse.

    >>> _form("6 - x + 0 > -9") == _form("-9 < 6 - x") == _form("6 - x > -9") != _form("6 + 9 > x") == _form("15 > x")
    True
    """
    found = _relations(part)
    if not found:
        return None
    bounds = [0, *[k for a, b, _ in found for k in (a, b)], len(part)]
    exprs = [_side(part[bounds[2 * i]:bounds[2 * i + 1]]) for i in range(len(found) + 1)]
    try:
        exprs = [_evaluated(e).expand() for e in exprs]  # parts reach here solved: polynomials of degree <= MAX_DEGREE
    except (AttributeError, TypeError, ValueError, RecursionError):
        return None
    out = []
    for (_, _, relation), left, right in zip(found, exprs, exprs[1:]):
        rel = _normal(relation)
        out.append((rel, left, right) if rel in ("gt", "ge", "ne") else ({"lt": "gt", "le": "ge"}[rel], right, left)
                   if rel in ("lt", "le") else (rel, left, right))
    return tuple(out)


_PLAIN_NUMBER = re.compile(r"\s*-?\d{1,12}(?:\.\d{1,12})?\s*")
_PLAIN_LETTER = re.compile(r"\s*[A-Za-z]\s*")


def _side(text: str):
    """A side as sympy reads it: a plain number or letter directly, anything else through the parser."""
    sympy = _sympy()
    if _PLAIN_NUMBER.fullmatch(text):
        return sympy.Rational(text.strip())
    if _PLAIN_LETTER.fullmatch(text):
        return sympy.Symbol(text.strip())
    return parse(text)


def _one(left, right, relation: str, x):
    """The real solutions of ``left relation right`` as spans, from a sign chart (:func:`_sign_chart`) of the
    difference the relation says is positive (non-negative, non-zero); one absolute value ``|A|`` in it is read as
    two cases, ``A >= 0`` and ``A < 0``. ``None`` beyond that class (a root, two absolute values, a power of a
    letter)."""
    sympy = _sympy()
    d = left - right if relation in ("gt", "ge", "ne") else right - left
    absolutes = list(d.atoms(sympy.Abs))
    if len(absolutes) > 1:
        return None
    if not absolutes:
        return _sign_chart(d, x, relation)
    inner = absolutes[0].args[0]
    cases = []
    for sign, region in ((1, _sign_chart(inner, x, "ge")), (-1, _sign_chart(-inner, x, "gt"))):
        solved = _sign_chart(d.subs(absolutes[0], sign * inner), x, relation)
        if region is None or solved is None:
            return None
        cases.extend(_intersect(region, solved))
    return _normalise(cases)


def _sign_chart(d, x, relation: str):
    """Where ``d > 0`` (``d >= 0`` for ``ge``/``le``, ``d != 0`` for ``ne``) for ``d`` a quotient of polynomials in
    ``x`` of degree at most :data:`MAX_DEGREE` with rational coefficients (a decimal read as the fraction it writes):
    the real roots of numerator and denominator cut the line, and the sign on each piece is the sign at a point
    inside; a root of the denominator is never a solution. ``None`` for anything else."""
    sympy = _sympy()
    try:
        num, den = sympy.fraction(sympy.together(d))
        top, bottom = _coefficients(num, x), _coefficients(den, x)
    except Exception:  # noqa: BLE001 - not a quotient of polynomials in x
        return None
    if top is None or bottom is None or not any(bottom):
        return None
    zeros, poles = _real_roots(top, x), _real_roots(bottom, x)
    if zeros is None or poles is None:
        return None
    cuts = sorted(set(zeros) | set(poles))
    if relation == "ne":
        return _normalise([(lo, hi, False, False) for lo, hi in zip([-_INF, *cuts], [*cuts, _INF])])
    pieces = []
    for lo, hi in zip([-_INF, *cuts], [*cuts, _INF]):
        inside = (lo + hi) / 2 if lo > -_INF and hi < _INF else hi - 1 if hi < _INF else lo + 1 if lo > -_INF else 0.0
        if _at(top, inside) * _at(bottom, inside) > 0:
            pieces.append((lo, hi, False, False))
    if relation in ("ge", "le"):
        pieces.extend((r, r, True, True) for r in zeros if r not in poles)
    return _normalise(pieces)


def _coefficients(poly_expr, x) -> list | None:
    """The coefficients of a polynomial in ``x`` of degree at most :data:`MAX_DEGREE`, highest first: rational, or
    real constants (``\\sqrt{20}``) up to degree two."""
    sympy = _sympy()
    poly = sympy.Poly(sympy.expand(poly_expr), x)
    coeffs = [sympy.Rational(str(c)) if c.is_Float else c for c in poly.all_coeffs()]
    if len(coeffs) - 1 > MAX_DEGREE or not all(c.is_Rational or (c.is_number and c.is_real) for c in coeffs):
        return None
    if len(coeffs) > 3 and not all(c.is_Rational for c in coeffs):
        return None  # a constant such as \sqrt{20} in a cubic or quartic: not read
    return coeffs


def _at(coeffs: list, v: float) -> float:
    out = 0.0
    for c in coeffs:
        out = out * v + float(c)
    return out


def _real_roots(coeffs: list, x) -> list[float] | None:
    """The real roots (exact to a float for degree one or two, to 30 digits beyond); ``None`` for the zero
    polynomial."""
    sympy = _sympy()
    while coeffs and coeffs[0] == 0:
        coeffs = coeffs[1:]
    if not coeffs:
        return None
    if len(coeffs) == 1:
        return []
    if len(coeffs) == 2:
        return [_round(float(-coeffs[1] / coeffs[0]))]
    if len(coeffs) == 3:
        a, b, c = coeffs
        disc = b * b - 4 * a * c
        return [] if disc < 0 else sorted({_round(float((-b - sympy.sqrt(disc)) / (2 * a))),
                                           _round(float((-b + sympy.sqrt(disc)) / (2 * a)))})
    try:  # the square-free part: nroots does not converge on a repeated root
        found = sympy.Poly(coeffs, x).sqf_part().nroots(n=30, maxsteps=60)
    except Exception:  # noqa: BLE001 - no convergence
        return None
    return sorted({_round(float(sympy.re(r))) for r in found if abs(float(sympy.im(r))) < 1e-12})


_INF = float("inf")
_REALS = ((-_INF, _INF, False, False),)
"""A set of reals as the solver keeps it: sorted disjoint spans ``(lo, hi, lo closed, hi closed)`` (floats, ends
rounded to 12 significant digits; a point is ``(a, a, True, True)``)."""


def _round(v: float) -> float:
    return v if v in (_INF, -_INF) else float(f"{v:.12g}")


def _normalise(pieces) -> tuple:
    """Sorted, merged spans (touching spans joined when one of them holds the shared end)."""
    out: list[list] = []
    for lo, hi, lc, hc in sorted(((_round(a), _round(b), c, d) for a, b, c, d in pieces),
                                 key=lambda p: (p[0], not p[2])):
        if lo > hi or (lo == hi and not (lc and hc)):
            continue
        if out and (lo < out[-1][1] or lo == out[-1][1] and (lc or out[-1][3])):
            if hi > out[-1][1] or hi == out[-1][1] and hc:
                out[-1][1], out[-1][3] = hi, hc
            continue
        out.append([lo, hi, lc, hc])
    return tuple(tuple(p) for p in out)


def _intersect(a: tuple, b: tuple) -> tuple:
    pieces = []
    for alo, ahi, alc, ahc in a:
        for blo, bhi, blc, bhc in b:
            lo, lc = (alo, alc) if alo > blo else (blo, blc) if blo > alo else (alo, alc and blc)
            hi, hc = (ahi, ahc) if ahi < bhi else (bhi, bhc) if bhi < ahi else (ahi, ahc and bhc)
            pieces.append((lo, hi, lc, hc))
    return _normalise(pieces)


def _domain(problem: str) -> tuple[bool, int | None]:
    """``(integers, lower bound)`` the question asks about."""
    lower = 1 if _POSITIVE.search(problem) else 0 if _NONNEGATIVE.search(problem) else None
    return bool(_INTEGER_WORDS.search(problem)), lower


def _integer_ranges(found: tuple, lower: int | None) -> tuple:
    """The integers of a set of spans as merged ``(lo, hi)`` ranges (``None`` for an unbounded end), clipped below
    at ``lower``."""
    ranges = []
    for a, b, a_closed, b_closed in found:
        lo = None if a == -_INF else _integer_at(a, a_closed, up=True)
        hi = None if b == _INF else _integer_at(b, b_closed, up=False)
        ranges.append((lo, hi))
    return _merge(ranges, lower)


def _integer_at(v: float, closed: bool, up: bool) -> int:
    """The first integer in the span from its end ``v`` inwards (``up``: from a lower end)."""
    near = round(v)
    if abs(v - near) < 1e-9:
        return near if closed else near + (1 if up else -1)
    return math.ceil(v) if up else math.floor(v)


def _merge(ranges: list, lower: int | None) -> tuple:
    out: list[list] = []
    for lo, hi in sorted(ranges, key=lambda r: -10**30 if r[0] is None else r[0]):
        if lower is not None:
            if hi is not None and hi < lower:
                continue
            lo = lower if lo is None else max(lo, lower)
        if lo is not None and hi is not None and lo > hi:
            continue
        if out and (out[-1][1] is None or lo is None or lo <= out[-1][1] + 1):
            out[-1][1] = None if out[-1][1] is None or hi is None else max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return tuple(tuple(r) for r in out)


def _same_solutions(a, b, domain: tuple[bool, int | None]) -> bool:
    """``a`` and ``b`` (sympy sets) have the same solutions over the domain."""
    integers, lower = domain
    if integers:
        return _integer_ranges(a, lower) == _integer_ranges(b, lower)
    return a == b


def _answer_reader(problem: str, answer: str):
    """What the answer asks of the chain's set: ``("integer", value, words)`` with the words of the question (max,
    min, count: :func:`_question_words`) or ``("interval", spans)``; ``None`` when it is neither."""
    text = answer.strip().replace("\\!", "").replace(" ", "")
    if re.fullmatch(r"-?\d{1,9}", text):
        return ("integer", int(text), _question_words(problem)) if _question_words(problem) else None
    interval = _interval(answer, bool(_INTERVAL_WORDS.search(problem)))
    return None if interval is None else ("interval", interval)


def _question_words(problem: str) -> list[str]:
    """What the question reads off the set: ``max`` (greatest, largest, maximum), ``min`` (smallest, least,
    minimum; not "at least", a condition), ``count`` ("how many"; "number of" only where no extreme is asked: "the
    largest number of kids" asks the greatest)."""
    text = _CONDITION_WORDS.sub(" ", problem)
    words = [w for w, pattern in (("max", _MAX_WORDS), ("min", _MIN_WORDS)) if pattern.search(text)]
    if _HOW_MANY.search(text) or (not words and _NUMBER_OF.search(text)):
        words.append("count")
    return words


def _interval(answer: str, asked: bool):
    """An interval answer (``(2, \\infty)``, ``[-2,7]``, unions with ``\\cup``; ``x \\in`` before it) as spans;
    ``(a, b)`` with finite ends only when the problem asks for an interval (``asked``), else it is an ordered pair."""
    sympy = _sympy()
    text = re.sub(r"^\s*[A-Za-z]\s*\\in\s*", "", answer.replace("\\left", "").replace("\\right", ""))
    if not asked and "\\infty" not in text and "\\cup" not in text and "[" not in text and "]" not in text:
        return None  # "(4, -7)" is an ordered pair, not an interval
    pieces = []
    for piece in text.split("\\cup"):
        m = _INTERVAL.fullmatch(piece)
        if m is None:
            return None
        ends = []
        for side in (m.group(2), m.group(3)):
            side = side.strip()
            ends.append(-sympy.oo if side in ("-\\infty", "-infty") else sympy.oo if side in ("\\infty", "+\\infty")
                        else parse(side))
        if not all(isinstance(e, sympy.Expr) and not e.free_symbols for e in ends):
            return None
        pieces.append((float(ends[0]), float(ends[1]), m.group(1) == "[", m.group(4) == "]"))
    return _normalise(pieces)


def _read_off(found, reader, domain: tuple[bool, int | None]) -> list:
    """The answers ``found`` (a sympy set) gives to the question: integers for an integer answer (its greatest,
    least, or number of integers over the domain, as the question's words ask), the set for an interval."""
    if reader[0] == "interval":
        return [found]
    ranges = _integer_ranges(found, domain[1])
    if not ranges:
        return []
    out = []
    if "max" in reader[2] and ranges[-1][1] is not None:
        out.append(ranges[-1][1])
    if "min" in reader[2] and ranges[0][0] is not None:
        out.append(ranges[0][0])
    if "count" in reader[2] and all(lo is not None and hi is not None for lo, hi in ranges):
        out.append(sum(hi - lo + 1 for lo, hi in ranges))
    return out


def _matches(found, reader, domain) -> bool:
    if found is None:
        return False
    target = reader[1]
    return any(value == target for value in _read_off(found, reader, domain))


def _problem_inequalities(problem: str) -> dict[str, str]:
    """The inequalities in letters the problem writes, by key."""
    out: dict[str, str] = {}
    for _, parts in _segments([problem]):
        for part in parts:
            if _relations(part) and re.search(r"(?<![\\A-Za-z])[A-Za-z](?![A-Za-z])", re.sub(r"\\[A-Za-z]+", " ", part)):
                out.setdefault(_key(part), part)
    return out


def _numerals(text: str) -> list[Fraction]:
    return [Fraction(m.group()) for m in _NUMERAL.finditer(_SQUARE.sub(" ", text))]


def _nodes(steps: Sequence[str]) -> list[tuple[int, str]]:
    """``(step, part)`` of every part that states a relation, in order."""
    out, chars = [], 0
    for step, parts in _segments(steps):
        for part in parts:
            if len(out) >= MAX_NODES or chars + len(part) > MAX_PARSE_CHARS:
                return out
            if _relations(part) and len(_letters(part)) == 1 and not _UNSOLVED.search(part):
                out.append((step, part))
                chars += len(part)
    return out


def _letters(text: str) -> set[str]:
    """The letters a part writes, commands aside (read before parsing: a part in two unknowns is no node)."""
    return set(_LETTER.findall(_COMMAND.sub(" ", text)))


class _Chain:
    """One chain of inequalities in one unknown: its start, the steps and verified links on it, its last set, and
    the links it needs to show work (:func:`_walk`)."""

    __slots__ = ("x", "start", "last", "steps", "links", "end", "need", "keys", "forms")

    def __init__(self, x, start: str, step: int, found, need: int) -> None:
        self.x, self.start, self.last, self.steps, self.links, self.end, self.need = x, start, start, {step}, [], found, need
        self.keys = {_key(start)}
        self.forms = {_form(start)} - {None}


def _walk(problem: str, steps: Sequence[str], domain, budget: _Budget) -> list[_Chain]:
    """The chains of the trace (module docstring): a node links to the latest chain in its unknown when the two
    have the same solutions over the domain, else starts a chain when it is grounded."""
    problem_keys = _problem_inequalities(problem)
    solved_problem = [(p, s) for p, s in ((p, _solve(p, budget)) for p in list(problem_keys.values())[:2])
                      if s is not None]
    problem_numbers = {Fraction(m.group()) for m in _NUMERAL.finditer(problem)}
    chains: list[_Chain] = []
    latest: dict = {}
    for step, part in _nodes(steps):
        if budget.left <= 0:
            break
        solved = _solve(part, budget)
        if solved is None:
            continue  # no inequality in one unknown the solver reads: neither a link nor a cut
        x, found = solved
        chain = latest.get(x)
        form = _form(part)
        if chain is not None and (_key(part) in chain.keys or form in chain.forms and not _evaluates(part, chain.last)):
            continue  # a node of the chain written again (padding aside: "+ 0"): no link, no new start
        if chain is not None and _same_solutions(chain.end, found, domain):
            chain.links.append((step, passed_check([chain.last, part], f"{chain.last} and {part}: the same solutions "
                                                                        f"over the {_domain_name(domain)}")))
            chain.steps.add(step)
            chain.end, chain.last = found, part
            chain.keys.add(_key(part))
            chain.forms.add(form)
            continue
        if any(c.x == x and _same_solutions(c.end, found, domain) for c in chains):
            continue  # what a chain reached, restated: no new condition
        start = _start(part, (x, found), (problem_keys, solved_problem, problem_numbers), domain)
        if start is not None:
            latest[x] = _Chain(x, part, step, found, start[0])
            if start[1]:
                latest[x].links.append((step, passed_check([start[2], part], start[1])))
            chains.append(latest[x])
    return chains


def _start(part: str, solved, problem: tuple, domain) -> tuple[int, str, str] | None:
    r"""Whether ``part`` starts a chain: ``(links it needs, the link from the problem it already has or "", the
    problem's inequality it links from)``.

    The problem's inequality written as the problem writes it needs two links (one link from it straight to a bound
    is the problem copied and the bound stated); a part with the same solutions as the problem's inequality is a
    first link from it (and needs one more); in a word problem (no inequality in the problem) an inequality built
    from the problem's numbers needs one link (``3n \le 44`` then ``n \le 14``)."""
    problem_keys, solved_problem, problem_numbers = problem
    if problem_keys:
        form = _form(part)
        if _key(part) in problem_keys or any(form is not None and form == _form(p) and not _evaluates(part, p)
                                             for p in problem_keys.values()):
            return 2, "", ""  # the problem's inequality, written as the problem writes it or padded ("+ 0")
        for written, (x, found) in solved_problem:
            if x == solved[0] and _same_solutions(found, solved[1], domain):
                return 2, f"{part}: the same solutions over the {_domain_name(domain)} as the problem's {written}", \
                    written
        return None
    numbers = [n for n in _numerals(part) if n != 0]
    if numbers and all(n in problem_numbers for n in numbers):
        return 1, "", ""
    return None


def _domain_name(domain) -> str:
    integers, lower = domain
    if not integers:
        return "reals"
    return {1: "positive integers", 0: "nonnegative integers"}.get(lower, "integers")


def _choose(chains: list[_Chain], reader, domain) -> list[_Chain] | None:
    """The chains whose sets give the answer: the last chain with its links alone, or all the chains in its unknown,
    intersected."""
    linked = [c for c in chains if len(c.links) >= c.need]
    if not linked:
        return None
    last = linked[-1]
    same = [c for c in chains if c.x == last.x]
    for used in ([last], same):  # the last chain alone first: a redundant condition beside it hides every edit
        found = _intersection([c.end for c in used])
        if _matches(found, reader, domain):
            return used
    return None


def _intersection(sets):
    result = _REALS
    for s in sets:
        result = _intersect(result, s)
    return result


def _sensitivity(used: list[_Chain], reader, domain, budget: _Budget) -> float | None:
    """The share of decided edits of the starts' numerals (raised by one) after which the answer no longer follows."""
    moved = decided = 0
    edits = 0
    for k, chain in enumerate(used):
        for m in _NUMERAL.finditer(chain.start):
            if edits >= MAX_EDITS or m.group() == "0" or chain.start[:m.start()].rstrip().endswith(("^", "^{")):
                continue  # an exponent is notation, not a quantity
            edits += 1
            number = Fraction(m.group()) + 1
            edited = f"{chain.start[:m.start()]}{number}{chain.start[m.end():]}"
            solved = _solve(edited, budget)
            if solved is None:
                continue
            decided += 1
            sets = [c.end for c in used[:k]] + [solved[1]] + [c.end for c in used[k + 1:]]
            moved += not _matches(_intersection(sets), reader, domain)
    return moved / decided if decided else None


def bound_chain(problem: str, steps: Sequence[str], answer: str | None) -> SymbolicChain | None:
    """The verified chain of inequalities from the problem that the answer is read off (module docstring), or
    ``None``. Never raises."""
    if not isinstance(problem, str) or not answer or len(answer) > MAX_CHARS:
        return None
    if not any(isinstance(s, str) and _REL.search(s) for s in steps):
        return None
    try:
        reader = _answer_reader(problem, answer)
        if reader is None:
            return None
        domain = _domain(problem) if reader[0] == "integer" else (False, None)
        budget = _Budget()
        used = _choose(_walk(problem, steps, domain, budget), reader, domain)
        if used is None:
            return None
        sensitivity = _sensitivity(used, reader, domain, _Budget(2 * MAX_EDITS))  # its own: the walk may spend all
        links = tuple(link for c in used for link in c.links)
        degenerate = "no edit of the problem's numbers in the inequality moves the answer" if sensitivity == 0 else None
        return SymbolicChain(frozenset().union(*(c.steps for c in used)), " and ".join(c.start for c in used), links,
                             sensitivity, degenerate)
    except Exception as exc:  # noqa: BLE001 - a bug here must not crash a reward: counted, logged, raised when strict
        internal_error("bound_chain", steps, exc)
        return None
