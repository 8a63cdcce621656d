"""Algebra slips between consecutive equations in one unknown (rewards.checks.claims.equivalence)."""

import pytest

import rewards.checks.claims
from rewards import score_trace
from rewards.checks.claims.equivalence import check_trace

# (step text, flagged?) — the flagged rows are the slips this checker exists for (most shaped like real
# ProcessBench slips); the others are correct writing, or near misses found while reading false alarms.
TABLE = [
    # slips
    ("\\[ x^2 - 2x - 7 = 0 \\] \\[ (x - 7)(x + 5) = 0 \\]", True),                 # expands to x^2 - 2x - 35
    ("3x + 5 = 20, so 3x = 14", True),
    ("$\\frac{x}{4} = 3 \\Rightarrow x = 7$", True),
    ("2x + 3 = 11, so x = 5", True),
    ("\\begin{align*} 2x + 3 &= 11 \\\\ 2x &= 9 \\end{align*}", True),
    ("Divide both sides by 2r: $6r^2 = 12r$ gives $3r = 12$", True),        # r = 4 does not solve 6r^2 = 12r
    ("\\[ -x^2 - x + 1 = 2x^2 - 1 \\] \\[ 0 = 3x^2 - x + 2 \\]", True),      # irrational roots: no division
    ("$\\frac{6}{10} = \\frac{x}{8 - x}$, so $x = \\frac{8}{5}$", True),    # x = 8/5 gives 1/4, not 3/5
    ("Combine like terms: 0.99B + 1.01B + B = 4500. Combine like terms: 3.01B = 4500.", True),
    # correct rewrites and near misses
    ("3x + 5 = 20, so 3x = 15", False),
    ("\\[ x^2 - 2x - 35 = 0 \\] \\[ (x - 7)(x + 5) = 0 \\]", False),
    ("$x^2 = 4$, so $x = 2$", False),                                        # dropping a root is fine
    ("\\[ x - 8 = 12 \\quad \\text{or} \\quad x - 8 = -12 \\] \\[ x = 20 \\quad \\text{or} \\quad x = -4 \\]",
     False),                                                                 # two cases, solved in parallel
    ("Then $x = 3$. \\[ x = 5 \\]", False),                                  # stated values: cases, not rewrites
    ("Then $x - 3 = 0,$ $x - 7 = 0,$ or $2x - 10 = 0.$", False),             # a list, not a derivation
    ("\\[ 9x^2 - 18x - 16 = 0 \\quad \\text{(1)} \\] \\[ 15x^2 + 28x + 12 = 0 \\quad \\text{(2)} \\]",
     False),                                                                 # two labelled equations
    ("\\[196 = 105 + (n-1)7\\] \\[91 = (n-1)7\\] \\[13 = n-1\\] \\[n = 14\\]", False),
    ("\\[x(x^2 - 16) = 0\\]\n\\[x = 0\\]", False),                           # x(…): not read as one unknown
    ("$h^2 = 17600$, so $h = 132.66$", False),                               # a rounded root
    ("$x = 3$, so $x^2 = 9$", False),                                        # squaring raises the degree
    ("$\\sqrt{x + 1} = x - 1$, so $x + 1 = (x - 1)^2$", False),               # radicals are left alone
    ("$\\frac{x}{x - 1} = \\frac{1}{x - 1}$, so $x = 1$", False),             # the first is undefined there
    ("$a_1 = 3$, so $a_2 = 5$", False),                                      # subscripts: not one unknown
    ("$f(x) = 2x + 1$, so $f(x) = 5$", False),                               # function notation
    ("$x + y = 10$, so $x = 4$", False),                                     # two unknowns
    ("$2x + 3 = 11$ and $x = 5$", False),                                    # no connector that derives
    ("$x^2 - 2x - 7 = 0$ \\[ (x - 7)(x + 5) = 0 \\]", False),                  # inline then display: no connector
]


@pytest.mark.parametrize("text,flagged", TABLE)
def test_equivalence_table(text, flagged):
    assert bool(check_trace([text], "")) is flagged


def test_detail_names_the_root_and_the_value():
    [(k, check)] = check_trace(["2x + 3 = 11, so x = 5"], "")
    assert k == 0 and check.ok is False
    assert "x = 5 solves the second but not the first (2x + 3 = 13, not 11)" in check.detail


def test_consecutive_steps_are_paired():
    steps = ["If there are 150 ducks, 150 = 10 + 4c.", "So, 4c = 150.", "And c = 37.5."]
    assert [k for k, _ in check_trace(steps, "")] == [1]


def test_odd_input_never_raises():
    odd = ["x = " * 3000, None, "", "=" * 50, "$x^{99999} = 1$ so $x = 2$"]
    assert check_trace(odd, "") == []  # type: ignore[arg-type]


def test_a_slip_makes_the_suspect_step(monkeypatch):
    monkeypatch.setattr(rewards.checks.claims, "CHECKERS", [check_trace])
    from rewards.checks.equations import step_equations

    step_equations.cache_clear()
    steps = ["Let x be the number.", "We need $2x + 3 = 11$, so $x = 5$.", "The answer is \\boxed{5}."]
    result = score_trace("Twice a number plus 3 is 11. Find the number.", steps=steps)
    assert result.suspect_step == 1
    step_equations.cache_clear()
