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


def _jsonl(path):
    return [json.loads(line) for line in open(path, encoding="utf-8")]


def test_score_and_filter_agree_on_the_readme_examples(tmp_path):
    """``examples/traces.jsonl`` mixes layouts (a pre-split ``steps`` row among problem + completion rows): ``rafs
    score`` reads each row's own layout, and ``rafs filter`` scores the same rows the same way (the steps row was
    dropped as "column 'completion' is missing")."""
    from pathlib import Path

    examples = Path(__file__).resolve().parents[2] / "examples" / "traces.jsonl"
    assert main(["score", str(examples), "--out", str(tmp_path / "scored.jsonl")]) == 0
    assert main(["filter", str(examples), "--out", str(tmp_path / "filtered"), "--num-proc", "1"]) == 0
    scored = {r["id"]: r for r in _jsonl(tmp_path / "scored.jsonl")}
    filtered = {r["id"]: r for part in ("kept", "dropped") for f in sorted((tmp_path / "filtered" / part).iterdir())
                for r in _jsonl(f)}
    assert set(filtered) == set(scored)
    assert scored["presplit_steps"]["rafs"] is not None
    for key, row in scored.items():
        assert not str(filtered[key].get("reason") or "").startswith("missing:"), filtered[key]
        assert filtered[key]["rafs"] == pytest.approx(row["rafs"], abs=1e-3) if row["rafs"] is not None else \
            filtered[key]["rafs"] is None


def test_a_first_row_with_an_empty_completion_is_scored_with_its_reason(tmp_path):
    """An empty completion abstains with its reason; it does not reject the whole file (with a message listing
    the very columns the row has)."""
    src = tmp_path / "in.jsonl"
    src.write_text(json.dumps({"problem": "What is 2 + 3?", "completion": ""}) + "\n"
                   + json.dumps({"problem": "What is 2 + 3?", "completion": "2 + 3 = 5\n#### 5"}) + "\n")
    assert main(["score", str(src), "--out", str(tmp_path / "out.jsonl")]) == 0
    empty, worked = _jsonl(tmp_path / "out.jsonl")
    assert (empty["rafs"], empty["status"]) == (None, "abstain") and empty["reasons"] == ["empty: no reasoning text"]
    assert worked["status"] == "accept"


def test_every_abstention_written_by_score_says_why(tmp_path):
    """``rafs score`` wrote ``rafs: null, status: abstain`` with no reason, where the filter and the Python API
    give one; each output row now carries the scorer's ``reasons``."""
    from pathlib import Path

    from rewards import score_trace

    examples = Path(__file__).resolve().parents[2] / "examples" / "traces.jsonl"
    assert main(["score", str(examples), "--out", str(tmp_path / "scored.jsonl")]) == 0
    rows = _jsonl(tmp_path / "scored.jsonl")
    abstained = [r for r in rows if r["status"] == "abstain"]
    assert abstained and all(r["reasons"] for r in abstained)
    garbage = next(r for r in rows if r["id"] == "garbage")
    assert garbage["reasons"] == score_trace(garbage["problem"], garbage["completion"], gold=garbage["answer"]).reasons
