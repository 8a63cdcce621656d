r"""Sums of sequences, simple statistics and counting notation with explicit numbers.

A claim checker for :mod:`rewards.checks.claims` (``check_trace(steps, problem)``). Every quantity must be an explicit
number, evaluated by :func:`rewards.checks.arithmetic.evaluate`; nothing is ever ``eval``-ed.

Ellipsis sums
    ``1 + 2 + 3 + \cdots + 100``, ``2 + 4 + \dots + 50``, ``1 + 3 + 5 + ... + 99``, ``2^0 + 2^1 + 2^2 + \cdots + 2^8``:
    at least three terms before the ellipsis, each a plain number, a power or a numeric ``\frac``, must fix an
    arithmetic (difference ≠ 0) or geometric (ratio ∉ {0, 1, -1}) progression, and the single term after it must lie
    on that progression (at most 10**6 terms); the sum is computed in closed form with Fractions. Without a last term
    (``1 + \frac12 + \frac14 + \cdots``) only a geometric series with ``|r| < 1`` is read (its infinite sum).
``\sum_{k=a}^{b} f(k)``
    numeric bounds (at most 10**4 terms) and a summand in the index alone with no top-level ``+``/``-`` (``k^2``,
    ``2^k``, ``\frac{1}{k(k+1)}``, ``(2k+1)``): each term is evaluated by substituting the index textually.
Counting notation
    ``C(5, 2)``, ``P(5, 2)``, ``{}_5C_2``, ``^5C_2``, ``{}^{5}P_{2}``, ``_{5}P_{2}`` (``\binom`` is read by the
    arithmetic checker already).

Each such expression is replaced in the step by its value, in parentheses, and the rewritten step goes through
:func:`rewards.checks.arithmetic.extract_equations` / :func:`~rewards.checks.arithmetic.check_equation`; an equation that fails
and contains a replaced expression is reported (so ``3(1 + 2 + \cdots + 10) = 160`` and ``C(5,2) \cdot C(3,1) = 35``
are read with the arithmetic checker's own rounding and unit rules).

Statistics in words
    "the mean / average / arithmetic mean / median / mode of 3, 5 and 10 is 6" (also ``=``, "equals"): a list of at
    least two explicit numbers directly after "of" (optionally "the numbers", "the set", ``\{…\}``) and the value
    directly after the verb. A decimal value is accepted when it is the true value rounded to its written digits;
    a mode is refuted only when the value is not among the most frequent (a list without repeats is left alone).

Left alone, on purpose: anything with a letter in it (``1 + 2 + \cdots + n``), sums whose first terms fix no
progression (``1^2 + 2^2 + 3^2 + \cdots``: squares, Fibonacci-like runs), alternating signs, a sum glued to a
product or a power (``2 \cdot 1 + 2 + \cdots``), a last term followed by more terms, ``\sum`` with a summand of
several terms (``\sum k + 5`` is ambiguous), and every step over ``MAX_STEP_CHARS``.

Measured on ProcessBench with ``benchmarks/claim_checkers.py rewards.checks.claims.sequences:check_trace`` (no other checker):
MATH F1 0.2027 -> 0.2054 (+1 earliest error: ``C(52, 5) = 54,145``; 0 lost; 0 correct traces flagged; one trace
flagged before its labelled error — ``C(9, 7) = (9·8·7·6·5·4)/(7·6·5·4·3·2·1) = 36``, whose middle expression is
12, a real slip the labellers let pass); GSM8K no flag. Gold solutions: 0 of 7,473 GSM8K train and 0 of 500
MATH-500 flagged. 0.09 ms per GSM8K gold trace, 0.16 ms per MATH-500 gold trace. Recall is small because the data
holds few such claims with every quantity explicit: on ProcessBench MATH (steps up to the label) the parsers read
29 expressions (mostly ``C(n, k)``, three ellipsis sums, three ``\sum``) and no worded statistic with an explicit
list; on MATH-500 gold none.

>>> [c.detail for _, c in check_trace([r"So $1 + 2 + 3 + \cdots + 100 = 5000$."])]
['1 + 2 + 3 + \\cdots + 100 sums to 5050 (an arithmetic progression of 100 terms), not 5000']
>>> [c.detail for _, c in check_trace(["The mean of 3, 5 and 10 is 7."])]
['the mean of 3, 5, 10 is 6, not 7']
>>> check_trace([r"$2^0 + 2^1 + 2^2 + \cdots + 2^8 = 511$ and $C(5, 2) = 10$."])
[]
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from functools import lru_cache
from typing import Sequence

from rewards.checks.arithmetic import (Equation, EquationCheck, check_equation, contains_any, display_value, evaluate,
                                       extract_equations)
from rewards.checks.claims.gates import admits
from rewards.parsing.values import format_value as _show

__all__ = ["check_trace"]

MAX_STEP_CHARS = 4000
MAX_STEPS = 200
MAX_TERMS = 10**6  # terms of an ellipsis sum
MAX_SIGMA_TERMS = 10**4  # terms of a \sum evaluated one by one
MAX_GEOMETRIC_STEPS = 4000
MAX_BITS = 1400  # numerator/denominator size of any value (about 420 digits)
MAX_REGIONS = 20
MAX_LIST = 60
MAX_COUNT_N = 10**4
MAX_SIGMA_BUDGET = 10**4  # \sum terms evaluated per step (cached sums are free)

_PREFILTER = re.compile(r"\\[lc]?dots|\.\.\.|…|\\sum|[CP]\s?\(|[CP]_|mean|average|median|mode", re.I)
_PREFILTER_FOLDED = re.compile(r"\\[lc]?dots|\.\.\.|\\sum|[cp]\s?\(|[cp]_|mean|average|median|mode")
""":data:`_PREFILTER` for lower-cased ASCII text (the same steps, without re.I's slower scan)."""


_PREFILTER_WORDS = ("...", "mean", "average", "median", "mode", "c_", "p_")
_PREFILTER_COMMAND = re.compile(r"\\(?:[lc]?dots|sum)")
_PREFILTER_CALL = re.compile(r"[cp]\s?\(")
""":data:`_PREFILTER_FOLDED` split by what each branch needs: its literal branches are substring tests, and the two
patterns left run only on text holding their backslash or bracket (a scan for "c", "p", "m" or "a" stopped at
nearly every word)."""


_PREFILTER_CALL_REVERSED = re.compile(r"\(\s?[cp]")
""":data:`_PREFILTER_CALL` read backwards (a text holds a match exactly when its reversal holds one of this: the
pattern has no anchor or lookaround), which starts at a bracket, a literal the regex engine skips to, instead of at
each ``c`` and ``p``."""


def _has_prefilter_word(low: str) -> bool:
    """Whether one of :data:`_PREFILTER_WORDS` occurs in ``low`` (lower-cased)."""
    return contains_any(low, _PREFILTER_WORDS)


def _may_hold_a_claim(step: str) -> bool:
    """Cheap test: can ``step`` hold a sequence, sum, statistics or counting claim at all (:data:`_PREFILTER`)?"""
    if step.isascii():
        low = step.lower()
        return (_has_prefilter_word(low) or "\\" in low and _PREFILTER_COMMAND.search(low) is not None
                or "(" in low and _PREFILTER_CALL_REVERSED.search(low[::-1]) is not None)
    return _PREFILTER.search(step) is not None


# ------------------------------------------------------------------------------------------------- ellipsis sums
_NUM = r"\d{1,12}(?:\.\d{1,12})?"
_POW = rf"(?:{_NUM}|\{{{_NUM}\}})(?:\s?\^\s?(?:\d{{1,6}}|\{{\s?-?\d{{1,6}}\s?\}}))?"
_FRAC = rf"\\[dt]?frac\s?(?:\{{\s?{_POW}\s?\}}|\d)\s?(?:\{{\s?{_POW}\s?\}}|\d)"
_ATOM = rf"(?:{_FRAC}|{_POW})"
_ELLIPSIS = r"(?:\\[lc]?dots(?![A-Za-z])|\.\.\.|…)"
# a run of at least three "+"-separated atoms, the ellipsis, and optionally "+ last" (each gap a bounded blank run)
_ELLIPSIS_SUM = re.compile(
    rf"(?<![\w\\.^_}}/*·×-])((?:{_ATOM}[ \t]{{0,3}}\+[ \t]{{0,3}}){{3,40}}){_ELLIPSIS}"
    rf"(?:[ \t]{{0,3}}\+[ \t]{{0,3}}({_ATOM}))?")
_SPLIT_PLUS = re.compile(r"[ \t]{0,3}\+[ \t]{0,3}")
_BEFORE_BAD = re.compile(r"(?:[-−*/^·×÷!_]|\\cdot|\\times|\\div|\\pm|\\mp|\\frac|\\sqrt|\\binom|[A-Za-z0-9])$")
_AFTER_BAD = re.compile(r"^[ \t]{0,3}(?:[-−+*/^·×÷!_.\d(]|\\cdot|\\times|\\div|\\pm|\\mp|\\[lc]?dots|[A-Za-z]"
                        r"(?!\w*\s))")


def _small(q: Fraction) -> bool:
    return q.numerator.bit_length() <= MAX_BITS and q.denominator.bit_length() <= MAX_BITS


def _progression_sum(terms: list[Fraction], last: Fraction | None) -> tuple[Fraction, str] | None:
    """Closed-form sum of the progression the first ``terms`` fix, up to ``last`` (None: infinite), or None."""
    a = terms[0]
    diffs = {terms[i + 1] - terms[i] for i in range(len(terms) - 1)}
    if len(diffs) == 1 and last is not None:
        d = diffs.pop()
        if d == 0:
            return None
        steps = (last - a) / d
        if steps.denominator != 1 or steps < len(terms) - 1 or steps + 1 > MAX_TERMS:
            return None
        n = int(steps) + 1
        return n * (a + last) / 2, f"an arithmetic progression of {n} terms"
    if a == 0 or any(t == 0 for t in terms):
        return None
    ratios = {terms[i + 1] / terms[i] for i in range(len(terms) - 1)}
    if len(ratios) != 1:
        return None
    r = ratios.pop()
    if r in (0, 1, -1) or not _small(r):
        return None
    if last is None:
        if abs(r) >= 1:
            return None
        return a / (1 - r), "an infinite geometric series"
    t, n = a, 1
    for _ in range(MAX_GEOMETRIC_STEPS):
        if t == last:
            break
        t *= r
        n += 1
        if not _small(t) or (abs(r) > 1 and abs(t) > abs(last)) or (abs(r) < 1 and abs(t) < abs(last)):
            return None
    else:
        return None
    if n < len(terms):
        return None
    return a * (r ** n - 1) / (r - 1), f"a geometric progression of {n} terms"


def _exact(text: str) -> Fraction | None:
    v = evaluate(text)
    if v is None or not v.is_exact or v.exact is None or not _small(v.exact):
        return None
    return v.exact


def _may_hold_an_ellipsis_sum(step: str) -> bool:
    """What every match of :data:`_ELLIPSIS_SUM` holds: a ``+`` and an ellipsis (``...``, ``…``, or ``dots`` of
    ``\\ldots``/``\\cdots``/``\\dots``) — substring tests, where the pattern starts a bounded match at every atom."""
    return "+" in step and ("..." in step or "…" in step or "dots" in step)


def _ellipsis_regions(step: str) -> list[tuple[int, int, Fraction, str]]:
    out = []
    if not _may_hold_an_ellipsis_sum(step):
        return out
    for m in _ELLIPSIS_SUM.finditer(step):
        if len(out) >= MAX_REGIONS:
            break
        head = step[max(0, m.start() - 12):m.start()].rstrip(" \t")
        if _BEFORE_BAD.search(head) and not head.endswith(("\\(", "\\[")):
            continue
        tail = step[m.end():m.end() + 12]
        if _AFTER_BAD.match(tail) and not tail.lstrip(" \t").startswith(("\\)", "\\]", "\\right", "\\quad", "\\text")):
            continue
        terms = [t for t in _SPLIT_PLUS.split(m.group(1)) if t.strip()]
        values = [_exact(t) for t in terms]
        if any(v is None for v in values):
            continue
        last = None
        if m.group(2) is not None:
            last = _exact(m.group(2))
            if last is None:
                continue
        found = _progression_sum(values, last)  # type: ignore[arg-type]
        if found is not None:
            out.append((m.start(), m.end(), found[0], found[1]))
    return out


# ------------------------------------------------------------------------------------------------------ \sum
_SIGMA = re.compile(r"\\sum\s?_\s?\{\s?([a-z])\s?=\s?(-?\d{1,6})\s?\}\s?\^\s?(?:\{\s?(\d{1,6})\s?\}|(\d))[ \t]{0,3}")
_SUMMAND_END = re.compile(r"[ \t]{0,3}(?:=|\\\]|\\\)|\$|,|\\quad|\\qquad|\\text|\\approx|\.(?!\d)|$)")


def _summand(step: str, start: int) -> tuple[str, int] | None:
    """The summand starting at ``step[start]`` — up to the next top-level ``=``, delimiter or end — or None if it has a
    top-level ``+``/``-`` or an unbalanced bracket."""
    depth = 0
    i = start
    end = min(len(step), start + 120)
    while i < end:
        ch = step[i]
        if ch in "({[":
            depth += 1
        elif ch in ")}]":
            depth -= 1
            if depth < 0:
                break
        elif depth == 0 and (ch in "+-−" or step.startswith(("\\pm", "\\mp", "\\right", "\\left"), i)):
            if step.startswith(("\\left", "\\right"), i):
                i += 5 if step.startswith("\\left", i) else 6
                continue
            return None
        if depth == 0 and _SUMMAND_END.match(step, i):
            return step[start:i].rstrip(), i
        i += 1
    if depth == 0 and i == len(step):
        return step[start:i].rstrip(), i
    return None


_SUMMAND_OK = re.compile(r"(?:[\d\s+\-−*/^(){}!.·×]|\\(?:[dt]?frac|cdot|times|left|right|sqrt)(?![A-Za-z])|[a-z])*")


@lru_cache(maxsize=512)
def _sigma_value(var: str, lo: int, hi: int, body: str) -> Fraction | None:
    letters = set(re.findall(r"(?<![\\A-Za-z])[A-Za-z](?![A-Za-z])", re.sub(r"\\[A-Za-z]+", " ", body)))
    if letters != {var} or not _SUMMAND_OK.fullmatch(body) or hi < lo or hi - lo + 1 > MAX_SIGMA_TERMS:
        return None
    pieces = re.split(rf"(?<![\\A-Za-z]){var}(?![A-Za-z])", body)
    total = Fraction(0)
    for k in range(lo, hi + 1):
        v = _exact(f"({k})".join(pieces))
        if v is None:
            return None
        total += v
        if not _small(total):
            return None
    return total


def _sigma_regions(step: str) -> list[tuple[int, int, Fraction, str]]:
    out = []
    budget = MAX_SIGMA_BUDGET
    for m in _SIGMA.finditer(step):
        if len(out) >= MAX_REGIONS:
            break
        hi = m.group(3) or m.group(4)
        terms = int(hi) - int(m.group(2)) + 1
        if not 0 < terms <= budget:
            continue
        budget -= terms
        got = _summand(step, m.end())
        if got is None or not got[0]:
            continue
        body, end = got
        value = _sigma_value(m.group(1), int(m.group(2)), int(hi), body)
        if value is not None:
            out.append((m.start(), end, value, f"{int(hi) - int(m.group(2)) + 1} terms"))
    return out


# -------------------------------------------------------------------------------------------- counting notation
_COUNT = re.compile(
    r"(?<![A-Za-z\\])(?:([CP])\s?\(\s?(\d{1,4})\s?,\s?(\d{1,4})\s?\)"
    r"|(?:\{\s?\}|\\,)?[_^]\s?(?:\{\s?(\d{1,4})\s?\}|(\d))\s?([CP])\s?_\s?(?:\{\s?(\d{1,4})\s?\}|(\d)))")


_POINTS = re.compile(r"(?<![A-Za-z\\])[ABD-OQ-Z]'?\s?\(\s?-?\d|\b(?:points?|coordinates?|vert(?:ex|ices)|"
                     r"midpoint|plane|graph|axis|quadrilateral|triangle|polygon)\b", re.I)


def _count_value(kind: str, n: int, k: int) -> Fraction | None:
    if k > n or n > MAX_COUNT_N or (min(k, n - k) if kind == "C" else k) * math.log2(n + 1) > MAX_BITS:
        return None
    q = Fraction(math.comb(n, k) if kind == "C" else math.perm(n, k))
    return q if _small(q) else None


def _count_regions(step: str) -> list[tuple[int, int, Fraction, str]]:
    out = []
    if "C" not in step and "P" not in step:  # every match of _COUNT holds its C or P (case-sensitive)
        return out
    points = _POINTS.search(step) is not None
    for m in _COUNT.finditer(step):
        if len(out) >= MAX_REGIONS:
            break
        if m.group(1) and points:  # "C(5,2) and D(4,0)": a point, not a count
            continue
        if m.group(1):
            kind, n, k = m.group(1), int(m.group(2)), int(m.group(3))
        else:
            kind, n, k = m.group(6), int(m.group(4) or m.group(5)), int(m.group(7) or m.group(8))
        value = _count_value(kind, n, k)
        if value is not None:
            out.append((m.start(), m.end(), value, "combinations" if kind == "C" else "permutations"))
    return out


# ---------------------------------------------------------------------------------------------------- rewrite
def _literal(q: Fraction) -> str:
    return f"({q.numerator})" if q.denominator == 1 else f"(\\frac{{{q.numerator}}}{{{q.denominator}}})"


def _rewritten_checks(step: str) -> list[EquationCheck]:
    regions = _ellipsis_regions(step) + _sigma_regions(step) + _count_regions(step)
    if not regions:
        return []
    regions.sort()
    text, new_spans, kept = _rewritten(step, regions)
    out = []
    for eq in extract_equations(text):
        hit = [j for j, (a, b) in enumerate(new_spans) if eq.span[0] <= a and b <= eq.span[1]]
        if not hit or eq.approximate:
            continue
        check = check_equation(eq)
        if check.ok is not False:
            continue
        s, e, value, how = kept[hit[0]]
        detail = _rewritten_detail(eq, check, step[s:e].strip(), value, how)
        out.append(EquationCheck(Equation(sides=list(eq.sides), values=list(eq.values), span=(s, e), source="claim"),
                                 False, detail, check.pairs))
    return out


def _rewritten(step: str, regions: list) -> tuple[str, list[tuple[int, int]], list]:
    """``step`` with each region (non-overlapping, in order) replaced by its value's literal: the new text, where
    each literal stands in it, and the regions kept."""
    pieces, new_spans, pos, kept = [], [], 0, []
    for s, e, value, how in regions:
        if s < pos:
            continue
        pieces.append(step[pos:s])
        start = sum(len(p) for p in pieces)
        lit = _literal(value)
        pieces.append(lit)
        new_spans.append((start, start + len(lit)))
        kept.append((s, e, value, how))
        pos = e
    pieces.append(step[pos:])
    return "".join(pieces), new_spans, kept


def _rewritten_detail(eq, check, original: str, value: Fraction, how: str) -> str:
    """Why the equation is false, said of the region as written (``original``: a sum, a count) and its value."""
    i = next(p for p, ok in enumerate(check.pairs) if ok is False)
    lit = _literal(value)
    a_side, b_side = eq.sides[i].strip(), eq.sides[i + 1].strip()
    if a_side == lit or b_side == lit:
        other, v = (b_side, eq.values[i + 1]) if a_side == lit else (a_side, eq.values[i])
        shown = "" if v is None or other == display_value(v) else f" (which is {display_value(v)})"
        detail = f"{original} sums to {_show(value)} ({how}), not {other}{shown}"
    else:
        detail = f"{original} = {_show(value)} ({how}), so {check.detail}"
    if how in ("combinations", "permutations"):
        detail = detail.replace(" sums to ", " = ", 1)
    return detail


# ------------------------------------------------------------------------------------------------- statistics
_STAT = re.compile(r"\b(arithmetic mean|mean|average|median|mode)\s(?:value\s)?of\s(?:the\s)?"
                   r"(?:(?:numbers|integers|values|data|set|list|scores|terms|elements)\s)?", re.I)
_STAT_VERB = re.compile(r"\s(?:is|equals|would be)\s|=")
_STAT_JUNK = re.compile(r"\\text\s?\{\s?and\s?\}|\\[(){}]|\$|\\[,;!]|\\left|\\right|\band\b|[{}]")
_STAT_ITEM = re.compile(r"-?\d{1,9}(?:\.\d{1,9})?|\\[dt]?frac\{-?\d{1,9}\}\{\d{1,9}\}")
_STAT_VALUE = re.compile(r"\s?(?:\$|\\\(|\\\[)?\s?(?:\\boxed\{)?\s?(-?\d{1,9}(?:\.\d{1,9})?|\\[dt]?frac\{-?\d{1,9}\}"
                         r"\{\d{1,9}\})(?![\d.]\d|\s?(?:\\%|%|/|\\cdot|\\times|\^|\+|-|\\pm|\\approx|[A-Za-z(]))")
_HEDGE = re.compile(r"\b(?:if|suppose|assume|would|should|must|need|want|not|approximately|about|roughly|new|"
                    r"original|remaining|when|whether|check|let|given)\b", re.I)


def _stat_checks(step: str) -> list[EquationCheck]:
    out = []
    for m in _STAT.finditer(step):
        if len(out) >= MAX_REGIONS:
            break
        clause = re.split(r"[.;:!?\n]", step[max(0, m.start() - 60):m.start()])[-1]
        if _HEDGE.search(clause):  # "if the mean of 2 and 4 is 5", "the new mean of ...": a condition, not a claim
            continue
        verb = _STAT_VERB.search(step, m.end(), min(len(step), m.end() + 240))
        if verb is None:
            continue
        listed = _STAT_JUNK.sub(" ", step[m.end():verb.start()])
        items = [t for t in re.split(r"[,\s]+", listed) if t]
        if not 2 <= len(items) <= MAX_LIST or not all(_STAT_ITEM.fullmatch(t) for t in items):
            continue
        got = _STAT_VALUE.match(step, verb.end())
        if got is None or re.search(r"\\approx|≈|approx", step[verb.start():verb.end() + 2]):
            continue
        values = [_exact(t) for t in items]
        claimed_text = got.group(1)
        claimed = _exact(claimed_text)
        if claimed is None or any(v is None for v in values):
            continue
        kind = m.group(1).lower()
        srt = sorted(values)  # type: ignore[type-var]
        if kind in ("mean", "average", "arithmetic mean"):
            truth = [sum(values) / len(values)]  # type: ignore[arg-type]
        elif kind == "median":
            n = len(srt)
            truth = [srt[n // 2] if n % 2 else (srt[n // 2 - 1] + srt[n // 2]) / 2]
        else:
            counts = {v: values.count(v) for v in set(values)}
            top = max(counts.values())
            if top == 1:
                continue
            truth = [v for v, c in counts.items() if c == top]
        if "." in claimed_text:
            decimals = len(claimed_text.split(".", 1)[1])
            tol = Fraction(1, 2 * 10 ** decimals)
            if any(abs(t - claimed) <= tol for t in truth):
                continue
        elif claimed in truth:
            continue
        shown = ", ".join(items)
        detail = f"the {kind} of {shown} is {' or '.join(_show(t) for t in truth)}, not {claimed_text}"
        out.append(EquationCheck(Equation(sides=[f"{kind}({shown})", claimed_text], values=[None, None],
                                          span=(m.start(), got.end()), source="claim"), False, detail, (False,)))
    return out


def _may_hold_any(steps: Sequence[str]) -> bool:
    """The trace gate (:func:`rewards.checks.claims.gates.admits`) with :func:`_may_hold_a_claim`."""
    return admits(steps, _may_hold_a_claim)


def check_trace(steps: Sequence[str], problem: str = "") -> list[tuple[int, EquationCheck]]:
    """Failed sequence, statistics and counting claims, as ``(step_index, check)`` pairs (see the module docs)."""
    out: list[tuple[int, EquationCheck]] = []
    try:
        head = list(steps)[:MAX_STEPS]  # the steps read: the gate asks only these
        if not _may_hold_any(head):
            return out
        for k, step in enumerate(head):
            if not isinstance(step, str) or len(step) > MAX_STEP_CHARS or not _may_hold_a_claim(step):
                continue
            out.extend((k, c) for c in _rewritten_checks(step))
            out.extend((k, c) for c in _stat_checks(step))
    except Exception:  # untrusted text: a checker never raises
        return []
    return out
