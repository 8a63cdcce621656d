"""Values of an equation's sides at rational points: exact where the sides are rational, within a relative 1e-9
otherwise, each evaluation charged to the call's :class:`~rewards.checks.algebra.budget.Budget`; the seeded random
points the checks draw."""

from __future__ import annotations

import math
import random
import zlib
from fractions import Fraction
from functools import lru_cache
from typing import Mapping

from rewards.checks.algebra.budget import Budget, OutOfBudget
from rewards.checks.algebra.sides import MAX_TOKENS, Side, literal
from rewards.checks.arithmetic.parser import eval_tokens
from rewards.checks.arithmetic.values import Value

__all__ = [
    "NEAR", "REL_TOL", "difference", "draw", "is_zero", "seeded_rng", "value_at",
]

REL_TOL = 1e-9
_MAX_BITS = 2048


def value_at(side: Side, point: Mapping[str, Fraction], budget: Budget | None) -> Value | None:
    if budget is not None and not budget.spend(len(side.tokens)):
        raise OutOfBudget
    if not side.names:  # no unknown left: the same value at every point, worked out once (charged every time)
        return _fixed_value(side.tokens)
    toks: list = []
    for tok in side.tokens:
        if tok[0] == "?":
            q = point.get(tok[1])
            if q is None:
                return None
            toks.extend(literal(q))
        else:
            toks.append(tok)
    return _evaluated(toks)


@lru_cache(maxsize=1024)
def _fixed_value(tokens: tuple) -> Value | None:
    """:func:`value_at` of a side with no unknown (its tokens): a constant side (``2x + 3 = 11``) is evaluated at
    every point drawn, with one result."""
    return _evaluated(list(tokens))


def _evaluated(toks: list) -> Value | None:
    """The bounded value of a side's tokens with every unknown put in (None when there is none or it is too big)."""
    if len(toks) > 4 * MAX_TOKENS:
        return None
    v = eval_tokens(toks)
    if not isinstance(v, Value):
        return None
    if v.is_exact and v.exact is not None:
        q = v.exact
        if q.numerator.bit_length() > _MAX_BITS or q.denominator.bit_length() > _MAX_BITS:
            return None
    elif not math.isfinite(v.approx):
        return None
    return v


def difference(eq, point, budget) -> Value | None:
    left, right = eq
    a, b = value_at(left, point, budget), value_at(right, point, budget)
    if a is None or b is None:
        return None
    if a.is_exact and b.is_exact:
        d = a.exact - b.exact
        return Value(d, float(d), True)
    scale = max(1.0, abs(a.approx), abs(b.approx))
    d = a.approx - b.approx
    return Value(None, 0.0 if abs(d) <= REL_TOL * scale else d, False)


def is_zero(v: Value) -> bool:
    return v.exact == 0 if v.is_exact else v.approx == 0.0


def seeded_rng(*texts: str) -> random.Random:
    return random.Random(zlib.crc32("\x00".join(texts).encode("utf-8", "replace")))


NEAR = (Fraction(1, 1009), Fraction(-1, 1013))
r"""Offsets at which an equation that is no polynomial must *not* hold next to a root it has: if it does, it holds
on a range (``u + |3 - u^2| = 3 + u - u^2`` for every ``|u| < \sqrt{3}``) and a root chosen from it derives
nothing."""


def draw(rng: random.Random) -> Fraction:
    """A random rational ``±p/q``, ``1 <= p <= 200``, ``1 <= q <= 29``: wide enough that a random point is almost
    never a root of an honest equation (see the range test of :func:`_proportional`)."""
    return Fraction(rng.choice((-1, 1)) * rng.randint(1, 200), rng.randint(1, 29))
