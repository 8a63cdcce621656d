"""`rafs score` end to end: the JSONL contract, stdout, --out, bad input."""

import json
import subprocess
import sys

import pytest

from trainers.cli import main

ROW = {"problem": "Tom has 3 boxes of 4 pens. How many pens?", "completion": "3 * 4 = 13 pens.\n#### 13",
       "answer": "12"}


def write(tmp_path, rows, name="in.jsonl"):
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_score_writes_input_plus_contract_fields(tmp_path):
    steps_row = {"problem": "Add 2 and 2.", "steps": ["2 + 2 = 4", "The answer is 4."]}
    chat_row = {"problem": "Add 2 and 3.", "completion": [{"role": "assistant", "content": "2 + 3 = 5\n\\boxed{5}"}],
                "samples": ["2 + 3 = 5. #### 5", "2 + 3 = 6. #### 6"]}
    src = write(tmp_path, [ROW, steps_row, chat_row])
    out = tmp_path / "out.jsonl"
    assert main(["score", str(src), "--out", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 3
    first = rows[0]
    assert first["problem"] == ROW["problem"] and first["answer"] == "12"  # the input row is kept
    assert first["suspect_step"] == 0 and first["failure_type"] == "overt_failure"
    assert set(first["components"]) == {"P_R", "S_RA", "C_A", "D_R"}
    assert first["step_checks"][0]["q"] < 0.5 and first["step_checks"][0]["reasons"]
    assert rows[1]["status"] == "accept" and rows[1]["suspect_step"] is None
    assert rows[2]["components"]["C_A"] is not None


def test_score_to_stdout_via_console_entry(tmp_path):
    src = write(tmp_path, [ROW])
    proc = subprocess.run([sys.executable, "-m", "trainers", "score", str(src)], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["rafs"] is not None


@pytest.mark.parametrize("content,message", [
    ("not json\n", "not valid JSON"),
    ('{"completion": "1"}\n', "needs 'problem'"),
    ("[1, 2]\n", "expected a JSON object"),
])
def test_bad_rows_exit_nonzero_with_one_line(tmp_path, capsys, content, message):
    src = tmp_path / "bad.jsonl"
    src.write_text(content)
    assert main(["score", str(src)]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err


def test_missing_input_and_no_silent_overwrite(tmp_path, capsys):
    assert main(["score", str(tmp_path / "nope.jsonl")]) == 2
    src, out = write(tmp_path, [ROW]), tmp_path / "out.jsonl"
    out.write_text("precious\n")
    assert main(["score", str(src), "--out", str(out)]) == 2
    assert out.read_text() == "precious\n"
    assert main(["score", str(src), "--out", str(out), "--force"]) == 0
    assert json.loads(out.read_text())["rafs"] is not None


def test_score_piped_into_head_exits_quietly(tmp_path):
    """`rafs score … | head -1` closes the pipe early: no traceback, the SIGPIPE exit status."""
    src = write(tmp_path, [ROW] * 2000)
    proc = subprocess.Popen([sys.executable, "-m", "trainers", "score", str(src)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    proc.stdout.readline()
    proc.stdout.close()  # what `head -1` does after its first line
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
