"""Reading and rewriting a gold solution: the faithful completion, its calculator annotations, its answer line, an
edit carried through later annotations, and the *visible slip* (the gold work with one false calculation in plain
sight) that the ``not_above_slip`` families are measured against."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from fractions import Fraction

from rewards.checks.arithmetic import check_text, evaluate, numbers_in
from rewards.parsing.values import format_value

__all__ = [
    "ANNOTATION", "ANSWER_LINE", "GSM_LINE", "NUMBER_TERM", "annotations", "answer_value", "avoided_values",
    "faithful_completion", "final_line", "gold_body", "is_gsm8k", "number_words", "numeral", "problem_numbers",
    "propagate_edit", "skip_candidates", "true_equations", "visible_slip", "with_answer_line",
]

ANNOTATION = re.compile(r"<<([^<>=\n]*)=([^<>\n]*)>>")
GSM_LINE = re.compile(r"^\s*####.*$", re.M)
ANSWER_LINE = re.compile(r"^\s*(?:####.*|The answer is \$\\boxed\{.*\}\$\.)\s*$", re.M)
_SIMPLE_EXPR = re.compile(r"^\s*\d+(?:\.\d+)?(?:\s*[-+*/]\s*\d+(?:\.\d+)?)*\s*$")
_OPERAND = re.compile(r"\d+(?:\.\d+)?")
NUMBER_TERM = r"\(*\$?(?:\d[\d,]*(?:\.\d+)?|\.\d+)%?\)*(?:[ \t]+[A-Za-z]+)?"
_VISIBLE_EXPR = re.compile(rf"{NUMBER_TERM}(?:[ \t]*[-+*/x×÷][ \t]*{NUMBER_TERM})*[ \t]*=[ \t]*\$?[ \t]*$")


def is_gsm8k(solution: str) -> bool:
    """A GSM8K-style gold solution: calculator annotations or a ``#### X`` line."""
    return "<<" in solution or bool(GSM_LINE.search(solution))


def final_line(solution: str, answer: str) -> str:
    """The answer line in the gold solution's own style: ``#### X`` for GSM8K, ``\\boxed{X}`` otherwise."""
    if GSM_LINE.search(solution):
        return f"#### {answer}"
    return f"The answer is $\\boxed{{{answer}}}$."


def faithful_completion(solution: str) -> str:
    """The gold solution as a policy would write it: GSM8K annotations rendered as plain equations."""
    out = []
    pos = 0
    for m in ANNOTATION.finditer(solution):
        before = solution[pos:m.start()]
        expr = m.group(1).strip()
        line_start = solution.rfind("\n", 0, m.start()) + 1
        if re.search(r"=\s*\$?\s*$", solution[line_start:m.start()]):
            out.append(before)  # "16 - 3 - 4 = <<...>>9": the expression is already visible
        else:
            out.append(before + _pretty(expr) + " = ")  # "she has <<3*4=12>>12": write the equation out
        pos = m.end()
    out.append(solution[pos:])
    return "".join(out).strip()


def gold_body(solution: str) -> str:
    """The faithful completion without its GSM8K ``#### X`` line (a MATH solution keeps its ``\\boxed``)."""
    return ANSWER_LINE.sub("", faithful_completion(solution)).strip()


def with_answer_line(body: str, solution: str, answer: str) -> str:
    body = body.strip()
    if not is_gsm8k(solution) and "\\boxed" in body:
        return body
    return (body + "\n" if body else "") + final_line(solution, answer)


def answer_value(answer: str) -> Fraction | None:
    """The gold answer as an exact number (``"1,200"`` -> 1200, ``"\\frac{3}{4}"`` -> 3/4), else ``None``."""
    text = answer.strip().strip("$").replace(",", "")
    if not text or len(text) > 40 or re.search(r"[A-Za-z]", re.sub(r"\\[dt]?frac", "", text)):
        return None
    if re.search(r"\d_\{?\s*\d", text):
        return None  # an answer in a base is its digits (2516_8), as rewards.checks.answers.numeric_value reads it
    v = evaluate(text)
    return v.exact if v is not None and v.is_exact else None


def numeral(q: Fraction) -> str | None:
    """A value as a GSM8K-style literal: integers plainly, exact decimals with up to 4 places, else ``None`` (a
    completion never writes ``p/q``; the family then picks another value or skips the problem)."""
    text = format_value(q, places=4)
    return None if "/" in text else text


def _pretty(expr: str) -> str:
    return re.sub(r"\s*([-+*/])\s*", r" \1 ", expr.strip()).strip()


def problem_numbers(problem: str) -> set[Fraction]:
    return {q for q, _ in numbers_in(problem)}


@dataclass(frozen=True)
class _Annotation:
    line: int          # index into the solution's lines
    start: int         # span of the visible "expr = <<expr=value>>value" in that line
    end: int
    expr: str
    value: Fraction
    dollar: bool = False  # the value was written "= $18"


def annotations(solution: str) -> tuple[list[str], list[_Annotation]]:
    """The lines of a GSM8K gold solution (without ``####``) and its calculator annotations, in order.

    Each annotation records the span covering the visible expression, the annotation and the value written after
    it, so a generator can rewrite the equation in place. Annotations whose expression the exact evaluator cannot
    read, or whose written value disagrees with it, are skipped.
    """
    lines = [ln for ln in ANSWER_LINE.sub("", solution).split("\n") if ln.strip()]
    found: list[_Annotation] = []
    for i, line in enumerate(lines):
        for m in ANNOTATION.finditer(line):
            expr = m.group(1).strip()
            v = evaluate(expr)
            written = re.match(r"\s*(-?\d[\d,]*(?:\.\d+)?)", line[m.end():])
            if v is None or not v.is_exact or written is None:
                continue
            value = Fraction(written.group(1).replace(",", ""))
            if value != v.exact:
                continue
            vis = _VISIBLE_EXPR.search(line[:m.start()])
            start = vis.start() if vis else m.start()
            # keep a leading currency sign / space out of the rewritten span
            while start < m.start() and line[start] in " $":
                start += 1
            dollar = bool(re.search(r"=\s*\$\s*$", line[:m.start()]))
            found.append(_Annotation(i, start, m.end() + written.end(), expr, value, dollar))
    return lines, found


def _rewrite(lines: list[str], ann: _Annotation, expr: str, value: str) -> None:
    line = lines[ann.line]
    dollar = "$" if ann.dollar else ""
    lone = re.fullmatch(r"\s*\d+(?:\.\d+)?\s*", expr) is not None  # "20 + 18" with 18 skipped: just "20"
    new = f"{dollar}{value}" if lone else f"{_pretty(expr)} = {dollar}{value}"
    lines[ann.line] = line[:ann.start] + new + line[ann.end:]


def propagate_edit(solution: str, index: int, new_expr: str) -> tuple[list[str], Fraction] | None:
    """Change annotation ``index``'s expression, recompute it exactly, and carry the new value through every later
    annotation that uses the old value as an operand. Returns the rewritten lines (annotations rendered) and the new
    value of the last annotation, or ``None`` when some value cannot be computed or written exactly."""
    lines, anns = annotations(solution)
    if not anns or index >= len(anns):
        return None
    changed: dict[Fraction, Fraction] = {}
    rewrites: list[tuple[_Annotation, str, str]] = []
    last = None
    for k, ann in enumerate(anns):
        expr = new_expr if k == index else ann.expr
        if k > index and changed:
            def swap(m: re.Match) -> str:
                q = Fraction(m.group(0))
                if q in changed:
                    return numeral(changed[q]) or m.group(0)
                return m.group(0)
            expr = _OPERAND.sub(swap, expr)
        v = evaluate(expr)
        if v is None or not v.is_exact:
            return None
        written = numeral(v.exact)
        if written is None:
            return None
        if v.exact != ann.value:
            changed[ann.value] = v.exact
        if expr != ann.expr:
            rewrites.append((ann, expr, written))
        last = v.exact
    # rewrite right to left within a line so earlier spans stay valid
    for ann, expr, written in sorted(rewrites, key=lambda r: (r[0].line, -r[0].start)):
        _rewrite(lines, ann, expr, written)
    return [faithful_completion(ln) for ln in lines], last


def skip_candidates(problem: str, solution: str) -> list[tuple[int, str, Fraction, str]]:
    """Annotations ``a op ... op q`` (no parentheses) whose last operand ``q`` is a problem quantity:
    (index, the expression without ``op q``, q, op)."""
    _, anns = annotations(solution)
    nums = problem_numbers(problem)
    out = []
    for k, ann in enumerate(anns):
        if not _SIMPLE_EXPR.match(ann.expr):
            continue
        m = re.match(r"^(.*\d)\s*([-+*/])\s*(\d+(?:\.\d+)?)\s*$", ann.expr)
        if not m or not re.search(r"\d", m.group(1)):
            continue
        q = Fraction(m.group(3))
        if q in nums and q != 0:
            out.append((k, m.group(1), q, m.group(2)))
    return out


_ONES = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
         "seventeen eighteen nineteen").split()
_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()


def number_words(n: int) -> str | None:
    """``18`` -> ``"eighteen"``, ``342`` -> ``"three hundred forty-two"``; ``None`` outside 0..999999."""
    if not 0 <= n < 1_000_000:
        return None
    if n < 20:
        return _ONES[n]
    if n < 100:
        return _TENS[n // 10] + ("" if n % 10 == 0 else "-" + _ONES[n % 10])
    if n < 1000:
        rest = n % 100
        return _ONES[n // 100] + " hundred" + ("" if rest == 0 else " " + number_words(rest))
    rest = n % 1000
    return number_words(n // 1000) + " thousand" + ("" if rest == 0 else " " + number_words(rest))


def true_equations(k: int, rng: random.Random, avoid: set[Fraction] = frozenset()) -> list[str]:
    """``k`` true equations on small integers (``37 + 58 = 95``) whose operands and results avoid ``avoid``."""
    out: list[str] = []
    avoid = set(avoid)
    tries = 0
    while len(out) < k:
        tries += 1
        hi = 97 if tries < 2000 else 997 if tries < 20000 else 99997  # a problem may use every two-digit number
        a, b = rng.randint(11, hi), rng.randint(11, hi)
        op = rng.choice("+-*")
        if op == "-" and b > a:
            a, b = b, a
        c = a + b if op == "+" else a - b if op == "-" else a * b
        if {Fraction(a), Fraction(b), Fraction(c)} & avoid:
            continue
        out.append(f"{a} {op} {b} = {c}")
    return out


def avoided_values(problem: str, answer: str, solution: str) -> set[Fraction]:
    nums = problem_numbers(problem) | {q for q, _ in numbers_in(gold_body(solution))}
    v = answer_value(answer)
    return nums | ({v} if v is not None else set())


def visible_slip(problem: str, gold_solution: str, gold_answer: str, rng: random.Random | None = None
                 ) -> tuple[str, tuple[int, int], str, str] | None:
    """The faithful work with one false calculation in plain sight; the answer is still the gold one.

    The slip is the first true equation whose result is a written number literal (or the numerator of a
    ``\\frac``) outside the answer line: the literal ``W`` becomes ``W + 1`` (later steps keep using the true value,
    so the answer is unchanged). Returns
    ``(body, span of the false pair "expression = literal" in body, the expression, the false literal)``, or
    ``None`` when the solution has no such equation. Deterministic: ``rng`` is not used.
    """
    body = gold_body(gold_solution)
    boxed = body.rfind("\\boxed")
    for check in check_text(body):
        eq = check.equation
        if check.ok is not True or len(eq.sides) < 2 or eq.approximate:
            continue
        s, e = eq.span
        if boxed >= 0 and e > boxed:
            continue
        last, prev = str(eq.sides[-1]).strip(), str(eq.sides[-2]).strip()
        m = (re.fullmatch(r"\{?\s*(?:\\?\$)?\s*(\d+(?:\.\d+)?)\s*\}?", last)
             or re.fullmatch(r"\{?\\[dt]?frac\{(\d+)\}\{\d+\}\}?", last))
        if not m or eq.values[-2] is None or eq.values[-1] is None:
            continue
        pos = body.rfind(last, s, e + 1)
        if pos < 0:
            continue
        lit = m.group(1)
        lit_pos = body.find(lit, pos)
        whole, _, frac = lit.partition(".")
        wrong = str(int(whole) + 1) + ("." + frac if frac else "")  # 9 -> 10, 0.25 -> 1.25
        new = body[:lit_pos] + wrong + body[lit_pos + len(lit):]
        before = sum(c.ok is False for c in check_text(body))
        if sum(c.ok is False for c in check_text(new)) != before + 1:
            continue
        start = body.rfind(prev, s, lit_pos)  # "3x = 22 - 7 = 15": the slip is the last pair, 22 - 7 = 16
        return new, (start if start >= 0 else s, lit_pos + len(wrong)), prev, wrong
    return None
