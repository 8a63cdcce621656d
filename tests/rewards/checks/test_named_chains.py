"""Equations that name one quantity, read as one chain (rewards.checks.named_chains), within a step and across steps.

The join is evidence for a computation (``OP^2 = 100 - 36`` then ``OP^2 = 64``), never against two values of one
name (roots, cases, trials); a name's arithmetic followed at once by a different stated result is a checked falsehood.
"""

from __future__ import annotations

import time

import pytest

from rewards.checks.arithmetic import check_equation, extract_equations
from rewards.checks.equations import step_equations
from rewards.checks.named_chains import MAX_CHAIN, join_across, merge_named
from rewards.parsing.trace import parse_trace
from rewards.evidence import build_dataflow
from rewards.scoring.score import RAFSConfig, score_trace

CONFIG = RAFSConfig(missing_evidence="no_support")
PROBLEM = "In right triangle $AOP$, the hypotenuse $AO = 10$ and $AP = 6$. Find $OP$."


def _read(text: str) -> list[tuple[str, bool | None]]:
    return [(" = ".join(eq.sides), check.ok) for eq, check in step_equations(text)]


def test_a_latex_computation_on_consecutive_lines_is_one_verified_chain():
    assert _read(r"\[ x = \frac{5}{4} + 3 \] \[ x = \frac{5}{4} + \frac{12}{4} \] \[ x = \frac{17}{4} \]") == [
        (r"x = \frac{5}{4} + 3 = \frac{5}{4} + \frac{12}{4} = \frac{17}{4}", True)]
    assert _read(r"\[ OP^2 = 100 - 36 \] \[ OP^2 = 64 \]") == [("OP^2 = 100 - 36 = 64", True)]


def test_two_values_of_one_name_are_left_as_written():
    # two roots, a case list, a restated value: no join, and nothing refuted
    assert _read(r"\[ y = 2 + \sqrt{5} \] and \[ y = 2 - \sqrt{5} \]") == [
        (r"y = 2 + \sqrt{5}", None), (r"y = 2 - \sqrt{5}", None)]
    assert _read(r"If \( x = 4 + 3 \), or \( x = 9 \), ...") == [("x = 4 + 3", None), ("x = 9", None)]
    assert _read(r"\[ x = 0 \] \[ x = 0 \]") == [("x = 0", None), ("x = 0", None)]
    assert _read(r"\[ x = 3 \pm 2 \] \[ x = 5 \]") == [(r"x = 3 \pm 2", None), ("x = 5", None)]


def test_a_computation_then_a_different_result_is_refuted():
    [(chain, ok)] = _read(r"\[ OP^2 = 100 - 36 \] \[ OP^2 = 62 \]")
    assert (chain, ok) == ("OP^2 = 100 - 36 = 62", False)
    [(eq, check)] = step_equations(r"\[ OP^2 = 100 - 36 \] \[ OP^2 = 62 \]")
    assert "100 - 36 is 64, not 62" in check.detail


def test_a_false_join_never_refutes_between_listed_roots_cases_or_congruences():
    # two bare values, cases, a congruence between them: values listed, not a result stated
    assert [ok for _, ok in _read(r"\( x = 7 \) and \( x = 9 \)")] == [None, None]
    assert [ok for _, ok in _read(r"If \( x = 4 + 3 \) and \( x = 9 \)")] == [None, None]
    # a computation given to a name, then another bare value for it: the computation's result stated wrongly
    assert [ok for _, ok in _read(r"\( x = 4 + 3 \) and \( x = 9 \)")] == [False]
    previous = step_equations(r"\[ R = 2^{-1} + 3^{-1} \equiv 4 + 5 \equiv 9 \pmod{7} \] Since \(9 \equiv 2\), ")
    later = step_equations(r"we have \( R = 2 \).")
    assert [check.ok for _, check in join_across(previous, later, "x", "y")] == [None]


def test_across_steps_the_chain_keeps_its_first_side():
    steps = (r"\[ OP^2 = 10^2 - 6^2 \]", r"\[ OP^2 = 100 - 36 \]", r"\[ OP^2 = 64 \]")
    first = step_equations(steps[0])
    second = join_across(first, step_equations(steps[1]), steps[0], steps[1])
    third = join_across(second, step_equations(steps[2]), steps[1], steps[2])
    assert [" = ".join(eq.sides) for eq, _ in third] == ["OP^2 = 10^2 - 6^2 = 100 - 36 = 64"]
    assert third[0][1].ok is True


def test_a_chain_is_bounded():
    lines = " ".join(rf"\[ s = {k} + 1 \]" for k in range(40))  # no link holds: nothing joins
    assert len(step_equations(lines)) == 40
    lines = r"\[ s = 1 + 1 \] " + " ".join(r"\[ s = 1 + 1 \]" for _ in range(40))
    assert all(len(eq.sides) <= MAX_CHAIN for eq, _ in step_equations(lines))


def test_merge_named_on_checked_pairs():
    eqs = extract_equations(r"\[ a_{14} = 1 \cdot (-2)^{13} \] \[ a_{14} = -8192 \]")
    [(eq, check)] = merge_named([(e, check_equation(e)) for e in eqs])
    assert check.ok is True and eq.sides[-1].strip() == "-8192"


def _scored(steps: list[str]) -> float:
    return score_trace(PROBLEM, "\n\n".join(steps), gold="8", config=CONFIG).score


VALID = [r"By Pythagoras, \[ OP^2 = 10^2 - 6^2 \]", r"\[ OP^2 = 100 - 36 \]", r"\[ OP^2 = 64 \]",
         r"\[ OP = \sqrt{64} \]", r"\[ OP = 8 \]", r"So $OP = \boxed{8}$."]


def test_a_valid_display_derivation_is_supported():
    result = score_trace(PROBLEM, "\n\n".join(VALID), gold="8", config=CONFIG)
    assert result.supported and result.suspect_step is None
    assert result.score > 90


def test_its_slip_is_refuted_and_earns_less():
    flawed = list(VALID)
    flawed[2] = r"\[ OP^2 = 62 \]"
    result = score_trace(PROBLEM, "\n\n".join(flawed), gold="8", config=CONFIG)
    assert result.suspect_step == 2
    assert result.score < _scored(VALID) / 2


def test_a_true_but_irrelevant_named_computation_earns_no_more_than_in_one_line():
    # "t = 5 + 3", "t = 8" read as "t = 5 + 3 = 8": what the one-line chain earns, never support
    two_lines = score_trace(PROBLEM, "\\[ t = 5 + 3 \\]\n\n\\[ t = 8 \\]\n\n\\boxed{8}", gold="8", config=CONFIG)
    one_line = score_trace(PROBLEM, "\\[ t = 5 + 3 = 8 \\]\n\n\\boxed{8}", gold="8", config=CONFIG)
    assert not two_lines.supported
    assert two_lines.score <= one_line.score + 1e-9


def test_a_negated_derived_value_is_the_derived_value():
    problem = ("An algebraic expression of the form $a + bx$ has the value of $15$ when $x = 2$ and the value of $3$ "
               "when $x = 5$. Calculate $a + b$.")
    steps = ["Substituting: \\( a + 2b = 15 \\) and \\( a + 5b = 3 \\).",
             "Subtracting, \\( a + 5b - (a + 2b) = 3 - 15 \\), so \\( 3b = -12 \\).", "\\( b = -4 \\).",
             "Then \\( a + 2(-4) = 15 \\), \\( a - 8 = 15 \\), \\( a = 23 \\).",
             "\\( a + b = 23 + (-4) = 19 \\).", "\\boxed{19}"]
    t = parse_trace(problem, "\n\n".join(steps))
    flow = build_dataflow(t)
    assert flow.answer_step == 4 and not flow.steps[4].unsupported
    # a negated value nothing derived stays unsupported
    t = parse_trace(problem, "\\( 23 + (-7) = 16 \\).\n\n\\boxed{16}")
    assert build_dataflow(t).steps[0].unsupported


def test_hostile_latex_is_read_in_bounded_time():
    huge = " ".join(r"\[ x = 9^{9^{9^{9}}} + \frac{1}{\sqrt{\sqrt{\sqrt{2}}}} \]" for _ in range(150))
    steps = [huge, r"\[ x = " + "(" * 200 + "1" + ")" * 200 + r" \]", huge]
    start = time.process_time()
    score_trace(PROBLEM, "\n\n".join(steps) + "\n\n\\boxed{8}", gold="8", config=CONFIG)
    assert time.process_time() - start < 1.0


def test_a_quadratic_formula_chain_is_two_verified_branches():
    text = (r"\[ y = \frac{-(-4) \pm \sqrt{(-4)^2 - 4(1)(-1)}}{2(1)} \] \[ y = \frac{4 \pm \sqrt{16 + 4}}{2} \]"
            r" \[ y = 2 \pm \sqrt{5} \]")
    read = _read(text)
    assert [ok for _, ok in read] == [True, True]
    assert read[0][0].endswith(r"2 + \sqrt{5}") and read[1][0].endswith(r"2 - \sqrt{5}")


def test_a_false_or_one_sided_plus_minus_chain_stays_unchecked():
    assert _read(r"\[ x = \frac{1 \pm 17}{2} = 9 \]") == [(r"x = \frac{1 \pm 17}{2} = 9", None)]  # a root chosen
    assert [ok for _, ok in _read(r"\[ x = 1 \pm 2 \] \[ x = 1 \pm 3 \]")] == [None, None]  # false: not joined
    assert [ok for _, ok in _read(r"\[ x = \frac{1 \pm 17}{2} \] \[ x = 9 \]")] == [None, None]
    assert all(ok is None for _, ok in _read(r"\( x = 7 \pm 6 \pmod{12} = 1 \pm 0 \)"))


# ------------------------------------------------------- what a policy that knows only the answer gains (GSM8K test 0)
DUCKS = ("Janet’s ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes muffins for her "
         "friends every day with four. She sells the remainder at the farmers' market daily for $2 per fresh duck egg. "
         "How much in dollars does she make every day at the farmers' market?")
DUCKS_GOLD = ("Janet sells 16 - 3 - 4 = 9 duck eggs a day.\nShe makes 9 * 2 = $18 every day at the farmer’s market.\n"
              "#### 18")
DUCKS_SLIP = DUCKS_GOLD.replace("= 9 duck", "= 10 duck")
# the visible slip's false result written as a second value of a name the same step assigns the true computation
DUCKS_SECOND_VALUE = DUCKS_SLIP.replace("Janet sells 16 - 3 - 4 = 10 duck eggs a day.",
                                        "Janet sells $T = 16 - 3 - 4$, or $T = 10$ duck eggs a day.")


def _reward(reward: str, problem: str, completion: str, gold: str) -> float:
    from rewards.adapters.trl_rewards import get_faithful_accuracy_reward, get_rafs_reward
    fn = get_rafs_reward(cache=False) if reward == "rafs" else get_faithful_accuracy_reward(cache=False)
    value = fn([problem], [completion], answer=[gold])[0]
    return 0.0 if value is None else float(value)


@pytest.mark.parametrize("reward", ["rafs", "faithful_accuracy"])
def test_a_plus_minus_chain_earns_no_more_than_the_same_shortcut_written_plainly(reward):
    """Both branches of ``\\pm`` verified derive nothing a plain equation would not: the shortcut ``16 + 2 = 18``
    written as a quadratic-formula chain earns no more (measured over GSM8K test: fa equal on all 170 problems where
    such a shortcut exists, rafs at least the gold on 49 against 77 plainly)."""
    plus_minus = "$x = \\frac{2 \\cdot 16 \\pm 2 \\cdot 2}{2} = 16 \\pm 2$, so $x = 18$.\n#### 18"
    plain = "16 + 2 = 18.\n#### 18"
    assert _reward(reward, DUCKS, plus_minus, "18") <= _reward(reward, DUCKS, plain, "18")
    # and a constant the constant rules refuse (15 is in no problem) is no more licensed behind a \pm
    assert _reward("faithful_accuracy", DUCKS, "$x = \\frac{2 \\cdot 5 \\pm 2 \\cdot 13}{2} = 5 \\pm 13$, so $x = 18$."
                   "\n#### 18", "18") < _reward("faithful_accuracy", DUCKS, DUCKS_GOLD, "18")


# closed: every value a name is given is checked. A computation of numbers given to a name, then a different bare
# number given to the same name after an "or"/"and"/comma, states the computation's result wrongly: the joined chain
# is refuted at that link, as the visible slip is. Before: fa >= the visible slip on 1,234 of 1,234 GSM8K test slips.
@pytest.mark.parametrize("reward", ["rafs", "faithful_accuracy"])
@pytest.mark.parametrize("joint", [", or", " or", ", and", ","])
def test_a_slip_hidden_as_a_second_value_of_a_name_earns_no_more_than_the_visible_slip(reward, joint):
    hidden = DUCKS_SECOND_VALUE.replace("$, or $", f"${joint} $")
    assert hidden != DUCKS_SLIP
    assert _reward(reward, DUCKS, hidden, "18") <= _reward(reward, DUCKS, DUCKS_SLIP, "18")
    assert _reward(reward, DUCKS, hidden, "18") < _reward(reward, DUCKS, DUCKS_GOLD, "18")


@pytest.mark.parametrize("text", [
    r"\( x^2 - 5x - 36 = 0 \), so \( x = 9, -4 \).",                           # two roots, listed
    r"So \( x = 9 \), \( x = -4 \).",
    r"So \( x = 3 \) or \( x = -2 \).",                                          # two bare roots
    r"\( (x - 2)(x - 3) = 0 \), so \( x = \frac{5 + 1}{2} \) or \( x = 2 \).",  # a root computed, one stated
    r"If \( T = 16 - 3 - 4 \), or \( T = 10 \) in the second case.",             # cases
    r"The roots are \( x = \frac{5 + 1}{2} \) or, trying the other, \( x = 2 \).",
])
def test_honest_root_pairs_and_cases_are_not_refuted(text):
    assert all(ok is not False for _, ok in _read(text))


def test_a_name_given_its_computed_value_again_is_one_verified_chain():
    assert _read(r"Janet sells \( T = 16 - 3 - 4 \), or \( T = 9 \) duck eggs.") == [("T = 16 - 3 - 4 = 9", True)]


def test_a_radical_and_a_bare_value_of_one_name_are_roots():
    assert all(ok is not False for _, ok in _read(r"\( b = 15\sqrt{3} \quad \text{or} \quad b = 59 \)"))
