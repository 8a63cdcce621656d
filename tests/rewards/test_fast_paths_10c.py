"""Session-ten fast paths in the dataflow, each against the code it replaced: lookups by int key instead of by
``Fraction`` (same members, same hashes, so the same answers)."""

from __future__ import annotations

import pickle
import random
from fractions import Fraction

from rewards.scoring import dataflow


def _values(seed: int, count: int = 2000) -> list[Fraction]:
    rng = random.Random(seed)
    out = [Fraction(0), Fraction(1), Fraction(100), Fraction(1, 2), Fraction(3, 4), Fraction(75)]
    for _ in range(count):
        out.append(Fraction(rng.randint(-5000, 5000), rng.choice([1, 1, 1, 2, 3, 4, 10, 60, 100])))
    return out


def test_the_keyed_constant_sets_are_the_constant_sets():
    for public, keyed in ((dataflow.COMMON_CONSTANTS, dataflow._COMMON_KEYS),
                          (dataflow.BASIC_CONSTANTS, dataflow._BASIC_KEYS)):
        assert keyed == public and len(keyed) == len(public)
        assert all(type(k) is int for k in keyed if k.denominator == 1)
        for value in _values(0):
            assert (dataflow._key(value) in keyed) == (value in public) == (value in keyed)


def test_unit_conversions_against_keyed_problem_numbers_match_the_fraction_set():
    rng = random.Random(5)
    values = _values(1, 600)
    units_pool = [Fraction(u) for u in (2, 3, 7, 12, 16, 60, 100, 1000)] + [Fraction(1, 2), Fraction(22, 7)]
    for _ in range(200):
        pnums = frozenset(rng.sample(values, 10))
        units = frozenset(rng.sample(units_pool, 4))
        slow = dataflow._Converted(pnums, units)
        fast = dataflow._Converted(frozenset(dataflow._key(v) for v in pnums), units)
        for value in [*rng.sample(values, 40), *(v * u for v in list(pnums)[:3] for u in units)]:
            assert (value in fast) == (value in slow), (value, sorted(pnums), sorted(units))


def test_build_dataflow_keeps_the_problem_numbers_by_key():
    from rewards.parsing.trace import parse_trace

    trace = parse_trace("Ann has 3 apples and buys 4 bags of 2.5 kg.", "4 * 2.5 = 10 kg.\n3 + 10 = 13.\n#### 13")
    flow = dataflow.build_dataflow(trace)
    assert flow._problem_keys == flow.problem_numbers
    assert {type(k) for k in flow._problem_keys} == {int, Fraction}  # 2.5 stays a Fraction, the rest are ints


def test_step_flows_have_slots_and_pickle():
    flow = dataflow.StepFlow(3)
    flow.used.append(Fraction(5))
    assert not hasattr(flow, "__dict__")
    assert pickle.loads(pickle.dumps(flow)) == flow
