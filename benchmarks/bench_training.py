"""Where does a GRPO step's time go? The share spent in the RAFS rewards and in the checkpoint validity screen.

Runs the demo configuration (``recipes/SmolLM2-135M-Instruct/grpo/config_demo.yaml``: SmolLM2-135M-Instruct,
8 completions of <= 64 tokens per step, faithful_accuracy + rafs rewards) for a few steps with every reward
function wrapped in a timer (:class:`trainers.training.demo.RewardRecorder`) and a step timer, and the screen timed by the
callback itself. It measures; it asserts nothing. Target: rewards < 5% of the GRPO step time.

    python benchmarks/bench_training.py                      # 3 steps, one checkpoint screen (+ baseline)
    python benchmarks/bench_training.py --steps 4 --save-steps 2 --threads 1
    python benchmarks/bench_training.py --model /tmp/tiny    # a tiny model: rewards dominate, useful for profiling
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--save-steps", type=int, default=3, help="checkpoint (and screen) every N steps")
    ap.add_argument("--model", default=None, help="model path (default: the demo recipe's SmolLM2-135M-Instruct)")
    ap.add_argument("--probe-size", type=int, default=24, help="screen probe items (demo: 24)")
    ap.add_argument("--threads", default="auto", help="torch threads: auto or a number")
    ap.add_argument("--json", default=None, help="also write the numbers to this JSON file")
    args = ap.parse_args(argv)

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("WANDB_MODE", "offline")
    import torch
    from transformers import TrainerCallback

    from trainers.training.demo import DEMO_RECIPE, RewardRecorder, choose_threads
    from trainers.training.train import build_reward_funcs, build_trainer, load_recipe

    torch.set_num_threads(choose_threads(args.threads))

    class StepTimer(TrainerCallback):
        def __init__(self):
            self.times: list[float] = []
            self._t0 = 0.0

        def on_step_begin(self, a, state, control, **kw):
            self._t0 = time.perf_counter()

        def on_step_end(self, a, state, control, **kw):
            self.times.append(time.perf_counter() - self._t0)

    out = tempfile.mkdtemp(prefix="bench_training_")
    overrides = ["--output_dir", out, "--max_steps", str(args.steps), "--save_steps", str(args.save_steps),
                 "--report_to", "none", "--screen_probe_size", str(args.probe_size), "--disable_tqdm", "true"]
    if args.model:
        overrides += ["--model_name_or_path", args.model]
    recipe = load_recipe(DEMO_RECIPE, overrides)
    recorders = [RewardRecorder(f) for f in build_reward_funcs(recipe.script)]
    timer = StepTimer()
    trainer = build_trainer(recipe, reward_funcs=recorders, callbacks=[timer])
    t0 = time.perf_counter()
    trainer.train()
    total = time.perf_counter() - t0

    steps = timer.times
    step_total = sum(steps)
    from trainers.training.train import screen_callback
    cb = screen_callback(trainer)
    history = cb.history if cb else []
    screen_total = sum(h.get("elapsed_s") or 0.0 for h in history)
    results = {
        "model": recipe.model.model_name_or_path, "torch_threads": torch.get_num_threads(),
        "steps": len(steps), "completions_per_step": recipe.training.per_device_train_batch_size,
        "max_completion_length": recipe.training.max_completion_length,
        "step_seconds_mean": statistics.mean(steps) if steps else None,
        "rewards": {r.__name__: {"seconds_per_step": r.seconds / max(1, len(steps)),
                                 "share_of_step": r.seconds / step_total if step_total else None,
                                 "calls": len(r.calls)} for r in recorders},
        "rewards_share_of_step": sum(r.seconds for r in recorders) / step_total if step_total else None,
        "screens": [{"step": h["step"], "event": h["event"], "seconds": h.get("elapsed_s"), "tier": h.get("tier"),
                     "status": h.get("status")} for h in history],
        "screen_seconds_mean": statistics.mean([h.get("elapsed_s") or 0 for h in history]) if history else None,
        "screen_share_of_run": screen_total / total if total else None,
        "run_seconds": total,
    }
    print(f"model {results['model']}, {results['torch_threads']} torch thread(s), {len(steps)} GRPO steps of "
          f"{results['completions_per_step']} completions (<= {results['max_completion_length']} tokens)")
    print(f"  step time (generation + rewards + update): {results['step_seconds_mean']:.2f} s mean")
    for name, r in results["rewards"].items():
        print(f"  {name:28s} {r['seconds_per_step']:.3f} s/step  = {100 * r['share_of_step']:.2f}% of the step")
    print(f"  all RAFS rewards:            {100 * results['rewards_share_of_step']:.2f}% of the step time "
          f"(target < 5%)")
    if any(r["seconds_per_step"] < 1e-3 for r in results["rewards"].values()):
        print("  (a reward near 0 s reuses the group's RAFS results that an earlier reward computed: the rewards "
              "share one cache per group, so the total is the cost of scoring)")
    for s in results["screens"]:
        print(f"  screen at step {s['step']} ({s['event']}): {s['seconds']:.1f} s, {s['tier'] or s['status']}")
    if history:
        per_step = results["screen_seconds_mean"] / results["step_seconds_mean"] if steps else float("nan")
        results["screen_in_steps"] = per_step
        print(f"  screens: {results['screen_seconds_mean']:.1f} s each = {per_step:.2f} GRPO steps; "
              f"{100 * results['screen_share_of_run']:.1f}% of this whole run ({total:.1f} s, one screen per "
              f"{args.save_steps} steps + the baseline)")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    import shutil

    shutil.rmtree(out, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
