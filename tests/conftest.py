"""Shared test fixtures: offline environment and a session-scoped tiny random causal LM (built locally).

Heavy imports happen inside the fixtures, so test modules that do not use them pay nothing.
"""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("WANDB_MODE", "offline")
os.environ.setdefault("WANDB_SILENT", "true")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


@pytest.fixture(scope="session")
def tiny_model_path(tmp_path_factory) -> str:
    """A tiny random LlamaForCausalLM (hidden 32, 2 layers) with a BPE tokenizer, chat template, pad and eos."""
    pytest.importorskip("transformers")
    from trainers.models import build_tiny_model

    return build_tiny_model(tmp_path_factory.mktemp("tiny_llama"), arch="llama")


@pytest.fixture(scope="session")
def tiny_qwen2_path(tmp_path_factory) -> str:
    """The same, as a Qwen2ForCausalLM."""
    pytest.importorskip("transformers")
    from trainers.models import build_tiny_model

    return build_tiny_model(tmp_path_factory.mktemp("tiny_qwen2"), arch="qwen2")
