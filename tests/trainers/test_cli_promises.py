"""Promises every ``rafs`` command keeps: ``--version``, help text without reStructuredText markup, no overwrite
without ``--force`` (atomic writes), one-line errors."""

from __future__ import annotations

import argparse
import os
import re
from importlib.metadata import version

import pytest

from trainers import cli

MARKUP = re.compile(r"``|:(?:py:)?[a-z]+:`|::\s*$", re.M)


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def test_version_comes_from_the_installed_distribution(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"rafs {version('rafs')}"
    assert cli.version() == version("rafs")


def test_top_level_help_has_no_markup():
    text = cli.build_parser().format_help()
    assert "--version" in text
    assert not MARKUP.search(text), MARKUP.search(text)


def _every_command() -> list[tuple[str, argparse.ArgumentParser]]:
    out = []
    for name, sub in _subparsers(cli.build_parser()).items():
        out.append((name, sub))
        for inner, subsub in _subparsers(sub).items():  # rafs experiment faithfulness, ...
            out.append((f"{name} {inner}", subsub))
    return out


def test_every_command_is_checked():
    names = [n for n, _ in _every_command()]
    assert set(cli.COMMANDS) <= set(names)


@pytest.mark.parametrize("name,parser", _every_command(), ids=[n for n, _ in _every_command()])
def test_command_help_has_no_restructuredtext_markup(name, parser):
    text = parser.format_help()
    hit = MARKUP.search(text)
    assert hit is None, f"rafs {name} --help shows markup near {text[max(0, hit.start() - 40):hit.end() + 40]!r}"
    assert text.strip()


def test_help_reaches_a_pass_through_command(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["train", "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "--dry-run" in out and "--config" in out and "``" not in out


@pytest.mark.parametrize("text,plain", [
    ("``rafs score`` reads ``x.jsonl``", "rafs score reads x.jsonl"),
    (":func:`~rewards.scoring.score.score_trace` scores", "score_trace scores"),
    (":mod:`trainers.training.train`", "trainers.training.train"),
    (":py:class:`trl.TrlParser`", "trl.TrlParser"),
    (":class:`the parser <trl.TrlParser>`", "the parser"),
    ("Example::\n\n    rafs demo", "Example:\n\n    rafs demo"),
    ("a\n::\n\n    code", "a\n\n    code"),
    ("keeps %(default)s and `single` quotes", "keeps %(default)s and `single` quotes"),
    ("``multi\nline``", "multi\nline"),
])
def test_plain_text(text, plain):
    assert cli.plain_text(text) == plain


def test_refuse_overwrite(tmp_path):
    f = tmp_path / "out.json"
    cli.refuse_overwrite(f, force=False)  # missing: fine
    f.write_text("x")
    with pytest.raises(cli.CommandError, match=r"--json .*out.json: the file already exists; .*--force"):
        cli.refuse_overwrite(f, force=False, flag="--json")
    cli.refuse_overwrite(f, force=True)
    d = tmp_path / "dir"
    d.mkdir()
    cli.refuse_overwrite(d, force=False)  # an empty folder is fine
    (d / "a.txt").write_text("a")
    with pytest.raises(cli.CommandError, match=r"the folder already exists \(a.txt\)"):
        cli.refuse_overwrite(d, force=False)


def test_atomic_write_replaces_whole_files_and_leaves_no_temporaries(tmp_path):
    f = tmp_path / "sub" / "r.json"
    cli.atomic_write(f, "one\n")
    assert f.read_text() == "one\n"
    os.chmod(f, 0o600)
    cli.atomic_write(f, b"two\n")
    assert f.read_bytes() == b"two\n" and (f.stat().st_mode & 0o777) == 0o600
    cli.atomic_write(f, lambda tmp: open(tmp, "w").write("three\n"))
    assert f.read_text() == "three\n"

    def broken(tmp: str) -> None:
        open(tmp, "w").write("half")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        cli.atomic_write(f, broken)
    assert f.read_text() == "three\n"  # the old file survives a failed write
    assert sorted(p.name for p in f.parent.iterdir()) == ["r.json"]
