r"""An answer derived by LaTeX algebra the equation reader cannot follow (:func:`latex_answer_step`).

Competition solutions reach their answer through display math the exact evaluator does not read: ``\[ 3 \cdot 8^2
+ 2 \cdot 8 + 4 \]``, then ``\[ 3 \cdot 64 + 2 \cdot 8 + 4 = 192 + 16 + 4 = 212_{10} \]``; ``\[ f(4) =
\frac{1}{4}(4)^4 - 8(4)^2 + 81 \]``, ``\[ = 64 - 128 + 81 \]``, ``\[ = 17 \]``. When the dataflow found no step
that derives a rational answer (an irrational one keeps its own, stricter path: a multiple of ``\pi`` or a radical
is minted from a coefficient too easily), this module reads the trace's math segments
in order as one sequence of *sides* (a chain ``a = b = c`` gives three, an expression on its own one) and looks,
from the end, for a side whose value is the answer (:func:`~rewards.checks.latex_algebra.value_matches`). From
there it walks back through links checked by :func:`~rewards.checks.latex_algebra.expressions_equal` (two sides of
one chain, or the last side of a segment and the first of the next: consecutive expressions are equal or they are no
link) and takes the earliest side of the verified chain that *starts from the problem*:

* every number it writes (exponents apart: ``8^2`` is notation) is reached — a problem quantity, a basic constant,
  or a value a verified step derived (the builder's ``is_reached``);
* at least one of them is a problem quantity or a value an earlier step derived (not only basic constants: ``2 \cdot
  9`` from nothing is no derivation);
* it computes: two numbers or more, or one under an operation (``\sqrt{65}``); never the answer restated
  (``18 = 18``, ``x = x``, ``a + b = b + a`` reach nothing).

That side's step is then a step that produced the answer, using those numbers (so the problem's quantities on it are
edited by the counterfactual checks, and the unused-quantity and derivation-function rules read it like any other
derivation). Only support is added: a link that does not verify stops the chain, and nothing here refutes a step.

Bounds: at most :data:`MAX_LATEX_CHECKS` comparisons per trace (each parses at most two sides, about 5 ms each,
cached), :data:`MAX_SIDES` sides read from the end of the trace; a trace with no ``\`` or ``$`` is not read.
"""

from __future__ import annotations

import re
from fractions import Fraction

from rewards.checks.latex_algebra import (equation_follows, expressions_equal, holds_at, parse, split_top_level,
                                          value_matches)
from rewards.evidence.equation_derivations import computes
from rewards.evidence.operands import added_term
from rewards.evidence.quantities import BASIC_KEYS, read_numbers, value_key

MAX_LATEX_CHECKS = 16
"""Comparisons (value or link) per trace."""
MAX_SIDES = 120
"""Sides read, from the end of the trace."""
MAX_PARSE_CHARS = 800
"""Characters of sides handed to the parser per trace (its cost grows with length, and a construct it has not met
before costs it some 100 ms the first time: ANTLR builds its prediction tables as it goes)."""
MAX_FREE_EXPONENT = 64
"""A power ``b^{e}`` added with a larger exponent is not evaluated here (its exponent must be reached anyway)."""
_POWER = re.compile(r"\s*\^\s*(?:\{\s*\d+\s*\}|\d)")
_LETTER = re.compile(r"(?<![\\A-Za-z])[A-Za-z]")

SEGMENT = re.compile(r"\$\$(.+?)\$\$|\\\[(.+?)\\\]|\\\((.+?)\\\)|\$(.+?)\$", re.S)
_ENVIRONMENT = re.compile(r"\\begin\{[a-z*]+\}|\\end\{[a-z*]+\}")
_BOXED = re.compile(r"\\boxed\s*\{")
_ANSWER_DIGITS = re.compile(r"\d+")


def math_segments(text: str) -> list[str]:
    r"""The math segments of ``text`` in order (``$...$``, ``$$...$$``, ``\[...\]``, ``\(...\)``), each ``align``
    row on its own, ``&`` removed; matrices and arrays left out (their rows are no lines of a derivation).

    >>> math_segments(r"So \( 2x = 8 \) and \[ x = 4 \\ y &= 5 \]")
    ['2x = 8', 'x = 4', 'y  = 5']
    """
    out = []
    for m in SEGMENT.finditer(text):
        body = next(g for g in m.groups() if g is not None)
        if "matrix" in body or "array" in body:
            continue
        for row in re.split(r"\\\\", body):
            row = _ENVIRONMENT.sub(" ", row).replace("&", " ").strip()
            if row:
                out.append(row)
    return out


def unboxed(side: str) -> str:
    """``\\boxed{17}`` -> ``17`` (the answer boxed inside a chain is still the chain's last side).

    >>> unboxed(r"2 + 15 = \\boxed{17}")
    '2 + 15 = 17'
    """
    match = _BOXED.search(side)
    if match is None:
        return side
    inner = side[match.end():]
    depth = 0
    for k, c in enumerate(inner):
        if c == "{":
            depth += 1
        elif c == "}":
            if depth == 0:
                return side[:match.start()] + inner[:k] + inner[k + 1:]
            depth -= 1
    return side


def _sides(steps: list[str], normalise=None) -> list[tuple[int, str, bool]]:
    """Every side of every math segment, in order: ``(step, side, linked)``, ``linked`` when the side continues a
    chain (the ``=`` before it is written: the same segment, or a segment that starts with ``=``); each side
    passed through ``normalise`` when one is given."""
    out: list[tuple[int, str, bool]] = []
    for t, text in enumerate(steps):
        if "\\" not in text and "$" not in text:
            continue
        for segment in math_segments(text):
            parts = split_top_level(segment)
            for k, part in enumerate(parts):
                part = unboxed(part).strip().strip(".,;:").strip()
                part = normalise(part) if normalise is not None and part else part
                if part:
                    out.append((t, part, k > 0))
    return out[-MAX_SIDES:]


def _operands(side: str) -> list[Fraction]:
    """The numbers a side writes, exponents of letters apart (``x^{3}``: notation, not a quantity). The exponent of
    a number is one (``2^{3} + 2^{1}`` writes 3 and 1: were it notation, powers of a basic constant would spell any
    value from nothing)."""
    out = []
    for value, (start, _end) in read_numbers(side):
        before = side[:start].rstrip()
        if before.endswith("^") or before.endswith("^{"):
            base = before.rstrip("{").rstrip()[:-1].rstrip()  # what "^" raises
            if not re.search(r"[\d.)}]$", base):
                continue  # x^{3}, \pi^2: a letter's exponent
        out.append(value)
    return out


side_operands = _operands
"""The numbers a side writes, as the chain reader counts them (public for :mod:`rewards.evidence.radical_chains`)."""
chain_sides = _sides
"""Every side of every math segment, as the chain reader reads them (public for
:mod:`rewards.evidence.substitutions`)."""


def _answer_digits_in(answer: str, side: str) -> bool:
    """A cheap filter before parsing: every digit run of the answer appears in the side."""
    runs = _ANSWER_DIGITS.findall(answer)
    return bool(runs) and all(run in side for run in runs)


answer_digits_in = _answer_digits_in


def latex_answer_step(builder, answer_text: str, target: Fraction | float, accept=None, normalise=None
                      ) -> tuple[int, list[Fraction], set[int], dict[int, set[Fraction]]] | None:
    """``(step, operands, steps it depends on, the numbers each step of the chain writes on it)`` of a verified
    LaTeX chain from the problem to the answer (module docstring), or ``None``: those numbers are verified results,
    no claim from nowhere. ``builder`` is the :class:`~rewards.evidence.builder.DataflowBuilder` after its walk
    (its ``is_reached``, problem quantities and producers); ``target`` the answer's value (a ``Fraction``, or a
    float for an irrational answer); ``accept(sides)``, when given, a further condition on the chain from its first
    side to the side with the answer's value (each ``(step, side, linked)``)
    (:mod:`rewards.evidence.radical_chains` asks more of a chain to an irrational answer), and ``normalise(side)``
    a rewriting of each side before it is read. Never raises on untrusted text (an unreadable side stops its
    chain)."""
    sides = _sides(builder.trace.steps, normalise)
    if len(sides) < 2:
        return None
    budget = [MAX_LATEX_CHECKS, MAX_PARSE_CHARS]  # comparisons, characters parsed

    def spend(*texts: str) -> bool:
        return _spend(budget, *texts)

    for end in range(len(sides) - 1, 0, -1):
        step, text, _linked = sides[end]
        if not _answer_digits_in(answer_text, text) or _LETTER.search(text.replace("\\sqrt", "").replace("\\pi", "")):
            continue  # the answer's value is a number: a side with a letter is none
        if not spend(text):
            return None
        if not value_matches(text, target).verified:
            continue
        chain = [end]
        k = end
        while k > 0 and budget[0] > 0:
            if not spend(sides[k - 1][1]) or not expressions_equal(sides[k - 1][1], sides[k][1]).verified:
                break
            k -= 1
            chain.append(k)
        for start in reversed(chain[1:]):  # the earliest side that starts from the problem
            if accept is not None and not accept([sides[j] for j in sorted(chain) if j >= start]):
                continue
            found = _start(builder, sides[start][1], sides[start][0], answer_text, target)
            if found is not None:
                operands, depends = found
                stated = "".join(text.split())  # the answer restated (boxed) after the chain: the chain's step derives it
                step = sides[min(j for j in chain if "".join(sides[j][1].split()) == stated)][0]
                used = [j for j in chain if j >= start]
                written: dict[int, set[Fraction]] = {}
                for j in used:
                    written.setdefault(sides[j][0], set()).update(v for v, _ in read_numbers(sides[j][1]))
                return step, operands, depends | {sides[j][0] for j in used if sides[j][0] != step}, written
        if budget[0] <= 0 or budget[1] <= 0:
            return None
    if accept is not None:
        return None  # only the expression chain: an equation chain's start is no side to accept
    found = _equation_chain(builder, answer_text, target, budget)
    if found is None and isinstance(target, Fraction):
        found = _substituted_check(builder, answer_text, target, budget)
    return found


def _spend(budget: list[int], *texts: str) -> bool:
    """Charge one comparison and the characters of ``texts`` to ``budget``; False once either is spent."""
    budget[0] -= 1
    budget[1] -= sum(len(t) for t in texts)
    return budget[0] >= 0 and budget[1] >= 0


def _equations(steps: list[str]) -> list[tuple[int, str, str, str]]:
    """Every math segment that is one equation with a letter: ``(step, segment, left, right)``, in order."""
    out = []
    for t, text in enumerate(steps):
        if "\\" not in text and "$" not in text:
            continue
        for segment in math_segments(text):
            parts = split_top_level(segment)
            if len(parts) == 2 and all(p.strip() for p in parts) and re.search(r"(?<!\\)\b[A-Za-z]\b", segment):
                left, right = (unboxed(p).strip().strip(".,;:").strip() for p in parts)
                out.append((t, left + " = " + right, left, right))
    return out[-MAX_SIDES:]


def _compact(equation: str) -> str:
    return "".join(equation.split()).strip(".,;")


def _equation_chain(builder, answer_text: str, target, budget: list[int]):
    """``x = 4`` at the end of equations that each follow from the one before
    (:func:`~rewards.checks.latex_algebra.equation_follows`: rearranged, or a root chosen), back to an equation
    the problem states (:func:`_problem_condition`; its numbers reached, the answer not among them), with at least
    one equation of the completion's own between them: the problem's equation restated and then ``x = 4`` (a root
    chosen with no step of solving written, ``|x+5|-|3x-6|=0`` then ``x = \frac{11}{2}``) is no derivation."""
    equations = _equations(builder.trace.steps)
    for end in range(len(equations) - 1, 0, -1):
        step, segment, left, right = equations[end]
        value_side = right if _answer_digits_in(answer_text, right) else left
        name_side = left if value_side is right else right
        if not _answer_digits_in(answer_text, value_side) or _LETTER.search(value_side) or not re.fullmatch(r"\s*[A-Za-z](?:_\{?\w+\}?)?\s*",
                                                                               name_side):
            continue
        if not _spend(budget, value_side):
            return None
        if not value_matches(value_side, target).verified:
            continue
        chain = [end]
        k = end
        while k > 0 and budget[0] > 0:
            if not _spend(budget, equations[k - 1][1], equations[k][1]) or \
                    not equation_follows(equations[k - 1][1], equations[k][1]).verified:
                break
            k -= 1
            chain.append(k)
        for start in reversed(chain[1:]):  # the earliest equation of the chain that the problem states
            source_step, source, left, right = equations[start]
            if not any(_compact(equations[j][1]) != _compact(source) for j in range(start + 1, end)):
                continue  # the problem's equation restated, then the answer: no step of solving it is written
            found = _source(builder, left + " + " + right, source_step, target)
            if found is None or not _problem_condition(builder.problem, source, budget):
                continue
            operands, depends = found
            written: dict[int, set[Fraction]] = {}
            for j in chain:
                if j >= start:
                    written.setdefault(equations[j][0], set()).update(v for v, _ in read_numbers(equations[j][1]))
            return step, operands, depends | {equations[j][0] for j in chain if j >= start and
                                              equations[j][0] != step}, written
        if budget[0] <= 0 or budget[1] <= 0:
            return None
    return None


def _substituted_check(builder, answer_text: str, target: Fraction, budget: list[int]):
    """The answer put back into the problem's own equation, written out by the completion and true: the problem
    states ``L(x) = R(x)`` in one unknown, ``L(answer) = R(answer)`` holds
    (:func:`~rewards.checks.latex_algebra.holds_at`), and a step writes a numeric equation with the answer in it
    whose sides have the values ``L(answer)`` and ``R(answer)`` (``2(4) + 3 = 11`` for ``2x + 3 = 11``), one of them
    computing. The answer checked against an equation the completion wrote itself, or a bare ``11 = 11``, is none."""
    problem_equations = [e for e in math_segments(builder.problem) if e.count("=") == 1][:MAX_PROBLEM_EQUATIONS]
    m = None
    for equation in problem_equations:
        if not _spend(budget, equation):
            return None
        parsed = parse(equation)
        if parsed is None or len(getattr(parsed, "free_symbols", ())) != 1 or not hasattr(parsed, "lhs"):
            continue
        name = next(iter(parsed.free_symbols)).name
        if not holds_at(equation, {name: target}).verified:
            continue
        left, right = split_top_level(equation)
        for t in range(len(builder.trace.steps) - 1, -1, -1):
            for segment in math_segments(builder.trace.steps[t]):
                sides = split_top_level(segment)
                if len(sides) != 2 or not _answer_digits_in(answer_text, segment) or \
                        re.search(r"(?<!\\)\b[A-Za-z]\b", segment):
                    continue
                if not any(computes([side], len(_operands(side))) and len(_operands(side)) >= 2 for side in sides):
                    continue
                if not _spend(budget, segment, segment):
                    return None
                if _puts_back(sides[0], left, name, target) and _puts_back(sides[1], right, name, target) or \
                        _puts_back(sides[0], right, name, target) and _puts_back(sides[1], left, name, target):
                    operands = [v for v, _ in read_numbers(equation) if value_key(v) in builder.pnum_keys]
                    if operands:
                        return t, operands, set(), {t: {v for v, _ in read_numbers(segment)}}
    return None


def _puts_back(written: str, given: str, name: str, answer: Fraction) -> bool:
    """``written`` is the problem's side ``given`` with the answer put in for ``name``: the answer's literal in
    ``written`` read back as ``name`` gives ``given`` as a function of ``name`` (``2^{4+1}`` is ``2^{x+1}``;
    ``4 \\cdot 8`` is no ``2^{x+1}``, though both are 32). A side without the letter must equal it as written."""
    value = parse(given)
    if value is None:
        return False
    if not value.free_symbols:
        return expressions_equal(written, given).verified
    if answer.denominator != 1:
        return False
    literal = re.compile(r"(?<![\d.])" + str(answer.numerator) + r"(?![\d.])")
    spots = list(literal.finditer(written))[:4]
    tries = [literal.sub(name, written)] + [written[:m.start()] + name + written[m.end():] for m in spots]
    return any(expressions_equal(candidate, given).verified for candidate in dict.fromkeys(tries) if spots)


MAX_PROBLEM_EQUATIONS = 3
"""Equations of the problem an equation chain may start from (the first ones it states)."""


def _problem_condition(problem: str, source: str, budget: list[int]) -> bool:
    """Whether ``source`` is an equation the problem states: the same text (spaces aside), or the same equation
    rearranged (:func:`~rewards.checks.latex_algebra.equation_follows`). An equation the completion made up
    (``25w = 7``, then ``w = \\frac{7}{25}``) is no condition of the problem, whatever numbers it writes."""
    compact = "".join(source.split())
    equations = [e for e in (segment for segment in math_segments(problem) if segment.count("=") == 1)][:MAX_PROBLEM_EQUATIONS]
    for equation in equations:
        if "".join(equation.split()).strip(".,;") == compact:
            return True
    for equation in equations:
        if not _spend(budget, equation, source):
            return False
        if equation_follows(equation, source).status == "verified" and \
                "the same equation" in equation_follows(equation, source).reason:
            return True
    return False


def _source(builder, sides: str, step: int, target) -> tuple[list[Fraction], set[int]] | None:
    """An equation's numbers as a start from the problem (:func:`_start`'s rules; the answer's own value may not be
    one of them: ``y + 5 = 5 + 18`` copies 18)."""
    operands = _operands(sides)
    if any(v == target for v in operands):
        return None
    return _reached_quantities(builder, operands, step)


def _start(builder, side: str, step: int, answer_text: str, target) -> tuple[list[Fraction], set[int]] | None:
    """``(operands, producer steps)`` when ``side`` starts from the problem (module docstring), else ``None``."""
    if " ".join(side.split()) == " ".join(answer_text.split()):
        return None
    operands = _operands(side)
    if not operands or not computes([side], len(operands)) or any(v == target for v in operands):
        return None  # "18 + 5 - 5" copies the answer 18
    if parse(side) is None:
        return None
    if len(_free_added(builder, side)) >= 2:
        return None  # "5 + 2^{0} + 2^{2} + 2^{3}": an amount assembled from basic constants, as in an equation
    return _reached_quantities(builder, operands, step)


side_start = _start
"""Whether a side starts a chain from the problem, as the chain reader asks it (public for
:mod:`rewards.evidence.substitutions`)."""


def _free_added(builder, side: str) -> list[Fraction]:
    """The basic constants ``side`` adds or takes away with no source (no problem quantity, derived or converted
    value), exponents apart: the equation reader's rule (one may be a count, +1 or 2 legs; several in one expression
    are an amount from nothing) applied to a LaTeX side. A power added as a term counts by its value: ``2^{0}``,
    ``2^{3}`` add 1 and 8 from nothing unless that value is itself reached (``15 + 2^{0} + 2^{2} + 2^{3}`` spells any
    number in binary from a stated 2)."""
    out = []
    for value, (start, end) in read_numbers(side):
        key = value_key(value)
        before = side[:start].rstrip()
        if before.endswith("^") or before.endswith("^{"):
            continue
        power = _POWER.match(side, end)
        if power is not None:  # "2^{3}" adds 8: free unless 8 itself is reached (a power of a problem number too)
            exponent = int(re.sub(r"\D", "", power.group()))
            if exponent > MAX_FREE_EXPONENT:
                continue
            value, end = value ** exponent, power.end()
            key = value_key(value)
            if key not in builder.strict and value not in builder.converted and added_term(side, start, end):
                out.append(value)
        elif key in BASIC_KEYS and key not in builder.strict and value not in builder.converted and \
                added_term(side, start, end):
            out.append(value)
    return out


def _reached_quantities(builder, operands: list[Fraction], step: int) -> tuple[list[Fraction], set[int]] | None:
    """``(operands, producer steps)`` when every operand is reached and one is a problem quantity or a value an
    earlier step derived (not a basic constant alone)."""
    if not operands or not all(builder.is_reached(v) for v in operands):
        return None
    depends: set[int] = set()
    quantity = False
    for v in operands:
        key = value_key(v)
        if key in builder.pnum_keys or v in builder.converted:
            quantity = True
            continue
        producer = builder.producers.get(key)
        if producer is not None and producer < step:
            depends.add(producer)
            quantity = quantity or key not in BASIC_KEYS
    if not quantity:
        return None
    return operands, depends
