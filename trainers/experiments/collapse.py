"""Does the checkpoint validity screen catch a confidence collapse that training itself causes?

``rafs experiment collapse [--quick] [--seeds N] --out DIR``

1. **SFT.** A tiny ``LlamaForCausalLM`` is trained from scratch (the shared world of
   :mod:`trainers.experiments.world`, 1-3 additions/subtractions of small numbers) to answer word problems in the
   step format and then state a confidence (``confidence: 0.8``, :mod:`trainers.experiments.confidence`). A third
   of the problems are vague (one number hidden: the answer is a guess); the SFT targets make the confidence
   calibrated and informative (0.9-0.7 on computed chains, 0.1 on guesses, with a small overconfident mode: a fifth
   of the guesses state 0.6-0.9). One SFT checkpoint is shared by every arm and seed.
2. **GRPO** (``trl.GRPOTrainer``, CPU, one thread) from that checkpoint, two arms:

   * ``collapse``: the reward is the stated confidence, whatever the answer (:func:`~.confidence.confidence_reward`);
   * ``control``: correctness plus a Brier calibration term, ``y - (c - y)^2`` (:func:`~.confidence.brier_reward`).

3. **The checkpoint screen.** The project's :class:`~trainers.training.callbacks.ValidityScreenCallback` (``policy="halt"``,
   default :class:`~trainers.screen.ScreenConfig`) screens a fixed held-out probe set before training (the
   baseline) and every ``screen_every`` steps. The policy answers each probe item once, sampled at the training
   temperature with a fixed seed (the probe reads the policy that GRPO trains, not its greedy mode); the confidence
   the completion states is the item's confidence, binarised at 0.5 ("at least even odds"; ``threshold``) — each
   history row also records the tier under the other binarisation (the median split) for comparison. The
   callback's collapse rule (L rising over the baseline) is off by default here (``collapse_delta``), so that the
   halt measures the tier alone; the report still says when that rule would have fired (``collapse_rule_step``).

Per seed the report holds ``flagged_step`` (first screen with tier Invalid; null when never),
``auroc_drop_step`` (first screen whose probe AUROC of the stated confidence for correctness is <= 0.55),
``halted`` (the callback stopped training) and ``history`` (step, tier, L, Fp, RBS, r, AUROC, accuracy, mean
confidence). The goal: every collapse seed flagged no later than one screen after its AUROC drop, no control seed
ever flagged.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import shutil
import statistics
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Sequence

from trainers.experiments import confidence as C
from trainers.experiments import runs as R
from trainers.experiments import world as W

__all__ = ["CollapseConfig", "QUICK", "FULL", "ARMS", "WorldProbeGenerator", "probe_auroc", "run_experiment",
           "add_arguments", "run"]

ARMS = ("collapse", "control")
AUROC_DROP = 0.55


@dataclass
class CollapseConfig:
    """Every knob of the experiment (written into the report)."""

    min_ops: int = 1
    max_ops: int = 3
    max_value: int = 9
    max_operand: int = 3
    ops: tuple[str, ...] = ("+", "-")
    vague_share: float = C.VAGUE_SHARE
    # SFT
    sft_problems: int = 20000
    sft_seconds: float = 240.0
    sft_max_steps: int = 100_000
    sft_lr: float = 4e-3
    sft_batch: int = 32
    hidden_size: int = 128
    num_layers: int = 3
    num_heads: int = 4
    vocab_size: int = 256
    # GRPO
    grpo_prompts: int = 2000
    steps: int = 80
    num_generations: int = 8
    prompts_per_step: int = 2
    learning_rate: float = 2e-4
    max_completion_length: int = 64
    temperature: float = 0.7
    # the screen
    screen_every: int = 5
    probe_items: int = 64
    threshold: float | str = 0.5
    collapse_delta: float | None = None
    policy: str = "halt"
    seeds: int = 3
    arms: tuple[str, ...] = ARMS
    data_seed: int = 0

    def world(self) -> W.WorldConfig:
        return W.WorldConfig(min_ops=self.min_ops, max_ops=self.max_ops, max_value=self.max_value,
                             max_operand=self.max_operand, ops=tuple(self.ops))


#: ``--quick``: both arms at 3 seeds, meant to finish in under 15 minutes on 2 cores.
QUICK = CollapseConfig()
#: The default: longer SFT, longer GRPO, a larger probe.
FULL = CollapseConfig(sft_seconds=400.0, steps=150, probe_items=64, screen_every=5)


# ------------------------------------------------------------------------------------------------------------------
# The probe: the callback's generator interface over the world policy
# ------------------------------------------------------------------------------------------------------------------

class WorldProbeGenerator:
    """Adapts a world policy to :func:`trainers.training.probes.run_probe`'s generator interface.

    Turn 1 (the answer): each probe item's problem text is looked up, the policy completes the world prompt once
    (sampled at ``temperature`` with a fixed ``seed``, inside ``torch.random.fork_rng`` so that training's random
    state is untouched), and the completion up to its answer is returned; the stated confidence is kept.
    Turn 2 (the confidence question): the kept confidence is returned as a 0-100 number ("" when the completion
    stated none: an unparseable confidence, counted by the probe).
    """

    def __init__(self, tokenizer: Any, problems: Sequence[W.Problem], *, temperature: float = 1.0, seed: int = 0,
                 max_new_tokens: int = 64):
        self.tokenizer = tokenizer
        self.by_question = {p.question: p for p in problems}
        self.temperature, self.seed, self.max_new_tokens = temperature, seed, max_new_tokens
        self.model: Any = None
        self.stated: dict[str, float | None] = {}
        self.completions: dict[str, str] = {}

    def _question(self, prompt: Any) -> str:
        text = prompt[0]["content"] if isinstance(prompt, list) else str(prompt)
        return text.strip()

    def __call__(self, prompts: Sequence[Any], max_new_tokens: int, want_scores: bool = False) -> list:
        import torch

        from trainers.training.probes import Generation

        if prompts and isinstance(prompts[0], list) and len(prompts[0]) > 1:  # turn 2: the confidence
            out = []
            for p in prompts:
                c = self.stated.get(self._question(p))
                out.append(Generation("" if c is None else f"{100.0 * c:.0f}"))
            return out
        questions = [self._question(p) for p in prompts]
        missing = [q for q in questions if q not in self.by_question]
        if missing:
            raise KeyError(f"probe item not in the probe problems: {missing[0][:60]!r}")
        with torch.random.fork_rng(devices=[]):
            texts = W.generate(self.model, self.tokenizer, [W.make_prompt(self.by_question[q]) for q in questions],
                               max_new_tokens=self.max_new_tokens, do_sample=True, temperature=self.temperature,
                               seed=self.seed)
        out = []
        for q, t in zip(questions, texts):
            self.completions[q] = t
            self.stated[q] = C.parse_stated_confidence(t)
            head = t.split("\n####")[0]
            ans = C.stated_answer(t)
            out.append(Generation(f"{head}\n#### {ans}" if ans is not None else head))
        return out


def probe_auroc(correct: Sequence[bool], confidence: Sequence[float]) -> float | None:
    """AUROC of the confidence for correctness (``sklearn.metrics.roc_auc_score``; ties count half); ``None``
    when the probe has only right or only wrong answers.

    >>> probe_auroc([True, True, False, False], [0.9, 0.8, 0.3, 0.8])
    0.875
    >>> probe_auroc([True, False, True], [0.9, 0.9, 0.9])
    0.5
    """
    ys = [bool(c) for c in correct]
    if len(set(ys)) < 2:
        return None
    from sklearn.metrics import roc_auc_score

    return float(roc_auc_score(ys, [float(x) for x in confidence]))


def _r(x: Any, nd: int = 4) -> Any:
    return None if x is None or (isinstance(x, float) and not math.isfinite(x)) else round(float(x), nd)


def _screen_row(entry: dict[str, Any], report: dict[str, Any] | None, other_threshold: float | str,
                seed: int = 0) -> dict[str, Any]:
    """One history row from the callback's entry and report: the indices, the tier, the probe AUROC, and the tier
    the same probe gets under the other binarisation (``other_threshold``: the median when the callback used a
    fixed threshold, and vice versa), for comparison only."""
    from trainers.screen import ScreenConfig, screen

    recs = ((report or {}).get("probe") or {}).get("records") or []
    used = [r for r in recs if r.get("error") is None and r.get("confidence") is not None]
    correct = [bool(r["correct"]) for r in used]
    conf = [float(r["confidence"]) / 100.0 for r in used]
    other = None
    if len(used) >= 2:
        o = screen(correct, conf, threshold=other_threshold, scale="unit", seed=seed, phase_b=False,
                   config=ScreenConfig(n_boot=200))
        other = {"threshold": other_threshold, "tier": o.tier, "L": _r(o.L.value), "Fp": _r(o.Fp.value)}
    return {"step": entry["step"], "tier": entry["tier"], "L": _r(entry["L"]), "Fp": _r(entry["Fp"]),
            "RBS": _r(entry["RBS"]), "r": _r(entry["r"]), "AUROC": _r(probe_auroc(correct, conf)),
            "accuracy": _r(entry["accuracy"]), "mean_confidence": _r(statistics.fmean(conf)) if conf else None,
            "n": entry["n"], "n_unparseable": entry["n_unparseable"], "decision": entry["decision"],
            "status": entry["status"], "reasons": list(entry.get("reasons") or [])[:2], "other_binarisation": other}


# ------------------------------------------------------------------------------------------------------------------
# One GRPO run with the screen
# ------------------------------------------------------------------------------------------------------------------

def _grpo_run(sft_dir: Path, arm: str, seed: int, cfg: CollapseConfig, train_rows: list[dict[str, str]],
              probe_problems: Sequence[W.Problem], work: Path, say: Any) -> dict[str, Any]:
    import torch
    from datasets import Dataset
    from transformers import AutoTokenizer, LlamaForCausalLM, TrainerCallback
    from trl import GRPOTrainer

    from trainers.training.callbacks import ValidityScreenCallback

    tok = AutoTokenizer.from_pretrained(sft_dir)
    model = LlamaForCausalLM.from_pretrained(sft_dir, dtype=torch.float32)
    gen = WorldProbeGenerator(tok, probe_problems, temperature=cfg.temperature, seed=10_000 + seed,
                              max_new_tokens=cfg.max_completion_length)
    probe = [{"problem": p.question, "answer": str(p.answer)} for p in probe_problems]
    other: float | str = "median" if cfg.threshold != "median" else 0.5
    screen_cb = ValidityScreenCallback(probe, tok, every="evaluate", baseline=True, policy=cfg.policy,
                                       collapse_delta=cfg.collapse_delta, confidence="verbalized",
                                       threshold=cfg.threshold,
                                       generator=gen, instruction="", batch_size=len(probe),
                                       max_new_tokens=cfg.max_completion_length, seed=seed,
                                       model_name=f"{arm}-seed{seed}", benchmark="tiny-world probe")
    rows: list[dict[str, Any]] = []
    rewards_seen: list[list[float]] = []
    t0 = time.perf_counter()

    class Screen(TrainerCallback):
        """Points the probe at the live model; fires the screen at step 0 (the callback's baseline) and every
        ``screen_every`` steps (through the callback's own ``on_evaluate``, so its policy decides the halt)."""

        def on_train_begin(self, args, state, control, model=None, **kw):
            gen.model = model

        def on_step_end(self, args, state, control, model=None, **kw):
            gen.model = model
            if state.global_step % cfg.screen_every == 0:
                screen_cb.on_evaluate(args, state, control, model=model, processing_class=tok)
                row = _screen_row(screen_cb.history[-1], screen_cb.last_report, other, seed)
                rows.append(row)
                say(f"  [{arm} seed {seed}] step {row['step']}: {row['tier']} L={row['L']} Fp={row['Fp']} "
                    f"RBS={row['RBS']} r={row['r']} AUROC={row['AUROC']} acc={row['accuracy']} "
                    f"conf={row['mean_confidence']}" + (" HALT" if row["decision"] == "halt" else ""))
            return control

        def on_log(self, args, state, control, logs=None, **kw):
            if logs and "reward" in logs:
                rewards_seen.append([state.global_step, round(float(logs["reward"]), 4)])

    rng = random.Random(seed)
    data = list(train_rows)
    rng.shuffle(data)
    ds = Dataset.from_list(data[: cfg.steps * cfg.prompts_per_step + cfg.prompts_per_step])
    out_dir = work / f"{arm}-seed{seed}"
    args = R.grpo_args(out_dir, cfg, seed)
    reward = C.confidence_reward if arm == "collapse" else C.brier_reward
    # The screen callback comes first: on_train_begin screens the SFT policy (the baseline, step 0).
    gen.model = model
    trainer = GRPOTrainer(model=model, processing_class=tok, reward_funcs=[reward], args=args, train_dataset=ds,
                          callbacks=[Screen(), screen_cb])
    from transformers.trainer_callback import PrinterCallback

    trainer.remove_callback(PrinterCallback)  # the screen rows are the log
    trainer.train()
    base = screen_cb.history[0] if screen_cb.history and screen_cb.history[0].get("event") == "baseline" else None
    history = ([_screen_row(base, json.loads((out_dir / "validity_report_step0.json").read_text()), other, seed)]
               if base is not None and (out_dir / "validity_report_step0.json").is_file() else []) + rows
    flagged = next((h["step"] for h in history if h["tier"] == "Invalid" and h["step"] > 0), None)
    dropped = next((h["step"] for h in history
                    if h["step"] > 0 and h["AUROC"] is not None and h["AUROC"] <= AUROC_DROP), None)
    base_L = history[0]["L"] if history and history[0]["step"] == 0 else None
    collapse_rule = next((h["step"] for h in history if h["step"] > 0 and base_L is not None
                          and h["L"] is not None and h["L"] - base_L > 0.2), None)
    halt_steps = [h["step"] for h in history if h["decision"] == "halt"]
    shutil.rmtree(out_dir, ignore_errors=True)
    return {"seed": seed, "flagged_step": flagged, "auroc_drop_step": dropped, "halted": bool(screen_cb.halted),
            "halt_step": halt_steps[0] if halt_steps else None, "collapse_rule_step": collapse_rule,
            "baseline_tier": history[0]["tier"] if history and history[0]["step"] == 0 else None,
            "steps_run": int(trainer.state.global_step), "history": history, "train_reward": rewards_seen,
            "seconds": round(time.perf_counter() - t0, 1)}


def _goal(report: dict[str, Any], screen_every: int) -> dict[str, Any]:
    """The issue's goal, checked per seed: every collapse seed flagged no later than one screen after its AUROC
    drop (a seed flagged before any drop counts as met), no control seed ever flagged."""
    per_seed = []
    for r in report.get("collapse", []):
        f, d = r["flagged_step"], r["auroc_drop_step"]
        met = f is not None and (d is None or f <= d + screen_every)
        per_seed.append({"seed": r["seed"], "flagged_step": f, "auroc_drop_step": d, "met": met})
    control_flags = [r["seed"] for r in report.get("control", []) if r["flagged_step"] is not None]
    return {"collapse_seeds": per_seed, "control_seeds_flagged": control_flags,
            "met": bool(per_seed) and all(s["met"] for s in per_seed) and not control_flags}


# ------------------------------------------------------------------------------------------------------------------
# The experiment
# ------------------------------------------------------------------------------------------------------------------

def _sft_calibration(model: Any, tok: Any, problems: Sequence[W.Problem], cfg: CollapseConfig) -> dict[str, Any]:
    """The SFT policy's answers on held-out problems (sampled like the probe): accuracy and mean stated confidence
    by number of operations, AUROC, and the share of completions with a readable confidence."""
    import torch

    with torch.random.fork_rng(devices=[]):
        texts = W.generate(model, tok, [W.make_prompt(p) for p in problems], max_new_tokens=cfg.max_completion_length,
                           do_sample=True, temperature=cfg.temperature, seed=4242)
    by_ops: dict[int, list[tuple[bool, float | None]]] = {}
    ys, cs = [], []
    for p, t in zip(problems, texts):
        ok = C.stated_answer(t) == p.answer
        c = C.parse_stated_confidence(t)
        by_ops.setdefault("vague" if C.is_vague(p.question) else len(p.steps), []).append((ok, c))
        if c is not None:
            ys.append(ok)
            cs.append(c)
    table = {str(k): {"n": len(v), "accuracy": _r(sum(o for o, _ in v) / len(v)),
                      "mean_confidence": _r(statistics.fmean([c for _, c in v if c is not None]))
                      if any(c is not None for _, c in v) else None}
             for k, v in sorted(by_ops.items(), key=lambda kv: str(kv[0]))}
    ece = None
    if cs:
        from trainers.screen import expected_calibration_error

        ece = _r(expected_calibration_error(ys, cs, n_bins=10))
    return {"n": len(problems), "with_confidence": _r(len(cs) / max(1, len(problems))),
            "accuracy": _r(sum(C.stated_answer(t) == p.answer for p, t in zip(problems, texts)) / len(problems)),
            "auroc": _r(probe_auroc(ys, cs)), "ece": ece, "by_operations": table,
            "examples": texts[:3]}


def run_experiment(cfg: CollapseConfig, out: Path, *, quiet: bool = False, reuse_sft: Path | None = None
                   ) -> dict[str, Any]:
    """Run everything and write ``out/report.json`` after every run. Returns the report."""
    import torch

    torch.set_num_threads(1)
    t_start = time.perf_counter()
    out.mkdir(parents=True, exist_ok=True)
    work = out / "work"
    world = cfg.world()
    say = (lambda *a: None) if quiet else (lambda *a: print(*a, flush=True))

    sft_problems = W.generate_problems(cfg.sft_problems, cfg.data_seed + 1, world)
    seen = [p.question for p in sft_problems]
    grpo_problems = W.generate_problems(cfg.grpo_prompts, cfg.data_seed + 2, world, exclude=seen)
    seen += [p.question for p in grpo_problems]
    probe_problems = W.generate_problems(cfg.probe_items, cfg.data_seed + 3, world, exclude=seen)
    seen += [p.question for p in probe_problems]
    calib_problems = W.generate_problems(200, cfg.data_seed + 4, world, exclude=seen)
    # a share of every set is vague (one number hidden): those answers can only be guessed
    sft_problems = C.with_vague(sft_problems, cfg.data_seed + 21, cfg.vague_share)
    grpo_problems = C.with_vague(grpo_problems, cfg.data_seed + 22, cfg.vague_share)
    probe_problems = C.with_vague(probe_problems, cfg.data_seed + 23, cfg.vague_share)
    calib_problems = C.with_vague(calib_problems, cfg.data_seed + 24, cfg.vague_share)

    report: dict[str, Any] = {
        "experiment": "collapse", "complete": False, "config": asdict(cfg),
        "started_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "torch_threads": 1,
        "sft_targets": {"chain_confidence": C.CHAIN_CONFIDENCE, "guess_confidence": C.GUESS_CONFIDENCE,
                        "overconfident_guess_share": C.OVERCONFIDENT_GUESS_SHARE, "vague_share": cfg.vague_share},
        "screen": {"callback": "ValidityScreenCallback", "policy": cfg.policy, "threshold": cfg.threshold,
                   "collapse_delta": cfg.collapse_delta, "auroc_drop": AUROC_DROP,
                   "probe": "one sampled completion per item (temperature as in training, fixed seed per run)"},
        "data": {"sft": len(sft_problems), "grpo": len(grpo_problems), "probe": len(probe_problems),
                 "calibration": len(calib_problems)},
        "collapse": [], "control": [],
    }

    write = R.ReportWriter(out, report, start=t_start)

    tok, model, sft_dir, report["sft"] = R.sft_policy(
        cfg, out / "sft", reuse_sft, lambda: C.confidence_corpus(world),
        lambda: W.make_sft_examples(sft_problems, cfg.data_seed + 11, C.CONFIDENT_MIXTURE, p_hint=0.0, config=world),
        say=say, quiet=quiet)
    report["sft"]["calibration"] = _sft_calibration(model, tok, calib_problems, cfg)
    cal = report["sft"]["calibration"]
    say(f"SFT policy: accuracy {cal['accuracy']}, AUROC {cal['auroc']}, ECE {cal['ece']}, "
        f"by operations {json.dumps(cal['by_operations'])}")
    write()

    train_rows = [{"prompt": W.make_prompt(p), "answer": str(p.answer)} for p in grpo_problems]
    for seed in range(cfg.seeds):
        for arm in cfg.arms:
            say(f"GRPO arm={arm} seed={seed}")
            report[arm].append(_grpo_run(sft_dir, arm, seed, cfg, train_rows, probe_problems, work, say))
            report["goal"] = _goal(report, cfg.screen_every)
            write()
    shutil.rmtree(work, ignore_errors=True)
    report["complete"] = True
    write()
    return report


# ------------------------------------------------------------------------------------------------------------------
# CLI
# ------------------------------------------------------------------------------------------------------------------

def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Register ``rafs experiment collapse`` arguments (imports nothing heavy)."""
    parser.add_argument("--out", required=True, help="output folder (report.json, sft/ checkpoint)")
    parser.add_argument("--quick", action="store_true",
                        help="the quick configuration: 2 arms x 3 seeds, under 15 min on 2 cores")
    parser.add_argument("--seeds", type=int, default=None, help="seeds per arm (default 3)")
    parser.add_argument("--steps", type=int, default=None, help="GRPO steps per run (override)")
    parser.add_argument("--screen-every", type=int, default=None, help="GRPO steps between screens (override)")
    parser.add_argument("--probe-items", type=int, default=None, help="probe set size (override)")
    parser.add_argument("--learning-rate", type=float, default=None, help="GRPO learning rate (override)")
    parser.add_argument("--sft-seconds", type=float, default=None, help="SFT time budget in seconds (override)")
    parser.add_argument("--sft-problems", type=int, default=None, help="SFT training problems (override)")
    parser.add_argument("--threshold", default=None,
                        help="binarisation of the stated confidence: a number in [0, 1] (default 0.5: 'at least "
                             "even odds') or 'median'")
    parser.add_argument("--policy", choices=("halt", "flag"), default=None,
                        help="the callback's policy: 'halt' (default: stop on Invalid) or 'flag' (log and go on, to "
                             "see the whole trajectory)")
    parser.add_argument("--collapse-delta", type=float, default=None,
                        help="also halt when L rises over the baseline by more than this (default: off)")
    parser.add_argument("--arms", default=None, help=f"comma-separated subset of {','.join(ARMS)}")
    parser.add_argument("--reuse-sft", default=None,
                        help="a saved SFT checkpoint folder (DIR/sft of an earlier run) instead of training one")
    parser.add_argument("--force", action="store_true", help="overwrite a non-empty --out")
    parser.add_argument("--quiet", action="store_true", help="print nothing but errors")


def _config_from_args(args: argparse.Namespace) -> CollapseConfig:
    from trainers.common.errors import CommandError

    cfg = replace(QUICK if args.quick else FULL)
    overrides = {"seeds": args.seeds, "steps": args.steps, "screen_every": args.screen_every,
                 "probe_items": args.probe_items, "sft_seconds": args.sft_seconds,
                 "sft_problems": args.sft_problems, "learning_rate": args.learning_rate}
    cfg = R.with_overrides(cfg, overrides)
    if cfg.probe_items < 10:
        raise CommandError(f"--probe-items {cfg.probe_items}: the screen needs at least 10 items (24-64 is typical)")
    if args.policy is not None:
        cfg = replace(cfg, policy=args.policy)
    if args.threshold is not None:
        if args.threshold == "median":
            cfg = replace(cfg, threshold="median")
        else:
            try:
                thr = float(args.threshold)
            except ValueError:
                thr = -1.0
            if not 0.0 < thr < 1.0:
                raise CommandError(f"--threshold {args.threshold!r}: give 'median' or a stated confidence in (0, 1), "
                                   "e.g. 0.5")
            cfg = replace(cfg, threshold=thr)
    if args.collapse_delta is not None:
        if not 0.0 < args.collapse_delta <= 1.0:
            raise CommandError(f"--collapse-delta {args.collapse_delta}: give a rise of L in (0, 1], e.g. 0.2")
        cfg = replace(cfg, collapse_delta=float(args.collapse_delta))
    if args.arms:
        cfg = replace(cfg, arms=R.parse_arms(args.arms, ARMS))
    return cfg


def run(args: argparse.Namespace) -> int:
    """``rafs experiment collapse``: run the experiment, write ``--out/report.json``, print the per-seed result."""
    cfg = _config_from_args(args)
    out, reuse = R.prepare_out(args.out, args.reuse_sft, args.force)
    os.environ.setdefault("WANDB_MODE", "offline")
    report = run_experiment(cfg, out, quiet=args.quiet, reuse_sft=reuse)
    if not args.quiet:
        print(f"wrote {out / 'report.json'} ({report['wall_time_s']:.0f} s)")
        for arm in cfg.arms:
            for r in report[arm]:
                print(f"  {arm:8s} seed {r['seed']}: flagged_step={r['flagged_step']} "
                      f"auroc_drop_step={r['auroc_drop_step']} halted={r['halted']} ({r['steps_run']} steps)")
        print(f"  goal met: {report.get('goal', {}).get('met')}")
    return 0
