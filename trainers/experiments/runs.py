"""What every experiment run does the same way: its command-line checks, its output folder, its report, the SFT
checkpoint all arms share and the GRPO arguments of one arm.

One home for each, so ``rafs experiment faithfulness`` and ``rafs experiment collapse`` cannot drift apart.

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class Cfg:
...     seeds: int = 3
...     arms: tuple = ("a", "b")
>>> with_overrides(Cfg(), {"seeds": 5, "arms": None}).seeds
5
>>> parse_arms("b, a", ("a", "b", "c"))
('b', 'a')
"""

from __future__ import annotations

import json
import shutil
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

__all__ = ["with_overrides", "parse_arms", "prepare_out", "ReportWriter", "sft_policy", "grpo_args"]


def _error(message: str) -> Exception:
    from trainers.common.errors import CommandError

    return CommandError(message)


def with_overrides(cfg: Any, overrides: Mapping[str, Any]) -> Any:
    """``cfg`` with every given (not ``None``) positive override, cast to the field's type; a value ≤ 0 is a
    one-line error naming the flag."""
    for name, value in overrides.items():
        if value is None:
            continue
        if value <= 0:
            raise _error(f"--{name.replace('_', '-')} {value}: give a positive number")
        cfg = replace(cfg, **{name: type(getattr(cfg, name))(value)})
    return cfg


def parse_arms(text: str, allowed: Sequence[str]) -> tuple[str, ...]:
    """A comma-separated subset of ``allowed``, in the order given; anything else is a one-line error."""
    arms = tuple(a.strip() for a in text.split(",") if a.strip())
    if not arms or any(a not in allowed for a in arms):
        raise _error(f"--arms {text!r}: use a comma-separated subset of {','.join(allowed)}")
    return arms


def prepare_out(out_arg: str, reuse_arg: str | None, force: bool) -> tuple[Path, Path | None]:
    """The ``--out`` folder (refused when it is a file, or not empty without ``--force``; emptied with it, except
    for a reused SFT checkpoint inside it) and the ``--reuse-sft`` folder (must hold a saved model)."""
    out = Path(out_arg)
    if out.exists() and not out.is_dir():
        raise _error(f"--out {out_arg!r} is a file; give a folder")
    if out.is_dir() and any(out.iterdir()) and not force:
        raise _error(f"--out {out_arg!r} is not empty; pass --force to overwrite it or choose another folder")
    reuse = None
    if reuse_arg:
        reuse = Path(reuse_arg)
        if not (reuse / "config.json").is_file():
            raise _error(f"--reuse-sft {reuse_arg!r} holds no config.json; give the sft/ folder of an earlier run")
    if out.is_dir() and force:
        for child in out.iterdir():
            if reuse is not None and child.resolve() == reuse.resolve():
                continue
            shutil.rmtree(child) if child.is_dir() else child.unlink()
    return out, reuse


class ReportWriter:
    """Writes ``out/report.json`` atomically (:func:`~rewards.adapters.files.atomic_write`) with the wall time so
    far: a run stopped at any moment leaves the last complete report."""

    def __init__(self, out: Path, report: dict[str, Any], start: float | None = None) -> None:
        self.out, self.report = out, report
        self.start = time.perf_counter() if start is None else start  # time.perf_counter() at the run's start

    def __call__(self) -> None:
        self.report["wall_time_s"] = round(time.perf_counter() - self.start, 1)
        from rewards.adapters.files import atomic_write

        atomic_write(self.out / "report.json", json.dumps(self.report, indent=1, default=str))


def sft_policy(cfg: Any, sft_dir: Path, reuse: Path | None, corpus: Callable[[], Sequence[str]],
               rows: Callable[[], Sequence[Mapping[str, str]]], *, say: Callable[[str], None], quiet: bool
               ) -> tuple[Any, Any, Path, dict[str, Any]]:
    """The SFT policy every arm and seed starts from: loaded from ``reuse``, or trained from scratch on ``rows()``
    with a tokenizer trained on ``corpus()`` and saved to ``sft_dir``. Returns ``(tokenizer, model, folder, info)``.

    ``cfg`` carries the world's model and SFT fields (``vocab_size``, ``hidden_size``, ``num_layers``,
    ``num_heads``, ``data_seed``, ``sft_seconds``, ``sft_max_steps``, ``sft_batch``, ``sft_lr``).
    """
    from transformers import AutoTokenizer, LlamaForCausalLM

    from trainers.experiments import world as W

    if reuse is not None:
        say(f"SFT: reusing {reuse}")
        return (AutoTokenizer.from_pretrained(reuse), LlamaForCausalLM.from_pretrained(reuse), reuse,
                {"reused": str(reuse)})
    tok = W.train_tokenizer(corpus(), vocab_size=cfg.vocab_size)
    model = W.build_model(tok, hidden_size=cfg.hidden_size, num_layers=cfg.num_layers, num_heads=cfg.num_heads,
                          seed=cfg.data_seed)
    examples = rows()
    say(f"SFT: {model.num_parameters():,} parameters, {len(examples)} rows, {cfg.sft_seconds:.0f} s budget")
    stats = W.sft_train(model, tok, examples, max_seconds=cfg.sft_seconds, max_steps=cfg.sft_max_steps,
                        batch_size=cfg.sft_batch, lr=cfg.sft_lr, seed=cfg.data_seed, log_every=200,
                        callback=None if quiet else (lambda s, l: print(f"  sft step {s}: loss {l:.3f}", flush=True)))
    model.save_pretrained(sft_dir)
    tok.save_pretrained(sft_dir)
    return tok, model, sft_dir, {**stats, "parameters": model.num_parameters(), "vocab": len(tok)}


def grpo_args(output_dir: Path, cfg: Any, seed: int, *, shuffle: bool = True):
    """TRL's ``GRPOConfig`` for one arm and seed on the CPU: no saving, no reporting. ``cfg`` carries ``steps``,
    ``learning_rate``, ``prompts_per_step``, ``num_generations``, ``max_completion_length`` and ``temperature``;
    optionally ``lr_scheduler`` (default ``"constant"``) and ``beta`` (the KL weight, default ``0.0``).
    ``shuffle=False`` keeps the dataset's order, so that a caller that laid out every batch (e.g. a fixed share of
    hint-free prompts per step) gets exactly those batches: batch ``k`` is rows ``k·P … k·P + P − 1``
    (``P = prompts_per_step``)."""
    from trl import GRPOConfig

    return GRPOConfig(
        output_dir=str(output_dir), max_steps=cfg.steps, learning_rate=cfg.learning_rate,
        lr_scheduler_type=getattr(cfg, "lr_scheduler", "constant"),
        per_device_train_batch_size=cfg.prompts_per_step * cfg.num_generations,
        num_generations=cfg.num_generations, max_completion_length=cfg.max_completion_length,
        temperature=cfg.temperature, beta=float(getattr(cfg, "beta", 0.0)), seed=seed, data_seed=seed,
        logging_steps=1, save_strategy="no", report_to=[], use_cpu=True, bf16=False, disable_tqdm=True,
        dataloader_num_workers=0, remove_unused_columns=False, shuffle_dataset=shuffle,
    )
