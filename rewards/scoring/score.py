"""RAFS: from a completion (and optionally its group of samples) to a :class:`RAFSResult`.

``RAFS = 100 · exp(Σ_m w_m · log(s_m + ε))`` over the available components ``P_R``, ``S_RA``, ``C_A``, ``D_R``
(see :mod:`rewards.scoring.components`), weights renormalised over those available. Status:

* ``abstain`` — the trace cannot be judged: oversized/empty input, no final answer, or nothing checkable (no
  equation anywhere, no implication, and no group to compare with);
* ``accept`` — ``RAFS >= tau_accept``, no suspect step, and no ungrounded quantity feeding the answer;
* ``review`` — everything else.

Missing evidence (:attr:`RAFSConfig.missing_evidence`). A metric may abstain where a completion gave it nothing to
check; a reward must not, or the less a completion shows the less can count against it. With ``"absent"`` (the
scoring and evaluation default) a component without evidence is dropped and the weights renormalise; with
``"no_support"`` (the default of every reward function) it counts as 0: an answer no checked derivation reaches
has ``S_RA = 0``, a trace with no derivation of its answer has ``P_R = 0``, and an abstention scores 0.

Support is derivation. ``S_RA = sqrt(p_imp · sens) · ρ^u``: ``p_imp`` asks whether a verified computation derived
the stated answer (:func:`~rewards.scoring.components.implication`); ``sens`` is the share of the problem's own
quantities on the answer's derivation path whose edit moves the answer through the verified equations
(:func:`~rewards.scoring.dataflow.input_counterfactuals`); ``u`` counts the ungrounded quantities on that path (the
paper's invented "$5 fee") and ``ρ = ungrounded_penalty``. ``P_R`` is taken over the answer's derivation path and
every refuted step: decoration, padding and repetition off the path neither raise it nor dilute an error.

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

import json
import logging
import re
from dataclasses import dataclass, field, fields, replace
from fractions import Fraction
from typing import Any, Mapping, Sequence

from rewards.checks.arithmetic import extract_equations, numbers_in
from rewards.checks.answers import (answers_equivalent, approximate_value, canonical_answer, gold_answer,
                                    named_value, numeric_value)
from rewards.parsing.trace import Trace, parse_trace
from rewards.scoring import components as C
from rewards.scoring.dataflow import (Dataflow, Intervention, answer_derivations, build_dataflow,
                                      fraction_literals,
                                      input_counterfactuals, quantity_coverage)
from rewards.scoring.revisions import analyse_revisions
from rewards.verifiers.base import StepCheck, StepVerifier
from rewards.verifiers.symbolic import SymbolicConfig, SymbolicVerifier

__all__ = ["RAFSConfig", "RAFSResult", "score_trace", "score_group", "score_traces", "COMPONENTS", "FAILURE_TYPES"]

log = logging.getLogger(__name__)

COMPONENTS = ("P_R", "S_RA", "C_A", "D_R")
MISSING_EVIDENCE = ("no_support", "absent")
USES = {"reward": "no_support", "scoring": "absent", "evaluation": "absent"}
"""The ``missing_evidence`` policy each use gets when the config leaves it open."""
FAILURE_TYPES = ("faithful_success", "silent_failure", "extraction_failure", "overt_failure", "invalid_reasoning")


@dataclass(frozen=True)
class RAFSConfig:
    """Every threshold and weight of the scorer. Defaults and why: the Thresholds section of ``docs/scoring.md``.

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
        missing_evidence: what a component the completion gave nothing to check is worth: ``"no_support"`` (0, the
            reward default: hiding work must not pay) or ``"absent"`` (dropped, weights renormalised; the scoring
            and evaluation default, where ProcessBench-style detection needs abstention). ``None`` lets the use
            decide (:meth:`for_use`).
        ungrounded_penalty: ``ρ``: ``S_RA`` is multiplied by ``ρ`` per distinct ungrounded quantity on the answer's
            derivation path (a number from nowhere that makes the derivation land on the answer).
        unused_exponent: ``γ``: under ``missing_evidence="no_support"`` ``S_RA`` is multiplied by
            ``(used / stated)^γ``, the share of the problem's numerals the answer's derivation uses
            (:func:`~rewards.scoring.dataflow.quantity_coverage`; the paper's skipped muffins). Weighed, not
            blocking: half of GSM8K's gold solutions leave a distractor unused. 0 turns it off.
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
    missing_evidence: str | None = None
    ungrounded_penalty: float = 0.5
    unused_exponent: float = 0.25

    def __post_init__(self) -> None:
        if self.missing_evidence not in (None, *MISSING_EVIDENCE):
            raise ValueError(f"RAFSConfig.missing_evidence={self.missing_evidence!r}: use 'no_support' (rewards: "
                             "a component without evidence counts as 0) or 'absent' (evaluation: it is dropped).")
        unknown = set(self.weights) - set(COMPONENTS)
        if unknown:
            raise ValueError(f"RAFSConfig.weights has unknown component(s) {sorted(unknown)}; use {list(COMPONENTS)}.")
        if any(w < 0 for w in self.weights.values()) or not any(w > 0 for w in self.weights.values()):
            raise ValueError(f"RAFSConfig.weights={dict(self.weights)!r} must be >= 0 with at least one > 0.")
        for name, lo, hi in (("lam", 0, 1), ("theta_step", 0, 1), ("tau_accept", 0, 100), ("eps", 0, 1), ("sens_floor", 0, 1),
                             ("embedding_weight", 0, 1), ("ungrounded_penalty", 0, 1),
                             ("unused_exponent", 0, 4)):
            value = getattr(self, name)
            if not lo <= value <= hi:
                raise ValueError(f"RAFSConfig.{name}={value!r} is outside [{lo}, {hi}].")
        if self.group_mode not in ("group", "member"):
            raise ValueError(f"RAFSConfig.group_mode={self.group_mode!r}: use 'group' or 'member'.")
        if self.m_min < 1:
            raise ValueError(f"RAFSConfig.m_min={self.m_min!r} must be >= 1.")

    @classmethod
    def coerce(cls, config: "RAFSConfig | Mapping[str, Any] | None", use: str = "scoring") -> "RAFSConfig":
        """The one way to turn user input into a config: ``None`` (defaults), a dict of fields (unknown keys name
        themselves in the error) or a :class:`RAFSConfig`; then :meth:`for_use`.

        >>> RAFSConfig.coerce({"tau_accept": 70}, use="reward").missing_evidence
        'no_support'
        >>> RAFSConfig.coerce(None).missing_evidence
        'absent'
        """
        if config is None:
            if cls is RAFSConfig and use in _DEFAULT_CONFIGS:  # built and checked once per use; each caller gets
                config = object.__new__(RAFSConfig)  # its own copy with its own weights dict (what copy.copy
                config.__dict__.update(_DEFAULT_CONFIGS[use].__dict__)  # does, without its reduce protocol)
                object.__setattr__(config, "weights", dict(config.weights))
                return config
            config = cls()
        elif isinstance(config, Mapping):
            config = cls.from_dict(config)
        elif not isinstance(config, cls):
            raise TypeError(f"config must be a RAFSConfig, a dict of RAFSConfig fields or None, got "
                            f"{type(config).__name__}; pass e.g. {{'tau_accept': 60.0}}.")
        return config.for_use(use)

    def for_use(self, use: str) -> "RAFSConfig":
        """This config with ``missing_evidence`` settled for a use: ``"reward"`` -> ``"no_support"``,
        ``"scoring"``/``"evaluation"`` -> ``"absent"``; an explicit setting is kept."""
        if use not in USES:
            raise ValueError(f"use={use!r}: pick one of {list(USES)}.")
        if self.missing_evidence is not None:
            return self
        return replace(self, missing_evidence=USES[use])

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


_DEFAULT_CONFIGS: dict[str, RAFSConfig] = {use: RAFSConfig().for_use(use) for use in USES}
"""The default config of each use, built once (:meth:`RAFSConfig.coerce` with ``None``)."""


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
    supported: bool | None = None
    """Whether the answer is reached from the problem's quantities through verified operations, with nothing
    ungrounded on the way (``None`` when the trace was not analysed)."""

    @property
    def faithful(self) -> bool:
        """Supported and without a suspect step: the verdict the faithful-accuracy reward pays in full."""
        return bool(self.supported) and self.suspect_step is None

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
            "supported": self.supported,
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


def _abstain(reasons: list[str], trace: Trace | None = None, checks=None, coverage: float = 0.0,
             cfg: RAFSConfig | None = None) -> RAFSResult:
    """No verdict: ``score`` is ``None``; under ``missing_evidence="no_support"`` it is 0 (nothing shown, nothing
    earned), the status stays ``abstain`` and the reasons say why."""
    score = None
    if cfg is not None and cfg.missing_evidence == "no_support":
        score = 0.0
        reasons = [*reasons, "no evidence counts as no support (missing_evidence='no_support')"]
    return RAFSResult(score, "abstain", None, None, {m: None for m in COMPONENTS}, list(checks or []), coverage,
                      trace.answer if trace else None, None, reasons, supported=False if score == 0.0 else None)


def _parse(problem: Any, completion: Any, steps: Sequence[str] | None) -> _Parsed:
    """Trace and dataflow of one completion (verification happens for the whole group at once)."""
    trace = parse_trace(problem, completion, steps=steps)
    if trace.issues:  # nothing to analyse, but an answer it states still counts in the group's consensus: a bare
        # "#### 24" agrees with a faithful "... = 24" (as a missing answer it cut C_A to 0: 7 bare siblings took a
        # faithful trace's group reward from 0.99 to 0.29)
        return _Parsed(trace, None, [], canonical_answer(trace.answer) if trace.answer else None)
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
    """Run the step verifier over every analysable trace: one ``verify_batch(traces, flows)`` call per group (a
    model-backed verifier scores the group as one batch; the others loop over ``verify``); when that raises or
    returns the wrong number of results, ``verify`` trace by trace, so a trace that breaks the verifier fails
    alone."""
    live = [i for i, p in enumerate(parsed) if p.flow is not None]
    if len(live) > 1:
        traces, flows = [parsed[i].trace for i in live], [parsed[i].flow for i in live]
        try:
            results = verifier.verify_batch(traces, flows)
            if not isinstance(results, list) or len(results) != len(traces):
                got = len(results) if isinstance(results, list) else type(results).__name__
                raise ValueError(f"{type(verifier).__name__}.verify_batch returned {got} results for "
                                 f"{len(traces)} traces")
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


def _ungrounded_on_answer_path(flow: Dataflow, strict: bool = True,
                               derivations: list[frozenset[int]] | None = None) -> list[str]:
    """Ungrounded operands of the best derivation of the answer (``"5 (step 2)"``): a quantity from nowhere that
    feeds the answer (the paper's lucky "$5 fee") lowers S_RA and blocks ``accept``, though alone it is no suspect
    step. When the trace derives the answer more than once (algebra often does), the best-grounded derivation
    counts. ``strict`` reads :attr:`~rewards.scoring.dataflow.StepFlow.unsupported` (what a reward needs: reached
    from the problem); otherwise ``ungrounded`` (a number the trace stated earlier counts as grounded).
    ``derivations``: :func:`~rewards.scoring.dataflow.answer_derivations` of ``flow`` when the caller has them."""
    best: list[str] | None = None
    for path in answer_derivations(flow) if derivations is None else derivations:
        found = [f"{v} (step {t})" for t in sorted(path)
                 for v in dict.fromkeys(flow.steps[t].unsupported if strict else flow.steps[t].ungrounded)]
        if best is None or len(found) < len(best):
            best = found
    return best or []


def _grounded_derivation(flow: Dataflow, derivations: list[frozenset[int]]) -> bool:
    """Whether ``_ungrounded_on_answer_path(flow, strict=False, derivations=derivations)`` is empty, without writing
    its reasons: no derivation at all, or one whose steps have no ``ungrounded`` value (the best derivation then lists
    nothing)."""
    steps = flow.steps
    return not derivations or any(not any(steps[t].ungrounded for t in path) for path in derivations)


_CHOICE = re.compile(r"\b(?<!at )(?:most|least)\b|\b(?:fastest|slowest|cheapest|largest|smallest|greatest|highest|lowest|maximum|"
                     r"minimum|better|best|worse|worst|cheaper|faster|slower|longer|shorter|lower|higher|larger|"
                     r"smaller|bigger)\b|(?<![<>])[<>](?![<>])",
                     re.I)
"""Words of a choice among candidates ("the most money", "20 < 30"): a chain that computes several totals and
picks one ends on a computation whose result is not the answer, and then names the one it chose. Not "at least" /
"at most", which qualify a quantity ("officers who served at least three years"), and not the ``<<`` of a GSM8K
calculator annotation."""


def _hollow_derivation(trace: Trace, flow: Dataflow, edits: list[Intervention], path: frozenset[int]) -> str | None:
    """Why a derivation of the answer that the dataflow found is no support for it (``None`` when it is):

    * *inert*: the answer is reached in one step, with an operand written twice (``20 - 20 + 1 = 1``), that no edit
      of a problem quantity moves;
    * *copied*: in such a step, the only problem quantity whose edit moves the answer is the answer itself, carried
      through unchanged (``14 - 14 + 2 = 2`` when the problem says "two"; ``a + v - a``);
    * *disowned*: the chain's last computation, after the step that derived the answer, reaches another value
      (``1/4 x 8 = 2``, then ``8 - 4 = 4`` or ``8 - 4 + 2 = 6``, answer 2): the chain concluded something else,
      and the answer is an earlier coincidence — unless the chain then chose among candidates (":data:`_CHOICE`")
      or its last computation checks the answer against a given (``40 + 80 = 120`` when the problem says 120).

    Edits are keyed by value, so a faithful solution whose equal quantities cancel across steps (``3 lbs x 40 =
    120`` cups, ``120 / 3 = 40`` days) moves like a copy: that is why a copy must cancel inside one step, and why
    a copy spread over several steps is out of reach of this check. None of these is proof of gaming, so the answer
    counts as not *supported* (the faithful-accuracy reward pays ``u``) and ``S_RA`` is multiplied by ``ρ``
    (``ungrounded_penalty``), rather than zeroed. Read only under ``missing_evidence="no_support"`` (rewards).
    ``path`` is the answer's derivation (:func:`~rewards.scoring.dataflow.answer_path`).
    """
    answer = flow.answer_value
    moving = [e for e in edits if e.moves]
    step = flow.steps[flow.answer_step] if flow.answer_step is not None else None
    repeated = step is not None and len(step.used) > len(set(step.used))
    algebra = any(key[0] == flow.answer_step and link.kind == "followed" and link.value == answer
                  for key, link in flow.links.items())  # a root chosen from a grounded equation is no copy
    if repeated and edits and not moving and len(path) == 1 and not algebra:
        return "no edit of the problem's quantities moves the answer, which one step reaches: its operands cancel"
    if repeated and moving and all(e.old == answer and e.expected == e.new for e in moving):
        return f"the answer {answer} is a problem quantity carried through unchanged: its other operands cancel"
    # the chain's last computation that is not a repeat of an earlier one (same operands, same results): a summary
    # that restates the thinking's work ("40 - 4 = 36" again) concludes nothing new
    last, concluded, seen = None, None, set()
    for t, s in enumerate(flow.steps):
        if not s.produced:
            continue
        signature = (tuple(sorted(s.used)), tuple(s.produced))
        if signature not in seen:
            last, concluded = t, s.produced[-1]
        seen.add(signature)
    if (last is not None and flow.answer_step is not None and last > flow.answer_step
            and concluded not in (answer, answer * 100, answer / 100)):
        after = "\n".join(trace.steps[flow.answer_step + 1:])
        if _CHOICE.search(after) and any(  # a choice names what it chose: "The cheapest is 12.", "\\frac{11}{2}"
                (answer in step.mentioned or any(v == answer for v, _ in fraction_literals(trace.steps[t])))
                and answer not in step.used and answer not in step.produced
                for t, step in enumerate(flow.steps[last:], start=last)):
            return None
        if answer in flow.steps[last].used and concluded in flow.problem_numbers:
            return None
        return (f"the chain concludes {concluded} (step {last}), not the answer {answer}, which only an "
                f"earlier step (step {flow.answer_step}) reached")
    return None


def _distinct_steps(trace: Trace, steps: list[int], q: list[float]) -> list[int]:
    """``steps`` with repeats of the same text (whitespace aside) reduced to the one with the lowest ``q``: repeating
    a derivation three times neither raises ``P_R`` nor dilutes a false step."""
    best: dict[str, int] = {}
    for t in steps:
        key = " ".join(trace.steps[t].replace("\\boxed", "").split())  # a copy with or without its box
        if key not in best or q[t] < q[best[key]]:
            best[key] = t
    return sorted(best.values())


_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def _only_asked(text: str, values: list, flow: Dataflow, t: int) -> bool:
    """Whether the stray ``values`` of step ``t`` are only asked about ("Is it 36?"): not also stated in a sentence of
    the step that is no question ("6? Yes, 6 miles"), and not used by a later step before any step derives them (a
    value asked, then carried on)."""
    stated = {v for part in _SENTENCE.split(text) if not part.rstrip().endswith("?") for v, _ in numbers_in(part)}
    if any(v in stated for v in values):
        return False
    for v in values:  # used later before any step derives it: the asked value carried on
        for step in flow.steps[t + 1:]:
            if v in step.used:
                return False
            if v in step.produced:
                break  # derived anew ("Is it 36?", then "40 - 4 = 36"): the later uses are of the derived value
    return True


def _note_stray_claims(flow: Dataflow, checks: list[StepCheck], superseded: dict[int, str],
                       trace: Trace | None = None) -> tuple[list[StepCheck], list[str]]:
    """Under ``missing_evidence="no_support"``: a step without any equation that states a number nothing reaches
    (:attr:`~rewards.scoring.dataflow.StepFlow.stray`: "Joe got 5 slices" where ``1/2 x 8`` is 4; but also a trial
    value ``n = 41``, a coordinate read off a figure, a fact recalled) carries no support: the dataflow never counts
    such a number as reached, so an answer derived from it is unsupported and earns the unverifiable floor. It is
    *not* refuted — unsupported is not wrong (only a checked falsehood refutes; competition solutions introduce numbers
    legitimately) — so ``q`` stays what the verifier said and the step gets a reason saying what it withholds. A
    hidden slip still never pays more than a visible one: a claim stated before (or at) the step that reaches the
    answer withholds support from that derivation as an ungrounded operand would (the slip's hidden result is what the
    chain goes on from, even where a coincidence of values makes the next step look reached), so the answer counts as
    unsupported. Returns the checks with their reasons and those withholding claims (``"5 (step 0)"``)."""
    out, withheld = checks, []
    last = flow.answer_step if flow.answer_step is not None else len(flow.steps) - 1
    thinking = trace.summary_start if trace is not None and trace.summary_start is not None else 0
    for t, step in enumerate(flow.steps):
        if step.stray and t < thinking and "?" in trace.steps[t] and _only_asked(trace.steps[t], step.stray, flow, t):
            continue  # "Maybe it is 36? Let me work it out.": a question asked while thinking asserts nothing
        if step.stray and t not in superseded and t < len(out):
            if out is checks:
                out = list(checks)
            values = ", ".join(str(v) for v in dict.fromkeys(step.stray))
            out[t] = StepCheck(out[t].q,
                               [*out[t].reasons, f"states {values} without an equation, and nothing before reaches it "
                                                 "(no support: not wrong, but nothing it feeds counts as derived)"],
                               out[t].checked)
            if t <= last:
                withheld.extend(f"{v} (step {t}, stated without a derivation)" for v in dict.fromkeys(step.stray))
    return out, withheld


_SUMMARY_STEP = re.compile(r"summary step (\d+)")


def _apply_revisions(trace: Trace, flow: Dataflow, checks: list[StepCheck], correct: bool | None
                     ) -> tuple[list[StepCheck], dict[int, str], list[str]]:
    """Self-correction is exploration (:func:`~rewards.scoring.revisions.analyse_revisions`): a false step the
    trace retracts and replaces is *superseded* (no suspect, out of P_R); a fake retraction keeps its fault; with a
    wrong answer, the step where a trace talked itself out of its right value is refuted; a summary that states
    numbers its thinking contradicts is refuted at that summary step.

    Returns the step checks to use, the superseded steps and the reasons to report.
    """
    try:
        rev = analyse_revisions(trace, flow, [c.q for c in checks])
    except Exception as exc:  # noqa: BLE001 - an analysis bug must never crash a reward; the checks stand
        log.warning("revision analysis failed (%s: %s); scoring without it", type(exc).__name__, exc)
        return checks, {}, []
    if not rev.superseded and not rev.fake and rev.turned_at is None and not rev.summary_conflicts:
        return list(checks), {}, []  # nothing revised (most traces): what the passes below give for it
    out = list(checks)
    reasons: list[str] = []
    for t, why in rev.superseded.items():
        if 0 <= t < len(out):
            out[t] = StepCheck(out[t].q, [*out[t].reasons, f"superseded: {why}"], out[t].checked)
            reasons.append(f"step {t} superseded: {why}")
    for t, why in rev.fake.items():
        reasons.append(f"step {t}: {why}")
    refute = []
    if rev.turned_at is not None:
        if correct is False:
            refute.append((rev.turned_at, "the trace reached the right value and then talked itself out of it"))
        elif correct is None:
            reasons.append(f"step {rev.turned_at}: the trace turned away from a value its own derivation reached")
    for conflict in rev.summary_conflicts:
        match = _SUMMARY_STEP.match(conflict)
        reasons.append(conflict)
        if match:
            refute.append((int(match.group(1)), "the summary contradicts the thinking: " + conflict))
    for t, why in refute:
        if 0 <= t < len(out) and t not in rev.superseded:
            out[t] = StepCheck(min(out[t].q, _REFUTED_Q), [*out[t].reasons, why], True)
    return out, {t: w for t, w in rev.superseded.items() if 0 <= t < len(out)}, reasons


_DEFAULT_VERIFIER = SymbolicVerifier()
"""The verifier :func:`score_group` uses when given none (stateless: its frozen config only)."""

_REFUTED_Q = SymbolicConfig.q_false
"""q of a step refuted by the revision analysis: the symbolic verifier's ``q_false``."""


def _failure_type(valid: bool, correct: bool | None, p_imp: float | None) -> str | None:
    if correct is None:
        if p_imp is not None and p_imp < 0.5:
            return "extraction_failure"
        return None if valid else "invalid_reasoning"
    if correct:
        return "faithful_success" if valid else "silent_failure"
    return "extraction_failure" if valid else "overt_failure"


_DERIVATION_MARK = re.compile(r"=|\\equiv|<<")


def _stated_number(answer: str) -> Fraction | None:
    """The number an answer states: ``x = 36`` and ``\\frac{28}{4}=7`` state 36 and 7."""
    value = named_value(answer)
    if value is None and "=" in answer:
        value = numeric_value(answer.rsplit("=", 1)[-1])
    return value


def _recomputes(text: str, value: Fraction | None) -> bool:
    """Whether ``text`` states a computation whose result is ``value`` (a token ``0 \\equiv 0`` or ``<<1+1=2>>``
    between two answers recomputes nothing); any computation when the final answer is no number."""
    if value is None:
        return True
    for eq in extract_equations(text):
        result = eq.values[-1] if eq.values else None
        if result is not None and result.is_exact and result.exact == value:
            return True
    return False


def _hedged(trace: Trace) -> list[str]:
    """The other final answers a completion states (a box, a ``####`` line, "the answer is …") that differ in value
    from its final one with no computation between the two (``\\boxed{18}`` or ``\\boxed{24}``; ``#### 24`` then
    ``#### 18``; "The answer is 36." then ``#### 24``; ``\\boxed{36}. Wait. \\boxed{24}``): a hedge lets whichever
    answer a grader reads be the right one, so in a reward it is no answer. A result boxed on the way and then
    computed on to the final answer (``\\boxed{18}``, ``18 + 6 = 24``, ``\\boxed{24}``), or a correction that
    recomputes it, is no hedge; a retraction cue alone, or a token computation (``0 \\equiv 0``), is no correction.
    GSM8K train and MATH-500 gold: none hedges; ProcessBench's real model solutions: 2 of 1,400 (both wrong)."""
    out = []
    final = _stated_number(trace.answer) if trace.answer else None
    for other, between in trace.other_answers:
        if _DERIVATION_MARK.search(between) and _recomputes(between, final):
            continue  # an intermediate result computed on, or a correction that recomputes the final answer
        try:
            # only a number is an answer here: models also box headings ("\\boxed{Scenario 1: ...}"), whole
            # equations and table cells; a hedge a grader reads is a number (or a named one: \\boxed{x = 36})
            if numeric_value(other) is None and approximate_value(other) is None and named_value(other) is None:
                continue
            same = answers_equivalent(other, trace.answer) or _stated_number(other) == final
        except Exception:  # noqa: BLE001 - untrusted text: an answer that cannot be compared is no agreement
            same = False
        if not same:
            out.append(other)
    return out


def _single(p: _Parsed, group_components: dict[str, float | None], ref: str | None, cfg: RAFSConfig) -> RAFSResult:
    """One trace's verdict; ``ref`` is the gold final answer already extracted (``None``: no gold)."""
    trace = p.trace
    if trace.issues:
        return _abstain(list(trace.issues), trace, cfg=cfg)
    flow = p.flow
    coverage = flow.coverage
    if trace.answer is None:
        return _abstain(["no final answer found (no \\boxed{}, '####', 'the answer is', or trailing number)"],
                        trace, p.checks, coverage, cfg)
    implied = C.implication(flow)
    derivations = answer_derivations(flow)  # once: the path, the edits and both groundings read them
    path = frozenset().union(*derivations)  # answer_path(flow)
    edits = input_counterfactuals(trace, flow, path=path)
    raw_sens = C.sensitivity(edits, cfg.m_min)
    if coverage == 0.0 and C.support(implied, raw_sens) is None and group_components.get("C_A") is None:
        return _abstain(["nothing checkable: no equation in any step and no samples to compare"],
                        trace, p.checks, coverage, cfg)
    required = cfg.missing_evidence == "no_support"
    correct = answers_equivalent(trace.answer, ref) if ref is not None else None
    checks, superseded, revision_reasons = _apply_revisions(trace, flow, p.checks, correct)
    withheld: list[str] = []
    if required:
        checks, withheld = _note_stray_claims(flow, checks, superseded, trace)
    q = [c.q for c in checks]
    refuted = {t for t, x in enumerate(q) if x < cfg.theta_step and t not in superseded}
    feeding = _ungrounded_on_answer_path(flow, derivations=derivations) + withheld
    hollow = _hollow_derivation(trace, flow, edits, path) if required and path and not feeding else None
    hedge = _hedged(trace) if trace.other_answers else []
    # with no_support, an answer no verified derivation from the problem reaches earns nothing at all, nor one
    # hedged with another final answer
    unsupported = required and (not path or bool(feeding) or bool(hedge))
    p_imp = 0.0 if required and implied is None else implied  # missing evidence is no support
    sens = None if raw_sens is None else cfg.sens_floor + (1.0 - cfg.sens_floor) * raw_sens
    if required and raw_sens is None:
        sens = 0.0
    s_ra = C.support(p_imp, sens)
    if s_ra is not None and hollow is not None:  # weak support: value-keyed edits cannot tell a faithful
        s_ra *= cfg.ungrounded_penalty               # coincidence (3 lbs x 40 / 3 cups) from a laundered copy
    reasons_cov = None
    if s_ra is not None and required and cfg.unused_exponent > 0 and path:  # skipped quantities weigh
        used, stated = quantity_coverage(trace, flow, path)
        if used < stated:
            s_ra *= (used / stated) ** cfg.unused_exponent
            reasons_cov = f"the derivation uses {used} of the problem's {stated} stated quantities"
    if s_ra is not None and feeding:  # a quantity from nowhere on the way
        s_ra = 0.0 if required else s_ra * cfg.ungrounded_penalty ** len(feeding)
    if required and hedge:  # whichever of its answers is right, none is the one the derivation supports
        s_ra = 0.0
    live = [x for t, x in enumerate(q) if t not in superseded]  # a retracted, replaced step is exploration
    if unsupported:
        p_r = 0.0 if q else None  # no derivation of the answer from the problem: no step supports it
    elif path:  # P_R over the derivation and every refuted step: what is off the path neither helps nor dilutes
        counted = sorted((path - set(superseded)) | refuted)
        if required:  # a step written again is no new evidence: each distinct step counts once, at its worst
            counted = _distinct_steps(trace, counted, q)
        p_r = C.step_validity([q[t] for t in counted] or live, cfg.lam, smooth=cfg.smooth)
    else:
        p_r = C.step_validity(live, cfg.lam, smooth=cfg.smooth)
    if p_r is not None and hollow is not None:  # valid steps that carry nothing: a copy is no evidence of validity
        p_r *= cfg.ungrounded_penalty             # either (the step-validity reward must not pay it in full)
    comps: dict[str, float | None] = {"P_R": p_r, "S_RA": s_ra, **group_components}
    reasons: list[str] = list(revision_reasons)
    suspect = min(refuted) if refuted else None
    # supported: a verified derivation of the answer that uses the problem's quantities, with nothing from nowhere on
    # the way. Sensitivity itself only weighs S_RA: value-keyed propagation cannot tell two equal quantities apart
    # ("$3 / 3 people" stays 1 under any edit), so an answer that does not move is weaker evidence, not none.
    supported = bool(path) and raw_sens is not None and not feeding and hollow is None and not (required and hedge)
    if hedge:
        reasons.append(f"states several final answers ({', '.join([*hedge[:3], trace.answer])}): a hedge is no answer"
                       + (" (score 0)" if required else ""))
    if hollow is not None:
        reasons.append(hollow)
    if reasons_cov is not None:
        reasons.append(reasons_cov)
    if not path:
        reasons.append("the answer is not derived: no verified computation reaches it"
                       + (" (S_RA = 0: missing evidence is no support)" if required else ""))
    elif raw_sens is None:
        reasons.append("no problem quantity reaches the answer through verified operations")
    elif raw_sens == 0:
        reasons.append("the answer does not move when the problem's quantities are edited")
    # not ε^Σw for an unsupported answer: a restatement would earn that above an honest abstention
    score = 0.0 if unsupported else C.aggregate(comps, cfg.weights, cfg.eps)
    if implied is not None and implied < 0.5:
        reasons.append(f"the chain's result {flow.last_derived} differs from the stated answer {trace.answer}")
    if suspect is not None:
        reasons.append(f"suspect step {suspect}: " + "; ".join(checks[suspect].reasons))
    if feeding:
        reasons.append("ungrounded quantity feeds the answer: " + ", ".join(feeding))
    # the status is evidence for people (and the SFT filter): in evaluation it blocks only what the trace never
    # stated anywhere (soft grounding); a reward needs the stricter "reached from the problem"
    blocking = bool(feeding or hollow) if required else not _grounded_derivation(flow, derivations)
    accept = score is not None and score >= cfg.tau_accept and suspect is None and not blocking
    status = "accept" if accept else "review"
    valid = suspect is None and not blocking and (supported or not required)
    return RAFSResult(score, status, _failure_type(valid, correct, implied), suspect, comps, checks,
                      coverage, trace.answer, correct, reasons, supported)


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
    # the shared defaults when none are given: nothing here writes to the config or the verifier, so the copy
    # RAFSConfig.coerce(None) hands out (for callers that may change theirs) and a fresh verifier are not needed
    cfg = _DEFAULT_CONFIGS["scoring"] if config is None else RAFSConfig.coerce(config)
    verifier = verifier or _DEFAULT_VERIFIER
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
        # D_R is the stability of the *reasoning*: a member that derives nothing (a bare answer, a restatement) has
        # none, so it is left out (as an empty claim set it would be "identical" to every other empty one and share
        # nothing with a faithful trace: one bare sibling took a faithful trace's group reward from 0.99 to 0.35)
        reasoned = [a if cs else None for a, cs in zip(answers, claim_sets)]
        if cfg.group_mode == "member":
            c_a, d_r = C.agreement(answers), C.member_stability(claim_sets, reasoned, similarity)
            per_member = [{"C_A": c, "D_R": d} for c, d in zip(c_a, d_r)]
        else:
            shared = {"C_A": C.consensus(answers), "D_R": C.stability(claim_sets, reasoned, similarity)}
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
        return _abstain([f"internal error: {type(exc).__name__}: {exc}"])  # None: no verdict, logged


def score_traces(rows: Sequence[Mapping[str, Any]], *, config: RAFSConfig | None = None,
                 verifier: StepVerifier | None = None) -> list[RAFSResult]:
    """Score rows shaped like ``rafs score``'s input (``problem``, ``completion`` or ``steps``, ``samples``,
    ``answer``)."""
    return [
        score_trace(r.get("problem"), r.get("completion"), steps=r.get("steps"), samples=r.get("samples"),
                    gold=r.get("answer"), config=config, verifier=verifier)
        for r in rows
    ]
