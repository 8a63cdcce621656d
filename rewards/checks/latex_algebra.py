r"""Step-to-step LaTeX algebra, checked on the field's parser: math-verify's ``latex2sympy2_extended``.

Competition solutions are written in LaTeX: ``\[ (x + 10) - (10 - x) \]``, then ``\[ x + 10 - 10 + x \]``, then
``\[ 2x \]``; ``\frac{0.5L}{L} \cdot 100 = 50``; ``3 \cdot 8^2 + 2 \cdot 8 + 4 = 212``; ``\sqrt{65}\pi``. This
module decides, model-free and bounded, whether two consecutive expressions are equal, whether an equation follows
from the one before it, and whether a numeric expression has a given value — by evaluating both at a few random
rational points, never by rewriting text:

:func:`parse` ``(latex) -> sympy expression | None``
    one expression or equation read by ``latex2sympy2_extended`` (``None``: refused or unreadable; see *Bounds*).
:func:`expressions_equal` ``(a, b) -> Verdict``
    ``a`` and ``b`` agree as functions of their letters: at :data:`POINTS` random rational points (one when neither
    has a letter), evaluated to :data:`PRECISION` digits, within a relative :data:`TOLERANCE`. ``refuted`` only when
    both are exact (no decimal written) and they differ at two points or more (one point without letters).
:func:`value_matches` ``(latex, value) -> Verdict``
    a numeric expression (``\sqrt{65}``, ``12\pi``, ``\binom{8}{3}``) has ``value`` (a ``Fraction`` or float).
:func:`equation_follows` ``(previous, current) -> Verdict``
    ``current`` follows from ``previous`` (two equations ``L = R``): ``L2 - R2`` is a constant non-zero multiple of
    ``L1 - R1`` at every point (the same equation rearranged, scaled, expanded or factored), or, in one unknown,
    every root of ``current`` solves ``previous`` (a factor or a root chosen: ``(y-2)^2 = 0`` -> ``y = 2``, numeric
    roots of a polynomial of degree at most :data:`MAX_DEGREE`), or ``current`` is ``name = number`` and the number
    solves ``previous``. Never ``refuted``: two equations that are
    not one derivation (two lines of a system) are no falsehood.
:func:`inequality_follows` ``(previous, current) -> Verdict``
    the inequality ``current`` follows from ``previous`` by rearranging: each read as "``d`` is positive" and ``d2``
    a positive constant multiple of ``d1`` at every point, with the same strictness (a side moved, both sides
    scaled, the relation turned with a negative factor). Never ``refuted``.
:func:`holds_at` ``(equation, bindings) -> Verdict``
    the equation holds once the values ``bindings`` (``{"x": Fraction(4)}``) are put in (an answer substituted into
    the problem's own condition).
:func:`chain_links` ``(latex) -> list[Verdict]``
    each link of a chain ``a = b = c`` (``a = b``, ``b = c``).

Each returns a :class:`Verdict`: ``status`` one of ``verified``, ``refuted``, ``undecided``, and a one-line
``reason``. Only a checked falsehood is ``refuted``; anything the checker cannot read, or reads two ways, is
``undecided``.

Bounds (model output is untrusted; this runs on a reward's path, off the main thread: no ``signal``, no
``eval``/``exec``/``sympify`` of the text): the text is screened before the parser sees it — at most
:data:`MAX_CHARS` characters, bracket nesting at most :data:`MAX_NESTING`, digit runs at most :data:`MAX_DIGITS`, an
exponent's literal at most :data:`MAX_EXPONENT`, no ``\binom``/``!`` of a number over 999 (the parser evaluates
those eagerly), no ``\text``, ``\int``, ``\sum``, ``\lim``, matrices or function notation ``f(x)`` (``\sin``,
``\log``, ``\sqrt`` are read); the parsed tree has at most :data:`MAX_NODES` nodes, :data:`MAX_SYMBOLS` free letters,
only the node types of :data:`ALLOWED` and no power tower (an exponent holds no power but a square or a root).
Evaluation is ``evalf`` at :data:`PRECISION` digits with the points put in at mpmath level (``subs=``): no exact
blow-up. Parses are cached per text (the cache is shared by threads; ``lru_cache`` is thread-safe) and run one at a
time per process (ANTLR's shared prediction tables). Each parse costs
about 5 ms: callers bound how many they ask for (:mod:`rewards.evidence.latex_derivations`).

Readings that could go two ways are refused rather than guessed: a digit before ``\frac`` (``2\frac{1}{2}``: a mixed
number or a product), a number with a base subscript other than 10 (``7602_8``), a degree sign outside a
trigonometric function.

>>> expressions_equal("(x + 10) - (10 - x)", "2x").status
'verified'
>>> expressions_equal(r"\frac{1}{4}(4)^4 - 8(4)^2 + 81", "17").status
'verified'
>>> expressions_equal("x^2 - 1", "(x-1)(x+2)").status, expressions_equal("x^2 - 1", "(x-1)(x+1)").status
('undecided', 'verified')
>>> value_matches(r"\sqrt{65}", 8.0622577483).status, value_matches(r"\binom{8}{3}", 56).status
('verified', 'verified')
>>> equation_follows("2x + 3 = 11", "x = 4").status, equation_follows("x^2 - 5x + 6 = 0", "(x-2)(x-3) = 0").status
('verified', 'verified')
>>> holds_at("2^{x+1} = 32", {"x": 4}).status
'verified'
>>> parse("f(x) + 1") is None, parse("2^{2^{2^{99}}}") is None
(True, True)
"""

from __future__ import annotations

import random
import re
import threading
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

__all__ = ["ALLOWED", "MAX_CHARS", "MAX_DIGITS", "MAX_EXPONENT", "MAX_NESTING", "MAX_NODES", "MAX_SYMBOLS",
           "POINTS", "PRECISION", "TOLERANCE", "Verdict", "chain_links", "equation_follows", "expressions_differ",
           "expressions_equal",
           "equal_under", "holds_at", "inequality_follows", "parse", "split_top_level", "value_matches", "warm"]

MAX_CHARS = 240
"""Longest expression or equation read (characters, after the cheap normalisation)."""
MAX_NESTING = 12
"""Deepest bracket nesting (``{``, ``(``, ``[``) read."""
MAX_DIGITS = 15
"""Longest digit run read (a number of at most this many digits)."""
MAX_EXPONENT = 400
"""Largest integer written as an exponent (``2^{400}``); a power tower is refused whatever its literals."""
MAX_NODES = 400
"""Most nodes of a parsed expression tree."""
MAX_SYMBOLS = 4
"""Most free letters (unknowns) of a parsed expression or equation."""
POINTS = 4
"""Random rational points at which two expressions with letters are compared."""
PRECISION = 30
"""Digits of the evaluation (``evalf``)."""
TOLERANCE = 1e-12
"""Relative tolerance of a comparison at one point (exact inputs agree to far more at :data:`PRECISION`)."""
FLOAT_TOLERANCE = 1e-6
"""Relative tolerance when a decimal is written (``0.5L``, ``8.0623``): a rounded decimal may be the value; never a
refutation."""


@dataclass(frozen=True, slots=True)
class Verdict:
    r"""What the check decided: ``status`` is ``verified``, ``refuted`` or ``undecided``; ``reason`` says why."""

    status: str
    reason: str

    @property
    def verified(self) -> bool:
        return self.status == "verified"

    @property
    def refuted(self) -> bool:
        return self.status == "refuted"


def _undecided(reason: str) -> Verdict:
    return Verdict("undecided", reason)


# ------------------------------------------------------------------------------------------------- the text screen
_SPACING = re.compile(r"\\(?:left|right|big|Big|bigg|Bigg|displaystyle|textstyle)(?![A-Za-z])|\\[,;:! ]|\\q?quad"
                      r"(?![A-Za-z])|&|\$")
_FRAC_VARIANT = re.compile(r"\\[dt]frac(?![A-Za-z])")
_REFUSED = re.compile(r"\\(?:text|mathrm|operatorname|mbox|int|iint|sum|prod|lim|begin|end|matrix|pmatrix|vec|"
                      r"mathbf|overline|bar|hat|pm|mp|infty|to|ldots|cdots|dots|in|cup|cap|"
                      r"le|ge|leq|geq|lt|gt|neq|ne|approx|sim|equiv|pmod|bmod|mod|angle|triangle|perp|parallel|"
                      r"partial|nabla|forall|exists|implies|Rightarrow|rightarrow|iff|mathbb|lfloor|lceil|floor|ceil|"
                      r"gcd|lcm|max|min|det|deg|prime)(?![A-Za-z])|[<>≤≥≈'\"?_]\s*\{?\s*[^\d\s{]|[<>≤≥≈'\"?;]|"
                      r"\d\s*\\frac|\d_\{?(?!10\b)\d|(?<![\\A-Za-z])[A-Za-z]{2,}\s*\(")
r"""Refused outright: prose and labels, calculus, sums, sets, inequalities, vectors, primes, ``\pm``, ellipses,
a mixed number or product ``2\frac{1}{2}``, a base subscript ``7602_8``, function notation ``f(x)``/``g(2)`` (a
letter run before a bracket that is no command), a subscript that names no index."""
_JUXTAPOSED_DIGITS = re.compile(r"\d\s+\d|\d\s*,\s*\d|\}\s*\d")
r"""``9 2``, ``1,000``, ``\sqrt{2}3``: the parser reads juxtaposed numbers as a sum (``9 2`` as 11), a thousands
separator as a tuple: refused."""
_NUMBER_THEN_BRACKET = re.compile(r"((?<!_)\d|\))\s*(?=\()|\)\s*(?=\d)")
r"""``2(3)``, ``(9)(2)``, ``(3)2``: a product, which the parser reads as a sum unless the ``\cdot`` is written."""
_BARE_FUNCTION = re.compile(r"\\(?:sin|cos|tan|cot|sec|csc|log|ln|lg|exp|arcsin|arccos|arctan)(?![A-Za-z])"
                            r"(?!\s*(?:_\s*(?:\d|\{[^{}]*\}))?\s*\()")
r"""A function whose argument is not in parentheses: the parser's argument runs on over products (``\log_2{8}
\cdot 3`` is read ``\log_2 24``, ``\cos x \cdot 2`` as ``\cos 2x``): refused."""
_LONE_E = re.compile(r"(?<![\\A-Za-z])e(?![A-Za-z]|\s*\^)")
"""``e`` not raised to a power is a letter (``a + b + c + d + e = 8``), not Euler's number (``e^x`` still is)."""
_TRIG = re.compile(r"\\(?:sin|cos|tan|cot|sec|csc)(?![A-Za-z])")
_DEGREE = re.compile(r"\^\s*\{?\s*\\circ\s*\}?|°")
_DIGITS = re.compile(r"\d+")
_EXPONENT_LITERAL = re.compile(r"\^\s*\{?\s*-?\s*(\d+)")
_EAGER = re.compile(r"\\(?:binom|dbinom|tbinom|choose)(?![A-Za-z])|!")


_BARE_FRAC_TWO = re.compile(r"\\([dt]?frac)\s*(\d)\s*(\d)")
_BARE_FRAC_FIRST = re.compile(r"\\([dt]?frac)\s*(\d)(?=\s*[{\\])")
_BARE_FRAC_SECOND = re.compile(r"\\([dt]?frac)\s*(\{(?:[^{}]|\{[^{}]*\})*\})\s*(\d)")
_BARE_SQRT = re.compile(r"\\sqrt\s*(\d)")


def braced_arguments(text: str) -> str:
    r"""``text`` with the one-digit arguments LaTeX takes without braces braced: ``\frac12`` -> ``\frac{1}{2}``,
    ``\frac1{2\sqrt7}`` -> ``\frac{1}{2\sqrt{7}}``, ``\sqrt7`` -> ``\sqrt{7}`` (LaTeX reads one token: ``\sqrt12`` is
    ``\sqrt{1}2``): what the number reader reads (``read_numbers`` skips a digit glued to a command), and what the
    parser reads (it refuses ``\sqrt7``).

    >>> braced_arguments(r"\frac1{2\sqrt7} + \dfrac34 - \frac{\sqrt3}2 + \sqrt[3]{8}")
    '\\frac{1}{2\\sqrt{7}} + \\dfrac{3}{4} - \\frac{\\sqrt{3}}{2} + \\sqrt[3]{8}'
    """
    if "\\frac" not in text and "\\sqrt" not in text and "frac" not in text:
        return text
    text = _BARE_SQRT.sub(r"\\sqrt{\1}", text)
    text = _BARE_FRAC_TWO.sub(r"\\\1{\2}{\3}", text)
    text = _BARE_FRAC_FIRST.sub(r"\\\1{\2}", text)
    return _BARE_FRAC_SECOND.sub(r"\\\1\2{\3}", text)


_TRIG_OF_DEGREES = re.compile(r"\\(sin|cos|tan|cot|sec|csc)\s*(\d{1,3}(?:\.\d{1,3})?)\s*\^\s*(?:\{\s*\\circ\s*\}|\\circ)")
_TRIG_OF_PI_FRACTION = re.compile(r"\\(sin|cos|tan|cot|sec|csc)\s*(\\[dt]?frac\s*\{\s*\d{0,3}\s*\\pi\s*\}\s*\{\s*\d{1,3}\s*\})")


def bracketed_trig_arguments(text: str) -> str:
    r"""``text`` with the one argument a trigonometric function takes without brackets bracketed, where it is one
    number of degrees or a fraction of ``\pi`` (``\cos 45^\circ`` -> ``\cos(45^\circ)``, ``\csc \frac{\pi}{3}`` ->
    ``\csc(\frac{\pi}{3})``): the parser refuses a bare argument, whose end it cannot tell (``\cos x \cdot 2``).

    >>> bracketed_trig_arguments(r"\frac{1 - \cos 45^\circ}{\sin 45^{\circ}} + \csc \frac{2\pi}{3}")
    '\\frac{1 - \\cos(45^\\circ)}{\\sin(45^\\circ)} + \\csc(\\frac{2\\pi}{3})'
    """
    if "\\" not in text:
        return text
    text = _TRIG_OF_DEGREES.sub(r"\\\1(\2^\\circ)", text)
    return _TRIG_OF_PI_FRACTION.sub(r"\\\1(\2)", text)


def _normalise(text: str) -> str | None:
    r"""The text as the parser will read it, or ``None`` when the screen refuses it."""
    if len(text) > 4 * MAX_CHARS:
        return None
    text = _SPACING.sub(" ", text)
    text = _FRAC_VARIANT.sub(r"\\frac", text)
    text = " ".join(text.split()).strip(" .,;:")
    if not text or len(text) > MAX_CHARS:
        return None
    if _DEGREE.search(text):
        if not _TRIG.search(text):
            text = _DEGREE.sub("", text)  # "180^\circ - 45^\circ": degrees as numbers (no trigonometry to convert)
    if _REFUSED.search(text) or _JUXTAPOSED_DIGITS.search(text) or _BARE_FUNCTION.search(text):
        return None
    text = _LONE_E.sub(r"\\epsilon ", text)
    text = _NUMBER_THEN_BRACKET.sub(lambda m: (m.group(1) or ")") + r" \cdot ", text)
    depth = deepest = 0
    for c in text:
        if c in "{([":
            depth += 1
            deepest = max(deepest, depth)
        elif c in "})]":
            depth -= 1
            if depth < 0:
                return None
    if depth != 0 or deepest > MAX_NESTING:
        return None
    runs = [len(m) for m in _DIGITS.findall(text)]
    if runs and max(runs) > MAX_DIGITS:
        return None
    if any(int(m) > MAX_EXPONENT for m in _EXPONENT_LITERAL.findall(text)):
        return None
    if _EAGER.search(text) and runs and max(runs) > 3:  # \binom{10^6}{5000} and 100000! are evaluated eagerly
        return None
    if text.count("^") > 24 or text.count("\\frac") > 24:
        return None
    return text


# ------------------------------------------------------------------------------------------------------ the parser
_PARSER_LOCK = threading.Lock()
_PARSE_LOCK = threading.Lock()
"""One parse at a time per process: latex2sympy's ANTLR parser fills shared prediction tables as it parses (the
runtime makes no promise for threads); a parse takes milliseconds, and scoring pools use processes."""
_MODULES: dict[str, Any] = {}


def _sympy():
    """sympy and the parser, imported on first use (the core imports neither at module load)."""
    if not _MODULES:
        with _PARSER_LOCK:
            if not _MODULES:
                import sympy
                from latex2sympy2_extended import latex2sympy
                from latex2sympy2_extended.latex2sympy2 import ConversionConfig

                config = ConversionConfig(interpret_as_mixed_fractions=False, interpret_simple_eq_as_assignment=False,
                                          interpret_contains_as_eq=False, lowercase_symbols=False)
                allowed = (sympy.Add, sympy.Mul, sympy.Pow, sympy.Symbol, sympy.Integer, sympy.Rational,
                           sympy.Float, sympy.Abs, sympy.sin, sympy.cos, sympy.tan, sympy.cot, sympy.sec, sympy.csc,
                           sympy.asin, sympy.acos, sympy.atan, sympy.log, sympy.exp, sympy.factorial,
                           sympy.binomial, sympy.Eq, sympy.UnevaluatedExpr)
                constants = (sympy.pi, sympy.E, sympy.S.Half, sympy.S.One, sympy.S.NegativeOne, sympy.S.Zero)
                _MODULES.update(sympy=sympy, parse=latex2sympy, config=config, allowed=allowed, constants=constants)
    return _MODULES


ALLOWED = ("Add", "Mul", "Pow", "Symbol", "Integer", "Rational", "Float", "Abs", "sin", "cos", "tan", "cot", "sec",
           "csc", "asin", "acos", "atan", "log", "exp", "factorial", "binomial", "Eq", "pi", "E")
"""The node types a parsed expression may hold (sympy class names): anything else (an undefined function, a set, a
matrix, a limit) makes it unreadable."""


def _tree_ok(expr, m) -> bool:
    r"""At most :data:`MAX_NODES` nodes of :data:`ALLOWED` types, at most :data:`MAX_SYMBOLS` letters, no power in
    an exponent but a square or a root (no tower)."""
    sympy = m["sympy"]
    nodes = 0
    stack = [expr]
    while stack:
        node = stack.pop()
        nodes += 1
        if nodes > MAX_NODES:
            return False
        if node in m["constants"] or isinstance(node, (sympy.Integer, sympy.Rational, sympy.Float, sympy.Symbol)):
            continue
        if not isinstance(node, m["allowed"]):
            return False
        if isinstance(node, sympy.Pow):
            exponent = node.args[1]
            for inner in sympy.preorder_traversal(exponent):
                if isinstance(inner, sympy.Pow) and inner.args[1] not in (2, sympy.S.Half, -1):
                    return False
            if exponent.is_number and exponent.is_real and abs(float(exponent)) > MAX_EXPONENT:
                return False
        stack.extend(node.args)
    return len(expr.free_symbols) <= MAX_SYMBOLS


@lru_cache(maxsize=4096)
def parse(latex: str):
    r"""One expression or equation (``L = R``: a sympy ``Eq``) read by ``latex2sympy2_extended`` after the screen
    (module docstring, *Bounds*); ``None`` when refused or unreadable. Never raises.

    >>> str(parse(r"\frac{1}{\sqrt{2}}")), parse(r"\text{cm}") is None
    ('1/sqrt(2)', True)
    """
    text = _normalise(latex)
    if text is None:
        return None
    m = _sympy()
    try:
        with _PARSE_LOCK:  # ANTLR's prediction tables are shared by every parser and filled in as it parses
            expr = m["parse"](text, normalization_config=None, conversion_config=m["config"],
                              convert_degrees=bool(_DEGREE.search(text)))
    except Exception:  # noqa: BLE001 - untrusted text: unreadable is undecided
        return None
    except RecursionError:  # pragma: no cover - the nesting bound keeps the parser's recursion shallow
        return None
    sympy = m["sympy"]
    if isinstance(expr, sympy.Eq):
        sides = expr.args
    elif isinstance(expr, sympy.Expr):
        sides = (expr,)
    else:
        return None  # a chain (And), a set, a relation other than "="
    try:
        if not all(isinstance(s, sympy.Expr) and _tree_ok(s, m) for s in sides):
            return None
    except Exception:  # noqa: BLE001
        return None
    return expr


# ----------------------------------------------------------------------------------------------------- evaluation
_SEED = 20240607


def _points(names: tuple[str, ...], count: int) -> list[dict[str, Fraction]]:
    r"""``count`` random rational points for ``names`` (deterministic: the same names give the same points on every
    thread, process and rank). Small numerators and denominators, none zero, none an integer (``x = 1`` hides
    ``x^2`` vs ``x``). Signs are not random: the ``j``-th letter is negative at point ``i`` where ``i & m_j`` has
    an odd number of bits, ``m_j = 1, 2, 3, 1, ...`` (Walsh functions), so over the first four points every letter
    and every product of two letters is positive twice and negative twice: ``\sqrt{x^2} = x`` or
    ``\sqrt{x^2 y^2} = -xy`` is not an identity because the points happened to share a sign.

    >>> [[int(p[n] > 0) for n in "xy"] for p in _points(("x", "y"), 4)]
    [[1, 1], [0, 1], [1, 0], [0, 0]]
    """
    rng = random.Random(_SEED + len(names))
    out = []
    for i in range(count):
        point = {}
        for j, name in enumerate(names):
            q = rng.choice((3, 5, 7, 11, 13, 17))
            p = rng.randint(1, 4 * q)
            while p % q == 0:
                p += 1
            negative = bin(i & (j % 3 + 1)).count("1") % 2
            point[name] = Fraction(-p if negative else p, q)
        out.append(point)
    return out


def _value(expr, point: dict[str, Fraction], m) -> tuple[float, float] | None:
    r"""``expr`` at ``point`` as ``(real, imaginary)`` to :data:`PRECISION` digits; ``None`` where it is undefined
    (a division by zero, a logarithm of 0) or not finite."""
    sympy = m["sympy"]
    subs = {sympy.Symbol(k): sympy.Rational(v.numerator, v.denominator) for k, v in point.items()}
    by_symbol = {s: subs.get(sympy.Symbol(s.name)) for s in expr.free_symbols}
    if any(v is None for v in by_symbol.values()):
        return None
    try:
        value = expr.evalf(PRECISION, subs=by_symbol) if by_symbol else expr.evalf(PRECISION)
        if not value.is_number or value.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo):
            return None
        re_part, im_part = value.as_real_imag()
        out = (float(re_part), float(im_part))
    except Exception:  # noqa: BLE001 - overflow, undefined, unevaluable: no value at this point
        return None
    if any(x != x or x in (float("inf"), float("-inf")) for x in out):
        return None
    return out


def _close(a: tuple[float, float], b: tuple[float, float], tolerance: float) -> bool:
    scale = max(1.0, abs(a[0]), abs(a[1]), abs(b[0]), abs(b[1]))
    return abs(a[0] - b[0]) <= tolerance * scale and abs(a[1] - b[1]) <= tolerance * scale


def _relatively_close(a: tuple[float, float], b: tuple[float, float], tolerance: float) -> bool:
    """Within ``tolerance`` of the larger magnitude (no absolute floor: a ratio of 1e-5 is compared to 1e-17)."""
    scale = max(abs(complex(*a)), abs(complex(*b)))
    return scale > 0 and abs(complex(*a) - complex(*b)) <= tolerance * scale


def _inexact(*exprs) -> bool:
    m = _sympy()
    return any(e.has(m["sympy"].Float) for e in exprs)


def _compare(left, right, what: str) -> Verdict:
    r"""``left`` and ``right`` (parsed expressions) agree at every point where both are defined."""
    m = _sympy()
    names = tuple(sorted({s.name for s in left.free_symbols | right.free_symbols}))
    if len(names) > MAX_SYMBOLS:
        return _undecided(f"{what}: more than {MAX_SYMBOLS} letters")
    inexact = _inexact(left, right)
    tolerance = FLOAT_TOLERANCE if inexact else TOLERANCE
    points = _points(names, POINTS) if names else [{}]
    agree = differ = 0
    for point in points:
        a, b = _value(left, point, m), _value(right, point, m)
        if a is None or b is None:
            continue
        if _close(a, b, tolerance):
            agree += 1
        else:
            differ += 1
    needed = 1 if not names else POINTS - 1
    if differ == 0 and agree >= needed:
        return Verdict("verified", f"{what}: equal at {agree} point{'s' * (agree != 1)}"
                       + (" (a decimal is written: within 1e-6)" if inexact else ""))
    if differ and not inexact and not names:  # with letters, "x^2 = 4" may be a condition, not an identity
        return Verdict("refuted", f"{what}: they differ at {differ} point{'s' * (differ != 1)}")
    if differ:
        return _undecided(f"{what}: equal at {agree} point(s), differ at {differ}")
    return _undecided(f"{what}: defined at too few points ({agree})")


def expressions_equal(a: str, b: str) -> Verdict:
    r"""Whether the expressions ``a`` and ``b`` are equal as functions of their letters (module docstring).

    >>> expressions_equal(r"\frac{0.5L}{L} \cdot 100", "50").status, expressions_equal("a+b", "b+a").status
    ('verified', 'verified')
    >>> expressions_equal("2+2", "5").status, expressions_equal("f(x)", "x").status
    ('refuted', 'undecided')
    """
    pair = _expression_pair(a, b)
    if isinstance(pair, Verdict):
        return pair
    return _compare(*pair, "the two expressions")


def parsed_equal(left, right) -> Verdict:
    r"""Whether two expressions :func:`parse` read (or built from such: a sign changed, a sub-expression) are equal
    as functions of their letters, as :func:`expressions_equal` decides for text.

    >>> parsed_equal(parse("(x+1)^2"), parse("x^2+2x+1")).status, parsed_equal(parse("x"), -parse("x")).status
    ('verified', 'undecided')
    """
    return _compare(left, right, "the two expressions")


def _expression_pair(a: str, b: str):
    """The parsed expressions ``(left, right)``, or the undecided :class:`Verdict` when one is unreadable or an
    equation."""
    m = _sympy()
    left, right = parse(a), parse(b)
    if left is None or right is None:
        return _undecided("unreadable: " + (a if left is None else b)[:60])
    if isinstance(left, m["sympy"].Eq) or isinstance(right, m["sympy"].Eq):
        return _undecided("an equation where an expression was expected")
    return left, right


def value_matches(latex: str, value: Fraction | int | float) -> Verdict:
    r"""Whether the numeric expression ``latex`` has ``value`` (exactly written inputs: within :data:`TOLERANCE`,
    and within :data:`FLOAT_TOLERANCE` when ``value`` or the expression is a decimal).

    >>> value_matches(r"12\pi", 37.699111843).status, value_matches(r"3 \cdot 8^2 + 2 \cdot 8 + 4", 212).status
    ('verified', 'verified')
    >>> value_matches(r"\sqrt{64}", 9).status
    'refuted'
    """
    m = _sympy()
    sympy = m["sympy"]
    expr = parse(latex)
    if expr is None:
        return _undecided("unreadable: " + latex[:60])
    if isinstance(expr, sympy.Eq) or expr.free_symbols:
        return _undecided("not a numeric expression")
    if isinstance(value, float):
        target = sympy.Float(value, PRECISION)
    else:
        value = Fraction(value)
        target = sympy.Rational(value.numerator, value.denominator)
    return _compare(expr, target, "the expression and the value")


def _difference(eq):
    return eq.args[0] - eq.args[1]


def equation_follows(previous: str, current: str) -> Verdict:
    r"""Whether the equation ``current`` follows from ``previous`` (module docstring): proportional differences, or a
    root chosen. ``undecided`` (never ``refuted``) when it does not.

    >>> equation_follows(r"\frac{x}{3} + 1 = 5", "x + 3 = 15").status
    'verified'
    >>> equation_follows("(y - 2)^2 = 0", "y - 2 = 0").status, equation_follows("x(x - 5) = 0", "x = 5").status
    ('verified', 'verified')
    >>> equation_follows("2x + 3 = 11", "x = 5").status, equation_follows("x = x", "x = 5").status
    ('undecided', 'undecided')
    >>> equation_follows("x^2 = 4", "x^2 - 4 = 1").status
    'undecided'
    """
    m = _sympy()
    sympy = m["sympy"]
    first, second = parse(previous), parse(current)
    if not (isinstance(first, sympy.Eq) and isinstance(second, sympy.Eq)):
        return _undecided("not two readable equations")
    d1, d2 = _difference(first), _difference(second)
    names = tuple(sorted({s.name for s in d1.free_symbols | d2.free_symbols}))
    if not names:
        return _undecided("no unknown: an arithmetic claim, not algebra")
    if len(names) > MAX_SYMBOLS:
        return _undecided(f"more than {MAX_SYMBOLS} unknowns")
    tolerance = FLOAT_TOLERANCE if _inexact(d1, d2) else TOLERANCE
    ratios = []
    for point in _points(names, POINTS + 1):
        a, b = _value(d1, point, m), _value(d2, point, m)
        if a is None or b is None:
            continue
        if abs(a[0]) + abs(a[1]) < 1e-20:  # the earlier equation holds here (or is an identity)
            if abs(b[0]) + abs(b[1]) < 1e-20:
                continue
            ratios = None
            break
        ratio = complex(*b) / complex(*a)
        ratios.append((ratio.real, ratio.imag))
    if ratios and len(ratios) >= POINTS - 1 and all(_relatively_close(r, ratios[0], tolerance) for r in ratios) \
            and abs(complex(*ratios[0])) > 1e-12:
        return Verdict("verified", "the same equation rearranged (differences proportional)")
    selected = _selects(d1, d2, names, tolerance, m)
    if selected is not None:
        return selected
    # a root chosen: "x = 4" after "2x + 3 = 11" (the value solves the earlier equation)
    lhs, rhs = second.args
    if all(a is not None and abs(a[0]) + abs(a[1]) < 1e-20 for a in (_value(d1, p, m) for p in _points(names, 2))):
        return _undecided("the earlier equation holds everywhere tried (an identity): it selects no root")
    for name_side, value_side in ((lhs, rhs), (rhs, lhs)):
        if isinstance(name_side, sympy.Symbol) and not value_side.free_symbols and name_side in d1.free_symbols \
                and d1.free_symbols == {name_side}:
            at = _value(value_side, {}, m)
            if at is None or abs(at[1]) > 0:
                break
            solved = _value(d1.subs(name_side, value_side), {}, m)
            if solved is not None and _close(solved, (0.0, 0.0), tolerance):
                return Verdict("verified", f"{name_side} = {value_side} solves the earlier equation")
            break
    return _undecided("does not follow by rearranging, and states no root of the earlier equation")


_RELATION = re.compile(r"\\(?:leq?|geq?|lt|gt)(?![A-Za-z])|[<>≤≥]")
_GREATER = frozenset({">", r"\gt", "≥", r"\ge", r"\geq"})
_STRICT = frozenset({"<", ">", r"\lt", r"\gt"})


def _depth(text: str) -> int:
    return sum(text.count(c) for c in "{([") - sum(text.count(c) for c in "})]")


def _inequality(text: str):
    """``(d, strict)`` for ``L rel R`` with one relation outside brackets: ``d`` the parsed difference that the
    inequality says is positive (``L - R`` for ``>``, ``R - L`` for ``<``), or ``None``."""
    if len(text) > 4 * MAX_CHARS:
        return None
    found = [m for m in _RELATION.finditer(text) if _depth(text[:m.start()]) == 0]
    if len(found) != 1:
        return None
    m = found[0]
    left, right = parse(text[:m.start()]), parse(text[m.end():])
    sympy = _sympy()["sympy"]
    if not (isinstance(left, sympy.Expr) and isinstance(right, sympy.Expr)) or isinstance(left, sympy.Eq) \
            or isinstance(right, sympy.Eq):
        return None
    relation = m.group(0).replace(r"\leq", r"\le").replace(r"\geq", r"\ge")
    return (left - right if relation in _GREATER else right - left), relation in _STRICT


def inequality_parts(text: str):
    r"""``(d, strict)`` for an inequality ``L rel R`` (one relation outside brackets): ``d`` the parsed difference the
    inequality says is positive (``L - R`` for ``>``, ``R - L`` for ``<``; non-negative when not strict), or
    ``None``; the reading :func:`inequality_follows` uses.

    >>> d, strict = inequality_parts("|x + 4| < 9"); str(d), strict
    ('9 - Abs(x + 4)', True)
    """
    return _inequality(text)


def value_at(expr, point: dict[str, Fraction]) -> tuple[float, float] | None:
    r"""A parsed expression's value at ``point`` (letter -> number) as ``(real, imaginary)``, or ``None`` where it is
    undefined or a letter is missing; the evaluation :func:`holds_at` uses.

    >>> value_at(parse("x^2 - 1"), {"x": Fraction(3)})
    (8.0, 0.0)
    """
    return _value(expr, point, _sympy())


def inequality_follows(previous: str, current: str) -> Verdict:
    r"""Whether the inequality ``current`` follows from ``previous`` by rearranging: each is read as "``d`` is
    positive" (``L - R`` for ``>``/``\geq``, ``R - L`` for ``<``/``\leq``), and ``d2`` is a *positive* constant
    multiple of ``d1`` at every point (a side moved, both sides scaled by a positive number, or by a negative one
    with the relation turned), with the same strictness. ``undecided`` (never ``refuted``) otherwise.

    >>> inequality_follows("6 - x > -9", "6 + 9 > x").status, inequality_follows(r"25 \geq 8c", r"c \leq \frac{25}{8}").status
    ('verified', 'verified')
    >>> inequality_follows("-x < 13", "x > -13").status, inequality_follows("-x < 13", "x < -13").status
    ('verified', 'undecided')
    >>> inequality_follows("2x > 6", r"x \geq 3").status
    'undecided'
    """
    m = _sympy()
    first, second = _inequality(previous), _inequality(current)
    if first is None or second is None or first[1] != second[1]:
        return _undecided("not two readable inequalities of the same strictness")
    d1, d2 = first[0], second[0]
    names = tuple(sorted({s.name for s in d1.free_symbols | d2.free_symbols}))
    if not names or len(names) > MAX_SYMBOLS:
        return _undecided("no unknown, or more than " f"{MAX_SYMBOLS}")
    tolerance = FLOAT_TOLERANCE if _inexact(d1, d2) else TOLERANCE
    ratios = []
    for point in _points(names, POINTS + 1):
        a, b = _value(d1, point, m), _value(d2, point, m)
        if a is None or b is None or abs(a[1]) + abs(b[1]) > 0:
            continue
        if abs(a[0]) < 1e-20:
            return _undecided("the earlier inequality is an equality here")
        ratios.append((b[0] / a[0], 0.0))
    if len(ratios) >= POINTS - 1 and all(_relatively_close(r, ratios[0], tolerance) for r in ratios) \
            and ratios[0][0] > 1e-12:
        return Verdict("verified", "the same inequality rearranged (differences in a positive ratio)")
    return _undecided("does not follow by rearranging")


MAX_DEGREE = 6
"""Highest degree of a one-unknown polynomial equation whose roots :func:`equation_follows` works out (``nroots``)."""


def _selects(d1, d2, names: tuple[str, ...], tolerance: float, m) -> Verdict | None:
    """``current`` selects roots of ``previous`` (``(y - 2)^2 = 0`` -> ``y - 2 = 0``; ``x(x - 5) = 0`` -> ``x - 5 =
    0``): one unknown, ``current`` a polynomial of degree at most :data:`MAX_DEGREE` with a root, and every root of it
    (complex ones too, numerically to :data:`PRECISION` digits) solves ``previous``; ``previous`` no identity."""
    sympy = m["sympy"]
    if len(names) != 1:
        return None
    x = next(iter(d2.free_symbols), None)
    if x is None or d1.free_symbols != {x}:
        return None
    try:
        poly = sympy.Poly(d2, x)
        if not 1 <= poly.degree() <= MAX_DEGREE or not all(c.is_Rational for c in poly.all_coeffs()):
            return None
        roots = poly.nroots(n=PRECISION, maxsteps=60)
    except Exception:  # noqa: BLE001 - not a polynomial with rational coefficients, or no convergence
        return None
    if not roots:
        return None
    if all(a is not None and abs(a[0]) + abs(a[1]) < 1e-20 for a in (_value(d1, p, m) for p in _points(names, 2))):
        return None  # an identity holds at every root: it selects nothing
    for root in roots:
        try:
            value = d1.evalf(PRECISION, subs={x: root})
            re_part, im_part = value.as_real_imag()
            scale = max(1.0, abs(complex(root)))
            if abs(complex(float(re_part), float(im_part))) > 1e-9 * scale:
                return None
        except Exception:  # noqa: BLE001
            return None
    return Verdict("verified", f"every root of the later equation ({len(roots)}) solves the earlier one")


def holds_at(equation: str, bindings: dict[str, Any]) -> Verdict:
    r"""Whether ``equation`` holds once ``bindings`` (letter -> number) are put in; ``refuted`` when it is false
    there (exact inputs), ``undecided`` when a letter stays free or it cannot be evaluated.

    >>> holds_at(r"\sqrt{x + 1} = 3", {"x": 8}).status, holds_at("x^2 = 2x", {"x": 3}).status
    ('verified', 'refuted')
    """
    m = _sympy()
    sympy = m["sympy"]
    eq = parse(equation)
    if not isinstance(eq, sympy.Eq):
        return _undecided("not a readable equation")
    free = {s.name for s in eq.free_symbols}
    if not free or free - set(bindings):
        return _undecided("a letter stays free" if free else "no unknown to put a value into")
    point: dict[str, Fraction] = {}
    for name in free:
        value = bindings[name]
        if isinstance(value, float):
            return _undecided("an inexact value")
        point[name] = Fraction(value)
    a, b = _value(eq.args[0], point, m), _value(eq.args[1], point, m)
    if a is None or b is None:
        return _undecided("undefined at the value")
    if _close(a, b, TOLERANCE):
        return Verdict("verified", "holds at " + ", ".join(f"{k} = {v}" for k, v in sorted(point.items())))
    if _inexact(eq):
        return _undecided("false at the value, but a decimal is written")
    return Verdict("refuted", "false at " + ", ".join(f"{k} = {v}" for k, v in sorted(point.items())))


MAX_PUT_IN = 4
"""Letters :func:`equal_under` puts values into at once."""


def equal_under(a: str, b: str, values: dict[str, str]) -> Verdict:
    r"""Whether ``a``, with each letter named in ``values`` replaced by its value (a number written in LaTeX, read by
    the same parser: ``c`` -> ``\sqrt{5}``), equals ``b``, as :func:`expressions_equal` compares them: a value
    carried by a letter into a later step (``c = \sqrt{5}``, then ``2c = 2\sqrt{5}``). ``undecided`` when a name is
    no single letter the parser reads as one, a value is not a number, or more than :data:`MAX_PUT_IN` are given.
    The values are put into the parsed tree (sympy's ``subs``, no text is evaluated) and the result is screened
    again (:data:`MAX_NODES`, :data:`ALLOWED`).

    >>> equal_under("2c", r"2\sqrt{5}", {"c": r"\sqrt{5}"}).status, equal_under("3c", r"2\sqrt{5}", {"c": r"\sqrt{5}"}).status
    ('verified', 'refuted')
    >>> equal_under("2c", r"2\sqrt{5}", {"c": "x + 1"}).status
    'undecided'
    """
    pair = _expression_pair(a, b)
    if isinstance(pair, Verdict):
        return pair
    if not values or len(values) > MAX_PUT_IN:
        return _undecided("no value, or too many, to put in")
    m = _sympy()
    sympy = m["sympy"]
    put: dict = {}
    for name, value in values.items():
        symbol, number = parse(name), parse(value)
        if not isinstance(symbol, sympy.Symbol) or not isinstance(number, sympy.Expr) or number.free_symbols:
            return _undecided(f"no number to put in for {name[:20]}")
        put[symbol] = number
    left, right = pair
    try:
        left = left.subs(put)
        if not _tree_ok(left, m):
            return _undecided("the expression with the values put in is too large")
    except Exception:  # noqa: BLE001 - an unevaluable substitution is undecided
        return _undecided("the values could not be put in")
    return _compare(left, right, "the expressions with the values put in")


def split_top_level(text: str, separator: str = "=") -> list[str]:
    r"""``text`` split at every ``separator`` outside brackets (``\frac{a=b}`` is not split).

    >>> split_top_level(r"a = \frac{1}{2} = 0.5")
    ['a ', ' \\frac{1}{2} ', ' 0.5']
    """
    out, depth, start = [], 0, 0
    for k, c in enumerate(text):
        if c in "{([":
            depth += 1
        elif c in "})]":
            depth -= 1
        elif c == separator and depth == 0:
            out.append(text[start:k])
            start = k + 1
    out.append(text[start:])
    return out


def chain_links(latex: str) -> list[Verdict]:
    r"""Each link of a chain ``a = b = c``: ``expressions_equal(a, b)``, ``expressions_equal(b, c)``.

    >>> [v.status for v in chain_links(r"(x+1)^2 = x^2 + 2x + 1 = x^2 + 2x + 2")]
    ['verified', 'undecided']
    """
    sides = [s for s in split_top_level(latex) if s.strip()]
    return [expressions_equal(a, b) for a, b in zip(sides, sides[1:])]


def expressions_differ(a: str, b: str) -> Verdict:
    r"""Whether ``a`` and ``b`` are *different* functions of their letters: ``verified`` when they differ at one of
    the random points where both are defined (one point suffices to tell two functions apart, though not to call an
    equation in letters false: :func:`expressions_equal` leaves that undecided), ``refuted`` when they agree at every
    point (:func:`expressions_equal` verified), else ``undecided``. What a counterfactual edit of an expression asks:
    does the result move?

    >>> expressions_differ("(x + 11) - (10 - x)", "2x").status, expressions_differ("(x+1) - 1", "x").status
    ('verified', 'refuted')
    """
    pair = _expression_pair(a, b)
    if isinstance(pair, Verdict):
        return pair
    left, right = pair
    m = _sympy()
    same = _compare(left, right, "the two expressions")
    if same.verified:
        return Verdict("refuted", same.reason)
    names = tuple(sorted({s.name for s in left.free_symbols | right.free_symbols}))
    if len(names) > MAX_SYMBOLS:
        return _undecided(f"more than {MAX_SYMBOLS} letters")
    tolerance = FLOAT_TOLERANCE if _inexact(left, right) else TOLERANCE
    for point in (_points(names, POINTS) if names else [{}]):
        x, y = _value(left, point, m), _value(right, point, m)
        if x is not None and y is not None and not _close(x, y, tolerance):
            return Verdict("verified", f"the two expressions differ at {point}")
    return _undecided("no point where both are defined and differ")


def warm() -> None:
    """Load the parser and build its first tables (about a second on a cold process): a scoring worker runs it before
    it reports ready, so that no completion pays it. Never raises."""
    try:
        for text in (r"\frac{1}{2} x^2 + \sqrt{3} \cdot 4 = 2(x - 1)", r"\log_2(8) + \sin(30^\circ) - \pi",
                     "(a + b)^{2} - 2ab = a^2 + b^{-1}", r"\frac{\frac{1}{2}}{\frac{3}{4}} = \binom{5}{2} + 3! + |x - 1|"):
            parsed = parse(text)
            if parsed is not None:
                _value(_difference(parsed) if isinstance(parsed, _sympy()["sympy"].Eq) else parsed, {"x": Fraction(1, 3)},
                       _sympy())
    except Exception:  # noqa: BLE001 - a worker that cannot warm up still works
        pass
