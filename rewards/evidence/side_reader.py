"""A bounded recursive-descent reader of one operand side into an expression tree (:func:`parse_side`), over the
arithmetic checker's tokens; never ``eval`` or ``sympify`` of text.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

from rewards.checks.arithmetic.budget import MAX_DEPTH, MAX_EXPONENT, MAX_EXPR_CHARS, MAX_EXPR_TOKENS
from rewards.checks.arithmetic.literals import num_exact
from rewards.checks.arithmetic.tokens import KEYWORDS, tokenize
from rewards.evidence.quantities import value_key


HUNDRED = Fraction(100)


class Unreadable(Exception):
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
            raise Unreadable
        return node

    def enter(self):
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise Unreadable

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
                    raise Unreadable
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
                raise Unreadable  # a power with a derived, fractional or huge exponent: out of the grammar
            return ("^", base, int(exponent[1]))
        return base

    def postfix(self):
        node = self._postfix()
        if node[0] == "/" and node[2] == ("n", HUNDRED) and node[1][0] == "n":
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
            raise Unreadable
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
        raise Unreadable

    def primary(self):
        k, v = self.kind(), self.val()
        if k == "n":
            self.i += 1
            q = num_exact(v)
            if q is None:
                raise Unreadable
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
        raise Unreadable


def literal_keys(ast) -> dict:
    """How often an AST writes each plain literal value (by :func:`value_key`)."""
    out: dict = {}
    stack = [ast]
    while stack:
        node = stack.pop()
        if node[0] == "n":
            key = value_key(node[1])
            out[key] = out.get(key, 0) + 1
        elif node[0] in ("+", "-", "*", "/", "frac"):
            stack.extend((node[1], node[2]))
        elif node[0] in ("neg", "^"):
            stack.append(node[1])
        elif node[0] == "pct":
            key = value_key(node[1])
            out[key] = out.get(key, 0) + 1
    return out


@lru_cache(maxsize=4096)
def parse_side(side: str):
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
    except (Unreadable, RecursionError, ValueError, ZeroDivisionError):
        return None
