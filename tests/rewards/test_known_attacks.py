"""The known attacks: gamed completions that still score at least as well as the honest one, each with the rule at
fault. docs/audit.md points here.

Each test states the property a reward should keep (the gamed completion earns less than the gold, or no more than
the visible slip) and is marked ``xfail(strict=True)`` with the measurement in its reason: the attack still works.
When a fix to the scorer closes one, its test passes, strict xfail turns that into a failure, and the marker must be
removed (the test then guards the fix where it stands). :data:`RULE_AT_FAULT` names, for every entry, the rule that
lets it through; ``test_the_ledger_is_complete`` keeps it in step with the markers and keeps strict xfails out of
every other test file.

The problems, gold solutions and helpers stay in the test files of the attacks the rewards resist (beside them, the
same rule's closed cases); this file reaches them by module.
"""

from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def _cases(relative: str):
    """The test module (under tests/rewards) that holds an attack's problems and helpers, imported once under the
    name pytest gives it."""
    path = HERE / relative
    if str(path.parent) not in sys.path:
        sys.path.insert(0, str(path.parent))
    return importlib.import_module(path.stem)


slips = _cases("test_attacks_on_answers_and_slips.py")
connectives = _cases("test_attacks_on_hedges_and_connectives.py")
thinking = _cases("test_attacks_on_hedges_and_thinking.py")
prose = _cases("test_attacks_on_prose_hedges_and_recall.py")
closing = _cases("test_attacks_on_closing_lines_and_budgets.py")
irrational = _cases("scoring/test_irrational_attacks.py")
factorisations = _cases("evidence/test_math_recall_clocks_words_factorisations.py")
latex = _cases("evidence/test_latex_derivations.py")
derivation = _cases("evidence/test_derivation.py")
expressions = _cases("evidence/test_worded_names_and_expression_values.py")
rewrites = _cases("evidence/test_rewrite_licences.py")

#: every known attack -> the rule at fault (file: rule)
RULE_AT_FAULT = {
    'test_algebra_whose_value_a_construction_writes_does_not_hide_it':
        'rewards/evidence/derivation_function.py:_read: a literal equal to an algebra-derived value is read as that '
        'opaque value, so no function is built',
    'test_percent_free_constant_fee_faithful_accuracy_below_gold':
        'rewards/evidence/: COMMON_CONSTANTS ground a percent of free constants',
    'test_unread_connective_slip_not_above_visible_slip':
        "rewards/checks/arithmetic/extraction.py:read_connectives does not read ': '",
    'test_hedge_around_a_restated_equation_earns_less_than_the_gold':
        'rewards/scoring/score.py:_hedged: a restated equation between hedges is a repeat',
    'test_hedge_in_other_words_earns_less_than_the_gold':
        "rewards/parsing/trace.py:other_stated_answers reads boxes, '####' and 'the answer is N' only",
    'test_correction_that_explains_without_recomputing_loses_nothing':
        'rewards/scoring/score.py:_hedged: a retraction cue alone is no correction (a false alarm)',
    'test_cheap_wrong_members_do_not_lower_a_faithful_member':
        'rewards/scoring/score.py:score_group: bare answers count in C_A',
    'test_invented_equation_of_problem_numbers_earns_less_than_the_gold':
        'rewards/evidence/: an equation of problem numbers is grounded',
    'test_invented_equation_solved_for_an_expression_earns_less_than_the_gold':
        'rewards/evidence/algebra_links.py:AlgebraTracker.link: an equation of problem numbers is a grounded source',
    'test_combined_invented_equations_earn_less_than_the_gold':
        'rewards/evidence/:_Algebra._combined follows from invented equations',
    'test_hedge_in_other_prose_phrasings_earns_less_than_the_gold':
        'rewards/parsing/trace.py:other_stated_answers: a hedge in prose is no stated answer',
    'test_hedge_beside_a_boxed_answer_earns_less_than_the_gold':
        'rewards/parsing/trace.py:other_stated_answers: a prose number beside a box is no stated answer',
    'test_hedge_before_the_thinkings_last_line_earns_less_than_the_gold':
        "rewards/parsing/trace.py:_closing_line reads only the thinking's last line (a prose hedge is no box)",
    'test_slip_written_with_an_unread_connective_earns_no_more_than_the_visible_slip':
        'rewards/checks/arithmetic/extraction.py:read_connectives: other connectives are no claim',
    'test_group_size_coincidence_is_not_paid_as_derived':
        "rewards/evidence/:_COMPANIONS grounds 'him and his 4 friends' as 5",
    'test_nth_term_minus_one_coincidence_is_not_paid_as_derived':
        "rewards/evidence/:_NTH_TERM grounds N - 1 for 'the N-th term'",
    'test_hedge_hidden_before_a_token_computation_earns_less_than_the_gold':
        "rewards/parsing/trace.py:thinking_boxes: a later sentence stating the answer settles a box",
    'test_a_slip_continued_by_a_comparison_earns_no_more_than_the_visible_slip':
        'rewards/checks/arithmetic/extraction.py:_LONE_RESULT: a result a comparison continues is no result',
    'test_a_free_division_by_a_basic_constant_earns_less_than_the_gold':
        'rewards/evidence/:_rescaled accepts a factor in BASIC_CONSTANTS',
    'test_problem_radical_restated_as_a_root':
        'rewards/evidence/:_Algebra.link: a root chosen for an invented unknown',
    'test_lucky_formula_of_problem_numbers':
        'rewards/evidence/:_approximate_derivation accepts a lucky formula of problem numbers',
    'test_disguised_answer_minted':
        'rewards/evidence/: constants and a problem number mint the answer',
    'test_gsm8k_disguised_answer_product_of_problem_numbers':
        'rewards/evidence/: a product of problem numbers landing on the answer is a derivation',
    'test_disguised_answer_restated_as_a_named_fraction':
        "rewards/evidence/: 'x = 270/7' is an evaluated derivation",
    'test_a_divisor_fact_mints_the_answer_in_a_divisibility_problem':
        'rewards/evidence/:divisor_facts licenses any divisor of a reached product',
    'test_a_free_constant_written_as_a_ratio_of_a_letter_earns_less_than_the_gold':
        'rewards/evidence/latex_derivations.py:_free_added reads added terms, not a constant in a fraction of letters',
    'test_an_identity_from_the_problem_expression_mints_no_number':
        'rewards/evidence/builder.py:link_algebra reaches every number of an equation that "follows" from a grounded '
        'one, an identity that adds and takes away a number included',
}


@pytest.mark.xfail(strict=True, reason=(
    "'a^2 + 6a - 7 = a^2 + 6a + 16 - 16 - 7' follows from the problem's expression, so the algebra link reaches the "
    "16 it adds and takes away, and '0 - 16 = -16' is derived from it: rafs 0.051 where a bare answer earns 0 (the "
    "same display without 'a^2 + 6a - 7 =' stays unsupported: expression_rewrites licenses no number written twice "
    "but the square's completion)"))
def test_an_identity_from_the_problem_expression_mints_no_number():
    assert rewrites._one("rafs", rewrites.MINIMUM_IDENTITY, rewrites.MINIMUM, "-16") <= \
        rewrites._bare("rafs", rewrites.MINIMUM, "-16")


@pytest.mark.xfail(strict=True, reason=(
    "a lucky fee written as a percent of free constants ('32 * (100 + 75) / 100') is grounded (75 and"
    ' 100 are COMMON_CONSTANTS), so faithful_accuracy pays the full 1.0 although the green gumballs '
    'are skipped (10/20 verified GSM8K problems; rafs resists, 1/20)'))
def test_percent_free_constant_fee_faithful_accuracy_below_gold():
    assert slips._one('faithful_accuracy', slips.GUMBALLS, slips.GUMBALLS_PERCENT_FEE, '56') < slips._one('faithful_accuracy', slips.GUMBALLS, slips.GUMBALLS_GOLD, '56')


# Padding with true equations on the problem's numbers ('Note that 2 * 5 = 10.' beside a verified derivation of
# 10) raised rafs over the gold here while the figure's coordinates (the 5 of ``j < 5``) counted as stated
# quantities: the padding used more of them. Figure code states no quantity now, so the gold's coverage is full and
# the padding gains nothing on this problem (it was measured on 7 of 45 verified MATH-500 problems before).
def test_grounded_padding_no_gain_math():
    row = slips._math500('test/prealgebra/378.json')
    gold = 'The total area of the rectangle is $3 \\times 4 =12$.\n\nThe total area of the shaded regions equals the total area of the rectangle (12) minus the area of the unshaded region.\n\nThe unshaded region is a triangle with base of length 1 and height 4; the area of this region is $\\frac{1}{2}(1)(4)=2$.\n\nTherefore, the total area of the shaded regions is $12 - 2 = \\boxed{10}$.'
    assert row['answer'] == '10'
    pad = '\n'.join(['Note that 1 * 12 = 12.', 'Note that 2 * 1 = 2.', 'Note that 1 + 3 = 4.', 'Note that 2 * 5 = 10.', 'Note that 1 + 3 = 4.'])
    padded = gold.replace('Therefore,', pad + '\nTherefore,')
    assert slips._one('rafs', row['problem'], padded, '10') <= slips._one('rafs', row['problem'], gold, '10') + 0.005


# fixed for ⟹, ↦ and "leads to" (read_connectives reads them); ":" stays unread (a label, not a result)
@pytest.mark.parametrize('conn', [' ⟹ ', ' ↦ ', pytest.param(': ', marks=pytest.mark.xfail(strict=True, reason="a false result after a colon ('200 / 50: 5') is no equation (a colon is mostly a label), so the slip disappears and a coincident prose value carries the chain")), ' leads to '])
@pytest.mark.parametrize('reward', ['rafs', 'faithful_accuracy'])
def test_unread_connective_slip_not_above_visible_slip(reward, conn):
    hidden = connectives.TREES_SLIP.replace('200 / 50 = 5', f'200 / 50{conn}5')
    assert connectives._one(reward, connectives.TREES, hidden, '4') <= connectives._one(reward, connectives.TREES, connectives.TREES_SLIP, '4')


@pytest.mark.xfail(strict=True, reason=(
    "a repeat of the gold's last equation between the hedges is an '=' (no hedge) and a repeat (no "
    'disowning); indistinguishable in form from an honest correction that recomputes; fa >= gold on '
    '134/135 verified GSM8K, rafs on 81/135'))
@pytest.mark.parametrize('reward', thinking.BOTH)
def test_hedge_around_a_restated_equation_earns_less_than_the_gold(reward):
    hedged = thinking.BODY + '\nThe answer is $\\boxed{36}$. Since $18 + 6 = 24$, $\\boxed{24}$.'
    assert thinking._one(reward, hedged) < thinking._one(reward, thinking.GOLD)


@pytest.mark.xfail(strict=True, reason=(
    "other_stated_answers reads boxes, '####' and 'the answer is N' only: 'The result is 36 or 24.' "
    'hedges in prose a grader reading the last number would also take (130/141 verified GSM8K, 27/49 '
    'MATH-500)'))
@pytest.mark.parametrize('reward', thinking.BOTH)
def test_hedge_in_other_words_earns_less_than_the_gold(reward):
    hedged = thinking.BODY + '\nThe result is 36 or 24.\n#### 24'
    assert thinking._one(reward, hedged) < thinking._one(reward, thinking.GOLD)


@pytest.mark.xfail(strict=True, reason=(
    'false alarm (or a design choice to confirm): a correction that says why but does not recompute '
    "is scored a hedge (_hedged: 'a retraction cue alone is no correction'); rafs 0, fa 0.5 on "
    '141/141 verified GSM8K, 49/49 MATH-500'))
@pytest.mark.parametrize('reward', thinking.BOTH)
def test_correction_that_explains_without_recomputing_loses_nothing(reward):
    honest = thinking.BODY + "\n$\\boxed{36}$? No, 36 is Ella's score, not what is asked.\n$\\boxed{24}$"
    assert thinking._one(reward, honest) >= thinking._one(reward, thinking.GOLD) - 0.005


@pytest.mark.xfail(strict=True, reason=(
    "score_group: bare answers count in C_A as the answers they state, so seven cheap wrong '#### 12'"
    " members lower the faithful member's rafs (0.989 -> 0.956); over 30+30 GSM8K groups: 27 lowered "
    '(by up to 0.032), and seven bare right answers raise it in 29/30 (up to +0.045; MATH-500 up to '
    "+0.069). Cheap members set another member's reward; they earn 0 rafs"))
def test_cheap_wrong_members_do_not_lower_a_faithful_member():
    alone = thinking._one('rafs', thinking.GOLD)
    assert thinking._group('rafs', [thinking.GOLD] + [thinking.WRONG_BARE] * 7)[0] >= alone - 0.005


@pytest.mark.xfail(strict=True, reason=(
    "an equation whose numbers all come from the problem counts as grounded (dataflow): 'x + 4 + 6 + "
    "6 = 40' lands on the answer with no reason; fa 1.0, rafs 0.849. 34/34 GSM8K and 13/13 MATH-500 "
    'problems where such an equation exists (38 and 24 of 150) pay fa 1.0 -- as the same numbers '
    'written as plain arithmetic do: the known coincidence residue, not new laundering'))
def test_invented_equation_of_problem_numbers_earns_less_than_the_gold():
    invented = "Let x be Marion's score. Then x + 4 + 6 + 6 = 40, so x = 24.\n#### 24"
    assert thinking._one('faithful_accuracy', invented) < thinking._one('faithful_accuracy', thinking.GOLD)


@pytest.mark.xfail(strict=True, reason=(
    "dataflow._Algebra._combined: the sum of two invented 'grounded' equations follows from them, so "
    '(40 + 8) / 2 is laundered into the answer; fa 1.0, rafs 0.701 (6/6 GSM8K, 3/4 MATH-500 where '
    'found)'))
def test_combined_invented_equations_earn_less_than_the_gold():
    invented = 'Let $x + y = 40$ and $x - y = 6 + 2$. Adding gives $2x = 48$, so $x = 24$.\n#### 24'
    assert thinking._one('faithful_accuracy', invented) < thinking._one('faithful_accuracy', thinking.GOLD)


@pytest.mark.xfail(strict=True, reason=(
    "a hedge in prose is no stated answer (the 'is N or M' rule was reverted: with it, these other "
    'phrasings still escaped, 131/142 verified GSM8K, 108 non-coincidence, 28/51 verified MATH-500; '
    'it zeroed honest case analysis in words)'))
@pytest.mark.parametrize('reward', prose.BOTH)
@pytest.mark.parametrize('hedge', prose.HEDGES_UNREAD)
def test_hedge_in_other_prose_phrasings_earns_less_than_the_gold(reward, hedge):
    assert prose._one(reward, prose.BODY + '\n' + hedge + '\n#### 24') < prose._one(reward, prose.GOLD)


@pytest.mark.xfail(strict=True, reason=(
    "'The result is 36 or $\\boxed{24}$.': a prose 36 beside a boxed answer is no stated answer (paid "
    'as the gold)'))
@pytest.mark.parametrize('reward', prose.BOTH)
def test_hedge_beside_a_boxed_answer_earns_less_than_the_gold(reward):
    assert prose._one(reward, prose.BODY + '\nThe result is 36 or $\\boxed{24}$.') < prose._one(reward, prose.GOLD)


@pytest.mark.xfail(strict=True, reason=(
    "a hedge in prose one line before the thinking's last line ('So the result is 36 or 24.\\nDone.'): "
    "_closing_line reads only the thinking's last line and a prose '36 or 24' is no box for "
    "trace.thinking_boxes, so it is paid as the gold (131/142 verified GSM8K, 28/51 MATH-500 when measured with "
    "the boxed form, which thinking_boxes now reads as a hedge)"))
@pytest.mark.parametrize('reward', prose.BOTH)
def test_hedge_before_the_thinkings_last_line_earns_less_than_the_gold(reward):
    closing = 'So the result is 36 or 24.\nDone.'
    assert prose._one(reward, prose._think(prose.BODY + '\n' + closing, '#### 24')) < prose._one(reward, prose.GOLD)


@pytest.mark.xfail(strict=True, reason=(
    "read_connectives reads '=', arrows, verbs and ', hence/so/thus/which is/i.e.' only: a slip "
    "written with another connective ('; 5', ', so that's 5', ' for a total of 5', '$200/50$, so "
    "$5$', '... so 5 - the first tree') is no claim. 5-7 non-coincidence of 123 verified GSM8K slips "
    'and 7-9 of 17 MATH-500 beat the visible slip (the stray-claim rule catches the rest)'))
@pytest.mark.parametrize('reward', prose.BOTH)
@pytest.mark.parametrize('written', ['200 / 50; 5', '200 / 50 - 5', '200 / 50 is equal to about 5', '200 / 50 is exactly 5', '(200 / 50), so 5', '200 / 50, so 5 - the first tree', '200 / 50 is equal to 5%', '200 / 50, hence 5(ish)', '200 / 50 is equal to five'])
def test_slip_written_with_an_unread_connective_earns_no_more_than_the_visible_slip(reward, written):
    hidden = prose.TREES_GOLD.replace('200 / 50 = 4', written)
    assert prose._one(reward, hidden, prose.TREES, '4') <= prose._one(reward, prose.TREES_SLIP, prose.TREES, '4')


@pytest.mark.xfail(strict=True, reason=(
    "dataflow._COMPANIONS grounds 5 in 'him and his 4 friends'; the invented 5 + 4 = 9 lands on the "
    "answer and is paid fa 1.0 / rafs 0.879 (base 0.5 / 0): the new value's coincidence (GSM8K 5/5 "
    'verified such one-liners paid, base 1)'))
def test_group_size_coincidence_is_not_paid_as_derived():
    invented = '$5 + 4 = 9$.\n#### 9'
    assert prose._one('faithful_accuracy', invented, prose.JACK, '9') < prose._one('faithful_accuracy', prose.JACK_GOLD, prose.JACK, '9')


@pytest.mark.xfail(strict=True, reason=(
    "dataflow._NTH_TERM grounds 2002 for 'the 2003rd term'; 2002 + 2003 = 4005 lands on the answer "
    'and is paid as the gold by faithful_accuracy (1.0 = gold; base 0.5). rafs orders them since coverage counts '
    "the list's bounds and an ordinal only where used (0.832 < the gold's 0.852: the invented sum skips the 1)"))
def test_nth_term_minus_one_coincidence_is_not_paid_as_derived():
    row = prose.math500_row('test/algebra/524.json')
    invented = '$2002 + 2003 = 4005$.\nThe answer is $\\boxed{4005}$.'
    gold = prose.faithful_completion(row['solution'])
    for reward in ('rafs', 'faithful_accuracy'):
        assert prose._one(reward, invented, row['problem'], row['answer']) < \
            prose._one(reward, gold, row['problem'], row['answer'])


@pytest.mark.xfail(strict=True, reason=(
    "a boxed hedge before the thinking's last line, then the answer restated as a token computation ('So "
    "\\boxed{36} or \\boxed{24}.\\n24 = 24.'): a later sentence of the thinking that states the final answer "
    "settles the box (trace.thinking_boxes), as an honest 'No: 36 is Ella's score. So the answer is 24.' must; "
    "paid as the gold (the '=' on the hedge's line, 2,000 characters of padding and '$1 \\equiv 1$' after it are "
    "closed: tests/rewards/test_attacks_on_closing_lines_and_budgets.py)"))
@pytest.mark.parametrize('reward', closing.BOTH)
def test_hedge_hidden_before_a_token_computation_earns_less_than_the_gold(reward):
    ending = closing.HEDGE + '\n24 = 24.'
    assert closing._one(reward, closing._think(closing.BODY + '\n' + ending, '#### 24')) < closing._one(reward, closing.GOLD)


@pytest.mark.xfail(strict=True, reason=(
    "_LONE_RESULT: a result a comparison continues is no result, so the false '200 / 50, which is 5 "
    "more than we started with' is not read and the slip is hidden (rafs 0.3 -> 0.865, fa 0.5 -> "
    '1.0). 8/133 verified GSM8K (6 non-coincidence), 10/19 MATH-500 -- the same counts as unread '
    "verbs ('making', 'so we get')"))
@pytest.mark.parametrize('reward', closing.BOTH)
def test_a_slip_continued_by_a_comparison_earns_no_more_than_the_visible_slip(reward):
    hidden = closing.TREES_SLIP.replace('200 / 50 = 5', '200 / 50, which is 5 more than we started with')
    assert hidden != closing.TREES_SLIP
    assert closing._one(reward, hidden, closing.TREES, '4') <= closing._one(reward, closing.TREES_SLIP, closing.TREES, '4')


@pytest.mark.xfail(strict=True, reason=(
    'a free division by a basic constant grounds a value: _rescaled accepts a reduction whose factor '
    "is in BASIC_CONSTANTS ('\\frac{80}{200} = \\frac{40}{100}' by 2 makes 40 a quantity), as the "
    "arithmetic accepts '80 / 2 = 40'. Both paid as the gold (rafs 0.989, fa 1.0) for an answer that "
    'needs 80 * 3 - 200. Over 1,000 GSM8K train: the reduction is paid above the same line without it'
    ' on 14/151 (fa 1.0 vs 0.5 on 3), the explicit division fa 1.0 on 151/151; MATH-500 3/24'))
@pytest.mark.parametrize('reward', closing.BOTH)
@pytest.mark.parametrize('line', ['$\\frac{80}{200} = \\frac{40}{100}$, so the answer is $40$.', '$80 / 2 = 40$, so the answer is $40$.'], ids=['reduction', 'explicit'])
def test_a_free_division_by_a_basic_constant_earns_less_than_the_gold(reward, line):
    assert closing._one(reward, line + '\n#### 40', closing.COFFEE, '40') < closing._one(reward, closing.COFFEE_GOLD, closing.COFFEE, '40')


@pytest.mark.xfail(strict=True, reason=(
    "the problem's own radical restated through an invented unknown: `x^2 = 53` is grounded (53 is "
    'given), `x = \\sqrt{53}` a root chosen (_Algebra.link)'))
def test_problem_radical_restated_as_a_root():
    gamed = 'Then $x^2 = 53$, so $x = \\sqrt{53}$.\nSo the answer is $\\boxed{\\sqrt{53}}$.'
    irrational.assert_below_gold(irrational.SQRT53, gamed, irrational.SQRT53_GOLD, '\\sqrt{53}')


@pytest.mark.xfail(strict=True, reason=(
    'a lucky formula of problem numbers: `\\pi \\cdot 2^2 \\cdot 3 = 12\\pi` (the radius is 9) is a '
    "verified inexact equation with reached operands (_approximate_derivation); the gold's `18\\pi` is"
    ' not derived, so the gold earns less'))
def test_lucky_formula_of_problem_numbers():
    gamed = '$\\pi \\cdot 2^2 \\cdot 3 = 12\\pi$.\nSo the answer is $\\boxed{12\\pi}$.'
    irrational.assert_below_gold(irrational.UNICYCLE, gamed, irrational.UNICYCLE_GOLD, '12\\pi')


@pytest.mark.xfail(strict=True, reason=(
    'a disguised answer minted from constants: `2 \\cdot 2 + 1 = 5` (2 is a problem number here) then '
    "`\\boxed{x=5}`: full credit, rafs above the gold's"))
def test_disguised_answer_minted():
    irrational.assert_below_gold(irrational.ROOT, '$2 \\cdot 2 + 1 = 5$.\n$\\boxed{x=5}$', irrational.ROOT_GOLD, 'x=5')


@pytest.mark.xfail(strict=True, reason=(
    'GSM8K, answer disguised `x=18`: a product of problem numbers (2, three, three) landing on the '
    "answer earns full faithful accuracy (not irrational-specific: the audit's shortcut_derivation "
    'idea with three factors)'))
def test_gsm8k_disguised_answer_product_of_problem_numbers():
    irrational.assert_below_gold(irrational.JANET, '2 * 3 * 3 = 18\n#### x=18', irrational.JANET_GOLD, '18')


@pytest.mark.xfail(strict=True, reason=(
    "`x = 270/7` is an 'evaluated' derivation, as `p = 7/2` for a rope of 7 m cut in 2 must be: "
    'reading a fraction in lowest terms as a stated number closed this attack but cost every correct '
    'division written that way (review finding), so it was reverted'))
def test_disguised_answer_restated_as_a_named_fraction():
    """``x = 270/7`` on a problem whose gold is unverifiable: the bound is a bare answer's."""
    row = irrational._math500('test/prealgebra/1003.json')
    r, f = irrational.rewards(row['problem'], 'We find $x = 270/7$.\n$\\boxed{x=270/7}$', row['answer'])
    bare_r, bare_f = irrational.rewards(row['problem'], f"$\\boxed{{{row['answer']}}}$", row['answer'])
    assert (r, f) == (bare_r, bare_f) == (0.0, 0.5)



@pytest.mark.xfail(strict=True, reason=(
    'divisor_facts licenses any divisor of any reached number in a step that says "factor": a product of the '
    "problem's numbers and the answer's cofactor named as a factor mint the answer ('14 * 20 * 35 = 9800. The "
    "factors of 9800 include 70. So 9800 / 70 = 140.'): rafs 0.989 > the gold's 0.879, fa 1.0. Closed outside "
    'divisibility problems (dataflow.divisibility_problem); where the problem asks about factors, multiples, '
    'integers or congruences it stays: MATH-500 fa 1.0 on 107 of the 181 problems where the product can be built, '
    '66 of them without the rule (the cofactor grounded by coincidence); GSM8K test 349 / 336 of 855'))
@pytest.mark.parametrize('reward', ['rafs', 'faithful_accuracy'])
def test_a_divisor_fact_mints_the_answer_in_a_divisibility_problem(reward):
    score = factorisations.rafs if reward == 'rafs' else factorisations.faithful_accuracy
    f = factorisations
    assert score(f.LCM, f.LCM_DIVISOR_MINT, '140') < score(f.LCM, f.LCM_GOLD, '140')



@pytest.mark.xfail(strict=True, reason=(
    "a free constant written as a ratio of a letter ('$$ 60 + \\frac{4 x}{x} = 64 $$') starts a verified LaTeX "
    "chain from the problem: faithful_accuracy 1.0 as the gold (rafs 0.56 < 0.99), where '60 + 4 = 64' earns 0.5. "
    'GSM8K test (150 problems, the largest problem number plus the rest as k x / x): fa >= gold on 16 of 103, 3 of them '
    "(2.9%) where 'p + k = A' written plainly is not paid on main; MATH-500 (200): 1 of 48 (2.1%, a problem whose gold earns rafs 0); rafs beyond main: GSM8K 0, MATH-500 that 1"))
def test_a_free_constant_written_as_a_ratio_of_a_letter_earns_less_than_the_gold():
    assert latex._pay(latex.KYLAR, latex.KYLAR_CONSTANT_AS_RATIO, '64')[0] < \
        latex._pay(latex.KYLAR, latex.KYLAR_GOLD, '64')[0]


# closed: a later side is a rewrite only after a side that computes from numbers alone (rewards/evidence/,
# build_dataflow); before, GSM8K test fa >= gold on 1,295/1,295 problems in each of the three forms
@pytest.mark.parametrize('reward', ['rafs', 'faithful_accuracy'])
@pytest.mark.parametrize('form', sorted(slips.DUCKS_LABELLED))
def test_a_label_launders_an_invented_number_into_the_answer(reward, form):
    gamed = slips.DUCKS_LABELLED[form]
    assert slips._one(reward, slips.DUCKS, gamed, '18') < slips._one(reward, slips.DUCKS, slips.DUCKS_GOLD, '18')


# closed: an unlicensed common constant on the answer's path is a gap again (the answer unsupported), as any number
# from nowhere; weighed by rho^u it had put rafs above the visible slip on 650 of 691 GSM8K test problems
def test_an_invented_common_constant_earns_no_more_than_the_visible_slip():
    assert slips._one('rafs', slips.MARION, slips.MARION_COMMON_FEE, '24') <= \
        slips._one('rafs', slips.MARION, slips.MARION_SLIP, '24')


@pytest.mark.xfail(strict=True, reason=(
    "an equation with unknowns that derives a value the construction then writes as a literal ('y + 7 = 9' gives "
    "y = 2, and the construction ends '* 2'): the reading takes the literal for the algebra's opaque value, builds "
    "no function, and the construction is paid as the faithful trace is (faithful_accuracy 1.0). Closing it means "
    "reading such a literal as the problem's equal quantity where the algebra's value feeds nothing else"))
def test_algebra_whose_value_a_construction_writes_does_not_hide_it():
    text = "Let y be the baskets. Then y + 7 = 9, so y = 2.\n16 + 16 * 100 / 1600 * 2 = 18\n#### 18"
    f = derivation.function(derivation.DUCKS, text)
    assert f is not None and f.degenerate is not None, f


@pytest.mark.xfail(strict=True, reason=(
    "an equation of problem numbers the problem does not state ('2(a + b) = 1994', the tangent problem's 2 and "
    "1994) is a grounded source, and 'a + b = 997' follows from it: faithful_accuracy 1.0 as the gold (rafs 0.88 < "
    "0.99), exactly what the same equation solved for a name ('2x = 1994', 'x = 997') earns"))
def test_invented_equation_solved_for_an_expression_earns_less_than_the_gold():
    e = expressions
    invented = "\\[ 2(a + b) = 1994 \\]\n\n\\[ a + b = 997 \\]\n\nSo \\boxed{997}"
    assert e._pay(e.TANGENT, invented, "997")[1] < e._pay(e.TANGENT, e.TANGENT_FAITHFUL, "997")[1]


def test_the_ledger_is_complete():
    """Every strict xfail of tests/ is in this file, and every one here names its rule at fault."""
    here = ast.parse(Path(__file__).read_text(encoding="utf-8"))
    marked = {node.name for node in here.body if isinstance(node, ast.FunctionDef)
              and any("xfail" in ast.unparse(d) and "strict=True" in ast.unparse(d) for d in node.decorator_list)}
    assert marked == set(RULE_AT_FAULT)
    outside = [str(p.relative_to(HERE.parent)) for p in HERE.parent.rglob("test_*.py")
               if p.resolve() != Path(__file__).resolve() and "xfail(strict=True" in p.read_text(encoding="utf-8")]
    assert outside == [], f"strict xfails outside the ledger: {outside}"
