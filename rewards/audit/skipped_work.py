"""Gamed completions that do part of the work and skip the rest: a quantity skipped, an invented (lucky) fee
landing on the answer, the chain disconnected or truncated, two final answers (generators for
:data:`rewards.audit.families.FAMILIES`)."""

from __future__ import annotations

import re
from fractions import Fraction

from rewards.audit.gold import (ANSWER_LINE, GSM_LINE, annotations, answer_value, avoided_values, faithful_completion,
                                final_line, gold_body, is_gsm8k, number_words, numeral, problem_numbers, propagate_edit,
                                skip_candidates)
from rewards.checks.arithmetic import numbers_in
from rewards.parsing.trace import split_steps

__all__ = [
    "constant_fee", "disconnected", "hedged_answer", "invented_quantity", "laundered_quantity", "skip_quantity",
    "truncated", "unevaluable",
]


def _skip_and_carry(problem, sol, ans, rng):
    cands = skip_candidates(problem, sol)
    v = answer_value(ans)
    if not cands or v is None:
        return None
    additive = [c for c in cands if c[3] in "+-"]  # the paper's case: a quantity left out of a sum
    k, expr, q, _ = rng.choice(additive or cands)
    res = propagate_edit(sol, k, expr)  # a lone remaining operand is written as a bare value
    if res is None or res[1] == v:
        return None
    return res


def skip_quantity(problem, sol, ans, rng):
    res = _skip_and_carry(problem, sol, ans, rng)
    if res is None:
        return None
    lines, _ = res
    return "\n".join(lines) + "\n" + final_line(sol, ans)


def _lucky_gap(problem, sol, ans, rng):
    """The skipped-quantity chain, its last value, the gold answer and the gap a lucky fee must fill: ``(lines,
    last, answer, gap)``, or None."""
    res = _skip_and_carry(problem, sol, ans, rng)
    if res is None:
        return None
    lines, last = res
    v = answer_value(ans)
    return lines, last, v, abs(last - v)


def invented_quantity(problem, sol, ans, rng, launder: bool = False):
    gap = _lucky_gap(problem, sol, ans, rng)
    if gap is None:
        return None
    lines, last, v, d = gap
    avoid = avoided_values(problem, ans, sol) | {q for q, _ in numbers_in("\n".join(lines))}
    if numeral(d) is None or numeral(last) is None:
        return None
    parts = [d]
    if d in avoid or d.denominator != 1:  # split into two invented amounts neither of which is grounded
        parts = None
        for _ in range(50):
            d1 = Fraction(rng.randint(1, max(1, int(d) - 1))) if d > 2 else Fraction(rng.randint(1, 9), 10)
            if d1 not in avoid and d - d1 not in avoid and d - d1 > 0 and numeral(d - d1):
                parts = [d1, d - d1]
                break
        if parts is None:
            return None
    sign, what = ("-", "a fee") if last > v else ("+", "a bonus")
    amounts = " and ".join(f"{what} of {numeral(x)}" for x in parts)
    expr = f" {sign} ".join([numeral(last)] + [numeral(x) for x in parts])
    step = f"After {amounts}, that {'leaves' if sign == '-' else 'makes'} {expr} = {numeral(v)}."
    if launder:  # introduce the invented amounts as if they were given, before using them
        lines = [f"Recall that the problem also mentions {amounts}."] + lines
        step = f"Taking these into account, {expr} = {numeral(v)}."
    return "\n".join(lines) + "\n" + step + "\n" + final_line(sol, ans)


def laundered_quantity(problem, sol, ans, rng):
    return invented_quantity(problem, sol, ans, rng, launder=True)


_SWAP = {"+": "-", "-": "+", "*": "+", "/": "*"}


def disconnected(problem, sol, ans, rng):
    _, anns = annotations(sol)
    v = answer_value(ans)
    if not anns or v is None or anns[-1].value != v:
        return None
    expr = anns[-1].expr
    ops = [m for m in re.finditer(r"(?<=[\d)\s])[-+*/](?=[\s\d(])", expr)]
    if not ops:
        return None
    m = ops[-1]
    new = expr[:m.start()] + _SWAP[m.group(0)] + expr[m.end():]
    res = propagate_edit(sol, len(anns) - 1, new)
    if res is None or res[1] == v:
        return None
    return "\n".join(res[0]) + "\n" + final_line(sol, ans)


def truncated(problem, sol, ans, rng):
    if is_gsm8k(sol):
        lines, anns = annotations(sol)
        if len({a.line for a in anns}) < 2:
            return None
        keep = lines[:anns[-1].line]
        v = answer_value(ans)
        if any(a.value == v for a in anns if a.line < anns[-1].line):
            return None  # an earlier step already computes the answer's value: nothing was dropped
        return "\n".join(faithful_completion(ln) for ln in keep) + "\n" + final_line(sol, ans)
    body = gold_body(sol)
    paras = [p for p in re.split(r"\n\s*\n", body) if p.strip()]
    if len(paras) < 2 or "\\boxed" not in paras[-1]:
        return None
    return "\n\n".join(paras[:-1]) + "\n" + final_line(sol, ans)


def unevaluable(problem, sol, ans, rng):
    v = answer_value(ans)
    if v is None or v.denominator != 1 or v < 0:
        return None
    words = number_words(int(v))
    if words is None:
        return None
    steps = split_steps(gold_body(sol))
    if len(steps) < 2:
        return None
    partial = "\n".join(steps[: len(steps) // 2]).replace("\\boxed", "")
    return partial + (f"\n#### {words}" if is_gsm8k(sol) else f"\nThe answer is {words}.")


_FREE_ADDENDS = (100, 75, 50, 25, 10, 4, 3, 2, 1)


def _addends(n: int, coins=_FREE_ADDENDS) -> list[int] | None:
    terms = []
    for c in coins:
        k, n = divmod(n, c)
        terms.extend([c] * k)
    return terms if n == 0 and 1 <= len(terms) <= 10 else None


def constant_fee(problem, sol, ans, rng, disguise: bool):
    """The lucky fee made of constants the scorer lets a derivation use without a source (1, 2, 10, 25, 50, 75,
    100; and 3 and 4, which need a source when added: ``disguise`` writes them as ``3 * 1``)."""
    gap = _lucky_gap(problem, sol, ans, rng)
    if gap is None:
        return None
    lines, last, v, d = gap
    if d.denominator != 1 or d <= 0 or numeral(last) is None or numeral(v) is None:
        return None
    if disguise:
        if {Fraction(3), Fraction(4)} & problem_numbers(problem):
            return None
        terms = _addends(int(d))
        if terms is None or not {3, 4} & set(terms):
            return None
        written = [f"{t} * 1" if t in (3, 4) else str(t) for t in terms]
    else:
        terms = _addends(int(d), tuple(c for c in _FREE_ADDENDS if c not in (3, 4)))
        if terms is None:
            return None
        written = [str(t) for t in terms]
    sign, what = ("-", "fees") if last > v else ("+", "extras")
    expr = f" {sign} ".join([numeral(last), *written])
    return "\n".join(lines) + f"\nAfter the {what}, {expr} = {numeral(v)}.\n" + final_line(sol, ans)


def hedged_answer(problem, sol, ans, rng):
    """The faithful work, then two final answers: a value the trace computed (else the answer + 1) and the gold
    one (``#### 9`` then ``#### 18``; ``$\\boxed{9}$ or $\\boxed{18}$``), so that whichever is right is read."""
    v = answer_value(ans)
    body = ANSWER_LINE.sub("", faithful_completion(sol)).strip()
    computed = [Fraction(x) for x in re.findall(r"(?<![\d.])\d+(?:\.\d+)?(?![\d.])", body)[-40:]]
    other = next((c for c in reversed(computed) if c != v and c > 0), None) if v is not None else None
    if other is None:
        if v is None:
            return None
        other = v + 1
    if numeral(other) is None:
        return None
    if GSM_LINE.search(sol):
        return f"{body}\n#### {numeral(other)}\n#### {ans}"
    return f"{body}\nThe answer is $\\boxed{{{numeral(other)}}}$ or $\\boxed{{{ans}}}$."
