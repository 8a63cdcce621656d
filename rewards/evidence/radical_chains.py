r"""An irrational answer (``2\sqrt{3} + 3``, ``\frac{\sqrt7}{14}``, ``7\pi``) reached by a verified LaTeX chain
from the problem: :func:`radical_answer_step`.

The equation reader derives an irrational answer only where its exact evaluator reads every side and every operand
is grounded (:mod:`rewards.evidence.irrational`). Competition solutions simplify radicals, rationalise denominators
and evaluate ``\pi r^2`` in display math it does not read: ``\frac{1}{2\sqrt7} \times \frac{2\sqrt7}{2\sqrt7} =
\frac{2\sqrt7}{4 \times 7} = \frac{\sqrt7}{14}``; ``\frac{1}{\frac{2\sqrt{3}}{3} - 1} \cdot \frac{\frac{2\sqrt{3}}{3} +
1}{\frac{2\sqrt{3}}{3} + 1} = \dots = 2\sqrt{3} + 3``; ``A = \pi R^2 = \pi (\sqrt{7})^2 = 7\pi`` after ``R = \sqrt{7}``.
Where the equation reader found no step deriving the answer, the LaTeX chain reader
(:func:`~rewards.evidence.latex_derivations.latex_answer_step`) is run with the answer's float value: each link
of the chain is checked exactly (sympy through math-verify's parser, at random points where letters remain), the
side that lands on the answer within tolerance, and the chain's first side starts from the problem (its numbers
reached, one of them a problem quantity or a derived value). A radical or a multiple of ``\pi`` is minted from a
coefficient more easily than a whole number, so the first side must also (:func:`accepts`):

* **compute something the answer does not already write**: a number other than the answer's own numbers and ``1``,
  or a denominator to rationalise (``\sqrt{3} \cdot 2 = 2\sqrt{3}``, ``\frac{1}{3}\sqrt{3}``, ``\sqrt{\frac{1}{3}}``,
  ``\sqrt{1 \times 53}``, ``7 \cdot \pi`` restate the answer; ``\sqrt{48}``, ``\frac{1}{2\sqrt{7}}``,
  ``\frac{1}{\frac{2\sqrt{3}}{3} - 1}`` for ``2\sqrt{3} + 3`` do not);
* **bring no constant from nowhere**: ``\pi`` only where the problem writes ``\pi`` or speaks of something round
  (:data:`PI_WORDS`: a circle, sphere, arc, radian …); a trigonometric function only where the problem writes one
  or speaks of angles or triangles (:data:`TRIG_WORDS`). ``\pi \cdot 6^2 = 36\pi`` for a problem about six apples,
  ``\tan 60^\circ = \sqrt{3}`` for one that never spoke of an angle, derive nothing.

Only support is added: a link that does not verify stops the chain, an unaccepted first side is no start, and
nothing here refutes a step. The work is the chain reader's (at most
:data:`~rewards.evidence.latex_derivations.MAX_LATEX_CHECKS` comparisons and
:data:`~rewards.evidence.latex_derivations.MAX_PARSE_CHARS` characters parsed per trace); it runs only for a trace
whose answer is irrational and that no equation derived.

>>> from rewards.parsing.trace import parse_trace
>>> from rewards.evidence.builder import build_dataflow
>>> t = parse_trace(r"Rationalize the denominator: $\frac1{2\sqrt7}$.",
...     r"\[ \frac{1}{2\sqrt7} \times \frac{2\sqrt7}{2\sqrt7} = \frac{2\sqrt7}{4 \times 7} = \frac{\sqrt7}{14} \]"
...     "\n" r"The answer is \(\boxed{\frac{\sqrt7}{14}}\).")
>>> build_dataflow(t).answer_step
0
"""

from __future__ import annotations

import re
from fractions import Fraction

from rewards.checks.latex_algebra import braced_arguments, bracketed_trig_arguments
from rewards.evidence.latex_derivations import latex_answer_step, side_operands
from rewards.evidence.substitutions import substituted_answer_step

PI_WORDS = re.compile(r"\\pi|\bpi\b|circle|circular|circum|radius|radii|diameter|sphere|spherical|cylind|\bcone|"
                      r"conical|\barcs?\b|sector|semicircle|hemisphere|radian|revolution|\bdisk|\bdisc|round|"
                      r"ellipse|\btorus|\bwheel|\bring|\bangle|degree|\\circ|\btan|\bsin|\bcos|\bcot|\bsec|\bcsc|"
                      r"\barea|region|volume|\bplane\b|\bgraphs?\b|\bcurve|locus|\bset of (?:all )?points", re.I)
"""What in a problem licenses ``\\pi`` in a derivation: ``\\pi`` itself, something round, an angle or a
trigonometric function (their arguments and inverses are in radians or degrees), or an area, volume or region whose
shape the solution finds (``a^2 + b^2 < 1``, the inside of a circle, for "the area of the set of points")."""
TRIG_WORDS = re.compile(r"\\(?:sin|cos|tan|cot|sec|csc|arcsin|arccos|arctan)|\b(?:sin|cos|tan|cot|sec|csc)\b|"
                        r"angle|degree|\\circ|triangle|polygon|hexagon|pentagon|octagon|radian|rotat|slope|"
                        r"\\pi", re.I)
"""What in a problem licenses a trigonometric function in a derivation."""
_TRIG = re.compile(r"\\(?:arc)?(?:sin|cos|tan|cot|sec|csc)(?![a-z])")
_NUMBERS_IN = re.compile(r"\d+(?:\.\d+)?")
_FRAC = re.compile(r"\\[dt]?frac\s*\{")


def _group(text: str, open_at: int) -> int | None:
    """The index just past the brace group opened at ``text[open_at] == "{"``, or ``None`` when it never closes."""
    depth = 0
    for k in range(open_at, min(len(text), open_at + 400)):
        depth += (text[k] == "{") - (text[k] == "}")
        if depth == 0:
            return k + 1
    return None


def irrational_denominator(side: str) -> bool:
    r"""Whether a fraction of ``side`` has a sum or difference with a root or ``\pi`` in its denominator:
    rationalising it by the conjugate computes, even with the answer's own numbers (``\frac{1}{\frac{2\sqrt{3}}{3}
    - 1}`` for ``2\sqrt{3} + 3``); a lone root below (``\frac{2 \cdot 3}{\sqrt{3}}`` for ``2\sqrt{3}``) is the
    answer rewritten.

    >>> irrational_denominator(r"\frac{1}{\frac{2\sqrt{3}}{3} - 1}"), irrational_denominator(r"\sqrt{\frac{1}{3}}")
    (True, False)
    >>> irrational_denominator(r"\frac{2 \cdot 3}{\sqrt{3}}"), irrational_denominator(r"\frac{1}{\sqrt{3}-1}")
    (False, True)
    """
    for match in _FRAC.finditer(side):
        numerator_end = _group(side, match.end() - 1)
        if numerator_end is None or side[numerator_end:numerator_end + 1] != "{":
            continue
        denominator_end = _group(side, numerator_end)
        denominator = side[numerator_end + 1:denominator_end - 1] if denominator_end is not None else ""
        if re.search(r"\\(?:sqrt|pi)", denominator) and re.search(r"(?<!^)[+-]", denominator.strip()):
            return True
    return False


def _own_numbers(answer: str) -> set[Fraction]:
    """The numbers the answer writes, and 1 (``2\\sqrt{3} + 3`` -> {1, 2, 3})."""
    return {Fraction(n) for n in _NUMBERS_IN.findall(answer)} | {Fraction(1)}


def accepts_chain(problem: str, answer: str, chain: list[tuple[int, str, bool]]) -> bool:
    r"""Whether ``chain`` (its first side to the side with the answer's value, each ``(step, side, linked)`` as
    :func:`~rewards.evidence.latex_derivations.latex_answer_step` reads them) may derive the irrational ``answer``:
    its first side :func:`accepts`, and either the completion writes the two as one equation (``\arcsin(-\frac{1}{2})
    = -\frac{\pi}{6}``, as the equation reader derives ``\sqrt{117} = 3\sqrt{13}``) or a side of its own stands
    between them, neither of them written again (``\sqrt{242}``, then ``\sqrt{121 \cdot 2} = 11\sqrt{2}``). The
    problem's expression in one place and the answer in another (the problem copied, then ``\boxed{11\sqrt2}``;
    ``\cos 45^\circ`` "is equal to" ``\frac{\sqrt{2}}{2}``) is a value stated, not computed.

    >>> accepts_chain("Simplify $\\sqrt{242}$.", r"11\sqrt2", [(0, r"\sqrt{242}", False), (1, r"11\sqrt2", False)])
    False
    >>> accepts_chain("Simplify $\\sqrt{242}$.", r"11\sqrt2", [(0, r"\sqrt{242}", False), (0, r"11\sqrt2", True)])
    True
    >>> accepts_chain("Simplify $\\sqrt{242}$.", r"11\sqrt2",
    ...               [(0, r"\sqrt{242}", False), (1, r"\sqrt{121 \cdot 2}", False), (1, r"11\sqrt2", True)])
    True
    """
    compact = ["".join(side.split()) for _step, side, _linked in chain]
    one_equation = len(chain) == 2 and chain[1][2]
    if not one_equation and not any(c != compact[0] and c != compact[-1] for c in compact[1:-1]):
        return False
    return accepts(problem, answer, chain[0][1])


def accepts(problem: str, answer: str, side: str) -> bool:
    r"""Whether ``side`` may start a chain to the irrational ``answer`` of ``problem`` (module docstring).

    >>> accepts("Rationalize $\\frac1{2\\sqrt7}$.", r"\frac{\sqrt7}{14}", r"\frac{1}{2\sqrt7}")
    True
    >>> accepts("Simplify $\\sqrt{12}$.", r"2\sqrt{3}", r"\sqrt{3} \cdot 2")
    False
    >>> accepts("Ann has 6 apples.", r"36\pi", r"\pi \cdot 6^2"), accepts("A circle has radius 6.", r"36\pi", r"\pi 6^2")
    (False, True)
    """
    own = _own_numbers(answer)
    if all(v in own for v in side_operands(side)) and not irrational_denominator(side):
        return False  # the answer rewritten: nothing computed
    return constants_licensed(problem, side)


def constants_licensed(problem: str, text: str) -> bool:
    r"""Whether every ``\pi`` and trigonometric function ``text`` computes with is one ``problem`` gives reason for
    (:data:`PI_WORDS`, :data:`TRIG_WORDS`): the equation reader's own inexact derivations
    (:func:`~rewards.evidence.irrational.approximate_derivation`) ask it too, so ``\pi \cdot 6^2 = 36\pi`` derives
    nothing for a problem about six apples.

    >>> constants_licensed("Ann has 6 apples.", r"\pi \cdot 6^2"), constants_licensed("A wheel of radius 6.", r"\pi 6^2")
    (False, True)
    """
    problem = problem if isinstance(problem, str) else ""
    if "\\pi" in text and not PI_WORDS.search(problem):
        return False
    return not (_TRIG.search(text) and not TRIG_WORDS.search(problem))


def radical_answer_step(builder) -> tuple[int, list[Fraction], set[int], dict[int, set[Fraction]]] | None:
    """The LaTeX chain to the builder's irrational answer (``builder.approx``), in the shape of
    :func:`~rewards.evidence.latex_derivations.latex_answer_step`, or ``None``."""
    answer = builder.trace.answer
    if not answer or builder.approx is None:
        return None
    problem = builder.problem if isinstance(builder.problem, str) else ""
    decimals = {value for value in builder.pnums if value.denominator != 1}
    def accept(chain):
        return accepts_chain(problem, answer, chain)

    def normalise(side):
        return _written_out(side, decimals)

    return latex_answer_step(builder, answer, builder.approx, accept=accept, normalise=normalise) or \
        substituted_answer_step(builder, normalise, accept, constants_licensed)  # through a letter, a \pm branch, a name written again


UNREAD = r"\text{a decimal}"
"""What a side with a decimal of its own becomes: a text the parser refuses, so the chain stops there."""
_DECIMAL = re.compile(r"\d*\.\d+")


def _written_out(side: str, decimals: set[Fraction]) -> str:
    r"""A side with LaTeX's unbracketed arguments written out (``\sqrt7``, ``\frac12``, ``\cos 45^\circ``), for
    this reader only: it adds support and refutes nothing, so reading more of a side cannot call a step wrong. A
    side that writes a decimal other than a problem quantity's (``22.5`` in ``\tan 22.5^\circ`` is one) is
    :data:`UNREAD`: a decimal stands for an irrational only to within its digits (``\frac{1.732050808}{3} =
    0.5773502693`` is no derivation of ``\frac{\sqrt{3}}{3}``)."""
    if "." in side and any(Fraction(m.group()) not in decimals for m in _DECIMAL.finditer(side)):
        return UNREAD
    return bracketed_trig_arguments(braced_arguments(side))
