"""The ``rafs`` command line: ``rafs score | screen | filter | eval | audit | report | train | experiment | demo |
serve``.

Each subcommand lives in :mod:`trainers.commands` as a module with ``add_parser(subparsers)`` (registers its
arguments, imports nothing heavy) and ``run(args) -> int`` (the exit code). Errors on bad input are one line on
stderr, ``rafs <command>: error: <reason>``, with a non-zero exit. ``rafs --version`` prints the installed version.

Shared promises, kept here so every command keeps them the same way:

* help text is plain text: descriptions taken from reStructuredText docstrings go through :func:`plain_text`
  (applied by :func:`build_parser` to every subcommand, nested ones included);
* help fits the terminal (``COLUMNS``): :class:`HelpFormatter` re-wraps prose paragraphs and keeps indented
  example blocks as written; no option may be abbreviated (``--for`` is not ``--force``);
* an unknown ``--rafs.KEY`` flag is one line naming the key, the closest valid key and every valid key
  (:func:`trainers.config.unknown_flag_error`, the wording a ``--config`` file gets);
* ``rafs … | head`` stops quietly with exit status 141 (SIGPIPE), rich tables included (:func:`rich_console`);
* no file is overwritten without ``--force`` (:func:`refuse_overwrite`), and files are written atomically
  (:func:`atomic_write`, i.e. :func:`rewards.adapters.files.atomic_write`: a temporary file in the same
  folder, then ``os.replace``).

>>> plain_text("``rafs score`` calls :func:`~rewards.scoring.score.score_trace`. Example::")
'rafs score calls score_trace. Example:'
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rewards.adapters.files import atomic_write

__all__ = ["main", "build_parser", "COMMANDS", "CommandError", "version", "plain_text", "plain_help",
           "HelpFormatter", "wrap_help", "finish_parser", "rich_console", "refuse_overwrite", "atomic_write",
           "check_output_file"]

COMMANDS = ("score", "screen", "filter", "eval", "audit", "report", "train", "experiment", "demo", "serve")


def __getattr__(name: str):
    """``atomic_write`` is :func:`rewards.adapters.files.atomic_write` (the one atomic writer of rafs), re-exported
    lazily so that ``rafs --help`` does not import :mod:`rewards`."""
    if name == "atomic_write":
        from rewards.adapters.files import atomic_write

        return atomic_write
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class CommandError(Exception):
    """A user-facing error: printed as one line, exit code 2."""


def version() -> str:
    """The installed version of the ``rafs`` distribution (``importlib.metadata``), or ``unknown`` when the package
    runs from a source tree that was never installed."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        return dist_version("rafs")
    except PackageNotFoundError:
        return "unknown (not installed: pip install -e .)"


# -- help text ---------------------------------------------------------------------------------------------------

# :role:`target`, :role:`~a.b.c` (shown as c) and :role:`Title <target>` (shown as Title); py: domain optional
_ROLE = re.compile(r":(?:py:)?[a-z]+:`([^`]+)`")
_LITERAL = re.compile(r"``(.+?)``", re.S)
_LITERAL_BLOCK = re.compile(r"(\S)::[ \t]*$", re.M)   # "Example::" introduces a literal block
_BARE_BLOCK = re.compile(r"^[ \t]*::[ \t]*\n", re.M)    # a "::" line of its own


def _role_text(match: re.Match[str]) -> str:
    target = match.group(1).strip()
    titled = re.fullmatch(r"(.+?)\s*<[^<>]+>", target, re.S)
    if titled:
        return titled.group(1)
    if target.startswith("~"):
        return target[1:].rsplit(".", 1)[-1]
    return target


def plain_text(text: str | None) -> str | None:
    r"""``text`` without reStructuredText markup, for a terminal: a double-backquoted literal loses its quotes,
    a role such as ``:func:`~pkg.mod.name``` becomes ``name`` (``:role:`Title <target>``` becomes ``Title``) and
    ``Example::`` becomes ``Example:``. Everything else (line breaks, indentation, ``%(default)s``) is kept.

    >>> plain_text(":mod:`trainers.train` reads ``recipes/*.yaml``; see :class:`the parser <trl.TrlParser>`.")
    'trainers.train reads recipes/*.yaml; see the parser.'
    >>> plain_text("Usage::\n\n    rafs demo")
    'Usage:\n\n    rafs demo'
    """
    if not text:
        return text
    text = _ROLE.sub(_role_text, text)
    text = _LITERAL.sub(lambda m: m.group(1), text)
    text = _BARE_BLOCK.sub("", text)
    return _LITERAL_BLOCK.sub(r"\1:", text)


def plain_help(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Strip reStructuredText markup (:func:`plain_text`) from ``parser``'s description, epilog and every
    argument's help, recursing into sub-commands; returns ``parser``."""
    parser.description = plain_text(parser.description)
    parser.epilog = plain_text(parser.epilog)
    for action in parser._actions:
        if action.help and action.help is not argparse.SUPPRESS:
            action.help = plain_text(action.help)
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:  # the one-line help of each sub-command in the listing
                choice.help = plain_text(choice.help)
            for sub in set(action.choices.values()):
                plain_help(sub)
    return parser


_BULLET = re.compile(r"^([*\u2022-]|\d+[.)])\s+")


def wrap_help(text: str, width: int, indent: str = "") -> str:
    r"""``text`` re-wrapped to ``width`` columns for a terminal: each paragraph (blocks are separated by blank lines)
    is refilled, a list item (``* ``, ``- ``, ``1. ``) keeps its marker and a hanging indent, and a block whose first
    line is indented (an example or code block) is kept exactly as written. Every line starts with ``indent``.

    >>> print(wrap_help("one two three four\nfive six\n\n    rafs score x.jsonl --out y.jsonl", 14))
    one two three
    four five six
    <BLANKLINE>
        rafs score x.jsonl --out y.jsonl
    >>> print(wrap_help("* alpha beta gamma\n  delta", 14))
    * alpha beta
      gamma delta
    """
    import textwrap

    blocks = re.split(r"\n[ \t]*\n", text.strip("\n"))
    out = []
    for block in blocks:
        lines = block.splitlines()
        if not lines:
            continue
        if lines[0][:1] in (" ", "\t"):
            out.append("\n".join(indent + line.rstrip() for line in lines))
            continue
        items: list[tuple[str, list[str]]] = []
        for line in lines:
            marker = _BULLET.match(line)
            if marker or not items:
                lead = marker.group(0) if marker else ""
                items.append((lead, [line[len(lead):].strip()]))
            else:
                items[-1][1].append(line.strip())
        out.append("\n".join(
            textwrap.fill(" ".join(words), max(width, 11), initial_indent=indent + lead,
                          subsequent_indent=indent + " " * len(lead), break_long_words=False,
                          break_on_hyphens=False)
            for lead, words in items))
    return "\n\n".join(out)


class HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter (option help wrapped to the terminal width, ``COLUMNS`` when set) with descriptions and
    epilogs re-wrapped by :func:`wrap_help`: prose fits the terminal, indented example blocks stay as written."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return wrap_help(text, width, indent)


def _parsers(parser: argparse.ArgumentParser):
    """``parser`` and every sub-command parser under it (nested ones included), each once."""
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in {id(p): p for p in action.choices.values()}.values():
                yield from _parsers(sub)


def finish_parser(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Apply the shared promises to ``parser`` and every sub-command under it: help without markup
    (:func:`plain_help`), help that fits the terminal (:class:`HelpFormatter`) and no abbreviated options
    (``allow_abbrev=False``: ``--for`` is an error, not ``--force``). Returns ``parser``."""
    plain_help(parser)
    for p in _parsers(parser):
        p.formatter_class = HelpFormatter
        p.allow_abbrev = False
    return parser


def rich_console(**kwargs):
    """A :class:`rich.console.Console` (same arguments) whose closed pipe raises :class:`BrokenPipeError`, which
    :func:`main` turns into a quiet exit 141 like every other command (rich's own handling exits 1)."""
    from rich.console import Console

    class _Console(Console):
        def on_broken_pipe(self) -> None:
            self.quiet = True
            raise BrokenPipeError(32, "Broken pipe")

    return _Console(**kwargs)


# -- writing files -----------------------------------------------------------------------------------------------

def refuse_overwrite(path: str | os.PathLike, *, force: bool, flag: str | None = None) -> None:
    """Raise :class:`CommandError` when ``path`` exists (a non-empty folder, for a folder) and ``force`` is false.

    ``flag`` names the option that gave the path (``--json``), so the message says which one to change.

    >>> refuse_overwrite("/no/such/file.json", force=False)      # nothing there: fine
    """
    p = Path(path)
    if force or not p.exists() or (p.is_dir() and not any(p.iterdir())):
        return
    what = "folder" if p.is_dir() else "file"
    given = f"{flag} {path}" if flag else str(path)
    detail = ""
    if p.is_dir():
        entries = sorted(e.name for e in p.iterdir())
        detail = f" ({', '.join(entries[:3])}{', ...' if len(entries) > 3 else ''})"
    raise CommandError(f"{given}: the {what} already exists{detail}; choose another path or pass --force to "
                       "overwrite it")


def check_output_file(path: str | os.PathLike | None, *, force: bool, flag: str) -> None:
    """Check an output file path before any work: a folder is refused, an existing file without ``force`` too
    (:func:`refuse_overwrite`), and so is a parent that is a file. ``None`` (no such output) passes.

    >>> check_output_file("/no/such/dir/out.json", force=False, flag="--json")
    """
    if path is None:
        return
    p = Path(path)
    if p.is_dir():
        raise CommandError(f"{flag} {str(path)!r} is a folder; give a file path inside it")
    parent = next((a for a in p.absolute().parents if a.exists()), None)
    if parent is not None and not parent.is_dir():
        raise CommandError(f"{flag} {str(path)!r}: {parent} is a file, not a folder")
    refuse_overwrite(p, force=force, flag=flag)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rafs",
        description="Reference-free reasoning-answer faithfulness scores (RAFS) and the confidence validity screen.",
    )
    parser.add_argument("-V", "--version", action="version", version=f"%(prog)s {version()}",
                        help="print the installed version and exit")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug messages")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    parser.set_defaults(_pass_through=set())
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"trainers.commands.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"trainers.commands.{name}":
                raise
            continue
        command = module.add_parser(sub)
        command.set_defaults(_run=module.run, _name=name)
        if getattr(module, "PASS_THROUGH", False):
            parser.get_default("_pass_through").add(name)
    return finish_parser(parser)


def _pass_through(parser: argparse.ArgumentParser, argv: list[str]) -> list[str]:
    """For a command that reads its own arguments (``PASS_THROUGH = True``, e.g. ``rafs train`` with recipe
    fields as ``--key value``), put ``--`` after the command name so argparse hands every token to it unparsed
    (``-h``/``--help`` still reach argparse)."""
    names = parser.get_default("_pass_through") or set()
    for i, token in enumerate(argv):
        if token.startswith("-"):
            continue  # a global option (-v)
        if token in names and not {"-h", "--help"} & set(argv[i + 1:]):
            return argv[:i + 1] + ["--"] + argv[i + 1:]
        break
    return argv


def _command_parser(parser: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.ArgumentParser:
    """The parser of the (sub-)command ``args`` ran, e.g. ``rafs experiment faithfulness``'s."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            chosen = action.choices.get(getattr(args, action.dest, None) or "")
            if chosen is not None:
                return _command_parser(chosen, args)
    return parser


def _unrecognized(parser: argparse.ArgumentParser, args: argparse.Namespace, extras: list[str]) -> int:
    """Arguments the command does not know: an unknown ``--rafs.KEY`` of a command that takes ``--rafs.*`` flags is
    one line naming the key, the closest valid key and the valid keys (exit 2); anything else is argparse's error of
    the command's own parser (its usage, then ``rafs <command>: error: unrecognized arguments``)."""
    command = _command_parser(parser, args)
    # set by trainers.config.add_config_arguments on a command that takes --rafs.* flags (a hook, not an import:
    # trainers.config imports this module)
    unknown_flag = getattr(args, "_unknown_rafs_flag", None)
    for token in extras:
        if unknown_flag is not None and token.startswith("--rafs."):
            print(f"rafs {getattr(args, '_name', command.prog)}: error: {unknown_flag(token)}", file=sys.stderr)
            return 2
    command.error(f"unrecognized arguments: {' '.join(extras)}")
    return 2  # pragma: no cover - error() exits


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    args, extras = parser.parse_known_args(_pass_through(parser, argv))
    if extras:
        return _unrecognized(parser, args, extras)
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
