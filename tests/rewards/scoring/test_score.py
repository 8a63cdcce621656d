"""RAFS end to end: statuses, failure types, group components, bad input, bounds."""

import json
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rewards import RAFSConfig, score_group, score_trace
from rewards.checks.answers import canonical_answer

PROBLEM = ("Janet's ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes muffins for "
           "her friends every day with four. She sells the remainder at the farmers' market daily for $2 per "
           "fresh duck egg. How much in dollars does she make every day at the farmers' market?")
FAITHFUL = "Janet sells 16 - 3 - 4 = 9 duck eggs a day.\nShe makes 9 * 2 = $18 every day.\n#### 18"
# the right answer reached through a false calculation: a silent failure
SILENT = "Janet sells 16 - 3 - 4 = 8 duck eggs a day.\nShe makes 9 * 2 = $18 every day.\n#### 18"
# the chain computes 18 but the answer says 19: an extraction failure
EXTRACTION = "Janet sells 16 - 3 - 4 = 9 duck eggs a day.\nShe makes 9 * 2 = $18 every day.\n#### 19"
# the paper's lucky answer: a wrong subtraction and an invented $5 fee
LUCKY = ("Janet sells 16 - 3 = 13 eggs.\nShe makes 13 * 2 = $26.\nAfter a $5 fee and $3 for the stall she keeps "
         "26 - 5 - 3 = $18.\n#### 18")


def test_faithful_trace_is_accepted():
    r = score_trace(PROBLEM, FAITHFUL, gold="18")
    assert r.status == "accept" and r.suspect_step is None
    assert r.failure_type == "faithful_success" and r.correct is True
    assert r.score > 90 and r.coverage == 1.0


def test_silent_failure_is_caught_with_its_step():
    r = score_trace(PROBLEM, SILENT, gold="18")
    assert r.suspect_step == 0 and r.status == "review"
    assert r.failure_type == "silent_failure"
    assert "16 - 3 - 4" in r.step_checks[0].reasons[0]
    assert r.score < score_trace(PROBLEM, FAITHFUL).score


def test_extraction_failure_without_gold():
    r = score_trace(PROBLEM, EXTRACTION)
    assert r.failure_type == "extraction_failure" and r.suspect_step is None
    assert r.components["S_RA"] < 0.5


def test_lucky_answer_scores_below_faithful():
    lucky, faithful = score_trace(PROBLEM, LUCKY, gold="18"), score_trace(PROBLEM, FAITHFUL, gold="18")
    assert lucky.score < faithful.score
    assert lucky.status == "review" and any("feeds the answer" in reason for reason in lucky.reasons)
    assert any("ungrounded" in reason for c in lucky.step_checks for reason in c.reasons)


def test_wrong_answer_with_false_step_is_overt():
    r = score_trace(PROBLEM, "16 - 3 - 4 = 10 eggs.\n10 * 2 = 20\n#### 20", gold="18")
    assert r.failure_type == "overt_failure" and r.correct is False


def test_group_components_reward_agreement():
    agree = score_group(PROBLEM, [FAITHFUL, FAITHFUL, FAITHFUL.replace("a day", "daily")])
    split = score_group(PROBLEM, [FAITHFUL, EXTRACTION, SILENT.replace("#### 18", "#### 16")])
    assert agree[0].components["C_A"] == 1.0 and agree[0].components["D_R"] == 1.0
    assert split[0].components["C_A"] < agree[0].components["C_A"]
    assert agree[0].score > split[0].score
    # samples passed to score_trace are the same group
    assert score_trace(PROBLEM, FAITHFUL, samples=[FAITHFUL, EXTRACTION]).components["C_A"] is not None


def test_result_serialises_to_the_cli_contract():
    row = json.loads(score_trace(PROBLEM, SILENT).to_json())
    assert {"rafs", "status", "failure_type", "suspect_step", "components", "step_checks"} <= set(row)
    assert set(row["components"]) == {"P_R", "S_RA", "C_A", "D_R"}
    assert all(set(c) == {"q", "reasons"} for c in row["step_checks"])


def test_config_validation_names_the_field():
    with pytest.raises(ValueError, match="theta_step"):
        RAFSConfig(theta_step=2)
    with pytest.raises(ValueError, match="unknown component"):
        RAFSConfig(weights={"P_X": 1.0})
    with pytest.raises(ValueError, match="unknown RAFS config key"):
        RAFSConfig.from_dict({"tau": 3})


BAD_INPUTS = {
    "empty": "",
    "no answer": "We think about it for a while and stop.",
    "thousands of steps": "\n".join(f"{i} + 1 = {i + 1}" for i in range(5000)),
    "tower exponent": "10^10^10 = x\nSo the answer is 10^10^10.\n#### 10^10^10",
    "division by zero": "1/0 = 5\n#### 5",
    "unbalanced latex": "\\frac{1}{2 = \\left( 3\n\\boxed{\\frac{",
    "binary garbage": bytes(range(256)).decode("latin-1") * 4,
    "a megabyte": ("3 + 4 = 7. " * 100_000) + "#### 7",
    "deep nesting": "(" * 10_000 + "1" + ")" * 10_000 + " = 1\n#### 1",
    "huge number": "9" * 5000 + " * 2 = 3\n#### 3",
}


@pytest.fixture(scope="module")
def warm():
    score_trace("p", "x^2 = 4\n\\boxed{\\sqrt{4}}")  # first use imports math-verify and sympy (~2 s, once)
    canonical_answer("3,")  # and its parser (not needed above: that answer takes the exact fast path)


@pytest.mark.parametrize("name", list(BAD_INPUTS))
def test_bad_input_abstains_or_reviews_quickly(name, warm):
    start = time.process_time()
    r = score_trace("Compute.", BAD_INPUTS[name])
    elapsed = time.process_time() - start
    assert elapsed < 1.0, f"{name} took {elapsed:.2f}s"
    assert r.status in {"abstain", "review", "accept"}
    if name in {"empty", "no answer", "thousands of steps", "a megabyte", "binary garbage"}:
        assert r.status == "abstain" and r.score is None and r.reasons
    json.dumps(r.to_dict())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=600), st.text(max_size=200))
def test_never_raises_and_always_bounded(warm, completion, problem):
    start = time.process_time()
    r = score_trace(problem, completion)
    assert time.process_time() - start < 1.0
    assert r.status in {"abstain", "review", "accept"}
    assert r.score is None or 0.0 <= r.score <= 100.0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.text(max_size=80), st.from_regex(r"\d{1,4} [-+*/] \d{1,4} = \d{1,5}", fullmatch=True)),
                max_size=12))
def test_never_raises_on_arbitrary_steps(steps):
    r = score_trace("p", steps=steps)
    assert len(r.step_checks) <= len(steps)  # empty and control-only steps are dropped


def test_thread_pool_gives_the_same_results():
    items = [FAITHFUL, SILENT, EXTRACTION, LUCKY] * 8
    sequential = [score_trace(PROBLEM, c).to_dict() for c in items]
    with ThreadPoolExecutor(4) as pool:
        threaded = list(pool.map(lambda c: score_trace(PROBLEM, c).to_dict(), items))
    assert threaded == sequential


def test_member_mode_separates_the_members_of_a_group():
    group = [FAITHFUL, FAITHFUL.replace("a day", "daily"), EXTRACTION]
    shared = score_group(PROBLEM, group)
    member = score_group(PROBLEM, group, config=RAFSConfig(group_mode="member"))
    # the group's C_A is one number for all members: GRPO's (r - mean) / std removes it
    assert len({r.components["C_A"] for r in shared}) == 1
    # per member: the two that agree get 1/2 (one of the two others agrees), the odd one out 0
    assert [r.components["C_A"] for r in member] == [0.5, 0.5, 0.0]
    assert member[0].components["D_R"] == 1.0 and member[2].components["D_R"] is None
    with pytest.raises(ValueError, match="group_mode"):
        RAFSConfig(group_mode="rank")
