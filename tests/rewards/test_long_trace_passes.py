"""A long trace's steps are worked out once per scoring, however many passes read them.

The scorer reads every step's equations in several passes (the dataflow, its propagation plan, the claim checkers)
through the step cache of :func:`rewards.checks.equations.step_equations`. A cache smaller than the trace evicts each
step before the next pass reads it again (least-recently-used order over a longer sequence), and the cost of a
trace grew faster than its length: 240k characters of distinct GSM8K solutions (3,600 steps) cost 1.4x two
120k-character halves with a 2,048-step cache, 1.0x with one that holds :data:`~rewards.parsing.trace.MAX_STEPS`.
"""

from __future__ import annotations

from rewards.checks.equations import step_equations
from rewards.parsing.trace import MAX_STEPS, parse_trace
from rewards.scoring.score import score_trace


def test_every_step_of_a_long_trace_is_worked_out_once():
    n = 3_000  # more than the 2,048 steps the cache held
    completion = "\n".join(f"Box {k} holds {k} + 2 = {k + 2} pens." for k in range(1, n + 1)) + f"\n#### {n + 2}"
    trace = parse_trace("Each box holds 2 more pens than its number.", completion)
    assert len(trace.steps) == n < MAX_STEPS
    step_equations.cache_clear()
    score_trace("Each box holds 2 more pens than its number.", completion)
    info = step_equations.cache_info()
    assert info.misses == n, info  # each step once; a later pass only hits
    assert info.hits >= n  # and at least one later pass read them all
