"""Algebra in the dataflow: equations with unknowns that follow from a grounded equation carry the chain to the
answer, a solved value put into an expression derives its value, and counterfactual edits of the problem's numbers
re-solve the equation the chain started from — while a slip, a restatement or an ungrounded start derives nothing."""

from fractions import Fraction

from rewards import RAFSConfig, faithful_accuracy_reward, rafs_reward, score_trace
from rewards.parsing.trace import parse_trace
from rewards.evidence import build_dataflow, input_counterfactuals

REWARD = RAFSConfig.coerce(None, use="reward")

DOGS = ("Denali walks $16$ dogs and Nate walks $12$ dogs. The ratio of Denali's pay to Nate's pay would be the same if "
        "Denali walked $4x$ more dogs and Nate stayed at $12$ dogs or if $x$ of Nate's dogs were reassigned to "
        "Denali. Find $x$ if $x\\neq0$.")
DOGS_GOLD = ("We have \\[\\frac{16+4x}{12}=\\frac{16+x}{12-x}.\\]Clearing denominators,\n"
             "$(16+4x)(12-x) = (16+x)(12)$, so $192-16x+48x-4x^2 = 192+12x$,\n"
             "$32x-4x^2 = 12x$, so $0 = 4x^2-20x$ and $0 = 4x(x-5)$.\n"
             "Because $x$ cannot be $0$, $x=\\boxed{5}$.")


def _fa(problem, *completions, gold):
    return faithful_accuracy_reward([problem] * len(completions), list(completions), answer=[gold] * len(completions))


def test_a_root_chosen_from_a_grounded_equation_derives_the_answer():
    trace = parse_trace(DOGS, DOGS_GOLD)
    flow = build_dataflow(trace)
    assert flow.answer_value == 5 and flow.answer_step is not None
    kinds = [link.kind for _, link in sorted(flow.links.items())]
    assert kinds[0] == "source" and kinds[-1] == "followed"
    # editing the problem's 16 re-solves the equation the chain started from: the answer moves
    edits = {e.old: e for e in input_counterfactuals(trace, flow)}
    assert edits[Fraction(16)].expected == Fraction(19, 4)
    assert all(e.moves for e in edits.values())
    assert _fa(DOGS, DOGS_GOLD, gold="5") == [1.0]
    assert rafs_reward([DOGS], [DOGS_GOLD], answer=["5"])[0] > 0.8


def test_an_algebra_slip_derives_nothing():
    slip = DOGS_GOLD.replace("$0 = 4x(x-5)$", "$0 = 4x(x-6)$").replace("x=\\boxed{5}", "x=\\boxed{6}")
    result = score_trace(DOGS, slip, gold="5", config=REWARD)
    assert result.supported is False
    flow = build_dataflow(parse_trace(DOGS, slip))
    assert Fraction(6) not in {link.value for link in flow.links.values()}  # the slip's root is never derived


def test_a_restatement_or_an_ungrounded_start_derives_nothing():
    assert _fa(DOGS, "$x = 5$\n$x = 5$, so $x=\\boxed{5}$.", gold="5") == [0.5]
    # an equation whose numbers come from nowhere is no source, whatever follows from it
    invented = "Suppose $7x - 35 = 0$. Then $7x = 35$ and $x=\\boxed{5}$."
    assert _fa(DOGS, invented, gold="5") == [0.5]


def test_a_solved_value_put_into_an_expression_derives_its_value():
    problem = "Solve $2x + 3 = 11$ for $x$, then find $3x + 1$."
    gold = "From $2x + 3 = 11$ we get $2x = 8$, so $x = 4$.\nThen $3x + 1 = 13$.\n#### 13"
    trace = parse_trace(problem, gold)
    flow = build_dataflow(trace)
    assert any(link.kind == "substituted" and link.value == 13 for link in flow.links.values())
    edits = {e.old: e.expected for e in input_counterfactuals(trace, flow)}
    assert edits[Fraction(11)] == Fraction(29, 2)  # 2x + 3 = 12 -> x = 9/2 -> 3x + 1 = 29/2
    assert _fa(problem, gold, "$3x + 1 = 13$\n#### 13", gold="13") == [1.0, 0.5]


def test_the_algebra_budget_bounds_a_long_trace():
    # two hundred unrelated equations with unknowns: bounded comparisons, no error, nothing derived
    text = "\n".join(f"$x^2 + {k}x = {k + 1}y$" for k in range(200)) + "\n#### 5"
    flow = build_dataflow(parse_trace(DOGS, text))
    assert flow.answer_step is None


def test_counterfactuals_through_a_long_algebra_chain_stay_bounded():
    import time

    # one grounded quadratic, then eighty rewrites that each follow from it, each stating the root: every input
    # edit re-solves the chain, under one time budget per trace
    problem = "Find the positive x with x^2 + 10x = 96."
    chain = "\n".join(["$x^2 + 10x = 96$", *["$x^2 + 10x - 96 = 0$, so $x = 6$" for _ in range(80)]])
    trace = parse_trace(problem, chain + "\n#### 6")
    start = time.process_time()
    flow = build_dataflow(trace)
    edits = input_counterfactuals(trace, flow)
    assert time.process_time() - start < 5.0
    assert flow.answer_step is not None and edits
    # the edited quadratics have irrational roots: the root next to 6 is carried on, approximately
    moved = {e.old: e.expected for e in edits}
    assert abs(float(moved[96]) - (-5 + 122 ** 0.5)) < 1e-5  # x^2 + 10x = 97


def test_a_root_chosen_is_derived_even_when_it_is_a_small_number_and_solved_values_add_up():
    # "x = -4" after "0 = (x+4)(x-1)": a root chosen, though -4 is a number any derivation may use
    problem = "What real value of $x$ less than 0 satisfies $x^2+3x-4 = 0$?"
    gold = "We have $0 = x^2+3x-4 = (x+4)(x-1)$.\nThe negative root is $x = -4$.\n#### -4"
    assert _fa(problem, gold, gold="-4") == [1.0]
    # stated values put into an expression: "a = -3", "b = 2", so "a + b = -1"
    problem = "If $2a + 6 = 0$ and $3b = 6$, what is $a + b$?"
    gold = "From $2a + 6 = 0$, $a = -3$.\nFrom $3b = 6$, $b = 2$.\nSo $a + b = -1$.\n#### -1"
    flow = build_dataflow(parse_trace(problem, gold))
    assert any(link.kind == "substituted" and link.value == -1 for link in flow.links.values())
    assert _fa(problem, gold, gold="-1") == [1.0]


def test_a_step_written_again_derives_nothing_new():
    problem = "Ann has 3 boxes of 4 pens and 5 loose pens. How many pens?"
    once = "3 * 4 = 12 pens in boxes.\n12 + 5 = 17 pens.\n#### 17"
    thrice = "3 * 4 = 12 pens in boxes.\n12 + 5 = 17 pens.\n" * 3 + "#### 17"
    a, b = rafs_reward([problem] * 2, [once, thrice], answer=["17", "17"])
    assert b <= a + 0.005
    flow = build_dataflow(parse_trace(problem, thrice))
    assert flow.answer_step == 1 and not flow.steps[3].produced
