"""The counted work of the algebra checks: one budget per call, and a cache that remembers what a call cost.

Counted, never timed (no ``signal``): a verdict must not depend on the machine's load, the thread or the rank.
"""

from __future__ import annotations

import threading
from functools import lru_cache

from rewards.checks.arithmetic.errors import internal_error

__all__ = [
    "Budget", "HoldsOnRange", "MAX_EVALUATIONS", "MAX_WORK", "OutOfBudget", "algebra_work", "costed",
    "never_raising",
]

MAX_EVALUATIONS = 400
MAX_WORK = 20_000
"""Per call, at most this many tokens evaluated (side tokens, summed over evaluations): with
:data:`MAX_EVALUATIONS`, the deterministic bound on one call's work. The heaviest call among MATH-500's gold and
ProcessBench's MATH solutions evaluates 6,914 tokens (0.15 s)."""
_WORK = threading.local()  # per thread: ``total`` work charged, ``levels`` the budgets of the calls in progress


def algebra_work() -> int:
    """The work the algebra checks have charged on this thread so far: tokens evaluated (:data:`MAX_WORK`), each
    cached call charging what it cost when it ran, so the count depends only on the calls made, never on the cache,
    the machine or its load. Per-trace budgets (:mod:`rewards.evidence`) compare two readings.

    >>> from rewards.checks.algebra import relation
    >>> before = algebra_work(); _ = relation("2x + 3 = 11", "x = 4"); cost = algebra_work() - before
    >>> before = algebra_work(); _ = relation("2x + 3 = 11", "x = 4"); cost == algebra_work() - before > 0
    True
    """
    return getattr(_WORK, "total", 0)


class Budget:
    """One call's budget: at most :data:`MAX_EVALUATIONS` side evaluations and :data:`MAX_WORK` tokens evaluated.
    Counted, not timed: a verdict must not depend on the machine's load (it would differ between runs and between
    the ranks of a distributed job)."""

    __slots__ = ("evaluations", "work")

    def __init__(self) -> None:
        self.evaluations = MAX_EVALUATIONS
        self.work = MAX_WORK
        levels = getattr(_WORK, "levels", None)
        if levels:
            levels[-1].append(self)

    def spend(self, tokens: int = 1) -> bool:
        self.evaluations -= 1
        self.work -= tokens
        return self.evaluations >= 0 and self.work >= 0

    @property
    def cost(self) -> int:
        return MAX_WORK - self.work


_CACHED_OUTCOMES = (ArithmeticError, ValueError)  # with OutOfBudget and HoldsOnRange (defined below)


def costed(maxsize: int):
    """``lru_cache`` that also remembers what a call cost (the work of the budgets it made, and of the costed calls
    it made) and charges it to :func:`algebra_work` on every call, a cache hit included; a budget or range
    exception is an outcome, cached and raised again."""
    def decorate(fn):
        @lru_cache(maxsize=maxsize)
        def run(*args):
            before = algebra_work()
            levels = getattr(_WORK, "levels", None)
            if levels is None:
                levels = _WORK.levels = []
            levels.append([])
            try:
                try:
                    outcome = (False, fn(*args))
                except (OutOfBudget, HoldsOnRange, *_CACHED_OUTCOMES) as exc:
                    exc.__context__ = None
                    outcome = (True, exc.with_traceback(None))  # no frames kept alive by the cache
            finally:
                own = sum(b.cost for b in levels.pop())
                nested = algebra_work() - before
                _WORK.total = before  # the wrapper charges the whole cost, hit or miss
            return outcome, own + nested

        def wrapper(*args):
            (raised, value), cost = run(*args)
            _WORK.total = algebra_work() + cost
            if raised:
                raise value.with_traceback(None)
            return value

        wrapper.cache_clear, wrapper.cache_info, wrapper.__wrapped__ = run.cache_clear, run.cache_info, fn
        wrapper.__name__, wrapper.__doc__ = fn.__name__, fn.__doc__
        return wrapper
    return decorate


class OutOfBudget(Exception):
    pass


class HoldsOnRange(Exception):
    """An equation holds at two distinct random points: it holds on a range (``\frac{|x|}{x} = 1``), so it is
    no condition with finitely many solutions and a value "solving" it derives nothing."""


def never_raising(name: str, fn, *args):
    """``fn(*args)``, or None when it runs out of budget or fails on model output (logged as an internal error,
    raised only under ``RAFS_STRICT``)."""
    try:
        return fn(*args)
    except (OutOfBudget, HoldsOnRange, ArithmeticError, ValueError, RecursionError, MemoryError):
        return None
    except Exception as exc:  # noqa: BLE001 - never raise on model output (unless RAFS_STRICT)
        internal_error(name, args, exc)
        return None
