"""The step-verifier interface shared by the symbolic checker and the model-backed verifiers."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:  # pragma: no cover
    from rewards.evidence import Dataflow
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
    """``verify(trace, flow)`` returns one :class:`StepCheck` per step of ``trace``; ``verify_batch(traces, flows)``
    returns one such list per trace.

    The scorer calls ``verify_batch`` once per group (a GRPO group is one batch) and, if it raises, ``verify`` trace
    by trace. The default ``verify_batch`` loops over ``verify``; a model-backed verifier overrides it to score the
    whole batch in a few forward passes (or one request).

    Verifiers must be picklable and thread-safe: TRL may run rewards on a thread or in worker processes.
    """

    name: str = "verifier"

    refuted_q: float = 0.05
    """The ``q`` this verifier gives a step it finds false. The scorer's checks above the verifier (the revision
    analysis: a summary that contradicts its thinking, a trace that talked itself out of its right value) refute a
    step as ``min(q, refuted_q)``, so a verifier's own scale — a user's :class:`~rewards.verifiers.symbolic.SymbolicConfig`
    (its ``q_false``), a PRM's probabilities — is kept rather than overwritten."""

    @abstractmethod
    def verify(self, trace: "Trace", flow: "Dataflow") -> list[StepCheck]:
        """Judge every step of ``trace``; ``flow`` is its dataflow graph (already built by the scorer)."""

    def verify_batch(self, traces: Sequence["Trace"], flows: Sequence["Dataflow"] | None = None
                     ) -> list[list[StepCheck]]:
        """Judge many traces: ``[verify(t, f) for t, f in zip(traces, flows)]``, one list of checks per trace, in
        order. ``flows`` are the traces' dataflow graphs: the scorer and :class:`FallbackVerifier` always pass them;
        an override takes the same ``(traces, flows=None)`` signature and must also work with ``flows=None`` (a
        direct caller may omit them; the model-backed verifiers read only the text). An exception propagates: the
        caller decides how to degrade (the scorer retries trace by trace).

        >>> from rewards.parsing.trace import parse_trace
        >>> from rewards.evidence import build_dataflow
        >>> from rewards.verifiers.symbolic import SymbolicVerifier
        >>> traces = [parse_trace("Tom has 3 boxes of 4 pens.", s) for s in ("3 * 4 = 12 pens.\\n#### 12",
        ...                                                                  "3 * 4 = 13 pens.\\n#### 13")]
        >>> checks = SymbolicVerifier().verify_batch(traces, [build_dataflow(t) for t in traces])
        >>> [[round(c.q, 2) for c in trace_checks] for trace_checks in checks]
        [[0.98], [0.05]]
        >>> SymbolicVerifier.batches_natively()  # the default loop: no batched forward pass
        False
        """
        traces = list(traces)
        if flows is None:
            flows = [None] * len(traces)
        else:
            flows = list(flows)
            if len(flows) != len(traces):
                raise ValueError(f"{type(self).__name__}.verify_batch: flows has {len(flows)} graphs for "
                                 f"{len(traces)} traces; pass one dataflow graph per trace, in the same order.")
        return [self.verify(t, f) for t, f in zip(traces, flows)]

    @classmethod
    def batches_natively(cls) -> bool:
        """Whether this verifier overrides :meth:`verify_batch` (one call scores the batch) rather than inheriting
        the per-trace loop."""
        return cls.verify_batch is not StepVerifier.verify_batch
