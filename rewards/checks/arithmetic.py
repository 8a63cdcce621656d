r"""Safe, bounded, exact arithmetic over the equations that reasoning steps state.

This is the core of the symbolic step verifier (DESIGN.md §2): every equation a step states is
evaluated with exact rational arithmetic (:class:`fractions.Fraction`).  Model output is untrusted,
so nothing here ever calls ``eval``/``exec``/``sympify``: text is split by a small tokenizer and
evaluated by a recursive-descent (precedence-climbing) parser whose every resource is bounded.

Public API
----------
``evaluate(expr) -> Value | None``
    one expression (no ``=``); ``None`` when it is not a pure numeric expression (a free variable,
    unparseable, unbounded, division by zero).  ``evaluate_ex`` returns an :class:`Unparseable`
    reason instead of ``None``.
``parse_number(token) -> Fraction | None``
    one number literal with thousands separators, ``%``, currency and units.
``extract_equations(text) -> list[Equation]``
    every equation chain ``A = B = C`` a step states: in plain text, in LaTeX math and in GSM8K
    calculator annotations ``<<a=b>>``.
``check_equation(eq) -> EquationCheck``
    are the adjacent evaluable sides equal (exactly, or within a documented rounding tolerance)?
``check_text(text) -> list[EquationCheck]``
    ``extract_equations`` + ``check_equation``.
``numbers_in(text) -> list[tuple[Fraction, tuple[int, int]]]``
    every numeric literal (and number word) with its character span.
``error_counts() -> dict[str, int]``
    internal errors caught so far in this process (see "Errors" below; ``RAFS_STRICT=1`` raises them).

Grammar (what :func:`evaluate` accepts)
---------------------------------------
::

    expr    := term (('+' | '-' | 'plus' | 'minus') term)*
    term    := unary (('*' | '/' | 'x' | 'of' | 'times' | 'divided by' | 'multiplied by'
                        | <implicit: '(' ... , \sqrt, \frac, \pi>) unary)*   ; unit words skipped
    unary   := ('-' | '+' | currency) unary | power
    power   := postfix ('^' unary)?                                   ; right associative
    postfix := primary ('!' | '%' | '°')*
    primary := NUMBER | '(' expr ')' | '[' expr ']' | '{' expr '}' | '|' expr '|'
             | \frac A B | \sqrt[n] A | \binom A B | \lfloor expr \rfloor | \lceil expr \rceil
             | \pi | FUNC ARG | \boxed A | INT \frac A B (a mixed number: 3\frac{4}{5} = 19/5)

* Numbers: ``12``, ``2.5``, ``.5``, ``1,234.50`` (commas only in groups of three); at most
  30 digits.  Scientific notation is not read.
* Operators: ``+ - * / ^ **``, ``mod``/``\bmod`` (integers), ``x``/``X`` between two
  operands, ``× · ⋅ ÷ −``, ``–`` between spaces, ``\times \cdot \div``, ``²``/``³``, ``!``
  (factorial), ``%`` (= /100; ``50% of 80`` = 40), ``plus minus times of``, ``divided by``.
* LaTeX: ``\frac{3}{4}``, ``\dfrac``, ``\tfrac``, ``\frac34``, ``^{2}``, ``\sqrt{16}``,
  ``\sqrt[3]{27}``, ``\binom{n}{k}``, ``\left( \right)``, ``{}`` groups, ``\,`` spaces,
  ``\text{..}``/``\mbox``/``\mathrm`` units dropped, ``\%``, ``\$``, ``\boxed{}``.
* Irrational functions (``\sqrt`` of a non-square, ``\sin \cos \tan \log \ln \exp``, ``\pi``)
  are evaluated in floating point and the result is marked inexact (``Value.is_exact`` False).
  ``\log`` without a base is base 10, ``\log_2 8``, ``\ln``; exact powers give exact logs.
  ``^\circ`` / ``°`` mark degrees (used by trig functions, ignored elsewhere).
  ``e`` is a variable, not Euler's number (models use ``e`` as a name far more often).
* Currency (``$ € £ ¥ ₹ \$``) is dropped; unit words after a number (``12 dollars``, ``5 cm``,
  ``$3.50/hour``) are dropped; a single letter is a free variable and makes the value ``None``.

>>> evaluate("16 - 3 - 4").exact
Fraction(9, 1)
>>> evaluate(r"\frac{3}{4} \times 8").exact
Fraction(6, 1)
>>> evaluate("50% of 80").exact, evaluate("$1,200 + $3.50").exact
(Fraction(40, 1), Fraction(2407, 2))
>>> evaluate("2(3+4)").exact, evaluate("3 x 4").exact, evaluate("2^10").exact
(Fraction(14, 1), Fraction(12, 1), Fraction(1024, 1))
>>> evaluate(r"\sqrt[3]{27} + \binom{5}{2} + 4!").exact
Fraction(37, 1)
>>> v = evaluate(r"\sqrt{2}"); v.is_exact, round(v.approx, 6)
(False, 1.414214)
>>> evaluate("x + 3") is None, evaluate("1/0") is None, evaluate("9**9**9**9") is None
(True, True, True)
>>> evaluate_ex("1/0")
Unparseable(reason='division by zero')
>>> [(e.sides, e.source) for e in extract_equations("She sells 16 - 3 - 4 = 9 eggs.")]
[(['16 - 3 - 4', '9'], 'plain')]
>>> [e.sides for e in extract_equations("so 9 * 2 = $18 per day")]
[['9 * 2', '$18']]
>>> [e.sides for e in extract_equations(r"This gives \(3 \times 4 = 12\) and <<12/4=3>>3.")]
[['12/4', '3'], ['3 \\times 4', '12']]
>>> check_equation(extract_equations("3 * 4 = 13")[0]).detail
'3 * 4 evaluates to 12, not 13'
>>> check_equation(extract_equations("10/3 = 3.33")[0]).ok
True
>>> [(n, s) for n, s in numbers_in("He buys 1,200 eggs for $3.50, twice.")]
[(Fraction(1200, 1), (8, 13)), (Fraction(7, 2), (24, 28)), (Fraction(2, 1), (30, 35))]

Extraction (``extract_equations``)
----------------------------------
Equations come from three places: GSM8K calculator annotations ``<<a=b>>`` (source
"annotation": the '='-separated parts are the sides), LaTeX math (``$..$``, ``$$..$$``,
``\(..\)``, ``\[..\]``, ``align``/``equation``/``gather`` environments with ``&=`` and ``\\``;
source "latex") and the prose around them (source "plain").  In prose a side extends from the
``=`` over numbers, operators, brackets, currency and LaTeX commands and stops at words and
punctuation; a unit word or short unit phrase after a number ("200 pink calla lilies / 5",
"$3.50/hour") is kept inside an expression and dropped at its ends.  Where a side cannot be read
whole, its value is None rather than a guess - a false alarm costs more than a missed check:

* an operator or keyword had to be cut off ("50 students - 10 baking - 5 = 35", "his 1 teacher +
  1 = 27"), or the expression runs into another number ("3 1/2 - 2 = 1 1/2", "$350 000 x 5/100");
* a lone number right after prose is a description, not a calculation ("4 students drank 1.5
  quarts = 4 * 1.5 = 6": only ``4 * 1.5 = 6`` is checked);
* ``A = B`` where both sides carry different units ("100 cents = $1", "12 inches = 1 foot"), or a
  lone number with a unit on the left of an expression ("5 pairs = 5 * 2"), is a conversion, and
  that pair is not checked;
* in math mode every letter is a variable (``2xy``, ``\alpha``, ``\theta``); ``\cdots``/``...``,
  ``\pm``, ``\angle`` etc. make a side non-numeric instead of ending it.

Equality (``check_equation``)
-----------------------------
Adjacent evaluable sides must be equal.  Two exact values must be identical, except where a side
is a *written decimal literal* (a lone number, possibly with currency/unit/percent) with ``k``
decimal places and the other side's exact value has more than ``k`` places: then the literal is
accepted as that value rounded to nearest or truncated toward zero at ``k`` places, and for
``k = 0`` also rounded up (a whole number of buses, boxes, people): ``10/3 = 3.33``,
``10/3 = 3.3``, ``2/3 = 0.67``, ``2/3 = 0.66``, ``100/3 = 33`` and ``7/2 = 4`` hold, while
``3*4 = 13``, ``7/2 = 3.4``, ``1/3 = 0.34`` and ``\sqrt{2} = 1.5`` do not.  A side containing
``%`` is also compared with ``%`` read as "percent points" (``40/80*100 = 50%`` holds as well as
``0.5 = 50%``); a side made only of percentages next to a side without any ("48 = 100% + 20%")
is a correspondence, not checked.  Inexact (float) values use a relative tolerance of 1e-6 (or
the literal's rounding rule).  ``≈``/``\approx`` use a relative tolerance of 1e-2 (or the
literal's rounding rule).

Bounds (why: model output is untrusted and this runs on the GRPO reward hot path)
--------------------------------------------------------------------------------
* ``MAX_EXPR_CHARS`` = 400 characters per expression and ``MAX_EXPR_TOKENS`` = 200 tokens per side;
* ``MAX_DIGITS`` = 30 digits per number literal;
* integer exponents ``|n| <= 1024`` and every exact intermediate's numerator and denominator
  below ``2**MAX_BITS`` (4096 bits), checked *before* a power is computed: no ``10^10^10``
  bignum blow-up (the bit bound is the real guard; 1024 rather than 64 so that MATH's
  ``2^{110}`` and ``(2 \times 3)^{210}`` are read); roots of index ``<= 64``;
* nesting depth ``MAX_DEPTH`` = 40 (no RecursionError);
* factorial ``n <= 100`` (525 bits; 100 rather than 50 so that card problems' ``52!`` are read),
  ``\binom`` ``n <= 1000``;
* ``extract_equations``/``numbers_in`` read only the first ``MAX_TEXT_CHARS`` = 100,000
  characters of a text; every scan is linear (no backtracking regex over unbounded spans).

Errors (``RAFS_STRICT``)
------------------------
Every public function catches its own failures and returns ``None``/``[]`` (``Unparseable("internal
error")`` for ``evaluate_ex``, a ``None`` check for ``check_equation``): a reward must never crash a
training run.  An exception there is a bug in this module, not a property of the input, so it is not
silent: it is counted per ``"function:ErrorType"`` in :func:`error_counts` (per process; a reward's
metrics can log it), and logged on :data:`logging.getLogger("rewards.checks.arithmetic")` with the
traceback and a truncated ``repr`` of the input that caused it, once per function and error type per
process (no log flood on a hot path).  With the environment variable ``RAFS_STRICT=1`` (also
``true``/``yes``/``on``) the exception is re-raised instead, after being counted; the test suite sets it
(``tests/conftest.py``), so a parser bug fails the tests rather than reading as "no equation".
"""

from __future__ import annotations

import logging
import math
import os
import re
import threading
from bisect import bisect_right
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Any, NamedTuple

__all__ = [
    "Value",
    "Unparseable",
    "Equation",
    "EquationCheck",
    "evaluate",
    "evaluate_ex",
    "parse_number",
    "extract_equations",
    "check_equation",
    "check_text",
    "numbers_in",
    "MAX_EXPR_CHARS",
    "MAX_TEXT_CHARS",
    "STRICT_ENV",
    "strict_mode",
    "error_counts",
    "reset_error_counts",
]

log = logging.getLogger(__name__)

STRICT_ENV = "RAFS_STRICT"
MAX_REPR_CHARS = 200  # of the offending input, in the log line
_errors_lock = threading.Lock()
_error_counts: dict[str, int] = {}
_errors_logged: set[str] = set()


def strict_mode() -> bool:
    """``RAFS_STRICT`` is set to ``1``/``true``/``yes``/``on``: internal errors are re-raised, not swallowed."""
    return os.environ.get(STRICT_ENV, "").strip().lower() in ("1", "true", "yes", "on")


def error_counts() -> dict[str, int]:
    """Internal errors swallowed (or raised, under ``RAFS_STRICT``) in this process, by
    ``"function:ErrorType"`` - for a reward's metrics.  A copy; empty when nothing failed."""
    with _errors_lock:
        return dict(_error_counts)


def reset_error_counts() -> None:
    """Forget the counts and which errors were logged (tests; a fresh metrics window)."""
    with _errors_lock:
        _error_counts.clear()
        _errors_logged.clear()


def _short_repr(value: Any) -> str:
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a broken __repr__ must not hide the real error
        text = f"<{type(value).__name__} with a failing repr>"
    return text if len(text) <= MAX_REPR_CHARS else text[:MAX_REPR_CHARS] + f"... ({len(text)} chars)"


def _internal_error(func: str, value: Any, exc: BaseException) -> None:
    """Count ``exc`` (raised by public function ``func`` on input ``value``), log it the first time this
    function raises this error type, and re-raise it under ``RAFS_STRICT``; call from the ``except`` block."""
    key = f"{func}:{type(exc).__name__}"
    with _errors_lock:
        _error_counts[key] = _error_counts.get(key, 0) + 1
        first = key not in _errors_logged
        _errors_logged.add(key)
    strict = strict_mode()
    if first:
        log.error("rewards.checks.arithmetic.%s raised %s: %s on input %s; %s (logged once per function and "
                  "error type; counts in rewards.checks.arithmetic.error_counts())", func, type(exc).__name__, exc,
                  _short_repr(value), "re-raised (RAFS_STRICT is on)" if strict else
                  f"returning no result (set {STRICT_ENV}=1 to raise)", exc_info=exc)
    if strict:
        raise exc


MAX_EXPR_CHARS = 400
MAX_EXPR_TOKENS = 200
MAX_TEXT_CHARS = 100_000
MAX_DIGITS = 30
MAX_EXPONENT = 1024
MAX_ROOT = 64
MAX_BITS = 4096
MAX_DEPTH = 40
MAX_FACTORIAL = 100
MAX_BINOM = 1000

INEXACT_REL_TOL = 1e-6
APPROX_REL_TOL = 1e-2


# --------------------------------------------------------------------------------------- values
class Value(NamedTuple):
    """A numeric value: ``exact`` (a Fraction, or None when only a float is known), ``approx``
    (always set) and ``is_exact``."""

    exact: Fraction | None
    approx: float
    is_exact: bool

    def __repr__(self) -> str:  # compact, readable in reports
        return f"Value({display_value(self)})"


class Unparseable(NamedTuple):
    """Why an expression has no value (``evaluate_ex``)."""

    reason: str


class _Fail(Exception):
    __slots__ = ("reason",)

    def __init__(self, reason: str):
        self.reason = reason


def display_value(v: Value | None) -> str:
    if v is None:
        return "?"
    if v.is_exact and v.exact is not None:
        q = v.exact
        if q.denominator == 1:
            return str(q.numerator)
        # terminating decimals read better as decimals
        d = q.denominator
        while d % 2 == 0:
            d //= 2
        while d % 5 == 0:
            d //= 5
        if d == 1 and q.denominator <= 10**12:
            s = f"{float(q):.12f}".rstrip("0").rstrip(".")
            if Fraction(s) == q:
                return s
        return f"{q.numerator}/{q.denominator}"
    return f"{v.approx:.10g}"


# ------------------------------------------------------------------------------------ tokenizer
# A token is a tuple (kind, val, start, end, space_before).  Kinds:
#   n number (val: raw digits, commas removed)   o operator (+ - * / ^)   ( ) open/close (val ( or [)
#   { } braces   % percent   ! factorial   = relation (val '=' or '~' for approx)   $ currency
#   w word (unit or keyword, val lower-case)   v free variable   x the letter x (times or variable)
#   c command (val canonical name)   t \text{...} label/unit   _ subscript   d degree marker
#   | boundary (sentence punctuation, relation other than =, unknown)
_TOK_RE = re.compile(
    r"""
    (\s*)                                                          # 1 leading whitespace
    (?:(\d{1,3}(?:(?:,|,\\!|\{,\})\d{3})+(?!\d)(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)   # 2 number (1,\!000 too)
     |\\(text|mbox|mathrm|textrm|textit|operatorname|mathsf|texttt|hbox|emph|textnormal|textsf|unit)
        (?![A-Za-z])\s*\{([^{}]{0,200})\}                          # 3 name, 4 \text{content}
     |\\([dtc]?frac|[dt]?binom)(?![A-Za-z])[ ]*(\d)[ ]*(\d)        # 5-7 \frac34
     |\\(sqrt)(?![A-Za-z])[ ]*(\d)                                 # 8-9 \sqrt2
     |(\\(?:left|right|bigl|bigr|Bigl|Bigr|big|Big)\.|\\color\s*\{[^{}]{0,30}\})  # 10 layout
     |(\\(?:begin|end)[ ]*\{[^{}\n]{0,30}\}|\\[A-Za-z]+|\\[^A-Za-z]?)  # 11 LaTeX command
     |([A-Za-z]{2,}(?:[ ]+[A-Za-z]{2,}(?![A-Za-z]))*|[A-Za-z])     # 12 word(s)
     |(\*\*|==|\.\.\.|\S)                                          # 13 anything else
    )
    """,
    re.S | re.X,
)
_WS = re.compile(r"\s+")

_CHAR = {
    "+": ("o", "+"), "-": ("o", "-"), "−": ("o", "-"), "*": ("o", "*"), "×": ("o", "*"),
    "✕": ("o", "*"), "⋅": ("o", "*"), "·": ("o", "*"), "∙": ("o", "*"), "∗": ("o", "*"),
    "/": ("o", "/"), "÷": ("o", "/"), "∕": ("o", "/"), "^": ("o", "^"), "**": ("o", "^"),
    "(": ("(", "("), "[": ("(", "["), ")": (")", ")"), "]": (")", "]"),
    "{": ("{", "{"), "}": ("}", "}"), "%": ("%", "%"), "=": ("=", "="), "==": ("=", "="),
    "≈": ("=", "~"), "≃": ("=", "~"), "$": ("$", "$"), "€": ("$", "$"), "£": ("$", "$"),
    "¥": ("$", "$"), "₹": ("$", "$"), "_": ("_", "_"), "°": ("d", "°"), "π": ("c", "pi"),
    "√": ("c", "sqrt"), "...": ("c", "dots"), "…": ("c", "dots"), "∞": ("c", "inf"),
    "'": ("c", "prime"), "|": ("c", "abs"),
    "@": ("c", "at"),  # a custom operator ("a @ b = ..." defined by the problem): not arithmetic
}
_FUNCS = {"sin", "cos", "tan", "cot", "sec", "csc", "arcsin", "arccos", "arctan", "log", "ln",
          "lg", "exp", "sinh", "cosh", "tanh"}
_CMD = {
    "times": ("o", "*"), "cdot": ("o", "*"), "ast": ("o", "*"), "div": ("o", "/"),
    "frac": ("c", "frac"), "dfrac": ("c", "frac"), "tfrac": ("c", "frac"), "cfrac": ("c", "frac"),
    "sqrt": ("c", "sqrt"), "binom": ("c", "binom"), "dbinom": ("c", "binom"),
    "tbinom": ("c", "binom"), "pi": ("c", "pi"), "circ": ("d", "°"), "degree": ("d", "°"),
    "%": ("%", "%"), "$": ("$", "$"), "{": ("(", "("), "}": (")", ")"),
    "approx": ("=", "~"), "simeq": ("=", "~"), "thickapprox": ("=", "~"), "doteq": ("=", "~"),
    "quad": ("|", "quad"), "qquad": ("|", "quad"), "implies": ("|", "=>"), "Rightarrow": ("|", "=>"),
    "Longrightarrow": ("|", "=>"), "rightarrow": ("|", "->"), "to": ("|", "->"), "iff": ("|", "<=>"),
    "neq": ("|", "!="), "ne": ("|", "!="), "le": ("|", "<="), "leq": ("|", "<="), "ge": ("|", ">="),
    "lvert": ("c", "abs"), "rvert": ("c", "abs"), "vert": ("c", "abs"), "lfloor": ("c", "lfloor"),
    "rfloor": ("c", "rfloor"), "lceil": ("c", "lceil"), "rceil": ("c", "rceil"),
    "geq": ("|", ">="), "lt": ("|", "<"), "gt": ("|", ">"), "equiv": ("|", "=="), "pmod": ("c", "pmod"),
    "bmod": ("c", "mod"), "mod": ("c", "mod"), "pm": ("c", "pm"), "mp": ("c", "pm"),
    "\\": ("|", "\\\\"), "(": ("|", "\\("), ")": ("|", "\\)"), "[": ("|", "\\["),
    "]": ("|", "\\]"), "cr": ("|", "\\\\"), "newline": ("|", "\\\\"),
    "cdots": ("c", "dots"), "ldots": ("c", "dots"), "dots": ("c", "dots"), "vdots": ("c", "dots"),
    "and": ("|", "and"), "text": ("t", ""), "mbox": ("t", ""), "mathrm": ("t", ""),
    "textrm": ("t", ""), "textit": ("t", ""), "operatorname": ("t", ""), "mathsf": ("t", ""),
    "texttt": ("t", ""), "hbox": ("t", ""), "emph": ("t", ""), "textnormal": ("t", ""),
    "textsf": ("t", ""), "unit": ("t", ""),
}
for _f in _FUNCS:
    _CMD[_f] = ("c", _f)
# commands that are layout only: dropped entirely (their {} argument becomes a plain group)
_SKIP_CMDS = {"left", "right", "big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl", "Bigr",
              "biggl", "biggr", "displaystyle", "textstyle", "scriptstyle", "boxed", "mathbf",
              "bf", "mathit", "textbf", "bm", "boldsymbol", "color", "limits", "nolimits", "phantom",
              ",", ";", ":", "!", " ", "", "\n", "enspace", "thinspace", "medspace", "hfill", "strut",
              "cancel", "underbrace", "overbrace", "underline", "fbox", "mathbin", "mathrel"}
_UNIT_SHORT = {"cm", "mm", "km", "kg", "mg", "ml", "ft", "yd", "mi", "lb", "lbs", "oz", "hr", "hrs",
               "mph", "kph", "sq", "pm", "am", "gb", "mb", "kb", "kw", "kwh", "usd"}
_KEYWORDS = {"of": "*", "times": "*", "plus": "+", "minus": "-", "divided by": "/",
             "multiplied by": "*"}
# words that make a run of words prose rather than a unit phrase ("pink calla lilies")
_PROSE_WORDS = frozenset(
    "is are was were be been being so and then thus hence therefore which that who gives give "
    "gives get gets got we he she they it its this there these those has have had will would can "
    "could should must if when where since because but or as than equals equal means mean makes "
    "make made let find need needs needed do does did i you our his her their my your now also "
    "not no yes only just what how why left remaining total".split())
_MULTI_KEYWORDS = {"divided by": "divided by", "multiplied by": "multiplied by", "times": "times"}
_WORD_FUNCS = {"mod": ("c", "mod"), "sqrt": ("c", "sqrt"), "pi": ("c", "pi"), "sin": ("c", "sin"),
               "cos": ("c", "cos"), "tan": ("c", "tan"), "log": ("c", "log"), "ln": ("c", "ln"),
               "exp": ("c", "exp")}
_SUPERSCRIPT = {"²": "2", "³": "3", "¹": "1", "⁴": "4"}
_TEXT_SEP = re.compile(r"[,.;:?!]|\b(?:and|so|then|or|thus|which|is|are|we|get|gives|to)\b", re.I)
_ALIGN_CONT = re.compile(r"\s*&\s*=")
_TEXT_QTY = re.compile(r"\s*\$?\s*[\d.,]+\s*%?\s*[A-Za-z]{0,12}\s*$")

# characters that can start or end an expression: used to skip text quickly
_END_KINDS = frozenset("n)}%!vxdt")
_START_KINDS = frozenset("n({$cvx")


def _tokenize(text: str, pos: int, end: int, latex: bool, out: list, bang: bool = False) -> None:
    """Append the tokens of ``text[pos:end]`` to ``out``.  ``latex``: inside math mode (letters
    are variables, newlines are spaces, ``!`` is always factorial).  ``bang``: ``!`` right after
    an operand is a factorial (a lone expression, not prose)."""
    append = out.append
    prev_kind = out[-1][0] if out else ""
    for m in _TOK_RE.finditer(text, pos, end):
        g = m.lastindex
        s = m.start(g) if g > 1 else m.start()
        pos = m.end()
        if latex:
            sp = False
        else:
            sp = s > m.start() or prev_kind == ""
            if sp and "\n" in text[m.start():s]:
                append(("|", "\n", m.start(), s, True))
                prev_kind = "|"
        if g == 2:
            raw = m.group(2)
            if "," in raw:
                raw = raw.replace(",", "").replace("\\!", "").replace("{}", "")
            tok = ("n", raw, s, pos, sp)
        elif g == 12:
            w = m.group(12)
            lw = w.lower()
            if " " in w:
                # a run of words: in prose a unit phrase ("pink calla lilies") or a boundary
                if latex:
                    tok = ("v", w, s, pos, sp)
                elif lw in _MULTI_KEYWORDS:
                    tok = ("w", _MULTI_KEYWORDS[lw], s, pos, sp)
                else:
                    parts = lw.split()
                    if len(parts) > 3 or not _PROSE_WORDS.isdisjoint(parts):
                        tok = ("|", lw, s, pos, sp)  # prose, not a unit phrase
                    else:
                        tok = ("w", lw, s, pos, sp)
            elif lw in _WORD_FUNCS and (latex or len(w) > 1):
                k, v = _WORD_FUNCS[lw]
                tok = (k, v, s, pos, sp)
            elif w == "x" or w == "X":
                tok = ("x", "x", s, pos, sp)
            elif latex or len(w) == 1:
                tok = ("v", w, s, pos, sp)
            elif not sp and prev_kind == "n" and lw not in _UNIT_SHORT:
                tok = ("v", w, s, pos, sp)  # 2xy: juxtaposed letters are variables
            elif len(w) == 2 and lw not in _UNIT_SHORT and lw not in _KEYWORDS and lw != "by":
                tok = ("|", lw, s, pos, sp)  # short English word: a boundary
            else:
                tok = ("w", lw, s, pos, sp)
        elif g == 13:
            ch = m.group(13)
            kv = _CHAR.get(ch)
            if kv is not None:
                tok = (kv[0], kv[1], s, pos, sp)
            elif ch in _SUPERSCRIPT:
                append(("o", "^", s, pos, sp))
                tok = ("n", _SUPERSCRIPT[ch], s, pos, False)
            elif ch == "–":
                # en dash: a minus between spaces ("22 – 7"), else a range or a dash ("5–7")
                if sp and pos < end and text[pos] in " \t":
                    tok = ("o", "-", s, pos, sp)
                else:
                    tok = ("|", ch, s, pos, sp)
            elif ch == "!":
                # factorial in math mode, or right after an operand when an operand/operator follows
                if latex or (bang and not sp):
                    tok = ("!", "!", s, pos, sp)
                else:
                    j = pos
                    while j < end and text[j] == " ":
                        j += 1
                    nxt = text[j] if j < end else ""
                    if (not sp and prev_kind in "n)}" and nxt and nxt in "=+-*/)^×÷!,<>≈") \
                            or nxt.isdigit() or nxt == "(":
                        tok = ("!", "!", s, pos, sp)
                    else:
                        tok = ("|", "!", s, pos, sp)
            elif ch == "&":
                # alignment: &= or =& are just '='; otherwise a column separator (boundary)
                j = pos
                while j < end and text[j] in " \t":
                    j += 1
                if (j < end and text[j] == "=") or prev_kind == "=":
                    continue
                tok = ("|", "&", s, pos, sp)
            else:
                tok = ("|", ch, s, pos, sp)
        elif g == 11:
            name = m.group(11)[1:]
            if name in _SKIP_CMDS:
                continue  # layout only
            if name == "\\" and _ALIGN_CONT.match(text, pos, end):
                continue  # "a &= b \\ &= c": the chain goes on
            kv = _CMD.get(name)
            if kv is None:
                if name.startswith(("begin", "end")) and "{" in name:
                    tok = ("|", name, s, pos, sp)  # \begin{align}: a boundary
                else:
                    tok = ("c", name, s, pos, sp)  # unknown command: not numeric
            elif kv[0] == "t":  # \text without a braced argument
                tok = ("|", name, s, pos, sp)
            else:
                tok = (kv[0], kv[1], s, pos, sp)
        elif g == 4:
            name = m.group(3)
            content = m.group(4)
            if any(ch.isdigit() for ch in content):
                if not _TEXT_QTY.match(content):  # \text{Ways to choose 4 students}
                    tok = ("c", "text", s, pos, sp)
                else:  # \text{20 minutes}: read its numbers as plain text
                    _tokenize(text, m.start(4), m.end(4), False, out)
                    prev_kind = out[-1][0] if out else ""
                    continue
            else:
                c = content.strip().replace("\\ ", " ")
                if not c:
                    continue
                lc = c.lower()
                if name == "operatorname" and c in _FUNCS:
                    tok = ("c", c, s, pos, sp)
                elif lc in _KEYWORDS:  # \text{ of }
                    tok = ("w", lc, s, pos, sp)
                elif _TEXT_SEP.search(c) or c.count(" ") >= 3:
                    tok = ("|", c, s, pos, sp)
                else:
                    tok = ("t", c, s, pos, sp)
        elif g == 7:  # \frac34
            append(("c", "frac" if "frac" in m.group(5) else "binom", s, m.end(5), sp))
            for gg in (6, 7):
                a, b = m.start(gg), m.end(gg)
                append(("{", "{", a, a, False))
                append(("n", m.group(gg), a, b, False))
                append(("}", "}", b, b, False))
            prev_kind = "}"
            continue
        elif g == 9:  # \sqrt2
            append(("c", "sqrt", s, m.end(8), sp))
            tok = ("n", m.group(9), m.start(9), pos, False)
        elif g == 10:
            continue
        else:  # pragma: no cover - only trailing whitespace is left
            continue
        append(tok)
        prev_kind = tok[0]


# -------------------------------------------------------------------------------------- parsing
# Exact intermediates are ``int`` (fast) or ``Fraction``; inexact ones are ``float``.
def _bits_ok(q):
    if type(q) is int:
        if q.bit_length() > MAX_BITS:
            raise _Fail("number too large")
        return q
    if q.numerator.bit_length() > MAX_BITS or q.denominator.bit_length() > MAX_BITS:
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


@lru_cache(maxsize=8192)
def _num_exact(raw: str):
    """int or Fraction value of a literal, None when too long."""
    if "." not in raw:
        return int(raw) if len(raw) <= MAX_DIGITS else None
    return _num_value(raw)


@lru_cache(maxsize=8192)
def _num_value(raw: str) -> Fraction | None:
    """Exact value of a number literal without commas (``12``, ``2.50``, ``.5``)."""
    if "." in raw:
        ip, _, fp = raw.partition(".")
        if len(ip) + len(fp) > MAX_DIGITS:
            return None
        return Fraction(int(ip or "0") * 10 ** len(fp) + int(fp), 10 ** len(fp))
    if len(raw) > MAX_DIGITS:
        return None
    return Fraction(int(raw))


def _decimals(raw: str) -> int:
    i = raw.find(".")
    return 0 if i < 0 else len(raw) - i - 1


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

    def __init__(self, toks, pct_points: bool = False):
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
                if val == "/" and self.kind() in ("w", "t") and self.peek()[1] not in _KEYWORDS:
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
                if val in _KEYWORDS:
                    op = _KEYWORDS[val]
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
            q = _num_exact(tk[1])
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
            if name in _FUNCS:
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


def _big_float(q: Fraction) -> float:
    try:
        return float(q)
    except OverflowError:
        return math.inf if q > 0 else -math.inf


def _eval_tokens(toks, pct_points: bool = False):
    """Value | Unparseable for a token list (one expression)."""
    nt = len(toks)
    if nt > MAX_EXPR_TOKENS:
        return Unparseable("too many tokens")
    if nt == 1 and toks[0][0] == "n":  # the common case: a lone literal
        r = _literal_value(toks[0][1])
        return r if r is not None else Unparseable("too many digits")
    p = _Parser(toks, pct_points)
    try:
        v = p.run()
        if type(v) is not float:
            if p.inexact:
                return Value(None, _big_float(v), False)
            if type(v) is int:
                return Value(Fraction(v), _big_float(v), True)
            return Value(v, _big_float(v), True)
        return Value(None, _float_ok(v), False)
    except _Fail as f:
        return Unparseable(f.reason)
    except (ZeroDivisionError,):
        return Unparseable("division by zero")
    except (OverflowError, ValueError, TypeError, RecursionError, MemoryError):
        return Unparseable("not evaluable")


@lru_cache(maxsize=8192)
def _literal_value(raw: str) -> Value | None:
    q = _num_value(raw)
    return None if q is None else Value(q, _big_float(q), True)


def _has_pct(toks) -> bool:
    for t in toks:
        if t[0] == "%":
            return True
    return False


def evaluate_ex(expr: str) -> Value | Unparseable:
    """Like :func:`evaluate`, but say why there is no value."""
    try:
        if not isinstance(expr, str):
            return Unparseable("not a string")
        if len(expr) > MAX_EXPR_CHARS:
            return Unparseable("expression too long")
        toks: list = []
        _tokenize(expr, 0, len(expr), False, toks, True)
        # leading labels ("\text{Total}") are not part of the value
        toks = [t for t in toks if t[0] != "|" or t[1] != "\n"]
        for t in toks:
            if t[0] == "|":
                return Unparseable(f"unexpected {t[1]!r}")
            if t[0] == "=":
                return Unparseable("contains a relation")
        return _eval_tokens(toks)
    except Exception as exc:  # noqa: BLE001 - never raise on model output (unless RAFS_STRICT)
        _internal_error("evaluate_ex", expr, exc)
        return Unparseable("internal error")


def evaluate(expr: str) -> Value | None:
    """Evaluate one numeric expression exactly; None if it is not a bounded pure number."""
    r = evaluate_ex(expr)
    return r if isinstance(r, Value) else None


_NUMBER_TOKEN = re.compile(
    r"\s*(?:\\?[$€£¥₹])?\s*([-−+]?)\s*(?:\\?[$€£¥₹])?\s*"
    r"(\d{1,3}(?:,\d{3})+(?!\d)(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)\s*(\\?%)?\s*(?:[A-Za-z][A-Za-z .]*)?\s*$"
)


def parse_number(token: str) -> Fraction | None:
    """One number literal: ``1,234.50``, ``$1,200``, ``50%`` (-> 1/2), ``12 dollars``, ``-7``.

    >>> parse_number("$1,234.50"), parse_number("50%"), parse_number("5 cm"), parse_number("x")
    (Fraction(2469, 2), Fraction(1, 2), Fraction(5, 1), None)
    """
    try:
        if not isinstance(token, str) or len(token) > MAX_EXPR_CHARS:
            return None
        m = _NUMBER_TOKEN.match(token)
        if m is None:
            return None
        q = _num_value(m.group(2).replace(",", ""))
        if q is None:
            return None
        if m.group(1) in ("-", "−"):
            q = -q
        if m.group(3):
            q = q / 100
        return q
    except Exception as exc:  # noqa: BLE001 - never raise on model output (unless RAFS_STRICT)
        _internal_error("parse_number", token, exc)
        return None


# ----------------------------------------------------------------------------------- equations
@dataclass(frozen=True)
class Equation:
    """An equation chain ``A = B = C`` stated in a step.

    ``sides``: raw text of each side; ``values``: each side's value (None: not numeric);
    ``span``: character span in the step; ``source``: "annotation" | "latex" | "plain";
    ``relations``: the relation between each adjacent pair ("=" or "≈");
    ``approximate``: any relation is ``≈``/``\\approx``.
    """

    sides: list
    values: list
    span: tuple
    source: str
    relations: tuple = ()
    approximate: bool = False
    # internal: for each side, (its tokens, its tokens with unit words) for check_equation
    _toks: tuple = field(default=(), repr=False, compare=False)


@dataclass(frozen=True)
class EquationCheck:
    """``ok``: True (every evaluable adjacent pair is equal), False (some pair is not), None (no
    pair could be evaluated).  ``detail``: a human-readable sentence.  ``pairs``: per adjacent
    pair, True/False/None."""

    equation: Equation
    ok: bool | None
    detail: str
    pairs: tuple = ()
    variable: str | None = None  # set by identity checks: the variable the sides were compared as functions of


# joinability of adjacent tokens (a, b) in text order within one side of an equation
def _joinable(a, b) -> bool:
    ka = a[0]
    kb = b[0]
    if ka == "|" or kb == "|" or ka == "#" or kb == "#":
        return False
    if kb == "(" and b[4] and ka in "n)}%!":
        return False
    if kb == "w":
        wb = b[1]
        if wb in _KEYWORDS:
            return ka in _END_KINDS and ka != "t"
        if ka == "w":
            return a[1] == "per" or wb == "per"
        # a unit word: after a number (or a per-unit slash)
        return ka in "n%)}" or (ka == "o" and a[1] == "/")
    if ka == "w":
        wa = a[1]
        if wa in _KEYWORDS:
            return kb in _START_KINDS or kb == "o" and b[1] == "-"
        # a unit word continues only into an operator/relation
        return kb in "o=)}%" or kb == "t"
    if kb == "n":
        if ka == "!":
            return not b[4]  # 5!3!
        if ka == "n" or ka == "%" or ka == ")" or ka == "d":
            return False
        if ka == "}" or ka == "t":
            return False
        if ka == "v":
            return not b[4]
        return True
    if ka == "v" or kb == "v":
        if ka == "v" and kb == "v":
            return not b[4]
        if ka == "v":
            return kb in "o=)}(_{!c" and (kb not in "({c" or not b[4]) or kb == "o"
        # kb == 'v'
        return ka in "o=({c$_x" or (ka in "n)}" and not b[4])
    if kb == "$":
        return ka in "o=({x" or (ka == "w" and a[1] in _KEYWORDS)
    if ka == "$":
        return kb in "n({c"
    if kb == "t":
        return ka in "n%)}d" or (ka == "o" and a[1] == "/") or ka == "t"
    if ka == "t":
        return kb in "o=)}t"
    return True


def _walk_back(toks, e: int, lo: int) -> int:
    """Start index of the side that ends at token e-1 (side = toks[start:e])."""
    j = e - 1
    if j < lo or not _joinable(toks[j], toks[e]):
        return e
    depth = 0
    while j >= lo:
        k = toks[j][0]
        if k == ")" or k == "}":
            depth += 1
        elif k == "(" or k == "{":
            depth -= 1
            if depth < 0:
                return j + 1
        if j == lo or not _joinable(toks[j - 1], toks[j]) or toks[j - 1][0] == "=":
            return j
        j -= 1
    return lo


def _walk_fwd(toks, e: int, hi: int) -> int:
    """End index (exclusive) of the side that starts at token e+1."""
    j = e + 1
    if j >= hi or not _joinable(toks[e], toks[j]):
        return e + 1
    depth = 0
    while j < hi:
        k = toks[j][0]
        if k == "(" or k == "{":
            depth += 1
        elif k == ")" or k == "}":
            depth -= 1
            if depth < 0:
                return j
        if j + 1 >= hi or toks[j + 1][0] == "=" or not _joinable(toks[j], toks[j + 1]):
            return j + 1
        j += 1
    return hi


_LEAD_TRIM = frozenset("wt)}o%!=dx")
_TRAIL_TRIM = frozenset("wt({o$=_c")
_PARTIAL_KINDS = frozenset("o=x_")
_ARG_CMDS = frozenset({"frac", "sqrt", "binom", "mod"} | _FUNCS)


def _trim(toks, a: int, b: int):
    """Drop leading/trailing tokens that cannot begin/end an expression (units, operators).

    Returns (a, b, partial): ``partial`` when an operator had to be dropped, i.e. the written
    expression extends into words we cannot read ("200 pink lilies / 5") - such a side is
    not evaluated (a false alarm is worse than a missed check)."""
    partial = False
    worded = False
    while a < b:
        t = toks[a]
        k = t[0]
        if k == "x" and (a + 1 >= b or toks[a + 1][0] not in "n($c{"):
            break  # "x = 5": a variable, not "times"
        if k in _LEAD_TRIM and not (k == "o" and (t[1] == "-" or t[1] == "+") and not worded):
            if k in _PARTIAL_KINDS or k == ")" or k == "}" or (k == "w" and t[1] in _KEYWORDS):
                partial = True
            elif k == "w" or k == "t":
                worded = True  # "\text{Chenny's Age} - 4": the words are part of the side
            a += 1
        else:
            break
    while b > a:
        t = toks[b - 1]
        k = t[0]
        if k in _TRAIL_TRIM and not (k == "c" and t[1] not in _ARG_CMDS):
            if k in _PARTIAL_KINDS or k == "(" or k == "{" or k == "c":
                partial = True
            b -= 1
        else:
            break
    return a, b, partial


class _Meta(NamedTuple):
    dec: int  # decimals of a lone literal side (e.g. "$3.50" -> 2), -1 otherwise
    pts: Value | None  # the value with p% read as p, when the side has a percent
    units: tuple  # unit words and currency of the side
    pct: int = 0  # 0: no percent sign, 1: some, 2: every number is a percentage ("100% + 20%")
    additive: bool = False  # a + or - between terms ("4 pounds - 6 ounces": mixed units, a conversion)


_NO_META = _Meta(-1, None, (), 0)


def _side_meta(toks, full) -> _Meta:
    """``toks``: the trimmed side; ``full``: the side with its unit words."""
    dec = -1
    nnum = 0
    lone = True
    for t in toks:
        k = t[0]
        if k == "n":
            nnum += 1
        elif k not in "$%wt" and not (k == "o" and t[1] in "+-"):
            lone = False
            break
    if lone and nnum == 1:
        first = toks[0]
        if first[0] == "n" or first[0] == "$" or (first[0] == "o" and first[1] in "+-"):
            ops = sum(1 for t in toks if t[0] == "o")
            if ops == 0 or (ops == 1 and (first[0] == "o" or (len(toks) > 1 and toks[1][0] == "o"))):
                for t in toks:
                    if t[0] == "n":
                        dec = _decimals(t[1])
    units = tuple(sorted({t[1] for t in full if t[0] in "$wt" and t[1] not in _KEYWORDS}))
    pts = None
    pct = 0
    if _has_pct(toks):
        r = _eval_tokens(toks, pct_points=True)
        if isinstance(r, Value):
            pts = r
        pct = 2
        for j, t in enumerate(toks):
            if t[0] == "n" and (j + 1 >= len(toks) or toks[j + 1][0] != "%"):
                pct = 1
                break
    additive = any(t[0] == "o" and t[1] in "+-" for t in toks[1:])
    return _Meta(dec, pts, units, pct, additive)


_WORDY = frozenset("wv")


def _chains(text: str, toks: list, source: str, out: list, plain_text: str | None = None,
            budget: list | None = None) -> None:
    n = len(toks)
    src = plain_text if plain_text is not None else text
    eq_idx = [j for j in range(n) if toks[j][0] == "="]
    if not eq_idx:
        return
    done = -1
    for e in eq_idx:
        if e <= done:
            continue
        start = _walk_back(toks, e, 0)
        sides = []
        if start < e:
            sides.append((start, e))
        while True:
            end = _walk_fwd(toks, e, n)
            if end > e + 1:
                sides.append((e + 1, end))
            if end < n and toks[end][0] == "=":
                e = end
                continue
            break
        done = e
        clean = []
        last = len(sides) - 1
        for idx, (a, b) in enumerate(sides):
            a2, b2, partial = _trim(toks, a, b)
            if a2 >= b2:
                continue
            if idx == 0 and a > 0:
                # the expression runs on to the left ("30/100%1000", "3 1/2", "$350 000")
                pk = toks[a - 1][0]
                if pk in "n%!)}d#" or (pk == "$" and toks[a2][0] == "n"):
                    partial = True
                elif pk in "wvt" or (pk == "|" and toks[a - 1][1][:1].isalpha()):
                    if toks[a2][0] == "o":  # "50 students - 10 baking - 5 = 35"
                        partial = True
                    else:  # "25 classmates + his 1 teacher + 1 = 27"
                        j = a - 1
                        while j > 0 and a - j <= 3 and toks[j][0] in "wv":
                            j -= 1
                        kj = toks[j][0]
                        if kj == "o" or (kj == "x" and j > 0 and toks[j - 1][0] in _END_KINDS):
                            partial = True
            if idx == last and b < n:
                nk = toks[b][0]
                if nk in "n({$#" and not (nk == "$" and toks[b2 - 1][0] == "$") and \
                        not (nk == "(" and toks[b][4] and source != "latex"):
                    partial = True
            clean.append((a2, b2, partial, a, b))
        if len(clean) < 2:
            continue
        if budget is not None:
            budget[2] -= len(clean)
            if budget[2] < 0:
                return
        rel_list = []
        for j in range(len(clean) - 1):
            approx = False
            for q in range(clean[j][1], clean[j + 1][0]):
                if toks[q][0] == "=" and toks[q][1] == "~":
                    approx = True
            rel_list.append("≈" if approx else "=")
        vals = []
        texts = []
        side_toks = []
        for idx, (a, b, partial, orig_a, orig_b) in enumerate(clean):
            st = toks[a:b]
            full = toks[orig_a:orig_b]
            side_toks.append((st, full))
            r = None if partial else _eval_tokens(st)
            if r.__class__ is Value:
                if idx == 0 and source == "plain" and orig_a > 0:
                    # "4 students drank 1.5 quarts = 4 * 1.5": a lone number right after prose
                    # is a description, not the left side of a calculation
                    pt = toks[orig_a - 1]
                    if (pt[0] in _WORDY or (pt[0] == "|" and pt[1][:1].isalpha())) and \
                            _side_meta(st, full).dec >= 0:
                        r = None
                vals.append(r if r.__class__ is Value else None)
            else:
                vals.append(None)
            raw = src[toks[a][2]:toks[b - 1][3]]
            if plain_text is not None and "  " in raw:
                raw = _WS.sub(" ", raw)
            texts.append(raw)
        out.append(Equation(texts, vals, (toks[clean[0][0]][2], toks[clean[-1][1] - 1][3]), source,
                            tuple(rel_list), "≈" in rel_list, tuple(side_toks)))


_ANNOT_RE = re.compile(r"<<([^<>\n]{0,400}?)>>")
_ENVS = r"(?:align|aligned|equation|gather|gathered|eqnarray|multline|split|flalign|alignat)\*?"
_MATH_DELIM = re.compile(
    r"\\\$|\$\$|\$|\\\[|\\\]|\\\(|\\\)|\\begin\{" + _ENVS + r"\}(?:\{\d+\})?|\\end\{" + _ENVS + r"\}"
)
_PROSE = re.compile(r"[A-Za-z]{3,}\s+[A-Za-z]{3,}")
_EQ_HINT = re.compile(r"=|≈|≃|\\approx|\\simeq|<<")


def _math_regions(text: str, n: int):
    """Linear scan for LaTeX math regions: list of (start, end) of the *content*."""
    regions = []
    opener = None  # (kind, content_start)
    dollar = None  # content start of a candidate $...$
    for count, m in enumerate(_MATH_DELIM.finditer(text, 0, n)):
        if count >= MAX_DELIMITERS:
            break
        d = m.group()
        if d == "\\$":
            continue
        if opener is not None:
            kind, cs = opener
            if (kind == "$$" and d == "$$") or (kind == "\\[" and d == "\\]") or \
                    (kind == "\\(" and d == "\\)") or (kind == "env" and d.startswith("\\end")):
                regions.append((cs, m.start()))
                opener = None
            continue
        if d == "$":
            if dollar is None:
                dollar = m.end()
            else:
                content = text[dollar:m.start()]
                if content and len(content) <= 500 and "\n" not in content and \
                        not content[0].isspace() and not content[-1].isspace() and \
                        not (_PROSE.search(content) and "\\" not in content) and \
                        not (m.end() < n and text[m.end()].isdigit()):
                    regions.append((dollar, m.start()))
                    dollar = None
                else:
                    dollar = m.end()
            continue
        if d == "$$":
            opener = ("$$", m.end())
        elif d == "\\[":
            opener = ("\\[", m.end())
        elif d == "\\(":
            opener = ("\\(", m.end())
        elif d.startswith("\\begin"):
            opener = ("env", m.end())
        dollar = None
    if opener is not None:  # unclosed: math up to the end
        regions.append((opener[1], n))
    return regions


def extract_equations(text: str) -> list[Equation]:
    """Every equation chain a step states (annotations first, then in text order).

    Plain-text sides stop at words and punctuation ("She sells 16 - 3 - 4 = 9 eggs" -> "16 - 3 -
    4", "9"); a unit word after a number is kept only inside an expression ("5 cm + 3 cm").
    A plain equation that restates an adjacent ``<<..>>`` annotation with the same values is
    dropped (GSM8K writes both).
    """
    try:
        if not isinstance(text, str):
            return []
        n = min(len(text), MAX_TEXT_CHARS)
        if _EQ_HINT.search(text, 0, n) is None:
            return []
        out: list[Equation] = []
        annots: list = []
        budget = [MAX_RELATIONS, MAX_SCAN_CHARS, MAX_SIDES]
        if "<<" in text:
            for m in _ANNOT_RE.finditer(text, 0, n):
                if len(annots) >= MAX_RELATIONS:
                    break
                eq = _annotation(text, m, budget)
                if eq is not None:
                    out.append(eq)
                annots.append((m.start(), m.end(), [eq] if eq is not None else []))
            if annots:
                chars = list(text[:n])
                for s, e, _ in annots:
                    chars[s:e] = " " * (e - s)
                text_m = "".join(chars)
            else:
                text_m = text
        else:
            text_m = text
        annot_starts = [a[0] for a in annots]
        regions = _math_regions(text_m, n) if ("$" in text_m or "\\" in text_m) else []
        pos = 0
        segs = []
        for s, e in regions:
            if s > pos:
                segs.append((pos, s, False))
            segs.append((s, e, True))
            pos = e
        if pos < n:
            segs.append((pos, n, False))
        budget[0] = MAX_RELATIONS
        for s, e, latex in segs:
            if _EQ_HINT.search(text_m, s, e) is None:
                continue
            toks = []
            _windows(text_m, s, e, toks, latex, budget)
            if not toks:
                continue
            before = len(out)
            _chains(text, toks, "latex" if latex else "plain", out, text_m if annots else None, budget)
            if annots and not latex:
                # drop plain restatements of an annotation ("16-3-4 = <<16-3-4=9>>9")
                keep = out[:before]
                for eq in out[before:]:
                    dup = False
                    k = bisect_right(annot_starts, eq.span[1] + 1)
                    for a_s, a_e, a_eqs in annots[max(0, k - 3):k]:
                        if a_s <= eq.span[1] + 1 and a_e >= eq.span[0] - 1:
                            for ae in a_eqs:
                                if all(_BARE_SIDE.fullmatch(side) for side in ae.sides):
                                    continue  # "40-10=<<30=30>>30": the plain equation carries the computation
                                if [v.exact if v else None for v in ae.values] == \
                                        [v.exact if v else None for v in eq.values] or \
                                        _same_values(ae.values, eq.values):
                                    dup = True
                    if not dup:
                        keep.append(eq)
                out[:] = keep
        return out
    except Exception as exc:  # noqa: BLE001 - never raise on model output (unless RAFS_STRICT)
        _internal_error("extract_equations", text, exc)
        return []


_BARE_SIDE = re.compile(r"\s*-?[\d,]*\.?\d+\s*")
_WINDOW = 160
_WINDOW_MATH = 400
_MAX_WINDOW = 2000
MAX_RELATIONS = 200  # relations read per text
MAX_SCAN_CHARS = 16_000  # characters tokenized per text
MAX_SIDES = 400  # sides evaluated per text
MAX_DELIMITERS = 4000  # math delimiters scanned per text
MAX_NUMBERS = 2000  # numbers reported by numbers_in


def _annotation(text: str, m, budget: list) -> Equation | None:
    """A GSM8K calculator annotation ``<<16-3-4=9>>``: its sides are exactly the '='-separated
    parts (no side-boundary heuristics needed)."""
    sides, vals, stoks = [], [], []
    pos = m.start(1)
    for part in m.group(1).split("="):
        end = pos + len(part)
        if part.strip():
            toks: list = []
            _tokenize(text, pos, end, False, toks, True)
            if toks:
                r = _eval_tokens(toks) if all(t[0] != "|" for t in toks) else None
                sides.append(text[toks[0][2]:toks[-1][3]])
                vals.append(r if r.__class__ is Value else None)
                stoks.append((toks, toks))
        pos = end + 1
    if len(sides) < 2:
        return None
    budget[2] -= len(sides)
    return Equation(sides, vals, (m.start(), m.end()), "annotation", ("=",) * (len(sides) - 1),
                    False, tuple(stoks))


def _windows(text: str, s: int, e: int, toks: list, latex: bool, budget: list) -> None:
    """Tokenize only what can hold an equation: in plain text the line around each relation (a
    newline ends a plain-text side), and only a window around it (a chain of relations extends
    the window, up to ``_MAX_WINDOW`` characters).  A window edge that cuts the text is an edge
    token '#', which makes a side that reaches it unreadable.  ``budget``: [relations left,
    characters left] for the whole text, so that no input costs more than a bounded amount."""
    last_end = s
    prev_cut = False
    half = _WINDOW_MATH if latex else _WINDOW
    search = _EQ_HINT.search
    while budget[0] > 0 and budget[1] > 0:
        m = search(text, last_end, e)
        if m is None:
            return
        budget[0] -= 1
        p = m.start()
        # left edge
        lo = max(last_end, p - half)
        j = -1 if latex else text.rfind("\n", lo, p)
        if j >= 0:
            ws, cut_l = j + 1, False
        elif lo == last_end:
            ws, cut_l = lo, prev_cut
        else:
            k = text.find(" ", lo, p)
            ws, cut_l = (k if k >= 0 else lo), True
        # right edge, extended while the chain goes on
        cap = min(e, p + _MAX_WINDOW)
        hi = min(cap, p + half)
        r_end = m.end()
        steps = 0
        while hi < cap:
            m2 = search(text, r_end, min(cap, hi + half))  # the next relation, if windows overlap
            if m2 is None:
                break
            steps += 1
            if steps > 16:  # a dense run of relations: take the whole capped window
                hi = cap
                r_end = max(r_end, text.rfind("=", r_end, cap))
                break
            r_end = m2.end()
            hi = min(cap, m2.start() + half)
        j = -1 if latex else text.find("\n", p, hi)
        if j >= 0:
            we, cut_r = j, False
        elif hi == e:
            we, cut_r = e, False
        else:
            k = text.rfind(" ", r_end, hi)
            we, cut_r = (k if k > r_end else hi), True
        budget[1] -= we - ws
        toks.append(("|", "\n", ws, ws, True))
        if cut_l:
            toks.append(("#", "", ws, ws, True))
        _tokenize(text, ws, we, latex, toks)
        if cut_r:
            toks.append(("#", "", we, we, True))
        last_end = max(we, m.end())
        prev_cut = cut_r


def _same_values(a, b) -> bool:
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x is None or y is None:
            if x is not y:
                return False
        elif x.approx != y.approx:
            return False
    return True


# ----------------------------------------------------------------------------------- checking
def _pair_holds(v1: Value, v2: Value, m1, m2, approx: bool, ceil_ok: bool = True) -> bool | None:
    if v1.is_exact and v2.is_exact and v1.exact == v2.exact:
        return True
    if m1.units and m2.units and m1.units != m2.units and not (
            (m1.dec < 0 and not m1.additive and set(m2.units) <= set(m1.units))
            or (m2.dec < 0 and not m2.additive and set(m1.units) <= set(m2.units))):
        # "100 cents = $1", "12 inches = 1 foot", "4 pounds - 6 ounces = 58 ounces": a unit conversion, not
        # arithmetic; but a product or quotient whose result carries only its own units is arithmetic
        # ("495 students * $15 = $7425")
        return None
    if m1.dec >= 0 and m2.dec < 0 and any(u != "$" for u in m1.units):
        return None  # "5 pairs = 5 * 2", "4 hours = 4 * 60": a conversion written left to right
    if _close(v1, v2, m1[0], m2[0], approx, ceil_ok):
        return True
    # percent read as percentage points ("40/80*100 = 50%")
    if m1[1] is not None or m2[1] is not None:
        a = m1[1] if m1[1] is not None else v1
        b = m2[1] if m2[1] is not None else v2
        for x, y in ((a, v2), (v1, b), (a, b)):
            if x.is_exact and y.is_exact and x.exact == y.exact:
                return True
            if _close(x, y, m1[0], m2[0], approx, ceil_ok):
                return True
        if (m1.pct == 2 and m2.pct == 0) or (m2.pct == 2 and m1.pct == 0):
            return None  # "48 = 100% + 20%": a correspondence, not a calculation
    return False


def _rounds_to(v, w, k: int, ceil_ok: bool = True) -> bool:
    """Is ``w`` (written with ``k`` decimal places) the value ``v`` rounded to ``k`` places?

    Accepted: rounding to nearest (either way at a tie) and truncation toward zero; for ``k ==
    0`` and ``ceil_ok`` also rounding up (|v - w| < 1: "17/5 = 3 full boxes", "17/5 = 4 boxes needed")."""
    exact = type(v) is not float and type(w) is not float
    unit = Fraction(1, 10**k) if exact else 10.0**-k
    eps = 0 if exact else 1e-9 * max(1.0, abs(v))
    d = abs(v - w)
    if k == 0 and ceil_ok:
        return d < 1 + eps
    if d <= unit / 2 + eps:
        return True
    return (w >= 0) == (v >= 0) and abs(w) <= abs(v) + eps and d < unit + eps


def _close(v1: Value, v2: Value, d1: int, d2: int, approx: bool, ceil_ok: bool = True) -> bool:
    # the written literal: the side with the fewest decimals among lone literals
    k = -1
    if d1 >= 0 and (d2 < 0 or d1 <= d2):
        k, w, other = d1, v1, v2
    elif d2 >= 0:
        k, w, other = d2, v2, v1
    x, y = v1.approx, v2.approx
    diff = abs(x - y)
    scale = max(abs(x), abs(y))
    if approx:
        if diff <= APPROX_REL_TOL * scale + 1e-12:
            return True
        return k >= 0 and _rounds_to(other.approx, w.approx, k, ceil_ok)
    if k >= 0:
        if other.is_exact and w.is_exact:
            if (other.exact * 10**k).denominator == 1:
                return False  # representable with k places: must be exact
            return _rounds_to(other.exact, w.exact, k, ceil_ok)
        return _rounds_to(other.approx, w.approx, k, ceil_ok) or diff <= INEXACT_REL_TOL * scale
    if v1.is_exact and v2.is_exact:
        return False
    return diff <= INEXACT_REL_TOL * scale + 1e-12


def check_equation(eq: Equation) -> EquationCheck:
    """Check that every adjacent pair of evaluable sides is equal (see module docs)."""
    try:
        pairs = []
        fails = []
        meta = [None] * len(eq.sides)
        stoks = eq._toks

        def m(j):
            if meta[j] is None:
                if j < len(stoks):
                    meta[j] = _side_meta(*stoks[j])
                else:  # a hand-built Equation: read its side text
                    toks: list = []
                    side = eq.sides[j]
                    if isinstance(side, str) and len(side) <= MAX_EXPR_CHARS:
                        _tokenize(side, 0, len(side), False, toks, True)
                    meta[j] = _side_meta(toks, toks) if toks else _NO_META
            return meta[j]

        rels = eq.relations or tuple("=" for _ in eq.sides[1:])
        for i in range(len(eq.sides) - 1):
            v1, v2 = eq.values[i], eq.values[i + 1]
            if v1 is None or v2 is None:
                pairs.append(None)
                continue
            if v1.is_exact and v2.is_exact and v1.exact == v2.exact:
                ok = True
            else:
                ok = _pair_holds(v1, v2, m(i), m(i + 1), rels[i] == "≈", eq.source != "latex")
            pairs.append(ok)
            if ok is False:
                fails.append(i)
        if not any(p is not None for p in pairs):
            return EquationCheck(eq, None, "not checkable: " + " = ".join(eq.sides), tuple(pairs))
        if fails:
            i = fails[0]
            a, b = eq.sides[i], eq.sides[i + 1]
            va, vb = eq.values[i], eq.values[i + 1]
            # say "<expression> evaluates to X, not <written>": the written side is the literal
            if m(i).dec >= 0 and m(i + 1).dec < 0:
                a, b, va, vb = b, a, vb, va
            return EquationCheck(eq, False, f"{a} evaluates to {display_value(va)}, not {display_value(vb)}",
                                 tuple(pairs))
        rel = " ≈ " if eq.approximate else " = "
        return EquationCheck(eq, True, rel.join(eq.sides) + " holds", tuple(pairs))
    except Exception as exc:  # noqa: BLE001 - never raise on model output (unless RAFS_STRICT)
        _internal_error("check_equation", getattr(eq, "sides", eq), exc)
        return EquationCheck(eq, None, "not checkable", ())


def check_text(text: str) -> list[EquationCheck]:
    """``check_equation`` for every equation in ``text``."""
    return [check_equation(e) for e in extract_equations(text)]


# ------------------------------------------------------------------------------------- numbers
_NUM_SCAN = re.compile(r"(?<![\w.])(\d{1,3}(?:(?:,|,\\!|\{,\})\d{3})+(?!\d)(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)")
_WORD_SCAN_SRC = (
    r"\b(zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen"
    r"|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety"
    r"|hundred|thousand|million|billion|twice|thrice|double|triple|quadruple|half|halves|quarter"
    r"|quarters|dozen|dozens|score|pair)(?:[- ](one|two|three|four|five|six|seven|eight|nine)\b)?\b"
)
_WORD_SCAN = re.compile(_WORD_SCAN_SRC)  # on lower-cased text: much faster than re.I
_WORD_SCAN_I = re.compile(_WORD_SCAN_SRC, re.I)
_WORD_NUM = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20,
    "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
    "hundred": 100, "thousand": 1000, "million": 10**6, "billion": 10**9, "twice": 2, "thrice": 3,
    "double": 2, "triple": 3, "quadruple": 4, "half": Fraction(1, 2), "halves": Fraction(1, 2),
    "quarter": Fraction(1, 4), "quarters": Fraction(1, 4), "dozen": 12, "dozens": 12, "score": 20,
    "pair": 2,
}
_WORD_NUM_F = {k: Fraction(v) for k, v in _WORD_NUM.items()}


def numbers_in(text: str) -> list[tuple[Fraction, tuple[int, int]]]:
    """Every numeric literal in ``text`` with its span, in order.

    Numbers are reported as written: commas removed, no sign (a hyphen is as often a dash or a
    range as a minus), ``50%`` gives 50 (the span covers ``50``; callers that ground percentages
    may also try 1/2), LaTeX ``\\frac{1}{3}`` gives 1 and 3.  Number words give their value:
    "three" 3, "twenty-five" 25, "twice"/"double" 2, "half" 1/2, "quarter" 1/4, "dozen" 12,
    "pair" 2, "score" 20, "hundred" 100 (compounds such as "two hundred" give 2 and 100).
    Digit runs inside identifiers (``x2``, ``H2O``) are skipped; literals longer than 30 digits
    are skipped.

    >>> [q for q, _ in numbers_in("Twenty-five kids, 3.5 kg, 1,000 and a dozen")]
    [Fraction(25, 1), Fraction(7, 2), Fraction(1000, 1), Fraction(12, 1)]
    """
    out = []
    try:
        if not isinstance(text, str):
            return out
        n = min(len(text), MAX_TEXT_CHARS)
        for m in _NUM_SCAN.finditer(text, 0, n):
            if len(out) >= MAX_NUMBERS:
                break
            g = m.group(1)
            q = _num_value(g.replace(",", "").replace("\\!", "").replace("{}", "") if "," in g else g)
            if q is not None:
                out.append((q, m.span(1)))
        low = text[:n].lower()
        words = []
        for m in (_WORD_SCAN.finditer(low) if len(low) == n else _WORD_SCAN_I.finditer(text, 0, n)):
            q = _WORD_NUM_F[m.group(1).lower()]
            u = m.group(2)
            if u is not None and 20 <= q <= 90:
                words.append((q + _WORD_NUM_F[u.lower()], m.span()))
            else:
                words.append((q, m.span(1)))
            if len(words) >= MAX_NUMBERS:
                break
        if words:
            out.extend(words)
            del out[MAX_NUMBERS:]
            out.sort(key=lambda t: t[1][0])
    except Exception as exc:  # noqa: BLE001 - never raise on model output (unless RAFS_STRICT); partial result
        _internal_error("numbers_in", text, exc)
    return out
