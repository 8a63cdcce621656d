"""Agreement with the paper authors' reference tool, validity-screen 0.1.0, and where we deliberately differ."""

from __future__ import annotations

import numpy as np
import pytest
from screen_helpers import table_arrays

from trainers.screen import ScreenConfig, screen

FAST = ScreenConfig(n_boot=200)  # r's bootstrap is not compared here

vs = pytest.importorskip("validity_screen", reason="validity-screen 0.1.0 (dev extra) is the reference")


def _random_tables(n_tables: int, seed: int, min_cell: int = 5):
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n_tables:
        cells = rng.integers(min_cell, 200, size=4)
        if rng.random() < 0.3:  # push some tables over the thresholds
            cells[rng.integers(0, 4)] = rng.integers(min_cell, 12)
        out.append(tuple(int(x) for x in cells))
    return out


@pytest.mark.parametrize("seed", [0, 1])
def test_same_cells_indices_and_wilson_intervals(seed):
    for a, b, c, d in _random_tables(40, seed):
        ok, high = table_arrays(a, b, c, d)
        ref = vs.screen(ok, high)
        ours = screen(ok, high, phase_b=False, config=FAST)
        assert ref.tier != "Insufficient data"
        assert (ours.cells.a, ours.cells.b, ours.cells.c, ours.cells.d) == (ref.a, ref.b, ref.c, ref.d)
        for mine, theirs in [(ours.L, ref.L), (ours.Fp, ref.Fp)]:
            assert mine.value == pytest.approx(theirs.value, abs=1e-12)
            assert mine.ci_low == pytest.approx(theirs.ci_lower, abs=1e-9)
            assert mine.ci_high == pytest.approx(theirs.ci_upper, abs=1e-9)
        assert ours.RBS.value == pytest.approx(ref.rbs.value, abs=1e-12)
        assert ours.TRIN.value == pytest.approx(ref.trin.value, abs=1e-12)
        # r on the binarised confidence (phi, Fisher z) is the reference's r(confidence, correct)
        assert ours.r_phi.value == pytest.approx(ref.r_conf_correct.value, abs=1e-9)
        assert ours.r_phi.ci_low == pytest.approx(ref.r_conf_correct.ci_lower, abs=1e-9)
        assert ours.r_phi.ci_high == pytest.approx(ref.r_conf_correct.ci_upper, abs=1e-9)


@pytest.mark.parametrize("seed", [2, 3])
def test_tiers_are_consistent_with_the_reference(seed):
    """Ours follows the paper's point-estimate rule; the reference adds a Wilson floor to Invalid L / Fp.

    Our Valid implies its Valid (we add near bands); its Valid is our Valid or Indeterminate (a point near a
    threshold); any violated L or Fp point — its Invalid or its floor-Indeterminate — is our Invalid."""
    n_floor_cases = 0
    # plus a table the reference's floor rule calls Indeterminate: L = 100/105 = 0.952, Wilson low 0.893 <= 0.90
    for a, b, c, d in _random_tables(60, seed) + [(40, 100, 5, 5)]:
        ok, high = table_arrays(a, b, c, d)
        ref = vs.screen(ok, high)
        ours = screen(ok, high, phase_b=False, config=FAST)
        if ours.tier == "Valid":
            assert ref.tier == "Valid", (a, b, c, d)
        if ref.tier == "Valid":
            assert ours.tier in ("Valid", "Indeterminate"), (a, b, c, d)
        if ref.L.flag in ("invalid", "indeterminate") or ref.Fp.flag in ("invalid", "indeterminate"):
            assert ours.tier == "Invalid", (a, b, c, d)
            n_floor_cases += ref.L.flag == "indeterminate" or ref.Fp.flag == "indeterminate"
    assert n_floor_cases > 0  # the random tables do exercise the floor rule


@pytest.mark.parametrize("seed", [4, 5])
def test_reference_tool_config_reproduces_its_tiers(seed):
    """``ScreenConfig.reference_tool()`` (Wilson floors 0.90 / 0.40, no near bands) gives the reference's tier on
    every table both classify, except where the two RBS intervals (Newcombe vs Wald) disagree on "reliably > 0"."""
    cfg = ScreenConfig.reference_tool(n_boot=200)
    compared = 0
    for a, b, c, d in _random_tables(60, seed):
        ok, high = table_arrays(a, b, c, d)
        ref = vs.screen(ok, high)
        ours = screen(ok, high, phase_b=False, config=cfg)
        if (ours.RBS.ci_low > 0) != (ref.rbs.ci_lower > 0):
            continue
        compared += 1
        assert ours.tier == ref.tier, (a, b, c, d)
    assert compared >= 50


def test_deliberate_difference_small_cells_are_classified_not_refused():
    """validity-screen 0.1.0 refuses any table with a cell under 5 ("Insufficient data"). That hides exactly the
    blanket-confidence model the screen exists to catch: it keeps every answer, so c = d = 0. We classify it."""
    ok, high = table_arrays(a=120, b=80, c=0, d=0)   # keeps all 200 answers, 80 of them wrong
    ref = vs.screen(ok, high)
    assert ref.tier == "Insufficient data"
    ours = screen(ok, high)
    assert ours.tier == "Invalid"
    assert ours.response_style == "blanket confidence"
    assert ours.L.value == 1.0 and ours.L.ci_low > 0.95          # Wilson for 80/80 ~ [0.954, 1]
    assert any("TRIN" in w for w in ours.warnings)
    assert ours.phase_b is None


def test_rbs_interval_spanning_zero_is_fragility_by_default_indeterminate_on_request():
    """Both the reference and (by default) ours call a negative RBS Valid even when its interval reaches above 0;
    ours reports the interval as fragility. ``rbs_ci_spanning_zero_is_indeterminate=True`` is a stricter option."""
    ok, high = table_arrays(a=60, b=12, c=40, d=12)   # RBS = 0.4 - 0.5 = -0.1 from 24 errors
    ref = vs.screen(ok, high)
    ours = screen(ok, high)
    assert ref.tier == "Valid" == ours.tier
    assert ours.RBS.value == pytest.approx(-0.1) and ours.RBS.ci_high > 0
    assert any(f.startswith("RBS = -0.100") and "not established" in f for f in ours.fragility)
    strict = screen(ok, high, config=ScreenConfig(rbs_ci_spanning_zero_is_indeterminate=True))
    assert strict.tier == "Indeterminate"
    assert any("direction is not established" in r for r in strict.reasons)


def test_deliberate_difference_rbs_uses_newcombe_not_wald():
    # d = 0 with few errors: the reference's Wald interval has se(L) = 0 and calls RBS reliably > 0 only because
    # the interval collapses; the Newcombe interval does not
    ok, high = table_arrays(a=480, b=6, c=20, d=0)
    ref_lo = vs.screen(ok, high)  # refused (d < 5) in the reference; compute its Wald formula directly
    assert ref_lo.tier == "Insufficient data"
    fp, L = 20 / 500, 1.0
    wald_lo = (fp - (1 - L)) - 1.959964 * np.sqrt(fp * (1 - fp) / 500)
    assert wald_lo > 0
    ours = screen(ok, high)
    assert ours.RBS.ci_low < 0                        # not "reliably > 0": no inverted-monitoring verdict
    assert not any(r.startswith("inverted monitoring") for r in ours.reasons)
    # 6 of 6 errors kept is blanket confidence by the paper's point rule, fragile (6 errors)
    assert ours.tier == "Invalid" and ours.response_style == "blanket confidence" and ours.fragile
