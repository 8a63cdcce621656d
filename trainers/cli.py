"""The ``rafs`` command line: ``rafs score | screen | filter | eval | audit | train | experiment | demo | serve``.

Each subcommand lives in :mod:`trainers.commands` as a module with ``add_parser(subparsers)`` (registers its
arguments, imports nothing heavy) and ``run(args) -> int`` (the exit code). Errors on bad input are one line on
stderr, ``rafs <command>: error: <reason>``, with a non-zero exit.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys

__all__ = ["main", "build_parser", "COMMANDS", "CommandError"]

COMMANDS = ("score", "screen", "filter", "eval", "audit", "train", "experiment", "demo", "serve")


class CommandError(Exception):
    """A user-facing error: printed as one line, exit code 2."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rafs",
        description="Reference-free reasoning-answer faithfulness scores (RAFS) and the confidence validity screen.",
    )
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug messages")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"trainers.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"trainers.commands.{name}":
                raise
            continue
        command = module.add_parser(sub)
        command.set_defaults(_run=module.run, _name=name)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    try:
        return int(args._run(args) or 0)
    except CommandError as exc:
        print(f"rafs {args._name}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"rafs {args._name}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader went away (`rafs score … | head`): stop quietly, as a Unix filter does on SIGPIPE; point
        # stdout at /dev/null so the interpreter's final flush does not raise again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + 13


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
