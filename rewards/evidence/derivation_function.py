r"""A derivation is a function of the problem's quantities: the answer's derivation read as ``f(q_1..q_n)``.

The value-keyed dataflow (:mod:`rewards.evidence`) says which steps derive the answer; this module reads
those steps again and builds the answer as an expression in one symbol per *quantity the problem states* (each
numeral of the problem, in order: "16 eggs", "three", "four", "$2" are ``q0..q3``; a value the problem implies —
"weekdays" 5, "a regular octagon" 8 — gets its own). Every literal occurrence on the way is linked to where it came
from, once, where it is read:

* a result an earlier step derived (the latest such step) -> that step's expression;
* a problem quantity -> its symbol (a value the problem states twice has two symbols: a later expression prefers
  the occurrence used least so far; within one expression a value is read one way);
* a value that is only a transform of one of these — ``100q``, ``q/100``, ``-q``, a percent's ``1 ± q/100`` and
  ``100 ± q`` — -> that transform (the basic and common constants, 0–4, 10, 100, 7, 12, 60 …, are never read as
  transforms, except 100 times a literal the same side writes: ``10 · 100 / 1000``);
* a basic or common constant (0–4, 10, 100, ½, 7, 12, 60 …) or a unit factor a word names (36 inches in a yard)
  -> the number itself (a free constant);
* anything else has a source this reading cannot name (an algebra step, a rewrite): the step is opaque.

Downstream, an occurrence *is* its source's expression: nothing is matched by value again, so a derived 1600 that
is ``100·16`` follows 16 when 16 is edited, and ``16 · 100 / 1600`` is the constant 1 it is. A value an earlier step
derived is that value; the problem's equal quantity is another reading only where the side writes the value twice
(``10 - 8 = 2``, then ``2 / 2``). Where a literal has several sources (two earlier steps derived it; the problem
states it twice; a derived 100 and the 100 of a percent) the other readings are tried too (at most
:data:`MAX_READINGS`), and a derivation is degenerate only when every reading is. A step written again computes what
it computed the first time; ``60 / 60`` with 60 a unit a word names divides by the unit.

The operand sides are parsed from the arithmetic checker's tokens (:func:`rewards.checks.arithmetic.tokens.tokenize`)
by a small bounded recursive descent over ``+ - * /``, ``×``, ``\cdot``, ``\frac``, brackets, ``%`` and whole
exponents — never ``eval`` or ``sympify`` of text. A side it cannot read (roots, functions, ``\pi``, a variable)
makes that step *opaque*: an answer that depends on an opaque step has no function (``None``: no evidence either
way), and so has a trace over :data:`MAX_NODES` nodes.

**Degeneracy** (:attr:`DerivationFunction.degenerate`), decided exactly by evaluating the expression graph at
random points modulo the prime ``2^61 - 1`` (a non-zero rational function of degree ``d`` vanishes at a random
point with probability at most ``d / p``: Schwartz–Zippel; the points are seeded, so the verdict is deterministic):

* ``constant`` — ``f`` is written from the problem's quantities but depends on none (ones times digits;
  ``T - T + K``; a derivation that writes no quantity at all has no function here);
* ``copied`` — ``f`` is one quantity while the derivation writes others, or writes it again (``q · T / T``;
  ``15 · 15 / 15``; ``6 · 2 = 12``, then ``18 · 12 / 12``);
* ``cancelling`` — a sub-expression, or a run of consecutive terms of a sum, written from the problem's quantities
  is a constant (``16 · 100 / 1600``; a disguised zero ``18 + 2 · 300 / 3 - 200``): a constant is a constant
  whatever it is written from (a product with a written zero, "6 hats with no stripes: 6 · 0", is no disguise).

The last derivation of the answer decides (an earlier one where the last cannot be read), and an earlier derivation
with a disguised constant makes it degenerate too. On a competition problem (LaTeX, or an expression of its own:
:func:`_given_expression`) only a constant product counts, since the problem's own expressions cancel by design
(``5^1 - 5^3 + 5^3``). Algebra on the way (:class:`~rewards.evidence.AlgebraLink`) or a derivation that writes
no problem quantity gives no function.

A quantity written on the way that cancels across steps (``20 - 5 = 15``, ``12 + 15 = 27``, ``27 - 20 = 7``: the
answer does not depend on the 20) is *unused* (:attr:`DerivationFunction.cancelled`), not degenerate: honest
solutions do that with a distractor, so the caller weighs it as a quantity the derivation does not use.

:meth:`DerivationFunction.at` recomputes the answer under an edit of the quantities through the function;
:meth:`DerivationFunction.expr` gives it as a ``sympy`` expression (built from the graph, simplified with
``sympy.cancel`` only when small).

>>> from rewards.parsing.trace import parse_trace
>>> from rewards.evidence import build_dataflow
>>> p = "Janet's ducks lay 16 eggs. She eats 3 and bakes with 4. She sells the rest at $2 each. How much?"
>>> t = parse_trace(p, "16 - 3 - 4 = 9 eggs.\n9 * 2 = 18 dollars.\n#### 18")
>>> f = derivation_function(t, build_dataflow(t))
>>> f.degenerate, str(f.expr()), [f.label(i) for i in sorted(f.used)]
(None, 'q0*q3 - q1*q3 - q2*q3', ['16', '3', '4', '2'])
>>> f.at({0: 17})
Fraction(20, 1)
>>> t = parse_trace(p, "16 + 16 * 100 / 1600 * 2 = 18\n#### 18")
>>> derivation_function(t, build_dataflow(t)).degenerate
"cancelling: 16 * 100 / 1600 is the constant 1, written from the problem's 16"

"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from fractions import Fraction

from rewards.checks.arithmetic import numbers_in
from rewards.checks.arithmetic.budget import MAX_DEPTH
from rewards.evidence.model import Dataflow
from rewards.evidence.paths import answer_derivations
from rewards.evidence.propagation import derivation_entries
from rewards.evidence.quantities import value_key
from rewards.evidence.readings import (MAX_READINGS, MAX_SYMPY_OPS, PRIME, Quantities, Reading, SAMPLE_POINTS,
                                       problem_quantities, render_number)
from rewards.evidence.side_reader import Unreadable, literal_keys, parse_side
from rewards.parsing.trace import Trace


# ------------------------------------------------------------------------------------------------ evaluation
def _inverse(x: int) -> int:
    if x == 0:
        raise ZeroDivisionError
    return pow(x, -1, PRIME)


def _mod(q: Fraction) -> int:
    return q.numerator % PRIME if q.denominator == 1 else q.numerator % PRIME * _inverse(q.denominator % PRIME) % PRIME


def _evaluate(r: Reading, order: list[int], points: list[list[int]]) -> dict[int, list[int]] | None:
    """Every node of ``order`` at every point (one value mod p per symbol), one list per node with a value per
    point; ``None`` on a division by zero."""
    out: dict[int, list[int]] = {}
    kind, a, b = r.kind, r.a, r.b
    width = range(len(points))
    try:
        for n in order:
            k = kind[n]
            if k == "q":
                i = a[n]
                out[n] = [p[i] for p in points]
            elif k == "c":
                out[n] = [_mod(a[n])] * len(points)
            elif k == "+":
                x, y = out[a[n]], out[b[n]]
                out[n] = [(x[c] + y[c]) % PRIME for c in width]
            elif k == "-":
                x, y = out[a[n]], out[b[n]]
                out[n] = [(x[c] - y[c]) % PRIME for c in width]
            elif k == "*":
                x, y = out[a[n]], out[b[n]]
                out[n] = [x[c] * y[c] % PRIME for c in width]
            elif k == "/":
                x, y = out[a[n]], out[b[n]]
                out[n] = [x[c] * pow(y[c], -1, PRIME) % PRIME for c in width]
            elif k == "neg":
                out[n] = [-v % PRIME for v in out[a[n]]]
            else:
                e = b[n]
                out[n] = [pow(v, e, PRIME) if e >= 0 else pow(_inverse(v), -e, PRIME) for v in out[a[n]]]
    except (ZeroDivisionError, ValueError):  # pow(0, -1, p) raises ValueError
        return None
    return out


def _reachable(r: Reading, root: int) -> list[int]:
    """The nodes ``root`` is built from, children first."""
    seen = set()
    stack = [root]
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        k = r.kind[n]
        if k in ("q", "c"):
            continue
        stack.append(r.a[n])
        if k not in ("neg", "^"):
            stack.append(r.b[n])
    return sorted(seen)


def _render(r: Reading, n: int, depth: int = 0) -> str:
    """A node as text (``16 * 100 / 1600``), literals as written values."""
    k = r.kind[n]
    if n in r.literals:
        return r.literals[n]
    if k in ("q", "c") or depth > 12:
        return render_number(r.value[n])
    if k == "neg":
        return f"-({_render(r, r.a[n], depth + 1)})"
    if k == "^":
        return f"({_render(r, r.a[n], depth + 1)})^{r.b[n]}"
    left, right = _render(r, r.a[n], depth + 1), _render(r, r.b[n], depth + 1)
    ka = "c" if r.a[n] in r.literals else r.kind[r.a[n]]
    kb = "c" if r.b[n] in r.literals else r.kind[r.b[n]]
    if k in "*/" and ka in "+-":
        left = f"({left})"
    if (k in "*/" and kb in "+-") or (k in "-/" and kb == k) or (k == "/" and kb == "*"):
        right = f"({right})"
    return f"{left} {k} {right}"


def _times_zero(r: Reading, n: int) -> bool:
    """``6 * 0``, ``0 / 4``: a product with a written zero is zero honestly ("six hats with no stripes")."""
    k = r.kind[n]
    if k not in ("*", "/"):
        return False
    zero = [r.a[n]] if k == "/" else [r.a[n], r.b[n]]
    return any(r.kind[c] == "c" and r.value[c] == 0 for c in zero)


_CLASS = {"+": "+", "-": "+", "*": "*", "/": "*"}
MAX_RUN_TERMS = 24
"""A sum or product of more terms than this (in one written expression) is not searched for constant runs."""


def _flatten(r: Reading, n: int, cls: str, sign: int, entry: int, out: list, depth: int = 0) -> None:
    """The terms (``+``) or factors (``*``) of node ``n`` written in one expression, with their signs
    (``-1``: taken away / divided by)."""
    k = r.kind[n]
    if depth < MAX_DEPTH and _CLASS.get(k) == cls and n not in r.literals and r.entry[n] == entry \
            and not _times_zero(r, n):
        _flatten(r, r.a[n], cls, sign, entry, out, depth + 1)
        _flatten(r, r.b[n], cls, -sign if k in "-/" else sign, entry, out, depth + 1)
    else:
        out.append((sign, n))


def _constant_runs(r: Reading, order: list[int], values: dict[int, list[int]], classes: str = "+*",
                   identities: set[int] | None = None):
    """Consecutive terms of a written sum, or factors of a written product, that are written from the problem's
    quantities and together make a constant: ``(text, value, symbols)`` for each such run.

    * sums (``"+"`` in ``classes``): ``18 + 2 * 300 / 3 - 200``: ``2 * 300 / 3 - 200`` is 0, though no node of the
      left-to-right reading is that zero;
    * products (``"*"``): only a run with a literal read as a transform of what it cancels against
      (``2 * 1400 / 14``: ``1400 / 14`` is ``100 · q / q``, the constant 100, whatever the multiplier 2 is read as);
      a product of plain quantities written out (``x / 2 * 2``) is no disguise.
    """
    inner = set()
    for n in order:
        cls = _CLASS.get(r.kind[n])
        if cls is None or n in r.literals or _times_zero(r, n):
            continue
        for c in (r.a[n], r.b[n]):
            if _CLASS.get(r.kind[c]) == cls and r.entry[c] == r.entry[n] and c not in r.literals:
                inner.add(c)
    for n in order:
        cls = _CLASS.get(r.kind[n])
        if cls is None or cls not in classes or n in inner or n in r.literals or _times_zero(r, n):
            continue
        terms: list[tuple[int, int]] = []
        _flatten(r, n, cls, 1, r.entry[n], terms)
        if not 3 <= len(terms) <= MAX_RUN_TERMS:
            continue
        for i in range(len(terms) - 1):
            for j in range(i + 2, len(terms) + 1):
                if j - i == len(terms):
                    continue  # the whole expression: checked as a node
                run = terms[i:j]
                if cls == "*" and not any(t in r.transformed and r.syms[t] for _, t in run):
                    continue
                syms = frozenset().union(*(r.syms[t] for _, t in run))
                if not syms:
                    continue
                if identities is not None and cls == "*" and len(run) == 2 and all(r.kind[t] == "^" for _, t in run) \
                        and r.b[run[0][1]] == r.b[run[1][1]] >= 2 and run[0][0] != run[1][0] \
                        and syms <= frozenset().union(*(r.syms[t] for _, t in terms[:i] + terms[j:])) \
                        and _combine_exact(cls, run, r.value) == 1:
                    continue  # q^k / q^k whose q the rest of the product writes (_identity_factors)
                at = [_combine(cls, run, values, c) for c in range(SAMPLE_POINTS)]
                if None not in at and all(x == at[0] for x in at):
                    exact = _combine_exact(cls, run, r.value)
                    if exact is not None:
                        yield _render_run(r, cls, run), exact, syms


def _identity_factors(r: Reading, order: list[int]) -> set[int]:
    r"""Nodes that are a factor ``q^k / q^k`` (one power over itself, ``k >= 2``) of a product (or its divisor) whose
    other factor writes every problem quantity they write, on a competition problem (the lenient reading; a plain
    ``q / q`` stays a disguise, ``2 / 2 \cdot 2 \cdot 3``): ``\frac{21}{2^2 \cdot 5^7} \cdot \frac{2^5}{2^5}``, a
    multiply-by-one that changes the form (here to a power of 10), not a disguise. Without such a factor the function is the same and writes the same quantities, so
    it is judged as the derivation without it would be: a construction gains nothing by it, while ``16 \cdot 100 /
    1600`` beside a ``2`` (no 16 there) or ``4 / 4 \cdot 10`` stays a constant written from the problem."""
    out = set()
    for p in order:
        k = r.kind[p]
        if k == "*":
            pairs = ((r.a[p], r.b[p]), (r.b[p], r.a[p]))
        elif k == "/":
            pairs = ((r.b[p], r.a[p]),)
        else:
            continue
        for n, other in pairs:
            if r.kind[n] == "/" and r.kind[r.a[n]] == r.kind[r.b[n]] == "^" and r.b[r.a[n]] == r.b[r.b[n]] >= 2 \
                    and r.syms[n] and r.value[n] == 1 and r.syms[n] <= r.syms[other]:
                out.add(n)
    return out


def _combine(cls: str, run, values: dict[int, list[int]], column: int) -> int | None:
    total = 0 if cls == "+" else 1
    for sign, t in run:
        x = values[t][column]
        if cls == "+":
            total = (total + sign * x) % PRIME
        elif sign > 0:
            total = total * x % PRIME
        elif x == 0:
            return None
        else:
            total = total * _inverse(x) % PRIME
    return total


def _combine_exact(cls: str, run, value: list[Fraction]) -> Fraction | None:
    total = Fraction(0 if cls == "+" else 1)
    for sign, t in run:
        if cls == "+":
            total += sign * value[t]
        elif sign > 0:
            total *= value[t]
        elif value[t] == 0:
            return None
        else:
            total /= value[t]
    return total


def _render_run(r: Reading, cls: str, run) -> str:
    out = []
    for k, (sign, t) in enumerate(run):
        text = _render(r, t)
        if r.kind[t] in "+-" and t not in r.literals and (cls == "*" or sign < 0):
            text = f"({text})"
        op = ("+" if sign > 0 else "-") if cls == "+" else ("*" if sign > 0 else "/")
        out.append(text if k == 0 and sign > 0 else (f"{op} {text}" if k else f"{op}{text}" if cls == "+"
                                                      else f"1 / {text}"))
    return " ".join(out)


def _sample(r: Reading, order: list[int], written: list[int]) -> tuple[list[list[int]], dict[int, list[int]]] | None:
    """``(base points, values of every node in order)``: :data:`SAMPLE_POINTS` random points, then for each written
    quantity two of them with that quantity alone moved (three seeds tried); ``None`` when none could be evaluated."""
    for attempt in range(3):
        rng = random.Random(0x5EED + attempt)
        base = [[rng.getrandbits(60) + 2 for _ in range(len(r.qs.values))] for _ in range(SAMPLE_POINTS)]
        points = list(base)
        for i in written:
            for p in base[:2]:
                moved = list(p)
                moved[i] = (p[i] + rng.getrandbits(60) + 1) % PRIME
                points.append(moved)
        vals = _evaluate(r, order, points)
        if vals is not None:
            return base, vals
    return None


def _verdict(r: Reading, root: int, lenient: bool = False) -> tuple[str | None, frozenset[int], frozenset[int]] | None:
    """``(degenerate reason or None, written symbols, used symbols)`` of the node ``root``; ``None`` when no point
    could be evaluated. Columns: :data:`SAMPLE_POINTS` random points, then for each written quantity two of them with that
    quantity alone moved."""
    order = _reachable(r, root)
    written = sorted(r.syms[root])
    sampled = _sample(r, order, written)
    if sampled is None:
        return None
    base, vals = sampled
    if not written:
        return None  # no problem quantity this reading links to the answer (a counting or factoring rule of the
        # dataflow, prose between steps): no function, the dataflow's own reading stands
    at = vals[root]
    quoted = ", ".join(r.qs.labels[i] for i in written)
    identities = _identity_factors(r, order) if lenient else set()
    if lenient:  # the problem's own expression may cancel by design (5^1 - 5^3 + 5^3): only a product written
        for n in order:  # from quantities that is a constant (16 * 100 / 1600, 4 / 4) is no derivation there
            if r.kind[n] in ("*", "/") and r.syms[n] and n not in r.literals and not _times_zero(r, n) \
                    and vals[n][0] == vals[n][1] == vals[n][2] and n not in identities:
                return (f"cancelling: {_render(r, n)} is the constant {render_number(r.value[n])}, written from the "
                        f"problem's {', '.join(r.qs.labels[i] for i in sorted(r.syms[n]))}", frozenset(written),
                        frozenset())
        for run, constant, syms in _constant_runs(r, order, vals, "*", identities):  # "5 * 400 / 4": 400 / 4 is 100
            return (f"cancelling: {run} is the constant {render_number(constant)}, written from the problem's "
                    f"{', '.join(r.qs.labels[i] for i in sorted(syms))}", frozenset(written), frozenset())
        used = {i for k, i in enumerate(written)
                if at[SAMPLE_POINTS + 2 * k] != at[0] or at[SAMPLE_POINTS + 2 * k + 1] != at[1]}
        return None, frozenset(written), frozenset(used)
    if at[0] == at[1] == at[2]:
        return (f"constant: the answer {render_number(r.value[root])} is the same whatever the problem's quantities are",
                frozenset(written), frozenset())
    for i in written:  # "18 * 12 / 12", "15 * 15 / 15": other quantities, or this one again, written around it
        if i >= r.qs.stated:
            continue  # a value the problem only implies ("every tenth pot": 10) is no quantity it gives to copy
        if (len(written) > 1 or sum(r.kind[n] == "q" and r.a[n] == i for n in order) > 1) \
                and all(at[c] == base[c][i] for c in range(SAMPLE_POINTS)):
            return (f"copied: the answer is the problem's {r.qs.labels[i]} passed through, whatever else it is "
                    f"written with ({quoted})", frozenset(written), frozenset((i,)))
    for n in order:  # a constant written from quantities: 16 * 100 / 1600, 2 * 300 / 3 - 200
        if r.kind[n] in ("q", "c") or not r.syms[n] or n in r.literals or _times_zero(r, n):
            continue
        v = vals[n]
        if v[0] == v[1] == v[2] and n not in identities:
            return (f"cancelling: {_render(r, n)} is the constant {render_number(r.value[n])}, written from the problem's "
                    f"{', '.join(r.qs.labels[i] for i in sorted(r.syms[n]))}", frozenset(written), frozenset())
    for run, constant, syms in _constant_runs(r, order, vals):  # "... + 2 * 300 / 3 - 200", "2 * 1400 / 14"
        return (f"cancelling: {run} is the constant {render_number(constant)}, written from the problem's "
                f"{', '.join(r.qs.labels[i] for i in sorted(syms))}", frozenset(written), frozenset())
    # a quantity that cancels across steps is written but unused (weighed by the caller, not degenerate)
    used = {i for k, i in enumerate(written)
            if at[SAMPLE_POINTS + 2 * k] != at[0] or at[SAMPLE_POINTS + 2 * k + 1] != at[1]}
    return None, frozenset(written), frozenset(used)


# ------------------------------------------------------------------------------------------------ the function
@dataclass(frozen=True)
class DerivationFunction:
    """The answer's derivation as a function of the problem's quantities.

    Attributes:
        degenerate: why it is no derivation (``constant: …``, ``copied: …``, ``cancelling: …``), ``None`` when it
            is one: every quantity it writes moves it and no part written from quantities is a constant.
        written: the symbols (indices into :attr:`values`) the derivation writes.
        used: the symbols the answer depends on.
        values: each symbol's value in the problem.
        labels: each symbol as the problem writes it (``"16"``, ``"three"``, ``"5 (implied)"``).
        answer: the value the derivation computes.
        readings: how many linkings of ambiguous literals were tried.
    """

    degenerate: str | None
    written: frozenset[int]
    used: frozenset[int]
    values: tuple[Fraction, ...]
    labels: tuple[str, ...]
    answer: Fraction
    readings: int = 1
    _graph: tuple = field(default=(), repr=False, compare=False)
    alternatives: tuple = field(default=(), repr=False, compare=False)
    """Other readings of the same derivation that are no degenerate ones either (a literal with several sources
    linked to another of them: a value two steps derived, a derived value equal to a problem number), each a
    :class:`DerivationFunction`; filled only when :func:`derivation_function` is asked for them."""

    def all_readings(self) -> tuple["DerivationFunction", ...]:
        """This reading, then :attr:`alternatives`."""
        return (self, *self.alternatives)

    def label(self, i: int) -> str:
        return self.labels[i]

    @property
    def cancelled(self) -> frozenset[int]:
        """The quantities written on the way that the answer does not depend on."""
        return self.written - self.used

    def used_values(self) -> frozenset[Fraction]:
        """The values of the quantities the answer depends on."""
        return frozenset(self.values[i] for i in self.used)

    def at(self, edits: dict[int, Fraction | int]) -> Fraction | None:
        """The answer with quantities edited (``{symbol: new value}``), recomputed exactly through the function;
        ``None`` on a division by zero or past the size bound."""
        kind, a, b, root = self._graph
        values = list(self.values)
        for i, v in edits.items():
            values[i] = Fraction(v)
        out: dict[int, Fraction] = {}
        try:
            for n in sorted(_nodes(kind, a, b, root)):
                k = kind[n]
                if k == "q":
                    out[n] = values[a[n]]
                elif k == "c":
                    out[n] = a[n]
                elif k == "+":
                    out[n] = out[a[n]] + out[b[n]]
                elif k == "-":
                    out[n] = out[a[n]] - out[b[n]]
                elif k == "*":
                    out[n] = out[a[n]] * out[b[n]]
                elif k == "/":
                    out[n] = out[a[n]] / out[b[n]]
                elif k == "neg":
                    out[n] = -out[a[n]]
                else:
                    out[n] = out[a[n]] ** b[n]
                x = out[n]
                if max(x.numerator.bit_length(), x.denominator.bit_length()) > 4096:
                    return None
        except ZeroDivisionError:
            return None
        return out[root]

    def expr(self):
        """The function as a ``sympy`` expression in ``q0, q1, …`` (built node by node from the graph, never from
        text; ``sympy.cancel`` when it has at most :data:`MAX_SYMPY_OPS` operations)."""
        import sympy

        kind, a, b, root = self._graph
        symbols = sympy.symbols(f"q0:{len(self.values)}") if self.values else ()
        out: dict[int, object] = {}
        for n in sorted(_nodes(kind, a, b, root)):
            k = kind[n]
            if k == "q":
                out[n] = symbols[a[n]]
            elif k == "c":
                out[n] = sympy.Rational(a[n].numerator, a[n].denominator)
            elif k == "+":
                out[n] = sympy.Add(out[a[n]], out[b[n]])
            elif k == "-":
                out[n] = sympy.Add(out[a[n]], sympy.Mul(-1, out[b[n]]))
            elif k == "*":
                out[n] = sympy.Mul(out[a[n]], out[b[n]])
            elif k == "/":
                out[n] = sympy.Mul(out[a[n]], sympy.Pow(out[b[n]], -1))
            elif k == "neg":
                out[n] = sympy.Mul(-1, out[a[n]])
            else:
                out[n] = sympy.Pow(out[a[n]], b[n])
        e = out[root]
        return sympy.cancel(e) if sympy.count_ops(e) <= MAX_SYMPY_OPS else e


def _nodes(kind, a, b, root) -> set[int]:
    seen, stack = set(), [root]
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        if kind[n] not in ("q", "c"):
            stack.append(a[n])
            if kind[n] not in ("neg", "^"):
                stack.append(b[n])
    return seen


def _read(trace: Trace, flow: Dataflow, plan, roots: list[tuple[int, Fraction]], qs: Quantities,
          choices: tuple[int, ...]) -> tuple[Reading, list[int | None]]:
    """One reading of the steps up to the last root: the node of each root (``None`` where opaque)."""
    r = Reading(qs, flow.units, choices)
    last = max(t for t, _ in roots)
    wanted = {(t, value_key(v)) for t, v in roots}
    found: dict[tuple[int, Fraction], int | None] = {}
    repeated: dict[str, list[tuple[Fraction, int]]] = {}  # a step's text -> what it produced
    for k in range(last + 1):
        r.stray = frozenset(value_key(v) for v in flow.steps[k].unsupported) if flow.steps[k].unsupported \
            else frozenset()
        r.fresh = {}
        text = " ".join(trace.steps[k].split()) if k < len(trace.steps) else ""
        again = repeated.get(text) if "=" in text else None
        if again is not None:  # a step written again computes what it computed the first time
            produced = list(again)
        else:
            produced = _read_step_entries(r, plan[k], trace.steps[k] if k < len(trace.steps) else "")
            if text:
                repeated[text] = produced
        _record_producers(r, k, produced, flow.steps[k].produced, wanted, found)
    return r, [found.get((t, value_key(v))) for t, v in roots]


def _read_step_entries(r: Reading, entries, step: str) -> list:
    """What one step produces, read in the order the step writes its derivations: ``(value, node)`` pairs. An
    equation the step writes again ("14*0=<<14*0=0>>0") computes what it computed the first time (its 0 is not read
    as its own result); a value derived earlier in the same step is that value ("6 / 2 = 3 tomatoes a day. In a week
    3 * 7 = 21": not the problem's equal 3), kept in ``r.fresh``."""
    produced: list = []
    written: dict[tuple, list] = {}
    for sides, value, kind in _in_text_order(entries, step):
        again = (tuple("".join(side.split()) for side in sides), value_key(value))
        if again in written:
            produced.extend(written[again])
            continue
        read = written[again] = _read_entry(r, sides, value, kind)
        produced.extend(read)
        for v, node in read:
            if node >= 0:
                key = value_key(v)
                r.fresh[key] = [node, *[n for n in r.fresh.get(key, ()) if n != node]][:4]
    return produced


def _in_text_order(entries, step: str) -> list:
    """A step's derivations in the order the step writes them (a GSM8K annotation is listed before the plain
    equations beside it: "10-2=8 ... 6+5+10+8=<<6+5+10+8=29>>29"), so that a value derived earlier in the step is
    read as derived where a later equation of the step uses it; a derivation whose side is not found verbatim keeps
    its place after the one before it."""
    if len(entries) < 2:
        return list(entries)
    keyed, last = [], -1
    for n, entry in enumerate(entries):
        at = _position(step, entry[0][0]) if entry[0] and entry[0][0] else -1
        last = at if at >= 0 else last
        keyed.append((last, n, entry))
    return [entry for _, _, entry in sorted(keyed, key=lambda x: (x[0], x[1]))]


def _position(step: str, side: str) -> int:
    """Where ``side`` is first written in ``step`` as a whole (not inside a longer number: ``25 ÷ 5`` is not the
    tail of ``125 ÷ 5``); -1 when it is not."""
    at = step.find(side)
    while at >= 0:
        before = step[at - 1:at]
        after = step[at + len(side):at + len(side) + 1]
        if not (before.isdigit() or before in ".,") and not (side[-1:].isdigit() and after.isdigit()):
            return at
        at = step.find(side, at + 1)
    return -1


def _read_entry(r: Reading, sides, value: Fraction, kind: str) -> list[tuple[Fraction, int]]:
    """What one derivation of a step produces in reading ``r``: ``(value, node)`` pairs, node -1 where opaque."""
    if kind not in ("computed", "evaluated"):  # algebra, a congruence: every number of the equation may come from it
        return [*((number, -1) for side in sides for number, _ in numbers_in(side)[:32]), (value, -1)]
    node = _side_node(r, sides, value)
    return [(value, -1 if node is None else node)]


def _side_node(r: Reading, sides, value: Fraction) -> int | None:
    """The node of the first operand side that reads, within the bounds, to ``value`` (what a side that does not
    build is taken back); None when none does."""
    for side in sides:
        ast = parse_side(side)
        if ast is None:
            continue
        mark = (len(r.kind), dict(r.uses))
        try:
            r.current += 1
            r.fixed, r.here = {}, literal_keys(ast)
            candidate = r.build_side(ast)
        except (Unreadable, ZeroDivisionError, OverflowError):
            candidate = None
        if candidate is not None and r.value[candidate] == value:
            return candidate
        del r.kind[mark[0]:], r.a[mark[0]:], r.b[mark[0]:], r.value[mark[0]:], r.syms[mark[0]:], r.entry[mark[0]:]
        r.consts = {key: c for key, c in r.consts.items() if c < mark[0]}
        r.uses = mark[1]
        r.literals = {n: text for n, text in r.literals.items() if n < mark[0]}
        r.transformed = {n for n in r.transformed if n < mark[0]}
    return None


def _record_producers(r: Reading, k: int, produced: list[tuple[Fraction, int]], step_produced: list[Fraction],
                      wanted: set, found: dict) -> None:
    """Step ``k``'s producers in reading ``r``: one per value (its last equation: a GSM8K annotation repeats the
    plain one), and -1 for what the step derived in a way this reading does not follow (a unit-word line it cannot
    parse, a logarithm, a root); the roots ``wanted`` met are put in ``found``."""
    latest: dict[int | Fraction, int] = {}  # by value_key
    for value, node in produced:
        key = value_key(value)
        if node >= 0 or key not in latest:
            latest[key] = node
    for value in step_produced:
        latest.setdefault(value_key(value), -1)
    for key, node in latest.items():
        previous = r.producers.get(key)
        r.producers[key] = [node, *[n for n in previous if n != node]][:4] if previous else [node]
        if (k, key) in wanted:
            found[(k, key)] = None if node < 0 else node


_EXPRESSION_OP = re.compile(r"\d\s*(?:[-+*^×÷]|\\cdot|\\times|\\div)\s*[\d({\\]")


def _given_expression(problem: str) -> bool:
    r"""Whether the problem states an expression to work with (``5^5\div5^4-5^3+5^2\cdot5^1``: two operations
    between numbers or more; a fraction ``1/2`` is a number, not an operation) or is written in LaTeX
    (``a\star b = 9a+2b-ab+5``: competition problems define the expressions their solutions expand). Its own
    cancellations are the problem's, not a disguise: only a constant product written from quantities counts."""
    return "\\" in problem or len(_EXPRESSION_OP.findall(problem[:4000])) >= 2


def derivation_function(trace: Trace, flow: Dataflow,
                        derivations: list[frozenset[int]] | None = None,
                        alternatives: int = 0) -> DerivationFunction | None:
    """The answer's derivation as a function of the problem's quantities (module docstring), or ``None`` when it
    cannot be built within the bounds (no derived answer, an opaque step on the way, too many nodes) or when algebra
    (an equation with unknowns, :class:`~rewards.evidence.AlgebraLink`) is on the way. Where the problem
    states an expression of its own (:func:`_given_expression`), only a product written from quantities that is a
    constant makes it degenerate (the problem's expression may cancel by design).

    ``derivations``: :func:`~rewards.evidence.answer_derivations` of ``flow`` when the caller has them.
    With several derivations of the answer (algebra derives it twice) the last one that can be read decides; with
    several readings of its ambiguous literals, the first that is not degenerate. ``alternatives``: up to this many
    other non-degenerate readings are kept in :attr:`DerivationFunction.alternatives` (within the
    :data:`MAX_READINGS` budget, the answer's latest literals first): counterfactual agreement compares every
    reading, since a literal with two sources may be linked to either."""
    if flow.answer_step is None or flow.answer_value is None:
        return None
    if derivations is None:
        derivations = answer_derivations(flow)
    if not derivations:
        return None
    lenient = _given_expression(trace.problem)
    on_the_way = frozenset().union(*derivations)
    if any(step in on_the_way for step, _ in flow.links):
        return None  # algebra (an equation with unknowns) on the way: its links are not read here
    answer = flow.answer_value
    target = answer if answer in flow.steps[flow.answer_step].produced else answer / 100
    roots = sorted({max(d) for d in derivations}, reverse=True)
    plan = derivation_entries(trace, flow)
    qs = problem_quantities(trace.problem)
    function = None
    for k, root in enumerate(roots):  # the last derivation decides; an earlier one where the last cannot be read
        found = _function_of(trace, flow, plan, (root, target), qs, lenient, alternatives if k == 0 else 0)
        if found is None:
            continue
        if function is None:
            function = found
            if function.degenerate is not None:
                return function
        elif found.degenerate is not None and found.degenerate.startswith("cancelling"):
            # a constant written from quantities on an earlier derivation of the answer ("24 + 4 * 4000 / 40 -
            # 400 = 24" before another "= 24") is no less a disguise for a later reading that steps around it
            return DerivationFunction(found.degenerate, function.written, function.used, function.values,
                                      function.labels, function.answer, function.readings, function._graph)
    return function


def _other_readings(seen: list[int], choices: tuple[int, ...], order, tried: set) -> list[tuple[int, ...]]:
    """The other readings of the ambiguous literals met (``seen[k]`` readings of the ``k``-th), in ``order``: the
    choices up to ``k`` kept, the ``k``-th changed; none already in ``tried``."""
    out = []
    for k in order:
        for option in range(1, seen[k]):
            alternative = tuple(choices[j] if j < len(choices) else 0 for j in range(k)) + (option,)
            if alternative not in tried:
                out.append(alternative)
    return out


def _function_of(trace: Trace, flow: Dataflow, plan, root: tuple[int, Fraction], qs: Quantities,
                 lenient: bool = False, alternatives: int = 0) -> DerivationFunction | None:
    """The function of the derivation ending at ``root`` (``(step, value)``): the first reading of its ambiguous
    literals that is not degenerate, else the first reading; ``None`` when no reading can be built."""
    best: DerivationFunction | None = None
    first: DerivationFunction | None = None
    others: list[DerivationFunction] = []
    tried, queue, seen_choices = 0, [()], set()
    while queue and tried < MAX_READINGS:
        choices = queue.pop(0)
        if choices in seen_choices:
            continue
        seen_choices.add(choices)
        tried += 1
        try:
            r, (node,) = _read(trace, flow, plan, [root], qs, choices)
        except (Unreadable, RecursionError):
            continue
        verdict = _verdict(r, node, lenient) if node is not None else None
        if verdict is None:
            if not r.seen:
                break  # opaque, and no other reading to try
            continue
        reason, written, used = verdict
        function = DerivationFunction(reason, written, used, qs.values, qs.labels, r.value[node], tried,
                                      (tuple(r.kind), tuple(r.a), tuple(r.b), node))
        if reason is None:
            if not alternatives:
                return function
            if first is not None:
                others.append(function)
                if len(others) >= alternatives:
                    break
                continue
            first = function
            queue.clear()  # from here on: the other readings of this one, the latest literal first (the answer's
            order = range(len(r.seen) - 1, -1, -1)  # own step is where two sources of a value meet last)
        elif first is not None:
            continue
        else:
            best = best or function
            order = range(len(r.seen))
        queue.extend(_other_readings(r.seen, choices, order, seen_choices))
    if first is not None:
        return DerivationFunction(first.degenerate, first.written, first.used, first.values, first.labels,
                                  first.answer, first.readings, first._graph, tuple(others))
    if best is not None:
        best = DerivationFunction(best.degenerate, best.written, best.used, best.values, best.labels, best.answer,
                                  tried, best._graph)
    return best
