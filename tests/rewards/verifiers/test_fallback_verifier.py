"""FallbackVerifier: a slow, failing or malformed primary degrades to the symbolic verifier with a reason."""

from __future__ import annotations

import math
import pickle
import threading
import time

import pytest

from rewards.evidence import build_dataflow
from rewards.parsing.trace import parse_trace
from rewards.verifiers.base import StepCheck, StepVerifier
from rewards.verifiers.fallback import FallbackVerifier
from rewards.verifiers.symbolic import SymbolicVerifier

TRACE = parse_trace("Tom has 3 boxes of 4 pens. He gives away 5.", "3 * 4 = 12 pens.\n12 - 5 = 7 pens left.\n#### 7")
FLOW = build_dataflow(TRACE)
SYMBOLIC = [c.q for c in SymbolicVerifier().verify(TRACE, FLOW)]


class Fixed(StepVerifier):
    name = "fixed"

    def __init__(self, q=0.3, delay=0.0, error=None, count=None):
        self.q, self.delay, self.error, self.count = q, delay, error, count

    def verify(self, trace, flow):
        if self.delay:
            time.sleep(self.delay)
        if self.error:
            raise self.error
        n = len(trace.steps) if self.count is None else self.count
        return [StepCheck(self.q, [], True) for _ in range(n)]


def test_healthy_primary_passes_through():
    v = FallbackVerifier(Fixed(0.3), timeout_s=5)
    assert [c.q for c in v.verify(TRACE, FLOW)] == [0.3, 0.3]
    assert v.stats == {"calls": 1, "fallbacks": 0, "timeouts": 0, "errors": 0}


def test_slow_primary_times_out_then_cools_down():
    v = FallbackVerifier(Fixed(0.3, delay=1.5), timeout_s=0.2, cooldown_s=30)
    t0 = time.monotonic()
    checks = v.verify(TRACE, FLOW)
    assert time.monotonic() - t0 < 1.0  # the deadline holds: the trainer is not stalled
    assert [c.q for c in checks] == SYMBOLIC
    assert "timed out after 0.2 s" in checks[0].reasons[-1] and checks[0].reasons[-1].startswith("fallback (fixed")
    t0 = time.monotonic()
    again = v.verify(TRACE, FLOW)  # within the cooldown: straight to the fallback
    assert time.monotonic() - t0 < 0.2 and "cooling down" in again[0].reasons[-1]
    assert v.stats["timeouts"] == 1 and v.stats["fallbacks"] == 2
    v.close()


@pytest.mark.parametrize("primary, why", [
    (Fixed(error=RuntimeError("CUDA out of memory")), "RuntimeError: CUDA out of memory"),
    (Fixed(count=1), "returned 1 checks for 2 steps"),
    (Fixed(q=math.nan), "is not a probability"),
    (Fixed(q=1.5), "is not a probability"),
])
def test_failing_or_malformed_primary_degrades(primary, why):
    v = FallbackVerifier(primary, timeout_s=5)
    checks = v.verify(TRACE, FLOW)
    assert [c.q for c in checks] == SYMBOLIC
    assert why in checks[0].reasons[-1] and why in v.last_reason


def test_concurrent_calls_are_bounded_and_all_answered():
    v = FallbackVerifier(Fixed(0.3, delay=0.3), timeout_s=5, max_workers=2)
    results = [None] * 6
    def run(i):
        results[i] = v.verify(TRACE, FLOW)
    threads = [threading.Thread(target=run, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    qs = [r[0].q for r in results]
    assert all(r is not None and len(r) == 2 for r in results)
    assert qs.count(0.3) >= 2 and v.stats["calls"] == 6  # at most 2 in flight; the others fell back at once
    assert v.stats["fallbacks"] == qs.count(SYMBOLIC[0])


def test_picklable_and_validates_arguments():
    v = pickle.loads(pickle.dumps(FallbackVerifier(SymbolicVerifier(), timeout_s=3)))
    assert [c.q for c in v.verify(TRACE, FLOW)] == SYMBOLIC
    with pytest.raises(ValueError, match=r"timeout_s=0"):
        FallbackVerifier(SymbolicVerifier(), timeout_s=0)
    with pytest.raises(TypeError, match="not a StepVerifier"):
        FallbackVerifier(lambda t, f: [], timeout_s=1)


class Batched(Fixed):
    name = "batched"

    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self.batch_calls = 0
        self.flows_seen = []

    def verify_batch(self, traces, flows=None):
        self.batch_calls += 1
        self.flows_seen.append(flows)
        return [self.verify(t, f) for t, f in zip(traces, flows or [None] * len(traces))]


def test_verify_batch_uses_one_primary_call_and_falls_back_per_trace():
    other = parse_trace("Ann has 2 apples.", "2 + 3 = 5 apples.\n#### 5")
    primary = Batched(0.4)
    v = FallbackVerifier(primary, timeout_s=5)
    out = v.verify_batch([TRACE, other])
    assert primary.batch_calls == 1 and [len(c) for c in out] == [2, 1] and out[1][0].q == 0.4
    # the primary gets the dataflow graphs too: the caller's when given, else the ones built for the fallback
    other_flow = build_dataflow(other)
    v.verify_batch([TRACE, other], [FLOW, other_flow])
    assert primary.flows_seen[-1] == [FLOW, other_flow] and primary.flows_seen[-1][0] is FLOW
    built = primary.flows_seen[0]
    assert len(built) == 2 and [type(f) for f in built] == [type(FLOW)] * 2
    broken = FallbackVerifier(Batched(error=RuntimeError("boom")), timeout_s=5)
    out = broken.verify_batch([TRACE, other])
    assert [c.q for c in out[0]] == SYMBOLIC and "boom" in out[1][0].reasons[-1]
    plain = FallbackVerifier(Fixed(0.3), timeout_s=5)  # no verify_batch on the primary: one call per trace
    assert [[c.q for c in r] for r in plain.verify_batch([TRACE, other])] == [[0.3, 0.3], [0.3]]
