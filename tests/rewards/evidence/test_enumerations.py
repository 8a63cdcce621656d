"""A count answered by listing what it counts (rewards/evidence/enumerations.py): a list that is exactly the set the
problem's conditions describe reaches its items, and its size reaches a count answer. Each cheap completion a policy
would write to earn that without the enumeration earns no more than the bare answer, and nothing here refutes."""

from __future__ import annotations

import pytest

from rewards import RAFSConfig, score_trace
from rewards.adapters.trl_rewards import faithful_accuracy_reward, rafs_reward
from rewards.evidence.enumerations import listed_runs

PRIMES = "For how many two-digit primes is the sum of the digits equal to 8?"
FAITHFUL = ("First, we list all the two-digit numbers with a digit sum of 8: 17, 26, 35, 44, 53, 62, 71, 80.\n\n"
            "Clearly, 26, 44, 62, and 80 are not prime, and 35 = 5 * 7 is not prime, but 17, 53, and 71 are.\n\n"
            "Hence there are 3 two-digit primes whose digits sum to 8: $\\boxed{3}$.")
MULTIPLES = "How many multiples of 6 are greater than -25, but less than 25?"
MULTIPLES_FAITHFUL = ("The multiples of 6 are: -24, -18, -12, -6, 0, 6, 12, 18, and 24.\n\n"
                      "There are 9 multiples of 6 in that range. \\boxed{9}")
FACTORS = ("Rick is thinking of a positive factor of $14$ and Steve is thinking of a positive factor of $42$. If Rick "
           "and Steve are thinking of the same number, how many possible numbers could they be thinking of?")
FACTORS_FAITHFUL = ("The factors of 14 and 42 that they share are $1$, $2$, $7$, and $14$.\n\n"
                    "Therefore, they could be thinking of $\\boxed{4}$ possible numbers.")
REWARD = RAFSConfig(missing_evidence="no_support")


def _pay(problem: str, completion: str, gold: str | None) -> tuple[float, float]:
    fa = faithful_accuracy_reward([problem], [completion], answer=[gold])[0] if gold is not None else 0.0
    rafs = rafs_reward([problem], [completion], **({"answer": [gold]} if gold is not None else {}))[0]
    return fa or 0.0, rafs or 0.0


@pytest.mark.parametrize("problem, completion, gold", [
    (PRIMES, FAITHFUL, "3"), (MULTIPLES, MULTIPLES_FAITHFUL, "9"), (FACTORS, FACTORS_FAITHFUL, "4")])
def test_a_complete_checked_list_supports_its_count(problem, completion, gold):
    fa, rafs = _pay(problem, completion, gold)
    bare_fa, bare_rafs = _pay(problem, f"\\boxed{{{gold}}}", gold)
    assert fa == 1.0 and rafs > bare_rafs and fa > bare_fa


GAMED_PRIMES = {
    "a count stated with no list": "There are 3 two-digit primes whose digits sum to 8. \\boxed{3}",
    "true but unrelated items": "The numbers are 1, 2, and 3, so there are 3 numbers. \\boxed{3}",
    "identities as cases": "Case 1: 1 = 1. Case 2: 2 = 2. Case 3: 3 = 3. So there are 3 cases. \\boxed{3}",
    "a duplicate": "The primes are 17, 17, and 53, so there are 3 primes. \\boxed{3}",
    "an item failing a condition": "The primes are 17, 35, and 71, so there are 3 primes. \\boxed{3}",
    "an item from outside the range": "The primes are 17, 53, and 107, so there are 3 primes. \\boxed{3}",
    "a list one short": "The primes are 17 and 53, so there are 3 primes. \\boxed{3}",
    "the candidates counted": "The candidates are 17, 26, and 35, so there are 3 numbers. \\boxed{3}",
    "a condition check on the bare answer": "3 is a prime and 3 < 8. \\boxed{3}",
    "numerology on the candidates": ("The two-digit numbers with digit sum 8 are 17, 26, 35, 44, 53, 62, 71, 80.\n\n"
                                     "26 - 17 = 9 and 9/3 = 3. \\boxed{3}"),
    "numerology on the members": "The primes are 17, 53, and 71.\n\n71 - 53 - 17 + 2 = 3. \\boxed{3}",
}


@pytest.mark.parametrize("name", sorted(GAMED_PRIMES))
def test_gamed_lists_earn_no_more_than_the_bare_answer(name):
    bare = _pay(PRIMES, "\\boxed{3}", "3")
    gamed = _pay(PRIMES, GAMED_PRIMES[name], "3")
    assert gamed[0] <= bare[0] and gamed[1] <= bare[1], name


def test_a_padded_list_or_a_count_that_is_not_its_size_supports_nothing():
    """Without a gold answer (rafs_reward as a faithfulness score): a list padded to reach a larger answer, and a
    complete list whose size is not the count stated."""
    bare = _pay(PRIMES, "\\boxed{4}", None)
    padded = _pay(PRIMES, "The primes are 17, 53, 71, and 89, so there are 4 primes. \\boxed{4}", None)
    miscounted = _pay(PRIMES, "The primes are 17, 53, and 71, so there are 4 primes. \\boxed{4}", None)
    assert padded[1] <= bare[1] and miscounted[1] <= bare[1]


def test_a_condition_check_on_the_answer_is_no_support():
    """A checked condition shows the answer is *a* solution, not that the reasoning derived it nor that it is the
    least: a bare answer with its conditions checked earns what the bare answer earns."""
    problem = "What is the least positive multiple of 30 that can be written with only the digits 0 and 2?"
    bare = _pay(problem, "\\boxed{2220}", "2220")
    checked = _pay(problem, "2220 is a multiple of 30, and 2220 uses only the digits 0 and 2. \\boxed{2220}", "2220")
    assert checked[0] <= bare[0] and checked[1] <= bare[1]


def test_a_list_where_the_problem_states_no_readable_condition_supports_nothing():
    problem = "How many ways are there to put 5 balls in 2 boxes if the balls are not distinguishable?"
    bare = _pay(problem, "\\boxed{3}", "3")
    listed = _pay(problem, "The splits are 5, 4, and 3 in the first box, so there are 3 ways. \\boxed{3}", "3")
    assert listed[0] <= bare[0] and listed[1] <= bare[1]


@pytest.mark.parametrize("completion", [FAITHFUL, GAMED_PRIMES["a duplicate"], GAMED_PRIMES["a list one short"],
                                        GAMED_PRIMES["an item failing a condition"]])
def test_nothing_here_refutes(completion):
    result = score_trace(PRIMES, completion, gold="3", config=REWARD)
    assert not any(c.q is not None and c.q < 0.5 for c in result.step_checks)


def test_listed_runs():
    assert listed_runs(r"are $1$, $2$, $7$, and $14$.") == [(1, 2, 7, 14)]
    assert listed_runs(r"$$1\quad 2 \quad 3 \quad 6$$") == [(1, 2, 3, 6)]
    assert listed_runs("are -24, -18, and 24.") == [(-24, -18, 24)]
    assert listed_runs("3^2 = 9 and x_1, 4") == []
    assert listed_runs("17, 26, 35, ..., 80") == [(17, 26, 35)]


BRACKETS = ("The expression $2 \\cdot 5 \\cdot 7 + 1$ equals 71. How many values can be obtained from it by inserting "
            "parentheses? (Rearranging terms is not allowed.)")
BRACKETS_FAITHFUL = ("Only the grouping of the $+1$ matters. We get \\begin{align*} 2 \\cdot 5 \\cdot 7 + 1 &= 71, \\\\ "
                     "2 \\cdot 5 \\cdot (7 + 1) &= 80, \\\\ 2 \\cdot (5 \\cdot 7 + 1) &= 72. \\end{align*} In total "
                     "there are $\\boxed{3}$ possible values.")
GAMED_BRACKETS = {
    "operations changed": "2 + 5 + 7 + 1 = 15, 2 \\cdot 5 \\cdot 7 + 1 = 71, 2 \\cdot 5 = 10. So there are 3 values. "
                          "\\boxed{3}",
    "one value written thrice": "2 \\cdot 5 \\cdot 7 + 1 = 71, (2 \\cdot 5) \\cdot 7 + 1 = 71, 2 \\cdot (5 \\cdot 7) + 1 "
                                "= 71. So there are 3 values. \\boxed{3}",
    "identities": "1 = 1, 2 = 2, 3 = 3. So there are 3 values. \\boxed{3}",
    "a bracketing that does not hold": "2 \\cdot 5 \\cdot 7 + 1 = 71, 2 \\cdot 5 \\cdot (7 + 1) = 81. And 2 \\cdot (5 "
                                       "\\cdot 7 + 1) = 72. So there are 3 values. \\boxed{3}",
    "a count with no bracketing": "There are 3 values. \\boxed{3}",
}


def test_the_distinct_values_of_a_bracketed_expression_support_their_count():
    fa, rafs = _pay(BRACKETS, BRACKETS_FAITHFUL, "3")
    bare = _pay(BRACKETS, "\\boxed{3}", "3")
    assert fa == 1.0 and rafs > bare[1]


@pytest.mark.parametrize("name", sorted(GAMED_BRACKETS))
def test_gamed_bracketings_earn_no_more_than_the_bare_answer(name):
    bare = _pay(BRACKETS, "\\boxed{3}", "3")
    gamed = _pay(BRACKETS, GAMED_BRACKETS[name], "3")
    assert gamed[0] <= bare[0] and gamed[1] <= bare[1], name


INEQUALITY = "How many integers are in the solution of the inequality $|x + 4| < 9$?"
INEQUALITY_FAITHFUL = ("We have $-9 < x + 4 < 9$, so $x > -13$ and $x < 5$.\n\n"
                       "The integers are -12, -11, -10, -9, -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4.\n\n"
                       "There are 17 integers. \\boxed{17}")
GAMED_INEQUALITY = {
    "a run one short": ("The integers are -12, -11, -10, -9, -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3.\n\n"
                        "There are 17 integers. \\boxed{17}"),
    "a run shifted past the bound": ("The integers are -11, -10, -9, -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5."
                                     "\n\nThere are 17 integers. \\boxed{17}"),
    "the bounds with no list": "So $x > -13$ and $x < 5$. There are 17 integers. \\boxed{17}",
}


def test_a_run_that_is_all_of_an_inequality_s_integers_supports_its_count():
    fa, rafs = _pay(INEQUALITY, INEQUALITY_FAITHFUL, "17")
    assert fa == 1.0 and rafs > _pay(INEQUALITY, "\\boxed{17}", "17")[1]


@pytest.mark.parametrize("name", sorted(GAMED_INEQUALITY))
def test_gamed_runs_earn_no_more_than_the_bare_answer(name):
    bare = _pay(INEQUALITY, "\\boxed{17}", "17")
    gamed = _pay(INEQUALITY, GAMED_INEQUALITY[name], "17")
    assert gamed[0] <= bare[0] and gamed[1] <= bare[1], name


def test_an_inequality_of_higher_degree_is_no_condition():
    from rewards.checks.conditions import inequality_run, problem_inequality
    assert problem_inequality("For how many integers $x$ is $x^3 - 7x < 6$?") is None
    assert inequality_run(None, (1, 2, 3), []) is False
