"""One reading of a derivation as an expression graph over the problem's quantities (:class:`Reading`): each literal
linked to where it came from, with the bounds on the graph.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from rewards.checks.arithmetic import numbers_in
from rewards.evidence.lexicon import problem_numbers
from rewards.evidence.quantities import BASIC_CONSTANTS, COMMON_CONSTANTS, value_key
from rewards.evidence.side_reader import HUNDRED, Unreadable


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

PRIME = (1 << 61) - 1
"""The prime the degeneracy tests evaluate modulo."""
SAMPLE_POINTS = 3


_FREE = frozenset(value_key(v) for v in (*BASIC_CONSTANTS, *COMMON_CONSTANTS))
"""Constants that are never read as a transform of a quantity (``2`` is not ``200 / 100``)."""
_SMALL_FACTORS = frozenset((0, 1, 2, 3, 4, 10, 100))
"""Unit factors that do not get the alternative "free constant" reading when the problem states them (a problem's
``2`` divided by itself is a constant, however often a unit word names 2)."""


# ------------------------------------------------------------------------------------------------ the graph
# Nodes live in one list per reading, children before parents: kind, a, b, exact value, written symbols.
# kind: "q" (a = symbol index), "c" (a = Fraction), "+", "-", "*", "/" (a, b = node indices), "neg" (a),
# "^" (a, b = int exponent).

@dataclass(frozen=True)
class Quantities:
    values: tuple[Fraction, ...]
    labels: tuple[str, ...]
    percent: frozenset[int]
    by_value: dict
    stated: int = 0
    """Symbols ``0..stated-1`` are numerals the problem writes; the rest are values it only implies."""


@lru_cache(maxsize=1024)
def problem_quantities(problem: str) -> Quantities:
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
    by_value: dict[int | Fraction, list[int]] = {}  # by value_key
    for i, v in enumerate(values):
        by_value.setdefault(value_key(v), []).append(i)
    return Quantities(tuple(values), tuple(labels), frozenset(percent), by_value, n_stated)


@lru_cache(maxsize=256)
def _unit_keys(units: frozenset[Fraction]) -> frozenset:
    return frozenset(value_key(u) for u in units)


class Reading:
    """One linking of every literal on the way to its source, as a node list."""

    __slots__ = ("qs", "units", "choices", "seen", "kind", "a", "b", "value", "syms", "consts", "uses",
                 "producers", "literals", "entry", "current", "unit_keys", "stray", "fixed", "here", "transformed",
                 "fresh")

    def __init__(self, qs: Quantities, units: frozenset[Fraction], choices: tuple[int, ...]):
        self.qs, self.units, self.choices = qs, units, choices
        self.unit_keys = _unit_keys(units)
        self.stray: frozenset = frozenset()  # the current step's operands the dataflow reaches from nowhere
        self.fixed: dict = {}  # value_key(value) -> its reading in the expression being built (one reading per value)
        self.here: dict = {}  # value_key(value) -> how often the expression being built writes it
        self.seen: list[int] = []  # the number of readings of each ambiguous literal met, in order
        self.kind: list[str] = []
        self.a: list = []
        self.b: list = []
        self.value: list[Fraction] = []
        self.syms: list[frozenset[int]] = []
        self.consts: dict[int | Fraction, int] = {}  # by value_key
        self.uses: dict[int, int] = {}
        self.producers: dict[int | Fraction, list[int]] = {}  # value_key(value) -> nodes, latest first (-1: opaque)
        self.fresh: dict[int | Fraction, list[int]] = {}  # the same for values derived earlier in the current step:
        # read as themselves where a later equation of the step writes them, never guessed at through a transform
        self.literals: dict[int, str] = {}  # nodes that stand for one written literal (1600 read as 100 * 16)
        self.transformed: set[int] = set()  # the literals read as a transform of a quantity or derived value
        self.entry: list[int] = []  # which written expression built each node
        self.current = 0

    def add(self, kind, a, b, value, syms) -> int:
        if len(self.kind) >= MAX_NODES:
            raise Unreadable
        self.kind.append(kind)
        self.a.append(a)
        self.b.append(b)
        self.value.append(value)
        self.syms.append(syms)
        self.entry.append(self.current)
        return len(self.kind) - 1

    def const(self, v: Fraction) -> int:
        key = value_key(v)
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
                raise Unreadable
            bits = max(vx.numerator.bit_length(), vx.denominator.bit_length()) * abs(y)
            if bits > 4096:
                raise Unreadable
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
                raise Unreadable
            v = vx / vy
        return self.add(kind, x, y, v, self.syms[x] | self.syms[y])

    def options(self, v: Fraction, fraction: bool = False) -> list[tuple]:
        """The readings of a literal ``v``, the default first: each earlier step that derived it (latest first),
        each problem quantity of that value (least used first), the constant itself where it may also be meant
        (a unit factor a word names; a basic constant that is also a derived value but no problem quantity), and,
        with no direct source, each transform of a quantity or derived value (quantities first); else the constant.
        ``fraction``: ``v`` is a proper fraction written ``a/b``, which may also be read as a division (last)."""
        options: list[tuple] = []
        key = value_key(v)
        derived = self.producers.get(key, ())
        if key in self.fresh:
            derived = [*self.fresh[key], *(n for n in derived if n not in self.fresh[key])]
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
            for i in self.qs.by_value.get(value_key(v * 100), ()):
                if i in self.qs.percent:
                    return [("t", ("q", i), "/", HUNDRED)]
        if not options and key in _FREE and key not in (0, 1) and value_key(v / 100) in self.here \
                and not self.producers.get(value_key(v / 100)):
            # "10 * 100 / 1000", "4 * 50 / 0.5": a constant that is 100 times a literal the same side writes is that
            return [("t", ("lit", v / 100), "*", HUNDRED)]
        if not options:
            transforms = self.transforms(v)
            if transforms and transforms[0][0] == "t" and transforms[0][1][0] == "lit" \
                    and transforms[0][3] == HUNDRED:
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
        if value_key(v) in _FREE or value_key(v) in self.unit_keys:  # 36 inches in a yard is a unit factor, not 12 * three
            return []
        out: list[tuple] = []
        bases = [(v / 100, "*", HUNDRED), (v * 100, "/", HUNDRED), (-v, "neg", None)]
        for i in sorted(self.qs.percent):
            q = self.qs.values[i]
            for value, how in ((1 + q / 100, "1+"), (1 - q / 100, "1-"), (100 + q, "100+"), (100 - q, "100-")):
                if value == v:
                    out.append(("p", i, how))
        for base, how, factor in bases:  # quantities first, then derived values
            if value_key(base) in self.here and not self.producers.get(value_key(base)):  # "4 * 100 / 400": 400 is 100 times
                # the 4 this side writes, read as it is (not a derived 80 in "80 / .8" for the problem's 80%)
                out.append(("t", ("lit", base), how, factor))
                continue
            for i in self.qs.by_value.get(value_key(base), ()):  # of a numeral the problem writes, not of a value it
                if i < self.qs.stated:                     # implies (20 is no 480 minutes over 24)
                    out.append(("t", ("q", i), how, factor))
        for base, how, factor in bases:
            for node in self.producers.get(value_key(base), ()):
                if node >= 0:
                    out.append(("t", ("d", node), how, factor))
        return out[:8]

    def make(self, option: tuple, v: Fraction, ast=None) -> int:
        node = self._make(option, v, ast)
        if ast is not None and option[0] != "/" and node not in self.literals:
            self.literals[node] = f"{render_number(ast[1][1])}/{render_number(ast[2][1])}"
        return node

    def _make(self, option: tuple, v: Fraction, ast=None) -> int:
        kind = option[0]
        if kind == "d":
            if option[1] < 0:
                raise Unreadable  # the value an opaque step derived
            return option[1]
        if kind == "q":
            return self.symbol(option[1])
        if kind == "c":
            return self.const(v)
        if kind == "?":
            raise Unreadable
        if kind == "/":
            return self.op("/", self.build(ast[1]), self.build(ast[2]))
        if kind == "p":
            i, how = option[1], option[2]
            if how[0] == "1":
                part = self.op("/", self.symbol(i), self.const(HUNDRED))
                node = self.op(how[-1], self.const(Fraction(1)), part)
            else:
                node = self.op(how[-1], self.const(HUNDRED), self.symbol(i))
        else:  # a transform
            _, source, how, factor = option
            x = self.leaf(source[1]) if source[0] == "lit" else self._make(source, v)
            if how == "neg":
                node = self.op("neg", x, None)
            elif how == "*" and value_key(factor) in self.here and value_key(factor) != value_key(v):  # "50 * 100 / 5000": the factor
                # of 5000 = 100 · 50 read as the written 100 is (not 100 itself: "2 * 100 / 1 - 200")
                node = self.op(how, x, self.leaf(factor))
            else:
                node = self.op(how, x, self.const(factor))
            self.transformed.add(node)
        self.literals[node] = f"{render_number(ast[1][1])}/{render_number(ast[2][1])}" if ast is not None else render_number(v)
        return node

    def leaf(self, v: Fraction, ast=None) -> int:
        """A literal's node. Within one expression a value with no derived reading is read one way wherever it is
        written (``50 * 100 / 5000`` reads both 100s alike: the literal and the factor of ``5000 = 100 · 50``)."""
        key = value_key(v) if ast is None else None
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
        key = value_key(v / 100)
        direct = [("d", n) for n in self.producers.get(key, ()) if n >= 0]
        direct.extend(("q", i) for i in self.qs.by_value.get(key, ()))
        options = [*direct, ("%",)]
        pick = options[0]
        if len(options) > 1:
            k = len(self.seen)
            self.seen.append(len(options))
            pick = options[self.choices[k] % len(options)] if k < len(self.choices) else options[0]
        if pick[0] == "%":
            return self.op("/", self.leaf(v), self.const(HUNDRED))
        return self.make(pick, v / 100)

    def build_side(self, ast) -> int:
        """The node of a whole operand side: ``60 / 60``, ``60 - 60`` (a value and the unit factor a word names, the
        side's only numbers) takes the unit, not the quantity again; ``6 / 6`` where the problem states 6 twice ("6
        cups at 6 cups per hour") divides one by the other."""
        if ast[0] in ("*", "/", "-") and ast[1][0] == ast[2][0] == "n" and ast[1][1] == ast[2][1]:
            v, key = ast[1][1], value_key(ast[1][1])
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
                key = value_key(v)
                derived = [n for n in self.producers.get(key, ()) if n >= 0]
                if derived:
                    return derived[0]
                if key in self.qs.by_value:
                    return self.symbol(self.qs.by_value[key][0])
            return self.op("neg", self.build(ast[1]), None)
        if ast[0] == "^":
            return self.op("^", self.build(ast[1]), ast[2])
        return self.op(ast[0], self.build(ast[1]), self.build(ast[2]))


def render_number(q: Fraction) -> str:
    return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"
