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


def test_violated_point_is_invalid_and_its_interval_is_reported_as_fragility():
    """The paper's rule: a violated point estimate is Invalid; the interval does not veto it."""
    cells = Cells(a=150, b=48, c=0, d=2)  # L = 0.96 from 50 errors, Wilson low 0.865
    d = classify(cells, phase_a_indices(cells))
    assert d.tier == "Invalid" and d.response_style == "blanket confidence"
    assert any(r.startswith("blanket confidence: L = 0.960") for r in d.reasons)
    # fragility: the interval reaches below 0.95, and one kept error fewer (47/50 = 0.94) would flip it
    assert any(f.startswith("L = 0.960") and "reaches below 0.95" in f and "1 response changing" in f
               for f in d.fragility)
    # the authors' tool's floor rule (validity-screen 0.1.0) is an option, not the default
    ref = classify(cells, phase_a_indices(cells), ScreenConfig.reference_tool())
    assert ref.tier == "Indeterminate" and any("reference-tool floor rule" in r for r in ref.reasons)


@pytest.mark.parametrize("name, cells, L", [
    ("Gemini 3.1 Pro", Cells(a=478, b=29, c=16, d=1), 29 / 30),     # L = 0.967 from 30 errors, r ~ 0
    ("Qwen 3 Next 80B Thinking", Cells(a=470, b=37, c=16, d=1), 37 / 38),  # L = 0.974
])
def test_papers_blanket_confidence_models_are_invalid(name, cells, L):
    """Tables rebuilt from the point values the paper quotes for two of its four Invalid models (main study,
    KEEP/WITHDRAW; the correct-answer cells are illustrative, chosen so that r ~ 0 as reported)."""
    ok, high = table_arrays(cells.a, cells.b, cells.c, cells.d)
    res = screen(ok, high, phase_b=False, config=ScreenConfig(n_boot=200))
    assert res.L.value == pytest.approx(L) and abs(res.r.value) < 0.05
    assert res.L.ci_low < 0.90                       # the old interval veto would have said Indeterminate
    assert res.tier == "Invalid", name
    assert res.response_style == "blanket confidence"
    assert res.fragile and res.to_dict()["fragile"] is True


def test_interval_overlapping_a_threshold_does_not_make_a_clear_point_indeterminate():
    # MMLU's GPT-5.4 nano: Fp = 0.448 [0.395, 0.502] — the interval reaches 0.50, the point is 0.05 below it
    cells = Cells(a=181, b=83, c=147, d=89)
    d = classify(cells, phase_a_indices(cells), median_split=True)
    assert d.tier == "Valid"
    assert any(f.startswith("Fp = 0.448") and "reaches up to 0.5" in f and "17 responses" in f for f in d.fragility)
    assert any(f.startswith("RBS = -0.069") and "not established" in f for f in d.fragility)
    strict = classify(cells, phase_a_indices(cells), ScreenConfig(rbs_ci_spanning_zero_is_indeterminate=True))
    assert strict.tier == "Indeterminate"


@pytest.mark.parametrize("cells, fragment", [
    (Cells(a=400, b=47, c=0, d=3), "L = 0.940"),          # L 0.94 in [0.93, 0.95)
    (Cells(a=51, b=10, c=49, d=40), "Fp = 0.490"),        # Fp 0.49 in [0.48, 0.50)
    (Cells(a=90, b=45, c=10, d=55), "RBS = -0.450"),      # control: clearly valid (no near band)
])
def test_near_band_is_a_config_field(cells, fragment):
    d = classify(cells, phase_a_indices(cells))
    off = classify(cells, phase_a_indices(cells), ScreenConfig(L_near=0.0, Fp_near=0.0, RBS_near=0.0))
    if fragment.startswith("RBS"):
        assert d.tier == off.tier == "Valid"
    else:
        assert d.tier == "Indeterminate" and any(fragment in r and "near the threshold" in r for r in d.reasons)
        assert off.tier == "Valid"


def test_rbs_near_zero_is_indeterminate_and_reliably_positive_is_invalid():
    flat = Cells(a=140, b=60, c=60, d=26)      # RBS = 0.300 - 0.302 = -0.002: no separation
    d = classify(flat, phase_a_indices(flat))
    assert d.tier == "Indeterminate" and any("RBS = -0.002" in r and "near the threshold" in r for r in d.reasons)
    pos = Cells(a=150, b=50, c=50, d=10)       # RBS = +0.083 [-0.043, +0.181]: above 0, not reliably
    d = classify(pos, phase_a_indices(pos))
    assert d.tier == "Indeterminate" and any("not reliably" in r for r in d.reasons)
    d = classify(Cells(a=100, b=90, c=60, d=10), phase_a_indices(Cells(a=100, b=90, c=60, d=10)))
    assert d.tier == "Invalid" and any(r.startswith("inverted monitoring") for r in d.reasons)


def test_median_split_forcing_fp_over_the_threshold_is_not_invalid():
    """Binarised at its own median, a model with no errors has half its correct answers 'low': Fp = 0.5 by
    construction, not blanket withdrawal."""
    res = screen([True] * 50, np.linspace(50, 100, 50))
    assert res.Fp.value == 0.5 and res.tier == "Indeterminate"
    assert any("median split alone forces Fp >= 0.500" in r for r in res.reasons)
    fixed = screen([True] * 50, np.linspace(50, 100, 50), threshold=0.75)   # the model's own choice: Invalid
    assert fixed.Fp.value == pytest.approx(0.5) and fixed.tier == "Invalid"


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
