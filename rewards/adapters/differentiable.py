"""RAFS in torch: differentiable components, aggregation and a teacher-forced sensitivity for training.

The same formulas as :mod:`rewards.scoring.components`, on tensors (any dtype; ``gradcheck``-clean in float64):

* ``P_R = GM(q)^(1-λ) · softmin_τ(q)^λ``, ``GM(q) = exp(mean log q)``,
  ``softmin_τ(q) = -τ · log(mean exp(-q/τ))`` (``smooth=False`` uses the hard minimum: differentiable almost
  everywhere, but not smooth);
* ``S_RA = exp(mean(log p_imp, log sens))`` over whichever is given;
* ``C_A = 1 - H(p̂)/log K`` with *soft* answers: ``P[k, c]`` is sample ``k``'s probability of answer class ``c``,
  ``p̂ = mean_k P[k]``, ``H(p̂) = -Σ_c p̂_c log p̂_c`` (clamped to [0, 1] when ``C > K`` lets ``H`` exceed
  ``log K``);
* ``RAFS = 100 · exp(Σ_m w_m log(s_m + ε)) / (1 + ε)`` over the given components, weights renormalised;
* the teacher-forced sensitivity (:func:`rewards.adapters.counterfactual.teacher_forced_deltas` with ``grad=True``) is a
  smooth function of the policy's parameters, so ``-rafs_torch(...)`` is a usable auxiliary loss.

Use as an auxiliary loss in a training step (the RAFS pulls the policy toward answers that depend on its own
reasoning; the step validities ``q`` come from a verifier and are constants)::

    sens = policy_sensitivity(policy, tokenizer, trace, flow)            # differentiable in policy's params
    score = rafs_torch(q=torch.tensor(q_t), p_imp=torch.tensor(p_imp), sens=sens)
    loss = lm_loss + aux_weight * rafs_loss(score)                      # rafs_loss = 1 - score / 100
    loss.backward(); optimizer.step()

>>> import torch
>>> q = torch.tensor([0.98, 0.98, 0.05], dtype=torch.float64)
>>> round(float(step_validity_torch(q, smooth=False)), 3)
0.135
>>> from rewards.scoring.components import step_validity
>>> abs(float(step_validity_torch(q, smooth=False)) - step_validity([0.98, 0.98, 0.05])) < 1e-12
True
>>> P = torch.tensor([[1., 0.], [1., 0.], [1., 0.], [0., 1.]], dtype=torch.float64)
>>> round(float(consensus_torch(P)), 4)  # = components.consensus(["18", "18", "18", "17"])
0.5944
"""

from __future__ import annotations

import math
from typing import Mapping

import torch

__all__ = ["DEFAULT_WEIGHTS", "step_validity_torch", "support_torch", "consensus_torch", "aggregate_torch",
           "rafs_torch", "rafs_loss", "policy_sensitivity"]

DEFAULT_WEIGHTS = {"P_R": 0.4, "S_RA": 0.3, "C_A": 0.15, "D_R": 0.15}
"""The default component weights (the same as :class:`rewards.scoring.score.RAFSConfig`)."""

_TINY = 1e-12


def step_validity_torch(q: torch.Tensor, lam: float = 0.5, *, smooth: bool = True, tau: float = 0.1,
                        eps: float = 1e-9) -> torch.Tensor:
    """``P_R`` over the last dimension of ``q`` (steps); batched over the leading dimensions."""
    if q.shape[-1] == 0:
        raise ValueError("step_validity_torch: q has no steps (P_R is undefined for an empty trace).")
    logq = torch.log(q.clamp_min(eps))
    gm = torch.exp(logq.mean(-1))
    if smooth:
        n = q.shape[-1]
        worst = -tau * (torch.logsumexp(-q / tau, dim=-1) - math.log(n))
    else:
        worst = q.min(-1).values
    return gm ** (1.0 - lam) * worst.clamp_min(eps) ** lam


def support_torch(p_imp: torch.Tensor | None, sens: torch.Tensor | None, eps: float = 1e-9) -> torch.Tensor | None:
    """``S_RA = exp(mean of log p_imp, log sens)`` over whichever is not ``None``."""
    parts = [x for x in (p_imp, sens) if x is not None]
    if not parts:
        return None
    return torch.exp(sum(torch.log(x.clamp_min(eps)) for x in parts) / len(parts))


def consensus_torch(answer_probs: torch.Tensor) -> torch.Tensor:
    """``C_A = 1 - H(p̂)/log K`` for soft answers ``answer_probs[K, C]`` (rows are distributions over answers)."""
    if answer_probs.dim() != 2 or answer_probs.shape[0] < 2:
        raise ValueError(f"consensus_torch needs answer_probs of shape [K >= 2, C], got {tuple(answer_probs.shape)}.")
    k = answer_probs.shape[0]
    p_hat = answer_probs.mean(0)
    entropy = -(p_hat * torch.log(p_hat.clamp_min(_TINY))).sum()
    return (1.0 - entropy / math.log(k)).clamp(0.0, 1.0)


def aggregate_torch(components: Mapping[str, torch.Tensor | None], weights: Mapping[str, float] | None = None,
                    eps: float = 1e-3) -> torch.Tensor:
    """``RAFS = 100 · exp(Σ w_m log(min(s_m, 1) + ε)) / (1 + ε)`` over the given components (0..100)."""
    weights = dict(weights or DEFAULT_WEIGHTS)
    avail = {m: s for m, s in components.items() if s is not None and weights.get(m, 0.0) > 0}
    if not avail:
        raise ValueError(f"aggregate_torch: no component with a positive weight among {sorted(components)}.")
    total = sum(weights[m] for m in avail)
    log_score = sum(weights[m] / total * torch.log(s.clamp(max=1.0) + eps) for m, s in avail.items())
    return 100.0 * torch.exp(log_score) / (1.0 + eps)


def rafs_torch(q: torch.Tensor | None = None, p_imp: torch.Tensor | None = None, sens: torch.Tensor | None = None,
               answer_probs: torch.Tensor | None = None, d_r: torch.Tensor | None = None, *,
               weights: Mapping[str, float] | None = None, lam: float = 0.5, tau: float = 0.1, smooth: bool = True,
               eps: float = 1e-3) -> torch.Tensor:
    """The differentiable RAFS (0..100) from whichever signals are given.

    Args:
        q: step validities ``[T]`` (P_R). p_imp, sens: scalars (S_RA). answer_probs: ``[K, C]`` soft answers (C_A).
        d_r: a scalar reasoning stability (D_R), e.g. a mean pairwise similarity.
    """
    comps = {
        "P_R": step_validity_torch(q, lam, smooth=smooth, tau=tau) if q is not None else None,
        "S_RA": support_torch(p_imp, sens),
        "C_A": consensus_torch(answer_probs) if answer_probs is not None else None,
        "D_R": d_r,
    }
    return aggregate_torch(comps, weights, eps)


def rafs_loss(score: torch.Tensor) -> torch.Tensor:
    """The auxiliary loss ``1 - RAFS/100`` (minimising it raises the score)."""
    return 1.0 - score / 100.0


def policy_sensitivity(model, tokenizer, trace, flow, config=None) -> torch.Tensor | None:
    """The teacher-forced counterfactual sensitivity as a 0-d tensor differentiable in ``model``'s parameters.

    ``None`` when the trace has fewer valid edits than ``config.m_min``.
    """
    from rewards.adapters.counterfactual import model_sensitivity

    result = model_sensitivity(trace, flow, model, tokenizer, mode="teacher_forced", config=config, grad=True)
    return result.tensor if result.sensitivity is not None else None
