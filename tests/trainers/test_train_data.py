"""trainers.training.train_data: where a recipe's data comes from (data_dir, dataset_path, built-in sets) and its one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("trl")

from trainers.training.train_data import check_data, data_dir_of, load_probe_set, load_train_dataset  # noqa: E402
from trainers.training.recipes import REPO_ROOT, RAFSScriptArguments  # noqa: E402

ROWS = [{"question": f"Ann has {i} pens and gets 2 more. How many pens?", "answer": f"{i}+2=<<{i}+2={i + 2}>>{i + 2}\n"
         f"#### {i + 2}"} for i in range(1, 6)]


def write_gsm8k(root: Path) -> Path:
    (root / "gsm8k").mkdir(parents=True)
    for split, rows in (("train", ROWS[:3]), ("test", ROWS[3:])):
        (root / "gsm8k" / f"{split}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return root


def test_gsm8k_is_read_from_data_dir_train_and_test_splits(tmp_path):
    script = RAFSScriptArguments(dataset_name="gsm8k", data_dir=str(write_gsm8k(tmp_path / "data")),
                                 screen_probe_size=5)
    check_data(script)
    train = load_train_dataset(script, seed=0)
    assert len(train) == 3 and set(train.column_names) == {"prompt", "answer"}
    assert {r["answer"] for r in train} == {r["answer"] for r in ROWS[:3]}
    probe = load_probe_set(script)
    assert {p["answer"] for p in probe} == {r["answer"] for r in ROWS[3:]}  # the test split: held out


def test_a_relative_data_dir_resolves_against_the_working_directory(tmp_path, monkeypatch):
    write_gsm8k(tmp_path / "mydata")
    monkeypatch.chdir(tmp_path)
    script = RAFSScriptArguments(dataset_name="gsm8k", data_dir="mydata")
    assert data_dir_of(script) == tmp_path / "mydata"
    assert len(load_train_dataset(script, seed=0)) == 3


def test_the_default_data_dir_is_shared_data_beside_the_clone_from_any_directory(shared_data, tmp_path,
                                                                                  monkeypatch):
    monkeypatch.chdir(tmp_path)  # not the repository: ../shared/data resolves against the repository root
    assert RAFSScriptArguments().data_dir == "../shared/data"
    assert data_dir_of(RAFSScriptArguments()).samefile(shared_data)
    assert data_dir_of(RAFSScriptArguments()).samefile(REPO_ROOT.parent / "shared" / "data")


@pytest.mark.parametrize("kwargs,flag", [
    ({"dataset_name": "gsm8k", "data_dir": "/no/such/data"}, "--data_dir /no/such/data"),
    ({"dataset_name": "gsm8k", "data_dir": "."}, "--data_dir ."),  # a folder without gsm8k/train.jsonl
    ({"dataset_path": "no/such/rows.jsonl"}, "--dataset_path no/such/rows.jsonl: no such file"),
    ({"screen_probe_path": "no/such/probe.jsonl"}, "--screen_probe_path no/such/probe.jsonl: no such file"),
])
def test_missing_data_is_one_line_naming_the_flag(tmp_path, monkeypatch, kwargs, flag):
    monkeypatch.chdir(tmp_path)
    script = RAFSScriptArguments(**{"dataset_name": "easy_arithmetic", **kwargs})
    with pytest.raises(ValueError) as info:
        check_data(script)
    message = str(info.value)
    assert flag in message and len(message.splitlines()) == 1, message
    if "screen_probe_path" not in kwargs:
        with pytest.raises(ValueError, match=flag.split(":")[0].replace(".", r"\.")):
            load_train_dataset(script)


def test_rafs_train_dry_run_fails_on_missing_data(capsys):
    from trainers.cli import main

    recipe = REPO_ROOT / "recipes" / "SmolLM2-135M-Instruct" / "grpo" / "config_demo.yaml"
    assert main(["train", str(recipe), "--dry-run", "--dataset_name", "gsm8k", "--data_dir", "/no/such/data"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--data_dir /no/such/data" in err and "gsm8k/train.jsonl" in err, err
