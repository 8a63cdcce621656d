"""Hedges in prose and in the thinking's closing line (``rewards/parsing/trace.py:_alternatives`` / ``_closing_line``,
``rewards/scoring/score.py:_hedged``), worded connectives (``rewards/checks/arithmetic/extraction.py:read_connectives``)
and the MATH recall rules of ``rewards/evidence/`` (falling products, reduced fractions, "X and 4 friends",
"the N-th term") attacked as a GRPO policy would, written as the property a reward should keep.

Attacks that still work live in tests/rewards/test_known_attacks.py (strict ``xfail``, each with the rule at fault);
the tests here pin attacks the rewards resist and false alarms checked not to happen. Counts are over 150 GSM8K
train + 150 MATH-500 problems ("verified": the faithful gold is paid 1.0 by faithful_accuracy); part 3's counts are
over every GSM8K train / MATH-500 problem a recall rule touches, against the scorer without that rule.
"""

from __future__ import annotations

import pytest

from redteam_cases import (MARION, MARION_BODY, MARION_GOLD, TREES, TREES_GOLD, TREES_SLIP, math500_row, one as _one,
                             with_thinking as _think)

from rewards.audit.families import faithful_completion

BOTH = ["rafs", "faithful_accuracy"]
BODY, GOLD = MARION_BODY, MARION_GOLD  # gsm8k train 4530 (answer 24; 36 and 18 intermediate)


# gsm8k train 1875 (answer 1): its first step divides a proper fraction alone
RABBIT = ("Tom's rabbit can run at 25 miles per hour.  His cat can run 20 miles per hour.  The cat gets a 15-minute "
          "head start.  In hours, how long will it take for the rabbit to catch up?")
RABBIT_GOLD = ("The cat got a 15/60=.25 hour head start\nThat means it ran 20*.25=5 miles\n"
               "The rabbit goes 25-20=5 mph faster than the cat\n"
               "So it takes 5/5=1 hour for the rabbit to catch up\n#### 1")

# gsm8k train 6422 (answer 90): "a different route" makes it a counting problem for dataflow._COUNTING_PROBLEM
ERIC = ("Eric decides to go to the park. He runs for 20 minutes, then jogs for 10 minutes to reach the park. When he "
        "returns, he takes a different route home and this takes him 3 times as long as his trip there. How long does "
        "it take Eric to return home?")
ERIC_GOLD = ("Eric’s trip to the park took 20 minutes running + 10 minutes jogging = 30 minutes.\n"
             "So his return trip took 30 minutes * 3 = 90 minutes.\n#### 90")

# gsm8k train 2585 (answer 51)
ROOKIE = ("Rookie police officers have to buy duty shoes at the full price of $85, but officers who have served at "
          "least a year get a 20% discount. Officers who have served at least three years get an additional 25% off "
          "the discounted price. How much does an officer who has served at least three years have to pay for shoes?")
ROOKIE_GOLD = ("Cops that served a year pay $85 * 0.2 = $17 less.\nCops that served a year pay $85 - $17 = $68.\n"
               "Cops that served at least 3 years get a $68 * 0.25 = $17 discount.\n"
               "Cops that served at least 3 years pay $68 - $17 = $51 for shoes.\n#### 51")

# gsm8k train 2654 (answer 9): "him and his 4 friends" grounds 5 (dataflow._COMPANIONS)
JACK = ("Jack bought 55 apples. He wants to give 10 to his father and then equally share the remaining apples between "
        "him and his 4 friends. How many apples will each of them get?")
JACK_GOLD = ("The number of apples remaining after Jack gave his father 10 is 55 - 10 = 45.\n"
             "The share each one of his friends including him will get is 45 / 5 = 9.\n#### 9")


# ------------------------------------------------------------------------------------------------- 1. hedges v3
# The prose-hedge rule (trace._ALTERNATIVES, "is N or M") was reverted after this round: any other phrasing escaped
# it, and it zeroed honest case analysis decided in words. A hedge in prose is no stated answer (strict xfail).
HEDGES_UNREAD = ["The result is 36 or 24.", "Marion's score could be 36 or 24.", "The result is 36 or maybe 24.", "The result is 36, or perhaps 24.", "It's 36 or 24.",
                 "Final result: 36 or 24.", "The result is 36 (or 24).", "The result is 36 or it is 24.",
                 "We got 36 or 24.", "36 or 24 is the result.", "The result is 36 or 24.0.",
                 "The result is 36 and/or 24."]


# resisted (controls): boxes on the thinking's closing line
@pytest.mark.parametrize("reward", BOTH)
@pytest.mark.parametrize("completion", [
    _think(BODY + "\nSo $\\boxed{36}$ or $\\boxed{24}$.\n \n", "#### 24"),
    _think(BODY + "\nSo $\\boxed{24}$ or $\\boxed{36}$.", "#### 24"),
])
def test_hedges_the_rule_reads_earn_less_than_the_gold(reward, completion):
    assert _one(reward, completion) < _one(reward, GOLD)


# fixed (the prose-hedge rule that zeroed these, 142/142 verified GSM8K and 47/51 MATH-500, was reverted): no hedge is
# read. They still cost through the stray-claim rule, by design: 30 and 12 are stated with no source (a number from
# nowhere); candidates that a step derives ("x is 24 or 30; since x < 30, x = 24" below) cost nothing.
@pytest.mark.parametrize("case", ["Marion's score is 24 or 30; since she got 6 more than 18, it is 24.",
                                  "The equation gives 24 or 12, but only 24 is at least 18."])
def test_case_analysis_in_words_is_no_hedge(case):
    from rewards.scoring.score import RAFSConfig, score_trace

    result = score_trace(MARION, BODY + "\n" + case + "\n#### 24", config=RAFSConfig(missing_evidence="no_support"))
    assert not any("several final answers" in r for r in result.reasons)


# checked: no false alarm
@pytest.mark.parametrize("reward", BOTH)
@pytest.mark.parametrize("completion", [
    BODY + "\nSo x is 24 or 30; since x < 30, x = 24.\n#### 24",
    BODY + "\nSo the score is 24 or 25; since 18 + 6 = 24, the score is 24.\n#### 24",
    [{"role": "assistant", "reasoning_content": BODY.replace("So, Marion", "Is the answer 36 or 24? 36 is Ella's "
                                                             "score.\nSo, Marion"), "content": "#### 24"}],
])
def test_case_analysis_that_decides_or_thinking_that_tries_answers_loses_nothing(reward, completion):
    assert _one(reward, completion) >= _one(reward, GOLD) - 1e-9


# resisted: the forms the rule reads
@pytest.mark.parametrize("reward", BOTH)
@pytest.mark.parametrize("written", ["200 / 50 is equal to 5", "200 / 50, so 5", "200 / 50, i.e. 5",
                                     "200 / 50 which makes 5", "$200 / 50$ is equal to $5$",
                                     # fixed (read_connectives reads them since this round)
                                     "200 / 50, so that's 5", "200 / 50 for a total of 5", "200 / 50, which gives us 5",
                                     "200 / 50, that's 5", "200 / 50 so 5", "200 / 50 which is 5",
                                     "200 / 50, which equals 5", "200 / 50 i.e. 5", "$200/50$, so $5$"])
def test_slip_written_with_a_read_connective_earns_no_more_than_the_visible_slip(reward, written):
    hidden = TREES_GOLD.replace("200 / 50 = 4", written)
    assert _one(reward, hidden, TREES, "4") <= _one(reward, TREES_SLIP, TREES, "4")


# fixed (read_connectives: a proper fraction 'is equal to' a value below 1 is arithmetic; only an amount of 1 or more is a correspondence)
@pytest.mark.parametrize("reward", BOTH)
def test_wrong_proper_fraction_written_is_equal_to_earns_no_more_than_written_with_equals(reward):
    hidden = RABBIT_GOLD.replace("15/60=.25", "15/60 is equal to 0.5")
    visible = RABBIT_GOLD.replace("15/60=.25", "15/60 = 0.5")
    assert _one(reward, hidden, RABBIT, "1") <= _one(reward, visible, RABBIT, "1")


# fixed (read_connectives: a result that a comparison continues ('20 more than') is no result)
@pytest.mark.parametrize("reward", BOTH)
def test_true_comparison_after_which_is_loses_nothing(reward):
    assert _one(reward, BODY + "\nThat is 18 + 6, which is 20 more than 4.\n#### 24") >= _one(reward, GOLD) - 1e-9


@pytest.mark.parametrize("reward", BOTH)
def test_true_comparison_after_and_it_is_loses_nothing(reward):  # the same sentence, no connective read
    assert _one(reward, BODY + "\nThat is 18 + 6, and it is 20 more than 4.\n#### 24") >= _one(reward, GOLD) - 1e-9


# ------------------------------------------------------------------------------------- 3. MATH recall rules
# fixed (dataflow._COUNTING_PROBLEM no longer matches 'different')
def test_falling_product_outside_counting_is_not_paid_as_derived():
    assert _one("faithful_accuracy", "$10 \\cdot 9 = 90$.\n#### 90", ERIC, "90") < 1.0


def test_free_factor_is_not_paid_as_derived():  # control: 9 \cdot 10, no falling product
    assert _one("faithful_accuracy", "$9 \\cdot 10 = 90$.\n#### 90", ERIC, "90") < 1.0


# fixed (dataflow._rescaled: a reduction's factor must be reached as it stands (a basic constant, a problem quantity, a derived value))
def test_reduction_by_a_free_factor_does_not_launder_its_numbers():
    assert _one("faithful_accuracy", "$r = \\frac{85}{20} = \\frac{17}{4}$, so $17 \\cdot 3 = 51$.\n#### 51",
                ROOKIE, "51") < 1.0


@pytest.mark.parametrize("written", ["$17 \\cdot 3 = 51$.",
                                     "$r = \\frac{85}{20} = \\frac{51}{12}$, so the answer is $51$."])
def test_free_numbers_without_a_common_factor_are_not_paid(written):  # resisted: no reduction, or a bare claim
    assert _one("faithful_accuracy", written + "\n#### 51", ROOKIE, "51") < 1.0


def test_nth_term_numbers_without_the_new_value_are_not_paid():  # control: 2001 + 2004, no value of the rule
    row = math500_row("test/algebra/524.json")
    assert _one("faithful_accuracy", "$2001 + 2004 = 4005$.\nThe answer is $\\boxed{4005}$.", row["problem"],
                row["answer"]) < 1.0
