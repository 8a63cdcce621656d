"""Values of defined functions: f(2) = … checked against the definition f(x) = … stated earlier."""

import pickle

import pytest

import rewards
import rewards.checks.claims
from rewards.checks.claims.substitution import check_trace

F = "Let $f(x) = 3x^2 - 5x + 2$."

# (problem, steps, refuted?) — the true rows are the shapes of real slips (ProcessBench MATH); the false rows are
# correct statements or non-definitions written the same ways that must stay unflagged
TABLE = [
    # a plain definition in the problem, a value in a step
    (F, [r"Then \( f(2) = 3(2)^2 + 5(2) + 2 = 24 \)."], True),                 # wrong sign substituted
    (F, [r"Then \( f(2) = 3(2)^2 - 5(2) + 2 = 4 \)."], False),
    (F, [r"So $f(-1) = 8$."], True),
    (F, [r"So $f(-1) = 10$."], False),
    (F, [r"$f(\frac{1}{2}) = 1$"], True),
    (F, [r"$f(\frac{1}{2}) = \frac{1}{4}$"], False),
    (F, ["f(2) + f(3) = 4 + 13 = 17"], True),
    (F, ["f(2) + f(3) = 4 + 14 = 18"], False),
    # the definition in an earlier step, a polynomial name, another variable letter
    ("", ["Let $P(t) = t^3 - 2t + 1$.", "Then $P(2) = 8 + 4 + 1 = 13$."], True),
    ("", ["Let $P(t) = t^3 - 2t + 1$.", "Then $P(2) = 8 - 4 + 1 = 5$."], False),
    # composition and a power of a value
    ("If $f(x)=x^3$ and $g(x) = x + 1$, find $f(g(1))$.", ["$f(g(1)) = f(2) = 9$"], True),
    ("If $f(x)=x^3$ and $g(x) = x + 1$, find $f(g(1))$.", ["$f(g(1)) = f(2) = 8$"], False),
    ("If $f(x)=x^3$, find $f^{-1}(8)\\div (f(8))^{-1}$.", [r"Therefore, \( (f(8))^{-1} = 8 \)."], True),
    ("If $f(x)=x^3$, find $f^{-1}(8)\\div (f(8))^{-1}$.", [r"Therefore, \( (f(8))^{-1} = \frac{1}{512} \)."], False),
    ("If $f(x)=x^3$, find $f^{-1}(8)$.", [r"\( f^{-1}(8) = 5 \)."], False),         # an inverse: left alone
    ("If $f(x)=x^3$, find $f'(2)$.", [r"\( f'(2) = 5 \)."], False),                # a derivative: left alone
    # rewrites of one definition agree; irrational and rounded values
    ("", ["$f(x) = (x-1)^2 = x^2 - 2x + 1$", "So $f(x) = x^2 - 2x + 1$ and $f(4) = 8$."], True),
    ("", ["$f(x) = (x-1)^2 = x^2 - 2x + 1$", "So $f(x) = x^2 - 2x + 1$ and $f(4) = 9$."], False),
    ("Let $f(x) = \\sqrt{x}$.", ["$f(2) = \\sqrt{3}$"], True),
    ("Let $f(x) = \\sqrt{x}$.", ["$f(2) = \\sqrt{2}$"], False),
    ("Let $f(x) = x/3$.", ["$f(1) = 0.33$"], False),                               # a rounded decimal
    ("Let $f(x) = x/3$.", ["$f(1) = 0.5$"], True),
    # parameters: compared as functions of them when the value is written in exactly those letters
    ("Let $p(x) = x^3 + 3ax^2 + 3$.", ["Note that $p(1) = 3a + 3$."], True),
    ("Let $p(x) = x^3 + 3ax^2 + 3$.", ["Note that $p(1) = 3a + 4$."], False),
    ("Let $p(x) = ax^2 + bx + c$.", ["With $b = 2$, $p(1) = a + 2 + c$."], False),   # a parameter solved
    ("Let $p(x) = ax^2 + bx + c$ with $p(1) = 5$.", ["So $p(1) = 5$."], False),       # a given value
    # not definitions: piecewise, conditions, functional equations, conflicts, reserved letters
    ("Let $f(x) = x + 1$ if $x > 0$ and $f(x) = 2$ otherwise.", ["$f(-1) = 2$"], False),
    (r"Let $f(x) = \begin{cases} x + 1 & x > 0 \\ 2 & x \le 0 \end{cases}$ and $g(x) = x^2$.", ["$f(-1) = 2$"],
     False),
    ("Find all $n$ such that $f(n) = n$, where $f(x+y) = f(x) + f(y) + xy$ and $f(1) = 1$.",
     ["Setting $x = y = 0$ gives $f(0) = 0$... so $f(0) = -1$."], False),
    ("Find the $x$ such that $f(x) = 2x$.", ["$f(3) = 5$"], False),
    ("Let $f(x) = 2x - 3$.", ["A fixed point solves $f(x) = x$, and $f(3) = 3$."], False),
    ("Let $f(x) = 2x - 3$.", ["Suppose instead $f(x) = x^2$; then $f(3) = 9$."], False),   # a conflict: dropped
    ("Let $f(x) = e^x$.", ["$f(1) = 3$"], False),
    ("Let $f(x) = 2x - 3$.", ["We need $f(x) = 0$, so $f(2) = 1$."], False),
    ("", ["Then $f(2) = 1$, and we define $f(x) = 2x - 3$."], False),             # the value comes first
    ("f(2) = 5 and f(x) = x + 1", ["We are given this."], False),                 # nothing claimed in a step
]


@pytest.mark.parametrize("problem,steps,refuted", TABLE)
def test_table(problem, steps, refuted):
    found = check_trace(steps, problem)
    assert bool(found) is refuted, [c.detail for _, c in found]
    if refuted:
        assert found[0][0] == len(steps) - 1
        assert found[0][1].ok is False and "is false" in found[0][1].detail


def test_detail_names_the_definition_and_the_value():
    steps = [r"Then \( f(2) = 3(2)^2 + 5(2) + 2 = 24 \)."]
    ((i, check),) = check_trace(steps, F)
    assert i == 0
    assert check.detail == "f(2) = 3(2)^2 + 5(2) + 2 is false: f(x) = 3x^2 - 5x + 2 gives f(2) = 4, not 24"


@pytest.mark.parametrize("steps,problem", [
    ([None, 3, ""], None),
    (["$f(x) = x^{9999999}$", "$f(9) = 1$"], ""),
    (["$f(x) = " + "(" * 500 + "x" + ")" * 500 + "$", "$f(1) = 2$"], ""),
    (["f(" * 2000], "f(x) = x"),
    (["$f(x) = x$" * 3000], ""),
])
def test_odd_input_never_raises(steps, problem):
    assert isinstance(check_trace(steps, problem), list)


def test_picklable():
    assert pickle.loads(pickle.dumps(check_trace)) is check_trace


def test_a_wrong_function_value_makes_the_suspect_step(monkeypatch):
    monkeypatch.setattr(rewards.checks.claims, "CHECKERS", [check_trace])
    from rewards.checks.equations import step_equations

    step_equations.cache_clear()
    problem = "Let $f(x) = 3x^2 - 5x + 2$. Find $f(2) + 1$."
    steps = ["We evaluate $f$ at $2$.", r"\( f(2) = 3(2)^2 + 5(2) + 2 = 24 \).", r"So the answer is \boxed{25}."]
    try:
        result = rewards.score_trace(problem, steps=steps)
        assert result.suspect_step == 1
    finally:
        step_equations.cache_clear()
