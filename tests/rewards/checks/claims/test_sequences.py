"""Sums of sequences, simple statistics and counting notation: false values are refuted, correct and ambiguous
writing is left alone."""

import pickle
import time

import pytest

import rewards.checks.claims
from rewards import score_trace
from rewards.checks.equations import step_equations
from rewards.checks.claims.sequences import check_trace

TABLE = [
    # ellipsis sums: arithmetic, geometric (powers, fractions), infinite geometric
    (r"So $1 + 2 + 3 + \cdots + 100 = 5000$.", True),
    (r"So $1 + 2 + 3 + \cdots + 100 = 5050$.", False),
    ("1 + 3 + 5 + ... + 99 = 2400", True),
    ("1 + 3 + 5 + ... + 99 = 2500", False),
    (r"\[ 2^0 + 2^1 + 2^2 + \cdots + 2^8 = 512 \]", True),
    (r"\[ 2^0 + 2^1 + 2^2 + \cdots + 2^8 = 511 \]", False),
    (r"$2 + 4 + 6 + \dots + 50 = 600$", True),
    (r"$2 + 4 + 6 + \dots + 50 = 650$", False),
    (r"$\frac{1}{2} + \frac{1}{4} + \frac{1}{8} + \cdots = 2$", True),
    (r"$\frac{1}{2} + \frac{1}{4} + \frac{1}{8} + \cdots = 1$", False),
    (r"$3(1 + 2 + 3 + \cdots + 10) = 160$", True),
    (r"$3(1 + 2 + 3 + \cdots + 10) = 165$", False),
    # no progression, letters, alternating signs, glued products, trailing terms, two terms only: left alone
    (r"$1^2 + 2^2 + 3^2 + \cdots + 10^2 = 300$", False),
    (r"$1 + 2 + 3 + \cdots + n = 50$", False),
    (r"$1 - 2 + 3 - \cdots + 99 = 7$", False),
    (r"$2 \cdot 1 + 2 + 3 + \cdots + 10 = 3$", False),
    (r"$1 + 2 + 3 + \cdots + 10 + 11 = 3$", False),
    (r"$1 + 2 + 4 + \cdots + 100 = 3$", False),
    (r"$1 + 2 + \cdots + 10 = 3$", False),
    (r"$(1+2+3+\cdots+8)^2 = 1296$", False),
    # \sum with numeric bounds
    (r"$\sum_{k=1}^{10} k^2 = 380$", True),
    (r"$\sum_{k=1}^{10} k^2 = 385$", False),
    (r"$\sum_{k=0}^{5} 2^k = 64$", True),
    (r"$\sum_{k=0}^{5} 2^k = 63$", False),
    (r"$\sum_{k=1}^{10} (2k+1) = 120$", False),
    (r"$\sum_{k=1}^{10} k + 5 = 3$", False),  # summand of several terms: ambiguous
    (r"$\sum_{i=1}^4 x_i = 4$", False),
    # counting notation
    ("C(9, 7) = (9 * 8 * 7 * 6 * 5 * 4) / (7 * 6 * 5 * 4 * 3 * 2 * 1) = 36 ways.", True),
    ("C(9, 2) = (9 * 8) / (2 * 1) = 36 ways.", False),
    (r"\[C(52, 5) = 54,145\]", True),
    (r"\[C(52, 5) = 2,598,960\]", False),
    (r"${}^5P_2 = 10$", True),
    (r"${}_{6}P_{2} = 30$", False),
    (r"${}_5C_2 = 20$", True),
    (r"${}_5C_2 = 10$", False),
    ("The vertices are A(0, 0), B(4, 0) and C(5, 2), and C(5, 2) = 7.", False),  # a point, not a count
    # statistics in words
    ("The mean of 3, 5 and 10 is 7.", True),
    ("The mean of 3, 5 and 10 is 6.", False),
    (r"Therefore, the average of the integers \(71, 72, 73, 74, 75\) is \(\boxed{74}\).", True),
    (r"Therefore, the average of the integers \(71, 72, 73, 74, 75\) is \(\boxed{73}\).", False),
    (r"the mean of \(\frac{1}{2}\) and \(\frac{7}{8}\) is \(\boxed{\frac{11}{16}}\).", False),
    ("The median of 1, 3, 8 and 10 is 5.", True),
    ("The median of 1, 3, 8 and 10 is 5.5.", False),
    ("The mode of 1, 2, 2, 3 is 3.", True),
    ("The mode of 1, 2, 2, 3 is 2.", False),
    ("The mode of 1, 2, 3 is 3.", False),  # no repeated value: no mode to compare
    ("The average of 1, 2 and 2 is 1.67.", False),  # rounded to the written digits
    ("The average of 1, 2 and 2 is 1.5.", True),
    ("The new mean of 80 and 90 is 80.", False),  # hedged/qualified
    ("If the mean of 2 and 4 is 5, then ...", False),
    ("The arithmetic mean of x and y is 7.", False),
    ("The mean of 5 numbers is 10.", False),
]


@pytest.mark.parametrize("text,flagged", TABLE)
def test_table(text, flagged):
    assert bool(check_trace([text])) is flagged


def test_detail_says_the_value():
    (k, check), = check_trace(["Nothing.", r"So $1 + 2 + 3 + \cdots + 100 = 5000$."])
    assert k == 1 and check.ok is False
    assert check.detail == r"1 + 2 + 3 + \cdots + 100 sums to 5050 (an arithmetic progression of 100 terms), not 5000"


@pytest.mark.parametrize("junk", [None, 42, "", "+" * 5000, "1 + " * 999 + r"\cdots", "the mean of" + " " * 3990,
                                  "C(9999, 5000) = 3 " * 200, r"$\sum_{k=1}^{99999} k = 5$",
                                  r"1 + 2 + 4 + \cdots + " + "9" * 12 + " = 3"])
def test_odd_input_never_raises(junk):
    start = time.process_time()
    assert check_trace([junk]) == []
    assert time.process_time() - start < 2.0
    assert [k for k, _ in check_trace([junk, "The mean of 3, 5 and 10 is 7."])] == [1]


def test_sigma_work_is_bounded_per_step():
    step = " ".join(f"$\\sum_{{k=1}}^{{{9000 + i}}} k^2 = 5$" for i in range(100))[:4000]
    start = time.process_time()
    check_trace([step])
    assert time.process_time() - start < 2.0


def test_picklable():
    assert pickle.loads(pickle.dumps(check_trace)) is check_trace


def test_end_to_end_suspect_step(monkeypatch):
    monkeypatch.setattr(rewards.checks.claims, "CHECKERS", [check_trace])
    step_equations.cache_clear()
    problem = "Find the sum of the odd numbers from 1 to 99."
    steps = ["The odd numbers from 1 to 99 form an arithmetic sequence.",
             "Their sum is $1 + 3 + 5 + \\cdots + 99 = 2400$.", "So the answer is $\\boxed{2400}$."]
    assert score_trace(problem, steps=steps).suspect_step == 1
    monkeypatch.setattr(rewards.checks.claims, "CHECKERS", [])
    step_equations.cache_clear()
    assert score_trace(problem, steps=steps).suspect_step is None
