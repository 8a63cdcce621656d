"""``rafs eval DATA [--json OUT.json] [--markdown OUT.md] [--calibrate-on OTHER] [--num-proc N] [--force]``:
evaluate RAFS against human step labels (ProcessBench format: ``problem``, ``steps``, ``label``,
``final_answer_correct``).

Reports ProcessBench's metric (the suspect step as the predicted earliest error: acc_erroneous, acc_correct, F1),
silent-failure detection among correct final answers (AUPRC/AUROC of 100 − RAFS, per component and against
baselines), accuracy vs faithful accuracy, a threshold sweep, a per-generator breakdown and the misses by kind of
error, each figure with a seeded bootstrap interval. ``--calibrate-on`` chooses θ on another split and reports this
one at it (never tune on the split you report). Without --json/--markdown a summary table is printed.
DATA may be a JSON array, JSON Lines, CSV or parquet (:mod:`trainers.common.readers`); ``--problem-col`` / ``--steps-col``
name other columns. The scorer's settings come from ``--config FILE`` and ``--rafs.FIELD VALUE`` flags
(:mod:`trainers.common.config`). ``--json`` / ``--markdown`` are written atomically, never over a file without ``--force``.
See docs/evaluation.md.

Example: ``rafs eval ../shared/data/processbench/gsm8k.json --calibrate-on ../shared/data/processbench/math.json
--json gsm8k.json --markdown gsm8k.md``
"""

from __future__ import annotations

import argparse
import json
import os


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("eval", help="evaluate RAFS against step labels (ProcessBench format)",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("data", help="ProcessBench-format rows: a JSON array, JSONL, CSV or parquet file")
    p.add_argument("--json", dest="json_out", metavar="OUT.json", help="write the full report as JSON")
    p.add_argument("--markdown", dest="markdown_out", metavar="OUT.md", help="write the report as Markdown")
    p.add_argument("--calibrate-on", metavar="OTHER_DATA", help="choose θ on this split (highest F1 if beyond noise "
                   "over the default) and report DATA at it")
    p.add_argument("--num-proc", "--workers", dest="num_proc", type=int, default=1, metavar="N",
                   help="worker processes for scoring (default 1)")
    p.add_argument("--seed", type=int, default=0, help="seed of the bootstrap and the random baseline (default 0)")
    p.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples (default 1000, at least 1000)")
    p.add_argument("--limit", type=int, default=None, metavar="N", help="evaluate only the first N rows")
    p.add_argument("--force", action="store_true", help="overwrite --json/--markdown outputs that exist")
    p.add_argument("--no-detector-ablation", dest="detector_ablation", action="store_false",
                   help="skip re-scoring with each claim checker left out (the 'step_detectors' section)")
    from rewards.verifiers.registry import add_verifier_arguments
    from trainers.common.config import add_config_arguments
    from trainers.common.readers import add_reader_arguments

    add_reader_arguments(p, layouts=("problem_steps",), columns=("problem", "steps"))
    add_verifier_arguments(p)
    add_config_arguments(p)
    return p


def _load(path: str, limit, what: str, spec):
    """ProcessBench rows of ``path`` (any format of :mod:`trainers.common.readers`, the problem and steps columns named by
    the layout flags), validated by :func:`rewards.adapters.evaluation.validate_rows`."""
    from rewards.adapters.evaluation import validate_rows
    from trainers.cli import CommandError
    from trainers.common.readers import read_items

    rows = []
    for row, item in read_items(path, spec, what=what):
        row = {**row, "problem": item.problem, "steps": item.steps}
        for key, parse in (("label", _int_text), ("final_answer_correct", _bool_text)):
            if isinstance(row.get(key), str):  # a CSV cell
                row[key] = parse(row[key])
        rows.append(row)
        if limit is not None and len(rows) >= limit:
            break
    try:
        return validate_rows(rows, source=path)
    except ValueError as exc:
        raise CommandError(" ".join(str(exc).split())) from None


def _int_text(text: str):
    try:
        return int(text.strip())
    except ValueError:
        return text


def _bool_text(text: str):
    return {"true": True, "false": False}.get(text.strip().lower(), text)


def run(args: argparse.Namespace) -> int:
    from trainers.cli import CommandError

    if args.num_proc < 1:
        raise CommandError(f"--num-proc {args.num_proc} must be >= 1")
    if args.resamples < 1000:
        raise CommandError(f"--resamples {args.resamples} is too few for a 95% interval; use 1000 or more")
    if args.limit is not None and args.limit < 1:
        raise CommandError(f"--limit {args.limit} must be >= 1")
    from trainers.cli import check_output_file
    from trainers.common.config import config_from_args
    from trainers.common.readers import spec_from_args

    if args.json_out and args.markdown_out and os.path.abspath(args.json_out) == os.path.abspath(args.markdown_out):
        raise CommandError(f"--json and --markdown name the same file {args.json_out!r}; give two paths")
    check_output_file(args.json_out, force=args.force, flag="--json")
    check_output_file(args.markdown_out, force=args.force, flag="--markdown")
    spec = spec_from_args(args, allowed=("problem_steps",), layout="problem_steps")
    config = config_from_args(args)
    rows = _load(args.data, args.limit, "DATA", spec)
    cal = _load(args.calibrate_on, None, "--calibrate-on", spec) if args.calibrate_on else None

    from rewards.adapters.evaluation import evaluate, to_markdown
    from rewards.verifiers.registry import verifier_from_args

    try:
        verifier = None if args.verifier == "symbolic" else verifier_from_args(args)
    except (ValueError, OSError) as exc:
        raise CommandError(" ".join(str(exc).split())) from None
    report = evaluate(rows, config=config, calibration_rows=cal, source=args.data, calibration_source=args.calibrate_on,
                      resamples=args.resamples, seed=args.seed, num_proc=args.num_proc, progress=None,
                      verifier=verifier, detector_ablation=args.detector_ablation)
    report.setdefault("meta", {})["verifier"] = args.verifier
    report["meta"]["scorer_version"] = _scorer_version(config, args.verifier)
    if args.json_out:
        _write(args.json_out, json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    if args.markdown_out:
        _write(args.markdown_out, to_markdown(report))
    if not args.json_out and not args.markdown_out:
        print_summary(report)
    else:
        written = ", ".join(p for p in (args.json_out, args.markdown_out) if p)
        print(f"rafs eval: F1={report['f1']} acc_erroneous={report['acc_erroneous']} "
              f"acc_correct={report['acc_correct']} (θ={report['meta']['theta']}); wrote {written}")
    return 0


def _write(path: str, text: str) -> None:
    from trainers.cli import CommandError, atomic_write

    try:
        atomic_write(path, text)
    except OSError as exc:
        raise CommandError(f"cannot write {path!r}: {exc.strerror or exc}") from None


def print_summary(report, console=None) -> None:
    """A rich table of the headline figures, the silent-failure detection per detector and the misses by kind."""
    from rich.table import Table

    from rewards.adapters.evaluation.markdown import number_ci  # "0.712 [0.650, 0.770]"
    from trainers.cli import rich_console

    console = console or rich_console()  # a closed pipe (rafs eval … | head) exits 141 quietly
    meta, sf = report["meta"], report["silent_failure"]
    head = Table(title=f"rafs eval — {meta.get('source')} (n={report['n']}, θ={meta['theta']}, "
                       f"{meta['theta_source']})")
    head.add_column("figure")
    head.add_column("value [95% CI]", justify="right")
    for key in ("acc_erroneous", "acc_correct", "f1", "abstain_rate", "accuracy", "faithful_accuracy",
                "labelled_faithful_accuracy"):
        head.add_row(key, number_ci(report, key))
    head.add_row("silent_failure n / n_pos", f"{sf['n']} / {sf['n_pos']}")
    head.add_row("silent_failure auprc", number_ci(sf, "auprc"))
    head.add_row("silent_failure auroc", number_ci(sf, "auroc"))
    console.print(head)
    abl = Table(title="silent-failure detection by detector")
    for col in ("detector", "AUPRC", "AUROC", "F1"):
        abl.add_column(col, justify="left" if col == "detector" else "right")
    for name, entry in report["ablations"].items():
        s = entry["silent_failure"]
        abl.add_row(name, number_ci(s, "auprc"), number_ci(s, "auroc"), number_ci(entry, "f1"))
    console.print(abl)
    miss = Table(title=f"misses by kind of labelled step ({report['misses']['n_missed']} of "
                       f"{report['misses']['n_erroneous']} erroneous rows)")
    for col in ("kind", "rows", "caught", "missed"):
        miss.add_column(col, justify="left" if col == "kind" else "right")
    for kind, k in report["misses"]["kinds"].items():
        miss.add_row(kind, str(k["n"]), str(k["caught"]), str(k["missed"]))
    console.print(miss)
    console.print(f"θ: {report['threshold']['reason']}")


def _scorer_version(config, verifier: str) -> str:
    """The scorer's version for the report (:func:`rewards.adapters.reward_version.reward_version`)."""
    from dataclasses import asdict

    from rewards.adapters.reward_version import reward_version

    return reward_version("rafs_eval", {"config": None if config is None else asdict(config), "verifier": verifier})
