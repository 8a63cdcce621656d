r"""Irrational answers reached by a chain that carries a value through a letter, a ``\pm`` branch or a name written
again (:mod:`rewards.evidence.substitutions`), and the quadratic formula over several lines.

Each faithful trace is paid in full by ``faithful_accuracy_reward``; each cheapest completion a policy would write to
earn the same support without the reasoning (a letter bound to the answer itself, a letter's value stated from
nowhere, a substitution that does not hold, a letter never bound, the ``\pm`` formula with no coefficient of the
problem put in) earns no more than the bare answer. Nothing here refutes a step.
"""

from __future__ import annotations

import pytest

from rewards import RAFSConfig, faithful_accuracy_reward, rafs_reward, score_trace
from rewards.checks.latex_algebra import equal_under
from rewards.evidence.substitutions import bindings, has_letters, plus_minus_links  # noqa: F401 - public surface


def _pay(problem: str, completion: str, gold: str) -> tuple[float, float]:
    rafs = rafs_reward([problem], [completion], answer=[gold])[0] or 0.0
    faithful = faithful_accuracy_reward([problem], [completion], answer=[gold])[0] or 0.0
    return rafs, faithful


LEGS = "A right triangle has legs of length 1 and 2. Find twice the length of its hypotenuse."
LEGS_GOLD = "2\\sqrt{5}"
LETTER = (r"The hypotenuse is $c = \sqrt{1^2 + 2^2} = \sqrt{5}$." "\n\n" r"Then $2c = 2\sqrt{5}$." "\n\n"
          r"The answer is $\boxed{2\sqrt{5}}$.")
ROOT_CHOSEN = (r"We have $c^2 = 1^2 + 2^2 = 5$, so $c = \sqrt{5}$." "\n\n" r"Then $2c = 2\sqrt{5}$." "\n\n"
               r"The answer is $\boxed{2\sqrt{5}}$.")
QUAD = "A quadratic has leading coefficient 1, linear coefficient -6 and constant term 4. Find its larger root."
QUAD_GOLD = "3 + \\sqrt{5}"
FORMULA_LINES = ("By the quadratic formula,\n"
                 r"\[x = \frac{-(-6) \pm \sqrt{(-6)^2 - 4(1)(4)}}{2(1)}\]" "\n" r"\[= \frac{6 \pm \sqrt{36 - 16}}{2}\]"
                 "\n\n" r"So \[x = \frac{6 \pm \sqrt{20}}{2}\]" "\n\n" r"Thus \[x = 3 \pm \sqrt{5}\]" "\n\n"
                 r"The larger root is $\boxed{3 + \sqrt{5}}$.")

FAITHFUL = [(LEGS, LETTER, LEGS_GOLD), (LEGS, ROOT_CHOSEN, LEGS_GOLD), (QUAD, FORMULA_LINES, QUAD_GOLD)]


@pytest.mark.parametrize("problem, completion, gold", FAITHFUL)
def test_a_value_carried_to_an_irrational_answer_is_paid_in_full(problem, completion, gold):
    assert faithful_accuracy_reward([problem], [completion], answer=[gold])[0] == 1.0
    result = score_trace(problem, completion, config=RAFSConfig(missing_evidence="no_support"))
    assert not any(c.q is not None and c.q < 0.5 for c in result.step_checks)  # support only: nothing refuted


@pytest.mark.parametrize("attack", [
    # a letter bound to the answer itself, then the letter restated
    r"Let $c = 2\sqrt{5}$." "\n\n" r"So $c = 2\sqrt{5}$, and the answer is $\boxed{2\sqrt{5}}$.",
    # a letter's value stated from nowhere (no step derives \sqrt{5}), then carried
    r"Let $c = \sqrt{5}$. Then $2c = 2\sqrt{5}$." "\n\n" r"The answer is $\boxed{2\sqrt{5}}$.",
    # the root of a square nothing reached (5 is no result of the legs 1 and 2 here)
    r"We have $c^2 = 5$, so $c = \sqrt{5}$." "\n\n" r"Then $2c = 2\sqrt{5}$." "\n\n" r"The answer is $\boxed{2\sqrt{5}}$.",
    # a substitution that does not hold (3c is not 2\sqrt{5}): the answer written after it is no result
    r"The hypotenuse is $c = \sqrt{1^2 + 2^2} = \sqrt{5}$." "\n\n" r"Then $3c = 2\sqrt{5}$." "\n\n"
    r"The answer is $\boxed{2\sqrt{5}}$.",
    # a letter never bound (h is, c is not)
    r"The hypotenuse is $h = \sqrt{1^2 + 2^2} = \sqrt{5}$." "\n\n" r"Then $2c = 2\sqrt{5}$." "\n\n"
    r"The answer is $\boxed{2\sqrt{5}}$.",
    # a derived root with the answer written around it: 2 \cdot \sqrt{5} for 2\sqrt{5} computes nothing
    r"The hypotenuse is $\sqrt{1^2 + 2^2} = \sqrt{5}$, and so $2 \cdot \sqrt{5} = 2\sqrt{5}$." "\n\n"
    r"The answer is $\boxed{2\sqrt{5}}$.",
])
def test_a_letter_that_carries_nothing_checked_earns_no_more_than_the_bare_answer(attack):
    bare = _pay(LEGS, r"The answer is $\boxed{2\sqrt{5}}$.", LEGS_GOLD)
    faithful = _pay(LEGS, LETTER, LEGS_GOLD)
    paid = _pay(LEGS, attack, LEGS_GOLD)
    assert paid[0] <= bare[0] and paid[1] <= bare[1]
    assert paid[1] < faithful[1]


@pytest.mark.parametrize("attack", [
    # the formula in letters, then coefficients of no problem (2, -12, 8: the same roots, other numbers)
    "By the quadratic formula,\n" r"\[x = \frac{-b \pm \sqrt{b^2 - 4ac}}{2a}\]" "\n\n"
    r"\[x = \frac{-(-12) \pm \sqrt{(-12)^2 - 4(2)(8)}}{2(2)}\]" "\n" r"\[= \frac{12 \pm \sqrt{80}}{4}\]" "\n\n"
    r"Thus \[x = 3 \pm \sqrt{5}\]" "\n\n" r"The larger root is $\boxed{3 + \sqrt{5}}$.",
    # the formula in letters, then its value with nothing of the problem put in
    "By the quadratic formula,\n" r"\[x = \frac{-b \pm \sqrt{b^2 - 4ac}}{2a}\]" "\n\n" r"\[x = \frac{6 \pm \sqrt{20}}{2}\]"
    "\n\n" r"Thus \[x = 3 \pm \sqrt{5}\]" "\n\n" r"The larger root is $\boxed{3 + \sqrt{5}}$.",
])
def test_the_plus_minus_formula_without_the_problem_earns_no_more_than_the_bare_answer(attack):
    bare = _pay(QUAD, r"The larger root is $\boxed{3 + \sqrt{5}}$.", QUAD_GOLD)
    paid = _pay(QUAD, attack, QUAD_GOLD)
    assert paid[0] <= bare[0] and paid[1] <= bare[1]
    assert paid[1] < _pay(QUAD, FORMULA_LINES, QUAD_GOLD)[1]


def test_a_value_is_put_into_the_parsed_expression_not_into_the_text():
    assert equal_under("2c", r"2\sqrt{5}", {"c": r"\sqrt{5}"}).verified
    assert not equal_under("2c", r"3\sqrt{5}", {"c": r"\sqrt{5}"}).verified
    assert equal_under(r"\pi r^2", r"7\pi", {"r": r"\sqrt{7}"}).verified
    # a name that is no single letter, a value with a letter, too many values: undecided, never verified
    assert equal_under("2c", r"2\sqrt{5}", {"c": "x"}).status == "undecided"
    assert equal_under("2c", "2", {"c + 1": "1"}).status == "undecided"
    assert equal_under("a+b+c+d+e", "5", {n: "1" for n in "abcde"}).status == "undecided"


def test_bindings_are_lone_names_whose_segment_ends_in_a_number():
    sides = [(0, "c", False), (0, r"\sqrt{1 + 4}", True), (0, r"\sqrt{5}", True), (1, "2c", False),
             (1, r"2\sqrt{5}", True), (2, "y", False), (2, r"x + 1", True), (3, "z", False), (3, r"1 \pm 2", True)]
    assert [(b.name, b.value, b.step) for b in bindings(sides)] == [("c", r"\sqrt{5}", 0)]
    assert has_letters(r"\frac{c}{2}") and not has_letters(r"2\sqrt{5} + \pi")


def test_the_plus_minus_formula_over_lines_makes_its_numbers_results():
    """36 and 16, written on the line after the formula with the problem's coefficients put in, are results of that
    line, no numbers from nowhere; after coefficients nothing reached (144 and 64 from 12 and 8), they stay flagged."""
    from rewards.evidence.builder import build_dataflow
    from rewards.parsing.trace import parse_trace

    def flagged(lines: str) -> set:
        flow = build_dataflow(parse_trace(QUAD, lines + "\n\nThe answer is $\\boxed{3 + \\sqrt{5}}$."))
        return {v for step in flow.steps for v in step.ungrounded + step.stray + step.unsupported}

    assert not flagged(r"\[x = \frac{-(-6) \pm \sqrt{(-6)^2 - 4(1)(4)}}{2(1)}\]" "\n"
                       r"\[= \frac{6 \pm \sqrt{36 - 16}}{2}\]") & {36, 16}
    assert flagged(r"\[x = \frac{-(-12) \pm \sqrt{(-12)^2 - 4(2)(8)}}{2(2)}\]" "\n"
                   r"\[= \frac{12 \pm \sqrt{144 - 64}}{4}\]") & {144, 64, 12, 8}


SQUARE = "A square has an area of 48 square centimeters. Find its perimeter, in centimeters."
SQUARE_GOLD = (r"The side is \[ s = \sqrt{48} = \sqrt{16 \cdot 3} = 4\sqrt{3} \]" "\n\n"
               r"The perimeter is \[ 4 \cdot 4\sqrt{3} = 16\sqrt{3} \]" "\n\n" r"The answer is $\boxed{16\sqrt{3}}$.")


def test_a_radical_derived_by_one_chain_is_carried_into_the_next():
    """``4\\sqrt{3}``, the result of a verified chain from the problem's 48, is a sub-result a later chain may
    compute with (``4 \\cdot 4\\sqrt{3}``); the same later chain after a radicand nothing reached earns no more
    than the bare answer."""
    assert faithful_accuracy_reward([SQUARE], [SQUARE_GOLD], answer=["16\\sqrt{3}"])[0] == 1.0
    bare = _pay(SQUARE, r"The answer is $\boxed{16\sqrt{3}}$.", "16\\sqrt{3}")
    attack = (r"The side is \[ s = \sqrt{27} = \sqrt{9 \cdot 3} = 3\sqrt{3} \]" "\n\n"
              r"The perimeter is \[ \frac{16}{3} \cdot 3\sqrt{3} = 16\sqrt{3} \]" "\n\n"
              r"The answer is $\boxed{16\sqrt{3}}$.")
    paid = _pay(SQUARE, attack, "16\\sqrt{3}")
    assert paid[0] <= bare[0] and paid[1] <= bare[1]
