"""Degree measures said to be a full, half or quarter turn."""

import pytest

from rewards import score_trace
from rewards.checks.claims import CHECKERS, checker_name
from rewards.checks.claims.turns import check_trace

# (step, refuted?) — the first row is ProcessBench MATH math-547's labelled error
TABLE = [
    (r"In this case, we are looking at $180^\circ$. This angle is equivalent to a full rotation on the unit circle.",
     True),
    (r"In this case, we are looking at $360^\circ$. This angle is equivalent to a full rotation on the unit circle.",
     False),
    (r"$270^\circ$ is a half turn.", True),
    (r"An angle of $180^\circ$ is a half turn, and $90$ degrees is a quarter turn.", False),
    (r"$120^\circ$ is one third of a full rotation.", False),                         # a fraction of a turn: not read
    (r"Rotate by $90^\circ$, then by $90^\circ$ again. This angle is a half turn.", False),   # two measures before
    (r"This angle is a full rotation.", False),                                          # no measure before
]


@pytest.mark.parametrize("step,refuted", TABLE)
def test_a_turn_is_360_180_or_90_degrees(step, refuted):
    assert bool(check_trace([step])) is refuted, check_trace([step])


def test_the_checker_is_shipped_and_refutes_in_both_modes():
    assert "turns" in [checker_name(c) for c in CHECKERS]
    text = "\n\n".join([r"We are looking at $180^\circ$. This angle is equivalent to a full rotation.",
                        r"So $\sin 180^\circ = 0$ and $\cos 180^\circ = -1$.",
                        r"$\tan 180^\circ = \frac{0}{-1} = \boxed{0}$."])
    for mode in ("reward", "evaluation"):
        result = score_trace(r"Compute $\tan 180^\circ$.", text, mode=mode)
        assert any(c.q is not None and c.q < 0.5 for c in result.step_checks), mode


@pytest.mark.parametrize("steps", [[""], [None, "a full turn"], ["This angle is a full turn. " * 500],
                                   [". 1° is a full turn" * 400]])
def test_odd_text_never_raises(steps):
    assert isinstance(check_trace(steps), list)
