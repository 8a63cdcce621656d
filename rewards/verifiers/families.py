"""Model families and the cross-family independence check between a generator and its verifiers.

A verifier that shares a family with the generator shares its biases (same pre-training data, same tokenizer,
often the same post-training recipes), so its step judgements are correlated with the generator's mistakes and the
score is inflated. The design asks for verifiers from another family; this module recognises the family of a
model from its ``config.model_type`` (or ``architectures``) and, failing that, from its name or path.

``family(x)`` accepts a name/path (``"Qwen/Qwen2.5-Math-PRM-7B"``, ``"/ckpt/llama-3-8b"``), a transformers
``PretrainedConfig``, a model (anything with a ``.config``), or a plain dict with ``model_type``. Unknown models
give ``None`` and the check then says it could not decide (it never raises for an unknown family).

>>> family("Qwen/Qwen2.5-Math-PRM-7B"), family("peiyi9979/math-shepherd-mistral-7b-prm")
('qwen', 'mistral')
>>> family({"model_type": "llama"}), family("HuggingFaceTB/SmolLM2-135M-Instruct")
('llama', 'smollm')
>>> import warnings
>>> with warnings.catch_warnings(record=True) as w:
...     warnings.simplefilter("always")
...     check_independence("Qwen/Qwen2.5-7B-Instruct", "Qwen/Qwen2.5-Math-PRM-7B")
...     len(w)
False
1
>>> check_independence("meta-llama/Llama-3.1-8B", "Qwen/Qwen2.5-Math-PRM-7B")
True
"""

from __future__ import annotations

import logging
import re
import warnings
from typing import Any, Mapping

__all__ = ["FAMILIES", "family", "check_independence", "IndependenceError", "IndependenceWarning"]

log = logging.getLogger(__name__)

# model_type (transformers) -> family. Several architectures belong to one family (qwen2, qwen2_moe, qwen3...).
_MODEL_TYPES: dict[str, str] = {
    "qwen": "qwen", "qwen2": "qwen", "qwen2_moe": "qwen", "qwen3": "qwen", "qwen3_moe": "qwen", "qwen2_vl": "qwen",
    "qwen2_5_vl": "qwen", "qwen3_next": "qwen",
    "llama": "llama", "llama4": "llama", "mllama": "llama", "code_llama": "llama",
    "mistral": "mistral", "mixtral": "mistral", "mistral3": "mistral", "ministral": "mistral",
    "gemma": "gemma", "gemma2": "gemma", "gemma3": "gemma", "gemma3n": "gemma", "recurrent_gemma": "gemma",
    "phi": "phi", "phi3": "phi", "phimoe": "phi", "phi4_multimodal": "phi",
    "deepseek_v2": "deepseek", "deepseek_v3": "deepseek",
    "gpt2": "gpt2", "gpt_neox": "pythia", "gptj": "gptj", "gpt_oss": "gpt-oss", "falcon": "falcon", "olmo": "olmo",
    "olmo2": "olmo", "olmoe": "olmo", "internlm2": "internlm", "internlm3": "internlm", "granite": "granite",
    "granitemoe": "granite", "cohere": "cohere", "cohere2": "cohere", "glm": "glm", "glm4": "glm", "chatglm": "glm",
    "yi": "yi", "baichuan": "baichuan", "starcoder2": "starcoder", "stablelm": "stablelm", "exaone": "exaone",
    "bert": "bert", "roberta": "roberta", "deberta": "deberta", "deberta-v2": "deberta", "modernbert": "modernbert",
    "electra": "electra", "bart": "bart", "t5": "t5", "mt5": "t5", "xlm-roberta": "roberta",
}

# Name patterns, checked in order: the first match wins. Specific fine-tune names come before their base family
# so that "math-shepherd-mistral" is mistral and "DeepSeek-R1-Distill-Qwen" is qwen (its weights are Qwen's).
_NAME_PATTERNS: tuple[tuple[str, str], ...] = (
    (r"distill-?qwen", "qwen"),
    (r"distill-?llama", "llama"),
    (r"smollm", "smollm"),
    (r"qwen|qwq", "qwen"),
    (r"deepseek", "deepseek"),
    (r"mistral|mixtral|ministral|codestral|mathstral", "mistral"),
    (r"llama|vicuna|alpaca|tulu", "llama"),
    (r"gemma", "gemma"),
    (r"\bphi[-_]?\d|/phi|^phi", "phi"),
    (r"gpt-oss", "gpt-oss"),
    (r"olmo", "olmo"),
    (r"internlm", "internlm"),
    (r"granite", "granite"),
    (r"command-r|cohere|aya", "cohere"),
    (r"glm", "glm"),
    (r"\byi[-_]", "yi"),
    (r"falcon", "falcon"),
    (r"deberta", "deberta"),
    (r"roberta", "roberta"),
    (r"\bbert|minilm", "bert"),
)

FAMILIES: frozenset[str] = frozenset(_MODEL_TYPES.values()) | frozenset(f for _, f in _NAME_PATTERNS)
"""Every family this module can name."""


class IndependenceWarning(UserWarning):
    """A generator and one of its verifiers come from the same model family."""


class IndependenceError(ValueError):
    """Raised by :func:`check_independence` in strict mode when the families are the same."""


def _name_family(name: str) -> str | None:
    low = name.lower()
    for pattern, fam in _NAME_PATTERNS:
        if re.search(pattern, low):
            return fam
    return None


def family(model: Any) -> str | None:
    """The family of a model name/path, config, model or dict; ``None`` when unknown.

    The name (``_name_or_path``) is read before ``model_type`` when it names a more specific family: SmolLM2 is a
    ``llama`` architecture trained by another lab, and DeepSeek-R1-Distill-Qwen is Qwen weights.
    """
    if model is None:
        return None
    if isinstance(model, str):
        return _name_family(model)
    config = getattr(model, "config", model)  # a model -> its config
    if isinstance(config, Mapping):
        model_type = config.get("model_type")
        name = config.get("_name_or_path") or config.get("name_or_path") or ""
        archs = config.get("architectures") or []
    else:
        model_type = getattr(config, "model_type", None)
        name = getattr(config, "_name_or_path", None) or getattr(config, "name_or_path", None) or ""
        archs = getattr(config, "architectures", None) or []
    by_name = _name_family(str(name)) if name else None
    if by_name is not None:
        return by_name
    if model_type and str(model_type).lower() in _MODEL_TYPES:
        return _MODEL_TYPES[str(model_type).lower()]
    for arch in archs:
        fam = _name_family(str(arch))
        if fam:
            return fam
    return None


def check_independence(generator: Any, verifier: Any, strict: bool = False) -> bool | None:
    """Whether ``generator`` and ``verifier`` come from different families.

    Returns ``True`` (independent), ``False`` (same family: warns with :class:`IndependenceWarning` and logs, or
    raises :class:`IndependenceError` when ``strict``), or ``None`` when either family is unknown (logged at INFO;
    never an error, since an unknown family is not evidence of shared bias).
    """
    g, v = family(generator), family(verifier)
    if g is None or v is None:
        log.info("independence check: family unknown (generator=%r -> %s, verifier=%r -> %s)",
                 _label(generator), g, _label(verifier), v)
        return None
    if g != v:
        return True
    message = (f"generator {_label(generator)!r} and verifier {_label(verifier)!r} are both from the {g!r} model "
               f"family: the verifier shares the generator's biases and inflates RAFS. Fix: pick a verifier from "
               f"another family (e.g. a {'Qwen' if g != 'qwen' else 'Llama'} PRM or judge), or pass strict=False "
               f"to accept the risk.")
    if strict:
        raise IndependenceError(message)
    log.warning(message)
    warnings.warn(message, IndependenceWarning, stacklevel=2)
    return False


def _label(model: Any) -> str:
    if isinstance(model, str):
        return model
    config = getattr(model, "config", model)
    if isinstance(config, Mapping):
        return str(config.get("_name_or_path") or config.get("model_type") or "?")
    return str(getattr(config, "_name_or_path", None) or getattr(config, "model_type", None) or type(model).__name__)
