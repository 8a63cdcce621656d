"""Model output is untrusted: no completion shape may make the reward slow. Each repetitive shape below (10-32k
characters, the kinds a regex or a parser goes quadratic on) is scored in reward mode within a generous bound; on one
idle core the slowest takes about 1 s (", which is" repeated) and most well under 0.2 s. The scorer splits long text
into bounded steps, so a quadratic scan inside one function can hide here: test it on the function itself (as
tests/rewards/checks/test_connectives.py does for read_connectives)."""

from __future__ import annotations

import time

import pytest

from rewards.scoring.score import RAFSConfig, score_trace

PROBLEM = "Ann has 3 apples and buys 4 bags of 2 apples. How many apples does she have?"
SHAPES = {
    "plus_chain": "1 + " * 3000 + "1 equals 5",
    "dollars": "$" * 20000,
    "frac": "\\frac{" * 3000,
    "parens": "(" * 8000 + ")" * 8000,
    "eq_chain": "1 = " * 5000 + "1",
    "annotations": "<<" * 8000,
    "hashes": "#### 1\n" * 3000,
    "boxes": "\\boxed{1} " * 3000,
    "arrows": "1 → " * 5000 + "1",
    "operator_words": "three plus " * 3000 + "equals 5",
    "clock_times": "7:50 + " * 3000 + "30 minutes",
    "digits": "9" * 30000,
    "lines": "3 + 4 = 7, so 7 apples.\n" * 1300,
    "alternatives": "is 1 or " * 4000 + "2",
    "which_is": "2 * 3, which is " * 2000 + "6",
    "roots": "\\sqrt{" * 3000 + "2" + "}" * 3000,
    "powers": "2^" * 5000 + "2",
    "cdot": "10\\cdot9" * 3000,
    "shares": "1/4 of them, " * 3000,
    "think_tags": "<think>" * 3000 + "1+1=2" + "</think>" * 3000,
}


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_an_adversarial_shape_is_scored_quickly_and_never_raises(name):
    text = SHAPES[name][:32_000]
    start = time.process_time()
    result = score_trace(PROBLEM, text, config=RAFSConfig(missing_evidence="no_support"))
    assert time.process_time() - start < 10.0, name  # generous for slow CI machines
    assert result.reward is None or 0.0 <= result.reward <= 1.0
