r"""Which numbers of a problem are quantities a derivation must use (``stated_quantities``), and when a quantity is
used through an equation the derivation works with (``consumed_through_algebra``) — the coverage term of the reward
(``(used / stated)^γ``, ``unused_quantity_factor``)."""

from fractions import Fraction

from rewards.evidence import build_dataflow
from rewards.evidence.paths import answer_path, consumed_through_algebra, coverage_detail, quantity_coverage
from rewards.evidence.quantities import figure_numbers, stated_quantities
from rewards.parsing.trace import parse_trace
from rewards.scoring.score import score_trace

QUADRATIC = ("The quadratic $x^2-4x-14=3x+16$ has two solutions. What is the positive difference between these "
             "solutions?")
SOLVED = ("Bring every term to one side: $x^2 - 7x - 30 = 0$.\n"
          "Factor: $(x - 10)(x + 3) = 0$.\n"
          "So $x = 10$ or $x = -3$.\n"
          "The positive difference is $10 - (-3) = 13$.\n"
          "The answer is $\\boxed{13}$.")
SHORTCUT = "The difference is $16 - 3 = 13$.\nThe answer is $\\boxed{13}$."

FIGURE = ("Felix covers the region shown. What is its area in square yards?\n[asy]\nunitsize(0.2 inch);\n"
          "draw((0,0)--(9,0)--(9,2)--(4,2)--(4,5)--(0,5)--(0,0));\n"
          'label("4 yds",(2,5),N);\nlabel("3 yds",(4,3.5),E);\nlabel("5 yds",(6.5,2),N);\nlabel("2 yds",(9,1),E);\n'
          "[/asy]")


def _coverage(problem, completion):
    trace = parse_trace(problem, completion)
    flow = build_dataflow(trace)
    return quantity_coverage(trace, flow), trace, flow


def test_figure_code_states_no_quantity_but_its_labels_do():
    assert stated_quantities(FIGURE) == {Fraction(n) for n in (2, 3, 4, 5)}
    assert Fraction(9) in figure_numbers(FIGURE) and Fraction(9) not in stated_quantities(FIGURE)
    assert Fraction(65, 10) in figure_numbers(FIGURE)  # a label's position is figure code


def test_a_coordinate_the_derivation_reads_off_the_figure_counts_when_used():
    problem = "Find $AB$. [asy] draw((0,0)--(6,0)--(6,8)--cycle); [/asy] The area of the triangle is 24."
    assert stated_quantities(problem) == {Fraction(24)}
    (used, stated), _, _ = _coverage(problem, "The legs are $6 + 8 = 14$ long together.\n$\\boxed{14}$")
    assert (used, stated) == (2, 3)  # 6 and 8, read off the figure, count as used; 24 is unused


def test_exponents_of_a_letter_bounds_and_answer_formats_are_no_quantities():
    assert stated_quantities("If $f(x)=5x^2+3x+4$ with $x > 0$, find $f(6)$.") == {Fraction(n) for n in (3, 4, 5, 6)}
    assert stated_quantities("Find $(x-3)^{2}$ at $x = 7$.") == {Fraction(3), Fraction(7)}
    assert Fraction(10) in stated_quantities("Find the remainder of $2^{10}$ divided by 7.")  # a numeric power
    assert stated_quantities("Find $n$ with $n \\ge 1$ and $3n = 51$. Express your answer as an integer from 0 to "
                             "46.") == {Fraction(3), Fraction(51)}


def test_the_one_of_a_reciprocal_of_a_letter_is_form_but_a_numeric_fraction_states_it():
    assert stated_quantities("Let $f(x)=\\frac{1}{x-3}$. Find $f(5)$.") == {Fraction(3), Fraction(5)}
    assert Fraction(1, 29) in stated_quantities("Find $\\frac{1}{29}$ of 58.")  # one quantity, as 1/29 in text
    assert Fraction(1) in stated_quantities("She ate 1/2 of 10 pies and 1 cake.")


def test_the_problems_equation_consumed_by_the_derivation_counts_its_coefficients_as_used():
    (used, stated), trace, flow = _coverage(QUADRATIC, SOLVED)
    assert stated_quantities(QUADRATIC) == {Fraction(n) for n in (3, 4, 14, 16)}  # x^2's 2 is a degree
    assert (used, stated) == (4, 4)
    result = score_trace(QUADRATIC, SOLVED, gold="13", mode="reward")
    assert not any("stated quantities" in why for why in result.reasons)
    assert result.terms["unused_quantities"] == 1.0


def test_a_shortcut_that_ignores_the_equation_still_loses_coverage():
    (used, stated), _, _ = _coverage(QUADRATIC, SHORTCUT)
    assert (used, stated) == (2, 4)  # 16 and 3 as operands; 4 and 14 neither used nor consumed
    shortcut = score_trace(QUADRATIC, SHORTCUT, gold="13", mode="reward")
    assert shortcut.terms["unused_quantities"] == (2 / 4) ** 0.25
    assert "the derivation uses 2 of the problem's 4 stated quantities" in shortcut.reasons


def test_restating_the_problems_equation_beside_a_shortcut_consumes_nothing():
    restated = ("We have $x^2-4x-14=3x+16$.\nSo $16 - 3 = 13$.\nThe answer is $\\boxed{13}$.")
    (used, stated), trace, flow = _coverage(QUADRATIC, restated)
    assert (used, stated) == (2, 4)
    assert consumed_through_algebra(flow, answer_path(flow), {Fraction(4), Fraction(14)}, QUADRATIC,
                                    trace.steps) == set()


def test_a_rewritten_equation_consumes_what_it_depends_on():
    problem = "A rectangle has a perimeter of 12 inches. What is its largest area?"
    trace = parse_trace(problem, "$2L + 2W = 12$, so $L + W = 6$.\n$6 - 2L = 0$, so $L = 3$.\n"
                                 "The area is $3 * 3 = 9$.\n#### 9")
    flow = build_dataflow(trace)
    assert consumed_through_algebra(flow, answer_path(flow), {Fraction(12)}, problem, trace.steps) == {Fraction(12)}


def test_a_quantity_an_equation_writes_but_cancels_is_not_consumed():
    problem = "A box of 5 pears weighs 18 pounds. Solve $2x + 5 - 5 = 18$ for $x$, then add 1."
    trace = parse_trace(problem, "$2x + 5 - 5 = 18$, so $x = 9$.\nThen $9 + 1 = 10$.\n#### 10")
    flow = build_dataflow(trace)
    consumed = consumed_through_algebra(flow, answer_path(flow), {Fraction(5), Fraction(18)}, problem, trace.steps)
    assert Fraction(5) not in consumed  # x = 9 follows whatever the 5 is
    assert Fraction(18) in consumed


def test_an_equation_off_the_answers_path_consumes_nothing():
    problem = "Solve $2x + 6 = 10$. Separately, a box holds 7 pens and 8 pencils. How many items are in the box?"
    trace = parse_trace(problem, "$2x + 6 = 10$ gives $x = 2$.\nThe box holds $7 + 8 = 15$ items.\n#### 15")
    flow = build_dataflow(trace)
    stated, used = coverage_detail(trace, flow)
    assert {Fraction(7), Fraction(8)} <= used
    assert not {Fraction(6), Fraction(10)} & used  # the algebra feeds nothing on the way to 15
