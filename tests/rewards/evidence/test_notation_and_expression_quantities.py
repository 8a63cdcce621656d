r"""Competition problems write numbers that are no quantity a derivation must use — a listed set, a table, an example,
the range or precision of the answer, a numeral in a base, a count of digits, the ``-1`` of an inverse — and numbers
a derivation uses by rewriting the expression they sit in (``x^2 - 6x + 13`` as ``(x - 3)^2 + 4``). The coverage term
(``(used / stated)^γ``) must read both, and must still withhold credit from a derivation that ignores a real
quantity beside them, or that only restates, pads, reorders or copies the expression."""

from fractions import Fraction

from rewards.evidence import build_dataflow
from rewards.evidence.expression_use import consumed_through_expressions, problem_expressions
from rewards.evidence.paths import coverage_detail, quantity_coverage
from rewards.evidence.quantities import figure_numbers, stated_quantities
from rewards.parsing.trace import parse_trace
from rewards.scoring.score import score_trace

F = Fraction


def _coverage(problem, completion):
    trace = parse_trace(problem, completion)
    return quantity_coverage(trace, build_dataflow(trace))


# ------------------------------------------------------------------------------------------------ reading: notation
def test_a_listed_set_is_no_quantity_but_a_number_beside_it_is():
    problem = "A number is drawn from the set $\\{5, 6, 7, 8, 9\\}$ and multiplied by 11. What is the largest product?"
    assert stated_quantities(problem) == {F(11)}
    assert {F(5), F(6), F(7), F(8), F(9)} <= figure_numbers(problem)  # counted where the derivation uses them
    assert _coverage(problem, "The largest is 9, and $9 \\times 11 = 99$.\n$\\boxed{99}$") == (2, 2)
    # ignoring the real quantity next to the set still costs coverage
    assert _coverage(problem, "The largest is 9, and $9 \\times 9 = 81$, $81 + 18 = 99$.\n$\\boxed{99}$")[0] < 2


def test_table_cells_examples_and_answer_ranges_are_no_quantities():
    table = ("The table shows inverses modulo 47. \\begin{tabular}{c|ccc} $b$ & 1 & 2 & 3 \\\\ \\hline inverse & 1 & 24 "
             "& 16 \\end{tabular} Find the inverse of $35\\pmod{47}$.")
    assert stated_quantities(table) == {F(35), F(47)}
    example = "For example, 35 has only 1, 5, 7 and 35 as its factors. What is the sum of the first 6 such numbers?"
    assert stated_quantities(example) == {F(6)}
    ranged = "Let $a=2$ and $m=7$. $L$ is an integer from $0$ to $6$ (inclusive). Find $L$."
    assert stated_quantities(ranged) == {F(2), F(7)}
    assert stated_quantities("Give the mass of 12 eggs of 57 grams each to 2 decimal places.") == {F(12), F(57)}


def test_a_numeral_in_a_base_a_count_of_digits_and_an_inverse_exponent_are_notation():
    assert stated_quantities("Find the largest prime dividing $1_2 + 10_2 + 100_2$.") == set()
    assert stated_quantities("The sum of the two $5$-digit numbers $AMC10$ and $AMC12$ is $123422.$") == {F(123422)}
    assert stated_quantities("Given $33^{-1} \\equiv 77 \\pmod{508}$, find $11^{-1}$.") == {F(11), F(33), F(77),
                                                                                         F(508)}


def test_format_words_do_not_swallow_the_quantities_that_follow_them():
    problem = "Round to the nearest dollar: a shirt costs $23 and pants cost $41. How much do both cost?"
    assert stated_quantities(problem) == {F(23), F(41)}


# ---------------------------------------------------------------------------------- use: rewriting the expression
MINIMUM = "What is the minimum value of $a^2+6a-7$?"
SQUARED = ("Complete the square: $a^2 + 6a - 7 = (a + 3)^2 - 16$.\n"
           "The square is at least 0, so the minimum is $0 - 16 = -16$.\nThe answer is $\\boxed{-16}$.")


def test_a_verified_rewrite_of_the_problems_expression_uses_its_numbers():
    assert problem_expressions(MINIMUM) == ("a^2+6a-7",)
    assert _coverage(MINIMUM, SQUARED) == (2, 2)
    result = score_trace(MINIMUM, SQUARED, gold="-16", mode="reward")
    assert not any("stated quantities" in why for why in result.reasons)


def _consumed(completion, problem=MINIMUM, used=(F(0), F(-16), F(16))):
    steps = parse_trace(problem, completion).steps
    return consumed_through_expressions(problem, steps, len(steps) - 1, {F(6), F(7)}, frozenset(used))


def test_restating_padding_or_reordering_the_expression_uses_nothing():
    assert _consumed("We have $a^2+6a-7$.\nThe minimum is $0 - 16 = -16$.\n$\\boxed{-16}$") == set()
    assert _consumed("$a^2+6a-7 = (a^2+6a-7) + 0 - 16 + 16$.\nSo $0 - 16 = -16$.\n$\\boxed{-16}$") == set()
    assert _consumed("$a^2+6a-7 = -7 + 6a + a^2$.\nSo $0 - 16 = -16$.\n$\\boxed{-16}$") == set()


def test_a_wrong_rewrite_uses_nothing_and_a_copied_number_is_not_worked_with():
    assert _consumed("$a^2+6a-7 = (a + 3)^2 - 17$.\nSo $0 - 16 = -16$.\n$\\boxed{-16}$") == set()
    # 6a is copied through, only the constant is rewritten: the 7 is worked with, the 6 is not
    assert _consumed("$a^2+6a-7 = a^2 + 6a - 16 + 9$.\nSo $0 - 16 = -16$.\n$\\boxed{-16}$") == {F(7)}


def test_a_rewrite_the_answers_derivation_does_not_go_on_from_uses_nothing():
    # a correct rewrite beside a derivation that never uses any number it writes
    assert _consumed("$a^2+6a-7 = (a + 3)^2 - 16$.\nSo $0 - 18 = -18$.\n$\\boxed{-18}$", used=(F(0), F(18))) == set()


def test_ignoring_a_real_quantity_beside_a_rewritten_expression_still_costs_coverage():
    problem = "What is the minimum value of $a^2+6a-7$, increased by 25?"
    faithful = ("Complete the square: $a^2 + 6a - 7 = (a + 3)^2 - 16$.\n"
                "The minimum is $0 - 16 = -16$, and $-16 + 25 = 9$.\nThe answer is $\\boxed{9}$.")
    ignoring = ("Complete the square: $a^2 + 6a - 7 = (a + 3)^2 - 16$.\n"
                "The minimum is $0 - 16 = -16$, and $-16 + 16 + 9 = 9$.\nThe answer is $\\boxed{9}$.")
    assert _coverage(problem, faithful) == (3, 3)
    used, stated = _coverage(problem, ignoring)
    assert stated == 3 and used < 3  # 25 is never used: the expression's numbers do not stand in for it
    trace = parse_trace(problem, ignoring)
    flow = build_dataflow(trace)
    assert F(25) not in coverage_detail(trace, flow)[1]
    assert score_trace(problem, ignoring, gold="9", mode="reward").score < \
        score_trace(problem, faithful, gold="9", mode="reward").score


def test_a_latex_fraction_states_one_quantity_used_as_a_value_its_two_numbers_or_its_complement():
    problem = "Chris eats $\\frac{2}{7}$ of a cookie and Nathan eats $\\frac{3}{5}$ of it. What fraction is left?"
    assert stated_quantities(problem) == {F(2, 7), F(3, 5)}
    assert _coverage(problem, "Together they eat $\\frac{2}{7} + \\frac{3}{5} = \\frac{31}{35}$.\n"
                              "Left: $1 - \\frac{31}{35} = \\frac{4}{35}$.\n$\\boxed{\\frac{4}{35}}$")[1] == 2
    joan = "Joan has a 1/4 chance of solving a problem each day. What is the chance she fails two days in a row?"
    assert _coverage(joan, "Twice failing: $3/4 \\times 3/4 = 9/16$.\n$\\boxed{\\frac{9}{16}}$") == (1, 1)
    # ignoring the stated chance: an invented 1/3 is no complement of 1/4
    assert _coverage(joan, "Twice: $2/3 \\times 2/3 = 4/9$.\n$\\boxed{\\frac{4}{9}}$")[0] == 0


def test_the_index_of_a_named_term_is_no_quantity_but_a_logs_base_and_the_terms_values_are():
    problem = ("Given $x_{1}=211$, $x_{2}=375$, $x_{3}=420$, $x_{4}=523$ and $x_{n}=x_{n-1}-x_{n-2}+x_{n-3}-x_{n-4}$, "
               "find $x_{5}$.")
    assert stated_quantities(problem) == {F(211), F(375), F(420), F(523)}
    assert stated_quantities("Let $F_1 = (10,2)$. Compute $\\log_2 256$.") == {F(2), F(10), F(256)}


def test_a_sequence_written_up_to_an_ellipsis_in_math_states_its_ends():
    assert stated_quantities("What is the 2003rd term of the odd numbers 1, 3, 5, 7, $\\dots$?") == {F(1), F(7)}
