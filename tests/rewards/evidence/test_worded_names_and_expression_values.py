"""Two readings of competition solutions, each with the cheapest completion that would aim at it:

* a quantity named in words and restated on every line of its computation (``\\[ \\text{Number of Revolutions} =
  \\frac{19404}{6} \\]``, ``\\[ \\text{Number of Revolutions} = 3234 \\]``) is one verified chain
  (:mod:`rewards.checks.worded_names`);
* an equation solved for an expression (``2(a + b) = 1994``, so ``a + b = 997``) derives the expression's value
  when the grounded equation it follows from fixes it (:func:`rewards.checks.algebra.determined.determined_value`),
  and a counterfactual edit of that equation's numbers moves it.

Scored as GRPO scores them (``rafs_reward`` and ``faithful_accuracy_reward`` on one prompt).
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from rewards import faithful_accuracy_reward, rafs_reward
from rewards.checks.algebra.determined import determined_value
from rewards.checks.equations import step_equations
from rewards.checks.worded_names import named_text

WHEEL = "A wheel has a circumference of 6 feet. How many revolutions does it make while rolling 19404 feet?"
WHEEL_FAITHFUL = ("\\[ \\text{Number of Revolutions} = \\frac{\\text{Distance}}{\\text{Circumference}} \\]\n\n"
                  "\\[ \\text{Number of Revolutions} = \\frac{19404}{6} \\]\n\n"
                  "\\[ \\text{Number of Revolutions} = 3234 \\]\n\nThe answer is \\boxed{3234}.")

TANGENT = ("A tangent from the point $(2 \\cdot 1994, 2 \\cdot 1994)$ to the circle $x^2 + y^2 = 1994^2$ touches "
           "circle at the point $(a,b).$  Compute $a + b.$")
TANGENT_FAITHFUL = (
    "The tangent line at $(a, b)$ is $ax + by = 1994^2$. The point $(2 \\cdot 1994, 2 \\cdot 1994)$ lies on it:\n\n"
    "\\[ a(2 \\cdot 1994) + b(2 \\cdot 1994) = 1994^2. \\]\n\n\\[ 2 \\cdot 1994(a + b) = 1994^2. \\]\n\n"
    "\\[ 2(a + b) = 1994. \\]\n\n\\[ a + b = 997. \\]\n\nSo $a + b = \\boxed{997}$.")


def _pay(problem: str, completion: str, gold: str) -> tuple[float, float]:
    rafs = rafs_reward([problem], [completion], answer=[gold])[0] or 0.0
    faithful = faithful_accuracy_reward([problem], [completion], answer=[gold])[0] or 0.0
    return rafs, faithful


# ------------------------------------------------------------------------------------------------ worded names
def test_a_worded_name_restated_on_each_line_is_one_verified_chain():
    step = "\\[ \\text{Distance} = \\sqrt{36 + 64} \\] so \\[ \\text{Distance} = 10 \\]"
    [(eq, check)] = step_equations(step)
    assert check.ok is True and len(eq.sides) == 3
    assert "\\text{Distance}" in check.detail  # reported in the step's own words


def test_a_false_link_of_a_worded_chain_is_not_verified():
    [(eq, check)] = step_equations("\\[ \\text{Distance} = \\sqrt{36 + 64} = 11 \\]")
    assert check.ok is False


@pytest.mark.parametrize("text", ["so $2 \\text{ cm} = 20 \\text{ mm}$", "the $\\text{area} + 3 = 7$ case"])
def test_a_unit_or_a_worded_term_is_no_name(text):
    assert named_text(text) == text


def test_a_worded_chain_from_the_problem_is_paid_as_derived():
    bare = _pay(WHEEL, "\\boxed{3234}", "3234")
    rafs, faithful = _pay(WHEEL, WHEEL_FAITHFUL, "3234")
    assert faithful == 1.0 and rafs > bare[0] + 0.5


@pytest.mark.parametrize("attack", [
    # a worded chain of numbers from nowhere that lands on the answer
    "\\[ \\text{Total} = 3000 + 234 \\]\n\n\\[ \\text{Total} = 3234 \\]\n\n\\boxed{3234}",
    # the answer restated under a worded name
    "\\[ \\text{Revolutions} = 3234 \\]\n\n\\[ \\text{Revolutions} = 3234 \\]\n\n\\boxed{3234}",
    # a worded name given the problem's computation, then the answer instead of its result
    "\\[ \\text{Revolutions} = \\frac{19404}{7} \\]\n\n\\[ \\text{Revolutions} = 3234 \\]\n\n\\boxed{3234}",
])
def test_a_worded_name_earns_no_more_than_the_bare_answer_without_a_derivation(attack):
    bare = _pay(WHEEL, "\\boxed{3234}", "3234")
    honest = _pay(WHEEL, WHEEL_FAITHFUL, "3234")
    gamed = _pay(WHEEL, attack, "3234")
    for k in range(2):
        assert gamed[k] <= bare[k] + 1e-9 and gamed[k] < honest[k], (gamed, bare, honest)


# ------------------------------------------------------------------------------------------------ expressions
def test_an_equation_fixes_an_expression_it_does_not_solve():
    assert determined_value(("a(2 \\cdot 1994) + b(2 \\cdot 1994)", "1994^2"), "a + b") == 997
    assert determined_value(("2L + 2W", "12"), "L + W") == 6
    assert determined_value(("a + 2b", "4"), "a + b") is None  # a + b is free
    assert determined_value(("x^2 + y", "5"), "y") is None  # y = 5 - x^2 varies
    assert determined_value(("2(a + b)", "1994"), "a + c") is None  # c is not in the equation


def test_an_expression_solved_from_the_problem_is_paid_as_derived():
    bare = _pay(TANGENT, "\\boxed{997}", "997")
    rafs, faithful = _pay(TANGENT, TANGENT_FAITHFUL, "997")
    assert faithful == 1.0 and rafs > bare[0] + 0.5


def test_the_expression_moves_with_the_problem():
    from rewards.evidence import build_dataflow, input_counterfactuals
    from rewards.parsing.trace import parse_trace
    trace = parse_trace(TANGENT, TANGENT_FAITHFUL)
    flow = build_dataflow(trace)
    assert flow.answer_value == Fraction(997)
    assert any(edit.moves for edit in input_counterfactuals(trace, flow))


@pytest.mark.parametrize("attack", [
    "\\[ a + b = 997 \\]\n\nSo \\boxed{997}",  # stated
    "\\[ 3(a + b) = 2991 \\]\n\n\\[ a + b = 997 \\]\n\nSo \\boxed{997}",  # from an equation of no problem number
    "\\[ a(2 \\cdot 1994) + 2b = 1994^2 \\]\n\n\\[ a + b = 997 \\]\n\nSo \\boxed{997}",  # a + b is not fixed by it
])
def test_an_expression_value_without_a_grounded_equation_earns_no_more_than_the_bare_answer(attack):
    bare = _pay(TANGENT, "\\boxed{997}", "997")
    gamed = _pay(TANGENT, attack, "997")
    assert gamed[0] <= bare[0] + 1e-9 and gamed[1] <= bare[1] + 1e-9, (gamed, bare)


def test_an_invented_equation_solved_for_an_expression_earns_no_more_than_solved_for_a_name():
    """An equation of problem numbers the problem does not state is a grounded source (a known attack,
    ``test_invented_equation_of_problem_numbers_earns_less_than_the_gold``): solving it for an expression opens
    nothing beyond solving it for a name."""
    as_name = _pay(TANGENT, "\\[ 2x = 1994 \\]\n\n\\[ x = 997 \\]\n\nSo \\boxed{997}", "997")
    as_expression = _pay(TANGENT, "\\[ 2(a + b) = 1994 \\]\n\n\\[ a + b = 997 \\]\n\nSo \\boxed{997}", "997")
    assert as_expression[0] <= as_name[0] + 1e-9 and as_expression[1] <= as_name[1] + 1e-9


# ------------------------------------------------------------------------------------------------ display runs
ORDER = "Find $\\frac{1}{-6} \\cdot 6 \\cdot 7 + 8 \\cdot 2 \\div 8 \\cdot (7-1)$."
ORDER_FAITHFUL = (
    "First, solve inside the parentheses: \\[ 7 - 1 = 6 \\] Now the expression looks like this: "
    "\\[ \\frac{1}{-6} \\cdot 6 \\cdot 7 + 8 \\cdot 2 \\div 8 \\cdot 6 \\]\n\n"
    "Multiplying \\(\\frac{1}{-6}\\) and \\(6\\) gives us \\(-1\\): \\[ -1 \\cdot 7 + 8 \\cdot 2 \\div 8 \\cdot 6 \\] "
    "This simplifies to: \\[ -7 + 8 \\cdot 2 \\div 8 \\cdot 6 \\]\n\n"
    "Then, multiply \\(8\\) and \\(2\\): \\[ -7 + 16 \\div 8 \\cdot 6 \\] Divide \\(16\\) by \\(8\\): "
    "\\[ -7 + 2 \\cdot 6 \\] Multiply \\(2\\) and \\(6\\): \\[ -7 + 12 \\]\n\n"
    "Finally, add \\(-7\\) and \\(12\\): \\[ 5 \\] Thus, the solution is: \\[ \\boxed{5} \\]")


def test_a_run_of_displays_each_working_out_the_last_is_one_verified_chain():
    from rewards.evidence.display_runs import display_run_chains
    runs = display_run_chains(("\\[ 16 \\div 8 \\cdot 6 \\] Divide: \\[ 2 \\cdot 6 \\]", "Multiply: \\[ 12 \\]"))
    assert [(k, " = ".join(eq.sides), check.ok) for k, found in sorted(runs.items()) for eq, check in found] == [
        (0, "16 \\div 8 \\cdot 6 = 2 \\cdot 6", True), (1, "2 \\cdot 6 = 12", True)]


@pytest.mark.parametrize("steps", [
    ("\\[ 3 + 4 \\] and \\[ 8 \\]",),  # two expressions of different values: no claim, no refutation
    ("\\[ x = 2 + 3 \\]", "\\[ y = 5 \\]"),  # two left sides: two equations the extractor reads, no run
    ("\\[ 2 + 3 \\] \\[ 5 < 6 \\] \\[ 5 \\]",),  # a relation ends the run
])
def test_displays_that_state_no_stage_of_one_computation_are_no_run(steps):
    from rewards.evidence.display_runs import display_run_chains
    assert display_run_chains(steps) == {}


def test_a_computation_written_as_a_run_of_displays_is_paid_as_derived():
    bare = _pay(ORDER, "\\boxed{5}", "5")
    rafs, faithful = _pay(ORDER, ORDER_FAITHFUL, "5")
    assert faithful == 1.0 and rafs > bare[0] + 0.5


@pytest.mark.parametrize("attack", [
    "\\[ 2 + 3 \\]\n\n\\[ 5 \\]\n\nSo \\boxed{5}",  # a run of numbers from nowhere
    "\\[ 5 \\]\n\n\\[ 5 \\]\n\n\\[ \\boxed{5} \\]",  # the answer restated display after display
])
def test_a_run_of_displays_earns_no_more_than_the_bare_answer_without_a_derivation(attack):
    bare = _pay(ORDER, "\\boxed{5}", "5")
    gamed = _pay(ORDER, attack, "5")
    honest = _pay(ORDER, ORDER_FAITHFUL, "5")
    for k in range(2):
        assert gamed[k] <= bare[k] + 1e-9 and gamed[k] < honest[k], (gamed, bare, honest)


def test_a_run_of_displays_earns_no_more_than_the_same_equation_written_in_one_line():
    """The problem's expression, then the answer with no stage between: one link, as ``expression = 5`` (an
    equation of the problem's numbers, paid as it always was)."""
    expression = "\\frac{1}{-6} \\cdot 6 \\cdot 7 + 8 \\cdot 2 \\div 8 \\cdot (7-1)"
    as_run = _pay(ORDER, f"\\[ {expression} \\]\n\n\\[ 5 \\]\n\nSo \\boxed{{5}}", "5")
    as_equation = _pay(ORDER, f"\\[ {expression} = 5 \\]\n\nSo \\boxed{{5}}", "5")
    assert as_run[0] <= as_equation[0] + 1e-9 and as_run[1] <= as_equation[1] + 1e-9


def test_a_continued_display_is_left_to_the_latex_derivations():
    """``\\[ = 67 \\]`` continues a display with its own rules on free constants
    (:mod:`rewards.evidence.latex_derivations`): a run neither starts nor goes on through it."""
    from rewards.evidence.display_runs import display_run_chains
    assert display_run_chains(("\\[ a^2 + 1 = 42^2 + 1 \\]", "\\[ = 1764 + 1 \\]", "\\[ = 1765 \\]")) == {}
    assert display_run_chains(("$$ 60 + 2^{0} + 2^{1} + 2^{2} $$\n$$ = 67 $$",)) == {}
