"""The streamed, multi-process, resumable file filter: same verdicts as filter_dataset, crash safety, bad input."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

datasets = pytest.importorskip("datasets")
from datasets import Dataset  # noqa: E402

from rewards.adapters.filter_shards import (  # noqa: E402
    FilterInputError,
    FilterOutputError,
    filter_files,
    lock_output,
    read_rows,
    resolve_inputs,
    usable_cores,
)
from rewards.adapters.filtering import filter_dataset  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]
PROBLEM = "Tom has 3 boxes of 4 pens and buys 5 more pens. How many pens does he have?"
GOOD = "He has 3 * 4 = 12 pens in boxes.\nThen 12 + 5 = 17 pens.\n#### 17"
SILENT = "He has 3 * 4 = 13 pens in boxes.\nThen 12 + 5 = 17 pens.\n#### 17"


def _gsm8k(data: Path, n: int) -> list[dict]:
    """n rows of GSM8K train (repeated if needed), each with a unique ``id``; ``data``: the ``shared_data`` fixture."""
    with open(data / "gsm8k" / "train.jsonl", encoding="utf-8") as handle:
        base = [json.loads(line) for _, line in zip(range(min(n, 7473)), handle)]
    return [{"id": i, **base[i % len(base)]} for i in range(n)]


def _write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _rows(folder: Path) -> list[dict]:
    return [json.loads(line) for part in sorted(folder.glob("*.jsonl")) for line in part.read_text().splitlines()]


def _check_exact(out: Path, source: list[dict], reference: Path | None = None) -> dict:
    """kept + dropped = input, no row twice, every dropped row has a reason, the summary is true; and, given a
    reference run, the same rows in the same files."""
    kept, dropped, summary = _rows(out / "kept"), _rows(out / "dropped"), json.loads((out / "summary.json").read_text())
    ids = [r["id"] for r in kept + dropped]
    assert len(ids) == len(set(ids)), "a row was written twice"
    assert sorted(ids) == [r["id"] for r in source]
    assert all(r["reason"] and r["reason_detail"] for r in dropped)
    by_id = {r["id"]: r for r in source}
    assert all({k: r[k] for k in by_id[r["id"]]} == by_id[r["id"]] for r in kept + dropped)  # input columns kept
    assert (summary["n_in"], summary["n_kept"], summary["n_dropped"]) == (len(source), len(kept), len(dropped))
    reasons: dict[str, int] = {}
    for r in dropped:
        reasons[r["reason"]] = reasons.get(r["reason"], 0) + 1
    assert summary["reasons"] == dict(sorted(reasons.items()))
    if reference is not None:
        for sub in ("kept", "dropped"):
            ours = {p.name: p.read_bytes() for p in (out / sub).glob("*.jsonl")}
            theirs = {p.name: p.read_bytes() for p in (reference / sub).glob("*.jsonl")}
            assert ours == theirs, sub
        ref = json.loads((reference / "summary.json").read_text())
        for key in ("n_in", "n_kept", "n_dropped", "reasons", "statuses", "failure_types", "rafs_mean", "thresholds"):
            assert summary[key] == ref[key], key
    return summary


def test_usable_cores_is_the_affinity_mask():
    assert usable_cores() == len(os.sched_getaffinity(0))


def test_same_verdicts_as_filter_dataset_on_1_and_2_processes(tmp_path, shared_data):
    source = _gsm8k(shared_data, 120)
    path = _write_jsonl(tmp_path / "in.jsonl", source)
    ref = filter_dataset(Dataset.from_list(source))
    one = filter_files(path, tmp_path / "one", num_proc=1, shard_size=25, progress=False)
    two = filter_files(path, tmp_path / "two", num_proc=2, shard_size=25, progress=False)
    assert one["shards"] == two["shards"] == 5 and two["num_proc"] == 2
    _check_exact(tmp_path / "one", source)
    _check_exact(tmp_path / "two", source, reference=tmp_path / "one")  # byte-identical shards
    assert [r["id"] for r in _rows(tmp_path / "two" / "kept")] == ref.kept["id"]  # input order, same kept set
    assert [r["rafs"] for r in _rows(tmp_path / "two" / "kept")] == pytest.approx(ref.kept["rafs"])
    for key in ("n_in", "n_kept", "n_dropped", "reasons", "statuses", "failure_types", "thresholds"):
        assert one[key] == ref.summary[key], key


@pytest.mark.parametrize("victims", ["group", "parent"])
def test_sigkill_mid_run_then_rerun_ends_exactly_like_a_clean_run(tmp_path, victims, shared_data):
    """A real run killed with SIGKILL after some shards are committed — the whole process group, or only the main
    process (its workers live on as orphans and must publish nothing) — then re-run at once."""
    source = _gsm8k(shared_data, 600)
    path = _write_jsonl(tmp_path / "in.jsonl", source)
    out = tmp_path / "out"
    argv = [sys.executable, "-m", "trainers", "filter", str(path), "--out", str(out), "--shard-size", "10",
            "--num-proc", "2"]
    env = {**os.environ, "WANDB_MODE": "disabled"}
    proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            start_new_session=True)
    manifest = out / "manifest.jsonl"
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            if manifest.exists() and manifest.read_text().count("\n") >= 3:  # header + at least 2 shards
                break
            time.sleep(0.005)
        assert proc.poll() is None, f"the run ended before it could be killed: {proc.stderr.read()[-1000:]!r}"
        if victims == "group":
            os.killpg(proc.pid, signal.SIGKILL)  # the parent and its worker processes, no clean-up of any kind
        else:
            os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.stderr.close()
    if victims == "parent":
        _reap_orphans(proc.pid)
    assert not (out / "summary.json").exists()
    committed = manifest.read_text().count("\n") - 1
    assert 2 <= committed < 60

    from trainers.cli import main

    assert main(["filter", str(path), "--out", str(out), "--shard-size", "10", "--num-proc", "2"]) == 0
    clean = tmp_path / "clean"
    filter_files(path, clean, num_proc=2, shard_size=10, progress=False)
    if victims == "parent":  # orphaned workers notice within a second and exit without publishing anything
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and _group_alive(proc.pid):
            time.sleep(0.1)
        assert not _group_alive(proc.pid), "orphaned workers are still running"
    summary = _check_exact(out, source, reference=clean)
    assert summary["shards"] == 60 and summary["shards_resumed"] >= 2
    assert summary["rows_scored"] == 10 * (60 - summary["shards_resumed"])
    assert not [p for p in (out / "kept").iterdir() if ".tmp" in p.name]


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def _reap_orphans(pgid: int) -> None:
    """Kill what is left of the killed run's process group (orphaned workers) once the test is done with it."""
    def stop():
        try:
            os.killpg(pgid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    import atexit

    atexit.register(stop)


def test_resume_repairs_every_crash_state(tmp_path, shared_data):
    """The states a kill can leave: a torn manifest line, a temp file, a shard written but not recorded, a recorded
    shard whose file is damaged, no summary yet."""
    source = _gsm8k(shared_data, 150)
    path = _write_jsonl(tmp_path / "in.jsonl", source)
    clean, out = tmp_path / "clean", tmp_path / "out"
    filter_files(path, clean, num_proc=1, shard_size=20, progress=False)
    filter_files(path, out, num_proc=1, shard_size=20, progress=False)
    (out / "summary.json").unlink()
    lines = (out / "manifest.jsonl").read_text().splitlines(keepends=True)
    assert len(lines) == 1 + 8
    # shard 7 written but its record torn mid-append; shard 6's kept file damaged; a temp file left behind
    (out / "manifest.jsonl").write_text("".join(lines[:-1]) + lines[-1][: len(lines[-1]) // 2])
    damaged = out / "kept" / "part-00000-000006.jsonl"
    damaged.write_text(damaged.read_text()[:-40])
    (out / "dropped" / "part-00000-000003.jsonl.tmp-99999").write_text('{"half": ')
    summary = filter_files(path, out, num_proc=2, shard_size=20, progress=False)
    assert summary["shards_resumed"] == 6 and summary["rows_scored"] == 20 + 10
    _check_exact(out, source, reference=clean)
    assert not list((out / "dropped").glob("*.tmp-*"))
    # a complete run is not redone
    again = filter_files(path, out, num_proc=2, shard_size=20, progress=False)
    assert again.get("already_complete") and again["n_in"] == 150


def test_resume_refuses_other_input_or_options_and_force_starts_over(tmp_path, monkeypatch, shared_data):
    import rewards.adapters.filter_shards as shards

    source = _gsm8k(shared_data, 60)
    path = _write_jsonl(tmp_path / "in.jsonl", source)
    out = tmp_path / "out"
    filter_files(path, out, num_proc=1, shard_size=20, progress=False)
    (out / "summary.json").unlink()
    real = shards.scorer_fingerprint()
    monkeypatch.setattr(shards, "scorer_fingerprint", lambda: real[::-1])  # the scorer's code changed since
    with pytest.raises(FilterOutputError, match="scorer's code changed"):
        filter_files(path, out, num_proc=1, shard_size=20, progress=False)
    monkeypatch.setattr(shards, "scorer_fingerprint", lambda: real)
    with pytest.raises(FilterOutputError, match="filter options"):
        filter_files(path, out, num_proc=1, shard_size=20, min_rafs=90, progress=False)
    with pytest.raises(FilterOutputError, match="shard_size was 20"):
        filter_files(path, out, num_proc=1, shard_size=30, progress=False)
    _write_jsonl(path, source[:50])
    with pytest.raises(FilterOutputError, match="input files"):
        filter_files(path, out, num_proc=1, shard_size=20, progress=False)
    summary = filter_files(path, out, num_proc=1, shard_size=30, force=True, progress=False)
    assert summary["n_in"] == 50 and summary["shards"] == 2 and summary["shards_resumed"] == 0
    assert sorted(p.name for p in (out / "kept").iterdir()) == ["part-00000-000000.jsonl", "part-00000-000001.jsonl"]
    _check_exact(out, source[:50])


def test_a_running_filter_holds_the_output(tmp_path):
    path = _write_jsonl(tmp_path / "in.jsonl", [{"prompt": PROBLEM, "completion": GOOD}])
    out = tmp_path / "out"
    out.mkdir()
    fd = lock_output(str(out))
    try:
        with pytest.raises(FilterOutputError, match="another rafs filter is writing"):
            filter_files(path, out, num_proc=1, progress=False)
    finally:
        os.close(fd)
    assert filter_files(path, out, num_proc=1, progress=False)["n_kept"] == 1


def test_bad_rows_are_dropped_with_their_reason_in_every_format(tmp_path):
    import pandas as pd

    rows = [
        {"id": 0, "prompt": PROBLEM, "completion": GOOD, "answer": "17"},
        {"id": 1, "prompt": PROBLEM, "completion": SILENT, "answer": "17"},
        {"id": 2, "prompt": PROBLEM, "completion": None, "answer": "17"},
        {"id": 3, "prompt": "   ", "completion": GOOD, "answer": "17"},
        {"id": 4, "prompt": PROBLEM, "answer": "17"},  # no completion key at all
        {"id": 5, "prompt": PROBLEM, "completion": 42, "answer": "17"},
    ]
    shards = tmp_path / "shards"
    (shards / "a").mkdir(parents=True)
    _write_jsonl(shards / "a" / "part-0.jsonl", rows[:3])
    pd.DataFrame(rows[3:5]).to_parquet(shards / "part-1.parquet")
    _write_jsonl(shards / "part-2.jsonl", rows[5:])
    (shards / "_SUCCESS").write_text("")
    assert [Path(p).name for p in resolve_inputs(shards)] == ["part-0.jsonl", "part-1.parquet", "part-2.jsonl"]
    summary = filter_files(shards, tmp_path / "out", num_proc=2, shard_size=2, progress=False)
    dropped = {r["id"]: r for r in _rows(tmp_path / "out" / "dropped")}
    assert {i: r["reason"] for i, r in dropped.items()} == {
        1: "failure_type:silent_failure", 2: "missing:completion", 3: "missing:problem", 4: "missing:completion",
        5: "invalid:completion"}
    assert "'completion'" in dropped[2]["reason_detail"] and "'prompt'" in dropped[3]["reason_detail"]
    assert summary["n_in"] == 6 and summary["n_kept"] == 1 and summary["shards"] == 4
    # CSV cells are text; an empty cell is a missing value
    csv = tmp_path / "rows.csv"
    pd.DataFrame([{"prompt": PROBLEM, "completion": GOOD, "answer": 17},
                  {"prompt": PROBLEM, "completion": "", "answer": 17}]).to_csv(csv, index=False)
    s = filter_files(csv, tmp_path / "csv", num_proc=1, progress=False)
    assert s["reasons"] == {"missing:completion": 1} and _rows(tmp_path / "csv" / "kept")[0]["answer"] == "17"


def test_an_unreadable_shard_names_the_file_and_keeps_committed_work(tmp_path):
    shards = tmp_path / "shards"
    shards.mkdir()
    good = [{"prompt": PROBLEM, "completion": GOOD}] * 4
    _write_jsonl(shards / "a.jsonl", good)
    (shards / "b.jsonl").write_text(json.dumps(good[0]) + "\n" + '{"prompt": "x", "completion": \n')
    out = tmp_path / "out"
    with pytest.raises(FilterInputError, match=r"b\.jsonl' line 2: JSONDecodeError"):
        filter_files(shards, out, num_proc=1, shard_size=2, progress=False)
    assert len((out / "manifest.jsonl").read_text().splitlines()) == 1 + 2  # a.jsonl's two shards are committed
    (shards / "b.jsonl").write_text(json.dumps(good[0]) + "\n" + "[1, 2]\n")
    with pytest.raises(FilterOutputError, match="input files"):  # the input changed: resuming would mix runs
        filter_files(shards, out, num_proc=1, shard_size=2, progress=False)
    with pytest.raises(FilterInputError, match=r"b\.jsonl' line 2: expected one JSON object"):
        filter_files(shards, out, num_proc=2, shard_size=2, force=True, progress=False)
    broken = tmp_path / "broken.parquet"
    broken.write_bytes(b"PAR1 not really")
    with pytest.raises(FilterInputError, match="broken.parquet"):
        filter_files(broken, tmp_path / "o2", progress=False)
    assert not (tmp_path / "o2").exists()  # nothing was committed, so nothing is left behind


def test_streaming_reader_holds_one_chunk(tmp_path, shared_data):
    source = _gsm8k(shared_data, 50)
    path = _write_jsonl(tmp_path / "in.jsonl", source)
    rows = read_rows(path, chunk_size=7)
    assert next(rows)["id"] == 0  # a generator: nothing is read ahead beyond the first chunk
    assert [r["id"] for r in rows] == list(range(1, 50))


def test_a_run_interrupted_before_its_first_commit_does_not_block_the_rerun(tmp_path):
    """Ctrl-C in the first seconds: the run's cleanup removes its manifest, then workers already queued publish a
    shard. The folder then holds only this filter's shard files and no manifest; the rerun starts over instead of
    refusing a folder that "holds no rafs filter run". A folder with anything else in it is still refused."""
    path = _write_jsonl(tmp_path / "in.jsonl", [{"prompt": PROBLEM, "completion": GOOD},
                                                {"prompt": PROBLEM, "completion": SILENT}])
    out = tmp_path / "out"
    for sub in ("kept", "dropped"):  # what the late workers left: a published shard and a temporary file
        (out / sub).mkdir(parents=True)
        (out / sub / "part-00000-000000.jsonl").write_text('{"prompt": "stale"}\n')
    (out / "dropped" / "part-00000-000001.jsonl.tmp-4242").write_text('{"half": ')
    (out / ".lock").touch()
    summary = filter_files(path, out, num_proc=1, progress=False)
    assert (summary["n_in"], summary["n_kept"], summary["n_dropped"]) == (2, 1, 1)
    assert "stale" not in (out / "kept" / "part-00000-000000.jsonl").read_text()
    assert not list((out / "dropped").glob("*.tmp-*"))

    other = tmp_path / "other"
    (other / "kept").mkdir(parents=True)
    (other / "kept" / "part-00000-000000.jsonl").write_text("{}\n")
    (other / "notes.txt").write_text("mine")
    with pytest.raises(FilterOutputError, match="holds no rafs filter run"):
        filter_files(path, other, num_proc=1, progress=False)
    assert (other / "notes.txt").read_text() == "mine" and (other / "kept" / "part-00000-000000.jsonl").exists()
