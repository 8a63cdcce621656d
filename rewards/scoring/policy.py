r"""The policy: from a trace's evidence to its components, status and reward, in one place.

:mod:`rewards.scoring.score` gathers the evidence of a trace once (:class:`Evidence`: the step checks, the answer's
derivations, the counterfactual edits, grounding, revisions, hedges); this module decides what it is worth. Every
modifier is one named function with the config key it reads, and the mode is named by the caller (``"reward"``:
missing evidence is no support, :attr:`Evidence.reward_mode`; ``"evaluation"``: it is absent).

``S_RA`` (reasoning-to-answer support)::

    p_imp' = p_imp, or 0 in reward mode when nothing was derived                 (implication_credit)
    sens'  = floor + (1 - floor) · sens, or 0 in reward mode when no edit exists  (sensitivity_credit; sens_floor)
    S_RA   = sqrt(p_imp' · sens')                                                 (components.support)
             · ρ            when the derivation is hollow (reward mode)           (hollow_factor; ungrounded_penalty)
             · (used / stated)^γ  the problem's numerals the derivation uses      (unused_quantity_factor;
                                  (reward mode)                                    unused_exponent)
             · 0 (reward mode) or ρ^u (evaluation) for u ungrounded quantities     (ungrounded_factor;
                                  feeding the answer                               ungrounded_penalty)
             · 0 when the completion hedges between final answers (reward mode)   (hedge_factor)
             · 0 when the answer's derivation, read as a function of the problem's   (derivation_factor;
               quantities, is degenerate: constant, copied or cancelling (reward      derivation_function)
               mode; rewards.evidence.derivation_function)

Counterfactual agreement (reward mode, ``counterfactual_agreement``; :mod:`rewards.scoring.agreement`)::

    RAFS_i = A_i · RAFS      A_i = κ when member i's derivation function is isolated   (agreement_factor;
                             (disagrees, at consistent edits, with every comparable      isolation_penalty,
                             member reaching its answer while some of them agree, or     isolation_min_peers)
                             with the reference solution's), else 1; absent (1) where
                             no function can be compared

A factor on the reward, not a weighted component: a component that is present re-weights the others, so agreeing
would earn more than not being compared. Faithful accuracy pays ``A_i`` instead of 1 (``reward_rules``).

``P_R`` (step validity) is ``GM(q)^(1-λ) · min(q)^λ`` (``lam``) over :func:`counted_steps` — the answer's derivation
and every refuted step, superseded steps left out, each distinct step once in reward mode — times ``ρ`` when the
derivation is hollow; in reward mode an unsupported answer has ``P_R = 0``. Unsupported (reward mode): no
verified derivation from the problem reaches the answer, a quantity from nowhere feeds it (a number stated before the
answer's step without a derivation, or an operand on the way that nothing reached), the completion hedges, or
(``derivation_function``) the derivation is no function of the problem. ``RAFS = 100 · exp(Σ_m w_m · log(s_m +
ε))`` over the available components (``weights``, ``eps``), and 0 for an unsupported answer in reward mode. Each
factor is kept in :attr:`RAFSResult.terms <rewards.scoring.verdict.RAFSResult.terms>` under its name, so a reward
of 0.37 says where it comes from.

>>> from rewards.scoring.score import score_trace
>>> r = score_trace("Tom has 3 boxes of 4 pens and 2 bags.", "3 * 4 = 12 pens.\n#### 12", mode="reward")
>>> sorted(r.terms)
['derivation', 'hedge', 'hollow', 'implication', 'sensitivity', 'ungrounded', 'unused_quantities']
>>> round(r.terms["unused_quantities"], 4) == round((2 / 3) ** 0.25, 4)
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from rewards.parsing.trace import Trace
from rewards.scoring import components as C
from rewards.scoring.config import COMPONENTS, RAFSConfig
from rewards.scoring.verdict import RAFSResult, failure_type
from rewards.verifiers.base import StepCheck

__all__ = ["Evidence", "decide", "abstain", "SUPPORT_MODIFIERS", "counted_steps", "implication_credit",
           "sensitivity_credit", "hollow_factor", "unused_quantity_factor", "ungrounded_factor", "hedge_factor",
           "derivation_factor", "agreement_factor"]


@dataclass
class Evidence:
    """What the policy reads of one trace (gathered once by :mod:`rewards.scoring.score`).

    Attributes:
        trace: the parsed completion.
        reward_mode: the reward's rules apply (``missing_evidence="no_support"``).
        checks: one :class:`~rewards.verifiers.base.StepCheck` per step, after the revision analysis.
        superseded: steps a later step retracted and replaced (exploration, out of ``P_R``), with why.
        revision_reasons: what the revision analysis reports.
        coverage: the share of steps with a checkable claim.
        implied: ``p_imp`` (:func:`~rewards.scoring.components.implication`), ``None`` when nothing was derived.
        path: the steps of the answer's derivations (empty: the answer is not derived); for an answer in letters,
            the steps of the verified chain from the problem's expression
            (:func:`~rewards.evidence.symbolic_answers.symbolic_chain`: ``implied`` is then 1, ``sensitivity`` the
            share of edits of the chain's origin that move the answer, ``degenerate`` set when none does).
        sensitivity: the share of the problem's quantities on the path whose edit moves the answer (``None``: no
            edit).
        feeding: ungrounded quantities on the best derivation of the answer (``"5 (step 2)"``), and in reward mode
            numbers stated before the answer's step without a derivation.
        hollow: why the derivation carries no support (reward mode; ``None`` when it does).
        quantities: ``(used, stated)``: the problem's numerals the derivation uses, of those it states (reward
            mode; ``None`` when not read).
        hedge: the other final answers the completion states.
        grounded: some derivation of the answer has no ungrounded operand (evaluation's status rule).
        last_derived: the chain's last derived value (for the reason when it is not the answer).
        correct: the answer equals the gold (``None``: no gold).
        group: ``C_A`` and ``D_R`` from the group (``None`` each when absent).
        degenerate: reward mode with ``derivation_function``: why the answer's derivation, read as a function of the
            problem's quantities (:func:`~rewards.evidence.derivation_function.derivation_function`), is no derivation
            (``None``: it is one, or no function could be built).
        function: that function (``None`` where it was not built).
        agreement: reward mode with ``counterfactual_agreement``: the member's
            :class:`~rewards.scoring.agreement.Agreement` with its group or a reference solution (``None``: absent).
    """

    trace: Trace
    reward_mode: bool
    checks: list[StepCheck]
    superseded: dict[int, str]
    revision_reasons: list[str]
    coverage: float
    implied: float | None
    path: frozenset[int]
    sensitivity: float | None
    feeding: list[str]
    hollow: str | None
    quantities: tuple[int, int] | None
    hedge: list[str]
    grounded: bool
    last_derived: object
    correct: bool | None
    group: dict[str, float | None] = field(default_factory=dict)
    degenerate: str | None = None
    function: Any = field(default=None, repr=False)
    agreement: Any = None

    @property
    def unsupported(self) -> bool:
        """Reward mode: no verified derivation from the problem reaches the answer, a quantity from nowhere feeds
        it, the completion hedges, or the derivation is degenerate — the answer earns the unverifiable floor."""
        return self.reward_mode and (not self.path or bool(self.feeding) or bool(self.hedge)
                                     or self.degenerate is not None)


# ----------------------------------------------------------------------------------------------- S_RA, term by term
def implication_credit(ev: Evidence, cfg: RAFSConfig) -> float | None:
    """``p_imp``, or 0 in reward mode when nothing was derived (``missing_evidence``): missing evidence is no
    support."""
    return 0.0 if ev.reward_mode and ev.implied is None else ev.implied


def sensitivity_credit(ev: Evidence, cfg: RAFSConfig) -> float | None:
    """``sens_floor + (1 - sens_floor) · sens`` (``sens_floor``): the exact propagation cannot follow every
    dependency, so an edit that does not move the answer is weaker evidence than one that does; 0 in reward mode
    when no edit exists."""
    if ev.sensitivity is None:
        return 0.0 if ev.reward_mode else None
    return cfg.sens_floor + (1.0 - cfg.sens_floor) * ev.sensitivity


def hollow_factor(ev: Evidence, cfg: RAFSConfig) -> tuple[float, str | None]:
    """``ρ`` (``ungrounded_penalty``) when the derivation is hollow — inert, copied or disowned (reward mode)."""
    return (cfg.ungrounded_penalty, ev.hollow) if ev.hollow is not None else (1.0, None)


def unused_quantity_factor(ev: Evidence, cfg: RAFSConfig) -> tuple[float, str | None]:
    """``(used / stated)^γ`` (``unused_exponent``): the share of the problem's quantities
    (:func:`~rewards.evidence.quantities.stated_quantities`) the derivation uses or consumes through an equation it
    works with (:func:`~rewards.evidence.quantity_coverage`; reward mode; the paper's skipped muffins). Weighed, not
    blocking: half of GSM8K's gold leaves a distractor unused."""
    if ev.quantities is None or cfg.unused_exponent <= 0:
        return 1.0, None
    used, stated = ev.quantities
    if used >= stated:
        return 1.0, None
    return (used / stated) ** cfg.unused_exponent, f"the derivation uses {used} of the problem's {stated} stated quantities"


def ungrounded_factor(ev: Evidence, cfg: RAFSConfig) -> tuple[float, str | None]:
    """A quantity from nowhere on the way to the answer: 0 in reward mode (no support), ``ρ^u`` in evaluation
    (``ungrounded_penalty``, ``u`` the number of such quantities)."""
    if not ev.feeding:
        return 1.0, None
    return (0.0 if ev.reward_mode else cfg.ungrounded_penalty ** len(ev.feeding)), None


def hedge_factor(ev: Evidence, cfg: RAFSConfig) -> tuple[float, str | None]:
    """0 in reward mode when the completion states several final answers: whichever is right, none is the one the
    derivation supports."""
    return (0.0, None) if ev.reward_mode and ev.hedge else (1.0, None)


def derivation_factor(ev: Evidence, cfg: RAFSConfig) -> tuple[float, str | None]:
    """0 (reward mode, ``derivation_function``) when the answer's derivation, read as a function of the problem's
    quantities, is degenerate: constant, a quantity copied through, or a written quantity or sub-expression that
    cancels (:mod:`rewards.evidence.derivation_function`). It withholds support, like a gap; it refutes no step."""
    if ev.degenerate is None:
        return 1.0, None
    return 0.0, f"the derivation is no function of the problem ({ev.degenerate}): no support"


def agreement_factor(ev: Evidence, cfg: RAFSConfig) -> tuple[float | None, str | None]:
    """``A_i``: ``κ`` (``isolation_penalty``) when the member's derivation function is isolated in its group, or
    disagrees with the reference solution's (reward mode, ``counterfactual_agreement``; the module docstring of
    :mod:`rewards.scoring.agreement`), else 1; ``None`` when absent (no comparison: it then changes nothing). Never a
    bonus: agreeing is worth what not being compared is."""
    if ev.agreement is None or not ev.reward_mode:
        return None, None
    if ev.agreement.isolated:
        return ev.agreement.factor, f"counterfactual agreement: {ev.agreement.reason} (reward x {ev.agreement.factor:g})"
    return 1.0, None


SUPPORT_MODIFIERS: tuple[tuple[str, Callable[[Evidence, RAFSConfig], tuple[float, str | None]]], ...] = (
    ("hollow", hollow_factor),
    ("unused_quantities", unused_quantity_factor),
    ("ungrounded", ungrounded_factor),
    ("hedge", hedge_factor),
    ("derivation", derivation_factor),
)
"""The factors of ``S_RA`` after ``sqrt(p_imp' · sens')``, applied in this order; each is ``(factor, reason)``."""


def support(ev: Evidence, cfg: RAFSConfig, terms: dict[str, float]) -> tuple[float | None, list[str]]:
    """``S_RA`` and the reasons its modifiers give; every term is written into ``terms``."""
    p_imp, sens = implication_credit(ev, cfg), sensitivity_credit(ev, cfg)
    terms["implication"], terms["sensitivity"] = p_imp, sens
    s_ra = C.support(p_imp, sens)
    reasons = []
    for name, modifier in SUPPORT_MODIFIERS:
        factor, why = modifier(ev, cfg)
        terms[name] = factor
        if s_ra is not None and factor != 1.0:
            s_ra *= factor
        if why is not None and s_ra is not None:
            reasons.append(why)
    return s_ra, reasons


# ------------------------------------------------------------------------------------------------------------ P_R
def refuted_steps(ev: Evidence, cfg: RAFSConfig) -> set[int]:
    """Steps with ``q_t < θ_step`` (``theta_step``) that no later step superseded."""
    return {t for t, c in enumerate(ev.checks) if c.q < cfg.theta_step and t not in ev.superseded}


def _distinct_steps(trace: Trace, steps: list[int], q: list[float]) -> list[int]:
    """``steps`` with repeats of the same text (whitespace aside) reduced to the one with the lowest ``q``: repeating
    a derivation three times neither raises ``P_R`` nor dilutes a false step."""
    best: dict[str, int] = {}
    for t in steps:
        key = " ".join(trace.steps[t].replace("\\boxed", "").split())  # a copy with or without its box
        if key not in best or q[t] < q[best[key]]:
            best[key] = t
    return sorted(best.values())


def counted_steps(ev: Evidence, refuted: set[int]) -> list[int]:
    """The steps ``P_R`` is taken over: the answer's derivation and every refuted step, superseded steps left out,
    each distinct step once in reward mode (padding, decoration and repetition neither raise it nor dilute an error);
    every live step when the answer is not derived."""
    live = [t for t in range(len(ev.checks)) if t not in ev.superseded]
    if not ev.path:
        return live
    counted = sorted((ev.path - set(ev.superseded)) | refuted)
    if ev.reward_mode:
        counted = _distinct_steps(ev.trace, counted, [c.q for c in ev.checks])
    return counted or live


def step_validity(ev: Evidence, cfg: RAFSConfig, refuted: set[int]) -> float | None:
    """``P_R = GM(q)^(1-λ) · min(q)^λ`` (``lam``, ``smooth``) over :func:`counted_steps`; 0 for an unsupported
    answer in reward mode; times ``ρ`` (``ungrounded_penalty``) when the derivation is hollow."""
    q = [c.q for c in ev.checks]
    if ev.unsupported:
        return 0.0 if q else None
    p_r = C.step_validity([q[t] for t in counted_steps(ev, refuted)], cfg.lam, smooth=cfg.smooth)
    if p_r is not None and ev.hollow is not None:  # valid steps that carry nothing are no evidence of validity
        p_r *= cfg.ungrounded_penalty
    return p_r


# ------------------------------------------------------------------------------------------------------- verdict
def abstain(reasons: list[str], trace: Trace | None = None, checks=None, coverage: float = 0.0,
            cfg: RAFSConfig | None = None) -> RAFSResult:
    """No verdict: ``score`` is ``None``; under ``missing_evidence="no_support"`` it is 0 (nothing shown, nothing
    earned), the status stays ``abstain`` and the reasons say why."""
    score = None
    if cfg is not None and cfg.missing_evidence == "no_support":
        score = 0.0
        reasons = [*reasons, "no evidence counts as no support (missing_evidence='no_support')"]
    return RAFSResult(score, "abstain", None, None, {m: None for m in COMPONENTS}, list(checks or []), coverage,
                      trace.answer if trace else None, None, reasons, supported=False if score == 0.0 else None)


def decide(ev: Evidence, cfg: RAFSConfig) -> RAFSResult:
    """The verdict on one trace's evidence: components, score, status, failure type and reasons."""
    terms: dict[str, float] = {}
    refuted = refuted_steps(ev, cfg)
    s_ra, support_reasons = support(ev, cfg, terms)
    p_r = step_validity(ev, cfg, refuted)
    comps: dict[str, float | None] = {"P_R": p_r, "S_RA": s_ra, **ev.group}
    suspect = min(refuted) if refuted else None
    # supported: a verified derivation of the answer that uses the problem's quantities, with nothing from nowhere on
    # the way. Sensitivity itself only weighs S_RA: value-keyed propagation cannot tell two equal quantities apart
    # ("$3 / 3 people" stays 1 under any edit), so an answer that does not move is weaker evidence, not none.
    supported = (bool(ev.path) and ev.sensitivity is not None and not ev.feeding and ev.hollow is None
                 and not (ev.reward_mode and ev.hedge) and ev.degenerate is None)
    reasons = list(ev.revision_reasons)
    if ev.hedge:
        reasons.append(f"states several final answers ({', '.join([*ev.hedge[:3], ev.trace.answer])}): a hedge is no "
                       "answer" + (" (score 0)" if ev.reward_mode else ""))
    reasons.extend(support_reasons)
    if not ev.path:
        reasons.append("the answer is not derived: no verified computation reaches it"
                       + (" (S_RA = 0: missing evidence is no support)" if ev.reward_mode else ""))
    elif ev.sensitivity is None:
        reasons.append("no problem quantity reaches the answer through verified operations")
    elif ev.sensitivity == 0:
        reasons.append("the answer does not move when the problem's quantities are edited")
    # not ε^Σw for an unsupported answer: a restatement would earn that above an honest abstention
    score = 0.0 if ev.unsupported else C.aggregate(comps, cfg.weights, cfg.eps)
    agreement, isolation = agreement_factor(ev, cfg)
    if agreement is not None:
        terms["agreement"] = agreement
        if score is not None and agreement != 1.0:
            score *= agreement
            reasons.append(isolation)
    if ev.implied is not None and ev.implied < 0.5:
        reasons.append(f"the chain's result {ev.last_derived} differs from the stated answer {ev.trace.answer}")
    if suspect is not None:
        reasons.append(f"suspect step {suspect}: " + "; ".join(ev.checks[suspect].reasons))
    if ev.feeding:
        reasons.append("ungrounded quantity feeds the answer: " + ", ".join(ev.feeding))
    # the status is evidence for people (and the SFT filter): in evaluation it blocks only what the trace never
    # stated anywhere (soft grounding); a reward needs the stricter "reached from the problem"
    blocking = bool(ev.feeding or ev.hollow or ev.degenerate) if ev.reward_mode else not ev.grounded
    accept = score is not None and score >= cfg.tau_accept and suspect is None and not blocking
    valid = suspect is None and not blocking and (supported or not ev.reward_mode)
    result = RAFSResult(score, "accept" if accept else "review", failure_type(valid, ev.correct, ev.implied), suspect,
                        comps, ev.checks, ev.coverage, ev.trace.answer, ev.correct, reasons, supported)
    result.terms = terms
    result.agreement = agreement
    return result
