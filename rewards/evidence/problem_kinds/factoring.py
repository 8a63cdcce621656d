"""Problems about factors and primes: a verified prime factorisation reaches its primes and exponents.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from functools import lru_cache

from rewards.checks.arithmetic import contains_any
from rewards.evidence.equation_derivations import is_given
from rewards.evidence.problem_kinds.base import ProblemKindRule
from rewards.evidence.quantities import read_numbers


_FACTORING_PROBLEM = re.compile(r"\b(?:(divisors)|factors|prime|perfect (?:square|cube))\b", re.I)
_FACTORING_WORDS = ("divisors", "factors", "prime", "perfect")
"""A word every match of :data:`_FACTORING_PROBLEM` holds (lower-cased)."""


def factoring_problem(problem: str) -> re.Match | None:
    """``_FACTORING_PROBLEM.search(problem)``, run only where a word it needs occurs (ASCII text: substring tests on
    the lower-cased problem are exact, as in :func:`counting_problem`)."""
    if problem.isascii() and not contains_any(problem.lower(), _FACTORING_WORDS):
        return None
    return _FACTORING_PROBLEM.search(problem)


_PRIME_POWER = re.compile(r"\s*+\(?\s*+(\d{1,6})\s*+\)?(?:\s*+\^\s*+\{?\s*+(\d{1,2})\s*+\}?)?\s*")
_PRODUCT_SIGN = re.compile(r"\\cdot|\\times|×|·|\*")


def factorization_parts(sides: tuple[str, ...], is_reached, divisors: bool) -> tuple[set[Fraction], list[Fraction]]:
    """A verified prime factorisation of reached numbers (``196 = 2^2\\cdot7^2``, ``7 \\cdot 156 = 7 \\cdot 2^2
    \\cdot 3 \\cdot 13``) in a problem about factors: its primes and exponents are reached, and in one that counts
    divisors each exponent + 1 too (``3\\times 3 = 9``), with the numbers it factors; else ``(set(), [])``.
    Only products of primes (and their powers) against sides whose every number is reached."""
    for k, side in enumerate(sides):
        pieces = _PRODUCT_SIGN.split(side)
        if len(pieces) < 2 and "^" not in side:
            continue
        matches = [_PRIME_POWER.fullmatch(piece) for piece in pieces]
        if not all(matches) or not all(_is_prime(int(m.group(1))) for m in matches):
            continue
        numbers = [v for j, other in enumerate(sides) if j != k for v, _ in read_numbers(other)]
        if not numbers or not all(is_reached(v) for v in numbers):
            continue
        exponents = {Fraction(m.group(2) or 1) for m in matches}
        parts = {Fraction(m.group(1)) for m in matches} | exponents
        if divisors:
            parts |= {e + 1 for e in exponents}
        return parts, numbers
    return set(), []


def _is_prime(n: int) -> bool:
    return n >= 2 and all(n % d for d in range(2, math.isqrt(n) + 1)) if n < 10**6 else False


@lru_cache(maxsize=1024)
def counts_divisors(problem: str) -> bool:
    """Whether the factoring problem counts divisors (its first factoring word is "divisors")."""
    match = factoring_problem(problem)
    return match is not None and match.group(1) is not None


class FactoringRule(ProblemKindRule):
    """A problem about factors and primes (:func:`factoring_problem`): a verified prime factorisation of reached
    numbers reaches its primes and exponents (and each exponent + 1 where divisors are counted:
    :func:`factorization_parts`)."""

    name = "factoring"

    def applies(self, problem: str) -> bool:
        return factoring_problem(problem) is not None

    def on_equation(self, builder, flow, eq, check) -> None:
        if check.ok is True and not is_given(eq, builder.problem):  # "196 = 2^2\\cdot7^2"
            parts, used = factorization_parts(tuple(eq.sides), builder.is_reached, counts_divisors(builder.problem))
            builder.strict.update(parts)
            builder.known.update(parts)
            builder.aliases.extend(parts)
            flow.used.extend(used)
