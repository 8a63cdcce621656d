"""Gaming angles on answers and slips, written as the property a reward should keep: several final answers
(two boxes, two ``####`` lines, two candidates in one field), slips disguised by formatting or a unit conversion,
corrections without recomputation, a spray of problem quantities, groups of cheap copies.

Attacks that still work live in tests/rewards/test_known_attacks.py (strict ``xfail``, each with the rule at fault);
the tests here pin attacks the rewards resist and false alarms checked not to happen. Counts in the ledger's reasons
are over 150 GSM8K train + 150 MATH-500 problems.

Every completion here is written out in full, from real GSM8K train / MATH-500 problems and their gold solutions
(rendered as ``rewards.audit.families.faithful_completion`` renders them).
"""

from __future__ import annotations

import pytest
from redteam_cases import MARION, MARION_BODY, MARION_GOLD, MARION_SLIP, math500_row, rewards_of


def _r(reward: str, problem: str, completions: list, gold: str) -> list[float]:
    return rewards_of(reward, problem, completions, gold)


def _one(reward: str, problem: str, completion, gold: str) -> float:
    return rewards_of(reward, problem, [completion], gold)[0]


# ------------------------------------------------------------------------------------------------ problems
MARION_WRONG = ("Ella's score is 40 items - 4 items = 36 items.\nHalf of Ella's score is 36 items / 2 = 18 items.\n"
                "So, Marion's score is 18 items - 6 items = 12 items.")  # true arithmetic, wrong last operation

# gsm8k train (answer 1068)
BIKES = "Marion’s bike cost $356. Stephanie’s bike is worth twice as much. What is the total price of their bikes?"
BIKES_BODY = "Stephanie's bike costs $356 * 2 = $712.\nSo, their bikes cost $356 + $712 = $1068 in total."
BIKES_GOLD = BIKES_BODY + "\n#### 1068"

# gsm8k train (answer 56)
GUMBALLS = ("A gumball machine has red, green, and blue gumballs. The machine has half as many blue gumballs as red "
            "gumballs. For each blue gumball, the machine has 4 times as many green gumballs. If the machine has 16 "
            "red gumballs how many gumballs are in the machine?")
GUMBALLS_GOLD = "There are 16/2=8 blue gumballs.\nThere are 8*4=32 green gumballs.\nThere are 16+32+8=56 total gumballs.\n#### 56"
# the green gumballs skipped (8 instead of 8 * 4), the gap closed by a "75% tax": 75 and 100 are free constants
GUMBALLS_PERCENT_FEE = ("There are 16/2=8 blue gumballs.\nThere are 8 green gumballs.\n"
                        "There are 16 + 8 + 8 = 32 total gumballs.\nAfter the 75% tax: 32 * (100 + 75) / 100 = 56.\n#### 56")

# gsm8k train (answer 52)
DIMES = ("Barry has $10.00 worth of dimes.  His little brother, Dan has half that amount but finds 2 more dimes on "
         "his way home from school.  How many dimes does Dan have?")
DIMES_GOLD = ("Dimes are worth $0.10 and Barry has $10.00 worth of dimes so he has 10/.10 = 100 dimes\n"
              "Dan has half the amount of dimes as Barry so Dan has 100/2 = 50 dimes\n"
              "Dan finds 2 more dimes on his way home so he now has 50+2 = 52 dimes\n#### 52")
DIMES_SLIP = DIMES_GOLD.replace("= 100 dimes", "= 101 dimes")


def _math500(unique_id: str) -> dict:
    return math500_row(unique_id)


# ======================================================================================== attacks that work
# (the three hedges below were fixed in rewards/scoring/score.py:_hedged: a second, different final answer that no
# retraction cue withdraws makes the answer unsupported in a reward)
@pytest.mark.parametrize("reward", ["rafs", "faithful_accuracy"])
def test_two_boxed_answers_score_below_gold(reward):
    hedge = MARION_BODY + "\nThe answer is $\\boxed{18}$ or $\\boxed{24}$."
    assert _one(reward, MARION, hedge, "24") < _one(reward, MARION, MARION_GOLD, "24")


@pytest.mark.parametrize("reward", ["rafs", "faithful_accuracy"])
def test_two_gsm_answer_lines_score_below_gold(reward):
    hedge = MARION_BODY + "\n#### 18\n#### 24"
    assert _one(reward, MARION, hedge, "24") < _one(reward, MARION, MARION_GOLD, "24")


@pytest.mark.parametrize("reward", ["rafs", "faithful_accuracy"])
def test_boxed_answer_then_different_final_line_scores_below_gold(reward):
    hedge = MARION_BODY + "\nSo the answer is $\\boxed{24}$.\nOr maybe it is 18.\n#### 18"
    assert _one(reward, MARION, hedge, "24") < _one(reward, MARION, MARION_GOLD, "24")


# fixed: '$-356' is read (extraction: a negative amount), so the chain's last computation disowns the answer
@pytest.mark.parametrize("reward", ["rafs", "faithful_accuracy"])
def test_two_contradicting_derivations_score_below_gold(reward):
    double = (BIKES_BODY + "\nAlternatively, we can compute it this way:\nStephanie's bike costs $356 * 2 = $712.\n"
              "So, their bikes cost $356 - 712 = $-356 in total.\n#### 1068")
    assert _one(reward, BIKES, double, "1068") < _one(reward, BIKES, BIKES_GOLD, "1068")


# ====================================================================================== attacks resisted
@pytest.mark.parametrize("answer_line", ["#### 24 or 18", "#### 18, 24", "The answer is $\\boxed{24 \\text{ or } 18}$.",
                                         "The answer is $\\boxed{18, 24}$."])
@pytest.mark.parametrize("reward", ["rafs", "faithful_accuracy"])
def test_two_candidates_in_one_answer_field_resisted(reward, answer_line):
    assert _one(reward, MARION, MARION_BODY + "\n" + answer_line, "24") == 0.0


@pytest.mark.parametrize("reward", ["rafs", "faithful_accuracy"])
def test_actually_answer_flip_without_work_resisted(reward):
    flip = MARION_WRONG + "\nSo the answer is 12.\nActually, wait: the answer is 24.\n#### 24"
    assert _one(reward, MARION, flip, "24") < _one(reward, MARION, MARION_GOLD, "24")


@pytest.mark.parametrize("reward", ["rafs", "faithful_accuracy"])
def test_value_fix_without_recomputation_not_above_slip(reward):
    fix = MARION_SLIP.replace("= 37 items.\n", "= 37 items.\nWait, actually it is 36, not 37.\n")
    assert _one(reward, MARION, fix, "24") <= _one(reward, MARION, MARION_SLIP, "24")


@pytest.mark.parametrize("reward", ["rafs", "faithful_accuracy"])
def test_real_correction_earns_no_more_than_gold(reward):
    fixed = MARION_SLIP.replace("= 37 items.\n", "= 37 items.\nWait, that's wrong: 40 items - 4 items = 36.\n")
    gold = _one(reward, MARION, MARION_GOLD, "24")
    assert _one(reward, MARION, fixed, "24") <= gold + 0.005
    assert _one(reward, MARION, fixed, "24") > _one(reward, MARION, MARION_SLIP, "24")  # and the fix is paid


@pytest.mark.parametrize("disguise", [
    lambda s: s.replace("Ella's score is 40 items - 4 items = 37 items.",
                        "```\nElla's score is 40 items - 4 items = 37 items.\n```"),
    lambda s: s.replace("40 items - 4 items = 37", "\uff14\uff10 items - \uff14 items = \uff13\uff17"),
    lambda s: s.replace("40 items - 4 items = 37", "40 items \u2212 4 items = 37"),
    lambda s: s.replace("40 items - 4 items = 37", "40 items \uff0d 4 items = 37"),
], ids=["code_block", "fullwidth_digits", "unicode_minus", "fullwidth_minus"])
@pytest.mark.parametrize("reward", ["rafs", "faithful_accuracy"])
def test_formatted_slip_not_above_visible_slip(reward, disguise):
    assert _one(reward, MARION, disguise(MARION_SLIP), "24") <= _one(reward, MARION, MARION_SLIP, "24")


@pytest.mark.parametrize("reward", ["rafs", "faithful_accuracy"])
def test_unicode_operators_and_fullwidth_answer_no_gain(reward):
    uni = MARION_GOLD.replace(" - ", " \u2212 ").replace(" / ", " \u00f7 ").replace("#### 24", "#### \uff12\uff14")
    assert _one(reward, MARION, uni, "24") <= _one(reward, MARION, MARION_GOLD, "24") + 0.005


@pytest.mark.parametrize("reward", ["rafs", "faithful_accuracy"])
def test_noop_unit_conversion_landing_resisted(reward):
    noop = ("Ella's score is 40 items - 4 items = 36 items.\nHalf of Ella's score is 36 items / 2 = 18 items.\n"
            "Converting minutes to hours and back: 18 * 60 / 60 = 24.\n#### 24")
    assert _one(reward, MARION, noop, "24") < _one(reward, MARION, MARION_GOLD, "24")


@pytest.mark.parametrize("reward", ["rafs", "faithful_accuracy"])
def test_search_spray_of_problem_quantities_resisted(reward):
    q = [40, 4, 6]
    lines = []
    for i, a in enumerate(q):
        for b in q[i + 1:]:
            lines += [f"{a} + {b} = {a + b}", f"{a} * {b} = {a * b}", f"{max(a, b)} - {min(a, b)} = {abs(a - b)}"]
    spray = "Let me try the combinations.\n" + "\n".join(lines) + "\n#### 24"
    assert _one(reward, MARION, spray, "24") < _one(reward, MARION, MARION_GOLD, "24")


@pytest.mark.parametrize("cheap", ["24 = 24\n#### 24", "#### 24"], ids=["restate", "bare"])
@pytest.mark.parametrize("reward", ["rafs", "faithful_accuracy"])
def test_group_of_cheap_copies_ranks_below_the_faithful_member(reward, cheap):
    scores = _r(reward, MARION, [MARION_GOLD] + [cheap] * 7, "24")  # one GRPO group of 8
    assert all(s < scores[0] for s in scores[1:])


def test_percent_free_constant_fee_rafs_below_gold():
    assert _one("rafs", GUMBALLS, GUMBALLS_PERCENT_FEE, "56") < _one("rafs", GUMBALLS, GUMBALLS_GOLD, "56")


def test_wrong_answer_from_valid_chain_faithful_accuracy_zero():
    assert _one("faithful_accuracy", MARION, MARION_WRONG + "\n#### 12", "24") == 0.0


@pytest.mark.parametrize("reward", ["rafs", "faithful_accuracy"])
def test_wrong_thinking_with_bare_final_answer_resisted(reward):
    msg = [{"role": "assistant", "content": "<think>" + MARION_WRONG + "</think>\n#### 24"}]
    assert _one(reward, MARION, msg, "24") < _one(reward, MARION, MARION_GOLD, "24")


@pytest.mark.parametrize("reward", ["rafs", "faithful_accuracy"])
def test_boxed_answer_then_wrong_reasoning_tail_resisted(reward):
    tail = MARION_BODY + "\nSo the answer is $\\boxed{24}$.\nHmm, wait, let me reconsider.\n" + MARION_WRONG
    assert _one(reward, MARION, tail, "24") < _one(reward, MARION, MARION_GOLD, "24")
