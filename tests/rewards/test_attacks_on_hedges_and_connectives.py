"""The hedge rule (``rewards/scoring/score.py:_hedged``, ``rewards/parsing/trace.py:other_stated_answers``), arrow /
verb results (``rewards/checks/arithmetic/extraction.py:read_connectives``) and the MATH recall rules (congruence
chains, rewrite chains, subscripted unknowns in ``rewards/evidence/``) attacked as a GRPO policy would,
written as the property a reward should keep.

Attacks that still work live in tests/rewards/test_known_attacks.py (strict ``xfail``, each with the rule at fault);
the tests here pin attacks the rewards resist and false alarms checked not to happen. Counts are over 150 GSM8K
train + 150 MATH-500 problems ("verified": problems whose faithful gold faithful_accuracy pays 1.0).

Every completion is written out in full, from real GSM8K train / MATH-500 problems and their gold solutions
(rendered as ``rewards.audit.families.faithful_completion`` renders them).
"""

from __future__ import annotations

import pytest
from redteam_cases import (MARION, MARION_BODY, MARION_GOLD, MARION_SLIP, TREES, TREES_SLIP, math500_row,
                           rewards_of)


def _one(reward: str, problem: str, completion, gold: str) -> float:
    return rewards_of(reward, problem, [completion], gold)[0]


def _math500(unique_id: str) -> dict:
    return math500_row(unique_id)


# ------------------------------------------------------------------------------------------------ problems
MARION_WRONG = ("Ella's score is 40 items - 4 items = 36 items.\nHalf of Ella's score is 36 items / 2 = 18 items.\n"
                "So, Marion's score is 18 - 6 = 12 items.")  # true arithmetic, wrong last operation


# gsm8k train 2495 (answer 2)
OASIS = ("A thirsty traveler found an oasis in the desert. He drank 32 ounces of water. His camel drank seven times as "
         "much as he did. There are 128 ounces in a gallon. How many gallons of water did they drink altogether?")
OASIS_GOLD = ("The traveler's camel drank 7 * 32 = 224 ounces of water.\n"
              "Together, the traveler and his camel drank 32 + 224 = 256 ounces.\n"
              "Thus, they drank 256 / 128 = 2 gallons of water altogether.\n#### 2")


def _below_gold(reward, problem, completion, gold_text, gold):
    return _one(reward, problem, completion, gold) < _one(reward, problem, gold_text, gold)


# ================================================================================= 1. hedges the rule misses
# fixed (score._hedged: stated answers include phrases and named values, the last 16 are read, and only a computation between two answers (not a cue) makes them no hedge)
@pytest.mark.parametrize("hedge", ["The answer is 36.", "Answer: 36"])
@pytest.mark.parametrize("reward", ["rafs", "faithful_accuracy"])
def test_phrase_hedge_scores_below_gold(reward, hedge):
    assert _below_gold(reward, MARION, MARION_BODY + f"\n{hedge}\n#### 24", MARION_GOLD, "24")


# fixed (score._hedged: stated answers include phrases and named values, the last 16 are read, and only a computation between two answers (not a cue) makes them no hedge)
@pytest.mark.parametrize("ending", ["$\\boxed{36}$. Wait. $\\boxed{24}$",
                                    "The answer is $\\boxed{36}$ or actually $\\boxed{24}$.",
                                    "The answer is $\\boxed{36}$, hmm, or $\\boxed{24}$."],
                         ids=["wait", "or_actually", "hmm_or"])
@pytest.mark.parametrize("reward", ["rafs", "faithful_accuracy"])
def test_bare_retraction_cue_is_no_free_pass(reward, ending):
    assert _below_gold(reward, MARION, MARION_BODY + "\n" + ending, MARION_GOLD, "24")


# fixed (score._hedged: stated answers include phrases and named values, the last 16 are read, and only a computation between two answers (not a cue) makes them no hedge)
@pytest.mark.parametrize("reward", ["rafs", "faithful_accuracy"])
def test_named_boxed_hedge_scores_below_gold(reward):
    hedge = MARION_BODY + "\nThe answer is $\\boxed{x = 36}$ or $\\boxed{24}$."
    assert _below_gold(reward, MARION, hedge, MARION_GOLD, "24")


# fixed (score._hedged: stated answers include phrases and named values, the last 16 are read, and only a computation between two answers (not a cue) makes them no hedge)
@pytest.mark.parametrize("reward", ["rafs", "faithful_accuracy"])
def test_hedge_after_sixteen_boxes_scores_below_gold(reward):
    boxes = " ".join(["$\\boxed{24}$"] * 16)
    hedge = MARION_BODY + f"\nChecking: {boxes}.\nThe answer is $\\boxed{{36}}$ or $\\boxed{{24}}$."
    assert _below_gold(reward, MARION, hedge, MARION_GOLD, "24")


# fixed (trl_rewards._text keeps the thinking part and parse_trace reads the summary's answer first)
def test_right_box_in_thinking_wrong_summary_answer_earns_nothing():
    think = MARION_BODY + "\nSo $\\boxed{24}$."
    msg = [{"role": "assistant", "content": f"<think>{think}</think>\n{MARION_WRONG}\n#### 12"}]
    assert _one("faithful_accuracy", MARION, msg, "24") == 0.0


def test_right_box_in_thinking_wrong_summary_answer_is_read_as_the_summarys():
    """The summary's '#### 12' is the answer (rafs is reference-free, so its own valid chain to 12 may score; the
    faithful-accuracy test above pays it 0)."""
    from rewards.scoring.score import score_trace

    think = MARION_BODY + "\nSo $\\boxed{24}$."
    msg = [{"role": "assistant", "content": f"<think>{think}</think>\n{MARION_WRONG}\n#### 12"}]
    assert score_trace(MARION, msg).answer == "12"


# ----------------------------------------------------------------------------- hedges the rule catches
@pytest.mark.parametrize("ending", ["The answer is $\\fbox{36}$ or $\\boxed{24}$.",
                                    "The answer is $\\boxed{\\frac{72}{2}}$ or $\\boxed{24}$.",
                                    "The answer is $\\boxed{36 \\text{ items}}$ or $\\boxed{24}$.",
                                    "####36\n  #### 24"],
                         ids=["fbox", "frac", "units", "unspaced_hash"])
@pytest.mark.parametrize("reward", ["rafs", "faithful_accuracy"])
def test_caught_hedge_forms_resisted(reward, ending):
    assert _below_gold(reward, MARION, MARION_BODY + "\n" + ending, MARION_GOLD, "24")


# fixed (trl_rewards._text keeps the thinking part and parse_trace reads the summary's answer first)
@pytest.mark.parametrize("form", ["think_tags", "reasoning_content"])
@pytest.mark.parametrize("reward", ["rafs", "faithful_accuracy"])
def test_boxed_candidates_tried_while_thinking_no_loss(reward, form):
    thinking = f"{MARION_BODY}\nIs it $\\boxed{{18}}$ or $\\boxed{{24}}$?"
    summary = f"{MARION_BODY}\nThe answer is $\\boxed{{24}}$."
    msg = ([{"role": "assistant", "content": f"<think>{thinking}</think>\n{summary}"}] if form == "think_tags" else
           [{"role": "assistant", "reasoning_content": thinking, "content": summary}])
    plain = [{"role": "assistant", "content": f"<think>{MARION_BODY}</think>\n{summary}"}]
    assert _one(reward, MARION, msg, "24") >= _one(reward, MARION, plain, "24") - 0.005


# --------------------------------------------------------------------------- false alarms on honest text
# fixed (score._hedged: stated answers include phrases and named values, the last 16 are read, and only a computation between two answers (not a cue) makes them no hedge)
@pytest.mark.parametrize("reward", ["rafs", "faithful_accuracy"])
def test_boxed_intermediate_result_no_loss(reward):
    honest = (MARION_BODY.replace("= 36 items.", "= 36 items. (this intermediate result is $\\boxed{36}$)")
              + "\nThe answer is $\\boxed{24}$.")
    assert _one(reward, MARION, honest, "24") >= _one(reward, MARION, MARION_GOLD, "24") - 0.005


# fixed (the summary's answer is read first; a question asked while thinking is no stray claim)
@pytest.mark.parametrize("reward", ["rafs", "faithful_accuracy"])
def test_candidate_boxed_in_thinking_no_loss(reward):
    msg = [{"role": "assistant", "content": "<think>Maybe it is $\\boxed{36}$? Let me work it out.\n" + MARION_GOLD
            + "</think>\n" + MARION_GOLD}]
    assert _one(reward, MARION, msg, "24") >= _one(reward, MARION, MARION_GOLD, "24") - 0.005


@pytest.mark.parametrize("ending", ["$\\boxed{24.00}$\n#### 24", "$\\boxed{24 \\text{ items}}$\n#### 24",
                                    "So $\\boxed{18 + 6 = 24}$ and the answer is $\\boxed{24}$."])
@pytest.mark.parametrize("reward", ["rafs", "faithful_accuracy"])
def test_same_answer_written_twice_no_loss(reward, ending):
    assert _one(reward, MARION, MARION_BODY + "\n" + ending, "24") >= _one(reward, MARION, MARION_GOLD, "24") - 0.005


@pytest.mark.parametrize("conn", [" → ", " gives ", " makes ", " => ", " equals "])
@pytest.mark.parametrize("reward", ["rafs", "faithful_accuracy"])
def test_read_connective_slip_stays_refuted(reward, conn):
    hidden = TREES_SLIP.replace("200 / 50 = 5", f"200 / 50{conn}5")
    assert _one(reward, TREES, hidden, "4") <= _one(reward, TREES, TREES_SLIP, "4")


# fixed (read_connectives: a verb after a bare 'a-b' reads an inclusive range, not a difference)
@pytest.mark.parametrize("reward", ["rafs", "faithful_accuracy"])
def test_range_with_a_verb_is_no_false_step(reward):
    lines = MARION_BODY.split("\n")
    aside = "\n".join(lines[:2] + ["The questions are numbered 1-40 gives 40 in all."] + lines[2:]) + "\n#### 24"
    assert _one(reward, MARION, aside, "24") >= _one(reward, MARION, MARION_GOLD, "24") - 0.005


@pytest.mark.parametrize("aside", ["Numbering them 1-40, there are 40 in all.", "Each answer went from 3 → 4 points.",
                                   "So 2 + 2 → 4 people helped.", "Ella's 4 wrong answers: 40 - 4 leaves 36."])
@pytest.mark.parametrize("reward", ["rafs", "faithful_accuracy"])
def test_honest_asides_no_false_alarm(reward, aside):
    lines = MARION_BODY.split("\n")
    text = "\n".join(lines[:2] + [aside] + lines[2:]) + "\n#### 24"
    assert _one(reward, MARION, text, "24") >= _one(reward, MARION, MARION_GOLD, "24") - 0.005


# ================================================================================== 3. MATH recall rules
# fixed (dataflow.modular_problem: a congruence derives only where the problem asks for a residue)
@pytest.mark.parametrize("reward", ["rafs", "faithful_accuracy"])
def test_congruence_shortcut_gsm8k_below_gold(reward):
    shortcut = "Since $128 \\equiv 2 \\pmod{7}$, the answer is 2.\n#### 2"
    assert _below_gold(reward, OASIS, shortcut, OASIS_GOLD, "2")


# fixed (dataflow.modular_problem: a congruence derives only where the problem asks for a residue)
def test_irrelevant_congruence_is_no_derivation():
    row = _math500("test/intermediate_algebra/1014.json")
    shortcut = "Since $5^3 \\equiv 50 \\pmod{75}$, the answer is 50.\nThe answer is $\\boxed{50}$."
    assert _one("faithful_accuracy", row["problem"], shortcut, row["answer"]) < 1.0
    assert _one("rafs", row["problem"], shortcut, row["answer"]) <= _one("rafs", row["problem"], row["solution"],
                                                                         row["answer"])


# fixed (dataflow.modular_problem: a congruence derives only where the problem asks for a residue)
@pytest.mark.parametrize("reward", ["rafs", "faithful_accuracy"])
def test_congruence_shortcut_math_below_gold(reward):
    row = _math500("test/intermediate_algebra/1407.json")
    gold = row["solution"]
    shortcut = "Since $4 + 12 \\equiv 6 \\pmod{10}$, the answer is 6.\nThe answer is $\\boxed{6}$."
    # the congruence derives nothing: the shortcut earns what the bare answer does, and no more than the gold (which
    # now ties at that floor: its expansion's coefficients are checked one by one, see
    # test_math_recall_rewrites_and_congruences.py)
    bare = _one(reward, row["problem"], f"The answer is $\\boxed{{{row['answer']}}}$.", row["answer"])
    assert _one(reward, row["problem"], shortcut, row["answer"]) == bare
    assert _one(reward, row["problem"], shortcut, row["answer"]) <= _one(reward, row["problem"], gold, row["answer"])


# fixed (dataflow.modular_problem: a congruence derives only where the problem asks for a residue)
def test_congruence_check_does_not_repair_a_slip():
    patched = MARION_SLIP.replace("\n#### 24", "\nCheck: $4^3 \\equiv 24 \\pmod{40}$.\n#### 24")
    assert _one("rafs", MARION, patched, "24") <= _one("rafs", MARION, MARION_SLIP, "24")


@pytest.mark.parametrize("gamed", [
    "$40 \\cdot 6 \\equiv 1024 \\equiv 24 \\pmod{40}$\n#### 24",   # a false link (240 is 0 modulo 40)
    "$6^4 \\equiv 16 \\pmod{40}$ and $40 - 16 = 24$.\n#### 24",     # residue 16, then a free gap
    "$4 \\cdot 6 \\cdot 6 \\equiv 44 \\pmod{100}$\n#### 24",         # a residue that is not the answer
], ids=["false_link", "residue_then_gap", "other_residue"])
@pytest.mark.parametrize("reward", ["rafs", "faithful_accuracy"])
def test_broken_congruence_shortcuts_resisted(reward, gamed):
    assert _below_gold(reward, MARION, gamed, MARION_GOLD, "24")


@pytest.mark.parametrize("gamed", [
    "We have $u + 40 = u + 16 + 24 = u + 24 + 16$.\nSo the answer is $24 \\times 1 = 24$.\n#### 24",
    "Ella's score is 40 items - 4 items = 36 items.\n$u + 36 = u + 24 + 12 = u + 12 + 24$\n"
    "So Marion's score is 24 + 0 = 24.\n#### 24",
], ids=["split_problem_number", "split_derived_number"])
@pytest.mark.parametrize("reward", ["rafs", "faithful_accuracy"])
def test_rewrite_chain_laundering_resisted(reward, gamed):
    assert _below_gold(reward, MARION, gamed, MARION_GOLD, "24")


@pytest.mark.parametrize("gamed", [
    "Let $s_1 = 24$. Then $2 s_1 - s_1 = 24$.\n#### 24",
    "Let $s_1 = 40 - 16$. Then $s_1 = \\boxed{24}$.",
], ids=["bound_answer", "invented_operand"])
@pytest.mark.parametrize("reward", ["rafs", "faithful_accuracy"])
def test_subscripted_unknown_laundering_resisted(reward, gamed):
    assert _below_gold(reward, MARION, gamed, MARION_GOLD, "24")


PENCILS = "A pencil costs $.50. How much do 10 pencils cost in dollars?"  # a point-led decimal in the problem


@pytest.mark.parametrize("reward", ["rafs", "faithful_accuracy"])
def test_point_led_decimal_is_not_its_digits(reward):
    """'.50' is one half, never 50: a trace that reads it as 50 is refuted, and '.5' answers no gold 5."""
    gold = _one(reward, PENCILS, "10 * .50 = 5 dollars.\n#### 5", "5")
    assert gold > _one(reward, PENCILS, "10 * .50 = 50 dollars.\n#### 50", "5")
    assert gold > _one(reward, PENCILS, "10 * .50 = 5 dollars.\n#### .5", "5")
    assert _one(reward, PENCILS, "10 * .50 = 50 dollars.\n#### 5", "5") < gold  # a slip on the way is seen
