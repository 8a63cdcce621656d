"""`rafs eval --verifier prm`: the evaluation harness runs a model-backed verifier (a tiny Qwen-PRM here)."""

import json

from trainers.cli import main

ROWS = [
    {"id": "e1", "problem": "Add 2 and 3, then double.", "steps": ["2 + 3 = 6", "6 * 2 = 12", "\\boxed{12}"],
     "label": 0, "final_answer_correct": False},
    {"id": "c1", "problem": "Add 2 and 3.", "steps": ["2 + 3 = 5", "\\boxed{5}"], "label": -1,
     "final_answer_correct": True},
    {"id": "c2", "problem": "Add 4 and 4.", "steps": ["4 + 4 = 8", "\\boxed{8}"], "label": -1,
     "final_answer_correct": True},
]


def test_eval_cli_with_a_prm_verifier(tmp_path, qwen_prm_dir):
    data = tmp_path / "rows.json"
    data.write_text(json.dumps(ROWS))
    out = tmp_path / "report.json"
    code = main(["eval", str(data), "--json", str(out), "--verifier", "prm", "--verifier-model", qwen_prm_dir,
                 "--verifier-device", "cpu", "--verifier-timeout", "0"])
    assert code == 0
    report = json.loads(out.read_text())
    assert report["meta"]["verifier"] == "prm"
    assert report["n"] == 3 and 0.0 <= report["acc_correct"] <= 1.0


def test_eval_cli_names_a_bad_verifier_model(tmp_path, capsys):
    data = tmp_path / "rows.json"
    data.write_text(json.dumps(ROWS))
    code = main(["eval", str(data), "--verifier", "prm", "--verifier-model", str(tmp_path / "missing")])
    assert code == 2
    assert "missing" in capsys.readouterr().err
