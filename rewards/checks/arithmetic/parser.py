r"""The bounded exact evaluator: a token list (one expression) to a :class:`~.values.Value`, by precedence climbing.

Exact intermediates are ``int`` or :class:`~fractions.Fraction`, inexact ones ``float``; every resource is bounded
before it is spent (see :mod:`.budget`); nothing is ever ``eval``-ed.  The grammar is in the package docstring.

>>> evaluate("2^10 - 24").exact, evaluate(r"3\frac{4}{5}").exact
(Fraction(1000, 1), Fraction(19, 5))
>>> evaluate_ex("3 + y"), evaluate_ex("10^10^10")
(Unparseable(reason="free variable 'y'"), Unparseable(reason='exponent too large'))
>>> toks = []; tokenize("40/80*100%", 0, 10, False, toks, True)
>>> eval_tokens(toks), eval_tokens(toks, pct_points=True)
(Value(0.5), Value(50))
"""

from __future__ import annotations

import math
import re
from fractions import Fraction

from .budget import (MAX_BINOM, MAX_BITS, MAX_DEPTH, MAX_DIGITS, MAX_EXPONENT, MAX_EXPR_CHARS, MAX_EXPR_TOKENS,
                     MAX_FACTORIAL, MAX_ROOT)
from .errors import internal_error
from .literals import big_float, literal_value, num_exact
from .tokens import FUNCS, KEYWORDS, Token, tokenize
from .values import Unparseable, Value

__all__ = ["eval_tokens", "has_pct", "evaluate_ex", "evaluate", "numeral_value"]


_new = tuple.__new__  # ``_new(Value, (exact, approx, is_exact))``: a Value built in C, without NamedTuple's __new__


class _Fail(Exception):
    __slots__ = ("reason",)

    def __init__(self, reason: str):
        self.reason = reason



# -------------------------------------------------------------------------------------- parsing
# Exact intermediates are ``int`` (fast) or ``Fraction``; inexact ones are ``float``.
def _too_large(q) -> bool:
    """Whether an exact intermediate (int or Fraction) has a numerator or denominator of more than MAX_BITS bits."""
    if type(q) is int:
        return q.bit_length() > MAX_BITS
    return q.numerator.bit_length() > MAX_BITS or q.denominator.bit_length() > MAX_BITS


def _bits_ok(q):
    if _too_large(q):
        raise _Fail("number too large")
    return q


def _checked(v):
    return _float_ok(v) if type(v) is float else _bits_ok(v)


def _div(a, b):
    if b == 0:
        raise _Fail("division by zero")
    if type(a) is int and type(b) is int:
        return a // b if a % b == 0 else Fraction(a, b)
    return a / b


def _exact_int(v) -> bool:
    return type(v) is not float and v.denominator == 1



def _float_ok(x: float) -> float:
    if isinstance(x, complex) or x != x or x in (math.inf, -math.inf):
        raise _Fail("not a finite real number")
    return x


def _exact_root(q: Fraction, n: int) -> Fraction | None:
    """The exact n-th root of q >= 0 when it is rational."""

    def iroot(a: int) -> int | None:
        if a < 2:
            return a
        if n == 2:
            r = math.isqrt(a)
        else:
            if a.bit_length() > 1000:
                return None
            r = int(round(a ** (1.0 / n)))
            for c in (r - 1, r, r + 1):
                if c >= 0 and c**n == a:
                    return c
            return None
        return r if r * r == a else None

    a = iroot(q.numerator)
    if a is None:
        return None
    b = iroot(q.denominator)
    if b is None:
        return None
    return Fraction(a, b)


_CLOSERS = {"abs": "abs", "lfloor": "rfloor", "lceil": "rceil"}
_TRIG = {"sin": math.sin, "cos": math.cos, "tan": math.tan, "sinh": math.sinh,
         "cosh": math.cosh, "tanh": math.tanh}


class _Parser:
    __slots__ = ("t", "i", "n", "depth", "pct", "deg", "inexact", "used_pct")

    def __init__(self, toks: list[Token], pct_points: bool = False):
        self.t = toks
        self.i = 0
        self.n = len(toks)
        self.depth = 0
        self.pct = pct_points  # True: read p% as p ("percentage points")
        self.deg = False
        self.inexact = False
        self.used_pct = False

    # -- helpers
    def peek(self, k: int = 0):
        j = self.i + k
        return self.t[j] if j < self.n else None

    def kind(self, k: int = 0) -> str:
        j = self.i + k
        return self.t[j][0] if j < self.n else ""

    def run(self):
        if self.n == 0:
            raise _Fail("empty")
        v = self.expr()
        # trailing unit words / labels are fine
        while self.i < self.n and self.t[self.i][0] in "wt":
            self.i += 1
        if self.i < self.n:
            tk = self.t[self.i]
            if tk[0] in "vx":
                raise _Fail(f"free variable {tk[1]!r}")
            raise _Fail(f"unexpected {tk[1]!r}")
        return v

    def expr(self):
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise _Fail("nested too deeply")
        v = self.term()
        while self.i < self.n:
            k, val = self.t[self.i][0], self.t[self.i][1]
            if k == "o" and (val == "+" or val == "-"):
                op = val
            elif k == "w" and (val == "plus" or val == "minus"):
                op = "+" if val == "plus" else "-"
            else:
                break
            self.i += 1
            r = self.term()
            v = v + r if op == "+" else v - r
            v = _checked(v)
        self.depth -= 1
        return v

    def term(self):
        v = self.unary()
        t = self.t
        while self.i < self.n:
            k, val = t[self.i][0], t[self.i][1]
            op = None
            if k == "o" and (val == "*" or val == "/"):
                op = val
                self.i += 1
                # "$3.50/hour": division by a unit is no arithmetic
                if val == "/" and self.kind() in ("w", "t") and self.peek()[1] not in KEYWORDS:
                    self.i += 1
                    continue
            elif k == "x":
                if self.kind(1) in ("n", "(", "{", "$", "c"):
                    op = "*"
                    self.i += 1
                else:
                    raise _Fail("free variable 'x'")
            elif k == "w":
                if val == "plus" or val == "minus":
                    break
                if val in KEYWORDS:
                    op = KEYWORDS[val]
                    self.i += 1
                else:  # a unit word: skip
                    self.i += 1
                    continue
            elif k == "t":
                self.i += 1
                continue
            elif k == "c" and (val == "abs" or val == "rfloor" or val == "rceil"):
                break  # closes |x|, \lfloor x \rfloor, \lceil x \rceil
            elif k == "c" and val == "mod":
                op = "mod"
                self.i += 1
            elif k == "(" or k == "{" or k == "c" or k == "d":
                if k == "d":
                    self.i += 1
                    continue
                op = "*"  # implicit multiplication: 2(3+4), 2\pi, 3\sqrt{2}
            elif k == "v":
                raise _Fail(f"free variable {val!r}")
            elif k == "n" and t[self.i - 1][0] == "!" and not t[self.i][4]:
                op = "*"  # 5!3!
            else:
                break
            r = self.unary()
            if op == "*":
                v = v * r
            elif op == "mod":
                if not (_exact_int(v) and _exact_int(r) and r != 0):
                    raise _Fail("mod needs integers")
                v = v % r
            else:
                v = _div(v, r)
            v = _checked(v)
        return v

    def unary(self):
        k = self.kind()
        if k == "o":
            val = self.t[self.i][1]
            if val == "-":
                self.i += 1
                self.depth += 1
                if self.depth > MAX_DEPTH:
                    raise _Fail("nested too deeply")
                v = -self.unary()
                self.depth -= 1
                return v
            if val == "+":
                self.i += 1
                return self.unary()
        elif k == "$":
            self.i += 1
            return self.unary()
        return self.power()

    def power(self):
        b = self.postfix()
        if self.kind() == "o" and self.t[self.i][1] == "^":
            self.i += 1
            # 90^\circ, 90^{\circ}: a degree mark, not a power
            if self.kind() == "d":
                self.i += 1
                self.deg = True
                return b
            if self.kind() == "{" and self.kind(1) == "d" and self.kind(2) == "}":
                self.i += 3
                self.deg = True
                return b
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise _Fail("nested too deeply")
            e = self.unary()
            self.depth -= 1
            return self.pow(b, e)
        return b

    def pow(self, b, e):
        if type(b) is not float and type(e) is not float:
            if e.denominator == 1:
                n = e.numerator
                if abs(n) > MAX_EXPONENT:
                    raise _Fail("exponent too large")
                if b == 0 and n < 0:
                    raise _Fail("division by zero")
                if max(b.numerator.bit_length(), b.denominator.bit_length()) * abs(n) > MAX_BITS + 64:
                    raise _Fail("number too large")
                return _bits_ok(Fraction(b) ** n if n < 0 else b**n)
            if b < 0:
                raise _Fail("root of a negative number")
            if e.denominator <= MAX_ROOT and abs(e.numerator) <= MAX_EXPONENT:
                r = _exact_root(b, e.denominator)
                if r is not None:
                    return self.pow(r, Fraction(e.numerator))
        self.inexact = True
        try:
            fb, fe = float(b), float(e)
            if fb < 0 and fe != int(fe):
                raise _Fail("root of a negative number")
            if fb == 0 and fe < 0:
                raise _Fail("division by zero")
            return _float_ok(fb**fe)
        except (OverflowError, ZeroDivisionError):
            raise _Fail("number too large") from None

    def postfix(self):
        v = self.primary()
        while self.i < self.n:
            k = self.t[self.i][0]
            if k == "!":
                self.i += 1
                if not _exact_int(v) or not 0 <= v <= MAX_FACTORIAL:
                    raise _Fail("factorial out of range")
                v = math.factorial(int(v))
            elif k == "%":
                self.i += 1
                self.used_pct = True
                if not self.pct:
                    v = _div(v, 100)
            elif k == "d":
                self.i += 1
                self.deg = True
            else:
                break
        return v

    def group(self, close: str):
        self.i += 1
        v = self.expr()
        if self.kind() != close:
            raise _Fail("unbalanced brackets")
        self.i += 1
        return v

    def arg(self):
        """A LaTeX argument: {..}, or one token."""
        k = self.kind()
        if k == "{":
            return self.group("}")
        if k == "n":
            return self.primary()
        if k == "(":
            return self.group(")")
        if k == "c":
            return self.primary()
        if k == "v" or k == "x":
            raise _Fail(f"free variable {self.t[self.i][1]!r}")
        raise _Fail("missing argument")

    def primary(self):
        if self.i >= self.n:
            raise _Fail("unexpected end")
        tk = self.t[self.i]
        k = tk[0]
        if k == "n":
            self.i += 1
            q = num_exact(tk[1])
            if q is None:
                raise _Fail("too many digits")
            if self.i < self.n and self.t[self.i][0] == "c" and self.t[self.i][1] == "frac" and \
                    q.denominator == 1:
                # 3\frac{4}{5} is the mixed number 3 4/5 (school notation), not 3 * 4/5
                f = self.command("frac")
                if type(f) is not float and 0 < f < 1 and f.denominator > 1:
                    return q + f
                return q * f
            return q
        if k == "(":
            return self.group(")")
        if k == "{":
            return self.group("}")
        if k == "$":
            self.i += 1
            return self.primary()
        if k == "c":
            return self.command(tk[1])
        if k in "vx":
            raise _Fail(f"free variable {tk[1]!r}")
        raise _Fail(f"unexpected {tk[1]!r}")

    def command(self, name: str):
        self.i += 1
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise _Fail("nested too deeply")
        try:
            if name == "frac":
                a = self.arg()
                b = self.arg()
                return _checked(_div(a, b))
            if name == "sqrt":
                idx = 2
                if self.kind() == "(" and self.t[self.i][1] == "[":
                    idx = self.group(")")
                    if not _exact_int(idx) or not 2 <= idx <= MAX_ROOT:
                        raise _Fail("bad root index")
                a = self.arg()
                n = int(idx)
                if a < 0:
                    if n % 2 == 1:
                        return -self.pow(-a, Fraction(1, n))
                    raise _Fail("root of a negative number")
                return self.pow(a, Fraction(1, n))
            if name == "binom":
                a = self.arg()
                b = self.arg()
                if not (_exact_int(a) and _exact_int(b) and 0 <= a <= MAX_BINOM):
                    raise _Fail("binomial out of range")
                if b < 0 or b > a:
                    return 0
                return math.comb(int(a), int(b))
            if name == "pi":
                self.inexact = True
                return math.pi
            if name in FUNCS:
                return self.function(name)
            if name in _CLOSERS:  # |x|, \lfloor x \rfloor, \lceil x \rceil
                v = self.expr()
                if self.kind() != "c" or self.t[self.i][1] != _CLOSERS[name]:
                    raise _Fail("unbalanced brackets")
                self.i += 1
                if name == "abs":
                    return abs(v)
                if type(v) is float:
                    self.inexact = True
                    return float(math.floor(v) if name == "lfloor" else math.ceil(v))
                return math.floor(v) if name == "lfloor" else math.ceil(v)
            raise _Fail(f"not numeric: \\{name}")
        finally:
            self.depth -= 1

    def function(self, name: str):
        base = None
        if self.kind() == "_":
            self.i += 1
            base = self.arg()
        if self.kind() == "o" and self.t[self.i][1] == "^":  # \sin^2 x
            raise _Fail("function power")
        saved_deg = self.deg
        self.deg = False
        k = self.kind()
        if k == "(" or k == "{":
            x = self.group(")" if k == "(" else "}")
            if self.kind() == "d":
                self.i += 1
                self.deg = True
        else:
            x = self.power()
        deg = self.deg
        self.deg = saved_deg
        try:
            if name in ("log", "lg", "ln"):
                if base is None:
                    base = Fraction(10) if name != "ln" else None
                if x <= 0 or (base is not None and (base <= 0 or base == 1)):
                    raise _Fail("log of a non-positive number")
                if base is None:
                    self.inexact = True
                    return math.log(x)
                r = math.log(x) / math.log(base)
                if type(x) is not float and type(base) is not float:
                    rr = round(r)
                    if abs(r - rr) < 1e-9 and abs(rr) <= MAX_EXPONENT:
                        try:
                            if self.pow(base, Fraction(rr)) == x:
                                return rr
                        except _Fail:
                            pass
                self.inexact = True
                return _float_ok(r)
            if name == "exp":
                self.inexact = True
                return _float_ok(math.exp(x))
            fx = float(x)
            if deg:
                fx = math.radians(fx)
            self.inexact = True
            if name in _TRIG:
                return _float_ok(_TRIG[name](fx))
            if name == "cot":
                return _float_ok(1.0 / math.tan(fx))
            if name == "sec":
                return _float_ok(1.0 / math.cos(fx))
            if name == "csc":
                return _float_ok(1.0 / math.sin(fx))
            if name in ("arcsin", "arccos", "arctan"):
                raise _Fail("angle unit of an inverse trig function is ambiguous")
            raise _Fail(f"unknown function {name}")
        except (ValueError, OverflowError, ZeroDivisionError):
            raise _Fail(f"{name} out of domain") from None



def eval_tokens(toks: list[Token], pct_points: bool = False) -> Value | Unparseable:
    """Value | Unparseable for a token list (one expression)."""
    nt = len(toks)
    if nt > MAX_EXPR_TOKENS:
        return Unparseable("too many tokens")
    if 0 < nt <= 2 and toks[-1][0] == "n" and (nt == 1 or toks[0][0] == "$"):  # the common case: a lone literal
        r = literal_value(toks[-1][1])  # "$8" too: the parser reads past the "$" (unary) to the same literal
        return r if r is not None else Unparseable("too many digits")
    if _plain_tokens(toks):  # numerals, + - * / and round brackets only: the parser's reading, without the parser
        try:
            if nt == 3 and toks[1][0] == "o" and toks[0][0] == "n" and toks[2][0] == "n":
                return _plain_binary(toks[0][1], toks[1][1], toks[2][1])
            v, at = _plain_sum(toks, 0, 0)
            if at == nt:
                return _new(Value, (Fraction(v) if type(v) is int else v, big_float(v), True))
        except _NotPlain:
            pass  # a sign, implicit multiplication, an error to explain: the parser says why
    p = _Parser(toks, pct_points)
    try:
        v = p.run()
        if type(v) is not float:
            if p.inexact:
                return _new(Value, (None, big_float(v), False))
            if type(v) is int:
                return _new(Value, (Fraction(v), big_float(v), True))
            return _new(Value, (v, big_float(v), True))
        return _new(Value, (None, _float_ok(v), False))
    except _Fail as f:
        return Unparseable(f.reason)
    except (ZeroDivisionError,):
        return Unparseable("division by zero")
    except (OverflowError, ValueError, TypeError, RecursionError, MemoryError):
        return Unparseable("not evaluable")



def numeral_value(left: str, op: str | None = None, right: str | None = None) -> Value | None:
    """The value :func:`eval_tokens` gives for the tokens of the numeral ``left`` (``[n]``), or of ``left op right``
    with ``op`` one of ``+ - * /`` (``[n, o, n]``), read without a token list; None where it gives none (a literal of
    more than MAX_DIGITS digits, a division by zero). eval_tokens reads these two lists with the same two calls.

    >>> numeral_value("48", "/", "2"), numeral_value(".5"), numeral_value("1", "/", "0")
    (Value(24), Value(0.5), None)
    """
    if op is None:
        return literal_value(left)
    try:
        return _plain_binary(left, op, right)
    except _NotPlain:
        return None  # the parser's reason ("division by zero", "too many digits"): no value


_PLAIN_OPERATORS = frozenset("+-*/")


def _plain_tokens(toks: list[Token]) -> bool:
    """Whether ``toks`` holds only numerals, the operators ``+ - * /``, round brackets, currency signs and the times
    ``x``: the tokens that :func:`_plain_sum` reads exactly as the parser does (it raises :class:`_NotPlain` on
    anything else it meets: a sign, ``(2)3``, ``x`` without an operand after it, a ``$`` after an operand).
    ``pct_points`` changes nothing here: it reads ``%``, which such a list does not hold."""
    for t in toks:
        k = t[0]
        if k == "n":
            continue
        if k == "o":
            if t[1] not in _PLAIN_OPERATORS:
                return False
        elif k == "(":
            if t[1] != "(":
                return False
        elif k == "$" or k == "x":
            continue  # a currency sign before an operand, "x" as times: read as the parser does ("$10 x 2")
        elif k != ")" or t[1] != ")":
            return False
    return True


def has_pct(toks: list[Token]) -> bool:
    for t in toks:
        if t[0] == "%":
            return True
    return False


_PLAIN = re.compile(r"[\d\s.+\-*/()]+")
_PLAIN_TOKEN = re.compile(r"\s*(?:(\d+(?:\.\d+)?|\.\d+)|([-+*/()]))")
_PLAIN_TOKENS = re.compile(r"(?:\s*+(?:\d+(?:\.\d+)?|\.\d+|[-+*/()]))*+\s*+").fullmatch
"""A text that is ``_PLAIN_TOKEN`` matches end to end, then whitespace. The repetition is possessive: it takes the
matches ``finditer`` takes (each the first alternative that matches where the last ended, a numeral as long as it
goes) and never gives one back, so it matches exactly when ``finditer`` leaves no gap
(tests/rewards/checks/test_extraction_fast_paths.py compares it with the finditer loop it replaces on fuzzed
text)."""
_PLAIN_SIMPLE = re.compile(r"\s*(\d+(?:\.\d+)?|\.\d+)\s*(?:([-+*/])\s*(\d+(?:\.\d+)?|\.\d+)\s*)?")
"""A lone numeral or ``a op b`` (with fullmatch): the token lists ``[n]`` and ``[n, o, n]`` that :func:`_plain_value`
would read with its token loop, in one match (a numeral ends only where no digit or ".digit" follows it, so the split
is the loop's). Most sides the dataflow evaluates are one of the two (``48/2``, ``0.2*50``, ``24``)."""
_PLAIN_DEPTH = 16


class _NotPlain(Exception):
    """The text needs the full tokenizer and parser (a sign, implicit multiplication, an error to explain)."""


def _plain_value(expr: str) -> Value:
    """The value of plain arithmetic — numerals, ``+ - * /`` and brackets, nothing else — as :func:`eval_tokens`
    gives it, without the tokenizer: the counterfactual propagation evaluates thousands of such sides per batch
    (``(13/60)*51``, ``10+4(3/1)``: a bracket after an operand multiplies, as in the parser). Raises
    :class:`_NotPlain` for anything it does not read exactly as the parser does (a unary sign, ``(2)3``, a number too
    long or too large, division by zero, an empty text): the caller then runs the parser, so every value and every
    reason stays the parser's."""
    # each token where the last ended (a gap is a character no token reads, "5." or "1 . 5"), then only whitespace:
    # _PLAIN_TOKENS checks that in one match, then findall reads the tokens (the same matches, in C)
    if _PLAIN_TOKENS(expr) is None:
        raise _NotPlain
    tokens = [("n", number) if number else ("o", op) for number, op in _PLAIN_TOKEN.findall(expr)]
    if not tokens or len(tokens) > MAX_EXPR_TOKENS:
        raise _NotPlain
    if len(tokens) == 1:
        if tokens[0][0] != "n":
            raise _NotPlain
        value = literal_value(tokens[0][1])
        if value is None:
            raise _NotPlain
        return value
    if len(tokens) == 3 and tokens[0][0] == "n" and tokens[2][0] == "n" and tokens[1][1] in _PLAIN_OPS:
        return _plain_binary(tokens[0][1], tokens[1][1], tokens[2][1])
    v, at = _plain_sum(tokens, 0, 0)
    if at != len(tokens):
        raise _NotPlain
    return _new(Value, (Fraction(v) if type(v) is int else v, big_float(v), True))


_PLAIN_OPS = ("+", "-", "*", "/")


def _plain_binary(left: str, op: str, right: str) -> Value:
    """``a op b`` with two numerals, the commonest plain side (``48/2``, ``0.2*50``, an edited ``49/2``): what
    :func:`_plain_sum` gives for these three tokens, without its descent."""
    a, b = num_exact(left), num_exact(right)
    if a is None or b is None:
        raise _NotPlain
    if op == "+":
        v = a + b
    elif op == "-":
        v = a - b
    elif op == "*":
        v = a * b
    elif b == 0:
        raise _NotPlain
    else:
        v = _div(a, b)
    # no bits check and a plain float(): two literals of at most MAX_DIGITS digits combine into a numerator and a
    # denominator below 10**(2 * MAX_DIGITS + 1), far below 2**MAX_BITS and float's range (checked at import below)
    return _new(Value, (Fraction(v) if type(v) is int else v, float(v), True))


if 7 * (2 * MAX_DIGITS + 1) // 2 + 1 > min(MAX_BITS, 1023):  # 10**k < 2**(3.5k): the bound _plain_binary relies on
    raise ImportError("parser._plain_binary: MAX_DIGITS is too large for its unchecked a op b; restore _plain_bits")


# The recursive descent of :func:`_plain_value` as module functions that pass the position along (``(value, next
# position)``): nested functions that call each other would form a reference cycle (function -> cell -> function)
# on every call, garbage that only the cyclic collector frees — on the scorer's hot path that was most of what
# made Python's collector run (measured: 243,502 cyclic objects for 2,000 GSM8K traces, all from here).
def _plain_operand(tokens: list[tuple[str, str]], at: int, depth: int):
    if at >= len(tokens):
        raise _NotPlain
    token = tokens[at]  # a (kind, text) pair, or a Token (eval_tokens): read by index
    kind, text = token[0], token[1]
    at += 1
    while kind == "$":  # "$10" (a Token list only): the parser's unary reads past a currency sign
        if at >= len(tokens):
            raise _NotPlain
        token = tokens[at]
        kind, text = token[0], token[1]
        at += 1
    if kind == "n":
        q = num_exact(text)
        if q is None:
            raise _NotPlain
    elif text == "(" and depth < _PLAIN_DEPTH:
        q, at = _plain_sum(tokens, at, depth + 1)
        if at >= len(tokens) or tokens[at][1] != ")":
            raise _NotPlain
        at += 1
    else:
        raise _NotPlain  # a sign, an empty or too deep bracket
    if at < len(tokens) and tokens[at][0] == "n":
        raise _NotPlain  # "2 3", "(2)3": the parser says why not
    return q, at


def _plain_product(tokens: list[tuple[str, str]], at: int, depth: int):
    v, at = _plain_operand(tokens, at, depth)
    while at < len(tokens):
        token = tokens[at]
        if token[1] == "(":  # "4(3/1)", "(2)(3)": implicit multiplication, as the parser's term reads "(" after an
            r, at = _plain_operand(tokens, at, depth)  # operand (its operand, the bracket, is read the same way)
            v = v * r
            _plain_bits(v)
            continue
        if token[0] == "x":  # "0.2 x 50" (a Token list only): times, as the parser reads it, before an operand
            if at + 1 >= len(tokens) or tokens[at + 1][0] not in _X_OPERANDS:
                raise _NotPlain  # "11 x": a free variable, the parser says so
            op = "*"
        elif token[1] in "*/":
            op = token[1]
        else:
            break
        r, at = _plain_operand(tokens, at + 1, depth)
        if op == "*":
            v = v * r
        elif r == 0:
            raise _NotPlain
        else:
            v = _div(v, r)
        _plain_bits(v)
    return v, at


_X_OPERANDS = ("n", "(", "$")  # of the parser's operands after "x" (n ( { $ c), those a plain token list holds


def _plain_sum(tokens: list[tuple[str, str]], at: int, depth: int):
    v, at = _plain_product(tokens, at, depth)
    while at < len(tokens) and tokens[at][1] in "+-":
        op = tokens[at][1]
        r, at = _plain_product(tokens, at + 1, depth)
        v = v + r if op == "+" else v - r
        _plain_bits(v)
    return v, at


def _plain_bits(v) -> None:
    if _too_large(v):
        raise _NotPlain


def evaluate_ex(expr: str) -> Value | Unparseable:
    """Like :func:`evaluate`, but say why there is no value."""
    try:
        if not isinstance(expr, str):
            return Unparseable("not a string")
        if len(expr) > MAX_EXPR_CHARS:
            return Unparseable("expression too long")
        if _PLAIN.fullmatch(expr):
            try:
                simple = _PLAIN_SIMPLE.fullmatch(expr)
                if simple is None:
                    return _plain_value(expr)
                left, op, right = simple.groups()
                if op is not None:
                    return _plain_binary(left, op, right)
                value = literal_value(left)
                if value is not None:
                    return value
            except _NotPlain:
                pass
        toks: list[Token] = []
        tokenize(expr, 0, len(expr), False, toks, True)
        # leading labels ("\text{Total}") are not part of the value
        toks = [t for t in toks if t[0] != "|" or t[1] != "\n"]
        for t in toks:
            if t[0] == "|":
                return Unparseable(f"unexpected {t[1]!r}")
            if t[0] == "=":
                return Unparseable("contains a relation")
        return eval_tokens(toks)
    except Exception as exc:  # noqa: BLE001 - never raise on model output (unless RAFS_STRICT)
        internal_error("evaluate_ex", expr, exc)
        return Unparseable("internal error")


def evaluate(expr: str) -> Value | None:
    """Evaluate one numeric expression exactly; None if it is not a bounded pure number."""
    r = evaluate_ex(expr)
    return r if isinstance(r, Value) else None
