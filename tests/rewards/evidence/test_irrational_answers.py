r"""MATH answers that are no plain number but still verifiable in reward mode .

Three buckets: numbers in disguise (``x=5``, ``11,\! 111``, ``15\mbox{ cm}^2``) read as numbers; irrational answers
(``3\sqrt{13}``, ``7\pi``) derived by verified equations with an inexact result (keyed by
:func:`rewards.evidence.approx_key`); LaTeX units on an equation's sides. For each, a gold-style trace is
fully credited and its gamed variants (restated answer, unverified relation, answer beside unrelated arithmetic, a
number from nowhere) are not.
"""

from fractions import Fraction

import pytest

from rewards.checks.answers import approximate_value, numeric_value
from rewards.parsing.trace import parse_trace
from rewards.evidence import approx_key, build_dataflow, input_counterfactuals

from recall_cases import faithful_accuracy


# ------------------------------------------------------------------------------------------ numbers in disguise
@pytest.mark.parametrize("answer, value", [
    ("11,\\! 111,\\! 111,\\! 100", 11111111100), ("864 \\mbox{ inches}^2", 864),
    ("15\\mbox{ cm}^2", 15), ("10,\\!080", 10080), ("\\$32,\\!348", 32348), ("1\\,000", 1000),
])
def test_numbers_in_disguise_read_as_numbers(answer, value):
    assert numeric_value(answer) == value


def test_a_named_answer_is_a_number_for_the_dataflow_not_for_correctness():
    # review finding: "y=5" must not answer "x=5", and "[2,\,500]" is an interval, not 2500
    from rewards.checks.answers import answers_equivalent, named_value

    assert named_value("x=5") == 5 and numeric_value("x=5") is None
    assert not answers_equivalent("y=5", "x=5")
    assert numeric_value("[2,\\,500]") is None and not answers_equivalent("(3,\\,100)", "3100")


@pytest.mark.parametrize("answer", ["y = 2x + 3", "y = -2x", "1, 234", "3, 5, 7", "a=b=3", "x = 2, 3", "(3,4]",
                                    "52_8", "x=\\sqrt{2}"])
def test_what_is_no_number_stays_none(answer):
    assert numeric_value(answer) is None  # a tuple "1, 234" is not 1234


SOLVE = "Solve $3x + 4 = 19$ for $x$."


def test_named_answer_is_verifiable_and_its_restatement_is_not():
    gold = "Subtracting 4 gives $3x = 19 - 4 = 15$, so $x = 15/3 = 5$.\n$\\boxed{x=5}$"
    assert faithful_accuracy(SOLVE, gold, "x=5") == 1.0
    assert faithful_accuracy(SOLVE, "$x = 5$\n$\\boxed{x=5}$", "x=5") < 1.0
    assert faithful_accuracy(SOLVE, "$3 + 4 = 7$\n$\\boxed{x=5}$", "x=5") < 1.0


TRIANGLE = "A triangle has a base of 3 cm and a height of 10 cm. What is its area?"


def test_latex_unit_on_a_side_is_a_computation():
    assert faithful_accuracy(TRIANGLE, r"The area is $\frac{1}{2}\times 3 \times 10 = \boxed{15\mbox{ cm}^2}$.",
                             r"15\mbox{ cm}^2") == 1.0
    restated = r"$15\mbox{ cm}^2 = 15\mbox{ cm}^2$" "\n" r"$\boxed{15\mbox{ cm}^2}$"
    assert faithful_accuracy(TRIANGLE, restated, r"15\mbox{ cm}^2") < 1.0
    invented = r"The area is $3 \times 5 = \boxed{15\mbox{ cm}^2}$."  # 5 is no quantity of the problem
    assert faithful_accuracy(TRIANGLE, invented, r"15\mbox{ cm}^2") < 1.0


# -------------------------------------------------------------------------------------------------- radicals
DISTANCE = "Find the distance between the points $(2, -6)$ and $(-4, 3)$."
DISTANCE_GOLD = (r"We use the distance formula: $\sqrt{(2 - (-4))^2 + ((-6) - 3)^2} = \sqrt{36 + 81} = \sqrt{117}"
                 r" = \boxed{3\sqrt{13}}$.")


def test_approximate_value_reads_irrational_answers_only():
    assert approximate_value("3\\sqrt{13}") == pytest.approx(10.816653826391969)
    assert approximate_value("18+2\\pi") == pytest.approx(24.283185307179586)
    for answer in ("\\frac{3}{4}", "x^2+1", "1 \\pm \\sqrt{19}", "6 - 5i", "(1, \\sqrt{2})", ""):
        assert approximate_value(answer) is None


def test_radical_answer_is_derived_and_moves_with_the_problem():
    trace = parse_trace(DISTANCE, DISTANCE_GOLD)
    flow = build_dataflow(trace)
    assert flow.approximate and flow.answer_step == 0
    assert flow.answer_value == approx_key(approximate_value("3\\sqrt{13}"))
    edits = input_counterfactuals(trace, flow)
    assert any(e.moves for e in edits) and {e.old for e in edits if e.moves} >= {Fraction(4), Fraction(6)}
    assert faithful_accuracy(DISTANCE, DISTANCE_GOLD, "3\\sqrt{13}") == 1.0


def test_plain_number_answers_never_take_the_inexact_path():
    flow = build_dataflow(parse_trace(DISTANCE, r"$\sqrt{(2 - (-4))^2 + ((-6) - 3)^2} = \sqrt{117}$ so $\boxed{11}$"))
    assert not flow.approximate and flow.answer_step is None
    assert all(not step.produced for step in flow.steps)  # the inexact result derives nothing for "11"


@pytest.mark.parametrize("name, completion", [
    ("restated", "$3\\sqrt{13} = 3\\sqrt{13}$\n$\\boxed{3\\sqrt{13}}$"),
    ("named", "The distance is $d = 3\\sqrt{13}$, so the answer is $\\boxed{3\\sqrt{13}}$."),
    ("unverified relation", "We have $d^2 = 117$, so $d = 3\\sqrt{13}$.\n$\\boxed{3\\sqrt{13}}$"),
    ("unrelated arithmetic", "$2 + 4 = 6$ and $6 + 3 = 9$.\n$\\boxed{3\\sqrt{13}}$"),
    ("number from nowhere", "$\\sqrt{100 + 17} = 3\\sqrt{13}$, so the answer is $\\boxed{3\\sqrt{13}}$."),
    ("rewritten answer", "$3\\sqrt{13} = \\sqrt{117}$, so the answer is $\\boxed{3\\sqrt{13}}$."),
    ("rounded", "$\\sqrt{(2 - (-4))^2 + ((-6) - 3)^2} = \\sqrt{117} \\approx 10.8$, so $\\boxed{3\\sqrt{13}}$."),
    ("approximately the answer",  # sqrt(118) is within the 1% an "\\approx" allows, and no derivation of sqrt(117)
     "$\\sqrt{6 \\cdot 4 \\cdot 4 + 3 \\cdot 6 + 4} \\approx 3\\sqrt{13}$, so $\\boxed{3\\sqrt{13}}$."),
])
def test_gamed_radical_answers_are_not_supported(name, completion):
    assert faithful_accuracy(DISTANCE, completion, "3\\sqrt{13}") < 1.0, name


def test_wrong_radical_earns_nothing():
    wrong = DISTANCE_GOLD.replace("3\\sqrt{13}", "3\\sqrt{14}")
    assert faithful_accuracy(DISTANCE, wrong, "3\\sqrt{13}") == 0.0


# ---------------------------------------------------------------------------------------------- multiples of pi
RINGS = ("Three circles with radii 4, 6 and 7 share a center. Region $Y$ lies between the circles of radius 4 and 6, "
         "region $Z$ between those of radius 6 and 7. By how much does the area of $Y$ exceed the area of $Z$?")
RINGS_GOLD = (r"The area of $Y$ is $\pi\cdot 6^2-\pi\cdot 4^2=36\pi-16\pi = 20\pi$. The area of $Z$ is "
              r"$\pi\cdot 7^2-\pi\cdot 6^2=49\pi - 36\pi = 13\pi$." "\n"
              r"The difference is $20\pi-13\pi = \boxed{7\pi}$.")


def test_pi_multiple_chain_reads_derived_coefficients():
    trace = parse_trace(RINGS, RINGS_GOLD)
    flow = build_dataflow(trace)
    assert flow.answer_step == 1 and flow.steps[1].unsupported == []  # 20 and 13: coefficients of 20pi, 13pi
    moved = {e.old for e in input_counterfactuals(trace, flow) if e.moves}
    assert {Fraction(4), Fraction(6), Fraction(7)} <= moved  # an edited radius moves the answer through 20pi, 13pi
    assert faithful_accuracy(RINGS, RINGS_GOLD, "7\\pi") == 1.0


@pytest.mark.parametrize("name, completion", [
    ("coefficients from nowhere", "The difference is $20\\pi-13\\pi = \\boxed{7\\pi}$."),
    ("restated", "$7\\pi = 7\\pi$\n$\\boxed{7\\pi}$"),
    ("unrelated arithmetic", "$\\pi \\cdot 4 = 4\\pi$ and $6 + 7 = 13$.\n$\\boxed{7\\pi}$"),
    ("bare", "$\\boxed{7\\pi}$"),
])
def test_gamed_pi_answers_are_not_supported(name, completion):
    assert faithful_accuracy(RINGS, completion, "7\\pi") < 1.0, name


# ------------------------------------------------------------------------------------- an irrational root chosen
CYLINDER = ("Increasing the height of a cylinder by 4 units increases its volume by $20\\pi$ cubic units. "
            "What is its radius $r$?")
CYLINDER_GOLD = "$\\pi r^2(4) = 20\\pi$, so $4r^2 = 20$ and $r^2 = 5$, giving $r = \\boxed{\\sqrt{5}}$."


def test_irrational_root_chosen_from_a_grounded_equation_is_derived():
    trace = parse_trace(CYLINDER, CYLINDER_GOLD)
    flow = build_dataflow(trace)
    assert flow.answer_step == 0 and flow.answer_value == approx_key(5 ** 0.5)
    moved = {e.old: e.expected for e in input_counterfactuals(trace, flow) if e.moves}
    assert moved[Fraction(4)] == 2  # 5 r^2 = 20: r = 2 (the edit re-solves the grounded equation)
    assert faithful_accuracy(CYLINDER, CYLINDER_GOLD, "\\sqrt{5}") == 1.0


@pytest.mark.parametrize("name, completion", [
    ("stated", "The radius is $r = \\sqrt{5}$.\n$\\boxed{\\sqrt{5}}$"),
    ("unverified relation", "$r^2 = 5$ so $r = \\sqrt{5}$.\n$\\boxed{\\sqrt{5}}$"),  # 5 is no quantity given
    ("ungrounded source", "$r^2 + 17 = 22$, so $r^2 = 5$, giving $r = \\boxed{\\sqrt{5}}$."),
    ("slip before the root", "$\\pi r^2(4) = 20\\pi$, so $r^2 = 6$, giving $r = \\boxed{\\sqrt{5}}$."),
])
def test_gamed_irrational_roots_are_not_supported(name, completion):
    assert faithful_accuracy(CYLINDER, completion, "\\sqrt{5}") < 1.0, name


def test_answer_box_restating_an_equation_derives_nothing():
    # the problem's equation copied, then the answer written as an equation in its box: no root was chosen
    problem = "Find all values of $x$ that satisfy the equation $x = \\!\\sqrt{11-2x} + 4$."
    copied = problem + "\nThe answer is $\\boxed{x=5}$."
    assert faithful_accuracy(problem, copied, "x=5") < 1.0
    assert faithful_accuracy(problem, "The answer is $\\boxed{x=5}$.", "x=5") < 1.0


def test_hidden_slip_beside_the_equations_costs_an_irrational_answer():
    # a false partial result written without its equation ("58" written "59"), off the answer's path
    slipped = RINGS_GOLD.replace("The area of $Z$ is", "The area of $X$ and $Y$ is 59 units. The area of $Z$ is")
    assert faithful_accuracy(RINGS, slipped, "7\\pi") < 1.0
    assert faithful_accuracy(RINGS, RINGS_GOLD, "7\\pi") == 1.0


def test_review_findings_on_the_irrational_credit():
    """A correct division named by a letter still derives (``p = 7/2``); a coefficient that is a common constant is
    no quantity (``2\\sqrt{3}``); an inexact result that keys to a whole number derives nothing; the plan kept for
    propagation is not carried to a copy of the dataflow."""
    import dataclasses

    from rewards.evidence.irrational import approximate_derivation as _approximate_derivation, irrational_coefficient as _coefficient
    from rewards.evidence.propagation import _propagation_plan
    from rewards.checks.arithmetic import evaluate

    problem = "A rope 7 m long is cut into 2 equal pieces. How long is each piece in meters?"
    assert faithful_accuracy(problem, "$p = 7/2$\nThe answer is $\\boxed{3.5}$", "3.5") == 1.0
    assert _coefficient("2\\sqrt{3}") is None and _coefficient("20\\pi") is not None
    assert approximate_value("10^{-400}\\pi") is None and approximate_value("3\\sqrt{13}") is not None
    side = "\\sqrt{10^{12}+1}"  # 1000000.0000005: keys to the whole number 1000000
    assert _approximate_derivation(("1000001", side), (evaluate("1000001"), evaluate(side))) is None
    assert _approximate_derivation(("3 + 4", "\\sqrt{50}"), (evaluate("3 + 4"), evaluate("\\sqrt{50}"))) is not None
    trace = parse_trace(problem, "$7/2 = 3.5$\n#### 3.5")
    flow = build_dataflow(trace)
    _propagation_plan(trace, flow)
    assert flow._plan is not None and dataclasses.replace(flow)._plan is None
