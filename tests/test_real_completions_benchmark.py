"""benchmarks/real_completions.py on a few ProcessBench rows: the counts add up, the figures are deterministic (all
but the timings), and the Markdown holds every reward asked for."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _bench():
    spec = importlib.util.spec_from_file_location("real_completions", ROOT / "benchmarks" / "real_completions.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _without_timing(report):
    return [{k: v for k, v in s.items() if k != "timing"} for s in report["splits"]]


def test_benchmark_on_a_few_rows(shared_data):
    bench = _bench()
    keys = ["rafs", "faithful_accuracy", "rafs_consensus"]
    report = bench.run(["gsm8k"], limit=12, keys=keys, progress=False)
    (split,) = report["splits"]
    assert split["right_answer_rows"] == 12 and split["kept"] + split["skipped_no_box"] == 12
    assert split["n_valid"] + split["n_flawed"] == split["kept"]
    for mode in ("reward", "evaluation"):
        assert 0 <= split["false_refutation"][mode]["refuted"] <= split["n_valid"]
    fa = split["rewards"]["faithful_accuracy"]
    assert fa["ceiling"] == 1.0 and fa["valid"]["n"] == split["n_valid"]
    assert split["rewards"]["rafs_consensus"]["valid"]["none_share"] == 1.0  # one completion per call: no C_A
    assert split["rewards"]["rafs"]["ceiling"] < 1.0
    reasons = split["reasons_valid_not_full"]["faithful_accuracy"]
    assert reasons["n"] == split["n_valid"] - fa["valid"]["full"] == sum(reasons["causes"].values())
    page = bench.markdown(report)
    assert all(f"`{n}`" in page for n in ("rafs_reward", "faithful_accuracy_reward", "rafs_consensus_reward"))
    again = bench.run(["gsm8k"], limit=12, keys=keys, progress=False)
    assert _without_timing(again) == _without_timing(report)
