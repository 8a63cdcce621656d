"""Angles at a point the problem puts inside a segment are straight angles."""

import pytest

from rewards import score_trace
from rewards.checks.claims import CHECKERS, checker_name
from rewards.checks.claims.straight_angles import check_trace, points_between

PENTAGON = "In regular pentagon $PQRST$, $X$ is the midpoint of segment $ST$. What is the measure of angle $XQS,$ in degrees?"


@pytest.mark.parametrize("problem,between", [
    (PENTAGON, {("X", frozenset("ST"))}),
    (r"Point $D$ is on side $BC$ of triangle $ABC$.", {("D", frozenset("BC"))}),
    (r"$D$ lies on $\overline{BC}$ and $AD = 5$.", {("D", frozenset("BC"))}),
    (r"$M$ is the midpoint of $\overline{AB}$.", {("M", frozenset("AB"))}),
    (r"Point $D$ is on line $BC$.", set()),                      # maybe outside the segment: the angle may be 0
    ("Tom is on the bus.", set()),
])
def test_points_between(problem, between):
    assert points_between(problem) == between


# (step, refuted?) — the first row is ProcessBench MATH math-556's labelled error
TABLE = [
    (r"This implies that $\angle TXS = 90^\circ$ since $X$ divides $ST$ into two equal segments.", True),
    (r"So $m\angle SXT = 60°$.", True),
    (r"So $\angle TXS = 180^\circ$, a straight angle.", False),
    (r"So $\angle XQS = 18^\circ$.", False),                                   # another angle
    (r"So $\angle TXS = 2$ in radians.", False),                               # no degree sign: not read
]


@pytest.mark.parametrize("step,refuted", TABLE)
def test_an_angle_at_a_point_between_two_others_is_180_degrees(step, refuted):
    assert bool(check_trace([step], PENTAGON)) is refuted


def test_the_checker_is_shipped_and_refutes_in_both_modes():
    assert "straight_angles" in [checker_name(c) for c in CHECKERS]
    text = "\n\n".join([r"Each interior angle is $\frac{540^\circ}{5} = 108^\circ$.",
                        r"$\angle TXS = 90^\circ$ since $X$ is the midpoint.", r"So the answer is $\boxed{18}$."])
    for mode in ("reward", "evaluation"):
        result = score_trace(PENTAGON, text, mode=mode)
        assert any(c.q is not None and c.q < 0.5 for c in result.step_checks), mode


@pytest.mark.parametrize("steps,problem", [([""], ""), ([r"\angle" * 3000], PENTAGON), ([None], PENTAGON),
                                           ([r"\angle TXS = 1" + "0" * 5000 + "^\\circ"], PENTAGON),
                                           (["x"], "X is the midpoint of " * 2000)])
def test_odd_text_never_raises(steps, problem):
    assert isinstance(check_trace(steps, problem), list)
