"""Self-correction is exploration, not a fault; a retraction must be real (issue 17), scored end to end."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from rewards import faithful_accuracy_reward, rafs_reward, score_trace

P = ("Janet's ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes muffins for her "
     "friends every day with four. She sells the remainder at the farmers' market daily for $2 per fresh duck egg. "
     "How much in dollars does she make every day at the farmers' market?")
FAITHFUL = "She has 16 - 3 - 4 = 9 eggs left.\nShe makes 9 * 2 = 18 dollars.\n#### 18"
CORRECTED = ("She has 16 - 3 - 4 = 8 eggs left.\nWait, that is wrong: 16 - 3 - 4 = 9 eggs left.\n"
             "She makes 9 * 2 = 18 dollars.\n#### 18")
FAKE = ("She has 16 - 3 - 4 = 8 eggs left.\nWait, let me recheck: 16 - 3 - 4 = 8 eggs left.\n"
        "She makes 8 * 2 = 16 dollars.\n#### 16")
IGNORED = ("She has 16 - 3 - 4 = 8 eggs left.\nWait, that is wrong: 16 - 3 - 4 = 9 eggs left.\n"
           "She makes 8 * 2 = 16 dollars.\n#### 16")
THINK = ("<think>\nshe has 16 - 3 - 4 = 8 eggs left. hmm, wait, that's wrong: 16 - 3 - 4 = 9 eggs left. "
         "she makes 9 * 2 = 18 dollars.\n</think>\nJanet makes $18 a day.\n#### 18")


def _battery():
    path = Path(__file__).resolve().parents[3] / "benchmarks" / "long_traces.py"
    spec = importlib.util.spec_from_file_location("long_traces", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while it executes
    spec.loader.exec_module(module)
    return module


def test_a_corrected_slip_scores_like_the_trace_without_the_detour():
    plain, corrected = score_trace(P, FAITHFUL, gold="18"), score_trace(P, CORRECTED, gold="18")
    assert corrected.status == "accept" and corrected.suspect_step is None
    assert corrected.failure_type == "faithful_success"
    assert corrected.score == pytest.approx(plain.score)
    assert any("superseded" in r for r in corrected.reasons)
    assert faithful_accuracy_reward([P] * 2, [FAITHFUL, CORRECTED], answer=["18"] * 2) == [1.0, 1.0]
    assert rafs_reward([P], [CORRECTED])[0] == pytest.approx(rafs_reward([P], [FAITHFUL])[0])


def test_a_think_block_that_fixes_a_slip_is_not_punished():
    r = score_trace(P, THINK, gold="18")
    assert r.suspect_step is None and r.status == "accept", r.reasons


@pytest.mark.parametrize("completion", [FAKE, IGNORED], ids=["same false value", "correction ignored"])
def test_a_retraction_that_changes_nothing_is_no_retraction(completion):
    r = score_trace(P, completion, gold="18")
    assert r.suspect_step == 0 and r.status == "review" and r.failure_type == "overt_failure"


@pytest.mark.parametrize("chars", [2_000, 32_000])
def test_the_long_trace_battery_gets_its_expected_verdicts(chars):
    battery = _battery()
    for row in battery.battery(chars, 0):
        r = score_trace(row["problem"], row["completion"], gold=row["gold"])
        expect = row["expect"]
        assert r.status == expect["status"], (chars, row["kind"], r.status, r.reasons[:3])
        assert (r.suspect_step is None) == (expect.get("fault") is None), (chars, row["kind"], r.suspect_step)


def test_a_quarter_megabyte_trace_is_scored_not_refused():
    battery = _battery()
    row = next(r for r in battery.battery(256_000, 0) if r["kind"] == "faithful")
    assert len(row["completion"]) >= 250_000
    r = score_trace(row["problem"], row["completion"], gold=row["gold"])
    assert r.status == "accept" and r.score > 90
