"""The evaluation report as a Markdown page: every fraction ×100 with its 95% bootstrap interval in brackets.

>>> percent(0.18421), percent(None)
('18.4', '—')
>>> percent_ci({"f1": 0.1842, "f1_ci": [0.12, 0.25]}, "f1")
'18.4 [12.0, 25.0]'
>>> number_ci({"auroc": 0.71234, "auroc_ci": None}, "auroc")
'0.712'
"""

from __future__ import annotations

import os
from typing import Any, Mapping

from rewards.adapters.evaluation.leaderboard import leaderboard_markdown

__all__ = ["to_markdown", "percent", "percent_ci", "number_ci"]


def percent(x) -> str:
    """A fraction ×100 with one decimal; ``—`` when missing."""
    return "—" if x is None else f"{100 * x:.1f}"


def percent_ci(report: Mapping[str, Any], key: str) -> str:
    """``report[key]`` ×100 with its ``<key>_ci`` interval in brackets (when there is one)."""
    x, ci = report.get(key), report.get(key + "_ci")
    if x is None:
        return "—"
    return percent(x) + (f" [{percent(ci[0])}, {percent(ci[1])}]" if ci else "")


def number_ci(d: Mapping[str, Any], key: str) -> str:
    """``d[key]`` with three decimals and its ``<key>_ci`` interval in brackets (when there is one)."""
    x, ci = d.get(key), d.get(key + "_ci")
    if x is None:
        return "—"
    return f"{x:.3f}" + (f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "")


def _base(path: str | None) -> str:
    return os.path.basename(path) if path else "the given rows"


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def to_markdown(report: Mapping[str, Any]) -> str:
    """The report of :func:`rewards.adapters.evaluation.report.evaluate` as a Markdown page (percentages ×100 with
    95% bootstrap intervals in brackets).

    >>> from rewards.adapters.evaluation.report import evaluate
    >>> rows = [{"problem": "Tom has 3 boxes of 4 pens.", "steps": ["3 * 4 = 13 pens."], "label": 0,
    ...          "final_answer_correct": False},
    ...         {"problem": "Tom has 3 boxes of 4 pens.", "steps": ["3 * 4 = 12 pens."], "label": -1,
    ...          "final_answer_correct": True}]
    >>> page = to_markdown(evaluate(rows, progress=False, detector_ablation=False))
    >>> page.splitlines()[0], "| 2 | 1 | 1 | 100.0" in page
    ('# RAFS on the given rows', True)
    """
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
         f"| {report['n']} | {report['n_erroneous']} | {report['n_correct']} | {percent_ci(report, 'acc_erroneous')} | "
         f"{percent_ci(report, 'acc_correct')} | {percent_ci(report, 'f1')} | {percent_ci(report, 'abstain_rate')} |",
         ""]
    L += leaderboard_markdown(percent(report["f1"]), meta.get("split"), meta.get("source"))
    L += ["", "## Silent-failure detection (rows whose final answer is correct)", "",
          f"{sf['n']} rows, {sf['n_pos']} with a labelled wrong step (prevalence {percent(sf['prevalence'])}%). "
          "Detector: (100 − RAFS)/100, an abstention scores 0.5; a component m: 1 − m, missing → 0.5. "
          "AUPRC of a detector without skill equals the prevalence; AUROC 0.5.", "",
          "| detector | AUPRC | AUROC | acc. erroneous | acc. correct | F1 |", "|---|---|---|---|---|---|"]
    for name, entry in report["ablations"].items():
        s = entry["silent_failure"]
        avail = "" if "available" not in entry else f" (available {percent(entry['available'])}%)"
        L.append(f"| {name}{avail} | "
                 f"{number_ci(s, 'auprc')} | {number_ci(s, 'auroc')} | {percent_ci(entry, 'acc_erroneous')} | "
                 f"{percent_ci(entry, 'acc_correct')} | {percent_ci(entry, 'f1')} |")
    L += ["", f"Flagged (any suspect step) among silent failures: {percent_ci(sf, 'flag_recall')}%; among faithful "
          f"successes: {percent_ci(sf, 'flag_false_positive_rate')}%.", ""]
    det = report.get("step_detectors")
    if det:
        L += ["## Step detectors: which check finds the errors", "",
              "The ProcessBench metric re-scored with each claim checker of `rewards.checks.claims` left out, and "
              "with none (the per-equation arithmetic and identity checks alone), at the same θ. Hits lost: rows "
              "whose earliest error only the full scorer finds.", "",
              "| variant | acc. erroneous | acc. correct | F1 | hits lost | hits gained | false alarms |",
              "|---|---|---|---|---|---|---|",
              f"| full scorer ({', '.join(det['checkers']) or 'no claim checkers'}) | "
              f"{percent_ci(det['full'], 'acc_erroneous')} | {percent_ci(det['full'], 'acc_correct')} | "
              f"{percent_ci(det['full'], 'f1')} | — | — | {report['misses']['false_alarms']['n']} |"]
        for name, e in det.items():
            if name in ("checkers", "full"):
                continue
            L.append(f"| {name} | {percent_ci(e, 'acc_erroneous')} | {percent_ci(e, 'acc_correct')} | "
                     f"{percent_ci(e, 'f1')} | {e['hits_lost']} | {e['hits_gained']} | {e['false_alarms']} |")
        L.append("")
    L += ["## H1: accuracy vs faithful accuracy", "",
          "| accuracy | faithful accuracy (RAFS: correct, no suspect step, not abstained) | "
          "labelled faithful accuracy (correct and label = −1) |", "|---|---|---|",
          f"| {percent_ci(report, 'accuracy')} | {percent_ci(report, 'faithful_accuracy')} | "
          f"{percent_ci(report, 'labelled_faithful_accuracy')} |", "",
          "## Threshold θ", "", f"Chosen θ = {thr['chosen']} — {thr['reason']}.", ""]
    cal = thr.get("calibration")
    if cal:
        L += [f"| θ | F1 on {_base(cal['source'])} (calibration) | F1 on {_base(meta.get('source'))} (reported) |",
              "|---|---|---|"]
        for c, s in zip(cal["sweep"], thr["sweep"]):
            L.append(f"| {c['theta']} | {percent(c['f1'])} | {percent_ci(s, 'f1')} |")
    else:
        L += ["| θ | F1 (this split, descriptive) | acc. erroneous | acc. correct |", "|---|---|---|---|"]
        for s in thr["sweep"]:
            L.append(f"| {s['theta']} | {percent_ci(s, 'f1')} | {percent(s['acc_erroneous'])} | "
                     f"{percent(s['acc_correct'])} |")
    L += ["", "## Per generator", "", "| generator | n | acc. erroneous | acc. correct | F1 |", "|---|---|---|---|---|"]
    for g, d in report["per_generator"].items():
        L.append(f"| {g} | {d['n']} | {percent_ci(d, 'acc_erroneous')} | {percent_ci(d, 'acc_correct')} | "
                 f"{percent_ci(d, 'f1')} |")
    mi = report["misses"]
    L += ["", "## Where it fails, by kind of labelled wrong step", "",
          f"{mi['n_missed']} of {mi['n_erroneous']} erroneous rows missed (predicted step ≠ label). Kind of the "
          "labelled step from `rewards.checks.arithmetic.check_equation` over the equations it states.", "",
          "| kind | rows | caught | missed | of which: no flag / flagged earlier / later |", "|---|---|---|---|---|"]
    for kind, k in mi["kinds"].items():
        L.append(f"| {kind} | {k['n']} ({percent(k['share_of_erroneous'])}%) | {k['caught']} | {k['missed']} | "
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
