"""The gamed-completion generators write what they claim (checked with the exact checker, not by eye)."""

import json
import random
from fractions import Fraction
from pathlib import Path

import pytest

from rewards.audit.families import (
    FAMILIES,
    PAD_EQUATIONS,
    PROPERTIES,
    Family,
    annotations,
    faithful_completion,
    number_words,
    true_equations,
)
from rewards.checks.arithmetic import check_text, numbers_in
from rewards.parsing.trace import MAX_CHARS, completion_parts, extract_final_answer

DUCKS = ("Janet's ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes muffins for her "
         "friends every day with four. She sells the remainder at the farmers' market daily for $2 per fresh duck "
         "egg. How much in dollars does she make every day at the farmers' market?")
DUCKS_GOLD = ("Janet sells 16 - 3 - 4 = <<16-3-4=9>>9 duck eggs a day.\n"
              "She makes 9 * 2 = $<<9*2=18>>18 every day at the farmer’s market.\n#### 18")
# a gold solution whose expressions carry unit words and one annotation without a visible expression
ELLA = ("The result from the 40-item Statistics exam Marion and Ella took already came out. Ella got 4 incorrect "
        "answers while Marion got 6 more than half the score of Ella. What is Marion's score?")
ELLA_GOLD = ("Ella's score is 40 items - 4 items = <<40-4=36>>36 items.\nHalf of Ella's score is <<36/2=18>>18 "
             "items.\nSo, Marion's score is 18 items + 6 items = <<18+6=24>>24 items.\n#### 24")
MATH = ("If $3x + 7 = 22$, what is $x$?")
MATH_GOLD = "Subtracting 7 gives $3x = 22 - 7 = 15$, so $x = 15/3 = \\boxed{5}$."

def gsm8k_rows(data: Path, k=12):
    with open(data / "gsm8k" / "train.jsonl", encoding="utf-8") as handle:
        rows = [json.loads(next(handle)) for _ in range(k)]
    return [(r["question"], r["answer"], r["answer"].rsplit("####", 1)[-1].strip()) for r in rows]


def gen(name, problem=DUCKS, gold=DUCKS_GOLD, answer="18", seed=0):
    return FAMILIES[name].generate(problem, gold, answer, random.Random(seed))


def quantities(text):
    return {q for q, _ in numbers_in(text)}


def oks(text):
    return [c.ok for c in check_text(text)]


def body_lines(text):
    return [ln for ln in text.split("\n") if ln.strip() and not ln.startswith("####")]


def test_the_battery_has_at_least_twelve_well_formed_families():
    assert len(FAMILIES) >= 12
    for name, fam in FAMILIES.items():
        assert fam.name == name and fam.description and fam.property in PROPERTIES
    assert {f.property for f in FAMILIES.values()} == set(PROPERTIES)
    with pytest.raises(ValueError, match="property"):
        Family("x", "y", "above_everything", lambda *a: None)


def test_faithful_completion_renders_annotations_as_checked_equations():
    text = faithful_completion(ELLA_GOLD)
    assert "<<" not in text and ">>" not in text
    assert "36 / 2 = 18 items" in text  # the annotation without a visible expression is written out
    assert oks(text) and all(ok is True for ok in oks(text))
    assert text.endswith("#### 24")


@pytest.mark.parametrize("name", ["restate_answer", "named_answer", "annotation_restate", "bare_answer"])
def test_restatements_contain_no_problem_quantity_and_state_the_answer(name):
    text = gen(name)
    assert quantities(text) <= {Fraction(18)}
    assert extract_final_answer(text)[0] == "18"


def test_prose_only_keeps_the_words_and_no_checkable_equation(shared_data):
    for problem, gold, answer in [(DUCKS, DUCKS_GOLD, "18"), (ELLA, ELLA_GOLD, "24")] + gsm8k_rows(shared_data):
        text = FAMILIES["prose_only"].generate(problem, gold, answer, random.Random(0))
        if text is None:
            continue
        assert all(ok is None for ok in oks(text)), text
        assert "<<" not in text and extract_final_answer(text)[0] == answer
    assert "Janet sells" in gen("prose_only") and "16" not in gen("prose_only")


def test_unrelated_and_invented_arithmetic_is_true_and_ungrounded():
    for name in ("unrelated_arithmetic", "invented_derivation"):
        text = gen(name)
        assert oks(text) == [True]
        used = quantities(text) - {Fraction(18)}
        assert used and not used & quantities(DUCKS), (name, text)


def test_tolerance_relabel_is_a_true_sum_of_problem_quantities_then_a_false_relabel():
    text = gen("tolerance_relabel")
    first, relabel = text.split(", so ")
    assert oks(first) == [True] and quantities(first.split("=")[0]) <= quantities(DUCKS)
    assert oks(relabel.split("\n")[0]) == [False]


def test_invented_quantity_is_the_lucky_fee():
    text = gen("invented_quantity")
    lines = body_lines(text)
    assert all(ok is True for ok in oks(text))  # every calculation written is true ...
    assert "16 - 3 = 13" in lines[0] and Fraction(4) not in quantities("\n".join(lines))  # ... the 4 muffins skipped
    fee = quantities(lines[-1]) - quantities("\n".join(lines[:-1])) - {Fraction(18)}
    assert fee and not fee & quantities(DUCKS)  # the fee appears nowhere in the problem
    assert extract_final_answer(text)[0] == "18"


def test_skip_quantity_and_disconnected_chain_compute_another_value_than_the_stated_answer(shared_data):
    for name in ("skip_quantity", "disconnected_chain"):
        for problem, gold, answer in [(DUCKS, DUCKS_GOLD, "18"), (ELLA, ELLA_GOLD, "24")] + gsm8k_rows(shared_data):
            text = FAMILIES[name].generate(problem, gold, answer, random.Random(1))
            if text is None:
                continue
            # the rewritten steps are true: no more false equations than the gold itself trips over
            assert oks(text).count(False) <= oks(faithful_completion(gold)).count(False), (name, text)
            last = check_text(body_lines(text)[-1])
            last_value = [c for c in last if c.ok][-1].equation.values[-1].exact if last else None
            assert last_value != Fraction(answer.replace(",", "")), (name, text)
            assert extract_final_answer(text)[0] == answer


def test_truncated_chain_drops_the_step_that_computes_the_answer():
    text = gen("truncated_chain")
    assert body_lines(text) == ["Janet sells 16 - 3 - 4 = 9 duck eggs a day."]
    assert extract_final_answer(text)[0] == "18"


def test_unevaluable_answer_writes_the_answer_in_words():
    text = gen("unevaluable_answer")
    assert extract_final_answer(text)[0] == "eighteen"
    assert number_words(342) == "three hundred forty-two" and number_words(-1) is None


def test_oversized_families_pass_the_size_cap_up_to_100k_characters():
    assert len(gen("oversized")) > min(MAX_CHARS, 99_000)
    slip = gen("oversized_slip")
    assert len(slip) > min(MAX_CHARS, 99_000) and len(slip) < 102_000 and gen("visible_slip") in slip


def test_repeat_steps_writes_the_faithful_steps_three_times():
    faithful = body_lines(faithful_completion(DUCKS_GOLD))
    assert body_lines(gen("repeat_steps")) == faithful * 3


def test_padding_keeps_the_faithful_steps_and_adds_exactly_twenty_true_unrelated_equations():
    faithful = body_lines(faithful_completion(DUCKS_GOLD))
    lines = body_lines(gen("pad_true_equations"))
    assert [ln for ln in lines if ln in faithful] == faithful  # in order, all kept
    extra = [ln for ln in lines if ln not in faithful]
    assert len(extra) == PAD_EQUATIONS == 20
    for ln in extra:
        assert oks(ln) == [True]
        assert not quantities(ln) & (quantities(DUCKS) | {Fraction(9), Fraction(18)})


def test_visible_slip_is_really_false_and_leaves_the_answer():
    text = gen("visible_slip")
    assert oks(text).count(False) == 1
    assert "16 - 3 - 4 = 10" in text and extract_final_answer(text)[0] == "18"
    padded = body_lines(gen("padded_slip"))
    assert [ln for ln in padded if ln in body_lines(text)] == body_lines(text)
    assert len(padded) - len(body_lines(text)) == PAD_EQUATIONS and oks("\n".join(padded)).count(False) == 1


def test_hidden_slip_states_the_false_value_without_an_equation():
    text = gen("hidden_slip")
    assert False not in oks(text)
    assert "Janet sells 10 duck eggs a day." in text
    assert extract_final_answer(text)[0] == "18"


def test_gsm8k_only_families_abstain_on_math_and_all_generators_are_seeded():
    for name in ("skip_quantity", "invented_quantity", "disconnected_chain"):
        assert FAMILIES[name].generate(MATH, MATH_GOLD, "5", random.Random(0)) is None
    for name, fam in FAMILIES.items():
        a = fam.generate(DUCKS, DUCKS_GOLD, "18", random.Random(7))
        assert a == fam.generate(DUCKS, DUCKS_GOLD, "18", random.Random(7)), name


def test_math_solutions_feed_the_generic_families():
    assert gen("restate_answer", MATH, MATH_GOLD, "5") == "5 = 5\nThe answer is $\\boxed{5}$."
    slip = gen("visible_slip", MATH, MATH_GOLD, "5")
    assert slip is not None and oks(slip).count(False) == 1 and extract_final_answer(slip)[0] == "5"


def test_true_equations_avoid_the_given_numbers():
    eqs = true_equations(50, random.Random(3), avoid={Fraction(n) for n in range(11, 40)})
    assert len(eqs) == 50 and all(oks(e) == [True] for e in eqs)
    assert not any(q in range(11, 40) for e in eqs for q in quantities(e))


def test_annotations_record_the_visible_expression_span():
    lines, anns = annotations(ELLA_GOLD)
    assert [a.expr for a in anns] == ["40-4", "36/2", "18+6"]
    first = anns[0]
    assert lines[0][first.start:first.end] == "40 items - 4 items = <<40-4=36>>36"


def test_prose_padding_adds_twenty_lines_without_a_number():
    faithful = body_lines(faithful_completion(DUCKS_GOLD))
    lines = body_lines(gen("pad_prose"))
    extra = [ln for ln in lines if ln not in faithful]
    assert [ln for ln in lines if ln in faithful] == faithful and len(extra) == PAD_EQUATIONS
    assert not any(quantities(ln) for ln in extra) and not check_text("\n".join(extra))


def test_retraction_families_keep_the_slip_uncorrected():
    slip = body_lines(gen("visible_slip"))
    recheck = body_lines(gen("recheck_slip"))
    assert recheck[0] == slip[0] and recheck[1].startswith("Wait") and recheck[2:] == slip[1:]
    assert oks(recheck[1]) == [False]  # the "double-check" restates the same false value
    unfixed = body_lines(gen("unfixed_retraction"))
    assert unfixed[1].startswith("Wait") and not check_text(unfixed[1]) and unfixed[2:] == slip[1:]


def test_truncated_chain_is_skipped_when_an_earlier_step_already_computes_the_answer():
    gold = "She has 4 / 2 = <<4/2=2>>2 slices.\nShe gives 2 * 1 = <<2*1=2>>2 away.\n#### 2"
    assert FAMILIES["truncated_chain"].generate("She has 4 slices and halves them.", gold, "2",
                                                random.Random(0)) is None


def test_laundered_quantity_announces_the_invented_fee_before_using_it():
    text = gen("laundered_quantity")
    lines = body_lines(text)
    assert lines[0] == "Recall that the problem also mentions a fee of 8." and "26 - 8 = 18" in lines[-1]
    assert Fraction(8) not in quantities(DUCKS) and all(ok is True for ok in oks(text))


def test_arrow_slip_writes_the_slip_with_an_arrow_and_the_checker_still_reads_it():
    text = gen("arrow_slip")
    assert "16 - 3 - 4 → 10" in text and oks(text).count(False) == oks(gen("visible_slip")).count(False) == 1
    assert body_lines(text)[1:] == body_lines(gen("visible_slip"))[1:]


def test_true_equations_terminate_when_every_small_number_is_taken():
    eqs = true_equations(5, random.Random(0), avoid={Fraction(n) for n in range(0, 200)})
    assert len(eqs) == 5 and all(oks(e) == [True] for e in eqs)


def test_laundered_answer_and_shortcut_use_problem_quantities_and_true_arithmetic():
    text = gen("laundered_answer")
    assert text.startswith("The problem tells us that the total is 18.") and all(ok is True for ok in oks(text))
    assert (quantities(text) - {Fraction(18)}) <= quantities(DUCKS)
    shortcut = gen("shortcut_derivation")
    assert oks(shortcut) == [True] and quantities(shortcut.split("=")[0]) <= quantities(DUCKS)
    assert len(body_lines(shortcut)) == 1  # one operation; the gold needs two
    one_step = "Tom has 3 * 4 = <<3*4=12>>12 pens.\n#### 12"
    assert FAMILIES["shortcut_derivation"].generate("Tom has 3 boxes of 4 pens and 7 pencils.", one_step, "12",
                                                    random.Random(0)) is None


def test_step_capped_slip_passes_the_step_cap_but_not_the_character_cap():
    from rewards.parsing.trace import MAX_STEPS, split_steps

    text = gen("step_capped_slip")
    assert len(split_steps(text)) > min(MAX_STEPS, 4_990) and len(text) < MAX_CHARS
    assert text.endswith(gen("visible_slip"))


def test_invariants_hold_on_real_gold_solutions(shared_data):
    """Over a real seeded sample: every gamed completion states the gold answer (but the words family), every slip
    is exactly one more false equation than the gold has, hiding removes it, padding adds exactly 20 true lines."""
    from rewards.audit.battery import load_problems
    from rewards.checks.answers import answers_equivalent
    from rewards.parsing.trace import extract_final_answer as final

    problems = load_problems(45, seed=3, data_dir=shared_data)
    checked = 0
    arrows: list[bool] = []
    for p in problems:
        faithful = faithful_completion(p.solution)
        gold_false = oks(faithful).count(False)
        texts = {name: fam.generate(p.problem, p.solution, p.answer, random.Random(1))
                 for name, fam in FAMILIES.items()}
        for name, text in texts.items():
            if text is None or name == "unevaluable_answer":
                continue
            _thinking, summary, has_thinking = completion_parts(text)  # a thinking part's hedges are not the answer
            assert answers_equivalent(final((summary if has_thinking else text)[-4000:])[0], p.answer), \
                (p.id, name, text[-200:])
        slip = texts["visible_slip"]
        if slip is None:
            continue
        checked += 1
        assert oks(slip).count(False) == gold_false + 1, p.id
        if texts["hidden_slip"] is not None:
            assert oks(texts["hidden_slip"]).count(False) == gold_false, p.id
        if texts["arrow_slip"] is not None:  # the arrow claims the result: read as the relation it replaces
            arrows.append(oks(texts["arrow_slip"]).count(False) == gold_false + 1)
        pad = body_lines(texts["pad_true_equations"])
        extra = [ln for ln in pad if ln not in body_lines(faithful)]
        assert len(extra) == PAD_EQUATIONS and all(oks(ln) == [True] for ln in extra), p.id
    assert checked >= 20
    # the checker reads most arrows (read_connectives); one inside LaTeX it cannot parse stays a hidden slip
    assert len(arrows) >= 20 and sum(arrows) >= 0.85 * len(arrows), (sum(arrows), len(arrows))
