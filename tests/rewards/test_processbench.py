"""The scorer over ProcessBench's GSM8K split (human-labelled earliest wrong step).

ProcessBench's metric: accuracy on erroneous samples (the suspect step must equal the label), accuracy on correct
samples (no suspect step), F1 their harmonic mean. A model-free checker finds false calculations only (about 10%
of GSM8K's labelled earliest errors, DESIGN §2), so the floor below is modest; what must hold is that it does not
cry wolf on correct solutions.
"""

import json
from pathlib import Path

import pytest

from rewards import score_trace

DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "processbench" / "gsm8k.json"


@pytest.fixture(scope="module")
def scored():
    if not DATA.exists():
        pytest.skip(f"{DATA} not found (../shared/data beside the clone)")
    rows = json.loads(DATA.read_text())
    return rows, [score_trace(r["problem"], steps=r["steps"]) for r in rows]


def test_processbench_gsm8k_metric(scored):
    rows, results = scored
    pred = [-1 if r.suspect_step is None else r.suspect_step for r in results]
    err = [(p, row["label"]) for p, row in zip(pred, rows) if row["label"] != -1]
    cor = [p for p, row in zip(pred, rows) if row["label"] == -1]
    acc_err = sum(p == label for p, label in err) / len(err)
    acc_cor = sum(p == -1 for p in cor) / len(cor)
    f1 = 2 * acc_err * acc_cor / (acc_err + acc_cor)
    print(f"ProcessBench GSM8K: acc_erroneous={acc_err:.3f} acc_correct={acc_cor:.3f} F1={f1:.3f}")
    assert len(rows) == 400
    assert acc_cor >= 0.95, "the checker flags correct solutions"
    assert acc_err >= 0.06, "the checker lost the labelled false calculations it finds (16 of 207 when written)"


def test_every_row_gets_a_verdict(scored):
    rows, results = scored
    assert all(r.status in {"accept", "review", "abstain"} for r in results)
    assert sum(r.status == "abstain" for r in results) < 0.1 * len(rows)
    # a suspect step always comes with evidence
    assert all(r.step_checks[r.suspect_step].reasons for r in results if r.suspect_step is not None)
