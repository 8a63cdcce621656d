"""Computations written with unit words (``5 sites x 7 birds/site = 35 birds``): :func:`wordy_derivations` and the
unit-free reading of an equation the checker declined (:func:`unit_free_derivation`).
"""

from __future__ import annotations

import re
from fractions import Fraction

from rewards.evidence.model import Derivation
from rewards.checks.arithmetic import evaluate
from rewards.checks.arithmetic.literals import num_value


_TIMES_WORD = re.compile(r"(?:(?<=\d)\s*(?:[xX×]|times)|\s(?:[xX×]|times))\s*(?=\$?\s*\d)")
_PER_UNIT = re.compile(r"\s*(?:/|\bper\b)\s*[A-Za-z][A-Za-z-]*")
_WORDS = re.compile(r"[A-Za-z][A-Za-z'’-]*")


_LATEX_UNIT = re.compile(r"\\(?:mbox|text|mathrm)\s*\{\s*[A-Za-z]+(?:\s+[A-Za-z]+)?\s*\}"
                         r"(?:\s*\^\s*(?:\{\s*[23]\s*\}|[23]))?")
"""A unit in LaTeX, squared or cubed (``\\mbox{ cm}^2``): dropped whole, or its power would stay behind."""


def unit_free(side: str) -> str:
    """``8 mice * 6 pups/mouse`` -> ``8 * 6``: unit words and per-unit suffixes dropped, "x"/"times" as a product."""
    side = _TIMES_WORD.sub(" * ", side)
    return _WORDS.sub(" ", _PER_UNIT.sub(" ", side))


_WORDY_TOKEN = re.compile(r"\$?(?:\d[\d,]*(?:\.\d+)?|\.\d+)%?|[-–−+*/×÷=]|[A-Za-z][A-Za-z'’-]*|[^\sA-Za-z\d]")
_NUMBER_TOKEN = re.compile(r"\$?\.?\d")
_PAREN_WORDS = re.compile(r"\(\s*[A-Za-z][A-Za-z\s'’-]*\)")
MAX_WORDY_CHARS = 2000
"""Only the first this many characters of a step are read for equations with unit words (bounded work)."""
MAX_UNIT_WORDS = 12
"""At most this many words may follow a number inside one operand (``12 bags of hammers``, ``52 cards in a full
deck of cards``)."""
_OPERATOR = frozenset("+-–−*/×÷") | {"x", "X", "times"}
_TIMES = ("x", "X", "times")
_STATED_RESULT = re.compile(r"=\s*\$?(\d[\d,]*(?:\.\d+)?|\.\d+)")


def results_unexplained(text: str, produced: list[Fraction]) -> bool:
    """Whether some ``= number`` in ``text`` states a value the step's equations did not derive: only then can
    :func:`wordy_derivations` add anything (a cheap test that spares its token scan on most steps)."""
    for match in _STATED_RESULT.finditer(text, 0, MAX_WORDY_CHARS):
        digits = match.group(1).replace(",", "")
        try:  # num_value (cached): Fraction(digits)'s value without parsing the string again; None past 30 digits
            value = num_value(digits)
            if value is None:
                value = Fraction(digits)
        except (ValueError, ZeroDivisionError):
            return True
        if value not in produced:
            return True
    return False


def wordy_derivations(step: str) -> list[tuple[tuple[str, ...], Fraction]]:
    """Computations written with unit words that the equation extractor does not read as one equation
    (``5 sites x 7 birds/site = 35 different birds``, ``12 bags * 5kg per bag = 60kg``): ``(operand sides,
    result)`` for each whose unit-free left side evaluates exactly to the stated number. Derivation only: a
    mismatch is not a refutation (the checker, which reads the step, decides that). One linear scan over tokens.

    >>> wordy_derivations("On Monday Kendra saw 5 sites x 7 birds/site = 35 different birds")
    [(('5 sites x 7 birds/site',), Fraction(35, 1))]
    """
    text = step[:MAX_WORDY_CHARS]
    if "(" in text:  # "1 (Jose) + 4 siblings = 5", "$240 (house and food) + $9 (phone) = $249": words in brackets
        text = _PAREN_WORDS.sub(lambda m: " " * len(m.group()), text)
    tokens = [(m.group(), m.start(), m.end()) for m in _WORDY_TOKEN.finditer(text)]
    out = []
    for i, (tok, _start, _end) in enumerate(tokens):
        if tok != "=" or i + 1 >= len(tokens) or not tokens[i + 1][0][-1:].isdigit() and "%" not in tokens[i + 1][0]:
            continue
        # walk back: operand (number, up to MAX_UNIT_WORDS words or "/ word"), then operator, then operand ...
        j, begins = i - 1, []
        while j >= 0:
            words = 0
            while j >= 0 and (tokens[j][0][0].isalpha() and (tokens[j][0] not in _TIMES or j + 1 < len(tokens)
                                                              and tokens[j + 1][0] in (*_OPERATOR, "="))
                              or tokens[j][0] == "/" and j > 0 and tokens[j - 1][0][0].isdigit() is False):
                words += tokens[j][0][0].isalpha()  # "3 times * 350": "times" before an operator is a unit word
                j -= 1
                if words > MAX_UNIT_WORDS:
                    break
            if words > MAX_UNIT_WORDS or j < 0 or not _NUMBER_TOKEN.match(tokens[j][0]):
                break
            begins.append(tokens[j][1])
            j -= 1
            k = j
            while k >= 0 and tokens[k][0][0].isalpha() and tokens[k][0] not in _TIMES and j - k < MAX_UNIT_WORDS:
                k -= 1  # words before an operand's number: "Caleb's 7 gallons + Cynthia's 8 gallons = 15 gallons"
            if k >= 0 and tokens[k][0] in _OPERATOR:
                j = k - 1
                continue
            break
        if len(begins) < 2:
            continue
        stated = evaluate(tokens[i + 1][0].replace(",", "").lstrip("$"))
        if stated is None or not stated.is_exact:
            continue
        for begin in begins[:0:-1]:  # the longest reading first, then shorter ones ("250-page book in 250/10 = 25")
            left = text[begin:tokens[i][1]].strip()
            value = evaluate(unit_free(left))
            if value is not None and value.is_exact and value.exact == stated.exact:
                out.append(((left,), stated.exact))
                break
    return out


def unit_free_derivation(sides: tuple) -> tuple[tuple[str, ...], Fraction, str] | None:
    """An equation the checker declined because of unit words, whose sides agree exactly once the words are dropped
    (``8 mice * 6 pups/mouse = 48 pups``), or because the extractor left its last side unread (``40*.8=32 are 5
    dollar winners``, ``500*$.25=$125 on the half-priced bricks``, ``6(2)=12$``): a verified computation for the
    dataflow. It only ever *derives*; the checker, which declined to judge it, never refutes on this reading."""
    if len(sides) < 2:
        return None
    values = _exact_values(sides, unit_free)
    if values is None:
        if not any("\\mbox" in side or "\\text" in side for side in sides):
            return None
        # LaTeX units: "\\frac{1}{2}\\times 3 \\times 10 = 15\\mbox{ cm}^2" (the word filter would eat \\frac)
        values = _exact_values(sides, _without_latex_units)
    if not values or any(v != values[-1] for v in values):
        return None
    return Derivation(tuple(sides[:-1]), values[-1], "computed")


def _without_latex_units(side: str) -> str:
    return _LATEX_UNIT.sub(" ", side)


def _exact_values(sides: tuple, reading) -> list[Fraction] | None:
    """The exact value of each side as ``reading`` rewrites it; ``None`` as soon as a side has no value (the sides
    after it are not evaluated: an equation with unknowns stops at its first side), ``[]`` when every side has one
    but one is not exact. Either way :func:`unit_free_derivation` derives nothing from this reading."""
    values = []
    exact = True
    for side in sides:
        value = evaluate(reading(side))
        if value is None:
            return None
        if value.is_exact and value.exact is not None:
            values.append(value.exact)
        else:
            exact = False
    return values if exact else []
