r"""Division with remainder: a verified ``a = b \times q + r`` with ``0 <= r < b`` derives ``r`` (and ``q``).

Euclid's division is unique: for whole ``a`` and ``b >= 2`` exactly one pair ``q``, ``0 <= r < b`` has
``a = b q + r``. So a step that writes that equation, when it holds, has computed ``a mod b`` and ``a div b`` from
``a`` and ``b`` — however it found ``q`` (the division itself is rarely written out). The remainder is derived as a
residue (:class:`~rewards.evidence.model.Derivation` kind ``congruence``: an edit of ``a`` or ``b`` moves it to the
new residue), the quotient from the same two numbers.

Only the divisor decides what is derived, so it must come from somewhere: a quantity of the problem or a value the
trace derived — not a basic constant the trace picked (``2005 = 2 \times 1002 + 1`` derives no remainder by 12).
Used by :class:`~rewards.evidence.problem_kinds.modular.ModularRule`, so only in a problem that asks about residues.

>>> [(d.sides, d.value) for d in euclid_derivations(r"so \(2005 = 12 \times 167 + 1\).", lambda b: b == 12)]
[(('2005', '12'), Fraction(1, 1))]
>>> euclid_derivations("2005 = 12 * 167 + 13")  # 13 is no remainder by 12 (nor by 167: the equation is false)
[]
"""

from __future__ import annotations

import re
from fractions import Fraction

from rewards.checks.equations import step_equations
from rewards.evidence.model import Derivation

__all__ = ["euclid_derivations", "euclid_readings"]

_LONE = re.compile(r"\s*\$?\s*(\d{1,18})\s*\$?\s*")
_EUCLID = re.compile(r"\s*\(?\s*(\d{1,18})\s*(?:\\times|\\cdot|\*|×|·|⋅)\s*(\d{1,18})\s*\)?\s*\+\s*(\d{1,18})\s*")


def euclid_readings(text: str) -> list[tuple[str, str, str, Fraction, Fraction, Fraction, Fraction]]:
    """Every verified ``a = f_1 \\times f_2 + r`` of ``text`` (either side first) as ``(a text, f_1 text, f_2 text, a,
    f_1, f_2, r)``."""
    if "+" not in text:
        return []
    found = []
    for eq, check in step_equations(text):
        if check.ok is not True:
            continue
        sides = eq.sides
        for i in range(len(sides) - 1):
            for lone, product in ((sides[i], sides[i + 1]), (sides[i + 1], sides[i])):
                m, e = _LONE.fullmatch(lone), _EUCLID.fullmatch(product)
                if m is None or e is None:
                    continue
                a, f1, f2, r = (Fraction(int(x)) for x in (m.group(1), *e.groups()))
                if a == f1 * f2 + r:
                    found.append((m.group(1), e.group(1), e.group(2), a, f1, f2, r))
    return found


def euclid_quotients(text: str, divisor_ok=None) -> list[tuple[Derivation, Fraction]]:
    """``(remainder derivation, quotient)`` for each verified ``a = b \\times q + r`` of ``text``
    (:func:`euclid_readings`): ``Derivation((a, b), r, "congruence")`` and ``q = (a - r) / b`` for a factor ``b >= 2``,
    ``b != a``, with ``0 <= r < b`` that ``divisor_ok(b)`` accepts (the first factor that does); without
    ``divisor_ok``, every factor that qualifies, the smaller first (a divisor is most often the smaller factor)."""
    out = []
    for a_text, f1_text, f2_text, a, f1, f2, r in euclid_readings(text):
        factors = sorted(((f1_text, f1, f2), (f2_text, f2, f1)), key=lambda x: x[1])
        for b_text, b, q in factors:
            if 2 <= b and b != a and 0 <= r < b and (divisor_ok is None or divisor_ok(b)):
                out.append((Derivation((a_text, b_text), r, "congruence"), q))
                if divisor_ok is not None:
                    break
    return out


def euclid_derivations(text: str, divisor_ok=None) -> list[Derivation]:
    """The remainder derivations of :func:`euclid_quotients`."""
    return [derivation for derivation, _ in euclid_quotients(text, divisor_ok)]
