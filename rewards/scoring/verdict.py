"""The verdict on one trace: :class:`RAFSResult` (score, status, failure type, components, step checks, reasons).

>>> r = RAFSResult(98.5, "accept", "faithful_success", None, {"P_R": 0.98, "S_RA": 1.0}, [], 1.0, "12", True)
>>> r.reward, r.to_dict()["status"]
(0.985, 'accept')
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from rewards.verifiers.base import StepCheck

__all__ = ["RAFSResult", "FAILURE_TYPES", "failure_type"]

FAILURE_TYPES = ("faithful_success", "silent_failure", "extraction_failure", "overt_failure", "invalid_reasoning")
"""With a gold answer: valid and correct, invalid and correct, valid and wrong, invalid and wrong; without one,
``invalid_reasoning`` (a suspect step) or ``extraction_failure`` (the chain's result is not the stated answer)."""


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
    terms: dict[str, float | None] = field(default_factory=dict, repr=False, compare=False)
    """The named terms :mod:`rewards.scoring.policy` multiplied into ``S_RA`` (``implication``, ``sensitivity``,
    ``hollow``, ``unused_quantities``, ``ungrounded``, ``hedge``): where a score comes from. Empty on an
    abstention; not part of :meth:`to_dict`."""
    agreement: float | None = None
    """The counterfactual-agreement factor ``A_i`` already in :attr:`score` (``RAFSConfig.counterfactual_agreement``;
    :mod:`rewards.scoring.agreement`): ``isolation_penalty`` for a member whose derivation function is isolated in
    its group, 1.0 when it was compared and is not, ``None`` when absent (not compared). In :meth:`to_dict` only when
    it is not ``None``."""

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
            **({} if self.agreement is None else {"agreement": self.agreement}),
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict())


def failure_type(valid: bool, correct: bool | None, p_imp: float | None) -> str | None:
    """The failure type of a verdict (:data:`FAILURE_TYPES`); ``None`` for a valid trace without a gold answer."""
    if correct is None:
        if p_imp is not None and p_imp < 0.5:
            return "extraction_failure"
        return None if valid else "invalid_reasoning"
    if correct:
        return "faithful_success" if valid else "silent_failure"
    return "extraction_failure" if valid else "overt_failure"
