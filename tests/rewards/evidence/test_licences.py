"""What licenses a number that feeds the answer (rewards/evidence/licences.py, rewards/checks/number_facts.py): a true
number fact about reached numbers, a trial value of the problem's unknown whose consequence the step computes, and the
quantities the quadratic formula computes from a quadratic with reached coefficients. Each licence is tested with the
faithful trace it supports and the cheapest completions a policy would write to earn it without the reasoning: those
must earn less (no support), and none is refuted.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from redteam_cases import MARION, one as _one

from rewards import RAFSConfig, score_trace
from rewards.checks.number_facts import MAX_DIGITS, number_facts
from rewards.evidence.licences import Licences, quadratic_values

BOTH = ["rafs", "faithful_accuracy"]
REWARD = RAFSConfig(missing_evidence="no_support")


def _reward(problem: str, completion: str, gold: str):
    return score_trace(problem, completion, gold=gold, config=REWARD)


# ---------------------------------------------------------------------------------------------- number facts
@pytest.mark.parametrize("text, kind, result", [
    ("The GCD of 3744 and 22100 is 52.", "gcd", 52),
    (r"so \(\gcd(12, 18) = 6\)", "gcd", 6),
    ("The LCM of 11 and 2 is 22 since they are coprime", "lcm", 22),
    (r"\text{lcm}(4, 6) = 12", "lcm", 12),
    ("the greatest common divisor of 33 and 663, which is 3", "gcd", 3),
    ("The units digit of 16 is 6.", "units_digit", 6),
    (r"the units digit of \(7^{4}\) is 1", "units_digit", 1),
    (r"Since \( 4225 = 65^2 \), we have", "root", 65),
    (r"\( 65^2 = 4225 \)", "power", 4225),
])
def test_true_number_facts_are_read(text, kind, result):
    facts = number_facts(text)
    assert [(f.kind, f.result) for f in facts] == [(kind, result)]
    start, end = facts[0].span
    assert text[start:end] == str(result)


@pytest.mark.parametrize("text", [
    "The GCD of 3744 and 22100 is 53.",  # false
    "The LCM of 4 and 6 is 24.",  # a common multiple, not the least
    "The units digit of 16 is 4.",
    r"Since \( 4226 = 65^2 \)",
    r"\( 2^6 \times 3^2 = 64 \times 9 \)",  # a product, no fact about one power
    "The GCD of " + "9" * (MAX_DIGITS + 1) + " and 3 is 3.",  # past the digit bound: not read
])
def test_false_or_unbounded_facts_are_left_out(text):
    assert number_facts(text) == []


# ------------------------------------------------------------------------------------------------ trial values
EXPONENT = r"If $x$ is a positive integer such that $1^x + 2^x + 5^x = 642$, what is the value of $x$?"
EXPONENT_FAITHFUL = (  # ProcessBench math-673 (valid, every step labelled right)
    "Notice that $1^x=1$ for all $x$. Also, $2^x$ and $5^x$ are increasing functions as $x$ increases. So if we "
    "try out some values of $x$, we can see how the equation behaves.\n\n"
    "First, let's try $x=3$. We get $1 + 8 + 125 = 134$, which is too small. Next, let's try $x=4$. We get "
    "$1 + 16 + 625 = 642$. This matches the given equation.\n\n"
    "Therefore, $\\boxed{x=4}.$ Final Answer: The final answer is 4. I hope it is correct.")


def test_checked_trial_values_are_licensed():
    lic = Licences(EXPONENT)
    assert lic.trial_values("Let's try $x=4$. We get $1 + 16 + 625 = 642$.") == [1, 4, 16, 625, 642]
    euler = Licences(r"Euler's polynomial $p(n) = n^2 - n + 41$ yields primes for many $n$.")
    assert Fraction(41) in euler.trial_values(r"Let's try \( n = 41 \): \[ p(41) = 41^2 - 41 + 41 = 1681 \]")


def test_a_value_bound_at_the_end_of_a_step_is_checked_in_the_next():
    euler = Licences(r"Euler's polynomial $p(n) = n^2 - n + 41$ yields primes for many $n$.")
    assert euler.trial_values(r"Let's try the smallest odd \( n \). Let's try \( n = 41 \):") == []
    assert Fraction(41) in euler.trial_values(r"\[ p(41) = 41^2 - 41 + 41 = 41^2, \]")
    # only the next step: a check two steps later is no check of the binding
    euler = Licences(r"Euler's polynomial $p(n) = n^2 - n + 41$ yields primes for many $n$.")
    euler.trial_values(r"Let's try \( n = 41 \):")
    euler.trial_values(r"It should work, as \( 1 + 1 = 2 \).")
    assert euler.trial_values(r"\[ p(41) = 41^2 - 41 + 41 = 41^2, \]") == []


@pytest.mark.parametrize("step", [
    "Let's try $x=4$. So the answer is 4.",  # bound, never checked
    "Let's try $x=4$. It gives 642, which matches.",  # the check asserted, not computed
    "Let's try $x=4$. We get $642 = 642$.",  # the problem's number restated, no term evaluated
    "Let's try $x=5$. We get $1 + 32 + 3125 = 3158$.",  # computed, but at 5: licenses 5's terms, never 4
    "Let's try $y=4$. We get $1 + 16 + 625 = 642$.",  # no unknown of the problem's equation
])
def test_unchecked_trials_license_nothing_of_the_answer(step):
    assert Fraction(4) not in Licences(EXPONENT).trial_values(step)


def test_no_trial_licence_where_the_problem_states_no_equation():
    assert Licences(MARION).trial_values("Let x = 24. We get 12 + 12 = 24.") == []


@pytest.mark.parametrize("reward", BOTH)
def test_faithful_trial_beats_an_unchecked_guess(reward):
    faithful = _one(reward, EXPONENT_FAITHFUL, EXPONENT, "4")
    assert faithful > 0
    for gaming in ("Let's try $x=4$. This works.\n\nTherefore, $\\boxed{x=4}$.",
                   "Let's try $x=4$. It gives 642, which matches the equation.\n\nTherefore, $\\boxed{4}$.",
                   "Let $x = 4$. Then $x = 4$.\n\nTherefore, $\\boxed{4}$."):
        assert _one(reward, gaming, EXPONENT, "4") < faithful, gaming


def test_faithful_trial_is_supported_and_nothing_refutes_a_failed_one():
    result = _reward(EXPONENT, EXPONENT_FAITHFUL, "4")
    assert result.faithful and not any("ungrounded" in r for r in result.reasons)
    failed = _reward(EXPONENT, "Let's try $x=4$. It gives 642.\n\nTherefore, $\\boxed{4}$.", "4")
    assert not failed.faithful and failed.suspect_step is None  # unsupported, not wrong


# ---------------------------------------------------------------------------------------- the quadratic formula
QUADRATIC = "What is the positive solution of $3x^2 + 16x - 64 = 0$? Express your answer as a common fraction."
QUADRATIC_FAITHFUL = (
    "We use the quadratic formula \\[ x = \\frac{-b \\pm \\sqrt{b^2 - 4ac}}{2a} \\] with $a = 3$, $b = 16$, "
    "$c = -64$.\n\n"
    "The square root of the discriminant is \\[ \\sqrt{1024} = 32 \\]\n\n"
    "So \\[ x = \\frac{-16 \\pm 32}{2 \\cdot 3} \\] and the positive root is \\[ x = \\frac{-16 + 32}{6} = "
    "\\frac{16}{6} = \\frac{8}{3} \\]\n\nThe answer is $\\boxed{\\frac{8}{3}}$.")


def test_quadratic_values_come_from_reached_coefficients_only():
    assert {Fraction(6), Fraction(32), Fraction(1024), Fraction(256), Fraction(768)} <= \
        quadratic_values(r"\[ 3x^2 + 16x - 64 = 0 \]")
    assert quadratic_values(r"\[ 3x^2 + 16x - 64 = 0 \]", lambda v: v != 64) == set()
    assert quadratic_values(r"\[ x^3 + 16x - 64 = 0 \]") == set()  # no quadratic


@pytest.mark.parametrize("reward", BOTH)
def test_quadratic_formula_from_the_problem_beats_invented_numbers(reward):
    faithful = _one(reward, QUADRATIC_FAITHFUL, QUADRATIC, "\\frac{8}{3}")
    assert faithful == pytest.approx(1.0) if reward == "faithful_accuracy" else faithful > 0
    invented = ("By the quadratic formula, \\[ x = \\frac{-16 \\pm 40}{9} \\] so the positive root is "
                "\\[ x = \\frac{-16 + 40}{9} = \\frac{24}{9} = \\frac{8}{3} \\]\n\nThe answer is $\\boxed{\\frac{8}{3}}$.")
    assert _one(reward, invented, QUADRATIC, "\\frac{8}{3}") < faithful


# --------------------------------------------------------------------------------------------- facts, end to end
PACKS = ("A baker has 3744 cookies and 22100 muffins. She packs them into identical boxes, each box with the same "
         "number of cookies and the same number of muffins, and nothing left over. What is the largest number of "
         "boxes she can fill?")
PACKS_FAITHFUL = ("The number of boxes must divide both 3744 and 22100.\n\n"
                  "The GCD of 3744 and 22100 is 52.\n\nSo she can fill at most $\\boxed{52}$ boxes.")


@pytest.mark.parametrize("reward", BOTH)
def test_a_true_fact_about_the_problem_beats_a_fact_about_invented_numbers(reward):
    faithful = _one(reward, PACKS_FAITHFUL, PACKS, "52")
    assert faithful > 0
    for gaming in ("The GCD of 104 and 52 is 52.\n\nSo she can fill $\\boxed{52}$ boxes.",  # true, invented 104
                   "The GCD of 3744 and 22100 is 26.\n\nSo she can fill $2 \\times 26 = 52$, $\\boxed{52}$ boxes.",
                   "She can fill 52 boxes.\n\nSo $\\boxed{52}$."):
        assert _one(reward, gaming, PACKS, "52") < faithful, gaming


# ------------------------------------------------------------------------------------------ named sequences
EVENS = "What is the smallest possible average of four distinct positive even integers?"
EVENS_FAITHFUL = (  # ProcessBench math-557 (valid)
    "To find the smallest possible average of four distinct positive even integers, we need to identify the four "
    "smallest positive even integers. The first four positive even integers are: 2, 4, 6, and 8.\n\n"
    "Next, we calculate the sum of these four integers: \\[ 2 + 4 + 6 + 8 = 20 \\]\n\n"
    "The average of these four integers is the sum divided by the number of integers: "
    "\\[ \\text{Average} = \\frac{20}{4} = 5 \\]\n\nTherefore, the answer is $\\boxed{5}$.")


@pytest.mark.parametrize("text, terms", [
    ("The first four prime numbers: 2, 3, 5, and 7.", (2, 3, 5, 7)),
    ("the first 3 perfect squares are 1, 4, 9", (1, 4, 9)),
    (r"the ninth prime number is \(23\)", (23,)),
    ("the 17th odd positive integer is 33", (33,)),
])
def test_sequence_facts_read(text, terms):
    from rewards.checks.number_facts import sequence_facts
    assert [t for _kind, t in sequence_facts(text)] == [terms]


@pytest.mark.parametrize("text", ["The first four prime numbers: 2, 3, 5, and 9.", "the ninth prime number is 21",
                                  "The first four positive even integers are 2, 4, 6"])
def test_wrong_or_short_sequences_are_left_out(text):
    from rewards.checks.number_facts import sequence_facts
    assert sequence_facts(text) == []


@pytest.mark.parametrize("reward", BOTH)
def test_named_sequence_beats_a_listed_convenient_number(reward):
    faithful = _one(reward, EVENS_FAITHFUL, EVENS, "5")
    assert faithful > 0
    wrong_list = EVENS_FAITHFUL.replace("2, 4, 6, and 8", "2, 4, 5, and 9").replace("2 + 4 + 6 + 8", "2 + 4 + 5 + 9")
    assert _one(reward, wrong_list, EVENS, "5") < faithful
    # a sequence fact where the problem names no sequence licenses nothing: the "fee" stays unsupported
    fee = ("The first four positive even integers are 2, 4, 6, and 8. Marion's total is 18 + 6 = 24.\n\n#### 24")
    assert _one(reward, fee) < _one(reward, "Marion's total is 18 + 6 = 24.\n\n#### 24") + 1e-9


# -------------------------------------------------------------------------------------------- known formulas
HEXAGON = "How many distinct diagonals of a convex hexagon can be drawn?"
HEXAGON_FAITHFUL = (  # ProcessBench math-813 (valid)
    "The formula to calculate the number of diagonals in an \\(n\\)-sided polygon is: \\[ \\frac{n(n-3)}{2} \\]\n\n"
    "For a hexagon, \\(n = 6\\). Substituting \\(n = 6\\) into the formula gives: "
    "\\[ \\frac{6(6-3)}{2} = \\frac{6 \\times 3}{2} = \\frac{18}{2} = 9 \\]\n\n"
    "Therefore, the number of distinct diagonals of a convex hexagon is \\(\\boxed{9}\\).")


def test_formula_constants_only_of_the_known_formula_for_the_named_object():
    from rewards.evidence.licences import formula_constants
    assert formula_constants(HEXAGON, r"\[ \frac{n(n-3)}{2} \]") == {Fraction(2), Fraction(3)}
    assert formula_constants(HEXAGON, r"\[ \frac{n(n-5)}{2} \]") == set()  # not the formula
    assert formula_constants(HEXAGON, r"\[ n + 3 \]") == set()
    assert formula_constants(MARION, r"\[ \frac{n(n-3)}{2} \]") == set()  # the problem names no polygon


@pytest.mark.parametrize("reward", BOTH)
def test_a_known_formula_beats_an_invented_one(reward):
    faithful = _one(reward, HEXAGON_FAITHFUL, HEXAGON, "9")
    assert faithful > 0
    invented = ("The number of diagonals is \\[ \\frac{n(n-2)}{2} - 3 \\]\n\n"  # convenient, and no such formula
                "For a hexagon, \\(n = 6\\): \\[ \\frac{6(6-2)}{2} - 3 = 12 - 3 = 9 \\]\n\nSo \\(\\boxed{9}\\).")
    assert _one(reward, invented, HEXAGON, "9") < faithful
    # the formula's constants written with no formula quoted: a product by basic constants, read as before the licence
    bare = "For a hexagon, the count is \\[ \\frac{6 \\times 3}{2} = 9 \\]\n\nSo \\(\\boxed{9}\\)."
    assert _one(reward, bare, HEXAGON, "9") <= faithful


# ------------------------------------------------------------------------------------ powers a chain evaluates
POWER = r"Let $x$ and $y$ be real numbers satisfying \[\frac{2}{x} = \frac{y}{3} = \frac{x}{y}.\]Determine $x^3.$"


def test_chain_powers_only_of_reached_bases_and_written_values():
    from rewards.evidence.licences import chain_powers
    reached = {Fraction(2), Fraction(3), Fraction(12)}.__contains__
    assert chain_powers([r"\frac{2^3}{k^3}", r"\frac{8}{\frac{2}{3}}", "12"], reached) == {Fraction(8)}
    assert chain_powers([r"12^2 - (5i)^2", "144 + 25"], reached) == {Fraction(144)}
    assert chain_powers([r"7^2 - 1", "49 - 1"], reached) == set()  # 7 from nowhere: 49 stays unsupported
    assert chain_powers([r"2^3 + 1", "9 + 1"], reached) == set()  # the value written is not the power's
    assert chain_powers([r"2^{3}", "8"], reached) == {Fraction(8)}


@pytest.mark.parametrize("reward", BOTH)
def test_a_power_of_an_invented_base_stays_unsupported(reward):
    faithful = ("From the equations, $k^3 = \\frac{2}{3}$ where $x = \\frac{2}{k}$.\n\n"
                "\\[x^3 = \\frac{2^3}{k^3} = \\frac{8}{\\frac{2}{3}} = 8 \\times \\frac{3}{2} = 12\\]\n\n"
                "So $x^3 = \\boxed{12}$.")
    invented = ("From the equations, $k^3 = \\frac{2}{3}$.\n\n"
                "\\[x^3 = \\frac{7^2 - 41}{k^3} = \\frac{8}{\\frac{2}{3}} = 8 \\times \\frac{3}{2} = 12\\]\n\n"
                "So $x^3 = \\boxed{12}$.")
    assert _one(reward, invented, POWER, "12") < _one(reward, faithful, POWER, "12")
