"""Clock times read as arithmetic: a chain such as ``8:20 a.m. - 8:00 a.m. = 20 minutes`` rewritten in minutes after
midnight (``500 - 480 = 20``) so the exact checker reads it (:func:`read_clock_times`, applied by
:func:`rewards.checks.arithmetic.extraction.extract_equations`)."""

from __future__ import annotations

import re

__all__ = ["CLOCK_TIME", "read_clock_times", "time_of_day"]

_CLOCK_HINT = re.compile(r"(?<![\d:.])\d{1,2}:\d{2}(?![\d:])")
CLOCK_TIME = re.compile(r"(?<![\d:.,])(?P<h>\d{1,2}):(?P<m>\d{2})(?![\d:])(?:\s*(?P<ap>[aApP])\.?\s?[mM]\b\.?)?")
"""A clock time ``h:mm``, with ``a.m.``/``p.m.`` when marked (groups ``h``, ``m``, ``ap``)."""
_CLOCK_ITEM = re.compile(
    r"(?P<time>" + CLOCK_TIME.pattern + r")|"
    r"(?P<dur>(?<![\d:.,])(?P<n>\d{1,4})(?![\d.,:])(?:\s*(?P<unit>hours?|hrs?|minutes?|mins?)\b)?)")


def time_of_day(h: int, mm: int, ap: str | None = None) -> int:
    """A clock time in minutes after midnight: 13:00 and on as 24-hour time, else ``(h mod 12) * 60 + mm``, 720 more
    after p.m. (an unmarked 12:xx reads as just past midnight; as noon it is 720 more).

    >>> time_of_day(7, 50), time_of_day(2, 15, "p"), time_of_day(14, 0), time_of_day(12, 30)
    (470, 855, 840, 30)
    """
    return h * 60 + mm if h > 12 else (h % 12) * 60 + mm + (720 if (ap or "a") in "pP" else 0)
_CLOCK_JOIN = re.compile(r"\s*([-+=])\s*")


def _clock_chain(text: str, at: int):
    """The clock chain starting at ``at`` as ``(end, sides, items)`` (each side a list of (sign, minutes, noon): noon
    the 720 an unmarked 12:xx adds when read as noon); None when there is none (no "=", or not a time first)."""
    sides, items, side, pos, sign = [], [], [], at, "+"
    while True:
        m = _CLOCK_ITEM.match(text, pos)
        if m is None or (not side and not sides and m.group("time") is None):
            return None
        if m.group("time"):
            h, mm = int(m.group("h")), int(m.group("m"))
            of_day = (not side or sign == "=" or m.group("ap")) and h <= 12  # "8:20 a.m. - 8:00 a.m.": of day
            minutes = time_of_day(h, mm, m.group("ap")) if of_day else h * 60 + mm
            noon = 720 if of_day and h == 12 and not m.group("ap") else 0  # "12:00 - 8:00": noon, or midnight
        else:
            unit = (m.group("unit") or "m").lower()
            minutes, noon = int(m.group("n")) * (60 if unit.startswith("h") else 1), 0
        side.append((sign, minutes, noon)); items.append(m.span())
        if len(items) > 12:  # no clock chain runs this long (and a scan from every time in a run would be quadratic)
            return None
        pos = m.end()
        j = _CLOCK_JOIN.match(text, pos)
        if j is None or j.group(1) == "=" and _CLOCK_ITEM.match(text, j.end()) is None:
            sides.append(side)
            break
        sign = j.group(1)
        if sign == "=":
            sides.append(side); side = []
        pos = j.end()
    if len(sides) < 2 or sum(len(s) for s in sides) < 3:
        return None
    return pos, sides, items


def read_clock_times(text: str) -> str:
    """``text`` with each clock chain read in minutes (see above), every offset kept; ``text`` when there is none.

    >>> read_clock_times("he arrived at 7:50 + 30 minutes = 8:20 a.m.")
    'he arrived at 470  + 30         = 500      '
    >>> read_clock_times("11:00 + 3 hours = 2:00")   # past noon unmarked: left unchecked
    '11:00 + 3 hours   2:00'
    """
    if ":" not in text or _CLOCK_HINT.search(text) is None:
        return text
    chars, pos = list(text), 0
    for hint in _CLOCK_HINT.finditer(text):
        if hint.start() < pos:
            continue
        chain = _clock_chain(text, hint.start())
        if chain is None:
            continue
        end, sides, items = chain
        for noon in (0, 1):  # 12:xx unmarked: past midnight, else noon
            read = [v + noon * n for side in sides for _, v, n in side]
            values = iter(read)
            totals = [sum(next(values) * (-1 if s == "-" else 1) for s, _, _ in side) for side in sides]
            if all(t == totals[0] for t in totals) and all(len(side) == 1 for side in sides[1:]):
                break
        else:
            read = None
        if read is not None and all(len(str(v)) <= b - a for (a, b), v in zip(items, read)):
            for (a, b), value in zip(items, read):  # written back in minutes
                chars[a:b] = str(value) + " " * (b - a - len(str(value)))
        else:
            for k in range(hint.start(), end):
                if chars[k] == "=":
                    chars[k] = " "
        pos = end
    return "".join(chars)
