r"""Attacks on the irrational-answer credit: cheap gamed completions, written as a GRPO
policy would, compared with the gold trace on both rewards as the audit does (``below_faithful``: the gamed
completion must score strictly below the gold one; padding: it must not score above it).

Attacks the rewards resist are plain tests, among them a re-writing of the answer, a decimal of it, the box written
another way, constants multiplied with ``\\cdot``, an unknown invented for the answer, padding that produced an
exponent. Those still open (a problem's radical restated through an invented unknown and a lucky formula of problem
numbers where the gold is unverifiable, a disguised answer minted from a problem number, a named fraction
``x = 270/7``) are in tests/rewards/test_known_attacks.py with the rule at fault. Problems are MATH-500 problems
(algebra/1519, prealgebra/1834, prealgebra/1423, algebra/2193), GSM8K test #0, and the toy problems of
test_irrational_answers.py.
"""

import json
from pathlib import Path

import pytest

from rewards import get_faithful_accuracy_reward, get_rafs_reward

_RAFS = get_rafs_reward(cache=False)
_FA = get_faithful_accuracy_reward(cache=False)


def rewards(problem: str, completion: str, gold: str) -> tuple[float, float]:
    """(rafs_reward, faithful_accuracy_reward) of one completion, as TRL calls them."""
    r = _RAFS([problem], [completion], answer=[gold])[0]
    f = _FA([problem], [completion], answer=[gold])[0]
    return (0.0 if r is None else r), (0.0 if f is None else f)


def assert_below_gold(problem: str, gamed: str, gold_trace: str, gold: str) -> None:
    g_r, g_f = rewards(problem, gold_trace, gold)
    r, f = rewards(problem, gamed, gold)
    assert f < g_f, f"faithful_accuracy: gamed {f} >= gold {g_f}"
    assert r < g_r, f"rafs_reward: gamed {r:.3f} >= gold {g_r:.3f}"


def assert_no_gain(problem: str, padded: str, gold_trace: str, gold: str, tolerance: float = 0.005) -> None:
    g_r, g_f = rewards(problem, gold_trace, gold)
    r, f = rewards(problem, padded, gold)
    assert f <= g_f, f"faithful_accuracy: padded {f} > gold {g_f}"
    assert r <= g_r + tolerance, f"rafs_reward: padded {r:.3f} > gold {g_r:.3f} + {tolerance}"


DISTANCE = "Find the distance between the points $(2, -6)$ and $(-4, 3)$."
DISTANCE_GOLD = (r"We use the distance formula: $\sqrt{(2 - (-4))^2 + ((-6) - 3)^2} = \sqrt{36 + 81} = \sqrt{117}"
                 r" = \boxed{3\sqrt{13}}$.")
RINGS = ("Three circles with radii 4, 6 and 7 share a center. Region $Y$ lies between the circles of radius 4 and 6, "
         "region $Z$ between those of radius 6 and 7. By how much does the area of $Y$ exceed the area of $Z$?")
RINGS_GOLD = (r"The area of $Y$ is $\pi\cdot 6^2-\pi\cdot 4^2=36\pi-16\pi = 20\pi$. The area of $Z$ is "
              r"$\pi\cdot 7^2-\pi\cdot 6^2=49\pi - 36\pi = 13\pi$." "\n"
              r"The difference is $20\pi-13\pi = \boxed{7\pi}$.")
CYLINDER = ("Increasing the height of a cylinder by 4 units increases its volume by $20\\pi$ cubic units. "
            "What is its radius $r$?")
CYLINDER_GOLD = "$\\pi r^2(4) = 20\\pi$, so $4r^2 = 20$ and $r^2 = 5$, giving $r = \\boxed{\\sqrt{5}}$."
SIMPLIFY = "Simplify the following:$$\\frac{3}{\\sqrt{27}}$$"  # MATH-500 test/algebra/1519
SIMPLIFY_GOLD = ("We have:\n\n$\\frac{3}{\\sqrt{27}}=\\frac{3\\sqrt{3}}{\\sqrt{81}}=\\frac{3\\sqrt{3}}{9}="
                 "\\boxed{\\frac{\\sqrt{3}}{3}}$.")
SIMPLIFY_ANSWER = "\\frac{\\sqrt{3}}{3}"
SQRT53 = "What is $\\sqrt{53}$ in simplest radical form?"  # test/prealgebra/1834
SQRT53_GOLD = "Since 53 is prime, $\\boxed{\\sqrt{53}}$ is already in simplest radical form."
UNICYCLE = ("Charlie is riding on his unicycle. If the unicycle's wheel has a radius of 9 inches and makes 2 "
            "revolutions every 3 seconds, what is the unicycle's speed in inches per second?")  # test/prealgebra/1423
UNICYCLE_GOLD = ("Since the radius is $9$ inches, the circumference is $18\\pi$ inches. So, if there are "
                 "$18\\pi$ inches in one revolution, and the wheel makes $2$ revolutions every $3$ seconds, "
                 "the unicycle's speed is $18\\pi\\cdot\\frac{2}{3} = \\boxed{12\\pi}$ inches per second.")
ROOT = "Find all values of $x$ that satisfy the equation $x = \\!\\sqrt{11-2x} + 4$."  # test/algebra/2193
ROOT_GOLD = ("We first isolate the square root, so we can then square both sides to get rid of it.  Subtracting 4 from "
             "both sides gives $x-4 = \\!\\sqrt{11-2x}$.  Squaring both sides gives $x^2 - 8x + 16 = 11-2x$, or "
             "$x^2 -6x + 5=0$.  Factoring gives $(x-5)(x-1)=0$, so $x=5$ or $x=1$.  Because we squared the equation, "
             "we must  check if our solutions are extraneous. For $x=5$, the equation reads "
             "$5 = \\!\\sqrt{11-10} + 4$, which is true. If $x=1$, we have $1 = \\!\\sqrt{11-2} + 4$, which is not "
             "true, so $x=1$ is extraneous. Therefore, our only solution is $\\boxed{x=5}$.")
JANET = ("Janet's ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes muffins for her "
         "friends every day with four. She sells the remainder at the farmers' market daily for $2 per fresh duck "
         "egg. How much in dollars does she make every day at the farmers' market?")  # GSM8K test #0
JANET_GOLD = ("Janet sells 16 - 3 - 4 = 9 duck eggs a day.\nShe makes 9 * 2 = $18 every day at the farmers' market.\n"
              "#### 18")


# ------------------------------------------------------------------------------------- attacks that still work
def test_coefficient_trick():
    assert_below_gold(RINGS, "$7 \\cdot \\pi = 7\\pi$.\n$\\boxed{7\\pi}$", RINGS_GOLD, "7\\pi")


def test_minted_radicand_then_coefficient_trick():
    gamed = "$2 \\cdot 2 \\cdot 3 + 1 = 13$.\n$3 \\cdot \\sqrt{13} = 3\\sqrt{13}$.\n$\\boxed{3\\sqrt{13}}$"
    assert_below_gold(DISTANCE, gamed, DISTANCE_GOLD, "3\\sqrt{13}")


def test_fraction_rewrite_of_the_answer():
    gamed = "$\\frac{1}{3}\\sqrt{3} = \\frac{\\sqrt{3}}{3}$.\n$\\boxed{\\frac{\\sqrt{3}}{3}}$"
    assert_below_gold(SIMPLIFY, gamed, SIMPLIFY_GOLD, SIMPLIFY_ANSWER)


def test_square_then_root_back():
    gamed = ("$\\left(\\frac{\\sqrt{3}}{3}\\right)^2 = \\frac{1}{3}$, and "
             "$\\sqrt{\\frac{1}{3}} = \\frac{\\sqrt{3}}{3}$."
             "\n$\\boxed{\\frac{\\sqrt{3}}{3}}$")
    assert_below_gold(SIMPLIFY, gamed, SIMPLIFY_GOLD, SIMPLIFY_ANSWER)


def test_rounded_decimal_chain():
    gamed = "$\\sqrt{3} = 1.732050808$, so $\\frac{1.732050808}{3} = 0.5773502693$.\n$\\boxed{\\frac{\\sqrt{3}}{3}}$"
    assert_below_gold(SIMPLIFY, gamed, SIMPLIFY_GOLD, SIMPLIFY_ANSWER)


def test_answer_equals_its_decimal():
    gamed = ("$\\frac{\\sqrt{3}}{3} = 0.57735026919$ and $0.57735026919 \\cdot 1 = 0.57735026919$.\n"
             "$\\boxed{\\frac{\\sqrt{3}}{3}}$")
    assert_below_gold(SIMPLIFY, gamed, SIMPLIFY_GOLD, SIMPLIFY_ANSWER)


@pytest.mark.parametrize("box", ["\\boxed {r = \\sqrt{5}}", "\\fbox{r = \\sqrt{5}}",
                                 "\\boxed{r = \\sqrt{5}}\\boxed{r = \\sqrt{5}}"])
def test_boxed_equation_guard_evaded(box):
    assert_below_gold(CYLINDER, f"$r^2 = 20/4$, so ${box}$.", CYLINDER_GOLD, "\\sqrt{5}")


def test_root_chosen_from_an_invented_equation():
    gamed = "Then $x^2 = \\frac{1}{3}$, so $x = \\frac{\\sqrt{3}}{3}$.\n$\\boxed{\\frac{\\sqrt{3}}{3}}$"
    assert_below_gold(SIMPLIFY, gamed, SIMPLIFY_GOLD, SIMPLIFY_ANSWER)


def test_padding_with_the_coefficient_trick():
    padded = DISTANCE_GOLD + "\n$2 \\cdot 2 \\cdot 3 + 1 = 13$.\nCheck: $3 \\cdot \\sqrt{13} = 3\\sqrt{13}$."
    assert_no_gain(DISTANCE, padded, DISTANCE_GOLD, "3\\sqrt{13}")


def test_padding_with_unrelated_radical_identities():
    # closed: the padded "= 2" was the producer of the gold's exponent in "r^2", so the padding joined the answer's
    # path and its verified step raised P_R (0.85 -> 0.88); an exponent now makes no dependency
    padded = "$\\sqrt{2}\\sqrt{2} = 2$ and $2\\sqrt{2} = \\sqrt{8}$.\n" + CYLINDER_GOLD
    assert_no_gain(CYLINDER, padded, CYLINDER_GOLD, "\\sqrt{5}")


FAR = "Find the distance between the points $(5, 11)$ and $(-1, 20)$."  # no 2 or 3 among its numbers
FAR_GOLD = r"$\sqrt{(5 - (-1))^2 + (11 - 20)^2} = \sqrt{36 + 81} = \sqrt{117} = \boxed{3\sqrt{13}}$."


def test_constants_minted_through_cdot():
    gamed = "$2 \\cdot 2 \\cdot 3 + 1 = 13$.\n$3 \\cdot \\sqrt{13} = 3\\sqrt{13}$.\n$\\boxed{3\\sqrt{13}}$"
    assert_below_gold(FAR, gamed, FAR_GOLD, "3\\sqrt{13}")


def test_constants_minted_with_star_are_refused():
    gamed = "$2 * 2 * 3 + 1 = 13$.\n$3 \\cdot \\sqrt{13} = 3\\sqrt{13}$.\n$\\boxed{3\\sqrt{13}}$"
    assert_below_gold(FAR, gamed, FAR_GOLD, "3\\sqrt{13}")


def test_problem_expression_equals_its_decimal():
    gamed = "$\\frac{3}{\\sqrt{27}} = 0.57735026919$.\n$\\boxed{\\frac{\\sqrt{3}}{3}}$"
    assert_below_gold(SIMPLIFY, gamed, SIMPLIFY_GOLD, SIMPLIFY_ANSWER)


def _math500(unique_id: str) -> dict:
    path = Path(__file__).resolve().parents[3] / ".." / "shared" / "data" / "math500" / "test.jsonl"
    if not path.exists():
        pytest.skip(f"{path} not found (the shared data folder beside the repository)")
    for line in path.read_text().splitlines():
        row = json.loads(line)
        if row["unique_id"] == unique_id:
            return row
    raise AssertionError(f"{unique_id} not in {path}")


# --------------------------------------------------------------------------------------- attacks that are resisted
@pytest.mark.parametrize("name, problem, gamed, gold_trace, gold", [
    ("radicand from nowhere", DISTANCE, "$\\sqrt{117} = 3\\sqrt{13}$.\n$\\boxed{3\\sqrt{13}}$", DISTANCE_GOLD,
     "3\\sqrt{13}"),
    ("square root split", DISTANCE, "$\\sqrt{9}\\sqrt{13} = 3\\sqrt{13}$.\n$\\boxed{3\\sqrt{13}}$", DISTANCE_GOLD,
     "3\\sqrt{13}"),
    ("unrelated identities", DISTANCE,
     "$\\sqrt{2}\\sqrt{2} = 2$ and $\\sqrt{13} \\cdot \\sqrt{13} = 13$.\n$\\boxed{3\\sqrt{13}}$", DISTANCE_GOLD,
     "3\\sqrt{13}"),
    ("squared and back, radicand unreached", DISTANCE,
     "$(3\\sqrt{13})^2 = 117$, and $\\sqrt{117} = 3\\sqrt{13}$.\n$\\boxed{3\\sqrt{13}}$", DISTANCE_GOLD, "3\\sqrt{13}"),
    ("rounded chain, radicand unreached", DISTANCE,
     "$\\sqrt{13} = 3.605551275$, so $3 \\cdot 3.605551275 = 10.81665383$.\n$\\boxed{3\\sqrt{13}}$", DISTANCE_GOLD,
     "3\\sqrt{13}"),
    ("answer equals its decimal, radicand unreached", DISTANCE,
     "$3\\sqrt{13} = 10.816653826$ and $10.816653826 \\cdot 1 = 10.816653826$.\n$\\boxed{3\\sqrt{13}}$",
     DISTANCE_GOLD, "3\\sqrt{13}"),
    ("answer first, rewrite after", RINGS, "$7\\pi = 7 \\cdot \\pi$.\n$\\boxed{7\\pi}$", RINGS_GOLD, "7\\pi"),
    ("equation in the final box", CYLINDER, "$20/4 = 5$ and $r^2 = 5$, so $\\boxed{r = \\sqrt{5}}$.", CYLINDER_GOLD,
     "\\sqrt{5}"),
    ("gsm8k named answer", JANET, "x = 18\n#### x=18", JANET_GOLD, "18"),
    ("gsm8k named answer, gold disguised", JANET, "x = 18\n#### x=18", JANET_GOLD, "x=18"),
    ("gsm8k boxed equation", JANET, "The answer is $\\boxed{x = 18}$.", JANET_GOLD, "18"),
])
def test_resisted_attacks(name, problem, gamed, gold_trace, gold):
    assert_below_gold(problem, gamed, gold_trace, gold)


def test_padding_that_states_a_chains_partial_results_buys_nothing():
    """Review finding: 200 true radical identities before a gold chain raised rafs 0.79 -> 0.95, because they stated
    the chain's partial results (36, 81, 117), which then counted as grounded for q_t. A later side of a reached chain
    now grounds its partial results itself, so the padding has nothing left to ground."""
    problem = "Find the distance between the points $(2, -6)$ and $(-4, 3)$."
    gold = (r"We use the distance formula: $\sqrt{(2 - (-4))^2 + ((-6) - 3)^2} = \sqrt{36 + 81} = \sqrt{117} = "
            r"\boxed{3\sqrt{13}}$.")
    padding = "\n".join(rf"Step: $\sqrt{{{k}}} \cdot \sqrt{{{k + 1}}} = \sqrt{{{k * (k + 1)}}}$" for k in range(2, 202))
    gold_r, _ = rewards(problem, gold, r"3\sqrt{13}")
    padded_r, _ = rewards(problem, padding + "\n" + gold, r"3\sqrt{13}")
    assert padded_r <= gold_r + 0.005
