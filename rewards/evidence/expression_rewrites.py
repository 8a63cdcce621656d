r"""A number of the problem written in another form: the constants of the problem's own expression rewritten.

Competition solutions expand, factor, complete the square and put fractions over one denominator:
``a^2 + 6a - 7`` becomes ``(a + 3)^2 - 16``, ``(x-3)^2 - (x-8)^2`` becomes ``10x - 55``, ``\frac{1}{x-1} -
\frac{1}{x-7} > 1`` becomes ``\frac{-x^2 + 8x - 13}{(x-1)(x-7)} > 0``. The 16, 55 and 13 are numbers of the problem
in another notation, not numbers from nowhere — but only where the rewrite is checked. A step's expression
licenses a number here when

* it is equal, as a function of its letters, to an expression the problem states (a side of the problem's equation
  or inequality, that side minus the other, or a sub-expression under a root, a bracket or an absolute value), or to
  an expression with letters the trace wrote in this step or the one before from reached numbers only
  (``9 + 13 - x``, then ``22 - x``: expanding it is a computation on reached numbers), up to sign — checked at random rational points through math-verify's LaTeX parser
  (:mod:`rewards.checks.latex_algebra`); and
* the number is one of that problem expression's own constants (:func:`canonical_constants`): a coefficient of it
  expanded, of a factor of it factored, of its numerator and denominator over one denominator, or of its completed
  square (``h``, ``a h^2`` and ``k`` of ``a(x + h)^2 + k``); and
* every other number of that expression nothing reached is such a constant too, and none is written twice (added
  and taken away again) but the terms that complete the square (:func:`completing_terms`: the 9 of
  ``a^2 + 6a + 9 - 9 - 7``).

All are needed. An identity alone licenses anything (``x + 3 = x + 100 - 97`` holds and "derives" 100, and
``a^2 + 6a + 16 - 16 - 7`` holds for any 16); a constant alone is a number the trace never wrote in a checked form. A number so licensed is reached; a number the
trace stated before the rewrite (``divide 6 by 2 to get 3, and square it to get 9``) is then no claim from nowhere
either. Nothing here refutes: a rewrite that is not equal, or a number that is no constant of it, is only left
unsupported.

Bounds: the problem's expressions are read once per trace (at most :data:`MAX_POOL`, each at most degree
:data:`MAX_DEGREE` in its letters and :data:`MAX_NODES` nodes before expanding); a trace asks the parser for at
most :data:`MAX_PARSES` of its own expressions, only ones that write a number nothing reached.

>>> pool = ProblemExpressions("What is the minimum value of $a^2+6a-7$?")
>>> sorted(pool.licensed(r"\[ (a + 3)^2 - 16 \]", lambda v: v in (2, 6, 7)))
[Fraction(3, 1), Fraction(16, 1)]
>>> pool.licensed(r"\[ a^2 + 6a + 100 - 107 \]", lambda v: v in (2, 6, 7))  # an identity, but 100 is no constant
set()
>>> pool.licensed(r"\[ a^2 + 6a + 16 - 16 - 7 \]", lambda v: v in (2, 6, 7))  # added and taken away: no form
set()
>>> sorted(pool.licensed(r"\[ a^2 + 6a + 9 - 9 - 7 \]", lambda v: v in (2, 6, 7)))  # the square completed
[Fraction(9, 1)]
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Callable

from rewards.evidence.quantities import read_numbers, value_key

MAX_POOL = 12
"""At most this many expressions of the problem are kept to compare with."""

MAX_PARSES = 10
"""At most this many expressions are parsed per trace, the problem's included (a parse costs milliseconds, and tens
of them on a loaded machine or for a construct the parser has not met: ANTLR fills its prediction tables)."""

MAX_SIDE = 100
"""Longer expressions are not parsed."""

MAX_WRITTEN = 2

MAX_SOURCE = 40
"""The trace's own expressions compared are at most this long (``100x - x``): a long rational expression costs the
parser most and is rarely rewritten whole."""
"""At most this many of the trace's own expressions (the last ones of the step and the step before) are compared."""

MAX_DEGREE = 6
"""A problem expression of a higher degree in a letter is not expanded (no constants read from it)."""

MAX_NODES = 120
"""A problem expression with more nodes is not expanded."""

MAX_CONSTANT = 10 ** 9
"""Constants larger than this (numerator or denominator) are not licensed."""

_MATH = re.compile(r"\$\$(.{1,400}?)\$\$|\$(.{1,400}?)\$|\\\[(.{1,400}?)\\\]|\\\((.{1,400}?)\\\)", re.S)
_BREAK = re.compile(r"\\(?:implies|Rightarrow|Longrightarrow|iff|quad|qquad)(?![A-Za-z])|\\text\{[^{}]*\}|,\s|;|"
                    r"\\\\|&")
_RELATION = re.compile(r"\\(?:leq?|geq?|lt|gt|neq?)(?![A-Za-z])|[<>≤≥=]")
_LETTER = re.compile(r"(?<![\\A-Za-z])[A-Za-z](?![A-Za-z])")


_POWER = re.compile(r"\^\s*\{?\s*-?\s*(\d+)")


_NOT_ALGEBRA = re.compile(r"\\(?!d?frac|tfrac|cdot|times|left|right|sqrt)[A-Za-z]+|\be\s*\^|\^\s*\{[^{}]*[A-Za-z]")
"""A command other than a fraction, a product, a bracket size or a root (``\pi``, ``\sin``, ``\log``), Euler's
``e^``, or a letter in an exponent: no polynomial or rational function, no constants to read."""


def parseable(side: str) -> bool:
    """Worth a parse: at most :data:`MAX_SIDE` characters, a letter and a digit, a polynomial or rational function
    (:data:`_NOT_ALGEBRA`) with no power above :data:`MAX_DEGREE` (no constants are read from any other expression:
    :func:`canonical_constants`).

    >>> parseable("(a + 3)^2 - 16"), parseable("e^{4 \\pi i/5}"), parseable("b^{17} + 2"), parseable("a^{k-16m}")
    (True, False, False, False)
    """
    return len(side) <= MAX_SIDE and bool(_LETTER.search(side)) and any(c.isdigit() for c in side) \
        and not _NOT_ALGEBRA.search(side) and all(int(m) <= MAX_DEGREE for m in _POWER.findall(side))


_EXPONENT = re.compile(r"\^\s*\{?\s*-?\s*$")


def _operands(side: str) -> list[Fraction]:
    """|value| of each number ``side`` writes but its exponents (``x^2``: notation, not a quantity)."""
    return [abs(v) for v, (start, _end) in read_numbers(side) if not _EXPONENT.search(side, 0, start)]


def _candidates(text: str, is_reached: Callable[[Fraction], bool]) -> list[tuple]:
    """``(side, unreached numbers, those written twice, its chain)`` of each side ``text`` writes worth a parse
    (:func:`parseable`) that writes a number (not an exponent) nothing reached."""
    out = []
    for k, sides in enumerate(_pieces(text)):
        for side in sides:
            if parseable(side):
                numbers = _operands(side)
                unreached = {v for v in numbers if not is_reached(v)}
                if unreached:
                    out.append((side, unreached, {v for v in unreached if numbers.count(v) > 1}, k))
    return out


def _fits(candidate: tuple, pool: list) -> bool:
    """Whether some pool entry has the candidate's letters and every number it would license among its constants
    (what :meth:`ProblemExpressions.licensed` asks before it parses the candidate)."""
    side, unreached, repeated = candidate[:3]
    letters = _letters(side)
    return any(names == letters and unreached <= constants and repeated <= completing
               for names, _expr, constants, completing in pool)


def _letters(side: str) -> frozenset[str]:
    """The one-letter names ``side`` writes (read from the text, before any parse)."""
    return frozenset(_LETTER.findall(side))


def _pieces(text: str) -> list[list[str]]:
    """The relations each math segment of ``text`` writes, as lists of sides (``a = b > c`` -> ``[a, b, c]``)."""
    out = []
    for match in _MATH.finditer(text):
        segment = next(g for g in match.groups() if g is not None)
        for part in _BREAK.split(segment):
            sides = [s.replace("~", " ").strip(" .,:;?!") for s in _RELATION.split(part)]
            sides = [s for s in sides if s]
            if sides:
                out.append(sides)
    return out


def _small(expr, sympy) -> bool:
    """Few nodes, every power an integer power of at most :data:`MAX_DEGREE` or a square root: safe to expand."""
    nodes = 0
    for node in sympy.preorder_traversal(expr):
        nodes += 1
        if nodes > MAX_NODES:
            return False
        if isinstance(node, sympy.Pow):
            e = node.args[1]
            if not (e == sympy.S.Half or (e.is_Integer and abs(int(e)) <= MAX_DEGREE)):
                return False
    return True


def _coefficients(part, symbols, sympy) -> set[Fraction]:
    """|coefficients| of the polynomial ``part`` in ``symbols`` (nothing when it is no polynomial of small degree),
    and of its completed square when it is a quadratic in one letter."""
    try:
        poly = sympy.Poly(part, *symbols)
    except Exception:  # noqa: BLE001 - not a polynomial: no coefficients
        return set()
    if poly.total_degree() > MAX_DEGREE or not all(c.is_Rational for c in poly.coeffs()):
        return set()
    values = [Fraction(int(c.p), int(c.q)) for c in poly.coeffs()]
    if len(symbols) == 1 and poly.degree() == 2:
        a, b, c = (Fraction(int(v.p), int(v.q)) for v in poly.all_coeffs())
        h = b / (2 * a)
        values += [h, a * h * h, c - a * h * h]
    return {abs(v) for v in values}


def canonical_constants(expr) -> frozenset[Fraction]:
    r"""The constants of a (parsed) expression in its letters: coefficients of it expanded, of its numerator and
    denominator over one denominator, of each factor of those, and of a quadratic's completed square; absolute
    values, zero left out.

    >>> from rewards.checks.latex_algebra import parse
    >>> sorted(int(v) for v in canonical_constants(parse("(x-3)^2-(x-8)^2")))  # 10x - 55 = 5(2x - 11)
    [1, 2, 5, 10, 11, 55]
    >>> sorted(int(v) for v in canonical_constants(parse("a^2+6a-7")))
    [1, 3, 6, 7, 9, 16]
    """
    import sympy  # local: loads only where a problem states an expression with letters
    if not _small(expr, sympy):
        return frozenset()
    symbols = sorted(expr.free_symbols, key=lambda s: s.name)
    out: set[Fraction] = set()
    try:
        numerator, denominator = sympy.fraction(sympy.together(expr))
        for part in (numerator, denominator):
            out |= _coefficients(sympy.expand(part), symbols, sympy)
            unit, factors = sympy.factor_list(part, *symbols)
            if unit.is_Rational:
                out.add(abs(Fraction(int(unit.p), int(unit.q))))
            for factor, _power in factors[:MAX_DEGREE]:
                out |= _coefficients(factor, symbols, sympy)
    except Exception:  # noqa: BLE001 - an expression sympy cannot put over one denominator gives no constants
        return frozenset(v for v in out if v)
    return frozenset(v for v in out if v and max(v.numerator, v.denominator) <= MAX_CONSTANT)


def completing_terms(expr) -> frozenset[Fraction]:
    r"""The numbers a solution adds and takes away again to complete the square of a quadratic in one letter
    (``a^2 + 6a + 9 - 9 - 7``): ``h`` and ``a h^2`` of ``a(x + h)^2 + k``.

    >>> from rewards.checks.latex_algebra import parse
    >>> sorted(int(v) for v in completing_terms(parse("a^2+6a-7")))
    [3, 9]
    """
    import sympy  # local: loads only where a problem states an expression with letters
    symbols = list(expr.free_symbols)
    if len(symbols) != 1 or not _small(expr, sympy):
        return frozenset()
    try:
        poly = sympy.Poly(sympy.expand(expr), *symbols)
    except Exception:  # noqa: BLE001 - no polynomial: nothing to complete
        return frozenset()
    if poly.degree() != 2 or not all(c.is_Rational for c in poly.all_coeffs()):
        return frozenset()
    a, b, _c = (Fraction(int(v.p), int(v.q)) for v in poly.all_coeffs())
    h = b / (2 * a)
    return frozenset({abs(h), abs(a * h * h)} - {0})


def _sub_expressions(expr, sympy) -> list:
    """``expr`` and what sits under its roots, absolute values and bracketed sums, with letters."""
    out = [expr]
    for node in sympy.preorder_traversal(expr):
        if node is expr or not node.free_symbols:
            continue
        if isinstance(node, sympy.Pow) and node.args[1] == sympy.S.Half:
            out.append(node.args[0])
        elif isinstance(node, sympy.Abs):
            out.append(node.args[0])
        elif isinstance(node, sympy.Add) and len(out) < 4:
            out.append(node)
    return out


class ProblemExpressions:
    """The problem's expressions with letters and their constants (module docstring): read on the first question,
    compared with a trace's expressions by :meth:`licensed`."""

    __slots__ = ("problem", "_pool", "_parses")

    def __init__(self, problem: str) -> None:
        self.problem = problem
        self._pool: list[tuple[frozenset[str], object, frozenset[Fraction], frozenset[Fraction]]] | None = None
        self._parses = 0

    def pool(self) -> list[tuple[frozenset[str], object, frozenset[Fraction], frozenset[Fraction]]]:
        """``(letters, expression, constants, completing terms)`` of each expression of the problem (at most
        :data:`MAX_POOL`; :func:`canonical_constants`, :func:`completing_terms`)."""
        if self._pool is not None:
            return self._pool
        self._pool = []
        if not _LETTER.search(self.problem) or not _MATH.search(self.problem):
            return self._pool
        import sympy  # local: loads only where a problem or a trace states an expression with letters

        from rewards.checks.latex_algebra import parse
        for sides in _pieces(self.problem):
            if self._parses >= MAX_PARSES // 2:
                break
            if not any(parseable(s) for s in sides):
                continue
            self._parses += len(sides)
            parsed = [parse(s) if parseable(s) else None for s in sides]
            exprs = [p for p in parsed if p is not None and not isinstance(p, sympy.Eq)]
            if len(sides) == 2 and len(exprs) == 2:
                exprs.append(exprs[0] - exprs[1])
            for expr in exprs:
                for sub in _sub_expressions(expr, sympy) if expr.free_symbols else ():
                    constants = canonical_constants(sub)
                    if constants - {1} and len(self._pool) < MAX_POOL:
                        self._pool.append((frozenset(s.name for s in sub.free_symbols), sub, constants,
                                           completing_terms(sub)))
        return self._pool

    def licensed(self, text: str, is_reached: Callable[[Fraction], bool], before: str = "",
                 source_reached: Callable[[Fraction], bool] | None = None) -> set[Fraction]:
        """The numbers ``text`` writes, not reached (``is_reached``), in an expression equal (up to sign) to one of
        the problem's — or to one the trace wrote in this step or ``before`` from numbers that are all reached
        (``source_reached``, default ``is_reached``) — whose unreached numbers are all constants of that expression,
        none written twice but the square's completion (:func:`completing_terms`)."""
        candidates = _candidates(text, is_reached)
        if not candidates:
            return set()
        wanted = {_letters(c[0]) for c in candidates}
        pool = [entry for entry in self.pool() if entry[0] in wanted]
        if not all(_fits(c, pool) for c in candidates):  # the trace's own expressions only where the problem's fail
            pool += self._written(before + "\n" + text, source_reached or is_reached, wanted)
        broken: set[int] = set()  # a chain whose side has a number of no form stops there (``= u^2 + 3u - 19 =``)
        fitting = []
        for c in candidates:
            if c[3] not in broken and _fits(c, pool):  # checked without a parse: letters and constants
                fitting.append(c)
            else:
                broken.add(c[3])
        candidates = fitting
        if not candidates:
            return set()
        from rewards.checks.latex_algebra import parse, parsed_equal
        out: set[Fraction] = set()
        for side, unreached, repeated, _chain in candidates:
            if self._parses >= MAX_PARSES:
                break
            self._parses += 1
            expr = parse(side)
            if expr is None or not hasattr(expr, "free_symbols") or not expr.free_symbols:
                continue
            letters = frozenset(s.name for s in expr.free_symbols)
            for names, known, constants, completing in pool:
                if names != letters or not unreached <= constants or not repeated <= completing:
                    continue  # a number of no form of the problem's expression, or added and taken away again
                    # (``+ 16 - 16``) other than the square's completion (``+ 9 - 9``): an identity, no derivation
                if any(parsed_equal(expr, sign * known).status == "verified" for sign in (1, -1)):
                    out |= unreached
        return out

    def _written(self, text: str, is_reached: Callable[[Fraction], bool], wanted: set[frozenset[str]]) -> list:
        """Pool entries (:meth:`pool`) of the expressions with letters ``text`` writes from reached numbers only (at
        most :data:`MAX_WRITTEN`, the last ones; each parse counts against :data:`MAX_PARSES`): what a rewrite of
        them writes is computed from reached numbers (``9 + 13 - x`` written ``22 - x``); only those in letters a
        candidate writes (``wanted``), each with a number other than 0 and 1."""
        sources = []
        for sides in _pieces(text):
            for side in sides:
                numbers = _operands(side)
                if set(numbers) - {0, 1} and len(side) <= MAX_SOURCE and parseable(side) and _letters(side) in wanted \
                        and all(is_reached(v) for v in numbers):
                    sources.append(side)
        import sympy  # local: loads only where a problem or a trace states an expression with letters

        from rewards.checks.latex_algebra import parse
        out = []
        for side in sources[-MAX_WRITTEN:]:
            if self._parses >= MAX_PARSES:
                break
            self._parses += 1
            expr = parse(side)
            if expr is None or isinstance(expr, sympy.Eq) or not getattr(expr, "free_symbols", None):
                continue
            constants = canonical_constants(expr)
            if constants - {1}:
                out.append((frozenset(s.name for s in expr.free_symbols), expr, constants, completing_terms(expr)))
        return out


def license_rewrites(builder, text: str) -> list[Fraction]:
    """The numbers step ``text`` writes in a checked rewrite of the problem's expression (:meth:`licensed`):
    reached from here on, and no longer claims from nowhere where an earlier step stated them."""
    rewrites = builder.licences.expressions
    if rewrites is None or not _LETTER.search(text) or not _MATH.search(text) or not builder.trace.steps:
        return []
    strict = builder.strict  # not is_reached: a small count added from nowhere ("+ 4") is reached only when derived
    index = len(builder.steps)
    before = builder.trace.steps[index - 1] if index > 0 else ""
    found = rewrites.licensed(text, lambda v: value_key(v) in strict or v in builder.converted, before,
                              builder.is_reached)
    if found:
        for flow in builder.steps:
            if flow.stray:
                flow.stray = [v for v in flow.stray if abs(v) not in found]
    return sorted(found)
