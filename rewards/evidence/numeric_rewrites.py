r"""A computation on reached numbers that a step writes without its result: the result, and the values of its
parts, are derived — not numbers from nowhere.

Solutions evaluate in pieces across displays that no ``=`` joins, or across steps, or name a computation and state
its result in words: ``\[ (2 + 3) + (5 + 7) + (11 + 13) + (17 + 19) + 23 \] \[ 5 + 12 + 24 + 36 + 23 \]``;
``\[ 3 \cdot 7^2 + 2 \cdot 7^1 + 1 \cdot 7^0 \]`` then ``\[ 3 \cdot 49 + 2 \cdot 7 + 1 \cdot 1 = 162 \]``;
``√((2 - (-3))² + (-5 - 7)²)`` in one step, ``√((2 + 3)² + (-12)²)`` in the next; ``Substituting 2xy with
\( 2 \times 19 \) gives x^2 + y^2 + 38 = 196``; ``\frac{572}{20} = 28.6``, then "round up to the next whole number,
which is 29". The equation reader sees 12, 24, 36, 49, 12, 38 and 29 as operands no step produced. Here a number a
step writes is reached when it is

* the exact value (the project's bounded evaluator, :func:`rewards.checks.arithmetic.evaluate`) of a computation
  whose numbers are all reached, written in this step or the one before (an equation's side, a piece of a display
  between relations, a run of arithmetic in plain text: :func:`expressions`), or
* the exact value of a part of such a computation (:func:`part_values`: a bracketed group, a term of its top-level
  sum, a power), or
* such a value rounded the way the step says it rounds (:func:`rounded`: "round up", "the next whole number",
  "round down"), or
* the numerator of a fraction written for a reached number, with a reached denominator (:func:`fraction_parts`:
  ``\tan 22.5^\circ = \tan \frac{45^\circ}{2}``).

Sources are only steps with no refuted equation: ``16 - 3 - 4 = 8`` then ``9 * 2 = 18`` hides a slip, and the value
9 of ``16 - 3 - 4`` must not make the hidden slip pay more than the visible one.

Each licensed number is the checked value of a computation on reached numbers that the trace wrote: nothing here
reaches a number that is not such a value (an invented ``4 + 8`` beside a reached ``5 + 7`` licenses neither 4 nor
8; a rounding the step does not name licenses nothing). What a computation on reached numbers gives could be
written with an ``=`` and be read as derived already; this reads it where the ``=`` is missing. Nothing here
refutes.

>>> sorted(part_values("(2 + 3) + (5 + 7) + 23"))
[Fraction(5, 1), Fraction(12, 1), Fraction(23, 1)]
>>> reached = lambda v: v in (2, 3, 5, 7, 23)
>>> sorted(computed_nearby(["(2 + 3) + (5 + 7) + 23"], [], "\\[ 5 + 12 + 23 \\]", reached))
[Fraction(12, 1)]
>>> computed_nearby(["(2 + 3) + (5 + 7) + 23"], [], "\\[ 5 + 4 + 8 + 23 \\]", reached)
set()
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache
from typing import Callable, Iterable

from rewards.checks.arithmetic import evaluate
from rewards.evidence.quantities import read_numbers, value_key

MAX_EXPRESSIONS = 12
"""At most this many earlier and this many later expressions are compared per step."""

MAX_CHARS = 200
"""Longer expressions are not read as rewrites."""

MAX_PARTS = 24
"""At most this many parts of one earlier expression are evaluated."""

_MATH = re.compile(r"\$\$(.{1,400}?)\$\$|\$(.{1,400}?)\$|\\\[(.{1,400}?)\\\]|\\\((.{1,400}?)\\\)", re.S)
_BREAK = re.compile(r"\\(?:implies|Rightarrow|quad|qquad)(?![A-Za-z])|\\text\{[^{}]*\}|,\s|;|\\\\|&|[=<>≈]|\\approx")
_LETTER = re.compile(r"(?<![\\A-Za-z])[A-Za-z](?![A-Za-z])")
_POWER = re.compile(r"(?:\(\s*-?\s*\d+(?:\.\d+)?\s*\)|\d+(?:\.\d+)?)\s*(?:\^\s*\{?\s*\d{1,2}\s*\}?|[²³])")
_OPEN, _CLOSE = "({[", ")}]"
_UP = re.compile(r"\bround(?:ed|ing|s)? (?:it |this |that )?up\b|\bnext (?:whole|integer|largest)|\bceil", re.I)
_DOWN = re.compile(r"\bround(?:ed|ing|s)? (?:it |this |that )?down\b|\bfloor\b", re.I)
_DEGREES = r"(?:\s*\^\s*\{?\s*\\circ\s*\}?)?"
_FRACTION = re.compile(r"\\[dt]?frac\s*\{\s*(\d{1,9}(?:\.\d{1,6})?)" + _DEGREES + r"\s*\}\s*\{\s*(\d{1,9}(?:\.\d{1,6})?)"
                       + _DEGREES + r"\s*\}")
_EVALUATED = re.compile(r"\s*(?:\\right\s*[)\]]\s*)?(?:=|\\approx)")
_PLAIN = re.compile(r"[√(\d][\d\s+\-−*/^()²³√.×·÷]{2,200}")


def expressions(text: str, equations: Iterable = ()) -> list[str]:
    """The numeric expressions ``text`` writes, in the order written: the sides of its ``equations`` (as the reader
    read them), the pieces of its math segments between relations, and runs of arithmetic in plain text
    (``√((2 - (-3))² + (-5 - 7)²)``); none with a letter, each with two numbers or more."""
    found: list[tuple[int, str]] = []
    for eq in equations:
        found.extend((eq.span[0] + k, side) for k, side in enumerate(eq.sides))
    for match in _MATH.finditer(text):
        found.extend((match.start() + k, piece)
                     for k, piece in enumerate(_BREAK.split(next(g for g in match.groups() if g is not None))))
    if "$" not in text and "\\" not in text:
        found.extend((m.start(), m.group(0)) for m in _PLAIN.finditer(text))
    kept: list[str] = []
    for _at, piece in sorted(found, key=lambda item: item[0]):
        piece = piece.strip(" .,:;?!")
        if piece and len(piece) <= MAX_CHARS and not _LETTER.search(piece) \
                and len(read_numbers(piece)) >= 2 and piece not in kept:
            kept.append(piece)
    return kept


def _exact(text: str) -> Fraction | None:
    value = evaluate(text)
    return value.exact if value is not None and value.is_exact else None


def _groups(text: str) -> list[str]:
    """The contents of each bracket pair of ``text`` (``()``, ``{}``, ``[]``), innermost last."""
    out, stack = [], []
    for i, c in enumerate(text):
        if c in _OPEN:
            stack.append(i)
        elif c in _CLOSE and stack:
            out.append(text[stack.pop() + 1:i])
    return out


def _terms(text: str) -> list[str]:
    """The terms of ``text``'s top-level sum (split at ``+`` and a binary ``-`` outside brackets)."""
    out, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c in _OPEN:
            depth += 1
        elif c in _CLOSE:
            depth -= 1
        elif depth == 0 and c in "+-−" and text[:i].strip() and text[:i].rstrip()[-1] not in "+-−*/^(×·{":
            out.append(text[start:i])
            start = i + 1
    out.append(text[start:])
    return out if len(out) > 1 else []


@lru_cache(maxsize=2048)
def part_values(text: str) -> frozenset[Fraction]:
    """|value| of each part of the computation ``text`` (its bracketed groups, top-level terms and powers) that has
    an exact value, at most :data:`MAX_PARTS` parts."""
    parts = [*_groups(text), *_terms(text), *(m.group(0) for m in _POWER.finditer(text))][:MAX_PARTS]
    out = set()
    for part in parts:
        value = _exact(part) if read_numbers(part) else None
        if value is not None:
            out.add(abs(value))
    return frozenset(out)


@lru_cache(maxsize=2048)
def computed_values(text: str) -> frozenset[Fraction]:
    """|value| of the computation ``text`` and of its parts (:func:`part_values`); nothing when it has no exact
    value."""
    value = _exact(text)
    return frozenset() if value is None else part_values(text) | {abs(value)}


def rounded(values: Iterable[Fraction], text: str) -> set[Fraction]:
    """The whole numbers ``text`` says it rounds ``values`` to: up (``round up``, ``the next whole number``) or down
    (``round down``, ``floor``); nothing without such words, or with words of both.

    >>> rounded([Fraction(143, 5)], "we need to round up to the next whole number")
    {Fraction(29, 1)}
    >>> rounded([Fraction(143, 5)], "so 29 batches")
    set()
    """
    up, down = bool(_UP.search(text)), bool(_DOWN.search(text))
    if up == down:  # neither, or both ("round down to the next whole number"): no rounding named
        return set()
    return {Fraction(-(-v.numerator // v.denominator) if up else v.numerator // v.denominator)
            for v in values if v.denominator != 1}


def _from_sources(numbers: list[Fraction], found: set[Fraction], is_reached: Callable[[Fraction], bool],
                  is_source: Callable[[Fraction], bool] | None) -> bool:
    """Whether a computation on ``numbers`` is one on reached numbers that starts from the problem: every number
    reached, and — where ``is_source`` (a problem quantity or a derived value, not a basic constant) is given — at
    least one a source and at most one a basic constant that is none (one may be a count; several are an amount
    assembled from nothing: ``2 * 100 / 200 * 4 * 10 * 100``, the equation reader's rule)."""
    if not all(v in found or is_reached(abs(v)) for v in numbers):
        return False
    if is_source is None:
        return True
    free = sum(1 for v in numbers if v not in found and not is_source(abs(v)))
    return free <= 1 and free < len(numbers)


def computed_nearby(earlier: list[str], current: list[str], text: str,
                    is_reached: Callable[[Fraction], bool],
                    is_source: Callable[[Fraction], bool] | None = None) -> set[Fraction]:
    """The numbers ``text`` writes, not reached, that are the value of a computation on reached numbers written in
    ``earlier`` or ``current`` (or of a part of one, or that value rounded as ``text`` says: :func:`rounded`); with
    ``is_source``, a computation on basic constants alone, or on two or more of them, counts for nothing
    (:func:`_from_sources`)."""
    targets = {abs(v) for v, _ in read_numbers(text) if not is_reached(abs(v))}
    found: set[Fraction] = set()
    for _ in range(2):  # a number licensed here may complete another computation of the step
        if not targets - found:
            break
        values: set[Fraction] = set()
        for expression in [*earlier[-MAX_EXPRESSIONS:], *current[:MAX_EXPRESSIONS]]:
            if _from_sources([v for v, _ in read_numbers(expression)], found, is_reached, is_source):
                values |= computed_values(expression)
        new = targets & (values | rounded(values, text)) - found
        if not new:
            break
        found |= new
    return found


def fraction_parts(text: str, is_reached: Callable[[Fraction], bool], answer: Fraction | None = None
                   ) -> set[Fraction]:
    r"""The numerator of each ``\frac{a}{b}`` that ``text`` writes for a number, not reached, where the fraction's
    value and its denominator are: ``\frac{45^\circ}{2}`` for a reached 22.5 makes 45 the product ``22.5 \cdot 2``,
    a computation on reached numbers. Not a fraction the text evaluates (``\frac{438}{6} = 73``: that is a
    computation to check, not a number rewritten), not one whose value is the ``answer`` (the answer is what is
    derived, not what licenses), and never the denominator (a count to divide by is no product of reached numbers).

    >>> fraction_parts(r"\tan 22.5^\circ = \tan \frac{45^\circ}{2}", {Fraction(45, 2), 2}.__contains__)
    {Fraction(45, 1)}
    >>> fraction_parts(r"\frac{45}{7}", {Fraction(45, 2), 2}.__contains__)
    set()
    >>> fraction_parts(r"\frac{45}{2} = 22.5", {Fraction(45, 2), 2}.__contains__)
    set()
    """
    out = set()
    for match in _FRACTION.finditer(text) if "frac" in text else ():
        a, b = Fraction(match[1]), Fraction(match[2])
        if not b or a / b == answer or _EVALUATED.match(text, match.end()):
            continue
        if is_reached(a / b) and is_reached(b) and not is_reached(a):
            out.add(a)
    return out


def _sources(text: str, equations: list) -> list[str]:
    """:func:`expressions` of a step (``equations``: its ``(equation, check)`` pairs) — none where an equation of it
    is refuted or undecided: a step that writes ``16 - 3 - 4 = 8`` and goes on with 9 hides its slip, and the value
    of its computation must not carry the chain past it (``38+2=41`` then ``40*0.1``: the verifier decides the
    slip only later, so an equation not checked true here counts as one)."""
    if any(check.ok is not True for _eq, check in equations):
        return []
    return expressions(text, (eq for eq, _check in equations))


def license_rewritten(builder, index: int, text: str) -> list[Fraction]:
    """The numbers step ``index`` (``text``) writes that a computation on reached numbers of it or of the step before
    evaluates (:func:`computed_nearby`), and the numerators of fractions written for reached numbers
    (:func:`fraction_parts`)."""
    strict = builder.strict

    def reached(v: Fraction) -> bool:
        return value_key(v) in strict or builder.is_reached(v)

    found = fraction_parts(text, reached, builder.answer_value)
    strict.update(value_key(v) for v in found)
    current = _sources(text, builder.equations[index])
    earlier = _sources(builder.trace.steps[index - 1], builder.equations[index - 1]) if index > 0 else []
    if current or earlier:
        found |= computed_nearby(earlier, current, text, reached,
                                 lambda v: value_key(v) in strict or v in builder.converted)
    strict.update(value_key(v) for v in found)
    return sorted(found)
