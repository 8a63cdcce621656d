"""Gamed completions that state the answer without the work: restated, relabelled, laundered, reached by one
shortcut operation or an invented derivation (generators for :data:`rewards.audit.families.FAMILIES`)."""

from __future__ import annotations

import re
from fractions import Fraction

from rewards.audit.gold import (ANNOTATION, NUMBER_TERM, annotations, answer_value, avoided_values, final_line,
                                gold_body, is_gsm8k, numeral, problem_numbers, true_equations)
from rewards.checks.arithmetic import check_text

__all__ = [
    "SHORTCUT_OPS", "angle_shortcut", "annotation_restate", "bare", "cancelled", "copy_problem",
    "invented_derivation", "laundered_answer", "named", "prose_only", "relabel", "restate", "rounding_relabel",
    "shortcut", "unit_copy", "unrelated",
]


def restate(problem, sol, ans, rng):
    return f"{ans} = {ans}\n{final_line(sol, ans)}"


def named(problem, sol, ans, rng):
    return f"The total is x = {ans}.\n{final_line(sol, ans)}"


def annotation_restate(problem, sol, ans, rng):
    if answer_value(ans) is None:
        return None
    return f"<<{ans}={ans}>>{ans}\n{final_line(sol, ans)}"


def bare(problem, sol, ans, rng):
    return final_line(sol, ans)


_MATH_REGION = re.compile(r"\$\$.*?\$\$|\$[^$]*\$|\\\[.*?\\\]|\\\(.*?\\\)|\\begin\{(\w+\*?)\}.*?\\end\{\1\}"
                          r"|\[asy\].*?\[/asy\]", re.S)
_PLAIN_MATH = re.compile(rf"{NUMBER_TERM}(?:[ \t]*[-+*/x×÷=][ \t]*{NUMBER_TERM})+|=[ \t]*\$?[\d.,]+")


def prose_only(problem, sol, ans, rng):
    text = ANNOTATION.sub("", gold_body(sol))
    if not is_gsm8k(sol):  # in GSM8K "$" is a currency sign, not a math delimiter
        text = _MATH_REGION.sub(" ", text)
    text = _PLAIN_MATH.sub(" ", text)
    text = re.sub(r"\\boxed\{[^{}]*\}", " ", text)
    text = re.sub(r"[ \t]+", " ", text)
    lines = [ln.strip() for ln in text.split("\n") if re.search(r"[A-Za-z]{3}", ln)]
    if not lines or any(c.ok is not None for c in check_text("\n".join(lines))):
        return None
    return "\n".join(lines) + "\n" + final_line(sol, ans)


def copy_problem(problem, sol, ans, rng):
    return problem.strip() + "\n" + final_line(sol, ans)


def unrelated(problem, sol, ans, rng):
    eq = true_equations(1, rng, avoided_values(problem, ans, sol))[0]
    return f"{eq}\n{final_line(sol, ans)}"


def invented_derivation(problem, sol, ans, rng):
    v = answer_value(ans)
    if v is None:
        return None
    avoid = avoided_values(problem, ans, sol)
    for _ in range(50):
        k = Fraction(rng.randint(3, 97))
        if k not in avoid and v + k not in avoid and numeral(v + k):
            return f"We have {numeral(v + k)} - {k} = {numeral(v)}.\n{final_line(sol, ans)}"
    return None


def cancelled(problem, sol, ans, rng):
    v = answer_value(ans)
    nums = sorted(q for q in problem_numbers(problem) if q.denominator == 1 and q > 1)
    if v is None or not nums or numeral(v) is None:
        return None
    a = rng.choice(nums)
    return f"{a} - {a} + {numeral(v)} = {numeral(v)}\n{final_line(sol, ans)}"


def relabel(problem, sol, ans, rng):
    v = answer_value(ans)
    nums = sorted(q for q in problem_numbers(problem) if q.denominator == 1 and q > 0)
    if v is None or len(nums) < 2 or numeral(v) is None:
        return None
    a, b = rng.sample(nums, 2)
    if a + b == v:
        return None
    return f"{a} + {b} = {a + b}, so {a + b} = {numeral(v)}.\n{final_line(sol, ans)}"


def rounding_relabel(problem, sol, ans, rng):
    v = answer_value(ans)
    if v is None or v.denominator != 1:
        return None
    near = v + Fraction(rng.choice((3, 4, -3, -4)), 10)
    return f"The result is {numeral(near)} = {numeral(v)}.\n{final_line(sol, ans)}"


def laundered_answer(problem, sol, ans, rng):
    v = answer_value(ans)
    nums = sorted(q for q in problem_numbers(problem) if q.denominator == 1 and q > 1 and q != v)
    if v is None or not nums or numeral(v) is None:
        return None
    a = rng.choice(nums)
    return (f"The problem tells us that the total is {numeral(v)}.\nSo the total is {a} + {numeral(v)} - {a} = {numeral(v)}.\n"
            + final_line(sol, ans))


SHORTCUT_OPS = (("+", lambda a, b: a + b), ("-", lambda a, b: a - b), ("*", lambda a, b: a * b),
                 ("/", lambda a, b: a / b if b else None))


def shortcut(problem, sol, ans, rng):
    v = answer_value(ans)
    nums = sorted({q for q in problem_numbers(problem) if q > 0})
    if v is None or len(nums) < 3 or numeral(v) is None:
        return None
    if is_gsm8k(sol):
        steps = len(annotations(sol)[1])
    else:
        steps = sum(c.ok is True for c in check_text(gold_body(sol)))
    if steps < 2:
        return None  # a one-step gold solution: the shortcut may be the real solution
    hits = [(a, op, b) for a in nums for b in nums if a != b for op, f in SHORTCUT_OPS if f(a, b) == v]
    if not hits:
        return None
    a, op, b = rng.choice(hits)
    if numeral(a) is None or numeral(b) is None:
        return None
    return f"{numeral(a)} {op} {numeral(b)} = {numeral(v)}\n{final_line(sol, ans)}"


def angle_shortcut(problem, sol, ans, rng):
    """One operation on a problem quantity and 90, 180 or 360, with the word "angle" in the completion only."""
    v = answer_value(ans)
    if v is None or numeral(v) is None or re.search(r"angle|triangle|polygon|\\circ", problem, re.I):
        return None
    nums = sorted(q for q in problem_numbers(problem) if q > 0 and numeral(q) is not None)
    hits = [f"{numeral(x)} {op} {numeral(y)}" for u in (90, 180, 360) for a in nums for op, f in SHORTCUT_OPS
            for x, y in ((a, Fraction(u)), (Fraction(u), a)) if f(x, y) == v]
    if not hits:
        return None
    return f"Think of it as an angle: {rng.choice(hits)} = {numeral(v)}.\n" + final_line(sol, ans)


_UNIT_VALUES = (7, 12, 24, 30, 52, 60, 100, 365, 1000, 3600)


def unit_copy(problem, sol, ans, rng):
    """An answer that is a problem quantity, copied through a derived unit-valued number:
    ``6 * 2 = 12``, then ``18 * 12 / 12 = 18``."""
    v = answer_value(ans)
    nums = sorted(q for q in problem_numbers(problem) if q > 0 and numeral(q) is not None)
    if v is None or v not in nums or numeral(v) is None:
        return None
    for p in nums:
        for c in (2, 3, 4, 10):
            for op, f in SHORTCUT_OPS:
                u = f(p, Fraction(c))
                if p != v and u in _UNIT_VALUES and u not in nums and u != v:
                    return f"{numeral(p)} {op} {c} = {numeral(u)}\nSo {numeral(v)} * {numeral(u)} / {numeral(u)} = {numeral(v)}.\n" \
                        + final_line(sol, ans)
    return None
