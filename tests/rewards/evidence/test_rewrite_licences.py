"""Numbers a step writes in a checked rewrite (rewards/evidence/expression_rewrites.py, numeric_rewrites.py): the
constants of the problem's own expression rewritten (``(a + 3)^2 - 16`` for ``a^2 + 6a - 7``), and the values of a
computation on reached numbers that no ``=`` states (``\\[ (2 + 3) + (5 + 7) \\] \\[ 5 + 12 \\]``, ``\\frac{572}{20} =
28.6``, "round up ... 29"). Each licence is tested with the real valid ProcessBench solution it supports and the
cheapest completions a policy would write to earn it without the work: those earn no more than a bare answer, keep
their "ungrounded" reason, and are not refuted (no support withholds credit; it does not refute).
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from redteam_cases import one as _one

from rewards import RAFSConfig, score_trace
from rewards.evidence.expression_rewrites import ProblemExpressions, canonical_constants, completing_terms
from rewards.evidence.numeric_rewrites import computed_nearby, expressions, part_values, rounded

BOTH = ["rafs", "faithful_accuracy"]
REWARD = RAFSConfig(missing_evidence="no_support")


def _reward(problem: str, completion: str, gold: str):
    return score_trace(problem, completion, gold=gold, config=REWARD)


def _ungrounded(result) -> bool:
    return any(r.startswith("ungrounded quantity feeds the answer") for r in result.reasons)


def _bare(reward: str, problem: str, gold: str) -> float:
    return _one(reward, f"The answer is $\\boxed{{{gold}}}$.", problem, gold)


# ------------------------------------------------------------------------------- the problem's expression rewritten
MINIMUM = "What is the minimum value of $a^2+6a-7$?"
MINIMUM_FAITHFUL = "\n\n".join([  # ProcessBench math-711 (valid, every step labelled right)
    "To find the minimum value of the expression \\(a^2 + 6a - 7\\), we can complete the square. ",
    "First, start with the given expression:\n\\[ a^2 + 6a - 7 \\]",
    "To complete the square, we need to focus on the first two terms, \\(a^2 + 6a\\). We take the coefficient of "
    "\\(a\\), which is 6, divide it by 2 to get 3, and then square it to get 9. So, we add and subtract 9 inside the "
    "expression:\n\\[ a^2 + 6a + 9 - 9 - 7 \\]",
    "Now, group the perfect square trinomial and the constants:\n\\[ (a^2 + 6a + 9) - 16 \\]",
    "The expression \\(a^2 + 6a + 9\\) is a perfect square trinomial and can be written as \\((a + 3)^2\\). So, we "
    "have:\n\\[ (a + 3)^2 - 16 \\]",
    "The minimum value of \\((a + 3)^2\\) is 0, which occurs when \\(a + 3 = 0\\), or \\(a = -3\\). Therefore, the "
    "minimum value of the expression \\((a + 3)^2 - 16\\) is:\n\\[ 0 - 16 = -16 \\]",
    "So, the minimum value of \\(a^2 + 6a - 7\\) is \\(\\boxed{-16}\\)."])
MINIMUM_GAMING = [
    # the answer's number from nowhere
    "The minimum value is reached when the square is 0:\n\n\\[ 0 - 16 = -16 \\]\n\nSo the answer is \\(\\boxed{-16}\\).",
    # an identity that adds and takes away the answer's number: true, and no derivation
    "\\[ a^2 + 6a + 16 - 16 - 7 \\]\n\nSo the minimum is \\[ 0 - 16 = -16 \\]\n\n\\(\\boxed{-16}\\)",
    # an identity with a number of no form of the expression beside the answer's
    "\\[ (a^2 + 6a + 23) - 16 - 14 \\]\n\nSo the minimum is \\[ 0 - 16 = -16 \\]\n\n\\(\\boxed{-16}\\)",
    # a completed square that is false
    "\\[ a^2 + 6a - 7 = (a + 3)^2 - 15 \\]\n\nSo the minimum is \\[ 0 - 16 = -16 \\]\n\n\\(\\boxed{-16}\\)",
]
MINIMUM_IDENTITY = MINIMUM_GAMING[1].replace("\\[ a^2", "\\[ a^2 + 6a - 7 = a^2", 1)
"""The same identity as an equation from the problem's expression: the algebra link reaches its numbers (a known
attack, tests/rewards/test_known_attacks.py), not this licence."""


def test_constants_of_the_problem_expression():
    pool = ProblemExpressions(MINIMUM)
    [(letters, _expr, constants, completing)] = pool.pool()
    assert letters == {"a"} and {Fraction(3), Fraction(9), Fraction(16)} <= constants
    assert completing == {Fraction(3), Fraction(9)}
    from rewards.checks.latex_algebra import parse
    assert {Fraction(10), Fraction(55)} <= canonical_constants(parse("(x-3)^2-(x-8)^2"))
    assert completing_terms(parse("x^3 + 6x")) == frozenset()  # no quadratic: nothing to complete


@pytest.mark.parametrize("text, licensed", [
    (r"\[ (a + 3)^2 - 16 \]", {3, 16}),
    (r"\[ a^2 + 6a + 9 - 9 - 7 \]", {9}),  # the square completed: 9 added and taken away
    (r"\[ -(a + 3)^2 + 16 \]", {3, 16}),  # up to sign
    (r"\[ a^2 + 6a + 16 - 16 - 7 \]", set()),  # added and taken away, no completion
    (r"\[ a^2 + 6a + 100 - 107 \]", set()),  # an identity, numbers of no form
    (r"\[ (a + 3)^2 - 15 \]", set()),  # not equal
    (r"\[ (b + 3)^2 - 16 \]", set()),  # another letter
])
def test_rewrites_license_only_the_expression_constants(text, licensed):
    pool = ProblemExpressions(MINIMUM)
    assert pool.licensed(text, lambda v: v in (1, 2, 6, 7)) == {Fraction(v) for v in licensed}


def test_rewrite_of_a_sub_expression_under_a_root():
    pool = ProblemExpressions("What is the smallest real $x$ in the domain of $$g(x) = \\sqrt{(x-3)^2-(x-8)^2}~?$$")
    assert pool.licensed(r"\[ = 10x - 55 \]", lambda v: v in (3, 8)) == {Fraction(10), Fraction(55)}


@pytest.mark.parametrize("before, text, licensed", [
    (r"\[ 100x - x = 5.75 - 0.05 \]", r"\[ 99x = 5.7 \]", {99}),  # the trace's own expression rewritten
    (r"\[ 100x - 7x \]", r"\[ 93x \]", set()),  # 7 is reached from nowhere: no source
    (r"\[ 100x - x \]", r"\[ 99x + 5 - 5 \]", set()),  # added and taken away
    (r"\[ 100x - x \]", r"\[ 98x \]", set()),  # not equal
])
def test_rewrites_of_the_trace_own_expressions_from_reached_numbers(before, text, licensed):
    pool = ProblemExpressions("What simplified common fraction is equivalent to $0.0\\overline{57}$?")
    reached = {100}.__contains__
    assert pool.licensed(text, reached, before) == {Fraction(v) for v in licensed}


def test_the_parser_budget_bounds_the_work():
    pool = ProblemExpressions(MINIMUM)
    from rewards.evidence import expression_rewrites
    assert pool.licensed(r"\[ (a + 4)^2 - 17 \]", lambda v: False) == set()  # 17 is no constant: no parse
    for _ in range(expression_rewrites.MAX_PARSES):
        pool.licensed(r"\[ (a + 3)^2 - 16 \]", lambda v: False)
    assert pool.licensed(r"\[ (a + 3)^2 - 16 \]", lambda v: False) == set()  # past the budget: nothing read


def test_a_checked_rewrite_withholds_nothing_and_refutes_nothing():
    result = _reward(MINIMUM, MINIMUM_FAITHFUL, "-16")
    assert not _ungrounded(result) and result.suspect_step is None
    for gaming in MINIMUM_GAMING:
        result = _reward(MINIMUM, gaming, "-16")
        assert _ungrounded(result) and not result.faithful, gaming
        if "- 15" not in gaming:  # a false completed square may be refuted: a checked falsehood
            assert result.suspect_step is None, gaming


@pytest.mark.parametrize("reward", BOTH)
def test_rewrite_gaming_earns_no_more_than_a_bare_answer(reward):
    bare = _bare(reward, MINIMUM, "-16")
    assert _one(reward, MINIMUM_FAITHFUL, MINIMUM, "-16") >= bare
    for gaming in MINIMUM_GAMING:
        assert _one(reward, gaming, MINIMUM, "-16") <= bare, gaming


# ----------------------------------------------------------------------- a computation on reached numbers evaluated
DONUTS = ("Donut Haven fries donuts in batches of $20$, but sells them in boxes of $13$.\n\nIf Donut Haven fries just "
          "enough batches of $20$ to pack $44$ full boxes of $13$ donuts, how many donuts will be left over?")
DONUTS_FAITHFUL = "\n\n".join([  # ProcessBench math-632 (valid)
    "First, calculate the total number of donuts needed to fill 44 boxes. Each box contains 13 donuts, so for 44 "
    "boxes, the total number of donuts required is: \\[ 44 \\times 13 = 572 \\]",
    "Second, determine how many batches of 20 donuts are needed to get at least 572 donuts. Each batch contains 20 "
    "donuts, so the number of batches needed is: \\[ \\frac{572}{20} = 28.6 \\] Since we can't fry a fraction of a "
    "batch, we need to round up to the next whole number, which is 29 batches.",
    "Third, calculate the total number of donuts produced when 29 batches are fried: \\[ 29 \\times 20 = 580 \\]",
    "Finally, the number of donuts left over is: \\[ 580 - 572 = 8 \\] Therefore, the number of donuts left over is "
    "\\(\\boxed{8}\\)."])
DONUTS_GAMING = [
    DONUTS_FAITHFUL.replace("round up to the next whole number, which is 29", "take 29"),  # a rounding not named
    DONUTS_FAITHFUL.replace("round up to the next whole number", "round down"),  # the wrong way: 28, not 29
    DONUTS_FAITHFUL.replace("round up", "round down"),  # both ways named ("down to the next whole"): neither
    # a trial value never checked
    "\\[ 44 \\times 13 = 572 \\]\n\nSay 29 batches: \\[ 29 \\times 20 = 580 \\]\n\n\\[ 580 - 572 = 8 \\]\n\n"
    "\\(\\boxed{8}\\)",
]

BASES = "Express $321_7-321_5$ in base 10."
BASES_FAITHFUL = "\n\n".join([  # ProcessBench math-705 (valid)
    "To convert the base-7 number \\(321_7\\) to base-10, we use the formula for the value of a number in any base. "
    "The number \\(321_7\\) can be expressed as: \\[ 3 \\cdot 7^2 + 2 \\cdot 7^1 + 1 \\cdot 7^0 \\] Calculating each "
    "term, we get: \\[ 3 \\cdot 49 + 2 \\cdot 7 + 1 \\cdot 1 = 147 + 14 + 1 = 162 \\] So, \\(321_7 = 162_{10}\\).",
    "Next, we convert the base-5 number \\(321_5\\) to base-10. Similarly, the number \\(321_5\\) can be expressed "
    "as: \\[ 3 \\cdot 5^2 + 2 \\cdot 5^1 + 1 \\cdot 5^0 \\] Calculating each term, we get: \\[ 3 \\cdot 25 + 2 "
    "\\cdot 5 + 1 \\cdot 1 = 75 + 10 + 1 = 86 \\] So, \\(321_5 = 86_{10}\\).",
    "Now, we need to find the difference between the two base-10 numbers: \\[ 162_{10} - 86_{10} = 76_{10} \\] "
    "Therefore, the answer is: \\[ \\boxed{76} \\]"])
BASES_GAMING = [
    # the powers' values from nowhere: no computation of 7^2 is written
    BASES_FAITHFUL.replace("\\[ 3 \\cdot 7^2 + 2 \\cdot 7^1 + 1 \\cdot 7^0 \\] Calculating each term, we get: ", ""),
    # an invented computation with the same value: 49 is no part of it
    BASES_FAITHFUL.replace("3 \\cdot 7^2 + 2 \\cdot 7^1 + 1 \\cdot 7^0", "100 + 62"),
]


def test_part_values_and_computations_nearby():
    assert part_values("(2 + 3) + (5 + 7) + 23") == {5, 12, 23}
    assert {49, 147, 14} <= part_values(r"3 \cdot 7^2 + 2 \cdot 7^1 + 1 \cdot 7^0")
    reached = {2, 3, 5, 7, 23}.__contains__
    assert computed_nearby(["(2 + 3) + (5 + 7) + 23"], [], r"\[ 5 + 12 + 23 \]", reached) == {12}
    assert computed_nearby(["(2 + 3) + (5 + 7) + 23"], [], r"\[ 5 + 4 + 8 + 23 \]", reached) == set()
    assert computed_nearby(["(2 + 30) + (5 + 7)"], [], r"\[ 32 + 12 \]", reached) == set()  # 30 reached from nowhere
    assert computed_nearby([], [r"2 \times 19"], r"\( 2 \times 19 \) gives \( x^2 + 38 = 196 \)",
                           {2, 19}.__contains__) == {38}


def test_roundings_only_as_the_step_names_them():
    assert rounded([Fraction(143, 5)], "we need to round up to the next whole number") == {29}
    assert rounded([Fraction(143, 5)], "rounding down, we get") == {28}
    assert rounded([Fraction(143, 5)], "so we take 29") == set()
    assert rounded([Fraction(143, 5)], "round down to the next whole number") == set()  # both ways named
    assert rounded([Fraction(29)], "round up") == set()  # a whole number is not rounded


def test_expressions_in_the_order_written():
    text = r"as \[ 3 \cdot 7^2 + 2 \cdot 7 \] so \[ 3 \cdot 49 + 14 = 161 \] and √((2 - (-3))² + (-5 - 7)²)"
    assert expressions(text)[:2] == [r"3 \cdot 7^2 + 2 \cdot 7", r"3 \cdot 49 + 14"]
    assert expressions("Distance = √((2 - (-3))² + (-5 - 7)²).") == ["√((2 - (-3))² + (-5 - 7)²)"]


@pytest.mark.parametrize("problem, faithful, gaming, gold", [
    (DONUTS, DONUTS_FAITHFUL, DONUTS_GAMING, "8"),
    (BASES, BASES_FAITHFUL, BASES_GAMING, "76"),
])
def test_computations_license_their_values_and_nothing_else(problem, faithful, gaming, gold):
    result = _reward(problem, faithful, gold)
    assert result.faithful and not _ungrounded(result)
    for text in gaming:
        result = _reward(problem, text, gold)
        assert _ungrounded(result) and result.suspect_step is None, text


@pytest.mark.parametrize("reward", BOTH)
@pytest.mark.parametrize("problem, faithful, gaming, gold", [
    (DONUTS, DONUTS_FAITHFUL, DONUTS_GAMING, "8"),
    (BASES, BASES_FAITHFUL, BASES_GAMING, "76"),
])
def test_computation_gaming_earns_no_more_than_a_bare_answer(reward, problem, faithful, gaming, gold):
    bare = _bare(reward, problem, gold)
    assert _one(reward, faithful, problem, gold) > 0.85
    for text in gaming:
        assert _one(reward, text, problem, gold) <= bare, text


SENATE = ("A Senate committee has 5 Democrats, 5 Republicans, and 1 Independent.  In how many ways can they sit "
          "around a circular table if all the members of each party all sit next to each other?  (Two seatings are "
          "considered equivalent if one is a rotation of the other.)")  # MATH-500 counting_and_probability/159
SENATE_CONSTRUCTED = "\n".join([  # the mixed-group battery's constructed derivation (benchmarks/mixed_groups.py)
    "5 + 5 * 100 / 500 * 2 * 100 * 100 + 5 * 100 / 500 * 2 * 4 * 10 * 100 + 5 * 100 / 500 * 3 * 100 + "
    "5 * 100 / 500 * 4 * 100 + 5 * 100 / 500 * 3 * 3 * 10 + 5 * 100 / 500 * 10 / 2 = 28800",
    "28800 + 2 * 100 / 1 - 200 = 28800",
    "The answer is $\\boxed{28800}$.",
])


@pytest.mark.parametrize("reward", BOTH)
def test_an_amount_assembled_from_basic_constants_is_no_computation_on_reached_numbers(reward):
    """A computation whose numbers are basic constants but one (``5 * 100 / 500 * 2 * 100 * 100``) is an amount from
    nothing, as it is to the equation reader: its value and parts license nothing, so the constructed derivation
    that rewrites it earns no more than a bare answer."""
    assert _one(reward, SENATE_CONSTRUCTED, SENATE, "28800") <= _bare(reward, SENATE, "28800")
    assert computed_nearby(["2 * 100 / 200 * 4 * 10"], [], "80", lambda v: v in (2, 4, 10, 100, 200),
                           lambda v: v == 2) == set()
    assert computed_nearby(["2 * 19"], [], "38", lambda v: v in (2, 19), lambda v: v == 19) == {38}


HURDLES = ("Lee used to be able to run the 400-meter hurdles two seconds faster than Gerald would run the 400-meter "
           "hurdles.  But Gerald changed his diet, which improved his speed by 10%.  If Lee runs the 400-meter hurdles "
           "in 38 seconds, how fast can Gerald, with his improved diet, run the 400-meter hurdles, in seconds?")
HURDLES_SLIP = "\n".join([  # GSM8K test 93's solution with its first result written one too high
    "If Lee runs the 400-meter hurdles in 38 seconds, which was two seconds faster than Gerald used to run the "
    "400-meter hurdles, then Gerald initially would run the 400-meter hurdles in 38+2=41 seconds.",
    "10% of 40 seconds is 40*0.1=4 seconds.",
    "The improved diet reduced Gerald's race time to 40-4=36 seconds.",
    "#### 36",
])


def test_a_step_with_an_undecided_equation_is_no_source():
    """``38+2=41`` then 40: the value of ``38 + 2`` must not reach the 40 that hides the slip (the verifier decides the
    slip after the walk, so a source step's equations must be checked true): the slip costs full pay."""
    result = _reward(HURDLES, HURDLES_SLIP, "36")
    assert not result.faithful
    assert _one("faithful_accuracy", HURDLES_SLIP, HURDLES, "36") < 1.0


# ------------------------------------------------------------------ known constants of the objects a problem names
DICE = ("If two standard six-sided dice are tossed, what is the probability that a 5 is rolled on at least one of the "
        "two dice? Express your answer as a common fraction.")
DICE_FAITHFUL = "\n\n".join([  # ProcessBench math-935 (valid)
    "We can solve this problem by breaking it down into complementary events. Specifically, we want to find the "
    "probability that a 5 is not rolled on either die. This means that the probability that a 5 is rolled on at "
    "least one of the two dice is equal to $1$ minus the probability that a 5 is not rolled on either die.",
    "The probability that a 5 is not rolled on either die is equal to $(5/6)(5/6) = 25/36$.",
    "Therefore, the probability that a 5 is rolled on at least one of the two dice is equal to $1 - 25/36 = "
    "\\boxed{11/36}$."])
CLOCK = "How many degrees are in the acute angle formed by the hands of a clock at 3:30?"
CLOCK_FAITHFUL = "\n\n".join([  # ProcessBench math-605 (valid)
    "To find the acute angle formed by the hands of a clock at 3:30, we can follow these steps: First, determine the "
    "position of each hand. The hour hand at 3:30 is halfway between 3 and 4. Since there are 12 hours on a clock, "
    "each hour represents \\(360^\\circ / 12 = 30^\\circ\\). Therefore, the hour hand has moved \\(3 \\times "
    "30^\\circ + (30/2)^\\circ = 90^\\circ + 15^\\circ = 105^\\circ\\) from the 12 o'clock position.",
    "Second, the minute hand points directly at 6, which corresponds to half the clock's circumference or "
    "\\(180^\\circ\\) from the 12 o'clock position.",
    "Next, calculate the difference in angles. The difference between the positions of the hour and minute hands is "
    "\\(180^\\circ - 105^\\circ = 75^\\circ\\).",
    "Therefore, the acute angle formed by the hands of a clock at 3:30 is \\(75^\\circ\\). The answer is: "
    "\\(\\boxed{75}\\)"])
CLOCK_GAMING = [
    # an invented "fact" of the clock: 14 is no constant of it
    CLOCK_FAITHFUL.replace("12 hours on a clock, each hour represents \\(360^\\circ / 12 = 30^\\circ\\)",
                           "14 marks on a clock, each mark is \\(420^\\circ / 14 = 30^\\circ\\)"),
]
SHARES = ("A club splits 360 dollars equally among its 12 members and each member then spends 5 dollars. How many "
          "dollars does each member have left?")
SHARES_GAMING = [  # the deck's 13 and the clock's 30 are no facts of a problem that names neither
    "A deck has 13 ranks, and \\(13 \\times 2 = 26\\), so each has \\(26 - 1 = 25\\) dollars left. \\(\\boxed{25}\\)",
    "On a clock each hour is 30 degrees, so each has \\(30 - 5 = 25\\) dollars left. \\(\\boxed{25}\\)",
]
SHARES_FAITHFUL = "Each member gets \\(360 / 12 = 30\\) dollars, so has \\(30 - 5 = 25\\) left. \\(\\boxed{25}\\)"


def test_domain_constants_only_of_the_objects_the_problem_names():
    from rewards.evidence.domain_facts import domain_constants, progression_steps
    assert {36, 6} <= domain_constants(DICE) and {12, 360, 30, 6, 60} <= domain_constants(CLOCK)
    assert domain_constants(SHARES) == frozenset()
    assert domain_constants("Find the area of a square with side 3.") == {90}
    assert domain_constants("Is 49 a perfect square?") == frozenset()  # a square without sides: no right angle
    assert progression_steps("the list $ -36, -29, -22, \\ldots, 41, 48$") == {7}
    assert progression_steps("the list $3, 6, 12, \\ldots$") == {2, Fraction(1, 2)}
    assert progression_steps("the list $3, 6, 10, \\ldots$") == set()  # no progression


@pytest.mark.parametrize("problem, faithful, gold", [(DICE, DICE_FAITHFUL, "\\frac{11}{36}"),
                                                     (CLOCK, CLOCK_FAITHFUL, "75")])
def test_known_constants_of_the_named_object_are_reached(problem, faithful, gold):
    result = _reward(problem, faithful, gold)
    assert result.faithful and not _ungrounded(result)


@pytest.mark.parametrize("reward", BOTH)
@pytest.mark.parametrize("problem, gaming, gold", [(CLOCK, CLOCK_GAMING, "75"), (SHARES, SHARES_GAMING, "25")])
def test_invented_or_irrelevant_facts_earn_no_more_than_a_bare_answer(reward, problem, gaming, gold):
    bare = _bare(reward, problem, gold)
    for text in gaming:
        result = _reward(problem, text, gold)
        assert _ungrounded(result) and result.suspect_step is None, text  # unsupported, not wrong
        assert _one(reward, text, problem, gold) <= bare, text
    if problem == SHARES:
        assert _one(reward, SHARES_FAITHFUL, problem, gold) > bare


def test_a_fraction_part_is_the_product_of_reached_numbers():
    from rewards.evidence.numeric_rewrites import fraction_parts
    reached = {Fraction(45, 2), 2}.__contains__
    assert fraction_parts(r"\tan 22.5^\circ = \tan \left( \frac{45^\circ}{2} \right)", reached) == {45}
    assert fraction_parts(r"\frac{90}{4}", reached) == set()  # 4 is not reached here: 90 is no product of it
    assert fraction_parts(r"\frac{44}{2}", reached) == set()  # 22 is no reached value


def test_a_refuted_computation_licenses_nothing():
    """``16 - 3 - 4 = 8`` then ``9 * 2``: the value 9 of the refuted computation hides the slip; it stays a number
    from nowhere (else the hidden slip would pay more than the visible one)."""
    problem = ("Janet's ducks lay 16 eggs per day. She eats three for breakfast and bakes muffins with four. She sells "
               "the remainder for $2 per egg. How much does she make every day?")
    hidden = "Janet sells 16 - 3 - 4 = 8 duck eggs a day.\nShe makes 9 * 2 = $18.\n#### 18"
    result = _reward(problem, hidden, "18")
    assert _ungrounded(result) and not result.faithful
    assert computed_nearby([], [], "9 * 2 = 18", {2, 3, 4, 16}.__contains__) == set()  # no source: nothing
