"""RAFS: from a completion (and optionally its group of samples) to a :class:`RAFSResult`.

``RAFS = 100 · exp(Σ_m w_m · log(s_m + ε))`` over the available components ``P_R``, ``S_RA``, ``C_A``, ``D_R``
(see :mod:`rewards.scoring.components`), weights renormalised over those available. Status:

* ``abstain`` — the trace cannot be judged: oversized/empty input, no final answer, or nothing checkable (no
  equation anywhere, no implication, and no group to compare with);
* ``accept`` — ``RAFS >= tau_accept``, no suspect step, and no ungrounded quantity feeding the answer;
* ``review`` — everything else.

Failure type with a gold answer: ``faithful_success`` (valid, correct), ``silent_failure`` (invalid, correct),
``extraction_failure`` (valid, wrong), ``overt_failure`` (invalid, wrong); "valid" means no suspect step.
Without a gold answer only what is visible reference-free: ``extraction_failure`` when the chain's result differs
from the stated answer, ``invalid_reasoning`` when a step is suspect, else ``None``.

>>> r = score_trace("Tom has 3 boxes of 4 pens.", "3 * 4 = 12 pens.\\n#### 12")
>>> r.status, r.suspect_step, round(r.score)
('accept', None, 99)
>>> r = score_trace("Tom has 3 boxes of 4 pens.", "3 * 4 = 13 pens.\\n#### 13", gold="12")
>>> r.status, r.suspect_step, r.failure_type
('review', 0, 'overt_failure')
"""

from __future__ import annotations

import inspect
import json
import logging
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Mapping, Sequence

from rewards.scoring import components as C
from rewards.checks.answers import answers_equivalent, canonical_answer, gold_answer
from rewards.scoring.dataflow import Dataflow, build_dataflow, counterfactuals
from rewards.parsing.trace import Trace, parse_trace
from rewards.verifiers.base import StepCheck, StepVerifier
from rewards.verifiers.symbolic import SymbolicVerifier

__all__ = ["RAFSConfig", "RAFSResult", "score_trace", "score_group", "score_traces", "COMPONENTS", "FAILURE_TYPES"]

log = logging.getLogger(__name__)

COMPONENTS = ("P_R", "S_RA", "C_A", "D_R")
FAILURE_TYPES = ("faithful_success", "silent_failure", "extraction_failure", "overt_failure", "invalid_reasoning")


@dataclass(frozen=True)
class RAFSConfig:
    """Every threshold and weight of the scorer. Defaults and their calibration: ``docs/calibration.md``.

    Attributes:
        weights: component weights ``w_m`` (renormalised over the available components).
        lam: ``λ`` in ``P_R = GM(q)^(1-λ) · min(q)^λ``.
        smooth: use the soft-min instead of the minimum in ``P_R``.
        theta_step: ``θ_step``: a step with ``q_t`` below it is suspect.
        tau_accept: RAFS at or above which a trace without a suspect step is accepted.
        m_min: fewer valid counterfactual edits than this and sensitivity abstains.
        sens_floor: structural sensitivity enters S_RA as ``floor + (1 - floor) · sens``: the exact propagation
            cannot follow a dependency through a variable or a word ("p = $1000", "half of them"), so an edit
            that does not move the answer is weaker evidence than one that does.
        eps: ``ε`` in the aggregation.
        embedding_weight: ``β``: D_R blends claim Jaccard with sentence-embedding cosine (0 = Jaccard only).
        embedding_model: sentence-transformers model path for ``β > 0`` (default: bundled all-MiniLM-L6-v2).
        group_mode: ``"group"``: C_A and D_R are the group's (the design's definition, one value per group);
            ``"member"``: each trace gets its own — the share of the other samples that agree with its answer
            and its similarity to them. Under GRPO's group normalisation a group-constant factor cancels out of
            the advantages, so ``"member"`` is the mode in which C_A and D_R change what GRPO learns.
    """

    weights: Mapping[str, float] = field(default_factory=lambda: {"P_R": 0.4, "S_RA": 0.3, "C_A": 0.15, "D_R": 0.15})
    lam: float = 0.5
    smooth: bool = False
    theta_step: float = 0.5
    tau_accept: float = 60.0
    m_min: int = 1
    sens_floor: float = 0.25
    eps: float = 1e-3
    embedding_weight: float = 0.0
    embedding_model: str | None = None
    group_mode: str = "group"

    def __post_init__(self) -> None:
        unknown = set(self.weights) - set(COMPONENTS)
        if unknown:
            raise ValueError(f"RAFSConfig.weights has unknown component(s) {sorted(unknown)}; use {list(COMPONENTS)}.")
        if any(w < 0 for w in self.weights.values()) or not any(w > 0 for w in self.weights.values()):
            raise ValueError(f"RAFSConfig.weights={dict(self.weights)!r} must be >= 0 with at least one > 0.")
        for name, lo, hi in (("lam", 0, 1), ("theta_step", 0, 1), ("tau_accept", 0, 100), ("eps", 0, 1), ("sens_floor", 0, 1),
                             ("embedding_weight", 0, 1)):
            value = getattr(self, name)
            if not lo <= value <= hi:
                raise ValueError(f"RAFSConfig.{name}={value!r} is outside [{lo}, {hi}].")
        if self.group_mode not in ("group", "member"):
            raise ValueError(f"RAFSConfig.group_mode={self.group_mode!r}: use 'group' or 'member'.")
        if self.m_min < 1:
            raise ValueError(f"RAFSConfig.m_min={self.m_min!r} must be >= 1.")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> "RAFSConfig":
        """Build from a plain dict (a recipe's ``rafs:`` block); unknown keys are an error that names them."""
        if not data:
            return cls()
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"unknown RAFS config key(s) {sorted(unknown)}; known keys: {sorted(known)}.")
        return cls(**dict(data))


@dataclass
class RAFSResult:
    """The verdict on one trace. ``to_dict()`` is the JSON row of ``rafs score``."""

    score: float | None
    status: str
    failure_type: str | None
    suspect_step: int | None
    components: dict[str, float | None]
    step_checks: list[StepCheck]
    coverage: float
    answer: str | None
    correct: bool | None = None
    reasons: list[str] = field(default_factory=list)

    @property
    def reward(self) -> float | None:
        """RAFS on [0, 1] (``None`` when abstaining), the shape TRL rewards use."""
        return None if self.score is None else self.score / 100.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "rafs": None if self.score is None else round(self.score, 4),
            "status": self.status,
            "failure_type": self.failure_type,
            "suspect_step": self.suspect_step,
            "components": {k: (None if v is None else round(v, 6)) for k, v in self.components.items()},
            "step_checks": [{"q": round(c.q, 6), "reasons": c.reasons} for c in self.step_checks],
            "coverage": round(self.coverage, 4),
            "answer": self.answer,
            "correct": self.correct,
            "reasons": self.reasons,
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict())


@dataclass
class _Parsed:
    trace: Trace
    flow: Dataflow | None
    checks: list[StepCheck]
    canonical: str | None


def _abstain(reasons: list[str], trace: Trace | None = None, checks=None, coverage: float = 0.0) -> RAFSResult:
    return RAFSResult(None, "abstain", None, None, {m: None for m in COMPONENTS}, list(checks or []), coverage,
                      trace.answer if trace else None, None, reasons)


def _parse(problem: Any, completion: Any, steps: Sequence[str] | None) -> _Parsed:
    """Trace and dataflow of one completion (verification happens for the whole group at once)."""
    trace = parse_trace(problem, completion, steps=steps)
    if trace.issues:
        return _Parsed(trace, None, [], None)
    try:
        flow = build_dataflow(trace)
        return _Parsed(trace, flow, [], canonical_answer(trace.answer) if trace.answer else None)
    except Exception as exc:  # noqa: BLE001 - untrusted input must never crash a training run
        return _failed(trace, exc)


def _failed(trace: Trace, exc: Exception) -> _Parsed:
    log.warning("RAFS could not analyse a completion: %s: %s", type(exc).__name__, exc)
    failed = Trace(trace.problem, trace.steps, trace.answer, trace.answer_source,
                   (f"internal error: {type(exc).__name__}: {exc}",))
    return _Parsed(failed, None, [], None)


def _verify(parsed: list[_Parsed], verifier: StepVerifier) -> list[_Parsed]:
    """Run the step verifier over every analysable trace: one ``verify_batch`` call for a model-backed verifier
    (a group is one batch), ``verify`` per trace otherwise."""
    live = [i for i, p in enumerate(parsed) if p.flow is not None]
    batch = getattr(verifier, "verify_batch", None)
    if batch is not None and len(live) > 1:
        traces, flows = [parsed[i].trace for i in live], [parsed[i].flow for i in live]
        try:
            takes_flows = len(inspect.signature(batch).parameters) >= 2
            results = batch(traces, flows) if takes_flows else batch(traces)
            for i, checks in zip(live, results):
                parsed[i].checks = checks
            return parsed
        except Exception as exc:  # noqa: BLE001 - fall through to per-trace verification
            log.warning("batched verification failed (%s: %s); verifying trace by trace", type(exc).__name__, exc)
    for i in live:
        try:
            parsed[i].checks = verifier.verify(parsed[i].trace, parsed[i].flow)
        except Exception as exc:  # noqa: BLE001
            parsed[i] = _failed(parsed[i].trace, exc)
    return parsed


def _ungrounded_on_answer_path(flow: Dataflow) -> list[str]:
    """Ungrounded operands of the steps the answer depends on (``"5 (step 2)"``): a quantity from nowhere that
    feeds the answer blocks ``accept`` (it is the paper's lucky "$5 fee"), though alone it is no suspect step."""
    if flow.answer_step is None:
        return []
    path = sorted(flow.ancestors(flow.answer_step) | {flow.answer_step})
    return [f"{v} (step {t})" for t in path for v in dict.fromkeys(flow.steps[t].ungrounded)]


def _failure_type(valid: bool, correct: bool | None, p_imp: float | None) -> str | None:
    if correct is None:
        if p_imp is not None and p_imp < 0.5:
            return "extraction_failure"
        return None if valid else "invalid_reasoning"
    if correct:
        return "faithful_success" if valid else "silent_failure"
    return "extraction_failure" if valid else "overt_failure"


def _single(p: _Parsed, group_components: dict[str, float | None], ref: str | None, cfg: RAFSConfig) -> RAFSResult:
    """One trace's verdict; ``ref`` is the gold final answer already extracted (``None``: no gold)."""
    trace = p.trace
    if trace.issues:
        return _abstain(list(trace.issues), trace)
    flow = p.flow
    q = [c.q for c in p.checks]
    coverage = flow.coverage
    if trace.answer is None:
        return _abstain(["no final answer found (no \\boxed{}, '####', 'the answer is', or trailing number)"],
                        trace, p.checks, coverage)
    p_imp = C.implication(flow)
    sens = C.sensitivity(counterfactuals(trace, flow), cfg.m_min)
    if sens is not None:
        sens = cfg.sens_floor + (1.0 - cfg.sens_floor) * sens
    comps: dict[str, float | None] = {
        "P_R": C.step_validity(q, cfg.lam, smooth=cfg.smooth),
        "S_RA": C.support(p_imp, sens),
        **group_components,
    }
    reasons: list[str] = []
    suspect = C.suspect_step(q, cfg.theta_step)
    if coverage == 0.0 and comps["S_RA"] is None and comps.get("C_A") is None:
        return _abstain(["nothing checkable: no equation in any step and no samples to compare"],
                        trace, p.checks, coverage)
    if comps["S_RA"] is None:
        reasons.append("S_RA abstained: no derived quantity links the chain to the answer")
    score = C.aggregate(comps, cfg.weights, cfg.eps)
    correct = answers_equivalent(trace.answer, ref) if ref is not None else None
    if p_imp is not None and p_imp < 0.5:
        reasons.append(f"the chain's result {flow.last_derived} differs from the stated answer {trace.answer}")
    if suspect is not None:
        reasons.append(f"suspect step {suspect}: " + "; ".join(p.checks[suspect].reasons))
    feeding = _ungrounded_on_answer_path(flow)
    if feeding:
        reasons.append("ungrounded quantity feeds the answer: " + ", ".join(feeding))
    accept = score is not None and score >= cfg.tau_accept and suspect is None and not feeding
    status = "accept" if accept else "review"
    return RAFSResult(score, status, _failure_type(suspect is None, correct, p_imp), suspect, comps, p.checks,
                      coverage, trace.answer, correct, reasons)


def score_group(
    problem: Any,
    completions: Sequence[Any],
    *,
    gold: str | None = None,
    config: RAFSConfig | None = None,
    verifier: StepVerifier | None = None,
    steps: Sequence[Sequence[str] | None] | None = None,
) -> list[RAFSResult]:
    """Score K completions of one problem together: C_A and D_R are computed over the group.

    Args:
        problem: the problem text (or the prompt's messages).
        completions: the K completions (text or messages); entries may be ``None`` when ``steps`` are given.
        gold: the gold answer, optional (a bare answer, a GSM8K solution or a ``\\boxed``).
        steps: optional pre-split steps per completion (ProcessBench's ``steps``).
    """
    cfg = config or RAFSConfig()
    verifier = verifier or SymbolicVerifier()
    step_lists = list(steps) if steps is not None else [None] * len(completions)
    parsed = _verify([_parse(problem, c, s) for c, s in zip(completions, step_lists)], verifier)
    per_member: list[dict[str, float | None]] = [{"C_A": None, "D_R": None} for _ in parsed]
    if len(parsed) >= 2:
        answers = [p.canonical for p in parsed]
        claim_sets = [C.claims(p.flow) if p.flow is not None else frozenset() for p in parsed]
        similarity = None
        if cfg.embedding_weight > 0:
            from rewards.scoring.similarity import blended_similarity

            similarity = blended_similarity(claim_sets, [p.trace.text for p in parsed], cfg.embedding_weight,
                                            cfg.embedding_model)
        if cfg.group_mode == "member":
            c_a, d_r = C.agreement(answers), C.member_stability(claim_sets, answers, similarity)
            per_member = [{"C_A": c, "D_R": d} for c, d in zip(c_a, d_r)]
        else:
            shared = {"C_A": C.consensus(answers), "D_R": C.stability(claim_sets, answers, similarity)}
            per_member = [dict(shared) for _ in parsed]
    ref = gold_answer(gold) if gold is not None else None  # once per group, not per member
    return [_single(p, group, ref, cfg) for p, group in zip(parsed, per_member)]


def score_trace(
    problem: Any,
    completion: Any = None,
    *,
    steps: Sequence[str] | None = None,
    samples: Sequence[Any] | None = None,
    gold: str | None = None,
    config: RAFSConfig | None = None,
    verifier: StepVerifier | None = None,
) -> RAFSResult:
    """Score one completion; ``samples`` (other completions of the same problem) enable C_A and D_R.

    Never raises on untrusted model output: unscorable input gives ``status == "abstain"`` with a reason.
    """
    samples = list(samples or [])
    try:
        return score_group(problem, [completion, *samples], gold=gold, config=config, verifier=verifier,
                           steps=[steps, *([None] * len(samples))])[0]
    except Exception as exc:  # noqa: BLE001 - last line of defence for a training run
        log.warning("RAFS could not score a completion: %s: %s", type(exc).__name__, exc)
        return _abstain([f"internal error: {type(exc).__name__}: {exc}"])


def score_traces(rows: Sequence[Mapping[str, Any]], *, config: RAFSConfig | None = None,
                 verifier: StepVerifier | None = None) -> list[RAFSResult]:
    """Score rows shaped like ``rafs score``'s input (``problem``, ``completion`` or ``steps``, ``samples``,
    ``answer``)."""
    return [
        score_trace(r.get("problem"), r.get("completion"), steps=r.get("steps"), samples=r.get("samples"),
                    gold=r.get("answer"), config=config, verifier=verifier)
        for r in rows
    ]
