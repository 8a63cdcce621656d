"""benchmarks/mixed_groups.py: the rewordings of a gold solution stay faithful (same equations, same answer), the
groups hold what the layouts say, the reward is called once per group as TRL calls it, and the CLI writes JSON and
Markdown without overwriting."""

import importlib.util
import json
from pathlib import Path

from rewards.audit.battery import AuditProblem
from rewards.audit.families import CONSTRUCTION_FAMILIES, MessageCompletion, faithful_completion
from rewards.checks.arithmetic import check_text
from rewards.parsing.trace import extract_final_answer

ROOT = Path(__file__).resolve().parents[1]
DUCKS = AuditProblem(
    "ducks", "gsm8k",
    "Janet's ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes muffins for her friends "
    "every day with four. She sells the remainder at the farmers' market daily for $2 per fresh duck egg. How much "
    "in dollars does she make every day at the farmers' market?",
    "Janet sells 16 - 3 - 4 = <<16-3-4=9>>9 duck eggs a day.\nShe makes 9 * 2 = $<<9*2=18>>18 every day at the "
    "farmer’s market.\n#### 18", "18")
INDEPENDENT = AuditProblem(
    "pens", "gsm8k", "Tom buys 3 boxes of 4 pens and 2 boxes of 5 pencils. How many items does he buy?",
    "Tom buys 3 * 4 = <<3*4=12>>12 pens.\nHe buys 2 * 5 = <<2*5=10>>10 pencils.\nSo he buys 12 + 10 = <<12+10=22>>22 "
    "items.\n#### 22", "22")


def _bench():
    spec = importlib.util.spec_from_file_location("mixed_groups", ROOT / "benchmarks" / "mixed_groups.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _equations(text):
    return sorted(str(c.equation.sides) for c in check_text(str(text)) if c.ok is True)


def test_rewordings_keep_every_equation_and_the_answer():
    bench = _bench()
    for p in (DUCKS, INDEPENDENT):
        gold = faithful_completion(p.solution)
        faithful = bench.faithful_set(p, 4)
        assert faithful[0] == gold and len(faithful) == 4
        for text in faithful:
            assert _equations(text) == _equations(gold), text
            assert extract_final_answer(text)[0] == p.answer, text
    moved = bench.reorder(INDEPENDENT.solution)
    assert moved.split("\n")[:2] == ["He buys 2 * 5 = 10 pencils.", "Tom buys 3 * 4 = 12 pens."]
    assert bench.reorder(DUCKS.solution) is None  # the second line uses the first one's 9: no independent pair
    assert bench.answer_sentence(faithful_completion(DUCKS.solution)).endswith("The answer is 18.")
    assert bench.rephrase("So she has 3 + 4 = 7 in total.\nThen 7 * 2 = 14.\n#### 14") == \
        "Thus she has 3 + 4 = 7 altogether.\nNext 7 * 2 = 14.\n#### 14"
    assert bench.rephrase("She has 3 + 4 = 7 pens.\nShe doubles them: 7 * 2 = 14.\n#### 14") == \
        "First, she has 3 + 4 = 7 pens.\nShe doubles them: 7 * 2 = 14.\n#### 14"


def test_groups_hold_the_layouts_and_one_call_scores_a_whole_group():
    bench = _bench()
    groups = bench.groups(DUCKS, seed=0)
    faithful, built = groups["4+4"]
    assert len(faithful) == 4 and len(built) == 4 and len(set(map(str, built))) == 4
    for family in CONSTRUCTION_FAMILIES:
        gold, seven = groups[f"1+7 {family}"]
        assert len(gold) == 1 and len(seven) == 7
    calls = []

    def reward(prompts, completions, answer, **kwargs):
        calls.append((prompts, completions, answer))
        return [None if i == 0 else 0.5 for i in range(len(completions))]

    _, seven = groups["1+7 constructed_one_reasoning"]
    assert isinstance(seven[0], MessageCompletion)
    scores = bench.call_group(reward, DUCKS.problem, ["gold"] + list(seven), "18")
    (prompts, completions, answer), = calls
    assert scores[0] == 0.0 and scores[1:] == [0.5] * 7  # None counts as 0.0
    assert answer == ["18"] * 8 and all(p == [{"role": "user", "content": DUCKS.problem}] for p in prompts)
    assert completions[0] == [{"role": "assistant", "content": "gold"}]
    assert completions[1][0]["reasoning_content"] and completions[1][0]["content"] == "#### 18"


def test_the_cli_writes_json_and_markdown_and_never_overwrites(shared_data, tmp_path, capsys):
    bench = _bench()
    out, md = tmp_path / "m.json", tmp_path / "m.md"
    assert bench.main(["--n", "3", "--n-math", "0", "--json", str(out), "--markdown", str(md), "--no-progress"]) == 0
    report = json.loads(out.read_text())
    layouts = report["sources"]["gsm8k"]["layouts"]
    assert "4+4" in layouts and all(r in layouts["4+4"] for r in ("rafs", "faithful_accuracy"))
    for row in layouts.values():
        for t in row.values():
            assert 0 <= t["first"] <= t["n"] <= 3 and t["share"] == round(t["first"] / t["n"], 4)
    assert "| `4+4` |" in md.read_text()
    assert bench.main(["--n", "3", "--n-math", "0", "--json", str(out), "--no-progress"]) == 2
    assert "exists" in capsys.readouterr().err
    assert bench.main(["--n", "0"]) == 2
