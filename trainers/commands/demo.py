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

    _set_aside_previous_run(args.output_dir)

    overrides = [] if args.max_steps is None else ["--max_steps", str(args.max_steps)]
    try:
        run_demo(args.output_dir, recipe=args.recipe or DEMO_RECIPE, overrides=overrides, quiet=args.quiet,
                 threads=args.threads)
    except (FileNotFoundError, ValueError) as exc:
        raise CommandError(str(exc)) from None
    return 0


def _set_aside_previous_run(output_dir: str) -> None:
    """A new demo must not resume the screen history of an old one: the previous run moves to
    ``<output_dir>.previous`` (replacing the run before it) and the move is printed."""
    import os
    import shutil
    import sys

    if os.path.isdir(output_dir) and os.listdir(output_dir):
        previous = output_dir.rstrip("/") + ".previous"
        if os.path.exists(previous):
            shutil.rmtree(previous)
        os.replace(output_dir, previous)
        print(f"rafs demo: the previous run in {output_dir} moved to {previous}", file=sys.stderr)
