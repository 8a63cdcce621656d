"""rewards.adapters.files.atomic_write: the one atomic writer (files, durable files, folders), re-exported by
trainers.cli."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rewards.adapters import files
from rewards.adapters.files import atomic_write


def test_trainers_cli_reexports_the_same_function():
    from trainers import cli

    assert cli.atomic_write is atomic_write


def test_durable_write_fsyncs_the_file_before_the_rename_and_the_folder_after(tmp_path, monkeypatch):
    events = []
    real_fsync, real_replace = os.fsync, os.replace
    monkeypatch.setattr(files.os, "fsync", lambda fd: (events.append("fsync"), real_fsync(fd))[1])
    monkeypatch.setattr(files.os, "replace", lambda a, b: (events.append("replace"), real_replace(a, b))[1])
    atomic_write(tmp_path / "a.jsonl", "x\n", durable=True)
    assert events == ["fsync", "replace", "fsync"]
    events.clear()
    atomic_write(tmp_path / "b.jsonl", "x\n")
    assert events == ["replace"]


def test_a_named_temporary_is_used_and_removed_on_failure(tmp_path):
    target = tmp_path / "part-0.jsonl"
    tmp = f"{target}.tmp-{os.getpid()}"
    seen = []
    atomic_write(target, lambda name: (seen.append(name), Path(name).write_text("ok\n")), tmp=tmp)
    assert seen == [tmp] and target.read_text() == "ok\n" and not os.path.exists(tmp)

    def half(name: str) -> None:
        Path(name).write_text("half")
        raise KeyboardInterrupt  # any exception, even a BaseException, leaves the old file and no temporary

    with pytest.raises(KeyboardInterrupt):
        atomic_write(target, half, tmp=tmp, durable=True)
    assert target.read_text() == "ok\n" and sorted(p.name for p in tmp_path.iterdir()) == ["part-0.jsonl"]


def test_new_files_get_the_umask_permissions_and_replaced_files_keep_theirs(tmp_path):
    umask = os.umask(0o022)
    try:
        f = atomic_write(tmp_path / "r.json", "1")
        assert f.stat().st_mode & 0o777 == 0o644
        os.chmod(f, 0o600)
        atomic_write(f, "2", durable=True, tmp=tmp_path / "r.json.tmp-1")
        assert f.stat().st_mode & 0o777 == 0o600 and f.read_text() == "2"
    finally:
        os.umask(umask)


def test_a_folder_is_published_whole_and_a_finished_one_wins(tmp_path):
    target = tmp_path / "cache" / "model"

    def fill(name: str) -> None:
        assert not target.exists()  # filled under a temporary name
        Path(name, "config.json").write_text("{}")

    assert atomic_write(target, fill, folder=True) == target
    assert sorted(p.name for p in target.iterdir()) == ["config.json"]
    assert target.stat().st_mode & 0o700 == 0o700

    def other(name: str) -> None:  # a second writer finishing after the first: its folder is discarded
        Path(name, "config.json").write_text('{"other": 1}')

    atomic_write(target, other, folder=True)
    assert (target / "config.json").read_text() == "{}"
    assert sorted(p.name for p in target.parent.iterdir()) == ["model"]

    def broken(name: str) -> None:
        Path(name, "partial").write_text("x")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError, match="disk full"):
        atomic_write(tmp_path / "other", broken, folder=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache"]
    with pytest.raises(TypeError, match="needs a function"):
        atomic_write(tmp_path / "x", "text", folder=True)
