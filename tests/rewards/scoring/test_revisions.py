"""Self-correction analysis (issue 17): retracted and abandoned steps, fake retractions, turns, summary conflicts."""

import importlib.util
import random
import sys
import time
from pathlib import Path

import pytest

from rewards.parsing.trace import parse_trace
from rewards.evidence import build_dataflow
from rewards.scoring.revisions import Revisions, analyse_revisions
from rewards.verifiers.symbolic import SymbolicVerifier

ROOT = Path(__file__).resolve().parents[3]
JANET = ("Janet's ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes muffins for her "
         "friends every day with four. She sells the remainder at the farmers' market daily for $2 per fresh duck "
         "egg. How much in dollars does she make every day at the farmers' market?")


def _analyse(problem, completion):
    trace = parse_trace(problem, completion)
    flow = build_dataflow(trace)
    q = [c.q for c in SymbolicVerifier().verify(trace, flow)]
    return trace, analyse_revisions(trace, flow, q)


def _step(trace, marker):
    return next(i for i, s in enumerate(trace.steps) if marker in s)


def _battery():
    spec = importlib.util.spec_from_file_location("long_traces", ROOT / "benchmarks" / "long_traces.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("long_traces", module)
    spec.loader.exec_module(module)
    return module


def test_the_issue_example_retracts_step_0():
    completion = ("She has 16 - 3 - 4 = 8 eggs left.\nWait, that is wrong: 16 - 3 - 4 = 9 eggs left.\n"
                  "She makes 9 * 2 = 18 dollars.\n#### 18")
    trace, rev = _analyse(JANET, completion)
    assert set(rev.superseded) == {0} and "recomputes it as 9" in rev.superseded[0]
    assert rev.fake == {} and rev.turned_at is None and rev.summary_conflicts == []


def test_a_think_block_that_fixes_a_slip_in_mid_paragraph():
    completion = [{"role": "assistant", "content": (
        "<think>\njanet's ducks lay 16 eggs a day. she eats 3 and bakes muffins with 4, so she has 16 - 3 - 4 = 8 "
        "eggs left. hmm, wait, that's not right. 16 - 3 - 4 = 9, so she has 9 eggs left.\n\nshe sells each egg "
        "for 2 dollars, so 9 * 2 = 18 dollars a day.\n</think>\n\nshe sells 9 eggs at $2 each, so she makes "
        "\\boxed{18} dollars.")}]
    trace, rev = _analyse(JANET, completion)
    slip = _step(trace, "= 8")
    assert slip in rev.superseded and slip not in rev.fake
    assert rev.fake == {} and rev.turned_at is None and rev.summary_conflicts == []


def test_an_abandoned_attempt_is_superseded_with_what_it_built():
    completion = [{"role": "assistant", "content": (
        "<think>\nmaybe i can just multiply everything: 16 * 3 = 46. then 46 * 4 = 184. hmm, no, that doesn't "
        "make sense, the eggs are not multiplied. let me start over.\n\nshe has 16 - 3 - 4 = 9 eggs left. she "
        "sells them at 2 dollars, so 9 * 2 = 18.\n</think>\nthe answer is \\boxed{18}.")}]
    trace, rev = _analyse(JANET, completion)
    slip, built = _step(trace, "16 * 3 = 46"), _step(trace, "46 * 4 = 184")
    assert slip in rev.superseded and "abandon" in rev.superseded[slip]
    assert built in rev.superseded  # a true step on the abandoned value goes with it
    assert rev.fake == {}


def test_an_attempt_abandoned_in_words_but_still_used_is_fake():
    completion = ("maybe 16 * 3 = 46 is what matters.\nhmm, that doesn't work, let me try another way.\n"
                  "she has 46 - 4 = 42 eggs, so 42 * 2 = 84.\n#### 84")
    trace, rev = _analyse(JANET, completion)
    assert 0 in rev.fake and 0 not in rev.superseded


def test_a_fake_retraction_restating_the_same_false_value_keeps_the_fault():
    completion = ("She has 16 - 3 - 4 = 8 eggs left.\nWait, let me recheck: 16 - 3 - 4 = 8. Yes.\n"
                  "She makes 8 * 2 = 16 dollars.\n#### 16")
    trace, rev = _analyse(JANET, completion)
    assert 0 in rev.fake and "same false value 8" in rev.fake[0]
    assert 0 not in rev.superseded


def test_a_correction_the_chain_ignores_keeps_the_fault():
    completion = ("She has 16 - 3 - 4 = 8 eggs left.\nWait, that is wrong: 16 - 3 - 4 = 9 eggs left.\n"
                  "She makes 8 * 2 = 16 dollars.\n#### 16")
    trace, rev = _analyse(JANET, completion)
    assert 0 in rev.fake and "still uses the false value 8" in rev.fake[0]
    assert rev.superseded == {}


def test_a_correction_to_another_false_value_is_fake():
    completion = ("She has 16 - 3 - 4 = 8 eggs left.\nWait, that is wrong: 16 - 3 - 4 = 10 eggs left.\n"
                  "She makes 10 * 2 = 20 dollars.\n#### 20")
    trace, rev = _analyse(JANET, completion)
    assert 0 in rev.fake and "another false value 10" in rev.fake[0] and 0 not in rev.superseded


def test_a_cue_with_no_recomputation_is_fake():
    completion = "She has 16 - 3 - 4 = 8 eggs left. Hmm, let me double-check that.\nShe makes 8 * 2 = 16.\n#### 16"
    trace, rev = _analyse(JANET, completion)
    assert 0 in rev.fake and rev.superseded == {}


def test_a_later_computation_that_lands_on_the_right_value_is_no_correction():
    # 20 * .25 is 5, stated 6; after the cue, 25 - 20 = 5 is another quantity that happens to be 5
    problem = ("Tom's rabbit runs 25 miles per hour and his cat 20 miles per hour. The cat gets a 15-minute head "
               "start. In hours, how long until the rabbit catches up?")
    completion = ("The cat got a 15/60=.25 hour head start\nThat means it ran 20*.25=6 miles\n"
                  "Wait, that does not look right. Let me continue.\nThe rabbit goes 25-20=5 mph faster\n"
                  "So it takes 5/5=1 hour\n#### 1")
    trace, rev = _analyse(problem, completion)
    assert 1 in rev.fake and rev.superseded == {}
    fixed = completion.replace("Let me continue.", "Recomputing: 20 * .25 = 5 miles.")
    trace, rev = _analyse(problem, fixed)
    assert 1 in rev.superseded and rev.fake == {}


def test_an_uncorrected_slip_is_neither_superseded_nor_fake():
    trace, rev = _analyse(JANET, "She has 16 - 3 - 4 = 8 eggs left.\nShe makes 8 * 2 = 16 dollars.\n#### 16")
    assert rev == Revisions()


def test_right_then_talked_out_of_it_turns_at_the_new_derivation():
    completion = [{"role": "assistant", "content": (
        "<think>\nshe has 16 - 3 - 4 = 9 eggs left, and 9 * 2 = 18 dollars. so the answer is 18.\n\nhmm, wait. "
        "maybe she also has to pay for the 3 eggs she eats. then 18 - 3 = 15 dollars.\n</think>\n"
        "the answer is \\boxed{15}.")}]
    trace, rev = _analyse(JANET, completion)
    assert rev.turned_at == _step(trace, "18 - 3 = 15")
    assert rev.superseded == {} and rev.fake == {}


def test_a_late_completion_that_brings_in_an_unused_quantity_is_no_turn():
    problem = JANET.replace("How much", "Feed costs her $5 a day. How much")
    completion = [{"role": "assistant", "content": (
        "<think>she has 16 - 3 - 4 = 9 eggs, and 9 * 2 = 18. so she makes 18 dollars. wait, i forgot the 5 "
        "dollar feed: 18 - 5 = 13.</think>\nthe answer is \\boxed{13}.")}]
    trace, rev = _analyse(problem, completion)
    assert rev.turned_at is None


def test_a_summary_that_contradicts_the_thinking_is_reported():
    thinking = ("<think>\nshe has 16 - 3 - 4 = 9 eggs left. she sells them at 2 dollars each, so 9 * 2 = 18 "
                "dollars.\n</think>\n\n")
    faithful = [{"role": "assistant", "content": thinking + "she sells 9 eggs at $2, making \\boxed{18} dollars."}]
    wrong = [{"role": "assistant", "content": thinking + "she has 8 eggs left and makes \\boxed{18} dollars."}]
    assert _analyse(JANET, faithful)[1].summary_conflicts == []
    trace, rev = _analyse(JANET, wrong)
    assert len(rev.summary_conflicts) == 1 and "states 8" in str(rev.summary_conflicts[0])
    assert rev.summary_conflicts[0].step == trace.summary_start
    assert str(rev.summary_conflicts[0]).startswith(f"summary step {trace.summary_start}: ")
    restated = [{"role": "assistant", "content": (
        "<think>so 16 - 3 - 4 = 8. wait, that's wrong: 16 - 3 - 4 = 9. then 9 * 2 = 18.</think>\n"
        "she has 8 eggs left, so \\boxed{18}.")}]
    trace, rev = _analyse(JANET, restated)
    assert any("retracted" in str(c) and "8" in str(c) for c in rev.summary_conflicts)


def test_a_summary_that_rounds_or_labels_is_no_conflict():
    completion = [{"role": "assistant", "content": (
        "<think>three friends share 55 dollars, so each gets 55 / 3 = 18.333 dollars, well 55/3 exactly.</think>\n"
        "1. each of the 3 friends gets about 18.33 dollars\n2. so roughly \\boxed{18.33}")}]
    trace, rev = _analyse("Three friends share $55 equally. How much does each get?", completion)
    assert trace.summary_start is not None and rev.summary_conflicts == []


@pytest.mark.parametrize("completion", [
    "", "####", "wait wait wait no, no. hmm. " * 50, "1 = 2\nwait 1 = 3\nno, 1 = 2\n#### 2",
    "\\boxed{", "x = 3. actually x = 4. let me start over. x = 3 = 4 = 5.\n#### 5",
])
def test_odd_text_never_raises(completion):
    trace = parse_trace("p", completion)
    flow = build_dataflow(trace)
    for q in ([], [0.0] * (len(trace.steps) + 5), [c.q for c in SymbolicVerifier().verify(trace, flow)]):
        rev = analyse_revisions(trace, flow, q)
        assert isinstance(rev, Revisions)
        assert set(rev.superseded).isdisjoint(rev.fake)


@pytest.mark.parametrize("length", [2_000, 32_000])
def test_the_generated_battery(length):
    lt = _battery()
    for seed in range(3):
        for row in lt.battery(length, seed=seed):
            exp = row["expect"]
            trace, rev = _analyse(row["problem"], [{"role": "assistant", "content": row["completion"]}])
            label = f"{row['kind']} @ {length} seed {seed}"
            if exp["superseded"]:
                assert _step(trace, exp["superseded"]) in rev.superseded, label
            else:
                assert not rev.superseded, label
            if exp["fake"]:
                assert _step(trace, exp["fake"]) in rev.fake, label
            if exp["fault"]:
                assert _step(trace, exp["fault"]) not in rev.superseded, label
            assert rev.turned_at == (_step(trace, exp["turned"]) if exp["turned"] else None), label
            assert bool(rev.summary_conflicts) == exp["summary_conflict"], label


def test_work_is_linear_in_length():
    lt = _battery()
    row = lt.make_trace("corrected", 128_000, random.Random(3))
    trace = parse_trace(row["problem"], [{"role": "assistant", "content": row["completion"]}])
    flow = build_dataflow(trace)
    q = [c.q for c in SymbolicVerifier().verify(trace, flow)]
    start = time.process_time()
    rev = analyse_revisions(trace, flow, q)
    elapsed = time.process_time() - start
    assert rev.superseded and elapsed < 1.0, f"{elapsed:.3f} s for {len(trace.steps)} steps"  # ~25 ms measured


def _processbench_flags(data: Path, split):
    import json

    from rewards import score_trace

    path = data / "processbench" / f"{split}.json"
    cleared = []
    for row in json.loads(path.read_text()):
        res = score_trace(row["problem"], steps=row["steps"])
        if res.suspect_step is None:
            continue
        trace = parse_trace(row["problem"], steps=row["steps"])
        rev = analyse_revisions(trace, build_dataflow(trace), [c.q for c in res.step_checks])
        if res.suspect_step in rev.superseded:
            cleared.append((row["id"], row["label"], res.suspect_step, rev.superseded[res.suspect_step]))
    return cleared


def test_processbench_gsm8k_errors_are_never_cleared(shared_data):
    # dropping superseded steps from the suspect search must not lower ProcessBench: no flagged step is cleared
    assert _processbench_flags(shared_data, "gsm8k") == []


@pytest.mark.slow
def test_processbench_math_errors_are_never_cleared(shared_data):
    assert _processbench_flags(shared_data, "math") == []
