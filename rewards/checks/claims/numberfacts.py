r"""Numeric facts stated in words — divisibility, last digits, digit sums, primality, divisor counts — and numeric
inequalities.

A claim checker for :mod:`rewards.checks.claims` (``check_trace(steps, problem)``). It refutes a step that states one of
these facts about explicit numbers and returns the failed :class:`~rewards.checks.arithmetic.EquationCheck`.

Divisibility
    "N is (not) divisible by d" (lists "by 2, 3 and 5", "by 2 or 3", "by 2 but not by 4"), "N is (not) a multiple
    of d", "d (does not) divide(s) N", "d is (not) a factor/divisor of N", ``d \mid N``, ``d \nmid N``, "A and B are
    (both) divisible by d", "N, which is (not) divisible by d". N and d are evaluated by
    :func:`rewards.checks.arithmetic.evaluate` and must be integers. The claim holds iff ``N mod d == 0`` (resp. ``≠ 0``);
    a list after "or" needs one divisor (none for a negated claim), a list after "and" needs all.
Last digits
    "the units (ones, last) digit of 7^{2011} is 3", "the last two digits of N are 47", "the tens digit of N is 4" (N a
    number, a power or a factorial): a power ``b^e`` is reduced with ``pow(b, e, 10**k)`` (``e ≤ 10**6``), never
    expanded.
Digit sums
    "the sum of the digits of N is S", "the digit sum of N is S".
Primality
    "N is (not) (a) prime (number)", "N is composite" for ``2 ≤ N ≤ 10**12`` (deterministic Miller–Rabin).
Number of divisors
    "N has K (positive) divisors/factors", "the number of (positive) divisors of N is K", "there are K divisors of
    N" (``N ≤ 10**8``, trial division; "48 has 4 factors of 2", "3 divisors of 50 that are even" are left alone).
Numeric inequalities
    ``A < B``, ``>``, ``\le``, ``\leq``, ``\ge``, ``\geq``, ``\lt``, ``\gt``, ``≤``, ``≥``, ``<=``, ``>=`` and
    chains of them, in math mode or prose, where both adjacent operands are numbers or numeric expressions (no
    letters); ``=`` inside a chain splits operands (``11^2 = 121 > 120`` compares 121 with 120). Exact values are
    compared exactly, strict vs non-strict included; when either side is a float (``\sqrt{50}``, ``\pi``) or a
    written decimal, a claim is refuted only when it is off by more than 1 % (so a rounded decimal never raises a
    false alarm).

The subject of a worded claim must be the number written directly before the verb, and the word before it a clause
boundary (punctuation, ``=``, "since", "so", "number", …): "the sum 1+2+3 = 6 is divisible by 3" is about 6, and
"the product of 3 and 4 is divisible by 6" is left alone (the subject is not "4"). An operand glued to a variable
(``2n + 24 > 5``, ``x_1 < 3``, ``f(2) > 0``) is never read.

Left alone, on purpose: claims about a variable; a claim that is being tested rather than stated — after "if",
"whether", "check", "need", "must", "suppose", …, or followed by "?", "false", "not", "fails", "no", "impossible",
"contradiction" (``2 + 4 > 6?`` "No", "since 7 > 8 is false"); ``\not<``, ``\ll``, ``\gg``, ``\approx``; ``<``/``>``
in HTML or emoticons (no numeric operand on both sides); "N is the largest prime factor of M" (superlatives); lists
of primes; congruences, remainders, gcd/lcm and base-``b`` numerals (:mod:`rewards.checks.claims.congruences` reads those); every
step over ``MAX_STEP_CHARS``.

Measured on ProcessBench when introduced (``benchmarks/claim_checkers.py rewards.checks.claims.numberfacts:check_trace``, no other
checker): MATH F1 0.2027 -> 0.2242 (+8 earliest errors found, 0 lost, 0 correct traces flagged, no flag before a
labelled error); GSM8K unchanged (no flag). Gold solutions: 0 of 7,473 GSM8K train and 0 of 500 MATH-500 newly
flagged. The checker alone costs 0.10 ms per GSM8K trace and 0.14 ms per MATH-500 trace. It reads few claims
(on ProcessBench MATH and MATH-500 together about 56 numeric inequalities, 44 divisibility and 26 primality claims
with every quantity numeric), but those it refutes are real slips.

>>> [c.detail for _, c in check_trace([r"Since $4! = 24$ is divisible by 9, we keep it."], "")]
['24 is divisible by 9 is false: 24 = 9·2 + 6']
>>> [c.detail for _, c in check_trace([r"This works because \(2 + 4 > 6\)."], "")]
['2 + 4 > 6 is false: 2 + 4 = 6 and 6']
>>> check_trace([r"Since $11^2 = 121 > 120$, 121 is not prime and 1199 is not divisible by 3."], "")
[]
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from functools import lru_cache
from typing import Sequence

from rewards.checks.arithmetic import Equation, EquationCheck, Value, contains_any, display_value, evaluate
from rewards.checks.claims.gates import admits
from rewards.checks.claims.congruences import PLAIN_MARKUP

__all__ = ["check_trace", "fact_checks", "inequality_checks"]

MAX_STEP_CHARS = 4000
MAX_CLAIMS = 60  # claims read per step
MAX_OPERAND_CHARS = 80
MAX_EXPONENT = 10**6
MAX_PRIME = 10**12
MAX_DIVISOR_COUNT = 10**8  # trial division up to 10**4 (about 1 ms per claim, cached)
MAX_BITS = 4096
APPROX_TOL = 1e-2

_PREFILTER_WORDS = ("divis", "divid", "multiple", "factor", "digit", "prime", "composite", "mid")
_PREFILTER_SYMBOLS = re.compile(r"(?<![<>])[<>](?![<>])|[≤≥≦≧]|\\[lg](?:eq?|t|eqslant)(?![A-Za-z])")
_PREFILTER_SCAN = re.compile(r"[<>](?<![<>][<>])(?![<>])|[≤≥≦≧]|\\[lg](?:eq?|t|eqslant)(?![A-Za-z])")
""":data:`_PREFILTER_SYMBOLS` with the lookbehind after the ``<``/``>`` it guards (``[<>]`` not preceded by one is
``[<>]`` whose two characters up to it are not both ``<``/``>``): the same steps match, and every branch now starts
with a character, which the regex engine skips to (a leading lookbehind made it try each position of the step)."""


def _may_hold_a_fact(step: str) -> bool:
    """Cheap test (substring search on the lower-cased step, one small regex): can ``step`` state a fact at all?
    It must accept every step any of the detailed patterns could match (GSM8K's ``<<a*b=c>>`` brackets excluded)."""
    low = step.lower()
    return _has_prefilter_word(low) or (
        _may_compare(step) and _PREFILTER_SCAN.search(step) is not None)


def _has_prefilter_word(low: str) -> bool:
    """Whether one of :data:`_PREFILTER_WORDS` occurs in ``low`` (lower-cased)."""
    return contains_any(low, _PREFILTER_WORDS)


def _may_compare(step: str) -> bool:
    """Substring tests every match of :data:`_PREFILTER_SCAN` passes (the regex tries each bracket and backslash;
    these are a few linear scans): a ``<``/``>`` left once the ``<<``/``>>`` pairs are taken out (a lone one keeps
    its neighbours, which are no brackets), a comparison sign, or a ``\\l``/``\\g`` command."""
    if "<" in step or ">" in step:
        bare = step.replace("<<", "").replace(">>", "")
        if "<" in bare or ">" in bare:
            return True
    return "\\l" in step or "\\g" in step or not step.isascii() and (  # the four signs are not ASCII
        "≤" in step or "≥" in step or "≦" in step or "≧" in step)

# ----------------------------------------------------------------------------------------------- operands
# characters and commands an arithmetic operand may be made of (after PLAIN_MARKUP removed $, \text, \left, \, …)
_OP_PIECE = (r"(?:\d|[ \t+\-*/^(){}\[\]!·×÷−]|\.(?=\d)|,(?=\d{3}(?!\d))"
             r"|\\(?:d?t?frac|sqrt|cdot|times|div|pi|binom|dbinom)(?![A-Za-z]))")
_OPERAND_END = re.compile(rf"{_OP_PIECE}+$")
_OPERAND_START = re.compile(rf"{_OP_PIECE}+")
_BINARY_START = re.compile(r"^(?:[+*/^·×÷]|\\(?:cdot|times|div)(?![A-Za-z]))")
_BINARY_END = re.compile(r"(?:[+\-*/^·×÷−]|\\(?:cdot|times|div|d?t?frac|sqrt|binom|dbinom))$")
_WORD_BEFORE = re.compile(r"([A-Za-z]+)\s*$")
_BOUNDARY_CMD = re.compile(r"\\(?:leqslant|geqslant|leq|geq|le|ge|lt|gt|ne|neq|approx|implies|Rightarrow|"
                           r"Longrightarrow|iff|quad|qquad|therefore|because)$")
# words after which a number starts a clause (the claim is about that number)
_LEAD_WORDS = frozenset(
    "so since thus therefore hence because as number integer numbers integers but now clearly then here also that "
    "both obviously indeed note notice see where while whereas whole value result answer sum product total "
    "difference quotient get gives obtain yields is are was all have has had know see find found show shows means "
    "implies".split())
# words that make what follows a question, a condition or a requirement rather than a claim
_HEDGE_BEFORE = re.compile(
    r"\b(?:if|whether|check|checking|checks|test|testing|tests|need|needs|must|should|want|suppose|supposing|assume|"
    r"assuming|unless|require|requires|required|requirement|try|trying|verify|verifying|determine|see\s+if|is\s+it|"
    r"does|do|can|could|would|might|not|no|false|claim|claims|say|says|said|thought|mistakenly|incorrectly|"
    r"wrong|wrongly|until|when|whenever|ensure|such\s+that|so\s+that)\b|\?", re.I)
_HEDGE_AFTER = re.compile(
    r"^\s*[),]?\s*(?:\?|(?:which\s+|but\s+this\s+|this\s+|that\s+|it\s+)?(?:is|are|was)\s+(?:false|not\s+true|"
    r"incorrect|impossible|a\s+contradiction|wrong|untrue|not\s+(?:the\s+case|possible|valid))\b|"
    r"(?:\(|\\text\s*\{|-|—|–)?\s*(?:false|no|not|fails?|failed|incorrect|invalid|wrong|contradiction|impossible)\b"
    r"|does(?:n't|\s+not)\s+(?:hold|work)|✗|✘|❌)", re.I)


def _balanced_trim(s: str) -> str:
    s = s.strip()
    for _ in range(8):
        changed = False
        if s and s[0] in "([{" and _depth(s) > 0:
            s, changed = s[1:].strip(), True
        if s and s[-1] in ")]}" and _depth(s) < 0:
            s, changed = s[:-1].strip(), True
        if not changed:
            break
    return s


def _depth(s: str) -> int:
    return sum(s.count(c) for c in "([{") - sum(s.count(c) for c in ")]}")


def _operand_before(text: str, end: int, lead_words: bool = True) -> tuple[str, int] | None:
    """The arithmetic operand that ends at ``text[end]`` and begins a clause, with its start; None if there is none
    or it is glued to something that is not a clause boundary (a variable, a subscript, a function name)."""
    lo = max(0, end - MAX_OPERAND_CHARS)
    m = _OPERAND_END.search(text, lo, end)
    if m is None:
        return None
    raw = m.group(0)
    op = _balanced_trim(raw)
    if not op or not any(ch.isdigit() for ch in op) or _BINARY_START.match(op) or _depth(op) != 0:
        return None
    start = m.start()
    before = text[max(0, start - 40):start]
    if not before.strip():
        return op, start
    if raw[:1] not in " \t" and (before[-1].isalnum() or before[-1] in "_'\\}^|"):
        return None  # glued: 2n+24, x_1, f(2)
    stripped = before.rstrip()
    last = stripped[-1]
    if last in "=,;:([{<>≤≥.":
        return op, start
    if _BOUNDARY_CMD.search(stripped):
        return op, start
    w = _WORD_BEFORE.search(stripped)
    if w is None or not lead_words:
        return None
    word = w.group(1)
    if len(word) < 2 or stripped[w.start() - 1:w.start()] == "\\":
        return None  # a variable or a LaTeX command before it
    if op[0] in "-−" and word.lower() not in _LEAD_WORDS:
        return None
    if word.lower() not in _LEAD_WORDS:
        return None
    return op, start


_BENIGN_CMD = re.compile(r"\\(?:quad|qquad|text|implies|Rightarrow|Longrightarrow|le|ge|lt|gt|leq|geq|ne|neq|"
                         r"approx|and|iff|to|mbox|mathrm|textbf|cdots|ldots|dots|,|;|\\)(?![A-Za-z])")


def _operand_after(text: str, start: int) -> tuple[str, int] | None:
    """The arithmetic operand that starts at ``text[start]``, with its end; None if it runs into a variable."""
    m = _OPERAND_START.match(text, start, min(len(text), start + MAX_OPERAND_CHARS))
    if m is None:
        return None
    raw = m.group(0)
    end = m.end()
    nxt = text[end:end + 12]
    if nxt[:1].isalpha():
        if raw[-1:] not in " \t":
            return None  # glued: 2x
        w = re.match(r"[A-Za-z]+", nxt)
        if w is not None and len(w.group(0)) == 1 and w.group(0).lower() not in "a":
            return None  # "5 > 2 n"
    elif nxt[:1] == "\\":
        if not _BENIGN_CMD.match(nxt):
            return None  # \alpha, \log, \sin ...
    elif nxt and nxt[0] in "_'|":
        return None
    op = raw.rstrip(" \t")
    while op and op[-1] in ".,":
        op = op[:-1]
    op = _balanced_trim(op)
    if not op or not any(ch.isdigit() for ch in op) or _BINARY_END.search(op) or _depth(op) != 0:
        return None
    return op, start + len(raw.rstrip())


def _value(op: str) -> Value | None:
    if len(op) > MAX_OPERAND_CHARS:
        return None
    return evaluate(op.replace("−", "-"))


def _int(op: str) -> int | None:
    v = _value(op)
    if v is None or not v.is_exact or v.exact is None or v.exact.denominator != 1:
        return None
    n = v.exact.numerator
    return n if n.bit_length() <= MAX_BITS else None


def _check(sides: list[str], values: list, span: tuple[int, int], detail: str, rel: str = "=") -> EquationCheck:
    vals = [None if v is None else v if isinstance(v, Value) else Value(Fraction(v), float(v), True) for v in values]
    eq = Equation(sides=list(sides), values=vals, span=span, source="claim", relations=(rel,) * (len(sides) - 1))
    return EquationCheck(eq, False, detail, (False,) * max(1, len(sides) - 1))


def _hedged(text: str, start: int, end: int) -> bool:
    """The claim at ``text[start:end]`` is a question, a condition or a requirement, not an assertion."""
    lo = max(0, start - 60)
    before = text[lo:start]
    cut = max(before.rfind(". "), before.rfind(";"), before.rfind("\n"), before.rfind(":"), before.rfind(","))
    before = before[cut + 1:]
    if _HEDGE_BEFORE.search(before):
        return True
    return bool(_HEDGE_AFTER.match(text[end:end + 40]))


def _clean(text: str) -> str:
    plain = PLAIN_MARKUP.sub(lambda m: f" {m.group(1)} " if m.group(1) is not None else " ", text)
    return plain.replace("\\dfrac", "\\frac").replace("\\tfrac", "\\frac")


def _short(s: str) -> str:
    return re.sub(r"\s+", " ", s).strip()


# ------------------------------------------------------------------------------------------ divisibility
_NUM = r"(?:\d{1,3}(?:,\d{3})+(?![\d,])|\d{1,30})"
_DIVISOR = rf"(?:{_NUM}(?:\s*\^\s*(?:\{{\s*\d{{1,3}}\s*\}}|\d))?|{_NUM}\s*!)"
_DIVISOR_TAIL = r"(?!\d|[.,]\d|\s*[\^/÷*×·+\-!]|\s*\\(?:cdot|times)|[A-Za-z_(])"
_DIV_LIST = (rf"(?P<dlist>{_DIVISOR}(?:(?:\s*,\s*{_DIVISOR}){{0,6}}\s*(?:,\s*)?(?:and|or|nor)\s+(?:by\s+)?{_DIVISOR})?)"
             rf"{_DIVISOR_TAIL}")
_DIVISIBLE = re.compile(
    rf"\b(?P<verb>is|are|isn't|aren't)\s+(?P<neg>not\s+|never\s+)?(?:both\s+|all\s+|also\s+|evenly\s+|exactly\s+|"
    rf"clearly\s+|obviously\s+|indeed\s+|definitely\s+|certainly\s+)?(?:(?P<div>divisible)\s+(?:by\s+)?(?:both\s+)?|"
    rf"(?P<mult>a\s+multiple|multiples)\s+of\s+(?:both\s+)?){_DIV_LIST}"
    rf"(?P<but>\s*(?:,\s*)?but\s+not\s+(?:by\s+|of\s+)?(?P<bnot>{_DIVISOR}){_DIVISOR_TAIL})?", re.I)
_DIVIDES = re.compile(
    rf"(?P<verb>\bdivides|\bdivide|\bdoes\s+not\s+divide|doesn't\s+divide|do\s+not\s+divide|don't\s+divide|"
    rf"\b(?:is|are)\s+(?P<fneg>not\s+)?(?:a\s+|an\s+)?(?:positive\s+|proper\s+|prime\s+)?(?:factor|divisor)s?\s+of|"
    rf"\\mid|\\nmid|∣|∤)\s+(?P<n>{_DIVISOR}){_DIVISOR_TAIL}", re.I)
_SUBJECT_LIST = re.compile(
    rf"(?:(?<=[\s=,;:(])|^)(?:both\s+)?(?P<items>{_DIVISOR}(?:\s*,\s*{_DIVISOR}){{0,6}}\s*,?\s*and\s+{_DIVISOR})\s*$",
    re.I)


def _split_list(s: str) -> tuple[list[str], str]:
    """Items of "2, 3 and 5" / "2 or 3" and the connective (``and``/``or``)."""
    conj = "or" if re.search(r"\b(?:or|nor)\b", s, re.I) else "and"
    items = [x for x in re.split(r"\s*(?:,\s*(?:and|or|nor)\s+|,|\band\b|\bor\b|\bnor\b)\s*", s, flags=re.I) if x]
    return items, conj


def _subjects(text: str, verb_start: int, plural: bool) -> tuple[list[str], int] | None:
    """The number(s) a worded claim is about: the operand before the verb (``, which`` skipped), or a list
    "A, B and C" before "are"."""
    end = verb_start
    head = text[max(0, end - 120):end]
    w = re.search(r",?\s*(?:which|that)\s+(?:also\s+)?$", head)
    if w is not None:
        end -= len(w.group(0))
        got = _operand_before(text, end, lead_words=False)
        if got is None or not re.search(r",\s*(?:which|that)", w.group(0)):
            return None
        return [got[0]], got[1]
    if plural:
        m = _SUBJECT_LIST.search(text, max(0, end - 120), end)
        if m is None:
            return None
        before = text[max(0, m.start() - 30):m.start()].rstrip()
        ww = _WORD_BEFORE.search(before)
        if before and before[-1] not in "=,;:(." and (ww is None or ww.group(1).lower() not in _LEAD_WORDS):
            return None
        items, conj = _split_list(m.group("items"))
        return (items, m.start()) if conj == "and" else None
    got = _operand_before(text, end)
    if got is None:
        return None
    return [got[0]], got[1]


def _divisibility_checks(text: str, budget: list[int]) -> list[EquationCheck]:
    out: list[EquationCheck] = []
    for m in _DIVISIBLE.finditer(text):
        budget[0] -= 1
        if budget[0] < 0:
            return out
        verb = m.group("verb").lower()
        plural = verb.startswith("are")
        neg = bool(m.group("neg")) or "n't" in verb
        subj = _subjects(text, m.start(), plural)
        if subj is None or _hedged(text, subj[1], m.end()):
            continue
        items, conj = _split_list(m.group("dlist"))
        both = neg and conj == "and" and len(items) > 1  # "not divisible by 2 and 3": false only if all divide
        ds = [_int(x) for x in items]
        ns = [_int(x) for x in subj[0]]
        if any(d is None or d <= 0 for d in ds) or any(n is None for n in ns):
            continue
        bnot = _int(m.group("bnot")) if m.group("bnot") else None
        for n, n_text in zip(ns, subj[0]):
            divides = [n % d == 0 for d in ds]
            holds = ((not all(divides)) if both else (not any(divides)) if neg
                     else (any(divides) if conj == "or" else all(divides)))
            if bnot is not None and bnot > 0 and not neg:
                holds = holds and n % bnot != 0
            if holds:
                continue
            claim = _short(f"{n_text} {'is' if not plural else 'is'} {'not ' if neg else ''}"
                           f"{'divisible by' if m.group('div') else 'a multiple of'} {m.group('dlist')}"
                           + (f" but not by {m.group('bnot')}" if m.group("bnot") else ""))
            why = "; ".join(f"{n} = {d}·{n // d}" if n % d == 0 else f"{n} = {d}·{n // d} + {n % d}"
                            for d in ds + ([bnot] if bnot else []))
            out.append(_check([_short(n_text), _short(m.group("dlist"))], [n, None], (subj[1], m.end()),
                              f"{claim} is false: {why}", "|"))
            break
    for m in _DIVIDES.finditer(text):
        budget[0] -= 1
        if budget[0] < 0:
            return out
        verb = _short(m.group("verb")).lower()
        plural = verb in ("divide", "do not divide", "don't divide") or verb.startswith("are")
        neg = "not" in verb or "n't" in verb or verb in ("\\nmid", "∤")
        if verb in ("\\mid", "\\nmid", "∣", "∤"):
            got = _operand_before(text, m.start())
            subj = None if got is None else ([got[0]], got[1])
        else:
            subj = _subjects(text, m.start(), plural)
        if subj is None or _hedged(text, subj[1], m.end()):
            continue
        n = _int(m.group("n"))
        ds = [_int(x) for x in subj[0]]
        if n is None or any(d is None or d <= 0 for d in ds):
            continue
        for d, d_text in zip(ds, subj[0]):
            if (n % d == 0) != neg:
                continue
            claim = _short(f"{d_text} {m.group('verb')} {m.group('n')}")
            why = f"{n} = {d}·{n // d}" if n % d == 0 else f"{n} = {d}·{n // d} + {n % d}"
            out.append(_check([_short(d_text), _short(m.group("n"))], [d, n], (subj[1], m.end()),
                              f"{claim} is false: {why}", "|"))
            break
    return out


# ------------------------------------------------------------------------------- digits, primes, divisors
_POWER = r"(?P<b>\d{1,12})\s*+(?:\^\s*(?:\{\s*(?P<e1>\d{1,7})\s*\}|(?P<e2>\d))(?!\s*[\d^])|(?P<fact>!))?"
_PLACE = r"(?P<place>units?|ones|last|final|rightmost|unit's|units'|tens|hundreds)"
_LAST_DIGITS = re.compile(
    rf"\bthe\s+(?:{_PLACE}\s+digit|(?P<k>last|final|rightmost)\s+(?P<kw>two|three|2|3)\s+digits)\s+(?:of|in)\s+"
    rf"{_POWER}\s*(?:is|are|=|will\s+be|must\s+be|equals)\s*+(?::\s*+)?(?:\\boxed\s*+)?(?:\{{\s*)?(?P<d>\d{{1,3}})"
    rf"(?!\d|[.,]\d|\s*[\^/÷*×·+\-]|\s*\\(?:cdot|times))", re.I)
_DIGIT_SUM = re.compile(
    rf"\b(?:the\s+)?(?:sum\s+of\s+(?:the\s+|its\s+)?digits|digit\s+sum|digital\s+sum)\s+(?:of|in)\s+"
    rf"(?:the\s+number\s+)?"
    rf"(?P<n>{_NUM}(?:\s*\^\s*(?:\{{\s*\d{{1,4}}\s*\}}|\d))?)\s*(?:,\s*)?(?:is|=|equals)\s*(?::\s*)?(?:\\boxed\s*)?(?:\{{\s*)?"
    rf"(?P<s>\d{{1,5}})(?!\d|[.,]\d|\s*[\^/÷*×·+\-=]|\s*\\(?:cdot|times))", re.I)
_PRIME = re.compile(
    r"\b(?P<verb>is|are|isn't|aren't)\s+(?P<neg>not\s+)?(?:also\s+|clearly\s+|obviously\s+|indeed\s+|definitely\s+|"
    r"certainly\s+|itself\s+)?(?:(?:a\s+)?(?P<kind>prime|composite)(?:\s+numbers?)?)"
    r"(?!\s*(?:factor|divisor|power|to\b|relative|-|number\s+of|numbers?\s+(?:less|greater|between|of|that|which)))"
    r"\b", re.I)
_NUM_DIVISORS = re.compile(
    rf"\bhas\s+(?:exactly\s+|a\s+total\s+of\s+)?(?P<k>\d{{1,5}})\s+(?:positive\s+|total\s+|distinct\s+|"
    rf"positive\s+integer\s+|integer\s+|whole[- ]number\s+)?(?:divisors|factors)\b(?!\s*(?:of|that|which|in|greater|"
    rf"less|between|other|besides|excluding|including|except|,\s*(?:of|that|which)))", re.I)
_NUM_DIVISORS2 = re.compile(
    rf"\bthe\s+(?:total\s+)?number\s+of\s+(?:positive\s+|distinct\s+|positive\s+integer\s+)?(?:divisors|factors)\s+of"
    rf"\s+(?P<n>{_NUM}(?:\s*\^\s*(?:\{{\s*\d{{1,3}}\s*\}}|\d))?)\s*(?:is|=|equals)\s*(?::\s*)?(?:\\boxed\s*)?(?:\{{\s*)?"
    rf"(?P<k>\d{{1,5}})(?!\d|[.,]\d|\s*[\^/÷*×·+\-=(]|\s*\\(?:cdot|times))"
    rf"|\bthere\s+are\s+(?:exactly\s+|a\s+total\s+of\s+)?(?P<k2>\d{{1,5}})\s+"
    rf"(?:positive\s+|distinct\s+|positive\s+integer\s+)?"
    rf"(?:divisors|factors)\s+of\s+(?P<n2>{_NUM}(?:\s*\^\s*(?:\{{\s*\d{{1,3}}\s*\}}|\d))?)"
    rf"(?!\d|[.,]\d|\s*[\^/÷*×·+\-=(!]|\s*\\(?:cdot|times)|\s+(?:that|which|greater|less|between|other|besides|"
    rf"excluding|except|in|from))", re.I)


def _last_digits(b: int, e: int | None, fact: bool, k: int) -> int | None:
    mod = 10 ** k
    if fact:
        if b >= 25:
            return 0  # 25! already ends in six zeros; mod is at most 10**3
        return math.factorial(b) % mod
    if e is None:
        return b % mod
    if e > MAX_EXPONENT:
        return None
    return pow(b, e, mod)


def _is_prime(n: int) -> bool:
    """Deterministic Miller–Rabin (exact for every ``n`` below 3.3·10**24, far above ``MAX_PRIME``)."""
    if n < 2:
        return False
    small = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37)
    for p in small:
        if n % p == 0:
            return n == p
    d, r = n - 1, 0
    while d % 2 == 0:
        d //= 2
        r += 1
    for a in small:
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(r - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


@lru_cache(maxsize=4)
def _prime_blocks(limit: int) -> tuple[int, tuple[tuple[int, tuple[int, ...]], ...]]:
    """The product of the primes from 7 to ``limit``, and those primes in blocks of 256 with each block's product
    (one gcd tests them all, or a whole block)."""
    sieve = bytearray([1]) * (limit + 1)
    sieve[:2] = b"\0\0"
    for p in range(2, math.isqrt(limit) + 1):
        if sieve[p]:
            sieve[p * p::p] = bytes(len(range(p * p, limit + 1, p)))
    primes = [p for p in range(7, limit + 1) if sieve[p]]
    blocks = tuple((math.prod(primes[k:k + 256]), tuple(primes[k:k + 256])) for k in range(0, len(primes), 256))
    total = 1
    for prod, _ in blocks:
        total *= prod
    return total, blocks


def _smallest_factor(n: int, limit: int = 10**5) -> int | None:
    """The least prime factor of ``n`` if it is at most ``limit`` (or ``n`` is), else None.

    What trial division by 7, 9, 11, … while ``i * i <= n and i <= limit`` returns, found with one gcd per block
    of 256 primes (a composite ``n`` near ``MAX_PRIME`` without a small factor costs ~40 gcds, not 50,000 divisions).
    """
    for p in (2, 3, 5):
        if n % p == 0:
            return p
    if n < 0 or limit > 10**6:  # not reached from the checks (2 <= n <= MAX_PRIME); plain trial division
        i = 7
        while i * i <= n and i <= limit:
            if n % i == 0:
                return i
            i += 2
        return n if i * i > n else None
    bound = min(math.isqrt(n), limit)  # the divisors trial division would test: 7 <= i <= bound
    total, blocks = _prime_blocks(limit)
    for prod, primes in blocks if math.gcd(n, total) > 1 else ():
        if primes[0] > bound:
            break
        if math.gcd(n, prod) > 1:
            for p in primes:
                if p > bound:
                    break
                if n % p == 0:
                    return p
    stop = max(7, bound + 1 + bound % 2)  # the first odd i >= 7 past the bound ends the trial division
    return n if stop * stop > n else None


@lru_cache(maxsize=1024)
def _num_divisors(n: int) -> int:
    count, p = 1, 2
    while p * p <= n:
        e = 0
        while n % p == 0:
            n //= p
            e += 1
        count *= e + 1
        p += 1 if p == 2 else 2
    return count * (2 if n > 1 else 1)


def _digit_checks(text: str, budget: list[int]) -> list[EquationCheck]:
    out: list[EquationCheck] = []
    for m in _LAST_DIGITS.finditer(text):
        budget[0] -= 1
        if budget[0] < 0:
            return out
        if _hedged(text, m.start(), m.end()):
            continue
        place = (m.group("place") or "").lower()
        kw = m.group("kw")
        k = {"two": 2, "2": 2, "three": 3, "3": 3}.get((kw or "").lower(), 1)
        pos = {"tens": 1, "hundreds": 2}.get(place, 0)
        b = int(m.group("b"))
        e = m.group("e1") or m.group("e2")
        got = _last_digits(b, int(e) if e else None, bool(m.group("fact")), k + pos)
        if got is None:
            continue
        actual = got // 10**pos % 10**k
        d = m.group("d")
        if len(d) > k or (k > 1 and len(d) != k):
            continue
        if int(d) == actual:
            continue
        expr = f"{b}^{{{e}}}" if e else f"{b}!" if m.group("fact") else str(b)
        what = "last two digits" if k == 2 else "last three digits" if k == 3 else f"{place or 'units'} digit"
        verb = "are" if k > 1 else "is"
        out.append(_check([expr, d], [actual, int(d)], m.span(),
                          f"the {what} of {expr} {verb} {d} is false: the {what} of {expr} {verb} {actual:0{k}d}"))
    for m in _DIGIT_SUM.finditer(text):
        budget[0] -= 1
        if budget[0] < 0:
            return out
        if _hedged(text, m.start(), m.end()):
            continue
        n = _int(m.group("n").replace(",", ""))
        if n is None or n < 0:
            continue
        s = sum(int(c) for c in str(n))
        if s == int(m.group("s")):
            continue
        out.append(_check([_short(m.group("n")), m.group("s")], [s, int(m.group("s"))], m.span(),
                          f"{_short(m.group(0))} is false: the digits of {n} sum to {s}"))
    return out


def _prime_checks(text: str, budget: list[int]) -> list[EquationCheck]:
    out: list[EquationCheck] = []
    for m in _PRIME.finditer(text):
        budget[0] -= 1
        if budget[0] < 0:
            return out
        verb = m.group("verb").lower()
        plural = verb.startswith("are")
        subj = _subjects(text, m.start(), plural)
        if subj is None or _hedged(text, subj[1], m.end()):
            continue
        neg = bool(m.group("neg")) or "n't" in verb
        want_prime = (m.group("kind").lower() == "prime") != neg
        composite_claim = m.group("kind").lower() == "composite"
        for n_text in subj[0]:
            n = _int(n_text)
            if n is None or n < 2 or n > MAX_PRIME:
                continue
            p = _is_prime(n)
            if composite_claim and not neg:
                holds = not p
            elif composite_claim and neg:
                continue  # "not composite" (1 is neither)
            else:
                holds = p == want_prime
            if holds:
                continue
            f = None if p else _smallest_factor(n)
            why = (f"{n} has no divisor between 1 and itself" if p else f"{n} = {f}·{n // f}" if f else
                   f"{n} is composite")
            claim = _short(f"{n_text} is {m.group('neg') or ''}{m.group('kind')}")
            out.append(_check([_short(n_text)], [n], (subj[1], m.end()), f"{claim} is false: {why}", "prime"))
            break
    for rx in (_NUM_DIVISORS, _NUM_DIVISORS2):
        for m in rx.finditer(text):
            budget[0] -= 1
            if budget[0] < 0:
                return out
            if rx is _NUM_DIVISORS:
                subj = _subjects(text, m.start(), False)
                if subj is None or len(subj[0]) != 1:
                    continue
                n_text, start = subj[0][0], subj[1]
            else:
                n_text, start = m.group("n") or m.group("n2"), m.start()
            if _hedged(text, start, m.end()):
                continue
            n = _int(n_text.replace(",", ""))
            if n is None or n < 1 or n > MAX_DIVISOR_COUNT:
                continue
            k, true = int(m.group("k") or m.group("k2")), _num_divisors(n)
            if k == true:
                continue
            out.append(_check([_short(n_text), str(k)], [true, k], (start, m.end()),
                              f"{_short(text[start:m.end()])} is false: {n} has {true} positive divisors"))
    return out


# ------------------------------------------------------------------------------------------ inequalities
_REL = re.compile(
    r"(?P<not>\\not\s*)?(?P<rel><=|>=|(?<![<>\-=])<(?![<>=\-])|(?<![<>\-=])>(?![<>=])|≤|≥|≦|≧|"
    r"\\(?:leqslant|geqslant|leq|geq|le|ge|lt|gt)(?![A-Za-z]))")
_REL_NAME = {"<": "<", ">": ">", "<=": "≤", ">=": "≥", "≤": "≤", "≥": "≥", "≦": "≤", "≧": "≥",
             "\\le": "≤", "\\leq": "≤", "\\leqslant": "≤", "\\ge": "≥", "\\geq": "≥", "\\geqslant": "≥",
             "\\lt": "<", "\\gt": ">"}
_DECIMAL = re.compile(r"\d\.\d")


def _holds(a: Value, b: Value, rel: str, approx: bool) -> bool:
    if not approx and a.is_exact and b.is_exact and a.exact is not None and b.exact is not None:
        x, y = a.exact, b.exact
        return {"<": x < y, ">": x > y, "≤": x <= y, "≥": x >= y}[rel]
    x, y = a.approx, b.approx
    if not (math.isfinite(x) and math.isfinite(y)):
        return True
    tol = APPROX_TOL * max(abs(x), abs(y)) + 1e-9
    return x < y + tol if rel in "<≤" else x > y - tol


def inequality_checks(text: str, budget: list[int] | None = None) -> list[EquationCheck]:
    """A failed check for every false numeric inequality in ``text`` (already cleaned by :func:`_clean`)."""
    budget = budget if budget is not None else [MAX_CLAIMS]
    out: list[EquationCheck] = []
    for m in _REL.finditer(text):
        budget[0] -= 1
        if budget[0] < 0:
            return out
        if m.group("not"):
            continue
        left = _operand_before(text, m.start())
        right = _operand_after(text, m.end())
        if left is None or right is None:
            continue
        a, b = _value(left[0]), _value(right[0])
        if a is None or b is None:
            continue
        rel = _REL_NAME[m.group("rel")]
        approx = not (a.is_exact and b.is_exact) or bool(_DECIMAL.search(left[0]) or _DECIMAL.search(right[0]))
        if _holds(a, b, rel, approx):
            continue
        if _hedged(text, left[1], right[1]):
            continue
        sa, sb = _short(left[0]), _short(right[0])
        va, vb = display_value(a), display_value(b)
        lhs = sa if sa == va else f"{sa} = {va}"
        rhs = sb if sb == vb else f"{sb} = {vb}"
        detail = f"{sa} {rel} {sb} is false: {lhs} and {rhs}"
        out.append(_check([sa, sb], [a, b], (left[1], right[1]), detail, rel))
    return out


# ------------------------------------------------------------------------------------------------ the hook
def fact_checks(text: str) -> list[EquationCheck]:
    """Every refuted worded fact and numeric inequality of one step."""
    plain = _clean(text)
    budget = [MAX_CLAIMS]
    low = plain.lower()
    out: list[EquationCheck] = []
    if re.search(r"divisib|divide|multiple|factor|divisor|\\n?mid|[∣∤]", low):
        out += _divisibility_checks(plain, budget)
    if "digit" in low:
        out += _digit_checks(plain, budget)
    if re.search(r"prime|composite|divisors|factors", low):
        out += _prime_checks(plain, budget)
    if re.search(r"(?<![<>])[<>](?![<>])|[≤≥≦≧]|\\[lg]eq?(?![A-Za-z])|\\[lg]t(?![A-Za-z])|\\[lg]eqslant", plain):
        out += inequality_checks(plain, budget)
    return out


def _may_hold_any(steps: Sequence[str]) -> bool:
    """The trace gate (:func:`rewards.checks.claims.gates.admits`) with :func:`_may_hold_a_fact`."""
    return admits(steps, _may_hold_a_fact)


def check_trace(steps: Sequence[str], problem: str = "") -> list[tuple[int, EquationCheck]]:
    """Every refuted numeric fact or inequality of a trace, as ``(step_index, failed check)`` pairs."""
    out: list[tuple[int, EquationCheck]] = []
    try:
        if not _may_hold_any(steps):
            return out
        for i, step in enumerate(steps):
            if not isinstance(step, str) or len(step) > MAX_STEP_CHARS or not _may_hold_a_fact(step):
                continue
            for check in fact_checks(step):
                out.append((i, check))
    except Exception:  # untrusted text: never raise into the reward
        return out
    return out
