"""Quantities a competition problem states in words or by listing: "the fourteenth term" (14, and 13 steps on), "the
integers $71,$ $72,$ $73,$ $74,$ $75$" (5 of them). A solution that divides by the count or raises to the 13th power
uses the problem's own quantities; a number from nowhere still does not."""

from __future__ import annotations

from fractions import Fraction

from rewards.evidence import problem_numbers
from rewards.scoring.score import RAFSConfig, score_trace

CONFIG = RAFSConfig(missing_evidence="no_support")
AVERAGE = "Determine the average of the integers $71,$ $72,$ $73,$ $74,$ $75.$"


def test_a_list_gives_its_count():
    assert Fraction(5) in problem_numbers(AVERAGE)
    assert Fraction(4) in problem_numbers("Find the mean of 3, 5, 7, and 9.")


def test_no_count_for_a_list_that_goes_on_or_a_thousands_separator():
    assert Fraction(3) not in problem_numbers(r"How many numbers are in the list $ -36, -29, -22, \ldots, 41, 48?$")
    assert Fraction(3) not in problem_numbers("She saved 1,000,000 dollars.")
    assert Fraction(3) not in problem_numbers("She has 7 apples, 8 pears and 9 plums.")  # words between: no list


def test_ordinals_past_ten():
    values = problem_numbers("The second term is $-2$ and the fifth term is $16$. What is the fourteenth term?")
    assert {Fraction(14), Fraction(13)} <= values


def test_an_average_divided_by_the_count_is_supported():
    steps = [r"\[ 71 + 72 + 73 + 74 + 75 = 365 \]", r"There are 5 integers, so \[ \frac{365}{5} = 73 \]",
             r"The average is $\boxed{73}$."]
    result = score_trace(AVERAGE, "\n\n".join(steps), gold="73", config=CONFIG)
    assert result.supported and result.score > 90
    # dividing by a count the problem does not give earns no support
    steps[1] = r"There are 6 integers, so \[ \frac{438}{6} = 73 \]"
    steps[0] = r"\[ 71 + 72 + 73 + 74 + 75 + 73 = 438 \]"
    assert not score_trace(AVERAGE, "\n\n".join(steps), gold="73", config=CONFIG).supported


def test_a_completions_own_list_mints_no_count():
    """Only the problem's lists give a count: a completion that lists six numbers has made no 6 a quantity."""
    problem = ("Janet's ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes muffins for her "
               "friends every day with four. She sells the remainder for $2 per egg. How much does she make every day?")
    for listed in ("The numbers are 16, 3, 4, 2, 9 and 1.\n6 * 3 = 18.\n#### 18",
                   "The numbers are 16, 3, 4, 2, 9 and 1.\nThat is 6 numbers, and 6 * 3 = 18.\n#### 18"):
        assert not score_trace(problem, listed, gold="18", config=CONFIG).supported
    assert Fraction(6) not in problem_numbers(problem)
