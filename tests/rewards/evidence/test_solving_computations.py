"""A computation assigned to a name that solves a grounded equation (``84 = \\frac{1}{2} \\cdot 25 \\cdot h_c
\\implies h_c = \\frac{168}{25} = 6.72``): the one number it writes that nothing reached (168) is derived by the
solving (rewards/evidence/builder.py ``reach_solving``, ``AlgebraTracker.solved_by``); one-letter subscripts
(``h_a``, ``h_{c}``) are names of their own in the algebra reader (rewards/checks/algebra/sides.py). Each reading is
tested with the faithful trace and the cheapest completions that would earn it without the algebra: they earn
less, and nothing is refuted.
"""

from __future__ import annotations

import pytest

from rewards import RAFSConfig, score_trace
from rewards.checks.algebra import follows, unknowns
from rewards.evidence.algebra_links import AlgebraTracker

REWARD = RAFSConfig(missing_evidence="no_support")
ALTITUDE = "A triangle has area 84 and a side of length 25. What is the altitude to that side, as a decimal?"
SOURCE = "The area is half the base times the height: \\[ 84 = \\frac{1}{2} \\cdot 25 \\cdot h_c \\]"
CLOSE = "So the altitude is $\\boxed{6.72}$."


def _score(steps: list[str], gold: str = "6.72"):
    return score_trace(ALTITUDE, "\n\n".join(steps), gold=gold, config=REWARD)


@pytest.mark.parametrize("side, names", [
    ("h_a + h_b", {"h_a", "h_b"}),
    ("\\frac{1}{2} \\cdot 25 \\cdot h_{c}", {"h_c"}),
    ("2r_1 + x", {"r_1", "x"}),
])
def test_one_letter_subscripts_are_names_of_their_own(side, names):
    assert unknowns(side) == frozenset(names)


@pytest.mark.parametrize("side", ["a_{n+1} + 1", "x_{ab}", "h_ab + 1"])
def test_subscripts_that_are_expressions_are_not_read(side):
    assert unknowns(side) is None


def test_subscripted_names_are_distinct_unknowns():
    assert follows("h_a + h_b = 10", "h_b = 10 - h_a") is True
    assert follows("h_a + h_b = 10", "h_a = 5") is not True  # h_b is not h_a


def test_a_computation_that_solves_a_grounded_equation_derives_its_numerator():
    faithful = _score([SOURCE, "Solving: \\[ h_c = \\frac{168}{25} = 6.72 \\]", CLOSE])
    assert faithful.faithful
    assert not any("ungrounded" in why for why in faithful.reasons)
    one_display = _score(["\\[ 84 = \\frac{1}{2} \\cdot 25 \\cdot h_c \\implies h_c = \\frac{168}{25} = 6.72 \\]",
                          CLOSE])
    assert one_display.faithful


def test_the_root_of_no_grounded_equation_derives_nothing():
    # the cheapest completion: the computation with its numerator invented, no equation it solves
    invented = _score(["The altitude is \\[ h_c = \\frac{168}{25} = 6.72 \\]", CLOSE])
    faithful = _score([SOURCE, "Solving: \\[ h_c = \\frac{168}{25} = 6.72 \\]", CLOSE])
    assert not invented.faithful and invented.score < faithful.score
    assert any("ungrounded" in why for why in invented.reasons)


def test_two_invented_numbers_that_give_the_root_are_not_derived():
    padded = _score([SOURCE, "Solving: \\[ h_c = 1000 - 993.28 = 6.72 \\]", CLOSE])
    faithful = _score([SOURCE, "Solving: \\[ h_c = \\frac{168}{25} = 6.72 \\]", CLOSE])
    assert not padded.faithful and padded.score < faithful.score


def test_a_computation_with_another_root_solves_nothing():
    tracker = AlgebraTracker("")
    tracker.link(("84", "\\frac{1}{2} \\cdot 25 \\cdot h_c"), 0, lambda value: True)
    assert tracker.solved_by(("h_c", "\\frac{168}{25}", "6.72")) == 0
    assert tracker.solved_by(("h_c", "\\frac{170}{25}", "6.8")) is None
    assert tracker.solved_by(("2h_c", "\\frac{336}{25}", "13.44")) is None  # the first side is no name
    slipped = _score([SOURCE, "Solving: \\[ h_c = \\frac{170}{25} = 6.8 \\]", "So $\\boxed{6.8}$."], gold="6.8")
    faithful = _score([SOURCE, "Solving: \\[ h_c = \\frac{168}{25} = 6.72 \\]", CLOSE])
    assert not slipped.faithful and slipped.score < faithful.score
