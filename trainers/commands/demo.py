"""``rafs demo``: GRPO on SmolLM2-135M-Instruct with RAFS rewards and the checkpoint validity screen (CPU, < 10 min).

Writes ``runs/demo/`` (checkpoints with ``validity_report.json``, the baseline report, an offline wandb run and
``summary.json``) and prints rewards per step, silent failures caught and the tier at each checkpoint. See
:mod:`trainers.demo`.

Example::

    rafs demo
    rafs demo --output-dir runs/demo2 --max-steps 2
"""

from __future__ import annotations

import argparse

__all__ = ["add_parser", "run"]


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("demo", help="GRPO demo with RAFS rewards and the validity screen (CPU, < 10 min)",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--output-dir", default="runs/demo", help="where everything is written (default: runs/demo)")
    p.add_argument("--max-steps", type=int, default=None, help="GRPO steps (default: the recipe's)")
    p.add_argument("--recipe", default=None, help="another recipe (default: the SmolLM2 GRPO demo recipe)")
    p.add_argument("--quiet", action="store_true", help="print nothing but errors")
    p.add_argument("--threads", default="auto",
                   help="torch CPU threads: 'auto' (1 on a busy machine, else all cores) or a number")
    return p


def run(args: argparse.Namespace) -> int:
    import os

    from trainers.cli import CommandError

    if args.max_steps is not None and args.max_steps < 1:
        raise CommandError(f"--max-steps {args.max_steps}: give a positive number of steps, e.g. 2")
    if args.recipe is not None and not os.path.isfile(args.recipe):
        raise CommandError(f"--recipe {args.recipe!r} does not exist")
    from trainers.demo import DEMO_RECIPE, run_demo

    overrides = [] if args.max_steps is None else ["--max_steps", str(args.max_steps)]
    try:
        run_demo(args.output_dir, recipe=args.recipe or DEMO_RECIPE, overrides=overrides, quiet=args.quiet,
                 threads=args.threads)
    except (FileNotFoundError, ValueError) as exc:
        raise CommandError(str(exc)) from None
    return 0
