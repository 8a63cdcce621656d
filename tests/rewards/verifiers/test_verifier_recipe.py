"""The verifier recipe builds its verifier, and a TRL RAFS reward scores a GRPO group through it (and pickles)."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml")
pytest.importorskip("torch")

from rewards.verifiers.fallback import FallbackVerifier  # noqa: E402
from rewards.verifiers.registry import VERIFIER_KEYS, verifier_from_config  # noqa: E402

RECIPE = Path(__file__).resolve().parents[3] / "recipes/SmolLM2-135M-Instruct/grpo/config_verifiers.yaml"


def test_recipe_verifier_keys_build_a_prm(qwen_prm_dir):
    recipe = yaml.safe_load(RECIPE.read_text())
    keys = {k for k in recipe if k.startswith(("verifier", "judge_"))}
    assert keys <= set(VERIFIER_KEYS) and recipe["verifier"] == "prm"
    # the hub checkpoint is not available offline: the same keys with a local tiny PRM in its place
    local = {**recipe, "verifier_model": qwen_prm_dir, "verifier_device": "cpu"}
    v = verifier_from_config(local)
    assert isinstance(v, FallbackVerifier) and v.timeout_s == recipe["verifier_timeout"]
    assert v.primary.independent is True  # SmolLM2 (policy) vs a Qwen PRM


def test_trl_reward_scores_a_group_with_the_prm(qwen_prm_dir):
    from rewards.adapters.trl_rewards import get_rafs_reward

    v = verifier_from_config({"verifier": "prm", "verifier_model": qwen_prm_dir, "verifier_device": "cpu"})
    reward = get_rafs_reward(verifier=v)
    prompts = ["Tom has 3 boxes of 4 pens. How many pens?"] * 2
    completions = ["3 * 4 = 12 pens.\n#### 12", "3 * 4 = 13 pens.\n#### 13"]
    values = reward(prompts=prompts, completions=completions)
    assert len(values) == 2 and all(x is None or 0.0 <= x <= 1.0 for x in values)
    clone = pickle.loads(pickle.dumps(reward))  # TRL may ship the reward to worker processes
    assert clone(prompts=prompts, completions=completions) == pytest.approx(values)
