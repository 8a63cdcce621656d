"""The scorer over ProcessBench's GSM8K and MATH splits (human-labelled earliest wrong step).

ProcessBench's metric: accuracy on erroneous samples (the suspect step must equal the label), accuracy on correct
samples (no suspect step), F1 their harmonic mean. A model-free checker finds only errors that leave a checkable
claim (false calculations are about 10% of the labelled earliest errors, DESIGN §2), so the recall floors below
are modest and sit under the measured figures; what must hold is that it does not cry wolf on correct solutions
(acc_correct >= 0.98, the issue's requirement: in training a false flag punishes a correct completion).
"""

import json
from pathlib import Path

import pytest

from rewards import score_trace

def _load(path: Path):
    rows = json.loads(path.read_text())
    return rows, [score_trace(r["problem"], steps=r["steps"]) for r in rows]


@pytest.fixture(scope="module")
def scored(shared_data):
    return _load(shared_data / "processbench" / "gsm8k.json")


def _metric(rows, results):
    pred = [-1 if r.suspect_step is None else r.suspect_step for r in results]
    err = [(p, row["label"]) for p, row in zip(pred, rows) if row["label"] != -1]
    cor = [p for p, row in zip(pred, rows) if row["label"] == -1]
    acc_err = sum(p == label for p, label in err) / len(err)
    acc_cor = sum(p == -1 for p in cor) / len(cor)
    return acc_err, acc_cor, 2 * acc_err * acc_cor / (acc_err + acc_cor)


def test_processbench_gsm8k_metric(scored):
    rows, results = scored
    acc_err, acc_cor, f1 = _metric(rows, results)
    print(f"ProcessBench GSM8K: acc_erroneous={acc_err:.3f} acc_correct={acc_cor:.3f} F1={f1:.3f}")
    assert len(rows) == 400
    assert acc_cor >= 0.98, "the checker flags correct solutions"
    assert acc_err >= 0.08, "the checker lost labelled errors it finds (21 of 207 when written: acc 0.101)"


def test_processbench_math_metric(shared_data):
    rows, results = _load(shared_data / "processbench" / "math.json")
    acc_err, acc_cor, f1 = _metric(rows, results)
    print(f"ProcessBench MATH: acc_erroneous={acc_err:.3f} acc_correct={acc_cor:.3f} F1={f1:.3f}")
    assert len(rows) == 1000
    assert acc_cor >= 0.98, "the checker flags correct solutions"
    assert acc_err >= 0.16, "the checker lost labelled errors it finds (110 of 594 when written: acc 0.185)"


def test_every_row_gets_a_verdict(scored):
    rows, results = scored
    assert all(r.status in {"accept", "review", "abstain"} for r in results)
    assert sum(r.status == "abstain" for r in results) < 0.1 * len(rows)
    # a suspect step always comes with evidence
    assert all(r.step_checks[r.suspect_step].reasons for r in results if r.suspect_step is not None)
