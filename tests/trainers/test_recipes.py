"""Every recipe parses with trl.TrlParser (every key is a config-dataclass field) and through load_recipe."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

pytest.importorskip("trl")

from trainers.train import RAFSScriptArguments, detect_trainer, load_recipe  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
RECIPES = sorted(p for p in (ROOT / "recipes").glob("*/*/*.yaml") if p.parent.name in ("grpo", "rloo", "sft"))
ACCELERATE = sorted((ROOT / "recipes" / "accelerate_configs").glob("*.yaml"))


def test_the_expected_recipes_exist():
    names = {str(p.relative_to(ROOT / "recipes")) for p in RECIPES}
    assert {"SmolLM2-135M-Instruct/grpo/config_demo.yaml", "SmolLM2-135M-Instruct/rloo/config_demo.yaml",
            "SmolLM2-135M-Instruct/sft/config_filtered.yaml",
            "Qwen2.5-Math-1.5B-Instruct/grpo/config_gsm8k_vllm.yaml"} <= names
    assert {p.stem for p in ACCELERATE} >= {"ddp", "zero2", "zero3", "fsdp"}


@pytest.mark.parametrize("recipe", RECIPES, ids=lambda p: str(p.relative_to(ROOT / "recipes")))
def test_recipe_parses_with_trlparser(recipe):
    import torch
    from trl import GRPOConfig, ModelConfig, RLOOConfig, SFTConfig, TrlParser

    config_cls = {"grpo": GRPOConfig, "rloo": RLOOConfig, "sft": SFTConfig}[detect_trainer(recipe)]
    parser = TrlParser((RAFSScriptArguments, config_cls, ModelConfig))
    args = ["--config", str(recipe)]
    if not torch.cuda.is_available():  # a bf16 GPU recipe is still checked field by field on a CPU machine
        args += ["--use_cpu", "true"]
    script, training, model = parser.parse_args_and_config(args, fail_with_unknown_args=True)
    raw = yaml.safe_load(recipe.read_text())
    assert model.model_name_or_path == raw["model_name_or_path"]
    assert training.output_dir == raw["output_dir"]
    assert script.screen_policy in ("flag", "halt")
    if config_cls is not SFTConfig:
        assert script.reward_funcs == raw["reward_funcs"]
        assert training.max_completion_length == raw["max_completion_length"]


@pytest.mark.parametrize("recipe", RECIPES, ids=lambda p: str(p.relative_to(ROOT / "recipes")))
def test_recipe_loads_for_this_machine(recipe):
    loaded = load_recipe(recipe)
    assert loaded.trainer in ("grpo", "rloo", "sft")
    import torch

    if not torch.cuda.is_available():
        assert loaded.training.use_cpu and not loaded.training.bf16
        assert not getattr(loaded.training, "use_vllm", False)


def test_gpu_recipe_uses_vllm_colocate_and_bf16():
    raw = yaml.safe_load((ROOT / "recipes" / "Qwen2.5-Math-1.5B-Instruct" / "grpo" /
                          "config_gsm8k_vllm.yaml").read_text())
    assert raw["use_vllm"] is True and raw["vllm_mode"] == "colocate" and raw["bf16"] is True
    assert raw["dataset_name"] == "gsm8k"


def test_demo_recipe_fits_a_cpu():
    raw = yaml.safe_load((ROOT / "recipes" / "SmolLM2-135M-Instruct" / "grpo" / "config_demo.yaml").read_text())
    assert raw["use_cpu"] is True and raw["bf16"] is False
    assert raw["max_steps"] * raw["per_device_train_batch_size"] * raw["max_completion_length"] <= 8 * 8 * 96
    assert raw["reward_funcs"] == ["faithful_accuracy", "rafs"]


@pytest.mark.parametrize("config", ACCELERATE, ids=lambda p: p.stem)
def test_accelerate_configs(config):
    raw = yaml.safe_load(config.read_text())
    expected = {"ddp": "MULTI_GPU", "zero2": "DEEPSPEED", "zero3": "DEEPSPEED", "fsdp": "FSDP"}
    if config.stem in expected:
        assert raw["distributed_type"] == expected[config.stem]
    if config.stem.startswith("zero"):
        assert raw["deepspeed_config"]["zero_stage"] == int(config.stem[-1])
    assert raw["num_processes"] >= 1 and raw["mixed_precision"] == "bf16"


def test_verifier_keys_reach_the_rewards(monkeypatch):
    """A recipe's verifier* keys build a verifier (rewards.verifiers.registry) that every RAFS reward uses."""
    from trainers import train as train_mod

    sentinel = object()
    seen = {}

    def fake_from_config(values):
        seen.update(values)
        return sentinel

    import rewards.verifiers.registry as registry

    monkeypatch.setattr(registry, "verifier_from_config", fake_from_config)
    script = RAFSScriptArguments(verifier="prm", verifier_model="some/prm", verifier_timeout=30.0)
    funcs = train_mod.build_reward_funcs(script)
    assert seen["verifier"] == "prm" and seen["verifier_model"] == "some/prm" and seen["verifier_timeout"] == 30.0
    assert [f.__name__ for f in funcs] == ["faithful_accuracy_reward", "rafs_reward"]
    assert all(getattr(f, "verifier", None) is sentinel for f in funcs)
    assert train_mod.build_verifier(RAFSScriptArguments()) is None


def test_script_arguments_extend_trl_script_arguments_without_redeclaring_them():
    import dataclasses

    from trl import ScriptArguments, TrlParser

    assert issubclass(RAFSScriptArguments, ScriptArguments)
    ours = set(RAFSScriptArguments.__dataclass_fields__) - set(ScriptArguments.__dataclass_fields__)
    redeclared = [f.name for f in dataclasses.fields(RAFSScriptArguments)
                  if f.name in ScriptArguments.__dataclass_fields__
                  and f.metadata is not ScriptArguments.__dataclass_fields__[f.name].metadata]
    assert redeclared == []
    assert {"reward_funcs", "answer_column", "screen_probe_size", "dataset_path"} <= ours
    (script,) = TrlParser((RAFSScriptArguments,)).parse_args_into_dataclasses(
        ["--dataset_name", "gsm8k", "--dataset_train_split", "test", "--reward_funcs", "rafs", "trl.rewards.x"])
    assert (script.dataset_name, script.dataset_train_split, script.reward_funcs) == ("gsm8k", "test",
                                                                                      ["rafs", "trl.rewards.x"])
