r"""Reading an equation's text as algebra: each side tokenized once, its unknowns as placeholders.

What is read and what is refused is described in :mod:`rewards.checks.algebra`; :func:`read_side` never evaluates
anything (the values are put in later, at random rational points, by :mod:`rewards.checks.algebra.points`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Mapping

from rewards.checks.arithmetic.errors import internal_error
from rewards.checks.arithmetic.tokens import Token, tokenize

__all__ = [
    "MAX_SIDE_CHARS", "MAX_TOKENS", "MAX_UNKNOWNS", "Side", "binding_key", "bound_side", "equation_sides",
    "literal", "read_equation", "read_side", "unknowns",
]

MAX_SIDE_CHARS = 300
MAX_TOKENS = 160
MAX_UNKNOWNS = 4
_MAX_BINDING_DIGITS = 30
_GREEK = frozenset(
    "alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta kappa lambda mu nu xi rho sigma tau "
    "upsilon phi varphi chi psi omega".split())
_COMMANDS = frozenset(
    "frac sqrt binom pi abs lfloor rfloor lceil rceil sin cos tan cot sec csc log ln lg exp sinh cosh tanh".split())
_FUNCTION_LETTERS = frozenset("fghpqFGHPQ")
_RESERVED = frozenset({"i", "e"})
_STOP_RUNS = frozenset(
    "an as at be by do if in is it no of on or so to up we and are but can for has its let not now one our the "
    "two was who all any few may new old see use way cm mm km kg ft in yd lb oz hr min sec deg rad mod gcd lcm "
    "max min det dim ker arg".split())
_REFUSED_TEXT = re.compile(r"\\(?:mathbf|bm|boldsymbol|vec|overline|overrightarrow|hat|bar|tilde|dot|ddot|prime|"
                           r"cancel|phantom|underbrace|overbrace)\b|[<>≤≥'_;:,]|\\\\")
_PROBE_DROP = re.compile(r"\\(?:log|lg)\s*_|(?<=(?<![\\A-Za-z])[A-Za-z])_(?=\d(?!\d)|\{\d{1,2}\}|[A-Za-z](?![A-Za-z])"
                         r"|\{[A-Za-z]\})|\\[,;:!]|\{,\}"
                         r"|(?<=\d),(?=\d{3}(?!\d))")
"""What the refusal test ignores: ``\\log_2``'s subscript, a letter's numeric or one-letter one (``s_1``, ``x_{12}``,
``h_a``, ``h_{c}``), LaTeX
spacing ``\\, \\; \\: \\!``, ``1{,}000`` and ``1,000``."""
_DEGREES = re.compile(r"\^\s*\{\s*\\circ\s*\}|\^\s*\\circ(?![A-Za-z])|°|\\degree(?![A-Za-z])")
"""A degree mark (``20^\\circ``, ``20^{\\circ}``, ``20°``): a unit, dropped from an equation whose every angle is in
degrees, so that ``2x + 20^\\circ = 180^\\circ`` reads as ``2x + 20 = 180``."""
_TRIG = re.compile(r"\\(?:sin|cos|tan|cot|sec|csc|arcsin|arccos|arctan)(?![A-Za-z])|\\pi(?![A-Za-z])|\b(?:sin|cos|tan)\b")
"""Where a degree mark is no mere unit: a trigonometric function's argument, or an equation in radians."""
_DELIMS = re.compile(r"^\s*(?:\$\$|\$|\\\[|\\\()\s*|\s*(?:\$\$|\$|\\\]|\\\))\s*[.,;]?\s*$")
_FUNCTION_POWER = re.compile(r"(?<![\\A-Za-z])[fghpqFGHPQ]\s*\^\s*\{?\s*-")
"""``f^{-1}``, ``g^-1``: an inverse function, not a power of a product."""
_INEQUALITY = re.compile(r"\\(?:le|ge|leq|geq|neq|ne|lt|gt|approx|equiv|sim|pm|mp)\b|[<>≤≥≠≈]")


@dataclass(frozen=True)
class Side:
    """A side tokenized once: ``tokens`` with every unknown as a ("?", name) placeholder; ``names`` its unknowns."""

    tokens: tuple
    names: frozenset
    piecewise: bool = False
    r"""An unknown sits under ``|..|``, a floor or ceiling, a root or a fractional power: the side may agree with
    one polynomial on part of the line and another elsewhere (``|x - 4|``, ``\sqrt{x^2}``), so it is never
    interpolated as a polynomial nor called proportional on a sample."""


_TIMES = Token("o", "*", 0, 0, False)


@lru_cache(maxsize=8192)
def read_side(side: str) -> Side | None:
    """Tokenize one side (math mode) with its unknowns as placeholders; None when it is not safe algebra."""
    if not isinstance(side, str) or len(side) > MAX_SIDE_CHARS:
        return None
    text = side.replace("&", " ").strip()
    text = _DELIMS.sub("", text)
    if not text or "=" in text or _INEQUALITY.search(text):
        return None
    text = text.replace("\n", " ")
    if _REFUSED_TEXT.search(_PROBE_DROP.sub(" ", text)) or _FUNCTION_POWER.search(text):
        return None
    raw: list[Token] = []
    tokenize(text, 0, len(text), True, raw, True)
    if not raw or len(raw) > MAX_TOKENS:
        return None
    out: list = []
    names: set[str] = set()
    skip = 0
    for k, tok in enumerate(raw):
        if skip:
            skip -= 1
            continue
        kind, val = tok[0], tok[1]
        nxt = raw[k + 1] if k + 1 < len(raw) else None
        if kind in ("v", "x"):
            letters = text[tok[2]:tok[3]]
            if " " in letters or not letters.isalpha():
                return None
            index = _subscript(raw, k, text) if len(letters) == 1 and letters not in _RESERVED else None
            if index is not None:  # s_1, x_{12}, h_a: one unknown, named "s_1", "x_12", "h_a"
                name, skip = f"{letters}_{index[0]}", index[1]
                if out and out[-1][0] in ("?", "n", ")", "}") and not (len(out) > 1 and out[-2][0] == "_"):
                    out.append(_TIMES)  # r_1r_2: a product
                out.append(("?", name))
                names.add(name)
                continue
            if len(letters) > 1:
                if len(letters) > 3 or not letters.islower() or letters in _STOP_RUNS:
                    return None
            if nxt is not None and nxt[0] == "(" and nxt[1] == "(" and letters[-1] in _FUNCTION_LETTERS:
                return None  # f(x), g(2), p(1): function notation (x(x+1) is a product)
            for letter in letters:
                if letter in _RESERVED:
                    return None
                if out and out[-1][0] in ("?", "n", ")", "}") and not (len(out) > 1 and out[-2][0] == "_"):
                    out.append(_TIMES)  # 2ab, x y: juxtaposition is a product (not \log_2 x)
                out.append(("?", letter))
                names.add(letter)
            continue
        if kind == "c" and val == "angle":  # \angle ACB: one unknown, named "angle_ACB"
            angle = _angle(raw, k, text)
            if angle is None:
                return None
            skip = angle[1]
            if out and out[-1][0] in ("?", "n", ")", "}"):
                out.append(_TIMES)
            out.append(("?", angle[0]))
            names.add(angle[0])
            continue
        if kind == "c":
            if val in _GREEK:
                if out and out[-1][0] in ("?", "n", ")", "}"):
                    out.append(_TIMES)
                out.append(("?", val))
                names.add(val)
                continue
            if val not in _COMMANDS:
                return None
            if val == "frac" and out and out[-1][0] == "n":
                out.append(_TIMES)  # 2\frac{x}{3} is 2 * x/3 in algebra, not a mixed number
        elif kind == "_":
            if not (out and out[-1][0] == "c" and out[-1][1] in ("log", "lg")):
                return None
        elif kind in ("|", "=", "w", "t", "d", "%", "#"):
            return None
        out.append(tok)
    if len(names) > MAX_UNKNOWNS:
        return None
    return Side(tuple(out), frozenset(names), _piecewise(out))


def _subscript(raw: list, k: int, text: str = "") -> tuple[str, int] | None:
    """``(index, tokens after the letter)`` when the letter at ``raw[k]`` carries a numeric subscript (``_1``,
    ``_{12}``) or a one-letter label (``h_a``, ``h_{c}``: the altitude to side ``a``, one unknown of its own, as
    ``s_1`` is); None otherwise (``a_n``, ``a_{n+1}``, ``x_{ab}``: an index that is itself an unknown or an
    expression is not read, :data:`_INDEX_LETTERS`; ``x_12``,
    which LaTeX sets as ``x_1 2``, is not read either)."""
    rest = raw[k + 1:k + 5]
    if len(rest) < 2 or rest[0][0] != "_":
        return None
    label = rest[2] if len(rest) >= 4 and rest[1][0] == "{" and rest[3][0] == "}" else rest[1]
    letter = text[label[2]:label[3]] if label[0] in ("v", "x") else ""
    if len(letter) == 1 and letter.isalpha() and letter not in _INDEX_LETTERS:
        return text[label[2]:label[3]], 2 if label is rest[1] else 4
    if rest[1][0] == "n" and str(rest[1][1]).isdigit() and len(str(rest[1][1])) == 1:  # x_12 is x_1 times 2
        return str(rest[1][1]), 2
    if len(rest) >= 4 and rest[1][0] == "{" and rest[2][0] == "n" and str(rest[2][1]).isdigit() \
            and len(str(rest[2][1])) <= 2 and rest[3][0] == "}":
        return str(rest[2][1]), 4
    return None


def _angle(raw: list, k: int, text: str) -> tuple[str, int] | None:
    """``("angle_ACB", tokens after \\angle)`` for ``\\angle ACB`` or ``\\angle{B}`` at ``raw[k]``: an angle named
    by one to three vertices is one unknown of its own (``\\angle ACB`` and ``\\angle BCA`` are two names for it,
    read as two unknowns: a link missed, never one made). None for ``m\\angle A`` (a measure written as a product
    with ``m``) or an angle named otherwise."""
    if k > 0 and raw[k - 1][0] in ("v", "x"):
        return None
    rest = raw[k + 1:k + 4]
    braced = len(rest) == 3 and rest[0][0] == "{" and rest[2][0] == "}"
    label = rest[1] if braced else rest[0] if rest else None
    if label is None or label[0] not in ("v", "x"):
        return None
    letters = text[label[2]:label[3]]
    if not (1 <= len(letters) <= 3 and letters.isalpha() and letters.isupper()):
        return None
    return "angle_" + letters, 3 if braced else 1


_INDEX_LETTERS = frozenset("ijkmn")
"""Subscript letters that index a sequence (``a_n``, ``x_i``): ``a_n`` is not one unknown of its own."""

_OPENERS = {"abs": "abs", "lfloor": "rfloor", "lceil": "rceil"}


def _piecewise(toks: list) -> bool:
    r"""Whether an unknown sits under ``|..|``, ``\lfloor..\rfloor``, ``\lceil..\rceil``, ``\sqrt`` or a
    fractional power (scanning each one's argument)."""
    n = len(toks)
    for k, tok in enumerate(toks):
        kind, val = tok[0], tok[1]
        if kind == "c" and val in _OPENERS:
            j = k + 1
            while j < n and not (toks[j][0] == "c" and toks[j][1] == _OPENERS[val]):
                if toks[j][0] == "?":
                    return True
                j += 1
        elif (kind == "c" and val == "sqrt") or (kind == "o" and val == "^"):
            j, depth = k + 1, 0
            fractional = kind == "c"
            while j < n:
                t = toks[j]
                if t[0] in ("{", "("):
                    depth += 1
                elif t[0] in ("}", ")"):
                    depth -= 1
                elif t[0] == "?" and kind == "c":
                    return True
                elif (t[0] == "o" and t[1] == "/") or (t[0] == "c" and t[1] == "frac"):
                    fractional = True
                if depth <= 0 and (t[0] not in ("{", "(") or depth < 0):
                    break
                j += 1
            if kind == "o" and fractional and any(t[0] == "?" for t in toks):
                return True
    return False


@lru_cache(maxsize=4096)
def literal(q: Fraction) -> tuple:
    """The tokens of ``(q)``: ``(n)``, ``(-n)``, ``(n/d)`` or ``(-n/d)`` (cached: a point's values are put into every
    side evaluated there; the tokens are immutable)."""
    body = [Token("n", str(abs(q.numerator)), 0, 0, False)]
    if q.denominator != 1:
        body += [Token("o", "/", 0, 0, False), Token("n", str(q.denominator), 0, 0, False)]
    if q < 0:
        body.insert(0, Token("o", "-", 0, 0, False))
    return (Token("(", "(", 0, 0, False), *body, Token(")", ")", 0, 0, False))


def bound_side(side: Side, bindings: tuple) -> Side:
    if not bindings:
        return side
    values = dict(bindings)
    if not side.names & values.keys():
        return side
    toks: list = []
    for tok in side.tokens:
        if tok[0] == "?" and tok[1] in values:
            toks.extend(literal(values[tok[1]]))
        else:
            toks.append(tok)
    return Side(tuple(toks), side.names - values.keys(), _piecewise(toks))


def read_equation(text_or_sides, bindings: tuple):
    sides = equation_sides(text_or_sides) if isinstance(text_or_sides, str) else tuple(text_or_sides)
    if sides is None or len(sides) != 2:
        return None
    read = [read_side(s) for s in sides]
    if any(r is None for r in read):
        return None
    return tuple(bound_side(r, bindings) for r in read)


def binding_key(bindings: Mapping[str, Fraction] | None) -> tuple | None:
    if not bindings:
        return ()
    out = []
    for name, value in bindings.items():
        try:
            q = Fraction(value)
        except (TypeError, ValueError, ZeroDivisionError):
            return None
        if len(str(abs(q.numerator))) > _MAX_BINDING_DIGITS or len(str(q.denominator)) > _MAX_BINDING_DIGITS:
            return None
        out.append((str(name), q))
    return tuple(sorted(out))


def unknowns(side: str) -> frozenset[str] | None:
    """The unknowns of one side as this module reads them (None when it cannot be read as algebra).

    >>> sorted(unknowns(r"2ab + \\theta")), unknowns("f(x) + 1")
    (['a', 'b', 'theta'], None)
    """
    try:
        read = read_side(side)
    except Exception as exc:  # noqa: BLE001 - never raise on model output (unless RAFS_STRICT)
        internal_error("algebra.unknowns", side, exc)
        return None
    return None if read is None else read.names


_TOP_EQUALS = re.compile(r"&?\s*=\s*&?")


def equation_sides(text: str) -> tuple[str, str] | None:
    """The two sides of one equation's text: ``"2x + 3 &= 11"`` -> ``("2x + 3", "11")``; a chain ``A = B = C``
    reads as ``A = C``; None without ``=`` or with ``==``, ``<=``, ``>=``, ``\\ne``. Degree marks are dropped
    (:data:`_DEGREES`) unless a trigonometric function or ``\\pi`` is written: the angle is then no mere unit.

    >>> equation_sides("$2x + 3 &= 11$"), equation_sides("10^x = 9990 + 10 = 10000"), equation_sides("x < 3")
    (('2x + 3', '11'), ('10^x', '10000'), None)
    >>> equation_sides("2x + 20^\\circ = 180^{\\circ}"), equation_sides("\\sin 30^\\circ = x")[0][-4:]
    (('2x + 20', '180'), 'circ')
    """
    if not isinstance(text, str) or len(text) > 2 * MAX_SIDE_CHARS + 20:
        return None
    body = _DELIMS.sub("", text.strip())
    if not _TRIG.search(body):
        body = _DEGREES.sub("", body)
    if "==" in body or re.search(r"[<>!]=|=[<>]", body):
        return None
    parts = [p.strip() for p in _TOP_EQUALS.split(body)]
    if len(parts) < 2 or any(not p for p in parts):
        return None
    return parts[0], parts[-1]
