"""The default step verifier: exact arithmetic over stated equations plus soft grounding. No model.

For step ``t`` with equations ``E_t`` and operands ``U_t``:

* a false equation gives ``q_t = q_false`` (one fatal step sinks ``P_R`` through its minimum);
* otherwise every checked equation holding gives ``q_t = q_true``; no checkable equation gives ``q_prior``;
* each ungrounded operand (not in the problem, not produced or mentioned earlier, not a common constant)
  multiplies ``q_t`` by ``ungrounded_factor``, floored at ``ungrounded_floor`` — evidence, not proof, so the
  floor stays above the suspect-step threshold and grounding alone never makes a suspect step.

>>> from rewards.parsing.trace import parse_trace
>>> from rewards.evidence import build_dataflow
>>> t = parse_trace("A pen costs 3 dollars. Tom buys 4 pens.", "4 * 3 = 13 dollars.\\n#### 13")
>>> [round(c.q, 2) for c in SymbolicVerifier().verify(t, build_dataflow(t))]
[0.05]
"""

from __future__ import annotations

from dataclasses import dataclass

from rewards.parsing.values import format_value
from rewards.verifiers.base import StepCheck, StepVerifier

__all__ = ["SymbolicConfig", "SymbolicVerifier"]


@dataclass(frozen=True)
class SymbolicConfig:
    """Step probabilities of the symbolic verifier. Why these defaults: docs/scoring.md (Pipeline, step 4, and
    Thresholds): with them ``q_t`` is 0.05 for a false equation and 0.6-0.98 otherwise, so any ``theta_step`` in
    (0.05, 0.6) flags the same steps, and grounding alone (floored at 0.6) never makes a step suspect."""

    q_true: float = 0.98
    q_false: float = 0.05
    q_prior: float = 0.75
    ungrounded_factor: float = 0.9
    ungrounded_floor: float = 0.6

    def __post_init__(self) -> None:
        for name in ("q_true", "q_false", "q_prior", "ungrounded_factor", "ungrounded_floor"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"SymbolicConfig.{name}={value!r} is outside [0, 1]; pick a probability.")


class SymbolicVerifier(StepVerifier):
    """Exact-arithmetic step checks with grounding; see the module docstring for the formula."""

    name = "symbolic"

    def __init__(self, config: SymbolicConfig | None = None) -> None:
        self.config = config or SymbolicConfig()

    @property
    def refuted_q(self) -> float:
        """This verifier's ``q_false`` (:attr:`StepVerifier.refuted_q`)."""
        return self.config.q_false

    def verify(self, trace, flow) -> list[StepCheck]:
        cfg = self.config
        out: list[StepCheck] = []
        for step in flow.steps:
            # one pass over the checks: any false one gives q_false and its detail (in order), else any decided one
            # q_true, else q_prior; ``checked`` when one is decided
            reasons: list[str] = []
            checked = failed = False
            for c in step.checks:
                ok = c.ok
                if ok is not None:
                    checked = True
                    if ok is False:
                        failed = True
                        reasons.append(c.detail)
            q = cfg.q_false if failed else cfg.q_true if checked else cfg.q_prior
            if step.ungrounded:
                unique = list(dict.fromkeys(step.ungrounded))
                if q > cfg.ungrounded_floor:
                    q = max(cfg.ungrounded_floor, q * cfg.ungrounded_factor ** len(unique))
                reasons.append("ungrounded quantity " + ", ".join(format_value(v, rounded=True) for v in unique[:5])
                               + " (not in the problem, an earlier step, or the common constants)")
            out.append(StepCheck(q=q, reasons=reasons, checked=checked))
        return out
