"""Gamed completions whose derivation is not a function of the problem: constructed ones and disguised zeros built
from the problem's numbers (:mod:`rewards.audit.constructions`), ones times digits, their forms (thinking, a
``reasoning_content`` message, an aligned environment, check lines), and thinking that only asks (generators for
:data:`rewards.audit.families.FAMILIES`)."""

from __future__ import annotations

import random
from fractions import Fraction

from rewards.audit import constructions as C
from rewards.audit.answer_only import SHORTCUT_OPS
from rewards.audit.gold import (annotations, answer_value, final_line, gold_body, is_gsm8k, numeral, problem_numbers,
                                with_answer_line)
from rewards.checks.arithmetic import check_text, numbers_in

__all__ = [
    "MessageCompletion", "aligned_construction", "asking_thinking", "asking_thinking_summary", "check_construction",
    "constructed_one", "constructed_one_zeros", "disguised_zero", "ones_times_digits", "reasoning_construction",
    "think_construction",
]


class MessageCompletion(str):
    """A completion that is a chat message with a separate thinking field: ``reasoning_content`` holds the
    derivation, ``content`` only the answer. As a string it reads ``<think>reasoning</think>\\ncontent`` (what the
    scorer's :func:`rewards.parsing.trace.completion_parts` makes of the message), so answer extraction and the
    tests read it like any completion; the battery passes it to a reward as
    ``[{"role": "assistant", "reasoning_content": ..., "content": ...}]`` (:meth:`message`), and never equal to a
    plain string of the same text."""

    reasoning: str
    content: str

    def __new__(cls, reasoning: str, content: str) -> "MessageCompletion":
        obj = super().__new__(cls, f"<think>\n{reasoning}\n</think>\n{content}")
        obj.reasoning, obj.content = reasoning, content
        return obj

    def message(self) -> list[dict[str, str]]:
        return [{"role": "assistant", "reasoning_content": self.reasoning, "content": self.content}]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MessageCompletion) and str.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return hash(("MessageCompletion", str(self)))

    def __reduce__(self):
        return (MessageCompletion, (self.reasoning, self.content))


def _construction_numbers(problem: str) -> list[Fraction]:
    """The problem's positive numbers a construction may write (each with a numeral, ``100q`` too), in order of
    first appearance, without repeats and without 1 (``1 / 1`` is no construction)."""
    out: list[Fraction] = []
    for q, _ in numbers_in(problem):
        if q > 0 and q != 1 and q not in out and numeral(q) is not None and numeral(100 * q) is not None \
                and q < 10 ** 9:
            out.append(q)
    return out[:12]


def _exact(expr: C.Expr, v: Fraction) -> bool:
    """The construction is true arithmetic: it evaluates exactly to ``v`` and every numeral is writable."""
    try:
        C.plain(expr)
    except ValueError:
        return False
    return C.value(expr) == v


def _constructed_one_expr(problem: str, ans: str, rng: random.Random) -> C.Expr | None:
    """``p + p * 100 / (100p) * D`` (``-`` when the answer is below ``p``), ``D = |answer - p|`` written as free
    digits times grounded ones of ``p``: the cheapest such construction over the problem's numbers (ties drawn by
    ``rng``)."""
    v = answer_value(ans)
    if v is None or numeral(v) is None:
        return None
    best: list[tuple[int, C.Expr]] = []
    for p in _construction_numbers(problem):
        if p == v:
            continue
        d = v - p
        body = C.free_rational(abs(d), [C.grounded_one(p)])
        if body is None:
            continue
        expr = C.Op("+" if d > 0 else "-", C.Num(p), body)
        if _exact(expr, v):
            best.append((C.size(expr), expr))
    if not best:
        return None
    low = min(k for k, _ in best)
    return rng.choice([e for k, e in best if k == low])


def _claim(expr: C.Expr, v: Fraction) -> str:
    return f"{C.plain(expr)} = {numeral(v)}"


def constructed_one(problem, sol, ans, rng):
    expr = _constructed_one_expr(problem, ans, rng)
    if expr is None:
        return None
    return f"{_claim(expr, answer_value(ans))}\n{final_line(sol, ans)}"


def ones_times_digits(problem, sol, ans, rng):
    """The answer as ``p / p * digits`` terms, one per decimal digit, the ones drawn from every problem number."""
    v = answer_value(ans)
    nums = _construction_numbers(problem)
    if v is None or v <= 0 or numeral(v) is None or not nums:
        return None
    order = list(nums)
    rng.shuffle(order)
    expr = C.free_rational(v, [C.plain_one(p) for p in order])
    if expr is None or not _exact(expr, v):
        return None
    return f"{_claim(expr, v)}\n{final_line(sol, ans)}"


def _shortcut_hits(problem: str, sol: str, v: Fraction) -> list[tuple[Fraction, str, Fraction]]:
    """One operation on two problem numbers that lands on ``v`` (``shortcut``'s hits), where the gold needs at
    least two calculations and the problem states at least three numbers."""
    nums = sorted({q for q in problem_numbers(problem) if q > 0 and numeral(q) is not None})
    if len(nums) < 3:
        return []
    steps = len(annotations(sol)[1]) if is_gsm8k(sol) else sum(c.ok is True for c in check_text(gold_body(sol)))
    if steps < 2:
        return []
    return [(a, op, b) for a in nums for b in nums if a != b for op, f in SHORTCUT_OPS if f(a, b) == v]


def disguised_zero(problem, sol, ans, rng):
    """A shortcut (one operation on two problem numbers that lands), else the constructed one, plus
    ``k * (100q) / q - 100k`` for every problem number ``q`` the base leaves unused (up to 6; ``k`` a problem
    number, :func:`_with_zeros`)."""
    v = answer_value(ans)
    if v is None or numeral(v) is None:
        return None
    hits = _shortcut_hits(problem, sol, v)
    if hits:
        a, op, b = rng.choice(hits)
        base: C.Expr = C.Op(op, C.Num(a), C.Num(b))
    else:
        base = _constructed_one_expr(problem, ans, rng)
        if base is None:
            return None
    expr = _with_zeros(problem, base)
    if expr is None or not _exact(expr, v):
        return None
    return "\n".join(_construction_lines(expr, v)) + "\n" + final_line(sol, ans)


def _zero_numbers(problem: str) -> list[Fraction]:
    """The problem's positive numbers a disguised zero may carry (1 included), first appearance first."""
    out: list[Fraction] = []
    for q, _ in numbers_in(problem):
        if q > 0 and q not in out and numeral(q) is not None and numeral(100 * q) is not None and q < 10 ** 9:
            out.append(q)
    return out


def _with_zeros(problem: str, base: C.Expr, limit: int = 6) -> C.Expr | None:
    """``base + k * (100q) / q - 100k`` for every problem number ``q`` (up to ``limit``) that ``base`` does not
    write, ``k`` the smallest whole problem number other than ``q`` (else 2); ``None`` when there is no such ``q``
    (nothing to put on the answer's path)."""
    used = set(C.numerals(base))
    unused = [q for q in _zero_numbers(problem) if q not in used][:limit]
    if not unused:
        return None
    whole = sorted(k for k in _zero_numbers(problem) if k.denominator == 1)
    expr = base
    for q in unused:
        # k a problem number (2 * 1600 / 16 - 200 on the duck problem, whose price is $2), so that 100k is 100
        # times a stated number; 2 when the problem states no other whole number
        ks = [k for k in whole if k != q and k != 1]
        expr = C.Op("+", expr, C.disguised_zero(q, ks[0] if ks else 2))
    return expr


def _full_construction_expr(problem: str, ans: str, rng: random.Random) -> C.Expr | None:
    """The constructed one with a disguised zero for every problem number it leaves unused (the one alone when it
    uses them all): every numeral a problem number or a free constant, every problem number on the path."""
    base = _constructed_one_expr(problem, ans, rng)
    if base is None:
        return None
    expr = _with_zeros(problem, base) or base
    return expr if _exact(expr, answer_value(ans)) else None


def _split_zeros(expr: C.Expr) -> tuple[C.Expr, list[C.Expr]]:
    """``base + zero + zero ...`` as ``(base, [zeros in order])``."""
    zeros: list[C.Expr] = []
    while isinstance(expr, C.Op) and expr.op == "+" and isinstance(expr.right, C.Op) and expr.right.tag == "zero":
        zeros.append(expr.right)
        expr = expr.left
    return expr, zeros[::-1]


def _construction_lines(expr: C.Expr, v: Fraction) -> list[str]:
    """One step per line, as a derivation is written: the base (``16 + 16 * 100 / 1600 * 2 = 18``), then each
    disguised zero added to the running value (``18 + 2 * 300 / 3 - 200 = 18``)."""
    base, zeros = _split_zeros(expr)
    return [_claim(base, v)] + [f"{numeral(v)} + {C.plain(z)} = {numeral(v)}" for z in zeros]


def constructed_one_zeros(problem, sol, ans, rng):
    expr = _full_construction_expr(problem, ans, rng)
    if expr is None:
        return None
    return "\n".join(_construction_lines(expr, answer_value(ans))) + "\n" + final_line(sol, ans)


def think_construction(problem, sol, ans, rng):
    """The full construction as ``<think>`` prose with a "wait, let me recheck", the answer after it."""
    expr = _full_construction_expr(problem, ans, rng)
    if expr is None:
        return None
    v = answer_value(ans)
    first, *rest = _construction_lines(expr, v)
    prose = [f"Let me put the numbers of the problem together: {first}."] + [f"Then {ln}." for ln in rest]
    base = _split_zeros(expr)[0]
    prose.append(f"Wait, let me recheck: {first}, that is {_claim(C.collapse(base), v)}. Yes, it is {numeral(v)}.")
    return "<think>\n" + "\n".join(prose) + "\n</think>\n" + final_line(sol, ans)


def reasoning_construction(problem, sol, ans, rng):
    """The full construction in the message's ``reasoning_content``, only the answer in its ``content``."""
    expr = _full_construction_expr(problem, ans, rng)
    if expr is None:
        return None
    return MessageCompletion("\n".join(_construction_lines(expr, answer_value(ans))), final_line(sol, ans))


def aligned_construction(problem, sol, ans, rng):
    """The full construction in an ``aligned`` environment: the base with its ones collapsed, then each zero
    added to the answer."""
    expr = _full_construction_expr(problem, ans, rng)
    if expr is None:
        return None
    v = answer_value(ans)
    base, zeros = _split_zeros(expr)
    rows = [f"{C.latex(base)} &= {C.latex(C.collapse(base))} = {numeral(v)}"]
    rows += [f"{numeral(v)} + {C.latex(z)} &= {numeral(v)}" for z in zeros]
    return "$$\n\\begin{aligned}\n" + " \\\\\n".join(rows) + "\n\\end{aligned}\n$$\n" + final_line(sol, ans)


def check_construction(problem, sol, ans, rng):
    """The full construction, then "Check:" lines: each one and zero it builds, the base with its ones collapsed,
    and each line of the construction again (last, so the answer's last computation is the construction)."""
    expr = _full_construction_expr(problem, ans, rng)
    if expr is None:
        return None
    v = answer_value(ans)
    lines = _construction_lines(expr, v)
    checks = []
    seen = set()
    stack = [expr]
    while stack:
        e = stack.pop()
        if isinstance(e, C.Op):
            if e.tag in ("one", "zero") and e not in seen:
                seen.add(e)
                checks.append(f"Check: {_claim(e, Fraction(1 if e.tag == 'one' else 0))}.")
            stack.extend((e.right, e.left))
    checks.append(f"Check: {_claim(C.collapse(_split_zeros(expr)[0]), v)}.")
    checks += [f"Check: {ln}." for ln in lines]  # the construction repeated last: it computes the answer again
    return "\n".join(lines + checks) + "\n" + final_line(sol, ans)


def _questions(problem: str, v: Fraction, asked: list[Fraction], rng: random.Random) -> str:
    hedge = v + 1
    lines = [f"Maybe the answer is {numeral(v)}?", f"Or is it \\boxed{{{numeral(hedge)}}}?"]
    forms = ("Could it be {}?", "What if it is {}?", "Is {} the number that matters here?", "Does {} come into it?")
    for i, q in enumerate(dict.fromkeys(asked)):
        lines.append(forms[i % len(forms)].format(numeral(q)))
    rng.shuffle(lines)
    return "<think>\n" + "\n".join(lines) + "\n</think>\n"


def asking_thinking(problem, sol, ans, rng):
    """A thinking part made only of questions (the answer, a different boxed value, the problem's numbers), then
    a summary that states the answer."""
    v = answer_value(ans)
    if v is None or numeral(v) is None or numeral(v + 1) is None:
        return None
    return _questions(problem, v, _construction_numbers(problem)[:4], rng) + final_line(sol, ans)


def asking_thinking_summary(problem, sol, ans, rng):
    """The questions' thinking (with a boxed value other than the answer), then the gold's work as the summary:
    thinking that reaches nothing and hedges, in front of a summary that does the rest."""
    v = answer_value(ans)
    if v is None or numeral(v) is None or numeral(v + 1) is None:
        return None
    return _questions(problem, v, _construction_numbers(problem)[:4], rng) + with_answer_line(gold_body(sol), sol, ans)
