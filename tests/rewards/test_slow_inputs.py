"""No completion may make RAFS scoring slow: one slow completion stalls a whole GRPO step for every GPU.

Found by the round-2 time audit (a composition fuzzer over ``score_trace`` plus adversarial structures): a final
answer that sympy blows up when math-verify compares it with the gold answer. ``20!!`` is read as ``(20!)!`` and
``(x+y+z+w+1)^{10}`` is expanded as a multinomial; before the fix each ran into math-verify's 3 s timeout on the
main thread (about 1.5-3 s of process time, depending on load) and ran on without any timeout off it (TRL's async
rewards). :func:`rewards.checks.answers.sympy_safe` now refuses repeated factorials and bracketed sums of variables
that multiply out to more than ``MAX_MONOMIALS`` = 64 terms (a count bound, not a clock), so such an answer is
compared as a string; no GSM8K, MATH-500 or ProcessBench final or gold answer changes (3 of 59,902 answers, boxed
contents, inline-math segments and lines are newly refused, each a whole sentence or display line, not an answer).
Each case now takes a few milliseconds.
"""

from __future__ import annotations

import threading
import time

import pytest

from rewards import get_reward_funcs
from rewards.checks.answers import answers_equivalent, sympy_safe
from rewards.scoring.score import RAFSConfig, score_trace

PROBLEM = "Ann has 3 apples and buys 4 bags of 2 apples. How many apples does she have?"
CONFIG = RAFSConfig(missing_evidence="no_support")
BOUND = 1.0  # seconds of process time; each case now takes a few milliseconds

SLOW_ANSWERS = {  # answer: what the unfixed code took through score_trace with gold="11" (process s, 3 s wall)
    "repeated factorial": "20!!",  # 1.5 s
    "double factorial": "99!!",  # 1.5 s
    "multinomial power": "(x+y+z+w+1)^{10}",  # 1.6 s
    "binomial power": "(x+y+1)^{99}",  # 1.5 s
    "bracketed power": "\\left[x+y+1\\right]^{99}",  # 0.8 s (3 s wall)
    "braced power": "{(x+y+1)}^{99}",  # 1.6 s
    "one-digit power of a long sum": "(x+y+z+w+v+1)^{8}",  # 0.8 s (3 s wall)
    # 2.4 s:
    "product of 16 binomials": "(a+b)(c+d)(e+f)(g+h)(i+j)(k+l)(m+n)(o+p)(q+r)(s+t)(u+v)(w+x)(y+z)(a+c)(b+d)(e+g)",
}


@pytest.fixture(scope="module", autouse=True)
def _warm():
    # the first symbolic answer imports math-verify and sympy (about 1-2 s): keep that out of the timed calls
    score_trace(PROBLEM, _completion("x+1"), gold="11", config=CONFIG)


def _completion(answer: str) -> str:
    return f"4 * 2 = 8 apples.\n3 + 8 = 11 apples.\nThe answer is $\\boxed{{{answer}}}$."


def _seconds(fn, *args, **kwargs) -> float:
    start = time.process_time()
    fn(*args, **kwargs)
    return time.process_time() - start


@pytest.mark.parametrize("name", sorted(SLOW_ANSWERS))
def test_an_answer_sympy_would_blow_up_is_graded_quickly(name):
    answer = SLOW_ANSWERS[name]
    assert not sympy_safe(answer)
    took = _seconds(score_trace, PROBLEM, _completion(answer), gold="11", config=CONFIG)
    assert took < BOUND, (name, took)
    result = score_trace(PROBLEM, _completion(answer), gold="11", config=CONFIG)
    assert result.answer == answer and result.correct is False


def test_the_trl_reward_grades_them_quickly_and_as_wrong():
    reward = get_reward_funcs(["rafs"])[0]
    answers = list(SLOW_ANSWERS.values())
    start = time.process_time()
    values = reward([PROBLEM] * len(answers), [[{"role": "assistant", "content": _completion(a)}] for a in answers],
                    answer=["11"] * len(answers))
    assert time.process_time() - start < BOUND
    right = reward([PROBLEM], [[{"role": "assistant", "content": _completion("11")}]], answer=["11"])
    assert len(values) == len(answers) and all(v is not None and v < right[0] for v in values)


def test_off_the_main_thread_they_finish_too():
    # off the main thread math-verify has no timeout: only the input bounds stop the work
    done = []
    worker = threading.Thread(target=lambda: done.append(score_trace(PROBLEM, _completion("20!!"), gold="11",
                                                                     config=CONFIG)), daemon=True)
    worker.start()
    worker.join(10)
    assert done, "score_trace still running after 10 s off the main thread"


def test_small_powers_and_factorials_still_go_to_math_verify():
    assert sympy_safe("(x+1)^{2}") and sympy_safe("5!") and sympy_safe("\\left(\\frac{1}{2}\\right)^{10}")
    assert sympy_safe("(x+y)^{5}") and sympy_safe("(x-1)(x+2)(x-3)") and sympy_safe("\\sum_{h=1}^{12} h")
    assert sympy_safe("(a+b)(c+d)(e+f)(g+h)(i+j)(k+l)") and sympy_safe("(x+1)^{63}")  # 64 terms each
    assert not sympy_safe("(a+b)(c+d)(e+f)(g+h)(i+j)(k+l)(m+n)") and not sympy_safe("(x+1)^{64}")  # 128, 65
    assert answers_equivalent("(x+1)^{2}", "x^2+2x+1")
    assert answers_equivalent("5!", "120")


def test_a_huge_exact_value_is_displayed_without_overflow():
    """``$6,871 ^ 250 \\times 515.15`` is exact with a terminating denominator, but past float's range: reports show
    it as p/q instead of raising OverflowError (which left the whole equation unchecked)."""
    from fractions import Fraction

    from rewards.checks.arithmetic.values import Value, display_value

    q = Fraction(6871) ** 250 * Fraction(10303, 20)
    shown = display_value(Value(q, float("inf"), True))
    assert Fraction(shown) == q
    assert display_value(Value(Fraction(1030, 100), 10.3, True)) == "10.3"
