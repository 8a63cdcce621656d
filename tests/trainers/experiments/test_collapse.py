"""The collapse experiment: confidence parsing, the two rewards, the probe adapter, and a CI smoke run of the
whole pipeline (tiny SFT, a few GRPO steps, the real ValidityScreenCallback) checking the report's schema."""

from __future__ import annotations

import argparse
import json
import random
from dataclasses import replace

import pytest

from trainers.experiments import confidence as C
from trainers.experiments import world as W


@pytest.mark.parametrize("text, expected", [
    ("3 + 4 = 7\n#### 7\nconfidence: 0.8", 0.8),
    ("#### 7\nconfidence: 1.0", 1.0),
    ("#### 7\n\nconfidence:0.35", 0.35),
    ("#### 7\nCONFIDENCE: 0", 0.0),
    ("#### 7", None),                                  # no confidence line
    ("confidence: 0.9\n#### 7", None),                 # before the answer: not a stated confidence
    ("#### 7\nconfidence: 1.5", None),                 # outside [0, 1]
    ("#### 7\nconfidence: 9", None),
    ("#### 7\nI am sure\nconfidence: 0.9", None),     # the line after the answer is not a confidence
    ("#### 7\nconfidence: 0.9\nconfidence: 0.1", 0.9),  # the first one counts
    ("", None), (None, None), ("__import__('os')", None),
])
def test_parse_stated_confidence(text, expected):
    assert C.parse_stated_confidence(text) == expected


def test_confidence_reward_pays_stated_confidence_whatever_the_answer():
    right = "1 + 2 = 3\n#### 3\nconfidence: 0.9"
    wrong = "1 + 2 = 4\n#### 4\nconfidence: 0.9"
    assert C.confidence_reward([right, wrong], answer=["3", "3"]) == [0.9, 0.9]
    assert C.confidence_reward(["#### 3\nconfidence: 0.2", "#### 3", 17]) == [0.2, 0.0, 0.0]
    assert C.confidence_reward([[{"role": "assistant", "content": "#### 3\nconfidence: 0.4"}]]) == [0.4]
    assert C.confidence_reward.__name__ == "confidence_reward"


def test_brier_reward_pays_correctness_and_calibration():
    # y - (c - y)^2
    got = C.brier_reward(["#### 3\nconfidence: 0.9", "#### 3\nconfidence: 0.2", "#### 4\nconfidence: 0.9",
                          "#### 4\nconfidence: 0.1", "#### 3", "no answer\nconfidence: 0.5"],
                         answer=["3", "3", "3", "3", "3", "3"])
    assert got == pytest.approx([1 - 0.01, 1 - 0.64, -0.81, -0.01, -1.0, -1.0])
    # calibrated beats blanket: on a 50% item, 0.5 earns more in expectation than 1.0
    exp = {c: 0.5 * C.brier_reward([f"#### 3\nconfidence: {c}"], answer=["3"])[0]
           + 0.5 * C.brier_reward([f"#### 4\nconfidence: {c}"], answer=["3"])[0] for c in ("0.5", "1.0")}
    assert exp["0.5"] > exp["1.0"]
    assert C.brier_reward(["#### 3\nconfidence: 0.5"], answer=[None]) == [None]
    assert C.brier_reward(["#### 3\nconfidence: 0.5"], answer=["x"]) == [None]


def test_vague_problems_hide_one_number_and_keep_the_gold():
    cfg = W.WorldConfig(min_ops=1, max_ops=3, max_value=9, max_operand=3, ops=("+", "-"))
    rng = random.Random(0)
    for p in W.generate_problems(200, 1, cfg):
        v = C.make_vague(p, rng)
        assert C.is_vague(v.question) and not C.is_vague(p.question)
        assert v.answer == p.answer and v.steps == p.steps
        assert v.question.count("some") == 1
        assert sum(ch.isdigit() for ch in v.question) < sum(ch.isdigit() for ch in p.question)
        assert v.question.split(". ")[0] == p.question.split(". ")[0]  # the start value stays
    share = sum(C.is_vague(p.question) for p in C.with_vague(W.generate_problems(2000, 2, cfg), 3)) / 2000
    assert abs(share - C.VAGUE_SHARE) < 0.04


def test_sft_targets_are_calibrated_and_informative():
    """Over many SFT rows: guesses on vague problems are right about 1 time in 10 and mostly state about 0.1 (a
    fifth state 0.6-0.9: the overconfident mode); computed chains are right and state more, less with more
    operations."""
    cfg = W.WorldConfig(min_ops=1, max_ops=3, max_value=9, max_operand=3, ops=("+", "-"))
    problems = C.with_vague(W.generate_problems(3000, 3, cfg), 4)
    rows = W.make_sft_examples(problems, 5, C.CONFIDENT_MIXTURE, p_hint=0.0, config=cfg)
    groups: dict[object, list[tuple[bool, float]]] = {}
    for p, r in zip(problems, rows):
        assert r["hint"] is None and r["behaviour"] == "confident"
        c = C.parse_stated_confidence(r["completion"])
        assert c is not None and 0.0 <= c <= 1.0
        key = "vague" if C.is_vague(p.question) else len(p.steps)
        groups.setdefault(key, []).append((C.stated_answer(r["completion"]) == p.answer, c))
    acc = {k: sum(o for o, _ in v) / len(v) for k, v in groups.items()}
    conf = {k: sum(c for _, c in v) / len(v) for k, v in groups.items()}
    expected_guess = (1 - C.OVERCONFIDENT_GUESS_SHARE) * C.GUESS_CONFIDENCE + C.OVERCONFIDENT_GUESS_SHARE * 0.75
    assert acc["vague"] < 0.2 and abs(conf["vague"] - expected_guess) < 0.03
    assert acc[1] == acc[2] == acc[3] == 1.0
    assert conf[1] > conf[2] > conf[3] > conf["vague"] + 0.3
    from trainers.experiments.collapse import probe_auroc

    allrows = [x for v in groups.values() for x in v]
    assert probe_auroc([o for o, _ in allrows], [c for _, c in allrows]) > 0.85


def test_probe_generator_feeds_the_callback_the_stated_confidence():
    """The adapter answers turn 1 with the completion (up to the answer) and turn 2 with the stated confidence;
    the real callback screens it."""
    from trainers.training.callbacks import ValidityScreenCallback
    from trainers.experiments.collapse import WorldProbeGenerator

    cfg = W.WorldConfig(min_ops=1, max_ops=2, max_value=15, max_operand=5)
    problems = W.generate_problems(24, 0, cfg)
    gen = WorldProbeGenerator(None, problems)
    # a scripted "policy": every answer right on even items, stated confidence 0.9 / 0.2
    import trainers.experiments.collapse as X

    def fake_generate(model, tok, prompts, **kw):
        out = []
        for pr in prompts:
            p = next(q for q in problems if W.make_prompt(q) == pr)
            i = problems.index(p)
            ans = p.answer if i % 2 == 0 else p.answer + 1
            out.append(f"#### {ans}\nconfidence: {0.9 if i % 2 == 0 else 0.2}")
        return out

    orig = X.W.generate
    X.W.generate = fake_generate
    try:
        probe = [{"problem": p.question, "answer": str(p.answer)} for p in problems]
        cb = ValidityScreenCallback(probe, None, generator=gen, instruction="", batch_size=64, baseline=False)
        entry = cb.screen_model(None, None, step=1)
    finally:
        X.W.generate = orig
    assert entry["status"] == "ok" and entry["n"] == 24 and entry["accuracy"] == 0.5
    assert entry["tier"] == "Valid" and entry["L"] == 0.0 and entry["Fp"] == 0.0
    recs = entry["report"]["probe"]["records"]
    assert [r["confidence"] for r in recs[:2]] == [90.0, 20.0]


def test_probe_auroc():
    from trainers.experiments.collapse import probe_auroc

    assert probe_auroc([True, False, True, False], [0.9, 0.1, 0.8, 0.2]) == 1.0
    assert probe_auroc([True, False], [0.5, 0.5]) == 0.5
    assert probe_auroc([True, True], [0.5, 0.9]) is None


def test_cli_rejects_bad_input(tmp_path):
    from trainers.cli import CommandError
    from trainers.experiments import collapse as X

    parser = argparse.ArgumentParser()
    X.add_arguments(parser)
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("keep me")
    with pytest.raises(CommandError, match="not empty; pass --force"):
        X.run(parser.parse_args(["--out", str(tmp_path / "full"), "--quick"]))
    assert (tmp_path / "full" / "x").read_text() == "keep me"
    with pytest.raises(CommandError, match="--steps 0"):
        X.run(parser.parse_args(["--out", str(tmp_path / "o"), "--steps", "0"]))
    with pytest.raises(CommandError, match="--probe-items 5"):
        X.run(parser.parse_args(["--out", str(tmp_path / "o"), "--probe-items", "5"]))
    with pytest.raises(CommandError, match="--arms"):
        X.run(parser.parse_args(["--out", str(tmp_path / "o"), "--arms", "collapse,vibes"]))
    with pytest.raises(CommandError, match="--collapse-delta"):
        X.run(parser.parse_args(["--out", str(tmp_path / "o"), "--collapse-delta", "3"]))


def test_smoke_run_report_schema(tmp_path, monkeypatch):
    """A few steps, one seed, both arms: the report has the documented schema and values in range."""
    pytest.importorskip("trl")
    monkeypatch.setenv("WANDB_MODE", "offline")
    from trainers.experiments import collapse as X

    cfg = replace(X.QUICK, sft_problems=600, sft_seconds=6.0, hidden_size=32, num_layers=1, num_heads=2,
                  vocab_size=160, grpo_prompts=40, steps=2, screen_every=1, probe_items=12,
                  num_generations=4, prompts_per_step=2, max_completion_length=24, seeds=1)
    report = X.run_experiment(cfg, tmp_path, quiet=True)
    on_disk = json.loads((tmp_path / "report.json").read_text())
    assert on_disk["complete"] is True and on_disk["config"]["screen_every"] == 1
    assert isinstance(on_disk["wall_time_s"], float) and on_disk["wall_time_s"] > 0
    for arm in ("collapse", "control"):
        runs = on_disk[arm]
        assert [r["seed"] for r in runs] == [0]
        r = runs[0]
        assert set(r) >= {"seed", "flagged_step", "auroc_drop_step", "halted", "history"}
        assert isinstance(r["halted"], bool)
        steps = [h["step"] for h in r["history"]]
        assert steps[0] == 0 and steps == sorted(steps) and len(steps) >= 2  # baseline + screens
        assert steps[-1] <= cfg.steps and r["steps_run"] <= cfg.steps
        for h in r["history"]:
            assert set(h) >= {"step", "tier", "L", "Fp", "RBS", "r", "AUROC"}
            assert h["tier"] in ("Valid", "Indeterminate", "Invalid", None)
            for k in ("L", "Fp", "AUROC", "accuracy", "mean_confidence"):
                assert h[k] is None or 0.0 <= h[k] <= 1.0
            for k in ("RBS", "r"):
                assert h[k] is None or -1.0 <= h[k] <= 1.0
        for k in ("flagged_step", "auroc_drop_step"):
            assert r[k] is None or r[k] in steps
        if r["flagged_step"] is not None:
            assert next(h for h in r["history"] if h["step"] == r["flagged_step"])["tier"] == "Invalid"
        if r["halted"]:
            assert r["history"][-1]["decision"] == "halt"
    assert report["goal"]["met"] in (True, False)
    assert not (tmp_path / "work").exists()  # the GRPO working folders are removed
