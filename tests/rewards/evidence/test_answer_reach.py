"""Answers reached from the chain's result by a step that is no equation: a rounding the trace licenses, and an
ordered pair / vector / interval whose coordinates the chain derived. Supported where the faithful trace does it,
never for a bound stated bare, a rounding nobody licensed, or coordinates from nowhere."""

from __future__ import annotations

from fractions import Fraction

import pytest

from rewards import RAFSConfig, score_trace
from rewards.adapters.trl_rewards import clear_cache, faithful_accuracy_reward, rafs_reward
from rewards.evidence.answer_reach import components
from rewards.evidence.builder import build_dataflow
from rewards.parsing.trace import parse_trace

REWARD = RAFSConfig(missing_evidence="no_support")

BUSES = "Each bus holds 40 students. What is the smallest number of buses needed to carry 130 students?"
BUSES_VALID = ("130 / 40 = 3.25\n"
               "Since the number of buses must be a whole number, we round up to the next whole number: 4 buses.\n"
               "#### 4")
CANDY = "Pens cost 3 dollars each. How many whole pens can Ann buy with 10 dollars?"
CANDY_VALID = r"""Ann can buy \( \frac{10}{3} \) pens: \[ 10 / 3 \approx 3.33 \]
She can only buy a whole number of pens, so we round down: \( \boxed{3} \)."""
TAX = "A shirt costs 21.37 dollars with tax. To the nearest whole dollar, how much do 5 shirts cost?"
TAX_VALID = "5 * 21.37 = 106.85\nRounding 106.85 to the nearest whole number gives 107.\n#### 107"

SOUP = ("Erin serves soup. Each bowl holds 10 ounces, and she serves 5 bowls per minute. The pot holds 6 gallons. "
        "How long will it take her to serve all the soup, rounded to the nearest minute? (There are 128 ounces to a "
        "gallon.)")
SOUP_VALID = ("10 * 5 = 50 ounces per minute.\n6 * 128 = 768 ounces.\n"
              "768 / 50 = 15.36 minutes, which rounds down to 15 minutes.\n#### 15")

ROUNDING_TRICKS = [
    (BUSES, "4", "We need more than 3.25 buses. Since buses come whole, we round up: 4.\n#### 4"),  # a bare bound
    (BUSES, "4", "130 / 40 = 3.25\nSo 4 buses.\n#### 4"),  # no rounding named
    (BUSES, "4", "130 / 40 = 3.25\n130 - 40 = 90\nWe round up to a whole number: 4.\n#### 4"),  # not the last result
    (BUSES, "4", "130 / 40 = 3.25\nRounding to the nearest whole number: 4.\n#### 4"),  # nearest is 3
    (BUSES, "4", "130 / 40 = 3.25\nWe round down to a whole number: 4.\n#### 4"),  # the wrong direction
    (BUSES, "4", "40 / 13 = 3.08\nWe round up to a whole number: 4.\n#### 4"),  # a bound from nowhere (13)
    (BUSES, "4", "#### 4"),
]


def _pay(problem: str, completion: str, gold: str) -> tuple[float, float]:
    clear_cache()
    return (rafs_reward([problem], [completion], answer=[gold])[0],
            faithful_accuracy_reward([problem], [completion], answer=[gold])[0])


@pytest.mark.parametrize("problem,completion,answer", [(BUSES, BUSES_VALID, 4), (CANDY, CANDY_VALID, 3),
                                                       (TAX, TAX_VALID, 107), (SOUP, SOUP_VALID, 15)])
def test_a_licensed_rounding_of_the_chains_result_derives_the_answer(problem, completion, answer):
    flow = build_dataflow(parse_trace(problem, completion))
    assert flow.answer_value == answer and flow.answer_step is not None
    result = score_trace(problem, completion, gold=str(answer), config=REWARD)
    assert result.faithful, result.reasons
    assert not any("not derived" in r or "differs from the stated" in r for r in result.reasons)


@pytest.mark.parametrize("problem,gold,completion", ROUNDING_TRICKS)
def test_rounding_tricks_earn_less_than_the_faithful_trace(problem, gold, completion):
    assert build_dataflow(parse_trace(problem, completion)).answer_step is None
    trick_rafs, trick_fa = _pay(problem, completion, gold)
    valid_rafs, valid_fa = _pay(BUSES, BUSES_VALID, "4")
    assert trick_fa < valid_fa == 1.0
    assert trick_rafs < valid_rafs


def test_a_rounding_the_problem_does_not_ask_for_licenses_nothing():
    problem = "A rope of 130 meters is cut into pieces of 40 meters. What is the ratio of the rope to a piece?"
    completion = "130 / 40 = 3.25\nWe round up: 4.\n#### 4"
    assert build_dataflow(parse_trace(problem, completion)).answer_step is None


def test_a_later_result_after_the_rounding_withholds_it():
    # the chain goes on past the bound and concludes something else: no rounding of that bound is licensed
    completion = "130 / 40 = 3.25\n3.25 * 2 = 6.5\nWe round up to a whole number: 4.\n#### 4"
    assert build_dataflow(parse_trace(BUSES, completion)).answer_step is None


POINT = ("Point A is at (3, 5). Point B is 6 units to the right of A and 2 units above it. What are the coordinates "
         "of B? Enter an ordered pair.")
POINT_VALID = "The x-coordinate is 3 + 6 = 9.\nThe y-coordinate is 5 + 2 = 7.\nSo B is \\(\\boxed{(9, 7)}\\)."
POINT_TRICKS = [
    "B is \\(\\boxed{(9, 7)}\\).",  # nothing derived
    "The x-coordinate is 3 + 6 = 9.\nSo B is \\(\\boxed{(9, 7)}\\).",  # one coordinate from nowhere
    "We have 9 and 7.\nSo B is \\(\\boxed{(9, 7)}\\).",  # coordinates stated bare
    "The x-coordinate is 3 + 6 = 9.\nSo B is \\(\\boxed{(9, 5)}\\).",  # a coordinate copied from the problem
]


def test_components_of_an_answer():
    assert components(r"\left( \frac{17}{4}, 0 \right)") == [r"\frac{17}{4}", "0"]
    assert components(r"\begin{pmatrix} -\frac{1}{3} \\ \frac{2}{3} \\ \frac{5}{3} \end{pmatrix}") == [
        r"-\frac{1}{3}", r"\frac{2}{3}", r"\frac{5}{3}"]
    assert components(r"\left[\frac{1}{2}, \frac{3}{2}\right]") == [r"\frac{1}{2}", r"\frac{3}{2}"]
    assert components(r"\begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix}") is None  # a matrix, not a vector
    assert components(r"(1, 4 - \sqrt{3}) \cup (4 + \sqrt{3}, 7)") is None
    assert components("12") is None and components("(5)") is None


def test_a_pair_whose_coordinates_the_chain_derived_is_supported():
    flow = build_dataflow(parse_trace(POINT, POINT_VALID))
    assert flow.answer_value == Fraction(7) and flow.answer_step == 1
    result = score_trace(POINT, POINT_VALID, gold="(9, 7)", config=REWARD)
    assert result.faithful, result.reasons


def test_a_zero_coordinate_beside_a_derived_one_is_supported():
    problem = "The line y = 4x - 17 crosses the x-axis at a point. Enter it as an ordered pair."
    completion = "Set y = 0: 0 = 4x - 17, so 4x = 17 and x = 17/4.\nThe point is \\(\\boxed{(\\frac{17}{4}, 0)}\\)."
    flow = build_dataflow(parse_trace(problem, completion))
    assert flow.answer_value == Fraction(17, 4)


@pytest.mark.parametrize("completion", POINT_TRICKS)
def test_pair_tricks_earn_less_than_the_faithful_trace(completion):
    gold = "(9, 5)" if "(9, 5)" in completion else "(9, 7)"
    assert build_dataflow(parse_trace(POINT, completion)).answer_step is None
    trick_rafs, trick_fa = _pay(POINT, completion, gold)
    valid_rafs, valid_fa = _pay(POINT, POINT_VALID, "(9, 7)")
    assert trick_fa < valid_fa == 1.0
    assert trick_rafs < valid_rafs


PROJECTION = r"Find the projection of the vector $\begin{pmatrix} 3 \\ 0 \end{pmatrix}$ onto the vector $\begin{pmatrix} 2 \\ -3 \end{pmatrix}.$"
PROJECTION_GOLD = r"\begin{pmatrix} \frac{12}{13} \\ -\frac{18}{13} \end{pmatrix}"
PROJECTION_VALID = r"""The dot product is \( 3 \cdot 2 + 0 \cdot (-3) = 6 \).

The squared norm is \( 2^2 + (-3)^2 = 4 + 9 = 13 \).

So \[ \text{proj}_{\mathbf{b}}\mathbf{a} = \left( \frac{6}{13} \right) \begin{pmatrix} 2 \\ -3 \end{pmatrix} = \begin{pmatrix} \frac{12}{13} \\ -\frac{18}{13} \end{pmatrix} \]

The answer is \( \boxed{\begin{pmatrix} \frac{12}{13} \\ -\frac{18}{13} \end{pmatrix}} \)."""
PROJECTION_TRICKS = [
    # the scalar stated from nowhere
    r"""So \[ \left( \frac{6}{13} \right) \begin{pmatrix} 2 \\ -3 \end{pmatrix} = \begin{pmatrix} \frac{12}{13} \\ -\frac{18}{13} \end{pmatrix} \]
The answer is \( \boxed{\begin{pmatrix} \frac{12}{13} \\ -\frac{18}{13} \end{pmatrix}} \).""",
    # the answer restated as its own scaling
    r"""The dot product is \( 3 \cdot 2 + 0 \cdot (-3) = 6 \).

So \[ 1 \begin{pmatrix} \frac{12}{13} \\ -\frac{18}{13} \end{pmatrix} = \begin{pmatrix} \frac{12}{13} \\ -\frac{18}{13} \end{pmatrix} \]
The answer is \( \boxed{\begin{pmatrix} \frac{12}{13} \\ -\frac{18}{13} \end{pmatrix}} \).""",
    # a product that does not hold (6/13 times (2, -3) is not (12/13, -18/13) times 2)
    r"""The dot product is \( 3 \cdot 2 + 0 \cdot (-3) = 6 \).

The squared norm is \( 2^2 + (-3)^2 = 4 + 9 = 13 \).

So \[ \left( \frac{6}{13} \right) \begin{pmatrix} 3 \\ 0 \end{pmatrix} = \begin{pmatrix} \frac{12}{13} \\ -\frac{18}{13} \end{pmatrix} \]
The answer is \( \boxed{\begin{pmatrix} \frac{12}{13} \\ -\frac{18}{13} \end{pmatrix}} \).""",
    r"The answer is \( \boxed{\begin{pmatrix} \frac{12}{13} \\ -\frac{18}{13} \end{pmatrix}} \).",
]


def test_a_vector_reached_by_an_exact_scaling_of_derived_quantities_is_supported():
    flow = build_dataflow(parse_trace(PROJECTION, PROJECTION_VALID))
    assert flow.answer_step is not None and flow.answer_value == Fraction(12, 13)
    result = score_trace(PROJECTION, PROJECTION_VALID, gold=PROJECTION_GOLD, config=REWARD)
    assert result.faithful, result.reasons


@pytest.mark.parametrize("completion", PROJECTION_TRICKS)
def test_vector_tricks_earn_less_than_the_faithful_trace(completion):
    assert build_dataflow(parse_trace(PROJECTION, completion)).answer_step is None
    trick_rafs, trick_fa = _pay(PROJECTION, completion, PROJECTION_GOLD)
    valid_rafs, valid_fa = _pay(PROJECTION, PROJECTION_VALID, PROJECTION_GOLD)
    assert trick_fa < valid_fa == 1.0
    assert trick_rafs < valid_rafs


def test_named_pair_answers_list_their_values():
    assert components("(b,c)=(6,5)") == ["6", "5"]


ROOTS = r"For how many different values of $x$ does $x^2 = 9x$?"
ROOTS_VALID = r"""Rearranging, \( x^2 - 9x = 0 \), which factors as \( x(x - 9) = 0 \).
So \( x = 0 \) or \( x = 9 \).
There are two different values of \( x \): \( \boxed{2} \)."""
ROOTS_TRICKS = [
    r"There are two different values of \( x \): \( \boxed{2} \).",  # a count with no solution
    r"The solutions are \( x = 0 \) and \( x = 9 \), so there are two values: \( \boxed{2} \).",  # nothing solved
    # values derived from the problem's numbers that solve nothing
    r"Rearranging, \( x^2 - 9x = 0 \). We get \( x = 9 + 9 = 18 \) and \( x = 9 - 9 = 0 \). There are two "
    r"values: \( \boxed{2} \).",
    # the solutions derived, but the count never said of them
    r"""Rearranging, \( x^2 - 9x = 0 \), which factors as \( x(x - 9) = 0 \).
So \( x = 0 \) or \( x = 9 \).
Therefore the answer is \( \boxed{2} \).""",
]


def test_a_count_of_the_derived_solutions_is_supported():
    flow = build_dataflow(parse_trace(ROOTS, ROOTS_VALID))
    assert flow.answer_value == 2 and flow.answer_step == 2
    result = score_trace(ROOTS, ROOTS_VALID, gold="2", config=REWARD)
    assert result.faithful, result.reasons


def test_a_count_that_disagrees_with_the_solutions_derives_nothing():
    wrong = ROOTS_VALID.replace("two different", "three different").replace(r"\boxed{2}", r"\boxed{3}")
    assert build_dataflow(parse_trace(ROOTS, wrong)).answer_step is None


@pytest.mark.parametrize("completion", ROOTS_TRICKS)
def test_count_tricks_earn_less_than_the_faithful_trace(completion):
    assert build_dataflow(parse_trace(ROOTS, completion)).answer_step is None
    trick_rafs, trick_fa = _pay(ROOTS, completion, "2")
    valid_rafs, valid_fa = _pay(ROOTS, ROOTS_VALID, "2")
    assert trick_fa < valid_fa == 1.0
    assert trick_rafs < valid_rafs
