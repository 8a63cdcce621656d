"""The equations one step states, each with its exact check: the scorer's per-step unit of evidence.

:func:`step_equations` extracts every equation of a step (:func:`rewards.checks.arithmetic.extract_equations`),
checks each exactly (:func:`rewards.checks.arithmetic.check_equation`), refutes chained one-variable identities
(:func:`rewards.checks.identities.identity_checks`) and withdraws a refutation the author disowns ("..., which is
not true"; a congruence written with "="; two bare numbers, a derived contradiction). It is cached: GRPO groups
repeat steps. The dataflow graph (:mod:`rewards.evidence`) and the claim checkers
(:mod:`rewards.checks.claims`) both read it, so it lives below them.

>>> [(" = ".join(eq.sides), check.ok) for eq, check in step_equations("16 - 3 - 4 = 9 eggs, so 9 * 2 = 19.")]
[('16 - 3 - 4 = 9', True), ('9 * 2 = 19', False)]
"""

from __future__ import annotations

import re
from functools import lru_cache

from rewards.checks.arithmetic import EquationCheck, check_equation, extract_equations
from rewards.checks.identities import MIN_CHAIN, identity_checks
from rewards.checks.named_chains import merge_named
from rewards.checks.plus_minus import split_branches
from rewards.checks.worded_names import named_text, spoken
from rewards.parsing.trace import MAX_STEPS

__all__ = ["BARE_NUMBER", "step_equations"]

BARE_NUMBER = re.compile(r"\s*+\$?\s*+-?[\d,]*\.?\d+\s*+%?\s*")
"""One bare number, optionally with $ or %: a side that states a value and computes nothing."""


@lru_cache(maxsize=MAX_STEPS)
def step_equations(step: str) -> tuple:
    """Equations of one step with their checks, cached: GRPO groups repeat steps and problems, and the scorer reads
    a trace's steps in several passes (the dataflow, its propagation plan, the claim checkers). The cache holds the
    steps of the longest trace scored (:data:`~rewards.parsing.trace.MAX_STEPS`, 4,096): smaller, a trace of more
    steps than it holds missed on every later pass (least-recently-used order over a longer sequence evicts each
    step before it is read again), so a 240k-character trace of 3,600 steps cost 1.3x two 120k-character halves.
    Much larger, it keeps objects alive for few extra hits that every full garbage collection walks (at 32,768,
    ~120k objects; bench_instructions --n 2000: 1.5% fewer instructions with 2,048 than with 32,768).

    Numeric equations are checked by :func:`rewards.checks.arithmetic.check_equation`; chained identities in one
    variable (``(x+1)^2 = x^2 + 2x + 1 = …``) by :func:`rewards.checks.identities.identity_checks`. Consecutive
    equations naming the same quantity (``OP^2 = 100 - 36``, ``OP^2 = 64``) are joined into one chain where the new
    link holds (:func:`rewards.checks.named_chains.merge_named`). An equation written with ``\\pm`` whose two branches
    both hold is read as the two branches (:func:`rewards.checks.plus_minus.branches`).
    """
    named = named_text(step)  # a worded name opening an equation read as a letter name (same offsets)
    equations = extract_equations(named)
    checks = [(eq, check_equation(eq)) for eq in equations]
    if any(len(eq.sides) >= MIN_CHAIN and any(v is None for v in eq.values) for eq in equations):
        refuted = {id(c.equation): c for c in identity_checks(equations)}
        checks = [(eq, refuted.get(id(eq), check)) if check.ok is not False else (eq, check) for eq, check in checks]
    checks = merge_named([(eq, _unless_disowned(step, eq, check)) for eq, check in checks], named)
    if "pm" in step or "mp" in step or "±" in step or "∓" in step:
        checks = split_branches(checks)  # "x = \frac{1 \pm 17}{2}": both branches verified, each derives its root
    if named is not step:  # the checks' sentences in the step's own words
        checks = [(eq, EquationCheck(check.equation, check.ok, spoken(step, named, check.detail), check.pairs,
                                     check.variable)) for eq, check in checks]
    return tuple(_without_tokens(eq, check) for eq, check in checks)


def _without_tokens(eq, check) -> tuple:
    """``(eq, check)`` as the cache keeps them: the equation without the side tokens that only
    :func:`~rewards.checks.arithmetic.check_equation` reads, which has run. Every field anyone reads stays (sides,
    values, span, source, relations), and ``check.equation`` is the kept equation. Cached results live long, and each
    token is an object Python's cyclic collector walks on every full collection: dropping them halves what the
    cache holds (measured on 2,000 GSM8K traces: 133,636 tracked objects -> 58,551)."""
    if eq._toks:
        # in place: the equation is this reading's own (extract_equations built it for this call, and only the checks
        # made from it here refer to it), so no copy of it, or of its check, is needed
        object.__setattr__(eq, "_toks", ())
    return eq, check


_DISOWNED = re.compile(
    r"\b(?:not (?:true|possible|valid|correct|equal|the case)|false|a contradiction|contradicts?|impossible|absurd"
    r"|extraneous|invalid|incorrect|(?:does not|doesn't|cannot|can't|won't) (?:work|hold|be)|isn't (?:true|possible)"
    r"|no solutions?)\b", re.I)
_BASE_NUMERAL = re.compile(r"\d_\{?\s*\d")
"""A numeral with a base subscript (``321_7``, ``162_{10}``; :func:`rewards.checks.arithmetic.tokens.base_numeral`)."""
_CLAUSE_END = re.compile(r"[.;!?\n]\s")
_MODULUS = re.compile(r"[\s$\\)\]]{0,12}(?:\\pmod|\\bmod|\\mod|\(\s*(?:\\text\{\s*)?mod\b|mod\b|modulo\b)")


def _unless_disowned(step: str, eq, check):
    """A false equation the author states *as* false is no error: "1 = \\sqrt{9} + 4, which is not true";
    "if b = 2 then ... ⇒ 0 = -12" (two bare numbers: a derived contradiction, not a calculation). A false pair with a
    base numeral (``321_7 = 161``) is left unchecked: that reading adds support and refutes nothing."""
    if check.ok is not False:
        return check
    if "_" in step and any(ok is False and (_BASE_NUMERAL.search(eq.sides[i]) or _BASE_NUMERAL.search(eq.sides[i + 1]))
                           for i, ok in enumerate(check.pairs)):  # "321_7 = 161": a base numeral supports only
        return EquationCheck(eq, None, check.detail + " (a base numeral: read for support, not to refute)", check.pairs)
    if len(eq.sides) == 2 and all(BARE_NUMBER.fullmatch(side) for side in eq.sides):
        return EquationCheck(eq, None, f"{' = '.join(eq.sides)}: a stated contradiction, not a calculation",
                             check.pairs)
    tail = step[eq.span[1]:eq.span[1] + 120]
    if _MODULUS.match(tail) or "\\pmod" in step[eq.span[0]:eq.span[1]]:
        return EquationCheck(eq, None, check.detail + " (a congruence: '=' modulo m, see rewards.checks.claims.congruences)",
                             check.pairs)
    end = _CLAUSE_END.search(tail)
    if _DISOWNED.search(tail[:end.start() + 1] if end else tail):
        return EquationCheck(eq, None, check.detail + " (stated as false by the author)", check.pairs)
    return check
