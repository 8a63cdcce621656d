"""Train with RAFS rewards (GRPO, RLOO) or on RAFS-filtered data (SFT) from a recipe: the entry point.

The jobs live in their own modules; this one builds the trainer and runs it:

* :mod:`trainers.training.recipes` — the recipe arguments (:class:`~trainers.training.recipes.RAFSScriptArguments`) and
  :func:`~trainers.training.recipes.load_recipe` (``trl.TrlParser``, device adaptation, the RAFS config);
* :mod:`trainers.training.train_data` — the training set, the SFT filter, the probe set and the ``data_dir`` convention;
* :mod:`trainers.training.reward_choice` — ``reward_funcs`` by name, ours and TRL's/open-r1's
  (:class:`~trainers.training.reward_choice.GoldColumnReward`).

Their public names are importable from here as well (``from trainers.training.train import load_recipe``).

On one machine::

    rafs train recipes/SmolLM2-135M-Instruct/grpo/config_demo.yaml --max_steps 2 --output_dir runs/try

On several GPUs::

    accelerate launch --config_file recipes/accelerate_configs/zero2.yaml -m trainers.training.train \\
        recipes/Qwen2.5-Math-1.5B-Instruct/grpo/config_gsm8k_vllm.yaml

From Python (the screen callback sits in the trainer's callback list; :func:`screen_callback` finds it):

>>> from trainers.training.train import load_recipe, train, screen_callback           # doctest: +SKIP
>>> recipe = load_recipe("recipes/SmolLM2-135M-Instruct/grpo/config_demo.yaml", ["--max_steps", "2"])  # doctest: +SKIP
>>> trainer = train(recipe)                                                  # doctest: +SKIP
>>> screen_callback(trainer).history                                         # doctest: +SKIP
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from trainers.training.train_data import DATASETS, check_data, easy_arithmetic, load_probe_set, load_train_dataset
from trainers.training.recipes import (TRAINERS, RAFSScriptArguments, Recipe, adapt_for_device, detect_trainer, load_recipe,
                              rafs_config_of, split_cli_args)
from trainers.training.reward_choice import (GOLD_PARAMETERS, GoldColumnReward, build_reward_funcs, build_verifier,
                                    describe_reward, resolve_reward_func)

if TYPE_CHECKING:
    from trainers.training.callbacks import ValidityScreenCallback

__all__ = ["RAFSScriptArguments", "Recipe", "TRAINERS", "DATASETS", "load_recipe", "adapt_for_device",
           "detect_trainer", "load_train_dataset", "easy_arithmetic", "load_probe_set", "check_data", "build_trainer",
           "apply_threads", "name_base_model", "build_reward_funcs", "build_verifier", "GoldColumnReward", "GOLD_PARAMETERS", "resolve_reward_func",
           "describe_reward", "describe_recipe", "check_output_dir", "split_cli_args", "build_screen_callback",
           "screen_callback", "configure_wandb", "train", "main"]


def describe_recipe(recipe: Recipe, reward_funcs: Sequence[Any] | None = None) -> str:
    """The resolved configuration as YAML (every field of the script, model and training arguments, after the
    recipe, the overrides and the device adaptation), followed by the resolved reward functions."""
    import dataclasses

    import yaml

    def plain(obj: Any) -> dict[str, Any]:
        names = [f.name for f in dataclasses.fields(obj) if f.init]
        raw = obj.to_dict() if hasattr(obj, "to_dict") else dataclasses.asdict(obj)
        out = {}
        for n in names:
            v = raw.get(n, getattr(obj, n, None))
            out[n] = v if isinstance(v, (str, int, float, bool, type(None), list, dict)) else str(v)
        return out

    parts = [f"# resolved recipe {recipe.path}", f"trainer: {recipe.trainer}"]
    for title, obj in ((f"script arguments ({type(recipe.script).__name__})", recipe.script),
                       (f"model arguments ({type(recipe.model).__name__})", recipe.model),
                       (f"training arguments ({type(recipe.training).__name__})", recipe.training)):
        values = plain(obj)
        values.pop("trainer", None)
        parts.append(f"# -- {title}")
        # one line per field ("key: value", lists and mappings in flow style), so the block reads back as YAML
        parts += [yaml.safe_dump({k: v}, default_flow_style=True, width=10_000).strip()[1:-1]
                  for k, v in values.items()]
    if recipe.script.rafs_config not in (None, ""):
        from trainers.common.config import config_to_dict

        resolved = config_to_dict(rafs_config_of(recipe.script), only_changed=False)
        parts.append(f"# -- rafs_config resolved (every RAFSConfig field): {resolved}")
    if recipe.adaptations:
        parts.append("# -- adapted for this machine: " + "; ".join(recipe.adaptations))
    if reward_funcs is not None:
        parts.append("# -- reward functions (resolved)")
        parts += [f"#   {name} -> {describe_reward(f)}" for name, f in zip(recipe.script.reward_funcs, reward_funcs)]
    return "\n".join(parts)


def check_output_dir(recipe: Recipe, *, force: bool = False) -> None:
    """Refuse (``FileExistsError``) to train into a non-empty ``output_dir`` unless ``force`` or the run resumes
    from a checkpoint (``resume_from_checkpoint``): a new run would mix its checkpoints with an old run's."""
    out = Path(recipe.training.output_dir)
    resume = recipe.training.resume_from_checkpoint
    if force or resume not in (None, False, "", "false", "False") or not out.is_dir():
        return
    entries = sorted(p.name for p in out.iterdir())
    if entries:
        shown = ", ".join(entries[:3]) + (", ..." if len(entries) > 3 else "")
        raise FileExistsError(f"output_dir {out} is not empty ({shown}); pass --output_dir NEW, --force to write "
                              "into it anyway, or --resume_from_checkpoint to continue that run.")


def build_screen_callback(script: RAFSScriptArguments, tokenizer: Any = None, *, model_name: str | None = None,
                          probe_set: list[dict[str, str]] | None = None):
    """The recipe's :class:`~trainers.training.callbacks.ValidityScreenCallback`, or ``None`` when ``screen: false``."""
    if not script.screen:
        return None
    from trainers.training.callbacks import ValidityScreenCallback

    # token_prob reads the probability of a short answer ("The answer is 7"): the training instruction and a long
    # generation budget would only cost time (the answer's length bounds the generation)
    short = script.screen_confidence == "token_prob"
    return ValidityScreenCallback(
        probe_set if probe_set is not None else load_probe_set(script), tokenizer, every=script.screen_every,
        baseline=script.screen_baseline, policy=script.screen_policy, halt_on_failure=script.screen_halt_on_failure,
        collapse_delta=script.screen_collapse_delta, confidence=script.screen_confidence,
        max_new_tokens=None if short else script.screen_max_new_tokens, batch_size=script.screen_batch_size,
        model_name=model_name, benchmark=script.dataset_name or script.dataset_path or "probe set",
        instruction=None if short else script.instruction)


def screen_callback(trainer: Any) -> "ValidityScreenCallback | None":
    """The validity screen registered with ``trainer``, or ``None``: the last
    :class:`~trainers.training.callbacks.ValidityScreenCallback` in the trainer's callback list
    (``trainer.callback_handler.callbacks``, where ``Trainer(callbacks=...)`` and ``trainer.add_callback`` put
    callbacks; :func:`build_trainer` appends the recipe's screen after the caller's callbacks). Its ``history``
    holds the screens, ``halted`` whether it stopped training."""
    from trainers.training.callbacks import ValidityScreenCallback

    handler = getattr(trainer, "callback_handler", None)
    found = [cb for cb in getattr(handler, "callbacks", None) or [] if isinstance(cb, ValidityScreenCallback)]
    return found[-1] if found else None


def apply_threads(recipe: Recipe) -> int | None:
    """Set torch's CPU threads by the recipe's ``torch_threads`` (:func:`trainers.training.models.choose_threads`: the
    policy ``rafs demo`` uses too) when the run trains on CPU; returns the number set, None on a GPU (left as is)."""
    import torch

    from trainers.training.models import choose_threads

    if torch.cuda.is_available() and not getattr(recipe.training, "use_cpu", False):
        return None
    n = choose_threads(getattr(recipe.script, "torch_threads", "auto"))
    torch.set_num_threads(n)
    return n


def build_trainer(recipe: Recipe, *, train_dataset: Any = None, reward_funcs: list[Any] | None = None,
                  callbacks: list[Any] | None = None, probe_set: list[dict[str, str]] | None = None):
    """A ready ``GRPOTrainer`` / ``RLOOTrainer`` / ``SFTTrainer`` for ``recipe``: ``callbacks``, then the recipe's
    screen callback (``screen: true``), go to the trainer's callback list, where :func:`screen_callback` finds
    it."""
    from transformers import AutoTokenizer
    from trl import get_peft_config

    from trainers.training.models import resolve_model_path

    script, args, margs = recipe.script, recipe.training, recipe.model
    if not margs.model_name_or_path:
        raise ValueError("the recipe names no model: set model_name_or_path (e.g. SmolLM2-135M-Instruct).")
    apply_threads(recipe)
    model_path = resolve_model_path(margs.model_name_or_path)
    tokenizer = AutoTokenizer.from_pretrained(model_path)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    dataset = train_dataset if train_dataset is not None else load_train_dataset(script, seed=args.seed,
                                                                                  trainer=recipe.trainer)
    peft_config = get_peft_config(margs)
    cbs = list(callbacks or [])
    screen_cb = build_screen_callback(script, tokenizer, model_name=margs.model_name_or_path, probe_set=probe_set)
    if screen_cb is not None:
        cbs.append(screen_cb)
    if margs.dtype not in (None, "auto"):
        args.model_init_kwargs = {**(args.model_init_kwargs or {}), "dtype": margs.dtype}
    common = dict(model=model_path, args=args, train_dataset=dataset, processing_class=tokenizer,
                  callbacks=cbs or None, peft_config=peft_config)
    if recipe.trainer == "grpo":
        from trl import GRPOTrainer

        trainer = GRPOTrainer(reward_funcs=reward_funcs or build_reward_funcs(script), **common)
    elif recipe.trainer == "rloo":
        from trl import RLOOTrainer

        trainer = RLOOTrainer(reward_funcs=reward_funcs or build_reward_funcs(script), **common)
    else:
        from trl import SFTTrainer

        trainer = SFTTrainer(**common)
    name_base_model(trainer, margs.model_name_or_path, model_path)
    return trainer


def name_base_model(trainer: Any, name_or_path: str, model_path: str) -> None:
    """Give the model card its base model: the embedded default is loaded from a local cache folder, for which TRL's
    card reads "fine-tuned version of [None]"; its hub id is written instead (``config._name_or_path``, what
    ``from_pretrained`` of the hub id would set). A model given as a local folder keeps TRL's behaviour."""
    from trainers.training.models import DEFAULT_MODEL_NAME

    if str(model_path) != str(name_or_path):  # one of the default model's names, resolved to its cache folder
        config = getattr(getattr(trainer, "model", None), "config", None)
        if config is not None:
            config._name_or_path = f"HuggingFaceTB/{DEFAULT_MODEL_NAME}"


def configure_wandb(recipe: Recipe) -> bool:
    """With ``report_to: wandb``: write the run under the output dir (``WANDB_DIR``), and go offline when neither
    ``WANDB_MODE`` nor ``WANDB_API_KEY`` is set. Returns True when it switched wandb to offline."""
    report_to = recipe.training.report_to or []
    if "wandb" not in report_to and "all" not in report_to:
        return False
    os.environ.setdefault("WANDB_DIR", str(Path(recipe.training.output_dir).resolve()))
    Path(os.environ["WANDB_DIR"]).mkdir(parents=True, exist_ok=True)
    if not os.environ.get("WANDB_MODE") and not os.environ.get("WANDB_API_KEY"):
        os.environ["WANDB_MODE"] = "offline"
        return True
    return False


def train(recipe: Recipe, **kwargs: Any) -> Any:
    """Build the trainer, train (resuming when ``resume_from_checkpoint`` is set), save; return the trainer."""
    trainer = build_trainer(recipe, **kwargs)
    resume = recipe.training.resume_from_checkpoint
    if isinstance(resume, str) and resume.lower() in ("true", "false"):
        resume = resume.lower() == "true" or None
    from rewards.adapters.pool import close_pools

    try:
        trainer.train(resume_from_checkpoint=resume)
    finally:
        close_pools()  # the reward functions' scoring workers: their cores are free again after training
    trainer.save_model(recipe.training.output_dir)
    return trainer


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m trainers.training.train RECIPE.yaml [--key value ...]`` or ``--config RECIPE.yaml`` (the entry point for
    ``accelerate launch``); ``--dry-run`` prints the resolved config, ``--force`` trains into a non-empty
    ``output_dir``."""
    argv = list(sys.argv[1:] if argv is None else argv)
    usage = "usage: python -m trainers.training.train RECIPE.yaml|--config RECIPE.yaml [--key value ...] [--dry-run] [--force]"
    try:
        path, overrides, flags = split_cli_args(argv)
        if path is None:
            print(usage, file=sys.stderr)
            return 2
        recipe = load_recipe(path, overrides)
        check_data(recipe.script)
        funcs = build_reward_funcs(recipe.script, with_verifier=False) if recipe.trainer != "sft" else None
        if flags["dry_run"]:
            print(describe_recipe(recipe, funcs))
            return 0
        check_output_dir(recipe, force=flags["force"])
    except (ValueError, FileNotFoundError, FileExistsError) as exc:
        print(f"python -m trainers.training.train: error: {str(exc).splitlines()[0]}", file=sys.stderr)
        return 2
    configure_wandb(recipe)
    train(recipe)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
