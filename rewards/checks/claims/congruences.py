r"""Number-theory claims: congruences, division with remainder, gcd/lcm values and base-``b`` numerals.

A claim checker for :mod:`rewards.checks.claims` (``check_trace(steps, problem)``): it refutes a step that states one of
these claims with every quantity numeric, and returns the failed :class:`~rewards.checks.arithmetic.EquationCheck`.

Congruences
    A chain ``a \equiv b \equiv c \pmod{m}`` (also ``≡``, ``\mod m``, ``(mod m)``, ``(\text{mod } m)``,
    ``modulo m``, "is congruent to", ``\not\equiv``; ``=`` links inside such a chain, and ``&\equiv`` lines of an
    ``align`` environment continuing the chain) holds link by link: ``m | (a − b)`` (``m ∤ (a − b)`` for
    ``\not\equiv``). Each link takes the first modulus written after it in the same chain, so a modulus at the end
    applies to the whole chain and ``a \equiv b \pmod 9 \equiv c \pmod 9`` reads naturally. Sides are evaluated by
    :func:`rewards.checks.arithmetic.evaluate`; a side with a variable is skipped. A fraction (``3^{-1}``, ``\frac{1}{3}``)
    is read as a residue (``p·q⁻¹``) when its denominator is invertible modulo ``m`` — that is what ``3^{-1}
    \equiv 13 \pmod{19}`` means; a written decimal is never read. ``=``-only chains with a binary ``a \bmod m = r``
    are left to :mod:`rewards.checks.arithmetic`, which already evaluates ``mod``; ``=`` links are checked here only as
    congruences (``8^4 = (8^2)^2 = 13^2 \pmod{17}`` is loose notation, not a slip).

Division with remainder
    "1529 ÷ 6 = 255 with a remainder of 4", ``1121 \div 243 = 4`` "remainder 133", "9 divided by 6 is 1 with a
    remainder of 3", "a quotient of 167 and a remainder of 0", "7 goes into 50 seven times with remainder 1",
    ``\frac{36}{5} = 7`` "full pens (with a remainder of 1)": with dividend ``a``, divisor ``b``, quotient ``q`` and
    remainder ``r`` all integers (``b > 0``), the claim holds iff ``a = b·q + r`` and ``0 ≤ r < b``. A remainder
    stated alone ("the remainder when 2^{10} is divided by 7 is 2", "1529 divided by 6 leaves a remainder of 4")
    holds iff ``r = a mod b``. The arithmetic checker accepts "1529 ÷ 6 = 255" as a rounded whole number; the
    remainder is what refutes it.

gcd / lcm
    ``\gcd(12, 18) = 6``, ``\text{lcm}(4, 6)``, ``\mathop{\text{lcm}}[a,b]``, ``\operatorname{gcd}``, ``GCD(…)``
    with evaluable integer arguments are replaced by their value and the equation is checked by
    :func:`rewards.checks.arithmetic.check_equation` (chains ``\gcd(3339, 2961) = \gcd(378, 2961) = …`` included); in prose
    "the greatest common divisor (GCD) of 12 and 18 is 6", "the LCM of 4 and 6 is 12".

Base-``b`` numerals
    ``1011_2``, ``1202_{7}``, ``42_{10}`` (digits below the base, base 2–36; a bare subscript only one digit, as
    LaTeX reads it) are replaced by their value, and an equation containing one is checked the same way:
    ``441_{10} = 1202_7`` is false (``1202_7`` is 443).

Left alone, on purpose: congruences with a variable anywhere in a compared side or in the modulus (polynomial
moduli ``\pmod{x^2 - 1}``, ``x \equiv 3 \pmod 4``), lists (``x \equiv 4, 9 \pmod{10}``), a chain whose modulus is
only written in a previous sentence, "X is prime" claims (rarely stated wrongly in a checkable form), a remainder
with a unit or a day count in between ("2087 weeks and 0 days remainder"), a negative divisor, ``a = b·q + r`` on its
own (its equality is arithmetic's, and which factor is the divisor is not said), and every step over
``MAX_STEP_CHARS``.

A congruence chain joined to the next by ``\implies``/``\Rightarrow`` is also read as one derivation: ``L \equiv a
\pmod m \implies L \equiv b \pmod m`` with the same left side ``L`` (a variable allowed) and the same modulus
forces ``a \equiv b`` (``2n \equiv -10 \pmod 3 \implies 2n \equiv 1 \pmod 3`` is a slip).

Measured on ProcessBench when introduced (``benchmarks/claim_checkers.py rewards.checks.claims.congruences:check_trace``): MATH
F1 0.2027 -> 0.2268 (+9 earliest errors found, 0 lost, 0 correct traces flagged, no flag before a labelled error);
GSM8K unchanged (no flag). Gold solutions: 0 of 7,473 GSM8K train and 0 of 500 MATH-500 newly flagged. The checker
alone costs 0.10 ms per GSM8K trace and 0.29 ms per MATH-500 trace.

>>> [c.detail for _, c in check_trace(["1529 ÷ 6 = 255 with a remainder of 4."], "")]
['1529 ÷ 6 = 255 with a remainder of 4 is false: 6·255 + 4 = 1534, not 1529 (1529 = 6·254 + 5)']
>>> [c.detail for _, c in check_trace([r"So $n \equiv 56 \equiv \boxed{6} \pmod{17}$."], "")]
['56 ≡ \\boxed{6} (mod 17) is false: 56 ≡ 5 and 6 ≡ 6 (mod 17)']
>>> check_trace([r"$3^{-1} \equiv 13 \pmod{19}$ and $\gcd(12, 18) = 6$, $1011_2 = 11$."], "")
[]
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

from rewards.checks.arithmetic import (Equation, EquationCheck, Value, check_equation, contains_any, evaluate,
                                       extract_equations)
from rewards.checks.claims.gates import admits
from rewards.parsing.values import format_value

__all__ = ["Congruence", "check_trace", "congruence_chains", "congruence_checks", "remainder_checks",
           "substitution_checks"]

MAX_STEP_CHARS = 4000
MAX_SIDE_CHARS = 300
MAX_CLAUSES = 200  # congruence clauses read per step
MAX_CLAIMS = 60  # remainder / gcd / base claims read per step
MAX_MODULUS_BITS = 256

_PREFILTER_WORDS = ("equiv", "≡", "≢", "mod", "congruent", "remainder", "goes into", "gcd", "lcm", "gcf", "hcf",
                    "common")
_PREFILTER_PATTERNS = re.compile(r"_\{?\d|\d\s*(?:\\[,;]\s*|\\(?:text|mathrm)\s*\{\s*){0,3}[Rr]\b")


def _may_hold_a_claim(step: str) -> bool:
    """Cheap test (substring search on the lower-cased step, one small regex): can ``step`` hold a congruence,
    remainder, gcd/lcm or base-b claim at all?"""
    low = step.lower()
    return _has_prefilter_word(low) or (
        ("_" in step or _has_r_claim(step, low)) and _PREFILTER_PATTERNS.search(step) is not None)


def _has_r_claim(step: str, low: str) -> bool:
    """``_PREFILTER_R_FIRST.search(step) is not None``; on ASCII text searched in ``low`` (lower-cased) for a lower-case
    ``r`` (:data:`_PREFILTER_R_LOWER`), a literal the regex engine skips to. ASCII lower-casing maps ``R`` to ``r`` and
    no other character the pattern reads (digits, blanks, ``,;{`` stay, letters stay letters for ``\\b``)."""
    if step.isascii():
        return _PREFILTER_R_LOWER.search(low) is not None
    return _PREFILTER_R_FIRST.search(step) is not None


def _has_prefilter_word(low: str) -> bool:
    """Whether one of :data:`_PREFILTER_WORDS` occurs in ``low`` (lower-cased)."""
    return contains_any(low, _PREFILTER_WORDS)


_PREFILTER_R = re.compile(r"[\d\s,;{][Rr]\b")
"""What every match of :data:`_PREFILTER_PATTERNS` without ``_`` holds: its ``R`` after a digit, a blank, ``\\,`` /
``\\;`` or a brace (the one character its pattern lets precede it) — one cheap character test per position, where
that pattern starts a bounded match at every digit of a step."""
_PREFILTER_R_FIRST = re.compile(r"[Rr]\b(?<=[\d\s,;{][Rr])")
""":data:`_PREFILTER_R` found from its ``R`` (then the character before it): the same steps match, and the scan stops
only at an ``R``/``r``, not at every digit and blank (tests check they agree)."""
_PREFILTER_R_LOWER = re.compile(r"r\b(?<=[\d\s,;{]r)")
""":data:`_PREFILTER_R_FIRST` for lower-cased ASCII text (:func:`_has_r_claim`)."""

# ---------------------------------------------------------------------------------------------- congruences
_BRACED = r"\{(?:[^{}]|\{[^{}]*\})*\}"
_ATOM = r"-?\s*\d+(?:\s*\^\s*(?:\{[^{}]{1,20}\}|\d))?(?:\s*\^\s*\\circ|°)?|[A-Za-z]"
# "\s*(?!\s)" takes a run of blanks whole (what follows never starts with one): no quadratic backtracking
_ATOM_WRAPPED = rf"(?:\\\(|\$)?\s*(?!\s)(?:{_BRACED}|{_ATOM})\s*(?:\\\)|\$)?"
_MOD_WORD = r"(?:\\(?:text|mathrm|operatorname|textrm|rm)\s*\{\s*mod(?:ulo)?\s*\}|\\b?mod\b|\bmod(?:ulo)?\b)"
_TOKEN = re.compile(
    r"(?P<pmod>\\pmod\s*(?!\s)(?P<pm>" + _BRACED + "|" + _ATOM + r"))"
    r"|(?P<pmod2>\(\s*" + _MOD_WORD + r"\s*(?:(?!\s)|(?=\s\)))(?:\\[,;: ]\s*(?:(?!\s)|(?=\s\))))*"
    r"(?P<pm2>[^()]{1,40}?)\s*\))"
    r"|(?P<pmod3>\\text\s*\{\s*\(\s*mod(?:ulo)?\s+(?P<pm3>\d{1,12})\s*\)\s*\})"
    r"|(?P<wmod>" + _MOD_WORD + r"\s*(?!\s)(?:\\[,;: ]\s*(?!\s))*(?P<wm>" + _ATOM_WRAPPED + r"))"
    r"|(?P<ne>\\not\s*\\equiv|≢|\b(?:which\s+|that\s+)?(?:is|are)\s+not\s+(?:congruent|equivalent)\s+to\b)"
    r"|(?P<eq>\\equiv|≡|\b(?:which\s+|that\s+)?(?:is|are)\s+(?:congruent|equivalent)\s+to\b)"
    r"|(?P<is>==?(?!=))"
    r"|(?P<stop>\\\[|\\\]|\$\$|\\begin\s*\{[^{}]*\}|\\end\s*\{[^{}]*\}|\\\\|\n|\\implies|\\Rightarrow"
    r"|\\Longrightarrow|\\Leftarrow|\\rightarrow|\\longrightarrow|\\Leftrightarrow|\\iff|\\to\b|\\quad|\\qquad"
    r"|\\(?:text|textbf|mathrm|mbox|textit|emph)\s*\{[^{}]*\}|;|:|,(?!\d{3}(?!\d))|\.(?!\d)|<|>|≤|≥|≠|≈"
    r"|\\(?:le|ge|leq|geq|lt|gt|ne|neq|approx|sim|pm|mp|cdots|ldots|dots|in|notin|mid|nmid|forall|exists"
    r"|subset|cup|cap|and|land|lor|wedge|vee)\b|\?|\bif\b|\band\b|\bor\b|(?<![\\A-Za-z])[A-Za-z]{2,})"
    r"|(?P<cmd>\\[A-Za-z]+|\\.)",
    re.S)
# a line break (or a new display block) that continues the chain: the next line starts with a relation
_CONTINUE = re.compile(
    r"(?:\\\\|\n|\\\]\s*\\\[)\s*(?!\s)(?:&\s*(?!\s))?(?:\\q?quad\s*(?!\s))*"
    r"(?=&?\s*(?:\\equiv|≡|\\not\s*\\equiv|=|\+|\\cdot))")
_QUAD_REL = re.compile(r"\\q?quad\s*(?!\s)(?=&?\s*(?:\\equiv|≡|=))|(?<=\\equiv)\s*\\q?quad|(?<==)\s*\\q?quad")
_DECIMAL = re.compile(r"\d\.\d")
_CONTINUE_AT = re.compile(r"(?=\\\\|\n|\\\])")  # where a _CONTINUE match can start
_BLANKS = re.compile(r"\s*")


def _join_continued(text: str) -> str:
    """``_CONTINUE.sub(" ", text)``, trying only the first line break of a run of blanks: every later one fails
    as it does (what follows the run decides), so a run of newlines costs its length, not its square."""
    out, last, skip = [], 0, -1
    for c in _CONTINUE_AT.finditer(text):
        i = c.start()
        if i < last or i < skip:
            continue
        m = _CONTINUE.match(text, i)
        if m:
            out.append(text[last:i])
            out.append(" ")
            last = m.end()
        elif text[i] == "\n":
            skip = _BLANKS.match(text, i).end()
    out.append(text[last:])
    return "".join(out)


class _Clause:
    __slots__ = ("start", "end", "sides", "rels", "marks", "dirty", "cong", "index", "opened_by")

    def __init__(self, start: int, index: int = 0, opened_by: str = ""):
        self.start = start
        self.index = index  # position among all clauses of the text, empty ones included
        self.opened_by = opened_by  # the separator before it
        self.end = start
        self.sides: list[str] = [""]
        self.rels: list[str] = []
        self.marks: list[tuple[int, str, bool, str]] = []  # (side index, modulus text, parenthesised, raw text)
        self.dirty: set[int] = set()  # sides with text after their modulus
        self.cong = False


def _clauses(text: str):
    text = text.replace("$$", "\\[").replace("$", " ").replace("\\(", "  ").replace("\\)", "  ")
    text = _QUAD_REL.sub(" ", _join_continued(text)).replace("&", " ")
    out: list[_Clause] = []
    cur = _Clause(0)
    pos = 0

    def close(at: int, by: str = ""):
        nonlocal cur
        cur.end = at
        if cur.rels:
            out.append(cur)
        cur = _Clause(at, cur.index + 1, by)

    def add(piece: str):
        if piece.strip():
            k = len(cur.sides) - 1
            if any(m[0] == k for m in cur.marks):
                cur.dirty.add(k)
        cur.sides[-1] += piece

    for m in _TOKEN.finditer(text):
        if len(out) >= MAX_CLAUSES:
            break
        add(text[pos:m.start()])
        pos = m.end()
        kind = m.lastgroup
        if kind in ("pmod", "pmod2", "pmod3", "wmod"):
            paren = kind != "wmod"
            modulus = m.group({"pmod": "pm", "pmod2": "pm2", "pmod3": "pm3", "wmod": "wm"}[kind])
            cur.marks.append((len(cur.sides) - 1, modulus, paren, m.group(0)))
            cur.cong = cur.cong or paren
        elif kind in ("ne", "eq", "is"):
            cur.rels.append({"ne": "≢", "eq": "≡", "is": "="}[kind])
            cur.cong = cur.cong or kind != "is"
            cur.sides.append("")
        elif kind == "stop":
            close(m.start(), m.group(0))
            cur.start = pos
        else:  # a LaTeX command that belongs to the expression
            add(m.group(0))
    add(text[pos:])
    close(len(text))
    return out


def _int_value(text: str) -> int | None:
    text = text.strip().strip("{}").strip()
    v = evaluate(text) if 0 < len(text) <= 80 else None
    if v is None or not v.is_exact or v.exact is None or v.exact.denominator != 1:
        return None
    n = abs(v.exact.numerator)
    return n if 0 < n and n.bit_length() <= MAX_MODULUS_BITS else None


def _side_value(text: str) -> Fraction | None:
    text = text.strip()
    if not text or len(text) > MAX_SIDE_CHARS or _DECIMAL.search(text):
        return None
    v = evaluate(text)
    if v is None or not v.is_exact or v.exact is None:
        return None
    return v.exact


def _residue(x: Fraction, m: int) -> int | None:
    if x.denominator == 1:
        return x.numerator % m
    if math.gcd(x.denominator, m) != 1:
        return None
    return x.numerator * pow(x.denominator, -1, m) % m


def _fmt(x: Fraction, name: str) -> str:
    """``x`` exactly (:func:`~rewards.parsing.values.format_value`), or ``name`` ("the left side") when that is
    longer than 24 characters: a residue detail names a huge operand instead of printing it."""
    text = format_value(x)
    return text if len(text) <= 24 else name


_IMPLIES = frozenset({"\\implies", "\\Rightarrow", "\\Longrightarrow"})
_SPACES = re.compile(r"\s+|\\[,;!: ]")


def _simple_congruence(c: _Clause) -> tuple[str, Fraction, int] | None:
    """``(left side, right value, modulus)`` of a clause ``L \\equiv r \\pmod m`` whose left side has a variable."""
    if c.rels != ["≡"] or c.dirty or len(c.marks) != 1 or c.marks[0][0] != 1:
        return None
    left = _SPACES.sub("", c.sides[0])
    if not left or len(left) > 60 or not re.search(r"[A-Za-z]", left) or "\\" in left:
        return None
    right, m = _side_value(c.sides[1]), _int_value(c.marks[0][1])
    if right is None or m is None:
        return None
    return left, right, m


def _implication_checks(clauses: list[_Clause]) -> list[EquationCheck]:
    """``L \\equiv a \\pmod m \\implies L \\equiv b \\pmod m``: the same ``L`` modulo the same ``m`` forces
    ``a \\equiv b``."""
    out: list[EquationCheck] = []
    for c1, c2 in zip(clauses, clauses[1:]):
        if c2.index != c1.index + 1 or c2.opened_by not in _IMPLIES:
            continue
        p, q = _simple_congruence(c1), _simple_congruence(c2)
        if p is None or q is None or p[0] != q[0] or p[2] != q[2]:
            continue
        m = p[2]
        ra, rb = _residue(p[1], m), _residue(q[1], m)
        if ra is None or rb is None or ra == rb:
            continue
        l1, l2 = c1.sides[0].strip(), c2.sides[0].strip()
        detail = (f"{l1} ≡ {c1.sides[1].strip()} (mod {m}) cannot imply {l2} ≡ {c2.sides[1].strip()} (mod {m}): "
                  f"{_fmt(p[1], 'the first')} ≡ {ra} but {_fmt(q[1], 'the second')} ≡ {rb} (mod {m})")
        eq = Equation(sides=[c.sides[1].strip() for c in (c1, c2)], values=[_val(p[1]), _val(q[1])],
                      span=(c1.start, c2.end), source="claim", relations=("≡",))
        out.append(EquationCheck(eq, False, detail, (False,)))
    return out


def congruence_checks(text: str) -> list[EquationCheck]:
    """A failed check for every congruence chain in ``text`` with a false link (the first one of each chain), and
    for every implication between two congruences of one expression to the same modulus whose right sides differ."""
    clauses = _clauses(text)
    out: list[EquationCheck] = _implication_checks(clauses)
    for c in clauses:
        if c.cong:
            check = _chain_check(c)
            if check is not None:
                out.append(check)
    return out


def _sides_and_moduli(c) -> tuple[list[str], list[tuple[int, str]]]:
    """A clause's sides and its moduli ``(index of the side it follows, modulus text)``; an unparenthesised
    "mod m" before an "=" is the binary operation (17 mod 5 = 2): kept in the side, no modulus."""
    n = len(c.sides)
    moduli: list[tuple[int, str]] = []
    sides = list(c.sides)
    for k, modulus, paren, raw in c.marks:
        if not paren and k < n - 1 and c.rels[k] == "=":
            sides[k] = sides[k] + " " + raw
            continue
        moduli.append((k, modulus))
    return sides, moduli


def _chain_check(c) -> EquationCheck | None:
    """The failed check of a congruence chain's first false link (each link read modulo the first modulus after
    it), or None when every link that can be read holds."""
    sides, moduli = _sides_and_moduli(c)
    values = [None if k in c.dirty else _side_value(s) for k, s in enumerate(sides)]
    for i, rel in enumerate(c.rels):
        a, b = values[i], values[i + 1]
        if a is None or b is None:
            continue
        follow = [mod for k, mod in moduli if k >= i + 1]
        if not follow:
            continue
        m = _int_value(follow[0])
        if m is None:
            continue
        ra, rb = _residue(a, m), _residue(b, m)
        if ra is None or rb is None:
            continue
        holds = (ra == rb) if rel != "≢" else (ra != rb)
        if holds:
            continue
        sa, sb = sides[i].strip(), sides[i + 1].strip()
        if rel == "≢":
            detail = f"{sa} ≢ {sb} (mod {m}) is false: both are ≡ {ra} (mod {m})"
        else:
            detail = (f"{sa} ≡ {sb} (mod {m}) is false: {_fmt(a, 'the left side')} ≡ {ra} and "
                      f"{_fmt(b, 'the right side')} ≡ {rb} (mod {m})")
        eq = Equation(sides=[s.strip() for s in sides], values=[_val(v) for v in values],
                      span=(c.start, c.end), source="claim", relations=tuple(c.rels))
        pairs = tuple(False if j == i else None for j in range(len(c.rels)))
        return EquationCheck(eq, False, detail, pairs)
    return None


def _val(x: Fraction | None) -> Value | None:
    return None if x is None else Value(x, float(x), True)


@dataclass(frozen=True)
class Congruence:
    """A congruence chain ``a_0 ≡ a_1 ≡ ... ≡ a_n (mod m)`` read for what it derives (``=`` links read as
    congruences, as :func:`congruence_checks` reads them): ``sides``/``values`` from its first integer side on;
    ``relations`` between adjacent sides; ``modulus`` (its text ``modulus_text``); ``span`` where it sits in the
    step (approximate inside joined ``align`` rows); ``holds``: every link holds modulo ``modulus``."""

    sides: tuple[str, ...]
    values: tuple[Fraction, ...]
    relations: tuple[str, ...]
    modulus: Fraction
    modulus_text: str
    span: tuple[int, int]
    holds: bool


def congruence_chains(text: str) -> list[Congruence]:
    r"""The congruence chains of a step that a derivation may read: one modulus, written after the last side (maybe
    repeated on earlier rows): ``129^{34}+96^{38} \equiv 3^4 + 3^3 \equiv 108 \equiv 9 \pmod{11}``, ``align`` rows
    continued by ``&\equiv``; leading sides that have an unknown are dropped (``(n + 2)(n + 4) \equiv 4 \cdot 6``)
    and the chain is cut at the first later side that is no integer; ``\not\equiv`` links, text after a modulus
    and different moduli are not read. Whether the chain derives its last side is the dataflow's business
    (:mod:`rewards.evidence`); this only reads and checks. Never raises.

    >>> [(c.values, c.modulus, c.holds) for c in congruence_chains(r"$$47+23+37+52 \equiv 159 \equiv 59 \pmod{100}$$")]
    [((Fraction(159, 1), Fraction(159, 1), Fraction(59, 1)), Fraction(100, 1), True)]
    >>> congruence_chains(r"$54 = 9 \cdot 6 + 0 \Rightarrow 54 \equiv \boxed{0} \pmod{6}$")[0].sides
    ('54', '\\boxed{0}')
    >>> congruence_chains(r"$17 \equiv 5 \pmod 7$")[0].holds
    False
    """
    if not isinstance(text, str) or len(text) > MAX_STEP_CHARS or not _may_hold_a_claim(text):
        return []
    try:
        return [chain for chain in map(_chain, _clauses(text)) if chain is not None]
    except (ArithmeticError, ValueError, RecursionError, MemoryError):
        return []


def _chain(c: _Clause) -> Congruence | None:
    last = len(c.sides) - 1
    if not c.cong or "≢" in c.rels or not c.marks or c.marks[-1][0] != last or c.dirty \
            or not all(mark[2] for mark in c.marks):
        return None
    moduli = {_int_value(mark[1]) for mark in c.marks}  # "\pmod 9" repeated on every row of an align
    modulus = moduli.pop() if len(moduli) == 1 else None
    if modulus is None or modulus < 2:
        return None
    kept: list[tuple[str, Fraction]] = []
    relations: list[str] = []
    for k, side in enumerate(c.sides):
        value = _side_value(side) if not re.search(r"(?<![\\A-Za-z])[A-Za-z]", side) else None
        if value is None or value.denominator != 1:
            if kept:
                break
            continue
        if kept:
            relations.append(c.rels[k - 1])
        kept.append((side.strip(), value))
    if len(kept) < 2:
        return None
    values = tuple(v for _, v in kept)
    holds = all((a - b) % modulus == 0 for a, b in zip(values, values[1:]))
    return Congruence(tuple(s for s, _ in kept), values, tuple(relations), Fraction(modulus),
                      c.marks[0][1].strip().strip("{}").strip(), (c.start, c.end), holds)


# ---------------------------------------------------------------------------------- division with remainder
_NUM_WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty".split())}
_NUM_WORDS.update({"once": 1, "twice": 2, "thrice": 3})
PLAIN_MARKUP = re.compile(
    r"\\(?:text|textbf|mathrm|mbox|textit|emph|operatorname)\s*\{([^{}]*)\}|\\[\[\]()]|\$|\*\*|\\q?quad|\\[,;:! ]"
    r"|\\left|\\right|\\displaystyle")
_N = r"(?:\d{1,3}(?:,\d{3})+(?![\d,])|\d{1,30})(?!\.\d)"
_EXPR = rf"(?:{_N}(?:\s*\^\s*(?:\{{\s*\d{{1,4}}\s*\}}|\d))?)"
_NWORD = r"(?:" + "|".join(sorted(_NUM_WORDS, key=len, reverse=True)) + r")"
_Q = rf"(?:{_N}|{_NWORD})"
_REM = (r"(?:(?:,|\(|and|with|has|gives|leaves|leaving|is)\s+)*(?:a\s+|an\s+|the\s+)?"
        r"\b(?:remainder\b|rem\b\.?|R\b|r\b)\s*(?:(?:of|is|=|:|equal\s+to)\s*)?(?:\\boxed\s*)?(?:\{\s*)?(?P<r>" + _N + r")\b")
_DIV_OP = r"\s*(?:÷|\\div|/|divided\s+by)\s*"
_END = r"(?![\d.,]\d|\s*[\^/÷*×+\-]|\s*(?:times|percent|%|more|less|fewer|plus|minus|of)\b)"  # a whole number
_START = r"(?<![\w.^/+\-*×·)])(?<![\w.^/+\-*×·)] )"  # not the end of a longer expression
_REMAINDER_RES = [
    # 1529 ÷ 6 = 255 with a remainder of 4 ; \frac{36}{5} = 7 full pens (with a remainder of 1
    re.compile(rf"{_START}(?:(?P<a>{_EXPR}){_DIV_OP}(?P<b>{_EXPR})|\\d?frac\s*\{{\s*(?P<a2>{_EXPR})\s*\}}\s*"
               rf"\{{\s*(?P<b2>{_EXPR})\s*\}})\s*(?:=|is|equals|gives)\s*(?P<q>{_Q}){_END}"
               rf"(?P<gap>[^=\d]{{0,40}}?)\s*{_REM}", re.I),
    # dividing 2250 by 360 gives a quotient of 6 with a remainder of 90 / when we divide A by B, we get ...
    re.compile(rf"\bdivid(?:e|es|ed|ing)\s+(?P<a>{_EXPR})\s+by\s+(?P<b>{_EXPR})\s*(?:,\s*)?(?:we\s+get|gives|yields|"
               rf"results\s+in|is)\s+(?:us\s+)?(?:a\s+|the\s+)?quotient\s+(?:of\s+|is\s+)?(?P<q>{_Q})\s*,?"
               rf"(?P<gap>\s*){_REM}", re.I),
    # dividing 360 into 2250 gives a quotient of 6 with a remainder of 90
    re.compile(rf"\bdivid(?:e|es|ed|ing)\s+(?P<b>{_EXPR})\s+into\s+(?P<a>{_EXPR})\s*(?:,\s*)?(?:we\s+get|gives|yields|"
               rf"results\s+in|is)\s+(?:us\s+)?(?:a\s+|the\s+)?quotient\s+(?:of\s+|is\s+)?(?P<q>{_Q})\s*,?"
               rf"(?P<gap>\s*){_REM}", re.I),
    # 7 goes into 50 seven times with remainder 1
    re.compile(rf"{_START}(?P<b>{_EXPR})\s+goes\s+into\s+(?P<a>{_EXPR})\s+(?P<q>{_Q})\s+times?\b"
               rf"(?P<gap>\s*){_REM}", re.I),
]
_REMAINDER_ONLY = [
    # the remainder when 2^{10} is divided by 7 is 2 ; the remainder of 2^8 when divided by 5 is 3
    re.compile(rf"(?<!have )(?<!has )(?<!with )(?<!leaves )(?<!leave )(?<!gives )(?<!give )(?<!yields )"
               rf"\bthe\s+remainder\s+(?:when|of|upon\s+dividing|after\s+dividing)\s+(?P<a>{_EXPR})\s+(?:is\s+)?"
               rf"(?:when\s+)?(?:divided\s+by|by|is\s+divided\s+by)\s+(?P<b>{_EXPR})\s*(?:,\s*)?(?:which\s+)?"
               rf"(?:is|=|equals)\s*(?::\s*)?(?:\\boxed\s*)?(?:\{{\s*)?(?P<r>{_N}){_END}", re.I),
    # the remainder of 194 (mod 11) is 9
    re.compile(rf"\bremainder\s+(?:of\s+)?(?P<a>{_EXPR})\s*\(\s*mod(?:ulo)?\s+(?P<b>{_EXPR})\s*\)\s*(?:is|=)\s*(?::\s*)?"
               rf"(?:\\boxed\s*)?(?:\{{\s*)?(?P<r>{_N}){_END}", re.I),
    # 1529 divided by 6 leaves a remainder of 4 ; 2004 divided by 12 gives a remainder of 0
    re.compile(rf"{_START}(?P<a>{_EXPR})\s+(?:when\s+)?(?:is\s+)?divided\s+by\s+(?P<b>{_EXPR})\s+"
               rf"(?:leaves|gives|has|yields)\s+(?:a\s+|the\s+)?remainder\s+(?:of\s+)?(?P<r>{_N})\b"
               rf"(?![.,]\d|\s*[\^/÷*×+\-])", re.I),
    # 2^8 leaves a remainder of 3 when divided by 5
    re.compile(rf"{_START}(?P<a>{_EXPR})\s+(?:leaves|has|gives)\s+(?:a\s+|the\s+)?remainder\s+(?:of\s+)?"
               rf"(?P<r>{_N})\s+when\s+(?:it\s+is\s+)?divided\s+by\s+(?P<b>{_EXPR})\b(?![.,]\d|\s*[\^/÷*×+\-])",
               re.I),
]
_GAP_OK = re.compile(r"[\sA-Za-z(),]*")
_SHORT_R = re.compile(r"\d\s*(?:\\[,;]\s*|\\(?:text|mathrm)\s*\{\s*){0,3}[Rr]\b")


def _num(text: str | None) -> int | None:
    if text is None:
        return None
    t = text.strip().lower()
    if t in _NUM_WORDS:
        return _NUM_WORDS[t]
    v = evaluate(t.replace(",", "")) if len(t) <= 40 else None
    if v is None or not v.is_exact or v.exact is None or v.exact.denominator != 1:
        return None
    return v.exact.numerator if v.exact.numerator.bit_length() <= 4096 else None


def _claim(sides, values, span, detail) -> EquationCheck:
    eq = Equation(sides=list(sides), values=[None if v is None else _val(Fraction(v)) for v in values],
                  span=span, source="claim")
    return EquationCheck(eq, False, detail, (False,) * max(1, len(sides) - 1))


def remainder_checks(text: str) -> list[EquationCheck]:
    """A failed check for every false quotient-and-remainder or remainder statement in ``text``."""
    low = text.lower()
    if "remainder" not in low and "goes into" not in low and not _SHORT_R.search(text):
        return []
    plain = PLAIN_MARKUP.sub(lambda m: f" {m.group(1)} " if m.group(1) is not None else " ", text)
    plain = re.sub(r"[ \t]+", " ", plain)
    out: list[EquationCheck] = []
    seen: set[tuple[int, int]] = set()
    budget = MAX_CLAIMS
    for rx in _REMAINDER_RES:
        for m in rx.finditer(plain):
            budget -= 1
            if budget < 0:
                return out
            gap = m.group("gap") or ""
            if not _GAP_OK.fullmatch(gap) or len(gap.split()) > 5:
                continue
            a = _num(m.groupdict().get("a") or m.groupdict().get("a2"))
            b = _num(m.groupdict().get("b") or m.groupdict().get("b2"))
            q, r = _num(m.group("q")), _num(m.group("r"))
            if None in (a, b, q, r) or b <= 0 or a < 0:
                continue
            seen.add((m.start(), m.end()))
            if a == b * q + r and 0 <= r < b:
                continue
            claim = re.sub(r"\s+", " ", m.group(0)).strip()
            qq, rr = divmod(a, b)
            why = f"{b}·{q} + {r} = {b * q + r}, not {a}" if a != b * q + r else f"the remainder must be less than {b}"
            out.append(_claim([str(a), f"{b}·{q} + {r}"], [a, b * q + r], m.span(),
                              f"{claim} is false: {why} ({a} = {b}·{qq} + {rr})"))
    for rx in _REMAINDER_ONLY:
        for m in rx.finditer(plain):
            budget -= 1
            if budget < 0:
                return out
            if any(s <= m.start() < e for s, e in seen):
                continue
            a, b, r = _num(m.group("a")), _num(m.group("b")), _num(m.group("r"))
            if None in (a, b, r) or b <= 0:
                continue
            if r == a % b:
                continue
            claim = re.sub(r"\s+", " ", m.group(0)).strip()
            out.append(_claim([f"{a} mod {b}", str(r)], [a % b, r], m.span(),
                              f"{claim} is false: {a} = {b}·{a // b} + {a % b}, so the remainder is {a % b}"))
    return out


# ------------------------------------------------------------------------------ gcd / lcm and base numerals
_GCD_CALL = re.compile(
    r"(?:\\(?:gcd|operatorname\s*\{\s*(?:gcd|lcm)\s*\}|mathop\s*\{\s*\\text\s*\{\s*(?:gcd|lcm)\s*\}\s*\}|"
    r"(?:text|mathrm|textrm|rm)\s*\{\s*(?:gcd|lcm|GCD|LCM|GCF|gcf)\s*\})|(?<![\\A-Za-z])(?:gcd|lcm|GCD|LCM|GCF|gcf))"
    r"(?:\s|\\[,;!: ]|\\left)*(?P<open>[(\[])")
_BASE_NUM = re.compile(r"(?<![\w.\\^_{}])(?<![\\\w]\{)(?P<d>\d{1,40})_(?:\{\s*(?P<b1>\d{1,2})\s*\}|(?P<b2>\d)(?!\d))")
_PROSE_GCD = re.compile(
    rf"\b(?P<kind>greatest\s+common\s+(?:divisor|factor)|highest\s+common\s+factor|gcd|gcf|hcf|"
    rf"least\s+common\s+multiple|lowest\s+common\s+multiple|lcm)(?:\s*\(\s*[A-Za-z]{{3}}\s*\))?\s+of\s+"
    rf"(?P<args>{_EXPR}(?:\s*(?:,\s*and|,|and)\s*{_EXPR}){{1,5}})\s*(?:,\s*)?(?:which\s+is|is|=|equals|will\s+be|would\s+be)"
    rf"\s*(?::\s*)?"
    rf"(?:\\boxed\s*)?(?:\{{\s*)?(?P<v>{_N}){_END}", re.I)
_GCD_KIND = (r"(?P<kind>greatest\s+common\s+(?:divisor|factor)|highest\s+common\s+factor|gcd|gcf|hcf|"
             r"least\s+common\s+multiple|lowest\s+common\s+multiple|lcm)")
# "we find the GCD of 2187 and 5625. Using the Euclidean algorithm, we find that the GCD is 3": the value is stated in a
# later sentence about "the GCD" with no "of"; the antecedent is the last gcd/lcm named "of" numbers before it
_NAMED_GCD = re.compile(
    rf"\b{_GCD_KIND}(?:\s*\(\s*[A-Za-z]{{3}}\s*\))?\s+of\s+(?P<args>{_EXPR}(?:\s*(?:,\s*and|,|and)\s*{_EXPR}){{1,5}})"
    rf"(?!\s*(?:,\s*)?(?:which\s+is|is|=|equals|will\s+be|would\s+be)\b)", re.I)
_GCD_MENTION = re.compile(rf"\b{_GCD_KIND}\b", re.I)
_GCD_ANAPHOR = re.compile(
    rf"\b(?:the|their|its)\s+{_GCD_KIND}(?:\s*\(\s*[A-Za-z]{{3}}\s*\))?\s+(?:is|=|equals)\s*(?::\s*)?"
    rf"(?:\\boxed\s*)?(?:\{{\s*)?(?P<v>{_N}){_END}(?=\s*\}}?\s*(?:[.,;]\s|[.,;]?\s*$))", re.I)  # the value ends the clause
MAX_ANAPHOR_CHARS = 300
"""How far after "the GCD of 2187 and 5625" a "the GCD is 3" is read as its value (no other gcd/lcm named between)."""


def _split_args(s: str) -> list[str]:
    parts, depth, cur = [], 0, []
    for ch in s:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return parts


def _close_bracket(text: str, i: int) -> int | None:
    """Index just past the bracket matching ``text[i]`` (within 200 characters)."""
    depth = 0
    for j in range(i, min(len(text), i + 200)):
        ch = text[j]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                return j + 1
    return None


def _gcd_lcm(kind: str, nums: list[int]) -> int:
    if kind == "lcm":
        out = 1
        for n in nums:
            out = out * n // math.gcd(out, n)
        return out
    out = 0
    for n in nums:
        out = math.gcd(out, n)
    return out


def _substituted(text: str) -> tuple[str, list[tuple[int, int, str, int, int]]]:
    """``text`` with every numeric gcd/lcm call and base-``b`` numeral replaced by its value, and the spans
    (in the new text) of what was replaced, with a note on each and its span in the original text."""
    pieces: list[tuple[int, int, str, str]] = []  # (start, end, replacement, note) in the original text
    for m in _GCD_CALL.finditer(text):
        if len(pieces) >= MAX_CLAIMS:
            break
        end = _close_bracket(text, m.start("open"))
        if end is None:
            continue
        inner = text[m.end("open"):end - 1]
        inner = re.sub(r"\\right\s*$", "", inner)
        args = _split_args(inner)
        if len(args) < 2:
            continue
        nums = [_num(a) if len(a) <= 60 else None for a in args]
        if any(n is None or n == 0 for n in nums):
            continue
        nums = [abs(n) for n in nums]
        kind = "lcm" if re.search(r"lcm", m.group(0), re.I) else "gcd"
        value = _gcd_lcm(kind, nums)
        pieces.append((m.start(), end, str(value), f"{kind}({', '.join(map(str, nums))}) = {value}"))
    for m in _BASE_NUM.finditer(text):
        if len(pieces) >= MAX_CLAIMS:
            break
        base = int(m.group("b1") or m.group("b2"))
        digits = m.group("d")
        if not 2 <= base <= 36 or any(int(ch) >= base for ch in digits):
            continue
        if any(s < m.end() and m.start() < e for s, e, _, _ in pieces):
            continue
        value = int(digits, base)
        note = f"{digits}_{{{base}}} = {value}"
        pieces.append((m.start(), m.end(), str(value), note))
    if not pieces:
        return text, []
    pieces.sort()
    out, spans, pos, shift = [], [], 0, 0
    for s, e, rep, note in pieces:
        if s < pos:
            continue
        out.append(text[pos:s])
        new_start = s + shift
        out.append(rep)
        spans.append((new_start, new_start + len(rep), note, s, e))
        shift += len(rep) - (e - s)
        pos = e
    out.append(text[pos:])
    return "".join(out), spans


def _original(p: int, spans, end: bool) -> int:
    """Position ``p`` of the substituted text mapped back to the original text."""
    shift = 0
    for s, e, _note, os, oe in spans:
        if p < s or (end and p == s):
            break
        if p < e or (end and p == e):
            return oe if end else os
        shift = oe - e
    return p + shift


def substitution_checks(text: str) -> list[EquationCheck]:
    """Equations with a gcd/lcm value or a base-``b`` numeral, checked after replacing those by their values,
    and prose gcd/lcm statements."""
    out: list[EquationCheck] = []
    new, spans = _substituted(text)
    if spans:
        for eq in extract_equations(new):
            inside = [note for s, e, note, _, _ in spans if s < eq.span[1] and eq.span[0] < e]
            if not inside:
                continue
            check = check_equation(eq)
            if check.ok is False:
                a, b = _original(eq.span[0], spans, False), _original(eq.span[1], spans, True)
                claim = re.sub(r"\s+", " ", text[a:b]).strip()
                out.append(EquationCheck(eq, False, f"{claim} is false: {check.detail} (reading {'; '.join(inside)})",
                                         check.pairs))
    if re.search(r"common|gcd|lcm|gcf|hcf", text, re.I):
        plain = PLAIN_MARKUP.sub(lambda m: f" {m.group(1)} " if m.group(1) is not None else " ", text)
        for k, m in enumerate(_PROSE_GCD.finditer(plain)):
            if k >= MAX_CLAIMS:
                break
            args = re.split(r"\s*(?:,\s*and|,|and)\s*", m.group("args"))
            nums = [_num(a) for a in args]
            v = _num(m.group("v"))
            if v is None or any(n is None or n == 0 for n in nums):
                continue
            kind = m.group("kind").lower()
            is_lcm = kind.startswith(("lcm", "least", "lowest"))
            true = _gcd_lcm("lcm" if is_lcm else "gcd", [abs(n) for n in nums])
            if true != v:
                name = "lcm" if is_lcm else "gcd"
                claim = re.sub(r"\s+", " ", m.group(0)).strip()
                out.append(_claim([f"{name}({', '.join(map(str, nums))})", str(v)], [true, v], m.span(),
                                  f"{claim} is false: {name}({', '.join(map(str, nums))}) = {true}"))
        out.extend(_anaphoric_gcd_checks(plain))
    return out


def _is_lcm(kind: str) -> bool:
    return kind.lower().startswith(("lcm", "least", "lowest"))


def _anaphoric_gcd_checks(plain: str) -> list[EquationCheck]:
    """"the GCD of 2187 and 5625 [...] the GCD is 3": a gcd/lcm named "of" numbers without a value, and its value
    stated within :data:`MAX_ANAPHOR_CHARS` characters as "the/their/its GCD is V", with no gcd/lcm mentioned between
    them and the same kind (gcd or lcm) in both. ``plain`` is the step with markup removed."""
    out: list[EquationCheck] = []
    for k, m in enumerate(_NAMED_GCD.finditer(plain)):
        if k >= MAX_CLAIMS:
            break
        window = plain[m.end():m.end() + MAX_ANAPHOR_CHARS]
        a = _GCD_ANAPHOR.search(window)
        if a is None or _is_lcm(a.group("kind")) != _is_lcm(m.group("kind")) \
                or _GCD_MENTION.search(window, 0, a.start("kind")) is not None:
            continue
        nums = [_num(x) for x in re.split(r"\s*(?:,\s*and|,|and)\s*", m.group("args"))]
        v = _num(a.group("v"))
        if v is None or any(n is None or n == 0 for n in nums):
            continue
        name = "lcm" if _is_lcm(m.group("kind")) else "gcd"
        true = _gcd_lcm(name, [abs(n) for n in nums])
        if true != v:
            said = re.sub(r"\s+", " ", f"{m.group(0)} ... {a.group(0)}").strip()
            out.append(_claim([f"{name}({', '.join(map(str, nums))})", str(v)], [true, v],
                              (m.start(), m.end() + a.end()),
                              f"{said} is false: {name}({', '.join(map(str, nums))}) = {true}"))
    return out


# ------------------------------------------------------------------------------------------------ the hook


def _may_hold_any(steps: Sequence[str]) -> bool:
    """The trace gate (:func:`rewards.checks.claims.gates.admits`) with :func:`_may_hold_a_claim`."""
    return admits(steps, _may_hold_a_claim)


def check_trace(steps: Sequence[str], problem: str = "") -> list[tuple[int, EquationCheck]]:
    """Every refuted number-theory claim of a trace, as ``(step_index, failed check)`` pairs."""
    out: list[tuple[int, EquationCheck]] = []
    try:
        if not _may_hold_any(steps):
            return out
        for i, step in enumerate(steps):
            if not isinstance(step, str) or len(step) > MAX_STEP_CHARS or not _may_hold_a_claim(step):
                continue
            for check in congruence_checks(step) + remainder_checks(step) + substitution_checks(step):
                out.append((i, check))
    except Exception:  # untrusted text: never raise into the reward
        return out
    return out
