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
>>> recipe = load_recipe("recipes/SmolLM2-135M-Instruct/grpo/config_demo.yaml", ["--max_steps", "2"])  # doctest: +SKIP
>>> trainer = build_trainer(recipe)                                  # doctest: +SKIP
>>> trainer.train()                                                  # doctest: +SKIP

Reward functions are our registry names (``faithful_accuracy``, ``rafs``, ...) or dotted import paths of any
TRL-style reward function, e.g. ``trl.rewards.accuracy_reward``: the recipe's gold column (``answer_column``) is
passed under the name such a function asks for (``solution`` for TRL's and open-r1's accuracy rewards) by
:class:`GoldColumnReward`.
"""

from __future__ import annotations

import json
import logging
import os
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from trl import ScriptArguments

__all__ = ["RAFSScriptArguments", "Recipe", "TRAINERS", "DATASETS", "load_recipe", "adapt_for_device",
           "detect_trainer", "load_train_dataset", "easy_arithmetic", "load_probe_set", "build_trainer",
           "build_reward_funcs", "build_verifier", "GoldColumnReward", "GOLD_PARAMETERS", "resolve_reward_func",
           "describe_recipe", "check_output_dir", "split_cli_args",
           "build_screen_callback", "configure_wandb", "train", "main"]

log = logging.getLogger(__name__)

TRAINERS = ("grpo", "rloo", "sft")
REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"
DEFAULT_INSTRUCTION = "Solve the problem step by step. Put the final answer after ####."


@dataclass
class RAFSScriptArguments(ScriptArguments):
    """Our recipe keys: ``trl.ScriptArguments`` (``dataset_name``, ``dataset_config``, ``dataset_train_split``,
    ``dataset_test_split``, ``dataset_streaming``, ``ignore_bias_buffers``) plus everything else that is not a
    TRL/transformers config field or a ``ModelConfig`` field.

    ``dataset_name`` is ``easy_arithmetic`` (built in), ``gsm8k`` (``../shared/data/gsm8k`` when present, else the
    hub's ``openai/gsm8k``) or any hub dataset; ``dataset_streaming`` is not supported (the data is shuffled and
    cut to ``max_train_samples`` in memory).
    """

    trainer: str | None = field(default=None, metadata={"help": "grpo, rloo or sft (default: from the recipe path)"})
    # -- data (dataset_name, dataset_config, dataset_train_split: trl.ScriptArguments)
    dataset_path: str | None = field(default=None, metadata={"help": "a local .jsonl/.json/.csv/.parquet file"})
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
                "rafs_support, rafs_consensus, rafs_stability), names of trl.rewards (accuracy_reward, "
                "think_format_reward, ...) or dotted import paths such as trl.rewards.accuracy_reward; the gold "
                "column (answer_column) reaches each under the name it asks for (e.g. solution)"})
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


#: Parameter names under which reward functions of other libraries take the gold answer (TRL's and open-r1's
#: ``accuracy_reward`` take ``solution``); the recipe's ``answer_column`` is passed under each one they declare.
GOLD_PARAMETERS = ("solution", "answer", "ground_truth", "gold", "reference", "target")
#: Keyword arguments TRL itself gives every reward function (besides the dataset columns).
_TRL_KWARGS = ("prompts", "completions", "completion_ids", "trainer_state", "log_extra", "log_metric",
               "environments")


class GoldColumnReward:
    """A reward function of another library (TRL, open-r1, your own module) adapted to a recipe's data.

    TRL calls ``reward(prompts=..., completions=..., <dataset columns>=...)``; a recipe's dataset holds the prompt
    and the gold column ``answer_column`` (``answer`` by default), while TRL's ``accuracy_reward`` wants
    ``solution``. This wrapper passes ``kwargs[gold_column]`` under each name of ``gold_params``, turns plain-text
    completions into one assistant message when ``chat`` (TRL's rewards read ``completion[0]["content"]``), and
    never crashes training: an exception inside the wrapped function is logged with the first completion and
    gives ``None`` (unscorable) for the batch. It is a plain module-level class, so it pickles (the wrapped
    function pickles by reference). ``__name__`` is the wrapped function's, so metrics stay
    ``rewards/<name>/mean``.

    >>> def accuracy(completions, solution, **kwargs):
    ...     return [float(c[0]["content"].endswith(s)) for c, s in zip(completions, solution)]
    >>> reward = GoldColumnReward(accuracy, "answer", ("solution",), chat=True)
    >>> reward(prompts=["1+1?", "2+2?"], completions=["#### 2", "#### 5"], answer=["2", "4"])
    [1.0, 0.0]
    >>> reward.__name__
    'accuracy'
    """

    def __init__(self, func: Callable[..., Any], gold_column: str, gold_params: Sequence[str] = (), *,
                 chat: bool = False, qualname: str | None = None):
        self.func = func
        self.gold_column = gold_column
        self.gold_params = tuple(gold_params)
        self.chat = chat
        self.qualname = qualname or f"{getattr(func, '__module__', '?')}.{getattr(func, '__name__', '?')}"
        self.__name__ = getattr(func, "__name__", type(func).__name__)
        self.errors = 0

    def __repr__(self) -> str:
        mapped = ", ".join(f"{p}=<{self.gold_column}>" for p in self.gold_params)
        return f"GoldColumnReward({self.qualname}{'; ' + mapped if mapped else ''}{'; chat' if self.chat else ''})"

    def __call__(self, prompts: Any = None, completions: Any = None, **kwargs: Any) -> list[float | None]:
        completions = list(completions or [])
        if self.gold_params:
            if self.gold_column not in kwargs:
                raise ValueError(f"reward {self.qualname} needs the gold column {self.gold_column!r} (answer_column),"
                                 f" but the batch has only {sorted(k for k in kwargs if k not in _TRL_KWARGS)}; set "
                                 "answer_column to the dataset's gold column.")
            for name in self.gold_params:
                kwargs.setdefault(name, kwargs[self.gold_column])
        if self.chat:
            completions = [[{"role": "assistant", "content": c}] if isinstance(c, str) else c for c in completions]
        try:
            out = self.func(prompts=prompts, completions=completions, **kwargs)
            return [None if v is None else float(v) for v in out]
        except Exception as exc:  # noqa: BLE001 - a reward never crashes training: unscorable instead
            self.errors += 1
            first = str(completions[0])[:200] if completions else ""
            log.warning("reward %s raised %s: %s (call %d with an error; first completion %r): scored None",
                        self.qualname, type(exc).__name__, exc, self.errors, first,
                        exc_info=self.errors == 1)
            log_metric = kwargs.get("log_metric")
            if callable(log_metric):
                log_metric(f"{self.__name__}/errors", 1.0)
            return [None] * len(completions)


def _import_reward(name: str) -> Callable[..., Any]:
    """``pkg.module.func`` or ``pkg.module:func`` -> the function; a one-line ``ValueError`` when it is missing."""
    import difflib
    import importlib

    module_name, _, attr = name.replace(":", ".").rpartition(".")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # a reward module next to the recipe's working directory
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"reward_funcs: cannot import {module_name!r} for {name!r} ({exc}); check the spelling or "
                         "install the package.") from None
    try:
        func = getattr(module, attr)
    except AttributeError:
        public = getattr(module, "__all__", None) or [n for n in dir(module) if not n.startswith("_")]
        close = difflib.get_close_matches(attr, list(public), n=3)
        hint = f"; did you mean {', '.join(f'{module_name}.{c}' for c in close)}?" if close else ""
        raise ValueError(f"reward_funcs: {module_name!r} has no reward function {attr!r}{hint}") from None
    if not callable(func):
        raise ValueError(f"reward_funcs: {name!r} is not callable.")
    if attr.startswith("get_"):  # a factory (TRL's get_* rewards): build it with its defaults
        try:
            func = func()
        except TypeError as exc:
            raise ValueError(f"reward_funcs: {name!r} is a factory that needs arguments ({exc}); write a "
                             "module-level function that calls it and name that function instead.") from None
    return func


def _needs(func: Callable[..., Any]) -> tuple[list[str], list[str], bool]:
    """(gold parameters it declares, other required parameters TRL does not supply, whether it reads chat)."""
    import inspect

    try:
        params = inspect.signature(func).parameters
    except (TypeError, ValueError):  # a builtin or C callable: nothing to learn
        return [], [], False
    gold = [n for n in params if n in GOLD_PARAMETERS]
    missing = [n for n, prm in params.items()
               if prm.default is inspect.Parameter.empty
               and prm.kind in (prm.POSITIONAL_OR_KEYWORD, prm.KEYWORD_ONLY)
               and n not in _TRL_KWARGS and n not in GOLD_PARAMETERS]
    return gold, missing, getattr(func, "__module__", "").startswith("trl.")


def resolve_reward_func(name: str, script: RAFSScriptArguments, *, config: dict[str, Any] | None = None,
                        verifier: Any = None) -> Any:
    """One entry of ``reward_funcs`` -> a TRL reward function.

    Our registry names (``faithful_accuracy``, ``rafs`` ... or their function names, optionally prefixed with
    ``rewards.adapters.trl_rewards.``) give our rewards, configured by the recipe (``rafs_config``,
    ``unfaithful_credit``, ``answer_column``, the verifier). A bare name of ``trl.rewards`` (``accuracy_reward``)
    or a dotted path (``trl.rewards.accuracy_reward``, ``my_module.my_reward``, ``pkg.mod:func``) gives that
    function wrapped in :class:`GoldColumnReward`. Raises a one-line ``ValueError`` for an unknown name or a
    function that needs an argument no dataset column provides.
    """
    from rewards.adapters.trl_rewards import REWARD_FUNCS, get_reward_funcs

    name = str(name).strip()
    ours = {**{k: k for k in REWARD_FUNCS}, **{f.__name__: k for k, f in REWARD_FUNCS.items()}}
    short = name.removeprefix("rewards.adapters.trl_rewards.")
    if short in ours:
        kwargs: dict[str, Any] = {"gold_column": script.answer_column} if script.answer_column != "answer" else {}
        if ours[short] == "faithful_accuracy" and script.unfaithful_credit != 0.5:
            kwargs["unfaithful_credit"] = script.unfaithful_credit
        if verifier is not None:
            kwargs["verifier"] = verifier
        if config is None and not kwargs:
            return get_reward_funcs([short])[0]
        return get_reward_funcs([short], config, **kwargs)[0]
    if "." in name or ":" in name:
        func = _import_reward(name)
    else:
        import trl.rewards as trl_rewards

        if name in getattr(trl_rewards, "_import_structure", {}).get("accuracy_rewards", []) + \
                getattr(trl_rewards, "_import_structure", {}).get("format_rewards", []):
            func = _import_reward(f"trl.rewards.{name}")
        else:
            import difflib

            known = sorted(ours)
            close = difflib.get_close_matches(name, known + ["accuracy_reward", "think_format_reward"], n=2)
            hint = f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""
            raise ValueError(f"reward_funcs: unknown reward {name!r}{hint}; use one of {sorted(REWARD_FUNCS)}, a "
                             "name of trl.rewards (accuracy_reward, think_format_reward) or a dotted import path "
                             "such as trl.rewards.accuracy_reward.")
    gold, missing, chat = _needs(func)
    if missing:
        raise ValueError(f"reward_funcs: {name} needs the argument(s) {missing}, which no dataset column provides "
                         f"(the training set has 'prompt' and answer_column={script.answer_column!r}); wrap it in a "
                         "function that supplies them.")
    gold = [g for g in gold if g != script.answer_column]
    return GoldColumnReward(func, script.answer_column, gold, chat=chat and script.conversational is False,
                            qualname=f"{getattr(func, '__module__', '?')}.{getattr(func, '__name__', name)}")


def build_reward_funcs(script: RAFSScriptArguments, *, with_verifier: bool = True) -> list[Any]:
    """The recipe's reward functions, in order (see :func:`resolve_reward_func`); ``with_verifier=False`` skips
    building the step verifier (``--dry-run``: resolve the names without loading a model)."""
    cfg = _rafs_config(script)
    verifier = build_verifier(script) if with_verifier else None
    funcs = [resolve_reward_func(name, script, config=cfg, verifier=verifier) for name in script.reward_funcs]
    if not funcs:
        raise ValueError("reward_funcs is empty: name at least one reward, e.g. [faithful_accuracy, rafs].")
    return funcs


def describe_reward(func: Any) -> str:
    """One line: where a resolved reward function comes from and how it is configured."""
    if isinstance(func, GoldColumnReward):
        return repr(func)
    module = getattr(func, "__module__", None) or type(func).__module__
    name = getattr(func, "__name__", type(func).__name__)
    settings = []
    for attr in ("gold_column", "unfaithful_credit", "verifier"):
        value = getattr(func, attr, None)
        if value is not None:
            settings.append(f"{attr}={value!r}" if attr != "verifier" else f"verifier={type(value).__name__}")
    return f"{module}.{name}" + (f" ({', '.join(settings)})" if settings else "")


def describe_recipe(recipe: "Recipe", reward_funcs: Sequence[Any] | None = None) -> str:
    """The resolved configuration as YAML (every field of the script, model and training arguments, after the
    recipe, the overrides and the device adaptation), followed by the resolved reward functions."""
    import dataclasses

    import yaml

    def plain(obj: Any) -> dict[str, Any]:
        names = [f.name for f in dataclasses.fields(obj) if f.init]
        raw = obj.to_dict() if hasattr(obj, "to_dict") else dataclasses.asdict(obj)
        out = {}
        for n in names:
            v = raw.get(n, getattr(obj, n, None))
            out[n] = v if isinstance(v, (str, int, float, bool, type(None), list, dict)) else str(v)
        return out

    parts = [f"# resolved recipe {recipe.path}", f"trainer: {recipe.trainer}"]
    for title, obj in ((f"script arguments ({type(recipe.script).__name__})", recipe.script),
                       (f"model arguments ({type(recipe.model).__name__})", recipe.model),
                       (f"training arguments ({type(recipe.training).__name__})", recipe.training)):
        values = plain(obj)
        values.pop("trainer", None)
        parts.append(f"# -- {title}")
        # one line per field ("key: value", lists and mappings in flow style), so the block reads back as YAML
        parts += [yaml.safe_dump({k: v}, default_flow_style=True, width=10_000).strip()[1:-1]
                  for k, v in values.items()]
    if recipe.adaptations:
        parts.append("# -- adapted for this machine: " + "; ".join(recipe.adaptations))
    if reward_funcs is not None:
        parts.append("# -- reward functions (resolved)")
        parts += [f"#   {name} -> {describe_reward(f)}" for name, f in zip(recipe.script.reward_funcs, reward_funcs)]
    return "\n".join(parts)


def check_output_dir(recipe: "Recipe", *, force: bool = False) -> None:
    """Refuse (``FileExistsError``) to train into a non-empty ``output_dir`` unless ``force`` or the run resumes
    from a checkpoint (``resume_from_checkpoint``): a new run would mix its checkpoints with an old run's."""
    out = Path(recipe.training.output_dir)
    resume = recipe.training.resume_from_checkpoint
    if force or resume not in (None, False, "", "false", "False") or not out.is_dir():
        return
    entries = sorted(p.name for p in out.iterdir())
    if entries:
        shown = ", ".join(entries[:3]) + (", ..." if len(entries) > 3 else "")
        raise FileExistsError(f"output_dir {out} is not empty ({shown}); pass --output_dir NEW, --force to write "
                              "into it anyway, or --resume_from_checkpoint to continue that run.")


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


def split_cli_args(argv: Sequence[str]) -> tuple[str | None, list[str], dict[str, bool]]:
    """``RECIPE.yaml [--key value ...]`` or ``--config RECIPE.yaml [--key value ...]`` (TRL's form; ``--config``
    may come anywhere) -> (recipe, overrides, flags) where flags are ``--dry-run`` and ``--force``.

    >>> split_cli_args(["--config", "r.yaml", "--max_steps", "2", "--force"])
    ('r.yaml', ['--max_steps', '2'], {'dry_run': False, 'force': True})
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


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m trainers.train RECIPE.yaml [--key value ...]`` or ``--config RECIPE.yaml`` (the entry point for
    ``accelerate launch``); ``--dry-run`` prints the resolved config, ``--force`` trains into a non-empty
    ``output_dir``."""
    argv = list(sys.argv[1:] if argv is None else argv)
    usage = "usage: python -m trainers.train RECIPE.yaml|--config RECIPE.yaml [--key value ...] [--dry-run] [--force]"
    try:
        path, overrides, flags = split_cli_args(argv)
        if path is None:
            print(usage, file=sys.stderr)
            return 2
        recipe = load_recipe(path, overrides)
        funcs = build_reward_funcs(recipe.script, with_verifier=False) if recipe.trainer != "sft" else None
        if flags["dry_run"]:
            print(describe_recipe(recipe, funcs))
            return 0
        check_output_dir(recipe, force=flags["force"])
    except (ValueError, FileNotFoundError, FileExistsError) as exc:
        print(f"python -m trainers.train: error: {str(exc).splitlines()[0]}", file=sys.stderr)
        return 2
    configure_wandb(recipe)
    train(recipe)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
