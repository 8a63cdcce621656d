"""`rafs report FILE`: what the rewards pay a file of completions, called as GRPO calls them, group by group."""

import json
from pathlib import Path

import pytest

from rewards import rafs_reward
from trainers.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "traces.jsonl"
PENS = "Tom has 3 boxes of 4 pens. How many pens does he have?"
BAGS = "Ann has 2 bags of 5 apples. How many apples does she have?"


def write(tmp_path, rows, name="in.jsonl"):
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def report_json(tmp_path, src, *extra):
    out = tmp_path / "report.json"
    assert main(["report", str(src), "--json", str(out), "--force", *extra]) == 0
    return json.loads(out.read_text())


def test_examples_file_report(tmp_path, capsys):
    n = len(EXAMPLES.read_text().splitlines())
    r = report_json(tmp_path, EXAMPLES)
    out = capsys.readouterr().out
    assert "verified" in out and "groups without learning signal" in out and "[0.90, 1.00]" in out
    assert r["n"] == n and set(r["rewards"]) == {"rafs_reward", "faithful_accuracy_reward"}
    assert 0 < r["verified"] < n
    for entry in r["rewards"].values():
        hist = entry["histogram"]
        assert sum(hist["counts"]) + hist["none"] == n
        assert entry["pay"]["n"] == n
    assert r["timing"]["ms_median"] > 0


def test_groups_without_signal_and_pay_match_grpo_calls(tmp_path):
    rows = [  # pens: the same derivation twice (equal rewards: no signal); bags: a right and a wrong derivation
        {"problem": PENS, "completion": "3 * 4 = 12 pens.\n#### 12", "answer": "12"},
        {"problem": PENS, "completion": "3 * 4 = 12 pens.\n#### 12", "answer": "12"},
        {"problem": BAGS, "completion": "2 * 5 = 10 apples.\n#### 10", "answer": "10"},
        {"problem": BAGS, "completion": "2 * 5 = 11 apples.\n#### 11", "answer": "10"},
        {"problem": "A lone problem: 1 + 1?", "completion": "1 + 1 = 2\n#### 2", "answer": "2"},
    ]
    r = report_json(tmp_path, write(tmp_path, rows))
    assert r["groups"] == 2 and r["singletons"] == 1
    for name in ("rafs_reward", "faithful_accuracy_reward"):
        assert r["rewards"][name]["groups_without_signal"] == {"groups": 2, "without_signal": 1, "share": 0.5,
                                                               "singletons": 1}
    # the pay is what rafs_reward returns when GRPO hands it each group
    expected = []
    for problem in (PENS, BAGS, "A lone problem: 1 + 1?"):
        group = [row for row in rows if row["problem"] == problem]
        expected += rafs_reward(prompts=[problem] * len(group), completions=[g["completion"] for g in group],
                                answer=[g["answer"] for g in group])
    assert r["rewards"]["rafs_reward"]["pay"]["mean"] == pytest.approx(sum(expected) / len(expected), abs=1e-4)
    assert r["rewards"]["faithful_accuracy_reward"]["pay"]["full"] == 4  # the wrong answer is not paid
    assert r["verified"] == 4


def test_processbench_rows_with_labels_give_an_auroc(tmp_path, shared_data):
    rows = json.loads((shared_data / "processbench" / "gsm8k.json").read_text())
    valid = [r for r in rows if r["label"] == -1][:4]
    flawed = [r for r in rows if r["label"] != -1][:4]
    src = tmp_path / "pb.json"
    src.write_text(json.dumps(valid + flawed))  # the problem + steps layout, no gold column
    r = report_json(tmp_path, src, "--reward", "rafs", "--reward", "faithful_accuracy")
    assert r["labels"] == {"valid": 4, "flawed": 4} and r["has_gold"] is False
    assert 0.0 <= r["rewards"]["rafs_reward"]["auroc_valid_vs_flawed"] <= 1.0
    assert r["rewards"]["faithful_accuracy_reward"]["pay"]["none"] == 8  # no gold: unscorable, said so


def test_plot_is_written_and_outputs_are_never_overwritten(tmp_path, capsys):
    png = tmp_path / "pay.png"
    assert main(["report", str(EXAMPLES), "--plot", str(png), "--reward", "rafs"]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    before = png.read_bytes()
    capsys.readouterr()
    assert main(["report", str(EXAMPLES), "--plot", str(png)]) == 2
    err = capsys.readouterr().err.strip()
    assert "--force" in err and "\n" not in err and png.read_bytes() == before


@pytest.mark.parametrize("args,message", [
    (["--reward", "accuracy"], "--reward 'accuracy' is unknown"),
    (["--plot", "OUT.xyz"], "matplotlib cannot write"),
    (["--limit", "0"], "--limit 0"),
    (["--bins", "0"], "--bins 0"),
])
def test_bad_arguments_exit_2_with_one_line(tmp_path, capsys, args, message):
    args = [a.replace("OUT", str(tmp_path / "out")) for a in args]
    assert main(["report", str(EXAMPLES), *args]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err and err.startswith("rafs report: error:")


def test_bad_input_exits_2(tmp_path, capsys):
    assert main(["report", str(tmp_path / "missing.jsonl")]) == 2
    bad = write(tmp_path, [{"text": "no problem column"}])
    assert main(["report", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all(line.startswith("rafs report: error:") for line in err)
