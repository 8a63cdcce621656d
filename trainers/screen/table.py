"""Inputs of the screen: parsing correctness and confidence, binarisation, and the 2x2 table.

The 2x2 table counts items by correctness and binarised confidence::

                    high confidence   low confidence
    correct               a                 c
    wrong                 b                 d

Example
-------
>>> from trainers.screen.table import parse_confidence, parse_correct, binarise, Cells
>>> ok, _ = parse_correct(["True", "False", "1", 0])
>>> conf = parse_confidence([90, 40, 75, 100])
>>> conf.format, conf.values.tolist()
('percent', [0.9, 0.4, 0.75, 1.0])
>>> high, thr = binarise(conf.values)        # high means >= the median (0.825)
>>> Cells.from_arrays(ok, high)
Cells(a=1, b=1, c=1, d=1)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable, Literal, Sequence

import numpy as np

__all__ = [
    "ScreenInputError",
    "Cells",
    "ParsedConfidence",
    "parse_correct",
    "parse_confidence",
    "parse_threshold",
    "binarise",
    "HIGH_TOKENS",
    "LOW_TOKENS",
]


class ScreenInputError(ValueError):
    """Input the screen cannot use; the message names the field, the value and the fix."""


#: Confidence strings read as high confidence (case-insensitive, spaces/underscores/hyphens ignored).
HIGH_TOKENS = frozenset({"keep", "bet", "high", "true", "yes", "confident", "t", "y"})
#: Confidence strings read as low confidence.
LOW_TOKENS = frozenset({"withdraw", "nobet", "low", "false", "no", "notconfident", "abstain", "pass", "f", "n"})

_TRUE_CORRECT = frozenset({"true", "1", "1.0", "yes", "correct", "t", "y"})
_FALSE_CORRECT = frozenset({"false", "0", "0.0", "no", "incorrect", "wrong", "f", "n"})
_MISSING = frozenset({"", "nan", "none", "null", "na", "n/a", "<na>"})


def _norm_token(s: str) -> str:
    return s.strip().lower().replace(" ", "").replace("_", "").replace("-", "")


def _as_1d(values: Iterable[Any]) -> np.ndarray:
    """A 1-D array: numeric/bool dtype when the input is homogeneous, object dtype otherwise."""
    if isinstance(values, (str, bytes)):
        raise ScreenInputError(f"expected a sequence of values, got the string {values!r}")
    if hasattr(values, "to_numpy"):  # pandas Series
        values = values.to_numpy()
    if not isinstance(values, np.ndarray):
        values = list(values)
        try:
            arr = np.asarray(values)
        except (ValueError, TypeError):
            arr = np.asarray(values, dtype=object)
        if arr.dtype.kind not in "biuf":
            arr = np.asarray(values, dtype=object)
    else:
        arr = values
    if arr.ndim != 1:
        arr = arr.reshape(-1)
    return arr


def _is_missing(v: Any) -> bool:
    if v is None:
        return True
    if isinstance(v, float) and math.isnan(v):
        return True
    if isinstance(v, str) and v.strip().lower() in _MISSING:
        return True
    if type(v).__name__ in ("NAType", "NaTType"):  # pandas.NA / NaT without importing pandas
        return True
    try:  # pandas.NA / NaT without importing pandas
        return bool(v != v)
    except (TypeError, ValueError):
        return False


@dataclass(frozen=True)
class Cells:
    """The 2x2 table: ``a`` correct & high, ``b`` wrong & high, ``c`` correct & low, ``d`` wrong & low."""

    a: int
    b: int
    c: int
    d: int

    @classmethod
    def from_arrays(cls, correct: np.ndarray, high: np.ndarray) -> "Cells":
        """Count the table from two boolean arrays of equal length."""
        correct = np.asarray(correct, dtype=bool)
        high = np.asarray(high, dtype=bool)
        if correct.shape != high.shape:
            raise ScreenInputError(
                f"correct has {correct.size} items but confidence has {high.size}; pass one confidence per item"
            )
        a = int(np.count_nonzero(correct & high))
        b = int(np.count_nonzero(~correct & high))
        c = int(np.count_nonzero(correct & ~high))
        return cls(a=a, b=b, c=c, d=int(correct.size) - a - b - c)

    @property
    def n(self) -> int:
        return self.a + self.b + self.c + self.d

    @property
    def n_correct(self) -> int:
        return self.a + self.c

    @property
    def n_wrong(self) -> int:
        return self.b + self.d

    @property
    def n_high(self) -> int:
        return self.a + self.b

    @property
    def n_low(self) -> int:
        return self.c + self.d

    def to_dict(self) -> dict[str, int]:
        return {"a": self.a, "b": self.b, "c": self.c, "d": self.d}


@dataclass(frozen=True)
class ParsedConfidence:
    """Confidence after parsing.

    ``values`` holds floats in [0, 1] (binary confidence as 0.0/1.0); ``valid`` marks the rows that parsed (missing
    values are False); ``format`` is ``"binary"``, ``"unit"`` (numbers in [0, 1]) or ``"percent"`` (numbers in
    [0, 100], divided by 100).
    """

    values: np.ndarray
    valid: np.ndarray
    format: Literal["binary", "unit", "percent"]

    @property
    def is_binary(self) -> bool:
        return self.format == "binary"


def parse_correct(values: Iterable[Any], *, field_name: str = "correct", drop_unparseable: bool = False
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Parse correctness labels: booleans, 0/1, or the strings true/false, yes/no, correct/incorrect.

    Returns ``(correct, valid)``: two boolean arrays; rows that are missing (None, NaN, "") have ``valid`` False.
    A value that is neither raises :class:`ScreenInputError` naming it and its row (1-based: the first value is row
    1, the first data row of a CSV), unless ``drop_unparseable`` (then that row is invalid too).
    """
    arr = _as_1d(values)
    if arr.dtype == bool:
        return arr.copy(), np.ones(arr.shape, dtype=bool)
    if arr.dtype.kind in "iuf":
        x = arr.astype(float)
        valid = ~np.isnan(x)
        bad = valid & (x != 0) & (x != 1)
        if bad.any():
            if not drop_unparseable:
                i = int(np.flatnonzero(bad)[0])
                raise ScreenInputError(
                    f"{field_name}: value {x[i]:g} (row {i + 1}) is not a correctness label; use 1/0, true/false "
                    "or booleans"
                )
            valid &= ~bad
        return (x == 1) & valid, valid
    flat = list(arr.ravel())
    out = np.zeros(len(flat), dtype=bool)
    valid = np.ones(len(flat), dtype=bool)
    for i, v in enumerate(flat):
        if _is_missing(v):
            valid[i] = False
        elif isinstance(v, (bool, np.bool_)):
            out[i] = bool(v)
        elif isinstance(v, (int, float, np.integer, np.floating)) and float(v) in (0.0, 1.0):
            out[i] = float(v) == 1.0
        else:
            s = str(v).strip().lower()
            if s in _TRUE_CORRECT:
                out[i] = True
            elif s in _FALSE_CORRECT:
                out[i] = False
            elif drop_unparseable:
                valid[i] = False
            else:
                raise ScreenInputError(
                    f"{field_name}: value {v!r} (row {i + 1}) is not a correctness label; "
                    "use true/false, 1/0, yes/no or correct/incorrect"
                )
    return out, valid


def parse_confidence(values: Iterable[Any], *, scale: Literal["auto", "unit", "percent", "binary"] = "auto",
                     field_name: str = "confidence", drop_unparseable: bool = False) -> ParsedConfidence:
    """Parse confidence: booleans, KEEP/WITHDRAW, BET/NO BET, high/low, or numbers in [0, 1] or [0, 100].

    ``scale="auto"`` reads a numeric column as binary when every value is 0 or 1, as ``unit`` when every value
    lies in [0, 1], and as ``percent`` when the largest lies in (1, 100]; pass ``scale`` to force one reading
    (e.g. ``"percent"`` for a 0-100 column whose values happen to be 0 or 1). Numbers outside [0, 100], negative
    numbers and unknown strings raise :class:`ScreenInputError` naming the value and its row (1-based), unless
    ``drop_unparseable``.
    """
    if scale not in ("auto", "unit", "percent", "binary"):
        raise ScreenInputError(f"scale={scale!r}: use 'auto', 'unit', 'percent' or 'binary'")
    arr = _as_1d(values)
    if arr.dtype == bool:
        return ParsedConfidence(arr.astype(float), np.ones(arr.shape, dtype=bool), "binary")
    x, valid, token_kind = _read_values(arr, field_name, drop_unparseable)
    xv = x[valid]
    bad = (xv < 0) | (xv > 100)
    if bad.any():
        if not drop_unparseable:
            i = int(np.flatnonzero(valid)[bad][0])
            raise ScreenInputError(
                f"{field_name}: value {x[i]:g} (row {i + 1}) is outside [0, 100]; confidence must be a probability "
                "in [0, 1] or a percentage in [0, 100]"
            )
        idx = np.flatnonzero(valid)[bad]
        valid[idx] = False
        xv = x[valid]
    numeric_non_binary = valid & ~token_kind & (x != 0) & (x != 1)
    if token_kind[valid].any() and numeric_non_binary.any():
        v = x[numeric_non_binary][0]
        raise ScreenInputError(
            f"{field_name}: mixes words (KEEP/WITHDRAW, true/false) with the number {v:g}; "
            "use one format per column"
        )
    fmt = _confidence_format(x, valid, xv, scale, field_name)
    out = x / 100.0 if fmt == "percent" else x.copy()
    out[~valid] = np.nan
    return ParsedConfidence(out, valid, fmt)


def _read_values(arr: np.ndarray, field_name: str, drop_unparseable: bool) -> tuple[np.ndarray, np.ndarray,
                                                                                   np.ndarray]:
    """``(values, valid, token_kind)``: numbers as floats (numeric strings in one vectorised cast), words such as
    KEEP/WITHDRAW as 1/0 (``token_kind`` True there), missing values invalid; an unknown word raises unless
    ``drop_unparseable``."""
    fast = None
    if arr.dtype == object:
        try:  # numeric strings such as "95" parse in one vectorised cast
            fast = arr.astype(float)
        except (ValueError, TypeError):
            fast = None
        if fast is not None and np.isinf(fast).any():
            fast = None
    if arr.dtype.kind in "iuf" or fast is not None:
        x = arr.astype(float) if fast is None else fast
        return x, ~np.isnan(x), np.zeros(x.shape, dtype=bool)
    flat = list(arr.ravel())
    x = np.full(len(flat), np.nan)
    valid = np.ones(len(flat), dtype=bool)
    token_kind = np.zeros(len(flat), dtype=bool)  # True where the value was a word such as KEEP
    for i, v in enumerate(flat):
        if _is_missing(v):
            valid[i] = False
            continue
        if isinstance(v, (bool, np.bool_)):
            x[i] = float(v)
            token_kind[i] = True
            continue
        if isinstance(v, (int, float, np.integer, np.floating)):
            x[i] = float(v)
            continue
        s = str(v).strip()
        try:
            x[i] = float(s.rstrip("%"))
            if not math.isfinite(x[i]):
                raise ValueError
            continue
        except ValueError:
            pass
        t = _norm_token(s)
        if t in HIGH_TOKENS:
            x[i], token_kind[i] = 1.0, True
        elif t in LOW_TOKENS:
            x[i], token_kind[i] = 0.0, True
        elif drop_unparseable:
            valid[i] = False
        else:
            raise ScreenInputError(
                f"{field_name}: value {v!r} (row {i + 1}) is not a confidence; use numbers in [0, 1] or [0, 100], "
                "booleans, KEEP/WITHDRAW, BET/NO BET or high/low (or drop such rows with drop_unparseable)"
            )
    return x, valid, token_kind


def _confidence_format(x: np.ndarray, valid: np.ndarray, xv: np.ndarray, scale: str,
                       field_name: str) -> Literal["binary", "unit", "percent"]:
    """The scale: ``scale`` when named (checked against the values), else binary when every value is 0 or 1,
    unit when every one lies in [0, 1], percent otherwise."""
    if scale == "auto":
        if xv.size == 0 or np.all((xv == 0) | (xv == 1)):
            fmt: Literal["binary", "unit", "percent"] = "binary"
        elif xv.max() <= 1.0:
            fmt = "unit"
        else:
            fmt = "percent"
    else:
        fmt = scale
    if fmt == "binary":
        bad = valid & (x != 0) & (x != 1)
        if bad.any():
            raise ScreenInputError(f"{field_name}: scale='binary' but value {x[bad][0]:g} is not 0/1")
    if fmt == "unit" and xv.size and xv.max() > 1.0:
        raise ScreenInputError(
            f"{field_name}: scale='unit' but value {xv.max():g} is above 1; use scale='percent' for 0-100 data"
        )
    return fmt


def parse_threshold(threshold: str | float | None) -> str | float:
    """Normalise a threshold: ``"median"`` (the default), or a number in [0, 1], or a percentage in (1, 100].

    >>> parse_threshold("median"), parse_threshold("0.7"), parse_threshold(70)
    ('median', 0.7, 0.7)
    """
    if threshold is None:
        return "median"
    if isinstance(threshold, str):
        t = threshold.strip().lower()
        if t == "median":
            return "median"
        try:
            value = float(t.rstrip("%"))
        except ValueError:
            raise ScreenInputError(
                f"threshold={threshold!r}: use 'median' or a number in [0, 1] (or a percentage in (1, 100])"
            ) from None
    else:
        value = float(threshold)
    if not math.isfinite(value) or value < 0 or value > 100:
        raise ScreenInputError(f"threshold={threshold!r}: use 'median' or a number in [0, 1] (or in (1, 100] as %)")
    return value / 100.0 if value > 1.0 else value


def binarise(values: Sequence[float] | np.ndarray, threshold: str | float = "median") -> tuple[np.ndarray, float]:
    """Binarise confidence in [0, 1]: high means ``value >= threshold`` (the authors' convention).

    ``threshold="median"`` uses the median of ``values`` (per model: call it once per group). Returns
    ``(high, threshold_used)``. Binary input (only 0 and 1) is returned as is with threshold 0.5 when
    ``threshold == "median"`` (the median of a binary signal would merge one level into the other).

    >>> binarise([0.2, 0.9, 0.9, 0.5])[0].tolist()
    [False, True, True, False]
    """
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        return np.zeros(0, dtype=bool), float("nan")
    thr = parse_threshold(threshold)
    if thr == "median":
        if np.all((x == 0) | (x == 1)):
            return x == 1, 0.5
        t = float(np.median(x))
    else:
        t = float(thr)
    return x >= t, t
