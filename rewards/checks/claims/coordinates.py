r"""Numeric coordinate geometry, vectors and matrices: midpoints, distances, slopes, tuple and matrix equalities.

A claim checker for :mod:`rewards.checks.claims` (``check_trace(steps, problem)``). Every coordinate and entry it reads
must be an explicit number, evaluated by :func:`rewards.checks.arithmetic.evaluate` (exact fractions where it can, floats
with a 1e-6 relative tolerance otherwise; a written decimal on either side widens the tolerance to half a unit of
its last digit, so a rounded coordinate is never a false alarm).

Equalities of tuples, vectors and matrices (inside math delimiters only)
    A display is split at top-level ``=`` (and broken at every other relation, ``\quad``, ``\text{…}``, top-level
    commas). Two adjacent sides joined by ``=`` are compared when each is *wholly* a numeric object expression: a
    point ``(a, b)`` / ``(a, b, c)`` (``\left( … \right)`` allowed), a ``pmatrix``/``bmatrix``/``matrix``, sums and
    differences of them, a numeric scalar multiple (``2\begin{pmatrix}…\end{pmatrix}``), a dot product
    (``\cdot`` of two vectors of one length), a cross product (``\times`` of two 3-vectors), a matrix product
    (juxtaposition or ``\cdot`` of conforming matrices), a determinant (``vmatrix``, ``\det`` of a matrix) — or a
    plain numeric expression when the other side is such an object (``\begin{vmatrix}…\end{vmatrix} = 3 - 8``).
    ``M = \left(\frac{3+7}{2}, \frac{4+10}{2}\right) = (5, 8)`` is refuted componentwise.
Claims in words (the whole step, math delimiters removed)
    "the midpoint of (x1, y1) and (x2, y2) is (a, b)", "the distance between (x1, y1) and (x2, y2) is d" (``d`` any
    numeric expression: ``\sqrt{…}``, ``k\sqrt{m}``; compared as ``d² = Δx² + Δy²``), "the slope of the line through
    (x1, y1) and (x2, y2) is m". The two points must follow the keyword within 80 characters, joined by "and" or a
    comma, and the value must follow "is", "=", ":" within 30 characters, all in one sentence.

Left alone, on purpose: anything with a letter in a coordinate or entry (``(x, 2x + 1)``, ``\omega``); a side
that is only partly an object (``P(5, 2) = 20``, ``\gcd(12, 18) = 6``, ``(1, 2)^T``, ``k(1, 2)``); tuples with a
nested tuple or a thousands separator; ``\approx``; augmented matrices (``|`` entries); sentences with "if",
"suppose", "not", "should", "?" (a claim being tested); steps over ``MAX_STEP_CHARS``. Points on lines were not
implemented (no instance in the data read).

Measured when introduced with ``benchmarks/claim_checkers.py rewards.checks.claims.coordinates:check_trace`` (no other checker):
ProcessBench MATH F1 0.2027 -> 0.2081 (+2 earliest errors: a worded midpoint "(2,4) and (2,-4) is (0.5,-2)", and a
matrix chain ``\frac{1}{10} \times \frac{1}{5} = \frac{1}{10}`` written across two displays; 0 lost, 0 correct rows
flagged); one flag before a labelled error, ``(2 \cdot 1994, 2 \cdot 1994) = (3998, 3998)``, is a real slip
(2·1994 = 3988) the label passed over; GSM8K no flag. Gold solutions: 0 of 7,473 GSM8K train, 0 of 500 MATH-500
flagged. 0.03–0.06 ms per GSM8K trace, 0.08–0.14 ms per MATH-500 trace. Recall is small by nature: with every
coordinate numeric, ProcessBench MATH holds about 31 tuple/matrix equalities and MATH-500 gold 6; most wrong steps
about midpoints, distances and slopes use letters.

>>> [c.detail for _, c in check_trace([r"\[ M = \left( \frac{3+7}{2}, \frac{4+10}{2} \right) = (5,8). \]"])]
['(\\frac{3+7}{2}, \\frac{4+10}{2}) = (5,8) is false: the left side is (5, 7), the right side (5, 8)']
>>> [c.detail for _, c in check_trace(["The midpoint of $(2,4)$ and $(2,-4)$ is also $(0.5,-2)$."])]
['the midpoint of (2, 4) and (2, -4) is (2, 0), not (0.5,-2)']
>>> check_trace([r"The distance between $(0,0)$ and $(3,4)$ is $\sqrt{3^2+4^2} = 5$."])
[]
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence, Union

from rewards.checks.arithmetic import Equation, EquationCheck, contains_any, evaluate
from rewards.checks.claims.gates import admits
from rewards.checks.latex_algebra import split_top_level
from rewards.parsing.values import format_value as _show

__all__ = ["check_trace"]

MAX_STEP_CHARS = 4000
MAX_STEPS = 200
MAX_REGIONS = 40
MAX_SIDES = 40
MAX_SIDE_CHARS = 600
MAX_COMPONENT_CHARS = 80
MAX_OBJECTS = 6
MAX_DIM = 4
MAX_CLAIMS = 12

Num = Union[Fraction, float]

# ------------------------------------------------------------------------------------------- pre-filter
_OBJECT_HINT = re.compile(r"\(\s{0,3}-?\s{0,3}[\d\\.][^()=]{0,60},")
_WORDS = ("midpoint", "distance", "slope")


def _may_hold_a_claim(step: str) -> bool:
    """Cheap test: can ``step`` hold a claim this module reads at all?"""
    if "matrix" in step:
        return True
    low = step.lower()
    if contains_any(low, _WORDS):
        return "," in step
    return "=" in step and _OBJECT_HINT.search(step) is not None


# ------------------------------------------------------------------------------------------- normalising
_SPACING = re.compile(r"\\(?:left|right|bigl|bigr|Bigl|Bigr|big|Big)(?![A-Za-z])|(?<!\\)\\[,;:! ]|~")
_MATH = re.compile(r"\$\$(.{1,2000}?)\$\$|\$([^$]{1,2000})\$|\\\[(.{1,2000}?)\\\]|\\\((.{1,2000}?)\\\)", re.S)
_ENV = re.compile(r"\\begin\{(pmatrix|bmatrix|vmatrix|matrix)\}(.{0,400}?)\\end\{\1\}", re.S)
_BREAK_CMD = re.compile(r"\\(?:quad|qquad|approx|neq?|le|ge|leq|geq|lt|gt|pm|mp|equiv|sim|implies|Rightarrow|"
                        r"Longrightarrow|rightarrow|to|iff|therefore|because|text|mathrm|textbf|mbox|in|cup|cap|"
                        r"subset|notin|cong|propto|mid|nmid|pmod|mod|bmod)(?![A-Za-z])")
_OTHER_ENV = re.compile(r"\\(?:begin|end)\{(?!(?:p|b|v)?matrix\})[A-Za-z*]{1,12}\}")
_MATRIX_BEGIN = re.compile(r"\\begin\{(?:p|b|v)?matrix\}")
_MATRIX_END = re.compile(r"\\end\{(?:p|b|v)?matrix\}")
_BARE_EQUALS = re.compile(r"[ \t\n]{0,6}=[ \t\n]{0,6}")
_DECIMAL = re.compile(r"\d\.(\d{1,12})")


def _normalize(text: str) -> str:
    return _SPACING.sub(" ", text)


# ------------------------------------------------------------------------------------------- values
class _Obj:
    """A numeric scalar (``rows == 0``), a tuple (``tuple_``) or a ``rows × cols`` matrix of numbers."""

    __slots__ = ("rows", "cols", "entries", "tuple_", "plain")

    def __init__(self, entries, rows=0, cols=0, tuple_=False, plain=False):
        self.entries, self.rows, self.cols, self.tuple_, self.plain = entries, rows, cols, tuple_, plain

    def is_scalar(self) -> bool:
        return self.rows == 0

    def is_vector(self) -> bool:
        return self.tuple_ or (self.rows >= 1 and (self.cols == 1 or self.rows == 1))

    def show(self) -> str:
        parts = [_show(x) for x in self.entries]
        if self.is_scalar():
            return parts[0]
        if self.tuple_:
            return "(" + ", ".join(parts) + ")"
        rows = [", ".join(parts[r * self.cols:(r + 1) * self.cols]) for r in range(self.rows)]
        return "[" + "; ".join(rows) + "]"


def _num(text: str) -> Num | None:
    text = text.strip()
    if not text or len(text) > MAX_COMPONENT_CHARS or "|" in text:
        return None
    v = evaluate(text)
    if v is None:
        return None
    if v.is_exact and v.exact is not None:
        return v.exact
    if v.approx is None or not math.isfinite(v.approx):
        return None
    return float(v.approx)


def _tuple(inner: str) -> _Obj | None:
    if re.search(r",\d{3}(?!\d)", inner):  # "1,000": a thousands separator, not two coordinates
        return None
    comps = split_top_level(inner, ",")
    if not 2 <= len(comps) <= 3:
        return None
    vals = [_num(c) for c in comps]
    if any(v is None for v in vals):
        return None
    return _Obj(vals, rows=len(vals), cols=1, tuple_=True)


def _matrix(kind: str, body: str) -> _Obj | None:
    rows = [r for r in re.split(r"\\\\", body)]
    if rows and not rows[-1].strip():
        rows = rows[:-1]
    cells = [r.split("&") for r in rows]
    if not cells or len(cells) > MAX_DIM or any(len(c) != len(cells[0]) for c in cells) or len(cells[0]) > MAX_DIM:
        return None
    vals = [_num(c) for row in cells for c in row]
    if any(v is None for v in vals):
        return None
    m = _Obj(vals, rows=len(cells), cols=len(cells[0]))
    return _det(m) if kind == "vmatrix" else m


def _det(m: _Obj) -> _Obj | None:
    n = m.rows
    if n != m.cols or n not in (2, 3) or m.tuple_:
        return None
    a = m.entries
    if n == 2:
        d = a[0] * a[3] - a[1] * a[2]
    else:
        d = (a[0] * (a[4] * a[8] - a[5] * a[7]) - a[1] * (a[3] * a[8] - a[5] * a[6])
             + a[2] * (a[3] * a[7] - a[4] * a[6]))
    return _Obj([d])


def _scale(k: Num, m: _Obj) -> _Obj:
    return _Obj([k * x for x in m.entries], m.rows, m.cols, m.tuple_)


def _add(a: _Obj, b: _Obj, sign: int) -> _Obj | None:
    if a.is_scalar() != b.is_scalar() or len(a.entries) != len(b.entries):
        return None
    if not a.is_scalar() and not (a.tuple_ or b.tuple_) and (a.rows, a.cols) != (b.rows, b.cols):
        return None
    return _Obj([x + sign * y for x, y in zip(a.entries, b.entries)], a.rows, a.cols, a.tuple_ and b.tuple_)


def _mul(a: _Obj, b: _Obj, op: str) -> _Obj | None:
    if a.is_scalar() or b.is_scalar():
        return None
    if op == "times":  # cross product of two 3-vectors
        if a.is_vector() and b.is_vector() and len(a.entries) == len(b.entries) == 3:
            x, y = a.entries, b.entries
            return _Obj([x[1] * y[2] - x[2] * y[1], x[2] * y[0] - x[0] * y[2], x[0] * y[1] - x[1] * y[0]],
                        3, 1, a.tuple_ and b.tuple_)
        return None
    if op == "cdot" and a.is_vector() and b.is_vector() and len(a.entries) == len(b.entries) and (
            a.tuple_ or b.tuple_ or (a.rows, a.cols) == (b.rows, b.cols)):
        return _Obj([sum(x * y for x, y in zip(a.entries, b.entries))])
    if a.tuple_ or b.tuple_ or a.cols != b.rows:
        return None
    n, k, p = a.rows, a.cols, b.cols
    out = [sum(a.entries[i * k + t] * b.entries[t * p + j] for t in range(k)) for i in range(n) for j in range(p)]
    return _Obj(out, n, p)


_OP = re.compile(r"\s*(\+|-|\\cdot(?![A-Za-z])|\\times(?![A-Za-z])|)\s*")


def _objects(side: str) -> list[tuple[int, int, str, str]]:
    """Top-level objects of ``side`` as ``(start, end, kind, body)``: environments and parenthesised tuples."""
    found: list[tuple[int, int, str, str]] = []
    for m in _ENV.finditer(side):
        found.append((m.start(), m.end(), m.group(1), m.group(2)))
        if len(found) > MAX_OBJECTS:
            return []
    i = 0
    while i < len(side):
        if any(s <= i < e for s, e, _, _ in found):
            i = next(e for s, e, _, _ in found if s <= i < e)
            continue
        if side[i] == "(":
            depth, j = 0, i
            while j < len(side):
                if side[j] in "({[":
                    depth += 1
                elif side[j] in ")}]":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            if j >= len(side) or side[j] != ")":
                return []
            inner = side[i + 1:j]
            if len(split_top_level(inner, ",")) >= 2:
                found.append((i, j + 1, "tuple", inner))
                if len(found) > MAX_OBJECTS:
                    return []
            i = j + 1
            continue
        i += 1
    return sorted(found)


def _side_value(side: str) -> _Obj | None:
    """The value of a side that is wholly a numeric object expression, or a plain number (``plain``); else None."""
    side = side.strip().rstrip(".").strip()
    if not side or len(side) > MAX_SIDE_CHARS:
        return None
    objs = _objects(side)
    if not objs:
        v = _num(side)
        return None if v is None else _Obj([v], plain=True)
    terms: list[tuple[int, _Obj]] = []  # (sign, product so far)
    pos, sign, cur, pending = 0, 1, None, ""
    det_next = False
    for s, e, kind, body in objs:
        gap = side[pos:s]
        if cur is None:  # the start of a term: an optional sign, scalar or \det
            g = gap.strip()
            if g.endswith("\\det"):
                det_next, g = True, g[:-4].strip()
            if g.endswith("\\cdot") or g.endswith("\\times"):
                g = g.rsplit("\\", 1)[0].strip()
            if g in ("", "+"):
                coef: Num | None = 1
            elif g == "-":
                coef = -1
            else:
                coef = _num(g)
                if coef is None or re.search(r"[A-Za-z]", g.replace("\\frac", "").replace("\\dfrac", "")):
                    return None
        else:
            m = _OP.fullmatch(gap)
            if not m:
                return None
            op = m.group(1)
            if op in ("+", "-"):
                terms.append((sign, cur))
                sign, cur, coef = (1 if op == "+" else -1), None, 1
            pending = op
        obj = _tuple(body) if kind == "tuple" else _matrix(kind, body)
        if obj is None:
            return None
        if det_next:
            obj, det_next = _det(obj), False
            if obj is None:
                return None
        if cur is None:
            cur = obj if coef == 1 else _scale(coef, obj)
        else:
            cur = _mul(cur, obj, "times" if pending == "\\times" else "cdot" if pending == "\\cdot" else "")
            if cur is None:
                return None
        pos = e
    if side[pos:].strip() or det_next:
        return None
    terms.append((sign, cur))
    total = terms[0][1] if terms[0][0] == 1 else _scale(-1, terms[0][1])
    for sg, t in terms[1:]:
        total = _add(total, t, sg)
        if total is None:
            return None
    return total


def _tolerance(*texts: str) -> float:
    decs = [len(m.group(1)) for t in texts for m in _DECIMAL.finditer(t)]
    return 0.51 * 10.0 ** -min(decs) if decs else 0.0


def _same(x: Num, y: Num, tol: float) -> bool:
    if isinstance(x, Fraction) and isinstance(y, Fraction) and tol == 0.0:
        return x == y
    fx, fy = float(x), float(y)
    return abs(fx - fy) <= max(1e-6 * max(abs(fx), abs(fy)), 1e-9, tol)


def _comparable(a: _Obj, b: _Obj) -> bool:
    if a.plain and b.plain:
        return False  # plain arithmetic: rewards.checks.arithmetic checks it
    if a.is_scalar() or b.is_scalar():
        return a.is_scalar() and b.is_scalar()
    if a.tuple_ or b.tuple_:
        return a.is_vector() and b.is_vector() and len(a.entries) == len(b.entries)
    return (a.rows, a.cols) == (b.rows, b.cols)


# ------------------------------------------------------------------------------------------- chains
def _chain_checks(step: str) -> list[EquationCheck]:
    out: list[EquationCheck] = []
    for offset, region_end, region in _regions(step):
        if len(out) >= MAX_CLAIMS:
            break
        if "=" not in region or ("(" not in region and "matrix" not in region):
            continue
        text = _OTHER_ENV.sub("\x00", _BREAK_CMD.sub("\x00", _normalize(region)))
        if "matrix" not in text:
            text = text.replace("\\\\", "\x00").replace("&", " ")
        out += _link_checks(_pieces(text), (offset, region_end))
    return out


def _regions(step: str) -> list[list]:
    """``[start, end, text]`` of each math region of ``step``: displays joined by a bare "=" between them are one
    chain."""
    regions: list[list] = []
    for k, m in enumerate(_MATH.finditer(step)):
        if k >= MAX_REGIONS:
            break
        body = next(g for g in m.groups() if g is not None)
        if regions and _BARE_EQUALS.fullmatch(step, regions[-1][1], m.start()):
            regions[-1][1], regions[-1][2] = m.end(), regions[-1][2] + " = " + body
        else:
            regions.append([m.start(), m.end(), body])
    return regions


def _pieces(text: str) -> list[tuple[str, str]]:
    """A region's sides as ``(joiner before this piece, text)``: separated by '=' (joiner ``=``, compared) or by a
    breaker (joiner ``|``, not compared), at bracket and matrix depth 0."""
    pieces: list[tuple[str, str]] = []
    depth, start, joiner = 0, 0, ""
    env_depth = 0
    i = 0
    while i < len(text) and len(pieces) < MAX_SIDES:
        ch = text[i]
        if ch == "\\" and _MATRIX_BEGIN.match(text, i):
            env_depth += 1
        elif ch == "\\" and _MATRIX_END.match(text, i):
            env_depth -= 1
        if ch in "({[":
            depth += 1
        elif ch in ")}]":
            depth -= 1
        elif depth == 0 and env_depth == 0 and (ch in "=<>\x00;:" or ch == ","):
            pieces.append((joiner, text[start:i]))
            joiner = "=" if ch == "=" and text[i - 1:i] not in ("<", ">", "!") and text[i + 1:i + 2] != "=" \
                else "|"
            start = i + 1
        i += 1
    pieces.append((joiner, text[start:]))
    return pieces


def _link_checks(pieces: list[tuple[str, str]], span: tuple[int, int]) -> list[EquationCheck]:
    """A failed check for each '=' between two pieces whose values (tuples, vectors, matrices) differ."""
    out: list[EquationCheck] = []
    values = [None] * len(pieces)
    for j in range(1, len(pieces)):
        if pieces[j][0] != "=":
            continue
        a_text, b_text = pieces[j - 1][1], pieces[j][1]
        if values[j - 1] is None:
            values[j - 1] = _side_value(a_text) or False
        values[j] = _side_value(b_text) or False
        a, b = values[j - 1], values[j]
        if not a or not b or not _comparable(a, b):
            continue
        tol = _tolerance(a_text, b_text)
        if all(_same(x, y, tol) for x, y in zip(a.entries, b.entries)):
            continue
        lhs, rhs = _tidy(a_text), _tidy(b_text)
        detail = f"{lhs} = {rhs} is false: the left side is {a.show()}, the right side {b.show()}"
        out.append(_fail([lhs, rhs], span, detail))
    return out


def _tidy(side: str) -> str:
    return re.sub(r"([(\[{]) | ([)\]}])", r"\1\2", " ".join(side.split())).rstrip(".")


def _fail(sides: list[str], span: tuple[int, int], detail: str) -> EquationCheck:
    return EquationCheck(Equation(sides=sides, values=[None] * len(sides), span=span, source="claim"), False, detail,
                         (False,))


# ------------------------------------------------------------------------------------------- claims in words
_POINT = re.compile(r"\(([^()]{1,60}),([^()]{1,60})\)")
_KEY = re.compile(r"\b(midpoint|distance|slope)\b", re.I)
_HEDGE = re.compile(r"\b(?:if|suppose|assume|not|should|would|could|must|need|check|whether|incorrect|wrong|"
                    r"mistake|error|instead|let's|general|formula)\b|\?", re.I)
_JOIN = re.compile(r"\s{0,3}(?:,|and)\s{0,3}")
_VERB = re.compile(r"\s{0,3}(?:is|are|=|:|equals|becomes)\s{0,3}(?:also\s{1,3}|then\s{1,3}|at\s{1,3}|given\s{1,3}by\s{1,3})?",
                   re.I)
_VALUE_END = re.compile(r"=|\\approx|\s(?:units?|and|so|which|since|because|with|for|where)\b|,\s|\.(?!\d)|;|\n|$")


def _word_text(step: str) -> str:
    t = step.replace("$", " ")
    t = re.sub(r"\\[\[\]()]", " ", t)
    t = re.sub(r"\\(?:text|mathrm|textbf)\s{0,2}\{([^{}]{0,80})\}", r"\1", t)
    return re.sub(r"[ \t]{2,}", " ", _normalize(t))


@dataclass(frozen=True)
class _PointClaim:
    """A claim in words about two points: ``key`` (``slope``, ``distance`` or ``midpoint``), the points as read
    (``first``, ``second``) and as written (``first_text``, ``second_text``), and the text after its verb
    (``rest``: the value claimed)."""

    key: str
    first: _Obj
    second: _Obj
    first_text: str
    second_text: str
    rest: str


def _word_checks(step: str) -> list[EquationCheck]:
    text = _word_text(step)
    out: list[EquationCheck] = []
    for k, km in enumerate(_KEY.finditer(text)):
        if k >= MAX_CLAIMS:
            break
        claim = _point_claim(text, km)
        if claim is None:
            continue
        check = _midpoint_check(claim) if claim.key == "midpoint" else _measure_check(claim)
        if check is not None:
            out.append(check)
    return out


def _point_claim(text: str, km: re.Match) -> _PointClaim | None:
    """The claim opened by the keyword ``km``: two points right after it ("the slope through (1, 2) and (3, 4)"),
    then a verb ("is", "=", "equals"); None when the words around do not make such a claim, or it is hedged."""
    key = km.group(1).lower()
    window = text[km.end():km.end() + 260]
    pts = list(_POINT.finditer(window))[:3]
    if len(pts) < 2:
        return None
    p1, p2 = pts[0], pts[1]
    lead = window[:p1.start()]
    if len(lead) > 80 or re.search(r"\.\s|\n", lead) or not _JOIN.fullmatch(window[p1.end():p2.start()]):
        return None
    if key == "slope" and not re.search(r"\b(?:through|between|connecting|joining|of)\b", lead):
        return None
    if key != "slope" and not re.search(r"\b(?:between|of|from)\b", lead):
        return None
    sentence_start = max(text.rfind(". ", 0, km.start()), text.rfind("\n", 0, km.start()), 0)
    vm = _VERB.match(window, p2.end())
    if not vm or vm.end() == p2.end():
        return None
    verb_span = window[p2.end():vm.end()]
    if not re.search(r"is|are|=|:|equals|becomes", verb_span, re.I):
        return None
    if _HEDGE.search(text, sentence_start, km.end() + vm.end()):
        return None
    a, b = _tuple(p1.group(0)[1:-1]), _tuple(p2.group(0)[1:-1])
    if a is None or b is None or len(a.entries) != len(b.entries):
        return None
    return _PointClaim(key, a, b, p1.group(0), p2.group(0), window[vm.end():])


def _midpoint_check(claim: _PointClaim) -> EquationCheck | None:
    """A failed check when the point claimed is not the midpoint of the two."""
    a, b = claim.first, claim.second
    pm = _POINT.match(claim.rest)
    if not pm:
        return None
    c = _tuple(pm.group(0)[1:-1])
    if c is None or len(c.entries) != len(a.entries):
        return None
    want = [(x + y) / 2 for x, y in zip(a.entries, b.entries)]
    tol = _tolerance(pm.group(0))
    if all(_same(w, z, tol) for w, z in zip(want, c.entries)):
        return None
    detail = (f"the midpoint of {a.show()} and {b.show()} is {_Obj(want, tuple_=True, rows=2).show()}, "
              f"not {_tidy(pm.group(0))}")
    return _fail([f"midpoint({claim.first_text}, {claim.second_text})", pm.group(0)], (0, 0), detail)


def _measure_check(claim: _PointClaim) -> EquationCheck | None:
    """A failed check when the number claimed is not the distance between the two points, or the slope through
    them."""
    a, b, rest = claim.first, claim.second, claim.rest
    end = _VALUE_END.search(rest)
    value_text = rest[:end.start() if end else len(rest)].strip()
    if not value_text or "(" in value_text[:1]:
        return None
    v = _num(value_text)
    if v is None:
        return None
    tol = _tolerance(value_text)
    if claim.key == "distance":
        sq = sum((x - y) ** 2 for x, y in zip(a.entries, b.entries))
        if v < 0:
            return None
        if _same(v * v, sq, 2 * tol * abs(float(v)) + tol * tol):
            return None
        detail = (f"the distance between {a.show()} and {b.show()} is the square root of {_show(sq)}, "
                  f"not {value_text} (= {_show(v)})")
    else:
        dx = b.entries[0] - a.entries[0]
        if len(a.entries) != 2 or dx == 0:
            return None
        slope = (b.entries[1] - a.entries[1]) / dx
        if _same(slope, v, tol):
            return None
        detail = f"the slope through {a.show()} and {b.show()} is {_show(slope)}, not {value_text}"
    return _fail([f"{claim.key}({claim.first_text}, {claim.second_text})", value_text], (0, 0), detail)


def _may_hold_any(steps: Sequence[str]) -> bool:
    """The trace gate (:func:`rewards.checks.claims.gates.admits`) with :func:`_may_hold_a_claim`."""
    return admits(steps, _may_hold_a_claim)


def check_trace(steps: Sequence[str], problem: str = "") -> list[tuple[int, EquationCheck]]:
    """Failed coordinate, vector and matrix claims, as ``(step_index, check)`` pairs (see the module docs)."""
    out: list[tuple[int, EquationCheck]] = []
    try:
        head = list(steps)[:MAX_STEPS]  # the steps read: the gate asks only these
        if not _may_hold_any(head):
            return out
        for k, step in enumerate(head):
            if not isinstance(step, str) or len(step) > MAX_STEP_CHARS or not _may_hold_a_claim(step):
                continue
            found = _chain_checks(step)
            low = step.lower()
            if contains_any(low, _WORDS):
                found += _word_checks(step)
            out.extend((k, c) for c in found[:MAX_CLAIMS])
    except Exception:  # untrusted text: a checker never raises
        return []
    return out
