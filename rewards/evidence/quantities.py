"""Numbers as the evidence reads them: the constants a step may use without a source, the numbers a text states
(:func:`read_numbers`), value keys for fast lookups (:func:`value_key`) and grounding by simple transforms
(:func:`grounded`).
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache

from rewards.checks.arithmetic import numbers_in
from rewards.evidence.figures import figure_code_spans


COMMON_CONSTANTS: frozenset[Fraction] = frozenset(
    Fraction(n) for n in (0, 1, 2, 3, 4, 7, 10, 12, 24, 30, 52, 60, 100, 365, 1000, 3600)
) | frozenset({Fraction(1, 2), Fraction(1, 4), Fraction(3, 4), Fraction(1, 10), Fraction(1, 100)})
"""Quantities a step may use without a source: 0-4 (counting, 3 ft/yd, 4 weeks/quarters), unit conversions
(7 days, 10, 12 months/inches/dozen, 24 h, 30 days, 52 weeks, 60 min, 100 %/cents, 365 days, 1000 g, 3600 s) and
the halves/quarters of everyday reasoning. Deliberately not 5: the invented "$5 fee" is the paper's example of a
quantity that came from nowhere."""

BASIC_CONSTANTS: frozenset[Fraction] = frozenset(Fraction(n) for n in (0, 1, 2, 3, 4, 10, 100)) | frozenset(
    {Fraction(1, 2), Fraction(1, 3), Fraction(1, 4), Fraction(3, 4), Fraction(1, 10), Fraction(1, 100)}) | frozenset(
    {Fraction(25), Fraction(50), Fraction(75)})
"""What a derivation may use without a source in the problem: counting (0-4: halves, thirds, quarters, a triple),
tens and percent, and halves and quarters in percent (an even split is 50%). Only the listed values: the percent
and reciprocal transforms of :func:`grounded` apply to quantities, not to these (400 is not "4 percent"). The unit factors of :data:`COMMON_CONSTANTS` (7 days, 12 months, 60 minutes…) only soften ``q``;
for support a unit conversion must be named by a unit word in the problem or the trace (:data:`_UNIT_TABLE`)."""

_COMMON_KEYS = frozenset(v.numerator if v.denominator == 1 else v for v in COMMON_CONSTANTS)
BASIC_KEYS = frozenset(v.numerator if v.denominator == 1 else v for v in BASIC_CONSTANTS)
""":data:`COMMON_CONSTANTS` and :data:`BASIC_CONSTANTS` by :func:`value_key` (whole values as ints), for lookups by key:
an ``int`` found in a set of ``Fraction`` compares through ``Fraction.__eq__`` (Python code), in a set of ints
natively. Same members, same hashes, so the same answers (tests/rewards/test_fast_paths.py); a ``Fraction`` finds
its equal int as well."""


_TIMES_X = re.compile(r"[x×](?<=\d[x×])(?=\d)")
"""A product written without spaces (``15x2=30``): ``numbers_in`` reads 15 and the name ``x2``. (The ``x`` or ``×``
after a digit and before one: the character class leads, so the scan skips to each ``x`` instead of trying the
digit lookbehind at every position; the same matches as ``(?<=\\d)[x×](?=\\d)``.)"""


@lru_cache(maxsize=4096)
def read_numbers(text: str) -> tuple[tuple[Fraction, tuple[int, int]], ...]:
    """:func:`rewards.checks.arithmetic.numbers_in`, cached (sides repeat across propagation and group members).
    ``15x2`` reads as the two factors 15 and 2 (the ``x`` is blanked, so spans stay those of ``text``)."""
    if "x" in text or "×" in text:
        text = _TIMES_X.sub(" ", text)
    return tuple(numbers_in(text))


step_numbers = read_numbers.__wrapped__
""":func:`read_numbers` of a whole step, not cached: read once per step (twice when the step has no figure code, from
one reading), and rarely again — a cached entry per step would only be kept alive, and every Fraction in it walked
by Python's cyclic collector on each full collection (measured on 2,000 GSM8K traces: 54,000 of the 198,000 objects
the scorer's caches held)."""


def value_key(value: Fraction) -> int | Fraction:
    """A cheap set/dict key for ``value``: its ``int`` when whole, else the value itself. Equal to ``value`` and
    with the same hash (``hash(Fraction(5)) == hash(5)``), so it finds a ``Fraction`` key and a ``Fraction`` finds
    it; but an ``int`` hashes natively, where ``Fraction.__hash__`` computes a modular inverse in Python (and
    ``Fraction(5) == 5`` takes its fast path, where ``Fraction == Fraction`` checks ``numbers.Rational``). Only
    for lookups and private sets: a value handed on stays the ``Fraction`` it was.

    >>> value_key(Fraction(6, 2)), value_key(Fraction(1, 2)), {Fraction(5): "five"}[value_key(Fraction(5))]
    (3, Fraction(1, 2), 'five')
    """
    return value.numerator if value.denominator == 1 else value


@lru_cache(maxsize=4096)
def number_keys(text: str) -> tuple[int | Fraction, ...]:
    """:func:`value_key` of each number of :func:`read_numbers` of ``text``, in order (cached beside it: the sides that
    counterfactual propagation substitutes into, once per edit)."""
    return tuple([value.numerator if value.denominator == 1 else value for value, _span in read_numbers(text)])


def exact_value(v) -> Fraction | None:
    return v.exact if v is not None and v.is_exact else None


SMALL_COUNTS: frozenset[Fraction] = frozenset(Fraction(n) for n in (3, 4))
"""Basic constants that scale (halves, doubles, a triple, quarters) but are no amount of their own: added or taken
away (``14 - 3 - 4 = 7``, an invented "fee of 3") they need a source like any other quantity."""


def grounded(known: set[Fraction], value: Fraction, constants: frozenset[Fraction] = _COMMON_KEYS) -> bool:
    """A value is grounded if known, a constant, or a simple transform of a known value (percent, reciprocal,
    negation). A whole value is looked up as an ``int`` (:func:`value_key`: the same answers without ``Fraction``
    hashing and arithmetic)."""
    if value.denominator == 1:
        n = value.numerator
        if n in known or n in constants or -n in known or n * 100 in known:
            return True
        if (n // 100 if n % 100 == 0 else Fraction(n, 100)) in known:
            return True
        return n != 0 and (n if n == 1 or n == -1 else Fraction(1, n)) in known
    if value in known or value in constants or -value in known:
        return True
    if value * 100 in known or value / 100 in known:
        return True
    return value != 0 and 1 / value in known


WRITTEN_FRACTION = re.compile(r"\\[dt]?frac\{\s*(-?\d{1,12})\s*\}\{\s*(\d{1,12})\s*\}|(?<![\d.])(\d{1,12})\s*/\s*(\d{1,12})(?![\d.])")


def fraction_literals(text: str) -> list[tuple[Fraction, tuple[int, int]]]:
    """The fractions ``text`` writes as literals (``\\frac{8}{21}``, ``8/21``), each with its span.

    >>> fraction_literals("so $\\\\frac{11}{2}$ and 3/4")
    [(Fraction(11, 2), (4, 16)), (Fraction(3, 4), (22, 25))]
    """
    out = []
    for m in WRITTEN_FRACTION.finditer(text):
        top, bottom = (m.group(1), m.group(2)) if m.group(1) is not None else (m.group(3), m.group(4))
        if int(bottom):
            out.append((Fraction(int(top), int(bottom)), m.span()))
    return out


UNKNOWN_LETTER = re.compile(r"(?<![\\A-Za-z])[A-Za-z](?![A-Za-z])")
"""A one-letter name outside a LaTeX command or a word: ``x + 0`` is no number, ``\\frac{9}{2}`` and ``9 eggs`` are."""


def reached_fractions(text: str, is_reached) -> list[tuple[int, int]]:
    """Spans of the fractions ``text`` writes whose value is reached: their numerator and denominator are no stray
    numbers (a restated fractional answer read digit group by digit group stated 21)."""
    return [span for value, span in fraction_literals(text) if is_reached(value)]


_NUMERAL = re.compile(r"\d")
_MATH = re.compile(r"\$\$.+?\$\$|\$.+?\$|\\\[.+?\\\]|\\\(.+?\\\)", re.S)
"""A LaTeX math segment of a problem: ``$...$``, ``$$...$$``, ``\\[...\\]``, ``\\(...\\)``."""
_BOUND = re.compile(r"(?:[<>≤≥≠]|\\(?:le|leq|ge|geq|lt|gt|ne|neq)(?![A-Za-z]))=?\s*\{?\s*$")
_BOUND_AFTER = re.compile(r"^\}?\s*(?:[<>≤≥≠]|\\(?:le|leq|ge|geq|lt|gt|ne|neq)(?![A-Za-z]))")
_INSTRUCTION = re.compile(r"(?:^|(?<=[.?!(\n\]$]))\s*(?:Express|Give|Enter|Write|Round)\b[^.\n]{0,120}?\banswer\b[^.\n]*",
                          re.I)
"""A sentence that says how to write the answer ("Express your answer as an integer from 0 to 46", "Give an answer
between 0 and 507"): its numbers are a format, not quantities of the problem."""
_COMMAND = re.compile(r"\\[A-Za-z]+")
_OPEN = {")": "(", "}": "{", "]": "["}


def _power_of_letter(text: str, start: int) -> bool:
    """Whether the number at ``start`` is an exponent whose base writes a letter (``x^2``, ``(x-3)^{2}``,
    ``y^{-1}``): the degree of a formula the solution manipulates, not a quantity. ``2^{10}`` and
    ``\\left(\\frac{3}{4}\\right)^5`` have numeric bases: their exponents are quantities."""
    i = start - 1
    while i >= 0 and text[i] in "{- ":
        i -= 1
    if i < 1 or text[i] != "^":
        return False
    i -= 1
    while i >= 0 and text[i] == " ":
        i -= 1
    if i < 0:
        return False
    c = text[i]
    if c.isalpha():
        return True
    if c not in _OPEN:
        return False
    depth, j = 0, i
    while j >= 0 and i - j < 200:
        if text[j] == c:
            depth += 1
        elif text[j] == _OPEN[c]:
            depth -= 1
            if depth == 0:
                return bool(re.search(r"[A-Za-z]", _COMMAND.sub(" ", text[j + 1:i])))
        j -= 1
    return False


def _zero_or_one_bound(text: str, start: int, end: int, value: Fraction) -> bool:
    """Whether the number at ``start:end`` is a 0 or a 1 that bounds an inequality (``a > 0``, ``0 < x``, ``n \\ge
    1``, ``x \\neq 1``): a condition on the formula, which no derivation consumes as an operand."""
    if value not in (0, 1):
        return False
    return bool(_BOUND.search(text, max(0, start - 8), start) or _BOUND_AFTER.match(text[end:end + 8]))


_RECIPROCAL = re.compile(r"\\[dt]?frac\{\s*1\s*\}\{([^{}]{1,60})\}|(?<![\d.])1\s*/\s*\(?([A-Za-z])")


def _reciprocal_of_letter(text: str, start: int) -> bool:
    """Whether the number at ``start`` is the 1 of a reciprocal of an expression with a letter (``\\frac{1}{x-3}``,
    ``\\frac{1}{b}``, ``1/z``): the form of a formula, as the ``-1`` of ``x^{-1}`` is; ``\\frac{1}{29}`` states a
    quantity."""
    for match in _RECIPROCAL.finditer(text, max(0, start - 7), start + 70):
        if match.start() <= start < match.end() and text[start] == "1" and (
                match.group(2) is not None or re.search(r"[A-Za-z]", _COMMAND.sub(" ", match.group(1)))):
            return text.find("1", match.start()) == start
    return False


_ELLIPSIS = re.compile(r"\\[lc]?dots|\.\.\.|…")
_PROGRESSION = re.compile(r"-?\d{1,12}(?:\.\d+)?(?:\s*,\s*\$?\s*(?:\\[,;!]\s*)*(?:-?\d{1,12}(?:\.\d+)?|\\[lc]?dots|\.\.\.|…))+")
"""A comma-separated run of numbers with an ellipsis among them (``6,10,14,\\ldots,82,86``,
``-36, -29, -22, \\ldots, 41, 48``, ``\\{0,1,2,\\ldots,35,36\\}``)."""


_ORDINAL_SUFFIX = re.compile(r"(?:st|nd|rd|th)\b|\^\{?\s*(?:\\(?:text|mathrm)\{)?\s*(?:st|nd|rd|th)\b")
_YEAR_BEFORE = re.compile(r"(?:\b(?:[Ii]n|[Ss]ince|[Yy]ear|[Bb]y|[Uu]ntil|[Ff]rom|[Tt]o)\s+)$")


def _is_label(problem: str, start: int, end: int, value: Fraction) -> bool:
    """Whether the numeral at ``start:end`` labels rather than counts: an ordinal (``6th``, ``$100^{\\text{th}}$``) or
    a year (``In 2005``, ``since 1998``: 1000 to 2100 after a word that dates). A label is a quantity where the
    derivation uses it (``2020 - 1990``; the 14th term as 13 steps) and no unused one where it does not ("the 6th
    biggest doll" reached by five halvings; "In 2004 ... In 2005 ..."), as a figure's numbers are."""
    if _ORDINAL_SUFFIX.match(problem, end):
        return True
    return value.denominator == 1 and 1000 <= value <= 2100 and end - start == 4 \
        and _YEAR_BEFORE.search(problem[max(0, start - 8):start]) is not None


_SLASH_FRACTION = re.compile(r"(?<![\d./,])(\d{1,6})\s?/\s?(\d{1,6})(?![\d./]|\s?[*/^])")
"""A fraction written with a slash in a problem's text (``a 1/4 probability``, ``each 1/2 inch``): one quantity."""


_LATEX_FRACTION = re.compile(r"\\[dt]?frac\s*(?:\{\s*(\d{1,6})\s*\}|(\d))\s*\{\s*(\d{1,6})\s*\}")
"""A numeric fraction written in LaTeX (``\\frac{2}{7}``, ``\\dfrac{3}{5}``, ``\\frac5{12}``): one quantity, as
``2/7`` in text is (:data:`_SLASH_FRACTION`)."""


def _latex_fractions(problem: str, skip: list[tuple[int, int]]) -> list[tuple[Fraction, tuple[int, int]]]:
    """The numeric LaTeX fractions of ``problem`` outside the ``skip`` spans (figure code, notation), each with its
    span."""
    out = []
    for m in _LATEX_FRACTION.finditer(problem):
        if int(m.group(3)) and not _inside(skip, m.start()):
            out.append((Fraction(int(m.group(1) or m.group(2)), int(m.group(3))), m.span()))
    return out


def _progression_inner_spans(problem: str) -> list[tuple[int, int]]:
    """The spans of the inner items of every list that goes on (:data:`_PROGRESSION`): every item but the first and
    the last. A list written by its pattern (``6, 10, 14, \\ldots, 82, 86``) states its bounds; the items between
    restate the pattern (a count needs the first, the last and the step, never ``14`` or ``82``), so they are no
    quantities a derivation must use."""
    spans = []
    for match in _PROGRESSION.finditer(problem):
        if not _ELLIPSIS.search(match.group()):
            continue
        items = [m.span() for m in re.finditer(r"-?\d{1,12}(?:\.\d+)?", match.group())]
        if len(items) >= 3:
            spans.append((match.start() + items[1][0], match.start() + items[-2][1]))
    return spans


def _inside(spans: list[tuple[int, int]], at: int) -> bool:
    return any(a <= at < b for a, b in spans)


_LISTED_SET = re.compile(r"\\\{[^{}]{1,300}?\\\}")
"""A set written by listing its members, ``\\{1, 2, 3, 4\\}``: where choices are drawn from, not amounts."""
_TABLE = re.compile(r"\\begin\{(tabular|array)\}.{0,4000}?\\end\{\1\}", re.S)
"""A table or array: its cells are data a derivation looks up, one or a few at a time."""
_EXAMPLE = re.compile(r"\b(?:[Ff]or (?:example|instance)|e\.g\.)[^.?!\n]{0,200}")
"""An example the problem gives ("For example, 668 is a pair, but 999 is not"): it illustrates a definition."""
_FORMAT = re.compile(r"\b(?:to \$?\d{1,2}\$? (?:decimal places|places|significant (?:figures|digits))\b"
                     r"|(?:[Ff]rom|[Bb]etween)\s\$?-?\d{1,4}\$?\s(?:to|and)\s\$?\d{1,6}\$?,?\s\(?inclusive\b)")
"""A phrase that formats the answer or bounds its range ("to 2 decimal places", "integers from $0$ to $6$
(inclusive)"), beside :data:`_INSTRUCTION`'s sentences (format words without a numeral need no reading)."""
_BASE_NUMERAL = re.compile(r"(?<![\w.])\d{1,40}_(?:\{?\s*\d{1,2}\s*\}?|[A-Za-z](?![A-Za-z]))")
"""A numeral written in a base and its base (``100_2``, ``31_b``, ``14_{8}``): the digits are no decimal amount."""
_DIGIT_COUNT = re.compile(r"(?<![\w.])\$?\d{1,2}\$?-digit\b")
"""A count of digits as a label ("two 2-digit numbers", "$5$-digit"): what kind of number, counted where used."""
_INDEX = re.compile(r"(?<![\\A-Za-z])[A-Za-z]_\s*(?:\{[^{}$]{1,12}\}|\d)")
"""The index of a named term (``x_{1}``, ``F_1``, ``x_{n-2}``): which term, not an amount (``\\log_2`` is a base and
stays: the letter is part of a command)."""
_INVERSE = re.compile(r"\^\s*\{\s*-\s*1\s*\}|\^\s*-1(?!\d)")
"""The ``-1`` exponent of an inverse (``33^{-1}``, ``f^{-1}``): notation for the inverse, no quantity."""


def notation_spans(problem: str) -> list[tuple[int, int]]:
    r"""The spans of ``problem`` whose numerals are notation, data or examples rather than quantities the
    derivation must use — counted where the derivation uses them, as a figure's numbers are
    (:func:`figure_numbers`): a listed set (``\{1,2,3,4\}``), a table (``tabular``, ``array``), an example ("For
    example, 35 has only 1, 5, 7 and 35 as its factors"), a phrase that formats the answer or bounds its range
    ("to 2 decimal places", "from $0$ to $6$ (inclusive)"), a numeral in a base (``10_2``), a count of digits
    ("2-digit") and the index of a named term (``x_{1}``).

    >>> p = "Pick from $\{1, 2, 3\}$ and add 5. Round to 2 decimal places."
    >>> [p[a:b] for a, b in notation_spans(p)]
    ['\\{1, 2, 3\\}', 'to 2 decimal places']
    """
    spans = []
    for pattern, cue in ((_LISTED_SET, "\\{"), (_TABLE, "\\begin"), (_EXAMPLE, "xample"), (_EXAMPLE, "e.g."),
                         (_FORMAT, ""), (_BASE_NUMERAL, "_"), (_DIGIT_COUNT, "-digit"), (_INDEX, "_")):
        if cue in problem:
            spans.extend(m.span() for m in pattern.finditer(problem))
    return sorted(set(spans))


def stated_quantities(problem: str) -> frozenset[Fraction]:
    r"""The distinct quantities a problem writes as numerals (``48``, ``$18.00``, ``20%``; not number words, which are
    often no quantity: "one day", "a pair") — what :func:`rewards.evidence.quantity_coverage` asks a derivation to
    use. A value counts when one of its occurrences is a quantity; these occurrences are not:

    * figure code: the inside of an ``[asy]`` block, less its quoted labels (coordinates, sizes, pens);
    * notation, data and examples (:func:`notation_spans`): a listed set, a table, an example, a range or precision
      the answer is to be given in, a numeral in a base, a count of digits — these and figure code are counted
      where the derivation uses them (:func:`figure_numbers`);
    * the ``-1`` exponent of an inverse (``33^{-1}``, ``f^{-1}``);
    * an exponent of a letter (``x^2``, ``(x-3)^{2}``, ``y^{-1}``): the degree of a formula, not a quantity;
    * a 0 or 1 bounding an inequality inside math (``a > 0``, ``n \ge 1``, ``x \neq 1``): a condition;
    * the 1 of a reciprocal of a letter's expression inside math (``\frac{1}{x-3}``, ``1/z``), as the ``-1`` of
      ``x^{-1}``;
    * a sentence that formats the answer ("Express your answer as an integer from 0 to 46");
    * the two numbers of a numeric fraction, which states one quantity (``\frac{2}{7}``, ``1/4``);
    * 0, anywhere (``= 0``, ``5:00 pm``): no derivation needs it as an operand, so none is a shortcut without it.

    >>> sorted(stated_quantities("If $f(x) = 5x^2 + 3x + 4$ with $x > 0$, find $f(6)$."))
    [Fraction(3, 1), Fraction(4, 1), Fraction(5, 1), Fraction(6, 1)]
    >>> sorted(stated_quantities('Side 3. [asy] draw((0,0)--(9,0)); label("4",(2,5)); [/asy] Express your answer to 2 places.'))
    [Fraction(3, 1), Fraction(4, 1)]
    """
    return _quantities(problem)[0]


def figure_numbers(problem: str) -> frozenset[Fraction]:
    """The values a problem writes only in figure code (an ``[asy]`` block's coordinates, less its labels) or in
    notation (:func:`notation_spans`: a listed set, a table, an example...), and no basic constant: no quantity a derivation must use, but one it may read off the figure (``A = (6, 8)``: a
    height of 8) — :func:`rewards.evidence.quantity_coverage` credits one the derivation uses as an operand.

    >>> sorted(figure_numbers('Side 3. [asy] draw((0,0)--(9,0)); label("4",(2,5)); [/asy]'))
    [Fraction(5, 1), Fraction(9, 1)]
    """
    return _quantities(problem)[1]


@lru_cache(maxsize=1024)
def _quantities(problem: str) -> tuple[frozenset[Fraction], frozenset[Fraction]]:
    """(:func:`stated_quantities`, :func:`figure_numbers`) of ``problem``, read in one pass."""
    figures = figure_code_spans(problem)
    maths = [m.span() for m in _MATH.finditer(problem)] if "$" in problem or "\\" in problem else []
    formats = [m.span() for m in _INSTRUCTION.finditer(problem)] if "answer" in problem.lower() else []
    stated, drawn = set(), set()
    inner = _progression_inner_spans(problem) if _ELLIPSIS.search(problem) else []
    slashed = {m.start(): m for m in _SLASH_FRACTION.finditer(problem)} if "/" in problem else {}
    slash_spans = [m.span() for m in slashed.values()]
    notation = notation_spans(problem)
    fractions = _latex_fractions(problem, figures + notation) if "frac" in problem else []
    stated.update(value for value, _span in fractions)  # "eats $\frac{2}{7}$ of the cookie": 2/7, not 2 and 7
    fraction_spans = [span for _value, span in fractions]
    inverses = [m.span() for m in _INVERSE.finditer(problem)] if "-" in problem and "^" in problem else []
    for value, (start, end) in read_numbers(problem):
        if value in stated or value == 0 or not (_NUMERAL.match(problem, start)
                                                 or _NUMERAL.search(problem[start:start + 2])):
            continue
        if (inner and _inside(inner, start)) or (fraction_spans and _inside(fraction_spans, start)):
            continue
        if _is_label(problem, start, end, value):  # "the 6th biggest doll", "In 2005": counted where used
            drawn.add(value)
            continue
        if slash_spans and _inside(slash_spans, start):
            fraction = slashed.get(start)  # "a 1/4 probability": one quantity, 1/4, not 1 and 4
            if fraction is not None and int(fraction.group(2)) != 0 and not (figures and _inside(figures, start)):
                stated.add(Fraction(int(fraction.group(1)), int(fraction.group(2))))
            continue
        if (figures and _inside(figures, start)) or (notation and _inside(notation, start)):
            drawn.add(value)
            continue
        if inverses and _inside(inverses, start):
            continue
        if formats and _inside(formats, start):
            continue
        if maths and _inside(maths, start) and (_power_of_letter(problem, start)
                                                 or _zero_or_one_bound(problem, start, end, value)
                                                 or (value == 1 and _reciprocal_of_letter(problem, start))):
            continue
        stated.add(value)
    return frozenset(stated), frozenset(v for v in drawn - stated if value_key(v) not in BASIC_KEYS)
