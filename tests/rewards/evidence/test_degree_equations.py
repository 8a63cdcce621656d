"""Equations written in degrees (``2x + 20^\\circ = 180^\\circ``): the algebra reader drops the degree mark, a unit,
so that the equation links to the one it follows from and its solved value is derived
(rewards/checks/algebra/sides.py ``equation_sides``). A degree mark inside a trigonometric function, or beside
``\\pi``, is no mere unit and stays. Each reading is tested with the faithful trace it supports and the cheapest
completion that would earn it without the algebra: that earns less, and nothing is refuted.
"""

from __future__ import annotations

import pytest

from rewards import RAFSConfig, score_trace
from rewards.checks.algebra import equation_sides

REWARD = RAFSConfig(missing_evidence="no_support")
ANGLES = "Two adjacent angles on a straight line measure $x$ and $x + 20^\\circ$. What is $x$, in degrees?"
FAITHFUL = [
    "Angles on a straight line add up to $180^\\circ$: \\[ x + (x + 20^\\circ) = 180^\\circ \\]",
    "Combine like terms: \\[ 2x + 20^\\circ = 180^\\circ \\]",
    "Subtract $20^\\circ$ from both sides: \\[ 2x = 160^\\circ \\]",
    "Divide by 2: \\[ x = 80^\\circ \\]",
    "So $x = \\boxed{80}$.",
]


def _score(steps: list[str], problem: str = ANGLES, gold: str = "80"):
    return score_trace(problem, "\n\n".join(steps), gold=gold, config=REWARD)


@pytest.mark.parametrize("text, sides", [
    ("2x + 20^\\circ = 180^\\circ", ("2x + 20", "180")),
    ("2x = 160^{\\circ}", ("2x", "160")),
    ("x + 35° = 90°", ("x + 35", "90")),
    ("\\[ 3y - 10^\\circ = 2y + 50^\\circ \\]", ("3y - 10", "2y + 50")),
])
def test_degree_marks_are_dropped_from_an_equation_in_degrees(text, sides):
    assert equation_sides(text) == sides


@pytest.mark.parametrize("text", ["\\sin 30^\\circ = x", "\\cos(x^\\circ) = \\frac{1}{2}", "180^\\circ = \\pi y"])
def test_degree_marks_stay_where_the_angle_is_no_mere_unit(text):
    assert "circ" in "".join(equation_sides(text))


def test_a_linear_equation_in_degrees_is_solved_and_paid_like_one_without_them():
    with_degrees = _score(FAITHFUL)
    without = _score([s.replace("^\\circ", "") for s in FAITHFUL])
    assert with_degrees.faithful and without.faithful
    assert not any("ungrounded" in why for why in with_degrees.reasons)
    assert with_degrees.score >= without.score - 1e-9


def test_an_invented_equation_in_degrees_earns_less_than_the_solved_one():
    # the cheapest completion: state the solved equation with nothing it follows from, then divide
    invented = _score(["Clearly \\[ 2x = 160^\\circ \\]", "Divide by 2: \\[ x = 80^\\circ \\]", "So $x = \\boxed{80}$."])
    faithful = _score(FAITHFUL)
    assert not invented.faithful
    assert invented.score < faithful.score
    assert not any("refuted" in why for why in invented.reasons)


def test_a_wrong_step_in_degrees_is_not_paid():
    # 2x + 20 = 180 does not give 2x = 150: the slip must not be read as a derivation of 75
    slipped = _score([*FAITHFUL[:2], "Subtract: \\[ 2x = 150^\\circ \\]", "\\[ x = 75^\\circ \\]",
                      "So $x = \\boxed{75}$."], gold="75")
    assert not slipped.faithful
    assert slipped.score < _score(FAITHFUL).score


# ---------------------------------------------------------------------------------------------- angles by name
TRIANGLE = "In triangle $ABC$, $\\angle BAC = 90^\\circ$ and $\\angle ABC = 50^\\circ$. Find $\\angle ACB$ in degrees."
SUM = "The angles of a triangle add up to $180^\\circ$: \\[ 90^\\circ + 50^\\circ + \\angle ACB = 180^\\circ \\]"
SOLVED = "\\[ \\angle ACB = 180^\\circ - 140^\\circ = 40^\\circ \\]"


@pytest.mark.parametrize("side, names", [
    ("90 + 50 + \\angle ACB", {"angle_ACB"}),
    ("\\angle{A} + \\angle B", {"angle_A", "angle_B"}),
])
def test_an_angle_named_by_its_vertices_is_one_unknown(side, names):
    from rewards.checks.algebra import unknowns
    assert unknowns(side) == frozenset(names)


def test_angles_with_other_names_are_other_unknowns_and_a_measure_m_is_refused():
    from rewards.checks.algebra import follows, unknowns
    assert follows("\\angle A + \\angle B = 90", "\\angle A = 45") is not True
    assert unknowns("m\\angle A + 1") is None


def test_an_angle_solved_from_the_angle_sum_is_paid():
    solved = _score([SUM, SOLVED, "So $\\angle ACB = \\boxed{40}$."], problem=TRIANGLE, gold="40")
    assert solved.faithful
    assert not any("ungrounded" in why for why in solved.reasons)


def test_an_angle_computed_with_an_invented_number_earns_less():
    # the cheapest completion: the subtraction with 140 written from nowhere, no equation it solves
    invented = _score([SOLVED, "So $\\angle ACB = \\boxed{40}$."], problem=TRIANGLE, gold="40")
    solved = _score([SUM, SOLVED, "So $\\angle ACB = \\boxed{40}$."], problem=TRIANGLE, gold="40")
    assert not invented.faithful and invented.score < solved.score
