r"""An answer read off a solved inequality is derived when a verified chain of inequalities reaches it from the
problem (:mod:`rewards.evidence.bound_answers`): the greatest or least integer, the number of integers, an interval.
Gaming that route earns no more than the bare answer: a bound asserted without solving, the problem's inequality
copied and the bound stated, a trial value checked on one side, a bound built from numbers the problem does not
state, an interval copied beside the problem's inequality. Nothing here refutes."""

from __future__ import annotations

import pytest
from redteam_cases import bare_both, pay_both

from rewards import RAFSConfig, score_trace
from rewards.evidence import bound_answers
from rewards.evidence.bound_answers import bound_chain
from rewards.evidence.builder import build_dataflow
from rewards.parsing.trace import parse_trace

EVALUATION = RAFSConfig()

GREATEST = "What is the greatest integer that satisfies $6 - x > -9$ ?"
GREATEST_VALID = r"""To solve the inequality $6 - x > -9$, we isolate $x$.

First, add $x$ to both sides: $6 > -9 + x$.

Then add $9$ to both sides: $6 + 9 > x$, which simplifies to $15 > x$.

The greatest integer less than 15 is 14, so the answer is $\boxed{14}$."""

KIDS = ("Deanna has $44$ pieces of candy. What is the largest number of kids whom she can give an equal number of "
        "candies such that every kid gets at least $3$ pieces?")
KIDS_VALID = r"""If $n$ kids each receive at least 3 candies, we must have \( 3n \leq 44 \).

Since $n$ is an integer, \( n \leq 14 \), since \( 15 \cdot 3 = 45 > 44 \).

Thus the largest possible value is \( \boxed{14} \)."""

DOMAIN = (r"Given $f(x) = \frac{\sqrt{2x-6}}{x-3}$, what is the smallest possible integer value for $x$ such that "
          r"$f(x)$ has a real number value?")
DOMAIN_VALID = r"""The square root needs \[ 2x - 6 \geq 0 \] Solving: \[ 2x \geq 6 \implies x \geq 3 \]

The denominator must not be zero: \[ x - 3 \neq 0 \implies x \neq 3 \]

So $x > 3$, and the smallest integer is \(\boxed{4}\)."""

COUNT = "For how many positive integer values of $x$ is the sum $x^2+4x+4$ less than 20?"
COUNT_VALID = r"""We write $x^2 + 4x + 4$ as $(x + 2)^2$, so we want \( (x + 2)^2 < 20 \).

Taking square roots, \( |x + 2| < \sqrt{20} \), and since $x$ is positive, \( x + 2 < \sqrt{20} \), so \( x < \sqrt{20} - 2 \).

The positive integers below $\sqrt{20} - 2 \approx 2.47$ are 1 and 2: there are \( \boxed{2} \)."""

INTERVAL = "For what values of $x$ is it true that $x^2 - 5x - 4 \\le 10$? Express your answer in interval notation."
INTERVAL_VALID = (r"Re-arranging, $x^2 - 5x - 14 \le 0$. The left-hand quadratic factors as $x^2 - 5x - 14 = (x - 7)"
                  r"(x + 2) \le 0$. Thus, $x-7$ and $x+2$ have opposite signs, so $-2 \le x \le 7$ and "
                  r"$\boxed{x \in [-2,7]}$.")


_pay, _bare = pay_both, bare_both


@pytest.mark.parametrize("problem, text, gold", [
    (GREATEST, GREATEST_VALID, "14"),
    (KIDS, KIDS_VALID, "14"),
    (DOMAIN, DOMAIN_VALID, "4"),
    (COUNT, COUNT_VALID, "2"),
    (INTERVAL, INTERVAL_VALID, "x \\in [-2,7]"),
])
def test_a_solved_inequality_from_the_problem_supports_the_answer_read_off_it(problem, text, gold):
    faithful, bare = _pay(problem, text, gold), _bare(problem, gold)
    assert faithful[0] == 1.0 and bare[0] == 0.5
    assert faithful[1] > 0.7 and bare[1] == 0.0


def test_the_chain_is_the_answers_path_and_its_links_are_checks():
    trace = parse_trace(GREATEST, GREATEST_VALID)
    flow = build_dataflow(trace)
    assert flow.symbolic is not None and flow.symbolic.steps == frozenset({0, 1, 2})
    assert flow.symbolic.sensitivity == 1.0 and flow.symbolic.degenerate is None
    linked = [t for t, step in enumerate(flow.steps) for c in step.checks if "same solutions" in c.detail]
    assert linked == [1, 2, 2]


@pytest.mark.parametrize("problem, attack, gold", [
    (GREATEST, r"We have $x < 15$, so the greatest integer is $\boxed{14}$.", "14"),  # a bound asserted
    (GREATEST, r"From $6 - x > -9$ we get $x < 15$, so $\boxed{14}$.", "14"),  # the problem copied, a bound stated
    (GREATEST, r"Try $x = 14$: $6 - 14 = -8 > -9$, so it works. The answer is $\boxed{14}$.", "14"),  # one side
    (GREATEST, r"Try $x = 14$: $6 - 14 > -9$. Then $x < 15$. The answer is $\boxed{14}$.", "14"),
    (KIDS, r"We need $n \leq 14$, so $\boxed{14}$.", "14"),  # a bound from a number the problem does not state
    (KIDS, r"We need \( 3n \leq 44 \), so the answer is \( \boxed{14} \).", "14"),  # the set-up, no step solved
    (DOMAIN, r"We need \( x > 3 \), so \(\boxed{4}\).", "4"),
    (INTERVAL, r"We need $x^2 - 5x - 4 \le 10$, so $\boxed{x \in [-2,7]}$.", "x \\in [-2,7]"),  # copied
    (INTERVAL, r"So $-2 \le x \le 7$, that is $\boxed{x \in [-2,7]}$.", "x \\in [-2,7]"),  # the set asserted
])
def test_gaming_the_bound_route_earns_no_more_than_the_bare_answer(problem, attack, gold):
    gamed, bare = _pay(problem, attack, gold), _bare(problem, gold)
    assert gamed[0] <= bare[0] and gamed[1] <= bare[1] + 1e-9


def test_links_hold_over_the_domain_the_question_asks_about():
    # x < 15 and x <= 14 have the same integers, not the same reals: an interval answer reads the reals
    assert bound_chain(GREATEST, ["$6 - x > -9$, so $6 + 9 > x$, so $x \\le 14$: $\\boxed{14}$."], "14") is not None
    interval = "Solve $6 - x > -9$. Give your answer in interval notation."
    assert bound_chain(interval, ["$6 - x > -9$, so $6 + 9 > x$, so $x \\le 14$."], "(-\\infty, 14]") is None
    assert bound_chain(interval, ["$6 - x > -9$, so $6 + 9 > x$, so $x < 15$."], "(-\\infty, 15)") is not None


def test_the_question_decides_what_is_read_off_the_set():
    steps = ["$6 - x > -9$, so $6 + 9 > x$, so $15 > x$."]
    assert bound_chain(GREATEST, steps, "15") is None  # not in the set
    assert bound_chain(GREATEST.replace("greatest", "smallest"), steps, "14") is None  # no least integer
    count = "How many positive integers satisfy $6 - x > -9$?"
    assert bound_chain(count, steps, "14") is not None and bound_chain(count, steps, "15") is None


@pytest.mark.parametrize("problem, words", [
    (KIDS, ["max"]),  # "at least 3 pieces" is a condition; "the largest number of" asks the greatest
    (COUNT, ["count"]),
    ("What is the smallest $n$ with $n^2 > 50$?", ["min"]),
    ("Find the number of integers $n$ with $|n| < 3$.", ["count"]),
    ("How many integers are at most $7$ and at least $2$?", ["count"]),
])
def test_the_question_words_read(problem, words):
    assert bound_answers._question_words(problem) == words


def test_a_false_or_unsolved_step_cuts_the_chain_and_refutes_nothing():
    false = GREATEST_VALID.replace("$6 > -9 + x$", "$6 > 9 + x$")
    chain = bound_chain(GREATEST, parse_trace(GREATEST, false).steps, "14")
    assert chain is not None and 1 not in chain.steps  # the false line is no link; the chain goes on past it
    wrong = "To solve $6 - x > -9$: $6 > -9 + x$, so $x > 15$, and the answer is $\\boxed{14}$."
    assert bound_chain(GREATEST, [wrong], "14") is None
    result = score_trace(GREATEST, wrong, gold="14", config=EVALUATION)
    assert not any(c.q is not None and c.q < 0.5 for c in result.step_checks)


def test_sensitivity_is_the_share_of_edits_of_the_start_that_move_the_answer():
    chain = bound_chain(KIDS, parse_trace(KIDS, KIDS_VALID).steps, "14")
    assert chain is not None and chain.sensitivity == 1.0 and chain.start == "3n \\leq 44"
    # an inequality whose numbers do not decide the answer: no edit moves it, no derivation
    flat = "What is the smallest positive integer $n$ with $n^2 + 44 > 3$?"
    degenerate = bound_chain(flat, ["$n^2 + 44 > 3$, so $n^2 + 41 > 0$, so $n^2 > -41$, which every $n$ satisfies: "
                                    "$\\boxed{1}$."], "1")
    assert degenerate is not None and degenerate.sensitivity == 0.0 and degenerate.degenerate


@pytest.mark.parametrize("answer, read", [
    ("14", True), ("(-\\infty, 14]", True), ("x \\in [-2,7]", True), ("(1, 2) \\cup (3, \\infty)", True),
    ("(4, -7)", False), ("x = 5", False), ("\\frac{1}{2}", False), ("abc", False),
])
def test_which_answers_the_route_reads(answer, read):
    problem = "What is the largest integer $x$ such that $x^2 < 200$?"
    assert (bound_answers._answer_reader(problem, answer) is not None) == read


def test_the_route_is_bounded_and_never_raises(monkeypatch):
    calls = []
    real = bound_answers._one

    def counted(*args):
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(bound_answers, "_one", counted)
    many = " ".join(f"$|x - {k}| < {k + 3}$." for k in range(200))
    assert bound_chain("What is the largest integer $x$ with $|x - 1| < 4$?", [many], "4") is None
    assert len(calls) <= bound_answers.MAX_SOLVES
    assert len(bound_answers._nodes([many])) == bound_answers.MAX_NODES

    assert bound_chain("x", ["$(((( < x$"] * 3, "4") is None
    assert bound_chain(None, [], "4") is None
    assert bound_chain(GREATEST, ["$x^{40} - 2x > 9^{99}$"] * 3, "14") is None  # beyond the readable class
    assert bound_answers._solve("\\sqrt{x} < 3", bound_answers._Budget()) is None
    assert bound_answers._solve("|x - 1| + |x + 1| < 3", bound_answers._Budget()) is None


@pytest.mark.parametrize("padded", [
    r"From $6 - x > -9$ we get $6 - x + 0 > -9$, so $x < 15$, and the answer is $\boxed{14}$.",
    r"From $6 - x > -9$ we get $-9 < 6 - x$, so $x < 15$, and the answer is $\boxed{14}$.",
    r"We have $6 - x + 0 > -9$ and then $6 - x + 1 - 1 > -9$, so $x < 15$: $\boxed{14}$.",
])
@pytest.mark.parametrize("reward", ["faithful_accuracy", "rafs"])
def test_a_padded_rewrite_of_the_problems_inequality_earns_less_than_the_worked_solution(padded, reward):
    """The problem's inequality written again with nothing done to it ("+ 0", "+ 1 - 1", the sides swapped with the
    relation turned) is the problem copied, no link: the bound stated after it earns less than the solved chain."""
    i = reward == "rafs"
    assert _pay(GREATEST, padded, "14")[i] < _pay(GREATEST, GREATEST_VALID, "14")[i]
