"""Which optional extra of the ``rafs`` distribution provides a module, and the one-line message a command prints
when it is missing.

The base install (``pip install rafs``) is the scorer, the TRL-style reward functions and the light commands
(``rafs score``, ``filter`` and ``audit`` on JSONL/JSON input). The rest comes as extras (``pyproject.toml``):

==============  =====================================================  ==========================================
extra           what needs it                                          modules
==============  =====================================================  ==========================================
``tables``      CSV and parquet input                                  pandas, pyarrow
``serve``       ``rafs serve``                                         starlette, uvicorn
``judge``       ``--verifier judge`` (OpenAI-compatible endpoint)      httpx
``screen``      ``rafs screen``                                        scipy, scikit-learn, pandas, matplotlib
``eval``        ``rafs eval``                                          scikit-learn
``train``       ``rafs train``, ``demo``, ``experiment``; PRM / NLI    torch, transformers, trl, datasets, …
``embeddings``  ``RAFSConfig(embedding_weight=…)``                     sentence-transformers
``ray``         ``rafs filter --engine ray``                           ray
==============  =====================================================  ==========================================

>>> missing_extra_message(ModuleNotFoundError("No module named 'uvicorn'", name="uvicorn"), "serve")
"needs the 'serve' extra (module 'uvicorn' is not installed): pip install 'rafs[serve]'"
>>> extra_for("sklearn", "eval"), extra_for("sklearn", "screen"), extra_for("pandas", "score")
('eval', 'screen', 'tables')
>>> extra_for("no_such_module", "score") is None
True
"""

from __future__ import annotations

__all__ = ["EXTRAS", "COMMAND_EXTRAS", "extra_for", "missing_extra_message"]

# extra -> the top-level modules it installs (the import names, not the distribution names)
EXTRAS: dict[str, frozenset[str]] = {
    "tables": frozenset({"pandas", "pyarrow"}),
    "serve": frozenset({"starlette", "uvicorn"}),
    "judge": frozenset({"httpx"}),
    "eval": frozenset({"sklearn"}),
    "screen": frozenset({"scipy", "sklearn", "pandas", "matplotlib"}),
    "train": frozenset({"torch", "transformers", "trl", "datasets", "accelerate", "peft", "torchmetrics", "wandb",
                        "gguf", "scipy", "sklearn", "pandas", "matplotlib", "safetensors", "tokenizers",
                        "huggingface_hub"}),
    "embeddings": frozenset({"sentence_transformers"}),
    "ray": frozenset({"ray", "aiohttp"}),
}

# command -> the extra it needs beyond the base install (a command not listed needs none)
COMMAND_EXTRAS: dict[str, str] = {
    "serve": "serve",
    "screen": "screen",
    "eval": "eval",
    "train": "train",
    "demo": "train",
    "experiment": "train",
}


def extra_for(module: str | None, command: str | None = None) -> str | None:
    """The extra that installs ``module`` (its top-level name is used), preferring the extra ``command`` needs;
    None when no extra installs it (then the error is not a missing extra, and is not hidden)."""
    if not module:
        return None
    top = module.split(".", 1)[0]
    own = COMMAND_EXTRAS.get(command or "")
    if own is not None and top in EXTRAS[own]:
        return own
    return next((extra for extra, modules in EXTRAS.items() if top in modules), None)


def missing_extra_message(exc: ModuleNotFoundError, command: str | None = None) -> str | None:
    """The one line a command prints for ``exc`` when an extra provides the missing module, else None."""
    extra = extra_for(getattr(exc, "name", None), command)
    if extra is None:
        return None
    module = exc.name.split(".", 1)[0]
    return f"needs the {extra!r} extra (module {module!r} is not installed): pip install 'rafs[{extra}]'"
