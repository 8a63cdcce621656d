"""The conditions a problem states on the integers it asks about (rewards/checks/conditions.py): read, checked with
integer arithmetic, the set they describe enumerated over a bounded range; a negated or unknown condition is left out,
which only makes the described set larger."""

from __future__ import annotations

import pytest

from rewards.checks.conditions import (MAX_MEMBERS, MAX_RANGE, Condition, condition_sets, problem_conditions,
                                       satisfies)


def _sets(problem: str) -> list[tuple[int, ...]]:
    return condition_sets(problem_conditions(problem))


@pytest.mark.parametrize("problem, expected", [
    ("For how many two-digit primes is the sum of the digits equal to 8?", [(17, 53, 71)]),
    ("How many multiples of 6 are greater than -25, but less than 25?", [(-24, -18, -12, -6, 0, 6, 12, 18, 24)]),
    ("How many positive two-digit integers are factors of both 100 and 150?", [(10, 25, 50)]),
    ("Rick is thinking of a positive factor of $14$ and Steve is thinking of a positive factor of $42$. If Rick and "
     "Steve are thinking of the same number, how many possible numbers could they be thinking of?", [(1, 2, 7, 14)]),
    ("How many elements are in the intersection of the set of all the prime numbers less than 30 and the set of all "
     "the odd numbers greater than zero?", [(3, 5, 7, 11, 13, 17, 19, 23, 29)]),
    ("Find the number of two-digit positive integers whose digits sum to 7.", [(16, 25, 34, 43, 52, 61, 70)]),
    ("How many of the first one hundred positive integers are divisible by $3, 4,$ and $5?$", [(60,)]),
    ("How many perfect squares are between 10 and 50?", [(16, 25, 36, 49)]),
])
def test_the_set_a_problem_describes(problem, expected):
    assert _sets(problem) == expected


def test_between_is_read_both_ways_where_an_endpoint_is_a_member():
    assert _sets("How many multiples of 5 are between 10 and 30?") == [(10, 15, 20, 25, 30), (15, 20, 25)]


@pytest.mark.parametrize("problem", [
    "How many integers in the list 25, 26, ..., 250 are not perfect cubes?",   # negated: left out
    "How many integers are between 30 and 50?",                                  # bounds only: no condition to check
    "How many multiples of 7 are there?",                                         # unbounded
    "How many multiples of 1 are less than 100000 and greater than 0?",           # range over MAX_RANGE
    "How many odd numbers are less than 100 and greater than 0?",                 # more members than are written out
    "Tom has 3 boxes of 4 pens. How many pens?",
])
def test_no_set_where_the_conditions_do_not_pin_one(problem):
    assert _sets(problem) == []


def test_predicates_are_exact():
    assert Condition("prime").holds(97) and not Condition("prime").holds(91) and not Condition("prime").holds(1)
    assert Condition("cube").holds(216) and not Condition("cube").holds(215) and Condition("cube").holds(-27)
    assert Condition("square").holds(0) and not Condition("square").holds(-4)
    assert Condition("only_digits", (0, 2)).holds(2220) and not Condition("only_digits", (0, 2)).holds(2210)
    assert Condition("multiple", (30,)).holds(2220) and not Condition("multiple", (30,)).holds(2020)
    assert Condition("divisor", (42,)).holds(21) and not Condition("divisor", (42,)).holds(0)
    assert not Condition("unknown kind").holds(3)
    lots = problem_conditions("What is the least positive multiple of 30 that can be written with only the digits "
                              "0 and 2?")
    assert satisfies(lots, 2220) and not satisfies(lots, 2020) and not satisfies(lots, 220)


def test_untrusted_input_is_bounded():
    assert problem_conditions("x" * 5000) == []
    assert problem_conditions(None) == []  # type: ignore[arg-type]
    huge = problem_conditions("How many multiples of 123456789012 are less than 5?")
    assert all(len(str(abs(n))) <= 7 for c in huge for n in c.numbers)
    assert MAX_RANGE <= 10 ** 5 and MAX_MEMBERS <= 100
