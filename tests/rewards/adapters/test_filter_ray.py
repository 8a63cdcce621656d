"""``--engine ray``: the same scoring as a Ray Data map_batches, the same outputs, the same kept set (local Ray)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

ray = pytest.importorskip("ray")
pytest.importorskip("ray.data")
pd = pytest.importorskip("pandas")

from rewards.adapters.filter_ray import filter_with_ray  # noqa: E402
from rewards.adapters.filter_shards import FilterInputError, FilterOutputError, filter_files  # noqa: E402

PROBLEM = "Tom has 3 boxes of 4 pens and buys 5 more pens. How many pens does he have?"
GOOD = "He has 3 * 4 = 12 pens in boxes.\nThen 12 + 5 = 17 pens.\n#### 17"
SILENT = "He has 3 * 4 = 13 pens in boxes.\nThen 12 + 5 = 17 pens.\n#### 17"


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    """One local Ray for the module (2 CPUs, no dashboard); filter_with_ray reuses it and leaves it running."""
    if os.environ.get("RAY_ADDRESS"):
        pytest.skip("RAY_ADDRESS is set: these tests start their own local Ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def gsm8k200(tmp_path_factory, shared_data) -> tuple[Path, list[dict]]:
    with open(shared_data / "gsm8k" / "train.jsonl", encoding="utf-8") as handle:
        rows = [{"id": i, **json.loads(line)} for i, line in zip(range(200), handle)]
    path = tmp_path_factory.mktemp("data") / "gsm8k200.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path, rows


def _rows(folder: Path) -> list[dict]:
    return [json.loads(line) for part in sorted(folder.glob("*.jsonl")) for line in part.read_text().splitlines()]


def test_ray_equals_the_local_engine_on_jsonl(gsm8k200, tmp_path):
    path, source = gsm8k200
    local = filter_files(path, tmp_path / "local", num_proc=1, shard_size=64, progress=False)
    summary = filter_with_ray(path, tmp_path / "ray", batch_size=32)
    assert summary["engine"] == "ray" and summary["ray_cpus"] == 2
    for key in ("n_in", "n_kept", "n_dropped", "reasons", "statuses", "failure_types", "thresholds"):
        assert summary[key] == local[key], key
    assert summary["rafs_mean"] == pytest.approx(local["rafs_mean"])  # summed in another order
    kept_ray, kept_local = _rows(tmp_path / "ray" / "kept"), _rows(tmp_path / "local" / "kept")
    assert kept_ray == kept_local  # same rows, same columns and values, same order
    assert _rows(tmp_path / "ray" / "dropped") == _rows(tmp_path / "local" / "dropped")
    assert sorted(r["id"] for r in kept_ray + _rows(tmp_path / "ray" / "dropped")) == [r["id"] for r in source]
    saved = json.loads((tmp_path / "ray" / "summary.json").read_text())
    assert saved["n_kept"] == summary["n_kept"] and (tmp_path / "ray" / "manifest.jsonl").exists()
    # the output composes with datasets for the following SFT run
    datasets = pytest.importorskip("datasets")
    ds = datasets.load_dataset("json", data_files=str(tmp_path / "ray" / "kept" / "*.jsonl"), split="train")
    assert len(ds) == summary["n_kept"] and {"question", "answer", "rafs"} <= set(ds.column_names)


def test_ray_reads_a_directory_of_parquet_shards_and_drops_bad_rows(tmp_path):
    rows = [{"id": i, "prompt": PROBLEM, "completion": c, "answer": "17"}
            for i, c in enumerate([GOOD, SILENT, None, GOOD, "", SILENT])]
    shards = tmp_path / "shards"
    shards.mkdir()
    for k in range(3):
        pd.DataFrame(rows[2 * k: 2 * k + 2]).to_parquet(shards / f"part-{k}.parquet")
    summary = filter_with_ray(shards, tmp_path / "out")
    local = filter_files(shards, tmp_path / "local", num_proc=1, progress=False)
    assert summary["n_in"] == 6 and summary["reasons"] == local["reasons"] == {
        "failure_type:silent_failure": 2, "missing:completion": 2}
    assert sorted(r["id"] for r in _rows(tmp_path / "out" / "kept")) == [0, 3]
    assert _rows(tmp_path / "out" / "dropped") == _rows(tmp_path / "local" / "dropped")


def test_ray_refuses_a_non_empty_output_and_names_an_unreadable_input(tmp_path):
    good = tmp_path / "in.jsonl"
    good.write_text(json.dumps({"prompt": PROBLEM, "completion": GOOD}) + "\n")
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    with pytest.raises(FilterOutputError, match="not empty"):
        filter_with_ray(good, out)
    assert filter_with_ray(good, out, force=True)["n_kept"] == 1 and (out / "notes.txt").read_text() == "mine"
    with pytest.raises(FilterOutputError, match="complete --engine ray run"):
        filter_with_ray(good, out)
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"prompt": "a", "completion": \n')
    with pytest.raises(FilterInputError, match="broken.jsonl"):
        filter_with_ray(broken, tmp_path / "o2")
    assert not (tmp_path / "o2").exists()
    shards = tmp_path / "shards"  # the unreadable shard is not the first: Ray fails while scoring, not at schema()
    shards.mkdir()
    (shards / "a.jsonl").write_text(good.read_text() * 3)
    (shards / "b.jsonl").write_text(good.read_text() + '{"prompt": "a", "completion": \n')
    with pytest.raises(FilterInputError, match="b.jsonl"):
        filter_with_ray(shards, tmp_path / "o3")


def test_cli_engine_ray(gsm8k200, tmp_path, capsys):
    from trainers.cli import main

    path, _ = gsm8k200
    assert main(["filter", str(path), "--out", str(tmp_path / "o"), "--engine", "ray", "--batch-size", "50"]) == 0
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["engine"] == "ray" and summary["n_in"] == 200
    assert f"kept {summary['n_kept']} of 200 rows" in capsys.readouterr().err


def test_ray_messages_layout_keeps_nested_columns(tmp_path):
    def conv(text):
        return [{"role": "user", "content": PROBLEM}, {"role": "assistant", "content": text}]

    rows = [{"id": 0, "messages": conv(GOOD)}, {"id": 1, "messages": conv(SILENT)},
            {"id": 2, "messages": [{"role": "user", "content": PROBLEM}]}]
    path = tmp_path / "chats.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    summary = filter_with_ray(path, tmp_path / "ray")
    local = filter_files(path, tmp_path / "local", num_proc=1, progress=False)
    assert summary["thresholds"]["layout"] == "messages" and summary["reasons"] == local["reasons"]
    kept = _rows(tmp_path / "ray" / "kept")
    assert [r["messages"] for r in kept] == [conv(GOOD)]
    assert _rows(tmp_path / "ray" / "dropped") == _rows(tmp_path / "local" / "dropped")
