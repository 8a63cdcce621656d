r"""MATH-500 gold derivations verifiable in reward mode: decimals, rewrite chains, stated values, congruence chains.

Four buckets, each with a gold-style trace that is now supported and its gamed variants (restated answer, unverified
relation, answer beside unrelated arithmetic) that are not:

* a decimal answer with no leading zero (``.35625``) reads as itself, not as ``35625``;
* a chain of rewrites of one unknown (``(u-3)(u+6) = u^2 - 3u + 6u - 18 = u^2 + 3u - 18``) grounds each side's
  numbers while every link is an identity (it only did for two sides);
* a value the problem states for an unknown (``If $a = 8$, ...``) may be substituted like a solved one;
* congruence chains (``129^{34}+96^{38} \equiv 3^4 + 3^3 \equiv 108 \equiv 9 \pmod{11}``) derive their residue
  (:func:`rewards.checks.claims.congruences.congruence_chains`).
"""

from fractions import Fraction

import pytest

from rewards.checks.answers import answers_equivalent, named_value, numeric_value
from rewards.checks.claims.congruences import congruence_chains
from rewards.parsing.trace import parse_trace
from rewards.evidence import build_dataflow, input_counterfactuals

from recall_cases import faithful_accuracy, supported


# ------------------------------------------------------------------------------------- decimals with no leading 0
@pytest.mark.parametrize("answer, value", [(".5", Fraction(1, 2)), (".0000672", Fraction(21, 312500)),
                                           ("$.35625$", Fraction(57, 160)), ("-.5", Fraction(-1, 2)),
                                           ("12.", Fraction(12)), ("x=.5", Fraction(1, 2))])
def test_a_decimal_with_no_leading_zero_is_read_as_itself(answer, value):
    assert named_value(answer) == value  # ".5" used to read as 5: its point was stripped as a sentence's end


def test_a_decimal_with_no_leading_zero_answers_only_itself():
    assert answers_equivalent(".5", "0.5") and not answers_equivalent(".5", "5")
    assert numeric_value("...") is None


DECIMAL = r"Express $\frac{57}{160}$ as a terminating decimal."


def test_a_terminating_decimal_is_derived_and_its_restatement_is_not():
    gold = (r"We want a denominator of the form $10^b$: $$\frac{57}{160}=\frac{57}{2^5\cdot5}\cdot\frac{5^4}{5^4}="
            r"\frac{57\cdot5^4}{10^5}=\frac{35625}{10^5}=\boxed{.35625}.$$")
    assert faithful_accuracy(DECIMAL, gold, ".35625") == 1.0
    assert faithful_accuracy(DECIMAL, r"The decimal is $\boxed{.35625}$.", ".35625") < 1.0
    assert faithful_accuracy(DECIMAL, r"$.35625 = .35625$, so the answer is $\boxed{.35625}$.", ".35625") < 1.0
    assert faithful_accuracy(DECIMAL, r"Note $57 + 160 = 217$. The decimal is $\boxed{.35625}$.", ".35625") < 1.0


# ----------------------------------------------------------------------------------------- chains of rewrites
SIMPLIFY = "Simplify $(u+4)(u-1) - (u-3)(u+6)$."
REWRITES = ("Using the distributive property, $$(u+4)(u-1) = u^2 + 4u - u - 4 = u^2 + 3u - 4.$$ "
            "The second product becomes $$(u-3)(u+6) = u^2 - 3u + 6u - 18 = u^2 + 3u - 18.$$ "
            "Subtracting, the $u^2$ and the $3u$ terms cancel, leaving $-4 - (-18) = \\boxed{14}$.")


def test_a_chain_of_rewrites_grounds_its_numbers():
    assert faithful_accuracy(SIMPLIFY, REWRITES, "14") == 1.0


@pytest.mark.parametrize("gamed", [
    "The answer is $\\boxed{14}$.",
    "$14 = 14$, so the answer is $\\boxed{14}$.",
    # an unverified relation: the last link is no identity, so its 19 is no rewrite of the problem's numbers
    REWRITES.replace("u^2 + 3u - 18.$$", "u^2 + 3u - 19.$$").replace("-4 - (-18)", "-4 - (-19)")
    .replace("= \\boxed{14}", "= 15 - 1 = \\boxed{14}"),
    "Note that $4 \\cdot 6 = 24$. The answer is $\\boxed{14}$.",
])
def test_a_gamed_chain_of_rewrites_is_not_supported(gamed):
    assert faithful_accuracy(SIMPLIFY, gamed, "14") < 1.0


def test_a_rewrite_chain_stops_at_the_first_link_that_is_no_identity():
    trace = parse_trace(SIMPLIFY, "$$(u-3)(u+6) = u^2 + 3u - 19 = u^2 + 3u - 18$$ So $-4 - (-18) = \\boxed{14}$.")
    flow = build_dataflow(trace)
    assert 14 not in flow.steps[-1].produced or not supported(SIMPLIFY, trace.text, "14")


# ---------------------------------------------------------------------------------- values the problem states
GIVEN = "If $a = 8$, what is the value of $3a^2 + 1$?"


def test_a_value_the_problem_states_is_substituted():
    gold = "We have $a^2 = 64$, so $3a^2 + 1 = 3 \\cdot 64 + 1 = \\boxed{193}$."
    assert faithful_accuracy(GIVEN, gold, "193") == 1.0
    trace = parse_trace(GIVEN, gold)
    flow = build_dataflow(trace)
    assert any(link.kind == "substituted" and link.value == 64 and link.steps == () for link in flow.links.values())
    moved = [e for e in input_counterfactuals(trace, flow) if e.old == 8]
    assert moved and all(e.moves for e in moved)  # a = 9 re-substitutes: 3 * 81 + 1


@pytest.mark.parametrize("gamed", [
    "We have $a^2 = 65$, so $3a^2 + 1 = 3 \\cdot 65 - 2 = \\boxed{193}$.",  # a^2 = 65 is no substitution
    "The value is $\\boxed{193}$.",
    "$193 = 193$, so the value is $\\boxed{193}$.",
    "Note $a + 8 = 16$. The value is $\\boxed{193}$.",
])
def test_a_gamed_substitution_of_a_stated_value_is_not_supported(gamed):
    assert faithful_accuracy(GIVEN, gamed, "193") < 1.0


# ------------------------------------------------------------------------------------------------ congruences
REMAINDER = "What is the remainder when $129^{34}+96^{38}$ is divided by $11$?"
CONGRUENCE = (r"Since $129 \equiv -3 \pmod{11}$ and $96 \equiv -3 \pmod{11}$, and $3^5 \equiv 1 \pmod{11}$, "
              r"we see that $3^{34} = (3^5)^{6} \cdot 3^4$ and $3^{38} = (3^5)^{7} \cdot 3^3.$" "\nThen "
              "\\begin{align*} 129^{34}+96^{38}&\\equiv (3^5)^{6} \\cdot 3^4 + (3^5)^{7} \\cdot 3^3\\\\ "
              "& \\equiv 3^4 + 3^3\\\\ & \\equiv 81 + 27\\\\ & \\equiv 108 \\\\ &\\equiv \\boxed{9} \\pmod{11}. "
              "\\end{align*}")


def test_congruence_chains_are_read_and_checked():
    chains = congruence_chains(CONGRUENCE)
    assert [c.values[-1] for c in chains] == [-3, -3, 1, 9]
    assert all(c.holds and c.modulus == 11 for c in chains)
    assert chains[-1].relations == ("≡",) * 5 and chains[-1].values[-2:] == (108, 9)
    assert not congruence_chains(r"$81 + 27 \equiv 108 \equiv 8 \pmod{11}$")[0].holds
    assert congruence_chains("$x = 5$, so $2x = 10$.") == [] and congruence_chains(r"$n \equiv 2 \pmod{7}$") == []


def test_a_congruence_chain_derives_its_residue():
    assert faithful_accuracy(REMAINDER, CONGRUENCE, "9") == 1.0
    trace = parse_trace(REMAINDER, CONGRUENCE)
    flow = build_dataflow(trace)
    assert flow.answer_step == len(trace.steps) - 1
    edits = {e.old: e.expected for e in input_counterfactuals(trace, flow)}
    assert edits[129] == 10 and edits[96] == 7  # re-reduced: 130^{34} + 96^{38} is 10 modulo 11


@pytest.mark.parametrize("gamed", [
    CONGRUENCE.replace("\\boxed{9}", "\\boxed{8}").replace("\\equiv 108", "\\equiv 107"),  # a false link
    r"The remainder is $\boxed{9}$.",
    r"$9 \equiv 9 \pmod{11}$, so the remainder is $\boxed{9}$.",  # restated: nothing reduced
    r"$n \equiv 9 \pmod{11}$, so the remainder is $\boxed{9}$.",
    r"$129 \equiv 8 \pmod{11}$. The remainder is $\boxed{9}$.",  # the answer beside unrelated arithmetic
    r"$129 \equiv 9 \pmod{2}$, so the remainder is $\boxed{9}$.",  # a residue no congruence mod 2 pins down
    r"$129 \equiv 9 \pmod{12}$, so the remainder is $\boxed{9}$.",  # 12 comes from nowhere
])
def test_a_gamed_congruence_is_not_supported(gamed):
    assert faithful_accuracy(REMAINDER, gamed, "9") < 1.0


# ------------------------------------------------------------- subscripted unknowns, substituted between equations
SYMMETRIC = (r"Suppose that $x,$ $y,$ and $z$ satisfy the equations \begin{align*} xyz &= 4, \\ x^3 + y^3 + z^3 &= 4, "
             r"\\ xy^2 + x^2 y + xz^2 + x^2 z + yz^2 + y^2 z &= 12. \end{align*}Calculate the value of $xy + yz + zx.$")
SUBSTITUTED = (
    "Let $s_1 = x + y + z$ and $s_2 = xy + xz + yz.$  Then\n"
    r"\begin{align*} s_1 s_2 &= (x + y + z)(xy + xz + yz) \\ &= x^2 y + xy^2 + x^2 z + xz^2 + y^2 z + yz^2 + 3xyz "
    r"\\ &= 12 + 3 \cdot 4 = 24. \end{align*}Also," "\n"
    r"\begin{align*} s_1^3 &= (x + y + z)^3 \\ &= (x^3 + y^3 + z^3) + 3(x^2 y + xy^2 + x^2 z + xz^2 + y^2 z + yz^2) "
    r"+ 6xyz \\ &= 4 + 3 \cdot 12 + 6 \cdot 4 = 64, \end{align*}so $s_1 = 4.$  Hence, $s_2 = \frac{24}{s_1} = "
    r"\boxed{6}.$")


def test_subscripted_unknowns_are_read_as_unknowns():
    from rewards.checks.algebra import follows, substitutes, unknowns

    assert unknowns("s_1 s_2") == frozenset({"s_1", "s_2"}) and unknowns("r_1r_2r_3") == {"r_1", "r_2", "r_3"}
    assert unknowns("x_{12} + 1") == frozenset({"x_12"})
    assert substitutes(r"\frac{24}{s_1}", {"s_1": Fraction(4)}) == 6
    assert follows("s_1^3 = 64", "s_1 = 4") is True and follows("s_1^3 = 64", "s_1 = 5") is False
    assert follows("s_1 s_2 = 24", "s_2 = 6", {"s_1": Fraction(4)}) is True


def test_a_solved_value_substituted_into_an_earlier_equation_is_linked():
    # The whole gold no longer earns full credit: its chain "s_1^3 = (x + y + z)^3 = … + 6xyz = 4 + 3 \cdot 12 + 6
    # \cdot 4 = 64" opens with unknowns, so its numbers are checked one by one and the expansion's 6 is a constant
    # from nowhere (a chain opened by a name or an unknown hid any number: "x = 16 \cdot 3 - 366 = 18" earned the
    # gold's reward on every GSM8K problem). What still holds: s_2 = 6 follows by algebra and is the answer's step.
    from rewards.evidence import build_dataflow
    from rewards.parsing.trace import parse_trace

    flow = build_dataflow(parse_trace(SYMMETRIC, SUBSTITUTED))
    assert any(link.kind == "followed" and link.value == 6 for link in flow.links.values())
    assert flow.answer_step == len(flow.steps) - 1


@pytest.mark.parametrize("gamed", [
    SUBSTITUTED.replace("so $s_1 = 4.$", "so $s_1 = 5.$").replace("= 64, ", "= 125, ")
    .replace(r"4 + 3 \cdot 12 + 6 \cdot 4", r"4 + 3 \cdot 12 + 6 \cdot 4 + 61"),  # 61 from nowhere
    SUBSTITUTED.replace("so $s_1 = 4.$", "so $s_1 = 5.$"),  # s_1 = 5 does not follow from s_1^3 = 64
    r"Hence $s_2 = \boxed{6}$.",
    r"Note $4 + 12 = 16$. Hence $s_2 = \boxed{6}$.",
])
def test_a_gamed_substitution_between_equations_is_not_supported(gamed):
    assert faithful_accuracy(SYMMETRIC, gamed, "6") < 1.0


# -------------------------------------------------------------------------------- a LaTeX percent in the problem
DISCOUNT = (r"A shirt's sale price is marked $\$14.40$, which is $60\%$ off the original price. How many dollars was "
            r"the original price of the shirt?")


def test_a_latex_percent_in_the_problem_is_a_percent():
    from rewards.evidence import problem_numbers

    assert {Fraction(60), Fraction(3, 5), Fraction(2, 5), Fraction(8, 5)} <= problem_numbers(DISCOUNT)
    assert Fraction(2, 5) not in problem_numbers(r"It costs $\$14.40$ and $60$ of them were sold.")


def test_a_price_before_a_latex_percent_discount_is_derived():
    gold = ("If the shirt is $60\\%$ off, it is currently $.4$ of the original price.  Thus the original price was\n"
            "$$\\frac{\\$14.40}{.4}=\\boxed{\\$36}$$")
    assert faithful_accuracy(DISCOUNT, gold, "\\$36") == 1.0


@pytest.mark.parametrize("gamed", [
    r"The original price was $\boxed{\$36}$.",
    r"$36 = 36$, so the original price was $\boxed{\$36}$.",
    r"$\$14.40 + \$21.60 = \boxed{\$36}$",  # 21.60 from nowhere
    r"Note $60 - 14.40 = 45.60$. The original price was $\boxed{\$36}$.",
])
def test_a_gamed_price_before_a_discount_is_not_supported(gamed):
    assert faithful_accuracy(DISCOUNT, gamed, "\\$36") < 1.0


# ------------------------------------------------------------------------------------ a polygon's sides, by name
POLYGONS = ("A regular octagon has the same perimeter as the regular hexagon shown here with side length 16 cm.  How "
            "long is each side of the octagon?")


def test_a_polygon_named_in_the_problem_states_its_sides():
    from rewards.evidence import problem_numbers

    assert {Fraction(6), Fraction(8), Fraction(16)} <= problem_numbers(POLYGONS)
    assert Fraction(5) in problem_numbers("A regular pentagon is rotated about its center.")
    assert Fraction(8) not in problem_numbers("Each side of the hexagon is 16 cm.")


def test_a_perimeter_shared_by_two_polygons_is_derived():
    gold = ("The hexagon has a side length of 16 centimeters, so its perimeter is $16\\times 6 = 96$ centimeters. "
            "Since the octagon and the hexagon have the same perimeter, it follows that each side of the octagon has "
            "a length of $96/8 = \\boxed{12}$ centimeters.")
    assert faithful_accuracy(POLYGONS, gold, "12") == 1.0


@pytest.mark.parametrize("gamed", [
    r"Each side is $\boxed{12}$ centimeters.",
    r"$12 = 12$, so each side is $\boxed{12}$ centimeters.",
    r"Each side is $96/8 = \boxed{12}$ centimeters.",  # 96 from nowhere
    r"The perimeter is $16 \times 9 = 144$, so each side is $144/12 = \boxed{12}$ cm.",  # no nonagon in the problem
])
def test_a_gamed_perimeter_is_not_supported(gamed):
    assert faithful_accuracy(POLYGONS, gamed, "12") < 1.0


def test_a_bare_two_digit_subscript_is_not_one_name():
    from rewards.checks.algebra import unknowns

    assert unknowns("x_12 + 1") is None  # LaTeX sets x_12 as x_1 2: not read, never the unknown "x_12"
    assert unknowns("x_{12} + 1") == frozenset({"x_12"}) and unknowns("x_1^2") == frozenset({"x_1"})
