"""The one user-facing error of every part of ``trainers``: a :class:`CommandError` is printed by ``rafs`` as one
line, ``rafs <command>: error: <reason>``, with exit code 2 (:func:`trainers.cli.main`). It lives here, below the CLI,
so that the config loader, the reader, the recipes and the experiments raise it without importing the CLI."""

from __future__ import annotations

__all__ = ["CommandError"]


class CommandError(Exception):
    """A user-facing error: printed as one line, exit code 2."""
