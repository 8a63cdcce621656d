"""RAFS: from a completion (and optionally its group of samples) to a :class:`RAFSResult`.

The path of one completion: parse it once (:func:`~rewards.parsing.trace.parse_trace`), build its dataflow
(:func:`~rewards.evidence.build_dataflow`), verify its steps (a :class:`~rewards.verifiers.base.StepVerifier`,
one batch per group), gather its evidence (the revision analysis, stray claims, the answer's derivations, the
counterfactual edits, grounding, hedges: :class:`~rewards.scoring.policy.Evidence`), and let the policy decide
(:func:`~rewards.scoring.policy.decide`: every modifier of every component, with its config key and formula).

The mode is named by the caller: ``mode="reward"`` (missing evidence is no support; what every reward function
uses) or ``mode="evaluation"`` (the default here: a component without evidence is dropped);
:mod:`rewards.scoring.config`. ``score_trace(..., mode="reward")`` is what ``rafs_reward`` pays, times 100.

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
>>> score_trace("Tom has 3 boxes of 4 pens.", "#### 12", mode="reward").score   # nothing shown, nothing earned
0.0
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Mapping, Sequence

from rewards.checks.arithmetic import extract_equations, numbers_in
from rewards.checks.answers import (answers_equivalent, approximate_value, canonical_answer, gold_answer,
                                    named_value, numeric_value)
from rewards.evidence import (DerivationFunction, Dataflow, Intervention, answer_derivations, build_dataflow,
                               derivation_function, fraction_literals, input_counterfactuals, quantity_coverage)
from rewards.parsing.trace import Trace, parse_trace
from rewards.scoring import components as C
from rewards.scoring.collector import group_chars, young_collections_deferred
from rewards.scoring.agreement import MAX_ALTERNATIVES, group_agreement, reference_function
from rewards.scoring.config import COMPONENTS, DEFAULT_CONFIGS, MODES, USES, RAFSConfig
from rewards.scoring.policy import Evidence, abstain, decide, refuted_steps
from rewards.scoring.revisions import analyse_revisions
from rewards.scoring.verdict import FAILURE_TYPES, RAFSResult
from rewards.verifiers.base import StepCheck, StepVerifier
from rewards.verifiers.symbolic import SymbolicVerifier

__all__ = ["RAFSConfig", "RAFSResult", "score_trace", "score_group", "score_traces", "COMPONENTS", "FAILURE_TYPES",
           "MODES"]

log = logging.getLogger(__name__)

@dataclass
class _Parsed:
    trace: Trace
    flow: Dataflow | None
    checks: list[StepCheck]
    canonical: str | None


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
    counts. ``strict`` reads :attr:`~rewards.evidence.StepFlow.unsupported` (what a reward needs: reached
    from the problem); otherwise ``ungrounded`` (a number the trace stated earlier counts as grounded).
    ``derivations``: :func:`~rewards.evidence.answer_derivations` of ``flow`` when the caller has them."""
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
    ``path`` is the answer's derivation (:func:`~rewards.evidence.answer_path`).
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
    (:attr:`~rewards.evidence.StepFlow.stray`: "Joe got 5 slices" where ``1/2 x 8`` is 4; but also a trial
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


def _apply_revisions(trace: Trace, flow: Dataflow, checks: list[StepCheck], correct: bool | None,
                     refuted_q: float) -> tuple[list[StepCheck], dict[int, str], list[str]]:
    """Self-correction is exploration (:func:`~rewards.scoring.revisions.analyse_revisions`): a false step the
    trace retracts and replaces is *superseded* (no suspect, out of P_R); a fake retraction keeps its fault; with a
    wrong answer, the step where a trace talked itself out of its right value is refuted; a summary that states
    numbers its thinking contradicts is refuted at that summary step.

    A step the analysis refutes gets ``min(q, refuted_q)``, ``refuted_q`` the verifier's own value for a false step
    (:attr:`~rewards.verifiers.base.StepVerifier.refuted_q`). Returns the step checks to use, the superseded steps
    and the reasons to report.
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
        reasons.append(str(conflict))
        refute.append((conflict.step, "the summary contradicts the thinking: " + str(conflict)))
    for t, why in refute:
        if 0 <= t < len(out) and t not in rev.superseded:
            out[t] = StepCheck(min(out[t].q, refuted_q), [*out[t].reasons, why], True)
    return out, {t: w for t, w in rev.superseded.items() if 0 <= t < len(out)}, reasons


_DEFAULT_VERIFIER = SymbolicVerifier()
"""The verifier :func:`score_group` uses when given none (stateless: its frozen config only)."""


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


def _evidence(p: _Parsed, group: dict[str, float | None], ref: str | None, cfg: RAFSConfig,
              refuted_q: float) -> Evidence | RAFSResult:
    """Gather one trace's evidence for :func:`~rewards.scoring.policy.decide` (an abstention when there is none to
    judge); ``ref`` is the gold final answer already extracted (``None``: no gold); ``refuted_q`` the verifier's q
    of a false step."""
    trace = p.trace
    if trace.issues:
        return abstain(list(trace.issues), trace, cfg=cfg)
    flow = p.flow
    coverage = flow.coverage
    if trace.answer is None:
        return abstain(["no final answer found (no \\boxed{}, '####', 'the answer is', or trailing number)"],
                       trace, p.checks, coverage, cfg)
    implied = C.implication(flow)
    derivations = answer_derivations(flow)  # once: the path, the edits and both groundings read them
    path = frozenset().union(*derivations)  # answer_path(flow)
    edits = input_counterfactuals(trace, flow, path=path)
    raw_sens = C.sensitivity(edits, cfg.m_min)
    symbolic = flow.symbolic if not path else None  # an answer in letters: the verified chain from the problem's
    if symbolic is not None:  # expression is its derivation (rewards.evidence.symbolic_answers)
        implied, path, raw_sens = 1.0, symbolic.steps, symbolic.sensitivity
    if coverage == 0.0 and C.support(implied, raw_sens) is None and group.get("C_A") is None:
        return abstain(["nothing checkable: no equation in any step and no samples to compare"],
                       trace, p.checks, coverage, cfg)
    reward_mode = cfg.missing_evidence == "no_support"
    correct = answers_equivalent(trace.answer, ref) if ref is not None else None
    checks, superseded, revision_reasons = _apply_revisions(trace, flow, p.checks, correct, refuted_q)
    withheld: list[str] = []
    if reward_mode:
        checks, withheld = _note_stray_claims(flow, checks, superseded, trace)
    # a number stated without an equation feeds no symbolic chain: every link of it is verified from the problem's
    # expression on, so no coincidence of values can carry a hidden slip onto it
    feeding = _ungrounded_on_answer_path(flow, derivations=derivations) + (withheld if symbolic is None else [])
    hedge = _hedged(trace) if trace.other_answers else []
    readings = _reward_readings(trace, flow, cfg, derivations, edits, path, feeding, hedge, symbolic) if reward_mode \
        else dict.fromkeys(("function", "degenerate", "hollow", "quantities"))
    return Evidence(
        trace=trace, reward_mode=reward_mode, checks=checks, superseded=superseded,
        revision_reasons=revision_reasons, coverage=coverage, implied=implied, path=path, sensitivity=raw_sens,
        feeding=feeding, hedge=hedge, grounded=reward_mode or _grounded_derivation(flow, derivations),
        last_derived=flow.last_derived, correct=correct, group=group, **readings)


def _reward_readings(trace: Trace, flow: Dataflow, cfg: RAFSConfig, derivations: list[frozenset[int]], edits,
                     path: frozenset[int], feeding: list[str], hedge: list[str], symbolic) -> dict[str, Any]:
    """Reward mode's readings of the answer's derivation, as :class:`Evidence` fields: ``function`` (the derivation as
    a function of the problem's quantities, ``derivation_function``), ``degenerate`` (why that function is no
    derivation), ``hollow`` (why the derivation carries nothing) and ``quantities`` (``(used, stated)`` of the
    problem's quantities); a symbolic chain (``symbolic``) gives only its own degeneracy (its start read as a
    function of the problem's expression)."""
    function = _derivation_reading(trace, flow, derivations, MAX_ALTERNATIVES if cfg.counterfactual_agreement else 0) \
        if cfg.derivation_function and path and not hedge and symbolic is None else None
    degenerate = function.degenerate if function is not None else None
    if symbolic is not None and cfg.derivation_function:
        degenerate = symbolic.degenerate  # the chain's start read as a function of the problem's expression
    hollow = _hollow_derivation(trace, flow, edits, path) if path and not feeding and symbolic is None else None
    quantities = quantity_coverage(trace, flow, path) if path and cfg.unused_exponent > 0 and symbolic is None \
        else None
    if quantities is not None and quantities[0] == 0 and function is not None and degenerate is None:
        # the value-keyed path found no stated quantity (10 - 8 = 2, then 2 / 2 when the problem states a 2: the
        # path stops at the 2); the quantities the function depends on are the ones the derivation uses
        quantities = quantity_coverage(trace, flow, path, used=function.used_values())
    return {"function": function, "degenerate": degenerate, "hollow": hollow, "quantities": quantities}


def _derivation_reading(trace: Trace, flow: Dataflow, derivations: list[frozenset[int]],
                        alternatives: int = 0) -> DerivationFunction | None:
    """The answer's derivation read as a function of the problem's quantities
    (:func:`~rewards.evidence.derivation_function.derivation_function`; ``None``: no function could be built — no
    evidence either way). Never raises on untrusted input."""
    try:
        return derivation_function(trace, flow, derivations, alternatives)
    except Exception as exc:  # noqa: BLE001 - an analysis bug must never crash a reward; nothing is withheld
        log.warning("derivation function failed (%s: %s); scoring without it", type(exc).__name__, exc)
        return None


def _single(p: _Parsed, group: dict[str, float | None], ref: str | None, cfg: RAFSConfig,
            refuted_q: float) -> RAFSResult:
    """One trace's verdict: its evidence, then the policy's decision."""
    evidence = _evidence(p, group, ref, cfg, refuted_q)
    return evidence if isinstance(evidence, RAFSResult) else decide(evidence, cfg)


def score_group(
    problem: Any,
    completions: Sequence[Any],
    *,
    gold: str | None = None,
    config: RAFSConfig | None = None,
    verifier: StepVerifier | None = None,
    steps: Sequence[Sequence[str] | None] | None = None,
    mode: str = "evaluation",
) -> list[RAFSResult]:
    """Score K completions of one problem together: C_A and D_R are computed over the group.

    Args:
        problem: the problem text (or the prompt's messages).
        completions: the K completions (text or messages); entries may be ``None`` when ``steps`` are given.
        gold: the gold answer, optional (a bare answer, a GSM8K solution or a ``\\boxed``).
        config: a :class:`RAFSConfig`, a dict of its fields, or ``None`` (defaults).
        verifier: the step verifier (default: the symbolic one).
        steps: optional pre-split steps per completion (ProcessBench's ``steps``).
        mode: ``"reward"`` (missing evidence is no support: what the reward functions pay) or ``"evaluation"``;
            settles ``missing_evidence`` when the config leaves it ``None`` (:mod:`rewards.scoring.config`).
    """
    if mode not in USES:
        raise ValueError(f"mode={mode!r}: pick one of {list(MODES)}.")
    # the shared defaults when none are given (nothing here writes to the config or the verifier)
    cfg = DEFAULT_CONFIGS[mode] if config is None else RAFSConfig.coerce(config, use=mode)
    verifier = verifier or _DEFAULT_VERIFIER
    step_lists = list(steps) if steps is not None else [None] * len(completions)
    with young_collections_deferred(group_chars(completions, step_lists)):  # the scorer's objects die young
        return _score_group(problem, completions, step_lists, gold, cfg, verifier)


def _score_group(problem: Any, completions: Sequence[Any], step_lists: list, gold: str | None, cfg: RAFSConfig,
                 verifier: StepVerifier) -> list[RAFSResult]:
    """:func:`score_group`'s work, its arguments checked."""
    parsed = _verify([_parse(problem, c, s) for c, s in zip(completions, step_lists)], verifier)
    per_member = _group_components(parsed, cfg)
    ref = gold_answer(gold) if gold is not None else None  # once per group, not per member
    if not (cfg.counterfactual_agreement and cfg.derivation_function and cfg.missing_evidence == "no_support"):
        return [_single(p, group, ref, cfg, verifier.refuted_q) for p, group in zip(parsed, per_member)]
    evidence = [_evidence(p, group, ref, cfg, verifier.refuted_q) for p, group in zip(parsed, per_member)]
    _attach_agreement(gold, ref, parsed, evidence, cfg)
    return [e if isinstance(e, RAFSResult) else decide(e, cfg) for e in evidence]


def _group_components(parsed: list[_Parsed], cfg: RAFSConfig) -> list[dict[str, float | None]]:
    """``C_A`` and ``D_R`` of each member over the group (both ``None`` for a group of one): shared by every member
    (``group_mode="group"``) or each member's own (``"member"``)."""
    if len(parsed) < 2:
        return [{"C_A": None, "D_R": None} for _ in parsed]
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
    return per_member


def _comparable(e: Evidence | RAFSResult, cfg: RAFSConfig) -> bool:
    """Whether a member's derivation function may be compared (and may be compared with): a function was built and is
    no degenerate one, the answer is supported (a verified derivation, nothing from nowhere, no hedge, not hollow) and
    no step is refuted."""
    return (isinstance(e, Evidence) and e.function is not None and e.function.degenerate is None
            and not e.unsupported and e.hollow is None and not refuted_steps(e, cfg))


def _attach_agreement(gold: str | None, ref: str | None, parsed: list[_Parsed],
                      evidence: list[Evidence | RAFSResult], cfg: RAFSConfig) -> None:
    """Counterfactual agreement (:mod:`rewards.scoring.agreement`) of every comparable member, written into its
    evidence: with a worked gold solution whose function can be read, against that reference; otherwise among the
    members that reach the same answer (the correct ones, with a gold answer). Never raises: a failure leaves every
    member absent."""
    try:
        comparable = [_comparable(e, cfg) for e in evidence]
        if not any(comparable):
            return
        keys = [p.canonical if ok and (ref is None or e.correct) else None
                for p, e, ok in zip(parsed, evidence, comparable)]
        reference = None
        if ref is not None and gold is not None and gold.strip() != ref:
            text = next(e.trace.problem for e, ok in zip(evidence, comparable) if ok)
            reference = reference_function(text, gold)
        found = group_agreement([e.function if ok else None for e, ok in zip(evidence, comparable)], keys,
                                penalty=cfg.isolation_penalty, min_peers=cfg.isolation_min_peers,
                                reference=reference)
    except Exception as exc:  # noqa: BLE001 - an analysis bug must never crash a reward; agreement stays absent
        log.warning("counterfactual agreement failed (%s: %s); scoring without it", type(exc).__name__, exc)
        return
    for e, a in zip(evidence, found):
        if a is not None and isinstance(e, Evidence):
            e.agreement = a


def score_trace(
    problem: Any,
    completion: Any = None,
    *,
    steps: Sequence[str] | None = None,
    samples: Sequence[Any] | None = None,
    gold: str | None = None,
    config: RAFSConfig | None = None,
    verifier: StepVerifier | None = None,
    mode: str = "evaluation",
) -> RAFSResult:
    """Score one completion; ``samples`` (other completions of the same problem) enable C_A and D_R; ``mode`` as in
    :func:`score_group`.

    Never raises on untrusted model output: unscorable input gives ``status == "abstain"`` with a reason.
    """
    if mode not in USES:
        raise ValueError(f"mode={mode!r}: pick one of {list(MODES)}.")
    samples = list(samples or [])
    try:
        return score_group(problem, [completion, *samples], gold=gold, config=config, verifier=verifier,
                           steps=[steps, *([None] * len(samples))], mode=mode)[0]
    except Exception as exc:  # noqa: BLE001 - last line of defence for a training run
        log.warning("RAFS could not score a completion: %s: %s", type(exc).__name__, exc)
        return abstain([f"internal error: {type(exc).__name__}: {exc}"])  # None: no verdict, logged


def score_traces(rows: Sequence[Mapping[str, Any]], *, config: RAFSConfig | None = None,
                 verifier: StepVerifier | None = None, mode: str = "evaluation") -> list[RAFSResult]:
    """Score rows shaped like ``rafs score``'s input (``problem``, ``completion`` or ``steps``, ``samples``,
    ``answer``)."""
    return [
        score_trace(r.get("problem"), r.get("completion"), steps=r.get("steps"), samples=r.get("samples"),
                    gold=r.get("answer"), config=config, verifier=verifier, mode=mode)
        for r in rows
    ]
