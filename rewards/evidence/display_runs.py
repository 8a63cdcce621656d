r"""Runs of bare displays, each the one before it worked out: ``\[ -7 + 16 \div 8 \cdot 6 \]``, then
``\[ -7 + 2 \cdot 6 \]``, then ``\[ -7 + 12 \]``, then ``\[ 5 \]``.

Solutions that evaluate an expression often write each stage of it as a display of its own, with prose between
("Divide 16 by 8:", "This simplifies to:") and no ``=``: the equation extractor reads no equation, so every number
of the later stages is a claim from nowhere and the result is not derived. :func:`display_run_chains` reads such a
run as the chain it states, ``A = B = C = …``, and gives each step the part of the run it writes, starting from the
last stage before it (so a run carried over several steps keeps its link: ``\[ -7 + 12 \]`` closing one step and
``\[ 5 \]`` opening the next read ``-7 + 12 = 5`` in the later step).

Support only, never a refutation: a display is a stage of the run only where its exact value equals the stage
before it (two displays with different values are two expressions, not a slip — a bare display states no equality),
and the chain is kept only where the arithmetic checker (:func:`~rewards.checks.arithmetic.check_equation`) verifies
every link. A display that ends in ``= <expression>`` gives the run its first stage, that last side
(``\[ y^2 - 3xy + 8 = 9^2 - 3(3)(9) + 8 \]`` then ``\[ 81 - 81 + 8 \]``), and continues one only when it restates
the left side of the stage before (``\[ X = 4 - 18 \]`` then ``\[ X = -14 \]``). A continued display
(``\[ = 1764 + 1 \]``) ends the run: continued displays are read, with their own rules on free constants, by
:mod:`rewards.evidence.latex_derivations`. Any other display with a relation (``<``, ``\le``, a box) or that the
exact evaluator cannot read ends the run too.
Bounded: at most :data:`MAX_DISPLAYS` displays per trace, each of at most :data:`MAX_DISPLAY_CHARS` characters, and
chains of at most :data:`MAX_CHAIN` sides.

>>> runs = display_run_chains(("\\[ 16 \\div 8 \\cdot 6 \\] Divide: \\[ 2 \\cdot 6 \\]", "Multiply: \\[ 12 \\]"))
>>> [(k, " = ".join(eq.sides), check.ok) for k, found in sorted(runs.items()) for eq, check in found]
[(0, '16 \\div 8 \\cdot 6 = 2 \\cdot 6', True), (1, '2 \\cdot 6 = 12', True)]
"""

from __future__ import annotations

import re
from typing import Sequence

from rewards.checks.arithmetic import Equation, check_equation, evaluate

__all__ = ["MAX_CHAIN", "MAX_DISPLAYS", "MAX_DISPLAY_CHARS", "display_run_chains"]

MAX_DISPLAYS = 200
"""At most this many displays of a trace are read."""
MAX_DISPLAY_CHARS = 300
"""A longer display is not read as a stage."""
MAX_CHAIN = 12
"""At most this many sides in one step's chain (its last ones kept)."""

_DISPLAY = re.compile(r"\\\[(.{1,%d}?)\\\]|\$\$(.{1,%d}?)\$\$" % (MAX_DISPLAY_CHARS, MAX_DISPLAY_CHARS), re.S)
_RELATION = re.compile(r"[=<>≤≥≈]|\\(?:le|leq|ge|geq|ne|neq|approx|equiv|pmod|bmod|mod|boxed|text|begin|to|in)\b")
_OPERATOR = re.compile(r"[-+*/^×÷·]|\\(?:cdot|times|div|frac|dfrac|tfrac|sqrt)(?![A-Za-z])")
_TRAIL = re.compile(r"[\s.,;:]+$")
_SPACE = re.compile(r"\s+|\\[,;:! ]|\\quad|\\qquad")


def _stages(steps: Sequence[str]) -> list[tuple[int, int, int, str, object] | None]:
    """Every display of the trace in order: ``(step, start, end, text, value, head)`` for a bare display with an
    exact value (its :class:`~rewards.checks.arithmetic.Value`; ``head`` None) or a display ``head = text`` whose last
    side has one, ``None`` for any other (it ends a run)."""
    out: list = []
    for k, step in enumerate(steps):
        if "\\[" not in step and "$$" not in step:
            continue
        for m in _DISPLAY.finditer(step):
            if len(out) >= MAX_DISPLAYS:
                return out
            group = 1 if m.group(1) is not None else 2
            out.extend(_display_stages(k, m.start(group), _TRAIL.sub("", m.group(group))))
    return out[:MAX_DISPLAYS]


def _display_stages(k: int, start: int, body: str) -> list:
    """The stages one display gives (see :func:`_stages`): its text when bare, the last side of an equation (head:
    the sides before it), and none for a continued display (``\\[ = 1764 + 1 \\]``), which ends the run: continued
    displays are read, with their own rules on free constants, by :mod:`rewards.evidence.latex_derivations`."""
    head = None
    if "=" in body:
        if body.lstrip().startswith("="):
            return [None]
        cut = body.rindex("=")  # "\\[ y^2 - 3xy + 8 = 9^2 - 3(3)(9) + 8 \\]": its last side may start a run
        head, start, body = _SPACE.sub("", body[:cut]), start + cut + 1, body[cut + 1:]
    value = None if not body.strip() or _RELATION.search(body) else evaluate(body)
    if value is None or not value.is_exact:
        return [None]
    return [(k, start, start + len(body), body.strip(), value, head)]


def _runs(stages: list) -> list[list[tuple]]:
    r"""The runs of two stages or more: consecutive displays, each equal in value to the one before and bare, or
    stating the same left side as the one before (``\[ X = 4 - 18 \]``, ``\[ X = -14 \]``); a display that ends
    an equation of another left side starts a run (its other sides are read by the equation extractor)."""
    runs: list[list[tuple]] = []
    current: list[tuple] = []
    for stage in stages:
        if stage is not None and current and stage[4].exact == current[-1][4].exact \
                and (stage[5] is None or stage[5] == current[-1][5]):  # bare, or the same left side restated
            current.append(stage)
            continue
        if len(current) > 1:
            runs.append(current)
        current = [stage] if stage is not None else []
    if len(current) > 1:
        runs.append(current)
    return runs


def display_run_chains(steps: Sequence[str]) -> dict[int, list[tuple[Equation, object]]]:
    """Per step, the verified chains of the display runs it writes (see the module docs): ``{step: [(equation,
    check)]}``, each equation's span that of the step's own displays in the run."""
    out: dict[int, list[tuple[Equation, object]]] = {}
    for run in _runs(_stages(steps)):
        for i, stage in enumerate(run):
            if i == 0 or (i + 1 < len(run) and run[i + 1][0] == stage[0]):
                continue  # a chain is read at the last stage a step writes
            first = i
            while first > 0 and run[first - 1][0] == stage[0]:
                first -= 1
            pieces = run[max(first - 1, 0, i + 1 - MAX_CHAIN):i + 1]  # from the stage before the step's own
            own = [p for p in pieces if p[0] == stage[0]]
            eq = Equation([p[3] for p in pieces], [p[4] for p in pieces], (own[0][1], own[-1][2]), "latex",
                          ("=",) * (len(pieces) - 1))
            check = check_equation(eq)
            if check.ok is True:
                out.setdefault(stage[0], []).append((eq, check))
    return out
