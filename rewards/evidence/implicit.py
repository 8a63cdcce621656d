r"""One operation a sentence states without writing it: ``In 5 days, 2 * 5 = 10 peaches will ripen.`` then
``With the 4 that were already ripe, there will be 14 peaches that have ripened.`` (14 = 10 + 4).

A step with no equation that states a number nothing reaches is a *stray* claim (no support; see
:func:`rewards.scoring.score._note_stray_claims`). Where that number is exactly one operation on the value the trace
derived last and a reached number the same sentence states *before* it, the sentence is read as that operation — the
form a gold solution writes when it names the operand and the result but not the sign. It only ever derives (a
mismatch stays a stray claim, never a refutation), and it is narrow on purpose:

* the left operand is the trace's last derived value (what the sentence goes on from), never a problem number alone
  (``16 eggs ... 18 dollars`` is no hidden ``16 + 2``);
* the right operand is a number the same sentence writes before the result and that is itself reached (a problem
  quantity or a derived value; a free constant the sentence writes — "2", "100" — is no operand: a hidden slip does
  not become derived by writing a digit next to it);
* exactly one of ``+ - * /`` gives the result (two operations that give it are ambiguous: no reading);
* the sentence states no other unreached number, and the result stands beside no operator or ``=`` and in no list
  (in ``= 3 + 5 + 4 Total amount = 12`` the 4 is an operand: :func:`written_operand`);
* the result is a number nothing reaches: a free constant ("the result is always 1") is never read this way.

>>> from fractions import Fraction as F
>>> implicit_operation(F(14), F(10), [F(4)])
('10 + 4', Fraction(14, 1))
>>> implicit_operation(F(15), F(10), [F(4)]) is None
True
"""

from __future__ import annotations

import re
from fractions import Fraction

MAX_OPERANDS = 6
"""At most this many numbers stated before the result in the sentence are tried as the right operand."""


def _render(v: Fraction) -> str:
    return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"


_OPERATOR_BEFORE = re.compile(r"(?:[-+*/×÷=^]|\\times|\\cdot|\\div)\s*\$?\s*$")
_LISTED = re.compile(r",\s*(?:and\s+|or\s+)?\$?\s*$")
_OPERATOR_AFTER = re.compile(r"^\s*%?\s*(?:[-+*/×÷=^]|\\times|\\cdot|\\div|x\s*\d)")


def written_operand(text: str, start: int, end: int) -> bool:
    """Whether the number at ``text[start:end]`` stands beside an operator or ``=`` (``3 + 5 + 4 Total``), or in a
    list (``multiples of 4, 6, and 10``): an operand or a result of arithmetic the sentence writes, or one item of
    several, not a number it states on its own.

    >>> written_operand("so 3 + 5 + 4 Total", 11, 12), written_operand("there will be 14 peaches", 14, 16)
    (True, False)
    """
    return bool(_OPERATOR_BEFORE.search(text[max(0, start - 12):start]) or _OPERATOR_AFTER.match(text[end:end + 12])
                or _LISTED.search(text[max(0, start - 8):start]) or text[end:end + 1] == ",")


def implicit_operation(result: Fraction, previous: Fraction | None,
                       operands: list[Fraction]) -> tuple[str, Fraction] | None:
    """The one operation ``previous ∘ b = result`` (``b`` among ``operands``, the sentence's reached numbers before
    the result) as ``(side, result)``, or ``None`` when there is none or more than one."""
    if previous is None or not operands:
        return None
    found: list[str] = []
    for b in dict.fromkeys(operands[:MAX_OPERANDS]):
        for op, value in (("+", previous + b), ("-", previous - b), ("*", previous * b),
                          ("/", previous / b if b else None)):
            if value == result and value != previous:
                found.append(f"{_render(previous)} {op} {_render(b)}")
    return (found[0], result) if len(found) == 1 else None
