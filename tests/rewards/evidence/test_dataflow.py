"""Dataflow graph: produced/used quantities, grounding, dependencies, counterfactual propagation."""

from fractions import Fraction

from rewards.evidence import build_dataflow, counterfactuals
from rewards.parsing.trace import parse_trace

PROBLEM = "Janet's ducks lay 16 eggs per day. She eats 3 for breakfast and bakes with 4. She sells the rest at $2 each."
FAITHFUL = "She sells 16 - 3 - 4 = 9 eggs.\nShe makes 9 * 2 = $18.\n#### 18"


def test_produced_used_and_dependencies():
    flow = build_dataflow(parse_trace(PROBLEM, FAITHFUL))
    assert flow.steps[0].produced == [Fraction(9)]
    assert set(flow.steps[1].used) == {Fraction(9), Fraction(2)}
    assert flow.steps[1].depends_on == {0}
    assert flow.answer_value == 18 and flow.answer_step == 1 and flow.last_derived == 18
    assert flow.coverage == 1.0


def test_invented_quantity_is_ungrounded():
    lucky = "She sells 16 - 3 - 4 = 9 eggs.\nShe makes 9 * 2 = 18, minus a $5 fee is 18 - 5 = 13.\n#### 13"
    flow = build_dataflow(parse_trace(PROBLEM, lucky))
    assert flow.steps[1].ungrounded == [Fraction(5)]  # the paper's invented "$5 fee"
    assert flow.steps[0].ungrounded == []
    odd = "She sells 16 - 3 - 4 = 9 eggs.\nShe pays a 37 fee: 9 * 2 + 37 = 55.\n#### 55"
    flow = build_dataflow(parse_trace(PROBLEM, odd))
    assert Fraction(37) in flow.steps[1].ungrounded


def test_counterfactual_propagates_through_the_chain():
    flow = build_dataflow(parse_trace(PROBLEM, FAITHFUL))
    (edit,) = counterfactuals(parse_trace(PROBLEM, FAITHFUL), flow)
    assert edit.step == 0 and edit.old == 9 and edit.new == 10
    assert edit.expected == 20 and edit.moves  # 10 * 2 = 20: the answer follows the edit


def test_answer_that_ignores_the_chain_does_not_move():
    # the chain computes 9 then 18 but the answer is stated out of nowhere
    trace = parse_trace(PROBLEM, "She sells 16 - 3 - 4 = 9 eggs.\n9 * 2 = 18.\n#### 25")
    flow = build_dataflow(trace)
    assert flow.answer_step is None
    assert counterfactuals(trace, flow) == [] or not any(i.moves for i in counterfactuals(trace, flow))


def test_no_answer_leakage_in_edits():
    trace = parse_trace("Add 4 and 5.", "4 + 5 = 9\n#### 9")
    flow = build_dataflow(trace)
    assert all(i.new != flow.answer_value and i.old != flow.answer_value for i in counterfactuals(trace, flow))


def _suspect(problem, steps):
    from rewards.scoring.score import score_trace

    return score_trace(problem, steps=steps).suspect_step


def test_an_equation_the_author_calls_false_is_no_error():
    steps = ["Try $x = 1$: we have $1 = \\sqrt{11-2} + 4$, which is not true, so $x = 1$ is extraneous.",
             "So $x = 5$ and the answer is $\\boxed{5}$."]
    assert _suspect("Solve $x = \\sqrt{11 - 2x} + 4$.", steps) is None
    steps[0] = "Try $x = 1$: we have $1 = \\sqrt{11-2} + 4$, so it works."
    assert _suspect("Solve $x = \\sqrt{11 - 2x} + 4$.", steps) == 0


def test_two_bare_numbers_are_a_stated_contradiction_not_a_calculation():
    steps = ["If $b=2$, then $4a=4(a-3)\\qquad\\Rightarrow 0=-12$.", "So $b = 3$ and $\\boxed{3}$."]
    assert _suspect("Find $b$.", steps) is None
    steps[0] = "If $b=2$, then $0 = 3 - 15$."
    assert _suspect("Find $b$.", steps) == 0


def test_a_chain_that_substitutes_the_problems_condition_is_not_refuted():
    steps = ["\\begin{align*}\nx^3 - 2x + 1 &= x(x+1) - 2x + 1\\\\\n&= x^2 - x + 1 = (x+1) - x + 1 = 2\n\\end{align*}",
             "The answer is $\\boxed{2}$."]
    assert _suspect("Given $x^2 - x - 1 = 0$, find $x^3 - 2x + 1$.", steps) is None
    # the same chain with no condition on x in the problem is an identity claim, and a false one
    assert _suspect("Find $x^3 - 2x + 1$ for $x + y = 3$.", steps) == 0


def test_a_congruence_written_with_equals_is_not_a_false_calculation():
    from rewards.checks.equations import step_equations

    for text in ("$4^4 = (4^2)^2 = (-1)^2 = 1 \\pmod{17}$", "$2^3 = 8 = 1$ (mod 7)"):
        assert all(c.ok is not False for _, c in step_equations(text)), text
    assert [c.ok for _, c in step_equations("$17 \\bmod 5 = 3$")] == [False]  # a binary mod is arithmetic


def test_a_derived_value_equal_to_a_unit_factor_changes_only_its_own_literal():
    # 60 minutes derived, then 60/60 = 1 hour: an edit of the problem's 12 moves the 60 in the numerator only
    from rewards.evidence import input_counterfactuals
    problem = ("Julia makes 6 cakes. Each cake takes 12 minutes to mix and 9 more minutes to bake than mix. Then it "
               "takes 6 more minutes to cool than to bake. How many hours for all 6 cakes?")
    gold = ("It takes 12 + 9 = 21 minutes to bake.\nIt takes 21 + 6 = 27 minutes to cool.\n"
            "It takes 12 + 21 + 27 = 60 minutes per cake.\nThat is 60/60 = 1 hour.\nSo 1 x 6 = 6 hours.\n#### 6")
    trace = parse_trace(problem, gold)
    edits = {e.old: e for e in input_counterfactuals(trace, build_dataflow(trace))}
    assert edits[Fraction(12)].expected == Fraction(63, 10) and edits[Fraction(9)].moves


def test_two_problem_quantities_with_one_value_are_edited_apart():
    from rewards.evidence import input_counterfactuals
    problem = "Tea has 5 shirts and 24 pants. 3 shirts are plaid and 5 pants are purple. How many are neither?"
    gold = "5 - 3 = 2 shirts are not plaid.\n24 - 5 = 19 pants are not purple.\n19 + 2 = 21\n#### 21"
    trace = parse_trace(problem, gold)
    edits = {e.old: e for e in input_counterfactuals(trace, build_dataflow(trace))}
    assert edits[Fraction(5)].expected == 22  # the shirts' 5 only: 6 - 3 = 3, 24 - 5 = 19, 19 + 3 = 22
    # a value the problem states once is still edited everywhere: a quantity added and taken away does not move
    copied = parse_trace("Ann has 16 eggs and buys 2 more. How many eggs?", "16 - 16 + 18 = 18\n#### 18")
    assert not any(e.moves for e in input_counterfactuals(copied, build_dataflow(copied)) if e.old == 16)


def test_computations_written_the_way_gold_solutions_write_them_are_derived():
    from rewards.evidence import problem_numbers
    cases = [
        ("He buys 15 packs of 2 pens.", "15x2=30 pens\n#### 30", 30),
        ("40 tickets win, and 0.8 of them pay 5 dollars.", "40*.8=32 are 5 dollar winners\n#### 32", 32),
        ("Caleb has 7 gallons and Cynthia has 8 gallons.", "Caleb’s 7 gallons + Cynthia’s 8 gallons = 15 gallons\n#### 15",
         15),
        ("A 250-page book is read in 10 days.", "She reads 250/10 = 25 pages a day.\n#### 25", 25),
    ]
    for problem, text, value in cases:
        flow = build_dataflow(parse_trace(problem, text))
        assert flow.answer_step is not None and Fraction(value) in flow.steps[0].produced, text
    assert Fraction(7) in problem_numbers("She saves from January to July.")


def test_the_ordinal_second_names_no_unit_of_time():
    from rewards.evidence.lexicon import unit_constants as _unit_constants

    assert Fraction(60) not in _unit_constants("The second car turns left; the third goes straight.")
    assert Fraction(60) in _unit_constants("It falls 5 meters per second.")
    assert Fraction(60) in _unit_constants("Each lap takes 30 seconds.")
