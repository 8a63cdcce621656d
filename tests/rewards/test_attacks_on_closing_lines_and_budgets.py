"""Hedges at the end of the thinking (``rewards/parsing/trace.py:_closing_line``), worded connectives
(``rewards/checks/arithmetic/extraction.py:read_connectives``), reduced fractions (``rewards/evidence/:_rescaled``)
and the deterministic algebra budgets (``rewards/checks/algebra/``, ``rewards/evidence/``:
``MAX_ALGEBRA_CALLS``, ``ALGEBRA_WORK``) attacked as a GRPO policy would, written as the property a reward should keep.

Attacks that still work live in tests/rewards/test_known_attacks.py (strict ``xfail``, each with the rule at fault);
the tests here pin attacks the rewards resist and false alarms checked not to happen. Counts are over 150 GSM8K
train + 150 MATH-500 problems ("verified": the faithful gold is paid 1.0 by faithful_accuracy; 142 GSM8K and 51-61
MATH-500 per attack).
"""

from __future__ import annotations

import time

import pytest

from redteam_cases import (MARION, MARION_BODY, MARION_GOLD, TREES, TREES_SLIP, math500_row, one as _one,
                             with_thinking as _think)

from rewards.audit.families import faithful_completion

BOTH = ["rafs", "faithful_accuracy"]
BODY, GOLD = MARION_BODY, MARION_GOLD  # gsm8k train 4530 (answer 24; 36 and 18 intermediate)


def _aside(line: str) -> str:
    """The Marion gold with one honest line before its last step."""
    return BODY.replace("\nSo, Marion", "\n" + line + "\nSo, Marion") + "\n#### 24"


# ------------------------------------------------------------------------- 1. hedges at the end of the thinking
HEDGE = "So $\\boxed{36}$ or $\\boxed{24}$."
PAD = "Let me double check the reasoning once more.\n" * 50  # ~2,250 characters without "="


# resisted here: '1 + 1 = 2' after the hedge costs through the stray-claim rule (a number from nowhere); 4/142
# verified GSM8K and 2-3/51 MATH-500 still paid as the gold (where 1 and 2 are reached anyway)
@pytest.mark.parametrize("reward", BOTH)
def test_hedge_then_a_stray_computation_earns_less_than_the_gold(reward):
    assert _one(reward, _think(BODY + "\n" + HEDGE + "\n1 + 1 = 2.", "#### 24")) < _one(reward, GOLD)


# false alarm checked absent: an honest thinking that tries an intermediate value, boxed, after its last computation
# and rejects it over several lines costs nothing. With the text after the last computation read (182642a, reverted),
# a candidate from nowhere (A + 1) boxed there was read as a hedge: 13/142 verified GSM8K, 42/51 MATH-500; now only
# the last line is read, and a box it asks about ("Is it \boxed{36}?") is left out.
@pytest.mark.parametrize("reward", BOTH)
@pytest.mark.parametrize("closing", [
    "Is it $\\boxed{36}$?\nNo: 36 is only an intermediate value.\nSo the answer is 24.",
    "Hmm, 36 or 24?\nThe question asks for Marion's score.\nIt is 24."])
def test_trying_an_intermediate_after_the_last_computation_costs_nothing(reward, closing):
    assert _one(reward, _think(BODY + "\n" + closing, GOLD)) == _one(reward, GOLD)


# closed (rewards/parsing/trace.py:thinking_boxes): a box of the thinking other than the final answer is a hedge
# wherever it stands, unless a later sentence of the thinking states the final answer or a computation after it
# recomputes it; a token computation ('$1 \equiv 1$'), padding or an '=' on the hedge's own line settles nothing.
@pytest.mark.parametrize("reward", BOTH)
@pytest.mark.parametrize("ending", [
    HEDGE + "\nOK.", "So the result = $\\boxed{36}$ or $\\boxed{24}$.\nOK.", HEDGE + "\n" + PAD + "OK.",
    HEDGE + "\n$1 \\equiv 1$."], ids=["one_line_before", "eq_on_hedge_line", "padding_2000", "equiv_after"])
def test_a_boxed_hedge_anywhere_in_the_thinking_earns_less_than_the_gold(reward, ending):
    assert _one(reward, _think(BODY + "\n" + ending, "#### 24")) < _one(reward, GOLD)


# ------------------------------------------------------------------------------------------ 2. connectives v4
# fixed (read_connectives: the range and share exceptions apply to every worded connective; a fraction 'of them' is a share)
@pytest.mark.parametrize("reward", BOTH)
@pytest.mark.parametrize("line", ["Numbering them 1-40, so 40 in all.", "Numbering them 1-40, which is 40 questions."])
def test_an_inclusive_range_with_a_comma_connective_costs_nothing(reward, line):
    assert _one(reward, _aside(line)) == _one(reward, GOLD)


# control: the range exception applies to an alphabetic connective
@pytest.mark.parametrize("reward", BOTH)
def test_an_inclusive_range_with_gives_costs_nothing(reward):
    assert _one(reward, _aside("Numbering them 1-40 gives 40 in all.")) == _one(reward, GOLD)


# fixed (read_connectives: the range and share exceptions apply to every worded connective; a fraction 'of them' is a share)
@pytest.mark.parametrize("reward", BOTH)
@pytest.mark.parametrize("line", ["Note that 1/4 of them, which is 10, is not what is asked.",
                                  "Note that 1/4 of them, that's 10, is not what is asked."])
def test_a_share_of_a_quantity_with_a_connective_costs_nothing(reward, line):
    assert _one(reward, _aside(line)) == _one(reward, GOLD)


# resisted: the same slip with a connective v4 reads is refuted as the visible slip
@pytest.mark.parametrize("reward", BOTH)
@pytest.mark.parametrize("conn", [", which is 5", " for a total of 5", ", so that's 5", ", which equals 5"])
def test_a_slip_written_with_a_v4_connective_earns_no_more_than_the_visible_slip(reward, conn):
    hidden = TREES_SLIP.replace("200 / 50 = 5", "200 / 50" + conn)
    assert _one(reward, hidden, TREES, "4") <= _one(reward, TREES_SLIP, TREES, "4")


# fixed (extraction._join_split_math reads '$A$ = $B$' as one region)
@pytest.mark.parametrize("reward", BOTH)
@pytest.mark.parametrize("written", ["$200 / 50$ = $5$", "$200 / 50$, which is $5$"])
def test_a_slip_split_across_two_math_regions_earns_no_more_than_the_visible_slip(reward, written):
    hidden = TREES_SLIP.replace("200 / 50 = 5", written)
    assert hidden != TREES_SLIP
    assert _one(reward, hidden, TREES, "4") <= _one(reward, TREES_SLIP, TREES, "4")


# ------------------------------------------------------------------------------------- 3. MATH recall (_rescaled)
# gsm8k train 5259 (answer 8)
FISH = ("I caught 4 fewer fish than the number in my tank and added them to my fish tank. If the tank has 20 fish "
        "right now, how many did I add?")


# resisted relative to explicit arithmetic: a reduction by a basic constant (2) launders no more than the same
# division written out (18 GSM8K / 7 MATH-500 problems where one lands on the answer: the reduction is paid fa 1.0 on
# 6 and 5, the explicit division on 18 and 7 -- the basic constants are free operands by design)
@pytest.mark.parametrize("reward", BOTH)
def test_a_reduction_by_a_basic_constant_earns_no_more_than_the_division_written_out(reward):
    reduced = "$\\frac{4}{20} = \\frac{2}{10}$, so $2 \\cdot 4 = 8$.\n#### 8"
    explicit = "$4 / 2 = 2$ and $20 / 2 = 10$, so $2 \\cdot 4 = 8$.\n#### 8"
    assert _one(reward, reduced, FISH, "8") <= _one(reward, explicit, FISH, "8")


# resisted on this problem: the reduction adds nothing to the line without it ('So $2 \\cdot 4 = 8$.', a basic
# constant times a problem number, paid rafs 0.918 / fa 1.0 on its own). Not in general: over 1,000 GSM8K train the
# reduction is paid above the bare line on 14/151 (see the xfail below).
@pytest.mark.parametrize("reward", BOTH)
def test_a_reduction_by_a_basic_constant_adds_nothing_to_the_bare_line(reward):
    reduced = "$\\frac{4}{20} = \\frac{2}{10}$, so $2 \\cdot 4 = 8$.\n#### 8"
    assert _one(reward, reduced, FISH, "8") <= _one(reward, "So $2 \\cdot 4 = 8$.\n#### 8", FISH, "8")


# gsm8k train 5210 (answer 40 = 80 * 3 - 200, no problem number)
COFFEE = ("There is 80 mg of caffeine in a cup of coffee. Lisa does not want to drink more than 200 mg of caffeine "
          "per day. If she drinks three cups of coffee, how many milligrams of coffee did Lisa drink over her goal?")
COFFEE_GOLD = ("Lisa drinks 80*3=240 mg of caffeine in 3 cups of coffee.\nShe wanted to have 200, so she is 40 mg "
               "over her goal because 240-200 = 40mg.\n#### 40")


# ----------------------------------------------------------------------------------------- 4. algebra budgets
SOLVE = "Solve for $x$: $3x + 7 = 25$. What is $x$?"
SOLVE_GOLD = "We have $3x + 7 = 25$.\nSo $3x = 18$.\nSo $x = 6$.\nThe answer is $\\boxed{6}$."
SOLVE_FALSE = "We have $3x + 7 = 25$.\nSo $3x = 17$.\nSo $x = 6$.\nThe answer is $\\boxed{6}$."


def _padded(text: str, k: int) -> str:
    """``k`` heavy ungrounded equations in x after the grounded source: each is compared with the sources, so 10
    spend the trace's ALGEBRA_WORK and 60 its MAX_ALGEBRA_CALLS before the steps that follow."""
    pad = "".join("Suppose $" + " + ".join(f"{j + 2}x^{j % 4 + 1}" for j in range(30)) + f" = {3000 + i}$.\n"
                  for i in range(k))
    head = "We have $3x + 7 = 25$.\n"
    return head + pad + text[len(head):]


# resisted: past the budget an equation with unknowns derives nothing, so padding never lifts a false algebraic step
# (it zeroes the gold too: rafs 0.849 -> 0.0 with 60 such lines), and a worst-case trace costs ~0.1 s of CPU
@pytest.mark.parametrize("reward", BOTH)
@pytest.mark.parametrize("k", [10, 60])
def test_padding_that_spends_the_algebra_budget_earns_nothing(reward, k):
    false_plain = _one(reward, SOLVE_FALSE, SOLVE, "6")
    gold = _one(reward, SOLVE_GOLD, SOLVE, "6")
    assert false_plain < gold
    start = time.process_time()
    assert _one(reward, _padded(SOLVE_FALSE, k), SOLVE, "6") <= false_plain
    assert _one(reward, _padded(SOLVE_GOLD, k), SOLVE, "6") <= gold
    assert time.process_time() - start < 1.5


# fixed (read_connectives reads an operand or a result written with LaTeX's escaped dollar, '18\cdot\$1, which is
# \$19': the false 18 = 19 was hidden, rafs 0.0 -> 0.989, fa 0.5 -> 1.0 on MATH-500 prealgebra/1840)
@pytest.mark.parametrize('reward', BOTH)
def test_a_slip_with_an_escaped_dollar_earns_no_more_than_the_visible_slip(reward):
    row = math500_row('test/prealgebra/1840.json')
    gold = faithful_completion(row['solution'])
    slip = gold.replace('=18\\cdot\\$1=\\$18', '=18\\cdot\\$1=\\$19', 1)
    hidden = gold.replace('=18\\cdot\\$1=\\$18', '=18\\cdot\\$1, which is \\$19', 1)
    assert slip != gold and hidden != gold
    assert _one(reward, hidden, row['problem'], row['answer']) <= _one(reward, slip, row['problem'], row['answer'])
