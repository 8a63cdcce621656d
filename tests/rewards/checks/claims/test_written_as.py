"""Numbers said to be written another way ("$1$, which can be written as $3 \\cdot 2^{-1} - 1$")."""

import pytest

from rewards import score_trace
from rewards.checks.claims import CHECKERS, checker_name
from rewards.checks.claims.written_as import check_trace, written_as_claims

# (step text, refuted?) — the true rows are slips as policies write them (ProcessBench MATH math-936's labelled
# error first); the false rows are true rewritings and the shapes the rule must leave alone
TABLE = [
    (r"The first term is $1$, which can be written as $3 \cdot 2^{-1} - 1$.", True),
    (r"The second term is $2 = 3 \cdot 2^{0} - 1$, and $1$ can be written as $3 \cdot 2^{-1} - \frac{1}{2}$.", False),
    (r"$12$ can be expressed as $2^3 \cdot 3$.", True),
    (r"$12$ can be expressed as $2^2 \cdot 3$.", False),
    (r"$\sqrt{12}$ can be written as $3\sqrt{2}$.", True),
    (r"$\sqrt{12}$ can be written as $2\sqrt{3}$.", False),
    (r"$\frac{6}{8}$ is the same as $\frac{3}{4}$.", False),
    (r"$\frac{6}{8}$ is the same as $\frac{2}{3}$.", True),
    # left alone: an operand of a longer phrase, a rounded decimal, a base numeral, a percent, a degree, a modulus,
    # a factorial, a letter, pi on one side only, "about"
    (r"the product of $3$ and $4$, which can be written as $7$", False),
    (r"$0.33$ can be written as $\frac{1}{3}$", False),
    (r"$5$ can be written as $101_2$", False),
    (r"$\frac{1}{4}$ can be written as $25\%$", False),
    (r"$180^\circ$ can be written as $\pi$", False),
    (r"$17$ can be written as $2$ modulo $5$", False),
    (r"$6$, which can be written as $3!$", False),
    (r"$x$ can be written as $5$", False),
    (r"$3$ can be written as $\pi$", False),
    (r"$3$ is about the same as $\sqrt{10}$", False),
]


@pytest.mark.parametrize("text,refuted", TABLE)
def test_a_number_written_another_way_is_refuted_exactly_when_the_values_differ(text, refuted):
    assert bool(check_trace([text])) is refuted, check_trace([text])


def test_no_rounding_is_licensed():
    # check_equation reads "1 = 3 * 2^-1 - 1" as 1/2 rounded to a whole number; a rewriting never rounds
    (c,) = written_as_claims(r"$1$ can be written as $3 \cdot 2^{-1} - 1$")
    assert c.ok is False and "1/2" in c.detail


def test_the_checker_is_shipped_and_refutes_in_both_modes():
    assert "written_as" in [checker_name(c) for c in CHECKERS]
    steps = ["The sequence starts 1, 2, 4, 5.",
             r"The first term is $1$, which can be written as $3 \cdot 2^{-1} - 1$.",
             r"So $k = 49$ and the answer is $\boxed{49}$."]
    for mode in ("reward", "evaluation"):
        result = score_trace("Compute k.", "\n\n".join(steps), mode=mode)
        assert any(c.q is not None and c.q < 0.5 for c in result.step_checks), mode


@pytest.mark.parametrize("text", ["", "can be written as " * 2000, "$1$ can be written as $" + "2^" * 500 + "$",
                                  "$1$ can be written as $" + "1" * 400 + "$", "$$ can be written as $$"])
def test_odd_text_never_raises(text):
    assert isinstance(check_trace([text]), list)
