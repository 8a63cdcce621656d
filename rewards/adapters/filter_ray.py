"""The SFT filter on Ray Data: the same per-row decision as a ``map_batches``, for inputs beyond one machine.

:func:`filter_with_ray` reads any input Ray Data reads — JSON Lines, a JSON array, CSV or parquet; one file, a
directory of shards, a glob, or a remote URI such as ``s3://bucket/traces/`` — scores every batch with
:func:`rewards.adapters.filtering.score_row` (the function the local engine and ``filter_dataset`` use, so the kept
set is the same), and writes the local engine's layout::

    OUT/kept/*.jsonl       kept rows: input columns + rafs, status, failure_type, suspect_step
    OUT/dropped/*.jsonl    dropped rows: the same + reason, reason_detail
    OUT/summary.json       n_in, n_kept, n_dropped, reasons, statuses, failure_types, thresholds, ...
    OUT/manifest.jsonl     one line: the run (engine "ray")

Ray connects to the cluster named by ``address`` or the ``RAY_ADDRESS`` environment variable (``ray.init``'s own
rule) or, when neither is set, starts a local Ray with ``num_cpus`` CPUs. On a cluster ``OUT`` must be a path every
node can write (a shared file system), rafs must be importable on the workers (installed in the image, or
``runtime_env={"py_modules": [rewards]}``), and the scored rows are held in Ray's object store between scoring and
writing (``materialize``; Ray spills to disk beyond memory), so the input is scored exactly once. Fault tolerance is
Ray's (task retries); an interrupted run does not resume: rerun with ``force=True``.

Needs the optional extra ``pip install 'rafs[ray]'`` (``ray[data]``).

Example (local Ray, two CPUs)::

    from rewards.adapters.filter_ray import filter_with_ray
    summary = filter_with_ray("data/gsm8k/train.jsonl", "runs/gsm8k_ray", num_cpus=2)  # GSM8K train as JSON Lines
    summary["n_kept"], summary["n_in"]

    # a cluster: RAY_ADDRESS=ray://head:10001 python -c "..." or address="ray://head:10001"
"""

from __future__ import annotations

import json
import logging
import os
import time
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from rewards.adapters.filter_output import (
    DROPPED_DIR,
    KEPT_DIR,
    LOCK,
    MANIFEST,
    SUMMARY,
    FilterOutputError,
    check_output,
    clear_outputs,
    lock_output,
    read_manifest,
    write_json_atomic,
)
from rewards.adapters.filter_shards import FORMATS, FilterInputError, read_rows, resolve_inputs, scorer_fingerprint
from rewards.adapters.filtering import (
    DEFAULT_DROP_FAILURE_TYPES,
    DEFAULT_STATUSES,
    OUTPUT_COLUMNS,
    REASON_COLUMNS,
    FilterSpec,
    make_spec,
    merge_counts,
    own_columns,
    score_row,
    summarize_counts,
    summary_from_counts,
)
from rewards.scoring.score import RAFSConfig

__all__ = ["filter_with_ray", "score_table", "RayUnavailableError"]

log = logging.getLogger(__name__)


class RayUnavailableError(ImportError):
    """Ray Data is not installed."""


def _import_ray():
    try:
        import ray
        import ray.data  # noqa: F401
    except ImportError as exc:
        raise RayUnavailableError(f"--engine ray needs Ray Data ({exc.name or 'ray'} is not installed); install it "
                                  "with pip install 'rafs[ray]' (or pip install 'ray[data]')") from None
    return ray


def score_table(table, spec: FilterSpec):
    """Score a ``pyarrow.Table`` batch: the input columns (minus an earlier run's RAFS columns) plus the six
    :data:`~rewards.adapters.filtering.OUTPUT_COLUMNS`, typed ``float64`` / ``string`` / ``int64``.

    The ``map_batches`` function of :func:`filter_with_ray`; usable on its own in any Ray Data pipeline::

        ds.map_batches(score_table, fn_kwargs={"spec": make_spec(ds.schema().names)}, batch_format="pyarrow")
    """
    import pyarrow as pa

    ours = [c for c in OUTPUT_COLUMNS if c in table.column_names]
    if ours:
        table = table.drop_columns(ours)
    verdicts = [score_row(row, spec) for row in table.to_pylist()]
    types = {"rafs": pa.float64(), "status": pa.string(), "failure_type": pa.string(), "suspect_step": pa.int64(),
             "reason": pa.string(), "reason_detail": pa.string()}
    for column in OUTPUT_COLUMNS:
        table = table.append_column(column, pa.array([v[column] for v in verdicts], type=types[column]))
    return table


def _split(table, *, kept: bool):
    import pyarrow.compute as pc

    if kept:
        return table.filter(pc.is_null(table["reason"])).drop_columns(list(REASON_COLUMNS))
    return table.filter(pc.is_valid(table["reason"]))


def _jsonl_datasink(path: str):
    """A Ray Data datasink writing ``*.jsonl`` with :func:`json.dumps` per row (the local engine's serialisation:
    Ray's own ``write_json`` goes through pandas, which turns a nullable integer into a float)."""
    from ray.data.datasource import BlockBasedFileDatasink

    class JsonlDatasink(BlockBasedFileDatasink):
        def __init__(self, folder: str):
            super().__init__(folder, file_format="jsonl")

        def write_block_to_file(self, block, file) -> None:
            rows = block.to_arrow().to_pylist()
            file.write("".join(json.dumps(r, ensure_ascii=False, default=str) + "\n" for r in rows).encode("utf-8"))

    return JsonlDatasink(path)


def _read(ray, paths: Sequence[str], ext: str):
    """A Ray dataset over ``paths`` (all of one format)."""
    if ext == ".parquet":
        return ray.data.read_parquet(list(paths))
    if ext == ".csv":
        import csv

        import pyarrow as pa
        import pyarrow.csv as pacsv

        convert = {}
        local = [p for p in paths if os.path.exists(p)]
        if local:  # read every cell as text, as the local engine does
            with open(local[0], newline="", encoding="utf-8") as handle:
                header = next(csv.reader(handle), [])
            convert["convert_options"] = pacsv.ConvertOptions(column_types={c: pa.string() for c in header},
                                                              strings_can_be_null=True)
        return ray.data.read_csv(list(paths), **convert)
    lines = ext == ".jsonl"
    if ext == ".json":
        first = ""
        if os.path.exists(paths[0]):
            with open(paths[0], "rb") as handle:
                first = handle.read(4096).lstrip()[:1].decode("latin-1")
        lines = first != "["
    return ray.data.read_json(list(paths), lines=lines)


def filter_with_ray(
    inputs: str | os.PathLike | Sequence[str | os.PathLike],
    out: str | os.PathLike,
    *,
    min_rafs: float | None = None,
    statuses: Sequence[str] | str = DEFAULT_STATUSES,
    drop_failure_types: Sequence[str] | str | None = DEFAULT_DROP_FAILURE_TYPES,
    layout: str = "auto",
    config: RAFSConfig | Mapping[str, Any] | None = None,
    gold_column: str | None = None,
    batch_size: int = 256,
    num_cpus: int | None = None,
    address: str | None = None,
    concurrency: int | None = None,
    runtime_env: Mapping[str, Any] | None = None,
    input_format: str | None = None,
    force: bool = False,
    progress: bool = False,
) -> dict[str, Any]:
    """Filter ``inputs`` with Ray Data into ``out`` (module docstring): same scoring, same layout as ``rafs filter``.

    Args:
        inputs: a local file, directory of shards, glob or list (as :func:`rewards.adapters.filter_shards.
            resolve_inputs`), or a URI Ray reads (``s3://…``, ``gs://…``); one format per run.
        out: the output directory (new or empty; ``force=True`` replaces this filter's outputs in it).
        min_rafs, statuses, drop_failure_types, layout, config, gold_column: as in
            :func:`rewards.adapters.filtering.filter_dataset`; the layout is detected from Ray's schema.
        batch_size: rows per ``map_batches`` batch.
        num_cpus: CPUs of a local Ray started here (ignored when connecting to a cluster).
        address: the cluster (default: ``RAY_ADDRESS``, else a local Ray).
        concurrency: ``map_batches`` concurrency (default: Ray's).
        runtime_env: passed to ``ray.init`` (e.g. ``{"py_modules": [rewards]}`` for a cluster without rafs).
        input_format: ``"jsonl"``, ``"json"``, ``"csv"`` or ``"parquet"`` when the input's name does not say
            (a URI of a folder, ``s3://bucket/traces/``).
        force: replace a previous run's outputs in ``out``.
        progress: Ray Data's progress bars.

    Returns:
        The summary written to ``out/summary.json`` (the local engine's keys, ``engine="ray"``).
    """
    started = time.perf_counter()
    ray = _import_ray()
    if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size < 1:
        raise ValueError(f"batch_size={batch_size!r} must be a positive integer")
    out = os.path.abspath(os.fspath(out))
    source = _Source.of(inputs, input_format, out)

    created = not os.path.exists(out)
    os.makedirs(out, exist_ok=True)
    lock_fd = lock_output(out)
    session = _Session(ray)
    try:
        _clear_unused_output(out, force)
        session.start(address=address, num_cpus=num_cpus, runtime_env=runtime_env, progress=progress)
        counts, spec = _score_into(ray, source, out, batch_size, concurrency, min_rafs=min_rafs, statuses=statuses,
                                   drop_failure_types=drop_failure_types, layout=layout, config=config,
                                   gold_column=gold_column)
        return _write_summary(out, counts, spec, source, ray, batch_size, started, session.scoring_started)
    except BaseException:
        _leave_no_trace(out, created)
        raise
    finally:
        session.close()
        os.close(lock_fd)


@dataclass(frozen=True)
class _Source:
    """What Ray reads: ``paths`` (local files, or URIs when ``remote``) in one format (``ext``: ``.jsonl``, ...)."""

    paths: list[str]
    ext: str
    remote: bool

    @classmethod
    def of(cls, inputs, input_format: str | None, out: str) -> "_Source":
        """The inputs checked (one kind, one known format) and ``out`` checked against them."""
        items = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
        remote = [os.fspath(i) for i in items if "://" in os.fspath(i)]
        if remote and len(remote) != len(items):
            raise FilterInputError(f"inputs mix URIs and local paths ({items}); pass one kind")
        paths = remote or resolve_inputs(items if len(items) > 1 else items[0])
        if input_format is not None:
            if f".{input_format.lstrip('.').lower()}" not in FORMATS:
                raise ValueError(f"input_format={input_format!r} is unknown; use one of "
                                 f"{sorted(e.lstrip('.') for e in FORMATS)}")
            exts = {f".{input_format.lstrip('.').lower()}"}
        else:
            exts = {os.path.splitext(p.rstrip("/"))[1].lower() for p in paths}
        if exts - set(FORMATS):
            raise FilterInputError(f"cannot tell the format of {paths[:3]}; name files ending in {sorted(FORMATS)} "
                                   "or pass input_format=")
        if len(exts) != 1:
            raise FilterInputError(f"--engine ray reads one format per run; the inputs mix {sorted(exts)}")
        if not remote:
            check_output(paths, out)
        elif os.path.exists(out) and not os.path.isdir(out):
            raise FilterOutputError(f"output {out!r} exists and is not a directory; choose a new directory")
        return cls(paths, exts.pop(), bool(remote))


def _clear_unused_output(out: str, force: bool) -> None:
    """Refuse ``out`` when it holds a filter run (this engine does not resume) or anything else, unless ``force``;
    then clear this filter's outputs in it."""
    header, _ = read_manifest(out)
    if not force:
        if header is not None:
            state = "a complete" if os.path.exists(os.path.join(out, SUMMARY)) else "an interrupted"
            hint = (" (rerun without --engine ray to resume it)" if header.get("engine") == "local"
                    and state == "an interrupted" else "")
            raise FilterOutputError(f"{out!r} holds {state} --engine {header.get('engine')} run{hint}; pass "
                                    "--force to start over or choose another output directory")
        extra = [n for n in os.listdir(out) if n != LOCK]
        if extra:
            raise FilterOutputError(f"--out {out!r} exists and is not empty ({', '.join(sorted(extra)[:3])}); "
                                    "choose a new directory or pass --force to replace this filter's outputs")
    clear_outputs(out)


class _Session:
    """Ray as this run uses it: started here when it was not running (and shut down at the end), and Ray Data's
    context set to keep the input order (restored at the end)."""

    def __init__(self, ray) -> None:
        self.ray = ray
        self.started_ray = False
        self.context = None
        self.saved: tuple | None = None
        self.scoring_started = time.perf_counter()

    def start(self, *, address: str | None, num_cpus: int | None, runtime_env: Mapping[str, Any] | None,
              progress: bool) -> None:
        ray = self.ray
        if not ray.is_initialized():
            init: dict[str, Any] = {}
            if address is not None:
                init["address"] = address  # a cluster: only what Ray Client also accepts
            elif not os.environ.get("RAY_ADDRESS"):  # a local Ray, started here
                init.update(include_dashboard=False, log_to_driver=False)
                if num_cpus is not None:
                    init["num_cpus"] = num_cpus
            if runtime_env is not None:
                init["runtime_env"] = dict(runtime_env)
            ray.init(**init)
            self.started_ray = True
        self.scoring_started = time.perf_counter()
        self.context = ray.data.DataContext.get_current()
        self.saved = (self.context.execution_options.preserve_order, self.context.enable_progress_bars)
        self.context.execution_options.preserve_order = True  # the output in input order, as the local engine
        self.context.enable_progress_bars = progress

    def close(self) -> None:
        if self.context is not None and self.saved is not None:
            self.context.execution_options.preserve_order, self.context.enable_progress_bars = self.saved
        if self.started_ray:
            self.ray.shutdown()


def _score_into(ray, source: _Source, out: str, batch_size: int, concurrency: int | None,
                **options: Any) -> tuple[dict[str, Any], FilterSpec]:
    """Read the source, write the manifest's header, score every row with ``map_batches``, write the kept and
    dropped rows to ``out``; the counts (checked against the rows written) and the spec."""
    try:
        ds = _read(ray, source.paths, source.ext)
        columns = list(ds.schema().names)
    except (FilterInputError, FilterOutputError):
        raise
    except Exception as exc:  # noqa: BLE001 - Ray / pyarrow read errors of every kind
        _unreadable(source.paths, source.remote, exc)
    try:
        own_columns(columns)
    except ValueError as exc:
        raise FilterInputError(f"{source.paths[0] if len(source.paths) == 1 else source.paths!r}: {exc}") from None
    spec = make_spec(columns, **options)
    write_json_atomic(os.path.join(out, MANIFEST), None, lines=[{
        "version": 1, "engine": "ray", "inputs": source.paths, "shard_size": None, "thresholds": spec.thresholds(),
        "scorer": scorer_fingerprint()}])
    map_kwargs: dict[str, Any] = {"batch_format": "pyarrow", "batch_size": batch_size, "fn_kwargs": {"spec": spec}}
    if concurrency is not None:
        map_kwargs["concurrency"] = concurrency
    try:
        scored = ds.map_batches(score_table, **map_kwargs).materialize()
    except Exception as exc:  # noqa: BLE001 - a shard Ray cannot read fails here, not at schema()
        _unreadable(source.paths, source.remote, exc)
    scored.map_batches(_split, batch_format="pyarrow", fn_kwargs={"kept": True}).write_datasink(
        _jsonl_datasink(os.path.join(out, KEPT_DIR)))
    scored.map_batches(_split, batch_format="pyarrow", fn_kwargs={"kept": False}).write_datasink(
        _jsonl_datasink(os.path.join(out, DROPPED_DIR)))
    for sub in (KEPT_DIR, DROPPED_DIR):  # Ray writes no file for an empty split; the layout has both folders
        os.makedirs(os.path.join(out, sub), exist_ok=True)
    return _checked_counts(scored, out), spec


def _checked_counts(scored, out: str) -> dict[str, Any]:
    """The counts per reason, status and failure type of the scored rows; raises when the rows written to
    ``out`` do not match them."""
    parts = []
    for batch in scored.select_columns(["reason", "status", "failure_type", "rafs"]).iter_batches(
            batch_format="pyarrow", batch_size=65536):
        parts.append(summarize_counts(*(batch[c].to_pylist() for c in ("reason", "status", "failure_type",
                                                                      "rafs"))))
    counts = merge_counts(parts)
    n_kept = sum(_count_lines(os.path.join(out, KEPT_DIR)))
    n_dropped = sum(_count_lines(os.path.join(out, DROPPED_DIR)))
    if (n_kept, n_dropped) != (counts["n_kept"], counts["n_dropped"]):
        raise RuntimeError(f"filter lost rows: scored kept {counts['n_kept']} / dropped {counts['n_dropped']}, "
                           f"written {n_kept} / {n_dropped}")
    return counts


def _write_summary(out: str, counts: dict[str, Any], spec: FilterSpec, source: _Source, ray, batch_size: int,
                   started: float, scoring_started: float) -> dict[str, Any]:
    """The run's summary (the local engine's keys, ``engine="ray"``), written to ``out/summary.json``; its
    ``seconds`` leave Ray's start-up out, ``seconds_with_startup`` count it."""
    now = time.perf_counter()
    summary = summary_from_counts(counts, spec, seconds=now - scoring_started)  # Ray's start-up not counted
    summary.update({
        "inputs": source.paths if len(source.paths) > 1 else source.paths[0],
        "input": source.paths[0] if len(source.paths) == 1 or source.remote else os.path.commonpath(source.paths),
        "output": {"kept": f"{KEPT_DIR}/*.jsonl", "dropped": f"{DROPPED_DIR}/*.jsonl", "manifest": MANIFEST},
        "engine": "ray",
        "scorer": scorer_fingerprint(),
        "ray_cpus": int(ray.cluster_resources().get("CPU", 0)),
        "batch_size": batch_size,
        "rows_scored": counts["n"],
        "seconds_with_startup": round(now - started, 3),
    })
    write_json_atomic(os.path.join(out, SUMMARY), summary)
    return summary


def _leave_no_trace(out: str, created: bool) -> None:
    """After a failure: a run refused before it wrote anything leaves no lock (nor ``out``, when it made it); a
    run in a folder it made that did not finish leaves nothing of its own."""
    if not os.path.exists(os.path.join(out, MANIFEST)):  # refused before writing anything: leave no trace
        for path in (os.path.join(out, LOCK), *([out] if created else [])):
            try:
                os.rmdir(path) if os.path.isdir(path) else os.remove(path)
            except OSError:
                pass
    elif created and not os.path.exists(os.path.join(out, SUMMARY)):
        clear_outputs(out)
        for path in (os.path.join(out, LOCK), out):
            try:
                os.rmdir(path) if os.path.isdir(path) else os.remove(path)
            except OSError:
                pass


def _count_lines(folder: str):
    for name in sorted(os.listdir(folder)):
        if name.endswith(".jsonl"):
            with open(os.path.join(folder, name), "rb") as handle:
                yield sum(1 for line in handle if line.strip())


def _unreadable(paths: Sequence[str], remote: bool, exc: BaseException) -> None:
    """Raise :class:`FilterInputError` for a Ray read failure, naming the file (and line) when the input is local:
    Ray's own error names neither, so the local reader finds them."""
    if not remote:
        for path in paths:
            for _ in read_rows(path):  # raises FilterInputError naming the file
                pass
    raise FilterInputError(f"Ray could not read {paths[0] if len(paths) == 1 else paths}: {type(exc).__name__}: "
                           f"{_first_line(exc)}") from None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else ""
