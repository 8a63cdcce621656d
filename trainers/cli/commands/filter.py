"""``rafs filter INPUT --out DIR``: keep the SFT rows whose reasoning supports their answer.

INPUT is a ``.jsonl``/``.json``/``.csv``/``.parquet`` file, a directory of such shards, or a glob. It is streamed
in chunks of ``--shard-size`` rows and scored with RAFS on ``--num-proc`` processes (default: every usable core),
each row with the same decision as :func:`rewards.adapters.filtering.filter_dataset`. The command writes

* ``DIR/kept/part-*.jsonl`` — kept rows: every input column plus ``rafs``, ``status``, ``failure_type``,
  ``suspect_step``;
* ``DIR/dropped/part-*.jsonl`` — every dropped row, the same columns plus ``reason`` and ``reason_detail``;
* ``DIR/summary.json`` — ``n_in``, ``n_kept``, ``n_dropped``, counts per reason, the thresholds used (written last);
* ``DIR/manifest.jsonl`` — the run and one record per committed shard.

A run that was killed (even ``kill -9``) resumes when started again with the same INPUT, options and ``--out``, and
ends with exactly the rows of a clean run; ``--force`` starts over. ``--engine ray`` runs the same scoring as a Ray
Data ``map_batches`` (local Ray, or the cluster at ``RAY_ADDRESS``) and writes the same layout (it does not resume).
Load the result for SFT with ``datasets.load_dataset("json", data_files="DIR/kept/*.jsonl")``. See docs/filter.md.

The layout (``--layout``, default ``auto``) is detected from the first row's columns as ``rafs score`` does
(:mod:`trainers.common.readers`); a one-line error names the columns found when none fits or several do. A layout the
filter engine (:mod:`rewards.adapters.filtering`) does not read is refused with a one-line error. ``--answer-col``
(alias ``--gold-column``) names the gold-answer column.

Defaults keep ``accept`` rows only and drop every failure type but ``faithful_success``; a row without a problem
or a completion is dropped with ``missing:problem`` / ``missing:completion``. A run that keeps nothing exits 0 with
a ``WARNING`` line and the counts. ``--config FILE`` reads a YAML or JSON file of these options and RAFSConfig
fields (``tau_accept``, ...; :mod:`trainers.common.config`); flags given on the command line (``--min-rafs``,
``--rafs.tau_accept``, ...) override it.

Example::

    rafs filter ../shared/data/gsm8k/train.jsonl --out runs/gsm8k_filtered
    rafs filter data/shards/ --out runs/f --min-rafs 80 \\
        --config recipes/dataset_filtering/config_gsm8k.yaml
    RAY_ADDRESS=ray://head:10001 rafs filter /mnt/shared/traces/ --out /mnt/shared/filtered \\
        --engine ray
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

__all__ = ["add_parser", "run", "load_config", "BUILDERS", "ENGINES", "FILTER_KEYS"]

BUILDERS = {".jsonl": "json", ".json": "json", ".csv": "csv", ".parquet": "parquet"}
LAYOUT_CHOICES = ("auto", "problem_completion", "question_answer", "problem_steps", "messages", "prompt_completion")
ENGINES = ("local", "ray")
# filter options a --config file may set (besides RAFSConfig fields)
FILTER_KEYS = ("min_rafs", "status", "drop_failure_types", "num_proc", "layout", "gold_column", "batch_size",
                "shard_size", "engine")


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("filter", help="filter an SFT dataset by RAFS (sharded kept/dropped JSONL + summary)",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("input", help="a .jsonl, .json, .csv or .parquet file, a directory of them, or a glob")
    p.add_argument("--out", required=True,
                   help="output directory: new, empty, or an interrupted run over the same input (resumed)")
    p.add_argument("--config", default=None, metavar="FILE",
                   help="YAML or JSON file of filter options and RAFSConfig fields; command-line flags override it")
    p.add_argument("--min-rafs", type=float, default=None, help="drop rows with RAFS below this (0-100; default off)")
    p.add_argument("--status", default=None,
                   help="comma-separated statuses to keep: accept,review,abstain (default: accept)")
    p.add_argument("--drop-failure-types", default=None,
                   help="comma-separated failure types to drop (default: silent_failure,overt_failure,"
                        "extraction_failure,invalid_reasoning); 'none' drops none")
    p.add_argument("--num-proc", "--workers", dest="num_proc", type=int, default=None,
                   help="scoring processes (default: the usable cores, len(os.sched_getaffinity(0))); "
                        "with --engine ray: the CPUs of a local Ray (ignored on a cluster)")
    p.add_argument("--layout", default=None,
                   help="auto (default: from the first row's columns), problem_completion (problem or prompt + "
                        "completion), question_answer (GSM8K question + answer, MATH problem + solution), "
                        "problem_steps (ProcessBench problem + steps) or messages")
    p.add_argument("--answer-col", "--gold-column", dest="gold_column", default=None, metavar="COLUMN",
                   help="gold-answer column (default: answer, solution or gold)")
    p.add_argument("--shard-size", type=int, default=None,
                   help="rows per chunk and output shard (default: 1000; a resume must use the same)")
    p.add_argument("--batch-size", type=int, default=None, help="--engine ray: rows per map_batches batch "
                   "(default: 256)")
    p.add_argument("--engine", default=None, help="local (default: streamed, multi-process, resumable) or ray "
                   "(Ray Data map_batches; cluster from RAY_ADDRESS)")
    p.add_argument("--force", action="store_true",
                   help="start over: delete this filter's outputs in --out (other files there are left alone)")
    from trainers.common.config import add_config_arguments

    add_config_arguments(p, config_flag=False)
    return p


def load_config(path: str) -> tuple[Any, dict[str, Any]]:
    """Read a YAML or JSON filter config: filter options (:data:`FILTER_KEYS`) and RAFSConfig fields (``-`` or ``_``
    in keys, or a nested ``rafs:`` block) through :func:`trainers.common.config.load_command_config`. Returns
    ``(RAFSConfig, filter options)``; an unknown key is a one-line error naming it and the valid keys."""
    from trainers.common.config import load_command_config

    return load_command_config(path, extra_keys=FILTER_KEYS, aliases={"statuses": "status"})


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


def _positive(name: str, value: Any) -> None:
    from trainers.cli import CommandError

    if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
        raise CommandError(f"--{name.replace('_', '-')} {value!r} must be a positive integer")


def run(args: argparse.Namespace) -> int:
    from trainers.cli import CommandError
    from trainers.common.config import config_from_args

    rafs_config, settings = config_from_args(args, extra_keys=FILTER_KEYS, aliases={"statuses": "status"},
                                             with_options=True)
    cli = {"min_rafs": args.min_rafs, "status": args.status, "drop_failure_types": args.drop_failure_types,
           "num_proc": args.num_proc, "layout": args.layout, "gold_column": args.gold_column,
           "batch_size": args.batch_size, "shard_size": args.shard_size, "engine": args.engine}
    settings.update({k: v for k, v in cli.items() if v is not None})
    layout = settings.pop("layout", None) or "auto"
    if layout not in LAYOUT_CHOICES:
        raise CommandError(f"--layout {layout!r} is unknown; use one of {', '.join(LAYOUT_CHOICES)}")
    engine = settings.pop("engine", None) or "local"
    if engine not in ENGINES:
        raise CommandError(f"--engine {engine!r} is unknown; use one of {list(ENGINES)}")
    num_proc = settings.pop("num_proc", None)
    batch_size = settings.pop("batch_size", None)
    shard_size = settings.pop("shard_size", None)
    for name, value in (("num_proc", num_proc), ("batch_size", batch_size), ("shard_size", shard_size)):
        _positive(name, value)
    statuses = _list(settings.pop("status", None))
    drop = _list(settings.pop("drop_failure_types", None))
    min_rafs = settings.pop("min_rafs", None)
    gold_column = settings.pop("gold_column", None)

    from rewards.adapters.filter_shards import DEFAULT_SHARD_SIZE, FilterInputError, FilterOutputError, filter_files
    from rewards.adapters.filtering import DEFAULT_DROP_FAILURE_TYPES, DEFAULT_STATUSES

    layout = _engine_layout(args.input, layout)

    options = dict(min_rafs=min_rafs, statuses=DEFAULT_STATUSES if statuses is None else statuses,
                   drop_failure_types=DEFAULT_DROP_FAILURE_TYPES if drop is None else drop, layout=layout,
                   gold_column=gold_column)
    try:
        options["config"] = rafs_config
        if engine == "ray":
            from rewards.adapters.filter_ray import RayUnavailableError, filter_with_ray

            try:
                summary = filter_with_ray(args.input, args.out, **options, num_cpus=num_proc,
                                          batch_size=batch_size or 256, force=args.force)
            except RayUnavailableError as exc:
                raise CommandError(str(exc)) from None
        else:
            summary = filter_files(args.input, args.out, **options, num_proc=num_proc,
                                   shard_size=shard_size or DEFAULT_SHARD_SIZE, force=args.force,
                                   progress=sys.stderr.isatty() or bool(os.environ.get("RAFS_PROGRESS")))
    except (FilterInputError, FilterOutputError, ValueError, TypeError) as exc:
        raise CommandError(str(exc)) from None

    s = summary
    reasons = ", ".join(f"{k}: {v}" for k, v in s["reasons"].items()) or "none"
    if s.get("already_complete"):
        print(f"rafs filter: {args.out} already holds the complete run (kept {s['n_kept']} of {s['n_in']} rows); "
              "nothing to do (pass --force to start over)", file=sys.stderr)
        _warn_if_empty(s, reasons)
        return 0
    resumed = f", resumed {s['shards_resumed']} of {s['shards']} shards" if s.get("shards_resumed") else ""
    where = f"{s['num_proc']} proc" if s.get("engine") == "local" else f"Ray, {s.get('ray_cpus')} CPUs"
    rate = f", {s['rows_per_second']:.0f} rows/s on {where}" if s.get("rows_per_second") else ""
    print(f"rafs filter: kept {s['n_kept']} of {s['n_in']} rows, dropped {s['n_dropped']} ({reasons}){resumed}"
          f"{rate}; wrote {args.out}/kept/*.jsonl, dropped/*.jsonl, summary.json", file=sys.stderr)
    _warn_if_empty(s, reasons)
    return 0


def _warn_if_empty(summary: dict, reasons: str) -> None:
    """A filter that keeps nothing is not an error (exit 0) but never silent: one WARNING line with the counts."""
    if summary.get("n_kept") == 0:
        print(f"rafs filter: WARNING: kept 0 of {summary.get('n_in')} rows (dropped: {reasons}); check --layout, "
              "--answer-col, --status and the thresholds (docs/filter.md)", file=sys.stderr)


def _engine_layout(inputs: str, layout: str) -> str:
    """The layout name the filter engine (:mod:`rewards.adapters.filtering`) reads, from ``--layout`` or, for
    ``auto``, from the first row's columns (:class:`trainers.common.readers.LayoutSpec`: the same detection as ``rafs
    score``, with a one-line error naming the columns found and ``--layout``)."""
    from rewards.adapters.filter_shards import FilterInputError, read_rows
    from rewards.adapters.filtering import LAYOUTS as ENGINE_LAYOUTS
    from rewards.adapters.filtering import detect_layout
    from trainers.cli import CommandError
    from trainers.common.readers import LAYOUT_ALIASES, LayoutSpec

    first = None
    if not any(str(inputs).startswith(scheme) for scheme in ("s3://", "gs://", "hdfs://", "http://", "https://")):
        try:
            first = next(iter(read_rows(inputs, chunk_size=1)), None)
        except FilterInputError as exc:
            raise CommandError(str(exc)) from None
        if first is None:
            raise CommandError(f"input {inputs!r} holds no rows; it must hold at least one")
    if layout == "prompt_completion":
        return layout
    spec = LayoutSpec(layout=layout)
    if first is None:  # a remote input: the engine detects the layout itself
        return layout if layout == "auto" else LAYOUT_ALIASES.get(layout, layout)
    # the columns decide, not their values: a first row with a null completion is dropped as missing:completion
    resolved = spec.resolve({key: "x" for key in first}, f"{inputs} (first row)")
    if resolved == "problem_completion" and "problem" not in first and "prompt" in first:
        resolved = "prompt_completion"
    if resolved not in ENGINE_LAYOUTS:
        raise CommandError(f"the filter engine (rewards.adapters.filtering) cannot read the {resolved} layout yet "
                           f"(it reads {', '.join(ENGINE_LAYOUTS)}); score these rows with 'rafs score' or convert "
                           "them")
    try:
        same = resolved == detect_layout(list(first))
    except ValueError:
        same = False
    if layout == "auto" and same:
        # the engine detects the same layout: let it, so that a row carrying its trace in the other column
        # (pre-split steps in a problem + completion file) is scored as rafs score reads it
        return "auto"
    return resolved
