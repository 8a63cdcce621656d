"""rewards.adapters.evaluation: ProcessBench's metric, silent-failure detection, bootstrap, threshold choice, input checks.

The tiny datasets below are built so that every figure can be computed by hand from the labels and the checker's
contract (a false calculation such as ``3 * 4 = 13`` is caught at its step; a correct calculation is not flagged).
"""

import json
import math

import numpy as np
import pytest
from sklearn.metrics import average_precision_score, roc_auc_score

from rewards.adapters.evaluation import (
    ScoredRow, bootstrap_weights, choose_theta, classify_step, detector_scores, evaluate, load_rows, predict_steps,
    processbench_metrics, to_markdown, validate_rows, weighted_auprc, weighted_auroc,
)

TOM = "Tom has 3 boxes of 4 pens. How many pens does he have?"
ANN = "Ann has 5 apples and buys 7 more. How many apples does she have?"


def row(rid, problem, steps, label, correct, generator="gen-a"):
    return {"id": rid, "generator": generator, "problem": problem, "steps": steps, "label": label,
            "final_answer_correct": correct}


TINY = [
    # two erroneous rows whose labelled step is a false calculation: caught at the labelled step
    row("e1", TOM, ["Tom has 3 boxes with 4 pens each, so 3 * 4 = 13 pens.", "The answer is 13."], 0, False),
    row("e2", ANN, ["Ann starts with 5 apples.", "She buys 7 more, so 5 + 7 = 11 apples.", "The answer is 11."], 1,
        False, "gen-b"),
    # a wrong operation whose equation holds: a model-free checker cannot see it (missed)
    row("e3", ANN, ["Ann starts with 5 apples.", "She buys 7 more, so 5 * 7 = 35 apples.", "The answer is 35."], 1,
        False, "gen-b"),
    # a silent failure: a false step, then the right answer
    row("s1", TOM, ["3 * 4 = 13 pens.", "Checking again, 3 * 4 = 12, so he has 12 pens.", "The answer is 12."], 0,
        True),
    # two correct solutions
    row("c1", TOM, ["Tom has 3 boxes with 4 pens each, so 3 * 4 = 12 pens.", "The answer is 12."], -1, True),
    row("c2", ANN, ["Ann starts with 5 apples.", "She buys 7 more, so 5 + 7 = 12 apples.", "The answer is 12."], -1,
        True, "gen-b"),
]


@pytest.fixture(scope="module")
def tiny_report():
    return evaluate(validate_rows(TINY), progress=False, resamples=1000, seed=0)


def test_processbench_metric_by_hand(tiny_report):
    r = tiny_report
    # erroneous e1, e2, s1 caught at their label, e3 missed -> 3/4; correct c1, c2 unflagged -> 2/2
    assert r["n"] == 6 and r["n_erroneous"] == 4 and r["n_correct"] == 2
    assert r["acc_erroneous"] == pytest.approx(0.75)
    assert r["acc_correct"] == pytest.approx(1.0)
    assert r["f1"] == pytest.approx(round(2 * 0.75 * 1.0 / 1.75, 4))


def test_silent_failure_and_h1_by_hand(tiny_report):
    sf = tiny_report["silent_failure"]
    # correct final answers: s1 (wrong step), c1, c2; s1's RAFS is the lowest -> perfect ranking
    assert (sf["n"], sf["n_pos"]) == (3, 1)
    assert sf["auroc"] == 1.0 and sf["auprc"] == 1.0
    assert sf["flag_recall"] == 1.0 and sf["flag_false_positive_rate"] == 0.0
    assert tiny_report["accuracy"] == pytest.approx(0.5)                       # s1, c1, c2 of 6
    assert tiny_report["faithful_accuracy"] == pytest.approx(round(2 / 6, 4))  # s1 is flagged
    assert tiny_report["labelled_faithful_accuracy"] == pytest.approx(round(2 / 6, 4))


def test_misses_by_kind(tiny_report):
    kinds = tiny_report["misses"]["kinds"]
    assert kinds["false_calculation"]["n"] == 3 and kinds["false_calculation"]["caught"] == 3
    assert kinds["equation_holds"]["missed"] == 1 and kinds["equation_holds"]["missed_no_flag"] == 1
    assert kinds["equation_holds"]["examples"][0]["id"] == "e3"
    assert tiny_report["misses"]["n_missed"] == 1 and tiny_report["misses"]["false_alarms"]["n"] == 0


def test_per_generator(tiny_report):
    gens = tiny_report["per_generator"]
    assert set(gens) == {"gen-a", "gen-b"}
    assert gens["gen-a"]["n"] + gens["gen-b"]["n"] == 6
    # gen-b: e2 caught, e3 missed -> 1/2; c2 unflagged -> 1
    assert gens["gen-b"]["acc_erroneous"] == 0.5 and gens["gen-b"]["acc_correct"] == 1.0


def _walk(obj, path=""):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _walk(v, f"{path}.{k}")
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _walk(v, f"{path}[{i}]")
    else:
        yield path, obj


RATE_KEYS = ("acc_erroneous", "acc_correct", "f1", "auprc", "auroc", "accuracy", "rate", "prevalence", "recall",
             "available", "share_of_erroneous")


def test_keys_and_ranges(tiny_report):
    r = tiny_report
    for key in ("n", "acc_erroneous", "acc_correct", "f1", "accuracy", "faithful_accuracy"):
        assert isinstance(r[key], (int, float)) and not isinstance(r[key], bool), key
    for key in ("acc_erroneous", "acc_correct", "f1", "accuracy", "faithful_accuracy"):
        lo, hi = r[key + "_ci"]
        assert 0 <= lo <= hi <= 1
    assert set(r["silent_failure"]) >= {"n", "n_pos", "auprc", "auroc", "auprc_ci", "auroc_ci"}
    assert set(r["ablations"]) == {"rafs", "P_R", "S_RA", "C_A", "D_R", "step_validity_only", "random",
                                   "rafs_without_P_R", "rafs_without_S_RA", "rafs_without_C_A", "rafs_without_D_R"}
    # leaving out a component that is never available changes nothing
    assert r["ablations"]["rafs_without_C_A"]["silent_failure"] == r["ablations"]["rafs"]["silent_failure"]
    for name, entry in r["ablations"].items():
        assert set(entry["silent_failure"]) == {"auprc", "auprc_ci", "auroc", "auroc_ci"}
        assert ("f1" in entry) == (name in {"rafs", "step_validity_only", "random"})
    # a single trace has no samples: C_A and D_R are never available, their detector is all 0.5 -> AUROC 0.5
    assert r["ablations"]["C_A"]["available"] == 0.0 and r["ablations"]["C_A"]["silent_failure"]["auroc"] == 0.5
    for path, value in _walk(r):
        leaf = path.rsplit(".", 1)[-1].split("[")[0]
        if value is not None and not isinstance(value, (str, bool)) and any(
                leaf == k or leaf == k + "_ci" or leaf.endswith("_" + k) or leaf.endswith("_" + k + "_ci")
                for k in RATE_KEYS):
            assert 0 <= value <= 1, (path, value)
    json.dumps(r)  # JSON-serialisable
    md = to_markdown(r)
    assert "published figures, not our runs" in md and "| rafs |" in md


def test_bootstrap_is_seeded(tiny_report):
    again = evaluate(validate_rows(TINY), progress=False, resamples=1000, seed=0)
    other = evaluate(validate_rows(TINY), progress=False, resamples=1000, seed=1)
    assert again["f1_ci"] == tiny_report["f1_ci"] and again["accuracy_ci"] == tiny_report["accuracy_ci"]
    assert other["accuracy_ci"] != tiny_report["accuracy_ci"] or other["f1_ci"] != tiny_report["f1_ci"]
    w = bootstrap_weights(50, 1000, seed=3)
    assert w.shape == (1000, 50) and (w.sum(1) == 50).all()
    assert np.array_equal(w, bootstrap_weights(50, 1000, seed=3))


def test_processbench_metrics_definition():
    m = processbench_metrics([0, 2, 1, -1, -1, -1], [0, -1, 0, -1, -1, 3])
    assert m["acc_erroneous"] == pytest.approx(1 / 3) and m["acc_correct"] == pytest.approx(2 / 3)
    assert m["f1"] == pytest.approx(2 * (1 / 3) * (2 / 3) / 1)
    assert processbench_metrics([0, 1], [0, 1])["f1"] is None  # no correct rows: F1 undefined
    assert processbench_metrics([0, -1], [-1, 0])["f1"] == 0.0


def test_vectorised_auc_matches_sklearn():
    rng = np.random.default_rng(0)
    y = rng.random(80) < 0.3
    s = np.round(rng.random(80), 1)  # many ties
    w = bootstrap_weights(80, 20, seed=1)
    auroc, auprc = weighted_auroc(w, y, s), weighted_auprc(w, y, s)
    for b in range(20):
        assert auroc[b] == pytest.approx(roc_auc_score(y, s, sample_weight=w[b]))
        assert auprc[b] == pytest.approx(average_precision_score(y, s, sample_weight=w[b]))
    ones = np.ones((1, 80))
    assert weighted_auroc(ones, y, s)[0] == pytest.approx(roc_auc_score(y, s))
    assert math.isnan(weighted_auroc(ones, np.zeros(80, bool), s)[0])  # no positives


def synthetic(qs, status="review"):
    from rewards.scoring.components import suspect_step

    return [ScoredRow(50.0, status, suspect_step(q, 0.5), {"P_R": 0.5, "S_RA": 0.5, "C_A": None, "D_R": None},
                      list(q)) for q in qs]


def test_threshold_choice_moves_only_beyond_noise():
    # 40 erroneous rows whose wrong step has q = 0.7 (caught only for θ > 0.7) and 40 clean rows (q >= 0.9)
    labels = [0] * 40 + [-1] * 40
    scored = synthetic([[0.7, 0.95]] * 40 + [[0.95, 0.95]] * 40)
    theta, reason, sweep = choose_theta(labels, scored, 0.5)
    assert theta == 0.75 and "beyond noise" in reason
    assert {s["theta"]: s["f1"] for s in sweep}[0.5] == 0.0
    # a flat curve keeps the default
    flat = synthetic([[0.05, 0.95]] * 40 + [[0.95, 0.95]] * 40)
    theta, reason, _ = choose_theta(labels, flat, 0.5)
    assert theta == 0.5 and "already maximises" in reason
    # one lucky row is noise: the default is kept
    noisy_labels = [0] * 40 + [-1] * 40
    noisy = synthetic([[0.7, 0.95]] + [[0.99, 0.99]] * 39 + [[0.95, 0.95]] * 40)
    theta, reason, _ = choose_theta(noisy_labels, noisy, 0.5)
    assert theta == 0.5 and "includes 0" in reason


def test_calibrated_report_uses_the_other_split():
    labels = [0] * 40 + [-1] * 40
    rows = [row(f"r{i}", TOM, ["a", "b"], lab, lab == -1) for i, lab in enumerate(labels)]
    scored = synthetic([[0.7, 0.95]] * 40 + [[0.95, 0.95]] * 40)
    rep = evaluate(rows, scored=scored, calibration_rows=rows, calibration_scored=scored, progress=False,
                   source="report.json", calibration_source="cal.json")
    assert rep["meta"]["theta"] == 0.75 and rep["meta"]["theta_source"] == "calibrated"
    assert rep["threshold"]["calibrated_on"] == "cal.json" and rep["f1"] == 1.0
    plain = evaluate(rows, scored=scored, progress=False)
    assert plain["meta"]["theta"] == 0.5 and plain["f1"] == 0.0 and "descriptive only" in plain["threshold"]["reason"]


def test_abstention_predicts_no_error_and_scores_half():
    scored = synthetic([[0.05, 0.9]], status="abstain")
    scored[0].suspect_step, scored[0].score = None, None
    assert predict_steps(scored, 0.5)[0] == -1
    assert predict_steps(scored, 0.5, gate_abstain=False)[0] == 0
    assert detector_scores(scored)["rafs"][0] == 0.5


def test_classify_step():
    assert classify_step("So 3 * 4 = 13 pens.")[0] == "false_calculation"
    assert "13" in classify_step("So 3 * 4 = 13 pens.")[1]
    assert classify_step("He buys more pens.")[0] == "no_equation"
    assert classify_step("So 3 * 4 = 12 pens.")[0] == "equation_holds"


def test_json_and_jsonl_input(tmp_path):
    (tmp_path / "a.json").write_text(json.dumps(TINY))
    (tmp_path / "a.jsonl").write_text("".join(json.dumps(r) + "\n" for r in TINY) + "\n")
    assert load_rows(tmp_path / "a.json") == load_rows(tmp_path / "a.jsonl") == TINY
    assert len(load_rows(tmp_path / "a.jsonl", limit=2)) == 2


@pytest.mark.parametrize("change,message", [
    (lambda r: r.pop("label"), "row 2 (id 'e2'): missing field 'label'"),
    (lambda r: r.update(label=3), "field 'label' = 3 is out of range for 3 step(s); use -1 (no wrong step) or 0..2"),
    (lambda r: r.update(label=-2), "field 'label' = -2 is out of range"),
    (lambda r: r.update(label=True), "field 'label' = True must be an integer"),
    (lambda r: r.update(steps="one step"), "field 'steps'"),
    (lambda r: r.update(final_answer_correct="yes"), "field 'final_answer_correct' = 'yes' must be true or false"),
])
def test_bad_rows_name_row_and_field(change, message):
    rows = [dict(r) for r in TINY]
    change(rows[1])
    with pytest.raises(ValueError) as err:
        validate_rows(rows, source="x.json")
    assert message in str(err.value) and str(err.value).startswith("x.json: row 2")  # rows[1]: 1-based


def test_bad_jsonl_line(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(TINY[0]) + "\n{not json\n")
    with pytest.raises(ValueError, match=r"bad.jsonl:2: not valid JSON"):
        load_rows(path)


def test_num_proc_gives_the_same_report(tiny_report):
    par = evaluate(validate_rows(TINY), progress=False, resamples=1000, seed=0, num_proc=2)
    strip = lambda r: {k: v for k, v in r.items() if k != "meta"}  # noqa: E731
    assert strip(par) == strip(tiny_report)


def _flags_wrong_operation(steps, problem):
    """A stand-in claim checker: refutes '5 * 7' (the wrong operation of row e3, invisible to arithmetic)."""
    from rewards.checks.arithmetic import Equation, EquationCheck

    eq = Equation(sides=["5 * 7", "35"], values=[None, None], span=(0, 0), source="claim")
    return [(i, EquationCheck(eq, False, "buying more is an addition")) for i, s in enumerate(steps) if "5 * 7" in s]


def test_step_detector_ablation_credits_each_claim_checker(monkeypatch):
    import rewards.checks.claims

    monkeypatch.setattr(rewards.checks.claims, "CHECKERS", [_flags_wrong_operation])
    report = evaluate(validate_rows(TINY), progress=False, resamples=1000, seed=0)
    det = report["step_detectors"]
    assert det["checkers"] == ["_flags_wrong_operation"]
    assert report["acc_erroneous"] == 1.0  # e1, e2, e3 and s1 all caught at the labelled step
    without = det["without__flags_wrong_operation"]
    assert (without["hits_lost"], without["hits_gained"], without["false_alarms"]) == (1, 0, 0)
    assert without["acc_erroneous"] == 0.75
    assert det["equations_only"] == without
    assert "## Step detectors" in to_markdown(report)
    assert rewards.checks.claims.CHECKERS == [_flags_wrong_operation]  # restored after the ablation
    assert "step_detectors" not in evaluate(validate_rows(TINY), progress=False, detector_ablation=False)
