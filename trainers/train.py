"""Train with RAFS rewards (GRPO, RLOO) or on RAFS-filtered data (SFT) from a recipe.

A recipe is a flat YAML file whose keys are the fields of TRL's config dataclasses (``GRPOConfig``,
``RLOOConfig`` or ``SFTConfig``), of TRL's ``ModelConfig`` (``model_name_or_path``, ``use_peft``, ``lora_r`` …)
and of :class:`RAFSScriptArguments` (dataset, reward functions, RAFS config, the validity screen). It is parsed
by ``trl.TrlParser``, so every key must be a field of one of those dataclasses; ``env:`` sets environment
variables. The trainer is the recipe's ``trainer:`` key, else the ``grpo``/``rloo``/``sft`` folder of its path.

On one machine::

    rafs train recipes/SmolLM2-135M-Instruct/grpo/config_demo.yaml --max_steps 2 --output_dir runs/try

On several GPUs::

    accelerate launch --config_file recipes/accelerate_configs/zero2.yaml -m trainers.train \\
        recipes/Qwen2.5-Math-1.5B-Instruct/grpo/config_gsm8k_vllm.yaml

Without a GPU the recipe is adapted (``use_cpu=True``, ``bf16``/``fp16``/``use_vllm`` off) and the changes are
logged. From Python:

>>> from trainers.train import load_recipe, build_trainer          # doctest: +SKIP
>>> recipe = load_recipe("recipes/SmolLM2-135M-Instruct/grpo/config_demo.yaml", ["--max_steps", "2"])
>>> trainer = build_trainer(recipe)                                  # doctest: +SKIP
>>> trainer.train()                                                  # doctest: +SKIP
"""

from __future__ import annotations

import json
import logging
import os
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

__all__ = ["RAFSScriptArguments", "Recipe", "TRAINERS", "DATASETS", "load_recipe", "adapt_for_device",
           "detect_trainer", "load_train_dataset", "easy_arithmetic", "load_probe_set", "build_trainer",
           "build_reward_funcs", "build_verifier",
           "build_screen_callback", "configure_wandb", "train", "main"]

log = logging.getLogger(__name__)

TRAINERS = ("grpo", "rloo", "sft")
REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"
DEFAULT_INSTRUCTION = "Solve the problem step by step. Put the final answer after ####."


@dataclass
class RAFSScriptArguments:
    """Our recipe keys (everything that is not a TRL/transformers config field or a ``ModelConfig`` field)."""

    trainer: str | None = field(default=None, metadata={"help": "grpo, rloo or sft (default: from the recipe path)"})
    # -- data
    dataset_name: str | None = field(default=None, metadata={
        "help": "'easy_arithmetic' (built in), 'gsm8k' (../shared/data/gsm8k when present), or a hub dataset"})
    dataset_config: str | None = field(default=None, metadata={"help": "hub dataset config, e.g. 'main'"})
    dataset_path: str | None = field(default=None, metadata={"help": "a local .jsonl/.json/.csv/.parquet file"})
    dataset_train_split: str = field(default="train", metadata={"help": "split to train on"})
    max_train_samples: int | None = field(default=None, metadata={"help": "keep the first N rows (after shuffle)"})
    prompt_column: str | None = field(default=None, metadata={
        "help": "problem column (default: the first of question, problem, prompt)"})
    answer_column: str = field(default="answer", metadata={"help": "gold column passed to the rewards"})
    conversational: bool = field(default=True, metadata={"help": "prompts as chat messages (else plain text)"})
    system_prompt: str | None = field(default=None, metadata={"help": "optional system message"})
    instruction: str = field(default=DEFAULT_INSTRUCTION, metadata={"help": "appended to every problem"})
    # -- rewards (GRPO/RLOO)
    reward_funcs: list[str] = field(default_factory=lambda: ["faithful_accuracy", "rafs"], metadata={
        "help": "registry names of rewards.adapters.trl_rewards (rafs, faithful_accuracy, rafs_step_validity, "
                "rafs_support, rafs_consensus, rafs_stability) or dotted import paths"})
    rafs_config: str | None = field(default=None, metadata={
        "help": "RAFSConfig fields as a JSON object (or a YAML mapping in a recipe), e.g. '{\"tau_accept\": 70}'"})
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
        "help": "probe set file (.jsonl with problem/question and answer); default: held-out rows of the data"})
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


def _config_class(trainer: str):
    from trl import GRPOConfig, RLOOConfig, SFTConfig

    return {"grpo": GRPOConfig, "rloo": RLOOConfig, "sft": SFTConfig}[trainer]


def detect_trainer(path: str | os.PathLike | None, config: dict[str, Any] | None = None) -> str:
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
    """Make a GPU recipe runnable without a GPU, in place; return what was changed (one line each)."""
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


def _parser(trainer: str):
    from trl import ModelConfig, TrlParser

    return TrlParser((RAFSScriptArguments, _config_class(trainer), ModelConfig))


def load_recipe(path: str | os.PathLike, overrides: Sequence[str] = (), *, adapt: bool = True,
                cuda: bool | None = None) -> Recipe:
    """Parse a recipe with ``trl.TrlParser``; ``overrides`` are ``--key value`` pairs that win over the file.

    Raises ``ValueError`` for an unreadable recipe or a key that is no field of the config dataclasses.
    """
    import yaml

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"recipe {path} does not exist; see recipes/ for examples.")
    config = yaml.safe_load(path.read_text())
    if not isinstance(config, dict):
        raise ValueError(f"recipe {path} must be a YAML mapping of config fields, got {type(config).__name__}.")
    for key, value in dict(config.pop("env", None) or {}).items():
        os.environ.setdefault(str(key), str(value))
    overrides = list(overrides)
    for i, token in enumerate(overrides[:-1]):
        if token == "--trainer":
            config["trainer"] = overrides[i + 1]
        elif token.startswith("--trainer="):
            config["trainer"] = token.split("=", 1)[1]
    if overrides and overrides[-1].startswith("--trainer="):
        config["trainer"] = overrides[-1].split("=", 1)[1]
    trainer = detect_trainer(path, config)
    config["trainer"] = trainer
    if isinstance(config.get("rafs_config"), dict):
        config["rafs_config"] = json.dumps(config["rafs_config"])
    adaptations = adapt_for_device(config, cuda=cuda) if adapt else []
    parser = _parser(trainer)
    remaining = parser.set_defaults_with_config(**config)
    if remaining:
        unknown = sorted({s[2:] for s in remaining[::2]})
        raise ValueError(f"recipe {path}: unknown key(s) {unknown}; every key must be a field of "
                         f"{_config_class(trainer).__name__}, trl.ModelConfig or trainers.train.RAFSScriptArguments "
                         "(check the spelling, or remove the key).")
    script, training, model = parser.parse_args_into_dataclasses(args=list(overrides))
    script.trainer = trainer
    for line in adaptations:
        log.warning("recipe %s adapted: %s", path.name, line)
    return Recipe(trainer=trainer, script=script, training=training, model=model, path=str(path),
                  adaptations=adaptations)


# ------------------------------------------------------------------------------------------------------------------
# Data
# ------------------------------------------------------------------------------------------------------------------

_NAMES = ["Sam", "Ana", "Tom", "Mia", "Leo", "Zoe", "Max", "Eva"]
_THINGS = ["apples", "pens", "books", "coins", "cards", "shells", "stickers", "marbles"]


def easy_arithmetic(n: int = 200, seed: int = 0) -> list[dict[str, str]]:
    """GSM8K-style one-step problems small models can solve, with worked solutions ending in ``#### X``.

    >>> easy_arithmetic(1, seed=1)[0]["answer"].splitlines()[-1].startswith("####")
    True
    """
    rng = random.Random(seed)
    rows = []
    for _ in range(n):
        a, b = rng.randint(1, 9), rng.randint(1, 9)
        name, thing = rng.choice(_NAMES), rng.choice(_THINGS)
        kind = rng.random()
        if kind < 0.4:
            q, expr, v = f"What is {a} + {b}?", f"{a} + {b}", a + b
        elif kind < 0.75:
            q = f"{name} has {a} {thing} and gets {b} more. How many {thing} does {name} have now?"
            expr, v = f"{a} + {b}", a + b
        else:
            a, b = max(a, b) + 1, min(a, b)
            q = f"{name} has {a} {thing} and gives away {b}. How many {thing} are left?"
            expr, v = f"{a} - {b}", a - b
        rows.append({"question": q, "answer": f"{expr} = <<{expr.replace(' ', '')}={v}>>{v}\n#### {v}"})
    return rows


def _gsm8k(split: str) -> Any:
    from datasets import load_dataset

    local = SHARED_DATA / "gsm8k" / f"{'test' if split == 'test' else 'train'}.jsonl"
    if local.is_file():
        return load_dataset("json", data_files=str(local), split="train")
    return load_dataset("openai/gsm8k", "main", split=split)


DATASETS = {"easy_arithmetic": lambda split: __import__("datasets").Dataset.from_list(
    easy_arithmetic(400, seed=0 if split == "train" else 1)), "gsm8k": _gsm8k, "openai/gsm8k": _gsm8k}


def _load_raw(script: RAFSScriptArguments) -> Any:
    from datasets import load_dataset

    if script.dataset_path:
        p = Path(script.dataset_path)
        if not p.is_absolute() and not p.exists() and (REPO_ROOT / p).exists():
            p = REPO_ROOT / p
        builder = {".jsonl": "json", ".json": "json", ".csv": "csv", ".parquet": "parquet"}.get(p.suffix)
        if builder is None or not p.is_file():
            raise ValueError(f"dataset_path={script.dataset_path!r}: give an existing .jsonl, .json, .csv or "
                             ".parquet file.")
        return load_dataset(builder, data_files=str(p), split="train")
    if script.dataset_name in DATASETS:
        return DATASETS[script.dataset_name](script.dataset_train_split)
    if script.dataset_name:
        return load_dataset(script.dataset_name, script.dataset_config, split=script.dataset_train_split)
    raise ValueError("the recipe names no data: set dataset_name (e.g. easy_arithmetic, gsm8k or a hub dataset) "
                     "or dataset_path (a local .jsonl file).")


def _prompt_column(columns: Sequence[str], script: RAFSScriptArguments) -> str:
    if script.prompt_column:
        if script.prompt_column not in columns:
            raise ValueError(f"prompt_column={script.prompt_column!r} is not a column of the dataset {list(columns)}.")
        return script.prompt_column
    for name in ("question", "problem", "prompt"):
        if name in columns:
            return name
    raise ValueError(f"no problem column in the dataset {list(columns)}: set prompt_column.")


def _make_prompt(problem: Any, script: RAFSScriptArguments) -> Any:
    if isinstance(problem, list):  # already conversational
        return problem
    text = f"{problem}\n{script.instruction}".strip() if script.instruction else str(problem)
    if not script.conversational:
        return text
    messages = [{"role": "system", "content": script.system_prompt}] if script.system_prompt else []
    return messages + [{"role": "user", "content": text}]


def load_train_dataset(script: RAFSScriptArguments, *, seed: int = 42, trainer: str = "grpo") -> Any:
    """The training set: ``prompt`` (messages or text) plus the gold column (GRPO/RLOO), or
    ``prompt``/``completion`` after the RAFS filter (SFT)."""
    raw = _load_raw(script)
    pcol = _prompt_column(raw.column_names, script)
    if script.answer_column not in raw.column_names:
        raise ValueError(f"answer_column={script.answer_column!r} is not a column of the dataset "
                         f"{raw.column_names}; the rewards need the gold answers.")
    raw = raw.shuffle(seed=seed)
    if script.max_train_samples:
        raw = raw.select(range(min(script.max_train_samples, len(raw))))
    if trainer == "sft":
        return _sft_dataset(raw, pcol, script)
    keep = {pcol, script.answer_column}
    ds = raw.map(lambda row: {"prompt": _make_prompt(row[pcol], script)},
                 remove_columns=[c for c in raw.column_names if c not in keep and c != "prompt"])
    if pcol != "prompt" and pcol in ds.column_names:
        ds = ds.remove_columns([pcol])
    return ds


def _sft_dataset(raw: Any, pcol: str, script: RAFSScriptArguments) -> Any:
    if script.filter_dataset:
        from rewards.adapters.filtering import filter_dataset

        cfg = _rafs_config(script)
        result = filter_dataset(raw.rename_columns({pcol: "question"}) if pcol != "question" else raw,
                                min_rafs=script.filter_min_rafs, statuses=script.filter_statuses,
                                layout="question_answer", config=cfg)
        log.warning("RAFS filter: kept %d of %d rows (%s)", result.summary.get("n_kept"),
                    result.summary.get("n_in"), result.summary.get("reasons"))
        raw, pcol = result.kept, "question"
        if len(raw) == 0:
            raise ValueError("the RAFS filter dropped every row; lower filter_min_rafs or add 'review' to "
                             "filter_statuses.")

    def to_pc(row: dict[str, Any]) -> dict[str, Any]:
        solution = str(row[script.answer_column]).strip()
        completion: Any = solution
        if script.conversational:
            completion = [{"role": "assistant", "content": solution}]
        return {"prompt": _make_prompt(row[pcol], script), "completion": completion}

    return raw.map(to_pc, remove_columns=raw.column_names)


def load_probe_set(script: RAFSScriptArguments, *, seed: int = 1) -> list[dict[str, str]]:
    """The screen's probe set: ``screen_probe_path`` if given, else held-out rows of the training data's source
    (``easy_arithmetic`` with another seed, GSM8K's test split, or the last rows of the file)."""
    from datasets import load_dataset

    n = script.screen_probe_size
    if script.screen_probe_path:
        ds = load_dataset("json", data_files=script.screen_probe_path, split="train")
    elif script.dataset_name == "easy_arithmetic":  # held out: no probe question occurs in the training pool
        seen = {r["question"] for r in easy_arithmetic(400, seed=0)}
        fresh = [r for r in easy_arithmetic(20 * n + 200, seed=10_000 + seed) if r["question"] not in seen]
        unique = list({r["question"]: r for r in fresh}.values())
        return [{"problem": r["question"], "answer": r["answer"]} for r in unique[:n]]
    elif script.dataset_name in ("gsm8k", "openai/gsm8k"):
        ds = _gsm8k("test")
    else:
        ds = _load_raw(script)
        ds = ds.select(range(max(0, len(ds) - n), len(ds)))
    pcol = _prompt_column(ds.column_names, RAFSScriptArguments(prompt_column=None))
    gcol = script.answer_column if script.answer_column in ds.column_names else "solution"
    ds = ds.shuffle(seed=seed).select(range(min(n, len(ds))))
    return [{"problem": r[pcol] if isinstance(r[pcol], str) else str(r[pcol]), "answer": str(r[gcol])} for r in ds]


# ------------------------------------------------------------------------------------------------------------------
# Trainers
# ------------------------------------------------------------------------------------------------------------------

def _rafs_config(script: RAFSScriptArguments) -> dict[str, Any] | None:
    raw = script.rafs_config
    if raw is None or raw == "":
        return None
    if isinstance(raw, dict):
        return raw
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise ValueError(f"rafs_config={raw!r} is not a JSON object ({exc}); write e.g. "
                         "'{\"tau_accept\": 70}' or a YAML mapping in the recipe.") from None
    if not isinstance(value, dict):
        raise ValueError(f"rafs_config={raw!r} must be a mapping of RAFSConfig fields.")
    return value


def build_verifier(script: RAFSScriptArguments) -> Any:
    """The step verifier the recipe's ``verifier*`` keys describe, or ``None`` for the symbolic default."""
    if script.verifier in (None, "", "symbolic"):
        return None
    from dataclasses import asdict

    from rewards.verifiers.registry import VERIFIER_KEYS, verifier_from_config

    values = {k: v for k, v in asdict(script).items() if k in VERIFIER_KEYS}
    return verifier_from_config(values)


def build_reward_funcs(script: RAFSScriptArguments) -> list[Any]:
    """The recipe's reward functions: registry names of :mod:`rewards.adapters.trl_rewards` or dotted import paths."""
    import importlib

    from rewards.adapters.trl_rewards import get_reward_funcs

    funcs: list[Any] = []
    cfg = _rafs_config(script)
    verifier = build_verifier(script)
    for name in script.reward_funcs:
        if "." in name and not name.startswith("rewards.adapters.trl_rewards."):
            module, attr = name.rsplit(".", 1)
            sys.path.insert(0, os.getcwd())
            funcs.append(getattr(importlib.import_module(module), attr))
            continue
        name = name.rsplit(".", 1)[-1]
        kwargs: dict[str, Any] = {"gold_column": script.answer_column} if script.answer_column != "answer" else {}
        if "faithful_accuracy" in name:
            kwargs["unfaithful_credit"] = script.unfaithful_credit
        if verifier is not None:
            kwargs["verifier"] = verifier
        if cfg is None and (not kwargs or kwargs == {"unfaithful_credit": 0.5}):
            funcs.extend(get_reward_funcs([name]))
        else:
            funcs.extend(get_reward_funcs([name], cfg, **kwargs))
    if not funcs:
        raise ValueError("reward_funcs is empty: name at least one reward, e.g. [faithful_accuracy, rafs].")
    return funcs


def build_screen_callback(script: RAFSScriptArguments, tokenizer: Any = None, *, model_name: str | None = None,
                          probe_set: list[dict[str, str]] | None = None):
    """The recipe's :class:`~trainers.callbacks.ValidityScreenCallback`, or ``None`` when ``screen: false``."""
    if not script.screen:
        return None
    from trainers.callbacks import ValidityScreenCallback

    return ValidityScreenCallback(
        probe_set if probe_set is not None else load_probe_set(script), tokenizer, every=script.screen_every,
        baseline=script.screen_baseline, policy=script.screen_policy, halt_on_failure=script.screen_halt_on_failure,
        collapse_delta=script.screen_collapse_delta, confidence=script.screen_confidence,
        max_new_tokens=script.screen_max_new_tokens, batch_size=script.screen_batch_size, model_name=model_name,
        benchmark=script.dataset_name or script.dataset_path or "probe set", instruction=script.instruction)


def build_trainer(recipe: Recipe, *, train_dataset: Any = None, reward_funcs: list[Any] | None = None,
                  callbacks: list[Any] | None = None, probe_set: list[dict[str, str]] | None = None):
    """A ready ``GRPOTrainer`` / ``RLOOTrainer`` / ``SFTTrainer`` for ``recipe`` (the screen callback included)."""
    from transformers import AutoTokenizer
    from trl import get_peft_config

    from trainers.models import resolve_model_path

    script, args, margs = recipe.script, recipe.training, recipe.model
    if not margs.model_name_or_path:
        raise ValueError("the recipe names no model: set model_name_or_path (e.g. SmolLM2-135M-Instruct).")
    model_path = resolve_model_path(margs.model_name_or_path)
    tokenizer = AutoTokenizer.from_pretrained(model_path)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    dataset = train_dataset if train_dataset is not None else load_train_dataset(script, seed=args.seed,
                                                                                  trainer=recipe.trainer)
    peft_config = get_peft_config(margs)
    cbs = list(callbacks or [])
    screen_cb = build_screen_callback(script, tokenizer, model_name=margs.model_name_or_path, probe_set=probe_set)
    if screen_cb is not None:
        cbs.append(screen_cb)
    if margs.dtype not in (None, "auto"):
        args.model_init_kwargs = {**(args.model_init_kwargs or {}), "dtype": margs.dtype}
    common = dict(model=model_path, args=args, train_dataset=dataset, processing_class=tokenizer,
                  callbacks=cbs or None, peft_config=peft_config)
    if recipe.trainer == "grpo":
        from trl import GRPOTrainer

        trainer = GRPOTrainer(reward_funcs=reward_funcs or build_reward_funcs(script), **common)
    elif recipe.trainer == "rloo":
        from trl import RLOOTrainer

        trainer = RLOOTrainer(reward_funcs=reward_funcs or build_reward_funcs(script), **common)
    else:
        from trl import SFTTrainer

        trainer = SFTTrainer(**common)
    trainer.rafs_screen_callback = screen_cb
    return trainer


def configure_wandb(recipe: Recipe) -> bool:
    """With ``report_to: wandb``: write the run under the output dir (``WANDB_DIR``), and go offline when neither
    ``WANDB_MODE`` nor ``WANDB_API_KEY`` is set. Returns True when it switched wandb to offline."""
    report_to = recipe.training.report_to or []
    if "wandb" not in report_to and "all" not in report_to:
        return False
    os.environ.setdefault("WANDB_DIR", str(Path(recipe.training.output_dir).resolve()))
    Path(os.environ["WANDB_DIR"]).mkdir(parents=True, exist_ok=True)
    if not os.environ.get("WANDB_MODE") and not os.environ.get("WANDB_API_KEY"):
        os.environ["WANDB_MODE"] = "offline"
        return True
    return False


def train(recipe: Recipe, **kwargs: Any) -> Any:
    """Build the trainer, train (resuming when ``resume_from_checkpoint`` is set), save; return the trainer."""
    trainer = build_trainer(recipe, **kwargs)
    resume = recipe.training.resume_from_checkpoint
    if isinstance(resume, str) and resume.lower() in ("true", "false"):
        resume = resume.lower() == "true" or None
    trainer.train(resume_from_checkpoint=resume)
    trainer.save_model(recipe.training.output_dir)
    return trainer


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m trainers.train RECIPE.yaml [--key value ...]`` (the entry point for ``accelerate launch``)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0].startswith("-"):
        print("usage: python -m trainers.train RECIPE.yaml [--key value ...]", file=sys.stderr)
        return 2
    if argv[0] == "--config":
        argv = argv[1:]
    recipe = load_recipe(argv[0], argv[1:])
    configure_wandb(recipe)
    train(recipe)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
