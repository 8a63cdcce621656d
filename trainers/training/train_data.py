"""Training data of a recipe: the built-in synthetic set, local data sets under ``data_dir``, files and hub sets,
turned into TRL's ``prompt`` (+ gold column) rows, the SFT rows after the RAFS filter, and the screen's probe set.

Where data comes from (one convention):

* ``dataset_name: easy_arithmetic`` — built in (:func:`easy_arithmetic`), nothing to download;
* ``dataset_name: gsm8k`` — ``<data_dir>/gsm8k/train.jsonl`` (the probe set: ``test.jsonl``); ``data_dir``
  defaults to ``../shared/data``, the public data beside the clone, and resolves against the working directory,
  then the repository root; a missing file is a one-line error that names ``--data_dir``;
* ``dataset_path`` — a local ``.jsonl``/``.json``/``.csv``/``.parquet`` file (resolved the same way);
* any other ``dataset_name`` — ``datasets.load_dataset(dataset_name, dataset_config, split=dataset_train_split)``
  (e.g. ``openai/gsm8k`` with ``dataset_config: main`` from the hub).

>>> rows = easy_arithmetic(2, seed=1)
>>> sorted(rows[0]), rows[0]["answer"].splitlines()[-1].startswith("#### ")
(['answer', 'question'], True)
>>> from trainers.training.recipes import RAFSScriptArguments
>>> make_prompt("What is 2 + 3?", RAFSScriptArguments(instruction="Answer after ####."))
[{'role': 'user', 'content': 'What is 2 + 3?\\nAnswer after ####.'}]
"""

from __future__ import annotations

import logging
import random
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence

from trainers.training.recipes import rafs_config_of, resolve_path

if TYPE_CHECKING:
    from trainers.training.recipes import RAFSScriptArguments

__all__ = ["DATASETS", "LOCAL_DATASETS", "easy_arithmetic", "data_dir_of", "local_dataset", "check_data",
           "load_raw_dataset",
           "prompt_column", "make_prompt", "load_train_dataset", "sft_dataset", "load_probe_set"]

log = logging.getLogger(__name__)

#: Data sets read from ``data_dir``: name -> the file of each split, relative to ``data_dir``.
LOCAL_DATASETS = {"gsm8k": {"train": "gsm8k/train.jsonl", "test": "gsm8k/test.jsonl"}}

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


def data_dir_of(script: "RAFSScriptArguments") -> Path:
    """The recipe's ``data_dir`` as an existing folder (see :func:`trainers.training.recipes.resolve_path`)."""
    return resolve_path(script.data_dir, "--data_dir", kind="folder")


def local_dataset(name: str, split: str, script: "RAFSScriptArguments") -> Any:
    """Split ``split`` (``train`` or ``test``) of a :data:`LOCAL_DATASETS` set, read from ``data_dir``."""
    from datasets import load_dataset

    return load_dataset("json", data_files=str(_local_file(name, split, script)), split="train")


def _local_file(name: str, split: str, script: "RAFSScriptArguments") -> Path:
    relative = LOCAL_DATASETS[name]["test" if split == "test" else "train"]
    try:
        folder = data_dir_of(script)
    except ValueError:
        folder = None
    if folder is None or not (folder / relative).is_file():
        raise ValueError(f"dataset_name={name} reads <data_dir>/{relative}, which is missing (--data_dir "
                         f"{script.data_dir}); pass --data_dir DIR, the folder holding {relative}, or use the hub "
                         f"(e.g. --dataset_name openai/{name} --dataset_config main).")
    return folder / relative


def _easy(split: str, script: "RAFSScriptArguments") -> Any:
    from datasets import Dataset

    return Dataset.from_list(easy_arithmetic(400, seed=0 if split == "train" else 1))


#: Named data sets that are not hub ids: name -> ``(split, script) -> datasets.Dataset``.
DATASETS: dict[str, Callable[[str, Any], Any]] = {
    "easy_arithmetic": _easy,
    **{name: (lambda split, script, _name=name: local_dataset(_name, split, script)) for name in LOCAL_DATASETS},
}


def check_data(script: "RAFSScriptArguments") -> None:
    """Fail early, without loading anything, when a local file the recipe reads is missing: ``dataset_path``, a
    :data:`LOCAL_DATASETS` file under ``data_dir`` (its ``test`` split too when the screen probes it) and
    ``screen_probe_path``. Each error is one line naming the flag (``rafs train --dry-run`` runs this)."""
    if script.dataset_path:
        resolve_path(script.dataset_path, "--dataset_path")
    elif script.dataset_name in LOCAL_DATASETS:
        splits = [script.dataset_train_split]
        if script.screen and not script.screen_probe_path:
            splits.append("test")
        for split in splits:
            _local_file(script.dataset_name, split, script)
    if script.screen and script.screen_probe_path and script.screen_probe_path != "default":
        resolve_path(script.screen_probe_path, "--screen_probe_path")


def load_raw_dataset(script: "RAFSScriptArguments") -> Any:
    """The recipe's training rows as they are stored (``dataset_path``, a named set, or a hub set)."""
    from datasets import load_dataset

    if script.dataset_path:
        p = resolve_path(script.dataset_path, "--dataset_path")
        builder = {".jsonl": "json", ".json": "json", ".csv": "csv", ".parquet": "parquet"}.get(p.suffix)
        if builder is None:
            raise ValueError(f"--dataset_path {script.dataset_path}: give a .jsonl, .json, .csv or .parquet file.")
        return load_dataset(builder, data_files=str(p), split="train")
    if script.dataset_name in DATASETS:
        return DATASETS[script.dataset_name](script.dataset_train_split, script)
    if script.dataset_name:
        return load_dataset(script.dataset_name, script.dataset_config, split=script.dataset_train_split)
    raise ValueError("the recipe names no data: set dataset_name (e.g. easy_arithmetic, gsm8k or a hub dataset) "
                     "or dataset_path (a local .jsonl file).")


def prompt_column(columns: Sequence[str], preferred: str | None = None) -> str:
    """The problem column: ``preferred`` (the recipe's ``prompt_column``) if given, else the first of
    ``question``, ``problem``, ``prompt``.

    >>> prompt_column(["problem", "answer"])
    'problem'
    """
    if preferred:
        if preferred not in columns:
            raise ValueError(f"prompt_column={preferred!r} is not a column of the dataset {list(columns)}.")
        return preferred
    for name in ("question", "problem", "prompt"):
        if name in columns:
            return name
    raise ValueError(f"no problem column in the dataset {list(columns)}: set prompt_column.")


def make_prompt(problem: Any, script: "RAFSScriptArguments") -> Any:
    """A problem as TRL's ``prompt``: chat messages (``conversational``, with the ``system_prompt``) or text, the
    ``instruction`` appended. A problem that already is a message list is kept."""
    if isinstance(problem, list):  # already conversational
        return problem
    text = f"{problem}\n{script.instruction}".strip() if script.instruction else str(problem)
    if not script.conversational:
        return text
    messages = [{"role": "system", "content": script.system_prompt}] if script.system_prompt else []
    return messages + [{"role": "user", "content": text}]


def load_train_dataset(script: "RAFSScriptArguments", *, seed: int = 42, trainer: str = "grpo") -> Any:
    """The training set: ``prompt`` (messages or text) plus the gold column (GRPO/RLOO), or
    ``prompt``/``completion`` after the RAFS filter (SFT)."""
    raw = load_raw_dataset(script)
    pcol = prompt_column(raw.column_names, script.prompt_column)
    if script.answer_column not in raw.column_names:
        raise ValueError(f"answer_column={script.answer_column!r} is not a column of the dataset "
                         f"{raw.column_names}; the rewards need the gold answers.")
    raw = raw.shuffle(seed=seed)
    if script.max_train_samples:
        raw = raw.select(range(min(script.max_train_samples, len(raw))))
    if trainer == "sft":
        return sft_dataset(raw, pcol, script)
    keep = {pcol, script.answer_column}
    ds = raw.map(lambda row: {"prompt": make_prompt(row[pcol], script)},
                 remove_columns=[c for c in raw.column_names if c not in keep and c != "prompt"])
    if pcol != "prompt" and pcol in ds.column_names:
        ds = ds.remove_columns([pcol])
    return ds


def sft_dataset(raw: Any, pcol: str, script: "RAFSScriptArguments") -> Any:
    """SFT rows ``prompt``/``completion`` (the gold solution), after the RAFS filter when ``filter_dataset``."""
    if script.filter_dataset:
        from rewards.adapters.filtering import filter_dataset

        result = filter_dataset(raw.rename_columns({pcol: "question"}) if pcol != "question" else raw,
                                min_rafs=script.filter_min_rafs, statuses=script.filter_statuses,
                                layout="question_answer", config=rafs_config_of(script))
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
        return {"prompt": make_prompt(row[pcol], script), "completion": completion}

    return raw.map(to_pc, remove_columns=raw.column_names)


def load_probe_set(script: "RAFSScriptArguments", *, seed: int = 1) -> list[dict[str, str]]:
    """The screen's probe set: ``screen_probe_path`` if given (``"default"``: the 72 distinct items shipped with the
    package, :func:`trainers.training.probes.default_probe_set`), else held-out rows of the training data's source
    (``easy_arithmetic`` with another seed, the ``test`` split of a :data:`LOCAL_DATASETS` set, or the last rows
    of the data)."""
    from datasets import load_dataset

    n = script.screen_probe_size
    if script.screen_probe_path == "default":  # the shipped probe set (trainers/training/data/probes.jsonl)
        from trainers.training.probes import default_probe_set

        return default_probe_set(limit=n)
    if script.screen_probe_path:
        path = resolve_path(script.screen_probe_path, "--screen_probe_path")
        ds = load_dataset("json", data_files=str(path), split="train")
    elif script.dataset_name == "easy_arithmetic":
        seen = {r["question"] for r in easy_arithmetic(400, seed=0)}  # held out: no probe question is trained on
        fresh = [r for r in easy_arithmetic(20 * n + 200, seed=10_000 + seed) if r["question"] not in seen]
        unique = list({r["question"]: r for r in fresh}.values())
        return [{"problem": r["question"], "answer": r["answer"]} for r in unique[:n]]
    elif script.dataset_name in LOCAL_DATASETS:
        ds = local_dataset(script.dataset_name, "test", script)
    else:
        ds = load_raw_dataset(script)
        ds = ds.select(range(max(0, len(ds) - n), len(ds)))
    pcol = prompt_column(ds.column_names)
    gcol = script.answer_column if script.answer_column in ds.column_names else "solution"
    ds = ds.shuffle(seed=seed).select(range(min(n, len(ds))))
    return [{"problem": r[pcol] if isinstance(r[pcol], str) else str(r[pcol]), "answer": str(r[gcol])} for r in ds]
