"""Recipes: the recipe arguments (:class:`RAFSScriptArguments`) and reading a recipe YAML with ``trl.TrlParser``.

A recipe is a flat YAML file whose keys are fields of TRL's config dataclasses (``GRPOConfig``, ``RLOOConfig`` or
``SFTConfig``), of ``trl.ModelConfig`` and of :class:`RAFSScriptArguments`; ``env:`` sets environment variables
(TRL's rule). :func:`load_recipe` hands the file and the ``--key value`` overrides to
``TrlParser.parse_args_and_config`` (the overrides win over the file); before TRL sets the file's values as
defaults, :class:`RecipeParser` adapts a GPU recipe to a machine without one (:func:`adapt_for_device`). The trainer
is the recipe's ``trainer:`` key (or ``--trainer``), else the ``grpo``/``rloo``/``sft`` folder of its path.

Relative paths in a recipe (``data_dir``, ``dataset_path``, ``screen_probe_path``, a ``rafs_config`` file) resolve
against the working directory, then the repository root (:func:`resolve_path`): ``data_dir`` defaults to
``../shared/data``, the development layout with the public data beside the clone.

>>> split_cli_args(["--config", "r.yaml", "--max_steps", "2", "--force"])
('r.yaml', ['--max_steps', '2'], {'dry_run': False, 'force': True})
>>> detect_trainer("recipes/SmolLM2-135M-Instruct/rloo/config_demo.yaml")
'rloo'
>>> script = RAFSScriptArguments(rafs_config='{"tau_accept": 70}')
>>> rafs_config_source(script)
{'tau_accept': 70}
"""

from __future__ import annotations

import argparse
import json
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from trl import ModelConfig, ScriptArguments, TrlParser

if TYPE_CHECKING:
    from rewards import RAFSConfig

__all__ = ["RAFSScriptArguments", "Recipe", "RecipeParser", "TRAINERS", "DEFAULT_DATA_DIR", "REPO_ROOT",
           "DEFAULT_INSTRUCTION", "config_class", "detect_trainer", "adapt_for_device", "load_recipe",
           "split_cli_args", "resolve_path", "rafs_config_source", "rafs_config_of"]

log = logging.getLogger(__name__)

TRAINERS = ("grpo", "rloo", "sft")
#: The repository root: the second place a relative recipe path is looked for (after the working directory).
REPO_ROOT = Path(__file__).resolve().parents[2]
#: ``data_dir``'s default: the development layout, the public data sets in ``shared/data`` beside the clone.
DEFAULT_DATA_DIR = "../shared/data"
DEFAULT_INSTRUCTION = "Solve the problem step by step. Put the final answer after ####."


@dataclass
class RAFSScriptArguments(ScriptArguments):
    """Our recipe keys: ``trl.ScriptArguments`` (``dataset_name``, ``dataset_config``, ``dataset_train_split``,
    ``dataset_test_split``, ``dataset_streaming``, ``ignore_bias_buffers``) plus everything else that is not a
    TRL/transformers config field or a ``ModelConfig`` field.

    ``dataset_name`` is ``easy_arithmetic`` (built in), ``gsm8k`` (``<data_dir>/gsm8k/{train,test}.jsonl``) or
    any hub dataset (e.g. ``openai/gsm8k`` with ``dataset_config: main``); ``dataset_streaming`` is not supported
    (the data is shuffled and cut to ``max_train_samples`` in memory). ``rafs_config`` is a YAML mapping of
    ``RAFSConfig`` fields in a recipe, or (on the command line) a path to a YAML/JSON file of them or a JSON object.
    """

    trainer: str | None = field(default=None, metadata={"help": "grpo, rloo or sft (default: from the recipe path)"})
    # -- data (dataset_name, dataset_config, dataset_train_split: trl.ScriptArguments)
    data_dir: str = field(default=DEFAULT_DATA_DIR, metadata={
        "help": "folder of the local data sets (gsm8k/train.jsonl, gsm8k/test.jsonl); a relative path resolves "
                "against the working directory, then the repository root"})
    dataset_path: str | None = field(default=None, metadata={"help": "a local .jsonl/.json/.csv/.parquet file"})
    max_train_samples: int | None = field(default=None, metadata={"help": "keep the first N rows (after shuffle)"})
    prompt_column: str | None = field(default=None, metadata={
        "help": "problem column (default: the first of question, problem, prompt)"})
    answer_column: str = field(default="answer", metadata={"help": "gold column passed to the rewards"})
    conversational: bool = field(default=True, metadata={"help": "prompts as chat messages (else plain text)"})
    system_prompt: str | None = field(default=None, metadata={"help": "optional system message"})
    instruction: str = field(default=DEFAULT_INSTRUCTION, metadata={"help": "appended to every problem"})
    torch_threads: str = field(default="auto", metadata={
        "help": "torch CPU threads when training on CPU: 'auto' (1 when the machine is already busy, else every "
                "core; trainers.training.models.choose_threads) or a number"})
    # -- rewards (GRPO/RLOO)
    reward_funcs: list[str] = field(default_factory=lambda: ["faithful_accuracy", "rafs"], metadata={
        "help": "registry names of rewards.adapters.trl_rewards (rafs, faithful_accuracy, rafs_step_validity, "
                "rafs_support, rafs_consensus, rafs_stability), names of trl.rewards (accuracy_reward, "
                "think_format_reward, ...) or dotted import paths such as trl.rewards.accuracy_reward; the gold "
                "column (answer_column) reaches each under the name it asks for (e.g. solution)"})
    rafs_config: str | None = field(default=None, metadata={
        "help": "RAFSConfig fields: a YAML mapping in a recipe, or a path to a YAML/JSON file of them, or a JSON "
                "object such as '{\"tau_accept\": 70}'"})
    unfaithful_credit: float = field(default=0.5, metadata={
        "help": "faithful_accuracy reward of a correct answer with a suspect step"})
    # -- step verifier behind RAFS (rewards.verifiers.registry.VERIFIER_KEYS; default: symbolic)
    verifier: str | None = field(default=None, metadata={"help": "symbolic (default), prm, judge or nli"})
    verifier_model: str | None = field(default=None, metadata={"help": "verifier checkpoint / hub id"})
    verifier_device: str | None = field(default=None, metadata={"help": "auto, cpu, cuda, cuda:1"})
    verifier_dtype: str | None = field(default=None, metadata={"help": "auto, float32, bfloat16, float16"})
    verifier_batch_size: int | None = field(default=None, metadata={"help": "completions per verifier pass"})
    verifier_timeout: float | None = field(default=None, metadata={
        "help": "seconds per completion before the symbolic fallback"})
    verifier_generator: str | None = field(default=None, metadata={
        "help": "the policy's name, for the cross-family independence check"})
    verifier_strict_independence: bool = field(default=False, metadata={
        "help": "refuse a verifier from the policy's own family"})
    judge_base_url: str | None = field(default=None, metadata={"help": "OpenAI-compatible judge endpoint"})
    judge_api: str | None = field(default=None, metadata={"help": "judge API flavour"})
    # -- SFT filter
    filter_dataset: bool = field(default=True, metadata={"help": "SFT: filter the data with RAFS first"})
    filter_min_rafs: float | None = field(default=None, metadata={"help": "SFT filter: RAFS floor (0-100)"})
    filter_statuses: str = field(default="accept", metadata={"help": "SFT filter: statuses to keep"})
    # -- validity screen
    screen: bool = field(default=True, metadata={"help": "run the validity screen at checkpoints"})
    screen_probe_path: str | None = field(default=None, metadata={
        "help": "probe set file (.jsonl with problem/question and answer), or 'default' for the 72 distinct items "
                "shipped with the package; unset: held-out rows of the data"})
    screen_probe_size: int = field(default=30, metadata={"help": "probe items"})
    screen_every: str = field(default="save", metadata={"help": "save, evaluate or both"})
    screen_policy: str = field(default="flag", metadata={"help": "flag or halt"})
    screen_confidence: str = field(default="verbalized", metadata={
        "help": "verbalized, keep_withdraw, token_prob or rafs"})
    screen_collapse_delta: float = field(default=0.2, metadata={"help": "halt/flag when L rises by more"})
    screen_baseline: bool = field(default=True, metadata={"help": "screen the model at step 0"})
    screen_halt_on_failure: bool = field(default=False, metadata={"help": "halt when a screen fails"})
    screen_max_new_tokens: int = field(default=128, metadata={"help": "answer length bound of the probe"})
    screen_batch_size: int = field(default=16, metadata={"help": "probe generation batch size"})


@dataclass
class Recipe:
    """A parsed recipe: which trainer, and the three config objects."""

    trainer: str
    script: RAFSScriptArguments
    training: Any
    model: Any
    path: str | None = None
    adaptations: list[str] = field(default_factory=list)


def config_class(trainer: str) -> type:
    """TRL's config dataclass of a trainer: ``GRPOConfig``, ``RLOOConfig`` or ``SFTConfig``."""
    from trl import GRPOConfig, RLOOConfig, SFTConfig

    return {"grpo": GRPOConfig, "rloo": RLOOConfig, "sft": SFTConfig}[trainer]


def detect_trainer(path: str | os.PathLike | None, config: Mapping[str, Any] | None = None) -> str:
    """The recipe's ``trainer:`` key, else the ``grpo``/``rloo``/``sft`` folder (or file name) of its path."""
    value = (config or {}).get("trainer")
    if value:
        if str(value).lower() not in TRAINERS:
            raise ValueError(f"trainer={value!r} in {path}: use one of {TRAINERS}.")
        return str(value).lower()
    if path is not None:
        parts = [p.lower() for p in Path(path).parts]
        for part in reversed(parts[:-1]):
            if part in TRAINERS:
                return part
        stem = Path(path).stem.lower()
        for name in TRAINERS:
            if name in stem.split("_"):
                return name
    raise ValueError(f"cannot tell the trainer of recipe {path}: put it under a grpo/, rloo/ or sft/ folder or add "
                     "'trainer: grpo' (or rloo, sft) to it.")


def adapt_for_device(config: dict[str, Any], *, cuda: bool | None = None) -> list[str]:
    """Make a GPU recipe runnable without a GPU, in place; return what was changed (one line each).

    >>> cfg = {"bf16": True, "use_vllm": True}
    >>> adapt_for_device(cfg, cuda=False)[:2]
    ['bf16: True -> False (no GPU)', 'use_vllm: True -> False (no GPU)']
    >>> cfg["use_cpu"], cfg["activation_checkpointing"]
    (True, False)
    """
    if cuda is None:
        import torch

        cuda = torch.cuda.is_available()
    changes: list[str] = []
    if cuda:
        return changes
    for key, value in (("bf16", False), ("fp16", False), ("use_vllm", False), ("tf32", None)):
        if config.get(key) not in (None, False) and config.get(key) != value:
            changes.append(f"{key}: {config[key]!r} -> {value!r} (no GPU)")
            if value is None:
                config.pop(key)
            else:
                config[key] = value
    if not config.get("use_cpu"):
        config["use_cpu"] = True
        changes.append("use_cpu: True (no GPU)")
    for key in ("gradient_checkpointing", "activation_checkpointing"):
        if config.get(key):
            config[key] = False
            changes.append(f"{key}: True -> False (no GPU: recomputation only costs time on CPU)")
    if "gradient_checkpointing" not in config and "activation_checkpointing" not in config:
        config["activation_checkpointing"] = False  # TRL 1.16 configs default to True
        changes.append("activation_checkpointing: default True -> False (no GPU: recomputation only costs time)")
    if str(config.get("dtype", "")).lower() in ("bfloat16", "float16", "bf16", "fp16"):
        changes.append(f"dtype: {config['dtype']!r} -> 'float32' (no GPU)")
        config["dtype"] = "float32"
    if config.get("deepspeed"):
        changes.append(f"deepspeed: {config.pop('deepspeed')!r} -> removed (no GPU)")
    return changes


class RecipeParser(TrlParser):
    """``trl.TrlParser`` over (:class:`RAFSScriptArguments`, the trainer's config class, ``trl.ModelConfig``) whose
    recipe values pass through :func:`adapt_for_device` before TRL sets them as defaults.

    TRL's ``parse_args_and_config`` reads ``--config FILE`` (its ``env:`` block included) and hands the values to
    :meth:`set_defaults_with_config`, then parses the remaining ``--key value`` arguments, which therefore win over
    the file. A bad value raises ``argparse.ArgumentError`` (one line) instead of exiting, and a key must be
    spelled in full on the command line as in the file (``--max_step`` is unknown, not ``--max_steps``).
    ``adaptations`` lists what the device adaptation changed.

    >>> gpu_recipe = REPO_ROOT / "recipes" / "Qwen2.5-Math-1.5B-Instruct" / "grpo" / "config_gsm8k_vllm.yaml"
    >>> parser = RecipeParser("grpo", cuda=False)
    >>> args = ["--config", str(gpu_recipe), "--max_steps", "3", "--report_to", "none"]
    >>> import contextlib, io
    >>> with contextlib.redirect_stdout(io.StringIO()):  # transformers prints a line on import if WANDB_MODE=offline
    ...     script, training, model = parser.parse_args_and_config(args)
    >>> (type(training).__name__, training.max_steps, training.bf16, training.use_cpu, script.reward_funcs)
    ('GRPOConfig', 3, False, True, ['faithful_accuracy', 'rafs'])
    >>> parser.adaptations[0]
    'bf16: True -> False (no GPU)'
    """

    def __init__(self, trainer: str, *, adapt: bool = True, cuda: bool | None = None):
        super().__init__((RAFSScriptArguments, config_class(trainer), ModelConfig), exit_on_error=False,
                         allow_abbrev=False)
        self.trainer, self.adapt, self.cuda = trainer, adapt, cuda
        self.adaptations: list[str] = []

    def set_defaults_with_config(self, **values: Any) -> list[str]:
        values["trainer"] = self.trainer
        self.adaptations = adapt_for_device(values, cuda=self.cuda) if self.adapt else []
        return super().set_defaults_with_config(**values)


def _cli_value(tokens: Sequence[str], flag: str) -> str | None:
    """The value of the last ``flag VALUE`` / ``flag=VALUE`` among ``tokens``."""
    value = None
    for i, token in enumerate(tokens):
        if token == flag and i + 1 < len(tokens):
            value = tokens[i + 1]
        elif token.startswith(flag + "="):
            value = token.split("=", 1)[1]
    return value


def load_recipe(path: str | os.PathLike, overrides: Sequence[str] = (), *, adapt: bool = True,
                cuda: bool | None = None) -> Recipe:
    """Parse a recipe with ``trl.TrlParser.parse_args_and_config``; ``overrides`` are ``--key value`` pairs that
    win over the file. The ``rafs_config`` is checked here too (:func:`rafs_config_of`).

    Raises a one-line ``ValueError`` for an unreadable recipe, a key that is no field of the config dataclasses,
    an unknown override or a bad override value, and ``FileNotFoundError`` for a missing recipe.
    """
    import yaml

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"recipe {path} does not exist; see recipes/ for examples.")
    try:  # read once to pick the config class (trainer: key or folder); TRL reads the file again to parse it
        raw = yaml.safe_load(path.read_text())
    except yaml.YAMLError as exc:
        raise ValueError(f"recipe {path} is not valid YAML: {' '.join(str(exc).split())}") from None
    if not isinstance(raw, dict):
        raise ValueError(f"recipe {path} must be a YAML mapping of config fields, got {type(raw).__name__}.")
    overrides = [str(t) for t in overrides]
    if "--config" in overrides or any(t.startswith("--config=") for t in overrides):
        raise ValueError(f"overrides {overrides} name another --config; give one recipe.")
    cli_trainer = _cli_value(overrides, "--trainer")
    trainer = detect_trainer(path, {"trainer": cli_trainer} if cli_trainer else raw)
    parser = RecipeParser(trainer, adapt=adapt, cuda=cuda)
    try:
        script, training, model, from_file, from_cli = parser.parse_args_and_config(
            ["--config", str(path), *overrides], return_remaining_strings=True, separate_remaining_strings=True)
    except argparse.ArgumentError as exc:
        raise ValueError(f"bad override: {exc}; overrides are --<field> <value> pairs of the recipe's config "
                         "fields (e.g. --max_steps 2).") from None
    if from_file:
        unknown = sorted({s[2:] for s in from_file[::2]})
        raise ValueError(f"recipe {path}: unknown key(s) {unknown}; every key must be a field of "
                         f"{config_class(trainer).__name__}, trl.ModelConfig or trainers.training.recipes.RAFSScriptArguments "
                         "(check the spelling, or remove the key).")
    if from_cli:
        raise ValueError(f"unknown override(s) {from_cli}: overrides are --<field> <value> pairs of "
                         f"{config_class(trainer).__name__}, trl.ModelConfig or RAFSScriptArguments fields "
                         "(e.g. --max_steps 2).")
    script.trainer = trainer
    rafs_config_of(script)  # a bad rafs_config fails here, before any model is loaded
    for line in parser.adaptations:
        log.warning("recipe %s adapted: %s", path.name, line)
    return Recipe(trainer=trainer, script=script, training=training, model=model, path=str(path),
                  adaptations=list(parser.adaptations))


def split_cli_args(argv: Sequence[str]) -> tuple[str | None, list[str], dict[str, bool]]:
    """``RECIPE.yaml [--key value ...]`` or ``--config RECIPE.yaml [--key value ...]`` (TRL's form; ``--config``
    may come anywhere) -> (recipe, overrides, flags) where flags are ``--dry-run`` and ``--force``.

    >>> split_cli_args(["r.yaml", "--dry-run"])
    ('r.yaml', [], {'dry_run': True, 'force': False})
    """
    rest = [a for a in argv if a != "--"]
    flags = {"dry_run": False, "force": False}
    for flag, key in (("--dry-run", "dry_run"), ("--dry_run", "dry_run"), ("--force", "force")):
        while flag in rest:
            rest.remove(flag)
            flags[key] = True
    recipe = None
    for i, token in enumerate(rest):
        if token == "--config":
            if i + 1 >= len(rest):
                raise ValueError("--config needs a recipe file, e.g. --config recipes/SmolLM2-135M-Instruct/grpo/"
                                 "config_demo.yaml")
            recipe = rest[i + 1]
            rest = rest[:i] + rest[i + 2:]
            break
        if token.startswith("--config="):
            recipe = token.split("=", 1)[1]
            rest = rest[:i] + rest[i + 1:]
            break
    if rest and not rest[0].startswith("-"):
        if recipe is not None:
            raise ValueError(f"two recipes given ({rest[0]}, --config {recipe}); give one, positionally or with "
                             "--config")
        recipe, rest = rest[0], rest[1:]
    return recipe, rest, flags


def resolve_path(value: str | os.PathLike, flag: str, *, kind: str = "file") -> Path:
    """A recipe's path argument: absolute as given; relative, against the working directory, then the repository
    root. A missing path is a one-line ``ValueError`` that names ``flag`` (``kind``: ``file`` or ``folder``).

    >>> resolve_path("recipes", "--x", kind="folder").samefile(REPO_ROOT / "recipes")
    True
    >>> resolve_path("no/such.jsonl", "--dataset_path")
    Traceback (most recent call last):
    ...
    ValueError: --dataset_path no/such.jsonl: no such file (looked in the working directory and the repository \
root); pass an existing file.
    """
    p = Path(value).expanduser()
    candidates = [p] if p.is_absolute() else [Path.cwd() / p, REPO_ROOT / p]
    for candidate in candidates:
        if candidate.is_dir() if kind == "folder" else candidate.is_file():
            return candidate
    where = "" if p.is_absolute() else " (looked in the working directory and the repository root)"
    raise ValueError(f"{flag} {value}: no such {kind}{where}; pass an existing {kind}.")


def rafs_config_source(script: RAFSScriptArguments) -> Mapping[str, Any] | str | None:
    """What the recipe's ``rafs_config`` names: a mapping (a YAML mapping, or a JSON object given as a string on
    the command line or in an old recipe), a path to a YAML/JSON file, or ``None``."""
    value: Any = script.rafs_config
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, Mapping):
        return value
    text = str(value).strip()
    if text.startswith("{"):
        try:
            parsed = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"rafs_config={text!r} is not a JSON object ({exc}); write a YAML mapping in the "
                             "recipe, a path to a YAML/JSON file, or e.g. '{\"tau_accept\": 70}'.") from None
        if not isinstance(parsed, dict):
            raise ValueError(f"rafs_config={text!r} must be a mapping of RAFSConfig fields.")
        return parsed
    return str(resolve_path(text, "--rafs_config"))


def rafs_config_of(script: RAFSScriptArguments) -> "RAFSConfig | None":
    """The recipe's ``RAFSConfig`` through :func:`trainers.common.config.load_rafs_config` (the loader every command
    uses; unknown keys are named), or ``None`` when the recipe sets none (the rewards' own defaults). Errors are
    one-line ``ValueError``\\ s."""
    source = rafs_config_source(script)
    if source is None:
        return None
    from trainers.common.errors import CommandError
    from trainers.common.config import load_rafs_config

    try:
        return load_rafs_config(source, flag="--rafs_config")
    except (CommandError, TypeError) as exc:
        raise ValueError(f"rafs_config: {str(exc).splitlines()[0]}") from None
