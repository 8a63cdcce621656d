"""Tiers on constructed response sets, and the promise that every table gets a tier."""

from __future__ import annotations

import math

import numpy as np
import pytest
from screen_helpers import table_arrays

from trainers.screen import Cells, ScreenConfig, classify, screen
from trainers.screen.indices import phase_a_indices


def _informative(n=400, acc=0.7, seed=0):
    rng = np.random.default_rng(seed)
    ok = rng.random(n) < acc
    conf = np.clip(np.where(ok, rng.normal(85, 8, n), rng.normal(55, 12, n)), 0, 100)
    return ok, conf


def test_informative_signal_is_valid_with_phase_b():
    ok, conf = _informative()
    res = screen(ok, conf)
    assert res.tier == "Valid"
    assert res.response_style == "none"
    assert res.RBS.ci_high < 0 and res.r.ci_low > 0
    assert res.phase_b is not None and res.phase_b.caveat is None
    assert res.phase_b.auroc > 0.8


def test_blanket_confidence_keeps_every_answer():
    # a model that says KEEP to everything, 35% wrong
    ok = np.array([True] * 130 + [False] * 70)
    res = screen(ok, ["KEEP"] * 200)
    assert res.tier == "Invalid"
    assert res.response_style == "blanket confidence"
    assert res.L.value == 1.0 and res.cells.c == res.cells.d == 0
    assert any(r.startswith("blanket confidence") for r in res.reasons)
    assert res.phase_b is None


def test_blanket_withdrawal_withdraws_almost_everything():
    ok = np.array([True] * 140 + [False] * 60)
    conf = ["WITHDRAW"] * 200
    for i in (0, 1, 2, 150):  # keeps 3 correct answers and one wrong one
        conf[i] = "KEEP"
    res = screen(ok, conf)
    assert res.tier == "Invalid"
    assert res.response_style == "blanket withdrawal"
    assert res.Fp.value == pytest.approx(137 / 140)
    assert any(r.startswith("blanket withdrawal") for r in res.reasons)


def test_inverted_monitoring_is_invalid():
    rng = np.random.default_rng(1)
    ok = rng.random(300) < 0.6
    conf = np.clip(np.where(ok, rng.normal(50, 10, 300), rng.normal(80, 10, 300)), 0, 100)  # confident when wrong
    res = screen(ok, conf)
    assert res.tier == "Invalid"
    assert res.response_style == "inverted monitoring"
    assert res.RBS.ci_low > 0 and res.r.value < 0
    assert any(r.startswith("inverted monitoring") for r in res.reasons)


def test_trin_alone_is_a_warning_not_invalid():
    # 97% high, but the few low-confidence answers are all errors: a fixed-looking but informative signal
    cells = Cells(a=160, b=34, c=0, d=6)
    ok, high = table_arrays(cells.a, cells.b, cells.c, cells.d)
    res = screen(ok, high)
    assert res.TRIN.value == pytest.approx(194 / 200)
    assert any("structural warning: TRIN" in w for w in res.warnings)
    assert res.tier != "Invalid"
    assert not any("TRIN" in r for r in res.reasons)


def test_fixed_responding_label_when_only_trin_flags():
    cells = Cells(a=1900, b=60, c=0, d=40)  # L = 0.6, Fp = 0, TRIN = 0.98
    d = classify(cells, phase_a_indices(cells))
    assert d.tier == "Valid" and d.response_style == "fixed responding"


@pytest.mark.parametrize("cells", [
    Cells(a=50, b=0, c=10, d=0),    # no errors
    Cells(a=0, b=10, c=0, d=20),    # no correct answers
    Cells(a=30, b=2, c=10, d=1),    # 3 errors
    Cells(a=1, b=0, c=0, d=0),      # one row
    Cells(a=0, b=0, c=0, d=1),      # one wrong row
    Cells(a=40, b=5, c=0, d=0),     # c = d = 0 with 5 errors
])
def test_every_table_gets_a_tier_without_exceptions(cells):
    ok, high = table_arrays(cells.a, cells.b, cells.c, cells.d)
    res = screen(ok, high)
    assert res.tier in ("Valid", "Indeterminate", "Invalid")
    assert res.tier != "Valid"
    assert res.reasons
    for iv in (res.L, res.Fp, res.RBS, res.TRIN, res.r):
        assert 0.0 - 1.0 <= iv.ci_low <= iv.ci_high <= 1.0
        assert math.isnan(iv.value) or iv.ci_low - 1e-12 <= iv.value <= iv.ci_high + 1e-12
    import json

    json.dumps(res.to_dict(), allow_nan=False)  # no NaN leaks into the JSON


def test_too_few_errors_is_indeterminate_with_a_reason():
    ok = np.array([True] * 195 + [False] * 3)
    conf = np.r_[np.full(195, 90.0), [40.0, 40.0, 95.0]]
    res = screen(ok, conf)
    assert res.tier == "Indeterminate"
    assert any("only 3 wrong answers" in r for r in res.reasons)
    assert res.phase_b is not None and res.phase_b.caveat  # Phase B with a caveat


def test_all_correct_data_is_indeterminate_and_says_why():
    res = screen([True] * 50, np.linspace(50, 100, 50))
    assert res.tier == "Indeterminate"
    assert any("no wrong answers" in r for r in res.reasons)
    assert math.isnan(res.L.value)


def test_point_value_just_over_threshold_with_wide_interval_is_indeterminate():
    cells = Cells(a=150, b=48, c=0, d=2)  # L = 0.96 from 50 errors, Wilson low 0.865
    d = classify(cells, phase_a_indices(cells))
    assert d.tier == "Indeterminate"
    assert any("reaches" in r for r in d.reasons)


def test_near_threshold_below_is_indeterminate():
    cells = Cells(a=9600, b=9400, c=400, d=600)  # L = 0.94: tight interval, but within 0.02 of 0.95
    d = classify(cells, phase_a_indices(cells))
    assert d.tier == "Indeterminate"
    assert any("within 0.02" in r for r in d.reasons)


def test_thresholds_come_from_the_config():
    cells = Cells(a=300, b=85, c=10, d=15)  # L = 0.85, Fp = 0.03
    assert classify(cells, phase_a_indices(cells)).tier == "Valid"
    strict = ScreenConfig(L_threshold=0.80, L_invalid_ci_floor=0.75)
    d = classify(cells, phase_a_indices(cells), strict)
    assert d.tier == "Invalid" and d.response_style == "blanket confidence"


def test_config_rejects_bad_values_naming_the_field():
    with pytest.raises(ValueError, match="L_threshold"):
        ScreenConfig(L_threshold=1.5)
    with pytest.raises(ValueError, match="rbs_interval"):
        ScreenConfig(rbs_interval="wald")  # type: ignore[arg-type]
