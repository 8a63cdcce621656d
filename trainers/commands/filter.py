"""``rafs filter INPUT --out DIR``: keep the SFT rows whose reasoning supports their answer.

INPUT is any file ``datasets`` loads by extension (``.jsonl``/``.json``, ``.csv``, ``.parquet``), read offline
with ``datasets.load_dataset(<builder>, data_files=INPUT)``. Each row is scored with RAFS
(:func:`rewards.adapters.filtering.filter_dataset`); the command writes

* ``DIR/kept.jsonl`` — kept rows plus ``rafs``, ``status``, ``failure_type``, ``suspect_step``;
* ``DIR/dropped.jsonl`` — every dropped row, the same columns plus ``reason`` and ``reason_detail``;
* ``DIR/summary.json`` — ``n_in``, ``n_kept``, ``n_dropped``, counts per reason, the thresholds used.

Defaults keep ``accept`` rows only and drop every failure type but ``faithful_success`` (see docs/filter.md).
``--config FILE`` reads a flat YAML of these options (and RAFSConfig fields such as ``tau_accept``); flags given
on the command line override it. DIR must be new or empty; ``--force`` overwrites the three output files in it.

Example::

    rafs filter data/gsm8k/train.jsonl --out runs/gsm8k_filtered --status accept --num-proc 2
    rafs filter data.jsonl --out runs/f --config recipes/dataset_filtering/config_gsm8k.yaml --min-rafs 80
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

__all__ = ["add_parser", "run", "load_config", "BUILDERS"]

BUILDERS = {".jsonl": "json", ".json": "json", ".csv": "csv", ".parquet": "parquet"}
LAYOUT_CHOICES = ("auto", "prompt_completion", "messages", "question_answer")
# filter options a --config file may set (besides RAFSConfig fields)
_FILTER_KEYS = ("min_rafs", "status", "drop_failure_types", "num_proc", "layout", "gold_column", "batch_size")
OUTPUT_FILES = ("kept.jsonl", "dropped.jsonl", "summary.json")


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("filter", help="filter an SFT dataset by RAFS (kept/dropped JSONL + summary)",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("input", help="dataset file: .jsonl, .json, .csv or .parquet")
    p.add_argument("--out", required=True, help="output directory (must be new or empty unless --force)")
    p.add_argument("--config", default=None, help="flat YAML with filter options; command-line flags override it")
    p.add_argument("--min-rafs", type=float, default=None, help="drop rows with RAFS below this (0-100; default off)")
    p.add_argument("--status", default=None,
                   help="comma-separated statuses to keep: accept,review,abstain (default: accept)")
    p.add_argument("--drop-failure-types", default=None,
                   help="comma-separated failure types to drop (default: silent_failure,overt_failure,"
                        "extraction_failure,invalid_reasoning); 'none' drops none")
    p.add_argument("--num-proc", type=int, default=None, help="worker processes for scoring (default: 1)")
    p.add_argument("--layout", default=None, help="auto (default), prompt_completion, messages or question_answer")
    p.add_argument("--gold-column", default=None, help="gold-answer column (default: answer, solution or gold)")
    p.add_argument("--batch-size", type=int, default=None, help="rows per scoring batch (default: 64)")
    p.add_argument("--force", action="store_true",
                   help="write into a non-empty --out, overwriting kept.jsonl, dropped.jsonl and summary.json")
    return p


def load_config(path: str) -> dict[str, Any]:
    """Read a flat YAML filter config: filter options and RAFSConfig fields (``-`` or ``_`` in keys)."""
    from trainers.cli import CommandError

    if not os.path.isfile(path):
        raise CommandError(f"--config {path!r} does not exist; pass a YAML file such as "
                           "recipes/dataset_filtering/config_gsm8k.yaml")
    try:
        import yaml
    except ImportError:
        raise CommandError("--config needs the 'pyyaml' package (installed with 'datasets'); pip install pyyaml") \
            from None
    try:
        with open(path, encoding="utf-8") as handle:
            data = yaml.safe_load(handle)
    except yaml.YAMLError as exc:
        raise CommandError(f"--config {path!r} is not valid YAML: {str(exc).splitlines()[0]}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise CommandError(f"--config {path!r} must be a mapping of option: value, got {type(data).__name__}")
    from dataclasses import fields

    from rewards.scoring.score import RAFSConfig

    rafs_keys = {f.name for f in fields(RAFSConfig)}
    out: dict[str, Any] = {}
    for key, value in data.items():
        norm = str(key).replace("-", "_")
        if norm == "statuses":
            norm = "status"
        if norm not in _FILTER_KEYS and norm not in rafs_keys:
            raise CommandError(f"--config {path!r}: unknown key {key!r}; known keys: "
                               f"{sorted(set(_FILTER_KEYS) | rafs_keys)}")
        out[norm] = value
    return out


def _list(value: Any) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, str):
        if value.strip().lower() in ("none", ""):
            return []
        return [v.strip() for v in value.split(",") if v.strip()]
    if isinstance(value, (list, tuple)):
        return [str(v).strip() for v in value]
    return [str(value)]


def _check_out(out: str, force: bool) -> None:
    from trainers.cli import CommandError

    if os.path.exists(out):
        if not os.path.isdir(out):
            raise CommandError(f"--out {out!r} exists and is not a directory; choose a new directory")
        if os.listdir(out) and not force:
            raise CommandError(f"--out {out!r} exists and is not empty; choose a new directory or pass --force to "
                               "overwrite kept.jsonl, dropped.jsonl and summary.json in it")


def _load(path: str):
    from trainers.cli import CommandError

    if not os.path.isfile(path):
        raise CommandError(f"input file {path!r} does not exist; pass a .jsonl, .json, .csv or .parquet file")
    ext = os.path.splitext(path)[1].lower()
    builder = BUILDERS.get(ext)
    if builder is None:
        raise CommandError(f"input file {path!r} has extension {ext or '(none)'!r}; use one of {sorted(BUILDERS)}")
    if os.path.getsize(path) == 0:
        raise CommandError(f"input file {path!r} is empty; it must hold at least one row")
    try:
        import datasets
    except ImportError:
        raise CommandError("rafs filter needs the 'datasets' package; install it with pip install 'rafs[train]'") \
            from None
    try:
        return datasets.load_dataset(builder, data_files=os.path.abspath(path), split="train")
    except Exception as exc:  # noqa: BLE001 - turn any parse error into a one-line user error
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        raise CommandError(f"could not read {path!r} as {builder}: {type(exc).__name__}: {first}") from None


def _write_jsonl(dataset, path: str) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as handle:
        for row in dataset:
            handle.write(json.dumps(row, ensure_ascii=False, default=str) + "\n")
    os.replace(tmp, path)


def run(args: argparse.Namespace) -> int:
    from trainers.cli import CommandError

    settings: dict[str, Any] = load_config(args.config) if args.config else {}
    cli = {"min_rafs": args.min_rafs, "status": args.status, "drop_failure_types": args.drop_failure_types,
           "num_proc": args.num_proc, "layout": args.layout, "gold_column": args.gold_column,
           "batch_size": args.batch_size}
    settings.update({k: v for k, v in cli.items() if v is not None})
    layout = settings.pop("layout", None) or "auto"
    if layout not in LAYOUT_CHOICES:
        raise CommandError(f"--layout {layout!r} is unknown; use one of {list(LAYOUT_CHOICES)}")
    num_proc = settings.pop("num_proc", None)
    if num_proc is not None and (not isinstance(num_proc, int) or isinstance(num_proc, bool) or num_proc < 1):
        raise CommandError(f"--num-proc {num_proc!r} must be a positive integer")
    batch_size = settings.pop("batch_size", None) or 64
    if not isinstance(batch_size, int) or batch_size < 1:
        raise CommandError(f"--batch-size {batch_size!r} must be a positive integer")
    statuses = _list(settings.pop("status", None))
    drop = _list(settings.pop("drop_failure_types", None))
    min_rafs = settings.pop("min_rafs", None)
    gold_column = settings.pop("gold_column", None)
    rafs_config = settings  # what is left are RAFSConfig fields (validated by load_config)

    _check_out(args.out, args.force)
    targets = {os.path.realpath(os.path.join(args.out, name)) for name in OUTPUT_FILES}
    if os.path.realpath(args.input) in targets:
        raise CommandError(f"input {args.input!r} is one of the output files in --out {args.out!r}; "
                           "write to another directory so the input is not overwritten")
    dataset = _load(args.input)

    from rewards.adapters.filtering import DEFAULT_DROP_FAILURE_TYPES, DEFAULT_STATUSES, filter_dataset
    from rewards.scoring.score import RAFSConfig

    try:
        config = RAFSConfig.from_dict(rafs_config)
        result = filter_dataset(
            dataset,
            min_rafs=min_rafs,
            statuses=DEFAULT_STATUSES if statuses is None else statuses,
            drop_failure_types=DEFAULT_DROP_FAILURE_TYPES if drop is None else drop,
            layout=layout,
            num_proc=num_proc,
            config=config,
            gold_column=gold_column,
            batch_size=batch_size,
        )
    except (ValueError, TypeError) as exc:
        raise CommandError(str(exc)) from None

    os.makedirs(args.out, exist_ok=True)
    _write_jsonl(result.kept, os.path.join(args.out, "kept.jsonl"))
    _write_jsonl(result.dropped, os.path.join(args.out, "dropped.jsonl"))
    summary = {"input": os.path.abspath(args.input), **result.summary}
    tmp = os.path.join(args.out, "summary.json.tmp")
    with open(tmp, "w", encoding="utf-8") as handle:
        json.dump(summary, handle, indent=2, ensure_ascii=False, default=str)
        handle.write("\n")
    os.replace(tmp, os.path.join(args.out, "summary.json"))
    s = result.summary
    reasons = ", ".join(f"{k}: {v}" for k, v in s["reasons"].items()) or "none"
    print(f"rafs filter: kept {s['n_kept']} of {s['n_in']} rows, dropped {s['n_dropped']} ({reasons}); "
          f"wrote {args.out}/kept.jsonl, dropped.jsonl, summary.json", file=sys.stderr)
    return 0
