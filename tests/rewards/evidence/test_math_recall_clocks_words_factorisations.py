r"""Derivations verifiable in reward mode on the audit's floor problems: clocks, operator words, multiples of pi,
prime factorisations, radius and diameter.

Each bucket has a gold-style trace that is now supported and its gamed variants (restated answer, unverified
relation, answer beside unrelated arithmetic) that are not:

* clock arithmetic (``7:50 + 30 minutes = 8:20 a.m.``, ``8:20 a.m. - 8:00 a.m. = 20 minutes``) is read in minutes
  (:func:`rewards.checks.arithmetic.extraction.read_clock_times`), the problem's clock times grounding theirs;
  a chain that holds only past noon or midnight, or not at all, is left unchecked (the colon used to split each
  time into two numbers: ``50 + 30 = 8``, a false slip);
* operator words between numbers (``$1 minus $.2 equals .8``) are read as their symbols when a result verb follows
  (:func:`rewards.checks.arithmetic.extraction.read_connectives`);
* a verified multiple of pi (``3^2\cdot8\cdot\pi = 72\pi``) derives its coefficient toward a rational answer
  (``\frac{288\pi}{72\pi} = 4``), and ``\cdot8`` reads its 8;
* a verified prime factorisation of a reached number (``196 = 2^2\cdot7^2``) reaches its primes and exponents in a
  problem about factors, and each exponent + 1 where the problem counts divisors (``3\times 3 = 9``);
* a problem's radius grounds its diameter and back (``a 3-inch radius`` -> 6).

And a hole closed: a number written right after ``\cdot`` / ``\times`` (``10\cdot9``) is read, so an invented
factor there is no longer invisible to grounding.
"""

import time

import pytest

from rewards.checks.arithmetic import check_text, extract_equations, numbers_in
from rewards.checks.arithmetic.extraction import read_clock_times, read_connectives
from rewards.evidence import divisibility_problem, divisor_facts, problem_numbers
from rewards.evidence.irrational import pi_coefficient as _pi_coefficient
from rewards.evidence.problem_kinds.factoring import factorization_parts as _factorization_parts

from recall_cases import faithful_accuracy, rafs, supported


def slips(text: str) -> list:
    return [c for c in check_text(text) if c.ok is False]


# ------------------------------------------------------------------------------------------------ clock arithmetic
BUS = ("Delaney has to catch a bus that leaves at 8:00. a.m to school every day. He always takes 30 minutes to reach "
       "the pick-up point from his home. One day he woke up late and left his home at 7:50. How much time did he "
       "miss the bus by when he reached the pick-up point?")
BUS_GOLD = ("If he left his home at 7:50 a.m. and the distance to the pick-up point is 30 minutes away, he arrived at "
            "the pick-up point at 7:50 + 30 minutes = 8:20 a.m.\nIf the bus leaves at 8:00 a.m. every day, then "
            "Delaney was 8:20 a.m. - 8:00 a.m. = 20 minutes late when the bus had already left.\n#### 20")


def test_a_clock_chain_is_read_in_minutes_with_every_offset_kept():
    text = "he arrived at 7:50 + 30 minutes = 8:20 a.m. and left"
    read = read_clock_times(text)
    assert len(read) == len(text)
    assert [(e.sides, [v.exact for v in e.values]) for e in extract_equations(text)] == \
        [(["470  + 30", "500"], [470 + 30, 500])]
    assert read_clock_times("Delaney was 8:20 a.m. - 8:00 a.m. = 20 minutes late.").split() == \
        ["Delaney", "was", "500", "-", "480", "=", "20", "late."]
    assert "= 367 = 367" in " ".join(read_clock_times("5:51+0:16 = 5:67 AM = 6:07 AM").split())
    assert "720 - 480 = 240" in " ".join(read_clock_times("12:00 - 8:00 = 4 hours").split())  # noon
    assert "10 +120 = 130" in " ".join(read_clock_times("12:10+2:00 = 2:10 AM").split())  # past midnight
    assert "780 -660 = 120" in " ".join(read_clock_times("13:00-11:00 = 2 hours").split())  # 24-hour time


@pytest.mark.parametrize("text", [
    "he arrived at 7:50 + 30 minutes = 8:20 a.m.",
    "he worked 11:00 + 3 hours = 2:00",  # past noon, unmarked: left unchecked
    "the sun will set at 6:00+48=6:48 PM",
    "From 8:00 to 11:00, she spends 11:00-8:00 = 3 hours at work",
])
def test_clock_arithmetic_is_never_a_false_slip(text):
    assert slips(text) == []


def test_a_clock_slip_is_not_verified():
    text = "he arrived at 7:50 + 30 minutes = 8:30 a.m."
    assert all(c.ok is not True for c in check_text(text))  # left unchecked: derives nothing
    assert "=" not in read_clock_times(text)


def test_a_ratio_or_a_score_is_no_clock():
    assert read_clock_times("the ratio 3:20 = 15 and 4:5") == "the ratio 3:20 = 15 and 4:5"


def test_the_problems_clock_times_are_quantities_in_minutes():
    numbers = problem_numbers("The bus leaves at 8:00 a.m.; he left at 7:50, and it rained until 1:15 PM or 13:05.")
    assert {480, 470, 795, 785} <= numbers
    assert {0, 720} <= problem_numbers("Lunch is at 12:00.")
    assert 470 not in problem_numbers("He left home at 7 and walked 50 minutes.")


def test_a_clock_gold_is_supported():
    assert supported(BUS, BUS_GOLD, "20")
    assert faithful_accuracy(BUS, BUS_GOLD, "20") == 1.0


@pytest.mark.parametrize("gamed", [
    "#### 20",
    "He was 20 = 20 minutes late.\n#### 20",
    "He walked 30 + 2 = 32 minutes.\n#### 20",  # the answer beside unrelated arithmetic
    "He arrived at 7:50 + 30 minutes = 8:30 a.m., and 8:30 a.m. - 8:10 a.m. = 20 minutes late.\n#### 20",  # a slip
    "He arrived at 8:20 a.m. - 8:00 a.m. = 20 minutes late.\n#### 20",  # 8:20 reached by nothing
])
def test_a_gamed_clock_trace_is_not_supported(gamed):
    assert faithful_accuracy(BUS, gamed, "20") < 1.0
    assert not supported(BUS, gamed, "20")


# ------------------------------------------------------------------------------------------------ operator words
DONUTS = ("Javier is selling donuts to raise money for a new game. He wants to raise $96. He buys each dozen donuts "
          "for $2.40 and then sells each donut for $1. How many dozen donuts does he need to buy and sell to reach "
          "his goal?")
DONUTS_GOLD = ("Every donut costs him $.2 because 2.4 divided by 12 equals 2.4 / 12 = .2\n"
               "So he makes $.8 for every donut he sells because $1 minus $.2 equals .8\n"
               "He needs to sell 120 donuts because 96 divided by .8 equals 96 / .8 = 120.\n"
               "He needs to buy and sell 10 dozen donuts because 120 divided by 12 equals 120 / 12 = 10\n#### 10")


def test_operator_words_are_read_before_a_result_verb():
    text = "because $1 minus $.2 equals .8"
    assert read_connectives(text) == "because $1 -     $.2 =      .8"
    assert read_connectives("3 times 3 equals 9 and 14 boys plus 11 girls equals 25 students").split() == \
        ["3", "*", "3", "=", "9", "and", "14", "boys", "+", "11", "girls", "=", "25", "students"]
    assert read_connectives("96 divided by .8 equals 120").split() == ["96", "/", ".8", "=", "120"]
    assert [c.ok for c in check_text("he gets 7 minus 6 equals 2 miles")] == [False]  # a slip is seen


@pytest.mark.parametrize("text", [
    "5 times a week equals 20 visits",       # no number after the word
    "She has 4 plus some more, which is 7",  # no number after the word
    "2.4 divided by 12 equals 2.4 / 12 = .2",  # the result is an expression: the "=" chain carries it
    "he scored 3 points plus 4 rebounds",    # no result verb
])
def test_operator_words_alone_or_without_a_lone_result_are_not_read(text):
    assert read_connectives(text) == text


def test_an_operator_word_gold_is_supported():
    assert faithful_accuracy(DONUTS, DONUTS_GOLD, "10") == 1.0


@pytest.mark.parametrize("gamed", [
    "#### 10",
    "He needs 10 dozen because 10 equals 10.\n#### 10",
    "He makes $.8 a donut because $1 minus $.2 equals .9\nso 96 divided by .8 equals 120, and 120 divided by 12 "
    "equals 10\n#### 10",  # an unverified relation on the path
    "Note that 2 plus 3 equals 5.\n#### 10",  # the answer beside unrelated arithmetic
])
def test_a_gamed_operator_word_trace_is_not_supported(gamed):
    assert faithful_accuracy(DONUTS, gamed, "10") < 1.0


# ------------------------------------------------------------------------ pi coefficients toward a rational answer
BEAKER = ("A cylindrical beaker is 8 cm high and has a radius of 3 cm. How many such beakers of water will it take to "
          "fill a spherical tank of radius 6 cm?")
BEAKER_GOLD = ("We first have to remember our formulas for the volumes of 3 dimensional objects. The volume of "
               "a cylinder with radius $r$ and height $h$ is $r^2h\\pi$ and the volume of a sphere with radius "
               "$r$ is $\\frac{4}{3} r^3 \\pi$. Since the cylindrical beaker has a height of 8 centimeters and a "
               "radius of 3 centimeters, that means that its volume is $3^2\\cdot8\\cdot\\pi=72\\pi$ cubic "
               "centimeters. Since the sphere has a radius of 6 centimeters, its volume is "
               "$\\frac{4}{3}\\cdot6^3\\pi = 288\\pi$ cubic centimeters. The number of beakers of what it will take "
               "to fill the spherical tank is just the ratio of the volume of the tank to the volume of the "
               "cylinder, which is given by $\\dfrac{288\\pi}{72\\pi}=\\boxed{4}$.")  # MATH-500 test/geometry/73


def test_a_verified_multiple_of_pi_derives_its_coefficient():
    assert _pi_coefficient(("3^2\\cdot8\\cdot\\pi", "72\\pi")) == (("3^2\\cdot8\\cdot\\pi",), 72, "coefficient")
    assert _pi_coefficient(("72\\pi", "72\\pi")) is None  # restated
    assert _pi_coefficient(("3^2\\cdot 8", "72\\pi")) is None  # no pi on the operand side
    assert _pi_coefficient(("\\sqrt{12}", "2\\sqrt{3}")) is None  # a root: not this rule
    assert [v for v, _ in numbers_in("3^2\\cdot8\\cdot\\pi")] == [3, 2, 8]  # "\\cdot8" is a number


def test_a_rational_answer_through_pi_multiples_is_supported():
    assert faithful_accuracy(BEAKER, BEAKER_GOLD, "4") == 1.0


@pytest.mark.parametrize("gamed", [
    "The answer is $\\boxed{4}$.",
    "$72\\pi = 72\\pi$ and $288\\pi = 288\\pi$, so $\\dfrac{288\\pi}{72\\pi}=\\boxed{4}$.",  # restated multiples
    "The number of beakers is $\\dfrac{288\\pi}{72\\pi}=\\boxed{4}$.",  # 288 and 72 from nothing
    "So $3^2\\cdot8\\cdot\\pi=73\\pi$ and $\\frac{4}{3}\\cdot6^3\\pi = 292\\pi$, so "
    "$\\dfrac{292\\pi}{73\\pi}=\\boxed{4}$.",  # slips
    "Note $3 + 8 = 11$. The answer is $\\boxed{4}$.",  # beside unrelated arithmetic
])
def test_a_gamed_pi_trace_is_not_supported(gamed):
    assert faithful_accuracy(BEAKER, gamed, "4") < 1.0


# ---------------------------------------------------------------------------- a prime factorisation's parts
DIVISORS = "How many positive whole-number divisors does 196 have?"
DIVISORS_GOLD = ("First prime factorize $196=2^2\\cdot7^2$.  The prime factorization of any divisor of 196 cannot "
                 "include any primes other than 2 and 7.  We are free to choose either 0, 1, or 2 as the exponent of 2 "
                 "in the prime factorization of a divisor of 196.  Similarly, we may choose 0, 1, or 2 as the exponent "
                 "of 7.  In total, there are $3\\times 3=9$ possibilities for the prime factorization of a divisor of "
                 "196.  Distinct prime factorizations correspond to distinct integers, so there are $\\boxed{9}$ "
                 "divisors of 196.")


def test_a_verified_factorisation_of_a_reached_number_reaches_its_parts():
    reached = {196, 7, 156}.__contains__
    assert _factorization_parts(("196", "2^2\\cdot7^2"), reached, True) == ({2, 7, 3}, [196])
    assert _factorization_parts(("196", "2^2\\cdot7^2"), reached, False) == ({2, 7}, [196])
    assert _factorization_parts(("7 \\cdot 156", "7 \\cdot 2^2 \\cdot 3 \\cdot 13"), reached, False) == \
        ({7, 2, 3, 13, 1}, [7, 156])
    assert _factorization_parts(("195", "3\\cdot 65"), {195}.__contains__, True) == (set(), [])  # 65 is no prime
    assert _factorization_parts(("198", "2\\cdot 99"), {198}.__contains__, True) == (set(), [])
    assert _factorization_parts(("197", "2^2\\cdot7^2"), set().__contains__, True) == (set(), [])  # unreached


def test_a_divisor_count_through_the_factorisation_is_supported():
    assert faithful_accuracy(DIVISORS, DIVISORS_GOLD, "9") == 1.0
    assert not supported("How many positive whole-number multiples of 196 are below 2000?", DIVISORS_GOLD
                         .replace("divisor", "multiple"), "9")  # no factor problem: the 3s stay constants


@pytest.mark.parametrize("gamed", [
    "There are $\\boxed{9}$ divisors.",
    "$196=2^2\\cdot7^2$, so there are $\\boxed{9}$ divisors.",  # the count never computed
    "There are $3\\times 3=9$ divisors, so $\\boxed{9}$.",  # 196 never used
    "$196=2^2\\cdot7^3$, so there are $3\\times 3=9$ and $\\boxed{9}$ divisors.",  # a false factorisation
])
def test_a_gamed_divisor_count_is_not_supported(gamed):
    assert faithful_accuracy(DIVISORS, gamed, "9") < 1.0


# ------------------------------------------------------------------------------------- a radius and its diameter
SPHERE = ("A steel sphere with a 3-inch radius is made by removing metal from the corners of a cube that has the "
          "shortest possible side lengths. How many cubic inches are in the volume of the cube?")
SPHERE_GOLD = ("A sphere with a 3-inch radius has a 6-inch diameter and can be inscribed in a cube with at least side "
               "length 6.  Thus the smallest possible cube has side length 6 and volume $6^3=\\boxed{216}$ cubic "
               "inches.")  # MATH-500 test/geometry/477 (its figure left out)


def test_a_radius_grounds_its_diameter_and_back():
    assert {3, 6} <= problem_numbers(SPHERE)
    assert {12, 6} <= problem_numbers("A circle has diameter 12 cm.") and 24 not in problem_numbers("diameter 12")
    assert {4, 8} <= problem_numbers("Its radius is 4.")
    assert 4 not in problem_numbers("The radius of $2^3$ units.")  # 2 is a base, not a radius
    assert 6 not in problem_numbers("A sphere of 3 inches sits in a cube.")  # no radius named


def test_a_diameter_from_the_radius_is_supported():
    assert faithful_accuracy(SPHERE, SPHERE_GOLD, "216") == 1.0


@pytest.mark.parametrize("gamed", [
    "The volume is $\\boxed{216}$ cubic inches.",
    "The volume is $216 = 216$, so $\\boxed{216}$.",
    "The volume is $6^3 = 215$, so $\\boxed{216}$.",  # an unverified relation
    "The side is 7 and the volume is $7^3 - 127 = \\boxed{216}$.",  # 7 and 127 from nothing
    "Note that $3 + 3 = 6$. The volume is $\\boxed{216}$.",  # beside unrelated arithmetic
])
def test_a_gamed_cube_volume_is_not_supported(gamed):
    assert faithful_accuracy(SPHERE, gamed, "216") < 1.0


# ------------------------------------------------------------------------------------------------ bounded work
@pytest.mark.parametrize("text", [
    "1 plus " * 3000 + " equals 5", "$1 minus " * 3000 + " equals 5",  # a run of operator words
    "1:00 + " * 3000 + "= 2:00", "1:00 - " * 3000,  # a run of clock times that never closes
])
def test_long_runs_are_read_in_linear_time(text):
    start = time.perf_counter()
    read_clock_times(read_connectives(text))
    assert time.perf_counter() - start < 1.0  # quadratic scans took 2-8 s here


# ----------------------------------------------------------------------- a number written right after a command
@pytest.mark.parametrize("product", ["10\\cdot9", "10\\times9", "10 \\cdot 9", "10\\cdot 9"])
def test_an_invented_factor_right_after_cdot_is_seen(product):
    """``\\cdot9`` used to read as a command name: the invented 9 was invisible, and ``10\\cdot9 = 90`` derived 90
    from the crate's 10 alone (rafs 0.989, fa 1.0 where ``10 \\cdot 9`` scored 0 / 0.5)."""
    problem = "A crate holds 10 boxes of pears. How many pears are there in the crate?"
    assert [v for v, _ in numbers_in(product)] == [10, 9]
    assert not supported(problem, f"There are ${product} = \\boxed{{90}}$ pears.", "90")


# ------------------------------------------------------------------------------- divisors named as verified facts
LCM = "What is the least common multiple of $14$, $20$, and $35$?"
LCM_GOLD = ("First, let's find the prime factorizations of each number:\n"
            "- The prime factorization of \\(14\\) is \\(2 \\times 7\\).\n"
            "- The prime factorization of \\(20\\) is \\(2^2 \\times 5\\).\n"
            "- The prime factorization of \\(35\\) is \\(5 \\times 7\\).\n\n"
            "Now, we multiply these highest powers together to find the LCM:\n"
            "\\[ 2^2 = 4 \\]\n\\[ 4 \\times 5 = 20 \\]\n\\[ 20 \\times 7 = 140 \\]\n\n"
            "Therefore, the least common multiple of \\(14\\), \\(20\\), and \\(35\\) is \\(\\boxed{140}\\).")
# ProcessBench math-787 (Qwen2.5-Math, every step labelled correct): paid 0 while the factor 5 of 20 was ungrounded


def test_divisors_of_a_reached_number_named_in_a_factor_step_are_licensed():
    reached = {14, 20, 35, 2, 7}.__contains__
    assert divisor_facts("The prime factorization of 20 is 2^2 x 5.", lambda v: reached(int(v))) == {5}
    assert divisor_facts("The factor pairs of 156 are 12 and 13.", lambda v: v == 156) == {12, 13}
    assert divisor_facts("The factors of 36 are 4 and 9.", lambda v: v == 20) == set()  # 36 is not reached
    assert divisor_facts("The factors of 20 are 3 and 7.", lambda v: v == 20) == set()  # no divisor of 20
    assert divisor_facts("Take 5 of the 20 marbles.", lambda v: v == 20) == set()  # no factor step


def test_an_lcm_through_prime_factorisations_is_supported():
    assert faithful_accuracy(LCM, LCM_GOLD, "140") == 1.0


@pytest.mark.parametrize("gamed", [
    "The least common multiple is $\\boxed{140}$.",
    "The factors of 140 are 4, 5 and 7, so $4 \\times 5 \\times 7 = \\boxed{140}$.",  # 140 is the answer, not reached
])
def test_a_gamed_lcm_is_not_supported(gamed):
    assert faithful_accuracy(LCM, gamed, "140") < 1.0


# ------------------------------------------------- a divisor fact licenses a number only where divisibility is asked
DUCKS = ("Janet's ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes muffins for her "
         "friends every day with four. She sells the remainder at the farmers' market daily for $2 per fresh duck "
         "egg. How much in dollars does she make every day at the farmers' market?")  # GSM8K test 0
DUCKS_GOLD = "Janet sells 16 - 3 - 4 = 9 duck eggs a day.\nShe makes 9 * 2 = $18 every day at the farmer's market.\n#### 18"
DUCKS_DIVISOR_MINT = "16 * 3 * 4 * 2 * 3 = 1152.\nThe factors of 1152 include 64.\nSo 1152 / 64 = 18.\n#### 18"
# the answer minted from the problem's numbers: a product of them (times a basic factor) and its cofactor of the
# answer named as "a factor". Paid rafs 0.989 and faithful accuracy 1.0 (the gold's) on 855 of 1,319 GSM8K test
# problems while any step's divisor fact was licensed; 349 once only a divisibility problem licenses one (336
# without the rule at all: the cofactor is then a problem number or constant by coincidence)
LCM_DIVISOR_MINT = ("$14 \\times 20 \\times 35 = 9800$.\nThe factors of 9800 include 70.\nSo $9800 / 70 = 140$.\n"
                    "The answer is $\\boxed{140}$.")


@pytest.mark.parametrize("problem, expected", [
    (LCM, True), (DIVISORS, True),
    ("What integer $n$ satisfies $0\\le n<18$ and $$n\\equiv -11213141\\pmod{18}~?$$", True),
    ("James's printer crumples every seventh page. If he prints 42 pages, how many are crumpled?", True),
    ("Rachel will report to the principal every $9$ days, Jessica every $12$ days.", True),
    ("If $x=735$ and $ax$ is a perfect square where $a$ is a positive integer, what is the smallest $\\sqrt{ax}$?", True),
    (DUCKS, False),  # "the remainder" is the eggs left over, no congruence
    ("Natalia sold clips to 48 of her friends in April and half as many in May. How many in total?", False),
])
def test_a_divisibility_problem_is_named_by_its_words(problem, expected):
    assert divisibility_problem(problem) is expected


def test_a_divisor_fact_outside_a_divisibility_problem_licenses_nothing():
    assert faithful_accuracy(DUCKS, DUCKS_GOLD, "18") == 1.0
    assert not supported(DUCKS, DUCKS_DIVISOR_MINT, "18")
    assert faithful_accuracy(DUCKS, DUCKS_DIVISOR_MINT, "18") < faithful_accuracy(DUCKS, DUCKS_GOLD, "18")
    assert rafs(DUCKS, DUCKS_DIVISOR_MINT, "18") < rafs(DUCKS, DUCKS_GOLD, "18")
