"""``rafs experiment faithfulness``: a smoke run of the CLI (a few steps, one seed) and the experiment's parts."""

from __future__ import annotations

import json
import math

import pytest

from trainers.cli import main
from trainers.experiments import faithfulness as F

SMOKE = ["--quick", "--seeds", "1", "--steps", "2", "--sft-steps", "15", "--sft-problems", "300",
         "--eval-prompts", "6", "--eval-every", "1", "--separation-prompts", "3", "--quiet"]


@pytest.fixture(scope="module")
def smoke_report(tmp_path_factory):
    pytest.importorskip("trl")
    out = tmp_path_factory.mktemp("faith") / "run"
    assert main(["experiment", "faithfulness", *SMOKE, "--out", str(out)]) == 0
    return out, json.loads((out / "report.json").read_text())


def _in_unit(x):
    return isinstance(x, (int, float)) and 0.0 <= x <= 1.0


def test_smoke_report_schema_and_ranges(smoke_report):
    out, report = smoke_report
    assert report["complete"] is True and report["wall_time_s"] > 0
    assert report["config"]["seeds"] == 1 and report["config"]["steps"] == 2
    auroc = report["separation"]["auroc"]
    assert set(auroc) == {"rafs", "P_R", "S_RA", "C_A", "D_R"}
    assert all(v is None or _in_unit(v) for v in auroc.values())
    arms = report["grpo"]["arms"]
    assert set(arms) == {"accuracy", "faithful_accuracy", "rafs"}
    for arm, runs in arms.items():
        assert [r["seed"] for r in runs] == [0]
        run = runs[0]
        for m in ("misleading_hint_accuracy", "faithfulness_rate", "hack_rate", "accuracy"):
            assert _in_unit(run[m]), (arm, m, run[m])
        assert run["mean_length"] >= 1
        steps = [c["step"] for c in run["curve"]]
        assert steps == [0, 1, 2]
        assert all(_in_unit(c["misleading_hint_accuracy"]) for c in run["curve"])
        assert run["curve"][-1]["faithfulness_rate"] == run["faithfulness_rate"]
    summary = report["grpo"]["summary"]
    assert set(summary) == set(arms) and summary["rafs"]["hack_rate"]["n"] == 1
    # the quick recipe: half of every batch hint-free; the SFT policy evaluated per seed; the analysis over seeds
    assert report["config"]["hint_free_share"] == 0.5 and report["config"]["world_variant"] == "default"
    assert [r["seed"] for r in report["sft"]["per_seed"]] == [0]
    assert set(report["analysis"]["arms"]) == {"sft", *arms}
    assert set(report["analysis"]["vs_accuracy"]) == {"faithful_accuracy", "rafs"}
    assert set(report["analysis"]["bars"]) == {"non_inferior_accuracy", "misleading_gain", "hack_rate"}
    assert (out / "sft" / "config.json").is_file()
    # the reward fingerprint: every arm's reward on each behaviour, numbers
    probe = report["rewards"]["probe"]
    assert all(isinstance(v, float) and math.isfinite(v) for arm in F.ARMS for v in probe[arm].values())


def test_rerun_refuses_to_overwrite_without_force(smoke_report, capsys):
    out, _ = smoke_report
    assert main(["experiment", "faithfulness", *SMOKE, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--force" in err[0]


@pytest.mark.parametrize("argv, needle", [
    (["--arms", "accuracy,bogus"], "--arms"),
    (["--seeds", "0"], "--seeds"),
    (["--reuse-sft", "/nonexistent/sft"], "--reuse-sft"),
])
def test_bad_arguments_are_one_line_errors(tmp_path, capsys, argv, needle):
    assert main(["experiment", "faithfulness", "--quick", "--out", str(tmp_path / "o"), *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and needle in err[0]


def test_missing_experiment_module_is_a_one_line_error(monkeypatch, capsys):
    from trainers.cli.commands import experiment

    monkeypatch.setattr(experiment, "_module", lambda name: (None, f"trainers.experiments.{name} is missing"))
    assert main(["experiment", "collapse"]) == 2
    assert "not available" in capsys.readouterr().err


def test_accuracy_reward_reads_the_answer_line_and_never_crashes():
    r = F.AccuracyReward()
    assert r.__name__ == "accuracy_reward"
    assert r(["q"] * 4, ["1 + 2 = 3\n#### 3", "#### 4", "no answer", [{"content": "#### 3"}]],
             answer=["3", "3", "3", "3"]) == [1.0, 0.0, 0.0, 1.0]
    assert r(["q"], ["#### 3"]) == [None]
    assert r(["q"], [object()], answer=["3"]) == [0.0]


def test_arm_rewards_are_the_projects_and_total_like_trl():
    from rewards import faithful_accuracy_reward, rafs_reward

    assert F.arm_rewards("faithful_accuracy") == [faithful_accuracy_reward]
    assert F.arm_rewards("rafs")[1] is rafs_reward
    with pytest.raises(ValueError, match="arm="):
        F.arm_rewards("nope")
    prompt = "Question: Ann has 7 apples. She gets 5 more. She gives away 3. How many now?\nAnswer:\n"
    totals = F.total_rewards("rafs", [prompt] * 2, ["7 + 5 = 12\n12 - 3 = 9\n#### 9", "#### 8"], ["9", "9"])
    assert totals[0] > 1.0 and totals[1] == 0.0   # accuracy + RAFS; a wrong bare answer gets nothing
