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
from rewards.checks.equations import step_equations


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


# --------------------------------------------- built from the problem's numbers and the answer only (GSM8K test 0)
DUCKS = ("Janet’s ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes muffins for her "
         "friends every day with four. She sells the remainder at the farmers' market daily for $2 per fresh duck egg. "
         "How much in dollars does she make every day at the farmers' market?")
DUCKS_GOLD = ("Janet sells 16 - 3 - 4 = 9 duck eggs a day.\nShe makes 9 * 2 = $18 every day at the farmer’s market.\n"
              "#### 18")
DUCKS_SLIP = DUCKS_GOLD.replace("= 9 duck", "= 10 duck")  # a visible slip, the later step keeps 9
# every problem number multiplied, an invented 366 lands on the answer; the chain opened by a label
DUCKS_LABELLED = {
    "label": "$x = 16 \\cdot 3 \\cdot 4 \\cdot 2 - 366 = 18$.\n#### 18",
    "label_plus_zero": "$x + 0 = 16 \\cdot 3 \\cdot 4 \\cdot 2 - 366 = 18$.\n#### 18",
    "label_bound_first": "$x = 16 \\cdot 1$.\n$x = 16 \\cdot 3 \\cdot 4 \\cdot 2 - 366 = 18$.\n#### 18",
}
DUCKS_UNLABELLED = "$16 \\cdot 3 \\cdot 4 \\cdot 2 - 366 = 18$.\n#### 18"  # the same without the label: 366 is a gap

# gsm8k train 4530: an invented fee of 12 (a common constant no unit word licenses) lands on the answer
MARION_COMMON_FEE = "Ella's score is 40 - 4 = 36.\nMarion's score is 36 - 12 = 24.\n#### 24"

# gsm8k test 49 (answer 30, itself a common constant) and its gold
RICHARD = ("Richard lives in an apartment building with 15 floors. Each floor contains 8 units, and 3/4 of the building "
           "is occupied. What's the total number of unoccupied units In the building?")
RICHARD_GOLD = ("The total number of units in the building will be 8 units/floor * 15 floors = 120 units.\n"
                "If 3/4 of the building is occupied, then the total number of occupied units is 3/4 * 120 units = 90 "
                "units.\nThe total number of unoccupied units is 120 units - 90 units = 30 units.\n#### 30")


@pytest.mark.parametrize("reward", ["rafs", "faithful_accuracy"])
def test_an_invented_number_without_a_label_earns_less_than_the_gold(reward):
    assert _one(reward, DUCKS, DUCKS_UNLABELLED, "18") < _one(reward, DUCKS, DUCKS_GOLD, "18")


@pytest.mark.parametrize("reward", ["rafs", "faithful_accuracy"])
def test_a_common_constant_answer_padded_onto_a_problem_number_earns_less_than_the_gold(reward):
    # 30 is an unlicensed common constant: it weighs (rho^u) instead of leaving a gap, but never reaches the gold
    assert _one(reward, RICHARD, "15 / 15 * 30 = 30.\n#### 30", "30") < _one(reward, RICHARD, RICHARD_GOLD, "30")


@pytest.mark.parametrize("reward", ["rafs", "faithful_accuracy"])
@pytest.mark.parametrize("padded", ["9 * 2 * 1 + 0 = $18", "9 * 2 * 10 / 10 = $18", "9 * 2 * 12 / 12 = $18"])
def test_padding_the_gold_with_constants_gains_nothing(reward, padded):
    gamed = DUCKS_GOLD.replace("9 * 2 = $18", padded)
    assert gamed != DUCKS_GOLD
    assert _one(reward, DUCKS, gamed, "18") <= _one(reward, DUCKS, DUCKS_GOLD, "18") + 0.005


@pytest.mark.parametrize("reward", ["rafs", "faithful_accuracy"])
def test_trial_values_stated_around_the_gold_never_raise_it(reward):
    """A stray number (stated without an equation, reached by nothing) withholds support before the answer's step
    and nothing after it: trial values are no scaffolding a policy gains from."""
    before = "Maybe 19? Let me see.\n" + DUCKS_GOLD
    after = DUCKS_GOLD.replace("\n####", "\nOther tries: 19 and 25 do not fit.\n####")
    gold = _one(reward, DUCKS, DUCKS_GOLD, "18")
    assert _one(reward, DUCKS, before, "18") < gold
    assert _one(reward, DUCKS, after, "18") <= gold + 0.005


# fixed (extraction._split_result: a result with a digit group after one blank, '= 1 01', is false when every reading
# is, the number alone and the digits joined; it was unread, q 0.75, and the trace scored like the gold on 25/106
# verified GSM8K problems)
@pytest.mark.parametrize('sep', [' ', '\xa0', '\u202f'])
@pytest.mark.parametrize('reward', ['rafs', 'faithful_accuracy'])
def test_space_split_false_result_not_above_visible_slip(reward, sep):
    split = DIMES_GOLD.replace('= 100 dimes', f'= 1{sep}01 dimes')
    assert _one(reward, DIMES, split, '52') <= _one(reward, DIMES, DIMES_SLIP, '52')


@pytest.mark.parametrize("line, ok", [("So 2 * 500 = 1 000 dimes.", None),         # a thousands separator: 1000
                                      ("Then 3 + 4 = 7 7 more are added.", None),  # the first number holds
                                      ("2 + 1/2 = 2 1/2 pieces", None),            # a mixed number goes on
                                      ("48/4=12 5-minute intervals", None),        # so does a compound word
                                      ("She has 10/.10 = 1 01 dimes.", False)])    # every reading is false
def test_a_split_result_is_false_only_when_every_reading_is(line, ok):
    assert [c.ok for _, c in step_equations(line)] == [ok]
