"""What a new user meets first on the ``rafs`` command line (issue 18's review): an unknown ``--rafs.KEY`` flag is one
line naming the key and the valid keys, no option may be abbreviated, help fits a 100-column terminal, a folder
where a file belongs says "is a folder", ``rafs … | head`` exits 141 quietly for audit/screen/eval too, and row
numbers in errors are 1-based."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys

import pytest

from trainers import cli
from trainers.common.config import load_rafs_config, rafs_fields

RAFS_COMMANDS = ("score", "filter", "eval", "audit", "serve")


def _every_parser() -> list[tuple[str, argparse.ArgumentParser]]:
    """Every ``rafs`` command's parser, nested ones (``rafs experiment faithfulness``) included."""
    out = []

    def walk(prefix: str, parser: argparse.ArgumentParser) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    out.append((f"{prefix} {name}".strip(), sub))
                    walk(f"{prefix} {name}", sub)

    walk("", cli.build_parser())
    return out


PARSERS = _every_parser()
IDS = [name for name, _ in PARSERS]


def _argv(command: str, tmp_path) -> list[str]:
    """The smallest command line that gets ``command`` past argparse's required arguments."""
    return {"score": ["score", "in.jsonl"], "filter": ["filter", "in.jsonl", "--out", str(tmp_path / "o")],
            "eval": ["eval", "in.json"], "audit": ["audit", "rafs"], "serve": ["serve"]}[command]


# -- 1. unknown --rafs.KEY flags and abbreviations -----------------------------------------------------------------

@pytest.mark.parametrize("command", RAFS_COMMANDS)
def test_unknown_rafs_flag_is_one_line_with_did_you_mean_and_the_valid_keys(command, tmp_path, capsys):
    assert cli.main(_argv(command, tmp_path) + ["--rafs.tau_acept", "70"]) == 2
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert "\n" not in err and "usage:" not in err, err
    assert err.startswith(f"rafs {command}: error: unknown config key 'tau_acept' in the flag --rafs.tau_acept")
    assert "did you mean 'tau_accept'?" in err
    assert err.endswith("valid keys: " + ", ".join(sorted(rafs_fields())))
    assert not (tmp_path / "o").exists()  # refused before any work


def test_the_flag_and_the_config_file_use_the_same_wording(capsys):
    with pytest.raises(cli.CommandError) as from_file:
        load_rafs_config({"tau_acept": 70})
    assert cli.main(["score", "in.jsonl", "--rafs.tau_acept=70"]) == 2  # --key=value too
    err = capsys.readouterr().err
    hint = str(from_file.value).split("'tau_acept' in the mapping given", 1)[1]
    assert err.strip().endswith(hint)


def test_an_abbreviated_rafs_flag_is_not_taken_for_a_field(capsys):
    # argparse's default would read --rafs.tau as --rafs.tau_accept
    assert cli.main(["score", "in.jsonl", "--rafs.tau", "99"]) == 2
    err = capsys.readouterr().err
    assert "unknown config key 'tau'" in err and "did you mean 'tau_accept'?" in err
    assert cli.main(["score", "in.jsonl", "--rafs.e", "1"]) == 2
    assert "did you mean one of 'embedding_model', 'embedding_weight', 'eps'?" in capsys.readouterr().err


@pytest.mark.parametrize("argv,prefix", [
    (["score", "in.jsonl", "--out", "o.jsonl", "--for"], "--for"),        # not --force
    (["screen", "d.csv", "--correct-col", "a", "--confidence-col", "b", "--thr", "0.5"], "--thr"),
    (["--verb", "score", "in.jsonl"], "--verb"),                           # the top-level parser too
])
def test_options_cannot_be_abbreviated(argv, prefix, capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert f"unrecognized arguments: {prefix}" in err or f"unrecognized arguments: {prefix} " in err


def test_an_unknown_option_names_the_command_it_was_given_to(capsys):
    with pytest.raises(SystemExit):
        cli.main(["score", "in.jsonl", "--no-such-option"])
    err = capsys.readouterr().err
    assert "usage: rafs score" in err and "rafs score: error: unrecognized arguments: --no-such-option" in err


@pytest.mark.parametrize("name,parser", [("rafs", cli.build_parser())] + PARSERS, ids=["rafs"] + IDS)
def test_no_parser_allows_abbreviations(name, parser):
    assert parser.allow_abbrev is False, name
    assert parser.formatter_class is cli.HelpFormatter, name


def test_the_stand_alone_screen_parser_keeps_the_same_promises():
    from trainers.cli.commands import screen

    parser = screen.build_parser()
    assert parser.allow_abbrev is False and parser.formatter_class is cli.HelpFormatter


# -- 2. help that fits the terminal ---------------------------------------------------------------------------------

@pytest.mark.parametrize("name,parser", [("rafs", cli.build_parser())] + PARSERS, ids=["rafs"] + IDS)
def test_help_fits_100_columns(name, parser, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    text = parser.format_help()
    long = [line for line in text.splitlines() if len(line) > 100]
    assert not long, f"rafs {name} --help at COLUMNS=100 has {len(long)} line(s) over 100: {long[0]!r}"


def test_help_follows_columns(monkeypatch):
    parser = dict(PARSERS)["filter"]
    monkeypatch.setenv("COLUMNS", "100")
    wide = parser.format_help()
    monkeypatch.setenv("COLUMNS", "80")
    narrow = parser.format_help()
    assert max(len(line) for line in narrow.splitlines() if not line.startswith("    ")) <= 80
    assert len(narrow.splitlines()) > len(wide.splitlines())
    # the example block is kept line for line; the prose is re-flowed, not cut
    assert "    rafs filter ../shared/data/gsm8k/train.jsonl --out runs/gsm8k_filtered\n" in narrow
    assert " ".join(narrow.split()).count("A run that was killed (even kill -9) resumes") == 1


def test_screen_option_help_is_wrapped(monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", "100")
    with pytest.raises(SystemExit) as exc:
        cli.main(["screen", "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 100
    assert "binarise numeric confidence at each group's median" in out


def test_wrap_help_keeps_code_blocks_and_list_items():
    text = ("A paragraph that is long enough to wrap\ninto two lines.\n\n* an item that also wraps here\n  with its "
            "continuation\n* b\n\nExample:\n\n    rafs score a_very_long_path/with/no/spaces.jsonl --out x\n"
            "        --rafs.tau_accept 70")
    out = cli.wrap_help(text, 24, "  ")
    lines = out.splitlines()
    assert lines[:2] == ["  A paragraph that is", "  long enough to wrap"]
    assert "  * an item that also" in lines and "    wraps here with its" in lines and "  * b" in lines
    assert "      rafs score a_very_long_path/with/no/spaces.jsonl --out x" in lines  # verbatim, indented
    assert "          --rafs.tau_accept 70" in lines
    assert all(len(line) <= 24 for line in lines if "rafs" not in line)


# -- 3. a folder where a file belongs --------------------------------------------------------------------------------

@pytest.mark.parametrize("argv,message", [
    (["screen", "{dir}", "--correct-col", "a", "--confidence-col", "b"], "DATA.csv '{dir}' is a folder; pass one CSV"),
    (["train", "{dir}", "--dry-run"], "recipe '{dir}' is a folder; pass one recipe YAML file"),
    (["train", "--config", "{dir}", "--dry-run"], "recipe '{dir}' is a folder"),
    (["demo", "--recipe", "{dir}"], "--recipe '{dir}' is a folder"),
])
def test_a_folder_given_for_a_file_says_so(argv, message, tmp_path, capsys):
    folder = tmp_path / "adir"
    folder.mkdir()
    assert cli.main([a.format(dir=folder) for a in argv]) == 2
    err = capsys.readouterr().err.strip()
    assert message.format(dir=folder) in err and "\n" not in err
    assert "no such file" not in err and "does not exist" not in err


# -- 4. a closed pipe ------------------------------------------------------------------------------------------------

class ClosedPipe:
    """stdout after the reader went away (``| head`` exited): every write raises BrokenPipeError."""

    encoding = "utf-8"

    def __init__(self, fd: int) -> None:
        self._fd = fd

    def write(self, text: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self) -> None:
        pass

    def fileno(self) -> int:
        return self._fd

    def isatty(self) -> bool:
        return False


@contextlib.contextmanager
def closed_stdout(tmp_path, monkeypatch):
    """sys.stdout as a closed pipe. Set inside the test: capsys replaces sys.stdout when the test starts."""
    fd = os.open(tmp_path / "stdout", os.O_WRONLY | os.O_CREAT)
    monkeypatch.setattr(sys, "stdout", ClosedPipe(fd))
    try:
        yield
    finally:
        monkeypatch.undo()
        os.close(fd)


def test_rich_console_raises_broken_pipe_for_main_to_handle(tmp_path):
    fd = os.open(tmp_path / "out", os.O_WRONLY | os.O_CREAT)
    try:
        console = cli.rich_console(file=ClosedPipe(fd), width=80)
        with pytest.raises(BrokenPipeError):  # rich's own Console raises SystemExit(1) here
            console.print("a table")
    finally:
        os.close(fd)


def test_audit_on_a_closed_pipe_exits_141_quietly(tmp_path, monkeypatch, capsys):
    with closed_stdout(tmp_path, monkeypatch):
        code = cli.main(["audit", "--list-families"])
    assert code == 141
    assert capsys.readouterr().err == ""


def test_screen_on_a_closed_pipe_exits_141_quietly(tmp_path, monkeypatch, capsys):
    data = tmp_path / "d.csv"
    data.write_text("ok,conf\n" + "".join(f"{i % 3 == 0},{(i % 10) / 10}\n" for i in range(60)))
    with closed_stdout(tmp_path, monkeypatch):
        code = cli.main(["screen", str(data), "--correct-col", "ok", "--confidence-col", "conf", "--n-boot", "100"])
    assert code == 141
    err = capsys.readouterr().err
    assert "cannot write" not in err and "Traceback" not in err


def test_audit_piped_into_head_exits_quietly(shared_data, tmp_path):
    """`rafs audit rafs … | head -1`: the SIGPIPE exit status (141) and nothing on stderr, as `rafs score`."""
    env = {**os.environ, "RAFS_DATA_DIR": str(shared_data)}
    proc = subprocess.Popen([sys.executable, "-m", "trainers", "audit", "rafs", "faithful_accuracy",
                             "rafs_step_validity", "--n", "5", "--mode", "single", "--no-progress"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    proc.stdout.readline()
    proc.stdout.close()  # what `head -1` does after its first line
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141, err
    assert "Traceback" not in err and "BrokenPipeError" not in err, err


# -- 5. 1-based row numbers ------------------------------------------------------------------------------------------

def test_eval_names_rows_from_1(tmp_path, capsys):
    rows = [{"id": "c0", "problem": "p", "steps": ["1 + 1 = 2"], "label": 5, "final_answer_correct": True}]
    data = tmp_path / "d.json"
    data.write_text(json.dumps(rows))
    assert cli.main(["eval", str(data)]) == 2
    err = capsys.readouterr().err
    assert "row 1 (id 'c0'): field 'label' = 5" in err and "row 0" not in err


@pytest.mark.parametrize("body,message", [
    ("true,0.5\nmaybe,0.3\n", "column 'ok': value 'maybe' (row 2) is not a correctness label"),
    ("true,0.5\nfalse,0.4\ntrue,KEEP?\n", "column 'conf': value 'KEEP?' (row 3) is not a confidence"),
    ("true,0.5\nfalse,150\n", "column 'conf': value 150 (row 2) is outside [0, 100]"),
])
def test_screen_names_rows_from_1(body, message, tmp_path, capsys):
    data = tmp_path / "d.csv"
    data.write_text("ok,conf\n" + body)
    assert cli.main(["screen", str(data), "--correct-col", "ok", "--confidence-col", "conf"]) == 2
    err = capsys.readouterr().err
    assert message in err and "(row 0)" not in err


def test_screen_parsers_name_rows_from_1():
    from trainers.screen import ScreenInputError, parse_confidence, parse_correct

    with pytest.raises(ScreenInputError, match=r"value 2 \(row 3\) is not a correctness label"):
        parse_correct([1, 0, 2])
    with pytest.raises(ScreenInputError, match=r"value 'x' \(row 1\)"):
        parse_correct(["x", "true"])
    with pytest.raises(ScreenInputError, match=r"value -3 \(row 2\) is outside"):
        parse_confidence([0.5, -3.0, 0.2])
