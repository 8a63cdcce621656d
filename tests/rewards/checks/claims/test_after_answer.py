"""The answer's own quantity given another value after the answer."""

import pytest

from rewards import score_trace
from rewards.checks.claims import CHECKERS, checker_name
from rewards.checks.claims.after_answer import check_trace

BOXED = r"Thus, the measure of angle 2 is $\boxed{140}$ degrees."

# (steps after the boxed sentence, refuted?) — the first row is ProcessBench MATH math-739's labelled error
TABLE = [
    ([r"So, the measure of angle 2 is actually \(180 - 130 = 50\) degrees when considering the direct relationship."],
     True),
    ([r"In other words, the measure of angle 2 must be 50."], True),
    ([r"If the lines were not parallel, the measure of angle 2 is 50 instead."], False),   # another assumption
    ([r"The measure of angle 2 is 50 if we measure the other side."], False),
    ([r"The measure of angle 2 would be 50 on the other side."], False),
    ([r"Indeed, the measure of angle 2 is \(360 - 220 = 140\) degrees."], False),     # the same value again
    ([r"The measure of angle 1 is 50 degrees, as given."], False),                     # another quantity
    ([r"Note that the larger angle is 220 degrees."], False),
    ([], False),
]


@pytest.mark.parametrize("after,refuted", TABLE)
def test_a_later_value_of_the_answers_quantity_is_refuted_when_it_differs(after, refuted):
    found = check_trace([BOXED, *after])
    assert bool(found) is refuted, found
    assert all(i == 1 for i, _ in found)  # the later statement is the step refuted, not the answer's


def test_a_value_tried_before_the_answer_is_exploration():
    steps = ["First try: the measure of angle 2 is 50 degrees. That cannot be, the lines are parallel.",
             r"So the measure of angle 2 is $360 - 220 = 140$.", BOXED]
    assert check_trace(steps) == []


def test_the_checker_is_shipped_and_refutes_in_both_modes():
    assert "after_answer" in [checker_name(c) for c in CHECKERS]
    text = "\n\n".join(["The angle next to angle 1 is $180 - 50 = 130$ degrees.", r"So $360 - 220 = 140$.", BOXED,
                        r"So, the measure of angle 2 is actually \(180 - 130 = 50\) degrees."])
    for mode in ("reward", "evaluation"):
        result = score_trace("If angle 1 is 50 degrees, what is the measure of angle 2?", text, mode=mode)
        assert any(c.q is not None and c.q < 0.5 for c in result.step_checks), mode


@pytest.mark.parametrize("steps", [[""], [r"\boxed{"], [r"the a is \boxed{1}" + " the a is 2" * 3000],
                                   [None, r"\boxed{}"], [r"The x is \boxed{" + "9" * 5000 + "}"]])
def test_odd_text_never_raises(steps):
    assert isinstance(check_trace(steps), list)
