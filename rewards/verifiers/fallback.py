"""Degrade a slow or failing model-backed verifier to the symbolic one instead of stalling the trainer.

``FallbackVerifier(primary, fallback=SymbolicVerifier(), timeout_s=30)`` runs ``primary.verify`` in a worker
thread with a deadline (``concurrent.futures``, no signals: TRL runs rewards on threads, where ``signal.alarm``
is unavailable). When the primary raises, misses the deadline, or returns something malformed (wrong number of
checks, ``q`` outside [0, 1] or NaN), the fallback's checks are returned instead, each carrying the logged reason
``"fallback (<primary>: <why>)"``.

A primary that timed out may still be running (a thread cannot be killed); to keep stuck calls from piling up,
the wrapper then skips the primary for ``cooldown_s`` seconds and goes straight to the fallback, and never has
more than ``max_workers`` primary calls in flight.

>>> from rewards.verifiers.symbolic import SymbolicVerifier
>>> class Broken(SymbolicVerifier):
...     name = "broken"
...     def verify(self, trace, flow):
...         raise RuntimeError("CUDA out of memory")
>>> v = FallbackVerifier(Broken(), timeout_s=5)
>>> from rewards.parsing.trace import parse_trace
>>> from rewards.evidence import build_dataflow
>>> t = parse_trace("Tom has 3 boxes of 4 pens.", "3 * 4 = 12 pens.\\n#### 12")
>>> checks = v.verify(t, build_dataflow(t))
>>> round(checks[0].q, 2), checks[0].reasons[-1].startswith("fallback (broken: RuntimeError")
(0.98, True)
>>> v.stats["fallbacks"]
1
"""

from __future__ import annotations

import logging
import math
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from rewards.verifiers.base import StepCheck, StepVerifier

__all__ = ["FallbackVerifier"]

log = logging.getLogger(__name__)


class FallbackVerifier(StepVerifier):
    """``primary`` with a deadline, falling back to ``fallback`` (the symbolic verifier by default).

    Args:
        primary: the model-backed verifier.
        fallback: used when the primary fails; ``None`` means :class:`SymbolicVerifier` with its defaults.
        timeout_s: deadline for one ``primary.verify`` call (seconds, > 0).
        cooldown_s: after a timeout, skip the primary for this long (0 disables the cooldown).
        max_workers: at most this many primary calls in flight; when all are busy the fallback answers at once.
    """

    def __init__(self, primary: StepVerifier, fallback: StepVerifier | None = None, timeout_s: float = 30.0,
                 cooldown_s: float = 60.0, max_workers: int = 2) -> None:
        if not isinstance(primary, StepVerifier):
            raise TypeError(f"FallbackVerifier.primary={primary!r} is not a StepVerifier; pass a verifier from "
                            f"rewards.verifiers.registry.build_verifier(...).")
        if not (isinstance(timeout_s, (int, float)) and math.isfinite(timeout_s) and timeout_s > 0):
            raise ValueError(f"FallbackVerifier.timeout_s={timeout_s!r} must be a finite number of seconds > 0.")
        if cooldown_s < 0:
            raise ValueError(f"FallbackVerifier.cooldown_s={cooldown_s!r} must be >= 0.")
        if int(max_workers) < 1:
            raise ValueError(f"FallbackVerifier.max_workers={max_workers!r} must be >= 1.")
        if fallback is None:
            from rewards.verifiers.symbolic import SymbolicVerifier

            fallback = SymbolicVerifier()
        self.primary = primary
        self.fallback = fallback
        self.refuted_q = min(primary.refuted_q, fallback.refuted_q)
        self.timeout_s = float(timeout_s)
        self.cooldown_s = float(cooldown_s)
        self.max_workers = int(max_workers)
        self.name = f"{getattr(primary, 'name', 'verifier')}+fallback"
        self._init_runtime()

    def _init_runtime(self) -> None:
        self._lock = threading.Lock()
        self._executor: ThreadPoolExecutor | None = None
        self._in_flight = 0
        self._skip_until = 0.0
        self.stats = {"calls": 0, "fallbacks": 0, "timeouts": 0, "errors": 0}
        self.last_reason: str | None = None

    # Picklable: the executor and lock are rebuilt in the receiving process.
    def __getstate__(self) -> dict[str, Any]:
        return {k: self.__dict__[k] for k in ("primary", "fallback", "timeout_s", "cooldown_s", "max_workers", "name")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._init_runtime()

    def _pool(self) -> ThreadPoolExecutor:
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=self.max_workers, thread_name_prefix="rafs-verifier")
        return self._executor

    def _degrade(self, trace, flow, why: str) -> list[StepCheck]:
        reason = f"fallback ({getattr(self.primary, 'name', 'primary')}: {why})"
        with self._lock:
            self.stats["fallbacks"] += 1
            self.last_reason = reason
        log.warning("RAFS verifier degraded to %s: %s", getattr(self.fallback, "name", "fallback"), reason)
        checks = self.fallback.verify(trace, flow)
        for c in checks:
            c.reasons.append(reason)
        return checks

    def _release(self, _future) -> None:
        with self._lock:
            self._in_flight -= 1

    def _run(self, fn, *args) -> tuple[Any, str | None]:
        """``fn(*args)`` in a worker with the deadline: ``(result, None)`` or ``(None, why it failed)``."""
        now = time.monotonic()
        with self._lock:
            self.stats["calls"] += 1
            if now < self._skip_until:
                return None, f"cooling down for {self._skip_until - now:.0f} s after a timeout"
            if self._in_flight >= self.max_workers:
                return None, f"{self._in_flight} calls still running (max_workers={self.max_workers})"
            self._in_flight += 1
        try:
            future = self._pool().submit(fn, *args)
        except RuntimeError as exc:  # executor shut down (interpreter exit)
            self._release(None)
            return None, f"RuntimeError: {exc}"
        future.add_done_callback(self._release)
        try:
            return future.result(timeout=self.timeout_s), None
        except FutureTimeout:
            with self._lock:
                self.stats["timeouts"] += 1
                self._skip_until = time.monotonic() + self.cooldown_s
            return None, f"timed out after {self.timeout_s:g} s"
        except Exception as exc:  # noqa: BLE001 - any primary failure degrades, never crashes training
            with self._lock:
                self.stats["errors"] += 1
            return None, f"{type(exc).__name__}: {str(exc)[:200]}"

    def _checked(self, trace, flow, checks) -> list[StepCheck]:
        problem = _malformed(checks, len(trace.steps))
        if problem:
            with self._lock:
                self.stats["errors"] += 1
            return self._degrade(trace, flow, problem)
        return checks

    def verify(self, trace, flow) -> list[StepCheck]:
        checks, why = self._run(self.primary.verify, trace, flow)
        if why:
            return self._degrade(trace, flow, why)
        return self._checked(trace, flow, checks)

    def verify_batch(self, traces, flows=None) -> list[list[StepCheck]]:
        """Score many traces with one ``primary.verify_batch(traces, flows)`` call (one deadline for the batch)
        when the primary batches natively (:meth:`StepVerifier.batches_natively`: a model-backed verifier), else
        trace by trace with ``primary.verify(trace, flow)``, each with its own deadline; on failure every trace of
        the call falls back to ``fallback.verify(trace, flow)``. ``flows`` are the traces' dataflow graphs, built
        here when omitted (the symbolic fallback needs them), and handed to the primary and the fallback alike."""
        traces = list(traces)
        if flows is None:
            from rewards.evidence import build_dataflow

            flows = [build_dataflow(t) for t in traces]
        flows = list(flows)
        if len(flows) != len(traces):
            raise ValueError(f"FallbackVerifier.verify_batch: flows has {len(flows)} graphs for {len(traces)} "
                             f"traces; pass one dataflow graph per trace (or flows=None to build them).")
        if not traces or not self.primary.batches_natively():
            return [self.verify(t, f) for t, f in zip(traces, flows)]
        results, why = self._run(self.primary.verify_batch, traces, flows)
        if not why and (not isinstance(results, list) or len(results) != len(traces)):
            why = f"verify_batch returned {len(results) if isinstance(results, list) else type(results).__name__} " \
                  f"results for {len(traces)} traces"
        if why:
            return [self._degrade(t, f, why) for t, f in zip(traces, flows)]
        return [self._checked(t, f, c) for t, f, c in zip(traces, flows, results)]

    def close(self) -> None:
        """Stop the worker threads (running calls finish in the background)."""
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None


def _malformed(checks: Any, n_steps: int) -> str | None:
    if not isinstance(checks, list) or len(checks) != n_steps:
        got = len(checks) if isinstance(checks, list) else type(checks).__name__
        return f"returned {got} checks for {n_steps} steps"
    for i, c in enumerate(checks):
        q = getattr(c, "q", None)
        if not isinstance(q, (int, float)) or not math.isfinite(q) or not 0.0 <= q <= 1.0:
            return f"step {i}: q={q!r} is not a probability"
    return None
