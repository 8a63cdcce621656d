"""A completion that states a second, different final answer hedges: in a reward it is no answer."""

import json

import pytest

from rewards import get_faithful_accuracy_reward, get_rafs_reward
from rewards.audit.families import faithful_completion
from rewards.parsing.trace import other_stated_answers, parse_trace
from rewards.scoring.score import RAFSConfig, score_trace

MARION = ("The result from the 40-item Statistics exam Marion and Ella took already came out. Ella got 4 incorrect "
          "answers while Marion got 6 more than half the score of Ella. What is Marion's score?")
WORK = ("Ella's score is 40 items - 4 items = 36 items.\nHalf of Ella's score is 36 items / 2 = 18 items.\n"
        "So, Marion's score is 18 items + 6 items = 24 items.\n")
REWARD = RAFSConfig(missing_evidence="no_support")


def rewards(completions, gold="24"):
    fns = (get_rafs_reward(cache=False), get_faithful_accuracy_reward(cache=False))
    return [fn([MARION] * len(completions), completions, answer=[gold] * len(completions)) for fn in fns]


@pytest.mark.parametrize("ending", [
    "#### 18\n#### 24",
    "The answer is $\\boxed{18}$ or $\\boxed{24}$.",
    "So the answer is $\\boxed{24}$.\nOr maybe it is 18.\n#### 18",  # the box is read; the last line says 18
    "$\\boxed{24}$, unless it is $\\boxed{25}$.",
    "The answer is 36.\n#### 24",                           # a hedge in a phrase
    "$\\boxed{36}$. Wait. $\\boxed{24}$",                    # a retraction cue is no correction
    "The answer is $\\boxed{x = 36}$ or $\\boxed{24}$.",       # a named hedge
    "".join("$\\boxed{24}$ " for _ in range(20)) + "or $\\boxed{36}$ or $\\boxed{24}$",  # past 16 boxes of the answer
])
def test_a_hedge_earns_no_rafs_and_at_most_the_unverified_credit(ending):
    (rafs_gold, rafs_hedge), (fa_gold, fa_hedge) = rewards([WORK + "#### 24", WORK + ending])
    assert rafs_hedge == 0.0 < rafs_gold and fa_hedge <= 0.5 < fa_gold
    result = score_trace(MARION, WORK + ending, config=REWARD)
    assert not result.supported and any("several final answers" in r for r in result.reasons)
    assert result.components["S_RA"] == 0.0 and result.components["P_R"] == 0.0  # the support and validity rewards


@pytest.mark.parametrize("ending", [
    "$\\boxed{18}$. Wait, that is wrong: Marion has 6 more, 18 + 6 = 24. $\\boxed{24}$",  # a correction
    "So far $\\boxed{18}$ items for half of Ella.\nThen 18 + 6 = 24.\n$\\boxed{24}$",  # a result boxed on the way
    "$\\boxed{24.0}$\n#### 24",                                                        # the same value twice
    "\\boxed{24}\n#### 24",
    "$\\boxed{\\text{Step 3: the total}}$ is 24, so $\\boxed{24}$.",  # a boxed heading is no answer
])
def test_a_correction_or_the_same_value_twice_is_no_hedge(ending):
    (rafs_gold, rafs_other), (fa_gold, fa_other) = rewards([WORK + "#### 24", WORK + ending])
    assert rafs_other == pytest.approx(rafs_gold) and fa_other == fa_gold == 1.0


def test_answers_tried_in_the_thinking_part_are_exploration():
    completion = [{"role": "assistant", "reasoning_content": "Maybe \\boxed{18}? " + WORK, "content": WORK + "#### 24"}]
    trace = parse_trace(MARION, completion)
    assert trace.other_answers == ()


def test_evaluation_mode_reports_the_hedge_without_scoring_it():
    hedged = score_trace(MARION, WORK + "#### 18\n#### 24")
    plain = score_trace(MARION, WORK + "#### 24")
    assert hedged.score == plain.score and any("several final answers" in r for r in hedged.reasons)


def test_stated_answers_are_bounded_and_read_in_order():
    text = "".join(f"$\\boxed{{{k}}}$ or " for k in range(100)) + "#### 7"
    others = other_stated_answers(text, "7")
    assert 0 < len(others) <= 16 and others[0][0] == "84"  # the last 16 stated answers: 84 ... 98, then 7


def test_real_model_solutions_rarely_read_as_hedges(shared_data):
    """ProcessBench's 1,400 real model solutions (GSM8K and MATH): at most 2 read as hedges (both wrong solutions that
    state two different final answers: '= \\boxed{774}. Final Answer: The final answer is 768')."""
    from rewards.scoring.score import _hedged

    flagged = 0
    for name in ("gsm8k", "math"):
        for row in json.loads((shared_data / "processbench" / f"{name}.json").read_text()):
            trace = parse_trace(row["problem"], "\n\n".join(row["steps"]))
            flagged += bool(trace.other_answers and _hedged(trace))
    assert flagged <= 2


def test_no_gold_solution_hedges(shared_data):
    for path, q, key in (("gsm8k/train.jsonl", "question", "answer"), ("math500/test.jsonl", "problem", "solution")):
        rows = [json.loads(line) for line in (shared_data / path).open()][:1500]
        for row in rows:
            text = faithful_completion(row[key]) if "gsm8k" in path else row[key]
            result = score_trace(row[q], text, config=REWARD)
            assert not any("several final answers" in r for r in result.reasons), row[key][-200:]


@pytest.mark.parametrize("completion", [
    [{"role": "assistant", "content": "<think>Maybe it is $\\boxed{36}$? Let me work it out.\n" + WORK + "</think>\n"
      + WORK + "#### 24"}],
    [{"role": "assistant", "reasoning_content": "Is it \\boxed{36}? " + WORK, "content": WORK + "#### 24"}],
])
def test_the_reward_functions_keep_the_thinking_part_and_read_the_summarys_answer(completion):
    """TRL passes messages; the rewards keep the thinking / summary split (a box tried while thinking is neither the
    answer nor a hedge, and a question asked while thinking asserts nothing)."""
    (rafs_gold, rafs_think), (fa_gold, fa_think) = rewards([WORK + "#### 24", completion])
    assert fa_think == fa_gold == 1.0 and rafs_think >= 0.9


def test_a_value_asked_while_thinking_and_then_asserted_or_used_is_a_stray_claim():
    """'Is it 13? Yes, 13 pens.' states 13: no mere question (13 is no basic constant, nothing reaches it). Stated
    before the answer's step, it withholds support from the derivation; it is not refuted (unsupported is not
    wrong)."""
    from rewards.scoring.score import score_trace

    problem = "Tom has 3 boxes of 3 pens. He buys 2 more pens. How many pens does he have?"
    work = "3 * 3 = 9 pens in boxes.\n9 + 2 = 11 pens.\n"
    asked = [{"role": "assistant", "content": "<think>Is it 13? Let me see.\n" + work + "</think>\n#### 11"}]
    asserted = [{"role": "assistant", "content": "<think>Is it 13? Yes, 13 pens.\n" + work + "</think>\n#### 11"}]
    cfg = {"missing_evidence": "no_support"}
    from rewards.scoring.score import RAFSConfig

    config = RAFSConfig(**cfg)
    assert score_trace(problem, asked, gold="11", config=config).supported is True
    result = score_trace(problem, asserted, gold="11", config=config)
    assert result.suspect_step is None and result.supported is False
    assert any("13 (step 0, stated without a derivation)" in why for why in result.reasons)


def _think(thinking, summary):
    return [{"role": "assistant", "content": f"<think>{thinking}</think>\n{summary}"}]


@pytest.mark.parametrize("closing", ["So $\\boxed{36}$ or $\\boxed{24}$.", "So the answer is $\\boxed{36}$.",
                                     "The answer is 36."])
def test_a_thinking_that_closes_on_another_answer_hedges_when_the_summary_only_states_one(closing):
    """The thinking's closing line is the conclusion it hands the summary: a summary that states a different
    answer with no computation of it does not say why (a flattening grader reads the closing boxes too)."""
    (rafs_gold, rafs_hedge), (fa_gold, fa_hedge) = rewards([WORK + "#### 24", _think(WORK + closing, "#### 24")])
    assert rafs_hedge == 0.0 < rafs_gold and fa_hedge <= 0.5 < fa_gold


@pytest.mark.parametrize("thinking, summary", [
    (WORK + "So $\\boxed{24}$.", "#### 24"),                                 # closes on the answer itself
    (WORK + "So $\\boxed{36}$? No.", "Half of 36 is 18 and 18 + 6 = 24.\n#### 24"),  # the summary recomputes it
    ("Is it $\\boxed{36}$?\n" + WORK + "Marion has 24.", "#### 24"),          # a box tried earlier is exploration
    (WORK + "Is it 36? No, 36 is Ella's score.\nDone.", "#### 24"),       # a value asked after the last computation
])
def test_a_thinking_that_closes_on_the_answer_or_is_corrected_by_the_summary_is_no_hedge(thinking, summary):
    (rafs_gold, rafs_think), (fa_gold, fa_think) = rewards([WORK + "#### 24", _think(thinking, summary)])
    assert fa_think == fa_gold == 1.0 and rafs_think > 0.5


QUESTIONS = ["Maybe the answer is 24?", "Or is it $\\boxed{25}$?", "Could it be 40?", "Does 6 come into it?"]


@pytest.mark.parametrize("order", [[0, 1, 2, 3], [1, 0, 3, 2], [2, 3, 0, 1]])
def test_a_thinking_that_only_asks_and_boxes_another_value_hedges_before_the_golds_work(order):
    """A thinking made only of questions reaches nothing, so the summary's work does not settle the box it asks
    about ("Or is it \\boxed{25}?"): whichever value a grader reads first is the right one. Measured on the audit's
    asking_thinking_summary family: at least the gold's reward on 78.6% (rafs) / 79.4% (fa) of separated problems
    before this rule, 0.0% after."""
    thinking = "\n".join(QUESTIONS[k] for k in order)
    (rafs_gold, rafs_asked), (fa_gold, fa_asked) = rewards([WORK + "#### 24", _think(thinking, WORK + "#### 24")])
    assert rafs_asked == 0.0 < rafs_gold and fa_asked <= 0.5 < fa_gold


@pytest.mark.parametrize("thinking", [
    "Or is it $\\boxed{25}$? No: 25 is one more than it.\n" + WORK + "So Marion has 24.",  # settled by the thinking
    WORK + "Or is it $\\boxed{25}$? No, the work gives 24.",                               # stated after the box
    WORK + "Is it $\\boxed{36}$? No.",                    # reached by the thinking, recomputed by the summary
])
def test_a_box_the_thinking_settles_is_no_hedge(thinking):
    (rafs_gold, rafs_think), (fa_gold, fa_think) = rewards([WORK + "#### 24", _think(thinking, WORK + "#### 24")])
    assert fa_think == fa_gold == 1.0 and rafs_think > 0.5


def test_a_number_the_thinking_only_asks_about_is_not_reached_for_the_summary():
    """The summary's agreement with the thinking: "Maybe the answer is 24?" reaches nothing, so a summary that only
    states 24 states a number the thinking never reached; stated outside a question, it is reached."""
    from rewards.evidence import build_dataflow
    from rewards.scoring.revisions import analyse_revisions

    def conflicts(thinking):
        trace = parse_trace(MARION, _think(thinking, "Marion's score is 24.\n#### 24"))
        flow = build_dataflow(trace)
        return [str(c) for c in analyse_revisions(trace, flow, [1.0] * len(trace.steps)).summary_conflicts]

    assert any("24" in c for c in conflicts("Maybe the answer is 24?\nCould it be 40?"))
    assert conflicts("Is it 40? No.\nThe score is 24.") == []
    assert conflicts(WORK) == []
