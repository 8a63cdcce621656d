"""rewards.checks.arithmetic does not swallow its own bugs silently: an internal error is counted, logged once with
the input that caused it, and re-raised under RAFS_STRICT=1 (which tests/conftest.py sets for the suite)."""

from __future__ import annotations

import logging
import os

import pytest

from rewards.checks import arithmetic
from rewards.checks.arithmetic import (
    Unparseable,
    check_equation,
    check_text,
    evaluate,
    evaluate_ex,
    extract_equations,
    numbers_in,
    parse_number,
)

LOGGER = "rewards.checks.arithmetic"


class InjectedBug(IndexError):
    """Stands for a tokenizer/parser bug."""


def _boom(*_args, **_kwargs):
    raise InjectedBug("injected parser bug")


@pytest.fixture(autouse=True)
def clean_counts():
    """Each test starts from no counts and nothing logged; what earlier tests counted is put back afterwards (the
    conftest fails the run on any count left at the end: the errors injected here must not count, others must)."""
    counts, logged = arithmetic.error_counts(), set(arithmetic._errors_logged)
    arithmetic.reset_error_counts()
    yield
    arithmetic.reset_error_counts()
    arithmetic._error_counts.update(counts)
    arithmetic._errors_logged.update(logged)


@pytest.fixture
def lenient(monkeypatch):
    """The production setting: RAFS_STRICT unset."""
    monkeypatch.delenv(arithmetic.STRICT_ENV, raising=False)


# (function, the private helper it calls that gets the injected bug, an input that reaches it, the no-result value)
CASES = [
    ("evaluate_ex", "_tokenize", "$16 - 3 - 4", Unparseable("internal error")),  # "$": past the plain fast path
    ("parse_number", "_num_value", "$1,234.50", None),
    ("extract_equations", "_windows", "She sells 16 - 3 - 4 = 9 eggs.", []),
    ("numbers_in", "_num_value", "He buys 1,200 eggs.", []),
]


def test_the_suite_runs_strict():
    if os.environ.get(arithmetic.STRICT_ENV) not in (None, "1"):
        pytest.skip(f"{arithmetic.STRICT_ENV}={os.environ[arithmetic.STRICT_ENV]!r} was set by the caller")
    assert arithmetic.strict_mode(), "tests/conftest.py must set RAFS_STRICT=1 for the test suite"


@pytest.mark.parametrize("func, helper, text, empty", CASES, ids=[c[0] for c in CASES])
def test_internal_error_is_swallowed_counted_and_logged_once(lenient, monkeypatch, caplog, func, helper, text, empty):
    monkeypatch.setattr(arithmetic, helper, _boom)
    fn = getattr(arithmetic, func)
    with caplog.at_level(logging.ERROR, logger=LOGGER):
        assert fn(text) == empty
        assert fn(text + " ") == empty  # the same error again: counted, not logged again
    assert arithmetic.error_counts() == {f"{func}:InjectedBug": 2}
    records = [r for r in caplog.records if r.name == LOGGER]
    assert len(records) == 1
    message = records[0].getMessage()
    assert func in message and "InjectedBug" in message and repr(text) in message and "RAFS_STRICT=1" in message
    assert records[0].exc_info and records[0].exc_info[0] is InjectedBug  # the traceback is in the log


@pytest.mark.parametrize("func, helper, text, empty", CASES, ids=[c[0] for c in CASES])
def test_strict_switch_reraises(monkeypatch, func, helper, text, empty):
    monkeypatch.setenv(arithmetic.STRICT_ENV, "1")
    monkeypatch.setattr(arithmetic, helper, _boom)
    with pytest.raises(InjectedBug, match="injected parser bug"):
        getattr(arithmetic, func)(text)
    assert arithmetic.error_counts() == {f"{func}:InjectedBug": 1}  # counted before it is raised


def test_check_equation_and_check_text(lenient, monkeypatch, caplog):
    eq = extract_equations("3 * 4 = 13")[0]
    monkeypatch.setattr(arithmetic, "_pair_holds", _boom)
    with caplog.at_level(logging.ERROR, logger=LOGGER):
        check = check_equation(eq)
        assert check.ok is None and check.detail == "not checkable"
        assert [c.ok for c in check_text("3 * 4 = 13")] == [None]
    assert arithmetic.error_counts() == {"check_equation:InjectedBug": 2}
    assert sum(r.name == LOGGER for r in caplog.records) == 1
    assert "['3 * 4', '13']" in caplog.records[0].getMessage()  # the equation's sides name the input
    monkeypatch.setenv(arithmetic.STRICT_ENV, "true")
    with pytest.raises(InjectedBug):
        check_equation(eq)


def test_evaluate_returns_none_on_an_internal_error(lenient, monkeypatch):
    monkeypatch.setattr(arithmetic, "_tokenize", _boom)
    assert evaluate("$1 + 1") is None  # "$": not plain arithmetic, so the tokenizer runs
    assert arithmetic.error_counts() == {"evaluate_ex:InjectedBug": 1}


def test_long_inputs_are_truncated_in_the_log(lenient, monkeypatch, caplog):
    monkeypatch.setattr(arithmetic, "_windows", _boom)
    text = "1 + 1 = 2 " * 1000
    with caplog.at_level(logging.ERROR, logger=LOGGER):
        assert extract_equations(text) == []
    message = caplog.records[0].getMessage()
    assert len(message) < 800 and f"({len(repr(text))} chars)" in message


@pytest.mark.parametrize("value", ["0", "", "no", "false"])
def test_strict_switch_values(monkeypatch, value):
    monkeypatch.setenv(arithmetic.STRICT_ENV, value)
    assert not arithmetic.strict_mode()
    monkeypatch.setattr(arithmetic, "_num_value", _boom)
    assert numbers_in("12 eggs") == [] and parse_number("12") is None


def test_healthy_inputs_count_nothing():
    assert evaluate("16 - 3 - 4").exact == 9 and extract_equations("3 * 4 = 12")
    assert parse_number("50%") == arithmetic.Fraction(1, 2) and numbers_in("3 eggs")
    assert evaluate_ex("1/0") == Unparseable("division by zero")  # a property of the input, not an error
    assert arithmetic.error_counts() == {}
