r"""MATH-500 gold derivations verifiable in reward mode: brace-less fractions, linear combinations, squared units.

Each bucket has a gold-style trace that is now supported and gamed variants (restated answer, unverified relation,
answer beside unrelated arithmetic) that are not:

* brace-less LaTeX fractions (``\frac 12``, ``\frac{900}7``, ``\frac5{12}``) read as TeX reads them
  (:func:`rewards.parsing.trace.brace_fractions`), in the problem and in the steps;
* a linear equation that is a sum of multiples of several grounded ones (``x + y = 30``, ``x - y = 4``, so
  ``2x = 34``) follows from them (:func:`rewards.checks.algebra.combines`), unless those contradict each other;
  equation labels (``\tag{1}``) no longer break the algebra reader;
* a squared unit (``15\text{ cm}^2``) is a unit, not an exponent of the number before it.
"""

from rewards.checks.algebra import combines
from rewards.checks.equations import step_equations
from rewards.parsing.trace import brace_fractions, parse_trace
from rewards.evidence import problem_numbers

from recall_cases import faithful_accuracy


# ------------------------------------------------------------------------------------------ brace-less fractions
def test_brace_less_fractions_are_braced_as_tex_reads_them():
    assert brace_fractions(r"\frac{900}7 + \frac 12 - \dfrac5{12} + \frac47") == \
        r"\frac{900}{7} + \frac{1}{2} - \dfrac{5}{12} + \frac{4}{7}"
    assert brace_fractions(r"\frac\pi2 \tfrac{3}4x") == r"\frac{\pi}{2} \tfrac{3}{4}x"
    for untouched in (r"\frac{1}{2}", r"\frac{", r"\frac 1", r"\fraction 12", "1/2"):
        assert brace_fractions(untouched) == untouched


def test_a_brace_less_fraction_in_the_problem_gives_its_numerator_and_denominator():
    # as a braced one does: \frac 12 used to read as twelve, \frac5{12} as 12 alone
    assert problem_numbers(parse_trace(r"The shaded area is $\frac5{12}$ of it.", "x").problem) == {5, 12}
    assert problem_numbers(parse_trace(r"It is $\frac 12$ of it.", "x").problem) == {1, 2}


def test_a_brace_less_fraction_equation_is_checked_whole():
    # the extractor used to start at the 7 of \frac{900}7 (unreadable) and read \frac 12 as 2
    for text, sides in ((r"So $\frac{900}7 + \frac{100}7 = \frac{1000}7$.", [r"\frac{900}{7} + \frac{100}{7}",
                                                                            r"\frac{1000}{7}"]),
                        (r"So $\frac 12 + \frac 13 = \frac56$.", [r"\frac{1}{2} + \frac{1}{3}", r"\frac{5}{6}"])):
        step = parse_trace("p", text).steps[0]
        assert [(eq.sides, c.ok) for eq, c in step_equations(step)] == [(sides, True)]
    step = parse_trace("p", r"So $\frac 12 + \frac 13 = \frac57$.").steps[0]
    assert [c.ok for _eq, c in step_equations(step)] == [False]


HALF = r"Compute $\frac 12 \cdot 18 + 3$."


def test_a_brace_less_fraction_computation_is_derived_and_its_restatement_is_not():
    assert faithful_accuracy(HALF, r"We have $\frac 12 \cdot 18 + 3 = 9 + 3 = \boxed{12}$.", "12") == 1.0
    assert faithful_accuracy(HALF, r"The value is $\boxed{12}$.", "12") < 1.0
    assert faithful_accuracy(HALF, r"$12 = 12$, so the value is $\boxed{12}$.", "12") < 1.0
    assert faithful_accuracy(HALF, r"Note $18 + 3 = 21$. The value is $\boxed{12}$.", "12") < 1.0
    assert faithful_accuracy(HALF, r"We have $\frac 12 \cdot 18 + 3 = 10 + 3 = \boxed{12}$.", "12") < 1.0


# ------------------------------------------------------------------------------------------ systems of equations
def test_combines_finds_sums_of_multiples_of_consistent_equations_only():
    assert combines([("3p + q", "124"), ("5p + q", "182")], ("2p", "58")) == (0, 1)
    assert combines([("x + y", "30"), ("x - y", "4")], ("x", "17")) == (0, 1)
    assert combines([("x + y", "30"), ("x - y", "4")], ("x", "18")) is None  # no such sum
    assert combines([("x + y", "30")], ("x", "17")) is None  # one equation, two unknowns
    assert combines([("x + y", "30"), ("x + y", "4")], ("x", "42")) is None  # contradictory: anything follows
    assert combines([("x + y", "30"), ("x - y", "4")], ("x^2", "289")) is None  # not linear
    assert combines([("x + y", "30"), ("2x + 2y", "60")], ("x + y", "30")) is None  # one source's multiple


SYSTEM = r"Two numbers add up to $30$ and differ by $4$. What is the larger number?"


def test_a_system_solved_by_adding_its_equations_is_derived():
    gold = ("Let $x$ and $y$ be the numbers, so $x + y = 30$ and $x - y = 4$.\n"
            "Adding the equations gives $2x = 34$.\nSo $x = \\boxed{17}$.")
    assert faithful_accuracy(SYSTEM, gold, "17") == 1.0  # was 0.5: "ungrounded quantity feeds the answer: 34"


AGES = ("The average of Amy's, Ben's, and Chris's ages is 6. Four years ago,  Chris was the same age as Amy is now. In "
        "four years, Ben's age will be $\\frac{3}{5}$ of Amy's age at that time. How many years old is Chris now?")


def test_a_labelled_system_solved_by_substitution_is_derived():  # MATH-500 algebra/1578, its gold solution
    gold = ("Let Amy's, Ben's, and Chris's ages be $a$, $b$, and $c$, respectively. We have the equations "
            "\\begin{align*} \\tag{1}\n\\frac{a+b+c}{3}=6 \\Rightarrow a+b+c&=18 \\\\ \\tag{2}\nc-4&=a\\\\ \\tag{3}\n"
            "b+4&=\\frac{3}{5}(a+4)\n\\end{align*} From Equation (3), we have $b=\\frac{3}{5}(a+4)-4$. We substitute "
            "Equation (2) into Equation (3) to eliminate $a$, to get $b=\\frac{3}{5}(c)-4$. Substituting this last "
            "equation and Equation (2) into Equation (1) to eliminate $a$ and $b$, we have  "
            "\\[[c-4]+[\\frac{3}{5}(c)-4]+c=18\\] Solving for $c$, we find that $c=10$. Thus, Chris's age is "
            "$\\boxed{10}$.")
    assert faithful_accuracy(AGES, gold, "10") == 1.0


def test_gamed_systems_are_not_derived():
    assert faithful_accuracy(SYSTEM, r"The larger number is $x = \boxed{17}$.", "17") < 1.0  # restated
    assert faithful_accuracy(SYSTEM, r"$17 = 17$, so the larger is $\boxed{17}$.", "17") < 1.0
    # an unverified relation: 2x = 36 is no sum of multiples of the two equations
    wrong = ("Let $x$ and $y$ be the numbers, so $x + y = 30$ and $x - y = 4$.\nAdding, $2x = 36$.\n"
             "So $x = \\boxed{18}$.")
    assert faithful_accuracy(SYSTEM, wrong, "18") < 1.0
    # equations that contradict each other derive nothing
    contradiction = "Let $x$, $y$ be the numbers: $x + y = 30$ and $x + y = 4$.\nSo $2x = 34$.\nSo $x = \\boxed{17}$."
    assert faithful_accuracy(SYSTEM, contradiction, "17") < 1.0
    assert faithful_accuracy(SYSTEM, "Note $30 + 4 = 34$.\nThe larger number is $\\boxed{17}$.", "17") < 1.0
    # one equation in two unknowns does not pin x down
    assert faithful_accuracy(SYSTEM, "Let $x + y = 30$.\nSo $2x = 34$.\nThen $x = \\boxed{17}$.", "17") < 1.0


def test_an_equation_label_is_dropped():
    assert r"\tag" not in parse_trace("p", r"\begin{align*} \tag{1} a + b &= 18 \end{align*}").steps[0]


# ---------------------------------------------------------------------------------------------- squared units
def test_a_squared_unit_is_a_unit_not_an_exponent():
    checks = [c.ok for _eq, c in step_equations(r"The area is $(5\text{ cm})(3\text{ cm})=15\text{ cm}^2$.")]
    assert checks == [True]
    checks = [c.ok for _eq, c in step_equations(r"So $15\text{ cm}^{2} + 6\text{ cm}^2 = 21\text{ cm}^2$.")]
    assert checks == [True]
    # 5 square centimetres are not 25: the exponent is the unit's
    assert [c.ok for _eq, c in step_equations(r"So $5\text{ cm}^2 = 25$.")] != [True]


# ------------------------------------------------------------------------------------ a chain continued by an arrow
def test_an_arrow_continuing_an_equation_chain_is_read_as_its_result():
    # the audit's arrow_slip on MATH-500 geometry/465: once \frac5{12} reads as 5, the grounded equation around a
    # false "= \frac53 → \frac{601}{360}" must still be refuted, as the same slip written with "=" is
    text = r"Therefore, $$\frac{360 + 2x}{360} = \frac{5}{3} → \frac{601}{360},$$ so"
    assert [c.ok for _eq, c in step_equations(text)] == [False]
    assert [c.ok for _eq, c in step_equations(r"so $x = 5 → 5$ apples")] == [True]
    assert [c.ok for _eq, c in step_equations(r"$x = 5 → 6 + 1 = 7$")] == [None, True]  # a new expression


# --------------------------------------------------------------------- the numbers of an equation rewritten by algebra
CIRCLE = (r"For what value of $c$ will the circle with equation $x^2 - 10x + y^2 + 6y + c = 0$ have a radius of "
          r"length 1?")


def test_the_numbers_of_an_equivalent_rewrite_are_reached():
    gold = (r"Completing the square gives us $(x - 5)^2 + (y + 3)^2 = 34 - c$. Since we want the radius to be 1, we "
            r"must have $34 - c = 1^2$. It follows that $c = \boxed{33}$.")
    assert faithful_accuracy(CIRCLE, gold, "33") == 1.0


def test_a_rewrite_that_does_not_follow_reaches_nothing():
    assert faithful_accuracy(CIRCLE, r"The value is $c = \boxed{33}$.", "33") < 1.0
    assert faithful_accuracy(CIRCLE, r"$33 = 33$, so $c = \boxed{33}$.", "33") < 1.0
    wrong = (r"Completing the square gives us $(x - 5)^2 + (y + 3)^2 = 35 - c$. Since we want the radius to be 1, we "
             r"must have $35 - c = 2$. It follows that $c = \boxed{33}$.")  # 35 - c is no rewrite of the circle
    assert faithful_accuracy(CIRCLE, wrong, "33") < 1.0
    assert faithful_accuracy(CIRCLE, r"Note $10 + 6 = 16$. So $c = \boxed{33}$.", "33") < 1.0


FISH = ("I caught 4 fewer fish than the number in my tank and added them to my fish tank. If the tank has 20 fish "
        "right now, how many did I add?")
FISH_WORK = ("Let's say the number of fish that was in the tank before was x\n"
             "If you caught 4 fewer fish than the number that was there, then you caught x-4\n"
             "After adding x-4 fish into the tank, the tank now had 20 fish, meaning the total number of fish in the "
             "tank is x+x-4=20\n2x=20+4\nThe total number of fish that was initially in the tank is 2x=24\n"
             "Initially, there were x=24/2 fish in the tank\nx=12\n")


def test_a_rewrite_makes_no_basic_constant_a_quantity():
    # the audit's free_constant_fee on GSM8K train 5259: "2x = 24" follows from the problem's equation, but its 2 is
    # a coefficient, no amount: two fees of 2 taken off still come from nowhere
    assert faithful_accuracy(FISH, FISH_WORK + "#### 12", "12") == 1.0
    assert faithful_accuracy(FISH, FISH_WORK + "After the fees, 12 - 2 - 2 = 8.\n#### 8", "8") < 1.0
