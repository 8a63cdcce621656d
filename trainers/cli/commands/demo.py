"""``rafs demo``: GRPO on SmolLM2-135M-Instruct with RAFS rewards and the checkpoint validity screen (CPU, < 10 min).

Writes ``runs/demo/`` (checkpoints with ``validity_report.json``, the baseline report, an offline wandb run and
``summary.json``) and prints rewards per step, silent failures caught and the tier at each checkpoint. See
:mod:`trainers.training.demo`.

An earlier run is never deleted: when the output folder holds one, the demo stops with a one-line error unless
``--force`` is given, which moves the earlier run aside to a new folder (``runs/demo.previous-1``, then
``-2`` ...) and says where; delete those yourself when you no longer need them.

Example::

    rafs demo
    rafs demo --output-dir runs/demo2 --max-steps 2
    rafs demo --force          # keep the earlier run in runs/demo.previous-N and start afresh
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
    p.add_argument("--force", action="store_true",
                   help="when the output folder holds an earlier run, move it aside to <output-dir>.previous-N "
                        "(never deleted) instead of stopping")
    p.add_argument("--quiet", action="store_true", help="print nothing but errors")
    p.add_argument("--threads", default="auto",
                   help="torch CPU threads: 'auto' (1 on a busy machine, else all cores) or a number")
    return p


def run(args: argparse.Namespace) -> int:
    import os

    from trainers.cli import CommandError

    if args.max_steps is not None and args.max_steps < 1:
        raise CommandError(f"--max-steps {args.max_steps}: give a positive number of steps, e.g. 2")
    if args.recipe is not None and os.path.isdir(args.recipe):
        raise CommandError(f"--recipe {args.recipe!r} is a folder; pass one recipe YAML file")
    if args.recipe is not None and not os.path.isfile(args.recipe):
        raise CommandError(f"--recipe {args.recipe!r} does not exist")
    from trainers.training.demo import DEMO_RECIPE, run_demo

    _set_aside_previous_run(args.output_dir, force=getattr(args, "force", False))

    overrides = [] if args.max_steps is None else ["--max_steps", str(args.max_steps)]
    try:
        run_demo(args.output_dir, recipe=args.recipe or DEMO_RECIPE, overrides=overrides, quiet=args.quiet,
                 threads=args.threads)
    except (FileNotFoundError, ValueError) as exc:
        raise CommandError(str(exc)) from None
    return 0


def _set_aside_previous_run(output_dir: str, *, force: bool = False) -> str | None:
    """A new demo must neither mix with nor destroy an earlier one. An empty or missing ``output_dir`` is used as
    is. A non-empty one is a one-line error (:class:`~trainers.cli.CommandError`) without ``force``; with it, the
    earlier run moves to the first free ``<output_dir>.previous-N`` (nothing is ever deleted) and the move is
    printed. Returns where the earlier run went, or ``None``."""
    import os
    import sys

    from trainers.cli import CommandError

    if not (os.path.isdir(output_dir) and os.listdir(output_dir)):
        if os.path.exists(output_dir) and not os.path.isdir(output_dir):
            raise CommandError(f"--output-dir {output_dir} is a file; give a folder")
        return None
    if not force:
        entries = sorted(os.listdir(output_dir))
        shown = ", ".join(entries[:3]) + (", ..." if len(entries) > 3 else "")
        raise CommandError(f"--output-dir {output_dir} holds an earlier run ({shown}); pass --output-dir NEW, or "
                           f"--force to move it aside to {output_dir.rstrip('/')}.previous-N (nothing is deleted)")
    base = output_dir.rstrip("/") + ".previous"
    n = 1
    while os.path.exists(f"{base}-{n}"):
        n += 1
    previous = f"{base}-{n}"
    os.replace(output_dir, previous)
    print(f"rafs demo: the earlier run in {output_dir} moved to {previous} (delete it when you no longer need it)",
          file=sys.stderr)
    return previous
