r"""An answer in letters reached from the problem's own expression by verified algebra (:func:`symbolic_chain`).

The dataflow keys answers on numbers: ``x^2 + 10x + 25``, ``2k + 2`` or ``\frac{11+9a}{20}`` has no value, so no
step "produces" it and such an answer earned the unverifiable floor however carefully the trace worked. This module
is the symbolic analogue of a numeric derivation from problem quantities. The trace's math segments (``$ $``,
``\[ \]``, ``\( \)`` and ``align*`` rows), split at top-level ``=``, are read in order as *nodes*: the parts that
are expressions in letters (:mod:`~rewards.evidence.latex_steps` reads the same parts). A node is

* a **start** when it is grounded in the problem text: the problem writes it (the same text, spacing, ``\left``,
  ``\dfrac`` and outer brackets aside: ``\frac{(10r^3)(4r^6)}{8r^4}``) or writes it as a top-level term of one of
  its expressions (``(a-1)(a+1)(a+2)`` of ``(a-1)(a+1)(a+2) - (a-2)(a+1)``); or it is the problem's expression
  rewritten — every numeral of it written (as often), the same letters, and verified equal (``(19x - 4x) + (1 -
  81)`` for ``19x + 1 - 4x - 81``; not when the answer is written inside it: ``(x+5)^2 - (x+5)^2 + x^2 + 10x + 25``);
* **reached** when it is a start; when it restates a reached node (the same text again); when it joins two or three
  known expressions — the problem's, its terms, or reached nodes — with ``+``, ``-``, ``\cdot``, ``\times`` or
  ``/`` and nothing else (``(x + 10) - (10 - x)`` for "by how much does :math:`x + 10` exceed :math:`10 - x`": the
  trace chose the operation, as ``3 * 4`` chooses one on numbers; ``(a^3 + 2a^2 - a - 2) - (a^2 - a - 2)`` after both
  parts were expanded); or when the node written right before it is reached and the link between the two verifies
  on math-verify's parser (:func:`~rewards.checks.latex_algebra.expressions_equal`: two sides of one chain ``A = B``,
  or an expression displayed right after another one, a rewrite). A link that does not verify (false, or beyond the
  checker) reaches nothing: the chain is cut there, and nothing after it is reached unless a start is written
  again. A line in numbers only (``1 - 2 + 3 - 4 = -2``, checked by the arithmetic) is a side computation and cuts
  nothing; a line that is no expression (an equation's name, a condition) cuts the chain.

The answer is **derived** when its text is a reached node reached through at least one verified link, or the last
expression node of the trace is reached and verifies equal to the boxed answer. Withheld (``None``): the answer is
one of the problem's expressions (copied), a start equal to the answer as written (restated: nothing derived), a
chain that begins anywhere but the problem (``(a+b)^2 = a^2+2ab+b^2``, then the answer; ``b + b`` from the problem's
bare letters), or one with a link the checker cannot verify on its way.

**Sensitivity** — the symbolic counterfactual. The chain is a string of identities, so its result is its *origin*
as a function: the start, or for a join the join of its parts' origins (an expression of the problem's). Each of the
first :data:`MAX_EDITS` numerals of the origin is edited (``n -> n + 1``; without numerals, each letter ``v -> (v +
1)``) and the edited origin compared with the answer: the edit *moves* the answer when the two now differ at a random
point (:func:`~rewards.checks.latex_algebra.expressions_differ`), does not when they still agree, and is no edit
when undecided. ``sensitivity = moved / decided``; ``None`` without a decided edit. An origin whose every edit
leaves the answer in place (the problem's numbers cancel) is **degenerate**: no derivation, whoever wrote it.

A chain from the problem's expression *as written* must show work (:func:`_worked`): one link straight to the answer
is the problem copied and the answer stated. One verified link from a start the trace built (a join, the
expression rearranged) derives the answer, as ``3 * 4 = 12`` does. ``docs/rewards.md`` gives the argument.

Bounds: at most :data:`MAX_COMPARISONS` parser comparisons per trace (links, the rewritten starts, the final match,
the edits), parts of at most :data:`~rewards.checks.latex_algebra.MAX_CHARS` characters, the last
:data:`~rewards.evidence.latex_steps.MAX_SEGMENTS` segments. Never raises on untrusted text (an internal error
is counted and logged, and the route then withholds).

>>> chain = symbolic_chain("Simplify $(-k + 4) + (-2 + 3k)$.",
...                        ["We have $(-k+4) + (-2+3k) = -k + 4 -2 + 3k = \\boxed{2k+2}$."], "2k+2")
>>> chain.steps, chain.sensitivity, chain.degenerate
(frozenset({0}), 1.0, None)
>>> symbolic_chain("Simplify $(-k + 4) + (-2 + 3k)$.", ["$(a+b)^2 = a^2 + 2ab + b^2$, so $\\boxed{2k+2}$."], "2k+2")
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from rewards.checks.arithmetic import EquationCheck
from rewards.checks.arithmetic.errors import internal_error
from rewards.checks.latex_algebra import MAX_CHARS, expressions_differ, expressions_equal, split_top_level
from rewards.evidence.latex_derivations import SEGMENT
from rewards.evidence.latex_steps import (COMMAND as _COMMAND, IMPLIES as _IMPLIES, LETTER as _LETTER, MAX_SEGMENTS,
                                          MENTION as _MENTION, closes_at_end as _closes_at_end,
                                          compare_parts as _compare, is_expression as _expression,
                                          passed_check as _check, side_part as _part)

__all__ = ["MAX_COMPARISONS", "MAX_EDITS", "SymbolicChain", "symbolic_chain", "letter_answer", "expression_key",
           "math_parts"]

MAX_COMPARISONS = 12
"""Parser comparisons per trace (links, the answer's match, the sensitivity edits); each costs about 5-50 ms."""
MAX_EDITS = 3
"""Counterfactual edits of the chain's start."""
_MAX_TERMS = 3
"""Problem expressions a start may join."""


@dataclass(frozen=True)
class SymbolicChain:
    """A verified chain from the problem's expression to the answer.

    Attributes:
        steps: the steps whose links the chain uses (the answer's path).
        start: the chain's origin: the grounded node it starts from as written, or for a join the join of its parts'
            origins (what the sensitivity edits).
        links: the verified links on the chain, ``(step, passed check)``.
        sensitivity: the share of edits of the start that move the answer (``None``: no decided edit).
        degenerate: why the start is no function of the problem's expression (``None``: it is one).
    """

    steps: frozenset[int]
    start: str
    links: tuple[tuple[int, EquationCheck], ...]
    sensitivity: float | None
    degenerate: str | None


_SPACES = re.compile(r"\s+|\\[,;:! ]|\\(?:left|right|big|Big|displaystyle)(?![A-Za-z])")
_SINGLE_BRACE = re.compile(r"([\^_])\{(\w)\}")
_NUMERAL = re.compile(r"(?<![\w.\\])\d+(?![\d.])")
_JOIN = re.compile(r"\+|-|\\cdot|\\times|/")


def _key(text: str) -> str:
    """``text`` as compared: spacing, sizing, ``\\dfrac``, braces round one character and outer brackets aside."""
    key = _SINGLE_BRACE.sub(r"\1\2", _SPACES.sub("", text.replace("\\dfrac", "\\frac").replace("\\tfrac", "\\frac")))
    key = key.strip(".,;:")
    while len(key) > 2 and key[0] == "(" and key[-1] == ")" and _closes_at_end(key):
        key = key[1:-1]
    return key


def letter_answer(answer: str | None) -> bool:
    """Whether ``answer`` is an expression in letters this route reads (``2k+2``, ``\\frac{11+9a}{20}``; not
    ``x = 5``, a vector, an interval, a word or a choice)."""
    if not answer or len(answer) > MAX_CHARS or "=" in answer or "\\text" in answer or "\\begin" in answer \
            or "\\infty" in answer or "," in answer:
        return False
    return _expression(_part(answer))


def _problem_parts(problem: str) -> dict[str, str]:
    """Every expression the problem writes, by key: its math segments, split at top-level ``=``, relations and
    commas."""
    keys: dict[str, str] = {}
    for _, sides in _segments([problem]):
        for side in sides:
            for part in re.split(r"\\(?:leq?|geq?|lt|gt|quad|qquad|text\{[^{}]*\})(?![A-Za-z])|[<>,]", side):
                part = _part(part)
                key = _key(part)
                if key and len(part) <= MAX_CHARS:
                    keys.setdefault(key, part)
    return keys


def _split_join(key: str) -> tuple[list[str], list[str]]:
    """``key`` split at top-level joins (``+ - \\cdot \\times /``): ``(terms, the joins between them)``."""
    terms, joins, depth, start, k = [], [], 0, 0, 0
    while k < len(key):
        c = key[k]
        if c in "({[":
            depth += 1
        elif c in ")}]":
            depth -= 1
        elif depth == 0 and k > 0:
            m = _JOIN.match(key, k)
            if m:
                terms.append(key[start:k])
                joins.append(m.group())
                start = k = m.end()
                continue
        k += 1
    terms.append(key[start:])
    return terms, joins


def _split_terms(key: str) -> list[str] | None:
    """``key`` split at top-level joins, or ``None`` when it is one term."""
    terms, _ = _split_join(key)
    return terms if len(terms) > 1 else None


def _problem_terms(problem_parts: dict[str, str]) -> dict[str, str]:
    """The top-level terms of the problem's expressions that are expressions in letters, by key (``(a-1)(a+1)(a+2)``
    of ``(a-1)(a+1)(a+2) - (a-2)(a+1)``)."""
    out = {}
    for written in problem_parts.values():
        terms, _ = _split_join(written)
        for term in terms if len(terms) > 1 else ():
            term = _part(term)
            if _expression(term):
                out.setdefault(_key(term), term)
    return out


def _joined(key: str, known: dict[str, tuple]) -> tuple | None:
    """``key`` as a join of 2-3 terms (``+ - \\cdot \\times /``) each of which is ``known`` (a problem expression
    or term, or a reached node), and nothing else: ``(its origin — the join of the terms' origins, an expression of
    the problem's —, the steps and links it is reached by)``; ``None`` otherwise."""
    terms, joins = _split_join(key)
    if not 2 <= len(terms) <= _MAX_TERMS:
        return None
    found = [known.get(_key(t)) for t in terms]
    if any(f is None for f in found):
        return None
    origin = f"({found[0][0]})" + "".join(f" {j} ({f[0]})" for j, f in zip(joins, found[1:]))
    steps = frozenset().union(*(f[1] for f in found))
    links, seen = [], set()
    for f in found:
        for link in f[2]:
            if id(link) not in seen:
                seen.add(id(link))
                links.append(link)
    return origin, steps, tuple(links)


def _worked(start: str, links: tuple, answer: str, known: dict) -> bool:
    """A chain from the problem's expression *as written* shows work: some node on it other than the start and the
    answer is no expression of the problem's and writes other numerals than the answer (``-k + 4 - 2 + 3k`` on the
    way from ``(-k + 4) + (-2 + 3k)`` to ``2k + 2``; not ``2 + 2k``, the answer in other words). One link from the
    problem's expression straight to the answer is the problem copied and the answer stated (the audit's
    ``copy_problem``): it derives nothing the bare answer does not."""
    skip = {_key(start), _key(answer), *known}
    numerals = _numerals(answer)
    for _, check in links:
        for node in check.equation.sides:
            if _key(node) not in skip and _numerals(node) != numerals:
                return True
    return False


def _numerals(text: str) -> list[str]:
    return sorted(m.group() for m in _NUMERAL.finditer(text))


def _letters(text: str) -> set[str]:
    return {m.group() for m in _LETTER.finditer(_COMMAND.sub(" ", text))}


def _contains(big: list[str], small: list[str]) -> bool:
    """Every numeral of ``small`` is in ``big``, as often."""
    rest = list(big)
    for n in small:
        if n not in rest:
            return False
        rest.remove(n)
    return True


def _rewritten_problem(part: str, problem_parts: dict[str, str], budget: _Budget) -> bool:
    """``part`` is one of the problem's expressions rewritten: it writes every numeral of it (as often) and no
    other letter, and the checker verifies the two equal (``(19x - 4x) + (1 - 81)`` for ``19x + 1 - 4x - 81``).
    The answer written in other words writes the problem's numerals only by chance."""
    numerals, letters = _numerals(part), _letters(part)
    for key, written in problem_parts.items():
        if len(_numerals(written)) >= 2 and _contains(numerals, _numerals(written)) \
                and letters == _letters(written) and _expression(written):
            verdict = _equal(written, part, budget)
            return verdict is not None and verdict.verified
    return False


class _Budget:
    __slots__ = ("left",)

    def __init__(self) -> None:
        self.left = MAX_COMPARISONS

    def spend(self) -> bool:
        self.left -= 1
        return self.left >= 0


_ALIGN = re.compile(r"\\begin\{(align\*?|aligned|gather\*?|eqnarray\*?)\}(.+?)\\end\{\1\}", re.S)
_ENVIRONMENT = re.compile(r"\\begin\{[a-z*]+\}|\\end\{[a-z*]+\}")


def _segments(steps: Sequence[str]) -> list[tuple[int, list[str]]]:
    """``(step, parts)`` of every math segment in order, as :mod:`~rewards.evidence.latex_steps` reads them, and
    the rows of an ``align*`` environment written without ``\\[ \\]`` (``&= …`` rows go on from the row before)."""
    out = []
    for t, text in enumerate(steps):
        if not isinstance(text, str) or ("\\" not in text and "$" not in text):
            continue
        found = [(m.start(), next(g for g in m.groups() if g is not None)) for m in SEGMENT.finditer(text)]
        spans = [m.span() for m in SEGMENT.finditer(text)]
        for m in _ALIGN.finditer(text):
            if not any(a <= m.start() < b for a, b in spans):
                found.append((m.start(), m.group(2)))
        for _, body in sorted(found, key=lambda item: item[0]):
            if "matrix" in body or "array" in body:
                continue
            for row in re.split(r"\\\\", body):
                row = _ENVIRONMENT.sub(" ", row).replace("&", " ").strip()
                for piece in _IMPLIES.split(row) if row else ():
                    parts = [_part(p) for p in split_top_level(piece)]
                    if any(parts):
                        out.append((t, parts))
    return out[-MAX_SEGMENTS:]


def _nodes(steps: Sequence[str]) -> list[tuple[int, str, bool, bool]]:
    """``(step, part, continues, opens)`` for every expression part in order; ``continues``: the part follows the
    node before it in the trace's writing (the next side of one chain, or the next line), else the chain is cut (a
    part that is no expression, an equation's name); ``opens``: the part is the first of its line."""
    out: list[tuple[int, str, bool, bool]] = []
    cut = True
    for step, parts in _segments(steps):
        if len(parts) == 1 and _MENTION.fullmatch(parts[0]):
            continue  # "add $x$ to both sides": a name mentioned, no line of its own
        if not any(_LETTER.search(_COMMAND.sub(" ", p)) for p in parts):
            continue  # "1 - 2 + 3 - 4 = -2": a side computation in numbers, checked by the arithmetic
        for k, part in enumerate(parts):
            if k == 0 and not part and len(parts) > 1:
                continue  # "&= x(x + x^2)": the chain goes on from the line before
            if _expression(part):
                out.append((step, part, not cut, k == 0))
                cut = False
            else:
                cut = True
    return out


def _equal(a: str, b: str, budget: _Budget):
    """The verdict on ``a = b`` (function applications read as unknowns), ``None`` when the budget is spent."""
    return _compare(expressions_equal, a, b) if budget.spend() else None


def _edits(start: str) -> list[str]:
    """The start with one numeral raised by one, for each of its first :data:`MAX_EDITS` numerals; without
    numerals, with one letter ``v`` put as ``(v+1)``."""
    edits = []
    for m in list(_NUMERAL.finditer(start))[:MAX_EDITS]:
        edits.append(f"{start[:m.start()]}{int(m.group()) + 1}{start[m.end():]}")
    if edits:
        return edits
    letters = dict.fromkeys(m.group() for m in _LETTER.finditer(_COMMAND.sub(" ", start)))
    for letter in list(letters)[:MAX_EDITS]:
        edits.append(re.sub(rf"(?<![\\A-Za-z]){letter}(?![A-Za-z])", f"({letter}+1)", start))
    return edits


def _sensitivity(start: str, answer: str, budget: _Budget) -> float | None:
    """The share of decided edits of ``start`` after which it no longer equals ``answer`` (module docstring)."""
    moved = decided = 0
    for edited in _edits(start):
        if not budget.spend():
            break
        verdict = _compare(expressions_differ, edited, answer)
        if verdict.verified:
            moved, decided = moved + 1, decided + 1
        elif verdict.refuted:
            decided += 1
    return moved / decided if decided else None


def symbolic_chain(problem: str, steps: Sequence[str], answer: str | None) -> SymbolicChain | None:
    """The verified chain from the problem's expression to the letter answer ``answer`` (module docstring), or
    ``None``. Never raises."""
    if not isinstance(problem, str) or not letter_answer(answer):
        return None
    try:
        return _chain(problem, steps, _part(answer))
    except Exception as exc:  # noqa: BLE001 - a bug here must not crash a reward: counted, logged, raised when strict
        internal_error("symbolic_chain", steps, exc)
        return None


_Reach = tuple  # (origin as written, steps of the chain so far, links so far, whether the origin is the problem's text)
_STOP = object()  # a link the checker could not decide: the chain ends there


def _chain(problem: str, steps: Sequence[str], answer: str) -> SymbolicChain | None:
    problem_parts = _problem_parts(problem)
    answer_key = _key(answer)
    if not answer_key or answer_key in problem_parts:
        return None  # the answer is one of the problem's expressions: copied, not derived
    budget = _Budget()
    # known: key -> (origin, steps of the chain so far, links so far): the problem's expressions and their terms
    # (no step, no link); reached: every node reached, with whether its origin is the problem's text as written
    known = _known_expressions(problem_parts)
    reached: dict[str, _Reach] = {}
    previous: tuple[int, str] | None = None
    previous_reach = None
    rewritings = 2  # nodes tried as the problem's expression rewritten (a comparison each)
    for step, part, continues, _opens in _nodes(steps):
        key = _key(part)
        here = reached.get(key)
        if here is None and key != answer_key:
            here, tried = _start_of(part, key, step, continues, (problem_parts, known, reached), answer_key, budget,
                                    rewritings)
            rewritings -= tried
        if here is None and continues and previous_reach is not None and previous is not None:
            # only the node written right before: no bridge over a line that did not verify (a false link would be
            # skipped, and its compensating one)
            here = _link(previous[1], previous_reach, part, step, budget)
            if here is _STOP:
                break
        if here is not None and key not in reached:
            reached[key] = here
        previous, previous_reach = (step, part), here
    return _finish(reached.get(answer_key), previous_reach, previous, answer, known, budget)


def _known_expressions(problem_parts: dict[str, str]) -> dict[str, _Reach]:
    """The problem's expressions and their top-level terms, each the origin of a chain (no step, no link yet)."""
    known = {k: (part, frozenset(), ()) for k, part in problem_parts.items() if _expression(part)}
    known.update((k, (term, frozenset(), ())) for k, term in _problem_terms(problem_parts).items() if k not in known)
    return known


def _start_of(part: str, key: str, step: int, continues: bool, context: tuple[dict, dict, dict], answer_key: str,
              budget: _Budget, rewritings: int) -> tuple[_Reach | None, int]:
    """A node that starts a chain, and how many rewriting comparisons it took (0 or 1): one of the problem's
    expressions, a join of known expressions, or the problem's expression rewritten with its numerals
    (``context``: the problem's expressions, the known origins, the nodes reached so far)."""
    problem_parts, known, reached = context
    if key in known:
        return (part, frozenset({step}), (), True), 0
    joined = _joined(key, {**known, **reached})
    if joined is not None:
        start, chain_steps, links = joined
        return (start, chain_steps | {step}, links, False), 0
    if not continues and rewritings > 0 and _NUMERAL.search(part) and answer_key not in key:
        # not one that writes the answer inside it ("(x+5)^2 - (x+5)^2 + x^2 + 10x + 25")
        if _rewritten_problem(part, problem_parts, budget):
            return (part, frozenset({step}), (), False), 1
        return None, 1
    return None, 0


def _link(before: str, reach: _Reach, part: str, step: int, budget: _Budget):
    """The chain extended by the link ``before = part`` when it verifies; ``None`` when it does not (false: the
    chain is cut), :data:`_STOP` when the checker cannot decide."""
    verdict = _equal(before, part, budget)
    if verdict is None:
        return _STOP
    if not verdict.verified:
        return None
    start, chain_steps, links, verbatim = reach
    check = _check([before, part], f"{before} = {part}: verified on the way from the problem's {start} "
                                   f"({verdict.reason})")
    return start, chain_steps | {step}, (*links, (step, check)), verbatim


def _finish(found: _Reach | None, last_reach: _Reach | None, previous: tuple[int, str] | None, answer: str,
            known: dict, budget: _Budget) -> SymbolicChain | None:
    """The chain that reaches the answer (its text, or the last line verified equal to it), with its sensitivity."""
    if found is None and last_reach is not None and previous is not None:
        verdict = _equal(previous[1], answer, budget)  # the last line, boxed in other words
        if verdict is not None and verdict.verified:
            found = last_reach
    if found is None or not found[2]:
        return None  # not reached, or reached with no link (a start equal to the answer as written)
    start, chain_steps, links, verbatim = found
    if verbatim and not _worked(start, links, answer, known):
        return None  # the problem's expression as written, then the answer: the problem copied, no work shown
    sensitivity = _sensitivity(start, answer, budget)
    degenerate = None
    if sensitivity == 0:
        degenerate = f"no edit of the problem's expression {start} moves the answer"
    return SymbolicChain(chain_steps, start, links, sensitivity, degenerate)


def expression_key(text: str) -> str:
    """A part as this module compares it (spacing, sizing, ``\\dfrac``, single-character braces and outer brackets
    aside); :mod:`~rewards.evidence.bound_answers` keys the problem's inequalities the same way."""
    return _key(text)


def math_parts(steps: Sequence[str]) -> list[tuple[int, list[str]]]:
    """``(step, parts)`` of every math segment in order, split at top-level ``=`` (:func:`_segments`), for readers
    of the same segments (:mod:`~rewards.evidence.bound_answers`)."""
    return _segments(steps)
