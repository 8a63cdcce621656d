"""Problems about residues (remainders, congruences, digits, bases): congruence chains derive residues.
"""

from __future__ import annotations

import re
from fractions import Fraction
from functools import lru_cache

from rewards.evidence.model import Derivation
from rewards.checks.algebra import substitutes
from rewards.checks.arithmetic import Equation, EquationCheck, Value, contains_any
from rewards.checks.claims.congruences import congruence_chains
from rewards.evidence.problem_kinds.base import ProblemKindRule
from rewards.evidence.problem_kinds.remainders import euclid_derivations, euclid_quotients
from rewards.evidence.quantities import grounded, read_numbers, value_key


_MODULAR_PROBLEM = re.compile(r"remainder|\\pmod|\\bmod|\bmod(?:ulo)?\b|congruen|divisib|divided by|units digit|ones "
                              r"digit|last (?:two |three )?digits?|residue|\bbase\b|inverse", re.I)
"""A problem that asks for a residue (46 of MATH-500's 500, 58 of GSM8K train's 7,473): only there does a
congruence chain derive an answer. Elsewhere a residue of the problem's numbers is a shortcut that happens to land
(``128 \\equiv 2 \\pmod 7``: the multiple of 7 it drops is grounded nowhere)."""


_MODULAR_WORDS = ("mod", "remainder", "digit", "divided by", "divisib", "congruen", "residue", "base", "inverse")
"""A word that every match of :data:`_MODULAR_PROBLEM` holds (lower-cased): ``\\pmod``, ``\\bmod`` and ``modulo``
hold "mod"; "units digit", "ones digit" and "last digits" hold "digit"."""


@lru_cache(maxsize=4096)
def modular_problem(problem: str) -> bool:
    """Whether ``problem`` asks about remainders, congruences, digits or bases (:data:`_MODULAR_PROBLEM`).

    The case-insensitive search costs ~30 µs on a GSM8K problem; on ASCII text (where ``re.I`` folds only ASCII
    letters, exactly as ``str.lower`` does) a problem that holds none of :data:`_MODULAR_WORDS` cannot match, and is
    answered without it. (Cached: the completions of a group, and each trace's propagation plan, ask again.)"""
    if problem.isascii():
        low = problem.lower()
        if not contains_any(low, _MODULAR_WORDS):
            return False
    return _MODULAR_PROBLEM.search(problem) is not None


def congruence_derivation(chain) -> tuple[tuple[str, str], Fraction, str] | None:
    """What a congruence chain (:func:`rewards.checks.claims.congruences.congruence_chains`) derives: its last side, a
    residue (``|r| < m``), from its first side and the modulus, when every link checks and some link reduces (``18
    \\equiv 18`` derives nothing; neither does ``7 \\equiv 13 \\pmod 2``, whose 13 no congruence pins down)."""
    result = chain.values[-1]
    if not chain.holds or abs(result) >= chain.modulus or result == chain.values[0]:
        return None
    return Derivation((chain.sides[0], chain.modulus_text), result, "congruence")


_GIVEN_CONGRUENCE = re.compile(r"(?<![\\A-Za-z])([a-z])\s*\\equiv\s*(-?\d{1,9})\s*\\pmod\s*\{?\s*(\d{1,9})\s*\}?")


def substituted_head(problem: str, text: str, chain) -> bool:
    r"""Whether ``chain`` (a congruence chain of ``text``) starts from an expression in an unknown that its reader
    dropped, ``(n + 2)(n + 4)(n + 6) \equiv 4 \cdot 6 \cdot 8``, whose value with the problem's own congruence put
    in (``n \equiv 2 \pmod{7}``, same modulus) is exactly the chain's first side: that side is the problem's
    expression evaluated, its numbers reached.

    >>> from rewards.checks.claims.congruences import congruence_chains
    >>> t = r"Then $(n + 2)(n + 4) \equiv 4 \cdot 6 \equiv 3 \pmod{7}$."
    >>> substituted_head(r"If $n \equiv 2 \pmod{7}$, find ...", t, congruence_chains(t)[0])
    True
    >>> substituted_head(r"If $n \equiv 3 \pmod{7}$, find ...", t, congruence_chains(t)[0])
    False
    """
    given = _GIVEN_CONGRUENCE.findall(problem)
    if not given:
        return False
    head = text[chain.span[0]:].split("\\equiv", 1)[0].strip().strip("$").strip()
    if not head or not any(c.isalpha() for c in head) or len(head) > 80:
        return False
    for name, residue, modulus in given:
        if Fraction(modulus) == chain.modulus and name in head:
            value = substitutes(head, {name: Fraction(residue)})
            if value is not None and value == chain.values[0]:
                return True
    return False


def residue_of(value: Fraction, modulus: Fraction, like: Fraction) -> Fraction | None:
    """``value`` modulo ``modulus`` on the side of zero ``like`` sits (a counterfactual edit of a congruence)."""
    if value.denominator != 1 or modulus.denominator != 1 or modulus < 2:
        return None
    residue = value % modulus
    return residue - modulus if like < 0 and residue else residue


class ModularRule(ProblemKindRule):
    """A problem that asks for a residue (:func:`modular_problem`): a congruence chain a step writes
    (``129^{34} + 96^{38} \\equiv 9 \\pmod{11}``) is checked and derives its residue from its first side and the
    modulus (:func:`congruence_derivation`); counterfactual edits reduce the edited first side again."""

    name = "modular"

    def applies(self, problem: str) -> bool:
        return modular_problem(problem)

    def after_step(self, builder, flow, text: str) -> None:
        for chain in congruence_chains(text) if "mod" in text else ():
            derivation = congruence_derivation(chain)
            if derivation is not None:
                self._derive(builder, flow, text, chain, derivation)
        if "+" in text:  # "2004 = 12 \times 167 + 0": Euclid's division derives the remainder and the quotient
            def divisor_ok(b: Fraction) -> bool:  # a divisor from the problem or derived, not a constant picked
                return b in builder.pnums or b in builder.producers
            for derivation, quotient in euclid_quotients(text, divisor_ok):
                self._divide(builder, flow, derivation, quotient)

    @staticmethod
    def _divide(builder, flow, derivation, quotient: Fraction) -> None:
        """Record a remainder derivation (:mod:`~rewards.evidence.problem_kinds.remainders`): its dividend and
        divisor are used, the remainder and the quotient produced (reached when both operands are); the quotient,
        which the equation wrote as an operand, is no longer a number from nowhere in this step."""
        unreached = False
        for side in derivation.sides:
            for number, _span in read_numbers(side):
                flow.used.append(number)
                if not builder.is_reached(number):
                    unreached = True
                producer = builder.producers.get(number)
                if producer is not None and number not in builder.pnums:
                    flow.depends_on.add(producer)
        if unreached:
            return
        for value in (quotient, derivation.value):
            if value in flow.unsupported:
                flow.unsupported[:] = [v for v in flow.unsupported if v != value]
            if value in flow.ungrounded:
                flow.ungrounded[:] = [v for v in flow.ungrounded if v != value]
            flow.produced.append(value)
            builder.known.add(value_key(value))
            builder.strict.add(value_key(value))
        builder.last_derived = derivation.value

    @staticmethod
    def _derive(builder, flow, text: str, chain, derivation) -> None:
        values = [Value(v, float(v), True) for v in chain.values]
        flow.checks.append(EquationCheck(Equation(list(chain.sides), values, chain.span, "latex", chain.relations),
                                         True, f"congruent modulo {chain.modulus}"))
        unreached = False
        substituted = substituted_head(builder.problem, text, chain) if "equiv" in builder.problem else False
        for side in derivation.sides:
            for number, _span in read_numbers(side):
                flow.used.append(number)
                if substituted and side is derivation.sides[0]:  # "(n+2)(n+4)(n+6) \equiv 4 \cdot 6 \cdot 8"
                    continue                                  # where the problem says n \equiv 2
                if not grounded(builder.known, number) and number not in builder.converted:
                    flow.ungrounded.append(number)
                if not builder.is_reached(number):
                    flow.unsupported.append(number)
                    unreached = True
                producer = builder.producers.get(number)
                if producer is not None and number not in builder.pnums:
                    flow.depends_on.add(producer)
        flow.produced.append(derivation.value)
        builder.known.add(value_key(derivation.value))
        builder.last_derived = derivation.value
        if not unreached:
            builder.strict.add(value_key(derivation.value))

    def plan_entries(self, text: str) -> list:
        found = (congruence_derivation(chain) for chain in congruence_chains(text)) if "mod" in text else ()
        return [derivation for derivation in found if derivation is not None] + \
            (euclid_derivations(text) if "+" in text else [])
