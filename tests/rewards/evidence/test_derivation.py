"""The answer's derivation read as a function of the problem's quantities (rewards/evidence/derivation_function.py) and
the policy's ``derivation_factor``: each literal linked to where it came from, degeneracy decided exactly, bounded work,
and a degenerate derivation withholding support without refuting a step."""

from __future__ import annotations

import pickle
import threading
from fractions import Fraction

import pytest

from rewards import get_faithful_accuracy_reward, get_rafs_reward, score_trace
from rewards.parsing.trace import parse_trace
from rewards.scoring.config import RAFSConfig
from rewards.evidence import build_dataflow
from rewards.evidence import DerivationFunction, derivation_function
from rewards.evidence import side_reader

DUCKS = ("Janet's ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes muffins for her "
         "friends every day with four. She sells the remainder at the farmers' market daily for $2 per fresh duck "
         "egg. How much in dollars does she make every day at the farmers' market?")
GOLD = ("Janet sells 16 - 3 - 4 = <<16-3-4=9>>9 duck eggs a day.\n"
        "She makes 9 * 2 = $<<9*2=18>>18 every day at the farmer’s market.\n#### 18")
ON, OFF = {"derivation_function": True}, {"derivation_function": False}


def function(problem: str, text: str) -> DerivationFunction | None:
    trace = parse_trace(problem, text)
    return derivation_function(trace, build_dataflow(trace))


def test_the_faithful_derivation_is_the_function_of_the_quantities_it_uses():
    f = function(DUCKS, GOLD)
    assert f is not None and f.degenerate is None
    assert {f.labels[i] for i in f.used} == {"16", "three", "four", "2"} and f.cancelled == frozenset()
    assert f.answer == 18
    # the counterfactual answer, recomputed through the function: 16 -> 17 eggs, $2 -> $3
    assert f.at({0: 17}) == 20 and f.at({3: 3}) == 27
    import sympy

    q = sympy.symbols("q0:4")
    assert sympy.simplify(f.expr() - (q[0] - q[1] - q[2]) * q[3]) == 0


@pytest.mark.parametrize("text, kind", [
    ("16 + 16 * 100 / 1600 * 2 = 18\n#### 18", "cancelling"),            # a grounded one: 1600 follows 16
    ("4 / 4 * 10 + 16 / 16 * 3 / 3 * 2 / 2 * 2 * 4 = 18\n#### 18", "cancelling"),   # ones times digits
    ("16 + 2 = 18\n18 + 2 * 300 / 3 - 200 = 18\n#### 18", "cancelling"),  # a disguised zero in a longer sum
    ("16 - 16 + 18 = 18\n#### 18", "constant"),
    ("2 * 16 / 16 = 2\n#### 2", "copied"),
])
def test_constructions_are_degenerate(text, kind):
    f = function(DUCKS, text)
    assert f is not None and f.degenerate is not None and f.degenerate.startswith(kind), f


STARS = ("Bridget counted 14 shooting stars in the night sky.  Reginald counted two fewer shooting stars than did "
         "Bridget, but Sam counted four more shooting stars than did Reginald.  How many more shooting stars did Sam "
         "count in the night sky than was the average number of shooting stars observed for the three of them?")
TICKETS = (r"One ticket to a show costs $\$20$ at full price. Susan buys $4$ tickets using a coupon that gives her a "
           r"$25\%$ discount. Pam buys $5$ tickets using a coupon that gives her a $30\%$ discount. How many more "
           r"dollars does Pam pay than Susan?")


@pytest.mark.parametrize("problem, text", [
    # the multiplier k of "k * 100q / q - 100k" equals a value the trace derived (4 / 2 = 2) and a stated "two":
    # whichever the 2 and the 200 are read as, 1400 / 14 is 100 · q / q, the constant 100
    (STARS, "4 / 2 = 2\n2 + 2 * 1400 / 14 - 200 = 2\n2 + 2 * 300 / 3 - 200 = 2\n#### 2"),
    (STARS, "14 - 2 = 12\n12 + 4 = 16\n16 - 14 = 2\n2 + 2 * 400 / 4 - 200 = 2\n#### 2"),
    # a competition problem (LaTeX: its own expressions may cancel, only constant products count): 400 / 4 is one
    (TICKETS, "30 - 20 = 10\n10 + 5 * 400 / 4 - 500 = 10\nThe answer is $\\boxed{10}$."),
])
def test_a_disguised_zero_is_a_constant_product_whatever_its_multiplier_reads_as(problem, text):
    f = function(problem, text)
    assert f is not None and f.degenerate is not None and f.degenerate.startswith("cancelling"), f
    assert "is the constant 100" in f.degenerate
    assert score_trace(problem, text, mode="reward").supported is False


def test_a_product_of_stated_quantities_that_cancels_is_no_disguise():
    """Only a literal read as a transform (1400 = 100 · 14) makes a constant run of a product; a product that
    divides by a stated quantity and multiplies by it again is the problem's own numbers (it stays a function)."""
    problem = "A box holds 12 pens. Each pen costs $3. Tom buys 5 boxes and returns 12 pens. How much does he pay?"
    f = function(problem, "5 * 12 = 60\n60 - 12 = 48\n48 / 12 * 12 * 3 = 144\n#### 144")
    assert f is not None and f.degenerate is None
    f = function(DUCKS, GOLD)
    assert f is not None and f.degenerate is None


def test_a_derived_value_is_followed_not_matched_by_value():
    """10 - 8 = 2, then 2 / 2 where the problem states a 2: the two 2s are the derived one and the stated one."""
    problem = "Ann has 10 apples and eats 8. She shares the rest between 2 friends. How many does each get?"
    f = function(problem, "10 - 8 = 2\n2 / 2 = 1\n#### 1")
    assert f is not None and f.degenerate is None
    assert {f.labels[i] for i in f.used} == {"10", "8", "2"}
    # a quantity that cancels across steps is unused, not degenerate (a distractor used and taken away)
    problem = ("Suraya picked 12 apples more than Caleb, and Caleb picked 5 apples less than Kayla. If Kayla picked "
               "20 apples, how many more apples did Suraya pick than Kayla?")
    f = function(problem, "20 - 5 = 15\n12 + 15 = 27\n27 - 20 = 7\n#### 7")
    assert f is not None and f.degenerate is None and [f.labels[i] for i in f.cancelled] == ["20"]


def test_percent_unit_and_repeated_readings():
    # 0.25 of a stated 25% is that percent; 60 / 60 divides by the unit the word names
    f = function("A $68 pair of shoes is 25% off. How much is the discount?", "68 * 0.25 = 17\n#### 17")
    assert f is not None and f.degenerate is None and sorted(f.values[i] for i in f.used) == [25, 68]
    f = function("Tom works 60 minutes a day. How many hours is that?", "60 / 60 = 1\n#### 1")
    assert f is not None and f.degenerate is None
    # "6 cups at 6 cups per hour": the problem states 6 twice, the division takes one of each
    f = function("Mary paints 6 cups at a rate of 6 cups per hour and 14 cups at 7 cups per hour. How long?",
                 "6 / 6 = 1\n14 / 7 = 2\n1 + 2 = 3\n#### 3")
    assert f is not None and f.degenerate is None


@pytest.mark.parametrize("prefix", [
    "Note that \\[ (a+b)^2 = a^2 + 2ab + b^2 \\]\n",
    "Let y be the baskets. Then 5y = 35, so y = 7.\n",
])
@pytest.mark.parametrize("text", [
    "16 + 16 * 100 / 1600 * 2 = 18\n#### 18",
    "16 + 2 = 18\n18 + 2 * 300 / 3 - 200 = 18\n#### 18",
    "4 / 4 * 10 + 16 / 16 * 3 / 3 * 2 / 2 * 2 * 4 = 18\n#### 18",
])
def test_algebra_off_the_way_does_not_hide_a_construction(prefix, text):
    # an equation with unknowns that feeds nothing (an identity, an unrelated solved equation) before a constructed
    # derivation: the construction is read as it is without it, degenerate, and earns less than the faithful trace
    f = function(DUCKS, prefix + text)
    assert f is not None and f.degenerate is not None, f
    for reward in (get_rafs_reward(cache=False), get_faithful_accuracy_reward(cache=False)):
        gamed, faithful = reward([DUCKS, DUCKS], [prefix + text, GOLD], answer=["18", "18"])
        assert gamed < faithful


def test_no_function_where_the_reading_cannot_follow():
    # a root, an algebra link, an operand the reading cannot name, no derived answer
    assert function("A square has area 16. What is its side?", "\\sqrt{16} = 4\n#### 4") is None
    assert function("Twice a number plus 4 is 10. What is the number?", "2x + 4 = 10\n2x = 6\nx = 3\n#### 3") is None
    assert function(DUCKS, "#### 18") is None


def test_work_is_bounded():
    # a trace over the node budget has no function (no evidence either way), quickly
    terms = " + ".join(["16 * 3 - 4"] * 200)
    text = f"{terms} = {200 * 44}\n#### {200 * 44}"
    assert function(DUCKS, text) is None
    assert side_reader.parse_side("1" * 500) is None  # a side over the character bound
    assert side_reader.parse_side("2 ^ 100000") is None  # an exponent over the bound


def test_the_policy_withholds_support_and_refutes_nothing():
    text = "16 + 16 * 100 / 1600 * 2 = 18\n#### 18"
    off = score_trace(DUCKS, text, mode="reward", config=OFF)
    on = score_trace(DUCKS, text, mode="reward", config=ON)
    assert off.supported and off.score > 90
    assert on.score == 0.0 and on.supported is False and on.terms["derivation"] == 0.0
    assert on.suspect_step is None and all(c.q >= 0.5 for c in on.step_checks)  # unsupported is not wrong
    assert any("no function of the problem" in r for r in on.reasons)
    # evaluation mode reads no function: it reports, it does not withhold
    assert score_trace(DUCKS, text, config=ON).terms["derivation"] == 1.0
    # the faithful trace is untouched
    assert score_trace(DUCKS, GOLD, mode="reward", config=ON).score == score_trace(DUCKS, GOLD, mode="reward",
                                                                                   config=OFF).score


def test_both_rewards_read_it_and_the_setting_is_a_config_key():
    text = "16 + 16 * 100 / 1600 * 2 = 18\n#### 18"
    for config, paid in ((ON, (0.0, 0.5)), (OFF, None)):
        rafs, fa = get_rafs_reward(config=config), get_faithful_accuracy_reward(config=config)
        got = (rafs([DUCKS], [text], answer=["18"])[0], fa([DUCKS], [text], answer=["18"])[0])
        if paid is None:
            assert got[0] > 0.9 and got[1] == 1.0
        else:
            assert got == paid
    assert RAFSConfig().derivation_function is True
    with pytest.raises(ValueError, match="derivation_function"):
        RAFSConfig(derivation_function="yes")
    assert pickle.loads(pickle.dumps(get_rafs_reward(config=ON))).config.derivation_function is True


def test_deterministic_and_thread_safe():
    texts = [GOLD, "16 + 16 * 100 / 1600 * 2 = 18\n#### 18", "16 + 2 = 18\n18 + 2 * 300 / 3 - 200 = 18\n#### 18"]
    expected = [function(DUCKS, t).degenerate for t in texts]
    out: list = []

    def run():
        out.append([function(DUCKS, t).degenerate for t in texts])

    threads = [threading.Thread(target=run) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert out == [expected] * 4


def test_modular_evaluation_tells_a_constant_from_a_function():
    f = function(DUCKS, GOLD)
    assert f.at({1: Fraction(1, 3)}) == (16 - Fraction(1, 3) - 4) * 2
    assert f.at({3: 0}) == 0


def test_an_equation_written_again_in_its_step_is_not_read_through_its_own_result():
    """GSM8K writes each computation twice ("14*0=<<14*0=0>>0"): the second computes what the first did; its 0 is the
    written zero (six hats with no stripes), not the first one's result, so the product stays an honest zero."""
    problem = ("Bill gathered 12 red mushrooms and 6 brown mushrooms. Ted gathered 14 green mushrooms and 6 blue "
               "mushrooms. If half of the blue mushrooms, two-thirds of the red mushrooms, and all of the brown "
               "mushrooms have white spots, how many white-spotted mushrooms did they gather?")
    gold = ("Of the 12 red mushrooms, 2/3 had spots, for a total of (2/3)*12=<<2/3*12=8>>8 white-spotted mushrooms.\n"
            "Of the 6 brown mushrooms, 100% had spots, for a total of (100/100)*6=<<6*100/100=6>>6 white-spotted "
            "mushrooms.\nOf the 14 green mushrooms, 0% had white spots, for a total of 14*0=<<14*0=0>>0 "
            "white-spotted mushrooms.\nAnd of the 6 blue mushrooms, half had spots, for a total of "
            "(1/2)*6=<<6*1/2=3>>3 white-spotted mushrooms.\nIn total, they gathered 8+6+0+3=<<8+6+0+3=17>>17 "
            "white-spotted mushrooms.\n#### 17")
    f = function(problem, gold)
    assert f is not None and f.degenerate is None, f
    assert score_trace(problem, gold, mode="reward").supported
