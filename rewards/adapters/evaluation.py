"""Evaluate RAFS against human step labels (ProcessBench format): does it catch silent failures, and which
component does the work?

Input rows (JSON array or JSONL): ``problem`` (str), ``steps`` (list of str), ``label`` (0-based index of the
earliest wrong step, ``-1`` when every step is correct), ``final_answer_correct`` (bool), optional ``id`` and
``generator``. Every row is scored with :func:`rewards.scoring.score.score_trace` (public API only) and the report holds:

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
  ``1 - P_R`` and the earliest ``q_t < θ`` without the scorer's abstention gate).
* **H1** ("accuracy overstates reasoning validity"): ``accuracy = mean(final_answer_correct)``,
  ``faithful_accuracy = mean(final_answer_correct ∧ no suspect step ∧ status != abstain)`` (RAFS's reference-free
  view) and ``labelled_faithful_accuracy = mean(final_answer_correct ∧ label == -1)`` (the human labels' view).
* Percentile **bootstrap** intervals (rows resampled jointly, seeded, vectorised) beside every figure as
  ``<key>_ci: [lo, hi]``; a **threshold sweep** of ``θ`` with the choice made on another split; a
  **per-generator** breakdown; the **misses by kind of error** (does the labelled step contain a false calculation,
  no equation at all, or only equations that hold?).

Every rate is a fraction in [0, 1].

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

from __future__ import annotations

import dataclasses
import json
import math
import os
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

__all__ = [
    "REQUIRED_FIELDS", "ScoredRow", "load_rows", "validate_rows", "score_rows", "predict_steps",
    "processbench_metrics", "bootstrap_weights", "weighted_auroc", "weighted_auprc", "detector_scores",
    "threshold_sweep", "choose_theta", "classify_step", "evaluate", "to_markdown", "PUBLISHED_F1",
    "DEFAULT_GRID", "ABSTAIN_SCORE",
]

REQUIRED_FIELDS = ("problem", "steps", "label", "final_answer_correct")
#: detector score of an abstention (and of a missing component): "no opinion"
ABSTAIN_SCORE = 0.5
#: the θ grid of the threshold sweep
DEFAULT_GRID = tuple(round(0.05 * k, 2) for k in range(1, 20))
#: published ProcessBench F1 (×100), GSM8K / MATH — Zheng et al. 2024 (ProcessBench, ACL 2025) and "The Lessons
#: of Developing Process Reward Models in Mathematical Reasoning" (2025). Published figures, not our runs.
PUBLISHED_F1 = {
    "Math-Shepherd-PRM-7B": (47.9, 29.5),
    "Skywork-PRM-7B": (70.8, 53.6),
    "Qwen2.5-Math-PRM-7B": (82.4, 77.6),
    "Qwen2.5-Math-PRM-72B": (87.3, 80.6),
    "GPT-4o (critic)": (79.2, 63.6),
    "o1-mini (critic)": (93.2, 88.9),
}
COMPONENT_NAMES = ("P_R", "S_RA", "C_A", "D_R")
MISS_KINDS = ("false_calculation", "no_equation", "equation_holds", "equation_not_checkable")


# ------------------------------------------------------------------------------------------------ input
def _where(source: str, i: int, row: Mapping[str, Any] | None = None) -> str:
    rid = row.get("id") if isinstance(row, Mapping) else None
    return f"{source}: row {i}" + (f" (id {rid!r})" if rid is not None else "")


def validate_rows(rows: Iterable[Any], source: str = "rows") -> list[dict]:
    """Check every row has the ProcessBench fields with sane values; raise ``ValueError`` naming the row, the field,
    the value and the fix. Returns the rows as a list.

    >>> validate_rows([{"problem": "p", "steps": ["a"], "label": 3, "final_answer_correct": True}])
    Traceback (most recent call last):
    ...
    ValueError: rows: row 0: field 'label' = 3 is out of range for 1 step(s); use -1 (no wrong step) or 0..0
    """
    out = []
    for i, row in enumerate(rows):
        where = _where(source, i, row)
        if not isinstance(row, Mapping):
            raise ValueError(f"{where}: expected a JSON object with fields {list(REQUIRED_FIELDS)}, "
                             f"got {type(row).__name__}")
        for name in REQUIRED_FIELDS:
            if name not in row:
                raise ValueError(f"{where}: missing field {name!r}; every row needs {list(REQUIRED_FIELDS)} "
                                 f"(got {sorted(row)})")
        problem, steps, label, fac = row["problem"], row["steps"], row["label"], row["final_answer_correct"]
        if not isinstance(problem, str) or not problem.strip():
            raise ValueError(f"{where}: field 'problem' = {str(problem)[:40]!r} must be a non-empty string")
        if not isinstance(steps, list) or not steps or not all(isinstance(s, str) for s in steps):
            raise ValueError(f"{where}: field 'steps' = {str(steps)[:40]!r} must be a non-empty list of strings "
                             "(one string per step)")
        if isinstance(label, bool) or not isinstance(label, int):
            raise ValueError(f"{where}: field 'label' = {label!r} must be an integer: -1 (no wrong step) or the "
                             "0-based index of the earliest wrong step")
        if not -1 <= label < len(steps):
            raise ValueError(f"{where}: field 'label' = {label} is out of range for {len(steps)} step(s); "
                             f"use -1 (no wrong step) or 0..{len(steps) - 1}")
        if not isinstance(fac, bool):
            raise ValueError(f"{where}: field 'final_answer_correct' = {fac!r} must be true or false")
        gen = row.get("generator")
        if gen is not None and not isinstance(gen, str):
            raise ValueError(f"{where}: field 'generator' = {gen!r} must be a string (or absent)")
        out.append(dict(row))
    if not out:
        raise ValueError(f"{source}: no rows; expected a JSON array or JSONL of ProcessBench rows")
    return out


def load_rows(path: str | os.PathLike, limit: int | None = None) -> list[dict]:
    """Read ProcessBench-format rows from a JSON array or a JSONL file (detected from the content) and validate them.

    Raises ``FileNotFoundError`` for a missing file and ``ValueError`` (naming the line or row and field) for bad
    content.
    """
    path = os.fspath(path)
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    stripped = text.lstrip()
    if stripped.startswith("["):
        try:
            rows = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}: not valid JSON (line {exc.lineno}: {exc.msg}); expected a JSON array of "
                             "rows or one JSON object per line") from None
    else:
        rows = []
        for lineno, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{lineno}: not valid JSON ({exc.msg}); each line must be one JSON "
                                 "object") from None
    if limit is not None:
        rows = rows[:limit]
    return validate_rows(rows, source=path)


# ---------------------------------------------------------------------------------------------- scoring
@dataclass
class ScoredRow:
    """What the evaluation keeps of one :class:`rewards.scoring.score.RAFSResult`."""

    score: float | None
    status: str
    suspect_step: int | None
    components: dict[str, float | None]
    q: list[float]
    reasons: list[list[str]] = field(default_factory=list)


def _score_one(row: Mapping[str, Any], config=None, verifier=None) -> ScoredRow:
    from rewards.scoring.score import score_trace

    r = score_trace(row["problem"], steps=row["steps"], config=config, verifier=verifier)
    return ScoredRow(r.score, r.status, r.suspect_step, dict(r.components), [float(c.q) for c in r.step_checks],
                     [list(c.reasons) for c in r.step_checks])


class _Scorer:  # picklable callable for multiprocessing
    def __init__(self, config, verifier=None, checkers=None):
        self.config = config
        self.verifier = verifier
        self.checkers = checkers

    def __call__(self, row):
        if self.checkers is None:
            return _score_one(row, self.config, self.verifier)
        from rewards.checks import claims

        with claims.using(self.checkers):
            return _score_one(row, self.config, self.verifier)


def score_rows(rows: Sequence[Mapping[str, Any]], config=None, *, num_proc: int = 1, progress: bool | None = True,
               desc: str = "rafs eval", verifier=None, checkers=None) -> list[ScoredRow]:
    """Score every row with ``score_trace(problem, steps=steps, config=config, verifier=verifier)`` (the symbolic
    verifier when ``verifier`` is None); ``num_proc > 1`` uses a multiprocessing pool (order kept).
    ``checkers``: the claim checkers to run instead of :data:`rewards.checks.claims.CHECKERS` (for ablations).
    ``progress``: a tqdm bar (``None``: only on a terminal)."""
    from tqdm import tqdm

    scorer = _Scorer(config, verifier, checkers)
    disable = None if progress is None else not progress
    if num_proc <= 1 or len(rows) < 2:
        return [scorer(r) for r in tqdm(rows, desc=desc, unit="trace", disable=disable)]
    import multiprocessing

    with multiprocessing.get_context().Pool(min(num_proc, len(rows))) as pool:
        it = pool.imap(scorer, rows, chunksize=max(1, min(32, len(rows) // (4 * num_proc))))
        return list(tqdm(it, total=len(rows), desc=desc, unit="trace", disable=disable))


def predict_steps(scored: Sequence[ScoredRow], theta: float, *, config_theta: float | None = None,
                  gate_abstain: bool = True) -> np.ndarray:
    """The predicted earliest wrong step per row at threshold ``θ`` (``-1``: no error).

    The earliest ``q_t < θ`` (:func:`rewards.scoring.components.suspect_step`); an abstention predicts ``-1`` when
    ``gate_abstain`` (the scorer reports no suspect step when it abstains). At ``θ == config_theta`` the scorer's
    own ``suspect_step`` is used, so the sweep reproduces ``rafs score`` at the configured threshold.
    """
    from rewards.scoring.components import suspect_step

    out = np.full(len(scored), -1, dtype=int)
    for i, r in enumerate(scored):
        if config_theta is not None and abs(theta - config_theta) < 1e-12:
            s = r.suspect_step
        elif gate_abstain and r.status == "abstain":
            s = None
        else:
            s = suspect_step(r.q, theta)
        out[i] = -1 if s is None else s
    return out


# ---------------------------------------------------------------------------------------------- metrics
def processbench_metrics(labels: Sequence[int], preds: Sequence[int]) -> dict[str, float | None]:
    """ProcessBench's metric: ``acc_erroneous`` (pred == label over rows with label != -1), ``acc_correct``
    (pred == -1 over rows with label == -1), ``f1`` their harmonic mean (0 when both are 0; ``None`` when a class
    is empty).

    >>> processbench_metrics([0, 2, -1, -1], [0, -1, -1, 1])
    {'acc_erroneous': 0.5, 'acc_correct': 0.5, 'f1': 0.5}
    """
    labels, preds = np.asarray(labels), np.asarray(preds)
    err, cor = labels != -1, labels == -1
    acc_e = float(np.mean(preds[err] == labels[err])) if err.any() else None
    acc_c = float(np.mean(preds[cor] == -1)) if cor.any() else None
    return {"acc_erroneous": acc_e, "acc_correct": acc_c, "f1": _f1(acc_e, acc_c)}


def _f1(a, b):
    if a is None or b is None:
        return None
    return 0.0 if a + b == 0 else 2 * a * b / (a + b)


def bootstrap_weights(n: int, resamples: int = 1000, seed: int = 0) -> np.ndarray:
    """``(resamples, n)`` multiplicities of a seeded nonparametric bootstrap (each row a resample of n rows)."""
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, size=(resamples, n))
    flat = idx + (np.arange(resamples) * n)[:, None]
    return np.bincount(flat.ravel(), minlength=resamples * n).reshape(resamples, n).astype(float)


def _ratio(num, den):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)


def _grouped(W: np.ndarray, y: np.ndarray, s: np.ndarray):
    order = np.argsort(s, kind="stable")
    ss = s[order]
    starts = np.flatnonzero(np.r_[True, ss[1:] != ss[:-1]])
    Ws = W[:, order]
    yo = y[order].astype(float)
    P = np.add.reduceat(Ws * yo, starts, axis=1)
    N = np.add.reduceat(Ws * (1 - yo), starts, axis=1)
    return P, N  # per distinct score, ascending


def weighted_auroc(W: np.ndarray, y: Sequence[bool], s: Sequence[float]) -> np.ndarray:
    """ROC AUC per row of the weight matrix ``W`` (ties count one half): ``Σ_k P_k (N_<k + N_k/2) / (P·N)`` over the
    distinct scores ``k``; equals ``roc_auc_score(y, s, sample_weight=w)``. NaN where a class has no weight."""
    y, s = np.asarray(y, bool), np.asarray(s, float)
    if len(y) == 0:
        return np.full(W.shape[0], np.nan)
    P, N = _grouped(W, y, s)
    below = np.cumsum(N, axis=1) - N
    return _ratio((P * (below + 0.5 * N)).sum(1), P.sum(1) * N.sum(1))


def weighted_auprc(W: np.ndarray, y: Sequence[bool], s: Sequence[float]) -> np.ndarray:
    """Average precision per row of ``W``: ``Σ_k P_k · precision(s >= s_k) / P`` over distinct scores, descending;
    equals ``average_precision_score(y, s, sample_weight=w)``. NaN where there is no positive weight."""
    y, s = np.asarray(y, bool), np.asarray(s, float)
    if len(y) == 0:
        return np.full(W.shape[0], np.nan)
    P, N = _grouped(W, y, s)
    P, N = P[:, ::-1], N[:, ::-1]
    tp, fp = np.cumsum(P, axis=1), np.cumsum(N, axis=1)
    prec = _ratio(tp, tp + fp)
    return _ratio(np.nansum(P * np.nan_to_num(prec), axis=1), P.sum(1))


def _ci(samples: np.ndarray, level: float = 0.95) -> list[float] | None:
    samples = np.asarray(samples, float)
    samples = samples[np.isfinite(samples)]
    if samples.size < 10:
        return None
    lo, hi = np.percentile(samples, [50 * (1 - level), 50 * (1 + level)])
    return [round(float(lo), 4), round(float(hi), 4)]


def _r(x):
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else round(float(x), 4)


def _pb_boot(labels, preds, W):
    err, cor = labels != -1, labels == -1
    acc_e = _ratio(W @ ((preds == labels) & err), W @ err)
    acc_c = _ratio(W @ ((preds == -1) & cor), W @ cor)
    with np.errstate(divide="ignore", invalid="ignore"):
        f1 = np.where(acc_e + acc_c > 0, 2 * acc_e * acc_c / (acc_e + acc_c), 0.0)
    f1 = np.where(np.isnan(acc_e) | np.isnan(acc_c), np.nan, f1)
    return acc_e, acc_c, f1


def _f1_boot(labels, preds, W):
    return _pb_boot(np.asarray(labels), np.asarray(preds), W)[2]


def _pb_with_ci(labels, preds, W, mask=None) -> dict:
    labels, preds = np.asarray(labels), np.asarray(preds)
    if mask is not None:
        labels, preds, W = labels[mask], preds[mask], W[:, mask]
    point = processbench_metrics(labels, preds)
    acc_e, acc_c, f1 = _pb_boot(labels, preds, W)
    out = {}
    for key, boot in (("acc_erroneous", acc_e), ("acc_correct", acc_c), ("f1", f1)):
        out[key] = _r(point[key])
        out[key + "_ci"] = _ci(boot) if point[key] is not None else None
    return out


def _rate_with_ci(hit: np.ndarray, W: np.ndarray, mask: np.ndarray | None = None):
    hit = np.asarray(hit, bool)
    mask = np.ones_like(hit) if mask is None else np.asarray(mask, bool)
    if not mask.any():
        return None, None
    return _r(hit[mask].mean()), _ci(_ratio(W @ (hit & mask), W @ mask))


def _detection(y: np.ndarray, s: np.ndarray, W: np.ndarray) -> dict:
    from sklearn.metrics import average_precision_score, roc_auc_score

    y = np.asarray(y, bool)
    both = y.any() and (~y).any()
    auprc = float(average_precision_score(y, s)) if both else None
    auroc = float(roc_auc_score(y, s)) if both else None
    return {
        "auprc": _r(auprc), "auprc_ci": _ci(weighted_auprc(W, y, s)) if both else None,
        "auroc": _r(auroc), "auroc_ci": _ci(weighted_auroc(W, y, s)) if both else None,
    }


def detector_scores(scored: Sequence[ScoredRow], seed: int = 0, config=None) -> dict[str, np.ndarray]:
    """Silent-failure detector scores in [0, 1] (higher = more likely a wrong step), per row:
    ``rafs`` = (100 − RAFS)/100 (abstention → 0.5); ``P_R``, ``S_RA``, ``C_A``, ``D_R`` = 1 − component
    (missing → 0.5); ``rafs_without_<m>`` = the same aggregation (:func:`rewards.scoring.components.aggregate`, the
    config's weights and ε) without component m (abstention or nothing left → 0.5); ``step_validity_only`` =
    1 − P_R; ``random`` = seeded uniform."""
    from rewards.scoring.components import aggregate
    from rewards.scoring.score import RAFSConfig

    config = config or RAFSConfig()
    out = {"rafs": np.array([ABSTAIN_SCORE if r.score is None else (100.0 - r.score) / 100.0 for r in scored])}
    for m in COMPONENT_NAMES:
        out[m] = np.array([ABSTAIN_SCORE if r.components.get(m) is None else 1.0 - r.components[m]
                           for r in scored])
    for m in COMPONENT_NAMES:
        vals = []
        for r in scored:
            rest = {k: v for k, v in r.components.items() if k != m}
            score = None if r.status == "abstain" else aggregate(rest, config.weights, config.eps)
            vals.append(ABSTAIN_SCORE if score is None else (100.0 - score) / 100.0)
        out[f"rafs_without_{m}"] = np.array(vals)
    out["step_validity_only"] = out["P_R"].copy()
    out["random"] = np.random.default_rng([seed, 1]).random(len(scored))
    return out


def threshold_sweep(labels, scored: Sequence[ScoredRow], grid: Sequence[float] = DEFAULT_GRID,
                    config_theta: float | None = None, W: np.ndarray | None = None) -> list[dict]:
    """ProcessBench's metric at every ``θ`` of ``grid`` (computed from the per-step ``q``, no re-scoring)."""
    out = []
    for theta in grid:
        preds = predict_steps(scored, theta, config_theta=config_theta)
        if W is None:
            m = {k: _r(v) for k, v in processbench_metrics(labels, preds).items()}
        else:
            m = _pb_with_ci(labels, preds, W)
        out.append({"theta": round(float(theta), 4), **m})
    return out


def choose_theta(labels, scored: Sequence[ScoredRow], default: float, grid: Sequence[float] = DEFAULT_GRID, *,
                 resamples: int = 1000, seed: int = 0) -> tuple[float, str, list[dict]]:
    """Choose ``θ`` on a calibration split: the ``θ`` with the highest F1 (ties broken toward ``default``, then the
    smaller), adopted only if it beats ``default`` beyond noise — the paired bootstrap 95% interval of
    ``F1(θ) − F1(default)`` on the calibration split lies above 0; otherwise ``default`` is kept (a flat or noisy
    gain is not worth moving the scorer's threshold for). Returns ``(θ, reason, sweep)``."""
    labels = np.asarray(labels)
    grid = sorted({round(float(t), 4) for t in grid} | {round(float(default), 4)})
    sweep = threshold_sweep(labels, scored, grid, default)
    valid = [s for s in sweep if s["f1"] is not None]
    if not valid:
        return default, f"no F1 could be computed on the calibration split; kept the scorer default θ={default}", sweep
    best_f1 = max(s["f1"] for s in valid)
    ties = [s for s in valid if abs(s["f1"] - best_f1) < 1e-9]
    best = min(ties, key=lambda s: (abs(s["theta"] - default), s["theta"]))["theta"]
    plateau = [s["theta"] for s in ties]
    if abs(best - default) < 1e-9:
        return float(default), (f"the scorer default θ={default} already maximises F1 ({best_f1:.4f}) on the "
                                f"calibration split (F1 is flat over θ in {_ranges(plateau)})"), sweep
    W = bootstrap_weights(len(labels), resamples, seed)
    f_best = _f1_boot(labels, predict_steps(scored, best, config_theta=default), W)
    f_def = _f1_boot(labels, predict_steps(scored, default, config_theta=default), W)
    lo, hi = _ci(f_best - f_def) or [float("nan"), float("nan")]
    d_point = best_f1 - next(s["f1"] for s in sweep if abs(s["theta"] - default) < 1e-9)
    acc_c = {s["theta"]: s["acc_correct"] for s in sweep}
    detail = (f"θ={best} has the highest F1 on the calibration split ({best_f1:.4f}, +{d_point:.4f} over the "
              f"default θ={default}, paired bootstrap 95% interval [{lo:.4f}, {hi:.4f}]; acc_correct "
              f"{acc_c[best]} vs {acc_c[round(float(default), 4)]})")
    if lo > 0:
        return float(best), detail + "; the gain is beyond noise, so θ moves", sweep
    return float(default), detail + "; the interval includes 0, so the scorer default is kept", sweep


def _ranges(thetas: Sequence[float]) -> str:
    return f"[{min(thetas)}, {max(thetas)}]" if thetas else "[]"


# -------------------------------------------------------------------------------------- failure analysis
def classify_step(text: str) -> tuple[str, str]:
    """Coarse kind of a labelled wrong step, from the equations it states (``rewards.checks.arithmetic``):
    ``false_calculation`` (some equation evaluates false, ``check_equation(..).ok is False``), ``no_equation``
    (no equation found), ``equation_holds`` (some equation holds, none false) or ``equation_not_checkable``
    (equations, none evaluable). Returns ``(kind, detail)``.

    >>> classify_step("So 3 * 4 = 13 pens.")[0], classify_step("He buys more pens.")[0]
    ('false_calculation', 'no_equation')
    """
    from rewards.checks.arithmetic import check_equation, extract_equations

    checks = [check_equation(e) for e in extract_equations(text)]
    if not checks:
        return "no_equation", ""
    false = [c for c in checks if c.ok is False]
    if false:
        return "false_calculation", false[0].detail
    if any(c.ok for c in checks):
        return "equation_holds", next(c.detail for c in checks if c.ok)
    return "equation_not_checkable", checks[0].detail


def _short(text: str, n: int = 160) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[: n - 1] + "…"


def _misses(rows, labels, preds, scored, examples: int = 3) -> dict:
    kinds = {k: {"n": 0, "caught": 0, "missed": 0, "missed_no_flag": 0, "missed_flagged_earlier": 0,
                 "missed_flagged_later": 0, "examples": []} for k in MISS_KINDS}
    for row, label, pred in zip(rows, labels, preds):
        if label == -1:
            continue
        kind, detail = classify_step(row["steps"][label])
        k = kinds[kind]
        k["n"] += 1
        if pred == label:
            k["caught"] += 1
            continue
        k["missed"] += 1
        how = "missed_no_flag" if pred == -1 else ("missed_flagged_earlier" if pred < label else "missed_flagged_later")
        k[how] += 1
        if len(k["examples"]) < examples:
            k["examples"].append({"id": row.get("id"), "generator": row.get("generator"), "label": int(label),
                                  "predicted": int(pred), "step": _short(row["steps"][label]),
                                  "check": _short(detail, 120)})
    n_err = sum(k["n"] for k in kinds.values())
    for k in kinds.values():
        k["share_of_erroneous"] = _r(k["n"] / n_err) if n_err else None
        k["recall"] = _r(k["caught"] / k["n"]) if k["n"] else None
    false_alarms = []
    n_fa = 0
    for row, label, pred, r in zip(rows, labels, preds, scored):
        if label == -1 and pred != -1:
            n_fa += 1
            if len(false_alarms) < examples:
                why = r.reasons[pred] if pred < len(r.reasons) else []
                false_alarms.append({"id": row.get("id"), "generator": row.get("generator"), "predicted": int(pred),
                                     "step": _short(row["steps"][pred]), "reasons": [_short(x, 120) for x in why]})
    return {"n_erroneous": n_err, "n_missed": sum(k["missed"] for k in kinds.values()), "kinds": kinds,
            "false_alarms": {"n": n_fa, "examples": false_alarms}}


# ------------------------------------------------------------------------------------------------ report
def _split_name(source: str | None) -> str | None:
    if not source:
        return None
    stem = os.path.splitext(os.path.basename(source))[0].lower()
    for name in ("gsm8k", "math"):
        if name in stem:
            return name
    return None


def evaluate(
    rows: Sequence[Mapping[str, Any]],
    config=None,
    *,
    scored: Sequence[ScoredRow] | None = None,
    calibration_rows: Sequence[Mapping[str, Any]] | None = None,
    calibration_scored: Sequence[ScoredRow] | None = None,
    source: str | None = None,
    calibration_source: str | None = None,
    grid: Sequence[float] = DEFAULT_GRID,
    resamples: int = 1000,
    seed: int = 0,
    num_proc: int = 1,
    progress: bool | None = True,
    verifier=None,
    detector_ablation: bool = True,
) -> dict[str, Any]:
    """Score ``rows`` (unless ``scored`` is given) and build the report (see the module docs and
    ``docs/evaluation.md`` for every key). With ``calibration_rows`` θ is chosen on them (highest F1) and every
    figure of ``rows`` is reported at that θ; without, at the scorer's ``config.theta_step``."""
    from rewards.scoring.score import RAFSConfig

    if resamples < 1:
        raise ValueError(f"resamples={resamples} must be >= 1 (1000 or more for reported intervals)")
    config = config or RAFSConfig()
    rows = validate_rows(rows, source or "rows")
    if scored is None:
        scored = score_rows(rows, config, num_proc=num_proc, progress=progress, verifier=verifier)
    scored = list(scored)
    if len(scored) != len(rows):
        raise ValueError(f"scored has {len(scored)} entries for {len(rows)} rows; score the same rows")
    n = len(rows)
    labels = np.array([r["label"] for r in rows], dtype=int)
    fac = np.array([r["final_answer_correct"] for r in rows], dtype=bool)
    abstain = np.array([r.status == "abstain" for r in scored], dtype=bool)
    W = bootstrap_weights(n, resamples, seed)
    default_theta = float(config.theta_step)

    # --- θ: chosen on the calibration split, never on the reported one
    calibration = None
    if calibration_rows is not None:
        calibration_rows = validate_rows(calibration_rows, calibration_source or "calibration rows")
        if calibration_scored is None:
            calibration_scored = score_rows(calibration_rows, config, num_proc=num_proc, progress=progress,
                                            desc="rafs eval (calibration)", verifier=verifier)
        cal_labels = np.array([r["label"] for r in calibration_rows], dtype=int)
        theta, reason, cal_sweep = choose_theta(cal_labels, calibration_scored, default_theta, grid,
                                                resamples=resamples, seed=seed)
        reason += f" ({calibration_source or 'calibration rows'}, n={len(calibration_rows)})"
        calibration = {"source": calibration_source, "n": len(calibration_rows), "sweep": cal_sweep}
    else:
        theta = default_theta
        reason = (f"scorer default RAFSConfig.theta_step={default_theta}: no calibration split was given, and the "
                  "sweep below on the reported split is descriptive only (never tune on the split you report)")
    grid = sorted({round(float(t), 4) for t in grid} | {round(default_theta, 4)})
    sweep = threshold_sweep(labels, scored, grid, default_theta, W)
    preds = predict_steps(scored, theta, config_theta=default_theta)

    report: dict[str, Any] = {
        "meta": {
            "source": source, "split": _split_name(source), "date_utc": datetime.now(timezone.utc).isoformat(
                timespec="seconds"), "rafs_version": _version(), "config": _config_dict(config),
            "theta": theta, "theta_source": "calibrated" if calibration else "config",
            "bootstrap": {"resamples": resamples, "seed": seed, "level": 0.95,
                          "method": "percentile; rows resampled jointly with replacement (numpy, vectorised)"},
            "prediction": "earliest step with q_t < theta; an abstention predicts no error (-1)",
            "detector": "silent failure: (100 - RAFS)/100, abstention -> 0.5; component m: 1 - m, missing -> 0.5",
        },
        "n": n,
        "n_erroneous": int((labels != -1).sum()),
        "n_correct": int((labels == -1).sum()),
    }
    report.update(_pb_with_ci(labels, preds, W))
    report["abstain_rate"], report["abstain_rate_ci"] = _rate_with_ci(abstain, W)

    # --- silent failure detection
    sf = fac
    y = labels[sf] != -1
    dets = detector_scores(scored, seed, config)
    flagged = preds != -1
    silent = {"n": int(sf.sum()), "n_pos": int(y.sum()), "prevalence": _r(y.mean()) if sf.any() else None}
    silent.update(_detection(y, dets["rafs"][sf], W[:, sf]))
    silent["flag_recall"], silent["flag_recall_ci"] = _rate_with_ci(flagged, W, sf & (labels != -1))
    silent["flag_false_positive_rate"], silent["flag_false_positive_rate_ci"] = _rate_with_ci(
        flagged, W, sf & (labels == -1))
    report["silent_failure"] = silent

    # --- H1: accuracy vs faithful accuracy
    faithful = fac & (preds == -1) & ~abstain
    for key, hit in (("accuracy", fac), ("faithful_accuracy", faithful),
                     ("labelled_faithful_accuracy", fac & (labels == -1))):
        report[key], report[key + "_ci"] = _rate_with_ci(hit, W)

    # --- ablations
    rng = np.random.default_rng([seed, 2])
    random_preds = np.array([int(rng.integers(-1, len(r["steps"]))) for r in rows])
    raw_preds = predict_steps(scored, theta, gate_abstain=False)
    describe = {
        "rafs": "(100 - RAFS)/100, abstention -> 0.5; step = the scorer's suspect step",
        **{m: f"1 - {m}, missing -> 0.5; no step prediction" for m in COMPONENT_NAMES},
        **{f"rafs_without_{m}": f"(100 - RAFS without {m})/100 (weights renormalised), abstention -> 0.5"
           for m in COMPONENT_NAMES},
        "step_validity_only": "1 - P_R, missing -> 0.5; step = earliest q_t < theta, no abstention gate",
        "random": f"uniform scores and a uniform step in {{-1..T-1}}, seed {seed}",
    }
    ablations = {}
    for name, desc in describe.items():
        entry: dict[str, Any] = {"detector": desc}
        if name in COMPONENT_NAMES:
            entry["available"] = _r(np.mean([r.components.get(name) is not None for r in scored]))
        step_preds = {"rafs": preds, "step_validity_only": raw_preds, "random": random_preds}.get(name)
        if step_preds is not None:
            entry.update(_pb_with_ci(labels, step_preds, W))
        entry["silent_failure"] = _detection(y, dets[name][sf], W[:, sf])
        ablations[name] = entry
    report["ablations"] = ablations
    if detector_ablation and verifier is None:
        report["step_detectors"] = _step_detectors(rows, config, labels, preds, theta, default_theta, W, num_proc)

    report["threshold"] = {
        "default": default_theta, "chosen": theta, "reason": reason,
        "calibrated_on": calibration["source"] if calibration else None,
        "calibration": calibration,
        "sweep": sweep,
        "in_sample_best": _in_sample_best(sweep),
    }

    gens = sorted({str(r.get("generator")) for r in rows if r.get("generator") is not None})
    per_gen = {}
    for g in gens:
        mask = np.array([r.get("generator") == g for r in rows])
        per_gen[g] = {"n": int(mask.sum()), **_pb_with_ci(labels, preds, W, mask)}
    report["per_generator"] = per_gen
    report["misses"] = _misses(rows, labels, preds, scored)
    return report


def _step_detectors(rows, config, labels, preds, theta, default_theta, W, num_proc) -> dict:
    """Which step detector does the work: the ProcessBench metric with each claim checker left out, and with
    none (the per-equation checks alone), re-scored at the same θ; ``hits`` is the number of rows whose earliest
    error only the full scorer finds, minus the rows only the reduced one finds."""
    from rewards.checks import claims

    shipped = list(claims.CHECKERS)
    variants = {f"without_{claims.checker_name(c)}": [d for d in shipped if d is not c] for c in shipped}
    variants["equations_only"] = []
    full_hit = (preds == labels) & (labels != -1)
    out: dict[str, Any] = {"checkers": [claims.checker_name(c) for c in shipped],
                           "full": _pb_with_ci(labels, preds, W)}
    for name, checkers in variants.items():
        scored = score_rows(rows, config, num_proc=num_proc, progress=False, checkers=checkers)
        p = predict_steps(scored, theta, config_theta=default_theta)
        hit = (p == labels) & (labels != -1)
        entry = _pb_with_ci(labels, p, W)
        entry["hits_lost"] = int((full_hit & ~hit).sum())
        entry["hits_gained"] = int((hit & ~full_hit).sum())
        entry["false_alarms"] = int(((labels == -1) & (p != -1)).sum())
        out[name] = entry
    return out


def _in_sample_best(sweep):
    valid = [s for s in sweep if s["f1"] is not None]
    if not valid:
        return None
    best = max(valid, key=lambda s: s["f1"])
    return {"theta": best["theta"], "f1": best["f1"],
            "note": "best θ on the reported split itself: optimistic, shown for reference only, not used"}


def _config_dict(config) -> dict:
    d = dataclasses.asdict(config)
    d["weights"] = dict(d.get("weights") or {})
    return d


def _version() -> str | None:
    try:
        from importlib.metadata import version

        return version("rafs")
    except Exception:  # noqa: BLE001
        return None


# ---------------------------------------------------------------------------------------------- markdown
def _pct(x) -> str:
    return "—" if x is None else f"{100 * x:.1f}"


def _pct_ci(report: Mapping[str, Any], key: str) -> str:
    x, ci = report.get(key), report.get(key + "_ci")
    if x is None:
        return "—"
    return _pct(x) + (f" [{_pct(ci[0])}, {_pct(ci[1])}]" if ci else "")


def _num_ci(d: Mapping[str, Any], key: str) -> str:
    x, ci = d.get(key), d.get(key + "_ci")
    if x is None:
        return "—"
    return f"{x:.3f}" + (f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "")


def to_markdown(report: Mapping[str, Any]) -> str:
    """The report as a Markdown page (percentages ×100 with 95% bootstrap intervals in brackets)."""
    meta, thr, sf = report["meta"], report["threshold"], report["silent_failure"]
    boot = meta["bootstrap"]
    how = f"calibrated on {thr['calibrated_on']}" if thr["calibrated_on"] else "scorer default"
    L = [f"# RAFS on {meta.get('source') or 'the given rows'}", "",
         f"Measured {meta['date_utc']} with rafs {meta.get('rafs_version')} (scorer as of that time), "
         f"θ = {meta['theta']} ({how}). "
         f"Intervals: 95% percentile bootstrap, {boot['resamples']} resamples, seed {boot['seed']}. "
         "Percentages are ×100 of the JSON fractions.", "",
         "## ProcessBench metric (suspect step = predicted earliest error)", "",
         "| n | erroneous | correct | acc. erroneous | acc. correct | F1 | abstained |",
         "|---|---|---|---|---|---|---|",
         f"| {report['n']} | {report['n_erroneous']} | {report['n_correct']} | {_pct_ci(report, 'acc_erroneous')} | "
         f"{_pct_ci(report, 'acc_correct')} | {_pct_ci(report, 'f1')} | {_pct_ci(report, 'abstain_rate')} |", ""]
    split = meta.get("split")
    L += ["### Published process reward models (published figures, not our runs)", "",
          "ProcessBench F1 ×100 as published by Zheng et al. 2024 (ProcessBench, ACL 2025) and \"The Lessons of "
          "Developing Process Reward Models in Mathematical Reasoning\" (2025).", "",
          "| model | GSM8K | MATH |", "|---|---|---|"]
    for model, (g, m) in PUBLISHED_F1.items():
        L.append(f"| {model} | {g} | {m} |")
    ours = _pct(report["f1"])
    L.append(f"| **RAFS, symbolic checker (this run)** | {ours if split == 'gsm8k' else '—'} | "
             f"{ours if split == 'math' else '—'} |" if split else f"| **RAFS (this run, {meta.get('source')})** | "
             f"{ours} | |")
    L += ["", "## Silent-failure detection (rows whose final answer is correct)", "",
          f"{sf['n']} rows, {sf['n_pos']} with a labelled wrong step (prevalence {_pct(sf['prevalence'])}%). "
          "Detector: (100 − RAFS)/100, an abstention scores 0.5; a component m: 1 − m, missing → 0.5. "
          "AUPRC of a detector without skill equals the prevalence; AUROC 0.5.", "",
          "| detector | AUPRC | AUROC | acc. erroneous | acc. correct | F1 |", "|---|---|---|---|---|---|"]
    for name, entry in report["ablations"].items():
        s = entry["silent_failure"]
        avail = "" if "available" not in entry else f" (available {_pct(entry['available'])}%)"
        L.append(f"| {name}{avail} | "
                 f"{_num_ci(s, 'auprc')} | {_num_ci(s, 'auroc')} | {_pct_ci(entry, 'acc_erroneous')} | "
                 f"{_pct_ci(entry, 'acc_correct')} | {_pct_ci(entry, 'f1')} |")
    L += ["", f"Flagged (any suspect step) among silent failures: {_pct_ci(sf, 'flag_recall')}%; among faithful "
          f"successes: {_pct_ci(sf, 'flag_false_positive_rate')}%.", ""]
    det = report.get("step_detectors")
    if det:
        L += ["## Step detectors: which check finds the errors", "",
              "The ProcessBench metric re-scored with each claim checker of `rewards.checks.claims` left out, and with none "
              "(the per-equation arithmetic and identity checks alone), at the same θ. Hits lost: rows whose earliest "
              "error only the full scorer finds.", "",
              "| variant | acc. erroneous | acc. correct | F1 | hits lost | hits gained | false alarms |",
              "|---|---|---|---|---|---|---|",
              f"| full scorer ({', '.join(det['checkers']) or 'no claim checkers'}) | "
              f"{_pct_ci(det['full'], 'acc_erroneous')} | {_pct_ci(det['full'], 'acc_correct')} | "
              f"{_pct_ci(det['full'], 'f1')} | — | — | {report['misses']['false_alarms']['n']} |"]
        for name, e in det.items():
            if name in ("checkers", "full"):
                continue
            L.append(f"| {name} | {_pct_ci(e, 'acc_erroneous')} | {_pct_ci(e, 'acc_correct')} | {_pct_ci(e, 'f1')} | "
                     f"{e['hits_lost']} | {e['hits_gained']} | {e['false_alarms']} |")
        L.append("")
    L += [
          "## H1: accuracy vs faithful accuracy", "",
          "| accuracy | faithful accuracy (RAFS: correct, no suspect step, not abstained) | "
          "labelled faithful accuracy (correct and label = −1) |", "|---|---|---|",
          f"| {_pct_ci(report, 'accuracy')} | {_pct_ci(report, 'faithful_accuracy')} | "
          f"{_pct_ci(report, 'labelled_faithful_accuracy')} |", "",
          "## Threshold θ", "", f"Chosen θ = {thr['chosen']} — {thr['reason']}.", ""]
    cal = thr.get("calibration")
    if cal:
        L += [f"| θ | F1 on {_base(cal['source'])} (calibration) | F1 on {_base(meta.get('source'))} (reported) |",
              "|---|---|---|"]
        for c, s in zip(cal["sweep"], thr["sweep"]):
            L.append(f"| {c['theta']} | {_pct(c['f1'])} | {_pct_ci(s, 'f1')} |")
    else:
        L += ["| θ | F1 (this split, descriptive) | acc. erroneous | acc. correct |", "|---|---|---|---|"]
        for s in thr["sweep"]:
            L.append(f"| {s['theta']} | {_pct_ci(s, 'f1')} | {_pct(s['acc_erroneous'])} | {_pct(s['acc_correct'])} |")
    L += ["", "## Per generator", "", "| generator | n | acc. erroneous | acc. correct | F1 |", "|---|---|---|---|---|"]
    for g, d in report["per_generator"].items():
        L.append(f"| {g} | {d['n']} | {_pct_ci(d, 'acc_erroneous')} | {_pct_ci(d, 'acc_correct')} | "
                 f"{_pct_ci(d, 'f1')} |")
    mi = report["misses"]
    L += ["", "## Where it fails, by kind of labelled wrong step", "",
          f"{mi['n_missed']} of {mi['n_erroneous']} erroneous rows missed (predicted step ≠ label). Kind of the "
          "labelled step from `rewards.checks.arithmetic.check_equation` over the equations it states.", "",
          "| kind | rows | caught | missed | of which: no flag / flagged earlier / later |", "|---|---|---|---|---|"]
    for kind, k in mi["kinds"].items():
        L.append(f"| {kind} | {k['n']} ({_pct(k['share_of_erroneous'])}%) | {k['caught']} | {k['missed']} | "
                 f"{k['missed_no_flag']} / {k['missed_flagged_earlier']} / {k['missed_flagged_later']} |")
    for kind, k in mi["kinds"].items():
        if k["examples"]:
            L += ["", f"Missed, {kind}:"]
            for e in k["examples"]:
                check = f" — {e['check']}" if e["check"] else ""
                L.append(f"- `{e['id']}` step {e['label']} (predicted {e['predicted']}): "
                         f"{_md(e['step'])}{_md(check)}")
    fa = mi["false_alarms"]
    L += ["", f"False alarms on correct solutions: {fa['n']}."]
    for e in fa["examples"]:
        L.append(f"- `{e['id']}` step {e['predicted']}: {_md(e['step'])} — {_md('; '.join(e['reasons']))}")
    return "\n".join(L) + "\n"


def _base(path: str | None) -> str:
    return os.path.basename(path) if path else "the given rows"


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
