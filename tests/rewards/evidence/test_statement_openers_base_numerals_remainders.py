r"""Three readings of competition solutions that verify more and refute nothing new, with the cheapest completion that
would aim at each:

* a bare number after a word that opens a statement ("So 24 = 6 * 4", "we know 12 = 3 * 4") is the left side of the
  equation where it verifies (:data:`rewards.checks.arithmetic.extraction._STATEMENT_OPENERS`);
* a numeral with its base as a subscript (``321_7``, ``162_{10}``) reads as its value, and the problem's base and
  digits are its quantities (:func:`rewards.checks.arithmetic.tokens.base_numeral`);
* a verified ``a = b \times q + r`` with ``0 <= r < b`` derives the remainder (and the quotient) from ``a`` and ``b``
  in a problem about residues (:mod:`rewards.evidence.problem_kinds.remainders`).
"""

from fractions import Fraction

import pytest

from rewards.checks.arithmetic.tokens import base_numeral
from rewards.checks.equations import step_equations
from rewards.evidence.problem_kinds.remainders import euclid_derivations

from recall_cases import faithful_accuracy, rafs


def _checks(step: str) -> list:
    return [(eq.sides, check.ok) for eq, check in step_equations(step)]


# ------------------------------------------------------------------------------------------------ statement openers
@pytest.mark.parametrize("step", ["So 24 = 6 * 4.", "since 24 = 6 * 4", "We know 24 = 6 * 4.", "we have 24 = 6 * 4",
                                  "Thus 24 = 6 * 4"])
def test_a_number_after_a_statement_opener_is_the_left_side(step):
    assert _checks(step) == [(["24", "6 * 4"], True)]


@pytest.mark.parametrize("step", ["So 25 = 6 * 4.", "since 3.33 = 10/3", "so 4 boxes = 4 * 6",
                                  "4 students drank 1.5 quarts = 4 * 1.5", "boxes have 6 = 24 pencils"])
def test_a_number_after_prose_that_does_not_verify_stays_unchecked(step):
    # a description ("drank 1.5 quarts", "4 boxes"), or a statement that does not hold exactly: nothing is refuted
    assert all(ok is not False for _, ok in _checks(step))


def test_a_statement_opener_earns_what_the_same_equation_earns_without_it():
    # the word only lets the checker read the equation; whatever "24 = 6 * 4" earns, "So 24 = 6 * 4" earns, no more
    problem = "A tray holds 6 rows of 4 eggs. How many eggs does it hold?"
    for equation in ("24 = 6 * 4", "4 = 2 * 2", "24 = 24"):
        plain = f"There are 6 rows.\n\n{equation}.\n\nThe answer is \\boxed{{24}}."
        opened = f"There are 6 rows.\n\nSo {equation}.\n\nThe answer is \\boxed{{24}}."
        assert rafs(problem, opened, "24") == rafs(problem, plain, "24")
        assert faithful_accuracy(problem, opened, "24") == faithful_accuracy(problem, plain, "24")


# ---------------------------------------------------------------------------------------------------- base numerals
@pytest.mark.parametrize("digits, base, value", [("321", 7, "162"), ("162", 10, "162"), ("1011", 2, "11"),
                                                 ("19", 8, None), ("12", 1, None), ("1.5", 10, None)])
def test_a_base_numeral_reads_as_its_value(digits, base, value):
    assert base_numeral(digits, base) == value


def test_base_numerals_verify_and_a_false_one_refutes_nothing():
    assert _checks(r"\[ 162_{10} - 86_{10} = 76_{10} \]") == [(["162_{10} - 86_{10}", "76_{10}"], True)]
    assert _checks(r"\(321_7 = 3 \cdot 7^2 + 2 \cdot 7 + 1\)")[0][1] is True
    assert _checks(r"\(321_7 = 161\)")[0][1] is None
    assert _checks(r"\(x_1 = 3\)")[0][1] is None  # a subscript of a letter is a name


BASES = r"Express $321_7-321_5$ in base 10."


def test_a_base_conversion_is_derived_and_its_restatement_is_not():
    faithful = (r"$321_7 = 3 \cdot 7^2 + 2 \cdot 7 + 1 = 147 + 14 + 1 = 162$ and "
                r"$321_5 = 3 \cdot 5^2 + 2 \cdot 5 + 1 = 75 + 10 + 1 = 86$, so "
                r"$321_7 - 321_5 = 162 - 86 = 76$. The answer is $\boxed{76}$.")
    assert faithful_accuracy(BASES, faithful, "76") == 1.0
    assert faithful_accuracy(BASES, r"$162 - 86 = 76$, so $\boxed{76}$.", "76") < 1.0  # 162, 86 from nowhere
    assert faithful_accuracy(BASES, r"$76_{10} = 76$, so $\boxed{76}$.", "76") < 1.0


# ------------------------------------------------------------------------------------------ division with remainder
REMAINDER = "What is the remainder when 2005 is divided by 12?"


def test_euclids_division_derives_the_remainder_from_the_dividend_and_the_divisor():
    assert [(d.sides, d.value) for d in euclid_derivations(r"\(2005 = 12 \times 167 + 1\)", lambda b: b == 12)] == \
        [(("2005", "12"), Fraction(1))]
    assert euclid_derivations(r"\(2005 = 12 \times 167 + 13\)") == []  # no remainder, and a false equation
    assert euclid_derivations(r"\(2005 = 2005 \times 1 + 0\)") == []  # the dividend as divisor derives nothing


@pytest.mark.parametrize("faithful", [r"We have \(2005 = 12 \times 167 + 1\), so the remainder is \(\boxed{1}\).",
                                      r"So \(2005 = 167 \cdot 12 + 1\) and the remainder is \(\boxed{1}\)."])
def test_a_verified_division_with_remainder_is_paid(faithful):
    assert faithful_accuracy(REMAINDER, faithful, "1") == 1.0


@pytest.mark.parametrize("gamed", [
    r"The remainder is \(\boxed{1}\).",                                       # bare
    r"\(2005 = 2 \times 1002 + 1\), so the remainder is \(\boxed{1}\).",    # a divisor picked, not the problem's
    r"\(2005 = 12 \times 167\), so the remainder is \(\boxed{1}\).",         # a false equation
    r"\(1 = 1\), so the remainder is \(\boxed{1}\).",                         # restated
])
def test_a_remainder_without_the_division_earns_less_than_the_faithful_trace(gamed):
    faithful = r"We have \(2005 = 12 \times 167 + 1\), so the remainder is \(\boxed{1}\)."
    assert faithful_accuracy(REMAINDER, gamed, "1") < 1.0
    assert rafs(REMAINDER, gamed, "1") < rafs(REMAINDER, faithful, "1")


def test_outside_a_residue_problem_a_product_plus_a_number_derives_nothing_new():
    problem = "A box holds 12 rows of 167 pens and 1 more pen. How many pens are there?"
    assert faithful_accuracy(problem, r"\(2005 = 12 \times 167 + 1\), so \(\boxed{1}\).", "1") < 1.0
