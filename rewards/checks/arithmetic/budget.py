r"""The resource bounds of :mod:`rewards.checks.arithmetic`, and the per-text evaluation :class:`Budget`.

Model output is untrusted and this runs on the GRPO reward hot path, so every resource is bounded (the package
docstring says why each bound has its value).  Per expression: ``MAX_EXPR_CHARS`` characters, ``MAX_EXPR_TOKENS``
tokens, ``MAX_DIGITS`` digits per literal, exponents ``<= MAX_EXPONENT``, intermediates below ``2**MAX_BITS``,
roots of index ``<= MAX_ROOT``, nesting ``<= MAX_DEPTH``, ``n!`` for ``n <= MAX_FACTORIAL``, ``\binom`` for
``n <= MAX_BINOM``.  Per text (:func:`~rewards.checks.arithmetic.extract_equations` and
:func:`~rewards.checks.arithmetic.numbers_in`): the first ``MAX_TEXT_CHARS`` characters, and a :class:`Budget` of
``MAX_RELATIONS`` relations, ``MAX_SCAN_CHARS`` tokenized characters and ``MAX_SIDES`` evaluated sides.

>>> budget = Budget()
>>> (budget.relations, budget.chars, budget.sides) == (MAX_RELATIONS, MAX_SCAN_CHARS, MAX_SIDES)
True
>>> budget.sides -= 3; budget
Budget(relations=200, chars=16000, sides=397)
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "MAX_EXPR_CHARS", "MAX_EXPR_TOKENS", "MAX_TEXT_CHARS", "MAX_DIGITS", "MAX_EXPONENT", "MAX_ROOT", "MAX_BITS",
    "MAX_DEPTH", "MAX_FACTORIAL", "MAX_BINOM", "MAX_RELATIONS",
    "MAX_SCAN_CHARS", "MAX_SIDES", "MAX_DELIMITERS", "MAX_NUMBERS", "Budget",
]

MAX_EXPR_CHARS = 400
MAX_EXPR_TOKENS = 200
MAX_TEXT_CHARS = 100_000
MAX_DIGITS = 30
MAX_EXPONENT = 1024
MAX_ROOT = 64
MAX_BITS = 4096
MAX_DEPTH = 40
MAX_FACTORIAL = 100
MAX_BINOM = 1000

MAX_RELATIONS = 200  # relations read per text
MAX_SCAN_CHARS = 16_000  # characters tokenized per text
MAX_SIDES = 400  # sides evaluated per text
MAX_DELIMITERS = 4000  # math delimiters scanned per text
MAX_NUMBERS = 2000  # numbers reported by numbers_in


@dataclass(slots=True)
class Budget:
    """What one text may still cost :func:`~rewards.checks.arithmetic.extract_equations`: ``relations`` left to
    read, ``chars`` left to tokenize, ``sides`` left to evaluate.  Spent by subtraction; scanning stops at zero."""

    relations: int = MAX_RELATIONS
    chars: int = MAX_SCAN_CHARS
    sides: int = MAX_SIDES
