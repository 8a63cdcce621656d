r"""Algebra between equations: does one equation follow from the previous, and what does a solved value give?

MATH solutions derive their answers by algebra: they rewrite an equation into the next (``2x + 3 = 11`` ->
``2x = 8`` -> ``x = 4``; ``x^2 - 5x + 6 = 0`` -> ``(x-2)(x-3) = 0`` -> ``x = 2``) and substitute a solved value
into an expression (``x = 4``, so ``3x + 1 = 13``). The exact evaluator of :mod:`rewards.checks.arithmetic` checks
none of these (they have letters in them). This module decides them, model-free and bounded:

:func:`follows` ``(previous, current, bindings=None) -> bool | None``
    whether the equation ``current`` follows from ``previous`` by algebra (their relation is one of
    :data:`FOLLOWING` below); ``False`` when it provably does not; ``None`` when undecidable.
:func:`relation` ``(previous, current, bindings=None) -> Relation``
    the same with the kind of relation and a one-line reason.
:func:`substitutes` ``(expression, bindings) -> Fraction | None``
    the exact value of an expression once solved values are put in (``None`` when a letter stays free).
:func:`holds_under` ``(left, right, bindings) -> bool | None``
    whether an equation holds once solved values are put in (``a + b = 7`` with ``a = 2, b = 5``).
:func:`rational_roots` ``(left, right) -> (unknown, roots) | None``
    the rational roots of an equation in one unknown of degree 1 or 2 (re-solving an edited equation);
    :func:`real_roots` its real roots of any degree up to :data:`MAX_DEGREE`, approximated within 1e-6.
:func:`identical` ``(left, right, bindings=None) -> bool | None``
    whether two expressions are one rewritten (``(a+b)^2 = a^2 + 2ab + b^2``): a link of a chain.
:func:`equation_sides` ``(text) -> tuple[str, str] | None``
    ``"2x + 3 &= 11"`` -> ``("2x + 3", "11")`` (a chain ``A = B = C`` is read as ``A = C``).

The rule
    Write each equation as ``D = left - right``. Two equations are compared by their *zero sets* (the values of
    their unknowns that satisfy them), never by their text:

    * ``equivalent`` — ``D2 = c * D1`` for a constant ``c != 0`` at :data:`PROPORTIONAL_POINTS` random rational
      points (exactly; within a relative 1e-9 when a side is irrational, ``\sqrt{2}``, ``\pi``), or, line by line,
      the two zero sets agree (both inclusions below);
    * ``selects`` — every solution of ``current`` solves ``previous`` (``x^2 = 4`` -> ``x = 2``: a root chosen;
      ``\frac{3}{x} = 6`` -> ``x = \frac{1}{2}``);
    * ``implies`` — every solution of ``previous`` solves ``current`` (``\sqrt{x+1} = x - 1`` squared);
    * ``unrelated`` — neither (a slip, ``2x + 3 = 11`` -> ``2x = 9``, or two equations that are not one
      derivation: two lines of a system);
    * ``identity`` / ``undecided`` — an equation is true for every value (a rewrite of an expression, no
      condition), or the equations cannot be read or compared (radicals on both sides, an equation defined on too
      few random points such as ``\binom{n}{2}``, out of budget).

    Inclusions are decided *exactly* along lines: every unknown but one is fixed at a random rational
    (:data:`LINES` line per unknown), and ``D`` along the line is reconstructed from its exact values at 12
    rational points: a polynomial of degree <= :data:`MAX_DEGREE` (Newton divided differences), else a reduced
    fraction ``N/Q`` of polynomials with ``Q`` of degree <= 2 (a linear solve over the rationals); the points not
    used for the fit check it. With both reconstructed, ``Z(D2) ⊆ Z(D1)`` on the line iff the square-free part of
    ``N2`` divides ``N1`` and shares no root with ``Q1`` (every root, complex and irrational too, by exact
    polynomial division). When only one is reconstructed and its roots are rational (degree 1, or 2 with a square
    discriminant) the other is evaluated at those roots; ``x = <irrational>`` is checked by evaluating the other
    equation at the float's own rational within a relative 1e-9. A line where ``D2`` has no root says nothing
    (vacuous). In one unknown the single line is a proof; with several, a direction is False when any line
    refutes it and True when at least one confirms it and none refutes it. Two equations with no unknown in
    common (``x = 1`` then ``y = 2``) are ``unrelated`` at once.

``follows`` is True for :data:`FOLLOWING` = ``equivalent`` and ``selects``: every solution of the later equation
solves the earlier one, so a value it states (``x = 4``) solves the earlier equation, and along a chain of such
steps it solves the first (the inclusions compose). ``implies`` (squaring, multiplying by a factor that can vanish)
is a true consequence but is *not* ``follows``: its extra roots solve nothing earlier, and a chain
``x = 3`` -> ``(x - 3)(x - 18) = 0`` (implies) -> ``x = 18`` (selects) would "derive" 18; ``follows`` gives None
for it (not False: the step is no slip). Restating the previous equation verbatim is ``equivalent`` with
``Relation.restated`` set: it derives nothing new.

An equation that holds on a range of values rather than at finitely many (``\frac{|x|}{x} = 1``, piecewise
identities with ``|..|``) is ``undecided``: it holds at two distinct random points, or next to a root it has
(:data:`_NEAR`); otherwise any value in the range would be "selected" from it.

What is read (safely: nothing is ever ``eval``-ed or ``sympify``-ed)
    Each side is tokenized once by :func:`rewards.checks.arithmetic.tokens.tokenize` (math mode) and evaluated by
    the bounded exact evaluator :func:`rewards.checks.arithmetic.parser.eval_tokens` with every unknown replaced
    *as a token* by a rational literal ``(p/q)``. Unknowns: single letters (``x``, ``A``), juxtaposed lowercase
    letters as a product (``2ab``), Greek letters (``\theta``); never ``i`` or ``e`` (the imaginary unit, Euler's
    number). LaTeX: ``\frac \dfrac \sqrt \cdot \times \left( \right) ^{2} \pi \sin \log_2 \binom |..|``, ``$``,
    ``&=``, ``\boxed``. ``x(x+1)`` is a product, but ``f(x)``, ``g(``, ``h(``, ``p(``, ``q(`` are function notation
    and refused; so are subscripts (but a single letter's numeric one names an unknown of its own: ``s_1``,
    ``x_{12}``), primes, ``\pm``, inequalities, ``\text{..}`` labels, ``\dots``, sums, vectors
    (``\mathbf``), degrees and any command not listed.

Bounds (model output is untrusted and this runs on a reward's hot path, off the main thread: no ``signal``)
    sides of at most :data:`MAX_SIDE_CHARS` characters and :data:`MAX_TOKENS` tokens (and the evaluator's own
    bounds on digits, exponents, bits and depth); at most :data:`MAX_UNKNOWNS` unknowns; polynomial degree at most
    :data:`MAX_DEGREE`; at most :data:`MAX_EVALUATIONS` side evaluations and :data:`MAX_WORK` tokens evaluated per
    call, after which the answer is ``None``: counted, never timed, so a verdict does not depend on the machine's
    load. Results are cached, each with what it cost (:func:`algebra_work`).

>>> follows("2x + 3 = 11", "2x = 8"), follows("2x = 8", "x = 4"), follows("2x + 3 = 11", "2x = 9")
(True, True, False)
>>> relation("x^2 - 5x + 6 = 0", "(x-2)(x-3) = 0").kind, relation("x^2 = 4", "x = 2").kind
('equivalent', 'selects')
>>> follows(r"\frac{x+5}{3} = 2y", "x = 6y - 5"), follows("a + b = 7", "b = 5", {"a": Fraction(2)})
(True, True)
>>> substitutes("3x + 1", {"x": Fraction(4)}), substitutes(r"\frac{a}{b}", {"a": Fraction(1)}) is None
(Fraction(13, 1), True)
>>> follows("f(x) = 2x", "f(x) = 3x") is None  # function notation: not read
True
"""

from __future__ import annotations

import math
import random
import re
import threading
import zlib
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Mapping

from rewards.checks.arithmetic.errors import internal_error
from rewards.checks.polynomials import gcd, quotient, remainder, squarefree_part, trim
from rewards.checks.arithmetic.parser import eval_tokens
from rewards.checks.arithmetic.tokens import Token, tokenize
from rewards.checks.arithmetic.values import Value

__all__ = [
    "FOLLOWING", "LINES", "MAX_DEGREE", "MAX_EVALUATIONS", "MAX_SIDE_CHARS", "MAX_TOKENS", "MAX_UNKNOWNS",
    "MAX_WORK", "PROPORTIONAL_POINTS", "Relation", "algebra_work", "equation_sides", "follows", "holds_under", "identical",
    "combines", "rational_roots", "real_roots", "relation",
    "substitutes", "unknowns",
]

MAX_SIDE_CHARS = 300
MAX_TOKENS = 160
MAX_UNKNOWNS = 4
MAX_DEGREE = 6
MAX_EVALUATIONS = 400
MAX_WORK = 20_000
"""Per call, at most this many tokens evaluated (side tokens, summed over evaluations): with
:data:`MAX_EVALUATIONS`, the deterministic bound on one call's work. The heaviest call among MATH-500's gold and
ProcessBench's MATH solutions evaluates 6,914 tokens (0.15 s)."""
PROPORTIONAL_POINTS = 6
LINES = 1
FOLLOWING = frozenset({"equivalent", "selects"})
_REL_TOL = 1e-9
_MAX_BITS = 2048
_MAX_BINDING_DIGITS = 30

_GREEK = frozenset(
    "alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta kappa lambda mu nu xi rho sigma tau "
    "upsilon phi varphi chi psi omega".split())
_COMMANDS = frozenset(
    "frac sqrt binom pi abs lfloor rfloor lceil rceil sin cos tan cot sec csc log ln lg exp sinh cosh tanh".split())
_FUNCTION_LETTERS = frozenset("fghpqFGHPQ")
_RESERVED = frozenset({"i", "e"})
_STOP_RUNS = frozenset(
    "an as at be by do if in is it no of on or so to up we and are but can for has its let not now one our the "
    "two was who all any few may new old see use way cm mm km kg ft in yd lb oz hr min sec deg rad mod gcd lcm "
    "max min det dim ker arg".split())
_REFUSED_TEXT = re.compile(r"\\(?:mathbf|bm|boldsymbol|vec|overline|overrightarrow|hat|bar|tilde|dot|ddot|prime|"
                           r"cancel|phantom|underbrace|overbrace)\b|[<>≤≥'_;:,]|\\\\")
_PROBE_DROP = re.compile(r"\\(?:log|lg)\s*_|(?<=(?<![\\A-Za-z])[A-Za-z])_(?=\d(?!\d)|\{\d{1,2}\})|\\[,;:!]|\{,\}"
                         r"|(?<=\d),(?=\d{3}(?!\d))")
"""What the refusal test ignores: ``\\log_2``'s subscript, a letter's numeric one (``s_1``, ``x_{12}``), LaTeX
spacing ``\\, \\; \\: \\!``, ``1{,}000`` and ``1,000``."""
_DELIMS = re.compile(r"^\s*(?:\$\$|\$|\\\[|\\\()\s*|\s*(?:\$\$|\$|\\\]|\\\))\s*[.,;]?\s*$")
_FUNCTION_POWER = re.compile(r"(?<![\\A-Za-z])[fghpqFGHPQ]\s*\^\s*\{?\s*-")
"""``f^{-1}``, ``g^-1``: an inverse function, not a power of a product."""
_INEQUALITY = re.compile(r"\\(?:le|ge|leq|geq|neq|ne|lt|gt|approx|equiv|sim|pm|mp)\b|[<>≤≥≠≈]")


@dataclass(frozen=True)
class Relation:
    """How ``current`` stands to ``previous``: ``kind`` is one of ``equivalent``, ``selects``, ``implies``,
    ``unrelated``, ``identity``, ``undecided``; ``follows`` is True / False / None (see :func:`follows`);
    ``restated``: the current equation is the previous one, verbatim; ``detail``: why, in one line."""

    kind: str
    detail: str = ""
    restated: bool = False

    @property
    def follows(self) -> bool | None:
        if self.kind in FOLLOWING:
            return True
        if self.kind == "unrelated":
            return False
        return None


# ----------------------------------------------------------------------------------------------- reading sides
@dataclass(frozen=True)
class _Side:
    """A side tokenized once: ``tokens`` with every unknown as a ("?", name) placeholder; ``names`` its unknowns."""

    tokens: tuple
    names: frozenset
    piecewise: bool = False
    r"""An unknown sits under ``|..|``, a floor or ceiling, a root or a fractional power: the side may agree with
    one polynomial on part of the line and another elsewhere (``|x - 4|``, ``\sqrt{x^2}``), so it is never
    interpolated as a polynomial nor called proportional on a sample."""


_TIMES = Token("o", "*", 0, 0, False)


@lru_cache(maxsize=8192)
def _read(side: str) -> _Side | None:
    """Tokenize one side (math mode) with its unknowns as placeholders; None when it is not safe algebra."""
    if not isinstance(side, str) or len(side) > MAX_SIDE_CHARS:
        return None
    text = side.replace("&", " ").strip()
    text = _DELIMS.sub("", text)
    if not text or "=" in text or _INEQUALITY.search(text):
        return None
    text = text.replace("\n", " ")
    if _REFUSED_TEXT.search(_PROBE_DROP.sub(" ", text)) or _FUNCTION_POWER.search(text):
        return None
    raw: list[Token] = []
    tokenize(text, 0, len(text), True, raw, True)
    if not raw or len(raw) > MAX_TOKENS:
        return None
    out: list = []
    names: set[str] = set()
    skip = 0
    for k, tok in enumerate(raw):
        if skip:
            skip -= 1
            continue
        kind, val = tok[0], tok[1]
        nxt = raw[k + 1] if k + 1 < len(raw) else None
        if kind in ("v", "x"):
            letters = text[tok[2]:tok[3]]
            if " " in letters or not letters.isalpha():
                return None
            index = _subscript(raw, k) if len(letters) == 1 and letters not in _RESERVED else None
            if index is not None:  # s_1, x_{12}: one unknown, named "s_1", "x_12"
                name, skip = f"{letters}_{index[0]}", index[1]
                if out and out[-1][0] in ("?", "n", ")", "}") and not (len(out) > 1 and out[-2][0] == "_"):
                    out.append(_TIMES)  # r_1r_2: a product
                out.append(("?", name))
                names.add(name)
                continue
            if len(letters) > 1:
                if len(letters) > 3 or not letters.islower() or letters in _STOP_RUNS:
                    return None
            if nxt is not None and nxt[0] == "(" and nxt[1] == "(" and letters[-1] in _FUNCTION_LETTERS:
                return None  # f(x), g(2), p(1): function notation (x(x+1) is a product)
            for letter in letters:
                if letter in _RESERVED:
                    return None
                if out and out[-1][0] in ("?", "n", ")", "}") and not (len(out) > 1 and out[-2][0] == "_"):
                    out.append(_TIMES)  # 2ab, x y: juxtaposition is a product (not \log_2 x)
                out.append(("?", letter))
                names.add(letter)
            continue
        if kind == "c":
            if val in _GREEK:
                if out and out[-1][0] in ("?", "n", ")", "}"):
                    out.append(_TIMES)
                out.append(("?", val))
                names.add(val)
                continue
            if val not in _COMMANDS:
                return None
            if val == "frac" and out and out[-1][0] == "n":
                out.append(_TIMES)  # 2\frac{x}{3} is 2 * x/3 in algebra, not a mixed number
        elif kind == "_":
            if not (out and out[-1][0] == "c" and out[-1][1] in ("log", "lg")):
                return None
        elif kind in ("|", "=", "w", "t", "d", "%", "#"):
            return None
        out.append(tok)
    if len(names) > MAX_UNKNOWNS:
        return None
    return _Side(tuple(out), frozenset(names), _piecewise(out))


def _subscript(raw: list, k: int) -> tuple[str, int] | None:
    """``(digits, tokens after the letter)`` when the letter at ``raw[k]`` carries a numeric subscript (``_1``,
    ``_{12}``); None otherwise (``a_n``, ``a_{n+1}``: an index that is itself an unknown is not read; ``x_12``,
    which LaTeX sets as ``x_1 2``, is not read either)."""
    rest = raw[k + 1:k + 5]
    if len(rest) < 2 or rest[0][0] != "_":
        return None
    if rest[1][0] == "n" and str(rest[1][1]).isdigit() and len(str(rest[1][1])) == 1:  # x_12 is x_1 times 2
        return str(rest[1][1]), 2
    if len(rest) >= 4 and rest[1][0] == "{" and rest[2][0] == "n" and str(rest[2][1]).isdigit() \
            and len(str(rest[2][1])) <= 2 and rest[3][0] == "}":
        return str(rest[2][1]), 4
    return None


_OPENERS = {"abs": "abs", "lfloor": "rfloor", "lceil": "rceil"}


def _piecewise(toks: list) -> bool:
    r"""Whether an unknown sits under ``|..|``, ``\lfloor..\rfloor``, ``\lceil..\rceil``, ``\sqrt`` or a
    fractional power (scanning each one's argument)."""
    n = len(toks)
    for k, tok in enumerate(toks):
        kind, val = tok[0], tok[1]
        if kind == "c" and val in _OPENERS:
            j = k + 1
            while j < n and not (toks[j][0] == "c" and toks[j][1] == _OPENERS[val]):
                if toks[j][0] == "?":
                    return True
                j += 1
        elif (kind == "c" and val == "sqrt") or (kind == "o" and val == "^"):
            j, depth = k + 1, 0
            fractional = kind == "c"
            while j < n:
                t = toks[j]
                if t[0] in ("{", "("):
                    depth += 1
                elif t[0] in ("}", ")"):
                    depth -= 1
                elif t[0] == "?" and kind == "c":
                    return True
                elif (t[0] == "o" and t[1] == "/") or (t[0] == "c" and t[1] == "frac"):
                    fractional = True
                if depth <= 0 and (t[0] not in ("{", "(") or depth < 0):
                    break
                j += 1
            if kind == "o" and fractional and any(t[0] == "?" for t in toks):
                return True
    return False


@lru_cache(maxsize=4096)
def _literal(q: Fraction) -> tuple:
    """The tokens of ``(q)``: ``(n)``, ``(-n)``, ``(n/d)`` or ``(-n/d)`` (cached: a point's values are put into every
    side evaluated there; the tokens are immutable)."""
    body = [Token("n", str(abs(q.numerator)), 0, 0, False)]
    if q.denominator != 1:
        body += [Token("o", "/", 0, 0, False), Token("n", str(q.denominator), 0, 0, False)]
    if q < 0:
        body.insert(0, Token("o", "-", 0, 0, False))
    return (Token("(", "(", 0, 0, False), *body, Token(")", ")", 0, 0, False))


_WORK = threading.local()  # per thread: ``total`` work charged, ``levels`` the budgets of the calls in progress


def algebra_work() -> int:
    """The work the algebra checks have charged on this thread so far: tokens evaluated (:data:`MAX_WORK`), each
    cached call charging what it cost when it ran, so the count depends only on the calls made, never on the cache,
    the machine or its load. Per-trace budgets (:mod:`rewards.scoring.dataflow`) compare two readings.

    >>> before = algebra_work(); _ = relation("2x + 3 = 11", "x = 4"); cost = algebra_work() - before
    >>> before = algebra_work(); _ = relation("2x + 3 = 11", "x = 4"); cost == algebra_work() - before > 0
    True
    """
    return getattr(_WORK, "total", 0)


class _Budget:
    """One call's budget: at most :data:`MAX_EVALUATIONS` side evaluations and :data:`MAX_WORK` tokens evaluated.
    Counted, not timed: a verdict must not depend on the machine's load (it would differ between runs and between
    the ranks of a distributed job)."""

    __slots__ = ("evaluations", "work")

    def __init__(self) -> None:
        self.evaluations = MAX_EVALUATIONS
        self.work = MAX_WORK
        levels = getattr(_WORK, "levels", None)
        if levels:
            levels[-1].append(self)

    def spend(self, tokens: int = 1) -> bool:
        self.evaluations -= 1
        self.work -= tokens
        return self.evaluations >= 0 and self.work >= 0

    @property
    def cost(self) -> int:
        return MAX_WORK - self.work


_CACHED_OUTCOMES = (ArithmeticError, ValueError)  # with _OutOfBudget and _Range (defined below)


def _costed(maxsize: int):
    """``lru_cache`` that also remembers what a call cost (the work of the budgets it made, and of the costed calls
    it made) and charges it to :func:`algebra_work` on every call, a cache hit included; a budget or range
    exception is an outcome, cached and raised again."""
    def decorate(fn):
        @lru_cache(maxsize=maxsize)
        def run(*args):
            before = algebra_work()
            levels = getattr(_WORK, "levels", None)
            if levels is None:
                levels = _WORK.levels = []
            levels.append([])
            try:
                try:
                    outcome = (False, fn(*args))
                except (_OutOfBudget, _Range, *_CACHED_OUTCOMES) as exc:
                    exc.__context__ = None
                    outcome = (True, exc.with_traceback(None))  # no frames kept alive by the cache
            finally:
                own = sum(b.cost for b in levels.pop())
                nested = algebra_work() - before
                _WORK.total = before  # the wrapper charges the whole cost, hit or miss
            return outcome, own + nested

        def wrapper(*args):
            (raised, value), cost = run(*args)
            _WORK.total = algebra_work() + cost
            if raised:
                raise value.with_traceback(None)
            return value

        wrapper.cache_clear, wrapper.cache_info, wrapper.__wrapped__ = run.cache_clear, run.cache_info, fn
        wrapper.__name__, wrapper.__doc__ = fn.__name__, fn.__doc__
        return wrapper
    return decorate


class _OutOfBudget(Exception):
    pass


class _Range(Exception):
    """An equation holds at two distinct random points: it holds on a range (``\frac{|x|}{x} = 1``), so it is
    no condition with finitely many solutions and a value "solving" it derives nothing."""


def _value(side: _Side, point: Mapping[str, Fraction], budget: _Budget | None) -> Value | None:
    if budget is not None and not budget.spend(len(side.tokens)):
        raise _OutOfBudget
    if not side.names:  # no unknown left: the same value at every point, worked out once (charged every time)
        return _fixed_value(side.tokens)
    toks: list = []
    for tok in side.tokens:
        if tok[0] == "?":
            q = point.get(tok[1])
            if q is None:
                return None
            toks.extend(_literal(q))
        else:
            toks.append(tok)
    return _evaluated(toks)


@lru_cache(maxsize=1024)
def _fixed_value(tokens: tuple) -> Value | None:
    """:func:`_value` of a side with no unknown (its tokens): a constant side (``2x + 3 = 11``) is evaluated at
    every point drawn, with one result."""
    return _evaluated(list(tokens))


def _evaluated(toks: list) -> Value | None:
    """The bounded value of a side's tokens with every unknown put in (None when there is none or it is too big)."""
    if len(toks) > 4 * MAX_TOKENS:
        return None
    v = eval_tokens(toks)
    if not isinstance(v, Value):
        return None
    if v.is_exact and v.exact is not None:
        q = v.exact
        if q.numerator.bit_length() > _MAX_BITS or q.denominator.bit_length() > _MAX_BITS:
            return None
    elif not math.isfinite(v.approx):
        return None
    return v


def _difference(eq, point, budget) -> Value | None:
    left, right = eq
    a, b = _value(left, point, budget), _value(right, point, budget)
    if a is None or b is None:
        return None
    if a.is_exact and b.is_exact:
        d = a.exact - b.exact
        return Value(d, float(d), True)
    scale = max(1.0, abs(a.approx), abs(b.approx))
    d = a.approx - b.approx
    return Value(None, 0.0 if abs(d) <= _REL_TOL * scale else d, False)


def _is_zero(v: Value) -> bool:
    return v.exact == 0 if v.is_exact else v.approx == 0.0


# ------------------------------------------------------------------------------------------- polynomial tools


def _interpolate(xs: list, ys: list) -> list | None:
    """Monomial coefficients (lowest first) of the polynomial through the points, when one of degree
    <= MAX_DEGREE fits all of them (the last point is a check); else None."""
    n = len(xs)
    if len(set(xs)) == n:  # the same table in integer pairs (reduced by gcd at each step, as Fraction does, without
        # its Python-level operators), made Fractions at the end: equal values
        xn, xd = [x.numerator for x in xs], [x.denominator for x in xs]
        num, den = [y.numerator for y in ys], [y.denominator for y in ys]
        for j in range(1, n):
            for i in range(n - 1, j - 1, -1):
                p = (num[i] * den[i - 1] - num[i - 1] * den[i]) * (xd[i] * xd[i - j])
                q = den[i] * den[i - 1] * (xn[i] * xd[i - j] - xn[i - j] * xd[i])
                g = math.gcd(p, q)
                num[i], den[i] = p // g, q // g
        dd = [Fraction(p, q) for p, q in zip(num, den)]
    else:  # a repeated point divides by zero, as it always did
        dd = list(ys)
        for j in range(1, n):
            for i in range(n - 1, j - 1, -1):
                dd[i] = (dd[i] - dd[i - 1]) / (xs[i] - xs[i - j])
    if any(c != 0 for c in dd[MAX_DEGREE + 1:]):
        return None
    deg = max((k for k, c in enumerate(dd) if c != 0), default=-1)
    coef = [Fraction(0)] * (deg + 1)
    for i in range(deg, -1, -1):  # Horner on the Newton form
        shifted = [Fraction(0)] + coef[:-1]
        coef = [shifted[k] - xs[i] * coef[k] for k in range(deg + 1)]
        coef[0] += dd[i]
    return trim(coef)


def _rational_roots(p: list) -> list | None:
    """All roots of p when they are all rational and p has degree 1 or 2; None otherwise."""
    p = trim(p)
    if len(p) == 2:
        return [-p[0] / p[1]]
    if len(p) == 3:
        disc = p[1] * p[1] - 4 * p[2] * p[0]
        if disc < 0:
            return None
        n, d = math.isqrt(disc.numerator), math.isqrt(disc.denominator)
        if n * n != disc.numerator or d * d != disc.denominator:
            return None
        s = Fraction(n, d)
        return sorted({(-p[1] - s) / (2 * p[2]), (-p[1] + s) / (2 * p[2])})
    return None


# ------------------------------------------------------------------------------------------------ the checks
def _rng(*texts: str) -> random.Random:
    return random.Random(zlib.crc32("\x00".join(texts).encode("utf-8", "replace")))


_NEAR = (Fraction(1, 1009), Fraction(-1, 1013))
r"""Offsets at which an equation that is no polynomial must *not* hold next to a root it has: if it does, it holds
on a range (``u + |3 - u^2| = 3 + u - u^2`` for every ``|u| < \sqrt{3}``) and a root chosen from it derives
nothing."""


def _draw(rng: random.Random) -> Fraction:
    """A random rational ``±p/q``, ``1 <= p <= 200``, ``1 <= q <= 29``: wide enough that a random point is almost
    never a root of an honest equation (see the range test of :func:`_proportional`)."""
    return Fraction(rng.choice((-1, 1)) * rng.randint(1, 200), rng.randint(1, 29))


def _proportional(e1, e2, names, rng, budget) -> bool | None:
    """``D2 = c * D1`` with one constant ``c != 0`` at PROPORTIONAL_POINTS random points (True), a point where
    that fails (False), too few points where both are defined among 3 * PROPORTIONAL_POINTS draws (None: an
    equation defined on the integers only, or on a thin domain, is not decided at all). Raises :class:`_Range`
    when an equation holds at two distinct random points."""
    ratio = None
    good = 0
    verdict = True
    zeros: list[set] = [set(), set()]  # distinct random points where an equation holds
    for _ in range(3 * PROPORTIONAL_POINTS):
        point = {n: _draw(rng) for n in sorted(names)}
        d1, d2 = _difference(e1, point, budget), _difference(e2, point, budget)
        if d1 is None or d2 is None:
            continue
        z1, z2 = _is_zero(d1), _is_zero(d2)
        if z1 or z2:
            key = tuple(sorted(point.items()))
            for k, z in enumerate((z1, z2)):
                if z:
                    zeros[k].add(key)
            if len(zeros[0]) >= 2 or len(zeros[1]) >= 2:
                raise _Range
            if z1 != z2:
                verdict = False
            continue
        if d1.is_exact and d2.is_exact:
            r = d2.exact / d1.exact
            same = ratio is None or (ratio.is_exact and r == ratio.exact) or (
                not ratio.is_exact and abs(float(r) - ratio.approx) <= 1e-7 * max(1.0, abs(ratio.approx)))
            r = Value(r, float(r), True)
        else:
            rf = d2.approx / d1.approx if d1.approx else math.inf
            if not math.isfinite(rf):
                return None
            same = ratio is None or abs(rf - ratio.approx) <= 1e-7 * max(1.0, abs(rf), abs(ratio.approx))
            r = Value(None, rf, False)
        if not same:
            verdict = False
        ratio = ratio or r
        good += 1
        if good >= PROPORTIONAL_POINTS:
            return verdict
    return None  # defined at too few random points (``\binom{n}{2}``, ``n!``: integers only): not decided


_LINE_POINTS = 12
_MAX_DENOMINATOR_DEGREE = 2
_MAX_RATIONAL_DEGREE = 6


def _along(eq, var, fixed, xs, budget):
    """``D`` along the line through ``fixed`` in ``var`` as a reduced fraction of polynomials ``(N, Q)``
    (coefficient lists, lowest first; ``Q == [1]`` for a polynomial, ``N == []`` for zero), reconstructed from its
    exact values at ``xs`` and checked at the points left over; None when ``D`` is not such a fraction of low
    degree (a radical, ``|x|``, an exponential) or not exact."""
    if eq[0].piecewise or eq[1].piecewise:
        return None
    ys = []
    for x in xs:
        point = dict(fixed)
        point[var] = x
        d = _difference(eq, point, budget)
        if d is None or not d.is_exact:
            return None
        ys.append(d.exact)
    poly = _interpolate(xs, ys)
    if poly is not None:
        return poly, [Fraction(1)]
    return _rational_fit(xs, ys)


def _row_reduce(m: list[list], k: int) -> list[int]:
    """Gauss-Jordan elimination over the rationals of the augmented matrix ``m`` (rows of ``k`` coefficients and a
    right-hand side), in place; the pivot columns, in row order."""
    pivots, r = [], 0
    for c in range(k):
        p = next((i for i in range(r, len(m)) if m[i][c] != 0), None)
        if p is None:
            continue
        m[r], m[p] = m[p], m[r]
        inv = 1 / m[r][c]
        m[r] = [v * inv for v in m[r]]
        for i in range(len(m)):
            if i != r and m[i][c] != 0:
                f = m[i][c]
                m[i] = [a - f * b for a, b in zip(m[i], m[r])]
        pivots.append(c)
        r += 1
    return pivots


def _solve(rows: list, rhs: list) -> list | None:
    """The solution of the square system ``rows · x = rhs`` over the rationals; None when singular."""
    n = len(rows)
    m = [list(r) + [b] for r, b in zip(rows, rhs)]
    if len(_row_reduce(m, n)) < n:
        return None
    return [m[r][n] for r in range(n)]


def _horner(p: list, x: Fraction) -> Fraction:
    acc = Fraction(0)
    for c in reversed(p):
        acc = acc * x + c
    return acc


def _rational_fit(xs: list, ys: list):
    """``(N, Q)`` with ``N(x) = y * Q(x)`` at every point, ``Q`` monic of degree 1..2, lowest total degree first;
    reduced by ``gcd(N, Q)``. Unknowns are fitted on the first points, the rest (at least two) check."""
    for total in range(1, _MAX_RATIONAL_DEGREE + 1):
        for dq in range(1, min(total, _MAX_DENOMINATOR_DEGREE) + 1):
            dn = total - dq
            unknowns_ = dn + 1 + dq
            if unknowns_ + 2 > len(xs):
                continue
            rows, rhs = [], []
            for x, y in zip(xs[:unknowns_], ys[:unknowns_]):
                rows.append([x ** k for k in range(dn + 1)] + [-y * x ** k for k in range(dq)])
                rhs.append(y * x ** dq)
            sol = _solve(rows, rhs)
            if sol is None:
                continue
            num, den = trim(sol[:dn + 1]), sol[dn + 1:] + [Fraction(1)]
            if all(_horner(den, x) != 0 and _horner(num, x) == y * _horner(den, x) for x, y in zip(xs, ys)):
                if not num:
                    return [], [Fraction(1)]
                g = gcd(num, den)
                if len(g) > 1:
                    num, den = quotient(num, g), quotient(den, g)
                    den = [c / den[-1] for c in trim(den)]
                    num = [c * 1 for c in trim(num)]
                return trim(num), den
    return None


def _zero_at(eq, var, fixed, x, budget) -> bool | None:
    point = dict(fixed)
    point[var] = x
    d = _difference(eq, point, budget)
    return None if d is None else _is_zero(d)


def _inclusion(fa, fb, ea, eb, var, fixed, budget) -> bool | None | str:
    """On one line: is Z(a) inside Z(b)? True/False, None when undecided, "vacuous" when ``a`` has no zero on the
    line. ``fa``/``fb``: reduced ``(N, Q)`` of ``a``/``b`` along the line, or None."""
    if fa is None:
        return None
    na, _qa = fa
    if not na:  # a vanishes on the whole line
        return None if fb is None else not fb[0]
    if len(na) == 1:
        return "vacuous"
    if fb is not None:
        nb, qb = fb
        if not nb:
            return True
        # every zero of a (a root of na) is a zero of nb, and no pole of b
        return not remainder(nb, squarefree_part(na)) and len(gcd(na, qb)) == 1
    roots = _rational_roots(na)
    if roots is None:
        return None
    verdicts = [_zero_at(eb, var, fixed, r, budget) for r in roots]
    if any(v is False for v in verdicts):
        return False
    for r in roots:  # b is no rational function (|x|, a radical): it must not hold on a range around the root
        if any(_zero_at(eb, var, fixed, r + d, budget) for d in _NEAR):
            raise _Range
    return True if all(v is True for v in verdicts) else None


def _lines(e1, e2, names, rng, budget) -> tuple[bool | None, bool | None]:
    """(Z2 ⊆ Z1, Z1 ⊆ Z2) decided along axis-parallel lines through random points.

    In one unknown there is one line and its verdict is a proof. With several, a direction is False when any
    line refutes it, True when at least one line confirms it and none refutes it (a line along which an
    equation is not a polynomial is skipped), else None."""
    found = {"sel": set(), "imp": set()}
    lines = 1 if len(names) == 1 else LINES
    for var in sorted(names):
        for _ in range(lines):
            fixed = {n: _draw(rng) for n in sorted(names) if n != var}
            xs: list = []
            while len(xs) < _LINE_POINTS:
                x = _draw(rng)
                if x not in xs:
                    xs.append(x)
            p1, p2 = _along(e1, var, fixed, xs, budget), _along(e2, var, fixed, xs, budget)
            found["sel"].add(_inclusion(p2, p1, e2, e1, var, fixed, budget))
            found["imp"].add(_inclusion(p1, p2, e1, e2, var, fixed, budget))

    def verdict(seen: set) -> bool | None:
        if False in seen:
            return False
        if True in seen and (len(names) > 1 or None not in seen):
            return True
        return None

    return verdict(found["sel"]), verdict(found["imp"])


def _stated_value(eq, names) -> tuple[str, Value] | None:
    """``x = <constant>`` (either way round) in the only unknown: (name, the constant's value)."""
    if len(names) != 1:
        return None
    for a, b in (eq, eq[::-1]):
        if len(a.tokens) == 1 and a.tokens[0][0] == "?" and not b.names:
            v = _value(b, {}, None)
            return None if v is None else (a.tokens[0][1], v)
    return None


def _root_check(eq, var: str, value: Value, budget) -> bool | None:
    """Whether an irrational ``value`` solves ``eq``: ``eq`` evaluated exactly at the float's own rational, within
    a relative 1e-9 of the sides' size."""
    r = Fraction(value.approx)

    def holds(x: Fraction) -> bool | None:
        a, b = _value(eq[0], {var: x}, budget), _value(eq[1], {var: x}, budget)
        if a is None or b is None:
            return None
        return abs(a.approx - b.approx) <= _REL_TOL * max(1.0, abs(a.approx), abs(b.approx))

    ok = holds(r)
    if ok and any(holds(r + d) for d in _NEAR):
        raise _Range
    return ok


def _bound(side: _Side, bindings: tuple) -> _Side:
    if not bindings:
        return side
    values = dict(bindings)
    if not side.names & values.keys():
        return side
    toks: list = []
    for tok in side.tokens:
        if tok[0] == "?" and tok[1] in values:
            toks.extend(_literal(values[tok[1]]))
        else:
            toks.append(tok)
    return _Side(tuple(toks), side.names - values.keys(), _piecewise(toks))


def _equation(text_or_sides, bindings: tuple):
    sides = equation_sides(text_or_sides) if isinstance(text_or_sides, str) else tuple(text_or_sides)
    if sides is None or len(sides) != 2:
        return None
    read = [_read(s) for s in sides]
    if any(r is None for r in read):
        return None
    return tuple(_bound(r, bindings) for r in read)


def _key(bindings: Mapping[str, Fraction] | None) -> tuple | None:
    if not bindings:
        return ()
    out = []
    for name, value in bindings.items():
        try:
            q = Fraction(value)
        except (TypeError, ValueError, ZeroDivisionError):
            return None
        if len(str(abs(q.numerator))) > _MAX_BINDING_DIGITS or len(str(q.denominator)) > _MAX_BINDING_DIGITS:
            return None
        out.append((str(name), q))
    return tuple(sorted(out))


def relation(previous, current, bindings: Mapping[str, Fraction] | None = None) -> Relation:
    """How the equation ``current`` stands to ``previous`` (see the module docstring for the kinds).

    ``previous``/``current``: an equation's text (``"2x + 3 = 11"``, LaTeX allowed) or its two sides;
    ``bindings``: values already solved (``{"a": Fraction(2)}``), put in before comparing. Never raises.

    >>> relation("2x + 3 = 11", "x = 4").kind, relation("x = 3", "x^2 = 9").kind, relation("y = 2", "y = 3").kind
    ('equivalent', 'implies', 'unrelated')
    """
    key = _key(bindings)
    if key is None:
        return Relation("undecided", "bindings must map a letter to a rational number")
    try:
        prev = previous if isinstance(previous, str) else tuple(previous)
        cur = current if isinstance(current, str) else tuple(current)
        hash((prev, cur))
    except TypeError:
        return Relation("undecided", "an equation must be a string or a pair of sides")
    try:
        return _relation(prev, cur, key)
    except Exception as exc:  # noqa: BLE001 - never raise on model output (unless RAFS_STRICT)
        internal_error("algebra.relation", (previous, current), exc)
        return Relation("undecided", "internal error")


@_costed(16384)
def _relation(previous, current, bindings: tuple) -> Relation:
    try:
        e1, e2 = _equation(previous, bindings), _equation(current, bindings)
        if e1 is None or e2 is None:
            return Relation("undecided", "an equation cannot be read as algebra")
        names = e1[0].names | e1[1].names | e2[0].names | e2[1].names
        if not names:
            return Relation("undecided", "no unknown left: arithmetic, not algebra")
        if len(names) > MAX_UNKNOWNS:
            return Relation("undecided", "too many unknowns")
        restated = e1 == e2 or e1 == (e2[1], e2[0])
        budget = _Budget()
        rng = _rng(str(previous), str(current), str(bindings))
        if _identity(e1, names, rng, budget) or _identity(e2, names, rng, budget):
            return Relation("identity", "an equation holds for every value: a rewrite, not a condition")
        names1, names2 = e1[0].names | e1[1].names, e2[0].names | e2[1].names
        if names1 and names2 and not names1 & names2:  # x = 1, then y = 2: two conditions on different unknowns
            return Relation("unrelated", "the two equations share no unknown")
        prop = _proportional(e1, e2, names, rng, budget)
        if prop is None:
            return Relation("undecided", "too few points where both equations can be evaluated")
        if prop and not any(side.piecewise for side in e1 + e2):
            return Relation("equivalent", "the second is the first times a non-zero constant", restated)
        stated = _stated_value(e2, names)
        if stated is not None and not stated[1].is_exact:  # x = \frac{-1 + \sqrt{5}}{2}: a root, irrational
            ok = _root_check(e1, stated[0], stated[1], budget)
            if ok is None:
                return Relation("undecided", "the first cannot be evaluated at the stated value")
            return Relation("selects", "the stated value solves the first") if ok else Relation(
                "unrelated", "the stated value does not solve the first")
        sel, imp = _lines(e1, e2, names, rng, budget)
        if sel and imp:
            return Relation("equivalent", "the two have the same solutions")
        if sel:
            return Relation("selects", "every solution of the second solves the first")
        if imp:
            return Relation("implies", "every solution of the first solves the second")
        if sel is False and imp is False:
            return Relation("unrelated", "each has a solution the other lacks")
        return Relation("undecided", "the solution sets could not be compared")
    except _OutOfBudget:
        return Relation("undecided", "out of budget")
    except _Range:
        return Relation("undecided", "an equation holds on a range of values, not at finitely many")
    except (ArithmeticError, ValueError, RecursionError, MemoryError):
        return Relation("undecided", "not evaluable")


def _identity(eq, names, rng, budget, *, tries: int = 2, short: bool | None = False) -> bool | None:
    """``left = right`` at every one of PROPORTIONAL_POINTS random points (where defined), drawing at most
    ``tries × PROPORTIONAL_POINTS`` points; ``short`` when too few points were defined."""
    seen = 0
    for _ in range(tries * PROPORTIONAL_POINTS):
        d = _difference(eq, {n: _draw(rng) for n in sorted(names)}, budget)
        if d is None:
            continue
        if not _is_zero(d):
            return False
        seen += 1
        if seen >= PROPORTIONAL_POINTS:
            return True
    return short


def follows(previous, current, bindings: Mapping[str, Fraction] | None = None) -> bool | None:
    """Whether the equation ``current`` follows from ``previous`` by algebra, in the sense a derivation needs:
    True when every solution of ``current`` solves ``previous`` (``equivalent``, or ``selects``: roots chosen);
    False when each has a solution the other lacks; None otherwise (``implies``: a consequence with extra roots;
    unreadable, an identity, a range, irrational and not proportional, out of budget).

    >>> follows(r"\\frac{3}{x} = 6", r"x = \\frac{1}{2}"), follows("x^2 - 5x + 6 = 0", "x = 4")
    (True, False)
    """
    return relation(previous, current, bindings).follows


MAX_COMBINED = 6
"""Most grounded equations :func:`combines` reads (the last ones given) to reach a new one."""


def _affine(eq, names: tuple[str, ...], rng, budget) -> tuple[Fraction, ...] | None:
    """``left - right`` of ``eq`` as an affine form in ``names``: (its coefficients..., its constant), read off
    exact values at a random point and its unit steps and checked at two more random points; None when it is not
    affine (or not exactly evaluable)."""
    base = {n: _draw(rng) for n in names}
    d0 = _difference(eq, base, budget)
    if d0 is None or not d0.is_exact:
        return None
    coefficients = []
    for n in names:
        d = _difference(eq, {**base, n: base[n] + 1}, budget)
        if d is None or not d.is_exact:
            return None
        coefficients.append(d.exact - d0.exact)
    constant = d0.exact - sum(c * base[n] for c, n in zip(coefficients, names))
    for _ in range(2):
        point = {n: _draw(rng) for n in names}
        d = _difference(eq, point, budget)
        if d is None or not d.is_exact or d.exact != constant + sum(c * point[n] for c, n in zip(coefficients, names)):
            return None
    return (*coefficients, constant)


def _weights(columns: list[tuple[Fraction, ...]], target: tuple[Fraction, ...]) -> list[Fraction] | None:
    """``w`` with ``sum(w_j * columns[j]) == target`` exactly (Gauss-Jordan over the rationals, :func:`_row_reduce`;
    any solution when several), or None when there is none."""
    k = len(columns)
    rows = [[*(col[i] for col in columns), target[i]] for i in range(len(target))]
    pivots = _row_reduce(rows, k)
    if any(all(v == 0 for v in row[:k]) and row[k] != 0 for row in rows):
        return None
    weights = [Fraction(0)] * k
    for i, c in enumerate(pivots):
        weights[c] = rows[i][k]
    return weights


def combines(sources, current) -> tuple[int, ...] | None:
    r"""Whether the linear equation ``current`` is a sum of multiples of two or more of the linear equations
    ``sources`` (the last :data:`MAX_COMBINED`, each its two sides) that do not contradict each other:
    ``3p + q = 124`` and ``5p + q = 182`` give ``2p = 58`` (the second minus the first), which no one of them gives
    alone. Returns the indices of the sources used (at least two), or None: not linear, no such sum, a single
    source's multiple (:func:`relation` reads those), an identity, sources used that contradict each other
    (``x + y = 5``, ``x + y = 6``: anything follows), or out of budget. Exact arithmetic at random points only
    (each equation read as ``sum(a_i * x_i) + c``); never raises.

    >>> combines([("3p + q", "124"), ("5p + q", "182")], ("2p", "58")), combines([("3p + q", "124")], ("p", "29"))
    ((0, 1), None)
    """
    try:
        sources = [tuple(s) for s in sources][-MAX_COMBINED:]
        current = tuple(current)
        hash((tuple(sources), current))
        if len(sources) < 2:
            return None
        return _combines(tuple(sources), current)
    except (ArithmeticError, ValueError, RecursionError, MemoryError, TypeError, _OutOfBudget):
        return None
    except Exception as exc:  # noqa: BLE001 - never raise on model output (unless RAFS_STRICT)
        internal_error("algebra.combines", (sources, current), exc)
        return None


@_costed(4096)
def _combines(sources: tuple, current: tuple) -> tuple[int, ...] | None:
    equations = [_equation(s, ()) for s in (*sources, current)]
    if any(e is None for e in equations):
        return None
    names = tuple(sorted(set().union(*(side.names for e in equations for side in e))))
    if not names or len(names) > MAX_UNKNOWNS or any(side.piecewise for e in equations for side in e):
        return None
    rng, budget = _rng(str(sources), str(current)), _Budget()
    forms = [_affine(e, names, rng, budget) for e in equations]
    if any(f is None for f in forms) or all(v == 0 for v in forms[-1][:-1]):
        return None  # not linear, or no unknown left in the new equation (an identity or a contradiction)
    weights = _weights(forms[:-1], forms[-1])
    if weights is None:
        return None
    used = tuple(i for i, w in enumerate(weights) if w != 0)
    if len(used) < 2 or _weights([forms[i] for i in used], (*(Fraction(0) for _ in names), Fraction(1))) is not None:
        return None  # one source's multiple, or sources that contradict each other (from which anything follows)
    return used


def substitutes(expression: str, bindings: Mapping[str, Fraction]) -> Fraction | None:
    """The exact value of ``expression`` with the solved values ``bindings`` put in; None when a letter stays
    free, the expression cannot be read as algebra, or its value is irrational.

    >>> substitutes(r"\\frac{x^2 + 1}{2}", {"x": Fraction(3)}), substitutes("x + y", {"x": Fraction(1)})
    (Fraction(5, 1), None)
    """
    key = _key(bindings)
    if key is None or not isinstance(expression, str):
        return None
    try:
        return _substitutes(expression, key)
    except (ArithmeticError, ValueError, RecursionError, MemoryError):
        return None
    except Exception as exc:  # noqa: BLE001 - never raise on model output (unless RAFS_STRICT)
        internal_error("algebra.substitutes", expression, exc)
        return None


@lru_cache(maxsize=16384)
def _substitutes(expression: str, bindings: tuple) -> Fraction | None:
    side = _read(expression)
    if side is None:
        return None
    side = _bound(side, bindings)
    if side.names:
        return None
    v = _value(side, {}, None)
    return v.exact if v is not None and v.is_exact else None


def holds_under(left: str, right: str, bindings: Mapping[str, Fraction]) -> bool | None:
    """Whether ``left = right`` holds once ``bindings`` are put in (exactly; within a relative 1e-9 when a side is
    irrational); None when a letter stays free or a side cannot be read.

    >>> holds_under("a + b", "7", {"a": Fraction(2), "b": Fraction(5)}), holds_under("ab", "12", {"a": Fraction(2), "b": Fraction(5)})
    (True, False)
    """
    key = _key(bindings)
    if key is None or not isinstance(left, str) or not isinstance(right, str):
        return None
    try:
        eq = _equation((left, right), key)
        if eq is None or eq[0].names or eq[1].names:
            return None
        d = _difference(eq, {}, None)
        return None if d is None else _is_zero(d)
    except (ArithmeticError, ValueError, RecursionError, MemoryError):
        return None
    except Exception as exc:  # noqa: BLE001 - never raise on model output (unless RAFS_STRICT)
        internal_error("algebra.holds_under", (left, right), exc)
        return None


def identical(left: str, right: str, bindings: Mapping[str, Fraction] | None = None) -> bool | None:
    """Whether ``left = right`` holds for every value of its unknowns (a rewrite of one expression: expanding,
    factoring, collecting), at :data:`PROPORTIONAL_POINTS` random rational points; False at the first point
    where the sides differ; None when unreadable, without an unknown, or with too few evaluable points.

    >>> identical("(a+b)^2", "a^2 + 2ab + b^2"), identical("(a+b)^2", "a^2 + b^2"), identical("2+2", "4")
    (True, False, None)
    """
    key = _key(bindings)
    if key is None or not isinstance(left, str) or not isinstance(right, str):
        return None
    return _never_raising("algebra.identical", _identical, left, right, key)


def _never_raising(name: str, fn, *args):
    """``fn(*args)``, or None when it runs out of budget or fails on model output (logged as an internal error,
    raised only under ``RAFS_STRICT``)."""
    try:
        return fn(*args)
    except (_OutOfBudget, _Range, ArithmeticError, ValueError, RecursionError, MemoryError):
        return None
    except Exception as exc:  # noqa: BLE001 - never raise on model output (unless RAFS_STRICT)
        internal_error(name, args, exc)
        return None


@_costed(16384)
def _identical(left: str, right: str, bindings: tuple) -> bool | None:
    eq = _equation((left, right), bindings)
    if eq is None:
        return None
    names = eq[0].names | eq[1].names
    if not names:
        return None
    rng, budget = _rng(left, right, str(bindings)), _Budget()
    return _identity(eq, names, rng, budget, tries=3, short=None)


def rational_roots(left: str, right: str) -> tuple[str, tuple[Fraction, ...]] | None:
    """``(unknown, roots)`` of an equation in one unknown whose difference is a polynomial (or a fraction of
    polynomials) with a numerator of degree 1 or 2 and rational roots; None otherwise (several unknowns, higher
    degree, irrational roots, unreadable, out of budget). Roots of the denominator are left out. Used to carry a
    counterfactual edit through an algebraic derivation: the edited equation's root next to the old one.

    >>> rational_roots("2x + 3", "11"), rational_roots("x^2 - 5x", "-6"), rational_roots("x^2", "2")
    (('x', (Fraction(4, 1),)), ('x', (Fraction(2, 1), Fraction(3, 1))), None)
    """
    if not isinstance(left, str) or not isinstance(right, str):
        return None
    return _never_raising("algebra.rational_roots", _rational_roots_of, left, right)


@_costed(4096)
def _line_fit(left: str, right: str) -> tuple[str, list, list] | None:
    """``(unknown, N, Q)``: the difference of an equation in one unknown as a reduced fraction of polynomials."""
    eq = _equation((left, right), ())
    if eq is None or len(eq[0].names | eq[1].names) != 1:
        return None
    (var,) = eq[0].names | eq[1].names
    rng, budget = _rng(left, right), _Budget()
    xs: list = []
    while len(xs) < _LINE_POINTS:
        x = _draw(rng)
        if x not in xs:
            xs.append(x)
    fit = _along(eq, var, {}, xs, budget)
    return None if fit is None else (var, trim(fit[0]), fit[1])


def _rational_roots_of(left: str, right: str) -> tuple[str, tuple[Fraction, ...]] | None:
    fit = _line_fit(left, right)
    if fit is None:
        return None
    var, numerator, denominator = fit
    roots = _rational_roots(numerator) if len(numerator) in (2, 3) else None
    if roots is None:
        return None
    kept = tuple(r for r in roots if _horner(denominator, r) != 0)
    return (var, kept) if kept else None


def real_roots(left: str, right: str) -> tuple[str, tuple[Fraction, ...]] | None:
    """``(unknown, roots)`` like :func:`rational_roots`, for any degree up to :data:`MAX_DEGREE` and irrational roots
    too: the real roots of the numerator (numerically, to a relative 1e-9) as rationals within 1e-6
    (``Fraction.limit_denominator(10**6)``), roots of the denominator left out. None when there is none or the
    equation cannot be fitted.

    >>> [round(float(r), 6) for r in real_roots("x^2", "2")[1]], real_roots("x^3 - 6x^2 + 11x", "6")[1][-1]
    ([-1.414214, 1.414214], Fraction(3, 1))
    >>> real_roots("x^2", "-1") is None
    True
    """
    if not isinstance(left, str) or not isinstance(right, str):
        return None
    return _never_raising("algebra.real_roots", _real_roots_of, left, right)


def _real_roots_of(left: str, right: str) -> tuple[str, tuple[Fraction, ...]] | None:
    import numpy as np

    fit = _line_fit(left, right)
    if fit is None or len(fit[1]) < 2:
        return None
    var, numerator, denominator = fit
    found = np.roots([float(c) for c in reversed(numerator)])
    kept = []
    for root in found:
        if abs(root.imag) > 1e-9 * max(1.0, abs(root.real)):
            continue
        value = Fraction(float(root.real)).limit_denominator(10**6)
        if abs(float(_horner(denominator, value))) > 1e-9:
            kept.append(value)
    return (var, tuple(sorted(set(kept)))) if kept else None


def unknowns(side: str) -> frozenset[str] | None:
    """The unknowns of one side as this module reads them (None when it cannot be read as algebra).

    >>> sorted(unknowns(r"2ab + \\theta")), unknowns("f(x) + 1")
    (['a', 'b', 'theta'], None)
    """
    try:
        read = _read(side)
    except Exception as exc:  # noqa: BLE001 - never raise on model output (unless RAFS_STRICT)
        internal_error("algebra.unknowns", side, exc)
        return None
    return None if read is None else read.names


_TOP_EQUALS = re.compile(r"&?\s*=\s*&?")


def equation_sides(text: str) -> tuple[str, str] | None:
    """The two sides of one equation's text: ``"2x + 3 &= 11"`` -> ``("2x + 3", "11")``; a chain ``A = B = C``
    reads as ``A = C``; None without ``=`` or with ``==``, ``<=``, ``>=``, ``\\ne``.

    >>> equation_sides("$2x + 3 &= 11$"), equation_sides("10^x = 9990 + 10 = 10000"), equation_sides("x < 3")
    (('2x + 3', '11'), ('10^x', '10000'), None)
    """
    if not isinstance(text, str) or len(text) > 2 * MAX_SIDE_CHARS + 20:
        return None
    body = _DELIMS.sub("", text.strip())
    if "==" in body or re.search(r"[<>!]=|=[<>]", body):
        return None
    parts = [p.strip() for p in _TOP_EQUALS.split(body)]
    if len(parts) < 2 or any(not p for p in parts):
        return None
    return parts[0], parts[-1]
