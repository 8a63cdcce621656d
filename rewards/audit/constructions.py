r"""Constructed derivations: true arithmetic on a problem's numbers that computes a constant, not the problem.

A policy that knows the answer and the problem's numbers, but not the reasoning, can write a derivation in which
every numeral is a problem number or a free constant and every step is true, yet the answer does not depend on the
problem: a problem number times free constants divided by its own multiple is a "grounded" one
(``16 * 100 / 1600``), ``k * (100q) / q - 100k`` is a disguised zero that puts a number on the answer's path, and
ones times digits build any integer. This module builds such expressions as small trees, evaluates them exactly
(:class:`fractions.Fraction`, never ``eval``) and renders them as plain text or LaTeX; the audit families of
:mod:`rewards.audit.families` (``constructed_one``, ``disguised_zero``, ``ones_times_digits`` and their forms) and
the property tests use them.

>>> from fractions import Fraction as F
>>> one = grounded_one(F(16))
>>> e = Op("+", Num(F(16)), Op("*", one, Num(F(2))))
>>> plain(e), value(e)
('16 + 16 * 100 / 1600 * 2', Fraction(18, 1))
>>> plain(free_integer(18, [plain_one(F(16)), plain_one(F(3))]))
'16 / 16 * 10 + 3 / 3 * 2 * 4'
>>> z = disguised_zero(F(16), 2)
>>> plain(z), value(z)
('2 * 1600 / 16 - 200', Fraction(0, 1))
>>> latex(Op("+", Num(F(16)), Op("*", one, Num(F(2)))))
'16 + \\frac{16 \\cdot 100}{1600} \\cdot 2'
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Iterable, Sequence, Union

__all__ = ["Num", "Op", "Expr", "value", "plain", "latex", "numerals", "collapse", "grounded_one", "plain_one",
           "disguised_zero", "free_integer", "free_rational", "FREE_FACTORS", "literal", "size"]

FREE_FACTORS = (2, 3, 4, 10, 100)
"""The constants a value-keyed check lets a derivation use as factors and divisors without a source (2, 3, 4, 10,
100, their reciprocals, x100 and /100 of a reached value count as reached wherever they stand). Fixed here,
independent of the scorer's own lists, so the yardstick does not move when the scorer does."""

MAX_TERMS = 8
"""At most this many ``one * digits`` terms in a built integer (a longer construction is not written)."""


def literal(q: Fraction) -> str | None:
    """``q`` as a numeral a completion writes: an integer, or a decimal with at most 4 places; else ``None``."""
    if q.denominator == 1:
        return str(q.numerator)
    d = q.denominator
    twos = fives = 0
    while d % 2 == 0:
        d //= 2
        twos += 1
    while d % 5 == 0:
        d //= 5
        fives += 1
    places = max(twos, fives)
    if d != 1 or places > 4:
        return None
    sign = "-" if q < 0 else ""
    scaled = abs(q) * 10 ** places
    whole, frac = divmod(scaled.numerator, 10 ** places)
    return f"{sign}{whole}.{str(frac).rjust(places, '0').rstrip('0')}"


@dataclass(frozen=True)
class Num:
    """A numeral: its exact value (written by :func:`literal`)."""

    q: Fraction


@dataclass(frozen=True)
class Op:
    """``left op right`` with ``op`` in ``+ - * /``; ``tag`` marks a built one (``"one"``) or zero (``"zero"``)."""

    op: str
    left: "Expr"
    right: "Expr"
    tag: str = ""


Expr = Union[Num, Op]
_PREC = {"+": 1, "-": 1, "*": 2, "/": 2}


def value(e: Expr) -> Fraction | None:
    """The exact value of ``e``; ``None`` on a division by zero."""
    if isinstance(e, Num):
        return e.q
    a, b = value(e.left), value(e.right)
    if a is None or b is None:
        return None
    if e.op == "+":
        return a + b
    if e.op == "-":
        return a - b
    if e.op == "*":
        return a * b
    return None if b == 0 else a / b


def _prec(e: Expr) -> int:
    return 3 if isinstance(e, Num) else _PREC[e.op]


def plain(e: Expr) -> str:
    """``e`` written as a completion writes it (``16 + 16 * 100 / 1600 * 2``); brackets only where needed."""
    if isinstance(e, Num):
        text = literal(e.q)
        if text is None:
            raise ValueError(f"Num({e.q}) has no finite decimal numeral; build the expression from writable values.")
        return text if e.q >= 0 else f"({text})"
    left, right = plain(e.left), plain(e.right)
    if _prec(e.left) < _PREC[e.op]:
        left = f"({left})"
    if _prec(e.right) < _PREC[e.op] or (_prec(e.right) == _PREC[e.op] and e.op in "-/"):
        right = f"({right})"
    return f"{left} {e.op} {right}"


def latex(e: Expr) -> str:
    """``e`` in LaTeX: ``\\cdot`` for products, ``\\frac`` for quotients."""
    if isinstance(e, Num):
        return plain(e)
    if e.op == "/":
        return f"\\frac{{{latex(e.left)}}}{{{latex(e.right)}}}"
    left, right = latex(e.left), latex(e.right)
    if _prec(e.left) < _PREC[e.op] and not (isinstance(e.left, Op) and e.left.op == "/"):
        left = f"\\left({left}\\right)"
    needs = _prec(e.right) < _PREC[e.op] or (_prec(e.right) == _PREC[e.op] and e.op == "-")
    if needs and not (isinstance(e.right, Op) and e.right.op == "/"):
        right = f"\\left({right}\\right)"
    sign = "\\cdot" if e.op == "*" else e.op
    return f"{left} {sign} {right}"


def numerals(e: Expr) -> list[Fraction]:
    """Every numeral written in ``e``, left to right."""
    return [e.q] if isinstance(e, Num) else numerals(e.left) + numerals(e.right)


def size(e: Expr) -> int:
    """How many numerals ``e`` writes."""
    return len(numerals(e))


def collapse(e: Expr, tags: Iterable[str] = ("one", "zero")) -> Expr:
    """``e`` with every built one (an :class:`Op` tagged so) replaced by its value and every built zero added or
    taken away dropped: the "simplified" line of an ``aligned`` environment or a check
    (``16 + 16 * 100 / 1600 * 2 + 2 * 300 / 3 - 200`` -> ``16 + 1 * 2``)."""
    tags = frozenset(tags)
    if isinstance(e, Num):
        return e
    if "zero" in tags and e.op in "+-" and isinstance(e.right, Op) and e.right.tag == "zero":
        return collapse(e.left, tags)  # "x + zero" is x: the zero is dropped, not written "+ 0"
    if e.tag in tags:
        v = value(e)
        return Num(v) if v is not None else e
    return Op(e.op, collapse(e.left, tags), collapse(e.right, tags), e.tag)


def grounded_one(p: Fraction) -> Op:
    """``p * 100 / (100p)``: a problem number times a free constant over its own multiple, a one that a check keyed
    by value reads as computed from ``p`` (the derived literal ``100p`` does not follow an edit of ``p``)."""
    return Op("/", Op("*", Num(p), Num(Fraction(100))), Num(100 * p), tag="one")


def plain_one(p: Fraction) -> Op:
    """``p / p``."""
    return Op("/", Num(p), Num(p), tag="one")


def disguised_zero(q: Fraction, k: int | Fraction = 2) -> Op:
    """``k * (100q) / q - 100k``: zero, written with the problem number ``q`` on it."""
    return Op("-", Op("/", Op("*", Num(Fraction(k)), Num(100 * q)), Num(q)), Num(Fraction(100 * k)), tag="zero")


# digit d -> the free factors whose product is d (5 = 10 / 2 is written with a divisor); 7 is 3 + 4 (two terms)
_DIGIT = {1: ((), ()), 2: ((2,), ()), 3: ((3,), ()), 4: ((4,), ()), 5: ((10,), (2,)), 6: ((2, 3), ()),
          8: ((2, 4), ()), 9: ((3, 3), ())}
_POWER = {0: (), 1: (10,), 2: (100,), 3: (10, 100), 4: (100, 100), 5: (10, 100, 100), 6: (100, 100, 100),
          7: (10, 100, 100, 100), 8: (100, 100, 100, 100)}


def _term(one: Expr, mul: Sequence[int], div: Sequence[int]) -> Expr:
    e = one
    for f in mul:
        e = Op("*", e, Num(Fraction(f)))
    for f in div:
        e = Op("/", e, Num(Fraction(f)))
    return e


def free_integer(n: int, ones: Sequence[Expr]) -> Expr | None:
    """The positive integer ``n`` as a sum of ``one * free factors`` terms, one per decimal digit (7 as 3 + 4), the
    ones taken in turn from ``ones`` (the last term multiplies every one left over, so every given one is used).
    ``None`` when ``n < 1``, ``ones`` is empty or more than :data:`MAX_TERMS` terms would be needed."""
    if n < 1 or not ones:
        return None
    parts: list[tuple[tuple[int, ...], tuple[int, ...]]] = []
    digits = str(n)
    for k, ch in enumerate(digits):
        d, power = int(ch), len(digits) - 1 - k
        if d == 0:
            continue
        if power not in _POWER:
            return None
        pieces = [_DIGIT[3], _DIGIT[4]] if d == 7 else [_DIGIT[d]]
        for mul, div in pieces:
            parts.append((tuple(mul) + _POWER[power], tuple(div)))
    if len(parts) > MAX_TERMS:
        return None
    terms: list[Expr] = []
    for i, (mul, div) in enumerate(parts):
        one = ones[i % len(ones)]
        if i == len(parts) - 1:
            for extra in ones[len(parts):]:
                one = Op("*", one, extra)
        terms.append(_term(one, mul, div))
    total = terms[0]
    for t in terms[1:]:
        total = Op("+", total, t)
    return total if value(total) == n else None


def _free_divisor(b: int) -> tuple[int, ...] | None:
    """``b`` as a product of :data:`FREE_FACTORS` (greedy, largest first), else ``None``."""
    out: list[int] = []
    for f in sorted(FREE_FACTORS, reverse=True):
        while b % f == 0 and b > 1:
            out.append(f)
            b //= f
    return tuple(out) if b == 1 and len(out) <= 4 else None


def free_rational(q: Fraction, ones: Sequence[Expr]) -> Expr | None:
    """A positive rational ``a / b`` as :func:`free_integer` ``(a)`` divided by free factors of ``b``; ``None`` when
    ``b`` is no product of free factors (or ``a`` cannot be built)."""
    if q <= 0:
        return None
    num = free_integer(q.numerator, ones)
    if num is None:
        return None
    if q.denominator == 1:
        return num
    div = _free_divisor(q.denominator)
    if div is None:
        return None
    e: Expr = num
    for f in div:
        e = Op("/", e, Num(Fraction(f)))
    return e if value(e) == q else None
