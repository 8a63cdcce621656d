"""Phase B metrics against scikit-learn / torchmetrics and hand-computed values."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import brier_score_loss, roc_auc_score

from trainers.screen import expected_calibration_error, phase_b_metrics, risk_coverage, screen


def _data(n=500, seed=0):
    rng = np.random.default_rng(seed)
    ok = rng.random(n) < 0.7
    conf = np.clip(np.where(ok, rng.beta(8, 2, n), rng.beta(4, 3, n)), 0, 0.999)
    return ok, conf


def test_auroc_and_brier_match_sklearn():
    ok, conf = _data()
    pb = phase_b_metrics(ok, conf, probability_scale=True)
    assert pb.auroc == pytest.approx(roc_auc_score(ok, conf))
    assert pb.brier == pytest.approx(brier_score_loss(ok, conf))


def test_ece_matches_torchmetrics():
    torch = pytest.importorskip("torch")
    tm = pytest.importorskip("torchmetrics.functional.classification")
    ok, conf = _data(seed=4)  # confidence < 1: torchmetrics puts exactly 1.0 in a bin of its own
    ref = tm.binary_calibration_error(torch.tensor(conf), torch.tensor(ok.astype(int)), n_bins=15, norm="l1")
    assert expected_calibration_error(ok, conf, 15) == pytest.approx(float(ref), abs=1e-6)


def test_ece_hand_computed():
    # bins of width 0.5: [0, .5) holds (0.2 wrong, 0.4 correct): acc .5, conf .3 ; [.5, 1] holds (0.8 correct)
    assert expected_calibration_error([False, True, True], [0.2, 0.4, 0.8], 2) == pytest.approx(
        2 / 3 * abs(0.5 - 0.3) + 1 / 3 * abs(1 - 0.8))


def test_risk_coverage_and_aurc_by_hand():
    cov, risk, aurc = risk_coverage([True, True, False, True], [0.9, 0.8, 0.7, 0.1])
    np.testing.assert_allclose(cov, [0.25, 0.5, 0.75, 1.0])
    np.testing.assert_allclose(risk, [0, 0, 1 / 3, 1 / 4])
    assert aurc == pytest.approx((1 / 3 + 1 / 4) / 4)


def test_aurc_does_not_depend_on_the_order_of_ties():
    ok = np.array([True, False, True, False, True, True])
    conf = np.array([0.9, 0.9, 0.9, 0.5, 0.5, 0.1])
    perm = np.array([1, 0, 2, 4, 3, 5])
    assert risk_coverage(ok, conf)[2] == pytest.approx(risk_coverage(ok[perm], conf[perm])[2])
    # the first tie block (2 correct, 1 wrong) contributes 1/3 error per kept item in expectation
    assert risk_coverage(ok, conf)[1][0] == pytest.approx(1 / 3)


def test_selective_gain_positive_for_informative_negative_for_inverted():
    ok, conf = _data()
    good = phase_b_metrics(ok, conf, probability_scale=True)
    bad = phase_b_metrics(ok, 1 - conf, probability_scale=True)
    assert all(g > 0 for g in good.selective_gain.values())
    assert all(g < 0 for g in bad.selective_gain.values())
    assert good.selective_gain[0.5] > good.selective_gain[0.9]
    assert good.e_aurc >= 0 and good.meta_d > 0 > bad.meta_d


def test_meta_d_is_the_documented_type2_approximation():
    from scipy.stats import norm

    ok, conf = _data(seed=2)
    pb = phase_b_metrics(ok, conf, probability_scale=True)
    assert pb.meta_d == pytest.approx(np.sqrt(2) * norm.ppf(pb.auroc))
    assert "approximation" in pb.meta_d_method


def test_binary_confidence_has_no_ece_or_brier():
    ok = np.array([True] * 70 + [False] * 30)
    conf = np.array(["KEEP"] * 60 + ["WITHDRAW"] * 10 + ["KEEP"] * 8 + ["WITHDRAW"] * 22)
    res = screen(ok, conf)
    assert res.tier == "Valid"
    assert res.phase_b.ece is None and res.phase_b.brier is None
    assert res.phase_b.auroc == pytest.approx(roc_auc_score(ok, (conf == "KEEP").astype(float)))


def test_phase_b_never_for_invalid_and_caveated_for_indeterminate():
    ok = np.array([True] * 100 + [False] * 60)
    assert screen(ok, [99] * 160).phase_b is None  # blanket confidence
    few = screen([True] * 60 + [False] * 3, list(np.linspace(60, 99, 60)) + [50, 70, 90])
    assert few.tier == "Indeterminate" and few.phase_b is not None
    assert "Indeterminate" in few.phase_b.caveat
    assert screen(ok, list(np.linspace(10, 99, 160)), phase_b=False).phase_b is None
