r"""Irrational answers derived by a verified LaTeX chain from the problem (:mod:`rewards.evidence.radical_chains`):
a radical simplified, a denominator rationalised, ``\pi r^2`` with ``r`` derived, an exact trigonometric value.

Each faithful trace is paid in full by ``faithful_accuracy_reward``; each completion a policy would write to earn
the same support without the reasoning (the answer rewritten with its own numbers, ``\pi`` or a trigonometric value
the problem gives no reason for, a root of an unrelated number) earns less than the faithful trace and no more than
the bare answer. Nothing here refutes: the valid traces have no step below ``q = 0.5`` in reward mode.
"""

from __future__ import annotations

import pytest

from rewards import RAFSConfig, faithful_accuracy_reward, rafs_reward, score_trace
from rewards.checks.latex_algebra import braced_arguments, bracketed_trig_arguments, parse
from rewards.evidence.lexicon import problem_numbers
from rewards.evidence.radical_chains import accepts, irrational_denominator


def _pay(problem: str, completion: str, gold: str) -> tuple[float, float]:
    rafs = rafs_reward([problem], [completion], answer=[gold])[0] or 0.0
    faithful = faithful_accuracy_reward([problem], [completion], answer=[gold])[0] or 0.0
    return rafs, faithful


RATIONALISE = r"Rationalize the denominator: $\frac1{2\sqrt7}$."
RATIONALISE_GOLD = (r"We multiply by $\frac{2\sqrt7}{2\sqrt7}$:" "\n"
                    r"\[ \frac{1}{2\sqrt7} \times \frac{2\sqrt7}{2\sqrt7} = \frac{2\sqrt7}{4 \times 7} = "
                    r"\frac{\sqrt7}{14} \]" "\n" r"The answer is $\boxed{\frac{\sqrt7}{14}}$.")
CONJUGATE = r"Rationalize the denominator of $\frac{2}{\sqrt{5}-1}$."
CONJUGATE_GOLD = (r"Multiply by the conjugate: \[ \frac{2}{\sqrt{5}-1} \cdot \frac{\sqrt{5}+1}{\sqrt{5}+1} = "
                  r"\frac{2(\sqrt{5}+1)}{5 - 1} = \frac{2(\sqrt{5}+1)}{4} = \frac{\sqrt{5}+1}{2} \]" "\n"
                  r"So the answer is $\boxed{\frac{\sqrt{5}+1}{2}}$.")
SQUARE = "A square has an area of 48 square centimeters. How long is its side, in centimeters?"
SQUARE_GOLD = (r"The side is the square root of the area: \[ \sqrt{48} = \sqrt{16 \cdot 3} = 4\sqrt{3} \]" "\n"
               r"The side is $\boxed{4\sqrt{3}}$ centimeters.")
TRIG = r"Compute $6\sin 60^\circ$."
TRIG_GOLD = (r"Since $\sin 60^\circ = \frac{\sqrt{3}}{2}$, \[ 6\sin 60^\circ = 6 \cdot \frac{\sqrt{3}}{2} = "
             r"3\sqrt{3} \]" "\n" r"$\boxed{3\sqrt{3}}$")

FAITHFUL = [(RATIONALISE, RATIONALISE_GOLD, r"\frac{\sqrt7}{14}"), (CONJUGATE, CONJUGATE_GOLD, r"\frac{\sqrt{5}+1}{2}"),
            (SQUARE, SQUARE_GOLD, r"4\sqrt{3}"), (TRIG, TRIG_GOLD, r"3\sqrt{3}")]


@pytest.mark.parametrize("problem, completion, gold", FAITHFUL)
def test_a_verified_chain_to_an_irrational_answer_is_paid_in_full(problem, completion, gold):
    assert faithful_accuracy_reward([problem], [completion], answer=[gold])[0] == 1.0
    result = score_trace(problem, completion, config=RAFSConfig(missing_evidence="no_support"))
    assert not any(c.q is not None and c.q < 0.5 for c in result.step_checks)  # support only: nothing refuted


APPLES = "Ann has 6 apples and 4 pears. Find the value of the expression her teacher wrote."
SIXTY = "Ann has 60 marbles and gives 3 away. Find the value her teacher wrote."
WALK = "Ann walks 65 meters north and then 4 meters east. Find the value her teacher wrote."


@pytest.mark.parametrize("problem, gold, faithful, attack", [
    # the answer rewritten with its own numbers, one of them a problem quantity: nothing computed
    (SQUARE, r"4\sqrt{3}", SQUARE_GOLD, r"\[ \sqrt{3} \cdot 4 = 4\sqrt{3} \]" "\n" r"$\boxed{4\sqrt{3}}$"),
    (SQUARE, r"4\sqrt{3}", SQUARE_GOLD, r"\[ \frac{4 \cdot 3}{\sqrt{3}} = 4\sqrt{3} \]" "\n" r"$\boxed{4\sqrt{3}}$"),
    (RATIONALISE, r"\frac{\sqrt7}{14}", RATIONALISE_GOLD,
     r"\[ \frac{1}{14}\sqrt{7} = \frac{\sqrt7}{14} \]" "\n" r"$\boxed{\frac{\sqrt7}{14}}$"),
])
def test_a_rewrite_of_the_answer_earns_less_than_the_faithful_chain(problem, gold, faithful, attack):
    bare = _pay(problem, rf"$\boxed{{{gold}}}$", gold)
    honest = _pay(problem, faithful, gold)
    gamed = _pay(problem, attack, gold)
    for k, name in enumerate(("rafs_reward", "faithful_accuracy_reward")):
        assert gamed[k] < honest[k], (name, gamed, honest)
        assert gamed[k] <= bare[k] + 1e-9, (name, gamed, bare)


@pytest.mark.parametrize("problem, gold, attack", [
    # pi from nowhere: a problem about apples gives no circle
    (APPLES, r"36\pi", r"\[ \pi \cdot 6^2 = 36\pi \]" "\n" r"$\boxed{36\pi}$"),
    # a trigonometric value of a problem number, in a problem that speaks of no angle
    (SIXTY, r"\frac{3\sqrt{3}}{2}", r"\[ 3 \sin 60^\circ = 3 \cdot \frac{\sqrt{3}}{2} = \frac{3\sqrt{3}}{2} \]" "\n"
     r"$\boxed{\frac{3\sqrt{3}}{2}}$"),
    # the root of a problem number that is the answer's own
    (WALK, r"\sqrt{65}", r"\[ \sqrt{1 \times 65} = \sqrt{65} \]" "\n" r"$\boxed{\sqrt{65}}$"),
])
def test_a_constant_or_root_from_nowhere_earns_no_more_than_the_bare_answer(problem, gold, attack):
    bare = _pay(problem, rf"$\boxed{{{gold}}}$", gold)
    gamed = _pay(problem, attack, gold)
    assert gamed[1] < 1.0
    for k, name in enumerate(("rafs_reward", "faithful_accuracy_reward")):
        assert gamed[k] <= bare[k] + 1e-9, (name, gamed, bare)


def test_the_same_constants_are_support_where_the_problem_licenses_them():
    circle = "A circle has a diameter of 12 cm. What is its area, in square centimeters?"
    gold = (r"The radius is $r = \frac{12}{2} = 6$ cm. \[ A = \pi r^2 = \pi \cdot 6^2 = 36\pi \]" "\n"
            r"$\boxed{36\pi}$")
    assert faithful_accuracy_reward([circle], [gold], answer=[r"36\pi"])[0] == 1.0
    walk = "Ann walks 7 meters north and then 4 meters east. How far is she from where she started?"
    gold = r"\[ \sqrt{7^2 + 4^2} = \sqrt{49 + 16} = \sqrt{65} \]" "\n" r"$\boxed{\sqrt{65}}$"
    assert faithful_accuracy_reward([walk], [gold], answer=[r"\sqrt{65}"])[0] == 1.0


def test_accepts():
    assert accepts(RATIONALISE, r"\frac{\sqrt7}{14}", r"\frac{1}{2\sqrt{7}}")
    assert not accepts(SQUARE, r"4\sqrt{3}", r"\sqrt{3} \cdot 4")
    assert not accepts(SQUARE, r"\frac{\sqrt{3}}{3}", r"\sqrt{\frac{1}{3}}")
    assert accepts("", r"2\sqrt{3} + 3", r"\frac{1}{\frac{2\sqrt{3}}{3} - 1}")  # rationalised by the conjugate
    assert not accepts(APPLES, r"36\pi", r"\pi \cdot 6^2") and accepts("A circle of radius 6.", r"36\pi", r"\pi 6^2")
    assert not accepts(SIXTY, r"\sqrt{3}", r"2\sin 60^\circ") and accepts(TRIG, r"\sqrt{3}", r"2\sin 60^\circ")
    assert irrational_denominator(r"\frac{2}{\sqrt{5}-1}") and not irrational_denominator(r"\frac{6}{\sqrt{3}}")


def test_latex_one_digit_arguments_are_read():
    assert braced_arguments(r"\frac12 + \sqrt7 - \frac{\sqrt3}2") == r"\frac{1}{2} + \sqrt{7} - \frac{\sqrt{3}}{2}"
    assert braced_arguments(r"\sqrt12") == r"\sqrt{1}2"  # LaTeX takes one token
    assert problem_numbers(RATIONALISE) >= {1, 2, 7}
    assert str(parse(bracketed_trig_arguments(r"\frac{1 - \cos 45^\circ}{\sin 45^\circ}"))) == "(1 - cos(pi/4))/sin(pi/4)"
    assert parse(r"\cos 45^\circ \cdot 2") is None  # elsewhere a bare argument stays refused


SIMPLIFY = r"Simplify $\sqrt{242}$."


@pytest.mark.parametrize("attack", [
    SIMPLIFY + "\n" + r"$\boxed{11\sqrt2}$",  # the problem copied, then the answer (the audit's copy_problem)
    r"The value of $\sqrt{242}$ is well known: it is $11\sqrt2$." "\n" r"$\boxed{11\sqrt2}$",  # stated, not computed
    r"$\sqrt{242}$, that is $\sqrt{242}$, is $11\sqrt2$." "\n" r"$\boxed{11\sqrt2}$",  # a side written twice
])
def test_the_problem_expression_then_the_answer_is_no_chain(attack):
    # (one equation "\sqrt{242} = 11\sqrt2" is a verified inexact derivation, the equation reader's as this reader's)
    faithful = r"\[ \sqrt{242} = \sqrt{121 \cdot 2} = 11\sqrt{2} \]" "\n" r"$\boxed{11\sqrt2}$"
    bare = _pay(SIMPLIFY, r"$\boxed{11\sqrt2}$", r"11\sqrt2")
    honest = _pay(SIMPLIFY, faithful, r"11\sqrt2")
    gamed = _pay(SIMPLIFY, attack, r"11\sqrt2")
    assert honest[1] == 1.0
    for k, name in enumerate(("rafs_reward", "faithful_accuracy_reward")):
        assert gamed[k] < honest[k], (name, gamed, honest)
        assert gamed[k] <= bare[k] + 1e-9, (name, gamed, bare)
