"""Answer canonicalisation and equivalence: exact arithmetic first, math-verify for everything else.

Numeric answers (``18``, ``$1,200``, ``3/4``, ``\\frac{3}{4}``, ``50%``) take a fast exact path through
:mod:`rewards.checks.arithmetic`. Symbolic answers (``\\sqrt{2}/2``, ``(1, 2)``, ``x^2+1``, intervals) go through
`math-verify <https://github.com/huggingface/Math-Verify>`_. math-verify bounds its work with ``signal.alarm``,
which raises off the main thread (TRL runs async rewards on a thread), so here its timeouts are switched off
away from the main thread and the work is bounded by cheap checks on the input instead (:func:`symbolic_candidate`):
an answer goes to math-verify only when it is at most :data:`MAX_SYMBOLIC_CHARS` characters, reads as math (at
most one word of prose, :data:`MAX_PROSE_LETTERS` letters), nests at most :data:`MAX_NESTING` deep, has at most
:data:`MAX_COMMANDS` LaTeX commands and nothing sympy could blow up (:func:`sympy_safe`). Every other answer is
compared as a normalised string. Measured effect (docs/long_traces.md): prose answers that took 200–700 ms in
math-verify (sympy reads "the number of eggs" as a product of 20 symbols) now take under 1 ms; the bounds refuse
no MATH-500 gold answer that :func:`sympy_safe` accepts (497 of 500; the 3 it refuses are polynomials with
several powers, refused as exponent towers before these bounds existed).

>>> canonical_answer("$1,200")
'1200'
>>> canonical_answer("\\\\frac{6}{8}")
'3/4'
>>> answers_equivalent("0.75", "\\\\frac{3}{4}")
True
>>> is_correct("The answer is 18.", "Janet sells ... #### 18")
True
"""

from __future__ import annotations

import logging
import math
import re
import threading
from fractions import Fraction
from functools import lru_cache

from rewards.checks.arithmetic import evaluate
from rewards.parsing.trace import MAX_ANSWER_CHARS, extract_final_answer

__all__ = ["canonical_answer", "numeric_value", "named_value", "approximate_value", "answers_equivalent", "is_correct",
           "gold_answer", "sympy_safe", "symbolic_candidate", "MAX_SYMBOLIC_CHARS", "MAX_PROSE_LETTERS", "MAX_NESTING", "MAX_COMMANDS"]

log = logging.getLogger(__name__)

_MV_LOGGERS = ("math_verify.parser", "math_verify.grader", "math_verify.utils")


def _timeout() -> int | None:
    """math-verify's signal-based timeout only where signals work (the main thread)."""
    if threading.current_thread() is threading.main_thread():
        return 3
    for name in _MV_LOGGERS:  # the "timeout is disabled" warning is expected here
        logging.getLogger(name).setLevel(logging.ERROR)
    return None


def _strip(answer: str) -> str:
    a = answer.strip().rstrip(".").strip()
    if a.startswith(".") and not a[1:2].isdigit():  # ".0000672" is a decimal: its point is no sentence's end
        a = a.lstrip(".").strip()
    if len(a) >= 2 and a[0] == "$" and a[-1] == "$" and a.count("$") == 2:
        a = a[1:-1].strip()
    for wrapper in ("\\text{", "\\textbf{", "\\mathrm{", "\\mbox{"):
        if a.startswith(wrapper) and a.endswith("}"):
            a = a[len(wrapper):-1].strip()
    return a


_BASE_ANSWER = re.compile(r"\d_\{?\s*\d")


@lru_cache(maxsize=65536)
def numeric_value(answer: str) -> Fraction | None:
    """The exact value of a numeric answer, or ``None`` when it is not a plain number/expression."""
    if not answer or len(answer) > MAX_ANSWER_CHARS:
        return None
    text = _strip(answer)
    if "_" in text and _BASE_ANSWER.search(text):
        return None  # an answer written in a base is its digits (52_8 answers a base-8 question, not 42)
    for suffix in ("\\%", "%", "\\text{%}", " percent"):
        if text.endswith(suffix):  # "50%" answers "what percent..." with 50, as GSM8K's gold writes it
            text = text[: -len(suffix)].strip()
            break
    value = evaluate(text)
    if value is None and len(text) <= MAX_DISGUISED_CHARS:
        value = evaluate(_undisguised(text))  # "11,\\! 111,\\! 100", "864 \\mbox{ inches}^2"
    if value is None or not value.is_exact:
        return None
    return value.exact


def named_value(answer: str) -> Fraction | None:
    r"""The number an answer names for an unknown (``x=5`` -> 5), or its :func:`numeric_value`. For the dataflow,
    which asks whether a trace derived the answer's number; not for correctness, where ``y=5`` does not answer
    ``x=5``.

    >>> named_value("x=5"), numeric_value("x=5"), named_value("12")
    (Fraction(5, 1), None, Fraction(12, 1))
    """
    value = numeric_value(answer)
    if value is not None or not answer or len(answer) > MAX_DISGUISED_CHARS:
        return value
    named = _NAME_IS.fullmatch(_strip(answer))
    return numeric_value(named.group("value").strip()) if named else None


MAX_DISGUISED_CHARS = 60
"""Longest answer :func:`_undisguised` rewrites (numeric answers are short)."""
_DIGIT_GROUP = re.compile(r"(?<=\d)(,?)\s*\\[!,]\s*(?=\d{3}(?!\d))")
_UNIT_POWER = re.compile(r"\s*\\(?:mbox|text|mathrm)\s*\{\s*[A-Za-z]+(?:\s+[A-Za-z]+)?\s*\}"
                         r"\s*\^\s*\{?\s*[23]\s*\}?\s*$")
_NAME_IS = re.compile(r"\s*[A-Za-z]\s*=(?P<value>[^=]+)")
_DIGIT_GROUPS = re.compile(r"\d{1,3}(?:,?\s*\\[!,]\s*\d{3})+")


def _undisguised(text: str) -> str:
    r"""A plain number written in disguise, as the plain number: digit groups with LaTeX spacing (``11,\! 111,\!
    100``, the whole answer: ``[2,\,500]`` stays an interval) and a squared or cubed unit (``864 \mbox{ inches}^2``).
    The result still goes through the exact evaluator, so whatever is left that is no number stays no number.

    >>> _undisguised("11,\\! 111,\\! 100"), _undisguised("15\\mbox{ cm}^2"), _undisguised("[2,\\,500]")
    ('11,111,100', '15', '[2,\\,500]')
    """
    text = _UNIT_POWER.sub("", text).strip()
    if _DIGIT_GROUPS.fullmatch(text):
        text = _DIGIT_GROUP.sub(r"\1", text)
    return text


MAX_APPROX_ANSWER_CHARS = 60
"""Longest answer :func:`approximate_value` reads (MATH-500's longest radical or multiple of pi is 26 characters)."""


@lru_cache(maxsize=16384)
def approximate_value(answer: str) -> float | None:
    r"""The real value of an answer that is a number but no rational one (a radical, a multiple of pi:
    ``3\sqrt{13}``, ``\frac{\sqrt{3}}{3}``, ``18+2\pi``), as the exact evaluator's float; ``None`` for a rational
    answer (:func:`numeric_value` reads it), and for anything that is not one real number (``1 \pm \sqrt{19}``,
    ``6 - 5i``, a tuple, a polynomial). Only the bounded evaluator reads the text (no eval, no sympy).

    >>> round(approximate_value("3\\sqrt{13}"), 6), approximate_value("\\frac{3}{4}"), approximate_value("x^2+1")
    (10.816654, None, None)
    """
    if not answer or len(answer) > MAX_APPROX_ANSWER_CHARS:
        return None
    text = _strip(answer)
    named = _NAME_IS.fullmatch(text)  # "x = 2\\sqrt{5}"
    value = evaluate(text) or evaluate(_undisguised(named.group("value").strip() if named else text))
    if value is None or value.is_exact or not math.isfinite(value.approx) or abs(value.approx) < 1e-6:
        return None  # near 0 (an underflow, 10^{-400}\\pi) it would key to 0, an ordinary number
    return value.approx


_BIG_EXPONENT = re.compile(r"(\^|\*\*)\s*+\{?\s*+\(?\s*+[\d.]{3,}|(\^|\*\*)[^=]*(\^|\*\*)")
_BIG_FACTORIAL = re.compile(r"(\d{3,}|[)}])\s*!")
_LONG_DIGITS = re.compile(r"\d{41,}")
_REPEATED_FACTORIAL = re.compile(r"!\s*!")  # "20!!": math-verify reads (20!)!, sympy never finishes
_GROUP_POWER = re.compile(r"[)\]]\s*+\}?\s*+\^\s*+\{?\s*+(\d++)")  # "(x+y+1)^{99}": sympy expands it
_VARIABLE = re.compile(r"(?<![\\A-Za-z])[A-Za-z](?![A-Za-z])")
MAX_MONOMIALS = 64
"""Most terms the bracketed sums of variables in an answer may multiply out to for it to go to math-verify: each
group ``(…)``/``[…]`` (not ``\\[…\\]``) holding a variable counts its summands ``t`` (every ``+``/``-`` in it,
generously), or ``C(e + t - 1, t - 1)`` when raised to ``e``, and the counts multiply. ``(x+y+z+w+1)^{10}`` (1,001),
``(x+y+1)^{99}`` (5,050) and 16 binomials ``(a+b)(c+d)…`` (65,536) ran into math-verify's 3 s timeout, 8 binomials
(256) took about 1 s; ``(x+1)^{2}`` (3), ``(x+y)^{5}`` (6) and ``(x-1)(x+2)(x-3)`` (8) pass."""


def _expansion_terms(text: str) -> int:
    """How many terms the bracketed sums of variables in ``text`` multiply out to, over-counted (see
    :data:`MAX_MONOMIALS`); it stops counting once past the bound."""
    total, opened = 1, []
    for i, ch in enumerate(text):
        if ch in "([" and text[i - 1:i] != "\\":
            opened.append(i)
        elif ch in ")]" and opened and text[i - 1:i] != "\\":
            group = text[opened.pop():i + 1]
            if not _VARIABLE.search(group):
                continue
            terms = 1 + group.count("+") + group.count("-")
            power = _GROUP_POWER.match(text, i)
            total *= math.comb(min(int(power.group(1)[:6]), 10**5) + terms - 1, terms - 1) if power else terms
            if total > MAX_MONOMIALS:
                break
    return total


def sympy_safe(text: str) -> bool:
    """Whether ``text`` is small enough to hand to sympy (through math-verify) without risking a hang.

    Off the main thread math-verify runs without its timeout, so anything that sympy might expand into a huge
    integer is refused here: exponents of three or more digits, exponent towers, factorials of large or
    parenthesised arguments, and numbers of more than 40 digits; also repeated factorials (``9!!``) and bracketed
    sums of variables that multiply out to more than :data:`MAX_MONOMIALS` terms (``(x+y+z+w+1)^{10}``,
    ``(a+b)(c+d)…``): each ran into math-verify's 3 s timeout on the main thread (and ``20!!`` still ran after 25 s
    off it). Refused answers are compared as strings.

    >>> sympy_safe("(x+1)^{2}"), sympy_safe("20!!"), sympy_safe("(x+y+1)^{99}"), sympy_safe("(\\frac{1}{2})^{10}")
    (True, False, False, True)
    """
    return not (_BIG_EXPONENT.search(text) or _BIG_FACTORIAL.search(text) or _LONG_DIGITS.search(text)
                or "binom" in text and re.search(r"\d{4,}", text) or _REPEATED_FACTORIAL.search(text)
                or _expansion_terms(text) > MAX_MONOMIALS)


MAX_SYMBOLIC_CHARS = 96
"""Longest answer handed to math-verify (MATH-500's longest gold answer is 53 characters, a 3-vector)."""
MAX_PROSE_LETTERS = 12
"""Most letters of prose (words of 3+ letters that are not LaTeX commands or function names) an answer handed to
math-verify may hold: one name or unit ("\\text{Evelyn}", "5.4 \\text{ cents}") passes; a phrase does not."""
MAX_NESTING = 8
"""Deepest ``{``/``(``/``[`` nesting handed to math-verify."""
MAX_COMMANDS = 16
"""Most LaTeX commands (``\\frac``, ``\\sqrt``...) handed to math-verify."""

_PROSE_WORD = re.compile(r"(?<![\\A-Za-z])[A-Za-z]{3,}")
_MATH_WORDS = frozenset(
    "sin cos tan sec csc cot arcsin arccos arctan sinh cosh tanh log exp sqrt frac dfrac tfrac pmatrix bmatrix "
    "matrix begin end left right cdot times div infty inf lim max min gcd lcm mod pmod deg circ text mbox mathrm "
    "textbf mathbf mathbb boxed cup cap emptyset pm mp leq geq neq approx".split())
_COMMAND = re.compile(r"\\[A-Za-z]+")


def symbolic_candidate(text: str) -> bool:
    r"""Whether ``text`` is cheap and safe enough to hand to math-verify (a single left-to-right pass; no regex
    backtracking). See the module docstring for the bounds.

    >>> symbolic_candidate("\\left( 3, \\frac{\\pi}{2} \\right)"), symbolic_candidate("\\text{Evelyn}")
    (True, True)
    >>> symbolic_candidate("the number of eggs she sells every day")
    False
    """
    if not text or len(text) > MAX_SYMBOLIC_CHARS or not sympy_safe(text):
        return False
    prose = sum(len(w) for w in _PROSE_WORD.findall(text) if w.lower() not in _MATH_WORDS)
    if prose > MAX_PROSE_LETTERS or len(_COMMAND.findall(text)) > MAX_COMMANDS:
        return False
    depth = deepest = 0
    for ch in text:
        if ch in "{([":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "})]":
            depth = max(depth - 1, 0)
    return deepest <= MAX_NESTING


@lru_cache(maxsize=16384)
def _math_verify_parse(answer: str):
    if not symbolic_candidate(answer):
        return ()
    from math_verify import parse  # lazy: pulls sympy and latex2sympy

    text = answer if "$" in answer or "\\boxed" in answer else f"${answer}$"
    try:
        parsed = parse(text, parsing_timeout=_timeout())
    except Exception as exc:  # noqa: BLE001 - math-verify on untrusted text; never crash a reward
        log.debug("math-verify could not parse %r: %s", answer[:80], exc)
        return ()
    return tuple(parsed)


@lru_cache(maxsize=65536)
def canonical_answer(answer: str | None) -> str | None:
    """A string key such that equivalent answers usually share it (used to count answers for C_A).

    Numbers become reduced fractions (``"3/4"``, ``"18"``); other answers become math-verify's sympy form;
    failing that, the answer with whitespace and ``\\left``/``\\right`` removed.
    """
    if answer is None:
        return None
    answer = answer.strip()
    if not answer or len(answer) > MAX_ANSWER_CHARS:
        return None
    value = numeric_value(answer)
    if value is not None:
        return str(value)
    parsed = _math_verify_parse(_strip(answer))
    if parsed:
        try:
            return str(parsed[0])[:MAX_ANSWER_CHARS]
        except Exception:  # noqa: BLE001
            pass
    return "".join(_strip(answer).replace("\\left", "").replace("\\right", "").split())


def answers_equivalent(a: str | None, b: str | None) -> bool:
    """Whether two final answers are mathematically equal (exact for numbers, math-verify otherwise)."""
    if a is None or b is None:
        return False
    va, vb = numeric_value(a.strip()), numeric_value(b.strip())
    if va is not None and vb is not None:
        return va == vb
    ca, cb = canonical_answer(a), canonical_answer(b)
    if ca is not None and ca == cb:
        return True
    pa, pb = _math_verify_parse(_strip(a)), _math_verify_parse(_strip(b))
    if not pa or not pb:
        return False
    from math_verify import verify

    try:
        return bool(verify(list(pb), list(pa), timeout_seconds=_timeout()))
    except Exception as exc:  # noqa: BLE001
        log.debug("math-verify could not compare %r and %r: %s", a[:80], b[:80], exc)
        return False


def gold_answer(gold: str | None) -> str | None:
    """The final answer inside a gold field: a bare answer, a GSM8K solution (``#### X``) or a ``\\boxed``."""
    if gold is None:
        return None
    gold = str(gold)
    if "####" in gold or "\\boxed" in gold or "\\fbox" in gold:
        answer, _ = extract_final_answer(gold)
        return answer
    gold = gold.strip()
    return gold if gold and len(gold) <= MAX_ANSWER_CHARS else None


def is_correct(prediction: str | None, gold: str | None) -> bool:
    """Whether a completion's final answer (or a bare answer) equals the gold answer.

    ``prediction`` may be a whole completion text: its final answer is extracted first.
    """
    if prediction is None or gold is None:
        return False
    ref = gold_answer(gold)
    pred = prediction.strip()
    if len(pred) > MAX_ANSWER_CHARS or "\n" in pred or "####" in pred or "\\boxed" in pred \
            or "answer" in pred.lower():
        pred, _ = extract_final_answer(pred)
    return answers_equivalent(pred, ref)
