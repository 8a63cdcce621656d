"""``rafs train RECIPE.yaml [--key value ...]``: GRPO, RLOO or SFT (RAFS-filtered) from a recipe on one machine.

The recipe is a flat YAML of config-dataclass fields parsed by ``trl.TrlParser`` (see :mod:`trainers.train`);
``--key value`` pairs override it. The trainer comes from the recipe's ``trainer:`` key or its grpo/rloo/sft
folder. Without a GPU the recipe is adapted (``use_cpu``, no bf16/vLLM) and the changes are printed. With
``report_to: wandb`` and no ``WANDB_MODE``/``WANDB_API_KEY`` set, wandb runs offline.

Example::

    rafs train recipes/SmolLM2-135M-Instruct/grpo/config_demo.yaml --max_steps 2 --output_dir runs/try
    rafs train recipes/SmolLM2-135M-Instruct/sft/config_filtered.yaml --max_steps 5

For several GPUs use ``accelerate launch --config_file recipes/accelerate_configs/zero2.yaml -m trainers.train
RECIPE.yaml``.
"""

from __future__ import annotations

import argparse
import os

__all__ = ["add_parser", "run"]


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("train", help="train with RAFS rewards (GRPO/RLOO) or RAFS-filtered SFT from a recipe",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("recipe", help="recipe YAML, e.g. recipes/SmolLM2-135M-Instruct/grpo/config_demo.yaml")
    p.add_argument("overrides", nargs=argparse.REMAINDER,
                   help="--key value pairs overriding recipe fields (e.g. --max_steps 2 --output_dir runs/x)")
    p.add_argument("--dry-run", action="store_true", help="parse the recipe, print the resolved config and exit")
    return p


def run(args: argparse.Namespace) -> int:
    from trainers.cli import CommandError

    if not os.path.isfile(args.recipe):
        raise CommandError(f"recipe {args.recipe!r} does not exist; see recipes/ (e.g. "
                           "recipes/SmolLM2-135M-Instruct/grpo/config_demo.yaml)")
    overrides = [o for o in args.overrides if o != "--"]
    if "--dry-run" in overrides:
        overrides.remove("--dry-run")
        args.dry_run = True

    from trainers.train import load_recipe, train

    try:
        recipe = load_recipe(args.recipe, overrides)
    except (ValueError, FileNotFoundError) as exc:
        raise CommandError(str(exc).splitlines()[0]) from None
    except SystemExit as exc:  # argparse inside TrlParser rejected an override
        raise CommandError(f"bad override in {overrides}: use --<field> <value> pairs of the recipe's "
                           "config fields (e.g. --max_steps 2)") from exc
    from trainers.train import configure_wandb

    if configure_wandb(recipe):
        print("rafs train: wandb runs offline (set WANDB_MODE=online and log in to sync)")
    for line in recipe.adaptations:
        print(f"rafs train: adapted for this machine: {line}")
    if args.dry_run:
        print(f"trainer: {recipe.trainer}")
        print(f"model: {recipe.model.model_name_or_path}  dataset: {recipe.script.dataset_name or recipe.script.dataset_path}")
        print(f"output_dir: {recipe.training.output_dir}  max_steps: {recipe.training.max_steps}")
        return 0
    try:
        trainer = train(recipe)
    except ValueError as exc:
        raise CommandError(str(exc).splitlines()[0]) from None
    cb = getattr(trainer, "rafs_screen_callback", None)
    print(f"rafs train: {trainer.state.global_step} steps, model saved to {recipe.training.output_dir}")
    if cb is not None and cb.history:
        last = cb.history[-1]
        print(f"rafs train: last validity screen at step {last['step']}: {last.get('tier') or last.get('status')}"
              f"{' (training halted by the screen)' if cb.halted else ''}")
    return 0
