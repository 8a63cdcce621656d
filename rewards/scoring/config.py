"""The scorer's configuration: every threshold and weight, and how a *mode* settles what missing evidence is worth.

A score is asked for in a mode, named by the caller (never inferred from the entry point):

* ``"reward"`` — what a policy is paid (every TRL reward function): missing evidence is no support
  (``missing_evidence="no_support"``) and the reward-only rules of :mod:`rewards.scoring.policy` apply;
* ``"evaluation"`` (alias ``"scoring"``) — a metric for people, ProcessBench-style detection and the SFT filter: a
  component without evidence is dropped (``"absent"``).

An explicit ``missing_evidence`` in the config wins over the mode.

>>> RAFSConfig.coerce(None, use="reward").missing_evidence
'no_support'
>>> RAFSConfig.coerce({"tau_accept": 70}).missing_evidence
'absent'
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any, Mapping

__all__ = ["RAFSConfig", "COMPONENTS", "MISSING_EVIDENCE", "USES", "MODES", "DEFAULT_CONFIGS"]

COMPONENTS = ("P_R", "S_RA", "C_A", "D_R")
MISSING_EVIDENCE = ("no_support", "absent")
USES = {"reward": "no_support", "scoring": "absent", "evaluation": "absent"}
"""The ``missing_evidence`` policy each use (mode) gets when the config leaves it open."""
MODES = ("reward", "evaluation")
"""The modes a score is asked for in (``"scoring"`` is accepted as an alias of ``"evaluation"``)."""


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
            ``(used / stated)^γ``, the share of the problem's quantities the answer's derivation uses
            (:func:`~rewards.evidence.quantity_coverage`; the paper's skipped muffins). Weighed, not
            blocking: half of GSM8K's gold solutions leave a distractor unused. 0 turns it off.
        derivation_function: under ``missing_evidence="no_support"`` read the answer's derivation as a function of
            the problem's quantities (:mod:`rewards.evidence.derivation_function`): a degenerate one — constant, a
            quantity copied through, or a quantity or sub-expression that cancels — withholds support (the answer is
            unsupported, like a gap; no step is refuted). A derivation the function cannot be built for changes
            nothing.
        counterfactual_agreement: under ``missing_evidence="no_support"`` with ``derivation_function``, compare the
            derivation functions of a group's members that reach the same (correct) answer at consistent edits of
            the problem's quantities, or each with a worked reference solution's when the gold is one
            (:mod:`rewards.scoring.agreement`): an isolated member's reward is multiplied by
            ``isolation_penalty``; agreement earns nothing extra, and where no function can be compared (a group of
            one, algebra) it is absent.
        isolation_penalty: ``κ``, the factor of an isolated member's reward (RAFS and faithful accuracy).
        isolation_min_peers: the comparable members with the same answer a member needs besides itself before the
            group can call it isolated (a reference solution needs none).
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
    derivation_function: bool = True
    counterfactual_agreement: bool = False
    isolation_penalty: float = 0.9
    isolation_min_peers: int = 2

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
                             ("unused_exponent", 0, 4), ("isolation_penalty", 0, 1)):
            value = getattr(self, name)
            if not lo <= value <= hi:
                raise ValueError(f"RAFSConfig.{name}={value!r} is outside [{lo}, {hi}].")
        if self.group_mode not in ("group", "member"):
            raise ValueError(f"RAFSConfig.group_mode={self.group_mode!r}: use 'group' or 'member'.")
        if not isinstance(self.derivation_function, bool):
            raise ValueError(f"RAFSConfig.derivation_function={self.derivation_function!r} must be True or False.")
        if not isinstance(self.counterfactual_agreement, bool):
            raise ValueError(f"RAFSConfig.counterfactual_agreement={self.counterfactual_agreement!r} must be True or "
                             "False.")
        if isinstance(self.isolation_min_peers, bool) or not isinstance(self.isolation_min_peers, int) \
                or self.isolation_min_peers < 1:
            raise ValueError(f"RAFSConfig.isolation_min_peers={self.isolation_min_peers!r} must be an integer >= 1 "
                             "(e.g. 2: two other comparable members).")
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


DEFAULT_CONFIGS: dict[str, RAFSConfig] = {use: RAFSConfig().for_use(use) for use in USES}
"""The default config of each mode, built and checked once: what :func:`~rewards.scoring.score.score_group` uses
when it is given none (nothing writes to it)."""
