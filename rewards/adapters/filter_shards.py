"""The SFT filter over files on one machine: streamed, on every core, crash-safe and resumable.

:func:`filter_files` reads its input in chunks of ``shard_size`` rows (never the whole input), scores each chunk in a
worker process with the same per-row decision as :func:`rewards.adapters.filtering.filter_dataset`
(:func:`~rewards.adapters.filtering.score_row`), and writes one output shard per chunk::

    OUT/kept/part-FFFFF-CCCCCC.jsonl      kept rows: input columns + rafs, status, failure_type, suspect_step
    OUT/dropped/part-FFFFF-CCCCCC.jsonl   dropped rows: the same + reason, reason_detail
    OUT/manifest.jsonl                    line 1: the run (inputs, options); then one line per committed shard
    OUT/summary.json                      written last, when every shard is committed

``FFFFF`` is the input file's index (inputs sorted by path) and ``CCCCCC`` the chunk's index in that file, so
chunk ``c`` of file ``f`` is rows ``[c * shard_size, (c + 1) * shard_size)`` of it; sorting the shard names gives
the input order. Every shard has both files (possibly empty).

Commit protocol (why a ``kill -9`` at any moment loses nothing and duplicates nothing): a worker writes each file
to ``part-….jsonl.tmp-<pid>``, ``fsync``\\ s it, renames it to its final name and ``fsync``\\ s the directory;
only then does the parent append the shard's record (row count, byte sizes, counts per reason/status/failure
type) to the manifest and ``fsync`` it. On a re-run with the same input and ``out``, a shard counts as done only if
its manifest record is intact and both files have the recorded sizes; everything else in ``kept/`` and
``dropped/`` (temporary files, shards written but not recorded) is deleted and recomputed under the same name. The
summary is the sum of the shard records, so ``n_in == n_kept + n_dropped`` holds over the whole input however many
times the run was interrupted. ``force=True`` deletes the previous run's outputs and starts over; a run over a
different input or with different options refuses to resume (``FilterOutputError``). A lock (``OUT/.lock``,
``flock``) keeps two runs from writing the same directory.

Inputs: a file, a directory (every ``.jsonl``/``.json``/``.csv``/``.parquet`` under it, recursively, skipping
names starting with ``.`` or ``_``), a glob, or a list of these. JSON Lines are parsed in the workers; a ``.json``
file that holds one JSON array is read whole (use JSON Lines for large inputs); CSV cells are read as text
(``pandas.read_csv`` in chunks; an empty cell is null); parquet through ``pyarrow.parquet`` in record batches.
A row without a problem or a completion is dropped with ``missing:problem`` / ``missing:completion``; an input
that cannot be read raises :class:`FilterInputError` naming the file (and the line for JSON Lines).

Throughput: rows/s scales with ``num_proc`` (default: the usable cores, ``len(os.sched_getaffinity(0))``);
peak memory is ``O(num_proc * shard_size)`` rows, independent of the input's length
(``benchmarks/bench_filter.py`` measures both).

Example
-------
>>> import json, os, tempfile
>>> tmp = tempfile.mkdtemp()
>>> rows = [{"question": "2 bags of 5 apples?", "answer": "2*5=<<2*5=10>>10\\n#### 10"},
...         {"question": "2 bags of 5 apples?", "answer": "2*5=<<2*5=11>>11\\n#### 10"}, {"question": "no answer"}]
>>> with open(os.path.join(tmp, "in.jsonl"), "w") as f:
...     _ = f.write("".join(json.dumps(r) + "\\n" for r in rows))
>>> s = filter_files(os.path.join(tmp, "in.jsonl"), os.path.join(tmp, "out"), num_proc=1, progress=False)
>>> s["n_in"], s["n_kept"], s["reasons"]
(3, 1, {'failure_type:silent_failure': 1, 'missing:completion': 1})
>>> sorted(os.listdir(os.path.join(tmp, "out", "kept")))
['part-00000-000000.jsonl']
"""

from __future__ import annotations

import concurrent.futures as cf
import glob as globlib
import json
import logging
import math
import multiprocessing
import os
import threading
import time
from typing import Any, Iterator, Mapping, Sequence

from rewards.adapters.files import atomic_write, fsync_folder
from rewards.adapters.filter_output import (
    DROPPED_DIR,
    KEPT_DIR,
    LOCK,
    MANIFEST,
    MANIFEST_VERSION,
    OUTPUT_NAMES,
    SUMMARY,
    FilterOutputError,
    check_output,
    clear_outputs,
    lock_output,
    orphan_shards,
    prune_shards,
    read_manifest,
    remove_quietly,
    remove_stale_temps,
    temp_name,
    write_json_atomic,
)
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

__all__ = ["filter_files", "resolve_inputs", "usable_cores", "read_rows", "FilterInputError", "FilterOutputError",
           "FORMATS", "DEFAULT_SHARD_SIZE", "MANIFEST", "SUMMARY", "KEPT_DIR", "DROPPED_DIR", "OUTPUT_NAMES", "LOCK",
           "clear_outputs", "read_manifest", "write_json_atomic", "lock_output", "check_output",
           "scorer_fingerprint"]

log = logging.getLogger(__name__)

FORMATS = {".jsonl": "json", ".json": "json", ".csv": "csv", ".parquet": "parquet"}
DEFAULT_SHARD_SIZE = 1000


class FilterInputError(ValueError):
    """The input cannot be read (names the file, and the line for JSON Lines)."""


class _Orphaned(RuntimeError):
    """A worker whose parent died: it must not publish files any more."""


def usable_cores() -> int:
    """The CPU cores this process may run on (``len(os.sched_getaffinity(0))``; ``os.cpu_count()`` elsewhere)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - macOS / Windows
        return max(1, os.cpu_count() or 1)


# ----------------------------------------------------------------------------------------------------- inputs

def _is_data_file(path: str) -> bool:
    name = os.path.basename(path)
    return not name.startswith((".", "_")) and os.path.splitext(name)[1].lower() in FORMATS


def resolve_inputs(inputs: str | os.PathLike | Sequence[str | os.PathLike]) -> list[str]:
    """The input files, absolute and sorted: a file, a directory of shards (recursive), a glob, or a list of these.

    >>> resolve_inputs("/nonexistent/x.jsonl")
    Traceback (most recent call last):
    ...
    rewards.adapters.filter_shards.FilterInputError: input '/nonexistent/x.jsonl' does not exist; pass a .jsonl, .json, .csv or .parquet file, a directory of them, or a glob
    """
    if isinstance(inputs, (list, tuple)):
        files = [f for item in inputs for f in resolve_inputs(item)]
        if len(set(files)) != len(files):
            raise FilterInputError(f"inputs {[str(i) for i in inputs]} name the same file twice; list each once")
        return files
    path = os.fspath(inputs)
    if os.path.isdir(path):
        found = sorted(os.path.abspath(os.path.join(root, name))
                       for root, dirs, names in os.walk(path)
                       for name in names if _is_data_file(name)
                       if not any(part.startswith((".", "_")) for part in os.path.relpath(root, path).split(os.sep)
                                  if part != "."))
        if not found:
            raise FilterInputError(f"input directory {path!r} holds no .jsonl, .json, .csv or .parquet file")
        return found
    if any(ch in path for ch in "*?[") and not os.path.exists(path):
        found = sorted(os.path.abspath(p) for p in globlib.glob(path, recursive=True) if os.path.isfile(p))
        if not found:
            raise FilterInputError(f"input glob {path!r} matches no file")
        bad = [p for p in found if os.path.splitext(p)[1].lower() not in FORMATS]
        if bad:
            raise FilterInputError(f"input glob {path!r} matches {bad[0]!r}, which is not .jsonl, .json, .csv or "
                                   ".parquet; narrow the pattern")
        return found
    if not os.path.exists(path):
        raise FilterInputError(f"input {path!r} does not exist; pass a .jsonl, .json, .csv or .parquet file, a "
                               "directory of them, or a glob")
    ext = os.path.splitext(path)[1].lower()
    if ext not in FORMATS:
        raise FilterInputError(f"input file {path!r} has extension {ext or '(none)'!r}; use one of {sorted(FORMATS)}")
    if os.path.getsize(path) == 0:
        raise FilterInputError(f"input file {path!r} is empty; it must hold at least one row")
    return [os.path.abspath(path)]


def _first_char(path: str) -> str:
    with open(path, "rb") as handle:
        while True:
            block = handle.read(4096)
            if not block:
                return ""
            stripped = block.lstrip()
            if stripped:
                return stripped[:1].decode("latin-1")


def _iter_blocks(path: str, size: int) -> Iterator[list]:
    """Row blocks of a file: ``(line_number, text)`` pairs for JSON Lines (parsed later, in the workers), dicts
    otherwise. Raises :class:`FilterInputError` naming the file when it cannot be read."""
    ext = os.path.splitext(path)[1].lower()
    try:
        if ext in (".jsonl", ".json") and not (ext == ".json" and _first_char(path) == "["):
            block: list = []
            with open(path, encoding="utf-8") as handle:
                for lineno, line in enumerate(handle, 1):
                    if line.strip():
                        block.append((lineno, line))
                        if len(block) >= size:
                            yield block
                            block = []
            if block:
                yield block
        elif ext == ".json":
            with open(path, encoding="utf-8") as handle:
                data = json.load(handle)
            if not all(isinstance(r, dict) for r in data):
                raise FilterInputError(f"could not read {path!r}: a .json input must be JSON Lines or one array of "
                                       "objects")
            for i in range(0, len(data), size):
                yield data[i:i + size]
        elif ext == ".csv":
            import pandas as pd

            for frame in pd.read_csv(path, chunksize=size, dtype=str, keep_default_na=False, na_values=[""]):
                yield frame.astype(object).where(frame.notna(), None).to_dict("records")
        else:
            import pyarrow.parquet as pq

            for batch in pq.ParquetFile(path).iter_batches(batch_size=size):
                yield batch.to_pylist()
    except FilterInputError:
        raise
    except (OSError, ValueError, UnicodeDecodeError, ImportError) as exc:
        raise FilterInputError(f"could not read {path!r}: {type(exc).__name__}: {_first_line(exc)}") from None
    except Exception as exc:  # noqa: BLE001 - pyarrow / pandas parser errors of every kind
        raise FilterInputError(f"could not read {path!r}: {type(exc).__name__}: {_first_line(exc)}") from None


def _chunks(path: str, size: int) -> Iterator[list]:
    """Exactly ``size`` rows per chunk (the last may be shorter), whatever the reader's block sizes."""
    buffer: list = []
    for block in _iter_blocks(path, size):
        buffer.extend(block)
        while len(buffer) >= size:
            yield buffer[:size]
            buffer = buffer[size:]
    if buffer:
        yield buffer


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else ""


def _parse(path: str, items: list) -> list[dict]:
    rows = []
    for item in items:
        if isinstance(item, tuple):  # (line number, JSON text)
            lineno, text = item
            try:
                row = json.loads(text)
            except json.JSONDecodeError as exc:
                raise FilterInputError(f"could not read {path!r} line {lineno}: JSONDecodeError: {exc}") from None
            if not isinstance(row, dict):
                raise FilterInputError(f"could not read {path!r} line {lineno}: expected one JSON object per line, "
                                       f"got a {type(row).__name__}")
            rows.append(row)
        else:
            rows.append(item)
    return rows


def read_rows(inputs: str | os.PathLike | Sequence[str | os.PathLike], chunk_size: int = DEFAULT_SHARD_SIZE
              ) -> Iterator[dict]:
    """Stream the rows of the inputs (see :func:`resolve_inputs`), in order, ``chunk_size`` rows in memory at most."""
    for path in resolve_inputs(inputs):
        for chunk in _chunks(path, chunk_size):
            yield from _parse(path, chunk)


def _count_rows(path: str) -> int | None:
    """Cheap row counts for the progress bar: JSON Lines (newlines) and parquet (metadata); None otherwise."""
    ext = os.path.splitext(path)[1].lower()
    try:
        if ext == ".parquet":
            import pyarrow.parquet as pq

            return pq.ParquetFile(path).metadata.num_rows
        if ext == ".jsonl":
            n = 0
            with open(path, "rb") as handle:
                while block := handle.read(1 << 20):
                    n += block.count(b"\n")
            return n
    except Exception:  # noqa: BLE001 - only a progress bar
        return None
    return None


# ---------------------------------------------------------------------------------------------------- workers

_WORKER: dict[str, Any] = {}


def _worker_init(lock_fd: int | None) -> None:
    if lock_fd is not None:  # a forked copy of the parent's lock: close it so only the parent holds the lock
        try:
            os.close(lock_fd)
        except OSError:
            pass
    parent = _WORKER["parent"] = os.getppid()

    def watchdog() -> None:  # the main process was killed (kill -9): an orphaned worker must not linger
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(1)

    threading.Thread(target=watchdog, name="rafs-filter-watchdog", daemon=True).start()


def _durable_write(path: str, lines: Sequence[str]) -> int:
    """Write ``lines`` to ``path`` atomically and durably (temp file, fsync, rename, fsync of the folder: the
    :func:`~rewards.adapters.files.atomic_write` with ``durable=True``); returns the byte size."""

    def write(tmp: str) -> None:
        with open(tmp, "w", encoding="utf-8") as handle:
            handle.writelines(lines)
        parent = _WORKER.get("parent")
        if parent is not None and os.getppid() != parent:  # our run was killed: publish nothing (tmp is deleted)
            raise _Orphaned(path)

    atomic_write(path, write, durable=True, tmp=temp_name(path))
    return os.path.getsize(path)


def _dumps(row: Mapping[str, Any]) -> str:
    return json.dumps(row, ensure_ascii=False, default=str) + "\n"


def _score_shard(task: dict[str, Any]) -> dict[str, Any]:
    """Score one chunk and publish its two files; returns the manifest record (runs in a worker process)."""
    spec: FilterSpec = task["spec"]
    path = task["path"]
    rows = _parse(path, task["items"])
    kept_lines, dropped_lines, verdicts = [], [], []
    for i, row in enumerate(rows):
        try:
            ours = own_columns(list(row))
        except ValueError as exc:
            raise FilterInputError(f"row {task['start'] + i} of {path!r}: {exc}") from None
        for column in ours:
            row.pop(column)
        verdict = score_row(row, spec)
        verdicts.append(verdict)
        if verdict["reason"] is None:
            kept_lines.append(_dumps({**row, **{c: verdict[c] for c in OUTPUT_COLUMNS if c not in REASON_COLUMNS}}))
        else:
            dropped_lines.append(_dumps({**row, **verdict}))
    out, name = task["out"], task["name"]
    kept_bytes = _durable_write(os.path.join(out, KEPT_DIR, f"part-{name}.jsonl"), kept_lines)
    dropped_bytes = _durable_write(os.path.join(out, DROPPED_DIR, f"part-{name}.jsonl"), dropped_lines)
    counts = summarize_counts([v["reason"] for v in verdicts], [v["status"] for v in verdicts],
                              [v["failure_type"] for v in verdicts], [v["rafs"] for v in verdicts])
    return {"shard": name, "file": task["file"], "start": task["start"], "rows": len(rows),
            "kept_bytes": kept_bytes, "dropped_bytes": dropped_bytes, "counts": counts}


def scorer_fingerprint() -> str:
    """A hash of the scorer's code and data: every file of the ``rewards`` package except the other adapters
    (``rewards/adapters/*`` but ``filtering.py``, which makes the per-row decision). A resume under a changed scorer
    would mix two scorers' verdicts, so it is refused."""
    import hashlib

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # .../rewards
    digest = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__" and not d.startswith("."))
        for name in sorted(filenames):
            rel = os.path.relpath(os.path.join(dirpath, name), root)
            if not name.endswith((".py", ".json", ".jsonl", ".txt", ".yaml", ".csv")):
                continue
            if rel.startswith("adapters" + os.sep) and rel != os.path.join("adapters", "filtering.py"):
                continue
            digest.update(rel.encode() + b"\0")
            with open(os.path.join(dirpath, name), "rb") as handle:
                digest.update(handle.read() + b"\0")
    return digest.hexdigest()[:16]


def _fingerprint(files: Sequence[str]) -> list[dict[str, Any]]:
    out = []
    for path in files:
        st = os.stat(path)
        out.append({"path": path, "size": st.st_size, "mtime_ns": st.st_mtime_ns})
    return out


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


# ----------------------------------------------------------------------------------------------------- driver

def filter_files(
    inputs: str | os.PathLike | Sequence[str | os.PathLike],
    out: str | os.PathLike,
    *,
    min_rafs: float | None = None,
    statuses: Sequence[str] | str = DEFAULT_STATUSES,
    drop_failure_types: Sequence[str] | str | None = DEFAULT_DROP_FAILURE_TYPES,
    layout: str = "auto",
    config: RAFSConfig | Mapping[str, Any] | None = None,
    gold_column: str | None = None,
    num_proc: int | None = None,
    shard_size: int = DEFAULT_SHARD_SIZE,
    force: bool = False,
    progress: bool = True,
) -> dict[str, Any]:
    """Filter files into ``out``'s sharded layout (module docstring); resume an interrupted run over the same input.

    Args:
        inputs: a file, a directory of shards, a glob, or a list of these (:func:`resolve_inputs`).
        out: the output directory: new, empty, or holding an interrupted run over the same inputs and options
            (resumed). Anything else needs ``force=True``, which deletes only this filter's outputs in it.
        min_rafs, statuses, drop_failure_types, layout, config, gold_column: as in
            :func:`rewards.adapters.filtering.filter_dataset`; the layout is detected from the first chunk's columns.
        num_proc: worker processes (default :func:`usable_cores`); 1 scores in this process.
        shard_size: rows per chunk and output shard (part of the run: a resume must use the same).
        force: start over, deleting a previous run's outputs in ``out``.
        progress: a tqdm progress bar on stderr.

    Returns:
        The summary (also written to ``out/summary.json``): ``n_in``, ``n_kept``, ``n_dropped``, ``reasons``,
        ``statuses``, ``failure_types``, ``rafs_mean``, ``thresholds``, plus ``inputs``, ``output``, ``engine``,
        ``num_proc``, ``shard_size``, ``shards``, ``shards_resumed``, ``rows_scored`` (this invocation),
        ``seconds`` and ``rows_per_second`` (this invocation's scored rows).

    Raises:
        FilterInputError: an input that is missing or unreadable (names the file).
        FilterOutputError: ``out`` is not usable without ``force`` (names why).
        ValueError: a bad option (names it).
    """
    started = time.perf_counter()
    if not isinstance(shard_size, int) or isinstance(shard_size, bool) or shard_size < 1:
        raise ValueError(f"shard_size={shard_size!r} must be a positive integer")
    if num_proc is None:
        num_proc = usable_cores()
    if not isinstance(num_proc, int) or isinstance(num_proc, bool) or num_proc < 1:
        raise ValueError(f"num_proc={num_proc!r} must be a positive integer or None (the usable cores)")
    out = os.path.abspath(os.fspath(out))
    files = resolve_inputs(inputs)
    check_output(files, out)
    spec = _first_chunk_spec(files, shard_size, min_rafs=min_rafs, statuses=statuses,
                             drop_failure_types=drop_failure_types, layout=layout, config=config,
                             gold_column=gold_column)
    header = {"version": MANIFEST_VERSION, "engine": "local", "inputs": _fingerprint(files), "shard_size": shard_size,
              "thresholds": spec.thresholds(), "scorer": scorer_fingerprint()}

    created = not os.path.exists(out)
    os.makedirs(out, exist_ok=True)
    lock_fd = lock_output(out)
    run = None
    try:
        records, complete = _open_output(out, header, force)
        if complete is not None:
            return complete
        run = _ShardRun.resume(out, files, spec, shard_size, records, header, progress)
        workers = run.workers(num_proc)
        run.score(workers, lock_fd)
        summary = summary_from_counts(run.counts(), spec, seconds=time.perf_counter() - started,
                                      rows_scored=run.scored)
        summary.update({
            "inputs": files if len(files) > 1 else files[0],
            "input": files[0] if len(files) == 1 else os.path.commonpath(files),
            "output": {"kept": f"{KEPT_DIR}/*.jsonl", "dropped": f"{DROPPED_DIR}/*.jsonl", "manifest": MANIFEST},
            "engine": "local",
            "scorer": header["scorer"],
            "num_proc": workers,
            "shard_size": shard_size,
            "shards": run.n_shards,
            "shards_resumed": run.resumed,
            "rows_scored": run.scored,
        })
        write_json_atomic(os.path.join(out, SUMMARY), summary)
        return summary
    except BaseException:
        if run is None or not run.committed_any:  # nothing durable was produced: leave no trace of this run
            if created:
                clear_outputs(out)
            if not os.path.exists(os.path.join(out, MANIFEST)):
                remove_quietly(os.path.join(out, LOCK))
            if created:
                remove_quietly(out)
        raise
    finally:
        os.close(lock_fd)


def _first_chunk_spec(files: list[str], shard_size: int, **options: Any) -> FilterSpec:
    """The run's spec: the options validated, the layout from the first chunk's columns (deterministic, so a
    resume agrees)."""
    first = None
    for path in files:
        for chunk in _chunks(path, shard_size):
            first = (path, _parse(path, chunk))
            break
        if first is not None:
            break
    if first is None:
        raise FilterInputError(f"input {files[0] if len(files) == 1 else files!r} holds no rows")
    columns = list(dict.fromkeys(k for row in first[1] for k in row))
    try:
        own_columns(columns)
    except ValueError as exc:
        raise FilterInputError(f"{first[0]!r}: {exc}") from None
    return make_spec(columns, **options)


def _open_output(out: str, header: dict, force: bool) -> tuple[dict[str, dict], dict | None]:
    """Make ``out`` ready for this run: ``(records of the shards a previous run committed, None)``, or ``({}, the
    summary)`` when ``out`` already holds this run complete. Refuses (``FilterOutputError``) another engine's run, a
    run with other inputs or options, or a folder that holds no filter run; ``force`` clears this filter's outputs
    and starts over."""
    old_header, records = read_manifest(out)
    if old_header is not None and not force and old_header.get("engine") != "local":
        raise FilterOutputError(f"{out!r} holds a run of --engine {old_header.get('engine')}, which the local "
                                "engine does not resume; pass --force to start over or choose another directory")
    if old_header is not None and not force:
        differs = [k for k in ("inputs", "shard_size", "thresholds", "scorer")
                   if _canonical(old_header.get(k)) != _canonical(header[k])]
        if differs:
            what = {"inputs": "the input files (paths, sizes or modification times) differ",
                    "shard_size": f"shard_size was {old_header.get('shard_size')}, now {header['shard_size']}",
                    "thresholds": "the filter options or RAFS config differ",
                    "scorer": "the RAFS scorer's code changed since the run started (its verdicts would mix "
                              "with the new scorer's)"}
            raise FilterOutputError(f"{out!r} holds a run that cannot be resumed with these arguments: "
                                    f"{'; '.join(what[k] for k in differs)}; pass --force to start over or "
                                    "choose another output directory")
        if os.path.exists(os.path.join(out, SUMMARY)):
            with open(os.path.join(out, SUMMARY), encoding="utf-8") as handle:
                summary = json.load(handle)
            log.info("%s already holds the complete run; nothing to do", out)
            summary["already_complete"] = True
            return {}, summary
    elif old_header is None and not force:
        orphans = orphan_shards(out)
        if orphans is not None and any(n != LOCK for n in os.listdir(out)):  # an interrupted run's workers published shards after its cleanup: ours, never committed
            log.warning("%s holds %d shard file(s) an interrupted run left without a manifest; starting over",
                        out, len(orphans))
            clear_outputs(out)
        extra = [n for n in os.listdir(out) if n != LOCK]
        if extra:
            raise FilterOutputError(f"--out {out!r} exists and is not empty ({', '.join(sorted(extra)[:3])}"
                                    f"{', ...' if len(extra) > 3 else ''}) and holds no rafs filter run; choose a "
                                    "new directory or pass --force to replace this filter's outputs in it")
    if force:
        clear_outputs(out)
        records = {}
    os.makedirs(os.path.join(out, KEPT_DIR), exist_ok=True)
    os.makedirs(os.path.join(out, DROPPED_DIR), exist_ok=True)
    remove_stale_temps(out)
    fsync_folder(out)
    return records, None


class _ShardRun:
    """One run over ``files`` into ``out``: the shards done (``(rows, start)`` each: the state kept in memory is
    O(shards)), the running counts, the open manifest each committed shard is appended to, the progress bar, and
    what this invocation read and scored."""

    def __init__(self, out: str, files: list[str], spec: FilterSpec, shard_size: int, intact: list[dict],
                 header: dict, progress: bool) -> None:
        self.out, self.files, self.spec, self.shard_size = out, files, spec, shard_size
        write_json_atomic(os.path.join(out, MANIFEST), None, lines=[header, *intact])  # drops torn/stale lines
        self.done: dict[str, tuple[int, int]] = {rec["shard"]: (rec["rows"], rec.get("start")) for rec in intact}
        self.running = merge_counts([rec["counts"] for rec in intact])
        self.rafs_sums = [float(rec["counts"]["rafs_sum"]) for rec in intact]  # fsum'd at the end: order-independent
        self.resumed = len(self.done)
        self.committed_any = bool(self.done)
        self.pending: set[str] = set()
        self.n_in = self.n_shards = self.n_skipped = self.scored = 0
        self.manifest = open(os.path.join(out, MANIFEST), "a", encoding="utf-8")
        self.totals = [_count_rows(p) for p in files]  # the progress bar's total and a cap on the workers
        self.bar = None
        if progress:
            from tqdm.auto import tqdm

            total = sum(self.totals) if self.totals and all(t is not None for t in self.totals) else None
            self.bar = tqdm(total=total, desc="RAFS filter", unit="rows", dynamic_ncols=True)
            self.bar.update(self.running["n"])

    @classmethod
    def resume(cls, out: str, files: list[str], spec: FilterSpec, shard_size: int, records: dict[str, dict],
               header: dict, progress: bool) -> "_ShardRun":
        """A shard is done only if its record is intact and both files have the recorded sizes; the others' files
        are deleted (recomputed under the same names)."""
        intact = []
        for name, rec in records.items():
            kept = os.path.join(out, KEPT_DIR, f"part-{name}.jsonl")
            dropped = os.path.join(out, DROPPED_DIR, f"part-{name}.jsonl")
            if (os.path.isfile(kept) and os.path.getsize(kept) == rec.get("kept_bytes")
                    and os.path.isfile(dropped) and os.path.getsize(dropped) == rec.get("dropped_bytes")):
                intact.append(rec)
            else:
                log.warning("shard %s is in the manifest but its files are missing or changed; recomputing it", name)
        prune_shards(out, {f"part-{rec['shard']}.jsonl" for rec in intact})
        return cls(out, files, spec, shard_size, intact, header, progress)

    def commit(self, record: dict) -> None:
        """Append a scored shard's record to the manifest (durably) and count it."""
        self.manifest.write(json.dumps(record, ensure_ascii=False) + "\n")
        self.manifest.flush()
        os.fsync(self.manifest.fileno())
        self.done[record["shard"]] = (record["rows"], record["start"])
        self.pending.discard(record["shard"])
        self.running = merge_counts([self.running, record["counts"]])
        self.rafs_sums.append(float(record["counts"]["rafs_sum"]))
        self.committed_any = True
        if self.bar is not None:
            self.bar.update(record["rows"])

    def tasks(self) -> Iterator[dict]:
        """The chunks still to score, each a worker's task; a chunk done before must still have its rows."""
        for fi, path in enumerate(self.files):
            for ci, items in enumerate(_chunks(path, self.shard_size)):
                name = f"{fi:05d}-{ci:06d}"
                self.n_shards += 1
                self.n_in += len(items)
                if name in self.done:
                    if self.done[name] != (len(items), ci * self.shard_size):
                        raise FilterOutputError(f"shard {name} of {self.out!r} holds {self.done[name][0]} rows but "
                                                f"the input has {len(items)} there: the input changed; pass --force")
                    self.n_skipped += 1
                    continue
                self.scored += len(items)
                self.pending.add(name)
                yield {"spec": self.spec, "path": path, "items": items, "out": self.out, "name": name, "file": fi,
                       "start": ci * self.shard_size}

    def workers(self, num_proc: int) -> int:
        """``num_proc``, but no more workers than shards to score."""
        if num_proc > 1 and all(t is not None for t in self.totals):
            todo = sum(-(-t // self.shard_size) for t in self.totals) - len(self.done)
            return max(1, min(num_proc, todo))
        return num_proc

    def score(self, workers: int, lock_fd: int) -> None:
        """Score every pending chunk (in this process when ``workers == 1``), committing each as it arrives."""
        try:
            if workers == 1:
                for task in self.tasks():
                    self.commit(_score_shard(task))
            else:
                _run_pool(self.tasks(), self.commit, workers, lock_fd)
        finally:
            self.manifest.close()
            if self.bar is not None:
                self.bar.close()

    def counts(self) -> dict[str, Any]:
        """The run's counts over every shard, checked: every chunk committed, every row counted once."""
        if self.pending:  # every chunk was either committed now or before; anything else is a bug
            raise RuntimeError(f"filter lost shards {sorted(self.pending)[:5]} of {self.out!r}")
        if self.n_skipped != self.resumed:
            raise FilterOutputError(f"{self.out!r}'s manifest names {self.resumed - self.n_skipped} shard(s) the "
                                    "input does not have: the input changed; pass --force to start over")
        counts = {**self.running, "rafs_sum": math.fsum(self.rafs_sums)}
        n_in = self.n_in
        if counts["n"] != n_in or counts["n_kept"] + counts["n_dropped"] != n_in:
            raise RuntimeError(f"filter lost rows: n_in={n_in}, shard records sum to {counts['n']} "
                               f"(kept {counts['n_kept']}, dropped {counts['n_dropped']})")
        return counts


def _run_pool(tasks: Iterator[dict], commit, workers: int, lock_fd: int) -> None:
    """Score tasks on ``workers`` processes, at most ``2 * workers`` in flight (so memory stays flat), committing
    each result as it arrives; on an error, commit what finished, stop the rest, re-raise."""
    ctx = multiprocessing.get_context()
    inherited = lock_fd if ctx.get_start_method() == "fork" else None
    pool = cf.ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_worker_init,
                                  initargs=(inherited,))
    pending: set[cf.Future] = set()
    error: BaseException | None = None
    try:
        for task in tasks:
            while len(pending) >= 2 * workers:
                finished, pending = cf.wait(pending, return_when=cf.FIRST_COMPLETED)
                for future in finished:
                    commit(future.result())
            pending.add(pool.submit(_score_shard, task))
        for future in cf.as_completed(list(pending)):
            pending.discard(future)
            commit(future.result())
    except BaseException as exc:
        error = exc
        for future in list(pending):  # keep what finished cleanly; cancel what has not started
            if future.done() and not future.cancelled() and future.exception() is None:
                commit(future.result())
            else:
                future.cancel()
        raise
    finally:
        pool.shutdown(wait=not isinstance(error, KeyboardInterrupt), cancel_futures=True)
