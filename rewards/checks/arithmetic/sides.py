r"""What one side of an equation is, beyond its value: a written literal's decimals, its units, its percentages.

:func:`side_meta` is what the rounding, unit-conversion and percent rules of
:func:`~rewards.checks.arithmetic.check_equation` read (and what extraction uses to tell a description
"4 students" from a calculation).

>>> from rewards.checks.arithmetic.tokens import tokenize
>>> def meta(text):
...     toks = []; tokenize(text, 0, len(text), False, toks, True); return side_meta(toks, toks)
>>> meta("$3.50")
SideMeta(dec=2, pts=None, units=('$',), pct=0, additive=False)
>>> meta("4 pounds - 6 ounces").units, meta("4 pounds - 6 ounces").additive
(('ounces', 'pounds'), True)
>>> meta("100% + 20%").pct, meta("40/80*100 = 50%".split("=")[1]).pts
(2, Value(50))
"""

from __future__ import annotations

from typing import NamedTuple

from .literals import decimals
from .parser import eval_tokens, has_pct
from .tokens import KEYWORDS, Token
from .values import Value

__all__ = ["SideMeta", "NO_META", "lone_decimals", "side_meta"]


class SideMeta(NamedTuple):
    dec: int  # decimals of a lone literal side (e.g. "$3.50" -> 2), -1 otherwise
    pts: Value | None  # the value with p% read as p, when the side has a percent
    units: tuple  # unit words and currency of the side
    pct: int = 0  # 0: no percent sign, 1: some, 2: every number is a percentage ("100% + 20%")
    additive: bool = False  # a + or - between terms ("4 pounds - 6 ounces": mixed units, a conversion)


NO_META = SideMeta(-1, None, (), 0)


def lone_decimals(toks: list[Token]) -> int:
    """:attr:`SideMeta.dec` of a side: the decimals of its literal when it is a lone literal (with ``$``, ``%``, unit
    words and one sign: ``$3.50`` -> 2, ``-4`` -> 0), else -1. Extraction asks only this of most sides."""
    dec = -1
    nnum = 0
    for t in toks:
        k = t[0]
        if k == "n":
            nnum += 1
        elif k not in "$%wt" and not (k == "o" and t[1] in "+-"):
            return dec
    if nnum == 1:
        first = toks[0]
        if first[0] == "n" or first[0] == "$" or (first[0] == "o" and first[1] in "+-"):
            ops = sum(1 for t in toks if t[0] == "o")
            if ops == 0 or (ops == 1 and (first[0] == "o" or (len(toks) > 1 and toks[1][0] == "o"))):
                for t in toks:
                    if t[0] == "n":
                        dec = decimals(t[1])
    return dec


def side_meta(toks: list[Token], full: list[Token]) -> SideMeta:
    """``toks``: the trimmed side; ``full``: the side with its unit words."""
    dec = lone_decimals(toks)
    units = tuple(sorted({t[1] for t in full if t[0] in "$wt" and t[1] not in KEYWORDS}))
    pts = None
    pct = 0
    if has_pct(toks):
        r = eval_tokens(toks, pct_points=True)
        if isinstance(r, Value):
            pts = r
        pct = 2
        for j, t in enumerate(toks):
            if t[0] == "n" and (j + 1 >= len(toks) or toks[j + 1][0] != "%"):
                pct = 1
                break
    additive = any(t[0] == "o" and t[1] in "+-" for t in toks[1:])
    return SideMeta(dec, pts, units, pct, additive)
