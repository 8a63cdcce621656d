"""Real data: MMLU item-level (correct, 0-100 confidence) of three LLMs from the paper's cross-benchmark study.

The authors' per-model summaries (same folder, ``summary/``) give the cells' consequences L and Fp with Wilson
intervals, the tier and AUROC: we reproduce them, and validity-screen 0.1.0 agrees on the binarised data.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from trainers.screen import screen_groups

FILES = {
    "google/gemma-3-1b": ("Gemma_3_1B_validity_screen_mmlu_results.csv", "Gemma_3_1B_validity_screen_mmlu_summary.csv"),
    "anthropic/claude-haiku-4-5@20251001": ("Claude_Haiku_4.5_validity_screen_mmlu_results.csv",
                                            "Claude_Haiku_4.5validity_screen_mmlu_summary.csv"),
    "google/gemma-3-12b": ("Gemma_3_12B_validity_screen_mmlu_results.csv",
                           "Gemma_3_12B_validity_screen_mmlu_summary.csv"),
}


@pytest.fixture(scope="module")
def results(request, shared_data):
    from screen_helpers import MMLU_SUBDIR

    MMLU_DIR = shared_data / MMLU_SUBDIR
    assert (MMLU_DIR / "item_level").is_dir(), f"MMLU validity data not found at {MMLU_DIR}"
    df = pd.concat([pd.read_csv(MMLU_DIR / "item_level" / f, dtype=str, keep_default_na=False)
                    for f, _ in FILES.values()], ignore_index=True)
    res = {r.group: r for r in screen_groups(df, "is_correct", "confidence", "model")}
    summaries = {m: pd.read_csv(MMLU_DIR / "summary" / s).iloc[0] for m, (_, s) in FILES.items()}
    return df, res, summaries


def test_reproduces_the_authors_summaries(results):
    _, res, summaries = results
    for model, s in summaries.items():
        r = res[model]
        assert r.n == s["n_items"]
        assert r.accuracy == pytest.approx(s["accuracy"], abs=1e-4)
        for ours, key in [(r.L, "L"), (r.Fp, "Fp")]:
            assert ours.value == pytest.approx(s[key], abs=1e-4)
            assert ours.ci_low == pytest.approx(s[f"{key}_ci_lower"], abs=1e-4)
            assert ours.ci_high == pytest.approx(s[f"{key}_ci_upper"], abs=1e-4)
        assert r.RBS.value == pytest.approx(s["RBS"], abs=1e-4)
        assert r.r_phi.value == pytest.approx(s["r"], abs=1e-4)  # the paper's r is on the binarised confidence
        if r.phase_b is not None:
            assert r.phase_b.auroc == pytest.approx(s["auroc"], abs=1e-4)


def test_tiers_on_real_models(results):
    _, res, summaries = results
    gemma1b = res["google/gemma-3-1b"]
    assert gemma1b.tier == "Invalid" == summaries["google/gemma-3-1b"]["tier"]
    assert gemma1b.response_style == "blanket confidence"
    assert gemma1b.cells.b == 295 and gemma1b.phase_b is None
    haiku = res["anthropic/claude-haiku-4-5@20251001"]
    assert haiku.tier == "Valid" and haiku.r.ci_low > 0 and haiku.phase_b.auroc > 0.7
    # Gemma 3 12B keeps 90% of its errors (L = 0.899) yet passes: below 0.95 and below the near band
    assert res["google/gemma-3-12b"].tier == "Valid"


def test_agrees_with_reference_tool_on_real_binarised_data(results):
    vs = pytest.importorskip("validity_screen")
    df, res, _ = results
    for model, r in res.items():
        sub = df[df["model"] == model]
        conf = sub["confidence"].astype(float).to_numpy()
        ok = sub["is_correct"].eq("True").to_numpy()
        ref = vs.screen(ok, vs.binarise(conf, method="median"))
        assert (r.cells.a, r.cells.b, r.cells.c, r.cells.d) == (ref.a, ref.b, ref.c, ref.d)
        assert r.L.ci_low == pytest.approx(ref.L.ci_lower, abs=1e-9)
        assert r.Fp.ci_high == pytest.approx(ref.Fp.ci_upper, abs=1e-9)
        assert r.tier == ref.tier
        assert np.isclose(r.TRIN.value, ref.trin.value)


def test_every_mmlu_model_gets_the_papers_tier(shared_data):
    """All 16 item-level files: the point-estimate rule gives the authors' tier for each of the 15 models with a
    summary (Gemma 3 1B Invalid, the rest Valid); the old interval veto made GLM-5 and GPT-5.4 nano Indeterminate."""
    from screen_helpers import MMLU_SUBDIR

    from trainers.screen import ScreenConfig

    MMLU_DIR = shared_data / MMLU_SUBDIR
    assert (MMLU_DIR / "item_level").is_dir(), f"MMLU validity data not found at {MMLU_DIR}"
    files = sorted((MMLU_DIR / "item_level").glob("*.csv"))
    df = pd.concat([pd.read_csv(f, dtype=str, keep_default_na=False) for f in files], ignore_index=True)
    res = {r.group: r for r in screen_groups(df, "is_correct", "confidence", "model", phase_b=False,
                                             config=ScreenConfig(n_boot=200))}
    summ = pd.concat([pd.read_csv(f) for f in (MMLU_DIR / "summary").glob("*.csv")]).set_index("model")
    matched = [m for m in res if m in summ.index]
    assert len(res) == 16 and len(matched) == 15
    assert {m: res[m].tier for m in matched} == {m: summ.loc[m, "tier"] for m in matched}
    assert [m for m, r in res.items() if r.tier == "Invalid"] == ["google/gemma-3-1b"]
    # the two the old rule moved are Valid now, with their intervals reported as fragility
    assert res["zai/glm-5"].fragile and res["openai/gpt-5.4-nano-2026-03-17"].fragile
