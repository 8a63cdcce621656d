"""The four RAFS components and the aggregation as pure functions."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rewards.scoring import components as C

probs = st.lists(st.floats(0.0, 1.0), min_size=1, max_size=30)


@given(probs)
def test_step_validity_is_bounded_by_min_and_geometric_mean(q):
    p = C.step_validity(q)
    gm = math.exp(sum(math.log(max(x, 1e-9)) for x in q) / len(q))
    assert max(min(q), 1e-9) - 1e-12 <= p <= gm + 1e-12


@given(probs)
def test_smooth_step_validity_lies_between_min_and_mean(q):
    p = C.step_validity(q, lam=1.0, smooth=True, tau=0.05)
    assert min(q) - 1e-9 <= p <= sum(q) / len(q) + 1e-9


def test_one_fatal_step_sinks_p_r():
    assert C.step_validity([0.98] * 9 + [0.05]) < 0.25 < C.step_validity([0.98] * 10)


def test_suspect_step_is_the_earliest_below_threshold():
    assert C.suspect_step([0.9, 0.4, 0.1]) == 1
    assert C.suspect_step([0.9, 0.6]) is None


def test_consensus_extremes_and_missing_answers():
    assert C.consensus(["3", "3", "3", "3"]) == 1.0
    assert C.consensus(["1", "2", "3", "4"]) == pytest.approx(0.0)
    assert C.consensus([None, None]) == pytest.approx(0.0)  # two missing answers do not agree
    assert C.consensus(["3"]) is None


def test_stability_needs_two_traces_at_the_modal_answer():
    a, b = frozenset({"9", "18"}), frozenset({"9", "18"})
    assert C.stability([a, b, frozenset()], ["18", "18", "7"]) == 1.0
    assert C.stability([a, b], ["18", "7"]) is None
    assert C.stability([a, frozenset({"5"})], ["18", "18"]) == 0.0


def test_aggregate_renormalises_and_is_non_compensatory():
    w = {"P_R": 0.4, "S_RA": 0.3, "C_A": 0.15, "D_R": 0.15}
    full = C.aggregate({"P_R": 1.0, "S_RA": 1.0, "C_A": None, "D_R": None}, w)
    assert full == pytest.approx(100.0, abs=0.01)
    sunk = C.aggregate({"P_R": 1.0, "S_RA": 0.0, "C_A": 1.0, "D_R": 1.0}, w)
    assert sunk < 20  # one component near zero sinks the score
    assert C.aggregate({"P_R": None, "S_RA": None}, w) is None


def test_support_geometric_mean():
    assert C.support(1.0, 0.25) == pytest.approx(0.5)
    assert C.support(None, 0.5) == 0.5 and C.support(None, None) is None
