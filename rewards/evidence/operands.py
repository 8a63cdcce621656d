"""The role of one number in an expression: a term of a sum or difference (:func:`added_term`), not a factor.
"""

from __future__ import annotations

import re

from rewards.evidence.quantities import BASIC_CONSTANTS, read_numbers


_UNIT_AFTER = re.compile(r"\s*(?:[A-Za-z%]+\s*){0,2}")


NEGATED = re.compile(r"(?:^|[(\[{=,]|\\left\()\s*-\s*$")
"""A unary minus just before a number (``(-4)``, ``= -4``, a side's first character): the number written is the
negative value (``23 + (-4)`` uses the -4 a step derived, not a 4 from nowhere). Searched in ``side[:start]``."""
_TERM_CHARS = frozenset("0123456789. *×·/÷()")
_LATEX_PRODUCT = re.compile(r"\\(?:cdot|times|div)(?![A-Za-z])")


def added_term(side: str, start: int, end: int) -> bool:
    """Whether the number at ``side[start:end]`` is a term of a sum or difference (``14 - 3 - 4``, ``9 + 3``,
    ``$3 + $5``), not a factor (``3 * 4``, ``12 / 3``, ``(3 + 1) * 2``, ``3/4``, ``10 - 2 * 3``) — or a factor of a
    term made of constants only, which adds the same amount in disguise (``85 - 3 * 1``, ``85 - (3)``,
    ``2 \\cdot 2 \\cdot 3 + 1``: a LaTeX product is read as ``*``, offsets kept)."""
    if "\\" in side:
        side = _LATEX_PRODUCT.sub(lambda m: " " * (len(m.group()) - 1) + "*", side)
    a, b = start, end
    while a > 0 and side[a - 1] in _TERM_CHARS:
        a -= 1
    while b < len(side) and side[b] in _TERM_CHARS:
        b += 1
    term = side[a:b]
    if term.strip() != side[start:end].strip() and all(v in BASIC_CONSTANTS for v, _ in read_numbers(term)):
        if _added_plain(side, a + len(term) - len(term.lstrip()), b - (len(term) - len(term.rstrip()))):
            return True
    return _added_plain(side, start, end)


def _added_plain(side: str, start: int, end: int) -> bool:
    """:func:`added_term` for the number alone."""
    left = side[:start].rstrip().rstrip("$").rstrip()[-1:]
    right_text = side[end:]
    right = right_text[_UNIT_AFTER.match(right_text).end():][:1]
    if left in "*/×÷·^(x" and left or right in "*/×÷·^)x%" and right or side[:start].rstrip().endswith(
            ("\\cdot", "\\times", "\\div", "of", "times")):
        return False
    return left in "+-−–" and left != "" or right in "+-−–" and right != ""
