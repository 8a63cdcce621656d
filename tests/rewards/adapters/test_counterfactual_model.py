"""Model-based counterfactual sensitivity: edits and their constraints, continuation, teacher forcing."""

from __future__ import annotations

from fractions import Fraction

import pytest

from rewards.checks.arithmetic import numbers_in
from rewards.adapters.counterfactual import (CounterfactualConfig, answer_logprobs, apply_sensitivity, make_edits,
                                    model_sensitivity, token_edit_distance)
from rewards.evidence import build_dataflow
from rewards.scoring.score import score_trace
from rewards.parsing.trace import parse_trace

PROBLEM = "Sam has 2 bags of 6 apples and eats 3, then buys 10."
COMPLETION = "2 * 6 = 12 apples.\n12 - 3 = 9 apples.\n9 + 10 = 19 apples.\n#### 19"
TRACE = parse_trace(PROBLEM, COMPLETION)
FLOW = build_dataflow(TRACE)


def test_edits_keep_the_four_constraints():
    edits, rejected = make_edits(TRACE, FLOW)
    assert [e.step for e in edits] == [1, 0] and rejected == []
    for e in edits:
        before = [v for v, _ in numbers_in(e.original)]
        after = [v for v, _ in numbers_in(e.text)]
        assert sum(a != b for a, b in zip(before, after)) == 1 and len(before) == len(after)  # atomic
        assert e.token_distance <= CounterfactualConfig().max_token_edit  # bounded
        assert FLOW.answer_value not in after and Fraction(e.expected) not in after  # no answer leakage
        assert e.expected == "20"  # propagated through the graph: 9 -> 10 gives 10 + 10 = 20
    assert edits[0].text == "12 - 3 = 10 apples."


def test_edits_that_break_a_constraint_are_rejected_with_the_reason():
    t = parse_trace("A pen costs 4.75 dollars. Tom buys 2 pens and pays 1 dollar tax.",
                    "2 * 4.75 = 9.5 dollars.\n9.5 + 1 = 10.5 dollars.\n#### 10.5")
    edits, rejected = make_edits(t, build_dataflow(t), config=CounterfactualConfig(max_token_edit=1))
    assert edits == [] and "bounded: token edit distance 3 > max_token_edit=1" in rejected[0][1]
    t = parse_trace("Tom has 3 boxes of 4 pens.",
                    "He has 3 * 4 = 12 pens, about 8 more than 4.\n12 - 4 = 8 pens.\n#### 8")
    assert "answer leakage" in make_edits(t, build_dataflow(t))[1][0][1]
    t = parse_trace("Tom has 3 boxes of 4 pens. He gives away 5.", "The answer is clearly 7.\n3 * 4 = 12.\n#### 7")
    assert "not pivotal" in make_edits(t, build_dataflow(t))[1][0][1]
    assert model_sensitivity(t, build_dataflow(t), generate_fn=lambda p: ["#### 8"] * len(p)).sensitivity is None
    assert token_edit_distance("kitten", "sitting") == 3


@pytest.mark.parametrize("continuation, sens", [
    ("10 + 10 = 20 apples.\n#### 20", 1.0),   # moves to the propagated answer
    ("#### 19", 0.0),                          # does not move: post-hoc
    ("The answer is 21.", 0.5),                # moves elsewhere: partial credit
])
def test_generation_deltas(continuation, sens):
    seen = []

    def generate_fn(prompts):
        seen.extend(prompts)
        return [continuation] * len(prompts)

    r = model_sensitivity(TRACE, FLOW, generate_fn=generate_fn)
    assert r.mode == "generate" and r.sensitivity == sens and len(r.deltas) == 2
    # the prefix is x + R_<j + r'_j: later steps are not shown to the policy
    assert seen[0].endswith("2 * 6 = 12 apples.\n12 - 3 = 10 apples.\n") and "9 + 10" not in seen[0]


def test_no_answer_in_continuation_drops_the_edit_and_abstains_below_m_min():
    r = model_sensitivity(TRACE, FLOW, generate_fn=lambda ps: ["I am not sure."] * len(ps))
    assert r.sensitivity is None and len(r.deltas) == 0 and any("no numeric answer" in why for _, why in r.rejected)
    r = model_sensitivity(TRACE, FLOW, generate_fn=lambda ps: ["#### 20", "nothing"][:len(ps)],
                          config=CounterfactualConfig(m_min=2))
    assert r.sensitivity is None and len(r.deltas) == 1


def test_transformers_generate_path_runs_batched(llama_dir):
    pytest.importorskip("torch")
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(llama_dir)
    model = AutoModelForCausalLM.from_pretrained(llama_dir).eval()
    r = model_sensitivity(TRACE, FLOW, model, tok, mode="generate", config=CounterfactualConfig(max_new_tokens=6))
    assert r.mode == "generate"
    assert r.sensitivity is None or 0.0 <= r.sensitivity <= 1.0
    assert len(r.deltas) + sum("no numeric answer" in why for _, why in r.rejected) == 2


def test_answer_logprobs_equal_unpadded_single_sequences(llama_dir):
    torch = pytest.importorskip("torch")
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(llama_dir)
    model = AutoModelForCausalLM.from_pretrained(llama_dir).eval()
    contexts = ["Tom has 3 boxes.\n3 * 4 = 12\n#### ", "x\n#### "]
    targets = ["12", "7 apples"]
    calls = []
    handle = model.register_forward_hook(lambda *a: calls.append(1))
    got = answer_logprobs(model, tok, contexts, targets)
    handle.remove()
    assert len(calls) == 1  # one batched forward pass
    for ctx, tgt, g in zip(contexts, targets, got.tolist()):
        c, t = tok.encode(ctx), tok.encode(tgt, add_special_tokens=False)
        with torch.no_grad():
            logp = torch.log_softmax(model(torch.tensor([c + t])).logits[0], -1)
        want = sum(logp[len(c) - 1 + i, tok_id].item() for i, tok_id in enumerate(t))
        assert g == pytest.approx(want, abs=1e-4)


def test_teacher_forced_sensitivity_is_bounded_and_one_pass(llama_dir):
    pytest.importorskip("torch")
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(llama_dir)
    model = AutoModelForCausalLM.from_pretrained(llama_dir).eval()
    calls = []
    handle = model.register_forward_hook(lambda *a: calls.append(1))
    r = model_sensitivity(TRACE, FLOW, model, tok)
    handle.remove()
    assert r.mode == "teacher_forced" and len(calls) == 1 and len(r.deltas) == 2
    assert 0.0 <= r.sensitivity <= 1.0 and all(0.0 <= d.delta <= 1.0 for d in r.deltas)
    assert all(d.drop is not None and d.shift is not None for d in r.deltas)
    prefix = model_sensitivity(TRACE, FLOW, model, tok, config=CounterfactualConfig(context="prefix"))
    assert prefix.sensitivity is not None and prefix.deltas[0].drop != r.deltas[0].drop


def test_apply_sensitivity_replaces_the_structural_one():
    base = score_trace(PROBLEM, COMPLETION)
    assert base.components["S_RA"] == pytest.approx(1.0)
    post_hoc = apply_sensitivity(base, FLOW, 0.0)
    assert post_hoc.components["S_RA"] < 0.01 and post_hoc.score < base.score and post_hoc.status == "review"
    faithful = apply_sensitivity(base, FLOW, 1.0)
    assert faithful.score == pytest.approx(base.score) and faithful.status == base.status
    with pytest.raises(ValueError, match="sensitivity=1.5"):
        apply_sensitivity(base, FLOW, 1.5)


def test_vllm_engine_adapter():
    from types import SimpleNamespace

    from rewards.adapters.counterfactual import vllm_generate_fn

    class FakeLLM:  # the shape of vllm.LLM.generate's answer
        def __init__(self):
            self.calls = []

        def generate(self, prompts, params, use_tqdm=True):
            self.calls.append((list(prompts), params, use_tqdm))
            return [SimpleNamespace(outputs=[SimpleNamespace(text="10 + 10 = 20.\n#### 20")]) for _ in prompts]

    llm = FakeLLM()
    r = model_sensitivity(TRACE, FLOW, generate_fn=vllm_generate_fn(llm, sampling_params="greedy"))
    assert r.sensitivity == 1.0 and len(llm.calls) == 1 and len(llm.calls[0][0]) == 2  # one batched call
    assert llm.calls[0][1] == "greedy" and llm.calls[0][2] is False


def test_generation_deltas_read_an_irrational_answer():
    """An irrational answer (``3\\sqrt{13}``) is read as the dataflow keys it (review finding: it was dropped as
    'no numeric answer'), and a named one (``x = 19``) as its number."""
    from rewards.adapters.counterfactual import generation_deltas
    from rewards.evidence import approx_key

    problem = "Find the distance between the points $(2, -6)$ and $(-4, 3)$."
    gold = (r"$(2 - (-4))^2 + ((-6) - 3)^2 = 36 + 81 = 117$" + "\n" + r"$\sqrt{117} = 3\sqrt{13}$" + "\n"
            r"The answer is $\boxed{3\sqrt{13}}$")
    trace = parse_trace(problem, gold)
    flow = build_dataflow(trace)
    assert flow.approximate and flow.answer_value == approx_key(3 * 13 ** 0.5)
    edits, _ = make_edits(trace, flow)
    assert edits
    deltas, dropped = generation_deltas(trace, flow, edits, lambda ps: [r"so $\boxed{3\sqrt{13}}$"] * len(ps))
    assert len(deltas) == len(edits) and all(d.delta == 0.0 for d in deltas) and not dropped
    deltas, _ = generation_deltas(TRACE, FLOW, make_edits(TRACE, FLOW)[0], lambda ps: ["#### x = 19"] * len(ps))
    assert deltas and all(d.delta == 0.0 for d in deltas)
