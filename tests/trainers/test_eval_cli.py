"""`rafs eval` end to end: JSON/Markdown/table output, calibration on another split, bad input, real GSM8K rows."""

import json
import subprocess
import sys

import pytest

from trainers.cli import build_parser, main

TOM = "Tom has 3 boxes of 4 pens. How many pens does he have?"
ROWS = [
    {"id": "e1", "generator": "g", "problem": TOM, "steps": ["3 * 4 = 13 pens.", "The answer is 13."], "label": 0,
     "final_answer_correct": False},
    {"id": "e2", "generator": "g", "problem": TOM,
     "steps": ["Tom has 3 boxes.", "Each has 4 pens, so 3 * 4 = 14 pens.", "The answer is 14."], "label": 1,
     "final_answer_correct": False},
    {"id": "c1", "generator": "g", "problem": TOM, "steps": ["3 * 4 = 12 pens.", "The answer is 12."], "label": -1,
     "final_answer_correct": True},
    {"id": "c2", "generator": "h", "problem": TOM, "steps": ["Tom has 3 boxes.", "3 * 4 = 12 pens.",
                                                             "The answer is 12."], "label": -1,
     "final_answer_correct": True},
]


def write(tmp_path, rows, name="data.json", jsonl=False):
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows) if jsonl else json.dumps(rows))
    return path


def test_eval_is_registered_and_light():
    args = build_parser().parse_args(["eval", "x.json", "--num-proc", "2"])
    assert args._name == "eval" and args.num_proc == 2
    code = ("import sys, trainers.cli.commands.eval; "
            "heavy = [m for m in ('numpy', 'sklearn', 'torch', 'rewards.adapters.evaluation', 'rich') if m in sys.modules]; "
            "print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


def test_json_and_markdown(tmp_path):
    src = write(tmp_path, ROWS, "rows.jsonl", jsonl=True)
    out, md = tmp_path / "r.json", tmp_path / "r.md"
    assert main(["eval", str(src), "--json", str(out), "--markdown", str(md)]) == 0
    report = json.loads(out.read_text())
    # two false calculations caught at their labelled step, two clean solutions unflagged
    assert report["n"] == 4 and report["acc_erroneous"] == 1.0 and report["acc_correct"] == 1.0
    assert report["f1"] == 1.0 and len(report["f1_ci"]) == 2
    assert report["silent_failure"]["n"] == 2 and report["silent_failure"]["n_pos"] == 0
    assert report["silent_failure"]["auroc"] is None  # no positives: undefined, not a number
    assert report["meta"]["theta_source"] == "config"
    text = md.read_text()
    assert "Qwen2.5-Math-PRM-7B" in text and "published figures, not our runs" in text


def test_table_without_outputs(tmp_path, capsys):
    src = write(tmp_path, ROWS)
    assert main(["eval", str(src)]) == 0
    out = capsys.readouterr().out
    assert "acc_erroneous" in out and "silent-failure detection" in out and "false_calculation" in out


def test_calibrate_on(tmp_path):
    src, cal, out = write(tmp_path, ROWS), write(tmp_path, ROWS, "cal.jsonl", jsonl=True), tmp_path / "r.json"
    assert main(["eval", str(src), "--calibrate-on", str(cal), "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["meta"]["theta_source"] == "calibrated"
    assert report["threshold"]["calibrated_on"] == str(cal)
    assert report["threshold"]["calibration"]["n"] == 4


@pytest.mark.parametrize("mutate,message", [
    # rows[2] is the third row of the file: row numbers are 1-based, as a user counts them
    (lambda rows: rows[2].pop("final_answer_correct"), "row 3 (id 'c1'): missing field 'final_answer_correct'"),
    (lambda rows: rows[0].update(label=7), "field 'label' = 7 is out of range for 2 step(s)"),
])
def test_bad_rows_exit_2_with_one_line(tmp_path, capsys, mutate, message):
    rows = [dict(r) for r in ROWS]
    mutate(rows)
    src = write(tmp_path, rows)
    assert main(["eval", str(src)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("rafs eval: error:") and message in err and "\n" not in err


@pytest.mark.parametrize("argv,message", [
    (["eval", "MISSING"], "does not exist"),
    (["eval", "DATA", "--resamples", "10"], "use 1000 or more"),
    (["eval", "DATA", "--num-proc", "0"], "--num-proc 0 must be >= 1"),
    (["eval", "DATA", "--calibrate-on", "MISSING"], "--calibrate-on"),
    (["eval", "BADJSON"], "not valid JSON"),
])
def test_user_errors(tmp_path, capsys, argv, message):
    data = write(tmp_path, ROWS)
    bad = tmp_path / "bad.json"
    bad.write_text("[{")
    names = {"DATA": str(data), "MISSING": str(tmp_path / "nope.json"), "BADJSON": str(bad)}
    assert main([names.get(a, a) for a in argv]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err


def test_real_gsm8k_first_60_rows(tmp_path, shared_data):
    out = tmp_path / "gsm8k60.json"
    assert main(["eval", str(shared_data / "processbench" / "gsm8k.json"), "--limit", "60", "--json", str(out)]) == 0
    r = json.loads(out.read_text())
    assert r["n"] == 60 and r["n_erroneous"] + r["n_correct"] == 60
    assert 0 <= r["acc_erroneous"] <= 1 and (r["f1"] is None) == (r["n_correct"] == 0)
    # the checker's contract: labelled steps with a false calculation are caught
    fc = r["misses"]["kinds"]["false_calculation"]
    assert fc["n"] >= 3 and fc["caught"] >= 0.8 * fc["n"]
    # the sweep at the scorer's θ reproduces the headline figure
    at_default = next(s for s in r["threshold"]["sweep"] if s["theta"] == r["meta"]["config"]["theta_step"])
    assert at_default["acc_erroneous"] == r["acc_erroneous"]
    assert sum(g["n"] for g in r["per_generator"].values()) == 60


def test_no_silent_overwrite(tmp_path, capsys):
    src, out = write(tmp_path, ROWS), tmp_path / "r.json"
    out.write_text("precious\n")
    assert main(["eval", str(src), "--json", str(out)]) == 2
    assert "--force" in capsys.readouterr().err and out.read_text() == "precious\n"
    assert main(["eval", str(src), "--json", str(out), "--force"]) == 0
    assert json.loads(out.read_text())["n"] == 4
