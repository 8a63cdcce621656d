r"""A derivation is a function of the problem's quantities: the answer's derivation read as ``f(q_1..q_n)``.

The value-keyed dataflow (:mod:`rewards.scoring.dataflow`) says which steps derive the answer; this module reads
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
(``5^1 - 5^3 + 5^3``). Algebra on the way (:class:`~rewards.scoring.dataflow.AlgebraLink`) or a derivation that writes
no problem quantity gives no function.

A quantity written on the way that cancels across steps (``20 - 5 = 15``, ``12 + 15 = 27``, ``27 - 20 = 7``: the
answer does not depend on the 20) is *unused* (:attr:`DerivationFunction.cancelled`), not degenerate: honest
solutions do that with a distractor, so the caller weighs it as a quantity the derivation does not use.

:meth:`DerivationFunction.at` recomputes the answer under an edit of the quantities through the function;
:meth:`DerivationFunction.expr` gives it as a ``sympy`` expression (built from the graph, simplified with
``sympy.cancel`` only when small).

>>> from rewards.parsing.trace import parse_trace
>>> from rewards.scoring.dataflow import build_dataflow
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

import math
import random
import re
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache

from rewards.checks.arithmetic import numbers_in
from rewards.checks.arithmetic.budget import MAX_DEPTH, MAX_EXPONENT, MAX_EXPR_CHARS, MAX_EXPR_TOKENS
from rewards.checks.arithmetic.literals import num_exact
from rewards.checks.arithmetic.tokens import KEYWORDS, tokenize
from rewards.parsing.trace import Trace
from rewards.scoring.dataflow import (BASIC_CONSTANTS, COMMON_CONSTANTS, Dataflow, answer_derivations,
                                      derivation_entries, problem_numbers)

__all__ = ["DerivationFunction", "derivation_function", "MAX_NODES", "MAX_READINGS", "MAX_QUANTITIES"]

MAX_NODES = 400
"""At most this many expression nodes per reading of a trace (leaves, transforms and operations): beyond it the
derivation has no function (``None``)."""
MAX_READINGS = 16
"""At most this many readings of the ambiguous literals are tried before a derivation is called degenerate."""
MAX_QUANTITIES = 40
"""At most this many problem quantities get a symbol (the first ones stated)."""
MAX_SYMPY_OPS = 40
"""``sympy.cancel`` runs on :meth:`DerivationFunction.expr` only when the built expression has at most this many
operations (``count_ops``)."""

_P = (1 << 61) - 1
"""The prime the degeneracy tests evaluate modulo."""
_POINTS = 3
def _k(v: Fraction) -> int | Fraction:
    """A value as a lookup key: whole values as ints (an int hashes natively; equal values, equal hashes)."""
    return v.numerator if v.denominator == 1 else v


_FREE = frozenset(_k(v) for v in (*BASIC_CONSTANTS, *COMMON_CONSTANTS))
"""Constants that are never read as a transform of a quantity (``2`` is not ``200 / 100``)."""
_HUNDRED = Fraction(100)
_SMALL_FACTORS = frozenset((0, 1, 2, 3, 4, 10, 100))
"""Unit factors that do not get the alternative "free constant" reading when the problem states them (a problem's
``2`` divided by itself is a constant, however often a unit word names 2)."""


class _Unreadable(Exception):
    """A side outside the small grammar, or over a bound: the step is opaque."""


# ------------------------------------------------------------------------------------------------ parsing a side
# An AST over tokens: ("n", Fraction) | ("+"|"-"|"*"|"/", a, b) | ("neg", a) | ("^", a, int)

class _Side:
    __slots__ = ("t", "i", "n", "depth")

    def __init__(self, toks):
        self.t, self.i, self.n, self.depth = toks, 0, len(toks), 0

    def kind(self, k: int = 0) -> str:
        j = self.i + k
        return self.t[j][0] if j < self.n else ""

    def val(self, k: int = 0) -> str:
        j = self.i + k
        return self.t[j][1] if j < self.n else ""

    def run(self):
        node = self.expr()
        while self.i < self.n and self.t[self.i][0] in "wt":  # trailing unit words
            self.i += 1
        if self.i < self.n:
            raise _Unreadable
        return node

    def enter(self):
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise _Unreadable

    def expr(self):
        self.enter()
        node = self.term()
        while self.i < self.n:
            k, v = self.kind(), self.val()
            if k == "o" and v in "+-":
                op = v
            elif k == "w" and v in ("plus", "minus"):
                op = "+" if v == "plus" else "-"
            else:
                break
            self.i += 1
            node = (op, node, self.term())
        self.depth -= 1
        return node

    def term(self):
        node = self.unary()
        while self.i < self.n:
            k, v = self.kind(), self.val()
            if k == "o" and v in "*/":
                self.i += 1
                if v == "/" and self.kind() in ("w", "t") and self.val() not in KEYWORDS:
                    self.i += 1  # "$3.50/hour": per a unit
                    continue
                op = v
            elif k == "x":
                if self.kind(1) not in ("n", "(", "{", "$", "c"):
                    raise _Unreadable
                self.i += 1
                op = "*"
            elif k == "w":
                if v in ("plus", "minus"):
                    break
                self.i += 1
                if v in KEYWORDS:
                    op = KEYWORDS[v]
                else:
                    continue  # a unit word
            elif k == "t":
                self.i += 1
                continue
            elif k in ("(", "{") or (k == "c" and v == "frac"):
                op = "*"  # implicit multiplication: 2(3 + 4)
            else:
                break
            node = (op, node, self.unary())
        return node

    def unary(self):
        k, v = self.kind(), self.val()
        if k == "o" and v in "+-":
            self.i += 1
            self.enter()
            inner = self.unary()
            self.depth -= 1
            return ("neg", inner) if v == "-" else inner
        if k == "$":
            self.i += 1
            return self.unary()
        return self.power()

    def power(self):
        base = self.postfix()
        if self.kind() == "o" and self.val() == "^":
            self.i += 1
            self.enter()
            exponent = self.unary()
            self.depth -= 1
            if exponent[0] != "n" or exponent[1].denominator != 1 or abs(exponent[1]) > MAX_EXPONENT:
                raise _Unreadable  # a power with a derived, fractional or huge exponent: out of the grammar
            return ("^", base, int(exponent[1]))
        return base

    def postfix(self):
        node = self._postfix()
        if node[0] == "/" and node[2] == ("n", _HUNDRED) and node[1][0] == "n":
            return ("pct", node[1][1])  # "10%": the value 0.1 (derived earlier, perhaps), or 10 / 100
        return node

    def _postfix(self):
        if self.kind() == "n" and self.kind(1) == "o" and self.val(1) == "/" and self.kind(2) == "n" \
                and self.kind(3) not in ("%", "!", "c") and not (self.kind(3) == "o" and self.val(3) == "^") \
                and not (self.i > 0 and self.t[self.i - 1][0] == "o" and self.t[self.i - 1][1] in "/^"):
            a, b = num_exact(self.val()), num_exact(self.val(2))
            if a is not None and b is not None and 0 < a < b and type(a) is int and type(b) is int \
                    and math.gcd(a, b) == 1:  # "3/4": a proper fraction in lowest terms, a value or a division
                self.i += 3
                return ("frac", ("n", Fraction(a)), ("n", Fraction(b)))
        node = self.primary()
        while self.kind() == "%":
            self.i += 1
            node = ("/", node, ("n", Fraction(100)))
        return node

    def group(self, close: str):
        self.i += 1
        node = self.expr()
        if self.kind() != close:
            raise _Unreadable
        self.i += 1
        return node

    def arg(self):
        k = self.kind()
        if k == "{":
            return self.group("}")
        if k == "(":
            return self.group(")")
        if k == "n":
            return self.primary()
        raise _Unreadable

    def primary(self):
        k, v = self.kind(), self.val()
        if k == "n":
            self.i += 1
            q = num_exact(v)
            if q is None:
                raise _Unreadable
            q = Fraction(q)
            if self.kind() == "c" and self.val() == "frac" and q.denominator == 1:  # 3\frac{4}{5}: mixed number
                self.i += 1
                num, den = self.arg(), self.arg()
                if num[0] == "n" and den[0] == "n" and den[1] != 0 and 0 < num[1] / den[1] < 1:
                    return ("n", q + num[1] / den[1])
                return ("*", ("n", q), ("/", num, den))
            return ("n", q)
        if k == "(":
            return self.group(")")
        if k == "{":
            return self.group("}")
        if k == "$":
            self.i += 1
            return self.primary()
        if k == "c" and v == "frac":
            self.i += 1
            self.enter()
            num, den = self.arg(), self.arg()
            self.depth -= 1
            return ("/", num, den)
        raise _Unreadable


def _literal_keys(ast) -> dict:
    """How often an AST writes each plain literal value (by :func:`_k`)."""
    out: dict = {}
    stack = [ast]
    while stack:
        node = stack.pop()
        if node[0] == "n":
            key = _k(node[1])
            out[key] = out.get(key, 0) + 1
        elif node[0] in ("+", "-", "*", "/", "frac"):
            stack.extend((node[1], node[2]))
        elif node[0] in ("neg", "^"):
            stack.append(node[1])
        elif node[0] == "pct":
            key = _k(node[1])
            out[key] = out.get(key, 0) + 1
    return out


@lru_cache(maxsize=4096)
def _parse(side: str):
    """The AST of one operand side, or ``None`` when it is outside the grammar (cached: group members repeat
    sides)."""
    if len(side) > MAX_EXPR_CHARS:
        return None
    toks: list = []
    try:
        tokenize(side, 0, len(side), "\\" in side, toks, True)
        if not toks or len(toks) > MAX_EXPR_TOKENS:
            return None
        return _Side(toks).run()
    except (_Unreadable, RecursionError, ValueError, ZeroDivisionError):
        return None


# ------------------------------------------------------------------------------------------------ the graph
# Nodes live in one list per reading, children before parents: kind, a, b, exact value, written symbols.
# kind: "q" (a = symbol index), "c" (a = Fraction), "+", "-", "*", "/" (a, b = node indices), "neg" (a),
# "^" (a, b = int exponent).

@dataclass(frozen=True)
class _Quantities:
    values: tuple[Fraction, ...]
    labels: tuple[str, ...]
    percent: frozenset[int]
    by_value: dict
    stated: int = 0
    """Symbols ``0..stated-1`` are numerals the problem writes; the rest are values it only implies."""


@lru_cache(maxsize=1024)
def _quantities(problem: str) -> _Quantities:
    """One symbol per numeral the problem states (in order), then one per value it only implies."""
    values: list[Fraction] = []
    labels: list[str] = []
    percent: set[int] = set()
    stated = numbers_in(problem)
    for value, (start, end) in stated[:MAX_QUANTITIES]:  # one quantity per numeral: "5 shirts", "5 pants"
        if problem[end:end + 1] == "%" or problem[end:end + 2] == "\\%" or \
                problem[end:end + 8].lstrip().lower().startswith("percent"):
            percent.add(len(values))
        values.append(value)
        labels.append(problem[start:end].strip() or str(value))
    n_stated = len(values)
    seen = set(values)
    implied_by_percent = {f(values[i]) for i in percent
                          for f in (lambda q: q / 100, lambda q: 1 + q / 100, lambda q: 1 - q / 100,
                                    lambda q: 100 + q, lambda q: 100 - q)}
    for value in sorted(problem_numbers(problem) - seen - implied_by_percent):
        if len(values) >= MAX_QUANTITIES:
            break
        values.append(value)
        labels.append(f"{value} (implied)")
    by_value: dict[int | Fraction, list[int]] = {}  # by _k
    for i, v in enumerate(values):
        by_value.setdefault(_k(v), []).append(i)
    return _Quantities(tuple(values), tuple(labels), frozenset(percent), by_value, n_stated)


@lru_cache(maxsize=256)
def _unit_keys(units: frozenset[Fraction]) -> frozenset:
    return frozenset(_k(u) for u in units)


class _Reading:
    """One linking of every literal on the way to its source, as a node list."""

    __slots__ = ("qs", "units", "choices", "seen", "kind", "a", "b", "value", "syms", "consts", "uses",
                 "producers", "literals", "entry", "current", "unit_keys", "stray", "fixed", "here")

    def __init__(self, qs: _Quantities, units: frozenset[Fraction], choices: tuple[int, ...]):
        self.qs, self.units, self.choices = qs, units, choices
        self.unit_keys = _unit_keys(units)
        self.stray: frozenset = frozenset()  # the current step's operands the dataflow reaches from nowhere
        self.fixed: dict = {}  # _k(value) -> its reading in the expression being built (one reading per value)
        self.here: dict = {}  # _k(value) -> how often the expression being built writes it
        self.seen: list[int] = []  # the number of readings of each ambiguous literal met, in order
        self.kind: list[str] = []
        self.a: list = []
        self.b: list = []
        self.value: list[Fraction] = []
        self.syms: list[frozenset[int]] = []
        self.consts: dict[int | Fraction, int] = {}  # by _k
        self.uses: dict[int, int] = {}
        self.producers: dict[int | Fraction, list[int]] = {}  # _k(value) -> nodes, latest first (-1: opaque)
        self.literals: dict[int, str] = {}  # nodes that stand for one written literal (1600 read as 100 * 16)
        self.entry: list[int] = []  # which written expression built each node
        self.current = 0

    def add(self, kind, a, b, value, syms) -> int:
        if len(self.kind) >= MAX_NODES:
            raise _Unreadable
        self.kind.append(kind)
        self.a.append(a)
        self.b.append(b)
        self.value.append(value)
        self.syms.append(syms)
        self.entry.append(self.current)
        return len(self.kind) - 1

    def const(self, v: Fraction) -> int:
        key = _k(v)
        node = self.consts.get(key)
        if node is None:
            node = self.consts[key] = self.add("c", v, None, v, frozenset())
        return node

    def symbol(self, i: int) -> int:
        self.uses[i] = self.uses.get(i, 0) + 1
        return self.add("q", i, None, self.qs.values[i], frozenset((i,)))

    def op(self, kind: str, x: int, y) -> int:
        vx = self.value[x]
        if kind == "neg":
            return self.add(kind, x, None, -vx, self.syms[x])
        if kind == "^":
            if vx == 0 and y < 0:
                raise _Unreadable
            bits = max(vx.numerator.bit_length(), vx.denominator.bit_length()) * abs(y)
            if bits > 4096:
                raise _Unreadable
            return self.add(kind, x, y, vx ** y, self.syms[x])
        vy = self.value[y]
        if kind == "+":
            v = vx + vy
        elif kind == "-":
            v = vx - vy
        elif kind == "*":
            v = vx * vy
        else:
            if vy == 0:
                raise _Unreadable
            v = vx / vy
        return self.add(kind, x, y, v, self.syms[x] | self.syms[y])

    def options(self, v: Fraction, fraction: bool = False) -> list[tuple]:
        """The readings of a literal ``v``, the default first: each earlier step that derived it (latest first),
        each problem quantity of that value (least used first), the constant itself where it may also be meant
        (a unit factor a word names; a basic constant that is also a derived value but no problem quantity), and,
        with no direct source, each transform of a quantity or derived value (quantities first); else the constant.
        ``fraction``: ``v`` is a proper fraction written ``a/b``, which may also be read as a division (last)."""
        options: list[tuple] = []
        key = _k(v)
        derived = self.producers.get(key, ())
        if derived and all(node < 0 for node in derived):
            return [("d", -1)]  # only an opaque step derived it: no reading (a constant would be a guess)
        options.extend(("d", node) for node in derived if node >= 0)
        syms = self.qs.by_value.get(key)
        if syms and (not options or self.here.get(key, 0) > 1):  # a value just derived is that value; the stated
            # one too only where the side writes it twice; of several stated, the one used least so far first
            options.extend(("q", i) for i in sorted(syms, key=lambda i: (self.uses.get(i, 0), i)))
        if fraction:  # "3/4": a value derived or stated, else the division of two literals
            return [*options, ("/",)]
        if options and key == 100 and not syms:
            options.append(("c",))  # "(75/100) * 100" after a total of 100
        if not options and key in _FREE:  # "$68 * 0.25" where the problem says 25%: that percent, not a quarter
            for i in self.qs.by_value.get(_k(v * 100), ()):
                if i in self.qs.percent:
                    return [("t", ("q", i), "/", _HUNDRED)]
        if not options and key in _FREE and key not in (0, 1) and _k(v / 100) in self.here \
                and not self.producers.get(_k(v / 100)):
            # "10 * 100 / 1000", "4 * 50 / 0.5": a constant that is 100 times a literal the same side writes is that
            return [("t", ("lit", v / 100), "*", _HUNDRED)]
        if not options:
            transforms = self.transforms(v)
            if transforms and transforms[0][0] == "t" and transforms[0][1][0] == "lit" \
                    and transforms[0][3] == _HUNDRED:
                return transforms[:1]  # "20 * 100 / 2000": 100 times the 20 the side writes, no other reading
            options.extend(transforms)
            if key in _FREE or key in self.unit_keys:
                options.append(("c",))  # a free constant, a unit factor a word names
            elif not options:  # a number from nowhere (the dataflow's gap) is a constant; one reached in a way
                options.append(("c",) if key in self.stray else ("?",))  # this reading cannot name is opaque
        options.extend(("d", node) for node in derived if node < 0)  # an opaque step's value: last
        return options

    def transforms(self, v: Fraction) -> list[tuple]:
        """``v`` as a transform of a quantity (first) or a derived value: ``100x``, ``x/100``, ``-x``, a percent's
        ``1 ± q/100`` and ``100 ± q``. Never for the basic and common constants (2 is not 200 / 100). A unit
        conversion or a reciprocal written without its computation ("160 pints" for 20 gallons) is not guessed:
        with no other source the literal is opaque."""
        if _k(v) in _FREE or _k(v) in self.unit_keys:  # 36 inches in a yard is a unit factor, not 12 * three
            return []
        out: list[tuple] = []
        bases = [(v / 100, "*", _HUNDRED), (v * 100, "/", _HUNDRED), (-v, "neg", None)]
        for i in sorted(self.qs.percent):
            q = self.qs.values[i]
            for value, how in ((1 + q / 100, "1+"), (1 - q / 100, "1-"), (100 + q, "100+"), (100 - q, "100-")):
                if value == v:
                    out.append(("p", i, how))
        for base, how, factor in bases:  # quantities first, then derived values
            if _k(base) in self.here and not self.producers.get(_k(base)):  # "4 * 100 / 400": 400 is 100 times
                # the 4 this side writes, read as it is (not a derived 80 in "80 / .8" for the problem's 80%)
                out.append(("t", ("lit", base), how, factor))
                continue
            for i in self.qs.by_value.get(_k(base), ()):  # of a numeral the problem writes, not of a value it
                if i < self.qs.stated:                     # implies (20 is no 480 minutes over 24)
                    out.append(("t", ("q", i), how, factor))
        for base, how, factor in bases:
            for node in self.producers.get(_k(base), ()):
                if node >= 0:
                    out.append(("t", ("d", node), how, factor))
        return out[:8]

    def make(self, option: tuple, v: Fraction, ast=None) -> int:
        node = self._make(option, v, ast)
        if ast is not None and option[0] != "/" and node not in self.literals:
            self.literals[node] = f"{_num(ast[1][1])}/{_num(ast[2][1])}"
        return node

    def _make(self, option: tuple, v: Fraction, ast=None) -> int:
        kind = option[0]
        if kind == "d":
            if option[1] < 0:
                raise _Unreadable  # the value an opaque step derived
            return option[1]
        if kind == "q":
            return self.symbol(option[1])
        if kind == "c":
            return self.const(v)
        if kind == "?":
            raise _Unreadable
        if kind == "/":
            return self.op("/", self.build(ast[1]), self.build(ast[2]))
        if kind == "p":
            i, how = option[1], option[2]
            if how[0] == "1":
                part = self.op("/", self.symbol(i), self.const(_HUNDRED))
                node = self.op(how[-1], self.const(Fraction(1)), part)
            else:
                node = self.op(how[-1], self.const(_HUNDRED), self.symbol(i))
        else:  # a transform
            _, source, how, factor = option
            x = self.leaf(source[1]) if source[0] == "lit" else self._make(source, v)
            if how == "neg":
                node = self.op("neg", x, None)
            elif how == "*" and _k(factor) in self.here and _k(factor) != _k(v):  # "50 * 100 / 5000": the factor
                # of 5000 = 100 · 50 read as the written 100 is (not 100 itself: "2 * 100 / 1 - 200")
                node = self.op(how, x, self.leaf(factor))
            else:
                node = self.op(how, x, self.const(factor))
        self.literals[node] = f"{_num(ast[1][1])}/{_num(ast[2][1])}" if ast is not None else _num(v)
        return node

    def leaf(self, v: Fraction, ast=None) -> int:
        """A literal's node. Within one expression a value with no derived reading is read one way wherever it is
        written (``50 * 100 / 5000`` reads both 100s alike: the literal and the factor of ``5000 = 100 · 50``)."""
        key = _k(v) if ast is None else None
        if key is not None and key in self.fixed:
            return self.make(self.fixed[key], v, ast)
        options = self.options(v, fraction=ast is not None)
        if len(options) == 1:
            pick = options[0]
        else:
            k = len(self.seen)
            self.seen.append(len(options))
            pick = options[self.choices[k] % len(options)] if k < len(self.choices) else options[0]
        if key is not None and not any(o[0] == "d" for o in options):  # a derived value and a stated one may
            self.fixed[key] = pick                                          # meet: 10 - 8 = 2, then 2 / 2
        return self.make(pick, v, ast)

    def percent(self, v: Fraction) -> int:
        """``v%``: the value ``v/100`` where an earlier step derived it or the problem states it ("40% * 25% =
        10%", then "100% - 10%"), else ``v`` read as a literal, over 100."""
        key = _k(v / 100)
        direct = [("d", n) for n in self.producers.get(key, ()) if n >= 0]
        direct.extend(("q", i) for i in self.qs.by_value.get(key, ()))
        options = [*direct, ("%",)]
        pick = options[0]
        if len(options) > 1:
            k = len(self.seen)
            self.seen.append(len(options))
            pick = options[self.choices[k] % len(options)] if k < len(self.choices) else options[0]
        if pick[0] == "%":
            return self.op("/", self.leaf(v), self.const(_HUNDRED))
        return self.make(pick, v / 100)

    def build_side(self, ast) -> int:
        """The node of a whole operand side: ``60 / 60``, ``60 - 60`` (a value and the unit factor a word names, the
        side's only numbers) takes the unit, not the quantity again; ``6 / 6`` where the problem states 6 twice ("6
        cups at 6 cups per hour") divides one by the other."""
        if ast[0] in ("*", "/", "-") and ast[1][0] == ast[2][0] == "n" and ast[1][1] == ast[2][1]:
            v, key = ast[1][1], _k(ast[1][1])
            if key in self.unit_keys and key not in _SMALL_FACTORS:
                return self.op(ast[0], self.leaf(v), self.const(v))
            syms = self.qs.by_value.get(key, ())
            if ast[0] == "/" and len(syms) >= 2 and not self.producers.get(key):
                # "6 cups / 6 cups per hour": the problem states the value twice, one of each
                first = self.leaf(v)
                other = [i for i in syms if i != self.a[first]] if self.kind[first] == "q" else []
                if other:
                    return self.op("/", first, self.symbol(min(other, key=lambda i: (self.uses.get(i, 0), i))))
                return self.op("/", first, self.leaf(v))
        return self.build(ast)

    def build(self, ast) -> int:
        if ast[0] == "n":
            return self.leaf(ast[1])
        if ast[0] == "frac":  # a proper fraction a/b: a value, or a division
            return self.leaf(ast[1][1] / ast[2][1], ast)
        if ast[0] == "pct":
            return self.percent(ast[1])
        if ast[0] == "neg":
            if ast[1][0] == "n":  # "(-50)": a negative value derived or stated, else the negated literal
                v = -ast[1][1]
                key = _k(v)
                derived = [n for n in self.producers.get(key, ()) if n >= 0]
                if derived:
                    return derived[0]
                if key in self.qs.by_value:
                    return self.symbol(self.qs.by_value[key][0])
            return self.op("neg", self.build(ast[1]), None)
        if ast[0] == "^":
            return self.op("^", self.build(ast[1]), ast[2])
        return self.op(ast[0], self.build(ast[1]), self.build(ast[2]))


# ------------------------------------------------------------------------------------------------ evaluation
def _inverse(x: int) -> int:
    if x == 0:
        raise ZeroDivisionError
    return pow(x, -1, _P)


def _mod(q: Fraction) -> int:
    return q.numerator % _P if q.denominator == 1 else q.numerator % _P * _inverse(q.denominator % _P) % _P


def _evaluate(r: _Reading, order: list[int], points: list[list[int]]) -> dict[int, list[int]] | None:
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
                out[n] = [(x[c] + y[c]) % _P for c in width]
            elif k == "-":
                x, y = out[a[n]], out[b[n]]
                out[n] = [(x[c] - y[c]) % _P for c in width]
            elif k == "*":
                x, y = out[a[n]], out[b[n]]
                out[n] = [x[c] * y[c] % _P for c in width]
            elif k == "/":
                x, y = out[a[n]], out[b[n]]
                out[n] = [x[c] * pow(y[c], -1, _P) % _P for c in width]
            elif k == "neg":
                out[n] = [-v % _P for v in out[a[n]]]
            else:
                e = b[n]
                out[n] = [pow(v, e, _P) if e >= 0 else pow(_inverse(v), -e, _P) for v in out[a[n]]]
    except (ZeroDivisionError, ValueError):  # pow(0, -1, p) raises ValueError
        return None
    return out


def _reachable(r: _Reading, root: int) -> list[int]:
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


def _render(r: _Reading, n: int, depth: int = 0) -> str:
    """A node as text (``16 * 100 / 1600``), literals as written values."""
    k = r.kind[n]
    if n in r.literals:
        return r.literals[n]
    if k in ("q", "c") or depth > 12:
        return _num(r.value[n])
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


def _num(q: Fraction) -> str:
    return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


def _times_zero(r: _Reading, n: int) -> bool:
    """``6 * 0``, ``0 / 4``: a product with a written zero is zero honestly ("six hats with no stripes")."""
    k = r.kind[n]
    if k not in ("*", "/"):
        return False
    zero = [r.a[n]] if k == "/" else [r.a[n], r.b[n]]
    return any(r.kind[c] == "c" and r.value[c] == 0 for c in zero)


_CLASS = {"+": "+", "-": "+", "*": "*", "/": "*"}
MAX_RUN_TERMS = 24
"""A sum or product of more terms than this (in one written expression) is not searched for constant runs."""


def _flatten(r: _Reading, n: int, cls: str, sign: int, entry: int, out: list, depth: int = 0) -> None:
    """The terms (``+``) or factors (``*``) of node ``n`` written in one expression, with their signs
    (``-1``: taken away / divided by)."""
    k = r.kind[n]
    if depth < MAX_DEPTH and _CLASS.get(k) == cls and n not in r.literals and r.entry[n] == entry \
            and not _times_zero(r, n):
        _flatten(r, r.a[n], cls, sign, entry, out, depth + 1)
        _flatten(r, r.b[n], cls, -sign if k in "-/" else sign, entry, out, depth + 1)
    else:
        out.append((sign, n))


def _constant_runs(r: _Reading, order: list[int], values: dict[int, list[int]]):
    """Consecutive terms of a written sum that are written from the problem's quantities and together make a
    constant (``18 + 2 * 300 / 3 - 200``: ``2 * 300 / 3 - 200`` is 0, though no node of the left-to-right reading is
    that zero): ``(text, value, symbols)`` for each such run."""
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
        if cls != "+" or n in inner or n in r.literals:  # sums only: "x / 2 * 2" written out is no disguise (a
            continue                                       # product's constant parts are nodes: 16 * 100 / 1600)
        terms: list[tuple[int, int]] = []
        _flatten(r, n, cls, 1, r.entry[n], terms)
        if not 3 <= len(terms) <= MAX_RUN_TERMS:
            continue
        for i in range(len(terms) - 1):
            for j in range(i + 2, len(terms) + 1):
                if j - i == len(terms):
                    continue  # the whole expression: checked as a node
                run = terms[i:j]
                syms = frozenset().union(*(r.syms[t] for _, t in run))
                if not syms:
                    continue
                at = [_combine(cls, run, values, c) for c in range(_POINTS)]
                if None not in at and all(x == at[0] for x in at):
                    exact = _combine_exact(cls, run, r.value)
                    if exact is not None:
                        yield _render_run(r, cls, run), exact, syms


def _combine(cls: str, run, values: dict[int, list[int]], column: int) -> int | None:
    total = 0 if cls == "+" else 1
    for sign, t in run:
        x = values[t][column]
        if cls == "+":
            total = (total + sign * x) % _P
        elif sign > 0:
            total = total * x % _P
        elif x == 0:
            return None
        else:
            total = total * _inverse(x) % _P
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


def _render_run(r: _Reading, cls: str, run) -> str:
    out = []
    for k, (sign, t) in enumerate(run):
        text = _render(r, t)
        if r.kind[t] in "+-" and t not in r.literals and (cls == "*" or sign < 0):
            text = f"({text})"
        op = ("+" if sign > 0 else "-") if cls == "+" else ("*" if sign > 0 else "/")
        out.append(text if k == 0 and sign > 0 else (f"{op} {text}" if k else f"{op}{text}" if cls == "+"
                                                      else f"1 / {text}"))
    return " ".join(out)


def _verdict(r: _Reading, root: int, lenient: bool = False) -> tuple[str | None, frozenset[int], frozenset[int]] | None:
    """``(degenerate reason or None, written symbols, used symbols)`` of the node ``root``; ``None`` when no point
    could be evaluated. Columns: :data:`_POINTS` random points, then for each written quantity two of them with that
    quantity alone moved."""
    order = _reachable(r, root)
    written = sorted(r.syms[root])
    n_syms = len(r.qs.values)
    vals = None
    for attempt in range(3):
        rng = random.Random(0x5EED + attempt)
        base = [[rng.getrandbits(60) + 2 for _ in range(n_syms)] for _ in range(_POINTS)]
        points = list(base)
        for i in written:
            for p in base[:2]:
                moved = list(p)
                moved[i] = (p[i] + rng.getrandbits(60) + 1) % _P
                points.append(moved)
        vals = _evaluate(r, order, points)
        if vals is not None:
            break
    if vals is None:
        return None
    if not written:
        return None  # no problem quantity this reading links to the answer (a counting or factoring rule of the
        # dataflow, prose between steps): no function, the dataflow's own reading stands
    at = vals[root]
    quoted = ", ".join(r.qs.labels[i] for i in written)
    if lenient:  # the problem's own expression may cancel by design (5^1 - 5^3 + 5^3): only a product written
        for n in order:  # from quantities that is a constant (16 * 100 / 1600, 4 / 4) is no derivation there
            if r.kind[n] in ("*", "/") and r.syms[n] and n not in r.literals and not _times_zero(r, n) \
                    and vals[n][0] == vals[n][1] == vals[n][2]:
                return (f"cancelling: {_render(r, n)} is the constant {_num(r.value[n])}, written from the "
                        f"problem's {', '.join(r.qs.labels[i] for i in sorted(r.syms[n]))}", frozenset(written),
                        frozenset())
        used = {i for k, i in enumerate(written)
                if at[_POINTS + 2 * k] != at[0] or at[_POINTS + 2 * k + 1] != at[1]}
        return None, frozenset(written), frozenset(used)
    if at[0] == at[1] == at[2]:
        return (f"constant: the answer {_num(r.value[root])} is the same whatever the problem's quantities are",
                frozenset(written), frozenset())
    for i in written:  # "18 * 12 / 12", "15 * 15 / 15": other quantities, or this one again, written around it
        if i >= r.qs.stated:
            continue  # a value the problem only implies ("every tenth pot": 10) is no quantity it gives to copy
        if (len(written) > 1 or sum(r.kind[n] == "q" and r.a[n] == i for n in order) > 1) \
                and all(at[c] == base[c][i] for c in range(_POINTS)):
            return (f"copied: the answer is the problem's {r.qs.labels[i]} passed through, whatever else it is "
                    f"written with ({quoted})", frozenset(written), frozenset((i,)))
    for n in order:  # a constant written from quantities: 16 * 100 / 1600, 2 * 300 / 3 - 200
        if r.kind[n] in ("q", "c") or not r.syms[n] or n in r.literals or _times_zero(r, n):
            continue
        v = vals[n]
        if v[0] == v[1] == v[2]:
            return (f"cancelling: {_render(r, n)} is the constant {_num(r.value[n])}, written from the problem's "
                    f"{', '.join(r.qs.labels[i] for i in sorted(r.syms[n]))}", frozenset(written), frozenset())
    for run, constant, syms in _constant_runs(r, order, vals):  # "... + 2 * 300 / 3 - 200" in a longer sum
        return (f"cancelling: {run} is the constant {_num(constant)}, written from the problem's "
                f"{', '.join(r.qs.labels[i] for i in sorted(syms))}", frozenset(written), frozenset())
    # a quantity that cancels across steps is written but unused (weighed by the caller, not degenerate)
    used = {i for k, i in enumerate(written)
            if at[_POINTS + 2 * k] != at[0] or at[_POINTS + 2 * k + 1] != at[1]}
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


def _read(trace: Trace, flow: Dataflow, plan, roots: list[tuple[int, Fraction]], qs: _Quantities,
          choices: tuple[int, ...]) -> tuple[_Reading, list[int | None]]:
    """One reading of the steps up to the last root: the node of each root (``None`` where opaque)."""
    r = _Reading(qs, flow.units, choices)
    last = max(t for t, _ in roots)
    wanted = {(t, _k(v)) for t, v in roots}
    found: dict[tuple[int, Fraction], int | None] = {}
    repeated: dict[str, list[tuple[Fraction, int]]] = {}  # a step's text -> what it produced
    for k in range(last + 1):
        produced: list[tuple[Fraction, int]] = []
        r.stray = frozenset(_k(v) for v in flow.steps[k].unsupported) if flow.steps[k].unsupported else frozenset()
        text = " ".join(trace.steps[k].split()) if k < len(trace.steps) else ""
        again = repeated.get(text) if "=" in text else None
        for sides, value, kind in plan[k] if again is None else ():
            node = None
            if kind in ("computed", "evaluated"):
                for side in sides:
                    ast = _parse(side)
                    if ast is None:
                        continue
                    mark = (len(r.kind), dict(r.uses))
                    try:
                        r.current += 1
                        r.fixed, r.here = {}, _literal_keys(ast)
                        candidate = r.build_side(ast)
                    except (_Unreadable, ZeroDivisionError, OverflowError):
                        candidate = None
                    if candidate is not None and r.value[candidate] == value:
                        node = candidate
                        break
                    del r.kind[mark[0]:], r.a[mark[0]:], r.b[mark[0]:], r.value[mark[0]:], r.syms[mark[0]:], \
                        r.entry[mark[0]:]
                    r.consts = {key: c for key, c in r.consts.items() if c < mark[0]}
                    r.uses = mark[1]
                    r.literals = {n: text for n, text in r.literals.items() if n < mark[0]}
            else:  # algebra, a congruence: every number of the equation may come from it
                produced.extend((number, -1) for side in sides for number, _ in numbers_in(side)[:32])
            produced.append((value, -1 if node is None else node))
        if again is not None:  # a step written again computes what it computed the first time
            produced = list(again)
        elif text:
            repeated[text] = produced
        latest: dict[int | Fraction, int] = {}  # by _k
        for value, node in produced:  # one producer per value and step: its last equation (a GSM8K annotation
            key = _k(value)            # repeats the plain one)
            if node >= 0 or key not in latest:
                latest[key] = node
        for value in flow.steps[k].produced:  # derived in a way this reading does not follow (a unit-word line
            latest.setdefault(_k(value), -1)  # it cannot parse, a logarithm, a root)
        for key, node in latest.items():
            previous = r.producers.get(key)
            r.producers[key] = [node, *[n for n in previous if n != node]][:4] if previous else [node]
            if (k, key) in wanted:
                found[(k, key)] = None if node < 0 else node
    return r, [found.get((t, _k(v))) for t, v in roots]


_EXPRESSION_OP = re.compile(r"\d\s*(?:[-+*^×÷]|\\cdot|\\times|\\div)\s*[\d({\\]")


def _given_expression(problem: str) -> bool:
    r"""Whether the problem states an expression to work with (``5^5\div5^4-5^3+5^2\cdot5^1``: two operations
    between numbers or more; a fraction ``1/2`` is a number, not an operation) or is written in LaTeX
    (``a\star b = 9a+2b-ab+5``: competition problems define the expressions their solutions expand). Its own
    cancellations are the problem's, not a disguise: only a constant product written from quantities counts."""
    return "\\" in problem or len(_EXPRESSION_OP.findall(problem[:4000])) >= 2


def derivation_function(trace: Trace, flow: Dataflow,
                        derivations: list[frozenset[int]] | None = None) -> DerivationFunction | None:
    """The answer's derivation as a function of the problem's quantities (module docstring), or ``None`` when it
    cannot be built within the bounds (no derived answer, an opaque step on the way, too many nodes) or when algebra
    (an equation with unknowns, :class:`~rewards.scoring.dataflow.AlgebraLink`) is on the way. Where the problem
    states an expression of its own (:func:`_given_expression`), only a product written from quantities that is a
    constant makes it degenerate (the problem's expression may cancel by design).

    ``derivations``: :func:`~rewards.scoring.dataflow.answer_derivations` of ``flow`` when the caller has them.
    With several derivations of the answer (algebra derives it twice) the last one that can be read decides; with
    several readings of its ambiguous literals, the first that is not degenerate."""
    if flow.answer_step is None or flow.answer_value is None:
        return None
    if derivations is None:
        derivations = answer_derivations(flow)
    if not derivations:
        return None
    lenient = _given_expression(trace.problem)
    last = max(max(d) for d in derivations)
    if any(step <= last for step, _ in flow.links):
        return None  # algebra (an equation with unknowns) on the way: its links are not read here
    answer = flow.answer_value
    target = answer if answer in flow.steps[flow.answer_step].produced else answer / 100
    roots = sorted({max(d) for d in derivations}, reverse=True)
    plan = derivation_entries(trace, flow)
    qs = _quantities(trace.problem)
    function = None
    for k, root in enumerate(roots):  # the last derivation decides; an earlier one where the last cannot be read
        found = _function_of(trace, flow, plan, (root, target), qs, lenient)
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


def _function_of(trace: Trace, flow: Dataflow, plan, root: tuple[int, Fraction], qs: _Quantities,
                 lenient: bool = False) -> DerivationFunction | None:
    """The function of the derivation ending at ``root`` (``(step, value)``): the first reading of its ambiguous
    literals that is not degenerate, else the first reading; ``None`` when no reading can be built."""
    best: DerivationFunction | None = None
    tried, queue, seen_choices = 0, [()], set()
    while queue and tried < MAX_READINGS:
        choices = queue.pop(0)
        if choices in seen_choices:
            continue
        seen_choices.add(choices)
        tried += 1
        try:
            r, (node,) = _read(trace, flow, plan, [root], qs, choices)
        except (_Unreadable, RecursionError):
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
            return function
        if best is None:
            best = function
        for k, count in enumerate(r.seen):  # other readings of the ambiguous literals met
            for option in range(1, count):
                alternative = tuple(choices[j] if j < len(choices) else 0 for j in range(k)) + (option,)
                if alternative not in seen_choices:
                    queue.append(alternative)
    if best is not None:
        best = DerivationFunction(best.degenerate, best.written, best.used, best.values, best.labels, best.answer,
                                  tried, best._graph)
    return best
