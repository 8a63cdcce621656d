"""Model-family recognition and the generator/verifier independence check."""

from __future__ import annotations

import warnings

import pytest

from rewards.verifiers.families import IndependenceError, IndependenceWarning, check_independence, family


@pytest.mark.parametrize("name, fam", [
    ("Qwen/Qwen2.5-Math-PRM-7B", "qwen"),
    ("Qwen/QwQ-32B", "qwen"),
    ("peiyi9979/math-shepherd-mistral-7b-prm", "mistral"),
    ("mistralai/Mixtral-8x7B-Instruct-v0.1", "mistral"),
    ("meta-llama/Llama-3.1-8B-Instruct", "llama"),
    ("google/gemma-2-9b-it", "gemma"),
    ("microsoft/Phi-3-mini-4k-instruct", "phi"),
    ("deepseek-ai/deepseek-math-7b-rl", "deepseek"),
    ("deepseek-ai/DeepSeek-R1-Distill-Qwen-7B", "qwen"),
    ("HuggingFaceTB/SmolLM2-135M-Instruct", "smollm"),
    ("/ckpt/run-17/step-400", None),
])
def test_family_from_names(name, fam):
    assert family(name) == fam


def test_family_from_configs_and_models():
    pytest.importorskip("transformers")
    from transformers import LlamaConfig, Qwen2Config

    assert family(Qwen2Config()) == "qwen"
    assert family(LlamaConfig()) == "llama"
    assert family({"model_type": "gemma2"}) == "gemma"
    assert family({"model_type": "llama", "_name_or_path": "HuggingFaceTB/SmolLM2-135M"}) == "smollm"

    class Model:
        config = {"model_type": "mistral"}

    assert family(Model()) == "mistral"
    assert family({"model_type": "unknown_arch"}) is None and family(None) is None


def test_check_independence_warns_raises_or_abstains():
    assert check_independence("meta-llama/Llama-3.1-8B", {"model_type": "qwen2"}) is True
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert check_independence({"model_type": "qwen2"}, "Qwen/Qwen2.5-Math-PRM-7B") is False
    assert len(caught) == 1 and issubclass(caught[0].category, IndependenceWarning)
    assert "qwen" in str(caught[0].message) and "Fix" in str(caught[0].message)
    with pytest.raises(IndependenceError, match="both from the 'llama' model family"):
        check_independence("meta-llama/Llama-3.1-8B", "meta-llama/Llama-3.1-70B-Instruct", strict=True)
    assert check_independence("/ckpt/unknown", "Qwen/Qwen2.5-Math-PRM-7B", strict=True) is None
