r"""An irrational answer reached by a LaTeX chain that carries a value through a letter, a ``\pm`` or a name
written again: :func:`substituted_answer_step`.

The chain reader of :mod:`rewards.evidence.radical_chains` links consecutive expressions that are equal as written.
Competition solutions also write

* **a sub-result carried by a letter**: ``c^2 = a^2 + b^2 = 5``, so ``c = \sqrt{5}``, and the answer is ``2c =
  2\sqrt{5}``; ``RS = \sqrt{25 - 4} = \sqrt{21}`` … ``r = \sqrt{21}``, then ``A = \pi r^2 = 21\pi``. The letter's
  value is put into the later expression (:func:`~rewards.checks.latex_algebra.equal_under`: sympy through
  math-verify's parser, the value as the completion wrote it) and the two sides compared;
* **the quadratic formula**: ``y = \frac{-(-4) \pm \sqrt{(-4)^2 - 4(1)(-1)}}{2(1)}`` on one line, ``y = \frac{4
  \pm \sqrt{20}}{2}`` on the next, ``y = 2 \pm \sqrt{5}``, and the root ``2 + \sqrt{5}``: a side with ``\pm`` is
  read as the branch (``\pm`` as ``+`` throughout, or as ``-``) that links to the side after it;
* **a name written again**: ``y = E_1`` on one line and ``y = E_2`` on the next link ``E_1`` to ``E_2`` (the name is
  no expression of the chain).

The chain is walked back from a side with the answer's value, as the plain reader walks it, and its start must still
start from the problem:

* a side with letters starts it when every letter is bound by a :class:`Binding` written before it — ``name = … =
  number``, a lone name (:data:`~rewards.evidence.algebra_links.LONE_NAME`) whose segment ends in a number — and
  every bound value is *reached* (a problem quantity, or a value a verified step derived), at least one of them
  derived by an earlier step (``producers``) and none of them the answer itself: the computation the chain rests on
  happened where the letter was bound. ``Let c = 2\sqrt{5}``, then ``c = \boxed{2\sqrt5}``, or ``c = \sqrt{5}``
  stated from nowhere, then ``2c = 2\sqrt{5}``, derive nothing; every number the side itself writes must be reached,
  and ``\pi`` or a trigonometric function the problem gives no reason for is no start
  (:func:`~rewards.evidence.radical_chains.constants_licensed`);
* a side without letters starts it by the plain reader's rules (:func:`~rewards.evidence.latex_derivations.side_start`
  and :func:`~rewards.evidence.radical_chains.accepts_chain`: its numbers reached, one a problem quantity or derived,
  something computed that the answer does not already write), and only where a link of the chain is one the plain
  reader does not read (a ``\pm`` branch, a name written again): ``x = \frac{-b \pm \sqrt{b^2 - 4ac}}{2a}`` with no
  coefficient of the problem put in starts nothing.

Only support is added: a link that does not verify stops the chain, and nothing here refutes a step. Bounds: run only
for an irrational answer the plain chain reader did not reach, and only where the trace writes a binding, a ``\pm``
or a name again; at most :data:`MAX_CHECKS` comparisons and :data:`MAX_PARSE_CHARS` characters parsed, at most
:data:`MAX_BINDINGS` bindings read.

>>> from rewards.parsing.trace import parse_trace
>>> from rewards.evidence.builder import build_dataflow
>>> t = parse_trace("A right triangle has legs 1 and 2. Find twice its hypotenuse.",
...     r"The hypotenuse is $c = \sqrt{1^2 + 2^2} = \sqrt{5}$." "\n\n" r"Then $2c = 2\sqrt{5}$." "\n\n"
...     r"The answer is $\boxed{2\sqrt{5}}$.")
>>> build_dataflow(t).answer_step
1
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction

from rewards.checks.arithmetic import evaluate
from rewards.checks.latex_algebra import equal_under, expressions_equal, value_matches
from rewards.checks.plus_minus import PLUS_MINUS
from rewards.evidence.algebra_links import LONE_NAME
from rewards.evidence.equation_derivations import computes
from rewards.evidence.irrational import approx_key
from rewards.evidence.latex_derivations import answer_digits_in, chain_sides, side_operands, side_start
from rewards.evidence.latex_steps import latex_check
from rewards.evidence.quantities import BASIC_KEYS, read_numbers, value_key

MAX_CHECKS = 16
"""Comparisons (value or link) per trace."""
MAX_PARSE_CHARS = 800
"""Characters of sides handed to the parser per trace."""
MAX_BINDINGS = 8
"""Bindings read per trace (the last ones written)."""

_COMMAND = re.compile(r"\\[A-Za-z]+")
_LETTER = re.compile(r"(?<![A-Za-z])[A-Za-z](?![A-Za-z])|[A-Za-z]{2,}")
_NAME = re.compile(r"\s*[A-Za-z](?:_\{?[A-Za-z0-9]{1,4}\}?)?\s*")
"""A name written again on a new line: ``y``, ``x_1``, ``x_{max}``."""
_PLUS = {"\\pm": "+", "\\mp": "-", "±": "+", "∓": "-"}
_MINUS = {"\\pm": "-", "\\mp": "+", "±": "-", "∓": "+"}


@dataclass(frozen=True, slots=True)
class Binding:
    """``name = … = value``: a lone name whose segment ends in a number, at ``at`` (the index of that number's side
    in the trace's sides), with the value's dataflow key (:func:`~rewards.evidence.irrational.approx_key` when it is
    irrational)."""

    name: str
    value: str
    key: Fraction
    step: int
    at: int


def has_letters(side: str) -> bool:
    r"""Whether ``side`` writes a letter outside a LaTeX command (``\sqrt``, ``\pi``, ``\frac`` are none).

    >>> has_letters(r"2\sqrt{5} + \pi"), has_letters(r"\frac{c}{2}")
    (False, True)
    """
    return bool(_LETTER.search(_COMMAND.sub(" ", side)))


def bindings(sides: list[tuple[int, str, bool]]) -> list[Binding]:
    r"""The bindings the sides write, in order (the last :data:`MAX_BINDINGS`).

    >>> [(b.name, b.value, b.at) for b in bindings([(0, "c", False), (0, r"\sqrt{1 + 4}", True), (0, r"\sqrt{5}", True)])]
    [('c', '\\sqrt{5}', 2)]
    """
    out = []
    for j, (step, side, linked) in enumerate(sides):
        match = LONE_NAME.fullmatch(side)
        if linked or match is None or "angle" in side:
            continue
        k = j
        while k + 1 < len(sides) and sides[k + 1][2] and sides[k + 1][0] == step:
            k += 1
        value = sides[k][1]
        if k == j or has_letters(value) or PLUS_MINUS.search(value):
            continue
        number = evaluate(value)
        if number is None:
            continue
        key = value_key(number.exact) if number.is_exact else approx_key(number.approx)
        out.append(Binding(side.strip().strip("{}").strip(), value, key, step, k))
    return out[-MAX_BINDINGS:]


def _branches(side: str) -> list[tuple[str, bool]]:
    """``side`` as written, or its ``+`` and ``-`` branches when it writes ``\\pm``: ``(text, branched)``."""
    if not PLUS_MINUS.search(side):
        return [(side, False)]
    return [(PLUS_MINUS.sub(lambda m: signs[m.group()], side), True) for signs in (_PLUS, _MINUS)]


def _restated(sides: list[tuple[int, str, bool]], k: int) -> int | None:
    """For ``sides[k]`` the value of a name written on its own line (``y = E_2`` after ``y = E_1``): the index of
    ``E_1``, the last side of the segment before, when that segment starts with the same name; else ``None``."""
    name = "".join(sides[k - 1][1].split())
    if not sides[k][2] or sides[k - 1][2] or k < 2 or not sides[k - 2][2] or not _NAME.fullmatch(name):
        return None
    first = k - 2
    while first > 0 and sides[first][2]:
        first -= 1
    return k - 2 if "".join(sides[first][1].split()) == name and first < k - 2 else None


class _Walk:
    """One walk back from a side with the answer's value (the module docstring's links), within a shared budget."""

    def __init__(self, sides, bound: list[Binding], budget: list[int], licensed=None) -> None:
        self.sides, self.bound, self.budget = sides, bound, budget
        self.licensed = licensed or (lambda problem, text: True)

    def spend(self, *texts: str) -> bool:
        self.budget[0] -= 1
        self.budget[1] -= sum(len(t) for t in texts)
        return self.budget[0] >= 0 and self.budget[1] >= 0

    def values_before(self, j: int, text: str) -> dict[str, Binding] | None:
        """The latest binding of each letter ``text`` writes, bound before side ``j``; None when one is unbound."""
        latest = {b.name: b for b in self.bound if b.at < j}
        names = {n for n in latest if re.search(r"(?<![\\A-Za-z])" + re.escape(n) + r"(?![A-Za-z0-9_])", text)}
        if not names or has_letters(re.sub("|".join(re.escape(n) for n in sorted(names, key=len, reverse=True)),
                                           " ", _COMMAND.sub(" ", text))):
            return None
        return {n: latest[n] for n in names}

    def link(self, j: int, head: str) -> tuple[str, str] | None:
        """``(text, how)`` when side ``j`` (a branch of it) equals ``head``: ``how`` is ``"plain"``, ``"branch"`` or
        ``"letters"``; None when no link verifies or the budget is spent."""
        for text, branched in _branches(self.sides[j][1]):
            if not self.spend(text, head):
                return None
            if not has_letters(text):
                if expressions_equal(text, head).verified:
                    return text, "branch" if branched else "plain"
                continue
            values = self.values_before(j, text)
            if values is not None and equal_under(text, head, {n: b.value for n, b in values.items()}).verified:
                return text, "letters"
        return None

    def back(self, end: int) -> list[tuple[int, str, str]]:
        """The verified chain ending at side ``end``, latest first: ``(side index, text read, how it links on)``."""
        chain = [(end, self.sides[end][1], "plain")]
        k, head = end, self.sides[end][1]
        while k > 0 and self.budget[0] > 0:
            j, how = k - 1, None
            if _NAME.fullmatch(self.sides[j][1]):
                j = _restated(self.sides, k)
                how = "name"
                if j is None:
                    break
            found = self.link(j, head)
            if found is None:
                break
            head = found[0]
            chain.append((j, head, how or found[1]))
            k = j
        return chain


def substituted_answer_step(builder, normalise=None, accept=None, licensed=None):
    """The chain to the builder's irrational answer through a letter, a ``\\pm`` branch or a name written again
    (module docstring), in the shape of :func:`~rewards.evidence.latex_derivations.latex_answer_step`, or ``None``.
    ``normalise``, ``accept`` and ``licensed`` (whether ``\\pi`` and trigonometric functions in a text are ones the
    problem gives reason for) are the radical reader's (:func:`~rewards.evidence.radical_chains.radical_answer_step`).
    Never raises on untrusted text."""
    answer = builder.trace.answer
    if not answer or builder.approx is None:
        return None
    sides = chain_sides(builder.trace.steps, normalise)
    bound = bindings(sides)
    if not bound and not any(PLUS_MINUS.search(s) or "sqrt" in s for _t, s, _l in sides) and \
            not any(_restated(sides, k) is not None for k in range(2, len(sides))):
        return None
    walk = _Walk(sides, bound, [MAX_CHECKS, MAX_PARSE_CHARS], licensed)
    for end in range(len(sides) - 1, 0, -1):
        text = sides[end][1]
        if not answer_digits_in(answer, text) or has_letters(text) or PLUS_MINUS.search(text):
            continue
        if not walk.spend(text) or walk.budget[0] <= 0:
            return None
        if not value_matches(text, builder.approx).verified:
            continue
        chain = walk.back(end)
        found = _start(builder, walk, chain, accept)
        if found is not None:
            first = min(t for t in found[3])
            record_links(builder, [(sides[j][0], text, later, how) for (j, text, how), (_k, later, _h)
                                   in zip(chain[1:], chain) if sides[j][0] >= first])
            return found
    return None


def record_links(builder, links: list[tuple[int, str, str, str]]) -> None:
    """Each verified link ``(step, side, the side it equals, how)`` as a passed check of its step (once), as
    :func:`~rewards.evidence.latex_steps.symbolic_checks` records its links: the step's validity is what was
    checked."""
    for step, a, b, how in links:
        if "".join(a.split()) == "".join(b.split()):
            continue
        check = latex_check([a, b], f"equal ({how} link, sympy through math-verify's parser)")
        if not any(c.equation.sides == check.equation.sides for c in builder.steps[step].checks):
            builder.steps[step].checks.append(check)


def _start(builder, walk: _Walk, chain: list[tuple[int, str, str]], accept):
    """The chain from its earliest side that starts from the problem (module docstring), as ``(step, operands,
    depends, written)``; None when no side does."""
    sides = walk.sides
    ordered = chain[::-1]  # earliest first
    stated = "".join(chain[0][1].split())
    for n in range(len(ordered) - 1):
        later = ordered[n:]
        found = _one_start(builder, walk, later, accept)
        if found is None:
            continue
        written: dict[int, set[Fraction]] = {}
        for i, t, _h in later:
            written.setdefault(sides[i][0], set()).update(v for v, _ in read_numbers(t))
        step = min(sides[i][0] for i, t, _h in later if "".join(t.split()) == stated)
        written.setdefault(step, set()).update(*written.values())  # the answer's step reads the chain's results
        return step, found[0], found[1] | {sides[i][0] for i, _t, _h in later if sides[i][0] != step}, written
    return None


def _one_start(builder, walk: _Walk, later: list[tuple[int, str, str]], accept):
    """``(operands, producer steps)`` when the first side of ``later`` (the chain from there, earliest first)
    starts it: by its bound letters, by the plain reader's rules past a link that reader does not read, or by a
    carried root; else ``None``."""
    j, text, how = later[0]
    step = walk.sides[j][0]
    if has_letters(text):
        return _letter_start(builder, walk, j, text)
    if any(h in ("branch", "name") for _j, _t, h in later[1:]) or how == "branch":
        used = [(walk.sides[i][0], t, walk.sides[i][2]) for i, t, _h in later]
        if accept is None or accept(used):
            return side_start(builder, text, step, builder.trace.answer, builder.approx)
        return None
    return _carried_start(builder, walk, j)


def _letter_start(builder, walk: _Walk, j: int, text: str) -> tuple[list[Fraction], set[int]] | None:
    """``(operands, producer steps)`` when the side ``text`` (at side ``j``), its letters bound, starts from the
    problem (module docstring); else ``None``."""
    values = walk.values_before(j, text)
    if values is None or not walk.licensed(builder.problem, " ".join([text, *(b.value for b in values.values())])):
        return None
    if any(not builder.is_reached(b.key) and _root_chosen(builder, walk, b) is None for b in values.values()):
        return None
    target = approx_key(builder.approx)
    step = walk.sides[j][0]
    operands = side_operands(text)
    if not all(builder.is_reached(v) for v in operands):
        return None
    depends: set[int] = set()
    derived = False
    for b in values.values():
        key = value_key(b.key)
        if b.key == target:
            return None
        producer = builder.producers.get(key)
        if producer is None:
            producer = _root_chosen(builder, walk, b)
        if producer is not None and producer <= step and key not in builder.pnum_keys and key not in BASIC_KEYS:
            depends.add(producer)
            derived = True
    if not derived:
        return None
    return [*operands, *(b.key for b in values.values())], depends


MAX_CARRIED = 40
"""Earlier sides a carried sub-result is looked for among (the last ones before the side)."""


def _carried_start(builder, walk: _Walk, j: int, any_numbers: bool = False) -> tuple[list[Fraction], set[int]] | None:
    r"""``(operands, producer steps)`` when side ``j`` computes with an irrational sub-result an earlier step derived
    and wrote as a side of its own (``2 \times \frac{324}{\pi}`` after ``\pi \cdot \frac{324}{\pi^2} =
    \frac{324}{\pi}``; ``\frac{6\sqrt{5}}{3}`` after ``\sqrt{1^2 + 2^2} = \sqrt{5}``): a sub-result carried into a
    later step, as a letter carries one. Each such piece (derived by the side's step at the latest, not the answer)
    is read as that value; every other number the side writes must be reached, and one of them a number the answer
    does not write (:func:`~rewards.evidence.radical_chains.accepts`' rule: ``2 \cdot \sqrt{5}`` for ``2\sqrt{5}``
    is the answer written around the root); ``\pi`` or a trigonometric function only where the problem gives reason
    for it. Irrational pieces that are no such result (``\sqrt{7}`` from nowhere) leave the side unread."""
    step, text = walk.sides[j][0], walk.sides[j][1]
    rest = "".join(text.split())
    target = approx_key(builder.approx)
    keys, depends = [], set()
    pieces = {"".join(t.split()) for _s, t, _l in walk.sides[max(0, j - MAX_CARRIED):j]}
    for piece in sorted(pieces, key=len, reverse=True):
        if len(piece) < 4 or piece not in rest or has_letters(piece) or PLUS_MINUS.search(piece):
            continue
        value = evaluate(piece)
        if value is None or value.is_exact:
            continue
        key = approx_key(value.approx)
        producer = builder.producers.get(key)
        if key == target or producer is None or producer > step or not builder.is_reached(key):
            continue
        rest = rest.replace(piece, " ")
        keys.append(key)
        depends.add(producer)
    operands = side_operands(rest)
    own = {Fraction(n) for n in re.findall(r"\d+", builder.trace.answer)} | {Fraction(1)}
    if not keys or (all(v in own for v in operands) and not any_numbers) or \
            not all(builder.is_reached(v) for v in operands) or \
            re.search(r"\\(?:sqrt|pi)", rest) or not walk.licensed(builder.problem, text):
        return None  # "2 \cdot \sqrt{5}" for 2\sqrt{5}: the answer written around the root, nothing computed
    return [*operands, *keys], depends


MAX_PLUS_MINUS_LINKS = 6
"""``\\pm`` links read per trace by :func:`plus_minus_links` (two comparisons each)."""


def plus_minus_links(builder) -> None:
    r"""The quadratic formula written over several lines: ``y_0 = \frac{-(-6) \pm \sqrt{(-6)^2 - 4(1)(4)}}{2(1)}``,
    then ``= \frac{6 \pm \sqrt{36 - 16}}{2}``. The equation reader checks a ``\pm`` chain within one equation
    (:mod:`rewards.checks.plus_minus`); here two consecutive sides of a chain (the later one linked: the same
    segment, or one that starts with ``=``), both writing ``\pm``, whose ``+`` branches and whose ``-`` branches are
    both equal (:func:`~rewards.checks.latex_algebra.expressions_equal`), and the first side's numbers all reached,
    make the later side's numbers reached results of its step, no numbers from nowhere. A side with letters links
    nothing (``\frac{-b \pm \sqrt{b^2 - 4ac}}{2a}`` then ``\frac{7 \pm \sqrt{13}}{2}``: no coefficient of the problem
    put in), nor does a first side with a number nothing reached. Only support is added. At most
    :data:`MAX_PLUS_MINUS_LINKS` links and :data:`MAX_PARSE_CHARS` characters parsed per trace."""
    if not any(PLUS_MINUS.search(text) for text in builder.trace.steps):
        return
    sides = chain_sides(builder.trace.steps)
    budget = [MAX_PLUS_MINUS_LINKS * 2, MAX_PARSE_CHARS]
    for k in range(1, len(sides)):
        (step_a, a, _), (step, b, linked) = sides[k - 1], sides[k]
        if not linked or not (PLUS_MINUS.search(a) and PLUS_MINUS.search(b)) or has_letters(a) or has_letters(b):
            continue
        first = side_operands(a)
        if not first or not all(builder.is_reached(v) for v in first):
            continue
        pairs = list(zip(_branches(a), _branches(b)))  # + with +, - with -
        if not all(_spend(budget, x, y) and expressions_equal(x, y).verified for (x, _), (y, _) in pairs):
            if budget[0] <= 0 or budget[1] <= 0:
                return
            continue
        values = [v for v, _ in read_numbers(b)]
        builder.strict.update(value_key(v) for v in values)
        record_links(builder, [(step, a, b, "plus-minus")])
        flow = builder.steps[step]
        flow.stray = [v for v in flow.stray if v not in values]
        flow.ungrounded = [v for v in flow.ungrounded if v not in values]
        flow.unsupported = [v for v in flow.unsupported if v not in values]
        if step_a != step:
            flow.depends_on.add(step_a)


def _spend(budget: list[int], *texts: str) -> bool:
    budget[0] -= 1
    budget[1] -= sum(len(t) for t in texts)
    return budget[0] >= 0 and budget[1] >= 0


def _root_chosen(builder, walk: _Walk, b: Binding) -> int | None:
    r"""The step of ``name^2 = … = V`` just before the binding ``name = value`` (the segment before it), when ``V``
    is a number a verified step reached and ``value^2 = V`` (:func:`~rewards.checks.latex_algebra.expressions_equal`):
    ``c^2 = a^2 + b^2 = 5``, so ``c = \sqrt{5}``, a root chosen; else ``None``."""
    sides = walk.sides
    first = b.at
    while first > 0 and sides[first][2]:
        first -= 1  # the binding's name
    if first < 2 or not sides[first - 1][2]:
        return None
    square = first - 1
    while square > 0 and sides[square][2]:
        square -= 1
    name = "".join(sides[square][1].split())
    value = sides[first - 1][1]
    if name not in (b.name + "^2", b.name + "^{2}") or has_letters(value):
        return None
    number = evaluate(value)
    if number is None or not number.is_exact or not builder.is_reached(number.exact) or \
            not walk.spend(value, b.value) or not expressions_equal(f"({b.value})^{{2}}", value).verified:
        return None
    return sides[first - 1][0]


MAX_CHAIN_LINKS = 12
"""Links :func:`derive_chains` checks per trace."""


def derive_chains(builder, licensed) -> None:
    r"""Irrational sub-results of verified LaTeX chains, for a trace whose answer is irrational: a segment ``A = \pi
    \left(\frac{18}{\pi}\right)^2 = \pi \cdot \frac{324}{\pi^2} = \frac{324}{\pi}`` whose first expression computes
    from reached numbers and sub-results derived before (``\frac{18}{\pi}``, a step's result) and whose links verify
    (:func:`~rewards.checks.latex_algebra.expressions_equal`) derives each irrational value it writes at its step, so
    that a later step may carry it (``2 \times \frac{324}{\pi} = \frac{648}{\pi}``; :func:`_carried_start`). A first
    expression with a number nothing reached, a letter, a decimal, or ``\pi`` the problem gives no reason for
    derives nothing (``licensed``: :func:`~rewards.evidence.radical_chains.constants_licensed`); a link that does
    not verify ends the segment's results. Only support is added. At most
    :data:`MAX_CHAIN_LINKS` links and :data:`MAX_PARSE_CHARS` characters parsed per trace."""
    if builder.approx is None:
        return
    from rewards.checks.latex_algebra import braced_arguments, bracketed_trig_arguments

    sides = chain_sides(builder.trace.steps, lambda side: "" if "." in side else
                        bracketed_trig_arguments(braced_arguments(side)))
    walk = _Walk(sides, [], [MAX_CHAIN_LINKS, MAX_PARSE_CHARS], licensed)
    j = 0
    while j < len(sides) and walk.budget[0] > 0:
        end = j + 1
        while end < len(sides) and sides[end][2]:
            end += 1  # sides[j:end]: one segment
        first = j + 1 if LONE_NAME.fullmatch(sides[j][1]) or _NAME.fullmatch(sides[j][1]) else j
        if end - first >= 2 and not has_letters(sides[first][1]) and _computes_from_reached(builder, walk, first):
            for k in range(first + 1, end):
                if has_letters(sides[k][1]) or not walk.spend(sides[k - 1][1], sides[k][1]) or \
                        not expressions_equal(sides[k - 1][1], sides[k][1]).verified:
                    break
                value = evaluate(sides[k][1])
                if value is not None and not value.is_exact and math.isfinite(value.approx):
                    key = approx_key(value.approx)
                    builder.producers.setdefault(key, sides[k][0])
                    builder.strict.add(key)
        j = end


def _computes_from_reached(builder, walk: _Walk, j: int) -> bool:
    """Whether side ``j`` computes from reached numbers, or with a sub-result derived before it
    (:func:`_carried_start`'s reading, without its rule about the answer's own numbers)."""
    text = walk.sides[j][1]
    operands = side_operands(text)
    if operands and all(builder.is_reached(v) for v in operands) and computes([text], len(operands)) and \
            walk.licensed(builder.problem, text):
        return True
    return _carried_start(builder, walk, j, any_numbers=True) is not None
