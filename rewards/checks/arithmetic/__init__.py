r"""Safe, bounded, exact arithmetic over the equations that reasoning steps state.

This is the core of the symbolic step verifier (:mod:`rewards.verifiers.symbolic`; docs/scoring.md, Pipeline
step 4): every equation a step states is
evaluated with exact rational arithmetic (:class:`fractions.Fraction`).  Model output is untrusted,
so nothing here ever calls ``eval``/``exec``/``sympify``: text is split by a small tokenizer and
evaluated by a recursive-descent (precedence-climbing) parser whose every resource is bounded.

Modules (one job each)
----------------------
:mod:`.tokens` (the tokenizer), :mod:`.parser` (the bounded exact evaluator: ``evaluate``, ``evaluate_ex``),
:mod:`.literals` (number literals, ``parse_number``), :mod:`.scanning` (``numbers_in``, ``contains_any``), :mod:`.extraction`
(``extract_equations``, :class:`Equation`), :mod:`.sides` (what a side is: literal decimals, units, percentages),
:mod:`.equality` (``check_equation``, ``check_text``), :mod:`.values` (:class:`Value`, :class:`Unparseable`),
:mod:`.budget` (the resource bounds and the per-text :class:`~.budget.Budget`) and :mod:`.errors` (internal-error
accounting).  Everything below is importable from ``rewards.checks.arithmetic`` itself.

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
  quarts = 4 * 1.5 = 6": only ``4 * 1.5 = 6`` is checked) — unless a statement opener precedes a
  bare number and the next side equals it exactly ("So 24 = 6 * 4", "we know 12 = 3 * 4": checked);
* a numeral with its base as a subscript (``321_7``, ``162_{10}``) reads as its value; a false pair
  with one is left unchecked (:func:`rewards.checks.equations.step_equations`);
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

import sys
import types
from fractions import Fraction  # noqa: F401 - part of the namespace the single module had (tests use it)

from . import errors as _errors
from .budget import (  # noqa: F401 - re-exported
    MAX_BINOM, MAX_BITS, MAX_DELIMITERS, MAX_DEPTH, MAX_DIGITS, MAX_EXPONENT,
    MAX_EXPR_CHARS, MAX_EXPR_TOKENS, MAX_FACTORIAL, MAX_NUMBERS, MAX_RELATIONS, MAX_ROOT, MAX_SCAN_CHARS, MAX_SIDES,
    MAX_TEXT_CHARS, Budget,
)
from .equality import APPROX_REL_TOL, INEXACT_REL_TOL, EquationCheck, check_equation, check_text  # noqa: F401
from .errors import STRICT_ENV, error_counts, reset_error_counts, strict_mode
from .extraction import Equation, extract_equations
from .literals import parse_number
from .parser import evaluate, evaluate_ex
from .scanning import contains_any, numbers_in
from .values import Unparseable, Value, display_value

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
    "contains_any",
    "MAX_EXPR_CHARS",
    "MAX_TEXT_CHARS",
    "STRICT_ENV",
    "strict_mode",
    "error_counts",
    "reset_error_counts",
]

# The names internal state and helpers had when this package was one module: the error tests save and restore the
# tables, and inject a bug into a helper by setting it here (``monkeypatch.setattr(arithmetic, "_tokenize", ...)``).
from .equality import pair_holds as _pair_holds  # noqa: E402,F401
from .extraction import tokenize_windows as _windows  # noqa: E402,F401
from .literals import num_value as _num_value  # noqa: E402,F401
from .tokens import tokenize as _tokenize  # noqa: E402,F401

_error_counts = _errors.counts
_errors_logged = _errors.logged


class _Package(types.ModuleType):
    """Setting a name on the package also rebinds it in every submodule that holds the same object (under that name,
    or under any name for a function or class), so that replacing ``arithmetic._tokenize`` reaches every caller of
    the tokenizer, as it did when this package was one module.  Costs nothing on reads."""

    def __setattr__(self, name: str, value) -> None:
        old = self.__dict__.get(name, _Package)
        if old is not _Package and old is not value:
            # a function, class or lru_cache wrapper may be held under another name (tokens.tokenize is _tokenize here)
            forward_any_name = isinstance(old, (types.FunctionType, type)) or hasattr(old, "cache_clear")
            prefix = self.__name__ + "."
            for mod_name, module in list(sys.modules.items()):
                if module is None or not mod_name.startswith(prefix):
                    continue
                for key, held in list(vars(module).items()):
                    if held is old and (key == name or forward_any_name):
                        setattr(module, key, value)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
