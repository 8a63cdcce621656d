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
import re
import threading
import time
from typing import Any, Iterator, Mapping, Sequence

from rewards.adapters.files import atomic_write, fsync_folder
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
MANIFEST = "manifest.jsonl"
SUMMARY = "summary.json"
KEPT_DIR = "kept"
DROPPED_DIR = "dropped"
LOCK = ".lock"
LEGACY = ("kept.jsonl", "dropped.jsonl")  # the single-file layout of earlier versions
OUTPUT_NAMES = (MANIFEST, SUMMARY, KEPT_DIR, DROPPED_DIR, *LEGACY)
_VERSION = 1


class FilterInputError(ValueError):
    """The input cannot be read (names the file, and the line for JSON Lines)."""


class FilterOutputError(ValueError):
    """The output directory cannot be used as asked (not empty, another run's, locked)."""


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


def _temp_name(path: str) -> str:
    """The temporary name a file is written under before it is renamed into place (:func:`clear_outputs`,
    :func:`_prune` and :func:`_remove_stale_temps` delete the ones a killed run left)."""
    return f"{path}.tmp-{os.getpid()}"


def _durable_write(path: str, lines: Sequence[str]) -> int:
    """Write ``lines`` to ``path`` atomically and durably (temp file, fsync, rename, fsync of the folder: the
    :func:`~rewards.adapters.files.atomic_write` with ``durable=True``); returns the byte size."""

    def write(tmp: str) -> None:
        with open(tmp, "w", encoding="utf-8") as handle:
            handle.writelines(lines)
        parent = _WORKER.get("parent")
        if parent is not None and os.getppid() != parent:  # our run was killed: publish nothing (tmp is deleted)
            raise _Orphaned(path)

    atomic_write(path, write, durable=True, tmp=_temp_name(path))
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


# ----------------------------------------------------------------------------------------------------- output

def lock_output(out: str) -> int:
    import fcntl

    fd = os.open(os.path.join(out, LOCK), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise FilterOutputError(f"another rafs filter is writing to {out!r}; wait for it to finish or choose another "
                                "output directory") from None
    return fd


def read_manifest(out: str) -> tuple[dict | None, dict[str, dict]]:
    """(header, {shard name: record}) from ``OUT/manifest.jsonl``; a torn last line (a crash mid-append) is
    ignored."""
    path = os.path.join(out, MANIFEST)
    if not os.path.exists(path):
        return None, {}
    with open(path, encoding="utf-8") as handle:
        lines = handle.read().split("\n")
    records: dict[str, dict] = {}
    header = None
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            if i >= len(lines) - 2:  # only the last line can be torn
                log.warning("ignoring a torn last line in %s", path)
                continue
            raise FilterOutputError(f"{path!r} line {i + 1} is corrupt; pass --force to start over") from None
        if header is None:
            header = entry
        else:
            records[entry["shard"]] = entry
    if header is None or header.get("version") != _VERSION:
        raise FilterOutputError(f"{path!r} is not a rafs filter manifest (version {_VERSION}); pass --force to start "
                                "over or choose another output directory")
    return header, records


def write_json_atomic(path: str, data: Any, *, lines: Sequence[Any] | None = None) -> None:
    """Write ``data`` as indented JSON, or ``lines`` as JSON Lines, to ``path`` atomically and durably
    (:func:`~rewards.adapters.files.atomic_write` with ``durable=True``)."""

    def write(tmp: str) -> None:
        with open(tmp, "w", encoding="utf-8") as handle:
            if lines is None:
                json.dump(data, handle, indent=2, ensure_ascii=False, default=str)
                handle.write("\n")
            else:
                handle.writelines(json.dumps(x, ensure_ascii=False, default=str) + "\n" for x in lines)

    atomic_write(path, write, durable=True, tmp=_temp_name(path))


def clear_outputs(out: str) -> None:
    """Delete what this filter writes in ``out`` (and nothing else)."""
    for name in (MANIFEST, SUMMARY, *LEGACY):
        path = os.path.join(out, name)
        if os.path.isfile(path):
            os.remove(path)
    _remove_stale_temps(out)
    for sub in (KEPT_DIR, DROPPED_DIR):
        folder = os.path.join(out, sub)
        if not os.path.isdir(folder):
            continue
        for name in os.listdir(folder):  # our shards (part-*), Ray's (<uuid>_*.jsonl), temporary files
            if name.endswith(".jsonl") or ".jsonl.tmp-" in name:
                os.remove(os.path.join(folder, name))
        if not os.listdir(folder):
            os.rmdir(folder)


def _remove_stale_temps(out: str) -> None:
    """Temporary manifest/summary files a killed run left (the real files are intact: they are only renamed into
    place)."""
    for name in os.listdir(out):
        if name.startswith((f"{MANIFEST}.tmp-", f"{SUMMARY}.tmp-")):
            os.remove(os.path.join(out, name))


def _prune(out: str, valid: set[str]) -> None:
    """Delete shard files in kept/ and dropped/ that no intact manifest record names (temp files, uncommitted)."""
    for sub in (KEPT_DIR, DROPPED_DIR):
        folder = os.path.join(out, sub)
        for name in os.listdir(folder):
            if name.startswith("part-") and name not in valid:
                os.remove(os.path.join(folder, name))


_ORPHAN = re.compile(r"part-\d{5}-\d{6}\.jsonl(\.tmp-\d+)?")


def _orphan_shards(out: str) -> list[str] | None:
    """The shard files in ``out`` when it holds nothing else of anyone's: ``kept/`` and ``dropped/`` with only this
    filter's shard names (``part-FFFFF-CCCCCC.jsonl`` and their temporary files) and at most the lock and stale
    temporary manifest/summary files beside them. A run interrupted before its first shard was committed leaves
    this (its cleanup ran while queued workers were still writing); anything else returns None (the folder is not
    ours to clear)."""
    found: list[str] = []
    for name in os.listdir(out):
        path = os.path.join(out, name)
        if name == LOCK or name.startswith((f"{MANIFEST}.tmp-", f"{SUMMARY}.tmp-")):
            continue
        if name not in (KEPT_DIR, DROPPED_DIR) or not os.path.isdir(path):
            return None
        for entry in os.listdir(path):
            if not _ORPHAN.fullmatch(entry) or not os.path.isfile(os.path.join(path, entry)):
                return None
            found.append(os.path.join(name, entry))
    return found


def check_output(files: Sequence[str], out: str) -> None:
    """Refuse an output directory that is a file or that contains an input file (it would be overwritten)."""
    out = os.path.abspath(out)
    for path in files:
        if path == out or path.startswith(out + os.sep):
            raise FilterOutputError(f"input {path!r} is inside the output directory {out!r}; write to another "
                                    "directory so the input is not overwritten")
    if os.path.exists(out) and not os.path.isdir(out):
        raise FilterOutputError(f"output {out!r} exists and is not a directory; choose a new directory")


def _remove_quietly(path: str) -> None:
    try:
        os.rmdir(path) if os.path.isdir(path) else os.remove(path)
    except OSError:
        pass


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

    # the spec: options validated, layout from the first chunk's columns (deterministic, so a resume agrees)
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
    spec = make_spec(columns, min_rafs=min_rafs, statuses=statuses, drop_failure_types=drop_failure_types,
                     layout=layout, config=config, gold_column=gold_column)
    fingerprint = _fingerprint(files)
    header = {"version": _VERSION, "engine": "local", "inputs": fingerprint, "shard_size": shard_size,
              "thresholds": spec.thresholds(), "scorer": scorer_fingerprint()}

    created = not os.path.exists(out)
    os.makedirs(out, exist_ok=True)
    lock_fd = lock_output(out)
    committed_any = False
    try:
        old_header, records = read_manifest(out)
        if old_header is not None and not force and old_header.get("engine") != "local":
            raise FilterOutputError(f"{out!r} holds a run of --engine {old_header.get('engine')}, which the local "
                                    "engine does not resume; pass --force to start over or choose another directory")
        if old_header is not None and not force:
            differs = [k for k in ("inputs", "shard_size", "thresholds", "scorer")
                       if _canonical(old_header.get(k)) != _canonical(header[k])]
            if differs:
                what = {"inputs": "the input files (paths, sizes or modification times) differ",
                        "shard_size": f"shard_size was {old_header.get('shard_size')}, now {shard_size}",
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
                return summary
        elif old_header is None and not force:
            orphans = _orphan_shards(out)
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
            old_header, records = None, {}
        os.makedirs(os.path.join(out, KEPT_DIR), exist_ok=True)
        os.makedirs(os.path.join(out, DROPPED_DIR), exist_ok=True)
        _remove_stale_temps(out)
        fsync_folder(out)

        # a shard is done only if its record is intact and both files have the recorded sizes; the state kept in
        # memory is O(shards): (rows, start) per done shard and the running counts
        intact = []
        for name, rec in records.items():
            kept = os.path.join(out, KEPT_DIR, f"part-{name}.jsonl")
            dropped = os.path.join(out, DROPPED_DIR, f"part-{name}.jsonl")
            if (os.path.isfile(kept) and os.path.getsize(kept) == rec.get("kept_bytes")
                    and os.path.isfile(dropped) and os.path.getsize(dropped) == rec.get("dropped_bytes")):
                intact.append(rec)
            else:
                log.warning("shard %s is in the manifest but its files are missing or changed; recomputing it", name)
        _prune(out, {f"part-{rec['shard']}.jsonl" for rec in intact})
        write_json_atomic(os.path.join(out, MANIFEST), None, lines=[header, *intact])  # drops torn/stale lines
        done: dict[str, tuple[int, int]] = {rec["shard"]: (rec["rows"], rec.get("start")) for rec in intact}
        running = merge_counts([rec["counts"] for rec in intact])
        rafs_sums = [float(rec["counts"]["rafs_sum"]) for rec in intact]  # fsum'd at the end: order-independent
        resumed = len(done)
        del records, intact
        committed_any = bool(done)
        pending: set[str] = set()
        manifest = open(os.path.join(out, MANIFEST), "a", encoding="utf-8")

        def commit(record: dict) -> None:
            nonlocal committed_any, running
            manifest.write(json.dumps(record, ensure_ascii=False) + "\n")
            manifest.flush()
            os.fsync(manifest.fileno())
            done[record["shard"]] = (record["rows"], record["start"])
            pending.discard(record["shard"])
            running = merge_counts([running, record["counts"]])
            rafs_sums.append(float(record["counts"]["rafs_sum"]))
            committed_any = True
            if bar is not None:
                bar.update(record["rows"])

        totals = [_count_rows(p) for p in files]  # the progress bar's total and a cap on the workers
        bar = None
        if progress:
            from tqdm.auto import tqdm

            total = sum(totals) if totals and all(t is not None for t in totals) else None
            bar = tqdm(total=total, desc="RAFS filter", unit="rows", dynamic_ncols=True)
            bar.update(running["n"])

        n_in = n_shards = n_skipped = scored = 0

        def tasks() -> Iterator[dict]:
            nonlocal n_in, n_shards, n_skipped, scored
            for fi, path in enumerate(files):
                for ci, items in enumerate(_chunks(path, shard_size)):
                    name = f"{fi:05d}-{ci:06d}"
                    n_shards += 1
                    n_in += len(items)
                    if name in done:
                        if done[name] != (len(items), ci * shard_size):
                            raise FilterOutputError(f"shard {name} of {out!r} holds {done[name][0]} rows but the "
                                                    f"input has {len(items)} there: the input changed; pass --force")
                        n_skipped += 1
                        continue
                    scored += len(items)
                    pending.add(name)
                    yield {"spec": spec, "path": path, "items": items, "out": out, "name": name, "file": fi,
                           "start": ci * shard_size}

        workers = num_proc
        if workers > 1:
            if all(t is not None for t in totals):  # no more workers than shards to score
                todo = sum(-(-t // shard_size) for t in totals) - len(done)
                workers = max(1, min(workers, todo))
        try:
            if workers == 1:
                for task in tasks():
                    commit(_score_shard(task))
            else:
                _run_pool(tasks(), commit, workers, lock_fd)
        finally:
            manifest.close()
            if bar is not None:
                bar.close()

        if pending:  # every chunk was either committed now or before; anything else is a bug
            raise RuntimeError(f"filter lost shards {sorted(pending)[:5]} of {out!r}")
        if n_skipped != resumed:
            raise FilterOutputError(f"{out!r}'s manifest names {resumed - n_skipped} shard(s) the input does not "
                                    "have: the input changed; pass --force to start over")
        counts = {**running, "rafs_sum": math.fsum(rafs_sums)}
        if counts["n"] != n_in or counts["n_kept"] + counts["n_dropped"] != n_in:
            raise RuntimeError(f"filter lost rows: n_in={n_in}, shard records sum to {counts['n']} "
                               f"(kept {counts['n_kept']}, dropped {counts['n_dropped']})")
        seconds = time.perf_counter() - started
        summary = summary_from_counts(counts, spec, seconds=seconds, rows_scored=scored)
        summary.update({
            "inputs": files if len(files) > 1 else files[0],
            "input": files[0] if len(files) == 1 else os.path.commonpath(files),
            "output": {"kept": f"{KEPT_DIR}/*.jsonl", "dropped": f"{DROPPED_DIR}/*.jsonl", "manifest": MANIFEST},
            "engine": "local",
            "scorer": header["scorer"],
            "num_proc": workers,
            "shard_size": shard_size,
            "shards": n_shards,
            "shards_resumed": resumed,
            "rows_scored": scored,
        })
        write_json_atomic(os.path.join(out, SUMMARY), summary)
        return summary
    except BaseException:
        if not committed_any:  # nothing durable was produced: leave no trace of this run
            if created:
                clear_outputs(out)
            if not os.path.exists(os.path.join(out, MANIFEST)):
                _remove_quietly(os.path.join(out, LOCK))
            if created:
                _remove_quietly(out)
        raise
    finally:
        os.close(lock_fd)


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
