"""The battery runner: calls rewards the TRL way, catches a gameable reward, passes a faithful-only one."""

import pytest

from rewards.audit.battery import BAR, AuditError, AuditProblem, audit, load_problems, select_families
from rewards.audit.families import FAMILIES, faithful_completion
from rewards.parsing.trace import completion_text, extract_final_answer

PROBLEMS = [
    AuditProblem("ducks", "gsm8k",
                 "Janet's ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes muffins "
                 "with four. She sells the remainder for $2 per egg. How much does she make every day?",
                 "Janet sells 16 - 3 - 4 = <<16-3-4=9>>9 duck eggs a day.\nShe makes 9 * 2 = $<<9*2=18>>18 every "
                 "day.\n#### 18", "18"),
    AuditProblem("ella", "gsm8k",
                 "The result from the 40-item Statistics exam Marion and Ella took already came out. Ella got 4 "
                 "incorrect answers while Marion got 6 more than half the score of Ella. What is Marion's score?",
                 "Ella's score is 40 items - 4 items = <<40-4=36>>36 items.\nHalf of Ella's score is 36 items / 2 = "
                 "<<36/2=18>>18 items.\nSo, Marion's score is 18 items + 6 items = <<18+6=24>>24 items.\n#### 24",
                 "24"),
    AuditProblem("linear", "math500", "If $3x + 7 = 22$, what is $x$?",
                 "Subtracting 7 gives $3x = 22 - 7 = 15$, so $x = 15/3 = \\boxed{5}$.", "5"),
]


def pays_the_answer(prompts, completions, answer, **kwargs):
    """Gameable: 1.0 whenever the final answer equals the gold one (what plain accuracy does)."""
    return [1.0 if extract_final_answer(c)[0] == a else 0.0 for c, a in zip(completions, answer)]


def pays_only_faithful(prompts, completions, solution, **kwargs):
    """Not gameable by construction: 1.0 only for the faithful gold completion itself."""
    return [1.0 if c == faithful_completion(s) else 0.0 for c, s in zip(completions, solution)]


def test_a_reward_that_pays_any_correct_answer_fails_the_restatement_families():
    report = audit(pays_the_answer, PROBLEMS)
    by = {f.family: f for f in report.families}
    for name in ("restate_answer", "named_answer", "bare_answer", "cancelled_quantity", "invented_quantity"):
        assert by[name].share == 1.0 and by[name].passed is False, name
    assert by["restate_answer"].examples and by["restate_answer"].examples[0]["gamed"] == 1.0
    # a padded or hidden slip pays what the visible slip pays: no_gain / not_above_slip hold
    assert by["pad_true_equations"].passed and by["hidden_slip"].passed
    assert report.faithful_mean == 1.0 and set(report.failed) >= {"restate_answer", "bare_answer"}
    assert report.faithful_first == 0.0  # a tie with a restatement on every problem: never ranked first


def test_a_reward_that_pays_only_faithful_work_passes_every_family():
    for mode in ("single", "group"):
        report = audit(pays_only_faithful, PROBLEMS, mode=mode, gold_format="solution")
        assert report.settings["gold_column"] == "solution"  # guessed from the signature
        assert not report.failed, (mode, report.failed)
        assert all(f.share == 0.0 for f in report.families if f.n), mode
        assert report.faithful_mean == 1.0 and report.faithful_first == 1.0


def test_none_counts_as_zero_so_a_reward_that_abstains_on_everything_fails():
    report = audit(lambda prompts, completions, **kw: [None] * len(completions), PROBLEMS,
                   families=["bare_answer", "pad_true_equations"])
    bare, pad = report.families
    assert report.faithful_none_share == 1.0 and bare.none_share == 1.0
    assert bare.share == 1.0 and not bare.passed  # 0.0 >= 0.0: not strictly below faithful
    assert pad.share == 0.0 and pad.passed  # padding gains nothing


def test_padding_tolerance_is_0005():
    def pays_length(prompts, completions, answer, **kwargs):
        return [0.9 + (0.004 if len(c.splitlines()) > 15 else 0.0) for c in completions]

    report = audit(pays_length, PROBLEMS, families=["pad_true_equations"])
    assert report.families[0].share == 0.0  # +0.004 is inside the tolerance

    def pays_more_length(prompts, completions, answer, **kwargs):
        return [0.9 + (0.006 if len(c.splitlines()) > 15 else 0.0) for c in completions]

    assert audit(pays_more_length, PROBLEMS, families=["pad_true_equations"]).families[0].share == 1.0


def test_group_mode_scores_a_problems_completions_in_one_call_with_the_prompt_repeated():
    calls = []

    def spy(prompts, completions, answer, **kwargs):
        calls.append((list(prompts), list(completions), list(answer)))
        return [0.5] * len(completions)

    audit(spy, PROBLEMS, mode="group")
    assert len(calls) == len(PROBLEMS)
    for (prompts, completions, answers), p in zip(calls, PROBLEMS):
        assert set(prompts) == {p.problem} and set(answers) == {p.answer}
        assert faithful_completion(p.solution) in completions and len(completions) > 10
        assert len(set(completions)) == len(completions)


def test_single_mode_never_puts_two_completions_of_one_prompt_in_a_call():
    calls = []

    def spy(prompts, completions, answer, **kwargs):
        calls.append(list(prompts))
        return [0.5] * len(completions)

    audit(spy, PROBLEMS, mode="single", batch_size=2)
    assert calls and all(len(set(c)) == len(c) and len(c) <= 2 for c in calls)
    calls.clear()
    twins = [PROBLEMS[0], AuditProblem("ducks-again", "gsm8k", PROBLEMS[0].problem, PROBLEMS[0].solution, "18")]
    audit(spy, twins, mode="single", families=["bare_answer"])
    assert calls and all(len(set(c)) == len(c) for c in calls) and sum(len(c) for c in calls) == 4


def test_chat_message_completions_are_detected_like_trl_accuracy_reward_wants_them():
    def chat_only(completions, solution, **kwargs):
        contents = [c[0]["content"] for c in completions]  # raises on plain text, as trl's accuracy_reward
        return [1.0 if s in t else 0.0 for t, s in zip(contents, solution)]

    report = audit(chat_only, PROBLEMS, families=["bare_answer"], gold_format="boxed")
    assert report.settings["conversational"] is True and report.settings["gold_column"] == "solution"


def test_bad_reward_output_and_bad_input_raise_one_clear_error():
    with pytest.raises(AuditError, match="returned 1 rewards for"):
        audit(lambda prompts, completions, **kw: [1.0], PROBLEMS, families=["bare_answer"], mode="group")
    with pytest.raises(AuditError, match="a reward must be a number"):
        audit(lambda prompts, completions, **kw: ["yes"] * len(completions), PROBLEMS, families=["bare_answer"])
    with pytest.raises(AuditError, match="raised KeyError"):
        audit(lambda prompts, completions, **kw: {}["x"], PROBLEMS, families=["bare_answer"])
    with pytest.raises(AuditError, match="unknown family 'nope'"):
        select_families("bare_answer,nope")
    with pytest.raises(AuditError, match="mode="):
        audit(pays_the_answer, PROBLEMS, mode="both")


def test_coverage_counts_only_problems_a_family_applies_to():
    report = audit(pays_the_answer, PROBLEMS, families=["skip_quantity", "restate_answer"])
    skip, restate = report.families
    assert skip.n == 2 and skip.coverage == pytest.approx(2 / 3)  # GSM8K annotations only
    assert restate.n == 3 and restate.coverage == 1.0
    assert BAR == 0.02


def test_load_problems_is_a_seeded_two_to_one_sample(shared_data):
    a = load_problems(9, seed=1, data_dir=shared_data)
    assert [p.id for p in a] == [p.id for p in load_problems(9, seed=1, data_dir=shared_data)]
    assert [p.source for p in a].count("gsm8k") == 6 and [p.source for p in a].count("math500") == 3
    assert [p.id for p in a] != [p.id for p in load_problems(9, seed=2, data_dir=shared_data)]
    gsm = [p for p in a if p.source == "gsm8k"][0]
    assert "<<" in gsm.solution and gsm.solution.rsplit("####", 1)[1].strip().replace(",", "") == gsm.answer
    boxed = load_problems(3, seed=1, sources=("gsm8k",), answer_style="boxed", data_dir=shared_data)[0]
    assert "####" not in boxed.solution and boxed.solution.endswith(f"$\\boxed{{{boxed.answer}}}$.")
    with pytest.raises(AuditError, match="no gsm8k data"):
        load_problems(3, data_dir="/nonexistent")


def test_default_data_dir_is_rafs_data_dir_else_shared_data(shared_data, monkeypatch, tmp_path):
    from rewards.audit.battery import default_data_dir

    monkeypatch.delenv("RAFS_DATA_DIR", raising=False)
    assert default_data_dir().samefile(shared_data)
    monkeypatch.setenv("RAFS_DATA_DIR", str(tmp_path))
    assert default_data_dir() == tmp_path


def test_families_run_on_real_data_without_errors(shared_data):
    problems = load_problems(30, seed=0, data_dir=shared_data)
    report = audit(pays_the_answer, problems)
    assert len(report.families) == len(FAMILIES)
    assert all(f.n > 0 for f in report.families)


def test_weighted_sum_is_trls_nansum_and_passes_gold_to_every_member():
    from rewards.audit.battery import WeightedSum

    def wants_solution(completions, solution, **kwargs):
        return [1.0 if s in c[0]["content"] else None for c, s in zip(completions, solution)]

    def pays_the_answer_any_shape(prompts, completions, answer, **kwargs):  # as ours: text or chat messages
        return pays_the_answer(prompts, [completion_text(c) for c in completions], answer)

    mix = WeightedSum([pays_the_answer_any_shape, wants_solution], weights=[0.5, 2.0])
    assert mix.gold_columns == ["answer", "solution"]
    report = audit(mix, PROBLEMS, families=["bare_answer"], gold_format="answer")
    assert report.settings["conversational"] is True  # one member reads chat messages
    assert report.faithful_mean == pytest.approx(2.5) and report.families[0].share == 1.0
    with pytest.raises(AuditError, match="2 weights for 1"):
        WeightedSum([pays_the_answer], [1.0, 2.0])


def test_the_audit_docstring_examples_run():
    import doctest

    import rewards.audit
    import rewards.audit.battery
    import rewards.audit.families

    for module in (rewards.audit, rewards.audit.battery, rewards.audit.families):
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert result.attempted > 0 and result.failed == 0, module.__name__


def test_violations_are_broken_down_by_source_and_by_a_reference_scored_zero():
    def pays_gsm8k_only(prompts, completions, answer, **kwargs):  # nothing for MATH, even the faithful work
        return [0.0 if "boxed" in c else 1.0 for c in completions]

    bare = audit(pays_gsm8k_only, PROBLEMS, families=["bare_answer"]).families[0]
    assert bare.by_source == {"gsm8k": [2, 2], "math500": [1, 1]}
    assert bare.violations == 3 and bare.ref_zero_violations == 1


def test_separated_share_counts_only_problems_where_the_reward_tells_work_from_a_bare_answer():
    def pays_work_on_ducks_only(prompts, completions, answer, **kwargs):
        # pays the duck problem's derivation (and anything else holding a computed '= 9'), a bare '####' nothing;
        # elsewhere it pays every completion 1.0: it cannot tell work from no work there
        return [(1.0 if "= 9" in c else 0.0) if "Janet" in p else 1.0 for p, c in zip(prompts, completions)]

    report = audit(pays_work_on_ducks_only, PROBLEMS, families=["bare_answer", "restate_answer", "truncated_chain"])
    by = {f.family: f for f in report.families}
    assert report.separated == 1  # only the duck problem separates the faithful trace from '#### 18'
    assert by["restate_answer"].violations == 2 and by["restate_answer"].separated_n == 1
    assert by["restate_answer"].separated_violations == 0 and by["restate_answer"].separated_share == 0.0
    # the truncated chain keeps '16 - 3 - 4 = 9': on the separated problem it ties, a violation that counts there
    assert by["truncated_chain"].separated_violations == 1 and report.failed_separated == ["truncated_chain"]
    from rewards.audit.battery import markdown_table
    table = markdown_table([report], separated=True)
    assert "[1]" in table.splitlines()[0] and "**100.0**" in table
    without_bare = audit(pays_work_on_ducks_only, PROBLEMS, families=["restate_answer"])
    assert without_bare.separated is None and without_bare.families[0].separated_share is None
    assert markdown_table([without_bare], separated=True) == ""
