"""``rafs screen``: screen (correct, confidence) data from a CSV for validity.

Usage::

    rafs screen DATA.csv --correct-col COL --confidence-col COL [--group-col COL] [--threshold median|X]
                [--json OUT.json] [--markdown OUT.md] [--plot OUT.png]

Prints a rich table to stdout (unless ``--json -`` sends the JSON there), writes the JSON list (one object per
group), the Markdown VRS report and the figure where asked. Bad input gives one line on stderr,
``rafs screen: error: ...``, and exit code 2. ``--fail-on invalid`` makes the exit code 3 when any group is Invalid
(for CI scripts). Nothing heavy is imported until :func:`run`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

__all__ = ["add_parser", "run", "build_parser", "main"]

PROG = "rafs screen"


def _configure(p: argparse.ArgumentParser) -> argparse.ArgumentParser:
    p.add_argument("data", metavar="DATA.csv", help="CSV with one row per item")
    p.add_argument("--correct-col", required=True, metavar="COL",
                   help="correctness column: true/false, 1/0 or booleans")
    p.add_argument("--confidence-col", required=True, metavar="COL",
                   help="confidence column: numbers in [0,1] or [0,100], KEEP/WITHDRAW, BET/NO BET, true/false")
    p.add_argument("--group-col", action="append", default=None, metavar="COL",
                   help="screen each group separately (per model, checkpoint, domain); repeat for several columns")
    p.add_argument("--threshold", default="median", metavar="median|X",
                   help="binarise numeric confidence at each group's median (default; high means >= median) or "
                        "at a fixed X in [0,1] (or a percentage in (1,100])")
    p.add_argument("--scale", choices=("auto", "unit", "percent", "binary"), default="auto",
                   help="how to read numeric confidence (default: detect)")
    p.add_argument("--json", metavar="OUT.json", help="write the JSON list of results ('-' for stdout)")
    p.add_argument("--markdown", metavar="OUT.md", help="write the Markdown VRS report")
    p.add_argument("--plot", metavar="OUT.png", help="write the figure (one group: its VRS figure; several: a "
                                                     "forest plot per index)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    p.add_argument("--n-boot", type=int, default=2000, help="bootstrap resamples (default 2000)")
    p.add_argument("--drop-unparseable", action="store_true",
                   help="drop rows whose values cannot be read (counted in n_dropped) instead of failing")
    p.add_argument("--no-phase-b", action="store_true", help="skip Phase B metrics")
    p.add_argument("--fail-on", choices=("never", "invalid", "indeterminate"), default="never",
                   help="exit 3 when any group is Invalid (or Indeterminate or Invalid)")
    p.set_defaults(func=run)
    return p


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register the ``screen`` subcommand on an argparse ``subparsers`` object and return its parser."""
    p = subparsers.add_parser("screen", help="screen a confidence signal for validity (Phase A + B, VRS report)",
                              description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    return _configure(p)


def build_parser() -> argparse.ArgumentParser:
    """A stand-alone parser with the same arguments (for tests and ``python -m``)."""
    return _configure(argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0]))


def _err(msg: str) -> int:
    print(f"{PROG}: error: {msg}", file=sys.stderr)
    return 2


def _print_table(results: list[Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    colours = {"Valid": "green", "Indeterminate": "yellow", "Invalid": "bold red"}
    t = Table(title="Validity screen", show_lines=False)
    for col in ("group", "n", "acc", "a/b/c/d", "L", "Fp", "RBS", "TRIN", "r", "tier", "style", "AUROC"):
        t.add_column(col, justify="right" if col in ("n", "acc") else "left", no_wrap=col != "group")
    for r in results:
        c = r.cells
        pb = r.phase_b
        t.add_row(str(r.group if r.group is not None else "-"), str(r.n), f"{r.accuracy:.3f}",
                  f"{c.a}/{c.b}/{c.c}/{c.d}", r.L.fmt(), r.Fp.fmt(), r.RBS.fmt(signed=True), f"{r.TRIN.value:.3f}",
                  r.r.fmt(signed=True), f"[{colours.get(r.tier, '')}]{r.tier}[/]", r.response_style,
                  "-" if pb is None else f"{pb.auroc:.3f}")
    probe = Console()
    console = Console(width=probe.width if probe.is_terminal else 220)
    console.print(t)
    for r in results:
        if r.tier != "Valid" or r.warnings:
            name = r.group if r.group is not None else "data"
            for reason in (r.reasons if r.tier != "Valid" else []) + r.warnings:
                console.print(f"  [{colours.get(r.tier, '')}]{name}[/]: {reason}", highlight=False)


def run(args: argparse.Namespace) -> int:
    """Run ``rafs screen`` with parsed arguments; returns the exit code (0 ok, 2 bad input, 3 --fail-on hit)."""
    from trainers.screen import ScreenConfig, ScreenInputError, results_to_json, results_to_markdown, screen_groups

    data = Path(args.data)
    if not data.is_file():
        return _err(f"{data}: no such file")
    for flag in ("json", "markdown", "plot"):
        out = getattr(args, flag, None)
        if out and out != "-" and Path(out).resolve() == data.resolve():
            return _err(f"--{flag} {out} is the input file; choose another output path (the input is never modified)")
    try:
        cfg = ScreenConfig(n_boot=getattr(args, "n_boot", 2000))
        group = getattr(args, "group_col", None)
        if isinstance(group, list) and len(group) == 1:
            group = group[0]
        results = screen_groups(data, args.correct_col, args.confidence_col, group,
                                threshold=getattr(args, "threshold", "median") or "median", config=cfg,
                                seed=getattr(args, "seed", 0), scale=getattr(args, "scale", "auto"),
                                drop_unparseable=getattr(args, "drop_unparseable", False),
                                phase_b=not getattr(args, "no_phase_b", False))
    except ScreenInputError as e:
        msg = str(e)
        if msg.startswith("column "):
            msg = msg.replace(f" {data}", f" {data.name}", 1) if "not in" in msg else f"{data.name}: {msg}"
        return _err(msg)
    except ValueError as e:  # invalid config values, e.g. --n-boot 10
        return _err(str(e))

    json_out = getattr(args, "json", None)
    try:
        if json_out == "-":
            sys.stdout.write(results_to_json(results) + "\n")
        else:
            _print_table(results)
            if json_out:
                results_to_json(results, json_out)
                print(f"wrote {json_out}")
        md = getattr(args, "markdown", None)
        if md:
            Path(md).write_text(results_to_markdown(results), encoding="utf-8")
            print(f"wrote {md}", file=sys.stderr if json_out == "-" else sys.stdout)
        plot = getattr(args, "plot", None)
        if plot:
            from trainers.screen import summary_figure

            fig = results[0].figure() if len(results) == 1 else summary_figure(results)
            fig.savefig(plot, dpi=120)
            print(f"wrote {plot}", file=sys.stderr if json_out == "-" else sys.stdout)
    except OSError as e:
        return _err(f"cannot write output: {e.strerror}: {e.filename}")

    fail_on = getattr(args, "fail_on", "never")
    bad = {"invalid": {"Invalid"}, "indeterminate": {"Invalid", "Indeterminate"}}.get(fail_on, set())
    return 3 if any(r.tier in bad for r in results) else 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return run(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
