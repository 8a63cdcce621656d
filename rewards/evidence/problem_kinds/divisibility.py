"""Problems about divisibility: a step's divisor fact licenses a number (:func:`divisor_facts`).
"""

from __future__ import annotations

import re
from fractions import Fraction

from rewards.checks.arithmetic import contains_any
from rewards.evidence.problem_kinds.base import ProblemKindRule
from rewards.evidence.quantities import read_numbers


_DIVISOR_WORDS = ("factor", "divisor", "divides", "divisible", "multiple")
_DIVISIBILITY_PROBLEM_WORDS = (*_DIVISOR_WORDS, "prime", "gcd", "lcm", "greatest common", "least common", "integer",
                               "whole number", "perfect square", "perfect cube", "digit")
_EVERY_NTH = re.compile(r"\bevery\s+(?:other|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|"
                        r"\d{1,4}(?:st|nd|rd|th)\b|\$?\d)", re.I)
"""``every seventh page``, ``every $9$ days``: a period, so the items counted are multiples (GSM8K train 985:
"divisible by both 3 and 7: there are two, 21 and 42"; an lcm of periods)."""
_CONGRUENCE_PROBLEM = re.compile(r"\\pmod|\\bmod|\bmodulo\b|congruen|remainder when|units digit", re.I)
"""Remainders and congruences (not :func:`modular_problem`, whose bare "remainder" is GSM8K's leftover eggs)."""
MAX_DIVISOR_FACT = 10 ** 12
"""The largest whole number whose divisors a step may name as a verified fact (:func:`divisor_facts`)."""


def divisibility_problem(problem: str) -> bool:
    """Whether ``problem`` is about divisibility — factors, divisors, multiples, primes, gcd/lcm, integers, digits,
    perfect squares, periods ("every 9 days", "every seventh page") — or remainders and congruences: only there does
    a step's divisor fact (:func:`divisor_facts`) license a number. Elsewhere it licensed any divisor of any reached
    product: "16 * 3 * 4 * 2 * 3 = 1152. The factors of 1152 include 64. So 1152 / 64 = 18." minted the answer of 855
    of 1,319 GSM8K test problems (full faithful accuracy on every one) from the problem's numbers alone.

    >>> divisibility_problem("What is the least common multiple of $14$, $20$, and $35$?")
    True
    >>> divisibility_problem("A printer crumples every seventh page. If he prints 42 pages, how many are crumpled?")
    True
    >>> divisibility_problem("Janet's ducks lay 16 eggs per day. How much does she make every day?")
    False
    """
    low = problem.lower()
    return (contains_any(low, _DIVISIBILITY_PROBLEM_WORDS) or _CONGRUENCE_PROBLEM.search(problem) is not None
            or ("every" in low and _EVERY_NTH.search(problem) is not None))


def divisor_facts(text: str, is_reached) -> set[int]:
    """Numbers a step names as divisors of a reached whole number it also names — "the prime factorization of 15 is
    3 x 5", "the factor pairs of 35 are (1, 35), (5, 7)" — licensed as facts the checker verifies exactly (``r % d
    == 0``): a divisor of a reached quantity is no number from nowhere. Only in a step that speaks of factors,
    divisors or multiples; whole numbers ``1 < d < r <= MAX_DIVISOR_FACT``. The dataflow reads them only in a problem
    about divisibility (:func:`divisibility_problem`).

    >>> sorted(divisor_facts("The prime factorization of 15 is 3 x 5.", lambda v: v in (15, 3)))
    [5]
    >>> divisor_facts("Joe got 5 slices of 15.", lambda v: v == 15)
    set()
    """
    if not contains_any(text.lower(), _DIVISOR_WORDS):
        return set()
    whole = [int(v) for v, _ in read_numbers(text)[:64] if v.denominator == 1 and 1 < v <= MAX_DIVISOR_FACT]
    reached = [r for r in dict.fromkeys(whole) if is_reached(Fraction(r))]
    return {d for d in whole if not is_reached(Fraction(d)) and any(d < r and r % d == 0 for r in reached)}


class DivisibilityRule(ProblemKindRule):
    """A problem about divisibility (:func:`divisibility_problem`): a step's divisor facts license numbers
    (:func:`divisor_facts`: "the prime factorization of 15 is 3 x 5")."""

    name = "divisibility"

    def applies(self, problem: str) -> bool:
        return divisibility_problem(problem)

    def before_step(self, builder, flow, text: str) -> None:
        licensed = divisor_facts(text, builder.is_reached)
        if licensed:
            builder.strict.update(licensed)
            builder.known.update(licensed)
