"""The algebra checks' budgets are counted, never timed: a verdict must not depend on the machine's load (it would
differ between runs, and between the ranks of a distributed job)."""

from __future__ import annotations

import random
import threading
import time

from rewards.checks.algebra import MAX_WORK, algebra_work, combines, identical, rational_roots, relation
from rewards.checks.algebra import combinations, relations, roots
from rewards.evidence import build_dataflow
from rewards.evidence.algebra_links import ALGEBRA_WORK
from rewards.parsing.trace import parse_trace
from rewards.scoring.score import RAFSConfig, score_trace


def _heavy_trace(seed: int = 0, lines: int = 60) -> str:
    rng = random.Random(seed)

    def poly() -> str:
        return " + ".join(f"{rng.randint(10**6, 10**7)}(x+{rng.randint(1, 99)})^{rng.randint(1, 3)}"
                          f"(y-{rng.randint(1, 9)})^{rng.randint(1, 3)}" for _ in range(5))
    return "\n".join(f"$${poly()} = {poly()}$$" for _ in range(lines)) + "\nSo the answer is $\\boxed{7}$."


HEAVY_PROBLEM = "Let x and y be numbers with x + 2y = 30 and x - y = 4. Find x."


def _clear():
    for fn in (relations._relation, combinations._combines, relations._identical, roots._line_fit):
        fn.cache_clear()


def test_a_cache_hit_charges_what_the_call_cost():
    _clear()
    calls = [lambda: relation("2x + 3 = 11", "x = 4"), lambda: identical("(a+b)^2", "a^2 + 2ab + b^2"),
             lambda: rational_roots("x^2 - 5x", "-6"), lambda: combines([("3p + q", "124"), ("5p + q", "182")],
                                                                        ("2p", "58"))]
    for call in calls:
        before = algebra_work()
        first = call()
        miss = algebra_work() - before
        before = algebra_work()
        assert call() == first
        assert algebra_work() - before == miss > 0


def test_a_verdict_does_not_depend_on_the_clock(monkeypatch):
    """A clock that jumps 100 s at every reading (a machine under heavy load) changes no verdict: the old wall-clock
    budget answered "out of budget" here."""
    _clear()
    expected = relation("x^2 - 5x + 6 = 0", "(x-2)(x-3) = 0")
    _clear()
    ticks = iter(range(0, 10**9, 100))
    monkeypatch.setattr(time, "perf_counter", lambda: float(next(ticks)))
    monkeypatch.setattr(time, "monotonic", lambda: float(next(ticks)))
    assert relation("x^2 - 5x + 6 = 0", "(x-2)(x-3) = 0") == expected
    assert expected.kind == "equivalent"


def test_a_trace_of_heavy_comparisons_stops_at_the_work_budget_the_same_way_each_time():
    text = _heavy_trace()
    results, works = [], []
    for _ in range(2):
        _clear()
        before = algebra_work()
        flow = build_dataflow(parse_trace(HEAVY_PROBLEM, text))
        works.append(algebra_work() - before)
        results.append([(s.produced, s.used) for s in flow.steps])
    assert works[0] == works[1] <= ALGEBRA_WORK + MAX_WORK
    assert results[0] == results[1]
    start = time.process_time()
    score_trace(HEAVY_PROBLEM, text, config=RAFSConfig(missing_evidence="no_support"))
    assert time.process_time() - start < 20  # bounded (about 0.5 s on one idle core; generous for CI machines)


def test_work_is_counted_per_thread():
    seen = {}

    def worker():
        before = algebra_work()
        relation("7x - 2 = 12", "x = 2")
        seen["thread"] = algebra_work() - before

    main_before = algebra_work()
    t = threading.Thread(target=worker)
    t.start()
    t.join()
    assert seen["thread"] > 0
    assert algebra_work() == main_before
