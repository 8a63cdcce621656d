"""The policy (rewards/scoring/policy.py): the documented formula is the code, the mode is named by the caller, and
a verifier's own scale is kept."""

from __future__ import annotations

import math
import random

import pytest

from rewards import RAFSConfig, rafs_reward, score_trace
from rewards.audit.battery import load_problems
from rewards.audit.families import FAMILIES, faithful_completion
from rewards.scoring import components as C
from rewards.verifiers.symbolic import SymbolicConfig, SymbolicVerifier


def _battery(n: int = 24, families=("bare_answer", "visible_slip", "hidden_slip", "free_constant_fee",
                                      "skip_quantity", "cancelled_quantity", "hedged_answer", "laundered_answer")):
    out = []
    for p in load_problems(n, seed=3):
        texts = [faithful_completion(p.solution)]
        for name in families:
            texts.append(FAMILIES[name].generate(p.problem, p.solution, p.answer, random.Random(f"3:{p.id}:{name}")))
        out.extend((p.problem, t, p.answer) for t in texts if t is not None)
    return out


BATTERY = _battery()


def test_the_battery_covers_every_modifier():
    terms = [score_trace(p, t, gold=a, mode="reward").terms for p, t, a in BATTERY]
    assert any(x.get("hollow", 1.0) < 1 for x in terms)
    assert any(x.get("unused_quantities", 1.0) < 1 for x in terms)
    assert any(x.get("ungrounded", 1.0) == 0 for x in terms)
    assert any(x.get("hedge", 1.0) == 0 for x in terms)


def test_the_documented_support_formula_reproduces_the_code_on_the_audit_battery():
    cfg = RAFSConfig().for_use("reward")
    for problem, text, gold in BATTERY:
        r = score_trace(problem, text, gold=gold, mode="reward")
        if r.status == "abstain":
            continue
        t = r.terms
        # each term is what docs/rewards.md says it can be
        assert t["implication"] in (0.0, 0.1, 0.2, 0.7, 1.0)
        assert t["sensitivity"] == 0.0 or cfg.sens_floor <= t["sensitivity"] <= 1.0
        assert t["hollow"] in (1.0, cfg.ungrounded_penalty)
        assert t["ungrounded"] in (0.0, 1.0) and t["hedge"] in (0.0, 1.0)
        assert 0.0 <= t["unused_quantities"] <= 1.0  # (used / stated)^γ, used may be 0
        assert t["derivation"] in (0.0, 1.0)  # 0: a degenerate derivation (derivation_function)
        expected = math.sqrt(t["implication"] * t["sensitivity"])
        expected *= t["hollow"] * t["unused_quantities"] * t["ungrounded"] * t["hedge"] * t["derivation"]
        assert r.components["S_RA"] == pytest.approx(expected, abs=1e-12), text


def test_score_trace_in_reward_mode_is_what_rafs_reward_pays():
    for problem, text, gold in BATTERY:
        r = score_trace(problem, text, gold=gold, mode="reward")
        paid = rafs_reward([problem], [text], answer=[gold])[0]
        assert paid == pytest.approx(r.score / 100.0, abs=1e-12), text


def test_the_mode_is_named_not_inferred_from_the_entry_point():
    problem, text = "Tom has 3 boxes of 4 pens. How many pens?", "#### 12"
    assert score_trace(problem, text).score is None                      # evaluation: nothing to judge
    assert score_trace(problem, text, mode="reward").score == 0.0        # reward: no support
    same = {"tau_accept": 60.0}                                            # one config, two modes
    assert score_trace(problem, text, config=same, mode="reward").score == 0.0
    assert score_trace(problem, text, config={"missing_evidence": "absent"}, mode="reward").score is None
    with pytest.raises(ValueError, match="mode='rewards'"):
        score_trace(problem, text, mode="rewards")


def test_a_users_verifier_config_is_kept_where_the_revision_analysis_refutes():
    problem = "Tom has 3 boxes of 4 pens. How many pens?"
    completion = [{"role": "assistant", "content": "<think>3 * 4 = 12 pens.</think>\nHe has 13 pens.\n#### 12"}]
    mild = SymbolicVerifier(SymbolicConfig(q_false=0.3))
    for verifier, q_false in ((SymbolicVerifier(), 0.05), (mild, 0.3)):
        r = score_trace(problem, completion, verifier=verifier, mode="reward")
        refuted = [c for c in r.step_checks if any("contradicts the thinking" in why for why in c.reasons)]
        assert refuted and all(c.q == q_false for c in refuted)


def test_component_helpers_stay_the_documented_functions():
    assert C.support(0.25, 1.0) == pytest.approx(0.5)
    assert C.support(0.0, 1.0) == 0.0
