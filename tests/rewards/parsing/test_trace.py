"""Trace parsing: completion shapes, step splitting, final-answer extraction, bounds."""

import pytest

from rewards.parsing.trace import MAX_CHARS, MAX_STEPS, completion_text, extract_final_answer, parse_trace, split_steps

# (text, expected answer, expected source) — regression table of answer formats models write
ANSWERS = [
    ("16 - 3 - 4 = 9\n9 * 2 = 18\n#### 18", "18", "gsm8k"),                      # GSM8K reference format
    ("So the total is $\\boxed{\\frac{3}{4}}$.", "\\frac{3}{4}", "boxed"),        # MATH format, nested braces
    ("Thus \\boxed{(1, 2)} and later \\boxed{5}.", "5", "boxed"),                 # the last box wins
    ("\\fbox{12}", "12", "boxed"),
    ("The answer is 42.", "42", "phrase"),
    ("Final answer: $1,200", "$1,200", "phrase"),
    ("The final answer is \\(\\sqrt{2}\\).", "\\sqrt{2}", "phrase"),
    ("She ends with 7 apples", "7", "last_number"),                             # fallback: last number
    ("no numbers at all", None, None),
    ("so \\boxed{\\frac{1}{", None, None),                                         # unbalanced box: no answer
]


@pytest.mark.parametrize("text,answer,source", ANSWERS)
def test_final_answer_table(text, answer, source):
    assert extract_final_answer(text) == (answer, source)


def test_plain_text_steps_and_gsm8k_answer_line():
    trace = parse_trace("p", "First 2 + 3 = 5.\n\nThen 5 * 2 = 10.\n#### 10")
    assert trace.steps == ("First 2 + 3 = 5.", "Then 5 * 2 = 10.")
    assert trace.answer == "10" and not trace.issues


def test_messages_with_think_block_and_reasoning_content():
    think = [{"role": "assistant", "content": "<think>3 + 4 = 7\n7 * 2 = 14</think>The answer is \\boxed{14}."}]
    trace = parse_trace([{"role": "user", "content": "What is (3+4)*2?"}], think)
    assert trace.problem == "What is (3+4)*2?"
    assert trace.steps[:2] == ("3 + 4 = 7", "7 * 2 = 14") and trace.answer == "14"
    separate = {"role": "assistant", "reasoning_content": "a = 1\nb = 2", "content": "Final answer: 5"}
    assert parse_trace("p", separate).steps == ("a = 1", "b = 2", "Final answer: 5")
    thinking = [{"role": "assistant", "thinking": "2 + 2 = 4", "content": "\\boxed{4}"}]
    assert parse_trace("p", thinking).answer == "4"


def test_user_turns_are_not_reasoning():
    msgs = [{"role": "user", "content": "1 + 1 = 3?"}, {"role": "assistant", "content": "No: 1 + 1 = 2. #### 2"}]
    assert "3?" not in completion_text(msgs)


def test_presplit_steps_are_kept():
    trace = parse_trace("p", steps=["a = 1", "b = a + 1 = 2", "So the answer is \\boxed{2}"])
    assert len(trace.steps) == 3 and trace.answer == "2"


def test_long_single_paragraph_is_split_at_sentence_ends():
    text = " ".join(f"Step {i} gives {i} + 1 = {i + 1}. Then we continue." for i in range(30))
    assert len(split_steps(text)) > 10


@pytest.mark.parametrize("completion,issue", [
    ("", "empty"),
    ("x" * (MAX_CHARS + 1), "oversized"),
    ("\n".join(f"{i} + 1 = {i + 1}" for i in range(MAX_STEPS + 50)), "oversized"),
    (None, "empty"),
    (12345, None),
])
def test_bad_inputs_become_issues_not_exceptions(completion, issue):
    trace = parse_trace("p", completion)
    if issue is None:
        assert not trace.issues
    else:
        assert trace.issues and trace.issues[0].startswith(issue)


def test_control_characters_and_binary_are_dropped():
    trace = parse_trace("p", b"\x00\x01\xffgarbage 1 + 1 = 2")
    assert "\x00" not in trace.text and trace.answer == "2"


def test_steps_must_be_a_list():
    assert parse_trace("p", steps="not a list").issues


def test_a_multiline_display_stays_one_step():
    text = ("First we expand: \\begin{align*}\n(x+1)^2 &= x^2 + 2x + 1\\\\\n&= 10\n\\end{align*}\n"
            "\\[\n3 + 4\n= 7\n\\]\nSo the answer is 7.")
    assert split_steps(text) == [
        "First we expand: \\begin{align*}\n(x+1)^2 &= x^2 + 2x + 1\\\\\n&= 10\n\\end{align*}",
        "\\[\n3 + 4\n= 7\n\\]",
        "So the answer is 7.",
    ]


def test_an_escaped_line_break_bracket_is_not_a_display():
    assert split_steps("a \\\\[2pt] b\nnext line") == ["a \\\\[2pt] b", "next line"]


# ---------------------------------------------------------------- aligned displays read row by row, as plain lines
DUCKS = ("Janet’s ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes muffins for her "
         "friends every day with four. She sells the remainder at the farmers' market daily for $2 per fresh duck egg. "
         "How much in dollars does she make every day at the farmers' market?")
ALIGNED_CONSTRUCTION = ("$$\n\\begin{aligned}\n16 + \\frac{16 \\cdot 100}{1600} \\cdot 2 &= 16 + 1 \\cdot 2 = 18 \\\\\n"
                        "18 + \\frac{2 \\cdot 300}{3} - 200 &= 18 \\\\\n18 + \\frac{2 \\cdot 400}{4} - 200 &= 18\n"
                        "\\end{aligned}\n$$\n#### 18")


def test_an_aligned_display_of_arithmetic_rows_is_one_step_per_row_as_plain_lines_are():
    steps = split_steps(ALIGNED_CONSTRUCTION)
    assert len(steps) == 3 and all(s.startswith("$$\\begin{aligned}") and s.endswith("\\end{aligned}$$") for s in steps)
    assert "16 \\cdot 100" in steps[0] and "2 \\cdot 400" in steps[2]
    # a continuation row ("&= …", "\\Rightarrow …", the same left side) stays with its row; algebra stays whole
    assert len(split_steps("\\begin{align*} 1 + 2 &= 3 \\\\\n &= 6 - 3 \\\\\n 3 + 4 &= 7 \\end{align*}")) == 2
    assert len(split_steps("\\begin{align*} 5x - 1 &= x + 3 \\\\\n 4x &= 4 \\\\\n x &= 1 \\end{align*}")) == 1
    assert len(split_steps("\\begin{align*} 2 + 3 &= 5 \\\\\n \\Rightarrow 5 \\cdot 2 &= 10 \\end{align*}")) == 1
    assert len(split_steps("\\[ \\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix} \\]")) == 1


PIE = ("Nancy bought a pie sliced it into 8 pieces. She gave 1/2 to Joe and Darcy, and she gave 1/4 to Carl. How many "
       "slices were left?")  # GSM8K train 3843
PIE_GOLD = ("The total number of slices she gave to Joe and Darcy is 1/2 x 8 = 4.\nThe total slice she gave to Carl is "
            "1/4 x 8 = 2.\nTherefore, the total slices left is 8 - 4 - 2 = 2.\n#### 2")
PIE_ROWS = ["4 - \\frac{4 \\cdot 100}{400} \\cdot 2 &= 4 - 1 \\cdot 2 = 2", "2 + \\frac{2 \\cdot 800}{8} - 200 &= 2",
            "2 + \\frac{2 \\cdot 100}{1} - 200 &= 2"]


@pytest.mark.parametrize("reward", ["rafs", "faithful_accuracy"])
def test_a_construction_in_an_aligned_display_earns_less_than_the_gold(reward):
    """Read as one step, only the display's last row was read as a function of the problem, and the constructed one
    of its first row (4 * 100 / 400) went unseen: the same rows on plain lines earn nothing, in the display they
    were paid as the gold (the audit's constructed_one_aligned: at least the gold on 4.9% (rafs) / 4.4% (fa) of
    separated problems, 0.4% after)."""
    from rewards.adapters.trl_rewards import get_faithful_accuracy_reward, get_rafs_reward

    fn = get_rafs_reward(cache=False) if reward == "rafs" else get_faithful_accuracy_reward(cache=False)
    aligned = "$$\n\\begin{aligned}\n" + " \\\\\n".join(PIE_ROWS) + "\n\\end{aligned}\n$$\n#### 2"
    plain = "\n".join(r.replace("&", "").replace("\\frac{4 \\cdot 100}{400}", "4 * 100 / 400")
                      .replace("\\frac{2 \\cdot 800}{8}", "2 * 800 / 8").replace("\\frac{2 \\cdot 100}{1}", "2 * 100 / 1")
                      .replace("\\cdot", "*") for r in PIE_ROWS) + "\n#### 2"
    honest = "$$\n\\begin{aligned}\n8 - 4 - 2 &= 2\n\\end{aligned}\n$$\n#### 2"
    construction, on_lines, gold = fn([PIE] * 3, [aligned, plain, PIE_GOLD], answer=["2"] * 3)
    assert construction < gold and construction <= on_lines
    aligned_gold = ("$$\n\\begin{aligned}\n\\frac{1}{2} \\cdot 8 &= 4 \\\\\n\\frac{1}{4} \\cdot 8 &= 2 \\\\\n"
                    "8 - 4 - 2 &= 2\n\\end{aligned}\n$$\n#### 2")
    lines_gold = "$\\frac{1}{2} \\cdot 8 = 4$\n$\\frac{1}{4} \\cdot 8 = 2$\n$8 - 4 - 2 = 2$\n#### 2"
    a, b = fn([PIE] * 2, [aligned_gold, lines_gold], answer=["2"] * 2)
    assert a == b  # honest arithmetic rows in an aligned display are paid as the same rows on plain lines
