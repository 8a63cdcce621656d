r"""Number facts a solution states in prose, checked exactly: ``The GCD of 3744 and 22100 is 52``, ``the least
common multiple of 11 and 2 is 22``, ``the units digit of 16 is 6``, ``\gcd(12, 18) = 6``, ``4225 = 65^2``.

Competition solutions state such facts from memory instead of computing them in writing; each is an operation on
numbers (a gcd, an lcm, a last digit, a square or cube root), so a checker can verify it with integer arithmetic
and nothing else. :func:`number_facts` finds them and keeps only the true ones; a false one is left out (it is no
support — and this module never refutes: a misread sentence must not make a step wrong).

:func:`number_facts` ``(text) -> list[NumberFact]``
    every fact ``text`` states that holds: its operation, its arguments, its result and the span of the result.

Bounds (model output is untrusted): integers of at most :data:`MAX_DIGITS` digits, roots of degree 2 or 3 only,
at most :data:`MAX_FACTS` facts a text; regexes are linear (bounded gaps, no nested quantifiers).

>>> [(f.kind, f.arguments, f.result) for f in number_facts("The GCD of 3744 and 22100 is 52.")]
[('gcd', (3744, 22100), 52)]
>>> number_facts("The GCD of 3744 and 22100 is 53.")
[]
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from rewards.checks.arithmetic import contains_any

MAX_DIGITS = 15
"""The longest integer a fact may name (a gcd of two 15-digit numbers is instant)."""

MAX_FACTS = 32
"""At most this many facts are read from one text."""

_INT = r"(\d{1,15}(?:,\d{3})*)"
_GAP = r"[\s$\\(){}]{0,6}"
_IS = r"[\s$\\(){}]{0,6}(?:is|=|equals|would be|will be|must be)[\s$\\(){}]{0,6}"

_PAIR_FACT = re.compile(
    r"\b(?P<kind>gcd|GCD|greatest common (?:divisor|factor)|highest common factor|HCF|lcm|LCM|least common multiple)"
    r"[\s{}]{0,3}(?:\((?:\w{1,3}\))?)?[\s{}]{0,2}(?:of[\s$\\(]{1,6})?" + _INT + r"[\s$\\)]{0,6}(?:,|and)" + _GAP + _INT
    + r"[\s$\\)]{0,4}(?:\)[\s$\\]{0,4})?(?:[\s$\\(){},]{0,6}(?:which is|is|=|equals)[\s$\\(){}]{0,6}|\s*=\s*)" + _INT
    + r"(?![\d.]\d)")
r"""``The GCD of a and b is c``, ``\gcd(a, b) = c``, ``\text{lcm}(a, b) = c``, ``the least common multiple of a and
b is c``."""

_UNITS_DIGIT = re.compile(r"\b(?:units|ones|last) digit of" + _GAP + _INT + r"(?:\^\{?(\d{1,3})\}?)?" + _IS + _INT
                          + r"(?![\d.]\d)")
"""``The units digit of 16 is 6``, ``the last digit of 7^4 is 1``."""

_POWER = re.compile(r"(?<![\d.^_{])" + _INT + r"[\s$\\)]{0,3}=" + _GAP + r"(\d{1,15})\s*\^\s*\{?\s*([23])\s*\}?"
                    r"(?![\d.]|\s*(?:\\cdot|\\times|[(*×+\-/^]))|(?<![\d.^_{])(\d{1,15})\s*\^\s*\{?\s*([23])\s*\}?" + _GAP + r"=" + _GAP
                    + _INT + r"(?![\d.]\d|\s*(?:\\cdot|\\times|[*×+\-/^]))")
"""``4225 = 65^2`` or ``65^2 = 4225``: a square or a cube written as a fact. The root is the result when the power
is the known number (``4225 = 65^2``); the power, when the root is (``65^2 = 4225``)."""


@dataclass(frozen=True, slots=True)
class NumberFact:
    """One true fact: ``kind`` (``gcd``, ``lcm``, ``units_digit``, ``root``, ``power``), the numbers it is about
    (``arguments``), the number it states (``result``) and the span of the result in the text."""

    kind: str
    arguments: tuple[int, ...]
    result: int
    span: tuple[int, int]


def _int(text: str) -> int | None:
    digits = text.replace(",", "")
    return int(digits) if 0 < len(digits) <= MAX_DIGITS else None


def _pair(match: re.Match) -> NumberFact | None:
    kind = "lcm" if match["kind"].lower() in ("lcm", "least common multiple") else "gcd"
    a, b, c = (_int(match[k]) for k in (2, 3, 4))
    if a is None or b is None or c is None or not a or not b:
        return None
    truth = math.gcd(a, b) if kind == "gcd" else math.lcm(a, b)
    return NumberFact(kind, (a, b), c, match.span(4)) if truth == c else None


def _units(match: re.Match) -> NumberFact | None:
    base, digit = _int(match[1]), _int(match[3])
    exponent = int(match[2]) if match[2] else 1
    if base is None or digit is None or digit > 9:
        return None
    truth = pow(base, exponent, 10)
    return NumberFact("units_digit", (base, exponent) if match[2] else (base,), digit, match.span(3)) \
        if truth == digit else None


def _power(match: re.Match) -> NumberFact | None:
    if match[1] is not None:  # "4225 = 65^2": the root is what the fact states about 4225
        power, root, degree = _int(match[1]), _int(match[2]), int(match[3])
        if power is None or root is None or root ** degree != power:
            return None
        return NumberFact("root", (power, degree), root, match.span(2))
    root, degree, power = _int(match[4]), int(match[5]), _int(match[6])
    if power is None or root is None or root ** degree != power:
        return None
    return NumberFact("power", (root, degree), power, match.span(6))


MAX_INDEX = 1000
"""The longest prefix of a sequence (the 1000th prime is 7919) a fact may name."""

_ORDINALS = {w: k for k, w in enumerate(
    "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth fourteenth "
    "fifteenth sixteenth seventeenth eighteenth nineteenth twentieth".split(), start=1)}
_COUNTS = {w: k for k, w in enumerate("one two three four five six seven eight nine ten eleven twelve".split(),
                                      start=1)}
_KIND = (r"(?P<kind>prime numbers?|primes?|(?:positive )?even (?:positive )?(?:integers?|numbers?)|"
         r"(?:positive )?odd (?:positive )?(?:integers?|numbers?)|(?:positive )?perfect squares?|"
         r"(?:positive )?perfect cubes?)")
_LIST = r"(?P<list>\d{1,6}(?:[\s$\\(),]{1,8}(?:and[\s$\\(]{1,6})?\d{1,6}){0,40})"
_FIRST = re.compile(r"\b(?:the )?first (?P<count>\d{1,4}|" + "|".join(_COUNTS) + r") " + _KIND
                    + r"[\s:]{0,3}(?:are|is|=)?[\s:$\\(]{0,6}" + _LIST, re.I)
"""``the first four prime numbers: 2, 3, 5, and 7``, ``The first 4 positive even integers are 2, 4, 6, 8``."""
_NTH = re.compile(r"\bthe (?:(?P<word>" + "|".join(_ORDINALS) + r")|(?P<index>\d{1,4})(?:st|nd|rd|th)) " + _KIND
                  + r"[\s$\\(]{0,6}(?:is|=)[\s$\\(]{0,6}(?P<value>\d{1,6})(?![\d.]\d)", re.I)
"""``the ninth prime number is \\(23\\)``, ``the 17th odd positive integer is 33``."""


def _term(kind: str, k: int) -> int:
    """The ``k``-th term (from 1) of the sequence ``kind`` names."""
    kind = kind.lower()
    if kind.startswith("prime"):
        from sympy import prime  # local: sympy loads only where a solution names a prime
        return int(prime(k))
    if "even" in kind:
        return 2 * k
    if "odd" in kind:
        return 2 * k - 1
    return k ** 2 if "square" in kind else k ** 3


_FACT_WORDS = ("common", "cd", "CD", "cm", "CM", "HCF", "digit", "^")
"""A step that states a number fact holds one of these (:func:`number_facts` reads no other step)."""
_SEQUENCE_WORDS = ("prime", "even", "odd", "square", "cube")
"""A step that lists the first members of a sequence names one of these (:func:`sequence_facts`)."""


def sequence_facts(text: str) -> list[tuple[str, tuple[int, ...]]]:
    r"""The terms of a named sequence ``text`` states correctly — the first k primes, positive even or odd integers,
    perfect squares or cubes, or the k-th of them: ``(kind, terms)`` for each true statement (a wrong list, or one
    cut short, is left out). The sequence's index is at most :data:`MAX_INDEX`.

    >>> sequence_facts("The first four prime numbers: 2, 3, 5, and 7.")
    [('prime numbers', (2, 3, 5, 7))]
    >>> sequence_facts(r"the ninth prime number is \(23\); the first 3 positive even integers are 2, 4, 8")
    [('prime number', (23,))]
    """
    if not contains_any(text, _SEQUENCE_WORDS):
        return []
    out: list[tuple[str, tuple[int, ...]]] = []
    for match in _FIRST.finditer(text):
        count = match["count"].lower()
        k = _COUNTS[count] if count in _COUNTS else int(count)
        listed = tuple(int(v) for v in re.findall(r"\d+", match["list"]))
        if 0 < k <= MAX_INDEX and len(listed) >= k and listed[:k] == tuple(_term(match["kind"], j)
                                                                           for j in range(1, k + 1)):
            out.append((match["kind"], listed[:k]))
    for match in _NTH.finditer(text):
        k = _ORDINALS[match["word"].lower()] if match["word"] else int(match["index"])
        if 0 < k <= MAX_INDEX and _term(match["kind"], k) == int(match["value"]):
            out.append((match["kind"], (int(match["value"]),)))
        if len(out) >= MAX_FACTS:
            break
    return out


def number_facts(text: str) -> list[NumberFact]:
    """Every true number fact ``text`` states (module docstring): the false and the unreadable are left out.

    >>> [(f.kind, f.result) for f in number_facts(r"Since \\( 4225 = 65^2 \\), and the units digit of 16 is 6")]
    [('units_digit', 6), ('root', 65)]
    """
    if not contains_any(text, _FACT_WORDS):
        return []
    out: list[NumberFact] = []
    for pattern, read in ((_PAIR_FACT, _pair), (_UNITS_DIGIT, _units), (_POWER, _power)):
        for match in pattern.finditer(text):
            fact = read(match)
            if fact is not None:
                out.append(fact)
            if len(out) >= MAX_FACTS:
                return out
    return out
