"""The torch RAFS: agreement with the pure components, gradcheck in float64, and training moves it."""

from __future__ import annotations

import random

import pytest

torch = pytest.importorskip("torch")

from rewards.scoring import components as C  # noqa: E402
from rewards.adapters.differentiable import (aggregate_torch, consensus_torch, policy_sensitivity, rafs_loss,  # noqa: E402
                                    rafs_torch, step_validity_torch, support_torch)

D = torch.float64


def test_agrees_with_the_pure_components():
    rng = random.Random(0)
    for _ in range(20):
        q = [rng.uniform(0.02, 1.0) for _ in range(rng.randint(1, 6))]
        qt = torch.tensor(q, dtype=D)
        assert float(step_validity_torch(qt, smooth=False)) == pytest.approx(C.step_validity(q), rel=1e-9)
        assert float(step_validity_torch(qt, smooth=True)) == pytest.approx(C.step_validity(q, smooth=True), rel=1e-9)
        comps = {"P_R": rng.random(), "S_RA": rng.random(), "C_A": rng.choice([None, rng.random()]), "D_R": None}
        w = {"P_R": 0.4, "S_RA": 0.3, "C_A": 0.15, "D_R": 0.15}
        got = aggregate_torch({k: None if v is None else torch.tensor(v, dtype=D) for k, v in comps.items()}, w)
        assert float(got) == pytest.approx(C.aggregate(comps, w), rel=1e-9)
    answers = ["18", "18", "17", "16", "18"]
    classes = sorted(set(answers))
    onehot = torch.tensor([[float(a == c) for c in classes] for a in answers], dtype=D)
    assert float(consensus_torch(onehot)) == pytest.approx(C.consensus(answers), rel=1e-9)
    s_ra = support_torch(torch.tensor(0.7, dtype=D), torch.tensor(0.4, dtype=D))
    assert float(s_ra) == pytest.approx(C.support(0.7, 0.4))


def test_gradcheck_float64():
    q = torch.tensor([0.9, 0.3, 0.7, 0.55], dtype=D, requires_grad=True)
    assert torch.autograd.gradcheck(lambda x: step_validity_torch(x, smooth=True, tau=0.2), (q,))
    p = torch.tensor([0.8], dtype=D, requires_grad=True)
    s = torch.tensor([0.4], dtype=D, requires_grad=True)
    assert torch.autograd.gradcheck(support_torch, (p, s))
    probs = torch.softmax(torch.randn(4, 3, dtype=D), -1).requires_grad_()
    assert float(consensus_torch(probs.detach())) > 0  # not clamped: the gradient is the formula's
    assert torch.autograd.gradcheck(consensus_torch, (probs,))
    assert torch.autograd.gradcheck(
        lambda a, b, c, d: rafs_torch(a, b, c, d, smooth=True), (q, p.squeeze(), s.squeeze(), probs))


def test_soft_consensus_rewards_agreement():
    agree = torch.tensor([[0.9, 0.1], [0.8, 0.2], [0.95, 0.05]], dtype=D, requires_grad=True)
    ca = consensus_torch(agree)
    ca.backward()
    # raising the modal answer's probability in any sample raises C_A
    assert (agree.grad[:, 0] > agree.grad[:, 1]).all()
    with pytest.raises(ValueError, match="K >= 2"):
        consensus_torch(torch.ones(1, 3))


def test_auxiliary_loss_raises_the_policy_sensitivity(llama_dir):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from rewards.evidence import build_dataflow
    from rewards.parsing.trace import parse_trace

    torch.manual_seed(0)
    tok = AutoTokenizer.from_pretrained(llama_dir)
    model = AutoModelForCausalLM.from_pretrained(llama_dir, dtype=torch.float32)
    model.train()
    trace = parse_trace("Sam has 2 bags of 6 apples and eats 3, then buys 10.",
                        "2 * 6 = 12 apples.\n12 - 3 = 9 apples.\n9 + 10 = 19 apples.\n#### 19")
    flow = build_dataflow(trace)
    q = torch.tensor([0.98, 0.98, 0.98])
    optimizer = torch.optim.Adam(model.parameters(), lr=5e-4)
    scores, sens_values = [], []
    for _ in range(12):
        sens = policy_sensitivity(model, tok, trace, flow)
        assert sens.requires_grad
        score = rafs_torch(q=q, p_imp=torch.tensor(1.0), sens=sens)
        loss = rafs_loss(score)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scores.append(score.item())
        sens_values.append(sens.item())
    assert sens_values[-1] > sens_values[0] + 0.05  # the answer comes to depend on the edited steps
    assert scores[-1] > scores[0] + 3.0
    assert sum(b > a for a, b in zip(scores, scores[1:])) >= 9  # it goes up, not by luck of one step
