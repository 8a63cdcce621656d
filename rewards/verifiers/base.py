"""The step-verifier interface shared by the symbolic checker and the model-backed verifiers."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from rewards.scoring.dataflow import Dataflow
    from rewards.parsing.trace import Trace

__all__ = ["StepCheck", "StepVerifier"]


@dataclass
class StepCheck:
    """A verifier's judgement of one step.

    Attributes:
        q: probability that the step is valid, ``q_t`` in [0, 1].
        reasons: human-readable evidence ("3 * 4 evaluates to 12, not 13", "ungrounded quantity 5").
        checked: whether the verifier could check anything in this step (False: ``q`` is the neutral prior).
    """

    q: float
    reasons: list[str] = field(default_factory=list)
    checked: bool = False

    def to_dict(self) -> dict:
        return asdict(self)


class StepVerifier(ABC):
    """``verify(trace, flow)`` returns one :class:`StepCheck` per step of ``trace``.

    Verifiers must be picklable and thread-safe: TRL may run rewards on a thread or in worker processes.
    """

    name: str = "verifier"

    @abstractmethod
    def verify(self, trace: "Trace", flow: "Dataflow") -> list[StepCheck]:
        """Judge every step of ``trace``; ``flow`` is its dataflow graph (already built by the scorer)."""
