"""The trace-level claim-checker hook: failed checks become suspect steps; a broken checker is skipped."""

import logging

import pytest

import rewards.checks.claims
from rewards import score_trace
from rewards.checks.arithmetic import Equation, EquationCheck
from rewards.checks.claims import trace_checks
from rewards.checks.equations import step_equations


def _failing_at(index):
    def checker(steps, problem):
        eq = Equation(sides=["a", "b"], values=[None, None], span=(0, 1), source="claim")
        return [(index, EquationCheck(eq, False, "a is not b")), (index, EquationCheck(eq, True, "fine"))]
    return checker


def _broken(steps, problem):
    raise RuntimeError("boom")


@pytest.fixture
def checkers(monkeypatch):
    def use(*fns):
        monkeypatch.setattr(rewards.checks.claims, "CHECKERS", list(fns))
        step_equations.cache_clear()
    yield use
    step_equations.cache_clear()


def test_a_failed_claim_makes_the_suspect_step(checkers):
    checkers(_failing_at(1))
    result = score_trace("Add them.", steps=["2 + 3 = 5.", "So a = b.", "The answer is 5."])
    assert result.suspect_step == 1
    assert "a is not b" in result.step_checks[1].reasons


def test_only_failed_checks_within_the_trace_are_kept(checkers):
    checkers(_failing_at(0), _failing_at(7))
    found = trace_checks(["one", "two"], "")
    assert [(i, c.detail) for i, c in found] == [(0, "a is not b")]


def test_a_raising_checker_is_skipped_and_logged(checkers, caplog):
    checkers(_broken, _failing_at(0))
    with caplog.at_level(logging.WARNING, logger="rewards.checks.claims"):
        found = trace_checks(["x"], "")
    assert [i for i, _ in found] == [0]
    assert score_trace("p", steps=["2 + 2 = 4.", "The answer is 4."]).suspect_step == 0
