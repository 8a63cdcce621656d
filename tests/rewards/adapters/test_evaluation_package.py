"""rewards.adapters.evaluation as a package of one-job modules: its public names, the bootstrap's resamples,
the general ``score_rows`` and the filter's batch function ``score_batch``."""

import importlib

import numpy as np
import pytest
import scipy.stats

import rewards.adapters.evaluation as evaluation
from rewards.adapters.evaluation import bootstrap_weights, score_rows

#: every name importable from the single module before the split (its __all__ and public constants)
NAMES_BEFORE_THE_SPLIT = (
    "REQUIRED_FIELDS", "ScoredRow", "load_rows", "validate_rows", "score_rows", "predict_steps",
    "processbench_metrics", "bootstrap_weights", "weighted_auroc", "weighted_auprc", "detector_scores",
    "threshold_sweep", "choose_theta", "classify_step", "evaluate", "to_markdown", "PUBLISHED_F1", "DEFAULT_GRID",
    "ABSTAIN_SCORE", "COMPONENT_NAMES", "MISS_KINDS",
)
SUBMODULES = ("rows", "scorer", "bootstrap", "metrics", "threshold", "misses", "leaderboard", "report", "markdown")


def test_every_name_stays_importable_from_the_package():
    missing = [n for n in NAMES_BEFORE_THE_SPLIT if not hasattr(evaluation, n)]
    assert not missing
    assert set(NAMES_BEFORE_THE_SPLIT) <= set(evaluation.__all__)


def test_each_name_has_one_home():
    homes = {}
    for sub in SUBMODULES:
        module = importlib.import_module(f"rewards.adapters.evaluation.{sub}")
        for name in module.__all__:
            assert name not in homes, f"{name} is public in both {homes.get(name)} and {sub}"
            homes[name] = sub
    for name in evaluation.__all__:
        module = importlib.import_module(f"rewards.adapters.evaluation.{homes[name]}")
        assert getattr(evaluation, name) is getattr(module, name), name


def test_resamples_are_scipy_bootstraps_paired_resamples():
    n, resamples, seed = 37, 200, 5
    res = scipy.stats.bootstrap((np.arange(n),), lambda i, axis=-1: (i == 3).sum(axis).astype(float),
                                paired=True, vectorized=True, n_resamples=resamples, method="percentile",
                                rng=np.random.default_rng(seed))
    W = bootstrap_weights(n, resamples, seed)
    assert np.array_equal(W[:, 3], res.bootstrap_distribution)  # row 3's multiplicity in every resample
    assert not np.array_equal(W[:, 3], bootstrap_weights(n, resamples, seed + 1)[:, 3])


def test_score_rows_takes_completions_steps_and_gold():
    problem = "Sam has 3 pens and gets 4 more. How many pens?"
    rows = [{"problem": problem, "completion": "3 + 4 = 7 pens.\n#### 7", "answer": "7"},
            {"problem": problem, "completion": "3 + 4 = 7 pens.\n#### 7", "answer": "8"},
            {"problem": problem, "steps": ["3 + 4 = 8 pens.", "The answer is 8."]},
            {"problem": problem, "completion": [{"role": "assistant", "content": "3 + 4 = 7\n#### 7"}]}]
    scored = score_rows(rows, progress=False)
    # the gold answer reaches the scorer: a valid derivation that disagrees with the gold is no success
    assert [r.failure_type for r in scored[:2]] == ["faithful_success", "extraction_failure"]
    assert scored[2].suspect_step == 0 and scored[2].reasons[0]
    assert scored[3].status == "accept" and scored[3].q and scored[3].failure_type is None  # no gold, no verdict
    assert score_rows(rows, progress=False, num_proc=2) == scored


def test_filtering_exposes_score_batch_not_score_rows():
    import rewards.adapters.filtering as filtering
    from datasets import Dataset

    assert not hasattr(filtering, "score_rows") and "score_batch" in filtering.__all__
    ds = Dataset.from_list([{"question": "Ann has 2 bags of 5 apples. How many apples?",
                             "answer": "2*5=<<2*5=11>>11\n#### 10"}])
    spec = filtering.make_spec(ds.column_names)
    out = ds.map(filtering.score_batch, batched=True, fn_kwargs={"spec": spec})
    assert out[0]["reason"] == "failure_type:silent_failure" and out[0]["status"] == "review"


@pytest.mark.parametrize("source, split", [("x/processbench/gsm8k.json", "gsm8k"), ("MATH.jsonl", "math"),
                                           ("olympiadbench.json", None), (None, None)])
def test_split_from_the_file_name(source, split):
    from rewards.adapters.evaluation.leaderboard import split_name

    assert split_name(source) == split
