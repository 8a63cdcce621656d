"""One quantity, named the same way, given two values in two steps."""

import pytest

from rewards import score_trace
from rewards.checks.claims import CHECKERS, checker_name
from rewards.checks.claims.named_values import check_trace, named_values

FIRST = r"The total number of possible assignments is the product of the ways: $3 \cdot \binom{4}{4} = 3 \cdot 1 = 3$."


# (later steps, refuted?) — the first row is ProcessBench MATH math-568's labelled error (the earlier statement)
TABLE = [
    ([r"The total number of possible assignments is the sum of the ways: $\binom{6}{4} = 15$."], True),
    ([r"So the total number of possible assignments is 15."], True),
    ([r"The total number of possible assignments is $3 \cdot 1 = 3$."], False),            # the same value again
    ([r"Wait, the total number of possible assignments is 15."], False),                   # retracted
    ([r"Actually, I made an error.", r"The total number of possible assignments is 15."], False),
    ([r"If the pilots sit apart, the total number of possible assignments is 15."], False),  # an assumption
    ([r"The total number of outcomes is 15."], False),                                      # another name
    ([r"The answer is 15."], False),                                                        # a short name
]


@pytest.mark.parametrize("later,refuted", TABLE)
def test_two_values_of_one_named_quantity_refute_the_earlier_statement(later, refuted):
    found = check_trace([FIRST, *later])
    assert bool(found) is refuted, found
    assert all(i == 0 for i, _ in found)


def test_cases_and_one_step_are_left_alone():
    assert check_trace(["In case 1, the number of ways to choose is 6.", "In case 2, the number of ways to choose is 4."]) == []
    assert check_trace(["The number of red balls is 3. The number of red balls is 4."]) == []  # one step


def test_a_statement_is_a_sentence_ending_on_its_value():
    assert named_values(["The number of red balls is 3, and more come later."]) == []
    assert [(k, n, int(v)) for k, n, v in named_values(["Then the number of red balls is 3."])] == \
        [(0, "number of red balls", 3)]


def test_the_checker_is_shipped_and_refutes_in_both_modes():
    assert "named_values" in [checker_name(c) for c in CHECKERS]
    text = "\n\n".join([r"There are $\binom{3}{2} = 3$ ways to give the pilots fish.", FIRST,
                        r"The total number of possible assignments is $\binom{6}{4} = 15$.",
                        r"The probability is $\frac{3}{15} = \boxed{\frac{1}{5}}$."])
    for mode in ("reward", "evaluation"):
        result = score_trace("What is the probability that both pilots get the fish?", text, mode=mode)
        assert any(c.q is not None and c.q < 0.5 for c in result.step_checks), mode


@pytest.mark.parametrize("steps", [[""], [None, "The a b c is 1."], ["The a b c is 1. " * 3000],
                                   ["The a b c is 1."] * 500 + ["The a b c is 2."]])
def test_odd_text_never_raises(steps):
    assert isinstance(check_trace(steps), list)
