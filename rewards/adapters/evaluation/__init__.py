"""Evaluate RAFS against human step labels (ProcessBench format): does it catch silent failures, and which
component does the work?

Input rows (JSON array or JSONL): ``problem`` (str), ``steps`` (list of str), ``label`` (0-based index of the
earliest wrong step, ``-1`` when every step is correct), ``final_answer_correct`` (bool), optional ``id`` and
``generator``. Every row is scored with :func:`rewards.scoring.score.score_trace` (public API only) and the report
holds:

* **ProcessBench's metric** with the suspect step as the predicted earliest error (no suspect step, or an
  abstention, predicts "no error", ``-1``)::

      acc_erroneous = mean(pred == label | label != -1)
      acc_correct   = mean(pred == -1    | label == -1)
      f1            = 2 · acc_erroneous · acc_correct / (acc_erroneous + acc_correct)

* **Silent-failure detection** among the rows whose final answer is correct: positives are rows with a wrong step
  (``label != -1``), the detector is ``(100 - RAFS) / 100`` (an abstention scores 0.5, "no opinion"), and
  ``auprc = average_precision_score``, ``auroc = roc_auc_score`` (scikit-learn); ``None`` when the rows hold no
  positive or no negative.
* **Ablations**: the same detection per component (detector ``1 - component``, a missing component scores 0.5),
  for RAFS without each component (leave one out, same aggregation), and for baselines (``random``: seeded
  uniform scores and a uniformly random predicted step; ``step_validity_only``: the step verifier alone,
  ``1 - P_R`` and the earliest ``q_t < θ`` without the scorer's abstention gate); ``step_detectors``: the metric
  re-scored with each claim checker left out.
* **H1** ("accuracy overstates reasoning validity"): ``accuracy = mean(final_answer_correct)``,
  ``faithful_accuracy = mean(final_answer_correct ∧ no suspect step ∧ status != abstain)`` (RAFS's reference-free
  view) and ``labelled_faithful_accuracy = mean(final_answer_correct ∧ label == -1)`` (the human labels' view).
* Percentile **bootstrap** intervals (rows resampled jointly, seeded, vectorised) beside every figure as
  ``<key>_ci: [lo, hi]``; a **threshold sweep** of ``θ`` with the choice made on another split; a
  **per-generator** breakdown; the **misses by kind of error** (does the labelled step contain a false calculation,
  no equation at all, or only equations that hold?).

Every rate is a fraction in [0, 1]. One module per job:

* :mod:`~rewards.adapters.evaluation.rows` — reading and checking the input rows;
* :mod:`~rewards.adapters.evaluation.scorer` — :func:`score_rows`, the batch scorer (one core or a process pool);
* :mod:`~rewards.adapters.evaluation.bootstrap` — the joint resamples and the vectorised resampled figures;
* :mod:`~rewards.adapters.evaluation.metrics` — ProcessBench's metric, detection, the detectors compared;
* :mod:`~rewards.adapters.evaluation.threshold` — predicted steps at θ, the sweep, the choice of θ;
* :mod:`~rewards.adapters.evaluation.misses` — the misses by kind of labelled step and the false alarms;
* :mod:`~rewards.adapters.evaluation.leaderboard` — published ProcessBench F1 and the split of a file;
* :mod:`~rewards.adapters.evaluation.report` — :func:`evaluate`, the whole report;
* :mod:`~rewards.adapters.evaluation.markdown` — :func:`to_markdown`, the report as a page.

>>> rows = [
...     {"problem": "Tom has 3 boxes of 4 pens.", "steps": ["3 * 4 = 13 pens.", "The answer is 13."],
...      "label": 0, "final_answer_correct": False},
...     {"problem": "Tom has 3 boxes of 4 pens.", "steps": ["3 * 4 = 12 pens.", "The answer is 12."],
...      "label": -1, "final_answer_correct": True},
... ]
>>> report = evaluate(validate_rows(rows), progress=False, resamples=1000)
>>> report["acc_erroneous"], report["acc_correct"], report["f1"]
(1.0, 1.0, 1.0)
"""

from rewards.adapters.evaluation.bootstrap import bootstrap_weights, weighted_auprc, weighted_auroc
from rewards.adapters.evaluation.leaderboard import PUBLISHED_F1
from rewards.adapters.evaluation.markdown import to_markdown
from rewards.adapters.evaluation.metrics import (
    ABSTAIN_SCORE,
    COMPONENT_NAMES,
    detector_scores,
    processbench_metrics,
)
from rewards.adapters.evaluation.misses import MISS_KINDS, classify_step
from rewards.adapters.evaluation.report import evaluate
from rewards.adapters.evaluation.rows import REQUIRED_FIELDS, load_rows, validate_rows
from rewards.adapters.evaluation.scorer import ScoredRow, score_rows
from rewards.adapters.evaluation.threshold import DEFAULT_GRID, choose_theta, predict_steps, threshold_sweep

__all__ = [
    "REQUIRED_FIELDS", "ScoredRow", "load_rows", "validate_rows", "score_rows", "predict_steps",
    "processbench_metrics", "bootstrap_weights", "weighted_auroc", "weighted_auprc", "detector_scores",
    "threshold_sweep", "choose_theta", "classify_step", "evaluate", "to_markdown", "PUBLISHED_F1",
    "DEFAULT_GRID", "ABSTAIN_SCORE", "COMPONENT_NAMES", "MISS_KINDS",
]
