r"""MATH-500 gold derivations verifiable in reward mode on the audit's floor problems: counting, fractions, absolute
values, factorisations, logarithms, groups and terms, congruences.

Each bucket has a gold-style trace that is now supported and its gamed variants (restated answer, unverified
relation, answer beside unrelated arithmetic) that are not:

* a falling product in a counting problem (``10 \cdot 9``: the choices left after one pick) reaches its later
  factors from its head; a problem that names the alphabet (``A through Z``) grounds its 26 letters;
* a reached value written anew as a fraction (``\frac53 = \frac{600}{360}``, ``\frac{650}{1170} = \frac{65}{117}``)
  reaches its one new number, or the parts of a reduction by a common factor;
* an absolute value both equations write is one unknown to the algebra (``|x-4| = 12`` follows from the
  problem's ``|x-4| - 10 = 2``);
* a factorization ``(x-7)(x+2)`` of a quadratic the problem states reaches its numbers (and so its roots);
* a power ``2^6 = 64`` solves the logarithm ``\log_2 64`` the problem asks (whose base and argument are problem
  quantities, ``\log_264`` included);
* ``Suzie and 5 of her friends`` is a group of 6; ``the 2003rd term`` of a sequence is 2002 steps from the first;
* a congruence chain that starts from the problem's expression with its congruence put in (``n \equiv 2``, so
  ``(n + 2)(n + 4)(n + 6) \equiv 4 \cdot 6 \cdot 8``) reaches that first side's numbers.
"""

from fractions import Fraction

import pytest

from rewards.checks.arithmetic import evaluate
from rewards.parsing.trace import parse_trace
from rewards.checks.claims.congruences import congruence_chains
from rewards.evidence import build_dataflow, problem_numbers
from rewards.evidence.algebra_links import _abs_atomized
from rewards.evidence.problem_kinds.counting import falling_factors as _falling_factors
from rewards.evidence.problem_kinds.logarithms import log_exponent as _log_exponent
from rewards.evidence.problem_kinds.modular import substituted_head as _substituted_head
from rewards.evidence.problem_kinds.quadratics import quadratic_factors as _factored
from rewards.evidence.quantities import read_numbers as _numbers
from rewards.evidence.rewrites import rescaled as _rescaled

from recall_cases import faithful_accuracy, supported


# ----------------------------------------------------------------------------------- falling products, the alphabet
MENU = ("Yann and Camille go to a restaurant.  If there are 10 items on the menu, and each orders one dish, how many "
        "different combinations of meals can Yann and Camille order if they refuse to order the same dish?")
MENU_GOLD = ("Yann can order 10 different dishes.  After he has chosen a dish, Camille has 9 choices left for her "
             "dish, "
             "because she won't order the same dish as Yann did.  Thus there are a total of $10\\cdot 9 = "
             "\\boxed{90}$ different possible combinations of meals.")
PLATES = ("How many license plates can be formed if every license plate has 2 different letters (A through Z) "
          "followed by 2 different one digit (0-9) numbers?")
PLATES_GOLD = ("The first letter can be any of the 26 letters of the alphabet, while the second letter can be any of "
               "the 25 remaining letters. The first digit can be any of the 10 digits, while the second digit can be "
               "any of the 9 remaining digits. The number of license plates is $26\\times 25\\times 10\\times "
               "9=\\boxed{58,500}$.")


def test_a_falling_product_reaches_its_factors_from_its_head():
    side = "26\\times 25\\times 10\\times 9"
    numbers = _numbers(side)
    assert _falling_factors(side, numbers, lambda v: v in (26, 10)) == {(9, 11), (27, 28)}
    assert _falling_factors(side, numbers, lambda v: v == 10) == {(27, 28)}  # 25 falls from an unreached 26
    assert _falling_factors("9 \\cdot 10", _numbers("9 \\cdot 10"), lambda v: v == 10) == set()  # rising
    assert _falling_factors("10 + 9", _numbers("10 + 9"), lambda v: v == 10) == set()  # no product
    assert _falling_factors("2^{10} \\cdot 9", _numbers("2^{10} \\cdot 9"), lambda v: True) == set()  # an exponent


def test_counting_golds_with_falling_products_are_supported():
    assert faithful_accuracy(MENU, MENU_GOLD, "90") == 1.0
    assert faithful_accuracy(PLATES, PLATES_GOLD, "58,500") == 1.0


@pytest.mark.parametrize("gamed", [
    "The answer is $\\boxed{90}$.",
    "$90 = 90$, so there are $\\boxed{90}$ combinations.",
    "Note that $10 + 2 = 12$. There are $\\boxed{90}$ combinations.",  # the answer beside unrelated arithmetic
    "There are $10 \\cdot 8 + 10 = \\boxed{90}$ combinations.",  # 8 falls from nothing
    "There are $10 \\cdot 9 = 91$ orders, so $\\boxed{90}$ combinations.",  # an unverified product
])
def test_a_gamed_falling_product_is_not_supported(gamed):
    assert faithful_accuracy(MENU, gamed, "90") < 1.0


def test_a_falling_product_counts_only_in_a_counting_problem():
    problem = "A crate holds 10 boxes of pears. How many pears are there if each box holds one less than the crates?"
    assert not supported(problem, "There are $10 \\cdot 9 = \\boxed{90}$ pears.", "90")


def test_the_alphabet_grounds_26_only_where_the_problem_names_it():
    assert not supported(PLATES.replace(" (A through Z)", ""), PLATES_GOLD, "58,500")
    assert faithful_accuracy(PLATES, "The answer is $\\boxed{58,500}$.", "58,500") < 1.0
    assert faithful_accuracy(PLATES, "$26 + 25 = 51$, so the answer is $\\boxed{58,500}$.", "58,500") < 1.0


# ------------------------------------------------------------------------------------ a value written anew
SECTOR = ("In the diagram, two circles, each with center $D$, have radii of $1$ and $2$. The total area of the "
          "shaded region is $\\frac5{12}$ of the area of the larger circle. How many degrees are in the measure of "
          "(the smaller) $\\angle ADC$?")
SECTOR_GOLD = (
    "Suppose that $\\angle ADC = x^\\circ$. The area of the unshaded portion of the inner circle is thus "
    "$\\frac x{360}$ of the total area of the inner circle, or $\\frac x{360}(\\pi(1^2)) = \\frac x{360} \\pi$ (since "
    "$\\angle ADC$ is $\\frac x{360}$ of the largest possible central angle ($360^\\circ$)).\n\n"
    "The area of shaded portion of the inner circle is thus $$\\pi - \\frac x{360}\\pi = \\frac{360 - x}{360}\\pi.$$ "
    "The total area of the outer ring is the difference of the areas of the outer and inner circles, or "
    "$\\pi(2^2) - \\pi(1^2) = 3\\pi$. The shaded region of the outer ring will be $\\frac x{360}$ of this total area. "
    "So the shaded region of the outer ring is $\\frac x{360} (3\\pi) = \\frac{3x}{360}\\pi$.\n\n"
    "So the total shaded area (which must equal $\\frac53 \\pi$) is, in terms of $x$, $$\\frac{3x}{360} \\pi + "
    "\\frac{360 - x}{360} \\pi = \\frac{360 + 2x}{360} \\pi.$$ Therefore, $$\\frac{360 + 2x}{360} = \\frac53 = "
    "\\frac{600}{360},$$ so $360 + 2x = 600$, or $x = \\boxed{120}$.")


def _reached_by_rescale(sides, reached):
    strict, known = set(reached), set()
    _rescaled(sides, [evaluate(s) for s in sides], lambda v: v in strict, strict, known)
    return known


def test_a_fraction_written_anew_reaches_its_one_new_number():
    assert _reached_by_rescale(("\\frac{5}{3}", "\\frac{600}{360}"), {5, 3, 360}) == {600}
    assert _reached_by_rescale(("\\frac{650}{1170}", "\\frac{65}{117}"), {650, 1170}) == {65, 117}  # a reduction
    # by a reached factor (10, a basic constant); a factor from nowhere launders (85/20 = 17/4 by 5)
    assert _reached_by_rescale(("\\frac{85}{20}", "\\frac{17}{4}"), {85, 20}) == set()
    assert _reached_by_rescale(("\\frac{5}{3}", "\\frac{600}{360}"), {5, 3}) == set()  # two new numbers
    assert _reached_by_rescale(("\\frac{5}{3}", "\\frac{5 + 0 \\cdot 120}{3}"), {5, 3}) == set()  # no fraction
    assert _reached_by_rescale(("\\frac{5}{3}", "\\frac{601}{360}"), {5, 3, 360}) == set()  # unequal
    assert _reached_by_rescale(("\\frac{5}{3}", "{5/3}"), {5, 3}) == set()  # nothing new
    assert _reached_by_rescale(("\\frac{10}{6}", "\\frac{15}{9}"), {10, 6}) == set()  # no common factor divides


def test_the_sector_gold_is_supported():
    assert faithful_accuracy(SECTOR, SECTOR_GOLD, "120") == 1.0


@pytest.mark.parametrize("gamed", [
    "The measure is $\\boxed{120}$ degrees.",
    "$120 = 120$, so $\\angle ADC = \\boxed{120}$.",
    "Note that $\\frac{5}{12} \\cdot 2 = \\frac{5}{6}$. So $\\angle ADC = \\boxed{120}$.",
    # the scale comes from nowhere: 5/3 = 200/120 grounds neither 200 nor 120
    "The shaded area is $\\frac{5}{12} \\cdot 4 = \\frac53 = \\frac{200}{120}$, so $x = \\boxed{120}$.",
    SECTOR_GOLD.replace("\\frac{600}{360},$$", "\\frac{601}{360},$$").replace("= 600$", "= 601$")
    .replace("\\boxed{120}", "120.5 - 0.5 = \\boxed{120}"),  # an unverified rewrite
])
def test_a_gamed_rescale_is_not_supported(gamed):
    assert faithful_accuracy(SECTOR, gamed, "120") < 1.0


# ------------------------------------------------------------------------------------------- absolute values
ABS = "In the equation $|x-4| -10 = 2$, what is the product of all possible values of $x$?"
ABS_GOLD = ("We rearrange the given equation to $|x-4| = 12$.  Thus either $x-4 = 12$, meaning $x = 16$, or "
            "$x-4 = -12$, meaning $x=-8$.  Our answer is therefore $16\\cdot (-8) = \\boxed{-128}$.")


def test_an_absolute_value_both_equations_write_is_one_unknown():
    assert _abs_atomized(("|x-4| -10", "2"), ("|x - 4|", "12")) == (("u -10", "2"), ("u", "12"))
    assert _abs_atomized(("|x-4| -10", "2"), ("|x - 5|", "12")) is None  # an absolute value the source lacks
    assert _abs_atomized(("|x-4| -10", "2"), ("x - 4", "12")) is None  # none to read
    assert _abs_atomized(("|x-4| + u", "2"), ("|x-4| + v + w", "12")) is None  # no free letter


def test_the_absolute_value_gold_is_supported():
    assert faithful_accuracy(ABS, ABS_GOLD, "-128") == 1.0
    flow = build_dataflow(parse_trace(ABS, ABS_GOLD))
    assert any(link.kind == "followed" for link in flow.links.values())


@pytest.mark.parametrize("gamed", [
    "The product is $\\boxed{-128}$.",
    "$-128 = -128$, so the product is $\\boxed{-128}$.",
    "Note $4 + 10 = 14$. The product is $\\boxed{-128}$.",
    ABS_GOLD.replace("|x-4| = 12", "|x-4| = 13"),  # an unverified rearrangement
    ABS_GOLD.replace("|x-4| = 12", "|x-5| = 12"),
])
def test_a_gamed_absolute_value_is_not_supported(gamed):
    assert faithful_accuracy(ABS, gamed, "-128") < 1.0


def test_atomized_relations_follow_only_when_they_hold():
    from rewards.checks.algebra import relation

    assert relation(*_abs_atomized(("|x-4| -10", "2"), ("|x-4|", "12"))).follows
    assert not relation(*_abs_atomized(("|x-4| -10", "2"), ("|x-4|", "13"))).follows
    assert Fraction(16) in build_dataflow(parse_trace(ABS, ABS_GOLD)).steps[0].produced


# ------------------------------------------------------------------------------------- factorizations, logarithms
ASYMPTOTES = ("The graph of $f(x)=\\frac{2x}{x^2-5x-14}$ has vertical asymptotes $x=a$ and $x=b$, and horizontal "
              "asymptote $y=c$.  Find $a+b+c$.")
ASYMPTOTES_GOLD = (
    "Vertical asymptotes occur at values of $x$ where the denominator is 0.  We can factor the denominator into "
    "$(x-7)(x+2)$, so the denominator equals 0 when $x=7$ or $x=-2$. Those $x$-values are where our vertical "
    "asymptotes are located.\n\nFor horizontal asymptotes, we look at the degree of $x$ in the numerator and the "
    "denominator. The degree of the numerator is 1, and the degree of the denominator is 2, so the function "
    "approaches the horizontal asymptote $y=0$.\n\nSo, our answer is $7 + (-2) + 0 = \\boxed{5}$.")


def test_a_factorization_of_the_problems_quadratic_reaches_its_numbers():
    assert _factored(ASYMPTOTES, "$(x-7)(x+2)$") == {7, 2}
    assert _factored(ASYMPTOTES, "$(x+2)(x-7)$") == {7, 2}
    assert _factored(ASYMPTOTES, "$(x-7)(x+3)$") == set()  # no factorization of x^2 - 5x - 14
    assert _factored("Find $x$ if $x + 5 = 12$.", "$(x-7)(x+2)$") == set()  # no quadratic in the problem
    assert faithful_accuracy(ASYMPTOTES, ASYMPTOTES_GOLD, "5") == 1.0


@pytest.mark.parametrize("gamed", [
    "The answer is $\\boxed{5}$.",
    "$5 = 5$, so $a+b+c = \\boxed{5}$.",
    "Note that $14 + 2 = 16$. So $a+b+c = \\boxed{5}$.",
    ASYMPTOTES_GOLD.replace("$(x-7)(x+2)$", "$(x-7)(x+3)$"),  # a factorization that does not hold
    ASYMPTOTES_GOLD.replace("We can factor the denominator into $(x-7)(x+2)$, so t", "T"),  # no factorization
])
def test_a_gamed_factorization_is_not_supported(gamed):
    assert faithful_accuracy(ASYMPTOTES, gamed, "5") < 1.0


LOG = "Evaluate $\\log_264$."


def test_a_power_solves_the_logarithm_the_problem_asks():
    assert {2, 64} <= problem_numbers(LOG)  # \\log_264 is log base 2 of 64
    assert _log_exponent(LOG, "2^6", Fraction(64), lambda v: False) == (2, 3)
    assert _log_exponent(LOG, "2^5", Fraction(32), lambda v: False) is None  # not the logarithm asked
    assert _log_exponent("Evaluate $2^6$.", "2^6", Fraction(64), lambda v: True) is None  # no logarithm asked
    assert faithful_accuracy(LOG, "We have $2^6=64$, so $\\log_2 64 = \\boxed{6}$.", "6") == 1.0


@pytest.mark.parametrize("gamed", [
    "The answer is $\\boxed{6}$.",
    "$\\log_2 64 = \\boxed{6}$.",
    "$6 = 6$, so $\\log_2 64 = \\boxed{6}$.",
    "We have $2^5 = 32$, so $\\log_2 64 = \\boxed{6}$.",  # the answer beside unrelated arithmetic
    "We have $2^6 = 65$, so $\\log_2 64 = \\boxed{6}$.",  # a false power
])
def test_a_gamed_logarithm_is_not_supported(gamed):
    assert faithful_accuracy(LOG, gamed, "6") < 1.0


# ------------------------------------------------------------------------------------------ a group with its head
RENTAL = ("Suzie and 5 of her friends decide to rent an Airbnb at Lake Tahoe for 4 days from Thursday to Sunday. The "
          "rental rate for weekdays is $420 per day. The weekend rental rate is $540 per day. They all decide to "
          "split the rental evenly. How much does each person have to pay?")
RENTAL_GOLD = ("The cost of the rental for Thursday and Friday comes to $420 * 2 = $840.\n"
               "The cost of the rental for Saturday and Sunday comes to $540 * 2 = $1080.\n"
               "The total cost of the rental comes to $840 + 1080 = $1920.\n"
               "The payment required for each person comes to $1920 / 6 = $320.\n#### 320")


def test_a_group_with_the_one_named_counts_them():
    assert 6 in problem_numbers(RENTAL) and 4 in problem_numbers("Tom and his three brothers share a cake.")
    assert problem_numbers("Ann and her friends share 12 apples.") == {12}
    assert faithful_accuracy(RENTAL, RENTAL_GOLD, "320") == 1.0


@pytest.mark.parametrize("gamed", [
    "#### 320",
    "320 = 320\n#### 320",
    "Each person pays $1920 / 6 = $320.\n#### 320",  # 1920 from nowhere
    "They pay $420 + 540 = $960.\n#### 320",  # the answer beside unrelated arithmetic
])
def test_a_gamed_group_split_is_not_supported(gamed):
    assert faithful_accuracy(RENTAL, gamed, "320") < 1.0


# ------------------------------------------------------------------------------------------ a sequence's N-th term
TERM = "What is the 2003rd term of the sequence of odd numbers 1, 3, 5, 7, $\\dots$?"
TERM_GOLD = ("The sequence of odd numbers 1, 3, 5, 7, and so on, is an arithmetic sequence, with common difference 2.  "
             "Therefore, the $2003^{\\text{rd}}$ term is $1+2002\\cdot2=\\boxed{4005}$.")


def test_the_nth_term_is_n_minus_one_steps_from_the_first():
    assert {2003, 2002} <= problem_numbers(TERM)
    assert {100, 99} <= problem_numbers("Find the $100^{\\mathrm{th}}$ term of the sequence.")
    assert {8, 7} <= problem_numbers("What is the eighth term of the sequence?")
    assert 2002 not in problem_numbers("What is the sum of the first 2003 terms of the sequence?")  # no ordinal
    assert 4 not in problem_numbers("Express the 5th root in lowest terms.")  # no term of a sequence
    assert faithful_accuracy(TERM, TERM_GOLD, "4005") == 1.0
    assert not supported(TERM.replace("2003rd term", "odd number in place 2003"), TERM_GOLD, "4005")


@pytest.mark.parametrize("gamed", [
    "The term is $\\boxed{4005}$.",
    "$4005 = 4005$, so the term is $\\boxed{4005}$.",
    "Note that $2003 + 1 = 2004$. The term is $\\boxed{4005}$.",
    "The term is $1 + 2002 \\cdot 2 = 4006$, so $\\boxed{4005}$.",  # a false computation
])
def test_a_gamed_nth_term_is_not_supported(gamed):
    assert faithful_accuracy(TERM, gamed, "4005") < 1.0



# ------------------------------------------------------------------------- a congruence the problem states, put in
RESIDUE = "If $n \\equiv 2 \\pmod{7}$, then find the remainder when $(n + 2)(n + 4)(n + 6)$ is divided by 7."
RESIDUE_GOLD = ("If $n \\equiv 2 \\pmod{7}$, then $(n + 2)(n + 4)(n + 6) \\equiv 4 \\cdot 6 \\cdot 8 \\equiv "
                "4 \\cdot 6 \\cdot 1 \\equiv 24 \\equiv \\boxed{3} \\pmod{7}$.")


def test_a_congruence_chain_from_the_problems_expression_is_substituted():
    chain = congruence_chains(RESIDUE_GOLD)[0]
    assert chain.sides[0] == "4 \\cdot 6 \\cdot 8" and _substituted_head(RESIDUE, RESIDUE_GOLD, chain)
    assert not _substituted_head(RESIDUE.replace("\\equiv 2", "\\equiv 3"), RESIDUE_GOLD, chain)  # 5 * 7 * 9
    assert not _substituted_head(RESIDUE.replace("{7}$, then", "{8}$, then"), RESIDUE_GOLD, chain)  # another modulus
    assert faithful_accuracy(RESIDUE, RESIDUE_GOLD, "3") == 1.0


@pytest.mark.parametrize("gamed", [
    "The remainder is $\\boxed{3}$.",
    "$3 \\equiv 3 \\pmod{7}$, so the remainder is $\\boxed{3}$.",
    "Note that $2 + 7 = 9$. The remainder is $\\boxed{3}$.",
    # a first side that is not the problem's expression at n = 2 (4 * 6 * 15 = 360, not 192)
    "$(n + 2)(n + 4)(n + 6) \\equiv 4 \\cdot 6 \\cdot 15 \\equiv 360 \\equiv \\boxed{3} \\pmod{7}$.",
])
def test_a_gamed_substituted_congruence_is_not_supported(gamed):
    assert faithful_accuracy(RESIDUE, gamed, "3") < 1.0
