"""``rafs experiment``: controlled training experiments on CPU (tiny worlds, tiny Llama policies, several seeds).

Sub-commands, each implemented in ``trainers.experiments.<name>`` (``add_arguments(parser)``, ``run(args)``),
imported when the command line is built (cheap by contract: torch, TRL and transformers load inside ``run``):

* ``faithfulness`` — does GRPO with the RAFS rewards make reasoning more faithful than accuracy alone?
* ``collapse`` — does the checkpoint validity screen catch a confidence collapse during training?

Example::

    rafs experiment faithfulness --quick --out runs/faithfulness
    rafs experiment faithfulness --quick --seeds 1 --steps 2 --out /tmp/smoke
"""

from __future__ import annotations

import argparse
import importlib

__all__ = ["add_parser", "run", "EXPERIMENTS"]

EXPERIMENTS = {
    "faithfulness": "does GRPO with the RAFS rewards make reasoning more faithful? (GRPO, 3 arms x seeds)",
    "collapse": "does the checkpoint validity screen catch a confidence collapse? (training with checkpoints)",
}


def _module(name: str):
    """``(module, None)`` for ``trainers.experiments.<name>``, or ``(None, reason)`` when it is missing or fails
    to import (so that one broken experiment never breaks the rest of the command line)."""
    try:
        return importlib.import_module(f"trainers.experiments.{name}"), None
    except ModuleNotFoundError as exc:
        if exc.name in (f"trainers.experiments.{name}", "trainers.experiments"):
            return None, f"the module trainers.experiments.{name} is missing from this installation"
        return None, f"trainers.experiments.{name} needs {exc.name!r}, which is not installed"
    except Exception as exc:  # noqa: BLE001 - reported as a one-line error when the experiment is run
        return None, f"trainers.experiments.{name} failed to import ({type(exc).__name__}: {exc})"


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("experiment", help="controlled training experiments (faithfulness, collapse)",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="experiment", metavar="EXPERIMENT")
    sub.required = True
    for name, help_text in EXPERIMENTS.items():
        q = sub.add_parser(name, help=help_text, description=help_text)
        # The sub-command's arguments come from its module, whose import is cheap by contract (torch, TRL and
        # transformers are imported inside run()).
        module, reason = _module(name)
        if module is not None:
            module.add_arguments(q)
        else:
            q.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
        q.set_defaults(_experiment_missing=reason)
    return p


def run(args: argparse.Namespace) -> int:
    from trainers.cli import CommandError

    name = args.experiment
    reason = getattr(args, "_experiment_missing", None)
    module = None
    if reason is None:
        module, reason = _module(name)
    if module is None:
        raise CommandError(f"experiment {name!r} is not available: {reason}")
    return int(module.run(args) or 0)
