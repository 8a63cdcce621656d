"""Tests for :mod:`rewards.checks.claims.numberfacts`: worded numeric facts and numeric inequalities."""

from __future__ import annotations

import pickle

import pytest

import rewards
import rewards.checks.claims
from rewards.checks.claims.numberfacts import check_trace, fact_checks, inequality_checks

CASES = [
    # ---- divisibility: false claims
    (r"Since $4! = 24$ is divisible by 9, every later factorial is too.", True),
    (r"Notice that both 24 and 1199 are divisible by 3.", True),
    (r"Since 111111111 is not divisible by 9, $a$ must be.", True),
    (r"If $k = 3$, then $C = 7(3) = 21$, which is not a multiple of 3.", True),
    (r"we find that the number 10236 is not divisible by 3 and 6.", True),
    (r"Thus 7 divides 50, so we continue.", True),
    (r"Clearly $3 \mid 100$.", True),
    (r"Since $5 \nmid 35$, we stop.", True),
    (r"So 6 is a factor of 40.", True),
    (r"The number 91 is divisible by 2, 3, and 7.", True),
    (r"The number 100 is divisible by 4 but not by 25.", True),
    # ---- divisibility: true claims and things that are not claims about numbers
    (r"Since $3! = 6$ is not divisible by 9, but $5! = 120$ is divisible by 3.", False),
    (r"The sum $1 + 2 + 3 = 6$ is divisible by 3.", False),
    (r"The product of 3 and 4 is divisible by 6.", False),
    (r"We need $n$ such that $n$ is divisible by 7.", False),
    (r"$5050 - x$ is a multiple of 77.", False),
    (r"If 24 is divisible by 9, then we are done.", False),
    (r"Check whether 1199 is divisible by 3.", False),
    (r"A number is divisible by 11 if the alternating sum is a multiple of 11.", False),
    (r"The leap years are those divisible by 4 but not by 100.", False),
    (r"The number 10245 is not divisible by 2 and 4.", False),
    (r"6 is divisible by 3, 2004 is divisible by 12.", False),
    (r"$2n + 24$ is divisible by 2.", False),
    (r"The set $\{x \mid x > 0\}$.", False),
    (r"We stretch the graph by a factor of 2.", False),
    (r"Since $2 \mid 10$ and 5 divides 10, 10 is a multiple of both.", False),
    # ---- last digits, digit sums
    (r"Therefore the units digit of $7^{2011}$ is 7.", True),
    (r"So the last two digits of $11^{10}$ are 11.", True),
    (r"Therefore the units digit of $7^{2011}$ is 3.", False),
    (r"The last two digits of $11^{10}$ are 01.", False),
    (r"The units digit of $2^n$ is 6 when $n$ is a multiple of 4.", False),
    (r"The sum of the digits of 2024 is 9.", True),
    (r"The sum of the digits of 2024 is 8.", False),
    (r"The sum of the digits of 2024 is 2 + 0 + 2 + 4 = 8.", False),
    # ---- primes and divisor counts
    (r"Since 91 is prime, it has no other factors.", True),
    (r"We see that 97 is not prime.", True),
    (r"Note that 51 is a prime number.", True),
    (r"Since 97 is prime and 91 = 7 \cdot 13 is composite.", False),
    (r"Check if 32 is prime: No, 32 is not prime.", False),
    (r"2 is a prime factor of 12.", False),
    (r"7 and 12 are relatively prime.", False),
    (r"So 12 has 5 positive divisors.", True),
    (r"So 12 has 6 positive divisors.", False),
    (r"The number of positive divisors of 36 is 9.", False),
    (r"48 has 4 factors of 2.", False),
    (r"So there are 5 divisors of 50.", True),
    (r"So there are 6 divisors of 50.", False),
    (r"There are 3 divisors of 50 that are even.", False),
    (r"Since 25 is divisible by 5, and $x$ is divisible by 25x.", False),
    # ---- inequalities
    (r"This works because \(2 + 4 > 6\).", True),
    (r"Since $2^{10} < 1000$, we need more.", True),
    (r"so $\sqrt{50} \le 7$.", True),
    (r"We have $3 \ge 3 > 4$.", True),
    (r"The largest is 10 (since $11^2 > 120$).", False),
    (r"Since $11^2 = 121 > 120$, we stop.", False),
    (r"$\sqrt{2} \approx 1.414 < 1.5$", False),
    (r"$1.41 < \sqrt{2} < 1.42$", False),
    (r"so $7.07 \ge \sqrt{50}$", False),
    (r"Is $25 < 24$? No.", False),
    (r"The triangle fails because $3 + 4 > 8$ is false.", False),
    (r"We need $3 + 4 > 8$ for a triangle.", False),
    (r"$x - 3 > 5$ gives $x > 8$.", False),
    (r"$2x + 3 < 5$", False),
    (r"$f(2) > 0$ and $x_1 < 3$", False),
    (r"Since $0 < n < 60$, we have $-2 < m < 19$.", False),
    (r"I <3 math. <br> 5 > 3", False),
    (r"$a^{2/1001} \geq 0$", False),
    (r"$10 \gg 1$ and $1 \ll 10$", False),
    (r"$5 \not< 3$", False),
]


@pytest.mark.parametrize("text,flagged", CASES)
def test_table(text, flagged):
    assert bool(check_trace([text], "")) is flagged, [c.detail for _, c in check_trace([text], "")]


def test_details_say_why():
    (_, c), = check_trace([r"Since $4! = 24$ is divisible by 9, we keep it."], "")
    assert c.ok is False and c.equation.source == "claim"
    assert c.detail == "24 is divisible by 9 is false: 24 = 9·2 + 6"
    (_, c), = check_trace([r"so the units digit of $7^{2011}$ is 7."], "")
    assert "is 3" in c.detail
    (_, c), = check_trace([r"So $2^{10} < 1000$."], "")
    assert c.detail == "2^{10} < 1000 is false: 2^{10} = 1024 and 1000"


def test_step_indices_and_bounds():
    steps = ["Nothing here.", "Since 91 is prime, stop.", "x" * 5000 + " 91 is prime.", None]
    assert [i for i, _ in check_trace(steps, "")] == [1]
    assert check_trace([r"the units digit of $7^{99999999}$ is 1"], "") == []  # exponent bound
    assert fact_checks("") == [] and inequality_checks("") == []


def test_never_raises_and_picklable():
    for junk in ["<" * 3000, "$" * 100 + "1 <", "divisible by " * 300, "\\le\\le\\le 1 \\le", "9" * 4000 + " is prime"]:
        check_trace([junk], "")
    assert pickle.loads(pickle.dumps(check_trace)) is check_trace


def test_end_to_end_suspect_step(monkeypatch):
    monkeypatch.setattr(rewards.checks.claims, "CHECKERS", [check_trace])
    from rewards.checks.equations import step_equations

    step_equations.cache_clear()
    try:
        steps = [
            "We count the factorials from 1! to 100! divisible by 9.",
            r"We know that $3! = 6$ is not divisible by 9, but $4! = 24$ is divisible by 9.",
            r"Therefore there are $100 - 4 + 1 = 97$ such factorials.",
        ]
        result = rewards.score_trace("How many of 1!, ..., 100! are divisible by 9?", steps=steps)
        assert result.suspect_step == 1
    finally:
        step_equations.cache_clear()
