"""Claims about letters the trace has just given values: ``x = 1007.5`` and ``y = 7.5``, "so ``x + y = 2015``".

A step that assigns numbers to letters (``x = 1007.5``, ``$a = 3$``) and then states an equation in those letters
alone makes a numeric claim: substitute the values and the equation must hold. The substituted text goes through
:func:`rewards.checks.arithmetic.extract_equations` and :func:`~rewards.checks.arithmetic.check_equation`, so every rounding and
unit rule of the arithmetic checker applies; nothing is ever ``eval``-ed.

The rule, chosen for precision (a false flag punishes a correct completion):

* an *assignment* is a two-sided equation ``v = c`` in one step — a single letter on one side, a numeric value on
  the other;
* a *claim* is a later equation of the **same step**, at most 160 characters on, whose letters are all assigned,
  with a side that holds no letter (it states a value) and a consequence word between the assignment and it
  ("then", "so", "gives", ``\\Rightarrow`` …), and which is not itself an assignment;
* a letter given two different values anywhere in the step up to the claim (cases: "if x = 1 … if x = 2") is
  ambiguous and its claims are not checked; so are the letters ``i`` and ``e``, function notation, subscripts,
  primes, vectors, and any claim after a condition word that restarts the reasoning ("if", "suppose", "when",
  "case") between the assignment and the claim.

Measured with ``benchmarks/claim_checkers.py`` (ProcessBench; labelled-correct traces are the false alarms):
MATH +1 earliest error (``x = 1007.5``, ``y = 7.5``, "then ``x + y = 2015``"), 0 lost, 0 correct rows flagged, and
that is its only flag on the split; GSM8K no flag; 0 gold solutions flagged (GSM8K train, MATH-500); 0.04–0.09
ms/trace. The rules above are what precision cost: without the consequence word, the 160-character window and the
restart words, it also flagged solved equations of a case split (``x - 4 = 1 ⟹ x = 5``, then ``x - 4 = 11``), a
repeating decimal read in part (``x = 0.\\overline{1331}``) and equations after "or" — 2 lucky hits, 1 false
alarm, 6 gold flags.

>>> [c.detail for _, c in check_trace(["If we choose $x = 1007.5$ and $y = 7.5$, then $x + y = 2015$."])]
['with x = 1007.5, y = 7.5: x + y evaluates to 1015, not 2015']
>>> check_trace(["Let $a = 3$ and $b = 4$, so $a^2 + b^2 = 25$."])
[]
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Sequence

from rewards.checks.arithmetic import Equation, EquationCheck, check_equation, extract_equations
from rewards.checks.claims.gates import admits
from rewards.checks.equations import step_equations
from rewards.parsing.values import format_value

__all__ = ["check_trace"]

MAX_STEP_CHARS = 4000
MAX_STEPS = 200
MAX_EQUATIONS = 60
MAX_SIDE_CHARS = 200
MAX_GAP = 160  # characters between the letter's assignment and the claim

_LETTER = re.compile(r"(?<![\\A-Za-z])([A-Za-z])(?![A-Za-z])")
_TEXT = re.compile(r"\\(?:text|mathrm|mbox|textbf|operatorname)\s*\{[^{}]*\}")
_SINGLE = re.compile(r"\s*+\$?\s*+([A-Za-z])\s*+\$?\s*")  # possessive: blanks not re-split
_EXCLUDED = re.compile(r"(?<![\\A-Za-z])[A-Za-z]\s*(?:\(|\\left\(|\^\s*\{?\s*-\s*1)|_|'|\\(?:vec|mathbf|overline|"
                       r"overrightarrow|hat|bar|prime|angle|triangle|sum|prod|int|lim|pmod|bmod|mod|equiv)\b|\[|°|\\circ")
_RESTART = re.compile(r"\b(?:if|suppose|when|case|cases|assume|otherwise|alternatively|instead|try|trying|check|or|"
                      r"either|both|solving|solve|solutions?|roots?|for|let|where|now|next|second)\b", re.I)
_CONSEQUENCE = re.compile(r"\b(?:then|so|thus|hence|gives?|giving|get|therefore|means)\b|\\Rightarrow|\\implies|"
                          r"\\therefore", re.I)
_UNFINISHED = re.compile(r"\s*(?!\s)(?:\.?\s*\\overline|\.\.\.|\\[lc]?dots|\.\d|\\%|%|\^|\\times|\\cdot)")
_RESERVED = frozenset("ie")
_HINT = re.compile(r"(?<![\\A-Za-z])[A-Za-z]\s*=\s*(?:\$\s*)?(?:-\s*)?[\d.(\\]")  # no two adjacent \s*: linear


def _may_assign(step: str) -> bool:
    """What every match of :data:`_HINT` holds: an ASCII letter, blanks, then ``=`` — looked for in the reversed text
    (:data:`_ASSIGN_REVERSED`: ``=``, blanks, a letter), where a search skips to each ``=`` (a few per step);
    :data:`_HINT` starts a match at every letter of a step."""
    return "=" in step and _ASSIGN_REVERSED.search(step[::-1]) is not None


_ASSIGN_REVERSED = re.compile(r"=\s*+[A-Za-z]")
"""An ASCII letter, blanks, then ``=``, read backwards (possessive: a blank run is taken whole, and no letter is a
blank)."""


def _letters(side: str) -> set[str]:
    return set(_LETTER.findall(_TEXT.sub(" ", side)))


def _literal(q: Fraction) -> str:
    return f"({q.numerator})" if q.denominator == 1 else f"({q.numerator}/{q.denominator})"


def _substitute(side: str, env: dict[str, Fraction]) -> str:
    return _LETTER.sub(lambda m: _literal(env[m.group(1)]) if m.group(1) in env else m.group(0), _TEXT.sub(" ", side))


@dataclass
class _Assignments:
    """The letters a step has assigned so far: ``values``, where each assignment ends (``at``), and the letters
    given more than one value or cut off mid-value (``ambiguous``: never substituted)."""

    values: dict[str, Fraction] = field(default_factory=dict)
    at: dict[str, int] = field(default_factory=dict)
    ambiguous: set[str] = field(default_factory=set)

    def read(self, step: str, eq: Equation) -> bool:
        """Record ``eq`` when it is an assignment ``v = c`` (the value may sit on either side); whether it was."""
        for j in (0, 1):
            m = _SINGLE.fullmatch(eq.sides[j])
            other = eq.values[1 - j]
            if m and _UNFINISHED.match(step, eq.span[1]):  # "x = 0.\\overline{1331}": read only in part
                self.ambiguous.add(m.group(1))
                return True
            if m and other is not None and other.is_exact and other.exact is not None:
                v = m.group(1)
                if v in self.values and self.values[v] != other.exact:
                    self.ambiguous.add(v)
                self.values[v] = other.exact
                self.at[v] = eq.span[1]
                return True
        return False

    def follows_from(self, step: str, v: str, start: int) -> bool:
        """The text before ``start`` derives from ``v``'s assignment: close to it, no restart (a case, a trial) in
        between, and a consequence word (``so``, ``then``, ``\\Rightarrow``)."""
        return not (start - self.at[v] > MAX_GAP or _RESTART.search(step, self.at[v], start)
                    or not _CONSEQUENCE.search(step, self.at[v], start))


def _step_claims(step: str) -> list[EquationCheck]:
    seen = _Assignments()
    out: list[EquationCheck] = []
    for eq, _ in step_equations(step)[:MAX_EQUATIONS]:
        sides = eq.sides
        if len(sides) < 2 or any(len(s) > MAX_SIDE_CHARS for s in sides):
            continue
        if len(sides) == 2 and seen.read(step, eq):
            continue
        single = [m.group(1) for m in map(_SINGLE.fullmatch, sides) if m]
        if single:  # "x = \\pi, 2\\pi": another value for the letter (a list of solutions), not a claim
            seen.ambiguous.update(single)
            continue
        if eq.approximate or any(_EXCLUDED.search(s) for s in sides):
            continue
        letter_sets = [_letters(s) for s in sides]
        names = set().union(*letter_sets)
        if not names or names & _RESERVED or names & seen.ambiguous or not names <= seen.values.keys():
            continue
        if all(letter_sets):  # "x^3 - 4x^2 = (x - 1)(...)": an identity or a condition, not a value
            continue
        if not all(seen.follows_from(step, v, eq.span[0]) for v in names):
            continue
        check = _substituted_check(eq, names, seen.values)
        if check is not None:
            out.append(check)
    return out


def _substituted_check(eq: Equation, names: set[str], env: dict[str, Fraction]) -> EquationCheck | None:
    """``eq`` with the assigned values put in, as a failed check when it is false; None otherwise."""
    sides = eq.sides
    text = "$" + " = ".join(_substitute(s, env) for s in sides) + "$"
    for sub_eq in extract_equations(text)[:1]:
        if len(sub_eq.sides) != len(sides):
            break
        check = check_equation(sub_eq)
        if check.ok is False:
            given = ", ".join(f"{v} = {format_value(env[v], rounded=True, max_len=11)}" for v in sorted(names))
            i = next(k for k, ok in enumerate(check.pairs) if ok is False)
            a, b = sides[i], sides[i + 1]
            if _letters(a) or not _letters(b):
                detail = f"with {given}: {a.strip()} evaluates to {_v(sub_eq.values[i])}, not {b.strip()}"
            else:
                detail = f"with {given}: {b.strip()} evaluates to {_v(sub_eq.values[i + 1])}, not {a.strip()}"
            return EquationCheck(Equation(sides=list(sides), values=[None] * len(sides), span=eq.span,
                                          source="claim"), False, detail, check.pairs)
    return None


def _v(value) -> str:
    if value is None:
        return "?"
    if value.is_exact and value.exact is not None:
        return format_value(value.exact, rounded=True, max_len=11)
    return f"{value.approx:.6g}"


def _worth_a_look(text: str) -> bool:
    """The per-step test of :func:`check_trace`: :func:`_may_assign`, then :data:`_HINT`."""
    return _may_assign(text) and _HINT.search(text) is not None


def _may_hold_any(steps: Sequence[str]) -> bool:
    """The trace gate (:func:`rewards.checks.claims.gates.admits`) with :func:`_worth_a_look`."""
    return admits(steps, _worth_a_look)


def check_trace(steps: Sequence[str], problem: str = "") -> list[tuple[int, EquationCheck]]:
    """Failed claims about assigned letters, as ``(step_index, check)`` pairs (see the module docs)."""
    out: list[tuple[int, EquationCheck]] = []
    try:
        head = list(steps)[:MAX_STEPS]  # the steps read: the gate asks only these
        if not _may_hold_any(head):
            return out
        for k, step in enumerate(head):
            if not isinstance(step, str) or len(step) > MAX_STEP_CHARS or not _worth_a_look(step):
                continue
            out.extend((k, c) for c in _step_claims(step))
    except Exception:  # untrusted text: a checker never raises
        return []
    return out
