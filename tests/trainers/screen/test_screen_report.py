"""The VRS report: JSON shape, Markdown, figures; and subsampling stability."""

from __future__ import annotations

import json

import numpy as np
import pytest

from trainers.screen import (ScreenResult, results_to_json, results_to_markdown, screen, subsample_stability,
                             summary_figure)

INDEX_KEYS = ("L", "Fp", "RBS", "TRIN", "r")


def _valid_result() -> ScreenResult:
    rng = np.random.default_rng(0)
    ok = rng.random(300) < 0.75
    conf = np.clip(np.where(ok, rng.normal(85, 8, 300), rng.normal(60, 12, 300)), 0, 100)
    return screen(ok, conf, group="m1")


def test_json_shape():
    d = json.loads(json.dumps(_valid_result().to_dict(), allow_nan=False))
    for key in ("group", "n", "accuracy", "cells", "tier", "reasons", "response_style", "phase_b", "n_dropped"):
        assert key in d
    assert set(d["cells"]) == {"a", "b", "c", "d"}
    assert sum(d["cells"].values()) == d["n"] == 300
    for k in INDEX_KEYS:
        assert {"value", "ci_low", "ci_high"} <= set(d[k])
        assert d[k]["ci_low"] <= d[k]["value"] <= d[k]["ci_high"]
    assert d["tier"] == "Valid" and isinstance(d["reasons"], list)
    assert {"auroc", "ece", "brier", "aurc"} <= set(d["phase_b"])


def test_json_list_and_null_phase_b_for_invalid(tmp_path):
    bad = screen([True, False] * 60, [100] * 120, group="blanket")
    text = results_to_json([_valid_result(), bad], tmp_path / "out.json")
    data = json.loads((tmp_path / "out.json").read_text())
    assert json.loads(text) == data
    assert [g["group"] for g in data] == ["m1", "blanket"]
    assert data[1]["tier"] == "Invalid" and data[1]["phase_b"] is None


def test_markdown_has_the_vrs_rows():
    md = _valid_result().to_markdown()
    for row in ("2x2 table", "L = b/(b+d)", "Fp = c/(a+c)", "RBS", "TRIN", "**Tier**", "Response style",
                "AUROC / ECE / Brier"):
        assert row in md
    summary = results_to_markdown([_valid_result()])
    assert summary.startswith("## Validity screen") and "| m1 |" in summary


def test_figures_render_with_agg(tmp_path):
    for res in (_valid_result(), screen([True, False] * 60, [100] * 120)):
        path = res.save_figure(tmp_path / f"{res.tier}.png")
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    fig = summary_figure([_valid_result(), screen([True, False] * 60, [100] * 120, group="x")])
    fig.savefig(tmp_path / "summary.png")
    assert (tmp_path / "summary.png").stat().st_size > 1000


def test_stability_clear_case_holds_and_is_seeded():
    rng = np.random.default_rng(2)
    ok = rng.random(500) < 0.7
    conf = np.clip(np.where(ok, rng.normal(85, 8, 500), rng.normal(55, 10, 500)), 0, 100)
    st = subsample_stability(ok, conf, sizes=(30, 150, 1000), n_rep=60, seed=3)
    assert st.full_tier == "Valid" and st.sizes == [30, 150]  # sizes >= n are skipped
    assert st.agreement[150] >= 0.9
    assert all(sum(s.values()) == pytest.approx(1.0) for s in st.tier_shares.values())
    assert subsample_stability(ok, conf, sizes=(30,), n_rep=60, seed=3).agreement[30] == st.agreement[30]
    res = screen(ok, conf)
    res.stability = st
    assert "stability" in res.to_dict() and "Subsampling stability" in res.to_markdown()


def test_stability_of_blanket_confidence():
    ok = np.random.default_rng(0).random(400) < 0.6
    st = subsample_stability(ok, ["KEEP"] * 400, sizes=(100, 200), n_rep=30)
    assert st.full_tier == "Invalid" and st.agreement[200] == 1.0
