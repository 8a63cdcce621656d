"""The evaluation report: score the rows, choose θ, and gather every figure with its bootstrap interval.

:func:`evaluate` puts together the other modules of :mod:`rewards.adapters.evaluation`: rows from
:mod:`~rewards.adapters.evaluation.rows`, verdicts from :func:`~rewards.adapters.evaluation.scorer.score_rows`,
θ from :mod:`~rewards.adapters.evaluation.threshold`, figures from :mod:`~rewards.adapters.evaluation.metrics` on
the resamples of :mod:`~rewards.adapters.evaluation.bootstrap`, the misses from
:mod:`~rewards.adapters.evaluation.misses` and the split from :mod:`~rewards.adapters.evaluation.leaderboard`.
The keys are listed in the package's documentation (:mod:`rewards.adapters.evaluation`).

>>> rows = [{"problem": "Ann has 5 apples and buys 7 more.", "steps": ["5 + 7 = 11 apples."], "label": 0,
...          "final_answer_correct": False},
...         {"problem": "Ann has 5 apples and buys 7 more.", "steps": ["5 + 7 = 12 apples."], "label": -1,
...          "final_answer_correct": True}]
>>> report = evaluate(rows, progress=False, source="gsm8k_sample.json")
>>> report["f1"], report["meta"]["split"], report["meta"]["theta_source"]
(1.0, 'gsm8k', 'config')
>>> sorted(report["step_detectors"])[:2]
['checkers', 'equations_only']
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Mapping, Sequence

import numpy as np

from rewards.adapters.evaluation.bootstrap import bootstrap_weights, rounded
from rewards.adapters.evaluation.leaderboard import split_name
from rewards.adapters.evaluation.metrics import (
    COMPONENT_NAMES,
    detection,
    detector_scores,
    processbench_with_ci,
    rate_with_ci,
)
from rewards.adapters.evaluation.misses import misses
from rewards.adapters.evaluation.rows import validate_rows
from rewards.adapters.evaluation.scorer import ScoredRow, score_rows
from rewards.adapters.evaluation.threshold import (
    DEFAULT_GRID,
    choose_theta,
    in_sample_best,
    predict_steps,
    threshold_sweep,
)

__all__ = ["evaluate", "step_detectors"]


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
    """Score ``rows`` (unless ``scored`` is given) and build the report (every key is described in the docs of
    :mod:`rewards.adapters.evaluation`). With ``calibration_rows`` θ is chosen on them (highest F1, if beyond noise)
    and every figure of ``rows`` is reported at that θ; without, at the scorer's ``config.theta_step``.
    ``detector_ablation`` re-scores the rows with each claim checker left out (:func:`step_detectors`)."""
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
    default_theta = float(config.theta_step)
    theta, reason, calibration = _chosen_theta(config, default_theta, grid, calibration_rows, calibration_scored,
                                               calibration_source, resamples=resamples, seed=seed,
                                               num_proc=num_proc, progress=progress, verifier=verifier)
    f = _Figures.of(rows, scored, theta, default_theta, resamples, seed)
    grid = sorted({round(float(t), 4) for t in grid} | {round(default_theta, 4)})
    sweep = threshold_sweep(f.labels, scored, grid, default_theta, f.W)

    report: dict[str, Any] = {
        "meta": _meta(source, config, theta, calibration, resamples, seed),
        "n": len(rows),
        "n_erroneous": int((f.labels != -1).sum()),
        "n_correct": int((f.labels == -1).sum()),
    }
    report.update(processbench_with_ci(f.labels, f.preds, f.W))
    report["abstain_rate"], report["abstain_rate_ci"] = rate_with_ci(f.abstain, f.W)
    dets = detector_scores(scored, seed, config)
    report["silent_failure"] = _silent_failure(f, dets)
    report.update(_accuracies(f))
    report["ablations"] = _ablations(f, dets, seed)
    if detector_ablation and verifier is None:
        report["step_detectors"] = step_detectors(rows, config, f.labels, f.preds, theta, default_theta, f.W,
                                                  num_proc)
    report["threshold"] = {
        "default": default_theta, "chosen": theta, "reason": reason,
        "calibrated_on": calibration["source"] if calibration else None,
        "calibration": calibration,
        "sweep": sweep,
        "in_sample_best": in_sample_best(sweep),
    }
    report["per_generator"] = _per_generator(f)
    report["misses"] = misses(rows, f.labels, f.preds, scored)
    return report


def _chosen_theta(config, default_theta: float, grid: Sequence[float], calibration_rows, calibration_scored,
                  calibration_source: str | None, *, resamples: int, seed: int, num_proc: int, progress,
                  verifier) -> tuple[float, str, dict | None]:
    """``(θ, why, the calibration)``: θ chosen on the calibration split, never on the reported one; without one,
    the scorer's ``config.theta_step``."""
    if calibration_rows is None:
        return default_theta, (f"scorer default RAFSConfig.theta_step={default_theta}: no calibration split was "
                               "given, and the sweep below on the reported split is descriptive only (never tune "
                               "on the split you report)"), None
    calibration_rows = validate_rows(calibration_rows, calibration_source or "calibration rows")
    if calibration_scored is None:
        calibration_scored = score_rows(calibration_rows, config, num_proc=num_proc, progress=progress,
                                        desc="rafs eval (calibration)", verifier=verifier)
    cal_labels = np.array([r["label"] for r in calibration_rows], dtype=int)
    theta, reason, cal_sweep = choose_theta(cal_labels, calibration_scored, default_theta, grid,
                                            resamples=resamples, seed=seed)
    reason += f" ({calibration_source or 'calibration rows'}, n={len(calibration_rows)})"
    return theta, reason, {"source": calibration_source, "n": len(calibration_rows), "sweep": cal_sweep}


@dataclass(frozen=True)
class _Figures:
    """What the report's figures read: the rows and their scores, the step labels, which final answers are correct
    (``fac``), the abstentions, the step predictions at θ and the bootstrap weights ``W``."""

    rows: list
    scored: list
    labels: np.ndarray
    fac: np.ndarray
    abstain: np.ndarray
    preds: np.ndarray
    W: np.ndarray
    theta: float

    @classmethod
    def of(cls, rows: list, scored: list, theta: float, default_theta: float, resamples: int,
           seed: int) -> "_Figures":
        return cls(rows, scored, labels=np.array([r["label"] for r in rows], dtype=int),
                   fac=np.array([r["final_answer_correct"] for r in rows], dtype=bool),
                   abstain=np.array([r.status == "abstain" for r in scored], dtype=bool),
                   preds=predict_steps(scored, theta, config_theta=default_theta),
                   W=bootstrap_weights(len(rows), resamples, seed), theta=theta)

    @property
    def silent_truth(self) -> np.ndarray:
        """Among the rows with a correct final answer (the silent-failure candidates), which have an error."""
        return self.labels[self.fac] != -1


def _meta(source: str | None, config, theta: float, calibration: dict | None, resamples: int, seed: int) -> dict:
    return {
        "source": source, "split": split_name(source), "date_utc": datetime.now(timezone.utc).isoformat(
            timespec="seconds"), "rafs_version": _version(), "config": _config_dict(config),
        "theta": theta, "theta_source": "calibrated" if calibration else "config",
        "bootstrap": {"resamples": resamples, "seed": seed, "level": 0.95,
                      "method": "percentile; rows resampled jointly with replacement (numpy, vectorised)"},
        "prediction": "earliest step with q_t < theta; an abstention predicts no error (-1)",
        "detector": "silent failure: (100 - RAFS)/100, abstention -> 0.5; component m: 1 - m, missing -> 0.5",
    }


def _silent_failure(f: _Figures, dets: dict) -> dict:
    """Silent-failure detection: among correct final answers, the rows with an error, found by the RAFS detector
    and by the step flag."""
    sf, y = f.fac, f.silent_truth
    flagged = f.preds != -1
    silent = {"n": int(sf.sum()), "n_pos": int(y.sum()), "prevalence": rounded(y.mean()) if sf.any() else None}
    silent.update(detection(y, dets["rafs"][sf], f.W[:, sf]))
    silent["flag_recall"], silent["flag_recall_ci"] = rate_with_ci(flagged, f.W, sf & (f.labels != -1))
    silent["flag_false_positive_rate"], silent["flag_false_positive_rate_ci"] = rate_with_ci(
        flagged, f.W, sf & (f.labels == -1))
    return silent


def _accuracies(f: _Figures) -> dict:
    """H1: accuracy vs faithful accuracy (and the labelled one), each with its interval."""
    out: dict[str, Any] = {}
    faithful = f.fac & (f.preds == -1) & ~f.abstain
    for key, hit in (("accuracy", f.fac), ("faithful_accuracy", faithful),
                     ("labelled_faithful_accuracy", f.fac & (f.labels == -1))):
        out[key], out[key + "_ci"] = rate_with_ci(hit, f.W)
    return out


def _ablations(f: _Figures, dets: dict, seed: int) -> dict:
    """Each detector (RAFS, each component, RAFS without each component, step validity only, random) on the
    step and silent-failure figures."""
    rng = np.random.default_rng([seed, 2])
    random_preds = np.array([int(rng.integers(-1, len(r["steps"]))) for r in f.rows])
    raw_preds = predict_steps(f.scored, f.theta, gate_abstain=False)
    describe = {
        "rafs": "(100 - RAFS)/100, abstention -> 0.5; step = the scorer's suspect step",
        **{m: f"1 - {m}, missing -> 0.5; no step prediction" for m in COMPONENT_NAMES},
        **{f"rafs_without_{m}": f"(100 - RAFS without {m})/100 (weights renormalised), abstention -> 0.5"
           for m in COMPONENT_NAMES},
        "step_validity_only": "1 - P_R, missing -> 0.5; step = earliest q_t < theta, no abstention gate",
        "random": f"uniform scores and a uniform step in {{-1..T-1}}, seed {seed}",
    }
    sf, y = f.fac, f.silent_truth
    ablations = {}
    for name, desc in describe.items():
        entry: dict[str, Any] = {"detector": desc}
        if name in COMPONENT_NAMES:
            entry["available"] = rounded(np.mean([r.components.get(name) is not None for r in f.scored]))
        step_preds = {"rafs": f.preds, "step_validity_only": raw_preds, "random": random_preds}.get(name)
        if step_preds is not None:
            entry.update(processbench_with_ci(f.labels, step_preds, f.W))
        entry["silent_failure"] = detection(y, dets[name][sf], f.W[:, sf])
        ablations[name] = entry
    return ablations


def _per_generator(f: _Figures) -> dict:
    """The step figures per generator (the model that wrote the rows)."""
    gens = sorted({str(r.get("generator")) for r in f.rows if r.get("generator") is not None})
    per_gen = {}
    for g in gens:
        mask = np.array([r.get("generator") == g for r in f.rows])
        per_gen[g] = {"n": int(mask.sum()), **processbench_with_ci(f.labels, f.preds, f.W, mask)}
    return per_gen


def step_detectors(rows, config, labels, preds, theta, default_theta, W, num_proc) -> dict:
    """Which step detector does the work: the ProcessBench metric with each claim checker left out, and with
    none (the per-equation checks alone), re-scored at the same θ; ``hits_lost`` is the number of rows whose
    earliest error only the full scorer finds, ``hits_gained`` the rows only the reduced one finds."""
    from rewards.checks import claims

    shipped = list(claims.CHECKERS)
    variants = {f"without_{claims.checker_name(c)}": [d for d in shipped if d is not c] for c in shipped}
    variants["equations_only"] = []
    full_hit = (preds == labels) & (labels != -1)
    out: dict[str, Any] = {"checkers": [claims.checker_name(c) for c in shipped],
                           "full": processbench_with_ci(labels, preds, W)}
    for name, checkers in variants.items():
        scored = score_rows(rows, config, num_proc=num_proc, progress=False, checkers=checkers)
        p = predict_steps(scored, theta, config_theta=default_theta)
        hit = (p == labels) & (labels != -1)
        entry = processbench_with_ci(labels, p, W)
        entry["hits_lost"] = int((full_hit & ~hit).sum())
        entry["hits_gained"] = int((hit & ~full_hit).sum())
        entry["false_alarms"] = int(((labels == -1) & (p != -1)).sum())
        out[name] = entry
    return out


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
