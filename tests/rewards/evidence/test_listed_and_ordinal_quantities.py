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


# ------------------------------------------------------------------ what the coverage term counts as stated quantities
from rewards.evidence.quantities import stated_quantities  # noqa: E402

LIST_COUNT = r"How many numbers are in the list $$ 6,10,14,\ldots,82,86? $$"


def test_a_list_that_goes_on_states_its_bounds_not_the_items_between():
    assert stated_quantities(LIST_COUNT) == {Fraction(6), Fraction(86)}
    assert stated_quantities(r"the list $ -36, -29, -22, \ldots, 41, 48$") == {Fraction(36), Fraction(48)}
    # a list that does not go on states every item
    assert stated_quantities("The integers 71, 72, 73, 74 and 75.") == {Fraction(v) for v in range(71, 76)}


def test_a_slash_fraction_is_one_stated_quantity():
    assert stated_quantities("She has a 1/4 probability of solving it each day.") == {Fraction(1, 4)}
    assert stated_quantities("Each 1/2 inch on a map represents 20 miles.") == {Fraction(1, 2), Fraction(20)}


def test_the_count_of_a_list_that_goes_on_uses_every_stated_quantity():
    faithful = (r"The list goes up by $10 - 6 = 4$. From 6 to 86 there are $\frac{86 - 6}{4} = 20$ steps, so "
                r"$20 + 1 = 21$ numbers. The answer is $\boxed{21}$.")
    result = score_trace(LIST_COUNT, faithful, gold="21", config=CONFIG)
    assert not any("stated quantities" in why for why in result.reasons)
    # a count that skips the list's bound is still short of a stated quantity
    shortcut = r"There are $\frac{84}{4} = 21$ numbers. The answer is $\boxed{21}$."
    assert score_trace(LIST_COUNT, shortcut, gold="21", config=CONFIG).score < result.score


def test_an_unused_stated_fraction_still_counts_as_unused():
    problem = "A bag has 12 red and 4 blue marbles; a coin lands heads with a 1/2 chance. How many marbles are there?"
    result = score_trace(problem, r"$12 + 4 = 16$ marbles. The answer is $\boxed{16}$.", gold="16", config=CONFIG)
    assert any("uses 2 of the problem's 3 stated quantities" in why for why in result.reasons)


def test_a_stated_unit_fraction_is_used_by_dividing_by_its_denominator():
    problem = "Tom has 10 apples and gives 1/2 of them to Ann. How many apples does Ann get?"
    result = score_trace(problem, "10 / 2 = 5 apples.\n#### 5", gold="5", config=CONFIG)
    assert not any("stated quantities" in why for why in result.reasons)


def test_ordinals_and_years_count_where_they_are_used():
    doll = ("The biggest doll is 243 cm tall, and each doll is 2/3rd the size of the doll that contains it. "
            "How big is the 6th biggest doll?")
    assert stated_quantities(doll) == {Fraction(243), Fraction(2, 3)}
    years = "In 2004, there were some kids at a cookout. In 2005, half as many came. How many came in 2005 if 30 did?"
    assert Fraction(2004) not in stated_quantities(years)
    assert Fraction(2005) in stated_quantities("He paid 2005 dollars for 3 items.")  # an amount, not a year
    # a year the derivation uses is a quantity it uses
    problem = "Ann was born in 1990. How old is she in 2020?"
    result = score_trace(problem, "2020 - 1990 = 30 years.\n#### 30", gold="30", config=CONFIG)
    assert not any("stated quantities" in why for why in result.reasons)
    assert any("stated quantities" in why for why in
               score_trace(problem, "3 * 10 = 30 years.\n#### 30", gold="30", config=CONFIG).reasons) or \
        score_trace(problem, "3 * 10 = 30 years.\n#### 30", gold="30", config=CONFIG).score < result.score
