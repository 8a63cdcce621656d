"""Equalities the per-equation extractor cannot see: continued displays, equalities in words, two-letter identities.

:func:`rewards.checks.arithmetic.extract_equations` reads one relation at a time inside one math region, so three common
ways of stating an equality escape it:

* **Continued displays.** A display (or a ``\\\\``-separated display line) that opens with ``=`` continues the
  expression before it: ``\\[ (t+2)(t-1) - (t+3)(t-2) \\] \\[ = (t^2 + t - 2t - 2) - (…) \\] \\[ = … \\]``. The
  continued expression is the previous display line of the same step, or — when the step *opens* with ``= …`` (a
  step that starts "Let's simplify the expression: \\[ = … \\]") — the last display line of the previous step;
  without one the chain starts at the first ``=`` line. The pieces are joined into one chain ``A = B = C`` and
  the joined text goes through ``extract_equations`` + ``check_equation`` (so every rounding/units rule applies);
  links whose two sides are in one variable are compared as functions by :mod:`rewards.checks.identities`. A false link
  is reported on the step that wrote its right side; a link the step's own equations already refute is not
  reported twice.
* **Words.** ``$A$ simplifies to / reduces to / evaluates to / becomes / equals / is equal to $B$`` with both sides
  math-delimited (prose numbers never leak in) is checked as ``A = B``: numerically, or as an identity in one or
  two variables.
* **Two-variable identities.** A chain of three sides or more (``(a+b)^2 = a^2 + 2ab + b^2 = …``) whose link has
  the same two lower-case letters on both sides must agree as a polynomial/rational function: it is refuted when
  the sides differ at every one of five rational points (letters substituted textually, ``2ab`` reads as
  ``2(3/7)(-5/3)``; nothing is ever ``eval``-ed).

Deliberately left alone, because the equality is not one of expressions or cannot be evaluated faithfully:
an equation rewritten into another (``$x + 2 = 5$ becomes $x = 3$``: either side holding a relation), an
operand phrase (``4 divided by $\\frac49$ equals $9$``), a bare number on the left (``$5$ becomes $6$``),
modular chains (``= 28 \\bmod 19 = 9`` writes ``=`` for a congruence), matrices and cases, subscripts, vectors,
primes, segment names and function notation, the letters ``i`` and ``e``, and — for identities — any letter the
problem ties by a condition (:func:`rewards.checks.identities.constrained_variables`; for two letters, any condition of
the problem in those letters alone, or a two-sided equation between them stated earlier in the trace, such as
``r^2 - 2 = s``: a link may substitute it and be true without being an identity). ``which gives`` is not read:
in measured traces it links an operation to its result ("multiplying $x$ by $3$, which gives $2$"), not two
expressions.

Measured with ``benchmarks/claim_checkers.py`` (ProcessBench; the labelled-correct traces are the false alarms):
MATH 7 earliest errors found, 0 correct traces flagged, 0 hits lost (F1 0.2051 -> 0.2238); GSM8K no change
(no continued displays there); 0 gold solutions newly flagged (GSM8K train 7,473, MATH-500 500); 0.07 ms/trace
(GSM8K gold) and 0.18 ms/trace (MATH-500 gold) for the checker alone.

>>> [(i, c.detail) for i, c in check_trace(["Expand: \\\\[ (x+1)^2 \\\\]", "\\\\[ = x^2 + x + 1 \\\\]"])]
[(1, 'continued display: (x+1)^2 and x^2 + x + 1 differ as functions of x (at x = 3/7: 100/49, not 79/49)')]
>>> steps = ["\\\\[ 24 \\\\times 11111 \\\\] \\\\[ = 266664 \\\\] \\\\[ = 266665 \\\\]"]
>>> [(i, c.detail) for i, c in check_trace(steps)]
[(0, 'continued display: 266664 evaluates to 266664, not 266665')]
>>> check_trace(["$(a+b)^2 = a^2 + 2ab + b^2 = 49$", "$x + 2 = 5$ becomes $x = 3$."])
[]
"""

from __future__ import annotations

import re
from bisect import bisect_right
from fractions import Fraction
from functools import lru_cache
from typing import Sequence

from rewards.checks.arithmetic import (Equation, EquationCheck, Value, check_equation, contains_any, evaluate,
                                       extract_equations)
from rewards.checks.identities import constrained_variables, identity_checks, single_variable
from rewards.checks.identities import values_equal as _same
from rewards.checks.equations import step_equations
from rewards.parsing.values import format_value as _fmt

__all__ = ["chained_identities", "check_trace", "continuation_chains", "word_claims"]

MAX_STEP_CHARS = 4000
MAX_STEPS = 200
MAX_PIECES = 60  # display lines read per step
MAX_CHAIN_PIECES = 12  # pieces joined into one chain
MAX_WORD_CLAIMS = 12  # word claims read per step
MAX_SIDE_CHARS = 300

# ------------------------------------------------------------------------------------------ pre-filters
_CONT_HINT = re.compile(r"(?:\\\[|\$\$|\\\\)\s*(?:&\s*)?(?:=|\\approx)(?!=)")
_WORD_HINT = re.compile(r"simplif|reduces to|becomes|equals|equal to|evaluates to")
_WORD_HINT_WORDS = ("simplif", "reduces to", "becomes", "equals", "equal to", "evaluates to")
""":data:`_WORD_HINT`'s literals: a step holds one exactly when the pattern matches (substring tests are cheaper)."""


def _has_word_hint(step: str) -> bool:
    """Whether one of :data:`_WORD_HINT_WORDS` occurs in ``step``."""
    return contains_any(step, _WORD_HINT_WORDS)


# ------------------------------------------------------------------------------------------ displays
_DISPLAY = re.compile(r"\\\[(.{0,3000}?)\\\]|\$\$(.{0,3000}?)\$\$", re.S)
_OPAQUE = re.compile(r"\\begin\{(?:[pbvBV]?matrix|cases|array|tabular)|\\end\{(?:[pbvBV]?matrix|cases|array)")
_LINE_BREAK = re.compile(r"\\\\(?:\[[^\]]{0,12}\])?")
_ENV_TAG = re.compile(r"\\(?:begin|end)\{(?:aligned|align|gathered|gather|split|equation|eqnarray)\*?\}")
_LEAD = re.compile(r"^(?:\s|&|\\quad|\\qquad|\\,|\\;|\\!)+")
# starts only where no one-character piece precedes (the longest trail starts there): linear, not quadratic
_TRAIL = re.compile(r"(?<![\s.,;:])(?:\s|[.,;:]|\\quad|\\qquad|\\,|\\;)+$")
_CONTINUES = re.compile(r"(?:=|\\approx)(?!=)")
# chains in modular arithmetic write "=" for "is congruent to": left to the congruence checks
_MODULAR = re.compile(r"\\(?:equiv|pmod|bmod|mod)\b|\bmod\b|\\text\{\s*mod")

# ------------------------------------------------------------------------------------------ words
_INLINE = re.compile(r"\$([^$\n]{1,300})\$|\\\((.{1,300}?)\\\)|\\\[(.{1,600}?)\\\]", re.S)
_SAYS_EQUAL = re.compile(
    r"\s*(?:,\s*)?(?:(?:which|this|that|it)\s+)?(?:then\s+|further\s+|now\s+|finally\s+)?"
    r"(?:simplifies(?:\s+further)?\s+to|reduces\s+to|evaluates\s+to|becomes|equals|is\s+equal\s+to)"
    r"\s*(?::\s*)?", re.I)
# "4 divided by $\frac49$ equals $9$": the left expression is only an operand of a longer phrase
_OPERAND_BEFORE = re.compile(
    r"(?:\b(?:by|of|and|plus|minus|times|from|to|with|over|into|than|at|for|in|on|between|is|are|as|if|when|"
    r"multiply|multiplying|divide|dividing|add|adding|subtract|subtracting|substitute|substituting|"
    r"replace|replacing|set|setting|let|letting|put|putting|plug|plugging)|[-+*/×÷^=<>])\s*$", re.I)
_RELATION = re.compile(r"=|<|>|≤|≥|≠|≈|\\(?:le|leq|ge|geq|ne|neq|approx|equiv|sim|simeq|cong|in|subset|"
                       r"subseteq|Rightarrow|Leftrightarrow|implies|iff|to|rightarrow|gets|mapsto|pm|mp)\b")
_BARE = re.compile(r"^\s*-?\s*\d[\d,]*(?:\.\d+)?\s*$")
# notation that the textual substitution of identities.py would misread
_TEXT = re.compile(r"\\(?:text|mathrm|mbox|textbf|operatorname)\s*\{[^{}]*\}")
_RUN = re.compile(r"(?<![\\A-Za-z])([A-Za-z]+)(?![A-Za-z])")
_FUNCTION = re.compile(r"(?<![\\A-Za-z])[A-Za-z]\s*(?:\(|\^\s*\{?\s*-\s*1)")
_NOT_TWO = re.compile(r"\\(?:circ|star|ast|oplus|otimes|diamond|bullet|nabla|sum|prod|int|lim|angle|triangle|"
                      r"sin|cos|tan|cot|sec|csc|log|ln|exp)\b|°|[<>≤≥!|]")
_RESERVED = frozenset({"i", "e"})
_POINTS2 = ((Fraction(3, 7), Fraction(-5, 3)), (Fraction(11, 2), Fraction(2, 9)), (Fraction(-13, 4), Fraction(7, 5)),
            (Fraction(2, 9), Fraction(11, 3)), (Fraction(-5, 3), Fraction(-13, 4)))
_PROBLEM_MATH = re.compile(r"\$\$(.{1,600}?)\$\$|\$(.{1,600}?)\$|\\\((.{1,600}?)\\\)|\\\[(.{1,600}?)\\\]"
                           r"|\\begin\{(?:align|aligned|equation|gather|eqnarray|cases)\*?\}(.{1,600}?)\\end\{", re.S)
_NOT_IDENTITY = re.compile(r"(?<!\\log)_|\\(?:overline|vec|mathbf|overrightarrow|hat|bar|prime|partial|d)\b|'|\[|\\{")


def _pieces(step: str) -> list[tuple[int, str, bool]]:
    """The display lines of a step in order: ``(position, text, continues)``; ``continues`` when it opens with "=".

    An opaque display (a matrix, cases) is one piece that never continues and is never continued (text ``""``).
    """
    out: list[tuple[int, str, bool]] = []
    for m in _DISPLAY.finditer(step):
        body = m.group(1) if m.group(1) is not None else m.group(2)
        start = m.start(1) if m.group(1) is not None else m.start(2)
        if _OPAQUE.search(body):
            out.append((start, "", False))
            continue
        body = _ENV_TAG.sub(lambda t: " " * len(t.group()), body)
        pos = 0
        for line in _LINE_BREAK.split(body):
            text = _TRAIL.sub("", _LEAD.sub("", line))
            if text:
                out.append((start + pos, text, _CONTINUES.match(text) is not None))
            pos += len(line) + 2
            if len(out) >= MAX_PIECES:
                return out
    return out


def _two_variables(side: str) -> frozenset[str] | None:
    """The two lower-case variables of ``side`` (``2ab + b^2``: ``{a, b}``); ``None`` for anything else."""
    if len(side) > MAX_SIDE_CHARS or _FUNCTION.search(side) or _NOT_TWO.search(side):
        return None
    names: set[str] = set()
    for m in _RUN.finditer(_TEXT.sub(" ", side)):
        word = m.group(1)
        if len(word) > 2 or not word.islower():  # a name (AB, max, gcd), not a product of letters
            return None
        names.update(word)
    if len(names) != 2 or names & _RESERVED:
        return None
    return frozenset(names)


def _at(side: str, point: dict) -> Value | None:
    def literal(m):
        return "".join(f"({point[c].numerator}/{point[c].denominator})" for c in m.group(1))
    return evaluate(_RUN.sub(literal, _TEXT.sub(" ", side)))


def _two_variable_refuted(a: str, b: str, names: frozenset[str]) -> str | None:
    x, y = sorted(names)
    first = None
    for p, q in _POINTS2:
        point = {x: p, y: q}
        u, v = _at(a, point), _at(b, point)
        if u is None or v is None or _same(u, v):
            return None
        first = first or (p, q, u, v)
    p, q, u, v = first
    return (f"{a.strip()} and {b.strip()} differ as functions of {x}, {y} "
            f"(at {x} = {p}, {y} = {q}: {_fmt(u)}, not {_fmt(v)})")


@lru_cache(maxsize=4096)
def _tied(problem: str) -> tuple[frozenset[str], tuple[frozenset[str], ...]]:
    """Letters the problem constrains alone, and the letter sets of every condition it states (``a + b = 7``)."""
    single = constrained_variables(problem)
    sets = []
    for m in _PROBLEM_MATH.finditer(problem[:8000]):
        segment = next(g for g in m.groups() if g is not None)
        for part in _LINE_BREAK.split(segment):
            if "=" in part or "\\equiv" in part:
                letters = _letters(part)
                if letters:
                    sets.append(letters)
            if len(sets) >= 50:
                break
    return single, tuple(sets)


def _identity_failure(a: str, b: str, tied) -> str | None:
    """Why ``a = b`` is false as an identity in one or two variables (``None``: not refuted or not checkable)."""
    if len(a) > MAX_SIDE_CHARS or len(b) > MAX_SIDE_CHARS or _NOT_IDENTITY.search(a) or _NOT_IDENTITY.search(b):
        return None
    var = single_variable(a)
    if var is not None:
        if single_variable(b) != var or var in tied[0]:
            return None
        # a two-sided link is padded to the three sides identity_checks reads (b = b never fails)
        refuted = identity_checks([Equation(sides=[a, b, b], values=[None, None, None], span=(0, 0),
                                            source="claim")])
        return refuted[0].detail if refuted else None
    names = _two_variables(a)
    if names is None or _two_variables(b) != names or any(s <= names for s in tied[1]):
        return None  # a condition between the two letters (a + b = 7) makes a substituting link true
    return _two_variable_refuted(a, b, names)


def _failed_links(joined: str, tied) -> list[tuple[str, str, str, int]]:
    """``(left, right, detail, right_position)`` of every false link of the chains in ``joined``."""
    out = []
    for eq in extract_equations(joined):
        if len(eq.sides) < 2:
            continue
        pos, where = eq.span[0], []
        for side in eq.sides:
            k = joined.find(side, pos)
            where.append(k if k >= 0 else pos)
            pos = max(pos, k + len(side)) if k >= 0 else pos
        check = check_equation(eq)
        if check.ok is False:
            for i, ok in enumerate(check.pairs):
                if ok is False:
                    out.append((eq.sides[i], eq.sides[i + 1], check.detail, where[i + 1]))
                    break
        if eq.approximate:
            continue
        for i, (a, b) in enumerate(zip(eq.sides, eq.sides[1:])):
            if eq.values[i] is None and eq.values[i + 1] is None:
                detail = _identity_failure(a, b, tied)
                if detail:
                    out.append((a, b, detail, where[i + 1]))
    return out


def _base_failures(step: str) -> set[tuple[str, str]]:
    """The false links the per-equation extractor already reports for ``step`` (not reported twice)."""
    seen = set()
    for eq in extract_equations(step):
        check = check_equation(eq)
        if check.ok is False:
            for i, ok in enumerate(check.pairs):
                if ok is False:
                    seen.add((eq.sides[i].strip(), eq.sides[i + 1].strip()))
    return seen


def _claim(a: str, b: str, detail: str, what: str) -> EquationCheck:
    eq = Equation(sides=[a, b], values=[None, None], span=(0, 0), source="claim")
    return EquationCheck(eq, False, f"{what}: {detail}", (False,))


def continuation_chains(steps: Sequence[str], problem: str = "") -> list[tuple[int, EquationCheck]]:
    """False links of chains continued over displays (``\\[ A \\] \\[ = B \\] \\[ = C \\]``)."""
    out: list[tuple[int, EquationCheck]] = []
    cache: dict[int, list] = {}
    tied = None  # _tied(problem), read when a run is checked

    def pieces(k: int) -> list:
        if k not in cache:
            s = steps[k]
            cache[k] = _pieces(s) if len(s) <= MAX_STEP_CHARS else []
        return cache[k]

    for k, step in enumerate(steps[:MAX_STEPS]):
        if len(step) > MAX_STEP_CHARS or "=" not in step or not ("\\[" in step or "$$" in step or "\\\\" in step) \
                or not _CONT_HINT.search(step):  # each match starts with one of the three
            continue
        own = [(k, p, t, c) for p, t, c in pieces(k)]
        if not own or not any(c for *_, c in own):
            continue
        if own[0][3] and k > 0:  # the step opens with "= …": it continues the previous step's last display
            prev = pieces(k - 1)
            if prev and prev[-1][1]:
                own.insert(0, (k - 1, prev[-1][0], prev[-1][1], prev[-1][2]))
        reported: set = set()
        for run in _runs(own):
            if len(run) < 2 or not any(p[0] == k and p[3] for p in run):
                continue
            if any(_MODULAR.search(p[2]) for p in run):
                continue
            tied = tied if tied is not None else _tied(problem)
            out += _run_claims(run, k, steps, tied, reported)
    return out


def _runs(own: list) -> list[list]:
    """The pieces grouped in runs: a non-continuing piece (or the first piece) followed by continuing ones."""
    runs: list[list] = []
    for piece in own:
        if piece[3] and runs and piece[2] and len(runs[-1]) < MAX_CHAIN_PIECES:
            runs[-1].append(piece)
        else:
            runs.append([piece] if piece[2] else [])
    return runs


def _run_claims(run: list, k: int, steps: Sequence[str], tied, reported: set) -> list[tuple[int, EquationCheck]]:
    """The false links of one run joined into one display, each reported once (``reported``) and only for step
    ``k``; a link that fails inside one piece is left to the checks of that step alone."""
    out: list[tuple[int, EquationCheck]] = []
    joined, starts, pos = [], [], 3
    for p in run:
        starts.append(pos)
        joined.append(p[2])
        pos += len(p[2]) + 1
    text = "\\[ " + " ".join(joined) + " \\]"
    for a, b, detail, where in _failed_links(text, tied):
        j = max(0, bisect_right(starts, where) - 1)
        i = max(0, bisect_right(starts, text.find(a, starts[0])) - 1)
        owner = run[j][0]
        if owner != k:
            continue
        key = (a.strip(), b.strip())
        if key in reported:
            continue
        if i == j and key in _base_failures(steps[owner]):
            continue
        reported.add(key)
        out.append((owner, _claim(a, b, detail, "continued display")))
    return out


def word_claims(steps: Sequence[str], problem: str = "") -> list[tuple[int, EquationCheck]]:
    """False equalities stated in words between two math expressions ("$A$ simplifies to $B$")."""
    out: list[tuple[int, EquationCheck]] = []
    for k, step in enumerate(steps[:MAX_STEPS]):
        if len(step) > MAX_STEP_CHARS or not _has_word_hint(step):
            continue
        spans = []
        for m in _INLINE.finditer(step):
            body = next(g for g in m.groups() if g is not None)
            spans.append((m.start(), m.end(), body.strip()))
            if len(spans) > 4 * MAX_WORD_CLAIMS:
                break
        found = 0
        tied = _tied(problem)
        for (s1, e1, a), (s2, e2, b) in zip(spans, spans[1:]):
            if found >= MAX_WORD_CLAIMS:
                break
            if not _SAYS_EQUAL.fullmatch(step, e1, s2):
                continue
            found += 1
            if _RELATION.search(a) or _RELATION.search(b) or _BARE.match(a) or _MODULAR.search(a + b):
                continue
            if _OPERAND_BEFORE.search(step, max(0, s1 - 40), s1):
                continue
            a, b = _TRAIL.sub("", a), _TRAIL.sub("", b)
            for left, right, detail, _ in _failed_links(f"\\[ {a} = {b} \\]", tied):
                out.append((k, _claim(left, right, detail, "stated equal in words")))
                break
    return out


def _letters(text: str) -> frozenset[str]:
    names: set[str] = set()
    for m in _RUN.finditer(_TEXT.sub(" ", text)):
        if len(m.group(1)) <= 2:
            names.update(m.group(1))
    return frozenset(names) - _RESERVED


def _stated_relation(steps: Sequence[str], k: int, before: int, names: frozenset[str], step_equations) -> bool:
    """Whether the trace states a two-sided equation between these letters before position ``before`` of step
    ``k`` (``r^2 - 2 = s``, ``a + b = 7``): a link may then substitute it and be true though not an identity."""
    for j in range(max(0, k - 30), k + 1):
        for eq, _ in step_equations(steps[j]):
            if j == k and eq.span[0] >= before:
                break
            if len(eq.sides) == 2:
                letters = _letters(" ".join(eq.sides))
                if letters and letters <= names:
                    return True
    return False


def chained_identities(steps: Sequence[str], problem: str = "") -> list[tuple[int, EquationCheck]]:
    """False links in two variables of the chains a step states (``(a+b)^2 = a^2 + ab + b^2 = …``)."""
    out: list[tuple[int, EquationCheck]] = []
    tied = None
    for k, step in enumerate(steps[:MAX_STEPS]):
        if len(step) > MAX_STEP_CHARS or step.count("=") < 2:
            continue
        for eq, check in step_equations(step):
            if len(eq.sides) < 3 or eq.approximate or check.ok is False:
                continue
            for i, (a, b) in enumerate(zip(eq.sides, eq.sides[1:])):
                if eq.values[i] is not None or eq.values[i + 1] is not None:
                    continue
                names = _two_variables(a)
                if names is None or _two_variables(b) != names or _NOT_IDENTITY.search(a + b):
                    continue
                tied = tied if tied is not None else _tied(problem)
                if any(s <= names for s in tied[1]):
                    continue
                detail = _two_variable_refuted(a, b, names)
                if detail and not _stated_relation(steps, k, eq.span[0], names, step_equations):
                    out.append((k, _claim(a, b, detail, "chained identity")))
                    break
    return out


def check_trace(steps: Sequence[str], problem: str = "") -> list[tuple[int, EquationCheck]]:
    """Failed checks of continued displays and worded equalities, as ``(step_index, check)`` pairs."""
    try:
        steps = [s if isinstance(s, str) else "" for s in steps][:MAX_STEPS]
        problem = problem if isinstance(problem, str) else ""
        # trace gates: a step either pass reads needs a match of its gate, which the joined text then holds too (the
        # newline between steps is no letter, bracket or sign of either), so a trace without one skips the pass
        text = "\n".join(steps)
        chains = continuation_chains(steps, problem) if ("\\[" in text or "$$" in text or "\\\\" in text) \
            and _CONT_HINT.search(text) else []  # each match starts with one of the three
        words = word_claims(steps, problem) if _has_word_hint(text) else []
        return chains + words + chained_identities(steps, problem)
    except Exception:  # untrusted text: a checker never raises
        return []
