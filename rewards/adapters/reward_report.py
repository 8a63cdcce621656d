r"""What a reward pays and whether it carries signal: the figures shared by ``rafs report`` and
``benchmarks/real_completions.py``.

* **AUROC valid vs flawed** (:func:`auroc`, :func:`auroc_with_ci`): ``P(reward(valid) > reward(flawed))``, ties
  counting one half (``sklearn.metrics.roc_auc_score`` with the valid rows as the positive class), with a 95%
  percentile bootstrap interval over jointly resampled rows (seeded; the resamples and the vectorised AUROC of
  :mod:`rewards.adapters.evaluation.bootstrap`, equal to ``roc_auc_score`` resample by resample).
* **AUROC within length strata** (:func:`length_strata`, :func:`stratified_auroc`): the rows are ranked by length
  and cut into ``k`` equal-size strata (quintiles for ``k = 5``); the figure is the *pooled* (stratified) form, the
  probability that a valid row outranks a flawed row *of the same stratum*::

      AUROC_strat = Σ_s AUROC_s · P_s · N_s / Σ_s P_s · N_s

  (``P_s`` valid and ``N_s`` flawed rows in stratum ``s``; a stratum with one class only carries no pair). The
  unweighted mean of the per-stratum AUROCs is returned beside it (``mean``). A reward that only learned length
  scores 0.5 here, whatever its plain AUROC.
* **Groups without learning signal** (:func:`groups_without_signal`): GRPO's advantage is ``r - mean(group)``; a
  group (rows with the same prompt) whose scored rewards do not differ (``max - min <= tol``), or with fewer than
  two scored rewards, teaches nothing. Groups of one row are counted apart (``singletons``), not as groups.
* **Pay** (:func:`pay_summary`, :func:`pay_histogram`, :func:`text_histogram`): "paid in full" means at least the
  reward's ceiling (:func:`full_pay_ceiling`: 1, or what a fully verified one-step derivation earns for a reward
  that never reaches 1, such as ``rafs_reward``), "paid 0" means at most ``tol``; ``None`` (unscorable) is counted
  apart and in neither.
* **Reasons** (:func:`reason_template`, :func:`shortfall_reasons`, :func:`common_reasons`): why a completion is not
  paid in full, grouped by a template with the numbers replaced by ``N``.

>>> y = [True, True, False, False]
>>> auroc(y, [0.9, 0.5, 0.5, 0.1])
0.875
>>> stratified_auroc(y, [1.0, 0.0, 0.0, 1.0], [0, 1, 1, 0])["pooled"]
0.5
>>> groups_without_signal(["a", "a", "b", "b", "c"], [1.0, 1.0, 0.0, 0.5, 1.0])["without_signal"]
1
>>> reason_template("suspect step 3: states 105, 112, 119 without an equation")
'suspect step N: states N, … without an equation'
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Any, Callable, Hashable, Iterable, Sequence

import numpy as np

from rewards.adapters.evaluation.bootstrap import bootstrap_weights, percentile_ci, weighted_auroc

__all__ = ["TOL", "PROBE", "auroc", "auroc_with_ci", "length_strata", "stratified_auroc", "groups_without_signal",
           "full_pay_ceiling", "pay_summary", "pay_histogram", "text_histogram", "reason_template",
           "WARM_UP", "warm_up", "shortfall_cause", "shortfall_reasons", "common_reasons"]

TOL = 1e-9
"""Two rewards closer than this are equal; a reward at most this is "paid 0"."""

PROBE = ("Tom has 3 boxes of 4 pens. How many pens does he have?", "3 * 4 = 12 pens.\n\nThe answer is \\boxed{12}.",
         "12")
"""``(problem, completion, gold)``: a fully verified one-step derivation, the probe of :func:`full_pay_ceiling`."""


WARM_UP = ("What is $\\sqrt{8}/2$?",
           "$\\sqrt{8} = 2\\sqrt{2}$, so $\\sqrt{8}/2 = \\sqrt{2}$. The answer is $\\boxed{\\sqrt{2}}$.", "\\sqrt{2}")
"""``(problem, completion, gold)`` with a LaTeX answer: scoring it loads math-verify and sympy (about a second)."""


def warm_up(rewards: Iterable[Callable[..., list[float | None]]]) -> None:
    """Call each reward once on :data:`WARM_UP`, so that the lazy imports of the answer checks (math-verify, sympy)
    are not timed as the cost of the first completion that needs them.

    >>> from rewards import rafs_reward
    >>> warm_up([rafs_reward])
    """
    problem, completion, gold = WARM_UP
    for reward in rewards:
        reward(prompts=[problem], completions=[completion], answer=[gold])


def _clean(positive: Sequence[bool], scores: Sequence[float | None]) -> tuple[np.ndarray, np.ndarray]:
    """The rows with a score (``None`` and NaN dropped) as ``(labels, scores)`` arrays."""
    keep = [(bool(p), float(s)) for p, s in zip(positive, scores) if s is not None and not math.isnan(float(s))]
    if not keep:
        return np.zeros(0, bool), np.zeros(0, float)
    y, s = zip(*keep)
    return np.asarray(y, bool), np.asarray(s, float)


def auroc(positive: Sequence[bool], scores: Sequence[float | None]) -> float | None:
    """``roc_auc_score(positive, scores)`` over the rows with a score; ``None`` without both classes.

    >>> auroc([True, False, True], [1.0, 0.0, None]), auroc([True, True], [0.2, 0.3])
    (1.0, None)
    """
    y, s = _clean(positive, scores)
    if y.all() or not y.any():
        return None
    from sklearn.metrics import roc_auc_score

    return float(roc_auc_score(y, s))


def auroc_with_ci(positive: Sequence[bool], scores: Sequence[float | None], *, resamples: int = 1000, seed: int = 0,
                  level: float = 0.95) -> tuple[float | None, list[float] | None]:
    """:func:`auroc` with its percentile bootstrap interval: the rows with a score resampled jointly ``resamples``
    times (``numpy.random.default_rng(seed)``; a resample holding one class only is left out), rounded to 4
    decimals. ``(None, None)`` without both classes; the interval is ``None`` when fewer than 10 resamples hold both.

    >>> point, ci = auroc_with_ci([True] * 20 + [False] * 20, list(range(40)), resamples=200)
    >>> point, ci[0] <= point <= ci[1]
    (0.0, True)
    """
    point = auroc(positive, scores)
    if point is None:
        return None, None
    y, s = _clean(positive, scores)
    W = bootstrap_weights(len(y), resamples=resamples, seed=seed)
    return point, percentile_ci(weighted_auroc(W, y, s), level)


def length_strata(lengths: Sequence[float], k: int = 5) -> list[int]:
    """The stratum (0 … k-1, shortest first) of each row: rows ranked by length (ties kept in row order) and cut into
    ``k`` strata of equal size (sizes differ by at most one; ``numpy.array_split``).

    >>> length_strata([50, 10, 40, 20, 30], k=5)
    [4, 0, 3, 1, 2]
    >>> length_strata([3, 1, 2, 4], k=2)
    [1, 0, 0, 1]
    """
    if k < 1:
        raise ValueError(f"k={k!r}: the number of strata must be at least 1")
    order = np.argsort(np.asarray(lengths, float), kind="stable")
    out = np.zeros(len(order), int)
    for stratum, rows in enumerate(np.array_split(order, min(k, max(len(order), 1)))):
        out[rows] = stratum
    return out.tolist()


def stratified_auroc(positive: Sequence[bool], scores: Sequence[float | None],
                     strata: Sequence[Hashable]) -> dict[str, Any]:
    """AUROC within strata (module docstring): ``pooled`` (each stratum weighted by its valid × flawed pairs),
    ``mean`` (the unweighted mean over the strata that hold both classes) and ``per_stratum`` (``None`` for a
    stratum with one class); rows without a score are left out.

    >>> r = stratified_auroc([True, False, True, False, True], [0.9, 0.1, 0.2, 0.8, 0.5], [0, 0, 1, 1, 1])
    >>> r["per_stratum"], r["pooled"], r["mean"]
    ([1.0, 0.0], 0.3333, 0.5)
    """
    labels = list(dict.fromkeys(strata))
    per, num, den = [], 0.0, 0.0
    for label in labels:
        rows = [(p, s) for p, s, g in zip(positive, scores, strata) if g == label]
        value = auroc([p for p, _ in rows], [s for _, s in rows])
        per.append(None if value is None else round(value, 4))
        if value is not None:
            y, _ = _clean([p for p, _ in rows], [s for _, s in rows])
            pairs = float(y.sum() * (~y).sum())
            num, den = num + value * pairs, den + pairs
    defined = [v for v in per if v is not None]
    return {"pooled": round(num / den, 4) if den else None,
            "mean": round(sum(defined) / len(defined), 4) if defined else None,
            "per_stratum": per}


def groups_without_signal(keys: Sequence[Hashable], rewards: Sequence[float | None], *,
                          tol: float = TOL) -> dict[str, Any]:
    """GRPO groups (rows sharing a key: the prompt) whose rewards carry no learning signal: fewer than two scored
    rewards, or all within ``tol`` of each other. Keys seen once are ``singletons``, not groups; ``share`` is
    ``without_signal / groups`` (``None`` without a group).

    >>> groups_without_signal(["p", "p", "q", "q", "q"], [0.5, 0.5, 1.0, None, 0.0])
    {'groups': 2, 'without_signal': 1, 'share': 0.5, 'singletons': 0}
    """
    members: dict[Hashable, list[float | None]] = {}
    for key, reward in zip(keys, rewards):
        members.setdefault(key, []).append(reward)
    groups = [v for v in members.values() if len(v) >= 2]
    flat = 0
    for values in groups:
        scored = [float(v) for v in values if v is not None and not math.isnan(float(v))]
        flat += len(scored) < 2 or max(scored) - min(scored) <= tol
    return {"groups": len(groups), "without_signal": flat,
            "share": round(flat / len(groups), 4) if groups else None,
            "singletons": len(members) - len(groups)}


def full_pay_ceiling(reward: Callable[..., list[float | None]]) -> float:
    """What "paid in full" means for ``reward`` (a TRL reward function): 1, or less when a fully verified one-step
    derivation (:data:`PROBE`) earns less (``rafs_reward``'s ``RAFS/100`` does: ``P_R`` of a verified step is
    0.98); 1 when the probe is unscorable (``None``, e.g. a group component with one completion).

    >>> from rewards import faithful_accuracy_reward, rafs_reward
    >>> full_pay_ceiling(faithful_accuracy_reward), full_pay_ceiling(rafs_reward) < 1
    (1.0, True)
    """
    problem, completion, gold = PROBE
    value = reward(prompts=[problem], completions=[completion], answer=[gold])[0]
    if value is None or math.isnan(float(value)) or float(value) <= 0:
        return 1.0
    return min(1.0, float(value))


def pay_summary(values: Sequence[float | None], ceiling: float = 1.0, *, tol: float = TOL) -> dict[str, Any]:
    """Counts and shares of ``values``: ``n``, ``none`` (unscorable), ``full`` (at least ``ceiling - tol``),
    ``zero`` (at most ``tol``), their shares of ``n``, and the ``mean`` / ``median`` of the scored values.

    >>> s = pay_summary([1.0, 0.5, 0.0, None])
    >>> s["full"], s["zero"], s["none"], s["full_share"], s["mean"]
    (1, 1, 1, 0.25, 0.5)
    """
    scored = [float(v) for v in values if v is not None and not math.isnan(float(v))]
    n = len(values)
    full = sum(v >= ceiling - tol for v in scored)
    zero = sum(v <= tol for v in scored)
    share = (lambda c: round(c / n, 4) if n else None)
    return {"n": n, "none": n - len(scored), "full": full, "zero": zero, "full_share": share(full),
            "zero_share": share(zero), "none_share": share(n - len(scored)),
            "mean": round(float(np.mean(scored)), 4) if scored else None,
            "median": round(float(np.median(scored)), 4) if scored else None}


def pay_histogram(values: Sequence[float | None], bins: int = 10, lo: float = 0.0, hi: float = 1.0) -> dict[str, Any]:
    """Counts of the scored ``values`` in ``bins`` equal bins over ``[lo, hi]`` (the last bin closed; values outside
    are clipped into the end bins) and the number of ``None``.

    >>> pay_histogram([0.0, 0.05, 0.5, 1.0, None], bins=4)
    {'edges': [0.0, 0.25, 0.5, 0.75, 1.0], 'counts': [2, 0, 1, 1], 'none': 1}
    """
    scored = np.asarray([float(v) for v in values if v is not None and not math.isnan(float(v))], float)
    counts, edges = np.histogram(np.clip(scored, lo, hi), bins=bins, range=(lo, hi))
    return {"edges": [round(float(e), 6) for e in edges], "counts": counts.astype(int).tolist(),
            "none": int(len(values) - len(scored))}


def text_histogram(hist: dict[str, Any], width: int = 40) -> str:
    """A histogram of :func:`pay_histogram` as text: one line per bin, ``[lo, hi)`` then a bar of ``#`` scaled to
    ``width`` and the count; a last line for the unscorable (``None``) ones when there are any.

    >>> print(text_histogram({"edges": [0.0, 0.5, 1.0], "counts": [1, 2], "none": 0}, width=4))
    [0.00, 0.50)  ##    1
    [0.50, 1.00]  ####  2
    """
    counts, edges = hist["counts"], hist["edges"]
    top = max([*counts, hist.get("none", 0), 1])
    digits = len(str(top))
    lines = []
    for i, c in enumerate(counts):
        close = "]" if i == len(counts) - 1 else ")"
        bar = "#" * round(width * c / top)
        lines.append(f"[{edges[i]:.2f}, {edges[i + 1]:.2f}{close}  {bar:<{width}}  {c:>{digits}}")
    if hist.get("none"):
        bar = "#" * round(width * hist["none"] / top)
        lines.append(f"{'None (unscorable)':<12}  {bar:<{width}}  {hist['none']:>{digits}}")
    return "\n".join(lines)


_NUMBER = re.compile(r"(?<![A-Za-z_])[-−]?\d+(?:[.,]\d+)*(?:/\d+)?")
_STEP_LIST = re.compile(r"N \(step N\)(?:, N \(step N\))+")
_LIST = re.compile(r"\bN(?:, N)+")
_MAX_TEMPLATE = 140


def reason_template(reason: str) -> str:
    """``reason`` with every number replaced by ``N`` and lists of them collapsed (``N, …``,
    ``N (step N), …``), cut to 140 characters: the key that groups reasons of the same kind.

    >>> reason_template("ungrounded quantity feeds the answer: 9 (step 3), 108 (step 3)")
    'ungrounded quantity feeds the answer: N (step N), …'
    >>> reason_template("the derivation uses 3 of the problem's 5 stated quantities")
    "the derivation uses N of the problem's N stated quantities"
    """
    text = " ".join(str(reason).split())
    text = _NUMBER.sub("N", text)
    text = _STEP_LIST.sub("N (step N), …", text)
    text = _LIST.sub("N, …", text)
    return text if len(text) <= _MAX_TEMPLATE else text[:_MAX_TEMPLATE - 1] + "…"


def shortfall_cause(result: Any, *, correct: bool | None = None) -> str:
    """The one structural cause of a completion not being paid in full, first that applies: ``answer judged wrong``
    (``correct`` false), ``abstained`` (nothing checkable), ``suspect step`` (a step check below θ),
    ``not supported`` (no verified derivation from the problem's quantities reaches the answer), else
    ``supported, no suspect step`` (a component below its maximum).

    >>> from rewards import score_trace
    >>> shortfall_cause(score_trace("Tom has 3 boxes of 4 pens.", "3 * 4 = 13 pens.\\n#### 13"))
    'suspect step'
    """
    if correct is False:
        return "answer judged wrong"
    if getattr(result, "status", None) == "abstain":
        return "abstained"
    if getattr(result, "suspect_step", None) is not None:
        return "suspect step"
    if not getattr(result, "supported", None):
        return "not supported"
    return "supported, no suspect step"


def shortfall_reasons(result: Any, *, correct: bool | None = None) -> list[str]:
    """The distinct reason templates of a scored completion (a :class:`~rewards.scoring.score.RAFSResult`) that is
    not paid in full: its ``reasons``, ``answer judged wrong`` when ``correct`` is false, and, when it gives none,
    ``no reason listed (components below 1: …)`` naming the components under 0.99.

    >>> from rewards import score_trace
    >>> shortfall_reasons(score_trace("Tom has 3 boxes of 4 pens.", "Tom has 13 pens.\\n#### 13"))
    ['nothing checkable: no equation in any step and no samples to compare']
    """
    found = [reason_template(r) for r in (getattr(result, "reasons", None) or [])]
    if correct is False:
        found.insert(0, "answer judged wrong")
    if not found:
        low = [m for m, v in (getattr(result, "components", None) or {}).items() if v is not None and v < 0.99]
        found.append(f"no reason listed (components below 1: {', '.join(low) or 'none'})")
    return list(dict.fromkeys(found))


def common_reasons(reason_lists: Iterable[Sequence[str]], top: int = 10) -> list[dict[str, Any]]:
    """The ``top`` most common templates over completions (each counted once per completion), most common first
    (ties by template text): ``{"reason", "count", "share"}`` with ``share`` of the completions given.

    >>> common_reasons([["a", "b"], ["a"], []], top=1)
    [{'reason': 'a', 'count': 2, 'share': 0.6667}]
    """
    lists = [list(dict.fromkeys(r)) for r in reason_lists]
    counts = Counter(t for r in lists for t in r)
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:top]
    return [{"reason": t, "count": c, "share": round(c / len(lists), 4)} for t, c in ranked]
