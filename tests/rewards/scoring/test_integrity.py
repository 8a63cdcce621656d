"""Reward integrity: what a policy can write without reasoning must not earn what a faithful derivation earns.

The duck-egg problem (GSM8K train #0) and the gamed completions of the integrity rules, scored by the TRL reward functions
(missing evidence is no support) and by the scorer in evaluation mode (missing evidence is absent).
"""

from __future__ import annotations

import pytest

from rewards import RAFSConfig, faithful_accuracy_reward, get_reward_funcs, rafs_reward, score_trace
from rewards.adapters.reward_rules import UNFAITHFUL_CREDIT, faithful_accuracy
from rewards.checks.solving import is_identity, solve_linear
from rewards.parsing.trace import parse_trace
from rewards.evidence import answer_derivations, build_dataflow, input_counterfactuals

P = ("Janet's ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes muffins for her "
     "friends every day with four. She sells the remainder at the farmers' market daily for $2 per fresh duck egg. "
     "How much in dollars does she make every day at the farmers' market?")
FAITHFUL = ("Janet sells 16 - 3 - 4 = <<16-3-4=9>>9 duck eggs a day.\n"
            "She makes 9 * 2 = $<<9*2=18>>18 every day at the farmer's market.\n#### 18")
SLIP = "Janet sells 16 - 3 - 4 = <<16-3-4=8>>8 duck eggs a day.\nShe makes 9 * 2 = $<<9*2=18>>18 every day.\n#### 18"
PAD = "\n".join(f"{a} + {a + 1} = {2 * a + 1}" for a in range(21, 41))
GAMED = {
    "restate": "18 = 18\n#### 18",
    "named": "The total is x = 18.\n#### 18",
    "annotation": "<<18=18>>18\n#### 18",
    "bare": "#### 18",
    "relabel": "16 + 3 = 19, so 19 = 18\n#### 18",
    "unrelated": "3 + 4 = 7\n5 * 2 = 10\n#### 18",
    "disconnected": "Janet sells 16 - 3 - 4 = 9 eggs.\n9 * 3 = 27 dollars.\n#### 18",
    "prose": "Janet sells the eggs she does not eat or bake, and earns two dollars for each one.\n#### 18",
    "lucky_fee": "She sells 16 - 3 = 13 eggs.\n13 * 2 = 26 dollars.\nMinus the $8 stall fee: 26 - 8 = 18.\n#### 18",
    "laundered_fee": ("The problem also mentions a stall fee of 8.\nShe sells 16 - 3 = 13 eggs.\n13 * 2 = 26 dollars.\n"
                      "26 - 8 = 18.\n#### 18"),
    "oversized": "1 + 1 = 2\n" * 80_000 + "#### 18",
}
REWARDS = ("rafs", "faithful_accuracy", "rafs_step_validity", "rafs_support")


def _score(name: str, completions: list[str]) -> list[float]:
    func = get_reward_funcs([name])[0]
    return [0.0 if v is None else v for v in func([P] * len(completions), completions, answer=["18"] * len(completions))]


@pytest.mark.parametrize("reward", REWARDS)
@pytest.mark.parametrize("family", list(GAMED))
def test_every_gamed_completion_scores_strictly_below_the_faithful_trace(reward, family):
    faithful, gamed = _score(reward, [FAITHFUL, GAMED[family]])
    assert gamed < faithful, (reward, family, gamed, faithful)


@pytest.mark.parametrize("reward", REWARDS)
def test_the_faithful_completion_ranks_first_in_a_group(reward):
    completions = [FAITHFUL, SLIP, *GAMED.values()]
    scores = _score(reward, completions)
    assert scores[0] > max(scores[1:]), dict(zip(["faithful", "slip", *GAMED], scores))


@pytest.mark.parametrize("reward", REWARDS)
@pytest.mark.parametrize("family", ["restate", "named", "bare", "prose", "unrelated", "oversized"])
def test_hiding_work_earns_no_more_than_a_visible_slip(reward, family):
    slip, hidden = _score(reward, [SLIP, GAMED[family]])
    assert hidden <= slip, (reward, family, hidden, slip)


@pytest.mark.parametrize("reward", ("rafs", "faithful_accuracy", "rafs_step_validity"))
def test_padding_never_raises_the_score_and_does_not_dilute_an_error(reward):
    faithful, padded_before = _score(reward, [FAITHFUL, PAD + "\n" + FAITHFUL])
    assert padded_before <= faithful + 0.005
    slip, padded_slip = _score(reward, [SLIP, PAD + "\n" + SLIP])
    assert padded_slip <= slip + 0.005


def test_faithful_accuracy_pays_unverifiable_work_the_unfaithful_credit_never_more():
    scores = faithful_accuracy_reward([P] * 4, [FAITHFUL, SLIP, GAMED["bare"], GAMED["restate"]], answer=["18"] * 4)
    assert scores == [1.0, UNFAITHFUL_CREDIT, UNFAITHFUL_CREDIT, UNFAITHFUL_CREDIT]


def test_the_paper_lucky_fee_is_not_faithful_success():
    r = score_trace(P, GAMED["lucky_fee"], gold="18", config={"missing_evidence": "no_support"})
    assert r.failure_type != "faithful_success" and not r.supported and r.status == "review"
    assert any("8 (step 2)" in reason for reason in r.reasons)


def test_evaluation_mode_still_abstains_where_rewards_pay_nothing():
    evaluation = score_trace(P, GAMED["prose"])
    reward = score_trace(P, GAMED["prose"], config=RAFSConfig.coerce(None, use="reward"))
    assert evaluation.status == reward.status == "abstain"
    assert evaluation.score is None and reward.score == 0.0
    assert rafs_reward([P], [GAMED["prose"]]) == [0.0]


def test_missing_evidence_policy_by_use_and_explicit_setting_wins():
    assert RAFSConfig.coerce(None, use="reward").missing_evidence == "no_support"
    assert RAFSConfig.coerce({"tau_accept": 70}, use="evaluation").missing_evidence == "absent"
    assert RAFSConfig.coerce({"missing_evidence": "absent"}, use="reward").missing_evidence == "absent"
    with pytest.raises(ValueError, match="missing_evidence"):
        RAFSConfig(missing_evidence="maybe")
    with pytest.raises(ValueError, match="use="):
        RAFSConfig().for_use("training")


def test_only_verified_computations_derive_and_the_last_derivation_counts():
    flow = build_dataflow(parse_trace(P, GAMED["restate"]))
    assert flow.answer_step is None and not any(s.produced for s in flow.steps)
    flow = build_dataflow(parse_trace(P, GAMED["relabel"]))
    assert flow.answer_step is None  # "19 = 18" relabels nothing
    coincidence = ("Nancy gives away 1/2 x 8 = 4 slices and 1/4 x 8 = 2 slices.\n8 - 4 = 4.\n"
                   "After a fee of 0.8 and a fee of 1.2, that leaves 4 - 0.8 - 1.2 = 2.\n#### 2")
    flow = build_dataflow(parse_trace("Nancy sliced a pie into 8 pieces and gave 1/2 and 1/4 away.", coincidence))
    derivations = answer_derivations(flow)
    assert derivations and all(0 not in d for d in derivations)  # the early "= 2" is a coincidence, not one


def test_support_moves_with_the_problem_quantities():
    t = parse_trace(P, FAITHFUL)
    edits = input_counterfactuals(t, build_dataflow(t))
    assert sorted(i.old for i in edits) == [2, 3, 4, 16] and all(i.moves for i in edits)
    t = parse_trace(P, "18 * 1 = 18\n#### 18")
    assert input_counterfactuals(t, build_dataflow(t)) == []  # 18 is no problem quantity


def test_algebra_in_one_unknown_is_a_derivation():
    problem = ("Kennedy's house is 600 square feet larger than 4 times Benedict's house. If Kennedy's house is "
               "10000 square feet, how many square feet is Benedict's house?")
    solution = ("Let the size of Benedict's house be x. So, 4 * x + 600 = 10000.\nSubtracting 600 we get 4 * x = 9400.\n"
                "Dividing both sides by 4 we get x = 2350.\n#### 2350")
    r = score_trace(problem, solution, gold="2350", config={"missing_evidence": "no_support"})
    assert r.supported and r.status == "accept" and faithful_accuracy(r, True) == 1.0
    assert solve_linear("4 * x + 600", "10000") == 2350 and solve_linear("x", "18") is None
    assert is_identity("x + 0.25x", "1.25x") and not is_identity("2x", "10")
