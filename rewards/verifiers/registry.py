"""Build a step verifier by name: ``symbolic | prm | judge | nli``, plus the CLI helpers for ``rafs score``.

``build_verifier(name, model=None, **config)`` returns a :class:`~rewards.verifiers.base.StepVerifier`:

* ``symbolic`` — :class:`~rewards.verifiers.symbolic.SymbolicVerifier` (``config``: :class:`SymbolicConfig` fields);
* ``prm`` — :class:`~rewards.verifiers.prm.PRMVerifier` (``config``: :class:`PRMConfig` fields);
* ``judge`` — :class:`~rewards.verifiers.judge.JudgeVerifier`; ``model`` may be an ``http(s)://`` URL, which
  becomes ``base_url`` (``config``: :class:`JudgeConfig` fields);
* ``nli`` — :class:`~rewards.verifiers.nli.NLIVerifier` (``config``: :class:`NLIConfig` fields).

Model-backed verifiers are wrapped in :class:`~rewards.verifiers.fallback.FallbackVerifier` (deadline
``fallback_timeout_s``, default 60 s; ``fallback=False`` returns the bare verifier) so that a failing model degrades
to the symbolic checker during training. Construction errors (missing checkpoint, unreachable endpoint, tokenizer
without the step token) are raised at once, never deferred to scoring.

>>> build_verifier("symbolic").name
'symbolic'
>>> build_verifier("oracle")
Traceback (most recent call last):
...
ValueError: verifier='oracle' is not known; use one of symbolic, prm, judge, nli.

CLI (the lead's ``trainers/cli/commands/score.py``)::

    add_verifier_arguments(parser)          # --verifier, --verifier-model, ...
    verifier = verifier_from_args(args)     # -> StepVerifier for score_trace(..., verifier=verifier)

Recipes (flat YAML): the keys of :data:`VERIFIER_KEYS` (the argparse destinations), e.g. ``verifier: prm`` and
``verifier_model: Qwen/Qwen2.5-Math-PRM-7B``; ``verifier_from_config(recipe_dict)`` reads them and ignores the rest.
"""

from __future__ import annotations

import argparse
from typing import Any, Mapping

from rewards.verifiers.base import StepVerifier

__all__ = ["VERIFIERS", "VERIFIER_KEYS", "build_verifier", "add_verifier_arguments", "verifier_from_args",
           "verifier_from_config"]

VERIFIERS = ("symbolic", "prm", "judge", "nli")

VERIFIER_KEYS = ("verifier", "verifier_model", "verifier_device", "verifier_dtype", "verifier_batch_size",
                 "verifier_timeout", "verifier_generator", "verifier_strict_independence", "judge_base_url",
                 "judge_api")
"""The flat recipe keys (and argparse destinations) that describe a verifier."""


def build_verifier(name: str, model: str | None = None, *, fallback: bool = True, fallback_timeout_s: float = 60.0,
                   **config: Any) -> StepVerifier:
    """A verifier by name; ``config`` holds the fields of that verifier's config dataclass.

    Args:
        name: ``symbolic``, ``prm``, ``judge`` or ``nli``.
        model: checkpoint directory / hub id (``prm``, ``nli``, in-process ``judge``), or an endpoint URL (``judge``).
        fallback: wrap a model-backed verifier in :class:`FallbackVerifier` (symbolic fallback).
        fallback_timeout_s: the wrapper's deadline per trace.
    """
    key = str(name).strip().lower()
    if key not in VERIFIERS:
        raise ValueError(f"verifier={name!r} is not known; use one of {', '.join(VERIFIERS)}.")
    if key == "symbolic":
        from rewards.verifiers.symbolic import SymbolicConfig, SymbolicVerifier

        if model:
            raise ValueError(f"verifier='symbolic' takes no model (got model={model!r}); drop --verifier-model or "
                             f"pick --verifier prm|judge|nli.")
        return SymbolicVerifier(SymbolicConfig(**config))
    if key == "prm":
        from rewards.verifiers.prm import PRMVerifier as cls
    elif key == "judge":
        from rewards.verifiers.judge import JudgeVerifier as cls

        if model and str(model).startswith(("http://", "https://")):
            config.setdefault("base_url", model)
            model = None
    else:
        from rewards.verifiers.nli import NLIVerifier as cls
    if model:
        config["model"] = model
    verifier = cls(**config)
    if not fallback:
        return verifier
    from rewards.verifiers.fallback import FallbackVerifier

    return FallbackVerifier(verifier, timeout_s=fallback_timeout_s)


def add_verifier_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Add ``--verifier`` and its options to ``parser`` (an argument group "step verifier")."""
    group = parser.add_argument_group("step verifier")
    group.add_argument("--verifier", choices=VERIFIERS, default="symbolic",
                       help="step verifier: symbolic (default, no model), prm, judge or nli")
    group.add_argument("--verifier-model", default=None, metavar="PATH",
                       help="checkpoint directory or hub id of the PRM/judge/NLI model; for the judge also an "
                            "OpenAI-compatible endpoint URL (http://host:8000/v1)")
    group.add_argument("--verifier-device", default=None, help="auto (default), cpu, cuda, cuda:1, mps")
    group.add_argument("--verifier-dtype", default=None, help="auto (default), float32, bfloat16, float16")
    group.add_argument("--verifier-batch-size", type=int, default=None, help="traces/prompts per forward pass")
    group.add_argument("--verifier-timeout", type=float, default=60.0,
                       help="seconds per trace before falling back to the symbolic verifier (0: no fallback)")
    group.add_argument("--judge-base-url", default=None, help="OpenAI-compatible endpoint root including /v1")
    group.add_argument("--judge-api", choices=("completions", "chat"), default=None)
    group.add_argument("--verifier-generator", default=None, metavar="NAME",
                       help="the generator's name/path, for the cross-family independence check")
    group.add_argument("--verifier-strict-independence", action="store_true",
                       help="refuse a verifier from the generator's model family (default: warn)")
    return parser


def verifier_from_args(args: argparse.Namespace) -> StepVerifier:
    """The verifier ``add_verifier_arguments`` options describe."""
    name = getattr(args, "verifier", "symbolic") or "symbolic"
    if name == "symbolic":
        return build_verifier("symbolic", getattr(args, "verifier_model", None))
    config: dict[str, Any] = {}
    for arg, field_name in (("verifier_device", "device"), ("verifier_dtype", "dtype"),
                            ("verifier_batch_size", "batch_size"), ("verifier_generator", "generator")):
        value = getattr(args, arg, None)
        if value is not None:
            config[field_name] = value
    if getattr(args, "verifier_strict_independence", False):
        config["strict_independence"] = True
    if name == "judge":
        if getattr(args, "judge_base_url", None):
            config["base_url"] = args.judge_base_url
        if getattr(args, "judge_api", None):
            config["api"] = args.judge_api
    elif getattr(args, "judge_base_url", None) or getattr(args, "judge_api", None):
        raise ValueError(f"--judge-base-url/--judge-api apply to --verifier judge, not --verifier {name}.")
    model = getattr(args, "verifier_model", None)
    if not model and not config.get("base_url"):
        raise ValueError(f"--verifier {name} needs --verifier-model PATH (a checkpoint directory or hub id"
                         f"{', or --judge-base-url' if name == 'judge' else ''}).")
    timeout = getattr(args, "verifier_timeout", 60.0)
    return build_verifier(name, model, fallback=bool(timeout and timeout > 0),
                          fallback_timeout_s=timeout if timeout and timeout > 0 else 60.0, **config)


def verifier_from_config(config: Mapping[str, Any]) -> StepVerifier:
    """The verifier a flat recipe describes (keys of :data:`VERIFIER_KEYS`; other keys are ignored).

    >>> verifier_from_config({"learning_rate": 1e-5}).name
    'symbolic'
    """
    unknown = sorted(k for k in config
                     if (k.startswith("verifier") or k.startswith("judge_")) and k not in VERIFIER_KEYS)
    if unknown:
        raise ValueError(f"unknown verifier key(s) {unknown} in the recipe; known keys: {list(VERIFIER_KEYS)}.")
    values = {k: config.get(k) for k in VERIFIER_KEYS}
    values["verifier"] = values["verifier"] or "symbolic"
    if values["verifier_timeout"] is None:
        values["verifier_timeout"] = 60.0
    return verifier_from_args(argparse.Namespace(**values))
