"""Chained identities in one variable, refuted by exact evaluation at rational points."""

import pytest

from rewards import score_trace
from rewards.checks.arithmetic import extract_equations
from rewards.checks.identities import identity_checks, single_variable

# (step text, refuted?) — regression table; the false rows are real slips from ProcessBench MATH
TABLE = [
    ("$(x+1)^2 = x^2 + 2x + 1 = 0$", False),
    ("$(x+1)^2 = x^2 + x + 1 = 0$", True),
    ("\\[ -(6 + 2r + 3r + 6r) = -(15r + 6) = 0 \\]", True),                # math-298: 2r+3r+6r is 11r
    ("\\[ (49 - a^2)(4 - a^2) = 196 - 53a^2 + a^4 = 144 \\]", False),
    ("\\[ (49 - a^2)(4 - a^2) = 196 - 8a^2 + a^4 = 144 \\]", True),          # math-55's expansion slip
    ("$2x + 3 = 7$", False),                                                 # a condition, not an identity
    ("$AB = BC = 5$", False),                                                # segments, two letters
    ("$f(2) = f^{-1}(2) = 3$", False),                                       # function notation
    ("$(1+i)^2 = 1 + 2i + i^2 = 2i$", False),                                # the imaginary unit
    ("$\\tan(90^\\circ - x) = \\cot x = 1$", False),                         # degrees
]


@pytest.mark.parametrize("text,refuted", TABLE)
def test_identity_table(text, refuted):
    assert bool(identity_checks(extract_equations(text))) is refuted


def test_single_variable_rules():
    assert single_variable("3x^2 + 2x") == "x"
    assert single_variable("x + y") is None
    assert single_variable("\\text{cost} + 2c") == "c"
    assert single_variable("P(x) + 1") is None


def test_a_refuted_identity_makes_the_suspect_step():
    steps = ["We expand the product.", "$(x+2)(x+3) = x^2 + 5x + 5 = 0$", "So \\boxed{5}."]
    result = score_trace("Expand (x+2)(x+3).", steps=steps)
    assert result.suspect_step == 1
    assert "differ as functions of x" in result.step_checks[1].reasons[0]
