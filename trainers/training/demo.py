"""``rafs demo`` / ``make demo``: GRPO with RAFS rewards and the checkpoint validity screen, end to end, on CPU.

Runs ``recipes/SmolLM2-135M-Instruct/grpo/config_demo.yaml``: SmolLM2-135M-Instruct (the embedded default model)
learns easy one-step GSM8K-style problems under ``faithful_accuracy_reward`` + ``rafs_reward``; a
:class:`~trainers.training.callbacks.ValidityScreenCallback` screens its confidence (the recipe's ``screen_confidence``:
``token_prob``, the probability of its own short answer) before training (baseline) and at every checkpoint.
Everything lands under ``runs/demo/``:

* the trained model (``model.safetensors``, tokenizer, a model card naming the base model): one copy of the
  weights, ~0.5 GB;
* ``checkpoint-N/`` with ``validity_report.json`` (the VRS report) and ``validity_history.json`` (the demo keeps
  the screen's reports and trainer state there and deletes the checkpoint's copy of the weights, which the final
  model supersedes);
* ``validity_report_step0.json`` (the baseline) and ``wandb/`` (offline run);
* ``summary.json``: ``steps``, ``rewards`` (per step, the mean of each reward by name), ``screen`` (per screened
  step: ``step``, ``tier``, ``L``, ``Fp``, ``RBS``, ``r``), plus the group-variance measurement (how many
  prompt groups had a nonzero reward spread, i.e. gave GRPO a learning signal), silent failures caught, timings.

>>> summary = run_demo("runs/demo", overrides=["--max_steps", "2"])     # doctest: +SKIP
>>> sorted(summary)[:3]                                                  # doctest: +SKIP
['elapsed_s', 'group_variance', 'logs']
"""

from __future__ import annotations

import json
import math
import os
import statistics
import threading
import time
from pathlib import Path
from typing import Any, Sequence

from trainers.training.callbacks import finite_or_none  # finite float or None, shared with the screen history

__all__ = ["DEMO_RECIPE", "RewardRecorder", "choose_threads", "run_demo", "summarise", "print_summary"]

DEMO_RECIPE = Path(__file__).resolve().parents[2] / "recipes" / "SmolLM2-135M-Instruct" / "grpo" / "config_demo.yaml"


class RewardRecorder:
    """Wrap a TRL reward function: same ``__name__`` and outputs; records per-call rewards per prompt group and the
    time spent (for the group-variance measurement and ``benchmarks/bench_training.py``)."""

    def __init__(self, func: Any):
        self.func = func
        self.__name__ = getattr(func, "__name__", type(func).__name__)
        self.calls: list[dict[str, Any]] = []
        self.seconds = 0.0
        self._lock = threading.Lock()

    def __call__(self, prompts: Any = None, completions: Any = None, **kwargs: Any) -> list[float | None]:
        t0 = time.perf_counter()
        out = self.func(prompts=prompts, completions=completions, **kwargs)
        dt = time.perf_counter() - t0
        groups: dict[str, list[float | None]] = {}
        for p, r in zip(prompts or [], out):
            groups.setdefault(json.dumps(p, sort_keys=True, default=str), []).append(r)
        state = kwargs.get("trainer_state")
        with self._lock:
            self.seconds += dt
            self.calls.append({"step": getattr(state, "global_step", None), "seconds": dt,
                               "groups": list(groups.values())})
        return out

    def group_variance(self) -> dict[str, Any]:
        """How many prompt groups had rewards that differ (a nonzero spread, so a nonzero GRPO advantage)."""
        n = nonzero = 0
        for call in self.calls:
            for values in call["groups"]:
                vals = [v for v in values if v is not None and not math.isnan(v)]
                if len(vals) < 2:
                    continue
                n += 1
                nonzero += statistics.pstdev(vals) > 1e-9
        return {"groups": n, "nonzero_variance": nonzero, "share": (nonzero / n) if n else None}


def summarise(trainer: Any, recorders: Sequence[RewardRecorder], output_dir: str | os.PathLike,
              elapsed_s: float) -> dict[str, Any]:
    """The demo's ``summary.json`` from the trainer's ``state.log_history`` and the screen history."""
    from trainers.training.train import screen_callback

    names = [r.__name__ for r in recorders]
    rewards: list[dict[str, Any]] = []
    silent = 0.0
    completions_per_step = trainer.args.per_device_train_batch_size * max(1, trainer.args.world_size)
    for row in trainer.state.log_history:
        keys = [f"rewards/{n}/mean" for n in names]
        if not any(k in row for k in keys):
            continue
        entry: dict[str, Any] = {"step": int(row["step"])}
        for n, k in zip(names, keys):
            entry[n] = finite_or_none(row.get(k))
        entry["reward"] = finite_or_none(row.get("reward"))
        entry["frac_reward_zero_std"] = finite_or_none(row.get("frac_reward_zero_std"))
        rate = finite_or_none(row.get("faithful_accuracy_reward/silent_failure_rate"))
        if rate is not None:
            entry["silent_failures"] = round(rate * completions_per_step)
            silent += entry["silent_failures"]
        rewards.append(entry)
    cb = screen_callback(trainer)
    history = cb.history if cb is not None else []
    screen = [{"step": h["step"], "event": h.get("event"), "tier": h.get("tier"), "L": h.get("L"), "Fp": h.get("Fp"),
               "RBS": h.get("RBS"), "r": h.get("r"), "accuracy": h.get("accuracy"), "n": h.get("n"),
               "n_unparseable": h.get("n_unparseable"), "status": h.get("status"), "reason": h.get("reason"),
               "decision": h.get("decision"), "seconds": h.get("elapsed_s")} for h in history]
    out = Path(output_dir)
    wandb_dirs = sorted(str(p) for p in (out / "wandb").glob("offline-run-*")) if (out / "wandb").is_dir() else []
    return {
        "steps": int(trainer.state.global_step),
        "rewards": rewards,
        "screen": screen,
        "halted": bool(cb.halted) if cb is not None else False,
        "group_variance": {r.__name__: r.group_variance() for r in recorders},
        "silent_failures_caught": int(silent),
        "reward_seconds": {r.__name__: round(r.seconds, 3) for r in recorders},
        "screen_seconds": round(sum(h.get("elapsed_s") or 0 for h in history), 3),
        "elapsed_s": round(elapsed_s, 1),
        "torch_threads": __import__("torch").get_num_threads(),
        "screen_confidence": getattr(cb, "confidence", None),
        "logs": {"output_dir": str(out), "checkpoints": sorted(str(p) for p in out.glob("checkpoint-*")),
                 "reports": sorted(str(p) for p in out.glob("checkpoint-*/validity_report.json")),
                 "baseline_report": str(out / "validity_report_step0.json"), "wandb": wandb_dirs,
                 "summary": str(out / "summary.json")},
    }


#: how the screen's confidence signal is named in the demo's table
CONFIDENCE_LABELS = {"token_prob": "token-probability confidence", "verbalized": "verbalized confidence",
                     "rafs": "RAFS score as confidence"}

#: files of a checkpoint that hold weights (the demo keeps one copy: the final model in the output folder)
WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin", "adapter_model.safetensors", "optimizer.pt")


def drop_checkpoint_weights(output_dir: str | os.PathLike) -> int:
    """Delete the weights in ``output_dir``'s ``checkpoint-*/`` folders when ``output_dir`` holds the final model
    (its ``model.safetensors``), keeping the screen's reports and the trainer state; returns the bytes freed."""
    out = Path(output_dir)
    if not (out / "model.safetensors").is_file():
        return 0
    freed = 0
    for ckpt in out.glob("checkpoint-*"):
        for pattern in (*WEIGHT_FILES, "model-*.safetensors"):
            for f in ckpt.glob(pattern):
                freed += f.stat().st_size
                f.unlink()
    return freed


def print_summary(summary: dict[str, Any], console: Any = None) -> None:
    """A short, human-readable summary (rich tables)."""
    from rich.console import Console
    from rich.table import Table

    console = console or Console()
    names = list(summary["group_variance"])
    table = Table(title="Rewards per step (means over the step's completions)")
    table.add_column("step", justify="right")
    for n in names:
        table.add_column(n.removesuffix("_reward"), justify="right")
    # TRL's frac_reward_zero_std: the share of prompt groups whose *total* (weighted sum) reward has no spread; one
    # reward alone may lack spread in a group where the total has some (the per-reward counts are printed below)
    table.add_column("groups w/o spread (total)", justify="right")
    table.add_column("silent failures", justify="right")
    for row in summary["rewards"]:
        cells = [str(row["step"])] + [("-" if row.get(n) is None else f"{row[n]:.3f}") for n in names]
        cells.append("-" if row.get("frac_reward_zero_std") is None else f"{row['frac_reward_zero_std']:.2f}")
        cells.append(str(row.get("silent_failures", "-")))
        table.add_row(*cells)
    console.print(table)
    confidence = CONFIDENCE_LABELS.get(summary.get("screen_confidence"), summary.get("screen_confidence") or "confidence")
    screen = Table(title=f"Validity screen ({confidence} on the probe set)")
    for col in ("step", "tier", "L", "Fp", "RBS", "r", "accuracy", "decision"):
        screen.add_column(col, justify="right" if col != "tier" else "left")

    def f(x: Any) -> str:
        return "-" if x is None else (f"{x:.3f}" if isinstance(x, float) else str(x))

    for s in summary["screen"]:
        tier = s["tier"] or f"failed ({(s.get('reason') or '')[:60]})"
        screen.add_row(str(s["step"]), tier, f(s["L"]), f(s["Fp"]), f(s["RBS"]), f(s["r"]), f(s["accuracy"]),
                       str(s.get("decision")))
    console.print(screen)
    for name, gv in summary["group_variance"].items():
        share = "-" if gv["share"] is None else f"{gv['share']:.0%}"
        seconds = summary["reward_seconds"][name]
        timing = (f"{seconds:.2f} s" if seconds >= 0.005 else
                  "under 0.01 s (served from the scoring cache the rewards share)")
        console.print(f"[bold]{name}[/]: {gv['nonzero_variance']} of {gv['groups']} prompt groups had a nonzero "
                      f"spread in this reward alone ({share}); time in reward: {timing}")
    console.print(f"silent failures caught (correct answer, invalid step): {summary['silent_failures_caught']}")
    console.print(f"steps: {summary['steps']}, wall time: {summary['elapsed_s']:.0f} s "
                  f"(screens {summary['screen_seconds']:.0f} s){' — HALTED by the screen' if summary['halted'] else ''}")
    logs = summary["logs"]
    console.print(f"logs: {logs['output_dir']} (checkpoints with validity_report.json, baseline "
                  f"{Path(logs['baseline_report']).name}, summary.json"
                  + (f", wandb offline run {logs['wandb'][-1]}" if logs["wandb"] else "") + ")")


def choose_threads(threads: int | str | None = "auto") -> int:
    """:func:`trainers.training.models.choose_threads`, the one thread policy of ``rafs train`` and the demo."""
    from trainers.training.models import choose_threads as policy

    return policy(threads)


class RichProgress:
    """A rich progress bar over the training steps, with one line per step: each reward's mean."""

    def __init__(self, console: Any, names: Sequence[str]):
        from transformers import TrainerCallback

        outer = self

        class _CB(TrainerCallback):
            def on_train_begin(self, args, state, control, **kw):
                outer._start(state.max_steps)

            def on_step_end(self, args, state, control, **kw):
                outer._advance(state.global_step)

            def on_log(self, args, state, control, logs=None, **kw):
                outer._log(state.global_step, logs or {})

            def on_train_end(self, args, state, control, **kw):
                outer._stop()

        self.callback = _CB()
        self.console, self.names = console, list(names)
        self.progress = None
        self.task = None

    def _start(self, total: int) -> None:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.progress = Progress(TextColumn("GRPO steps"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                                 console=self.console, transient=True)
        self.progress.start()
        self.task = self.progress.add_task("train", total=total)

    def _advance(self, step: int) -> None:
        if self.progress is not None:
            self.progress.update(self.task, completed=step)

    def _log(self, step: int, logs: dict[str, Any]) -> None:
        means = {n: logs.get(f"rewards/{n}/mean") for n in self.names}
        if all(v is None for v in means.values()):
            return
        parts = [f"{n.removesuffix('_reward')} {float(v):.3f}" for n, v in means.items() if v is not None]
        extra = f", {float(logs['step_time']):.0f} s" if logs.get("step_time") is not None else ""
        self.console.print(f"step {step}: " + ", ".join(parts) + extra)

    def _stop(self) -> None:
        if self.progress is not None:
            self.progress.stop()
            self.progress = None


def run_demo(output_dir: str | os.PathLike = "runs/demo", *, recipe: str | os.PathLike = DEMO_RECIPE,
             overrides: Sequence[str] = (), quiet: bool = False, threads: int | str | None = "auto") -> dict[str, Any]:
    """Run the demo recipe, write ``summary.json`` into ``output_dir`` and return the summary."""
    import logging

    import torch
    from rich.console import Console
    from rich.logging import RichHandler

    import sys
    import warnings

    warnings.filterwarnings("ignore", category=FutureWarning)
    console = Console(quiet=quiet, width=None if sys.stdout.isatty() else 110)
    threads = str(choose_threads(threads))  # validated now; build_trainer applies it (recipe field torch_threads)
    screen_log = logging.getLogger("trainers.training.callbacks")
    if not quiet and not screen_log.handlers:
        screen_log.addHandler(RichHandler(console=console, show_path=False, show_level=False))
        screen_log.setLevel(logging.INFO)
        screen_log.propagate = False
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("WANDB_MODE", "offline")
    os.environ.setdefault("WANDB_SILENT", "true")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    out = Path(output_dir)
    out.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("WANDB_DIR", str(out))
    t0 = time.perf_counter()

    from trainers.training.models import default_model_path
    from trainers.training.train import build_reward_funcs, build_trainer, load_recipe

    with console.status("loading the recipe and SmolLM2-135M-Instruct (first run converts the GGUF, ~30 s)"):
        rec = load_recipe(recipe, ["--disable_tqdm", "true", "--torch_threads", threads, *overrides,
                                   "--output_dir", str(out)])
        if str(rec.model.model_name_or_path).lower() in ("smollm2-135m-instruct", "default", "smollm2",
                                                         "huggingfacetb/smollm2-135m-instruct"):
            default_model_path()
        recorders = [RewardRecorder(f) for f in build_reward_funcs(rec.script)]
        progress = RichProgress(console, [r.__name__ for r in recorders])
        trainer = build_trainer(rec, reward_funcs=recorders, callbacks=[] if quiet else [progress.callback])
        from transformers.trainer_callback import PrinterCallback
        from transformers.utils import logging as hf_logging

        trainer.remove_callback(PrinterCallback)  # our own one line per step replaces the raw log dicts
        hf_logging.disable_progress_bar()
    args = rec.training
    n_threads = torch.get_num_threads()
    console.print(f"[bold]rafs demo[/]: {rec.trainer.upper()} on {rec.model.model_name_or_path}, {args.max_steps} "
                  f"steps x {args.per_device_train_batch_size} completions ({args.num_generations} per prompt, "
                  f"<= {args.max_completion_length} tokens), rewards {[r.__name__ for r in recorders]}, "
                  f"screen every {args.save_steps} steps + baseline, {n_threads} torch thread(s) -> {out}")
    trainer.train()
    trainer.save_model(str(out))
    drop_checkpoint_weights(out)  # one copy of the weights: the final model (checkpoints keep their screen reports)
    try:
        import wandb

        if wandb.run is not None:
            wandb.finish()
    except Exception:  # noqa: BLE001 - wandb is optional
        pass
    summary = summarise(trainer, recorders, out, time.perf_counter() - t0)
    from rewards.adapters.files import atomic_write

    atomic_write(out / "summary.json", json.dumps(summary, indent=2, default=str))  # never half a summary
    print_summary(summary, console)
    return summary
