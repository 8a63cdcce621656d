r"""Equations that name the same quantity, read as one chain: ``x = \frac54 + 3`` then ``x = \frac{17}{4}``.

Competition solutions rarely write a computation as one chain ``A = B = C``; they restate its name on every line:

    \[ OP^2 = 100 - 36 \]  \[ OP^2 = 64 \]        \[ x = \frac{5}{4} + \frac{12}{4} \]  \[ x = \frac{17}{4} \]

Two consecutive equations of one step whose first sides are the same name (the same text once spaces are dropped, a
side with a letter and no value of its own: ``x``, ``OP^2``, ``a_{14}``) state that their later sides are equal:
``100 - 36 = 64``. :func:`merge_named` joins such a run into one chain ``OP^2 = 100 - 36 = 64`` and checks it with the
exact checker of :mod:`rewards.checks.arithmetic` (:func:`~rewards.checks.arithmetic.check_equation`), so the
computation counts as verified and its result is derived like that of any chain.

The join is kept only when the check of the new link (the last side of the first equation against the first later
side of the second) *holds*. Two values of one name are often no computation at all — two roots (``y = 2 + \sqrt5``,
``y = 2 - \sqrt5``), two cases, a trial value revised — so a link that does not hold, or cannot be evaluated, leaves
both equations as they were written. Nothing joins from a bare number or to the same side written again (``x = 0``
restated computes nothing), across an answer box (``\boxed{r = \sqrt5}`` twice restates), or with ``\pm`` or a
relation other than ``=``/``\approx`` in either equation.

One false link *is* a checked falsehood: arithmetic with no letter (``OP^2 = 100 - 36``) followed at once, for the
same name, by a different bare number (``OP^2 = 62``) states the arithmetic's result wrongly. "At once" is read from
the words between the two (:func:`_adjacent`): at most :data:`MAX_BETWEEN` characters and nothing that lists values
or cases ("and", "or", a comma, "if", roots, trials, a congruence). The joined chain is then refuted at that link.
Every value a name is given is checked the same way: the arithmetic given to a name, then a different bare number
given to the same name after only an "or", "and" or comma (``$T = 16 - 3 - 4$, or $T = 10$``: a slip hidden as a
second value, :func:`_second_value`) is refuted too — unless the step solved an equation in that name before
(``(x - 2)(x - 3) = 0``, so ``x = \frac{5 + 1}{2}`` or ``x = 2``: roots, :func:`_solved`) or the words just before
open cases ("If …"). Two bare values (``x = 9, -4``; ``x = 3`` or ``x = -2``) are never a computation, so never
refuted.
Measured on ProcessBench (evaluation mode): it refutes a step in 0 of 406 valid MATH and 0 of 193 valid GSM8K
solutions, and in 5 of 594 flawed MATH and 1 of 207 flawed GSM8K ones.

Bounded: a run joins at most :data:`MAX_CHAIN` sides, each side of at most :data:`MAX_HEAD_CHARS` characters for the
name; the check is the arithmetic checker's own, with its bounds on digits, exponents and work.

>>> from rewards.checks.arithmetic import check_equation, extract_equations
>>> eqs = extract_equations(r"\[ OP^2 = 100 - 36 \] \[ OP^2 = 64 \]")
>>> [(" = ".join(eq.sides), check.ok) for eq, check in merge_named([(e, check_equation(e)) for e in eqs])]
[('OP^2 = 100 - 36 = 64', True)]
>>> eqs = extract_equations(r"\[ y = 2 + 3 \] or \[ y = 2 - 3 \]")  # two roots: left as written
>>> [(" = ".join(eq.sides), check.ok) for eq, check in merge_named([(e, check_equation(e)) for e in eqs])]
[('y = 2 + 3', None), ('y = 2 - 3', None)]
"""

from __future__ import annotations

import re

from rewards.checks.arithmetic import Equation, EquationCheck, check_equation
from rewards.checks.plus_minus import PLUS_MINUS, branches, split_branches

__all__ = ["MAX_CHAIN", "MAX_HEAD_CHARS", "join_across", "merge_named"]

MAX_CHAIN = 12
"""At most this many sides in one joined chain (a longer run starts a new chain)."""

MAX_HEAD_CHARS = 40
"""A name is short: a first side longer than this is an expression, never joined."""

_SPACE = re.compile(r"\s+|\\[,;:! ]|\\quad|\\qquad")
_BARE = re.compile(r"\s*-?[\d,]*\.?\d+\s*")
"""A bare number: restating it (``x = 0``, then ``x = 0``) computes nothing, so it starts no link."""
_BOXED = re.compile(r"\\(?:boxed|fbox)")
_LETTER = re.compile(r"[A-Za-z]")
_NOT_A_NAME = re.compile(r"\\pm|\\mp|[<>≤≥]|\\[lg]eq?\b|\\ne\b|\\neq\b|\\approx")


def _name(eq: Equation) -> str | None:
    """The normalised first side of ``eq`` when it is a name (a letter, no value of its own), else ``None``."""
    head = eq.sides[0] if eq.sides else None
    if not isinstance(head, str) or len(head) > MAX_HEAD_CHARS or eq.values[0] is not None:
        return None
    if not _LETTER.search(head) or _NOT_A_NAME.search(head):
        return None
    if any(isinstance(s, str) and _NOT_A_NAME.search(PLUS_MINUS.sub(" ", s)) for s in eq.sides[1:]):
        return None  # a "\\pm" side joins (its two branches are checked: rewards.checks.plus_minus)
    return _SPACE.sub("", head)


def _joined(first: Equation, second: Equation) -> Equation:
    rel_first = first.relations or tuple("=" for _ in first.sides[1:])
    rel_second = second.relations or tuple("=" for _ in second.sides[1:])
    link = "≈" if first.approximate or second.approximate else "="
    return Equation(list(first.sides) + list(second.sides[1:]), list(first.values) + list(second.values[1:]),
                    (first.span[0], second.span[1]), first.source,
                    tuple(rel_first) + (link,) + tuple(rel_second[1:]), first.approximate or second.approximate)


def merge_named(checked: list[tuple[Equation, EquationCheck]], text: str | None = None
                ) -> list[tuple[Equation, EquationCheck]]:
    """``checked`` (equations of one step in text order, with their checks) with each run of consecutive equations
    that name the same quantity joined into one chain, where every new link holds (see the module docs).

    An equation already refuted, or not checked at all, is left as it is; only equations from LaTeX or plain text
    join (not ``<<..>>`` annotations, which are calculator traces of their own). ``text``: the step, where the words
    between two equations are read (a refutation needs them, :func:`_adjacent`).
    """
    if len(checked) < 2:
        return checked
    out: list[tuple[Equation, EquationCheck]] = []
    for eq, check in checked:
        if out:
            prev = out[-1][0]
            between = boxed = before = None
            if text is not None and prev.span[1] <= eq.span[0]:
                between = text[prev.span[1]:eq.span[0]]
                boxed = text[max(0, prev.span[0] - 8):eq.span[1]]  # "\\boxed{x = ...}" just before the first
                before = text[:prev.span[0]]
            joined = _join(out[-1], (eq, check), between, boxed, before)
            if joined is not None:
                out[-1] = joined
                continue
        out.append((eq, check))
    return out


def _join(first: tuple[Equation, EquationCheck], second: tuple[Equation, EquationCheck], between: str | None = None,
          around: str | None = None, before: str | None = None) -> tuple[Equation, EquationCheck] | None:
    """``first`` and ``second`` joined into one checked chain, or ``None`` (see the module docs). ``between``: the
    text between the two; ``around``: from just before the first to the end of the second (an answer box or a
    ``\\pm`` there stops the join: the branches of :mod:`rewards.checks.plus_minus` are two roots, not a chain);
    ``before``: the step's text before the first (where an equation the name solves would stand)."""
    (prev, prev_check), (eq, check) = first, second
    if check.ok is False or prev_check.ok is False or prev.source == "annotation" or eq.source == "annotation":
        return None
    if len(prev.sides) + len(eq.sides) - 1 > MAX_CHAIN or _BARE.fullmatch(prev.sides[-1]):
        return None
    name = _name(eq)
    if name is None or name != _name(prev) or _SPACE.sub("", prev.sides[-1]) == _SPACE.sub("", eq.sides[1]):
        return None  # a restated value computes nothing
    signed = [bool(PLUS_MINUS.search(prev.sides[-1])), any(PLUS_MINUS.search(side) for side in eq.sides[1:])]
    if around is not None and (_BOXED.search(around) or PLUS_MINUS.search(around) and not all(signed)):
        return None  # an answer box: a box restates, it does not compute; a branch of a "\\pm" is one root of two
    joined = _joined(prev, eq)
    if any(signed):  # "y = \\frac{4 \\pm \\sqrt{20}}{2}" then "y = 2 \\pm \\sqrt{5}": joined where both branches hold,
        if all(signed) and branches(joined) is not None:  # left unchecked for split_branches to read
            return joined, EquationCheck(joined, None, "two branches: " + " = ".join(joined.sides))
        return None
    joined_check = check_equation(joined)
    link = len(prev.sides) - 1  # the pair (prev's last side, eq's first later side)
    if len(joined_check.pairs) <= link:
        return None
    if joined_check.ok is True and joined_check.pairs[link] is True:
        return joined, joined_check
    if joined_check.pairs[link] is False and between is not None \
            and (_adjacent(between) and _computed_then_stated(prev.sides[-1], eq.sides[1])
                 or _second_value(between) and _evaluated_then_stated(prev, eq) and not _solved(name, before)):
        detail = (f"{name} = {prev.sides[-1].strip()} then {name} = {eq.sides[1].strip()}: "
                  f"{prev.sides[-1].strip()} is {_shown(prev.values[-1])}, not {_shown(eq.values[1])}")
        return joined, EquationCheck(joined, False, detail, joined_check.pairs)
    return None


MAX_BETWEEN = 60
_LISTING = re.compile(r"\b(?:and|or|if|when|case|cases|roots?|solutions?|values?|try|trying|check|mod|modulo)\b|,|\\equiv"
                      r"|\\pmod|\\pm|\\neq?\b|\?", re.I)


def _adjacent(between: str) -> bool:
    """Whether the words between two equations make the second the first's result: a few characters at most
    (:data:`MAX_BETWEEN`: display delimiters, "so", "simplifying:"), and nothing that lists values or cases ("and",
    "or", a comma, "if", roots, trials, a congruence)."""
    return len(between) <= MAX_BETWEEN and not _LISTING.search(between)

_ALTERNATIVE = re.compile(r"\b(?:or|and)\b|,", re.I)
_CASES = re.compile(r"\b(?:if|when|case|cases|roots?|solutions?|values?|try|trying|check|mod|modulo|either|otherwise|"
                    r"else|unless|maybe|perhaps)\b|\\equiv|\\pmod|\\pm|\\neq?\b|\?", re.I)


MAX_CASE_LEAD = 12
"""A case word ("If", "when", "try") opens cases only this close before the name's first value ("If $x = …$")."""


def _second_value(between: str) -> bool:
    """Whether the words between two equations only give the name a second value ("$T = 16 - 3 - 4$, or $T = 10$",
    "…, and $T = 10$"): a few characters (:data:`MAX_BETWEEN`), an "or", "and" or comma, and nothing that makes the
    two values roots, cases or trials ("if", "roots", "try", "either", a congruence, a question). A value with a
    radical (``b = 15\\sqrt{3}`` or ``b = 59``) is read as a root, never as a second value."""
    return len(between) <= MAX_BETWEEN and bool(_ALTERNATIVE.search(between)) and not _CASES.search(between)


def _evaluated_then_stated(prev: Equation, eq: Equation) -> bool:
    """The second-value form: the name's first value is a computation the checker evaluated (not a bare number:
    ``16 - 3 - 4``, ``7 x 1.5``; no radical, which a root has) and its second a bare number. A side the checker
    cannot evaluate (units inside the math, ``$T = 200 GB * 40%$``) is not read."""
    side = prev.sides[-1]
    return (prev.values[-1] is not None and "\\sqrt" not in side and not _BARE.fullmatch(side)
            and bool(_BARE.fullmatch(eq.sides[1])))


def _solved(name: str, before: str | None) -> bool:
    """Whether the step solves an equation for ``name`` before giving it values (``(x - 2)(x - 3) = 0``, so
    ``x = \\frac{5 + 1}{2}`` or ``x = 2``: two roots, one computed, one stated): the name stands in an equation
    written earlier in the step; or the words just before the first value open cases ("If", "try"). Unknown text
    (``None``) counts as solved: nothing is refuted without it."""
    if before is None or _CASES.search(before[-MAX_CASE_LEAD:]):
        return True  # "If $T = …$, or $T = …$": cases (a case word just before the first value)
    pattern = re.compile(r"(?<![A-Za-z\\])" + re.escape(name) + r"(?![A-Za-z])")
    return any("=" in part and pattern.search(_SPACE.sub("", part)) for part in re.split(r"[.;\n]|\$\s*,", before))


_OPERATOR = re.compile(r"[-+*/^×·]|\\(?:cdot|times|div|frac|dfrac|sqrt)(?![A-Za-z])")


def _computed_then_stated(expression: str, stated: str) -> bool:
    """``OP^2 = 100 - 36`` then ``OP^2 = 62``: an arithmetic expression (numbers and operators, no letter) followed,
    for the same name, by a bare number — the expression's result stated, wrongly when they differ. Two bare values
    (two roots, two cases) or expressions with letters never refute."""
    body = _COMMANDS.sub(" ", expression)
    return bool(_BARE.fullmatch(stated)) and not _LETTER.search(body) and bool(_OPERATOR.search(expression[1:]))


_COMMANDS = re.compile(r"\\(?:cdot|times|div|frac|dfrac|tfrac|sqrt|left|right)(?![A-Za-z])")


def _shown(value) -> str:
    from rewards.parsing.values import format_value
    return format_value(value)


def join_across(previous: tuple, checked: tuple, previous_text: str | None = None, text: str | None = None) -> tuple:
    """``checked`` (one step's equations with their checks) with its first equation joined to ``previous``'s last
    (the step before), where the two name the same quantity and the link holds: ``OP^2 = 100 - 36`` closing one
    step and ``OP^2 = 64`` opening the next read ``OP^2 = 100 - 36 = 64`` in the later step. The joined equation
    keeps the later equation's span (its numbers' own spans are not read from the step's text). ``previous_text`` and
    ``text``: the two steps, where the words between the equations are read (a refutation needs them).

    >>> from rewards.checks.equations import step_equations
    >>> [" = ".join(e.sides) for e, _ in join_across(step_equations("\\[ OP^2 = 100 - 36 \\]"), step_equations("\\[ OP^2 = 64 \\]"))]
    ['OP^2 = 100 - 36 = 64']
    """
    if not previous or not checked:
        return checked
    between = around = before = None
    if previous_text is not None and text is not None:
        (begin, end), start = previous[-1][0].span, checked[0][0].span[0]
        if end <= len(previous_text) and start <= len(text):
            between = previous_text[end:] + "\n" + text[:start]
            around = previous_text[max(0, begin - 8):] + "\n" + text[:checked[0][0].span[1]]
            before = previous_text[:begin]
    joined = _join(previous[-1], checked[0], between, around, before)
    if joined is None:
        return checked
    eq, check = joined
    kept = Equation(eq.sides, eq.values, checked[0][0].span, eq.source, eq.relations, eq.approximate)
    first = [(kept, EquationCheck(kept, check.ok, check.detail, check.pairs, check.variable))]
    return tuple(split_branches(first) if check.ok is None else first) + tuple(checked[1:])
