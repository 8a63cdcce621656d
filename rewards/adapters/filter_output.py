"""The SFT filter's output folder: its layout, the lock, the manifest, durable JSON writes, and what clearing it
deletes (this filter's files, never anyone else's). The layout and the commit protocol are described in
:mod:`rewards.adapters.filter_shards`; :mod:`rewards.adapters.filter_ray` writes the same layout."""

from __future__ import annotations

import json
import logging
import os
import re
from typing import Any, Sequence

from rewards.adapters.files import atomic_write

__all__ = ["MANIFEST", "SUMMARY", "KEPT_DIR", "DROPPED_DIR", "LOCK", "LEGACY", "OUTPUT_NAMES", "MANIFEST_VERSION",
           "FilterOutputError", "temp_name", "lock_output", "read_manifest", "write_json_atomic", "clear_outputs",
           "remove_stale_temps", "prune_shards", "orphan_shards", "check_output", "remove_quietly"]

log = logging.getLogger("rewards.adapters.filter_shards")  # the filter's one logger (the engines share it)

MANIFEST = "manifest.jsonl"
SUMMARY = "summary.json"
KEPT_DIR = "kept"
DROPPED_DIR = "dropped"
LOCK = ".lock"
LEGACY = ("kept.jsonl", "dropped.jsonl")  # the single-file layout of earlier versions
OUTPUT_NAMES = (MANIFEST, SUMMARY, KEPT_DIR, DROPPED_DIR, *LEGACY)
MANIFEST_VERSION = 1


class FilterOutputError(ValueError):
    """The output directory cannot be used as asked (not empty, another run's, locked)."""


def temp_name(path: str) -> str:
    """The temporary name a file is written under before it is renamed into place (:func:`clear_outputs`,
    :func:`prune_shards` and :func:`remove_stale_temps` delete the ones a killed run left)."""
    return f"{path}.tmp-{os.getpid()}"


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
    if header is None or header.get("version") != MANIFEST_VERSION:
        raise FilterOutputError(f"{path!r} is not a rafs filter manifest (version {MANIFEST_VERSION}); pass --force to start "
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

    atomic_write(path, write, durable=True, tmp=temp_name(path))


def clear_outputs(out: str) -> None:
    """Delete what this filter writes in ``out`` (and nothing else)."""
    for name in (MANIFEST, SUMMARY, *LEGACY):
        path = os.path.join(out, name)
        if os.path.isfile(path):
            os.remove(path)
    remove_stale_temps(out)
    for sub in (KEPT_DIR, DROPPED_DIR):
        folder = os.path.join(out, sub)
        if not os.path.isdir(folder):
            continue
        for name in os.listdir(folder):  # our shards (part-*), Ray's (<uuid>_*.jsonl), temporary files
            if name.endswith(".jsonl") or ".jsonl.tmp-" in name:
                os.remove(os.path.join(folder, name))
        if not os.listdir(folder):
            os.rmdir(folder)


def remove_stale_temps(out: str) -> None:
    """Temporary manifest/summary files a killed run left (the real files are intact: they are only renamed into
    place)."""
    for name in os.listdir(out):
        if name.startswith((f"{MANIFEST}.tmp-", f"{SUMMARY}.tmp-")):
            os.remove(os.path.join(out, name))


def prune_shards(out: str, valid: set[str]) -> None:
    """Delete shard files in kept/ and dropped/ that no intact manifest record names (temp files, uncommitted)."""
    for sub in (KEPT_DIR, DROPPED_DIR):
        folder = os.path.join(out, sub)
        for name in os.listdir(folder):
            if name.startswith("part-") and name not in valid:
                os.remove(os.path.join(folder, name))


_ORPHAN = re.compile(r"part-\d{5}-\d{6}\.jsonl(\.tmp-\d+)?")


def orphan_shards(out: str) -> list[str] | None:
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


def remove_quietly(path: str) -> None:
    try:
        os.rmdir(path) if os.path.isdir(path) else os.remove(path)
    except OSError:
        pass
