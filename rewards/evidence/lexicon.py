"""The grounding lexicon: every quantity a problem states or implies (:func:`problem_numbers`: numerals, percentages,
ordinals, weekdays, polygons, companions, a sequence's N-th term, radius and diameter, listed numbers, clock times)
and the unit conversion factors named by a unit word (:func:`unit_constants`).
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache

from rewards.checks.arithmetic import contains_any
from rewards.checks.arithmetic.extraction import CLOCK_TIME, time_of_day
from rewards.checks.arithmetic.tokens import base_numeral
from rewards.checks.latex_algebra import braced_arguments
from rewards.evidence.quantities import read_numbers


_UNIT_TABLE: tuple[tuple[str, tuple[int, ...]], ...] = (
    ("quarter quarters", (25,)),
    ("pint pints gallon gallons quart quarts cup cups", (2, 4, 8, 16, 32, 128)),
    ("ounce ounces oz pound pounds lb lbs", (16,)),
    ("yard yards", (3, 36)),
    ("mile miles", (5280, 1760)),
    ("inch inches foot feet", (12, 36)),
    ("ton tons", (2000,)),
    ("january february march april may june july august september october november december month months",
     (28, 29, 30, 31)),
    ("leap", (366,)),
    ("day days daily", (24,)),
    ("week weeks weekly fortnight", (7, 14)),
    ("year years yearly annual annually", (12, 52, 365)),
    ("dozen dozens", (12,)),
    ("decade decades", (10,)),
    ("century centuries", (100,)),
    ("nickel nickels", (5,)),
    ("dime dimes", (10,)),
    ("gross", (144,)),
    ("score", (20,)),
    ("percent %", (100,)),
    ("hour hours minute minutes second seconds", (60, 3600)),
    ("meter meters metre metres km kilometer kilometers kilogram kilograms kg gram grams liter liters litre "
     "litres kw kwh kilowatt kilowatts watt watts", (1000,)),
    ("cm centimeter centimeters centimetre centimetres", (100,)),
    ("circ angle angles triangle triangles polygon quadrilateral pentagon hexagon octagon", (90, 180, 360)),
)
ANGLES: frozenset[Fraction] = frozenset(Fraction(v) for v in (90, 180, 360))
"""The angle factors of :data:`_UNIT_TABLE`: grounded only by the problem's own words (angle, triangle, ``^\\circ``)."""
_UNIT_VALUES: dict[str, frozenset[Fraction]] = {}
for _words, _values in _UNIT_TABLE:
    for _word in _words.split():
        _UNIT_VALUES[_word] = _UNIT_VALUES.get(_word, frozenset()) | frozenset(Fraction(v) for v in _values)
_UNIT_WORDS: frozenset[str] = frozenset(_UNIT_VALUES)
_WORD = re.compile(r"[a-z]+|%")
"""Conversion factors a solution may use without a source when a matching unit word occurs in the problem or the
trace: 8 pints a gallon, 16 ounces a pound, 31 days in December, 5,280 feet a mile, a quarter is 25 cents, a
right angle of 90 degrees and a triangle's 180...
Looked up word by word in one pass over the lower-cased text."""

_HALVES = {"half": Fraction(1, 2), "1/2": Fraction(1, 2), "quarter": Fraction(1, 4), "1/4": Fraction(1, 4),
           "third": Fraction(1, 3), "1/3": Fraction(1, 3), "3/4": Fraction(3, 4)}
_AND_A_HALF = re.compile(
    r"(?:(?P<n>\b\d+(?:\.\d+)?|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\b)|(?P<one>\ban?\b))"
    r"(?:\s+[a-z]+){0,2}?\s+and\s+(?:a\s+|one\s+)?(?P<part>half|quarter|third)\b"
    r"|(?P<m>\b\d+)\s+(?P<mpart>1/2|1/4|1/3|3/4)\b", re.I)
_HALF_PART = re.compile(r"and\s++(?:a\s++|one\s++)?(?:half|quarter|third)\b|\d\s++(?:1/2|1/4|1/3|3/4)\b", re.I)
"""The tail every match of :data:`_AND_A_HALF` ends with ("and a half", "4 1/2"), under the same flags: a problem
without it has no match, and is answered without the full pattern (which tries its number words at every position,
~40 µs on a GSM8K problem; this test ~5). The whitespace runs are possessive: each is followed by a letter or digit."""
_ORDINALS = {"half": 2, "halves": 2, "third": 3, "fourth": 4, "quarter": 4, "fifth": 5, "sixth": 6, "seventh": 7,
             "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14,
             "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18, "nineteenth": 19, "twentieth": 20,
             "thirtieth": 30, "fortieth": 40, "fiftieth": 50, "hundredth": 100}


def _has_ordinal(low: str) -> bool:
    """Whether one of the :data:`_ORDINALS` occurs in ``low`` (lower-cased)."""
    return contains_any(low, _ORDINALS)


_ORDINAL_WORDS = re.compile(r"\b(" + "|".join(_ORDINALS) + r")s?\b", re.I)
_ORDINAL_WORDS_LOWER = re.compile(r"\b(" + "|".join(_ORDINALS) + r")s?\b")
""":data:`_ORDINAL_WORDS` for lower-cased ASCII text (the same matches, without case folding)."""
_WEEKDAY_WORDS = ("monday", "tuesday", "wednesday", "thursday", "friday", "weekday", "workday", "work day",
                  "schoolday", "school day")
"""A word every match of :data:`_WEEKDAYS` holds (lower-cased)."""
_WEEKDAYS = re.compile(r"\b(monday|tuesday|wednesday|thursday|friday|weekdays?|work ?days?|school ?days?)\b", re.I)
_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_DAY_RANGE = re.compile(r"\b(" + "|".join(_DAYS) + r")s?\s+(?:to|through|thru|until|till|-|–)\s+(" + "|".join(_DAYS)
                        + r")\b", re.I)
_WEEKEND = re.compile(r"\bweekends?\b", re.I)
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")
_MONTH_RANGE = re.compile(r"\b(" + "|".join(_MONTHS) + r")\s+(?:to|through|thru|until|till|-|–)\s+("
                          + "|".join(_MONTHS) + r")\b", re.I)


_POLYGONS = {"pentagon": 5, "hexagon": 6, "heptagon": 7, "octagon": 8, "nonagon": 9, "decagon": 10,
             "hendecagon": 11, "dodecagon": 12, "icosagon": 20}
_POLYGON_WORDS = re.compile(r"\b(" + "|".join(_POLYGONS) + r")(?:s|al)?\b", re.I)


_COMPANION_WORDS = ("friends", "siblings", "brothers", "sisters", "cousins", "classmates", "coworkers", "co-workers",
                    "colleagues", "teammates", "roommates")
"""A word every match of :data:`_COMPANIONS` holds (lower-cased)."""
_COMPANIONS = re.compile(r"\band (?:(?:his|her|their) ([\w-]+)|([\w-]+) (?:of )?(?:his|her|their)) "
                         r"(?:best |close |good )?(?:friends|siblings|brothers|sisters|cousins|classmates|coworkers|"
                         r"co-workers|colleagues|"
                         r"teammates|roommates)\b", re.I)
"""``Suzie and 5 of her friends``, ``Tom and his 3 brothers``: with the one named, a group of N + 1."""


_NTH_TERM = re.compile(r"\b(?:(\d{1,6})(?:st|nd|rd|th)|(\d{1,6})\^\{?\\(?:text|mathrm)\{(?:st|nd|rd|th)\}\}?|("
                       + "|".join(w for w in _ORDINALS if w not in ("half", "halves", "quarter"))
                       + r"))\W{0,3}\s*terms?\b", re.I)
"""``the 2003rd term``, ``the $100^{\\mathrm{th}}$ term``, ``the eighth term``: the N-th term of a sequence is N - 1
steps from the first (``1 + 2002 \\cdot 2``)."""


_RADIUS = re.compile(r"\bradius\s+(?:of\s+|is\s+)?\$?(?P<r1>\d{1,6}(?:\.\d+)?)(?![\d.]*\s*[\\^/])|"
                     r"(?<![\d.])(?P<r2>\d{1,6}(?:\.\d+)?)\$?[- ](?:[a-z]+[- ])?radius\b|"
                     r"\bdiameter\s+(?:of\s+|is\s+)?\$?(?P<d1>\d{1,6}(?:\.\d+)?)(?![\d.]*\s*[\\^/])|"
                     r"(?<![\d.])(?P<d2>\d{1,6}(?:\.\d+)?)\$?[- ](?:[a-z]+[- ])?diameter\b")
"""``a radius of 3 cm``, ``a 3-inch radius``, ``diameter 10``: the other of the two is a quantity of the problem."""


_LISTED = re.compile(r"(?<![\d.])-?\d{1,9}(?:\.\d+)?(?:[\s$]*,[\s$]+(?:and[\s$]+)?-?\d{1,9}(?:\.\d+)?(?!\d|\.\d)){2,}")
r"""A list of three numbers or more (``$71,$ $72,$ $73,$ $74,$ $75``, ``3, 5, 7, and 9``; a comma and a space between
items, so ``1,000,000`` is one number): how many it lists is a quantity of the problem (an average divides by it).
Not a list that goes on (``1, 3, 5, \ldots``)."""
_LISTED_ITEM = re.compile(r"-?\d{1,9}(?:\.\d+)?")
_GOES_ON = re.compile(r"[lc]?dots|\.\.\.|…")
MAX_LISTED = 50


_BASE_NUMERAL = re.compile(r"(?<![\w.])(\d{1,32})_(?:(\d{1,2})(?!\d)|\{\s*(\d{1,2})\s*\})")
r"""A numeral with its base as a subscript (``321_7``, ``1011_{2}``): the base and the digits are quantities of the
problem (a conversion expands ``3 \cdot 7^2 + 2 \cdot 7 + 1``), the numeral itself reads as its value."""


@lru_cache(maxsize=4096)
def problem_numbers(problem: str) -> frozenset[Fraction]:
    """Every quantity the problem states or implies.

    Numerals and number words (via :func:`rewards.checks.arithmetic.numbers_in`), percentages also as fractions
    (50% -> 50 and 1/2) with the factors of a change by that percentage (3/2, 1/2, 150, 50), ordinals and fraction
    words both ways ("every sixth customer", "a fifth of an hour"
    -> 6 and 1/6, 5 and 1/5), and the calendar words a solution turns into numbers ("Monday to Friday",
    "weekdays" -> 5; "weekend" -> 2), a polygon's sides ("a regular octagon" -> 8), a group with the one named
    ("Suzie and 5 of her friends" -> 6), the steps to a sequence's N-th term ("the 2003rd term" -> 2003, 2002)
    and a logarithm's base and argument ("\\log_264" -> 2, 64), a clock time in minutes ("7:50 a.m." -> 470), a
    circle's diameter from its radius and back ("a 3-inch radius" -> 6), how many numbers a list gives ("the
    integers $71,$ $72,$ $73,$ $74,$ $75$" -> 5, :data:`_LISTED`), a base numeral's base and digits ("$321_7$" -> 7,
    3, 2, 1; :data:`_BASE_NUMERAL`).
    """
    values = set()
    low = problem.lower()
    percent = "%" in problem or "percent" in low  # else no number is a percentage (lower() maps char by char)
    for value, (start, end) in read_numbers(problem):
        values.add(value)
        if percent and (problem[end:end + 1] == "%" or problem[end:end + 2] == "\\%"
                        or problem[end:end + 8].lstrip().lower().startswith("percent")):  # LaTeX: "60\%"
            # 20% -> 1/5, and the factors of a 20% change: 6/5, 4/5 (and 120, 80 "percent of the old")
            values.update((value / 100, 1 + value / 100, 1 - value / 100, 100 + value, 100 - value))
    # each pattern below runs only where a word it needs occurs (a substring test is exact for ASCII text: the
    # patterns' re.I also folds a few non-ASCII letters, so other text always runs them)
    every = not low.isascii()
    halves = every or "1/" in problem or "3/4" in problem or "half" in low or "quarter" in low or "third" in low
    for match in _AND_A_HALF.finditer(problem) if halves and _HALF_PART.search(problem) else ():  # "four and a half
        # hours", "4 1/2 pounds"
        if match.group("m"):
            values.add(Fraction(match.group("m")) + _HALVES[match.group("mpart")])
            continue
        whole = Fraction(1) if match.group("one") else next((v for v, _ in read_numbers(match.group("n"))), None)
        if whole is not None:
            values.add(whole + _HALVES[match.group("part").lower()])
    if every or _has_ordinal(low):
        for word in _ORDINAL_WORDS.findall(problem) if every else _ORDINAL_WORDS_LOWER.findall(low):
            n = _ORDINALS[word.lower()]
            values.update((Fraction(n), Fraction(1, n)))
    if every or "day" in low:  # every weekday name, "workday" and "school day" hold "day"
        if (every or contains_any(low, _WEEKDAY_WORDS)) and _WEEKDAYS.search(problem):
            values.add(Fraction(5))
        for first, last in _DAY_RANGE.findall(problem) if every or contains_any(low, _DAYS) else ():
            # "from Monday to Saturday" -> 6 days
            values.add(Fraction((_DAYS.index(last.lower()) - _DAYS.index(first.lower())) % 7 + 1))
    if every or contains_any(low, _MONTHS):
        for first, last in _MONTH_RANGE.findall(problem):  # "from January to July" -> 7 months
            values.add(Fraction((_MONTHS.index(last.lower()) - _MONTHS.index(first.lower())) % 12 + 1))
    if (every or "weekend" in low) and _WEEKEND.search(problem):
        values.add(Fraction(2))
    if every or "gon" in low:  # "a regular octagon": its 8 sides are a quantity of the problem
        values.update(Fraction(_POLYGONS[word.lower()]) for word in _POLYGON_WORDS.findall(problem))
    values.update(_notation_numbers(problem, low, every))
    return frozenset(values)


def _notation_numbers(problem: str, low: str, every: bool) -> set[Fraction]:
    """The quantities :func:`problem_numbers` reads from notation and set phrases: a sequence's N-th term, a group
    with the one named, a logarithm's base and argument, a radius or diameter, a list's length, a base numeral's
    base and digits, a clock time, LaTeX's one-digit arguments (``low``: the problem lower-cased; ``every``: run
    every pattern, the problem is not ASCII)."""
    values: set[Fraction] = set()
    for match in _NTH_TERM.finditer(problem) if "term" in low else ():  # the 2003rd term: 2002 steps on
        n = Fraction(match.group(1) or match.group(2) or _ORDINALS[match.group(3).lower()])
        values.update((n, n - 1))
    for match in _COMPANIONS.finditer(problem) if " and " in low and (every or contains_any(
            low, _COMPANION_WORDS)) else ():  # "Suzie and 5 of her friends": 6
        count = read_numbers(match.group(1) or match.group(2))
        if len(count) == 1 and count[0][0].denominator == 1 and 0 < count[0][0] < 1000:
            values.add(count[0][0] + 1)
    for match in STATED_LOG.finditer(problem) if "\\log_" in problem else ():  # "\\log_264": base 2, 64
        values.update((Fraction(match.group(1) or match.group(2)), Fraction(match.group(3))))
    for match in _RADIUS.finditer(problem) if "radius" in low or "diameter" in low else ():  # radius 3: diameter 6
        radius, diameter = match.group("r1") or match.group("r2"), match.group("d1") or match.group("d2")
        values.add(Fraction(radius) * 2 if radius else Fraction(diameter) / 2)
    for match in _LISTED.finditer(problem) if "," in problem else ():  # "the integers 71, 72, 73, 74, 75": 5
        count = len(_LISTED_ITEM.findall(match.group()))
        if count <= MAX_LISTED and not _GOES_ON.search(problem[max(0, match.start() - 12):match.start()]) \
                and not _GOES_ON.search(problem[match.end():match.end() + 12]):
            values.add(Fraction(count))
    for match in _BASE_NUMERAL.finditer(problem) if "_" in problem else ():  # "321_7": base 7 and digits 3, 2, 1
        digits, base = match.group(1), int(match.group(2) or match.group(3))
        if base_numeral(digits, base) is not None:  # a numeral of that base, as the tokenizer reads it
            values.add(Fraction(base))
            values.update(Fraction(int(d)) for d in set(digits))
    for match in CLOCK_TIME.finditer(problem) if ":" in problem else ():  # "at 7:50 a.m.": 470 minutes, as a
        h, m, ap = int(match["h"]), int(match["m"]), match["ap"]  # trace's clock chains are read (read_clock_times)
        values.add(Fraction(time_of_day(h, m, ap)))
        if h == 12 and not ap:  # "12:00" unmarked: noon too
            values.add(Fraction(720 + m))
    braced = braced_arguments(problem)  # "\\frac1{2\\sqrt7}": LaTeX's one-digit arguments state 1 and 7 too
    if braced != problem:
        values.update(value for value, _span in read_numbers(braced))
    return values


class Converted:
    """``value in converted``: whether a value is a problem quantity in another unit (``a * u`` or ``a / u``):
    ``value / u`` or ``value * u`` is a problem quantity for some unit factor ``u`` (exact, and ``u > 0``): the
    same answer as membership in :func:`_conversions`. The first questions are worked out one by one, each against
    every unit (most operands are grounded without asking, and a short trace asks a few times); once a trace has
    asked more than ``2 · |pnums|`` times, the ``2 · |pnums| · |units|`` products are built once and looked up (a
    long trace names many units and asks on many steps: one question against 30 units cost ~60 Fraction operations,
    every time). No problem quantity: nothing is one in another unit."""

    __slots__ = ("pnums", "units", "_asked", "_products")

    def __init__(self, pnums: frozenset[Fraction], units: frozenset[Fraction]) -> None:
        self.pnums, self.units = pnums, units
        self._asked = 0
        self._products: frozenset | None = None

    def __contains__(self, value: Fraction) -> bool:
        pnums = self.pnums
        if not pnums:
            return False
        if self._products is not None:
            return value in self._products
        self._asked += 1
        if self._asked > 2 * len(pnums):  # worth building: the set of every product, by value_key
            self._products = frozenset(v.numerator if v.denominator == 1 else v
                                       for v in _conversions.__wrapped__(pnums, self.units)) if self.units else frozenset()
            return value in self._products
        if value.denominator == 1:  # whole: int arithmetic and int keys (equal values, same hashes) where the unit
            n = value.numerator     # is whole too
            for u in self.units:
                if u.denominator != 1 or u.numerator <= 0:
                    if value / u in pnums or value * u in pnums:
                        return True
                    continue
                w = u.numerator
                if (n // w if n % w == 0 else Fraction(n, w)) in pnums or n * w in pnums:
                    return True
            return False
        for u in self.units:
            if value / u in pnums or value * u in pnums:
                return True
        return False


@lru_cache(maxsize=4096)
def _conversions(pnums: frozenset[Fraction], units: frozenset[Fraction]) -> frozenset[Fraction]:
    return frozenset({a * u for a in pnums for u in units} | {a / u for a in pnums for u in units})


_TIME_SECOND = re.compile(r"(?:\d|\bper|\beach|\bevery|\bone|\ba)\s+second\b", re.I)
""""second" as a unit of time (``30 second``, ``per second``), not the ordinal ("the second car")."""
_SPACED_SECOND = re.compile(r"\s+second\b", re.I)
"""The tail of every :data:`_TIME_SECOND` match, from the first space of its run (the word before it has none)."""


def _time_second(text: str) -> bool:
    """``_TIME_SECOND.search(text)``, tried only where its tail occurs: a match's word or digit ends where the space
    run before "second" begins, so it starts 1 (a digit, "a"), 3, 4 or 5 characters before it (``match`` at a
    position sees the text before it, for ``\\b``). The search tries its six openings at every character of a whole
    completion (~75 µs); this ~20."""
    for tail in _SPACED_SECOND.finditer(text):
        start = tail.start()
        for at in (start - 1, start - 3, start - 4, start - 5):
            if at >= 0 and _TIME_SECOND.match(text, at):
                return True
    return False


def unit_constants(text: str, words: frozenset[str] | None = None) -> frozenset[Fraction]:
    """The conversion factors whose unit words occur in ``text`` (see :data:`_UNIT_TABLE`); ``words``: its unit
    words when the caller has them (:func:`unit_words`)."""
    found: set[Fraction] = set()
    for word in unit_words(text) if words is None else words:
        if word != "second" or _time_second(text):
            found |= _UNIT_VALUES[word]
    return frozenset(found)


def unit_words(text: str) -> frozenset[str]:
    """The words of ``text`` (lower-cased) that name a unit of :data:`_UNIT_TABLE`."""
    return _UNIT_WORDS.intersection(_WORD.findall(text.lower()))


problem_unit_words = lru_cache(maxsize=4096)(unit_words)
""":func:`unit_words` of a problem, cached: the completions of a group share it."""
STATED_LOG = re.compile(r"\\log_\s*(?:\{\s*(\d{1,4})\s*\}|(\d))\s*\{?\s*(\d{1,9})")
"""``\\log_264`` (``\\log_2 64``: a bare subscript is one digit), ``\\log_{10} 1000``: the logarithms a problem asks."""
