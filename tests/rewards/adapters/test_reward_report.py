"""The figures of rewards.adapters.reward_report (shared by `rafs report` and benchmarks/real_completions.py), on
hand-built examples whose answers are worked out by hand."""

import math

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from rewards import faithful_accuracy_reward, rafs_consensus_reward, rafs_reward
from rewards.adapters import reward_report as rr


def test_auroc_is_sklearns_over_the_scored_rows():
    y = [True, False, True, False, True, False]
    s = [0.9, 0.3, None, 0.3, 0.5, float("nan")]
    assert rr.auroc(y, s) == pytest.approx(roc_auc_score([1, 0, 0, 1], [0.9, 0.3, 0.3, 0.5]))
    assert rr.auroc([True, True], [0.1, 0.2]) is None  # one class: undefined, not 0.5
    assert rr.auroc([True, False], [None, None]) is None


def test_auroc_interval_is_seeded_and_brackets_the_point():
    rng = np.random.default_rng(3)
    y = [True] * 60 + [False] * 40
    s = list(rng.normal(0.6, 0.2, 60)) + list(rng.normal(0.4, 0.2, 40))
    point, ci = rr.auroc_with_ci(y, s, resamples=500, seed=7)
    assert point == pytest.approx(roc_auc_score(y, s))
    assert ci[0] < point < ci[1] and 0.5 < point
    assert rr.auroc_with_ci(y, s, resamples=500, seed=7) == (point, ci)  # deterministic
    assert rr.auroc_with_ci(y, s, resamples=500, seed=8)[1] != ci  # and the seed matters
    # perfect separation: every resample with both classes gives 1
    assert rr.auroc_with_ci([True, True, False, False] * 5, [1, 1, 0, 0] * 5, resamples=200) == (1.0, [1.0, 1.0])
    assert rr.auroc_with_ci([True] * 4, [0.1, 0.2, 0.3, 0.4]) == (None, None)


def test_length_strata_are_equal_size_and_ordered_by_length():
    lengths = [70, 10, 40, 100, 20, 90, 30, 60, 50, 80, 5]
    strata = rr.length_strata(lengths, k=5)
    sizes = np.bincount(strata)
    assert sizes.sum() == 11 and sizes.max() - sizes.min() <= 1
    # every row of a lower stratum is no longer than every row of a higher one
    for a, la in zip(strata, lengths):
        for b, lb in zip(strata, lengths):
            if a < b:
                assert la <= lb
    assert rr.length_strata([5, 5, 5, 5], k=2) == [0, 0, 1, 1]  # ties keep row order
    with pytest.raises(ValueError, match="at least 1"):
        rr.length_strata([1, 2], k=0)


def test_stratified_auroc_pools_by_pairs():
    # stratum a: 2 valid, 1 flawed, valid above -> 1.0 over 2 pairs; stratum b: 1 valid below 1 flawed -> 0.0 over 1
    y = [True, True, False, True, False, True]
    s = [0.9, 0.8, 0.1, 0.1, 0.9, 0.5]
    r = rr.stratified_auroc(y, s, ["a", "a", "a", "b", "b", "c"])  # c holds one class: no pair, no figure
    assert r["per_stratum"] == [1.0, 0.0, None]
    assert r["pooled"] == pytest.approx(round(2 / 3, 4)) and r["mean"] == 0.5


def test_a_reward_that_only_learned_length_scores_half_within_quintiles():
    lengths = list(range(20))
    strata = rr.length_strata(lengths, k=5)  # four rows each, shortest first
    pattern = {0: [1, 1, 1, 0], 1: [1, 1, 1, 0], 2: [1, 0, 0, 0], 3: [1, 0, 0, 0], 4: [1, 0, 0, 0]}
    valid = [bool(pattern[strata[i]][i % 4]) for i in range(20)]
    reward = [1.0 if length < 8 else 0.0 for length in lengths]  # "short is good", constant within each quintile
    assert rr.auroc(valid, reward) > 0.7
    within = rr.stratified_auroc(valid, reward, strata)
    assert within["pooled"] == 0.5 and within["per_stratum"] == [0.5] * 5


def test_groups_without_signal():
    keys = ["p", "p", "p", "q", "q", "r", "r", "s", "t", "t"]
    rewards = [0.5, 0.5, 0.5 + 1e-12, 1.0, 0.0, None, 0.7, 0.3, None, None]
    g = rr.groups_without_signal(keys, rewards)
    # p: equal within tol -> no signal; q: differs; r: one scored reward -> no signal; t: none scored; s: a singleton
    assert g == {"groups": 4, "without_signal": 3, "share": 0.75, "singletons": 1}
    assert rr.groups_without_signal(["a", "b"], [1.0, 0.0]) == {"groups": 0, "without_signal": 0, "share": None,
                                                                 "singletons": 2}


def test_pay_summary_histogram_and_text():
    values = [1.0, 0.999, 0.0, 0.5, None, 1e-12]
    s = rr.pay_summary(values, ceiling=0.999)
    assert (s["n"], s["full"], s["zero"], s["none"]) == (6, 2, 2, 1)
    assert s["full_share"] == round(2 / 6, 4) and s["median"] == 0.5
    h = rr.pay_histogram(values, bins=4)
    assert h["counts"] == [2, 0, 1, 2] and h["none"] == 1 and sum(h["counts"]) + h["none"] == len(values)
    assert rr.pay_histogram([-0.5, 1.5], bins=2)["counts"] == [1, 1]  # clipped into the end bins
    text = rr.text_histogram(h, width=10)
    lines = text.splitlines()
    assert len(lines) == 5 and lines[0].startswith("[0.00, 0.25)") and lines[3].startswith("[0.75, 1.00]")
    assert lines[0].count("#") == 10 and lines[1].count("#") == 0 and lines[-1].startswith("None")


def test_reason_templates_group_reasons_of_one_kind():
    a = rr.reason_template("ungrounded quantity feeds the answer: 9 (step 3), 108 (step 3), 54 (step 4)")
    b = rr.reason_template("ungrounded quantity feeds the answer: 2.5 (step 1), -7 (step 12)")
    assert a == b == "ungrounded quantity feeds the answer: N (step N), …"
    assert rr.reason_template("the chain's result 2383/1000 differs from the stated answer -3") == \
        "the chain's result N differs from the stated answer N"
    assert rr.reason_template("P_R below 1") == "P_R below N"
    assert rr.reason_template("x2 and 3") == "x2 and N"  # digits inside a word are not numbers
    assert len(rr.reason_template("a " * 200)) <= 140


def test_common_reasons_count_each_completion_once():
    lists = [["a", "a", "b"], ["b"], ["c", "b"], []]
    top = rr.common_reasons(lists, top=2)
    assert top == [{"reason": "b", "count": 3, "share": 0.75}, {"reason": "a", "count": 1, "share": 0.25}]


def test_shortfall_cause_and_reasons_of_real_verdicts():
    from rewards import score_trace
    problem = "Tom has 3 boxes of 4 pens. How many pens?"
    slip = score_trace(problem, "3 * 4 = 13 pens.\n#### 13")
    assert rr.shortfall_cause(slip) == "suspect step"
    assert rr.shortfall_cause(slip, correct=False) == "answer judged wrong"
    bare = score_trace(problem, "#### 12")
    assert rr.shortfall_cause(bare) == "abstained"
    reasons = rr.shortfall_reasons(slip, correct=False)
    assert reasons[0] == "answer judged wrong" and len(reasons) == len(set(reasons)) > 1


def test_full_pay_ceiling():
    assert rr.full_pay_ceiling(faithful_accuracy_reward) == 1.0
    problem, completion, gold = rr.PROBE
    assert rr.full_pay_ceiling(rafs_reward) == rafs_reward([problem], [completion], answer=[gold])[0] < 1.0
    assert rr.full_pay_ceiling(rafs_consensus_reward) == 1.0  # None for one completion: the ceiling stays 1
    assert not math.isnan(rr.full_pay_ceiling(rafs_reward))
