r"""Known constants of the objects a problem names, and the step of a progression it lists.

A solution about a standard deck uses 13 ranks and 52 cards, one about two dice 36 outcomes, one about a clock 12
hours and 360 degrees, one about two-digit numbers 10 and 99 — constants no step derives and no problem states,
which the reader took for numbers from nowhere. Each is a fact of the object (:data:`DOMAIN_FACTS`), licensed only
where the *problem's own words* name that object: a completion that mentions dice in a problem about something else
grounds no 36. And a problem that lists a progression (``-36, -29, -22, \ldots, 41, 48``) states its common
difference (7) in another notation (:func:`progression_steps`).

Nothing here refutes, and these numbers are reached, not problem quantities: they count for no coverage.

>>> sorted(int(v) for v in domain_constants("Two cards are drawn from a standard 52-card deck."))
[4, 12, 13, 26, 52]
>>> sorted(int(v) for v in domain_constants("How many numbers are in the list $ -36, -29, -22, \\ldots, 41, 48?$"))
[7]
>>> domain_constants("Tom has 5 apples and buys 3 more.")
frozenset()
"""

from __future__ import annotations

import re
from fractions import Fraction


_PLACES = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_N_DIGIT = re.compile(r"\b(one|two|three|four|five|six|[1-6])[- ]digits?\b", re.I)


def digit_constants(problem: str) -> set[Fraction]:
    """The place values and the largest numbers of as many digits as the problem names (``five-digit``: 10 to
    10^4 and 9 to 99,999; ``digit`` alone: 10 and 9).

    >>> sorted(int(v) for v in digit_constants("the smallest two-digit multiple of 13"))
    [9, 10, 99, 100]
    """
    places = max([int(_PLACES.get(m.lower(), m)) for m in _N_DIGIT.findall(problem)] or [1])
    return {Fraction(10 ** k) for k in range(1, places + 1)} | {Fraction(10 ** k - 1) for k in range(1, places + 1)}


DOMAIN_FACTS: tuple[tuple[re.Pattern, tuple[int, ...]], ...] = (
    (re.compile(r"\bdeck\b|\bface cards?\b|\bplaying cards?\b|\b(?:hearts|spades|clubs|diamonds)\b", re.I),
     (52, 13, 4, 12, 26)),
    (re.compile(r"\bdice\b|\bdie\b", re.I), (6, 36, 216)),
    (re.compile(r"\bclock\b|\b(?:hour|minute) hand\b", re.I), (12, 60, 360, 30, 6)),
    (re.compile(r"\bcircles?\b|\bcircular\b|\bcircumference\b", re.I), (360,)),
    (re.compile(r"\brectangles?\b|\bright (?:angle|triangle)s?\b|\bperpendicular\b|"
                r"\bsquares?\b(?=[^.?]{0,120}\b(?:vert(?:ex|ices)|sides?|corners?|area|perimeter|diagonals?)\b)",
                re.I), (90,)),
    (re.compile(r"\balphabet\b", re.I), (26,)),
)
"""``(the problem's words, the object's constants)``: a standard deck (52 cards, 13 ranks, 4 suits, 12 face cards,
26 of a colour), dice (6 faces; 36 and 216 outcomes of two and three), a clock (12 hours, 60 minutes, 360 degrees,
30 degrees an hour, 6 a minute), a circle (360 degrees), a right angle (90 degrees: a rectangle, a square with
sides or vertices), the alphabet (26 letters); and for the decimal digits, :func:`digit_constants`."""

_DIGIT_WORD = re.compile(r"\bdigits?\b", re.I)
_LISTED = re.compile(r"(-?\d+(?:\.\d+)?)\s*,\s*\$?\s*(-?\d+(?:\.\d+)?)\s*,\s*\$?\s*(-?\d+(?:\.\d+)?)\s*,\s*\$?\s*"
                     r"(?:\\[lc]?dots|\.\.\.|…)")
"""Three listed terms then an ellipsis: ``-36, -29, -22, \ldots`` (``$`` between terms allowed)."""


def progression_steps(problem: str) -> set[Fraction]:
    """The common difference (absolute value) of each arithmetic progression the problem lists, and the ratio of
    each geometric one (and its reciprocal), read from its first three terms."""
    out: set[Fraction] = set()
    for match in _LISTED.finditer(problem):
        a, b, c = (Fraction(g) for g in match.groups())
        if b - a == c - b and b != a:
            out.add(abs(b - a))
        elif a and b and b / a == c / b and b != a:
            out.update({abs(b / a), abs(a / b)})
    return out


def domain_constants(problem: str) -> frozenset[Fraction]:
    """The constants of every object the problem's words name (:data:`DOMAIN_FACTS`) and the steps of the
    progressions it lists (:func:`progression_steps`)."""
    if not problem:
        return frozenset()
    out = progression_steps(problem) if "," in problem else set()
    for words, values in DOMAIN_FACTS:
        if words.search(problem):
            out.update(Fraction(v) for v in values)
    if _DIGIT_WORD.search(problem):
        out |= digit_constants(problem)
    return frozenset(out)

