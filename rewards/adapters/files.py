"""Files written whole or not at all: the one atomic writer of rafs (the SFT filter's shards and manifest, every
``rafs`` command's outputs through :func:`trainers.cli.atomic_write`, experiment reports, the model cache).

:func:`atomic_write` writes into a temporary file (or folder) beside the target and renames it into place with
``os.replace``, so that a reader, or a crash at any moment, sees the old file or the new one, never half a file.
``durable=True`` adds what surviving a power loss needs on top of surviving a killed process: the temporary file is
``fsync``\\ ed before the rename and the folder (:func:`fsync_folder`) after it.

>>> import pathlib, tempfile
>>> out = pathlib.Path(tempfile.mkdtemp()) / "sub" / "r.json"
>>> atomic_write(out, "[]\\n").read_text()
'[]\\n'
>>> atomic_write(out, b"{}\\n", durable=True).read_bytes(), sorted(p.name for p in out.parent.iterdir())
(b'{}\\n', ['r.json'])
>>> model = atomic_write(out.parent / "model", lambda tmp: pathlib.Path(tmp, "config.json").write_text("{}"),
...                      folder=True)
>>> sorted(p.name for p in model.iterdir())
['config.json']
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Callable

__all__ = ["atomic_write", "fsync_folder"]


def fsync_folder(path: str | os.PathLike) -> None:
    """``fsync`` a folder, so that the names created or renamed in it survive a power loss."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_file(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _default_mode(target: Path, mode: int) -> int:
    """The permissions the new file gets: those a user gave the file it replaces, else ``mode`` less the umask."""
    if target.exists():
        return target.stat().st_mode & 0o777
    umask = os.umask(0)
    os.umask(umask)
    return mode & ~umask


def atomic_write(path: str | os.PathLike, data: str | bytes | Callable[[str], object], *, durable: bool = False,
                 tmp: str | os.PathLike | None = None, folder: bool = False) -> Path:
    r"""Write ``path`` atomically: into a temporary file in the same folder, then ``os.replace``, so that a reader
    (or a crash) never sees half a file. Returns the path.

    Args:
        path: the file to write (its folder is created when missing). An existing file is replaced, and keeps the
            permissions a user gave it.
        data: text (written as UTF-8), bytes, or a function that writes the file whose name it is given (e.g.
            ``lambda tmp: fig.savefig(tmp, format="png")``). When it raises, the temporary file is deleted, the
            old file is untouched, and the exception propagates.
        durable: ``fsync`` the temporary file before the rename and the folder after it (survives a power loss,
            not only a killed process).
        tmp: the temporary file's path, for a caller that cleans up after a crash by name (the SFT filter uses
            ``<path>.tmp-<pid>``); default: a fresh hidden name, ``.<name>.XXXXXXXX.tmp<suffix>``, beside ``path``.
        folder: write a folder instead: ``data`` (a function) fills a fresh temporary folder beside ``path``, which
            is then renamed to ``path``. A folder cannot replace another one atomically, so when ``path`` exists by
            then (a concurrent writer finished first) the new folder is discarded and the existing one kept.
    """
    target = Path(path)
    parent = target.parent
    parent.mkdir(parents=True, exist_ok=True)
    if folder:
        return _write_folder(target, data)
    if tmp is None:
        fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=f".tmp{target.suffix}", dir=parent)
    else:
        tmp_name = os.fspath(tmp)
        fd = os.open(tmp_name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
    try:
        if callable(data):
            os.close(fd)
            data(tmp_name)
        else:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data.encode("utf-8") if isinstance(data, str) else data)
        if durable:
            _fsync_file(tmp_name)
        os.chmod(tmp_name, _default_mode(target, 0o666))
        os.replace(tmp_name, target)
    except BaseException:
        try:
            os.unlink(tmp_name)
        except OSError:
            pass
        raise
    if durable:
        fsync_folder(parent)
    return target


def _write_folder(target: Path, fill: Callable[[str], object]) -> Path:
    if not callable(fill):
        raise TypeError(f"atomic_write(folder=True) needs a function that fills the folder, not {type(fill).__name__}")
    tmp = Path(tempfile.mkdtemp(prefix=".tmp-", dir=target.parent))
    try:
        os.chmod(tmp, _default_mode(target, 0o777))
        fill(str(tmp))
        if not target.exists():
            try:
                os.replace(tmp, target)
                return target
            except OSError:
                if not target.exists():
                    raise
        shutil.rmtree(tmp, ignore_errors=True)  # a concurrent writer won the race: keep its folder
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return target
