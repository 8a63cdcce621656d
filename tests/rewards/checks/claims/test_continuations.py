"""Continued displays, equalities said in words and two-letter identities (rewards.checks.claims.continuations)."""

import pytest

import rewards.checks.claims
from rewards import score_trace
from rewards.checks.claims.continuations import check_trace

# (steps, problem, flagged?) — the flagged rows are the shapes of real slips in ProcessBench MATH; the others are
# the near misses read while checking false alarms: correct writing that must stay unflagged.
TABLE = [
    # continued displays
    (["Simplify: \\[ (t+2)(t-1) \\] \\[ = t^2 + t - 3 \\]"], "", True),
    (["Simplify: \\[ (t+2)(t-1) \\] \\[ = t^2 + t - 2 \\]"], "", False),
    (["\\[ \\text{Sum} = 24 \\times 24 \\times 11111 \\] \\[ = 576 \\times 11111 \\] \\[ = 63950064 \\]"], "", True),
    (["\\[ \\text{Sum} = 24 \\times 24 \\times 11111 \\] \\[ = 576 \\times 11111 \\] \\[ = 6399936 \\]"], "", False),
    (["$$ 3 \\cdot 7 + 2 $$ $$ = 24 $$"], "", True),
    (["$$ 3 \\cdot 7 + 2 $$ $$ = 23 $$"], "", False),
    (["\\[ 2 + 2 \\\\ = 5 \\]"], "", True),                                        # a display's own lines
    (["\\[ 2 + 2 \\\\ = 4 \\]"], "", False),
    (["The expression is \\[ 1001(1010101 + 989899) \\]", "So: \\[ = 1001 \\times 2000001 \\]"], "", True),
    (["The expression is \\[ 1001(1010101 + 989899) \\]", "So: \\[ = 1001 \\times 2000000 \\]"], "", False),
    (["\\[ (x+1)^2 \\]", "Expanding: \\[ = x^2 + x + 1 \\]"], "", True),           # continues the previous step
    (["\\[ (x+1)^2 \\]", "Expanding: \\[ = x^2 + 2x + 1 \\]"], "", False),
    (["\\[ x^2 - 5x + 6 = 0 \\] \\[ = (x-2)(x-3) \\]"], "", False),                # "= 0": a condition, not a value
    (["\\[ f(x) = x^2 + 3x \\] At $x = 2$: \\[ = 4 + 6 \\]"], "", False),          # substituted, not rewritten
    (["\\[ 13 + 15 \\equiv 28 \\pmod{19} \\] \\[ = 9 \\]"], "", False),             # "=" for a congruence
    (["\\[ \\begin{pmatrix} 1 & 2 \\end{pmatrix} \\] \\[ = \\begin{pmatrix} 3 \\end{pmatrix} \\]"], "", False),
    (["\\[ \\sqrt{2} \\] \\[ \\approx 1.41 \\]"], "", False),                       # an approximation that holds
    # equalities said in words
    (["So $\\sqrt{32}$ simplifies to $4\\sqrt{3}$."], "", True),
    (["So $\\sqrt{32}$ simplifies to $4\\sqrt{2}$."], "", False),
    (["Then \\(4(x^2 + \\frac{1}{2}x + \\frac{1}{16})\\) equals \\((2x + \\frac{1}{4})^2\\)."], "", True),
    (["Then \\(4(x^2 + \\frac{1}{2}x + \\frac{1}{16})\\) equals \\((2x + \\frac{1}{2})^2\\)."], "", False),
    (["The equation $x + 2 = 5$ becomes $x = 3$."], "", False),                    # an equation solved
    (["Therefore, $4$ divided by $\\frac{4}{9}$ equals $9$."], "", False),         # an operand, not the subject
    (["The count $5$ becomes $6$."], "", False),                                   # a bare number
    (["For $x \\ge 0$, \\(|x|\\) is equal to \\(x\\)."], "", False),               # true where it is meant
    (["In base 2, \\( 10^n_2 \\) is equal to \\( 2^n \\)."], "", False),           # subscripted notation
    # chained identities in two letters
    (["$(a+b)^2 = a^2 + ab + b^2 = 49$"], "", True),
    (["$(a+b)^2 = a^2 + 2ab + b^2 = 49$"], "", False),
    (["$a^2 - ab + b^2 = 7^2 - 3ab = 4$"], "If $a+b=7$ and $ab = 15$, find ...", False),  # substitutes a + b = 7
    (["We have $r^2 - 2 = s$ and $s^2 - 2 = r$.", "Adding, \\[r^2 + s^2 - 4 = r + s = -1\\]"], "", False),
    (["$AB^2 = AC^2 + BC^2 = 25$"], "", False),                                    # segment names
]


@pytest.mark.parametrize("steps,problem,flagged", TABLE)
def test_claim_table(steps, problem, flagged):
    found = check_trace(steps, problem)
    assert bool(found) is flagged, found
    assert all(c.ok is False and c.detail for _, c in found)


def test_the_step_that_wrote_the_false_side_is_reported():
    steps = ["Start from \\[ (x+1)^2 \\]", "Expanding: \\[ = x^2 + x + 1 \\]"]
    [(step, check)] = check_trace(steps, "")
    assert step == 1
    assert "differ as functions of x" in check.detail


def test_odd_input_never_raises():
    assert check_trace([None, 3, "\\[ = " * 2000, "$" * 5000], None) == []
    assert check_trace([], "") == []


def test_registered_checker_makes_the_suspect_step(monkeypatch):
    monkeypatch.setattr(rewards.checks.claims, "CHECKERS", [check_trace])
    from rewards.checks.equations import step_equations

    step_equations.cache_clear()
    steps = [
        "The constant terms are $2 \\cdot 1 = 2$ and $3 \\cdot 2 = 6$.",
        "Let's simplify the expression: \\[ (t+2)(t-1) - (t+3)(t-2) \\] \\[ = (t^2 - t - 2) - (t^2 + t - 6) \\]",
        "\\[ = -2t + 4 \\] So the answer is \\boxed{-2t + 4}.",
    ]
    result = score_trace("Simplify $(t+2)(t-1) - (t+3)(t-2)$.", steps=steps)
    assert result.suspect_step == 1
    step_equations.cache_clear()
