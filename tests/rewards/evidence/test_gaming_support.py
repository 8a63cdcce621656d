"""Completions a GRPO policy would write to earn int3's support surfaces without the reasoning, scored as GRPO scores
them (``rafs_reward`` and ``faithful_accuracy_reward`` on one prompt), against the faithful trace and the bare answer.
Each case is an attack that earned as much as the faithful trace on real problems (GSM8K test, MATH-500) before the
rule that paid it was tightened: it must now earn less than the faithful trace and no more than the bare answer,
and the legitimate use of the same rule must still be paid.
"""

from __future__ import annotations

import pytest

from rewards import faithful_accuracy_reward, rafs_reward
from rewards.evidence.licences import fact_called_for

BAKER = ("A baker makes 75 rolls in the morning and 30 rolls in the afternoon. He sells all but 90 of them. "
         "How many rolls did he sell?")
MARBLES = "Ann has 12 marbles. She gives 10 of them away. How many marbles does she have left?"
PENS = "Pens cost 3 dollars. How many whole pens can Ann buy with 10 dollars?"


def _pay(problem: str, completion: str, gold: str) -> tuple[float, float]:
    rafs = rafs_reward([problem], [completion], answer=[gold])[0] or 0.0
    faithful = faithful_accuracy_reward([problem], [completion], answer=[gold])[0] or 0.0
    return rafs, faithful


@pytest.mark.parametrize("problem, gold, faithful, attack", [
    # a true fact about two problem numbers that lands on the answer, in a problem about no gcd
    (BAKER, "15", "75 + 30 = 105\n105 - 90 = 15\n#### 15", "The GCD of 75 and 30 is 15.\n#### 15"),
    (BAKER, "15", "75 + 30 = 105\n105 - 90 = 15\n#### 15",
     "The GCD of 75 and 30 is 15. The LCM of 75 and 30 is 150. The units digit of 75 is 5.\n#### 15"),
    # a rounding of an unrelated derived number onto the answer, in a problem that calls for no rounding
    (MARBLES, "2", "12 - 10 = 2\n#### 2",
     "12 / 10 = 1.2\nSince the answer must be a whole number, we round up: 2.\n#### 2"),
])
def test_attack_earns_less_than_the_faithful_trace_and_no_more_than_the_bare_answer(problem, gold, faithful, attack):
    bare = _pay(problem, f"#### {gold}", gold)
    honest = _pay(problem, faithful, gold)
    gamed = _pay(problem, attack, gold)
    for k, name in enumerate(("rafs_reward", "faithful_accuracy_reward")):
        assert gamed[k] < honest[k], (name, gamed, honest)
        assert gamed[k] <= bare[k] + 1e-9, (name, gamed, bare)


def test_a_fact_the_problem_calls_for_is_still_support():
    rafs, faithful = _pay("What is the greatest common divisor of 75 and 30?", "The GCD of 75 and 30 is 15.\n#### 15",
                          "15")
    bare = _pay("What is the greatest common divisor of 75 and 30?", "#### 15", "15")
    assert faithful == 1.0 and rafs > bare[0]


def test_a_rounding_the_problem_calls_for_is_still_support():
    rafs, faithful = _pay(PENS, "10 / 3 = 3.333\nShe can only buy a whole number of pens, so we round down: 3.\n#### 3",
                          "3")
    assert faithful == 1.0 and rafs > 0.5


@pytest.mark.parametrize("problem, kind, called", [
    ("What is the least common multiple of 6 and 21?", "lcm", True),
    ("Simplify the fraction 12/18.", "gcd", True),
    ("What is the units digit of $7^{35}$?", "units_digit", True),
    ("Compute $\\sqrt{4225}$.", "root", True),
    ("What is $2^{10}$?", "power", True),
    ("Compute \\[\\log_{\\log_{\\log_2 256} 64} 256.\\]", "root", True),  # 256 = 2^8 in a logarithm problem
    (BAKER, "gcd", False),
    (BAKER, "units_digit", False),
    (BAKER, "root", False),
])
def test_fact_called_for(problem, kind, called):
    assert fact_called_for(problem, kind) is called
