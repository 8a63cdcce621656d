"""Phase A indices: hand-computed values, Wilson intervals, Newcombe for RBS, r and its bootstrap."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binomtest, pearsonr, pointbiserialr
from screen_helpers import table_arrays

from trainers.screen import Cells, newcombe_diff, screen, wilson
from trainers.screen.indices import bootstrap_r, phase_a_indices


def test_hand_computed_table():
    # a=60 correct&high, b=12 wrong&high, c=20 correct&low, d=8 wrong&low ; n=100
    ix = phase_a_indices(Cells(a=60, b=12, c=20, d=8))
    assert ix["L"].value == pytest.approx(12 / 20)          # b/(b+d)
    assert ix["Fp"].value == pytest.approx(20 / 80)         # c/(a+c)
    assert ix["RBS"].value == pytest.approx(0.25 - (1 - 0.6))  # Fp - (1-L) = -0.15
    assert ix["TRIN"].value == pytest.approx(72 / 100)      # max(a+b, c+d)/n
    phi = (60 * 8 - 12 * 20) / math.sqrt(72 * 28 * 80 * 20)
    assert ix["r"].value == pytest.approx(phi)              # r from the table alone is phi


def test_wilson_matches_scipy_binomtest():
    for k, n in [(0, 7), (3, 7), (7, 7), (37, 100), (295, 306)]:
        ci = binomtest(k, n).proportion_ci(method="wilson")
        assert wilson(k, n) == pytest.approx((ci.low, ci.high), abs=1e-12)


def test_wilson_with_no_trials_is_the_full_interval_not_an_error():
    assert wilson(0, 0) == (0.0, 1.0)


def test_newcombe_matches_published_example():
    # Newcombe (1998), Stat Med 17:873, Table II example (e): 56/70 - 48/80, method 10: 0.0524 to 0.3339
    d, lo, hi = newcombe_diff(56, 70, 48, 80)
    assert d == pytest.approx(0.2)
    assert lo == pytest.approx(0.0524, abs=5e-4) and hi == pytest.approx(0.3339, abs=5e-4)


def test_rbs_interval_is_honest_when_a_cell_is_zero():
    # blanket confidence: 10 errors all kept (d=0) and 10 of 500 correct answers withdrawn
    ix = phase_a_indices(Cells(a=490, b=10, c=10, d=0))
    rbs = ix["RBS"]
    assert rbs.value == pytest.approx(0.02)
    # a Wald interval collapses on the L side (se(L)=0) and would call this "reliably > 0" from 10 errors;
    # the Newcombe interval reaches well below 0
    assert rbs.ci_low < -0.2 and rbs.ci_high > rbs.value


def test_undefined_indices_are_nan_with_full_intervals():
    ix = phase_a_indices(Cells(a=40, b=0, c=10, d=0))  # no errors
    assert math.isnan(ix["L"].value) and (ix["L"].ci_low, ix["L"].ci_high) == (0.0, 1.0)
    assert math.isnan(ix["RBS"].value)
    assert -1.0 <= ix["RBS"].ci_low < ix["RBS"].ci_high <= 1.0
    assert ix["Fp"].value == pytest.approx(0.2)
    d = ix["L"].to_dict()
    assert d["value"] is None and d["ci_low"] == 0.0


def test_r_is_point_biserial_on_continuous_confidence():
    rng = np.random.default_rng(3)
    ok = rng.random(300) < 0.6
    conf = np.clip(rng.normal(60 + 15 * ok, 12), 0, 100)
    res = screen(ok, conf)
    assert res.r.value == pytest.approx(pointbiserialr(ok, conf / 100).statistic)
    assert res.r.value == pytest.approx(pearsonr(conf, ok.astype(float)).statistic)
    assert res.r.ci_low < res.r.value < res.r.ci_high
    # r_phi is r on the binarised confidence
    c = res.cells
    phi = (c.a * c.d - c.b * c.c) / math.sqrt(c.n_high * c.n_low * c.n_correct * c.n_wrong)
    assert res.r_phi.value == pytest.approx(phi)


def test_bootstrap_is_seeded_and_vectorised_matches_loop():
    rng = np.random.default_rng(0)
    ok = rng.random(120) < 0.7
    x = rng.random(120) + 0.3 * ok
    lo1, hi1 = bootstrap_r(x, ok, 500, 0.95, np.random.default_rng(5))
    lo2, hi2 = bootstrap_r(x, ok, 500, 0.95, np.random.default_rng(5), chunk=1000)  # other chunking
    assert (lo1, hi1) == pytest.approx((lo2, hi2))
    # same resamples, computed one by one with numpy's corrcoef
    idx = np.random.default_rng(5).integers(0, 120, size=(500, 120))
    rs = np.array([np.corrcoef(x[i], ok[i].astype(float))[0, 1] for i in idx])
    assert (lo1, hi1) == pytest.approx(tuple(np.quantile(rs, [0.025, 0.975])), abs=1e-9)
    assert screen(ok, x, seed=1).r.ci_low == screen(ok, x, seed=1).r.ci_low


def test_r_undefined_for_constant_confidence():
    res = screen([True, False] * 30, [80] * 60)
    assert math.isnan(res.r.value) and (res.r.ci_low, res.r.ci_high) == (-1.0, 1.0)


def test_rbs_bootstrap_option_is_close_to_newcombe_on_a_large_table():
    from trainers.screen import ScreenConfig

    ok, high = table_arrays(300, 60, 100, 140)
    a = screen(ok, high)
    b = screen(ok, high, config=ScreenConfig(rbs_interval="bootstrap"))
    assert a.RBS.value == b.RBS.value
    assert b.RBS.method.startswith("bootstrap")
    assert b.RBS.ci_low == pytest.approx(a.RBS.ci_low, abs=0.02)
    assert b.RBS.ci_high == pytest.approx(a.RBS.ci_high, abs=0.02)
