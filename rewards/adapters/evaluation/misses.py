"""Where the scorer fails: the labelled wrong steps it misses, by kind of step, and its false alarms.

The kind of a labelled wrong step comes from the equations it states (:mod:`rewards.checks.arithmetic`):
``false_calculation`` (some equation evaluates false), ``no_equation``, ``equation_holds`` (some holds, none
false) or ``equation_not_checkable``. A model-free checker can only catch the first kind at the step itself.

>>> rows = [{"id": "a", "steps": ["3 * 4 = 13 pens."]}, {"id": "b", "steps": ["He buys more pens."]}]
>>> m = misses(rows, labels=[0, 0], preds=[0, -1], scored=[None, None])
>>> m["kinds"]["false_calculation"]["caught"], m["kinds"]["no_equation"]["missed_no_flag"], m["n_missed"]
(1, 1, 1)
"""

from __future__ import annotations

from typing import Any, Sequence

from rewards.adapters.evaluation.bootstrap import rounded

__all__ = ["MISS_KINDS", "classify_step", "misses", "shorten"]

MISS_KINDS = ("false_calculation", "no_equation", "equation_holds", "equation_not_checkable")


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


def shorten(text: str, n: int = 160) -> str:
    """``text`` on one line, cut to ``n`` characters with an ellipsis.

    >>> shorten("a   b\\nc", 10), shorten("x" * 12, 5)
    ('a b c', 'xxxx…')
    """
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[: n - 1] + "…"


def misses(rows: Sequence[dict], labels, preds, scored, examples: int = 3) -> dict[str, Any]:
    """Per kind of labelled wrong step: rows, caught, missed (no flag / flagged earlier / flagged later), share of
    the erroneous rows, recall and up to ``examples`` missed rows; then the false alarms on correct rows with the
    scorer's reasons (``scored[i].reasons``)."""
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
                                  "predicted": int(pred), "step": shorten(row["steps"][label]),
                                  "check": shorten(detail, 120)})
    n_err = sum(k["n"] for k in kinds.values())
    for k in kinds.values():
        k["share_of_erroneous"] = rounded(k["n"] / n_err) if n_err else None
        k["recall"] = rounded(k["caught"] / k["n"]) if k["n"] else None
    false_alarms = []
    n_fa = 0
    for row, label, pred, r in zip(rows, labels, preds, scored):
        if label == -1 and pred != -1:
            n_fa += 1
            if len(false_alarms) < examples:
                why = r.reasons[pred] if pred < len(r.reasons) else []
                false_alarms.append({"id": row.get("id"), "generator": row.get("generator"), "predicted": int(pred),
                                     "step": shorten(row["steps"][pred]), "reasons": [shorten(x, 120) for x in why]})
    return {"n_erroneous": n_err, "n_missed": sum(k["missed"] for k in kinds.values()), "kinds": kinds,
            "false_alarms": {"n": n_fa, "examples": false_alarms}}
