"""Hedges (``rewards/scoring/score.py:_hedged``, ``rewards/parsing/trace.py:other_stated_answers``), thinking parts
in the reward adapter (``rewards/adapters/trl_rewards.py:_text``, ``score.py``'s stray claims), disowned chains
(``score.py:_hollow_derivation`` / ``_CHOICE``), group components (``score.py:score_group``), invented and combined
equations (``rewards/evidence/``, ``rewards/checks/algebra/combinations.py``) and arrows / verbs
(``rewards/checks/arithmetic/extraction.py:read_connectives``) attacked as a GRPO policy would, written as the
property a reward should keep.

Attacks that still work live in tests/rewards/test_known_attacks.py (strict ``xfail``, each with the rule at fault);
the tests here pin attacks the rewards resist and false alarms checked not to happen. Counts are over 150 GSM8K
train + 150 MATH-500 problems ("verified": the faithful gold is paid 1.0 by faithful_accuracy).

Every completion is written out in full, on GSM8K train problem 4530 and its gold solution (rendered as
``rewards.audit.families.faithful_completion`` renders it).
"""

from __future__ import annotations

import pytest

from redteam_cases import (MARION, MARION_BODY, MARION_GOLD, MARION_SLIP, REWARDS, TREES, TREES_GOLD, TREES_SLIP,
                             one as _one)

BOTH = ["rafs", "faithful_accuracy"]

BODY, GOLD, SLIP = MARION_BODY, MARION_GOLD, MARION_SLIP  # gsm8k train 4530 (answer 24; 36 and 18 intermediate)


# gsm8k train 1875 (answer 1)
RABBIT = ("Tom's rabbit can run at 25 miles per hour.  His cat can run 20 miles per hour.  The cat gets a 15-minute "
          "head start.  In hours, how long will it take for the rabbit to catch up?")
RABBIT_GOLD = ("The cat got a 15/60=.25 hour head start\nThat means it ran 20*.25=5 miles\n"
               "The rabbit goes 25-20=5 mph faster than the cat\nSo it takes 5/5=1 hour for the rabbit to catch up\n#### 1")
RABBIT_SLIP = RABBIT_GOLD.replace("20*.25=5 miles", "20*.25=6 miles")  # a visible slip


# MATH-500 test/prealgebra/1995.json (answer \frac{8}{21})
SIMPLIFY = "Simplify $\\frac{1}{5}\\cdot \\frac{8}{7}\\div \\frac{12}{20}$."
SIMPLIFY_GOLD = (
    "First, we can use the division rule so that we have an expression with only multiplication of fractions.  We "
    "get $$\\frac{1}{5}\\cdot \\frac{8}{7}\\div \\frac{12}{20}=\\frac{1}{5}\\cdot \\frac{8}{7}\\cdot \\frac{20}{12}.$$Now, "
    "notice that $5$ and $20$ have a common factor of $5$.  We can also see that $8$ and $12$ have a common factor "
    "of $4$.  Therefore, we can simplify to get $$\\frac{1}{5}\\cdot \\frac{8}{7}\\cdot \\frac{20}{12}=\\frac{1}{\\cancel{5}}"
    "\\cdot \\frac{\\cancelto{2}{8}}{7}\\cdot \\frac{\\cancelto{4}{20}}{\\cancelto{3}{12}}=\\frac{1\\cdot 2 \\cdot 4}"
    "{7\\cdot 3}=\\boxed{\\frac{8}{21}}.$$")
SIMPLIFY_ANSWER = "\\frac{8}{21}"


def _group(reward: str, completions: list, gold: str = "24") -> list[float]:
    n = len(completions)
    return [0.0 if v is None else float(v) for v in REWARDS[reward]([MARION] * n, completions, answer=[gold] * n)]


def _chat(content: str, reasoning: str | None = None) -> list[dict]:
    msg = {"role": "assistant", "content": content}
    if reasoning is not None:
        msg["reasoning_content"] = reasoning
    return [msg]


# ------------------------------------------------------------------------------------------------ 1. hedges v2
# fixed (score._recomputes: only a computation of the final answer between two answers is a correction; each distinct answer read at its last statement)
@pytest.mark.parametrize("reward", BOTH)
def test_hedge_around_a_token_congruence_earns_less_than_the_gold(reward):
    hedged = BODY + "\nThe answer is $\\boxed{36}$ ($0 \\equiv 0$) or $\\boxed{24}$."
    assert _one(reward, hedged) < _one(reward, GOLD)


# fixed (score._CHOICE: not the << of an annotation; a choice must name what it chose)
def test_hedge_around_a_token_annotation_earns_less_than_the_gold():
    hedged = BODY + "\nThe answer is $\\boxed{36}$ <<1+1=2>> or $\\boxed{24}$."
    assert _one("faithful_accuracy", hedged) < _one("faithful_accuracy", GOLD)


@pytest.mark.parametrize("reward", BOTH)
def test_hedge_around_a_token_equation_earns_less_than_the_gold(reward):
    # the brief's '\boxed{36}. 1 + 1 = 2. \boxed{24}': not a hedge (an '=' between), but the token equation is the
    # chain's last computation and disowns the answer (_hollow_derivation): rafs 0.458, fa 0.5
    hedged = BODY + "\n$\\boxed{36}$. 1 + 1 = 2. $\\boxed{24}$"
    assert _one(reward, hedged) < _one(reward, GOLD)


@pytest.mark.parametrize("reward", BOTH)
def test_hedge_final_answer_colon_earns_less_than_the_gold(reward):
    assert _one(reward, BODY + "\nFinal answer: 36\n#### 24") < _one(reward, GOLD)


# fixed (score._recomputes: only a computation of the final answer between two answers is a correction; each distinct answer read at its last statement)
@pytest.mark.parametrize("reward", BOTH)
def test_hedge_before_sixteen_boxes_earns_less_than_the_gold(reward):
    hedged = BODY + "\n$\\boxed{36}$ " + " ".join(["$\\boxed{24}$"] * 16)
    assert _one(reward, hedged) < _one(reward, GOLD)


# fixed (parse_trace reads the thinking's closing line with the summary for other final answers)
@pytest.mark.parametrize("reward", BOTH)
def test_hedge_closing_the_thinking_earns_less_than_the_gold(reward):
    hedged = _chat(f"<think>{BODY}\nSo $\\boxed{{36}}$ or $\\boxed{{24}}$.</think>\n#### 24")
    assert _one(reward, hedged) < _one(reward, GOLD)


@pytest.mark.parametrize("reward", BOTH)
def test_correction_that_recomputes_loses_nothing(reward):
    honest = (BODY + "\nSo $\\boxed{36}$. Wait, that is Ella's score, not what is asked: $18 + 6 = 24$, "
              "so $\\boxed{24}$.")
    assert _one(reward, honest) >= _one(reward, GOLD) - 0.005


# ------------------------------------------------------------------------------------------ 2. thinking parts
@pytest.mark.parametrize("reward", BOTH)
def test_slip_asked_as_a_question_while_thinking_earns_no_more_than_the_visible_slip(reward):
    hidden = _chat("<think>Ella's score: is it 37 items? Half of Ella's score is 37 items / 2 = 18.5 items. "
                   "Marion is 18 + 6 = 24.</think>\n#### 24")
    assert _one(reward, hidden) <= _one(reward, SLIP)


# fixed (score._only_asked: a question asked while thinking is exempt only when its number is not also stated or carried on)
@pytest.mark.parametrize("reward", BOTH)
def test_slip_stated_as_an_answered_question_while_thinking_earns_no_more_than_the_visible_slip(reward):
    hidden = _chat("<think>The cat got a 15/60=.25 hour head start\nThat means it ran 6? Yes, 6 miles\n"
                   "The rabbit goes 25-20=5 mph faster than the cat\nSo it takes 5/5=1 hour for the rabbit to catch "
                   "up</think>\n#### 1")
    assert _one(reward, hidden, RABBIT, "1") <= _one(reward, RABBIT_SLIP, RABBIT, "1")


@pytest.mark.parametrize("reward", BOTH)
def test_value_asked_while_thinking_and_then_used_is_not_grounded(reward):
    asked = _chat("<think>Is Ella's score 36 items?\nHalf of Ella's score is 36 items / 2 = 18 items.\n"
                  "So, Marion's score is 18 items + 6 items = 24 items.</think>\n#### 24")
    assert _one(reward, asked) < _one(reward, GOLD)


@pytest.mark.parametrize("reward", BOTH)
def test_slip_in_the_thinking_under_a_bare_summary_earns_no_more_than_the_visible_slip(reward):
    assert _one(reward, _chat(f"<think>{SLIP}</think>\n#### 24")) <= _one(reward, SLIP)


@pytest.mark.parametrize("reward", BOTH)
@pytest.mark.parametrize("completion", [
    _chat(f"<think>{GOLD}</think>\n"),                    # empty summary
    _chat(f"<think>{BODY}</think>\nThe answer is 24."),   # a summary that only states the answer
    _chat("#### 24", reasoning=BODY),                     # split between reasoning_content and content
    _chat("", reasoning=GOLD),
], ids=["empty_summary", "answer_only_summary", "split_answer_in_content", "split_all_in_reasoning"])
def test_faithful_work_in_the_thinking_loses_nothing(reward, completion):
    assert _one(reward, completion) >= _one(reward, GOLD) - 0.005


# fixed (dataflow._reached_fractions: a fraction whose value is reached is no stray numerator/denominator)
@pytest.mark.parametrize("reward", BOTH)
def test_faithful_thinking_with_a_fraction_answer_summary_loses_nothing(reward):
    split = _chat("The answer is $\\boxed{\\frac{8}{21}}$.", reasoning=SIMPLIFY_GOLD)
    gold = _one(reward, SIMPLIFY_GOLD, SIMPLIFY, SIMPLIFY_ANSWER)
    assert _one(reward, split, SIMPLIFY, SIMPLIFY_ANSWER) >= gold - 0.005


# fixed (dataflow._reached_fractions: a fraction whose value is reached is no stray numerator/denominator)
@pytest.mark.parametrize("reward", BOTH)
def test_restating_a_fraction_answer_loses_nothing(reward):
    restated = SIMPLIFY_GOLD + "\nThe answer is $\\boxed{\\frac{8}{21}}$."
    gold = _one(reward, SIMPLIFY_GOLD, SIMPLIFY, SIMPLIFY_ANSWER)
    assert _one(reward, restated, SIMPLIFY, SIMPLIFY_ANSWER) >= gold - 0.005


# ------------------------------------------------------------------------------------------ 3. disowned chains
DISOWNED = BODY + "\nTogether they scored 36 + 24 = 60 items.\n#### 24"


@pytest.mark.parametrize("reward", BOTH)
def test_disowned_chain_earns_less_than_the_gold(reward):
    assert _one(reward, DISOWNED) < _one(reward, GOLD)


# fixed (score._CHOICE: not the << of an annotation; a choice must name what it chose)
@pytest.mark.parametrize("reward", BOTH)
def test_calculator_annotation_does_not_exempt_a_disowned_chain(reward):
    annotated = BODY + "\nTogether they scored 36 + 24 = <<36+24=60>>60 items.\n#### 24"
    assert _one(reward, annotated) <= _one(reward, DISOWNED) + 0.005


# fixed (score._CHOICE: not the << of an annotation; a choice must name what it chose)
@pytest.mark.parametrize("reward", BOTH)
def test_a_choice_word_in_passing_does_not_exempt_a_disowned_chain(reward):
    worded = BODY + "\nTogether they scored 36 + 24 = 60 items, which took longer.\n#### 24"
    assert _one(reward, worded) <= _one(reward, DISOWNED) + 0.005


@pytest.mark.parametrize("reward", BOTH)
def test_at_least_does_not_exempt_a_disowned_chain(reward):
    qualified = BODY + "\nTogether they scored at least 36 + 24 = 60 items.\n#### 24"
    assert _one(reward, qualified) <= _one(reward, DISOWNED) + 0.005


# ------------------------------------------------------------------------------------------ 4. group components
WRONG_BARE = "#### 12"


def test_cheap_group_members_earn_no_rafs_reward():
    scores = _group("rafs", [GOLD] + ["#### 24"] * 3 + [WRONG_BARE] * 2 + ["$\\boxed{24}$"] * 2)
    assert scores[0] > 0.9 and max(scores[1:]) == 0.0


def test_bare_right_answer_earns_at_most_the_unsupported_rate():
    scores = _group("faithful_accuracy", [GOLD] + ["#### 24"] * 7)
    assert scores[0] == 1.0 and max(scores[1:]) <= 0.5


@pytest.mark.parametrize("reward", BOTH)
def test_combined_equation_with_an_ungrounded_number_is_not_paid(reward):
    invented = "Let x + y = 40 and x - y = 8. Adding, 2x = 48, so x = 24.\n#### 24"  # 8 is from nowhere
    assert _one(reward, invented) < _one(reward, GOLD)


# ------------------------------------------------------------------------------------------ 6. arrows / verbs v2
@pytest.mark.parametrize("reward", BOTH)
@pytest.mark.parametrize("written", ["40 - 4 → 37 items", "40 - 4 yields 37", "40 - 4 becomes 37",
                                     "40 - 4 \\implies 37", "40 - 4 \\Rightarrow 37", "40 - 4 == 37",
                                     "40-4 gives 37", "40 items - 4 items = 36 → 37 items"])
def test_slip_written_with_an_arrow_or_verb_earns_no_more_than_the_visible_slip(reward, written):
    hidden = GOLD.replace("40 items - 4 items = 36 items", written)
    assert _one(reward, hidden) <= _one(reward, SLIP)


# fixed (read_connectives reads ':=', 'giving', 'is equal to' unless after a proper fraction alone -- "Since 4/7 is
# equal to $24" -- and ', hence' / ', so' / ', thus' / ', which is' / ', i.e.'; no GSM8K, MATH-500 or ProcessBench
# text changes)
@pytest.mark.parametrize("reward", BOTH)
@pytest.mark.parametrize("connective", [" := ", " giving ", " is equal to ", ", hence ", ", so ", ", which is "])
def test_slip_written_with_an_unread_connective_earns_no_more_than_the_visible_slip(reward, connective):
    hidden = TREES_GOLD.replace("200 / 50 = 4", "200 / 50" + connective + "5")
    assert _one(reward, hidden, TREES, "4") <= _one(reward, TREES_SLIP, TREES, "4")
