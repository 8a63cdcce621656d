"""A result written with an arrow or a verb ("16 - 3 - 4 → 10", "9 * 2 gives 18") is checked as the equation it claims."""

import json
from fractions import Fraction

import pytest

from rewards.checks.arithmetic import check_text
from rewards.checks.arithmetic.extraction import read_connectives

DUCKS = ("Janet's ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes muffins with four. "
         "She sells the remainder for $2 per egg. How much does she make every day?")


@pytest.mark.parametrize("text", [
    "She sells 16 - 3 - 4 → 10 eggs.", "16 - 3 - 4 -> 10", "16 - 3 - 4 => 10", "16 - 3 - 4 ⇒ 10",
    "$16 - 3 - 4 \\to 10$", "$16 - 3 - 4 \\rightarrow 10$", "16 - 3 - 4 makes 10 eggs", "16 - 3 - 4 gives 10",
    "16 - 3 - 4 yields 10", "16 - 3 - 4 equals 10", "He pays $3 + $4 → $8", "2 dogs have 2 x 4 → 9 legs.",
    "so 90*.10 → 10 points", "$180(5-2) → 541$ degrees", "$15 \\cdot \\frac{8}{17} \\to \\frac{121}{17}$",
    "In 2005, 20/2*3 → 31 kids came.", "$900/day * 3 days → $2701", "16 - 3 - 4 ⟹ 10", "16 - 3 - 4 ↦ 10",
    "16 - 3 - 4 leads to 10", "$16 - 3 - 4 \\Longrightarrow 10$", "16 - 3 - 4 comes out to 10",
    "16 - 3 - 4 := 10", "16 - 3 - 4 giving 10 eggs", "16 - 3 - 4 is equal to 10", "16 - 3 - 4, hence 10",
    "16 - 3 - 4, so 10 eggs", "16 - 3 - 4 so 10", "16 - 3 - 4, which is 10", "16 - 3 - 4 which gives us 10",
    "16 - 3 - 4, that's 10", "16 - 3 - 4 for a total of 10", "3 * $2, which equals $7", "15/60 is equal to 0.5",
])
def test_a_false_result_behind_an_arrow_or_a_verb_is_a_false_relation(text):
    assert len(read_connectives(text)) == len(text)  # offsets kept
    assert [c.ok for c in check_text(text)] == [False], text


@pytest.mark.parametrize("text", [
    "This means convertibles make up 28% because 100-72 equals 28.",  # a difference, not a range (100 > 72)
    "She sells 16 - 3 - 4 → 9 eggs.", "16 - 3 - 4 makes 9 eggs, 9 * 2 gives 18.", "$3 \\cdot 4 \\to 12$",
])
def test_a_true_result_behind_an_arrow_is_a_true_relation(text):
    assert check_text(text) and all(c.ok is True for c in check_text(text)), text


@pytest.mark.parametrize("text", [
    "$54 = 9 \\cdot 6 + 0 \\Rightarrow 54 \\equiv \\boxed{0} \\pmod{6}$",  # an implication, not a result
    "Since 4/7 is equal to $24, 1/7 is $6.",                             # a correspondence
    "2 plus 2 plus 1/3 equals 7",                                        # a sum in words, only partly numerals
    "The count goes 3 → 4 → 5.", "$x \\to 0$", "2 + 2 → 4x", "3 + 4 → 7 + 1 = 8", "x = 2 \\Rightarrow 2x = 4",
    "The seats are numbered 1-40 gives 40 seats in all.",                 # an inclusive range, not 1 - 40
    "That is 18 + 6, which is 20 more than 4.",                          # a comparison, not a result
    "It takes 2 * 3, so 4 times as long.", "She had 3/4 is equal to $15",
])
def test_implications_transitions_and_correspondences_are_not_read(text):
    assert read_connectives(text) == text


def test_no_gold_solution_gains_a_false_relation(shared_data):
    """Reading connectives must not cost faithful work: on every GSM8K train and MATH-500 gold line it changes, the
    checker finds no false relation."""
    changed, false = 0, []
    for path, key in (("gsm8k/train.jsonl", "answer"), ("math500/test.jsonl", "solution")):
        for row in map(json.loads, (shared_data / path).open()):
            for line in row[key].split("\n"):
                if read_connectives(line) != line:
                    changed += 1
                    if any(c.ok is False for c in check_text(line)) and line not in _GOLD_SLIPS:
                        false.append(line)
    assert changed >= 1 and not false, false[:3]


_GOLD_SLIPS = {  # gold lines whose arithmetic is wrong: reading them finds a true slip
    "He total temperature for the week is 692 because 99.1 plus 98.2 plus 98.7 plus 99.3 plus 99.8 plus 99 plus 98.9 "
    "equals 692.": ("99.1", "98.2", "98.7", "99.3", "99.8", "99", "98.9"),
}


def test_the_gold_slips_allowed_above_are_slips():
    for line, terms in _GOLD_SLIPS.items():
        assert sum(Fraction(t) for t in terms) != 692 and [c.ok for c in check_text(line)] == [False]


def test_an_arrow_slip_earns_no_more_than_the_visible_slip():
    from rewards import get_faithful_accuracy_reward, get_rafs_reward

    slip = "She sells 16 - 3 - 4 = 10 eggs a day.\nShe makes 9 * 2 = 18 dollars every day.\n#### 18"
    arrow = slip.replace("16 - 3 - 4 = 10", "16 - 3 - 4 → 10")
    faithful = slip.replace("= 10", "= 9")
    for fn in (get_rafs_reward(cache=False), get_faithful_accuracy_reward(cache=False)):
        r_slip, r_arrow, r_faithful = fn([DUCKS] * 3, [slip, arrow, faithful], answer=["18"] * 3)
        assert r_arrow <= r_slip < r_faithful, (fn.__name__, r_arrow, r_slip, r_faithful)


def test_a_long_chain_before_a_connective_is_read_in_linear_time():
    """'1 + 1 + ... equals 5' (3,000 terms) took 4 s (the chain was re-scanned from every start); the chain is now
    bounded at 64 operations, and a longer one is not read (no false relation from its last 64 terms)."""
    import time

    text = "1 + " * 3000 + "1 equals 5"
    start = time.process_time()
    assert read_connectives(text) == text
    assert time.process_time() - start < 2.0  # about 0.2 s on one core


@pytest.mark.parametrize("text", [
    # GSM8K train #1616's gold line: took 37 s (each unit word could be split into 2-3 letter runs many ways, and
    # every split was retried when no result followed)
    "So in the first 5 days of the week, he studies for a total of 4 hours Monday + 8 hours Tuesday + 3 hours "
    "Wednesday + 3 hours Thursday + 3 hours Friday = 21 hours.",
    "for a total of " + " + ".join(f"{i} hours Wednesday afternoon" for i in range(40)) + " hours",
    "2 plus " + " plus ".join(f"{i} apples Wednesday" for i in range(40)) + " equals apples",
])
def test_unit_words_in_a_chain_are_read_in_linear_time(text):
    import time

    start = time.process_time()
    read_connectives(text)
    assert time.process_time() - start < 1.0  # about 1 ms on one core
