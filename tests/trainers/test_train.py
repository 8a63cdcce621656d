"""trainers.training.train (with trainers.training.recipes, trainers.training.train_data, trainers.training.reward_choice): GRPO, RLOO and SFT steps from
recipes on tiny offline models, PEFT LoRA, halting, resume, and the `rafs train` command.

Tiny models (hidden 32, 2 layers), max_completion_length 16, 1-2 steps: each training here takes seconds.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("trl")

from trainers.training.callbacks import HISTORY_NAME, ValidityScreenCallback  # noqa: E402
from trainers.training.probes import Generation  # noqa: E402
from trainers.training.recipes import adapt_for_device, detect_trainer, load_recipe  # noqa: E402
from trainers.training.train import build_trainer, screen_callback, train  # noqa: E402

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


def test_rafs_train_and_the_demo_share_one_thread_policy(tiny_model_path, tmp_path, monkeypatch):
    """Under contention the demo drops to one torch thread; ``rafs train`` (build_trainer) did not and its steps
    took 10x longer. Both now follow the recipe field ``torch_threads`` ('auto': 1 on a busy machine)."""
    import os

    import torch

    from trainers.training.demo import choose_threads as demo_policy

    before = torch.get_num_threads()
    try:
        monkeypatch.setattr(os, "getloadavg", lambda: (float(os.cpu_count() or 1), 0.0, 0.0))  # a busy machine
        torch.set_num_threads(2)
        build_trainer(load_recipe(GRPO_RECIPE, tiny(tiny_model_path, tmp_path)))
        assert torch.get_num_threads() == 1 == demo_policy("auto")
        build_trainer(load_recipe(GRPO_RECIPE, tiny(tiny_model_path, tmp_path, "--torch_threads", "2")))
        assert torch.get_num_threads() == 2
        monkeypatch.setattr(os, "getloadavg", lambda: (0.0, 0.0, 0.0))  # a quiet machine: every core
        build_trainer(load_recipe(GRPO_RECIPE, tiny(tiny_model_path, tmp_path)))
        assert torch.get_num_threads() == (os.cpu_count() or 1) == demo_policy("auto")
        with pytest.raises(ValueError, match="torch_threads='many'"):
            build_trainer(load_recipe(GRPO_RECIPE, tiny(tiny_model_path, tmp_path, "--torch_threads", "many")))
    finally:
        torch.set_num_threads(before)


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
    steps = [h["step"] for h in screen_callback(first).history]
    assert steps == [0, 1, 2]  # baseline + two checkpoints (random model: failed screens, training goes on)
    assert all(h["status"] == "failed" for h in screen_callback(first).history)
    resumed = train(load_recipe(GRPO_RECIPE, args + ["--max_steps", "3", "--resume_from_checkpoint",
                                                          str(tmp_path / "checkpoint-2")]))
    history = screen_callback(resumed).history
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
    from trainers.training.train_data import easy_arithmetic, load_probe_set
    from trainers.training.recipes import RAFSScriptArguments

    probe = load_probe_set(RAFSScriptArguments(dataset_name="easy_arithmetic", screen_probe_size=24))
    train_questions = {r["question"] for r in easy_arithmetic(400, seed=0)}
    assert len(probe) == 24 and len({p["problem"] for p in probe}) == 24
    assert not any(p["problem"] in train_questions for p in probe)
    assert all(p["answer"].splitlines()[-1].startswith("#### ") for p in probe)


# ---------------------------------------------------------------------- TRL rewards, --dry-run, --config, --force

def test_trl_accuracy_reward_mixes_with_ours_on_the_recipe_data():
    """``trl.rewards.accuracy_reward`` needs ``solution``; the recipe's gold column is ``answer``: the resolved
    function gets it under that name, called exactly as GRPOTrainer calls reward functions."""
    import pickle

    from trainers.training.train_data import load_train_dataset
    from trainers.training.reward_choice import GoldColumnReward, build_reward_funcs

    for conversational in ("true", "false"):
        recipe = load_recipe(GRPO_RECIPE, ["--reward_funcs", "faithful_accuracy", "trl.rewards.accuracy_reward",
                                           "--conversational", conversational, "--max_train_samples", "4"])
        funcs = build_reward_funcs(recipe.script)
        assert [f.__name__ for f in funcs] == ["faithful_accuracy_reward", "accuracy_reward"]
        trl_reward = funcs[1]
        assert isinstance(trl_reward, GoldColumnReward) and trl_reward.gold_params == ("solution",)
        rows = list(load_train_dataset(recipe.script, seed=0))
        assert set(rows[0]) == {"prompt", "answer"}
        gold = [r["answer"].split("####")[-1].strip() for r in rows]
        texts = [f"So the answer is $\\boxed{{{g}}}$." for g in gold[:2]] + \
                [f"So the answer is $\\boxed{{{int(g) + 1}}}$." for g in gold[2:]]
        completions = [[{"role": "assistant", "content": t}] for t in texts] if conversational == "true" else texts
        kwargs = {"answer": [r["answer"] for r in rows], "trainer_state": None, "log_extra": None,
                  "log_metric": None}
        assert trl_reward(prompts=[r["prompt"] for r in rows], completions=completions, **kwargs) == \
            [1.0, 1.0, 0.0, 0.0]
        assert pickle.loads(pickle.dumps(trl_reward))(
            prompts=[r["prompt"] for r in rows], completions=completions, **kwargs) == [1.0, 1.0, 0.0, 0.0]


@pytest.mark.parametrize("conversational", ["true", "false"])
def test_a_reward_that_can_never_pay_under_the_instruction_is_named_at_start(caplog, conversational):
    """The demo recipe asks for ``####``; TRL's ``accuracy_reward`` reads only ``\\boxed{}``, so mixed in as the
    recipe suggests it scores 0 on every step. Building the rewards warns and names the format both read; with
    that instruction there is no warning, and every reward of the mix pays a correct worked answer."""
    import logging

    from trainers.training.reward_choice import BOXED_INSTRUCTION, answer_probe, build_reward_funcs

    mix = ["--reward_funcs", "faithful_accuracy", "rafs", "trl.rewards.accuracy_reward",
           "--conversational", conversational]
    with caplog.at_level(logging.WARNING, logger="trainers.training.reward_choice"):
        build_reward_funcs(load_recipe(GRPO_RECIPE, mix).script)
    warned = [r.getMessage() for r in caplog.records if "can never pay" in r.getMessage()]
    assert len(warned) == 1 and "accuracy_reward" in warned[0] and "boxed" in warned[0]
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="trainers.training.reward_choice"):
        script = load_recipe(GRPO_RECIPE, [*mix, "--instruction", BOXED_INSTRUCTION]).script
        funcs = build_reward_funcs(script)
    assert not [r for r in caplog.records if "can never pay" in r.getMessage()]
    problem, completion, gold = answer_probe(script.instruction)
    given = [{"role": "assistant", "content": completion}] if conversational == "true" else completion
    paid = [f(prompts=[problem], completions=[given], answer=[gold])[0] for f in funcs]
    assert all(p > 0.9 for p in paid), paid


def test_a_crashing_foreign_reward_scores_none_instead_of_stopping_training(caplog):
    from trainers.training.reward_choice import GoldColumnReward

    def broken(completions, solution, **kwargs):
        raise ZeroDivisionError("boom")

    reward = GoldColumnReward(broken, "answer", ("solution",))
    assert reward(prompts=["p", "p"], completions=["a", "b"], answer=["1", "1"]) == [None, None]
    assert reward.errors == 1 and "ZeroDivisionError" in caplog.text
    with pytest.raises(ValueError, match="needs the gold column 'answer'"):
        reward(prompts=["p"], completions=["a"], solution_text=["1"])


@pytest.mark.parametrize("name,message", [
    ("faithful_acuracy", "unknown reward 'faithful_acuracy' (did you mean 'faithful_accuracy'"),
    ("trl.rewards.acuracy_reward", "has no reward function 'acuracy_reward'; did you mean trl.rewards.accuracy_reward"),
    ("no_such_pkg.reward", "cannot import 'no_such_pkg'"),
    ("trl.rewards.get_soft_overlong_punishment", "is a factory that needs arguments"),
])
def test_dry_run_fails_in_one_line_on_an_unknown_reward(capsys, name, message):
    from trainers.cli import main

    assert main(["train", str(GRPO_RECIPE), "--dry-run", "--reward_funcs", "rafs", name]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and message in err, err


def test_dry_run_prints_the_resolved_config(capsys):
    import yaml
    from trl import GRPOConfig, ModelConfig

    from trainers.cli import main
    from trainers.training.recipes import RAFSScriptArguments

    assert main(["train", str(GRPO_RECIPE), "--dry-run", "--max_steps", "3", "--reward_funcs", "faithful_accuracy",
                 "trl.rewards.accuracy_reward", "think_format_reward"]) == 0
    out = capsys.readouterr().out
    body = "\n".join(line for line in out.splitlines() if not line.startswith(("#", "rafs train:")))
    resolved = yaml.safe_load(body)
    import dataclasses

    for cls in (RAFSScriptArguments, GRPOConfig, ModelConfig):  # every argument, by name
        missing = {f.name for f in dataclasses.fields(cls) if f.init} - set(resolved) - {"trainer"}
        assert not missing, (cls.__name__, sorted(missing)[:5])
    assert resolved["trainer"] == "grpo" and resolved["max_steps"] == 3
    assert resolved["dataset_name"] == "easy_arithmetic" and resolved["output_dir"] == "runs/grpo-demo"
    assert resolved["reward_funcs"] == ["faithful_accuracy", "trl.rewards.accuracy_reward", "think_format_reward"]
    assert "faithful_accuracy -> rewards.adapters.trl_rewards.faithful_accuracy_reward" in out
    assert "trl.rewards.accuracy_reward -> GoldColumnReward(trl.rewards.accuracy_rewards.accuracy_reward; " \
           "solution=<answer>" in out
    assert "think_format_reward -> GoldColumnReward(trl.rewards.format_rewards.think_format_reward" in out


def test_config_flag_works_for_rafs_train_and_python_m(capsys):
    from trainers.cli import main as rafs
    from trainers.training.train import main as python_m

    assert rafs(["train", "--config", str(GRPO_RECIPE), "--dry-run", "--max_steps", "4"]) == 0
    assert "max_steps: 4" in capsys.readouterr().out
    assert python_m(["--config", str(RLOO_RECIPE), "--max_steps", "5", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "trainer: rloo" in out and "max_steps: 5" in out
    assert rafs(["train", str(GRPO_RECIPE), "--config", str(RLOO_RECIPE), "--dry-run"]) == 2
    assert "two recipes given" in capsys.readouterr().err
    assert rafs(["train", "--dry-run"]) == 2
    assert "no recipe" in capsys.readouterr().err
    assert python_m(["--max_steps", "2"]) == 2


def test_train_refuses_a_non_empty_output_dir_without_force(tmp_path, capsys, monkeypatch):
    import types

    import trainers.training.train as train_mod
    from trainers.cli import main

    calls = []

    def fake_train(recipe, **kwargs):  # no real training: the policy is what is tested
        calls.append(recipe.training.output_dir)
        return types.SimpleNamespace(state=types.SimpleNamespace(global_step=0))

    monkeypatch.setattr(train_mod, "train", fake_train)
    out = tmp_path / "run"
    out.mkdir()
    (out / "model.safetensors").write_text("weights of an earlier run")
    argv = ["train", str(GRPO_RECIPE), "--output_dir", str(out), "--report_to", "none"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "is not empty (model.safetensors)" in err and "--force" in err
    assert calls == []
    assert main(argv + ["--dry-run"]) == 0  # a dry run says so and trains nothing
    assert "a real run would stop here" in capsys.readouterr().out and calls == []
    assert main(argv + ["--force"]) == 0 and calls == [str(out)]
    assert main(argv + ["--resume_from_checkpoint", str(out / "checkpoint-1")]) == 0 and len(calls) == 2
    assert main(["train", str(GRPO_RECIPE), "--output_dir", str(tmp_path / "fresh"), "--report_to", "none"]) == 0
    assert calls[-1] == str(tmp_path / "fresh")
