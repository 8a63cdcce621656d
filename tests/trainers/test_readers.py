"""trainers.common.readers: one reader (JSONL, JSON array, CSV, parquet × four layouts) behind rafs score / filter / eval /
audit, one-line errors for bad paths and inputs, and the --force policy of the files these commands write."""

from __future__ import annotations

import json

import pytest

from trainers.cli import CommandError, main
from trainers.common.readers import LAYOUTS, LayoutSpec, iter_rows, read_items

PROBLEM = "Tom has 3 boxes of 4 pens. How many pens?"
GOOD = "3 * 4 = 12 pens.\n#### 12"
BAD = "3 * 4 = 13 pens.\n#### 13"
LAYOUT_ROWS = {
    "problem_completion": [{"problem": PROBLEM, "completion": GOOD, "answer": "12"},
                           {"problem": PROBLEM, "completion": BAD, "answer": "12"}],
    "question_answer": [{"question": PROBLEM, "answer": "3 * 4 = <<3*4=12>>12 pens.\n#### 12"},
                        {"question": PROBLEM, "answer": "3 * 4 = <<3*4=13>>13 pens.\n#### 13"}],
    "problem_steps": [{"problem": PROBLEM, "steps": ["3 * 4 = 12 pens.", "#### 12"], "label": -1},
                      {"problem": PROBLEM, "steps": ["3 * 4 = 13 pens.", "#### 13"], "label": 0}],
    "messages": [{"messages": [{"role": "user", "content": PROBLEM}, {"role": "assistant", "content": GOOD}]},
                 {"messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": PROBLEM},
                               {"role": "assistant", "content": BAD}]}],
}
FORMATS = ("jsonl", "json", "csv", "parquet")


def write(path, rows, fmt):
    """``rows`` as a file of format ``fmt`` (CSV cells holding lists are JSON text, as a spreadsheet export has)."""
    if fmt == "jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    elif fmt == "json":
        path.write_text(json.dumps(rows, indent=1))
    elif fmt == "csv":
        import pandas as pd

        cells = [{k: json.dumps(v) if isinstance(v, list) else v for k, v in r.items()} for r in rows]
        pd.DataFrame(cells).to_csv(path, index=False)
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.Table.from_pylist(rows), path)
    return path


def score_file(tmp_path, src, *extra):
    out = tmp_path / f"{src.name}.scored.jsonl"
    assert main(["score", str(src), "--out", str(out), *extra]) == 0
    return [json.loads(line) for line in out.read_text().splitlines()]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_every_layout_in_every_format_scores_the_same(tmp_path, layout):
    results = {}
    for fmt in FORMATS:
        src = write(tmp_path / f"{layout}.{fmt}", LAYOUT_ROWS[layout], fmt)
        rows = score_file(tmp_path, src)
        assert len(rows) == 2
        results[fmt] = [(r["rafs"], r["status"], r["suspect_step"], r["failure_type"]) for r in rows]
        # the output row is the input row plus the verdict
        first_key = next(iter(LAYOUT_ROWS[layout][0]))
        assert rows[0][first_key] is not None and "step_checks" in rows[0]
    assert len(set(map(tuple, results.values()))) == 1, results
    good, bad = results["jsonl"]
    assert good[1] == "accept" and good[2] is None  # the faithful trace
    assert bad[2] == 0 and bad[1] != "accept"       # 3 * 4 = 13 is caught at step 0
    if layout == "problem_completion":  # a separate gold answer (12): the wrong answer is an overt failure
        assert good[3] == "faithful_success" and bad[3] == "overt_failure"
    if layout == "question_answer":  # GSM8K: the solution's own "#### X" is the gold, so the slip is silent
        assert good[3] == "faithful_success" and bad[3] == "silent_failure"
    # --layout naming the layout gives the same result as auto-detection
    forced = score_file(tmp_path, tmp_path / f"{layout}.jsonl", "--layout", layout, "--force")
    assert [(r["rafs"], r["status"], r["suspect_step"], r["failure_type"]) for r in forced] == results["jsonl"]


def test_chat_completion_and_column_flags(tmp_path):
    rows = [{"q": PROBLEM, "reply": [{"role": "assistant", "content": BAD}], "gold": "12"}]
    src = write(tmp_path / "custom.jsonl", rows, "jsonl")
    out = score_file(tmp_path, src, "--layout", "problem_completion", "--problem-col", "q",
                     "--completion-col", "reply", "--answer-col", "gold")
    assert out[0]["suspect_step"] == 0 and out[0]["failure_type"] == "overt_failure"
    steps = write(tmp_path / "steps.csv", [{"question_text": PROBLEM, "trace": json.dumps(["3 * 4 = 13", "#### 13"])}],
                  "csv")
    out = score_file(tmp_path, steps, "--problem-col", "question_text", "--steps-col", "trace")
    assert out[0]["suspect_step"] == 0


def test_real_processbench_array_and_gsm8k_rows(tmp_path, shared_data):
    pb = json.loads((shared_data / "processbench" / "gsm8k.json").read_text())[:5]
    src = write(tmp_path / "pb.json", pb, "json")  # the ProcessBench file's own format: one JSON array
    rows = score_file(tmp_path, src)
    assert [r["id"] for r in rows] == [r["id"] for r in pb] and all(r["status"] for r in rows)
    with open(shared_data / "gsm8k" / "train.jsonl") as handle:
        gsm = [json.loads(next(handle)) for _ in range(5)]
    rows = score_file(tmp_path, write(tmp_path / "gsm.jsonl", gsm, "jsonl"))
    # GSM8K's reference solutions are faithful: accepted, and their own "#### X" is the gold
    assert all(r["status"] == "accept" and r["failure_type"] == "faithful_success" for r in rows)


def test_rafs_score_reads_processbench_file_directly(shared_data):
    items = read_items(str(shared_data / "processbench" / "gsm8k.json"), LayoutSpec())
    row, item = next(items)
    assert item.layout == "problem_steps" and item.steps == row["steps"] and item.problem == row["problem"]


def _error(argv, capsys) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err, err
    return err


@pytest.mark.parametrize("name, content, fragment", [
    ("missing.jsonl", None, "does not exist"),
    ("folder", "DIR", "is a folder"),
    ("empty.jsonl", "", "is empty"),
    ("blank.jsonl", "\n  \n", "holds no rows"),
    ("empty_array.json", "[]", "holds no rows"),
    ("bad.jsonl", json.dumps({"problem": PROBLEM, "completion": GOOD}) + "\nnot json\n", "bad.jsonl:2: not valid JSON"),
    ("bad_array.json", '[{"problem": "x",}]', "not valid JSON"),
    ("scalar.jsonl", "[1, 2]\n", "expected a JSON object"),
    ("binary.txt", "\x00\x01garbage", "unreadable format"),
    ("broken.parquet", "PAR1 not really", "unreadable parquet"),
    ("none.jsonl", '{"text": "hello"}\n', "columns found: ['text']; pass --layout"),
    ("two.jsonl", json.dumps({"problem": PROBLEM, "completion": GOOD, "steps": ["x"]}) + "\n",
     "fit more than one layout (problem_completion, problem_steps)"),
    ("steps_str.jsonl", json.dumps({"problem": PROBLEM, "steps": "3 * 4 = 12"}) + "\n",
     "must be a non-empty list of strings"),
    ("chat.jsonl", json.dumps({"messages": [{"role": "user", "content": PROBLEM}]}) + "\n", "no assistant turn"),
])
def test_bad_inputs_are_one_line_errors(tmp_path, capsys, name, content, fragment):
    path = tmp_path / name
    if content == "DIR":
        path.mkdir()
    elif content is not None:
        path.write_bytes(content.encode("latin-1"))
    err = _error(["score", str(path)], capsys)
    assert err.startswith("rafs score: error: ") and fragment in err, err


def test_explicit_layout_names_the_missing_column(tmp_path, capsys):
    src = write(tmp_path / "qa.jsonl", LAYOUT_ROWS["question_answer"], "jsonl")
    err = _error(["score", str(src), "--layout", "problem_steps"], capsys)
    assert "column 'problem' is missing (problem_steps layout)" in err and "--problem-col" in err
    err = _error(["score", str(src), "--layout", "tables"], capsys)
    assert "--layout 'tables' is unknown" in err and "problem_steps" in err


def test_iter_rows_streams_jsonl(tmp_path):
    src = tmp_path / "big.jsonl"
    src.write_text("".join(json.dumps({"i": i}) + "\n" for i in range(5)) + "not json\n")
    rows = iter_rows(str(src))
    assert [next(rows)[1]["i"] for _ in range(5)] == [0, 1, 2, 3, 4]  # read before the bad line is reached
    with pytest.raises(CommandError, match=":6: not valid JSON"):
        next(rows)


# -- the overwrite policy --------------------------------------------------------------------------------------

def test_score_out_is_refused_without_force_and_written_atomically(tmp_path, capsys):
    src = write(tmp_path / "in.jsonl", LAYOUT_ROWS["problem_completion"], "jsonl")
    out = tmp_path / "out.jsonl"
    out.write_text("precious\n")
    err = _error(["score", str(src), "--out", str(out)], capsys)
    assert "already exists" in err and "--force" in err and out.read_text() == "precious\n"
    bad = write(tmp_path / "half.jsonl", LAYOUT_ROWS["problem_completion"] + [{"text": "no layout"}], "jsonl")
    _error(["score", str(bad), "--out", str(out), "--force"], capsys)  # fails on row 3, after two rows scored
    assert out.read_text() == "precious\n"  # nothing half-written
    assert sorted(p.name for p in tmp_path.iterdir()) == ["half.jsonl", "in.jsonl", "out.jsonl"]  # no temp left
    assert main(["score", str(src), "--out", str(out), "--force"]) == 0
    assert len(out.read_text().splitlines()) == 2


@pytest.mark.parametrize("argv", [
    ["eval", "{data}", "--json", "{out}"], ["eval", "{data}", "--markdown", "{out}"],
    ["audit", "rafs", "--n", "3", "--json", "{out}"], ["audit", "rafs", "--n", "3", "--markdown", "{out}"],
])
def test_eval_and_audit_outputs_are_refused_without_force(tmp_path, capsys, argv):
    data = write(tmp_path / "pb.jsonl", [{**r, "final_answer_correct": r["label"] == -1}
                                         for r in LAYOUT_ROWS["problem_steps"]], "jsonl")
    out = tmp_path / "report.out"
    out.write_text("precious")
    err = _error([a.format(data=data, out=out) for a in argv], capsys)
    assert "already exists" in err and "--force" in err and out.read_text() == "precious"
    err = _error([a.format(data=data, out=tmp_path) for a in argv], capsys)
    assert "is a folder" in err


@pytest.mark.parametrize("fmt", FORMATS)
def test_eval_reads_every_format(tmp_path, fmt):
    from trainers.cli.commands.eval import _load

    rows = [{**r, "final_answer_correct": r["label"] == -1} for r in LAYOUT_ROWS["problem_steps"]]
    src = write(tmp_path / f"pb.{fmt}", rows, fmt)
    loaded = _load(str(src), None, "DATA", LayoutSpec(layout="problem_steps", allowed=("problem_steps",)))
    assert [(r["problem"], r["steps"], r["label"], r["final_answer_correct"]) for r in loaded] == \
        [(r["problem"], r["steps"], r["label"], r["final_answer_correct"]) for r in rows]


def test_eval_cli_on_csv_with_renamed_columns(tmp_path):
    rows = [{"question": r["problem"], "trace": r["steps"], "label": r["label"],
             "final_answer_correct": r["label"] == -1} for r in LAYOUT_ROWS["problem_steps"]] * 3
    src = write(tmp_path / "pb.csv", rows, "csv")
    out = tmp_path / "r.json"
    assert main(["eval", str(src), "--problem-col", "question", "--steps-col", "trace", "--json", str(out),
                 "--no-detector-ablation"]) == 0
    report = json.loads(out.read_text())
    assert report["n"] == 6 and report["acc_erroneous"] == 1.0 and report["acc_correct"] == 1.0


@pytest.mark.parametrize("fmt", ["csv", "parquet", "json"])
def test_audit_problems_in_every_format(tmp_path, fmt):
    rows = [{"question": "Ann has 2 bags of 5 apples. How many apples?", "answer": "2*5=<<2*5=10>>10\n#### 10"},
            {"question": "Bob has 3 boxes of 4 pens. How many pens?", "answer": "3*4=<<3*4=12>>12\n#### 12"}]
    src = write(tmp_path / f"problems.{fmt}", rows, fmt)
    out = tmp_path / "audit.json"
    assert main(["audit", "rafs", "--problems", str(src), "--families", "bare_answer", "--mode", "single",
                 "--no-progress", "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["reports"][0]["n_problems"] == 2


# -- rafs filter ---------------------------------------------------------------------------------------------------

def test_filter_warns_when_it_keeps_nothing(tmp_path, capsys):
    src = write(tmp_path / "gsm.jsonl", LAYOUT_ROWS["question_answer"], "jsonl")
    assert main(["filter", str(src), "--out", str(tmp_path / "o"), "--num-proc", "1", "--min-rafs", "100"]) == 0
    err = capsys.readouterr().err
    warning = [line for line in err.splitlines() if "WARNING" in line]
    assert len(warning) == 1 and "kept 0 of 2 rows" in warning[0]
    assert main(["filter", str(src), "--out", str(tmp_path / "o2"), "--num-proc", "1"]) == 0
    assert "WARNING" not in capsys.readouterr().err  # one faithful row kept: no warning


def test_filter_layout_errors_name_columns_and_flag(tmp_path, capsys):
    src = write(tmp_path / "x.jsonl", [{"text": "hello", "label": 1}], "jsonl")
    err = _error(["filter", str(src), "--out", str(tmp_path / "o")], capsys)
    assert "columns found: ['label', 'text']" in err and "--layout" in err and "layout=" not in err
    blank = tmp_path / "blank.jsonl"
    blank.write_text("\n\n")
    err = _error(["filter", str(blank), "--out", str(tmp_path / "o")], capsys)
    assert "no rows" in err or "empty" in err


def _engine_has(layout: str) -> bool:
    from rewards.adapters.filtering import LAYOUTS as ENGINE_LAYOUTS

    return layout in ENGINE_LAYOUTS


@pytest.mark.skipif(not _engine_has("problem_completion") or not _engine_has("problem_steps"),
                    reason="rewards.adapters.filtering has no problem_completion/problem_steps layout yet")
def test_filter_reads_score_examples_and_processbench_steps(tmp_path, shared_data):
    from pathlib import Path

    examples = Path(__file__).resolve().parents[2] / "examples" / "traces.jsonl"
    assert main(["filter", str(examples), "--out", str(tmp_path / "a"), "--num-proc", "1"]) == 0
    summary = json.loads((tmp_path / "a" / "summary.json").read_text())
    assert summary["n_in"] == len(examples.read_text().splitlines()) and summary["n_kept"] >= 1
    pb = json.loads((shared_data / "processbench" / "gsm8k.json").read_text())[:10]
    src = write(tmp_path / "pb.json", pb, "json")
    assert main(["filter", str(src), "--out", str(tmp_path / "b"), "--num-proc", "1"]) == 0
    summary = json.loads((tmp_path / "b" / "summary.json").read_text())
    assert summary["n_in"] == 10 and summary["thresholds"]["layout"] == "problem_steps"


@pytest.mark.parametrize("command", ["eval", "audit", "filter"])
@pytest.mark.parametrize("kind, fragment", [("missing", "does not exist"), ("folder", "folder"),
                                            ("empty", "empty"), ("blank", "no rows")])
def test_every_reading_command_rejects_bad_paths_in_one_line(tmp_path, capsys, command, kind, fragment):
    path = tmp_path / ("data" if kind == "folder" else "data.jsonl")
    if kind == "folder":
        path.mkdir()
        (path / "notes.txt").write_text("not data")
    elif kind == "empty":
        path.write_text("")
    elif kind == "blank":
        path.write_text("\n \n")
    argv = {"eval": ["eval", str(path)], "audit": ["audit", "rafs", "--problems", str(path)],
            "filter": ["filter", str(path), "--out", str(tmp_path / "out")]}[command]
    err = _error(argv, capsys)
    if kind == "folder" and command == "filter":  # filter reads a folder of shards: this one holds none
        fragment = "holds no .jsonl"
    assert err.startswith(f"rafs {command}: error: ") and fragment in err, err
