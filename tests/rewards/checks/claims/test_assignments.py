"""Claims about letters a step has just given values: substitute and check; cases and conditions are left alone."""

import pickle

import pytest

import rewards.checks.claims
from rewards import score_trace
from rewards.checks.claims.assignments import check_trace
from rewards.checks.equations import step_equations

TABLE = [
    ("If we choose $x = 1007.5$ and $y = 7.5$, then $x + y = 2015$.", True),
    ("If we choose $x = 1007.5$ and $y = 7.5$, then $x + y = 1015$.", False),
    ("Let $a = 3$ and $b = 4$, so $a^2 + b^2 = 26$.", True),
    ("Let $a = 3$ and $b = 4$, so $a^2 + b^2 = 25$.", False),
    ("With $n = 6$ we get $\\frac{n^2 + n}{2} = 20$.", True),
    ("With $n = 6$ we get $\\frac{n^2 + n}{2} = 21$.", False),
    # cases: a second equation in the letter is a new condition, not a claim about the value
    ("\\[ x - 4 = 1 \\implies x = 5 \\] \\[ x - 4 = 11 \\implies x = 15 \\]", False),
    ("For $u^2 = 0$, we have $u = 0$, giving $x = 0$. For $\\frac{4}{9} u^2 = \\frac{1}{3}$: $u^2 = \\frac34$.", False),
    ("Thus either $x - 4 = 12$, meaning $x = 16$, or $x - 4 = -12$, meaning $x = -8$.", False),
    ("$x = \\pi$ and $x = 2\\pi$, so $\\sin x = 0$.", False),
    # a repeating decimal is read only in part by the extractor: no assignment
    ("Let $x = 0.\\overline{1331}$, so $10000x = 1331.\\overline{1331}$. Then $9999x = 1331$.", False),
    # both sides in letters: an identity or a condition, not a value
    ("Take $x = 1$; then $x^3 - 1 = (x - 1)(x^2 + x + 1)$.", False),
    # no consequence word between the value and the equation
    ("We know $y = 40$. The equation $900 - 4y = 640$ must be solved.", False),
    ("$x = 3$. $y = 2$.", False),
]


@pytest.mark.parametrize("text,flagged", TABLE)
def test_table(text, flagged):
    assert bool(check_trace([text])) is flagged


def test_detail_names_the_values():
    (k, check), = check_trace(["Set $p = 2$ and $q = 5$, so $2p + q = 10$."])
    assert k == 0 and check.ok is False
    assert check.detail == "with p = 2, q = 5: 2p + q evaluates to 9, not 10"


def test_values_do_not_carry_across_steps():
    assert check_trace(["Let $a = 3$.", "So $a + 1 = 5$."]) == []


@pytest.mark.parametrize("junk", [None, 42, "", "=" * 5000, "$x = $ then $x + = $", "$x = 1e999$, so $x + 1 = 2$"])
def test_odd_input_never_raises(junk):
    assert check_trace([junk]) == []
    assert [k for k, _ in check_trace([junk, "Let $x = 2$, then $x + 1 = 4$."])] == [1]


def test_picklable():
    assert pickle.loads(pickle.dumps(check_trace)) is check_trace


def test_end_to_end_suspect_step(monkeypatch):
    monkeypatch.setattr(rewards.checks.claims, "CHECKERS", [check_trace])
    step_equations.cache_clear()
    steps = ["We want $x + y = 2015$ with $xy$ small.", "Choose $x = 1007.5$ and $y = 7.5$, then $x + y = 2015$.",
             "So the answer is $\\boxed{2015}$."]
    assert score_trace("Find numbers with sum 2015.", steps=steps).suspect_step == 1
    monkeypatch.setattr(rewards.checks.claims, "CHECKERS", [])
    assert score_trace("Find numbers with sum 2015.", steps=steps).suspect_step is None
