"""trainers.train: GRPO, RLOO and SFT steps from recipes on tiny offline models, PEFT LoRA, halting, resume.

Tiny models (hidden 32, 2 layers), max_completion_length 16, 1-2 steps: each training here takes seconds.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("trl")

from trainers.callbacks import HISTORY_NAME, ValidityScreenCallback  # noqa: E402
from trainers.probes import Generation  # noqa: E402
from trainers.train import adapt_for_device, build_trainer, detect_trainer, load_recipe, train  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
GRPO_RECIPE = ROOT / "recipes" / "SmolLM2-135M-Instruct" / "grpo" / "config_demo.yaml"
RLOO_RECIPE = ROOT / "recipes" / "SmolLM2-135M-Instruct" / "rloo" / "config_demo.yaml"
SFT_RECIPE = ROOT / "recipes" / "SmolLM2-135M-Instruct" / "sft" / "config_filtered.yaml"


def tiny(model_path: str, out: Path, *extra: str) -> list[str]:
    return ["--model_name_or_path", model_path, "--output_dir", str(out), "--max_steps", "1",
            "--max_completion_length", "16", "--num_generations", "2", "--per_device_train_batch_size", "4",
            "--report_to", "none", "--screen", "false", "--disable_tqdm", "true", "--save_strategy", "no",
            "--max_train_samples", "16", *extra]


def reward_means(trainer) -> dict[str, float]:
    rows = [r for r in trainer.state.log_history if any(k.startswith("rewards/") for k in r)]
    assert rows, trainer.state.log_history
    return {k: v for k, v in rows[-1].items() if k.startswith("rewards/") and k.endswith("/mean")}


@pytest.mark.parametrize("conversational", ["true", "false"])
def test_grpo_step_with_rafs_rewards(tiny_model_path, tmp_path, conversational):
    recipe = load_recipe(GRPO_RECIPE, tiny(tiny_model_path, tmp_path, "--conversational", conversational))
    assert recipe.trainer == "grpo"
    trainer = train(recipe)
    assert trainer.state.global_step == 1
    sample = trainer.train_dataset[0]
    assert isinstance(sample["prompt"], list if conversational == "true" else str)
    means = reward_means(trainer)
    assert set(means) == {"rewards/faithful_accuracy_reward/mean", "rewards/rafs_reward/mean"}
    assert (tmp_path / "model.safetensors").is_file()


def test_rloo_step_with_rafs_rewards(tiny_qwen2_path, tmp_path):
    recipe = load_recipe(RLOO_RECIPE, tiny(tiny_qwen2_path, tmp_path))
    assert recipe.trainer == "rloo" and type(recipe.training).__name__ == "RLOOConfig"
    trainer = train(recipe)
    assert type(trainer).__name__ == "RLOOTrainer" and trainer.state.global_step == 1
    assert "rewards/rafs_reward/mean" in reward_means(trainer)


def test_grpo_with_peft_lora(tiny_model_path, tmp_path):
    recipe = load_recipe(GRPO_RECIPE, tiny(tiny_model_path, tmp_path, "--use_peft", "true", "--lora_r", "4",
                                           "--lora_alpha", "8", "--lora_target_modules", "q_proj", "v_proj"))
    trainer = build_trainer(recipe)
    from peft import PeftModel

    assert isinstance(trainer.model, PeftModel)
    trainable = [n for n, p in trainer.model.named_parameters() if p.requires_grad]
    assert trainable and all("lora_" in n for n in trainable)
    trainer.train()
    assert trainer.state.global_step == 1


def test_sft_filters_with_rafs_first(tiny_model_path, tmp_path):
    rows = [
        {"question": "Ann has 2 bags of 5 apples. How many apples?", "answer": "2*5=<<2*5=10>>10\n#### 10"},
        {"question": "Bo has 3 boxes of 4 pens. How many pens?", "answer": "3*4=<<3*4=13>>13\n#### 13"},
        {"question": "Cy has 6 cats and gets 2 more. How many cats?", "answer": "6+2=<<6+2=8>>8\n#### 8"},
        {"question": "Di has 9 cups and breaks 4. How many are left?", "answer": "9-4=<<9-4=5>>5\n#### 5"},
    ]
    data = tmp_path / "sft.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    recipe = load_recipe(SFT_RECIPE, ["--model_name_or_path", tiny_model_path, "--output_dir", str(tmp_path / "o"),
                                      "--dataset_name", "", "--dataset_path", str(data), "--max_steps", "1",
                                      "--per_device_train_batch_size", "2", "--report_to", "none",
                                      "--screen", "false", "--save_strategy", "no", "--max_length", "64",
                                      "--disable_tqdm", "true"])
    assert recipe.trainer == "sft"
    trainer = build_trainer(recipe)
    prompts = [r["prompt"][-1]["content"] for r in trainer.train_dataset] if "prompt" in \
        trainer.train_dataset.column_names else []
    assert len(trainer.train_dataset) == 3  # the 3 * 4 = 13 row is dropped by the RAFS filter
    assert not any("Bo has 3 boxes" in p for p in prompts)
    trainer.train()
    assert trainer.state.global_step == 1


def blanket(prompts, max_new_tokens, want_scores=False):
    """Always answers 7 and is always 99% sure: blanket confidence."""
    return [Generation("99" if len(p) > 1 else "#### 7") for p in prompts]


def test_callback_halts_a_real_grpo_run(tiny_model_path, tmp_path):
    probe = [{"problem": f"What is {i} + 1?", "answer": str(i + 1)} for i in range(60)]
    cb = ValidityScreenCallback(probe, policy="halt", baseline=False, generator=blanket)
    recipe = load_recipe(GRPO_RECIPE, tiny(tiny_model_path, tmp_path, "--max_steps", "3",
                                           "--save_strategy", "steps", "--save_steps", "1"))
    trainer = build_trainer(recipe, callbacks=[cb])
    trainer.train()
    assert trainer.state.global_step == 1  # stopped at the first checkpoint
    assert cb.halted and cb.history[-1]["tier"] == "Invalid"
    assert (tmp_path / "checkpoint-1" / "validity_report.json").is_file()


def test_resume_keeps_the_screen_history(tiny_model_path, tmp_path):
    args = tiny(tiny_model_path, tmp_path, "--max_steps", "2", "--save_strategy", "steps", "--save_steps", "1",
                "--save_only_model", "false",
                "--screen", "true", "--screen_probe_size", "4", "--screen_max_new_tokens", "4")
    first = train(load_recipe(GRPO_RECIPE, args))
    steps = [h["step"] for h in first.rafs_screen_callback.history]
    assert steps == [0, 1, 2]  # baseline + two checkpoints (random model: failed screens, training goes on)
    assert all(h["status"] == "failed" for h in first.rafs_screen_callback.history)
    resumed = train(load_recipe(GRPO_RECIPE, args + ["--max_steps", "3", "--resume_from_checkpoint",
                                                          str(tmp_path / "checkpoint-2")]))
    history = resumed.rafs_screen_callback.history
    assert [h["step"] for h in history] == [0, 1, 2, 3]
    assert [h["event"] for h in history].count("baseline") == 1
    saved = json.loads((tmp_path / "checkpoint-3" / HISTORY_NAME).read_text())["history"]
    assert [h["step"] for h in saved] == [0, 1, 2, 3]


def test_recipe_errors_and_device_adaptation(tmp_path):
    bad = tmp_path / "grpo" / "config_x.yaml"
    bad.parent.mkdir()
    bad.write_text("model_name_or_path: x\nlearning_rate: 1.0e-5\nnum_generation: 4\n")
    with pytest.raises(ValueError, match=r"unknown key\(s\) \['num_generation'\]"):
        load_recipe(bad)
    with pytest.raises(ValueError, match="cannot tell the trainer"):
        detect_trainer(tmp_path / "config.yaml", {})
    with pytest.raises(ValueError, match="trainer='ppo'"):
        detect_trainer(bad, {"trainer": "ppo"})
    assert detect_trainer(bad, {}) == "grpo"
    cfg = {"bf16": True, "use_vllm": True, "gradient_checkpointing": True}
    changes = adapt_for_device(cfg, cuda=False)
    assert cfg == {"bf16": False, "use_vllm": False, "gradient_checkpointing": False, "use_cpu": True}
    assert len(changes) == 4
    assert adapt_for_device({"bf16": True}, cuda=True) == []


def test_rafs_train_command_dry_run_and_errors(capsys):
    from trainers.cli import main

    assert main(["train", str(GRPO_RECIPE), "--dry-run", "--max_steps", "3"]) == 0
    out = capsys.readouterr().out
    assert "trainer: grpo" in out and "max_steps: 3" in out
    assert main(["train", "no/such/recipe.yaml"]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_easy_arithmetic_probe_set_is_held_out():
    from trainers.train import RAFSScriptArguments, easy_arithmetic, load_probe_set

    probe = load_probe_set(RAFSScriptArguments(dataset_name="easy_arithmetic", screen_probe_size=24))
    train_questions = {r["question"] for r in easy_arithmetic(400, seed=0)}
    assert len(probe) == 24 and len({p["problem"] for p in probe}) == 24
    assert not any(p["problem"] in train_questions for p in probe)
    assert all(p["answer"].splitlines()[-1].startswith("#### ") for p in probe)
