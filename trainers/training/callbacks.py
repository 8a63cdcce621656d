"""The checkpoint validity screen as a transformers/TRL ``TrainerCallback``.

:class:`ValidityScreenCallback` probes the current model on a fixed probe set at every checkpoint (``on_save``),
optionally at every evaluation and once before training (the *baseline*, step 0), screens the confidence signal
with :func:`trainers.screen.screen`, writes the VRS report ``validity_report.json`` into the checkpoint folder,
logs the tier and the indices (``state.log_history`` and wandb when active) and applies a policy:

* ``policy="flag"``: log a warning and go on;
* ``policy="halt"``: ``control.should_training_stop = True`` when the signal is **Invalid**, or when it
  **collapses**: ``L`` (the share of wrong answers given high confidence) rose by more than ``collapse_delta``
  over the baseline — RL pushing the model into blanket confidence.

Tiers follow the paper's point-estimate rule (:mod:`trainers.screen.tiers`), so the alarm can go off on the probe
sizes checkpoints use: a 24-item probe on which every answer is kept and 12 are wrong is Invalid (L = 12/12). On
4,000 simulated healthy 24-item probes (confidence higher on correct answers, median split) 0.2 % were Invalid;
fewer than 5 wrong (or correct) answers make L (or Fp) Indeterminate, never Invalid.

A probe or screen that fails is recorded as a failed screen with its reason; training goes on unless
``halt_on_failure``. The baseline never halts (the model has not been trained yet), it is the reference.

Every rank takes the same decision: the probe runs on every rank (``compute_on="all"``, safe with DeepSpeed
ZeRO-3/FSDP, whose forward passes are collective) or on rank 0 only (``compute_on="main"``), and rank 0's
screen is broadcast with ``torch.distributed`` when a process group is initialised.

The history (one compact entry per screen) is written as ``validity_history.json`` beside every report and
reloaded in ``on_train_begin`` when training resumes from a checkpoint, so collapse is still measured against the
original baseline.

The cheap confidence is the probability the model gives its own short answer (``confidence="token_prob"``, whose
``answer_style`` defaults to ``"short"``: one forward pass over the probe prompts and a few single-token steps, see
:mod:`trainers.training.probes`); the README's GRPO quick start uses it on the probe set shipped with the package
(:func:`trainers.training.probes.default_probe_set`, also used when ``probe_set`` is ``None``). The default,
``confidence="verbalized"`` with a worked answer, generates twice per item and costs minutes per screen on CPU.
Every history entry records the screen's wall and CPU seconds (``elapsed_s``, ``cpu_s``) and ``share_of_interval``:
the screen's wall time over the wall time since the previous screen ended (training, saving and logging
included), the number to watch to keep the screen cheap.

>>> from trainers.training.probes import Generation
>>> def blanket(prompts, max_new_tokens, want_scores=False):    # always answers 7, always 99% sure
...     return [Generation("99" if len(p) > 1 else "#### 7") for p in prompts]
>>> probe = [{"problem": f"What is {a % 8} + 3?", "answer": str(a % 8 + 3)} for a in range(80)]
>>> cb = ValidityScreenCallback(probe, policy="halt", generator=blanket)
>>> entry = cb.screen_model(None, None, step=0)
>>> entry["tier"], entry["L"]
('Invalid', 1.0)
"""

from __future__ import annotations

import json
import logging
import os
import re
import time
from pathlib import Path
from typing import Any, Callable, Mapping

from transformers import TrainerCallback, TrainerControl, TrainerState, TrainingArguments

from trainers.training.probes import (ANSWER_STYLES, CONFIDENCE_MODES, Generation, ProbeResult, default_probe_set,
                             normalise_probe_set, run_probe)
from trainers.screen.phase_b import finite_or_none  # finite float or None (NaN/inf -> None)

__all__ = ["ValidityScreenCallback", "POLICIES", "EVERY", "REPORT_NAME", "HISTORY_NAME", "BASELINE_NAME",
           "load_history"]

log = logging.getLogger(__name__)

POLICIES = ("flag", "halt")
EVERY = ("save", "evaluate", "both")
REPORT_NAME = "validity_report.json"
HISTORY_NAME = "validity_history.json"
BASELINE_NAME = "validity_report_step0.json"
_CKPT = re.compile(r"^checkpoint-(\d+)$")


def load_history(folder: str | os.PathLike) -> list[dict[str, Any]]:
    """The screen history stored in ``folder`` (a checkpoint or the output dir); ``[]`` when there is none."""
    path = Path(folder) / HISTORY_NAME
    if not path.is_file():
        return []
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        log.warning("could not read %s (%s); starting a new screen history", path, exc)
        return []
    return list(data.get("history", [])) if isinstance(data, dict) else list(data)


class ValidityScreenCallback(TrainerCallback):
    """Screen the model's confidence signal at checkpoints; log, flag or halt.

    Args:
        probe_set: ``[{"problem", "answer"}]`` items (20-100 is typical), or a ``datasets.Dataset``; every item
            needs a gold answer. ``None``: the 72 items shipped with the package
            (:func:`trainers.training.probes.default_probe_set`).
        processing_class: the tokenizer; by default the one the trainer passes to the callback.
        every: ``"save"`` (each checkpoint), ``"evaluate"`` (each evaluation) or ``"both"``.
        baseline: screen the untrained model at step 0 in ``on_train_begin`` (skipped when resuming).
        policy: ``"flag"`` or ``"halt"``.
        halt_on_failure: stop training when a screen fails (the probe raised, nothing could be screened).
        collapse_delta: a rise of ``L`` over the baseline by more than this is a collapse (``None`` disables).
        confidence: ``"verbalized"`` (default, 0-100), ``"token_prob"`` (the probability of the model's own
            answer, [0, 1]: the cheap one), ``"keep_withdraw"`` or ``"rafs"``.
        answer_style: ``"short"`` (a few tokens after "The answer is"; default for ``token_prob``) or
            ``"reasoning"`` (a worked solution ending in ``#### X``; default for the other modes).
        max_new_tokens / confidence_max_new_tokens: bounds on the answer (default: the longest gold answer's
            characters + 1 in the short style, 128 in the reasoning style) / the confidence reply.
        batch_size: probe prompts per ``generate`` call (default 128 short, 16 reasoning).
        threshold: binarisation of the confidence, ``"median"`` or a fixed value in [0, 1] (or [0, 100]).
        screen_config: a :class:`trainers.screen.ScreenConfig` (or a dict of its fields).
        compute_on: ``"all"`` ranks run the probe (ZeRO-3/FSDP-safe) or only the ``"main"`` rank.
        generator: replaces the model's generation (see :mod:`trainers.training.probes`); for tests and other engines.
        model_name / benchmark: names written into the VRS report.
        instruction: appended to every probe problem (default: "Solve the problem. Put the final answer after
            ####." in the reasoning style, nothing in the short style).
        token_prob_reduce: ``"mean"`` or ``"min"`` token logprob of the answer span (``confidence="token_prob"``).
        system_prompt: the probe's system message: ``"auto"`` (default: an empty one in the short style, which
            spares SmolLM2's 16-token default system prompt; none in the reasoning style), ``None`` (the chat
            template's default) or a string (see :func:`trainers.training.probes.run_probe`).

    Raises ``ValueError`` naming the field, the value and the fix on a wrong configuration.
    """

    def __init__(self, probe_set: Any = None, processing_class: Any = None, *, every: str = "save",
                 baseline: bool = True, policy: str = "flag", halt_on_failure: bool = False,
                 collapse_delta: float | None = 0.2, confidence: str = "verbalized", answer_style: str | None = None,
                 max_new_tokens: int | None = None, confidence_max_new_tokens: int = 8,
                 batch_size: int | None = None, threshold: str | float = "median", screen_config: Any = None,
                 seed: int = 0, compute_on: str = "all",
                 generator: Callable[..., list[Generation]] | None = None, model_name: str | None = None,
                 benchmark: str = "probe set", instruction: str | None = None, token_prob_reduce: str = "mean",
                 system_prompt: str | None = "auto"):
        if policy not in POLICIES:
            raise ValueError(f"ValidityScreenCallback: policy={policy!r} is not a policy; use 'flag' (log and go "
                             "on) or 'halt' (stop training on Invalid or on a collapse).")
        if every not in EVERY:
            raise ValueError(f"ValidityScreenCallback: every={every!r}; use 'save' (each checkpoint), 'evaluate' "
                             "(each evaluation) or 'both'.")
        if confidence not in CONFIDENCE_MODES:
            raise ValueError(f"ValidityScreenCallback: confidence={confidence!r} is not a confidence mode; use one "
                             f"of {CONFIDENCE_MODES}.")
        if answer_style is not None and answer_style not in ANSWER_STYLES:
            raise ValueError(f"ValidityScreenCallback: answer_style={answer_style!r}; use 'short' (a few tokens "
                             "after 'The answer is') or 'reasoning' (a worked solution ending in '#### X').")
        if answer_style == "short" and confidence == "rafs":
            raise ValueError("ValidityScreenCallback: confidence='rafs' scores the answer's reasoning; use "
                             "answer_style='reasoning' with it (or confidence='token_prob').")
        if token_prob_reduce not in ("mean", "min"):
            raise ValueError(f"ValidityScreenCallback: token_prob_reduce={token_prob_reduce!r}; use 'mean' (mean "
                             "token logprob of the answer span) or 'min' (its least likely token).")
        if compute_on not in ("all", "main"):
            raise ValueError(f"ValidityScreenCallback: compute_on={compute_on!r}; use 'all' (every rank probes, "
                             "needed for ZeRO-3/FSDP) or 'main' (rank 0 probes and broadcasts).")
        if collapse_delta is not None and not (isinstance(collapse_delta, (int, float)) and 0.0 < collapse_delta <= 1.0):
            raise ValueError(f"ValidityScreenCallback: collapse_delta={collapse_delta!r} must lie in (0, 1] (a rise "
                             "of L over the baseline, e.g. 0.2), or be None to disable the collapse rule.")
        for name, value in (("max_new_tokens", max_new_tokens), ("confidence_max_new_tokens",
                                                                 confidence_max_new_tokens),
                            ("batch_size", batch_size)):
            if value is None and name in ("max_new_tokens", "batch_size"):
                continue
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"ValidityScreenCallback: {name}={value!r} must be a positive integer, e.g. 64.")
        if isinstance(threshold, str):
            if threshold != "median":
                raise ValueError(f"ValidityScreenCallback: threshold={threshold!r}; use 'median' or a number in "
                                 "[0, 1] (or a percentage in [0, 100]).")
        elif not isinstance(threshold, (int, float)) or not 0.0 <= float(threshold) <= 100.0:
            raise ValueError(f"ValidityScreenCallback: threshold={threshold!r} is out of range; use 'median' or a "
                             "number in [0, 1] (or a percentage in [0, 100]).")
        if probe_set is None:
            probe_set = default_probe_set()
        try:
            self.probe_set = normalise_probe_set(probe_set)
        except ValueError as exc:
            raise ValueError(f"ValidityScreenCallback: {exc}") from None
        if len(self.probe_set) < 10:
            log.warning("ValidityScreenCallback: a probe set of %d items gives very wide intervals; 20-50 items "
                        "are typical", len(self.probe_set))
        if isinstance(screen_config, Mapping):
            from trainers.screen import ScreenConfig

            try:
                screen_config = ScreenConfig(**dict(screen_config))
            except TypeError as exc:
                raise ValueError(f"ValidityScreenCallback: screen_config has an unknown field ({exc}); use the "
                                 "fields of trainers.screen.ScreenConfig.") from None
        self.processing_class = processing_class
        self.every, self.baseline, self.policy = every, baseline, policy
        self.halt_on_failure, self.collapse_delta, self.confidence = halt_on_failure, collapse_delta, confidence
        self.max_new_tokens, self.confidence_max_new_tokens = max_new_tokens, confidence_max_new_tokens
        self.batch_size, self.threshold, self.screen_config = batch_size, threshold, screen_config
        self.seed, self.compute_on, self.generator = seed, compute_on, generator
        self.model_name, self.benchmark, self.instruction = model_name, benchmark, instruction
        self.token_prob_reduce, self.answer_style, self.system_prompt = token_prob_reduce, answer_style, system_prompt
        self._last_screen_end: float | None = None
        self.history: list[dict[str, Any]] = []
        self.halted = False
        self.last_report: dict[str, Any] | None = None

    # ------------------------------------------------------------------------------------------------ screening
    @property
    def baseline_entry(self) -> dict[str, Any] | None:
        """The reference screen: the step-0 baseline, else the first successful screen."""
        ok = [h for h in self.history if h.get("status") == "ok"]
        base = [h for h in ok if h.get("step") == 0 and h.get("event") == "baseline"]
        return (base or ok or [None])[0]

    def _probe(self, model: Any, tokenizer: Any) -> ProbeResult:
        kwargs: dict[str, Any] = dict(confidence=self.confidence, max_new_tokens=self.max_new_tokens,
                                      confidence_max_new_tokens=self.confidence_max_new_tokens,
                                      batch_size=self.batch_size, generator=self.generator,
                                      token_prob_reduce=self.token_prob_reduce, answer_style=self.answer_style,
                                      system_prompt=self.system_prompt)
        if self.instruction is not None:
            kwargs["instruction"] = self.instruction
        return run_probe(model, tokenizer, self.probe_set, **kwargs)

    def screen_model(self, model: Any, tokenizer: Any, *, step: int, event: str = "save",
                     epoch: float | None = None) -> dict[str, Any]:
        """Probe and screen ``model`` now; return the history entry (``report`` holds the full VRS report).

        Applies the policy to the entry (``entry["decision"]`` is ``"continue"`` or ``"halt"``) but touches no
        trainer state; the ``on_*`` hooks do that.
        """
        t0, c0 = time.perf_counter(), time.process_time()
        log.info("validity screen at step %d (%s): probing %d items, %s confidence", step, event,
                 len(self.probe_set), self.confidence)
        entry: dict[str, Any] = {"step": int(step), "event": event, "epoch": finite_or_none(epoch), "status": "ok",
                                 "reason": None, "tier": None, "L": None, "Fp": None, "RBS": None, "r": None,
                                 "TRIN": None, "accuracy": None, "n": 0, "n_unparseable": 0, "n_failed": 0,
                                 "collapse": False, "decision": "continue", "reasons": []}
        report: dict[str, Any] = {"step": int(step), "event": event}
        try:
            from trainers.screen import screen

            probe = self._probe(model, tokenizer)
            entry.update(n_unparseable=probe.n_unparseable, n_failed=probe.n_failed, accuracy=probe.accuracy)
            report["probe"] = probe.to_dict(include_records=True)
            if len(probe.correct) < 2:
                why = (f"only {len(probe.correct)} of {probe.n_items} probe items could be screened "
                       f"({probe.n_failed} failed, {probe.n_unparseable} unparseable confidences)")
                if probe.failures:
                    why += f"; first failure: {probe.failures[0]}"
                raise RuntimeError(why)
            result = screen(probe.correct, probe.confidence, threshold=self.threshold, config=self.screen_config,
                            seed=self.seed, scale=probe.screen_scale,
                            metadata={"model": self.model_name, "benchmark": self.benchmark, "step": int(step),
                                      "elicitation": self.confidence, "probe_timing": f"{event} at step {step}"})
            entry.update(tier=result.tier, L=finite_or_none(result.L.value), Fp=finite_or_none(result.Fp.value),
                         RBS=finite_or_none(result.RBS.value), r=finite_or_none(result.r.value), TRIN=finite_or_none(result.TRIN.value),
                         n=int(result.n), reasons=list(result.reasons))
            report["screen"] = result.to_dict()
        except Exception as exc:  # noqa: BLE001 - a failed screen is reported, not raised
            entry.update(status="failed", reason=f"{type(exc).__name__}: {exc}")
            log.warning("validity screen at step %d failed: %s", step, entry["reason"])
        entry["elapsed_s"] = round(time.perf_counter() - t0, 3)
        entry["cpu_s"] = round(time.process_time() - c0, 3)
        self._decide(entry)
        report.update({
            "vrs": {"model": self.model_name, "benchmark": self.benchmark, "n": entry["n"],
                    "accuracy": entry["accuracy"], "elicitation": self.confidence,
                    "answer_style": (report.get("probe") or {}).get("answer_style"),
                    "format": {"verbalized": "0-100", "keep_withdraw": "KEEP/WITHDRAW", "token_prob": "[0, 1]",
                               "rafs": "0-100"}[self.confidence],
                    "threshold": self.threshold, "probe_timing": f"{event} at step {step}",
                    "tier": entry["tier"], "L": entry["L"], "Fp": entry["Fp"], "RBS": entry["RBS"],
                    "r": entry["r"], "TRIN": entry["TRIN"]},
            "status": entry["status"], "reason": entry["reason"], "policy": self.policy,
            "decision": entry["decision"], "collapse": entry["collapse"], "collapse_delta": self.collapse_delta,
            "baseline": None if self.baseline_entry is None else {k: self.baseline_entry.get(k) for k in
                                                                   ("step", "tier", "L", "Fp", "RBS", "r")},
            "elapsed_s": entry["elapsed_s"], "cpu_s": entry["cpu_s"],
        })
        entry["report"] = report
        return entry

    def _decide(self, entry: dict[str, Any]) -> None:
        reasons: list[str] = []
        if entry["status"] == "failed":
            if self.halt_on_failure:
                reasons.append(f"the screen failed ({entry['reason']}) and halt_on_failure=True")
        elif entry["event"] != "baseline":
            if entry["tier"] == "Invalid":
                reasons.append("the confidence signal is Invalid: " + "; ".join(entry["reasons"][:3]))
            base = self.baseline_entry
            if (self.collapse_delta is not None and base is not None and base.get("L") is not None
                    and entry["L"] is not None and entry["L"] - base["L"] > self.collapse_delta):
                entry["collapse"] = True
                reasons.append(f"collapse: L rose from {base['L']:.3f} (step {base['step']}) to {entry['L']:.3f}, "
                               f"more than collapse_delta={self.collapse_delta}")
        halt = bool(reasons) and (self.policy == "halt" or entry["status"] == "failed")
        entry["decision"] = "halt" if halt else ("flag" if reasons else "continue")
        entry["policy_reasons"] = reasons

    # ------------------------------------------------------------------------------------------------ plumbing
    @staticmethod
    def _dist() -> tuple[bool, int]:
        try:
            import torch.distributed as dist
        except ImportError:  # pragma: no cover
            return False, 0
        if dist.is_available() and dist.is_initialized() and dist.get_world_size() > 1:
            return True, dist.get_rank()
        return False, 0

    def _run(self, args: TrainingArguments, state: TrainerState, control: TrainerControl, event: str,
             model: Any, processing_class: Any) -> dict[str, Any] | None:
        step = int(state.global_step)
        if self.history and self.history[-1]["step"] == step and self.history[-1]["event"] != "baseline" \
                and event != "baseline":
            entry = self.history[-1]  # saved and evaluated at the same step: screen once
            if event == "save" and state.is_world_process_zero:
                self._write(args, step, event, self.last_report)
        else:
            started = time.perf_counter()
            distributed, rank = self._dist()
            entry = None
            if self.compute_on == "all" or rank == 0:
                tok = self.processing_class if self.processing_class is not None else processing_class
                entry = self.screen_model(model, tok, step=step, event=event, epoch=state.epoch)
            if distributed:
                import torch.distributed as dist

                box = [entry]
                dist.broadcast_object_list(box, src=0)
                entry = box[0]
            report = entry.pop("report", None)
            interval = None if self._last_screen_end is None else started - self._last_screen_end
            entry["share_of_interval"] = (round(entry["elapsed_s"] / interval, 4)
                                          if interval and entry.get("elapsed_s") is not None else None)
            if report is not None:
                report["share_of_interval"] = entry["share_of_interval"]
            self._last_screen_end = time.perf_counter()
            self.last_report = report
            self.history.append(entry)
            if state.is_world_process_zero:
                self._write(args, step, event, report)
                self._log(args, state, entry)
        if event == "save" and state.is_world_process_zero:
            self._write_history(Path(args.output_dir) / f"checkpoint-{step}")
        if entry["decision"] == "halt":
            control.should_training_stop = True
            self.halted = True
            log.warning("validity screen at step %d: halting training: %s", step, "; ".join(entry["policy_reasons"]))
        elif entry["decision"] == "flag":
            log.warning("validity screen at step %d: flagged: %s", step, "; ".join(entry["policy_reasons"]))
        return entry

    def _write(self, args: TrainingArguments, step: int, event: str, report: dict[str, Any] | None) -> None:
        out = Path(args.output_dir)
        try:
            out.mkdir(parents=True, exist_ok=True)
            if event == "baseline":
                target = out / BASELINE_NAME
            elif event == "save":
                folder = out / f"checkpoint-{step}"
                folder.mkdir(parents=True, exist_ok=True)
                target = folder / REPORT_NAME
            else:
                target = out / f"validity_report_eval_step{step}.json"
            target.write_text(json.dumps(report, indent=2, default=str))
            self._write_history(out)
        except OSError as exc:
            log.warning("could not write the validity report for step %d: %s", step, exc)

    def _write_history(self, folder: Path) -> None:
        try:
            folder.mkdir(parents=True, exist_ok=True)
            (folder / HISTORY_NAME).write_text(json.dumps({"history": self.history}, indent=2, default=str))
        except OSError as exc:
            log.warning("could not write %s: %s", folder / HISTORY_NAME, exc)

    def _log(self, args: TrainingArguments, state: TrainerState, entry: dict[str, Any]) -> None:
        metrics: dict[str, Any] = {"validity/tier": entry["tier"] or "failed",
                                   "validity/status": entry["status"], "validity/decision": entry["decision"]}
        for key in ("L", "Fp", "RBS", "r", "TRIN", "accuracy"):
            if entry.get(key) is not None:
                metrics[f"validity/{key}"] = entry[key]
        metrics["validity/n_unparseable"] = entry["n_unparseable"]
        metrics["validity/n_failed"] = entry["n_failed"]
        metrics["validity/collapse"] = int(entry["collapse"])
        state.log_history.append({**metrics, "step": entry["step"]})
        level = logging.WARNING if entry["decision"] != "continue" or entry["status"] != "ok" else logging.INFO
        def f(x: Any) -> str:
            return "-" if x is None else f"{x:.3f}"

        log.log(level, "validity screen at step %d (%s): %s, L=%s Fp=%s RBS=%s r=%s, accuracy %s, decision %s%s",
                entry["step"], entry["event"], entry["tier"] or "failed", f(entry["L"]), f(entry["Fp"]),
                f(entry["RBS"]), f(entry["r"]), f(entry["accuracy"]), entry["decision"],
                f" ({entry['reason']})" if entry["reason"] else "")
        report_to = args.report_to if isinstance(args.report_to, (list, tuple)) else [args.report_to]
        if "wandb" in report_to or "all" in report_to:
            try:
                import wandb

                if wandb.run is not None:
                    numeric = {k: v for k, v in metrics.items() if isinstance(v, (int, float))}
                    wandb.log({**numeric, "validity/tier_code": {"Valid": 0, "Indeterminate": 1,
                                                                 "Invalid": 2}.get(entry["tier"], -1),
                               "train/global_step": entry["step"]})
            except Exception as exc:  # noqa: BLE001 - logging must not stop training
                log.debug("wandb logging of the validity screen failed: %s", exc)

    def _resume_history(self, args: TrainingArguments, state: TrainerState) -> None:
        step = int(state.global_step)
        candidates: list[Path] = []
        resume = getattr(args, "resume_from_checkpoint", None)
        if isinstance(resume, str) and resume:
            candidates.append(Path(resume))
        out = Path(args.output_dir)
        candidates.append(out / f"checkpoint-{step}")
        if out.is_dir():
            found = sorted(((int(m.group(1)), p) for p in out.iterdir()
                            if (m := _CKPT.match(p.name)) and int(m.group(1)) <= step), reverse=True)
            candidates.extend(p for _, p in found)
        for folder in candidates:
            history = load_history(folder)
            if history:
                self.history = [h for h in history if int(h.get("step", 0)) <= step]
                log.info("validity screen: resumed a history of %d screens from %s", len(self.history), folder)
                return
        log.warning("validity screen: resuming at step %d but no %s was found in the checkpoints of %s; collapse "
                    "is measured against the next screen", step, HISTORY_NAME, out)

    # ------------------------------------------------------------------------------------------------ events
    def on_train_begin(self, args: TrainingArguments, state: TrainerState, control: TrainerControl, **kwargs: Any):
        self.halted = False
        if state.global_step > 0:
            if not self.history:
                self._resume_history(args, state)
            return control
        if self.baseline and not any(h.get("event") == "baseline" for h in self.history):
            self._run(args, state, control, "baseline", kwargs.get("model"), kwargs.get("processing_class"))
        return control

    def on_save(self, args: TrainingArguments, state: TrainerState, control: TrainerControl, **kwargs: Any):
        if self.every in ("save", "both"):
            self._run(args, state, control, "save", kwargs.get("model"), kwargs.get("processing_class"))
        return control

    def on_evaluate(self, args: TrainingArguments, state: TrainerState, control: TrainerControl, **kwargs: Any):
        if self.every in ("evaluate", "both"):
            self._run(args, state, control, "evaluate", kwargs.get("model"), kwargs.get("processing_class"))
        return control
