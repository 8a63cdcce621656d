"""The four RAFS signals as pure functions: P_R, S_RA, C_A, D_R (and the aggregation).

* ``P_R = GM(q)^(1-λ) · min(q)^λ`` — step validity, a geometric mean tempered by the worst step
  (``smooth=True`` replaces the minimum by the soft-min ``-τ·log(mean(exp(-q/τ)))``).
* ``S_RA = sqrt(p_imp · sens)`` — reasoning-to-answer support: implication (does the chain's result equal the
  stated answer?) and counterfactual sensitivity (does the answer move when a pivotal step's result is edited?).
* ``C_A = 1 - H(p̂)/log K`` — answer consensus over ``K >= 2`` samples (``p̂``: shares of canonical answers).
* ``D_R`` — mean pairwise Jaccard similarity of the claim sets of the traces that reach the modal answer.
* ``RAFS = 100 · exp(Σ_m w_m · log(s_m + ε))`` over the available components, weights renormalised.

>>> round(step_validity([0.98, 0.98, 0.05]), 3)
0.135
>>> consensus(["18", "18", "18", "17"]) > consensus(["18", "17", "16", "15"])
True
>>> round(aggregate({"P_R": 0.9, "S_RA": 1.0, "C_A": None, "D_R": None}, {"P_R": 0.4, "S_RA": 0.3}), 1)
94.2
"""

from __future__ import annotations

import math
from collections import Counter
from itertools import combinations
from typing import TYPE_CHECKING, Callable, Mapping, Sequence

if TYPE_CHECKING:  # pragma: no cover
    from rewards.evidence import Dataflow, Intervention

__all__ = ["step_validity", "suspect_step", "implication", "sensitivity", "support", "consensus", "agreement",
           "stability", "member_stability", "claims", "jaccard_similarity", "aggregate"]


def step_validity(q: Sequence[float], lam: float = 0.5, *, smooth: bool = False, tau: float = 0.1) -> float | None:
    """``P_R = GM(q)^(1-λ) · min(q)^λ``; ``None`` for an empty trace."""
    if not q:
        return None
    eps = 1e-9
    gm = math.exp(sum(math.log(max(x, eps)) for x in q) / len(q))
    if smooth:
        worst = -tau * math.log(sum(math.exp(-x / tau) for x in q) / len(q))
    else:
        worst = min(q)
    return gm ** (1.0 - lam) * max(worst, eps) ** lam


def suspect_step(q: Sequence[float], theta: float = 0.5) -> int | None:
    """The earliest step with ``q_t < θ_step`` (0-based), or ``None``."""
    return next((t for t, x in enumerate(q) if x < theta), None)


def implication(flow: "Dataflow") -> float | None:
    """``p_imp``: 1 when the chain's last derived quantity is the stated answer, lower the further it is.

    1.0  the last equation's result equals the answer (or is it as a percentage: 3/4 and "75");
    0.7  some earlier step derived the answer (the chain went on past it);
    0.2  the answer is only a number of the problem (nothing was derived to reach it);
    0.1  the answer appears nowhere in the chain (the chain computes X, the answer says Y);
    None nothing was derived, or the answer is not a number: not checkable here.
    """
    answer, last = flow.answer_value, flow.last_derived
    if answer is None or last is None:
        return None
    if answer == last or answer == last * 100:  # 3/4 written as "75%" (the product only when needed)
        return 1.0
    if flow.answer_step is not None:
        return 0.7
    if flow.answer_value in flow.problem_numbers:
        return 0.2
    return 0.1


def sensitivity(interventions: Sequence["Intervention"], m_min: int = 1) -> float | None:
    """Share of valid counterfactual edits that move the answer; ``None`` below ``m_min`` valid edits."""
    if len(interventions) < max(1, m_min):
        return None
    return sum(i.moves for i in interventions) / len(interventions)


def support(p_imp: float | None, sens: float | None) -> float | None:
    """``S_RA``: the geometric combination of implication and sensitivity (whichever exist)."""
    parts = [x for x in (p_imp, sens) if x is not None]
    if not parts:
        return None
    if min(parts) <= 0.0:
        return 0.0  # no support in one part is no support
    return math.exp(sum(math.log(x) for x in parts) / len(parts))


def consensus(answers: Sequence[str | None]) -> float | None:
    """``C_A = 1 - H(p̂)/log K``; each missing answer counts as its own distinct answer. ``None`` for K < 2."""
    k = len(answers)
    if k < 2:
        return None
    counts = Counter(a if a is not None else f"\0missing{i}" for i, a in enumerate(answers))
    entropy = -sum((c / k) * math.log(c / k) for c in counts.values())
    return max(0.0, 1.0 - entropy / math.log(k))


def agreement(answers: Sequence[str | None]) -> list[float | None]:
    """Per-member consensus: ``(n_i - 1) / (K - 1)``, the share of the *other* samples that reach trace ``i``'s
    answer (0 for a missing answer). ``None`` for K < 2.

    ``C_A`` is one number for the whole group, so under GRPO's group normalisation (``(r - mean) / std``) it
    cancels out of every advantage; this per-member form is what differs between the members of a group.
    """
    k = len(answers)
    if k < 2:
        return [None] * k
    counts = Counter(a for a in answers if a is not None)
    return [0.0 if a is None else (counts[a] - 1) / (k - 1) for a in answers]


def member_stability(
    claim_sets: Sequence[frozenset[str]],
    answers: Sequence[str | None],
    similarity: Callable[[int, int], float] | None = None,
) -> list[float | None]:
    """Per-member ``D_R``: trace ``i``'s mean similarity to the other traces that reach the same answer
    (``None`` when no other trace does)."""
    sim = similarity or (lambda i, j: jaccard_similarity(claim_sets[i], claim_sets[j]))
    out: list[float | None] = []
    for i, a in enumerate(answers):
        peers = [j for j, b in enumerate(answers) if j != i and a is not None and b == a]
        out.append(sum(sim(i, j) for j in peers) / len(peers) if peers else None)
    return out


def claims(flow: "Dataflow") -> frozenset[str]:
    """A trace's canonical claims: every quantity it derived, as an exact reduced fraction."""
    return frozenset(str(v) for step in flow.steps for v in step.produced)


def jaccard_similarity(a: frozenset[str], b: frozenset[str]) -> float:
    """``|a ∩ b| / |a ∪ b|``; two empty sets are identical (1.0)."""
    union = len(a | b)
    return len(a & b) / union if union else 1.0


def stability(
    claim_sets: Sequence[frozenset[str]],
    answers: Sequence[str | None],
    similarity: Callable[[int, int], float] | None = None,
) -> float | None:
    """``D_R``: mean pairwise similarity among the traces that reach the modal answer (at least 2 of them).

    ``similarity(i, j)`` compares traces ``i`` and ``j``; by default the Jaccard similarity of their claim sets.
    """
    present = [a for a in answers if a is not None]
    if not present:
        return None
    modal, count = Counter(present).most_common(1)[0]
    if count < 2:
        return None
    members = [i for i, a in enumerate(answers) if a == modal]
    sim = similarity or (lambda i, j: jaccard_similarity(claim_sets[i], claim_sets[j]))
    pairs = list(combinations(members, 2))
    return sum(sim(i, j) for i, j in pairs) / len(pairs)


def aggregate(components: Mapping[str, float | None], weights: Mapping[str, float], eps: float = 1e-3) -> float | None:
    """``RAFS = 100 · exp(Σ w_m log(s_m + ε))`` over available components, weights renormalised."""
    avail = {m: s for m, s in components.items() if s is not None and weights.get(m, 0.0) > 0}
    if not avail:
        return None
    total = sum(weights[m] for m in avail)
    log_score = sum(weights[m] / total * math.log(min(1.0, s) + eps) for m, s in avail.items())
    return max(0.0, min(100.0, 100.0 * math.exp(log_score) / (1.0 + eps)))
