r"""Number literals: the exact value of one literal (``12``, ``2.50``, ``1,234``, ``$3.50``, ``50%``).

>>> num_value("2.50"), decimals("2.50"), num_exact("12"), num_value("1" * 31)
(Fraction(5, 2), 2, 12, None)
>>> literal_value("0.5")
Value(0.5)
>>> parse_number("-7 cm"), parse_number("12.5%")
(Fraction(-7, 1), Fraction(1, 8))
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from functools import lru_cache

from .budget import MAX_DIGITS, MAX_EXPR_CHARS
from .errors import internal_error
from .values import Value

__all__ = ["num_value", "num_exact", "decimals", "big_float", "literal_value", "parse_number"]


@lru_cache(maxsize=8192)
def num_exact(raw: str):
    """int or Fraction value of a literal, None when too long."""
    if "." not in raw:
        return int(raw) if len(raw) <= MAX_DIGITS else None
    return num_value(raw)


@lru_cache(maxsize=8192)
def num_value(raw: str) -> Fraction | None:
    """Exact value of a number literal without commas (``12``, ``2.50``, ``.5``)."""
    if "." in raw:
        ip, _, fp = raw.partition(".")
        if len(ip) + len(fp) > MAX_DIGITS:
            return None
        return Fraction(int(ip or "0") * 10 ** len(fp) + int(fp), 10 ** len(fp))
    if len(raw) > MAX_DIGITS:
        return None
    return Fraction(int(raw))


def decimals(raw: str) -> int:
    i = raw.find(".")
    return 0 if i < 0 else len(raw) - i - 1



def big_float(q: Fraction) -> float:
    try:
        return float(q)
    except OverflowError:
        return math.inf if q > 0 else -math.inf



@lru_cache(maxsize=8192)
def literal_value(raw: str) -> Value | None:
    q = num_value(raw)
    return None if q is None else Value(q, big_float(q), True)


# Possessive blanks (\s*+): a blank run is not re-split among the \s* (n^4: 200 blanks took 3 s).
_NUMBER_TOKEN = re.compile(
    r"\s*+(?:\\?[$€£¥₹])?\s*+([-−+]?)\s*+(?:\\?[$€£¥₹])?\s*+"
    r"(\d{1,3}(?:,\d{3})+(?!\d)(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)\s*+(\\?%)?\s*+(?:[A-Za-z][A-Za-z .]*+)?\s*$"
)


def parse_number(token: str) -> Fraction | None:
    """One number literal: ``1,234.50``, ``$1,200``, ``50%`` (-> 1/2), ``12 dollars``, ``-7``.

    >>> parse_number("$1,234.50"), parse_number("50%"), parse_number("5 cm"), parse_number("x")
    (Fraction(2469, 2), Fraction(1, 2), Fraction(5, 1), None)
    """
    try:
        if not isinstance(token, str) or len(token) > MAX_EXPR_CHARS:
            return None
        m = _NUMBER_TOKEN.match(token)
        if m is None:
            return None
        q = num_value(m.group(2).replace(",", ""))
        if q is None:
            return None
        if m.group(1) in ("-", "−"):
            q = -q
        if m.group(3):
            q = q / 100
        return q
    except Exception as exc:  # noqa: BLE001 - never raise on model output (unless RAFS_STRICT)
        internal_error("parse_number", token, exc)
        return None
