"""An NLI cross-encoder: step verification, the implication ``p_imp`` and the D_R similarity, where steps are words.

A sequence-classification NLI model (MNLI-style: entailment / neutral / contradiction) scores a pair
``(premise, hypothesis)``. The entailment (and contradiction) class is looked up by name in
``config.id2label`` (any label containing "entail" / "contra"), or given explicitly.

* **step verifier**: premise = the problem and the ``context_steps`` previous steps, hypothesis = step ``t``;
  ``q_t = 1 - p(contradiction)`` (``step_score="not_contradicted"``, the default: a derived step is rarely
  *entailed* word-for-word by MNLI's standards, but a wrong one is often contradicted) or ``q_t = p(entailment)``
  (``step_score="entailment"``).
* **implication** ``p_imp = p(entailment | premise = the last step, hypothesis = "The answer is A.")`` — for traces
  whose steps are not numeric, where the symbolic implication cannot speak.
* **similarity** for ``D_R``: bidirectional entailment ``sim(a, b) = (p(a ⊨ b) + p(b ⊨ a)) / 2``;
  :meth:`NLIVerifier.similarity_fn` precomputes all pairs of a group in batches and returns the ``similarity(i, j)``
  callable :func:`rewards.scoring.components.stability` takes.

Example::

    from rewards.verifiers.nli import NLIVerifier
    nli = NLIVerifier(model="cross-encoder/nli-deberta-v3-base", device="cuda")
    p_imp = nli.implication(trace)
    similarity = nli.similarity_fn([t.text for t in traces])  # similarity(i, j), for D_R's stability
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

from rewards.verifiers.base import StepCheck
from rewards.verifiers.prm import ModelVerifier, VerifierLoadError, load_error, resolve_device, resolve_dtype

__all__ = ["NLIConfig", "NLIVerifier", "find_label"]

MAX_PREMISE_CHARS = 6000


@dataclass(frozen=True)
class NLIConfig:
    """Configuration of :class:`NLIVerifier`.

    Attributes:
        model: an ``AutoModelForSequenceClassification`` NLI checkpoint (e.g. ``cross-encoder/nli-deberta-v3-base``,
            ``microsoft/deberta-large-mnli``).
        entailment_label, contradiction_label: the class name or index; ``None`` finds it in ``config.id2label``.
        step_score: ``"not_contradicted"`` (``q = 1 - p(contra)``) or ``"entailment"`` (``q = p(entail)``).
        context_steps: how many previous steps join the problem in the premise.
        answer_template: the hypothesis of the implication check.
        device, dtype, batch_size, max_length: inference settings (pairs are truncated to ``max_length`` tokens).
        q_prior: unused by the NLI itself (every step gets a score); kept for a uniform config.
        generator, strict_independence: the cross-family check.
    """

    model: str = ""
    entailment_label: str | int | None = None
    contradiction_label: str | int | None = None
    step_score: str = "not_contradicted"
    context_steps: int = 3
    answer_template: str = "The answer is {answer}."
    device: str = "auto"
    dtype: str = "auto"
    batch_size: int = 32
    max_length: int = 512
    q_prior: float = 0.75
    generator: str | None = None
    strict_independence: bool = False

    def __post_init__(self) -> None:
        if not self.model:
            raise VerifierLoadError("NLIConfig.model='' is empty; pass an NLI checkpoint, e.g. "
                                    "model='cross-encoder/nli-deberta-v3-base'.")
        if self.step_score not in ("not_contradicted", "entailment"):
            raise VerifierLoadError(f"NLIConfig.step_score={self.step_score!r}; use 'not_contradicted' or "
                                    f"'entailment'.")
        if self.batch_size < 1 or self.max_length < 8 or self.context_steps < 0:
            raise VerifierLoadError(f"NLIConfig: batch_size={self.batch_size!r} >= 1, max_length={self.max_length!r} "
                                    f">= 8 and context_steps={self.context_steps!r} >= 0 are required.")
        if "{answer}" not in self.answer_template:
            raise VerifierLoadError(f"NLIConfig.answer_template={self.answer_template!r} lacks '{{answer}}'.")


def find_label(id2label: dict, wanted: str | int | None, keyword: str, field_name: str, model: str) -> int | None:
    """Index of the class named like ``keyword`` (or ``wanted``) in ``id2label``; errors name the labels seen.

    >>> find_label({0: "CONTRADICTION", 1: "NEUTRAL", 2: "ENTAILMENT"}, None, "entail", "entailment_label", "m")
    2
    """
    labels = {int(k): str(v) for k, v in (id2label or {}).items()}
    if isinstance(wanted, int):
        if wanted not in labels:
            raise VerifierLoadError(f"NLIConfig.{field_name}={wanted!r} is not a class of {model!r} (classes "
                                    f"{labels}). Fix: pass one of those indices or names.")
        return wanted
    if wanted is not None:
        hits = [i for i, name in labels.items() if name.lower() == str(wanted).lower()]
    else:
        hits = [i for i, name in labels.items() if keyword in name.lower()]
    if len(hits) == 1:
        return hits[0]
    if wanted is None and keyword == "contra":
        return None  # optional
    raise VerifierLoadError(f"NLIConfig.{field_name}={wanted!r}: no unique '{keyword}' class in {model!r}'s "
                            f"config.id2label={labels}. Fix: set {field_name} to the entailment class name or index.")


class NLIVerifier(ModelVerifier):
    """Cross-encoder NLI: step checks, ``implication`` and ``similarity_fn`` (see the module docstring)."""

    name = "nli"
    config_cls = NLIConfig

    def _load(self) -> None:
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        cfg, owner = self.config, "NLIConfig"
        self.device = resolve_device(cfg.device, owner)
        self.dtype = resolve_dtype(cfg.dtype, self.device, owner)
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(cfg.model, trust_remote_code=False)
            self.model = AutoModelForSequenceClassification.from_pretrained(cfg.model, dtype=self.dtype,
                                                                            trust_remote_code=False)
        except Exception as exc:  # noqa: BLE001
            raise load_error(owner, "model", cfg.model, exc) from None
        self.model.to(self.device).eval()
        id2label = getattr(self.model.config, "id2label", {}) or {}
        self.entail_idx = find_label(id2label, cfg.entailment_label, "entail", "entailment_label", cfg.model)
        self.contra_idx = find_label(id2label, cfg.contradiction_label, "contra", "contradiction_label", cfg.model)
        if cfg.step_score == "not_contradicted" and self.contra_idx is None:
            raise VerifierLoadError(f"NLIConfig.step_score='not_contradicted' needs a contradiction class, and "
                                    f"{cfg.model!r} has none (id2label={id2label}). Fix: set contradiction_label, or "
                                    f"step_score='entailment'.")

    def probabilities(self, premises: Sequence[str], hypotheses: Sequence[str]):
        """Class probabilities ``[n, n_labels]`` (a CPU float tensor) for the pairs, ``batch_size`` per pass."""
        import torch

        self._ensure_loaded()
        if len(premises) != len(hypotheses):
            raise ValueError(f"premises ({len(premises)}) and hypotheses ({len(hypotheses)}) differ in length.")
        cfg = self.config
        out = []
        for start in range(0, len(premises), cfg.batch_size):
            prem = [p[-MAX_PREMISE_CHARS:] for p in premises[start:start + cfg.batch_size]]
            hyp = [h[:MAX_PREMISE_CHARS] for h in hypotheses[start:start + cfg.batch_size]]
            enc = self.tokenizer(prem, hyp, padding=True, truncation=True, max_length=cfg.max_length,
                                 return_tensors="pt")
            with self._lock, torch.inference_mode():
                logits = self.model(**{k: v.to(self.device) for k, v in enc.items()}).logits
                out.append(torch.softmax(logits.float(), dim=-1).cpu())
        n_labels = int(getattr(self.model.config, "num_labels", 3))
        return torch.cat(out) if out else torch.zeros((0, n_labels))

    def entailment(self, premises: Sequence[str], hypotheses: Sequence[str]) -> list[float]:
        """``p(premise ⊨ hypothesis)`` for each pair."""
        return self.probabilities(premises, hypotheses)[:, self.entail_idx].tolist()

    def verify_batch(self, traces: Sequence[Any], flows: Sequence[Any] | None = None) -> list[list[StepCheck]]:
        cfg = self.config
        premises, hypotheses, owners = [], [], []
        for i, t in enumerate(traces):
            for k, step in enumerate(t.steps):
                context = t.steps[max(0, k - cfg.context_steps):k] if cfg.context_steps else ()
                premises.append(" ".join([t.problem, *context]))
                hypotheses.append(step)
                owners.append(i)
        probs = self.probabilities(premises, hypotheses) if premises else None
        out: list[list[StepCheck]] = [[] for _ in traces]
        for row, i in enumerate(owners):
            if cfg.step_score == "entailment":
                q = float(probs[row, self.entail_idx])
            else:
                q = 1.0 - float(probs[row, self.contra_idx])
            reasons = [] if q >= 0.5 else [f"NLI: the context contradicts this step (q={q:.3f})"]
            out[i].append(StepCheck(min(1.0, max(0.0, q)), reasons, True))
        return out

    def implication(self, trace, context_steps: int = 1) -> float | None:
        """``p_imp``: does the trace's last step(s) entail "The answer is A."? ``None`` without steps or answer."""
        if not trace.steps or not trace.answer:
            return None
        premise = " ".join(trace.steps[-max(1, context_steps):])
        return self.entailment([premise], [self.config.answer_template.format(answer=trace.answer)])[0]

    def similarity_fn(self, texts: Sequence[str]) -> Callable[[int, int], float]:
        """``similarity(i, j) = (p(t_i ⊨ t_j) + p(t_j ⊨ t_i)) / 2`` over all pairs, computed in batches now."""
        n = len(texts)
        pairs = [(i, j) for i in range(n) for j in range(n) if i != j]
        ent = self.entailment([texts[i] for i, _ in pairs], [texts[j] for _, j in pairs]) if pairs else []
        table = dict(zip(pairs, ent))

        def similarity(i: int, j: int) -> float:
            if i == j:
                return 1.0
            return 0.5 * (table[(i, j)] + table[(j, i)])

        return similarity
