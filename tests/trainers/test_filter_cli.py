"""``rafs filter``: files in, kept/dropped/summary out, config files, and one-line errors that lose no data."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("datasets")

from trainers.cli import main  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
RECIPE = ROOT / "recipes" / "dataset_filtering" / "config_gsm8k.yaml"

PROBLEM = "Tom has 3 boxes of 4 pens and buys 5 more pens. How many pens does he have?"
ROWS = [
    {"prompt": PROBLEM, "completion": "He has 3 * 4 = 12 pens in boxes.\nThen 12 + 5 = 17 pens.\n#### 17", "answer": "17"},
    {"prompt": PROBLEM, "completion": "He has 3 * 4 = 13 pens in boxes.\nThen 12 + 5 = 17 pens.\n#### 17", "answer": "17"},
    {"prompt": PROBLEM, "completion": "", "answer": "17"},
]


@pytest.fixture(scope="module")
def gsm8k50(tmp_path_factory, shared_data) -> Path:
    path = tmp_path_factory.mktemp("data") / "gsm8k50.jsonl"
    with open(shared_data / "gsm8k" / "train.jsonl", encoding="utf-8") as src, path.open("w") as dst:
        for _ in range(50):
            dst.write(next(src))
    return path


@pytest.fixture()
def small(tmp_path) -> Path:
    path = tmp_path / "small.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    return path


def _rows(folder: Path) -> list[dict]:
    return [json.loads(line) for part in sorted(folder.glob("*.jsonl")) for line in part.read_text().splitlines()]


def _read(out: Path) -> tuple[list[dict], list[dict], dict]:
    return _rows(out / "kept"), _rows(out / "dropped"), json.loads((out / "summary.json").read_text())


def test_gsm8k_files_and_conservation(gsm8k50, tmp_path):
    out = tmp_path / "out"
    assert main(["filter", str(gsm8k50), "--out", str(out)]) == 0
    kept, dropped, summary = _read(out)
    assert summary["n_in"] == 50 == len(kept) + len(dropped)
    assert summary["n_kept"] == len(kept) and summary["n_dropped"] == len(dropped)
    assert sum(summary["reasons"].values()) == len(dropped)
    assert all(row["reason"] for row in dropped)
    assert summary["thresholds"]["statuses"] == ["accept"] and summary["thresholds"]["layout"] == "question_answer"
    source = [json.loads(line) for line in gsm8k50.read_text().splitlines()]
    assert sorted(r["question"] for r in kept + dropped) == sorted(r["question"] for r in source)
    assert {"rafs", "status", "failure_type", "suspect_step"} <= set(kept[0])


@pytest.mark.parametrize("fmt", ["csv", "parquet", "json"])
def test_other_formats(fmt, tmp_path):
    from datasets import Dataset

    ds = Dataset.from_list([{k: v for k, v in r.items()} for r in ROWS])
    path = tmp_path / f"rows.{fmt}"
    {"csv": ds.to_csv, "parquet": ds.to_parquet, "json": ds.to_json}[fmt](str(path))
    out = tmp_path / "out"
    assert main(["filter", str(path), "--out", str(out)]) == 0
    kept, dropped, summary = _read(out)
    assert summary["n_in"] == 3 and len(kept) == 1 and len(dropped) == 2
    assert sorted(r["reason"] for r in dropped) == ["failure_type:silent_failure", "missing:completion"]
    assert all(set(ROWS[0]) <= set(r) for r in kept + dropped)  # every row keeps its input columns


def test_flags_statuses_failure_types_min_rafs_num_proc(small, tmp_path):
    out = tmp_path / "o1"
    assert main(["filter", str(small), "--out", str(out), "--status", "accept,review,abstain",
                 "--drop-failure-types", "none", "--num-proc", "2"]) == 0
    kept, dropped, summary = _read(out)
    assert (len(kept), len(dropped)) == (2, 1)  # a row without a completion is dropped whatever the thresholds
    assert dropped[0]["reason"] == "missing:completion" and "'completion'" in dropped[0]["reason_detail"]
    out = tmp_path / "o2"
    assert main(["filter", str(small), "--out", str(out), "--status", "accept,review,abstain",
                 "--drop-failure-types", "none", "--min-rafs", "100"]) == 0
    kept, dropped, summary = _read(out)
    assert summary["reasons"] == {"rafs_below_min": 2, "missing:completion": 1}
    assert summary["thresholds"]["min_rafs"] == 100.0


def test_recipe_config_and_cli_override(gsm8k50, tmp_path):
    out = tmp_path / "cfg"
    assert main(["filter", str(gsm8k50), "--out", str(out), "--config", str(RECIPE), "--num-proc", "1"]) == 0
    _, _, summary = _read(out)
    assert summary["thresholds"]["layout"] == "question_answer"
    assert summary["thresholds"]["drop_failure_types"][0] == "silent_failure"
    out2 = tmp_path / "cfg2"
    assert main(["filter", str(gsm8k50), "--out", str(out2), "--config", str(RECIPE), "--num-proc", "1",
                 "--min-rafs", "99.5", "--status", "accept,review"]) == 0
    _, _, summary2 = _read(out2)
    assert summary2["thresholds"]["min_rafs"] == 99.5 and summary2["thresholds"]["statuses"] == ["accept", "review"]
    assert summary2["n_dropped"] > summary["n_dropped"]  # nothing scores 99.5


def test_config_rafs_fields_reach_the_scorer(small, tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("tau-accept: 100.0\nstatuses: accept\n")
    out = tmp_path / "o"
    assert main(["filter", str(small), "--out", str(out), "--config", str(cfg)]) == 0
    _, _, summary = _read(out)
    assert summary["thresholds"]["rafs_config"]["tau_accept"] == 100.0
    assert summary["n_kept"] == 0  # nothing reaches RAFS 100, so nothing is accepted


def _error(argv, capsys) -> str:
    assert main(argv) == 2
    err = [line for line in capsys.readouterr().err.strip().splitlines() if "examples" not in line]  # progress bars
    assert len(err) == 1 and err[0].startswith("rafs filter: error: "), err
    return err[0]


def test_errors_are_one_line(small, tmp_path, capsys):
    assert "does not exist" in _error(["filter", str(tmp_path / "nope.jsonl"), "--out", str(tmp_path / "o")], capsys)
    txt = tmp_path / "rows.txt"
    txt.write_text("x")
    assert "'.txt'" in _error(["filter", str(txt), "--out", str(tmp_path / "o")], capsys)
    assert "'chat'" in _error(["filter", str(small), "--out", str(tmp_path / "o"), "--layout", "chat"], capsys)
    assert "messages" in _error(["filter", str(small), "--out", str(tmp_path / "o"), "--layout", "messages"], capsys)
    assert "'acept'" in _error(["filter", str(small), "--out", str(tmp_path / "o"), "--status", "acept"], capsys)
    bad = tmp_path / "bad.yaml"
    bad.write_text("min_rafs: 50\nthreshold: 3\n")
    assert "'threshold'" in _error(["filter", str(small), "--out", str(tmp_path / "o"), "--config", str(bad)], capsys)
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"prompt": "a", "completion": \n')
    assert "could not read" in _error(["filter", str(broken), "--out", str(tmp_path / "o")], capsys)
    assert not (tmp_path / "o").exists()  # nothing was written on any error


def test_refuses_non_empty_out_unless_force(small, tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    precious = out / "notes.txt"
    precious.write_text("keep me")
    message = _error(["filter", str(small), "--out", str(out)], capsys)
    assert "--force" in message and "not empty" in message
    assert sorted(os.listdir(out)) == ["notes.txt"]
    assert main(["filter", str(small), "--out", str(out), "--force"]) == 0
    assert precious.read_text() == "keep me"
    assert sorted(n for n in os.listdir(out) if not n.startswith(".")) == [
        "dropped", "kept", "manifest.jsonl", "notes.txt", "summary.json"]
    part = out / "kept" / "part-00000-000000.jsonl"
    before = part.read_text()
    capsys.readouterr()
    message = _error(["filter", str(part), "--out", str(out), "--force"], capsys)
    assert "overwritten" in message and part.read_text() == before


def test_console_entry_point(small, tmp_path):
    out = tmp_path / "sub"
    env = {**os.environ, "WANDB_MODE": "disabled", "HF_DATASETS_OFFLINE": "1"}
    proc = subprocess.run([sys.executable, "-m", "trainers", "filter", str(small), "--out", str(out)],
                          capture_output=True, text=True, timeout=120, cwd=ROOT, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "kept 1 of 3 rows" in proc.stderr
    assert (out / "summary.json").exists() and len(list((out / "kept").glob("*.jsonl"))) == 1


def test_num_proc_defaults_to_the_usable_cores_and_config_sets_shards(small, tmp_path, capsys):
    from rewards.adapters.filter_shards import usable_cores

    out = tmp_path / "o"
    assert main(["filter", str(small), "--out", str(out), "--shard-size", "1"]) == 0
    _, _, summary = _read(out)
    assert summary["shards"] == 3 and summary["num_proc"] == min(usable_cores(), 3)
    cfg = tmp_path / "c.yaml"
    cfg.write_text("engine: local\nshard_size: 2\nnum_proc: 1\n")
    out2 = tmp_path / "o2"
    assert main(["filter", str(small), "--out", str(out2), "--config", str(cfg)]) == 0
    _, _, summary2 = _read(out2)
    assert (summary2["shard_size"], summary2["shards"], summary2["num_proc"]) == (2, 2, 1)
    capsys.readouterr()
    assert main(["filter", str(small), "--out", str(out2), "--config", str(cfg)]) == 0  # complete: nothing to do
    assert "already holds the complete run" in capsys.readouterr().err
    assert "'spark'" in _error(["filter", str(small), "--out", str(tmp_path / "o3"), "--engine", "spark"], capsys)
    assert "--shard-size 0" in _error(["filter", str(small), "--out", str(tmp_path / "o3"), "--shard-size", "0"],
                                      capsys)
    assert not (tmp_path / "o3").exists()


def test_directory_and_glob_inputs(tmp_path):
    shards = tmp_path / "shards"
    shards.mkdir()
    for k, row in enumerate(ROWS):
        (shards / f"part-{k}.jsonl").write_text(json.dumps(row) + "\n")
    for arg in (str(shards), str(shards / "part-*.jsonl")):
        out = tmp_path / f"o{len(arg)}"
        assert main(["filter", arg, "--out", str(out), "--num-proc", "1"]) == 0
        kept, dropped, summary = _read(out)
        assert summary["n_in"] == 3 and summary["shards"] == 3 and len(kept) == 1 and len(dropped) == 2


def test_engine_ray_without_ray_installed_is_a_one_line_error(small, tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # as if Ray Data were not installed
    message = _error(["filter", str(small), "--out", str(tmp_path / "o"), "--engine", "ray"], capsys)
    assert "pip install 'rafs[ray]'" in message
    assert not (tmp_path / "o").exists()
