"""``rafs screen``: screen (correct, confidence) data from a CSV for validity.

Usage::

    rafs screen DATA.csv --correct-col COL --confidence-col COL [--group-col COL] [--threshold median|X]
                [--json OUT.json] [--markdown OUT.md] [--plot OUT.png] [--force]

Prints a rich table to stdout (unless ``--json -`` sends the JSON there), writes the JSON list (one object per
group), the Markdown VRS report and the figure where asked. The table fits the terminal (or ``COLUMNS``): when
one table is too wide its columns are split over several tables, each led by the group; group names and tiers
are never cut. An existing output file is never replaced without ``--force``, and every file is written
atomically (a temporary file, then a rename). Bad input gives one line on stderr, ``rafs screen: error: ...``,
and exit code 2. ``--fail-on invalid`` makes the exit code 3 when any group is Invalid (for CI scripts).
Nothing heavy is imported until :func:`run`.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
from pathlib import Path
from typing import Any, Callable

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
    p.add_argument("--force", action="store_true",
                   help="replace existing --json/--markdown/--plot files (without it an existing file is an error)")
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
                              description=__doc__.split("\n\n")[0])
    return _configure(p)


def build_parser() -> argparse.ArgumentParser:
    """A stand-alone parser with the same arguments (for tests and ``python -m``)."""
    from trainers.cli import finish_parser

    return finish_parser(_configure(argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n\n")[0])))


def _err(msg: str) -> int:
    print(f"{PROG}: error: {msg}", file=sys.stderr)
    return 2


_COLOURS = {"Valid": "green", "Indeterminate": "yellow", "Invalid": "bold red"}


def _columns(stacked: bool = False) -> list[tuple[str, str, Callable[[Any], str]]]:
    """The table's columns after the group, most important first: (header, justify, cell). ``stacked`` puts
    each interval under its estimate (two lines, 14-16 columns instead of 20-23)."""
    def pb(r: Any) -> str:
        return "-" if r.phase_b is None else f"{r.phase_b.auroc:.3f}"

    def iv(text: str) -> str:
        return text.replace(" [", "\n[", 1) if stacked else text

    return [
        ("n", "right", lambda r: str(r.n)),
        ("acc", "right", lambda r: f"{r.accuracy:.3f}"),
        ("tier", "left", lambda r: f"[{_COLOURS.get(r.tier, '')}]{r.tier}[/]"),
        ("L", "left", lambda r: iv(r.L.fmt())),
        ("Fp", "left", lambda r: iv(r.Fp.fmt())),
        ("RBS", "left", lambda r: iv(r.RBS.fmt(signed=True))),
        ("r", "left", lambda r: iv(r.r.fmt(signed=True))),
        ("style", "left", lambda r: r.response_style),
        ("fragile", "left", lambda r: "yes" if getattr(r, "fragility", None) else "no"),
        ("TRIN", "right", lambda r: f"{r.TRIN.value:.3f}"),
        ("a/b/c/d", "left", lambda r: f"{r.cells.a}/{r.cells.b}/{r.cells.c}/{r.cells.d}"),
        ("AUROC", "right", pb),
    ]


def _group_name(r: Any) -> str:
    return str(r.group if r.group is not None else "-")


def _table(results: list[Any], cols: list[tuple[str, str, Callable[[Any], str]]], title: str | None,
           group_width: int | None) -> Any:
    from rich.table import Table

    t = Table(title=title, show_lines=False)
    # the group folds onto more lines only when it alone is wider than the terminal allows: never cut
    t.add_column("group", justify="left", overflow="fold", max_width=group_width)
    for header, justify, _ in cols:
        t.add_column(header, justify=justify, no_wrap=True)
    for r in results:
        t.add_row(_group_name(r), *[cell(r) for _, _, cell in cols])
    return t


def screen_tables(results: list[Any], width: int, console: Any = None) -> list[Any]:
    """The screen's rich tables for a terminal ``width`` columns wide.

    One table when everything fits; otherwise the columns (in the order of :func:`_columns`: n, acc, tier, the
    indices, style, fragility, TRIN, the cells, AUROC) are packed greedily into several tables of at most
    ``width`` columns, each led by the group. No cell is ever truncated: group names fold onto more lines only
    when a name alone is wider than the room left by n, acc and tier.
    """
    from rich.console import Console
    from rich.measure import Measurement

    probe = Console(width=10_000, file=io.StringIO()) if console is None else console
    options = probe.options.update_width(10_000)

    def natural(cols: list[Any], group_width: int | None) -> int:
        return Measurement.get(probe, options, _table(results, cols, None, group_width)).maximum

    def pack(cols: list[Any]) -> tuple[list[list[Any]], int | None]:
        # the first table always holds n, acc and the tier; the group folds only if it must to fit them
        first = cols[:3]
        group_width = None
        if natural(first, None) > width:
            longest = max(len(_group_name(r)) for r in results)
            group_width = max(8, longest - (natural(first, None) - width))
        tables: list[list[Any]] = [list(first)]
        for col in cols[3:]:
            if natural(tables[-1] + [col], group_width) <= width:
                tables[-1].append(col)
            else:
                tables.append([col])
        return tables, group_width

    # one line per interval when that needs no more tables than stacking each interval under its estimate
    tables, group_width = pack(_columns())
    if len(tables) > 1:
        stacked, stacked_width = pack(_columns(stacked=True))
        if len(stacked) < len(tables):
            tables, group_width = stacked, stacked_width
    title = "Validity screen"
    return [_table(results, t, title if len(tables) == 1 else f"{title} ({i}/{len(tables)})", group_width)
            for i, t in enumerate(tables, 1)]


def _console() -> Any:
    """A console as wide as the terminal, or as ``COLUMNS`` when set; 220 columns when piped without it."""
    from rich.console import Console

    from trainers.cli import rich_console  # a closed pipe (rafs screen … | head) exits 141 quietly

    probe = Console()
    if probe.is_terminal or os.environ.get("COLUMNS", "").strip().isdigit():
        return rich_console(width=probe.width)
    return rich_console(width=220)


def _print_table(results: list[Any], console: Any = None) -> None:
    """Print the screen's table(s) and, under them, the reasons for every tier but Valid, the warnings and the
    fragility notes (an interval that crosses a threshold: the tier could flip with a few more responses)."""
    console = console or _console()
    for table in screen_tables(results, console.width, console):
        console.print(table)
    for r in results:
        name = r.group if r.group is not None else "data"
        colour = _COLOURS.get(r.tier, "")
        for reason in (r.reasons if r.tier != "Valid" else []) + list(r.warnings):
            console.print(f"  [{colour}]{name}[/]: {reason}", highlight=False)
        for note in getattr(r, "fragility", None) or []:
            console.print(f"  [{colour}]{name}[/]: fragile: {note}", highlight=False)


def _write(path: str, data: Any) -> None:
    from trainers.cli import atomic_write

    atomic_write(path, data)


def run(args: argparse.Namespace) -> int:
    """Run ``rafs screen`` with parsed arguments; returns the exit code (0 ok, 2 bad input, 3 --fail-on hit)."""
    from trainers.screen import ScreenConfig, ScreenInputError, results_to_json, results_to_markdown, screen_groups

    data = Path(args.data)
    if data.is_dir():
        return _err(f"DATA.csv {str(data)!r} is a folder; pass one CSV file")
    if not data.is_file():
        return _err(f"{data}: no such file")
    from trainers.cli import CommandError, refuse_overwrite

    outputs = {}
    for flag in ("json", "markdown", "plot"):
        out = getattr(args, flag, None)
        if not out or (flag == "json" and out == "-"):
            continue
        if Path(out).resolve() == data.resolve():
            return _err(f"--{flag} {out} is the input file; choose another output path (the input is never modified)")
        if Path(out).is_dir():
            return _err(f"--{flag} {out} is a folder; give a file name, e.g. {Path(out) / ('screen.' + flag)}")
        if flag == "plot" and Path(out).suffix:
            from matplotlib.figure import Figure

            kinds = Figure().canvas.get_supported_filetypes()
            if Path(out).suffix.lstrip(".").lower() not in kinds:
                return _err(f"--plot {out}: matplotlib cannot write {Path(out).suffix!r} files; use .png, .pdf or "
                            ".svg")
        if Path(out).resolve() in outputs.values():
            return _err(f"--{flag} {out} is also another output's path; give each output its own file")
        try:
            refuse_overwrite(out, force=getattr(args, "force", False), flag=f"--{flag}")
        except CommandError as exc:
            return _err(str(exc))
        outputs[flag] = Path(out).resolve()
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
                _write(json_out, results_to_json(results) + "\n")
                print(f"wrote {json_out}")
        md = getattr(args, "markdown", None)
        if md:
            _write(md, results_to_markdown(results))
            print(f"wrote {md}", file=sys.stderr if json_out == "-" else sys.stdout)
        plot = getattr(args, "plot", None)
        if plot:
            import matplotlib.pyplot as plt

            from trainers.screen import summary_figure

            fig = results[0].figure() if len(results) == 1 else summary_figure(results)
            fmt = Path(plot).suffix.lstrip(".").lower() or "png"
            try:
                _write(plot, lambda tmp: fig.savefig(tmp, dpi=120, format=fmt))
            finally:
                plt.close(fig)
            print(f"wrote {plot}", file=sys.stderr if json_out == "-" else sys.stdout)
    except BrokenPipeError:
        raise  # the reader went away (rafs screen … | head): trainers.cli.main exits 141 quietly
    except OSError as e:
        return _err(f"cannot write output: {e.strerror}: {e.filename}")

    fail_on = getattr(args, "fail_on", "never")
    bad = {"invalid": {"Invalid"}, "indeterminate": {"Invalid", "Indeterminate"}}.get(fail_on, set())
    return 3 if any(r.tier in bad for r in results) else 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return run(args)
    except BrokenPipeError:  # `… | head`: stop quietly with the SIGPIPE status, as trainers.cli.main does
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + 13


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
