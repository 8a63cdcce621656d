"""``rafs train RECIPE.yaml [--key value ...]``: GRPO, RLOO or SFT (RAFS-filtered) from a recipe on one machine.

The recipe is a flat YAML of config-dataclass fields parsed by ``trl.TrlParser`` (see :mod:`trainers.training.recipes`);
``--key value`` pairs override it, and ``--config RECIPE.yaml`` (TRL's form) works as well as the positional
recipe. ``rafs_config`` is a YAML mapping of ``RAFSConfig`` fields in the recipe, or ``--rafs_config FILE``
(YAML/JSON); unknown fields are named. ``dataset_name: gsm8k`` reads ``<data_dir>/gsm8k/train.jsonl``, with
``--data_dir`` defaulting to ``../shared/data`` (resolved against the working directory, then the repository).
The trainer comes from the recipe's ``trainer:`` key or its grpo/rloo/sft folder. Without a GPU the recipe is
adapted (``use_cpu``, no bf16/vLLM) and the changes are printed. With ``report_to: wandb`` and no
``WANDB_MODE``/``WANDB_API_KEY`` set, wandb runs offline.

``reward_funcs`` mixes our rewards with TRL's by name: ``--reward_funcs faithful_accuracy trl.rewards.accuracy_reward``
(the recipe's gold column reaches TRL's reward as ``solution``). ``--dry-run`` prints the resolved config (every
script, model and training argument, and the resolved reward functions) and trains nothing; an unknown reward
name or a missing data file is an error there too. A run refuses a non-empty ``output_dir`` unless ``--force``
is given or it resumes (``--resume_from_checkpoint``).

Example::

    rafs train recipes/SmolLM2-135M-Instruct/grpo/config_demo.yaml --max_steps 2 \\
        --output_dir runs/try
    rafs train --config recipes/SmolLM2-135M-Instruct/sft/config_filtered.yaml --max_steps 5 \\
        --output_dir runs/sft
    rafs train recipes/SmolLM2-135M-Instruct/grpo/config_demo.yaml --dry-run \\
        --reward_funcs faithful_accuracy trl.rewards.accuracy_reward

For several GPUs use ``accelerate launch --config_file recipes/accelerate_configs/zero2.yaml -m trainers.training.train
RECIPE.yaml``.
"""

from __future__ import annotations

import argparse
import os

__all__ = ["add_parser", "run"]


#: trainers.cli passes everything after ``rafs train`` through as ``args.argv`` (recipe fields are ``--key value``
#: pairs argparse cannot know in advance; ``--config`` may come anywhere, as in TRL's scripts)
PASS_THROUGH = True


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("train", help="train with RAFS rewards (GRPO/RLOO) or RAFS-filtered SFT from a recipe",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
                              usage="rafs train RECIPE.yaml|--config RECIPE.yaml [--key value ...] [--dry-run] "
                                    "[--force]")
    p.add_argument("--config", default=None, metavar="RECIPE",
                   help="the recipe, as TRL's scripts take it (instead of the positional RECIPE.yaml)")
    p.add_argument("--dry-run", action="store_true", help="parse the recipe, print the resolved config (every "
                                                          "argument and the resolved reward functions) and exit")
    p.add_argument("--force", action="store_true", help="train into a non-empty --output_dir (its files may be "
                                                        "overwritten)")
    p.add_argument("argv", nargs=argparse.REMAINDER, metavar="RECIPE.yaml [--key value ...]",
                   help="the recipe, then --key value pairs overriding its fields (e.g. --max_steps 2 "
                        "--output_dir runs/x)")
    return p


def run(args: argparse.Namespace) -> int:
    from trainers.cli import CommandError

    try:
        from trainers.training.recipes import split_cli_args

        config_path, overrides, flags = split_cli_args(list(getattr(args, "argv", None) or []))
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    paths = [x for x in (getattr(args, "config", None), config_path) if x]
    if not paths:
        raise CommandError("no recipe: give RECIPE.yaml or --config RECIPE.yaml (e.g. "
                           "recipes/SmolLM2-135M-Instruct/grpo/config_demo.yaml)")
    if len(set(paths)) > 1:
        raise CommandError(f"two recipes given ({', '.join(paths)}); give one, positionally or with --config")
    recipe_path = paths[0]
    dry_run = bool(getattr(args, "dry_run", False) or flags["dry_run"])
    force = bool(getattr(args, "force", False) or flags["force"])
    if os.path.isdir(recipe_path):
        raise CommandError(f"recipe {recipe_path!r} is a folder; pass one recipe YAML file (e.g. "
                           "recipes/SmolLM2-135M-Instruct/grpo/config_demo.yaml)")
    if not os.path.isfile(recipe_path):
        raise CommandError(f"recipe {recipe_path!r} does not exist; see recipes/ (e.g. "
                           "recipes/SmolLM2-135M-Instruct/grpo/config_demo.yaml)")

    from trainers.training.train import (build_reward_funcs, check_data, check_output_dir, describe_recipe, load_recipe,
                                screen_callback, train)

    try:
        recipe = load_recipe(recipe_path, overrides)
    except (ValueError, FileNotFoundError) as exc:
        raise CommandError(str(exc).splitlines()[0]) from None
    except SystemExit as exc:  # argparse inside TrlParser stopped on an error it does not raise (bad values raise)
        raise CommandError(f"bad override in {overrides}: use --<field> <value> pairs of the recipe's "
                           "config fields (e.g. --max_steps 2)") from exc
    try:  # find the data and resolve the rewards now (a missing file or an unknown name fails before anything is
        # loaded); the verifier is built later
        check_data(recipe.script)
        funcs = build_reward_funcs(recipe.script, with_verifier=False) if recipe.trainer != "sft" else None
    except (ValueError, ImportError) as exc:
        raise CommandError(str(exc).splitlines()[0]) from None
    for line in recipe.adaptations:
        print(f"rafs train: adapted for this machine: {line}")
    if dry_run:
        print(describe_recipe(recipe, funcs))
        try:
            check_output_dir(recipe, force=force)
        except FileExistsError as exc:
            print(f"# note: a real run would stop here: {exc}")
        return 0
    try:
        check_output_dir(recipe, force=force)
    except FileExistsError as exc:
        raise CommandError(str(exc)) from None

    from trainers.training.train import configure_wandb

    if configure_wandb(recipe):
        print("rafs train: wandb runs offline (set WANDB_MODE=online and log in to sync)")
    try:
        trainer = train(recipe)
    except ValueError as exc:
        raise CommandError(str(exc).splitlines()[0]) from None
    cb = screen_callback(trainer)
    print(f"rafs train: {trainer.state.global_step} steps, model saved to {recipe.training.output_dir}")
    if cb is not None and cb.history:
        last = cb.history[-1]
        print(f"rafs train: last validity screen at step {last['step']}: {last.get('tier') or last.get('status')}"
              f"{' (training halted by the screen)' if cb.halted else ''}")
    return 0
