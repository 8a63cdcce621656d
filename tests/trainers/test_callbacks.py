"""ValidityScreenCallback: baseline, flag, halt, collapse, failures, resume, and config errors at construction.

The model's probe output is made deterministic by construction: the callback gets a scripted ``generator``
(turn 1 = answer, turn 2 = confidence reply), so each test knows the 2x2 table it screens.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("transformers")
from transformers import TrainerControl, TrainerState, TrainingArguments  # noqa: E402

from trainers.training.callbacks import BASELINE_NAME, HISTORY_NAME, REPORT_NAME, ValidityScreenCallback, load_history  # noqa: E402
from trainers.training.probes import Generation  # noqa: E402


def probe_set(n: int) -> list[dict[str, str]]:
    return [{"problem": f"Item {i}: what is {i} + 1?", "answer": str(i + 1)} for i in range(n)]


class Scripted:
    """Half the items right (even i); confidence per mode: 'calibrated' (90 right / 10 wrong) or 'blanket' (99)."""

    def __init__(self, mode: str = "calibrated"):
        self.mode = mode

    def __call__(self, prompts, max_new_tokens, want_scores=False):
        out = []
        for p in prompts:
            i = int(p[0]["content"].split()[1].rstrip(":"))
            right = i % 2 == 0
            if len(p) == 1:
                out.append(Generation(f"{i} + 1 = {i + 1}\n#### {i + 1 if right else i + 2}"))
            elif self.mode == "blanket":
                out.append(Generation("99"))
            else:
                out.append(Generation("90" if right else "10"))
        return out


def make_args(tmp_path: Path) -> TrainingArguments:
    return TrainingArguments(output_dir=str(tmp_path), use_cpu=True, report_to="none")


def fire(cb, event: str, args, step: int) -> tuple[TrainerState, TrainerControl]:
    state, control = TrainerState(), TrainerControl()
    state.global_step = step
    getattr(cb, event)(args, state, control, model=None, processing_class=None)
    return state, control


def test_baseline_then_flag_on_invalid_writes_reports_and_logs(tmp_path):
    gen = Scripted("calibrated")
    cb = ValidityScreenCallback(probe_set(80), generator=gen, policy="flag")
    args = make_args(tmp_path)
    state, control = fire(cb, "on_train_begin", args, 0)
    assert cb.history[0]["event"] == "baseline" and cb.history[0]["tier"] == "Valid"
    assert cb.history[0]["L"] == 0.0 and cb.history[0]["Fp"] == 0.0
    assert (tmp_path / BASELINE_NAME).is_file()
    assert any(row.get("validity/tier") == "Valid" for row in state.log_history)

    gen.mode = "blanket"
    (tmp_path / "checkpoint-5").mkdir()
    state, control = fire(cb, "on_save", args, 5)
    entry = cb.history[-1]
    assert entry["tier"] == "Invalid" and entry["L"] == 1.0
    assert entry["collapse"] is True and entry["decision"] == "flag"
    assert control.should_training_stop is False  # flag: log and go on
    report = json.loads((tmp_path / "checkpoint-5" / REPORT_NAME).read_text())
    assert report["screen"]["tier"] == "Invalid" and report["vrs"]["elicitation"] == "verbalized"
    assert report["baseline"]["L"] == 0.0 and report["decision"] == "flag"
    assert len(report["probe"]["records"]) == 80
    assert [h["step"] for h in load_history(tmp_path / "checkpoint-5")] == [0, 5]
    logged = [row for row in state.log_history if "validity/tier" in row]
    assert logged[-1]["validity/tier"] == "Invalid" and logged[-1]["validity/L"] == 1.0


def test_halt_on_invalid(tmp_path):
    cb = ValidityScreenCallback(probe_set(80), generator=Scripted("blanket"), policy="halt", baseline=False)
    _, control = fire(cb, "on_save", make_args(tmp_path), 3)
    assert cb.history[-1]["tier"] == "Invalid"
    assert control.should_training_stop is True and cb.halted


def test_blanket_confidence_on_a_24_item_probe_is_invalid_and_halts(tmp_path):
    """Every answer kept at 99, half of them wrong (12 of 24): L = 12/12 is Invalid by the paper's point rule
    (the old interval veto needed ~35 errors and could never fire on a probe this size)."""
    cb = ValidityScreenCallback(probe_set(24), generator=Scripted("blanket"), policy="halt", baseline=False)
    _, control = fire(cb, "on_save", make_args(tmp_path), 6)
    entry = cb.history[-1]
    assert entry["n"] == 24 and entry["L"] == 1.0 and entry["accuracy"] == 0.5
    assert entry["tier"] == "Invalid" and entry["decision"] == "halt"
    assert control.should_training_stop is True and cb.halted
    assert entry["policy_reasons"][0].startswith("the confidence signal is Invalid: blanket confidence: L = 1.000")
    report = json.loads((tmp_path / "checkpoint-6" / REPORT_NAME).read_text())
    assert report["screen"]["fragile"] is True  # 12 errors: the interval is reported, it does not veto


class Drift(Scripted):
    """Right answers at 90; wrong ones at 10 except every other one (i % 4 == 1) at 99: L = 0.5, not Invalid."""

    def __call__(self, prompts, max_new_tokens, want_scores=False):
        if self.mode != "drift":
            return super().__call__(prompts, max_new_tokens, want_scores)
        out = []
        for p in prompts:
            i = int(p[0]["content"].split()[1].rstrip(":"))
            right = i % 2 == 0
            if len(p) == 1:
                out.append(Generation(f"{i} + 1 = {i + 1}\n#### {i + 1 if right else i + 2}"))
            else:
                out.append(Generation("90" if right else ("99" if i % 4 == 1 else "10")))
        return out


def test_halt_on_collapse_even_when_the_tier_is_not_invalid(tmp_path):
    """The collapse rule against the baseline stays: L rose from 0 to 0.5 (> collapse_delta) while the tier is not
    Invalid."""
    gen = Drift("calibrated")
    cb = ValidityScreenCallback(probe_set(24), generator=gen, policy="halt", collapse_delta=0.2)
    args = make_args(tmp_path)
    fire(cb, "on_train_begin", args, 0)
    gen.mode = "drift"
    _, control = fire(cb, "on_save", args, 2)
    entry = cb.history[-1]
    assert entry["L"] == 0.5 and entry["tier"] != "Invalid"
    assert entry["collapse"] is True and control.should_training_stop is True
    assert "collapse: L rose from 0.000" in entry["policy_reasons"][0]


def _healthy_probe(rng, n=24):
    """A healthy confidence signal: accuracy 30-90 %, a verbalised 0-100 confidence (multiples of 5) that is
    higher on correct answers (latent separation d' in [1.5, 3], AUROC ~0.85-0.98) with a random offset."""
    p, dp, off = rng.uniform(0.3, 0.9), rng.uniform(1.5, 3.0), rng.normal(0.0, 1.0)
    ok = rng.random(n) < p
    z = dp * ok + rng.normal(0.0, 1.0, n) + off
    return ok, np.round(100.0 / (1.0 + np.exp(-z)) / 5.0) * 5.0


def test_healthy_24_item_probes_are_not_invalid_by_simulation():
    """False-alarm rate over 4,000 random healthy 24-item probes, screened as the callback screens them (median
    split). Measured: 0.2 % (8 of 4,000; each a table whose sample Fp reached 0.5 by chance)."""
    from trainers.screen import Cells, ScreenConfig, binarise, classify
    from trainers.screen.indices import phase_a_indices

    rng = np.random.default_rng(2026)
    cfg, cache, invalid = ScreenConfig(), {}, 0
    for _ in range(4000):
        ok, conf = _healthy_probe(rng)
        cells = Cells.from_arrays(ok, binarise(conf / 100.0, "median")[0])
        if cells not in cache:
            cache[cells] = classify(cells, phase_a_indices(cells), cfg, median_split=True).tier
        invalid += cache[cells] == "Invalid"
    assert invalid / 4000 <= 0.005


def test_healthy_24_item_probes_never_halt_through_the_callback(tmp_path):
    """200 healthy probes through the callback itself (policy="halt", no baseline): none is Invalid."""
    rng = np.random.default_rng(7)
    tiers = []
    for k in range(200):
        ok, conf = _healthy_probe(rng)

        def gen(prompts, max_new_tokens, want_scores=False, ok=ok, conf=conf):
            out = []
            for pr in prompts:
                i = int(pr[0]["content"].split()[1].rstrip(":"))
                out.append(Generation(f"#### {i + 1 if ok[i] else i + 2}") if len(pr) == 1
                           else Generation(f"{int(conf[i])}"))
            return out

        cb = ValidityScreenCallback(probe_set(24), generator=gen, policy="halt", baseline=False,
                                    screen_config={"n_boot": 100})
        entry = cb.screen_model(None, None, step=k + 1)
        assert entry["status"] == "ok" and entry["n"] == 24
        tiers.append(entry["tier"])
        assert entry["decision"] != "halt", (k, entry["reasons"])
    assert tiers.count("Valid") > 150


def test_baseline_never_halts(tmp_path):
    cb = ValidityScreenCallback(probe_set(80), generator=Scripted("blanket"), policy="halt")
    _, control = fire(cb, "on_train_begin", make_args(tmp_path), 0)
    assert cb.history[0]["tier"] == "Invalid" and control.should_training_stop is False


def test_failed_probe_is_a_failed_screen_and_training_goes_on(tmp_path):
    def broken(prompts, max_new_tokens, want_scores=False):
        raise RuntimeError("device lost")

    cb = ValidityScreenCallback(probe_set(20), generator=broken, policy="halt", baseline=False)
    _, control = fire(cb, "on_save", make_args(tmp_path), 1)
    entry = cb.history[-1]
    assert entry["status"] == "failed" and "device lost" in entry["reason"]
    assert control.should_training_stop is False
    report = json.loads((tmp_path / "checkpoint-1" / REPORT_NAME).read_text())
    assert report["status"] == "failed" and "device lost" in report["reason"]

    cb = ValidityScreenCallback(probe_set(20), generator=broken, halt_on_failure=True, baseline=False)
    _, control = fire(cb, "on_save", make_args(tmp_path), 2)
    assert control.should_training_stop is True


def test_history_survives_resume(tmp_path):
    gen = Scripted("calibrated")
    args = make_args(tmp_path)
    first = ValidityScreenCallback(probe_set(20), generator=gen, policy="halt")
    fire(first, "on_train_begin", args, 0)
    (tmp_path / "checkpoint-2").mkdir()
    fire(first, "on_save", args, 2)
    (tmp_path / "checkpoint-4").mkdir()
    fire(first, "on_save", args, 4)
    # A later screen that the checkpoint we resume from never saw must be dropped.
    resumed = ValidityScreenCallback(probe_set(20), generator=gen, policy="halt")
    fire(resumed, "on_train_begin", args, 2)
    assert [h["step"] for h in resumed.history] == [0, 2]
    assert resumed.baseline_entry["event"] == "baseline"
    gen.mode = "blanket"
    (tmp_path / "checkpoint-3").mkdir()
    _, control = fire(resumed, "on_save", args, 3)
    assert resumed.history[-1]["collapse"] is True and control.should_training_stop is True
    assert [h["step"] for h in load_history(tmp_path / "checkpoint-3")] == [0, 2, 3]


def test_every_evaluate_and_both_screen_once_per_step(tmp_path):
    calls = {"n": 0}
    gen = Scripted("calibrated")

    def counting(prompts, max_new_tokens, want_scores=False):
        calls["n"] += 1
        return gen(prompts, max_new_tokens)

    cb = ValidityScreenCallback(probe_set(10), generator=counting, every="both", baseline=False, batch_size=64)
    args = make_args(tmp_path)
    fire(cb, "on_evaluate", args, 2)
    fire(cb, "on_save", args, 2)
    assert calls["n"] == 2  # one answer pass + one confidence pass, not two of each
    assert (tmp_path / "checkpoint-2" / REPORT_NAME).is_file()
    assert (tmp_path / "checkpoint-2" / HISTORY_NAME).is_file()

    only_eval = ValidityScreenCallback(probe_set(10), generator=gen, every="evaluate", baseline=False)
    fire(only_eval, "on_save", args, 3)
    assert only_eval.history == []


@pytest.mark.parametrize("kwargs,message", [
    ({"policy": "stop"}, r"policy='stop'.*'flag'.*'halt'"),
    ({"every": "step"}, r"every='step'.*'save'"),
    ({"confidence": "vibes"}, r"confidence='vibes'.*verbalized"),
    ({"collapse_delta": 1.5}, r"collapse_delta=1.5 must lie in \(0, 1\]"),
    ({"collapse_delta": 0}, r"collapse_delta=0 must lie"),
    ({"threshold": 150}, r"threshold=150 is out of range"),
    ({"threshold": "mean"}, r"threshold='mean'.*'median'"),
    ({"max_new_tokens": 0}, r"max_new_tokens=0 must be a positive integer"),
    ({"compute_on": "gpu0"}, r"compute_on='gpu0'"),
    ({"token_prob_reduce": "max"}, r"token_prob_reduce='max'"),
    ({"answer_style": "long"}, r"answer_style='long'.*'short'"),
    ({"answer_style": "short", "confidence": "rafs"}, r"confidence='rafs' scores the answer's reasoning"),
    ({"screen_config": {"L_treshold": 0.9}}, r"screen_config has an unknown field"),
])
def test_wrong_config_fails_at_construction(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ValidityScreenCallback(probe_set(10), **kwargs)


def test_probe_set_without_gold_answers_fails_at_construction():
    with pytest.raises(ValueError, match=r"ValidityScreenCallback: probe_set\[0\] has no gold answer"):
        ValidityScreenCallback([{"problem": "What is 1 + 1?"}])


def _rank_worker(rank: int, world: int, init_file: str, out_dir: str, results: str) -> None:
    import torch.distributed as dist

    dist.init_process_group("gloo", init_method=f"file://{init_file}", rank=rank, world_size=world)
    try:
        # The ranks see different 24-item probe outputs (rank 0 blanket, rank 1 calibrated): rank 0's screen must win.
        gen = Scripted("blanket" if rank == 0 else "calibrated")
        cb = ValidityScreenCallback(probe_set(24), generator=gen, policy="halt", baseline=False)
        args = make_args(Path(out_dir))
        state, control = TrainerState(), TrainerControl()
        state.global_step = 4
        state.is_world_process_zero = rank == 0
        cb.on_save(args, state, control, model=None, processing_class=None)
        Path(results, f"rank{rank}.json").write_text(json.dumps(
            {"stop": control.should_training_stop, "tier": cb.history[-1]["tier"]}))
    finally:
        dist.destroy_process_group()


def test_every_rank_takes_rank0s_decision(tmp_path):
    """Two gloo processes whose probes disagree: both halt, with rank 0's tier."""
    import torch.multiprocessing as mp

    results = tmp_path / "results"
    results.mkdir()
    mp.spawn(_rank_worker, args=(2, str(tmp_path / "init"), str(tmp_path / "out"), str(results)), nprocs=2,
             join=True)
    got = [json.loads((results / f"rank{r}.json").read_text()) for r in range(2)]
    assert got[0] == got[1] == {"stop": True, "tier": "Invalid"}


def test_default_probe_set_and_token_prob_screen_record_their_cost(tmp_path):
    """probe_set=None screens the 72 shipped items; the token-probability confidence takes one short generation per
    screen; every entry records its wall and CPU seconds and its share of the time since the previous screen."""
    import math
    import time

    from trainers.training.probes import SHORT_PREFILL, default_probe_set

    gold = {it["problem"]: it["answer"] for it in default_probe_set()}
    index = {it["problem"]: i for i, it in enumerate(default_probe_set())}
    calls = []

    def short(prompts, max_new_tokens, want_scores=False):
        calls.append((len(prompts), max_new_tokens, want_scores))
        out = []
        for p in prompts:
            assert p[-1] == {"role": "assistant", "content": SHORT_PREFILL}
            right = index[p[1]["content"]] % 2 == 0  # the even items of the shipped set
            answer = gold[p[1]["content"]] if right else "1000"
            out.append(Generation(answer + ".", [-0.05 if right else -2.0, -0.1],
                                  [len(answer), len(answer) + 1]))
        return out

    cb = ValidityScreenCallback(confidence="token_prob", generator=short)
    assert len(cb.probe_set) == 72
    args = make_args(tmp_path)
    fire(cb, "on_train_begin", args, 0)
    time.sleep(0.05)  # "training" between the screens
    (tmp_path / "checkpoint-3").mkdir()
    fire(cb, "on_save", args, 3)
    assert calls == [(72, 3, True), (72, 3, True)]  # one generate call of 3 new tokens (answers <= 81) a screen
    base, save = cb.history
    assert base["tier"] == "Valid" and base["L"] == 0.0 and base["Fp"] == 0.0 and base["accuracy"] == 0.5
    assert base["r"] > 0.9
    assert base["share_of_interval"] is None  # nothing before the baseline
    assert save["share_of_interval"] is not None and 0.0 < save["share_of_interval"]
    assert all(h["cpu_s"] >= 0.0 and h["elapsed_s"] > 0.0 for h in cb.history)
    report = json.loads((tmp_path / "checkpoint-3" / REPORT_NAME).read_text())
    assert report["vrs"]["elicitation"] == "token_prob" and report["vrs"]["format"] == "[0, 1]"
    assert report["vrs"]["answer_style"] == "short" and report["probe"]["max_new_tokens"] == 3
    assert report["share_of_interval"] == save["share_of_interval"]
    first = report["probe"]["records"][0]
    assert first["confidence"] == pytest.approx(math.exp(-0.05))
