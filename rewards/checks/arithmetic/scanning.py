r"""Number scanning: every numeric literal and number word in a text, with its character span.

>>> numbers_in("He buys 1,200 eggs for $3.50, twice.")
[(Fraction(1200, 1), (8, 13)), (Fraction(7, 2), (24, 28)), (Fraction(2, 1), (30, 35))]
"""

from __future__ import annotations

import re
from fractions import Fraction

from .budget import MAX_NUMBERS, MAX_TEXT_CHARS
from .errors import internal_error
from .literals import num_value

__all__ = ["contains_any", "numbers_in"]

# a digit run after a letter is part of an identifier (x2, H2O), but not after an operator command: "10\cdot9" holds 9
_NUM_SCAN = re.compile(r"(?:(?<![\w.])|(?<=\\cdot)|(?<=\\times)|(?<=\\div)|(?<=\\pi))"
                       r"(\d{1,3}(?:(?:,|,\\!|\{,\})\d{3})+(?!\d)(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)")
_NUM_FIRST = re.compile(
    r"[\d.](?:(?<![\w.][\d.])|(?<=\\cdot.)|(?<=\\times.)|(?<=\\div.)|(?<=\\pi.))"
    r"(?:(?<=\d)(?:\d{0,2}(?:(?:,|,\\!|\{,\})\d{3})+(?!\d)(?:\.\d+)?|\d*(?:\.\d+)?)|(?<=\.)\d+)")
r"""``_NUM_SCAN``'s matches (its group 1 as the whole match), from a pattern that starts with the character class
``[\d.]``, so that the regex engine skips in C to each digit or "." (``_NUM_SCAN`` tries its five lookbehinds at
every character: no character-set skip is possible for a pattern that starts with lookbehinds). The first character
is read first, and then each lookbehind is one character longer ("the character before the first is not a word
character or '.'": ``(?<![\w.][\d.])``, which also holds at the start of the text); the literal's three forms
follow, each without its first character (``\d{1,3}`` is ``\d`` then ``\d{0,2}``, ``\d+`` is ``\d`` then ``\d*``,
``\.\d+`` is "." then ``\d+``), in the same order, so each match is the one ``_NUM_SCAN`` makes there
(tests/rewards/test_fast_paths.py and checks/test_extraction_fast_paths.py compare both on real and fuzzed text). It replaces a
search for ``[\d.]`` and a ``_NUM_SCAN.match`` there: one regex call per number instead of two."""
_WORD_SCAN_SRC = (
    r"\b(zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen"
    r"|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety"
    r"|hundred|thousand|million|billion|twice|thrice|double|triple|quadruple|half|halves|quarter"
    r"|quarters|dozen|dozens|score|pair)(?:[- ](one|two|three|four|five|six|seven|eight|nine)\b)?\b"
)
_WORD_SCAN = re.compile(_WORD_SCAN_SRC)  # on lower-cased text: much faster than re.I
_WORD_SCAN_I = re.compile(_WORD_SCAN_SRC, re.I)
_WORD_NUM = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20,
    "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
    "hundred": 100, "thousand": 1000, "million": 10**6, "billion": 10**9, "twice": 2, "thrice": 3,
    "double": 2, "triple": 3, "quadruple": 4, "half": Fraction(1, 2), "halves": Fraction(1, 2),
    "quarter": Fraction(1, 4), "quarters": Fraction(1, 4), "dozen": 12, "dozens": 12, "score": 20,
    "pair": 2,
}
_WORD_NUM_F = {k: Fraction(v) for k, v in _WORD_NUM.items()}
_NUMBER_WORDS = frozenset(_WORD_NUM)
_LETTERS = re.compile(r"[a-z]+")


def numbers_in(text: str) -> list[tuple[Fraction, tuple[int, int]]]:
    """Every numeric literal in ``text`` with its span, in order.

    Numbers are reported as written: commas removed, no sign (a hyphen is as often a dash or a
    range as a minus), ``50%`` gives 50 (the span covers ``50``; callers that ground percentages
    may also try 1/2), LaTeX ``\\frac{1}{3}`` gives 1 and 3.  Number words give their value:
    "three" 3, "twenty-five" 25, "twice"/"double" 2, "half" 1/2, "quarter" 1/4, "dozen" 12,
    "pair" 2, "score" 20, "hundred" 100 (compounds such as "two hundred" give 2 and 100).
    Digit runs inside identifiers (``x2``, ``H2O``) are skipped; literals longer than 30 digits
    are skipped.

    >>> [q for q, _ in numbers_in("Twenty-five kids, 3.5 kg, 1,000 and a dozen")]
    [Fraction(25, 1), Fraction(7, 2), Fraction(1000, 1), Fraction(12, 1)]
    """
    out = []
    try:
        if not isinstance(text, str):
            return out
        n = min(len(text), MAX_TEXT_CHARS)
        for m in _NUM_FIRST.finditer(text, 0, n):  # _NUM_SCAN.finditer(text, 0, n), group 1: the same matches
            if len(out) >= MAX_NUMBERS:
                break
            g = m.group()
            q = num_value(g.replace(",", "").replace("\\!", "").replace("{}", "") if "," in g else g)
            if q is not None:
                out.append((q, m.span()))
        low = text[:n].lower()
        words = []
        if len(low) != n:
            scan = _WORD_SCAN_I.finditer(text, 0, n)
        elif _NUMBER_WORDS.isdisjoint(_LETTERS.findall(low)):
            scan = ()  # a number word is a whole run of letters: none of the runs is one (most steps)
        else:
            scan = _WORD_SCAN.finditer(low)
        for m in scan:
            q = _WORD_NUM_F[m.group(1).lower()]
            u = m.group(2)
            if u is not None and 20 <= q <= 90:
                words.append((q + _WORD_NUM_F[u.lower()], m.span()))
            else:
                words.append((q, m.span(1)))
            if len(words) >= MAX_NUMBERS:
                break
        if words:
            out.extend(words)
            del out[MAX_NUMBERS:]
            out.sort(key=lambda t: t[1][0])
    except Exception as exc:  # noqa: BLE001 - never raise on model output (unless RAFS_STRICT); partial result
        internal_error("numbers_in", text, exc)
    return out


def contains_any(text: str, words) -> bool:
    """Whether any of ``words`` occurs in ``text`` (substring tests, first hit wins): the keyword gates that let a
    checker skip a step. A plain loop: about as fast as the tests written out as an ``or`` chain, and twice as fast
    as ``any()`` over a generator or one regex alternation.

    >>> contains_any("the units digit of 7^4", ("digit", "prime")), contains_any("2 + 2 = 4", ("digit", "prime"))
    (True, False)
    """
    for word in words:
        if word in text:
            return True
    return False
