"""Every recipe parses with trl.TrlParser (every key is a config-dataclass field) and through load_recipe."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

pytest.importorskip("trl")

from trainers.training.recipes import RAFSScriptArguments, detect_trainer, load_recipe  # noqa: E402

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
    from trainers.training import reward_choice as train_mod

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


# ---------------------------------------------------------------------- rafs_config, overrides (trl.TrlParser)

def _grpo_recipe(tmp_path: Path, extra: str = "") -> Path:
    path = tmp_path / "grpo" / "config_x.yaml"
    path.parent.mkdir(exist_ok=True)
    path.write_text("model_name_or_path: x\ndataset_name: easy_arithmetic\nreward_funcs: [faithful_accuracy, rafs]\n"
                    "use_cpu: true\nbf16: false\nreport_to: none\n" + extra)
    return path


def test_rafs_config_as_a_yaml_mapping_a_file_or_json_reaches_every_reward(tmp_path, monkeypatch):
    from trainers.training.recipes import rafs_config_of
    from trainers.training.reward_choice import build_reward_funcs

    recipe = load_recipe(_grpo_recipe(tmp_path, "rafs_config:\n  tau_accept: 70\n  theta_step: 0.4\n"))
    assert isinstance(recipe.script.rafs_config, dict)  # the YAML mapping survives TrlParser as a mapping
    funcs = build_reward_funcs(recipe.script)
    assert [(f.config.tau_accept, f.config.theta_step) for f in funcs] == [(70.0, 0.4), (70.0, 0.4)]
    assert all(f.config.missing_evidence == "no_support" for f in funcs)  # the reward default is kept

    (tmp_path / "rafs.yaml").write_text("tau_accept: 75\n")
    (tmp_path / "rafs.json").write_text('{"tau_accept": 85}')
    monkeypatch.chdir(tmp_path)  # a relative file path resolves against the working directory
    recipe = load_recipe(_grpo_recipe(tmp_path), ["--rafs_config", "rafs.yaml"])
    assert rafs_config_of(recipe.script).tau_accept == 75.0
    recipe = load_recipe(_grpo_recipe(tmp_path), ["--rafs_config", str(tmp_path / "rafs.json")])
    assert rafs_config_of(recipe.script).tau_accept == 85.0
    recipe = load_recipe(_grpo_recipe(tmp_path), ["--rafs_config", '{"tau_accept": 80}'])  # the old JSON form
    assert [f.config.tau_accept for f in build_reward_funcs(recipe.script)] == [80.0, 80.0]
    assert rafs_config_of(load_recipe(_grpo_recipe(tmp_path)).script) is None  # none set: the rewards' defaults


@pytest.mark.parametrize("extra,overrides,message", [
    ("rafs_config:\n  tau_acept: 70\n", [], "rafs_config: unknown config key 'tau_acept' in the mapping given; "
                                            "did you mean 'tau_accept'?"),
    ("rafs_config:\n  tau_accept: 170\n", [], "rafs_config: RAFSConfig.tau_accept=170.0 is outside [0, 100]"),
    ("", ["--rafs_config", "no/such/rafs.yaml"], "--rafs_config no/such/rafs.yaml: no such file"),
    ("", ["--max_steps", "abc"], "bad override: argument --max_steps/--max-steps: invalid int value: 'abc'"),
    ("", ["--max_step", "2"], "unknown override(s) ['--max_step', '2']"),
])
def test_bad_rafs_config_or_override_is_one_line_before_anything_loads(tmp_path, extra, overrides, message):
    with pytest.raises(ValueError) as info:
        load_recipe(_grpo_recipe(tmp_path, extra), overrides)
    assert message in str(info.value) and len(str(info.value).splitlines()) == 1, str(info.value)


def test_rafs_train_dry_run_names_a_bad_rafs_config_key(tmp_path, capsys):
    from trainers.cli import main

    assert main(["train", str(_grpo_recipe(tmp_path, "rafs_config: {tau_acept: 70}\n")), "--dry-run"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "unknown config key 'tau_acept'" in err, err
    assert main(["train", str(_grpo_recipe(tmp_path, "rafs_config: {tau_accept: 70}\n")), "--dry-run"]) == 0
    assert "'tau_accept': 70.0" in capsys.readouterr().out  # the resolved RAFSConfig is printed


def test_overrides_win_over_the_file_and_env_is_set(tmp_path, monkeypatch):
    import os

    monkeypatch.delenv("RAFS_RECIPE_TEST_VAR", raising=False)
    path = _grpo_recipe(tmp_path, "max_steps: 7\nenv:\n  RAFS_RECIPE_TEST_VAR: on\n")
    assert load_recipe(path).training.max_steps == 7
    assert os.environ["RAFS_RECIPE_TEST_VAR"] == "True"  # TRL's env: block (YAML reads `on` as true)
    monkeypatch.delenv("RAFS_RECIPE_TEST_VAR")
    assert load_recipe(path, ["--max_steps", "2"]).training.max_steps == 2
    recipe = load_recipe(path, ["--trainer", "rloo"])
    assert recipe.trainer == "rloo" and type(recipe.training).__name__ == "RLOOConfig"
