"""``rafs report FILE [--reward NAME ...] [--json OUT.json] [--plot OUT.png] [--force]``: does RAFS carry signal on
your data? What the reward functions pay your completions, as GRPO would call them.

FILE is any input ``rafs score`` reads (``.jsonl``, ``.json``, ``.csv``, ``.parquet``, ``-``; the layouts and column
flags of :mod:`trainers.readers`): problem + completion, question + worked answer, ProcessBench's problem + steps
(joined with a blank line), or chat messages; the gold answer, when the rows have one, from ``answer`` / ``gold``
(or ``--answer-col``). Rows with the same problem form one GRPO group and are scored in one call, the way GRPO calls
a reward function::

    fn(prompts=[problem] * k, completions=[c_1, ..., c_k], answer=[gold] * k)

The report gives the share of completions verified (their answer is derived from the problem's quantities through
verified steps: ``supported``, what ``faithful_accuracy_reward`` pays in full when no step is suspect), the time
(ms per completion, all the rewards on it, cold cache: median and max), and for each reward (default ``rafs`` and
``faithful_accuracy``; names of ``rewards.REWARD_FUNCS``):

* the distribution of pay: paid in full (at least the reward's ceiling: 1, or what a fully verified one-step
  derivation earns), paid 0, unscorable (``None``), mean and median, and a text histogram;
* the share of GRPO groups without learning signal: groups (two rows or more with the same problem) whose
  rewards do not differ, so GRPO's advantage is 0 for every member;
* with a ProcessBench ``label`` column in every row (``-1`` = every step valid), the AUROC of the reward, valid vs
  flawed, with a 95% bootstrap interval.

``--json`` writes the whole report, ``--plot`` a histogram per reward (PNG, PDF or SVG, matplotlib); neither
overwrites a file without ``--force``. The scorer's settings come from ``--config FILE`` and ``--rafs.FIELD VALUE``
(the rewards' own ``missing_evidence="no_support"`` unless set). The figures are those of
:mod:`rewards.adapters.reward_report`, shared with ``benchmarks/real_completions.py``.

Example::

    rafs report examples/traces.jsonl
    rafs report rollouts.parquet --reward rafs --json runs/report.json --plot runs/pay.png
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

DEFAULT_REWARDS = ("rafs", "faithful_accuracy")
BINS = 10


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("report", help="what the reward functions pay a file of completions, and whether "
                              "they carry a learning signal", description=__doc__,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("input", help="a .jsonl, .json, .csv or .parquet file ('-' for JSON on stdin)")
    p.add_argument("--reward", action="append", default=None, metavar="NAME",
                   help="a reward of rewards.REWARD_FUNCS (repeat for several; default: rafs and faithful_accuracy)")
    p.add_argument("--limit", type=int, default=None, metavar="N", help="read only the first N rows")
    p.add_argument("--bins", type=int, default=BINS, metavar="N", help=f"histogram bins over [0, 1] (default {BINS})")
    p.add_argument("--json", dest="json_out", default=None, metavar="OUT.json", help="write the report as JSON")
    p.add_argument("--plot", default=None, metavar="OUT.png", help="write a histogram of pay per reward (matplotlib)")
    p.add_argument("--force", action="store_true", help="overwrite --json / --plot if they exist")
    from trainers.config import add_config_arguments
    from trainers.readers import add_reader_arguments

    add_reader_arguments(p)
    add_config_arguments(p)
    return p


def _completion(item) -> Any:
    return item.completion if item.steps is None else "\n\n".join(item.steps)


def _group_key(problem: Any) -> str:
    return problem if isinstance(problem, str) else json.dumps(problem, sort_keys=True, default=str)


def _label(row: dict) -> bool | None:
    """Valid (``label == -1``), flawed (another integer label) or ``None`` (no usable ProcessBench label)."""
    value = row.get("label")
    if isinstance(value, bool) or value is None:
        return None
    try:
        return int(value) == -1
    except (TypeError, ValueError):
        return None


def build_report(rows: list[tuple[dict, Any]], names: list[str], config=None, *, bins: int = BINS,
                 progress: bool = False) -> dict[str, Any]:
    """Score ``rows`` (``(row, Item)`` pairs of :func:`trainers.readers.read_items`) group by group with each
    reward of ``names`` and return the report (see the module docstring)."""
    from tqdm import tqdm

    from rewards import get_reward_funcs
    from rewards.adapters import reward_report as rr
    from rewards.adapters.trl_rewards import clear_cache

    funcs = get_reward_funcs(names, config=config, cache=True)
    groups: dict[str, list[int]] = {}
    for i, (_, item) in enumerate(rows):
        groups.setdefault(_group_key(item.problem), []).append(i)
    n = len(rows)
    has_gold = any(item.gold is not None for _, item in rows)
    values: dict[str, list[float | None]] = {f.__name__: [None] * n for f in funcs}
    supported: list[bool | None] = [None] * n
    ms: list[float] = []
    rr.warm_up(funcs)  # math-verify and sympy load on the first LaTeX answer: once, untimed
    for members in tqdm(groups.values(), desc="rafs report", unit="group", disable=not progress):
        prompts = [rows[i][1].problem for i in members]
        completions = [_completion(rows[i][1]) for i in members]
        kwargs = {"answer": [rows[i][1].gold for i in members]} if has_gold else {}
        clear_cache()  # cold: the rewards then share this group's score, as in one GRPO step
        t0 = time.perf_counter()
        for fn in funcs:
            for i, v in zip(members, fn(prompts=prompts, completions=completions, **kwargs)):
                values[fn.__name__][i] = v
        ms.extend([1000 * (time.perf_counter() - t0) / len(members)] * len(members))
        results = funcs[0].score(prompts, completions, kwargs.get("answer"))  # from the shared cache
        for i, r in zip(members, results):
            supported[i] = r.supported
    keys = [_group_key(item.problem) for _, item in rows]
    labels = [_label(row) for row, _ in rows]
    labelled = all(v is not None for v in labels) and len(set(labels)) == 2
    verified = sum(bool(s) for s in supported)
    report: dict[str, Any] = {
        "n": n, "groups": sum(len(m) >= 2 for m in groups.values()),
        "singletons": sum(len(m) == 1 for m in groups.values()), "has_gold": has_gold,
        "verified": verified, "verified_share": round(verified / n, 4) if n else None,
        "timing": {"ms_median": round(float(_median(ms)), 2) if ms else None,
                   "ms_max": round(max(ms), 2) if ms else None},
        "rewards": {},
    }
    if labelled:
        report["labels"] = {"valid": sum(labels), "flawed": n - sum(labels)}
    for fn in funcs:
        name = fn.__name__
        vals = values[name]
        ceiling = rr.full_pay_ceiling(fn)
        entry: dict[str, Any] = {"ceiling": round(ceiling, 6), "pay": rr.pay_summary(vals, ceiling),
                                 "histogram": rr.pay_histogram(vals, bins=bins),
                                 "groups_without_signal": rr.groups_without_signal(keys, vals)}
        if labelled:
            auc, ci = rr.auroc_with_ci(labels, vals)
            entry["auroc_valid_vs_flawed"] = None if auc is None else round(auc, 4)
            entry["auroc_valid_vs_flawed_ci"] = ci
        report["rewards"][name] = entry
    return report


def _median(xs: list[float]) -> float:
    import statistics

    return statistics.median(xs)


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def render(report: dict[str, Any], source: str) -> str:
    """The report as text for a terminal."""
    from rewards.adapters import reward_report as rr

    t = report["timing"]
    lines = [f"rafs report {source}: {report['n']} completions; {report['groups']} GRPO "
             f"group{'' if report['groups'] == 1 else 's'} of 2 or more "
             f"(+{report['singletons']} problems with one completion); ms per completion median "
             f"{t['ms_median']}, max {t['ms_max']} (all rewards, cold cache)",
             f"verified (answer derived from the problem through verified steps): {_pct(report['verified_share'])} "
             f"({report['verified']} of {report['n']})"]
    if not report["has_gold"]:
        lines.append("no gold answer in the rows (answer/gold column, or --answer-col): rewards that need one "
                     "(faithful_accuracy_reward) are unscorable (None)")
    if "labels" in report:
        lines.append(f"labels: {report['labels']['valid']} valid, {report['labels']['flawed']} flawed")
    for name, r in report["rewards"].items():
        pay, g = r["pay"], r["groups_without_signal"]
        lines += ["", f"{name}: paid in full {_pct(pay['full_share'])} (at least {r['ceiling']:.4g}), paid 0 "
                      f"{_pct(pay['zero_share'])}, unscorable {_pct(pay['none_share'])}; mean {pay['mean']}, "
                      f"median {pay['median']}"]
        if g["groups"]:
            lines.append(f"  groups without learning signal (rewards all equal): {g['without_signal']} of "
                         f"{g['groups']} ({_pct(g['share'])})")
        else:
            lines.append("  groups without learning signal: – (no problem has two completions)")
        if "auroc_valid_vs_flawed" in r:
            auc, ci = r["auroc_valid_vs_flawed"], r["auroc_valid_vs_flawed_ci"]
            lines.append("  AUROC valid vs flawed: " + ("–" if auc is None else f"{auc:.3f}")
                         + (f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else ""))
        lines += ["  " + line for line in rr.text_histogram(r["histogram"]).splitlines()]
    return "\n".join(lines)


def plot(report: dict[str, Any], path: str) -> None:
    """One histogram of pay per reward, side by side, written atomically (format from the suffix)."""
    from matplotlib.figure import Figure

    from trainers.cli import atomic_write

    names = list(report["rewards"])
    fig = Figure(figsize=(4.2 * len(names), 3.2), layout="constrained")
    axes = fig.subplots(1, len(names), squeeze=False)[0]
    for ax, name in zip(axes, names):
        hist = report["rewards"][name]["histogram"]
        edges = hist["edges"]
        ax.bar(edges[:-1], hist["counts"], width=[b - a for a, b in zip(edges[:-1], edges[1:])], align="edge",
               edgecolor="black", linewidth=0.5)
        ax.set_title(name, fontsize=10)
        ax.set_xlabel("reward")
        ax.set_ylabel("completions")
        ax.yaxis.get_major_locator().set_params(integer=True)
    fmt = Path(path).suffix.lstrip(".").lower() or "png"
    atomic_write(path, lambda tmp: fig.savefig(tmp, format=fmt))


def run(args: argparse.Namespace) -> int:
    from rewards import REWARD_FUNCS
    from trainers.cli import CommandError, atomic_write, check_output_file
    from trainers.config import config_from_args
    from trainers.readers import check_input_path, read_items, spec_from_args

    names = args.reward or list(DEFAULT_REWARDS)
    unknown = [n for n in names if n not in REWARD_FUNCS and n not in {f.__name__ for f in REWARD_FUNCS.values()}]
    if unknown:
        raise CommandError(f"--reward {unknown[0]!r} is unknown; use one of {', '.join(REWARD_FUNCS)}")
    if args.limit is not None and args.limit < 1:
        raise CommandError(f"--limit {args.limit}: give a positive number of rows")
    if not 1 <= args.bins <= 1000:
        raise CommandError(f"--bins {args.bins}: give a number of bins from 1 to 1000")
    spec = spec_from_args(args)
    config = config_from_args(args)
    check_input_path(args.input)
    if args.json_out and args.plot and Path(args.json_out).resolve() == Path(args.plot).resolve():
        raise CommandError(f"--json and --plot name the same file {args.json_out!r}; give two paths")
    for flag, out in (("--json", args.json_out), ("--plot", args.plot)):
        if out and args.input != "-" and Path(out).resolve() == Path(args.input).resolve():
            raise CommandError(f"{flag} {out} is the input file; choose another output path")
        check_output_file(out, force=args.force, flag=flag)
    if args.plot:
        from matplotlib.figure import Figure

        suffix = Path(args.plot).suffix.lstrip(".").lower()
        if suffix not in Figure().canvas.get_supported_filetypes():
            raise CommandError(f"--plot {args.plot}: matplotlib cannot write {suffix or 'suffix-less'!r} files; "
                               "use .png, .pdf or .svg")
    rows = []
    for pair in read_items(args.input, spec):
        rows.append(pair)
        if args.limit is not None and len(rows) >= args.limit:
            break
    report = build_report(rows, names, config, bins=args.bins, progress=sys.stderr.isatty())
    report["input"] = args.input
    print(render(report, args.input))
    try:
        if args.json_out:
            atomic_write(args.json_out, json.dumps(report, indent=1, ensure_ascii=False) + "\n")
        if args.plot:
            plot(report, args.plot)
    except OSError as exc:
        raise CommandError(f"cannot write an output: {exc.strerror or exc}") from None
    return 0
