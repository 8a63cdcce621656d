"""``rafs audit REWARD [REWARD ...]``: run the gaming battery against reward functions.

Each REWARD is one of our registry names (``rafs``, ``faithful_accuracy``, ``rafs_step_validity``, ``rafs_support``,
``rafs_consensus``, ``rafs_stability``), a name of ``trl.rewards`` (``accuracy_reward``) or an import path
(``trl.rewards.accuracy_reward``, ``my_module:my_reward``; a module in the working directory is found; a factory
named ``get_*`` is called with no arguments): the names ``rafs train`` reads (:mod:`trainers.training.reward_names`). The battery builds gamed
completions from real gold solutions (two thirds GSM8K train, one third MATH-500; ``--n`` in all, seeded) and
calls each reward as TRL does, ``reward(prompts=..., completions=..., <gold column>=...)``, with ``None`` counted as
0.0. For each family it prints the share of problems where the gamed completion breaks its property (scores at
least the faithful trace; for padding, more than 0.005 above it; for a hidden or diluted slip, above the visible
slip) and PASS/FAIL against the bar (a share of at most 2%). It is a measurement: the exit code is 0 even when
families fail, unless ``--fail-under`` is given. See docs/audit.md.

Example::

    rafs audit rafs faithful_accuracy --mode both --json runs/audit.json
    rafs audit trl.rewards:accuracy_reward --families bare_answer,restate_answer
    rafs audit my_project.rewards:get_mix --n 60 --gold-column solution --conversational
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

__all__ = ["add_parser", "run", "resolve_reward"]

_MODES = ("single", "group", "both")
_PROBLEM_LAYOUTS = ("question_answer", "problem_completion", "messages")


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("audit", help="run the gaming battery against reward functions",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("rewards", nargs="*", metavar="REWARD",
                   help="a registry name (rafs, faithful_accuracy, ...), a trl.rewards name, or pkg.module.func / "
                        "pkg.module:func")
    p.add_argument("--mode", default="both", choices=_MODES,
                   help="single: each completion alone; group: a problem's completions as one GRPO group; both")
    p.add_argument("--n", type=int, default=300, help="problems in all: 2/3 GSM8K train, 1/3 MATH-500 (default 300)")
    p.add_argument("--seed", type=int, default=0, help="sample and generator seed (default 0)")
    p.add_argument("--sources", default="gsm8k,math500", help="gsm8k and/or math500 (default both)")
    p.add_argument("--families", default=None, help="comma-separated family names (default: all; see "
                   "--list-families)")
    p.add_argument("--gold-column", default=None,
                   help="keyword the gold answer is passed under (default: 'solution' when the function names a "
                        "solution parameter and no answer parameter, as TRL's accuracy_reward; else 'answer')")
    p.add_argument("--gold-format", default=None, choices=("answer", "boxed", "solution"),
                   help="gold column content: the bare answer, $\\boxed{answer}$, or the whole gold solution "
                        "(default: boxed for trl.* functions, else answer)")
    p.add_argument("--answer-style", default="auto", choices=("auto", "native", "boxed"),
                   help="how GSM8K completions state the answer: '#### N' (native) or \\boxed{N}; auto: boxed for "
                        "trl.* functions (they read only LaTeX answers), else native")
    p.add_argument("--conversational", action="store_true",
                   help="pass completions as [{'role': 'assistant', 'content': ...}] (default: plain text, falling "
                        "back to messages when the function raises on text)")
    p.add_argument("--mix", action="store_true",
                   help="audit the weighted sum of the REWARDs (what GRPOTrainer optimises with reward_weights) "
                        "instead of each one")
    p.add_argument("--weights", default=None, help="comma-separated weights for --mix (default: all 1.0)")
    p.add_argument("--batch-size", type=int, default=32, help="problems per call in single mode (default 32)")
    p.add_argument("--examples", type=int, default=3, help="violations kept per family in --json (default 3)")
    p.add_argument("--problems", default=None, metavar="FILE",
                   help="audit on your own problems instead of the GSM8K/MATH-500 sample: a .jsonl, .json, .csv or "
                        ".parquet file with 'problem' and a worked 'solution' (MATH), 'question' + 'answer' (GSM8K), "
                        "'problem' + 'completion' or chat 'messages' (see --layout); the gold from 'answer' or the "
                        "solution's '#### X' / \\boxed{}; --n, --seed and --sources are then ignored")
    p.add_argument("--data-dir", default=None, help="folder with gsm8k/train.jsonl and math500/test.jsonl "
                   "(default: $RAFS_DATA_DIR or ../shared/data)")
    p.add_argument("--json", dest="json_out", default=None, help="write the full results (with examples) here")
    p.add_argument("--markdown", default=None, help="also write the violation shares as one Markdown table here")
    p.add_argument("--force", action="store_true", help="overwrite --json / --markdown if they exist")
    p.add_argument("--fail-under", type=float, default=None, metavar="SHARE",
                   help="exit 1 when, for any family, the share of problems keeping its property is below SHARE "
                        "(e.g. 0.98); without it the exit code is 0 whatever the result")
    p.add_argument("--fail-under-separated", type=float, default=None, metavar="SHARE",
                   help="the same bar over only the problems where the reward scores the faithful completion above "
                        "the bare answer line (a rule that pays gaming, not a tie where nothing can be verified); "
                        "needs bare_answer among the families")
    p.add_argument("--min-separated", type=float, default=None, metavar="SHARE",
                   help="exit 1 when a reward scores the faithful completion above the bare answer line on fewer "
                        "than SHARE of the problems (its recall: what it can verify at all); needs bare_answer")
    p.add_argument("--list-families", action="store_true", help="print the families and exit")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    from trainers.common.config import add_config_arguments
    from trainers.common.readers import add_reader_arguments

    add_reader_arguments(p, layouts=_PROBLEM_LAYOUTS, columns=("problem", "completion", "answer", "messages"))
    add_config_arguments(p, config_help="YAML or JSON file of RAFSConfig fields for the registry rewards (rafs, "
                                        "faithful_accuracy, ...); module:function rewards are called as they are")
    return p


def resolve_reward(spec: str, config: Any = None) -> tuple[str, Callable]:
    """A reward name as :func:`trainers.training.reward_names.resolve_reward_name` reads it (the resolver ``rafs train``
    uses: registry names, ``trl.rewards`` names, ``pkg.module.func`` or ``pkg.module:func``, a module in the working
    directory); a registry reward is built with ``config`` (a ``RAFSConfig``) when one is given. Returns
    ``(display name, callable)``."""
    from trainers.cli import CommandError
    from trainers.training.reward_names import resolve_reward_name

    spec = spec.strip()
    try:
        key, func = resolve_reward_name(spec)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    if key is None:
        return spec, func
    from rewards import get_reward_funcs

    return spec, (get_reward_funcs([key]) if config is None else get_reward_funcs([key], config=config))[0]


def _is_trl(fn: Callable) -> bool:
    """A function from TRL: its rewards read only LaTeX (``\\boxed``) answers and the gold in ``solution``."""
    return (getattr(fn, "__module__", "") or "").split(".")[0] == "trl"


def _write(path: str, text: str) -> None:
    from trainers.cli import CommandError, atomic_write

    try:
        atomic_write(path, text)
    except OSError as exc:
        raise CommandError(f"cannot write {path!r}: {exc.strerror or exc}") from None


def _text(value: Any) -> Any:
    """The text of a chat turn list (``[{'role', 'content'}]``), or the value itself."""
    if isinstance(value, list) and value and isinstance(value[-1], dict):
        return value[-1].get("content")
    return value


def _problems_file(path: str, spec, folder: str) -> str:
    """``--problems`` in any format and layout of :mod:`trainers.common.readers`, as the JSONL rows
    :func:`rewards.audit.battery.read_problems` reads (``problem``, ``solution``, ``answer``) in ``folder``."""
    from trainers.common.readers import read_items

    stem = Path(path).stem
    lines = []
    for i, (row, item) in enumerate(read_items(path, spec, what="--problems"), 1):
        out = {"id": str(row.get("id", f"{stem}-{i}")), "source": str(row.get("source", stem)),
               "problem": _text(item.problem), "solution": _text(item.completion)}
        if item.gold is not None and item.gold != out["solution"]:
            out["answer"] = item.gold
        lines.append(json.dumps(out, ensure_ascii=False) + "\n")
    target = os.path.join(folder, f"{stem}.jsonl")
    with open(target, "w", encoding="utf-8") as handle:
        handle.writelines(lines)
    return target


def _commit() -> str | None:
    root = Path(__file__).resolve().parents[3]
    try:
        sha = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True, timeout=10).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return (sha + ("+dirty" if dirty else "")) if sha else None


def _cell(fr) -> str:
    if not fr.n:
        return "—"
    verdict = "[green]PASS[/]" if fr.passed else "[red]FAIL[/]"
    return f"{100 * fr.share:5.1f}% {verdict}"


def _separated_cell(fr) -> str:
    share = fr.separated_share
    if share is None:
        return "—"
    return f"{100 * share:5.1f}%" if share <= 0.02 else f"[red]{100 * share:5.1f}%[/]"


def _means(fr) -> str:
    if not fr.n:
        return ""
    return f"{fr.mean_gamed:.2f}/{fr.mean_reference:.2f}"


_PROP = {"below_faithful": "< faithful", "no_gain": "≤ faith+tol", "not_above_slip": "≤ slip+tol"}


def _print_tables(console, name: str, reports: list) -> None:
    from rich.table import Table

    by_mode = {r.mode: r for r in reports}
    modes = [m for m in ("single", "group") if m in by_mode]
    first = by_mode[modes[0]]
    table = Table(title=f"{name}: violation share per family (bar: ≤ 2%)", title_justify="left",
                  show_edge=False, pad_edge=False)
    table.add_column("family", no_wrap=True, max_width=22)
    table.add_column("property", no_wrap=True)
    table.add_column("n", justify="right")
    separated = any(by_mode[m].separated is not None for m in modes)
    for m in modes:
        table.add_column(m, justify="right", no_wrap=True)
        if separated:  # the share where the reward tells faithful work from a bare answer (means: in --json)
            table.add_column("where sep.", justify="right", no_wrap=True)
        else:
            table.add_column("gamed/ref", justify="right", no_wrap=True)
    for i, fr in enumerate(first.families):
        row = [fr.family, _PROP[fr.property], str(fr.n)]
        for m in modes:
            f = by_mode[m].families[i]
            row += [_cell(f), _separated_cell(f) if separated else _means(f)]
        table.add_row(*row)
    console.print(table)
    for m in modes:
        r = by_mode[m]
        # the summary line leads with how often the reward tells faithful work from a bare answer: a reward that
        # never does (TRL's accuracy_reward: 0 of N) fails fewer families only because it pays everything alike
        lead = (f"tells faithful work from a bare answer on {r.separated} of {r.n_problems} problems, "
                if r.separated is not None else "")
        console.print(f"  {m}: {lead}{len(r.failed)}/{sum(f.n > 0 for f in r.families)} families FAIL, "
                      f"faithful mean {r.faithful_mean:.3f} (None on {100 * r.faithful_none_share:.0f}%), "
                      f"{r.runtime_s:.1f} s")
        if r.faithful_first is not None:
            console.print(f"  {m}: the faithful trace beats every '< faithful' family on "
                          f"{100 * r.faithful_first:.1f}% of problems")
        total = sum(f.violations for f in r.families)
        zero = sum(f.ref_zero_violations for f in r.families)
        if total:
            console.print(f"  {m}: {zero} of {total} violations are on problems whose reference (faithful or slip) "
                          "scored 0")
        if r.separated is not None:
            sep = sum(f.separated_violations or 0 for f in r.families)
            console.print(f"  {m}: the reward tells the faithful work from a bare answer on {r.separated} of "
                          f"{r.n_problems} problems; there {sep} violations, {len(r.failed_separated)} families FAIL"
                          + (f" ({', '.join(r.failed_separated)})" if r.failed_separated else ""))
        if r.faithful_mean is not None and r.faithful_mean < 0.5:
            console.print(f"  [yellow]warning[/]: {name} pays the faithful gold completions only "
                          f"{r.faithful_mean:.2f} on average; check --answer-style, --gold-column and --gold-format")
    console.print()


def run(args: argparse.Namespace) -> int:
    from trainers.cli import rich_console

    # rich_console: a closed pipe (rafs audit … | head) ends in the quiet exit 141 of every command, not rich's exit 1
    console = rich_console(width=100, highlight=False, soft_wrap=False)
    if args.list_families:
        _print_families(console)
        return 0
    _check_arguments(args)
    problems_dir = problems_path = None
    if args.problems:
        import tempfile

        from trainers.common.readers import spec_from_args

        problems_dir = tempfile.TemporaryDirectory(prefix="rafs-audit-")
        problems_path = _problems_file(args.problems, spec_from_args(args, allowed=_PROBLEM_LAYOUTS),
                                       problems_dir.name)
    families = _families(args)
    resolved = _resolved_rewards(args)
    sources = tuple(s.strip() for s in args.sources.split(",") if s.strip())
    modes = ["single", "group"] if args.mode == "both" else [args.mode]
    t0 = time.perf_counter()
    all_reports = _audit_all(args, resolved, families, sources, modes, problems_path, console)
    elapsed = time.perf_counter() - t0
    console.print(f"{len(resolved)} reward(s), {len(modes)} mode(s), "
                  f"{all_reports[0].n_problems} problems, {elapsed:.1f} s")
    if args.json_out:
        payload = {
            "meta": {"date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"), "commit": _commit(),
                     "n": all_reports[0].n_problems, "problems": args.problems, "seed": args.seed,
                     "sources": list(sources), "modes": modes,
                     "families": [f.name for f in families], "runtime_s": round(elapsed, 2),
                     "rewards": list(args.rewards), "gold_column": args.gold_column,
                     "gold_format": args.gold_format, "answer_style": args.answer_style,
                     "reward_versions": _versions(resolved)},
            "reports": [r.to_dict() for r in all_reports],
        }
        _write(args.json_out, json.dumps(payload, indent=1, ensure_ascii=False))
        console.print(f"wrote {args.json_out}")
    if args.markdown:
        _write_markdown(args, all_reports)
        console.print(f"wrote {args.markdown}")
    return _gate(args, all_reports)


def _print_families(console) -> None:
    """``--list-families``: every family with its property and what it writes."""
    from rich.table import Table

    from rewards.audit.families import FAMILIES

    table = Table(show_edge=False, pad_edge=False)
    for col in ("family", "property", "what it writes"):
        table.add_column(col)
    for f in FAMILIES.values():
        table.add_row(f.name, _PROP[f.property], f.description)
    console.print(table)


def _check_arguments(args: argparse.Namespace) -> None:
    """Raise :class:`~trainers.cli.CommandError` naming the first flag out of range, or an output file that would be
    overwritten (without ``--force``)."""
    from trainers.cli import CommandError, check_output_file

    if not args.rewards:
        raise CommandError("name at least one reward: module:function or a registry name such as rafs")
    if args.n < 1:
        raise CommandError(f"--n {args.n}: ask for at least 1 problem")
    if args.batch_size < 1:
        raise CommandError(f"--batch-size {args.batch_size}: must be >= 1")
    for flag, value in (("--fail-under", args.fail_under), ("--fail-under-separated", args.fail_under_separated),
                        ("--min-separated", args.min_separated)):
        if value is not None and not 0.0 <= value <= 1.0:
            raise CommandError(f"{flag} {value}: a share in [0, 1], e.g. 0.98")
    if args.json_out and args.markdown and os.path.abspath(args.json_out) == os.path.abspath(args.markdown):
        raise CommandError(f"--json and --markdown name the same file {args.json_out!r}; give two paths")
    check_output_file(args.json_out, force=args.force, flag="--json")
    check_output_file(args.markdown, force=args.force, flag="--markdown")


def _families(args: argparse.Namespace) -> list:
    """The families ``--families`` names; the separated gates need ``bare_answer`` among them."""
    from rewards.audit.battery import AuditError, select_families
    from trainers.cli import CommandError

    try:
        families = select_families(args.families)
    except AuditError as exc:
        raise CommandError(str(exc)) from None
    if (args.fail_under_separated is not None or args.min_separated is not None) \
            and "bare_answer" not in {f.name for f in families}:
        flag = "--fail-under-separated" if args.fail_under_separated is not None else "--min-separated"
        raise CommandError(f"{flag} compares each problem's faithful score with its bare answer line: add "
                           f"bare_answer to --families")
    return families


def _resolved_rewards(args: argparse.Namespace) -> list[tuple[str, Callable, bool | None]]:
    """``(name, reward function, is TRL's)`` per reward named (``None``: tell from the function), or the one
    weighted sum of them with ``--mix``."""
    from trainers.cli import CommandError
    from trainers.common.config import config_from_args, rafs_overrides_from_args

    config = config_from_args(args) if (args.config or rafs_overrides_from_args(args)) else None
    resolved = [(*resolve_reward(spec, config), None) for spec in args.rewards]
    if args.weights and not args.mix:
        raise CommandError("--weights only applies with --mix")
    if not args.mix:
        return resolved
    from rewards.audit.battery import WeightedSum

    try:
        weights = [float(w) for w in args.weights.split(",")] if args.weights else None
        mix = WeightedSum([fn for _, fn, _ in resolved], weights)
    except ValueError as exc:
        raise CommandError(f"--weights {args.weights!r}: {exc}") from None
    label = "mix(" + " + ".join((f"{w:g}*" if w != 1.0 else "") + spec
                                for (spec, _, _), w in zip(resolved, mix.weights)) + ")"
    return [(label, mix, any(_is_trl(fn) for _, fn, _ in resolved))]


def _audit_all(args: argparse.Namespace, resolved: list, families: list, sources: tuple, modes: list[str],
               problems_path: str | None, console) -> list:
    """Every reward audited in every mode (the problems read once per answer style), its tables printed."""
    from rewards.audit.battery import AuditError, audit, load_problems, read_problems
    from trainers.cli import CommandError

    progress = not args.no_progress and sys.stderr.isatty()
    cache: dict[str, list] = {}
    all_reports = []
    for spec, fn, trl_mix in resolved:
        is_trl = _is_trl(fn) if trl_mix is None else trl_mix
        style = args.answer_style if args.answer_style != "auto" else ("boxed" if is_trl else "native")
        gold_format = args.gold_format or ("boxed" if is_trl else "answer")
        try:
            if style not in cache and args.problems:
                cache[style] = read_problems(problems_path, answer_style=style)
            elif style not in cache:
                cache[style] = load_problems(args.n, seed=args.seed, sources=sources, data_dir=args.data_dir,
                                             answer_style=style)
            reports = [audit(fn, cache[style], families, mode=m, gold_column=args.gold_column,
                             conversational=True if args.conversational else None, gold_format=gold_format,
                             seed=args.seed, batch_size=args.batch_size, progress=progress,
                             n_examples=args.examples, name=spec) for m in modes]
        except AuditError as exc:
            message = str(exc)
            if args.problems:  # name the user's file, not the converted copy (same row numbers)
                message = message.replace(problems_path, args.problems)
            raise CommandError(message) from None
        for r in reports:
            r.settings["answer_style"] = style
        _print_tables(console, spec, reports)
        all_reports.extend(reports)
    return all_reports


def _write_markdown(args: argparse.Namespace, all_reports: list) -> None:
    """The violation tables as markdown: every problem, then only the problems each reward separates."""
    from rewards.audit.battery import markdown_table

    meta = f"{all_reports[0].n_problems} problems, seed {args.seed}, commit {_commit() or 'unknown'}, " \
           f"{_dt.datetime.now(_dt.timezone.utc):%Y-%m-%d %H:%M} UTC"
    separated = markdown_table(all_reports, separated=True)
    if separated:
        separated = ("\n\nThe same, over only the problems on which each reward scores the faithful completion "
                     "above the bare answer line (their number in brackets): where it can tell work from no work, "
                     "a violation is a rule that pays the gaming.\n\n" + separated)
    _write(args.markdown, f"Violation share (%) per family; bold: fails the 2% bar. {meta}.\n\n"
                          + markdown_table(all_reports) + separated + "\n")


def _gate(args, reports) -> int:
    """The exit code of the three bars (``--fail-under``, ``--fail-under-separated``, ``--min-separated``): 1 with
    one line on stderr per bar a result misses, else 0."""
    failed = False
    if args.fail_under is not None:
        worst = [(1.0 - f.share, r.reward, r.mode, f.family) for r in reports for f in r.families if f.n]
        below = [w for w in worst if w[0] < args.fail_under]
        if below:
            keep, name, mode, fam = min(below)
            print(f"rafs audit: {len(below)} family result(s) below --fail-under {args.fail_under}; worst: "
                  f"{fam} under {name} ({mode}) keeps its property on {100 * keep:.1f}%", file=sys.stderr)
            failed = True
    if args.fail_under_separated is not None:
        worst = [(1.0 - f.separated_share, r.reward, r.mode, f.family, f.separated_n) for r in reports
                 for f in r.families if f.separated_share is not None]
        below = [w for w in worst if w[0] < args.fail_under_separated]
        if below:
            keep, name, mode, fam, n = min(below)
            print(f"rafs audit: {len(below)} family result(s) below --fail-under-separated "
                  f"{args.fail_under_separated}; worst: {fam} under {name} ({mode}) keeps its property on "
                  f"{100 * keep:.1f}% of the {n} problems where the reward separates work from a bare answer",
                  file=sys.stderr)
            failed = True
    if args.min_separated is not None:
        low = [((r.separated or 0) / r.n_problems, r.reward, r.mode, r.separated or 0, r.n_problems)
               for r in reports if r.n_problems]
        below = [w for w in low if w[0] < args.min_separated]
        if below:
            share, name, mode, sep, n = min(below)
            print(f"rafs audit: {len(below)} result(s) below --min-separated {args.min_separated}; worst: {name} "
                  f"({mode}) scores the faithful completion above the bare answer on {sep} of {n} problems "
                  f"({100 * share:.1f}%)", file=sys.stderr)
            failed = True
    return 1 if failed else 0


def _versions(resolved) -> dict[str, str | None]:
    """The reward version of each audited reward (``None`` for a reward that is not ours)."""
    from rewards.adapters.trl_rewards import version_of

    return {spec: version_of(fn) for spec, fn, _ in resolved}
