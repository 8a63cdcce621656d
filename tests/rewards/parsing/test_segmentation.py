"""Long R1-style traces: prose segmentation, <think> + summary, reasoning fields, size ceilings (issue 17)."""

import importlib.util
import json
import sys
import time
from pathlib import Path

import pytest

from rewards.parsing.segmentation import is_prose, prose_steps, sentences
from rewards.parsing.trace import MAX_CHARS, MAX_STEPS, SUPPORTED_CHARS, normalize_latex, parse_trace, split_steps

ROOT = Path(__file__).resolve().parents[3]


def _battery():
    spec = importlib.util.spec_from_file_location("long_traces", ROOT / "benchmarks" / "long_traces.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("long_traces", module)  # dataclasses look their module up while the file executes
    spec.loader.exec_module(module)
    return module


def test_a_lowercase_paragraph_splits_into_a_slip_and_its_retraction():
    para = ("next, the loaves. she sells 36 of them and each costs 6 dollars, so that's 36 * 6 = 218 dollars. "
            "wait, that is wrong: 36 * 6 = 216 dollars. so the loaves bring in 216 dollars.")
    assert prose_steps([para]) == [
        "next, the loaves. she sells 36 of them and each costs 6 dollars, so that's 36 * 6 = 218 dollars.",
        "wait, that is wrong: 36 * 6 = 216 dollars.",
        "so the loaves bring in 216 dollars.",
    ]


@pytest.mark.parametrize("line,expected", [
    ("so x = 3.5 and y = 0.25. next", ["so x = 3.5 and y = 0.25.", "next"]),      # decimals never split
    ("we use e.g. the sum. then i.e. the rest.", ["we use e.g. the sum.", "then i.e. the rest."]),
    ("inline $a. b$ stays. next one", ["inline $a. b$ stays.", "next one"]),         # no split in inline math
    ("1. first we add. 2. then we multiply.", ["1. first we add.", "2. then we multiply."]),  # list markers
    ("really? yes! ok.", ["really?", "yes!", "ok."]),
])
def test_sentence_ends(line, expected):
    assert sentences(line) == expected


def test_think_block_then_summary_marks_where_the_summary_starts():
    completion = [{"role": "assistant", "content": (
        "<think>\nokay, she has 16 eggs. she eats 3 and bakes 4, so 16 - 3 - 4 = 9 eggs left. hmm, let me make "
        "sure. 9 + 3 + 4 = 16, yes.\n\nthen 9 * 2 = 18 dollars.\n</think>\n\n**summary**\n- eggs left: 9\n"
        "- money: 9 * 2 = 18\n\nthe answer is \\boxed{18}.")}]
    trace = parse_trace("Janet's ducks lay 16 eggs...", completion)
    assert trace.segmentation == "prose" and not trace.issues and trace.answer == "18"
    thinking = [trace.steps[i] for i in trace.thinking_steps]
    summary = [trace.steps[i] for i in trace.summary_steps]
    assert thinking == ["okay, she has 16 eggs. she eats 3 and bakes 4, so 16 - 3 - 4 = 9 eggs left.",
                        "hmm, let me make sure. 9 + 3 + 4 = 16, yes.", "then 9 * 2 = 18 dollars."]
    assert summary[0] == "**summary**" and summary[-1] == "the answer is \\boxed{18}."


def test_reasoning_content_is_the_thinking_and_content_the_summary():
    msg = {"role": "assistant", "reasoning_content": "so 3 + 4 = 7. wait, 7 * 2 = 14.",
           "content": "The answer is \\boxed{14}."}
    trace = parse_trace("What is (3+4)*2?", [msg])
    assert trace.steps == ("so 3 + 4 = 7.", "wait, 7 * 2 = 14.", "The answer is \\boxed{14}.")
    assert trace.summary_start == 2 and trace.answer == "14"
    thinking = {"role": "assistant", "thinking": "2 + 2 = 4", "content": ""}
    t = parse_trace("p", thinking)
    assert t.summary_start == len(t.steps) == 1 and list(t.summary_steps) == []


def test_closing_tag_without_opening_tag_closes_the_thinking():
    # R1's chat template puts "<think>" in the prompt: the completion starts inside the thinking
    trace = parse_trace("p", "so 2 + 3 = 5.\nthen 5 * 2 = 10.\n</think>\nThe answer is 10.")
    assert trace.summary_start == 2 and trace.steps[2] == "The answer is 10." and trace.answer == "10"


def test_gsm8k_and_math_solutions_keep_line_segmentation(shared_data):
    gsm = shared_data / "gsm8k" / "test.jsonl"
    math = shared_data / "math500" / "test.jsonl"
    rows = [json.loads(line) for line in gsm.open()][:300]
    rows += [{"question": r["problem"], "answer": r["solution"]} for r in map(json.loads, math.open())]
    for row in rows:
        trace = parse_trace(row["question"], row["answer"])
        assert trace.segmentation == "lines" and trace.summary_start is None
        assert list(trace.steps) == split_steps(normalize_latex(row["answer"]))[:MAX_STEPS]


def test_prose_mode_rule():
    assert is_prose("x" * 9_000, has_thinking=False)
    assert is_prose("short", has_thinking=True)
    assert not is_prose("First 2 + 3 = 5.\nWait for the bus: 5 * 2 = 10.", has_thinking=False)  # cue at line start


def test_traces_of_256k_characters_and_4000_steps_are_parsed():
    lt = _battery()
    row = lt.make_trace("corrected", SUPPORTED_CHARS, __import__("random").Random(0))
    assert len(row["completion"]) >= SUPPORTED_CHARS - 500
    start = time.process_time()
    trace = parse_trace(row["problem"], [{"role": "assistant", "content": row["completion"]}])
    elapsed = time.process_time() - start
    assert not trace.issues and len(trace.steps) > 2000 and trace.answer == str(int(row["gold"]))
    assert elapsed < 3.0, f"parsing 256k characters took {elapsed:.2f} s"  # 51-67 ms measured; margin for shared CI
    lines = "\n".join(f"{i} + 1 = {i + 1}" for i in range(4_000)) + "\n#### 4000"
    many = parse_trace("count", lines)
    assert not many.issues and len(many.steps) == 4_000


def test_the_hard_ceilings_are_memory_guards():
    assert MAX_CHARS >= 4 * SUPPORTED_CHARS - 24_000 and MAX_STEPS >= 4_000
    huge = parse_trace("p", "<think>" + "so 1 + 1 = 2. " * (MAX_CHARS // 14 + 10) + "</think> 2")
    assert huge.issues and huge.issues[0].startswith("oversized") and huge.steps == ()


def test_prose_steps_are_bounded_in_length():
    wall = "a" * 10_000 + ". " + "b " * 3_000
    steps = prose_steps([wall])
    assert steps and all(len(s) <= 1_200 for s in steps) and "".join(steps).count("a") == 10_000
