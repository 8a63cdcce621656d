"""Counting problems (choices without repetition): a falling product counts the choices left after each pick.
"""

from __future__ import annotations

import re
from fractions import Fraction

from rewards.checks.arithmetic import contains_any
from rewards.evidence.problem_kinds.base import ProblemKindRule


_COUNTING_PROBLEM = re.compile(r"\b(?:distinct|ways?|arrange(?:d|ments?)?|choices|choose|chosen|"
                               r"select(?:ed|s)?|combinations?|permutations?|committees?|licen[cs]e plates?|"
                               r"passwords?)\b", re.I)
"""A counting problem (choices without repetition): only there does a falling product ``10 \\cdot 9`` count the
choices left after each pick (:func:`falling_factors`). Not "different": "a different route home" made 139 of 238
GSM8K train problems counting ones, where any reached n reached n - 1 (red team, session 8)."""


_COUNTING_WORDS = ("distinct", "way", "arrange", "choices", "choose", "chosen", "select", "combination",
                   "permutation", "committee", "licen", "password")
"""A word every match of :data:`_COUNTING_PROBLEM` holds (lower-cased)."""


def counting_problem(problem: str) -> bool:
    """``_COUNTING_PROBLEM.search(problem) is not None``, the pattern run only where a word it needs occurs: in ASCII
    text re.I folds nothing else, so substring tests on the lower-cased problem are exact (the tests check it)."""
    if problem.isascii() and not contains_any(problem.lower(), _COUNTING_WORDS):
        return False
    return _COUNTING_PROBLEM.search(problem) is not None


_FALLING_JOIN = re.compile(r"\s*(?:\\cdot|\\times|\*|×|·)\s*")


def falling_factors(side: str, numbers, is_reached) -> set[tuple[int, int]]:
    r"""Spans of the factors of a falling product ``n \cdot (n-1) \cdot ...`` in ``side`` (integers joined by a
    multiplication sign, each one less than the one before) whose head ``n`` is reached: in a counting problem the
    choices left after each pick ("Yann can order 10 dishes, Camille 9 left": ``10 \cdot 9``), reached from ``n``.
    A factor that is one less than nothing reached, or an exponent, is none.

    >>> from rewards.evidence.quantities import read_numbers
    >>> sorted(falling_factors("26\\times 25\\times 10\\times 9", read_numbers("26\\times 25\\times 10\\times 9"),
    ...                          lambda v: v in (26, 10)))
    [(9, 11), (27, 28)]
    """
    out: set[tuple[int, int]] = set()
    for (head, (a, b)), (value, (c, d)) in zip(numbers, numbers[1:]):
        if head.denominator != 1 or value != head - 1 or value < 2 or not _FALLING_JOIN.fullmatch(side[b:c]):
            continue
        if side[:a].rstrip().endswith(("^", "^{")) or side[d:].lstrip().startswith("^"):
            continue  # an exponent or a power is no count of choices
        if (a, b) in out or is_reached(head):
            out.add((c, d))
    return out


ALPHABET = re.compile(r"alphabet|\bA\s*(?:through|to|-|--|\\text\{-\})\s*Z\b")
"""A problem that names the 26 letters of the alphabet (``2 different letters (A through Z)``)."""


class CountingRule(ProblemKindRule):
    """A counting problem (:func:`counting_problem`): the 26 letters of a named alphabet are reached, and a falling
    product's later factors (``10 \\cdot 9``) are the choices left, not operands (:func:`falling_factors`)."""

    name = "counting"

    def applies(self, problem: str) -> bool:
        return counting_problem(problem)

    def start(self, builder) -> None:
        if ALPHABET.search(builder.problem):  # "2 different letters (A through Z)": 26 of them
            builder.strict.add(Fraction(26))
            builder.known.add(Fraction(26))

    def operand_spans(self, builder, side: str, numbers, kind, value):
        return (falling_factors(side, numbers, builder.is_reached) if len(numbers) > 1 else ()), None
